//! `prune`: dropping subtrees from a session, as `git branch -D` drops a branch. The lines
//! of the entries whose ancestry includes a named revision go (with the labels that name
//! them); every other line stays byte for byte, so `@`, its branch and the context Pi builds
//! there are as they were. Written as `repair` writes (lock, temp file, backup, lines
//! appended meanwhile carried over).

use crate::repair::apply::apply;
use crate::repair::plan::Plan as Rewrite;
use crate::session::io::append::{checkout_record, new_entry_id};
use crate::session::{Detail, EntryIdx, EntryKind, Role, Session, SessionError, revision};
use std::path::{Path, PathBuf};

/// Why an entry goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why {
    /// A revision named it.
    Rev,
    /// Its ancestry includes a named revision.
    Descendant,
    /// A label of an entry that goes.
    Label,
    /// The top of a branch holding nothing but aborted or error replies (`--empty`).
    Empty,
}

impl Why {
    pub fn name(self) -> &'static str {
        match self {
            Why::Rev => "rev",
            Why::Descendant => "descendant",
            Why::Label => "label",
            Why::Empty => "empty",
        }
    }
}

/// An entry kept that refers to one that goes (reported: the reference then points nowhere).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reference {
    /// The branch summary (`fromId`), compaction (`firstKeptEntryId`) or label kept.
    pub entry: EntryIdx,
    /// The entry it names, which goes.
    pub target: EntryIdx,
}

/// A prune worked out.
#[derive(Debug, Default)]
pub struct Plan {
    /// The entries that go, in file order.
    pub dropped: Vec<(EntryIdx, Why)>,
    /// Kept entries naming one that goes: branch summaries, compactions, and labels other
    /// entries continue from (dropping those would cut their children off).
    pub references: Vec<Reference>,
    /// `@` before.
    pub at: Option<EntryIdx>,
    /// With `force`, when `@`'s branch passed through what goes: where `@` moves (`None`: an
    /// empty position), as `checkout` would move it.
    pub moved_at: Option<Option<EntryIdx>>,
    /// The checkout record appended to keep (or move) `@`: when `@` moves, or when the
    /// file's last entry, Pi's leaf, goes.
    pub record: Option<(String, String)>,
}

impl Plan {
    pub fn is_empty(&self) -> bool {
        self.dropped.is_empty()
    }
}

/// Works out what pruning `revs` (and, with `empty`, the branches of failed replies) drops.
/// Refuses when `@`'s branch passes through what would go, unless `force`.
pub fn plan(session: &Session, revs: &[&str], empty: bool, force: bool) -> Result<Plan, SessionError> {
    let n = session.entries.len();
    let at = session.at_checked()?;
    let children = children(session);
    let on_at_branch = {
        let mut on = vec![false; n];
        if let Some(a) = at {
            session.branch(a).path.iter().for_each(|&i| on[i] = true);
        }
        on
    };
    let mut why: Vec<Option<Why>> = vec![None; n];
    for rev in revs {
        why[revision::resolve_entry(session, rev)?] = Some(Why::Rev);
    }
    if empty {
        for top in failed_branches(session, &children, &on_at_branch) {
            why[top].get_or_insert(Why::Empty);
        }
    }
    // Everything below a root that goes, goes too (a cycle is walked once).
    let mut stack: Vec<EntryIdx> = (0..n).filter(|&i| why[i].is_some()).collect();
    while let Some(i) = stack.pop() {
        for &c in &children[i] {
            if why[c].is_none() {
                why[c] = Some(Why::Descendant);
                stack.push(c);
            }
        }
    }
    let mut plan = Plan { at, ..Plan::default() };
    // What each entry names: a label its target, a branch summary the entry it came from,
    // a compaction the first entry it keeps.
    let names = |i: EntryIdx| {
        let sym = match &session.entries[i].detail {
            Detail::Label { target, .. } => *target,
            Detail::BranchSummary { from } => from.as_deref().and_then(|f| session.ids().get(f)),
            Detail::Compaction { first_kept, .. } => *first_kept,
            _ => None,
        };
        sym.and_then(|t| session.lookup_sym(t))
    };
    // A label goes with its target (a label of a label too, whatever their order), unless
    // entries continue from it.
    loop {
        let more: Vec<EntryIdx> = (0..n)
            .filter(|&i| why[i].is_none() && session.entries[i].kind == EntryKind::Label)
            .filter(|&i| names(i).is_some_and(|t| why[t].is_some()))
            .filter(|&i| children[i].iter().all(|&c| why[c].is_some()))
            .collect();
        if more.is_empty() {
            break;
        }
        more.into_iter().for_each(|i| why[i] = Some(Why::Label));
    }
    plan.references = (0..n)
        .filter(|&i| why[i].is_none())
        .filter_map(|i| {
            names(i)
                .filter(|&t| why[t].is_some())
                .map(|t| Reference { entry: i, target: t })
        })
        .collect();
    refuse_shared_ids(session, &why)?;
    plan.dropped = (0..n).filter_map(|i| why[i].map(|w| (i, w))).collect();
    if let Some(a) = at.filter(|&a| why[a].is_some()) {
        let path = session.branch(a).path;
        let top = path.iter().copied().find(|&i| why[i].is_some()).expect("@ goes");
        if !force {
            return Err(SessionError::Refused(format!(
                "@ ({}) is on what would be pruned (from {}): `pi-session checkout` elsewhere first, or --force moves @ to where that branch starts",
                session.id_or_line(a),
                session.id_or_line(top)
            )));
        }
        plan.moved_at = Some(session.parent(top).and_then(|p| session.position_of(p)));
    }
    let leaf_goes = session.leaf().is_some_and(|l| why[l].is_some());
    if plan.moved_at.is_some() || leaf_goes {
        let to = plan.moved_at.unwrap_or(at);
        let id = new_entry_id(|id| session.ids().get(id).is_some());
        let to_id = to.and_then(|t| session.id_str(t));
        let from_id = at.and_then(|a| session.id_str(a));
        plan.record = Some((id.clone(), checkout_record(&id, to_id, from_id)));
    }
    Ok(plan)
}

