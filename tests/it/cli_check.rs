//! `pi-session check`: each budget and rule passing and failing, the config file, the three
//! outputs (human, --json, --format github) and --junit, several sessions, exit statuses.

use crate::common;

use common::{cmd, ndjson, run, unchanged};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// A session in `/p` with a side branch (s1: $1, writes outside the project) and the main
/// branch at the end (a1: $0.50, reads and edits src/a.rs, the edit fails; a2: $0.75,
/// 150,000 tokens of a 200,000 window, writes docs/x.md and runs bash; u2 holds a token).
fn session(dir: &Path) -> PathBuf {
    let ts = |s: u32| format!("2026-01-01T00:00:{s:02}.000Z");
    let call =
        |id: &str, name: &str, args: Value| json!({"type": "toolCall", "id": id, "name": name, "arguments": args});
    let usage = |total: u32, cost: f64| {
        json!({"input": total - 100, "output": 100, "cacheRead": 0, "cacheWrite": 0,
        "totalTokens": total, "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": cost}})
    };
    let assistant = |id: &str, parent: &str, s: u32, calls: Vec<Value>, usage: Value| {
        json!({"type": "message", "id": id, "parentId": parent, "timestamp": ts(s),
               "message": {"role": "assistant", "content": calls, "provider": "anthropic",
                           "model": "claude-sonnet-4-5", "usage": usage, "stopReason": "toolUse"}})
    };
    let result = |id: &str, parent: &str, s: u32, call: &str, name: &str, error: bool| {
        json!({"type": "message", "id": id, "parentId": parent, "timestamp": ts(s),
               "message": {"role": "toolResult", "toolCallId": call, "toolName": name,
                           "content": [{"type": "text", "text": "done"}], "isError": error}})
    };
    let user = |id: &str, parent: Option<&str>, s: u32, text: &str| {
        json!({"type": "message", "id": id, "parentId": parent, "timestamp": ts(s),
               "message": {"role": "user", "content": text}})
    };
    let token = format!("{}{}", "ghp_", "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8");
    let lines = [
        json!({"type": "session", "version": 3, "id": "s", "timestamp": ts(0), "cwd": "/p"}),
        user("u1", None, 1, "hi"),
        assistant(
            "s1",
            "u1",
            2,
            vec![call("c0", "write", json!({"path": "../outside.txt"}))],
            usage(1000, 1.0),
        ),
        assistant(
            "a1",
            "u1",
            3,
            vec![
                call("c1", "read", json!({"path": "src/a.rs"})),
                call("c2", "edit", json!({"path": "src/a.rs"})),
            ],
            usage(1100, 0.5),
        ),
        result("r1", "a1", 4, "c1", "read", false),
        result("r2", "r1", 5, "c2", "edit", true),
        assistant(
            "a2",
            "r2",
            6,
            vec![
                call("c3", "write", json!({"path": "/p/docs/x.md"})),
                call("c4", "bash", json!({"command": "ls"})),
            ],
            usage(150_000, 0.75),
        ),
        result("r3", "a2", 7, "c3", "write", false),
        result("r4", "r3", 8, "c4", "bash", false),
        user("u2", Some("r4"), 9, &format!("use {token}")),
    ];
    let path = dir.join("s.jsonl");
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, text).unwrap();
    path
}

/// `check --json ARGS` on `file`: the exit status and the records by rule.
fn verdicts(file: &Path, args: &[&str]) -> (i32, Vec<Value>) {
    let r = run(file, &[&["check", "--json", "--no-own-keys"], args].concat());
    (r.code, ndjson(&r.stdout))
}

fn verdict(file: &Path, args: &[&str]) -> Value {
    let (code, records) = verdicts(file, args);
    assert_eq!(records.len(), 1, "{records:?}");
    let v = records.into_iter().next().unwrap();
    assert_eq!(code, if v["pass"] == json!(true) { 0 } else { 1 }, "{v}");
    v
}

