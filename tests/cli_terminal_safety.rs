//! Session text never reaches the terminal raw: escape sequences, bells, carriage returns,
//! backspaces, C1 controls and bidirectional overrides in a session are shown escaped.

mod common;

use common::{cmd, entry_lines};
use serde_json::{Value, json};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Every kind of dangerous text: a color, an OSC title change ended by BEL, a bell, a carriage
/// return, a backspace, a C1 CSI and a right-to-left override.
const BAD: &str = "A\u{1b}[31mRED\u{1b}]0;title\u{7}B\u{7}C\rD\u{8}E\u{9b}2JF\u{202e}G";
/// The same on several lines, as message text often is.
const BAD_BLOCK: &str = "first \u{1b}[2J line\nsecond\r line \u{7}\n\u{202e}third\u{9b}31m\tend\u{8}";

/// Entry ids with escape sequences in their first 8 characters (the short id shown).
const ID_USER: &str = "\u{1b}[31mu01";
const ID_ASSISTANT: &str = "a\u{7}\u{8}02xyz";
const ID_TOOL: &str = "\u{9b}t03\u{202e}abc";
const ID_LABELLED: &str = "\r\u{1b}]0;x\u{7}";

fn ts(s: u32) -> String {
    format!("2026-02-01T10:00:{s:02}.000Z")
}

fn entries() -> Vec<Value> {
    vec![
        json!({"type":"model_change","id":"m0000001","parentId":null,"timestamp":ts(1),
            "provider":BAD,"modelId":BAD}),
        json!({"type":"thinking_level_change","id":"m0000002","parentId":"m0000001","timestamp":ts(2),
            "thinkingLevel":BAD}),
        json!({"type":"message","id":ID_USER,"parentId":"m0000002","timestamp":ts(3),
            "message":{"role":"user","content":[{"type":"text","text":BAD_BLOCK},{"type":"text","text":BAD},
                {"type":"image","data":"AAAA","mimeType":BAD},{"type":BAD}],"timestamp":1769940003000u64}}),
        json!({"type":"message","id":ID_ASSISTANT,"parentId":ID_USER,"timestamp":ts(4),
            "message":{"role":"assistant","content":[
                {"type":"thinking","thinking":BAD_BLOCK},
                {"type":"text","text":BAD},
                {"type":"toolCall","id":BAD,"name":BAD,"arguments":{"command":BAD,BAD:BAD_BLOCK}}],
                "provider":BAD,"model":BAD,"stopReason":BAD,"errorMessage":BAD,
                "usage":{"input":1,"output":2,"cacheRead":0,"cacheWrite":0,"totalTokens":3,"cost":{"total":0.001}},
                "timestamp":1769940004000u64}}),
        json!({"type":"message","id":ID_TOOL,"parentId":ID_ASSISTANT,"timestamp":ts(5),
            "message":{"role":"toolResult","toolCallId":BAD,"toolName":BAD,
                "content":[{"type":"text","text":BAD_BLOCK}],"isError":true,"timestamp":1769940005000u64}}),
        json!({"type":"message","id":"b0000006","parentId":ID_TOOL,"timestamp":ts(6),
            "message":{"role":"bashExecution","command":BAD,"output":BAD_BLOCK,"exitCode":1,
                "timestamp":1769940006000u64}}),
        json!({"type":"label","id":"l0000007","parentId":"b0000006","timestamp":ts(7),
            "targetId":ID_USER,"label":BAD}),
        json!({"type":"session_info","id":"s0000008","parentId":"l0000007","timestamp":ts(8),"name":BAD}),
        json!({"type":"custom","id":"c0000009","parentId":"s0000008","timestamp":ts(9),
            "customType":BAD,"data":{"x":BAD}}),
        json!({"type":"custom_message","id":"c000000a","parentId":"c0000009","timestamp":ts(10),
            "customType":BAD,"content":BAD_BLOCK,"display":true}),
        json!({"type":"usage","id":"u000000b","parentId":"c000000a","timestamp":ts(11),
            "kind":BAD,"provider":BAD,"model":BAD,"usage":{"totalTokens":5}}),
        json!({"type":"message","id":"r000000c","parentId":"u000000b","timestamp":ts(12),
            "message":{"role":BAD,"content":BAD,"timestamp":1769940012000u64}}),
        json!({"type":BAD,"id":"x000000d","parentId":"r000000c","timestamp":ts(13),"payload":BAD}),
        json!({"type":"message","id":"y000000e","parentId":"x000000d","timestamp":ts(14),
            "message":{"role":"system","content":BAD_BLOCK,"sections":{BAD:BAD,"gone":null},
                "toolsAdded":[{"name":BAD}],"toolsRemoved":[{"name":BAD}],"timestamp":1769940014000u64}}),
        json!({"type":"compaction","id":"k000000f","parentId":"y000000e","timestamp":ts(15),
            "summary":BAD_BLOCK,"firstKeptEntryId":ID_USER,"tokensBefore":1234}),
        json!({"type":"context_edit","id":"e0000010","parentId":"k000000f","timestamp":ts(16),
            "targetId":ID_ASSISTANT,"replacement":{"content":BAD}}),
        json!({"type":"message","id":"z0000011","parentId":"e0000010","timestamp":BAD,
            "message":{"role":"user","content":BAD,"timestamp":1769940017000u64}}),
        json!({"type":"branch_summary","id":"f0000012","parentId":ID_USER,"timestamp":ts(18),
            "fromId":BAD,"summary":BAD_BLOCK}),
        json!({"type":"message","id":ID_LABELLED,"parentId":"f0000012","timestamp":ts(19),
            "message":{"role":"assistant","content":[{"type":"text","text":"plain"}],"provider":"p","model":"m",
                "stopReason":"stop","timestamp":1769940019000u64}}),
        json!({"type":"label","id":"l0000014","parentId":ID_LABELLED,"timestamp":ts(20),
            "targetId":ID_LABELLED,"label":"tip\u{1b}[0m"}),
        json!({"type":"message","id":"o0000015","parentId":BAD,"timestamp":ts(21),
            "message":{"role":"user","content":"orphan","timestamp":1769940021000u64}}),
        json!({"type":"label","id":"l0000016","parentId":"o0000015","timestamp":ts(22),
            "targetId":"z0000011","label":"plainlabel"}),
    ]
}

