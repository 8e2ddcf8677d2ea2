use crate::cli::GlobalArgs;
use crate::cli::output::{Output, escape_line};
use crate::cli::render::entry_line;
use crate::cli::write_args::{WriteArgs, append, open_writer_tip, show_dry_run};
use anyhow::Result;
use pi_session::session::append::checkout_record;
use pi_session::session::branch_copy::refuse_cycle;
use pi_session::session::{EntryIdx, Session, SessionError, revision};
use rustc_hash::FxHashSet;
use serde_json::Value;

/// Move @ to another entry, persistently, so Pi continues from there.
///
/// Appends a checkout record (a custom entry, which never reaches the model) as a child of
/// REV: Pi's context becomes exactly the path to REV, and the next message Pi writes
/// continues from it. Nothing is deleted; the branch left behind stays in the tree.
/// `--dry-run` prints the record it would append and writes nothing.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Where to move @. `-` goes back to where the newest checkout came from.
    #[arg(value_name = "REV", required_unless_present = "empty")]
    pub rev: Option<String>,

    /// Make the next message start a new root (an empty conversation).
    #[arg(long, conflicts_with = "rev")]
    pub empty: bool,

    /// Print {"at","from","abandoned","record"} as one JSON line (with --dry-run also
    /// "dryRun": true and "line", the line that would be appended).
    #[arg(long)]
    pub json: bool,

    /// Keep a summary of the branch being left, as `pi-session summarize-branch REV` does.
    #[arg(long, conflicts_with = "empty")]
    pub summarize: bool,

    #[command(flatten)]
    pub summary: crate::cli::summary_args::SummaryArgs,

    #[command(flatten)]
    pub write: WriteArgs,
}

/// The `from` of the newest checkout record: where `checkout -` goes back to.
fn previous_position(session: &Session) -> Result<Option<EntryIdx>, SessionError> {
    let Some(last) = (0..session.entries.len())
        .rev()
        .find(|&i| session.entries[i].is_checkout())
    else {
        if !session.is_complete() {
            return Err(SessionError::NeedMore);
        }
        return Err(SessionError::Refused("no earlier checkout to go back to".into()));
    };
    match session.value(last).pointer("/data/from") {
        Some(Value::String(id)) => match session.lookup(id) {
            Some(i) => Ok(Some(i)),
            None if !session.is_complete() => Err(SessionError::NeedMore),
            None => Err(SessionError::Refused(format!(
                "the previous position {id} no longer exists"
            ))),
        },
        _ => Ok(None),
    }
}

/// What `checkout --json` prints.
#[derive(Debug, serde::Serialize)]
#[serde(rename_all = "camelCase")]
struct CheckoutRecord {
    /// Where @ now stands (`null`: an empty position).
    at: Option<String>,
    /// Where @ stood.
    from: Option<String>,
    /// Entries left behind on the branch left.
    abandoned: usize,
    /// The id of the checkout record appended (`null` when nothing was to do).
    record: Option<String>,
    /// With --dry-run: `true`, and the line that would have been appended.
    #[serde(skip_serializing_if = "Option::is_none")]
    dry_run: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    line: Option<String>,
}

