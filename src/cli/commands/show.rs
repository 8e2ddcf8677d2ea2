use crate::cli::GlobalArgs;
use crate::cli::output::{Output, Style, escape_line, local_time};
use crate::cli::render::{entry_body, kind_style};
use crate::cli::session_arg::{RawLines, open_tip};
use anyhow::Result;
use pi_session::session::{Detail, EntryIdx, EntryKind, Session, revision};
use serde_json::Value;

/// Show entries in full: every content block, tool-call arguments, model, usage and cost.
///
/// Several revisions are shown in the order given, a blank line apart.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The entries to show [default: @].
    #[arg(value_name = "REV", default_value = "@")]
    pub revs: Vec<String>,

    /// Print each entry's original line, byte for byte (one line per revision).
    #[arg(long)]
    pub json: bool,

    /// Cut tool results and command output after this many characters.
    #[arg(long, value_name = "N")]
    pub max_chars: Option<usize>,
}

pub fn run(global: &GlobalArgs, args: &Args, out: &mut Output) -> Result<()> {
    let (session, found) = open_tip(global, |session| {
        let mut found = Vec::with_capacity(args.revs.len());
        for rev in &args.revs {
            let idx = revision::resolve_entry(session, rev)?;
            // Whether a parent is missing can only be told with it read.
            if session.entries[idx].parent.is_some() && session.parent(idx).is_none() && !session.is_complete() {
                return Err(pi_session::session::SessionError::NeedMore.into());
            }
            found.push(idx);
        }
        Ok(found)
    })?;
    let mut raw = RawLines::default();
    for (k, &idx) in found.iter().enumerate() {
        if args.json {
            raw.print(out, &session, idx)?;
            continue;
        }
        if k > 0 {
            out.line("")?;
        }
        show_one(&session, idx, args, out)?;
    }
    raw.warn(&session);
    Ok(())
}

/// One entry in full.
fn show_one(session: &Session, idx: EntryIdx, args: &Args, out: &mut Output) -> Result<()> {
    let e = &session.entries[idx];
    let v = session.value(idx);
    let field = |out: &mut Output, name: &str, value: String| {
        out.line(&format!("{} {value}", out.paint(Style::Meta, &format!("{name:<9}"))))
    };

    let mut title = out.paint(Style::Id, &escape_line(&session.id_or_line(idx)));
    let at = session.at_checked().ok().flatten();
    if at == Some(idx) {
        title.push_str(&format!(" {}", out.paint(Style::Current, "(@)")));
    }
    if session.leaf() == Some(idx) && at != Some(idx) {
        title.push_str(&format!(" {}", out.paint(Style::Meta, "(leaf)")));
    }
    field(out, "entry", title)?;
    field(
        out,
        "type",
        out.paint(kind_style(e.kind_name()), &escape_line(e.kind_name())),
    )?;
    field(
        out,
        "line",
        session.line_label(idx).trim_start_matches("line ").to_owned(),
    )?;
    let parent = match (session.parent_id_str(idx), session.parent(idx)) {
        (None, _) => "none (a root)".to_owned(),
        (Some(p), Some(_)) => escape_line(p),
        (Some(p), None) => format!("{} (missing: shown as a root)", escape_line(p)),
    };
    field(out, "parent", parent)?;
    let ts = e.timestamp.as_deref();
    field(
        out,
        "time",
        format!("{} ({})", local_time(ts), escape_line(ts.unwrap_or("none"))),
    )?;
    if let Some(label) = session.label_of(idx) {
        field(out, "label", out.paint(Style::Label, &escape_line(label)))?;
    }
    let m = v.get("message");
    let s = |v: Option<&Value>| v.and_then(Value::as_str).map(escape_line);
    if let (Some(p), Some(model)) = (s(m.and_then(|m| m.get("provider"))), s(m.and_then(|m| m.get("model")))) {
        field(out, "model", format!("{p}/{model}"))?;
    }
    if let Some(reason) = s(m.and_then(|m| m.get("stopReason"))) {
        field(out, "stop", reason)?;
    }
    if let Some(err) = s(m.and_then(|m| m.get("errorMessage"))) {
        field(out, "error", err)?;
    }
    let usage = m.and_then(|m| m.get("usage")).or_else(|| v.get("usage"));
    if let Some(u) = usage.filter(|u| u.is_object()) {
        let n = |k: &str| u.get(k).and_then(Value::as_f64).unwrap_or(0.0);
        field(
            out,
            "usage",
            format!(
                "input {}, output {}, cache read {}, cache write {}, total {} tokens",
                n("input"),
                n("output"),
                n("cacheRead"),
                n("cacheWrite"),
                n("totalTokens")
            ),
        )?;
        if let Some(cost) = u.pointer("/cost/total").and_then(Value::as_f64) {
            field(out, "cost", format!("${cost:.4}"))?;
        }
    }
    match &e.detail {
        Detail::Compaction {
            first_kept,
            tokens_before,
        } => {
            let fk = first_kept
                .map(|s| escape_line(session.ids().name(s)))
                .unwrap_or_else(|| "none".into());
            field(out, "kept", format!("from {fk}"))?;
            if let Some(t) = tokens_before {
                field(out, "tokens", format!("{t} before compaction"))?;
            }
        }
        Detail::BranchSummary { from } => {
            field(out, "from", escape_line(from.as_deref().unwrap_or("?")))?;
        }
        _ => {}
    }
    if (e.kind == EntryKind::Label || e.kind == EntryKind::ContextEdit)
        && let Some(t) = s(v.get("targetId"))
    {
        field(out, "target", t)?;
    }
    out.line("")?;
    for line in entry_body(out, session, idx, args.max_chars) {
        out.line(&line)?;
    }
    Ok(())
}
