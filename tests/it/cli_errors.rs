//! Errors, warnings and damaged files: what each command says and still shows.

use crate::common;

use common::{cmd, entry_lines, fixture, ndjson, run_ok};
use std::path::Path;

/// Runs `pi-session -s FILE ARGS…`; returns (code, stdout, stderr).
fn run(file: &Path, args: &[&str]) -> (i32, String, String) {
    let out = cmd().arg("-s").arg(file).args(args).output().unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn ids(out: &str) -> Vec<&str> {
    out.lines().map(|l| l.split_whitespace().next().unwrap_or("")).collect()
}

const COMMANDS: [&[&str]; 5] = [&["log"], &["tree"], &["show"], &["context"], &["rev-parse", "@"]];

#[test]
fn missing_file() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-session.jsonl");
    for args in COMMANDS {
        let (code, stdout, stderr) = run(&missing, args);
        assert_eq!(code, 1, "{args:?}");
        assert_eq!(stdout, "", "{args:?}");
        let first = stderr.lines().next().unwrap();
        assert!(first.starts_with("error: "), "{args:?}: {stderr}");
        assert!(first.contains("no-such-session.jsonl"), "{args:?}: {stderr}");
        assert!(
            stderr.lines().nth(1).is_some_and(|l| l.starts_with("hint: ")),
            "{stderr}"
        );
    }
}

#[test]
fn missing_file_states_the_cause_once() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-session.jsonl");
    let (_, _, stderr) = run(&missing, &["log"]);
    let first = stderr.lines().next().unwrap();
    assert_eq!(first.matches("No such file or directory").count(), 1, "{first}");
}

#[test]
fn a_directory_is_not_a_session() {
    let dir = tempfile::tempdir().unwrap();
    let (code, stdout, stderr) = run(dir.path(), &["log"]);
    assert_eq!(code, 1);
    assert_eq!(stdout, "");
    assert!(stderr.starts_with("error: "), "{stderr}");
}

