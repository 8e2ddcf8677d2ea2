//! The LLM layer against a local scripted server: request shape (headers, body, max_tokens),
//! parsed text, usage and cost for Anthropic, OpenAI and Gemini; retries, timeouts, errors;
//! key lookup through auth.json, models.json and the environment; keys never in errors.
//!
//! Environment variables are process-global, so every test holds `ENV_LOCK` through [`Env`].

#[path = "it/common/llm_server.rs"]
mod llm_server;

use llm_server::{LlmServer, Scripted, Tokens, anthropic_body, gemini_body, openai_body};
use pi_session::llm::{self, LlmError, ResolveRequest, Settings, Summarizer, SummaryRequest, SummaryResponse};
use pi_session::progress::Cancel;
use serde_json::{Value, json};
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, Instant};

static ENV_LOCK: Mutex<()> = Mutex::new(());

/// Variables the tests set; cleared before and after each test.
const VARS: &[&str] = &[
    "PI_CODING_AGENT_DIR",
    "PI_SESSION_RETRY_BASE_MS",
    "PI_SESSION_HTTP_TIMEOUT_MS",
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_OAUTH_TOKEN",
    "OPENAI_API_KEY",
    "GEMINI_API_KEY",
    "MYLLM_API_KEY",
    "PIS_TEST_KEY_VAR",
    "PIS_TEST_LOCAL_KEY",
];

/// A test environment: the lock, a fresh agent directory, fast retries.
struct Env {
    _guard: MutexGuard<'static, ()>,
    dir: tempfile::TempDir,
}

impl Env {
    fn new() -> Env {
        let guard = ENV_LOCK.lock().unwrap_or_else(|e| e.into_inner());
        for v in VARS {
            unsafe { std::env::remove_var(v) };
        }
        let dir = tempfile::tempdir().unwrap();
        let env = Env { _guard: guard, dir };
        env.set("PI_CODING_AGENT_DIR", env.dir.path().to_str().unwrap());
        env.set("PI_SESSION_RETRY_BASE_MS", "5");
        env
    }

    fn set(&self, k: &str, v: &str) {
        assert!(VARS.contains(&k), "add {k} to VARS");
        unsafe { std::env::set_var(k, v) };
    }

    fn write(&self, name: &str, content: &str) {
        std::fs::write(self.dir.path().join(name), content).unwrap();
    }
}

impl Drop for Env {
    fn drop(&mut self) {
        for v in VARS {
            unsafe { std::env::remove_var(v) };
        }
    }
}

const SYSTEM: &str = "You are a summarizer.";
const PROMPT: &str = "<conversation>\n[User]: hello\n</conversation>\n\nSummarize.";

fn request() -> SummaryRequest {
    SummaryRequest {
        system: SYSTEM.into(),
        prompt: PROMPT.into(),
        thinking_level: None,
    }
}

