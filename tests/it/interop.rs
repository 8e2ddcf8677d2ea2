//! Interop with Pi 1.6.0: on every corpus file and every damaged fixture, pi-session must
//! compute what Pi computes: `@`, the branch, the tree, and the model context.

use crate::common;

use common::oracle::run_oracle;
use common::{corpus_files, entry_lines, fixture, json_eq, ndjson, run_ok};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// Files Pi reads without hanging.
fn files() -> Vec<PathBuf> {
    let mut v = corpus_files();
    for f in [
        "malformed-middle.jsonl",
        "torn-last-line.jsonl",
        "no-final-newline.jsonl",
        "crlf.jsonl",
        "orphan.jsonl",
        "several-roots.jsonl",
        "duplicate-ids.jsonl",
        "v1.jsonl",
        "v2.jsonl",
        "blank-lines.jsonl",
        "labels.jsonl",
        "compaction-context-edit.jsonl",
    ] {
        v.push(fixture(f));
    }
    for f in [
        "tree-display-order.jsonl",
        "dup-lines-false-cycle.jsonl",
        "numeric-entry-timestamp.jsonl",
        "label-non-string.jsonl",
    ] {
        v.push(fixture(&format!("outside-2/{f}")));
    }
    v
}

/// Our id for each entry index: Pi's ids, except in v1 files where Pi draws random ones
/// and we derive them from line numbers.
fn our_ids(file: &Path, pi: &Value) -> Vec<String> {
    let lines = entry_lines(file);
    let entries = pi["entries"].as_array().unwrap();
    assert_eq!(lines.len(), entries.len(), "{}: entry count", file.display());
    if is_v1(file) {
        lines.iter().map(|(n, _)| format!("{n:08x}")).collect()
    } else {
        entries
            .iter()
            .map(|e| e["id"].as_str().unwrap_or("").to_owned())
            .collect()
    }
}

/// A file whose header has no `version` (format 1).
fn is_v1(file: &Path) -> bool {
    let text = std::fs::read_to_string(file).unwrap();
    let header = text
        .lines()
        .find_map(|l| serde_json::from_str::<Value>(l).ok())
        .unwrap();
    header.get("version").is_none()
}

fn pi_index(pi: &Value, id: &Value) -> Option<usize> {
    let id = id.as_str()?;
    pi["entries"]
        .as_array()
        .unwrap()
        .iter()
        .rposition(|e| e["id"].as_str() == Some(id))
}

#[test]
fn at_and_leaf_match_pi() {
    for file in files() {
        let Some(pi) = run_oracle(&file, &[]) else { return };
        let ids = our_ids(&file, &pi);
        let at = run_ok(&file, &["rev-parse", "@"]);
        let leaf = run_ok(&file, &["rev-parse", "--leaf"]);
        let pi_at = pi_index(&pi, &pi["at"]).unwrap();
        let pi_leaf = pi["entries"].as_array().unwrap().len() - 1;
        assert_eq!(at.trim(), ids[pi_at], "{}: @", file.display());
        assert_eq!(leaf.trim(), ids[pi_leaf], "{}: leaf", file.display());
    }
}

#[test]
fn branch_matches_pi() {
    for file in files() {
        let Some(pi) = run_oracle(&file, &[]) else { return };
        let lines = entry_lines(&file);
        let out = run_ok(&file, &["log", "--json", "--reverse"]);
        let ours: Vec<&[u8]> = out.lines().map(str::as_bytes).collect();
        let expected: Vec<&[u8]> = pi["branchIndices"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| lines[i.as_u64().unwrap() as usize].1.as_slice())
            .collect();
        assert_eq!(ours, expected, "{}: branch lines", file.display());
    }
}