fn write_session(dir: &Path) -> PathBuf {
    let path = dir.join("nasty.jsonl");
    let mut f = std::fs::File::create(&path).unwrap();
    let header = json!({"type":"session","version":3,"id":format!("sess{BAD}"),
        "timestamp":"2026-02-01T10:00:00.000Z","cwd":format!("/tmp/{BAD}")});
    writeln!(f, "{header}").unwrap();
    for e in entries() {
        writeln!(f, "{e}").unwrap();
    }
    path
}

fn ids() -> Vec<String> {
    entries().iter().map(|e| e["id"].as_str().unwrap().to_owned()).collect()
}

/// Panics when `bytes` holds anything a terminal would act on: C0 controls other than
/// newline and tab, DEL, C1 controls, bidirectional overrides and isolates.
fn assert_terminal_safe(what: &str, bytes: &[u8]) {
    let text = String::from_utf8(bytes.to_vec()).unwrap_or_else(|_| panic!("{what}: output is not UTF-8"));
    for (i, c) in text.char_indices() {
        let bad = (c.is_control() && c != '\n' && c != '\t')
            || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
        if bad {
            let from = text[..i].char_indices().rev().nth(40).map_or(0, |(k, _)| k);
            panic!("{what}: raw U+{:04X} at byte {i}, after {:?}", c as u32, &text[from..i]);
        }
    }
    // The specific sequences, byte for byte.
    for needle in [
        &b"\x1b"[..],
        b"\x07",
        b"\x08",
        b"\r",
        "\u{9b}".as_bytes(),
        "\u{202e}".as_bytes(),
    ] {
        assert!(
            !bytes.windows(needle.len()).any(|w| w == needle),
            "{what}: raw {needle:?} in output"
        );
    }
}

