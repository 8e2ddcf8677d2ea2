//! Paging: on a terminal, the human output of `log`, `show`, `context` and `export` goes
//! through `$PI_SESSION_PAGER`, else `$PAGER`, else `less -FRX`, as git does. The terminal is
//! util-linux `script` (a pty); the tests skip where it is missing.

#![cfg(unix)]

use crate::common;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Command;

fn have_script() -> bool {
    let ok = Command::new("script")
        .args(["-qec", "true", "/dev/null"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        common::skip("util-linux `script` is not available to provide a terminal");
    }
    ok
}

fn quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', "'\\''"))
}

struct Setup {
    dir: tempfile::TempDir,
    session: PathBuf,
    pager: PathBuf,
}

impl Setup {
    fn new() -> Setup {
        let dir = tempfile::tempdir().unwrap();
        let session = dir.path().join("s.jsonl");
        std::fs::copy(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/session.jsonl"),
            &session,
        )
        .unwrap();
        // A pager that records its environment and its input.
        let pager = dir.path().join("pager.sh");
        std::fs::write(
            &pager,
            format!(
                "#!/bin/sh\nprintf '%s' \"${{LESS-unset}}\" > {less}\ncat > {paged}\n",
                less = quote(&dir.path().join("less").display().to_string()),
                paged = quote(&dir.path().join("paged").display().to_string()),
            ),
        )
        .unwrap();
        std::fs::set_permissions(&pager, std::fs::Permissions::from_mode(0o755)).unwrap();
        Setup { dir, session, pager }
    }

    fn paged(&self) -> Option<String> {
        std::fs::read_to_string(self.dir.path().join("paged")).ok()
    }

    fn less(&self) -> Option<String> {
        std::fs::read_to_string(self.dir.path().join("less")).ok()
    }

    /// Runs `pi-session -s SESSION ARGS…` on a pty, with `env` set (`None` removes a
    /// variable); returns (exit status, what reached the terminal).
    fn run_on_terminal(&self, args: &[&str], env: &[(&str, Option<&str>)]) -> (i32, String) {
        let _ = std::fs::remove_file(self.dir.path().join("paged"));
        let _ = std::fs::remove_file(self.dir.path().join("less"));
        let bin = assert_cmd::cargo::cargo_bin("pi-session");
        let mut line = format!(
            "{} -s {}",
            quote(&bin.display().to_string()),
            quote(&self.session.display().to_string())
        );
        for a in args {
            line.push(' ');
            line.push_str(&quote(a));
        }
        let mut c = Command::new("script");
        c.args(["-qec", &line, "/dev/null"])
            .env("NO_COLOR", "1")
            .env("TZ", "UTC")
            .env("TERM", "xterm")
            .env_remove("PI_SESSION_PAGER")
            .env_remove("PAGER")
            .env_remove("LESS")
            .env_remove("PI_CODING_AGENT_DIR")
            .env_remove("PI_CODING_AGENT_SESSION_DIR")
            .current_dir(self.dir.path());
        for (k, v) in env {
            match v {
                Some(v) => c.env(k, v),
                None => c.env_remove(k),
            };
        }
        let out = c.output().unwrap();
        (
            out.status.code().unwrap_or(-1),
            String::from_utf8_lossy(&out.stdout).replace("\r\n", "\n"),
        )
    }

    fn pager(&self) -> &str {
        self.pager.to_str().unwrap()
    }
}

#[test]
fn human_output_on_a_terminal_goes_through_the_pager() {
    if !have_script() {
        return;
    }
    let s = Setup::new();
    let (_, plain) = s.run_on_terminal(&["--no-pager", "log"], &[]);
    assert!(plain.contains("assistant"), "{plain}");
    let (code, screen) = s.run_on_terminal(&["log"], &[("PI_SESSION_PAGER", Some(s.pager()))]);
    assert_eq!(code, 0);
    assert_eq!(
        s.paged().as_deref(),
        Some(plain.as_str()),
        "the pager got the whole output"
    );
    assert!(!screen.contains("assistant"), "nothing bypassed the pager: {screen}");
    assert_eq!(s.less().as_deref(), Some("FRX"), "LESS is set when unset, as git does");

    for args in [
        &["show"][..],
        &["show", "root"],
        &["context"],
        &["log", "--long", "--all"],
        &["export", "--format", "md"],
        &["tree"],
        &["tree", "--depth", "0"],
    ] {
        let (code, _) = s.run_on_terminal(args, &[("PI_SESSION_PAGER", Some(s.pager()))]);
        assert_eq!(code, 0, "{args:?}");
        let paged = s.paged().unwrap_or_else(|| panic!("{args:?} was not paged"));
        let (_, direct) = s.run_on_terminal(&[&["--no-pager"], args].concat(), &[]);
        assert_eq!(paged, direct, "{args:?}");
    }
}

