//! Revisions: names for entries, used by every command that takes REV.
//!
//! ```text
//! @            where the conversation stands (Pi's leaf, past trailing labels and checkouts)
//! ID           a full entry id            label:NAME  a label, forced
//! NAME         a label                    id:ID       an id or unique prefix, forced
//! PREFIX       a unique id prefix (4+)    root        the first entry of @'s branch
//! REV~N REV^   ancestors                  :/TEXT      newest entry on @'s branch whose
//!                                                      user or assistant text has TEXT
//! ```
//! A bare name is read as an exact id first, then a label, then an id prefix. jj's `@-`
//! (`@--`, …) is `@~1` (`@~2`, …).

use super::{EntryIdx, Session, SessionError, text};

pub const MIN_PREFIX_LEN: usize = 4;

/// Resolves a revision to an entry. `Ok(None)` is the empty position: `@` after
/// `checkout --empty`, where the next message starts a new root.
pub fn resolve(session: &Session, rev: &str) -> Result<Option<EntryIdx>, SessionError> {
    if rev.is_empty() {
        return Err(invalid(rev, "empty revision"));
    }
    if let Some(text) = rev.strip_prefix(":/") {
        return search_text(session, rev, text).map(Some);
    }
    // A whole name that is an id or a label wins over reading `~`/`^` as suffixes.
    if let Some(idx) = exact(session, rev)? {
        return Ok(Some(idx));
    }
    // jj's `@-`, `@--`: the parent of `@`, its grandparent (`@~1`, `@~2` here).
    let (base, steps) = match rev.strip_prefix('@') {
        Some(dashes) if !dashes.is_empty() && dashes.bytes().all(|b| b == b'-') => ("@", dashes.len()),
        _ => split_suffixes(rev)?,
    };
    let start = base_entry(session, rev, base)?;
    if steps == 0 {
        return Ok(start);
    }
    let Some(start) = start else {
        return Err(session.empty_position(rev));
    };
    session.ancestor(start, steps).map(Some).map_err(|available| {
        // Read from the end, the walk may only have reached the edge of what was read.
        let edge = session
            .ancestor(start, available)
            .ok()
            .and_then(|e| session.entries[e].parent);
        if edge.is_some() && !session.is_complete() {
            SessionError::NeedMore
        } else {
            SessionError::PastRoot {
                rev: rev.to_owned(),
                available,
            }
        }
    })
}

/// In a session read from the end, names that need the whole file (labels, id prefixes,
/// ids not read) ask for more of it.
fn need_whole(session: &Session) -> Result<(), SessionError> {
    if session.is_complete() {
        Ok(())
    } else {
        Err(SessionError::NeedMore)
    }
}

/// Like [`resolve`], but the empty position is an error.
pub fn resolve_entry(session: &Session, rev: &str) -> Result<EntryIdx, SessionError> {
    resolve(session, rev)?.ok_or_else(|| session.empty_position(rev))
}

fn invalid(rev: &str, reason: &str) -> SessionError {
    SessionError::InvalidRevision {
        rev: rev.to_owned(),
        reason: reason.to_owned(),
    }
}

/// An exact id or label for the whole string (no keywords, no prefixes).
fn exact(session: &Session, name: &str) -> Result<Option<EntryIdx>, SessionError> {
    if name == "@" || name == "root" || name.contains(':') {
        return Ok(None);
    }
    if let Some(idx) = session.lookup(name) {
        return Ok(Some(idx));
    }
    if !session.is_complete() {
        return Ok(None); // decided below, where a partial read asks for more
    }
    label(session, name, name)
}