/// Pi's children of each entry: the entries whose `parentId` it resolves to.
fn children(session: &Session) -> Vec<Vec<EntryIdx>> {
    let mut children = vec![Vec::new(); session.entries.len()];
    for i in 0..session.entries.len() {
        if let Some(p) = session.parent(i) {
            children[p].push(i);
        }
    }
    children
}

/// The tops of the subtrees off `@`'s branch that hold aborted or error assistant replies
/// and nothing else (labels and checkout records aside).
fn failed_branches(session: &Session, children: &[Vec<EntryIdx>], on_at_branch: &[bool]) -> Vec<EntryIdx> {
    let n = session.entries.len();
    // Roots first, each entry after its parent (entries inside a parent cycle are never
    // reached, so never dropped by this).
    let mut order: Vec<EntryIdx> = (0..n).filter(|&i| session.parent(i).is_none()).collect();
    let mut k = 0;
    while k < order.len() {
        order.extend_from_slice(&children[order[k]]);
        k += 1;
    }
    let (mut only_failed, mut has_failed) = (vec![false; n], vec![false; n]);
    for &i in order.iter().rev() {
        let e = &session.entries[i];
        let failed = e.is_role(&Role::Assistant)
            && matches!(
                session.value(i).pointer("/message/stopReason").and_then(|v| v.as_str()),
                Some("aborted" | "error")
            );
        only_failed[i] = (failed || e.is_tip_bookkeeping()) && children[i].iter().all(|&c| only_failed[c]);
        has_failed[i] = failed || children[i].iter().any(|&c| has_failed[c]);
    }
    let goes = |i: EntryIdx| only_failed[i] && has_failed[i] && !on_at_branch[i];
    order
        .into_iter()
        .filter(|&i| goes(i) && session.parent(i).is_none_or(|p| !goes(p)))
        .collect()
}

/// An id both on an entry that goes and on one that stays: Pi resolves a duplicated id to
/// its last entry, so dropping one could re-parent the other's children.
fn refuse_shared_ids(session: &Session, why: &[Option<Why>]) -> Result<(), SessionError> {
    let going: rustc_hash::FxHashSet<_> = (0..why.len())
        .filter(|&i| why[i].is_some())
        .filter_map(|i| session.entries[i].id)
        .collect();
    for (i, e) in session.entries.iter().enumerate() {
        if why[i].is_none()
            && let Some(id) = e.id.filter(|id| going.contains(id))
        {
            return Err(SessionError::Refused(format!(
                "the id {} is on an entry that would go and on one that stays (line {}); run `pi-session repair` first",
                session.ids().name(id),
                e.line
            )));
        }
    }
    Ok(())
}

