//! `pi-session prune`: dropping subtrees (with their labels), the rest byte for byte.

use crate::common;

use common::{ndjson, rev_parse, run, run_ok, unchanged};
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};

const HEADER: &str =
    r#"{"type":"session","version":3,"id":"s-prune","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#;

fn user(id: &str, parent: Option<&str>, text: &str) -> String {
    let parent = parent.map_or("null".to_owned(), |p| format!("\"{p}\""));
    format!(
        r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2026-01-01T00:00:01.000Z","message":{{"role":"user","content":"{text}","timestamp":1}}}}"#
    )
}

fn assistant(id: &str, parent: &str, text: &str, stop: &str) -> String {
    format!(
        r#"{{"type":"message","id":"{id}","parentId":"{parent}","timestamp":"2026-01-01T00:00:02.000Z","message":{{"role":"assistant","content":[{{"type":"text","text":"{text}"}}],"api":"anthropic-messages","provider":"anthropic","model":"m","usage":{{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}}},"stopReason":"{stop}","timestamp":2}}}}"#
    )
}

/// a - b - bs - c - d (@)
///      \         \- f1 (aborted)
///       x - y - L (label "attempt" on x)
/// bs summarizes the branch that ended at y.
pub fn session_lines() -> Vec<String> {
    vec![
        HEADER.to_owned(),
        user("a", None, "hello"),
        assistant("b", "a", "hi", "stop"),
        user("x", Some("b"), "try this"),
        assistant("y", "x", "tried", "stop"),
        r#"{"type":"label","id":"L","parentId":"y","timestamp":"2026-01-01T00:00:03.000Z","targetId":"x","label":"attempt"}"#.to_owned(),
        r#"{"type":"branch_summary","id":"bs","parentId":"b","timestamp":"2026-01-01T00:00:04.000Z","fromId":"y","summary":"tried something"}"#.to_owned(),
        user("c", Some("bs"), "other way"),
        assistant("f1", "c", "", "aborted"),
        assistant("d", "c", "done", "stop"),
    ]
}

/// The session in a fresh directory, its modification time an hour back.
pub fn write_session(lines: &[String]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    fs::write(&path, lines.join("\n") + "\n").unwrap();
    age(&path);
    (dir, path)
}

fn age(path: &Path) {
    let f = fs::OpenOptions::new().write(true).open(path).unwrap();
    f.set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(3600))
        .unwrap();
}

