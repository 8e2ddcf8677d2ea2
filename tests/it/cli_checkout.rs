//! `pi-session checkout`: moving @ by appending a checkout record (a custom entry that never
//! reaches the model) as a child of the target.

use crate::common;

use common::{Run, corpus_files, example, fixture, ndjson, rev_parse, run, run_ok, temp_copy, unchanged};
use serde_json::{Value, json};
use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::Path;

/// Runs a checkout that must append one line; returns (the new line, its parsed value, the run).
fn checkout(file: &Path, args: &[&str]) -> (String, Value, Run) {
    let before = fs::read(file).unwrap();
    let mut full = vec!["checkout"];
    full.extend_from_slice(args);
    let r = run(file, &full);
    assert_eq!(r.code, 0, "{full:?}: {}", r.stderr);
    let after = fs::read(file).unwrap();
    assert_eq!(&after[..before.len()], &before[..], "old bytes changed");
    let rest = std::str::from_utf8(&after[before.len()..]).unwrap();
    assert!(rest.ends_with('\n') && rest.matches('\n').count() == 1, "{rest:?}");
    let line = rest.trim_end().to_owned();
    let v: Value = serde_json::from_str(&line).unwrap();
    (line, v, r)
}

fn leaf(file: &Path) -> String {
    run_ok(file, &["rev-parse", "--leaf"]).trim().to_owned()
}

/// The exact record line checkout must write.
fn record_line(id: &str, parent: Option<&str>, timestamp: &str, from: Option<&str>) -> String {
    format!(
        r#"{{"type":"custom","id":"{id}","parentId":{},"timestamp":"{timestamp}","customType":"pi-session.checkout","data":{{"from":{}}}}}"#,
        json!(parent),
        json!(from)
    )
}

fn assert_record(line: &str, v: &Value, parent: Option<&str>, from: Option<&str>) {
    let id = v["id"].as_str().unwrap();
    assert_eq!(id.len(), 8);
    assert!(
        id.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()),
        "{id}"
    );
    assert_eq!(line, record_line(id, parent, v["timestamp"].as_str().unwrap(), from));
}

#[test]
fn checkout_appends_a_record_under_rev_and_moves_at() {
    let (_dir, file) = temp_copy(&example());
    assert_eq!(rev_parse(&file, "@"), "b8731d22");
    let context_at_rev = run_ok(&file, &["context", "--json", "d2e5793f"]);
    assert_ne!(context_at_rev, run_ok(&file, &["context", "--json"]));

    let (line, v, r) = checkout(&file, &["d2e5793f"]);
    assert_record(&line, &v, Some("d2e5793f"), Some("b8731d22"));
    let record = v["id"].as_str().unwrap();
    assert_eq!(rev_parse(&file, "@"), "d2e5793f");
    assert_eq!(leaf(&file), record);
    // What Pi sends next is exactly the context at REV: the record adds nothing.
    assert_eq!(run_ok(&file, &["context", "--json"]), context_at_rev);
    assert_eq!(run_ok(&file, &["context", "--json", record]), context_at_rev);
    // stdout names the new @; stderr counts what was left behind.
    assert_eq!(r.stdout.lines().count(), 1, "{}", r.stdout);
    assert!(r.stdout.starts_with("@ is now d2e5793f"), "{}", r.stdout);
    assert!(r.stdout.contains("Done; all tests pass."), "{}", r.stdout);
    assert!(
        r.stderr
            .contains("left 2 entries behind on the branch ending at b8731d22"),
        "{}",
        r.stderr
    );
}

#[test]
fn rev_is_resolved_to_a_full_id() {
    for (rev, id) in [
        ("green", "d2e5793f"),
        ("label:start", "80fbf1f2"),
        ("d2e5", "d2e5793f"),
        ("d679de06^", "b7b227e2"),
        ("d2e5793f~3", "d679de06"),
        ("root", "cb75110e"),
        (":/explain the tokenizer", "80fbf1f2"),
    ] {
        let (_dir, file) = temp_copy(&example());
        let (line, v, _) = checkout(&file, &[rev]);
        assert_record(&line, &v, Some(id), Some("b8731d22"));
        assert_eq!(rev_parse(&file, "@"), id, "{rev}");
    }
}

