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
fn branch_summaries_open_in_pi_at_the_new_position() {
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
        // Pi's /tree leaves a user message out (to edit and send again): its parent.
        let row = first["tree"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| r["id"] == target)
            .unwrap();
        let position = if row["role"] == "user" {
            &row["parentId"]
        } else {
            &row["id"]
        };
        assert_eq!(e["parentId"], *position);
        wrote += 1;
        let pi = run_oracle(&copy, &[]).unwrap();
        let what = format!("{} → {target}", file.display());
        assert_eq!(pi["rewritten"], false, "{what}");
        let messages = pi["context"]["messages"].as_array().unwrap();
        let last = messages.last().unwrap();
        assert_eq!(last["role"], "branchSummary", "{what}");
        assert_eq!(last["summary"], e["summary"], "{what}");
        assert_eq!(last["fromId"], first["leaf"], "{what}: fromId is Pi's leaf");
    }
    assert!(wrote >= 2, "expected several files with other branches, got {wrote}");
}

// ---------------------------------------------------------------------------------------
// The writes themselves, against Pi doing the same command through its own code
// (tests/oracle/pi_mirror.mjs): Pi's /compact and /tree-with-summary start from Pi's leaf,
// the file's last entry, even a label or a checkout record.

/// What the stand-in model answers, on both sides.
const BODY: &str = "BODY-OF-THE-SUMMARY";

fn outside(name: &str) -> PathBuf {
    fixture(&format!("outside/{name}"))
}

/// A `--summarizer` that keeps every request it gets in `dir/requests/N` and answers BODY.
fn recording_summarizer(dir: &std::path::Path) -> String {
    let requests = dir.join("requests");
    std::fs::create_dir_all(&requests).unwrap();
    let r = requests.display();
    format!("n=$(ls '{r}' | wc -l); cat > '{r}/'$n; printf %s {BODY}")
}

fn recorded_requests(dir: &std::path::Path) -> Vec<String> {
    let mut v: Vec<(usize, String)> = std::fs::read_dir(dir.join("requests"))
        .unwrap()
        .map(|e| {
            let p = e.unwrap().path();
            let n = p.file_name().unwrap().to_str().unwrap().trim().parse().unwrap();
            (n, std::fs::read_to_string(&p).unwrap())
        })
        .collect();
    v.sort();
    v.into_iter().map(|(_, s)| s).collect()
}

/// A context with what legitimately differs between two writes taken out: the summary
/// entries' timestamps, and the wording before BODY in a branch summary (our own).
fn normalized(context: &Value) -> Value {
    let mut c = context.clone();
    for m in c["messages"].as_array_mut().unwrap() {
        let role = m["role"].as_str().unwrap_or("").to_owned();
        if role == "compactionSummary" || role == "branchSummary" {
            m.as_object_mut().unwrap().remove("timestamp");
        }
        if role == "branchSummary"
            && let Some(s) = m["summary"].as_str()
            && let Some(at) = s.find(BODY)
        {
            m["summary"] = Value::from(&s[at..]);
        }
    }
    c
}

fn assert_same_context(ours: &Value, pi: &Value, what: &str) {
    let (a, b) = (normalized(ours), normalized(pi));
    let (am, bm) = (a["messages"].as_array().unwrap(), b["messages"].as_array().unwrap());
    assert_eq!(am.len(), bm.len(), "{what}: context length\nours {a}\nPi's {b}");
    for (x, y) in am.iter().zip(bm) {
        assert!(common::json_eq(x, y), "{what}: context differs\nours {x}\nPi's {y}");
    }
    assert_eq!(a["thinkingLevel"], b["thinkingLevel"], "{what}: thinking level");
    assert_eq!(a["model"], b["model"], "{what}: model");
}

