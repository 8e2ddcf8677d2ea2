use crate::cli::GlobalArgs;
use crate::cli::exit::{CommandError, Exit};
use crate::cli::output::{Output, escape_block, escape_line};
use crate::cli::progress::Terminal;
use crate::cli::session_arg::{open_tip, session_path};
use crate::cli::summary_args::{SummaryArgs, choose};
use crate::cli::write_args::{WriteArgs, append, open_writer_tip_at, show_dry_run};
use anyhow::Result;
use pi_session::compaction::branch_model;
use pi_session::ops::name::{current_name, generate, name_line, sanitize, title_request};
use pi_session::progress::Progress;
use pi_session::session::io::append::now_timestamp;
use pi_session::session::io::locate::Locations;
use pi_session::session::{Session, SessionError};
use std::path::{Path, PathBuf};

/// Print or set the session's name, as Pi's /name does.
///
/// `name` prints the current name (the latest session_info entry's, which Pi shows in
/// /resume and its footer) and exits with 1 when there is none; `name TEXT` appends a
/// session_info entry naming the session (line breaks become spaces, as in Pi); `--clear`
/// appends one that clears it. `--generate` asks a model for a short title of the
/// conversation at @ (the same providers, `--summarizer` and `--summary-file` as `compact`);
/// with `--all` it names every session of the project (`--unnamed`: only those without a
/// name). A session changed in the last few seconds is refused unless --force: Pi may have
/// it open and would not see the name until it is reopened.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The new name.
    #[arg(value_name = "TEXT", conflicts_with_all = ["clear", "generate"])]
    pub text: Option<String>,

    /// Clear the name (an empty session_info name, as Pi writes it).
    #[arg(long, conflicts_with = "generate")]
    pub clear: bool,

    /// Ask a model for a short title of the conversation and name the session with it.
    #[arg(long)]
    pub generate: bool,

    /// With --generate: every session of the current directory (or of every project, with
    /// --all-projects), with a progress bar and a summary.
    #[arg(long, requires = "generate")]
    pub all: bool,

    /// With --all: every session of every project.
    #[arg(long, requires = "all")]
    pub all_projects: bool,

    /// With --all: only sessions that have no name.
    #[arg(long, requires = "all")]
    pub unnamed: bool,

    /// One JSON object per session: {"path","name"} for a bare `name`; {"path","name",
    /// "previous","entryId","dryRun"} for a change.
    #[arg(long)]
    pub json: bool,

    /// Write even if the file changed in the last few seconds.
    #[arg(long, short = 'f')]
    pub force: bool,

    #[command(flatten)]
    pub summary: SummaryArgs,

    #[command(flatten)]
    pub write: WriteArgs,
}

pub fn run(global: &GlobalArgs, args: &Args, out: &mut Output) -> Result<Exit> {
    if args.text.is_none() && !args.clear && !args.generate {
        return show(global, args, out);
    }
    if args.all {
        return generate_all(args, out);
    }
    let path = session_path(global)?;
    let name = match &args.text {
        Some(text) => sanitize(text),
        None if args.clear => String::new(),
        None => {
            let session = Session::open(&path)?;
            if args.summary.print_prompt {
                let r = title_request(&session, args.summary.include_thinking);
                out.line(&format!("===== system =====\n{}", escape_block(&r.system)))?;
                out.line(&format!("===== prompt =====\n{}", escape_block(&r.prompt)))?;
                return Ok(Exit::Success);
            }
            title_for(&session, args)?
        }
    };
    if name.is_empty() && !args.clear {
        return Err(CommandError::usage(
            "the name is empty",
            "use --clear to clear the name",
        ));
    }
    set_name(&path, &name, args, out)?;
    Ok(Exit::Success)
}

/// Prints the current name; 1 when the session has none.
fn show(global: &GlobalArgs, args: &Args, out: &mut Output) -> Result<Exit> {
    let (session, name) = open_tip(global, |s| Ok(current_name(s)?))?;
    if args.json {
        out.json(&serde_json::json!({"path": session.path, "name": name}))?;
    } else if let Some(name) = &name {
        out.line(&escape_line(name))?;
    } else {
        Output::say(&format!(
            "{} has no name",
            escape_line(&session.path.display().to_string())
        ));
    }
    Ok(if name.is_some() { Exit::Success } else { Exit::Failure })
}