/// `resolve` + `summarize` with `--model spec --base-url url`.
fn run(spec: &str, url: &str, req: &SummaryRequest) -> Result<SummaryResponse, LlmError> {
    let (_, s) = llm::resolve(Some(spec), Some(url), None, None, None)?;
    s.summarize(req)
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

/// Display and Debug of an error never show `secret`.
fn assert_hidden(err: &LlmError, secret: &str) {
    let shown = format!("{err} {err:?}");
    assert!(!shown.contains(secret), "secret leaked: {shown}");
}

// --- Anthropic ----------------------------------------------------------------------------

#[test]
fn anthropic_request_text_usage_and_cost() {
    let env = Env::new();
    env.set("ANTHROPIC_API_KEY", "sk-ant-api-test-1");
    let server = LlmServer::start(vec![Scripted::json(
        200,
        anthropic_body(
            "The summary.",
            Tokens {
                input: 1000,
                output: 200,
                cache_read: 300,
                cache_write: 50,
            },
            "end_turn",
        ),
    )]);
    // A long prompt in a small window so that max_tokens is clamped: system 350 chars = 100
    // tokens, prompt 35000 chars = 10000 tokens (3.5 chars per token). Margin
    // max(4096, 15 % of 10100) = 4096; room 40000 - 10100 - 4096 = 25804 < 32768, so the
    // fixed margin applies: min(32768, 25804) = 25804, below the model's 64000.
    let req = SummaryRequest {
        system: "s".repeat(350),
        prompt: "p".repeat(35000),
        thinking_level: None,
    };
    let (info, s) = llm::resolve(
        Some("anthropic/claude-sonnet-4-5"),
        Some(&server.url()),
        None,
        Some(40_000),
        None,
    )
    .unwrap();
    assert_eq!(
        (info.provider.as_str(), info.id.as_str(), info.context_window),
        ("anthropic", "claude-sonnet-4-5", 40_000)
    );
    assert_eq!(s.describe(), "anthropic/claude-sonnet-4-5");
    let out = s.summarize(&req).unwrap();

    let reqs = server.requests();
    assert_eq!(reqs.len(), 1);
    let r = &reqs[0];
    assert_eq!((r.method.as_str(), r.path.as_str()), ("POST", "/v1/messages"));
    assert_eq!(r.header("x-api-key"), Some("sk-ant-api-test-1"));
    assert_eq!(r.header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(r.header("authorization"), None);
    assert_eq!(r.header("content-type"), Some("application/json"));
    let body = r.json();
    assert_eq!(body["model"], "claude-sonnet-4-5");
    assert_eq!(body["max_tokens"], 25804);
    assert_eq!(body["system"], json!([{"type": "text", "text": "s".repeat(350)}]));
    assert_eq!(
        body["messages"],
        json!([{"role": "user", "content": [{"type": "text", "text": "p".repeat(35000)}]}])
    );
    assert_eq!(body["thinking"], json!({"type": "disabled"}));
    assert!(body.get("stream").is_none());
    assert!(
        !String::from_utf8_lossy(&r.body).contains("cache_control"),
        "no prompt-cache writes"
    );

    assert_eq!(out.text, "The summary.");
    let u = &out.usage;
    assert_eq!(
        (u.input, u.output, u.cache_read, u.cache_write, u.total_tokens),
        (1000, 200, 300, 50, 1550)
    );
    // claude-sonnet-4-5: $3 in, $15 out, $0.30 cache read, $3.75 cache write per million.
    assert!(
        close(u.cost.input, 0.003) && close(u.cost.output, 0.003),
        "{:?}",
        u.cost
    );
    assert!(
        close(u.cost.cache_read, 0.00009) && close(u.cost.cache_write, 0.0001875),
        "{:?}",
        u.cost
    );
    assert!(close(u.cost.total, 0.003 + 0.003 + 0.00009 + 0.0001875));
}

#[test]
fn anthropic_thinking_budget_and_adaptive_effort() {
    let env = Env::new();
    env.set("ANTHROPIC_API_KEY", "sk-ant-api-test-2");
    let ok = || Scripted::json(200, anthropic_body("S", Tokens::default(), "end_turn"));
    let server = LlmServer::start(vec![ok(), ok()]);
    let mut req = request();
    req.thinking_level = Some("medium".into());
    run("anthropic/claude-sonnet-4-5", &server.url(), &req).unwrap();
    run("anthropic/claude-opus-4-7", &server.url(), &req).unwrap();
    let reqs = server.requests();
    // Budget-based: 8192 for medium within the model's 64000 (already the cap).
    let b = reqs[0].json();
    assert_eq!(b["thinking"], json!({"type": "enabled", "budget_tokens": 8192}));
    assert_eq!(b["max_tokens"], 64000);
    // Adaptive models take an effort instead.
    let b = reqs[1].json();
    assert_eq!(b["thinking"], json!({"type": "adaptive"}));
    assert_eq!(b["output_config"], json!({"effort": "medium"}));
}

// --- OpenAI -------------------------------------------------------------------------------

#[test]
fn openai_request_text_usage_and_cost() {
    let env = Env::new();
    env.set("OPENAI_API_KEY", "sk-openai-test-1");
    let server = LlmServer::start(vec![Scripted::json(
        200,
        openai_body(
            "Short summary.",
            Tokens {
                input: 800,
                output: 100,
                cache_read: 200,
                cache_write: 0,
            },
            "stop",
        ),
    )]);
    let out = run("openai/gpt-4.1", &server.url(), &request()).unwrap();
    let r = &server.requests()[0];
    assert_eq!((r.method.as_str(), r.path.as_str()), ("POST", "/chat/completions"));
    assert_eq!(r.header("authorization"), Some("Bearer sk-openai-test-1"));
    let body = r.json();
    assert_eq!(body["model"], "gpt-4.1");
    assert_eq!(
        body["messages"],
        json!([{"role": "system", "content": SYSTEM}, {"role": "user", "content": PROMPT}])
    );
    // gpt-4.1: 32768 output tokens fit its 1047576-token window.
    assert_eq!(body["max_completion_tokens"], 32768);
    assert!(body.get("max_tokens").is_none());
    assert_eq!(body["store"], false);
    assert!(body.get("stream").is_none() && body.get("reasoning_effort").is_none());

    assert_eq!(out.text, "Short summary.");
    let u = &out.usage;
    assert_eq!(
        (u.input, u.output, u.cache_read, u.cache_write, u.total_tokens),
        (800, 100, 200, 0, 1100)
    );
    // gpt-4.1: $2 in, $8 out, $0.50 cache read.
    assert!(close(u.cost.input, 0.0016) && close(u.cost.output, 0.0008) && close(u.cost.cache_read, 0.0001));
    assert!(close(u.cost.total, 0.0025));
}

#[test]
fn openai_reasoning_model_uses_developer_role_and_clamped_effort() {
    let env = Env::new();
    env.set("OPENAI_API_KEY", "sk-openai-test-2");
    let ok = || Scripted::json(200, openai_body("S", Tokens::default(), "stop"));
    let server = LlmServer::start(vec![ok(), ok()]);
    let mut req = request();
    req.thinking_level = Some("minimal".into());
    run("openai/gpt-5.1", &server.url(), &req).unwrap();
    run("openai/gpt-5.1", &server.url(), &request()).unwrap();
    let reqs = server.requests();
    let b = reqs[0].json();
    assert_eq!(b["messages"][0]["role"], "developer");
    // gpt-5.1 does not support "minimal": the next level up.
    assert_eq!(b["reasoning_effort"], "low");
    // No level: the model's "off" value.
    assert_eq!(reqs[1].json()["reasoning_effort"], "none");
}

#[test]
fn unknown_provider_with_base_url_is_openai_compatible() {
    let env = Env::new();
    let ok = || {
        Scripted::json(
            200,
            openai_body(
                "Local.",
                Tokens {
                    input: 5,
                    output: 1,
                    ..Tokens::default()
                },
                "stop",
            ),
        )
    };
    let server = LlmServer::start(vec![ok(), ok()]);
    let out = run("myllm/qwen3:8b", &format!("{}/v1/", server.url()), &request()).unwrap();
    assert_eq!(out.text, "Local.");
    env.set("MYLLM_API_KEY", "sk-myllm-1");
    let (info, s) = llm::resolve(
        Some("myllm/qwen3:8b"),
        Some(&format!("{}/v1", server.url())),
        None,
        None,
        None,
    )
    .unwrap();
    s.summarize(&request()).unwrap();
    // Pi's defaults for a model it does not know; free.
    assert_eq!((info.context_window, info.max_output_tokens), (128_000, 16_384));
    assert_eq!(out.usage.cost.total, 0.0);
    let reqs = server.requests();
    assert_eq!(reqs[0].path, "/v1/chat/completions");
    assert_eq!(reqs[0].header("authorization"), None, "no key for a local server");
    assert_eq!(reqs[1].header("authorization"), Some("Bearer sk-myllm-1"));
    assert_eq!(reqs[0].json()["model"], "qwen3:8b");
}

// --- Gemini -------------------------------------------------------------------------------

#[test]
fn gemini_request_text_usage_and_cost() {
    let env = Env::new();
    env.set("GEMINI_API_KEY", "gm-test-key-1");
    let server = LlmServer::start(vec![Scripted::json(
        200,
        gemini_body(
            "Gemini summary.",
            Tokens {
                input: 500,
                output: 50,
                cache_read: 100,
                cache_write: 0,
            },
            "STOP",
        ),
    )]);
    let out = run("google/gemini-2.5-flash", &server.url(), &request()).unwrap();
    let r = &server.requests()[0];
    assert_eq!(
        (r.method.as_str(), r.path.as_str()),
        ("POST", "/models/gemini-2.5-flash:generateContent")
    );
    assert_eq!(r.header("x-goog-api-key"), Some("gm-test-key-1"));
    assert_eq!(r.header("authorization"), None);
    let body = r.json();
    assert_eq!(body["systemInstruction"], json!({"parts": [{"text": SYSTEM}]}));
    assert_eq!(body["contents"], json!([{"role": "user", "parts": [{"text": PROMPT}]}]));
    assert_eq!(body["generationConfig"]["maxOutputTokens"], 65536);
    // A thinking model asked for no thinking: Pi's zero budget.
    assert_eq!(body["generationConfig"]["thinkingConfig"], json!({"thinkingBudget": 0}));

    assert_eq!(out.text, "Gemini summary.");
    let u = &out.usage;
    assert_eq!(
        (u.input, u.output, u.cache_read, u.cache_write, u.total_tokens),
        (500, 50, 100, 0, 650)
    );
    // gemini-2.5-flash: $0.30 in, $2.50 out, $0.03 cache read.
    assert!(close(u.cost.input, 0.00015) && close(u.cost.output, 0.000125) && close(u.cost.cache_read, 0.000003));
}

#[test]
fn gemini_thinking_level_models() {
    let env = Env::new();
    env.set("GEMINI_API_KEY", "gm-test-key-2");
    let server = LlmServer::start(vec![Scripted::json(200, gemini_body("S", Tokens::default(), "STOP"))]);
    let mut req = request();
    req.thinking_level = Some("high".into());
    run("google/gemini-3-flash-preview", &server.url(), &req).unwrap();
    let body = server.requests()[0].json();
    assert_eq!(
        body["generationConfig"]["thinkingConfig"],
        json!({"thinkingLevel": "HIGH"})
    );
}

// --- Retries, errors, timeouts --------------------------------------------------------------

#[test]
fn rate_limit_with_retry_after_is_retried() {
    let env = Env::new();
    env.set("ANTHROPIC_API_KEY", "sk-ant-api-test-3");
    let server = LlmServer::start(vec![
        Scripted::json(
            429,
            r#"{"type":"error","error":{"type":"rate_limit_error","message":"slow down"}}"#,
        )
        .header("retry-after", "1"),
        Scripted::json(200, anthropic_body("After the wait.", Tokens::default(), "end_turn")),
    ]);
    let start = Instant::now();
    let out = run("anthropic/claude-haiku-4-5", &server.url(), &request()).unwrap();
    assert_eq!(out.text, "After the wait.");
    assert_eq!(server.requests().len(), 2);
    // Retry-After (1 s) is honoured instead of the 5 ms base delay.
    assert!(start.elapsed() >= Duration::from_millis(950), "{:?}", start.elapsed());
}

#[test]
fn server_errors_give_up_after_the_retries() {
    let env = Env::new();
    env.set("OPENAI_API_KEY", "sk-openai-test-3");
    let boom = || Scripted::json(500, r#"{"error":{"message":"boom","type":"server_error"}}"#);
    let server = LlmServer::start(vec![boom(), boom(), boom(), boom(), boom()]);
    let err = run("openai/gpt-4.1-mini", &server.url(), &request()).unwrap_err();
    // Pi's default: 3 retries, 4 attempts.
    assert_eq!(server.requests().len(), 4);
    match &err {
        LlmError::Status {
            provider,
            status,
            message,
        } => {
            assert_eq!((provider.as_str(), *status), ("openai", 500));
            assert!(message.contains("boom") && message.contains("4 attempts"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    let shown = err.to_string();
    assert!(
        shown.contains("openai") && shown.contains("500") && shown.contains("boom"),
        "{shown}"
    );
    assert_hidden(&err, "sk-openai-test-3");
}

#[test]
fn client_errors_are_not_retried_and_hide_the_key() {
    let env = Env::new();
    env.set("OPENAI_API_KEY", "sk-openai-secret-echo");
    // A server that echoes the key back in its error message.
    let server = LlmServer::start(vec![Scripted::json(
        401,
        r#"{"error":{"message":"Incorrect API key provided: sk-openai-secret-echo","type":"invalid_request_error"}}"#,
    )]);
    let err = run("openai/gpt-4.1", &server.url(), &request()).unwrap_err();
    assert_eq!(server.requests().len(), 1);
    assert!(matches!(err, LlmError::Status { status: 401, .. }), "{err:?}");
    assert!(err.to_string().contains("Incorrect API key provided: ***"), "{err}");
    assert_hidden(&err, "sk-openai-secret-echo");
}

#[test]
fn quota_exhaustion_is_not_retried() {
    let env = Env::new();
    env.set("OPENAI_API_KEY", "sk-openai-test-4");
    let quota = || {
        Scripted::json(
            429,
            r#"{"error":{"message":"You exceeded your current quota","code":"insufficient_quota"}}"#,
        )
    };
    let server = LlmServer::start(vec![quota(), quota()]);
    let err = run("openai/gpt-4.1", &server.url(), &request()).unwrap_err();
    assert_eq!(server.requests().len(), 1);
    assert!(matches!(err, LlmError::Status { status: 429, .. }), "{err:?}");
}

#[test]
fn malformed_answers_are_errors() {
    let env = Env::new();
    env.set("ANTHROPIC_API_KEY", "sk-ant-api-test-4");
    let server = LlmServer::start(vec![
        Scripted::json(200, "{not json"),
        Scripted::json(200, r#"{"id": "x", "usage": {}}"#),
        Scripted::json(200, anthropic_body("", Tokens::default(), "end_turn")),
    ]);
    for expected in ["not valid JSON", "no \"content\"", "no text"] {
        let err = run("anthropic/claude-haiku-4-5", &server.url(), &request()).unwrap_err();
        match &err {
            LlmError::BadResponse { provider, message } => {
                assert_eq!(provider, "anthropic");
                assert!(message.contains(expected), "{message}");
            }
            other => panic!("{other:?}"),
        }
        assert_hidden(&err, "sk-ant-api-test-4");
    }
    assert_eq!(server.requests().len(), 3, "parse errors are not retried");
}

#[test]
fn timeouts_are_retried_then_reported() {
    let env = Env::new();
    env.set("GEMINI_API_KEY", "gm-test-key-3");
    env.set("PI_SESSION_HTTP_TIMEOUT_MS", "300");
    let slow = || Scripted::json(200, gemini_body("late", Tokens::default(), "STOP")).delay(Duration::from_secs(3));
    let server = LlmServer::start(vec![slow(), slow(), slow(), slow()]);
    let start = Instant::now();
    let err = run("google/gemini-2.5-pro", &server.url(), &request()).unwrap_err();
    assert!(start.elapsed() < Duration::from_secs(3), "{:?}", start.elapsed());
    assert_eq!(server.requests().len(), 4);
    match &err {
        LlmError::Transport { provider, message } => {
            assert_eq!(provider, "google");
            assert!(
                message.contains("within 300 ms") && message.contains("4 attempts"),
                "{message}"
            );
        }
        other => panic!("{other:?}"),
    }
    assert_hidden(&err, "gm-test-key-3");
}

#[test]
fn connection_failures_are_retried_then_reported() {
    let env = Env::new();
    env.set("OPENAI_API_KEY", "sk-openai-test-11");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let err = run("openai/gpt-4o", &format!("http://127.0.0.1:{port}"), &request()).unwrap_err();
    match &err {
        LlmError::Transport { provider, message } => {
            assert_eq!(provider, "openai");
            assert!(
                message.contains(&format!("cannot connect to 127.0.0.1:{port}")),
                "{message}"
            );
            assert!(message.contains("4 attempts"), "{message}");
        }
        other => panic!("{other:?}"),
    }
    assert_hidden(&err, "sk-openai-test-11");
}

#[test]
fn answers_cut_off_at_the_token_cap_are_refused() {
    let env = Env::new();
    env.set("ANTHROPIC_API_KEY", "sk-ant-api-test-5");
    env.set("OPENAI_API_KEY", "sk-openai-test-5");
    env.set("GEMINI_API_KEY", "gm-test-key-5");
    let server = LlmServer::start(vec![
        Scripted::json(200, anthropic_body("Half a sum", Tokens::default(), "max_tokens")),
        Scripted::json(200, openai_body("Half a sum", Tokens::default(), "length")),
        Scripted::json(200, gemini_body("Half a sum", Tokens::default(), "MAX_TOKENS")),
    ]);
    for (spec, provider) in [
        ("anthropic/claude-haiku-4-5", "anthropic"),
        ("openai/gpt-4o", "openai"),
        ("google/gemini-2.5-flash", "google"),
    ] {
        let err = run(spec, &server.url(), &request()).unwrap_err();
        match &err {
            LlmError::BadResponse { provider: p, message } => {
                assert_eq!(p, provider);
                assert!(
                    message.contains("token cap") && message.contains("incomplete"),
                    "{message}"
                );
            }
            other => panic!("{spec}: {other:?}"),
        }
    }
    assert_eq!(server.requests().len(), 3);
}

#[test]
fn tool_calls_are_refused() {
    let env = Env::new();
    env.set("ANTHROPIC_API_KEY", "sk-ant-api-test-6");
    env.set("OPENAI_API_KEY", "sk-openai-test-6");
    let openai_tool = json!({
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": null,
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "read", "arguments": "{}"}}]}}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1}
    });
    let anthropic_tool = json!({
        "content": [{"type": "text", "text": "Let me look."}, {"type": "tool_use", "id": "t1", "name": "read", "input": {}}],
        "stop_reason": "tool_use", "usage": {"input_tokens": 1, "output_tokens": 1}
    });
    let server = LlmServer::start(vec![
        Scripted::json(200, openai_tool.to_string()),
        Scripted::json(200, anthropic_tool.to_string()),
    ]);
    for spec in ["openai/gpt-4o", "anthropic/claude-haiku-4-5"] {
        let err = run(spec, &server.url(), &request()).unwrap_err();
        assert!(
            matches!(&err, LlmError::BadResponse { message, .. } if message.contains("called a tool")),
            "{err:?}"
        );
    }
}

#[test]
fn ctrl_c_abandons_the_request() {
    let _env = Env::new();
    let server = LlmServer::start(vec![
        Scripted::json(200, openai_body("late", Tokens::default(), "stop")).delay(Duration::from_secs(5)),
    ]);
    // What the binary's Ctrl-C does: set the cancel flag the summarizer was given.
    let cancel = Cancel::new();
    let (_, summarizer) = llm::resolve(Some("local/m"), Some(&server.url()), None, None, None).unwrap();
    let summarizer = summarizer.with_cancel(cancel.clone());
    let flag = cancel.clone();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        flag.cancel();
    });
    let start = Instant::now();
    let err = summarizer.summarize(&request()).unwrap_err();
    canceller.join().unwrap();
    assert!(matches!(err, LlmError::Interrupted), "{err:?}");
    assert!(start.elapsed() < Duration::from_secs(3), "{:?}", start.elapsed());
    assert!(cancel.is_cancelled());
}

