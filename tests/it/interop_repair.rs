//! Pi 1.6.0 opens every file `pi-session repair` wrote without changing it, and reads what
//! the report's `after` promises: the same leaf, `@`, branch, entry count and context.
//! Skipped when the oracle (node + Pi) is missing, see `tests/common/oracle.rs`.

use crate::common;

use common::oracle::run_oracle;
use common::{cmd, corpus_dir, fixture, json_eq, ndjson, run_ok};
use serde_json::Value;
use std::fs;
use std::path::Path;

/// Copies `src` into a temp dir, repairs it, and checks Pi's reading of the result.
fn repaired_reads_as_promised(src: &Path) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(src.file_name().unwrap());
    fs::copy(src, &path).unwrap();
    let what = src.file_name().unwrap().to_string_lossy().into_owned();

    let out = cmd().arg("-s").arg(&path).args(["repair", "--json"]).output().unwrap();
    assert!(
        out.status.success(),
        "{what}: repair failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let objects = ndjson(&String::from_utf8(out.stdout).unwrap());
    let summary = objects.last().expect("a summary");
    assert!(
        matches!(summary["result"].as_str(), Some("repaired" | "clean")),
        "{what}: {summary}"
    );
    let after = &summary["after"];
    assert!(after.is_object(), "{what}: no `after`: {summary}");

    let Some(pi) = run_oracle(&path, &[]) else { return };
    assert!(
        pi.get("error").is_none(),
        "{what}: Pi refuses the repaired file: {}",
        pi["error"]
    );
    assert_eq!(pi["rewritten"], false, "{what}: Pi rewrites the repaired file");
    for flag in ["branchCycle", "contextCycle", "treeCycle"] {
        assert!(pi.get(flag).is_none(), "{what}: Pi would loop ({flag})");
    }
    assert_eq!(pi["leaf"], after["leaf"], "{what}: leaf");
    assert_eq!(pi["at"], after["at"], "{what}: @");
    assert_eq!(
        pi["branch"].as_array().map(Vec::len),
        after["branch"].as_u64().map(|n| n as usize),
        "{what}: branch length"
    );
    assert_eq!(
        pi["entries"].as_array().map(Vec::len),
        after["entries"].as_u64().map(|n| n as usize),
        "{what}: entries"
    );
    let messages = pi["context"]["messages"].as_array().expect("context messages");
    assert_eq!(
        Some(messages.len()),
        after["context_messages"].as_u64().map(|n| n as usize),
        "{what}: context messages"
    );

    let ours = ndjson(&run_ok(&path, &["context", "--json"]));
    assert_eq!(ours.len(), messages.len(), "{what}: context --json message count");
    for (k, (a, b)) in ours.iter().zip(messages).enumerate() {
        assert!(
            json_eq(a, b),
            "{what}: context message {k} differs\nours: {a}\npi:   {b}"
        );
    }
    // The repaired header is one Pi accepts, with the id the repaired file has.
    let first_line: Value =
        serde_json::from_slice(fs::read(&path).unwrap().split(|&b| b == b'\n').next().unwrap()).expect("a JSON header");
    assert_eq!(pi["header"]["id"], first_line["id"], "{what}: session id");
    assert_eq!(pi["header"]["version"], 3, "{what}: version");
}

macro_rules! fixtures {
    ($($test:ident => $file:expr,)*) => {
        $(
            #[test]
            fn $test() {
                repaired_reads_as_promised(&fixture("repair").join($file));
            }
        )*

        /// Every fixture of the folder is listed above.
        #[test]
        fn every_fixture_is_listed() {
            let listed = [$($file),*];
            for e in fs::read_dir(fixture("repair")).unwrap() {
                let name = e.unwrap().file_name().to_string_lossy().into_owned();
                if name.ends_with(".jsonl") {
                    assert!(listed.contains(&name.as_str()), "{name} is not listed");
                }
            }
        }
    };
}

fixtures! {
    malformed_middle => "malformed-middle.jsonl",
    torn_last_line => "torn-last-line.jsonl",
    nul_tail => "nul-tail.jsonl",
    nul_glued => "nul-glued.jsonl",
    bom => "bom.jsonl",
    crlf => "crlf.jsonl",
    blank_lines => "blank-lines.jsonl",
    invalid_utf8 => "invalid-utf8.jsonl",
    missing_header => "2026-01-02T03-04-05-006Z_0196a0b0-1111-7222-8333-944455556666.jsonl",
    misplaced_header => "misplaced-header.jsonl",
    header_without_id => "header-without-id.jsonl",
    extra_header => "extra-header.jsonl",
    v1 => "v1.jsonl",
    v2 => "v2.jsonl",
    duplicate_ids => "duplicate-ids.jsonl",
    orphan => "orphan.jsonl",
    parent_cycle => "parent-cycle.jsonl",
    self_parent => "self-parent.jsonl",
    dangling_label => "dangling-label.jsonl",
    dangling_context_edit => "dangling-context-edit.jsonl",
    context_edit_without_replacement => "context-edit-without-replacement.jsonl",
    dangling_first_kept => "dangling-first-kept.jsonl",
    missing_id => "missing-id.jsonl",
    joined_lines => "joined-lines.jsonl",
    orphan_tool_result => "orphan-tool-result.jsonl",
    unanswered_tool_call => "unanswered-tool-call.jsonl",
}

