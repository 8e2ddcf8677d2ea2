//! Property tests of `prune` on random trees (messages, failed replies, labels, branch
//! summaries, compactions, in any shape): pruning an entry off `@`'s branch removes exactly
//! its subtree (and the labels of it nothing continues from), keeps every other line byte
//! for byte, and leaves `@` and the context Pi builds there byte-identical.

use pi_session::ops::prune::{output, plan};
use pi_session::session::Session;
use pi_session::session::context::build_context;
use proptest::prelude::*;
use proptest::test_runner::Config;
use std::collections::HashSet;
use std::path::PathBuf;

fn config() -> Config {
    Config {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(256),
        failure_persistence: None,
        ..Config::default()
    }
}

/// One generated entry: its parent (an earlier entry, or none), its kind, the entry a
/// label / summary / compaction names, and a stop reason.
type Spec = (Option<prop::sample::Index>, u8, prop::sample::Index, u8);

fn lines(specs: &[Spec]) -> Vec<String> {
    let mut out =
        vec![r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}"#.to_owned()];
    for (k, (parent, kind, other, stop)) in specs.iter().enumerate() {
        let id = format!("e{k:03}");
        let parent = match parent {
            Some(p) if k > 0 => format!("\"e{:03}\"", p.index(k)),
            _ => "null".into(),
        };
        let other = format!("e{:03}", other.index(k.max(1)));
        let head = format!(
            r#""id":"{id}","parentId":{parent},"timestamp":"2026-01-01T00:00:{:02}.000Z""#,
            k % 60
        );
        let stop = ["stop", "aborted", "error"][*stop as usize % 3];
        out.push(match kind % 8 {
            0..=2 => format!(r#"{{"type":"message",{head},"message":{{"role":"user","content":"u{k}","timestamp":1}}}}"#),
            3 | 4 => format!(
                r#"{{"type":"message",{head},"message":{{"role":"assistant","content":[{{"type":"text","text":"a{k}"}}],"stopReason":"{stop}","timestamp":2}}}}"#
            ),
            5 => format!(r#"{{"type":"label",{head},"targetId":"{other}","label":"l{k}"}}"#),
            6 => format!(r#"{{"type":"branch_summary",{head},"fromId":"{other}","summary":"s{k}"}}"#),
            _ => format!(
                r#"{{"type":"compaction",{head},"summary":"c{k}","firstKeptEntryId":"{other}","tokensBefore":10}}"#
            ),
        });
    }
    out
}

fn context_json(s: &Session) -> Vec<String> {
    build_context(s, s.at())
        .messages(s)
        .map(|m| serde_json::to_string(&m.message).unwrap())
        .collect()
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn pruning_a_branch_off_at_keeps_ats_context(
        specs in prop::collection::vec(
            (prop::option::weighted(0.9, any::<prop::sample::Index>()), any::<u8>(), any::<prop::sample::Index>(), any::<u8>()),
            2..40,
        ),
        pick in any::<prop::sample::Index>(),
    ) {
        let text = lines(&specs).join("\n") + "\n";
        let s = Session::from_bytes(PathBuf::from("/t.jsonl"), text.clone().into_bytes()).unwrap();
        let on_branch: HashSet<usize> = s.at().map(|a| s.branch(a).path.into_iter().collect()).unwrap_or_default();
        let candidates: Vec<usize> = (0..s.entries.len()).filter(|i| !on_branch.contains(i)).collect();
        prop_assume!(!candidates.is_empty());
        let rev = candidates[pick.index(candidates.len())];
        let rev_id = s.id_str(rev).unwrap().to_owned();
        let p = plan(&s, &[&format!("id:{rev_id}")], false, false).unwrap();

        // Expected: the subtree, then the labels of it that nothing continues from.
        let mut drop: HashSet<usize> = HashSet::from([rev]);
        loop {
            let more: Vec<usize> = (0..s.entries.len())
                .filter(|&i| !drop.contains(&i) && s.parent(i).is_some_and(|q| drop.contains(&q)))
                .collect();
            if more.is_empty() { break; }
            drop.extend(more);
        }
        // Labels of what goes (of such labels too), when nothing continues from them.
        loop {
            let labels: Vec<usize> = (0..s.entries.len())
                .filter(|&i| !drop.contains(&i) && s.entries[i].kind_name() == "label")
                .filter(|&i| {
                    let v = s.value(i);
                    let target = v["targetId"].as_str().and_then(|t| s.lookup(t));
                    target.is_some_and(|t| drop.contains(&t))
                        && (0..s.entries.len()).all(|c| s.parent(c) != Some(i) || drop.contains(&c))
                })
                .collect();
            if labels.is_empty() { break; }
            drop.extend(labels);
        }
        let dropped: HashSet<usize> = p.dropped.iter().map(|&(i, _)| i).collect();
        prop_assert_eq!(&dropped, &drop);

        let out = output(&s, &p);
        let after = Session::from_bytes(PathBuf::from("/t.jsonl"), out.clone()).unwrap();
        prop_assert_eq!(after.at().and_then(|a| after.id_str(a)), s.at().and_then(|a| s.id_str(a)));
        prop_assert_eq!(context_json(&after), context_json(&s));
        // Every other line, byte for byte, in order; then the checkout record, if any.
        let mut want: Vec<&str> = text.lines().enumerate()
            .filter(|(n, _)| *n == 0 || !drop.contains(&(n - 1)))
            .map(|(_, l)| l)
            .collect();
        if let Some((_, record)) = &p.record {
            want.push(record);
            prop_assert!(drop.contains(&(s.entries.len() - 1)), "a record only when the leaf goes");
        }
        let got = String::from_utf8(out).unwrap();
        prop_assert_eq!(got.lines().collect::<Vec<_>>(), want);
    }
}
