//! `compact` and `summarize-branch` with summaries from elsewhere (`--summary-file`,
//! `--summarizer`), and their plan-only modes. Provider requests are covered by
//! tests/llm_providers.rs and tests/cli_compact_providers.rs.

use crate::common;

use common::{cmd, fixture, last_entry, ndjson, run_ok};
use std::path::{Path, PathBuf};

fn corpus(name: &str) -> PathBuf {
    common::corpus_dir().join(name)
}

fn copy(file: &Path) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let dest = dir.path().join("s.jsonl");
    std::fs::copy(file, &dest).unwrap();
    (dir, dest)
}

#[test]
fn dry_run_prints_the_plan_and_writes_nothing() {
    let (_d, f) = copy(&corpus("real-large.v3.jsonl"));
    let before = std::fs::read(&f).unwrap();
    let plan = ndjson(&run_ok(
        &f,
        &["compact", "--dry-run", "--json", "--keep-recent-tokens", "2000"],
    ));
    assert_eq!(plan.len(), 1);
    let p = &plan[0];
    assert!(p["firstKeptEntryId"].is_string());
    assert!(p["messagesToSummarize"].as_u64().unwrap() > 100);
    assert!(p["tokensBefore"].as_f64().unwrap() > p["tokensKept"].as_f64().unwrap());
    assert_eq!(p["keepRecentTokens"], 2000);
    assert_eq!(p["compact"], true);
    // Nothing to compact: one record saying so, not silence.
    let none = ndjson(&run_ok(
        &f,
        &["compact", "--dry-run", "--json", "--keep-recent-tokens", "100000000"],
    ));
    assert_eq!(
        none,
        [serde_json::json!({"compact": false, "reason": "nothingToSummarize"})]
    );
    let human = run_ok(&f, &["compact", "--dry-run", "--keep-recent-tokens", "2000"]);
    assert!(human.contains("cut at") && human.contains("summarize"), "{human}");
    assert_eq!(std::fs::read(&f).unwrap(), before);
}

#[test]
fn print_prompt_shows_the_request_with_pi_sections() {
    let (_d, f) = copy(&corpus("real-before-compaction.v3.jsonl"));
    let out = run_ok(&f, &["compact", "--print-prompt", "--instructions", "the parser work"]);
    assert!(out.contains("<conversation>\n[User]: "), "conversation block");
    assert!(
        out.contains("<previous-summary>"),
        "update form with the previous summary"
    );
    for section in [
        "## Goal",
        "## Constraints & Preferences",
        "### Done",
        "### In Progress",
        "### Blocked",
        "## Key Decisions",
        "## Next Steps",
        "## Critical Context",
    ] {
        assert!(out.contains(section), "missing {section}");
    }
    assert!(out.contains("Additional focus: the parser work"));
}

