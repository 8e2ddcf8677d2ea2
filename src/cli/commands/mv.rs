use crate::cli::GlobalArgs;
use crate::cli::cache_file::{CHECK, LISTING, USAGE, cache_file};
use crate::cli::exit::{CommandError, Exit};
use crate::cli::output::{Output, escape_line};
use crate::cli::session_arg::session_path;
use anyhow::Result;
use pi_session::ops::mv::{self, Move, Outcome};
use pi_session::session::branch_copy::absolute;
use pi_session::session::io::locate::Locations;
use std::path::{Path, PathBuf};

/// Move sessions to another project directory (a project that was moved or renamed).
///
/// `mv DIR` moves the session (-s, else the most recent one here) to the project directory
/// DIR: a new file in the folder Pi keeps DIR's sessions in, under the same name, whose
/// header `cwd` is DIR (every other line byte for byte), written atomically (never over a
/// file); then the old file is removed (`--copy` keeps it). `mv --from OLD --to NEW` moves
/// every session whose header `cwd` is OLD or a directory inside it, as a renamed project
/// needs. Sessions whose header names a moved file as their `parentSession` are left
/// pointing at the old path (and listed) unless --relink rewrites their headers (with a
/// backup). Where every project's sessions share one folder (a sessionDir), the header is
/// rewritten where the file is (with a backup).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The project directory the session now belongs to.
    #[arg(value_name = "DIR", required_unless_present = "from", conflicts_with_all = ["from", "to"])]
    pub dir: Option<PathBuf>,

    /// Move every session of this project directory (and of the directories inside it).
    #[arg(long, value_name = "OLD", requires = "to")]
    pub from: Option<PathBuf>,

    /// Where the project of --from is now.
    #[arg(long, value_name = "NEW", requires = "from")]
    pub to: Option<PathBuf>,

    /// Keep the old files: the new ones are copies.
    #[arg(long)]
    pub copy: bool,

    /// Point the `parentSession` of sessions that came from a moved file at its new path
    /// (their headers are rewritten, each with a backup).
    #[arg(long)]
    pub relink: bool,

    /// Move a session changed in the last few seconds (Pi may have it open).
    #[arg(long, short = 'f')]
    pub force: bool,

    /// Print what would move, and write nothing.
    #[arg(long)]
    pub dry_run: bool,

    /// One JSON object per session: {"from","to","oldCwd","newCwd","outcome"} ("moved",
    /// "rewritten", "resumed"; null in a dry run), then one per relinked session
    /// {"session","parentSession","backup"}.
    #[arg(long)]
    pub json: bool,
}

