//! The real Pi 1.6.0 CLI reads what every write command wrote as pi-session reads it:
//! after the write, `pi --mode rpc --session FILE` (see `common::pi_cli`) is asked for its
//! tree, messages and stats, and they must agree with `pi-session tree --all --json`,
//! `context --json` and `stats --json`. The library-level tests (interop_writes.rs) call
//! Pi's session module; these run the program users run.
//!
//! Pi appends a `thinking_level_change` when it opens a session that records none; it
//! runs on a copy, and what it appended is left out of the comparison.

use crate::common;

use common::pi_cli::{PiView, ask_pi};
use common::{cmd, corpus_dir, example, fixture, json_eq, ndjson, run_ok};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// `src` copied into a fresh directory DIR (same file name), with its header's `cwd` set
/// to `DIR/cwd`, a directory that exists: Pi starts without a model only there. The header
/// is the first line holding a session header (after a BOM, before a CR, both kept); every
/// other byte is as it was. A file without a header keeps none (`repair`, run in `DIR/cwd`,
/// makes one). Its modification time is an hour back, so writes do not warn that Pi may
/// have it open.
fn session_from(src: &Path) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let cwd = dir.path().join("cwd");
    std::fs::create_dir(&cwd).unwrap();
    let data = std::fs::read(src).unwrap();
    let mut out = Vec::with_capacity(data.len() + 100);
    let mut done = false;
    for (i, line) in data.split(|&b| b == b'\n').enumerate() {
        if i > 0 {
            out.push(b'\n');
        }
        let (bom, rest) = match line.strip_prefix("\u{feff}".as_bytes()) {
            Some(rest) => ("\u{feff}".as_bytes(), rest),
            None => (&[][..], line),
        };
        let (json, cr) = match rest.strip_suffix(b"\r") {
            Some(json) => (json, &b"\r"[..]),
            None => (rest, &[][..]),
        };
        match serde_json::from_slice::<Value>(json) {
            Ok(mut header) if !done && header["type"] == "session" => {
                header["cwd"] = Value::String(cwd.to_str().unwrap().to_owned());
                out.extend_from_slice(bom);
                out.extend_from_slice(&serde_json::to_vec(&header).unwrap());
                out.extend_from_slice(cr);
                done = true;
            }
            _ => out.extend_from_slice(line),
        }
    }
    let file = dir.path().join(src.file_name().unwrap());
    std::fs::write(&file, out).unwrap();
    set_old(&file);
    (dir, file)
}

fn set_old(file: &Path) {
    let f = std::fs::OpenOptions::new().write(true).open(file).unwrap();
    f.set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(3600))
        .unwrap();
}

/// One entry of the tree, as both sides can tell it.
#[derive(Debug, PartialEq)]
struct Node {
    parent_id: Value,
    depth: usize,
    kind: Value,
    role: Value,
    label: Value,
    timestamp: Value,
}

/// A tree: its nodes by id, and the children of each id in order (`""` for the roots).
#[derive(Default)]
struct Tree {
    nodes: HashMap<String, Node>,
    children: HashMap<String, Vec<String>>,
}

/// Pi's `get_tree`, without the entries Pi appended itself.
fn pi_tree(pi: &PiView) -> Tree {
    let skip: HashSet<&str> = pi.appended_ids().into_iter().collect();
    let mut tree = Tree::default();
    let mut stack: Vec<(&Value, usize, String)> = pi.tree.iter().rev().map(|n| (n, 0, String::new())).collect();
    let mut order: Vec<(String, String)> = Vec::new();
    while let Some((node, depth, parent)) = stack.pop() {
        let entry = &node["entry"];
        let id = entry["id"].as_str().unwrap().to_owned();
        if skip.contains(id.as_str()) {
            continue;
        }
        order.push((parent, id.clone()));
        tree.nodes.insert(
            id.clone(),
            Node {
                parent_id: entry["parentId"].clone(),
                depth,
                kind: entry["type"].clone(),
                role: entry["message"]["role"].clone(),
                label: node["label"].clone(),
                timestamp: entry["timestamp"].clone(),
            },
        );
        for child in node["children"].as_array().unwrap().iter().rev() {
            stack.push((child, depth + 1, id.clone()));
        }
    }
    for (parent, id) in order {
        tree.children.entry(parent).or_default().push(id);
    }
    tree
}

