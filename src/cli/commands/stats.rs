use crate::cli::GlobalArgs;
use crate::cli::amounts::{counted, dollars, tokens};
use crate::cli::output::{Output, display_width, escape_line, fit};
use crate::cli::session_arg::{open_session, warn_cycle};
use crate::cli::table::Table;
use anyhow::Result;
use pi_session::compaction::context_usage::{ContextUsage, context_usage};
use pi_session::session::revision;
use pi_session::usage::{Counts, Scope, Source, ToolCounts, Totals, message_counts, session_stats};

/// Tokens and cost of every paid call recorded in the session.
///
/// Counts the usage of assistant messages, `usage` entries (e.g. cache warming), the summary
/// calls of compactions and branch summaries, and the usage tool results record (tools that
/// called a model), as Pi's /session counts them, over the whole file: abandoned branches and
/// compacted history were paid for too. Totals overall, by model and by source; cost is what
/// the session recorded (missing numbers count as 0; a missing totalTokens is the sum of the
/// other four). Below them, the messages and tool calls as Pi's /session counts them, and
/// the context at REV (default @) against its model's context window.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Count only the branch ending at this revision (implies --branch).
    #[arg(value_name = "REV")]
    pub rev: Option<String>,

    /// Count only the calls on the branch of REV [default: @], not the whole file.
    #[arg(long)]
    pub branch: bool,

    /// One JSON object: {"userMessages", "assistantMessages", "toolCalls", "toolResults",
    /// "totalMessages" (Pi's get_session_stats counts: every message entry, and the toolCall
    /// blocks of assistant messages), "compactions", "branchSummaries", "byTool" (per tool
    /// {"name", "calls", "results", "failed"}, most calls first), "contextUsage" (at REV or @:
    /// {"tokens", "contextWindow", "percent"}, tokens and percent null after a compaction no
    /// reply followed; null when the model's window is unknown), "total", "byModel",
    /// "bySource"}. Each total is {"input", "output",
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
    let counts = message_counts(&session, scope);
    let at = match &args.rev {
        Some(rev) => revision::resolve(&session, rev)?,
        None => session.at(),
    };
    let context = at.and_then(|at| context_usage(&session, at));
    warn_cycle(&session, cycle_at);
    if args.json {
        // Pi's counts first, as get_session_stats lists them.
        let mut record = serde_json::to_value(&counts)?;
        if let Some(record) = record.as_object_mut() {
            record.insert("contextUsage".into(), serde_json::to_value(&context)?);
        }
        if let (Some(record), serde_json::Value::Object(totals)) =
            (record.as_object_mut(), serde_json::to_value(&stats)?)
        {
            record.extend(totals);
        }
        out.json(&record)?;
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
    write_counts(&counts, context.as_ref(), out)
}

/// The counts below the table, one line each: messages by role, tool calls, summaries.
fn write_counts(c: &Counts, context: Option<&ContextUsage>, out: &mut Output) -> Result<()> {
    out.line("")?;
    out.labelled(
        "messages",
        12,
        &[
            format!("{} ({} user", c.total_messages, c.user_messages),
            format!("{} assistant", c.assistant_messages),
            format!("{} tool results)", c.tool_results),
        ],
    )?;
    out.line(&format!("tool calls  {}", c.tool_calls))?;
    out.labelled(
        "summaries",
        12,
        &[
            counted(c.compactions, "compaction", "compactions"),
            counted(c.branch_summaries, "branch summary", "branch summaries"),
        ],
    )?;
    if let Some(u) = context {
        let window = tokens(u.context_window as f64);
        let parts = match (u.tokens, u.percent) {
            // One decimal, as Pi's footer shows it.
            (Some(t), Some(p)) => vec![format!("{} of {window} tokens", tokens(t)), format!("{p:.1}%")],
            _ => vec![
                "unknown until a reply after the compaction".into(),
                format!("window {window}"),
            ],
        };
        out.labelled("context", 12, &parts)?;
    }
    let name = |t: &ToolCounts| escape_line(if t.name.is_empty() { "(unnamed)" } else { &t.name });
    let width = c.by_tool.iter().map(|t| display_width(&name(t))).max().unwrap_or(0);
    // On a narrow terminal a long tool name is cut (to a third of it), its counts never.
    let width = width.min(out.width.map_or(usize::MAX, |w| w / 3));
    for t in &c.by_tool {
        let shown = name(t);
        let shown = fit(&shown, width);
        out.labelled(
            &format!("  {shown}"),
            width + 4,
            &[
                counted(t.calls, "call", "calls"),
                counted(t.results, "result", "results"),
                format!("{} failed", t.failed),
            ],
        )?;
    }
    Ok(())
}
