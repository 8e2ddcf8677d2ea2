//! `pi-session tree`: the whole session tree, filtered as Pi's /tree view filters it.

use crate::common;

use common::{cmd, entry_lines, example, fixture, ndjson, run_ok};
use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};

fn rows(file: &Path, args: &[&str]) -> Vec<Value> {
    let mut a = vec!["tree", "--json"];
    a.extend_from_slice(args);
    ndjson(&run_ok(file, &a))
}

fn row_ids(rows: &[Value]) -> Vec<&str> {
    rows.iter().map(|r| r["id"].as_str().unwrap()).collect()
}

fn row<'a>(rows: &'a [Value], id: &str) -> &'a Value {
    rows.iter()
        .find(|r| r["id"] == id)
        .unwrap_or_else(|| panic!("no row {id}"))
}

/// Writes a v3 session (a header, then these entries) and returns its path.
fn write_session(dir: &Path, name: &str, entries: &[Value]) -> PathBuf {
    let path = dir.join(name);
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    let header = json!({"type":"session","version":3,"id":"0000aaaa-0000-4000-8000-000000000001",
        "timestamp":"2026-01-01T00:00:00.000Z","cwd":"/tmp/project"});
    writeln!(f, "{header}").unwrap();
    for e in entries {
        writeln!(f, "{e}").unwrap();
    }
    f.flush().unwrap();
    path
}

fn ts(i: usize) -> String {
    format!("2026-01-01T{:02}:{:02}:{:02}.000Z", i / 3600 % 24, i / 60 % 60, i % 60)
}

fn user(id: &str, parent: Option<&str>, i: usize, text: &str) -> Value {
    json!({"type":"message","id":id,"parentId":parent,"timestamp":ts(i),
        "message":{"role":"user","content":[{"type":"text","text":text}],"timestamp":1767225600000u64}})
}

fn assistant_text(id: &str, parent: Option<&str>, i: usize, text: &str) -> Value {
    json!({"type":"message","id":id,"parentId":parent,"timestamp":ts(i),
        "message":{"role":"assistant","content":[{"type":"text","text":text}],"provider":"anthropic",
            "model":"claude-sonnet-4-5","stopReason":"stop","timestamp":1767225600000u64}})
}

fn assistant_tool_only(id: &str, parent: Option<&str>, i: usize) -> Value {
    json!({"type":"message","id":id,"parentId":parent,"timestamp":ts(i),
        "message":{"role":"assistant","content":[{"type":"toolCall","id":"call_1","name":"bash",
            "arguments":{"command":"ls"}}],"provider":"anthropic","model":"claude-sonnet-4-5",
            "stopReason":"toolUse","timestamp":1767225600000u64}})
}

fn tool_result(id: &str, parent: Option<&str>, i: usize) -> Value {
    json!({"type":"message","id":id,"parentId":parent,"timestamp":ts(i),
        "message":{"role":"toolResult","toolCallId":"call_1","toolName":"bash",
            "content":[{"type":"text","text":"Cargo.toml src"}],"isError":false,"timestamp":1767225600000u64}})
}

/// Entries the default view hides on examples/session.jsonl: labels, custom entries, model
/// and thinking level changes, usage, session info, context edits.
const HIDDEN_IN_EXAMPLE: [&str; 10] = [
    "cb75110e", // model_change
    "9e4e00c3", // thinking_level_change
    "305e383a", // label
    "a1f78308", // label
    "d426da40", // custom
    "99486342", // usage
    "df41f248", // session_info
    "87e5e905", // context_edit
    "a0f6e3c1", // label
    "6fe7bd1a", // label
];

#[test]
fn default_view_hides_bookkeeping_entries() {
    let rows = rows(&example(), &[]);
    let ids = row_ids(&rows);
    assert_eq!(rows.len(), 53 - HIDDEN_IN_EXAMPLE.len());
    for h in HIDDEN_IN_EXAMPLE {
        assert!(!ids.contains(&h), "{h} should be hidden");
    }
    // custom_message, branch_summary and compaction entries stay.
    for shown in ["30b6b253", "b7b227e2", "5f7822f3"] {
        assert!(ids.contains(&shown), "{shown} should be shown");
    }
    // Children of hidden entries attach to the nearest shown ancestor: the first user
    // message (below a model_change and a thinking_level_change) is the root, and @ hangs
    // under it (its parent is a label).
    assert_eq!(rows[0]["id"], "80fbf1f2");
    assert_eq!(rows[0]["depth"], 0);
    assert_eq!(rows[0]["parentId"], "9e4e00c3");
    assert_eq!(rows.iter().filter(|r| r["depth"] == 0).count(), 1);
    let at = row(&rows, "b8731d22");
    assert_eq!(at["depth"], 1);
    assert_eq!(at["parentId"], "6fe7bd1a");
    assert_eq!(rows[0]["children"], 2);
}

