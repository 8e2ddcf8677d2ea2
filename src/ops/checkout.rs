//! Where `checkout` moves `@`, and what it leaves behind: the target resolved as `@` stands
//! (never on a label or a checkout record), `checkout -` read from the newest checkout
//! record, a target inside a parent cycle refused, the entries left behind counted. Works
//! on a file's end, answering [`SessionError::NeedMore`] while the part read cannot tell.

use crate::session::branch_copy::refuse_cycle;
use crate::session::{EntryIdx, Session, SessionError, revision};
use rustc_hash::FxHashSet;
use serde_json::Value;

/// Where to move `@`.
#[derive(Debug, Clone, Copy)]
pub enum Target<'a> {
    /// An empty position: the next message starts a new root.
    Empty,
    /// Back to where the newest checkout came from (`checkout -`).
    Back,
    /// The position of this revision.
    Rev(&'a str),
}

/// A checkout worked out.
#[derive(Debug)]
pub struct Plan {
    /// Where `@` stands now.
    pub from: Option<EntryIdx>,
    /// Where it goes.
    pub target: Option<EntryIdx>,
    /// The revision named a bookkeeping entry (a label, a checkout record), and `target` is
    /// the position it stands for.
    pub named_bookkeeping: Option<EntryIdx>,
    /// Entries on `from`'s branch that are not on `target`'s.
    pub abandoned: usize,
}

/// Works out a checkout to `target`.
pub fn plan(session: &Session, target: Target) -> Result<Plan, SessionError> {
    let from = session.at_checked()?;
    let mut named_bookkeeping = None;
    let target = match target {
        Target::Empty => None,
        Target::Back => previous_position(session)?,
        Target::Rev(rev) => {
            let idx = revision::resolve_entry(session, rev)?;
            // @ never stands on a label or checkout record: move to what it stands for.
            let pos = session.position_of(idx);
            if pos != Some(idx) {
                named_bookkeeping = Some(idx);
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
    let abandoned = abandoned_entries(session, from, target)?;
    Ok(Plan {
        from,
        target,
        named_bookkeeping,
        abandoned,
    })
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

/// What `checkout --json` prints.
#[derive(Debug, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CheckoutRecord {
    /// Where @ now stands (`null`: an empty position).
    pub at: Option<String>,
    /// Where @ stood.
    pub from: Option<String>,
    /// Entries left behind on the branch left.
    pub abandoned: usize,
    /// The id of the checkout record appended (`null` when nothing was to do).
    pub record: Option<String>,
    /// With --dry-run: `true`, and the line that would have been appended.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dry_run: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<String>,
}
