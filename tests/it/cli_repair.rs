//! `pi-session repair`: every damaged fixture of `tests/fixtures/repair/` is found, reported
//! with the right kind and action, and fixed in place so that nothing is lost: the original
//! is kept as `.bak`, every dropped or rewritten line goes to `.rejects`, and a second run
//! finds nothing more to do.

use crate::common;

use common::{Run, cmd, corpus_dir, fixture, ndjson, temp_copy};
use serde_json::Value;
use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};
use tempfile::TempDir;

/// The file name Pi gives a session: `<timestamp>_<session id>.jsonl`.
const PI_NAMED: &str = "2026-01-02T03-04-05-006Z_0196a0b0-1111-7222-8333-944455556666.jsonl";

/// `pi-session -s FILE repair ARGS…`.
fn run(file: &Path, args: &[&str]) -> Run {
    let mut full = vec!["repair"];
    full.extend_from_slice(args);
    common::run(file, &full)
}

/// `repair --json ARGS…`: (exit code, findings, the per-file summary object).
fn run_json(file: &Path, args: &[&str]) -> (i32, Vec<Value>, Value) {
    let mut full = vec!["--json"];
    full.extend_from_slice(args);
    let r = run(file, &full);
    let mut objects = ndjson(&r.stdout);
    let summary = objects
        .pop()
        .unwrap_or_else(|| panic!("repair {full:?}: no output; stderr: {}", r.stderr));
    assert!(
        summary.get("result").is_some(),
        "last object is not a summary: {summary}"
    );
    for f in &objects {
        for key in ["path", "line", "kind", "severity", "id", "message", "action"] {
            assert!(f.get(key).is_some(), "finding without {key}: {f}");
        }
        assert_eq!(f["path"], Value::String(file.to_string_lossy().into_owned()), "{f}");
    }
    (r.code, objects, summary)
}

/// A fixture of `tests/fixtures/repair/`, or of `tests/fixtures/outside/` for `outside/NAME`.
fn repair_fixture(name: &str) -> PathBuf {
    match name.strip_prefix("outside/") {
        Some(n) => fixture("outside").join(n),
        None => fixture("repair").join(name),
    }
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut s = path.as_os_str().to_owned();
    s.push(suffix);
    PathBuf::from(s)
}

/// The physical lines of `data` (bytes between `\n`), without the empty piece after a
/// final `\n`.
fn lines_of(data: &[u8]) -> Vec<&[u8]> {
    let mut v: Vec<&[u8]> = data.split(|&b| b == b'\n').collect();
    if v.last().is_some_and(|l| l.is_empty()) {
        v.pop();
    }
    v
}

/// Empty or only spaces and tabs: nothing to keep.
fn is_blank(line: &[u8]) -> bool {
    line.iter().all(|&b| b == b' ' || b == b'\t')
}

/// What a fixture is expected to report: (kind, severity, line, a piece of the action).
type Expected = &'static [(&'static str, &'static str, u32, &'static str)];

/// Everything about one repaired fixture, for the checks specific to it.
struct Repaired {
    _dir: TempDir,
    path: PathBuf,
    original: Vec<u8>,
    output: Vec<u8>,
    findings: Vec<Value>,
}

impl Repaired {
    /// The repaired file's lines as JSON.
    fn values(&self) -> Vec<Value> {
        lines_of(&self.output)
            .iter()
            .map(|l| serde_json::from_slice(l).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(l))))
            .collect()
    }

    /// The repaired entry with this id (exactly one).
    fn entry(&self, id: &str) -> Value {
        let found: Vec<Value> = self.values().into_iter().filter(|v| v["id"] == id).collect();
        assert_eq!(found.len(), 1, "{}: entries with id {id}", self.path.display());
        found.into_iter().next().unwrap()
    }

    fn action(&self, kind: &str) -> String {
        self.findings
            .iter()
            .find(|f| f["kind"] == kind)
            .and_then(|f| f["action"].as_str())
            .unwrap_or_else(|| panic!("no {kind} finding"))
            .to_owned()
    }
}

