//! The lean read of a section agrees with the full parse on arbitrary entries: whenever it
//! reads an entry (rather than giving up), its section is the one the parsed value gives.

use super::*;
use crate::session::jsparse;
use proptest::prelude::*;
use std::path::PathBuf;

/// Pieces of string bodies: escapes of every kind (lone surrogates included), characters
/// the printers escape, and runs long enough to cross the scanners' 64-byte blocks.
const PIECES: &[&str] = &[
    "a",
    " ",
    "é",
    "日本",
    "😀",
    "\\n",
    "\\t",
    "\\r",
    "\\\"",
    "\\\\",
    "\\/",
    "\\b",
    "\\f",
    "\\u00e9",
    "\\u0060",
    "`",
    "\\ud83d\\ude00",
    "\\ud800",
    "\\udc00x",
    "\\u0000",
    "\\u001b",
    "\u{85}",
    "\u{202e}",
    "\u{a0}",
    "<&'>",
    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
];

fn body() -> impl Strategy<Value = String> {
    prop::collection::vec(prop::sample::select(PIECES), 0..10).prop_map(|p| p.concat())
}

fn string() -> BoxedStrategy<String> {
    prop_oneof![
        3 => body().prop_map(|b| format!("\"{b}\"")),
        1 => prop::sample::select(&["user", "assistant", "toolResult", "bashExecution", "system",
            "custom", "branchSummary", "compactionSummary", "hookMessage", "text", "thinking",
            "toolCall", "image", "image/png", "stop", "toolUse", "error", "length", ""][..])
            .prop_map(|s| format!("\"{s}\"")),
    ]
    .boxed()
}

fn scalar() -> BoxedStrategy<String> {
    prop::sample::select(
        &[
            "0", "-0", "1", "3", "-7", "2.5", "1e2", "1e400", "12345678", "true", "false", "null",
        ][..],
    )
    .prop_map(str::to_owned)
    .boxed()
}

/// A JSON value: strings and scalars, objects of the given keys, arrays.
fn value(keys: &'static [&'static str], depth: u32) -> BoxedStrategy<String> {
    let leaf = prop_oneof![3 => string(), 1 => scalar()];
    if depth == 0 {
        return leaf.boxed();
    }
    let object = fields(keys, value(keys, depth - 1));
    let array = prop::collection::vec(value(keys, depth - 1), 0..4).prop_map(|v| format!("[{}]", v.join(",")));
    prop_oneof![3 => leaf, 2 => object, 1 => array].boxed()
}

const SPACE: &[&str] = &["", "", "", " ", "\t\r "];

/// An object of some of `keys` (repeats allowed, as written twice in a file) with values
/// from `values`.
fn fields(keys: &'static [&'static str], values: BoxedStrategy<String>) -> BoxedStrategy<String> {
    prop::collection::vec((prop::sample::select(SPACE), prop::sample::select(keys), values), 0..8)
        .prop_map(|f| {
            let inner: Vec<String> = f.iter().map(|(w, k, v)| format!("{w}\"{k}\":{w}{v}")).collect();
            format!("{{{}}}", inner.join(","))
        })
        .boxed()
}

const BLOCK_KEYS: &[&str] = &[
    "type",
    "type",
    "text",
    "text",
    "thinking",
    "id",
    "name",
    "arguments",
    "mimeType",
    "data",
    "other",
    "t\\u0065xt",
];

fn block() -> BoxedStrategy<String> {
    let kind = prop::sample::select(&["text", "thinking", "toolCall", "image", "video"][..]);
    let fields = fields(BLOCK_KEYS, value(&["a", "b", "a", "x\\ny"], 2));
    prop_oneof![
        6 => (kind, fields).prop_map(|(k, f)| {
            // Most blocks have their type first, as Pi writes them.
            if f == "{}" { format!("{{\"type\":\"{k}\"}}") } else { format!("{{\"type\":\"{k}\",{}", &f[1..]) }
        }),
        1 => value(&["type"], 1),
    ]
    .boxed()
}

fn content() -> BoxedStrategy<String> {
    prop_oneof![
        3 => prop::collection::vec(block(), 0..4).prop_map(|b| format!("[{}]", b.join(","))),
        2 => string(),
        1 => scalar(),
    ]
    .boxed()
}

const MESSAGE_KEYS: &[&str] = &[
    "role",
    "role",
    "content",
    "content",
    "responseModel",
    "model",
    "provider",
    "stopReason",
    "errorMessage",
    "toolName",
    "toolCallId",
    "isError",
    "command",
    "output",
    "exitCode",
    "customType",
    "summary",
    "usage",
    "r\\u006fle",
];

