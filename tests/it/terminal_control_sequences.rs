//! No command lets a session drive the terminal: a session full of escape sequences (CSI, OSC,
//! OSC 8 links ended by ST), bells, backspaces, carriage returns, NULs, DEL, C1 controls and
//! bidirectional overrides, isolates and marks, in every field a human output shows, goes through the
//! human output of every command, and nothing raw reaches stdout or stderr.
//!
//! Commands added later (`ls`, `stats`, `grep`, `export`) are checked when `pi-session --help`
//! lists them.

use crate::common;

use common::cmd;
use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// One of everything: CSI (color, clear screen), OSC title ended by BEL, an OSC 8 hyperlink
/// ended by ST, BEL, BS, CR, NUL, SOH, VT, FF, DEL, C1 NEL, DCS, CSI and OSC, bidi embeddings,
/// overrides, isolates and marks.
const N: &str = "A\u{1b}[31mB\u{1b}[2JC\u{1b}]0;title\u{7}D\u{1b}]8;;http://evil.example/\u{1b}\\link\u{1b}]8;;\u{1b}\\E\u{7}F\u{8}G\rH\u{0}I\u{1}\u{b}\u{c}J\u{7f}K\u{85}L\u{90}M\u{9b}2JN\u{9d}0;t\u{9c}O\u{202a}P\u{202b}Q\u{202c}R\u{202d}S\u{202e}T\u{2066}U\u{2067}V\u{2068}W\u{2069}X\u{200e}Y\u{200f}Z\u{61c}z";

/// The same across lines, with tabs, as message text is.
const NB: &str = "first\u{1b}[1m line\u{7}\n\tsecond\r line\u{8}\u{7f}\n\u{202e}third\u{9b}31m \u{1b}]0;x\u{7}\nfourth\u{0}\u{2066}end\u{200f}\u{61c}";

/// `N` without its NUL, for the command line.
fn na() -> String {
    N.replace('\u{0}', "")
}

// Entry ids (no NUL: ids are passed on the command line).
const ID_USER: &str = "u\u{1b}[1m\u{9b}\u{202e}1";
const ID_ASSISTANT: &str = "a\u{7}\u{8}\u{7f}\u{2066}2";
const ID_TOOL: &str = "t\u{85}\r\u{1b}]0;x\u{7}3";
const ID_SIDE: &str = "s\u{1b}[2J\u{202d}4";

fn ts(s: u32) -> String {
    format!("2026-03-01T10:00:{s:02}.000Z")
}

fn usage() -> Value {
    json!({"input": 100, "output": 20, "cacheRead": 5, "cacheWrite": 1, "totalTokens": 126,
        "cost": {"input": 0.001, "output": 0.002, "cacheRead": 0.0, "cacheWrite": 0.0, "total": 0.003}})
}

fn text(t: &str) -> Value {
    json!({"type": "text", "text": t})
}