/// Runs the whole protocol on a copy of fixture `name`: `--check`, `--dry-run`, `repair`,
/// then the checks that nothing was lost and that a second run does nothing.
/// `migration`: a v1/v2 file, whose migrated lines live on only in the backup.
fn check_fixture(name: &str, expected: Expected, migration: bool) -> Repaired {
    let (dir, path) = temp_copy(&repair_fixture(name));
    let original = fs::read(&path).unwrap();
    let bak = with_suffix(&path, ".bak");
    let rejects_path = with_suffix(&path, ".rejects");
    let has_defect = expected.iter().any(|e| e.1 == "defect");
    let n_defects = expected.iter().filter(|e| e.1 == "defect").count();
    let untouched = |what: &str| {
        assert_eq!(fs::read(&path).unwrap(), original, "{name}: {what} changed the file");
        assert!(!bak.exists(), "{name}: {what} made a backup");
        assert!(!rejects_path.exists(), "{name}: {what} made a rejects file");
    };

    // --check: the findings, exit 1 on a defect.
    let (code, findings, summary) = run_json(&path, &["--check"]);
    let mut got: Vec<(String, String, u64)> = findings
        .iter()
        .map(|f| {
            (
                f["kind"].as_str().unwrap().to_owned(),
                f["severity"].as_str().unwrap().to_owned(),
                f["line"].as_u64().unwrap_or(0),
            )
        })
        .collect();
    let mut want: Vec<(String, String, u64)> = expected
        .iter()
        .map(|(k, s, l, _)| (k.to_string(), s.to_string(), *l as u64))
        .collect();
    got.sort();
    want.sort();
    assert_eq!(got, want, "{name}: findings {findings:#?}");
    for (kind, severity, _, action) in expected {
        let f = findings.iter().find(|f| f["kind"] == *kind).unwrap();
        let a = f["action"].as_str().unwrap();
        if *severity == "warning" {
            assert_eq!(a, "", "{name}: a warning has no action");
        } else {
            assert!(a.contains(action), "{name}: {kind}: action {a:?} lacks {action:?}");
        }
    }
    assert_eq!(code, if has_defect { 1 } else { 0 }, "{name}: --check exit code");
    assert_eq!(
        summary["result"],
        if has_defect { "defects" } else { "clean" },
        "{name}"
    );
    assert_eq!(summary["defects"], n_defects, "{name}");
    assert_eq!(summary["warnings"], expected.len() - n_defects, "{name}");
    assert_eq!(summary["backup"], Value::Null, "{name}");
    untouched("--check");

    // --dry-run: the same report, nothing written.
    let (code, dry_findings, dry) = run_json(&path, &["--dry-run"]);
    assert_eq!(code, 0, "{name}: --dry-run exit code");
    assert_eq!(dry_findings.len(), findings.len(), "{name}: --dry-run findings");
    assert_eq!(
        dry["result"],
        if has_defect { "would-repair" } else { "clean" },
        "{name}"
    );
    untouched("--dry-run");

    // repair (its actions name the ids it really gives).
    let (code, findings, done) = run_json(&path, &[]);
    assert_eq!(findings.len(), expected.len(), "{name}: repair findings");
    assert_eq!(code, 0, "{name}: repair exit code: {done}");
    let output = fs::read(&path).unwrap();
    if !has_defect {
        assert_eq!(done["result"], "clean", "{name}");
        untouched("repair of a file with only warnings");
    } else {
        assert_eq!(done["result"], "repaired", "{name}");
        assert_eq!(
            done["backup"],
            Value::String(bak.to_string_lossy().into_owned()),
            "{name}"
        );
        assert_eq!(fs::read(&bak).unwrap(), original, "{name}: the backup is the original");
        assert_ne!(output, original, "{name}: repair changed nothing");
        assert!(output.ends_with(b"\n"), "{name}: the output ends with a newline");
    }

    // Nothing lost: every original line is in the output, the rejects, or (a pure
    // migration) only in the backup; the rejects are exactly the lines not kept as they were.
    let out_lines: HashSet<&[u8]> = lines_of(&output).into_iter().collect();
    let not_kept: Vec<&[u8]> = lines_of(&original)
        .into_iter()
        .filter(|l| !is_blank(l) && !out_lines.contains(l))
        .collect();
    let rejects = fs::read(&rejects_path).ok();
    if migration {
        assert!(rejects.is_none(), "{name}: a pure migration rejects nothing");
        assert!(!not_kept.is_empty(), "{name}: the migration rewrote lines");
        let backup = fs::read(&bak).unwrap();
        let backup_lines: HashSet<&[u8]> = lines_of(&backup).into_iter().collect();
        for l in &not_kept {
            assert!(backup_lines.contains(l), "{name}: a line is lost");
        }
    } else if not_kept.is_empty() {
        assert!(rejects.is_none(), "{name}: a rejects file though every line was kept");
        assert_eq!(done["rejectsFile"], Value::Null, "{name}");
    } else {
        let rejects = rejects.unwrap_or_else(|| panic!("{name}: no rejects file; lost {not_kept:?}"));
        assert_eq!(
            done["rejectsFile"],
            Value::String(rejects_path.to_string_lossy().into_owned()),
            "{name}"
        );
        let got: Vec<&[u8]> = lines_of(&rejects);
        assert_eq!(
            got.iter().map(|l| String::from_utf8_lossy(l)).collect::<Vec<_>>(),
            not_kept.iter().map(|l| String::from_utf8_lossy(l)).collect::<Vec<_>>(),
            "{name}: the rejects are the lines not kept"
        );
        assert_eq!(got, not_kept, "{name}: the rejects are byte-exact");
        assert!(rejects.ends_with(b"\n"), "{name}: the rejects end with a newline");
    }

    // Idempotent: --check is now clean, a second repair changes nothing and backs up nothing.
    let rejects_after = fs::read(&rejects_path).ok();
    let r = run(&path, &["--check"]);
    assert_eq!(r.code, 0, "{name}: --check after repair: {}{}", r.stdout, r.stderr);
    let (code, again, second) = run_json(&path, &[]);
    assert_eq!(code, 0, "{name}: second repair");
    assert_eq!(second["result"], "clean", "{name}: second repair");
    assert!(
        again.iter().all(|f| f["severity"] == "warning"),
        "{name}: defects after repair: {again:#?}"
    );
    assert_eq!(
        second["after"], done["after"],
        "{name}: `after` describes the repaired file"
    );
    assert_eq!(
        fs::read(&path).unwrap(),
        output,
        "{name}: second repair changed the file"
    );
    assert!(
        !with_suffix(&path, ".bak.1").exists(),
        "{name}: second repair made a backup"
    );
    assert_eq!(
        fs::read(&rejects_path).ok(),
        rejects_after,
        "{name}: second repair added rejects"
    );
    if has_defect {
        assert_eq!(fs::read(&bak).unwrap(), original, "{name}: the backup was kept");
    }

    Repaired {
        _dir: dir,
        path,
        original,
        output,
        findings,
    }
}

#[test]
fn malformed_middle_line_is_dropped() {
    let r = check_fixture(
        "malformed-middle.jsonl",
        &[("malformed-line", "defect", 4, "drop it")],
        false,
    );
    assert_eq!(lines_of(&r.output).len(), lines_of(&r.original).len() - 1);
}

#[test]
fn torn_last_line_is_dropped() {
    let r = check_fixture(
        "torn-last-line.jsonl",
        &[("torn-last-line", "defect", 6, "drop it")],
        false,
    );
    assert!(!r.original.ends_with(b"\n"));
    assert_eq!(lines_of(&r.output), lines_of(&r.original)[..5].to_vec());
}

#[test]
fn nul_bytes_after_the_last_newline_are_dropped() {
    let r = check_fixture("nul-tail.jsonl", &[("nul-bytes", "defect", 6, "drop them")], false);
    let n = r.original.iter().rposition(|&b| b == b'\n').unwrap();
    assert_eq!(r.output, r.original[..=n].to_vec(), "the file up to its last newline");
}

#[test]
fn nul_bytes_glued_to_the_last_line_are_stripped() {
    let r = check_fixture(
        "nul-glued.jsonl",
        &[
            ("nul-bytes", "defect", 5, "strip them"),
            ("missing-final-newline", "defect", 5, "end it with a newline"),
        ],
        false,
    );
    let mut want: Vec<u8> = r.original.iter().copied().filter(|&b| b != 0).collect();
    want.push(b'\n');
    assert_eq!(r.output, want);
}

#[test]
fn bom_is_stripped() {
    let r = check_fixture("bom.jsonl", &[("bom", "defect", 1, "strip it")], false);
    assert_eq!(r.output, r.original[3..].to_vec());
}

#[test]
fn crlf_becomes_lf() {
    let r = check_fixture("crlf.jsonl", &[("crlf", "defect", 1, "strip the CRs")], false);
    let want: Vec<u8> = r.original.iter().copied().filter(|&b| b != b'\r').collect();
    assert_eq!(r.output, want);
    assert_eq!(r.findings[0]["lines"], serde_json::json!([1, 2, 3, 4, 5]));
}

#[test]
fn blank_lines_are_dropped() {
    let r = check_fixture("blank-lines.jsonl", &[("blank-lines", "defect", 2, "drop them")], false);
    let want: Vec<&[u8]> = lines_of(&r.original).into_iter().filter(|l| !is_blank(l)).collect();
    assert_eq!(lines_of(&r.output), want);
    assert_eq!(r.findings[0]["lines"], serde_json::json!([2, 4, 6, 8, 10, 11]));
}

