//! Every field a `--json` record carries is named in its command's `--help` or in README.md.
//!
//! Runs each command that has `--json` on the bundled example and the fixtures, collects the
//! keys of every record (and of the nested objects the help documents), and looks each one up.
//! `log`, `show` and `context` print session content as it is (original lines, Pi's
//! messages), so their fields are Pi's, not ours; they are not checked here.

use crate::common::{self, cmd, example, fixture, ndjson};
use serde_json::Value;
use std::collections::BTreeSet;
use std::path::Path;

/// Where a record's fields are looked for in one record.
enum Nested {
    /// The keys of the object at this top-level field.
    Field(&'static str),
    /// The keys of every element of the array, or every value of the object, at this
    /// top-level field (an object whose own keys are data, such as sources).
    Values(&'static str),
}

struct Case {
    /// The subcommand, whose `--help` documents the record.
    command: &'static str,
    file: &'static Path,
    args: &'static [&'static str],
    nested: &'static [Nested],
}

fn help(command: &str) -> String {
    let out = cmd().args([command, "--help"]).output().unwrap();
    assert!(out.status.success(), "{command} --help failed");
    String::from_utf8(out.stdout).unwrap()
}

/// `word` occurs in `text` as a whole word (not inside a longer identifier).
fn names(text: &str, word: &str) -> bool {
    let is_ident = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(word).any(|(at, _)| {
        !text[..at].chars().next_back().is_some_and(is_ident)
            && !text[at + word.len()..].chars().next().is_some_and(is_ident)
    })
}

fn keys_of(records: &[Value], nested: &[Nested]) -> BTreeSet<String> {
    let mut keys = BTreeSet::new();
    let mut add = |v: &Value| {
        if let Some(o) = v.as_object() {
            keys.extend(o.keys().cloned());
        }
    };
    for r in records {
        add(r);
        for n in nested {
            match n {
                Nested::Field(f) => add(&r[*f]),
                Nested::Values(f) => match &r[*f] {
                    Value::Object(o) => o.values().for_each(&mut add),
                    Value::Array(a) => a.iter().for_each(&mut add),
                    _ => {}
                },
            }
        }
    }
    keys
}

fn check(case: &Case, file: &Path, readme: &str, missing: &mut Vec<String>) {
    let out = cmd().arg("-s").arg(file).args(case.args).output().unwrap();
    // `secrets` answers "found something" with 1, `check` "a rule failed".
    let found = matches!(case.command, "secrets" | "check") && out.status.code() == Some(1);
    assert!(
        out.status.success() || found,
        "{} {:?} failed: {}",
        case.command,
        case.args,
        String::from_utf8_lossy(&out.stderr)
    );
    let records = ndjson(&String::from_utf8(out.stdout).unwrap());
    assert!(
        !records.is_empty(),
        "{} {:?} printed no record",
        case.command,
        case.args
    );
    let help = help(case.command);
    for key in keys_of(&records, case.nested) {
        if !names(&help, &key) && !names(readme, &key) {
            missing.push(format!("{} {:?}: {key}", case.command, case.args));
        }
    }
}

#[test]
fn every_json_field_is_documented() {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("README.md")).unwrap();
    let ex = example();
    let labels = fixture("labels.jsonl");
    let orphan = fixture("orphan.jsonl");
    let leak = |p: std::path::PathBuf| -> &'static Path { Box::leak(p.into_boxed_path()) };
    let planted = leak(fixture("secrets/planted.v3.jsonl"));
    let (ex, labels, orphan) = (leak(ex), leak(labels), leak(orphan));
    let cases = [
        Case {
            command: "tree",
            file: ex,
            args: &["tree", "--all", "--json"],
            nested: &[],
        },
        Case {
            command: "tree",
            file: labels,
            args: &["tree", "--all", "--json"],
            nested: &[],
        },
        Case {
            command: "name",
            file: ex,
            args: &["name", "--json"],
            nested: &[],
        },
        Case {
            command: "name",
            file: ex,
            args: &["name", "New", "--dry-run", "--json"],
            nested: &[],
        },
        Case {
            command: "mv",
            file: ex,
            args: &["mv", "/tmp/pi-session-json-fields", "--dry-run", "--json"],
            nested: &[],
        },
        Case {
            command: "files",
            file: ex,
            args: &["files", "--all", "--json"],
            nested: &[],
        },
        Case {
            command: "check",
            file: ex,
            args: &[
                "check",
                "--json",
                "--no-cache",
                "--max-cost",
                "0",
                "--no-tool-errors",
                "--require-tool",
                "grep",
            ],
            nested: &[Nested::Values("entries")],
        },
        Case {
            command: "label",
            file: labels,
            args: &["label", "--list", "--json"],
            nested: &[],
        },
        Case {
            command: "repair",
            file: orphan,
            args: &["repair", "--dry-run", "--json"],
            nested: &[Nested::Field("after")],
        },
        Case {
            command: "repair",
            file: ex,
            args: &["repair", "--dry-run", "--json"],
            nested: &[Nested::Field("after")],
        },
        Case {
            command: "diff",
            file: ex,
            args: &["diff", "@", "green", "--json"],
            nested: &[],
        },
        Case {
            command: "diff",
            file: ex,
            args: &["diff", "@", "green", "--stat", "--json"],
            nested: &[],
        },
        Case {
            command: "merge-base",
            file: ex,
            args: &["merge-base", "@", "green", "--json"],
            nested: &[],
        },
        Case {
            command: "stats",
            file: ex,
            args: &["stats", "--json"],
            nested: &[
                Nested::Field("total"),
                Nested::Values("byModel"),
                Nested::Values("bySource"),
            ],
        },
        Case {
            command: "usage",
            file: ex,
            args: &[
                "usage",
                "--json",
                "--by",
                "session,day,week,month,project,model,provider,source",
            ],
            nested: &[],
        },
        Case {
            command: "secrets",
            file: planted,
            args: &["secrets", "--json", "--no-own-keys"],
            nested: &[],
        },
        Case {
            command: "redact",
            file: planted,
            args: &["redact", "--dry-run", "--json", "--no-own-keys"],
            nested: &[],
        },
        Case {
            command: "grep",
            file: ex,
            args: &["grep", "--json", "e"],
            nested: &[],
        },
        Case {
            command: "compact",
            file: ex,
            args: &["compact", "--dry-run", "--json", "--keep-recent-tokens", "5"],
            nested: &[],
        },
        Case {
            command: "summarize-branch",
            file: ex,
            args: &["summarize-branch", "root", "--dry-run", "--json"],
            nested: &[],
        },
        Case {
            command: "checkout",
            file: ex,
            args: &["checkout", "--dry-run", "--json", "root"],
            nested: &[],
        },
        Case {
            command: "prune",
            file: ex,
            args: &["prune", "--dry-run", "--json", "--force", "root"],
            nested: &[Nested::Values("references")],
        },
        Case {
            command: "slim",
            file: planted,
            args: &["slim", "--dry-run", "--json"],
            nested: &[],
        },
        Case {
            command: "clone",
            file: ex,
            args: &["clone", "--dry-run", "--json"],
            nested: &[],
        },
        Case {
            command: "fork",
            file: ex,
            args: &["fork", "--dry-run", "--json", "80fbf1f2"],
            nested: &[],
        },
    ];
    let mut missing = Vec::new();
    for case in &cases {
        // Copies: a command that writes by mistake must not touch the repository.
        let (_dir, file) = common::temp_copy(case.file);
        check(case, &file, &readme, &mut missing);
    }

