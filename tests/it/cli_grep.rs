//! `pi-session grep`: regex search over session text, with ripgrep's exit codes.

use crate::common;

use common::{cmd, ndjson};
use serde_json::{Value, json};
use std::fs;
use std::path::{Path, PathBuf};

fn lines_of(entries: &[Value]) -> String {
    entries.iter().map(|l| format!("{l}\n")).collect()
}

fn session_lines(id: &str, cwd: &str) -> Vec<Value> {
    let ts = "2026-01-01T00:00:00.000Z";
    vec![
        json!({"type": "session", "version": 3, "id": id, "timestamp": ts, "cwd": cwd}),
        json!({"type": "message", "id": "u1", "parentId": null, "timestamp": ts,
               "message": {"role": "user", "content": [{"type": "text", "text": "Hello World, find the needle"}]}}),
        json!({"type": "message", "id": "a1", "parentId": "u1", "timestamp": ts,
               "message": {"role": "assistant", "provider": "p", "model": "m", "stopReason": "toolUse",
                           "content": [{"type": "thinking", "thinking": "needle in thinking is not searched"},
                                       {"type": "text", "text": "hello again\nsecond needle line"},
                                       {"type": "toolCall", "id": "c1", "name": "bash",
                                        "arguments": {"command": "grep -r haystack src"}}]}}),
        json!({"type": "message", "id": "t1", "parentId": "a1", "timestamp": ts,
               "message": {"role": "toolResult", "toolCallId": "c1", "toolName": "bash",
                           "content": [{"type": "text", "text": "src/a.rs: haystack\x1b[31m here"}], "isError": false}}),
        json!({"type": "compaction", "id": "k1", "parentId": "t1", "timestamp": ts,
               "summary": "## Goal\nThe summary mentions a needle", "firstKeptEntryId": "t1", "tokensBefore": 100}),
        json!({"type": "custom_message", "id": "x1", "parentId": "k1", "timestamp": ts, "customType": "note",
               "content": "custom haystack", "display": true}),
        json!({"type": "label", "id": "l1", "parentId": "x1", "timestamp": ts, "targetId": "u1", "label": "needle"}),
    ]
}

fn session(dir: &Path) -> PathBuf {
    let path = dir.join("s.jsonl");
    fs::write(&path, lines_of(&session_lines("s1", "/p"))).unwrap();
    path
}

