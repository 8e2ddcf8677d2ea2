use crate::cli::GlobalArgs;
use crate::cli::output::{Output, Style, display_width, escape_line};
use crate::cli::session_arg::{open_session, warn_cycle};
use anyhow::Result;
use pi_session::session::revision;
use pi_session::usage::{Scope, Source, Totals, session_stats};

/// Tokens and cost of every paid call recorded in the session.
///
/// Counts the usage of assistant messages, `usage` entries (e.g. cache warming), and the
/// summary calls of compactions and branch summaries, over the whole file: abandoned branches
/// and compacted history were paid for too. Totals overall, by model and by source; cost is
/// what the session recorded (missing numbers count as 0).
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
    /// names them "assistant", "usage", "compaction" and "branchSummary".
    #[arg(long)]
    pub json: bool,
}

/// Digits with thousands separated by commas.
fn grouped(digits: &str) -> String {
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A token count for people: thousands separated, and a sum that is not whole (files not
/// written by Pi) rounded to two decimals, so that no `0.30000000000000004` shows.
fn tokens(f: f64) -> String {
    if !f.is_finite() || f.abs() >= 1e15 {
        return format!("{f}");
    }
    let cents = (f.abs() * 100.0).round() as u64;
    let sign = if f < 0.0 && cents != 0 { "-" } else { "" };
    let whole = grouped(&(cents / 100).to_string());
    match cents % 100 {
        0 => format!("{sign}{whole}"),
        c if c % 10 == 0 => format!("{sign}{whole}.{}", c / 10),
        c => format!("{sign}{whole}.{c:02}"),
    }
}

/// Dollars for people, to the hundredth of a cent (the JSON keeps JavaScript's exact sums);
/// a cost too small to show is not shown as nothing.
fn dollars(f: f64) -> String {
    if f > 0.0 && f < 0.00005 {
        return "<$0.0001".into();
    }
    format!("${f:.4}")
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(tokens(1234567.0), "1,234,567");
        assert_eq!(tokens(999.0), "999");
        assert_eq!(tokens(1.5), "1.5");
        assert_eq!(tokens(0.1 + 0.2), "0.3");
        assert_eq!(tokens(1234.567), "1,234.57");
        assert_eq!(tokens(-2.0), "-2");
        assert_eq!(tokens(0.001), "0");
        assert_eq!(dollars(0.24599999999999997), "$0.2460");
        assert_eq!(dollars(0.0), "$0.0000");
        assert_eq!(dollars(0.00001), "<$0.0001");
    }
}
