//! Generates a large, realistic Pi session file for benchmarks: a v3 header, then turns of
//! user messages, assistant messages with thinking and tool calls, tool results with big
//! outputs (unicode, escapes, code), model and thinking changes, labels, abandoned branches
//! with branch summaries, and compactions every so often.
//!
//! cargo run --release --example gen_session -- --size 256M --out /tmp/s256.jsonl [--seed N]

use serde_json::{Value, json};
use std::io::{BufWriter, Write};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn id(&mut self) -> String {
        format!("{:08x}", self.next() as u32)
    }
}

fn parse_size(s: &str) -> u64 {
    let (num, mult) = match s.chars().last() {
        Some('K' | 'k') => (&s[..s.len() - 1], 1u64 << 10),
        Some('M' | 'm') => (&s[..s.len() - 1], 1 << 20),
        Some('G' | 'g') => (&s[..s.len() - 1], 1 << 30),
        _ => (s, 1),
    };
    num.parse::<u64>().expect("size") * mult
}

const WORDS: &[&str] = &[
    "parser",
    "token",
    "iterator",
    "the",
    "borrow",
    "checker",
    "lifetime",
    "größe",
    "naïve",
    "日本語",
    "テスト",
    "emoji😀",
    "résumé",
    "span",
    "fn",
    "impl",
    "async",
    "await",
    "\"quoted\"",
    "back\\slash",
    "tab\there",
];

fn text(rng: &mut Rng, words: usize) -> String {
    (0..words)
        .map(|_| WORDS[rng.below(WORDS.len() as u64) as usize])
        .collect::<Vec<_>>()
        .join(" ")
}

