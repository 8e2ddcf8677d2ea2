//! Two branches side by side: where they part (their merge base, the newest entry both
//! descend from) and what each holds after it, as `git log --left-right A...B` shows two
//! branches of a repository. Branches are walked with [`Session::branch`], iteratively,
//! stopping on parent cycles.

use crate::session::{EntryIdx, EntryKind, Role, Session};

/// Two branches after their merge base.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Divergence {
    /// The newest entry on both branches; `None` when they share no root.
    pub base: Option<EntryIdx>,
    /// The first branch's entries after the base, oldest first.
    pub left: Vec<EntryIdx>,
    /// The second branch's entries after the base, oldest first.
    pub right: Vec<EntryIdx>,
    /// Where a parent cycle stopped a walk up either branch.
    pub cycle_at: Option<EntryIdx>,
}

/// How the branches ending at `a` and `b` part.
pub fn diverge(session: &Session, a: EntryIdx, b: EntryIdx) -> Divergence {
    let left = session.branch(a);
    let right = session.branch(b);
    // Both paths run root first: what they share is a common start.
    let shared = left.path.iter().zip(&right.path).take_while(|(x, y)| x == y).count();
    Divergence {
        base: shared.checked_sub(1).map(|k| left.path[k]),
        left: left.path[shared..].to_vec(),
        right: right.path[shared..].to_vec(),
        cycle_at: left.cycle_at.or(right.cycle_at),
    }
}

/// What one side of a [`Divergence`] did.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SideStat {
    pub entries: usize,
    pub messages: usize,
    /// Messages by role, in first-seen order (in JSON an object).
    #[serde(serialize_with = "as_object")]
    pub roles: Vec<(String, usize)>,
    /// Tokens and cost of the side's paid calls, as `stats` counts them.
    pub total_tokens: f64,
    pub cost: f64,
    /// Tools called, most called first (ties in first-called order; in JSON an object).
    #[serde(serialize_with = "as_object")]
    pub tools: Vec<(String, usize)>,
}

/// Name and count pairs as one JSON object, in their order.
fn as_object<S: serde::Serializer>(pairs: &[(String, usize)], s: S) -> Result<S::Ok, S::Error> {
    use serde::ser::SerializeMap;
    let mut map = s.serialize_map(Some(pairs.len()))?;
    for (name, count) in pairs {
        map.serialize_entry(name, count)?;
    }
    map.end()
}

/// What the entries of one side hold.
pub fn side_stat(session: &Session, entries: &[EntryIdx]) -> SideStat {
    let mut stat = SideStat {
        entries: entries.len(),
        ..SideStat::default()
    };
    let count = |list: &mut Vec<(String, usize)>, name: &str| match list.iter_mut().find(|(n, _)| n == name) {
        Some((_, c)) => *c += 1,
        None => list.push((name.to_owned(), 1)),
    };
    for &i in entries {
        let e = &session.entries[i];
        if e.kind != EntryKind::Message {
            continue;
        }
        stat.messages += 1;
        count(&mut stat.roles, e.role().map_or("?", |r| r.as_str()));
        if e.is_role(&Role::Assistant) {
            for name in crate::usage::tool_calls(session, i) {
                count(&mut stat.tools, if name.is_empty() { "?" } else { &name });
            }
        }
    }
    // A stable sort keeps first-called order among equal counts.
    stat.tools.sort_by_key(|t| std::cmp::Reverse(t.1));
    let totals = crate::usage::collect(session, entries.iter().copied()).total;
    stat.total_tokens = totals.total_tokens;
    stat.cost = totals.cost.total;
    stat
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(edges: &[(&str, Option<&str>)]) -> Session {
        crate::session::testing::tree_session(edges)
    }

    #[test]
    fn branches_part_at_their_merge_base() {
        // a-b-c-d, b-e-f; r a second root.
        let s = session(&[
            ("a", None),
            ("b", Some("a")),
            ("c", Some("b")),
            ("d", Some("c")),
            ("e", Some("b")),
            ("f", Some("e")),
            ("r", None),
        ]);
        let idx = |id: &str| s.lookup(id).unwrap();
        let d = diverge(&s, idx("d"), idx("f"));
        assert_eq!(d.base, Some(idx("b")));
        assert_eq!(d.left, [idx("c"), idx("d")]);
        assert_eq!(d.right, [idx("e"), idx("f")]);
        // An ancestor: one side is empty.
        let up = diverge(&s, idx("d"), idx("b"));
        assert_eq!((up.base, up.right.len(), up.left.len()), (Some(idx("b")), 0, 2));
        assert_eq!(diverge(&s, idx("c"), idx("c")).base, Some(idx("c")));
        // No common root.
        let apart = diverge(&s, idx("d"), idx("r"));
        assert_eq!(apart.base, None);
        assert_eq!(apart.left.len(), 4);
        assert_eq!(apart.right, [idx("r")]);
    }

    #[test]
    fn a_cycle_stops_the_walk() {
        let s = session(&[("a", None), ("x", Some("y")), ("y", Some("x"))]);
        let d = diverge(&s, s.lookup("x").unwrap(), 0);
        assert!(d.cycle_at.is_some());
        assert_eq!(d.base, None);
    }
}