fn message_value() -> BoxedStrategy<String> {
    let v = prop_oneof![3 => string(), 2 => content(), 1 => scalar()].boxed();
    let role = prop::sample::select(
        &[
            "user",
            "assistant",
            "toolResult",
            "bashExecution",
            "system",
            "custom",
            "branchSummary",
            "compactionSummary",
            "other",
        ][..],
    );
    prop_oneof![
        8 => (role, fields(MESSAGE_KEYS, v)).prop_map(|(r, f)| {
            if f == "{}" { format!("{{\"role\":\"{r}\"}}") } else { format!("{{\"role\":\"{r}\",{}", &f[1..]) }
        }),
        1 => scalar(),
    ]
    .boxed()
}

const ENTRY_KEYS: &[&str] = &[
    "message",
    "customType",
    "content",
    "tokensBefore",
    "summary",
    "fromId",
    "provider",
    "modelId",
    "thinkingLevel",
    "other",
];

/// An entry line of one of the kinds a transcript shows.
fn entry() -> BoxedStrategy<String> {
    let kind = prop::sample::select(
        &[
            "message",
            "message",
            "message",
            "custom_message",
            "compaction",
            "branch_summary",
            "model_change",
            "thinking_level_change",
        ][..],
    );
    let v = prop_oneof![2 => string(), 1 => scalar(), 2 => content(), 3 => message_value()].boxed();
    (kind, fields(ENTRY_KEYS, v), prop::sample::select(&["", "\r", " "][..]))
        .prop_map(|(kind, f, tail)| {
            let rest = if f == "{}" { String::new() } else { format!(",{}", &f[1..f.len() - 1]) };
            format!(
                "{{\"type\":\"{kind}\",\"id\":\"e1\",\"parentId\":null,\"timestamp\":\"2026-01-01T00:00:01.000Z\"{rest}}}{tail}"
            )
        })
        .boxed()
}

fn session_of(line: &str) -> Session {
    session_of_bytes(line.as_bytes())
}

fn session_of_bytes(line: &[u8]) -> Session {
    let mut data = b"{\"type\":\"session\",\"version\":3,\"id\":\"s1\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/w\"}\n".to_vec();
    data.extend_from_slice(line);
    data.push(b'\n');
    Session::from_bytes(PathBuf::from("/t.jsonl"), data).unwrap()
}

/// Bytes Node reads as U+FFFD (a stray continuation, cut characters, an encoded surrogate,
/// an overlong form), and a valid character among them.
const INVALID: &[&[u8]] = &[
    b"\xff",
    b"\x80",
    b"\xc3",
    b"\xe6\x97",
    b"\xf0\x9f\x98",
    b"\xed\xa0\x80",
    b"\xc0\xaf",
    b"\xc3\xa9",
];

/// `line` with `cuts` inserted, each after one of its quotes (mostly inside a string).
fn with_invalid_bytes(line: &str, cuts: &[(prop::sample::Index, &[u8])]) -> Vec<u8> {
    let mut bytes = line.as_bytes().to_vec();
    for (i, bad) in cuts {
        let quotes: Vec<usize> = (0..bytes.len()).filter(|&k| bytes[k] == b'"').collect();
        let at = quotes[i.index(quotes.len())] + 1;
        bytes.splice(at..at, bad.iter().copied());
    }
    bytes
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    #[test]
    fn the_lean_read_gives_the_full_parse_s_section(line in entry()) {
        let s = session_of(&line);
        for i in 0..s.entries.len() {
            let full = section_in_full(&s, i);
            if let Ok(lean) = lean::section(&s, i) {
                prop_assert_eq!(Some(lean), full, "{}", line);
            }
        }
    }

    /// Invalid UTF-8 anywhere in a line: the lean read, when it reads the entry, gives the
    /// section of the full read, which sees U+FFFD where Node does.
    #[test]
    fn invalid_utf8_reads_as_in_full(
        line in entry(),
        cuts in prop::collection::vec((any::<prop::sample::Index>(), prop::sample::select(INVALID)), 1..4),
    ) {
        let bytes = with_invalid_bytes(&line, &cuts);
        let s = session_of_bytes(&bytes);
        for i in 0..s.entries.len() {
            let full = section_in_full(&s, i);
            if let Ok(lean) = lean::section(&s, i) {
                prop_assert_eq!(Some(lean), full, "{}", String::from_utf8_lossy(&bytes));
            }
        }
    }

    /// Strings read in one pass: the value JSON.parse reads, or declined (only for what a
    /// Rust string cannot hold, or what JSON.parse rejects).
    #[test]
    fn strings_decode_as_json_parse_reads_them(body in body(), tail in prop::sample::select(&["", "\"", ",\"x\"", "\\"][..])) {
        let text = format!("\"{body}\"{tail}");
        let quoted = format!("\"{body}\"");
        let exact = jsparse::parse(quoted.as_bytes());
        let read = raw::string(text.as_bytes(), 0);
        prop_assert_eq!(&read, &raw::string_bytewise(text.as_bytes(), 0));
        prop_assert_eq!(&read, &raw::string_in(&text, 0));
        match read {
            Ok((v, end)) => {
                prop_assert_eq!(end, quoted.len());
                let exact = exact.expect("accepted what JSON.parse rejects");
                prop_assert_eq!(Some(&*v), exact.as_str());
                prop_assert_eq!(matches!(v, Cow::Borrowed(_)), !body.contains('\\'));
            }
            Err(_) => prop_assert!(exact.is_err() || exact.unwrap().as_str().is_some_and(jsparse::has_lone_surrogate)),
        }
    }

    /// Arguments printed from their text, when printed, as serde_json prints them parsed.
    #[test]
    fn arguments_print_as_serde_json_prints_them(v in value(&["a", "b", "a", "x\\ny", "\\u0061", "k\\/"], 3), ws in prop::sample::select(SPACE)) {
        let text = format!("{ws}{v}{ws}");
        let exact = jsparse::parse(text.as_bytes()).expect("valid JSON");
        if let Some(p) = raw::pretty(&text) {
            prop_assert_eq!(p, serde_json::to_string_pretty(&exact).unwrap());
        }
    }
}