/// `pi-session tree --all --json` (rows in display order, each with its depth), and the
/// id of the row marked current.
fn our_tree(file: &Path) -> (Tree, Option<String>) {
    let rows = ndjson(&run_ok(file, &["tree", "--all", "--json"]));
    let mut tree = Tree::default();
    let mut current = None;
    // The ids on the path from a root to the row before, by depth.
    let mut path: Vec<String> = Vec::new();
    for row in &rows {
        let id = row["id"].as_str().unwrap().to_owned();
        let depth = row["depth"].as_u64().unwrap() as usize;
        path.truncate(depth);
        let parent = path.last().cloned().unwrap_or_default();
        tree.children.entry(parent).or_default().push(id.clone());
        path.push(id.clone());
        if row["current"] == true {
            current = Some(id.clone());
        }
        tree.nodes.insert(
            id,
            Node {
                parent_id: row["parentId"].clone(),
                depth,
                kind: row["type"].clone(),
                role: row["role"].clone(),
                label: row["label"].clone(),
                timestamp: row["timestamp"].clone(),
            },
        );
    }
    (tree, current)
}

/// Pi and pi-session see the same tree, position, messages and totals in `file`.
/// Returns what Pi answered, or `None` when the Pi CLI is unavailable.
fn agree(file: &Path) -> Option<PiView> {
    let pi = ask_pi(file)?;
    let what = file.display();

    // The tree: the same entries, parents, depths, kinds, labels.
    let theirs = pi_tree(&pi);
    let (ours, current) = our_tree(file);
    let mut ids: Vec<&String> = ours.nodes.keys().collect();
    ids.sort();
    let mut pi_ids: Vec<&String> = theirs.nodes.keys().collect();
    pi_ids.sort();
    assert_eq!(ids, pi_ids, "{what}: the entries of the tree");
    for (id, node) in &ours.nodes {
        assert_eq!(node, &theirs.nodes[id], "{what}: entry {id}");
    }
    // Pi's leaf is the file's last entry; pi-session's `@` steps back from it over trailing
    // labels and checkout records.
    let leaf = pi.leaf_before_appends();
    let our_leaf = common::run(file, &["rev-parse", "--leaf"]);
    assert_eq!(
        our_leaf.stdout.trim(),
        leaf.as_str().unwrap_or_default(),
        "{what}: the leaf ({})",
        our_leaf.stderr
    );
    let mut on_leaf_path: HashSet<String> = HashSet::new();
    let mut at = leaf.as_str().map(str::to_owned);
    while let Some(id) = at {
        at = ours
            .nodes
            .get(&id)
            .and_then(|n| n.parent_id.as_str().map(str::to_owned));
        if !on_leaf_path.insert(id) {
            break;
        }
    }
    if let Some(current) = &current {
        assert!(
            on_leaf_path.contains(current),
            "{what}: @ ({current}) is on the branch of Pi's leaf"
        );
    }
    // Siblings in Pi's order (by timestamp), but for the one holding the leaf, which
    // pi-session shows first, as Pi's /tree draws it.
    let parents: HashSet<&String> = ours.children.keys().chain(theirs.children.keys()).collect();
    for parent in parents {
        let kids = ours.children.get(parent).cloned().unwrap_or_default();
        let pis = theirs.children.get(parent).cloned().unwrap_or_default();
        let mut a = kids.clone();
        let mut b = pis.clone();
        a.sort();
        b.sort();
        assert_eq!(a, b, "{what}: children of {parent:?}");
        let off_path =
            |v: &[String]| -> Vec<String> { v.iter().filter(|id| !on_leaf_path.contains(*id)).cloned().collect() };
        assert_eq!(
            off_path(&kids),
            off_path(&pis),
            "{what}: the order of the children of {parent:?} (ours {kids:?}, Pi's {pis:?})"
        );
    }

    // The messages the model would be sent.
    let context = ndjson(&run_ok(file, &["context", "--json"]));
    assert_eq!(context.len(), pi.messages.len(), "{what}: the number of messages");
    for (i, (a, b)) in context.iter().zip(&pi.messages).enumerate() {
        assert!(json_eq(a, b), "{what}: message {i}\nours: {a}\nPi's: {b}");
    }

    stats_agree(file, &pi);
    Some(pi)
}

