//! Text of entries for people: message text, one-line previews, token estimates.

use super::content::Content;
use super::preview::{Preview, Shape};
use super::scan::Bail;
use super::{EntryIdx, EntryKind, Role, Session};
use serde_json::Value;

/// The text of a message's `content`: a string, or its text blocks joined by `sep` (pi-ai's
/// `contentText`; a text block without text joins as an empty string, as in JavaScript).
pub fn content_text(content: Option<&Value>, sep: &str) -> String {
    Content::of(content).text(sep)
}

/// Tool calls of an assistant message as `name(arg=value, …)`.
pub fn tool_calls(message: &Value) -> Vec<String> {
    Content::of_message(message)
        .tool_calls()
        .map(|call| {
            let name = call.name.unwrap_or("?");
            let args = match call.arguments {
                Some(Value::Object(m)) => m
                    .iter()
                    .map(|(k, v)| format!("{k}={}", compact_value(v)))
                    .collect::<Vec<_>>()
                    .join(", "),
                Some(v) => compact_value(v),
                None => String::new(),
            };
            format!("{name}({args})")
        })
        .collect()
}

fn compact_value(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
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

fn first_line(s: &str) -> &str {
    s.trim_start().lines().next().unwrap_or("")
}

/// A one-line description of an entry, for `log` and `tree`.
pub fn preview(session: &Session, idx: EntryIdx) -> String {
    match fast_preview(session, idx, None) {
        Ok(p) => p.text,
        Err(_) => preview_of_value(session, idx),
    }
}

/// The start of [`preview`]: at most `budget` characters of it, `cut` when more follow.
/// Fitting it to a width is exact when it is whole, or wider than the width once laid on
/// one line (a prefix of the preview lays out as a prefix of its layout).
pub fn preview_start(session: &Session, idx: EntryIdx, budget: usize) -> Preview {
    fast_preview(session, idx, Some(budget)).unwrap_or_else(|_| Preview {
        text: preview_of_value(session, idx),
        cut: false,
    })
}

/// The preview read from the line's bytes ([`super::preview`]), when the scanner takes it.
fn fast_preview(session: &Session, idx: EntryIdx, budget: Option<usize>) -> Result<Preview, Bail> {
    let e = &session.entries[idx];
    let shape = Shape {
        kind: &e.kind,
        role: e.role(),
        checkout: e.is_checkout(),
        at: e.message_at(),
    };
    super::preview::preview(session.raw(idx), &shape, budget)
}

/// [`preview`] from the entry's JSON value: the reference the fast reading must equal.
pub(crate) fn preview_of_value(session: &Session, idx: EntryIdx) -> String {
    let e = &session.entries[idx];
    let v = session.preview_value(idx);
    let s = |key: &str| v.get(key).and_then(Value::as_str).unwrap_or("").to_owned();
    match &e.kind {
        EntryKind::Message => {
            let m = v.get("message").unwrap_or(&Value::Null);
            let text = content_text(m.get("content"), " ");
            match e.role() {
                Some(Role::Assistant) => {
                    let calls = tool_calls(m);
                    let mut out = first_line(&text).to_owned();
                    if !calls.is_empty() {
                        if !out.is_empty() {
                            out.push(' ');
                        }
                        out.push_str(&format!("→ {}", calls.join(", ")));
                    }
                    if out.is_empty()
                        && let Some(reason) = m.get("stopReason").and_then(Value::as_str)
                        && reason != "stop"
                    {
                        out = format!("({reason})");
                    }
                    out
                }
                Some(Role::ToolResult) => {
                    let name = m.get("toolName").and_then(Value::as_str).unwrap_or("tool");
                    let err = if m.get("isError").and_then(Value::as_bool) == Some(true) {
                        " error"
                    } else {
                        ""
                    };
                    format!("{name}{err}: {}", first_line(&text))
                }
                Some(Role::BashExecution) => {
                    format!("$ {}", m.get("command").and_then(Value::as_str).unwrap_or(""))
                }
                Some(Role::System) => "system prompt".to_owned(),
                _ => first_line(&text).to_owned(),
            }
        }
        EntryKind::Compaction => {
            let tokens = v
                .get("tokensBefore")
                .and_then(Value::as_f64)
                .map(short_tokens)
                .unwrap_or_else(|| "?".into());
            format!("[compaction: {tokens} tokens] {}", first_line(&s("summary")))
        }
        EntryKind::BranchSummary => format!("from {}: {}", s("fromId"), first_line(&s("summary"))),
        EntryKind::Label => {
            let target = s("targetId");
            match v.get("label").and_then(Value::as_str).filter(|l| !l.is_empty()) {
                Some(l) => format!("{target} ← {l}"),
                None => format!("{target} (label cleared)"),
            }
        }
        EntryKind::ModelChange => format!("{}/{}", s("provider"), s("modelId")),
        EntryKind::ThinkingLevelChange => format!("thinking {}", s("thinkingLevel")),
        EntryKind::SessionInfo => format!("name: {}", s("name")),
        EntryKind::Custom if e.is_checkout() => {
            let from = v.pointer("/data/from").and_then(Value::as_str).unwrap_or("?");
            format!("checkout (from {from})")
        }
        EntryKind::Custom => s("customType"),
        EntryKind::CustomMessage => {
            format!(
                "{}: {}",
                s("customType"),
                first_line(&content_text(v.get("content"), " "))
            )
        }
        EntryKind::ContextEdit => match v.get("replacement") {
            Some(Value::Null) | None => format!("omit {} from context", s("targetId")),
            Some(_) => format!("replace {} in context", s("targetId")),
        },
        EntryKind::Usage => {
            let tokens = v
                .pointer("/usage/totalTokens")
                .and_then(Value::as_f64)
                .map(short_tokens)
                .unwrap_or_default();
            format!("{} {}/{} {tokens} tokens", s("kind"), s("provider"), s("model"))
        }
        EntryKind::Other(_) => String::new(),
    }
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

    /// The fast preview, whole and cut to budgets, agrees with the value's preview, and
    /// reading values where the loader saw them agrees with walking the line for them.
    fn check(session: &Session) {
        for idx in 0..session.entries.len() {
            let e = &session.entries[idx];
            let walked = Shape {
                kind: &e.kind,
                role: e.role(),
                checkout: e.is_checkout(),
                at: None,
            };
            for budget in [None, Some(1), Some(10), Some(200)] {
                assert_eq!(
                    fast_preview(session, idx, budget).ok(),
                    super::super::preview::preview(session.raw(idx), &walked, budget).ok(),
                    "budget {budget:?}, line {}",
                    String::from_utf8_lossy(session.raw(idx))
                );
            }
            let want = preview_of_value(session, idx);
            assert_eq!(
                preview(session, idx),
                want,
                "line {}",
                String::from_utf8_lossy(session.raw(idx))
            );
            for budget in [1, 3, 10, 40, 200] {
                let p = preview_start(session, idx, budget);
                if p.cut {
                    assert_eq!(p.text.chars().count(), budget);
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
    fn fast_previews_equal_the_value_previews() {
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
        ];
        let s = session(&cases);
        check(&s);
        // Only the lone surrogate and the negative zero are left to the value.
        let declined: Vec<usize> = (0..s.entries.len())
            .filter(|&i| fast_preview(&s, i, None).is_err())
            .collect();
        assert_eq!(declined, [16, 29]);
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
        fn fast_previews_equal_the_value_previews_on_generated_lines(
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
