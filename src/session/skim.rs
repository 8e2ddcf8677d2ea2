//! The skim: one pass over a line that keeps only what the index needs (type, id, parent,
//! timestamp and a few per-type fields) and skips everything else without building it.
//!
//! Pi parses lines with `JSON.parse` and never validates types, so the skim is lenient:
//! a field of an unexpected JSON type reads as absent instead of failing the line.
//!
//! The skim is written once, as a walk of a line's bytes ([`fast`]). A line that walk
//! declines (a lone surrogate or invalid UTF-8 in a field it keeps, a `-0`, nesting deeper
//! than the walker goes) is parsed exactly and written back as plain JSON
//! ([`jsparse::plain_object`], cut below what the skim reads), and that is walked: the rare
//! line gets the same rule, not a second reader of its own.

use crate::json::jsparse;
use serde_json::Value;
use std::borrow::Cow;

/// What a line is, once read.
#[derive(Debug)]
pub enum LineRead<'a> {
    /// A JSON object, skimmed.
    Object(Box<Skim<'a>>),
    /// Valid JSON that is not an object (`null`, `5`, `[]`…): not an entry.
    NotAnObject,
    /// Not JSON.
    Malformed,
}

/// The fields of an entry line that the index uses. Strings borrow from the line when
/// they contain no escapes.
#[derive(Debug, Default)]
pub struct Skim<'a> {
    pub kind: Option<Cow<'a, str>>,
    pub id: Option<Cow<'a, str>>,
    pub parent_id: Option<Cow<'a, str>>,
    pub timestamp: Option<Cow<'a, str>>,
    // label and context_edit
    pub target_id: Option<Cow<'a, str>>,
    pub label: Option<Cow<'a, str>>,
    // session_info
    pub name: Option<Cow<'a, str>>,
    // custom and custom_message
    pub custom_type: Option<Cow<'a, str>>,
    // compaction
    pub first_kept_entry_id: Option<Cow<'a, str>>,
    pub first_kept_entry_index: Option<f64>,
    pub tokens_before: Option<f64>,
    // branch_summary
    pub from_id: Option<Cow<'a, str>>,
    // model_change and thinking_level_change
    pub provider: Option<Cow<'a, str>>,
    pub model_id: Option<Cow<'a, str>>,
    pub thinking_level: Option<Cow<'a, str>>,
    // header: `version` as JavaScript compares it (`"2" < 3` is true: a numeric string counts)
    pub version: Option<f64>,
    pub cwd: Option<Cow<'a, str>>,
    pub parent_session: Option<Cow<'a, str>>,
    pub message: Option<MessageSkim<'a>>,
    /// The line was not valid UTF-8 and was read with U+FFFD replacements, as Node reads it.
    pub lossy: bool,
}

#[derive(Debug, Default)]
pub struct MessageSkim<'a> {
    pub role: Option<Cow<'a, str>>,
    pub provider: Option<Cow<'a, str>>,
    pub model: Option<Cow<'a, str>>,
    /// A tool result's call id.
    pub tool_call_id: Option<Cow<'a, str>>,
    /// The ids of an assistant message's tool calls (other blocks are skipped).
    pub tool_calls: Vec<String>,
    /// The names of every tool-call block, in order (`""` for a name that is not a string).
    pub tool_names: Vec<Cow<'a, str>>,
    pub response_model: Option<Cow<'a, str>>,
    /// Where the message's values are in the line (`None` for a line read through its
    /// parsed value, whose offsets are not the line's).
    pub at: Option<super::entry::MessageAt>,
}

/// Reads one line (without its `\n`). Invalid UTF-8 is replaced by U+FFFD first, as
/// Node's decoder does before `JSON.parse` sees the text.
pub fn read_line(line: &[u8]) -> LineRead<'_> {
    if let Ok(skim) = fast::skim(line) {
        return LineRead::Object(Box::new(skim));
    }
    read_line_slowly(line)
}