/// `stats --json` says what Pi's `get_session_stats` says: tokens and cost over the whole
/// file, and the counts of messages and tool calls. (Not `contextUsage`: Pi started with no
/// keys has no model, and then reports none.)
fn stats_agree(file: &Path, pi: &PiView) {
    let what = file.display();
    let stats: Value = serde_json::from_str(&run_ok(file, &["stats", "--json"])).unwrap();
    let total = &stats["total"];
    let tokens = &pi.stats["tokens"];
    let mut sum = 0.0;
    for key in ["input", "output", "cacheRead", "cacheWrite"] {
        assert!(
            json_eq(&total[key], &tokens[key]),
            "{what}: {key} tokens: ours {} Pi's {}",
            total[key],
            tokens[key]
        );
        sum += total[key].as_f64().unwrap();
    }
    assert_eq!(Some(sum), tokens["total"].as_f64(), "{what}: total tokens");
    assert!(
        json_eq(&total["cost"]["total"], &pi.stats["cost"]),
        "{what}: cost: ours {} Pi's {}",
        total["cost"]["total"],
        pi.stats["cost"]
    );
    // The counts of Pi's /session, as `stats` reports them.
    for key in [
        "userMessages",
        "assistantMessages",
        "toolCalls",
        "toolResults",
        "totalMessages",
    ] {
        assert_eq!(
            stats[key].as_u64(),
            pi.stats[key].as_u64(),
            "{what}: {key}: ours {} Pi's {}",
            stats[key],
            pi.stats[key]
        );
    }
}

/// The label Pi shows on `id`.
fn pi_label(pi: &PiView, id: &str) -> Value {
    pi_tree(pi).nodes[id].label.clone()
}

/// More sessions the writes are tried on: forks, several roots, an orphan, a compaction
/// with context edits, CRLF lines, Pi's own clone.
fn more_sources() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = [
        "labels.jsonl",
        "several-roots.jsonl",
        "orphan.jsonl",
        "compaction-context-edit.jsonl",
        "crlf.jsonl",
    ]
    .into_iter()
    .map(fixture)
    .collect();
    v.push(corpus_dir().join("pi-built-clone.v3.jsonl"));
    v
}

fn real_large() -> PathBuf {
    corpus_dir().join("real-large.v3.jsonl")
}

fn summary_file(dir: &Path) -> PathBuf {
    let summary = dir.join("summary.md");
    std::fs::write(&summary, "## Goal\nSay the same thing in Pi and in pi-session.\n").unwrap();
    summary
}

fn header(file: &Path) -> Value {
    let text = std::fs::read_to_string(file).unwrap();
    serde_json::from_str(text.lines().next().unwrap()).unwrap()
}

/// The path a clone or fork printed.
fn new_session(out: &str) -> PathBuf {
    PathBuf::from(out.trim())
}

#[test]
fn checkout_writes_read_alike_in_pi() {
    let (_dir, file) = session_from(&real_large());
    let target = common::rev_parse(&file, "@~30");
    run_ok(&file, &["checkout", &format!("id:{target}")]);
    if agree(&file).is_none() {
        return;
    }
    // The context both sides agree on is the one at the target.
    assert_eq!(common::rev_parse(&file, "@"), target);
    // And back, and onto an empty conversation.
    run_ok(&file, &["checkout", "-"]);
    agree(&file);
    run_ok(&file, &["checkout", "--empty"]);
    let pi = agree(&file).unwrap();
    assert!(pi.messages.is_empty(), "no messages after checkout --empty");
    for src in more_sources() {
        let (_dir, file) = session_from(&src);
        run_ok(&file, &["checkout", "@~2"]);
        agree(&file);
    }
}

#[test]
fn label_writes_read_alike_in_pi() {
    let (_dir, file) = session_from(&example());
    let target = common::rev_parse(&file, "@~1");
    run_ok(&file, &["label", &format!("id:{target}"), "interop-mark"]);
    // Clearing a label is a label entry too.
    run_ok(&file, &["label", "--delete", "start"]);
    let Some(pi) = agree(&file) else { return };
    assert_eq!(pi_label(&pi, &target), "interop-mark");
    assert_eq!(pi_label(&pi, "80fbf1f2"), Value::Null, "the label start is cleared");
    for src in more_sources() {
        let (_dir, file) = session_from(&src);
        let target = common::rev_parse(&file, "@~2");
        run_ok(&file, &["label", &format!("id:{target}"), "interop-mark"]);
        let pi = agree(&file).unwrap();
        assert_eq!(pi_label(&pi, &target), "interop-mark", "{}", src.display());
    }
}

