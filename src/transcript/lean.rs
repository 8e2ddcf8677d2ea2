//! A lean read of an entry for its section, straight from the line's bytes: only the fields
//! a transcript shows are read, texts are borrowed from the line where they need no
//! unescaping (else decoded as their end is found), and everything else is skipped without
//! being built. The line was accepted by `JSON.parse` when the session was loaded, so the
//! walk trusts its structure ([`crate::session::scan::trusted`]); the strings it keeps are
//! still checked as they are decoded.
//!
//! A key written twice counts with its last value, as with `JSON.parse`. Anything this read
//! does not handle exactly as `JSON.parse` would (lone surrogates, invalid UTF-8, what the
//! scanner declines) makes it give up, and the entry is read in full instead
//! ([`super::section`]).

use super::raw::{self, key_name, plain_integer};
use super::tools::ToolView;
use super::{CallArgs, Class, Part, Section};
use crate::session::scan::{self, Bail, Scan, trusted};
use crate::session::text::short_tokens;
use crate::session::{EntryIdx, EntryKind, Session, jsparse, jsstr};
use std::borrow::Cow;

/// A field read as a string: absent, a string (decoded), or another value.
#[derive(Debug, Clone, Default)]
enum Field<'a> {
    #[default]
    Absent,
    Str(Cow<'a, str>),
    Other,
}

impl<'a> Field<'a> {
    /// The string (`as_str`): `None` when absent or another value.
    fn str(self) -> Option<Cow<'a, str>> {
        match self {
            Field::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The string, or empty.
    fn or_empty(self) -> Cow<'a, str> {
        self.str().unwrap_or_default()
    }
}

/// Reads the value at `p` of `line` as a [`Field`]; returns it and the position after it.
fn field_at(line: &[u8], p: usize) -> Scan<(Field<'_>, usize)> {
    if line.get(p) == Some(&b'"') {
        let (s, end) = raw::string(line, p)?;
        Ok((Field::Str(s), end))
    } else {
        Ok((Field::Other, trusted::skip(line, p)?))
    }
}

/// The JSON text of the value at `p` of `line`, and the position after it. Checked as
/// UTF-8: it is handed on as text.
fn raw_at(line: &[u8], p: usize) -> Scan<(Option<&str>, usize)> {
    let end = trusted::skip(line, p)?;
    Ok((Some(scan::utf8(line.get(p..end).ok_or(Bail)?)?), end))
}

/// A content field: a string, blocks, or anything else (no content).
#[derive(Debug, Default)]
enum Content<'a> {
    #[default]
    None,
    Text(Cow<'a, str>),
    /// Each element: an object's fields, or `None` for anything else.
    Blocks(Vec<Option<BlockFields<'a>>>),
}

#[derive(Debug, Default)]
struct BlockFields<'a> {
    kind: Field<'a>,
    text: Field<'a>,
    thinking: Field<'a>,
    id: Field<'a>,
    name: Field<'a>,
    /// As JSON text.
    arguments: Option<&'a str>,
    mime_type: Field<'a>,
    data: Field<'a>,
}

#[derive(Debug, Default)]
struct MessageFields<'a> {
    role: Field<'a>,
    content: Content<'a>,
    response_model: Field<'a>,
    model: Field<'a>,
    provider: Field<'a>,
    stop_reason: Field<'a>,
    error_message: Field<'a>,
    tool_name: Field<'a>,
    tool_call_id: Field<'a>,
    /// As JSON text.
    is_error: Option<&'a str>,
    command: Field<'a>,
    output: Field<'a>,
    /// As JSON text.
    exit_code: Option<&'a str>,
    custom_type: Field<'a>,
    summary: Field<'a>,
}

#[derive(Debug, Default)]
struct EntryFields<'a> {
    /// The fields of `message` (none when it is absent or not an object).
    message: MessageFields<'a>,
    custom_type: Field<'a>,
    content: Content<'a>,
    /// As JSON text.
    tokens_before: Option<&'a str>,
    summary: Field<'a>,
    from_id: Field<'a>,
    provider: Field<'a>,
    model_id: Field<'a>,
    thinking_level: Field<'a>,
}

/// Walks the object at `p` of `line`, handing each field's name and value position to
/// `field`. A key written twice is handed over twice: the last value read is the one kept.
fn object(line: &[u8], p: usize, mut field: impl FnMut(&[u8], usize) -> Scan<usize>) -> Scan<usize> {
    trusted::object(line, p, |key, _, p| field(&key_name(key), p))
}

