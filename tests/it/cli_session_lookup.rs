//! Which session file a command reads: `-s PATH`, `-s ID`, or the current directory's most
//! recent session, found as Pi finds it.

use crate::common;

use common::{cmd, fixture, run_ok};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// A session with one user message, its header's `cwd` set.
fn session_text(session_id: &str, cwd: &Path, entry_id: &str, text: &str) -> String {
    let header = serde_json::json!({"type":"session","version":3,"id":session_id,
        "timestamp":"2026-01-01T00:00:00.000Z","cwd":cwd.to_str().unwrap()});
    let entry = serde_json::json!({"type":"message","id":entry_id,"parentId":null,
        "timestamp":"2026-01-01T00:00:01.000Z",
        "message":{"role":"user","content":[{"type":"text","text":text}],"timestamp":1767225601000u64}});
    format!("{header}\n{entry}\n")
}

/// Writes a file and sets its modification time to `age` seconds ago.
fn write_aged(path: &Path, text: &str, age: u64) {
    std::fs::write(path, text).unwrap();
    let f = std::fs::File::options().write(true).open(path).unwrap();
    f.set_modified(SystemTime::now() - Duration::from_secs(age)).unwrap();
}

/// Pi's folder name for a directory: `--` + the path without its leading `/`, `/` → `-`, + `--`.
fn encoded(cwd: &Path) -> String {
    let s = cwd.to_str().unwrap();
    format!("--{}--", s.trim_start_matches('/').replace('/', "-"))
}

struct Setup {
    _agent: tempfile::TempDir,
    _work: tempfile::TempDir,
    agent_dir: PathBuf,
    cwd: PathBuf,
    sessions: PathBuf,
}

/// An agent dir and a project dir (canonical), with the project's session folder created.
fn setup() -> Setup {
    let agent = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let agent_dir = std::fs::canonicalize(agent.path()).unwrap();
    let cwd = std::fs::canonicalize(work.path()).unwrap().join("my project");
    std::fs::create_dir_all(&cwd).unwrap();
    let sessions = agent_dir.join("sessions").join(encoded(&cwd));
    std::fs::create_dir_all(&sessions).unwrap();
    Setup {
        _agent: agent,
        _work: work,
        agent_dir,
        cwd,
        sessions,
    }
}

fn in_project(s: &Setup) -> assert_cmd::Command {
    let mut c = cmd();
    c.env("PI_CODING_AGENT_DIR", &s.agent_dir).current_dir(&s.cwd);
    c
}

