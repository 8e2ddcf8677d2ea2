use crate::cli::GlobalArgs;
use crate::cli::exit::Exit;
use crate::cli::output::{Output, escape_line};
use crate::cli::progress::{Terminal, while_doing};
use crate::cli::session_arg::sessions_named;
use anyhow::{Result, bail};
use pi_session::human::amounts::bytes as size;
use pi_session::ops::slim::{self, DEFAULT_MAX_OUTPUT, Kind, Moved, Options, Outcome};
use std::io::IsTerminal;
use std::path::Path;

/// Move the heavy payloads the model no longer sees out of session files, in place.
///
/// Takes inline images (of user messages, tool results and custom messages) and tool
/// outputs longer than --max-output from the entries the context at @ no longer carries:
/// branches off @'s, and history a compaction replaced. Each is replaced by a short text
/// block saying what was there, how big, and where it went; every other byte stays, so
/// ids, the tree, labels, @ and what the model sees (`context --json`) are as they were,
/// and Pi opens the file without rewriting it. A second run finds nothing to do.
///
/// What is moved is kept, byte for byte, in FILE.slim/<sha256> beside the session:
/// --restore puts it back, giving the original file again; --drop deletes it for good.
///
/// Written as `repair` writes: under the file's lock, to a temp file renamed over the
/// original (kept as FILE.bak unless --no-backup: delete it to get the space back), lines
/// Pi appends meanwhile carried over. A file changed in the last few seconds is refused
/// (Pi may have it open) unless --force.
///
/// Exit status: 0 done (or nothing to do), 1 a file could not be slimmed or restored,
/// 2 usage error.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Session files or ids [default: the sessions -s names (repeatable), else the most
    /// recent session of the current directory].
    #[arg(value_name = "FILE|ID")]
    pub files: Vec<String>,

    /// Every session of every project.
    #[arg(long, conflicts_with = "files")]
    pub all: bool,

    /// Show what would be moved (or put back), per kind; write nothing.
    #[arg(long)]
    pub dry_run: bool,

    /// Move tool outputs longer than SIZE bytes (K, M, G: 1024s) [default: 64K].
    #[arg(long, value_name = "SIZE", value_parser = parse_size)]
    pub max_output: Option<usize>,

    /// Also move the images still in the context at @: the model then sees the
    /// placeholder's text instead (for a session too heavy to resume otherwise).
    #[arg(long, conflicts_with_all = ["restore", "drop"])]
    pub in_context: bool,

    /// Put back what an earlier slim moved out, from FILE.slim/.
    #[arg(long, conflicts_with = "drop")]
    pub restore: bool,

    /// Delete what earlier slims moved out (FILE.slim/): it cannot be put back then. Asks
    /// first on a terminal.
    #[arg(long)]
    pub drop: bool,

    /// With --drop: do not ask.
    #[arg(long, short = 'y', requires = "drop")]
    pub yes: bool,

    /// Rewrite a file even if it changed in the last few seconds.
    #[arg(long)]
    pub force: bool,

    /// Keep no backup of the original.
    #[arg(long)]
    pub no_backup: bool,

    /// One JSON object per payload {"session", "line", "id", "kind" (image, output),
    /// "bytes", "saved", "sha256", "inContext"}, then one per file: {"session", "result"
    /// (clean, would-slim, slimmed, would-restore, restored, dropped, failed), "moved",
    /// "saved", "store", "backup", "carriedLines", "missing", "error"}.
    #[arg(long)]
    pub json: bool,
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct PayloadRecord<'a> {
    session: &'a str,
    #[serde(flatten)]
    moved: &'a Moved,
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct FileRecord<'a> {
    session: &'a str,
    result: &'a str,
    moved: usize,
    saved: u64,
    store: Option<String>,
    backup: Option<String>,
    carried_lines: usize,
    missing: &'a [String],
    error: Option<String>,
}

/// `64K`, `1M`, `65536`: bytes, in 1024s.
fn parse_size(s: &str) -> Result<usize, String> {
    let t = s.trim();
    let t = t.strip_suffix("iB").or_else(|| t.strip_suffix('B')).unwrap_or(t);
    let (digits, unit) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => (&t[..i], c.to_ascii_uppercase()),
        _ => (t, ' '),
    };
    let shift = match unit {
        ' ' => 0,
        'K' => 10,
        'M' => 20,
        'G' => 30,
        _ => return Err(format!("{s:?}: not a size (say 65536, 64K or 1M)")),
    };
    let n: usize = digits
        .trim()
        .parse()
        .map_err(|_| format!("{s:?}: not a size (say 65536, 64K or 1M)"))?;
    n.checked_mul(1 << shift).ok_or_else(|| format!("{s:?}: too large"))
}

