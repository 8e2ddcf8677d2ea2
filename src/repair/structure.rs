//! The second pass of repair: the tree. Decides each entry's id, parent, and whether it
//! stays, so that Pi reads the result the way it reads the file today, minus what it
//! cannot read at all (cycles) and what points nowhere.

// Decisions are parallel vectors indexed by entry; index loops read clearest here.
#![allow(clippy::needless_range_loop)]

use super::finding::Finding;
use crate::session::io::append::new_entry_id;
use crate::session::{Detail, EntryIdx, EntryKind, Session, Tools};
use rustc_hash::FxHashSet;

/// Where an entry's parent link points after repair.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Parent {
    Root,
    Entry(EntryIdx),
}

/// The decisions for every entry of the loaded session.
pub struct Decisions {
    pub keep: Vec<bool>,
    /// A fresh id for entries that need one (duplicates, entries without an id).
    pub new_id: Vec<Option<String>>,
    pub parent: Vec<Parent>,
    /// Compactions whose `firstKeptEntryId` becomes their own id ("retain none").
    pub retarget_first_kept: FxHashSet<EntryIdx>,
}

impl Decisions {
    /// The id an entry has after repair.
    pub fn id_of<'a>(&'a self, session: &'a Session, i: EntryIdx) -> Option<&'a str> {
        self.new_id[i].as_deref().or_else(|| session.id_str(i))
    }
}

