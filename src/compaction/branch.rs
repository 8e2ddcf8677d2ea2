//! Summaries of a branch being left: Pi's `collectEntriesForBranchSummary` and
//! `prepareBranchEntries` (branch-summarization.js).

use super::fileops::FileOps;
use crate::session::context::truthy;
use crate::session::estimate::estimate_tokens;
use crate::session::{Detail, EntryIdx, EntryKind, Role, Session, SessionError, Sym};
use rustc_hash::{FxHashMap, FxHashSet};
use serde_json::{Map, Value, json};

/// Where Pi's `/tree` puts the conversation when `target` is chosen: a user message or a
/// custom message is left out (its parent becomes the position, `None` for the root), so
/// that it can be edited and sent again; any other entry is the position itself.
pub fn tree_position(session: &Session, target: EntryIdx) -> Result<Option<EntryIdx>, SessionError> {
    let e = &session.entries[target];
    let before = e.is_role(&Role::User) || e.kind == EntryKind::CustomMessage;
    if !before {
        return Ok(Some(target));
    }
    match session.parent_id_str(target) {
        None => Ok(None),
        Some(p) => session.lookup(p).map(Some).ok_or_else(|| {
            SessionError::Refused(format!(
                "the parent {p} of {} does not exist; run `pi-session repair`",
                session.id_or_line(target)
            ))
        }),
    }
}

/// What leaving Pi's leaf for `target` involves, as Pi's `/tree` plans it.
#[derive(Debug, Clone, PartialEq)]
pub struct BranchPlan {
    pub target: EntryIdx,
    pub target_id: String,
    /// Pi's leaf, the file's last entry (even a label or a checkout record).
    pub from: Option<EntryIdx>,
    pub from_id: Option<String>,
    /// Where the conversation continues ([`tree_position`]): the summary's parent.
    pub position: Option<EntryIdx>,
    pub position_id: Option<String>,
    /// The entries left behind, oldest first, back to the common ancestor.
    pub entries: Vec<EntryIdx>,
    pub ancestor: Option<EntryIdx>,
    /// The branch of Pi's leaf, root first.
    pub from_path: Vec<EntryIdx>,
}

/// What leaving Pi's leaf for the target takes, as Pi's `/tree` decides it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Leave {
    /// Pi's leaf is the target, or the position the target stands for: nothing to do.
    AlreadyThere,
    /// Nothing is left behind (Pi's leaf is on the way to the target): Pi only moves.
    MoveOnly,
    /// The entries left behind are summarized under the position.
    Summarize,
}

impl BranchPlan {
    /// What this plan takes.
    pub fn leave(&self) -> Leave {
        if self.from_id.as_deref() == Some(self.target_id.as_str()) {
            Leave::AlreadyThere
        } else if !self.entries.is_empty() {
            Leave::Summarize
        } else if self.position == self.from {
            Leave::AlreadyThere
        } else {
            Leave::MoveOnly
        }
    }

    /// Refuses to go on unless Pi's leaf is `expected` (`--expect-leaf`), when given.
    pub fn check_leaf(&self, expected: Option<&str>) -> Result<(), SessionError> {
        match expected {
            Some(expected) if self.from_id.as_deref() != Some(expected) => Err(SessionError::LeafMismatch {
                expected: expected.to_owned(),
                actual: self.from_id.clone().unwrap_or_else(|| "(none)".into()),
            }),
            _ => Ok(()),
        }
    }
}

/// Plans leaving Pi's leaf for `target`. Refuses a target inside a parent cycle (Pi,
/// walking up from it, never reaches a root: nothing may be attached there) and one
/// without an id.
pub fn plan(session: &Session, target: EntryIdx) -> Result<BranchPlan, SessionError> {
    crate::session::branch_copy::refuse_cycle(session, &session.branch(target))?;
    let target_id = session
        .id_str(target)
        .ok_or_else(|| SessionError::Refused("the target has no id; run `pi-session repair`".into()))?
        .to_owned();
    let from = session.leaf();
    let position = tree_position(session, target)?;
    let (entries, ancestor) = collect(session, from, target);
    Ok(BranchPlan {
        target,
        target_id,
        from,
        from_id: from.and_then(|f| session.id_str(f)).map(str::to_owned),
        position,
        position_id: position.and_then(|p| session.id_str(p)).map(str::to_owned),
        entries,
        ancestor,
        from_path: from.map(|f| session.branch(f).path).unwrap_or_default(),
    })
}