#[test]
fn summary_file_appends_a_compaction_pi_reads() {
    let (dir, f) = copy(&corpus("real-large.v3.jsonl"));
    let before = std::fs::read(&f).unwrap();
    let plan = ndjson(&run_ok(
        &f,
        &["compact", "--dry-run", "--json", "--keep-recent-tokens", "4000"],
    ))[0]
        .clone();
    let summary = dir.path().join("summary.md");
    std::fs::write(&summary, "## Goal\nShip it.\n").unwrap();
    let leaf = run_ok(&f, &["rev-parse", "--leaf"]).trim().to_owned();
    let out = run_ok(
        &f,
        &[
            "compact",
            "--keep-recent-tokens",
            "4000",
            "--summary-file",
            summary.to_str().unwrap(),
        ],
    );
    let after = std::fs::read(&f).unwrap();
    assert_eq!(&after[..before.len()], &before[..], "existing bytes untouched");
    let e = last_entry(&f);
    assert_eq!(e["type"], "compaction");
    assert_eq!(e["id"], out.trim());
    assert_eq!(e["parentId"], leaf.as_str());
    assert_eq!(e["firstKeptEntryId"], plan["firstKeptEntryId"]);
    assert_eq!(e["tokensBefore"], plan["tokensBefore"]);
    assert!(e["summary"].as_str().unwrap().starts_with("## Goal\nShip it."));
    assert_eq!(e["details"]["readFiles"], plan["readFiles"]);
    assert_eq!(e["details"]["modifiedFiles"], plan["modifiedFiles"]);
    assert!(e.get("usage").is_none(), "no usage without a model");
    assert_eq!(e["fromHook"], false);
    let keys: Vec<&String> = e.as_object().unwrap().keys().collect();
    assert_eq!(&keys[..4], ["type", "id", "parentId", "timestamp"]);
    // The context now starts with the summary.
    let ctx = ndjson(&run_ok(&f, &["context", "--json"]));
    assert_eq!(ctx[0]["role"], "compactionSummary");
    // Compacting again right away: nothing to do.
    let again = cmd()
        .arg("-s")
        .arg(&f)
        .args(["compact", "--summary-file", summary.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("already ends with a compaction"));
    assert_eq!(std::fs::read(&f).unwrap(), after);
}

#[test]
fn summary_from_stdin_and_from_a_command() {
    let (_d, f) = copy(&corpus("real-large.v3.jsonl"));
    run_ok(&f, &["checkout", "@~40"]);
    let out = cmd()
        .arg("-s")
        .arg(&f)
        .args(["compact", "--keep-recent-tokens", "1000", "--summary-file", "-"])
        .write_stdin("from stdin")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(last_entry(&f)["summary"].as_str().unwrap().starts_with("from stdin"));

    let (_d2, g) = copy(&corpus("real-large.v3.jsonl"));
    // The command sees the prompt on stdin; echo back a marker and the line count.
    run_ok(
        &g,
        &[
            "compact",
            "--keep-recent-tokens",
            "3000",
            "--summarizer",
            "grep -c '\\[User\\]' | sed 's/^/users: /'",
        ],
    );
    let e = last_entry(&g);
    assert!(
        e["summary"].as_str().unwrap().starts_with("users: "),
        "{}",
        e["summary"]
    );
}

#[test]
fn failed_summarizer_writes_nothing() {
    let (_d, f) = copy(&corpus("real-large.v3.jsonl"));
    let before = std::fs::read(&f).unwrap();
    let out = cmd()
        .arg("-s")
        .arg(&f)
        .args(["compact", "--summarizer", "exit 3"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("summarizer"));
    assert_eq!(std::fs::read(&f).unwrap(), before);
}

#[test]
fn nothing_to_compact_on_a_small_session() {
    let (_d, f) = copy(&fixture("labels.jsonl"));
    let before = std::fs::read(&f).unwrap();
    let out = cmd()
        .arg("-s")
        .arg(&f)
        .args(["compact", "--summary-file", "/dev/null"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("nothing to compact"));
    assert_eq!(std::fs::read(&f).unwrap(), before);
}

#[test]
fn if_needed_compares_with_the_window() {
    let (_d, f) = copy(&corpus("real-large.v3.jsonl"));
    let before = std::fs::read(&f).unwrap();
    let out = cmd()
        .arg("-s")
        .arg(&f)
        .args([
            "compact",
            "--if-needed",
            "--context-window",
            "10000000",
            "--summary-file",
            "/dev/null",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("not needed"));
    assert_eq!(std::fs::read(&f).unwrap(), before);
    let out = cmd()
        .arg("-s")
        .arg(&f)
        .args([
            "compact",
            "--if-needed",
            "--context-window",
            "20000",
            "--summary-file",
            "-",
        ])
        .write_stdin("needed")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(last_entry(&f)["type"], "compaction");
}

#[test]
fn settings_files_give_keep_recent_tokens() {
    let (dir, f) = copy(&corpus("real-large.v3.jsonl"));
    let agent = dir.path().join("agent");
    std::fs::create_dir_all(&agent).unwrap();
    std::fs::write(
        agent.join("settings.json"),
        r#"{"compaction":{"keepRecentTokens":3000}}"#,
    )
    .unwrap();
    let plan = |extra: &[&str]| {
        let out = cmd()
            .env("PI_CODING_AGENT_DIR", &agent)
            .current_dir(dir.path())
            .arg("-s")
            .arg(&f)
            .args(["compact", "--dry-run", "--json"])
            .args(extra)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        ndjson(&String::from_utf8(out.stdout).unwrap())[0]["keepRecentTokens"].clone()
    };
    assert_eq!(plan(&[]), 3000);
    std::fs::create_dir_all(dir.path().join(".pi")).unwrap();
    std::fs::write(
        dir.path().join(".pi/settings.json"),
        r#"{"compaction":{"keepRecentTokens":5000}}"#,
    )
    .unwrap();
    assert_eq!(plan(&[]), 5000, "project settings win over global ones");
    assert_eq!(plan(&["--keep-recent-tokens", "7000"]), 7000, "the flag wins");
}

#[test]
fn summarize_branch_appends_a_summary_under_the_target() {
    let (dir, f) = copy(&corpus("pi-built.v3.jsonl"));
    // @ is on the side branch; go back to the main line's tip with a summary of it.
    let at = run_ok(&f, &["rev-parse", "@"]).trim().to_owned();
    let target = run_ok(&f, &["rev-parse", "green"]).trim().to_owned();
    let plan = ndjson(&run_ok(&f, &["summarize-branch", "green", "--dry-run", "--json"]))[0].clone();
    assert_eq!(plan["from"], at.as_str());
    assert!(!plan["entries"].as_array().unwrap().is_empty());
    let summary = dir.path().join("s.md");
    std::fs::write(&summary, "Tried another answer.").unwrap();
    let id = run_ok(
        &f,
        &["summarize-branch", "green", "--summary-file", summary.to_str().unwrap()],
    );
    let e = last_entry(&f);
    assert_eq!(e["type"], "branch_summary");
    assert_eq!(e["id"], id.trim());
    assert_eq!(e["parentId"], target.as_str());
    assert_eq!(e["fromId"], at.as_str());
    assert!(e["summary"].as_str().unwrap().contains("Tried another answer."));
    // Pi continues after the target with the summary in its context.
    let ctx = ndjson(&run_ok(&f, &["context", "--json"]));
    assert_eq!(ctx.last().unwrap()["role"], "branchSummary");
    assert_eq!(run_ok(&f, &["rev-parse", "@"]).trim(), id.trim());
}

#[test]
fn summarize_branch_from_a_checkout_record_summarizes_no_content_as_pi_does() {
    let (_d, f) = copy(&corpus("pi-built.v3.jsonl"));
    // After `checkout root`, Pi's leaf is the checkout record: /tree from there leaves it
    // behind, and Pi writes a branch summary with nothing in it.
    run_ok(&f, &["checkout", "root"]);
    let record = last_entry(&f);
    let before = std::fs::read(&f).unwrap();
    let target = run_ok(&f, &["rev-parse", "green"]).trim().to_owned();
    let plan = ndjson(&run_ok(&f, &["summarize-branch", "green", "--dry-run", "--json"]))[0].clone();
    assert_eq!(plan["from"], record["id"]);
    assert_eq!(plan["entries"], serde_json::json!([record["id"]]));
    assert_eq!(plan["messages"], 0);
    // No model is asked: the summarizer would fail.
    let id = run_ok(&f, &["summarize-branch", "green", "--summarizer", "exit 1"]);
    let e = last_entry(&f);
    assert_eq!(e["id"], id.trim());
    assert_eq!(e["type"], "branch_summary");
    assert_eq!(e["summary"], "No content to summarize");
    assert_eq!(e["fromId"], record["id"]);
    assert_eq!(e["parentId"], target.as_str());
    assert!(std::fs::read(&f).unwrap().starts_with(&before));
    // And to where Pi's leaf already is: nothing at all.
    let again = std::fs::read(&f).unwrap();
    let out = cmd()
        .arg("-s")
        .arg(&f)
        .args(["summarize-branch", id.trim(), "--summary-file", "/dev/null"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("already there"));
    assert_eq!(std::fs::read(&f).unwrap(), again);
}

fn outside(name: &str) -> PathBuf {
    fixture(&format!("outside/{name}"))
}

#[test]
fn summarize_branch_to_a_user_message_goes_before_it_as_pis_tree_does() {
    // Reproducer: @ is on the side branch (alt answer); the target is the main line's
    // second question, a user message.
    let (dir, f) = copy(&outside("fid-summarize-branch-user-target.jsonl"));
    let plan = ndjson(&run_ok(&f, &["summarize-branch", "857cb530", "--dry-run", "--json"]))[0].clone();
    assert_eq!(plan["target"], "857cb530");
    assert_eq!(plan["parent"], "8771cc5a");
    assert_eq!(plan["from"], "20b5b42b");
    assert_eq!(plan["entries"], serde_json::json!(["20b5b42b"]));
    let human = run_ok(&f, &["summarize-branch", "857cb530", "--dry-run"]);
    assert!(human.contains("continues  after 8771cc5a"), "{human}");
    let summary = dir.path().join("s.md");
    std::fs::write(&summary, "Tried another answer.").unwrap();
    let out = cmd()
        .arg("-s")
        .arg(&f)
        .args([
            "summarize-branch",
            "857cb530",
            "--summary-file",
            summary.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("857cb530 is left out so that it can be edited"),
        "{stderr}"
    );
    let e = last_entry(&f);
    assert_eq!(e["type"], "branch_summary");
    assert_eq!(e["parentId"], "8771cc5a");
    assert_eq!(e["fromId"], "20b5b42b");
    let ctx = ndjson(&run_ok(&f, &["context", "--json"]));
    let roles: Vec<&str> = ctx.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["user", "assistant", "branchSummary"]);

    // The first message: the summary starts a new root.
    let (_d, f) = copy(&outside("fid-summarize-branch-user-target.jsonl"));
    let plan = ndjson(&run_ok(&f, &["summarize-branch", "d3d20049", "--dry-run", "--json"]))[0].clone();
    assert_eq!(plan["parent"], serde_json::Value::Null);
    run_ok(
        &f,
        &[
            "summarize-branch",
            "d3d20049",
            "--summary-file",
            summary.to_str().unwrap(),
        ],
    );
    let e = last_entry(&f);
    assert_eq!(e["parentId"], serde_json::Value::Null);
    let ctx = ndjson(&run_ok(&f, &["context", "--json"]));
    assert_eq!(ctx.len(), 1);
    assert_eq!(ctx[0]["role"], "branchSummary");

    // An assistant message is not left out.
    let (_d, f) = copy(&outside("fid-summarize-branch-user-target.jsonl"));
    run_ok(
        &f,
        &[
            "summarize-branch",
            "f2b8c4cc",
            "--summary-file",
            summary.to_str().unwrap(),
        ],
    );
    assert_eq!(last_entry(&f)["parentId"], "f2b8c4cc");
}

#[test]
fn summarize_branch_starts_from_pis_leaf_after_a_label() {
    // Reproducer: the file ends with a label; Pi's /tree leaves from the label.
    let (dir, f) = copy(&outside("fid-trailing-label-leaf.jsonl"));
    let plan = ndjson(&run_ok(&f, &["summarize-branch", "203a4c8d", "--dry-run", "--json"]))[0].clone();
    assert_eq!(plan["from"], "c2a3fc11");
    assert_eq!(plan["entries"], serde_json::json!(["64a2334c", "e35031ca", "c2a3fc11"]));
    let summary = dir.path().join("s.md");
    std::fs::write(&summary, "Asked again.").unwrap();
    run_ok(
        &f,
        &[
            "summarize-branch",
            "203a4c8d",
            "--summary-file",
            summary.to_str().unwrap(),
        ],
    );
    let e = last_entry(&f);
    assert_eq!(e["fromId"], "c2a3fc11");
    assert_eq!(e["parentId"], "203a4c8d");

    // To the label's own entry: Pi leaves the label behind, a branch with no content.
    let (_d, f) = copy(&outside("fid-trailing-label-leaf.jsonl"));
    run_ok(&f, &["summarize-branch", "e35031ca", "--summarizer", "exit 1"]);
    let e = last_entry(&f);
    assert_eq!(e["type"], "branch_summary");
    assert_eq!(e["summary"], "No content to summarize");
    assert_eq!(e["fromId"], "c2a3fc11");
    assert_eq!(e["parentId"], "e35031ca");
}

#[test]
fn compact_after_a_trailing_label_compacts_as_pi_does() {
    // Reproducer: a compaction, then a label. Pi's leaf is the label, so its branch does
    // not end with a compaction.
    let (dir, f) = copy(&outside("fid-compaction-then-label.jsonl"));
    let plan = ndjson(&run_ok(
        &f,
        &["compact", "--dry-run", "--json", "--keep-recent-tokens", "5"],
    ))[0]
        .clone();
    assert_eq!(plan["firstKeptEntryId"], "e2fddff0");
    assert_eq!(plan["previousSummary"], true);
    let summary = dir.path().join("s.md");
    std::fs::write(&summary, "Compacted again.").unwrap();
    let id = run_ok(
        &f,
        &[
            "compact",
            "--keep-recent-tokens",
            "5",
            "--summary-file",
            summary.to_str().unwrap(),
        ],
    );
    let e = last_entry(&f);
    assert_eq!(e["id"], id.trim());
    assert_eq!(e["type"], "compaction");
    assert_eq!(e["parentId"], "30ede5b1", "after Pi's leaf, the label");
    assert_eq!(e["firstKeptEntryId"], "e2fddff0");
    // Now the branch does end with a compaction.
    let out = cmd()
        .arg("-s")
        .arg(&f)
        .args([
            "compact",
            "--keep-recent-tokens",
            "5",
            "--summary-file",
            summary.to_str().unwrap(),
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("already ends with a compaction"));
}

#[test]
fn an_empty_previous_summary_is_not_updated() {
    // Reproducer: the last compaction's summary is "". Pi asks for a new summary.
    let (dir, f) = copy(&outside("fid-empty-previous-summary.jsonl"));
    let keep = ["--keep-recent-tokens", "50"];
    let prompt = run_ok(&f, &[&["compact", "--print-prompt"][..], &keep].concat());
    assert!(!prompt.contains("<previous-summary>"), "{prompt}");
    assert!(!prompt.contains("previous summary"), "{prompt}");
    assert!(
        prompt.contains("Write a checkpoint summary of the conversation"),
        "{prompt}"
    );
    let plan = ndjson(&run_ok(&f, &[&["compact", "--dry-run", "--json"][..], &keep].concat()))[0].clone();
    assert_eq!(plan["previousSummary"], false);
    let human = run_ok(&f, &[&["compact", "--dry-run"][..], &keep].concat());
    assert!(
        human.contains("none (the last compaction's summary is empty)"),
        "{human}"
    );
    // What a summarizer is sent, and the summary written.
    let got = dir.path().join("request.txt");
    let summarizer = format!("cat >> '{}'; echo NEW", got.display());
    run_ok(
        &f,
        &[&["compact", "--summarizer", summarizer.as_str()][..], &keep].concat(),
    );
    let sent = std::fs::read_to_string(&got).unwrap();
    assert!(!sent.contains("<previous-summary>"), "{sent}");
    let e = last_entry(&f);
    assert!(e["summary"].as_str().unwrap().starts_with("NEW"), "{e}");
}

#[test]
fn file_lists_are_in_javascript_sort_order() {
    // Reproducer: `src/Ａ.rs` (U+FF21) and `src/😀.rs` (U+1F600): by code point Ａ comes
    // first; by UTF-16 code units (JavaScript's sort, Pi's) 😀 (0xD83D…) does.
    let (dir, f) = copy(&outside("fid-file-list-sort.jsonl"));
    let keep = ["--keep-recent-tokens", "5"];
    let plan = ndjson(&run_ok(&f, &[&["compact", "--dry-run", "--json"][..], &keep].concat()))[0].clone();
    assert_eq!(plan["readFiles"], serde_json::json!(["src/😀.rs", "src/Ａ.rs"]));
    let summary = dir.path().join("s.md");
    std::fs::write(&summary, "Read two files.").unwrap();
    run_ok(
        &f,
        &[&["compact", "--summary-file", summary.to_str().unwrap()][..], &keep].concat(),
    );
    let e = last_entry(&f);
    assert_eq!(
        e["summary"],
        "Read two files.\n\n<read-files>\nsrc/😀.rs\nsrc/Ａ.rs\n</read-files>"
    );
    assert_eq!(e["details"]["readFiles"], serde_json::json!(["src/😀.rs", "src/Ａ.rs"]));
    // Branch summaries list them the same way.
    let (_d, f) = copy(&outside("fid-file-list-sort.jsonl"));
    let plan = ndjson(&run_ok(&f, &["summarize-branch", "3d8b8a88", "--dry-run", "--json"]))[0].clone();
    assert_eq!(plan["readFiles"], serde_json::json!(["src/😀.rs", "src/Ａ.rs"]));
}

#[test]
fn checkout_summarize_is_summarize_branch() {
    let (dir, f) = copy(&corpus("pi-built.v3.jsonl"));
    let summary = dir.path().join("s.md");
    std::fs::write(&summary, "Side branch.").unwrap();
    run_ok(
        &f,
        &[
            "checkout",
            "--summarize",
            "green",
            "--summary-file",
            summary.to_str().unwrap(),
        ],
    );
    assert_eq!(last_entry(&f)["type"], "branch_summary");
}

/// With nothing to summarize on the branch left behind, Pi stores "No content to summarize"
/// whatever the summary would have been; `--summary-file` does the same, and says so.
#[test]
fn summary_file_with_no_content_stores_what_pi_stores() {
    let (_d, f) = copy(&fixture("outside-2/summarize-branch-no-content.jsonl"));
    let text = f.with_file_name("summary.md");
    std::fs::write(&text, "my summary\n").unwrap();
    let out = cmd()
        .arg("-s")
        .arg(&f)
        .args(["summarize-branch", "a0000001", "--summary-file"])
        .arg(&text)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("No content to summarize"));
    let e = last_entry(&f);
    assert_eq!(e["type"], "branch_summary");
    assert_eq!(e["summary"], "No content to summarize");
    assert_eq!(e["details"], serde_json::json!({"readFiles": [], "modifiedFiles": []}));
    assert_eq!(e["fromId"], "m0000001");
}