#[test]
fn cancel_stops_the_wait_before_a_retry() {
    let env = Env::new();
    env.set("PI_SESSION_RETRY_BASE_MS", "5000");
    let server = LlmServer::start(vec![
        Scripted::json(503, r#"{"error":{"message":"busy"}}"#),
        Scripted::json(200, openai_body("late", Tokens::default(), "stop")),
    ]);
    let cancel = Cancel::new();
    let (_, summarizer) = llm::resolve(Some("local/m"), Some(&server.url()), None, None, None).unwrap();
    let summarizer = summarizer.with_cancel(cancel.clone());
    let flag = cancel.clone();
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(300));
        flag.cancel();
    });
    let start = Instant::now();
    let err = summarizer.summarize(&request()).unwrap_err();
    canceller.join().unwrap();
    assert!(matches!(err, LlmError::Interrupted), "{err:?}");
    assert!(start.elapsed() < Duration::from_secs(3), "{:?}", start.elapsed());
    assert_eq!(server.requests().len(), 1);
}

/// The binary's Ctrl-C path end to end: SIGINT during the request ends `compact` with 130
/// and leaves the file as it was.
#[test]
fn sigint_during_the_request_exits_130_and_writes_nothing() {
    let _env = Env::new();
    let server = LlmServer::start(vec![
        Scripted::json(200, openai_body("late", Tokens::default(), "stop")).delay(Duration::from_secs(5)),
    ]);
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.jsonl");
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/real-large.v3.jsonl");
    std::fs::copy(&src, &file).unwrap();
    let before = std::fs::read(&file).unwrap();
    let child = std::process::Command::new(env!("CARGO_BIN_EXE_pi-session"))
        .current_dir(dir.path())
        .args(["-s", file.to_str().unwrap(), "compact", "--keep-recent-tokens", "3000"])
        .args(["--model", "local/m", "--base-url", &server.url()])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::thread::sleep(Duration::from_millis(700));
    std::process::Command::new("kill")
        .args(["-INT", &child.id().to_string()])
        .status()
        .unwrap();
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(std::fs::read(&file).unwrap(), before);
}