/// The fast scanner's skim of a line into `skim` (most lines; `false`: the scanner declined
/// it, and [`read_line_slowly`] reads it). The caller keeps one skim for many lines and
/// builds from each at once: a skim is large, and filling it in place moves no copy of it
/// (nor allocates its tool call list again).
pub fn read_line_fast<'a>(line: &'a [u8], skim: &mut Skim<'a>) -> bool {
    fast::skim_into(line, skim).is_ok()
}

/// [`read_line`] of a line the walk declined: parsed as `JSON.parse` parses it, then the
/// plain JSON of what the skim reads of that value is walked.
pub fn read_line_slowly(line: &[u8]) -> LineRead<'static> {
    let Some(plain) = jsparse::plain_object(line, SKIM_DEPTH) else {
        return match jsparse::parse(line) {
            Ok(_) => LineRead::NotAnObject,
            Err(_) => LineRead::Malformed,
        };
    };
    // The plain text holds nothing the walk declines (a property test keeps it so).
    let mut skim = fast::skim(&plain).map(Skim::into_owned).unwrap_or_default();
    if let Some(m) = &mut skim.message {
        m.at = None;
    }
    skim.lossy = simdutf8::basic::from_utf8(line).is_err();
    LineRead::Object(Box::new(skim))
}

/// Values deeper than this are never read by the skim (an assistant's content block's
/// members are four levels down).
const SKIM_DEPTH: usize = 6;

/// For a line that is JSON but not an object: whether JavaScript holds its value true.
/// Pi keeps such a line as an entry (and refuses the file when it comes before the
/// header); a falsy one (`null`, `false`, `0`, `""`) it skips.
pub fn truthy_non_object(line: &[u8]) -> bool {
    match jsparse::parse(line) {
        // `1e400` is Infinity in JavaScript (truthy), held as null.
        Ok(Value::Null) => String::from_utf8_lossy(line).trim_matches(is_json_whitespace) != "null",
        Ok(Value::Bool(b)) => b,
        Ok(Value::Number(n)) => n.as_f64().is_some_and(|f| f != 0.0),
        Ok(Value::String(s)) => !s.is_empty(),
        Ok(Value::Array(_) | Value::Object(_)) => true,
        Err(_) => false,
    }
}

fn is_json_whitespace(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
}