/// A branch-summary plan as `summarize-branch --dry-run --json` prints it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BranchPlanRecord {
    pub target: String,
    /// Where the summary goes: the target, or its parent for a user or custom message.
    pub parent: Option<String>,
    /// Pi's leaf.
    pub from: Option<String>,
    pub common_ancestor: Option<String>,
    /// The ids of the entries left behind, oldest first.
    pub entries: Vec<Option<String>>,
    /// Messages summarized.
    pub messages: usize,
    pub total_tokens: u64,
    pub read_files: Vec<String>,
    pub modified_files: Vec<String>,
}

impl BranchPlan {
    /// The record of this plan with its prepared messages.
    pub fn record(&self, session: &Session, prep: &BranchPreparation) -> BranchPlanRecord {
        let id = |i: EntryIdx| session.id_str(i).map(str::to_owned);
        let (read_files, modified_files) = prep.file_ops.lists();
        BranchPlanRecord {
            target: self.target_id.clone(),
            parent: self.position_id.clone(),
            from: self.from_id.clone(),
            common_ancestor: self.ancestor.and_then(id),
            entries: self.entries.iter().map(|&i| id(i)).collect(),
            messages: prep.messages.len(),
            total_tokens: prep.total_tokens,
            read_files,
            modified_files,
        }
    }
}

/// The entries from `from` back to (not including) its deepest common ancestor with
/// `target`, oldest first, and that ancestor.
pub fn collect(session: &Session, from: Option<EntryIdx>, target: EntryIdx) -> (Vec<EntryIdx>, Option<EntryIdx>) {
    let Some(from) = from else { return (Vec::new(), None) };
    let old: FxHashSet<Option<&str>> = session.branch(from).path.iter().map(|&i| session.id_str(i)).collect();
    let target_path = session.branch(target).path;
    let ancestor = target_path
        .iter()
        .rev()
        .copied()
        .find(|&i| old.contains(&session.id_str(i)));
    let ancestor_id = ancestor.and_then(|a| session.id_str(a));
    let mut entries = Vec::new();
    let mut cur = Some(from);
    let mut seen = FxHashSet::default();
    while let Some(i) = cur {
        if ancestor_id.is_some() && session.id_str(i) == ancestor_id || !seen.insert(i) {
            break;
        }
        entries.push(i);
        cur = session.parent(i);
    }
    entries.reverse();
    (entries, ancestor)
}

/// What a branch summary is made of.
#[derive(Debug, Clone, Default)]
pub struct BranchPreparation {
    pub messages: Vec<Value>,
    pub file_ops: FileOps,
    pub total_tokens: u64,
}

/// Pi's `getMessageFromEntry`: the message an entry contributes to a branch summary (tool
/// results are left out: the calls carry their context).
fn message_of(session: &Session, i: EntryIdx, edit: Option<&Value>) -> Option<Value> {
    let e = &session.entries[i];
    let v = session.value(i);
    let ms = |v: &Value| {
        crate::json::jsdate::date_value_ms(v.get("timestamp"))
            .map(Value::from)
            .unwrap_or(Value::Null)
    };
    let edited = |m: Value| match edit {
        Some(edit) => crate::session::context::apply_edit(m, edit),
        None => Some(m),
    };
    match e.kind {
        EntryKind::Message if e.is_role(&Role::ToolResult) => None,
        EntryKind::Message => edited(v.get("message").cloned()?),
        EntryKind::CustomMessage => {
            let mut m = Map::new();
            m.insert("role".into(), "custom".into());
            for k in ["customType", "content", "display", "details"] {
                if let Some(x) = v.get(k) {
                    m.insert(k.into(), x.clone());
                }
            }
            m.insert("timestamp".into(), ms(&v));
            edited(Value::Object(m))
        }
        EntryKind::BranchSummary => Some(
            json!({"role": "branchSummary", "summary": v.get("summary"), "fromId": v.get("fromId"), "timestamp": ms(&v)}),
        ),
        EntryKind::Compaction => Some(
            json!({"role": "compactionSummary", "summary": v.get("summary"), "tokensBefore": v.get("tokensBefore"), "timestamp": ms(&v)}),
        ),
        _ => None,
    }
}

