//! `pi-session log --follow`: entries printed as they are appended, a torn line held back
//! until its newline, a file replaced or cut read again, `@` moving to another branch, and
//! `--wait` for a file not there yet. Every wait for output is bounded (10 s a line); no
//! test asserts how fast a line comes.

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How long a line that must come is waited for.
const LINE: Duration = Duration::from_secs(10);
/// How long a line that must not come (yet) is waited for.
const QUIET: Duration = Duration::from_millis(400);

/// A running `pi-session log -f`, killed when dropped, its stdout and stderr read by lines.
struct Follow {
    child: Child,
    out: Receiver<String>,
    err: Receiver<String>,
}

impl Follow {
    fn start(file: &Path, args: &[&str]) -> Follow {
        let mut child = Command::new(assert_cmd::cargo::cargo_bin!("pi-session"))
            .env_remove("PI_CODING_AGENT_DIR")
            .env_remove("PI_CODING_AGENT_SESSION_DIR")
            .env("NO_COLOR", "1")
            .env("TZ", "UTC")
            .arg("-s")
            .arg(file)
            .args(["log", "-f"])
            .args(args)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let out = lines(child.stdout.take().unwrap());
        let err = lines(child.stderr.take().unwrap());
        Follow { child, out, err }
    }

    /// The next line printed on stdout.
    fn line(&self) -> String {
        self.out
            .recv_timeout(LINE)
            .unwrap_or_else(|e| panic!("no line on stdout within {LINE:?}: {e:?}"))
    }

    /// The next line printed on stderr.
    fn notice(&self) -> String {
        self.err
            .recv_timeout(LINE)
            .unwrap_or_else(|e| panic!("no line on stderr within {LINE:?}: {e:?}"))
    }

    /// Nothing more is printed on stdout for a while.
    fn quiet(&self) {
        match self.out.recv_timeout(QUIET) {
            Err(RecvTimeoutError::Timeout) => {}
            other => panic!("expected nothing printed, got {other:?}"),
        }
    }
}

impl Drop for Follow {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn lines(stream: impl std::io::Read + Send + 'static) -> Receiver<String> {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stream).lines() {
            let Ok(line) = line else { return };
            if tx.send(line).is_err() {
                return;
            }
        }
    });
    rx
}

const HEADER: &str = r#"{"type":"session","version":3,"id":"019a0000-0000-7000-8000-000000000001","timestamp":"2026-03-04T14:30:00.000Z","cwd":"/x"}"#;

/// A user message line with this id and parent.
fn entry(id: &str, parent: Option<&str>) -> String {
    let parent = parent.map_or("null".to_owned(), |p| format!("\"{p}\""));
    format!(
        r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2026-03-04T14:30:01.000Z","message":{{"role":"user","content":"text of {id}","timestamp":1772634601000}}}}"#
    )
}

/// Appends bytes in one write, as Pi appends a line.
fn append(file: &Path, bytes: &str) {
    let mut f = std::fs::OpenOptions::new().append(true).open(file).unwrap();
    f.write_all(bytes.as_bytes()).unwrap();
}

/// A session of a header and a two-entry branch: `a1` ← `a2`.
fn session(dir: &Path) -> PathBuf {
    let file = dir.join("s.jsonl");
    let text = format!("{HEADER}\n{}\n{}\n", entry("a1", None), entry("a2", Some("a1")));
    std::fs::write(&file, text).unwrap();
    file
}

#[test]
fn json_prints_what_log_prints_then_each_line_appended() {
    let dir = tempfile::tempdir().unwrap();
    let file = session(dir.path());
    let f = Follow::start(&file, &["--json"]);
    // The first part is `log --json`: the branch of @, newest first.
    assert_eq!(f.line(), entry("a2", Some("a1")));
    assert_eq!(f.line(), entry("a1", None));
    append(&file, &format!("{}\n", entry("a3", Some("a2"))));
    assert_eq!(f.line(), entry("a3", Some("a2")));
    // A line written in two pieces is printed once its newline is there, whole.
    let torn = entry("a4", Some("a3"));
    let (head, tail) = torn.split_at(40);
    append(&file, head);
    f.quiet();
    append(&file, &format!("{tail}\n"));
    assert_eq!(f.line(), torn);
    // Two lines in one write.
    append(
        &file,
        &format!("{}\n{}\n", entry("a5", Some("a4")), entry("a6", Some("a5"))),
    );
    assert_eq!(f.line(), entry("a5", Some("a4")));
    assert_eq!(f.line(), entry("a6", Some("a5")));
}