fn entries() -> Vec<Value> {
    let long = format!("{NB}\n{}", "padding words for the token estimate ".repeat(40));
    vec![
        json!({"type":"model_change","id":"m0000001","parentId":null,"timestamp":ts(1),"provider":N,"modelId":N}),
        json!({"type":"thinking_level_change","id":"m0000002","parentId":"m0000001","timestamp":ts(2),
            "thinkingLevel":N}),
        json!({"type":"session_info","id":"n0000003","parentId":"m0000002","timestamp":ts(3),"name":N}),
        json!({"type":"message","id":ID_USER,"parentId":"n0000003","timestamp":ts(4),
            "message":{"role":"user","content":[text(&long), text(N),
                {"type":"image","data":"AAAA","mimeType":N}],"timestamp":1772359204000u64}}),
        json!({"type":"message","id":ID_ASSISTANT,"parentId":ID_USER,"timestamp":ts(5),
            "message":{"role":"assistant","content":[
                {"type":"thinking","thinking":NB},
                text(&long),
                {"type":"toolCall","id":N,"name":"read","arguments":{"path":format!("/src/{N}.rs")}},
                {"type":"toolCall","id":"call2","name":"edit","arguments":{"path":format!("/src/{N}.md"),
                    "oldText":NB,"newText":N}},
                {"type":"toolCall","id":"call3","name":N,"arguments":{"command":N,N:NB}}],
                "provider":N,"model":N,"api":N,"stopReason":"toolUse","errorMessage":N,"usage":usage(),
                "timestamp":1772359205000u64}}),
        json!({"type":"message","id":ID_TOOL,"parentId":ID_ASSISTANT,"timestamp":ts(6),
            "message":{"role":"toolResult","toolCallId":N,"toolName":"read","content":[text(&long)],
                "isError":false,"timestamp":1772359206000u64}}),
        json!({"type":"message","id":"r0000007","parentId":ID_TOOL,"timestamp":ts(7),
            "message":{"role":"toolResult","toolCallId":"call3","toolName":N,"content":[text(NB)],
                "details":{"diff":N},"isError":true,"timestamp":1772359207000u64}}),
        json!({"type":"message","id":"b0000008","parentId":"r0000007","timestamp":ts(8),
            "message":{"role":"bashExecution","command":N,"output":long,"exitCode":1,"cancelled":false,
                "truncated":false,"timestamp":1772359208000u64}}),
        json!({"type":"custom","id":"c0000009","parentId":"b0000008","timestamp":ts(9),
            "customType":N,"data":{"note":N}}),
        json!({"type":"custom_message","id":"c000000a","parentId":"c0000009","timestamp":ts(10),
            "customType":N,"content":NB,"display":true,"details":{"x":N}}),
        json!({"type":"message","id":"u000000b","parentId":"c000000a","timestamp":ts(11),
            "message":{"role":"user","content":N,"timestamp":1772359211000u64}}),
        json!({"type":"message","id":"a000000c","parentId":"u000000b","timestamp":ts(12),
            "message":{"role":"assistant","content":[text(&long)],"provider":N,"model":N,
                "stopReason":"stop","usage":usage(),"timestamp":1772359212000u64}}),
        // A side branch from the first user message, with a branch summary.
        json!({"type":"branch_summary","id":ID_SIDE,"parentId":ID_USER,"timestamp":ts(13),
            "fromId":N,"summary":NB,"details":{"readFiles":[N],"modifiedFiles":[N]}}),
        json!({"type":"message","id":"u000000e","parentId":ID_SIDE,"timestamp":ts(14),
            "message":{"role":"user","content":format!("side {N}"),"timestamp":1772359214000u64}}),
        json!({"type":"message","id":"a000000f","parentId":"u000000e","timestamp":ts(15),
            "message":{"role":"assistant","content":[text(NB)],"provider":"p","model":"m",
                "stopReason":"stop","timestamp":1772359215000u64}}),
        // Back on the main branch: a compaction, then more conversation.
        json!({"type":"compaction","id":"k0000010","parentId":"a000000c","timestamp":ts(16),
            "summary":NB,"firstKeptEntryId":"u000000b","tokensBefore":4321,
            "details":{"readFiles":[N],"modifiedFiles":[N]},"usage":usage()}),
        json!({"type":"message","id":"u0000011","parentId":"k0000010","timestamp":ts(17),
            "message":{"role":"user","content":[text(&long)],"timestamp":1772359217000u64}}),
        json!({"type":"message","id":"a0000012","parentId":"u0000011","timestamp":ts(18),
            "message":{"role":"assistant","content":[text(&long),
                {"type":"toolCall","id":"call4","name":"write","arguments":{"path":format!("/w/{N}"),"content":NB}}],
                "provider":N,"model":N,"stopReason":"toolUse","usage":usage(),"timestamp":1772359218000u64}}),
        json!({"type":"message","id":"r0000013","parentId":"a0000012","timestamp":ts(19),
            "message":{"role":"toolResult","toolCallId":"call4","toolName":"write","content":[text(N)],
                "isError":false,"timestamp":1772359219000u64}}),
        json!({"type":"message","id":"a0000014","parentId":"r0000013","timestamp":ts(20),
            "message":{"role":"assistant","content":[text(N)],"provider":N,"model":N,
                "stopReason":"stop","usage":usage(),"timestamp":1772359220000u64}}),
        json!({"type":"message","id":"y0000015","parentId":"a0000014","timestamp":ts(21),
            "message":{"role":"system","content":NB,"sections":{N:N,"gone":null},
                "toolsAdded":[{"name":N}],"toolsRemoved":[{"name":N}],"timestamp":1772359221000u64}}),
        json!({"type":"context_edit","id":"e0000016","parentId":"y0000015","timestamp":ts(22),
            "targetId":ID_ASSISTANT,"replacement":{"content":N}}),
        json!({"type":"usage","id":"x0000017","parentId":"e0000016","timestamp":ts(23),
            "kind":N,"provider":N,"model":N,"usage":usage()}),
        json!({"type":"message","id":"z0000018","parentId":"x0000017","timestamp":N,
            "message":{"role":N,"content":N,"timestamp":1772359224000u64}}),
        json!({"type":N,"id":"q0000019","parentId":"z0000018","timestamp":ts(25),"payload":N}),
        json!({"type":"message","id":"o000001a","parentId":N,"timestamp":ts(26),
            "message":{"role":"user","content":format!("orphan {N}"),"timestamp":1772359226000u64}}),
        json!({"type":"message","id":"a000001b","parentId":"q0000019","timestamp":ts(27),
            "message":{"role":"assistant","content":[text(N)],"provider":N,"model":N,
                "stopReason":"stop","usage":usage(),"timestamp":1772359227000u64}}),
        // Labels, appended after the leaf as Pi appends them.
        json!({"type":"label","id":"l000001c","parentId":"a000001b","timestamp":ts(28),
            "targetId":ID_USER,"label":na()}),
        json!({"type":"label","id":"l000001d","parentId":"l000001c","timestamp":ts(29),
            "targetId":"a000000f","label":"side"}),
        json!({"type":"label","id":"l000001e","parentId":"l000001d","timestamp":ts(30),
            "targetId":"u0000011","label":"plain"}),
        json!({"type":"label","id":"l000001f","parentId":"l000001e","timestamp":ts(31),
            "targetId":ID_TOOL,"label":"tool\u{202e}\u{1b}[0m"}),
    ]
}

