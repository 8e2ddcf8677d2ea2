//! `pi-session ls`: the sessions of a directory (or every project) as Pi's /resume lists them.

use crate::common;

use common::{cmd, corpus_dir, ndjson};
use serde_json::{Value, json};
use std::fs;
use std::path::{Path, PathBuf};

/// A temp agent dir and a project directory to run in.
struct Env {
    _tmp: tempfile::TempDir,
    agent: PathBuf,
    proj: PathBuf,
    /// `XDG_CACHE_HOME`: the listing's cache is kept in the test's folder.
    cache_home: PathBuf,
}

impl Env {
    fn new() -> Env {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        let agent = root.join("agent");
        let proj = root.join("proj");
        fs::create_dir_all(&proj).unwrap();
        Env {
            _tmp: tmp,
            agent,
            proj,
            cache_home: root.join("cache"),
        }
    }

    /// Pi's session folder for a cwd: `sessions/--<cwd with / as ->--/`.
    fn folder(&self, cwd: &Path) -> PathBuf {
        let s = cwd.to_string_lossy();
        let name = format!("--{}--", s.trim_start_matches('/').replace(['/', '\\', ':'], "-"));
        let dir = self.agent.join("sessions").join(name);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn ls(&self, args: &[&str]) -> std::process::Output {
        cmd()
            .current_dir(&self.proj)
            .env("PI_CODING_AGENT_DIR", &self.agent)
            .env("XDG_CACHE_HOME", &self.cache_home)
            .arg("ls")
            .args(args)
            .output()
            .unwrap()
    }

    /// The listing's cache file.
    fn cache(&self) -> PathBuf {
        self.cache_home.join("pi-session/listing.cache")
    }

    fn ls_json(&self, args: &[&str]) -> Vec<Value> {
        let mut a = vec!["--json"];
        a.extend_from_slice(args);
        let out = self.ls(&a);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        ndjson(&String::from_utf8(out.stdout).unwrap())
    }
}

fn header(id: &str, ts: &str, cwd: &Path) -> Value {
    json!({"type": "session", "version": 3, "id": id, "timestamp": ts, "cwd": cwd.to_string_lossy()})
}

fn user(id: &str, parent: Option<&str>, ts: &str, text: &str) -> Value {
    json!({"type": "message", "id": id, "parentId": parent, "timestamp": ts,
           "message": {"role": "user", "content": [{"type": "text", "text": text}]}})
}

fn assistant(id: &str, parent: Option<&str>, ts: &str, text: &str) -> Value {
    json!({"type": "message", "id": id, "parentId": parent, "timestamp": ts,
           "message": {"role": "assistant", "content": [{"type": "text", "text": text}],
                       "provider": "anthropic", "model": "m", "stopReason": "stop"}})
}

fn info(id: &str, parent: Option<&str>, name: &str) -> Value {
    json!({"type": "session_info", "id": id, "parentId": parent, "timestamp": "2026-01-01T00:00:00.000Z", "name": name})
}

fn write(path: &Path, lines: &[Value]) {
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    fs::write(path, text).unwrap();
}

fn names(list: &[Value]) -> Vec<String> {
    list.iter().map(|s| s["id"].as_str().unwrap().to_owned()).collect()
}

#[test]
fn newest_activity_first_with_names_and_first_messages() {
    let env = Env::new();
    let dir = env.folder(&env.proj);
    // Named twice: the latest session_info wins, trimmed. Last activity Jan 3.
    write(
        &dir.join("2026-01-01T00-00-00-000Z_a.jsonl"),
        &[
            header("sess-a", "2026-01-01T00:00:00.000Z", &env.proj),
            user("a1", None, "2026-01-02T00:00:00.000Z", "first a"),
            info("a2", Some("a1"), "Alpha"),
            assistant("a3", Some("a2"), "2026-01-03T00:00:00.000Z", "reply a"),
            info("a4", Some("a3"), "  Beta  "),
        ],
    );
    // No name: the first user message with text. An assistant message comes first.
    write(
        &dir.join("2026-01-01T00-00-00-000Z_b.jsonl"),
        &[
            header("sess-b", "2026-01-01T00:00:00.000Z", &env.proj),
            assistant("b1", None, "2026-01-04T00:00:00.000Z", "greeting"),
            user("b2", Some("b1"), "2026-01-05T00:00:00.000Z", "hello from b"),
        ],
    );
    // No messages: modified is the header time; a name set then cleared.
    write(
        &dir.join("2026-01-04T12-00-00-000Z_c.jsonl"),
        &[
            header("sess-c", "2026-01-04T12:00:00.000Z", &env.proj),
            info("c1", None, "gone"),
            info("c2", Some("c1"), "  "),
        ],
    );
    // The message's own numeric timestamp wins over the entry's (Jan 6 vs Jan 2).
    let mut d = user("d1", None, "2026-01-02T00:00:00.000Z", "numeric time");
    d["message"]["timestamp"] = json!(1_767_657_600_000_i64); // 2026-01-06T00:00:00Z
    write(
        &dir.join("2026-01-01T00-00-00-000Z_d.jsonl"),
        &[header("sess-d", "2026-01-01T00:00:00.000Z", &env.proj), d],
    );

    let list = env.ls_json(&[]);
    assert_eq!(names(&list), ["sess-d", "sess-b", "sess-c", "sess-a"]);
    // `-n N` (and `-N`) keeps the N most recent.
    assert_eq!(names(&env.ls_json(&["-n", "2"])), ["sess-d", "sess-b"]);
    assert_eq!(names(&env.ls_json(&["-3"])), ["sess-d", "sess-b", "sess-c"]);
    let by_id = |id: &str| list.iter().find(|s| s["id"] == id).unwrap().clone();

    let a = by_id("sess-a");
    assert_eq!(a["name"], "Beta");
    assert_eq!(a["firstMessage"], "first a");
    assert_eq!(a["messageCount"], 2);
    assert_eq!(a["created"], "2026-01-01T00:00:00.000Z");
    assert_eq!(a["modified"], "2026-01-03T00:00:00.000Z");
    assert_eq!(a["cwd"], env.proj.to_string_lossy().as_ref());
    assert_eq!(a["parentSession"], Value::Null);
    assert_eq!(
        a["path"],
        dir.join("2026-01-01T00-00-00-000Z_a.jsonl").to_string_lossy().as_ref()
    );
    let keys: Vec<&str> = a.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(
        keys,
        [
            "path",
            "id",
            "name",
            "firstMessage",
            "messageCount",
            "created",
            "modified",
            "cwd",
            "parentSession",
            "current"
        ]
    );

    let b = by_id("sess-b");
    assert_eq!(b["name"], Value::Null);
    assert_eq!(b["firstMessage"], "hello from b");
    assert_eq!(b["modified"], "2026-01-05T00:00:00.000Z");

    let c = by_id("sess-c");
    assert_eq!(c["name"], Value::Null, "an empty name clears it");
    assert_eq!(c["firstMessage"], "(no messages)", "as Pi lists it");
    assert_eq!(c["messageCount"], 0);
    assert_eq!(c["modified"], "2026-01-04T12:00:00.000Z");

    assert_eq!(by_id("sess-d")["modified"], "2026-01-06T00:00:00.000Z");

    // The human table: a header row, then one row per session in the same order.
    let out = env.ls(&[]);
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert!(lines[0].starts_with("  MODIFIED"), "{text}");
    assert!(lines[0].contains("MSGS") && lines[0].ends_with("NAME"));
    assert_eq!(lines.len(), 5, "{text}");
    assert!(lines[1].contains("numeric time"));
    assert!(lines[2][2..].starts_with("2026-01-05 00:00") && lines[2].contains("hello from b"));
    assert!(lines[3].contains("(no messages)"));
    assert!(lines[4].contains("Beta") && !lines[4].contains("first a"));
}

#[test]
fn files_that_are_not_sessions_are_skipped_and_counted_with_v() {
    let env = Env::new();
    let dir = env.folder(&env.proj);
    write(
        &dir.join("good.jsonl"),
        &[
            header("good", "2026-01-01T00:00:00.000Z", &env.proj),
            user("g1", None, "2026-01-01T00:00:01.000Z", "hi"),
        ],
    );
    fs::write(dir.join("junk.jsonl"), "this is not json\n").unwrap();
    // The first value is an entry, not a header.
    write(
        &dir.join("headless.jsonl"),
        &[user("h1", None, "2026-01-01T00:00:00.000Z", "x")],
    );
    // Pi fails on a message without `message` and drops the whole file.
    write(
        &dir.join("broken.jsonl"),
        &[
            header("broken", "2026-01-01T00:00:00.000Z", &env.proj),
            json!({"type": "message", "id": "x"}),
        ],
    );
    fs::write(dir.join("empty.jsonl"), "").unwrap();
    fs::write(dir.join("notes.txt"), "not listed at all").unwrap();
    // Pi refuses a file with a value before its header that is not an object (`42`)...
    let good_header = serde_json::to_string(&header("valued", "2026-01-01T00:00:00.000Z", &env.proj)).unwrap();
    fs::write(dir.join("valued.jsonl"), format!("42\n{good_header}\n")).unwrap();
    // ...and skips a falsy one.
    let hi = serde_json::to_string(&user("n1", None, "2026-01-01T00:00:02.000Z", "hi")).unwrap();
    let nulled = good_header.replace("valued", "nulled");
    fs::write(dir.join("nulled.jsonl"), format!("null\n{nulled}\n{hi}\n")).unwrap();

    let out = env.ls(&["--json"]);
    assert!(out.status.success());
    let mut listed = names(&ndjson(&String::from_utf8_lossy(&out.stdout)));
    listed.sort();
    assert_eq!(listed, ["good", "nulled"]);
    assert!(out.stderr.is_empty(), "quiet without -v");

    let out = env.ls(&["-v"]);
    assert!(out.status.success());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(stderr.trim(), "skipped 5 files that are not Pi sessions");
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert!(
        stdout.contains(&*dir.join("good.jsonl").to_string_lossy()),
        "-v shows paths"
    );
}

#[test]
fn all_lists_every_project() {
    let env = Env::new();
    let other = env.proj.parent().unwrap().join("other");
    write(
        &env.folder(&env.proj).join("mine.jsonl"),
        &[
            header("mine", "2026-01-01T00:00:00.000Z", &env.proj),
            user("m1", None, "2026-01-02T00:00:00.000Z", "mine"),
        ],
    );
    write(
        &env.folder(&other).join("theirs.jsonl"),
        &[
            header("theirs", "2026-01-01T00:00:00.000Z", &other),
            user("t1", None, "2026-01-03T00:00:00.000Z", "theirs"),
        ],
    );
    assert_eq!(names(&env.ls_json(&[])), ["mine"]);
    let all = env.ls_json(&["--all"]);
    assert_eq!(names(&all), ["theirs", "mine"]);
    assert_eq!(all[0]["cwd"], other.to_string_lossy().as_ref());

    // The human table gets a CWD column.
    let out = env.ls(&["--all"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.lines().next().unwrap().contains("CWD"));
    assert!(text.contains(&*other.to_string_lossy()));
}

#[test]
fn session_dir_from_the_environment_is_filtered_by_cwd() {
    let env = Env::new();
    let shared = env.proj.parent().unwrap().join("shared");
    fs::create_dir_all(&shared).unwrap();
    let other = env.proj.parent().unwrap().join("other");
    write(
        &shared.join("a.jsonl"),
        &[
            header("here", "2026-01-01T00:00:00.000Z", &env.proj),
            user("1", None, "2026-01-02T00:00:00.000Z", "here"),
        ],
    );
    write(
        &shared.join("b.jsonl"),
        &[
            header("elsewhere", "2026-01-01T00:00:00.000Z", &other),
            user("2", None, "2026-01-03T00:00:00.000Z", "there"),
        ],
    );
    // A session in the agent dir is not looked at when the variable is set.
    write(
        &env.folder(&env.proj).join("c.jsonl"),
        &[header("agent-dir", "2026-01-01T00:00:00.000Z", &env.proj)],
    );
    let run = |args: &[&str]| {
        let out = cmd()
            .current_dir(&env.proj)
            .env("PI_CODING_AGENT_DIR", &env.agent)
            .env("XDG_CACHE_HOME", &env.cache_home)
            .env("PI_CODING_AGENT_SESSION_DIR", &shared)
            .arg("ls")
            .arg("--json")
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success());
        names(&ndjson(&String::from_utf8(out.stdout).unwrap()))
    };
    assert_eq!(run(&[]), ["here"]);
    assert_eq!(run(&["--all"]), ["elsewhere", "here"]);
}

#[test]
fn parent_sessions_and_escaped_names() {
    let env = Env::new();
    let dir = env.folder(&env.proj);
    let mut h = header("child", "2026-01-01T00:00:00.000Z", &env.proj);
    h["parentSession"] = json!("/somewhere/parent.jsonl");
    write(&dir.join("child.jsonl"), &[h, info("i1", None, "evil\u{1b}[31mname")]);
    let list = env.ls_json(&[]);
    assert_eq!(list[0]["parentSession"], "/somewhere/parent.jsonl");
    assert_eq!(list[0]["name"], "evil\u{1b}[31mname");
    let out = env.ls(&["-v"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains('\u{1b}'), "control characters are escaped: {text}");
    assert!(text.contains("evil\\e[31mname"));
    assert!(text.contains("parent /somewhere/parent.jsonl"));
}

#[test]
fn corpus_sessions_and_no_sessions() {
    let env = Env::new();
    // Nothing yet: no output, success, and a note on stderr saying where it looked.
    let out = env.ls(&[]);
    assert!(out.status.success());
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.starts_with("note: no Pi sessions for "), "{stderr}");
    assert!(stderr.contains(env.proj.to_str().unwrap()), "{stderr}");
    assert!(
        stderr.contains(env.agent.join("sessions").to_str().unwrap()),
        "{stderr}"
    );
    assert!(stderr.contains("which does not exist"), "{stderr}");
    let out = env.ls(&["--all", "--json"]);
    assert!(out.status.success() && out.stdout.is_empty());
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.starts_with("note: no Pi sessions found in "), "{stderr}");

