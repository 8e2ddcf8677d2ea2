//! `pi-session label`: setting, clearing and listing labels, appended as Pi appends them
//! (children of Pi's leaf), so @ never moves.

use crate::common;

use common::{Run, example, fixture, ndjson, rev_parse, run, run_ok, temp_copy, unchanged};
use serde_json::{Value, json};
use std::fs::{self};
use std::path::Path;

/// Runs `label ARGS…`, which must append one line; returns (the line, parsed, the run).
fn label(file: &Path, args: &[&str]) -> (String, Value, Run) {
    let before = fs::read(file).unwrap();
    let mut full = vec!["label"];
    full.extend_from_slice(args);
    let r = run(file, &full);
    assert_eq!(r.code, 0, "{full:?}: {}", r.stderr);
    let after = fs::read(file).unwrap();
    assert_eq!(&after[..before.len()], &before[..], "old bytes changed");
    let rest = std::str::from_utf8(&after[before.len()..]).unwrap();
    assert!(rest.ends_with('\n') && rest.matches('\n').count() == 1, "{rest:?}");
    let line = rest.trim_end_matches('\n').to_owned();
    let v: Value = serde_json::from_str(&line).unwrap();
    let id = v["id"].as_str().unwrap();
    assert!(id.len() == 8 && id.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)));
    (line, v, r)
}

/// The exact line of a label entry; `name: None` clears.
fn label_line(v: &Value, parent: &str, target: &str, name: Option<&str>) -> String {
    let head = format!(
        r#"{{"type":"label","id":"{}","parentId":"{parent}","timestamp":"{}","targetId":"{target}""#,
        v["id"].as_str().unwrap(),
        v["timestamp"].as_str().unwrap()
    );
    match name {
        Some(n) => format!("{head},\"label\":{}}}", json!(n)),
        None => format!("{head}}}"),
    }
}

fn tree_label(file: &Path, id: &str) -> Value {
    let rows = ndjson(&run_ok(file, &["tree", "--all", "--json"]));
    let row = rows
        .iter()
        .find(|r| r["id"] == id)
        .unwrap_or_else(|| panic!("{id} not in the tree"));
    row["label"].clone()
}

#[test]
fn label_appends_a_label_entry_under_pis_leaf() {
    let (_dir, file) = temp_copy(&example());
    let (line, v, r) = label(&file, &["1ecdd056", "refactor"]);
    assert_eq!(line, label_line(&v, "b8731d22", "1ecdd056", Some("refactor")));
    assert_eq!(r.stdout, "1ecdd056 [refactor]\n");
    // @ does not move; Pi's leaf is the label entry.
    assert_eq!(rev_parse(&file, "@"), "b8731d22");
    assert_eq!(rev_parse(&file, "--leaf"), v["id"].as_str().unwrap());
    // The label is a revision, and shows in log and tree.
    assert_eq!(rev_parse(&file, "refactor"), "1ecdd056");
    assert_eq!(rev_parse(&file, "label:refactor"), "1ecdd056");
    assert_eq!(rev_parse(&file, "refactor~1"), "305e383a");
    let log = run_ok(&file, &["log", "refactor"]);
    let first = log.lines().next().unwrap();
    assert!(first.starts_with("1ecdd056"), "{first}");
    assert!(first.contains("[refactor]"), "{first}");
    assert_eq!(tree_label(&file, "1ecdd056"), "refactor");
    let all = run_ok(&file, &["log", "--all"]);
    assert!(all.contains("1ecdd056 ← refactor"), "{all}");
}

#[test]
fn label_resolves_rev_to_a_full_id() {
    for (rev, target) in [
        ("1ecd", "1ecdd056"),
        ("@", "b8731d22"),
        ("@~2", "80fbf1f2"),
        ("green^", "f2707ba7"),
        (":/explain the tokenizer", "80fbf1f2"),
        ("id:e3472b97", "e3472b97"),
    ] {
        let (_dir, file) = temp_copy(&example());
        let (line, v, _) = label(&file, &[rev, "named"]);
        assert_eq!(line, label_line(&v, "b8731d22", target, Some("named")), "{rev}");
        assert_eq!(rev_parse(&file, "named"), target);
    }
}

