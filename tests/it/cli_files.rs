//! `pi-session files`: the files a branch read, edited and wrote, by Pi's compaction rule.

use crate::common;

use common::{cmd, example, ndjson, run_ok};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

#[test]
fn the_side_branch_at_the_leaf_touched_no_file() {
    // @ is an answer on a side branch right after the first user message.
    assert_eq!(run_ok(&example(), &["files"]), "");
}

#[test]
fn a_branch_lists_its_last_touch() {
    let ex = example();
    assert_eq!(run_ok(&ex, &["files", "green"]), "written  d4664141  src/parser.rs\n");
    // The first attempt, on its own branch: the edit, after the read.
    assert_eq!(
        run_ok(&ex, &["files", "42d8d20f"]),
        "edited   42d8d20f  src/parser.rs\n"
    );
    assert_eq!(
        run_ok(&ex, &["files", "7affd800"]),
        "read     7affd800  src/parser.rs\n"
    );
}

#[test]
fn all_and_json_take_the_compaction_details() {
    let ex = example();
    let records = ndjson(&run_ok(&ex, &["files", "--all", "--json"]));
    assert_eq!(
        records,
        vec![json!({"path": "src/parser.rs", "op": "edited", "entryId": "5f7822f3", "modified": true})]
    );
}

#[test]
fn rev_and_all_conflict() {
    cmd()
        .arg("-s")
        .arg(example())
        .args(["files", "green", "--all"])
        .assert()
        .code(2);
}

fn session(dir: &Path) -> PathBuf {
    let ts = |s: u32| format!("2026-01-01T00:00:{s:02}.000Z");
    let call = |name: &str, args: Value| json!({"type": "toolCall", "id": "c", "name": name, "arguments": args});
    let assistant = |id: &str, parent: &str, s: u32, calls: Vec<Value>| {
        json!({"type": "message", "id": id, "parentId": parent, "timestamp": ts(s),
               "message": {"role": "assistant", "content": calls, "provider": "p", "model": "m",
                           "stopReason": "toolUse"}})
    };
    let lines = [
        json!({"type": "session", "version": 3, "id": "s", "timestamp": ts(0), "cwd": "/p"}),
        json!({"type": "message", "id": "u1", "parentId": null, "timestamp": ts(1),
               "message": {"role": "user", "content": "go", "timestamp": 1}}),
        assistant(
            "a1",
            "u1",
            2,
            vec![
                call("write", json!({"path": "b.rs", "content": "x"})),
                call("bash", json!({"command": "cat c.rs > d.rs"})),
            ],
        ),
        // Read after it was written: read last, but modified.
        assistant(
            "a2",
            "a1",
            3,
            vec![
                call("read", json!({"path": "b.rs"})),
                call("read", json!({"path": "a\u{1b}[31m.rs"})),
            ],
        ),
        // A summary a hook wrote: its details are not Pi's file lists.
        json!({"type": "branch_summary", "id": "h1", "parentId": "a2", "timestamp": ts(4), "fromId": "a2",
               "summary": "s", "fromHook": true, "details": {"readFiles": ["hook.rs"]}}),
        json!({"type": "message", "id": "t1", "parentId": "h1", "timestamp": ts(5),
               "message": {"role": "toolResult", "toolCallId": "c", "toolName": "x", "content": [],
                           "isError": false, "timestamp": 5,
                           "nestedCalls": {"calls": [{"name": "edit", "arguments": {"path": "n.rs"}}]}}}),
    ];
    let path = dir.join("s.jsonl");
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn pi_rule_edge_cases() {
    let dir = tempfile::tempdir().unwrap();
    let file = session(dir.path());
    let records = ndjson(&run_ok(&file, &["files", "--json"]));
    let got: Vec<(&str, &str, &str, bool)> = records
        .iter()
        .map(|r| {
            (
                r["path"].as_str().unwrap(),
                r["op"].as_str().unwrap(),
                r["entryId"].as_str().unwrap(),
                r["modified"].as_bool().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        got,
        vec![
            ("a\u{1b}[31m.rs", "read", "a2", false),
            ("b.rs", "read", "a2", true),
            ("n.rs", "edited", "t1", true),
        ]
    );
    // The escape byte never reaches the terminal.
    let human = run_ok(&file, &["files"]);
    assert!(!human.contains('\u{1b}'), "{human:?}");
    assert!(human.contains("b.rs"));
}
