use crate::cli::GlobalArgs;
use crate::cli::output::{Output, Style, escape_block, escape_line};
use crate::cli::render::entry_line;
use crate::cli::session_arg::open_session;
use crate::cli::summary_args::{SummaryArgs, choose, compaction_settings};
use crate::cli::write_args::{WriteArgs, append, reopen_for_summary};
use anyhow::Result;
use pi_session::compaction::prepare::{NoCompaction, NoPlanReason, NoPlanRecord, prepare, projected_context_tokens};
use pi_session::compaction::system::current_system_message;
use pi_session::compaction::{branch_model, compaction_entry, compaction_requests, summarize_compaction};
use pi_session::session::SessionError;
use pi_session::session::context::projection;
use pi_session::session::io::append::now_timestamp;

/// Compact the conversation: summarize old history, keep recent messages, as Pi's /compact.
///
/// The plan is Pi 1.6.0's, on the branch of Pi's leaf (the file's last entry, even a label
/// or a checkout record): walk back from the newest message until keepRecentTokens is
/// reached (never cutting at a tool result), summarize what comes before (updating the
/// previous compaction's summary), and append a compaction entry after Pi's leaf. Nothing is
/// written if anything fails.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Tokens of recent conversation to keep [default: settings, else 20000].
    #[arg(long, value_name = "N")]
    pub keep_recent_tokens: Option<u64>,

    /// Tokens kept free for the model's answer [default: settings, else 16384].
    #[arg(long, value_name = "N")]
    pub reserve_tokens: Option<u64>,

    /// Compact only when the context exceeds the context window minus reserveTokens.
    #[arg(long)]
    pub if_needed: bool,

    /// With --dry-run: the plan as one JSON object
    /// {"compact":true,"firstKeptEntryId","isSplitTurn","tokensBefore","tokensKept","messagesToSummarize",
    /// "turnPrefixMessages","previousSummary","readFiles","modifiedFiles","keepRecentTokens"}, or
    /// {"compact":false,"reason"} when there is nothing to compact (reason: noEntries,
    /// alreadyCompacted, nothingToSummarize or notNeeded).
    #[arg(long)]
    pub json: bool,

    #[command(flatten)]
    pub summary: SummaryArgs,

    #[command(flatten)]
    pub write: WriteArgs,
}