#[test]
fn not_a_session() {
    let file = fixture("not-a-session.jsonl");
    for args in COMMANDS {
        let (code, stdout, stderr) = run(&file, args);
        assert_eq!(code, 1, "{args:?}");
        assert_eq!(stdout, "", "{args:?}");
        let lines: Vec<&str> = stderr.lines().collect();
        assert!(lines[0].starts_with("error: "), "{stderr}");
        assert!(lines[0].contains("is not a Pi session"), "{stderr}");
        assert!(lines[0].contains("not-a-session.jsonl"), "{stderr}");
        assert!(lines[0].contains("line 3"), "{stderr}");
        assert!(lines[1].starts_with("hint: "), "{stderr}");
    }
    // A file of blank lines is not a session either.
    let dir = tempfile::tempdir().unwrap();
    let blank = dir.path().join("blank.jsonl");
    std::fs::write(&blank, "\n  \n\t\n").unwrap();
    let (code, _, stderr) = run(&blank, &["log"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("is not a Pi session"), "{stderr}");
}

#[test]
fn malformed_middle_warns_once_and_reads_the_rest() {
    let file = fixture("malformed-middle.jsonl");
    let (code, stdout, stderr) = run(&file, &["log"]);
    assert_eq!(code, 0);
    assert_eq!(
        ids(&stdout),
        ["1a2b3c05", "1a2b3c04", "1a2b3c03", "1a2b3c02", "1a2b3c01"]
    );
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(lines[0].starts_with("warning: "), "{stderr}");
    assert!(lines[0].contains("malformed-middle.jsonl"), "{stderr}");
    assert!(lines[0].contains(": 4;"), "names line 4: {stderr}");
    // The suggested command names the session given with -s.
    let repair = format!("`pi-session -s {} repair`", file.display());
    assert!(lines[0].contains(&repair), "{stderr}");
    assert!(!lines[0].contains("torn"), "{stderr}");

    // Every command warns the same way and shows the good entries.
    let (_, stdout, stderr) = run(&file, &["log", "--all", "--json"]);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    let entries = ndjson(&stdout);
    assert_eq!(entries.len(), 5);
    assert!(entries.iter().all(|e| e["id"] != "deadbeef"));
    let (_, stdout, stderr) = run(&file, &["tree", "--json"]);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert_eq!(ndjson(&stdout).len(), 5);
    let (_, stdout, stderr) = run(&file, &["context", "--json"]);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert_eq!(ndjson(&stdout).len(), 5);
    let (_, stdout, stderr) = run(&file, &["rev-parse", "@", "1a2b3c03^"]);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert_eq!(stdout, "1a2b3c05\n1a2b3c02\n");
    // The skipped line's id is unknown.
    let (code, _, stderr) = run(&file, &["show", "deadbeef"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("error: unknown revision 'deadbeef'"), "{stderr}");
}

#[test]
fn several_malformed_lines_are_listed_in_one_warning() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("many.jsonl");
    // labels.jsonl with a broken line after its 3rd and 6th lines: lines 4 and 8.
    let original = std::fs::read_to_string(fixture("labels.jsonl")).unwrap();
    let mut lines: Vec<&str> = original.lines().collect();
    lines.insert(6, "{not json");
    lines.insert(3, "{\"type\":\"message\",\"id\":\"torn\"");
    let text = lines.join("\n") + "\n";
    std::fs::write(&file, &text).unwrap();
    let (code, stdout, stderr) = run(&file, &["rev-parse", "@"]);
    assert_eq!(code, 0);
    assert_eq!(stdout, "1a2b3c06\n");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(lines[0].contains("2 unreadable lines"), "{stderr}");
    assert!(lines[0].contains(": 4, 8;"), "{stderr}");
}

#[test]
fn torn_last_line_warns_about_it() {
    let file = fixture("torn-last-line.jsonl");
    let (code, stdout, stderr) = run(&file, &["log"]);
    assert_eq!(code, 0);
    assert_eq!(ids(&stdout), ["1a2b3c04", "1a2b3c03", "1a2b3c02", "1a2b3c01"]);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "{stderr}");
    assert!(lines[0].starts_with("warning: "), "{stderr}");
    assert!(lines[0].contains(": 6 "), "names line 6: {stderr}");
    assert!(lines[0].contains("torn"), "{stderr}");
    assert!(lines[0].contains("last"), "{stderr}");
    assert!(
        lines[0].contains(&format!("`pi-session -s {} repair`", file.display())),
        "{stderr}"
    );
    assert_eq!(run_ok(&file, &["rev-parse", "--leaf"]), "1a2b3c04\n");
}

#[test]
fn clean_files_print_no_warnings() {
    for name in [
        "labels.jsonl",
        "crlf.jsonl",
        "blank-lines.jsonl",
        "no-final-newline.jsonl",
        "orphan.jsonl",
    ] {
        let (code, _, stderr) = run(&fixture(name), &["log", "--all"]);
        assert_eq!(code, 0, "{name}");
        assert_eq!(stderr, "", "{name}");
    }
}

