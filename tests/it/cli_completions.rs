//! `completions SHELL` and the hidden `__complete-revs`: the scripts load in real shells,
//! complete subcommands and options, and complete revisions with the session's labels. Shells
//! that are not installed are skipped.

use crate::common;

use common::cmd;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The folder of the pi-session binary under test, for PATH: the scripts call `pi-session`.
fn bin_dir() -> PathBuf {
    let bin = assert_cmd::cargo::cargo_bin("pi-session");
    bin.parent().unwrap().to_path_buf()
}

fn path_var() -> String {
    format!("{}:{}", bin_dir().display(), std::env::var("PATH").unwrap_or_default())
}

fn have(shell: &str) -> bool {
    let ok = Command::new(shell)
        .arg("-c")
        .arg("true")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        crate::common::skip(&format!("{shell} is not installed"));
    }
    ok
}

/// A session with labels, in a folder of its own.
fn labelled_session(dir: &Path) -> PathBuf {
    let file = dir.join("s.jsonl");
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/session.jsonl"),
        &file,
    )
    .unwrap();
    for (rev, name) in [("@", "green"), ("root", "start here"), ("@~1", "gr$(touch pwned)")] {
        // `green` is already on another entry: --force moves it.
        cmd()
            .arg("-s")
            .arg(&file)
            .args(["label", rev, name, "--force"])
            .assert()
            .success();
    }
    file
}

