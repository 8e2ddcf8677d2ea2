use crate::cli::GlobalArgs;
use crate::cli::output::{Output, escape_line};
use crate::cli::session_arg::{open_session, warn_cycle};
use anyhow::Result;
use pi_session::ops::files::files;
use pi_session::session::revision;
use pi_session::usage::Scope;

/// The files the branch read, edited and wrote, each with the entry that touched it last.
///
/// Tracks files as Pi's compaction does: the `path` of `read`, `edit` and `write` tool calls
/// (also those nested in a tool result), and the `readFiles` / `modifiedFiles` a compaction
/// or branch summary recorded in its details (modified files count as edited). Files a bash
/// command touched are not listed: commands are not parsed, as Pi does not. One line per
/// file, sorted by path: how the last entry touched it (read, edited or written), that
/// entry's id, and the path.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The branch ending at this revision [default: @].
    #[arg(value_name = "REV", conflicts_with = "all")]
    pub rev: Option<String>,

    /// Every branch of the file, not only the branch of REV.
    #[arg(long)]
    pub all: bool,

    /// One JSON object per file (NDJSON): "path", "op" ("read", "edited" or "written": how
    /// the last entry touched it), "entryId" (that entry's id, or its line number when it has
    /// none) and "modified" (true when some entry edited or wrote it).
    #[arg(long)]
    pub json: bool,
}

pub fn run(global: &GlobalArgs, args: &Args, out: &mut Output) -> Result<()> {
    let session = open_session(global)?;
    let scope = if args.all {
        Scope::File
    } else {
        Scope::Branch(match &args.rev {
            Some(rev) => revision::resolve(&session, rev)?,
            None => session.at(),
        })
    };
    let (records, cycle_at) = files(&session, scope);
    warn_cycle(&session, cycle_at);
    for r in &records {
        if args.json {
            out.json(&serde_json::to_value(r)?)?;
        } else {
            out.line(&escape_line(&format!(
                "{:<7}  {}  {}",
                r.op.as_str(),
                r.entry_id,
                r.path
            )))?;
        }
    }
    Ok(())
}
