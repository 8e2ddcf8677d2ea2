//! Interop with Pi 1.6.0 for the write commands: after every write, Pi opens the file
//! without rewriting it, and sees exactly the leaf, context and labels promised; new
//! sessions made by clone and fork give Pi the context of the source at REV / REV's parent.

use crate::common;

use common::oracle::run_oracle;
use common::{corpus_files, fixture, json_eq, run_ok};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// v3 files Pi reads without hanging (write commands refuse v1/v2).
fn files() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = corpus_files()
        .into_iter()
        .filter(|p| p.to_string_lossy().contains(".v3."))
        .collect();
    for f in [
        "malformed-middle.jsonl",
        "torn-last-line.jsonl",
        "no-final-newline.jsonl",
        "crlf.jsonl",
        "orphan.jsonl",
        "several-roots.jsonl",
        "duplicate-ids.jsonl",
        "blank-lines.jsonl",
        "labels.jsonl",
        "compaction-context-edit.jsonl",
    ] {
        v.push(fixture(f));
    }
    v
}

fn copy_to_temp(file: &Path) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let dest = dir.path().join(file.file_name().unwrap());
    std::fs::copy(file, &dest).unwrap();
    (dir, dest)
}

fn assert_same_messages(what: &str, ours: &Value, theirs: &Value) {
    assert!(
        json_eq(&ours["messages"], &theirs["messages"]),
        "{what}: contexts differ\nafter:  {ours}\nbefore: {theirs}"
    );
    assert!(
        json_eq(&ours["thinkingLevel"], &theirs["thinkingLevel"]),
        "{what}: thinking level"
    );
    assert!(json_eq(&ours["model"], &theirs["model"]), "{what}: model");
}

fn last_line(file: &Path) -> Value {
    let text = std::fs::read_to_string(file).unwrap();
    serde_json::from_str(text.lines().last().unwrap()).unwrap()
}

/// An entry id from the middle of Pi's branch.
fn mid_branch(pi: &Value) -> String {
    let branch = pi["branch"].as_array().unwrap();
    branch[branch.len() / 2].as_str().unwrap().to_owned()
}

#[test]
fn label_keeps_pi_context_and_sets_the_label() {
    for file in files() {
        let Some(before) = run_oracle(&file, &[]) else { return };
        let (_dir, copy) = copy_to_temp(&file);
        let original = std::fs::read(&copy).unwrap();
        let mid = mid_branch(&before);
        run_ok(&copy, &["label", &format!("id:{mid}"), "interop-mark"]);
        let after_bytes = std::fs::read(&copy).unwrap();
        assert_eq!(
            &after_bytes[..original.len()],
            &original[..],
            "{}: bytes before the append",
            file.display()
        );
        let pi = run_oracle(&copy, &[]).unwrap();
        assert_eq!(pi["rewritten"], false, "{}: Pi rewrote the file", file.display());
        assert_eq!(
            pi["leaf"],
            last_line(&copy)["id"],
            "{}: leaf is the label entry",
            file.display()
        );
        assert_eq!(pi["at"], before["at"], "{}: @ unchanged", file.display());
        let labels = pi["labels"].as_array().unwrap();
        assert!(
            labels.iter().any(|l| l[0] == mid.as_str() && l[1] == "interop-mark"),
            "{}: label not seen by Pi: {labels:?}",
            file.display()
        );
        assert_same_messages(&format!("{} label", file.display()), &pi["context"], &before["context"]);
    }
}

#[test]
fn checkout_gives_pi_the_context_at_rev() {
    for file in files() {
        let Some(first) = run_oracle(&file, &[]) else { return };
        let mid = mid_branch(&first);
        let before = run_oracle(&file, &[&mid]).unwrap();
        let (_dir, copy) = copy_to_temp(&file);
        run_ok(&copy, &["checkout", &format!("id:{mid}")]);
        let pi = run_oracle(&copy, &[]).unwrap();
        assert_eq!(pi["rewritten"], false, "{}: Pi rewrote the file", file.display());
        assert_eq!(pi["at"], mid.as_str(), "{}: Pi's position", file.display());
        assert_eq!(run_ok(&copy, &["rev-parse", "@"]).trim(), mid);
        assert_same_messages(
            &format!("{} checkout", file.display()),
            &pi["context"],
            &before["contextAt"][0]["context"],
        );

        // And back.
        run_ok(&copy, &["checkout", "-"]);
        let back = run_oracle(&copy, &[]).unwrap();
        assert_eq!(back["rewritten"], false);
        assert_eq!(back["at"], first["at"], "{}: checkout - returns", file.display());
        assert_same_messages(
            &format!("{} checkout -", file.display()),
            &back["context"],
            &first["context"],
        );
    }
}

