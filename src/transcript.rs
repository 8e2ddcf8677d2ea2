//! The transcript of a branch, the model behind `export`: the branch from its root to a
//! revision as sections (one per shown entry), each a title, metadata and parts (text,
//! thinking, tool calls and results, bash runs, images, folded long text, notes).
//!
//! Text is kept as the session holds it; printers escape it for their format and format
//! timestamps for their reader.

use crate::session::text::short_tokens;

pub mod outline;
pub mod tools;
use crate::json::scan::{Bail, Scan};
use crate::json::view::{self, Obj, Val};
use crate::json::{jsparse, jsstr};
use crate::session::content::{Block, Content, texts_joined};
use crate::session::{EntryIdx, EntryKind, Session, SessionError, revision};
use serde_json::Value;
use std::borrow::Cow;
use std::ops::Range;
use tools::ToolView;

/// What to export.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The revision the branch ends at; `None` is `@`.
    pub rev: Option<String>,
}

/// A piece of a section's body. Texts are borrowed from the session where they can be.
#[derive(Debug, Clone, PartialEq)]
pub enum Part<'a> {
    Text(Cow<'a, str>),
    Thinking(Cow<'a, str>),
    ToolCall {
        name: Cow<'a, str>,
        id: Cow<'a, str>,
        args: CallArgs<'a>,
    },
    ToolResult {
        name: Cow<'a, str>,
        id: Cow<'a, str>,
        error: bool,
        text: Cow<'a, str>,
    },
    Bash {
        command: Cow<'a, str>,
        output: Cow<'a, str>,
        /// The exit code as JSON, when there is one.
        exit: Option<Cow<'a, str>>,
    },
    Image {
        mime: Cow<'a, str>,
        data: Cow<'a, str>,
    },
    /// Long text shown folded (system prompts, summaries).
    Folded {
        title: Cow<'a, str>,
        text: Cow<'a, str>,
    },
    Note(Cow<'a, str>),
}

/// A tool call's arguments: as pretty-printed JSON, or, read from the line's text, already understood as
/// the call of a built-in tool (what printers show of it), with their JSON text as written.
/// Two are equal when their JSON is.
#[derive(Debug, Clone)]
pub enum CallArgs<'a> {
    Json(Cow<'a, str>),
    /// Never [`ToolView::Other`].
    View(Box<ToolView<'a>>, &'a str),
}

impl<'a> CallArgs<'a> {
    /// The arguments as `serde_json::to_string_pretty` prints them once `JSON.parse` has
    /// read them.
    pub fn json(&self) -> Cow<'_, str> {
        match self {
            CallArgs::Json(j) => Cow::Borrowed(j),
            // The text was accepted by JSON.parse when the session was loaded.
            CallArgs::View(_, raw) => {
                Cow::Owned(jsparse::parse(raw.as_bytes()).map_or_else(|_| String::new(), |v| pretty(&v)))
            }
        }
    }

    /// What a call of tool `name` with these arguments does.
    pub fn view(&self, name: &str) -> Cow<'_, ToolView<'a>> {
        match self {
            CallArgs::Json(j) => Cow::Owned(ToolView::of(name, j)),
            CallArgs::View(v, _) => Cow::Borrowed(v),
        }
    }
}

impl PartialEq for CallArgs<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.json() == other.json()
    }
}

/// What kind of section: how a printer styles it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Class {
    User,
    Assistant,
    Tool,
    Bash,
    Custom,
    System,
    Summary,
    /// A one-line record (model and thinking-level changes).
    Note,
}

impl Class {
    /// The lower-case name (the HTML export's CSS class).
    pub fn as_str(self) -> &'static str {
        match self {
            Class::User => "user",
            Class::Assistant => "assistant",
            Class::Tool => "tool",
            Class::Bash => "bash",
            Class::Custom => "custom",
            Class::System => "system",
            Class::Summary => "summary",
            Class::Note => "note",
        }
    }
}

/// One entry of the transcript.
#[derive(Debug, Clone, PartialEq)]
pub struct Section<'a> {
    pub class: Class,
    pub title: Cow<'a, str>,
    pub meta: Vec<Cow<'a, str>>,
    /// The entry's id, or `(line N)`.
    pub id: Cow<'a, str>,
    /// The entry's `timestamp` as stored.
    pub timestamp: Option<&'a str>,
    /// The label the session gives the entry, if any.
    pub label: Option<&'a str>,
    pub parts: Vec<Part<'a>>,
}

impl Section<'_> {
    /// The section of entry `idx` before its kind fills it in: its id and time, nothing else.
    fn blank(session: &Session, idx: EntryIdx) -> Section<'_> {
        Section {
            class: Class::Note,
            title: Cow::Borrowed(""),
            meta: Vec::new(),
            id: match session.id_str(idx) {
                Some(id) => Cow::Borrowed(id),
                None => Cow::Owned(session.id_or_line(idx)),
            },
            timestamp: session.entries[idx].timestamp.as_deref(),
            label: session.label_of(idx),
            parts: Vec::new(),
        }
    }
}