/// Pi's `prepareBranchEntries`: newest first until the token budget is reached (summaries
/// squeezed in while under 90% of it), file operations from every entry.
pub fn prepare(session: &Session, entries: &[EntryIdx], budget: u64) -> BranchPreparation {
    let mut file_ops = FileOps::default();
    for &i in entries {
        if session.entries[i].kind == EntryKind::BranchSummary {
            let v = session.value(i);
            if !truthy(v.get("fromHook"))
                && let Some(d) = v.get("details").filter(|d| truthy(Some(d)))
            {
                file_ops.add_from_details(d);
            }
        }
    }
    let mut edits: FxHashMap<Sym, EntryIdx> = FxHashMap::default();
    for &i in entries {
        if let Detail::ContextEdit { target: Some(t) } = &session.entries[i].detail {
            edits.insert(*t, i);
        }
    }
    let mut messages = Vec::new();
    let mut total = 0u64;
    for &i in entries.iter().rev() {
        let edit = session.entries[i]
            .id
            .and_then(|id| edits.get(&id))
            .map(|&e| session.value(e));
        let Some(m) = message_of(session, i, edit.as_ref()) else {
            continue;
        };
        file_ops.add_from_message(&m);
        let t = estimate_tokens(&m);
        if budget > 0 && total + t > budget {
            let kind = &session.entries[i].kind;
            if matches!(kind, EntryKind::Compaction | EntryKind::BranchSummary) && (total as f64) < budget as f64 * 0.9
            {
                messages.push(m);
                total += t;
            }
            break;
        }
        messages.push(m);
        total += t;
    }
    // Collected newest first.
    messages.reverse();
    BranchPreparation {
        messages,
        file_ops,
        total_tokens: total,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(lines: &[&str]) -> Session {
        let mut text =
            String::from(r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}"#);
        text.push('\n');
        for l in lines {
            text.push_str(l);
            text.push('\n');
        }
        Session::from_bytes("t.jsonl".into(), text.into_bytes()).unwrap()
    }

    const U1: &str = r#"{"type":"message","id":"u1","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"one"}}"#;
    const A1: &str = r#"{"type":"message","id":"a1","parentId":"u1","timestamp":"2025-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"ok"}]}}"#;
    const U2: &str = r#"{"type":"message","id":"u2","parentId":"a1","timestamp":"2025-01-01T00:00:03.000Z","message":{"role":"user","content":"two"}}"#;
    const A2: &str = r#"{"type":"message","id":"a2","parentId":"u2","timestamp":"2025-01-01T00:00:04.000Z","message":{"role":"assistant","content":[{"type":"text","text":"done"}]}}"#;

    #[test]
    fn a_user_message_target_is_left_out_and_the_summary_goes_under_its_parent() {
        let s = session(&[U1, A1, U2, A2]);
        let u2 = s.lookup("u2").unwrap();
        let plan = plan(&s, u2).unwrap();
        assert_eq!(plan.position_id.as_deref(), Some("a1"));
        assert_eq!(plan.from_id.as_deref(), Some("a2"));
        let prep = prepare(&s, &plan.entries, 100_000);
        let v = serde_json::to_value(plan.record(&s, &prep)).unwrap();
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "target",
                "parent",
                "from",
                "commonAncestor",
                "entries",
                "messages",
                "totalTokens",
                "readFiles",
                "modifiedFiles"
            ]
        );
        assert_eq!(v["target"], "u2");
        assert_eq!(v["parent"], "a1");
        assert_eq!(v["commonAncestor"], "u2");
        assert_eq!(v["entries"], serde_json::json!(["a2"]));
    }

    #[test]
    fn a_root_user_message_continues_from_a_new_root() {
        let s = session(&[U1, A1]);
        assert_eq!(tree_position(&s, s.lookup("u1").unwrap()).unwrap(), None);
        let a1 = s.lookup("a1").unwrap();
        assert_eq!(tree_position(&s, a1).unwrap(), Some(a1));
    }
}
