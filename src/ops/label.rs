//! Setting, moving and clearing labels as Pi keeps them: one label per entry, set and
//! cleared by `label` entries in file order ([`crate::session::Session::labels`] is that
//! rule). A name is on one entry at a time here: [`NameCheck`] says what a new name meets in
//! the whole file, [`label_lines`] writes the entries that move it.
//!
//! A session read from its end holds only the labels of its end. The part before it is not
//! loaded: the lines there that can matter (label entries, the entries a name labels, ids
//! that start with the name) are found by a byte search ([`line_search`]) and loaded with
//! the part read, so the loader's own rule answers for the whole file.

use crate::session::io::append::{entry_line, new_entry_id};
use crate::session::{EntryIdx, Session, SessionError, line_search, revision, text};
use serde_json::Value;

/// Refuses names the revision syntax would read otherwise, or that a terminal could not show.
pub fn check_name(name: &str) -> Result<(), SessionError> {
    if name.trim().is_empty() {
        return Err(SessionError::Refused(
            "a label needs a name; use --delete to clear one".into(),
        ));
    }
    if name.chars().any(char::is_control) {
        return Err(SessionError::Refused(
            "a label cannot contain control characters or newlines".into(),
        ));
    }
    // As git refuses `~ ^ :` in ref names: `x~1` must mean the parent of x, never a label.
    // `@…` is the leaf and jj's `@-`. (`root` is allowed, with a warning, as `label:root`
    // reaches it.)
    if let Some(c) = name.chars().find(|c| matches!(c, '~' | '^' | ':')) {
        return Err(SessionError::Refused(format!(
            "'{name}' would be read as revision syntax, not as a label: a label cannot contain '{c}'"
        )));
    }
    if name.starts_with('@') {
        return Err(SessionError::Refused(format!(
            "'{name}' would be read as revision syntax, not as a label"
        )));
    }
    Ok(())
}

/// What a new NAME for the target meets in the whole file.
#[derive(Debug)]
pub struct NameCheck {
    /// The target's current label.
    pub current: Option<String>,
    /// The other entries NAME labels now, in the order they were labelled.
    pub holders: Vec<String>,
    /// NAME is long enough to be an id prefix, and some other id starts with it.
    pub shadows_id: bool,
    /// The preview of the first holder's entry.
    pub first_holder_preview: Option<String>,
}

impl NameCheck {
    /// What NAME meets, for the entry `target` of `session` (a whole file or its end).
    pub fn of(session: &Session, target: EntryIdx, name: &str) -> Result<NameCheck, SessionError> {
        if session.is_complete() || session.id_str(target).is_none() {
            return Ok(NameCheck::of_whole(session, target, name));
        }
        let (whole, target) = with_lines_before(session, target, name)?;
        Ok(NameCheck::of_whole(&whole, target, name))
    }

    fn of_whole(session: &Session, target: EntryIdx, name: &str) -> NameCheck {
        let target_id = session.id_str(target).unwrap_or_default();
        let holders: Vec<String> = session
            .targets_labelled(name)
            .into_iter()
            .filter(|&sym| session.lookup_sym(sym).is_some_and(|i| i != target))
            .map(|sym| session.ids().name(sym).to_owned())
            .collect();
        NameCheck {
            current: session.label_of(target).map(str::to_owned),
            first_holder_preview: holders
                .first()
                .and_then(|h| session.lookup(h))
                .map(|i| text::preview(session, i)),
            holders,
            shadows_id: name.len() >= revision::MIN_PREFIX_LEN
                && session
                    .ids()
                    .iter()
                    .any(|(_, id)| id.starts_with(name) && id != target_id),
        }
    }
}

