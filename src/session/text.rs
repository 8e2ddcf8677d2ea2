//! Text of entries for people: message text, one-line previews, token estimates.

use super::content::Content;
use super::preview::{Preview, Shape};
use super::{EntryIdx, Role, Session};
use serde_json::Value;

/// The text of a message's `content`: a string, or its text blocks joined by `sep` (pi-ai's
/// `contentText`; a text block without text joins as an empty string, as in JavaScript).
pub fn content_text(content: Option<&Value>, sep: &str) -> String {
    Content::of_value(content).text(sep).unwrap_or_default().into_owned()
}

/// The user or assistant text of a message entry (what `:/TEXT` searches).
pub fn conversation_text(session: &Session, idx: EntryIdx) -> Option<String> {
    let e = &session.entries[idx];
    if !(e.is_role(&Role::User) || e.is_role(&Role::Assistant)) {
        return None;
    }
    let v = session.value(idx);
    Some(content_text(v.pointer("/message/content"), "\n"))
}

pub use super::preview::short_tokens;

/// A one-line description of an entry, for `log` and `tree`.
pub fn preview(session: &Session, idx: EntryIdx) -> String {
    preview_of(session, idx, None).text
}

/// The start of [`preview`]: at most `budget` characters of it, `cut` when more follow.
/// Fitting it to a width is exact when it is whole, or wider than the width once laid on
/// one line (a prefix of the preview lays out as a prefix of its layout).
pub fn preview_start(session: &Session, idx: EntryIdx, budget: usize) -> Preview {
    preview_of(session, idx, Some(budget))
}

