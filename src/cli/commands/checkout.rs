use crate::cli::GlobalArgs;
use crate::cli::output::{Output, escape_line};
use crate::cli::render::entry_line;
use crate::cli::write_args::{WriteArgs, append, open_writer_tip, show_dry_run};
use anyhow::Result;
use pi_session::ops::checkout::{self, CheckoutRecord, Plan, Target};
use pi_session::session::io::append::checkout_record;
use pi_session::session::{EntryIdx, Session, SessionError};

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
    let to = match args.rev.as_deref() {
        None => Target::Empty,
        Some("-") => Target::Back,
        Some(rev) => Target::Rev(rev),
    };
    let (mut writer, plan) = open_writer_tip(global, &args.write, args.summary.dry_run, |session| {
        Ok(checkout::plan(session, to)?)
    })?;
    let Plan {
        from,
        target,
        named_bookkeeping,
        abandoned,
    } = plan;
    if let Some(idx) = named_bookkeeping {
        let session = &writer.session;
        Output::note(&format!(
            "{} is a {} entry, which only bookkeeps; moving to {}",
            escape_line(&session.id_or_line(idx)),
            escape_line(session.entries[idx].kind_name()),
            target
                .map(|p| escape_line(&session.id_or_line(p)))
                .unwrap_or_else(|| "an empty position".into())
        ));
    }
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
            Output::say("already there: nothing to do");
            out.line(&describe(out, session, target, false))?;
        }
        return Ok(());
    }
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
            Output::say("dry run: nothing written");
        }
        return Ok(());
    }
    out.line(&description)?;
    if dry_run {
        show_dry_run(out, &writer.session.path, &[&line])?;
    }
    if abandoned > 0 {
        let from = escape_line(from_id.as_deref().unwrap_or("?"));
        Output::say(&format!(
            "{} {abandoned} entr{} behind on the branch ending at {from}",
            if dry_run { "would leave" } else { "left" },
            if abandoned == 1 { "y" } else { "ies" }
        ));
        if abandoned > 3 && !dry_run {
            Output::hint(&format!(
                "`pi-session label {from} NAME` keeps a name on it; `pi-session checkout -` comes back"
            ));
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
