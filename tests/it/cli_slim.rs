//! `pi-session slim`: the images and big tool outputs the context at @ no longer carries go
//! to `<session>.slim/`, leaving what the model sees, the tree and every other byte as they
//! were; `--restore` gives back the original file byte for byte.

use crate::common;

use common::{Run, cmd, ndjson};
use serde_json::{Value, json};
use std::fs;
use std::path::{Path, PathBuf};

/// A base64 payload of `n` bytes (varied, so each image hashes apart).
fn b64(n: usize, seed: u8) -> String {
    const A: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    (0..n).map(|i| A[(i * 7 + seed as usize) % 64] as char).collect()
}

fn image(n: usize, seed: u8) -> Value {
    json!({"type": "image", "data": b64(n, seed), "mimeType": "image/png"})
}

fn entry(id: &str, parent: Option<&str>, second: u32, rest: Value) -> String {
    let mut v = json!({"type": "message", "id": id, "parentId": parent,
        "timestamp": format!("2026-03-05T08:00:{second:02}.000Z")});
    for (k, x) in rest.as_object().unwrap() {
        v[k] = x.clone();
    }
    serde_json::to_string(&v).unwrap()
}

fn msg(id: &str, parent: Option<&str>, second: u32, message: Value) -> String {
    entry(id, parent, second, json!({ "message": message }))
}

fn user(content: Value) -> Value {
    json!({"role": "user", "content": content, "timestamp": 1772697600000u64})
}

fn assistant(text: &str) -> Value {
    json!({"role": "assistant", "content": [{"type": "text", "text": text}], "api": "anthropic-messages",
        "provider": "anthropic", "model": "claude-sonnet-4-5", "usage": {"input": 10, "output": 5,
        "cacheRead": 0, "cacheWrite": 0, "totalTokens": 15, "cost": {"input": 0, "output": 0,
        "cacheRead": 0, "cacheWrite": 0, "total": 0}}, "stopReason": "stop", "timestamp": 1772697600000u64})
}

fn tool_result(content: Value) -> Value {
    json!({"role": "toolResult", "toolCallId": "t1", "toolName": "read", "content": content,
        "isError": false, "timestamp": 1772697600000u64})
}

/// A session with payloads everywhere: before a compaction's kept point (a1, a3), on an
/// abandoned branch (b1, b3), and in the context at @ (a7).
pub fn heavy_session(dir: &Path) -> PathBuf {
    let big = "x".repeat(100_000);
    let lines = [
        r#"{"type":"session","version":3,"id":"019a1c2e-5b7f-7d20-9a41-3f0e8b6c1d12","timestamp":"2026-03-05T08:00:00.000Z","cwd":"/home/dev/p"}"#.to_owned(),
        msg("a1", None, 1, user(json!([{"type": "text", "text": "what is this?"}, image(3000, 1)]))),
        msg("a2", Some("a1"), 2, assistant("let me look")),
        msg("a3", Some("a2"), 3, tool_result(json!([{"type": "text", "text": big}]))),
        msg("a4", Some("a3"), 4, assistant("a cat")),
        msg("b1", Some("a4"), 5, user(json!([image(5000, 2)]))),
        msg("b2", Some("b1"), 6, assistant("another cat")),
        serde_json::to_string(&json!({"type": "custom_message", "id": "b3", "parentId": "b2",
            "timestamp": "2026-03-05T08:00:07.000Z", "customType": "shot", "content": [image(2000, 3)],
            "display": true})).unwrap(),
        msg("a5", Some("a4"), 8, user(json!("and now?"))),
        msg("a6", Some("a5"), 9, assistant("looking")),
        msg("a7", Some("a6"), 10, tool_result(json!([image(4000, 4), {"type": "text", "text": big}]))),
        entry("a8", Some("a7"), 11, json!({"type": "compaction", "summary": "cats", "firstKeptEntryId": "a7",
            "tokensBefore": 5000})),
        msg("a9", Some("a8"), 12, user(json!("go on"))),
        msg("a10", Some("a9"), 13, assistant("done")),
    ];
    let path = dir.join("heavy.jsonl");
    fs::write(&path, lines.join("\n") + "\n").unwrap();
    age(&path);
    path
}

/// Sets the modification time an hour back (as Pi left it long ago).
pub fn age(path: &Path) {
    let f = fs::OpenOptions::new().write(true).open(path).unwrap();
    f.set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(3600))
        .unwrap();
}