/// Runs a command on the file; checks stdout and stderr; returns (code, stdout, stderr).
fn check(file: &Path, args: &[&str]) -> (i32, String, String) {
    let out = cmd().arg("-s").arg(file).args(args).output().unwrap();
    assert_terminal_safe(&format!("stdout of {args:?}"), &out.stdout);
    assert_terminal_safe(&format!("stderr of {args:?}"), &out.stderr);
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

fn check_ok(file: &Path, args: &[&str]) -> String {
    let (code, stdout, stderr) = check(file, args);
    assert_eq!(code, 0, "{args:?}: {stderr}");
    stdout
}

#[test]
fn log_escapes_session_text() {
    let dir = tempfile::tempdir().unwrap();
    let file = write_session(dir.path());
    for args in [
        &["log"][..],
        &["log", "--all"],
        &["log", "--all", "--reverse"],
        &["log", "--long"],
        &["log", "--all", "--long"],
        &["log", "--all", "--long", "--max-chars", "3"],
    ] {
        check_ok(&file, args);
    }
    // An unknown role or type is a usage error; its message is terminal-safe too.
    for args in [&["log", "--all", "--role", BAD][..], &["log", "--all", "--type", BAD]] {
        let (code, stdout, stderr) = check(&file, args);
        assert_eq!((code, stdout.as_str()), (2, ""), "{args:?}");
        assert!(stderr.contains("RED"), "{stderr}");
    }
    let out = check_ok(&file, &["log", "--all"]);
    assert_eq!(out.lines().count(), entries().len());
    // Escaped, not dropped: the text is still recognizable.
    assert!(out.contains("\\e[31m"), "{out}");
    assert!(out.contains("\\u{202e}"), "{out}");
    let long = check_ok(&file, &["log", "--all", "--long"]);
    assert!(long.contains("RED"), "{long}");
    assert!(long.contains("\\r"), "{long}");
}

#[test]
fn tree_escapes_session_text() {
    let dir = tempfile::tempdir().unwrap();
    let file = write_session(dir.path());
    for args in [&["tree"][..], &["tree", "--all"], &["tree", "--user"]] {
        check_ok(&file, args);
    }
    let all = check_ok(&file, &["tree", "--all"]);
    assert_eq!(all.lines().count(), entries().len());
    assert!(all.contains("\\e[31m"), "{all}");
}

#[test]
fn show_escapes_every_entry() {
    let dir = tempfile::tempdir().unwrap();
    let file = write_session(dir.path());
    for id in ids() {
        let out = check_ok(&file, &["show", &id]);
        assert!(out.starts_with("entry "), "{out}");
        check_ok(&file, &["show", "--max-chars", "4", &id]);
    }
    check_ok(&file, &["show"]);
}

#[test]
fn context_escapes_session_text() {
    let dir = tempfile::tempdir().unwrap();
    let file = write_session(dir.path());
    for rev in ids() {
        check_ok(&file, &["context", &rev]);
    }
    check_ok(&file, &["context"]);
    let out = check_ok(&file, &["context", "z0000011"]);
    let header = out.lines().next().unwrap();
    assert!(header.contains("· model A\\e[31mRED"), "{out}");
    assert!(header.contains("· thinking A\\e[31mRED"), "{out}");
    check_ok(&file, &["context", "--max-chars", "3", ID_TOOL]);
}

#[test]
fn rev_parse_output_and_errors_are_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let file = write_session(dir.path());
    check_ok(&file, &["rev-parse", "plainlabel"]);
    check_ok(&file, &["rev-parse", "@", "--leaf", "root"]);
    // Errors naming a revision with escape sequences.
    for rev in [
        "bad\u{1b}[31mrev",
        "\u{1b}]0;pwned\u{7}",
        "x\r\u{8}\u{9b}y\u{202e}",
        ":/\u{1b}[2J",
        "label:\u{1b}[1m",
        "@~\u{1b}",
    ] {
        for args in [
            &["rev-parse", rev][..],
            &["show", rev],
            &["log", rev],
            &["context", rev],
        ] {
            let (code, stdout, stderr) = check(&file, args);
            assert_eq!(code, 1, "{args:?}");
            assert_eq!(stdout, "");
            assert!(stderr.starts_with("error: "), "{stderr}");
        }
    }
    let (code, _, stderr) = check(&file, &["log", "--all", "--since", "\u{1b}[32m"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("\\e[32m"), "{stderr}");
}

#[test]
fn rev_parse_of_a_label_on_an_id_with_escapes() {
    let dir = tempfile::tempdir().unwrap();
    let file = write_session(dir.path());
    check_ok(&file, &["rev-parse", BAD]);
    check_ok(&file, &["rev-parse", "@"]);
    check_ok(&file, &["rev-parse", ID_USER]);
}

#[test]
fn ambiguous_candidates_are_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("ambiguous.jsonl");
    let header = json!({"type":"session","version":3,"id":"s","timestamp":ts(0),"cwd":"/tmp"});
    let a = json!({"type":"message","id":"abcd\u{1b}[31m1","parentId":null,"timestamp":ts(1),
        "message":{"role":"user","content":"one","timestamp":1}});
    let b = json!({"type":"message","id":"abcd\u{7}2","parentId":"abcd\u{1b}[31m1","timestamp":ts(2),
        "message":{"role":"user","content":"two","timestamp":2}});
    std::fs::write(&file, format!("{header}\n{a}\n{b}\n")).unwrap();
    let (code, _, stderr) = check(&file, &["show", "abcd"]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("hint: candidates: abcd\\e[31m1, abcd\\x072"),
        "{stderr}"
    );
}

