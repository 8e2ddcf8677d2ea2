//! A lean read of an entry for its section: only the fields a transcript shows are read,
//! borrowed from the line where they need no unescaping; everything else is skipped
//! without being built. Anything this read does not handle exactly as `JSON.parse` would
//! (duplicate fields, lone surrogates, invalid UTF-8, a shape it does not expect) makes it
//! give up, and the entry is read in full instead ([`super::section`]).

use super::{Class, Part, Section};
use crate::session::jsparse;
use crate::session::text::short_tokens;
use crate::session::{EntryIdx, EntryKind, Session, jsstr};
use serde::{Deserialize, Deserializer};
use serde_json::Value;
use serde_json::value::RawValue;
use std::borrow::Cow;

/// A field as written: absent (`None`), or its JSON text (`null` included).
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

    /// The string, when the field is one (`None` when absent or of another type).
    fn str(self) -> Lean<Option<Cow<'a, str>>> {
        match self.json() {
            Some(j) if j.starts_with('"') => serde_json::from_str::<Cow<'a, str>>(j).map(Some).map_err(|_| GiveUp),
            _ => Ok(None),
        }
    }

    /// The string, or empty.
    fn string(self) -> Lean<String> {
        Ok(self.str()?.map(Cow::into_owned).unwrap_or_default())
    }

    /// The field as `JSON.parse` reads it (`Null` when absent).
    fn value(self) -> Lean<Value> {
        match self.json() {
            None => Ok(Value::Null),
            Some(j) => jsparse::parse(j.as_bytes()).map_err(|_| GiveUp),
        }
    }

    fn is_object(self) -> bool {
        self.json().is_some_and(|j| j.starts_with('{'))
    }

    fn of<T: Deserialize<'a>>(self) -> Lean<T> {
        serde_json::from_str(self.json().ok_or(GiveUp)?).map_err(|_| GiveUp)
    }
}

#[derive(Deserialize)]
struct EntryFields<'a> {
    #[serde(default, borrow)]
    message: Field<'a>,
    #[serde(default, borrow, rename = "customType")]
    custom_type: Field<'a>,
    #[serde(default, borrow)]
    content: Field<'a>,
    #[serde(default, borrow, rename = "tokensBefore")]
    tokens_before: Field<'a>,
    #[serde(default, borrow)]
    summary: Field<'a>,
    #[serde(default, borrow, rename = "fromId")]
    from_id: Field<'a>,
    #[serde(default, borrow)]
    provider: Field<'a>,
    #[serde(default, borrow, rename = "modelId")]
    model_id: Field<'a>,
    #[serde(default, borrow, rename = "thinkingLevel")]
    thinking_level: Field<'a>,
}

#[derive(Deserialize)]
struct MessageFields<'a> {
    #[serde(default, borrow)]
    role: Field<'a>,
    #[serde(default, borrow)]
    content: Field<'a>,
    #[serde(default, borrow, rename = "responseModel")]
    response_model: Field<'a>,
    #[serde(default, borrow)]
    model: Field<'a>,
    #[serde(default, borrow)]
    provider: Field<'a>,
    #[serde(default, borrow, rename = "stopReason")]
    stop_reason: Field<'a>,
    #[serde(default, borrow, rename = "errorMessage")]
    error_message: Field<'a>,
    #[serde(default, borrow, rename = "toolName")]
    tool_name: Field<'a>,
    #[serde(default, borrow, rename = "toolCallId")]
    tool_call_id: Field<'a>,
    #[serde(default, borrow, rename = "isError")]
    is_error: Field<'a>,
    #[serde(default, borrow)]
    command: Field<'a>,
    #[serde(default, borrow)]
    output: Field<'a>,
    #[serde(default, borrow, rename = "exitCode")]
    exit_code: Field<'a>,
    #[serde(default, borrow, rename = "customType")]
    custom_type: Field<'a>,
    #[serde(default, borrow)]
    summary: Field<'a>,
}

#[derive(Deserialize)]
struct BlockFields<'a> {
    #[serde(default, borrow, rename = "type")]
    kind: Field<'a>,
    #[serde(default, borrow)]
    text: Field<'a>,
    #[serde(default, borrow)]
    thinking: Field<'a>,
    #[serde(default, borrow)]
    id: Field<'a>,
    #[serde(default, borrow)]
    name: Field<'a>,
    #[serde(default, borrow)]
    arguments: Field<'a>,
    #[serde(default, borrow, rename = "mimeType")]
    mime_type: Field<'a>,
    #[serde(default, borrow)]
    data: Field<'a>,
}

/// One element of a content array as a part (see `super::block_part`).
fn block_part(raw: &RawValue) -> Lean<Part> {
    if !raw.get().starts_with('{') {
        return Ok(Part::Note("[untyped block]".into()));
    }
    let b: BlockFields = serde_json::from_str(raw.get()).map_err(|_| GiveUp)?;
    Ok(match b.kind.str()?.as_deref() {
        Some("text") => Part::Text(b.text.string()?),
        Some("thinking") => Part::Thinking(b.thinking.string()?),
        Some("toolCall") => Part::ToolCall {
            name: b.name.string()?,
            id: b.id.string()?,
            args: serde_json::to_string_pretty(&b.arguments.value()?).unwrap_or_default(),
        },
        Some("image") => Part::Image {
            mime: b.mime_type.string()?,
            data: b.data.string()?,
        },
        other => Part::Note(format!("[{} block]", other.unwrap_or("untyped"))),
    })
}