fn script(shell: &str) -> String {
    let out = cmd().args(["completions", shell]).output().unwrap();
    assert!(out.status.success(), "completions {shell}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn every_shell_gets_a_script() {
    for shell in ["bash", "zsh", "fish", "elvish"] {
        let s = script(shell);
        assert!(s.contains("pi-session"), "{shell}");
        assert!(s.contains("summarize-branch"), "{shell}");
        assert!(!s.contains("__generate-docs"), "{shell}");
    }
    for shell in ["bash", "zsh", "fish"] {
        assert!(script(shell).contains("__complete-revs"), "{shell} completes revisions");
    }
    // pi-session runs on Unix only, so PowerShell is refused like any shell it has no script for.
    for shell in ["tcsh", "powershell"] {
        let out = cmd().args(["completions", shell]).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{shell}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert!(err.contains("bash, zsh, fish, elvish"), "{err}");
    }
}

#[test]
fn complete_revs_lists_at_root_and_labels() {
    let dir = tempfile::tempdir().unwrap();
    let file = labelled_session(dir.path());
    let out = cmd().arg("-s").arg(&file).arg("__complete-revs").output().unwrap();
    assert!(out.status.success());
    let revs = String::from_utf8(out.stdout).unwrap();
    assert_eq!(revs, "@\nroot\ngr$(touch pwned)\ngreen\nstart\nstart here\n");
    // No session: still @ and root, and not a word on stderr.
    let out = cmd()
        .args(["-s", "/nonexistent/none.jsonl", "__complete-revs"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "@\nroot\n");
    assert!(out.stderr.is_empty());
}

/// Runs the bash completion function for the words of a command line (the last one is the
/// word being completed), in `dir`; returns the candidates.
fn bash_complete(dir: &Path, words: &[&str]) -> Vec<String> {
    let program = r#"
source <(pi-session completions bash) || exit 1
COMP_WORDS=("$@")
COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 ))
COMP_LINE="$*"
COMP_POINT=${#COMP_LINE}
prev=""
(( COMP_CWORD > 0 )) && prev="${COMP_WORDS[COMP_CWORD-1]}"
fn=$(complete -p pi-session | sed -E 's/.*-F ([^ ]+) .*/\1/')
"$fn" pi-session "${COMP_WORDS[COMP_CWORD]}" "$prev"
printf '%s\n' "${COMPREPLY[@]}"
"#;
    let out = Command::new("bash")
        .arg("-c")
        .arg(program)
        .arg("bash")
        .args(words)
        .env("PATH", path_var())
        // Pi's sessions, if any, are the test's own (`agent_with_sessions`).
        .env("PI_CODING_AGENT_DIR", dir.join("agent"))
        .env_remove("PI_CODING_AGENT_SESSION_DIR")
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter(|l| !l.is_empty())
        .map(str::to_owned)
        .collect()
}

#[test]
fn bash_completes_commands_options_and_revisions() {
    if !have("bash") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    labelled_session(dir.path());
    let registered = Command::new("bash")
        .arg("-c")
        .arg("source <(pi-session completions bash) && complete -p pi-session")
        .env("PATH", path_var())
        .output()
        .unwrap();
    assert!(registered.status.success());
    assert!(String::from_utf8(registered.stdout).unwrap().contains("pi-session"));

    let all = [
        "@",
        "root",
        "gr\\$\\(touch\\ pwned\\)",
        "green",
        "start",
        "start\\ here",
    ];
    let c = |words: &[&str]| bash_complete(dir.path(), words);
    assert!(c(&["pi-session", "su"]).contains(&"summarize-branch".to_owned()));
    assert_eq!(c(&["pi-session", "-s", "s.jsonl", "show", ""]), all);
    assert_eq!(
        c(&["pi-session", "show", "-s", "s.jsonl", "gr"]),
        ["gr\\$\\(touch\\ pwned\\)", "green"]
    );
    assert_eq!(
        c(&["pi-session", "--session", "=", "s.jsonl", "log", "st"]),
        ["start", "start\\ here"]
    );
    assert_eq!(c(&["pi-session", "-ss.jsonl", "context", "start\\ "]), ["start\\ here"]);
    assert_eq!(c(&["pi-session", "-s", "s.jsonl", "log", "-n", "3", "g"]).len(), 2);
    assert_eq!(
        c(&["pi-session", "-s", "s.jsonl", "rev-parse", "green", "root", ""]),
        all
    );
    assert_eq!(c(&["pi-session", "-s", "s.jsonl", "summarize-branch", "@"]), ["@"]);
    // Subcommand options (clap_complete's own part of the script).
    assert_eq!(c(&["pi-session", "-s", "s.jsonl", "show", "--max"]), ["--max-chars"]);
    assert!(c(&["pi-session", "log", "--"]).contains(&"--reverse".to_owned()));
    // Not where a revision goes: an option's value, the NAME of `label`, a command without REV.
    assert!(!c(&["pi-session", "-s", "s.jsonl", "log", "--max-count", ""]).contains(&"@".to_owned()));
    assert!(!c(&["pi-session", "-s", "s.jsonl", "label", "green", ""]).contains(&"@".to_owned()));
    assert!(!c(&["pi-session", "-s", "s.jsonl", "tree", ""]).contains(&"@".to_owned()));
    assert!(!c(&["pi-session", "-s", ""]).contains(&"@".to_owned()));
    // diff and merge-base compare two revisions: both complete, and no option list (whose
    // common prefix bash would insert as a lone `-`) where an argument goes.
    assert_eq!(c(&["pi-session", "-s", "s.jsonl", "diff", ""]), all);
    assert_eq!(c(&["pi-session", "-s", "s.jsonl", "diff", "@", "gr"]).len(), 2);
    assert_eq!(c(&["pi-session", "-s", "s.jsonl", "merge-base", "root", ""]), all);
    assert!(c(&["pi-session", "-s", "s.jsonl", "label", "green", ""]).is_empty());
    assert!(c(&["pi-session", "-s", "s.jsonl", "diff", "-"]).contains(&"--stat".to_owned()));
    // An option with a list of values completes them, not files.
    assert_eq!(c(&["pi-session", "export", "--format", ""]), ["md", "html"]);
    // Labels are never evaluated by the shell.
    assert!(!dir.path().join("pwned").exists());
}

/// An agent folder under `dir` holding two sessions of `dir` (ids `1111aaaa-…` and
/// `2222bbbb-…`), and a folder `sub/` to complete.
fn agent_with_sessions(dir: &Path) {
    let cwd = dir.canonicalize().unwrap();
    let encoded = format!(
        "--{}--",
        cwd.to_string_lossy().trim_start_matches('/').replace('/', "-")
    );
    let sessions = dir.join("agent/sessions").join(encoded);
    std::fs::create_dir_all(&sessions).unwrap();
    std::fs::create_dir_all(dir.join("sub/deeper")).unwrap();
    for (k, id) in [
        "1111aaaa-0000-4000-8000-000000000001",
        "2222bbbb-0000-4000-8000-000000000002",
    ]
    .iter()
    .enumerate()
    {
        let header = format!(
            "{{\"type\":\"session\",\"version\":3,\"id\":\"{id}\",\"timestamp\":\"2025-01-0{}T00:00:00.000Z\",\"cwd\":{}}}\n",
            k + 1,
            serde_json::to_string(&cwd.to_string_lossy()).unwrap()
        );
        std::fs::write(sessions.join(format!("s{k}.jsonl")), header).unwrap();
    }
}

#[test]
fn bash_completes_session_ids_and_files_after_s() {
    if !have("bash") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    agent_with_sessions(dir.path());
    let out = cmd()
        .arg("__complete-sessions")
        .env("PI_CODING_AGENT_DIR", dir.path().join("agent"))
        .current_dir(dir.path())
        .output()
        .unwrap();
    let mut ids: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(str::to_owned)
        .collect();
    ids.sort();
    assert_eq!(
        ids,
        [
            "1111aaaa-0000-4000-8000-000000000001",
            "2222bbbb-0000-4000-8000-000000000002"
        ]
    );
    let c = |words: &[&str]| {
        let mut got = bash_complete(dir.path(), words);
        got.sort();
        got
    };
    assert_eq!(c(&["pi-session", "-s", "11"]), ["1111aaaa-0000-4000-8000-000000000001"]);
    assert_eq!(
        c(&["pi-session", "log", "--session", "=", "22"]),
        ["2222bbbb-0000-4000-8000-000000000002"]
    );
    let all = c(&["pi-session", "-s", ""]);
    assert!(
        all.contains(&"sub".to_owned()) && all.contains(&"1111aaaa-0000-4000-8000-000000000001".to_owned()),
        "{all:?}"
    );
    assert_eq!(
        c(&["pi-session", "redact", "2"]),
        ["2222bbbb-0000-4000-8000-000000000002"]
    );
    assert_eq!(c(&["pi-session", "-s", "su"]), ["sub"]);
}

/// In an interactive bash (through tmux), `-s` completes a directory with a `/` and no space
/// after it, ready for the file inside.
#[test]
fn bash_completes_a_directory_after_s_with_a_slash() {
    if !have("bash") || !have_tmux() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    agent_with_sessions(dir.path());
    let session = format!("pi-session-bash-{}", std::process::id());
    let tmux = |args: &[&str]| Command::new("tmux").args(["-L", &session]).args(args).output().unwrap();
    let start = tmux(&[
        "new-session",
        "-d",
        "-s",
        &session,
        "-x",
        "200",
        "-y",
        "40",
        "env",
        &format!("PATH={}", path_var()),
        &format!("HOME={}", dir.path().display()),
        &format!("PI_CODING_AGENT_DIR={}", dir.path().join("agent").display()),
        "bash",
        "--norc",
        "--noprofile",
        "-i",
    ]);
    if !start.status.success() {
        eprintln!("SKIPPED: tmux cannot start a session");
        return;
    }
    let setup = format!(
        "cd '{}'; source <(pi-session completions bash); PS1='$ '; clear",
        dir.path().display()
    );
    tmux(&["send-keys", "-t", &session, &setup, "Enter"]);
    let screen = |want: &str| -> String {
        let mut last = String::new();
        for _ in 0..100 {
            std::thread::sleep(std::time::Duration::from_millis(100));
            let out = tmux(&["capture-pane", "-p", "-t", &session]);
            last = String::from_utf8_lossy(&out.stdout).into_owned();
            if last.contains(want) {
                break;
            }
        }
        last
    };
    screen("$ ");
    tmux(&["send-keys", "-t", &session, "pi-session -s su", "Tab"]);
    screen("sub/");
    tmux(&["send-keys", "-t", &session, "X"]);
    let typed = screen("sub/X");
    tmux(&["send-keys", "-t", &session, "C-u", "pi-session -s 22", "Tab"]);
    let id = screen("2222bbbb-0000-4000-8000-000000000002");
    tmux(&["kill-server"]);
    assert!(typed.contains("pi-session -s sub/X"), "{typed}");
    assert!(
        id.contains("pi-session -s 2222bbbb-0000-4000-8000-000000000002"),
        "{id}"
    );
}

fn all_fish() -> [&'static str; 6] {
    ["@", "gr$(touch pwned)", "green", "root", "start", "start here"]
}

#[test]
fn fish_completes_revisions() {
    if !have("fish") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    labelled_session(dir.path());
    agent_with_sessions(dir.path());
    let script_file = dir.path().join("pi-session.fish");
    std::fs::write(&script_file, script("fish")).unwrap();
    let complete = |line: &str| -> Vec<String> {
        let out = Command::new("fish")
            .args(["--no-config", "-c", "source $SCRIPT; complete -C $LINE"])
            .env("SCRIPT", &script_file)
            .env("LINE", line)
            .env("PATH", path_var())
            .env("PI_CODING_AGENT_DIR", dir.path().join("agent"))
            .env_remove("PI_CODING_AGENT_SESSION_DIR")
            .current_dir(dir.path())
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .map(|l| l.split('\t').next().unwrap().to_owned())
            .collect()
    };
    assert_eq!(complete("pi-session -s s.jsonl diff "), all_fish());
    assert_eq!(complete("pi-session -s s.jsonl merge-base @ "), all_fish());
    assert_eq!(complete("pi-session -s 22"), ["2222bbbb-0000-4000-8000-000000000002"]);
    assert_eq!(
        complete("pi-session redact 11"),
        ["1111aaaa-0000-4000-8000-000000000001"]
    );
    assert_eq!(complete("pi-session -s su"), ["sub/"]);
    let all = all_fish();
    assert_eq!(complete("pi-session -s s.jsonl show "), all);
    assert_eq!(complete("pi-session show -s s.jsonl gr"), ["gr$(touch pwned)", "green"]);
    assert_eq!(
        complete("pi-session --session=s.jsonl log sta"),
        ["start", "start here"]
    );
    assert_eq!(complete("pi-session -s s.jsonl log -n 3 "), all);
    assert_eq!(complete("pi-session -s s.jsonl rev-parse green "), all);
    assert_eq!(complete("pi-session -s s.jsonl sh"), ["show"]);
    assert!(!complete("pi-session -s s.jsonl label green ").contains(&"@".to_owned()));
    assert!(!complete("pi-session -s s.jsonl log -n ").contains(&"@".to_owned()));
    assert!(!complete("pi-session -s s.jsonl tree ").contains(&"@".to_owned()));
    assert!(complete("pi-session -s s.jsonl log --max").contains(&"--max-count".to_owned()));
    assert!(!dir.path().join("pwned").exists());
}

#[test]
fn zsh_loads_the_script() {
    if !have("zsh") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let script_file = dir.path().join("_pi-session");
    std::fs::write(&script_file, script("zsh")).unwrap();
    let out = Command::new("zsh")
        .args(["-f", "-n"])
        .arg(&script_file)
        .output()
        .unwrap();
    assert!(out.status.success(), "zsh -n: {}", String::from_utf8_lossy(&out.stderr));
    let out = Command::new("zsh")
        .args(["-f", "-c"])
        .arg(
            "fpath=($DIR $fpath); autoload -U compinit; compinit -u -d $DIR/zcompdump; \
             print -r -- ${_comps[pi-session]}",
        )
        .env("DIR", dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(String::from_utf8(out.stdout).unwrap().trim(), "_pi-session");
}

/// Completion in an interactive zsh, through tmux (skipped without tmux or zsh).
#[test]
fn zsh_completes_revisions_interactively() {
    if !have("zsh") || !have_tmux() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    labelled_session(dir.path());
    agent_with_sessions(dir.path());
    let fdir = dir.path().join("zfunc");
    std::fs::create_dir(&fdir).unwrap();
    std::fs::write(fdir.join("_pi-session"), script("zsh")).unwrap();
    let session = format!("pi-session-test-{}", std::process::id());
    let tmux = |args: &[&str]| Command::new("tmux").args(["-L", &session]).args(args).output().unwrap();
    let start = tmux(&[
        "new-session",
        "-d",
        "-s",
        &session,
        "-x",
        "200",
        "-y",
        "40",
        "env",
        &format!("PATH={}", path_var()),
        &format!("HOME={}", dir.path().display()),
        &format!("PI_CODING_AGENT_DIR={}", dir.path().join("agent").display()),
        "zsh",
        "-f",
    ]);
    if !start.status.success() {
        crate::common::skip("tmux cannot start a session");
        return;
    }
    let setup = format!(
        "cd {}; fpath=({} $fpath); autoload -U compinit; compinit -u -d zcompdump; PS1='%% '; clear",
        dir.path().display(),
        fdir.display()
    );
    tmux(&["send-keys", "-t", &session, &setup, "Enter"]);
    let screen = |want: &str| -> String {
        let mut last = String::new();
        for _ in 0..100 {
            std::thread::sleep(std::time::Duration::from_millis(100));
            let out = tmux(&["capture-pane", "-p", "-t", &session]);
            last = String::from_utf8_lossy(&out.stdout).into_owned();
            if last.contains(want) {
                break;
            }
        }
        last
    };
    screen("% ");
    tmux(&["send-keys", "-t", &session, "pi-session -s s.jsonl show gr", "Tab"]);
    let shown = screen("green");
    tmux(&[
        "send-keys",
        "-t",
        &session,
        "C-u",
        "pi-session -s s.jsonl summarize-branch start",
        "Tab",
    ]);
    let listed = screen("start\\ here");
    // diff's revisions, and -s's session ids and directories.
    let typed = |line: &str, want: &str| {
        tmux(&["send-keys", "-t", &session, "C-u", line, "Tab"]);
        screen(want)
    };
    let diff = typed("pi-session -s s.jsonl diff @ gre", "diff @ green");
    let id = typed("pi-session -s 22", "-s 2222bbbb-0000-4000-8000-000000000002");
    let folder = typed("pi-session -s su", "-s sub/");
    tmux(&["kill-server"]);
    assert!(diff.contains("pi-session -s s.jsonl diff @ green"), "{diff}");
    assert!(
        id.contains("pi-session -s 2222bbbb-0000-4000-8000-000000000002"),
        "{id}"
    );
    assert!(folder.contains("pi-session -s sub/"), "{folder}");
    assert!(
        shown.contains("green") && shown.contains("gr\\$\\(touch\\ pwned\\)"),
        "{shown}"
    );
    assert!(listed.contains("start\\ here"), "{listed}");
    assert!(!dir.path().join("pwned").exists());
}

fn have_tmux() -> bool {
    let ok = Command::new("tmux")
        .arg("-V")
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        crate::common::skip("tmux is not installed");
    }
    ok
}