#[test]
fn default_view_hides_assistant_messages_with_only_tool_calls() {
    let file = fixture("compaction-context-edit.jsonl");
    let default = rows(&file, &[]);
    let ids = row_ids(&default);
    assert!(!ids.contains(&"ce000004"), "tool-call-only assistant is hidden");
    // Its tool result attaches to the user message above it.
    let user_depth = row(&default, "ce000003")["depth"].as_u64().unwrap();
    assert_eq!(row(&default, "ce000005")["depth"].as_u64().unwrap(), user_depth + 1);
    // Assistant messages with text stay.
    assert!(ids.contains(&"ce000006") && ids.contains(&"ce00000c"));
    let all = rows(&file, &["--all"]);
    assert!(row_ids(&all).contains(&"ce000004"));
    assert_eq!(all.len(), 27);
}

#[test]
fn tool_call_only_assistant_is_shown_when_it_is_the_leaf() {
    let dir = tempfile::tempdir().unwrap();
    let middle = write_session(
        dir.path(),
        "middle.jsonl",
        &[
            user("a0000001", None, 1, "list files"),
            assistant_tool_only("a0000002", Some("a0000001"), 2),
            tool_result("a0000003", Some("a0000002"), 3),
            assistant_text("a0000004", Some("a0000003"), 4, "Two entries."),
        ],
    );
    assert_eq!(row_ids(&rows(&middle, &[])), ["a0000001", "a0000003", "a0000004"]);

    let leaf = write_session(
        dir.path(),
        "leaf.jsonl",
        &[
            user("a0000001", None, 1, "list files"),
            assistant_tool_only("a0000002", Some("a0000001"), 2),
        ],
    );
    let r = rows(&leaf, &[]);
    assert_eq!(row_ids(&r), ["a0000001", "a0000002"]);
    assert_eq!(r[1]["current"], true);
    let human = run_ok(&leaf, &["tree"]);
    assert!(human.lines().nth(1).unwrap().contains("a0000002"), "{human}");
    assert!(human.lines().nth(1).unwrap().ends_with("← @"), "{human}");
}

#[test]
fn all_shows_every_entry() {
    let file = example();
    let rows = rows(&file, &["--all"]);
    assert_eq!(rows.len(), entry_lines(&file).len());
    assert_eq!(rows.len(), 53);
    let mut ids: Vec<&str> = row_ids(&rows);
    ids.sort_unstable();
    ids.dedup();
    assert_eq!(ids.len(), 53);
    for h in HIDDEN_IN_EXAMPLE {
        assert!(ids.contains(&h));
    }
    // Hidden-by-default entries are in their place: the model_change is the root.
    assert_eq!(rows[0]["id"], "cb75110e");
    assert_eq!(rows[0]["type"], "model_change");
    assert_eq!(rows[0]["role"], Value::Null);
    assert_eq!(rows[1]["id"], "9e4e00c3");
    assert_eq!(rows[1]["depth"], 1);
    let human = run_ok(&file, &["tree", "--all"]);
    assert_eq!(human.lines().count(), 53);
}

#[test]
fn user_shows_only_user_messages() {
    let rows = rows(&example(), &["--user"]);
    assert_eq!(
        row_ids(&rows),
        [
            "80fbf1f2", "1ecdd056", "d679de06", "13f28f54", "d7715366", "4e498369", "f7b6d701", "335c3bd6", "757247ca",
            "b40ffcae"
        ]
    );
    assert!(rows.iter().all(|r| r["role"] == "user" && r["type"] == "message"));
    assert_eq!(rows[0]["depth"], 0);
    assert_eq!(rows[0]["children"], 2);
    assert_eq!(rows[1]["depth"], 1);
    assert_eq!(rows[2]["depth"], 1);
    // @ is an assistant message, so no row is current.
    assert!(rows.iter().all(|r| r["current"] == false));
    let human = run_ok(&example(), &["tree", "--user"]);
    assert_eq!(human.lines().count(), 10);
    assert!(human.lines().all(|l| l.contains(" user ")), "{human}");
}