fn ids(v: &Value) -> Vec<&str> {
    v["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["id"].as_str().unwrap_or("-"))
        .collect()
}

#[test]
fn budgets_pass_within_and_fail_at_the_entry_that_went_over() {
    let dir = tempfile::tempdir().unwrap();
    let f = session(dir.path());
    let v = verdict(&f, &["--max-cost", "2.25"]);
    assert_eq!(
        (&v["rule"], &v["value"], &v["pass"]),
        (&json!("max-cost"), &json!(2.25), &json!(true))
    );
    // In file order: s1 ($1) then a1 ($0.50) passes $1.20.
    let v = verdict(&f, &["--max-cost", "1.2"]);
    assert_eq!((&v["limit"], &v["pass"]), (&json!(1.2), &json!(false)));
    assert_eq!(ids(&v), ["a1"]);
    let v = verdict(&f, &["--max-tokens", "2000"]);
    assert_eq!((&v["value"], ids(&v)), (&json!(152_100), vec!["a1"]));
    let v = verdict(&f, &["--max-tool-calls", "4"]);
    assert_eq!((&v["value"], ids(&v)), (&json!(5), vec!["a2"]));
    assert_eq!(verdict(&f, &["--max-tool-calls", "5"])["pass"], json!(true));
    let v = verdict(&f, &["--max-turns", "2"]);
    assert_eq!((&v["value"], ids(&v)), (&json!(3), vec!["a2"]));
    let v = verdict(&f, &["--max-context", "70"]);
    assert_eq!((&v["value"], ids(&v)), (&json!(75), vec!["a2"]));
    assert_eq!(verdict(&f, &["--max-context", "75"])["pass"], json!(true));
}

#[test]
fn branch_counts_only_the_branch_of_at() {
    let dir = tempfile::tempdir().unwrap();
    let f = session(dir.path());
    assert_eq!(verdict(&f, &["--max-cost", "1.25"])["pass"], json!(false));
    let v = verdict(&f, &["--max-cost", "1.25", "--branch"]);
    assert_eq!((&v["value"], &v["pass"]), (&json!(1.25), &json!(true)));
    assert_eq!(verdict(&f, &["--max-turns", "2", "--branch"])["pass"], json!(true));
}

#[test]
fn tool_rules() {
    let dir = tempfile::tempdir().unwrap();
    let f = session(dir.path());
    let v = verdict(&f, &["--no-tool-errors"]);
    assert_eq!(
        (&v["rule"], &v["value"], ids(&v)),
        (&json!("no-tool-errors"), &json!(1), vec!["r2"])
    );
    assert_eq!(verdict(&f, &["--max-tool-errors", "1"])["pass"], json!(true));
    let v = verdict(&f, &["--forbid-tool", "bash", "grep"]);
    assert_eq!((&v["limit"], ids(&v)), (&json!(["bash", "grep"]), vec!["a2"]));
    assert_eq!(verdict(&f, &["--forbid-tool", "grep"])["pass"], json!(true));
    let v = verdict(&f, &["--require-tool", "read", "grep", "find"]);
    assert_eq!((&v["value"], &v["pass"]), (&json!(["grep", "find"]), &json!(false)));
    assert_eq!(verdict(&f, &["--require-tool", "read", "bash"])["pass"], json!(true));
}

#[test]
fn paths_are_gitignore_globs_from_the_working_directory() {
    let dir = tempfile::tempdir().unwrap();
    let f = session(dir.path());
    let v = verdict(&f, &["--paths", "src/**", "*.md"]);
    assert_eq!(
        v["entries"],
        json!([{"id": "s1", "line": 3, "note": "changes ../outside.txt"}])
    );
    assert_eq!(
        verdict(&f, &["--paths", "src/**", "*.md", "--branch"])["pass"],
        json!(true)
    );
    // Reads do not count; docs/x.md was written by an absolute path inside /p.
    let v = verdict(&f, &["--paths", "/src/", "--branch"]);
    assert_eq!(v["entries"][0]["note"], json!("changes /p/docs/x.md"));
    assert_eq!(
        verdict(&f, &["--paths", "src/", "docs/", "--branch"])["pass"],
        json!(true)
    );
    assert_eq!(
        verdict(&f, &["--paths", "src/", "docs/", "!docs/x.md", "--branch"])["pass"],
        json!(false)
    );
}

#[test]
fn secrets_are_found_and_never_printed() {
    let dir = tempfile::tempdir().unwrap();
    let f = session(dir.path());
    let v = verdict(&f, &["--no-secrets"]);
    assert_eq!((&v["value"], ids(&v)), (&json!(1), vec!["u2"]));
    let human = run(&f, &["check", "--no-secrets", "--no-own-keys"]);
    assert_eq!(human.code, 1);
    assert!(
        human.stdout.contains("FAIL  no-secrets") && human.stdout.contains("line 10 u2"),
        "{}",
        human.stdout
    );
    assert!(!human.stdout.contains("a1B2c3D4e5F6") && !human.stderr.contains("a1B2c3D4e5F6"));
    // Without the message that holds it, nothing is found.
    let text: String = std::fs::read_to_string(&f)
        .unwrap()
        .lines()
        .filter(|l| !l.contains("\"u2\""))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&f, text).unwrap();
    let v = verdict(&f, &["--no-secrets"]);
    assert_eq!((&v["value"], &v["pass"]), (&json!(0), &json!(true)));
}

