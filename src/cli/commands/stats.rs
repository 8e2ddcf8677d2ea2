use crate::cli::GlobalArgs;
use crate::cli::output::{Output, Style, display_width, escape_line};
use crate::cli::session_arg::{open_session, warn_cycle};
use anyhow::Result;
use pi_session::llm::Cost;
use pi_session::session::jsjson::number;
use pi_session::session::{EntryIdx, EntryKind, Role, Session, revision};
use serde::Deserialize;
use serde_json::{Map, Value, json};

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

    /// One JSON object: {"total", "byModel", "bySource"}.
    #[arg(long)]
    pub json: bool,
}

/// Sums of `usage` objects.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Totals {
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    pub cache_write: f64,
    pub total_tokens: f64,
    pub cost: Cost,
}

fn num(v: &Value, key: &str) -> f64 {
    v.get(key).and_then(Value::as_f64).unwrap_or(0.0)
}

impl Totals {
    /// Adds one `usage` object; fields that are missing or not numbers count as 0.
    pub fn add(&mut self, usage: &Value) {
        self.input += num(usage, "input");
        self.output += num(usage, "output");
        self.cache_read += num(usage, "cacheRead");
        self.cache_write += num(usage, "cacheWrite");
        self.total_tokens += num(usage, "totalTokens");
        if let Some(c) = usage.get("cost") {
            self.cost.input += num(c, "input");
            self.cost.output += num(c, "output");
            self.cost.cache_read += num(c, "cacheRead");
            self.cost.cache_write += num(c, "cacheWrite");
            self.cost.total += num(c, "total");
        }
    }

    fn json(&self) -> Map<String, Value> {
        let mut m = Map::new();
        m.insert("input".into(), number(self.input));
        m.insert("output".into(), number(self.output));
        m.insert("cacheRead".into(), number(self.cache_read));
        m.insert("cacheWrite".into(), number(self.cache_write));
        m.insert("totalTokens".into(), number(self.total_tokens));
        m.insert(
            "cost".into(),
            json!({
                "input": number(self.cost.input),
                "output": number(self.cost.output),
                "cacheRead": number(self.cost.cache_read),
                "cacheWrite": number(self.cost.cache_write),
                "total": number(self.cost.total),
            }),
        );
        m
    }
}

/// Where a paid call is recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Source {
    Assistant,
    Usage,
    Compaction,
    BranchSummary,
}

impl Source {
    pub const ALL: [Source; 4] = [
        Source::Assistant,
        Source::Usage,
        Source::Compaction,
        Source::BranchSummary,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Source::Assistant => "assistant",
            Source::Usage => "usage",
            Source::Compaction => "compaction",
            Source::BranchSummary => "branchSummary",
        }
    }
}

/// The model summaries are attributed to when their entry names none.
pub const SUMMARIES: &str = "(summaries)";

/// One paid call: its source, provider and model, and `usage`.
#[derive(Debug)]
pub struct Call {
    pub source: Source,
    pub provider: Option<String>,
    pub model: String,
    pub usage: Value,
}