/// A title for `session` from the source the options choose.
fn title_for(session: &Session, args: &Args) -> Result<String> {
    let model = session
        .leaf()
        .and_then(|l| branch_model(session, &session.branch(l).path));
    let choice = choose(&args.summary, model)?;
    Ok(generate(
        session,
        choice.source.as_source(),
        args.summary.include_thinking,
    )?)
}

/// Appends the session_info entry naming the session at `path` (or, with --dry-run, shows it).
fn set_name(path: &Path, name: &str, args: &Args, out: &mut Output) -> Result<()> {
    let dry_run = args.summary.dry_run;
    let (mut writer, previous) = open_writer_tip_at(path, &args.write, dry_run, |s| Ok(current_name(s)?))?;
    if !args.force && !dry_run && writer.recently_changed_by_another() {
        return Err(SessionError::Refused(
            "the file changed in the last few seconds: if Pi has this session open, it would not see the \
             name until the session is reopened; close it (or pass --force); nothing was written"
                .into(),
        )
        .into());
    }
    let id = writer.new_id();
    let line = name_line(&writer.session, &id, &now_timestamp(), name);
    let shown = escape_line(&path.display().to_string());
    if args.json {
        out.json(
            &serde_json::json!({"path": path, "name": name, "previous": previous, "entryId": id, "dryRun": dry_run}),
        )?;
    }
    if dry_run {
        if !args.json {
            show_dry_run(out, path, &[&line])?;
        }
        return Ok(());
    }
    append(&mut writer, &line)?;
    let was = previous
        .map(|p| format!(" (was: {})", escape_line(&p)))
        .unwrap_or_default();
    if name.is_empty() {
        Output::say(&format!("cleared the name of {shown}{was}"));
    } else if !args.json {
        Output::say(&format!("named {shown}: {}{was}", escape_line(name)));
    }
    Ok(())
}

/// `--generate --all`: names each session of the project (or of every project) in turn.
fn generate_all(args: &Args, out: &mut Output) -> Result<Exit> {
    let cwd = std::env::current_dir()?;
    let loc = Locations::discover(&cwd);
    let listing = pi_session::listing::list(
        &loc,
        &pi_session::listing::ListOptions {
            all: args.all_projects,
            cache: None,
            archived: false,
        },
        &pi_session::progress::Silent,
    );
    let todo: Vec<PathBuf> = listing
        .sessions
        .iter()
        .filter(|s| !args.unnamed || s.name.is_none())
        .map(|s| s.path.clone())
        .collect();
    let progress = Terminal::new();
    progress.start("naming sessions", Some(todo.len() as u64));
    let (mut named, mut failed) = (0usize, 0usize);
    for path in &todo {
        let done = Session::open(path)
            .map_err(anyhow::Error::from)
            .and_then(|s| title_for(&s, args))
            .and_then(|title| set_name(path, &title, args, out));
        match done {
            Ok(()) => named += 1,
            Err(e) => {
                failed += 1;
                Output::warn(&format!("{}: {e:#}", escape_line(&path.display().to_string())));
            }
        }
        progress.advance(1);
    }
    progress.finish();
    let skipped = listing.sessions.len() - todo.len();
    let verb = if args.summary.dry_run { "would name" } else { "named" };
    Output::say(&format!(
        "{verb} {named} of {} session(s){}{}",
        todo.len(),
        if skipped > 0 {
            format!(", {skipped} already named left as they are")
        } else {
            String::new()
        },
        if failed > 0 {
            format!(", {failed} failed")
        } else {
            String::new()
        },
    ));
    if todo.is_empty() {
        crate::cli::session_arg::say_none_found(&loc, args.all_projects);
    }
    Ok(if failed > 0 { Exit::Failure } else { Exit::Success })
}