/// `session` (read from the end) with the lines before it that can matter to NAME, loaded as
/// one session: the lines in file order, then the entries read. Returns it with the index
/// `target` has in it.
fn with_lines_before(session: &Session, target: EntryIdx, name: &str) -> Result<(Session, EntryIdx), SessionError> {
    let (data, range) = line_search::unread(session)?;
    let before = &data[range];
    let needles: &[&str] = if name.len() >= revision::MIN_PREFIX_LEN {
        &["label", name]
    } else {
        &["label"]
    };
    let mut lines = line_search::scan(before, needles);
    let mut whole = line_search::with_lines(session, before, &lines)?;
    // The entries NAME labels that are before the part read: their lines too.
    let far: Vec<String> = whole
        .targets_labelled(name)
        .into_iter()
        .filter(|&sym| whole.lookup_sym(sym).is_none())
        .map(|sym| whole.ids().name(sym).to_owned())
        .collect();
    if !far.is_empty() {
        let far: Vec<&str> = far.iter().map(String::as_str).collect();
        lines.extend(line_search::scan(before, &far));
        lines.sort_by_key(|r| r.start);
        lines.dedup();
        whole = line_search::with_lines(session, before, &lines)?;
    }
    let target = whole.entries.len() - session.entries.len() + target;
    Ok((whole, target))
}

/// The label entries that set NAME on `target_id` (or, without a name, clear its label),
/// after clearing it on each of `holders` first: Pi keeps one label per entry, so this
/// leaves Pi (and every revision) with the name on the target only. They are chained from
/// Pi's leaf, as Pi appends labels, all with `timestamp`.
pub fn label_lines(
    session: &Session,
    target_id: &str,
    name: Option<&str>,
    holders: &[String],
    timestamp: &str,
) -> Vec<String> {
    let mut parent = session.leaf().and_then(|l| session.id_str(l)).map(str::to_owned);
    let mut lines: Vec<String> = Vec::new();
    let mut taken: Vec<String> = Vec::new();
    let mut entry = |rest: Vec<(&str, Value)>| {
        let id = new_entry_id(|c| session.ids().get(c).is_some() || taken.iter().any(|t| t == c));
        lines.push(entry_line("label", &id, parent.as_deref(), timestamp, rest));
        taken.push(id.clone());
        parent = Some(id);
    };
    for holder in holders {
        entry(vec![("targetId", Value::from(holder.as_str()))]);
    }
    let mut rest = vec![("targetId", Value::from(target_id))];
    if let Some(name) = name {
        rest.push(("label", Value::from(name)));
    }
    entry(rest);
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::path::PathBuf;

    /// Three user messages in a chain (p1 ← p2 ← p3), p2 labelled `name`.
    fn labelled(name: &str) -> Session {
        let line = |id: &str, parent: &str, k: u32| {
            format!(
                r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2026-01-01T00:00:0{k}.000Z","message":{{"role":"user","content":"x"}}}}"#
            )
        };
        let label = serde_json::json!({
            "type": "label", "id": "p4", "parentId": "p3",
            "timestamp": "2026-01-01T00:00:04.000Z", "targetId": "p2", "label": name,
        });
        let data = [
            r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}"#.to_owned(),
            line("p1", "null", 1),
            line("p2", "\"p1\"", 2),
            line("p3", "\"p2\"", 3),
            label.to_string(),
        ]
        .join("\n");
        Session::from_bytes(PathBuf::from("/t.jsonl"), data.into_bytes()).unwrap()
    }

    fn at(session: &Session, rev: &str) -> Option<String> {
        let idx = revision::resolve(session, rev).ok()??;
        session.id_str(idx).map(str::to_owned)
    }

    proptest! {
        /// A name `label` accepts means its entry, bare or as `label:NAME`, and `NAME~1`
        /// means the entry's parent: no accepted name is read as revision syntax.
        #[test]
        fn accepted_names_mean_their_entry(name in "[a-z@~^:/ ._-]{1,8}|[^\\p{Cc}]{1,6}") {
            prop_assume!(check_name(&name).is_ok());
            // An id or id prefix would win over the label (and is warned about when set).
            prop_assume!(!["p1", "p2", "p3", "p4", "root"].iter().any(|id| id.starts_with(name.as_str()) || name == *id));
            let session = labelled(&name);
            prop_assert_eq!(at(&session, &format!("label:{name}")), Some("p2".to_owned()));
            prop_assert_eq!(at(&session, &name), Some("p2".to_owned()));
            prop_assert_eq!(at(&session, &format!("{name}~1")), Some("p1".to_owned()));
            prop_assert_eq!(at(&session, &format!("{name}^")), Some("p1".to_owned()));
        }
    }
}