// --- Keys -----------------------------------------------------------------------------------

/// The `x-api-key` sent with `auth.json` as given.
fn anthropic_key_with(env: &Env, auth_json: Value) -> Result<Option<String>, LlmError> {
    env.write("auth.json", &auth_json.to_string());
    let server = LlmServer::start(vec![Scripted::json(
        200,
        anthropic_body("S", Tokens::default(), "end_turn"),
    )]);
    run("anthropic/claude-haiku-4-5", &server.url(), &request())?;
    Ok(server.requests()[0].header("x-api-key").map(str::to_string))
}

#[test]
fn auth_json_literal_key_wins_over_the_environment() {
    let env = Env::new();
    env.set("ANTHROPIC_API_KEY", "sk-ant-from-env");
    let key = anthropic_key_with(
        &env,
        json!({"anthropic": {"type": "api_key", "key": "sk-ant-literal-7"}}),
    )
    .unwrap();
    assert_eq!(key.as_deref(), Some("sk-ant-literal-7"));
}

#[test]
fn auth_json_environment_variable_references() {
    let env = Env::new();
    env.set("PIS_TEST_KEY_VAR", "sk-ant-via-var");
    for form in ["$PIS_TEST_KEY_VAR", "${PIS_TEST_KEY_VAR}"] {
        let key = anthropic_key_with(&env, json!({"anthropic": {"type": "api_key", "key": form}})).unwrap();
        assert_eq!(key.as_deref(), Some("sk-ant-via-var"), "{form}");
    }
    // The entry's own env object comes first.
    let key = anthropic_key_with(
        &env,
        json!({"anthropic": {"type": "api_key", "key": "$PIS_TEST_KEY_VAR", "env": {"PIS_TEST_KEY_VAR": "sk-ant-entry-env"}}}),
    )
    .unwrap();
    assert_eq!(key.as_deref(), Some("sk-ant-entry-env"));
    // Pi 1.6 reads a bare name as a literal key (explicit `$NAME` is required).
    let key = anthropic_key_with(
        &env,
        json!({"anthropic": {"type": "api_key", "key": "PIS_TEST_KEY_VAR"}}),
    )
    .unwrap();
    assert_eq!(key.as_deref(), Some("PIS_TEST_KEY_VAR"));
}