#[test]
fn unknown_subcommand_and_flags_are_usage_errors() {
    let file = fixture("labels.jsonl");
    for args in [
        &["frobnicate"][..],
        &["log", "--frobnicate"],
        &["tree", "--long"],
        &["show", "--all"],
        &["rev-parse", "--json", "@"],
        &["context", "-n", "3"],
        &["--no-such-global", "log"],
        &["log", "--color", "sometimes"],
    ] {
        let (code, stdout, stderr) = run(&file, args);
        assert_eq!(code, 2, "{args:?}");
        assert_eq!(stdout, "", "{args:?}");
        assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
    }
    // No subcommand at all.
    let out = cmd().output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn help_and_version_succeed() {
    let out = cmd().arg("--help").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    let help = String::from_utf8(out.stdout).unwrap();
    for sub in ["log", "tree", "show", "context", "rev-parse"] {
        assert!(help.contains(sub), "{help}");
    }
    let out = cmd().arg("--version").output().unwrap();
    assert_eq!(out.status.code(), Some(0));
    assert!(String::from_utf8(out.stdout).unwrap().starts_with("pi-session "));
}

#[test]
fn v1_ids_derive_from_line_numbers() {
    let file = fixture("v1.jsonl");
    let out = run_ok(&file, &["log", "--all"]);
    let expected: Vec<String> = (2..=14).map(|n| format!("{n:08x}")).collect();
    assert_eq!(ids(&out), expected);
    assert_eq!(ids(&out)[0], "00000002");
    // Stable across runs, and usable as revisions.
    assert_eq!(run_ok(&file, &["log", "--all"]), out);
    assert_eq!(run_ok(&file, &["rev-parse", "@"]), "0000000e\n");
    let show = run_ok(&file, &["show", "00000002"]);
    assert!(
        show.starts_with("entry     00000002\ntype      user\nline      2\n"),
        "{show}"
    );
    assert!(show.contains("\nparent    none (a root)\n"), "{show}");
    let show = run_ok(&file, &["show", "0000000b"]);
    assert!(show.contains("\nparent    0000000a\n"), "{show}");
    assert!(
        show.contains("\nkept      from 00000007\n"),
        "firstKeptEntryIndex 6 → line 7: {show}"
    );
    let tree = ndjson(&run_ok(&file, &["tree", "--all", "--json"]));
    assert_eq!(tree.len(), 13);
    assert_eq!(tree[1]["id"], "00000003");
    assert_eq!(tree[1]["parentId"], "00000002");
    assert_eq!(
        ids(&run_ok(&file, &["log", "0000000a", "-n", "2"])),
        ["0000000a", "00000009"]
    );
    // --json keeps the original line: no id added.
    let json = run_ok(&file, &["show", "--json", "00000002"]);
    assert_eq!(json.as_bytes(), &[&entry_lines(&file)[0].1[..], b"\n"].concat()[..]);
    // The file is not rewritten.
    let before = std::fs::read(&file).unwrap();
    run_ok(&file, &["context"]);
    assert_eq!(std::fs::read(&file).unwrap(), before);
}

#[test]
fn v2_hook_message_reads_as_custom() {
    let file = fixture("v2.jsonl");
    let context = ndjson(&run_ok(&file, &["context", "--json"]));
    let roles: Vec<&str> = context.iter().map(|m| m["role"].as_str().unwrap()).collect();
    assert_eq!(roles, ["user", "custom", "assistant", "toolResult", "assistant"]);
    assert_eq!(context[1]["customType"], "git-status");
    let log = run_ok(&file, &["log", "--role", "custom"]);
    assert_eq!(ids(&log), ["2b2b0003"]);
    let tree = ndjson(&run_ok(&file, &["tree", "--json"]));
    let row = tree.iter().find(|r| r["id"] == "2b2b0003").unwrap();
    assert_eq!(row["role"], "custom");
    // The original line still says hookMessage.
    let json = run_ok(&file, &["show", "--json", "2b2b0003"]);
    assert!(json.contains("\"role\":\"hookMessage\""), "{json}");
}

#[test]
fn cycle_is_survived_with_a_warning() {
    let file = fixture("cycle.jsonl");
    let (code, stdout, stderr) = run(&file, &["log"]);
    assert_eq!(code, 0);
    assert!(!stdout.is_empty());
    assert!(stderr.contains("cycle"), "{stderr}");
    let (code, _, stderr) = run(&file, &["context", "--json"]);
    assert_eq!(code, 0);
    assert!(stderr.contains("cycle"), "{stderr}");
    let (code, stdout, _) = run(&file, &["tree", "--json"]);
    assert_eq!(code, 0);
    assert_eq!(ndjson(&stdout).len(), 3);
}

#[test]
fn suggested_commands_carry_the_session_given() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("it's a session.jsonl");
    std::fs::copy(fixture("malformed-middle.jsonl"), &file).unwrap();
    let quoted = format!("'{}'", file.display().to_string().replace('\'', "'\\''"));
    let (code, _, stderr) = run(&file, &["log"]);
    assert_eq!(code, 0);
    assert!(
        stderr.contains(&format!("run `pi-session -s {quoted} repair` to fix")),
        "{stderr}"
    );
    // Pasted into a shell, the suggestion names the same file.
    let (code, stdout, stderr) = run(&file, &["show", "nosuchrev"]);
    assert_eq!((code, stdout.as_str()), (1, ""));
    let hint = stderr.lines().nth(1).unwrap();
    assert!(
        hint.contains(&format!("`pi-session -s {quoted} log --all`")),
        "{stderr}"
    );
    let sh = std::process::Command::new("sh")
        .arg("-c")
        .arg(format!("printf '%s' {quoted}"))
        .output()
        .unwrap();
    assert_eq!(String::from_utf8(sh.stdout).unwrap(), file.display().to_string());

    // A path that needs no quoting is left as it is; so is a session id.
    let plain = fixture("malformed-middle.jsonl");
    let (_, _, stderr) = run(&plain, &["show", "nosuchrev"]);
    assert!(
        stderr.contains(&format!("`pi-session -s {} log --all`", plain.display())),
        "{stderr}"
    );
    // Without -s, the command is suggested as it is.
    let out = cmd()
        .current_dir(dir.path())
        .env("PI_CODING_AGENT_DIR", dir.path())
        .args(["show", "x"])
        .output()
        .unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert!(
        stderr.contains("`pi-session ls --all`") && !stderr.contains("pi-session -s"),
        "{stderr}"
    );
}