#[test]
fn json_output_and_abandoned_counts() {
    let (_dir, file) = temp_copy(&example());
    // b8731d22's branch: cb75110e 9e4e00c3 80fbf1f2 6fe7bd1a b8731d22.
    let steps: &[(&str, &str, &str, u64)] = &[
        ("d2e5793f", "d2e5793f", "b8731d22", 2),
        // d2e5793f's branch has 11 entries; cb75110e and 9e4e00c3 stay.
        ("9e4e00c3", "9e4e00c3", "d2e5793f", 9),
        // Moving down the same branch abandons nothing.
        ("80fbf1f2", "80fbf1f2", "9e4e00c3", 0),
        ("b8731d22", "b8731d22", "80fbf1f2", 0),
        ("cb75110e", "cb75110e", "b8731d22", 4),
    ];
    for (rev, at, from, abandoned) in steps {
        let (line, v, r) = checkout(&file, &["--json", rev]);
        assert_record(&line, &v, Some(at), Some(from));
        let out = ndjson(&r.stdout);
        assert_eq!(out.len(), 1);
        let keys: Vec<&str> = out[0].as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, ["at", "from", "abandoned", "record"]);
        assert_eq!(
            out[0],
            json!({"at": at, "from": from, "abandoned": abandoned, "record": v["id"]}),
            "{rev}"
        );
    }
}

#[test]
fn human_output_counts_and_hints() {
    let (_dir, file) = temp_copy(&example());
    // Four left behind: a hint to label them and to come back.
    let (_, _, r) = checkout(&file, &["cb75110e"]);
    assert!(r.stdout.starts_with("@ is now cb75110e"), "{}", r.stdout);
    assert!(
        r.stderr
            .contains("left 4 entries behind on the branch ending at b8731d22"),
        "{}",
        r.stderr
    );
    // The hints name the session given with -s, so that pasted they act on it.
    let s = format!("pi-session -s {}", file.display());
    assert!(r.stderr.contains(&format!("{s} label b8731d22 NAME")), "{}", r.stderr);
    assert!(r.stderr.contains(&format!("{s} checkout -")), "{}", r.stderr);
    // Down the same branch: nothing left behind, nothing said about it.
    let (_, _, r) = checkout(&file, &["f2707ba7"]);
    assert!(!r.stderr.contains("left"), "{}", r.stderr);
    // One left behind: singular, and no hint.
    let (_, _, r) = checkout(&file, &["d4664141"]);
    assert!(
        r.stderr
            .contains("left 1 entry behind on the branch ending at f2707ba7"),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains("hint"), "{}", r.stderr);
}

#[test]
fn checkout_of_at_writes_nothing() {
    let (_dir, file) = temp_copy(&example());
    for rev in ["@", "b8731d22", "b873"] {
        let r = unchanged(&file, &["checkout", rev], 0);
        assert!(r.stderr.contains("already there"), "{}", r.stderr);
        assert!(r.stdout.starts_with("@ is now b8731d22"), "{}", r.stdout);
    }
    let r = unchanged(&file, &["checkout", "--json", "@"], 0);
    assert_eq!(
        ndjson(&r.stdout),
        [json!({"at": "b8731d22", "from": "b8731d22", "abandoned": 0, "record": null})]
    );
    // Also after a checkout: @ is then the record's parent.
    checkout(&file, &["d2e5793f"]);
    unchanged(&file, &["checkout", "green"], 0);
    unchanged(&file, &["checkout", "@"], 0);
}

#[test]
fn checkout_dash_goes_back_and_forth() {
    let (_dir, file) = temp_copy(&example());
    let r = unchanged(&file, &["checkout", "-"], 1);
    assert!(r.stderr.contains("no earlier checkout"), "{}", r.stderr);

    let (_, first, _) = checkout(&file, &["d2e5793f"]);
    let (line, v, r) = checkout(&file, &["-"]);
    assert_record(&line, &v, Some("b8731d22"), Some("d2e5793f"));
    assert!(r.stdout.starts_with("@ is now b8731d22"), "{}", r.stdout);
    assert_eq!(rev_parse(&file, "@"), "b8731d22");
    assert_ne!(v["id"], first["id"]);

    let (line, v, _) = checkout(&file, &["-"]);
    assert_record(&line, &v, Some("d2e5793f"), Some("b8731d22"));
    assert_eq!(rev_parse(&file, "@"), "d2e5793f");

    let (line, v, r) = checkout(&file, &["--json", "-"]);
    assert_record(&line, &v, Some("b8731d22"), Some("d2e5793f"));
    assert_eq!(
        ndjson(&r.stdout),
        [json!({"at": "b8731d22", "from": "d2e5793f", "abandoned": 8, "record": v["id"]})]
    );
}