#[test]
fn the_branch_of_at_is_followed_and_a_move_is_told() {
    let dir = tempfile::tempdir().unwrap();
    let file = session(dir.path());
    let f = Follow::start(&file, &["--json"]);
    f.line();
    f.line();
    // A sibling of a2: @ moves to another branch.
    append(&file, &format!("{}\n", entry("b2", Some("a1"))));
    assert_eq!(f.line(), entry("b2", Some("a1")));
    assert_eq!(f.notice(), "@ moved to branch of b2");
    // A label is bookkeeping: @ stays, nothing is printed until the next message, which
    // brings the label onto the branch.
    let label = r#"{"type":"label","id":"l1","parentId":"b2","timestamp":"2026-03-04T14:30:02.000Z","targetId":"a1","label":"start"}"#;
    append(&file, &format!("{label}\n"));
    f.quiet();
    append(&file, &format!("{}\n", entry("b3", Some("l1"))));
    assert_eq!(f.line(), label);
    assert_eq!(f.line(), entry("b3", Some("l1")));
}

#[test]
fn all_follows_every_entry_in_append_order() {
    let dir = tempfile::tempdir().unwrap();
    let file = session(dir.path());
    let f = Follow::start(&file, &["--all", "--json"]);
    assert_eq!(f.line(), entry("a1", None));
    assert_eq!(f.line(), entry("a2", Some("a1")));
    append(
        &file,
        &format!("{}\n{}\n", entry("b2", Some("a1")), entry("a3", Some("a2"))),
    );
    assert_eq!(f.line(), entry("b2", Some("a1")));
    assert_eq!(f.line(), entry("a3", Some("a2")));
}

#[test]
fn a_file_renamed_over_or_cut_is_read_again_without_repeating_entries() {
    let dir = tempfile::tempdir().unwrap();
    let file = session(dir.path());
    let f = Follow::start(&file, &["--all", "--json"]);
    f.line();
    f.line();
    // As `repair` does: a new file renamed over the old one, with one entry more.
    let other = dir.path().join("s.jsonl.tmp");
    let text = std::fs::read_to_string(&file).unwrap();
    std::fs::write(&other, format!("{text}{}\n", entry("a3", Some("a2")))).unwrap();
    std::fs::rename(&other, &file).unwrap();
    let notice = f.notice();
    assert!(notice.contains("the file was replaced"), "{notice}");
    assert_eq!(f.line(), entry("a3", Some("a2")));
    // Cut short, then an entry not seen before.
    std::fs::OpenOptions::new()
        .write(true)
        .open(&file)
        .unwrap()
        .set_len((HEADER.len() + 1) as u64)
        .unwrap();
    let notice = f.notice();
    assert!(notice.contains("the file was truncated"), "{notice}");
    append(&file, &format!("{}\n", entry("c1", None)));
    assert_eq!(f.line(), entry("c1", None));
    // Entries seen before come back: not printed again.
    append(&file, &format!("{}\n", entry("a1", None)));
    append(&file, &format!("{}\n", entry("c2", Some("c1"))));
    assert_eq!(f.line(), entry("c2", Some("c1")));
}

#[test]
fn a_file_replaced_by_an_empty_one_for_a_moment_is_waited_out() {
    let dir = tempfile::tempdir().unwrap();
    let file = session(dir.path());
    let mut f = Follow::start(&file, &["--all", "--json"]);
    f.line();
    f.line();
    let text = std::fs::read_to_string(&file).unwrap();
    let other = dir.path().join("s.jsonl.tmp");
    std::fs::write(&other, "").unwrap();
    std::fs::rename(&other, &file).unwrap();
    f.quiet();
    assert!(f.child.try_wait().unwrap().is_none(), "log -f stopped on an empty file");
    std::fs::write(&other, format!("{text}{}\n", entry("a3", Some("a2")))).unwrap();
    std::fs::rename(&other, &file).unwrap();
    assert!(f.notice().contains("the file was replaced"));
    assert_eq!(f.line(), entry("a3", Some("a2")));
}

