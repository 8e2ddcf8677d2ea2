//! Progress of long work (`export`, `repair`, `redact`, `compact` waiting on a summarizer):
//! drawn on a terminal's stderr once a phase has lasted a second, never in a pipe nor
//! with `--json`.

use crate::common::{self, cmd};
use std::path::{Path, PathBuf};

/// A summarizer slower than the one-second delay, so that a terminal would get a spinner.
const SLOW_SUMMARIZER: &str = "sleep 1.5; cat >/dev/null; echo summary";

fn copy(file: &Path) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let dest = dir.path().join("s.jsonl");
    std::fs::copy(file, &dest).unwrap();
    (dir, dest)
}

/// No Pi settings but the test's own (none).
fn no_agent() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("no-pi-agent")
}

fn assert_nothing_drawn(stderr: &[u8], what: &str) {
    let text = String::from_utf8_lossy(stderr);
    assert!(
        !text.contains('\r') && !text.contains('\x1b'),
        "{what}: progress drawn into a pipe: {text:?}"
    );
    assert!(!text.contains("waiting for"), "{what}: {text:?}");
}

#[test]
fn compact_waiting_on_a_summarizer_draws_nothing_into_a_pipe() {
    let (_d, f) = copy(&common::corpus_dir().join("real-large.v3.jsonl"));
    let out = cmd()
        .env("PI_CODING_AGENT_DIR", no_agent())
        .arg("-s")
        .arg(&f)
        .args([
            "compact",
            "--keep-recent-tokens",
            "3000",
            "--summarizer",
            SLOW_SUMMARIZER,
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_nothing_drawn(&out.stderr, "compact");
}

#[test]
fn export_repair_and_redact_draw_nothing_into_a_pipe() {
    let (d, f) = copy(&common::fixture("crlf.jsonl"));
    let html = d.path().join("t.html");
    let runs: [(&str, Vec<&std::ffi::OsStr>); 4] = [
        ("export", vec!["export".as_ref(), "-o".as_ref(), html.as_os_str()]),
        ("repair", vec!["repair".as_ref()]),
        ("redact", vec!["redact".as_ref(), "--dry-run".as_ref()]),
        ("redact --json", vec!["redact".as_ref(), "--json".as_ref()]),
    ];
    for (what, args) in runs {
        let out = cmd()
            .env("PI_CODING_AGENT_DIR", no_agent())
            .arg("-s")
            .arg(&f)
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{what}: {}", String::from_utf8_lossy(&out.stderr));
        assert_nothing_drawn(&out.stderr, what);
    }
}

/// On a terminal (a pseudo-terminal from util-linux's `script`) the wait is shown, and
/// cleared before the command's last words.
#[test]
fn compact_waiting_on_a_summarizer_shows_a_spinner_on_a_terminal() {
    if std::process::Command::new("script").arg("--version").output().is_err() {
        eprintln!("SKIPPED: no `script` (util-linux) to give the command a terminal");
        return;
    }
    let (d, f) = copy(&common::corpus_dir().join("real-large.v3.jsonl"));
    let typescript = d.path().join("typescript");
    let bin = assert_cmd::cargo::cargo_bin("pi-session");
    let line = format!(
        "'{}' -s '{}' compact --keep-recent-tokens 3000 --summarizer '{SLOW_SUMMARIZER}'",
        bin.display(),
        f.display()
    );
    let mut script = std::process::Command::new("script");
    script.args(["-qec", &line]).arg(&typescript);
    for (k, v) in cmd().env("PI_CODING_AGENT_DIR", no_agent()).get_envs() {
        match v {
            Some(v) => script.env(k, v),
            None => script.env_remove(k),
        };
    }
    let out = script.env("PAGER", "cat").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let seen = String::from_utf8_lossy(&std::fs::read(&typescript).unwrap()).into_owned();
    assert!(seen.contains("waiting for the summarizer command"), "{seen}");
    assert!(seen.contains("compacted "), "{seen}");
}