#[test]
fn checkout_empty_starts_a_new_root() {
    let (_dir, file) = temp_copy(&example());
    let context_before = run_ok(&file, &["context", "--json"]);
    let (line, v, r) = checkout(&file, &["--empty"]);
    assert_record(&line, &v, None, Some("b8731d22"));
    assert_eq!(r.stdout, "@ is now empty: the next message starts a new root\n");
    assert!(r.stderr.contains("left 5 entries behind"), "{}", r.stderr);
    assert_eq!(leaf(&file), v["id"].as_str().unwrap());

    let at = run(&file, &["rev-parse", "@"]);
    assert_eq!(at.code, 1);
    assert!(at.stdout.is_empty());
    assert!(at.stderr.contains("empty"), "{}", at.stderr);
    assert_eq!(run_ok(&file, &["context", "--json"]), "");

    // Already empty: nothing to do.
    let r = unchanged(&file, &["checkout", "--empty"], 0);
    assert!(r.stderr.contains("already there"), "{}", r.stderr);
    let r = unchanged(&file, &["checkout", "--empty", "--json"], 0);
    assert_eq!(
        ndjson(&r.stdout),
        [json!({"at": null, "from": null, "abandoned": 0, "record": null})]
    );

    // And back.
    let (line, v, r) = checkout(&file, &["-"]);
    assert_record(&line, &v, Some("b8731d22"), None);
    assert!(!r.stderr.contains("left"), "{}", r.stderr);
    assert_eq!(rev_parse(&file, "@"), "b8731d22");
    assert_eq!(run_ok(&file, &["context", "--json"]), context_before);

    let (line, v, r) = checkout(&file, &["--empty", "--json"]);
    assert_record(&line, &v, None, Some("b8731d22"));
    assert_eq!(
        ndjson(&r.stdout),
        [json!({"at": null, "from": "b8731d22", "abandoned": 5, "record": v["id"]})]
    );
}

#[test]
fn pi_continues_from_the_checked_out_entry() {
    let (_dir, file) = temp_copy(&example());
    let (_, v, _) = checkout(&file, &["d2e5793f"]);
    let record = v["id"].as_str().unwrap();
    let context_at_rev = ndjson(&run_ok(&file, &["context", "--json"]));
    // Pi appends its next message as a child of its leaf: the record.
    let msg = format!(
        r#"{{"type":"message","id":"0e0e0e01","parentId":"{record}","timestamp":"2026-11-02T12:00:00.000Z","message":{{"role":"user","content":[{{"type":"text","text":"Next question."}}],"timestamp":1793620800000}}}}"#
    );
    let mut f = OpenOptions::new().append(true).open(&file).unwrap();
    f.write_all(format!("{msg}\n").as_bytes()).unwrap();
    assert_eq!(rev_parse(&file, "@"), "0e0e0e01");
    assert_eq!(rev_parse(&file, "@^"), record);
    assert_eq!(rev_parse(&file, "@~2"), "d2e5793f");
    let context = ndjson(&run_ok(&file, &["context", "--json"]));
    assert_eq!(context.len(), context_at_rev.len() + 1);
    assert_eq!(context[..context_at_rev.len()], context_at_rev[..]);
    assert_eq!(context.last().unwrap()["content"][0]["text"], "Next question.");
}

