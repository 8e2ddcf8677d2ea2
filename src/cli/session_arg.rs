//! Opening the session a command works on, and reporting on stderr what loading noticed.

use super::GlobalArgs;
use crate::cli::output::Output;
use anyhow::Result;
use pi_session::session::io::locate::{self, Locations};
use pi_session::session::io::tip;
use pi_session::session::{LoadReport, Session, SessionError};
use std::path::{Path, PathBuf};

/// The session file a command without `-s` chose (see [`implicit_session`]).
static IMPLICIT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();

/// The session file this run chose itself, when `-s` named none: an error about a revision
/// names it, as nobody else did.
pub fn implicit_session() -> Option<&'static Path> {
    IMPLICIT.get().map(PathBuf::as_path)
}

/// The file `-s` names, else the current directory's most recent session (remembered for
/// [`implicit_session`]). Finding none from a subdirectory of a project that has sessions
/// says so: Pi looks only in the exact working directory, and so does this.
pub fn session_path(global: &GlobalArgs) -> Result<PathBuf> {
    let cwd = std::env::current_dir()?;
    if let Some(arg) = global.session() {
        return Ok(locate::find_session(Some(arg), &cwd)?);
    }
    let loc = Locations::discover(&cwd);
    match loc.find_session(None) {
        Ok(path) => {
            let _ = IMPLICIT.set(path.clone());
            Ok(path)
        }
        Err(e @ SessionError::NoSession(_)) => match loc.nearest_parent_with_sessions() {
            Some((dir, n)) => Err(crate::cli::exit::CommandError::refused(
                format!("{e}; {} above has {}", dir.display(), sessions_count(n)),
                format!(
                    "Pi looks for sessions only in the exact directory it runs in: run there (`cd {}`), or name one \
                     with -s (`pi-session ls --all` lists every session with its id)",
                    crate::cli::output::shell_quote(&dir.to_string_lossy())
                ),
            )),
            None => Err(e.into()),
        },
        Err(e) => Err(e.into()),
    }
}

fn sessions_count(n: usize) -> String {
    format!("{n} session{}", if n == 1 { "" } else { "s" })
}

/// Says on stderr where `ls` looked when it found no session (an empty listing is still an
/// answer, so `ls` goes on to succeed), and which parent directory has sessions, if one does.
pub fn say_none_found(loc: &Locations, all: bool) {
    let root = loc.root();
    let missing = if root.is_dir() { "" } else { ", which does not exist" };
    if all {
        Output::note(&format!("no Pi sessions found in {}{missing}", root.display()));
        return;
    }
    let here = loc.here();
    let missing = if here.path.is_dir() {
        ""
    } else {
        ", which does not exist"
    };
    // A folder all projects share holds this directory's sessions among others'.
    let shared = if here.filter_cwd.is_some() {
        ", for sessions whose header names this directory"
    } else {
        ""
    };
    Output::note(&format!(
        "no Pi sessions for {} (looked in {}{missing}{shared})",
        loc.cwd.display(),
        here.path.display()
    ));
    if let Some((dir, n)) = loc.nearest_parent_with_sessions() {
        Output::note(&format!(
            "{} above has {}; Pi looks only in the exact directory it runs in: `cd` there, or `pi-session ls --all`",
            dir.display(),
            sessions_count(n)
        ));
    }
}

/// Finds and loads the session named by `-s` (or the current directory's most recent).
pub fn open_session(global: &GlobalArgs) -> Result<Session> {
    let path = session_path(global)?;
    let session = Session::open(&path)?;
    warn_load_report(&session);
    Ok(session)
}

/// The sessions a command over several takes: every session of every project with `all`,
/// else those `named` (files or ids) and those `-s` names, else the most recent session of
/// the current directory.
pub fn sessions_named(global: &GlobalArgs, all: bool, named: &[String]) -> Result<Vec<std::path::PathBuf>> {
    let cwd = std::env::current_dir()?;
    if all {
        return Ok(locate::Locations::discover(&cwd).all_files());
    }
    let named: Vec<&String> = named.iter().chain(&global.sessions).collect();
    if named.is_empty() {
        return Ok(vec![session_path(global)?]);
    }
    named
        .into_iter()
        .map(|s| Ok(locate::find_session(Some(s), &cwd)?))
        .collect()
}