#[test]
fn checkout_empty_gives_pi_an_empty_context() {
    let file = fixture("labels.jsonl");
    let (_dir, copy) = copy_to_temp(&file);
    run_ok(&copy, &["checkout", "--empty"]);
    let Some(pi) = run_oracle(&copy, &[]) else { return };
    assert_eq!(pi["rewritten"], false);
    assert_eq!(pi["context"]["messages"].as_array().unwrap().len(), 0);
}

#[test]
fn clone_gives_pi_the_context_at_rev() {
    for file in files() {
        let Some(first) = run_oracle(&file, &[]) else { return };
        let mid = mid_branch(&first);
        let before = run_oracle(&file, &[&mid]).unwrap();
        let (_dir, copy) = copy_to_temp(&file);
        let source_bytes = std::fs::read(&copy).unwrap();
        let new = PathBuf::from(run_ok(&copy, &["clone", &format!("id:{mid}")]).trim());
        assert_eq!(std::fs::read(&copy).unwrap(), source_bytes, "clone touched the source");
        let pi = run_oracle(&new, &[]).unwrap();
        assert_eq!(pi["rewritten"], false, "{}: Pi rewrote the clone", file.display());
        assert_eq!(pi["header"]["parentSession"], copy.to_string_lossy().as_ref());
        assert_same_messages(
            &format!("{} clone", file.display()),
            &pi["context"],
            &before["contextAt"][0]["context"],
        );
        // Labels of copied entries survive.
        let branch: Vec<&Value> = pi["entries"].as_array().unwrap().iter().map(|e| &e["id"]).collect();
        for l in first["labels"].as_array().unwrap() {
            let on_path = branch.contains(&&l[0]) && pi["branch"].as_array().unwrap().contains(&l[0]);
            if on_path {
                assert!(
                    pi["labels"].as_array().unwrap().contains(l),
                    "{}: label {l} lost",
                    file.display()
                );
            }
        }
    }
}

#[test]
fn fork_gives_pi_the_context_before_the_message() {
    for file in files() {
        let Some(first) = run_oracle(&file, &[]) else { return };
        // The newest user message on the branch.
        let entries = first["entries"].as_array().unwrap();
        let user = first["branchIndices"].as_array().unwrap().iter().rev().find_map(|i| {
            let e = &entries[i.as_u64().unwrap() as usize];
            let text = std::fs::read_to_string(&file).unwrap();
            let is_user = text.lines().any(|l| {
                serde_json::from_str::<Value>(l.trim_end_matches('\r'))
                    .is_ok_and(|v| v["id"] == e["id"] && v["message"]["role"] == "user")
            });
            // Pi refuses to fork a message whose parent is missing, and so do we.
            let parent_exists = e["parentId"].is_null() || entries.iter().any(|o| o["id"] == e["parentId"]);
            (is_user && parent_exists).then(|| {
                (
                    e["id"].as_str().unwrap().to_owned(),
                    e["parentId"].as_str().map(str::to_owned),
                )
            })
        });
        let Some((user, parent)) = user else { continue };
        let (_dir, copy) = copy_to_temp(&file);
        let new = PathBuf::from(run_ok(&copy, &["fork", &format!("id:{user}")]).trim());
        let pi = run_oracle(&new, &[]).unwrap();
        assert_eq!(pi["rewritten"], false, "{}: Pi rewrote the fork", file.display());
        match parent {
            Some(p) => {
                let before = run_oracle(&file, &[&p]).unwrap();
                assert_same_messages(
                    &format!("{} fork", file.display()),
                    &pi["context"],
                    &before["contextAt"][0]["context"],
                );
            }
            None => assert_eq!(pi["entries"].as_array().unwrap().len(), 0),
        }
    }
}