fn ids() -> Vec<String> {
    entries().iter().map(|e| e["id"].as_str().unwrap().to_owned()).collect()
}

fn header() -> Value {
    json!({"type":"session","version":3,"id":format!("sess{N}"),"timestamp":"2026-03-01T10:00:00.000Z",
        "cwd":format!("/tmp/{N}")})
}

/// The session, in a folder whose name holds escape sequences too (paths get printed).
fn write_session(root: &Path) -> PathBuf {
    let dir = root.join("sessions\u{1b}[31m\u{202e}\u{7}");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("2026-03-01T10-00-00-000Z_evil\u{9b}2J.jsonl");
    let mut f = std::fs::File::create(&path).unwrap();
    writeln!(f, "{}", header()).unwrap();
    for e in entries() {
        writeln!(f, "{e}").unwrap();
    }
    // A line Pi skips, naming escape sequences; and a torn last line.
    writeln!(f, "{{\"type\":\"message\",\"id\":\"\u{1b}[5m").unwrap();
    write!(f, "{{\"torn\":\"\u{1b}]0;t\u{7}").unwrap();
    // The same conversation as a session of `root`, for the commands that find sessions of
    // the current directory (`ls`, `grep --all-sessions`).
    let mut here = header();
    here["cwd"] = json!(root.canonicalize().unwrap().to_str().unwrap());
    let mut f = std::fs::File::create(dir.join("2026-03-01T11-00-00-000Z_here\u{1b}[1m.jsonl")).unwrap();
    writeln!(f, "{here}").unwrap();
    for e in entries() {
        writeln!(f, "{e}").unwrap();
    }
    path
}

/// What a terminal would act on: C0 controls but newline and tab, DEL, C1 controls,
/// bidirectional embeddings, overrides, isolates and marks. `None` when `bytes` is clean UTF-8.
fn first_unsafe(bytes: &[u8]) -> Option<String> {
    let text = match std::str::from_utf8(bytes) {
        Ok(t) => t,
        Err(e) => return Some(format!("invalid UTF-8 at byte {}", e.valid_up_to())),
    };
    for (i, c) in text.char_indices() {
        let u = c as u32;
        let bad = (u < 0x20 && c != '\n' && c != '\t')
            || u == 0x7f
            || (0x80..=0x9f).contains(&u)
            || (0x202a..=0x202e).contains(&u)
            || (0x2066..=0x2069).contains(&u)
            || matches!(u, 0x200e | 0x200f | 0x61c);
        if bad {
            let from = text[..i].char_indices().rev().nth(50).map_or(0, |(k, _)| k);
            return Some(format!("raw U+{u:04X} at byte {i}, after {:?}", &text[from..i]));
        }
    }
    None
}

fn assert_safe(what: &str, bytes: &[u8]) {
    if let Some(problem) = first_unsafe(bytes) {
        panic!("{what}: {problem}");
    }
}