#[test]
fn valid_is_what_repair_check_finds() {
    let dir = tempfile::tempdir().unwrap();
    let f = session(dir.path());
    assert_eq!(verdict(&f, &["--valid"])["pass"], json!(true));
    let mut text = std::fs::read_to_string(&f).unwrap();
    text.push_str("{not json\n");
    std::fs::write(&f, text).unwrap();
    let v = verdict(&f, &["--valid"]);
    assert_eq!((&v["value"], &v["entries"][0]["line"]), (&json!(1), &json!(11)));
}

#[test]
fn human_summary_github_annotations_and_exit_statuses() {
    let dir = tempfile::tempdir().unwrap();
    let f = session(dir.path());
    let ok = unchanged(&f, &["check", "--max-cost", "5", "--max-turns", "9"], 0);
    assert!(
        ok.stdout.contains("ok    max-cost") && ok.stdout.contains("ok    max-turns"),
        "{}",
        ok.stdout
    );
    assert!(ok.stderr.contains("every rule holds in 1 session"), "{}", ok.stderr);
    let bad = unchanged(
        &f,
        &[
            "check",
            "--max-cost",
            "1",
            "--forbid-tool",
            "bash",
            "--format",
            "github",
        ],
        1,
    );
    let lines: Vec<&str> = bad.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{}", bad.stdout);
    let file = f.display().to_string().replace(':', "%3A").replace(',', "%2C");
    assert_eq!(
        lines[0],
        format!(
            "::error file={file},line=4,title=pi-session check%3A max-cost::cost $2.2500, over the budget of $1%0Aline 4: the total reached $1.5000"
        )
    );
    assert!(lines[1].starts_with(&format!(
        "::error file={file},line=7,title=pi-session check%3A forbid-tool::"
    )));
    assert!(
        bad.stderr.contains("2 rules failed in 1 of 1 session"),
        "{}",
        bad.stderr
    );
}

#[test]
fn config_file_and_usage_errors() {
    let dir = tempfile::tempdir().unwrap();
    let f = session(dir.path());
    let config = dir.path().join("policy.toml");
    std::fs::write(&config, "max-cost = 1\nforbid-tool = [\"bash\"]\nbranch = true\n").unwrap();
    let c = config.to_str().unwrap();
    let (code, records) = verdicts(&f, &["--config", c]);
    assert_eq!(code, 1);
    let rules: Vec<(&str, bool)> = records
        .iter()
        .map(|r| (r["rule"].as_str().unwrap(), r["pass"] == json!(true)))
        .collect();
    assert_eq!(rules, [("max-cost", false), ("forbid-tool", false)]);
    // The command line replaces what the file says.
    let (_, records) = verdicts(&f, &["--config", c, "--max-cost", "9", "--forbid-tool", "grep"]);
    assert!(records.iter().all(|r| r["pass"] == json!(true)), "{records:?}");

    std::fs::write(&config, "max-costs = 1\n").unwrap();
    let r = unchanged(&f, &["check", "--config", c], 2);
    assert!(r.stderr.contains("max-costs"), "{}", r.stderr);
    let r = unchanged(&f, &["check"], 2);
    assert!(r.stderr.contains("nothing to check"), "{}", r.stderr);
    unchanged(&f, &["check", "--max-cost", "-1"], 2);
    unchanged(&f, &["check", "--max-turns", "x"], 2);
    unchanged(&f, &["check", "--paths", "a/{b", "--branch"], 2);
}