/// `tree --json` lists the rows Pi's `/tree` component lists, in its order, in each filter
/// mode; each row's fields are those of Pi's `getTree` node. Pi's "all" mode still hides
/// assistant messages holding only tool calls, which `--all` shows: their order is checked
/// among the others.
fn assert_tree_matches_pi(file: &Path, pi: &Value) {
    // Per Pi entry index, the id we know it by.
    let ids: Vec<String> = if is_v1(file) {
        our_ids(file, pi)
    } else {
        pi["entries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|e| e["id"].as_str().unwrap_or("").to_owned())
            .collect()
    };
    let ours_of = |id: &Value| pi_index(pi, id).map(|i| ids[i].clone());
    let view = &pi["treeView"];
    for (mode, args) in [
        ("all", &["tree", "--all", "--json"][..]),
        ("default", &["tree", "--json"]),
        ("user-only", &["tree", "--user", "--json"]),
    ] {
        if view.is_null() {
            break;
        }
        let rows = ndjson(&run_ok(file, args));
        let theirs: Vec<&str> = view[mode]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| ids[i.as_u64().unwrap() as usize].as_str())
            .collect();
        let ours: Vec<&str> = rows
            .iter()
            .filter(|r| mode != "all" || theirs.contains(&r["id"].as_str().unwrap()))
            .map(|r| r["id"].as_str().unwrap())
            .collect();
        assert_eq!(ours, theirs, "{}: /tree rows in {mode} mode", file.display());
    }
    // The fields, row by row, as a multiset: getTree's pre-order is not /tree's order.
    let rows = ndjson(&run_ok(file, &["tree", "--all", "--json"]));
    let current = ours_of(&pi["at"]);
    let mut ours: Vec<String> = rows
        .iter()
        .map(|r| {
            let id = r["id"].as_str().unwrap();
            assert_eq!(
                r["current"],
                Value::Bool(Some(id) == current.as_deref()),
                "{}: current",
                file.display()
            );
            format!(
                "{id} {} {} {} {} {} {} {}",
                r["parentId"], r["depth"], r["type"], r["role"], r["label"], r["timestamp"], r["children"]
            )
        })
        .collect();
    let mut theirs: Vec<String> = pi["tree"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            let parent = if r["parentId"].is_null() {
                Value::Null
            } else {
                ours_of(&r["parentId"]).map_or(r["parentId"].clone(), Value::String)
            };
            // A label that is not a string (`true`) is given as Pi shows it: `String(label)`.
            let label = match &r["label"] {
                Value::Bool(b) => Value::String(b.to_string()),
                Value::Number(n) => Value::String(n.to_string()),
                other => other.clone(),
            };
            format!(
                "{} {} {} {} {} {} {} {}",
                ids[r["index"].as_u64().unwrap() as usize],
                parent,
                r["depth"],
                r["type"],
                r["role"],
                label,
                r["timestamp"],
                r["children"]
            )
        })
        .collect();
    ours.sort();
    theirs.sort();
    assert_eq!(ours, theirs, "{}: tree rows", file.display());
}

#[test]
fn tree_matches_pi() {
    for file in files() {
        let Some(pi) = run_oracle(&file, &[]) else { return };
        assert_tree_matches_pi(&file, &pi);
    }
}

fn assert_context(file: &Path, ours: &[Value], theirs: &Value, what: &str) {
    let theirs = theirs["messages"].as_array().unwrap();
    assert_eq!(ours.len(), theirs.len(), "{}: {what}: message count", file.display());
    for (k, (a, b)) in ours.iter().zip(theirs).enumerate() {
        assert!(
            json_eq(a, b),
            "{}: {what}: message {k} differs\nours: {a}\npi:   {b}",
            file.display()
        );
    }
}

/// `context --json` is what Pi sends, byte for byte: one `JSON.stringify` of each message.
fn assert_context_bytes(file: &Path, ours: &str, theirs: &Value, what: &str) {
    let theirs: Vec<&str> = theirs.as_array().unwrap().iter().map(|l| l.as_str().unwrap()).collect();
    let ours: Vec<&str> = ours.lines().collect();
    assert_eq!(ours.len(), theirs.len(), "{}: {what}: message count", file.display());
    for (k, (a, b)) in ours.iter().zip(&theirs).enumerate() {
        assert_eq!(a, b, "{}: {what}: message {k} differs in its bytes", file.display());
    }
}

#[test]
fn context_matches_pi() {
    for file in files() {
        let Some(pi) = run_oracle(&file, &[]) else { return };
        let text = run_ok(&file, &["context", "--json"]);
        assert_context(&file, &ndjson(&text), &pi["context"], "context at @");
        assert_context_bytes(&file, &text, &pi["contextJson"], "context at @");
    }
}

