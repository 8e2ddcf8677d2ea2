//! Commands about where the conversation stands read only the end of a file, and read
//! further back when they need to. Whatever they read that way, the answer is the one a
//! whole read gives: these tests force tiny first reads (`PI_SESSION_TIP_BYTES`) so every
//! command has to grow its read, and compare with the answer from a whole read.

use crate::common;

use common::{cmd, corpus_dir, fixture};
use std::path::{Path, PathBuf};

fn run(file: &Path, tip: Option<&str>, args: &[&str]) -> (i32, String, String) {
    let mut c = cmd();
    if let Some(t) = tip {
        c.env("PI_SESSION_TIP_BYTES", t);
    }
    let out = c.arg("-s").arg(file).args(args).output().unwrap();
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn files() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = [
        "real-large.v3.jsonl",
        "real-before-compaction.v3.jsonl",
        "pi-built.v3.jsonl",
        "pi-built-clone.v3.jsonl",
    ]
    .iter()
    .map(|f| corpus_dir().join(f))
    .collect();
    for f in [
        "labels.jsonl",
        "compaction-context-edit.jsonl",
        "several-roots.jsonl",
        "orphan.jsonl",
        "duplicate-ids.jsonl",
        "malformed-middle.jsonl",
    ] {
        v.push(fixture(f));
    }
    v
}

const READS: [&[&str]; 14] = [
    &["rev-parse", "@"],
    &["rev-parse", "--leaf", "@~1", "@~5", "@^^"],
    &["rev-parse", "root"],
    &["rev-parse", "@~100000"],
    &["log", "-n", "20"],
    &["log", "-n", "3", "--type", "compaction"],
    &["log", "--json"],
    &["log", "--role", "user", "-n", "2", "--json"],
    &["show", "@"],
    &["show", "@~7", "--json"],
    &["context", "--json"],
    &["context"],
    &["rev-parse", ":/the"],
    &["rev-parse", "start"],
];

#[test]
fn tip_reads_answer_like_whole_reads() {
    for file in files() {
        for args in READS {
            // `show` gives a byte offset instead of a line number when it read only the end.
            let strip = |mut r: (i32, String, String)| {
                r.1 =
                    r.1.lines()
                        .filter(|l| !l.starts_with("line "))
                        .map(|l| format!("{l}\n"))
                        .collect();
                r
            };
            let whole = strip(run(&file, Some("100000000000"), args));
            for tip in ["200", "3000", "100000"] {
                let part = strip(run(&file, Some(tip), args));
                assert_eq!(
                    part.0,
                    whole.0,
                    "{} {args:?} tip={tip}: exit code\n{}",
                    file.display(),
                    part.2
                );
                assert_eq!(part.1, whole.1, "{} {args:?} tip={tip}: stdout", file.display());
            }
        }
    }
}

fn copy(file: &Path) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let dest = dir.path().join("s.jsonl");
    std::fs::copy(file, &dest).unwrap();
    (dir, dest)
}

/// A written line without its random id and timestamp.
fn shape(line: &str) -> serde_json::Value {
    let mut v: serde_json::Value = serde_json::from_str(line).unwrap();
    let o = v.as_object_mut().unwrap();
    o.remove("id");
    o.remove("timestamp");
    v
}

#[test]
fn tip_writes_append_what_whole_reads_append() {
    for file in files() {
        for args in [
            &["label", "@~2", "tipmark"][..],
            &["checkout", "@~3"],
            &["checkout", "root"],
            &["label", "@", "x", "--expect-leaf", "nope"],
        ] {
            let (_a, whole) = copy(&file);
            let (_b, part) = copy(&file);
            let w = run(&whole, Some("100000000000"), args);
            let p = run(&part, Some("500"), args);
            assert_eq!(p.0, w.0, "{} {args:?}: exit code\n{}\n{}", file.display(), p.2, w.2);
            let (wt, pt) = (
                std::fs::read_to_string(&whole).unwrap(),
                std::fs::read_to_string(&part).unwrap(),
            );
            assert_eq!(wt.lines().count(), pt.lines().count(), "{} {args:?}", file.display());
            if wt != std::fs::read_to_string(&file).unwrap() {
                assert_eq!(
                    shape(wt.lines().last().unwrap()),
                    shape(pt.lines().last().unwrap()),
                    "{} {args:?}",
                    file.display()
                );
            }
        }
    }
}