#[test]
fn a_file_that_is_no_session_at_all_is_not_sent_to_repair() {
    let dir = tempfile::tempdir().unwrap();
    let passwd = dir.path().join("passwd");
    std::fs::write(&passwd, "root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1::/:/bin/false\n").unwrap();
    let empty = dir.path().join("empty.jsonl");
    std::fs::write(&empty, "").unwrap();
    for (file, why) in [
        (&passwd, "no line of it is a JSON object"),
        (&empty, "the file has no entries"),
    ] {
        for args in COMMANDS {
            let (code, stdout, stderr) = run(file, args);
            assert_eq!((code, stdout.as_str()), (1, ""), "{args:?}");
            let lines: Vec<&str> = stderr.lines().collect();
            assert_eq!(
                lines[0],
                format!("error: {} is not a Pi session: {why}", file.display())
            );
            assert!(lines[1].starts_with("hint: "), "{stderr}");
            assert!(!stderr.contains("repair"), "{args:?}: {stderr}");
        }
        // `repair` refuses it, and does not suggest itself.
        let (code, _, stderr) = run(file, &["repair", "--check"]);
        assert_eq!(code, 1);
        assert!(!stderr.contains("`pi-session"), "{stderr}");
    }
    // A file with JSON objects but no header is a damaged session: repair is suggested.
    let headless = dir.path().join("headless.jsonl");
    std::fs::write(&headless, "{\"type\":\"message\",\"id\":\"a1\",\"parentId\":null}\n").unwrap();
    let (code, _, stderr) = run(&headless, &["log"]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains(&format!("`pi-session -s {} repair` can add", headless.display())),
        "{stderr}"
    );
}

/// When Pi's leaf is a label with no parent (`root-label-leaf.jsonl`), `@` names no
/// message; the hint says where Pi appends the next one: under that label.
#[test]
fn an_empty_position_names_the_leaf_pi_appends_under() {
    let file = common::fixture("outside-2/root-label-leaf.jsonl");
    let r = common::unchanged(&file, &["show", "@"], 1);
    assert!(
        r.stderr
            .contains("'@' names an empty position: Pi's leaf is label 9c0a258a, which has no parent"),
        "{}",
        r.stderr
    );
    assert!(
        r.stderr
            .contains("hint: Pi appends the next message under label 9c0a258a"),
        "{}",
        r.stderr
    );
    assert!(!r.stderr.contains("new root"), "{}", r.stderr);
}

#[test]
fn help_lists_global_options_under_their_own_heading() {
    for args in [&["log", "--help"][..], &["label", "-h"], &["--help"]] {
        let out = common::cmd().args(args).output().unwrap();
        assert!(out.status.success());
        let help = String::from_utf8(out.stdout).unwrap();
        let heading = help
            .find("\nGlobal options:\n")
            .unwrap_or_else(|| panic!("{args:?}: {help}"));
        for global in ["--session", "--color", "--no-pager"] {
            let at = help.find(global).unwrap();
            assert!(at > heading, "{args:?}: {global} is among the command's own options");
        }
    }
}