/// The blocks of a content field: `None` when it is neither a string nor an array.
fn blocks(content: Field) -> Lean<Option<Vec<Lean<Part>>>> {
    match content.json() {
        Some(j) if j.starts_with('"') => Ok(Some(vec![Ok(Part::Text(content.string()?))])),
        Some(j) if j.starts_with('[') => {
            let raws: Vec<&RawValue> = content.of()?;
            Ok(Some(raws.into_iter().map(block_part).collect()))
        }
        _ => Ok(None),
    }
}

/// `super::content_parts_of`, read lean.
fn content_parts(content: Field) -> Lean<Vec<Part>> {
    let mut parts = Vec::new();
    for p in blocks(content)?.unwrap_or_default() {
        parts.push(p?);
    }
    parts.retain(|p| !matches!(p, Part::Text(t) | Part::Thinking(t) if jsstr::trim(t).is_empty()));
    Ok(parts)
}

/// `super::result_parts_of`, read lean.
fn result_parts(content: Field) -> Lean<(String, Vec<Part>)> {
    if content.json().is_some_and(|j| j.starts_with('"')) {
        return Ok((content.string()?, Vec::new()));
    }
    let mut texts = Vec::new();
    let mut images = Vec::new();
    for p in blocks(content)?.unwrap_or_default() {
        match p? {
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
    let mut s = Section {
        class: Class::Note,
        title: String::new(),
        meta: Vec::new(),
        id: session.id_or_line(idx),
        timestamp: e.timestamp.as_deref().map(str::to_owned),
        parts: Vec::new(),
    };
    match &e.kind {
        EntryKind::Message => {
            if !v.message.is_object() {
                return Err(GiveUp);
            }
            let m: MessageFields = v.message.of()?;
            let role = m.role.str()?.unwrap_or_default();
            match &*role {
                "user" => {
                    s.class = Class::User;
                    s.title = "User".into();
                    s.parts = content_parts(m.content)?;
                }
                "assistant" => {
                    s.class = Class::Assistant;
                    s.title = "Assistant".into();
                    // The response model when the field is there, whatever it holds.
                    let model = if m.response_model.0.is_some() {
                        m.response_model
                    } else {
                        m.model
                    };
                    if let Some(model) = model.str()? {
                        let provider = m.provider.str()?.unwrap_or_default();
                        s.meta.push(if provider.is_empty() {
                            model.into_owned()
                        } else {
                            format!("{provider}/{model}")
                        });
                    }
                    s.parts = content_parts(m.content)?;
                    let reason = m.stop_reason.str()?.unwrap_or_default();
                    if !matches!(&*reason, "" | "stop" | "toolUse") {
                        let msg = m.error_message.str()?.unwrap_or_default();
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
                        name: m.tool_name.string()?,
                        id: m.tool_call_id.string()?,
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
                        command: m.command.string()?,
                        output: m.output.string()?,
                        exit: (m.exit_code.0.is_some() && !exit.is_null()).then(|| exit.to_string()),
                    });
                }
                "system" => {
                    s.class = Class::System;
                    s.title = "System prompt".into();
                    s.parts.push(Part::Folded {
                        title: "System prompt".into(),
                        text: m.content.string()?,
                    });
                }
                "compactionSummary" | "branchSummary" => {
                    s.class = Class::Summary;
                    s.title = if &*role == "branchSummary" {
                        "Branch summary".into()
                    } else {
                        "Compaction summary".into()
                    };
                    s.parts.push(Part::Text(m.summary.string()?));
                }
                other => {
                    s.class = Class::Custom;
                    s.title = match m.custom_type.str()? {
                        Some(t) => t.into_owned(),
                        None if other == "custom" => "Custom message".into(),
                        None => other.to_owned(),
                    };
                    s.parts = content_parts(m.content)?;
                }
            }
        }
        EntryKind::CustomMessage => {
            s.class = Class::Custom;
            s.title = v.custom_type.string()?;
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
                text: v.summary.string()?,
            });
        }
        EntryKind::BranchSummary => {
            s.class = Class::Summary;
            s.title = "Branch summary".into();
            let from = v.from_id.string()?;
            if !from.is_empty() {
                s.meta.push(format!("from {from}"));
            }
            s.parts.push(Part::Folded {
                title: "Summary of the branch left behind".into(),
                text: v.summary.string()?,
            });
        }
        EntryKind::ModelChange => {
            s.title = format!("Model: {}/{}", v.provider.string()?, v.model_id.string()?);
        }
        EntryKind::ThinkingLevelChange => {
            s.title = format!("Thinking level: {}", v.thinking_level.string()?);
        }
        _ => return Err(GiveUp),
    }
    Ok(s)
}