#[test]
fn compact_writes_read_alike_in_pi() {
    let (dir, file) = session_from(&real_large());
    let summary = summary_file(dir.path());
    run_ok(
        &file,
        &[
            "compact",
            "--keep-recent-tokens",
            "4000",
            "--summary-file",
            summary.to_str().unwrap(),
        ],
    );
    let Some(pi) = agree(&file) else { return };
    assert_eq!(pi.messages[0]["role"], "compactionSummary");
}

#[test]
fn summarize_branch_writes_read_alike_in_pi() {
    // From the side branch at b8731d22 over to the main line's end.
    let (dir, file) = session_from(&example());
    let summary = summary_file(dir.path());
    run_ok(
        &file,
        &[
            "summarize-branch",
            "1817a11b",
            "--summary-file",
            summary.to_str().unwrap(),
        ],
    );
    let Some(pi) = agree(&file) else { return };
    assert!(
        pi.messages.iter().any(|m| m["role"] == "branchSummary"),
        "Pi's context holds the summary"
    );
}

#[test]
fn clone_writes_read_alike_in_pi() {
    let (_dir, file) = session_from(&example());
    run_ok(&file, &["checkout", "1817a11b"]);
    let new = new_session(&run_ok(&file, &["clone", "@~4"]));
    let Some(pi) = agree(&new) else { return };
    assert_eq!(pi.stats["sessionId"], header(&new)["id"], "Pi opens the new session");
    for src in more_sources() {
        let (_dir, file) = session_from(&src);
        for rev in ["@", "@~2"] {
            agree(&new_session(&run_ok(&file, &["clone", rev])));
        }
    }
}

#[test]
fn fork_writes_read_alike_in_pi() {
    let (_dir, file) = session_from(&example());
    let new = new_session(&run_ok(&file, &["fork", "d679de06"]));
    let Some(pi) = agree(&new) else { return };
    assert_eq!(pi.stats["sessionId"], header(&new)["id"], "Pi opens the new session");
    for src in more_sources() {
        let (_dir, file) = session_from(&src);
        // Every user message on the branch.
        let branch = ndjson(&run_ok(&file, &["log", "--json"]));
        for entry in branch.iter().filter(|e| e["message"]["role"] == "user") {
            let id = entry["id"].as_str().unwrap();
            let r = common::run(&file, &["fork", &format!("id:{id}")]);
            if r.code == 0 {
                agree(&new_session(&r.stdout));
            } else {
                // As Pi does, fork refuses a message whose parent is missing.
                assert!(r.stderr.contains("does not exist"), "{}: {}", src.display(), r.stderr);
            }
        }
    }
}

/// Every repair fixture: once repaired, even the files Pi refused, crashed on or looped
/// on read alike in Pi. And the files Pi 1.6.0 throws on that repair drops entries of.
#[test]
fn repair_writes_read_alike_in_pi() {
    let mut files: Vec<PathBuf> = std::fs::read_dir(fixture("repair"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .collect();
    files.sort();
    files.push(fixture("outside-2/message-null.jsonl"));
    files.push(fixture("outside-2/no-message-field.jsonl"));
    for src in files {
        let (dir, file) = session_from(&src);
        let out = cmd()
            .current_dir(dir.path().join("cwd"))
            .arg("-s")
            .arg(&file)
            .arg("repair")
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}: {}",
            src.display(),
            String::from_utf8_lossy(&out.stderr)
        );
        if agree(&file).is_none() {
            return;
        }
    }
}

#[test]
fn redact_writes_read_alike_in_pi() {
    let (_dir, file) = session_from(&fixture("secrets/planted.v3.jsonl"));
    let out = cmd().args(["redact", "--no-own-keys"]).arg(&file).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let Some(pi) = agree(&file) else { return };
    assert!(
        pi.messages.iter().any(|m| m.to_string().contains("[REDACTED:")),
        "Pi sees the redacted text"
    );
}

#[test]
fn prune_writes_read_alike_in_pi() {
    // The main line after the first prompt is off @'s branch (@ is on the side branch at
    // b8731d22): it goes, with the labels on it.
    let (_dir, file) = session_from(&example());
    let context_before = run_ok(&file, &["context", "--json"]);
    run_ok(&file, &["prune", "--force", "7affd800"]);
    let Some(pi) = agree(&file) else { return };
    let ids = pi_tree(&pi).nodes.into_keys().collect::<HashSet<_>>();
    assert!(
        !ids.contains("7affd800") && !ids.contains("d2e5793f"),
        "pruned entries are gone"
    );
    assert!(ids.contains("b8731d22") && ids.contains("80fbf1f2"));
    assert_eq!(run_ok(&file, &["context", "--json"]), context_before);
}