#[test]
fn invalid_utf8_becomes_replacement_characters() {
    let r = check_fixture("invalid-utf8.jsonl", &[("invalid-utf8", "defect", 6, "U+FFFD")], false);
    let text = r.entry("a8a8aa05")["message"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        text.contains("stray byte: \u{fffd} (Latin-1 \"caf\u{fffd}\u{fffd}\")"),
        "{text}"
    );
    assert!(std::str::from_utf8(&r.output).is_ok());
}

#[test]
fn missing_header_is_made_with_the_id_from_the_file_name() {
    let r = check_fixture(PI_NAMED, &[("missing-header", "defect", 1, "add one")], false);
    let header = &r.values()[0];
    assert_eq!(header["type"], "session");
    assert_eq!(header["version"], 3);
    assert_eq!(header["id"], "0196a0b0-1111-7222-8333-944455556666");
    assert_eq!(
        header["timestamp"], "2026-01-02T03:00:03.000Z",
        "the first entry's timestamp"
    );
    // Every original line follows, unchanged.
    assert_eq!(lines_of(&r.output)[1..].to_vec(), lines_of(&r.original));
}

#[test]
fn misplaced_header_moves_to_the_top() {
    let r = check_fixture(
        "misplaced-header.jsonl",
        &[("misplaced-header", "defect", 3, "move it to the top")],
        false,
    );
    let orig = lines_of(&r.original);
    assert_eq!(lines_of(&r.output), vec![orig[2], orig[0], orig[1], orig[3], orig[4]]);
}

#[test]
fn header_without_id_gets_one() {
    let r = check_fixture(
        "header-without-id.jsonl",
        &[("header-without-id", "defect", 1, "give it the id")],
        false,
    );
    let header = &r.values()[0];
    assert_eq!(header["type"], "session");
    let id = header["id"].as_str().unwrap();
    assert!(uuid_like(id), "{id}");
    assert_eq!(lines_of(&r.output)[1..].to_vec(), lines_of(&r.original)[1..].to_vec());
}

fn uuid_like(s: &str) -> bool {
    s.len() == 36
        && s.chars()
            .enumerate()
            .all(|(i, c)| matches!(i, 8 | 13 | 18 | 23) == (c == '-'))
}

#[test]
fn second_header_is_dropped() {
    let r = check_fixture("extra-header.jsonl", &[("extra-header", "defect", 4, "drop it")], false);
    let orig = lines_of(&r.original);
    assert_eq!(lines_of(&r.output), vec![orig[0], orig[1], orig[2], orig[4], orig[5]]);
}

#[test]
fn v1_is_migrated() {
    let r = check_fixture("v1.jsonl", &[("old-format", "defect", 1, "migrate it to v3")], true);
    let v = r.values();
    assert_eq!(v[0]["version"], 3);
    assert_eq!(v[0]["id"], "4c1e9a30-2f6b-4d8e-9b1a-7e3c5d0f2a13");
    let mut prev = Value::Null;
    for e in &v[1..] {
        let id = e["id"].as_str().expect("every entry has an id");
        assert_eq!(id.len(), 8);
        assert_eq!(e["parentId"], prev, "entries are chained in file order");
        prev = e["id"].clone();
    }
    let compaction = v.iter().find(|e| e["type"] == "compaction").unwrap();
    assert!(compaction.get("firstKeptEntryIndex").is_none());
    // firstKeptEntryIndex 3 counts the header as 0: the user message on line 4.
    assert_eq!(compaction["firstKeptEntryId"], v[3]["id"]);
    assert_eq!(v[3]["message"]["content"][0]["text"], "Make it accept trailing commas.");
}

#[test]
fn v2_is_migrated() {
    let r = check_fixture(
        "v2.jsonl",
        &[("old-format", "defect", 1, "hookMessage roles become custom")],
        true,
    );
    let v = r.values();
    assert_eq!(v[0]["version"], 3);
    assert_eq!(r.entry("b4b4aa02")["message"]["role"], "custom");
    assert!(!String::from_utf8_lossy(&r.output).contains("hookMessage"));
    // Lines without a hookMessage are unchanged.
    let orig = lines_of(&r.original);
    let out = lines_of(&r.output);
    assert_eq!(out.len(), orig.len());
    for k in [1, 3, 4, 5] {
        assert_eq!(out[k], orig[k], "line {}", k + 1);
    }
}

#[test]
fn duplicate_ids_renumber_the_earlier_entry_and_its_child() {
    let r = check_fixture(
        "duplicate-ids.jsonl",
        &[("duplicate-id", "defect", 3, "keep b5b5aadd on line 6")],
        false,
    );
    let action = r.action("duplicate-id");
    assert!(action.contains("go back under"), "{action}");
    // The later entry keeps the id; the earlier gets a fresh one, named in the action.
    let later = r.entry("b5b5aadd");
    assert_eq!(later["message"]["content"][0]["text"], "Edition 2021, from Cargo.toml.");
    let fresh = action
        .split("line 3 → ")
        .nth(1)
        .map(|s| &s[..8])
        .unwrap_or_else(|| panic!("{action}"));
    let earlier = r.entry(fresh);
    assert_eq!(earlier["message"]["content"][0]["text"], "It uses edition 2021.");
    assert_eq!(earlier["parentId"], "b5b5aa01");
    // The child written between the two goes back under the earlier one; the child
    // written after the later one (on the leaf's branch) stays.
    assert_eq!(r.entry("b5b5aa03")["parentId"], fresh);
    assert_eq!(r.entry("b5b5aa06")["parentId"], "b5b5aadd");
}

#[test]
fn orphan_becomes_a_root() {
    let r = check_fixture("orphan.jsonl", &[("orphan", "defect", 6, "make it a root")], false);
    assert_eq!(r.entry("b6b6aa05")["parentId"], Value::Null);
    assert_eq!(r.entry("b6b6aa06")["parentId"], "b6b6aa05");
}

#[test]
fn parent_cycle_is_cut_at_its_earliest_entry() {
    let r = check_fixture(
        "parent-cycle.jsonl",
        &[("parent-cycle", "defect", 4, "make this entry a root")],
        false,
    );
    assert_eq!(r.entry("b7b7aa0a")["parentId"], Value::Null);
    assert_eq!(r.entry("b7b7aa0b")["parentId"], "b7b7aa0a");
    assert_eq!(r.entry("b7b7aa05")["parentId"], "b7b7aa0b");
}