fn block_at(line: &[u8], p: usize) -> Scan<(Option<BlockFields<'_>>, usize)> {
    if line.get(p) != Some(&b'{') {
        return Ok((None, trusted::skip(line, p)?));
    }
    let mut f = BlockFields::default();
    let end = object(line, p, |key, p| {
        let slot = match key {
            b"type" => &mut f.kind,
            b"text" => &mut f.text,
            b"thinking" => &mut f.thinking,
            b"id" => &mut f.id,
            b"name" => &mut f.name,
            b"mimeType" => &mut f.mime_type,
            b"data" => &mut f.data,
            b"arguments" => {
                let (raw, end) = raw_at(line, p)?;
                f.arguments = raw;
                return Ok(end);
            }
            _ => return trusted::skip(line, p),
        };
        let (v, end) = field_at(line, p)?;
        *slot = v;
        Ok(end)
    })?;
    Ok((Some(f), end))
}

fn content_at(line: &[u8], p: usize) -> Scan<(Content<'_>, usize)> {
    match line.get(p) {
        Some(b'"') => {
            let (s, end) = raw::string(line, p)?;
            Ok((Content::Text(s), end))
        }
        Some(b'[') => {
            let mut blocks = Vec::new();
            let end = trusted::array(line, p, |_, p| {
                let (block, end) = block_at(line, p)?;
                blocks.push(block);
                Ok(end)
            })?;
            Ok((Content::Blocks(blocks), end))
        }
        _ => Ok((Content::None, trusted::skip(line, p)?)),
    }
}

/// The fields of the message object at `p`. `usage` is where the loader found the value of
/// the line's last `usage` key (offset and length): nothing shown is in it, and it is stepped
/// over instead of walked, number by number.
fn message_at(line: &[u8], p: usize, usage: Option<(u32, u32)>) -> Scan<(MessageFields<'_>, usize)> {
    let mut m = MessageFields::default();
    if line.get(p) != Some(&b'{') {
        return Ok((m, trusted::skip(line, p)?));
    }
    let end = object(line, p, |key, p| {
        let slot = match key {
            b"content" => {
                let (c, end) = content_at(line, p)?;
                m.content = c;
                return Ok(end);
            }
            b"isError" | b"exitCode" => {
                let (raw, end) = raw_at(line, p)?;
                *(if key == b"isError" {
                    &mut m.is_error
                } else {
                    &mut m.exit_code
                }) = raw;
                return Ok(end);
            }
            b"usage" => {
                return match usage {
                    Some((at, len)) if at as usize == p => Ok(p + len as usize),
                    _ => trusted::skip(line, p),
                };
            }
            b"role" => &mut m.role,
            b"responseModel" => &mut m.response_model,
            b"model" => &mut m.model,
            b"provider" => &mut m.provider,
            b"stopReason" => &mut m.stop_reason,
            b"errorMessage" => &mut m.error_message,
            b"toolName" => &mut m.tool_name,
            b"toolCallId" => &mut m.tool_call_id,
            b"command" => &mut m.command,
            b"output" => &mut m.output,
            b"customType" => &mut m.custom_type,
            b"summary" => &mut m.summary,
            _ => return trusted::skip(line, p),
        };
        let (v, end) = field_at(line, p)?;
        *slot = v;
        Ok(end)
    })?;
    Ok((m, end))
}

/// The fields of an entry of kind `kind` that its section shows.
fn entry_fields<'a>(line: &'a [u8], kind: &EntryKind, usage: Option<(u32, u32)>) -> Scan<EntryFields<'a>> {
    let mut v = EntryFields::default();
    let end = object(line, 0, |key, p| {
        let slot = match (kind, key) {
            (EntryKind::Message, b"message") => {
                let (m, end) = message_at(line, p, usage)?;
                v.message = m;
                return Ok(end);
            }
            (EntryKind::CustomMessage, b"content") => {
                let (c, end) = content_at(line, p)?;
                v.content = c;
                return Ok(end);
            }
            (EntryKind::Compaction, b"tokensBefore") => {
                let (raw, end) = raw_at(line, p)?;
                v.tokens_before = raw;
                return Ok(end);
            }
            (EntryKind::CustomMessage, b"customType") => &mut v.custom_type,
            (EntryKind::Compaction | EntryKind::BranchSummary, b"summary") => &mut v.summary,
            (EntryKind::BranchSummary, b"fromId") => &mut v.from_id,
            (EntryKind::ModelChange, b"provider") => &mut v.provider,
            (EntryKind::ModelChange, b"modelId") => &mut v.model_id,
            (EntryKind::ThinkingLevelChange, b"thinkingLevel") => &mut v.thinking_level,
            _ => return trusted::skip(line, p),
        };
        let (f, end) = field_at(line, p)?;
        *slot = f;
        Ok(end)
    })?;
    if !scan::at_end(line, end) {
        return Err(Bail);
    }
    Ok(v)
}

