//! The append protocol every write command shares: one whole new line after the untouched
//! old bytes, Pi's leading keys, fresh ids, torn last lines, old formats, `--expect-leaf`,
//! the lock, the "Pi may have it open" warning, refusals that write nothing, and appends
//! racing a plain appender that stands in for Pi.

use crate::common;

use common::{Run, cmd, corpus_files, example, fixture, run, run_ok};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant, SystemTime};
use tempfile::TempDir;

/// Copies `src` into a fresh temporary directory, with a modification time an hour ago
/// (so the "changed in the last few seconds" warning stays out of the way unless wanted).
fn temp_copy(src: &Path) -> (TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(src.file_name().unwrap());
    fs::copy(src, &path).unwrap();
    set_age(&path, Duration::from_secs(3600));
    (dir, path)
}

fn set_age(path: &Path, age: Duration) {
    let f = OpenOptions::new().write(true).open(path).unwrap();
    f.set_modified(SystemTime::now() - age).unwrap();
}

fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Every `id` in the lines of `data`.
fn ids_in(data: &[u8]) -> HashSet<String> {
    data.split(|&b| b == b'\n')
        .filter_map(|l| serde_json::from_slice::<Value>(l).ok())
        .filter_map(|v| v.get("id").and_then(Value::as_str).map(str::to_owned))
        .collect()
}

fn is_iso_millis(s: &str) -> bool {
    // ^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$
    let pattern = "dddd-dd-ddTdd:dd:dd.dddZ";
    s.len() == pattern.len()
        && s.bytes().zip(pattern.bytes()).all(|(c, p)| match p {
            b'd' => c.is_ascii_digit(),
            _ => c == p,
        })
}

