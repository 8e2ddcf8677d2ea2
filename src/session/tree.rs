//! The session tree as Pi 1.6.0's `getTree` builds it, flattened in display order, and the
//! indentation of Pi's `/tree` view.
//!
//! Pi's rules: an entry whose parent is null, itself, or missing is a root (roots stay in
//! file order); children are sorted by timestamp, ties in file order. With duplicate ids,
//! the node for an id is the last entry that has it, and it is placed under the parent of
//! every entry carrying the id (so Pi shows it more than once). Unlike Pi, the walk is
//! iterative and stops at a node already on its own path, so a cycle cannot hang it.
//!
//! Pi's `/tree` (`tree-selector.js`) then draws the siblings holding the leaf first: a
//! root or child whose subtree holds the leaf moves ahead of its siblings, the others
//! keep their order ([`Tree::leaf_branch_first`]).

use super::{EntryIdx, Role, Session, text};
use serde::Serialize;

/// One row of the flattened tree.
#[derive(Debug, Clone)]
pub struct TreeRow {
    /// The entry shown.
    pub entry: EntryIdx,
    /// Visible ancestors of the row (roots 0).
    pub depth: usize,
    /// Row index of the nearest visible ancestor.
    pub parent_row: Option<usize>,
    /// Number of visible child rows.
    pub children: usize,
}

/// One row of `tree --json` (one JSON object per line, in display order).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TreeRecord<'a> {
    /// The entry's id (`null` for an entry without one).
    pub id: Option<&'a str>,
    /// The id the entry names as its parent, as written (it may be missing from the file).
    pub parent_id: Option<&'a str>,
    /// Visible ancestors of the row (roots 0).
    pub depth: usize,
    /// The entry's `type` (`message`, `compaction`, `label`, …).
    #[serde(rename = "type")]
    pub kind: Option<&'a str>,
    /// A message's `role`, `null` for other entries.
    pub role: Option<&'a str>,
    /// The entry's current label, if any.
    pub label: Option<&'a str>,
    /// The entry's `timestamp`, as written.
    pub timestamp: Option<&'a str>,
    /// Whether the entry is `@`, where the conversation stands.
    pub current: bool,
    /// Number of visible child rows.
    pub children: usize,
}

impl<'a> TreeRecord<'a> {
    /// The record of `row`; `at` is the entry `@` names.
    pub fn new(session: &'a Session, row: &TreeRow, at: Option<EntryIdx>) -> TreeRecord<'a> {
        let e = &session.entries[row.entry];
        TreeRecord {
            id: session.id_str(row.entry),
            parent_id: session.parent_id_str(row.entry),
            depth: row.depth,
            kind: e.kind.as_str(),
            role: e.role().map(Role::as_str),
            label: session.label_of(row.entry),
            timestamp: e.timestamp.as_deref(),
            current: Some(row.entry) == at,
            children: row.children,
        }
    }
}

/// One label of `label --list --json`: labels are marks on tree entries.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LabelRecord<'a> {
    /// The label.
    pub label: &'a str,
    /// The id of the entry it marks.
    pub target_id: &'a str,
    /// The marked entry's `type`; `null` when the entry is missing from the file.
    #[serde(rename = "type")]
    pub kind: Option<&'a str>,
    /// The marked entry's `role`, for a message.
    pub role: Option<&'a str>,
    /// The `timestamp` of the `label` entry that set the label.
    pub timestamp: Option<&'a str>,
    /// The start of the marked entry's text; `null` when the entry is missing.
    pub preview: Option<String>,
}

impl<'a> LabelRecord<'a> {
    /// The record of the label on `target`.
    pub fn new(session: &'a Session, target: super::Sym, state: &'a super::LabelState) -> LabelRecord<'a> {
        let entry = session.lookup_sym(target);
        let e = entry.map(|i| &session.entries[i]);
        LabelRecord {
            label: &state.label,
            target_id: session.ids().name(target),
            kind: e.and_then(|e| e.kind.as_str()),
            role: e.and_then(|e| e.role()).map(Role::as_str),
            timestamp: session.entries[state.set_by].timestamp.as_deref(),
            preview: entry.map(|i| text::preview(session, i)),
        }
    }
}

/// Each entry's children, in Pi's order, in one flat vector: a list per entry would be an
/// allocation per entry with children, fresh memory for a large file.
pub struct Children {
    /// The children of entry `i` are `flat[start[i]..start[i + 1]]`.
    start: Vec<u32>,
    flat: Vec<EntryIdx>,
}

