//! Interop with Pi 1.6.0 for `slim`: the slimmed file opens in Pi without being rewritten,
//! with the same leaf, `@`, branch and context; with `--in-context` Pi reads the
//! placeholders where the images were; restored, it is the original again.

use crate::common;

use common::oracle::run_oracle;
use common::{corpus_files, fixture, json_eq, run_ok, temp_copy};
use serde_json::Value;
use std::path::PathBuf;

/// Real sessions (v3, which Pi does not migrate) and the heavy one of `cli_slim`.
fn files(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = corpus_files()
        .into_iter()
        .filter(|p| p.to_string_lossy().contains(".v3."))
        .collect();
    v.push(fixture("compaction-context-edit.jsonl"));
    v.push(fixture("labels.jsonl"));
    v.push(crate::cli_slim::heavy_session(dir));
    v
}

fn assert_same(what: &str, after: &Value, before: &Value) {
    assert_eq!(after["rewritten"], false, "{what}: Pi rewrote the slimmed file");
    for key in ["leaf", "at", "branch", "labels"] {
        assert_eq!(after[key], before[key], "{what}: {key}");
    }
    assert!(
        json_eq(&after["context"], &before["context"]),
        "{what}: contexts differ\nafter:  {}\nbefore: {}",
        after["context"],
        before["context"]
    );
}

#[test]
fn pi_opens_a_slimmed_session_unchanged_with_the_same_context() {
    let dir = tempfile::tempdir().unwrap();
    for file in files(dir.path()) {
        let Some(before) = run_oracle(&file, &[]) else { return };
        let (_d, copy) = temp_copy(&file);
        let original = std::fs::read(&copy).unwrap();
        // Every tool output off the context goes, so real sessions are slimmed too.
        run_ok(&copy, &["slim", "--max-output", "1"]);
        let after = run_oracle(&copy, &[]).unwrap();
        assert_same(&format!("{} slimmed", file.display()), &after, &before);
        run_ok(&copy, &["slim", "--restore", "--force"]);
        assert_eq!(std::fs::read(&copy).unwrap(), original, "{}: restored", file.display());
    }
}

#[test]
fn with_in_context_pi_reads_the_placeholder_where_the_image_was() {
    let dir = tempfile::tempdir().unwrap();
    let file = crate::cli_slim::heavy_session(dir.path());
    let Some(before) = run_oracle(&file, &[]) else { return };
    run_ok(&file, &["slim", "--in-context"]);
    let after = run_oracle(&file, &[]).unwrap();
    assert_eq!(after["rewritten"], false);
    for key in ["leaf", "at", "branch"] {
        assert_eq!(after[key], before[key], "{key}");
    }
    let text = after["context"].to_string();
    assert!(!text.contains("\"type\":\"image\""), "{text}");
    assert!(text.contains("[pi-session slim: an image (image/png, "), "{text}");
    // Our context is Pi's.
    let ours = common::ndjson(&run_ok(&file, &["context", "--json"]));
    let theirs = after["context"]["messages"].as_array().unwrap();
    assert_eq!(ours.len(), theirs.len());
    for (o, t) in ours.iter().zip(theirs) {
        assert!(json_eq(o, t), "ours {o}\nPi's {t}");
    }
}
