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

/// One warning naming the lines Pi skips, with the way to fix them.
pub fn warn_load_report(session: &Session) {
    let r = &session.report;
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
        eprintln!(
            "warning: {}: skipped {} unreadable line{} as Pi does: {}{torn}; run `pi-session repair` to fix",
            super::output::escape_line(&session.path.display().to_string()),
            r.malformed_lines.len(),
            if r.malformed_lines.len() == 1 { "" } else { "s" },
            lines.join(", "),
        );
    }
}

/// Warns that a walk met a parent cycle (Pi 1.6.0 would hang on it).
pub fn warn_cycle(session: &Session, at: Option<usize>) {
    if let Some(i) = at {
        eprintln!(
            "warning: parent cycle: entry {} (line {}) leads back into its own ancestors; the walk stops there \
             (Pi 1.6.0 hangs on this file); run `pi-session repair`",
            super::output::escape_line(&session.id_or_line(i)),
            session.entries[i].line
        );
    }
}
