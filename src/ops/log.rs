//! Which entries `log` shows: a branch (newest first) or the whole file in append order,
//! narrowed by type, role and date, and cut to a count. [`select`] works on a whole file or
//! on its end: it answers [`SessionError::NeedMore`] when the part read cannot tell, so a
//! caller reading from the end reads further back (see [`crate::session::io::tip`]).

use crate::dates::When;
use crate::session::{EntryIdx, Session, SessionError, revision};

/// What a `log` run asks for.
#[derive(Debug, Default)]
pub struct LogQuery<'a> {
    /// The branch ending here (`None`: `@`); ignored with `all`.
    pub rev: Option<&'a str>,
    /// Every entry of the file in append order.
    pub all: bool,
    /// With `all`: only entries appended after the entry with this id.
    pub after: Option<&'a str>,
    /// Only entries of these types (none: every type).
    pub types: &'a [String],
    /// Only messages with these roles (none: every entry).
    pub roles: &'a [String],
    /// Only entries whose timestamp is at or after this (ms since the epoch).
    pub since_ms: Option<i64>,
    /// Only entries whose timestamp is at or before this.
    pub until_ms: Option<i64>,
    /// At most this many entries.
    pub max_count: Option<usize>,
    /// Oldest first.
    pub reverse: bool,
}

/// What [`select`] found.
#[derive(Debug)]
pub struct Selection {
    /// The entries to show, in the order to show them.
    pub entries: Vec<EntryIdx>,
    /// `@`.
    pub at: Option<EntryIdx>,
    /// Where the branch walk met a parent cycle (for a warning).
    pub cycle_at: Option<EntryIdx>,
}

impl LogQuery<'_> {
    /// Whether entry `i` passes the type, role and date filters.
    pub fn shows(&self, session: &Session, i: EntryIdx) -> bool {
        let e = &session.entries[i];
        (self.types.is_empty() || e.kind.as_str().is_some_and(|t| self.types.iter().any(|w| w == t)))
            && (self.roles.is_empty() || e.role().is_some_and(|r| self.roles.iter().any(|w| w == r.as_str())))
            && (self.since_ms.is_none() && self.until_ms.is_none() || {
                session
                    .timestamp_ms(i)
                    .is_some_and(|ms| self.since_ms.is_none_or(|s| ms >= s) && self.until_ms.is_none_or(|u| ms <= u))
            })
    }
}

/// The entries `query` shows in `session`.
pub fn select(session: &Session, query: &LogQuery) -> Result<Selection, SessionError> {
    let at = session.at_checked()?;
    let (path, cycle_at) = if query.all {
        let from = match query.after {
            Some(id) => {
                session
                    .lookup(id)
                    .map_or_else(|| revision::resolve_entry(session, id), Ok)?
                    + 1
            }
            None => 0,
        };
        ((from..session.entries.len()).collect(), None)
    } else {
        let tip = match query.rev {
            Some(rev) => revision::resolve(session, rev)?,
            None => at,
        };
        let Some(tip) = tip else {
            return Ok(Selection {
                entries: Vec::new(),
                at,
                cycle_at: None,
            });
        };
        let branch = session.branch(tip);
        let mut path = branch.path.clone();
        path.reverse(); // newest first
        // Read from the end: enough when the entries to show were all read.
        let shown = path.iter().filter(|&&i| query.shows(session, i)).count();
        if query.max_count.is_none_or(|n| shown < n) {
            session.check_edge(&branch)?;
        }
        (path, branch.cycle_at)
    };
    let mut entries: Vec<EntryIdx> = path.into_iter().filter(|&i| query.shows(session, i)).collect();
    if let Some(n) = query.max_count {
        entries.truncate(n);
    }
    if query.reverse {
        entries.reverse();
    }
    Ok(Selection { entries, at, cycle_at })
}

/// What `--since` names: a date, or (deprecated, with `all` only) the entry to start after.
#[derive(Debug, PartialEq, Eq)]
pub enum Since<'a> {
    /// From this instant on (ms since the epoch).
    From(i64),
    /// The entries appended after this entry.
    After(&'a str),
    /// Neither a date nor (with `all`) an entry.
    Neither,
}

impl<'a> Since<'a> {
    /// Reads `since`: an entry's exact id first (with `all`: a cursor that happens to read as a
    /// date, `20261130`, keeps working), then a date, then any revision naming an entry.
    /// `session` is needed only with `all`, the one place an id was taken.
    pub fn read(
        since: &'a str,
        all: bool,
        session: Option<&Session>,
        now: jiff::Timestamp,
        zone: &jiff::tz::TimeZone,
    ) -> Since<'a> {
        let names_entry = |exact: bool| {
            all && session
                .is_some_and(|s| s.lookup(since).is_some() || (!exact && revision::resolve_entry(s, since).is_ok()))
        };
        if names_entry(true) {
            Since::After(since)
        } else if let Some(when) = When::parse(since) {
            Since::From(when.first_ms(now, zone))
        } else if names_entry(false) {
            Since::After(since)
        } else {
            Since::Neither
        }
    }
}