#[test]
fn relabelling_through_the_old_name_moves_the_name() {
    let (_dir, file) = temp_copy(&example());
    let (line, v, r) = label(&file, &["green", "verde"]);
    assert_eq!(line, label_line(&v, "b8731d22", "d2e5793f", Some("verde")));
    assert_eq!(r.stdout, "d2e5793f [verde]\n");
    assert_eq!(rev_parse(&file, "verde"), "d2e5793f");
    let old = run(&file, &["rev-parse", "green"]);
    assert_eq!(old.code, 1, "{}", old.stdout);
    assert_eq!(tree_label(&file, "d2e5793f"), "verde");
    let list: Vec<Value> = ndjson(&run_ok(&file, &["label", "--list", "--json"]));
    let names: Vec<&str> = list.iter().map(|l| l["label"].as_str().unwrap()).collect();
    assert!(names.contains(&"verde") && !names.contains(&"green"), "{names:?}");
}

#[test]
fn delete_appends_a_label_entry_without_a_label() {
    for flag in ["--delete", "-d"] {
        let (_dir, file) = temp_copy(&example());
        let (line, v, r) = label(&file, &["green", flag]);
        assert_eq!(line, label_line(&v, "b8731d22", "d2e5793f", None));
        assert!(v.get("label").is_none());
        assert_eq!(r.stdout, "d2e5793f (label green cleared)\n");
        assert_eq!(rev_parse(&file, "@"), "b8731d22");
        let gone = run(&file, &["rev-parse", "green"]);
        assert_eq!(gone.code, 1);
        assert!(gone.stderr.contains("unknown revision"), "{}", gone.stderr);
        assert_eq!(tree_label(&file, "d2e5793f"), Value::Null);
        let list = ndjson(&run_ok(&file, &["label", "--list", "--json"]));
        assert_eq!(list.len(), 1);
        assert_eq!(list[0]["label"], "start");
        // Deleting again: nothing left to delete.
        let r = unchanged(&file, &["label", "d2e5793f", flag], 0);
        assert!(r.stderr.contains("has no label"), "{}", r.stderr);
    }
}

#[test]
fn nothing_to_do_writes_nothing() {
    let (_dir, file) = temp_copy(&example());
    for rev in ["1ecdd056", "b8731d22", "30af4c7e"] {
        // 30af4c7e's label "explained" was cleared by a label entry without `label`.
        let r = unchanged(&file, &["label", rev, "--delete"], 0);
        assert!(r.stderr.contains("has no label: nothing to do"), "{}", r.stderr);
    }
    for args in [["d2e5793f", "green"], ["green", "green"], ["80fbf1f2", "start"]] {
        let r = unchanged(&file, &["label", args[0], args[1]], 0);
        assert!(r.stderr.contains("is already labelled"), "{}", r.stderr);
        assert!(r.stderr.contains("nothing to do"), "{}", r.stderr);
    }
    // labels.jsonl: 1a2b3c01 was cleared without `label`, 1a2b3c05 with "".
    let (_dir, file) = temp_copy(&fixture("labels.jsonl"));
    unchanged(&file, &["label", "1a2b3c01", "--delete"], 0);
    unchanged(&file, &["label", "1a2b3c05", "--delete"], 0);
    unchanged(&file, &["label", "1a2b3c04", "root-cause"], 0);
}

#[test]
fn cleared_labels_can_be_set_again() {
    let (_dir, file) = temp_copy(&fixture("labels.jsonl"));
    let (line, v, _) = label(&file, &["1a2b3c01", "question"]);
    assert_eq!(line, label_line(&v, "1abe1007", "1a2b3c01", Some("question")));
    assert_eq!(rev_parse(&file, "question"), "1a2b3c01");
    // The leaf is a label, so @ stays where it was.
    assert_eq!(rev_parse(&file, "@"), "1a2b3c06");
    let (line, v2, _) = label(&file, &["1a2b3c05", "fix-request"]);
    assert_eq!(
        line,
        label_line(&v2, v["id"].as_str().unwrap(), "1a2b3c05", Some("fix-request"))
    );
    assert_eq!(rev_parse(&file, "@"), "1a2b3c06");
}