fn stdout_of(c: &mut assert_cmd::Command) -> String {
    let out = c.output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn dash_s_path_reads_that_file() {
    assert_eq!(run_ok(&fixture("labels.jsonl"), &["rev-parse", "@"]), "1a2b3c06\n");
    // A relative path is taken from the current directory.
    let out = stdout_of(
        cmd()
            .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests"))
            .args(["-s", "fixtures/labels.jsonl", "rev-parse", "@"]),
    );
    assert_eq!(out, "1a2b3c06\n");
    // The option works after the subcommand too (it is global).
    let out = stdout_of(cmd().args(["rev-parse", "@", "-s"]).arg(fixture("orphan.jsonl")));
    assert_eq!(out, "0f0f0a04\n");
    let out = stdout_of(
        cmd()
            .arg("rev-parse")
            .arg("--session")
            .arg(fixture("orphan.jsonl"))
            .arg("@"),
    );
    assert_eq!(out, "0f0f0a04\n");
}

#[test]
fn without_s_the_most_recent_session_of_the_cwd() {
    let s = setup();
    write_aged(
        &s.sessions.join("2026-01-01_old.jsonl"),
        &session_text("11111111-aaaa", &s.cwd, "0a000001", "old"),
        300,
    );
    write_aged(
        &s.sessions.join("2026-01-02_new.jsonl"),
        &session_text("22222222-bbbb", &s.cwd, "0b000001", "new"),
        100,
    );
    write_aged(
        &s.sessions.join("2026-01-03_mid.jsonl"),
        &session_text("33333333-cccc", &s.cwd, "0c000001", "middle"),
        200,
    );
    // Not a .jsonl file: ignored even though newest.
    write_aged(
        &s.sessions.join("notes.txt"),
        &session_text("44444444-dddd", &s.cwd, "0d000001", "txt"),
        1,
    );
    assert_eq!(stdout_of(in_project(&s).args(["rev-parse", "@"])), "0b000001\n");
    let log = stdout_of(in_project(&s).arg("log"));
    assert!(log.contains(" new"), "{log}");
}

#[test]
fn a_file_whose_header_does_not_parse_is_skipped() {
    let s = setup();
    write_aged(
        &s.sessions.join("good.jsonl"),
        &session_text("11111111-aaaa", &s.cwd, "0a000001", "good"),
        300,
    );
    write_aged(&s.sessions.join("broken.jsonl"), "{\"type\":\"sess", 10);
    write_aged(
        &s.sessions.join("headerless.jsonl"),
        "{\"type\":\"message\",\"id\":\"0e000001\",\"parentId\":null}\n",
        20,
    );
    write_aged(&s.sessions.join("empty.jsonl"), "", 5);
    assert_eq!(stdout_of(in_project(&s).args(["rev-parse", "@"])), "0a000001\n");
}

#[test]
fn s_session_id_and_unique_prefix_in_the_cwd_folder() {
    let s = setup();
    write_aged(
        &s.sessions.join("a.jsonl"),
        &session_text("019a0000-1111-7000-8000-000000000001", &s.cwd, "0a000001", "a"),
        300,
    );
    write_aged(
        &s.sessions.join("b.jsonl"),
        &session_text("019a0000-2222-7000-8000-000000000002", &s.cwd, "0b000001", "b"),
        100,
    );
    let full = stdout_of(in_project(&s).args(["-s", "019a0000-1111-7000-8000-000000000001", "rev-parse", "@"]));
    assert_eq!(full, "0a000001\n");
    let prefix = stdout_of(in_project(&s).args(["-s", "019a0000-1", "rev-parse", "@"]));
    assert_eq!(prefix, "0a000001\n");
    let prefix = stdout_of(in_project(&s).args(["-s", "019a0000-2222", "rev-parse", "@"]));
    assert_eq!(prefix, "0b000001\n");

    // An ambiguous prefix names both files.
    let out = in_project(&s)
        .args(["-s", "019a0000", "rev-parse", "@"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert!(stderr.contains("a.jsonl") && stderr.contains("b.jsonl"), "{stderr}");

    // An unknown id says where it looked.
    let out = in_project(&s)
        .args(["-s", "ffffffff", "rev-parse", "@"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert!(stderr.contains("ffffffff"), "{stderr}");
    assert!(stderr.contains(s.sessions.to_str().unwrap()), "{stderr}");
}

#[test]
fn session_dir_env_is_flat_and_filtered_by_cwd() {
    let s = setup();
    let flat = s.agent_dir.join("flat");
    std::fs::create_dir_all(&flat).unwrap();
    let elsewhere = s.cwd.parent().unwrap().join("other");
    write_aged(
        &flat.join("mine-old.jsonl"),
        &session_text("aaaa0000-0001", &s.cwd, "0a000001", "mine, older"),
        300,
    );
    write_aged(
        &flat.join("mine.jsonl"),
        &session_text("aaaa0000-0002", &s.cwd, "0a000002", "mine"),
        200,
    );
    write_aged(
        &flat.join("theirs.jsonl"),
        &session_text("bbbb0000-0001", &elsewhere, "0b000001", "another project"),
        10,
    );
    // The per-cwd folder under the agent dir is not used when the env var is set.
    write_aged(
        &s.sessions.join("agent.jsonl"),
        &session_text("cccc0000-0001", &s.cwd, "0c000001", "agent dir"),
        1,
    );
    let out = stdout_of(
        in_project(&s)
            .env("PI_CODING_AGENT_SESSION_DIR", &flat)
            .args(["rev-parse", "@"]),
    );
    assert_eq!(out, "0a000002\n");
    let out = stdout_of(in_project(&s).env("PI_CODING_AGENT_SESSION_DIR", &flat).args([
        "-s",
        "aaaa0000-0001",
        "rev-parse",
        "@",
    ]));
    assert_eq!(out, "0a000001\n");
    // Another project's session (listed by `ls --all`) is found by id from here too.
    let out =
        stdout_of(
            in_project(&s)
                .env("PI_CODING_AGENT_SESSION_DIR", &flat)
                .args(["-s", "bbbb0000", "rev-parse", "@"]),
        );
    assert_eq!(out, "0b000001\n");
    // The agent dir's folders are not searched when the variable is set.
    let out = in_project(&s)
        .env("PI_CODING_AGENT_SESSION_DIR", &flat)
        .args(["-s", "cccc0000-0001", "rev-parse", "@"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn nothing_found_says_where_it_looked() {
    let s = setup();
    let out = in_project(&s).args(["log"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    let stderr = String::from_utf8(out.stderr).unwrap();
    let first = stderr.lines().next().unwrap();
    assert!(first.starts_with("error: "), "{stderr}");
    assert!(first.contains(s.sessions.to_str().unwrap()), "{stderr}");
    assert!(first.contains(s.cwd.to_str().unwrap()), "{stderr}");
    assert!(
        stderr.lines().nth(1).is_some_and(|l| l.starts_with("hint: ")),
        "{stderr}"
    );

    // Same with a session dir: only other projects' sessions in it.
    let flat = s.agent_dir.join("flat");
    std::fs::create_dir_all(&flat).unwrap();
    write_aged(
        &flat.join("theirs.jsonl"),
        &session_text("bbbb0000-0001", Path::new("/somewhere/else"), "0b000001", "x"),
        10,
    );
    let out = in_project(&s)
        .env("PI_CODING_AGENT_SESSION_DIR", &flat)
        .args(["tree"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.contains(flat.to_str().unwrap()), "{stderr}");
}

#[test]
fn agent_dir_without_sessions_folder() {
    let agent = tempfile::tempdir().unwrap();
    let work = tempfile::tempdir().unwrap();
    let out = cmd()
        .env("PI_CODING_AGENT_DIR", agent.path())
        .current_dir(work.path())
        .args(["rev-parse", "@"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(stderr.starts_with("error: no session found"), "{stderr}");
}

#[test]
fn s_id_from_a_subdirectory_and_from_another_project() {
    let s = setup();
    write_aged(
        &s.sessions.join("a.jsonl"),
        &session_text("019b0000-1111-7000-8000-000000000001", &s.cwd, "0a000001", "a"),
        300,
    );
    let other = s.cwd.parent().unwrap().join("other project");
    std::fs::create_dir_all(&other).unwrap();
    let other_sessions = s.agent_dir.join("sessions").join(encoded(&other));
    std::fs::create_dir_all(&other_sessions).unwrap();
    write_aged(
        &other_sessions.join("o.jsonl"),
        &session_text("019c0000-3333-7000-8000-000000000003", &other, "0c000001", "o"),
        200,
    );
    // From a subdirectory of the project (its own session folder does not exist).
    let sub = s.cwd.join("src/deep");
    std::fs::create_dir_all(&sub).unwrap();
    let mut c = cmd();
    c.env("PI_CODING_AGENT_DIR", &s.agent_dir).current_dir(&sub);
    assert_eq!(stdout_of(c.args(["-s", "019b0000", "rev-parse", "@"])), "0a000001\n");
    // An id `ls --all` shows, from another project.
    assert_eq!(
        stdout_of(in_project(&s).args(["-s", "019c0000-3333", "rev-parse", "@"])),
        "0c000001\n"
    );
    let listed = stdout_of(in_project(&s).args(["ls", "--all", "--json"]));
    assert!(listed.contains("019c0000-3333-7000-8000-000000000003"), "{listed}");

    // The current directory's folder is searched first: a prefix unique there wins over
    // matches in other projects.
    write_aged(
        &other_sessions.join("o2.jsonl"),
        &session_text("019b0000-9999-7000-8000-000000000009", &other, "0d000001", "o2"),
        100,
    );
    assert_eq!(
        stdout_of(in_project(&s).args(["-s", "019b0000", "rev-parse", "@"])),
        "0a000001\n"
    );
    // Elsewhere, the same prefix is ambiguous: the error lists the candidates.
    let out = cmd()
        .env("PI_CODING_AGENT_DIR", &s.agent_dir)
        .current_dir(&sub)
        .args(["-s", "019b0000", "rev-parse", "@"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{stderr}");
    assert_eq!(
        lines[0],
        "error: ambiguous session id '019b0000': it matches 2 sessions"
    );
    assert!(lines[1].starts_with("hint: candidates: "), "{stderr}");
    assert!(lines[1].contains("019b0000-1111-7000-8000-000000000001 ("), "{stderr}");
    assert!(lines[1].contains("019b0000-9999-7000-8000-000000000009 ("), "{stderr}");
    assert!(
        lines[1].contains("a.jsonl") && lines[1].contains("o2.jsonl"),
        "{stderr}"
    );
}

/// Runs with a time limit: a command that blocks on a FIFO fails the test instead of hanging.
fn bounded(c: &mut assert_cmd::Command) -> std::process::Output {
    let out = c.timeout(Duration::from_secs(30)).output().expect("the command ran");
    assert!(out.status.code().is_some(), "killed after 30 s: it hung");
    out
}

fn mkfifo(path: &Path) {
    let st = std::process::Command::new("mkfifo").arg(path).status().unwrap();
    assert!(st.success());
}

#[test]
fn fifos_and_devices_in_the_sessions_folder_are_never_opened() {
    let s = setup();
    write_aged(
        &s.sessions.join("good.jsonl"),
        &session_text("019d0000-1111-7000-8000-000000000001", &s.cwd, "0a000001", "hello fifo"),
        300,
    );
    // Newest "file" of the folder: a FIFO named like a session (and a link to a device).
    mkfifo(&s.sessions.join("zz-fifo.jsonl"));
    std::os::unix::fs::symlink("/dev/zero", s.sessions.join("zz-zero.jsonl")).unwrap();

    let out = bounded(in_project(&s).args(["rev-parse", "@"]));
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "0a000001\n");
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

    for args in [&["ls", "--json"][..], &["ls", "--all"], &["ls", "-v"]] {
        let out = bounded(in_project(&s).args(args));
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let stdout = String::from_utf8(out.stdout).unwrap();
        assert!(
            stdout.contains("hello fifo") || stdout.contains("019d0000"),
            "{args:?}: {stdout}"
        );
        assert!(!stdout.contains("fifo.jsonl"), "{stdout}");
    }
    let out = bounded(in_project(&s).args(["ls", "-v"]));
    assert_eq!(
        String::from_utf8(out.stderr).unwrap().trim(),
        "skipped 2 files that are not Pi sessions"
    );

    let out = bounded(in_project(&s).args(["grep", "--all-sessions", "hello"]));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    assert!(
        stdout.contains("good.jsonl") && stdout.contains("hello fifo"),
        "{stdout}"
    );

    let out = bounded(in_project(&s).args(["repair", "--all", "--check"]));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!String::from_utf8_lossy(&out.stdout).contains("fifo"));

    // An id prefix finds the session, not the FIFO.
    let out = bounded(in_project(&s).args(["-s", "019d", "rev-parse", "@"]));
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "0a000001\n");
}

#[test]
fn s_refuses_what_is_not_a_regular_file() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("pipe.jsonl");
    mkfifo(&fifo);
    let cases: [(&Path, &str); 4] = [
        (&fifo, "it is a FIFO (named pipe), not a regular file"),
        (Path::new("/dev/zero"), "it is a character device, not a regular file"),
        (
            Path::new("/dev/urandom"),
            "it is a character device, not a regular file",
        ),
        (dir.path(), "it is a directory, not a regular file"),
    ];
    for (path, why) in cases {
        for args in [
            &["log"][..],
            &["rev-parse", "@"],
            &["show"],
            &["stats"],
            &["repair", "--check"],
            &["checkout", "--dry-run", "@"],
        ] {
            let out = bounded(cmd().arg("-s").arg(path).args(args));
            assert_eq!(out.status.code(), Some(1), "{path:?} {args:?}");
            assert!(out.stdout.is_empty());
            let stderr = String::from_utf8(out.stderr).unwrap();
            assert_eq!(
                stderr.lines().next().unwrap(),
                format!("error: cannot read {}: {why}", path.display()),
                "{args:?}"
            );
        }
    }
}

#[test]
fn session_dir_setting_serves_the_default_session_s_id_grep_and_repair() {
    let s = setup();
    let flat = s.agent_dir.join("flat");
    std::fs::create_dir_all(&flat).unwrap();
    let elsewhere = s.cwd.parent().unwrap().join("other");
    write_aged(
        &flat.join("mine.jsonl"),
        &session_text("aaaa0000-0001", &s.cwd, "0a000001", "mine"),
        200,
    );
    write_aged(
        &flat.join("theirs.jsonl"),
        &session_text("bbbb0000-0001", &elsewhere, "0b000001", "another project"),
        10,
    );
    // The per-cwd folder under the agent dir is not used when `sessionDir` is set.
    write_aged(
        &s.sessions.join("agent.jsonl"),
        &session_text("cccc0000-0001", &s.cwd, "0c000001", "agent dir"),
        1,
    );
    // The global setting, with `~` for $HOME.
    std::fs::write(
        s.agent_dir.join("settings.json"),
        r#"{"sessionDir": "~/flat", "defaultModel": "x"}"#,
    )
    .unwrap();
    let with_home = || {
        let mut c = in_project(&s);
        c.env("HOME", &s.agent_dir);
        c
    };
    assert_eq!(stdout_of(with_home().args(["rev-parse", "@"])), "0a000001\n");
    assert_eq!(
        stdout_of(with_home().args(["-s", "bbbb0000", "rev-parse", "@"])),
        "0b000001\n"
    );
    let out = with_home()
        .args(["-s", "cccc0000-0001", "rev-parse", "@"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    // grep --all-sessions searches the sessions of this directory in that folder only.
    let out = stdout_of(with_home().args(["grep", "--all-sessions", "-l", "."]));
    assert!(out.contains("mine.jsonl"), "{out}");
    assert!(!out.contains("theirs.jsonl") && !out.contains("agent.jsonl"), "{out}");
    // repair --all checks every file of that folder.
    let out = with_home().args(["repair", "--all", "--json"]).output().unwrap();
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("mine.jsonl") && text.contains("theirs.jsonl"), "{text}");
    assert!(!text.contains("agent.jsonl"), "{text}");

    // The project's setting (relative to the cwd) wins over the global one.
    let proj_flat = s.cwd.join("here-sessions");
    std::fs::create_dir_all(&proj_flat).unwrap();
    std::fs::create_dir_all(s.cwd.join(".pi")).unwrap();
    std::fs::write(s.cwd.join(".pi/settings.json"), r#"{"sessionDir": "here-sessions"}"#).unwrap();
    write_aged(
        &proj_flat.join("p.jsonl"),
        &session_text("dddd0000-0001", &s.cwd, "0d000001", "project setting"),
        100,
    );
    assert_eq!(stdout_of(with_home().args(["rev-parse", "@"])), "0d000001\n");
    // The environment wins over both settings.
    assert_eq!(
        stdout_of(
            with_home()
                .env("PI_CODING_AGENT_SESSION_DIR", &flat)
                .args(["rev-parse", "@"])
        ),
        "0a000001\n"
    );
}

#[test]
fn from_a_subdirectory_the_error_names_the_parent_with_sessions() {
    let s = setup();
    write_aged(
        &s.sessions.join("a.jsonl"),
        &session_text("11111111-aaaa", &s.cwd, "0a000001", "hi"),
        10,
    );
    let sub = s.cwd.join("src");
    std::fs::create_dir_all(&sub).unwrap();
    let out = in_project(&s).current_dir(&sub).arg("log").output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 2, "{stderr}");
    // Pi's rule is kept (the exact directory), and explained.
    assert!(lines[0].starts_with("error: no session found"), "{stderr}");
    assert!(
        lines[0].ends_with(&format!("; {} above has 1 session", s.cwd.display())),
        "{stderr}"
    );
    assert!(
        lines[1].starts_with("hint: Pi looks for sessions only in the exact directory"),
        "{stderr}"
    );
    assert!(lines[1].contains("`cd '") && lines[1].contains("-s"), "{stderr}");
}

#[test]
fn an_unknown_revision_in_the_session_chosen_here_names_its_file() {
    let s = setup();
    let file = s.sessions.join("a.jsonl");
    write_aged(&file, &session_text("11111111-aaaa", &s.cwd, "0a000001", "hi"), 10);
    let out = in_project(&s).args(["rev-parse", "green"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let stderr = String::from_utf8(out.stderr).unwrap();
    let first = stderr.lines().next().unwrap();
    assert!(first.starts_with("error: unknown revision 'green' in "), "{stderr}");
    assert!(first.contains(file.to_str().unwrap()), "{stderr}");
    assert!(
        stderr.lines().nth(1).unwrap().contains("-s names another session"),
        "{stderr}"
    );
    // :/TEXT too; a session named with -s is the user's own choice: not repeated.
    let out = in_project(&s).args(["rev-parse", ":/nowhere"]).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains(file.to_str().unwrap()));
    let out = in_project(&s)
        .arg("-s")
        .arg(&file)
        .args(["rev-parse", "green"])
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(
        stderr.lines().next(),
        Some("error: unknown revision 'green'"),
        "{stderr}"
    );
}

#[test]
fn clone_and_fork_without_o_say_that_commands_now_use_the_new_file() {
    let s = setup();
    let file = s.sessions.join("a.jsonl");
    write_aged(&file, &session_text("11111111-aaaa", &s.cwd, "0a000001", "hi"), 10);
    for args in [&["clone"][..], &["fork", "0a000001"]] {
        let out = in_project(&s).args(args).output().unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let new = String::from_utf8(out.stdout).unwrap();
        let stderr = String::from_utf8(out.stderr).unwrap();
        let note = format!(
            "note: commands run here without -s now use the new session {}",
            new.trim_end()
        );
        assert!(stderr.contains(&note), "{args:?}: {stderr}");
        assert!(
            stderr.contains(file.to_str().unwrap()),
            "{args:?}: the original is named: {stderr}"
        );
        // It was true: the new file is the one read now.
        std::fs::remove_file(new.trim_end()).unwrap();
    }
    // Written elsewhere, or not written: the default is unchanged, nothing to say.
    let elsewhere = s.cwd.join("copy.jsonl");
    let out = in_project(&s).arg("clone").arg("-o").arg(&elsewhere).output().unwrap();
    assert!(out.status.success());
    assert!(!String::from_utf8_lossy(&out.stderr).contains("now use"));
    let out = in_project(&s).args(["clone", "--dry-run"]).output().unwrap();
    assert!(out.status.success());
    assert!(!String::from_utf8_lossy(&out.stderr).contains("now use"));
}
