//! The man page sections clap does not write: EXAMPLES, ENVIRONMENT and EXIT STATUS, for
//! every command (`__generate-docs` adds them after the options).

/// Examples of a command: what each does, and the command line.
fn examples(name: &str) -> &'static [(&'static str, &'static str)] {
    match name {
        "pi-session" => &[
            (
                "The tree of the bundled example session",
                "pi-session -s examples/session.jsonl tree",
            ),
            ("The current directory's sessions, newest first", "pi-session ls"),
            ("What the model sees now", "pi-session context"),
        ],
        "log" => &[
            ("The last five entries of the current branch", "pi-session log -5"),
            (
                "Every entry of the file as NDJSON, oldest first",
                "pi-session log --all --json",
            ),
            (
                "New entries since the last one a script saw",
                "pi-session log --all --after a1b2c3d4 --json",
            ),
            (
                "What happened yesterday, one line each",
                "pi-session log --all --oneline --since yesterday --until yesterday",
            ),
            (
                "The last two hours' user messages",
                "pi-session log --all --since 2.hours.ago --role user --oneline",
            ),
            (
                "Tokens per assistant message, with its time and model",
                "pi-session log --all --role assistant --format '%h %t %m %k'",
            ),
            (
                "A live feed of what Pi appends, for jq",
                "pi-session log -f --all --json | jq -c .",
            ),
        ],
        "tree" => &[
            ("The tree as Pi's /tree shows it", "pi-session tree"),
            ("Every entry, with bookkeeping", "pi-session tree --all"),
            (
                "Only the trunk and its branches, deeper forks cut",
                "pi-session tree --depth 1",
            ),
            (
                "The rows as NDJSON for jq",
                "pi-session tree --json | jq -r 'select(.current) | .id'",
            ),
        ],
        "show" => &[
            ("The entry at @, in full", "pi-session show @"),
            ("Two entries as JSON lines", "pi-session show --json @~1 green"),
        ],
        "context" => &[
            ("The messages the model is sent next", "pi-session context"),
            ("As JSON, to count them", "pi-session context --json | jq length"),
        ],
        "rev-parse" => &[
            ("The full id of the entry labelled green", "pi-session rev-parse green"),
            ("Pi's literal leaf", "pi-session rev-parse --leaf"),
        ],
        "diff" => &[
            (
                "What happened since the entry labelled green",
                "pi-session diff @ green",
            ),
            (
                "What the other attempt did differently, summed",
                "pi-session diff @ a1b2c3d4 --stat",
            ),
        ],
        "merge-base" => &[("Where two attempts part", "pi-session merge-base @ a1b2c3d4")],
        "files" => &[
            ("What the current branch read and changed", "pi-session files"),
            (
                "Only the files changed, on every branch",
                "pi-session files --all --json | jq -r 'select(.modified) | .path'",
            ),
        ],
        "check" => &[
            (
                "Gate the current session on a budget and the files it may change",
                "pi-session check --max-cost 2 --no-tool-errors --paths 'src/**' '*.md'",
            ),
            (
                "Every session of the project, with the repository's policy, for GitHub Actions",
                "pi-session check --all --config .pi-session-check.toml --format github --junit check.xml",
            ),
        ],
        "checkout" => &[
            (
                "Go back three entries (the next message branches there)",
                "pi-session checkout @~3",
            ),
            ("Start the next message at a new root", "pi-session checkout --empty"),
        ],
        "label" => &[
            ("Label where the conversation stands", "pi-session label green"),
            ("List the labels", "pi-session label"),
        ],
        "name" => &[
            ("Print the session's name", "pi-session name"),
            ("Name it", "pi-session name 'Port the parser to Rust'"),
            (
                "Title every unnamed session of this project with a local model",
                "pi-session name --generate --all --unnamed --model ollama/llama3.2 --base-url http://localhost:11434/v1",
            ),
        ],
        "import" => &[
            (
                "Bring a Claude Code session into Pi and open it",
                "pi --session \"$(pi-session import --from claude 0f1e2d3c-4b5a-6978-8796-a5b4c3d2e1f0)\"",
            ),
            (
                "See what an import of every Codex session here would write",
                "pi-session import --from codex --all --dry-run",
            ),
            (
                "Import every Claude Code session of this project not imported yet",
                "pi-session import --from claude --all",
            ),
        ],
        "mv" => &[
            (
                "Hand the current session to a worktree",
                "pi-session mv ../proj-feature",
            ),
            (
                "Bring the sessions of a renamed project along, and their forks' links",
                "pi-session mv --from ~/src/old-name --to ~/src/new-name --relink",
            ),
        ],
        "clone" => &[(
            "A copy of the current branch as a new session",
            "pi-session clone -o copy.jsonl",
        )],
        "fork" => &[("A new session from the branch ending at green", "pi-session fork green")],
        "repair" => &[
            (
                "Check a session (exit status 1 when it has a defect)",
                "pi-session -s s.jsonl repair --check",
            ),
            ("Repair it, keeping a backup", "pi-session -s s.jsonl repair"),
        ],
        "prune" => &[
            (
                "See what deleting the branch from a1b2c3d4 down would drop",
                "pi-session prune --dry-run a1b2c3d4",
            ),
            (
                "Drop the branches that hold only aborted or failed replies",
                "pi-session prune --empty",
            ),
        ],
        "compact" => &[
            (
                "See what a compaction would summarize, without calling a model",
                "pi-session compact --dry-run",
            ),
            (
                "Compact with a given model",
                "pi-session compact --model anthropic/claude-sonnet-4-5",
            ),
        ],
        "summarize-branch" => &[(
            "Summarize the branch left behind, going back to green",
            "pi-session summarize-branch green",
        )],
        "ls" => &[
            ("The current directory's sessions", "pi-session ls"),
            (
                "The ten most recent sessions of every project",
                "pi-session ls --all -n 10",
            ),
            (
                "Forks, clones and subagents under the session they came from",
                "pi-session ls --tree",
            ),
            ("Without the subagents' sessions", "pi-session ls --no-children"),
            ("Archived sessions too", "pi-session ls --archived"),
        ],
        "archive" => &[
            (
                "See which sessions of this project were last active over two weeks ago",
                "pi-session archive --older-than 14d --dry-run",
            ),
            (
                "Archive them, in every project",
                "pi-session archive --older-than '2 weeks' --all",
            ),
            ("Bring one back", "pi-session archive --restore a1b2c3d4"),
        ],
        "rm" => &[
            ("See where a session would go", "pi-session rm --dry-run a1b2c3d4"),
            ("Move it to the trash", "pi-session rm a1b2c3d4"),
        ],
        "stats" => &[
            ("Tokens and cost of the whole file", "pi-session stats"),
            (
                "Of the current branch only, as JSON",
                "pi-session stats --branch --json",
            ),
        ],
        "usage" => &[
            ("This month by model", "pi-session usage --since 2026-12-01 --by model"),
            ("Cost per day as CSV", "pi-session usage --by day --csv"),
        ],
        "secrets" => &[
            (
                "Every session of every project (exit status 1 on a find)",
                "pi-session secrets --all",
            ),
            (
                "Two sessions, as NDJSON",
                "pi-session secrets -s a.jsonl -s b.jsonl --json",
            ),
        ],
        "redact" => &[
            (
                "What would be taken out of the current session",
                "pi-session redact --dry-run",
            ),
            (
                "Take secrets out everywhere, keeping no backup",
                "pi-session redact --all --no-backup",
            ),
        ],
        "slim" => &[
            (
                "What would be moved out of the current session, per kind",
                "pi-session slim --dry-run",
            ),
            (
                "Every session of every project, tool outputs over 16 KiB too",
                "pi-session slim --all --max-output 16K",
            ),
            (
                "A session Pi can no longer resume: the images it still sees go too",
                "pi-session slim --in-context",
            ),
            ("Put everything back", "pi-session slim --restore"),
        ],
        "grep" => &[
            (
                "Where a crate is mentioned, case-insensitively",
                "pi-session grep -i serde",
            ),
            (
                "In tool-call arguments too, across sessions",
                "pi-session grep --tools --all-sessions 'cargo test'",
            ),
            (
                "The first ten matches in every project, with a line around each",
                "pi-session grep --all -n 10 -C 1 'panicked at'",
            ),
        ],
        "export" => &[
            (
                "The current branch as one HTML page",
                "pi-session export -o session.html",
            ),
            (
                "Every branch, with an outline",
                "pi-session export --all-branches -o tree.html",
            ),
            (
                "A transcript to share, without credentials",
                "pi-session export --redact -o share.md",
            ),
        ],
        "completions" => &[(
            "Bash completion for this shell",
            "source <(pi-session completions bash)",
        )],
        _ => &[],
    }
}