/// [`sessions_named`], where `all` is the current project's sessions (the working
/// directory's, as `ls` lists them) rather than every project's.
pub fn project_sessions_named(global: &GlobalArgs, all: bool, named: &[String]) -> Result<Vec<std::path::PathBuf>> {
    if !all {
        return sessions_named(global, false, named);
    }
    let cwd = std::env::current_dir()?;
    let here = locate::Locations::discover(&cwd).sessions_here();
    Ok(here.into_iter().map(|(path, _)| path).collect())
}

/// [`open_session`], with the credentials the rules find taken out of what is read when
/// `redact` is set (for `export --redact` and `clone --redact`: what they write is clean,
/// the file is untouched).
pub fn open_session_redacted(global: &GlobalArgs, redact: bool) -> Result<Session> {
    if !redact {
        return open_session(global);
    }
    let rules = crate::cli::secret_rules::rule_set(&crate::cli::secret_rules::RuleArgs {
        config: None,
        no_own_keys: false,
    })?;
    let path = session_path(global)?;
    let data = pi_session::session::io::data::Data::open(&path)
        .map_err(|e| pi_session::session::SessionError::io(&path, e))?;
    let session = match pi_session::secrets::redact::redacted_bytes(&data, &rules) {
        Some(clean) => Session::from_data(path, pi_session::session::io::data::Data::Owned(clean))?,
        None => Session::from_data(path, data)?,
    };
    warn_load_report(&session);
    Ok(session)
}

/// The first read of a tip command ([`pi_session::session::io::tip::FIRST_READ`]);
/// `$PI_SESSION_TIP_BYTES` overrides it (the tests use a tiny one to exercise reading
/// further back).
pub fn tip_first_read() -> u64 {
    std::env::var("PI_SESSION_TIP_BYTES")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(tip::FIRST_READ)
}

/// Whether an error only says that more of the file is needed.
pub fn needs_more(e: &anyhow::Error) -> bool {
    e.downcast_ref::<pi_session::session::SessionError>()
        .is_some_and(tip::needs_more)
}

/// For commands about where the conversation stands: reads the end of the session (and its
/// header), and only reads further back while `answer` says it needs more of the file
/// ([`pi_session::session::SessionError::NeedMore`]): see [`tip::read_tip`].
pub fn open_tip<T>(global: &GlobalArgs, answer: impl FnMut(&Session) -> Result<T>) -> Result<(Session, T)> {
    let path = session_path(global)?;
    let (session, t) = tip::read_tip(
        tip_first_read(),
        |tail| Session::open_tail(&path, tail),
        answer,
        needs_more,
    )?;
    warn_load_report(&session);
    Ok((session, t))
}

/// One warning naming the lines Pi skips, with the way to fix them.
pub fn warn_load_report(session: &Session) {
    warn_damaged(
        &session.path,
        &session.report,
        session.is_complete(),
        super::output::advise,
    );
}

/// [`warn_load_report`] for a command that reads several sessions: the suggested command
/// names this one with `-s`.
pub fn warn_load_report_naming(session: &Session) {
    warn_damaged(&session.path, &session.report, session.is_complete(), |t| {
        super::output::advise_for(t, &session.path)
    });
}

