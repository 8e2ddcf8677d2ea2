use crate::cli::GlobalArgs;
use crate::cli::output::Output;
use crate::cli::render::{entry_body, entry_line, entry_line_into, write_rows};
use crate::cli::session_arg::{RawLines, open_session, open_tip, warn_cycle};
use anyhow::Result;
use pi_session::session::{EntryIdx, Session, revision};

/// Show a branch, newest entry first.
///
/// Without REV, the branch of @ (where the conversation stands) back to its root. With
/// --all, every entry of the file in append order.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Show the branch ending at this revision [default: @].
    #[arg(value_name = "REV")]
    pub rev: Option<String>,

    /// Show at most N entries.
    #[arg(short = 'n', long = "max-count", value_name = "N")]
    pub max_count: Option<usize>,

    /// Oldest first.
    #[arg(long)]
    pub reverse: bool,

    /// Only entries of these types (repeat or separate with commas).
    #[arg(long = "type", value_name = "TYPE", value_delimiter = ',', value_parser = TYPES)]
    pub types: Vec<String>,

    /// Only messages with these roles (repeat or separate with commas).
    #[arg(long, value_name = "ROLE", value_delimiter = ',', value_parser = ROLES)]
    pub role: Vec<String>,

    /// Show each entry in full: text, thinking, tool calls with arguments, tool results.
    #[arg(long)]
    pub long: bool,

    /// With --long: cut tool results and command output after this many characters.
    #[arg(long, value_name = "N", default_value_t = 2000)]
    pub max_chars: usize,

    /// Print each entry's original line, byte for byte (NDJSON).
    #[arg(long)]
    pub json: bool,

    /// Every entry of the file in append order, not one branch (like Pi's RPC get_entries).
    #[arg(long, conflicts_with = "rev")]
    pub all: bool,

    /// With --all: only entries appended after the entry with this id (a cursor for polling).
    #[arg(long, value_name = "ID", requires = "all")]
    pub since: Option<String>,

    /// After what log prints, print each entry as Pi appends it, until Ctrl-C (status 0).
    /// New entries come in append order: with --all every one, else those on the branch of
    /// @ as it moves (a notice on stderr when @ moves to another branch). -n and --reverse
    /// apply to the first part only. With --json, one original line per entry, flushed at
    /// once. A file replaced, cut or rewritten (repair, Pi's migration) is read again with a
    /// notice on stderr, and only entries whose ids were not seen yet are printed.
    #[arg(short = 'f', long, conflicts_with = "rev")]
    pub follow: bool,

    /// With --follow: wait for a session file that does not exist yet (a path given with
    /// -s, or the first session of the current directory).
    #[arg(long, requires = "follow")]
    pub wait: bool,
}

/// The entry types `--type` takes: every type a session holds.
const TYPES: [&str; 11] = [
    "message",
    "model_change",
    "thinking_level_change",
    "compaction",
    "branch_summary",
    "custom",
    "custom_message",
    "label",
    "session_info",
    "context_edit",
    "usage",
];

/// The message roles `--role` takes.
const ROLES: [&str; 8] = [
    "user",
    "assistant",
    "toolResult",
    "bashExecution",
    "custom",
    "system",
    "branchSummary",
    "compactionSummary",
];

fn selected(session: &Session, args: &Args) -> Result<(Vec<EntryIdx>, Option<EntryIdx>)> {
    let at = session.at_checked()?;
    if args.all {
        let from = match &args.since {
            Some(id) => {
                let idx = match session.lookup(id) {
                    Some(i) => i,
                    None => revision::resolve_entry(session, id)?,
                };
                idx + 1
            }
            None => 0,
        };
        return Ok(((from..session.entries.len()).collect(), at));
    }
    let tip = match &args.rev {
        Some(rev) => revision::resolve(session, rev)?,
        None => at,
    };
    let Some(tip) = tip else {
        return Ok((Vec::new(), at));
    };
    let branch = session.branch(tip);
    let mut path = branch.path.clone();
    path.reverse(); // newest first
    // Read from the end: enough when the entries to show were all read.
    let shown = path.iter().filter(|&&i| passes(session, args, i)).count();
    if args.max_count.is_none_or(|n| shown < n) {
        session.check_edge(&branch)?;
    }
    warn_cycle(session, branch.cycle_at);
    Ok((path, at))
}

fn passes(session: &Session, args: &Args, i: EntryIdx) -> bool {
    let e = &session.entries[i];
    (args.types.is_empty() || e.kind.as_str().is_some_and(|t| args.types.iter().any(|w| w == t)))
        && (args.role.is_empty() || e.role().is_some_and(|r| args.role.iter().any(|w| w == r.as_str())))
}

pub fn run(global: &GlobalArgs, args: &Args, out: &mut Output) -> Result<()> {
    // A branch reads only as much of the end of the file as it shows; --all reads it all,
    // and so does a whole branch (every branch goes back to the first entry).
    let (session, (entries, at)) = if args.all || args.max_count.is_none() {
        let session = open_session(global)?;
        let sel = selected(&session, args)?;
        (session, sel)
    } else {
        open_tip(global, |session| selected(session, args))?
    };
    show(&session, args, entries, at, out)
}

/// What `log` prints of a session already open: the first part of `log --follow`.
pub(crate) fn show_session(session: &Session, args: &Args, out: &mut Output) -> Result<()> {
    let (entries, at) = selected(session, args)?;
    show(session, args, entries, at, out)
}

/// Whether `log` shows entry `i` (its --type and --role filters).
pub(crate) fn shows(session: &Session, args: &Args, i: EntryIdx) -> bool {
    passes(session, args, i)
}

// The body is `run`'s as it was, borrows included, so that edits made to it meanwhile merge.
#[allow(clippy::needless_borrow)]
fn show(session: &Session, args: &Args, entries: Vec<EntryIdx>, at: Option<EntryIdx>, out: &mut Output) -> Result<()> {
    let mut shown: Vec<EntryIdx> = entries.into_iter().filter(|&i| passes(&session, args, i)).collect();
    if let Some(n) = args.max_count {
        shown.truncate(n);
    }
    if args.reverse {
        shown.reverse();
    }
    if !args.json && !args.long {
        // One line per entry, rendered on every core.
        let look = out.look();
        let render = |k: usize, buf: &mut String| {
            let i = shown[k];
            entry_line_into(buf, &look, &session, i, Some(i) == at, true);
        };
        // A large file's lines are given back behind the rows written.
        for from in (0..shown.len()).step_by(8192) {
            let to = shown.len().min(from + 8192);
            write_rows(out, from..to, render)?;
            let (lo, hi) = shown[from..to]
                .iter()
                .fold((usize::MAX, 0), |(lo, hi), &i| (lo.min(i), hi.max(i)));
            if lo <= hi {
                session.release_entries(lo..hi + 1);
            }
        }
        return Ok(());
    }
    let mut raw = RawLines::default();
    for (k, &i) in shown.iter().enumerate() {
        if args.json {
            raw.print(out, &session, i)?;
            continue;
        }
        let line = entry_line(out, &session, i, Some(i) == at, !args.long);
        if args.long {
            if k > 0 {
                out.line("")?;
            }
            out.line(&line)?;
            for body in entry_body(out, &session, i, Some(args.max_chars)) {
                for l in body.lines() {
                    out.line(&format!("    {l}"))?;
                }
            }
        } else {
            out.line(&line)?;
        }
    }
    raw.warn(&session);
    Ok(())
}