pub fn run(global: &GlobalArgs, args: &Args, out: &mut Output) -> Result<Exit> {
    let cwd = std::env::current_dir()?;
    let loc = Locations::discover(&cwd);
    let (plans, target) = match (&args.dir, &args.from, &args.to) {
        (Some(dir), _, _) => {
            let dir = absolute(dir);
            (vec![mv::plan(&session_path(global)?, &dir, &loc)], dir)
        }
        (None, Some(old), Some(new)) => {
            if !global.sessions.is_empty() {
                return Err(CommandError::usage(
                    "--from moves every session of a project",
                    "leave out -s",
                ));
            }
            let (old, new) = (absolute(old), absolute(new));
            let plans = mv::plan_project(&old, &new, &loc);
            if plans.is_empty() {
                Output::say(&format!(
                    "no session has {} as its working directory",
                    escape_line(&old.display().to_string())
                ));
                return Ok(Exit::Failure);
            }
            (plans, new)
        }
        _ => {
            return Err(CommandError::usage(
                "mv needs DIR, or --from OLD --to NEW",
                "`pi-session mv ../new-place`",
            ));
        }
    };
    if !target.is_dir() {
        Output::warn(&format!(
            "{} is not a directory (yet): Pi opens a session only where its working directory exists",
            escape_line(&target.display().to_string())
        ));
    }
    let mut moved: Vec<(PathBuf, PathBuf)> = Vec::new();
    let mut failed = 0usize;
    for plan in plans {
        let done = plan.and_then(|m| {
            let outcome = if args.dry_run {
                None
            } else {
                Some(mv::execute(&m, args.copy, args.force)?)
            };
            Ok((m, outcome))
        });
        match done {
            Ok((m, outcome)) => {
                report(out, args, &m, outcome)?;
                moved.push((m.from.clone(), m.to.clone()));
            }
            Err(e) => {
                failed += 1;
                Output::error(&format!("{e}"));
            }
        }
    }
    if !args.dry_run {
        // What moved is read again under its new path, not answered from its old records.
        let caches: Vec<PathBuf> = [LISTING, USAGE, CHECK].into_iter().filter_map(cache_file).collect();
        let paths: Vec<&Path> = moved.iter().flat_map(|(a, b)| [a.as_path(), b.as_path()]).collect();
        pi_session::store::forget_cached(&caches, &paths);
    }
    relink(out, args, &moved, &loc)?;
    let verb = match (args.dry_run, args.copy) {
        (true, _) => "would move",
        (false, true) => "copied",
        (false, false) => "moved",
    };
    if moved.len() > 1 || failed > 0 {
        Output::say(&format!(
            "{verb} {} session(s) to {}{}",
            moved.len(),
            escape_line(&target.display().to_string()),
            if failed > 0 {
                format!(", {failed} not moved")
            } else {
                String::new()
            }
        ));
    }
    Ok(if failed > 0 { Exit::Failure } else { Exit::Success })
}

fn report(out: &mut Output, args: &Args, m: &Move, outcome: Option<Outcome>) -> Result<()> {
    if args.json {
        let mut record = serde_json::to_value(m)?;
        record["outcome"] = serde_json::to_value(outcome)?;
        return Ok(out.json(&record)?);
    }
    let shown = |p: &Path| escape_line(&p.display().to_string());
    let line = match outcome {
        None => format!("would move {} -> {}", shown(&m.from), shown(&m.to)),
        Some(Outcome::Moved) if args.copy => format!("copied {} -> {}", shown(&m.from), shown(&m.to)),
        Some(Outcome::Moved) => format!("moved {} -> {}", shown(&m.from), shown(&m.to)),
        Some(Outcome::Rewritten) => format!(
            "rewrote the header of {} (cwd {})",
            shown(&m.to),
            escape_line(&m.new_cwd)
        ),
        Some(Outcome::Resumed) => format!("finished an interrupted move: {} -> {}", shown(&m.from), shown(&m.to)),
    };
    Ok(out.line(&line)?)
}

/// The sessions that came from a moved file: relinked with --relink, else named.
fn relink(out: &mut Output, args: &Args, moved: &[(PathBuf, PathBuf)], loc: &Locations) -> Result<()> {
    // A copy leaves the old file where children point; a rewrite in place keeps its path.
    let renamed: Vec<(PathBuf, PathBuf)> = moved.iter().filter(|(a, b)| a != b && !args.copy).cloned().collect();
    if renamed.is_empty() {
        return Ok(());
    }
    let children = mv::children_of(&renamed, loc);
    if children.is_empty() {
        return Ok(());
    }
    if !args.relink || args.dry_run {
        for (child, _) in &children {
            Output::note(&format!(
                "{} {} names a moved session as its parentSession",
                escape_line(&child.display().to_string()),
                if args.dry_run && args.relink {
                    "would be relinked:"
                } else {
                    "still"
                },
            ));
        }
        if !args.relink {
            Output::hint(&format!(
                "{} session(s) point at the old path; --relink points them at the new one",
                children.len()
            ));
        }
        return Ok(());
    }
    for (child, parent) in &children {
        let backup = mv::relink(child, parent)?;
        if args.json {
            out.json(&serde_json::json!({"session": child, "parentSession": parent, "backup": backup}))?;
        } else {
            Output::say(&format!(
                "relinked {} (backup {})",
                escape_line(&child.display().to_string()),
                escape_line(&backup.display().to_string())
            ));
        }
    }
    Ok(())
}
