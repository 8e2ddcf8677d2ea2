//! The skim: one pass over a line that keeps only what the index needs (type, id, parent,
//! timestamp and a few per-type fields) and skips everything else without building it.
//!
//! Pi parses lines with `JSON.parse` and never validates types, so the skim is lenient:
//! a field of an unexpected JSON type reads as absent instead of failing the line.

use super::jsparse;
use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;
use std::borrow::Cow;
use std::fmt;

/// In a lenient visitor: booleans, numbers and null read as the default (absent) value.
macro_rules! scalars_read_as_default {
    () => {
        fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
        fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(Default::default())
        }
    };
}

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
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Skim<'a> {
    #[serde(rename = "type", borrow, default, deserialize_with = "lenient_str")]
    pub kind: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "lenient_str")]
    pub id: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "lenient_str")]
    pub parent_id: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "lenient_str")]
    pub timestamp: Option<Cow<'a, str>>,
    // label and context_edit
    #[serde(borrow, default, deserialize_with = "lenient_str")]
    pub target_id: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "lenient_str")]
    pub label: Option<Cow<'a, str>>,
    // session_info
    #[serde(borrow, default, deserialize_with = "lenient_str")]
    pub name: Option<Cow<'a, str>>,
    // custom and custom_message
    #[serde(borrow, default, deserialize_with = "lenient_str")]
    pub custom_type: Option<Cow<'a, str>>,
    // compaction
    #[serde(borrow, default, deserialize_with = "lenient_str")]
    pub first_kept_entry_id: Option<Cow<'a, str>>,
    #[serde(default, deserialize_with = "lenient_f64")]
    pub first_kept_entry_index: Option<f64>,
    #[serde(default, deserialize_with = "lenient_f64")]
    pub tokens_before: Option<f64>,
    // branch_summary
    #[serde(borrow, default, deserialize_with = "lenient_str")]
    pub from_id: Option<Cow<'a, str>>,
    // model_change and thinking_level_change
    #[serde(borrow, default, deserialize_with = "lenient_str")]
    pub provider: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "lenient_str")]
    pub model_id: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "lenient_str")]
    pub thinking_level: Option<Cow<'a, str>>,
    // header
    #[serde(default, deserialize_with = "lenient_version")]
    pub version: Option<f64>,
    #[serde(borrow, default, deserialize_with = "lenient_str")]
    pub cwd: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "lenient_str")]
    pub parent_session: Option<Cow<'a, str>>,
    // message
    #[serde(borrow, default, deserialize_with = "lenient_message")]
    pub message: Option<MessageSkim<'a>>,
    /// The line was not valid UTF-8 and was read with U+FFFD replacements, as Node reads it.
    #[serde(skip)]
    pub lossy: bool,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MessageSkim<'a> {
    #[serde(borrow, default, deserialize_with = "lenient_str")]
    pub role: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "lenient_str")]
    pub provider: Option<Cow<'a, str>>,
    #[serde(borrow, default, deserialize_with = "lenient_str")]
    pub model: Option<Cow<'a, str>>,
    /// A tool result's call id.
    #[serde(borrow, default, deserialize_with = "lenient_str")]
    pub tool_call_id: Option<Cow<'a, str>>,
    /// The ids of an assistant message's tool calls (other blocks are skipped).
    #[serde(rename = "content", default, deserialize_with = "tool_call_ids")]
    pub tool_calls: Vec<String>,
    #[serde(borrow, default, deserialize_with = "lenient_str")]
    pub response_model: Option<Cow<'a, str>>,
    /// Where the message's values are in the line (only the fast scanner records it).
    #[serde(skip)]
    pub at: Option<super::entry::MessageAt>,
}

