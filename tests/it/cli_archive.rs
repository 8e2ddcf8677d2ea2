//! `pi-session archive` and `rm`: sessions moved to the archive beside Pi's folders and back,
//! or to the trash; `--archived` for ls, usage, grep and secrets.

use crate::common::{cmd, ndjson};
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// A temp HOME holding Pi's agent dir, the caches, the trash and a project to run in.
struct Env {
    _tmp: tempfile::TempDir,
    home: PathBuf,
    agent: PathBuf,
    proj: PathBuf,
}

impl Env {
    fn new() -> Env {
        let tmp = tempfile::tempdir().unwrap();
        let home = tmp.path().canonicalize().unwrap();
        let proj = home.join("proj");
        fs::create_dir_all(&proj).unwrap();
        Env {
            _tmp: tmp,
            agent: home.join("agent"),
            home,
            proj,
        }
    }

    /// The project's folder of Pi's sessions, or of the archive.
    fn folder(&self, archive: bool) -> PathBuf {
        let name = format!(
            "--{}--",
            self.proj.to_string_lossy().trim_start_matches('/').replace('/', "-")
        );
        let root = if archive { "sessions-archive" } else { "sessions" };
        self.agent.join(root).join(name)
    }

    fn trash(&self) -> PathBuf {
        self.home.join("data/Trash")
    }

    fn run(&self, args: &[&str]) -> (i32, String, String) {
        let out = cmd()
            .current_dir(&self.proj)
            .env("HOME", &self.home)
            .env("PI_CODING_AGENT_DIR", &self.agent)
            .env("XDG_CACHE_HOME", self.home.join("cache"))
            .env("XDG_DATA_HOME", self.home.join("data"))
            .args(args)
            .output()
            .unwrap();
        let text = |b: Vec<u8>| String::from_utf8(b).unwrap();
        (out.status.code().unwrap_or(-1), text(out.stdout), text(out.stderr))
    }

    fn ok(&self, args: &[&str]) -> String {
        let (code, out, err) = self.run(args);
        assert_eq!(code, 0, "{args:?}: {err}");
        out
    }

    /// A session `id` of the project whose last activity was `days` ago, its file last
    /// modified an hour ago (settled); with an assistant reply that paid, and `text`.
    fn session(&self, id: &str, days: i64, text: &str) -> PathBuf {
        let ms = jiff::Timestamp::now().as_millisecond() - days * 86_400_000;
        let ts = jiff::Timestamp::from_millisecond(ms).unwrap().to_string();
        let cwd = self.proj.to_string_lossy();
        let lines = [
            json!({"type": "session", "version": 3, "id": id, "timestamp": ts, "cwd": cwd}),
            json!({"type": "message", "id": format!("{id}u1"), "parentId": null, "timestamp": ts,
                   "message": {"role": "user", "content": text}}),
            json!({"type": "message", "id": format!("{id}a1"), "parentId": format!("{id}u1"), "timestamp": ts,
                   "message": {"role": "assistant", "content": [{"type": "text", "text": "ok"}],
                               "provider": "anthropic", "model": "m", "stopReason": "stop",
                               "usage": {"input": 100, "output": 10, "cacheRead": 0, "cacheWrite": 0,
                                         "totalTokens": 110,
                                         "cost": {"input": 0.5, "output": 0, "cacheRead": 0,
                                                  "cacheWrite": 0, "total": 0.5}}}}),
        ];
        let dir = self.folder(false);
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("{id}.jsonl"));
        let body: String = lines.iter().map(|l| format!("{l}\n")).collect();
        fs::write(&path, body).unwrap();
        age(&path);
        path
    }
}

fn age(path: &Path) {
    let f = fs::OpenOptions::new().write(true).open(path).unwrap();
    f.set_modified(SystemTime::now() - Duration::from_secs(3600)).unwrap();
}

/// Every file and folder under `dir`, with the bytes of each file.
fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Option<Vec<u8>>> {
    let mut all = BTreeMap::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(d) = todo.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                all.insert(p.clone(), None);
                todo.push(p);
            } else {
                all.insert(p.clone(), Some(fs::read(&p).unwrap()));
            }
        }
    }
    all
}

