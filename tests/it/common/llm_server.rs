//! A tiny scripted HTTP/1.1 server for LLM client tests: it listens on 127.0.0.1:0, records
//! every request (method, path, headers, body) and answers each connection with the next
//! scripted response (status, headers, body, optional delay). One request per connection
//! (`Connection: close`). It stops when dropped.
//!
//! Use from a test file with `#[path = "common/llm_server.rs"] mod llm_server;`.
#![allow(dead_code)]

use serde_json::{Value, json};
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

/// One request as received.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    /// Header names in lower case, in arrival order.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        let name = name.to_ascii_lowercase();
        self.headers.iter().find(|(n, _)| *n == name).map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("request body is JSON")
    }
}

/// One scripted answer.
#[derive(Debug, Clone)]
pub struct Scripted {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
    /// Wait this long before answering (to provoke client timeouts).
    pub delay: Duration,
}

impl Scripted {
    pub fn json(status: u16, body: impl Into<String>) -> Scripted {
        Scripted {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            body: body.into(),
            delay: Duration::ZERO,
        }
    }

    pub fn text(status: u16, body: impl Into<String>) -> Scripted {
        Scripted {
            status,
            headers: vec![("content-type".into(), "text/plain".into())],
            body: body.into(),
            delay: Duration::ZERO,
        }
    }

    pub fn header(mut self, name: &str, value: &str) -> Scripted {
        self.headers.push((name.into(), value.into()));
        self
    }

    pub fn delay(mut self, d: Duration) -> Scripted {
        self.delay = d;
        self
    }
}

pub struct LlmServer {
    addr: std::net::SocketAddr,
    requests: Arc<Mutex<Vec<Recorded>>>,
    queue: Arc<Mutex<VecDeque<Scripted>>>,
    stop: Arc<AtomicBool>,
    accept: Option<JoinHandle<()>>,
}

impl LlmServer {
    /// Starts a server answering with `responses` in order; once they run out it answers
    /// 599 `unscripted request`.
    pub fn start(responses: Vec<Scripted>) -> LlmServer {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1:0");
        listener.set_nonblocking(true).expect("nonblocking listener");
        let addr = listener.local_addr().unwrap();
        let requests = Arc::new(Mutex::new(Vec::new()));
        let queue = Arc::new(Mutex::new(VecDeque::from(responses)));
        let stop = Arc::new(AtomicBool::new(false));
        let (r, q, s) = (requests.clone(), queue.clone(), stop.clone());
        let accept = std::thread::spawn(move || {
            while !s.load(Ordering::SeqCst) {
                match listener.accept() {
                    Ok((stream, _)) => {
                        let (r, q, s) = (r.clone(), q.clone(), s.clone());
                        std::thread::spawn(move || serve(stream, r, q, s));
                    }
                    Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                        std::thread::sleep(Duration::from_millis(5))
                    }
                    Err(_) => break,
                }
            }
        });
        LlmServer {
            addr,
            requests,
            queue,
            stop,
            accept: Some(accept),
        }
    }

    /// `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    pub fn push(&self, response: Scripted) {
        self.queue.lock().unwrap().push_back(response);
    }

    /// The requests received so far.
    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().unwrap().clone()
    }

    /// Scripted responses not yet used.
    pub fn remaining(&self) -> usize {
        self.queue.lock().unwrap().len()
    }
}

impl Drop for LlmServer {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(h) = self.accept.take() {
            let _ = h.join();
        }
    }
}

