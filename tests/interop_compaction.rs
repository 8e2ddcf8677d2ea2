//! Interop with Pi 1.6.0 for compaction planning and branch-summary collection: the same
//! cut point, split-turn decision, tokensBefore and file lists as Pi's `prepareCompaction`,
//! and the same span as Pi's `collectEntriesForBranchSummary` + `prepareBranchEntries`.

mod common;

use common::oracle::run_oracle;
use common::{corpus_files, fixture, last_entry, temp_copy};
use pi_session::compaction::{branch, prepare};
use pi_session::session::Session;
use serde_json::Value;
use std::path::PathBuf;

const KEEPS: [u64; 5] = [20_000, 8_000, 2_000, 500, 50];

fn files() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = corpus_files()
        .into_iter()
        .filter(|p| p.to_string_lossy().contains(".v3."))
        .collect();
    for f in [
        "compaction-context-edit.jsonl",
        "labels.jsonl",
        "several-roots.jsonl",
        "duplicate-ids.jsonl",
        "v2.jsonl",
    ] {
        v.push(fixture(f));
    }
    v
}

#[test]
fn compaction_plans_match_pi() {
    for file in files() {
        let keeps: Vec<String> = KEEPS.iter().map(u64::to_string).collect();
        let Some(pi) = run_oracle_with(
            &file,
            &keeps.iter().flat_map(|k| ["--compact", k.as_str()]).collect::<Vec<_>>(),
        ) else {
            return;
        };
        let session = Session::open(&file).unwrap();
        let path = session.at().map(|a| session.branch(a).path).unwrap_or_default();
        for c in pi["compactions"].as_array().unwrap() {
            let keep = c["keep"].as_f64().unwrap();
            let ours = prepare::prepare(&session, &path, keep);
            let what = format!("{} keep={keep}", file.display());
            match (&c["result"], ours) {
                (Value::Null, Err(_)) => {}
                (Value::Null, Ok(p)) => panic!("{what}: Pi has nothing to compact, we cut at {}", p.first_kept_id),
                (r, Err(e)) => panic!("{what}: Pi cuts at {}, we say {e:?}", r["firstKeptEntryId"]),
                (r, Ok(p)) => {
                    assert_eq!(
                        r["firstKeptEntryId"],
                        p.first_kept_id.as_str(),
                        "{what}: firstKeptEntryId"
                    );
                    assert_eq!(r["isSplitTurn"], p.is_split_turn, "{what}: split turn");
                    assert_eq!(
                        r["tokensBefore"].as_f64().unwrap(),
                        p.tokens_before,
                        "{what}: tokensBefore"
                    );
                    assert_eq!(
                        r["messagesToSummarize"],
                        p.messages_to_summarize.len(),
                        "{what}: messages"
                    );
                    assert_eq!(r["turnPrefixMessages"], p.turn_prefix.len(), "{what}: turn prefix");
                    assert_eq!(
                        r["previousSummary"],
                        p.previous_summary.is_some(),
                        "{what}: previous summary"
                    );
                    let (read, modified) = p.file_ops.lists();
                    assert_eq!(r["readFiles"], serde_json::json!(read), "{what}: read files");
                    assert_eq!(
                        r["modifiedFiles"],
                        serde_json::json!(modified),
                        "{what}: modified files"
                    );
                }
            }
        }
    }
}

#[test]
fn branch_summary_spans_match_pi() {
    for file in files() {
        let Some(first) = run_oracle(&file, &[]) else { return };
        let entries = first["entries"].as_array().unwrap();
        let branch_ids: Vec<&Value> = first["branch"].as_array().unwrap().iter().collect();
        // Targets off @'s branch and on it, with a generous and a tight budget.
        let mut targets: Vec<String> = entries
            .iter()
            .filter(|e| !branch_ids.contains(&&e["id"]))
            .take(3)
            .chain(
                branch_ids
                    .iter()
                    .take(2)
                    .map(|id| entries.iter().find(|e| &&e["id"] == id).unwrap()),
            )
            .filter_map(|e| e["id"].as_str().map(str::to_owned))
            .collect();
        targets.dedup();
        let specs: Vec<String> = targets
            .iter()
            .flat_map(|t| [format!("{t}:0"), format!("{t}:200")])
            .collect();
        let args: Vec<&str> = specs.iter().flat_map(|s| ["--branch-summary", s.as_str()]).collect();
        let Some(pi) = run_oracle_with(&file, &args) else {
            return;
        };
        let session = Session::open(&file).unwrap();
        for b in pi["branchSummaries"].as_array().unwrap() {
            let target = session.lookup(b["target"].as_str().unwrap()).unwrap();
            let budget = b["budget"].as_u64().unwrap();
            let what = format!("{} target={} budget={budget}", file.display(), b["target"]);
            let (span, ancestor) = branch::collect(&session, session.at(), target);
            let ids: Vec<Option<&str>> = span.iter().map(|&i| session.id_str(i)).collect();
            let pi_ids: Vec<Option<&str>> = b["entries"].as_array().unwrap().iter().map(|v| v.as_str()).collect();
            assert_eq!(ids, pi_ids, "{what}: entries");
            assert_eq!(
                ancestor.and_then(|a| session.id_str(a)),
                b["commonAncestorId"].as_str(),
                "{what}: ancestor"
            );
            let prep = branch::prepare(&session, &span, budget);
            assert_eq!(
                prep.messages.len() as u64,
                b["messages"].as_u64().unwrap(),
                "{what}: messages"
            );
            assert_eq!(prep.total_tokens, b["totalTokens"].as_u64().unwrap(), "{what}: tokens");
            let (read, modified) = prep.file_ops.lists();
            assert_eq!(b["readFiles"], serde_json::json!(read), "{what}: read files");
            assert_eq!(
                b["modifiedFiles"],
                serde_json::json!(modified),
                "{what}: modified files"
            );
        }
    }
}