    let dir = env.folder(&env.proj);
    for name in ["pi-built.v3.jsonl", "pi-built-clone.v3.jsonl", "real-large.v1.jsonl"] {
        fs::copy(corpus_dir().join(name), dir.join(name)).unwrap();
    }
    let list = env.ls_json(&["--all"]);
    let built = list
        .iter()
        .find(|s| s["path"].as_str().unwrap().ends_with("/pi-built.v3.jsonl"))
        .unwrap();
    assert_eq!(built["name"], "Tokenizer refactor");
    assert_eq!(built["firstMessage"], "Read src/parser.rs and explain the tokenizer.");
    assert_eq!(built["messageCount"], 40);
    let clone = list
        .iter()
        .find(|s| s["path"].as_str().unwrap().ends_with("/pi-built-clone.v3.jsonl"))
        .unwrap();
    assert_eq!(clone["parentSession"], "/tmp/pi-corpus-out/pi-built.v3.jsonl");
    let v1 = list
        .iter()
        .find(|s| s["path"].as_str().unwrap().ends_with("/real-large.v1.jsonl"))
        .unwrap();
    assert_eq!(v1["firstMessage"], "/mode");
    assert_eq!(v1["messageCount"], 914);
    // Newest activity first.
    let modified: Vec<&str> = list.iter().map(|s| s["modified"].as_str().unwrap()).collect();
    let mut sorted = modified.clone();
    sorted.sort_by(|a, b| b.cmp(a));
    assert_eq!(modified, sorted);
}