impl Children {
    /// How many entries have a list (all of them, most empty).
    pub fn len(&self) -> usize {
        self.start.len() - 1
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl std::ops::Index<EntryIdx> for Children {
    type Output = [EntryIdx];
    fn index(&self, i: EntryIdx) -> &[EntryIdx] {
        &self.flat[self.start[i] as usize..self.start[i + 1] as usize]
    }
}

/// Children lists in Pi's order, and the roots.
pub struct Tree {
    pub roots: Vec<EntryIdx>,
    pub children: Children,
    /// A node was met again on its own path (a cycle through duplicate ids).
    pub cycle: bool,
    /// The rows stopped at [`Tree::row_limit`]: duplicate lines repeat subtrees more often
    /// than any real session does.
    pub truncated: bool,
    /// Entries no root leads to (they sit on a parent cycle, or below one): Pi shows none.
    pub unreachable: usize,
    /// How many nodes there are (an id carried by several entries is one node).
    nodes: usize,
}

impl Tree {
    pub fn build(session: &Session) -> Tree {
        let n = session.entries.len();
        // Each child's node and parent, then the lists laid out by count and filled in file
        // order.
        let mut placed: Vec<(u32, u32)> = Vec::with_capacity(n);
        let mut start = vec![0u32; n + 1];
        let mut roots = Vec::new();
        let mut nodes = 0;
        for (i, e) in session.entries.iter().enumerate() {
            let node = e.id.and_then(|id| session.lookup_sym(id)).unwrap_or(i);
            nodes += usize::from(node == i);
            let parent = match e.parent {
                None => None,
                Some(p) if Some(p) == e.id => None,
                Some(p) => session.lookup_sym(p),
            };
            match parent {
                Some(p) => {
                    start[p + 1] += 1;
                    placed.push((node as u32, p as u32));
                }
                None => roots.push(node),
            }
        }
        for k in 1..=n {
            start[k] += start[k - 1];
        }
        let mut next: Vec<u32> = start[..n].to_vec();
        let mut flat = vec![0; start[n] as usize];
        for &(node, parent) in &placed {
            let at = &mut next[parent as usize];
            flat[*at as usize] = node as EntryIdx;
            *at += 1;
        }
        drop((placed, next));
        for k in 0..n {
            let list = &mut flat[start[k] as usize..start[k + 1] as usize];
            if list.len() < 2 {
                continue;
            }
            let keys: Option<Vec<i64>> = list.iter().map(|&c| session.timestamp_ms(c)).collect();
            // JavaScript's sort treats NaN comparisons as ties, which gives no consistent
            // order; entries with unreadable timestamps keep file order.
            if let Some(keys) = keys {
                let mut pairs: Vec<(i64, EntryIdx)> = keys.into_iter().zip(list.iter().copied()).collect();
                pairs.sort_by_key(|&(k, _)| k);
                for (slot, (_, c)) in list.iter_mut().zip(pairs) {
                    *slot = c;
                }
            }
        }
        let children = Children { start, flat };
        Tree {
            roots,
            children,
            cycle: false,
            truncated: false,
            unreachable: 0,
            nodes,
        }
    }

    /// Orders every sibling list as Pi's `/tree` draws it for `leaf`: the sibling whose
    /// subtree holds the leaf first, the others after it in their order.
    pub fn leaf_branch_first(&mut self, session: &Session, leaf: Option<EntryIdx>) {
        let Some(leaf) = leaf else { return };
        // Pi compares ids: the leaf's node is the last entry with the leaf's id.
        let leaf = session.entries[leaf]
            .id
            .and_then(|id| session.lookup_sym(id))
            .unwrap_or(leaf);
        let holds = self.holding(leaf);
        let first = |list: &mut [EntryIdx]| {
            if list.len() > 1 && list.iter().any(|&c| holds[c]) {
                let (mut front, back): (Vec<EntryIdx>, Vec<EntryIdx>) = list.iter().partition(|&&c| holds[c]);
                front.extend(back);
                list.copy_from_slice(&front);
            }
        };
        first(&mut self.roots);
        for node in (0..holds.len()).filter(|&i| holds[i]) {
            let (from, to) = (
                self.children.start[node] as usize,
                self.children.start[node + 1] as usize,
            );
            first(&mut self.children.flat[from..to]);
        }
    }

    /// Per node: whether its subtree holds `leaf`. A post-order walk from the roots; a node
    /// is settled once (duplicate ids may place it under several parents) and a node on its
    /// own path is skipped (a cycle).
    fn holding(&self, leaf: EntryIdx) -> Vec<bool> {
        let n = self.children.len();
        let mut holds = vec![false; n];
        let mut state = vec![0u8; n]; // 0 unseen, 1 on the path, 2 settled
        let mut stack: Vec<(EntryIdx, bool)> = self.roots.iter().map(|&r| (r, false)).collect();
        while let Some((node, children_done)) = stack.pop() {
            if children_done {
                holds[node] = node == leaf || self.children[node].iter().any(|&c| holds[c]);
                state[node] = 2;
                continue;
            }
            if state[node] != 0 {
                continue;
            }
            state[node] = 1;
            stack.push((node, true));
            stack.extend(self.children[node].iter().map(|&c| (c, false)));
        }
        holds
    }

    /// How many rows the walk may make. Duplicate lines make Pi show a subtree once per
    /// place it is put, which can multiply without bound; beyond this the rows stop (and
    /// `truncated` says so). Real sessions with duplicated lines stay far below it.
    pub fn row_limit(&self) -> usize {
        let n = self.children.len();
        n.saturating_mul(4).max(n.saturating_add(1_000_000))
    }

    /// Pre-order rows of the entries that pass `visible`; hidden entries pass their place
    /// to their children, which attach to the nearest visible ancestor.
    pub fn rows(&mut self, visible: impl Fn(EntryIdx) -> bool) -> Vec<TreeRow> {
        let n = self.children.len();
        let limit = self.row_limit();
        let mut reached = vec![false; n];
        // Most entries are one row each: room for them up front, not grown by doubling (each
        // growth copies the rows into fresh memory).
        let mut rows: Vec<TreeRow> = Vec::with_capacity(n);
        let mut on_path = vec![false; n];
        enum Step {
            Enter(EntryIdx, Option<usize>),
            Leave(EntryIdx),
        }
        // A chain's entries each wait on the stack to be left: room for a chain of them all,
        // not grown by doubling.
        let mut stack: Vec<Step> = Vec::with_capacity(n + self.roots.len() + 1);
        stack.extend(self.roots.iter().rev().map(|&r| Step::Enter(r, None)));
        while let Some(step) = stack.pop() {
            let (node, parent_row) = match step {
                Step::Leave(node) => {
                    on_path[node] = false;
                    continue;
                }
                Step::Enter(node, parent_row) => (node, parent_row),
            };
            if on_path[node] {
                self.cycle = true;
                continue;
            }
            if rows.len() >= limit {
                self.truncated = true;
                break;
            }
            on_path[node] = true;
            reached[node] = true;
            stack.push(Step::Leave(node));
            let row_for_children = if visible(node) {
                let depth = parent_row.map_or(0, |p: usize| rows[p].depth + 1);
                if let Some(p) = parent_row {
                    rows[p].children += 1;
                }
                rows.push(TreeRow {
                    entry: node,
                    depth,
                    parent_row,
                    children: 0,
                });
                Some(rows.len() - 1)
            } else {
                parent_row
            };
            for &c in self.children[node].iter().rev() {
                stack.push(Step::Enter(c, row_for_children));
            }
        }
        if !self.truncated {
            self.unreachable = self.nodes - reached.iter().filter(|&&r| r).count();
        }
        rows
    }
}

/// What a row hands its children: their indentation, whether the row branches, and the
/// gutters they draw (a list shared through parent links in [`Layout::gutters`]).
#[derive(Clone, Copy)]
struct ChildState {
    indent: usize,
    branched: bool,
    gutters: u32,
}

const NO_GUTTER: u32 = u32::MAX;

/// Pi's tree view layout, one row at a time in row order, without keeping every prefix:
/// a deep tree's prefixes together can be far larger than the file.
///
/// Only the prefix of the row laid out last is kept. Rows of a run (no branch point between
/// them) share one prefix, so it is built again only when it changes: at a branch point's
/// children, and where a subtree ends.
pub struct Layout<'a> {
    rows: &'a [TreeRow],
    multiple_roots: bool,
    root_count: usize,
    roots_seen: usize,
    /// Per row: child rows in all, child rows laid out so far, and what children inherit.
    kids: Vec<u32>,
    kids_seen: Vec<u32>,
    child_state: Vec<ChildState>,
    /// Gutters: (position, drawn, previous gutter of the same list).
    gutters: Vec<(usize, bool, u32)>,
    next: usize,
    /// The prefix of the row laid out last; its first `body_len` bytes are every level but
    /// the last one, and `last_piece` is the last level.
    prefix: String,
    body_len: usize,
    last_piece: Option<&'static str>,
    /// The gutter list and indentation `prefix` was drawn for, and its levels' gutters.
    body_of: Option<(u32, usize)>,
    marks: Vec<Option<&'static str>>,
}

/// The pieces a prefix is made of, one level (three columns) each.
const GUTTER: &str = "│  ";
const BLANK: &str = "   ";
const TEE: &str = "├─ ";
const ELL: &str = "└─ ";

impl<'a> Layout<'a> {
    pub fn new(rows: &'a [TreeRow]) -> Layout<'a> {
        let mut kids = vec![0u32; rows.len()];
        let mut root_count = 0;
        for row in rows {
            match row.parent_row {
                Some(p) => kids[p] += 1,
                None => root_count += 1,
            }
        }
        Layout {
            rows,
            multiple_roots: root_count > 1,
            root_count,
            roots_seen: 0,
            kids,
            kids_seen: vec![0; rows.len()],
            child_state: vec![
                ChildState {
                    indent: 0,
                    branched: false,
                    gutters: NO_GUTTER
                };
                rows.len()
            ],
            gutters: Vec::new(),
            next: 0,
            prefix: String::new(),
            body_len: 0,
            last_piece: None,
            body_of: None,
            marks: Vec::new(),
        }
    }

    /// The prefix of the row laid out last (by [`Layout::advance`]).
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The width in columns of [`Layout::prefix`]: every character of a prefix is one column.
    pub fn prefix_width(&self) -> usize {
        self.marks.len() * 3
    }

    /// Lays out the next row. `Some(changed)`: whether its prefix differs from the row
    /// before's; `None` past the last row.
    pub fn advance(&mut self) -> Option<bool> {
        let r = self.next;
        if r >= self.rows.len() {
            return None;
        }
        self.next += 1;
        let multiple_roots = self.multiple_roots;
        // This row's state, from its parent's (or the virtual root's) hand-down.
        let (indent, just_branched, show_connector, is_last, virtual_root_child, gutters) =
            match self.rows[r].parent_row {
                None => {
                    self.roots_seen += 1;
                    (
                        usize::from(multiple_roots),
                        multiple_roots,
                        multiple_roots,
                        self.roots_seen == self.root_count,
                        multiple_roots,
                        NO_GUTTER,
                    )
                }
                Some(p) => {
                    self.kids_seen[p] += 1;
                    let c = self.child_state[p];
                    (
                        c.indent,
                        c.branched,
                        c.branched,
                        self.kids_seen[p] == self.kids[p],
                        false,
                        c.gutters,
                    )
                }
            };
        let display_indent = if multiple_roots {
            indent.saturating_sub(1)
        } else {
            indent
        };
        let connector = show_connector && !virtual_root_child;
        let changed = self.draw(gutters, display_indent, connector, is_last);

        let multiple = self.kids[r] > 1;
        let child_indent = if multiple || (just_branched && indent > 0) {
            indent + 1
        } else {
            indent
        };
        let mut child_gutters = gutters;
        if connector && self.kids[r] > 0 {
            let at = u32::try_from(self.gutters.len()).expect("fewer than 2^32 gutters");
            self.gutters.push((display_indent.saturating_sub(1), !is_last, gutters));
            child_gutters = at;
        }
        self.child_state[r] = ChildState {
            indent: child_indent,
            branched: multiple,
            gutters: child_gutters,
        };
        Some(changed)
    }

    /// Draws the prefix of a row with `gutters` and `indent` levels, the last of which holds
    /// the connector when the row has one; returns whether it changed.
    fn draw(&mut self, gutters: u32, indent: usize, connector: bool, is_last: bool) -> bool {
        if self.body_of != Some((gutters, indent)) {
            // Each level shows the gutter at its position, if any (the first pushed wins: the
            // walk goes newest to oldest, overwriting), else a blank.
            self.marks.clear();
            self.marks.resize(indent, None);
            let mut g = gutters;
            while g != NO_GUTTER {
                let (pos, show, prev) = self.gutters[g as usize];
                if pos < indent {
                    self.marks[pos] = Some(if show { GUTTER } else { BLANK });
                }
                g = prev;
            }
            self.prefix.clear();
            self.prefix.reserve(indent * GUTTER.len());
            for m in self.marks.iter().take(indent.saturating_sub(1)) {
                self.prefix.push_str(m.unwrap_or(BLANK));
            }
            self.body_len = self.prefix.len();
            self.body_of = Some((gutters, indent));
            self.last_piece = None;
        }
        // The last level holds the connector, unless a gutter is there.
        let piece = match self.marks.last() {
            None => "",
            Some(Some(gutter)) => gutter,
            Some(None) if connector && is_last => ELL,
            Some(None) if connector => TEE,
            Some(None) => BLANK,
        };
        if self.last_piece == Some(piece) {
            return false;
        }
        self.prefix.truncate(self.body_len);
        self.prefix.push_str(piece);
        self.last_piece = Some(piece);
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Children come in file order, then by timestamp where every sibling has one; an entry
    /// whose parent is missing is a root.
    #[test]
    fn children_lists_are_in_pi_order() {
        let line = |id: &str, parent: Option<&str>, ts: &str| {
            let parent = parent.map_or("null".to_owned(), |p| format!("\"{p}\""));
            format!(r#"{{"type":"label","id":"{id}","parentId":{parent},"timestamp":"{ts}"}}"#)
        };
        let lines = [
            r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#.to_owned(),
            line("a", None, "2026-01-01T00:00:01.000Z"),
            line("c", Some("a"), "2026-01-01T00:00:05.000Z"),
            line("b", Some("a"), "2026-01-01T00:00:03.000Z"),
            line("d", Some("a"), "2026-01-01T00:00:04.000Z"),
            line("e", Some("c"), "not a date"),
            line("f", Some("c"), "2026-01-01T00:00:02.000Z"),
            line("g", Some("gone"), "2026-01-01T00:00:06.000Z"),
        ];
        let session = Session::from_bytes("/t.jsonl".into(), (lines.join("\n") + "\n").into_bytes()).unwrap();
        let tree = Tree::build(&session);
        let ids = |list: &[EntryIdx]| list.iter().map(|&i| session.id_str(i).unwrap()).collect::<Vec<_>>();
        assert_eq!(tree.children.len(), 7);
        assert_eq!(ids(&tree.roots), ["a", "g"]);
        assert_eq!(ids(&tree.children[0]), ["b", "d", "c"]);
        // An unreadable timestamp keeps the siblings in file order.
        assert_eq!(ids(&tree.children[1]), ["e", "f"]);
        for leaf in 2..7 {
            assert!(tree.children[leaf].is_empty());
        }
    }

    /// The layout as it was first written: the levels of every row drawn one by one.
    struct Reference<'a> {
        rows: &'a [TreeRow],
        multiple_roots: bool,
        root_count: usize,
        roots_seen: usize,
        /// Per row: child rows in all, child rows laid out so far, and what children inherit.
        kids: Vec<u32>,
        kids_seen: Vec<u32>,
        child_state: Vec<ChildState>,
        /// Gutters: (position, drawn, previous gutter of the same list).
        gutters: Vec<(usize, bool, u32)>,
        next: usize,
        marks: Vec<u8>,
        /// The gutter list and indentation `marks` was drawn for.
        marks_of: Option<(u32, usize)>,
    }

    impl<'a> Reference<'a> {
        fn new(rows: &'a [TreeRow]) -> Reference<'a> {
            let mut kids = vec![0u32; rows.len()];
            let mut root_count = 0;
            for row in rows {
                match row.parent_row {
                    Some(p) => kids[p] += 1,
                    None => root_count += 1,
                }
            }
            Reference {
                rows,
                multiple_roots: root_count > 1,
                root_count,
                roots_seen: 0,
                kids,
                kids_seen: vec![0; rows.len()],
                child_state: vec![
                    ChildState {
                        indent: 0,
                        branched: false,
                        gutters: NO_GUTTER
                    };
                    rows.len()
                ],
                gutters: Vec::new(),
                next: 0,
                marks: Vec::new(),
                marks_of: None,
            }
        }

        /// Appends the next row's prefix to `out` and returns its width in columns (every
        /// character of a prefix is one column wide). Rows come in order; past the last row
        /// nothing is appended.
        fn next_prefix(&mut self, out: &mut String) -> usize {
            let r = self.next;
            if r >= self.rows.len() {
                return 0;
            }
            self.next += 1;
            let multiple_roots = self.multiple_roots;
            // This row's state, from its parent's (or the virtual root's) hand-down.
            let (indent, just_branched, show_connector, is_last, virtual_root_child, gutters) =
                match self.rows[r].parent_row {
                    None => {
                        self.roots_seen += 1;
                        (
                            usize::from(multiple_roots),
                            multiple_roots,
                            multiple_roots,
                            self.roots_seen == self.root_count,
                            multiple_roots,
                            NO_GUTTER,
                        )
                    }
                    Some(p) => {
                        self.kids_seen[p] += 1;
                        let c = self.child_state[p];
                        (
                            c.indent,
                            c.branched,
                            c.branched,
                            self.kids_seen[p] == self.kids[p],
                            false,
                            c.gutters,
                        )
                    }
                };
            let display_indent = if multiple_roots {
                indent.saturating_sub(1)
            } else {
                indent
            };
            let connector = show_connector && !virtual_root_child;
            let connector_pos = if connector { display_indent.checked_sub(1) } else { None };
            // The first gutter pushed at a position wins: walk newest to oldest, overwriting.
            // Rows in a run share their gutters: the marks of the row before are reused.
            if self.marks_of != Some((gutters, display_indent)) {
                self.marks.clear();
                self.marks.resize(display_indent, 0);
                let mut g = gutters;
                while g != NO_GUTTER {
                    let (pos, show, prev) = self.gutters[g as usize];
                    if pos < display_indent {
                        self.marks[pos] = if show { 1 } else { 2 };
                    }
                    g = prev;
                }
                self.marks_of = Some((gutters, display_indent));
            }
            out.reserve(display_indent * 7);
            for level in 0..display_indent {
                out.push_str(match self.marks[level] {
                    1 => "│  ",
                    2 => "   ",
                    _ if connector_pos == Some(level) => {
                        if is_last {
                            "└─ "
                        } else {
                            "├─ "
                        }
                    }
                    _ => "   ",
                });
            }

            let multiple = self.kids[r] > 1;
            let child_indent = if multiple || (just_branched && indent > 0) {
                indent + 1
            } else {
                indent
            };
            let mut child_gutters = gutters;
            if connector && self.kids[r] > 0 {
                let at = u32::try_from(self.gutters.len()).expect("fewer than 2^32 gutters");
                self.gutters.push((display_indent.saturating_sub(1), !is_last, gutters));
                child_gutters = at;
            }
            self.child_state[r] = ChildState {
                indent: child_indent,
                branched: multiple,
                gutters: child_gutters,
            };
            display_indent * 3
        }
    }

    /// Rows of a forest in pre-order: each row goes under the row before or one of its
    /// ancestors (`climb` levels up, wrapped), or is a root.
    fn forest(climbs: &[u8]) -> Vec<TreeRow> {
        let mut rows: Vec<TreeRow> = Vec::new();
        let mut path: Vec<usize> = Vec::new();
        for (r, &climb) in climbs.iter().enumerate() {
            path.truncate(path.len() - usize::from(climb) % (path.len() + 1));
            let parent_row = path.last().copied();
            if let Some(p) = parent_row {
                rows[p].children += 1;
            }
            rows.push(TreeRow {
                entry: r,
                depth: path.len(),
                parent_row,
                children: 0,
            });
            path.push(r);
        }
        rows
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]
        /// Prefixes drawn again only where they change are the prefixes drawn level by level.
        #[test]
        fn prefixes_drawn_when_they_change_equal_those_drawn_level_by_level(
            climbs in prop::collection::vec(prop_oneof![3 => Just(0u8), 2 => Just(1u8), 1 => any::<u8>()], 0..200)
        ) {
            let rows = forest(&climbs);
            let mut reference = Reference::new(&rows);
            let mut lay = Layout::new(&rows);
            let mut before: Option<String> = None;
            for r in 0..rows.len() {
                let mut expected = String::new();
                let width = reference.next_prefix(&mut expected);
                let changed = lay.advance().expect("a row");
                prop_assert_eq!(lay.prefix(), expected.as_str(), "row {}", r);
                prop_assert_eq!(lay.prefix_width(), width);
                prop_assert_eq!(width, expected.chars().count());
                if !changed {
                    prop_assert_eq!(before.as_deref(), Some(expected.as_str()));
                }
                before = Some(expected);
            }
            prop_assert_eq!(lay.advance(), None);
            prop_assert_eq!(lay.advance(), None);
        }
    }
}
