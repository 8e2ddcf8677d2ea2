//! `diff` and `merge-base`: two branches of a session compared.

use crate::common::{self, run, run_ok};

fn pi_built() -> std::path::PathBuf {
    common::corpus_dir().join("pi-built.v3.jsonl")
}

#[test]
fn merge_base_names_the_newest_shared_entry() {
    let f = pi_built();
    // The failed attempt and the labelled retry part after the explanation.
    assert_eq!(run_ok(&f, &["merge-base", "e3472b97", "green"]), "30af4c7e\n");
    // An ancestor is its own merge base with a descendant.
    assert_eq!(run_ok(&f, &["merge-base", "start", "green"]), "80fbf1f2\n");
    assert_eq!(
        run_ok(&f, &["merge-base", "green", "green", "--json"]),
        "{\"mergeBase\":\"d2e5793f\"}\n"
    );
    let bad = run(&f, &["merge-base", "nosuchrev"]);
    assert_eq!(bad.code, 1, "{}", bad.stderr);
}

#[test]
fn diff_shows_each_side_after_the_base() {
    let f = pi_built();
    let out = run_ok(&f, &["diff", "e3472b97", "green"]);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("merge base 30af4c7e "), "{out}");
    assert_eq!(lines[1], "< e3472b97 (6 entries after the merge base)");
    let left: Vec<&str> = lines
        .iter()
        .filter(|l| l.starts_with("< ") && !l.contains("after the merge base"))
        .copied()
        .collect();
    let right: Vec<&str> = lines
        .iter()
        .filter(|l| l.starts_with("> ") && !l.contains("after the merge base"))
        .copied()
        .collect();
    assert_eq!(left.len(), 6);
    assert_eq!(right.len(), 5);
    // Oldest first on each side, ending at its tip.
    assert!(
        left[0].starts_with("< 305e383a") && left[5].starts_with("< e3472b97"),
        "{out}"
    );
    assert!(
        right[4].starts_with("> d2e5793f") && right[4].contains("Done; all tests pass."),
        "{out}"
    );
    // The JSON: a head record, then one record per entry with its side.
    let records = common::ndjson(&run_ok(&f, &["diff", "e3472b97", "green", "--json"]));
    assert_eq!(records[0]["mergeBase"], "30af4c7e");
    assert_eq!(records[0]["right"], "d2e5793f");
    assert_eq!(records.iter().filter(|r| r["side"] == "left").count(), 6);
    assert_eq!(records.iter().filter(|r| r["side"] == "right").count(), 5);
    assert_eq!(records[2]["role"], "user");
    assert_eq!(records[2]["preview"], "Refactor it to use an iterator.");
}

#[test]
fn diff_stat_sums_each_side() {
    let f = pi_built();
    let records = common::ndjson(&run_ok(&f, &["diff", "e3472b97", "green", "--stat", "--json"]));
    assert_eq!(records.len(), 3);
    let (l, r) = (&records[1], &records[2]);
    assert_eq!((l["side"].as_str(), r["side"].as_str()), (Some("left"), Some("right")));
    assert_eq!((l["entries"].as_u64(), l["messages"].as_u64()), (Some(6), Some(5)));
    assert_eq!(
        l["roles"],
        serde_json::json!({"user": 1, "assistant": 2, "toolResult": 2})
    );
    assert_eq!(l["tools"], serde_json::json!({"edit": 1, "bash": 1}));
    assert_eq!(r["tools"], serde_json::json!({"write": 1}));
    // Tokens and cost as `stats --branch` counts them, side by side.
    assert_eq!(l["totalTokens"], 2560);
    let human = run_ok(&f, &["diff", "e3472b97", "green", "--stat"]);
    assert!(human.contains("tools         edit 1, bash 1  write 1"), "{human}");
    // Since a label on @'s own branch: one side is empty.
    let since = common::ndjson(&run_ok(&f, &["diff", "@", "start", "--stat", "--json"]));
    assert_eq!(since[2]["entries"], 0);
}
