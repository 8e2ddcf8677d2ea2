//! `pi-session stats`: tokens and cost of every paid call, exact sums on a hand-made session.

use crate::common;

use common::{cmd, corpus_dir, run_ok};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

fn usage(input: u64, output: u64, cache_read: u64, cache_write: u64, cost: Value) -> Value {
    json!({"input": input, "output": output, "cacheRead": cache_read, "cacheWrite": cache_write,
           "totalTokens": input + output + cache_read + cache_write, "cost": cost})
}

/// m1 → a1 → u1 → c1 → a2 → a0 (the main line) and m1 → b1 → m2 (@, the last line).
/// Costs are powers of two so the sums are exact.
fn session(dir: &Path) -> PathBuf {
    let ts = |s: u32| format!("2026-01-01T00:00:{s:02}.000Z");
    let lines = vec![
        json!({"type": "session", "version": 3, "id": "s", "timestamp": ts(0), "cwd": "/p"}),
        json!({"type": "message", "id": "m1", "parentId": null, "timestamp": ts(1),
               "message": {"role": "user", "content": "go", "timestamp": 1}}),
        json!({"type": "message", "id": "a1", "parentId": "m1", "timestamp": ts(2),
               "message": {"role": "assistant", "content": [{"type": "text", "text": "ok"}],
                           "provider": "anthropic", "model": "claude", "stopReason": "stop",
                           "usage": usage(1000, 100, 50, 20, json!({"input": 0.5, "output": 0.25,
                               "cacheRead": 0.125, "cacheWrite": 0.0625, "total": 0.9375}))}}),
        json!({"type": "usage", "id": "u1", "parentId": "a1", "timestamp": ts(3), "kind": "cache_warm",
               "provider": "anthropic", "model": "claude",
               // Cost fields that are missing count as 0.
               "usage": {"input": 300, "output": 0, "totalTokens": 300, "cost": {"input": 0.25, "total": 0.25}}}),
        json!({"type": "compaction", "id": "c1", "parentId": "u1", "timestamp": ts(4), "summary": "sum",
               "firstKeptEntryId": "a1", "tokensBefore": 5000,
               "usage": usage(4000, 400, 0, 0, json!({"input": 1.5, "output": 0.5, "cacheRead": 0,
                   "cacheWrite": 0, "total": 2}))}),
        json!({"type": "message", "id": "a2", "parentId": "c1", "timestamp": ts(5),
               "message": {"role": "assistant", "content": [{"type": "text", "text": "more"}],
                           "provider": "openai", "model": "auto", "responseModel": "gpt-5", "stopReason": "stop",
                           "usage": usage(2000, 200, 0, 0, json!({"input": 1, "output": 0.5, "cacheRead": 0,
                               "cacheWrite": 0, "total": 1.5}))}}),
        // An aborted reply that recorded no usage: not a paid call.
        json!({"type": "message", "id": "a0", "parentId": "a2", "timestamp": ts(6),
               "message": {"role": "assistant", "content": [], "provider": "openai", "model": "auto",
                           "stopReason": "aborted"}}),
        // A branch summary whose entry names its model.
        json!({"type": "branch_summary", "id": "b1", "parentId": "m1", "timestamp": ts(7), "fromId": "a0",
               "summary": "left", "provider": "google", "model": "gemini",
               "usage": usage(500, 50, 0, 0, json!({"input": 0.125, "output": 0.125, "cacheRead": 0,
                   "cacheWrite": 0, "total": 0.25}))}),
        json!({"type": "message", "id": "m2", "parentId": "b1", "timestamp": ts(8),
               "message": {"role": "user", "content": "again", "timestamp": 2}}),
    ];
    let path = dir.join("s.jsonl");
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, text).unwrap();
    path
}

fn stats(file: &Path, args: &[&str]) -> Value {
    let mut a = vec!["stats", "--json"];
    a.extend_from_slice(args);
    let out = run_ok(file, &a);
    assert_eq!(out.lines().count(), 1, "one JSON object");
    serde_json::from_str(&out).unwrap()
}

fn totals(input: u64, output: u64, cr: u64, cw: u64, cost: [f64; 5]) -> Value {
    json!({"input": input, "output": output, "cacheRead": cr, "cacheWrite": cw,
           "totalTokens": input + output + cr + cw,
           "cost": {"input": cost[0], "output": cost[1], "cacheRead": cost[2], "cacheWrite": cost[3], "total": cost[4]}})
}