#[test]
fn corpus_v1_before_compaction() {
    repaired_reads_as_promised(&corpus_dir().join("real-before-compaction.v1.jsonl"));
}

#[test]
fn corpus_v1_large() {
    repaired_reads_as_promised(&corpus_dir().join("real-large.v1.jsonl"));
}

/// The v1 corpus files migrate to the very files Pi's own migration produced (the v3
/// twins), apart from the ids Pi drew at random: same entries, same context.
#[test]
fn corpus_v1_migrates_like_its_v3_twin() {
    for stem in ["real-before-compaction", "real-large"] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(format!("{stem}.v1.jsonl"));
        fs::copy(corpus_dir().join(format!("{stem}.v1.jsonl")), &path).unwrap();
        run_ok(&path, &["repair"]);
        let twin = corpus_dir().join(format!("{stem}.v3.jsonl"));
        let ours = ndjson(&run_ok(&path, &["context", "--json"]));
        let theirs = ndjson(&run_ok(&twin, &["context", "--json"]));
        assert_eq!(ours.len(), theirs.len(), "{stem}: context messages");
        for (k, (a, b)) in ours.iter().zip(&theirs).enumerate() {
            assert!(
                json_eq(a, b),
                "{stem}: context message {k} differs\nours: {a}\nv3:   {b}"
            );
        }
    }
}

/// Repair migrates a v1 file byte for byte as Pi 1.6.0 did (the corpus v3 twins are the v1
/// files after Pi opened them), apart from the ids, which Pi draws at random.
#[test]
fn corpus_v1_migration_is_byte_identical_to_pis_up_to_ids() {
    for stem in ["real-before-compaction", "real-large"] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(format!("{stem}.v1.jsonl"));
        fs::copy(corpus_dir().join(format!("{stem}.v1.jsonl")), &path).unwrap();
        run_ok(&path, &["repair"]);
        let ours = fs::read_to_string(&path).unwrap();
        let theirs = fs::read_to_string(corpus_dir().join(format!("{stem}.v3.jsonl"))).unwrap();
        let ours: Vec<&str> = ours.lines().collect();
        let theirs: Vec<&str> = theirs.lines().collect();
        assert_eq!(ours.len(), theirs.len(), "{stem}: lines");
        let id = |l: &str| -> Option<String> {
            let v: Value = serde_json::from_str(l).unwrap();
            (v["type"] != "session").then(|| v["id"].as_str().unwrap().to_owned())
        };
        let map: std::collections::HashMap<String, String> = ours
            .iter()
            .zip(&theirs)
            .filter_map(|(a, b)| Some((id(a)?, id(b)?)))
            .collect();
        for (k, (a, b)) in ours.iter().zip(&theirs).enumerate() {
            let v: Value = serde_json::from_str(a).unwrap();
            let mut line = (*a).to_owned();
            for key in ["id", "parentId", "firstKeptEntryId"] {
                if v["type"] != "session"
                    && let Some(ours_id) = v[key].as_str()
                {
                    line = line.replace(
                        &format!("\"{key}\":\"{ours_id}\""),
                        &format!("\"{key}\":\"{}\"", map[ours_id]),
                    );
                }
            }
            assert_eq!(&line, b, "{stem}: line {}", k + 1);
        }
    }
}

/// Reproducers from outside testers (`tests/fixtures/outside/`): files Pi opens that repair
/// once could not settle (CRs), a value before the header (Pi refuses the file; repaired,
/// it opens), and lines only an exact `JSON.parse` reads (no damage: left as they are).
#[test]
fn outside_reproducers() {
    for name in [
        "header-double-cr.jsonl",
        "line-triple-cr.jsonl",
        "nonobject-before-header.jsonl",
        "lone-surrogate-user-string.jsonl",
        "lone-surrogate-user-string-midsession.jsonl",
        "lone-surrogate-text-block.jsonl",
        "number-out-of-range.jsonl",
        "deep-nesting-128.jsonl",
    ] {
        repaired_reads_as_promised(&fixture("outside").join(name));
    }
    // Entries Pi throws on when it opens or resumes the file.
    for name in [
        "message-null.jsonl",
        "no-message-field.jsonl",
        "session-info-name-object.jsonl",
    ] {
        repaired_reads_as_promised(&fixture("outside-2").join(name));
    }
}

/// A JSON value that is not an object before the header: Pi refuses the file, and so does
/// pi-session.
#[test]
fn a_value_before_the_header_is_refused_by_both() {
    let src = fixture("outside").join("nonobject-before-header.jsonl");
    let r = common::run(&src, &["log"]);
    assert_ne!(r.code, 0);
    assert!(r.stderr.contains("not a Pi session"), "{}", r.stderr);
    let Some(pi) = run_oracle(&src, &[]) else { return };
    assert!(pi.get("error").is_some(), "Pi opens it: {pi}");
}
