use crate::cli::GlobalArgs;
use crate::cli::amounts::{dollars, tokens};
use crate::cli::output::{Output, Style, display_width, escape_line};
use crate::cli::session_arg::{open_session, warn_cycle};
use anyhow::Result;
use pi_session::session::revision;
use pi_session::usage::{Scope, Source, Totals, session_stats};

/// Tokens and cost of every paid call recorded in the session.
///
/// Counts the usage of assistant messages, `usage` entries (e.g. cache warming), the summary
/// calls of compactions and branch summaries, and the usage tool results record (tools that
/// called a model), as Pi's /session counts them, over the whole file: abandoned branches and
/// compacted history were paid for too. Totals overall, by model and by source; cost is what
/// the session recorded (missing numbers count as 0; a missing totalTokens is the sum of the
/// other four).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Count only the branch ending at this revision (implies --branch).
    #[arg(value_name = "REV")]
    pub rev: Option<String>,

    /// Count only the calls on the branch of REV [default: @], not the whole file.
    #[arg(long)]
    pub branch: bool,

    /// One JSON object: {"total", "byModel", "bySource"}. Each total is {"input", "output",
    /// "cacheRead", "cacheWrite", "totalTokens", "cost": {"input", "output", "cacheRead",
    /// "cacheWrite", "total"}}; "byModel" lists them with "provider" and "model", "bySource"
    /// names them "assistant", "usage", "compaction", "branchSummary" and "toolResult".
    #[arg(long)]
    pub json: bool,
}

pub fn run(global: &GlobalArgs, args: &Args, out: &mut Output) -> Result<()> {
    let session = open_session(global)?;
    let scope = if args.branch || args.rev.is_some() {
        Scope::Branch(match &args.rev {
            Some(rev) => revision::resolve(&session, rev)?,
            None => session.at(),
        })
    } else {
        Scope::File
    };
    let (stats, cycle_at) = session_stats(&session, scope);
    warn_cycle(&session, cycle_at);
    if args.json {
        out.json(&serde_json::to_value(&stats)?)?;
        return Ok(());
    }

    let mut rows: Vec<(String, Option<Style>, Option<Totals>)> = Vec::new();
    rows.push(("total".into(), Some(Style::Bold), Some(stats.total)));
    if !stats.by_model.is_empty() {
        rows.push(("by model".into(), Some(Style::Meta), None));
        for m in &stats.by_model {
            let name = match &m.provider {
                Some(p) => format!("{p}/{}", m.model),
                None => m.model.clone(),
            };
            rows.push((format!("  {}", escape_line(&name)), None, Some(m.totals)));
        }
    }
    rows.push(("by source".into(), Some(Style::Meta), None));
    for s in Source::ALL {
        rows.push((format!("  {}", s.name()), None, Some(*stats.by_source.get(s))));
    }
    let name_w = rows.iter().map(|r| display_width(&r.0)).max().unwrap_or(5);
    let head = format!(
        "{:<name_w$} {:>12} {:>12} {:>12} {:>12} {:>12} {:>10}",
        "", "input", "output", "cache read", "cache write", "total", "cost"
    );
    out.line(&out.paint(Style::Bold, head.trim_end()))?;
    for (name, style, totals) in rows {
        let pad = " ".repeat(name_w.saturating_sub(display_width(&name)));
        let label = match style {
            Some(s) => out.paint(s, &name),
            None => name,
        };
        let Some(t) = totals else {
            out.line(&label)?;
            continue;
        };
        out.line(&format!(
            "{label}{pad} {:>12} {:>12} {:>12} {:>12} {:>12} {:>10}",
            tokens(t.input),
            tokens(t.output),
            tokens(t.cache_read),
            tokens(t.cache_write),
            tokens(t.total_tokens),
            dollars(t.cost.total)
        ))?;
    }
    Ok(())
}
