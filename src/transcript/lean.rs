//! A lean read of an entry for its section: only the fields a transcript shows are read,
//! borrowed from the line where they need no unescaping; everything else is skipped
//! without being built. Anything this read does not handle exactly as `JSON.parse` would
//! (duplicate fields, lone surrogates, invalid UTF-8, a shape it does not expect) makes it
//! give up, and the entry is read in full instead ([`super::section`]).

use super::{Class, Part, Section};
use crate::session::jsparse;
use crate::session::text::short_tokens;
use crate::session::{EntryIdx, EntryKind, Session, jsstr};
use serde::de::value::MapAccessDeserializer;
use serde::de::{IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use serde_json::Value;
use serde_json::value::RawValue;
use std::borrow::Cow;

/// A field kept as its JSON text, for the few read with `JSON.parse`'s numbers: absent
/// (`None`), or its text (`null` included).
#[derive(Debug, Default, Clone, Copy)]
struct Field<'a>(Option<&'a RawValue>);

impl<'de: 'a, 'a> Deserialize<'de> for Field<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        <&'a RawValue>::deserialize(d).map(|r| Field(Some(r)))
    }
}

/// This entry is to be read in full.
struct GiveUp;

type Lean<T> = Result<T, GiveUp>;

impl<'a> Field<'a> {
    fn json(self) -> Option<&'a str> {
        self.0.map(RawValue::get)
    }

    /// The field as `JSON.parse` reads it (`Null` when absent).
    fn value(self) -> Lean<Value> {
        match self.json() {
            None => Ok(Value::Null),
            Some(j) => jsparse::parse(j.as_bytes()).map_err(|_| GiveUp),
        }
    }
}

/// Drains whatever value a visitor was handed that it does not keep.
fn drain_seq<'de, A: SeqAccess<'de>>(mut seq: A) -> Result<(), A::Error> {
    while seq.next_element::<IgnoredAny>()?.is_some() {}
    Ok(())
}

fn drain_map<'de, A: MapAccess<'de>>(mut map: A) -> Result<(), A::Error> {
    while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
    Ok(())
}

/// A field read as a string: absent, of another type (`null` included), or a string
/// (borrowed from the line when it has no escapes).
#[derive(Debug, Default)]
enum Str<'a> {
    #[default]
    Absent,
    Other,
    Is(Cow<'a, str>),
}

impl<'a> Str<'a> {
    fn get(&self) -> Option<&str> {
        match self {
            Str::Is(s) => Some(s),
            _ => None,
        }
    }

    /// The string, or empty.
    fn or_empty(&self) -> &str {
        self.get().unwrap_or("")
    }