#[test]
fn all_and_user_conflict() {
    let out = cmd()
        .arg("-s")
        .arg(example())
        .args(["tree", "--all", "--user"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
}

#[test]
fn json_rows_have_the_documented_fields() {
    let file = example();
    let rows = rows(&file, &[]);
    for r in &rows {
        let keys: Vec<&str> = r.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "id",
                "parentId",
                "depth",
                "type",
                "role",
                "label",
                "timestamp",
                "current",
                "children"
            ]
        );
        assert!(r["depth"].is_u64() && r["children"].is_u64() && r["current"].is_boolean());
    }
    let current: Vec<&Value> = rows.iter().filter(|r| r["current"] == true).collect();
    assert_eq!(current.len(), 1);
    let at = run_ok(&file, &["rev-parse", "@"]);
    assert_eq!(current[0]["id"].as_str().unwrap(), at.trim());

    let green = row(&rows, "d2e5793f");
    assert_eq!(green["label"], "green");
    assert_eq!(green["type"], "message");
    assert_eq!(green["role"], "assistant");
    assert_eq!(green["parentId"], "f2707ba7");
    assert_eq!(green["timestamp"], "2026-11-02T10:00:32.000Z");
    assert_eq!(row(&rows, "30af4c7e")["label"], Value::Null, "label cleared later");
    assert_eq!(row(&rows, "80fbf1f2")["label"], "start");
    // `children` counts visible child rows.
    for (k, r) in rows.iter().enumerate() {
        let depth = r["depth"].as_u64().unwrap();
        let kids = rows[k + 1..]
            .iter()
            .take_while(|c| c["depth"].as_u64().unwrap() > depth)
            .filter(|c| c["depth"].as_u64().unwrap() == depth + 1)
            .count();
        assert_eq!(r["children"].as_u64().unwrap() as usize, kids, "{r}");
    }
}

#[test]
fn json_current_row_matches_rev_parse_on_fixtures() {
    for name in [
        "labels.jsonl",
        "several-roots.jsonl",
        "orphan.jsonl",
        "crlf.jsonl",
        "v2.jsonl",
    ] {
        let file = fixture(name);
        let rows = rows(&file, &["--all"]);
        let current: Vec<&str> = rows
            .iter()
            .filter(|r| r["current"] == true)
            .map(|r| r["id"].as_str().unwrap())
            .collect();
        let at = run_ok(&file, &["rev-parse", "@"]);
        assert_eq!(current, [at.trim()], "{name}");
    }
}

#[test]
fn labels_fixture_rows_carry_current_labels_only() {
    let file = fixture("labels.jsonl");
    let rows = rows(&file, &["--all"]);
    assert_eq!(rows.len(), 13);
    let labelled: Vec<(&str, &str)> = rows
        .iter()
        .filter(|r| !r["label"].is_null())
        .map(|r| (r["id"].as_str().unwrap(), r["label"].as_str().unwrap()))
        .collect();
    assert_eq!(labelled, [("1a2b3c04", "root-cause"), ("1a2b3c06", "done")]);
    assert_eq!(row(&rows, "1a2b3c06")["current"], true);
    // The default view hides the label entries.
    assert_eq!(
        row_ids(&self::rows(&file, &[])),
        ["1a2b3c01", "1a2b3c02", "1a2b3c03", "1a2b3c04", "1a2b3c05", "1a2b3c06"]
    );
}