/// The environment every run gets: no Pi settings of the developer's, sessions in `root`.
fn command(root: &Path, session_dir: &Path) -> assert_cmd::Command {
    let mut c = cmd();
    c.env("PI_CODING_AGENT_DIR", root.join("agent"))
        .env("PI_CODING_AGENT_SESSION_DIR", session_dir)
        .env("HOME", root)
        .env("COLUMNS", "100")
        .env_remove("PI_SESSION_PAGER")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .current_dir(root);
    c
}

struct Run {
    code: i32,
    stdout: Vec<u8>,
}

/// Runs `pi-session -s FILE ARGS…`, checks both streams, returns the exit code and stdout.
fn check(root: &Path, file: &Path, args: &[&str]) -> Run {
    let out = command(root, file.parent().unwrap())
        .arg("-s")
        .arg(file)
        .args(args)
        .output()
        .unwrap();
    assert_safe(&format!("stdout of {args:?}"), &out.stdout);
    assert_safe(&format!("stderr of {args:?}"), &out.stderr);
    let code = out.status.code().expect("exit code");
    assert!(
        code != 101,
        "{args:?} panicked: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Run {
        code,
        stdout: out.stdout,
    }
}

/// Runs `pi-session ARGS…` in `root` (without -s), checks both streams, returns the exit code.
fn check_here(root: &Path, file: &Path, args: &[&str]) -> i32 {
    let out = command(root, file.parent().unwrap()).args(args).output().unwrap();
    assert_safe(&format!("stdout of {args:?}"), &out.stdout);
    assert_safe(&format!("stderr of {args:?}"), &out.stderr);
    assert!(!out.stdout.is_empty(), "{args:?} printed nothing");
    out.status.code().expect("exit code")
}

fn check_ok(root: &Path, file: &Path, args: &[&str]) -> String {
    let run = check(root, file, args);
    assert_eq!(run.code, 0, "{args:?} failed");
    String::from_utf8(run.stdout).unwrap()
}

/// Removes the SGR sequences pi-session's own coloring writes (`ESC [ digits ; m`).
fn strip_sgr(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("\u{1b}[") {
        out.push_str(&rest[..i]);
        let after = &rest[i + 2..];
        let n = after
            .find(|c: char| !(c.is_ascii_digit() || c == ';'))
            .unwrap_or(after.len());
        if after[n..].starts_with('m') {
            rest = &after[n + 1..];
        } else {
            out.push_str("\u{1b}[");
            rest = after;
        }
    }
    out.push_str(rest);
    out
}

fn commands_listed() -> &'static Vec<String> {
    static LISTED: OnceLock<Vec<String>> = OnceLock::new();
    LISTED.get_or_init(|| {
        let out = cmd().arg("--help").output().unwrap();
        String::from_utf8(out.stdout)
            .unwrap()
            .lines()
            .filter_map(|l| l.strip_prefix("  "))
            .filter(|l| !l.starts_with(' ') && !l.starts_with('-'))
            .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
            .collect()
    })
}

fn has_command(name: &str) -> bool {
    let found = commands_listed().iter().any(|c| c == name);
    if !found {
        crate::common::skip(&format!("`{name}`: pi-session --help does not list it"));
    }
    found
}

#[test]
fn the_checker_catches_every_kind_of_control() {
    for c in [N, NB, ID_USER, ID_ASSISTANT, ID_TOOL, ID_SIDE] {
        assert!(first_unsafe(c.as_bytes()).is_some(), "{c:?}");
    }
    for c in N.chars().filter(|c| !c.is_alphanumeric() && !"[];:/.\\_-".contains(*c)) {
        assert!(first_unsafe(c.to_string().as_bytes()).is_some(), "U+{:04X}", c as u32);
    }
    assert!(first_unsafe(b"\x9b").is_some(), "a raw C1 byte");
    assert!(first_unsafe("plain\ttext\n→ ok\\e[31m".as_bytes()).is_none());
    assert_eq!(strip_sgr("a\u{1b}[1;32mb\u{1b}[0mc\u{1b}]0;x"), "abc\u{1b}]0;x");
}