#[test]
fn self_parent_becomes_a_root() {
    let r = check_fixture(
        "self-parent.jsonl",
        &[("self-parent", "defect", 4, "make this entry a root")],
        false,
    );
    assert_eq!(r.entry("b8b8aa03")["parentId"], Value::Null);
    assert_eq!(r.entry("b8b8aa04")["parentId"], "b8b8aa03");
}

#[test]
fn dangling_label_is_dropped_and_its_child_moves_up() {
    let r = check_fixture(
        "dangling-label.jsonl",
        &[("dangling-label", "defect", 6, "drop it")],
        false,
    );
    assert!(r.values().iter().all(|v| v["type"] != "label"));
    assert_eq!(r.entry("b9b9aa05")["parentId"], "b9b9aa04");
}

#[test]
fn dangling_context_edit_is_dropped() {
    let r = check_fixture(
        "dangling-context-edit.jsonl",
        &[("dangling-context-edit", "defect", 6, "drop it")],
        false,
    );
    let orig = lines_of(&r.original);
    assert_eq!(lines_of(&r.output), orig[..5].to_vec());
}

#[test]
fn context_edit_without_replacement_is_dropped() {
    let r = check_fixture(
        "context-edit-without-replacement.jsonl",
        &[("context-edit-without-replacement", "defect", 6, "drop it")],
        false,
    );
    assert!(r.values().iter().all(|v| v["type"] != "context_edit"));
    assert_eq!(r.entry("c1c1aa05")["parentId"], "c1c1aa04");
}

#[test]
fn compaction_keeping_from_off_its_path_keeps_nothing() {
    let r = check_fixture(
        "dangling-first-kept.jsonl",
        &[(
            "dangling-first-kept",
            "defect",
            7,
            "point firstKeptEntryId at the compaction itself",
        )],
        false,
    );
    assert_eq!(r.entry("c2c2ab01")["firstKeptEntryId"], "c2c2ab01");
}

#[test]
fn entry_without_id_gets_one() {
    let r = check_fixture("missing-id.jsonl", &[("missing-id", "defect", 6, "give it id ")], false);
    let action = r.action("missing-id");
    let id = action.strip_prefix("give it id ").unwrap();
    let e = r.entry(id);
    assert_eq!(e["type"], "model_change");
    assert_eq!(e["parentId"], "c3c3aa04");
}

#[test]
fn joined_lines_are_split() {
    let r = check_fixture(
        "joined-lines.jsonl",
        &[("joined-lines", "defect", 3, "split it into one line per object")],
        false,
    );
    let out = lines_of(&r.output);
    assert_eq!(out.len(), 5);
    let joined = lines_of(&r.original)[2];
    assert_eq!([out[2], out[3]].concat(), joined.to_vec());
}

#[test]
fn tool_result_without_its_call_is_only_a_warning() {
    check_fixture(
        "orphan-tool-result.jsonl",
        &[("orphan-tool-result", "warning", 6, "")],
        false,
    );
}

#[test]
fn unanswered_tool_call_is_only_a_warning() {
    check_fixture(
        "unanswered-tool-call.jsonl",
        &[("unanswered-tool-call", "warning", 3, "")],
        false,
    );
}

/// Every fixture in the folder has a test above (a new fixture needs one).
#[test]
fn every_fixture_is_covered() {
    let source = include_str!("cli_repair.rs");
    let mut names: Vec<String> = fs::read_dir(fixture("repair"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".jsonl"))
        .collect();
    names.sort();
    assert!(names.len() >= 26, "{names:?}");
    for n in names {
        let quoted = format!("\"{n}\"");
        assert!(source.contains(&quoted) || n == PI_NAMED, "fixture {n} has no test");
    }
}