impl Skim<'_> {
    fn into_owned(self) -> Skim<'static> {
        fn o(c: Option<Cow<'_, str>>) -> Option<Cow<'static, str>> {
            c.map(|c| Cow::Owned(c.into_owned()))
        }
        Skim {
            kind: o(self.kind),
            id: o(self.id),
            parent_id: o(self.parent_id),
            timestamp: o(self.timestamp),
            target_id: o(self.target_id),
            label: o(self.label),
            name: o(self.name),
            custom_type: o(self.custom_type),
            first_kept_entry_id: o(self.first_kept_entry_id),
            first_kept_entry_index: self.first_kept_entry_index,
            tokens_before: self.tokens_before,
            from_id: o(self.from_id),
            provider: o(self.provider),
            model_id: o(self.model_id),
            thinking_level: o(self.thinking_level),
            version: self.version,
            cwd: o(self.cwd),
            parent_session: o(self.parent_session),
            lossy: self.lossy,
            message: self.message.map(|m| MessageSkim {
                role: o(m.role),
                provider: o(m.provider),
                model: o(m.model),
                tool_call_id: o(m.tool_call_id),
                tool_calls: m.tool_calls,
                tool_names: m.tool_names.into_iter().map(|n| Cow::Owned(n.into_owned())).collect(),
                response_model: o(m.response_model),
                at: m.at,
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn skims_entry_fields() {
        let line = br#"{"type":"message","id":"a1","parentId":null,"timestamp":"t","message":{"role":"user","content":[{"type":"text","text":"hi"}]}}"#;
        let LineRead::Object(s) = read_line(line) else { panic!() };
        assert_eq!(s.kind.as_deref(), Some("message"));
        assert_eq!(s.id.as_deref(), Some("a1"));
        assert_eq!(s.parent_id, None);
        assert_eq!(s.message.unwrap().role.as_deref(), Some("user"));
    }

    #[test]
    fn lenient_types_and_duplicates() {
        let LineRead::Object(s) = read_line(br#"{"type":"label","id":5,"label":{"x":[1]},"id":"b"}"#) else {
            panic!()
        };
        assert_eq!(s.id.as_deref(), Some("b"));
        // Pi keeps any truthy label, shown as `String(label)`; a falsy one clears.
        assert_eq!(s.label.as_deref(), Some("[object Object]"));
        for (value, shown) in [
            ("true", Some("true")),
            ("5", Some("5")),
            ("[1,[2]]", Some("1,2")),
            ("0", None),
            ("false", None),
            ("null", None),
        ] {
            let line = format!(r#"{{"type":"label","id":"l","label":{value}}}"#);
            let LineRead::Object(s) = read_line(line.as_bytes()) else {
                panic!()
            };
            assert_eq!(s.label.as_deref(), shown, "{value}");
        }
        assert!(matches!(read_line(b"[1,2]"), LineRead::NotAnObject));
        assert!(matches!(read_line(b"{\"type\":"), LineRead::Malformed));
        assert!(matches!(read_line(b"{\"type\":\"x\"}\r"), LineRead::Object(_)));
    }

    #[test]
    fn skims_tool_call_ids() {
        let line = br#"{"type":"message","message":{"role":"assistant","content":[{"type":"text","text":"x"},{"type":"toolCall","id":"c1","name":"read","arguments":{"id":"no"}},{"type":"toolCall","id":"c2"}]}}"#;
        let LineRead::Object(s) = read_line(line) else { panic!() };
        let m = s.message.unwrap();
        assert_eq!(m.tool_calls, ["c1", "c2"]);
        // Every call's name, "" for none; the last of a key written twice; escapes decoded.
        assert_eq!(m.tool_names, ["read", ""]);
        let line = br#"{"type":"message","message":{"role":"assistant","content":[{"type":"toolCall","name":"a","n\u0061me":"b\u0061sh"},{"type":"toolCall","name":5},{"type":"toolC\u0061ll","name":"edit"}],"content":[{"type":"toolCall","name":"write"}]}}"#;
        let LineRead::Object(s) = read_line(line) else { panic!() };
        assert_eq!(s.message.unwrap().tool_names, ["write"]);
        let line = br#"{"type":"message","message":{"role":"assistant","content":[{"type":"toolCall","name":"a","n\u0061me":"b\u0061sh"},{"type":"toolCall","name":5},{"type":"toolC\u0061ll","name":"edit"}]}}"#;
        let LineRead::Object(s) = read_line(line) else { panic!() };
        assert_eq!(s.message.unwrap().tool_names, ["bash", "", "edit"]);
        let line = br#"{"type":"message","message":{"role":"toolResult","toolCallId":"c1","content":"plain"}}"#;
        let LineRead::Object(s) = read_line(line) else { panic!() };
        assert_eq!(s.message.unwrap().tool_call_id.as_deref(), Some("c1"));
    }

    #[test]
    fn truthiness_of_non_objects() {
        for t in ["42", "[]", "\"x\"", "true", "1e400", "-1"] {
            assert!(truthy_non_object(t.as_bytes()), "{t}");
        }
        for f in ["0", "-0", "0.0", "null", "false", "\"\"", " 0 ", "x"] {
            assert!(!truthy_non_object(f.as_bytes()), "{f}");
        }
    }

    #[test]
    fn lines_the_walk_declines_are_read_in_their_plain_form() {
        let deep = format!(
            r#"{{"type":"message","id":"d","\u0070arentId":"p","message":{{"role":"user","content":{}1{}}},"tokensBefore":-0,"version":" 2 "}}"#,
            "[".repeat(400),
            "]".repeat(400)
        );
        let LineRead::Object(s) = read_line(deep.as_bytes()) else {
            panic!()
        };
        assert_eq!(s.id.as_deref(), Some("d"));
        assert_eq!(s.parent_id.as_deref(), Some("p"));
        assert_eq!(s.tokens_before, Some(0.0));
        assert_eq!(s.version, Some(2.0));
        assert_eq!(s.message.unwrap().role.as_deref(), Some("user"));
        let LineRead::Object(s) = read_line(br#"{"type":"label","label":"\ud800x","id":"a","id":"b"}"#) else {
            panic!()
        };
        assert_eq!(s.id.as_deref(), Some("b"));
        assert_eq!(s.label.as_deref().map(jsparse::display), Some("\u{fffd}x".into()));
    }

    #[test]
    fn invalid_utf8_is_replaced() {
        let LineRead::Object(s) = read_line(b"{\"type\":\"m\xffx\",\"id\":\"a\"}") else {
            panic!()
        };
        assert_eq!(s.kind.as_deref(), Some("m\u{fffd}x"));
    }
}

/// The skim, as a walk of a line's bytes ([`crate::json::scan`]); it declines what it does not
/// hold exactly, and [`super::read_line_slowly`] hands it a plain form of those lines.
mod fast {
    use super::super::entry::MessageAt;
    use super::{MessageSkim, Skim};
    use crate::json::scan::{self, Bail, Scan, lenient_number, lenient_str};
    use std::num::NonZeroU32;

    pub fn skim(line: &[u8]) -> Scan<Skim<'_>> {
        let mut s = Skim::default();
        skim_into(line, &mut s)?;
        Ok(s)
    }

    /// [`skim`] into `s`, which is cleared first (keeping the room of its tool call list).
    /// When the scanner declines, `s` holds part of the line.
    pub fn skim_into<'a>(line: &'a [u8], s: &mut Skim<'a>) -> Scan<()> {
        let mut calls = s.message.take().map(|m| m.tool_calls).unwrap_or_default();
        *s = Skim::default();
        let mut names = scan::KeyNames::default();
        let end = scan::object(line, 0, |key, b, p| {
            let k = names.of(key);
            macro_rules! str_field {
                ($f:ident) => {{
                    let (v, end) = lenient_str(b, p)?;
                    s.$f = v;
                    Ok(end)
                }};
            }
            macro_rules! num_field {
                ($f:ident) => {{
                    let (v, end) = lenient_number(b, p)?;
                    s.$f = v;
                    Ok(end)
                }};
            }
            match k {
                b"type" => str_field!(kind),
                b"id" => str_field!(id),
                b"parentId" => str_field!(parent_id),
                b"timestamp" => str_field!(timestamp),
                b"targetId" => str_field!(target_id),
                b"label" if b.get(p) == Some(&b'"') => str_field!(label),
                b"label" => {
                    // Pi keeps any truthy label, shown as `String(label)` (`true`, `5`).
                    let end = scan::skip(b, p)?;
                    let value = crate::json::jsparse::parse(&b[p..end]).ok();
                    s.label = value
                        .filter(|v| crate::session::context::truthy(Some(v)))
                        .and_then(|v| crate::json::view::js_string(crate::json::view::Val::of_value(&v)).ok())
                        .map(std::borrow::Cow::Owned);
                    Ok(end)
                }
                b"name" => str_field!(name),
                b"customType" => str_field!(custom_type),
                b"firstKeptEntryId" => str_field!(first_kept_entry_id),
                b"firstKeptEntryIndex" => num_field!(first_kept_entry_index),
                b"tokensBefore" => num_field!(tokens_before),
                b"fromId" => str_field!(from_id),
                b"provider" => str_field!(provider),
                b"modelId" => str_field!(model_id),
                b"thinkingLevel" => str_field!(thinking_level),
                b"cwd" => str_field!(cwd),
                b"parentSession" => str_field!(parent_session),
                b"version" => {
                    let (v, end) = match b.get(p) {
                        Some(b'"') => {
                            let (v, end) = lenient_str(b, p)?;
                            (v.and_then(|v| v.trim().parse().ok()), end)
                        }
                        _ => lenient_number(b, p)?,
                    };
                    // `+ 0.0`: a `-0` version is 0.
                    s.version = v.map(|v| v + 0.0);
                    Ok(end)
                }
                b"message" => {
                    if let Some(m) = s.message.take() {
                        calls = m.tool_calls;
                    }
                    if b.get(p) == Some(&b'{') {
                        calls.clear();
                        let m = s.message.insert(MessageSkim {
                            tool_calls: std::mem::take(&mut calls),
                            ..MessageSkim::default()
                        });
                        message(b, p, m)
                    } else {
                        scan::skip(b, p)
                    }
                }
                _ => scan::skip(b, p),
            }
        })?;
        if !scan::at_end(line, end) {
            return Err(Bail);
        }
        Ok(())
    }

    /// Reads the message object at `pos` into `m` (fresh, but for the room of its tool call
    /// list): the position after it.
    fn message<'a>(b: &'a [u8], pos: usize, m: &mut MessageSkim<'a>) -> Scan<usize> {
        let mut at = MessageAt::default();
        // A value's offset in the line (never 0: the line starts with `{`).
        let offset = |p: usize| u32::try_from(p).ok().and_then(NonZeroU32::new).ok_or(Bail);
        let mut names = scan::KeyNames::default();
        let end = scan::object(b, pos, |key, b, p| match names.of(key) {
            b"toolName" => {
                at.tool_name = Some(offset(p)?);
                scan::skip(b, p)
            }
            b"stopReason" => {
                at.stop_reason = Some(offset(p)?);
                scan::skip(b, p)
            }
            b"command" => {
                at.command = Some(offset(p)?);
                scan::skip(b, p)
            }
            b"isError" => {
                let end = scan::skip(b, p)?;
                at.is_error = &b[p..end] == b"true";
                Ok(end)
            }
            b"role" => lenient_str(b, p).map(|(v, end)| {
                m.role = v;
                end
            }),
            b"provider" => lenient_str(b, p).map(|(v, end)| {
                m.provider = v;
                end
            }),
            b"model" => lenient_str(b, p).map(|(v, end)| {
                m.model = v;
                end
            }),
            b"toolCallId" => lenient_str(b, p).map(|(v, end)| {
                m.tool_call_id = v;
                end
            }),
            b"responseModel" => lenient_str(b, p).map(|(v, end)| {
                m.response_model = v;
                end
            }),
            b"usage" => {
                let end = match scan::usage_end(b, p) {
                    Some(end) => end,
                    None => scan::skip(b, p)?,
                };
                at.usage = Some((offset(p)?.get(), u32::try_from(end - p).map_err(|_| Bail)?));
                Ok(end)
            }
            b"content" => {
                at.content = Some(offset(p)?);
                m.tool_calls.clear();
                m.tool_names.clear();
                at.plain_blocks = false;
                at.plain_calls = false;
                at.text_after_call = false;
                if b.get(p) != Some(&b'[') {
                    return scan::skip(b, p);
                }
                let calls = &mut m.tool_calls;
                let tool_names = &mut m.tool_names;
                let mut plain = true;
                let mut plain_calls = true;
                let mut after_call = false;
                let mut text_after_call = false;
                let mut block_names = scan::KeyNames::default();
                let end = scan::array(b, p, |b, p| {
                    if b.get(p) != Some(&b'{') {
                        return scan::skip(b, p);
                    }
                    let (mut kind, mut id, mut name) = (None, None, None);
                    let mut texts = 0u32;
                    let mut kinds = 0u32;
                    let mut names = 0u32;
                    let mut arguments = 0u32;
                    let end = scan::object(b, p, |key, b, p| match block_names.of(key) {
                        b"type" => lenient_str(b, p).map(|(v, end)| {
                            kinds += 1;
                            kind = v;
                            end
                        }),
                        b"text" => {
                            texts += 1;
                            scan::skip(b, p)
                        }
                        b"id" => lenient_str(b, p).map(|(v, end)| {
                            id = v;
                            end
                        }),
                        b"name" => {
                            names += 1;
                            lenient_str(b, p).map(|(v, end)| {
                                name = v;
                                end
                            })
                        }
                        b"arguments" => {
                            arguments += 1;
                            if b.get(p) != Some(&b'{') {
                                return scan::skip(b, p);
                            }
                            let (end, distinct) = distinct_keys(b, p)?;
                            plain_calls &= distinct;
                            Ok(end)
                        }
                        _ => scan::skip(b, p),
                    })?;
                    match kind.as_deref() {
                        Some("toolCall") => {
                            after_call = true;
                            if let Some(id) = id {
                                calls.push(id.into_owned());
                            }
                            tool_names.push(name.unwrap_or_default());
                        }
                        Some("text") => text_after_call |= after_call,
                        _ => {}
                    }
                    plain &= texts <= 1 && kinds <= 1;
                    plain_calls &= names <= 1 && arguments <= 1;
                    Ok(end)
                })?;
                at.plain_blocks = plain;
                at.plain_calls = plain && plain_calls;
                at.text_after_call = text_after_call;
                Ok(end)
            }
            _ => scan::skip(b, p),
        })?;
        m.at = Some(at);
        Ok(end)
    }

    /// Walks the object at `pos` (validating it): the position after it, and whether its keys
    /// are all written without escapes and none twice (so that its members, in the order
    /// written, are those `JSON.parse` gives). More keys than a tool call's arguments have
    /// are not compared (and count as not distinct).
    fn distinct_keys(b: &[u8], pos: usize) -> Scan<(usize, bool)> {
        const MAX: usize = 16;
        let mut keys: [&[u8]; MAX] = [&[]; MAX];
        let mut n = 0;
        let mut distinct = true;
        let end = scan::object(b, pos, |key, b, p| {
            if key.escaped || n == MAX || keys[..n].contains(&key.bytes) {
                distinct = false;
            } else {
                keys[n] = key.bytes;
                n += 1;
            }
            scan::skip(b, p)
        })?;
        Ok((end, distinct))
    }
}

#[cfg(test)]
mod properties {
    use super::*;
    use crate::json::scan;
    use proptest::prelude::*;

    const KEYS: &[&str] = &[
        "type",
        "id",
        "parentId",
        "timestamp",
        "targetId",
        "label",
        "name",
        "customType",
        "firstKeptEntryId",
        "firstKeptEntryIndex",
        "tokensBefore",
        "fromId",
        "provider",
        "modelId",
        "thinkingLevel",
        "version",
        "cwd",
        "parentSession",
        "message",
        "role",
        "model",
        "toolCallId",
        "content",
        "text",
        "other",
        "\\u0069d",
        "usage",
        "toolName",
        "stopReason",
        "command",
        "isError",
    ];
    const STRINGS: &[&str] = &[
        "message",
        "toolCall",
        "text",
        "a1",
        "",
        "x\\\"y",
        "\\u00e9t\\n",
        "\\ud83d\\ude00",
        "\\ud800",
        "é",
        "2026-01-01T00:00:00.000Z",
        "\\u0000",
        "session",
        "label",
        "compaction",
        "assistant",
        "toolResult",
    ];
    const SCALARS: &[&str] = &[
        "0", "-0", "1", "2.5e3", "1e400", "-12.75", "true", "false", "null", "01", "1.", "[]", "{}",
    ];
    const SPACE: &[&str] = &["", "", "", " ", "\t", "\r"];

    fn value(depth: u32) -> BoxedStrategy<String> {
        let leaf = prop_oneof![
            prop::sample::select(STRINGS).prop_map(|s| format!("\"{s}\"")),
            prop::sample::select(SCALARS).prop_map(str::to_owned),
        ];
        if depth == 0 {
            return leaf.boxed();
        }
        let ws = || prop::sample::select(SPACE);
        let object = prop::collection::vec((ws(), prop::sample::select(KEYS), ws(), value(depth - 1)), 0..6).prop_map(
            |fields| {
                let inner: Vec<String> = fields.iter().map(|(a, k, b, v)| format!("{a}\"{k}\"{b}:{v}")).collect();
                format!("{{{}}}", inner.join(","))
            },
        );
        let array = prop::collection::vec(value(depth - 1), 0..4).prop_map(|items| format!("[{}]", items.join(",")));
        prop_oneof![2 => leaf, 3 => object, 1 => array].boxed()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        /// Whenever the walk accepts a line, JSON.parse (our exact reader) accepts it, the
        /// offsets it records are those of the message's values, and the skim is the one of
        /// the line's plain form.
        #[test]
        fn fast_skim_matches_exact_reading(
            line in value(4),
            tail in prop::sample::select(&["", " ", "\r", "x", ","][..]),
            before in value(3),
        ) {
            let line = format!("{line}{tail}");
            let exact = jsparse::parse(line.as_bytes());
            // A skim filled again (as the loader does, one skim for many lines) reads the
            // line as a fresh one does, whatever the line before left in it.
            let mut reused = Skim::default();
            let _ = fast::skim_into(before.as_bytes(), &mut reused);
            let again = fast::skim_into(line.as_bytes(), &mut reused).map(|()| format!("{reused:?}"));
            prop_assert_eq!(again, fast::skim(line.as_bytes()).map(|s| format!("{s:?}")));
            if let Ok(mut s) = fast::skim(line.as_bytes()) {
                let v = exact.as_ref().expect("the fast scanner accepted a line JSON.parse rejects");
                // Only the fast scanner records where values are: they are the message's.
                if let Some(m) = &mut s.message {
                    let at = m.at.take().expect("the fast scanner records where values are");
                    let message = &v["message"];
                    let value_at = |off: Option<u32>| {
                        off.map(|p| {
                            let end = scan::skip(line.as_bytes(), p as usize).expect("a value");
                            jsparse::parse(&line.as_bytes()[p as usize..end]).expect("a value")
                        })
                    };
                    for (key, off) in [
                        ("usage", at.usage.map(|(p, _)| p)),
                        ("content", at.content.map(|p| p.get())),
                        ("toolName", at.tool_name.map(|p| p.get())),
                        ("stopReason", at.stop_reason.map(|p| p.get())),
                        ("command", at.command.map(|p| p.get())),
                    ] {
                        let found = value_at(off);
                        prop_assert_eq!(found.as_ref(), message.get(key), "{}", key);
                    }
                    if let Some((p, len)) = at.usage {
                        let end = scan::skip(line.as_bytes(), p as usize).expect("a value");
                        prop_assert_eq!(end - p as usize, len as usize);
                    }
                    prop_assert_eq!(at.is_error, message.get("isError") == Some(&serde_json::Value::Bool(true)));
                    // Plain blocks: an array whose blocks write `type` and `text` at most once.
                    if let Some(p) = at.content.filter(|p| line.as_bytes()[p.get() as usize] == b'[') {
                        let mut plain = true;
                        scan::array(line.as_bytes(), p.get() as usize, |b, p| {
                            if b[p] != b'{' {
                                return scan::skip(b, p);
                            }
                            let (mut kinds, mut texts) = (0, 0);
                            let end = scan::object(b, p, |k, b, p| {
                                let k = k.decode().expect("a key");
                                kinds += usize::from(k == "type");
                                texts += usize::from(k == "text");
                                scan::skip(b, p)
                            })?;
                            plain &= kinds <= 1 && texts <= 1;
                            Ok(end)
                        })
                        .expect("a content array");
                        prop_assert_eq!(at.plain_blocks, plain);
                    }
                }
                prop_assert!(v.is_object());
                // The walk keeps `JSON.parse`'s rules: it reads the line as it reads the plain
                // form of the line's value (each key once, no escapes).
                let LineRead::Object(slow) = read_line_slowly(line.as_bytes()) else {
                    return Err(TestCaseError::fail("a line the walk took is an object"));
                };
                prop_assert_eq!(format!("{s:?}"), format!("{slow:?}"));
            }
            // Whatever path reads it, it is an entry exactly when JSON.parse gives an object,
            // and the plain form of any object is walked without a decline.
            match (read_line(line.as_bytes()), &exact) {
                (LineRead::Object(_), Ok(v)) => {
                    prop_assert!(v.is_object());
                    prop_assert!(fast::skim(&jsparse::plain_object(line.as_bytes(), SKIM_DEPTH).unwrap()).is_ok());
                }
                (LineRead::Object(_), Err(_)) => prop_assert!(false, "accepted a malformed line"),
                (_, Ok(v)) => prop_assert!(!v.is_object()),
                (_, Err(_)) => {}
            }
        }

        /// `plain_calls` says what it says: no block writes its `name` or `arguments` twice,
        /// no `arguments` object a key twice (keys written plainly), and `plain_blocks` holds;
        /// `text_after_call`, whether a text block follows a tool call.
        #[test]
        fn plain_calls_are_told_from_the_blocks(blocks in prop::collection::vec(
            prop::collection::vec(prop_oneof![
                3 => prop::sample::select(vec!["text", "toolCall", "thinking", "t\\u0065xt"]).prop_map(|t| format!(r#""type":"{t}""#)),
                1 => Just(r#""type":5"#.to_owned()),
                1 => Just(r#""text":"x""#.to_owned()),
                2 => prop::sample::select(vec![r#""read""#, "7"]).prop_map(|n| format!(r#""name":{n}"#)),
                1 => Just(r#""id":"c""#.to_owned()),
                3 => prop::collection::vec((prop::sample::select(vec!["a", "b", "\\u0061", "日本"]), prop::sample::select(vec!["1", r#""v""#, "{\"a\":1,\"a\":2}"])), 0..4)
                    .prop_map(|m| {
                        let m: Vec<String> = m.iter().map(|(k, v)| format!(r#""{k}":{v}"#)).collect();
                        format!(r#""arguments":{{{}}}"#, m.join(","))
                    }),
                1 => Just(r#""arguments":"raw""#.to_owned()),
            ], 0..5),
            0..5,
        )) {
            let content: Vec<String> = blocks.iter().map(|b| format!("{{{}}}", b.join(","))).collect();
            let line = format!(r#"{{"type":"message","message":{{"role":"assistant","content":[{}]}}}}"#, content.join(","));
            let skim = fast::skim(line.as_bytes()).expect("a plain line");
            let at = skim.message.and_then(|m| m.at).expect("where values are");
            let b = line.as_bytes();
            let mut plain = true;
            let mut after_call = false;
            let mut text_after_call = false;
            scan::array(b, at.content.expect("a content").get() as usize, |b, p| {
                let mut count = std::collections::HashMap::<String, usize>::new();
                let mut kind = None;
                let end = scan::object(b, p, |k, b, p| {
                    let k = k.decode().expect("a key").into_owned();
                    *count.entry(k.clone()).or_default() += 1;
                    let end = scan::skip(b, p)?;
                    let value = jsparse::parse(&b[p..end]).expect("a value");
                    if k == "type" {
                        kind = value.as_str().map(str::to_owned);
                    }
                    if k == "arguments" && b[p] == b'{' {
                        let mut keys = Vec::new();
                        scan::object(b, p, |k, b, p| {
                            keys.push(if k.escaped { None } else { Some(k.decode().expect("a key").into_owned()) });
                            scan::skip(b, p)
                        })?;
                        let distinct: std::collections::HashSet<_> = keys.iter().collect();
                        plain &= keys.iter().all(Option::is_some) && distinct.len() == keys.len();
                    }
                    Ok(end)
                })?;
                plain &= ["type", "text", "name", "arguments"].iter().all(|k| count.get(*k).is_none_or(|&n| n <= 1));
                match kind.as_deref() {
                    Some("toolCall") => after_call = true,
                    Some("text") => text_after_call |= after_call,
                    _ => {}
                }
                Ok(end)
            })
            .expect("a content array");
            prop_assert_eq!(at.plain_calls, plain, "{}", line);
            prop_assert_eq!(at.text_after_call, text_after_call, "{}", line);
        }
    }
}
