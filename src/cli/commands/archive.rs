use crate::cli::GlobalArgs;
use crate::cli::cache_file::{CHECK, LISTING, USAGE, cache_file};
use crate::cli::exit::Exit;
use crate::cli::output::{Output, escape_line};
use anyhow::Result;
use pi_session::dates::When;
use pi_session::session::io::locate::Locations;
use pi_session::store::{self, archive, archive::Direction};
use std::path::PathBuf;

/// Move sessions out of Pi's session folders into an archive beside them, or back.
///
/// Archived sessions are kept whole, out of Pi's /resume and `ls` (`ls --archived` lists
/// them; `usage`, `grep` and `secrets` read them with --archived): in
/// <agent dir>/sessions-archive/--<cwd>--/, the project folder's name kept; when sessions
/// live in one custom folder D (sessionDir, PI_CODING_AGENT_SESSION_DIR), in its sibling
/// D-archive/. Each session moves with one rename that never replaces a file, so at every
/// moment, across Ctrl-C or kill -9, it is whole in exactly one of the two places. Ctrl-C
/// stops after the session being moved (exit 130); those moved stay moved.
///
/// The whole run is checked first: a session changed in the last few seconds (Pi may have
/// it open; see --force), one that is not in Pi's folders (or, with --restore, not in the
/// archive), or one whose place on the other side is taken, refuses the run: nothing moves
/// (exit 1). The caches' records of what moved are dropped.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The sessions to move: files, or ids (or unique id prefixes) as -s takes them; with
    /// --restore, of archived sessions.
    #[arg(id = "targets", value_name = "SESSION", conflicts_with_all = ["older_than", "all"])]
    pub targets: Vec<String>,

    /// Every session of the current project (of every project with --all) whose last
    /// activity (ls's MODIFIED) is before AGE, in the forms `log --since` takes: a day (14d,
    /// 2w, 2026-11-30: before its first instant), a time ago ('2 weeks', '90 minutes ago',
    /// now), or a date and time. With --restore, of the archived sessions.
    #[arg(long, value_name = "AGE")]
    pub older_than: Option<When>,

    /// With --older-than: the sessions of every project. With --restore alone: every
    /// archived session.
    #[arg(long)]
    pub all: bool,

    /// Move archived sessions back into Pi's folders.
    #[arg(long)]
    pub restore: bool,

    /// Archive even a session changed in the last few seconds (a running Pi may have it open).
    #[arg(long)]
    pub force: bool,

    /// Print what would move; move nothing.
    #[arg(long)]
    pub dry_run: bool,

    /// One JSON object per session moved (or that would be, with --dry-run): {"action"
    /// (archive, restore), "from", "to", "dryRun"}.
    #[arg(long)]
    pub json: bool,
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct Record<'a> {
    action: &'a str,
    from: std::borrow::Cow<'a, str>,
    to: std::borrow::Cow<'a, str>,
    dry_run: bool,
}

/// The sessions the command line names, before the plan checks them.
fn selected(args: &Args, loc: &Locations, direction: Direction) -> Result<Option<Vec<PathBuf>>> {
    if !args.targets.is_empty() {
        let finder = if args.restore { loc.archive() } else { loc.clone() };
        let found: Result<Vec<PathBuf>, _> = args.targets.iter().map(|s| finder.find_session(Some(s))).collect();
        return Ok(Some(found?));
    }
    if let Some(age) = &args.older_than {
        let cutoff = age.first_ms(jiff::Timestamp::now(), &jiff::tz::TimeZone::system());
        return Ok(Some(archive::older_than(
            loc, args.all, cutoff, direction,
            // Not the listing's cache: a dry or refused run writes nothing, not even a cache.
            None,
        )));
    }
    if args.restore && args.all {
        return Ok(Some(archive::archived_files(loc, true)));
    }
    Ok(None)
}

pub fn run(_global: &GlobalArgs, args: &Args, out: &mut Output) -> Result<Exit> {
    let direction = if args.restore {
        Direction::Restore
    } else {
        Direction::Archive
    };
    let loc = Locations::discover(&std::env::current_dir()?);
    let Some(paths) = selected(args, &loc, direction)? else {
        Output::error(if args.restore {
            "name the sessions to restore, or use --older-than AGE or --all"
        } else {
            "name the sessions to archive, or use --older-than AGE"
        });
        return Ok(Exit::Usage);
    };
    let plan = archive::plan(&loc, &paths, direction, args.force);
    if !plan.refused.is_empty() {
        for r in &plan.refused {
            Output::error(&escape_line(&r.to_string()));
        }
        if plan.refused.iter().any(archive::Refusal::forcible) {
            Output::hint("--force archives a session even when it changed in the last few seconds");
        }
        Output::note("nothing was moved");
        return Ok(Exit::Failure);
    }
    let (action, done_word, would) = match direction {
        Direction::Archive => ("archive", "archived", "would archive"),
        Direction::Restore => ("restore", "restored", "would restore"),
    };
    let to_root = match direction {
        Direction::Archive => loc.archive().root(),
        Direction::Restore => loc.root(),
    };
    let show = |out: &mut Output, m: &archive::Move| -> std::io::Result<()> {
        if args.json {
            let record = Record {
                action,
                from: m.from.to_string_lossy(),
                to: m.to.to_string_lossy(),
                dry_run: args.dry_run,
            };
            return out.json(&serde_json::to_value(record).map_err(std::io::Error::other)?);
        }
        let (from, to) = (m.from.to_string_lossy(), m.to.to_string_lossy());
        out.line(&format!("{} -> {}", escape_line(&from), escape_line(&to)))
    };
    let count = |n: usize| {
        if n == 1 {
            "1 session".to_owned()
        } else {
            format!("{n} sessions")
        }
    };
    let dir = escape_line(&to_root.to_string_lossy());
    if plan.moves.is_empty() {
        Output::say(&format!("nothing to {action}"));
        return Ok(Exit::Success);
    }
    if args.dry_run {
        for m in &plan.moves {
            show(out, m)?;
        }
        Output::say(&format!("{would} {} to {dir}", count(plan.moves.len())));
        return Ok(Exit::Success);
    }
    let mut shown = Ok(());
    let done = archive::apply(&plan.moves, crate::cli::interrupt::cancel(), |m| {
        if shown.is_ok() {
            shown = show(out, m);
        }
    });
    let moved: Vec<&std::path::Path> = done.moved.iter().flat_map(|m| [m.from.as_path(), &m.to]).collect();
    let caches: Vec<PathBuf> = [LISTING, USAGE, CHECK].into_iter().filter_map(cache_file).collect();
    store::forget_cached(&caches, &moved);
    if direction == Direction::Restore {
        archive::remove_emptied(&loc, &done.moved);
    }
    Output::say(&format!("{done_word} {} to {dir}", count(done.moved.len())));
    if let Some((m, e)) = done.failed {
        let left = plan.moves.len() - done.moved.len();
        Output::note(&format!(
            "{} not moved, {} among them",
            count(left),
            escape_line(&m.from.to_string_lossy())
        ));
        return Err(e.into());
    }
    shown?;
    if done.cancelled {
        Output::note(&format!(
            "interrupted: {} not moved",
            count(plan.moves.len() - done.moved.len())
        ));
        return Ok(Exit::Interrupted);
    }
    Ok(Exit::Success)
}
