//! `pi-session usage`: the report across sessions, grouped, filtered, and counting every
//! paid call once (clones, forks, copies of a file).

use crate::common;

use common::{cmd, ndjson};
use serde_json::{Value, json};
use std::path::{Path, PathBuf};

/// A usage object whose cost is a power of two, so that sums are exact.
fn usage(input: u64, cost: f64) -> Value {
    json!({"input": input, "output": 10, "cacheRead": 2, "cacheWrite": 1, "totalTokens": input + 13,
           "cost": {"input": cost, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": cost}})
}

fn header(id: &str, ts: &str, cwd: &str) -> Value {
    json!({"type": "session", "version": 3, "id": id, "timestamp": ts, "cwd": cwd})
}

fn user(id: &str, parent: Option<&str>, ts: &str) -> Value {
    json!({"type": "message", "id": id, "parentId": parent, "timestamp": ts,
           "message": {"role": "user", "content": "go", "timestamp": 1}})
}

fn assistant(id: &str, parent: &str, ts: &str, model: &str, input: u64, cost: f64) -> Value {
    json!({"type": "message", "id": id, "parentId": parent, "timestamp": ts,
           "message": {"role": "assistant", "content": [{"type": "text", "text": "ok"}],
                       "provider": "anthropic", "model": model, "stopReason": "stop",
                       "usage": usage(input, cost)}})
}

fn write(path: &Path, lines: &[Value]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(path, text).unwrap();
}

/// An agent folder with two projects: /p/one (sessions a and b) and /p/two (session c).
struct Agent {
    dir: tempfile::TempDir,
}

impl Agent {
    fn new() -> Agent {
        let agent = Agent {
            dir: tempfile::tempdir().unwrap(),
        };
        write(
            &agent.session("--p-one--", "a"),
            &[
                header("a", "2026-11-01T09:00:00.000Z", "/p/one"),
                user("a1", None, "2026-11-01T09:00:01.000Z"),
                assistant("a2", "a1", "2026-11-01T09:00:02.000Z", "claude", 100, 0.5),
                user("a3", Some("a2"), "2026-11-02T23:30:00.000Z"),
                assistant("a4", "a3", "2026-11-02T23:30:05.000Z", "claude", 200, 0.25),
                json!({"type": "compaction", "id": "a5", "parentId": "a4", "timestamp": "2026-11-03T08:00:00.000Z",
                       "summary": "s", "firstKeptEntryId": "a4", "tokensBefore": 300,
                       "usage": usage(1000, 1.0)}),
            ],
        );
        write(
            &agent.session("--p-one--", "b"),
            &[
                header("b", "2026-11-05T09:00:00.000Z", "/p/one"),
                user("b1", None, "2026-11-05T09:00:01.000Z"),
                assistant("b2", "b1", "2026-11-05T09:00:02.000Z", "gpt", 400, 2.0),
            ],
        );
        write(
            &agent.session("--p-two--", "c"),
            &[
                header("c", "2026-11-10T09:00:00.000Z", "/p/two"),
                user("c1", None, "2026-11-10T09:00:01.000Z"),
                assistant("c2", "c1", "2026-11-10T09:00:02.000Z", "claude", 800, 4.0),
                json!({"type": "usage", "id": "c3", "parentId": "c2", "timestamp": "2026-11-17T10:00:00.000Z",
                       "kind": "cache_warm", "provider": "anthropic", "model": "claude", "usage": usage(1600, 8.0)}),
            ],
        );
        agent
    }

    fn session(&self, folder: &str, id: &str) -> PathBuf {
        self.dir
            .path()
            .join("sessions")
            .join(folder)
            .join(format!("2026-11-01T09-00-00-000Z_{id}.jsonl"))
    }

    fn run(&self, args: &[&str]) -> std::process::Output {
        self.run_with_cache(args, &common::cache_home())
    }

    /// [`Agent::run`] keeping the cache under `cache_home` (as `XDG_CACHE_HOME`).
    fn run_with_cache(&self, args: &[&str], cache_home: &Path) -> std::process::Output {
        cmd()
            .env("XDG_CACHE_HOME", cache_home)
            .env("PI_CODING_AGENT_DIR", self.dir.path())
            .current_dir(self.dir.path())
            .arg("usage")
            .args(args)
            .output()
            .unwrap()
    }

    /// The `--json` records of a successful run, and its stderr.
    fn json(&self, args: &[&str]) -> (Vec<Value>, String) {
        let mut a = vec!["--json"];
        if !args.contains(&"-z") {
            a.extend(["-z", "UTC"]);
        }
        a.extend_from_slice(args);
        let out = self.run(&a);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "usage {args:?}: {stderr}");
        (ndjson(&String::from_utf8(out.stdout).unwrap()), stderr)
    }
}

/// The records' values of `key`, in order (the total record left out).
fn column(records: &[Value], key: &str) -> Vec<Value> {
    records
        .iter()
        .filter(|r| r.get("total").is_none())
        .map(|r| r[key].clone())
        .collect()
}

fn total(records: &[Value]) -> &Value {
    let last = records.last().expect("a total record");
    assert_eq!(last["total"], true, "the last record is the total: {last}");
    last
}

#[test]
fn by_day_every_project_with_the_total_last() {
    let agent = Agent::new();
    let (records, stderr) = agent.json(&[]);
    assert_eq!(stderr, "");
    assert_eq!(
        column(&records, "day"),
        [
            "2026-11-01",
            "2026-11-02",
            "2026-11-03",
            "2026-11-05",
            "2026-11-10",
            "2026-11-17"
        ]
    );
    assert_eq!(column(&records, "cost"), [0.5, 0.25, 1.0, 2.0, 4.0, 8.0]);
    assert_eq!(column(&records, "calls"), [1, 1, 1, 1, 1, 1]);
    let keys: Vec<&str> = records[0].as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "day",
            "input",
            "output",
            "cacheRead",
            "cacheWrite",
            "totalTokens",
            "cost",
            "calls"
        ]
    );
    let t = total(&records);
    assert_eq!(t["cost"], 15.75);
    assert_eq!(t["input"], 100 + 200 + 1000 + 400 + 800 + 1600);
    assert_eq!(t["output"], 60);
    assert_eq!(t["cacheRead"], 12);
    assert_eq!(t["cacheWrite"], 6);
    assert_eq!(t["calls"], 6);
}

