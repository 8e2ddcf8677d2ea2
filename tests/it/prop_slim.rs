//! Property tests of `slim` on generated sessions: random trees (branches, compactions
//! keeping from anywhere, labels) whose user messages, tool results and custom messages
//! hold images and outputs of every size. Properties: the context at `@` (and at the leaf),
//! the ids, parents and `@` never change; every line without a payload moved is
//! byte-identical; a second slim finds nothing; `--restore` gives back the original file
//! byte for byte.

use pi_session::ops::slim::{Options, restore_file, slim_file};
use pi_session::session::Session;
use pi_session::session::context::build_context;
use proptest::prelude::*;
use proptest::test_runner::Config;
use serde_json::{Value, json};

/// 64 cases (each writes files); `PROPTEST_CASES=N` for a longer hunt.
fn config() -> Config {
    Config {
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|n| n.parse().ok())
            .unwrap_or(64),
        failure_persistence: None,
        ..Config::default()
    }
}

#[derive(Debug, Clone)]
enum Block {
    Text(usize),
    Image(usize),
}

#[derive(Debug, Clone)]
enum Kind {
    User(Vec<Block>),
    Assistant,
    ToolResult(Vec<Block>),
    Custom(Vec<Block>),
    /// Keeps from the entry this many back on the path (modulo its length).
    Compaction(usize),
    Label(usize),
}

fn block() -> impl Strategy<Value = Block> {
    prop_oneof![
        (0usize..300).prop_map(Block::Text),
        (1usize..300).prop_map(Block::Image)
    ]
}

fn kind() -> impl Strategy<Value = Kind> {
    let blocks = || prop::collection::vec(block(), 0..4);
    prop_oneof![
        3 => blocks().prop_map(Kind::User),
        2 => Just(Kind::Assistant),
        3 => blocks().prop_map(Kind::ToolResult),
        1 => blocks().prop_map(Kind::Custom),
        1 => (0usize..10).prop_map(Kind::Compaction),
        1 => (0usize..20).prop_map(Kind::Label),
    ]
}

fn content(blocks: &[Block], seed: usize) -> Value {
    Value::Array(
        blocks
            .iter()
            .enumerate()
            .map(|(k, b)| match b {
                Block::Text(n) => json!({"type": "text", "text": "t".repeat(*n)}),
                Block::Image(n) => {
                    let data: String = (0..*n).map(|i| (b'A' + ((i + seed + k) % 26) as u8) as char).collect();
                    json!({"type": "image", "data": data, "mimeType": "image/png"})
                }
            })
            .collect(),
    )
}

/// The session's lines: each entry's parent is an earlier entry (`parents[i] % i`), or
/// none for the first.
fn session(entries: &[(Kind, usize)]) -> String {
    let mut lines = vec![
        r#"{"type":"session","version":3,"id":"019a1c2e-5b7f-7d20-9a41-3f0e8b6c1d12","timestamp":"2026-03-05T08:00:00.000Z","cwd":"/p"}"#
            .to_owned(),
    ];
    let mut parents: Vec<Option<usize>> = Vec::new();
    for (i, (kind, p)) in entries.iter().enumerate() {
        let parent = (i > 0).then(|| p % i);
        parents.push(parent);
        let id = format!("e{i:07}");
        let ts = format!("2026-03-05T08:{:02}:{:02}.000Z", i / 60, i % 60);
        let base = json!({"id": id, "parentId": parent.map(|p| format!("e{p:07}")), "timestamp": ts});
        let mut v = match kind {
            Kind::User(b) => {
                json!({"type": "message", "message": {"role": "user", "content": content(b, i), "timestamp": 1}})
            }
            Kind::Assistant => json!({"type": "message", "message": {"role": "assistant",
                "content": [{"type": "text", "text": "ok"}], "provider": "p", "model": "m",
                "usage": {"input": 1, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 2,
                "cost": {"input": 0, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": 0}},
                "stopReason": "stop", "timestamp": 1}}),
            Kind::ToolResult(b) => json!({"type": "message", "message": {"role": "toolResult",
                "toolCallId": "c", "toolName": "read", "content": content(b, i), "isError": false, "timestamp": 1}}),
            Kind::Custom(b) => {
                json!({"type": "custom_message", "customType": "x", "content": content(b, i), "display": true})
            }
            Kind::Compaction(back) => {
                let mut path = vec![];
                let mut cur = parent;
                while let Some(c) = cur {
                    path.push(c);
                    cur = parents[c];
                }
                let kept = path.get(back % path.len().max(1)).map(|k| format!("e{k:07}"));
                json!({"type": "compaction", "summary": "s", "firstKeptEntryId": kept, "tokensBefore": 10})
            }
            Kind::Label(t) => json!({"type": "label", "targetId": format!("e{:07}", t % (i + 1)), "label": "l"}),
        };
        for (k, x) in base.as_object().unwrap() {
            v[k] = x.clone();
        }
        lines.push(serde_json::to_string(&v).unwrap());
    }
    lines.join("\n") + "\n"
}

/// The contexts at @ and at the leaf, @, and every entry's (id, parent).
type Seen = (
    Vec<Value>,
    Vec<Value>,
    Option<String>,
    Vec<(Option<String>, Option<String>)>,
);

/// What must not change.
fn seen(path: &std::path::Path) -> Seen {
    let s = Session::open(path).unwrap();
    let messages = |leaf| {
        build_context(&s, leaf)
            .messages(&s)
            .map(|m| m.message)
            .collect::<Vec<_>>()
    };
    let tree = (0..s.entries.len())
        .map(|i| (s.id_str(i).map(str::to_owned), s.parent_id_str(i).map(str::to_owned)))
        .collect();
    let at = s.at().and_then(|i| s.id_str(i)).map(str::to_owned);
    (messages(s.at()), messages(s.leaf()), at, tree)
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn slim_then_restore_is_the_identity_and_the_context_never_changes(
        entries in prop::collection::vec((kind(), any::<usize>()), 1..30),
        max_output in 0usize..400,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let original = session(&entries);
        std::fs::write(&path, &original).unwrap();
        let before = seen(&path);
        let opts = Options { max_output, in_context: false, dry_run: false, force: true, keep_backup: false };
        let dry = slim_file(&path, &Options { dry_run: true, ..opts.clone() }).unwrap();
        prop_assert_eq!(std::fs::read(&path).unwrap(), original.as_bytes());
        let slimmed = slim_file(&path, &opts).unwrap();
        prop_assert_eq!(dry.moved.len(), slimmed.moved.len());
        prop_assert!(seen(&path) == before, "what Pi sees changed");
        let after = std::fs::read(&path).unwrap();
        let moved_lines: std::collections::HashSet<u32> = slimmed.moved.iter().map(|m| m.line).collect();
        for (n, (a, b)) in original.as_bytes().split(|&c| c == b'\n').zip(after.split(|&c| c == b'\n')).enumerate() {
            prop_assert!(moved_lines.contains(&(n as u32 + 1)) || a == b, "line {} changed", n + 1);
        }
        prop_assert!(slim_file(&path, &opts).unwrap().moved.is_empty(), "a second slim found more");
        let restored = restore_file(&path, false, true, false).unwrap();
        prop_assert_eq!(restored.moved.len(), slimmed.moved.len());
        prop_assert!(restored.missing.is_empty());
        prop_assert_eq!(std::fs::read(&path).unwrap(), original.as_bytes());
    }
}