#[test]
fn json_output_reproduces_the_original_lines() {
    let dir = tempfile::tempdir().unwrap();
    let file = write_session(dir.path());
    let out = cmd()
        .arg("-s")
        .arg(&file)
        .args(["log", "--all", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let mut expected = Vec::new();
    for (_, l) in entry_lines(&file) {
        expected.extend_from_slice(&l);
        expected.push(b'\n');
    }
    assert_eq!(out.stdout, expected);
    // JSON escapes C0 controls; the other JSON outputs parse back to the same text.
    assert!(!out.stdout.contains(&0x1b));
    let tree = cmd()
        .arg("-s")
        .arg(&file)
        .args(["tree", "--all", "--json"])
        .output()
        .unwrap();
    let rows = common::ndjson(&String::from_utf8(tree.stdout).unwrap());
    assert!(rows.iter().any(|r| r["label"] == BAD));
    assert!(rows.iter().any(|r| r["id"] == ID_USER));
    let ctx = cmd()
        .arg("-s")
        .arg(&file)
        .args(["context", "--json", ID_TOOL])
        .output()
        .unwrap();
    assert!(!ctx.stdout.contains(&0x1b));
    let msgs = common::ndjson(&String::from_utf8(ctx.stdout).unwrap());
    assert_eq!(msgs.last().unwrap()["content"][0]["text"], BAD_BLOCK);
}

#[test]
fn forced_color_only_adds_color_codes() {
    let dir = tempfile::tempdir().unwrap();
    let file = write_session(dir.path());
    for args in [
        &["log", "--all", "--long"][..],
        &["tree", "--all"],
        &["context"],
        &["show", ID_ASSISTANT],
    ] {
        let out = cmd()
            .arg("-s")
            .arg(&file)
            .arg("--color=always")
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}");
        let stripped = strip_sgr(&out.stdout);
        assert_terminal_safe(&format!("colored {args:?}"), &stripped);
    }
}

/// Removes `ESC [ digits/semicolons m` (SGR color codes) from output.
fn strip_sgr(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == 0x1b && bytes.get(i + 1) == Some(&b'[') {
            let mut j = i + 2;
            while j < bytes.len() && (bytes[j].is_ascii_digit() || bytes[j] == b';') {
                j += 1;
            }
            if bytes.get(j) == Some(&b'm') {
                i = j + 1;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    out
}

#[test]
fn warnings_about_a_file_are_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("evil\u{1b}]0;name\u{7}\r.jsonl");
    let original = std::fs::read_to_string(write_session(dir.path())).unwrap();
    std::fs::write(&file, format!("{original}{{torn")).unwrap();
    let (code, _, stderr) = check(&file, &["rev-parse", "plainlabel"]);
    assert_eq!(code, 0);
    assert!(stderr.starts_with("warning: "), "{stderr}");
}

#[test]
fn errors_about_a_file_are_escaped() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("gone\u{1b}[31m\u{202e}.jsonl");
    let (code, _, stderr) = check(&missing, &["log"]);
    assert_eq!(code, 1);
    assert!(stderr.starts_with("error: "), "{stderr}");
    let not_session = dir.path().join("not\u{7}session.jsonl");
    std::fs::write(&not_session, "{\"type\":\"message\"}\n").unwrap();
    let (code, _, stderr) = check(&not_session, &["log"]);
    assert_eq!(code, 1);
    assert!(stderr.contains("is not a Pi session"), "{stderr}");
}

#[test]
fn usage_errors_escape_the_offending_argument() {
    let dir = tempfile::tempdir().unwrap();
    let file = write_session(dir.path());
    let bad = "a\rb\u{7}c\u{8}d\u{202e}e\u{9b}2Jf";
    let flag = format!("--{bad}");
    for args in [
        &["log", "-n", bad][..],
        &[bad],
        &["log", &flag],
        &["tree", "--color", bad],
    ] {
        let (code, stdout, _) = check(&file, args);
        assert_eq!(code, 2, "{args:?}");
        assert_eq!(stdout, "");
    }
}