/// The branch a transcript covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Span {
    pub first: String,
    pub last: String,
    pub entries: usize,
}

/// The transcript of one branch; its texts may borrow from the session.
#[derive(Debug, Clone)]
pub struct Transcript<'a> {
    /// The session name, else the first line of the first user text (80 characters at
    /// most), else `Pi session ID`.
    pub title: String,
    pub session_id: String,
    pub cwd: Option<String>,
    /// The header's `timestamp` as stored.
    pub created: Option<String>,
    /// `None` for an empty branch.
    pub branch: Option<Span>,
    /// Set when the branch walk met a parent cycle: the entry that closes it.
    pub cycle_at: Option<EntryIdx>,
    pub sections: Vec<Section<'a>>,
}

/// The transcript of the branch ending at `options.rev` (default `@`).
pub fn build<'a>(session: &'a Session, options: &Options) -> Result<Transcript<'a>, SessionError> {
    Ok(of_plan(session, plan(session, options)?))
}

/// The transcript of the branch ending at `tip` (`None`: an empty branch).
pub fn of_branch(session: &Session, tip: Option<EntryIdx>) -> Transcript<'_> {
    of_plan(session, plan_branch(session, tip))
}

/// A plan's transcript, every section built and held.
fn of_plan(session: &Session, plan: Plan) -> Transcript<'_> {
    let sections = plan.path.iter().filter_map(|&i| section(session, i)).collect();
    let Head {
        title,
        session_id,
        cwd,
        created,
        branch,
        cycle_at,
    } = plan.head;
    Transcript {
        title,
        session_id,
        cwd,
        created,
        branch,
        cycle_at,
        sections,
    }
}

/// What a transcript says before its sections: the [`Transcript`] fields but `sections`.
#[derive(Debug, Clone)]
pub struct Head {
    pub title: String,
    pub session_id: String,
    pub cwd: Option<String>,
    pub created: Option<String>,
    pub branch: Option<Span>,
    pub cycle_at: Option<EntryIdx>,
}

/// A transcript to be written piece by piece: its head, and the branch whose entries become
/// its sections ([`section`] of each, in order). Nothing of the entries is held.
#[derive(Debug, Clone)]
pub struct Plan {
    pub head: Head,
    /// The branch, root first.
    pub path: Vec<EntryIdx>,
    /// Which tool results of the branch answer which calls.
    pub pairing: Pairing,
}

/// Tool results paired with the calls they answer, so that a printer can show each result
/// under its call. A result pairs with a call of the nearest assistant message before it
/// when only tool results and entries a transcript does not show come between them (as Pi
/// writes them) and the call's id is the result's `toolCallId`; any other result stays a
/// section of its own.
#[derive(Debug, Clone, Default)]
pub struct Pairing {
    /// By position on the path: where the positions of its results are in `results`
    /// (empty for all but assistant messages with calls). Looked up once per entry of a
    /// long branch: indexed, not hashed.
    result_spans: Vec<(u32, u32)>,
    results: Vec<usize>,
    /// By position on the path: whether it is a result shown under its call.
    attached: Vec<bool>,
}

impl Pairing {
    /// The pairing of the results on `path` with its calls.
    pub fn of(session: &Session, path: &[EntryIdx]) -> Pairing {
        use crate::session::{Detail, Tools};
        let tools = |i: EntryIdx| match &session.entries[i].detail {
            Detail::Message { tools, .. } => Some(tools),
            _ => None,
        };
        let mut pairing = Pairing {
            result_spans: vec![(0, 0); path.len()],
            results: Vec::new(),
            attached: vec![false; path.len()],
        };
        let mut k = 0;
        while k < path.len() {
            let Some(Tools::Calls(calls)) = tools(path[k]) else {
                k += 1;
                continue;
            };
            let mut open: Vec<&str> = calls.ids.iter().map(|c| &**c).collect();
            let start = pairing.results.len();
            let mut j = k + 1;
            while j < path.len() && !open.is_empty() {
                match tools(path[j]) {
                    Some(Tools::ResultOf(id)) => {
                        if let Some(c) = open.iter().position(|c| *c == &**id) {
                            open.swap_remove(c);
                            pairing.results.push(j);
                            pairing.attached[j] = true;
                        }
                    }
                    Some(Tools::Calls(_)) => break,
                    // Other messages end the run; entries without a section do not.
                    _ if section_kind(session, path[j]) => break,
                    _ => {}
                }
                j += 1;
            }
            // Positions fit in u32: every entry is a line, and line numbers are u32.
            pairing.result_spans[k] = (start as u32, pairing.results.len() as u32);
            k += 1;
        }
        pairing
    }