    fn into_string(self) -> String {
        match self {
            Str::Is(s) => s.into_owned(),
            _ => String::new(),
        }
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Str<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Str<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Str<'a>, E> {
                Ok(Str::Is(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Str<'a>, E> {
                Ok(Str::Is(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E>(self, v: String) -> Result<Str<'a>, E> {
                Ok(Str::Is(Cow::Owned(v)))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Str<'a>, E> {
                Ok(Str::Other)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Str<'a>, E> {
                Ok(Str::Other)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Str<'a>, E> {
                Ok(Str::Other)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Str<'a>, E> {
                Ok(Str::Other)
            }
            fn visit_unit<E>(self) -> Result<Str<'a>, E> {
                Ok(Str::Other)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Str<'a>, A::Error> {
                drain_seq(seq).map(|()| Str::Other)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Str<'a>, A::Error> {
                drain_map(map).map(|()| Str::Other)
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// A content field: a string, blocks, or anything else (no content).
#[derive(Debug, Default)]
enum Content<'a> {
    #[default]
    None,
    Text(Cow<'a, str>),
    Blocks(Vec<Block<'a>>),
}

/// One element of a content array: an object's fields, or anything else.
#[derive(Debug)]
enum Block<'a> {
    Fields(BlockFields<'a>),
    NotAnObject,
}

impl<'de: 'a, 'a> Deserialize<'de> for Content<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Content<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Content<'a>, E> {
                Ok(Content::Text(Cow::Borrowed(v)))
            }
            fn visit_str<E>(self, v: &str) -> Result<Content<'a>, E> {
                Ok(Content::Text(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E>(self, v: String) -> Result<Content<'a>, E> {
                Ok(Content::Text(Cow::Owned(v)))
            }
            fn visit_bool<E>(self, _: bool) -> Result<Content<'a>, E> {
                Ok(Content::None)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Content<'a>, E> {
                Ok(Content::None)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Content<'a>, E> {
                Ok(Content::None)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Content<'a>, E> {
                Ok(Content::None)
            }
            fn visit_unit<E>(self) -> Result<Content<'a>, E> {
                Ok(Content::None)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Content<'a>, A::Error> {
                let mut blocks = Vec::new();
                while let Some(b) = seq.next_element::<Block<'a>>()? {
                    blocks.push(b);
                }
                Ok(Content::Blocks(blocks))
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Content<'a>, A::Error> {
                drain_map(map).map(|()| Content::None)
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Block<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Block<'a>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_str<E>(self, _: &str) -> Result<Block<'a>, E> {
                Ok(Block::NotAnObject)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Block<'a>, E> {
                Ok(Block::NotAnObject)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Block<'a>, E> {
                Ok(Block::NotAnObject)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Block<'a>, E> {
                Ok(Block::NotAnObject)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Block<'a>, E> {
                Ok(Block::NotAnObject)
            }
            fn visit_unit<E>(self) -> Result<Block<'a>, E> {
                Ok(Block::NotAnObject)
            }
            fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Block<'a>, A::Error> {
                drain_seq(seq).map(|()| Block::NotAnObject)
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Block<'a>, A::Error> {
                BlockFields::deserialize(MapAccessDeserializer::new(map)).map(Block::Fields)
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

#[derive(Deserialize)]
struct EntryFields<'a> {
    #[serde(default, borrow)]
    message: Option<MessageFields<'a>>,
    #[serde(default, borrow, rename = "customType")]
    custom_type: Str<'a>,
    #[serde(default, borrow)]
    content: Content<'a>,
    #[serde(default, borrow, rename = "tokensBefore")]
    tokens_before: Field<'a>,
    #[serde(default, borrow)]
    summary: Str<'a>,
    #[serde(default, borrow, rename = "fromId")]
    from_id: Str<'a>,
    #[serde(default, borrow)]
    provider: Str<'a>,
    #[serde(default, borrow, rename = "modelId")]
    model_id: Str<'a>,
    #[serde(default, borrow, rename = "thinkingLevel")]
    thinking_level: Str<'a>,
}

#[derive(Deserialize)]
struct MessageFields<'a> {
    #[serde(default, borrow)]
    role: Str<'a>,
    #[serde(default, borrow)]
    content: Content<'a>,
    #[serde(default, borrow, rename = "responseModel")]
    response_model: Str<'a>,
    #[serde(default, borrow)]
    model: Str<'a>,
    #[serde(default, borrow)]
    provider: Str<'a>,
    #[serde(default, borrow, rename = "stopReason")]
    stop_reason: Str<'a>,
    #[serde(default, borrow, rename = "errorMessage")]
    error_message: Str<'a>,
    #[serde(default, borrow, rename = "toolName")]
    tool_name: Str<'a>,
    #[serde(default, borrow, rename = "toolCallId")]
    tool_call_id: Str<'a>,
    #[serde(default, borrow, rename = "isError")]
    is_error: Field<'a>,
    #[serde(default, borrow)]
    command: Str<'a>,
    #[serde(default, borrow)]
    output: Str<'a>,
    #[serde(default, borrow, rename = "exitCode")]
    exit_code: Field<'a>,
    #[serde(default, borrow, rename = "customType")]
    custom_type: Str<'a>,
    #[serde(default, borrow)]
    summary: Str<'a>,
}

#[derive(Debug, Deserialize)]
struct BlockFields<'a> {
    #[serde(default, borrow, rename = "type")]
    kind: Str<'a>,
    #[serde(default, borrow)]
    text: Str<'a>,
    #[serde(default, borrow)]
    thinking: Str<'a>,
    #[serde(default, borrow)]
    id: Str<'a>,
    #[serde(default, borrow)]
    name: Str<'a>,
    #[serde(default, borrow)]
    arguments: Field<'a>,
    #[serde(default, borrow, rename = "mimeType")]
    mime_type: Str<'a>,
    #[serde(default, borrow)]
    data: Str<'a>,
}