#[test]
fn unknown_revisions_write_nothing() {
    let (_dir, file) = temp_copy(&example());
    for rev in ["zzzzzzzz", "deadbeef", "nolabel", "root^", "b8731d22~9"] {
        let r = unchanged(&file, &["checkout", rev], 1);
        assert!(r.stderr.starts_with("error:"), "{}", r.stderr);
        assert!(r.stdout.is_empty());
    }
    let r = unchanged(&file, &["checkout", "deadbeef"], 1);
    assert!(r.stderr.contains("unknown revision"), "{}", r.stderr);
    unchanged(&file, &["checkout"], 2);
    unchanged(&file, &["checkout", "@", "--empty"], 2);
}

#[test]
fn checkout_where_the_leaf_is_a_label() {
    // labels.jsonl: the leaf is the label 1abe1007, @ is 1a2b3c06.
    let (_dir, file) = temp_copy(&fixture("labels.jsonl"));
    unchanged(&file, &["checkout", "1a2b3c06"], 0);
    let context = run_ok(&file, &["context", "--json", "1a2b3c04"]);
    let (line, v, _) = checkout(&file, &["root-cause"]);
    assert_record(&line, &v, Some("1a2b3c04"), Some("1a2b3c06"));
    assert_eq!(run_ok(&file, &["context", "--json"]), context);
    let (line, v, _) = checkout(&file, &["-"]);
    assert_record(&line, &v, Some("1a2b3c06"), Some("1a2b3c04"));
}

#[test]
fn checkout_on_corpus_sessions() {
    for src in corpus_files() {
        let name = src.file_name().unwrap().to_string_lossy().into_owned();
        if name.contains(".v1.") {
            continue;
        }
        let (_dir, file) = temp_copy(&src);
        let at = rev_parse(&file, "@");
        let target = rev_parse(&file, "@~3");
        let context = run_ok(&file, &["context", "--json", &target]);
        let (line, v, _) = checkout(&file, &[&target]);
        assert_record(&line, &v, Some(&target), Some(&at));
        assert_eq!(rev_parse(&file, "@"), target, "{name}");
        assert_eq!(run_ok(&file, &["context", "--json"]), context, "{name}");
        let (line, v, _) = checkout(&file, &["-"]);
        assert_record(&line, &v, Some(&at), Some(&target));
        assert_eq!(rev_parse(&file, "@"), at, "{name}");
    }
}

#[test]
fn checkout_of_a_bookkeeping_entry_lands_where_it_says() {
    // 6fe7bd1a is the label entry `start` (a child of 80fbf1f2): @ never stands on one.
    let (_dir, file) = temp_copy(&example());
    let (line, v, r) = checkout(&file, &["--json", "6fe7bd1a"]);
    assert_record(&line, &v, Some("80fbf1f2"), Some("b8731d22"));
    assert_eq!(ndjson(&r.stdout)[0]["at"], "80fbf1f2");
    assert!(r.stderr.contains("6fe7bd1a is a label entry"), "{}", r.stderr);
    assert_eq!(rev_parse(&file, "@"), "80fbf1f2");
    // Checking out the same revision again has nothing to do.
    unchanged(&file, &["checkout", "6fe7bd1a"], 0);
    // Nor does checking out the checkout record itself.
    let record = v["id"].as_str().unwrap().to_owned();
    unchanged(&file, &["checkout", &record], 0);
    // A checkout record elsewhere stands for its parent.
    checkout(&file, &["d2e5793f"]);
    let (line, v, _) = checkout(&file, &[&record]);
    assert_record(&line, &v, Some("80fbf1f2"), Some("d2e5793f"));
}

#[test]
fn a_position_without_id_is_not_recorded_as_a_made_up_id() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.jsonl");
    let mut text = fs::read_to_string(fixture("torn-last-line.jsonl")).unwrap();
    text.truncate(text.rfind('\n').unwrap() + 1);
    text.push_str("{\"type\":\"custom\",\"customType\":\"no-id\"}\n");
    fs::write(&file, text).unwrap();
    let (_, v, _) = checkout(&file, &["1a2b3c02"]);
    let ids: Vec<String> = fs::read_to_string(&file)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|e| e["id"].as_str().map(str::to_owned))
        .collect();
    let from = &v["data"]["from"];
    assert!(from.is_null() || ids.iter().any(|i| from == i.as_str()), "{v}");
    let back = run(&file, &["checkout", "-"]);
    assert!(!back.stderr.contains("(line"), "{}", back.stderr);
}