/// The `id`s of `toolCall` blocks in a content array; any other shape reads as none.
fn tool_call_ids<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    #[derive(Deserialize)]
    struct Block<'a> {
        #[serde(rename = "type", borrow, default, deserialize_with = "lenient_str")]
        kind: Option<Cow<'a, str>>,
        #[serde(borrow, default, deserialize_with = "lenient_str")]
        id: Option<Cow<'a, str>>,
    }
    struct V;
    impl<'de> Visitor<'de> for V {
        type Value = Vec<String>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
            let mut ids = Vec::new();
            while let Some(b) = a.next_element::<Option<Block<'de>>>()? {
                if let Some(Block {
                    kind: Some(k),
                    id: Some(id),
                }) = b
                    && k == "toolCall"
                {
                    ids.push(id.into_owned());
                }
            }
            Ok(ids)
        }
        fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
            while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            Ok(Vec::new())
        }
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok(Vec::new())
        }
        scalars_read_as_default!();
    }
    d.deserialize_any(V)
}

/// Reads one line (without its `\n`). Invalid UTF-8 is replaced by U+FFFD first, as
/// Node's decoder does before `JSON.parse` sees the text.
pub fn read_line(line: &[u8]) -> LineRead<'_> {
    // Fast path: parse the bytes as they are. Strings the skim keeps are checked for UTF-8
    // by the parser; skipped ones are not, which is right: Node reads invalid bytes as
    // U+FFFD and JSON.parse accepts the line all the same.
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

/// [`read_line`] without trying the fast scanner (which declined the line).
pub fn read_line_slowly(line: &[u8]) -> LineRead<'_> {
    if line.iter().find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r')) == Some(&b'{')
        && let Ok(skim) = serde_json::from_slice::<Skim>(line)
    {
        return LineRead::Object(Box::new(skim));
    }
    match simdutf8::basic::from_utf8(line) {
        Ok(text) => read_text(text),
        Err(_) => {
            let text = String::from_utf8_lossy(line).into_owned();
            match read_text(&text) {
                LineRead::Object(skim) => {
                    let mut skim = skim.into_owned();
                    skim.lossy = true;
                    LineRead::Object(Box::new(skim))
                }
                LineRead::NotAnObject => LineRead::NotAnObject,
                LineRead::Malformed => LineRead::Malformed,
            }
        }
    }
}

fn read_text(text: &str) -> LineRead<'_> {
    let trimmed = text.trim_start_matches(is_json_whitespace);
    if !trimmed.starts_with('{') {
        return match jsparse::parse(text.as_bytes()) {
            Ok(_) => LineRead::NotAnObject,
            Err(_) => LineRead::Malformed,
        };
    }
    match serde_json::from_str::<Skim>(text) {
        Ok(skim) => LineRead::Object(Box::new(skim)),
        // The derived reader rejects what JSON.parse accepts: duplicate keys (last one
        // wins), lone surrogate escapes, numbers out of range. Read the line exactly.
        Err(_) => match jsparse::parse(text.as_bytes()) {
            Ok(value) if value.is_object() => LineRead::Object(Box::new(Skim::from_value(&value).into_owned())),
            _ => LineRead::Malformed,
        },
    }
}

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

impl<'a> Skim<'a> {
    fn from_value(v: &Value) -> Skim<'static> {
        let s = |key: &str| v.get(key).and_then(Value::as_str).map(|s| Cow::Owned(s.to_owned()));
        let n = |key: &str| v.get(key).and_then(Value::as_f64);
        let message = v.get("message").filter(|m| m.is_object()).map(|m| {
            let ms = |key: &str| m.get(key).and_then(Value::as_str).map(|s| Cow::Owned(s.to_owned()));
            MessageSkim {
                role: ms("role"),
                provider: ms("provider"),
                model: ms("model"),
                tool_call_id: ms("toolCallId"),
                response_model: ms("responseModel"),
                at: None,
                tool_calls: m
                    .get("content")
                    .and_then(Value::as_array)
                    .map(|blocks| {
                        blocks
                            .iter()
                            .filter(|b| b.get("type").and_then(Value::as_str) == Some("toolCall"))
                            .filter_map(|b| b.get("id").and_then(Value::as_str).map(str::to_owned))
                            .collect()
                    })
                    .unwrap_or_default(),
            }
        });
        Skim {
            kind: s("type"),
            id: s("id"),
            parent_id: s("parentId"),
            timestamp: s("timestamp"),
            target_id: s("targetId"),
            label: s("label"),
            name: s("name"),
            custom_type: s("customType"),
            first_kept_entry_id: s("firstKeptEntryId"),
            first_kept_entry_index: n("firstKeptEntryIndex"),
            tokens_before: n("tokensBefore"),
            from_id: s("fromId"),
            provider: s("provider"),
            model_id: s("modelId"),
            thinking_level: s("thinkingLevel"),
            version: v.get("version").and_then(version_of),
            cwd: s("cwd"),
            parent_session: s("parentSession"),
            lossy: false,
            message,
        }
    }

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
                response_model: o(m.response_model),
                at: m.at,
            }),
        }
    }
}