#[test]
fn several_roots_are_at_depth_zero() {
    let rows = rows(&fixture("several-roots.jsonl"), &[]);
    assert_eq!(rows.len(), 8);
    let roots: Vec<&str> = rows
        .iter()
        .filter(|r| r["depth"] == 0)
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    // The root whose branch holds the leaf first, as Pi's /tree draws them.
    assert_eq!(roots, ["7e570004", "7e570001"]);
    // Children sorted by timestamp: 7e570006 was written later but is stamped earlier.
    assert_eq!(
        row_ids(&rows),
        [
            "7e570004", "7e570005", "7e570007", "7e570008", "7e570001", "7e570006", "7e570002", "7e570003"
        ]
    );
    let depths: Vec<u64> = rows.iter().map(|r| r["depth"].as_u64().unwrap()).collect();
    assert_eq!(depths, [0, 1, 2, 3, 0, 1, 1, 2]);
    let human = run_ok(&fixture("several-roots.jsonl"), &["tree"]);
    let firsts: Vec<&str> = human
        .lines()
        .filter(|l| !l.starts_with(' ') && !l.starts_with(['├', '└', '│']))
        .collect();
    assert_eq!(firsts.len(), 2, "{human}");
    assert!(
        firsts[0].starts_with("7e570004") && firsts[1].starts_with("7e570001"),
        "{human}"
    );
}

#[test]
fn orphan_is_a_root_that_keeps_its_parent_id() {
    let rows = rows(&fixture("orphan.jsonl"), &[]);
    assert_eq!(rows.len(), 8);
    let orphan = row(&rows, "0f0f0a01");
    assert_eq!(orphan["depth"], 0);
    assert_eq!(orphan["parentId"], "5ca1ab1e");
    let roots: Vec<&str> = rows
        .iter()
        .filter(|r| r["depth"] == 0)
        .map(|r| r["id"].as_str().unwrap())
        .collect();
    // The orphan's branch holds the leaf: Pi's /tree draws it first.
    assert_eq!(roots, ["0f0f0a01", "1a2b3c01"]);
    assert_eq!(row(&rows, "0f0f0a04")["depth"], 3);
    assert_eq!(row(&rows, "0f0f0a04")["current"], true);
}

#[test]
fn human_output_marks_at_labels_and_branches() {
    let file = example();
    let out = run_ok(&file, &["tree"]);
    let json_ids: Vec<String> = rows(&file, &[])
        .iter()
        .map(|r| r["id"].as_str().unwrap().to_owned())
        .collect();
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), json_ids.len());
    // Each line shows its row's id, in the same order as --json.
    for (l, id) in lines.iter().zip(&json_ids) {
        assert!(l.contains(id.as_str()), "{l} should show {id}");
    }
    let at_lines: Vec<&&str> = lines.iter().filter(|l| l.contains("← @")).collect();
    assert_eq!(at_lines.len(), 1, "{out}");
    assert!(
        at_lines[0].contains("b8731d22") && at_lines[0].ends_with("← @"),
        "{out}"
    );
    let start = lines.iter().find(|l| l.contains("80fbf1f2")).unwrap();
    assert!(start.contains("[start]"), "{start}");
    let green = lines.iter().find(|l| l.contains("d2e5793f")).unwrap();
    assert!(green.contains("[green]"), "{green}");
    // Branch points use box-drawing connectors.
    // @'s branch first among siblings, as Pi draws them.
    assert!(lines.iter().any(|l| l.starts_with("├─ b8731d22")), "{out}");
    assert!(lines.iter().any(|l| l.starts_with("└─ 7affd800")), "{out}");
    assert!(lines.iter().any(|l| l.contains("├─ 1ecdd056")), "{out}");
    assert!(lines.iter().any(|l| l.contains("└─ b7b227e2")), "{out}");
    // Entries on @'s branch are marked with a bullet.
    assert!(start.contains("80fbf1f2 •"), "{start}");
    assert!(!green.contains('•'), "{green}");
}

#[test]
fn long_linear_chain_stays_in_one_column() {
    const N: usize = 10_000;
    let dir = tempfile::tempdir().unwrap();
    let mut entries = Vec::with_capacity(N);
    let mut prev: Option<String> = None;
    for i in 0..N {
        let id = format!("{i:08x}");
        let e = if i % 2 == 0 {
            user(&id, prev.as_deref(), i, &format!("question {i}"))
        } else {
            assistant_text(&id, prev.as_deref(), i, &format!("answer {i}"))
        };
        entries.push(e);
        prev = Some(id);
    }
    let file = write_session(dir.path(), "chain.jsonl", &entries);
    let start = std::time::Instant::now();
    let out = run_ok(&file, &["tree"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), N);
    for (i, l) in lines.iter().enumerate() {
        assert!(l.starts_with(&format!("{i:08x} ")), "row {i} is indented: {l:?}");
    }
    assert!(lines[N - 1].ends_with("← @"));
    let json = rows(&file, &[]);
    assert_eq!(json.len(), N);
    for (i, r) in json.iter().enumerate() {
        assert_eq!(r["depth"].as_u64().unwrap() as usize, i);
    }
    assert!(
        start.elapsed().as_secs() < 20,
        "tree on {N} entries took {:?}",
        start.elapsed()
    );
}