fn is_entry_id(s: &str) -> bool {
    s.len() == 8 && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Checks one appended entry line against the protocol: compact JSON, keys `type`, `id`,
/// `parentId`, `timestamp` first, a millisecond UTC timestamp of about now, and a fresh
/// 8-hex id not in `before`. Returns the parsed line.
fn check_entry_line(line: &str, before: &[u8]) -> Value {
    let v: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
    assert_eq!(serde_json::to_string(&v).unwrap(), line, "not compact JSON");
    let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(&keys[..4], ["type", "id", "parentId", "timestamp"], "{line}");
    let prefix = format!(
        "{{\"type\":{},\"id\":{},\"parentId\":{},\"timestamp\":{},",
        v["type"], v["id"], v["parentId"], v["timestamp"]
    );
    assert!(line.starts_with(&prefix), "{line}");
    let ts = v["timestamp"].as_str().unwrap();
    assert!(is_iso_millis(ts), "timestamp {ts}");
    let t: jiff::Timestamp = ts.parse().unwrap();
    let skew = (jiff::Timestamp::now().as_millisecond() - t.as_millisecond()).abs();
    assert!(skew < 60_000, "timestamp {ts} is not now");
    let id = v["id"].as_str().unwrap();
    assert!(is_entry_id(id), "id {id}");
    assert!(!ids_in(before).contains(id), "id {id} already in the file");
    assert!(v["parentId"].is_null() || v["parentId"].is_string());
    v
}

/// Asserts `after` is `before` plus exactly one line (`before` ends with `\n`); returns it.
fn appended_line(before: &[u8], after: &[u8]) -> String {
    assert!(before.ends_with(b"\n"));
    assert!(after.len() > before.len(), "nothing was appended");
    assert_eq!(&after[..before.len()], before, "the old bytes changed");
    let rest = std::str::from_utf8(&after[before.len()..]).unwrap();
    assert!(rest.ends_with('\n'), "the new line has no final newline");
    assert_eq!(rest.matches('\n').count(), 1, "more than one line appended: {rest:?}");
    rest.trim_end_matches('\n').to_owned()
}

/// Runs a write command on `file`, asserts success and the append protocol; returns the
/// new line parsed and the run.
fn write_ok(file: &Path, args: &[&str]) -> (Value, Run) {
    let before = fs::read(file).unwrap();
    let r = run(file, args);
    assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
    let after = fs::read(file).unwrap();
    let line = appended_line(&before, &after);
    (check_entry_line(&line, &before), r)
}

/// Runs a command on `file` that must fail with `code` and leave the file (and its
/// directory) exactly as they were; returns the run.
fn refused(file: &Path, args: &[&str], code: i32) -> Run {
    let before = fs::read(file).unwrap();
    let dir_before = listing(file.parent().unwrap());
    let r = run(file, args);
    assert_eq!(r.code, code, "{args:?}: stdout {} stderr {}", r.stdout, r.stderr);
    assert!(fs::read(file).unwrap() == before, "{args:?} changed the file");
    assert_eq!(listing(file.parent().unwrap()), dir_before, "{args:?} created a file");
    r
}

/// A write of every kind on the example session, each on a fresh copy, with the entry
/// it must append: (args, type, parentId).
const EXAMPLE_WRITES: &[(&[&str], &str, Option<&str>)] = &[
    (&["checkout", "d2e5793f"], "custom", Some("d2e5793f")),
    (&["checkout", "start"], "custom", Some("80fbf1f2")),
    (&["checkout", "--empty"], "custom", None),
    (&["checkout", "--json", "cb75110e"], "custom", Some("cb75110e")),
    (&["label", "1ecdd056", "refactor"], "label", Some("b8731d22")),
    (&["label", "d2e5793f", "--delete"], "label", Some("b8731d22")),
    (&["label", "-d", "start"], "label", Some("b8731d22")),
];

#[test]
fn every_write_appends_exactly_one_protocol_line() {
    for (args, kind, parent) in EXAMPLE_WRITES {
        let (_dir, file) = temp_copy(&example());
        let (v, _) = write_ok(&file, args);
        assert_eq!(v["type"], *kind, "{args:?}");
        assert_eq!(v["parentId"].as_str(), *parent, "{args:?}");
        // Pi's leaf is now the new entry.
        assert_eq!(
            run_ok(&file, &["rev-parse", "--leaf"]).trim(),
            v["id"].as_str().unwrap()
        );
    }
}

#[test]
fn a_series_of_writes_keeps_every_earlier_byte_and_draws_fresh_ids() {
    let (_dir, file) = temp_copy(&example());
    let original = fs::read(&file).unwrap();
    let steps: &[&[&str]] = &[
        &["label", "1ecdd056", "one"],
        &["checkout", "d2e5793f"],
        &["label", "d2e5793f", "two"],
        &["checkout", "-"],
        &["checkout", "--empty"],
        &["label", "one", "--delete"],
        &["checkout", "-"],
        &["label", "e3472b97", "three"],
    ];
    let mut ids = HashSet::new();
    for args in steps {
        let (v, _) = write_ok(&file, args);
        assert!(ids.insert(v["id"].as_str().unwrap().to_owned()));
    }
    let after = fs::read(&file).unwrap();
    assert_eq!(&after[..original.len()], &original[..]);
    assert_eq!(
        after[original.len()..].iter().filter(|&&b| b == b'\n').count(),
        steps.len()
    );
}

#[test]
fn writes_on_corpus_sessions_follow_the_protocol() {
    for src in corpus_files() {
        let name = src.file_name().unwrap().to_string_lossy().into_owned();
        let (_dir, file) = temp_copy(&src);
        if name.contains(".v1.") {
            let r = refused(&file, &["label", "@", "corpus"], 1);
            let repair = format!("`pi-session -s {} repair`", file.display());
            assert!(r.stderr.contains(&repair), "{name}: {}", r.stderr);
            continue;
        }
        let leaf = run_ok(&file, &["rev-parse", "--leaf"]).trim().to_owned();
        let at = run_ok(&file, &["rev-parse", "@"]).trim().to_owned();
        let (v, _) = write_ok(&file, &["label", "@", "corpus"]);
        assert_eq!(v["parentId"], leaf.as_str(), "{name}");
        assert_eq!(v["targetId"], at.as_str(), "{name}");
        let (v, _) = write_ok(&file, &["checkout", "@~2"]);
        assert_eq!(v["data"]["from"], at.as_str(), "{name}");
    }
}

fn torn_case(name: &str) {
    for args in [
        &["label", "1a2b3c02", "torn"][..],
        &["checkout", "1a2b3c02"][..],
        &["checkout", "--empty"][..],
    ] {
        let (_dir, file) = temp_copy(&fixture(name));
        let before = fs::read(&file).unwrap();
        assert!(!before.ends_with(b"\n"));
        let r = run(&file, args);
        assert_eq!(r.code, 0, "{name} {args:?}: {}", r.stderr);
        assert!(r.stderr.contains("unfinished line"), "{name} {args:?}: {}", r.stderr);
        assert!(r.stderr.contains("terminated"), "{name} {args:?}: {}", r.stderr);
        let after = fs::read(&file).unwrap();
        assert_eq!(&after[..before.len()], &before[..], "the torn bytes were not kept");
        assert_eq!(after[before.len()], b'\n', "no newline after the torn line");
        let mut terminated = before.clone();
        terminated.push(b'\n');
        let line = appended_line(&terminated, &after);
        let v = check_entry_line(&line, &before);
        // The new entry is readable and is the leaf; the four good entries are still there.
        assert_eq!(
            run_ok(&file, &["rev-parse", "--leaf"]).trim(),
            v["id"].as_str().unwrap()
        );
        let all = run_ok(&file, &["log", "--all"]);
        assert_eq!(all.lines().count(), 5, "{name}: {all}");
        // A second write needs no terminating newline.
        let again = run(&file, &["label", "1a2b3c01", "second"]);
        assert_eq!(again.code, 0, "{}", again.stderr);
        assert!(!again.stderr.contains("unfinished line"), "{}", again.stderr);
        appended_line(&after, &fs::read(&file).unwrap());
    }
}

#[test]
fn a_torn_last_line_is_terminated_first_and_kept() {
    torn_case("torn-last-line.jsonl");
}

#[test]
fn a_last_entry_without_newline_is_terminated_first() {
    torn_case("no-final-newline.jsonl");
}

#[test]
fn old_formats_are_refused_untouched() {
    let cases: &[(&str, &[&str])] = &[
        ("v1.jsonl", &["label", "@", "x"]),
        ("v1.jsonl", &["checkout", "root"]),
        ("v1.jsonl", &["checkout", "--empty"]),
        ("v1.jsonl", &["clone"]),
        ("v1.jsonl", &["fork", "root"]),
        ("v2.jsonl", &["label", "2b2b0002", "x"]),
        ("v2.jsonl", &["label", "2b2b0002", "--delete"]),
        ("v2.jsonl", &["checkout", "2b2b0002"]),
        ("v2.jsonl", &["checkout", "--empty"]),
        ("v2.jsonl", &["clone", "2b2b0004"]),
        ("v2.jsonl", &["fork", "2b2b0002"]),
    ];
    for (name, args) in cases {
        let (_dir, file) = temp_copy(&fixture(name));
        let r = refused(&file, args, 1);
        let repair = format!("`pi-session -s {} repair`", file.display());
        assert!(r.stderr.contains(&repair), "{name} {args:?}: {}", r.stderr);
        assert!(r.stderr.contains("v3"), "{name} {args:?}: {}", r.stderr);
        assert!(r.stdout.is_empty());
    }
}

#[test]
fn expect_leaf_compares_with_pis_leaf() {
    // labels.jsonl: Pi's leaf is the label 1abe1007, @ is 1a2b3c06.
    let (_dir, file) = temp_copy(&fixture("labels.jsonl"));
    for args in [
        &["label", "1a2b3c02", "x", "--expect-leaf", "1a2b3c06"][..],
        &["label", "1a2b3c02", "x", "--expect-leaf", "1abe"][..],
        &["label", "1a2b3c04", "--delete", "--expect-leaf", "1a2b3c06"][..],
        &["checkout", "1a2b3c02", "--expect-leaf", "1a2b3c06"][..],
        &["checkout", "--empty", "--expect-leaf", "deadbeef"][..],
    ] {
        let r = refused(&file, args, 4);
        assert!(r.stderr.contains("1abe1007"), "{args:?}: {}", r.stderr);
        assert!(r.stderr.contains("nothing written"), "{args:?}: {}", r.stderr);
    }
    let (v, _) = write_ok(&file, &["label", "1a2b3c02", "x", "--expect-leaf", "1abe1007"]);
    assert_eq!(v["parentId"], "1abe1007");
    let leaf = v["id"].as_str().unwrap().to_owned();
    refused(&file, &["checkout", "1a2b3c02", "--expect-leaf", "1abe1007"], 4);
    let (v, _) = write_ok(&file, &["checkout", "1a2b3c02", "--expect-leaf", &leaf]);
    assert_eq!(v["parentId"], "1a2b3c02");
}

#[test]
fn a_held_lock_makes_writes_give_up_untouched() {
    let (_dir, file) = temp_copy(&example());
    let holder = OpenOptions::new().read(true).write(true).open(&file).unwrap();
    holder.try_lock().unwrap();
    for args in [&["label", "d2e5793f", "locked"][..], &["checkout", "d2e5793f"][..]] {
        let before = fs::read(&file).unwrap();
        let start = Instant::now();
        let out = cmd()
            .env("PI_SESSION_LOCK_TIMEOUT", "0.3")
            .arg("-s")
            .arg(&file)
            .args(args)
            .output()
            .unwrap();
        let waited = start.elapsed();
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(stderr.contains("locked"), "{stderr}");
        assert!(waited >= Duration::from_millis(250), "gave up after {waited:?}");
        assert!(fs::read(&file).unwrap() == before);
    }
    // Reading needs no lock.
    let list = cmd()
        .env("PI_SESSION_LOCK_TIMEOUT", "0.3")
        .arg("-s")
        .arg(&file)
        .args(["label", "--list"])
        .output()
        .unwrap();
    assert!(list.status.success(), "{}", String::from_utf8_lossy(&list.stderr));
    holder.unlock().unwrap();
    let out = cmd()
        .env("PI_SESSION_LOCK_TIMEOUT", "0.3")
        .arg("-s")
        .arg(&file)
        .args(["label", "d2e5793f", "unlocked"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn a_write_waits_for_a_lock_released_in_time() {
    let (_dir, file) = temp_copy(&example());
    let before = fs::read(&file).unwrap();
    let holder = OpenOptions::new().read(true).write(true).open(&file).unwrap();
    holder.try_lock().unwrap();
    let release = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(200));
        holder.unlock().unwrap();
    });
    let out = cmd()
        .env("PI_SESSION_LOCK_TIMEOUT", "5")
        .arg("-s")
        .arg(&file)
        .args(["label", "d2e5793f", "waited"])
        .output()
        .unwrap();
    release.join().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let line = appended_line(&before, &fs::read(&file).unwrap());
    assert_eq!(check_entry_line(&line, &before)["label"], "waited");
}

#[test]
fn a_recently_modified_file_gets_a_warning() {
    let (_dir, file) = temp_copy(&example());
    let (_, r) = write_ok(&file, &["label", "d2e5793f", "old"]);
    // (Its one warning is that 'old' replaces the entry's label 'green'.)
    assert!(!r.stderr.contains("changed in the last few seconds"), "{}", r.stderr);
    // The write just made it recent, but pi-session's own writes are no sign of Pi.
    let (_, r) = write_ok(&file, &["checkout", "d2e5793f"]);
    assert!(!r.stderr.contains("warning"), "{}", r.stderr);
    for _ in 0..3 {
        let (_, r) = write_ok(&file, &["checkout", "-"]);
        assert!(!r.stderr.contains("warning"), "{}", r.stderr);
    }
    // Anything else that changes the file (here `touch`) counts.
    set_age(&file, Duration::from_secs(1));
    let (_, r) = write_ok(&file, &["label", "d2e5793f", "--delete"]);
    assert!(r.stderr.contains("changed in the last few seconds"), "{}", r.stderr);
    assert!(r.stderr.contains("if Pi has this session open"), "{}", r.stderr);
    set_age(&file, Duration::from_secs(600));
    let (_, r) = write_ok(&file, &["checkout", "-"]);
    assert!(!r.stderr.contains("Pi has this session open"), "{}", r.stderr);
}

#[test]
fn only_a_change_by_another_writer_gets_the_warning() {
    let (dir, file) = temp_copy(&example());
    let summary = dir.path().join("summary.md");
    fs::write(&summary, "## Goal\nkeep going\n").unwrap();
    let summary = summary.to_str().unwrap();
    // Every kind of write, one after the other: none warns about the one before.
    let writes: &[&[&str]] = &[
        &["checkout", "d2e5793f"],
        &["label", "1ecdd056", "first"],
        &["compact", "--keep-recent-tokens", "1000", "--summary-file", summary],
        &["label", "first", "--delete"],
        &["summarize-branch", "1ecdd056", "--summary-file", summary],
        &["checkout", "b8731d22"],
        &["label", "b8731d22", "second"],
    ];
    for args in writes {
        let (_, r) = write_ok(&file, args);
        assert!(!r.stderr.contains("warning"), "{args:?}: {}", r.stderr);
    }
    // A line appended by someone else (Pi appends whole lines, without the lock) is.
    let leaf = run_ok(&file, &["rev-parse", "--leaf"]).trim().to_owned();
    let now = jiff::Timestamp::now().strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string();
    let pi_line = format!(
        "{{\"type\":\"message\",\"id\":\"5eed0001\",\"parentId\":\"{leaf}\",\"timestamp\":\"{now}\",\
         \"message\":{{\"role\":\"user\",\"content\":\"hi\",\"timestamp\":1}}}}\n"
    );
    OpenOptions::new()
        .append(true)
        .open(&file)
        .unwrap()
        .write_all(pi_line.as_bytes())
        .unwrap();
    let (_, r) = write_ok(&file, &["label", "5eed0001", "from-pi"]);
    assert!(r.stderr.contains("changed in the last few seconds"), "{}", r.stderr);
    // The next write follows pi-session's own: no warning.
    let (_, r) = write_ok(&file, &["checkout", "d2e5793f"]);
    assert!(!r.stderr.contains("warning"), "{}", r.stderr);
    // The mark is the modification time: exactly the last line's timestamp.
    let ts: jiff::Timestamp = common::last_entry(&file)["timestamp"]
        .as_str()
        .unwrap()
        .parse()
        .unwrap();
    let modified = fs::metadata(&file).unwrap().modified().unwrap();
    let expected = SystemTime::UNIX_EPOCH + Duration::from_millis(ts.as_millisecond() as u64);
    assert_eq!(modified, expected);
    // A file that does not end with the line pi-session wrote is not taken for its own,
    // even with the same modification time.
    let mut data = fs::read(&file).unwrap();
    data.extend_from_slice(b"\n");
    fs::write(&file, &data).unwrap();
    OpenOptions::new()
        .write(true)
        .open(&file)
        .unwrap()
        .set_modified(expected)
        .unwrap();
    let r = run(&file, &["checkout", "-"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("changed in the last few seconds"), "{}", r.stderr);
}

#[test]
fn refused_commands_leave_the_file_byte_identical() {
    let (dir, file) = temp_copy(&example());
    let existing = dir.path().join("existing.jsonl");
    fs::write(&existing, "keep me\n").unwrap();
    let existing = existing.to_str().unwrap().to_owned();
    let cases: &[(&[&str], i32)] = &[
        (&["checkout", "zzzzzzzz"], 1),
        (&["checkout", "deadbeef"], 1),
        (&["checkout", "root^"], 1),
        (&["checkout", ":/no such text anywhere"], 1),
        (&["checkout", "-"], 1),
        (&["checkout"], 2),
        (&["checkout", "d2e5793f", "--empty"], 2),
        (&["checkout", "d2e5793f", "--expect-leaf", "d2e5793f"], 4),
        (&["label", "--delete"], 2),
        (&["label", "--force"], 2),
        (&["label", "d2e5793f", "x", "--delete"], 2),
        (&["label", "--list", "d2e5793f"], 2),
        (&["label", "d2e5793f", "x", "--json"], 2),
        (&["label", "nosuchrev", "x"], 1),
        (&["label", "e0a8c95d", "green"], 1),
        (&["label", "green"], 1),
        (&["label", "d2e5793f", ""], 1),
        (&["label", "d2e5793f", "a\nb"], 1),
        (&["label", "d2e5793f", "@"], 1),
        (&["label", "d2e5793f", "x", "--expect-leaf", "80fbf1f2"], 4),
        (&["clone", "nosuchrev"], 1),
        (&["clone", "-o", &existing], 1),
        (&["clone", "-o", &existing, "--dry-run"], 1),
        (&["clone", "-o", "-", "--json"], 2),
        (&["fork", "b8731d22"], 1),
        (&["fork", "nosuchrev"], 1),
        (&["fork"], 2),
        (&["frobnicate"], 2),
    ];
    for (args, code) in cases {
        refused(&file, args, *code);
    }
    assert_eq!(
        fs::read_to_string(dir.path().join("existing.jsonl")).unwrap(),
        "keep me\n"
    );
    // Commands with nothing to do succeed and write nothing either.
    for args in [
        &["checkout", "@"][..],
        &["checkout", "b8731d22"][..],
        &["label", "d2e5793f", "green"][..],
        &["label", "1ecdd056", "--delete"][..],
        &["label", "--list"][..],
        &["label"][..],
        &["label", "--json"][..],
    ] {
        refused(&file, args, 0);
    }
}

/// A message line as Pi writes it, for the stand-in writer.
fn writer_line(i: usize, parent: &str) -> String {
    format!(
        r#"{{"type":"message","id":"f{i:07x}","parentId":"{parent}","timestamp":"2026-11-02T11:00:00.000Z","message":{{"role":"user","content":[{{"type":"text","text":"writer line {i}"}}],"timestamp":1793617200000}}}}"#
    )
}

#[test]
fn appends_racing_a_plain_appender_stay_whole_lines() {
    const WRITER_LINES: usize = 500;
    const LABELS: usize = 20;
    let (_dir, file) = temp_copy(&example());
    let original = fs::read(&file).unwrap();
    let lines: Vec<String> = (0..WRITER_LINES)
        .map(|i| {
            writer_line(
                i,
                &if i == 0 {
                    "b8731d22".into()
                } else {
                    format!("f{:07x}", i - 1)
                },
            )
        })
        .collect();
    let done = Arc::new(AtomicBool::new(false));
    let writer = {
        let (file, lines, done) = (file.clone(), lines.clone(), done.clone());
        std::thread::spawn(move || {
            let mut f = OpenOptions::new().append(true).open(&file).unwrap();
            for l in &lines {
                f.write_all(format!("{l}\n").as_bytes()).unwrap();
                // Spread the writes over the label runs while they last.
                let t = Instant::now();
                while !done.load(Ordering::Relaxed) && t.elapsed() < Duration::from_micros(300) {
                    std::thread::yield_now();
                }
            }
        })
    };
    for k in 0..LABELS {
        let r = run(&file, &["label", "80fbf1f2", &format!("race-{k}")]);
        assert_eq!(r.code, 0, "label {k}: {}", r.stderr);
    }
    done.store(true, Ordering::Relaxed);
    writer.join().unwrap();

    let data = fs::read(&file).unwrap();
    assert_eq!(&data[..original.len()], &original[..]);
    assert!(data.ends_with(b"\n"));
    let text = std::str::from_utf8(&data).unwrap();
    let mut seen: HashMap<&str, usize> = HashMap::new();
    let mut labels: HashMap<String, usize> = HashMap::new();
    let mut ids = HashSet::new();
    for (n, line) in text[..text.len() - 1].split('\n').enumerate() {
        let v: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("line {}: {e}: {line:?}", n + 1));
        assert!(v.is_object(), "line {}", n + 1);
        if let Some(id) = v.get("id").and_then(Value::as_str) {
            assert!(ids.insert(id.to_owned()), "id {id} twice");
        }
        *seen.entry(line).or_default() += 1;
        if v["type"] == "label"
            && let Some(name) = v["label"].as_str().filter(|n| n.starts_with("race-"))
        {
            assert_eq!(v["targetId"], "80fbf1f2");
            assert!(is_entry_id(v["id"].as_str().unwrap()));
            *labels.entry(name.to_owned()).or_default() += 1;
        }
    }
    for l in &lines {
        assert_eq!(seen.get(l.as_str()), Some(&1), "writer line {l}");
    }
    for k in 0..LABELS {
        assert_eq!(labels.get(&format!("race-{k}")), Some(&1), "label race-{k}");
    }
    let total = text.lines().count();
    let original_lines = original.iter().filter(|&&b| b == b'\n').count();
    assert_eq!(total, original_lines + WRITER_LINES + LABELS);
    // The file still reads: the last label set wins.
    assert_eq!(
        run_ok(&file, &["rev-parse", &format!("race-{}", LABELS - 1)]).trim(),
        "80fbf1f2"
    );
}

/// A last line Pi is writing right now (it takes no lock) is not a torn one: a write that
/// finds the file ending without `\n`, changed moments ago, waits for the line to be
/// finished and then parents its entry on it, with no newline of its own in between.
#[test]
fn a_line_being_written_is_waited_for() {
    for args in [&["label", "1a2b3c02", "waited"][..], &["checkout", "1a2b3c02"][..]] {
        let (_dir, file) = temp_copy(&fixture("no-final-newline.jsonl"));
        let whole = fs::read(&file).unwrap();
        let last_start = whole.iter().rposition(|&b| b == b'\n').unwrap() + 1;
        let last: Value = serde_json::from_slice(&whole[last_start..]).unwrap();
        let cut = last_start + (whole.len() - last_start) / 2;
        // Pi has written half of its line, and writes the rest 300 ms later.
        fs::write(&file, &whole[..cut]).unwrap();
        let rest = whole[cut..].to_vec();
        let finisher = {
            let file = file.clone();
            std::thread::spawn(move || {
                std::thread::sleep(Duration::from_millis(300));
                let mut f = OpenOptions::new().append(true).open(&file).unwrap();
                f.write_all(&rest).unwrap();
                f.write_all(b"\n").unwrap();
            })
        };
        let r = run(&file, args);
        finisher.join().unwrap();
        assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
        assert!(!r.stderr.contains("unfinished line"), "{args:?}: {}", r.stderr);
        let mut finished = whole.clone();
        finished.push(b'\n');
        let after = fs::read(&file).unwrap();
        let line = appended_line(&finished, &after);
        let v: Value = serde_json::from_str(&line).unwrap();
        if args[0] == "label" {
            assert_eq!(v["parentId"], last["id"], "{args:?}: parented on Pi's newest entry");
        } else {
            assert_eq!(v["data"]["from"], last["id"], "{args:?}: moved from Pi's newest entry");
        }
    }
}

/// A torn line older than a few seconds is no write in progress: no waiting.
#[test]
fn an_old_torn_line_is_not_waited_for() {
    let (_dir, file) = temp_copy(&fixture("torn-last-line.jsonl"));
    let start = Instant::now();
    let r = run(&file, &["label", "1a2b3c02", "torn"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stderr.contains("unfinished line"), "{}", r.stderr);
    assert!(start.elapsed() < Duration::from_millis(900), "{:?}", start.elapsed());
}

/// Pi writes a line in more than one `write` when it is long, and takes no lock: an append
/// decided on bytes read before Pi began its line would land inside it, gluing the two into
/// one unreadable line. Under the lock, the end of the file is looked at again right before
/// the append, and a line begun meanwhile is waited for.
#[test]
fn appends_never_land_inside_a_line_written_in_two_writes() {
    const LABELS: usize = 25;
    let (_dir, file) = temp_copy(&example());
    let original = fs::read(&file).unwrap();
    let done = Arc::new(AtomicBool::new(false));
    let writer = {
        let (file, done) = (file.clone(), done.clone());
        std::thread::spawn(move || {
            let mut f = OpenOptions::new().append(true).open(&file).unwrap();
            let mut written = Vec::new();
            let mut i = 0;
            while !done.load(Ordering::Relaxed) {
                let line = writer_line(i, "b8731d22");
                let (a, b) = line.split_at(line.len() / 2);
                f.write_all(a.as_bytes()).unwrap();
                std::thread::sleep(Duration::from_millis(10));
                f.write_all(format!("{b}\n").as_bytes()).unwrap();
                written.push(line);
                // A pause between lines much longer than the moment between the last look
                // and the write (no lock can close that moment: the writer takes none).
                std::thread::sleep(Duration::from_millis(40));
                i += 1;
            }
            written
        })
    };
    for k in 0..LABELS {
        let r = run(&file, &["label", "80fbf1f2", &format!("split-{k}")]);
        assert_eq!(r.code, 0, "label {k}: {}", r.stderr);
    }
    done.store(true, Ordering::Relaxed);
    let written = writer.join().unwrap();
    assert!(written.len() > 5, "the writer wrote while the labels ran");
    let data = fs::read(&file).unwrap();
    assert_eq!(&data[..original.len()], &original[..]);
    let text = std::str::from_utf8(&data).unwrap();
    let mut labels = 0;
    let lines: HashSet<&str> = text.lines().collect();
    for (n, line) in text.lines().enumerate() {
        let v: Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("line {}: {e}: {line:?}", n + 1));
        if v["type"] == "label" && v["label"].as_str().is_some_and(|l| l.starts_with("split-")) {
            labels += 1;
        }
    }
    assert_eq!(labels, LABELS);
    for l in &written {
        assert!(lines.contains(l.as_str()), "writer line kept whole: {l}");
    }
    assert_eq!(
        text.lines().count(),
        original.iter().filter(|&&b| b == b'\n').count() + LABELS + written.len()
    );
}