/// Runs `pi-session -s FILE grep ARGS…`: (exit code, stdout, stderr).
fn grep(file: &Path, args: &[&str]) -> (i32, String, String) {
    let out = cmd().arg("-s").arg(file).arg("grep").args(args).output().unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// (entry id, role, text) of each output line `path:id:role: text`.
fn hits(file: &Path, out: &str) -> Vec<(String, String, String)> {
    let prefix = format!("{}:", file.display());
    out.lines()
        .map(|l| {
            let rest = l.strip_prefix(&prefix).unwrap_or_else(|| panic!("{l}"));
            let (id, rest) = rest.split_once(':').unwrap();
            let (role, text) = rest.split_once(": ").unwrap();
            (id.to_owned(), role.to_owned(), text.to_owned())
        })
        .collect()
}

fn hit(id: &str, role: &str, text: &str) -> (String, String, String) {
    (id.into(), role.into(), text.into())
}

#[test]
fn finds_lines_in_message_text_and_summaries() {
    let tmp = tempfile::tempdir().unwrap();
    let file = session(tmp.path());
    let (code, out, err) = grep(&file, &["needle"]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        hits(&file, &out),
        [
            hit("u1", "user", "Hello World, find the needle"),
            hit("a1", "assistant", "second needle line"),
            hit("k1", "compaction", "The summary mentions a needle"),
        ]
    );
    let (_, out, _) = grep(&file, &["haystack"]);
    assert_eq!(
        hits(&file, &out),
        [
            hit("t1", "toolResult", "src/a.rs: haystack\\e[31m here"),
            hit("x1", "custom", "custom haystack"),
        ],
        "tool-call arguments need --tools; control characters are escaped"
    );
}

#[test]
fn tools_searches_tool_call_arguments() {
    let tmp = tempfile::tempdir().unwrap();
    let file = session(tmp.path());
    let (code, out, _) = grep(&file, &["--tools", "grep -r"]);
    assert_eq!(code, 0);
    assert_eq!(
        hits(&file, &out),
        [hit("a1", "toolCall", "command: grep -r haystack src")]
    );
    // The tool's name is searchable too, and --role toolCall implies --tools.
    let (code, out, _) = grep(&file, &["--role", "toolCall", "^bash$"]);
    assert_eq!(code, 0);
    assert_eq!(hits(&file, &out), [hit("a1", "toolCall", "bash")]);
}

#[test]
fn ignore_case_and_roles() {
    let tmp = tempfile::tempdir().unwrap();
    let file = session(tmp.path());
    assert_eq!(grep(&file, &["HELLO"]).0, 1);
    let (code, out, _) = grep(&file, &["-i", "HELLO"]);
    assert_eq!(code, 0);
    assert_eq!(
        hits(&file, &out),
        [
            hit("u1", "user", "Hello World, find the needle"),
            hit("a1", "assistant", "hello again")
        ]
    );
    let (_, out, _) = grep(&file, &["-i", "--role", "user", "hello"]);
    assert_eq!(hits(&file, &out), [hit("u1", "user", "Hello World, find the needle")]);
    let (_, out, _) = grep(&file, &["--role", "compaction,custom", "needle|haystack"]);
    assert_eq!(
        hits(&file, &out),
        [
            hit("k1", "compaction", "The summary mentions a needle"),
            hit("x1", "custom", "custom haystack")
        ]
    );
    // An unknown role is a usage error.
    assert_eq!(grep(&file, &["--role", "nobody", "x"]).0, 2);
}

#[test]
fn exit_codes_follow_ripgrep() {
    let tmp = tempfile::tempdir().unwrap();
    let file = session(tmp.path());
    assert_eq!(grep(&file, &["needle"]).0, 0);
    let (code, out, err) = grep(&file, &["no such text"]);
    assert_eq!(code, 1);
    assert!(out.is_empty() && err.is_empty());
    let (code, out, err) = grep(&file, &["(unclosed"]);
    assert_eq!(code, 2);
    assert!(out.is_empty());
    assert!(err.starts_with("error: regex parse error"), "{err}");
    let (code, _, err) = grep(&tmp.path().join("missing.jsonl"), &["x"]);
    assert_eq!(code, 2, "{err}");
    assert!(err.starts_with("error:"));
}

#[test]
fn json_gives_byte_offsets_of_each_match() {
    let tmp = tempfile::tempdir().unwrap();
    let file = session(tmp.path());
    let (code, out, _) = grep(&file, &["--json", "ne+dle|World"]);
    assert_eq!(code, 0);
    let rows = ndjson(&out);
    assert_eq!(rows.len(), 4, "{out}");
    assert_eq!(
        rows[0],
        json!({"path": file.to_string_lossy(), "id": "u1", "role": "user", "line": 1,
               "text": "Hello World, find the needle", "start": 6, "end": 11})
    );
    assert_eq!(rows[1]["start"], 22);
    assert_eq!(rows[1]["end"], 28);
    // The second line of the assistant's text.
    assert_eq!(rows[2]["id"], "a1");
    assert_eq!(rows[2]["line"], 2);
    for r in &rows {
        let text = r["text"].as_str().unwrap();
        let (s, e) = (
            r["start"].as_u64().unwrap() as usize,
            r["end"].as_u64().unwrap() as usize,
        );
        assert!(matches!(&text[s..e], "needle" | "World"), "{r}");
    }
    // Multi-byte text: offsets are bytes.
    let uni = tmp.path().join("u.jsonl");
    let mut lines = session_lines("s2", "/p");
    lines[1]["message"]["content"][0]["text"] = json!("中文 needle");
    fs::write(&uni, lines_of(&lines)).unwrap();
    let rows = ndjson(&grep(&uni, &["--json", "--role", "user", "needle"]).1);
    assert_eq!(
        (rows[0]["start"].as_u64(), rows[0]["end"].as_u64()),
        (Some(7), Some(13))
    );
}

#[test]
fn highlighting_only_on_a_terminal_or_when_asked() {
    let tmp = tempfile::tempdir().unwrap();
    let file = session(tmp.path());
    // Piped (and NO_COLOR unset): plain text.
    let out = cmd()
        .env_remove("NO_COLOR")
        .arg("-s")
        .arg(&file)
        .args(["grep", "needle"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.is_empty() && !text.contains('\x1b'), "{text:?}");
    // Forced: the match is painted, the rest of the line is not.
    let out = cmd()
        .arg("-s")
        .arg(&file)
        .args(["--color", "always", "grep", "--role", "user", "needle"])
        .output()
        .unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("find the \x1b[31mneedle\x1b[0m"), "{text:?}");
}

#[test]
fn count_and_files_with_matches() {
    let tmp = tempfile::tempdir().unwrap();
    let file = session(tmp.path());
    let (code, out, _) = grep(&file, &["-c", "needle"]);
    assert_eq!(code, 0);
    assert_eq!(out, format!("{}:3\n", file.display()));
    let (_, out, _) = grep(&file, &["-l", "needle"]);
    assert_eq!(out, format!("{}\n", file.display()));
    assert_eq!(grep(&file, &["-l", "zzz"]).0, 1);
}

#[test]
fn all_sessions_searches_the_current_directorys_sessions() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let proj = root.join("proj");
    fs::create_dir_all(&proj).unwrap();
    let cwd = proj.to_string_lossy().into_owned();
    let folder = root
        .join("agent/sessions")
        .join(format!("--{}--", cwd.trim_start_matches('/').replace('/', "-")));
    fs::create_dir_all(&folder).unwrap();
    let one = folder.join("one.jsonl");
    let two = folder.join("two.jsonl");
    let three = folder.join("three.jsonl");
    fs::write(&one, lines_of(&session_lines("s-one", &cwd))).unwrap();
    let mut other = session_lines("s-two", &cwd);
    other[1]["message"]["content"][0]["text"] = json!("nothing to see");
    other.truncate(2);
    fs::write(&two, lines_of(&other)).unwrap();
    let mut third = session_lines("s-three", &cwd);
    third[1]["message"]["content"][0]["text"] = json!("another needle");
    third.truncate(2);
    fs::write(&three, lines_of(&third)).unwrap();
    // The most recent session (by mtime, as Pi finds it) is `three`.
    let now = std::time::SystemTime::now();
    for (path, age) in [(&one, 30), (&two, 20), (&three, 10)] {
        let f = fs::File::options().write(true).open(path).unwrap();
        f.set_modified(now - std::time::Duration::from_secs(age)).unwrap();
    }

    let run = |args: &[&str]| {
        cmd()
            .current_dir(&proj)
            .env("PI_CODING_AGENT_DIR", root.join("agent"))
            .arg("grep")
            .args(args)
            .output()
            .unwrap()
    };
    let out = run(&["--all-sessions", "-l", "needle"]);
    assert_eq!(out.status.code(), Some(0));
    let mut listed: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    listed.sort();
    let mut expected = vec![one.to_string_lossy().into_owned(), three.to_string_lossy().into_owned()];
    expected.sort();
    assert_eq!(listed, expected);

    let out = run(&["--all-sessions", "--json", "--role", "user", "needle"]);
    let rows = ndjson(&String::from_utf8(out.stdout).unwrap());
    assert_eq!(rows.len(), 2);
    // Without --all-sessions: only the most recent session.
    let out = run(&["needle"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text, format!("{}:u1:user: another needle\n", three.display()));
    // -s and --all-sessions do not mix.
    let out = run(&["--all-sessions", "-s", "one.jsonl", "needle"]);
    assert_eq!(out.status.code(), Some(2));

    // A damaged session that is not the default one: the warning's suggested command names it.
    let mut damaged = fs::read(&one).unwrap();
    damaged.extend_from_slice(b"{not json\n");
    fs::write(&one, damaged).unwrap();
    let f = fs::File::options().write(true).open(&one).unwrap();
    f.set_modified(now - std::time::Duration::from_secs(30)).unwrap();
    let out = run(&["--all-sessions", "-l", "needle"]);
    assert_eq!(out.status.code(), Some(0));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains(&format!("run `pi-session -s {} repair` to fix", one.display())),
        "{stderr}"
    );
}

#[test]
fn json_records_keep_their_field_order() {
    let tmp = tempfile::tempdir().unwrap();
    let file = session(tmp.path());
    let (code, out, _) = grep(&file, &["--json", "--role", "user", "World"]);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        format!(
            "{{\"path\":{},\"id\":\"u1\",\"role\":\"user\",\"line\":1,\"text\":\"Hello World, find the needle\",\"start\":6,\"end\":11}}\n",
            serde_json::to_string(&file.to_string_lossy()).unwrap()
        )
    );
}