/// Off a terminal, a preview is cut to 200 columns, as `log` cuts it: a long first line does
/// not come out whole.
#[test]
fn piped_previews_are_cut_as_logs_are() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("s.jsonl");
    let long = "word ".repeat(400);
    let lines = [
        serde_json::json!({"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}),
        serde_json::json!({"type":"message","id":"a1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":long}}),
    ];
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&path, text).unwrap();
    let tree = run_ok(&path, &["tree"]);
    let log = run_ok(&path, &["log"]);
    let row = tree.lines().next().unwrap();
    assert!(row.contains("…"), "{row}");
    let words = |s: &str| s.matches("word").count();
    assert!(words(row) < 45 && words(row) > 30, "{row}");
    assert_eq!(words(row), words(log.lines().next().unwrap()));
}

/// `-n N` and git's `-N` cut the tree after N rows, laid out as in the whole tree.
#[test]
fn max_count_cuts_the_rows() {
    let f = common::example();
    let whole = common::run_ok(&f, &["tree", "--all"]);
    let first: Vec<&str> = whole.lines().take(4).collect();
    assert_eq!(
        common::run_ok(&f, &["tree", "--all", "-n", "4"]),
        format!("{}\n", first.join("\n"))
    );
    assert_eq!(
        common::run_ok(&f, &["tree", "--all", "-4"]),
        format!("{}\n", first.join("\n"))
    );
    assert_eq!(
        common::ndjson(&common::run_ok(&f, &["tree", "-n", "2", "--json"])).len(),
        2
    );
    // And for log, as `git log -3`.
    assert_eq!(
        common::run_ok(&f, &["log", "-3"]),
        common::run_ok(&f, &["log", "-n", "3"])
    );
}

#[test]
fn depth_counts_forks() {
    let file = example();
    let human = |args: &[&str]| {
        let mut a = vec!["tree"];
        a.extend_from_slice(args);
        run_ok(&file, &a)
    };
    // The trunk: the first user message, which forks; everything under it is cut.
    assert_eq!(
        human(&["--depth", "0"]),
        "80fbf1f2 • [start] user Read src/parser.rs and explain the tokenizer. (+42 rows)\n"
    );
    assert_eq!(
        human(&["--depth", "1"]),
        "80fbf1f2 • [start] user Read src/parser.rs and explain the tokenizer.\n\
         ├─ b8731d22 • assistant (alternative answer on a side branch) ← @\n\
         └─ 7affd800   assistant Reading it. → read(path=src/parser.rs)\n\
         \x20     f49bcd6b   toolResult read: line 0: fn parse_0() -> Result<(), Error> { /* ünïcödé 中文 \"q\" \\ */ }\n\
         \x20     30af4c7e   assistant The tokenizer splits on whitespace and tracks spans. (+38 rows)\n"
    );
    // Deep enough: the whole tree, byte for byte.
    assert_eq!(human(&["--depth", "2"]), human(&[]));
    // -n cuts the rows --depth leaves.
    assert_eq!(human(&["--depth", "1", "-n", "2"]).lines().count(), 2);

    // --json: the same rows; `children` still counts the rows cut off.
    let all = rows(&file, &[]);
    let cut = rows(&file, &["--depth", "1"]);
    assert_eq!(
        row_ids(&cut),
        ["80fbf1f2", "b8731d22", "7affd800", "f49bcd6b", "30af4c7e"]
    );
    for r in &cut {
        assert_eq!(r, row(&all, r["id"].as_str().unwrap()));
    }
    assert_eq!(row(&cut, "30af4c7e")["children"], 2);
    assert_eq!(row_ids(&rows(&file, &["--depth", "0"])), ["80fbf1f2"]);
    // Forks are counted in the view shown: --all has bookkeeping rows above the first fork.
    let cut_all = rows(&file, &["--all", "--depth", "0"]);
    assert_eq!(row_ids(&cut_all), ["cb75110e", "9e4e00c3", "80fbf1f2"]);
}

