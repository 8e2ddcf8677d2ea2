//! Opening the session a command works on, and reporting on stderr what loading noticed.

use super::GlobalArgs;
use crate::session::{Session, locate};
use anyhow::Result;

/// Finds and loads the session named by `-s` (or the current directory's most recent).
pub fn open_session(global: &GlobalArgs) -> Result<Session> {
    let cwd = std::env::current_dir()?;
    let path = locate::find_session(global.session.as_deref(), &cwd)?;
    let session = Session::open(&path)?;
    warn_load_report(&session);
    Ok(session)
}

/// How much of the end of a file a tip command reads first, and the factor it grows by.
const TIP_FIRST_READ: u64 = 4 << 20;
pub const TIP_GROWTH: u64 = 4;

/// The first read of a tip command; `$PI_SESSION_TIP_BYTES` overrides it (the tests use a
/// tiny one to exercise reading further back).
pub fn tip_first_read() -> u64 {
    std::env::var("PI_SESSION_TIP_BYTES")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(TIP_FIRST_READ)
}

/// Whether an error only says that more of the file is needed.
pub fn needs_more(e: &anyhow::Error) -> bool {
    matches!(
        e.downcast_ref::<crate::session::SessionError>(),
        Some(crate::session::SessionError::NeedMore)
    )
}

/// For commands about where the conversation stands: reads the end of the session (and its
/// header), and only reads further back while `answer` says it needs more of the file
/// ([`crate::session::SessionError::NeedMore`]). The cost follows the answer, not the file.
pub fn open_tip<T>(global: &GlobalArgs, mut answer: impl FnMut(&Session) -> Result<T>) -> Result<(Session, T)> {
    let cwd = std::env::current_dir()?;
    let path = locate::find_session(global.session.as_deref(), &cwd)?;
    let mut tail = tip_first_read();
    loop {
        let session = Session::open_tail(&path, tail)?;
        if session.entries.is_empty() && !session.is_complete() {
            tail = tail.saturating_mul(TIP_GROWTH);
            continue;
        }
        match answer(&session) {
            Err(e) if needs_more(&e) && !session.is_complete() => tail = tail.saturating_mul(TIP_GROWTH),
            Err(e) => return Err(e),
            Ok(t) => {
                warn_load_report(&session);
                return Ok((session, t));
            }
        }
    }
}

/// One warning naming the lines Pi skips, with the way to fix them.
pub fn warn_load_report(session: &Session) {
    load_report(session, super::output::advise);
}

/// [`warn_load_report`] for a command that reads several sessions: the suggested command
/// names this one with `-s`.
pub fn warn_load_report_naming(session: &Session) {
    load_report(session, |t| super::output::advise_for(t, &session.path));
}

fn load_report(session: &Session, advise: impl Fn(&str) -> String) {
    let r = &session.report;
    if !r.malformed_lines.is_empty() && !session.is_complete() {
        let text = format!(
            "warning: {}: skipped {} unreadable line{} near the end, as Pi does; run `pi-session repair` to fix",
            session.path.display(),
            r.malformed_lines.len(),
            if r.malformed_lines.len() == 1 { "" } else { "s" },
        );
        eprintln!("{}", super::output::escape_line(&advise(&text)));
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
            session.path.display(),
            r.malformed_lines.len(),
            if r.malformed_lines.len() == 1 { "" } else { "s" },
            lines.join(", "),
        );
        eprintln!("{}", super::output::escape_line(&advise(&text)));
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
        eprintln!("{}", super::output::escape_line(&super::output::advise(&text)));
    }
}