fn preview_of(session: &Session, idx: EntryIdx, budget: Option<usize>) -> Preview {
    let e = &session.entries[idx];
    let shape = Shape {
        kind: &e.kind,
        role: e.role(),
        checkout: e.is_checkout(),
        at: e.message_at(),
    };
    super::preview::preview(session.raw(idx), &shape, budget)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const HEADER: &str = r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}"#;

    /// Entry lines built around `body` (the members after type/id/parentId/timestamp).
    fn session(bodies: &[(&str, String)]) -> Session {
        let mut text = format!("{HEADER}\n");
        for (i, (kind, body)) in bodies.iter().enumerate() {
            let parent = if i == 0 {
                "null".to_owned()
            } else {
                format!("\"e{}\"", i - 1)
            };
            let sep = if body.is_empty() { "" } else { "," };
            text.push_str(&format!(
                r#"{{"type":"{kind}","id":"e{i}","parentId":{parent},"timestamp":"2025-01-01T00:00:01.000Z"{sep}{body}}}"#
            ));
            text.push('\n');
        }
        Session::from_bytes("t.jsonl".into(), text.into_bytes()).unwrap()
    }

    /// Each entry's preview is the one its line's plain form gives, and a preview cut to a
    /// budget is the start of the whole one.
    fn check(session: &Session) {
        for idx in 0..session.entries.len() {
            let e = &session.entries[idx];
            let shape = Shape {
                kind: &e.kind,
                role: e.role(),
                checkout: e.is_checkout(),
                at: e.message_at(),
            };
            let line = session.raw(idx);
            let want = preview(session, idx);
            for budget in [None, Some(1), Some(10), Some(200)] {
                assert_eq!(
                    Some(preview_of(session, idx, budget)),
                    super::super::preview::preview_of_plain_form(line, &shape, budget),
                    "budget {budget:?}, line {}",
                    String::from_utf8_lossy(line)
                );
            }
            for budget in [1, 3, 10, 40, 200] {
                let p = preview_start(session, idx, budget);
                if p.cut {
                    assert_eq!(p.text.chars().count(), budget);
                    // A `\r` the budget kept is left out of the whole line when `\n` follows.
                    let t = p
                        .text
                        .strip_suffix('\r')
                        .filter(|_| !want.starts_with(&p.text))
                        .unwrap_or(&p.text);
                    assert!(want.starts_with(t), "{budget}: {:?} / {want:?}", p.text);
                } else {
                    assert_eq!(p.text, want, "budget {budget}");
                }
            }
        }
    }

    #[test]
    fn previews_of_every_kind() {
        let long = "word ".repeat(500);
        let m = |role: &str, rest: &str| format!(r#""message":{{"role":"{role}"{rest}}}"#);
        let cases: Vec<(&str, String)> = vec![
            ("message", m("user", r#","content":"hello\nworld""#)),
            ("message", m("user", r#","content":"  \n\n\u00a0 \u3000 first\r\nsecond""#)),
            ("message", m("user", r#","content":"a\r""#)),
            ("message", m("user", r#","content":"tab\there \"q\" back\\slash \u00e9 \ud83d\ude00 \u2028 x""#)),
            ("message", m("user", r#","content":[{"type":"text","text":"  "},{"type":"text","text":5},{"type":"image","data":"x"},{"type":"text","text":"\n b \n c"}]"#)),
            ("message", m("user", r#","content":{"type":"text","text":"x"}"#)),
            ("message", m("user", r#","content":"first","content":"second\nthird""#)),
            ("message", format!(r#""message":{{"role":"user","content":"old"}},"message":{{"role":"user","content":"{long}"}}"#)),
            ("message", m("user", &format!(r#","content":"{}{long}""#, "\\n".repeat(300)))),
            ("message", m("user", &format!(r#","content":"{}{long}""#, " ".repeat(300)))),
            ("message", m("assistant", r#","content":[{"type":"toolCall","name":"read","arguments":{"path":"a\nb","n":1.0,"x":1e400,"o":{"k":[1,"\u2028",null]},"path":"again"}}],"stopReason":"toolUse""#)),
            ("message", m("assistant", r#","content":[{"type":"text","text":"hi"},{"type":"toolCall","arguments":"raw"},{"type":"toolCall","name":7,"arguments":null},{"type":"toolCall","name":"n","arguments":[1,2.5,-0]},{"type":"toolCall","name":"z"}]"#)),
            ("message", m("assistant", r#","content":[],"stopReason":"length""#)),
            ("message", m("assistant", r#","content":[],"stopReason":"stop""#)),
            ("message", m("assistant", r#","content":[],"stopReason":"error","stopReason":5"#)),
            ("message", m("assistant", &format!(r#","content":[{{"type":"toolCall","name":"write","arguments":{{"content":"{long}"}}}}]"#))),
            ("message", m("assistant", r#","content":[{"type":"thinking","thinking":"hmm"},{"type":"text","text":"\ud800 lone"}]"#)),
            ("message", m("toolResult", r#","toolName":"bash","isError":true,"content":[{"type":"text","text":"out\nmore"}]"#)),
            ("message", m("toolResult", r#","toolName":3,"isError":"true","content":"x""#)),
            ("message", m("toolResult", r#","isError":true,"isError":false"#)),
            ("message", m("bashExecution", r#","command":"ls\n-la","output":"x""#)),
            ("message", m("bashExecution", &format!(r#","command":"{long}""#))),
            ("message", m("system", r#","content":"x""#)),
            ("message", m("custom", r#","content":"cust\nom""#)),
            ("message", r#""message":"not an object""#.to_owned()),
            ("message", String::new()),
            ("compaction", r#""summary":"\n sum\nmary","tokensBefore":12345,"firstKeptEntryId":"e0""#.to_owned()),
            ("compaction", r#""summary":5,"tokensBefore":"many""#.to_owned()),
            ("compaction", r#""summary":"s","tokensBefore":999.5"#.to_owned()),
            ("compaction", r#""summary":"s","tokensBefore":-0"#.to_owned()),
            ("compaction", r#""summary":"s","tokensBefore":2500000"#.to_owned()),
            ("branch_summary", r#""fromId":"e1","summary":"did\nthings""#.to_owned()),
            ("label", r#""targetId":"e1","label":"mark""#.to_owned()),
            ("label", r#""targetId":"e1","label":"""#.to_owned()),
            ("label", r#""targetId":"e1","label":"x","label":null"#.to_owned()),
            ("model_change", r#""provider":"anthropic","modelId":"claude""#.to_owned()),
            ("thinking_level_change", r#""thinkingLevel":"high""#.to_owned()),
            ("session_info", r#""name":"my \u001b[31m name""#.to_owned()),
            ("custom", r#""customType":"pi-session.checkout","data":{"from":"e2"}"#.to_owned()),
            ("custom", r#""customType":"pi-session.checkout","data":{"from":1}"#.to_owned()),
            ("custom", r#""customType":"pi-session.checkout","data":["from"]"#.to_owned()),
            ("custom", r#""customType":"ext","data":{}"#.to_owned()),
            ("custom_message", r#""customType":"note","content":[{"type":"text","text":"a"},{"type":"text","text":"b\nc"}],"display":true"#.to_owned()),
            ("custom_message", r#""customType":"note","content":"  \n  x""#.to_owned()),
            ("context_edit", r#""targetId":"e1","replacement":null"#.to_owned()),
            ("context_edit", r#""targetId":"e1","replacement":{"role":"user","content":"x"}"#.to_owned()),
            ("context_edit", r#""targetId":"e1""#.to_owned()),
            ("usage", r#""kind":"summary","provider":"p","model":"m","usage":{"totalTokens":4200,"totalTokens":1500000}"#.to_owned()),
            ("usage", r#""kind":"summary","provider":"p","model":"m","usage":[]"#.to_owned()),
            ("mystery", r#""content":"x""#.to_owned()),
            // Text after a tool call still comes first; blocks written with a key twice.
            ("message", m("assistant", r#","content":[{"type":"toolCall","name":"ls","arguments":{}},{"type":"text","text":"after\nmore"},{"type":"toolCall","name":"cat","arguments":{"p":1}}]"#)),
            ("message", m("user", r#","content":[{"type":"text","text":"old","text":"new"},{"type":"image"},{"type":"text","type":"text","text":"two"}]"#)),
        ];
        let s = session(&cases);
        let expected = [
            "hello",
            "first",
            "a\r",
            "tab\there \"q\" back\\slash é 😀 \u{2028} x",
            "b ",
            "",
            "second",
            "word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word ",
            "word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word ",
            "word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word ",
            "→ read(path=again, n=1, x=null, o={\"k\":[1,\"\u{2028}\",null]})",
            "hi → ?(raw), ?(null), n([1,2.5,0]), z()",
            "(length)",
            "",
            "",
            "→ write(content=word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word )",
            "\u{10f800} lone",
            "bash error: out",
            "tool: x",
            "tool: ",
            "$ ls\n-la",
            "$ word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word word ",
            "system prompt",
            "cust",
            "",
            "",
            "[compaction: 12k tokens] sum",
            "[compaction: ? tokens] ",
            "[compaction: 999.5 tokens] s",
            "[compaction: 0 tokens] s",
            "[compaction: 2.5M tokens] s",
            "from e1: did",
            "e1 ← mark",
            "e1 (label cleared)",
            "e1 (label cleared)",
            "anthropic/claude",
            "thinking high",
            "name: my \u{1b}[31m name",
            "checkout (from e2)",
            "checkout (from ?)",
            "checkout (from ?)",
            "ext",
            "note: a b",
            "note: x",
            "omit e1 from context",
            "replace e1 in context",
            "omit e1 from context",
            "summary p/m 1.5M tokens",
            "summary p/m  tokens",
            "",
            "after → ls(), cat(p=1)",
            "new two",
        ];
        let got: Vec<String> = (0..s.entries.len()).map(|i| preview(&s, i)).collect();
        assert_eq!(got, expected);
        check(&s);
        let cases: Vec<(&str, String)> = cases
            .iter()
            .map(|(k, b)| (*k, b.replace(',', " ,\n\t").replace(':', " : ")))
            .collect();
        check(&session(&cases));
    }

    #[test]
    fn invalid_utf8_falls_back() {
        let text = format!(
            "{HEADER}\n{{\"type\":\"message\",\"id\":\"a\",\"parentId\":null,\"timestamp\":\"2025-01-01T00:00:01.000Z\",\"message\":{{\"role\":\"user\",\"content\":\"a#b\"}}}}\n"
        );
        let mut bytes = text.into_bytes();
        let at = bytes.iter().position(|&b| b == b'#').unwrap();
        bytes[at] = 0xff;
        let s = Session::from_bytes("t.jsonl".into(), bytes).unwrap();
        assert_eq!(preview(&s, 0), "a\u{fffd}b");
        check(&s);
    }

    fn piece() -> impl Strategy<Value = String> {
        prop_oneof![
            Just("a".to_owned()),
            Just(" ".to_owned()),
            Just("\\n".to_owned()),
            Just("\\r".to_owned()),
            Just("\\t".to_owned()),
            Just("\\u00a0".to_owned()),
            Just("\\u2028".to_owned()),
            Just("\\u0085".to_owned()),
            Just("\\ufeff".to_owned()),
            Just("\\\"".to_owned()),
            Just("é".to_owned()),
            Just("日本".to_owned()),
            Just("\\ud83d\\ude00".to_owned()),
            Just("\u{3000}".to_owned()),
            "[a-z]{1,30}",
        ]
    }

    fn text() -> impl Strategy<Value = String> {
        prop::collection::vec(piece(), 0..40).prop_map(|v| v.concat())
    }

    fn block() -> impl Strategy<Value = String> {
        prop_oneof![
            text().prop_map(|t| format!(r#"{{"type":"text","text":"{t}"}}"#)),
            text().prop_map(|t| format!(r#"{{"text":"{t}","type":"text","text":"{t}{t}"}}"#)),
            text().prop_map(|t| format!(r#"{{"type":"thinking","thinking":"{t}"}}"#)),
            (text(), text()).prop_map(|(n, a)| format!(
                r#"{{"type":"toolCall","id":"c","name":"{n}","arguments":{{"a":"{a}","b":[1,{{"c":"{a}"}}],"a":2}}}}"#
            )),
            text().prop_map(|a| format!(r#"{{"type":"toolCall","name":"x","arguments":"{a}"}}"#)),
            Just(r#"{"type":"text","text":null}"#.to_owned()),
            Just("7".to_owned()),
        ]
    }

    fn content() -> impl Strategy<Value = String> {
        prop_oneof![
            text().prop_map(|t| format!("\"{t}\"")),
            prop::collection::vec(block(), 0..5).prop_map(|b| format!("[{}]", b.join(","))),
            Just("null".to_owned()),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        #[test]
        fn previews_of_generated_lines_read_as_their_plain_forms_do(
            msgs in prop::collection::vec(
                (prop::sample::select(vec!["user", "assistant", "toolResult", "custom"]), content(), content(), text()),
                1..6,
            )
        ) {
            let bodies: Vec<(&str, String)> = msgs
                .iter()
                .flat_map(|(role, c1, c2, t)| {
                    [
                        ("message", format!(r#""message":{{"role":"{role}","content":{c1},"stopReason":"{t}","toolName":"{t}"}}"#)),
                        ("message", format!(r#""message":{{"role":"{role}","content":{c1},"content":{c2}}}"#)),
                        ("custom_message", format!(r#""customType":"{t}","content":{c2}"#)),
                        ("compaction", format!(r#""summary":"{t}","tokensBefore":3"#)),
                    ]
                })
                .collect();
            check(&session(&bodies));
        }
    }
}