#[test]
fn log_in_every_form() {
    let root = tempfile::tempdir().unwrap();
    let file = write_session(root.path());
    for args in [
        &["log"][..],
        &["log", "--long"],
        &["log", "--long", "--max-chars", "5"],
        &["log", "--all"],
        &["log", "--all", "--long"],
        &["log", "--all", "--reverse", "--long"],
        &["log", "side"],
        &["log", "--long", "side"],
        &["log", "--long", ID_SIDE],
        &["log", "--all", "--since", ID_ASSISTANT],
    ] {
        check_ok(root.path(), &file, args);
    }
    // An unknown role or type is a usage error, reported terminal-safe.
    for args in [
        &["log", "--all", "--role", &na()][..],
        &["log", "--all", "--type", &na()],
    ] {
        assert_eq!(check(root.path(), &file, args).code, 2, "{args:?}");
    }
    // Shown escaped, not dropped.
    let long = check_ok(root.path(), &file, &["log", "--all", "--long"]);
    assert!(long.contains("\\e[31m"), "{long}");
    assert!(long.contains("\\u{202e}"), "{long}");
    assert!(long.contains("\\x9b"), "{long}");
    assert!(long.contains("\\x00"), "{long}");
}

#[test]
fn tree_in_every_form() {
    let root = tempfile::tempdir().unwrap();
    let file = write_session(root.path());
    for args in [&["tree"][..], &["tree", "--all"], &["tree", "--user"]] {
        check_ok(root.path(), &file, args);
    }
}

#[test]
fn show_on_every_entry() {
    let root = tempfile::tempdir().unwrap();
    let file = write_session(root.path());
    for id in ids() {
        let out = check_ok(root.path(), &file, &["show", &id]);
        assert!(out.starts_with("entry "), "{out}");
        check_ok(root.path(), &file, &["show", "--max-chars", "3", &id]);
    }
    for rev in ["@", "root", "side", "plain", "@~3", ":/padding", &na()] {
        check_ok(root.path(), &file, &["show", rev]);
    }
}

#[test]
fn context_at_every_entry() {
    let root = tempfile::tempdir().unwrap();
    let file = write_session(root.path());
    check_ok(root.path(), &file, &["context"]);
    check_ok(root.path(), &file, &["context", "--max-chars", "4"]);
    for id in ids() {
        check_ok(root.path(), &file, &["context", &id]);
    }
}

#[test]
fn files_of_every_branch() {
    let root = tempfile::tempdir().unwrap();
    let file = write_session(root.path());
    let all = check_ok(root.path(), &file, &["files", "--all"]);
    assert!(all.lines().count() >= 3, "{all}");
    for id in ids() {
        check_ok(root.path(), &file, &["files", &id]);
    }
}

#[test]
fn check_names_hostile_paths_and_tools_safely() {
    let root = tempfile::tempdir().unwrap();
    let file = write_session(root.path());
    let every = [
        "--max-cost",
        "0",
        "--max-tokens",
        "0",
        "--max-context",
        "0",
        "--max-tool-calls",
        "0",
        "--max-turns",
        "0",
        "--no-tool-errors",
        "--paths",
        "none",
        "--no-secrets",
        "--valid",
        "--require-tool",
        "\u{1b}[31m",
    ];
    for format in ["human", "github"] {
        let mut args = vec!["check", "--format", format];
        args.extend(every);
        let run = check(root.path(), &file, &args);
        assert_eq!(run.code, 1, "{args:?}");
    }
    let mut forbid = vec!["check", "--forbid-tool"];
    let names: Vec<String> = ids_and_tools(&file);
    forbid.extend(names.iter().map(String::as_str));
    check(root.path(), &file, &forbid);
}

/// The tool names the session's calls use (hostile ones included).
fn ids_and_tools(file: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(file).unwrap();
    let mut names: Vec<String> = text
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter_map(|v| v.pointer("/message/content").and_then(|c| c.as_array()).cloned())
        .flatten()
        .filter(|b| b["type"] == "toolCall")
        .filter_map(|b| b["name"].as_str().filter(|n| !n.contains('\0')).map(str::to_owned))
        .collect();
    names.dedup();
    if names.is_empty() {
        names.push("bash".into());
    }
    names
}

