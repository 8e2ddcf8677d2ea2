//! The tree as `tree` shows it: Pi's `/tree` order (the branch holding the leaf first), its filters (the default view hides bookkeeping
//! entries and assistant messages holding only tool calls), the cut at a fork depth, the
//! marks of `@`'s branch, and the `--json` record of a row.

use crate::json::jsjson;
use crate::session::tree::{Tree, TreeRecord, TreeRow};
use crate::session::{EntryIdx, EntryKind, Role, Session, preview};
use std::fmt::Write as _;

/// Which entries the view shows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Filter {
    /// Pi's default view.
    Default,
    /// Every entry.
    All,
    /// User messages only.
    User,
}

/// The rows of a tree view, in display order.
#[derive(Debug)]
pub struct View {
    pub rows: Vec<TreeRow>,
    /// With a depth: per row kept, how many rows below it were cut.
    pub cut: Vec<usize>,
    /// The tree holds a parent cycle (through duplicate ids).
    pub cycle: bool,
    /// The rows stopped at the tree's row limit (duplicate lines repeating subtrees).
    pub truncated: bool,
    /// Entries no root leads to (on a parent cycle, or below one), which Pi shows nowhere.
    pub unreachable: usize,
}

/// The rows `filter` shows, cut at `depth` forks.
pub fn view(session: &Session, filter: Filter, depth: Option<usize>) -> View {
    let mut tree = Tree::build(session);
    tree.leaf_branch_first(session, session.leaf());
    let rows = match filter {
        Filter::All => tree.rows(|_| true),
        Filter::User => tree.rows(|i| session.entries[i].is_role(&Role::User)),
        Filter::Default => {
            let visible = default_view(session, session.leaf());
            tree.rows(|i| visible[i])
        }
    };
    let (rows, cut) = match depth {
        Some(max) => cut_depth(rows, max),
        None => (rows, Vec::new()),
    };
    View {
        rows,
        cut,
        cycle: tree.cycle,
        truncated: tree.truncated,
        unreachable: tree.unreachable,
    }
}

/// The rows at most `max` forks deep (a fork: a row with more than one child row), their
/// parents renumbered; with, for each row kept, how many rows below it were cut.
fn cut_depth(rows: Vec<TreeRow>, max: usize) -> (Vec<TreeRow>, Vec<usize>) {
    let fork: Vec<bool> = rows.iter().map(|r| r.children > 1).collect();
    let mut forks = vec![0usize; rows.len()];
    // Per row: its new index when kept, else the new index of its nearest kept ancestor.
    let mut kept_as = vec![0usize; rows.len()];
    let mut kept = Vec::with_capacity(rows.len());
    let mut cut = Vec::with_capacity(rows.len());
    for (r, mut row) in rows.into_iter().enumerate() {
        // A parent comes before its children, and forks never decrease down a path: the
        // parent of a row kept was kept.
        forks[r] = row.parent_row.map_or(0, |p| forks[p] + usize::from(fork[p]));
        if forks[r] <= max {
            row.parent_row = row.parent_row.map(|p| kept_as[p]);
            kept_as[r] = kept.len();
            kept.push(row);
            cut.push(0);
        } else {
            let p = row.parent_row.expect("a root is 0 forks deep");
            kept_as[r] = kept_as[p];
            cut[kept_as[p]] += 1;
        }
    }
    (kept, cut)
}

/// Pi's default filter of the tree view.
fn default_visible(session: &Session, i: EntryIdx, leaf: Option<EntryIdx>) -> bool {
    let e = &session.entries[i];
    match &e.kind {
        EntryKind::Usage
        | EntryKind::Label
        | EntryKind::ContextEdit
        | EntryKind::Custom
        | EntryKind::ModelChange
        | EntryKind::ThinkingLevelChange
        | EntryKind::SessionInfo => false,
        EntryKind::Message if e.is_role(&Role::Assistant) && Some(i) != leaf => {
            // Assistant messages with only tool calls are hidden unless they ended badly.
            let (has_text, stop) = preview::assistant_visibility(session.raw(i), e.message_at());
            has_text || stop.is_some_and(|s| s != "stop" && s != "toolUse")
        }
        _ => true,
    }
}

/// [`default_visible`] of every entry, worked out on every core.
fn default_view(session: &Session, leaf: Option<EntryIdx>) -> Vec<bool> {
    const PIECE: usize = 4096;
    let n = session.entries.len();
    let pieces: Vec<std::ops::Range<usize>> = (0..n).step_by(PIECE).map(|s| s..n.min(s + PIECE)).collect();
    crate::parallel::par_map(
        &pieces,
        |r| {
            let visible = r
                .clone()
                .map(|i| default_visible(session, i, leaf))
                .collect::<Vec<bool>>();
            // The lines looked at are given back (large files only).
            session.release_entries(r.clone());
            visible
        },
        || {},
    )
    .concat()
}

