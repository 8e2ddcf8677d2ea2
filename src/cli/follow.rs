//! `log --follow`: prints what `log` prints, then the entries Pi appends, as the library's
//! [`Follower`] reads them and its [`Tracker`] picks them; notices go to stderr. Ctrl-C
//! ends it with status 0: interrupting is how a follow ends, not a failure.

use super::GlobalArgs;
use super::log_view::{self, LogView};
use super::output::Output;
use super::session_arg::{RawLines, warn_load_report};
use anyhow::Result;
use pi_session::ops::log::LogQuery;
use pi_session::progress::Cancel;
use pi_session::session::io::follow::{Change, Follower, Moved, POLL, Restart, Tracker, Update, Wait, Watch};
use pi_session::session::io::locate;
use pi_session::session::{Session, SessionError};
use std::path::PathBuf;

/// What to follow and how to show it.
pub struct Follow<'a> {
    /// Every entry appended, not only those on `@`'s branch.
    pub all: bool,
    /// Wait for a session file that does not exist yet.
    pub wait: bool,
    pub view: LogView<'a>,
}

/// Prints what `log` prints (the entries `query` selects of the file as it is), then each
/// entry appended that passes the query's filters, until Ctrl-C.
pub fn run<'q>(
    global: &GlobalArgs,
    args: &Follow,
    query: impl FnOnce(&Session) -> Result<LogQuery<'q>>,
    out: &mut Output,
) -> Result<()> {
    let cancel = super::interrupt::cancel();
    let Some(path) = session_path(global, args, cancel)? else {
        return Ok(());
    };
    let mut watch = Watch::new(&path);
    let follower = if args.wait {
        Follower::open_when_present(&path, &mut watch, cancel)
    } else {
        Follower::open(&path).map(Some)
    };
    let Some(mut follower) = follower.map_err(|e| SessionError::io(&path, e))? else {
        return Ok(());
    };
    let io = |e| SessionError::io(&path, e);
    // The file as it is now: its complete lines (with --wait, once there is one).
    let mut first = lines_of(follower.read().map_err(io)?);
    while args.wait && first.is_empty() {
        match follower.next(&mut watch, cancel).map_err(io)? {
            Some(change) => first = lines_of(Some(change)),
            None => return Ok(()),
        }
    }
    let session = Session::from_bytes(path.clone(), first)?;
    warn_load_report(&session);
    let query = query(&session)?;
    let first = pi_session::ops::log::select(&session, &query)?;
    super::session_arg::warn_cycle(&session, first.cycle_at);
    log_view::print(out, &args.view, &session, &first.entries, first.at)?;
    out.flush()?;
    let mut tracker = Tracker::new(session, args.all);
    while let Some(change) = follower.next(&mut watch, cancel).map_err(io)? {
        let update = match change {
            Change::Appended(lines) => tracker.appended(&lines)?,
            Change::Restarted(why, lines) => {
                let what = match why {
                    Restart::Replaced => "replaced",
                    Restart::Truncated => "truncated",
                    Restart::Rewritten => "rewritten",
                };
                Output::say(&format!(
                    "{}: the file was {what}: read again from the start; entries already shown are not shown again",
                    path.display()
                ));
                let session = Session::from_bytes(path.clone(), lines)?;
                warn_load_report(&session);
                tracker.restarted(session)?
            }
        };
        print(out, &query, &args.view, &update)?;
        out.flush()?;
    }
    Ok(())
}

/// The file to follow. With --wait, a session not found yet is waited for: a path given
/// with -s is followed whether it exists or not; a session id or the current directory's
/// most recent session is looked for again every [`POLL`]. `None` when cancelled.
fn session_path(global: &GlobalArgs, args: &Follow, cancel: &Cancel) -> Result<Option<PathBuf>> {
    let cwd = std::env::current_dir()?;
    loop {
        match locate::find_session(global.session(), &cwd) {
            Ok(p) => {
                if !args.wait && !p.exists() {
                    // The usual error of a missing file.
                    Follower::open(&p).map_err(|e| SessionError::io(&p, e))?;
                }
                return Ok(Some(p));
            }
            Err(SessionError::NoSession(_)) if args.wait => {}
            Err(e) => return Err(e.into()),
        }
        if cancel.is_cancelled() {
            return Ok(None);
        }
        pi_session::session::io::follow::Watch::polling().wait(POLL);
    }
}

fn lines_of(change: Option<Change>) -> Vec<u8> {
    match change {
        Some(Change::Appended(lines) | Change::Restarted(_, lines)) => lines,
        None => Vec::new(),
    }
}

/// Prints an update: the notice of a move of `@` on stderr, then the entries as `log`
/// renders them.
fn print(out: &mut Output, query: &LogQuery, view: &LogView, update: &Update) -> Result<()> {
    match &update.moved {
        Some(Moved::To(id)) => Output::say(&format!("@ moved to branch of {id}")),
        Some(Moved::Empty) => Output::say("@ moved to an empty position: the next message starts a new root"),
        None => {}
    }
    let Some(session) = &update.shown else {
        return Ok(());
    };
    let mut raw = RawLines::default();
    for i in (0..session.entries.len()).filter(|&i| query.shows(session, i)) {
        // With --long, entries are set apart by a blank line, as `log --long` does (the
        // first part printed some, or nothing, which the blank line then marks off).
        log_view::print_one(out, view, session, i, update.at == Some(i), true, &mut raw)?;
    }
    raw.warn(session);
    Ok(())
}
