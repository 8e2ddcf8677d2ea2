//! Writing the new session of `clone` and `fork`, and reporting it.

use super::output::Output;
use anyhow::Result;
use pi_session::session::Session;
use pi_session::session::branch_copy::NewSession;
use pi_session::session::io::write::write_file;
use serde_json::json;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, clap::Args)]
pub struct NewSessionArgs {
    /// Write the new session here instead of beside the source; `-` prints it on stdout.
    /// An existing file is never replaced without --force.
    #[arg(short = 'o', long = "output", value_name = "PATH")]
    pub output: Option<PathBuf>,

    /// Replace the -o file if it exists (atomically: the new file is renamed over it).
    #[arg(long, short = 'f')]
    pub force: bool,

    /// Print the path and line count of the file that would be written, and write nothing.
    #[arg(long)]
    pub dry_run: bool,

    /// Print {"path","parentSession","entries","message"} as one JSON line (with --dry-run,
    /// also "lines" and "dryRun").
    #[arg(long)]
    pub json: bool,
}

/// Whether `-o` names stdout.
fn to_stdout(output: Option<&Path>) -> bool {
    output.is_some_and(|p| p.as_os_str() == "-")
}

/// Refuses option combinations that cannot work (before anything is read).
pub fn check_args(args: &NewSessionArgs) -> Result<()> {
    if to_stdout(args.output.as_deref()) && args.json {
        return Err(crate::cli::exit::CommandError::usage(
            "--json reports a new file, but with -o - the session itself goes to stdout",
            "drop --json, or give -o a file name",
        ));
    }
    Ok(())
}

/// Writes `new` (beside `source` unless `-o`), then prints its path, or the JSON summary;
/// with `-o -`, prints the session itself; with `--dry-run`, only says what it would write.
pub fn write_and_report(
    source: &Session,
    new: &NewSession,
    args: &NewSessionArgs,
    message: Option<&str>,
    out: &mut Output,
) -> Result<()> {
    check_args(args)?;
    let lines = new.content.matches('\n').count();
    if to_stdout(args.output.as_deref()) {
        if args.dry_run {
            out.line(&format!("would print {lines} lines on stdout"))?;
            Output::say("dry run: nothing written");
            return Ok(());
        }
        // The session's own bytes, for a pipe or a redirect; a terminal gets them escaped.
        let text = new.content.strip_suffix('\n').unwrap_or(&new.content);
        if out.is_terminal {
            out.line(&super::output::escape_block(text))?;
        } else {
            out.raw_line(text.as_bytes())?;
        }
        return Ok(());
    }
    let path = match &args.output {
        Some(p) => p.clone(),
        None => source.path.parent().unwrap_or(Path::new(".")).join(new.file_name()),
    };
    let exists = std::fs::symlink_metadata(&path).is_ok();
    if args.dry_run {
        if exists && !args.force {
            return Err(pi_session::session::SessionError::Exists { path }.into());
        }
    } else {
        write_file(&path, new.content.as_bytes(), args.force)?;
    }
    let path = pi_session::session::branch_copy::absolute(&path);
    if args.json {
        let mut v = json!({
            "path": path.to_string_lossy(),
            "parentSession": new.parent_session,
            "entries": new.entries,
            "message": message,
        });
        if args.dry_run {
            v["lines"] = lines.into();
            v["dryRun"] = true.into();
        }
        out.json(&v)?;
    } else if args.dry_run {
        let verb = if exists { "replace" } else { "create" };
        let shown = shown_path(out.is_terminal, &path);
        let mut line = format!("would {verb} ").into_bytes();
        line.extend_from_slice(&shown);
        line.extend_from_slice(format!(" ({lines} lines)").as_bytes());
        out.raw_line(&line)?;
    } else {
        // Only the path, so `pi --session "$(pi-session fork REV)"` works.
        out.raw_line(&shown_path(out.is_terminal, &path))?;
    }
    if args.dry_run {
        Output::say("dry run: nothing written");
    } else {
        note_new_default(source, &path);
    }
    Ok(())
}

/// Says so when the new file is now the session commands run here without `-s` read (the
/// most recent of the directory): the next `checkout` would otherwise look in the copy.
fn note_new_default(source: &Session, new: &Path) {
    let same = |a: &Path, b: &Path| match (std::fs::canonicalize(a), std::fs::canonicalize(b)) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    };
    let default = std::env::current_dir()
        .ok()
        .and_then(|cwd| pi_session::session::io::locate::find_session(None, &cwd).ok());
    if default.is_some_and(|d| same(&d, new)) {
        Output::note(&format!(
            "commands run here without -s now use the new session {} (the most recent of this directory); \
             -s {} reads the original",
            new.display(),
            super::output::shell_quote(&source.path.to_string_lossy())
        ));
    }
}

/// A path as printed: exactly (its bytes) into a pipe, so scripts get a path that exists;
/// on a terminal with control characters escaped, like all text that could reach one
/// (`--json` gives it exactly too).
fn shown_path(terminal: bool, path: &Path) -> Vec<u8> {
    if terminal {
        return super::output::escape_line(&path.to_string_lossy()).into_bytes();
    }
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        path.as_os_str().as_bytes().to_vec()
    }
    #[cfg(not(unix))]
    {
        path.to_string_lossy().into_owned().into_bytes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_are_escaped_only_for_a_terminal() {
        let p = Path::new("/tmp/a\tb/\x1b[31mc.jsonl");
        assert_eq!(shown_path(true, p), b"/tmp/a\\tb/\\e[31mc.jsonl");
        assert_eq!(shown_path(false, p), b"/tmp/a\tb/\x1b[31mc.jsonl");
    }
}