/// Lines with invalid bytes reach the lean read: some are read (the bytes are where nothing
/// shown is), some given up.
#[test]
fn invalid_utf8_lines_are_read_lean_or_given_up() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = (
        entry(),
        prop::collection::vec((any::<prop::sample::Index>(), prop::sample::select(INVALID)), 1..4),
    );
    let (mut read, mut given_up) = (0, 0);
    for _ in 0..500 {
        let (line, cuts) = strategy.new_tree(&mut runner).unwrap().current();
        let bytes = with_invalid_bytes(&line, &cuts);
        if std::str::from_utf8(&bytes).is_ok() {
            continue;
        }
        let s = session_of_bytes(&bytes);
        for i in 0..s.entries.len() {
            match lean::section(&s, i) {
                Ok(_) => read += 1,
                Err(_) => given_up += 1,
            }
        }
    }
    assert!(read >= 40 && given_up >= 10, "{read} read, {given_up} given up");
}

/// Invalid UTF-8 in a string the section shows makes the lean read give up (the full read
/// shows U+FFFD); in one it skips, or in a tool's arguments where they are shown, not.
#[test]
fn invalid_utf8_is_declined_only_where_it_is_shown() {
    let line = |text: &[u8], other: &[u8], path: &[u8]| {
        [
            &br#"{"type":"message","id":"e1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"assistant","other":""#[..],
            other,
            br#"","content":[{"type":"text","text":""#,
            text,
            br#"\n"},{"type":"toolCall","id":"c1","name":"read","arguments":{"path":""#,
            path,
            br#""}}]}}"#,
        ]
        .concat()
    };
    for (bytes, lean_reads) in [
        (line(b"ok", b"ok", b"a.rs"), true),
        (line("é".as_bytes(), b"\xff", "é".as_bytes()), true),
        (line(b"a\xffb", b"ok", b"a.rs"), false),
        (line(b"ok \xe6\x97", b"ok", b"a.rs"), false),
        (line(b"ok", b"ok", b"a\xc3.rs"), false),
    ] {
        let s = session_of_bytes(&bytes);
        let lean = lean::section(&s, 0);
        assert_eq!(lean.is_ok(), lean_reads, "{}", String::from_utf8_lossy(&bytes));
        if let Ok(lean) = lean {
            assert_eq!(Some(lean), section_in_full(&s, 0));
        }
        assert!(section(&s, 0).is_some());
    }
}

/// A string longer than the room first set aside for it grows once, and reads whole.
#[test]
fn long_strings_decode_whole() {
    for (piece, n) in [("ab\\n\\\"é", 20_000), ("x", 70_000), ("\\u00e9\\t", 9_000)] {
        let text = format!("\"{}\",\"tail\"", piece.repeat(n));
        let want = jsparse::parse(&text.as_bytes()[..text.len() - 7]).unwrap();
        for read in [
            raw::string(text.as_bytes(), 0),
            raw::string_bytewise(text.as_bytes(), 0),
            raw::string_in(&text, 0),
        ] {
            let (v, end) = read.unwrap();
            assert_eq!(Some(&*v), want.as_str());
            assert_eq!(end, text.len() - 7);
        }
    }
}

