//! Narrow terminals (`COLUMNS=40`, which a pipe honours as a terminal's width): every line
//! of `usage`, `stats`, `ls`, `log`, `diff` and `tree` stays within the width; tables drop
//! or shorten columns rather than cut a number; deep trees are cut from the left as Pi's
//! `/tree` pans.

use crate::common::{self, cmd};
use std::path::{Path, PathBuf};
use unicode_width::UnicodeWidthStr;

const WIDTH: usize = 40;

fn large() -> PathBuf {
    common::corpus_dir().join("real-large.v3.jsonl")
}

/// `pi-session ARGS…` at `columns` columns; its stdout.
fn run_at(columns: usize, args: &[&str], dir: Option<&Path>) -> String {
    let mut c = cmd();
    // No Pi settings or sessions but the test's own.
    let none = Path::new(env!("CARGO_TARGET_TMPDIR")).join("no-pi-agent");
    c.env("COLUMNS", columns.to_string())
        .env("PI_CODING_AGENT_DIR", dir.unwrap_or(&none))
        .args(args);
    let out = c.output().unwrap();
    assert!(
        out.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn assert_within(what: &str, text: &str) {
    assert!(!text.trim().is_empty(), "{what}: no output");
    for line in text.lines() {
        assert!(
            line.width() <= WIDTH,
            "{what}: {} columns: {line:?}\n{text}",
            line.width()
        );
    }
}

/// No number cut: no word of digits (with `$`, `,` or `.`) ending in `…`.
fn assert_numbers_whole(what: &str, text: &str) {
    for word in text.split_whitespace() {
        let cut = word
            .strip_suffix('…')
            .is_some_and(|w| w.chars().all(|c| c.is_ascii_digit() || "$,.".contains(c)));
        assert!(!cut, "{what}: a number cut: {word:?}\n{text}");
    }
}

/// The `$…` amounts of the line that starts with `key`.
fn amounts(text: &str, key: &str) -> Vec<String> {
    let line = text
        .lines()
        .find(|l| l.trim_start().starts_with(key) && l.contains('$'))
        .unwrap_or_else(|| panic!("no {key} in {text}"));
    line.split_whitespace()
        .filter(|w| w.starts_with('$'))
        .map(str::to_owned)
        .collect()
}

#[test]
fn usage_and_stats_drop_columns_and_keep_every_number_whole() {
    let f = large();
    let f = f.to_str().unwrap();
    for args in [
        vec!["-s", f, "usage"],
        vec!["-s", f, "usage", "--by", "model,day"],
        vec!["-s", f, "usage", "--by", "session"],
        vec!["-s", f, "stats"],
    ] {
        let narrow = run_at(WIDTH, &args, None);
        let wide = run_at(300, &args, None);
        let what = args.join(" ");
        assert_within(&what, &narrow);
        assert_numbers_whole(&what, &narrow);
        // The cost column stays, the same amounts as in a wide table.
        assert_eq!(
            amounts(&narrow, "total"),
            amounts(&wide, "total"),
            "{what}:\n{narrow}\n{wide}"
        );
        assert!(!amounts(&narrow, "total").is_empty(), "{what}: no cost:\n{narrow}");
    }
}

#[test]
fn log_and_diff_rows_fit_by_shortening_the_time_and_cutting_previews() {
    let f = large();
    let f = f.to_str().unwrap();
    for args in [
        vec!["-s", f, "log", "-n", "30"],
        vec!["-s", f, "log", "-n", "30", "--oneline"],
        vec!["-s", f, "diff", "@~5", "@"],
        vec!["-s", f, "diff", "--stat", "@~5", "@"],
        vec!["-s", f, "diff", "--stat", "@~150", "@~3"],
    ] {
        assert_within(&args.join(" "), &run_at(WIDTH, &args, None));
    }
    // Each row keeps its id; at 60 columns the time keeps the day and minute, at 120 all of it.
    let narrow = run_at(WIDTH, &["-s", f, "log", "-n", "1"], None);
    assert!(narrow.starts_with("959a81b0 assistant"), "{narrow}");
    let mid = run_at(60, &["-s", f, "log", "-n", "1"], None);
    assert!(mid.starts_with("959a81b0 11-21 02:14 assistant"), "{mid}");
    let wide = run_at(120, &["-s", f, "log", "-n", "1"], None);
    assert!(wide.starts_with("959a81b0 2025-11-21 02:14:02 assistant"), "{wide}");
}

/// A session whose every message is a branch point: its tree's indentation grows by three
/// columns a level (90 columns at the bottom).
fn deep_session(dir: &Path) -> PathBuf {
    let mut lines = vec![
        r#"{"type":"session","version":3,"id":"deep","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/tmp"}"#.to_owned(),
    ];
    let mut parent = "null".to_owned();
    for d in 0..30 {
        let msg = |id: String, parent: &str, n: usize, text: String| {
            format!(
                r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2025-01-01T00:{:02}:{:02}.000Z","message":{{"role":"user","content":"{text}","timestamp":0}}}}"#,
                n / 60,
                n % 60
            )
        };
        let main = format!("m{d:07}");
        lines.push(msg(
            main.clone(),
            &parent,
            2 * d,
            format!("question {d}, long enough to be cut"),
        ));
        lines.push(msg(
            format!("s{d:07}"),
            &format!("\"{main}\""),
            2 * d + 1,
            format!("side {d}"),
        ));
        parent = format!("\"{main}\"");
    }
    let f = dir.join("deep.jsonl");
    std::fs::write(&f, lines.join("\n") + "\n").unwrap();
    f
}

#[test]
fn deep_tree_rows_are_cut_from_the_left_to_fit() {
    let dir = tempfile::tempdir().unwrap();
    let f = deep_session(dir.path());
    let f = f.to_str().unwrap();
    let narrow = run_at(WIDTH, &["-s", f, "tree"], None);
    assert_within("tree", &narrow);
    // Every entry keeps its id, the deep ones behind a cut prefix.
    for d in 0..30 {
        assert!(narrow.contains(&format!("m{d:07} • user")), "m{d}:\n{narrow}");
    }
    assert!(narrow.lines().any(|l| l.starts_with('…')), "{narrow}");
    assert_within("tree --all", &run_at(WIDTH, &["-s", f, "tree", "--all"], None));
    // Wide enough, nothing is cut.
    let wide = run_at(300, &["-s", f, "tree"], None);
    assert!(!wide.lines().any(|l| l.starts_with('…')), "{wide}");
}

#[test]
fn ls_rows_fit_by_shortening_the_time_and_dropping_the_directory() {
    let dir = tempfile::tempdir().unwrap();
    let agent = dir.path().join("agent");
    for (k, cwd) in ["/tmp/project-with-a-long-name/and/a/deep/folder", "/tmp/other"]
        .iter()
        .enumerate()
    {
        let folder = agent
            .join("sessions")
            .join(format!("--{}--", cwd.trim_start_matches('/').replace('/', "-")));
        std::fs::create_dir_all(&folder).unwrap();
        std::fs::write(
            folder.join(format!("s{k}.jsonl")),
            format!(
                "{{\"type\":\"session\",\"version\":3,\"id\":\"0123456{k}-aaaa\",\"timestamp\":\"2025-01-01T00:00:00.000Z\",\"cwd\":\"{cwd}\"}}\n\
                 {{\"type\":\"message\",\"id\":\"m1\",\"parentId\":null,\"timestamp\":\"2025-01-01T00:00:01.000Z\",\"message\":{{\"role\":\"user\",\"content\":\"a first message that is much longer than forty columns\",\"timestamp\":0}}}}\n"
            ),
        )
        .unwrap();
    }
    for args in [vec!["ls", "--all"], vec!["ls", "--all", "-v"]] {
        let narrow = run_at(WIDTH, &args, Some(&agent));
        assert_within(&args.join(" "), &narrow);
        assert!(narrow.contains("01-01 ") && narrow.contains("01234560"), "{narrow}");
    }
    let wide = run_at(200, &["ls", "--all"], Some(&agent));
    assert!(wide.contains("2025-01-01 ") && wide.contains("CWD"), "{wide}");
}