/// The file without the dropped lines, the checkout record (if any) appended.
pub fn output(session: &Session, plan: &Plan) -> Vec<u8> {
    let data = session.bytes();
    let mut out = Vec::with_capacity(data.len());
    let mut from = 0usize;
    for &(i, _) in &plan.dropped {
        let e = &session.entries[i];
        let (start, mut end) = (e.start as usize, e.end as usize);
        if data.get(end) == Some(&b'\n') {
            end += 1;
        }
        out.extend_from_slice(&data[from..start]);
        from = end;
    }
    out.extend_from_slice(&data[from..]);
    if let Some((_, line)) = &plan.record {
        if !out.is_empty() && !out.ends_with(b"\n") {
            out.push(b'\n');
        }
        out.extend_from_slice(line.as_bytes());
        out.push(b'\n');
    }
    out
}

/// What `prune` did to a file.
#[derive(Debug)]
pub struct Pruned {
    /// The file as it was read (the plan's entries index it).
    pub session: Session,
    pub plan: Plan,
    /// Whether the file was rewritten (false: nothing to drop, or a dry run).
    pub written: bool,
    pub backup: Option<PathBuf>,
    /// Lines appended while the file was pruned, carried over as they were.
    pub carried_lines: usize,
}

/// Prunes `path` in place (nothing written on a dry run). Refuses a file changed in the last
/// few seconds by something other than pi-session, unless `force`: a running Pi keeps its
/// own position in memory.
pub fn prune_file(path: &Path, revs: &[&str], empty: bool, force: bool, dry_run: bool) -> Result<Pruned, SessionError> {
    let (mut lock, session) = crate::repair::apply::open_for_rewrite(path, dry_run, force)?;
    let plan = plan(&session, revs, empty, force)?;
    let mut pruned = Pruned {
        session,
        plan,
        written: false,
        backup: None,
        carried_lines: 0,
    };
    if dry_run || pruned.plan.is_empty() {
        return Ok(pruned);
    }
    let rewrite = Rewrite {
        findings: Vec::new(),
        output: Some(output(&pruned.session, &pruned.plan)),
        rejects: Vec::new(),
        after: None,
    };
    let applied = apply(&mut lock, pruned.session.bytes(), &rewrite)?.expect("a plan with output is applied");
    pruned.written = true;
    pruned.backup = Some(applied.backup);
    pruned.carried_lines = applied.carried_lines;
    Ok(pruned)
}

/// One dropped entry, as `prune --json` prints it.
#[derive(Debug, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct DroppedRecord<'a> {
    pub session: &'a str,
    /// The entry's id (its line number when it has none).
    pub id: String,
    pub line: u32,
    pub kind: &'a str,
    /// `rev`, `descendant`, `label` or `empty`.
    pub reason: &'a str,
}

