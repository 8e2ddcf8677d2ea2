//! The files a branch (or the whole file) read, edited and wrote, each with the entry that
//! touched it last. What counts as touching a file is Pi's compaction rule
//! ([`crate::compaction::fileops::FileOps`]), applied one entry at a time: `read`, `edit`
//! and `write` tool calls, and the `readFiles` / `modifiedFiles` a summary recorded in its
//! `details`. Bash commands are not parsed, as Pi does not.

use crate::compaction::fileops::{FileOps, Touch, js_order};
use crate::session::context::truthy;
use crate::session::entry::EntryKind;
use crate::session::{Detail, EntryIdx, Role, Session, Tools};
use crate::usage::{Scope, entries_of};
use serde::Serialize;
use std::collections::HashMap;

/// How an entry touched a file. A summary's `modifiedFiles` count as edited, as Pi merges
/// them into its edited set.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Op {
    Read,
    Edited,
    Written,
}

impl Op {
    pub fn as_str(self) -> &'static str {
        match self {
            Op::Read => "read",
            Op::Edited => "edited",
            Op::Written => "written",
        }
    }
}

/// One file and the last entry that touched it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileRecord {
    pub path: String,
    /// How the last entry touched it.
    pub op: Op,
    /// That entry's id (its line number when it has none).
    pub entry_id: String,
    /// Whether any entry in scope edited or wrote it (Pi's "modified files").
    pub modified: bool,
    #[serde(skip)]
    pub entry: EntryIdx,
}

/// The files of `scope`, sorted by path as Pi sorts its lists, and where a parent cycle
/// stopped the walk up the branch.
pub fn files(session: &Session, scope: Scope) -> (Vec<FileRecord>, Option<EntryIdx>) {
    let (entries, cycle_at) = entries_of(session, scope);
    let mut last: HashMap<String, FileRecord> = HashMap::new();
    for i in entries {
        let ops = entry_ops(session, i, |_| true);
        // Within one entry a write or edit says more than a read of the same file.
        let touched = [
            (&ops.read, Op::Read),
            (&ops.edited, Op::Edited),
            (&ops.written, Op::Written),
        ];
        for (set, op) in touched {
            for path in set {
                let modified = op != Op::Read || last.get(path).is_some_and(|r| r.modified);
                last.insert(
                    path.clone(),
                    FileRecord {
                        path: path.clone(),
                        op,
                        entry_id: session.id_or_line(i),
                        modified,
                        entry: i,
                    },
                );
            }
        }
    }
    let mut out: Vec<FileRecord> = last.into_values().collect();
    out.sort_by(|a, b| js_order(&a.path, &b.path));
    (out, cycle_at)
}

/// The file operations of one entry, by the rule Pi's compaction applies. Messages whose
/// calls touch no file as `wanted` accepts are not read.
pub fn entry_ops(session: &Session, i: EntryIdx, wanted: fn(Touch) -> bool) -> FileOps {
    let mut ops = FileOps::default();
    match session.entries[i].kind {
        EntryKind::Message if might_touch_files(session, i, wanted) => {
            // Through the entry view; again over the parsed value when the view declines.
            ops = crate::json::view::read(Some(session.raw(i)), || session.value(i), message_ops).unwrap_or_default();
        }
        EntryKind::Compaction | EntryKind::BranchSummary => {
            let v = session.value(i);
            if !truthy(v.get("fromHook"))
                && let Some(d) = v.get("details").filter(|d| truthy(Some(d)))
            {
                ops.add_from_details(d);
            }
        }
        _ => {}
    }
    ops
}

/// The file operations of a message entry read through the entry view.
pub fn message_ops(entry: crate::json::view::Obj<'_, '_>) -> crate::json::scan::Scan<FileOps> {
    let mut ops = FileOps::default();
    if let Some(m) = entry.obj("message")? {
        ops.add_from_message_view(m)?;
    }
    Ok(ops)
}

/// What marks a tool result that may name nested calls (built once; see [`crate::json::needle`]).
static NESTED_CALLS: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
    std::sync::LazyLock::new(|| crate::json::needle::in_json(b"nestedCalls\""));
static BACKSLASH_U: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
    std::sync::LazyLock::new(|| crate::json::needle::in_json(b"\\u"));

/// Whether a message can hold what [`FileOps::add_from_message`] reads: a call of an
/// assistant message that touches a file as `wanted` accepts (the loader read the calls'
/// names), the `nestedCalls` of a tool result (its line names them, or has a `\u` escape
/// that could spell them). The other messages, tool outputs most of all, are not parsed.
pub fn might_touch_files(session: &Session, i: EntryIdx, wanted: fn(Touch) -> bool) -> bool {
    let raw = session.raw(i);
    match &session.entries[i].detail {
        Detail::Message {
            tools: Tools::Calls(calls),
            ..
        } => calls.names.iter().any(|n| Touch::of(n).is_some_and(wanted)),
        Detail::Message {
            role: Some(Role::ToolResult),
            ..
        } => NESTED_CALLS.find(raw).is_some() || BACKSLASH_U.find(raw).is_some(),
        _ => false,
    }
}