pub fn decide(session: &Session, findings: &mut Vec<Finding>) -> Decisions {
    let n = session.entries.len();
    let mut keep = vec![true; n];
    let mut new_id: Vec<Option<String>> = vec![None; n];
    // Ids made here; with every id the file names, they are taken.
    let mut taken: FxHashSet<String> = FxHashSet::default();
    let fresh = |taken: &mut FxHashSet<String>| {
        let id = new_entry_id(|c| session.ids().get(c).is_some() || taken.contains(c));
        taken.insert(id.clone());
        id
    };
    let line = |i: EntryIdx| Some(session.entries[i].line);

    // Pi's reading today: parents resolve to the last entry with an id.
    let mut parent: Vec<Parent> = (0..n)
        .map(|i| match session.parent(i) {
            Some(p) => Parent::Entry(p),
            None => Parent::Root,
        })
        .collect();
    for i in 0..n {
        if let Some(p) = session.entries[i].parent
            && session.lookup_sym(p).is_none()
        {
            findings.push(
                Finding::defect(
                    "orphan",
                    line(i),
                    format!(
                        "its parent {} does not exist; Pi shows it as a root",
                        session.ids().name(p)
                    ),
                    "make it a root (parentId null), as Pi already reads it",
                )
                .with_id(session.id_str(i)),
            );
        }
    }

    // Entries without an id cannot be reached by any reference.
    for i in 0..n {
        if session.entries[i].id.is_none() {
            let id = fresh(&mut taken);
            findings.push(Finding::defect(
                "missing-id",
                line(i),
                "the entry has no id",
                format!("give it id {id}"),
            ));
            new_id[i] = Some(id);
        }
    }

    // Duplicate ids: the last entry keeps the id (Pi resolves every reference to it); the
    // others get fresh ids. A child written before the later duplicate existed meant the
    // earlier one, and goes back to it, unless it is on the branch Pi continues today.
    let duplicates = duplicate_ids(session);
    let protected: FxHashSet<EntryIdx> = match session.leaf() {
        Some(l) if !duplicates.is_empty() => session.branch(l).path.into_iter().collect(),
        _ => FxHashSet::default(),
    };
    for (sym, group) in duplicates {
        let name = session.ids().name(sym).to_owned();
        let last = *group.last().expect("a group");
        let mut renamed: Vec<(EntryIdx, String)> = Vec::new();
        for &d in &group[..group.len() - 1] {
            let id = fresh(&mut taken);
            renamed.push((d, id.clone()));
            new_id[d] = Some(id);
        }
        let mut moved = Vec::new();
        for r in 0..n {
            if session.entries[r].parent != Some(sym) || protected.contains(&r) || r > last {
                continue;
            }
            if let Some(&(d, _)) = renamed.iter().rev().find(|(d, _)| *d < r) {
                parent[r] = Parent::Entry(d);
                moved.push(session.entries[r].line);
            }
        }
        let names: Vec<String> = renamed
            .iter()
            .map(|(d, id)| format!("line {} → {id}", session.entries[*d].line))
            .collect();
        let mut action = format!(
            "keep {name} on line {} (every reference Pi follows today points there); give {}",
            session.entries[last].line,
            names.join(", ")
        );
        if !moved.is_empty() {
            action.push_str(&format!(
                "; the children on lines {} were written before line {} and go back under the entry they were written after",
                moved.iter().map(u32::to_string).collect::<Vec<_>>().join(", "),
                session.entries[last].line
            ));
        }
        findings.push(
            Finding::defect(
                "duplicate-id",
                Some(session.entries[group[0]].line),
                format!(
                    "{} entries share the id {name} (lines {}); Pi only sees the last",
                    group.len(),
                    group
                        .iter()
                        .map(|&g| session.entries[g].line.to_string())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
                action,
            )
            .with_id(Some(&name)),
        );
    }

    // Entries Pi 1.6.0 throws on when it opens or resumes the file: a message entry without
    // a message (`entry.message.role`), a session name that is not a string
    // (`entry.name?.trim()`). Only entries the index could not read are looked at again.
    for i in 0..n {
        let e = &session.entries[i];
        let (kind, message) = match &e.detail {
            Detail::Message { role: None, .. } => match session.value(i).get("message") {
                None => ("message-without-message", "a message entry with no `message`"),
                Some(serde_json::Value::Null) => ("message-without-message", "a message entry whose `message` is null"),
                Some(_) => continue,
            },
            Detail::SessionInfo { name: None } => match session.value(i).get("name") {
                None | Some(serde_json::Value::Null | serde_json::Value::String(_)) => continue,
                Some(_) => (
                    "session-name-not-a-string",
                    "a session_info whose `name` is not a string",
                ),
            },
            _ => continue,
        };
        keep[i] = false;
        findings.push(
            Finding::defect(
                kind,
                line(i),
                format!("{message}; Pi 1.6.0 throws opening or resuming the file"),
                "drop it (kept in the .rejects file); entries below it move to its parent",
            )
            .with_id(session.id_str(i)),
        );
    }

    // Labels and context edits that point nowhere are dropped, and so, in turn, those that
    // point at an entry dropped here.
    loop {
        let mut dropped_any = false;
        for i in 0..n {
            let e = &session.entries[i];
            if !keep[i] {
                continue;
            }
            let (what, target) = match &e.detail {
                Detail::Label { target, .. } => ("label", *target),
                Detail::ContextEdit { target } => ("context edit", *target),
                _ => continue,
            };
            let resolved = target.and_then(|t| session.lookup_sym(t));
            let target_name = target
                .map(|t| session.ids().name(t).to_owned())
                .unwrap_or_else(|| "(none)".into());
            let kind = if e.kind == EntryKind::Label {
                "dangling-label"
            } else {
                "dangling-context-edit"
            };
            let message = match resolved {
                None => format!("a {what} for {target_name}, which does not exist"),
                Some(t) if !keep[t] => format!("a {what} for {target_name}, which repair drops"),
                Some(_) if e.kind == EntryKind::ContextEdit && session.value(i).get("replacement").is_none() => {
                    keep[i] = false;
                    dropped_any = true;
                    findings.push(
                        Finding::defect(
                            "context-edit-without-replacement",
                            line(i),
                            "a context edit with no `replacement`; Pi 1.6.0 fails building the context",
                            "drop it (kept in the .rejects file); entries below it move to its parent",
                        )
                        .with_id(session.id_str(i)),
                    );
                    continue;
                }
                Some(_) => continue,
            };
            keep[i] = false;
            dropped_any = true;
            findings.push(
                Finding::defect(
                    kind,
                    line(i),
                    message,
                    "drop it (kept in the .rejects file); entries below it move to its parent",
                )
                .with_id(session.id_str(i)),
            );
        }
        if !dropped_any {
            break;
        }
    }

    // Children of dropped entries move up to the nearest kept ancestor.
    for i in 0..n {
        let mut p = parent[i];
        let mut steps = 0;
        while let Parent::Entry(j) = p {
            if keep[j] || steps > n {
                break;
            }
            p = parent[j];
            steps += 1;
        }
        if steps > n {
            p = Parent::Root;
        }
        parent[i] = p;
    }

    break_cycles(session, &keep, &mut parent, findings);

    // A compaction keeps from an entry on its own path, or from itself (retain none).
    let mut retarget_first_kept = FxHashSet::default();
    for i in 0..n {
        if !keep[i] || session.entries[i].kind != EntryKind::Compaction {
            continue;
        }
        let Detail::Compaction { first_kept, .. } = &session.entries[i].detail else {
            continue;
        };
        let own = session.entries[i].id;
        let ok = match first_kept {
            // Keeping from itself stays so, under the fresh id a duplicate gets.
            Some(f) if Some(*f) == own && new_id[i].is_some() => {
                retarget_first_kept.insert(i);
                continue;
            }
            Some(f) if Some(*f) == own => true,
            Some(f) => session
                .lookup_sym(*f)
                .is_some_and(|target| is_ancestor(&parent, target, i, n)),
            None => false,
        };
        if !ok {
            retarget_first_kept.insert(i);
            let what = first_kept.map(|f| session.ids().name(f).to_owned());
            findings.push(
                Finding::defect(
                    "dangling-first-kept",
                    line(i),
                    match &what {
                        Some(f) => format!("the compaction keeps from {f}, which is not on its own path; Pi keeps nothing"),
                        None => "the compaction has no firstKeptEntryId".to_owned(),
                    },
                    "point firstKeptEntryId at the compaction itself (retain none), which is what Pi does with it today",
                )
                .with_id(session.id_str(i)),
            );
        }
    }

    Decisions {
        keep,
        new_id,
        parent,
        retarget_first_kept,
    }
}

/// Every id that more than one entry carries, with those entries, in the order of their
/// first entries ([`Session::duplicate_ids`], without a list per id when there are none:
/// an entry is a duplicate when its id resolves to a later entry).
fn duplicate_ids(session: &Session) -> Vec<(crate::session::Sym, Vec<EntryIdx>)> {
    let any = session
        .entries
        .iter()
        .enumerate()
        .any(|(i, e)| e.id.is_some_and(|id| session.lookup_sym(id) != Some(i)));
    if any { session.duplicate_ids() } else { Vec::new() }
}

fn is_ancestor(parent: &[Parent], candidate: EntryIdx, of: EntryIdx, n: usize) -> bool {
    let mut cur = of;
    for _ in 0..=n {
        match parent[cur] {
            Parent::Entry(p) if p == candidate => return true,
            Parent::Entry(p) => cur = p,
            Parent::Root => return false,
        }
    }
    false
}

/// Finds every parent cycle among kept entries and cuts it at its earliest entry in the
/// file (whose parent necessarily comes after it), making that entry a root.
fn break_cycles(session: &Session, keep: &[bool], parent: &mut [Parent], findings: &mut Vec<Finding>) {
    let n = parent.len();
    // 0 unvisited, 1 on the current walk, 2 done.
    let mut state = vec![0u8; n];
    let mut walk = Vec::new();
    for start in 0..n {
        if state[start] != 0 || !keep[start] {
            continue;
        }
        walk.clear();
        let mut cur = start;
        loop {
            if state[cur] == 2 {
                break;
            }
            if state[cur] == 1 {
                let from = walk.iter().position(|&w| w == cur).expect("on the walk");
                let cycle = &walk[from..];
                let cut = *cycle.iter().min().expect("non-empty");
                let ids: Vec<String> = cycle.iter().map(|&c| session.id_or_line(c)).collect();
                let (kind, message) = if cycle.len() == 1 {
                    (
                        "self-parent",
                        "the entry is its own parent; Pi 1.6.0 hangs walking its branch".to_owned(),
                    )
                } else {
                    (
                        "parent-cycle",
                        format!(
                            "parent links form a cycle ({}); Pi 1.6.0 hangs walking it",
                            ids.join(" → ")
                        ),
                    )
                };
                findings.push(
                    Finding::defect(
                        kind,
                        Some(session.entries[cut].line),
                        message,
                        "make this entry a root (parentId null)",
                    )
                    .with_id(session.id_str(cut)),
                );
                parent[cut] = Parent::Root;
                break;
            }
            state[cur] = 1;
            walk.push(cur);
            match parent[cur] {
                Parent::Entry(p) => cur = p,
                Parent::Root => break,
            }
        }
        for &w in &walk {
            state[w] = 2;
        }
    }
}

/// What the tool checks need from one entry (read by the loader's skim).
fn tool_info(session: &Session, i: EntryIdx) -> &Tools {
    match &session.entries[i].detail {
        Detail::Message { tools, .. } => tools,
        _ => &Tools::None,
    }
}

/// Warnings about tool calls and results: a result whose call is not on its path (a
/// provider rejects that context), and calls with no result after them (an interrupted turn).
pub fn tool_warnings(session: &Session) -> Vec<Finding> {
    use crate::session::Role;
    let n = session.entries.len();
    let infos: Vec<&Tools> = (0..n).map(|i| tool_info(session, i)).collect();
    let mut findings = Vec::new();
    // The children of entry `p`: `child[first[p]..first[p + 1]]`, in file order.
    let parents: Vec<Option<EntryIdx>> = (0..n).map(|i| session.parent(i)).collect();
    let mut first = vec![0usize; n + 1];
    for p in parents.iter().flatten() {
        first[p + 1] += 1;
    }
    for k in 0..n {
        first[k + 1] += first[k];
    }
    let mut child = vec![0 as EntryIdx; first[n]];
    let mut fill = first.clone();
    for (i, p) in parents.iter().enumerate() {
        if let Some(p) = *p {
            child[fill[p]] = i;
            fill[p] += 1;
        }
    }
    drop(fill);
    let children = |p: EntryIdx| &child[first[p]..first[p + 1]];
    let is_msg = |i: EntryIdx| session.entries[i].kind == EntryKind::Message;
    for i in 0..n {
        let Tools::ResultOf(call_id) = infos[i] else { continue };
        // Walk up to the assistant message of this turn.
        let mut cur = session.parent(i);
        let mut found = false;
        let mut steps = 0;
        while let Some(p) = cur {
            steps += 1;
            if steps > n {
                break;
            }
            let e = &session.entries[p];
            if let Tools::Calls(calls) = infos[p] {
                found = calls.ids.contains(call_id);
                if found {
                    break;
                }
            } else if is_msg(p) && !e.is_role(&Role::ToolResult) {
                break;
            }
            cur = session.parent(p);
        }
        if !found {
            findings.push(
                Finding::warning(
                    "orphan-tool-result",
                    Some(session.entries[i].line),
                    format!(
                        "the tool result for call {call_id} has no matching tool call on its path; a provider would reject this context"
                    ),
                )
                .with_id(session.id_str(i)),
            );
        }
    }
    for i in 0..n {
        let Tools::Calls(calls) = infos[i] else { continue };
        let calls = &calls.ids;
        if calls.is_empty() {
            continue;
        }
        // Results follow the call: descend through tool results and bookkeeping entries.
        let mut answered: FxHashSet<&str> = FxHashSet::default();
        let mut stack: Vec<EntryIdx> = children(i).to_vec();
        let mut seen = 0;
        while let Some(c) = stack.pop() {
            seen += 1;
            if seen > n {
                break;
            }
            if let Tools::ResultOf(id) = infos[c] {
                answered.insert(id);
            } else if is_msg(c) {
                continue;
            }
            stack.extend(children(c).iter().copied());
        }
        let missing: Vec<&str> = calls.iter().map(|c| &**c).filter(|c| !answered.contains(c)).collect();
        if !missing.is_empty() {
            findings.push(
                Finding::warning(
                    "unanswered-tool-call",
                    Some(session.entries[i].line),
                    format!(
                        "tool call{} {} ha{} no result after {} (an interrupted turn)",
                        if missing.len() == 1 { "" } else { "s" },
                        missing.join(", "),
                        if missing.len() == 1 { "s" } else { "ve" },
                        if missing.len() == 1 { "it" } else { "them" }
                    ),
                )
                .with_id(session.id_str(i)),
            );
        }
    }
    findings
}