    /// Positions of the results answering the calls of the entry at `pos`, in path order.
    pub fn results_of(&self, pos: usize) -> &[usize] {
        match self.result_spans.get(pos) {
            Some(&(from, to)) => &self.results[from as usize..to as usize],
            None => &[],
        }
    }

    /// Whether the result at `pos` is shown under its call rather than on its own.
    pub fn is_attached(&self, pos: usize) -> bool {
        self.attached.get(pos).copied().unwrap_or(false)
    }
}

/// The plan of the transcript of the branch ending at `options.rev` (default `@`).
pub fn plan(session: &Session, options: &Options) -> Result<Plan, SessionError> {
    let tip = match &options.rev {
        Some(rev) => revision::resolve(session, rev)?,
        None => session.at(),
    };
    Ok(plan_branch(session, tip))
}

/// The plan of the transcript of the branch ending at `tip` (`None`: an empty branch).
pub fn plan_branch(session: &Session, tip: Option<EntryIdx>) -> Plan {
    let (path, cycle_at) = match tip {
        Some(t) => {
            let b = session.branch(t);
            (b.path, b.cycle_at)
        }
        None => (Vec::new(), None),
    };
    let title = match session.name() {
        Some(n) => n.to_owned(),
        None => match first_user_line(session, &path) {
            Some(u) if !u.is_empty() => {
                let cut: String = u.chars().take(80).collect();
                if cut.len() < u.len() { format!("{cut}…") } else { cut }
            }
            _ => format!("Pi session {}", session.header.id),
        },
    };
    let h = &session.header;
    let branch = match (path.first(), path.last()) {
        (Some(first), Some(last)) => Some(Span {
            first: session.id_or_line(*first),
            last: session.id_or_line(*last),
            entries: path.len(),
        }),
        _ => None,
    };
    Plan {
        head: Head {
            title,
            session_id: h.id.clone(),
            cwd: h.cwd.clone(),
            created: h.timestamp.clone(),
            branch,
            cycle_at,
        },
        pairing: Pairing::of(session, &path),
        path,
    }
}

/// The first line of the first text of the first user section that has one (trimmed as
/// JavaScript trims). Only user messages are parsed, up to the first with text.
fn first_user_line(session: &Session, path: &[EntryIdx]) -> Option<String> {
    path.iter()
        .filter(|&&i| {
            let e = &session.entries[i];
            e.kind == EntryKind::Message && e.role().is_none_or(|r| *r == crate::session::Role::User)
        })
        .filter_map(|&i| section(session, i))
        .filter(|s| s.class == Class::User)
        .find_map(|s| {
            s.parts.iter().find_map(|p| match p {
                Part::Text(t) => Some(jsstr::trim(t).lines().next().unwrap_or("").to_owned()),
                _ => None,
            })
        })
}

/// `path` cut into consecutive pieces of at least `chunk_bytes` bytes of session lines each
/// (the last may be smaller; every piece has an entry): the units a transcript is rendered in.
pub fn chunks(session: &Session, path: &[EntryIdx], chunk_bytes: usize) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut from = 0;
    let mut bytes = 0usize;
    for (k, &i) in path.iter().enumerate() {
        let e = &session.entries[i];
        bytes += (e.end - e.start) as usize + 1;
        if bytes >= chunk_bytes {
            out.push(from..k + 1);
            from = k + 1;
            bytes = 0;
        }
    }
    if from < path.len() {
        out.push(from..path.len());
    }
    out
}

/// Renders pieces `0..n` with `render` on every core and hands each one's text to `write`
/// in order, as soon as those before it are written. Only a few pieces are held at once:
/// a piece is started only when fewer than two per thread are waiting to be written. The
/// first error of `write` stops the work and is returned.
pub fn render_in_order<E>(
    n: usize,
    render: impl Fn(usize, &mut String) + Sync,
    mut write: impl FnMut(&str) -> Result<(), E>,
) -> Result<(), E> {
    crate::parallel::map_in_order(
        n,
        |k, spare: Option<String>| {
            let mut buf = spare.unwrap_or_default();
            buf.clear();
            render(k, &mut buf);
            buf
        },
        |text| write(&text).map(|()| Some(text)),
    )
}

/// Content blocks (or a string) as parts; blank text and thinking left out.
pub fn content_parts(content: Option<&Value>) -> Vec<Part<'static>> {
    // Over a parsed value the view never declines.
    content_parts_of(content.map(Val::of_value)).unwrap_or_default()
}

/// A tool call's arguments (their JSON text) as `serde_json::to_string_pretty` prints them
/// once `JSON.parse` has read them.
fn pretty(args: &Value) -> String {
    serde_json::to_string_pretty(args).unwrap_or_default()
}