#[test]
fn auth_json_command_key() {
    let env = Env::new();
    let key = anthropic_key_with(
        &env,
        json!({"anthropic": {"type": "api_key", "key": "!printf '%s\\n' sk-ant-from-command"}}),
    )
    .unwrap();
    assert_eq!(key.as_deref(), Some("sk-ant-from-command"));
}

#[test]
fn unresolved_auth_json_key_falls_back_to_the_environment() {
    let env = Env::new();
    env.set("ANTHROPIC_API_KEY", "sk-ant-fallback");
    let key = anthropic_key_with(&env, json!({"anthropic": {"type": "api_key", "key": "!exit 1"}})).unwrap();
    assert_eq!(key.as_deref(), Some("sk-ant-fallback"));
}

#[test]
fn oauth_credentials_are_not_supported() {
    let env = Env::new();
    let oauth = json!({"anthropic": {"type": "oauth", "access": "sk-ant-oat-secret", "refresh": "r", "expires": 1}});
    let err = anthropic_key_with(&env, oauth.clone()).unwrap_err();
    match &err {
        LlmError::Config(m) => assert!(m.contains("OAuth") && m.contains("ANTHROPIC_API_KEY"), "{m}"),
        other => panic!("{other:?}"),
    }
    assert_hidden(&err, "sk-ant-oat-secret");
    // With an API key configured as well, that key is used.
    env.set("ANTHROPIC_API_KEY", "sk-ant-api-next-to-oauth");
    assert_eq!(
        anthropic_key_with(&env, oauth).unwrap().as_deref(),
        Some("sk-ant-api-next-to-oauth")
    );
    // OAuth-only providers.
    let err = llm::resolve(Some("openai-codex/gpt-5.5"), None, None, None, None)
        .err()
        .unwrap();
    assert!(matches!(&err, LlmError::Config(m) if m.contains("OAuth")), "{err:?}");
}

