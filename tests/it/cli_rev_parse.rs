//! `pi-session rev-parse`: the full ids that revisions name.

use crate::common;

use common::{cmd, example, fixture, run_ok};
use std::path::Path;

fn rev_parse(file: &Path, revs: &[&str]) -> Vec<String> {
    let mut args = vec!["rev-parse"];
    args.extend_from_slice(revs);
    run_ok(file, &args).lines().map(str::to_owned).collect()
}

fn one(file: &Path, rev: &str) -> String {
    let ids = rev_parse(file, &[rev]);
    assert_eq!(ids.len(), 1, "rev-parse {rev}: {ids:?}");
    ids.into_iter().next().unwrap()
}

/// Runs `rev-parse REVS…`, expecting failure; returns (code, stdout, stderr).
fn fail(file: &Path, revs: &[&str]) -> (i32, String, String) {
    let out = cmd().arg("-s").arg(file).arg("rev-parse").args(revs).output().unwrap();
    assert!(!out.status.success(), "rev-parse {revs:?} unexpectedly succeeded");
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn at_and_leaf() {
    assert_eq!(one(&example(), "@"), "b8731d22");
    let out = run_ok(&example(), &["rev-parse", "--leaf"]);
    assert_eq!(out, "b8731d22\n");
}

#[test]
fn root_is_the_first_entry_of_ats_branch() {
    assert_eq!(one(&example(), "root"), "cb75110e");
    assert_eq!(one(&fixture("several-roots.jsonl"), "root"), "7e570004");
    assert_eq!(one(&fixture("orphan.jsonl"), "root"), "0f0f0a01");
}

#[test]
fn ancestors() {
    let f = example();
    assert_eq!(one(&f, "@~0"), "b8731d22");
    assert_eq!(one(&f, "@~1"), "6fe7bd1a");
    assert_eq!(one(&f, "@~2"), "80fbf1f2");
    assert_eq!(one(&f, "@^"), "6fe7bd1a");
    assert_eq!(one(&f, "@^^"), "80fbf1f2");
    assert_eq!(one(&f, "@~"), "6fe7bd1a");
    assert_eq!(one(&f, "@~1^"), "80fbf1f2");
    assert_eq!(one(&f, "@~4"), "cb75110e");
    assert_eq!(one(&f, "d2e5793f~3"), "d679de06");
    assert_eq!(one(&f, "green^^^"), "d679de06");
    assert_eq!(one(&f, "d2e5~10"), "cb75110e");
}

#[test]
fn full_id_and_unique_prefix() {
    let f = example();
    assert_eq!(one(&f, "42d8d20f"), "42d8d20f");
    assert_eq!(one(&f, "42d8d20"), "42d8d20f");
    assert_eq!(one(&f, "42d8"), "42d8d20f");
    assert_eq!(one(&f, "id:42d8"), "42d8d20f");
    assert_eq!(one(&f, "id:42d8d20f"), "42d8d20f");
}

#[test]
fn too_short_prefix_fails() {
    // `42d` is unique but shorter than 4 characters.
    let (code, stdout, stderr) = fail(&example(), &["42d"]);
    assert_eq!(code, 1);
    assert_eq!(stdout, "");
    assert!(stderr.starts_with("error: unknown revision '42d'\n"), "{stderr}");
}

#[test]
fn ambiguous_prefix_lists_candidates() {
    let (code, stdout, stderr) = fail(&fixture("labels.jsonl"), &["1a2b"]);
    assert_eq!(code, 1);
    assert_eq!(stdout, "");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{stderr}");
    assert!(lines[0].starts_with("error: ambiguous revision '1a2b'"), "{stderr}");
    assert_eq!(
        lines[1],
        "hint: candidates: 1a2b3c01, 1a2b3c02, 1a2b3c03, 1a2b3c04, 1a2b3c05, 1a2b3c06"
    );
    let (_, _, stderr) = fail(&fixture("labels.jsonl"), &["id:1abe"]);
    assert!(stderr.contains("hint: candidates: 1abe1001, 1abe1002, "), "{stderr}");
}

#[test]
fn labels() {
    let f = example();
    assert_eq!(one(&f, "green"), "d2e5793f");
    assert_eq!(one(&f, "label:green"), "d2e5793f");
    assert_eq!(one(&f, "start"), "80fbf1f2");
    // A cleared label names nothing.
    let (code, _, stderr) = fail(&f, &["explained"]);
    assert_eq!(code, 1);
    assert!(stderr.starts_with("error: unknown revision 'explained'"), "{stderr}");
    // label: does not fall back to ids, id: does not fall back to labels.
    let (code, _, _) = fail(&f, &["label:42d8d20f"]);
    assert_eq!(code, 1);
    let (code, _, _) = fail(&f, &["id:green"]);
    assert_eq!(code, 1);

    let l = fixture("labels.jsonl");
    assert_eq!(one(&l, "root-cause"), "1a2b3c04");
    assert_eq!(one(&l, "done"), "1a2b3c06");
    assert_eq!(one(&l, "done~1"), "1a2b3c05");
    for cleared in ["question", "diagnosis", "fix-request"] {
        assert_eq!(fail(&l, &[cleared]).0, 1, "{cleared} was cleared or moved");
    }
}

#[test]
fn text_search_on_ats_branch() {
    let l = fixture("labels.jsonl");
    assert_eq!(one(&l, ":/Fix the loop"), "1a2b3c05");
    // The newest match wins: both 1a2b3c05 and 1a2b3c06 mention the loop.
    assert_eq!(one(&l, ":/loop"), "1a2b3c06");
    assert_eq!(one(&l, ":/cargo test"), "1a2b3c01");
    assert_eq!(one(&l, ":/Let me run"), "1a2b3c02");
    // The whole rest is the search text: no `~N` suffix after it.
    assert_eq!(fail(&l, &[":/loop~1"]).0, 1);
    // Tool results and thinking are not searched.
    assert_eq!(fail(&l, &[":/trailing_token"]).0, 1);
    assert_eq!(fail(&l, &[":/Run the failing test first"]).0, 1);
    // Only @'s branch is searched.
    let f = example();
    assert_eq!(one(&f, ":/explain"), "80fbf1f2");
    let (code, _, stderr) = fail(&f, &[":/iterator"]);
    assert_eq!(code, 1);
    assert!(stderr.starts_with("error: unknown revision ':/iterator'"), "{stderr}");
    // The error names the branch it searched (by where it ends) and points to grep.
    let lines: Vec<&str> = stderr.lines().collect();
    assert!(lines[0].contains("@'s branch (root to b8731d22)"), "{stderr}");
    assert!(lines[1].starts_with("hint: `pi-session -s "), "{stderr}");
    assert!(lines[1].contains(" grep iterator` searches every branch"), "{stderr}");
    let (_, _, stderr) = fail(&f, &[":/a (b"]);
    assert!(stderr.contains(" grep -F 'a (b'`"), "{stderr}");
}

#[test]
fn several_revisions_one_per_line() {
    let out = run_ok(&example(), &["rev-parse", "@", "root", "green", "42d8", "@^"]);
    assert_eq!(out, "b8731d22\ncb75110e\nd2e5793f\n42d8d20f\n6fe7bd1a\n");
    let out = run_ok(&fixture("labels.jsonl"), &["rev-parse", "--leaf", "@"]);
    assert_eq!(out, "1abe1007\n1a2b3c06\n");
}

#[test]
fn past_the_root_fails() {
    let (code, stdout, stderr) = fail(&example(), &["root~1"]);
    assert_eq!(code, 1);
    assert_eq!(stdout, "");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{stderr}");
    assert!(lines[0].starts_with("error: 'root~1' goes past the root"), "{stderr}");
    assert!(lines[1].starts_with("hint: "), "{stderr}");
    let (code, _, stderr) = fail(&example(), &["@~5"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("4 ancestors available"), "{stderr}");
}

#[test]
fn unknown_revision_fails_with_error_and_hint() {
    let (code, stdout, stderr) = fail(&example(), &["nosuchthing"]);
    assert_eq!(code, 1);
    assert_eq!(stdout, "");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{stderr}");
    assert_eq!(lines[0], "error: unknown revision 'nosuchthing'");
    assert!(lines[1].starts_with("hint: "), "{stderr}");
}

#[test]
fn invalid_revisions_fail() {
    for rev in ["@^2", "~2", "@~x", ""] {
        let (code, _, stderr) = fail(&example(), &[rev]);
        assert_eq!(code, 1, "{rev:?}");
        assert!(stderr.starts_with("error: "), "{rev:?}: {stderr}");
        assert!(stderr.contains("\nhint: "), "{rev:?}: {stderr}");
    }
}

#[test]
fn rev_or_leaf_is_required() {
    let out = cmd().arg("-s").arg(example()).arg("rev-parse").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn at_steps_back_over_trailing_labels() {
    let l = fixture("labels.jsonl");
    assert_eq!(one(&l, "@"), "1a2b3c06");
    assert_eq!(run_ok(&l, &["rev-parse", "--leaf"]), "1abe1007\n");
    // The entry under @ is the label entry in the middle of the chain, not the trailing ones.
    assert_eq!(one(&l, "@^"), "1a2b3c05");
    assert_eq!(one(&l, "@~2"), "1abe1002");
    assert_eq!(one(&l, "1abe1007~5"), "1a2b3c06");
}

#[test]
fn at_steps_back_over_a_checkout_record() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("checkout.jsonl");
    let mut data = std::fs::read(example()).unwrap();
    data.extend_from_slice(
        br#"{"type":"custom","customType":"pi-session.checkout","data":{"from":"b8731d22"},"id":"c0c0c0c0","parentId":"d2e5793f","timestamp":"2026-11-02T10:02:00.000Z"}"#,
    );
    data.push(b'\n');
    std::fs::write(&file, &data).unwrap();
    assert_eq!(one(&file, "@"), "d2e5793f");
    assert_eq!(run_ok(&file, &["rev-parse", "--leaf"]), "c0c0c0c0\n");
    assert_eq!(one(&file, "@^"), "f2707ba7");
    assert_eq!(one(&file, "root"), "cb75110e");
    // Other commands agree on @.
    let log = run_ok(&file, &["log", "-n", "1"]);
    assert!(log.starts_with("d2e5793f ") && log.contains("(@)"), "{log}");
    // A custom entry of another type at the tip is not stepped over.
    let other = dir.path().join("custom.jsonl");
    let mut data = std::fs::read(example()).unwrap();
    data.extend_from_slice(
        br#"{"type":"custom","customType":"my-ext","data":{"from":"b8731d22"},"id":"c0c0c0c1","parentId":"d2e5793f","timestamp":"2026-11-02T10:02:00.000Z"}"#,
    );
    data.push(b'\n');
    std::fs::write(&other, &data).unwrap();
    assert_eq!(one(&other, "@"), "c0c0c0c1");
}

#[test]
fn v1_revisions_use_synthesized_ids() {
    let f = fixture("v1.jsonl");
    assert_eq!(one(&f, "@"), "0000000e");
    assert_eq!(one(&f, "root"), "00000002");
    assert_eq!(one(&f, "@~3"), "0000000b");
    assert_eq!(one(&f, "0000000b^"), "0000000a");
}

/// What git and jj users type: jj's `@-` works; git's HEAD gets a hint naming `@`.
#[test]
fn git_and_jj_spellings() {
    let f = example();
    assert_eq!(one(&f, "@-"), "6fe7bd1a");
    assert_eq!(one(&f, "@--"), "80fbf1f2");
    for (rev, try_) in [("HEAD", "@"), ("HEAD~2", "@~2"), ("head^", "@^")] {
        let (code, stdout, stderr) = fail(&f, &[rev]);
        assert_eq!((code, stdout.as_str()), (1, ""));
        assert!(
            stderr.contains(&format!(
                "hint: git's HEAD is `@` here (where the conversation stands): try `{try_}`"
            )),
            "{stderr}"
        );
    }
}
