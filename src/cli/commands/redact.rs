use crate::cli::GlobalArgs;
use crate::cli::cache_file::{LISTING, cache_file};
use crate::cli::exit::Exit;
use crate::cli::output::{Output, escape_line};
use crate::cli::progress::{Terminal, while_doing};
use crate::cli::secret_rules::{RuleArgs, rule_set};
use crate::cli::session_arg::sessions_named;
use anyhow::Result;
use pi_session::secrets::redact::{Redaction, redact_file};
use pi_session::secrets::scan::FindingRecord;

/// Take the credentials `secrets` finds out of session files, in place.
///
/// Replaces each secret with [REDACTED:<rule>]. Only the JSON strings that held one change;
/// every other byte stays, so ids, the tree, labels, `@` and what the model sees are as
/// they were, and Pi opens the file without rewriting it. A thinking block whose text
/// changed loses its signature (Pi then sends the block as plain text; a signature that no
/// longer matches its text would make the provider refuse the conversation). Redacted
/// thinking and encrypted reasoning cannot be read and are left as they are.
///
/// Written as `repair` writes: under the file's lock, to a temp file renamed over the
/// original, nothing changed if the file changed meanwhile. The original is kept as
/// FILE.bak, readable by you only: it is the one place the secrets remain; --no-backup
/// removes it. A second run finds nothing to do.
///
/// Exit status: 0 done (or nothing found), 1 a file could not be redacted, 2 usage error.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Session files or ids [default: the session -s names (repeatable), else the most
    /// recent session of the current directory].
    #[arg(value_name = "FILE|ID")]
    pub files: Vec<String>,

    /// Every session of every project.
    #[arg(long, conflicts_with = "files")]
    pub all: bool,

    /// Show what would be taken out; write nothing.
    #[arg(long)]
    pub dry_run: bool,

    /// Keep no backup of the original, so the secrets leave the file system's view (blocks
    /// the disk held may still hold them until reused).
    #[arg(long)]
    pub no_backup: bool,

    /// One JSON object per finding (as `secrets --json`), then one per file:
    /// {"session", "result" (clean, would-redact, redacted, failed), "redacted", "backup",
    /// "carriedLines", "error"}.
    #[arg(long)]
    pub json: bool,

    #[command(flatten)]
    pub rules: RuleArgs,
}

#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct FileRecord<'a> {
    session: &'a str,
    result: &'a str,
    redacted: usize,
    backup: Option<String>,
    carried_lines: usize,
    error: Option<String>,
}

pub fn run(global: &GlobalArgs, args: &Args, out: &mut Output) -> Result<Exit> {
    let rules = rule_set(&args.rules)?;
    let files = sessions_named(global, args.all, &args.files)?;
    let mut failed = false;
    let mut wrote_any = false;
    let progress = Terminal::when(!args.json);
    for path in &files {
        let shown = path.to_string_lossy();
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        let what = format!("{} {name}", if args.dry_run { "scanning" } else { "redacting" });
        // A failure says what failed and why: "cannot write …: No space left on device".
        let outcome = while_doing(&progress, &what, || {
            redact_file(path, &rules, args.dry_run, !args.no_backup)
        })
        .map_err(|e| format!("{:#}", anyhow::Error::new(e)));
        let (result, redaction, error) = match &outcome {
            Ok(r) if r.scan.findings.is_empty() => ("clean", Some(r), None),
            Ok(r) if !r.written => ("would-redact", Some(r), None),
            Ok(r) => ("redacted", Some(r), None),
            Err(e) => ("failed", None, Some(e.clone())),
        };
        failed |= error.is_some();
        wrote_any |= redaction.is_some_and(|r| r.written);
        if args.json {
            for finding in redaction.iter().flat_map(|r| &r.scan.findings) {
                out.json(&serde_json::to_value(FindingRecord {
                    session: &shown,
                    finding,
                })?)?;
            }
            out.json(&serde_json::to_value(FileRecord {
                session: &shown,
                result,
                redacted: redaction.map_or(0, |r| r.scan.findings.len()),
                backup: redaction
                    .and_then(|r| r.backup.as_ref())
                    .map(|b| b.to_string_lossy().into_owned()),
                carried_lines: redaction.map_or(0, |r| r.carried_lines),
                error: error.clone(),
            })?)?;
            continue;
        }
        match (redaction, error) {
            (_, Some(e)) => Output::error(&format!("{shown}: {e}")),
            (Some(r), None) => say(out, &shown, r, args.dry_run)?,
            (None, None) => {}
        }
    }
    if wrote_any {
        forget_listing();
    }
    Ok(if failed { Exit::Failure } else { Exit::Success })
}

/// Drops the listing cache: it keeps each session's first message and name, which may be
/// what was just redacted. (Deleting it is always safe: the next `ls` reads every file.)
fn forget_listing() {
    if let Some(file) = cache_file(LISTING) {
        let _ = std::fs::remove_file(file);
    }
}

fn say(out: &mut Output, shown: &str, r: &Redaction, dry_run: bool) -> Result<()> {
    let shown = escape_line(shown);
    let n = r.scan.findings.len();
    if n == 0 {
        out.line(&format!("{shown}: no secrets found"))?;
        return Ok(());
    }
    for f in &r.scan.findings {
        let place = if f.path.is_empty() {
            "damaged line".to_owned()
        } else {
            f.path.clone()
        };
        out.line(&format!(
            "{shown}:{}: {} {} ({})",
            f.line,
            escape_line(&f.rule),
            escape_line(&f.preview),
            escape_line(&place)
        ))?;
    }
    if dry_run {
        out.line(&format!(
            "{shown}: would redact {n} secret(s); nothing written (--dry-run)"
        ))?;
        return Ok(());
    }
    out.line(&format!("{shown}: redacted {n} secret(s)"))?;
    match &r.backup {
        Some(b) => Output::note(&format!(
            "the original is kept in {} (mode 0600): it still holds the secrets; delete it once you have checked the result",
            b.to_string_lossy()
        )),
        None => Output::note("no backup kept (--no-backup)"),
    }
    if r.carried_lines > 0 {
        Output::warn(&format!(
            "{shown}: {} line(s) were appended while redacting and were not scanned; run redact again",
            r.carried_lines
        ));
    }
    Ok(())
}
