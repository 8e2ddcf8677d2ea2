use crate::cli::GlobalArgs;
use crate::cli::output::{Output, Style, escape_line};
use crate::cli::render::{kind_style, message_body};
use crate::cli::session_arg::{open_tip, warn_cycle};
use anyhow::Result;
use pi_session::session::context::{Context, build_context};
use pi_session::session::{Detail, Session, SessionError, revision};
use serde_json::Value;

/// Show exactly the messages Pi 1.6.0 sends to the model with the leaf at REV.
///
/// The latest compaction on the branch replaces what it summarized (its system checkpoint,
/// the summary, kept entries from firstKeptEntryId, later entries); branch summaries and
/// custom messages are included and context edits applied, as Pi's buildSessionContext does.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Build the context with the leaf at this revision [default: @].
    #[arg(value_name = "REV", default_value = "@")]
    pub rev: String,

    /// One message object per line, field for field what Pi builds (NDJSON).
    #[arg(long)]
    pub json: bool,

    /// Cut tool results and command output after this many characters.
    #[arg(long, value_name = "N")]
    pub max_chars: Option<usize>,
}

/// Read from the end, the context is known when the path read reaches its compaction's
/// kept range (and, for people, the thinking level and model in effect).
fn context_is_bounded(session: &Session, leaf: Option<usize>, ctx: &Context, json: bool) -> bool {
    let Some(leaf) = leaf else { return true };
    let branch = session.branch(leaf);
    if !branch.truncated {
        return true;
    }
    let Some(c) = ctx.compaction else { return false };
    let kept_found = match &session.entries[c].detail {
        Detail::Compaction {
            first_kept: Some(f), ..
        } => Some(*f) == session.entries[c].id || session.lookup_sym(*f).is_some_and(|k| branch.path.contains(&k)),
        _ => false,
    };
    if !kept_found {
        return false;
    }
    if json {
        return true;
    }
    let on_path =
        |pred: &dyn Fn(&pi_session::session::Entry) -> bool| branch.path.iter().any(|&i| pred(&session.entries[i]));
    on_path(&|e| matches!(e.detail, Detail::ThinkingLevel { .. }))
        && on_path(&|e| {
            matches!(e.detail, Detail::ModelChange { .. }) || e.is_role(&pi_session::session::Role::Assistant)
        })
}

pub fn run(global: &GlobalArgs, args: &Args, out: &mut Output) -> Result<()> {
    let json = args.json;
    let (session, (leaf, ctx)) = open_tip(global, |session| {
        let leaf = revision::resolve(session, &args.rev)?;
        let ctx = build_context(session, leaf);
        if !session.is_complete() && !context_is_bounded(session, leaf, &ctx, json) {
            return Err(SessionError::NeedMore.into());
        }
        Ok((leaf, ctx))
    })?;
    let _ = leaf;
    warn_cycle(&session, ctx.cycle_at);
    if args.json {
        for m in ctx.messages(&session) {
            // What Pi sends, byte for byte: JSON.stringify of each message.
            out.line(&pi_session::json::jsjson::stringify(&m.message))?;
        }
        return Ok(());
    }
    // Two passes, the summary first: the messages are made again to be shown.
    let (count, tokens) = ctx.messages(&session).fold((0usize, 0u64), |(n, t), m| {
        (n + 1, t + pi_session::session::estimate::estimate_tokens(&m.message))
    });
    let model = ctx
        .model
        .as_ref()
        .map(|m| {
            let s = |k: &str| m.get(k).and_then(Value::as_str).unwrap_or("?").to_owned();
            format!("{}/{}", s("provider"), s("modelId"))
        })
        .unwrap_or_else(|| "(none)".into());
    let thinking = match &ctx.thinking_level {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    out.line(&out.paint(
        Style::Meta,
        &escape_line(&format!(
            "{} messages, ~{} tokens (characters/4) · model {model} · thinking {thinking}",
            count, tokens
        )),
    ))?;
    for m in ctx.messages(&session) {
        let role = m.message.get("role").and_then(Value::as_str).unwrap_or("?");
        let source = session.id_or_line(m.source);
        out.line("")?;
        out.line(&format!(
            "{} {}",
            out.paint(kind_style(role), &format!("── {} ", escape_line(role))),
            out.paint(Style::Meta, &escape_line(&source))
        ))?;
        for line in message_body(out, &m.message, args.max_chars) {
            out.line(&line)?;
        }
    }
    Ok(())
}