#[test]
fn clean_file_is_left_alone() {
    let (_dir, path) = temp_copy(&corpus_dir().join("pi-built.v3.jsonl"));
    let original = fs::read(&path).unwrap();
    let r = run(&path, &["--check"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let (code, findings, summary) = run_json(&path, &[]);
    assert_eq!(code, 0);
    assert!(findings.iter().all(|f| f["severity"] == "warning"), "{findings:#?}");
    assert_eq!(summary["result"], "clean");
    assert_eq!(summary["backup"], Value::Null);
    assert_eq!(summary["rejectsFile"], Value::Null);
    assert_eq!(fs::read(&path).unwrap(), original);
    assert!(!with_suffix(&path, ".bak").exists());
    assert!(!with_suffix(&path, ".rejects").exists());
    assert_eq!(
        fs::read_dir(path.parent().unwrap()).unwrap().count(),
        1,
        "no other file"
    );
}

#[test]
fn human_output_names_the_backup_and_the_rejects() {
    let (_dir, path) = temp_copy(&repair_fixture("malformed-middle.jsonl"));
    let r = run(&path, &["--check"]);
    assert_eq!(r.code, 1);
    assert!(r.stdout.contains(":4: defect malformed-line:"), "{}", r.stdout);
    assert!(
        r.stdout.contains("1 defect; run `pi-session repair` to fix"),
        "{}",
        r.stdout
    );
    let r = run(&path, &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(
        r.stdout.contains("repaired 1 defect; original kept as "),
        "{}",
        r.stdout
    );
    assert!(r.stdout.contains(".jsonl.bak"), "{}", r.stdout);
    assert!(r.stdout.contains("1 line dropped or rewritten"), "{}", r.stdout);
    assert!(r.stdout.contains("Pi then reads: leaf a1a1aa05"), "{}", r.stdout);
    let r = run(&path, &[]);
    assert_eq!(r.code, 0);
    assert!(r.stdout.trim_end().ends_with(": clean"), "{}", r.stdout);
}

#[test]
fn second_backup_is_numbered() {
    let (_dir, path) = temp_copy(&repair_fixture("crlf.jsonl"));
    let original = fs::read(&path).unwrap();
    let bak = with_suffix(&path, ".bak");
    fs::write(&bak, b"an older backup\n").unwrap();
    let (code, _, summary) = run_json(&path, &[]);
    assert_eq!(code, 0);
    let bak1 = with_suffix(&path, ".bak.1");
    assert_eq!(summary["backup"], Value::String(bak1.to_string_lossy().into_owned()));
    assert_eq!(
        fs::read(&bak).unwrap(),
        b"an older backup\n",
        "the older backup is kept"
    );
    assert_eq!(fs::read(&bak1).unwrap(), original);
    assert!(!with_suffix(&path, ".bak.2").exists());
}

#[test]
fn rejects_are_appended_to_an_existing_rejects_file() {
    let (_dir, path) = temp_copy(&repair_fixture("malformed-middle.jsonl"));
    let original = fs::read(&path).unwrap();
    let rejects = with_suffix(&path, ".rejects");
    fs::write(&rejects, b"older reject\n").unwrap();
    let (code, _, _) = run_json(&path, &[]);
    assert_eq!(code, 0);
    let mut want = b"older reject\n".to_vec();
    want.extend_from_slice(lines_of(&original)[3]);
    want.push(b'\n');
    assert_eq!(fs::read(&rejects).unwrap(), want);
}

/// A temporary agent dir: `sessions/--a--/x.jsonl` damaged, `sessions/--b--/y.jsonl` clean.
fn agent_dir() -> (TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let a = dir.path().join("sessions/--a--");
    let b = dir.path().join("sessions/--b--");
    fs::create_dir_all(&a).unwrap();
    fs::create_dir_all(&b).unwrap();
    let x = a.join("x.jsonl");
    let y = b.join("y.jsonl");
    fs::copy(repair_fixture("malformed-middle.jsonl"), &x).unwrap();
    fs::copy(corpus_dir().join("pi-built.v3.jsonl"), &y).unwrap();
    (dir, x, y)
}

fn run_all(agent: &Path, args: &[&str]) -> Run {
    let out = cmd()
        .env("PI_CODING_AGENT_DIR", agent)
        .args(["repair", "--all"])
        .args(args)
        .output()
        .unwrap();
    Run {
        code: out.status.code().unwrap(),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

/// The summary table rows: session → result.
fn table(stdout: &str) -> Vec<(String, String)> {
    let mut rows = Vec::new();
    let mut in_table = false;
    for line in stdout.lines() {
        if line.starts_with("result") && line.trim_end().ends_with("session") {
            in_table = true;
            continue;
        }
        if in_table {
            let mut parts = line.split_whitespace();
            let (Some(result), Some(session), None) = (parts.next(), parts.next(), parts.next()) else {
                break;
            };
            rows.push((session.to_owned(), result.to_owned()));
        }
    }
    rows
}

#[test]
fn all_sessions_are_checked_and_repaired() {
    let (dir, x, y) = agent_dir();
    let x_before = fs::read(&x).unwrap();
    let y_before = fs::read(&y).unwrap();

    let r = run_all(dir.path(), &["--check"]);
    assert_eq!(
        r.code, 1,
        "--all --check with a damaged session: {}{}",
        r.stdout, r.stderr
    );
    assert_eq!(
        table(&r.stdout),
        vec![
            ("--a--/x.jsonl".to_owned(), "defects".to_owned()),
            ("--b--/y.jsonl".to_owned(), "clean".to_owned())
        ],
        "{}",
        r.stdout
    );
    assert_eq!(fs::read(&x).unwrap(), x_before, "--check writes nothing");

    let r = run_all(dir.path(), &[]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert_eq!(
        table(&r.stdout),
        vec![
            ("--a--/x.jsonl".to_owned(), "repaired".to_owned()),
            ("--b--/y.jsonl".to_owned(), "clean".to_owned())
        ],
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("2 sessions: 1 clean, 1 repaired, 0 with defects"),
        "{}",
        r.stdout
    );
    assert_eq!(fs::read(with_suffix(&x, ".bak")).unwrap(), x_before);
    assert_ne!(fs::read(&x).unwrap(), x_before);
    assert_eq!(fs::read(&y).unwrap(), y_before, "the clean session is untouched");
    assert!(!with_suffix(&y, ".bak").exists());

    let r = run_all(dir.path(), &["--check"]);
    assert_eq!(r.code, 0, "after repair: {}{}", r.stdout, r.stderr);
    let rows = table(&r.stdout);
    assert!(rows.iter().all(|(_, result)| result == "clean"), "{rows:?}");
    assert_eq!(rows.len(), 2, "the backups are not sessions: {rows:?}");
}

#[test]
fn all_with_json_prints_one_summary_per_file() {
    let (dir, x, y) = agent_dir();
    let r = run_all(dir.path(), &["--json", "--dry-run"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let summaries: Vec<Value> = ndjson(&r.stdout)
        .into_iter()
        .filter(|v| v.get("result").is_some())
        .collect();
    assert_eq!(summaries.len(), 2);
    assert_eq!(summaries[0]["path"], Value::String(x.to_string_lossy().into_owned()));
    assert_eq!(summaries[0]["result"], "would-repair");
    assert_eq!(summaries[1]["path"], Value::String(y.to_string_lossy().into_owned()));
    assert_eq!(summaries[1]["result"], "clean");
    assert!(!with_suffix(&x, ".bak").exists());
}

#[test]
fn a_locked_file_is_not_repaired() {
    let (_dir, path) = temp_copy(&repair_fixture("malformed-middle.jsonl"));
    let original = fs::read(&path).unwrap();
    let holder = fs::File::open(&path).unwrap();
    holder.try_lock().expect("the test takes the lock");
    let out = cmd()
        .env("PI_SESSION_LOCK_TIMEOUT", "0.3")
        .arg("-s")
        .arg(&path)
        .arg("repair")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "repair of a locked file succeeded");
    assert!(stderr.contains("locked"), "{stderr}");
    assert_eq!(fs::read(&path).unwrap(), original);
    assert!(!with_suffix(&path, ".bak").exists());
    assert!(!with_suffix(&path, ".rejects").exists());
    drop(holder);
    let r = run(&path, &[]);
    assert_eq!(r.code, 0, "once the lock is released: {}", r.stderr);
}

/// `--check` and `--dry-run` write nothing, so they read a file they could not write (under
/// a shared lock); `repair` itself then fails and leaves it alone.
#[test]
fn check_and_dry_run_read_a_read_only_file() {
    use std::os::unix::fs::PermissionsExt;
    let (dir, path) = temp_copy(&repair_fixture("malformed-middle.jsonl"));
    let original = fs::read(&path).unwrap();
    fs::set_permissions(&path, fs::Permissions::from_mode(0o444)).unwrap();
    // Another reader holds a shared lock, as a concurrent `--check` would: readers go on,
    // a repair waits.
    let holder = fs::File::open(&path).unwrap();
    holder.try_lock_shared().expect("the test takes a shared lock");
    let r = run(&path, &["--check"]);
    assert_eq!(r.code, 1, "{}", r.stderr);
    assert!(r.stdout.contains("malformed-line"), "{}", r.stdout);
    let r = run(&path, &["--dry-run"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("would fix 1 defect"), "{}", r.stdout);
    assert_eq!(fs::read(&path).unwrap(), original);
    let mut names: Vec<String> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["malformed-middle.jsonl"]);
    let out = cmd()
        .env("PI_SESSION_LOCK_TIMEOUT", "0.2")
        .arg("-s")
        .arg(&path)
        .arg("repair")
        .output()
        .unwrap();
    assert!(!out.status.success(), "repair went on under a reader's lock");
    assert_eq!(fs::read(&path).unwrap(), original);
    drop(holder);
}

// ---- reproducers from outside testers (tests/fixtures/outside/) ----

/// The number of messages `context --json` sends.
fn context_len(path: &Path) -> usize {
    ndjson(&common::run_ok(path, &["context", "--json"])).len()
}

/// A lone surrogate escape (`\ud83d`, which Pi writes when output is cut inside an emoji,
/// and reads back) in a user message's string content is no damage: repair leaves the
/// file alone and every message stays in the context (Pi sends 3).
#[test]
fn lone_surrogate_in_user_string_is_not_damage() {
    let r = check_fixture("outside/lone-surrogate-user-string.jsonl", &[], false);
    assert_eq!(r.output, r.original);
    assert_eq!(context_len(&r.path), 3);
}

/// The same in the middle of a session: Pi sends all 4 messages (repair once dropped the
/// line unreported and re-rooted the next entry, leaving 1).
#[test]
fn lone_surrogate_mid_session_is_not_damage() {
    let r = check_fixture("outside/lone-surrogate-user-string-midsession.jsonl", &[], false);
    assert_eq!(r.output, r.original);
    assert_eq!(context_len(&r.path), 4);
    let log = common::run_ok(&r.path, &["log", "--json"]);
    assert_eq!(ndjson(&log).len(), 4, "{log}");
}

/// Lines Pi reads that serde_json does not: `--check` is clean and `context`, `show` and
/// `grep` read them as Pi does.
#[test]
fn lines_json_parse_reads_are_clean_and_read() {
    for (name, messages, warnings, needle) in [
        ("lone-surrogate-text-block.jsonl", 3, 0, "ok"),
        ("number-out-of-range.jsonl", 2, 0, "hi"),
        ("deep-nesting-128.jsonl", 2, 1, "ok"),
    ] {
        let (_dir, path) = temp_copy(&fixture("outside").join(name));
        let original = fs::read(&path).unwrap();
        let (code, findings, summary) = run_json(&path, &["--check"]);
        assert_eq!(code, 0, "{name}: {findings:#?}");
        assert_eq!(summary["defects"], 0, "{name}");
        assert_eq!(findings.len(), warnings, "{name}: {findings:#?}");
        assert_eq!(context_len(&path), messages, "{name}: context");
        let r = run(&path, &[]);
        assert_eq!(r.code, 0, "{name}: {}", r.stderr);
        assert_eq!(
            fs::read(&path).unwrap(),
            original,
            "{name}: repair of a clean file wrote"
        );
        // Every message shows its text, and grep finds it.
        let shown = common::run_ok(&path, &["show", "aaaa0002"]);
        assert!(
            shown.contains(needle) || name.starts_with("number"),
            "{name}: show: {shown}"
        );
        let shown = common::run_ok(&path, &["show", "aaaa0001"]);
        assert!(shown.contains("hi"), "{name}: show: {shown}");
        let found = common::run(&path, &["grep", needle]);
        assert_eq!(found.code, 0, "{name}: grep {needle}: {}{}", found.stdout, found.stderr);
        assert!(found.stdout.contains(needle), "{name}: grep: {}", found.stdout);
    }
}

/// A header ending `\r\r` and a line ending `\r\r\r` (Pi reads both: `JSON.parse` takes
/// `\r` as whitespace): repair strips every CR, and the result settles.
#[test]
fn several_trailing_crs_are_stripped() {
    let r = check_fixture(
        "outside/header-double-cr.jsonl",
        &[("crlf", "defect", 1, "strip the CRs")],
        false,
    );
    let want: Vec<u8> = r.original.iter().copied().filter(|&b| b != b'\r').collect();
    assert_eq!(r.output, want);
    let r = check_fixture(
        "outside/line-triple-cr.jsonl",
        &[("crlf", "defect", 2, "strip the CRs")],
        false,
    );
    let want: Vec<u8> = r.original.iter().copied().filter(|&b| b != b'\r').collect();
    assert_eq!(r.output, want);
}

/// A JSON value that is not an object (`42`) before the header: Pi refuses the file
/// ("not a valid session"), so every read command does too; repair drops the line (kept in
/// the rejects) and says why.
#[test]
fn non_object_before_the_header_is_refused_and_repaired() {
    let src = fixture("outside").join("nonobject-before-header.jsonl");
    let r = common::run(&src, &["context"]);
    assert_ne!(r.code, 0, "{}", r.stdout);
    assert!(r.stderr.contains("not a Pi session"), "{}", r.stderr);
    assert!(r.stderr.contains("line 1"), "{}", r.stderr);
    assert_eq!(r.stdout, "");
    let r = check_fixture(
        "outside/nonobject-before-header.jsonl",
        &[("malformed-line", "defect", 1, "drop it")],
        false,
    );
    let message = r.findings[0]["message"].as_str().unwrap();
    assert!(message.contains("Pi refuses the file"), "{message}");
    assert_eq!(r.output, r.original[3..].to_vec());
    assert_eq!(context_len(&r.path), 1);
}

/// Falsy values before the header (`null`, `0`, `false`, `""`) are skipped by Pi, which
/// opens the file; so do the read commands.
#[test]
fn falsy_values_before_the_header_are_skipped() {
    let header = fs::read(fixture("outside").join("nonobject-before-header.jsonl")).unwrap();
    let dir = tempfile::tempdir().unwrap();
    for junk in ["null", "0", "false", "\"\"", "-0"] {
        let path = dir.path().join("s.jsonl");
        let mut data = format!("{junk}\n").into_bytes();
        data.extend_from_slice(&header[3..]);
        fs::write(&path, &data).unwrap();
        let r = common::run(&path, &["context", "--json"]);
        assert_eq!(r.code, 0, "{junk}: {}", r.stderr);
        assert_eq!(ndjson(&r.stdout).len(), 1, "{junk}");
    }
    for junk in ["42", "[]", "\"x\"", "true", "1e400"] {
        let path = dir.path().join("s.jsonl");
        let mut data = format!("{junk}\n").into_bytes();
        data.extend_from_slice(&header[3..]);
        fs::write(&path, &data).unwrap();
        let r = common::run(&path, &["context", "--json"]);
        assert_ne!(r.code, 0, "{junk}: Pi refuses");
        assert!(r.stderr.contains("not a Pi session"), "{junk}: {}", r.stderr);
    }
}

/// Pi appends without a lock: a Pi-like writer (one `write` of a whole `\r\n`-terminated
/// line on a freshly opened O_APPEND file every few milliseconds) runs while repair loops on
/// the session. Every appended entry ends up in the session, none only in a backup.
#[test]
fn lines_appended_while_repair_runs_are_kept() {
    use std::io::Write;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};
    let (_dir, path) = temp_copy(&repair_fixture("malformed-middle.jsonl"));
    // A bigger file, so that each repair takes a while.
    let mut data = fs::read(&path).unwrap();
    let mut parent = "1a2b3c05".to_owned();
    for k in 0..3000 {
        let id = format!("f{k:07}");
        data.extend_from_slice(
            format!(
                r#"{{"type":"message","id":"{id}","parentId":"{parent}","timestamp":"2026-01-01T00:00:01.000Z","message":{{"role":"user","content":"filler {k} {}","timestamp":1}}}}"#,
                "x".repeat(200)
            )
            .as_bytes(),
        );
        data.push(b'\n');
        parent = id;
    }
    fs::write(&path, &data).unwrap();

    const N: usize = 300;
    let done = Arc::new(AtomicBool::new(false));
    let writer = {
        let path = path.clone();
        let done = done.clone();
        std::thread::spawn(move || {
            let mut parent = parent;
            let mut seed = 12345u64;
            for k in 0..N {
                let id = format!("w{k:07}");
                let line = format!(
                    "{{\"type\":\"message\",\"id\":\"{id}\",\"parentId\":\"{parent}\",\"timestamp\":\"2026-01-01T00:00:02.000Z\",\"message\":{{\"role\":\"user\",\"content\":\"appended {k}\",\"timestamp\":2}}}}\r\n"
                );
                let mut f = fs::OpenOptions::new().append(true).open(&path).unwrap();
                f.write_all(line.as_bytes()).unwrap();
                drop(f);
                parent = id;
                seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                std::thread::sleep(std::time::Duration::from_millis((seed >> 33) % 12));
            }
            done.store(true, Ordering::SeqCst);
        })
    };
    let mut runs = 0;
    let mut repaired = 0;
    while !done.load(Ordering::SeqCst) || runs < 2 {
        let r = run(&path, &[]);
        runs += 1;
        if r.stdout.contains("repaired") {
            repaired += 1;
        }
    }
    writer.join().unwrap();
    let r = run(&path, &[]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    // Repairs went through while the writer ran (they once refused, or lost lines).
    assert!(repaired >= 1, "{repaired} repairs in {runs} runs");

    let text = fs::read_to_string(&path).unwrap();
    let ids: Vec<String> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|v| v["id"].as_str().map(str::to_owned))
        .filter(|id| id.starts_with('w'))
        .collect();
    let want: Vec<String> = (0..N).map(|k| format!("w{k:07}")).collect();
    assert_eq!(ids, want, "every appended entry, once, in order");
    // And they form one chain: nothing was re-rooted.
    let last = common::run_ok(&path, &["log", "--json"]);
    assert_eq!(
        ndjson(&last)
            .iter()
            .filter(|e| e["id"].as_str().is_some_and(|i| i.starts_with('w')))
            .count(),
        N
    );
}

/// Entries Pi 1.6.0 throws on (a message entry whose `message` is null or missing, a session
/// name that is not a string) fail `--check`, and `repair` drops them into `.rejects`.
#[test]
fn entries_pi_throws_on_are_defects() {
    for (name, kind) in [
        ("message-null.jsonl", "message-without-message"),
        ("no-message-field.jsonl", "message-without-message"),
        ("session-info-name-object.jsonl", "session-name-not-a-string"),
    ] {
        let (_dir, file) = common::temp_copy(&common::fixture(&format!("outside-2/{name}")));
        let r = common::unchanged(&file, &["repair", "--check"], 1);
        assert!(
            r.stdout.contains(kind) || r.stderr.contains(kind),
            "{name}: {} {}",
            r.stdout,
            r.stderr
        );
        let out = common::run(&file, &["repair"]);
        assert_eq!(out.code, 0, "{name}: {}", out.stderr);
        let rejects =
            String::from_utf8_lossy(&std::fs::read(file.with_extension("jsonl.rejects")).unwrap()).into_owned();
        let dropped = rejects.lines().next().unwrap_or_default();
        assert!(dropped.contains("0002\""), "{name}: the dropped line first: {rejects}");
        common::unchanged(&file, &["repair", "--check"], 0);
        // The entry below the dropped one now hangs under its parent.
        let entries = common::entry_lines(&file);
        assert_eq!(entries.len(), 2, "{name}");
    }
}

// ---- safe writes ----

/// A session reached through a symbolic link: `dir/real/NAME` and the link `dir/link.jsonl`.
fn linked_copy(src: &Path) -> (TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    fs::create_dir(dir.path().join("real")).unwrap();
    let real = dir.path().join("real").join(src.file_name().unwrap());
    fs::copy(src, &real).unwrap();
    let link = dir.path().join("link.jsonl");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    (dir, real, link)
}

/// Repairing through a link rewrites the file it points to, beside it (backup and rejects
/// there too); the link stays a link.
#[test]
fn a_symlinked_session_is_repaired_where_it_is() {
    let (dir, real, link) = linked_copy(&repair_fixture("malformed-middle.jsonl"));
    let original = fs::read(&real).unwrap();
    let (code, _, summary) = run_json(&link, &[]);
    assert_eq!(code, 0, "{summary}");
    assert_eq!(summary["result"], "repaired");
    assert!(
        fs::symlink_metadata(&link).unwrap().file_type().is_symlink(),
        "the link stays a link"
    );
    assert_eq!(fs::read_link(&link).unwrap(), real);
    let real = fs::canonicalize(&real).unwrap();
    let bak = with_suffix(&real, ".bak");
    assert_eq!(summary["backup"], Value::String(bak.to_string_lossy().into_owned()));
    assert_eq!(
        fs::read(&bak).unwrap(),
        original,
        "the backup is the file, not the link"
    );
    assert_eq!(
        fs::read(with_suffix(&real, ".rejects")).unwrap(),
        [lines_of(&original)[3], b"\n"].concat()
    );
    assert_eq!(run(&link, &["--check"]).code, 0, "the file itself was repaired");
    let mut top: Vec<String> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    top.sort();
    assert_eq!(top, ["link.jsonl", "real"], "nothing written beside the link");
}

/// A `.rejects` that is a link is never written through: repair refuses, and nothing changes.
#[test]
fn a_symlinked_rejects_file_is_refused() {
    let (dir, path) = temp_copy(&repair_fixture("malformed-middle.jsonl"));
    let original = fs::read(&path).unwrap();
    let elsewhere = dir.path().join("elsewhere.txt");
    fs::write(&elsewhere, b"not yours\n").unwrap();
    std::os::unix::fs::symlink(&elsewhere, with_suffix(&path, ".rejects")).unwrap();
    let r = run(&path, &[]);
    assert_eq!(r.code, 1, "{} {}", r.stdout, r.stderr);
    assert!(r.stderr.contains("not a regular file"), "{}", r.stderr);
    assert_eq!(fs::read(&path).unwrap(), original);
    assert_eq!(fs::read(&elsewhere).unwrap(), b"not yours\n");
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 3, "no backup, no temp file");
}

/// `pi-session ARGS…` with a file size limit of one block and SIGXFSZ ignored, so that a
/// write past it fails as on a full disk (with "File too large" rather than "No space left").
pub fn run_with_full_disk(args: &[&std::ffi::OsStr]) -> Run {
    let out = cmd_with_full_disk().args(args).output().unwrap();
    Run {
        code: out.status.code().unwrap(),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

fn cmd_with_full_disk() -> std::process::Command {
    let mut c = std::process::Command::new("sh");
    c.arg("-c")
        .arg(r#"ulimit -f 1 && trap '' XFSZ && exec "$0" "$@""#)
        .arg(env!("CARGO_BIN_EXE_pi-session"))
        .env_remove("PI_CODING_AGENT_DIR")
        .env_remove("PI_CODING_AGENT_SESSION_DIR")
        .env("XDG_CACHE_HOME", common::cache_home())
        .env("NO_COLOR", "1");
    c
}

/// A write that fails (here: the disk is full) says what it could not do and why, and
/// leaves everything as it was.
#[test]
fn a_full_disk_is_reported_with_the_os_error() {
    let (dir, path) = temp_copy(&repair_fixture("malformed-middle.jsonl"));
    let original = fs::read(&path).unwrap();
    let r = run_with_full_disk(&["-s".as_ref(), path.as_os_str(), "repair".as_ref()]);
    assert_eq!(r.code, 1, "{} {}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains("cannot write ") && r.stderr.contains(".repair.") && r.stderr.contains("File too large"),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains("cannot read"), "{}", r.stderr);
    assert_eq!(fs::read(&path).unwrap(), original);
    assert_eq!(
        fs::read_dir(dir.path()).unwrap().count(),
        1,
        "no temp file, backup or rejects"
    );
}

/// Makes `path` impossible to write to: mode 0444, or, for root (whom modes do not stop),
/// immutable with `chattr +i`. False when neither works here.
pub fn make_read_only(path: &Path) -> bool {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    if fs::metadata(path).unwrap().uid() != 0 {
        fs::set_permissions(path, fs::Permissions::from_mode(0o444)).unwrap();
        return true;
    }
    std::process::Command::new("chattr")
        .arg("+i")
        .arg(path)
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
        && fs::OpenOptions::new().append(true).open(path).is_err()
}

/// Undoes [`make_read_only`] (an immutable file could not be removed with its folder).
pub fn make_writable(path: &Path) {
    let _ = std::process::Command::new("chattr")
        .arg("-i")
        .arg(path)
        .stderr(std::process::Stdio::null())
        .status();
}

/// A file that may not be written is not "cannot read", nor a wrong `-s`.
#[test]
fn a_read_only_file_is_reported_as_one() {
    let (_dir, path) = temp_copy(&repair_fixture("malformed-middle.jsonl"));
    let original = fs::read(&path).unwrap();
    if !make_read_only(&path) {
        crate::common::skip("running as root, and chattr +i is not available to make a file read-only");
        return;
    }
    let r = run(&path, &[]);
    make_writable(&path);
    assert_eq!(r.code, 1, "{} {}", r.stdout, r.stderr);
    assert!(r.stderr.contains("error: cannot write "), "{}", r.stderr);
    assert!(
        r.stderr.contains("Permission denied") || r.stderr.contains("Operation not permitted"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr
            .contains("hint: check that you may write to the file and to its folder"),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains("-s/--session"), "{}", r.stderr);
    assert_eq!(fs::read(&path).unwrap(), original);
}

/// Temp files a killed repair left (its process gone) are removed by the next repair of the
/// file, which says so; the rejects it had prepared are not added, so nothing is there twice.
#[test]
fn a_killed_repairs_temp_files_are_removed_by_the_next() {
    let (dir, path) = temp_copy(&repair_fixture("malformed-middle.jsonl"));
    let original = fs::read(&path).unwrap();
    // Above the largest process id Linux hands out (2^22): a process that is gone.
    let stale = [
        ".malformed-middle.jsonl.repair.4999999.tmp",
        ".malformed-middle.jsonl.rejects.4999999.tmp",
    ];
    for s in stale {
        fs::write(dir.path().join(s), b"left behind\n").unwrap();
    }
    let r = run(&path, &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    for s in stale {
        assert!(!dir.path().join(s).exists(), "{s} removed");
        assert!(
            r.stderr
                .contains(&format!("note: removed {}", dir.path().join(s).display())),
            "{}",
            r.stderr
        );
    }
    assert_eq!(
        fs::read(with_suffix(&path, ".rejects")).unwrap(),
        [lines_of(&original)[3], b"\n"].concat(),
        "the rejects once"
    );
    let mut names: Vec<String> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(
        names,
        [
            "malformed-middle.jsonl",
            "malformed-middle.jsonl.bak",
            "malformed-middle.jsonl.rejects"
        ]
    );
}

/// Ctrl-C during a repair leaves the file as it was, and nothing beside it: no temp file,
/// backup or rejects (a rerun then repairs it once).
#[test]
fn an_interrupted_repair_leaves_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("big.jsonl");
    let mut text = String::from(
        r#"{"type":"session","version":3,"id":"s-big","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#,
    );
    text.push('\n');
    let body = "lorem ipsum dolor sit amet ".repeat(10);
    for i in 0..30_000 {
        let parent = if i == 0 {
            "null".to_owned()
        } else {
            format!("\"m{:07x}\"", i - 1)
        };
        text.push_str(&format!(
            r#"{{"type":"message","id":"m{i:07x}","parentId":{parent},"timestamp":"2026-01-01T00:00:01.000Z","message":{{"role":"user","content":"{i} {body}","timestamp":1}}}}"#
        ));
        text.push('\n');
        if i == 15_000 {
            text.push_str("not json\n");
        }
    }
    fs::write(&path, &text).unwrap();
    for attempt in 0..3 {
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_pi-session"))
            .env("XDG_CACHE_HOME", common::cache_home())
            .arg("-s")
            .arg(&path)
            .arg("repair")
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
        assert!(temp_seen, "the repair ended before it could be interrupted");
        let _ = std::process::Command::new("kill")
            .arg("-INT")
            .arg(child.id().to_string())
            .status();
        let out = child.wait_with_output().unwrap();
        if out.status.code() == Some(0) {
            // It finished first: start again from the damaged file.
            eprintln!("attempt {attempt}: the repair finished before the signal; again");
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
        assert!(fs::read(&path).unwrap() == text.as_bytes(), "the file is as it was");
        let names: Vec<String> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(names, ["big.jsonl"]);
        return;
    }
    panic!("the repair always finished before the signal");
}