pub fn run(global: &GlobalArgs, args: &Args, out: &mut Output) -> Result<()> {
    let session = open_session(global)?;
    // Pi's /compact works on the branch of its leaf, the file's last entry, even when that
    // is a label or a checkout record (which `@` steps over).
    let Some(leaf) = session.leaf() else {
        Output::say("nothing to compact: the session has no entries");
        return no_plan(args, out, NoPlanReason::NoEntries);
    };
    let path = session.branch(leaf).path;
    let model = branch_model(&session, &path);
    let (keep, reserve) = compaction_settings(
        args.keep_recent_tokens,
        args.reserve_tokens,
        model.as_ref().map(|(p, m)| (p.as_str(), m.as_str())),
    )?;
    if args.if_needed {
        let window = args.summary.context_window.ok_or_else(|| {
            SessionError::Refused("--if-needed needs --context-window N (the model's context window)".into())
        })?;
        let tokens = projected_context_tokens(&session, &projection(&session, &path), &path);
        let limit = window.saturating_sub(reserve) as f64;
        if tokens <= limit {
            Output::say(&format!(
                "not needed: the context is ~{tokens} tokens, within {window} − {reserve} = {limit}"
            ));
            return no_plan(args, out, NoPlanReason::NotNeeded);
        }
    }
    let prep = match prepare(&session, &path, keep as f64) {
        Ok(p) => p,
        Err(NoCompaction::AlreadyCompacted) => {
            Output::say("nothing to do: the branch already ends with a compaction");
            return no_plan(args, out, NoPlanReason::AlreadyCompacted);
        }
        Err(NoCompaction::NothingToSummarize) => {
            Output::say(&format!(
                "nothing to compact: everything fits in the {keep} recent tokens kept"
            ));
            return no_plan(args, out, NoPlanReason::NothingToSummarize);
        }
    };
    let (read, modified) = prep.file_ops.lists();
    if args.summary.dry_run {
        if args.json {
            out.json(&serde_json::to_value(prep.record(keep))?)?;
            return Ok(());
        }
        let field = |out: &mut Output, k: &str, v: String| {
            out.line(&format!("{} {v}", out.paint(Style::Meta, &format!("{k:<11}"))))
        };
        out.line(&format!(
            "compaction plan (keeping ~{keep} recent tokens); nothing written"
        ))?;
        field(out, "cut at", entry_line(out, &session, prep.first_kept, false, true))?;
        field(
            out,
            "turn",
            if prep.is_split_turn {
                format!(
                    "split: {} messages of the cut turn are summarized apart",
                    prep.turn_prefix.len()
                )
            } else {
                "not split".into()
            },
        )?;
        field(
            out,
            "summarize",
            format!("{} messages", prep.messages_to_summarize.len()),
        )?;
        field(
            out,
            "tokens",
            format!("~{} before, ~{} kept", prep.tokens_before, prep.tokens_kept),
        )?;
        field(
            out,
            "previous",
            if prep.updates_previous() {
                "the last compaction's summary is updated".into()
            } else if prep.previous_summary.is_some() {
                "none (the last compaction's summary is empty)".into()
            } else {
                "none".into()
            },
        )?;
        field(out, "read", escape_line(&read.join(", ")))?;
        field(out, "modified", escape_line(&modified.join(", ")))?;
        return Ok(());
    }
    let thinking = None;
    if args.summary.print_prompt {
        let (history, turn) = compaction_requests(
            &prep,
            args.summary.instructions.as_deref(),
            args.summary.include_thinking,
            thinking,
        );
        for (name, r) in [("history", history), ("turn prefix", turn)] {
            if let Some(r) = r {
                out.line(&format!("===== {name}: system =====\n{}", escape_block(&r.system)))?;
                out.line(&format!("===== {name}: prompt =====\n{}", escape_block(&r.prompt)))?;
            }
        }
        return Ok(());
    }

    let planned_leaf = session.leaf().and_then(|l| session.id_str(l)).map(str::to_owned);
    if let Some(expected) = &args.write.expect_leaf
        && planned_leaf.as_deref() != Some(expected.as_str())
    {
        return Err(SessionError::LeafMismatch {
            expected: expected.clone(),
            actual: planned_leaf.unwrap_or_else(|| "(none)".into()),
        }
        .into());
    }
    let choice = choose(&args.summary, model)?;
    let summary = summarize_compaction(
        &prep,
        choice.source.as_source(),
        args.summary.instructions.as_deref(),
        args.summary.include_thinking,
        thinking,
    )?;

    // Write under the lock, and only if the session did not move while we summarized. An
    // unchanged leaf means nothing was appended, so the file as planned is the file as it
    // is: reading its end under the lock is enough.
    let mut writer = reopen_for_summary(&session.path, planned_leaf.as_deref())?;
    let messages: Vec<serde_json::Value> = projection(&session, &path)
        .into_iter()
        .flat_map(|p| p.messages)
        .collect();
    let id = writer.new_id_beside(&session);
    let line = compaction_entry(
        &id,
        planned_leaf.as_deref(),
        &now_timestamp(),
        &summary,
        &prep.first_kept_id,
        prep.tokens_before,
        current_system_message(&messages),
    );
    append(&mut writer, &line)?;
    out.line(&id)?;
    Output::say(&format!(
        "compacted {} messages (~{} tokens before) into a summary; kept from {}",
        prep.messages_to_summarize.len() + prep.turn_prefix.len(),
        prep.tokens_before,
        escape_line(&prep.first_kept_id)
    ));
    Ok(())
}

/// With `--dry-run --json`, one record saying why there is no plan (a script gets a record
/// either way).
fn no_plan(args: &Args, out: &mut Output, reason: NoPlanReason) -> Result<()> {
    if args.summary.dry_run && args.json {
        out.json(&serde_json::to_value(NoPlanRecord::new(reason))?)?;
    }
    Ok(())
}