/// Sets a file's modification time to `age` seconds ago.
fn age(path: &Path, secs: u64) {
    let f = fs::File::options().write(true).open(path).unwrap();
    f.set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(secs))
        .unwrap();
}

#[test]
fn marks_the_session_commands_use_by_default() {
    let env = Env::new();
    let dir = env.folder(&env.proj);
    // ls orders by last activity; commands without -s take the newest file (modification
    // time): here they differ, and the mark follows the commands.
    write(
        &dir.join("active.jsonl"),
        &[
            header("sess-active", "2026-01-01T00:00:00.000Z", &env.proj),
            user("a1", None, "2026-01-09T00:00:00.000Z", "latest activity"),
        ],
    );
    age(&dir.join("active.jsonl"), 300);
    write(
        &dir.join("touched.jsonl"),
        &[
            header("sess-touched", "2026-01-01T00:00:00.000Z", &env.proj),
            user("t1", None, "2026-01-02T00:00:00.000Z", "older talk, newer file"),
        ],
    );
    age(&dir.join("touched.jsonl"), 10);
    let default = cmd()
        .current_dir(&env.proj)
        .env("PI_CODING_AGENT_DIR", &env.agent)
        .env("XDG_CACHE_HOME", &env.cache_home)
        .args(["rev-parse", "@"])
        .output()
        .unwrap();
    assert_eq!(String::from_utf8(default.stdout).unwrap(), "t1\n");

    let list = env.ls_json(&[]);
    assert_eq!(names(&list), ["sess-active", "sess-touched"]);
    assert_eq!(list[0]["current"], false);
    assert_eq!(list[1]["current"], true);

    let out = env.ls(&[]);
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines.len(), 3, "{text}");
    assert!(lines[0].starts_with("  MODIFIED"), "{text}");
    assert!(
        lines[1].starts_with("  2026-01-09") && lines[1].contains("latest activity"),
        "{text}"
    );
    assert!(lines[2].starts_with("* ") && lines[2].contains("newer file"), "{text}");

    // With --all, the same session is marked, and only it.
    let other = env.proj.parent().unwrap().join("other");
    write(
        &env.folder(&other).join("theirs.jsonl"),
        &[
            header("theirs", "2026-01-01T00:00:00.000Z", &other),
            user("o1", None, "2026-01-03T00:00:00.000Z", "theirs"),
        ],
    );
    let all = env.ls_json(&["--all"]);
    let marked: Vec<&str> = all
        .iter()
        .filter(|s| s["current"] == true)
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(marked, ["sess-touched"]);

    // From a directory without sessions nothing is marked.
    let out = cmd()
        .current_dir(env.proj.parent().unwrap())
        .env("PI_CODING_AGENT_DIR", &env.agent)
        .env("XDG_CACHE_HOME", &env.cache_home)
        .args(["ls", "--all", "--json"])
        .output()
        .unwrap();
    let list = ndjson(&String::from_utf8(out.stdout).unwrap());
    assert_eq!(list.len(), 3);
    assert!(list.iter().all(|s| s["current"] == false));
}