    // `ls` lists a sessions directory.
    let dir = tempfile::tempdir().unwrap();
    let sessions = dir.path().join("sessions");
    std::fs::create_dir_all(&sessions).unwrap();
    std::fs::copy(example(), sessions.join("session.jsonl")).unwrap();
    let out = cmd()
        .current_dir(dir.path())
        .env("PI_CODING_AGENT_SESSION_DIR", &sessions)
        .args(["ls", "--all", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success(), "ls: {}", String::from_utf8_lossy(&out.stderr));
    let records = ndjson(&String::from_utf8(out.stdout).unwrap());
    assert!(!records.is_empty(), "ls --all --json listed nothing");
    let help = help("ls");
    for key in keys_of(&records, &[]) {
        if !names(&help, &key) && !names(&readme, &key) {
            missing.push(format!("ls: {key}"));
        }
    }

    // `archive` moves that session to the archive, `ls --archived --tree` lists it there, and
    // `rm` moves it to a trash in the same temporary folder.
    let session = sessions.join("session.jsonl");
    let archived = dir.path().join("sessions-archive").join("session.jsonl");
    let fixtures = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/import");
    let claude = fixtures.join("claude/sidechain.jsonl");
    let codex = fixtures.join("codex/rollout-2025-09-14T10-02-11-0199479b-2c1e-7d40-9a51-3f0e8c6d2a17.jsonl");
    let runs: [(&str, Vec<&std::ffi::OsStr>); 5] = [
        (
            "archive",
            vec![
                "archive".as_ref(),
                "--force".as_ref(),
                "--json".as_ref(),
                session.as_os_str(),
            ],
        ),
        (
            "ls",
            vec![
                "ls".as_ref(),
                "--all".as_ref(),
                "--archived".as_ref(),
                "--tree".as_ref(),
                "--json".as_ref(),
            ],
        ),
        // (--force: the session was copied a moment ago.)
        (
            "rm",
            vec![
                "rm".as_ref(),
                "--json".as_ref(),
                "--force".as_ref(),
                archived.as_os_str(),
            ],
        ),
        (
            "import",
            vec![
                "import".as_ref(),
                "--from".as_ref(),
                "claude".as_ref(),
                claude.as_os_str(),
                "--dry-run".as_ref(),
                "--json".as_ref(),
            ],
        ),
        (
            "import",
            vec![
                "import".as_ref(),
                "--from".as_ref(),
                "codex".as_ref(),
                codex.as_os_str(),
                "--dry-run".as_ref(),
                "--json".as_ref(),
            ],
        ),
    ];
    for (command, args) in runs {
        let out = cmd()
            .current_dir(dir.path())
            .env("PI_CODING_AGENT_SESSION_DIR", &sessions)
            .env("XDG_DATA_HOME", dir.path().join("data"))
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{command}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let records = ndjson(&String::from_utf8(out.stdout).unwrap());
        assert!(!records.is_empty(), "{command} --json printed nothing");
        let text = self::help(command);
        for key in keys_of(&records, &[]) {
            if !names(&text, &key) && !names(&readme, &key) {
                missing.push(format!("{command}: {key}"));
            }
        }
    }

    assert!(
        missing.is_empty(),
        "fields named in neither --help nor README.md:\n{}",
        missing.join("\n")
    );
}

#[test]
fn names_matches_whole_words() {
    assert!(names("{\"id\",\"parentId\"}", "id"));
    assert!(names("{\"id\",\"parentId\"}", "parentId"));
    assert!(!names("parentId", "id"));
    assert!(!names("context_messages", "context"));
}

/// Every command with `--json` is either checked above or prints session content as it is.
#[test]
fn every_command_with_json_is_covered() {
    const CHECKED: &[&str] = &[
        "tree",
        "label",
        "repair",
        "stats",
        "usage",
        "secrets",
        "redact",
        "grep",
        "compact",
        "summarize-branch",
        "checkout",
        "prune",
        "slim",
        "clone",
        "fork",
        "ls",
        "diff",
        "merge-base",
        "files",
        "check",
        "name",
        "mv",
        "archive",
        "rm",
        "import",
    ];
    // Original lines (log, show) and Pi's own messages (context): Pi's fields, not ours.
    const PI_CONTENT: &[&str] = &["log", "show", "context"];
    let out = cmd().arg("--help").output().unwrap();
    let top = String::from_utf8(out.stdout).unwrap();
    let commands: Vec<&str> = top
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    assert!(commands.len() > 10, "commands not found in --help: {top}");
    for c in commands {
        let has_json = names(&help(c), "--json");
        let listed = CHECKED.contains(&c) || PI_CONTENT.contains(&c);
        assert_eq!(has_json, listed, "{c}: has --json {has_json}, listed {listed}");
    }
}
