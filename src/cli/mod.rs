//! The `pi-session` command line: global options, dispatch, and error reporting. Each
//! subcommand lives in `commands/<name>.rs` with its `Args` and one `run` function.

pub mod amounts;
pub mod branch_summary;
pub mod cache_file;
pub mod check_policy;
pub mod commands;
pub mod completion;
pub mod exit;
pub mod follow;
pub mod grep_view;
pub mod interrupt;
pub mod log_view;
pub mod ls_view;
pub mod man_sections;
pub mod new_session;
pub mod output;
pub mod pager;
pub mod progress;
pub mod render;
pub mod rev_pair;
pub mod secret_rules;
pub mod session_arg;
pub mod size_arg;
pub mod summary_args;
pub mod table;
pub mod write_args;

use clap::{Parser, Subcommand};
use exit::{CommandError, Exit};
use output::{ColorChoice, Output};
use std::io::Write;

/// Git-style plumbing for Pi session files: inspect the conversation tree of a Pi
/// session, the branch the model sees, and what it was sent.
#[derive(Debug, Parser)]
#[command(name = "pi-session", version, propagate_version = true, max_term_width = 100)]
#[command(
    after_help = "Revisions (REV): @ (where the conversation stands), an entry id or unique prefix of 4+ \
characters, a label, root, REV~N and REV^ (ancestors), :/TEXT (newest entry on @'s branch whose text contains \
TEXT), id:X and label:X to force one reading.\n\nExit status: 0 success, 1 failure, 2 usage error, 4 --expect-leaf did not match, or the leaf moved while a summary was written (nothing written), \
130 interrupted (Ctrl-C, SIGTERM, SIGHUP: temp files removed, nothing written; archive, rm and mv keep the sessions already moved)."
)]
pub struct Cli {
    #[command(flatten)]
    pub global: GlobalArgs,

    #[command(subcommand)]
    pub command: Command,
}

/// Options every command takes: listed under their own heading in each command's help, apart
/// from the command's own.
#[derive(Debug, clap::Args)]
#[command(next_help_heading = "Global options")]
pub struct GlobalArgs {
    /// Session file, or the id (or unique id prefix) of a session of the current directory.
    /// Default: the most recent session of the current directory, found as Pi finds it.
    /// `usage`, `secrets`, `redact`, `slim` and `check` take several.
    #[arg(short = 's', long = "session", value_name = "PATH|ID", global = true, action = clap::ArgAction::Append)]
    pub sessions: Vec<String>,

    /// When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or
    /// CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins).
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto, value_name = "WHEN", global = true)]
    pub color: ColorChoice,

    /// Do not page the human output of log, show, context and export (on a terminal it goes
    /// through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`).
    #[arg(long, global = true)]
    pub no_pager: bool,
}

impl GlobalArgs {
    /// The one session `-s` names, for commands that work on one.
    pub fn session(&self) -> Option<&str> {
        self.sessions.first().map(String::as_str)
    }
}

#[derive(Debug, Subcommand)]
pub enum Command {
    Log(commands::log::Args),
    Tree(commands::tree::Args),
    Show(commands::show::Args),
    Context(commands::context::Args),
    RevParse(commands::rev_parse::Args),
    Diff(commands::diff::Args),
    MergeBase(commands::merge_base::Args),
    Checkout(commands::checkout::Args),
    Label(commands::label::Args),
    Name(commands::name::Args),
    Mv(commands::mv::Args),
    Import(commands::import::Args),
    Clone(commands::clone::Args),
    Fork(commands::fork::Args),
    Repair(commands::repair::Args),
    Prune(commands::prune::Args),
    Compact(commands::compact::Args),
    SummarizeBranch(commands::summarize_branch::Args),
    Ls(commands::ls::Args),
    Archive(commands::archive::Args),
    Rm(commands::rm::Args),
    Stats(commands::stats::Args),
    Files(commands::files::Args),
    Check(commands::check::Args),
    Usage(commands::usage::Args),
    Secrets(commands::secrets::Args),
    Redact(commands::redact::Args),
    Slim(commands::slim::Args),
    Grep(commands::grep::Args),
    Export(commands::export::Args),
    Completions(commands::completions::Args),
    #[command(name = "__complete-revs", hide = true)]
    CompleteRevs(commands::completions::RevsArgs),
    #[command(name = "__complete-sessions", hide = true)]
    CompleteSessions(commands::completions::RevsArgs),
    #[command(name = "__generate-docs", hide = true)]
    GenerateDocs(commands::generate_docs::Args),
}