#[test]
fn list_human_and_json() {
    let (_dir, file) = temp_copy(&example());
    assert_eq!(
        run_ok(&file, &["label", "--list"]),
        "green            d2e5793f assistant Done; all tests pass.\n\
         start            80fbf1f2 user Read src/parser.rs and explain the tokenizer.\n"
    );
    let list = ndjson(&run_ok(&file, &["label", "-l", "--json"]));
    for row in &list {
        let keys: Vec<&str> = row.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(keys, ["label", "targetId", "type", "role", "timestamp", "preview"]);
    }
    assert_eq!(
        list,
        [
            json!({"label": "green", "targetId": "d2e5793f", "type": "message", "role": "assistant",
                   "timestamp": "2026-11-02T10:00:33.000Z", "preview": "Done; all tests pass."}),
            json!({"label": "start", "targetId": "80fbf1f2", "type": "message", "role": "user",
                   "timestamp": "2026-11-02T10:01:33.000Z",
                   "preview": "Read src/parser.rs and explain the tokenizer."}),
        ]
    );
    // A new label is listed with the timestamp of the entry that set it.
    let (_, v, _) = label(&file, &["cb75110e", "model"]);
    let list = ndjson(&run_ok(&file, &["label", "--list", "--json"]));
    let row = list.iter().find(|r| r["label"] == "model").unwrap();
    assert_eq!(row["targetId"], "cb75110e");
    assert_eq!(row["type"], "model_change");
    assert_eq!(row["role"], Value::Null);
    assert_eq!(row["timestamp"], v["timestamp"]);
    let human = run_ok(&file, &["label", "--list"]);
    assert!(
        human
            .lines()
            .any(|l| l.starts_with("model            cb75110e model_change")),
        "{human}"
    );
}

#[test]
fn list_of_the_labels_fixture() {
    let file = fixture("labels.jsonl");
    assert_eq!(
        ndjson(&run_ok(&file, &["label", "--list", "--json"])),
        [
            json!({"label": "root-cause", "targetId": "1a2b3c04", "type": "message", "role": "assistant",
                   "timestamp": "2026-03-04T15:00:21.000Z",
                   "preview": "The loop exits before pushing the last token."}),
            json!({"label": "done", "targetId": "1a2b3c06", "type": "message", "role": "assistant",
                   "timestamp": "2026-03-04T15:00:25.000Z",
                   "preview": "Fixed: the token is pushed after the loop too."}),
        ]
    );
    assert_eq!(run_ok(&fixture("crlf.jsonl"), &["label", "--list"]), "");
    assert_eq!(run_ok(&fixture("crlf.jsonl"), &["label", "--list", "--json"]), "");
}