#[test]
fn missing_key_is_a_configuration_error() {
    let _env = Env::new();
    let err = llm::resolve(Some("openai/gpt-4.1"), None, None, None, None)
        .err()
        .unwrap();
    match &err {
        LlmError::Config(m) => assert!(
            m.contains("no API key for openai") && m.contains("OPENAI_API_KEY"),
            "{m}"
        ),
        other => panic!("{other:?}"),
    }
    let err = llm::resolve(Some("nowhere/m"), None, None, None, None).err().unwrap();
    assert!(
        matches!(&err, LlmError::Config(m) if m.contains("unknown provider")),
        "{err:?}"
    );
}

#[test]
fn models_json_custom_provider() {
    let env = Env::new();
    env.set("PIS_TEST_LOCAL_KEY", "sk-local-9");
    let server = LlmServer::start(vec![Scripted::json(
        200,
        anthropic_body(
            "Custom.",
            Tokens {
                input: 1_000_000,
                output: 0,
                ..Tokens::default()
            },
            "end_turn",
        ),
    )]);
    env.write(
        "models.json",
        &format!(
            r#"{{
              // a comment, as Pi allows
              "providers": {{
                "localai": {{
                  "baseUrl": "{}",
                  "api": "anthropic-messages",
                  "apiKey": "$PIS_TEST_LOCAL_KEY",
                  "headers": {{"x-team": "blue"}},
                  "models": [{{"id": "m1", "contextWindow": 50000, "maxTokens": 1000,
                              "cost": {{"input": 2, "output": 0, "cacheRead": 0, "cacheWrite": 0}}}}],
                }},
              }},
            }}"#,
            server.url()
        ),
    );
    let (info, s) = llm::resolve(Some("localai/m1"), None, None, None, None).unwrap();
    assert_eq!((info.context_window, info.max_output_tokens), (50_000, 1000));
    let out = s.summarize(&request()).unwrap();
    assert!(close(out.usage.cost.total, 2.0));
    let r = &server.requests()[0];
    assert_eq!(r.path, "/v1/messages");
    assert_eq!(r.header("x-api-key"), Some("sk-local-9"));
    assert_eq!(r.header("x-team"), Some("blue"));
    assert_eq!(r.json()["max_tokens"], 1000);
}