#[test]
fn rev_parse_and_labels() {
    let root = tempfile::tempdir().unwrap();
    let file = write_session(root.path());
    let mut all: Vec<String> = ids();
    all.extend(["@", "root", "side", "plain", &na()].map(String::from));
    let refs: Vec<&str> = all.iter().map(String::as_str).collect();
    let mut args = vec!["rev-parse", "--leaf"];
    args.extend(&refs);
    let out = check_ok(root.path(), &file, &args);
    assert_eq!(out.lines().count(), refs.len() + 1);
    let list = check_ok(root.path(), &file, &["label", "--list"]);
    assert_eq!(list.lines().count(), 4, "{list}");
    // Completion candidates leave out labels a terminal could not show.
    let revs = check_ok(root.path(), &file, &["__complete-revs"]);
    assert_eq!(revs, "@\nroot\nplain\nside\n");
}

#[test]
fn errors_naming_session_text() {
    let root = tempfile::tempdir().unwrap();
    let file = write_session(root.path());
    for args in [
        &["show", "nothing\u{1b}[31mhere"][..],
        &["log", "u\u{1b}"],
        &["context", ":/\u{9b}nowhere\u{202e}"],
        &["rev-parse", "@~99"],
        &["label", ID_USER, "bad\u{1b}name"],
        &["checkout", "gone\u{7}"],
        &["summarize-branch", "\u{202e}nothing", "--dry-run"],
        &["show", "--max-chars", "\u{1b}[2J"],
    ] {
        let run = check(root.path(), &file, args);
        assert!(run.code == 1 || run.code == 2, "{args:?}: exit {}", run.code);
    }
}

#[test]
fn repair_reports() {
    let root = tempfile::tempdir().unwrap();
    let file = write_session(root.path());
    for args in [
        &["repair", "--check"][..],
        &["repair", "--dry-run"],
        &["repair", "--all", "--check"],
    ] {
        let run = check(root.path(), &file, args);
        assert!(run.code == 0 || run.code == 1, "{args:?}: exit {}", run.code);
    }
    // Repairing for real, then checking again.
    let copy = file.with_file_name("copy\u{1b}[1m.jsonl");
    std::fs::copy(&file, &copy).unwrap();
    check(root.path(), &copy, &["repair"]);
    check(root.path(), &copy, &["repair", "--check"]);
}

#[test]
fn compaction_and_branch_summary_plans() {
    let root = tempfile::tempdir().unwrap();
    let file = write_session(root.path());
    for args in [
        &["compact", "--dry-run"][..],
        &["compact", "--dry-run", "--keep-recent-tokens", "10"],
        &["compact", "--print-prompt", "--keep-recent-tokens", "10"],
        &[
            "compact",
            "--print-prompt",
            "--keep-recent-tokens",
            "10",
            "--instructions",
            &na(),
        ],
        &["compact", "--if-needed", "--context-window", "100", "--dry-run"],
        &["summarize-branch", "--dry-run", "side"],
        &["summarize-branch", "--dry-run", ID_SIDE],
        &["summarize-branch", "--print-prompt", "side"],
        &["summarize-branch", "--dry-run", "--reserve-tokens", "1", ID_ASSISTANT],
    ] {
        let run = check(root.path(), &file, args);
        assert_eq!(run.code, 0, "{args:?}");
    }
    let plan = check_ok(
        root.path(),
        &file,
        &["compact", "--dry-run", "--keep-recent-tokens", "10"],
    );
    assert!(plan.contains("\\e[31m"), "file lists are shown escaped: {plan}");
}

#[test]
fn summaries_written_from_a_command() {
    let root = tempfile::tempdir().unwrap();
    let file = write_session(root.path());
    // A summarizer that answers with escape sequences.
    let script = root.path().join("summarizer.sh");
    std::fs::write(
        &script,
        "#!/bin/sh\ncat >/dev/null\nprintf 'sum \\033[31mred\\007 \\342\\200\\256x\\n'\n",
    )
    .unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let summarizer = script.to_str().unwrap();
    check_ok(
        root.path(),
        &file,
        &["compact", "--keep-recent-tokens", "10", "--summarizer", summarizer],
    );
    check_ok(
        root.path(),
        &file,
        &["summarize-branch", "side", "--summarizer", summarizer],
    );
    check_ok(root.path(), &file, &["log", "--long", "-n", "3"]);
    check_ok(root.path(), &file, &["show"]);
    check_ok(root.path(), &file, &["context"]);
}