/// `-N` (`log -5`, as git and head take it) as `-n N`, for the commands that print lists
/// (`log`, `tree`, `ls`, `grep`): only before a `--`, and only after the command's name.
fn count_shorthand(mut args: Vec<std::ffi::OsString>) -> Vec<std::ffi::OsString> {
    use clap::CommandFactory;
    // The command is the first word that names one (a global option's value never does in
    // practice: a session file called `log` would need a path).
    let names: Vec<String> = Cli::command()
        .get_subcommands()
        .map(|c| c.get_name().to_owned())
        .collect();
    let Some(cmd) = args
        .iter()
        .skip(1)
        .position(|a| a.to_str().is_some_and(|a| names.iter().any(|n| n == a)))
    else {
        return args;
    };
    let cmd = cmd + 1;
    if !matches!(args[cmd].to_str(), Some("log" | "tree" | "ls" | "grep")) {
        return args;
    }
    let mut k = cmd + 1;
    while k < args.len() {
        let Some(a) = args[k].to_str() else {
            k += 1;
            continue;
        };
        if a == "--" {
            break;
        }
        if let Some(n) = a
            .strip_prefix('-')
            .filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        {
            let n = n.to_owned();
            args.splice(k..=k, ["-n".into(), n.into()]);
            k += 2;
            continue;
        }
        k += 1;
    }
    args
}

/// Parses the command line, runs the command, and returns how the process ends.
pub fn main() -> std::process::ExitCode {
    run().into()
}

fn run() -> Exit {
    let cli = match Cli::try_parse_from(count_shorthand(std::env::args_os().collect())) {
        Ok(cli) => cli,
        Err(e) => {
            // clap repeats the offending argument; escape what it leaves raw (CR, C1, bidi).
            let text = output::escape_block(&e.render().to_string());
            if e.use_stderr() {
                eprint!("{text}");
                return Exit::Usage;
            }
            print!("{text}");
            return Exit::Success;
        }
    };
    let takes_several = matches!(
        cli.command,
        Command::Usage(_) | Command::Secrets(_) | Command::Redact(_) | Command::Slim(_) | Command::Check(_)
    );
    if cli.global.sessions.len() > 1 && !takes_several {
        output::Output::error(
            "-s/--session names one session here (only `usage`, `secrets`, `redact`, `slim` and `check` take several)",
        );
        return Exit::Usage;
    }
    interrupt::install();
    output::set_session_arg(cli.global.session());
    let mut out = Output::new(cli.global.color);
    if !cli.global.no_pager && wants_pager(&cli.command) {
        out.page();
    }
    let result = match &cli.command {
        Command::Log(a) => commands::log::run(&cli.global, a, &mut out).map(Exit::from),
        Command::Tree(a) => commands::tree::run(&cli.global, a, &mut out).map(Exit::from),
        Command::Show(a) => commands::show::run(&cli.global, a, &mut out).map(Exit::from),
        Command::Context(a) => commands::context::run(&cli.global, a, &mut out).map(Exit::from),
        Command::RevParse(a) => commands::rev_parse::run(&cli.global, a, &mut out).map(Exit::from),
        Command::Diff(a) => commands::diff::run(&cli.global, a, &mut out).map(Exit::from),
        Command::MergeBase(a) => commands::merge_base::run(&cli.global, a, &mut out),
        Command::Files(a) => commands::files::run(&cli.global, a, &mut out).map(Exit::from),
        Command::Check(a) => commands::check::run(&cli.global, a, &mut out),
        Command::Checkout(a) => commands::checkout::run(&cli.global, a, &mut out).map(Exit::from),
        Command::Label(a) => commands::label::run(&cli.global, a, &mut out).map(Exit::from),
        Command::Name(a) => commands::name::run(&cli.global, a, &mut out),
        Command::Mv(a) => commands::mv::run(&cli.global, a, &mut out),
        Command::Import(a) => commands::import::run(&cli.global, a, &mut out),
        Command::Clone(a) => commands::clone::run(&cli.global, a, &mut out).map(Exit::from),
        Command::Fork(a) => commands::fork::run(&cli.global, a, &mut out).map(Exit::from),
        Command::Repair(a) => commands::repair::run(&cli.global, a, &mut out),
        Command::Prune(a) => commands::prune::run(&cli.global, a, &mut out).map(Exit::from),
        Command::Compact(a) => commands::compact::run(&cli.global, a, &mut out).map(Exit::from),
        Command::SummarizeBranch(a) => commands::summarize_branch::run(&cli.global, a, &mut out).map(Exit::from),
        Command::Ls(a) => commands::ls::run(&cli.global, a, &mut out).map(Exit::from),
        Command::Archive(a) => commands::archive::run(&cli.global, a, &mut out),
        Command::Rm(a) => commands::rm::run(&cli.global, a, &mut out),
        Command::Stats(a) => commands::stats::run(&cli.global, a, &mut out).map(Exit::from),
        Command::Usage(a) => commands::usage::run(&cli.global, a, &mut out).map(Exit::from),
        Command::Secrets(a) => commands::secrets::run(&cli.global, a, &mut out),
        Command::Redact(a) => commands::redact::run(&cli.global, a, &mut out),
        Command::Slim(a) => commands::slim::run(&cli.global, a, &mut out),
        Command::Grep(a) => commands::grep::run(&cli.global, a, &mut out),
        Command::Export(a) => commands::export::run(&cli.global, a, &mut out).map(Exit::from),
        Command::Completions(a) => commands::completions::run(a, &mut out).map(Exit::from),
        Command::CompleteRevs(a) => commands::completions::run_revs(&cli.global, a, &mut out).map(Exit::from),
        Command::CompleteSessions(_) => commands::completions::run_sessions(&mut out).map(Exit::from),
        Command::GenerateDocs(a) => commands::generate_docs::run(a, &mut out).map(Exit::from),
    };
    // Flush what was printed even when the command then fails (e.g. `repair --check`), and
    // wait for the pager, if any, before an error is reported.
    let flushed = out.finish();
    for stale in pi_session::session::io::temp::take_removed_stale() {
        Output::note(&format!(
            "removed {}, left by an interrupted pi-session",
            stale.display()
        ));
    }
    match result.and_then(|exit| flushed.map(|()| exit).map_err(Into::into)) {
        Ok(exit) => exit,
        Err(e) => report(&e, Some(&cli.command)),
    }
}