/// The generators reach the lean read: most entries are read lean, not given up.
#[test]
fn most_generated_entries_are_read_lean() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = entry();
    let (mut lean_read, mut total) = (0, 0);
    for _ in 0..500 {
        let line = strategy.new_tree(&mut runner).unwrap().current();
        let s = session_of(&line);
        for i in 0..s.entries.len() {
            total += 1;
            lean_read += usize::from(lean::section(&s, i).is_ok());
        }
    }
    assert!(
        total >= 400 && lean_read * 2 > total,
        "{lean_read} of {total} read lean"
    );
}

/// Printing from the text reaches most argument shapes: pretty-printing is not given up on
/// every value.
#[test]
fn most_arguments_print_from_their_text() {
    let printed = [
        r#"{"path": "src/a.rs", "n": 3, "flags": [true, null, -2], "deep": {"x": {}, "y": []}}"#,
        r#"[]"#,
        r#""a \"quoted\" line\n""#,
        r#"{"a":1,"b":{"a":2}}"#,
    ];
    for t in printed {
        let exact = serde_json::to_string_pretty(&jsparse::parse(t.as_bytes()).unwrap()).unwrap();
        assert_eq!(raw::pretty(t).as_deref(), Some(&*exact), "{t}");
    }
    for declined in [
        r#"{"a":1,"a":2}"#,
        r#"[1.5]"#,
        r#""\u00e9""#,
        r#""a\/b""#,
        r#"[-0]"#,
        r#"1e2"#,
    ] {
        assert_eq!(raw::pretty(declined), None, "{declined}");
    }
}

const TOOL_KEYS: &[&str] = &[
    "path",
    "path",
    "file_path",
    "offset",
    "limit",
    "content",
    "edits",
    "oldText",
    "newText",
    "command",
    "timeout",
    "ignoreCase",
    "literal",
    "context",
    "glob",
    "pattern",
    "other",
    "p\\u0061th",
];

/// A value under a built-in tool's argument: strings, scalars, booleans, and arrays of
/// edits (objects of `oldText` and `newText`, or anything else).
fn tool_value() -> BoxedStrategy<String> {
    let edit = prop_oneof![
        4 => fields(&["oldText", "newText", "oldText", "x"], prop_oneof![3 => string(), 1 => scalar()].boxed()),
        1 => scalar(),
    ];
    prop_oneof![
        4 => string(),
        2 => scalar(),
        1 => prop::sample::select(&["true", "false", "{}", "[]", "[1]"][..]).prop_map(str::to_owned),
        2 => prop::collection::vec(edit, 0..3).prop_map(|e| format!("[{}]", e.join(","))),
    ]
    .boxed()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(4000))]

    /// A built-in tool's call read from its arguments as written, when read, is the call
    /// read from their pretty-printed JSON.
    #[test]
    fn tool_calls_read_from_their_text_as_from_their_json(
        name in prop::sample::select(&["read", "write", "edit", "bash", "grep", "find", "ls", "mcp"][..]),
        args in prop_oneof![8 => fields(TOOL_KEYS, tool_value()), 1 => tool_value()],
        ws in prop::sample::select(SPACE),
    ) {
        let text = format!("{ws}{args}{ws}");
        let json = serde_json::to_string_pretty(&jsparse::parse(text.as_bytes()).expect("valid JSON")).unwrap();
        if let Some(view) = tools::ToolView::of_json(name, &text) {
            prop_assert_eq!(view, tools::ToolView::of(name, &json), "{}", text);
        }
    }
}

/// The generators reach the read from the text, and its views other than `Other`.
#[test]
fn most_tool_calls_are_read_from_their_text() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = fields(TOOL_KEYS, tool_value());
    let (mut read, mut shown, mut total) = (0, 0, 0);
    for _ in 0..500 {
        let args = strategy.new_tree(&mut runner).unwrap().current();
        for name in ["read", "write", "edit", "bash", "grep", "find", "ls"] {
            total += 1;
            if let Some(v) = tools::ToolView::of_json(name, &args) {
                read += 1;
                shown += usize::from(v != tools::ToolView::Other);
            }
        }
    }
    assert!(
        read * 2 > total && shown * 20 > total,
        "{read} read, {shown} shown of {total}"
    );
    for (name, args) in [
        ("read", r#"{"path":"a.rs","offset":10,"limit":5}"#),
        ("edit", r#"{"path":"f","edits":[{"oldText":"a\nb","newText":"a\nc"}]}"#),
        ("bash", r#"{"command":"ls -l","timeout":60}"#),
        ("grep", r#"{"pattern":"x","ignoreCase":true,"context":2,"glob":"*.rs"}"#),
    ] {
        let json = serde_json::to_string_pretty(&jsparse::parse(args.as_bytes()).unwrap()).unwrap();
        let view = tools::ToolView::of_json(name, args);
        assert!(view.as_ref().is_some_and(|v| *v != tools::ToolView::Other), "{args}");
        assert_eq!(view, Some(tools::ToolView::of(name, &json)));
    }
}
