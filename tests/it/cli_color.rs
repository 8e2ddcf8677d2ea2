//! When human output is colored: `--color`, then NO_COLOR, CLICOLOR_FORCE / FORCE_COLOR and
//! CLICOLOR, then whether stdout is a terminal. Piped through assert_cmd; on a terminal through
//! util-linux `script` (a pty), skipped visibly where it is missing.

use crate::common::{cmd, example};

use std::process::Command;

const ESC: char = '\x1b';

/// `log -n 3` of the example session piped, with `vars` set (`NAME=VALUE`) over [`cmd`]'s
/// environment without NO_COLOR; `flags` go before the command.
fn piped(flags: &[&str], vars: &[&str]) -> String {
    let mut c = cmd();
    c.env_remove("NO_COLOR");
    for var in vars {
        let (name, value) = var.split_once('=').unwrap();
        c.env(name, value);
    }
    let out = c
        .args(flags)
        .arg("-s")
        .arg(example())
        .args(["log", "-n", "3"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn a_pipe_gets_color_only_when_forced() {
    assert!(!piped(&[], &[]).contains(ESC));
    for force in ["FORCE_COLOR=1", "CLICOLOR_FORCE=1", "FORCE_COLOR=3"] {
        let out = piped(&[], &[force]);
        assert!(out.contains("\x1b["), "{force}: {out:?}");
        // Forcing beats CLICOLOR=0, which is about terminals.
        assert!(piped(&[], &[force, "CLICOLOR=0"]).contains(ESC), "{force}");
    }
    // `0` (and for FORCE_COLOR `false`, as Node reads it) forces nothing.
    for not_forced in ["FORCE_COLOR=0", "FORCE_COLOR=false", "CLICOLOR_FORCE=0", "FORCE_COLOR="] {
        assert!(!piped(&[], &[not_forced]).contains(ESC), "{not_forced}");
    }
}

#[test]
fn no_color_beats_forcing_and_the_flag_beats_both() {
    for force in ["FORCE_COLOR=1", "CLICOLOR_FORCE=1"] {
        assert!(!piped(&[], &[force, "NO_COLOR=1"]).contains(ESC), "{force}");
        assert!(!piped(&["--color", "never"], &[force]).contains(ESC), "{force}");
        assert!(
            piped(&["--color", "always"], &[force, "NO_COLOR=1"]).contains(ESC),
            "{force}"
        );
    }
    // The colored output is the plain one with escapes added.
    let plain = piped(&[], &[]);
    let forced = piped(&[], &["FORCE_COLOR=1"]);
    let stripped = regex::Regex::new("\x1b\\[[0-9;]*m").unwrap().replace_all(&forced, "");
    assert_eq!(stripped, plain);
}

#[test]
fn json_is_never_colored() {
    let out = cmd()
        .env_remove("NO_COLOR")
        .env("FORCE_COLOR", "1")
        .arg("-s")
        .arg(example())
        .args(["log", "-n", "3", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(!String::from_utf8(out.stdout).unwrap().contains(ESC));
}

/// `log -n 3 --no-pager` of the example session on a pty with `vars` set; `None` where
/// `script` is missing.
fn on_terminal(vars: &[&str]) -> Option<String> {
    let ok = Command::new("script")
        .args(["-qec", "true", "/dev/null"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        eprintln!("skipping: util-linux `script` is not available to provide a terminal");
        return None;
    }
    let bin = assert_cmd::cargo::cargo_bin("pi-session");
    let quote = |s: &str| format!("'{}'", s.replace('\'', "'\\''"));
    let line = format!(
        "{} -s {} log -n 3 --no-pager",
        quote(&bin.display().to_string()),
        quote(&example().display().to_string())
    );
    let mut c = Command::new("script");
    c.args(["-qec", &line, "/dev/null"])
        .env("TERM", "xterm")
        .env("TZ", "UTC")
        .env_remove("NO_COLOR")
        .env_remove("CLICOLOR")
        .env_remove("CLICOLOR_FORCE")
        .env_remove("FORCE_COLOR")
        .env_remove("PI_CODING_AGENT_DIR")
        .env_remove("PI_CODING_AGENT_SESSION_DIR");
    for var in vars {
        let (name, value) = var.split_once('=').unwrap();
        c.env(name, value);
    }
    let out = c.output().unwrap();
    assert!(out.status.success());
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn a_terminal_gets_color_unless_clicolor_is_0_or_no_color_is_set() {
    let Some(out) = on_terminal(&[]) else { return };
    assert!(out.contains("\x1b["), "{out:?}");
    assert!(on_terminal(&["CLICOLOR=1"]).unwrap().contains(ESC));
    assert!(!on_terminal(&["CLICOLOR=0"]).unwrap().contains(ESC));
    assert!(!on_terminal(&["NO_COLOR=1"]).unwrap().contains(ESC));
    assert!(!on_terminal(&["TERM=dumb"]).unwrap().contains(ESC));
}