#[test]
fn a_name_that_begins_an_entry_id_is_warned_about() {
    let (_dir, file) = temp_copy(&example());
    let (_, v, r) = label(&file, &["80fbf1f2", "b873"]);
    assert_eq!(v["label"], "b873");
    assert!(
        r.stderr
            .contains("warning: 'b873' is also the beginning of an entry id"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("label:b873"), "{}", r.stderr);
    // An exact id wins over a label, a label over a prefix.
    assert_eq!(rev_parse(&file, "label:b873"), "80fbf1f2");
    assert_eq!(rev_parse(&file, "b873"), "80fbf1f2");
    // Three characters are no id prefix; the target's own id is not shadowed.
    let (_, _, r) = label(&file, &["d2e5793f", "b87"]);
    assert!(!r.stderr.contains("beginning of an entry id"), "{}", r.stderr);
    let (_, _, r) = label(&file, &["b8731d22", "b8731"]);
    assert!(!r.stderr.contains("beginning of an entry id"), "{}", r.stderr);
    // A full id of another entry.
    let (_, _, r) = label(&file, &["cb75110e", "9e4e00c3"]);
    assert!(r.stderr.contains("also the beginning of an entry id"), "{}", r.stderr);
    assert_eq!(rev_parse(&file, "9e4e00c3"), "9e4e00c3");
    assert_eq!(rev_parse(&file, "label:9e4e00c3"), "cb75110e");
    // `root` is a revision name too.
    let (_, _, r) = label(&file, &["e3472b97", "root"]);
    assert!(r.stderr.contains("warning: 'root'"), "{}", r.stderr);
    assert_eq!(rev_parse(&file, "label:root"), "e3472b97");
}

#[test]
fn names_are_kept_exactly() {
    let (_dir, file) = temp_copy(&example());
    for name in ["fix it ü", "say \"hi\"", "back\\slash", "日本語", " padded "] {
        let leaf = rev_parse(&file, "--leaf");
        let (line, v, _) = label(&file, &["e3472b97", name]);
        assert_eq!(v["label"], name);
        assert_eq!(line, label_line(&v, &leaf, "e3472b97", Some(name)));
        assert_eq!(rev_parse(&file, &format!("label:{name}")), "e3472b97");
    }
}

#[test]
fn refused_names_write_nothing() {
    let (_dir, file) = temp_copy(&example());
    for name in [
        "",
        "   ",
        "a\nb",
        "tab\there",
        "bell\u{7}",
        "esc\u{1b}[31m",
        "cr\r",
        "@",
        ":/x",
        "id:x",
        "label:x",
    ] {
        let r = unchanged(&file, &["label", "d2e5793f", name], 1);
        assert!(r.stderr.starts_with("error:"), "{name:?}: {}", r.stderr);
        assert!(r.stdout.is_empty());
    }
    let r = unchanged(&file, &["label", "d2e5793f", ""], 1);
    assert!(r.stderr.contains("--delete"), "{}", r.stderr);
    let r = unchanged(&file, &["label", "d2e5793f", "a\nb"], 1);
    assert!(r.stderr.contains("control characters"), "{}", r.stderr);
    let r = unchanged(&file, &["label", "d2e5793f", "label:x"], 1);
    assert!(r.stderr.contains("revision syntax"), "{}", r.stderr);
}

#[test]
fn names_that_read_as_revisions_are_refused() {
    // As git refuses such ref names: once `x~1` could be a label, `x~1` would stop meaning
    // the parent of x (tests/fixtures/outside-2/label-with-revision-syntax.jsonl).
    let (_dir, file) = temp_copy(&fixture("outside-2/label-with-revision-syntax.jsonl"));
    for name in ["x~1", "x~", "x^", "a:b", "@", "@-", "@x", "green~2"] {
        let r = unchanged(&file, &["label", "d2e5793f", name], 1);
        assert!(r.stderr.contains("revision syntax"), "{name:?}: {}", r.stderr);
        assert!(r.stdout.is_empty());
    }
    // Names next to the syntax are fine, and x~1 then still means the parent of x.
    run_ok(&file, &["label", "d2e5793f", "x-1.v2_ok"]);
    assert_eq!(rev_parse(&file, "x-1.v2_ok~1"), "f2707ba7");
}

#[test]
fn usage_errors() {
    let (_dir, file) = temp_copy(&example());
    unchanged(&file, &["label", "d2e5793f", "x", "--delete"], 2);
    unchanged(&file, &["label", "--list", "d2e5793f"], 2);
    unchanged(&file, &["label", "--list", "--delete"], 2);
    let r = unchanged(&file, &["label", "--delete"], 2);
    assert!(r.stderr.contains("label REV --delete"), "{}", r.stderr);
    unchanged(&file, &["label", "--force"], 2);
    unchanged(&file, &["label", "d2e5793f", "--delete", "--force"], 2);
    let r = unchanged(&file, &["label", "nosuchrev", "x"], 1);
    assert!(r.stderr.contains("unknown revision"), "{}", r.stderr);
}

#[test]
fn a_bare_label_lists() {
    let file = example();
    assert_eq!(run_ok(&file, &["label"]), run_ok(&file, &["label", "--list"]));
    assert_eq!(
        run_ok(&file, &["label", "--json"]),
        run_ok(&file, &["label", "--list", "--json"])
    );
    assert_eq!(run_ok(&file, &["label"]).lines().count(), 2);
}

#[test]
fn one_argument_labels_at() {
    let (_dir, file) = temp_copy(&example());
    let (line, v, r) = label(&file, &["checkpoint"]);
    assert_eq!(line, label_line(&v, "b8731d22", "b8731d22", Some("checkpoint")));
    assert_eq!(r.stdout, "b8731d22 [checkpoint]\n");
    assert_eq!(rev_parse(&file, "checkpoint"), "b8731d22");
    // @ stands past the label entries and checkout records at the end of the file.
    run_ok(&file, &["checkout", "d2e5793f"]);
    let leaf = rev_parse(&file, "--leaf");
    let (line, v, r) = label(&file, &["done"]);
    assert_eq!(line, label_line(&v, &leaf, "d2e5793f", Some("done")));
    assert_eq!(rev_parse(&file, "done"), "d2e5793f");
    // `green` was d2e5793f's label: replacing it is announced.
    assert!(r.stderr.contains("was labelled 'green'"), "{}", r.stderr);
}

#[test]
fn a_name_on_another_entry_is_refused() {
    let (_dir, file) = temp_copy(&example());
    // "green" labels d2e5793f.
    for args in [
        &["e0a8c95d", "green"][..],
        &["green"][..],
        &["label:start", "green"][..],
    ] {
        let mut full = vec!["label"];
        full.extend_from_slice(args);
        let r = unchanged(&file, &full, 1);
        assert!(r.stdout.is_empty(), "{}", r.stdout);
        assert!(
            r.stderr.starts_with("error: 'green' already labels d2e5793f"),
            "{}",
            r.stderr
        );
        assert!(
            r.stderr.contains("hint:") && r.stderr.contains("--force"),
            "{}",
            r.stderr
        );
    }
    assert_eq!(rev_parse(&file, "green"), "d2e5793f");
    // A cleared name is free again.
    label(&file, &["green", "--delete"]);
    let (_, v, _) = label(&file, &["e0a8c95d", "green"]);
    assert_eq!(v["targetId"], "e0a8c95d");
    assert_eq!(rev_parse(&file, "green"), "e0a8c95d");
}

/// Runs `label ARGS…`, which must append exactly `n` lines; returns them, parsed, and the run.
fn label_n(file: &Path, args: &[&str], n: usize) -> (Vec<Value>, Run) {
    let before = fs::read(file).unwrap();
    let mut full = vec!["label"];
    full.extend_from_slice(args);
    let r = run(file, &full);
    assert_eq!(r.code, 0, "{full:?}: {}", r.stderr);
    let after = fs::read(file).unwrap();
    assert_eq!(&after[..before.len()], &before[..], "old bytes changed");
    let rest = std::str::from_utf8(&after[before.len()..]).unwrap();
    assert!(rest.ends_with('\n') && rest.matches('\n').count() == n, "{rest:?}");
    (rest.lines().map(|l| serde_json::from_str(l).unwrap()).collect(), r)
}

#[test]
fn force_moves_the_name() {
    for flag in ["--force", "-f"] {
        let (_dir, file) = temp_copy(&example());
        let (lines, r) = label_n(&file, &["e0a8c95d", "green", flag], 2);
        // First the old entry loses the name (a label entry without `label`, as Pi writes a
        // clearing), then the new one gets it: both children of Pi's leaf, in a chain.
        let (clear, set) = (&lines[0], &lines[1]);
        assert_eq!(clear.as_object().unwrap().len(), 5, "{clear}");
        assert_eq!(clear["type"], "label");
        assert_eq!(clear["targetId"], "d2e5793f");
        assert_eq!(clear["parentId"], "b8731d22");
        assert_eq!(set["targetId"], "e0a8c95d");
        assert_eq!(set["label"], "green");
        assert_eq!(set["parentId"], clear["id"]);
        assert_ne!(set["id"], clear["id"]);
        assert_eq!(r.stdout, "e0a8c95d [green]\n");
        assert!(r.stderr.contains("moved 'green' from d2e5793f"), "{}", r.stderr);
        assert_eq!(rev_parse(&file, "green"), "e0a8c95d");
        assert_eq!(rev_parse(&file, "@"), "b8731d22");
        assert_eq!(tree_label(&file, "d2e5793f"), Value::Null);
        assert_eq!(tree_label(&file, "e0a8c95d"), "green");
        let names: Vec<String> = ndjson(&run_ok(&file, &["label", "--json"]))
            .iter()
            .map(|l| format!("{} {}", l["label"].as_str().unwrap(), l["targetId"].as_str().unwrap()))
            .collect();
        assert_eq!(names, ["start 80fbf1f2", "green e0a8c95d"]);
    }
}

#[test]
fn force_onto_an_entry_with_a_label_moves_and_replaces() {
    let (_dir, file) = temp_copy(&example());
    // "start" labels 80fbf1f2; "green" labels d2e5793f.
    let (lines, r) = label_n(&file, &["start", "green", "--force"], 2);
    assert_eq!(lines[0]["targetId"], "d2e5793f");
    assert_eq!(lines[1]["targetId"], "80fbf1f2");
    assert!(r.stderr.contains("moved 'green' from d2e5793f"), "{}", r.stderr);
    assert!(
        r.stderr.contains(
            "warning: 80fbf1f2 was labelled 'start': 'green' replaces it, and 'start' no longer names the entry"
        ),
        "{}",
        r.stderr
    );
    assert_eq!(rev_parse(&file, "green"), "80fbf1f2");
    assert_eq!(run(&file, &["rev-parse", "start"]).code, 1);
    // --force without another holder is a plain set.
    let (lines, _) = label_n(&file, &["e0a8c95d", "bench", "--force"], 1);
    assert_eq!(lines[0]["label"], "bench");
}

#[test]
fn replacing_an_entrys_label_is_announced() {
    let (_dir, file) = temp_copy(&example());
    let (_, _, r) = label(&file, &["d2e5793f", "verde"]);
    // As loudly as a move: a warning naming the label that is gone.
    assert!(
        r.stderr.contains(
            "warning: d2e5793f was labelled 'green': 'verde' replaces it, and 'green' no longer names the entry"
        ),
        "{}",
        r.stderr
    );
    let (_, _, r) = label(&file, &["1ecdd056", "fresh"]);
    assert!(!r.stderr.contains("replaces"), "{}", r.stderr);
}

#[test]
fn dry_run_json_prints_the_entries_that_would_be_appended() {
    let (_dir, file) = temp_copy(&example());
    let before = std::fs::read(&file).unwrap();
    // Moving a name: the clearing entry, then the new label, as NDJSON.
    let r = run(&file, &["label", "e0a8c95d", "green", "--force", "--dry-run", "--json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let lines = ndjson(&r.stdout);
    assert_eq!(lines.len(), 2, "{}", r.stdout);
    assert_eq!(lines[0]["type"], "label");
    assert_eq!(lines[0]["targetId"], "d2e5793f");
    assert!(lines[0].get("label").is_none());
    assert_eq!(lines[1]["targetId"], "e0a8c95d");
    assert_eq!(lines[1]["label"], "green");
    assert!(r.stderr.contains("dry run: nothing written"), "{}", r.stderr);
    let r = run(&file, &["label", "green", "--delete", "--dry-run", "--json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(ndjson(&r.stdout).len(), 1);
    assert_eq!(std::fs::read(&file).unwrap(), before, "nothing written");
    // Without --dry-run, --json still goes with --list only.
    let r = unchanged(&file, &["label", "e0a8c95d", "x", "--json"], 2);
    assert!(
        r.stderr.contains("--json goes with --list or --dry-run"),
        "{}",
        r.stderr
    );
}

#[test]
fn label_after_a_checkout_keeps_at() {
    let (_dir, file) = temp_copy(&example());
    run_ok(&file, &["checkout", "d2e5793f"]);
    let record = rev_parse(&file, "--leaf");
    let (line, v, _) = label(&file, &["1ecdd056", "after"]);
    assert_eq!(line, label_line(&v, &record, "1ecdd056", Some("after")));
    assert_eq!(rev_parse(&file, "@"), "d2e5793f");
    // `checkout -` still finds the checkout record behind the label.
    run_ok(&file, &["checkout", "-"]);
    assert_eq!(rev_parse(&file, "@"), "b8731d22");
}

#[test]
fn json_without_list_is_a_usage_error() {
    let (_dir, file) = temp_copy(&example());
    unchanged(&file, &["label", "d2e5793f", "x", "--json"], 2);
    unchanged(&file, &["label", "green", "--delete", "--json"], 2);
}

#[test]
fn a_leaf_without_id_gives_no_made_up_parent() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.jsonl");
    let mut text = fs::read_to_string(fixture("torn-last-line.jsonl")).unwrap();
    text.truncate(text.rfind('\n').unwrap() + 1);
    text.push_str("{\"type\":\"custom\",\"customType\":\"no-id\"}\n");
    fs::write(&file, text).unwrap();
    let (_, v, _) = label(&file, &["1a2b3c02", "x"]);
    // Pi's leaf has no id: the new entry cannot name it, and must not make one up.
    let ids: Vec<String> = fs::read_to_string(&file)
        .unwrap()
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|e| e["id"].as_str().map(str::to_owned))
        .collect();
    let parent = &v["parentId"];
    assert!(parent.is_null() || ids.iter().any(|i| parent == i.as_str()), "{v}");
}

#[test]
fn force_clears_every_other_holder_of_the_name() {
    // A file written before names were kept to one entry: "start" on two entries.
    let (_dir, file) = temp_copy(&example());
    let mut text = fs::read_to_string(&file).unwrap();
    text.push_str(
        "{\"type\":\"label\",\"id\":\"0dd1abe1\",\"parentId\":\"b8731d22\",\"timestamp\":\"2026-11-02T10:02:00.000Z\",\
         \"targetId\":\"1ecdd056\",\"label\":\"start\"}\n",
    );
    fs::write(&file, text).unwrap();
    assert_eq!(run(&file, &["rev-parse", "start"]).code, 1, "ambiguous");
    let r = unchanged(&file, &["label", "e0a8c95d", "start"], 1);
    assert!(r.stderr.contains("'start' already labels 80fbf1f2"), "{}", r.stderr);
    let (lines, r) = label_n(&file, &["e0a8c95d", "start", "--force"], 3);
    assert_eq!(lines[0]["targetId"], "80fbf1f2");
    assert_eq!(lines[1]["targetId"], "1ecdd056");
    assert!(lines[0].get("label").is_none() && lines[1].get("label").is_none());
    assert_eq!(lines[2]["label"], "start");
    assert_eq!(lines[0]["parentId"], "0dd1abe1");
    assert_eq!(lines[1]["parentId"], lines[0]["id"]);
    assert_eq!(lines[2]["parentId"], lines[1]["id"]);
    assert!(r.stderr.contains("moved 'start' from 80fbf1f2"), "{}", r.stderr);
    assert!(r.stderr.contains("moved 'start' from 1ecdd056"), "{}", r.stderr);
    assert_eq!(rev_parse(&file, "start"), "e0a8c95d");
}

#[test]
fn json_records_write_lone_surrogates_as_javascript_does() {
    // A label cut inside an emoji, as Pi writes it: the record carries the same escape.
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.jsonl");
    std::fs::write(
        &file,
        concat!(
            r#"{"type":"session","version":3,"id":"x","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#,
            "\n",
            r#"{"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hi \ud83d","timestamp":1}}"#,
            "\n",
            r#"{"type":"label","id":"l1","parentId":"a1","timestamp":"2026-01-01T00:00:02.000Z","targetId":"a1","label":"cut \ud83d"}"#,
            "\n"
        ),
    )
    .unwrap();
    let out = common::run_ok(&file, &["label", "--list", "--json"]);
    assert!(out.contains(r#""label":"cut \ud83d""#), "{out}");
    assert!(out.contains(r#""preview":"hi \ud83d""#), "{out}");
    // On a terminal (or any human output) it reads as U+FFFD.
    let out = common::run_ok(&file, &["label", "--list"]);
    assert!(out.contains("cut \u{fffd}"), "{out}");
}

/// A session whose first entries (far from its end) hold label entries and ids written the
/// way Pi never writes them (spaces, escapes, a label entry before its target, keys in
/// another order), then `filler` plain messages, so a small first read of the end
/// (`PI_SESSION_TIP_BYTES`) reaches none of them.
fn unusual_labels_file(dir: &Path, filler: usize) -> std::path::PathBuf {
    let mut s = String::new();
    s.push_str(r#"{"type":"session","version":3,"id":"0195e0c1-aaaa-7bbb-8ccc-dddddddddddd","timestamp":"2026-03-04T15:00:00.000Z","cwd":"/p"}"#);
    s.push('\n');
    let msg = |id: &str, parent: &str, text: &str| {
        format!(
            r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2026-03-04T15:00:01.000Z","message":{{"role":"user","content":[{{"type":"text","text":"{text}"}}],"timestamp":1772636401000}}}}"#
        )
    };
    let lines = [
        msg("e0000001", "null", "first"),
        // `early` on e0000001, with spaces and escaped letters in key, type and name.
        r#"{ "\u0074ype" : "lab\u0065l" , "id" : "e0000002", "parentId" : "e0000001", "timestamp":"2026-03-04T15:00:02.000Z", "targetId" : "e0000001", "label" : "\u0065arly" }"#.to_owned(),
        // `gone` set on the entry with the escaped id below, then cleared by a label entry
        // without a label, written with escapes only.
        r#"{"type":"label","id":"e0000003","parentId":"e0000002","timestamp":"2026-03-04T15:00:03.000Z","targetId":"abcd0006","label":"gone"}"#.to_owned(),
        r#"{"targetId":"\u0061bcd0006","type":"\u006C\u0061\u0062\u0065\u006C","id":"e0000004","parentId":"e0000003","timestamp":"2026-03-04T15:00:04.000Z"}"#.to_owned(),
        // `hi` on an early filler entry, with no `label` in the line as written.
        r#"{"\u0074ype":"l\u0061bel","\u006cabel":"hi","targetId":"f0000001","id":"e0000008","parentId":"e0000004","timestamp":"2026-03-04T15:00:04.000Z"}"#.to_owned(),
        // `ahead` on an entry that only comes near the end (a label entry before its target).
        r#"{"type":"label","id":"e0000005","parentId":"e0000004","timestamp":"2026-03-04T15:00:05.000Z","targetId":"f0000099","label":"ahead"}"#.to_owned(),
        // `nowhere` on an entry that is in no line: it labels nothing.
        r#"{"type":"label","id":"e0000007","parentId":"e0000005","timestamp":"2026-03-04T15:00:05.000Z","targetId":"0000dead","label":"nowhere"}"#.to_owned(),
        // An entry id, written with escapes, that `abcd` begins.
        msg("\\u0061bcd0006", "\"e0000005\"", "an id written with escapes"),
        // Not JSON, and JSON that is not an entry: neither is a label, whatever they say.
        r#"{"type":"label","targetId":"e0000001","label":"broken""#.to_owned(),
    ];
    for l in lines {
        s.push_str(&l);
        s.push('\n');
    }
    let mut parent = "\\u0061bcd0006".to_owned();
    for i in 0..filler {
        let id = if i + 1 == filler {
            "f0000099".to_owned()
        } else {
            format!("f{i:07}")
        };
        s.push_str(&msg(&id, &format!("\"{parent}\""), &"x".repeat(200)));
        s.push('\n');
        parent = id;
    }
    let path = dir.join("unusual.jsonl");
    fs::write(&path, s).unwrap();
    path
}

/// `label ARGS…` on a copy of `file`, reading `tip` bytes of the end first; (exit code,
/// stdout, stderr with the copy's path as FILE, the lines appended without id and time).
fn label_with_tip(file: &Path, tip: &str, args: &[&str]) -> (i32, String, String, Vec<Value>) {
    let (_dir, copy) = temp_copy(file);
    let before = fs::read_to_string(&copy).unwrap();
    let out = common::cmd()
        .env("PI_SESSION_TIP_BYTES", tip)
        .arg("-s")
        .arg(&copy)
        .arg("label")
        .args(args)
        .output()
        .unwrap();
    let after = fs::read_to_string(&copy).unwrap();
    assert!(after.starts_with(&before), "{args:?}: old bytes changed");
    let mut previous = Value::Null;
    let appended = after[before.len()..]
        .lines()
        .map(|l| {
            let mut v: Value = serde_json::from_str(l).unwrap();
            let o = v.as_object_mut().unwrap();
            if o["parentId"] == previous {
                o.insert("parentId".into(), json!("(the line before)"));
            }
            previous = o.remove("id").unwrap();
            o.remove("timestamp");
            v
        })
        .collect();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        // A read of the end does not see (nor warn about) unreadable lines before it.
        String::from_utf8(out.stderr)
            .unwrap()
            .lines()
            .filter(|l| !l.contains("unreadable line"))
            .map(|l| format!("{l}\n"))
            .collect::<String>()
            .replace(&copy.display().to_string(), "FILE"),
        appended,
    )
}

#[test]
fn a_new_name_is_checked_against_labels_before_the_part_read_as_a_whole_read_checks_it() {
    let dir = tempfile::tempdir().unwrap();
    let file = unusual_labels_file(dir.path(), 40);
    let cases: [&[&str]; 12] = [
        // On e0000001, far from the end: refused (its preview is then read).
        &["@", "early"],
        &["@", "early", "--force"],
        // Cleared before the part read: free.
        &["@", "gone"],
        // On the leaf already (set before the leaf was written).
        &["f0000099", "ahead"],
        &["@", "ahead"],
        &["@~3", "ahead", "--force"],
        // Begins an id written with escapes, far from the end: warned about.
        &["@", "abcd"],
        &["@", "fresh"],
        &["@", "broken"],
        &["@", "nowhere"],
        &["@", "hi"],
        &["@~2", "early", "--dry-run"],
    ];
    for args in cases {
        let whole = label_with_tip(&file, "100000000000", args);
        for tip in ["300", "2000"] {
            let part = label_with_tip(&file, tip, args);
            assert_eq!(part, whole, "{args:?} tip={tip}");
        }
    }
    // What the cases rest on, as a whole read sees it.
    let (code, _, stderr, _) = label_with_tip(&file, "100000000000", &["@", "early"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("'early' already labels e0000001 (first)"), "{stderr}");
    let (code, _, stderr, _) = label_with_tip(&file, "100000000000", &["@", "hi"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("'hi' already labels f0000001"), "{stderr}");
    let (code, _, stderr, _) = label_with_tip(&file, "100000000000", &["@", "abcd"]);
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.contains("is also the beginning of an entry id"), "{stderr}");
    let (code, _, stderr, appended) = label_with_tip(&file, "100000000000", &["@", "ahead"]);
    assert_eq!((code, appended.len()), (0, 0), "{stderr}");
    assert!(stderr.contains("already labelled ahead"), "{stderr}");
    let (code, _, _, appended) = label_with_tip(&file, "100000000000", &["@", "gone"]);
    assert_eq!((code, appended.len()), (0, 1));
    let (_, _, _, appended) = label_with_tip(&file, "100000000000", &["@~3", "ahead", "--force"]);
    assert_eq!(appended.len(), 2, "the name moves: cleared on f0000099, set on @~3");
}
