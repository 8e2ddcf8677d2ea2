use crate::cli::GlobalArgs;
use crate::cli::branch_summary::summarize_to;
use crate::cli::output::Output;
use crate::cli::session_arg::open_session;
use crate::cli::summary_args::SummaryArgs;
use crate::cli::write_args::WriteArgs;
use anyhow::Result;

/// Leave @ for TARGET, keeping a summary of the branch being left, as Pi's /tree does.
///
/// As in Pi, the branch left is the one of Pi's leaf (the file's last entry, even a label
/// or a checkout record): its entries back to the common ancestor with TARGET are
/// summarized (newest first within the context window minus reserveTokens, tool results
/// left out, file operations carried over from earlier branch summaries), and a
/// branch_summary entry is appended as a child of TARGET, so Pi continues after TARGET with
/// the summary in its context. A user message or custom message TARGET is left out, as
/// Pi's /tree does, so that it can be edited and sent again: the summary goes under its
/// parent.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Where the conversation continues.
    #[arg(value_name = "TARGET")]
    pub target: String,

    /// Tokens kept free for the model's answer [default: settings, else 16384].
    #[arg(long, value_name = "N")]
    pub reserve_tokens: Option<u64>,

    /// With --dry-run: the plan as one JSON object
    /// {"target","parent" (where the summary goes: TARGET, or its parent for a user or custom
    /// message),"from" (Pi's leaf),"commonAncestor","entries","messages","totalTokens",
    /// "readFiles","modifiedFiles"}.
    #[arg(long)]
    pub json: bool,

    #[command(flatten)]
    pub summary: SummaryArgs,

    #[command(flatten)]
    pub write: WriteArgs,
}

pub fn run(global: &GlobalArgs, args: &Args, out: &mut Output) -> Result<()> {
    let session = open_session(global)?;
    summarize_to(
        &session,
        &args.target,
        args.reserve_tokens,
        args.json,
        &args.summary,
        &args.write,
        out,
    )
}
