//! The branch summary `summarize-branch` and `checkout --summarize` write: leave Pi's leaf
//! for a target, keeping a summary of the branch being left, as Pi's `/tree` does.

use crate::cli::output::{Output, Style, escape_block, escape_line};
use crate::cli::render::entry_line;
use crate::cli::summary_args::{SummaryArgs, choose, compaction_settings};
use crate::cli::write_args::{WriteArgs, append, reopen_for_summary};
use anyhow::Result;
use pi_session::compaction::branch::Leave;
use pi_session::compaction::{branch, branch_model, branch_request, branch_summary_entry, summarize_branch};
use pi_session::session::io::append::{SessionWriter, now_timestamp};
use pi_session::session::{Session, revision};

/// Shared with `checkout --summarize`. As Pi's `/tree` does, this starts from Pi's leaf (the
/// file's last entry, even a label or a checkout record, not `@`).
pub fn summarize_to(
    session: &Session,
    target_rev: &str,
    reserve: Option<u64>,
    json_plan: bool,
    summary_args: &SummaryArgs,
    write: &WriteArgs,
    out: &mut Output,
) -> Result<()> {
    let target = revision::resolve_entry(session, target_rev)?;
    let plan = branch::plan(session, target)?;
    let branch::BranchPlan {
        target_id,
        from_id,
        position,
        position_id,
        entries,
        ancestor,
        from_path: path,
        ..
    } = plan.clone();
    let model = branch_model(session, &path);
    let (_, reserve) = compaction_settings(None, reserve, model.as_ref().map(|(p, m)| (p.as_str(), m.as_str())))?;
    let window = summary_args.context_window.unwrap_or(128_000);
    let continues = |out: &Output| match position {
        Some(p) => format!("after {}", entry_line(out, session, p, false, true)),
        None => "from the start (a new root)".to_owned(),
    };
    if summary_args.dry_run || summary_args.print_prompt {
        let prep = branch::prepare(session, &entries, window.saturating_sub(reserve));
        if summary_args.print_prompt {
            let r = branch_request(
                &prep,
                summary_args.instructions.as_deref(),
                summary_args.include_thinking,
                None,
            );
            out.line(&format!("===== system =====\n{}", escape_block(&r.system)))?;
            out.line(&format!("===== prompt =====\n{}", escape_block(&r.prompt)))?;
            return Ok(());
        }
        if json_plan {
            out.json(&serde_json::to_value(plan.record(session, &prep))?)?;
            return Ok(());
        }
        let (read, modified) = prep.file_ops.lists();
        out.line(&format!(
            "branch summary plan; nothing written (budget {} − {reserve} tokens)",
            window
        ))?;
        out.line(&format!(
            "{} {}",
            out.paint(Style::Meta, "target    "),
            entry_line(out, session, target, false, true)
        ))?;
        out.line(&format!("{} {}", out.paint(Style::Meta, "continues "), continues(out)))?;
        out.line(&format!(
            "{} {} entries since {}, {} messages (~{} tokens) summarized",
            out.paint(Style::Meta, "leaving   "),
            entries.len(),
            ancestor
                .map(|a| escape_line(&session.id_or_line(a)))
                .unwrap_or_else(|| "the root".into()),
            prep.messages.len(),
            prep.total_tokens
        ))?;
        out.line(&format!(
            "{} {}",
            out.paint(Style::Meta, "read      "),
            escape_line(&read.join(", "))
        ))?;
        out.line(&format!(
            "{} {}",
            out.paint(Style::Meta, "modified  "),
            escape_line(&modified.join(", "))
        ))?;
        return Ok(());
    }
    match plan.leave() {
        Leave::AlreadyThere => {
            Output::say("already there: nothing to do");
            return Ok(());
        }
        Leave::MoveOnly => {
            Output::say("nothing on the branch being left to summarize: checking out instead");
            let mut writer = SessionWriter::open_if_leaf(&session.path, write.expect_leaf.as_deref())?;
            let line = pi_session::session::io::append::checkout_record(
                &writer.new_id_beside(session),
                position_id.as_deref(),
                session.at().and_then(|a| session.id_str(a)),
            );
            append(&mut writer, &line)?;
            match position {
                Some(p) => out.line(&format!("@ is now {}", entry_line(out, session, p, false, true)))?,
                None => out.line("@ is now empty: the next message starts a new root")?,
            }
            return Ok(());
        }
        Leave::Summarize => plan.check_leaf(write.expect_leaf.as_deref())?,
    }
    let planned_leaf = from_id.clone();
    let choice = choose(summary_args, model)?;
    let budget = choice.context_window.saturating_sub(reserve);
    let prep = branch::prepare(session, &entries, budget);
    if prep.messages.is_empty() && summary_args.summary_file.is_some() {
        Output::note(
            "the branch left behind holds no message: storing Pi's \"No content to summarize\", \
             not the summary file",
        );
    }
    let summary = summarize_branch(
        &prep,
        choice.source.as_source(),
        summary_args.instructions.as_deref(),
        summary_args.include_thinking,
        None,
    )?;
    let mut writer = reopen_for_summary(&session.path, planned_leaf.as_deref())?;
    let id = writer.new_id_beside(session);
    let from_id = from_id.unwrap_or_else(|| "root".into());
    let line = branch_summary_entry(&id, position_id.as_deref(), &now_timestamp(), &from_id, &summary);
    append(&mut writer, &line)?;
    out.line(&id)?;
    Output::say(&format!(
        "summarized {} entries of the branch left at {}; the conversation continues {}",
        entries.len(),
        escape_line(&from_id),
        continues(out)
    ));
    if position != Some(target) {
        Output::say(&format!(
            "{} is left out so that it can be edited and sent again, as Pi's /tree does",
            escape_line(&target_id)
        ));
    }
    Ok(())
}
