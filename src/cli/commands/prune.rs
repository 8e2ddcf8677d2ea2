use crate::cli::GlobalArgs;
use crate::cli::amounts::counted;
use crate::cli::output::{Output, escape_line};
use crate::cli::progress::{Terminal, while_doing};
use crate::cli::render::entry_line;
use crate::cli::session_arg::{session_path, warn_load_report};
use anyhow::Result;
use pi_session::ops::prune::{DroppedRecord, FileRecord, Pruned, prune_file};
use pi_session::session::Session;

/// Delete branches from a session's tree, as `git branch -D` deletes a branch.
///
/// Drops REV and every entry below it, with the labels that name them. Every other line
/// stays byte for byte, so Pi opens the file without rewriting it, with the same @, branch
/// and context. Branch summaries and compactions that name a dropped entry are kept and
/// reported. When the file's last entry (Pi's leaf) goes, a checkout record to @ is
/// appended, so Pi still continues from @.
///
/// Refused (exit 1, nothing written) when @'s branch passes through REV, unless --force,
/// which first moves @ to where that branch starts, as `checkout` would. Also refused for a
/// file changed in the last few seconds (a running Pi keeps its own position) unless --force.
///
/// Written as `repair` writes: under the file's lock, to a temp file renamed over the
/// original, lines Pi appended meanwhile carried over; the original is kept as FILE.bak.
///
/// Exit status: 0 done (or nothing to drop), 1 refused or failed (nothing written), 2 usage error.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The entries to drop, with everything below them.
    #[arg(value_name = "REV", required_unless_present = "empty")]
    pub revs: Vec<String>,

    /// Also drop the branches off @'s branch that hold nothing but aborted or error replies.
    #[arg(long)]
    pub empty: bool,

    /// Prune even when @'s branch passes through REV (moving @ first) or the file changed in
    /// the last few seconds.
    #[arg(long)]
    pub force: bool,

    /// List what would be dropped; write nothing.
    #[arg(long)]
    pub dry_run: bool,

    /// One JSON object per dropped entry {"session", "id", "line", "kind", "reason" (rev,
    /// descendant, label, empty)}, then one for the file {"session", "result" (nothing,
    /// would-prune, pruned, failed), "dropped", "references" (kept entries naming a dropped
    /// one: [{"id", "kind", "refersTo"}]), "at", "movedAt", "record" (the id of a checkout
    /// record appended), "backup", "carriedLines", "error"}.
    #[arg(long)]
    pub json: bool,
}

pub fn run(global: &GlobalArgs, args: &Args, out: &mut Output) -> Result<()> {
    let path = session_path(global)?;
    let shown = path.to_string_lossy().into_owned();
    let revs: Vec<&str> = args.revs.iter().map(String::as_str).collect();
    let progress = Terminal::when(!args.json);
    let what = if args.dry_run { "reading" } else { "pruning" };
    let outcome = while_doing(&progress, what, || {
        prune_file(&path, &revs, args.empty, args.force, args.dry_run)
    });
    let pruned = match outcome {
        Ok(p) => p,
        Err(e) if args.json => {
            let error = format!("{:#}", anyhow::Error::new(e));
            out.json(&serde_json::to_value(file_record(
                &shown,
                "failed",
                None,
                Some(&error),
            ))?)?;
            return Err(anyhow::anyhow!(error));
        }
        Err(e) => return Err(e.into()),
    };
    warn_load_report(&pruned.session);
    let result = match (&pruned, args.dry_run) {
        (p, _) if p.plan.is_empty() => "nothing",
        (_, true) => "would-prune",
        _ => "pruned",
    };
    if args.json {
        let s = &pruned.session;
        for &(i, why) in &pruned.plan.dropped {
            out.json(&serde_json::to_value(DroppedRecord {
                session: &shown,
                id: s.id_or_line(i),
                line: s.entries[i].line,
                kind: s.entries[i].kind_name(),
                reason: why.name(),
            })?)?;
        }
        out.json(&serde_json::to_value(file_record(&shown, result, Some(&pruned), None))?)?;
        return Ok(());
    }
    say(out, &pruned, args.dry_run)
}

fn file_record<'a>(shown: &'a str, result: &'a str, p: Option<&Pruned>, error: Option<&str>) -> FileRecord<'a> {
    let s = p.map(|p| &p.session);
    let id = |i| s.map(|s: &Session| s.id_or_line(i));
    FileRecord {
        session: shown,
        result,
        dropped: p.map_or(0, |p| p.plan.dropped.len()),
        references: p
            .iter()
            .flat_map(|p| &p.plan.references)
            .map(|r| {
                serde_json::json!({
                    "id": id(r.entry),
                    "kind": s.map(|s| s.entries[r.entry].kind_name()),
                    "refersTo": id(r.target),
                })
            })
            .collect(),
        at: p.and_then(|p| p.plan.moved_at.unwrap_or(p.plan.at)).and_then(id),
        moved_at: p.is_some_and(|p| p.plan.moved_at.is_some()),
        record: p.and_then(|p| p.plan.record.as_ref()).map(|(id, _)| id.clone()),
        backup: p
            .and_then(|p| p.backup.as_ref())
            .map(|b| b.to_string_lossy().into_owned()),
        carried_lines: p.map_or(0, |p| p.carried_lines),
        error: error.map(str::to_owned),
    }
}

fn say(out: &mut Output, p: &Pruned, dry_run: bool) -> Result<()> {
    let s = &p.session;
    let n = p.plan.dropped.len();
    if n == 0 {
        Output::say("nothing to prune");
        return Ok(());
    }
    let verb = if dry_run { "would drop" } else { "dropped" };
    for &(i, why) in &p.plan.dropped {
        out.line(&format!(
            "{verb} {} ({})",
            entry_line(out, s, i, false, true),
            why.name()
        ))?;
    }
    for r in &p.plan.references {
        Output::note(&format!(
            "{} {} (kept) names {}, which {}",
            escape_line(s.entries[r.entry].kind_name()),
            escape_line(&s.id_or_line(r.entry)),
            escape_line(&s.id_or_line(r.target)),
            if dry_run { "would go" } else { "is gone" }
        ));
    }
    if let Some(to) = p.plan.moved_at {
        let to = to.map_or("an empty position".into(), |t| escape_line(&s.id_or_line(t)));
        Output::say(&format!(
            "@ {} {to}",
            if dry_run { "would move to" } else { "moved to" }
        ));
    } else if p.plan.record.is_some() {
        Output::note("the file's last entry goes: a checkout record keeps @ where it is");
    }
    let file = escape_line(&s.path.display().to_string());
    if dry_run {
        Output::say(&format!(
            "dry run: {} would go; nothing written to {file}",
            counted(n as u64, "entry", "entries")
        ));
        return Ok(());
    }
    Output::say(&format!("pruned {} from {file}", counted(n as u64, "entry", "entries")));
    if let Some(b) = &p.backup {
        Output::note(&format!(
            "the original is kept in {}",
            escape_line(&b.to_string_lossy())
        ));
    }
    if p.carried_lines > 0 {
        Output::warn(&format!(
            "{} line(s) were appended while pruning and were carried over as they were",
            p.carried_lines
        ));
    }
    Ok(())
}