/// Whether a command's output is worth paging: the human output of the commands that print
/// whole conversations. (Decided here, where commands are dispatched, so that the pager
/// knows nothing of commands.)
fn wants_pager(command: &Command) -> bool {
    match command {
        Command::Log(a) => !a.json && !a.follow,
        Command::Tree(a) => !a.json,
        Command::Show(a) => !a.json,
        Command::Context(a) => !a.json,
        Command::Export(a) => {
            a.output.as_deref().is_none_or(|o| o.as_os_str() == "-")
                && !matches!(a.format, Some(commands::export::Format::Html))
        }
        _ => false,
    }
}

/// For the commands whose status 1 is an answer (`secrets`: found; `check`: a rule failed): an
/// error is reported here and ends with 2; a closed pipe stays a success.
pub fn errors_end_with_usage(result: anyhow::Result<Exit>) -> anyhow::Result<Exit> {
    match result {
        Err(e) => Ok(match report(&e, None) {
            Exit::Success => Exit::Success,
            _ => Exit::Usage,
        }),
        ok => ok,
    }
}

/// Prints an error as every command's errors are printed (an `error:` line, then a `hint:`
/// line when there is advice), and says how the process should end. Commands that carry on
/// after an error (`grep` over several sessions) report it here too, without a command.
pub fn report(e: &anyhow::Error, command: Option<&Command>) -> Exit {
    // A closed pipe (`pi-session log | head`) is not an error.
    if e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    }) {
        return Exit::Success;
    }
    let own = e.downcast_ref::<CommandError>();
    let exit = match e
        .chain()
        .find_map(|c| c.downcast_ref::<pi_session::session::SessionError>())
    {
        _ if own.is_some() => own.map_or(Exit::Failure, |c| c.exit),
        Some(pi_session::session::SessionError::LeafMismatch { .. }) => Exit::LeafMismatch,
        _ if e.chain().any(|c| {
            matches!(
                c.downcast_ref::<pi_session::llm::LlmError>(),
                Some(pi_session::llm::LlmError::Interrupted)
            )
        }) =>
        {
            Exit::Interrupted
        }
        _ => Exit::Failure,
    };
    let mut hint = match own {
        Some(c) => c.hint.clone(),
        None => hint_for(e, command),
    };
    let mut message = format!("{e:#}");
    // A revision unknown in a session nobody named: say which one was read (after `clone`,
    // the most recent session of the directory may not be the one the user has in mind).
    let unknown = e
        .chain()
        .find_map(|c| match c.downcast_ref::<pi_session::session::SessionError>() {
            Some(pi_session::session::SessionError::UnknownRevision(_)) => Some(" in"),
            Some(pi_session::session::SessionError::TextNotFound { .. }) => Some(", in"),
            _ => None,
        });
    if let (Some(path), Some(sep)) = (session_arg::implicit_session(), unknown) {
        message.push_str(&format!(
            "{sep} {} (the most recent session of this directory, read as no -s was given)",
            path.display()
        ));
        hint = Some(format!(
            "{}; -s names another session (`pi-session ls` lists them)",
            hint.unwrap_or_default()
        ));
    }
    let stderr = std::io::stderr();
    let mut err = stderr.lock();
    // Commands suggested in the message and the hint name the session the user named.
    let message = if e.downcast_ref::<regex::Error>().is_some() {
        // The regex crate points a caret under the pattern over several lines, as ripgrep
        // prints it: kept as lines, each escaped.
        message.lines().map(output::escape_line).collect::<Vec<_>>().join("\n")
    } else {
        output::escape_line(&output::advise(&message))
    };
    let _ = writeln!(err, "error: {message}");
    if let Some(hint) = hint {
        let _ = writeln!(err, "hint: {}", output::escape_line(&output::advise(&hint)));
    }
    exit
}

