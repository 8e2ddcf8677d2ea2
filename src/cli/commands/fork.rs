use crate::cli::GlobalArgs;
use crate::cli::new_session::{NewSessionArgs, write_and_report};
use crate::cli::output::{Output, escape_block};
use crate::cli::session_arg::open_session;
use anyhow::Result;
use pi_session::session::branch_copy::{branched_session, refuse_old_format};
use pi_session::session::content::{Block, Content};
use pi_session::session::{Role, SessionError, revision};
use serde_json::Value;

/// Start a new session from just before a user message, as Pi's /fork does.
///
/// The new session holds the conversation up to REV's parent, so the user message at REV
/// can be edited and sent again there; a first message gives a session with a header only.
/// Prints the new file's path (`pi --session "$(pi-session fork REV)"`), and the message's
/// text on stderr as a reminder of what to edit. `-o -` prints the new session itself;
/// `--dry-run` writes nothing.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A user message.
    #[arg(value_name = "REV")]
    pub rev: String,

    #[command(flatten)]
    pub new_session: NewSessionArgs,
}

pub fn run(global: &GlobalArgs, args: &Args, out: &mut Output) -> Result<()> {
    crate::cli::new_session::check_args(&args.new_session)?;
    let session = open_session(global)?;
    refuse_old_format(&session)?;
    let idx = revision::resolve_entry(&session, &args.rev)?;
    let e = &session.entries[idx];
    if !e.is_role(&Role::User) {
        return Err(SessionError::Refused(format!(
            "{} is not a user message (it is {}): fork starts a new session just before a user message, so \
             that it can be edited and sent again; to copy the conversation up to and including this entry, use \
             `pi-session clone {}`",
            session.id_or_line(idx),
            e.kind_name(),
            session.id_or_line(idx)
        ))
        .into());
    }
    let v = session.value(idx);
    let text = user_text(v.pointer("/message/content"));
    let parent = match session.parent_id_str(idx) {
        None => None,
        Some(p) => Some(session.lookup(p).ok_or_else(|| {
            SessionError::Refused(format!(
                "the parent {p} of this message does not exist; run `pi-session repair`"
            ))
        })?),
    };
    let new = branched_session(&session, parent)?;
    write_and_report(&session, &new, &args.new_session, Some(&text), out)?;
    Output::say_block(&format!(
        "{} before this message, to edit and send again:\n{}",
        if args.new_session.dry_run {
            "would fork"
        } else {
            "forked"
        },
        escape_block(&text)
    ));
    Ok(())
}

/// The text of a user message as Pi puts it back in the editor: a string, or the text
/// parts joined with nothing between them.
fn user_text(content: Option<&Value>) -> String {
    let blocks = Content::of_value(content).blocks().unwrap_or_default();
    blocks
        .into_iter()
        .filter_map(|b| match b {
            Block::Text { text } => text,
            _ => None,
        })
        .collect()
}