#[test]
fn pager_choice_follows_git() {
    if !have_script() {
        return;
    }
    let s = Setup::new();
    // $PAGER when PI_SESSION_PAGER is unset; a LESS of the user's is kept.
    let (code, _) = s.run_on_terminal(&["log"], &[("PAGER", Some(s.pager())), ("LESS", Some("-R"))]);
    assert_eq!(code, 0);
    assert!(s.paged().is_some(), "$PAGER is used");
    assert_eq!(s.less().as_deref(), Some("-R"));
    // PI_SESSION_PAGER wins over PAGER; empty or `cat` turns paging off.
    for off in ["", "cat", "  "] {
        let (code, screen) =
            s.run_on_terminal(&["log"], &[("PI_SESSION_PAGER", Some(off)), ("PAGER", Some(s.pager()))]);
        assert_eq!(code, 0);
        assert!(s.paged().is_none(), "PI_SESSION_PAGER={off:?} turns paging off");
        assert!(screen.contains("assistant"), "{screen}");
    }
    let (_, _) = s.run_on_terminal(&["log"], &[("PAGER", Some("")), ("PI_SESSION_PAGER", None)]);
    assert!(s.paged().is_none());
    // A pager command with arguments, run through the shell.
    let with_args = format!("{} --some-flag", s.pager());
    s.run_on_terminal(&["log"], &[("PI_SESSION_PAGER", Some(&with_args))]);
    assert!(s.paged().is_some());
    let through_shell = format!("LESS=custom {}", s.pager());
    s.run_on_terminal(&["log"], &[("PI_SESSION_PAGER", Some(&through_shell))]);
    assert_eq!(s.less().as_deref(), Some("custom"));
}

#[test]
fn no_pager_for_json_no_pager_flag_pipes_and_other_commands() {
    if !have_script() {
        return;
    }
    let s = Setup::new();
    let env = [("PI_SESSION_PAGER", Some(s.pager()))];
    for args in [
        &["--no-pager", "log"][..],
        &["log", "--no-pager"],
        &["log", "--json"],
        &["show", "--json"],
        &["context", "--json"],
        &["tree", "--json"],
        &["rev-parse", "@"],
        &["label", "--list"],
    ] {
        let (code, screen) = s.run_on_terminal(args, &env);
        assert_eq!(code, 0, "{args:?}");
        assert!(s.paged().is_none(), "{args:?} is not paged");
        assert!(!screen.trim().is_empty(), "{args:?} printed to the terminal");
    }
    // Not a terminal: never paged.
    let out = common::cmd()
        .arg("-s")
        .arg(&s.session)
        .arg("log")
        .env("PI_SESSION_PAGER", s.pager())
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(s.paged().is_none());
    assert!(!out.stdout.is_empty());
}

#[test]
fn a_missing_pager_falls_back_to_the_terminal() {
    if !have_script() {
        return;
    }
    let s = Setup::new();
    let missing = s.dir.path().join("no-such-pager");
    let (code, screen) = s.run_on_terminal(&["log"], &[("PI_SESSION_PAGER", missing.to_str())]);
    assert_eq!(code, 0);
    assert!(screen.contains("assistant"), "{screen}");
}

#[test]
fn an_error_before_any_output_starts_no_pager() {
    if !have_script() {
        return;
    }
    let s = Setup::new();
    let (code, screen) = s.run_on_terminal(&["show", "nosuchrev"], &[("PI_SESSION_PAGER", Some(s.pager()))]);
    assert_eq!(code, 1);
    assert!(s.paged().is_none(), "no pager was started");
    assert!(screen.contains("error: "), "{screen}");
}

#[test]
fn quitting_the_pager_early_is_not_an_error() {
    if !have_script() {
        return;
    }
    let s = Setup::new();
    // A long output, and a pager that reads one line and quits.
    let mut text = std::fs::read_to_string(&s.session).unwrap();
    let line = text
        .lines()
        .find(|l| l.contains("\"role\":\"user\""))
        .unwrap()
        .to_owned();
    let mut v: serde_json::Value = serde_json::from_str(&line).unwrap();
    v["message"]["content"] = serde_json::json!("line\n".repeat(200_000));
    v["id"] = serde_json::json!("b1g00001");
    text.push_str(&format!("{v}\n"));
    std::fs::write(&s.session, text).unwrap();
    let (code, _) = s.run_on_terminal(
        &["show", "b1g00001"],
        &[("PI_SESSION_PAGER", Some("head -n 1 >/dev/null"))],
    );
    assert_eq!(code, 0);
}

#[test]
fn html_export_to_a_terminal_is_refused_with_a_hint() {
    if !have_script() {
        return;
    }
    let s = Setup::new();
    let env = [("PI_SESSION_PAGER", Some(s.pager()))];
    let before: Vec<_> = std::fs::read_dir(s.dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    let (code, screen) = s.run_on_terminal(&["export", "--format", "html"], &env);
    assert_eq!(code, 2, "{screen}");
    assert!(!screen.contains("<html"), "{screen}");
    assert!(
        screen.contains("error: an HTML transcript is a file for a browser"),
        "{screen}"
    );
    assert!(screen.contains("hint: ") && screen.contains("-o FILE.html"), "{screen}");
    assert!(s.paged().is_none());
    let after: Vec<_> = std::fs::read_dir(s.dir.path())
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(before.len(), after.len(), "nothing written");
    // `-o -` asks for it: printed, unpaged.
    let (code, screen) = s.run_on_terminal(&["export", "--format", "html", "-o", "-"], &env);
    assert_eq!(code, 0);
    assert!(screen.contains("<!DOCTYPE html>"));
    // Into a pipe, unchanged.
    let out = common::cmd()
        .arg("-s")
        .arg(&s.session)
        .args(["export", "--format", "html"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(out.stdout.starts_with(b"<!DOCTYPE html>"));
}