/// `compact` on a copy of `file`, and Pi's /compact on another: the same decision, the same
/// requests (as to the previous summary), the same entry, the same context afterwards.
/// Returns Pi's result ("written", "already compacted", "nothing to compact"), or None
/// without the oracle.
fn compare_compact(file: &std::path::Path, keep: &str) -> Option<String> {
    let pi = common::oracle::run_mirror("compact", file, &[keep, BODY])?;
    let what = format!("{} keep={keep}", file.display());
    let (dir, copy) = temp_copy(file);
    let before = std::fs::read(&copy).unwrap();
    let run = common::run(
        &copy,
        &[
            "compact",
            "--keep-recent-tokens",
            keep,
            "--reserve-tokens",
            "16384",
            "--summarizer",
            &recording_summarizer(dir.path()),
        ],
    );
    assert_eq!(run.code, 0, "{what}: {}", run.stderr);
    let result = pi["result"].as_str().unwrap().to_owned();
    if result != "written" {
        assert_eq!(
            std::fs::read(&copy).unwrap(),
            before,
            "{what}: Pi writes nothing ({result})"
        );
        let said = if result == "already compacted" {
            "already ends with a compaction"
        } else {
            "nothing to compact"
        };
        assert!(
            run.stderr.contains(said),
            "{what}: Pi says {result}, we say {}",
            run.stderr
        );
        return Some(result);
    }
    let ours = last_entry(&copy);
    let theirs = &pi["written"];
    assert_eq!(
        ours["type"], "compaction",
        "{what}: Pi compacts, we did not: {}",
        run.stderr
    );
    for k in ["parentId", "firstKeptEntryId", "summary", "details", "fromHook"] {
        assert_eq!(ours[k], theirs[k], "{what}: {k}");
    }
    assert!(
        common::json_eq(&ours["tokensBefore"], &theirs["tokensBefore"]),
        "{what}: tokensBefore"
    );
    let requests = recorded_requests(dir.path());
    let pi_prompts: Vec<&str> = pi["prompts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p.as_str().unwrap())
        .collect();
    assert_eq!(requests.len(), pi_prompts.len(), "{what}: number of requests");
    for (ours, theirs) in requests.iter().zip(&pi_prompts) {
        assert_eq!(
            ours.contains("<previous-summary>"),
            theirs.contains("<previous-summary>"),
            "{what}: the previous summary in the request\nours: {ours}\nPi's: {theirs}"
        );
    }
    let opened = run_oracle(&copy, &[]).unwrap();
    assert_eq!(opened["rewritten"], false, "{what}");
    assert_same_context(&opened["context"], &pi["context"], &what);
    Some(result)
}

#[test]
fn compact_writes_what_pis_compact_writes() {
    let cases: &[(&str, &[&str])] = &[
        ("fid-empty-previous-summary.jsonl", &["50", "5", "20000"]),
        ("fid-compaction-then-label.jsonl", &["5", "50", "20000"]),
        ("fid-trailing-label-leaf.jsonl", &["1", "20000"]),
        ("fid-file-list-sort.jsonl", &["5", "20000"]),
    ];
    let mut written = 0;
    for (name, keeps) in cases {
        for keep in *keeps {
            let Some(result) = compare_compact(&outside(name), keep) else {
                return;
            };
            written += usize::from(result == "written");
        }
    }
    for file in [common::corpus_dir().join("pi-built.v3.jsonl"), fixture("labels.jsonl")] {
        for keep in ["200", "50"] {
            let Some(result) = compare_compact(&file, keep) else {
                return;
            };
            written += usize::from(result == "written");
        }
    }
    assert!(written >= 6, "expected most cases to compact, got {written}");
}

#[test]
fn an_empty_previous_summary_is_no_previous_summary_as_in_pi() {
    let file = outside("fid-empty-previous-summary.jsonl");
    let Some(pi) = common::oracle::run_mirror("compact", &file, &["50", BODY]) else {
        return;
    };
    assert_eq!(
        pi["preparation"]["previousSummary"], "",
        "the case: an empty previous summary"
    );
    let prompts = pi["prompts"].as_array().unwrap();
    assert!(!prompts.is_empty());
    for p in prompts {
        assert!(!p.as_str().unwrap().contains("<previous-summary>"), "{p}");
    }
    assert_eq!(compare_compact(&file, "50").as_deref(), Some("written"));
}

#[test]
fn a_compaction_followed_by_a_label_is_compacted_again_as_in_pi() {
    let file = outside("fid-compaction-then-label.jsonl");
    assert_eq!(compare_compact(&file, "5").as_deref().unwrap_or("written"), "written");
}

/// `summarize-branch TARGET` on a copy of `file`, and Pi's /tree with a summary on another.
fn compare_navigate(file: &std::path::Path, target: &str) -> Option<String> {
    let pi = common::oracle::run_mirror("navigate", file, &[target, BODY])?;
    let what = format!("{} → {target}", file.display());
    let (dir, copy) = temp_copy(file);
    let before = std::fs::read(&copy).unwrap();
    let run = common::run(
        &copy,
        &[
            "summarize-branch",
            &format!("id:{target}"),
            "--reserve-tokens",
            "16384",
            "--context-window",
            "128000",
            "--summarizer",
            &recording_summarizer(dir.path()),
        ],
    );
    assert_eq!(run.code, 0, "{what}: {}", run.stderr);
    let result = pi["result"].as_str().unwrap().to_owned();
    let grown = std::fs::read(&copy).unwrap();
    assert!(grown.starts_with(&before), "{what}: existing bytes changed");
    let new_leaf = &pi["preparation"]["newLeafId"];
    match result.as_str() {
        "noop" => {
            assert_eq!(grown, before, "{what}: Pi does nothing");
            return Some(result);
        }
        "moved" if *new_leaf == pi["leafBefore"] => {
            assert_eq!(grown, before, "{what}: Pi stays where it is");
            return Some(result);
        }
        "moved" => {
            let e = last_entry(&copy);
            assert_eq!(e["customType"], "pi-session.checkout", "{what}");
            assert_eq!(e["parentId"], *new_leaf, "{what}: the new position");
        }
        _ => {
            let e = last_entry(&copy);
            let theirs = &pi["written"];
            assert_eq!(e["type"], "branch_summary", "{what}: {}", run.stderr);
            for k in ["parentId", "fromId", "details", "fromHook"] {
                assert_eq!(e[k], theirs[k], "{what}: {k}");
            }
            let tail = |s: &str| {
                s.find(BODY)
                    .map(|at| s[at..].to_owned())
                    .unwrap_or_else(|| s.to_owned())
            };
            assert_eq!(
                tail(e["summary"].as_str().unwrap()),
                tail(theirs["summary"].as_str().unwrap()),
                "{what}: summary (after our own preamble)"
            );
            let requests = recorded_requests(dir.path());
            assert_eq!(
                requests.len(),
                pi["prompts"].as_array().unwrap().len(),
                "{what}: requests"
            );
        }
    }
    let opened = run_oracle(&copy, &[]).unwrap();
    assert_eq!(opened["rewritten"], false, "{what}");
    assert_same_context(&opened["context"], &pi["context"], &what);
    Some(result)
}

/// Every entry of a few files as TARGET: user and custom messages (left out, the summary
/// under their parent), labels, assistant messages, the leaf itself.
#[test]
fn summarize_branch_writes_what_pis_tree_writes() {
    let mut seen = std::collections::BTreeMap::new();
    let mut before_target = 0;
    let files = [
        outside("fid-summarize-branch-user-target.jsonl"),
        outside("fid-trailing-label-leaf.jsonl"),
        common::corpus_dir().join("pi-built.v3.jsonl"),
    ];
    for file in files {
        let session = Session::open(&file).unwrap();
        let big = session.entries.len() > 12;
        let targets: Vec<String> = (0..session.entries.len())
            .filter(|&i| {
                !big || session.entries[i].is_role(&pi_session::session::Role::User)
                    || session.entries[i].kind == pi_session::session::EntryKind::CustomMessage
                    || i + 1 == session.entries.len()
            })
            .filter_map(|i| session.id_str(i).map(str::to_owned))
            .take(8)
            .collect();
        for t in targets {
            let Some(result) = compare_navigate(&file, &t) else {
                return;
            };
            let i = session.lookup(&t).unwrap();
            if session.entries[i].is_role(&pi_session::session::Role::User)
                || session.entries[i].kind == pi_session::session::EntryKind::CustomMessage
            {
                before_target += 1;
            }
            *seen.entry(result).or_insert(0) += 1;
        }
    }
    assert!(seen.get("summary").copied().unwrap_or(0) >= 8, "{seen:?}");
    assert!(seen.contains_key("noop"), "{seen:?}");
    assert!(before_target >= 4, "user and custom message targets: {before_target}");
}