#[test]
fn context_at_other_entries_matches_pi() {
    for file in files() {
        // Pi's v1 ids are random per run, so we cannot name entries to it.
        if is_v1(&file) {
            continue;
        }
        let Some(first) = run_oracle(&file, &[]) else { return };
        let entries = first["entries"].as_array().unwrap();
        // A spread of entries, each with an id Pi resolves.
        let n = entries.len();
        let picks: Vec<String> = [0, n / 4, n / 2, (3 * n) / 4, n.saturating_sub(2)]
            .iter()
            .filter_map(|&i| entries.get(i))
            .filter_map(|e| e["id"].as_str().map(str::to_owned))
            .collect();
        let at: Vec<&str> = picks.iter().map(String::as_str).collect();
        let Some(pi) = run_oracle(&file, &at) else { return };
        for item in pi["contextAt"].as_array().unwrap() {
            let id = item["id"].as_str().unwrap();
            let text = run_ok(&file, &["context", "--json", &format!("id:{id}")]);
            assert_context(&file, &ndjson(&text), &item["context"], &format!("context at {id}"));
            assert_context_bytes(&file, &text, &item["contextJson"], &format!("context at {id}"));
        }
    }
}

#[test]
fn cycle_tree_matches_pi_and_walks_stop() {
    let file = fixture("cycle.jsonl");
    let Some(pi) = run_oracle(&file, &[]) else { return };
    let rows = ndjson(&run_ok(&file, &["tree", "--all", "--json"]));
    let pi_rows = pi["tree"].as_array().unwrap();
    let ours: Vec<&Value> = rows.iter().map(|r| &r["id"]).collect();
    let theirs: Vec<&Value> = pi_rows.iter().map(|r| &r["id"]).collect();
    assert_eq!(ours, theirs);
    // Where Pi hangs, we answer and warn.
    let out = common::cmd()
        .arg("-s")
        .arg(&file)
        .args(["log", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("parent cycle"));
}

#[test]
fn not_a_session_is_refused_like_pi() {
    let file = fixture("not-a-session.jsonl");
    let Some(pi) = run_oracle(&file, &[]) else { return };
    assert!(pi["error"].is_string());
    common::cmd()
        .arg("-s")
        .arg(&file)
        .args(["log"])
        .assert()
        .code(1)
        .stderr(predicates::str::contains("is not a Pi session"));
}

#[test]
fn deep_chain_matches_pi() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("deep.jsonl");
    let mut s = String::from(
        r#"{"type":"session","version":3,"id":"deep","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp"}"#,
    );
    s.push('\n');
    let n = 100_000;
    for i in 0..n {
        let parent = if i == 0 {
            "null".to_owned()
        } else {
            format!("\"{:08x}\"", i - 1)
        };
        let role = if i % 2 == 0 { "user" } else { "assistant" };
        s.push_str(&format!(
            r#"{{"type":"message","id":"{i:08x}","parentId":{parent},"timestamp":"2026-01-01T00:00:00.000Z","message":{{"role":"{role}","content":[{{"type":"text","text":"m{i}"}}],"timestamp":{i}}}}}"#
        ));
        s.push('\n');
    }
    std::fs::write(&file, s).unwrap();
    let Some(pi) = run_oracle(&file, &[]) else { return };
    let ours = ndjson(&run_ok(&file, &["context", "--json"]));
    assert_context(&file, &ours, &pi["context"], "context");
    let rows = run_ok(&file, &["tree", "--all", "--json"]);
    assert_eq!(rows.lines().count(), n);
    assert_eq!(run_ok(&file, &["rev-parse", "root"]).trim(), "00000000");
}