fn with_model(provider: Value, model: &str, t: Value) -> Value {
    let mut o = serde_json::Map::new();
    o.insert("provider".into(), provider);
    o.insert("model".into(), model.into());
    o.extend(t.as_object().unwrap().clone());
    Value::Object(o)
}

const ZERO: [f64; 5] = [0.0; 5];

#[test]
fn whole_file_sums_every_paid_call() {
    let tmp = tempfile::tempdir().unwrap();
    let s = stats(&session(tmp.path()), &[]);
    let u1 = totals(300, 0, 0, 0, [0.25, 0.0, 0.0, 0.0, 0.25]);
    let c1 = totals(4000, 400, 0, 0, [1.5, 0.5, 0.0, 0.0, 2.0]);
    let a2 = totals(2000, 200, 0, 0, [1.0, 0.5, 0.0, 0.0, 1.5]);
    let b1 = totals(500, 50, 0, 0, [0.125, 0.125, 0.0, 0.0, 0.25]);
    let expected = json!({
        "userMessages": 2, "assistantMessages": 3, "toolCalls": 0, "toolResults": 0,
        "totalMessages": 5, "compactions": 1, "branchSummaries": 1, "byTool": [],
        // The model "claude" is not in the model table: no window to measure against.
        "contextUsage": null,
        "total": totals(7800, 750, 50, 20, [3.375, 1.375, 0.125, 0.0625, 4.9375]),
        "byModel": [
            with_model(Value::Null, "(summaries)", c1.clone()),
            with_model(json!("openai"), "gpt-5", a2),
            with_model(json!("anthropic"), "claude", totals(1300, 100, 50, 20, [0.75, 0.25, 0.125, 0.0625, 1.1875])),
            with_model(json!("google"), "gemini", b1.clone()),
        ],
        "bySource": {
            "assistant": totals(3000, 300, 50, 20, [1.5, 0.75, 0.125, 0.0625, 2.4375]),
            "usage": u1,
            "compaction": c1,
            "branchSummary": b1,
            "toolResult": totals(0, 0, 0, 0, [0.0; 5]),
        },
    });
    assert!(common::json_eq(&s, &expected), "got {s:#}\nwant {expected:#}");
    // Key order is part of the format.
    let keys: Vec<&str> = s.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "userMessages",
            "assistantMessages",
            "toolCalls",
            "toolResults",
            "totalMessages",
            "compactions",
            "branchSummaries",
            "byTool",
            "contextUsage",
            "total",
            "byModel",
            "bySource"
        ]
    );
    let keys: Vec<&str> = s["bySource"].as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        ["assistant", "usage", "compaction", "branchSummary", "toolResult"]
    );
}

#[test]
fn branch_counts_only_the_branch_of_rev() {
    let tmp = tempfile::tempdir().unwrap();
    let file = session(tmp.path());
    let b1 = totals(500, 50, 0, 0, [0.125, 0.125, 0.0, 0.0, 0.25]);
    // @ is m2: m1 → b1 → m2.
    let s = stats(&file, &["--branch"]);
    assert!(common::json_eq(&s["total"], &b1), "{s:#}");
    assert!(common::json_eq(&s["bySource"]["branchSummary"], &b1));
    assert!(common::json_eq(&s["bySource"]["assistant"], &totals(0, 0, 0, 0, ZERO)));
    assert_eq!(s["byModel"].as_array().unwrap().len(), 1);
    assert_eq!(s["byModel"][0]["model"], "gemini");
    assert_eq!(
        (&s["userMessages"], &s["totalMessages"], &s["assistantMessages"]),
        (&json!(2), &json!(2), &json!(0))
    );
    assert_eq!((&s["compactions"], &s["branchSummaries"]), (&json!(0), &json!(1)));

    // REV names the branch (and implies --branch): m1 → a1 → u1 → c1 → a2.
    for args in [&["a2", "--branch"][..], &["a2"][..]] {
        let s = stats(&file, args);
        assert!(
            common::json_eq(
                &s["total"],
                &totals(7300, 700, 50, 20, [3.25, 1.25, 0.125, 0.0625, 4.6875])
            ),
            "{args:?}: {s:#}"
        );
        assert!(common::json_eq(
            &s["bySource"]["branchSummary"],
            &totals(0, 0, 0, 0, ZERO)
        ));
    }
    // Before any paid call.
    let s = stats(&file, &["m1"]);
    assert!(common::json_eq(&s["total"], &totals(0, 0, 0, 0, ZERO)));
    assert_eq!(s["byModel"], json!([]));
}

