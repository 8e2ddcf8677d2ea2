use crate::cli::GlobalArgs;
use crate::cli::cache_file::{CHECK, LISTING, USAGE, cache_file};
use crate::cli::exit::Exit;
use crate::cli::output::{Output, escape_line};
use anyhow::Result;
use pi_session::session::io::locate::Locations;
use pi_session::store::{self, trash};
use std::path::PathBuf;

/// Move sessions to the trash, where file managers list them and can put them back.
///
/// The trash is the home trash of the freedesktop.org specification: $XDG_DATA_HOME/Trash,
/// else ~/.local/share/Trash; each session goes to its files/ folder with an
/// info/NAME.trashinfo naming where it was and when it was deleted (a name already taken
/// there gets a number: NAME.2.jsonl). A session on another file system than the trash is
/// refused (moving it would copy it), as is every session when there is no trash, unless
/// --force, which deletes those; so is a session changed in the last few seconds (Pi may
/// have it open), unless --force. One refused session refuses the run: nothing moves
/// (exit 1). Archived sessions are found too. The caches' records of what moved are dropped.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The sessions: files, or ids (or unique id prefixes) as -s takes them, of Pi's
    /// folders or of the archive.
    #[arg(id = "targets", value_name = "SESSION", required = true)]
    pub targets: Vec<String>,

    /// Delete the sessions that cannot go to the trash (another file system, no trash), and
    /// take sessions changed in the last few seconds.
    #[arg(long)]
    pub force: bool,

    /// Print what would be moved or deleted; touch nothing.
    #[arg(long)]
    pub dry_run: bool,

    /// One JSON object per session: {"from", "to" (its place in the trash; null when
    /// deleted), "deleted", "dryRun"}.
    #[arg(long)]
    pub json: bool,
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct Record<'a> {
    from: std::borrow::Cow<'a, str>,
    to: Option<std::borrow::Cow<'a, str>>,
    deleted: bool,
    dry_run: bool,
}

/// The session `arg` names: in Pi's folders, else in the archive.
fn find(loc: &Locations, arg: &str) -> Result<PathBuf> {
    match loc.find_session(Some(arg)) {
        Ok(p) => Ok(p),
        Err(e) => loc.archive().find_session(Some(arg)).map_err(|_| e.into()),
    }
}

fn show(out: &mut Output, args: &Args, from: &std::path::Path, to: Option<&std::path::Path>) -> Result<()> {
    if args.json {
        let record = Record {
            from: from.to_string_lossy(),
            to: to.map(|t| t.to_string_lossy()),
            deleted: to.is_none(),
            dry_run: args.dry_run,
        };
        return Ok(out.json(&serde_json::to_value(record)?)?);
    }
    let from = escape_line(&from.to_string_lossy());
    Ok(out.line(&match to {
        Some(to) => format!("{from} -> {}", escape_line(&to.to_string_lossy())),
        None => format!("{from} deleted"),
    })?)
}

pub fn run(_global: &GlobalArgs, args: &Args, out: &mut Output) -> Result<Exit> {
    let loc = Locations::discover(&std::env::current_dir()?);
    let mut paths = Vec::new();
    for s in &args.targets {
        let p = find(&loc, s)?;
        if !paths.contains(&p) {
            paths.push(p);
        }
    }
    let home = trash::home_trash();
    let plan: Vec<_> = paths
        .iter()
        .map(|p| trash::disposal(p, home.as_deref(), args.force))
        .collect();
    let refused: Vec<&trash::Refusal> = plan.iter().filter_map(|d| d.as_ref().err()).collect();
    if !refused.is_empty() {
        for r in &refused {
            Output::error(&escape_line(&r.to_string()));
        }
        Output::hint("--force deletes a session that cannot go to the trash, and takes one changed a moment ago");
        Output::note("nothing was moved");
        return Ok(Exit::Failure);
    }
    let cancel = crate::cli::interrupt::cancel();
    let (mut trashed, mut deleted) = (0usize, 0usize);
    let mut gone: Vec<PathBuf> = Vec::new();
    let mut failed = None;
    for (path, disposal) in paths.iter().zip(plan.into_iter().flatten()) {
        if cancel.is_cancelled() {
            break;
        }
        let to = match (&disposal, args.dry_run) {
            (trash::Disposal::Trash(t), true) => Some(t.join("files").join(path.file_name().unwrap_or_default())),
            (trash::Disposal::Delete, true) => None,
            (trash::Disposal::Trash(t), false) => match trash::trash_file(path, t) {
                Ok(to) => Some(to),
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            },
            (trash::Disposal::Delete, false) => match trash::delete_file(path) {
                Ok(()) => None,
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            },
        };
        if to.is_some() {
            trashed += 1;
        } else {
            deleted += 1;
        }
        show(out, args, path, to.as_deref())?;
        gone.push(path.clone());
        gone.extend(to);
    }
    if !args.dry_run {
        let caches: Vec<PathBuf> = [LISTING, USAGE, CHECK].into_iter().filter_map(cache_file).collect();
        let gone: Vec<&std::path::Path> = gone.iter().map(PathBuf::as_path).collect();
        store::forget_cached(&caches, &gone);
    }
    let count = |n: usize| {
        if n == 1 {
            "1 session".to_owned()
        } else {
            format!("{n} sessions")
        }
    };
    let (moved, removed) = if args.dry_run {
        ("would move", "would delete")
    } else {
        ("moved", "deleted")
    };
    if trashed > 0 {
        let dir = home
            .as_deref()
            .map(|h| h.to_string_lossy().into_owned())
            .unwrap_or_default();
        Output::say(&format!(
            "{moved} {} to the trash ({})",
            count(trashed),
            escape_line(&dir)
        ));
    }
    if deleted > 0 {
        Output::say(&format!("{removed} {}", count(deleted)));
    }
    if let Some(e) = failed {
        return Err(e.into());
    }
    Ok(if cancel.is_cancelled() {
        Exit::Interrupted
    } else {
        Exit::Success
    })
}