/// Environment variables a command reads, beyond those every command reads.
fn environment(name: &str) -> Vec<(&'static str, &'static str)> {
    let mut vars = Vec::new();
    if matches!(name, "compact" | "summarize-branch" | "checkout") {
        vars.push((
            "ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, …",
            "Provider keys, read as Pi reads them (after Pi's auth.json in PI_CODING_AGENT_DIR).",
        ));
        vars.push((
            "PI_SESSION_LLM_TIMEOUT",
            "Seconds the model may take in all, retries and waits included (as --timeout; default 600).",
        ));
    }
    if name == "log" {
        vars.push((
            "TZ",
            "The local time zone: of the times shown, and of --since/--until dates written without a zone.",
        ));
    }
    if name == "usage" {
        vars.push((
            "XDG_CACHE_HOME",
            "Where the usage cache is kept (pi-session/usage.cache), else ~/.cache.",
        ));
    }
    if name == "rm" {
        vars.push((
            "XDG_DATA_HOME",
            "The trash is $XDG_DATA_HOME/Trash, else ~/.local/share/Trash.",
        ));
    }
    if matches!(name, "ls" | "grep") {
        vars.push((
            "XDG_CACHE_HOME",
            "Where the listing cache is kept (pi-session/listing.cache), else ~/.cache.",
        ));
    }
    if matches!(name, "secrets" | "redact" | "export" | "clone") {
        vars.push((
            "*_API_KEY, *_TOKEN, *_SECRET",
            "Their values are the user's own keys, matched verbatim (secrets, redact, --redact).",
        ));
    }
    if matches!(name, "log" | "tree" | "show" | "context" | "export" | "pi-session") {
        vars.push((
            "PI_SESSION_PAGER, PAGER, LESS",
            "The pager for human output on a terminal (PI_SESSION_PAGER first; LESS defaults to FRX).",
        ));
    }
    vars
}