#[test]
fn the_time_zone_decides_the_day() {
    let agent = Agent::new();
    // 23:30 UTC on the 2nd is the 3rd in Paris (UTC+1 in November).
    let (records, _) = agent.json(&["-z", "Europe/Paris", "--until", "2026-11-03"]);
    assert_eq!(column(&records, "day"), ["2026-11-01", "2026-11-03"]);
    assert_eq!(column(&records, "cost"), [0.5, 1.25]);
    let out = agent.run(&["-z", "Mars/Olympus"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown time zone"));
}

#[test]
fn weeks_months_sessions_projects_models_and_sources() {
    let agent = Agent::new();
    let (weeks, _) = agent.json(&["--by", "week"]);
    // ISO weeks, named by their Monday: 2026-11-01 is a Sunday.
    assert_eq!(
        column(&weeks, "week"),
        ["2026-10-26", "2026-11-02", "2026-11-09", "2026-11-16"]
    );
    assert_eq!(column(&weeks, "cost"), [0.5, 3.25, 4.0, 8.0]);
    let (months, _) = agent.json(&["--by", "month"]);
    assert_eq!(column(&months, "month"), ["2026-11"]);

    let (sessions, _) = agent.json(&["--by", "session"]);
    assert_eq!(column(&sessions, "session"), ["a", "b", "c"]);
    assert_eq!(column(&sessions, "cost"), [1.75, 2.0, 12.0]);
    let paths = column(&sessions, "path");
    assert!(paths[0].as_str().unwrap().ends_with("_a.jsonl"), "{paths:?}");
    let keys: Vec<&str> = sessions[0].as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys[..3], ["session", "path", "input"]);

    let (projects, _) = agent.json(&["--by", "project"]);
    assert_eq!(column(&projects, "project"), ["/p/one", "/p/two"]);
    assert_eq!(column(&projects, "cost"), [3.75, 12.0]);

    let (models, _) = agent.json(&["--by", "model,provider"]);
    assert_eq!(column(&models, "model"), ["(summaries)", "claude", "gpt"]);
    assert_eq!(
        column(&models, "provider"),
        [Value::Null, json!("anthropic"), json!("anthropic")]
    );
    assert_eq!(column(&models, "cost"), [1.0, 12.75, 2.0]);

    let (sources, _) = agent.json(&["--by", "source", "--by", "project"]);
    assert_eq!(
        sources
            .iter()
            .filter(|r| r.get("total").is_none())
            .map(|r| (r["source"].as_str().unwrap(), r["project"].as_str().unwrap()))
            .collect::<Vec<_>>(),
        [
            ("assistant", "/p/one"),
            ("assistant", "/p/two"),
            ("usage", "/p/two"),
            ("compaction", "/p/one")
        ]
    );
}

#[test]
fn since_and_until_are_inclusive_days() {
    let agent = Agent::new();
    let (records, _) = agent.json(&["--since", "2026-11-02", "--until", "20261110"]);
    assert_eq!(
        column(&records, "day"),
        ["2026-11-02", "2026-11-03", "2026-11-05", "2026-11-10"]
    );
    assert_eq!(total(&records)["cost"], 7.25);
    // Relative days count back from today: the sessions are long past.
    let (recent, _) = agent.json(&["--since", "7d"]);
    assert_eq!(recent.len(), 1);
    assert_eq!(total(&recent)["calls"], 0);
    let out = agent.run(&["--since", "last tuesday"]);
    assert_eq!(out.status.code(), Some(2));
    // The message lists the forms, as log's does.
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a date: use a date (2026-11-30"));
}

/// `--since`/`--until` take every form `log --since` takes (one parser): `yesterday`,
/// `'3 days ago'`, `2.weeks.ago`, `3h`, a date and time.
#[test]
fn since_and_until_take_what_log_takes() {
    let agent = Agent::new();
    // Calls 2 hours, 50 hours and 100 hours ago: yesterday began less than 48 hours ago.
    let ago = |hours: i64| {
        (jiff::Timestamp::now() - jiff::SignedDuration::from_hours(hours))
            .strftime("%Y-%m-%dT%H:%M:%S%.3fZ")
            .to_string()
    };
    write(
        &agent.session("--p-three--", "d"),
        &[
            header("d", &ago(101), "/p/three"),
            user("d1", None, &ago(101)),
            assistant("d2", "d1", &ago(100), "claude", 100, 0.5),
            user("d3", Some("d2"), &ago(51)),
            assistant("d4", "d3", &ago(50), "claude", 200, 0.25),
            user("d5", Some("d4"), &ago(3)),
            assistant("d6", "d5", &ago(2), "claude", 400, 0.125),
        ],
    );
    let calls = |args: &[&str]| {
        let mut a = vec!["--project", "/p/three"];
        a.extend_from_slice(args);
        let (records, _) = agent.json(&a);
        total(&records)["calls"].as_u64().unwrap()
    };
    assert_eq!(calls(&[]), 3);
    assert_eq!(calls(&["--since", "yesterday"]), 1);
    assert_eq!(calls(&["--since", "Yesterday", "--until", "now"]), 1);
    assert_eq!(calls(&["--since", "3 days ago"]), 2);
    assert_eq!(calls(&["--since", "2.weeks.ago"]), 3);
    assert_eq!(calls(&["--since", "3h"]), 1);
    assert_eq!(calls(&["--since", "90 minutes ago"]), 0);
    assert_eq!(calls(&["--until", "3 days ago"]), 1);
    assert_eq!(calls(&["--since", "4 days ago", "--until", "1 day ago"]), 1);
    // A date and time with a zone: an instant.
    let at = ago(60);
    assert_eq!(calls(&["--since", &at]), 2);
    assert_eq!(calls(&["--until", &at]), 1);
}

#[test]
fn one_project_or_the_sessions_given() {
    let agent = Agent::new();
    // The project's folder is found as Pi finds it; the project itself need not exist.
    let (records, _) = agent.json(&["--project", "/p/two", "--by", "session"]);
    assert_eq!(column(&records, "session"), ["c"]);
    let b = agent.session("--p-one--", "b");
    let c = agent.session("--p-two--", "c");
    let out = cmd()
        .env("PI_CODING_AGENT_DIR", agent.dir.path())
        .args(["-s"])
        .arg(&b)
        .arg("-s")
        .arg(&c)
        .args(["usage", "--by", "session", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let records = ndjson(&String::from_utf8(out.stdout).unwrap());
    assert_eq!(column(&records, "session"), ["b", "c"]);
    // Other commands take one session.
    let out = cmd().arg("-s").arg(&b).arg("-s").arg(&c).arg("stats").output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn clones_and_forks_count_what_they_copied_once() {
    let agent = Agent::new();
    let a = agent.session("--p-one--", "a");
    // A clone of a's branch and a fork before its second user message, made by pi-session,
    // each beside a; the clone then pays for one more call of its own.
    let clone = cmd().arg("-s").arg(&a).arg("clone").output().unwrap();
    assert!(clone.status.success(), "{}", String::from_utf8_lossy(&clone.stderr));
    let clone = PathBuf::from(String::from_utf8(clone.stdout).unwrap().trim());
    let fork = cmd().arg("-s").arg(&a).args(["fork", "a3"]).output().unwrap();
    assert!(fork.status.success(), "{}", String::from_utf8_lossy(&fork.stderr));
    let fork = PathBuf::from(String::from_utf8(fork.stdout).unwrap().trim());
    let own = assistant("x1", "a5", "2026-11-20T10:00:00.000Z", "claude", 3200, 16.0);
    let mut text = std::fs::read_to_string(&clone).unwrap();
    text.push_str(&format!("{own}\n"));
    std::fs::write(&clone, text).unwrap();

    let (records, stderr) = agent.json(&["--by", "session"]);
    assert_eq!(stderr, "");
    let clone_id = records
        .iter()
        .find(|r| r["path"].as_str() == Some(clone.to_str().unwrap()))
        .map(|r| r["session"].clone());
    assert!(clone_id.is_some(), "the clone's own call is counted: {records:?}");
    assert_eq!(column(&records, "cost"), [1.75, 2.0, 12.0, 16.0]);
    assert_eq!(total(&records)["calls"], 7);
    assert!(
        !records
            .iter()
            .any(|r| r["path"].as_str() == Some(fork.to_str().unwrap())),
        "the fork holds only copies"
    );

    // The clone alone: what it copied was paid for in a, which is not in the report.
    let out = cmd()
        .arg("-s")
        .arg(&clone)
        .args(["usage", "--json", "-z", "UTC"])
        .output()
        .unwrap();
    let alone = ndjson(&String::from_utf8(out.stdout).unwrap());
    assert_eq!(total(&alone)["cost"], 16.0);
    assert_eq!(total(&alone)["calls"], 1);
}

#[test]
fn a_copy_of_a_file_counts_once_and_backups_are_not_sessions() {
    let agent = Agent::new();
    let b = agent.session("--p-one--", "b");
    let copy = b.with_file_name("copy-of-b.jsonl");
    std::fs::copy(&b, &copy).unwrap();
    std::fs::copy(&b, b.with_extension("jsonl.bak")).unwrap();
    std::fs::copy(&b, b.with_extension("jsonl.rejects")).unwrap();
    let (records, stderr) = agent.json(&[]);
    assert_eq!(total(&records)["cost"], 15.75);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("same session") && stderr.contains("copy-of-b.jsonl") && stderr.contains("_b.jsonl"));
}

#[test]
fn damaged_files_are_read_as_pi_reads_them_with_a_warning_each() {
    let agent = Agent::new();
    let c = agent.session("--p-two--", "c");
    let mut text = std::fs::read_to_string(&c).unwrap();
    // A reply torn by a crash, whose call Pi cannot read either.
    text.insert_str(
        text.find('\n').unwrap() + 1,
        "{\"type\":\"message\",\"message\":{\"role\":\"assistant\",\"usage\":{\"input\":\n",
    );
    std::fs::write(&c, text).unwrap();
    let not_a_session = c.with_file_name("notes.jsonl");
    std::fs::write(&not_a_session, "hello\n").unwrap();
    let (records, stderr) = agent.json(&[]);
    assert_eq!(total(&records)["cost"], 15.75);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{stderr}");
    assert!(stderr.contains("_c.jsonl: skipped 1 unreadable line"), "{stderr}");
    assert!(stderr.contains("notes.jsonl: not counted"), "{stderr}");
}

#[test]
fn the_table_and_csv() {
    let agent = Agent::new();
    let out = agent.run(&["--by", "project", "-z", "UTC"]);
    assert!(out.status.success());
    let table = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = table.lines().collect();
    assert_eq!(lines.len(), 4, "{table}");
    assert!(lines[0].starts_with("project") && lines[0].ends_with("cost"), "{table}");
    assert!(
        lines[1].starts_with("/p/one") && lines[1].ends_with("$3.7500"),
        "{table}"
    );
    assert!(
        lines[3].starts_with("total") && lines[3].ends_with("$15.7500"),
        "{table}"
    );
    assert!(lines[3].contains("4,100"), "{table}");

    let out = agent.run(&["--by", "session", "--csv", "-z", "UTC"]);
    let csv = String::from_utf8(out.stdout).unwrap();
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(
        rows[0],
        "session,path,input,output,cacheRead,cacheWrite,totalTokens,cost,calls"
    );
    assert!(rows[1].starts_with("a,") && rows[1].ends_with(",1.75,3"), "{csv}");
    assert_eq!(rows[4], "total,,4100,60,12,6,4178,15.75,6");
}

/// Sets a file's modification time a minute back: the cache records only files that have
/// not changed for a few seconds.
fn settle(path: &Path) {
    let past = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
    std::fs::File::options()
        .write(true)
        .open(path)
        .unwrap()
        .set_modified(past)
        .unwrap();
}

#[test]
fn a_report_from_the_cache_is_the_report_read_from_the_files() {
    let agent = Agent::new();
    let a = agent.session("--p-one--", "a");
    let b = agent.session("--p-one--", "b");
    // A clone of a (its copies count once), a copy of b (said), a damaged file (said, every
    // time), a file that is no session.
    let clone = cmd().arg("-s").arg(&a).arg("clone").output().unwrap();
    assert!(clone.status.success(), "{}", String::from_utf8_lossy(&clone.stderr));
    std::fs::copy(&b, b.with_file_name("copy-of-b.jsonl")).unwrap();
    let c = agent.session("--p-two--", "c");
    let mut text = std::fs::read_to_string(&c).unwrap();
    text.push_str("{\"type\":\"message\",\"message\":{\"role\":\"assistant\",\"usage\":{\"input\":\n");
    std::fs::write(&c, text).unwrap();
    std::fs::write(c.with_file_name("notes.jsonl"), "hello\n").unwrap();
    for project in std::fs::read_dir(agent.dir.path().join("sessions")).unwrap() {
        for file in std::fs::read_dir(project.unwrap().path()).unwrap() {
            settle(&file.unwrap().path());
        }
    }

    let home = tempfile::tempdir().unwrap();
    let cache = home.path().join("pi-session/usage.cache");
    let run = |args: &[&str]| {
        let out = agent.run_with_cache(args, home.path());
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        (
            String::from_utf8(out.stdout).unwrap(),
            String::from_utf8(out.stderr).unwrap(),
        )
    };
    let sets: [&[&str]; 3] = [
        &["--json", "-z", "UTC"],
        &["--json", "-z", "UTC", "--by", "session,model"],
        &[
            "--csv",
            "-z",
            "UTC",
            "--by",
            "week,source,project",
            "--since",
            "2026-11-02",
        ],
    ];
    for args in sets {
        let cold = run(&[args, &["--no-cache"]].concat());
        assert!(!cache.exists(), "--no-cache writes no cache");
        assert!(
            cold.1.contains("skipped 1 unreadable line") && cold.1.contains("same session"),
            "{}",
            cold.1
        );
        let first = run(args);
        assert!(cache.exists(), "the first run records what it read");
        let warm = run(args);
        assert_eq!(first, cold, "{args:?}");
        assert_eq!(warm, cold, "{args:?}");
        std::fs::remove_file(&cache).unwrap();
    }

    // Warm, the files are not opened: a file rewritten in place to the same size and
    // modification time still gives what was recorded (what "a stat per file" means)…
    run(&["--json"]);
    let before = run(&["--json", "-z", "UTC"]);
    let mtime = std::fs::metadata(&b).unwrap().modified().unwrap();
    let text = std::fs::read_to_string(&b).unwrap();
    std::fs::write(&b, text.replace("\"input\":400", "\"input\":900")).unwrap();
    std::fs::File::options()
        .write(true)
        .open(&b)
        .unwrap()
        .set_modified(mtime)
        .unwrap();
    assert_eq!(run(&["--json", "-z", "UTC"]), before);
    assert_ne!(run(&["--json", "-z", "UTC", "--no-cache"]), before);
    // …while a session Pi appended to is read again.
    let mut text = std::fs::read_to_string(&b).unwrap();
    text.push_str(&format!(
        "{}\n",
        assistant("b3", "b2", "2026-11-06T09:00:00.000Z", "gpt", 1, 0.5)
    ));
    std::fs::write(&b, text).unwrap();
    settle(&b);
    let appended = run(&["--json", "-z", "UTC"]);
    assert_eq!(appended, run(&["--json", "-z", "UTC", "--no-cache"]));
    let records = ndjson(&appended.0);
    assert_eq!(total(&records)["input"], 100 + 200 + 1000 + 900 + 1 + 800 + 1600);
}