#[test]
fn write_commands_report_safely() {
    let root = tempfile::tempdir().unwrap();
    let file = write_session(root.path());
    check_ok(root.path(), &file, &["label", ID_ASSISTANT, "named"]);
    check_ok(root.path(), &file, &["label", ID_ASSISTANT, "--delete"]);
    check_ok(root.path(), &file, &["label", ID_ASSISTANT, "--delete"]);
    check_ok(root.path(), &file, &["checkout", "side"]);
    check_ok(root.path(), &file, &["checkout", ID_SIDE]);
    check_ok(root.path(), &file, &["checkout", "-"]);
    check_ok(root.path(), &file, &["checkout", "-"]);
    check_ok(root.path(), &file, &["checkout", "--empty"]);
    check_ok(root.path(), &file, &["checkout", ID_TOOL]);
    check_ok(root.path(), &file, &["checkout", "l000001c"]);
    let expect = check(root.path(), &file, &["label", ID_USER, "x", "--expect-leaf", &na()]);
    assert_eq!(expect.code, 4);
    // The session was changed above, but is still one Pi reads.
    check(root.path(), &file, &["repair", "--check"]);
    // Into a pipe the new file's path is printed exactly, so that it names the file (on a
    // terminal it is escaped: see `shown_path` in src/cli/new_session.rs); stderr is checked.
    for args in [&["clone", ID_TOOL][..], &["fork", "u000000b"][..]] {
        let out = command(root.path(), file.parent().unwrap())
            .arg("-s")
            .arg(&file)
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert_safe(&format!("stderr of {args:?}"), &out.stderr);
        use std::os::unix::ffi::OsStrExt;
        let printed = Path::new(std::ffi::OsStr::from_bytes(out.stdout.strip_suffix(b"\n").unwrap()));
        assert!(printed.is_file(), "{}", printed.display());
        assert_eq!(printed.parent(), Some(file.parent().unwrap()));
    }
}

#[test]
fn colored_output_holds_only_pi_sessions_own_colors() {
    let root = tempfile::tempdir().unwrap();
    let file = write_session(root.path());
    let views: Vec<Vec<String>> = vec![
        vec!["log".into(), "--all".into(), "--long".into()],
        vec!["tree".into(), "--all".into()],
        vec!["context".into()],
        vec!["label".into(), "--list".into()],
        vec![
            "compact".into(),
            "--dry-run".into(),
            "--keep-recent-tokens".into(),
            "10".into(),
        ],
        vec!["summarize-branch".into(), "--dry-run".into(), "side".into()],
        vec!["show".into(), ID_USER.into()],
        vec!["show".into(), ID_ASSISTANT.into()],
        vec!["show".into(), ID_TOOL.into()],
        vec!["show".into(), "k0000010".into()],
    ];
    for args in views {
        let plain = command(root.path(), file.parent().unwrap())
            .arg("-s")
            .arg(&file)
            .args(&args)
            .output()
            .unwrap();
        let colored = command(root.path(), file.parent().unwrap())
            .env_remove("NO_COLOR")
            .args(["--color", "always", "-s"])
            .arg(&file)
            .args(&args)
            .output()
            .unwrap();
        assert!(plain.status.success() && colored.status.success(), "{args:?}");
        let colored = String::from_utf8(colored.stdout).unwrap();
        assert!(colored.contains("\u{1b}["), "{args:?}: colors expected");
        let stripped = strip_sgr(&colored);
        assert_safe(
            &format!("colored stdout of {args:?} without its colors"),
            stripped.as_bytes(),
        );
        // Coloring keeps the padding inside painted columns: compare without trailing blanks.
        let trimmed = |s: &str| s.lines().map(str::trim_end).collect::<Vec<_>>().join("\n");
        assert_eq!(
            trimmed(&stripped),
            trimmed(&String::from_utf8(plain.stdout).unwrap()),
            "{args:?}"
        );
    }
}

