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

/// The folder Pi files the sessions of project `proj` under, in the agent dir `root/agent`
/// (created).
fn sessions_folder(root: &Path, proj: &Path) -> PathBuf {
    let cwd = proj.to_string_lossy();
    let folder = root
        .join("agent/sessions")
        .join(format!("--{}--", cwd.trim_start_matches('/').replace('/', "-")));
    fs::create_dir_all(&folder).unwrap();
    folder
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

/// (entry id, role, text) of each output line `id:role: text` (one session searched: no
/// path, as ripgrep prints none for one file).
fn hits(file: &Path, out: &str) -> Vec<(String, String, String)> {
    let prefix = format!("{}:", file.display());
    out.lines()
        .map(|l| {
            assert!(!l.starts_with(&prefix), "{l}");
            let (id, rest) = l.split_once(':').unwrap();
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
    // The caret layout as lines (not literal `\n`), then a hint to search the text as it is.
    assert_eq!(
        err,
        "error: regex parse error:\n    (unclosed\n    ^\nerror: unclosed group\n\
         hint: to search for the text as it is, not as a regex, add -F (--fixed-strings)\n"
    );
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
    let folder = sessions_folder(&root, &proj);
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
    // Without --all-sessions: only the most recent session, and (one session) no path.
    let out = run(&["needle"]);
    let text = String::from_utf8(out.stdout).unwrap();
    assert_eq!(text, "u1:user: another needle\n");
    // A folder searched: every line names its session, even piped.
    let out = run(&["--all-sessions", "--role", "user", "another"]);
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

/// A session whose one user text is `text`, at `path`.
fn session_with_text(path: &Path, text: &str) -> PathBuf {
    let mut lines = session_lines("s-text", "/p");
    lines[1]["message"]["content"][0]["text"] = json!(text);
    lines.truncate(2);
    fs::write(path, lines_of(&lines)).unwrap();
    path.to_path_buf()
}

#[test]
fn context_stays_within_one_text() {
    let tmp = tempfile::tempdir().unwrap();
    let file = session(tmp.path());
    // The match is the first line of the compaction summary's second line, the last line of
    // the user's one-line text: context never reaches into another entry or text.
    let (code, out, _) = grep(&file, &["-C", "5", "mentions"]);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "k1-compaction- ## Goal\nk1:compaction: The summary mentions a needle\n"
    );
    let (_, out, _) = grep(&file, &["-A", "2", "World"]);
    assert_eq!(out, "u1:user: Hello World, find the needle\n");
    // Two entries: a `--` between their groups.
    let (_, out, _) = grep(&file, &["-B", "1", "needle"]);
    assert_eq!(
        out,
        "u1:user: Hello World, find the needle\n--\na1-assistant- hello again\na1:assistant: second needle line\n--\nk1-compaction- ## Goal\nk1:compaction: The summary mentions a needle\n"
    );
}

#[test]
fn context_groups_overlap_and_merge() {
    let tmp = tempfile::tempdir().unwrap();
    let file = session_with_text(&tmp.path().join("c.jsonl"), "1\n2 x\n3\n4 x\n5\n6\n7\n8\n9 x\n10");
    let (code, out, _) = grep(&file, &["-C", "1", "x"]);
    assert_eq!(code, 0);
    assert_eq!(
        out,
        "u1-user- 1\nu1:user: 2 x\nu1-user- 3\nu1:user: 4 x\nu1-user- 5\n--\nu1-user- 8\nu1:user: 9 x\nu1-user- 10\n"
    );
    // -A and -B override -C.
    let (_, out, _) = grep(&file, &["-C", "3", "-A", "0", "-B", "0", "9 x"]);
    assert_eq!(out, "u1:user: 9 x\n");
    // Adjacent groups without a gap: no separator.
    let (_, out, _) = grep(&file, &["-A", "1", "^(2|4) "]);
    assert_eq!(out, "u1:user: 2 x\nu1-user- 3\nu1:user: 4 x\nu1-user- 5\n");
    // --json has no context lines.
    let (_, out, _) = grep(&file, &["--json", "-C", "2", "9 x"]);
    assert_eq!(ndjson(&out).len(), 1);
}

#[test]
fn word_regexp_uses_unicode_word_boundaries() {
    let tmp = tempfile::tempdir().unwrap();
    let file = session_with_text(
        &tmp.path().join("w.jsonl"),
        "café\ncafé_bar\nmon café!\nnaïvecafé\n-x- y",
    );
    let (_, out, _) = grep(&file, &["-w", "café"]);
    assert_eq!(out, "u1:user: café\nu1:user: mon café!\n");
    let (_, out, _) = grep(&file, &["-w", "caf"]);
    assert_eq!(out, "", "é is a word character");
    // Patterns that start or end with a non-word character work as in ripgrep.
    let (code, out, _) = grep(&file, &["-w", "--", "-x-"]);
    assert_eq!((code, out.as_str()), (0, "u1:user: -x- y\n"));
    // An alternation is wrapped whole.
    let (_, out, _) = grep(&file, &["-w", "bar|y"]);
    assert_eq!(out, "u1:user: -x- y\n");
}

#[test]
fn fixed_strings_take_metacharacters_literally() {
    let tmp = tempfile::tempdir().unwrap();
    let file = session_with_text(&tmp.path().join("f.jsonl"), "a.b*c (x) [y]\naxbbc\n$HOME\\n");
    let (_, out, _) = grep(&file, &["-F", "a.b*c (x) [y]"]);
    assert_eq!(out, "u1:user: a.b*c (x) [y]\n");
    let (_, out, _) = grep(&file, &["a.b"]);
    assert_eq!(out, "u1:user: a.b*c (x) [y]\nu1:user: axbbc\n");
    let (_, out, _) = grep(&file, &["-F", "a.b"]);
    assert_eq!(out, "u1:user: a.b*c (x) [y]\n");
    let (_, out, _) = grep(&file, &["-F", "$HOME\\n"]);
    assert_eq!(out, "u1:user: $HOME\\n\n");
    let (code, _, _) = grep(&file, &["-F", "(unclosed"]);
    assert_eq!(code, 1, "not a parse error");
    let (_, out, _) = grep(&file, &["-Fiw", "A.B*C"]);
    assert_eq!(out, "u1:user: a.b*c (x) [y]\n");
}

#[test]
fn max_count_caps_matching_lines_per_session() {
    let tmp = tempfile::tempdir().unwrap();
    let file = session(tmp.path());
    let (code, out, _) = grep(&file, &["-m", "2", "needle"]);
    assert_eq!(code, 0);
    assert_eq!(
        hits(&file, &out),
        [
            hit("u1", "user", "Hello World, find the needle"),
            hit("a1", "assistant", "second needle line"),
        ]
    );
    assert_eq!(
        grep(&file, &["-m", "2", "-c", "needle"]).1,
        format!("{}:2\n", file.display())
    );
    assert_eq!(grep(&file, &["-m", "0", "needle"]).0, 1);
    // The context after the last match still shows; matches in it count as context.
    let many = session_with_text(&tmp.path().join("m.jsonl"), "x1\nx2\nx3\nx4");
    let (_, out, _) = grep(&many, &["-m", "1", "-A", "2", "x"]);
    assert_eq!(out, "u1:user: x1\nu1-user- x2\nu1-user- x3\n");
}

#[test]
fn max_count_is_per_session() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let proj = root.join("proj");
    fs::create_dir_all(&proj).unwrap();
    let folder = sessions_folder(&root, &proj);
    let a = session_with_text(&folder.join("a.jsonl"), "x1\nx2");
    let b = session_with_text(&folder.join("b.jsonl"), "x3\nx4");
    let out = cmd()
        .current_dir(&proj)
        .env("PI_CODING_AGENT_DIR", root.join("agent"))
        .args(["grep", "--all-sessions", "-m", "1", "-c", "x"])
        .output()
        .unwrap();
    let mut lines: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    lines.sort();
    assert_eq!(lines, [format!("{}:1", a.display()), format!("{}:1", b.display())]);
}

#[test]
fn quiet_prints_nothing_and_stops_at_the_first_match() {
    let tmp = tempfile::tempdir().unwrap();
    let file = session(tmp.path());
    for args in [
        &["-q", "needle"][..],
        &["-q", "-c", "needle"],
        &["-q", "--json", "needle"],
        &["-ql", "needle"],
    ] {
        let (code, out, err) = grep(&file, args);
        assert_eq!((code, out.as_str(), err.as_str()), (0, "", ""), "{args:?}");
    }
    assert_eq!(grep(&file, &["-q", "zzz"]), (1, String::new(), String::new()));
    // The search stops at the first match: a session broken after it still answers 0,
    // while a full search reports the broken session (2).
    let mut text = fs::read_to_string(&file).unwrap();
    text.push_str("{not json\n");
    let broken = tmp.path().join("broken.jsonl");
    fs::write(&broken, text).unwrap();
    assert_eq!(grep(&broken, &["-q", "needle"]).0, 0);
    assert_eq!(grep(&broken, &["-q", "zzz"]).0, 1);
    // Many entries: the answer comes from the first match (and agrees with the full search).
    let mut lines = session_lines("s-big", "/p");
    let template = lines[1].clone();
    lines.truncate(1);
    for i in 0..20_000 {
        let mut e = template.clone();
        e["id"] = json!(format!("e{i}"));
        e["parentId"] = if i == 0 {
            Value::Null
        } else {
            json!(format!("e{}", i - 1))
        };
        e["message"]["content"][0]["text"] = json!(if i % 5000 == 4999 { "hit here" } else { "nothing" });
        lines.push(e);
    }
    let big = tmp.path().join("big.jsonl");
    fs::write(&big, lines_of(&lines)).unwrap();
    assert_eq!(grep(&big, &["-q", "hit"]), (0, String::new(), String::new()));
    assert_eq!(grep(&big, &["-c", "hit"]).1, format!("{}:4\n", big.display()));
    assert_eq!(
        grep(&big, &["-m", "3", "-c", "hit"]).1,
        format!("{}:3\n", big.display())
    );
    let (_, out, _) = grep(&big, &["-m", "2", "hit"]);
    assert_eq!(out, "e4999:user: hit here\ne9999:user: hit here\n");
}

#[test]
fn one_session_has_no_path_unless_asked() {
    let tmp = tempfile::tempdir().unwrap();
    let file = session(tmp.path());
    let (_, out, _) = grep(&file, &["--role", "user", "needle"]);
    assert_eq!(out, "u1:user: Hello World, find the needle\n");
    let (_, out, _) = grep(&file, &["-H", "--role", "user", "needle"]);
    assert_eq!(
        out,
        format!("{}:u1:user: Hello World, find the needle\n", file.display())
    );
    let (_, out, _) = grep(&file, &["-H", "--heading", "--role", "user", "needle"]);
    assert_eq!(
        out,
        format!("{}\nu1:user: Hello World, find the needle\n", file.display())
    );
    let (_, out, _) = grep(&file, &["-H", "--no-filename", "--role", "user", "needle"]);
    assert_eq!(out, "u1:user: Hello World, find the needle\n");
}

/// Two project folders under a temporary agent dir, one session in each; runs
/// `pi-session grep ARGS…` in the first project's directory, on a pty when `terminal`.
struct TwoProjects {
    _tmp: tempfile::TempDir,
    root: PathBuf,
    proj: PathBuf,
    a: PathBuf,
    b: PathBuf,
}

impl TwoProjects {
    fn new() -> TwoProjects {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        let mut paths = Vec::new();
        for (name, text) in [("one", "alpha needle\nbeta"), ("two", "gamma\ndelta needle")] {
            let proj = root.join(name);
            fs::create_dir_all(&proj).unwrap();
            let cwd = proj.to_string_lossy().into_owned();
            let folder = sessions_folder(&root, &proj);
            let mut lines = session_lines(&format!("s-{name}"), &cwd);
            lines[1]["message"]["content"][0]["text"] = json!(text);
            lines[1]["timestamp"] = json!(if name == "one" {
                "2026-01-02T00:00:00.000Z"
            } else {
                "2026-01-01T00:00:00.000Z"
            });
            lines.truncate(2);
            let path = folder.join(format!("{name}.jsonl"));
            fs::write(&path, lines_of(&lines)).unwrap();
            paths.push(path);
        }
        TwoProjects {
            proj: root.join("one"),
            a: paths[0].clone(),
            b: paths[1].clone(),
            root,
            _tmp: tmp,
        }
    }

    /// Where `grep --all` keeps the listing's cache: in the test's folder.
    fn cache_home(&self) -> PathBuf {
        self.root.join("cache")
    }

    fn grep(&self, args: &[&str]) -> (i32, String) {
        let out = cmd()
            .current_dir(&self.proj)
            .env("PI_CODING_AGENT_DIR", self.root.join("agent"))
            .env("XDG_CACHE_HOME", self.cache_home())
            .arg("grep")
            .args(args)
            .output()
            .unwrap();
        (out.status.code().unwrap(), String::from_utf8(out.stdout).unwrap())
    }

    /// On a pty (util-linux `script`); `None` where `script` is missing.
    fn grep_on_terminal(&self, args: &[&str]) -> Option<String> {
        let ok = std::process::Command::new("script")
            .args(["-qec", "true", "/dev/null"])
            .output()
            .is_ok_and(|o| o.status.success());
        if !ok {
            crate::common::skip("util-linux `script` is not available to provide a terminal");
            return None;
        }
        let quote = |s: &str| format!("'{}'", s.replace('\'', "'\\''"));
        let bin = assert_cmd::cargo::cargo_bin("pi-session");
        let mut line = format!("{} grep", quote(&bin.display().to_string()));
        for a in args {
            line.push(' ');
            line.push_str(&quote(a));
        }
        let out = std::process::Command::new("script")
            .args(["-qec", &line, "/dev/null"])
            .env("NO_COLOR", "1")
            .env("TERM", "xterm")
            .env("PI_CODING_AGENT_DIR", self.root.join("agent"))
            .env("XDG_CACHE_HOME", self.cache_home())
            .env_remove("PI_CODING_AGENT_SESSION_DIR")
            .current_dir(&self.proj)
            .output()
            .unwrap();
        Some(String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n"))
    }
}

#[test]
fn all_searches_every_project() {
    let t = TwoProjects::new();
    let (code, out) = t.grep(&["--all", "needle"]);
    assert_eq!(code, 0);
    // In `ls --all`'s order: newest first.
    assert_eq!(
        out,
        format!(
            "{}:u1:user: alpha needle\n{}:u1:user: delta needle\n",
            t.a.display(),
            t.b.display()
        )
    );
    // --all-sessions stays with the current directory's.
    let (_, out) = t.grep(&["--all-sessions", "needle"]);
    assert_eq!(out, format!("{}:u1:user: alpha needle\n", t.a.display()));
    let (_, out) = t.grep(&["--all", "-l", "delta"]);
    assert_eq!(out, format!("{}\n", t.b.display()));
    assert_eq!(t.grep(&["--all", "--all-sessions", "x"]).0, 2);
    // -q across sessions.
    assert_eq!(t.grep(&["--all", "-q", "needle"]), (0, String::new()));
    // Context across sessions, piped: `--` between sessions too, as ripgrep.
    let (_, out) = t.grep(&["--all", "-C", "1", "needle"]);
    assert_eq!(
        out,
        format!(
            "{a}:u1:user: alpha needle\n{a}-u1-user- beta\n--\n{b}-u1-user- gamma\n{b}:u1:user: delta needle\n",
            a = t.a.display(),
            b = t.b.display()
        )
    );
}

#[test]
fn all_lists_through_the_listing_cache() {
    let t = TwoProjects::new();
    let expected = t.grep(&["--all", "needle"]);
    let cache = t.cache_home().join("pi-session/listing.cache");
    assert!(!cache.exists(), "sessions written a moment ago are not recorded");
    // Settled sessions are: the next run lists them from the cache, with the same result.
    for path in [&t.a, &t.b] {
        let old = std::time::SystemTime::now() - std::time::Duration::from_secs(60);
        fs::File::options()
            .write(true)
            .open(path)
            .unwrap()
            .set_modified(old)
            .unwrap();
    }
    assert_eq!(t.grep(&["--all", "needle"]), expected);
    assert!(cache.exists());
    assert_eq!(t.grep(&["--all", "needle"]), expected);
}

#[test]
fn headings_on_a_terminal_or_when_asked() {
    let t = TwoProjects::new();
    let expected = format!(
        "{}\nu1:user: alpha needle\n\n{}\nu1:user: delta needle\n",
        t.a.display(),
        t.b.display()
    );
    let (_, out) = t.grep(&["--all", "--heading", "needle"]);
    assert_eq!(out, expected);
    // --no-heading wins when it comes last.
    let (_, out) = t.grep(&["--all", "--heading", "--no-heading", "needle"]);
    assert!(out.starts_with(&format!("{}:u1:", t.a.display())), "{out}");
    let Some(screen) = t.grep_on_terminal(&["--all", "needle"]) else {
        return;
    };
    assert_eq!(screen, expected);
    let screen = t.grep_on_terminal(&["--all", "--no-heading", "needle"]).unwrap();
    assert!(screen.starts_with(&format!("{}:u1:", t.a.display())), "{screen}");
    // One session on a terminal: neither heading nor path.
    let screen = t.grep_on_terminal(&["alpha"]).unwrap();
    assert_eq!(screen, "u1:user: alpha needle\n");
}

#[test]
fn n_limits_the_matching_lines_in_all() {
    let dir = tempfile::tempdir().unwrap();
    let file = session(dir.path());
    let (code, all, _) = grep(&file, &["needle"]);
    assert_eq!(code, 0);
    assert_eq!(all.lines().count(), 3, "{all}");
    for args in [
        &["needle", "-n", "2"][..],
        &["-n2", "needle"],
        &["-2", "needle"],
        &["--limit", "2", "needle"],
    ] {
        let (code, out, _) = grep(&file, args);
        assert_eq!(code, 0, "{args:?}");
        let first_two: String = all.lines().take(2).map(|l| format!("{l}\n")).collect();
        assert_eq!(out, first_two, "{args:?}");
    }
    // Nothing to print: as when nothing matched.
    let (code, out, _) = grep(&file, &["-n", "0", "needle"]);
    assert_eq!((code, out.as_str()), (1, ""));
    // The context after the last match kept stays; lines after it go.
    let (_, out, _) = grep(&file, &["-C", "1", "-n", "1", "hello"]);
    let (_, full, _) = grep(&file, &["-C", "1", "hello"]);
    assert_eq!(
        out, "a1:assistant: hello again\na1-assistant- second needle line\n",
        "{full}"
    );
    // With --json, -c: the matches counted are the ones kept.
    let (_, json, _) = grep(&file, &["--json", "-n", "1", "needle"]);
    assert_eq!(ndjson(&json).len(), 1);
    let (_, count, _) = grep(&file, &["-c", "-n", "2", "needle"]);
    assert!(count.trim_end().ends_with(":2"), "{count}");
}

#[test]
fn n_counts_across_sessions() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().canonicalize().unwrap();
    let proj = root.join("proj");
    fs::create_dir_all(&proj).unwrap();
    let cwd = proj.to_string_lossy().into_owned();
    let folder = sessions_folder(&root, &proj);
    let now = std::time::SystemTime::now();
    for (name, age) in [("old.jsonl", 30), ("new.jsonl", 10)] {
        let path = folder.join(name);
        fs::write(&path, lines_of(&session_lines(name, &cwd))).unwrap();
        let f = fs::File::options().write(true).open(&path).unwrap();
        f.set_modified(now - std::time::Duration::from_secs(age)).unwrap();
    }
    let run = |args: &[&str]| {
        let out = cmd()
            .current_dir(&proj)
            .env("PI_CODING_AGENT_DIR", root.join("agent"))
            .args(["grep", "--all-sessions", "--no-heading"])
            .args(args)
            .output()
            .unwrap();
        (out.status.code().unwrap(), String::from_utf8(out.stdout).unwrap())
    };
    let (_, all) = run(&["needle"]);
    assert_eq!(all.lines().count(), 6, "{all}");
    // Each session holds 3 matching lines: 4 in all are the newest session's 3 and one more.
    let (code, out) = run(&["-n", "4", "needle"]);
    assert_eq!(code, 0);
    let first: Vec<&str> = all.lines().take(4).collect();
    assert_eq!(out.lines().collect::<Vec<_>>(), first);
    assert!(first[3].starts_with(&folder.join("old.jsonl").to_string_lossy().into_owned()));
    // -m still caps each session.
    let (_, out) = run(&["-m", "1", "-n", "5", "needle"]);
    assert_eq!(out.lines().count(), 2, "{out}");
}

#[test]
fn n_is_a_count_not_ripgreps_line_numbers() {
    let dir = tempfile::tempdir().unwrap();
    let file = session(dir.path());
    let (code, out, err) = grep(&file, &["-n", "needle"]);
    assert_eq!((code, out.as_str()), (2, ""));
    assert!(
        err.contains("count of matching lines") && err.contains("ripgrep"),
        "{err}"
    );
}
