//! Interop with Pi 1.6.0 for `prune`: the pruned file opens in Pi without being rewritten,
//! with the same leaf (or a checkout record standing for it), `@` and context, and Pi's
//! entries lack exactly the pruned ones.

use crate::cli_prune::{session_lines, write_session};
use crate::common;

use common::oracle::run_oracle;
use common::{corpus_files, fixture, ndjson, run, temp_copy};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

fn files() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = corpus_files()
        .into_iter()
        .filter(|p| p.to_string_lossy().contains(".v3."))
        .collect();
    for f in ["labels.jsonl", "several-roots.jsonl", "compaction-context-edit.jsonl"] {
        v.push(fixture(f));
    }
    v
}

/// Every entry line of the file, parsed (the header and lines that are no objects left out).
fn entries(file: &Path) -> Vec<Value> {
    std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .skip(1)
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|v| v.is_object() && v["type"] != "session")
        .collect()
}

/// What pruning `rev` must drop, worked out from the lines alone: `rev` and every entry
/// below it, and the labels of those that nothing else continues from.
fn expected_drop(file: &Path, rev: &str) -> HashSet<String> {
    let all = entries(file);
    let id = |v: &Value| v["id"].as_str().map(str::to_owned);
    let mut children: HashMap<String, Vec<String>> = HashMap::new();
    for e in &all {
        if let (Some(i), Some(p)) = (id(e), e["parentId"].as_str()) {
            children.entry(p.to_owned()).or_default().push(i);
        }
    }
    let mut drop = HashSet::new();
    let mut stack = vec![rev.to_owned()];
    while let Some(i) = stack.pop() {
        if drop.insert(i.clone()) {
            stack.extend(children.get(&i).cloned().unwrap_or_default());
        }
    }
    for e in &all {
        let (Some(i), Some(t)) = (id(e), e["targetId"].as_str()) else {
            continue;
        };
        let free = children.get(&i).is_none_or(|c| c.iter().all(|c| drop.contains(c)));
        if e["type"] == "label" && drop.contains(t) && free {
            drop.insert(i);
        }
    }
    drop
}

/// Prunes `rev` from a copy of `file` and checks what Pi sees of the result.
fn check(file: &Path, copy: &Path, rev: &str) {
    let what = format!("{} prune {rev}", file.display());
    let Some(before) = run_oracle(copy, &[]) else { return };
    let expected = expected_drop(copy, rev);
    let r = run(copy, &["prune", "--json", &format!("id:{rev}")]);
    assert_eq!(r.code, 0, "{what}: {}", r.stderr);
    let records = ndjson(&r.stdout);
    let file_record = records.last().unwrap();
    let dropped: HashSet<String> = records[..records.len() - 1]
        .iter()
        .map(|v| v["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(dropped, expected, "{what}: dropped");
    let pi = run_oracle(copy, &[]).unwrap();
    assert_eq!(pi["rewritten"], false, "{what}: Pi rewrote the file");
    assert_eq!(pi["at"], before["at"], "{what}: @");
    match file_record["record"].as_str() {
        None => assert_eq!(pi["leaf"], before["leaf"], "{what}: leaf"),
        Some(record) => assert_eq!(pi["leaf"], record, "{what}: the checkout record is the leaf"),
    }
    assert_eq!(pi["contextJson"], before["contextJson"], "{what}: context");
    assert_eq!(pi["branch"], before["branch"], "{what}: branch");
    let ids = |v: &Value| -> Vec<String> {
        v["entries"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|e| e["id"].as_str().map(str::to_owned))
            .collect()
    };
    let mut want: Vec<String> = ids(&before).into_iter().filter(|i| !expected.contains(i)).collect();
    want.extend(file_record["record"].as_str().map(str::to_owned));
    assert_eq!(ids(&pi), want, "{what}: Pi's entries lack exactly the pruned ones");
}

/// An entry off Pi's branch whose parent is on it (or a root off it): the top of a branch.
fn branch_top(pi: &Value) -> Option<String> {
    let on: HashSet<&str> = pi["branch"].as_array()?.iter().filter_map(|v| v.as_str()).collect();
    pi["entries"].as_array()?.iter().find_map(|e| {
        let id = e["id"].as_str()?;
        let parent_on = e["parentId"].as_str().is_none_or(|p| on.contains(p));
        (!on.contains(id) && parent_on && e["type"] != "label").then(|| id.to_owned())
    })
}

#[test]
fn pruned_sessions_open_in_pi_with_the_same_leaf_and_context() {
    let mut tested = 0;
    for file in files() {
        let Some(pi) = run_oracle(&file, &[]) else { return };
        let Some(top) = branch_top(&pi) else { continue };
        let (_dir, copy) = temp_copy(&file);
        check(&file, &copy, &top);
        tested += 1;
    }
    let (_dir, own) = write_session(&session_lines());
    if run_oracle(&own, &[]).is_none() {
        return;
    }
    check(Path::new("(cli_prune session)"), &own, "x");
    assert!(tested > 0, "no file of the corpus has a branch off @'s");
}

#[test]
fn a_pruned_last_label_leaves_pi_at_the_same_place() {
    let mut lines = session_lines();
    lines.push(
        r#"{"type":"label","id":"L2","parentId":"d","timestamp":"2026-01-01T00:00:05.000Z","targetId":"x","label":"again"}"#
            .into(),
    );
    let (_dir, file) = write_session(&lines);
    check(Path::new("(session ending in a label of x)"), &file, "x");
}