/// The entries of a session file after its header.
fn entries_of(file: &Path) -> Vec<Value> {
    std::fs::read_to_string(file)
        .unwrap()
        .lines()
        .skip(1)
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// `clone` without REV copies what Pi's /clone copies: the branch of Pi's leaf (the last
/// entry, even a checkout record `@` steps over), labels re-created at the end.
#[test]
fn clone_without_rev_copies_what_pis_clone_copies() {
    let mut files = vec![
        fixture("outside/fid-clone-trailing-checkout.jsonl"),
        fixture("outside/fid-trailing-label-leaf.jsonl"),
        fixture("outside-2/clone-empty-parent-id.jsonl"),
        fixture("labels.jsonl"),
    ];
    files.extend(
        corpus_files()
            .into_iter()
            .filter(|p| p.to_string_lossy().contains("pi-built")),
    );
    for file in files {
        let what = file.display().to_string();
        let Some(pi) = common::oracle::run_mirror("clone", &file, &[]) else {
            return;
        };
        let (dir, copy) = copy_to_temp(&file);
        let out = dir.path().join("clone.jsonl");
        run_ok(&copy, &["clone", "-o", out.to_str().unwrap()]);
        let ours = entries_of(&out);
        let theirs = pi["file"].as_array().unwrap();
        assert_eq!(
            ours.len(),
            theirs.len(),
            "{what}: entries\nours {ours:?}\nPi's {theirs:?}"
        );
        for (a, b) in ours.iter().zip(theirs) {
            assert_eq!(a["type"], b["type"], "{what}");
            if a["type"] == "label" {
                // Label ids are new on both sides.
                assert_eq!((&a["targetId"], &a["label"]), (&b["targetId"], &b["label"]), "{what}");
            } else {
                assert!(a.get("parentId").is_some(), "{what}: Pi writes every parentId: {a}");
                for k in ["id", "parentId", "customType", "firstKeptEntryId"] {
                    assert_eq!(a.get(k).unwrap_or(&Value::Null), &b[k], "{what}: {k} of {a}");
                }
            }
        }
        let opened = run_oracle(&out, &[]).unwrap();
        assert_eq!(opened["rewritten"], false, "{what}");
        assert_same_messages(&what, &opened["context"], &pi["context"]);
    }
}

#[test]
fn label_force_moves_the_name_in_pis_eyes() {
    // labels.jsonl: "root-cause" on 1a2b3c04, "done" on 1a2b3c06.
    let file = fixture("labels.jsonl");
    let Some(before) = run_oracle(&file, &[]) else { return };
    let (_dir, copy) = copy_to_temp(&file);
    run_ok(&copy, &["label", "1a2b3c02", "done", "--force"]);
    // Onto an entry that has a label of its own: the name moves, the old label is replaced.
    run_ok(&copy, &["label", "1a2b3c04", "start", "--force"]);
    run_ok(&copy, &["label", "1a2b3c02", "start", "--force"]);
    let pi = run_oracle(&copy, &[]).unwrap();
    assert_eq!(pi["rewritten"], false, "Pi rewrote the file");
    assert_eq!(pi["at"], before["at"], "@ unchanged");
    let labels = pi["labels"].as_array().unwrap();
    let on = |name: &str| -> Vec<&Value> { labels.iter().filter(|l| l[1] == name).map(|l| &l[0]).collect() };
    assert_eq!(on("start"), ["1a2b3c02"], "{labels:?}");
    assert!(on("done").is_empty(), "{labels:?}");
    assert!(on("root-cause").is_empty(), "{labels:?}");
    assert_eq!(labels.len(), 1, "{labels:?}");
    assert_same_messages("label --force", &pi["context"], &before["context"]);
    // pi-session reads the same.
    assert_eq!(run_ok(&copy, &["rev-parse", "start"]).trim(), "1a2b3c02");
}
