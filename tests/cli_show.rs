//! `pi-session show`: one entry in full.

mod common;

use common::{cmd, entry_lines, example, fixture, run_ok};
use std::path::Path;

/// The value of a `name     value` field line of `show`'s header.
fn field<'a>(out: &'a str, name: &str) -> Option<&'a str> {
    out.lines()
        .take_while(|l| !l.is_empty())
        .find_map(|l| l.strip_prefix(&format!("{name:<9} ")))
}

fn line_of(file: &Path, id: &str) -> Vec<u8> {
    entry_lines(file)
        .into_iter()
        .map(|(_, l)| l)
        .find(|l| {
            let v: serde_json::Value = serde_json::from_slice(l).unwrap();
            v["id"] == id
        })
        .unwrap_or_else(|| panic!("no entry {id}"))
}

#[test]
fn default_is_at() {
    let out = run_ok(&example(), &["show"]);
    assert_eq!(field(&out, "entry"), Some("b8731d22 (@)"));
    assert_eq!(field(&out, "type"), Some("assistant"));
    assert_eq!(field(&out, "line"), Some("54"));
    assert_eq!(field(&out, "parent"), Some("6fe7bd1a"));
    assert!(out.ends_with("\n\n(alternative answer on a side branch)\n"), "{out}");
    assert_eq!(run_ok(&example(), &["show", "@"]), out);
}

#[test]
fn assistant_message_with_tool_calls() {
    let out = run_ok(&example(), &["show", "42d8d20f"]);
    let expected = "\
entry     42d8d20f
type      assistant
line      10
parent    1ecdd056
time      2026-11-02 10:00:17 (2026-11-02T10:00:17.000Z)
model     anthropic/claude-sonnet-4-5
stop      toolUse
usage     input 1200, output 80, cache read 0, cache write 0, total 1280 tokens
cost      $0.0048

Editing.
→ edit (call_2)
  {
    \"path\": \"src/parser.rs\",
    \"oldText\": \"loop {\",
    \"newText\": \"for tok in iter {\"
  }
→ bash (call_3)
  {
    \"command\": \"cargo test\"
  }
";
    assert_eq!(out, expected);
}

#[test]
fn rev_forms_name_the_same_entry() {
    let full = run_ok(&example(), &["show", "d2e5793f"]);
    assert_eq!(field(&full, "entry"), Some("d2e5793f"));
    assert_eq!(field(&full, "label"), Some("green"));
    for rev in ["green", "label:green", "d2e5", "id:d2e5793f", "a1f78308^", "a1f78308~1"] {
        assert_eq!(run_ok(&example(), &["show", rev]), full, "show {rev}");
    }
}

#[test]
fn user_message_and_root() {
    let out = run_ok(&example(), &["show", "80fbf1f2"]);
    assert_eq!(field(&out, "type"), Some("user"));
    assert_eq!(field(&out, "label"), Some("start"));
    assert_eq!(field(&out, "model"), None);
    assert_eq!(field(&out, "usage"), None);
    assert!(
        out.ends_with("\n\nRead src/parser.rs and explain the tokenizer.\n"),
        "{out}"
    );
    let root = run_ok(&example(), &["show", "cb75110e"]);
    assert_eq!(field(&root, "parent"), Some("none (a root)"));
    assert_eq!(field(&root, "type"), Some("model_change"));
    assert!(root.contains("\"modelId\": \"claude-sonnet-4-5\""), "{root}");
}

#[test]
fn tool_result_names_the_call_and_cuts_at_max_chars() {
    let out = run_ok(&example(), &["show", "97f4b9e9"]);
    assert_eq!(field(&out, "type"), Some("toolResult"));
    assert!(
        out.ends_with("\n\n← bash (call_3, error)\ntest result: FAILED. 1 failed\n"),
        "{out}"
    );
    let out = run_ok(&example(), &["show", "--max-chars", "11", "97f4b9e9"]);
    assert!(out.ends_with("\ntest result\n… (18 more characters)\n"), "{out}");
    // Without --max-chars, a long result is shown whole.
    let out = run_ok(&example(), &["show", "f49bcd6b"]);
    assert!(!out.contains("more characters"));
    assert!(
        out.contains("\nline 119: fn parse_119()"),
        "{}",
        &out[out.len() - 200..]
    );
}

#[test]
fn label_entry_shows_its_target() {
    let out = run_ok(&example(), &["show", "305e383a"]);
    assert_eq!(field(&out, "type"), Some("label"));
    assert_eq!(field(&out, "target"), Some("30af4c7e"));
    assert!(out.contains("\"label\": \"explained\""), "{out}");
}

#[test]
fn compaction_and_branch_summary_details() {
    let out = run_ok(&example(), &["show", "5f7822f3"]);
    assert_eq!(field(&out, "type"), Some("compaction"));
    assert_eq!(field(&out, "kept"), Some("from 335c3bd6"));
    assert_eq!(field(&out, "tokens"), Some("42000 before compaction"));
    assert!(
        out.contains("\n\n## Goal\nTokenizer refactor and benchmarks.\n"),
        "{out}"
    );
    let out = run_ok(&example(), &["show", "b7b227e2"]);
    assert_eq!(field(&out, "type"), Some("branch_summary"));
    assert_eq!(field(&out, "from"), Some("e3472b97"));
}