/// Splits `BASE~2^~` into the base and the number of parent steps.
fn split_suffixes(rev: &str) -> Result<(&str, usize), SessionError> {
    let cut = rev.find(['~', '^']).unwrap_or(rev.len());
    let (base, mut rest) = rev.split_at(cut);
    let mut steps = 0usize;
    while let Some(c) = rest.chars().next() {
        rest = &rest[1..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let n = if digits == 0 {
            1
        } else {
            rest[..digits]
                .parse::<usize>()
                .map_err(|_| invalid(rev, "ancestor count too large"))?
        };
        rest = &rest[digits..];
        // `^N` would select the N-th parent in git; entries have one, so only `^` and `^1`.
        if c == '^' && n != 1 {
            return Err(invalid(rev, "entries have a single parent: use REV^ or REV~N"));
        }
        if c != '~' && c != '^' {
            return Err(invalid(rev, "expected ~N or ^ after the revision"));
        }
        steps = steps.saturating_add(n);
    }
    if base.is_empty() {
        return Err(invalid(rev, "missing revision before ~ or ^"));
    }
    Ok((base, steps))
}

fn base_entry(session: &Session, rev: &str, base: &str) -> Result<Option<EntryIdx>, SessionError> {
    if base == "@" {
        return session.at_checked();
    }
    if base == "root" {
        let Some(at) = session.at_checked()? else {
            return Err(session.empty_position(rev));
        };
        let branch = session.branch(at);
        session.check_edge(&branch)?;
        return Ok(branch.path.first().copied());
    }
    if let Some(name) = base.strip_prefix("label:") {
        need_whole(session)?;
        return label(session, rev, name)?
            .map(Some)
            .ok_or_else(|| SessionError::UnknownRevision(rev.to_owned()));
    }
    if let Some(id) = base.strip_prefix("id:") {
        return id_or_prefix(session, rev, id).map(Some);
    }
    if let Some(idx) = session.lookup(base) {
        return Ok(Some(idx));
    }
    need_whole(session)?;
    if let Some(idx) = label(session, rev, base)? {
        return Ok(Some(idx));
    }
    id_or_prefix(session, rev, base).map(Some)
}

fn label(session: &Session, rev: &str, name: &str) -> Result<Option<EntryIdx>, SessionError> {
    let targets: Vec<EntryIdx> = session
        .targets_labelled(name)
        .into_iter()
        .filter_map(|sym| session.lookup_sym(sym))
        .collect();
    match targets.as_slice() {
        [] => Ok(None),
        [one] => Ok(Some(*one)),
        many => Err(SessionError::AmbiguousRevision {
            rev: rev.to_owned(),
            candidates: many.iter().map(|&i| session.id_or_line(i)).collect(),
        }),
    }
}

fn id_or_prefix(session: &Session, rev: &str, id: &str) -> Result<EntryIdx, SessionError> {
    if let Some(idx) = session.lookup(id) {
        return Ok(idx);
    }
    need_whole(session)?;
    if id.len() < MIN_PREFIX_LEN {
        return Err(SessionError::UnknownRevision(rev.to_owned()));
    }
    let mut matches: Vec<EntryIdx> = session
        .ids()
        .iter()
        .filter(|(_, name)| name.starts_with(id))
        .filter_map(|(sym, _)| session.lookup_sym(sym))
        .collect();
    matches.sort_unstable();
    match matches.as_slice() {
        [] => Err(SessionError::UnknownRevision(rev.to_owned())),
        [one] => Ok(*one),
        many => Err(SessionError::AmbiguousRevision {
            rev: rev.to_owned(),
            candidates: many.iter().map(|&i| session.id_or_line(i)).collect(),
        }),
    }
}

fn search_text(session: &Session, rev: &str, needle: &str) -> Result<EntryIdx, SessionError> {
    if needle.is_empty() {
        return Err(invalid(rev, "empty search text after :/"));
    }
    let at = session.at_checked()?.ok_or_else(|| session.empty_position(rev))?;
    let branch = session.branch(at);
    let found = branch
        .path
        .iter()
        .rev()
        .copied()
        .find(|&i| text::conversation_text(session, i).is_some_and(|t| t.contains(needle)));
    if found.is_none() {
        session.check_edge(&branch)?;
    }
    found.ok_or_else(|| SessionError::TextNotFound {
        rev: rev.to_owned(),
        text: needle.to_owned(),
        at: session.id_or_line(at),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn suffixes() {
        assert_eq!(split_suffixes("@~3").unwrap(), ("@", 3));
        assert_eq!(split_suffixes("@^^").unwrap(), ("@", 2));
        assert_eq!(split_suffixes("abcd~2^").unwrap(), ("abcd", 3));
        assert_eq!(split_suffixes("@~").unwrap(), ("@", 1));
        assert!(split_suffixes("@^2").is_err());
        assert!(split_suffixes("~2").is_err());
        assert!(split_suffixes("@~x").is_err());
    }
}