/// Warns of the lines of the file at `path` that were skipped as Pi skips them
/// (`complete`: the whole file was read, not only its end).
pub fn warn_damaged(path: &std::path::Path, r: &LoadReport, complete: bool, advise: impl Fn(&str) -> String) {
    if !r.malformed_lines.is_empty() && !complete {
        let text = format!(
            "warning: {}: skipped {} unreadable line{} near the end, as Pi does; run `pi-session repair` to fix",
            path.display(),
            r.malformed_lines.len(),
            if r.malformed_lines.len() == 1 { "" } else { "s" },
        );
        Output::say(&advise(&text));
        return;
    }
    if !r.malformed_lines.is_empty() {
        let mut lines: Vec<String> = r.malformed_lines.iter().take(10).map(u32::to_string).collect();
        if r.malformed_lines.len() > 10 {
            lines.push(format!("… ({} in all)", r.malformed_lines.len()));
        }
        let torn = if r.torn_last_line {
            " (the last one is torn: no newline)"
        } else {
            ""
        };
        let text = format!(
            "warning: {}: skipped {} unreadable line{} as Pi does: {}{torn}; run `pi-session repair` to fix",
            path.display(),
            r.malformed_lines.len(),
            if r.malformed_lines.len() == 1 { "" } else { "s" },
            lines.join(", "),
        );
        Output::say(&advise(&text));
    }
}

/// Warns that a walk met a parent cycle (Pi 1.6.0 would hang on it).
pub fn warn_cycle(session: &Session, at: Option<usize>) {
    if let Some(i) = at {
        let text = format!(
            "warning: parent cycle: entry {} (line {}) leads back into its own ancestors; the walk stops there \
             (Pi 1.6.0 hangs on this file); run `pi-session repair`",
            session.id_or_line(i),
            session.entries[i].line
        );
        Output::diagnostic(&text);
    }
}

/// Prints original lines of a session (`--json`): byte for byte when they are UTF-8; a line
/// with invalid UTF-8 is printed as Pi reads it (each invalid sequence as U+FFFD), so that the
/// output stays JSON, and [`RawLines::warn`] says so once.
pub struct RawLines {
    /// Where each line printed with replacements was (`line N` or `byte N`).
    replaced: Vec<String>,
    /// Whether the whole file is UTF-8 (checked once, on the first line printed), so that
    /// lines need no check of their own.
    file_is_utf8: Option<bool>,
    /// Lines printed, and the lowest and highest entry printed since pages were last given
    /// back.
    printed: usize,
    since_release: (usize, usize),
}

impl Default for RawLines {
    fn default() -> RawLines {
        RawLines {
            replaced: Vec::new(),
            file_is_utf8: None,
            printed: 0,
            since_release: (usize::MAX, 0),
        }
    }
}

impl RawLines {
    pub fn print(&mut self, out: &mut super::output::Output, session: &Session, idx: usize) -> std::io::Result<()> {
        // The lines printed are given back every so many (large files only), in whichever
        // order they come.
        self.printed += 1;
        self.since_release = (self.since_release.0.min(idx), self.since_release.1.max(idx));
        if self.printed.is_multiple_of(4096) {
            let (lo, hi) = std::mem::replace(&mut self.since_release, (usize::MAX, 0));
            session.release_entries(lo..hi + 1);
        }
        let bytes = session.raw(idx);
        let file_is_utf8 = *self.file_is_utf8.get_or_insert_with(|| session.is_valid_utf8());
        if file_is_utf8 || simdutf8::basic::from_utf8(bytes).is_ok() {
            return out.raw_line(bytes);
        }
        let at = session.line_label(idx);
        if !self.replaced.contains(&at) {
            self.replaced.push(at);
        }
        out.line(&String::from_utf8_lossy(bytes))
    }

    /// One warning naming the lines printed with U+FFFD, if any.
    pub fn warn(&self, session: &Session) {
        let n = self.replaced.len();
        if n == 0 {
            return;
        }
        let mut at: Vec<&str> = self.replaced.iter().take(10).map(String::as_str).collect();
        let more = format!("… ({n} in all)");
        if n > 10 {
            at.push(&more);
        }
        Output::warn(&format!(
            "{}: {} not valid UTF-8 ({}): printed as Pi reads {}, each invalid byte sequence as U+FFFD",
            super::output::escape_line(&session.path.display().to_string()),
            if n == 1 {
                "a line is".to_owned()
            } else {
                format!("{n} lines are")
            },
            at.join(", "),
            if n == 1 { "it" } else { "them" }
        ));
    }
}