/// `run_oracle` with extra oracle flags (`--compact N`, `--branch-summary T:B`).
fn run_oracle_with(file: &std::path::Path, extra: &[&str]) -> Option<Value> {
    common::oracle::run_oracle_args(file, extra)
}

#[test]
fn compacted_files_open_in_pi_with_the_new_summary_first() {
    let mut wrote = 0;
    for file in files() {
        for keep in ["20000", "2000", "200"] {
            let (dir, copy) = temp_copy(&file);
            let summary = dir.path().join("summary.md");
            std::fs::write(&summary, format!("Summary of {} at {keep}.", file.display())).unwrap();
            let before = std::fs::read(&copy).unwrap();
            common::run_ok(
                &copy,
                &[
                    "compact",
                    "--keep-recent-tokens",
                    keep,
                    "--summary-file",
                    summary.to_str().unwrap(),
                ],
            );
            if std::fs::read(&copy).unwrap() == before {
                continue; // nothing to compact
            }
            wrote += 1;
            let e = last_entry(&copy);
            assert_eq!(e["type"], "compaction");
            let Some(pi) = run_oracle(&copy, &[]) else { return };
            let what = format!("{} keep={keep}", file.display());
            assert_eq!(pi["rewritten"], false, "{what}: Pi rewrote the file");
            assert_eq!(pi["leaf"], e["id"], "{what}: leaf");
            let messages = pi["context"]["messages"].as_array().unwrap();
            let first = messages.iter().find(|m| m["role"] != "system").unwrap();
            assert_eq!(first["role"], "compactionSummary", "{what}");
            assert_eq!(
                first["summary"], e["summary"],
                "{what}: Pi's context starts with the new summary"
            );
            if let Some(sys) = e.get("systemMessage") {
                assert_eq!(&messages[0], sys, "{what}: system checkpoint");
            }
            let ours = common::ndjson(&common::run_ok(&copy, &["context", "--json"]));
            assert_eq!(ours.len(), messages.len(), "{what}: context length");
            for (a, b) in ours.iter().zip(messages) {
                assert!(common::json_eq(a, b), "{what}: context differs\n{a}\n{b}");
            }
        }
    }
    assert!(wrote >= 4, "the corpus should give several compactions, got {wrote}");
}

#[test]
fn branch_summaries_open_in_pi_after_the_target() {
    let mut wrote = 0;
    for file in files() {
        let Some(first) = run_oracle(&file, &[]) else { return };
        let branch: Vec<&Value> = first["branch"].as_array().unwrap().iter().collect();
        let Some(target) = first["entries"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| !branch.contains(&&e["id"]) && e["type"] == "message")
            .find_map(|e| e["id"].as_str())
        else {
            continue;
        };
        let (dir, copy) = temp_copy(&file);
        let summary = dir.path().join("summary.md");
        std::fs::write(&summary, "What happened on the branch left behind.").unwrap();
        common::run_ok(
            &copy,
            &[
                "summarize-branch",
                &format!("id:{target}"),
                "--summary-file",
                summary.to_str().unwrap(),
            ],
        );
        let e = last_entry(&copy);
        assert_eq!(e["type"], "branch_summary");
        assert_eq!(e["parentId"], target);
        wrote += 1;
        let pi = run_oracle(&copy, &[]).unwrap();
        let what = format!("{} → {target}", file.display());
        assert_eq!(pi["rewritten"], false, "{what}");
        let messages = pi["context"]["messages"].as_array().unwrap();
        let last = messages.last().unwrap();
        assert_eq!(last["role"], "branchSummary", "{what}");
        assert_eq!(last["summary"], e["summary"], "{what}");
        assert_eq!(last["fromId"], first["at"], "{what}: fromId is where @ was");
    }
    assert!(wrote >= 2, "expected several files with other branches, got {wrote}");
}