/// A tool call's arguments. Read from the line's text, a built-in tool's call is kept as
/// what it does (printers show that), with the text; otherwise they are printed as JSON.
fn call_args<'a>(name: &str, args: Option<Val<'a, '_>>) -> Scan<CallArgs<'a>> {
    let Some(args) = args else {
        return Ok(CallArgs::Json("null".into()));
    };
    if let Some(text) = args.text()?
        && let Some(view) = ToolView::of_json(name, text)
        && !matches!(view, ToolView::Other)
    {
        return Ok(CallArgs::View(Box::new(view), text));
    }
    Ok(CallArgs::Json(pretty(&*args.to_value()?).into()))
}

/// One element of a content array as a part.
fn block_part<'a>(b: Val<'a, '_>) -> Scan<Part<'a>> {
    Ok(match Block::of(b)? {
        Block::Text { text } => Part::Text(text.unwrap_or_default()),
        Block::Thinking { thinking } => Part::Thinking(thinking.unwrap_or_default()),
        Block::ToolCall { id, name, arguments } => {
            let name = name.unwrap_or_default();
            Part::ToolCall {
                id: id.unwrap_or_default(),
                args: call_args(&name, arguments)?,
                name,
            }
        }
        Block::Image { mime_type, data } => Part::Image {
            mime: mime_type.unwrap_or_default(),
            data: data.unwrap_or_default(),
        },
        Block::Other { kind } => Part::Note(format!("[{} block]", kind.as_deref().unwrap_or("untyped")).into()),
    })
}

/// The note of an assistant message that did not end as usual: its stop reason, and its
/// error message when it has one.
fn stop_note<'a>(reason: &str, message: &str) -> Option<Part<'a>> {
    if matches!(reason, "" | "stop" | "toolUse") {
        return None;
    }
    Some(Part::Note(
        if message.is_empty() {
            format!("({reason})")
        } else {
            format!("({reason}: {message})")
        }
        .into(),
    ))
}

/// [`content_parts`] of a content value.
fn content_parts_of<'a>(content: Option<Val<'a, '_>>) -> Scan<Vec<Part<'a>>> {
    let mut parts = match Content::of(content)? {
        Content::None => Vec::new(),
        Content::Text(t) => vec![Part::Text(t)],
        Content::Blocks(blocks) => blocks.into_iter().map(block_part).collect::<Scan<_>>()?,
    };
    parts.retain(|p| !matches!(p, Part::Text(t) | Part::Thinking(t) if jsstr::trim(t).is_empty()));
    Ok(parts)
}

/// A tool result's content: its text (pi-ai's `contentText`, joined by `\n`) and its images.
fn result_parts_of<'a>(content: Option<Val<'a, '_>>) -> Scan<(Cow<'a, str>, Vec<Part<'a>>)> {
    let blocks = Content::of(content)?.blocks()?;
    let images = blocks
        .iter()
        .filter_map(|b| match b {
            Block::Image { mime_type, data } => Some(Part::Image {
                mime: mime_type.clone().unwrap_or_default(),
                data: data.clone().unwrap_or_default(),
            }),
            _ => None,
        })
        .collect();
    Ok((texts_joined(blocks, "\n"), images))
}

/// The section of one entry; `None` for entries a transcript leaves out.
pub fn section(session: &Session, idx: EntryIdx) -> Option<Section<'_>> {
    if !section_kind(session, idx) {
        return None;
    }
    // A file of an older format is read as Pi migrates it, from the parsed value.
    let line = (session.header.format() >= 3).then(|| session.raw(idx));
    view::read(line, || session.value(idx), |v| section_of(session, idx, &v))
}

/// Whether entry `idx` is of a kind a transcript shows.
fn section_kind(session: &Session, idx: EntryIdx) -> bool {
    matches!(
        session.entries[idx].kind,
        EntryKind::Message
            | EntryKind::CustomMessage
            | EntryKind::Compaction
            | EntryKind::BranchSummary
            | EntryKind::ModelChange
            | EntryKind::ThinkingLevelChange
    )
}