/// The outside testers' reproducers of number, string and nesting differences, and files
/// not written by JavaScript (`5.0`, `-0`, `1e400`, integer-like keys, duplicate keys).
fn tricky_fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/outside");
    let mut v: Vec<PathBuf> = [
        "fid-number-big-integers.jsonl",
        "fid-number-exponent-spelling.jsonl",
        "fid-number-precision.jsonl",
        "fid-token-estimate-number.jsonl",
        "fid-lone-surrogate.jsonl",
        "float-misparse-context-json.jsonl",
        "number-out-of-range.jsonl",
        "deep-nesting-128.jsonl",
        "lone-surrogate-text-block.jsonl",
        "lone-surrogate-user-string.jsonl",
        "lone-surrogate-user-string-midsession.jsonl",
    ]
    .iter()
    .map(|f| dir.join(f))
    .collect();
    let mut foreign: Vec<PathBuf> = std::fs::read_dir(dir.join("foreign"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    foreign.sort();
    v.extend(foreign);
    v
}

/// Context at `@` and at every entry, tree order and compaction token counts equal Pi's,
/// the context byte for byte.
fn assert_matches_pi_everywhere(file: &Path) {
    let Some(first) = run_oracle(file, &[]) else { return };
    let text = run_ok(file, &["context", "--json"]);
    assert_context_bytes(file, &text, &first["contextJson"], "context at @");
    if !first["tree"].is_null() {
        assert_tree_matches_pi(file, &first);
    }
    let mut labels: Vec<(String, String)> = ndjson(&run_ok(file, &["label", "--list", "--json"]))
        .iter()
        .map(|r| {
            (
                r["targetId"].as_str().unwrap().to_owned(),
                r["label"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    let mut pi_labels: Vec<(String, String)> = first["labels"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (p[0].as_str().unwrap().to_owned(), p[1].as_str().unwrap().to_owned()))
        .collect();
    labels.sort();
    pi_labels.sort();
    assert_eq!(labels, pi_labels, "{}: labels", file.display());
    let ids: Vec<String> = first["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["id"].as_str().map(str::to_owned))
        .collect();
    let mut args: Vec<&str> = ids.iter().flat_map(|id| ["--at", id.as_str()]).collect();
    args.extend(["--compact", "2000", "--compact", "50"]);
    let Some(pi) = common::oracle::run_oracle_args(file, &args) else {
        return;
    };
    for item in pi["contextAt"].as_array().unwrap() {
        let id = item["id"].as_str().unwrap();
        let text = run_ok(file, &["context", "--json", &format!("id:{id}")]);
        assert_context_bytes(file, &text, &item["contextJson"], &format!("context at {id}"));
    }
    let session = pi_session::session::Session::open(file).unwrap();
    let path = session.at().map(|a| session.branch(a).path).unwrap_or_default();
    for c in pi["compactions"].as_array().unwrap() {
        let keep = c["keep"].as_f64().unwrap();
        let ours = pi_session::compaction::prepare::prepare(&session, &path, keep).ok();
        let what = format!("{} keep={keep}", file.display());
        match (&c["result"], ours) {
            (Value::Null, None) => {}
            (r, Some(p)) if !r.is_null() => {
                assert_eq!(
                    r["tokensBefore"].as_f64().unwrap(),
                    p.tokens_before,
                    "{what}: tokensBefore"
                );
                assert_eq!(r["firstKeptEntryId"], p.first_kept_id.as_str(), "{what}: cut point");
            }
            (r, p) => panic!("{what}: Pi plans {r}, we plan {:?}", p.map(|p| p.first_kept_id)),
        }
    }
}

#[test]
fn tricky_values_match_pi_byte_for_byte() {
    for file in tricky_fixtures() {
        assert_matches_pi_everywhere(&file);
    }
}

/// Sessions written by Pi's own SessionManager with random numbers of every magnitude,
/// lone surrogates, U+2028, control characters, integer-like keys and deep nesting.
#[test]
fn generated_sessions_match_pi_byte_for_byte() {
    let Some(module_dir) = common::oracle::oracle_module_dir() else {
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let out = std::process::Command::new("node")
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/gen_tricky.mjs"))
        .arg(dir.path())
        .args(["20261201", "12"])
        .env("PI_ORACLE_MODULE_DIR", module_dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let files: Vec<PathBuf> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(PathBuf::from)
        .collect();
    assert_eq!(files.len(), 12);
    for file in files {
        assert_matches_pi_everywhere(&file);
    }
}