#[test]
fn junit_has_a_suite_per_session_a_case_per_rule_and_a_failure_per_failed_rule() {
    let dir = tempfile::tempdir().unwrap();
    let f = session(dir.path());
    let other = dir.path().join("other.jsonl");
    std::fs::write(
        &other,
        "{\"type\":\"session\",\"version\":3,\"id\":\"o\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/p\"}\n",
    )
    .unwrap();
    let xml = dir.path().join("report.xml");
    let args = |extra: &[&str]| -> Vec<String> {
        let mut a: Vec<String> = ["-s", f.to_str().unwrap(), "-s", other.to_str().unwrap(), "check"]
            .map(String::from)
            .to_vec();
        a.extend(["--max-turns", "2", "--no-tool-errors", "--junit", xml.to_str().unwrap()].map(String::from));
        a.extend(extra.iter().map(|s| s.to_string()));
        a
    };
    cmd().args(args(&[])).assert().code(1);
    let text = std::fs::read_to_string(&xml).unwrap();
    let doc = roxmltree::Document::parse(&text).unwrap();
    let root = doc.root_element();
    assert_eq!(root.tag_name().name(), "testsuites");
    assert_eq!(
        (root.attribute("tests"), root.attribute("failures")),
        (Some("4"), Some("2"))
    );
    let suites: Vec<_> = root.children().filter(|n| n.is_element()).collect();
    assert_eq!(suites.len(), 2);
    for s in &suites {
        assert_eq!(s.tag_name().name(), "testsuite");
        let cases: Vec<_> = s.children().filter(|n| n.is_element()).collect();
        assert_eq!(cases.len(), 2);
        assert!(
            cases
                .iter()
                .all(|c| c.tag_name().name() == "testcase" && c.attribute("classname").is_some())
        );
    }
    assert_eq!(suites[0].attribute("name"), f.to_str());
    let failures: Vec<_> = suites[0].descendants().filter(|n| n.has_tag_name("failure")).collect();
    assert_eq!(failures.len(), 2);
    assert_eq!(failures[0].attribute("type"), Some("max-turns"));
    assert!(failures[1].text().unwrap().contains("line 6 entry r2: edit failed"));
    assert_eq!(suites[1].descendants().filter(|n| n.has_tag_name("failure")).count(), 0);
    // An existing report is kept unless --force.
    let before = std::fs::read(&xml).unwrap();
    std::fs::write(&xml, "keep").unwrap();
    cmd().args(args(&[])).assert().code(2);
    assert_eq!(std::fs::read(&xml).unwrap(), b"keep");
    cmd().args(args(&["--force"])).assert().code(1);
    assert_eq!(std::fs::read(&xml).unwrap(), before);
}

#[test]
fn several_sessions_and_one_that_cannot_be_read() {
    let dir = tempfile::tempdir().unwrap();
    let f = session(dir.path());
    let missing = dir.path().join("missing.jsonl");
    let out = cmd()
        .args(["-s", f.to_str().unwrap(), "-s", missing.to_str().unwrap()])
        .args(["check", "--json", "--max-turns", "9"])
        .output()
        .unwrap();
    // The missing file is an error before anything is checked.
    assert_eq!(out.status.code(), Some(2), "{}", String::from_utf8_lossy(&out.stderr));
    let empty = dir.path().join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    let out = cmd()
        .args(["-s", f.to_str().unwrap(), "-s", empty.to_str().unwrap()])
        .args(["check", "--json", "--max-turns", "9"])
        .output()
        .unwrap();
    let records = ndjson(&String::from_utf8(out.stdout).unwrap());
    assert_eq!(records.len(), 2, "{records:?}");
    assert_eq!(
        (&records[0]["rule"], &records[0]["pass"]),
        (&json!("max-turns"), &json!(true))
    );
    if records[1].get("error").is_some() {
        assert_eq!(out.status.code(), Some(2));
    } else {
        assert_eq!(out.status.code(), Some(0));
    }
}

#[test]
fn all_in_a_directory_without_sessions_is_an_error_not_a_pass() {
    let home = tempfile::tempdir().unwrap();
    let project = tempfile::tempdir().unwrap();
    let out = cmd()
        .env("HOME", home.path())
        .current_dir(project.path())
        .args(["check", "--all", "--max-turns", "3"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("no session to check") && stderr.contains("looked in"),
        "{stderr}"
    );
}

#[test]
fn unchanged_files_are_not_read_again_under_the_same_policy() {
    let dir = tempfile::tempdir().unwrap();
    let f = session(dir.path());
    let old = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    let set_old = |f: &Path| {
        let file = std::fs::OpenOptions::new().write(true).open(f).unwrap();
        file.set_modified(old).unwrap();
    };
    set_old(&f);
    assert_eq!(verdict(&f, &["--forbid-tool", "bash"])["pass"], json!(false));
    // Same size, same time, same inode: the cache cannot tell this version from the last,
    // which is how it shows it was used.
    let text = std::fs::read_to_string(&f).unwrap().replace("\"bash\"", "\"bosh\"");
    std::fs::OpenOptions::new()
        .write(true)
        .open(&f)
        .and_then(|mut file| std::io::Write::write_all(&mut file, text.as_bytes()))
        .unwrap();
    set_old(&f);
    assert_eq!(verdict(&f, &["--forbid-tool", "bash"])["pass"], json!(false));
    assert_eq!(
        verdict(&f, &["--forbid-tool", "bash", "--no-cache"])["pass"],
        json!(true)
    );
    // Another policy is checked on the file as it is.
    assert_eq!(verdict(&f, &["--forbid-tool", "bash", "--branch"])["pass"], json!(true));
}