/// The fields of an entry line that carry usage; everything else is skipped unparsed.
#[derive(Deserialize)]
struct UsageLine {
    #[serde(default)]
    provider: Option<Value>,
    #[serde(default)]
    model: Option<Value>,
    #[serde(default)]
    usage: Option<Value>,
    #[serde(default)]
    message: Option<UsageMessage>,
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct UsageMessage {
    #[serde(default)]
    provider: Option<Value>,
    #[serde(default)]
    model: Option<Value>,
    #[serde(default)]
    response_model: Option<Value>,
    #[serde(default)]
    usage: Option<Value>,
}

impl UsageLine {
    /// From the full entry, for lines the narrow reader refuses (duplicate keys, odd types).
    fn from_value(v: &Value) -> UsageLine {
        let m = v.get("message");
        UsageLine {
            provider: v.get("provider").cloned(),
            model: v.get("model").cloned(),
            usage: v.get("usage").cloned(),
            message: m.filter(|m| m.is_object()).map(|m| UsageMessage {
                provider: m.get("provider").cloned(),
                model: m.get("model").cloned(),
                response_model: m.get("responseModel").cloned(),
                usage: m.get("usage").cloned(),
            }),
        }
    }
}

fn string(v: Option<Value>) -> Option<String> {
    match v {
        Some(Value::String(s)) => Some(s),
        _ => None,
    }
}

/// The paid call an entry records, if any. Parses only entries that can hold one.
pub fn call_of(session: &Session, idx: EntryIdx) -> Option<Call> {
    let e = &session.entries[idx];
    let source = match &e.kind {
        EntryKind::Message if e.is_role(&Role::Assistant) => Source::Assistant,
        EntryKind::Usage => Source::Usage,
        EntryKind::Compaction => Source::Compaction,
        EntryKind::BranchSummary => Source::BranchSummary,
        _ => return None,
    };
    let line = serde_json::from_slice::<UsageLine>(session.raw(idx))
        .unwrap_or_else(|_| UsageLine::from_value(&session.value(idx)));
    let (provider, model, usage) = match source {
        Source::Assistant => {
            let m = line.message?;
            // Pi's /session breakdown names the model that answered (e.g. OpenRouter's `auto`
            // resolved), else the one asked.
            let model = string(m.response_model).or(string(m.model));
            (string(m.provider), model.unwrap_or_else(|| "?".into()), m.usage?)
        }
        Source::Usage => (
            string(line.provider),
            string(line.model).unwrap_or_else(|| "?".into()),
            line.usage?,
        ),
        Source::Compaction | Source::BranchSummary => {
            let model = string(line.model);
            let provider = model.as_ref().and(string(line.provider));
            (provider, model.unwrap_or_else(|| SUMMARIES.into()), line.usage?)
        }
    };
    usage.is_object().then_some(Call {
        source,
        provider,
        model,
        usage,
    })
}

/// Totals overall, by (provider, model) in order of cost, and by source.
#[derive(Debug, Default)]
pub struct Stats {
    pub total: Totals,
    pub by_model: Vec<(Option<String>, String, Totals)>,
    pub by_source: [Totals; 4],
}

pub fn collect(session: &Session, entries: impl Iterator<Item = EntryIdx>) -> Stats {
    let mut stats = Stats::default();
    for idx in entries {
        let Some(call) = call_of(session, idx) else {
            continue;
        };
        stats.total.add(&call.usage);
        let slot = Source::ALL.iter().position(|s| *s == call.source).unwrap_or(0);
        stats.by_source[slot].add(&call.usage);
        match stats
            .by_model
            .iter_mut()
            .find(|(p, m, _)| *p == call.provider && *m == call.model)
        {
            Some((_, _, t)) => t.add(&call.usage),
            None => {
                let mut t = Totals::default();
                t.add(&call.usage);
                stats.by_model.push((call.provider, call.model, t));
            }
        }
    }
    // Most expensive first, then most tokens; ties keep the order of first use.
    stats.by_model.sort_by(|a, b| {
        b.2.cost
            .total
            .total_cmp(&a.2.cost.total)
            .then(b.2.total_tokens.total_cmp(&a.2.total_tokens))
    });
    stats
}

pub fn stats_json(stats: &Stats) -> Value {
    let by_model: Vec<Value> = stats
        .by_model
        .iter()
        .map(|(p, m, t)| {
            let mut o = Map::new();
            o.insert("provider".into(), p.clone().map(Value::String).unwrap_or(Value::Null));
            o.insert("model".into(), Value::String(m.clone()));
            o.extend(t.json());
            Value::Object(o)
        })
        .collect();
    let mut by_source = Map::new();
    for (s, t) in Source::ALL.iter().zip(&stats.by_source) {
        by_source.insert(s.name().into(), Value::Object(t.json()));
    }
    json!({
        "total": Value::Object(stats.total.json()),
        "byModel": by_model,
        "bySource": Value::Object(by_source),
    })
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
    let stats = if args.branch || args.rev.is_some() {
        let tip = match &args.rev {
            Some(rev) => revision::resolve(&session, rev)?,
            None => session.at(),
        };
        let mut on_branch = vec![false; session.entries.len()];
        if let Some(tip) = tip {
            let branch = session.branch(tip);
            warn_cycle(&session, branch.cycle_at);
            for i in branch.path {
                on_branch[i] = true;
            }
        }
        collect(&session, (0..session.entries.len()).filter(|&i| on_branch[i]))
    } else {
        collect(&session, 0..session.entries.len())
    };
    if args.json {
        out.json(&stats_json(&stats))?;
        return Ok(());
    }

    let mut rows: Vec<(String, Option<Style>, Option<Totals>)> = Vec::new();
    rows.push(("total".into(), Some(Style::Bold), Some(stats.total)));
    if !stats.by_model.is_empty() {
        rows.push(("by model".into(), Some(Style::Meta), None));
        for (p, m, t) in &stats.by_model {
            let name = match p {
                Some(p) => format!("{p}/{m}"),
                None => m.clone(),
            };
            rows.push((format!("  {}", escape_line(&name)), None, Some(*t)));
        }
    }
    rows.push(("by source".into(), Some(Style::Meta), None));
    for (s, t) in Source::ALL.iter().zip(&stats.by_source) {
        rows.push((format!("  {}", s.name()), None, Some(*t)));
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
        assert_eq!(number(3.0), json!(3));
        assert_eq!(number(0.25), json!(0.25));
    }
}
