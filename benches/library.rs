//! Library benchmarks (divan): loading, the skim of one line, the context and the tree, on
//! a synthetic session built in memory. Whole-command figures beside jq, Python, Pi and
//! `wc -l` come from `bench/bench.sh` (see BENCHMARKS.md).
//!
//! cargo bench --bench library

use pi_session::session::Session;
use pi_session::session::context::build_context;
use pi_session::session::skim::read_line;
use pi_session::session::tree::Tree;
use std::path::PathBuf;

fn main() {
    divan::main();
}

/// A linear session of `turns` turns, each a user message, an assistant message with a tool
/// call, and a tool result of `output` bytes.
fn session_bytes(turns: usize, output: usize) -> Vec<u8> {
    let mut s = String::from(
        r#"{"type":"session","version":3,"id":"bench","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp"}"#,
    );
    s.push('\n');
    let big = "fn parse(x: &str) -> Result<(), Error> { /* ünïcödé \"q\" \\ */ }\n".repeat(output / 64 + 1);
    let big = serde_json::to_string(&big).unwrap();
    let mut parent = "null".to_owned();
    for t in 0..turns {
        let (u, a, r) = (
            format!("{:08x}", 3 * t),
            format!("{:08x}", 3 * t + 1),
            format!("{:08x}", 3 * t + 2),
        );
        s.push_str(&format!(
            r#"{{"type":"message","id":"{u}","parentId":{parent},"timestamp":"2026-01-01T00:00:00.000Z","message":{{"role":"user","content":[{{"type":"text","text":"step {t}"}}],"timestamp":1}}}}"#
        ));
        s.push('\n');
        s.push_str(&format!(
            r#"{{"type":"message","id":"{a}","parentId":"{u}","timestamp":"2026-01-01T00:00:01.000Z","message":{{"role":"assistant","content":[{{"type":"text","text":"reading"}},{{"type":"toolCall","id":"c{t}","name":"read","arguments":{{"path":"src/a.rs"}}}}],"provider":"anthropic","model":"m","usage":{{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2}},"stopReason":"toolUse","timestamp":2}}}}"#
        ));
        s.push('\n');
        s.push_str(&format!(
            r#"{{"type":"message","id":"{r}","parentId":"{a}","timestamp":"2026-01-01T00:00:02.000Z","message":{{"role":"toolResult","toolCallId":"c{t}","toolName":"read","content":[{{"type":"text","text":{big}}}],"isError":false,"timestamp":3}}}}"#
        ));
        s.push('\n');
        parent = format!("\"{r}\"");
    }
    s.into_bytes()
}

#[divan::bench(args = [1_000, 10_000])]
fn load(bencher: divan::Bencher, turns: usize) {
    let data = session_bytes(turns, 2_000);
    bencher
        .counter(divan::counter::BytesCount::new(data.len()))
        .with_inputs(|| data.clone())
        .bench_values(|d| Session::from_bytes(PathBuf::from("bench.jsonl"), d).unwrap());
}

#[divan::bench]
fn skim_one_large_line(bencher: divan::Bencher) {
    let data = session_bytes(1, 1 << 20);
    let line = data.split(|&b| b == b'\n').nth(3).unwrap().to_vec();
    bencher
        .counter(divan::counter::BytesCount::new(line.len()))
        .bench(|| read_line(divan::black_box(&line)));
}

#[divan::bench(args = [1_000, 10_000])]
fn context_at_leaf(bencher: divan::Bencher, turns: usize) {
    let s = Session::from_bytes(PathBuf::from("bench.jsonl"), session_bytes(turns, 200)).unwrap();
    bencher.bench(|| build_context(&s, s.leaf()).messages(&s).count());
}

#[divan::bench(args = [1_000, 10_000])]
fn tree_rows(bencher: divan::Bencher, turns: usize) {
    let s = Session::from_bytes(PathBuf::from("bench.jsonl"), session_bytes(turns, 200)).unwrap();
    bencher.bench(|| Tree::build(&s).rows(|_| true).len());
}