/// One element of a content array as a part (see `super::block_part`).
fn block_part(b: Block) -> Lean<Part> {
    let Block::Fields(b) = b else {
        return Ok(Part::Note("[untyped block]".into()));
    };
    Ok(match b.kind.get() {
        Some("text") => Part::Text(b.text.into_string()),
        Some("thinking") => Part::Thinking(b.thinking.into_string()),
        Some("toolCall") => Part::ToolCall {
            name: b.name.into_string(),
            id: b.id.into_string(),
            args: serde_json::to_string_pretty(&b.arguments.value()?).unwrap_or_default(),
        },
        Some("image") => Part::Image {
            mime: b.mime_type.into_string(),
            data: b.data.into_string(),
        },
        other => Part::Note(format!("[{} block]", other.unwrap_or("untyped"))),
    })
}

/// The parts of a content field, blank ones kept.
fn all_parts(content: Content) -> Lean<Vec<Part>> {
    match content {
        Content::None => Ok(Vec::new()),
        Content::Text(t) => Ok(vec![Part::Text(t.into_owned())]),
        Content::Blocks(blocks) => blocks.into_iter().map(block_part).collect(),
    }
}

/// `super::content_parts_of`, read lean.
fn content_parts(content: Content) -> Lean<Vec<Part>> {
    let mut parts = all_parts(content)?;
    parts.retain(|p| !matches!(p, Part::Text(t) | Part::Thinking(t) if jsstr::trim(t).is_empty()));
    Ok(parts)
}

/// `super::result_parts_of`, read lean.
fn result_parts(content: Content) -> Lean<(String, Vec<Part>)> {
    if let Content::Text(t) = content {
        return Ok((t.into_owned(), Vec::new()));
    }
    let mut texts = Vec::new();
    let mut images = Vec::new();
    for p in all_parts(content)? {
        match p {
            Part::Text(t) => texts.push(t),
            p @ Part::Image { .. } => images.push(p),
            _ => {}
        }
    }
    let text = if texts.len() == 1 {
        texts.pop().unwrap_or_default()
    } else {
        texts.join("\n")
    };
    Ok((text, images))
}

/// The section of one entry read lean; `Err` when the entry must be read in full. Only for
/// entries of a format-3 file whose kind a transcript shows.
pub(super) fn section(session: &Session, idx: EntryIdx) -> Result<Section, ()> {
    read(session, idx).map_err(|_| ())
}

