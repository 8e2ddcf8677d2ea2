//! Every branch of a session at once, for a transcript of the whole tree: the tree cut into
//! chains, each entry on exactly one. The first chain is `@`'s branch from its root; every
//! other starts at an entry whose parent is on an earlier chain (a branch point), or at a
//! root of its own, and follows the child written last down to a leaf, so an abandoned
//! attempt reads as one chain from where it left the branch it came from.
//!
//! Walks are iterative and visit each entry once: a 100k-deep chain, or entries on a parent
//! cycle (left out, as they are unreachable from a root), cost no stack and cannot loop.

use crate::session::tree::Tree;
use crate::session::{EntryIdx, Session};

/// One chain of entries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chain {
    /// Its entries, parent first.
    pub path: Vec<EntryIdx>,
    /// The chain and entry it branches off (`None`: it starts at a root).
    pub fork: Option<(usize, EntryIdx)>,
    /// It ends at `@` (only the first chain can).
    pub current: bool,
}

/// The chains of a session, and where each branches off.
#[derive(Debug, Clone, Default)]
pub struct Outline {
    pub chains: Vec<Chain>,
    /// By entry: the chains that branch off it (only entries that have some).
    pub forks: rustc_hash::FxHashMap<EntryIdx, Vec<usize>>,
}

impl Outline {
    /// The chains branching off entry `idx`.
    pub fn forks_at(&self, idx: EntryIdx) -> &[usize] {
        self.forks.get(&idx).map_or(&[], Vec::as_slice)
    }

    /// How deep each chain is ([`depths`]).
    pub fn depths(&self) -> Vec<usize> {
        depths(&self.chains)
    }
}

/// How deep each chain is: 0 for those starting at a root, one more than the chain it
/// branches off for the others.
pub fn depths(chains: &[Chain]) -> Vec<usize> {
    let mut depth = vec![0; chains.len()];
    // A chain branches off an earlier one, so one pass in order suffices.
    for (k, c) in chains.iter().enumerate() {
        if let Some((from, _)) = c.fork {
            depth[k] = depth[from] + 1;
        }
    }
    depth
}

/// The outline of `session`, its first chain ending at `at` (when there is an `@`).
pub fn outline(session: &Session, at: Option<EntryIdx>) -> Outline {
    let tree = Tree::build(session);
    let n = session.entries.len();
    let latest = latest_below(&tree, n);
    let mut assigned = vec![false; n];
    let mut out = Outline::default();
    if let Some(at) = at {
        let path = session.branch(at).path;
        for &i in &path {
            assigned[i] = true;
        }
        out.chains.push(Chain {
            path,
            fork: None,
            current: true,
        });
    }
    let mut roots = tree.roots.iter().copied();
    let mut next_chain = 0;
    loop {
        // Chains branching off the chains so far, in order; then a root not yet reached.
        if next_chain < out.chains.len() {
            let k = next_chain;
            next_chain += 1;
            let mut p = 0;
            while p < out.chains[k].path.len() {
                let i = out.chains[k].path[p];
                for &c in &tree.children[i] {
                    if !assigned[c] {
                        let path = follow(&tree, &latest, &mut assigned, c);
                        out.forks.entry(i).or_default().push(out.chains.len());
                        out.chains.push(Chain {
                            path,
                            fork: Some((k, i)),
                            current: false,
                        });
                    }
                }
                p += 1;
            }
            continue;
        }
        match roots.find(|&r| !assigned[r]) {
            Some(r) => {
                let path = follow(&tree, &latest, &mut assigned, r);
                out.chains.push(Chain {
                    path,
                    fork: None,
                    current: false,
                });
            }
            None => break,
        }
    }
    out
}

/// From `start` down to a leaf, each step to the child whose subtree was written to last.
fn follow(tree: &Tree, latest: &[EntryIdx], assigned: &mut [bool], start: EntryIdx) -> Vec<EntryIdx> {
    let mut path = vec![start];
    assigned[start] = true;
    let mut cur = start;
    while let Some(&next) = tree.children[cur]
        .iter()
        .filter(|&&c| !assigned[c])
        .max_by_key(|&&c| latest[c])
    {
        assigned[next] = true;
        path.push(next);
        cur = next;
    }
    path
}

/// By entry: the greatest index (the last written) in its subtree, for entries reachable from
/// a root; visited once each, without recursion.
fn latest_below(tree: &Tree, n: usize) -> Vec<EntryIdx> {
    let mut latest: Vec<EntryIdx> = (0..n).collect();
    let mut seen = vec![false; n];
    let mut order = Vec::with_capacity(n);
    let mut stack: Vec<EntryIdx> = tree.roots.clone();
    while let Some(i) = stack.pop() {
        if std::mem::replace(&mut seen[i], true) {
            continue;
        }
        order.push(i);
        stack.extend(tree.children[i].iter().copied().filter(|&c| !seen[c]));
    }
    // Children come after their parent in `order`: fold from the end.
    for &i in order.iter().rev() {
        let below = tree.children[i].iter().map(|&c| latest[c]).max().unwrap_or(i);
        latest[i] = latest[i].max(below);
    }
    latest
}

#[cfg(test)]
mod tests {
    use super::*;

    fn session(edges: &[(&str, Option<&str>)]) -> Session {
        crate::session::testing::tree_session(edges)
    }

    fn ids(s: &Session, path: &[EntryIdx]) -> Vec<String> {
        path.iter().map(|&i| s.id_or_line(i)).collect()
    }

    #[test]
    fn every_entry_is_on_one_chain() {
        // a-b-c-d (@ at d), b-e-f, e-g, c-h; a second root r.
        let s = session(&[
            ("a", None),
            ("b", Some("a")),
            ("c", Some("b")),
            ("e", Some("b")),
            ("f", Some("e")),
            ("g", Some("e")),
            ("h", Some("c")),
            ("r", None),
            ("d", Some("c")),
        ]);
        let o = outline(&s, s.at());
        let chains: Vec<Vec<String>> = o.chains.iter().map(|c| ids(&s, &c.path)).collect();
        assert_eq!(
            chains,
            [
                vec!["a", "b", "c", "d"],
                vec!["e", "g"],
                vec!["h"],
                vec!["f"],
                vec!["r"]
            ]
        );
        assert!(o.chains[0].current);
        assert_eq!(o.chains[1].fork, Some((0, 1)));
        assert_eq!(o.chains[3].fork, Some((1, 3)));
        assert_eq!(o.chains[4].fork, None);
        assert_eq!(o.depths(), [0, 1, 1, 2, 0]);
        assert_eq!(o.forks_at(1), [1]);
        let total: usize = o.chains.iter().map(|c| c.path.len()).sum();
        assert_eq!(total, s.entries.len());
    }

    #[test]
    fn a_deep_chain_and_a_cycle_cost_no_stack() {
        let n = 100_000;
        let names: Vec<String> = (0..n).map(|k| format!("e{k}")).collect();
        let mut edges: Vec<(&str, Option<&str>)> = vec![(&names[0], None)];
        edges.extend((1..n).map(|k| (names[k].as_str(), Some(names[k - 1].as_str()))));
        // Two entries that are each other's parent: unreachable from a root.
        edges.push(("x", Some("y")));
        edges.push(("y", Some("x")));
        let s = session(&edges);
        let o = outline(&s, Some(n - 1));
        assert_eq!(o.chains.len(), 1);
        assert_eq!(o.chains[0].path.len(), n);
    }
}
