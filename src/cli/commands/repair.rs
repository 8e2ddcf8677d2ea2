use crate::cli::GlobalArgs;
use crate::cli::exit::Exit;
use crate::cli::output::{Output, Style, escape_line};
use crate::cli::progress::{Terminal, suspend, while_doing};
use anyhow::Result;
use pi_session::progress::{Progress, Silent};
use pi_session::repair::apply::FileRecord;
use pi_session::repair::apply::{apply, lock_and_plan};
use pi_session::repair::finding::FindingRecord;
use pi_session::repair::{Finding, Outcome, Plan, Severity};
use pi_session::session::io::locate;
use std::path::{Path, PathBuf};

/// Check a session file for defects and fix them in place, losing nothing.
///
/// Finds what Pi skips, rewrites or hangs on: unreadable and torn lines, NULs, a BOM, CRLF,
/// blank lines, invalid UTF-8, a missing or misplaced header, old formats, duplicate ids,
/// orphans, parent cycles, labels and context edits that point nowhere, compactions that
/// keep from off their path. Warns about tool results without their call and unanswered
/// tool calls. The original is kept as FILE.bak; every line dropped or rewritten is also
/// appended to FILE.rejects. A clean file is not touched.
///
/// Exit status: 0 clean (or repaired), 1 defects found with --check (or a repair failed).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Report only; exit 1 if a defect was found (warnings allowed). The repaired file is not
    /// built, so with --json `after` is null when there are defects.
    #[arg(long, conflicts_with = "dry_run")]
    pub check: bool,

    /// Show what would be done, write nothing.
    #[arg(long)]
    pub dry_run: bool,

    /// Every session in the sessions directory, with a summary table.
    #[arg(long)]
    pub all: bool,

    /// One JSON object per finding {"path","line","lines","kind","severity","id","message","action"},
    /// then one per file {"path","result","defects","warnings","backup","rejectsFile","carriedLines","after"};
    /// `after` is how Pi reads the repaired file: {"leaf","at","branch","context_messages","entries"}.
    #[arg(long)]
    pub json: bool,
}

pub fn run(global: &GlobalArgs, args: &Args, out: &mut Output) -> Result<Exit> {
    if args.all {
        return run_all(args, out);
    }
    let path = crate::cli::session_arg::session_path(global)?;
    let outcome = repair_one(&path, args, out, Some(&Terminal::when(!args.json)))?;
    match outcome {
        Outcome::Defects | Outcome::Failed(_) => Ok(Exit::Failure),
        _ => Ok(Exit::Success),
    }
}

/// Repairs one file: with `progress` the run's one file (every line printed), else one of all.
fn repair_one(path: &Path, args: &Args, out: &mut Output, progress: Option<&dyn Progress>) -> Result<Outcome> {
    let (verbose, progress) = (progress.is_some(), progress.unwrap_or(&Silent));
    let check = || lock_and_plan(path, args.check, args.check || args.dry_run);
    let (mut lock, original, plan) = while_doing(progress, "checking the session", check)?;
    let defects = plan.defects();
    let warnings = plan.findings.len() - defects;
    let shown = escape_line(&path.display().to_string());
    if args.json {
        let path = path.to_string_lossy();
        for finding in &plan.findings {
            out.json(&serde_json::to_value(FindingRecord { finding, path: &path })?)?;
        }
    } else if verbose || defects > 0 {
        print_findings(out, &shown, &plan)?;
    }
    let (outcome, applied) = if defects == 0 {
        (Outcome::Clean, None)
    } else if args.check {
        (Outcome::Defects, None)
    } else if args.dry_run {
        (Outcome::WouldRepair, None)
    } else {
        match while_doing(progress, "writing the repaired file", || {
            apply(&mut lock, original.bytes(), &plan)
        }) {
            Ok(applied) => (Outcome::Repaired, applied),
            // What failed and why: "cannot write …: No space left on device (os error 28)".
            Err(e) => (Outcome::Failed(format!("{:#}", anyhow::Error::new(e))), None),
        }
    };
    drop(lock);
    if args.json {
        let path = path.to_string_lossy();
        let record = FileRecord::new(&path, outcome.name(), &plan, applied.as_ref());
        out.json(&serde_json::to_value(record)?)?;
    } else if verbose || defects > 0 {
        match &outcome {
            Outcome::Clean if warnings == 0 => out.line(&format!("{shown}: clean"))?,
            Outcome::Clean => out.line(&format!("{shown}: no defects ({warnings} warning{})", plural(warnings)))?,
            Outcome::Defects => out.line(&format!(
                "{shown}: {defects} defect{}; run `pi-session repair` to fix",
                plural(defects)
            ))?,
            Outcome::WouldRepair => {
                out.line(&format!(
                    "{shown}: would fix {defects} defect{} (dry run: nothing written)",
                    plural(defects)
                ))?;
                print_after(out, &plan)?;
            }
            Outcome::Repaired => {
                let a = applied.as_ref().expect("applied");
                out.line(&format!(
                    "{shown}: repaired {defects} defect{}; original kept as {}",
                    plural(defects),
                    escape_line(&a.backup.display().to_string())
                ))?;
                if let Some(r) = &a.rejects_file {
                    out.line(&format!(
                        "  {} line{} dropped or rewritten, kept byte for byte in {}",
                        a.rejected_lines,
                        plural(a.rejected_lines),
                        escape_line(&r.display().to_string())
                    ))?;
                }
                if a.carried_lines > 0 {
                    out.line(&format!(
                        "  {} line{} appended while repair ran (by Pi?) kept after the repaired content, as written",
                        a.carried_lines,
                        plural(a.carried_lines)
                    ))?;
                }
                print_after(out, &plan)?;
            }
            Outcome::Failed(e) => Output::error(&format!("{shown}: {e}")),
        }
    }
    if verbose {
        // The one file of this run: the process ends next, and takes the file's index
        // and mapping with it faster than freeing them piece by piece would.
        std::mem::forget(original);
    }
    Ok(outcome)
}

