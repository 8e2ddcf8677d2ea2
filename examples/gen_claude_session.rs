//! Generates a large Claude Code session file (the shape `~/.claude/projects/*/*.jsonl`
//! lines have), for the `import --from claude` benchmark: user prompts; assistant replies
//! split over several lines that share one `message.id` (thinking, text, a tool call), each
//! repeating its usage; tool results as user lines with the result repeated in
//! `toolUseResult`, a few KB to a few hundred KB; now and then a rewind (a prompt whose parent
//! is an earlier reply), a subagent's sidechain, and a compaction boundary with its summary.
//! Every text is made up.
//!
//! cargo run --release --example gen_claude_session -- --size 100M --out /tmp/claude.jsonl [--seed N]

use serde_json::{Value, json};
use std::io::{BufWriter, Write};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn uuid(&mut self) -> String {
        let (a, b) = (self.next(), self.next());
        format!(
            "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
            a >> 32,
            (a >> 16) & 0xffff,
            a & 0xfff,
            b >> 52,
            b & 0xffff_ffff_ffff
        )
    }
}

const WORDS: &[&str] = &[
    "parser", "token", "span", "error", "test", "module", "function", "return", "value", "config", "build", "cache",
    "index", "file", "line", "branch", "merge", "fix", "refactor", "the", "a", "of", "to", "and",
];

/// `min` words and up to `spread` more.
fn words(rng: &mut Rng, min: u64, spread: u64) -> String {
    let n = min + rng.below(spread + 1);
    (0..n)
        .map(|_| WORDS[rng.below(WORDS.len() as u64) as usize])
        .collect::<Vec<_>>()
        .join(" ")
}

/// Tool output: lines of made-up code and log.
fn output(rng: &mut Rng, bytes: u64) -> String {
    let mut s = String::new();
    let mut n = 0;
    while (s.len() as u64) < bytes {
        n += 1;
        s.push_str(&format!(
            "{n:>5}\tfn {}_{}() -> Result<(), Error> {{ /* {} */ }}\n",
            words(rng, 1, 0),
            n,
            words(rng, 6, 0)
        ));
    }
    s
}

struct Writer<W: Write> {
    out: W,
    written: u64,
    session: String,
    cwd: String,
    ms: i64,
}

impl<W: Write> Writer<W> {
    fn line(&mut self, mut v: Value, parent: Option<&str>, uuid: &str, sidechain: bool) {
        self.ms += 1500;
        let ts = jiff::Timestamp::from_millisecond(self.ms)
            .unwrap()
            .strftime("%Y-%m-%dT%H:%M:%S%.3fZ")
            .to_string();
        let o = v.as_object_mut().unwrap();
        o.insert("parentUuid".into(), parent.map_or(Value::Null, Value::from));
        o.insert("isSidechain".into(), sidechain.into());
        o.insert("userType".into(), "external".into());
        o.insert("cwd".into(), self.cwd.clone().into());
        o.insert("sessionId".into(), self.session.clone().into());
        o.insert("version".into(), "2.0.14".into());
        o.insert("gitBranch".into(), "main".into());
        o.insert("uuid".into(), uuid.into());
        o.insert("timestamp".into(), ts.into());
        let text = v.to_string();
        self.out.write_all(text.as_bytes()).unwrap();
        self.out.write_all(b"\n").unwrap();
        self.written += text.len() as u64 + 1;
    }
}