#[test]
fn json_prints_the_original_line() {
    for id in ["42d8d20f", "5f7822f3", "b8731d22", "6fe7bd1a"] {
        let out = cmd()
            .arg("-s")
            .arg(example())
            .args(["show", "--json", id])
            .output()
            .unwrap();
        assert!(out.status.success());
        let mut expected = line_of(&example(), id);
        expected.push(b'\n');
        assert_eq!(out.stdout, expected, "show --json {id}");
    }
    let crlf = cmd()
        .arg("-s")
        .arg(fixture("crlf.jsonl"))
        .args(["show", "--json", "1a2b3c03"])
        .output()
        .unwrap();
    let mut expected = line_of(&fixture("crlf.jsonl"), "1a2b3c03");
    expected.push(b'\n');
    assert_eq!(crlf.stdout, expected);
}

#[test]
fn missing_parent_is_reported() {
    let out = run_ok(&fixture("orphan.jsonl"), &["show", "0f0f0a01"]);
    assert_eq!(field(&out, "parent"), Some("5ca1ab1e (missing: shown as a root)"));
    let out = run_ok(&fixture("orphan.jsonl"), &["show", "0f0f0a02"]);
    assert_eq!(field(&out, "parent"), Some("0f0f0a01"));
}

#[test]
fn at_and_leaf_are_marked() {
    let file = fixture("labels.jsonl");
    let at = run_ok(&file, &["show"]);
    assert_eq!(field(&at, "entry"), Some("1a2b3c06 (@)"));
    assert_eq!(field(&at, "label"), Some("done"));
    let leaf = run_ok(&file, &["show", "1abe1007"]);
    assert_eq!(field(&leaf, "entry"), Some("1abe1007 (leaf)"));
    assert_eq!(field(&leaf, "target"), Some("1a2b3c06"));
    let other = run_ok(&file, &["show", "1a2b3c04"]);
    assert_eq!(field(&other, "entry"), Some("1a2b3c04"));
    assert_eq!(field(&other, "label"), Some("root-cause"));
}

#[test]
fn thinking_is_shown_in_a_gutter() {
    let out = run_ok(&fixture("labels.jsonl"), &["show", "1a2b3c02"]);
    assert!(
        out.contains("\n│ Run the failing test first, then read the loop.\n"),
        "{out}"
    );
}

#[test]
fn unknown_revision_fails() {
    let out = cmd().arg("-s").arg(example()).args(["show", "nope"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.starts_with("error: unknown revision 'nope'\nhint: "), "{stderr}");
}

#[test]
fn several_revisions_in_the_order_given() {
    let one = run_ok(&example(), &["show", "@~1"]);
    let two = run_ok(&example(), &["show", "@~2"]);
    let both = run_ok(&example(), &["show", "@~1", "@~2"]);
    assert_eq!(both, format!("{one}\n{two}"));
    let reversed = run_ok(&example(), &["show", "@~2", "@~1"]);
    assert_eq!(reversed, format!("{two}\n{one}"));
    // --json: one original line per revision, in order.
    let json = run_ok(&example(), &["show", "--json", "@~2", "@~1", "@~2"]);
    let lines: Vec<&str> = json.lines().collect();
    assert_eq!(lines.len(), 3);
    assert_eq!(lines[0], run_ok(&example(), &["show", "--json", "@~2"]).trim_end());
    assert_eq!(lines[1], run_ok(&example(), &["show", "--json", "@~1"]).trim_end());
    assert_eq!(lines[2], lines[0]);
    // One bad revision fails the command, and nothing is printed.
    let out = cmd()
        .arg("-s")
        .arg(example())
        .args(["show", "@~1", "nosuchrev"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(
        String::from_utf8(out.stderr)
            .unwrap()
            .contains("unknown revision 'nosuchrev'")
    );
}

#[test]
fn json_of_a_line_with_invalid_utf8_is_json_as_pi_reads_it() {
    let file = fixture("outside/invalid-utf8-json-output.jsonl");
    let out = cmd()
        .arg("-s")
        .arg(&file)
        .args(["show", "--json", "@", "@"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8(out.stdout).expect("valid UTF-8");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 2);
    for l in &lines {
        let v: serde_json::Value = serde_json::from_str(l).expect("JSON");
        assert_eq!(v["message"]["content"], "caf\u{fffd} \u{fffd}");
    }
    // Only the invalid bytes changed.
    let original = line_of_bytes(&file, 2);
    assert_eq!(lines[0].as_bytes(), String::from_utf8_lossy(&original).as_bytes());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(
        stderr,
        format!(
            "warning: {}: a line is not valid UTF-8 (line 2): printed as Pi reads it, each invalid byte \
             sequence as U+FFFD\n",
            file.display()
        )
    );
    // A valid line is printed byte for byte, without a warning.
    let out = cmd()
        .arg("-s")
        .arg(example())
        .args(["show", "--json"])
        .output()
        .unwrap();
    assert!(out.stderr.is_empty());
}

/// The bytes of physical line `n` (1-based) of a file.
fn line_of_bytes(file: &Path, n: usize) -> Vec<u8> {
    std::fs::read(file)
        .unwrap()
        .split(|&b| b == b'\n')
        .nth(n - 1)
        .unwrap()
        .to_vec()
}