/// The per-file record of `prune --json`, after its dropped entries.
#[derive(Debug, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileRecord<'a> {
    pub session: &'a str,
    /// `nothing`, `would-prune`, `pruned` or `failed`.
    pub result: &'a str,
    pub dropped: usize,
    /// Kept entries that name a dropped one: `{"id", "kind", "refersTo"}`.
    pub references: Vec<serde_json::Value>,
    /// `@` after (`null`: an empty position).
    pub at: Option<String>,
    /// Whether `@` moved (`--force`).
    pub moved_at: bool,
    /// The id of the checkout record appended, if one was.
    pub record: Option<String>,
    pub backup: Option<String>,
    pub carried_lines: usize,
    pub error: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::session::testing::tree_session;

    fn ids(s: &Session, p: &Plan) -> Vec<String> {
        p.dropped.iter().map(|&(i, _)| s.id_or_line(i)).collect()
    }

    fn reload(s: &Session, p: &Plan) -> Session {
        Session::from_bytes(PathBuf::from("/t.jsonl"), output(s, p)).unwrap()
    }

    #[test]
    fn drops_the_subtree_and_keeps_at() {
        // a - b - c (@)
        //      \- d - e
        let s = tree_session(&[
            ("a", None),
            ("b", Some("a")),
            ("d", Some("b")),
            ("e", Some("d")),
            ("c", Some("b")),
        ]);
        let p = plan(&s, &["d"], false, false).unwrap();
        assert_eq!(ids(&s, &p), ["d", "e"]);
        assert!(p.record.is_none());
        let after = reload(&s, &p);
        assert_eq!(after.id_str(after.at().unwrap()), Some("c"));
        assert_eq!(after.entries.len(), 3);
    }

    #[test]
    fn refuses_at_branch_unless_forced() {
        let s = tree_session(&[("a", None), ("b", Some("a")), ("c", Some("b"))]);
        let err = plan(&s, &["b"], false, false).unwrap_err();
        assert!(matches!(err, SessionError::Refused(_)), "{err:?}");
        let p = plan(&s, &["b"], false, true).unwrap();
        assert_eq!(p.moved_at, Some(Some(0)));
        let after = reload(&s, &p);
        assert_eq!(after.id_str(after.at().unwrap()), Some("a"));
        assert_eq!(after.entries.len(), 2, "a and the checkout record");
    }

    #[test]
    fn a_dropped_leaf_is_replaced_by_a_checkout_record_to_at() {
        // d (@) is the leaf: pruning c leaves it so.
        let s = tree_session(&[("a", None), ("c", Some("a")), ("d", Some("a"))]);
        let p = plan(&s, &["c"], false, false).unwrap();
        assert!(p.record.is_none());
        let text = String::from_utf8(s.bytes().to_vec()).unwrap()
            + r#"{"type":"label","id":"l","parentId":"d","timestamp":"2026-01-01T01:00:00.000Z","targetId":"c","label":"x"}"#
            + "\n";
        // A label of c then ends the file: it goes with c, and a checkout record keeps @.
        let s = Session::from_bytes(PathBuf::from("/t.jsonl"), text.into_bytes()).unwrap();
        let p = plan(&s, &["c"], false, false).unwrap();
        assert_eq!(p.dropped, [(1, Why::Rev), (3, Why::Label)]);
        let after = reload(&s, &p);
        assert_eq!(after.id_str(after.at().unwrap()), Some("d"));
        assert!(after.entries[after.leaf().unwrap()].is_checkout());
    }

    #[test]
    fn a_label_others_continue_from_is_kept_and_reported() {
        let text = String::from_utf8(tree_session(&[("a", None), ("x", Some("a"))]).bytes().to_vec()).unwrap()
            + r#"{"type":"label","id":"l","parentId":"a","timestamp":"2026-01-01T01:00:00.000Z","targetId":"x","label":"y"}"#
            + "\n"
            + r#"{"type":"message","id":"m","parentId":"l","timestamp":"2026-01-01T01:00:01.000Z","message":{"role":"user","content":"z"}}"#
            + "\n";
        let s = Session::from_bytes(PathBuf::from("/t.jsonl"), text.into_bytes()).unwrap();
        let p = plan(&s, &["x"], false, false).unwrap();
        assert_eq!(ids(&s, &p), ["x"]);
        assert_eq!(p.references, [Reference { entry: 2, target: 1 }]);
    }

    #[test]
    fn empty_drops_only_branches_of_failed_replies() {
        let mut text = String::from_utf8(tree_session(&[("a", None), ("b", Some("a"))]).bytes().to_vec()).unwrap();
        for (id, parent, stop) in [("f1", "a", "aborted"), ("f2", "f1", "error"), ("ok", "a", "stop")] {
            text += &format!(
                r#"{{"type":"message","id":"{id}","parentId":"{parent}","timestamp":"2026-01-01T01:00:00.000Z","message":{{"role":"assistant","content":[],"stopReason":"{stop}"}}}}"#
            );
            text.push('\n');
        }
        // @ back on b, last.
        text += r#"{"type":"message","id":"c","parentId":"b","timestamp":"2026-01-01T02:00:00.000Z","message":{"role":"user","content":"z"}}"#;
        text.push('\n');
        let s = Session::from_bytes(PathBuf::from("/t.jsonl"), text.into_bytes()).unwrap();
        let p = plan(&s, &[], true, false).unwrap();
        assert_eq!(p.dropped, [(2, Why::Empty), (3, Why::Descendant)]);
    }

    #[test]
    fn every_kept_line_is_byte_identical() {
        let s = tree_session(&[("a", None), ("b", Some("a")), ("c", Some("a"))]);
        let p = plan(&s, &["b"], false, false).unwrap();
        let out = output(&s, &p);
        let kept: Vec<&[u8]> = s
            .bytes()
            .split(|&b| b == b'\n')
            .filter(|l| !l.windows(8).any(|w| w == br#""id":"b""#))
            .collect();
        assert_eq!(out, kept.join(&b'\n'));
    }
}