/// One element of a content array as a part (see `super::block_part`).
fn block_part(b: Option<BlockFields<'_>>) -> Scan<Part<'_>> {
    let Some(b) = b else {
        return Ok(Part::Note("[untyped block]".into()));
    };
    Ok(match b.kind.str().as_deref() {
        Some("text") => Part::Text(b.text.or_empty()),
        Some("thinking") => Part::Thinking(b.thinking.or_empty()),
        Some("toolCall") => {
            let name = b.name.or_empty();
            // A built-in tool's call is shown as what it does: its arguments are read for
            // that, and printed as JSON only when they are not what the tool takes.
            let view = b
                .arguments
                .and_then(|raw| Some((ToolView::of_json(&name, raw)?, raw)))
                .filter(|(v, _)| !matches!(v, ToolView::Other));
            Part::ToolCall {
                id: b.id.or_empty(),
                args: match view {
                    Some((view, raw)) => CallArgs::View(Box::new(view), raw),
                    None => CallArgs::Json(pretty(b.arguments)?.into()),
                },
                name,
            }
        }
        Some("image") => Part::Image {
            mime: b.mime_type.or_empty(),
            data: b.data.or_empty(),
        },
        other => Part::Note(format!("[{} block]", other.unwrap_or("untyped")).into()),
    })
}

/// `super::content_parts_of`, read lean.
fn content_parts(content: Content<'_>) -> Scan<Vec<Part<'_>>> {
    let mut parts = match content {
        Content::None => Vec::new(),
        Content::Text(t) => vec![Part::Text(t)],
        Content::Blocks(blocks) => blocks.into_iter().map(block_part).collect::<Scan<_>>()?,
    };
    parts.retain(|p| !matches!(p, Part::Text(t) | Part::Thinking(t) if jsstr::trim(t).is_empty()));
    Ok(parts)
}

/// `super::result_parts_of`, read lean.
fn result_parts(content: Content<'_>) -> Scan<(Cow<'_, str>, Vec<Part<'_>>)> {
    let blocks = match content {
        Content::None => return Ok((Cow::Borrowed(""), Vec::new())),
        Content::Text(t) => return Ok((t, Vec::new())),
        Content::Blocks(blocks) => blocks,
    };
    let mut texts = Vec::new();
    let mut images = Vec::new();
    for b in blocks {
        match block_part(b)? {
            Part::Text(t) => texts.push(t),
            p @ Part::Image { .. } => images.push(p),
            _ => {}
        }
    }
    let text = if texts.len() == 1 {
        texts.pop().unwrap_or_default()
    } else {
        Cow::Owned(texts.join("\n"))
    };
    Ok((text, images))
}

/// A tool call's arguments (JSON text, or absent) as `serde_json::to_string_pretty` prints
/// them once `JSON.parse` has read them.
pub(super) fn pretty(raw: Option<&str>) -> Scan<String> {
    let Some(raw) = raw else {
        return Ok("null".into());
    };
    if let Some(p) = raw::pretty(raw) {
        return Ok(p);
    }
    let v = jsparse::parse(raw.as_bytes()).map_err(|_| Bail)?;
    Ok(serde_json::to_string_pretty(&v).unwrap_or_default())
}

/// An exit code (JSON text, or absent) as `Value::to_string` writes it; `None` when absent
/// or `null`.
fn exit_code(raw: Option<&str>) -> Scan<Option<String>> {
    match raw {
        None | Some("null") => Ok(None),
        Some(raw) if plain_integer(raw.as_bytes()) => Ok(Some(raw.to_owned())),
        Some(raw) => {
            let v = jsparse::parse(raw.as_bytes()).map_err(|_| Bail)?;
            Ok((!v.is_null()).then(|| v.to_string()))
        }
    }
}

/// The section of one entry read lean; `Err` when the entry must be read in full. Only for
/// entries of a format-3 file whose kind a transcript shows.
pub(super) fn section(session: &Session, idx: EntryIdx) -> Result<Section<'_>, Bail> {
    let e = &session.entries[idx];
    // Not checked as UTF-8 as a whole: the strings kept are (see `raw`).
    let v = entry_fields(session.raw(idx), &e.kind, e.message_at().and_then(|at| at.usage))?;
    let mut s = Section::blank(session, idx);
    match &e.kind {
        EntryKind::Message => {
            let m = v.message;
            let role = m.role.or_empty();
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
                    let model = match m.response_model {
                        Field::Absent => m.model,
                        f => f,
                    };
                    if let Some(model) = model.str() {
                        let provider = m.provider.or_empty();
                        s.meta.push(if provider.is_empty() {
                            model
                        } else {
                            Cow::Owned([&*provider, "/", &*model].concat())
                        });
                    }
                    s.parts = content_parts(m.content)?;
                    s.parts
                        .extend(super::stop_note(&m.stop_reason.or_empty(), &m.error_message.or_empty()));
                }
                "toolResult" => {
                    s.class = Class::Tool;
                    s.title = "Tool result".into();
                    let (text, images) = result_parts(m.content)?;
                    s.parts.push(Part::ToolResult {
                        name: m.tool_name.or_empty(),
                        id: m.tool_call_id.or_empty(),
                        error: m.is_error == Some("true"),
                        text,
                    });
                    s.parts.extend(images);
                }
                "bashExecution" => {
                    s.class = Class::Bash;
                    s.title = "Bash".into();
                    s.parts.push(Part::Bash {
                        command: m.command.or_empty(),
                        output: m.output.or_empty(),
                        exit: exit_code(m.exit_code)?.map(Cow::Owned),
                    });
                }
                "system" => {
                    s.class = Class::System;
                    s.title = "System prompt".into();
                    s.parts.push(Part::Folded {
                        title: "System prompt".into(),
                        text: match m.content {
                            Content::Text(t) => t,
                            _ => Cow::Borrowed(""),
                        },
                    });
                }
                "compactionSummary" | "branchSummary" => {
                    s.class = Class::Summary;
                    s.title = if &*role == "branchSummary" {
                        "Branch summary".into()
                    } else {
                        "Compaction summary".into()
                    };
                    s.parts.push(Part::Text(m.summary.or_empty()));
                }
                _ => {
                    s.class = Class::Custom;
                    s.title = match m.custom_type.str() {
                        Some(t) => t,
                        None if &*role == "custom" => "Custom message".into(),
                        None => role,
                    };
                    s.parts = content_parts(m.content)?;
                }
            }
        }
        EntryKind::CustomMessage => {
            s.class = Class::Custom;
            s.title = v.custom_type.or_empty();
            if s.title.is_empty() {
                s.title = "Custom message".into();
            }
            s.parts = content_parts(v.content)?;
        }
        EntryKind::Compaction => {
            s.class = Class::Summary;
            s.title = "Compaction".into();
            if let Some(raw) = v.tokens_before
                && raw.starts_with(|c: char| c == '-' || c.is_ascii_digit())
            {
                let (t, _) = scan::number(raw.as_bytes(), 0)?;
                s.meta.push(format!("{} tokens before", short_tokens(t)).into());
            }
            s.parts.push(Part::Folded {
                title: "Summary of the earlier conversation".into(),
                text: v.summary.or_empty(),
            });
        }
        EntryKind::BranchSummary => {
            s.class = Class::Summary;
            s.title = "Branch summary".into();
            let from = v.from_id.or_empty();
            if !from.is_empty() {
                s.meta.push(format!("from {from}").into());
            }
            s.parts.push(Part::Folded {
                title: "Summary of the branch left behind".into(),
                text: v.summary.or_empty(),
            });
        }
        EntryKind::ModelChange => {
            s.title = format!("Model: {}/{}", v.provider.or_empty(), v.model_id.or_empty()).into();
        }
        EntryKind::ThinkingLevelChange => {
            s.title = format!("Thinking level: {}", v.thinking_level.or_empty()).into();
        }
        _ => return Err(Bail),
    }
    Ok(s)
}