fn slim(file: &Path, args: &[&str]) -> Run {
    let mut full = vec!["slim"];
    full.extend_from_slice(args);
    common::run(file, &full)
}

fn store_files(file: &Path) -> Vec<String> {
    let mut dir = file.as_os_str().to_owned();
    dir.push(".slim");
    let mut names: Vec<String> = fs::read_dir(PathBuf::from(dir))
        .map(|r| {
            r.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn a_dry_run_says_what_would_go_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let file = heavy_session(dir.path());
    let r = common::unchanged(&file, &["slim", "--dry-run"], 0);
    assert!(r.stdout.contains("would move 3 image(s)"), "{}", r.stdout);
    assert!(r.stdout.contains("would move 1 tool output(s)"), "{}", r.stdout);
    assert!(store_files(&file).is_empty());
    assert_eq!(fs::read_dir(dir.path()).unwrap().count(), 1, "nothing beside the file");
}

#[test]
fn slim_keeps_the_context_and_tree_and_restore_gives_back_every_byte() {
    let dir = tempfile::tempdir().unwrap();
    let file = heavy_session(dir.path());
    let original = fs::read(&file).unwrap();
    let context = common::run_ok(&file, &["context", "--json"]);
    let tree = common::run_ok(&file, &["tree", "--json"]);
    let r = slim(&file, &["--json"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let records = ndjson(&r.stdout);
    let summary = records.last().unwrap();
    assert_eq!(summary["result"], "slimmed");
    assert_eq!(summary["moved"], 4);
    let ids: Vec<&str> = records[..4].iter().map(|m| m["id"].as_str().unwrap()).collect();
    assert_eq!(ids, ["a1", "a3", "b1", "b3"]);
    let slimmed = fs::read(&file).unwrap();
    assert!(slimmed.len() < original.len() - 100_000);
    assert_eq!(store_files(&file).len(), 4);
    // The backup is the original.
    assert_eq!(fs::read(summary["backup"].as_str().unwrap()).unwrap(), original);
    // What the model sees and the tree are as they were (only the previews of the
    // entries slimmed now show their placeholders).
    assert_eq!(common::run_ok(&file, &["context", "--json"]), context);
    assert_eq!(common::run_ok(&file, &["tree", "--json"]), tree);
    // Lines without payloads are byte-identical; the others say where the payload went.
    let (before, after) = (lines(&original), lines(&slimmed));
    assert_eq!(before.len(), after.len());
    for (i, (b, a)) in before.iter().zip(&after).enumerate() {
        if [1, 3, 5, 7].contains(&i) {
            let text = String::from_utf8_lossy(a);
            assert!(text.contains("[pi-session slim: "), "{text}");
            assert!(text.contains("heavy.jsonl.slim/"), "{text}");
        } else {
            assert_eq!(b, a, "line {} changed", i + 1);
        }
    }
    // A second slim finds nothing.
    let again = common::unchanged(&file, &["slim"], 0);
    assert!(again.stdout.contains("nothing to move"), "{}", again.stdout);
    // Restore gives back the original, byte for byte.
    age(&file);
    let r = slim(&file, &["--restore"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(r.stdout.contains("put back 3 image(s)"), "{}", r.stdout);
    assert_eq!(fs::read(&file).unwrap(), original);
    // And a second restore has nothing to do.
    common::unchanged(&file, &["slim", "--restore"], 0);
}

fn lines(b: &[u8]) -> Vec<&[u8]> {
    b.split(|&c| c == b'\n').collect()
}

#[test]
fn in_context_also_takes_the_images_the_model_sees() {
    let dir = tempfile::tempdir().unwrap();
    let file = heavy_session(dir.path());
    let original = fs::read(&file).unwrap();
    let r = slim(&file, &["--in-context", "--json", "--no-backup"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let records = ndjson(&r.stdout);
    let in_context: Vec<&Value> = records.iter().filter(|m| m["inContext"] == true).collect();
    assert_eq!(in_context.len(), 1);
    assert_eq!(in_context[0]["id"], "a7");
    assert_eq!(in_context[0]["kind"], "image");
    assert!(records.last().unwrap()["backup"].is_null());
    // The model now reads the placeholder, and the tool output it still sees stays.
    let context = common::run_ok(&file, &["context", "--json"]);
    assert!(context.contains("[pi-session slim: an image (image/png, "), "{context}");
    assert!(context.contains(&"x".repeat(1000)));
    age(&file);
    common::run_ok(&file, &["slim", "--restore"]);
    assert_eq!(fs::read(&file).unwrap(), original);
}

#[test]
fn max_output_sets_which_outputs_go() {
    let dir = tempfile::tempdir().unwrap();
    let file = heavy_session(dir.path());
    let r = common::unchanged(&file, &["slim", "--dry-run", "--max-output", "1M"], 0);
    assert!(!r.stdout.contains("tool output"), "{}", r.stdout);
    let r = common::unchanged(&file, &["slim", "--dry-run", "--max-output", "nonsense"], 2);
    assert!(r.stderr.contains("not a size"), "{}", r.stderr);
}

#[test]
fn a_file_changed_seconds_ago_is_refused_unless_forced() {
    let dir = tempfile::tempdir().unwrap();
    let file = heavy_session(dir.path());
    let f = fs::OpenOptions::new().write(true).open(&file).unwrap();
    f.set_modified(std::time::SystemTime::now()).unwrap();
    let r = common::unchanged(&file, &["slim"], 1);
    assert!(r.stderr.contains("changed in the last few seconds"), "{}", r.stderr);
    assert!(store_files(&file).is_empty());
    let r = slim(&file, &["--force"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
}

#[test]
fn drop_deletes_the_store_with_yes_and_restore_then_reports_what_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    let file = heavy_session(dir.path());
    common::run_ok(&file, &["slim"]);
    // Without a terminal to ask on, --drop wants --yes.
    let r = cmd().arg("-s").arg(&file).args(["slim", "--drop"]).output().unwrap();
    assert_eq!(r.status.code(), Some(1));
    assert_eq!(store_files(&file).len(), 4);
    let out = common::run_ok(&file, &["slim", "--drop", "--yes"]);
    assert!(out.contains("deleted 4 payload(s)"), "{out}");
    assert!(store_files(&file).is_empty());
    age(&file);
    let r = common::unchanged(&file, &["slim", "--restore"], 1);
    assert!(r.stderr.contains("not in"), "{}", r.stderr);
}

/// A session whose abandoned branch holds 150 distinct images of 64 KiB: slim takes long
/// enough to be stopped while it writes the store.
fn big_session(dir: &Path) -> (PathBuf, Vec<u8>) {
    let mut lines = vec![
        r#"{"type":"session","version":3,"id":"019a1c2e-5b7f-7d20-9a41-3f0e8b6c1d12","timestamp":"2026-03-05T08:00:00.000Z","cwd":"/home/dev/p"}"#.to_owned(),
        msg("m0", None, 0, user(json!("hello"))),
    ];
    for i in 0..150u32 {
        let parent = if i == 0 { "m0".to_owned() } else { format!("s{}", i - 1) };
        let data: String = b64(64 * 1024 - 8, 0) + &format!("{i:08}");
        let img = json!({"type": "image", "data": data, "mimeType": "image/png"});
        lines.push(msg(&format!("s{i}"), Some(&parent), 1, user(json!([img]))));
    }
    lines.push(msg("m1", Some("m0"), 2, assistant("hi")));
    let path = dir.join("big.jsonl");
    let text = lines.join("\n") + "\n";
    fs::write(&path, &text).unwrap();
    age(&path);
    (path, text.into_bytes())
}

fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Starts `slim` on `path` and sends `signal` once the store folder appears; the exit code,
/// or `None` when slim finished first.
fn stopped_slim(path: &Path, signal: &str) -> Option<i32> {
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_pi-session"))
        .env("XDG_CACHE_HOME", common::cache_home())
        .arg("-s")
        .arg(path)
        .arg("slim")
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let store = PathBuf::from(format!("{}.slim", path.display()));
    let start = std::time::Instant::now();
    while !store.exists() && child.try_wait().unwrap().is_none() && start.elapsed().as_secs() < 60 {
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    let _ = std::process::Command::new("kill")
        .arg(signal)
        .arg(child.id().to_string())
        .status();
    let status = child.wait().unwrap();
    if status.success() {
        return None;
    }
    Some(status.code().unwrap_or(-1))
}

#[test]
fn an_interrupted_slim_leaves_nothing_behind() {
    let dir = tempfile::tempdir().unwrap();
    for attempt in 0..3 {
        let (path, original) = big_session(dir.path());
        match stopped_slim(&path, "-INT") {
            None => {
                eprintln!("attempt {attempt}: slim finished before the signal; again");
                fs::remove_dir_all(dir.path().join("big.jsonl.slim")).unwrap();
                fs::remove_file(dir.path().join("big.jsonl.bak")).unwrap();
                continue;
            }
            Some(code) => assert_eq!(code, 130),
        }
        assert!(fs::read(&path).unwrap() == original, "the file is as it was");
        assert_eq!(names(dir.path()), ["big.jsonl"], "the store and temp files are gone");
        return;
    }
    panic!("slim always finished before the signal");
}

#[test]
fn a_killed_slim_leaves_the_file_whole_and_the_next_run_cleans_up() {
    let dir = tempfile::tempdir().unwrap();
    let (path, original) = big_session(dir.path());
    let _ = stopped_slim(&path, "-KILL");
    // The original, or the slimmed file, never a mix: it loads, and says the same to Pi.
    let now = fs::read(&path).unwrap();
    assert!(
        now == original || now.len() < original.len() / 10,
        "a half-written file"
    );
    age(&path);
    let r = slim(&path, &[]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    age(&path);
    let r = slim(&path, &["--restore", "--no-backup"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert!(fs::read(&path).unwrap() == original, "restored");
    let left: Vec<String> = names(dir.path())
        .into_iter()
        .chain(names(&dir.path().join("big.jsonl.slim")))
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(left.is_empty(), "temp files left: {left:?}");
}

#[test]
fn a_linked_session_is_slimmed_where_it_is_and_several_take_one_run() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real");
    fs::create_dir(&real).unwrap();
    let file = heavy_session(&real);
    let original = fs::read(&file).unwrap();
    let link = dir.path().join("link.jsonl");
    std::os::unix::fs::symlink(&file, &link).unwrap();
    let other_dir = dir.path().join("other");
    fs::create_dir(&other_dir).unwrap();
    let other = heavy_session(&other_dir);
    let r = cmd()
        .arg("-s")
        .arg(&link)
        .arg("-s")
        .arg(&other)
        .args(["slim", "--json"])
        .output()
        .unwrap();
    assert!(r.status.success(), "{}", String::from_utf8_lossy(&r.stderr));
    let files: Vec<Value> = ndjson(&String::from_utf8(r.stdout).unwrap())
        .into_iter()
        .filter(|v| v.get("result").is_some())
        .collect();
    assert_eq!(files.len(), 2);
    assert!(files.iter().all(|f| f["result"] == "slimmed"), "{files:?}");
    // The link is still a link; the store is beside the file it points to.
    assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert_eq!(store_files(&file).len(), 4);
    assert_eq!(store_files(&other).len(), 4);
    common::run_ok(&link, &["slim", "--restore"]);
    assert_eq!(fs::read(&file).unwrap(), original);
}

/// `--all` is the current project's sessions (the working directory's), not every project's.
#[test]
fn all_is_the_current_projects_sessions() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let (agent, here, other) = (root.join("agent"), root.join("here"), root.join("other"));
    let planted = common::fixture("secrets/planted.v3.jsonl");
    for (cwd, name) in [(&here, "a.jsonl"), (&here, "b.jsonl"), (&other, "c.jsonl")] {
        fs::create_dir_all(cwd).unwrap();
        let folder = format!(
            "--{}--",
            cwd.to_string_lossy().trim_start_matches('/').replace('/', "-")
        );
        let dir = agent.join("sessions").join(folder);
        fs::create_dir_all(&dir).unwrap();
        let text = fs::read_to_string(&planted).unwrap();
        let (header, rest) = text.split_once('\n').unwrap();
        let mut header: Value = serde_json::from_str(header).unwrap();
        header["cwd"] = json!(cwd.to_string_lossy());
        fs::write(dir.join(name), format!("{header}\n{rest}")).unwrap();
    }
    let out = cmd()
        .current_dir(&here)
        .env("PI_CODING_AGENT_DIR", &agent)
        .env_remove("PI_CODING_AGENT_SESSION_DIR")
        .args(["slim", "--all", "--dry-run", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let mut files: Vec<String> = ndjson(&String::from_utf8(out.stdout).unwrap())
        .iter()
        .filter(|v| v.get("result").is_some())
        .map(|v| {
            Path::new(v["session"].as_str().unwrap())
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    files.sort();
    assert_eq!(files, ["a.jsonl", "b.jsonl"]);
}
