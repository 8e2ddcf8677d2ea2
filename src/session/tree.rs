//! The session tree as Pi 1.6.0's `getTree` builds it, flattened in display order, and the
//! indentation of Pi's `/tree` view.
//!
//! Pi's rules: an entry whose parent is null, itself, or missing is a root (roots stay in
//! file order); children are sorted by timestamp, ties in file order. With duplicate ids,
//! the node for an id is the last entry that has it, and it is placed under the parent of
//! every entry carrying the id (so Pi shows it more than once). Unlike Pi, the walk is
//! iterative and stops at a node already on its own path, so a cycle cannot hang it.

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

/// Children lists in Pi's order, and the roots.
pub struct Tree {
    pub roots: Vec<EntryIdx>,
    pub children: Vec<Vec<EntryIdx>>,
    /// A node was met again on its own path (a cycle through duplicate ids).
    pub cycle: bool,
}

impl Tree {
    pub fn build(session: &Session) -> Tree {
        let n = session.entries.len();
        let mut children: Vec<Vec<EntryIdx>> = vec![Vec::new(); n];
        let mut roots = Vec::new();
        for (i, e) in session.entries.iter().enumerate() {
            let node = e.id.and_then(|id| session.lookup_sym(id)).unwrap_or(i);
            let parent = match e.parent {
                None => None,
                Some(p) if Some(p) == e.id => None,
                Some(p) => session.lookup_sym(p),
            };
            match parent {
                Some(p) => children[p].push(node),
                None => roots.push(node),
            }
        }
        for list in children.iter_mut().filter(|l| l.len() > 1) {
            let keys: Option<Vec<i64>> = list.iter().map(|&c| session.timestamp_ms(c)).collect();
            // JavaScript's sort treats NaN comparisons as ties, which gives no consistent
            // order; entries with unreadable timestamps keep file order.
            if let Some(keys) = keys {
                let mut pairs: Vec<(i64, EntryIdx)> = keys.into_iter().zip(list.iter().copied()).collect();
                pairs.sort_by_key(|&(k, _)| k);
                *list = pairs.into_iter().map(|(_, c)| c).collect();
            }
        }
        Tree {
            roots,
            children,
            cycle: false,
        }
    }

    /// Pre-order rows of the entries that pass `visible`; hidden entries pass their place
    /// to their children, which attach to the nearest visible ancestor.
    pub fn rows(&mut self, visible: impl Fn(EntryIdx) -> bool) -> Vec<TreeRow> {
        let n = self.children.len();
        // Each entry appears once per place Pi puts it; bound the total in case duplicate
        // ids multiply subtrees.
        let limit = n.saturating_mul(4).saturating_add(16);
        let mut rows: Vec<TreeRow> = Vec::new();
        let mut on_path = vec![false; n];
        enum Step {
            Enter(EntryIdx, Option<usize>),
            Leave(EntryIdx),
        }
        let mut stack: Vec<Step> = self.roots.iter().rev().map(|&r| Step::Enter(r, None)).collect();
        while let Some(step) = stack.pop() {
            let (node, parent_row) = match step {
                Step::Leave(node) => {
                    on_path[node] = false;
                    continue;
                }
                Step::Enter(node, parent_row) => (node, parent_row),
            };
            if on_path[node] || rows.len() >= limit {
                self.cycle = true;
                continue;
            }
            on_path[node] = true;
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
        rows
    }
}

/// How a row is drawn: Pi's `/tree` layout, where indentation grows only at branch points.
#[derive(Debug, Clone)]
pub struct RowLayout {
    /// The characters before the entry: gutters (`│`) and the connector (`├─`/`└─`).
    pub prefix: String,
}

/// Lays rows out as Pi's tree view does.
pub fn layout(rows: &[TreeRow]) -> Vec<RowLayout> {
    #[derive(Clone)]
    struct State {
        indent: usize,
        just_branched: bool,
        show_connector: bool,
        is_last: bool,
        virtual_root_child: bool,
        gutters: Vec<(usize, bool)>,
    }
    let roots: Vec<usize> = (0..rows.len()).filter(|&r| rows[r].parent_row.is_none()).collect();
    let multiple_roots = roots.len() > 1;
    let mut kids: Vec<Vec<usize>> = vec![Vec::new(); rows.len()];
    for (r, row) in rows.iter().enumerate() {
        if let Some(p) = row.parent_row {
            kids[p].push(r);
        }
    }
    let mut states: Vec<Option<State>> = vec![None; rows.len()];
    for (k, &r) in roots.iter().enumerate() {
        states[r] = Some(State {
            indent: usize::from(multiple_roots),
            just_branched: multiple_roots,
            show_connector: multiple_roots,
            is_last: k + 1 == roots.len(),
            virtual_root_child: multiple_roots,
            gutters: Vec::new(),
        });
    }
    let mut out = Vec::with_capacity(rows.len());
    // Rows are in pre-order, so a parent's state is always set before its children's.
    for r in 0..rows.len() {
        let s = states[r].clone().expect("pre-order rows");
        let display_indent = if multiple_roots {
            s.indent.saturating_sub(1)
        } else {
            s.indent
        };
        let connector = s.show_connector && !s.virtual_root_child;
        let connector_pos = if connector { display_indent.checked_sub(1) } else { None };
        let mut prefix = String::new();
        for level in 0..display_indent {
            if let Some(&(_, show)) = s.gutters.iter().find(|(pos, _)| *pos == level) {
                prefix.push_str(if show { "│  " } else { "   " });
            } else if connector_pos == Some(level) {
                prefix.push_str(if s.is_last { "└─ " } else { "├─ " });
            } else {
                prefix.push_str("   ");
            }
        }
        out.push(RowLayout { prefix });

        let children = &kids[r];
        let multiple = children.len() > 1;
        let child_indent = if multiple || (s.just_branched && s.indent > 0) {
            s.indent + 1
        } else {
            s.indent
        };
        let mut child_gutters = s.gutters.clone();
        if connector {
            child_gutters.push((display_indent.saturating_sub(1), !s.is_last));
        }
        for (k, &c) in children.iter().enumerate() {
            states[c] = Some(State {
                indent: child_indent,
                just_branched: multiple,
                show_connector: multiple,
                is_last: k + 1 == children.len(),
                virtual_root_child: false,
                gutters: child_gutters.clone(),
            });
        }
    }
    out
}