fn hint_for(e: &anyhow::Error, command: Option<&Command>) -> Option<String> {
    use pi_session::session::SessionError as E;
    if e.downcast_ref::<regex::Error>().is_some() {
        return Some("to search for the text as it is, not as a regex, add -F (--fixed-strings)".into());
    }
    let se = e.chain().find_map(|c| c.downcast_ref::<E>())?;
    Some(match se {
        E::Io { .. } => "check the path given with -s/--session".into(),
        // `repair` itself refuses a file in which no line is a JSON object.
        E::NotASession { .. } if matches!(command, Some(Command::Repair(_))) => {
            "repair mends Pi session files; nothing in this one looks like part of a session".into()
        }
        E::Exists { .. } => "add --force to replace it, or choose another path".into(),
        E::NotASession { .. } => "a Pi session starts with a {\"type\":\"session\",\"id\":…} header line; `pi-session repair` can add a missing one".into(),
        E::NotJsonLines { .. } => "give -s a Pi session file: JSON lines, the first a {\"type\":\"session\",\"id\":…} header; `pi-session ls` lists this directory's sessions".into(),
        E::AmbiguousSession { candidates, .. } => {
            let mut shown: Vec<String> = candidates
                .iter()
                .take(10)
                .map(|(id, path)| format!("{id} ({})", path.display()))
                .collect();
            if candidates.len() > 10 {
                shown.push(format!("… ({} in all)", candidates.len()));
            }
            format!("candidates: {}", shown.join(", "))
        }
        E::UnknownRevision(rev) if rev.get(..4).is_some_and(|h| h.eq_ignore_ascii_case("head")) => format!(
            "git's HEAD is `@` here (where the conversation stands): try `{}`",
            format_args!("@{}", &rev[4..])
        ),
        E::UnknownRevision(_) => "use a full id, a unique id prefix (4+ characters), a label, @, @- (jj's parent), root, REV~N or :/TEXT; `pi-session log --all` lists the ids".into(),
        E::TextNotFound { text, .. } => format!(
            "`pi-session grep {}{}` searches every branch",
            // grep takes a regex; the text of :/TEXT is plain.
            if text.contains(|c| ".^$*+?()[]{}|\\".contains(c)) { "-F " } else { "" },
            output::shell_quote(text)
        ),
        E::AmbiguousRevision { candidates, .. } => format!("candidates: {}", candidates.join(", ")),
        E::InvalidRevision { .. } => "see `pi-session --help` for the revision syntax".into(),
        E::PastRoot { .. } => "`pi-session log REV` shows how far back the branch goes".into(),
        E::EmptyPosition { leaf: None, .. } => "the next message starts a new root".into(),
        E::EmptyPosition { leaf: Some(leaf), .. } => {
            format!("Pi appends the next message under {leaf}, where a new branch starts")
        }
        E::NoSession(_) => "pass a session file or id with -s (`pi-session ls --all` lists every session), or run in a directory where Pi has sessions".into(),
        E::Locked { .. } => "another pi-session command is writing to it; try again in a moment".into(),
        E::OldFormat { .. } => "run `pi-session repair` to migrate it to v3 first (Pi would rewrite it on open)".into(),
        E::LeafMismatch { .. } => "the session moved on; read it again (`pi-session rev-parse --leaf`) and retry".into(),
        E::Write { source, .. }
            if matches!(
                source.kind(),
                std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem
            ) =>
        {
            "check that you may write to the file and to its folder".into()
        }
        E::Refused(_) | E::Write { .. } | E::Sync { .. } | E::Place { .. } | E::NeedMore => return None,
    })
}

#[cfg(test)]
mod tests {
    /// clap's own consistency checks of every command and argument.
    #[test]
    fn command_line_definition_is_consistent() {
        use clap::CommandFactory;
        super::Cli::command().debug_assert();
    }
}