/// `tree --json`'s record of a row, written as `JSON.stringify` writes the [`TreeRecord`].
pub fn write_record(buf: &mut String, session: &Session, row: &TreeRow, at: Option<EntryIdx>) {
    let r = TreeRecord::new(session, row, at);
    let string = |buf: &mut String, key: &str, s: Option<&str>| {
        buf.push_str(key);
        match s {
            // Nothing to escape: no quote, backslash or control character, and no character
            // from U+100000 on (lone surrogates' stand-ins are there).
            Some(s) if !s.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20 || b == 0xF4) => {
                buf.push('"');
                buf.push_str(s);
                buf.push('"');
            }
            Some(s) => jsjson::write_string(buf, s),
            None => buf.push_str("null"),
        }
    };
    string(buf, "{\"id\":", r.id);
    string(buf, ",\"parentId\":", r.parent_id);
    let _ = write!(buf, ",\"depth\":{}", r.depth);
    string(buf, ",\"type\":", r.kind);
    string(buf, ",\"role\":", r.role);
    string(buf, ",\"label\":", r.label);
    match (r.timestamp, session.timestamp_not_string(row.entry)) {
        (None, Some(other)) => {
            buf.push_str(",\"timestamp\":");
            buf.push_str(&jsjson::stringify(&other));
        }
        (ts, _) => string(buf, ",\"timestamp\":", ts),
    }
    let _ = write!(buf, ",\"current\":{},\"children\":{}}}", r.current, r.children);
}

/// Which entries are on `at`'s branch ([`Session::branch`]'s path), as marks by entry: the
/// marks are also the walk's record of where it has been, so a parent cycle stops it as it
/// stops that walk.
pub fn branch_marks(session: &Session, at: Option<EntryIdx>) -> Vec<bool> {
    let mut marks = vec![false; session.entries.len()];
    let mut cur = at;
    while let Some(i) = cur.filter(|&i| !marks[i]) {
        marks[i] = true;
        cur = session.parent(i);
    }
    marks
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustc_hash::FxHashSet;

    #[test]
    fn the_branch_marks_are_the_branch_path() {
        let header = r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}"#;
        let line = |id: &str, parent: &str| {
            format!(
                r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2025-01-01T00:00:01.000Z","message":{{"role":"user","content":"x"}}}}"#
            )
        };
        // A chain, a side branch, and a cycle through a duplicate id.
        let lines = [
            line("a", "null"),
            line("b", r#""a""#),
            line("c", r#""b""#),
            line("d", r#""a""#),
            line("x", r#""y""#),
            line("y", r#""x""#),
            line("b", r#""c""#),
        ];
        let text = format!("{header}\n{}\n", lines.join("\n"));
        let session = Session::from_bytes("t.jsonl".into(), text.into_bytes()).unwrap();
        for at in 0..session.entries.len() {
            let marks = branch_marks(&session, Some(at));
            let path: FxHashSet<EntryIdx> = session.branch(at).path.into_iter().collect();
            let marked: FxHashSet<EntryIdx> = (0..marks.len()).filter(|&i| marks[i]).collect();
            assert_eq!(marked, path, "at {at}");
        }
    }

    #[test]
    fn records_are_written_as_json_stringify_writes_them() {
        let header = r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}"#;
        let lines = [
            r#"{"type":"message","id":"a\"b\\c","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"x"}}"#,
            r#"{"type":"message","id":"\u2028\ud800é\u0001","parentId":"a\"b\\c","timestamp":"t\n","message":{"role":"assistant","content":[]}}"#,
            r#"{"type":"label","id":"l","parentId":"\u2028\ud800é\u0001","timestamp":"2025-01-01T00:00:02.000Z","targetId":"a\"b\\c","label":"mark \"q\" \u001b \udbff"}"#,
            r#"{"type":"mystery","id":"m","parentId":"nowhere"}"#,
        ];
        let text = format!("{header}\n{}\n", lines.join("\n"));
        let session = Session::from_bytes("t.jsonl".into(), text.into_bytes()).unwrap();
        let mut tree = Tree::build(&session);
        let rows = tree.rows(|_| true);
        assert_eq!(rows.len(), 4);
        for at in [None, Some(1)] {
            for row in &rows {
                let mut mine = String::new();
                write_record(&mut mine, &session, row, at);
                let value = serde_json::to_value(TreeRecord::new(&session, row, at)).unwrap();
                assert_eq!(mine, jsjson::stringify(&value));
            }
        }
    }
}