#[test]
fn model_choice_flag_then_settings_then_branch() {
    let env = Env::new();
    env.set("OPENAI_API_KEY", "sk-openai-test-10");
    env.set("ANTHROPIC_API_KEY", "sk-ant-api-test-10");
    env.set("GEMINI_API_KEY", "gm-test-key-10");
    let server = LlmServer::start(vec![]);
    // Point both providers at the test server through models.json.
    env.write(
        "models.json",
        &json!({"providers": {"openai": {"baseUrl": server.url()}, "anthropic": {"baseUrl": server.url()}}})
            .to_string(),
    );
    let dir = env.dir.path();
    let choose = |settings: &Settings, spec: Option<&str>| {
        let req = ResolveRequest {
            model_spec: spec,
            branch_model: Some(("anthropic", "claude-haiku-4-5")),
            ..ResolveRequest::default()
        };
        let (s, source) = llm::resolve_in(dir, settings, &req).unwrap();
        (s.model().spec(), s.model().base_url.clone(), source)
    };
    let none = Settings::default();
    let with_default = Settings::parse(r#"{"defaultProvider": "openai", "defaultModel": "gpt-4.1"}"#).unwrap();
    assert_eq!(
        choose(&none, None),
        (
            "anthropic/claude-haiku-4-5".into(),
            server.url(),
            llm::ModelSource::Branch
        )
    );
    assert_eq!(
        choose(&with_default, None),
        ("openai/gpt-4.1".into(), server.url(), llm::ModelSource::Settings)
    );
    assert_eq!(choose(&with_default, Some("openai/gpt-4o")).2, llm::ModelSource::Flag);
    // A bare id known to one provider.
    assert_eq!(choose(&none, Some("gemini-2.5-pro")).0, "google/gemini-2.5-pro");
    // Debug of a summarizer hides the key.
    let (s, _) = llm::resolve_in(
        dir,
        &none,
        &ResolveRequest {
            model_spec: Some("openai/gpt-4o"),
            ..Default::default()
        },
    )
    .unwrap();
    let shown = format!("{s:?}");
    assert!(
        shown.contains("openai/gpt-4o") && !shown.contains("sk-openai-test-10"),
        "{shown}"
    );
}