#[test]
fn session_dir_setting_global_project_and_environment() {
    let env = Env::new();
    let root = env.proj.parent().unwrap().to_path_buf();
    let other = root.join("other");
    let session = |dir: &Path, id: &str, cwd: &Path, day: &str| {
        fs::create_dir_all(dir).unwrap();
        write(
            &dir.join(format!("{id}.jsonl")),
            &[
                header(id, "2026-01-01T00:00:00.000Z", cwd),
                user("1", None, &format!("2026-01-{day}T00:00:00.000Z"), id),
            ],
        );
    };
    let global = root.join("global");
    session(&global, "g-here", &env.proj, "02");
    session(&global, "g-other", &other, "03");
    let project = env.proj.join("sessions");
    session(&project, "p-here", &env.proj, "04");
    let shared = root.join("shared");
    session(&shared, "e-here", &env.proj, "05");
    // Not read while a sessionDir is in effect.
    session(&env.folder(&env.proj), "agent-dir", &env.proj, "06");
    assert_eq!(names(&env.ls_json(&[])), ["agent-dir"]);

    // The global setting, `~` for $HOME: one folder, filtered by cwd; --all lists it all.
    fs::create_dir_all(&env.agent).unwrap();
    fs::write(env.agent.join("settings.json"), r#"{"sessionDir":"~/global"}"#).unwrap();
    let run = |args: &[&str], session_dir: Option<&Path>| {
        let mut c = cmd();
        c.current_dir(&env.proj)
            .env("PI_CODING_AGENT_DIR", &env.agent)
            .env("XDG_CACHE_HOME", &env.cache_home)
            .env("HOME", &root)
            .args(["ls", "--json"])
            .args(args);
        if let Some(d) = session_dir {
            c.env("PI_CODING_AGENT_SESSION_DIR", d);
        }
        let out = c.output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let list = ndjson(&String::from_utf8(out.stdout).unwrap());
        (names(&list), list)
    };
    let (here, list) = run(&[], None);
    assert_eq!(here, ["g-here"]);
    assert_eq!(list[0]["current"], json!(true));
    assert_eq!(list[0]["path"], json!(global.join("g-here.jsonl").to_string_lossy()));
    assert_eq!(run(&["--all"], None).0, ["g-other", "g-here"]);

    // The project's `.pi/settings.json` (a path relative to the cwd) wins over the global one.
    fs::create_dir_all(env.proj.join(".pi")).unwrap();
    fs::write(env.proj.join(".pi/settings.json"), r#"{"sessionDir":"sessions"}"#).unwrap();
    assert_eq!(run(&[], None).0, ["p-here"]);
    assert_eq!(run(&["--all"], None).0, ["p-here"]);

    // PI_CODING_AGENT_SESSION_DIR wins over both.
    assert_eq!(run(&[], Some(&shared)).0, ["e-here"]);
}

/// A project of several settled sessions (named, forked, with activity or none) and files
/// that are not sessions, all last modified a minute ago: what the listing's cache records.
fn settled_sessions(env: &Env) -> PathBuf {
    let dir = env.folder(&env.proj);
    let other = env.proj.parent().unwrap().join("other");
    write(
        &dir.join("a.jsonl"),
        &[
            header("sess-a", "2026-01-01T00:00:00.000Z", &env.proj),
            user("a1", None, "2026-01-02T00:00:00.000Z", "first a"),
            info("a2", Some("a1"), "  Alpha  "),
        ],
    );
    let mut forked = header("sess-b", "not a date", &env.proj);
    forked["parentSession"] = json!("/elsewhere/a.jsonl");
    write(
        &dir.join("b.jsonl"),
        &[forked, assistant("b1", None, "2026-01-03T00:00:00.000Z", "reply")],
    );
    write(
        &env.folder(&other).join("c.jsonl"),
        &[header("sess-c", "2026-01-04T00:00:00.000Z", &other)],
    );
    fs::write(dir.join("junk.jsonl"), "this is not json\n").unwrap();
    fs::write(dir.join("empty.jsonl"), "").unwrap();
    for entry in fs::read_dir(&dir)
        .unwrap()
        .chain(fs::read_dir(env.folder(&other)).unwrap())
    {
        age(&entry.unwrap().path(), 60);
    }
    dir
}

/// `ls ARGS…`'s stdout and stderr, asserting success.
fn ls_out(env: &Env, args: &[&str]) -> (String, String) {
    let out = env.ls(args);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    (
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// Writes `text` over a file in place (same inode), then gives it back its modification
/// time: with the same size, a change the listing's cache cannot see.
fn rewrite_unseen(path: &Path, text: &str) {
    let before = fs::metadata(path).unwrap();
    assert_eq!(before.len(), text.len() as u64, "same size");
    fs::write(path, text).unwrap();
    let f = fs::File::options().write(true).open(path).unwrap();
    f.set_modified(before.modified().unwrap()).unwrap();
}

/// A session's file with its user message's text replaced by one of the same length.
fn same_size_edit(path: &Path, from: &str, to: &str) -> String {
    assert_eq!(from.len(), to.len());
    let text = fs::read_to_string(path).unwrap();
    assert!(text.contains(from));
    text.replace(from, to)
}

#[test]
fn the_cache_gives_what_reading_the_files_gives() {
    let env = Env::new();
    settled_sessions(&env);
    for args in [&["--json"][..], &["--all", "--json"], &["-v"], &["--all", "-v"]] {
        let uncached = ls_out(&env, &[args, &["--no-cache"]].concat());
        assert!(!env.cache().exists(), "--no-cache writes no cache");
        // The first run records every session (and every file that is not one); the next
        // lists them from the cache: both as read from the files.
        assert_eq!(ls_out(&env, args), uncached, "{args:?}");
        assert!(env.cache().exists());
        assert_eq!(ls_out(&env, args), uncached, "{args:?}");
        fs::remove_file(env.cache()).unwrap();
    }
    let (_, stderr) = ls_out(&env, &["-v"]);
    assert_eq!(stderr, "skipped 2 files that are not Pi sessions\n");
}

#[test]
fn an_unchanged_file_is_not_read_again_and_a_changed_one_is() {
    let env = Env::new();
    let dir = settled_sessions(&env);
    let a = dir.join("a.jsonl");
    let first = ls_out(&env, &["--all", "--json"]).0;
    assert!(first.contains("first a"));

    // A change that keeps the size, modification time and inode is not seen: proof that
    // the listing came from the cache, which --no-cache neither reads nor writes.
    rewrite_unseen(&a, &same_size_edit(&a, "first a", "FIRST A"));
    let cache = fs::read(env.cache()).unwrap();
    let cache_time = fs::metadata(env.cache()).unwrap().modified().unwrap();
    assert_eq!(ls_out(&env, &["--all", "--json"]).0, first);
    let fresh = ls_out(&env, &["--all", "--json", "--no-cache"]).0;
    assert_eq!(fresh, first.replace("first a", "FIRST A"));
    assert_eq!(fs::read(env.cache()).unwrap(), cache);
    assert_eq!(fs::metadata(env.cache()).unwrap().modified().unwrap(), cache_time);

    // Appending changes the size: read again, even with the old modification time.
    let mut text = fs::read_to_string(&a).unwrap();
    text.push_str(&format!(
        "{}\n",
        user("a3", Some("a2"), "2026-01-09T00:00:00.000Z", "more")
    ));
    let time = fs::metadata(&a).unwrap().modified().unwrap();
    fs::write(&a, text).unwrap();
    fs::File::options()
        .write(true)
        .open(&a)
        .unwrap()
        .set_modified(time)
        .unwrap();
    let appended = ls_out(&env, &["--all", "--json"]).0;
    assert_eq!(appended, ls_out(&env, &["--all", "--json", "--no-cache"]).0);
    let list = ndjson(&appended);
    assert_eq!(names(&list)[0], "sess-a", "newest activity first");
    assert_eq!(
        (list[0]["messageCount"].as_u64(), list[0]["firstMessage"].as_str()),
        (Some(2), Some("FIRST A"))
    );

    // A file renamed over the session (as `repair` writes) is a new inode: read again.
    let copy = dir.join("a.copy");
    fs::write(&copy, same_size_edit(&a, "FIRST A", "first A")).unwrap();
    fs::File::options()
        .write(true)
        .open(&copy)
        .unwrap()
        .set_modified(time)
        .unwrap();
    fs::rename(&copy, &a).unwrap();
    assert!(ls_out(&env, &["--all", "--json"]).0.contains("\"first A\""));
}

#[test]
fn a_file_changed_a_moment_ago_is_not_recorded() {
    let env = Env::new();
    let dir = env.folder(&env.proj);
    let path = dir.join("now.jsonl");
    write(
        &path,
        &[
            header("now", "2026-01-01T00:00:00.000Z", &env.proj),
            user("n1", None, "2026-01-02T00:00:00.000Z", "said now"),
        ],
    );
    let first = ls_out(&env, &["--json"]).0;
    assert!(first.contains("said now"));
    assert!(!env.cache().exists(), "nothing settled, nothing recorded");

    // Beside a settled session (recorded), it still is not: a change to it within the
    // timestamp's resolution is seen.
    write(
        &dir.join("old.jsonl"),
        &[header("old", "2025-01-01T00:00:00.000Z", &env.proj)],
    );
    age(&dir.join("old.jsonl"), 60);
    assert_eq!(names(&env.ls_json(&[])), ["now", "old"]);
    assert!(env.cache().exists());
    rewrite_unseen(&path, &same_size_edit(&path, "said now", "SAID NOW"));
    let list = env.ls_json(&[]);
    assert_eq!(list[0]["firstMessage"], "SAID NOW");
}

#[test]
fn a_damaged_cache_is_ignored_and_replaced() {
    let env = Env::new();
    let dir = settled_sessions(&env);
    let expected = ls_out(&env, &["--all", "--json"]).0;
    let whole = fs::read(env.cache()).unwrap();
    let a = dir.join("a.jsonl");
    rewrite_unseen(&a, &same_size_edit(&a, "first a", "FIRST A"));
    let changed = expected.replace("first a", "FIRST A");
    let damaged: [Vec<u8>; 4] = [
        whole[..whole.len() / 2].to_vec(),
        whole[..whole.len() - 1].to_vec(),
        {
            let mut d = whole.clone();
            let last = d.len() - 3;
            d[last] ^= 0x20;
            d
        },
        b"not a cache".to_vec(),
    ];
    for bytes in damaged {
        fs::write(env.cache(), &bytes).unwrap();
        // Not used: the files are read (the unseen change shows)...
        assert_eq!(ls_out(&env, &["--all", "--json"]).0, changed);
        // ...and recorded in a new cache, used by the next run.
        assert_ne!(fs::read(env.cache()).unwrap(), bytes);
        rewrite_unseen(&a, &same_size_edit(&a, "FIRST A", "first a"));
        assert_eq!(ls_out(&env, &["--all", "--json"]).0, changed);
        rewrite_unseen(&a, &same_size_edit(&a, "first a", "FIRST A"));
    }
    // A cache folder that cannot be written to: listed all the same.
    fs::remove_file(env.cache()).unwrap();
    fs::remove_dir(env.cache().parent().unwrap()).unwrap();
    fs::write(env.cache().parent().unwrap(), "a file where the folder goes").unwrap();
    assert_eq!(ls_out(&env, &["--all", "--json"]).0, changed);
}

/// As Pi's session list: a session without a user message says "(no messages)", and a
/// header whose `id` is not a string is still listed, its id as `String(id)`
/// (`ls-header-only.jsonl`, `ls-header-id-number.jsonl`).
#[test]
fn header_only_sessions_and_numeric_ids_list_as_pi_lists_them() {
    let env = Env::new();
    let dir = env.folder(&env.proj);
    let mut only = header("only", "2026-01-01T00:00:00.000Z", &env.proj);
    write(&dir.join("a.jsonl"), &[only.clone()]);
    only["id"] = json!(12345);
    write(
        &dir.join("b.jsonl"),
        &[only, user("u1", None, "2026-01-02T00:00:00.000Z", "hello")],
    );
    let rows = env.ls_json(&[]);
    let by_id = |id: &str| {
        rows.iter()
            .find(|r| r["id"] == id)
            .unwrap_or_else(|| panic!("{rows:?}"))
    };
    assert_eq!(by_id("only")["firstMessage"], "(no messages)");
    assert_eq!(by_id("12345")["firstMessage"], "hello");
}

#[test]
fn from_a_subdirectory_ls_names_the_parent_that_has_sessions() {
    let env = Env::new();
    let dir = env.folder(&env.proj);
    write(
        &dir.join("a.jsonl"),
        &[
            header("s1", "2026-01-01T00:00:00.000Z", &env.proj),
            user("u1", None, "2026-01-01T00:00:01.000Z", "hi"),
        ],
    );
    let sub = env.proj.join("src");
    fs::create_dir_all(&sub).unwrap();
    let out = cmd()
        .current_dir(&sub)
        .env("PI_CODING_AGENT_DIR", &env.agent)
        .env("XDG_CACHE_HOME", &env.cache_home)
        .arg("ls")
        .output()
        .unwrap();
    // An empty listing is still an answer: exit 0, nothing on stdout.
    assert!(out.status.success());
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8(out.stderr).unwrap();
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{stderr}");
    assert!(lines[0].contains(sub.to_str().unwrap()), "{stderr}");
    assert!(
        lines[1].starts_with(&format!("note: {} above has 1 session;", env.proj.display())),
        "{stderr}"
    );
    assert!(lines[1].contains("exact directory"), "{stderr}");
}

/// Sessions made of the session named `parent` (its file in `dir`), last active on day `day`.
fn family_member(env: &Env, dir: &Path, id: &str, parent: Option<&str>, day: u32) {
    let ts = format!("2026-01-{day:02}T00:00:00.000Z");
    let mut h = header(id, &ts, &env.proj);
    if let Some(p) = parent {
        // Through a `..`, as another spelling of the same file.
        h["parentSession"] = json!(dir.join("..").join(dir.file_name().unwrap()).join(format!("{p}.jsonl")));
    }
    write(
        &dir.join(format!("{id}.jsonl")),
        &[h, user(&format!("{id}-u"), None, &ts, id)],
    );
}

#[test]
fn tree_draws_sessions_under_their_parents() {
    let env = Env::new();
    let dir = env.folder(&env.proj);
    family_member(&env, &dir, "root", None, 1);
    family_member(&env, &dir, "fork1", Some("root"), 5);
    family_member(&env, &dir, "sub", Some("fork1"), 6);
    family_member(&env, &dir, "fork2", Some("root"), 3);
    family_member(&env, &dir, "orphan", Some("gone"), 4);
    // A cycle of parents: drawn once, from its first session in ls's order.
    family_member(&env, &dir, "cyc-a", Some("cyc-b"), 2);
    family_member(&env, &dir, "cyc-b", Some("cyc-a"), 2);
    // ls's order: newest first.
    assert_eq!(
        names(&env.ls_json(&[])),
        ["sub", "fork1", "orphan", "fork2", "cyc-b", "cyc-a", "root"]
    );
    let rows = env.ls_json(&["--tree"]);
    let drawn: Vec<(String, u64)> = rows
        .iter()
        .map(|r| (r["id"].as_str().unwrap().to_owned(), r["depth"].as_u64().unwrap()))
        .collect();
    let want = [
        ("orphan", 0),
        ("cyc-b", 0),
        ("cyc-a", 1),
        ("root", 0),
        ("fork1", 1),
        ("sub", 2),
        ("fork2", 1),
    ];
    let want: Vec<(String, u64)> = want.iter().map(|(n, d)| (n.to_string(), *d)).collect();
    assert_eq!(drawn, want);
    assert!(rows[4]["parentSession"].as_str().unwrap().ends_with("root.jsonl"));
    let out = String::from_utf8(env.ls(&["--tree"]).stdout).unwrap();
    // The name column starts where the header's NAME does (all ASCII before it).
    let col = out.lines().next().unwrap().find("NAME").unwrap();
    let names_drawn: Vec<&str> = out.lines().skip(1).map(|l| &l[col..]).collect();
    assert_eq!(
        names_drawn,
        [
            "orphan",
            "cyc-b",
            "└─ cyc-a",
            "root",
            "├─ fork1",
            "│  └─ sub",
            "└─ fork2"
        ],
        "{out}"
    );
    // Without --tree, no depth.
    assert!(env.ls_json(&[]).iter().all(|r| r.get("depth").is_none()));
    // --no-children: the roots only, in ls's order.
    assert_eq!(names(&env.ls_json(&["--no-children"])), ["orphan", "cyc-b", "root"]);
}