/// Variables every command reads.
const COMMON_ENVIRONMENT: [(&str, &str); 6] = [
    (
        "PI_CODING_AGENT_DIR",
        "Pi's agent folder (default ~/.pi/agent): its sessions/ folder is where sessions are found.",
    ),
    (
        "PI_CODING_AGENT_SESSION_DIR",
        "One folder for every project's sessions, as Pi's --session-dir.",
    ),
    (
        "NO_COLOR",
        "When set and not empty, no colours, whatever the variables below say (--color always still colours).",
    ),
    (
        "CLICOLOR_FORCE, FORCE_COLOR",
        "When set and not empty or 0 (FORCE_COLOR: nor false), colours even when stdout is not a terminal (as --color always).",
    ),
    (
        "CLICOLOR",
        "When 0, no colours even on a terminal (unless forced as above).",
    ),
    (
        "COLUMNS",
        "The width to fit output to when it cannot be read from the terminal, and in a pipe (where lines are otherwise whole).",
    ),
];

/// Exit status 130 of the commands that write a file through a temp file.
const INTERRUPTED_WRITE: &str =
    "Interrupted (Ctrl-C, SIGTERM, SIGHUP): the temp files were removed; nothing was written.";

/// Exit statuses of a command, beyond 0 (done) and 2 (usage error).
fn exit_status(name: &str) -> &'static [(&'static str, &'static str)] {
    match name {
        "grep" => &[
            ("0", "A line matched."),
            ("1", "Nothing matched."),
            ("2", "An error kept it from searching everything (as ripgrep)."),
        ],
        "check" => &[
            ("0", "Every rule holds in every session."),
            (
                "1",
                "A rule failed (the verdicts name it and the entries that broke it).",
            ),
            (
                "2",
                "A usage error (an unknown option or config key, an impossible limit, a glob that is not one), a session that cannot be read, or no session to check.",
            ),
        ],
        "secrets" => &[
            ("0", "Nothing found."),
            ("1", "A secret was found."),
            ("2", "An error."),
        ],
        "repair" => &[
            ("1", "With --check: a defect was found; or the repair failed."),
            ("130", INTERRUPTED_WRITE),
        ],
        "slim" => &[
            (
                "1",
                "A file could not be slimmed or restored (changed in the last few seconds without --force, a payload missing from FILE.slim/, …); nothing was written to it.",
            ),
            ("130", INTERRUPTED_WRITE),
        ],
        "redact" | "export" | "clone" | "fork" => &[
            ("1", "An error (the message and a hint are on stderr)."),
            ("130", INTERRUPTED_WRITE),
        ],
        "prune" => &[
            (
                "1",
                "Refused (@'s branch passes through REV, or the file changed in the last few seconds; see --force) or failed; nothing was written.",
            ),
            ("130", INTERRUPTED_WRITE),
        ],
        "merge-base" => &[("1", "The branches share no entry, or an error.")],
        "archive" => &[
            (
                "1",
                "Refused (a session changed in the last few seconds without --force, one not in Pi's folders or, with --restore, not in the archive, or whose place is taken; nothing was moved), or a move failed (those before it are made).",
            ),
            ("2", "A usage error (no session named, an AGE that is not a date)."),
            (
                "130",
                "Interrupted (Ctrl-C, SIGTERM, SIGHUP): stopped after the session being moved; those moved stay moved, each whole in one place.",
            ),
        ],
        "rm" => &[
            (
                "1",
                "Refused (not a session; on another file system than the trash, or no trash, without --force; nothing was moved), or a move failed.",
            ),
            (
                "130",
                "Interrupted (Ctrl-C, SIGTERM, SIGHUP): stopped after the session being moved.",
            ),
        ],
        "compact" | "summarize-branch" | "checkout" => &[
            ("1", "An error; nothing was written."),
            (
                "4",
                "--expect-leaf did not match, or Pi's leaf moved while the model wrote the summary; nothing was written.",
            ),
            (
                "130",
                "Interrupted (Ctrl-C while waiting for a model, SIGTERM, SIGHUP); nothing was written.",
            ),
        ],
        // No model to wait for: label's appends are quick, as are its reads.
        "label" => &[
            ("1", "An error; nothing was written."),
            ("4", "--expect-leaf did not match; nothing was written."),
        ],
        "name" => &[
            ("0", "Printed or set the name (with --all: every session named)."),
            (
                "1",
                "A bare `name`: the session has no name. Otherwise refused (changed in the last few seconds; see --force) or failed, or some session of --all was not named; nothing was written to it.",
            ),
            ("2", "A usage error (an empty name: use --clear)."),
            ("4", "--expect-leaf did not match; nothing was written."),
        ],
        "import" => &[(
            "1",
            "A source could not be read or its import would not read back as meant (nothing written for it), or there was no source; the others were imported.",
        )],
        "mv" => &[(
            "1",
            "Some session was not moved (its new name is taken, it changed in the last few seconds, …): it is where it was; the others moved.",
        )],
        // The top page: every status some command can end with.
        "pi-session" => &[
            (
                "1",
                "An error, or the answer is no (grep found nothing, repair --check found a defect).",
            ),
            ("2", "A usage error; grep and secrets: an error (as ripgrep)."),
            (
                "4",
                "--expect-leaf did not match, or Pi's leaf moved while a model wrote a summary (checkout, label, compact, summarize-branch); nothing was written.",
            ),
            (
                "130",
                "Interrupted (Ctrl-C, SIGTERM, SIGHUP): temp files removed, nothing written (archive, rm and mv: the sessions already moved stay moved, the one being moved is in one place).",
            ),
        ],
        _ => &[("1", "An error (the message and a hint are on stderr).")],
    }
}