#[test]
fn human_table() {
    let tmp = tempfile::tempdir().unwrap();
    let out = run_ok(&session(tmp.path()), &["stats"]);
    let line = |name: &str| {
        out.lines()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap_or_else(|| panic!("no {name} row in\n{out}"))
            .to_owned()
    };
    assert!(out.lines().next().unwrap().contains("cache write"));
    let total = line("total");
    assert!(
        total.contains("7,800") && total.contains("8,620") && total.ends_with("$4.9375"),
        "{total}"
    );
    assert!(line("openai/gpt-5").ends_with("$1.5000"));
    assert!(line("(summaries)").ends_with("$2.0000"));
    assert!(line("branchSummary").contains("550"));
    assert!(out.contains("by model") && out.contains("by source"));
    assert!(
        line("messages").contains("5 (2 user, 3 assistant, 0 tool results)"),
        "{out}"
    );
    assert!(line("tool calls").ends_with(" 0"), "{out}");
    assert!(line("summaries").contains("1 compaction, 1 branch summary"), "{out}");
}

#[test]
fn corpus_session() {
    // pi-built: 6 assistant replies at $0.0048, a cache-warm usage entry, a compaction and a
    // branch summary with usage.
    let file = corpus_dir().join("pi-built.v3.jsonl");
    let s = stats(&file, &[]);
    assert_eq!(s["total"]["input"], 117000);
    assert_eq!(s["bySource"]["usage"]["input"], 50000);
    assert_eq!(s["bySource"]["branchSummary"]["totalTokens"], 3200);
    assert_eq!(s["bySource"]["compaction"]["input"], 40000);
    let missing = cmd().args(["-s", "/nonexistent/x.jsonl", "stats"]).output().unwrap();
    assert_eq!(missing.status.code(), Some(1));
}

#[test]
fn the_table_rounds_javascript_sums_and_the_json_keeps_them() {
    let dir = tempfile::tempdir().unwrap();
    let ts = |s: u32| format!("2026-01-01T00:00:{s:02}.000Z");
    // Costs 0.1 + 0.2 + 0.046 sum to 0.34600000000000003 in JavaScript; fractional token
    // counts (a file not written by Pi) to 0.30000000000000004.
    let reply = |id: &str, parent: Option<&str>, s: u32, tokens: f64, cost: f64| {
        json!({"type": "message", "id": id, "parentId": parent, "timestamp": ts(s),
               "message": {"role": "assistant", "content": [{"type": "text", "text": "ok"}],
                           "provider": "p", "model": "m", "stopReason": "stop",
                           "usage": {"input": tokens, "output": 2, "cacheRead": 0, "cacheWrite": 0,
                                     "totalTokens": 2, "cost": {"total": cost}}}})
    };
    let lines = [
        json!({"type": "session", "version": 3, "id": "s", "timestamp": ts(0), "cwd": "/p"}),
        reply("a1", None, 1, 0.1, 0.1),
        reply("a2", Some("a1"), 2, 0.2, 0.2),
        reply("a3", Some("a2"), 3, 0.0, 0.046),
    ];
    let path = dir.path().join("sums.jsonl");
    std::fs::write(&path, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();

    let v = stats(&path, &[]);
    assert_eq!(v["total"]["cost"]["total"].to_string(), "0.34600000000000003");
    assert_eq!(v["total"]["input"].to_string(), "0.30000000000000004");

    let table = run_ok(&path, &["stats"]);
    let total = table.lines().find(|l| l.starts_with("total")).unwrap();
    let cells: Vec<&str> = total.split_whitespace().collect();
    assert_eq!(cells, ["total", "0.3", "6", "0", "0", "6", "$0.3460"], "{table}");
    assert!(!table.contains("0000000"), "{table}");
}

/// Pi's `/session` counts the usage a tool result records (a tool that called a model);
/// `stats` counts it too, as its own source (`stats-toolresult-usage.jsonl`: 1,100 input
/// tokens, not 100).
#[test]
fn tool_result_usage_counts_as_its_own_source() {
    let s = stats(&common::fixture("outside-2/stats-toolresult-usage.jsonl"), &[]);
    assert_eq!(s["total"]["input"], 1100);
    assert_eq!(s["total"]["totalTokens"], 1210);
    assert_eq!(s["bySource"]["toolResult"]["input"], 1000);
    assert_eq!(s["bySource"]["assistant"]["input"], 100);
}

/// Older Pi versions wrote no `totalTokens`: the total is the sum of the parts, never less
/// than them.
#[test]
fn a_missing_total_is_the_sum_of_the_parts() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("old.jsonl");
    std::fs::write(
        &file,
        concat!(
            r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}"#, "\n",
            r#"{"type":"message","id":"a","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"assistant","content":[],"provider":"p","model":"m","usage":{"input":10,"output":5,"cacheRead":43000000,"cacheWrite":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}}}"#, "\n",
        ),
    )
    .unwrap();
    let s = stats(&file, &[]);
    assert_eq!(s["total"]["totalTokens"], 43000017);
}