#[test]
fn checkout_into_a_parent_cycle_is_refused() {
    // dddd0001 and eeee0001 are each other's parent: Pi, walking up from a record below
    // either, never reaches a root (it runs out of memory opening the session).
    let (dir, file) = temp_copy(&fixture("outside/checkout-into-parent-cycle.jsonl"));
    let summary = dir.path().join("summary.md");
    fs::write(&summary, "## Goal\nx\n").unwrap();
    for rev in ["dddd0001", "eeee0001", "id:eeee0001"] {
        for extra in [
            &[][..],
            &["--dry-run"][..],
            &["--json"][..],
            &["--summarize", "--dry-run"][..],
            &["--summarize", "--summary-file", summary.to_str().unwrap()][..],
        ] {
            let mut args = vec!["checkout", rev];
            args.extend_from_slice(extra);
            let r = unchanged(&file, &args, 1);
            assert!(r.stdout.is_empty(), "{}", r.stdout);
            assert!(
                r.stderr.contains("error: the branch runs into a parent cycle at line"),
                "{}",
                r.stderr
            );
            assert!(
                r.stderr.contains("pi-session -s ") && r.stderr.contains(" repair` first"),
                "{}",
                r.stderr
            );
        }
    }
    // summarize-branch attaches its summary there too: refused the same way.
    for extra in [&["--dry-run"][..], &["--summary-file", summary.to_str().unwrap()][..]] {
        let mut args = vec!["summarize-branch", "eeee0001"];
        args.extend_from_slice(extra);
        let r = unchanged(&file, &args, 1);
        assert!(r.stderr.contains("parent cycle"), "{}", r.stderr);
    }
    // clone refuses the same target, with the same words.
    let r = unchanged(&file, &["clone", "dddd0001"], 1);
    assert!(r.stderr.contains("parent cycle"), "{}", r.stderr);
    // Entries outside the cycle can still be checked out.
    let (_, v, _) = checkout(&file, &["aaaa0001"]);
    assert_eq!(v["parentId"], "aaaa0001");
    assert_eq!(rev_parse(&file, "@"), "aaaa0001");
}

#[test]
fn checkout_below_a_cycle_outside_the_first_read_is_refused() {
    // The target is near the end of the file, read first; its parent is in the cycle at
    // the start, which checkout must then read too.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("big.jsonl");
    let mut text = fs::read_to_string(fixture("outside/checkout-into-parent-cycle.jsonl")).unwrap();
    let message = |id: &str, parent: &str, words: &str| {
        format!(
            "{{\"type\":\"message\",\"id\":\"{id}\",\"parentId\":\"{parent}\",\"timestamp\":\"2026-11-02T10:00:05.000Z\",\
             \"message\":{{\"role\":\"user\",\"content\":\"{words}\",\"timestamp\":5}}}}\n"
        )
    };
    let mut parent = "bbbb0001".to_owned();
    for i in 0..200 {
        let id = format!("{i:08x}");
        text.push_str(&message(&id, &parent, "padding padding padding padding padding"));
        parent = id;
    }
    text.push_str(&message("ffff0001", "dddd0001", "below the cycle"));
    text.push_str(&format!(
        "{{\"type\":\"custom\",\"id\":\"ffff0002\",\"parentId\":\"{parent}\",\"timestamp\":\"2026-11-02T10:00:06.000Z\",\
         \"customType\":\"pi-session.checkout\",\"data\":{{\"from\":null}}}}\n"
    ));
    fs::write(&file, &text).unwrap();
    for tip in ["1024", "100000000"] {
        for extra in [&[][..], &["--dry-run"][..]] {
            let out = common::cmd()
                .env("PI_SESSION_TIP_BYTES", tip)
                .arg("-s")
                .arg(&file)
                .args(["checkout", "ffff0001"])
                .args(extra)
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert_eq!(out.status.code(), Some(1), "{tip}: {stderr}");
            assert!(stderr.contains("parent cycle at line 3"), "{tip}: {stderr}");
            assert_eq!(fs::read_to_string(&file).unwrap(), text);
        }
    }
    assert_eq!(rev_parse(&file, "@"), parent);
}
