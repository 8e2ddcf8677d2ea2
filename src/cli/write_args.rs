//! What every command that appends to a session shares: `--expect-leaf`, the lock, and
//! the warnings about a file Pi may have open.

use super::GlobalArgs;
use super::output::{Output, escape_line};
use super::session_arg::warn_load_report;
use anyhow::Result;
use pi_session::session::io::append::{Appended, SessionWriter};
use pi_session::session::io::tip;
use std::path::Path;

#[derive(Debug, Clone, clap::Args)]
pub struct WriteArgs {
    /// Write nothing, and exit with status 4, unless Pi's leaf (the last entry) is ID.
    #[arg(long, value_name = "ID")]
    pub expect_leaf: Option<String>,
}

/// Finds the session, locks it and loads it for appending, reading only as much of the end of the file as `answer` needs
/// (see [`super::session_arg::open_tip`]); the lock is held from the first read on.
/// With `dry_run`, the file is opened read-only under a shared lock: nothing can be written.
pub fn open_writer_tip<T>(
    global: &GlobalArgs,
    args: &WriteArgs,
    dry_run: bool,
    answer: impl FnMut(&pi_session::session::Session) -> Result<T>,
) -> Result<(SessionWriter, T)> {
    let path = super::session_arg::session_path(global)?;
    open_writer_tip_at(&path, args, dry_run, answer)
}

/// [`open_writer_tip`] of the session at `path`.
pub fn open_writer_tip_at<T>(
    path: &Path,
    args: &WriteArgs,
    dry_run: bool,
    mut answer: impl FnMut(&pi_session::session::Session) -> Result<T>,
) -> Result<(SessionWriter, T)> {
    let path = path.to_path_buf();
    let (writer, t) = tip::read_tip(
        super::session_arg::tip_first_read(),
        |tail| {
            if dry_run {
                SessionWriter::open_tail_dry_run(&path, tail)
            } else {
                SessionWriter::open_tail(&path, tail)
            }
        },
        |writer: &SessionWriter| {
            writer
                .expect_leaf(args.expect_leaf.as_deref())
                .map_err(anyhow::Error::from)
                .and_then(|()| answer(&writer.session))
        },
        super::session_arg::needs_more,
    )?;
    warn_load_report(&writer.session);
    Ok((writer, t))
}

/// Locks the session for a summary planned on an earlier read, refusing when Pi's leaf
/// moved while the model wrote ([`SessionWriter::open_if_leaf`]).
pub fn reopen_for_summary(path: &Path, planned_leaf: Option<&str>) -> Result<SessionWriter> {
    SessionWriter::open_if_leaf(path, planned_leaf).map_err(|e| {
        anyhow::Error::from(e).context("the session changed while the summary was being written; nothing written")
    })
}

/// Appends one line and says on stderr what a user should know about it.
pub fn append(writer: &mut SessionWriter, line: &str) -> Result<()> {
    append_lines(writer, &[line])
}

/// Appends entry lines with one write, and says on stderr what a user should know about it.
/// The file's modification time then marks the append as pi-session's own, so the next
/// write warns only if something else changed the file since (see
/// [`SessionWriter::recently_changed_by_another`]).
pub fn append_lines(writer: &mut SessionWriter, lines: &[&str]) -> Result<()> {
    let recent = writer.recently_changed_by_another();
    let Appended { terminated_torn_line } = writer.append_line(&lines.join("\n"))?;
    if let Some(ts) = lines
        .last()
        .and_then(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .and_then(|v| v.get("timestamp")?.as_str().map(str::to_owned))
    {
        writer.stamp_own_write(&ts);
    }
    if terminated_torn_line {
        Output::note("the file ended in an unfinished line; it was terminated first (as Pi does), its bytes kept");
    }
    if recent {
        Output::warn(&format!(
            "{} changed in the last few seconds: if Pi has this session open, it keeps its own position \
             and will not see this change until the session is reopened",
            super::output::escape_line(&writer.session.path.display().to_string())
        ));
    }
    Ok(())
}

/// What `--dry-run` prints instead of appending: each line that would be appended, on
/// stdout (exactly into a pipe, escaped on a terminal), and a note on stderr.
pub fn show_dry_run(out: &mut Output, path: &Path, lines: &[&str]) -> Result<()> {
    for l in lines {
        let shown = if out.is_terminal {
            escape_line(l)
        } else {
            (*l).to_owned()
        };
        out.line(&format!("would append: {shown}"))?;
    }
    Output::say(&format!(
        "dry run: nothing written to {}",
        escape_line(&path.display().to_string())
    ));
    Ok(())
}
