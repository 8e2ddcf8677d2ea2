use crate::cli::GlobalArgs;
use crate::cli::new_session::{NewSessionArgs, write_and_report};
use crate::cli::output::Output;
use crate::cli::session_arg::open_session_redacted;
use anyhow::Result;
use pi_session::session::branch_copy::{branched_session, refuse_old_format};
use pi_session::session::revision;

/// Copy the branch ending at REV into a new session file, as Pi's /clone does.
///
/// The new session holds the path from the root to REV (labels on it re-created at the
/// end; without REV, the branch of Pi's leaf, the file's last entry, as /clone copies it), with
/// a header naming the source as its parent session. The source is not touched.
/// Prints the new file's path (`-o -`: the new session itself). `--dry-run` writes nothing.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The last entry to copy [default: Pi's leaf, the file's last entry].
    #[arg(value_name = "REV")]
    pub rev: Option<String>,

    /// Take the credentials `secrets` finds (built-in rules, ./.gitleaks.toml, your own
    /// keys) out of what is written, as `redact` would; the session file is not changed.
    #[arg(long)]
    pub redact: bool,

    #[command(flatten)]
    pub new_session: NewSessionArgs,
}

pub fn run(global: &GlobalArgs, args: &Args, out: &mut Output) -> Result<()> {
    crate::cli::new_session::check_args(&args.new_session)?;
    let session = open_session_redacted(global, args.redact)?;
    refuse_old_format(&session)?;
    // Without REV, copy what Pi's /clone copies: the branch of Pi's leaf, the file's last
    // entry, even a checkout record that `@` steps over.
    let leaf = match (&args.rev, session.leaf()) {
        (Some(rev), _) => revision::resolve(&session, rev)?,
        (None, Some(leaf)) => Some(leaf),
        (None, None) => revision::resolve(&session, "@")?,
    };
    let new = branched_session(&session, leaf)?;
    write_and_report(&session, &new, &args.new_session, None, out)
}