fn without(lines: &[String], ids: &[&str]) -> String {
    lines
        .iter()
        .filter(|l| !ids.iter().any(|id| l.contains(&format!(r#""id":"{id}""#))))
        .map(|l| format!("{l}\n"))
        .collect()
}

#[test]
fn dry_run_lists_what_would_go_and_writes_nothing() {
    let (_dir, file) = write_session(&session_lines());
    let r = unchanged(&file, &["prune", "--dry-run", "x"], 0);
    for id in ["x", "y", "L"] {
        assert!(r.stdout.contains(&format!("would drop {id}")), "{}", r.stdout);
    }
    assert!(r.stderr.contains("branch_summary bs (kept) names y"), "{}", r.stderr);
    let r = unchanged(&file, &["prune", "--dry-run", "--json", "attempt"], 0);
    let records = ndjson(&r.stdout);
    let reasons: Vec<(&str, &str)> = records[..3]
        .iter()
        .map(|v| (v["id"].as_str().unwrap(), v["reason"].as_str().unwrap()))
        .collect();
    // L is below y as well as a label of x.
    assert_eq!(reasons, [("x", "rev"), ("y", "descendant"), ("L", "descendant")]);
    let file_record = &records[3];
    assert_eq!(file_record["result"], "would-prune");
    assert_eq!(file_record["dropped"], 3);
    assert_eq!(file_record["at"], "d");
    assert_eq!(file_record["references"][0]["id"], "bs");
    assert_eq!(file_record["references"][0]["refersTo"], "y");
    assert_eq!(file_record["backup"], Value::Null);
    assert_eq!(fs::read_dir(file.parent().unwrap()).unwrap().count(), 1);
}

#[test]
fn prune_drops_the_subtree_and_its_labels_the_rest_byte_for_byte() {
    let lines = session_lines();
    let (_dir, file) = write_session(&lines);
    let context = run_ok(&file, &["context", "--json"]);
    let r = run(&file, &["prune", "x"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(fs::read_to_string(&file).unwrap(), without(&lines, &["x", "y", "L"]));
    let backup = file.with_extension("jsonl.bak");
    assert_eq!(fs::read_to_string(backup).unwrap(), lines.join("\n") + "\n");
    assert_eq!(run_ok(&file, &["context", "--json"]), context);
    assert_eq!(rev_parse(&file, "@"), "d");
    assert_eq!(run(&file, &["rev-parse", "attempt"]).code, 1);
    // Nothing left to drop below a revision that is gone.
    assert_eq!(run(&file, &["prune", "x"]).code, 1);
}

#[test]
fn prune_refuses_ats_branch_unless_forced() {
    let (_dir, file) = write_session(&session_lines());
    let r = unchanged(&file, &["prune", "c"], 1);
    assert!(r.stderr.contains("@ (d) is on what would be pruned"), "{}", r.stderr);
    unchanged(&file, &["prune", "--dry-run", "c"], 1);
    let r = run(&file, &["prune", "--force", "--json", "c"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let records = ndjson(&r.stdout);
    let last = records.last().unwrap();
    assert_eq!(last["at"], "bs");
    assert_eq!(last["movedAt"], true);
    let record = last["record"].as_str().unwrap();
    assert_eq!(rev_parse(&file, "@"), "bs");
    assert_eq!(run_ok(&file, &["rev-parse", "--leaf"]).trim(), record);
    let text = fs::read_to_string(&file).unwrap();
    let mut expected = without(&session_lines(), &["c", "d", "f1"]);
    expected.push_str(text.lines().last().unwrap());
    expected.push('\n');
    assert_eq!(text, expected);
}

#[test]
fn a_dropped_last_entry_leaves_pi_at_the_same_place() {
    let mut lines = session_lines();
    // A label of x, written last: the file's last entry, Pi's leaf.
    lines.push(
        r#"{"type":"label","id":"L2","parentId":"d","timestamp":"2026-01-01T00:00:05.000Z","targetId":"x","label":"again"}"#
            .into(),
    );
    let (_dir, file) = write_session(&lines);
    let context = run_ok(&file, &["context", "--json"]);
    let r = run(&file, &["prune", "x"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(rev_parse(&file, "@"), "d");
    assert_eq!(run_ok(&file, &["context", "--json"]), context);
    let last = common::last_entry(&file);
    assert_eq!(last["customType"], "pi-session.checkout");
    assert_eq!(last["parentId"], "d");
}

#[test]
fn empty_drops_the_branches_of_failed_replies() {
    let lines = session_lines();
    let (_dir, file) = write_session(&lines);
    let r = run(&file, &["prune", "--empty"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(fs::read_to_string(&file).unwrap(), without(&lines, &["f1"]));
    // (The rewrite just changed the file: a second run would otherwise be refused.)
    age(&file);
    let r = run(&file, &["prune", "--empty"]);
    assert_eq!(r.code, 0);
    assert!(r.stderr.contains("nothing to prune"), "{}", r.stderr);
}

#[test]
fn a_file_changed_seconds_ago_is_refused_unless_forced() {
    let lines = session_lines();
    let (_dir, file) = write_session(&lines);
    fs::write(&file, lines.join("\n") + "\n").unwrap();
    let r = unchanged(&file, &["prune", "x"], 1);
    assert!(r.stderr.contains("changed in the last few seconds"), "{}", r.stderr);
    let r = run(&file, &["prune", "--force", "x"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(fs::read_to_string(&file).unwrap(), without(&lines, &["x", "y", "L"]));
}

#[test]
fn unknown_revisions_and_missing_ones_are_refused() {
    let (_dir, file) = write_session(&session_lines());
    unchanged(&file, &["prune", "nosuch"], 1);
    unchanged(&file, &["prune"], 2);
}

#[test]
fn an_interrupted_prune_leaves_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.jsonl");
    let mut text = String::from(HEADER);
    text.push('\n');
    let body = "lorem ipsum dolor sit amet ".repeat(10);
    text.push_str(&user("side", None, "a branch to drop"));
    text.push('\n');
    for i in 0..30_000 {
        let parent = (i > 0).then(|| format!("m{:07x}", i - 1));
        text.push_str(&user(&format!("m{i:07x}"), parent.as_deref(), &format!("{i} {body}")));
        text.push('\n');
    }
    fs::write(&path, &text).unwrap();
    for attempt in 0..3 {
        age(&path);
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_pi-session"))
            .env("XDG_CACHE_HOME", common::cache_home())
            .arg("-s")
            .arg(&path)
            .args(["prune", "side"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let start = std::time::Instant::now();
        let temp_seen = loop {
            let temp = fs::read_dir(dir.path())
                .unwrap()
                .any(|e| e.unwrap().file_name().to_string_lossy().contains(".repair."));
            if temp || child.try_wait().unwrap().is_some() || start.elapsed().as_secs() > 60 {
                break temp;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        };
        if temp_seen {
            let _ = std::process::Command::new("kill")
                .arg("-INT")
                .arg(child.id().to_string())
                .status();
        }
        let out = child.wait_with_output().unwrap();
        if out.status.code() == Some(0) {
            eprintln!("attempt {attempt}: the prune finished before the signal; again");
            fs::write(&path, &text).unwrap();
            for e in fs::read_dir(dir.path()).unwrap() {
                let p = e.unwrap().path();
                if p != path {
                    fs::remove_file(p).unwrap();
                }
            }
            continue;
        }
        assert_eq!(out.status.code(), Some(130), "{}", String::from_utf8_lossy(&out.stderr));
        let names: Vec<String> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        let now = fs::read(&path).unwrap();
        if now == text.as_bytes() {
            assert_eq!(names, ["big.jsonl"]);
        } else {
            // The signal came after the rename: the prune is whole (no half file), and the
            // original is kept as the backup; no temp file either way.
            let side = format!("{}\n", user("side", None, "a branch to drop"));
            assert!(now == text.replacen(&side, "", 1).as_bytes(), "a whole prune or none");
            assert!(
                names.iter().all(|n| n == "big.jsonl" || n.ends_with(".bak")),
                "{names:?}"
            );
        }
        return;
    }
    panic!("the prune always finished before the signal");
}

#[test]
fn a_killed_prune_leaves_the_file_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.jsonl");
    let mut text = String::from(HEADER);
    text.push('\n');
    text.push_str(&user("side", None, "a branch to drop"));
    text.push('\n');
    let body = "lorem ipsum ".repeat(30);
    for i in 0..30_000 {
        let parent = (i > 0).then(|| format!("m{:07x}", i - 1));
        text.push_str(&user(&format!("m{i:07x}"), parent.as_deref(), &format!("{i} {body}")));
        text.push('\n');
    }
    fs::write(&path, &text).unwrap();
    age(&path);
    let pruned = {
        let first = text.find('\n').unwrap() + 1;
        let second = first + text[first..].find('\n').unwrap() + 1;
        format!("{}{}", &text[..first], &text[second..])
    };
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_pi-session"))
        .env("XDG_CACHE_HOME", common::cache_home())
        .arg("-s")
        .arg(&path)
        .args(["prune", "side"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while start.elapsed().as_secs() < 60 && child.try_wait().unwrap().is_none() {
        let temp = fs::read_dir(dir.path())
            .unwrap()
            .any(|e| e.unwrap().file_name().to_string_lossy().contains(".repair."));
        if temp {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    let _ = child.kill();
    let _ = child.wait();
    let now = fs::read(&path).unwrap();
    assert!(
        now == text.as_bytes() || now == pruned.as_bytes(),
        "the file is either as it was or fully pruned"
    );
    // A temp file a kill left behind is removed by the next rewrite.
    if now == text.as_bytes() {
        age(&path);
        let r = run(&path, &["prune", "side"]);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert!(fs::read(&path).unwrap() == pruned.as_bytes());
    }
    let names: Vec<String> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".repair."))
        .collect();
    assert!(names.is_empty(), "{names:?}");
}
