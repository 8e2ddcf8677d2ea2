//! Writing the new session of `clone` and `fork`, and reporting it.

use super::output::Output;
use crate::session::Session;
use crate::session::branch_copy::NewSession;
use crate::session::write::create_new_file;
use anyhow::Result;
use serde_json::json;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, clap::Args)]
pub struct NewSessionArgs {
    /// Write the new session here instead of beside the source (never replaces a file).
    #[arg(short = 'o', long = "output", value_name = "PATH")]
    pub output: Option<PathBuf>,

    /// Print {"path","parentSession","entries","message"} as one JSON line.
    #[arg(long)]
    pub json: bool,
}

/// Writes `new` (beside `source` unless `-o`), then prints its path, or the JSON summary.
pub fn write_and_report(
    source: &Session,
    new: &NewSession,
    args: &NewSessionArgs,
    message: Option<&str>,
    out: &mut Output,
) -> Result<()> {
    let path = match &args.output {
        Some(p) => p.clone(),
        None => source.path.parent().unwrap_or(Path::new(".")).join(new.file_name()),
    };
    create_new_file(&path, new.content.as_bytes())?;
    let path = crate::session::branch_copy::absolute(&path);
    if args.json {
        let v = json!({
            "path": path.to_string_lossy(),
            "parentSession": new.parent_session,
            "entries": new.entries,
            "message": message,
        });
        out.line(&v.to_string())?;
    } else {
        // Only the path, so `pi --session "$(pi-session fork REV)"` works. A path holding
        // control characters is escaped, like all text that could reach a terminal (as
        // `rev-parse` does with such ids); `--json` gives it exactly.
        out.line(&super::output::escape_line(&path.to_string_lossy()))?;
    }
    Ok(())
}