/// Pi's rules: every message entry counts; tool calls are the toolCall blocks of assistant
/// messages (with an id or not), on the whole file or only the branch.
#[test]
fn counts_messages_and_tool_calls_as_pi_does() {
    let tmp = tempfile::tempdir().unwrap();
    let ts = "2026-01-01T00:00:00.000Z";
    let lines = [
        json!({"type": "session", "version": 3, "id": "s", "timestamp": ts, "cwd": "/p"}),
        json!({"type": "message", "id": "u", "parentId": null, "timestamp": ts,
               "message": {"role": "user", "content": "go", "timestamp": 1}}),
        json!({"type": "message", "id": "a", "parentId": "u", "timestamp": ts,
               "message": {"role": "assistant", "content": [
                   {"type": "text", "text": "the toolCall"},
                   {"type": "toolCall", "id": "c1", "name": "read", "arguments": {}},
                   {"type": "toolCall", "name": "bash", "arguments": {}}]}}),
        json!({"type": "message", "id": "r", "parentId": "a", "timestamp": ts,
               "message": {"role": "toolResult", "toolCallId": "c1", "toolName": "read",
                           "content": [], "isError": false}}),
        json!({"type": "message", "id": "x", "parentId": "u", "timestamp": ts,
               "message": {"role": "bashExecution", "command": "ls", "output": ""}}),
    ];
    let path = tmp.path().join("s.jsonl");
    std::fs::write(&path, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    let s = stats(&path, &[]);
    let got = |s: &Value| {
        [
            "userMessages",
            "assistantMessages",
            "toolCalls",
            "toolResults",
            "totalMessages",
        ]
        .map(|k| s[k].as_u64().unwrap())
    };
    assert_eq!(got(&s), [1, 1, 2, 1, 4]);
    assert_eq!(
        s["byTool"],
        json!([{"name": "bash", "calls": 1, "results": 0, "failed": 0},
               {"name": "read", "calls": 1, "results": 1, "failed": 0}])
    );
    // @ is x: u → x.
    assert_eq!(got(&stats(&path, &["--branch"])), [1, 0, 0, 0, 2]);
    let out = run_ok(&path, &["stats"]);
    assert!(out.contains("  read  1 call, 1 result, 0 failed"), "{out}");
}

/// The context at @ (or REV) against the model's window, as Pi's footer shows it; unknown
/// after a compaction no reply followed.
#[test]
fn context_usage_against_the_model_window() {
    let tmp = tempfile::tempdir().unwrap();
    let ts = "2026-01-01T00:00:00.000Z";
    let lines = [
        json!({"type": "session", "version": 3, "id": "s", "timestamp": ts, "cwd": "/p"}),
        json!({"type": "message", "id": "u", "parentId": null, "timestamp": ts,
               "message": {"role": "user", "content": "go", "timestamp": 1}}),
        json!({"type": "message", "id": "a", "parentId": "u", "timestamp": ts,
               "message": {"role": "assistant", "content": [{"type": "text", "text": "ok"}],
                           "provider": "anthropic", "model": "claude-sonnet-4-5", "stopReason": "stop",
                           "usage": usage(1000, 0, 0, 0, json!({"total": 0}))}}),
        json!({"type": "compaction", "id": "c", "parentId": "a", "timestamp": ts, "summary": "s",
               "firstKeptEntryId": "a", "tokensBefore": 1000}),
    ];
    let path = tmp.path().join("s.jsonl");
    std::fs::write(&path, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    assert_eq!(
        stats(&path, &[])["contextUsage"],
        json!({"tokens": null, "contextWindow": 200000, "percent": null})
    );
    assert_eq!(
        stats(&path, &["a"])["contextUsage"],
        json!({"tokens": 1000, "contextWindow": 200000, "percent": 0.5})
    );
    let out = run_ok(&path, &["stats", "a"]);
    assert!(out.contains("context     1,000 of 200,000 tokens, 0.5%"), "{out}");
}
