//! New sessions made from a branch of another: what Pi's `/clone` and `/fork` write
//! (`createBranchedSession` in session-manager.js), built from the source's original bytes.
//!
//! The path from the root to the chosen entry is copied without its `label` entries; the
//! entries after a removed label are re-chained to the entry before it, and a compaction
//! that kept from a removed label keeps from the entry that replaced it. The labels that
//! apply to copied entries are then re-created at the end, with their original timestamps.
//! Only the fields that change are rewritten; every other value keeps its bytes.

use super::io::append::{new_entry_id, now_timestamp};
use super::{Detail, EntryIdx, EntryKind, Session, SessionError};
use crate::json::rawjson::{fields, object_line, with_fields};
use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// A new session file, ready to be written.
#[derive(Debug)]
pub struct NewSession {
    pub id: String,
    /// When the new session was made (the header's `timestamp`).
    pub timestamp: String,
    /// The whole file: header and entries, each line ending with `\n`.
    pub content: String,
    /// Entries after the header.
    pub entries: usize,
    pub parent_session: String,
}

impl NewSession {
    /// Pi's file name for a session: `<timestamp with : and . as ->_<id>.jsonl`.
    pub fn file_name(&self) -> String {
        format!("{}_{}.jsonl", self.timestamp.replace([':', '.'], "-"), self.id)
    }
}

/// New files are written in format v3 only; older sources need `repair` first.
pub fn refuse_old_format(session: &Session) -> Result<(), SessionError> {
    let version = session.header.format();
    if version < super::CURRENT_VERSION {
        return Err(SessionError::OldFormat {
            path: session.path.clone(),
            version,
        });
    }
    Ok(())
}

/// The new session holding the path from the root to `leaf` (`None`: the header only, as
/// when forking the first message).
pub fn branched_session(session: &Session, leaf: Option<EntryIdx>) -> Result<NewSession, SessionError> {
    let id = uuid::Uuid::now_v7().to_string();
    let timestamp = now_timestamp();
    let source = absolute(&session.path);
    let cwd = match &session.header.cwd {
        Some(c) => c.clone(),
        None => std::env::current_dir()
            .map(|d| d.to_string_lossy().into_owned())
            .unwrap_or_default(),
    };
    let header = object_line(vec![
        ("type", "session".into()),
        ("version", 3.into()),
        ("id", Value::from(id.as_str())),
        ("timestamp", Value::from(timestamp.as_str())),
        ("cwd", Value::from(cwd)),
        ("parentSession", Value::from(source.to_string_lossy().into_owned())),
    ]);
    let mut content = header;
    content.push('\n');
    let mut entries = 0;
    if let Some(leaf) = leaf {
        let branch = session.branch(leaf);
        refuse_cycle(session, &branch)?;
        let (lines, kept_ids) = copy_path(session, &branch.path)?;
        for l in &lines {
            content.push_str(l);
            content.push('\n');
        }
        entries += lines.len();
        let labels = recreated_labels(session, &kept_ids, kept_ids.last().cloned());
        entries += labels.len();
        for l in labels {
            content.push_str(&l);
            content.push('\n');
        }
    }
    Ok(NewSession {
        id,
        timestamp,
        content,
        entries,
        parent_session: source.to_string_lossy().into_owned(),
    })
}

/// Refuses a branch that runs into a parent cycle: Pi, walking up from an entry inside one,
/// never reaches a root (it runs out of memory opening the session).
pub fn refuse_cycle(session: &Session, branch: &super::Branch) -> Result<(), SessionError> {
    match branch.cycle_at {
        Some(at) => Err(SessionError::Refused(format!(
            "the branch runs into a parent cycle at {}; run `pi-session repair` first",
            session.line_label(at)
        ))),
        None => Ok(()),
    }
}