#[test]
fn invalid_utf8_is_not_passed_through() {
    let root = tempfile::tempdir().unwrap();
    let dir = root.path().join("s");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("bytes.jsonl");
    let mut data = Vec::new();
    data.extend_from_slice(header().to_string().as_bytes());
    data.extend_from_slice(b"\n");
    // Raw C1 CSI and OSC bytes (not UTF-8) inside message text, an id and a label.
    data.extend_from_slice(
        b"{\"type\":\"message\",\"id\":\"u1\",\"parentId\":null,\"timestamp\":\"2026-03-01T10:00:01.000Z\",\
\"message\":{\"role\":\"user\",\"content\":\"raw \x9b2J \x9d0;t\x07 \xff\",\"timestamp\":1}}\n",
    );
    data.extend_from_slice(
        b"{\"type\":\"message\",\"id\":\"a\x9b2\",\"parentId\":\"u1\",\"timestamp\":\"2026-03-01T10:00:02.000Z\",\
\"message\":{\"role\":\"assistant\",\"content\":[{\"type\":\"text\",\"text\":\"x\x9by\"}],\"stopReason\":\"stop\",\"timestamp\":2}}\n",
    );
    data.extend_from_slice(
        b"{\"type\":\"label\",\"id\":\"l1\",\"parentId\":\"u1\",\"timestamp\":\"2026-03-01T10:00:03.000Z\",\
\"targetId\":\"u1\",\"label\":\"l\x9b1\"}\n",
    );
    std::fs::write(&file, data).unwrap();
    for args in [
        &["log"][..],
        &["log", "--all", "--long"],
        &["tree", "--all"],
        &["show", "u1"],
        &["show"],
        &["context"],
        &["rev-parse", "@", "--leaf"],
        &["label", "--list"],
        &["__complete-revs"],
    ] {
        check(root.path(), &file, args);
    }
    let run = check(root.path(), &file, &["repair", "--check"]);
    assert_eq!(run.code, 1, "invalid UTF-8 is a defect");
    check(root.path(), &file, &["repair", "--dry-run"]);
}

#[test]
fn ls_lists_safely() {
    if !has_command("ls") {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let file = write_session(root.path());
    for args in [
        &["ls"][..],
        &["ls", "--all"],
        &["ls", "--verbose"],
        &["ls", "--all", "--verbose"],
    ] {
        assert_eq!(check_here(root.path(), &file, args), 0, "{args:?}");
    }
}

#[test]
fn stats_safely() {
    if !has_command("stats") {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let file = write_session(root.path());
    for args in [
        &["stats"][..],
        &["stats", "--branch"],
        &["stats", "side"],
        &["stats", ID_SIDE],
    ] {
        check_ok(root.path(), &file, args);
    }
}

#[test]
fn grep_safely() {
    if !has_command("grep") {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let file = write_session(root.path());
    for args in [
        &["grep", "B"][..],
        &["grep", "-i", "first"],
        &["grep", "--tools", "."],
        &["grep", "."],
        &["grep", "-c", "."],
        &["grep", "-l", "."],
        &["grep", "\u{1b}"],
        &["grep", "\\x1b\\[31m"],
        &["grep", "\u{202e}"],
    ] {
        let run = check(root.path(), &file, args);
        assert_eq!(run.code, 0, "{args:?}: something matches");
    }
    for args in [
        &["grep", "--all-sessions", "."][..],
        &["grep", "--all-sessions", "--tools", "-i", "a"],
        &["grep", "--all-sessions", "-c", "."],
        &["grep", "--all-sessions", "-l", "."],
    ] {
        assert_eq!(check_here(root.path(), &file, args), 0, "{args:?}");
    }
    let run = check(root.path(), &file, &["grep", "no\u{1b}match\u{202e}"]);
    assert_eq!(run.code, 1);
    let run = check(root.path(), &file, &["grep", "(\u{1b}[31m"]);
    assert_eq!(run.code, 2, "a bad pattern is an error");
}

#[test]
fn export_markdown_safely() {
    if !has_command("export") {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let file = write_session(root.path());
    for args in [
        &["export", "--format", "md"][..],
        &["export", "--format", "md", "side"],
        &["export", "--format", "md", ID_SIDE],
        &["export", "--format", "md", "a000001b"],
    ] {
        let out = check_ok(root.path(), &file, args);
        assert!(!out.is_empty(), "{args:?}");
    }
}

#[test]
fn slim_reports_safely() {
    if !has_command("slim") {
        return;
    }
    let root = tempfile::tempdir().unwrap();
    let file = write_session(root.path());
    // Written just now: --force, as Pi has not got it open.
    check_ok(
        root.path(),
        &file,
        &["slim", "--dry-run", "--in-context", "--max-output", "1"],
    );
    check_ok(
        root.path(),
        &file,
        &["slim", "--force", "--in-context", "--max-output", "1"],
    );
    check_ok(root.path(), &file, &["tree"]);
    check_ok(root.path(), &file, &["slim", "--restore", "--dry-run"]);
    check_ok(root.path(), &file, &["slim", "--restore", "--force"]);
    check_ok(root.path(), &file, &["slim", "--drop", "--yes"]);
}