/// [`section`] of the entry `v` (entry `idx`).
fn section_of<'a>(session: &'a Session, idx: EntryIdx, v: &Obj<'a, '_>) -> Scan<Section<'a>> {
    let e = &session.entries[idx];
    let mut s = Section::blank(session, idx);
    match &e.kind {
        EntryKind::Message => {
            let m = v.obj("message")?.unwrap_or_else(Obj::empty);
            let role = m.str_or_empty("role")?;
            match &*role {
                "user" => {
                    s.class = Class::User;
                    s.title = "User".into();
                    s.parts = content_parts_of(m.get("content")?)?;
                }
                "assistant" => {
                    s.class = Class::Assistant;
                    s.title = "Assistant".into();
                    // The response model when the field is there, whatever it holds.
                    let model = match m.get("responseModel")? {
                        Some(r) => r.str()?,
                        None => m.str("model")?,
                    };
                    if let Some(model) = model {
                        let provider = m.str_or_empty("provider")?;
                        s.meta.push(if provider.is_empty() {
                            model
                        } else {
                            Cow::Owned([&*provider, "/", &*model].concat())
                        });
                    }
                    s.parts = content_parts_of(m.get("content")?)?;
                    s.parts.extend(stop_note(
                        &m.str_or_empty("stopReason")?,
                        &m.str_or_empty("errorMessage")?,
                    ));
                }
                "toolResult" => {
                    s.class = Class::Tool;
                    s.title = "Tool result".into();
                    let (text, images) = result_parts_of(m.get("content")?)?;
                    s.parts.push(Part::ToolResult {
                        name: m.str_or_empty("toolName")?,
                        id: m.str_or_empty("toolCallId")?,
                        error: m.bool("isError")? == Some(true),
                        text,
                    });
                    s.parts.extend(images);
                }
                "bashExecution" => {
                    s.class = Class::Bash;
                    s.title = "Bash".into();
                    let exit = match m.get("exitCode")? {
                        Some(c) if !c.is_null() => Some(Cow::Owned(c.to_value()?.to_string())),
                        _ => None,
                    };
                    s.parts.push(Part::Bash {
                        command: m.str_or_empty("command")?,
                        output: m.str_or_empty("output")?,
                        exit,
                    });
                }
                "system" => {
                    s.class = Class::System;
                    s.title = "System prompt".into();
                    s.parts.push(Part::Folded {
                        title: "System prompt".into(),
                        text: m.str_or_empty("content")?,
                    });
                }
                "compactionSummary" | "branchSummary" => {
                    s.class = Class::Summary;
                    s.title = if &*role == "branchSummary" {
                        "Branch summary".into()
                    } else {
                        "Compaction summary".into()
                    };
                    s.parts.push(Part::Text(m.str_or_empty("summary")?));
                }
                _ => {
                    s.class = Class::Custom;
                    s.title = match m.str("customType")? {
                        Some(t) => t,
                        None if &*role == "custom" => "Custom message".into(),
                        None => role,
                    };
                    s.parts = content_parts_of(m.get("content")?)?;
                }
            }
        }
        EntryKind::CustomMessage => {
            s.class = Class::Custom;
            s.title = v.str_or_empty("customType")?;
            if s.title.is_empty() {
                s.title = "Custom message".into();
            }
            s.parts = content_parts_of(v.get("content")?)?;
        }
        EntryKind::Compaction => {
            s.class = Class::Summary;
            s.title = "Compaction".into();
            if let Some(t) = v.num("tokensBefore")? {
                s.meta.push(format!("{} tokens before", short_tokens(t)).into());
            }
            s.parts.push(Part::Folded {
                title: "Summary of the earlier conversation".into(),
                text: v.str_or_empty("summary")?,
            });
        }
        EntryKind::BranchSummary => {
            s.class = Class::Summary;
            s.title = "Branch summary".into();
            let from = v.str_or_empty("fromId")?;
            if !from.is_empty() {
                s.meta.push(format!("from {from}").into());
            }
            s.parts.push(Part::Folded {
                title: "Summary of the branch left behind".into(),
                text: v.str_or_empty("summary")?,
            });
        }
        EntryKind::ModelChange => {
            s.title = format!("Model: {}/{}", v.str_or_empty("provider")?, v.str_or_empty("modelId")?).into();
        }
        EntryKind::ThinkingLevelChange => {
            s.title = format!("Thinking level: {}", v.str_or_empty("thinkingLevel")?).into();
        }
        _ => return Err(Bail),
    }
    Ok(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;
    use std::path::PathBuf;

    fn session(lines: &[&str]) -> Session {
        let mut data = String::from(
            r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#,
        );
        data.push('\n');
        for l in lines {
            data.push_str(l);
            data.push('\n');
        }
        Session::from_bytes(PathBuf::from("/t.jsonl"), data.into_bytes()).unwrap()
    }

    #[test]
    fn parts_of_content() {
        let v = json!([
            {"type": "text", "text": " \n"},
            {"type": "thinking", "thinking": "why"},
            {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "a"}},
            {"type": "image", "mimeType": "image/png", "data": "AA=="},
            {"type": "video"},
            7
        ]);
        assert_eq!(
            content_parts(Some(&v)),
            vec![
                Part::Thinking("why".into()),
                Part::ToolCall {
                    name: "read".into(),
                    id: "c1".into(),
                    args: CallArgs::Json("{\n  \"path\": \"a\"\n}".into())
                },
                Part::Image {
                    mime: "image/png".into(),
                    data: "AA==".into()
                },
                Part::Note("[video block]".into()),
                Part::Note("[untyped block]".into()),
            ]
        );
        assert_eq!(content_parts(Some(&json!("hi"))), vec![Part::Text("hi".into())]);
    }

    #[test]
    fn branch_sections_and_title() {
        let s = session(&[
            r#"{"type":"message","id":"u1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"\u00a0 Fix the bug\nplease"}}"#,
            r#"{"type":"model_change","id":"m1","parentId":"u1","timestamp":"t","provider":"p","modelId":"x"}"#,
            r#"{"type":"label","id":"l1","parentId":"m1","timestamp":"t","targetId":"u1","label":"start"}"#,
            r#"{"type":"message","id":"a1","parentId":"l1","timestamp":"t","message":{"role":"assistant","provider":"p","model":"x","stopReason":"error","errorMessage":"boom","content":[{"type":"text","text":"ok"}]}}"#,
            r#"{"type":"message","id":"u2","parentId":"u1","timestamp":"t","message":{"role":"user","content":"other branch"}}"#,
        ]);
        let t = build(&s, &Options { rev: Some("a1".into()) }).unwrap();
        assert_eq!(t.title, "Fix the bug");
        assert_eq!(
            t.branch,
            Some(Span {
                first: "u1".into(),
                last: "a1".into(),
                entries: 4
            })
        );
        let got: Vec<_> = t.sections.iter().map(|s| (s.class, &*s.title)).collect();
        assert_eq!(
            got,
            vec![
                (Class::User, "User"),
                (Class::Note, "Model: p/x"),
                (Class::Assistant, "Assistant")
            ]
        );
        assert_eq!(t.sections[2].meta, vec!["p/x".to_owned()]);
        assert_eq!(t.sections[2].parts.last(), Some(&Part::Note("(error: boom)".into())));
        assert_eq!(t.sections[0].timestamp, Some("2026-01-01T00:00:01.000Z"));

        let t = build(&s, &Options::default()).unwrap();
        assert_eq!(t.title, "Fix the bug");
        assert_eq!(t.branch.map(|b| (b.last, b.entries)), Some(("u2".to_owned(), 2)));
        assert!(
            build(
                &s,
                &Options {
                    rev: Some("nope".into())
                }
            )
            .is_err()
        );
    }

    #[test]
    fn the_session_name_is_the_title() {
        let s = session(&[
            r#"{"type":"message","id":"u1","parentId":null,"timestamp":"t","message":{"role":"user","content":"hello"}}"#,
            r#"{"type":"session_info","id":"i1","parentId":"u1","timestamp":"t","name":"\ufeff My work \u2028"}"#,
        ]);
        assert_eq!(of_branch(&s, s.leaf()).title, "My work");
        let empty = session(&[]);
        let t = of_branch(&empty, None);
        assert_eq!(t.title, "Pi session s1");
        assert_eq!(t.branch, None);
        assert!(t.sections.is_empty());
    }

    #[test]
    fn chunks_cover_the_path_in_order() {
        let lines: Vec<String> = (0..10)
            .map(|k| {
                let parent = if k == 0 { "null".to_owned() } else { format!("\"e{}\"", k - 1) };
                format!(r#"{{"type":"model_change","id":"e{k}","parentId":{parent},"timestamp":"t","provider":"p","modelId":"{}"}}"#, "x".repeat(k * 10))
            })
            .collect();
        let s = session(&lines.iter().map(String::as_str).collect::<Vec<_>>());
        let path = s.branch(s.leaf().unwrap()).path;
        assert_eq!(chunks(&s, &path, 1), (0..10).map(|k| k..k + 1).collect::<Vec<_>>());
        assert_eq!(chunks(&s, &path, usize::MAX), vec![0..10]);
        assert_eq!(chunks(&s, &[], 1), Vec::<Range<usize>>::new());
        let size = |r: &Range<usize>| -> usize {
            path[r.clone()]
                .iter()
                .map(|&i| (s.entries[i].end - s.entries[i].start) as usize + 1)
                .sum()
        };
        let pieces = chunks(&s, &path, 300);
        assert!(pieces.len() > 2);
        assert_eq!(pieces.first().unwrap().start, 0);
        assert_eq!(pieces.last().unwrap().end, 10);
        for w in pieces.windows(2) {
            assert_eq!(w[0].end, w[1].start);
            assert!(size(&w[0]) >= 300);
        }
    }

    #[test]
    fn pieces_are_written_in_order() {
        for n in [0, 1, 2, 3, 17, 200] {
            let mut got = String::new();
            let ok: Result<(), ()> = render_in_order(
                n,
                |k, out| {
                    // Uneven work, so that pieces finish out of order.
                    if k % 7 == 0 {
                        std::thread::sleep(std::time::Duration::from_millis(2));
                    }
                    out.push_str(&format!("{k},"));
                },
                |t| {
                    got.push_str(t);
                    Ok(())
                },
            );
            assert_eq!(ok, Ok(()));
            assert_eq!(got, (0..n).map(|k| format!("{k},")).collect::<String>());
        }
    }

    #[test]
    fn a_failed_write_stops_the_rendering() {
        let rendered = std::sync::atomic::AtomicUsize::new(0);
        let mut written = 0;
        let r = render_in_order(
            10_000,
            |_, out| {
                rendered.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                out.push('x');
            },
            |_| {
                written += 1;
                if written == 5 { Err("full") } else { Ok(()) }
            },
        );
        assert_eq!(r, Err("full"));
        assert_eq!(written, 5);
        // Only a few pieces beyond the failed one were started.
        assert!(rendered.into_inner() < 5 + 64);
    }

    #[test]
    fn tool_result_text_and_images() {
        let image = Part::Image {
            mime: "image/png".into(),
            data: "AA==".into(),
        };
        let contents = [
            (json!("plain"), "plain", vec![]),
            (json!([]), "", vec![]),
            (json!([{"type": "text", "text": "one"}]), "one", vec![]),
            (
                json!([{"type": "text", "text": "a"}, {"type": "text"}, {"type": "text", "text": 5},
                       {"type": "image", "mimeType": "image/png", "data": "AA=="}, {"type": "text", "text": "b\n"}, 3]),
                "a\n\n\nb\n",
                vec![image],
            ),
            (json!({"text": "an object"}), "", vec![]),
            (json!(null), "", vec![]),
        ];
        for (c, want_text, want_images) in contents {
            let (text, images) = result_parts_of(Some(Val::of_value(&c))).unwrap();
            assert_eq!(text, want_text, "{c}");
            assert_eq!(images, want_images, "{c}");
        }
    }

    /// Every section read from the line's bytes is the one read from the parsed value, or
    /// the bytes are declined (and the value is read): returns how many of the sections
    /// shown the bytes gave.
    fn bytes_agree(s: &Session) -> (usize, usize) {
        let (mut from_bytes, mut shown) = (0, 0);
        for i in 0..s.entries.len() {
            let by_value = section_kind(s, i)
                .then(|| view::read(None, || s.value(i), |v| section_of(s, i, &v)))
                .flatten();
            if by_value.is_some() {
                shown += 1;
            }
            if section_kind(s, i)
                && let Ok(by_bytes) = view::Tape::of_line(s.raw(i)).and_then(|t| section_of(s, i, &t.root()))
            {
                from_bytes += 1;
                assert_eq!(Some(by_bytes), by_value, "line {}", s.entries[i].line);
            }
            assert_eq!(section(s, i), by_value, "line {}", s.entries[i].line);
        }
        (from_bytes, shown)
    }

    #[test]
    fn sections_from_the_bytes_are_those_from_the_value() {
        let lines = [
            r#"{"type":"message","id":"a","parentId":null,"timestamp":"t","message":{"role":"assistant","responseModel":null,"model":"m","provider":"p","content":"x"}}"#,
            r#"{"type":"message","id":"b","parentId":"a","timestamp":"t","message":{"role":"assistant","model":"m","provider":7,"stopReason":"length","errorMessage":null,"content":[{"type":"text","text":"a\n\u00e9\"q\""},{"type":"thinking","thinking":null},{"type":"toolCall","id":"c","name":"n","arguments":{"b":[1,2.50,-0,1e2],"a":"\u2028"}},{"type":"toolCall"},5,null,{"type":7},{"kind":"x"},{"type":"audio","data":"x"},{"type":"image","mimeType":"image/png","data":"AA=="}]}}"#,
            r#"{"type":"message","id":"c","parentId":"b","timestamp":"t","message":{"role":"toolResult","toolName":"bash","toolCallId":"c","isError":"true","content":[{"type":"text","text":"one"},{"type":"text","text":"two"},{"type":"text"},{"type":"image","mimeType":"image/gif","data":"R0=="}]}}"#,
            r#"{"type":"message","id":"d","parentId":"c","timestamp":"t","message":{"role":"toolResult","isError":true,"content":{"text":"object"}}}"#,
            r#"{"type":"message","id":"e","parentId":"d","timestamp":"t","message":{"role":"bashExecution","command":"ls","output":"o","exitCode":1.0}}"#,
            r#"{"type":"message","id":"f","parentId":"e","timestamp":"t","message":{"role":"bashExecution","command":"ls","exitCode":null}}"#,
            r#"{"type":"message","id":"g","parentId":"f","timestamp":"t","message":{"role":"bashExecution","command":"ls","output":"x","exitCode":-0}}"#,
            r#"{"type":"message","id":"h","parentId":"g","timestamp":"t","message":{"role":"system","content":["not a string"]}}"#,
            r#"{"type":"message","id":"i","parentId":"h","timestamp":"t","message":{"role":"branchSummary","summary":"s"}}"#,
            r#"{"type":"message","id":"j","parentId":"i","timestamp":"t","message":{"role":"custom","content":"c"}}"#,
            r#"{"type":"message","id":"k","parentId":"j","timestamp":"t","message":{"role":"hook","customType":null,"content":[]}}"#,
            r#"{"type":"message","id":"l","parentId":"k","timestamp":"t","message":{"role":7}}"#,
            r#"{"type":"message","id":"m","parentId":"l","timestamp":"t","message":"text"}"#,
            r#"{"type":"message","id":"n","parentId":"m","timestamp":"t"}"#,
            r#"{"type":"message","id":"o","parentId":"n","timestamp":"t","message":{"role":"user","role":"assistant","content":"dup"}}"#,
            r#"{"type":"message","id":"p","parentId":"o","timestamp":"t","message":{"role":"user","content":[{"type":"text","text":"x","text":"y"}]}}"#,
            r#"{"type":"message","id":"q","parentId":"p","timestamp":"t","message":{"role":"user","content":"lone \ud800 surrogate"}}"#,
            r#"{"type":"message","id":"r","parentId":"q","timestamp":"t","message":{"\u0072ole":"user","content":"escaped key"}}"#,
            r#"{"type":"message","id":"s","parentId":"r","timestamp":"t","message":{"role":"user","content":[{"type":"text","text":"  "},{"type":"text","text":"\u00a0\ufeff"}]}}"#,
            r#"{"type":"custom_message","id":"t","parentId":"s","timestamp":"t","customType":"ext","content":[{"type":"text","text":"hi"}]}"#,
            r#"{"type":"custom_message","id":"u","parentId":"t","timestamp":"t","customType":5}"#,
            r#"{"type":"compaction","id":"v","parentId":"u","timestamp":"t","summary":"so far","tokensBefore":123456789,"firstKeptEntryId":"a"}"#,
            r#"{"type":"compaction","id":"w","parentId":"v","timestamp":"t","summary":null,"tokensBefore":"12"}"#,
            r#"{"type":"branch_summary","id":"x","parentId":"w","timestamp":"t","fromId":"a","summary":"left"}"#,
            r#"{"type":"model_change","id":"y","parentId":"x","timestamp":"t","provider":"p","modelId":null}"#,
            r#"{"type":"thinking_level_change","id":"z","parentId":"y","timestamp":"t","thinkingLevel":"high"}"#,
            r#"{"type":"thinking_level_change","id":"z2","parentId":"z","timestamp":"t","thinkingLevel":"a","thinkingLevel":"b"}"#,
            r#"{"type":"label","id":"z3","parentId":"z2","timestamp":"t","targetId":"a","label":"x"}"#,
            "{\"type\":\"message\",\"id\":\"z4\",\"parentId\":\"z3\",\"timestamp\":\"t\",\"message\":{\"role\":\"user\",\"content\":\"crlf\"}}\r",
        ];
        let s = session(&lines);
        let (from_bytes, shown) = bytes_agree(&s);
        assert_eq!(shown, 28);
        // Duplicates and the lone surrogate are read in full; so is what is not an object.
        assert!(from_bytes >= 22, "{from_bytes} of {shown} read from the bytes");
        let mut with_invalid = lines.map(str::to_owned).to_vec();
        with_invalid.push(r#"{"type":"message","id":"z5","parentId":"z4","timestamp":"t","message":{"role":"user","content":"bad XX"}}"#.into());
        let mut data = br#"{"type":"session","version":3,"id":"s1","timestamp":"t","cwd":"/w"}"#.to_vec();
        for l in &with_invalid {
            data.push(b'\n');
            data.extend_from_slice(
                &l.as_bytes()
                    .iter()
                    .map(|&b| if b == b'X' { 0xff } else { b })
                    .collect::<Vec<_>>(),
            );
        }
        data.push(b'\n');
        let s = Session::from_bytes(PathBuf::from("/t.jsonl"), data).unwrap();
        bytes_agree(&s);
    }

    #[test]
    fn sections_from_the_bytes_are_those_from_the_value_on_the_corpus() {
        let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
        let mut total = (0, 0);
        for f in std::fs::read_dir(dir).unwrap() {
            let path = f.unwrap().path();
            if path.extension().is_some_and(|e| e == "jsonl") {
                let s = Session::open(&path).unwrap();
                let (l, n) = bytes_agree(&s);
                total = (total.0 + l, total.1 + n);
            }
        }
        assert!(total.1 > 100 && total.0 > total.1 / 2, "{total:?}");
    }

    #[test]
    fn a_panicking_piece_is_passed_on_not_waited_for() {
        let r = std::panic::catch_unwind(|| {
            let _: Result<(), ()> = render_in_order(
                200,
                |k, out| {
                    assert!(k != 3, "piece 3 fails");
                    out.push('x');
                },
                |_| Ok(()),
            );
        });
        assert!(r.is_err());
    }

    #[test]
    fn a_panicking_write_is_passed_on_not_waited_for() {
        let r = std::panic::catch_unwind(|| {
            let mut k = 0;
            let _: Result<(), ()> = render_in_order(
                200,
                |_, out| out.push('x'),
                |_| {
                    k += 1;
                    assert!(k != 3, "the third write fails");
                    Ok(())
                },
            );
        });
        assert!(r.is_err());
    }
}