/// The path without labels, re-chained; returns the lines and the copied ids in order.
fn copy_path(session: &Session, path: &[EntryIdx]) -> Result<(Vec<String>, Vec<String>), SessionError> {
    let mut lines = Vec::with_capacity(path.len());
    let mut kept_ids: Vec<String> = Vec::with_capacity(path.len());
    let mut replacement: FxHashMap<String, String> = FxHashMap::default();
    let mut pending_labels: Vec<String> = Vec::new();
    let mut parent: Option<String> = None;
    for &i in path {
        let e = &session.entries[i];
        // An entry without an id can be nobody's parent: it can only end the path.
        let id = session.id_str(i).map(str::to_owned);
        if e.kind == EntryKind::Label {
            pending_labels.extend(id);
            continue;
        }
        for l in pending_labels.drain(..) {
            if let Some(id) = &id {
                replacement.insert(l, id.clone());
            }
        }
        let mut set: Vec<(&str, Value)> = Vec::new();
        // Pi writes every copied entry's parentId; the index reads `""` (or a missing one)
        // as no parent, so the first entry's line says whether it already holds `null`.
        let written_null = || session.value(i).get("parentId") == Some(&Value::Null);
        if session.parent_id_str(i) != parent.as_deref() || (parent.is_none() && !written_null()) {
            set.push(("parentId", parent.as_deref().map(Value::from).unwrap_or(Value::Null)));
        }
        if let Detail::Compaction {
            first_kept: Some(fk), ..
        } = &e.detail
        {
            let fk = session.ids().name(*fk);
            if Some(fk) != id.as_deref()
                && let Some(r) = replacement.get(fk)
            {
                set.push(("firstKeptEntryId", Value::from(r.as_str())));
            }
        }
        let raw = std::str::from_utf8(session.raw(i)).ok();
        let line = match (set.is_empty(), raw) {
            (true, Some(raw)) => raw.to_owned(),
            _ => {
                let text = String::from_utf8_lossy(session.raw(i));
                let f = fields(&text).ok_or_else(|| {
                    SessionError::Refused(format!("line {} cannot be copied: it is not a JSON object", e.line))
                })?;
                with_fields(&f, &set)
            }
        };
        lines.push(line);
        parent = id.clone();
        kept_ids.extend(id);
    }
    Ok((lines, kept_ids))
}

/// Label entries for the current labels of copied entries, in the order Pi keeps them (a
/// JavaScript Map: first setting wins the place, clearing removes it), chained after `last`.
fn recreated_labels(session: &Session, kept_ids: &[String], last: Option<String>) -> Vec<String> {
    let kept: FxHashSet<&str> = kept_ids.iter().map(String::as_str).collect();
    let mut order: Vec<String> = Vec::new();
    let mut current: FxHashMap<String, (String, Option<String>)> = FxHashMap::default();
    for (i, e) in session.entries.iter().enumerate() {
        let Detail::Label { target: Some(t), label } = &e.detail else {
            continue;
        };
        let t = session.ids().name(*t).to_owned();
        match label.as_deref().filter(|l| !l.is_empty()) {
            Some(l) => {
                if !current.contains_key(&t) {
                    order.push(t.clone());
                }
                current.insert(
                    t,
                    (l.to_owned(), session.entries[i].timestamp.as_deref().map(str::to_owned)),
                );
            }
            None => {
                if current.remove(&t).is_some() {
                    order.retain(|o| *o != t);
                }
            }
        }
    }
    let mut taken: FxHashSet<String> = kept_ids.iter().cloned().collect();
    let mut parent = last;
    let mut out = Vec::new();
    for t in order.iter().filter(|t| kept.contains(t.as_str())) {
        let (label, ts) = &current[t];
        let id = new_entry_id(|c| taken.contains(c) || session.ids().get(c).is_some());
        taken.insert(id.clone());
        let mut pairs = vec![
            ("type", Value::from("label")),
            ("id", Value::from(id.as_str())),
            ("parentId", parent.as_deref().map(Value::from).unwrap_or(Value::Null)),
        ];
        if let Some(ts) = ts {
            pairs.push(("timestamp", Value::from(ts.as_str())));
        }
        pairs.push(("targetId", Value::from(t.as_str())));
        pairs.push(("label", Value::from(label.as_str())));
        out.push(object_line(pairs));
        parent = Some(id);
    }
    out
}

/// `path` made absolute against the current directory, with `.` and `..` folded away
/// (Node's `path.resolve`; symlinks are not followed).
pub fn absolute(path: &Path) -> PathBuf {
    match std::env::current_dir() {
        Ok(dir) => resolve(&dir, path),
        Err(_) => resolve(Path::new(""), path),
    }
}

/// `path` resolved against `base` without looking at the disk: `.` and `..` folded away,
/// an absolute `path` taken as it is (Node's `path.resolve(base, path)`).
pub fn resolve(base: &Path, path: &Path) -> PathBuf {
    use std::path::Component;
    let joined = base.join(path);
    let mut out = PathBuf::new();
    for c in joined.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}
