use crate::cli::GlobalArgs;
use crate::cli::exit::Exit;
use crate::cli::output::{Output, escape_line};
use crate::cli::rev_pair::RevPair;
use crate::cli::session_arg::{open_session, warn_cycle};
use anyhow::Result;
use pi_session::compare;

/// Print the newest entry two branches share: their merge base.
///
/// The branches are those ending at A and B (revisions: ids, prefixes, labels, `@~2`, …).
/// When one is an ancestor of the other, it is the merge base. Exit status 1 when the two
/// share no entry (they start at different roots), as `git merge-base`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub revs: RevPair,

    /// One JSON object: {"mergeBase": ID or null}.
    #[arg(long)]
    pub json: bool,
}

pub fn run(global: &GlobalArgs, args: &Args, out: &mut Output) -> Result<Exit> {
    let session = open_session(global)?;
    let (a, b) = args.revs.resolve(&session)?;
    let d = compare::diverge(&session, a, b);
    warn_cycle(&session, d.cycle_at);
    let base = d.base.map(|i| session.id_or_line(i));
    if args.json {
        out.json(&serde_json::json!({ "mergeBase": base }))?;
    } else if let Some(id) = &base {
        out.line(&escape_line(id))?;
    }
    Ok(if base.is_some() { Exit::Success } else { Exit::Failure })
}