/// `s` as roff text: backslashes and hyphens escaped, a leading dot or quote guarded.
fn roff(s: &str) -> String {
    let t = s.replace('\\', "\\e").replace('-', "\\-");
    if t.starts_with(['.', '\'']) {
        format!("\\&{t}")
    } else {
        t
    }
}

/// The three sections for the page of command `name` (`pi-session` for the top page).
pub fn render(name: &str) -> String {
    let mut out = String::new();
    let ex = examples(name);
    if !ex.is_empty() {
        out.push_str(".SH EXAMPLES\n");
        for (what, cmd) in ex {
            out.push_str(&format!(".TP\n{}\n.B {}\n", roff(what), roff(cmd)));
        }
    }
    out.push_str(".SH ENVIRONMENT\n");
    for (var, what) in COMMON_ENVIRONMENT.iter().chain(environment(name).iter()) {
        out.push_str(&format!(".TP\n.B {}\n{}\n", roff(var), roff(what)));
    }
    out.push_str(".SH \"EXIT STATUS\"\n");
    let statuses = exit_status(name);
    let mut all: Vec<(&str, &str)> = Vec::new();
    if !statuses.iter().any(|(c, _)| *c == "0") {
        all.push(("0", "Done."));
    }
    all.extend(statuses.iter().copied());
    if !statuses.iter().any(|(c, _)| *c == "2") {
        all.push(("2", "A usage error (an unknown option or a bad value)."));
    }
    all.sort_by_key(|(c, _)| c.parse::<u32>().unwrap_or(u32::MAX));
    for (code, what) in all {
        out.push_str(&format!(".TP\n.B {code}\n{}\n", roff(what)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_command_has_examples_and_its_statuses() {
        let cmd = crate::cli::completion::public_command();
        for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
            let name = sub.get_name();
            assert!(!examples(name).is_empty(), "{name} has no EXAMPLES");
            let page = render(name);
            for section in [
                ".SH EXAMPLES",
                ".SH ENVIRONMENT",
                ".SH \"EXIT STATUS\"",
                ".B 0\n",
                ".B 2\n",
            ] {
                assert!(page.contains(section), "{name}: {section}");
            }
        }
        assert!(render("pi-session").contains("PI_CODING_AGENT_DIR"));
        for code in ["0", "1", "2", "4", "130"] {
            assert!(
                render("pi-session").contains(&format!(".B {code}\n")),
                "top page: {code}"
            );
        }
        // Status 4 wherever --expect-leaf can give it; 130 "waiting for a model" only where
        // there is a model to wait for.
        for sub in cmd.get_subcommands() {
            let name = sub.get_name();
            if sub.get_arguments().any(|a| a.get_id() == "expect_leaf") {
                assert!(render(name).contains(".B 4\n"), "{name}: 4");
            }
            if render(name).contains("waiting for a model") {
                assert!(sub.get_arguments().any(|a| a.get_id() == "model"), "{name}: 130");
            }
        }
        assert!(!render("label").contains(".B 130"));
        assert_eq!(roff(".x -y \\z"), "\\&.x \\-y \\ez");
    }
}