#[test]
fn archive_by_id_and_path_then_restore() {
    let env = Env::new();
    let a = env.session("aaaa1111", 30, "first");
    let b = env.session("bbbb2222", 20, "second");
    let bytes = fs::read(&a).unwrap();
    let (code, out, err) = env.run(&["archive", "aaaa", b.to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    let archived = env.folder(true).join("aaaa1111.jsonl");
    assert!(!a.exists() && !b.exists());
    assert_eq!(fs::read(&archived).unwrap(), bytes);
    assert!(
        out.contains(&format!("{} -> {}", a.display(), archived.display())),
        "{out}"
    );
    assert!(err.contains("archived 2 sessions to "), "{err}");
    // Gone from ls; listed and marked with --archived.
    assert!(!env.ok(&["ls"]).contains("first"));
    let rows = ndjson(&env.ok(&["ls", "--archived", "--json"]));
    assert_eq!(rows.len(), 2);
    assert!(rows.iter().all(|r| r["archived"] == true), "{rows:?}");
    assert!(
        env.ok(&["ls", "--archived"])
            .lines()
            .any(|l| l.starts_with("A ") && l.ends_with("first"))
    );
    // Back, by id of the archive; the emptied archive folder goes.
    let out = env.ok(&["archive", "--restore", "--json", "aaaa1111"]);
    let records = ndjson(&out);
    assert_eq!(
        records,
        [json!({"action": "restore", "from": archived.to_string_lossy(), "to": a.to_string_lossy(), "dryRun": false})]
    );
    assert_eq!(fs::read(&a).unwrap(), bytes);
    env.ok(&["archive", "--restore", "--all"]);
    assert!(b.exists());
    assert!(!env.agent.join("sessions-archive").exists());
    // A session outside Pi's folders is refused.
    let outside = env.home.join("x.jsonl");
    fs::copy(&a, &outside).unwrap();
    let (code, _, err) = env.run(&["archive", outside.to_str().unwrap()]);
    assert_eq!(code, 1);
    assert!(err.contains("is not in"), "{err}");
    // Nothing named: a usage error.
    assert_eq!(env.run(&["archive"]).0, 2);
}

#[test]
fn older_than_takes_the_sessions_last_active_before_age() {
    let env = Env::new();
    let old = env.session("old00001", 30, "old one");
    let new = env.session("new00001", 1, "new one");
    let out = env.ok(&["archive", "--older-than", "14d", "--json"]);
    let records = ndjson(&out);
    assert_eq!(records.len(), 1, "{out}");
    assert_eq!(records[0]["from"], old.to_string_lossy().as_ref());
    assert_eq!(records[0]["action"], "archive");
    assert!(!old.exists() && new.exists());
    // "2 weeks" is another way to say it; nothing more is that old.
    let (code, _, err) = env.run(&["archive", "--older-than", "2 weeks"]);
    assert_eq!(code, 0);
    assert!(err.contains("nothing to archive"), "{err}");
    // Restore what is older than a week, of the archive.
    env.ok(&["archive", "--restore", "--older-than", "1w"]);
    assert!(old.exists());
    // Not a date: a usage error.
    assert_eq!(env.run(&["archive", "--older-than", "soon"]).0, 2);
}

#[test]
fn dry_runs_write_nothing() {
    let env = Env::new();
    env.session("aaaa1111", 30, "first");
    env.session("bbbb2222", 20, "second");
    env.ok(&["archive", "bbbb2222"]);
    let before = snapshot(&env.home);
    let out = env.ok(&["archive", "--dry-run", "--older-than", "now"]);
    assert!(out.contains("aaaa1111.jsonl ->"), "{out}");
    let out = env.ok(&["archive", "--dry-run", "--restore", "--all", "--json"]);
    assert_eq!(ndjson(&out)[0]["dryRun"], true);
    let (code, out, err) = env.run(&["rm", "--dry-run", "aaaa1111"]);
    assert_eq!(code, 0, "{err}");
    assert!(out.contains("Trash/files/aaaa1111.jsonl"), "{out}");
    assert!(err.contains("would move 1 session to the trash"), "{err}");
    assert_eq!(snapshot(&env.home), before);
}

#[test]
fn a_session_changed_seconds_ago_is_refused_unless_forced() {
    let env = Env::new();
    env.session("aaaa1111", 30, "first");
    let fresh = env.session("bbbb2222", 30, "second");
    fs::OpenOptions::new()
        .write(true)
        .open(&fresh)
        .unwrap()
        .set_modified(SystemTime::now())
        .unwrap();
    let before = snapshot(&env.home);
    let (code, out, err) = env.run(&["archive", "--older-than", "14d"]);
    assert_eq!(code, 1, "{err}");
    assert!(out.is_empty());
    assert!(
        err.contains("changed in the last few seconds") && err.contains("--force"),
        "{err}"
    );
    assert_eq!(snapshot(&env.home), before, "a refused run moves nothing");
    // `rm` too.
    let (code, _, err) = env.run(&["rm", "bbbb2222"]);
    assert_eq!(code, 1, "{err}");
    assert!(err.contains("changed in the last few seconds"), "{err}");
    assert_eq!(snapshot(&env.home), before, "a refused rm moves nothing");
    let (code, _, err) = env.run(&["archive", "--older-than", "14d", "--force"]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains("archived 2 sessions"), "{err}");
    assert!(!fresh.exists());
}

#[test]
fn the_caches_forget_what_moved() {
    let env = Env::new();
    let a = env.session("aaaa1111", 30, "first");
    env.ok(&["ls"]);
    let cache = env.home.join("cache/pi-session/listing.cache");
    let key = a.to_string_lossy().into_owned();
    let has = |c: &[u8]| c.windows(key.len()).any(|w| w == key.as_bytes());
    assert!(has(&fs::read(&cache).unwrap()), "ls recorded the session");
    env.ok(&["archive", "aaaa1111"]);
    assert!(!has(&fs::read(&cache).unwrap()), "its record is dropped");
}

#[test]
fn rm_moves_to_the_trash_with_its_info() {
    let env = Env::new();
    let a = env.session("aaaa1111", 30, "first");
    let bytes = fs::read(&a).unwrap();
    let out = env.ok(&["rm", "--json", "aaaa1111"]);
    let to = env.trash().join("files/aaaa1111.jsonl");
    assert_eq!(
        ndjson(&out),
        [json!({"from": a.to_string_lossy(), "to": to.to_string_lossy(), "deleted": false, "dryRun": false})]
    );
    assert!(!a.exists());
    assert_eq!(fs::read(&to).unwrap(), bytes);
    let info = fs::read_to_string(env.trash().join("info/aaaa1111.jsonl.trashinfo")).unwrap();
    let lines: Vec<&str> = info.lines().collect();
    assert_eq!(lines[0], "[Trash Info]");
    assert_eq!(
        lines[1],
        format!("Path={}", a.display()),
        "no byte of this path needs escaping"
    );
    let date = lines[2].strip_prefix("DeletionDate=").unwrap();
    let shape: String = date.chars().map(|c| if c.is_ascii_digit() { '9' } else { c }).collect();
    assert_eq!(shape, "9999-99-99T99:99:99", "{date}");
    // The same name again: a new name, both kept; an archived session is found too.
    fs::write(&a, &bytes).unwrap();
    age(&a);
    env.ok(&["archive", "aaaa1111"]);
    env.ok(&["rm", "aaaa1111"]);
    assert!(env.trash().join("files/aaaa1111.2.jsonl").exists());
    assert!(env.trash().join("info/aaaa1111.2.jsonl.trashinfo").exists());
    // Not a session: refused, nothing moved.
    assert_eq!(env.run(&["rm", "nosuch"]).0, 1);
}

#[test]
fn archived_sessions_for_usage_grep_and_secrets() {
    let env = Env::new();
    let token = format!("ghp_{}", "R8vXq2Lm9TzK4wYc7NbP3sHd6JfG1aUe5QoE");
    env.session("aaaa1111", 30, &format!("needle {token}"));
    env.session("bbbb2222", 30, "plain");
    env.ok(&["archive", "aaaa1111"]);
    let total = |args: &[&str]| -> Value {
        let out = env.ok(args);
        ndjson(&out).into_iter().find(|r| r["total"] == true).unwrap()["calls"].clone()
    };
    assert_eq!(total(&["usage", "--json"]), 1);
    assert_eq!(total(&["usage", "--json", "--archived"]), 2);
    assert_eq!(total(&["usage", "--json", "--archived", "--project", "."]), 2);
    assert_eq!(env.run(&["grep", "--all-sessions", "needle"]).0, 1);
    assert!(
        env.ok(&["grep", "--all-sessions", "--archived", "needle"])
            .contains("needle")
    );
    assert!(env.ok(&["grep", "--all", "--archived", "needle"]).contains("needle"));
    // Without a folder to add the archive to: usage errors, not silently ignored.
    assert_eq!(env.run(&["grep", "--archived", "needle"]).0, 2);
    assert_eq!(env.run(&["-s", "bbbb2222", "usage", "--archived"]).0, 2);
    assert_eq!(env.run(&["secrets", "--all"]).0, 0);
    let (code, out, _) = env.run(&["secrets", "--all", "--archived", "--json"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("aaaa1111.jsonl"));
}

/// `archive` of many sessions stopped by a signal (Ctrl-C, then kill -9) at a random
/// moment: every session is whole in exactly one of the two places, and nothing else is
/// left behind.
fn interrupted_archive(signal: &str) {
    let env = Env::new();
    let n = 300;
    let mut sessions = Vec::new();
    for i in 0..n {
        let p = env.session(&format!("s{i:05}"), 30, &format!("session {i}"));
        sessions.push((p.file_name().unwrap().to_owned(), fs::read(&p).unwrap()));
    }
    let mut seed = std::process::id() as u64
        ^ SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap()
            .as_nanos() as u64;
    let mut interrupted = false;
    for attempt in 0..5 {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_pi-session"))
            .current_dir(&env.proj)
            .env("HOME", &env.home)
            .env("PI_CODING_AGENT_DIR", &env.agent)
            .env_remove("PI_CODING_AGENT_SESSION_DIR")
            .env("XDG_CACHE_HOME", env.home.join("cache"))
            .args(["archive", "--older-than", "now"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        // Wait until the moves have begun, then a little more, at random.
        let start = std::time::Instant::now();
        while start.elapsed().as_secs() < 30 && child.try_wait().unwrap().is_none() && !env.folder(true).exists() {
            std::thread::sleep(Duration::from_micros(200));
        }
        std::thread::sleep(Duration::from_micros(seed % 3000));
        let _ = std::process::Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(child.id().to_string())
            .status();
        let status = child.wait().unwrap();
        // Every session in exactly one place, byte for byte.
        let (mut here, mut there) = (0, 0);
        for (name, bytes) in &sessions {
            let (a, b) = (env.folder(false).join(name), env.folder(true).join(name));
            match (a.exists(), b.exists()) {
                (true, false) => {
                    here += 1;
                    assert_eq!(&fs::read(&a).unwrap(), bytes);
                }
                (false, true) => {
                    there += 1;
                    assert_eq!(&fs::read(&b).unwrap(), bytes);
                }
                both => panic!("{name:?} in {both:?}"),
            }
        }
        // Nothing else: no temp file beside either.
        for dir in [env.folder(false), env.folder(true)] {
            if let Ok(read) = fs::read_dir(&dir) {
                for e in read {
                    let name = e.unwrap().file_name().to_string_lossy().into_owned();
                    assert!(name.starts_with('s') && name.ends_with(".jsonl"), "left behind: {name}");
                }
            }
        }
        if status.success() || here == 0 || there == 0 {
            eprintln!("attempt {attempt}: the signal came before or after the moves; again");
        } else {
            if signal == "INT" {
                assert_eq!(status.code(), Some(130));
            }
            interrupted = true;
        }
        // Everything back for the next attempt (or the next test).
        let (code, _, err) = env.run(&["archive", "--restore", "--all"]);
        assert!(code == 0, "{err}");
        for (name, _) in &sessions {
            age(&env.folder(false).join(name));
        }
        if interrupted {
            break;
        }
    }
    assert!(interrupted, "the archive always finished before the signal");
}

#[test]
fn a_ctrl_c_leaves_every_session_in_one_place() {
    interrupted_archive("INT");
}

#[test]
fn a_kill_9_leaves_every_session_in_one_place() {
    interrupted_archive("KILL");
}

/// `rm` of many sessions stopped by a signal: every session is whole either where it was
/// or in the trash, and every one in the trash has its `.trashinfo` (written before the
/// move); a `kill -9` may leave an info file whose session never moved, which the spec
/// allows (a file manager shows no entry for it).
fn interrupted_rm(signal: &str) {
    let env = Env::new();
    let mut sessions = Vec::new();
    for i in 0..300 {
        let p = env.session(&format!("s{i:05}"), 30, &format!("session {i}"));
        sessions.push((p.clone(), fs::read(&p).unwrap()));
    }
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_pi-session"))
        .current_dir(&env.proj)
        .env("HOME", &env.home)
        .env("XDG_DATA_HOME", env.home.join("data"))
        .env("PI_CODING_AGENT_DIR", &env.agent)
        .env_remove("PI_CODING_AGENT_SESSION_DIR")
        .env("XDG_CACHE_HOME", env.home.join("cache"))
        .arg("rm")
        .args(sessions.iter().map(|(p, _)| p))
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    while start.elapsed().as_secs() < 30 && child.try_wait().unwrap().is_none() && !env.trash().join("files").exists() {
        std::thread::sleep(Duration::from_micros(200));
    }
    std::thread::sleep(Duration::from_millis(2));
    let _ = std::process::Command::new("kill")
        .arg(format!("-{signal}"))
        .arg(child.id().to_string())
        .status();
    let status = child.wait().unwrap();
    let mut trashed = 0;
    for (path, bytes) in &sessions {
        let name = path.file_name().unwrap().to_string_lossy().into_owned();
        let there = env.trash().join("files").join(&name);
        match (path.exists(), there.exists()) {
            (true, false) => assert_eq!(&fs::read(path).unwrap(), bytes),
            (false, true) => {
                trashed += 1;
                assert_eq!(&fs::read(&there).unwrap(), bytes);
                assert!(
                    env.trash().join("info").join(format!("{name}.trashinfo")).exists(),
                    "{name}: no info"
                );
            }
            both => panic!("{name} in {both:?}"),
        }
    }
    if signal == "INT" && !status.success() {
        assert_eq!(status.code(), Some(130));
    }
    eprintln!("{signal}: {trashed} of {} sessions in the trash", sessions.len());
}

#[test]
fn an_interrupted_rm_leaves_every_session_in_one_place() {
    interrupted_rm("INT");
    interrupted_rm("KILL");
}