fn plural(n: usize) -> &'static str {
    if n == 1 { "" } else { "s" }
}

fn print_after(out: &mut Output, plan: &Plan) -> std::io::Result<()> {
    if let Some(r) = &plan.after {
        out.line(&format!(
            "  Pi then reads: leaf {}, @ {}, a branch of {} entries, a context of {} messages",
            escape_line(r.leaf.as_deref().unwrap_or("(none)")),
            escape_line(r.at.as_deref().unwrap_or("(empty)")),
            r.branch,
            r.context_messages
        ))?;
    }
    Ok(())
}

fn print_findings(out: &mut Output, shown: &str, plan: &Plan) -> std::io::Result<()> {
    for f in &plan.findings {
        out.line(&finding_line(out, shown, f))?;
    }
    Ok(())
}

fn finding_line(out: &Output, shown: &str, f: &Finding) -> String {
    let at = match f.line {
        Some(l) if f.lines.len() > 1 => format!("{shown}:{l} (+{} more)", f.lines.len() - 1),
        Some(l) => format!("{shown}:{l}"),
        None => shown.to_owned(),
    };
    let (style, sev) = match f.severity {
        Severity::Defect => (Style::Warn, "defect"),
        Severity::Warning => (Style::Meta, "warning"),
    };
    let mut s = format!(
        "{at}: {} {}: {}",
        out.paint(style, sev),
        f.kind,
        escape_line(&f.message)
    );
    if !f.action.is_empty() {
        s.push_str(&format!("\n    → {}", escape_line(&f.action)));
    }
    s
}

fn run_all(args: &Args, out: &mut Output) -> Result<Exit> {
    // The cwd only matters for a project's `sessionDir` setting.
    let loc = locate::Locations::discover(&std::env::current_dir().unwrap_or_default());
    let (root, files) = (loc.root(), loc.all_files());
    if files.is_empty() {
        Output::say(&format!(
            "no session files in {}",
            escape_line(&root.display().to_string())
        ));
        return Ok(Exit::Success);
    }
    let bar = Terminal::when(!args.json);
    bar.start("repair", Some(files.len() as u64));
    let mut rows: Vec<(PathBuf, Outcome)> = Vec::new();
    for f in &files {
        bar.message(&f.file_name().unwrap_or_default().to_string_lossy());
        let outcome = match repair_one(f, args, out, None) {
            Ok(o) => o,
            Err(e) => Outcome::Failed(format!("{e:#}")),
        };
        rows.push((f.clone(), outcome));
        // A file's findings go out now, above the bar, not when the buffer fills.
        suspend(|| out.flush())?;
        bar.advance(1);
    }
    bar.finish();
    let failed = rows
        .iter()
        .any(|(_, o)| matches!(o, Outcome::Failed(_) | Outcome::Defects));
    if !args.json {
        out.line("")?;
        out.line(&format!("{:<14} session", "result"))?;
        for (p, o) in &rows {
            let rel = p.strip_prefix(&root).unwrap_or(p);
            let mut line = format!("{:<14} {}", o.name(), escape_line(&rel.display().to_string()));
            if let Outcome::Failed(e) = o {
                line.push_str(&format!(" ({})", escape_line(e)));
            }
            out.line(&line)?;
        }
        let count = |name: &str| rows.iter().filter(|(_, o)| o.name() == name).count();
        out.line(&format!(
            "{} sessions: {} clean, {} repaired, {} with defects, {} would be repaired, {} failed",
            rows.len(),
            count("clean"),
            count("repaired"),
            count("defects"),
            count("would-repair"),
            count("failed")
        ))?;
    }
    Ok(if failed { Exit::Failure } else { Exit::Success })
}