pub fn run(global: &GlobalArgs, args: &Args, out: &mut Output) -> Result<()> {
    if args.summarize {
        let session = crate::cli::session_arg::open_session(global)?;
        let rev = args.rev.as_deref().expect("clap requires REV without --empty");
        return crate::cli::branch_summary::summarize_to(
            &session,
            rev,
            None,
            args.json,
            &args.summary,
            &args.write,
            out,
        );
    }
    let (mut writer, (from, target)) = open_writer_tip(global, &args.write, args.summary.dry_run, |session| {
        let from = session.at_checked()?;
        let target = match args.rev.as_deref() {
            None => None,
            Some("-") => previous_position(session)?,
            Some(rev) => {
                let idx = revision::resolve_entry(session, rev)?;
                // @ never stands on a label or checkout record: move to what it stands for.
                let pos = session.position_of(idx);
                if pos != Some(idx) {
                    eprintln!(
                        "note: {} is a {} entry, which only bookkeeps; moving to {}",
                        escape_line(&session.id_or_line(idx)),
                        escape_line(session.entries[idx].kind_name()),
                        pos.map(|p| escape_line(&session.id_or_line(p)))
                            .unwrap_or_else(|| "an empty position".into())
                    );
                }
                pos
            }
        };
        // Pi, walking up from an entry inside a parent cycle, never reaches a root. A walk
        // that stops at the edge of what was read is settled below: it meets @'s branch,
        // which Pi already walks, or the whole file is read.
        if let Some(t) = target {
            refuse_cycle(session, &session.branch(t))?;
        }
        // How much is left behind is known once both branches are read to where they meet.
        abandoned_entries(session, from, target)?;
        Ok((from, target))
    })?;
    let session = &writer.session;
    if target == from {
        let at = target.map(|t| session.id_or_line(t));
        if args.json {
            let record = CheckoutRecord {
                at: at.clone(),
                from: at,
                abandoned: 0,
                record: None,
                dry_run: None,
                line: None,
            };
            out.json(&serde_json::to_value(record)?)?;
        } else {
            eprintln!("already there: nothing to do");
            out.line(&describe(out, session, target, false))?;
        }
        return Ok(());
    }
    let abandoned = abandoned_entries(session, from, target)?;
    let id = writer.new_id();
    let session = &writer.session;
    let target_id = match target {
        Some(t) => Some(session.id_str(t).map(str::to_owned).ok_or_else(|| {
            SessionError::Refused(format!(
                "the entry on line {} has no id, so nothing can continue from it; run `pi-session repair`",
                session.entries[t].line
            ))
        })?),
        None => None,
    };
    let from_id = from.and_then(|f| session.id_str(f)).map(str::to_owned);
    let line = checkout_record(&id, target_id.as_deref(), from_id.as_deref());
    let dry_run = args.summary.dry_run;
    let description = describe(out, session, target, dry_run);
    if !dry_run {
        append(&mut writer, &line)?;
    }
    if args.json {
        let record = CheckoutRecord {
            at: target_id,
            from: from_id,
            abandoned,
            record: Some(id),
            dry_run: dry_run.then_some(true),
            line: dry_run.then(|| line.clone()),
        };
        out.json(&serde_json::to_value(record)?)?;
        if dry_run {
            eprintln!("dry run: nothing written");
        }
        return Ok(());
    }
    out.line(&description)?;
    if dry_run {
        show_dry_run(out, &writer.session.path, &[&line])?;
    }
    if abandoned > 0 {
        let from = escape_line(from_id.as_deref().unwrap_or("?"));
        eprintln!(
            "{} {abandoned} entr{} behind on the branch ending at {from}",
            if dry_run { "would leave" } else { "left" },
            if abandoned == 1 { "y" } else { "ies" }
        );
        if abandoned > 3 && !dry_run {
            eprintln!(
                "{}",
                crate::cli::output::escape_line(&crate::cli::output::advise(&format!(
                    "hint: `pi-session label {from} NAME` keeps a name on it; `pi-session checkout -` comes back"
                )))
            );
        }
    }
    Ok(())
}

fn describe(out: &Output, session: &Session, at: Option<EntryIdx>, dry_run: bool) -> String {
    match (at, dry_run) {
        (Some(i), false) => format!("@ is now {}", entry_line(out, session, i, false, true)),
        (Some(i), true) => format!("@ would move to {}", entry_line(out, session, i, false, true)),
        (None, false) => "@ is now empty: the next message starts a new root".into(),
        (None, true) => "@ would be empty: the next message would start a new root".into(),
    }
}

/// Entries on the branch of `from` that are not on the branch of `to`.
fn abandoned_entries(session: &Session, from: Option<EntryIdx>, to: Option<EntryIdx>) -> Result<usize, SessionError> {
    let Some(from) = from else { return Ok(0) };
    let to_branch = to.map(|t| session.branch(t));
    let kept: FxHashSet<EntryIdx> = to_branch
        .as_ref()
        .map(|b| b.path.iter().copied().collect())
        .unwrap_or_default();
    let from_branch = session.branch(from);
    let meet = from_branch.path.iter().any(|i| kept.contains(i));
    if !meet {
        // Both walks must reach the root, or the edge of what was read is in the way.
        session.check_edge(&from_branch)?;
        if let Some(b) = &to_branch {
            session.check_edge(b)?;
        }
    }
    Ok(from_branch.path.iter().filter(|i| !kept.contains(i)).count())
}
