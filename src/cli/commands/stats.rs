use crate::cli::GlobalArgs;
use crate::cli::amounts::{dollars, tokens};
use crate::cli::output::{Output, escape_line};
use crate::cli::session_arg::{open_session, warn_cycle};
use crate::cli::table::Table;
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

    let row = |name: &str, t: &Totals| {
        let mut row = vec![name.to_owned()];
        row.extend([t.input, t.output, t.cache_read, t.cache_write, t.total_tokens].map(tokens));
        row.push(dollars(t.cost.total));
        row
    };
    let mut rows = vec![row("total", &stats.total)];
    if !stats.by_model.is_empty() {
        rows.push(vec!["by model".into()]);
        for m in &stats.by_model {
            let name = match &m.provider {
                Some(p) => format!("{p}/{}", m.model),
                None => m.model.clone(),
            };
            rows.push(row(&format!("  {}", escape_line(&name)), &m.totals));
        }
    }
    rows.push(vec!["by source".into()]);
    for s in Source::ALL {
        rows.push(row(&format!("  {}", s.name()), stats.by_source.get(s)));
    }
    Table {
        head: &["", "input", "output", "cache read", "cache write", "total", "cost"],
        rows: &rows,
        keys: 1,
        drop_order: &["cache write", "cache read", "input", "output"],
        total: 0,
    }
    .write(out)?;
    Ok(())
}