fn read(session: &Session, idx: EntryIdx) -> Lean<Section> {
    let e = &session.entries[idx];
    let line = simdutf8::basic::from_utf8(session.raw(idx)).map_err(|_| GiveUp)?;
    let v: EntryFields = serde_json::from_str(line).map_err(|_| GiveUp)?;
    let mut s = Section::blank(session, idx);
    match &e.kind {
        EntryKind::Message => {
            let m = v.message.ok_or(GiveUp)?;
            let role = m.role.or_empty();
            match role {
                "user" => {
                    s.class = Class::User;
                    s.title = "User".into();
                    s.parts = content_parts(m.content)?;
                }
                "assistant" => {
                    s.class = Class::Assistant;
                    s.title = "Assistant".into();
                    // The response model when the field is there, whatever it holds.
                    let model = if matches!(m.response_model, Str::Absent) {
                        &m.model
                    } else {
                        &m.response_model
                    };
                    if let Some(model) = model.get() {
                        let provider = m.provider.or_empty();
                        s.meta.push(if provider.is_empty() {
                            model.to_owned()
                        } else {
                            format!("{provider}/{model}")
                        });
                    }
                    s.parts = content_parts(m.content)?;
                    let reason = m.stop_reason.or_empty();
                    if !matches!(reason, "" | "stop" | "toolUse") {
                        let msg = m.error_message.or_empty();
                        s.parts.push(Part::Note(if msg.is_empty() {
                            format!("({reason})")
                        } else {
                            format!("({reason}: {msg})")
                        }));
                    }
                }
                "toolResult" => {
                    s.class = Class::Tool;
                    s.title = "Tool result".into();
                    let (text, images) = result_parts(m.content)?;
                    s.parts.push(Part::ToolResult {
                        name: m.tool_name.into_string(),
                        id: m.tool_call_id.into_string(),
                        error: m.is_error.json() == Some("true"),
                        text,
                    });
                    s.parts.extend(images);
                }
                "bashExecution" => {
                    s.class = Class::Bash;
                    s.title = "Bash".into();
                    let exit = m.exit_code.value()?;
                    s.parts.push(Part::Bash {
                        command: m.command.into_string(),
                        output: m.output.into_string(),
                        exit: (m.exit_code.0.is_some() && !exit.is_null()).then(|| exit.to_string()),
                    });
                }
                "system" => {
                    s.class = Class::System;
                    s.title = "System prompt".into();
                    s.parts.push(Part::Folded {
                        title: "System prompt".into(),
                        text: match m.content {
                            Content::Text(t) => t.into_owned(),
                            _ => String::new(),
                        },
                    });
                }
                "compactionSummary" | "branchSummary" => {
                    s.class = Class::Summary;
                    s.title = if role == "branchSummary" {
                        "Branch summary".into()
                    } else {
                        "Compaction summary".into()
                    };
                    s.parts.push(Part::Text(m.summary.into_string()));
                }
                other => {
                    s.class = Class::Custom;
                    s.title = match m.custom_type.get() {
                        Some(t) => t.to_owned(),
                        None if other == "custom" => "Custom message".into(),
                        None => other.to_owned(),
                    };
                    s.parts = content_parts(m.content)?;
                }
            }
        }
        EntryKind::CustomMessage => {
            s.class = Class::Custom;
            s.title = v.custom_type.into_string();
            if s.title.is_empty() {
                s.title = "Custom message".into();
            }
            s.parts = content_parts(v.content)?;
        }
        EntryKind::Compaction => {
            s.class = Class::Summary;
            s.title = "Compaction".into();
            if let Some(t) = v.tokens_before.value()?.as_f64() {
                s.meta.push(format!("{} tokens before", short_tokens(t)));
            }
            s.parts.push(Part::Folded {
                title: "Summary of the earlier conversation".into(),
                text: v.summary.into_string(),
            });
        }
        EntryKind::BranchSummary => {
            s.class = Class::Summary;
            s.title = "Branch summary".into();
            let from = v.from_id.into_string();
            if !from.is_empty() {
                s.meta.push(format!("from {from}"));
            }
            s.parts.push(Part::Folded {
                title: "Summary of the branch left behind".into(),
                text: v.summary.into_string(),
            });
        }
        EntryKind::ModelChange => {
            s.title = format!("Model: {}/{}", v.provider.or_empty(), v.model_id.or_empty());
        }
        EntryKind::ThinkingLevelChange => {
            s.title = format!("Thinking level: {}", v.thinking_level.or_empty());
        }
        _ => return Err(GiveUp),
    }
    Ok(s)
}