fn size_arg(s: &str) -> u64 {
    let (n, mult) = match s.chars().last() {
        Some('K') => (&s[..s.len() - 1], 1 << 10),
        Some('M') => (&s[..s.len() - 1], 1 << 20),
        Some('G') => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    n.parse::<u64>().expect("a size such as 100M") * mult
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let get = |name: &str| args.iter().position(|a| a == name).map(|i| args[i + 1].clone());
    let size = size_arg(&get("--size").unwrap_or_else(|| "10M".into()));
    let out = get("--out").expect("--out FILE");
    let mut rng = Rng(get("--seed").map_or(0x5eed_c1a0, |s| s.parse().unwrap()));
    let session = rng.uuid();
    let file = std::fs::File::create(&out).unwrap();
    let mut w = Writer {
        out: BufWriter::new(file),
        written: 0,
        session,
        cwd: "/home/dev/src/parser".into(),
        ms: 1_793_613_600_000,
    };
    let model = "claude-sonnet-4-5-20250929";
    let mut last: Option<String> = None;
    let mut replies: Vec<String> = Vec::new();
    let mut turn = 0u64;
    while w.written < size {
        turn += 1;
        // A prompt; one in forty rewinds to an earlier reply.
        let parent = if turn.is_multiple_of(40) && replies.len() > 4 {
            Some(replies[rng.below(replies.len() as u64) as usize].clone())
        } else {
            last.clone()
        };
        let prompt = rng.uuid();
        let text = words(&mut rng, 10, 60);
        w.line(
            json!({"type": "user", "message": {"role": "user", "content": text}}),
            parent.as_deref(),
            &prompt,
            false,
        );
        last = Some(prompt);
        if turn.is_multiple_of(300) {
            let boundary = rng.uuid();
            w.line(
                json!({"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted", "isMeta": false,
                       "level": "info", "compactMetadata": {"trigger": "auto", "preTokens": 160_000}}),
                last.as_deref(),
                &boundary,
                false,
            );
            let summary = rng.uuid();
            let body = format!(
                "This session is being continued from a previous conversation. Summary: {}",
                words(&mut rng, 400, 0)
            );
            w.line(
                json!({"type": "user", "isCompactSummary": true, "message": {"role": "user", "content": body}}),
                Some(&boundary),
                &summary,
                false,
            );
            last = Some(summary);
        }
        for step in 0..1 + rng.below(4) {
            let id = format!("msg_{:024x}", rng.next() as u128 * 31 + step as u128);
            let usage = json!({"input_tokens": 4 + rng.below(20), "cache_creation_input_tokens": rng.below(4000),
                               "cache_read_input_tokens": 20_000 + rng.below(100_000), "output_tokens": 50 + rng.below(900),
                               "service_tier": "standard"});
            let call = format!("toolu_01{:022x}", rng.next() as u128);
            let tool = ["Bash", "Read", "Edit", "Grep"][rng.below(4) as usize];
            let blocks = [
                json!({"type": "thinking", "thinking": words(&mut rng, 30, 120), "signature": format!("Eu{}", "Q".repeat(200))}),
                json!({"type": "text", "text": words(&mut rng, 20, 80)}),
                json!({"type": "tool_use", "id": call, "name": tool,
                       "input": {"command": format!("cargo test {}", words(&mut rng, 2, 0)), "description": words(&mut rng, 4, 0)}}),
            ];
            for (k, block) in blocks.into_iter().enumerate() {
                let uuid = rng.uuid();
                let stop = if k == 2 { json!("tool_use") } else { Value::Null };
                w.line(
                    json!({"type": "assistant", "requestId": format!("req_{:020x}", rng.next()),
                           "message": {"id": id, "type": "message", "role": "assistant", "model": model, "content": [block],
                                       "stop_reason": stop, "stop_sequence": null, "usage": usage}}),
                    last.as_deref(),
                    &uuid,
                    false,
                );
                last = Some(uuid);
            }
            // A subagent now and then: its lines are a sidechain off the call.
            if rng.below(25) == 0 {
                let mut side: Option<String> = None;
                for _ in 0..6 {
                    let uuid = rng.uuid();
                    let role = if side.is_none() { "user" } else { "assistant" };
                    let msg = if role == "user" {
                        json!({"role": "user", "content": words(&mut rng, 30, 0)})
                    } else {
                        json!({"id": format!("msg_{:024x}", rng.next()), "type": "message", "role": "assistant", "model": "claude-haiku-4-5-20251001",
                               "content": [{"type": "text", "text": words(&mut rng, 40, 0)}], "stop_reason": "end_turn", "usage": {"input_tokens": 10, "output_tokens": 40}})
                    };
                    w.line(
                        json!({"type": role, "message": msg, "agentId": "a1b2c3d4"}),
                        side.as_deref(),
                        &uuid,
                        true,
                    );
                    side = Some(uuid);
                }
            }
            let out_len = 500 + rng.below(8_000) + if rng.below(50) == 0 { 200_000 } else { 0 };
            let result = output(&mut rng, out_len);
            let uuid = rng.uuid();
            w.line(
                json!({"type": "user", "message": {"role": "user", "content": [{"tool_use_id": call, "type": "tool_result", "content": result, "is_error": rng.below(15) == 0}]},
                       "toolUseResult": {"stdout": result, "stderr": "", "interrupted": false, "isImage": false}}),
                last.as_deref(),
                &uuid,
                false,
            );
            last = Some(uuid);
        }
        let uuid = rng.uuid();
        let id = format!("msg_{:024x}", rng.next());
        w.line(
            json!({"type": "assistant", "message": {"id": id, "type": "message", "role": "assistant", "model": model,
                   "content": [{"type": "text", "text": words(&mut rng, 40, 200)}], "stop_reason": "end_turn", "stop_sequence": null,
                   "usage": {"input_tokens": 6, "cache_creation_input_tokens": 300, "cache_read_input_tokens": 90_000, "output_tokens": 400}}}),
            last.as_deref(),
            &uuid,
            false,
        );
        replies.push(uuid.clone());
        last = Some(uuid);
    }
    w.out.flush().unwrap();
}