/// Pi's `/tree` lists the sibling whose branch holds the leaf first, in every view (the
/// outside testers' `tree-display-order.jsonl`: the newer answer is the leaf).
#[test]
fn the_branch_holding_the_leaf_comes_first_among_siblings() {
    let file = fixture("outside-2/tree-display-order.jsonl");
    for args in [&["--all"][..], &[], &["--depth", "3"]] {
        assert_eq!(
            row_ids(&rows(&file, args)),
            ["r0000001", "b0000001", "a0000001"],
            "{args:?}"
        );
    }
    let human = run_ok(&file, &["tree"]);
    let first = human.find("second answer").unwrap();
    assert!(first < human.find("first answer").unwrap(), "{human}");
}

/// Duplicated lines repeat a subtree once per copy, as Pi's `getTree` places it: no parent
/// cycle is reported and every row is there.
#[test]
fn duplicated_lines_show_every_copy_without_a_cycle_warning() {
    let file = fixture("outside-2/dup-lines-false-cycle.jsonl");
    let r = common::run(&file, &["tree", "--all", "--json"]);
    assert_eq!(r.code, 0);
    assert_eq!(r.stdout.lines().count(), 74);
    assert!(r.stderr.is_empty(), "{}", r.stderr);
}

/// When every entry sits on a parent cycle no root leads anywhere: Pi shows nothing, and
/// `tree` says why instead of printing nothing.
#[test]
fn entries_no_root_reaches_are_reported() {
    let file = fixture("outside-2/all-entries-on-a-cycle.jsonl");
    let r = common::run(&file, &["tree"]);
    assert_eq!(r.code, 0);
    assert_eq!(r.stdout, "");
    assert!(
        r.stderr.contains("warning: 2 entries are on a parent cycle"),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("repair"), "{}", r.stderr);
}

/// An entry timestamp written as a number is a time to Pi (`new Date(1796634000500)`): it
/// orders siblings, and `--json` gives it as written.
#[test]
fn numeric_entry_timestamps_order_siblings_as_pi_does() {
    let dir = tempfile::tempdir().unwrap();
    let msg = |id: &str, parent: Value, ts: Value| {
        json!({"type":"message","id":id,"parentId":parent,"timestamp":ts,
            "message":{"role":"user","content":id,"timestamp":1}})
    };
    let file = write_session(
        dir.path(),
        "s.jsonl",
        &[
            msg("r0000001", Value::Null, json!("2026-12-07T09:00:00.000Z")),
            msg("n0000001", json!("r0000001"), json!(1796634000500u64)),
            msg("s0000001", json!("r0000001"), json!("2026-12-07T09:00:00.100Z")),
            // The leaf, on a root of its own: no sibling list holds it.
            msg("z0000001", Value::Null, json!("2026-12-07T09:00:01.000Z")),
        ],
    );
    let all = rows(&file, &["--all"]);
    assert_eq!(row_ids(&all), ["z0000001", "r0000001", "s0000001", "n0000001"]);
    assert_eq!(row(&all, "n0000001")["timestamp"], json!(1796634000500u64));
    // The reproducer, whose leaf sits below the numeric one.
    let file = fixture("outside-2/numeric-entry-timestamp.jsonl");
    assert_eq!(
        row(&rows(&file, &["--all"]), "c0000001")["timestamp"],
        json!(1796634000600u64)
    );
}

/// A label whose value is not a string but truthy (`"label":true`) is a label to Pi, shown
/// as `String(label)`; `--json` gives it as that string.
#[test]
fn a_truthy_label_that_is_not_a_string_is_shown() {
    let file = fixture("outside-2/label-non-string.jsonl");
    assert!(run_ok(&file, &["tree"]).contains("[true] user hello"));
    assert_eq!(row(&rows(&file, &[]), "u0000001")["label"], "true");
    assert!(run_ok(&file, &["label", "--list"]).starts_with("true "));
}