pub fn run(global: &GlobalArgs, args: &Args, out: &mut Output) -> Result<Exit> {
    let files = sessions_named(global, args.all, &args.files)?;
    if args.drop {
        return drop_stores(&files, args, out);
    }
    let opts = Options {
        max_output: args.max_output.unwrap_or(DEFAULT_MAX_OUTPUT),
        in_context: args.in_context,
        dry_run: args.dry_run,
        force: args.force,
        keep_backup: !args.no_backup,
    };
    let mut failed = false;
    let progress = Terminal::when(!args.json);
    for path in &files {
        let shown = path.to_string_lossy();
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        let what = format!("{} {name}", if args.restore { "restoring" } else { "slimming" });
        let outcome = while_doing(&progress, &what, || {
            if args.restore {
                slim::restore_file(path, args.dry_run, args.force, !args.no_backup)
            } else {
                slim::slim_file(path, &opts)
            }
        })
        .map_err(|e| format!("{:#}", anyhow::Error::new(e)));
        let result = match &outcome {
            Err(_) => "failed",
            Ok(o) if o.moved.is_empty() => "clean",
            Ok(o) if !o.written => ["would-slim", "would-restore"][usize::from(args.restore)],
            Ok(_) => ["slimmed", "restored"][usize::from(args.restore)],
        };
        failed |= outcome.as_ref().map_or(true, |o| !o.missing.is_empty());
        if args.json {
            for moved in outcome.iter().flat_map(|o| &o.moved) {
                out.json(&serde_json::to_value(PayloadRecord { session: &shown, moved })?)?;
            }
            let o = outcome.as_ref().ok();
            out.json(&serde_json::to_value(FileRecord {
                session: &shown,
                result,
                moved: o.map_or(0, |o| o.moved.len()),
                saved: o.map_or(0, |o| o.moved.iter().map(|m| m.saved).sum()),
                store: o.map(|o| o.store.to_string_lossy().into_owned()),
                backup: o
                    .and_then(|o| o.backup.as_ref())
                    .map(|b| b.to_string_lossy().into_owned()),
                carried_lines: o.map_or(0, |o| o.carried_lines),
                missing: o.map_or(&[], |o| &o.missing),
                error: outcome.as_ref().err().cloned(),
            })?)?;
            continue;
        }
        match &outcome {
            Err(e) => Output::error(&format!("{}: {e}", escape_line(&shown))),
            Ok(o) => say(out, &escape_line(&shown), o, result)?,
        }
    }
    Ok(if failed { Exit::Failure } else { Exit::Success })
}

fn say(out: &mut Output, shown: &str, o: &Outcome, result: &str) -> Result<()> {
    if o.moved.is_empty() && o.missing.is_empty() {
        out.line(&format!("{shown}: nothing to move"))?;
        return Ok(());
    }
    let restore = result.ends_with("restore") || result == "restored";
    for (kind, label) in [(Kind::Image, "image"), (Kind::Output, "tool output")] {
        let of: Vec<&Moved> = o.moved.iter().filter(|m| m.kind == kind).collect();
        if of.is_empty() {
            continue;
        }
        let bytes: u64 = of.iter().map(|m| m.bytes).sum();
        let saved: u64 = of.iter().map(|m| m.saved).sum();
        let verb = match result {
            "would-slim" => "would move",
            "slimmed" => "moved",
            "would-restore" => "would put back",
            _ => "put back",
        };
        let in_context = of.iter().filter(|m| m.in_context).count();
        let note = if in_context > 0 {
            format!(", {in_context} of them in the context at @")
        } else {
            String::new()
        };
        let change = if restore { "file grows by" } else { "file shrinks by" };
        out.line(&format!(
            "{shown}: {verb} {} {label}(s), {} ({change} {}){note}",
            of.len(),
            size(bytes as usize),
            size(saved as usize)
        ))?;
    }
    if !o.missing.is_empty() {
        Output::error(&format!(
            "{shown}: {} placeholder(s) name a payload that is not in {} (dropped?): left as they are",
            o.missing.len(),
            escape_line(&o.store.to_string_lossy())
        ));
    }
    if !o.written {
        if result.starts_with("would") {
            Output::say("dry run: nothing written");
        }
        return Ok(());
    }
    if !restore {
        Output::note(&format!(
            "kept in {}: `slim --restore` puts it back",
            escape_line(&o.store.to_string_lossy())
        ));
    }
    if let Some(b) = &o.backup {
        Output::note(&format!(
            "the original is kept in {}: delete it once you have checked the result",
            escape_line(&b.to_string_lossy())
        ));
    }
    if o.carried_lines > 0 {
        Output::warn(&format!(
            "{shown}: {} line(s) were appended meanwhile and carried over as they were; run slim again to take them too",
            o.carried_lines
        ));
    }
    Ok(())
}

/// `--drop`: deletes the stores, after asking on a terminal.
fn drop_stores(files: &[std::path::PathBuf], args: &Args, out: &mut Output) -> Result<Exit> {
    for path in files {
        let shown = escape_line(&path.to_string_lossy());
        let (n, bytes) = slim::store_size(path)?;
        if n == 0 {
            out.line(&format!("{shown}: nothing kept"))?;
            continue;
        }
        if args.dry_run {
            out.line(&format!(
                "{shown}: would delete {n} payload(s), {}",
                size(bytes as usize)
            ))?;
            continue;
        }
        if !args.yes && !confirm(path, n, bytes)? {
            out.line(&format!("{shown}: kept"))?;
            continue;
        }
        let (n, bytes) = slim::drop_store(path)?;
        if args.json {
            out.json(&serde_json::json!({"session": path.to_string_lossy(), "result": "dropped", "moved": n, "saved": bytes}))?;
        } else {
            out.line(&format!("{shown}: deleted {n} payload(s), {}", size(bytes as usize)))?;
        }
    }
    Ok(Exit::Success)
}

fn confirm(path: &Path, n: usize, bytes: u64) -> Result<bool> {
    if !std::io::stdin().is_terminal() {
        bail!("--drop deletes what slim moved out for good: pass --yes to do it without a terminal to ask on");
    }
    eprint!(
        "delete the {n} payload(s) ({}) slim moved out of {}? They cannot be put back. [y/N] ",
        size(bytes as usize),
        escape_line(&path.to_string_lossy())
    );
    let mut answer = String::new();
    std::io::stdin().read_line(&mut answer)?;
    Ok(matches!(answer.trim(), "y" | "Y" | "yes"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn sizes() {
        assert_eq!(super::parse_size("65536"), Ok(65536));
        assert_eq!(super::parse_size("64K"), Ok(65536));
        assert_eq!(super::parse_size("1MiB"), Ok(1 << 20));
        assert!(super::parse_size("1X").is_err());
    }
}