fn code(rng: &mut Rng, lines: usize) -> String {
    (0..lines)
        .map(|i| {
            format!(
                "{i:5}  fn item_{}(x: &str) -> Result<(), Error> {{ /* {} */ }}",
                rng.below(1000),
                text(rng, 4)
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mut size = 64u64 << 20;
    let mut out = String::from("session.jsonl");
    let mut seed = 42u64;
    let mut i = 1;
    while i < args.len() {
        match args[i].as_str() {
            "--size" => size = parse_size(&args[i + 1]),
            "--out" => out = args[i + 1].clone(),
            "--seed" => seed = args[i + 1].parse().expect("seed"),
            other => panic!("unknown argument {other}"),
        }
        i += 2;
    }
    let mut rng = Rng(seed | 1);
    let file = std::fs::File::create(&out).expect("create");
    let mut w = BufWriter::with_capacity(1 << 20, file);
    let mut written = 0u64;
    let mut ms: u64 = 1_793_613_600_000;
    let put = |w: &mut BufWriter<std::fs::File>, v: &Value, written: &mut u64| {
        let line = v.to_string();
        w.write_all(line.as_bytes()).unwrap();
        w.write_all(b"\n").unwrap();
        *written += line.len() as u64 + 1;
    };
    let iso = |ms: u64| {
        jiff::Timestamp::from_millisecond(ms as i64)
            .unwrap()
            .strftime("%Y-%m-%dT%H:%M:%S%.3fZ")
            .to_string()
    };
    put(
        &mut w,
        &json!({"type":"session","version":3,"id":"0196a0b0-1111-7222-8333-944455556666","timestamp":iso(ms),"cwd":"/home/user/proj"}),
        &mut written,
    );
    let mut parent: Option<String> = None;
    let mut branch_points: Vec<String> = Vec::new();
    let mut turn = 0u64;
    let mut since_compaction: Vec<String> = Vec::new();
    let entry = |rest: Value,
                 kind: &str,
                 w: &mut BufWriter<std::fs::File>,
                 written: &mut u64,
                 parent: &mut Option<String>,
                 rng: &mut Rng,
                 ms: &mut u64| {
        *ms += 1000 + rng.below(4000);
        let id = rng.id();
        let mut v = json!({"type": kind, "id": id, "parentId": parent, "timestamp": iso(*ms)});
        for (k, x) in rest.as_object().unwrap() {
            v.as_object_mut().unwrap().insert(k.clone(), x.clone());
        }
        put(w, &v, written);
        *parent = Some(id.clone());
        id
    };
    entry(
        json!({"provider":"anthropic","modelId":"claude-sonnet-4-5"}),
        "model_change",
        &mut w,
        &mut written,
        &mut parent,
        &mut rng,
        &mut ms,
    );
    while written < size {
        turn += 1;
        let m = ms;
        let user = entry(
            json!({"message":{"role":"user","content":[{"type":"text","text":format!("Step {turn}: {}", text(&mut rng, 20))}],"timestamp":m}}),
            "message",
            &mut w,
            &mut written,
            &mut parent,
            &mut rng,
            &mut ms,
        );
        since_compaction.push(user.clone());
        // People go back a few messages to ask again, rarely far.
        branch_points.push(user.clone());
        if branch_points.len() > 8 {
            branch_points.remove(0);
        }
        let calls = 1 + rng.below(3);
        for c in 0..calls {
            let call_id = format!("toolu_{turn}_{c}");
            let tool = ["read", "bash", "edit", "write"][rng.below(4) as usize];
            let args = json!({"path": format!("src/mod_{}.rs", rng.below(50)), "command": "cargo test"});
            let m = ms;
            entry(
                json!({"message":{
                "role":"assistant","content":[{"type":"thinking","thinking":text(&mut rng, 30)},{"type":"text","text":text(&mut rng, 15)},
                {"type":"toolCall","id":call_id,"name":tool,"arguments":args}],
                "api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5",
                "usage":{"input":1000 + rng.below(100000),"output":rng.below(2000),"cacheRead":rng.below(50000),"cacheWrite":0,"totalTokens":1000,
                "cost":{"input":0.003,"output":0.0012000000000000001,"cacheRead":0.0,"cacheWrite":0,"total":0.0042}},
                "stopReason":"toolUse","timestamp":m}}),
                "message",
                &mut w,
                &mut written,
                &mut parent,
                &mut rng,
                &mut ms,
            );
            let lines = 20 + rng.below(600) as usize;
            let m = ms;
            entry(
                json!({"message":{
                "role":"toolResult","toolCallId":call_id,"toolName":tool,"content":[{"type":"text","text":code(&mut rng, lines)}],
                "isError":rng.below(20) == 0,"timestamp":m}}),
                "message",
                &mut w,
                &mut written,
                &mut parent,
                &mut rng,
                &mut ms,
            );
        }
        let m = ms;
        let answer = entry(
            json!({"message":{
            "role":"assistant","content":[{"type":"text","text":text(&mut rng, 60)}],"api":"anthropic-messages","provider":"anthropic",
            "model":"claude-sonnet-4-5","usage":{"input":2000,"output":300,"cacheRead":0,"cacheWrite":0,"totalTokens":2300,
            "cost":{"input":0.006,"output":0.0045,"cacheRead":0,"cacheWrite":0,"total":0.0105}},"stopReason":"stop","timestamp":m}}),
            "message",
            &mut w,
            &mut written,
            &mut parent,
            &mut rng,
            &mut ms,
        );
        if rng.below(15) == 0 {
            let target = answer.clone();
            let name = format!("step-{turn}");
            let leaf = parent.clone();
            entry(
                json!({"targetId":target,"label":name}),
                "label",
                &mut w,
                &mut written,
                &mut parent,
                &mut rng,
                &mut ms,
            );
            let _ = leaf;
        }
        if rng.below(10) == 0 {
            entry(
                json!({"thinkingLevel": (["low","medium","high"][rng.below(3) as usize])}),
                "thinking_level_change",
                &mut w,
                &mut written,
                &mut parent,
                &mut rng,
                &mut ms,
            );
        }
        // An abandoned branch now and then: go back to an earlier user message with a summary.
        if rng.below(25) == 0 && !branch_points.is_empty() {
            let from = parent.clone().unwrap();
            let back = branch_points[rng.below(branch_points.len() as u64) as usize].clone();
            parent = Some(back);
            entry(
                json!({
                "fromId": from, "summary": format!("## Goal\n{}", text(&mut rng, 40)),
                "details":{"readFiles":["src/a.rs"],"modifiedFiles":["src/b.rs"]}}),
                "branch_summary",
                &mut w,
                &mut written,
                &mut parent,
                &mut rng,
                &mut ms,
            );
            since_compaction.clear();
        }
        if since_compaction.len() > 12 {
            let keep = since_compaction[since_compaction.len() - 5].clone();
            entry(
                json!({
                "summary": format!("## Goal\n{}\n\n## Progress\n{}", text(&mut rng, 50), text(&mut rng, 80)),
                "firstKeptEntryId": keep, "tokensBefore": 150000 + rng.below(50000),
                "details":{"readFiles":["src/a.rs"],"modifiedFiles":["src/b.rs"]}, "fromHook": false}),
                "compaction",
                &mut w,
                &mut written,
                &mut parent,
                &mut rng,
                &mut ms,
            );
            since_compaction.clear();
        }
    }
    w.flush().unwrap();
    eprintln!("wrote {out}: {written} bytes, {turn} turns");
}