/// JavaScript compares `version` numerically (`"2" < 3` is true), so numeric strings count.
fn version_of(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64().map(|f| f + 0.0),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// Any JSON value; strings are kept, every other type reads as absent.
fn lenient_str<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Cow<'de, str>>, D::Error> {
    struct V;
    impl<'de> Visitor<'de> for V {
        type Value = Option<Cow<'de, str>>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
            Ok(Some(Cow::Borrowed(v)))
        }
        fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
            Ok(Some(Cow::Owned(v.to_owned())))
        }
        fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
            Ok(Some(Cow::Owned(v)))
        }
        scalars_read_as_default!();
        fn visit_none<E: de::Error>(self) -> Result<Self::Value, E> {
            Ok(None)
        }
        fn visit_some<D2: Deserializer<'de>>(self, d: D2) -> Result<Self::Value, D2::Error> {
            d.deserialize_any(V)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
            while a.next_element::<IgnoredAny>()?.is_some() {}
            Ok(None)
        }
        fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
            while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            Ok(None)
        }
    }
    d.deserialize_any(V)
}

fn lenient_f64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    Ok(match Value::deserialize(d)? {
        // `+ 0.0` reads -0 as 0, as the exact reader holds it (the two compare alike in Pi).
        Value::Number(n) => n.as_f64().map(|f| f + 0.0),
        _ => None,
    })
}

fn lenient_version<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f64>, D::Error> {
    Ok(version_of(&Value::deserialize(d)?))
}

fn lenient_message<'de, D: Deserializer<'de>>(d: D) -> Result<Option<MessageSkim<'de>>, D::Error> {
    struct V;
    impl<'de> Visitor<'de> for V {
        type Value = Option<MessageSkim<'de>>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_map<A: MapAccess<'de>>(self, a: A) -> Result<Self::Value, A::Error> {
            MessageSkim::deserialize(de::value::MapAccessDeserializer::new(a)).map(Some)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
            while a.next_element::<IgnoredAny>()?.is_some() {}
            Ok(None)
        }
        scalars_read_as_default!();
        fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
            Ok(None)
        }
    }
    d.deserialize_any(V)
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
        assert_eq!(s.label, None);
        assert!(matches!(read_line(b"[1,2]"), LineRead::NotAnObject));
        assert!(matches!(read_line(b"{\"type\":"), LineRead::Malformed));
        assert!(matches!(read_line(b"{\"type\":\"x\"}\r"), LineRead::Object(_)));
    }

    #[test]
    fn skims_tool_call_ids() {
        let line = br#"{"type":"message","message":{"role":"assistant","content":[{"type":"text","text":"x"},{"type":"toolCall","id":"c1","name":"read","arguments":{"id":"no"}},{"type":"toolCall","id":"c2"}]}}"#;
        let LineRead::Object(s) = read_line(line) else { panic!() };
        assert_eq!(s.message.unwrap().tool_calls, ["c1", "c2"]);
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
    fn invalid_utf8_is_replaced() {
        let LineRead::Object(s) = read_line(b"{\"type\":\"m\xffx\",\"id\":\"a\"}") else {
            panic!()
        };
        assert_eq!(s.kind.as_deref(), Some("m\u{fffd}x"));
    }
}

