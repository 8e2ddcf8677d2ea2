//! Shared helpers of the integration tests.
#![allow(dead_code)]

pub mod ccusage;
pub mod llm_server;
pub mod oracle;
pub mod pi_cli;

use assert_cmd::Command;
use std::path::{Path, PathBuf};

/// Says that the running test skips, and why: `SKIPPED: <test>: <reason>` on stderr, once per
/// test. The harness has no "skipped" result (the test still counts as passed) and hides what
/// `eprintln!` prints in a passing test, so this writes to the stderr handle itself: every
/// skip shows in `cargo test`'s output, and `cargo test 2>&1 | grep SKIPPED` lists them.
pub fn skip(reason: &str) {
    use std::io::Write;
    static SAID: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let test = std::thread::current().name().unwrap_or("main").to_owned();
    let mut said = SAID.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    if !said.contains(&test) {
        let _ = writeln!(std::io::stderr(), "SKIPPED: {test}: {reason}");
        said.push(test);
    }
}

/// The corpus of real Pi sessions vendored in `tests/corpus` (provenance in its README).
pub fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

/// Corpus session files, sorted. The corpus is part of the repository.
pub fn corpus_files() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .expect("tests/corpus")
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    v.sort();
    v
}

/// The source sessions of another agent (`claude`, `codex`) under `tests/fixtures/import/`.
pub fn import_fixtures(agent: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/import")
        .join(agent);
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|r| r.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| p.extension().is_some_and(|x| x == "jsonl"));
    files.sort();
    files
}

/// Every fixture of every agent imported with `import --from AGENT FIXTURE -o TEMP`, asserted
/// to succeed: (the fixture, the folder holding the import, the imported file).
pub fn imported_fixtures() -> Vec<(PathBuf, tempfile::TempDir, PathBuf)> {
    let mut out = Vec::new();
    for agent in ["claude", "codex"] {
        let sources = import_fixtures(agent);
        assert!(!sources.is_empty(), "no {agent} fixtures");
        for src in sources {
            let dir = tempfile::tempdir().unwrap();
            let file = dir.path().join("imported.jsonl");
            let run = cmd()
                .args(["import", "--from", agent])
                .arg(&src)
                .arg("-o")
                .arg(&file)
                .output()
                .unwrap();
            assert!(
                run.status.success(),
                "{}: {}",
                src.display(),
                String::from_utf8_lossy(&run.stderr)
            );
            out.push((src, dir, file));
        }
    }
    out
}

pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name)
}

/// `pi-session` with a clean environment: no color, no width (COLUMNS) or Pi agent dir of the developer's, and
/// caches ([`cache_home`]) kept under the build's temporary folder rather than the developer's.
pub fn cmd() -> Command {
    let mut c = Command::cargo_bin("pi-session").unwrap();
    c.env_remove("PI_CODING_AGENT_DIR")
        .env_remove("COLUMNS")
        .env_remove("PI_CODING_AGENT_SESSION_DIR")
        .env("XDG_CACHE_HOME", cache_home())
        .env("NO_COLOR", "1")
        // Variables that force colour (CI services set them) would colour the tests that
        // remove NO_COLOR to see plain piped output.
        .env_remove("FORCE_COLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("CLICOLOR")
        .env("TZ", "UTC");
    c
}

/// The running test's cache folder (`XDG_CACHE_HOME` for [`cmd`]): one per test (the test
/// harness names each test's thread), under the build's temporary folder, so that no test
/// writes the developer's caches or another test's. Tests of the caches themselves keep
/// them in their own temporary folder.
pub fn cache_home() -> PathBuf {
    let test = std::thread::current().name().unwrap_or("main").replace("::", "-");
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("xdg-cache").join(test)
}

/// Runs `pi-session -s FILE ARGS…`, asserts success, returns stdout.
pub fn run_ok(file: &Path, args: &[&str]) -> String {
    let out = cmd().arg("-s").arg(file).args(args).output().unwrap();
    assert!(
        out.status.success(),
        "pi-session {args:?} on {} failed: {}",
        file.display(),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Parses NDJSON output.
pub fn ndjson(s: &str) -> Vec<serde_json::Value> {
    s.lines()
        .map(|l| pi_session::json::jsparse::parse(l.as_bytes()).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// JSON equality where numbers compare by value (`1` equals `1.0`), as JavaScript sees them.
pub fn json_eq(a: &serde_json::Value, b: &serde_json::Value) -> bool {
    use serde_json::Value::*;
    match (a, b) {
        (Number(x), Number(y)) => x.as_f64() == y.as_f64(),
        (Array(x), Array(y)) => x.len() == y.len() && x.iter().zip(y).all(|(p, q)| json_eq(p, q)),
        (Object(x), Object(y)) => x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w))),
        _ => a == b,
    }
}

/// The entry lines of a file as Pi keeps them: (line number, bytes without `\n` and `\r`)
/// of every non-blank line that parses as a JSON object, after the header, skipping `session` lines.
pub fn entry_lines(file: &Path) -> Vec<(u32, Vec<u8>)> {
    let data = std::fs::read(file).unwrap();
    let mut out = Vec::new();
    let mut seen_header = false;
    for (i, line) in data.split(|&b| b == b'\n').enumerate() {
        let text = String::from_utf8_lossy(line);
        if text.trim().is_empty() {
            continue;
        }
        let Ok(v) = serde_json::from_str::<serde_json::Value>(&text) else {
            continue;
        };
        if !v.is_object() {
            continue;
        }
        if v.get("type").and_then(|t| t.as_str()) == Some("session") {
            seen_header = true;
            continue;
        }
        if seen_header {
            let l = line.strip_suffix(b"\r").unwrap_or(line);
            out.push((i as u32 + 1, l.to_vec()));
        }
    }
    out
}

/// A copy of `src` in a fresh temporary directory (same file name), with its modification
/// time an hour back, so write commands do not warn that Pi may have it open.
pub fn temp_copy(src: &Path) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(src.file_name().unwrap());
    std::fs::copy(src, &path).unwrap();
    let f = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    f.set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(3600))
        .unwrap();
    (dir, path)
}

/// The last line of a file, parsed.
pub fn last_entry(file: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(file).unwrap();
    serde_json::from_str(text.lines().last().unwrap()).unwrap()
}

/// The bundled example session (a copy of the corpus's pi-built.v3.jsonl).
pub fn example() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/session.jsonl")
}

/// What a run printed, and how it ended.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `pi-session -s FILE ARGS…`, whatever its outcome.
pub fn run(file: &Path, args: &[&str]) -> Run {
    let out = cmd().arg("-s").arg(file).args(args).output().unwrap();
    Run {
        code: out.status.code().unwrap(),
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr: String::from_utf8(out.stderr).unwrap(),
    }
}

/// Runs `pi-session -s FILE ARGS…`, which must exit with `code` and leave the file
/// byte-identical.
pub fn unchanged(file: &Path, args: &[&str], code: i32) -> Run {
    let before = std::fs::read(file).unwrap();
    let r = run(file, args);
    assert_eq!(r.code, code, "{args:?}: {} {}", r.stdout, r.stderr);
    assert!(std::fs::read(file).unwrap() == before, "{args:?} wrote to the file");
    r
}

/// The full id one revision names.
pub fn rev_parse(file: &Path, rev: &str) -> String {
    run_ok(file, &["rev-parse", rev]).trim().to_owned()
}