#[test]
fn wait_follows_a_file_that_does_not_exist_yet() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("later.jsonl");
    let f = Follow::start(&file, &["--wait", "--all", "--json"]);
    f.quiet();
    std::fs::write(&file, format!("{HEADER}\n{}\n", entry("a1", None))).unwrap();
    assert_eq!(f.line(), entry("a1", None));
    append(&file, &format!("{}\n", entry("a2", Some("a1"))));
    assert_eq!(f.line(), entry("a2", Some("a1")));
}

#[test]
fn without_wait_a_missing_file_is_the_usual_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(assert_cmd::cargo::cargo_bin!("pi-session"))
        .arg("-s")
        .arg(dir.path().join("none.jsonl"))
        .args(["log", "-f"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("No such file"));
}

#[test]
fn human_lines_follow_too() {
    let dir = tempfile::tempdir().unwrap();
    let file = session(dir.path());
    let f = Follow::start(&file, &["--reverse"]);
    assert!(f.line().starts_with("a1 "));
    assert!(f.line().starts_with("a2 "));
    append(&file, &format!("{}\n", entry("a3", Some("a2"))));
    let line = f.line();
    assert!(
        line.starts_with("a3 ") && line.contains("(@)") && line.contains("text of a3"),
        "{line}"
    );
}

#[test]
fn oneline_format_after_and_dates_follow_too() {
    let dir = tempfile::tempdir().unwrap();
    let file = session(dir.path());
    let f = Follow::start(&file, &["--oneline", "--reverse"]);
    assert_eq!(f.line(), "a1 user text of a1");
    assert_eq!(f.line(), "a2 user (@) text of a2");
    append(&file, &format!("{}\n", entry("a3", Some("a2"))));
    assert_eq!(f.line(), "a3 user (@) text of a3");
    drop(f);

    let f = Follow::start(&file, &["--all", "--after", "a2", "--format", "%H<-%P"]);
    assert_eq!(f.line(), "a3<-a2");
    append(&file, &format!("{}\n", entry("a4", Some("a3"))));
    assert_eq!(f.line(), "a4<-a3");
    drop(f);

    // Every entry here is from 2026-03-04 14:30:01: before the date, nothing shows, then
    // or later.
    let f = Follow::start(&file, &["--all", "--format", "%H", "--since", "2026-03-05"]);
    append(&file, &format!("{}\n", entry("a5", Some("a4"))));
    f.quiet();
    drop(f);
    let f = Follow::start(
        &file,
        &["--all", "--format", "%H", "--until", "2026-03-04T14:30:01Z", "-n", "1"],
    );
    assert_eq!(f.line(), "a1");
    append(&file, &format!("{}\n", entry("a6", Some("a5"))));
    assert_eq!(f.line(), "a6");
}

/// Not a test of speed: measures how long an appended line takes to be printed, and
/// prints the median (`cargo test log_follow_latency -- --ignored --nocapture`).
#[test]
#[ignore]
fn log_follow_latency() {
    let dir = tempfile::tempdir().unwrap();
    let file = session(dir.path());
    let f = Follow::start(&file, &["--all", "--json"]);
    f.line();
    f.line();
    let mut took = Vec::new();
    let mut parent = "a2".to_owned();
    for k in 0..50 {
        let id = format!("n{k}");
        std::thread::sleep(Duration::from_millis(20));
        let at = Instant::now();
        append(&file, &format!("{}\n", entry(&id, Some(&parent))));
        assert_eq!(f.line(), entry(&id, Some(&parent)));
        took.push(at.elapsed());
        parent = id;
    }
    took.sort();
    eprintln!(
        "log -f latency over {} appends: median {:?}, max {:?}",
        took.len(),
        took[took.len() / 2],
        took[took.len() - 1]
    );
}