fn serve(
    stream: TcpStream,
    requests: Arc<Mutex<Vec<Recorded>>>,
    queue: Arc<Mutex<VecDeque<Scripted>>>,
    stop: Arc<AtomicBool>,
) {
    let _ = stream.set_nonblocking(false);
    let _ = stream.set_read_timeout(Some(Duration::from_secs(10)));
    let mut reader = BufReader::new(match stream.try_clone() {
        Ok(s) => s,
        Err(_) => return,
    });
    let mut line = String::new();
    if reader.read_line(&mut line).unwrap_or(0) == 0 {
        return;
    }
    let mut parts = line.split_whitespace();
    let method = parts.next().unwrap_or_default().to_string();
    let path = parts.next().unwrap_or_default().to_string();
    let mut headers = Vec::new();
    loop {
        let mut h = String::new();
        if reader.read_line(&mut h).unwrap_or(0) == 0 {
            return;
        }
        let h = h.trim_end();
        if h.is_empty() {
            break;
        }
        if let Some((n, v)) = h.split_once(':') {
            headers.push((n.trim().to_ascii_lowercase(), v.trim().to_string()));
        }
    }
    let len = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse::<usize>().ok())
        .unwrap_or(0);
    let mut body = vec![0; len];
    if reader.read_exact(&mut body).is_err() {
        return;
    }
    requests.lock().unwrap().push(Recorded {
        method,
        path,
        headers,
        body,
    });
    let response = queue
        .lock()
        .unwrap()
        .pop_front()
        .unwrap_or_else(|| Scripted::text(599, "unscripted request"));
    // Sleep in steps so a dropped server does not keep threads around for long.
    let mut left = response.delay;
    while !left.is_zero() && !stop.load(Ordering::SeqCst) {
        let step = left.min(Duration::from_millis(20));
        std::thread::sleep(step);
        left -= step;
    }
    let mut out = format!("HTTP/1.1 {} {}\r\n", response.status, reason(response.status));
    for (n, v) in &response.headers {
        out.push_str(&format!("{n}: {v}\r\n"));
    }
    out.push_str(&format!(
        "content-length: {}\r\nconnection: close\r\n\r\n",
        response.body.len()
    ));
    let mut stream = stream;
    let _ = stream.write_all(out.as_bytes());
    let _ = stream.write_all(response.body.as_bytes());
    let _ = stream.flush();
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        400 => "Bad Request",
        401 => "Unauthorized",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        _ => "Status",
    }
}

/// Token counts for the success bodies.
#[derive(Debug, Clone, Copy, Default)]
pub struct Tokens {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
}

/// An Anthropic Messages answer with one text block.
pub fn anthropic_body(text: &str, t: Tokens, stop_reason: &str) -> String {
    json!({
        "id": "msg_test",
        "type": "message",
        "role": "assistant",
        "model": "test",
        "content": [{"type": "text", "text": text}],
        "stop_reason": stop_reason,
        "stop_sequence": null,
        "usage": {
            "input_tokens": t.input,
            "output_tokens": t.output,
            "cache_read_input_tokens": t.cache_read,
            "cache_creation_input_tokens": t.cache_write,
        },
    })
    .to_string()
}

/// An OpenAI chat-completions answer. `t.input` is the uncached part of the prompt:
/// `prompt_tokens` = input + cache_read.
pub fn openai_body(text: &str, t: Tokens, finish_reason: &str) -> String {
    json!({
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "created": 0,
        "model": "test",
        "choices": [{
            "index": 0,
            "message": {"role": "assistant", "content": text, "refusal": null},
            "finish_reason": finish_reason,
        }],
        "usage": {
            "prompt_tokens": t.input + t.cache_read,
            "completion_tokens": t.output,
            "total_tokens": t.input + t.cache_read + t.output,
            "prompt_tokens_details": {"cached_tokens": t.cache_read},
        },
    })
    .to_string()
}

/// A Gemini generateContent answer. `promptTokenCount` = input + cache_read.
pub fn gemini_body(text: &str, t: Tokens, finish_reason: &str) -> String {
    json!({
        "candidates": [{
            "content": {"role": "model", "parts": [{"text": text}]},
            "finishReason": finish_reason,
            "index": 0,
        }],
        "usageMetadata": {
            "promptTokenCount": t.input + t.cache_read,
            "candidatesTokenCount": t.output,
            "cachedContentTokenCount": t.cache_read,
            "totalTokenCount": t.input + t.cache_read + t.output,
        },
        "modelVersion": "test",
    })
    .to_string()
}