/// The skim by the fast scanner ([`super::scan`]), which declines unusual lines; the derived
/// reader and then the exact parser take those.
mod fast {
    use super::super::entry::MessageAt;
    use super::super::scan::{self, Bail, Scan, lenient_number, lenient_str};
    use super::{MessageSkim, Skim};
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
        let end = scan::object(line, 0, |key, b, p| {
            let k = key.bytes;
            if key.escaped {
                // Keys written with escapes are rare enough to leave to the other readers.
                return Err(Bail);
            }
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
                b"label" => str_field!(label),
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
                // A header's version may be a numeric string; the other readers decide those.
                b"version" => match b.get(p) {
                    Some(b'-' | b'0'..=b'9') => num_field!(version),
                    _ => Err(Bail),
                },
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
        let end = scan::object(b, pos, |key, b, p| {
            if key.escaped {
                return Err(Bail);
            }
            match key.bytes {
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
                    at.plain_blocks = false;
                    at.plain_calls = false;
                    if b.get(p) != Some(&b'[') {
                        return scan::skip(b, p);
                    }
                    let calls = &mut m.tool_calls;
                    let mut plain = true;
                    let mut plain_calls = true;
                    let mut after_call = false;
                    let end = scan::array(b, p, |b, p| {
                        if b.get(p) != Some(&b'{') {
                            return scan::skip(b, p);
                        }
                        let (mut kind, mut id) = (None, None);
                        let mut texts = 0u32;
                        let mut kinds = 0u32;
                        let mut names = 0u32;
                        let mut arguments = 0u32;
                        let end = scan::object(b, p, |key, b, p| {
                            if key.escaped {
                                return Err(Bail);
                            }
                            match key.bytes {
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
                                    scan::skip(b, p)
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
                            }
                        })?;
                        match kind.as_deref() {
                            Some("toolCall") => {
                                after_call = true;
                                if let Some(id) = id {
                                    calls.push(id.into_owned());
                                }
                            }
                            Some("text") => plain_calls &= !after_call,
                            _ => {}
                        }
                        plain &= texts <= 1 && kinds <= 1;
                        plain_calls &= names <= 1 && arguments <= 1;
                        Ok(end)
                    })?;
                    at.plain_blocks = plain;
                    at.plain_calls = plain && plain_calls;
                    Ok(end)
                }
                _ => scan::skip(b, p),
            }
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
mod fast_agrees {
    use super::*;
    use crate::session::scan;
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
        /// Whenever the fast scanner accepts a line, JSON.parse (our exact reader) accepts it
        /// and the skim equals the one read from the parsed value.
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
                prop_assert_eq!(format!("{s:?}"), format!("{:?}", Skim::from_value(v)));
            }
            // And whatever path reads it, the result agrees with the exact reading.
            match (read_line(line.as_bytes()), exact) {
                (LineRead::Object(mut s), Ok(v)) => {
                    if let Some(m) = &mut s.message {
                        m.at = None;
                    }
                    prop_assert_eq!(format!("{s:?}"), format!("{:?}", Skim::from_value(&v)))
                }
                (LineRead::Object(_), Err(_)) => prop_assert!(false, "accepted a malformed line"),
                (_, Ok(v)) => prop_assert!(!v.is_object()),
                (_, Err(_)) => {}
            }
        }

        /// `plain_calls` says what it says: no block writes its `name` or `arguments` twice,
        /// no `arguments` object a key twice (keys written plainly), no text block follows a
        /// tool call, and `plain_blocks` holds.
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
                    Some("text") => plain &= !after_call,
                    _ => {}
                }
                Ok(end)
            })
            .expect("a content array");
            prop_assert_eq!(at.plain_calls, plain, "{}", line);
        }
    }
}
