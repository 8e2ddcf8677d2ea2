use crate::cli::GlobalArgs;
use crate::cli::exit::Exit;
use crate::cli::output::{Output, escape_line};
use crate::cli::progress::{Terminal, while_doing};
use crate::cli::session_arg::project_sessions_named;
use anyhow::Result;
use pi_session::human::amounts::bytes as size;
use pi_session::ops::slim::{self, DEFAULT_MAX_OUTPUT, Kind, Moved, Options, Outcome};

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
/// Exit status: 0 done (or nothing to do), 1 a file could not be slimmed or restored, 2 usage error.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Session files or ids [default: the sessions -s names (repeatable), else the most
    /// recent session of the current directory].
    #[arg(value_name = "FILE|ID")]
    pub files: Vec<String>,

    /// Every session of the current project (the working directory's, as `ls` lists them).
    #[arg(long, conflicts_with = "files")]
    pub all: bool,

    /// Show what would be moved (or put back), per kind; write nothing.
    #[arg(long)]
    pub dry_run: bool,

    /// Move tool outputs longer than SIZE bytes (K, M, G: 1024s) [default: 64K].
    #[arg(long, value_name = "SIZE", value_parser = crate::cli::size_arg::parse_size)]
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
    /// "bytes", "saved", "sha256" (null on a dry run), "inContext"}, then one per file: {"session", "result"
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

pub fn run(global: &GlobalArgs, args: &Args, out: &mut Output) -> Result<Exit> {
    let files = project_sessions_named(global, args.all, &args.files)?;
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
        let outcome = while_doing(&progress, &what, || match args.restore {
            true => slim::restore_file(path, args.dry_run, args.force, !args.no_backup),
            false => slim::slim_file(path, &opts),
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
    let restore = result.contains("restore");
    let verb = match result {
        "would-slim" => "would move",
        "slimmed" => "moved",
        "would-restore" => "would put back",
        _ => "put back",
    };
    let change = if restore { "grows" } else { "shrinks" };
    for (kind, label) in [(Kind::Image, "image"), (Kind::Output, "tool output")] {
        let of: Vec<&Moved> = o.moved.iter().filter(|m| m.kind == kind).collect();
        let in_context = of.iter().filter(|m| m.in_context).count();
        let note = match in_context {
            0 => String::new(),
            n => format!(", {n} of them in the context at @"),
        };
        if !of.is_empty() {
            let (bytes, saved) = (
                of.iter().map(|m| m.bytes).sum::<u64>(),
                of.iter().map(|m| m.saved).sum::<u64>(),
            );
            let (n, bytes, saved) = (of.len(), size(bytes as usize), size(saved as usize));
            out.line(&format!(
                "{shown}: {verb} {n} {label}(s), {bytes} (file {change} by {saved}){note}"
            ))?;
        }
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
        let amount = format!("{n} payload(s), {}", size(bytes as usize));
        if n == 0 || args.dry_run {
            let what = [format!("would delete {amount}"), "nothing kept".into()][usize::from(n == 0)].clone();
            out.line(&format!("{shown}: {what}"))?;
            continue;
        }
        let question = format!("delete the {amount} slim moved out of {shown}? They cannot be put back.");
        if !args.yes && !crate::cli::output::confirm(&question, "--drop deletes what slim moved out for good")? {
            out.line(&format!("{shown}: kept"))?;
            continue;
        }
        let (n, bytes) = slim::drop_store(path)?;
        match args.json {
            true => out.json(&serde_json::json!({"session": path.to_string_lossy(), "result": "dropped", "moved": n, "saved": bytes}))?,
            false => out.line(&format!("{shown}: deleted {n} payload(s), {}", size(bytes as usize)))?,
        }
    }
    Ok(Exit::Success)
}