#[test]
fn slim_writes_read_alike_in_pi() {
    // A generated session heavy with images and outputs, most of them off @'s context.
    let src_dir = tempfile::tempdir().unwrap();
    let src = src_dir.path().join("images.jsonl");
    crate::gen_session::generator::images(3 << 20, src.to_str().unwrap(), 11);
    let (_dir, file) = session_from(&src);
    let context_before = run_ok(&file, &["context", "--json"]);
    let size_before = std::fs::metadata(&file).unwrap().len();
    run_ok(&file, &["slim", "--force", "--no-backup"]);
    assert!(
        std::fs::metadata(&file).unwrap().len() < size_before,
        "slim took weight out"
    );
    let Some(pi) = agree(&file) else { return };
    assert!(!pi.messages.is_empty());
    assert_eq!(run_ok(&file, &["context", "--json"]), context_before);
}

/// `stats` counts as Pi's /session does on every corpus session, the fixtures Pi opens,
/// generated sessions, and a session whose tool calls try the counting rules (a call without an id, a type written
/// with an escape, text that names toolCall, roles Pi counts only in the total).
#[test]
fn stats_counts_agree_with_pi() {
    // Pi rewrites older formats when it opens them (the test asks that it leave the bytes).
    let mut sources: Vec<PathBuf> = common::corpus_files()
        .into_iter()
        .filter(|f| f.to_string_lossy().ends_with(".v3.jsonl"))
        .collect();
    sources.extend(more_sources());
    sources.push(fixture("duplicate-ids.jsonl"));
    let dir = tempfile::tempdir().unwrap();
    let generated = dir.path().join("tool-calls.jsonl");
    let ts = "2026-01-01T00:00:00.000Z";
    let header = serde_json::json!({"type": "session", "version": 3, "id": "g", "timestamp": ts, "cwd": "/"});
    let lines = [
        header.to_string(),
        r#"{"type":"message","id":"u","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"say toolCall","timestamp":1}}"#.into(),
        r#"{"type":"message","id":"a","parentId":"u","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"a toolCall"},{"type":"toolCall","id":"c1","name":"read","arguments":{"path":"x"}},{"type":"\u0074oolCall","id":"c2","name":"bash","arguments":{"command":"ls"}}],"provider":"p","model":"m","stopReason":"toolUse","usage":{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":3,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"timestamp":2}}"#.into(),
        r#"{"type":"message","id":"r1","parentId":"a","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"toolResult","toolCallId":"c1","toolName":"read","content":[{"type":"text","text":"x"}],"isError":false,"timestamp":3}}"#.into(),
        r#"{"type":"message","id":"r2","parentId":"r1","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"toolResult","toolCallId":"c2","toolName":"bash","content":[{"type":"text","text":"no"}],"isError":true,"timestamp":4}}"#.into(),
        r#"{"type":"message","id":"b","parentId":"u","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"bashExecution","command":"ls","output":"","exitCode":0,"cancelled":false,"truncated":false,"timestamp":5}}"#.into(),
        r#"{"type":"message","id":"a2","parentId":"b","timestamp":"2026-01-01T00:00:06.000Z","message":{"role":"assistant","content":[{"type":"toolCall","name":"read","arguments":{}}],"provider":"p","model":"m","stopReason":"stop","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"timestamp":6}}"#.into(),
    ];
    std::fs::write(&generated, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    sources.push(generated.clone());
    // Sessions of the benchmark generator: branches, compactions, every kind of tool call.
    for seed in [3, 8] {
        let path = dir.path().join(format!("realistic-{seed}.jsonl"));
        crate::gen_session::generator::realistic(2 << 20, path.to_str().unwrap(), seed);
        sources.push(path);
    }
    for src in sources {
        let (_dir, file) = session_from(&src);
        let Some(pi) = ask_pi(&file) else {
            return;
        };
        stats_agree(&file, &pi);
        if src == generated {
            // Not agreement on nothing: the id-less and the escaped call count.
            assert_eq!(pi.stats["toolCalls"], 3);
            assert_eq!(pi.stats["totalMessages"], 6);
        }
    }
}

/// Every import of the fixtures opens in Pi as pi-session reads it: the same tree, leaf,
/// messages (`get_messages` is `context --json`) and totals.
#[test]
fn imports_read_alike_in_pi() {
    for (_src, _out, imported) in common::imported_fixtures() {
        let (_dir, file) = session_from(&imported);
        if agree(&file).is_none() {
            return;
        }
    }
}
