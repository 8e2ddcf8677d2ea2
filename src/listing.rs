//! Pi 1.6.0's session listing (`SessionManager.list` / `listAll`, what `/resume` shows):
//! [`build_session_info`] reads one file as Pi's `buildSessionInfo` does, [`list`] reads the
//! candidate files of [`Locations`] in parallel and sorts them as Pi's `sortSessionInfos`.
//! [`SessionRecord`] is a listed session as a JSON record (`ls --json`).

use crate::progress::Progress;
use crate::session::jsdate::{date_value_ms, parse_date_ms};
use crate::session::jsjson::js_number;
use crate::session::locate::Locations;
use crate::session::skim::{LineRead, read_line};
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::borrow::Cow;
use std::fmt;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

/// What Pi's `buildSessionInfo` finds in a session file.
#[derive(Debug, Clone)]
pub struct SessionInfo {
    pub path: PathBuf,
    /// The header's `id`, when it is a string.
    pub id: Option<String>,
    /// The latest `session_info` name, trimmed; an empty or missing name clears it.
    pub name: Option<String>,
    /// The text of the first user message that has text.
    pub first_message: Option<String>,
    /// Every `message` entry.
    pub message_count: u64,
    /// `new Date(header.timestamp)` in ms; `None` for an invalid date.
    pub created: Option<i64>,
    /// Last activity, else the header time, else the file's mtime; `None` for an invalid date.
    pub modified: Option<i64>,
    /// The header's `cwd`, or empty.
    pub cwd: String,
    pub parent_session: Option<String>,
    /// The file's modification time in ms, for Pi's pre-sort of `--all`.
    pub mtime: Option<f64>,
}

/// Why a file is left out: Pi's `buildSessionInfo` returns null for it.
struct NotASession;

/// ECMAScript TimeClip: `new Date(ms)` keeps whole milliseconds within ±8.64e15.
fn time_clip(ms: f64) -> Option<i64> {
    (ms.is_finite() && ms.abs() <= 8.64e15).then(|| ms.trunc() as i64)
}

/// `Date.prototype.toISOString` (years outside 0–9999 as ±YYYYYY).
pub fn iso_ms(ms: i64) -> String {
    let days = ms.div_euclid(86_400_000);
    let rem = ms.rem_euclid(86_400_000);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let year = if (0..=9999).contains(&year) {
        format!("{year:04}")
    } else if year < 0 {
        format!("-{:06}", -year)
    } else {
        format!("+{year:06}")
    };
    format!(
        "{year}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3_600_000,
        rem / 60_000 % 60,
        rem / 1000 % 60,
        rem % 1000
    )
}

/// `String(value)` for the values `Array.prototype.join` meets (`null` joins as empty).
fn js_string(v: &Value) -> String {
    match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => js_number(n.as_f64().unwrap_or(f64::NAN)),
        Value::Array(a) => a.iter().map(js_string).collect::<Vec<_>>().join(","),
        Value::Object(_) => "[object Object]".into(),
    }
}

/// A message's `content` as far as Pi's `extractTextContent` cares.
#[derive(Debug, Default)]
enum Content<'a> {
    /// No `content` key: not a message "with content".
    #[default]
    Missing,
    Text(Cow<'a, str>),
    Blocks(Vec<Block>),
    /// `null`, a number, an object…: `content.filter` throws.
    Invalid,
}

#[derive(Debug)]
enum Block {
    /// `block.type` throws.
    Null,
    /// A text block's `text` (`None` when absent).
    Text(Option<Value>),
    Other,
}

impl Content<'_> {
    fn from_value(v: Option<&Value>) -> Content<'static> {
        match v {
            None => Content::Missing,
            Some(Value::String(s)) => Content::Text(Cow::Owned(s.clone())),
            Some(Value::Array(a)) => Content::Blocks(
                a.iter()
                    .map(|b| match b {
                        Value::Null => Block::Null,
                        Value::Object(o) if o.get("type").and_then(Value::as_str) == Some("text") => {
                            Block::Text(o.get("text").cloned())
                        }
                        _ => Block::Other,
                    })
                    .collect(),
            ),
            Some(_) => Content::Invalid,
        }
    }

    /// `extractTextContent`; `Err` where it throws.
    fn text(&self) -> Result<Cow<'_, str>, NotASession> {
        match self {
            Content::Text(s) => Ok(Cow::Borrowed(s)),
            Content::Blocks(blocks) => {
                let mut parts = Vec::new();
                for b in blocks {
                    match b {
                        Block::Null => return Err(NotASession),
                        Block::Text(t) => parts.push(t.as_ref().map(js_string).unwrap_or_default()),
                        Block::Other => {}
                    }
                }
                Ok(Cow::Owned(parts.join(" ")))
            }
            Content::Missing | Content::Invalid => Err(NotASession),
        }
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Content<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<'a>(std::marker::PhantomData<&'a ()>);
        impl<'de: 'a, 'a> Visitor<'de> for V<'a> {
            type Value = Content<'a>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Content::Text(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Content::Text(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Content::Text(Cow::Owned(v)))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
                let mut blocks = Vec::new();
                while let Some(b) = a.next_element::<BlockSkim>()? {
                    blocks.push(b.0);
                }
                Ok(Content::Blocks(blocks))
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
                while a.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
                Ok(Content::Invalid)
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(Content::Invalid)
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Content::Invalid)
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(Content::Invalid)
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(Content::Invalid)
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(Content::Invalid)
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

/// One content block, reading only `type` and a text block's `text`.
struct BlockSkim(Block);

impl<'de> Deserialize<'de> for BlockSkim {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        struct Fields {
            #[serde(rename = "type", default)]
            kind: Option<Value>,
            #[serde(default)]
            text: Option<Value>,
        }
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = BlockSkim;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_map<A: MapAccess<'de>>(self, a: A) -> Result<Self::Value, A::Error> {
                let f = Fields::deserialize(de::value::MapAccessDeserializer::new(a))?;
                Ok(BlockSkim(match f.kind {
                    Some(Value::String(t)) if t == "text" => Block::Text(f.text),
                    _ => Block::Other,
                }))
            }
            fn visit_unit<E: de::Error>(self) -> Result<Self::Value, E> {
                Ok(BlockSkim(Block::Null))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
                while a.next_element::<IgnoredAny>()?.is_some() {}
                Ok(BlockSkim(Block::Other))
            }
            fn visit_bool<E: de::Error>(self, _: bool) -> Result<Self::Value, E> {
                Ok(BlockSkim(Block::Other))
            }
            fn visit_i64<E: de::Error>(self, _: i64) -> Result<Self::Value, E> {
                Ok(BlockSkim(Block::Other))
            }
            fn visit_u64<E: de::Error>(self, _: u64) -> Result<Self::Value, E> {
                Ok(BlockSkim(Block::Other))
            }
            fn visit_f64<E: de::Error>(self, _: f64) -> Result<Self::Value, E> {
                Ok(BlockSkim(Block::Other))
            }
            fn visit_str<E: de::Error>(self, _: &str) -> Result<Self::Value, E> {
                Ok(BlockSkim(Block::Other))
            }
        }
        d.deserialize_any(V)
    }
}

/// The fields of a user or assistant message line that the listing reads.
#[derive(Deserialize)]
struct MessageLine<'a> {
    #[serde(default)]
    timestamp: Option<Value>,
    #[serde(borrow)]
    message: MessageBody<'a>,
}

#[derive(Deserialize)]
struct MessageBody<'a> {
    #[serde(default)]
    timestamp: Option<Value>,
    #[serde(default, borrow)]
    content: Content<'a>,
}

/// The listing's reading of a user or assistant message line by the fast scanner, which
/// declines unusual lines (the derived reader and then the exact parser take those).
mod fast {
    use super::{Block, Content, MessageBody, MessageLine};
    use crate::session::jsparse;
    use crate::session::scan::{self, Bail, Scan};
    use serde_json::Value;
    use std::borrow::Cow;

    fn exact(b: &[u8], p: usize) -> Scan<(Value, usize)> {
        let (raw, end) = scan::raw_value(b, p)?;
        Ok((jsparse::parse(raw).map_err(|_| Bail)?, end))
    }

    /// A `session_info` entry's `name`.
    pub(super) enum Name<'a> {
        Absent,
        Text(Cow<'a, str>),
        /// Not a string (nor null): `name.trim` throws.
        Other,
    }

    /// A message entry's `message`.
    pub(super) enum Message<'a> {
        /// Missing or null: `message.role` throws.
        Absent,
        Object(RoleAndBody<'a>),
        /// Some other value: it has no role.
        Other,
    }

    pub(super) struct RoleAndBody<'a> {
        pub role: Option<Cow<'a, str>>,
        pub body: MessageBody<'a>,
    }

    /// What the listing reads of an entry line.
    pub(super) struct EntryLine<'a> {
        pub kind: Option<Cow<'a, str>>,
        pub name: Name<'a>,
        pub timestamp: Option<Value>,
        pub message: Message<'a>,
    }

    /// An entry line in one pass; `need_text` as for [`message_line`].
    pub(super) fn entry_line(line: &[u8], need_text: bool) -> Scan<EntryLine<'_>> {
        let mut l = EntryLine {
            kind: None,
            name: Name::Absent,
            timestamp: None,
            message: Message::Absent,
        };
        let end = scan::object(line, 0, |key, b, p| {
            if key.escaped {
                return Err(Bail);
            }
            match key.bytes {
                b"type" => scan::lenient_str(b, p).map(|(v, end)| {
                    l.kind = v;
                    end
                }),
                b"name" => {
                    let (v, end) = scan::lenient_str(b, p)?;
                    l.name = match v {
                        Some(t) => Name::Text(t),
                        None if b[p..].starts_with(b"null") => Name::Absent,
                        None => Name::Other,
                    };
                    Ok(end)
                }
                b"timestamp" => exact(b, p).map(|(v, end)| {
                    l.timestamp = Some(v);
                    end
                }),
                b"message" => match b.get(p) {
                    Some(b'{') => {
                        let mut role = None;
                        let (body, end) = body_with(b, p, need_text, |r| role = r)?;
                        l.message = Message::Object(RoleAndBody { role, body });
                        Ok(end)
                    }
                    Some(b'n') => {
                        l.message = Message::Absent;
                        scan::skip(b, p)
                    }
                    _ => {
                        l.message = Message::Other;
                        scan::skip(b, p)
                    }
                },
                _ => scan::skip(b, p),
            }
        })?;
        if !scan::at_end(line, end) {
            return Err(Bail);
        }
        Ok(l)
    }

    /// `need_text`: whether text is read (else text blocks and string content read as empty).
    pub(super) fn message_line(line: &[u8], need_text: bool) -> Scan<MessageLine<'_>> {
        let mut timestamp = None;
        let mut message = None;
        let end = scan::object(line, 0, |key, b, p| {
            if key.escaped {
                return Err(Bail);
            }
            match key.bytes {
                b"timestamp" => exact(b, p).map(|(v, end)| {
                    timestamp = Some(v);
                    end
                }),
                b"message" if b.get(p) == Some(&b'{') => {
                    let (m, end) = body(b, p, need_text)?;
                    message = Some(m);
                    Ok(end)
                }
                // A message that is not an object: the other readers decide.
                b"message" => Err(Bail),
                _ => scan::skip(b, p),
            }
        })?;
        if !scan::at_end(line, end) {
            return Err(Bail);
        }
        Ok(MessageLine {
            timestamp,
            message: message.ok_or(Bail)?,
        })
    }

    fn body(b: &[u8], pos: usize, need_text: bool) -> Scan<(MessageBody<'_>, usize)> {
        body_with(b, pos, need_text, |_| {})
    }

    /// A message object; `role` gets each `role` value met (the last one counts).
    fn body_with<'a>(
        b: &'a [u8],
        pos: usize,
        need_text: bool,
        mut role: impl FnMut(Option<Cow<'a, str>>),
    ) -> Scan<(MessageBody<'a>, usize)> {
        let mut m = MessageBody {
            timestamp: None,
            content: Content::Missing,
        };
        let end = scan::object(b, pos, |key, b, p| {
            if key.escaped {
                return Err(Bail);
            }
            match key.bytes {
                b"role" => scan::lenient_str(b, p).map(|(v, end)| {
                    role(v);
                    end
                }),
                b"timestamp" => exact(b, p).map(|(v, end)| {
                    m.timestamp = Some(v);
                    end
                }),
                b"content" => {
                    let (c, end) = content(b, p, need_text)?;
                    m.content = c;
                    Ok(end)
                }
                _ => scan::skip(b, p),
            }
        })?;
        Ok((m, end))
    }

    fn content(b: &[u8], p: usize, need_text: bool) -> Scan<(Content<'_>, usize)> {
        match b.get(p) {
            Some(b'"') => {
                let (s, end) = scan::string(b, p)?;
                let text = if need_text { s.decode()? } else { Cow::Borrowed("") };
                Ok((Content::Text(text), end))
            }
            Some(b'[') => {
                let mut blocks = Vec::new();
                let end = scan::array(b, p, |b, p| match b.get(p) {
                    Some(b'n') => {
                        blocks.push(Block::Null);
                        scan::skip(b, p)
                    }
                    Some(b'{') => {
                        let (mut is_text, mut text) = (false, None);
                        let end = scan::object(b, p, |key, b, p| {
                            if key.escaped {
                                return Err(Bail);
                            }
                            match key.bytes {
                                b"type" => scan::lenient_str(b, p).map(|(t, end)| {
                                    is_text = t.as_deref() == Some("text");
                                    end
                                }),
                                b"text" if need_text => exact(b, p).map(|(v, end)| {
                                    text = Some(v);
                                    end
                                }),
                                _ => scan::skip(b, p),
                            }
                        })?;
                        blocks.push(if is_text { Block::Text(text) } else { Block::Other });
                        Ok(end)
                    }
                    _ => {
                        blocks.push(Block::Other);
                        scan::skip(b, p)
                    }
                })?;
                Ok((Content::Blocks(blocks), end))
            }
            _ => Ok((Content::Invalid, scan::skip(b, p)?)),
        }
    }
}

/// The whole line as JSON, as `JSON.parse` reads it (invalid UTF-8 replaced).
fn parse_value(line: &[u8]) -> Value {
    crate::session::jsparse::parse(line).unwrap_or(Value::Null)
}

/// The running state of Pi's `buildSessionInfo` over one file.
#[derive(Default)]
struct Scan {
    header: Option<Value>,
    name: Option<String>,
    first_message: Option<String>,
    message_count: u64,
    last_activity: Option<f64>,
}

impl Scan {
    /// One line (as Node's readline splits them). `Err` where Pi gives up on the file.
    fn feed(&mut self, line: &[u8]) -> Result<(), NotASession> {
        // Entry lines of the usual shapes are read in one pass; the rest as below.
        if self.header.is_some()
            && let Ok(l) = fast::entry_line(line, self.first_message.is_none())
        {
            return self.feed_entry(l);
        }
        self.feed_exactly(line)
    }

    /// `feed` by the general readers only.
    fn feed_exactly(&mut self, line: &[u8]) -> Result<(), NotASession> {
        let skim = match read_line(line) {
            LineRead::Malformed => return Ok(()),
            LineRead::NotAnObject => {
                // `if (!entry) continue;` skips falsy values; anything else before the header
                // is not a `session` line.
                let v = parse_value(line);
                let falsy = match &v {
                    Value::Null => true,
                    Value::Bool(b) => !b,
                    Value::Number(n) => n.as_f64() == Some(0.0),
                    Value::String(s) => s.is_empty(),
                    _ => false,
                };
                return if self.header.is_none() && !falsy {
                    Err(NotASession)
                } else {
                    Ok(())
                };
            }
            LineRead::Object(s) => s,
        };
        if self.header.is_none() {
            if skim.kind.as_deref() != Some("session") {
                return Err(NotASession);
            }
            self.header = Some(parse_value(line));
            return Ok(());
        }
        match skim.kind.as_deref() {
            Some("session_info") => {
                // `entry.name?.trim() || undefined`: a name that is not a string throws.
                self.name = match &skim.name {
                    Some(n) => Some(crate::session::jsstr::trim(n))
                        .filter(|n| !n.is_empty())
                        .map(str::to_owned),
                    None => match parse_value(line).get("name") {
                        None | Some(Value::Null) => None,
                        Some(_) => return Err(NotASession),
                    },
                };
                Ok(())
            }
            Some("message") => {
                self.message_count += 1;
                let Some(message) = &skim.message else {
                    // `message.role` throws on a missing or null message; other values
                    // have no role.
                    return match parse_value(line).get("message") {
                        None | Some(Value::Null) => Err(NotASession),
                        Some(_) => Ok(()),
                    };
                };
                let role = message.role.as_deref();
                if !matches!(role, Some("user" | "assistant")) {
                    return Ok(());
                }
                self.user_or_assistant(line, role == Some("user"))
            }
            _ => Ok(()),
        }
    }

    /// An entry line read by the fast scanner: what `feed` and `user_or_assistant` do.
    fn feed_entry(&mut self, l: fast::EntryLine<'_>) -> Result<(), NotASession> {
        match l.kind.as_deref() {
            Some("session_info") => {
                self.name = match l.name {
                    fast::Name::Text(n) => Some(crate::session::jsstr::trim(&n))
                        .filter(|n| !n.is_empty())
                        .map(str::to_owned),
                    fast::Name::Absent => None,
                    fast::Name::Other => return Err(NotASession),
                };
                Ok(())
            }
            Some("message") => {
                self.message_count += 1;
                let m = match l.message {
                    fast::Message::Object(m) => m,
                    fast::Message::Absent => return Err(NotASession),
                    fast::Message::Other => return Ok(()),
                };
                if !matches!(m.role.as_deref(), Some("user" | "assistant")) {
                    return Ok(());
                }
                let is_user = m.role.as_deref() == Some("user");
                self.message(l.timestamp, m.body, is_user)
            }
            _ => Ok(()),
        }
    }

    fn user_or_assistant(&mut self, line: &[u8], is_user: bool) -> Result<(), NotASession> {
        let owned;
        // The text of a block matters only for the first user message.
        let need_text = is_user && self.first_message.is_none();
        let read = fast::message_line(line, need_text).or_else(|_| serde_json::from_slice::<MessageLine>(line));
        let (entry_ts, msg_ts, content) = match read {
            Ok(m) => (m.timestamp, m.message.timestamp, m.message.content),
            // Duplicate keys (JSON.parse keeps the last), invalid UTF-8, lone surrogates,
            // deep nesting: read it all, as JSON.parse does.
            Err(_) => {
                owned = parse_value(line);
                let m = owned.get("message");
                (
                    owned.get("timestamp").cloned(),
                    m.and_then(|m| m.get("timestamp")).cloned(),
                    Content::from_value(m.and_then(|m| m.get("content"))),
                )
            }
        };
        self.message(
            entry_ts,
            MessageBody {
                timestamp: msg_ts,
                content,
            },
            is_user,
        )
    }

    /// A user or assistant message: its activity time, and its text if it is the first.
    fn message(&mut self, entry_ts: Option<Value>, body: MessageBody<'_>, is_user: bool) -> Result<(), NotASession> {
        let MessageBody {
            timestamp: msg_ts,
            content,
        } = body;
        if matches!(content, Content::Missing) {
            return Ok(()); // not a message "with content"
        }
        // getMessageActivityTime: a numeric message timestamp, else the entry's.
        let activity = match &msg_ts {
            Some(Value::Number(n)) => n.as_f64(),
            _ => date_value_ms(entry_ts.as_ref()).map(|ms| ms as f64),
        };
        if let Some(a) = activity {
            self.last_activity = Some(self.last_activity.unwrap_or(0.0).max(a));
        }
        let text = content.text()?;
        if is_user && self.first_message.is_none() && !text.is_empty() {
            self.first_message = Some(text.into_owned());
        }
        Ok(())
    }
}

/// Node's `stats.mtimeMs`: milliseconds since the epoch, with a fraction.
fn mtime_ms(meta: &fs::Metadata) -> Option<f64> {
    let ms = |d: std::time::Duration| d.as_secs() as f64 * 1000.0 + f64::from(d.subsec_nanos()) / 1e6;
    let m = meta.modified().ok()?;
    Some(match m.duration_since(UNIX_EPOCH) {
        Ok(d) => ms(d),
        Err(e) => -ms(e.duration()),
    })
}

/// Pi 1.6.0's `buildSessionInfo`: reads the file once, line by line. `None` for a file that
/// is not a Pi session, or that Pi fails on.
pub fn build_session_info(path: &Path) -> Option<SessionInfo> {
    read_session_info(path).ok().flatten()
}

/// [`build_session_info`], telling a file that could not be read (`Err`: it may be
/// readable next time) from one that is not a session (`Ok(None)`).
fn read_session_info(path: &Path) -> std::io::Result<Option<SessionInfo>> {
    // Never opens a FIFO (the open would block) or a device (it never ends).
    let file = crate::session::data::open_regular(path)?;
    let meta = file.metadata()?;
    let mtime = mtime_ms(&meta);
    // Small files are read into a buffer each thread reuses; large ones are mapped.
    thread_local! {
        static BUFFER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    const READ_UP_TO: u64 = 8 << 20;
    let mapped;
    let mut buffer = BUFFER.with(|b| std::mem::take(&mut *b.borrow_mut()));
    let data: &[u8] = if meta.len() <= READ_UP_TO {
        buffer.clear();
        if let Err(e) = std::io::Read::read_to_end(&mut &file, &mut buffer) {
            BUFFER.with(|b| *b.borrow_mut() = buffer);
            return Err(e);
        }
        &buffer
    } else {
        mapped = crate::session::data::Data::map_file(&file)?;
        &mapped
    };
    let mut scan = Scan::default();
    let scanned = scan_lines(&mut scan, data);
    BUFFER.with(|b| *b.borrow_mut() = buffer);
    Ok(scanned.and_then(|()| info_of(path, scan, mtime)))
}

/// Feeds every line of `data` to `scan`, as Node's readline splits them: a line ends at
/// `\n`, `\r\n` or a lone `\r`, so the lines are the non-empty pieces between any `\n` or
/// `\r` (empty lines are skipped anyway). One pass looks for both bytes.
fn scan_lines(scan: &mut Scan, data: &[u8]) -> Option<()> {
    let mut from = 0;
    for end in memchr::memchr2_iter(b'\n', b'\r', data).chain(std::iter::once(data.len())) {
        if end > from {
            scan.feed(&data[from..end]).ok()?;
        }
        from = end + 1;
    }
    Some(())
}

fn info_of(path: &Path, scan: Scan, mtime: Option<f64>) -> Option<SessionInfo> {
    let header = scan.header?;
    let string = |key: &str| header.get(key).and_then(Value::as_str).map(str::to_owned);
    let header_time = header.get("timestamp").and_then(Value::as_str).and_then(parse_date_ms);
    let modified = match scan.last_activity {
        Some(last) if last > 0.0 => time_clip(last),
        // `stats.mtime`: Node rounds mtimeMs to a whole millisecond.
        _ => header_time.or_else(|| mtime.and_then(|m| time_clip(m.round()))),
    };
    Some(SessionInfo {
        path: path.to_path_buf(),
        id: string("id"),
        name: scan.name,
        first_message: scan.first_message,
        message_count: scan.message_count,
        created: date_value_ms(header.get("timestamp")),
        modified,
        cwd: string("cwd").unwrap_or_default(),
        parent_session: string("parentSession"),
        mtime,
    })
}

/// `*.jsonl` names in a folder (Pi's `file.endsWith(".jsonl")`), sorted by name, descending.
/// Every name counts: a file that is not a regular file is skipped (and counted) when read.
fn jsonl_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(read) = fs::read_dir(dir) else {
        return Vec::new();
    };
    // Each name once, not parsed out of its path at every comparison.
    let mut files: Vec<(std::ffi::OsString, PathBuf)> = read
        .filter_map(Result::ok)
        .map(|e| (e.file_name(), e.path()))
        .filter(|(name, _)| name.to_string_lossy().ends_with(".jsonl"))
        .collect();
    files.sort_by(|a, b| b.0.cmp(&a.0));
    files.into_iter().map(|(_, path)| path).collect()
}

/// The paths of the working directory's sessions, newest first, or with `all` of every
/// project's, as [`list`] lists them (with the listing's `cache`).
pub fn session_paths(loc: &Locations, all: bool, cache: Option<PathBuf>) -> Vec<PathBuf> {
    if !all {
        return loc.sessions_here().into_iter().map(|(p, _)| p).collect();
    }
    let found = list(loc, &ListOptions { all, cache }, &crate::progress::Silent);
    found.sessions.into_iter().map(|s| s.path).collect()
}

/// What to list.
#[derive(Debug, Clone, Default)]
pub struct ListOptions {
    /// Every project's sessions (Pi's `listAll`), not only the working directory's (`list`).
    pub all: bool,
    /// The file that keeps what was read from each session file between runs (see
    /// [`crate::file_cache`]); `None` reads every file.
    pub cache: Option<PathBuf>,
}

/// The listed sessions, newest activity first, and how many candidate files were left out
/// because they are not Pi sessions (or not regular files).
#[derive(Debug, Clone, Default)]
pub struct Listing {
    pub sessions: Vec<SessionInfo>,
    pub skipped: usize,
}

/// The files to read, in the order Pi reads them; the header cwd to keep (if any); whether
/// Pi pre-sorts by mtime (`listAll` over per-project folders).
fn candidates(loc: &Locations, all: bool) -> (Vec<PathBuf>, Option<PathBuf>, bool) {
    if !all {
        let dir = loc.here();
        return (jsonl_files(&dir.path), dir.filter_cwd, false);
    }
    // listAll(sessionDir) reads the one folder; without one, every project folder.
    let files = loc.folders().iter().flat_map(|d| jsonl_files(d)).collect();
    (files, None, loc.custom_dir.is_none())
}

/// Sessions as Pi's `SessionManager.list` (or `listAll` with [`ListOptions::all`]) returns
/// them. `progress` hears of one phase, a step per file read (from several threads).
pub fn list(loc: &Locations, options: &ListOptions, progress: &dyn Progress) -> Listing {
    let (files, filter_cwd, by_mtime) = candidates(loc, options.all);
    // With a cache, a file unchanged since it was recorded is not opened at all.
    let mut cache = options.cache.as_deref().map(cached::open);
    progress.start("sessions", Some(files.len() as u64));
    let reads = crate::parallel::par_map(&files, |p| cached::read(cache.as_ref(), p), || progress.advance(1));
    progress.finish();
    if let Some(mut c) = cache.take() {
        for (info, fresh) in &reads {
            if let Some((key, stamp)) = fresh {
                cached::record(&mut c, key, *stamp, info.as_ref());
            }
        }
        c.save();
    }
    let skipped = reads.iter().filter(|(i, _)| i.is_none()).count();
    let mut sessions: Vec<SessionInfo> = reads
        .into_iter()
        .filter_map(|(info, _)| info)
        .filter(|s| match &filter_cwd {
            Some(cwd) => !s.cwd.is_empty() && Path::new(&s.cwd) == cwd,
            None => true,
        })
        .collect();
    if by_mtime {
        sort_by_mtime(&mut sessions);
    }
    sort_sessions(&mut sessions);
    Listing { sessions, skipped }
}

/// The listing's records in the [`crate::file_cache`]: what [`build_session_info`] gave for
/// a version of a file, "not a session" included (a file that could not be read is not
/// recorded).
mod cached {
    use super::{SessionInfo, read_session_info};
    use crate::file_cache::{self, FileCache, Reader, Stamp, Writer};
    use std::path::{Path, PathBuf};

    const MAGIC: &[u8] = b"pi-session listing cache 1\n";
    /// A record holds only what this build read, which the cache's build stamp covers.
    const PROBE: u128 = 1;

    pub(super) fn open(file: &Path) -> FileCache {
        FileCache::open(file, MAGIC, PROBE)
    }

    /// What [`build_session_info`](super::build_session_info) gives for `path`, from the
    /// cache when it has this version of the file; and, when it was read from the file, the
    /// key and stamp to record it under.
    pub(super) fn read(cache: Option<&FileCache>, path: &Path) -> (Option<SessionInfo>, Option<(PathBuf, Stamp)>) {
        let Some(cache) = cache else {
            return (super::build_session_info(path), None);
        };
        let key = file_cache::key(path);
        let stamp = Stamp::of(path);
        if let Some(info) = cache.get(&key, stamp).and_then(|mut r| info(&mut r, path)) {
            return (info, None);
        }
        match read_session_info(path) {
            Ok(info) => (info, stamp.map(|s| (key, s))),
            Err(_) => (None, None),
        }
    }

    pub(super) fn record(cache: &mut FileCache, key: &Path, stamp: Stamp, info: Option<&SessionInfo>) {
        cache.record(key, stamp, |w| write(w, info));
    }

    fn write(w: &mut Writer, info: Option<&SessionInfo>) {
        let Some(s) = info else {
            w.u8(0);
            return;
        };
        w.u8(1);
        w.opt(s.id.as_deref());
        w.opt(s.name.as_deref());
        w.opt(s.first_message.as_deref());
        w.u64(s.message_count);
        for ms in [s.created, s.modified] {
            w.u8(u8::from(ms.is_some()));
            w.i64(ms.unwrap_or(0));
        }
        w.str(&s.cwd);
        w.opt(s.parent_session.as_deref());
        w.u8(u8::from(s.mtime.is_some()));
        w.f64(s.mtime.unwrap_or(0.0));
    }

    /// A record as [`write`] wrote it (`Some(None)`: not a session); `None` when malformed.
    fn info(r: &mut Reader, path: &Path) -> Option<Option<SessionInfo>> {
        let owned = |s: Option<&str>| s.map(str::to_owned);
        fn flag(r: &mut Reader) -> Option<bool> {
            match r.u8()? {
                0 => Some(false),
                1 => Some(true),
                _ => None,
            }
        }
        // A number that may be absent: its flag, then the number (0 when absent).
        fn some<'a, T>(r: &mut Reader<'a>, value: fn(&mut Reader<'a>) -> Option<T>) -> Option<Option<T>> {
            let set = flag(r)?;
            let v = value(r)?;
            Some(set.then_some(v))
        }
        let info = if flag(r)? {
            Some(SessionInfo {
                path: path.to_path_buf(),
                id: owned(r.opt()?),
                name: owned(r.opt()?),
                first_message: owned(r.opt()?),
                message_count: r.u64()?,
                created: some(r, Reader::i64)?,
                modified: some(r, Reader::i64)?,
                cwd: r.str()?.to_owned(),
                parent_session: owned(r.opt()?),
                mtime: some(r, Reader::f64)?,
            })
        } else {
            None
        };
        r.done().then_some(info)
    }
}

/// `listAll`'s candidate order: newest mtime first, then by file name descending.
fn sort_by_mtime(sessions: &mut [SessionInfo]) {
    sessions.sort_by(|a, b| {
        let ma = a.mtime.unwrap_or(f64::NEG_INFINITY);
        let mb = b.mtime.unwrap_or(f64::NEG_INFINITY);
        mb.total_cmp(&ma)
            .then_with(|| b.path.file_name().cmp(&a.path.file_name()))
    });
}

/// Pi's `sortSessionInfos` (stable): `modified`, descending. An invalid date compares as NaN
/// in JavaScript, which orders nothing; those sessions go last.
pub fn sort_sessions(sessions: &mut [SessionInfo]) {
    sessions.sort_by(|a, b| match (a.modified, b.modified) {
        (Some(x), Some(y)) => y.cmp(&x),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    });
}

/// One listed session as a JSON record (`ls --json`, one per line). Dates are ISO 8601
/// (`Date.prototype.toISOString`) or `null` for an invalid date.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionRecord<'a> {
    /// The session file.
    pub path: Cow<'a, str>,
    /// The header's `id`.
    pub id: Option<&'a str>,
    /// The latest `session_info` name.
    pub name: Option<&'a str>,
    /// The text of the first user message.
    pub first_message: Option<&'a str>,
    /// Every `message` entry.
    pub message_count: u64,
    /// The header's `timestamp`.
    pub created: Option<String>,
    /// Last activity.
    pub modified: Option<String>,
    /// The header's `cwd`.
    pub cwd: &'a str,
    /// The header's `parentSession`.
    pub parent_session: Option<&'a str>,
    /// Whether this is the session commands use here without `-s`.
    pub current: bool,
}

impl SessionInfo {
    /// This session as a JSON record; `current` marks the default session.
    pub fn record(&self, current: bool) -> SessionRecord<'_> {
        SessionRecord {
            path: self.path.to_string_lossy(),
            id: self.id.as_deref(),
            name: self.name.as_deref(),
            first_message: self.first_message.as_deref(),
            message_count: self.message_count,
            created: self.created.map(iso_ms),
            modified: self.modified.map(iso_ms),
            cwd: &self.cwd,
            parent_session: self.parent_session.as_deref(),
            current,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(lines: &[&str]) -> Option<Scan> {
        let mut s = Scan::default();
        for l in lines {
            s.feed(l.as_bytes()).ok()?;
        }
        s.header.is_some().then_some(s)
    }

    #[test]
    fn iso_like_javascript() {
        assert_eq!(iso_ms(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso_ms(1_793_613_607_005), "2026-11-02T10:00:07.005Z");
        assert_eq!(iso_ms(-1), "1969-12-31T23:59:59.999Z");
        assert_eq!(iso_ms(8_640_000_000_000_000), "+275760-09-13T00:00:00.000Z");
        assert_eq!(iso_ms(-62_198_755_200_000), "-000001-01-01T00:00:00.000Z");
    }

    #[test]
    fn pi_rules() {
        let h = r#"{"type":"session","id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#;
        let user = r#"{"type":"message","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":[{"type":"text","text":"a"},{"type":"image"},{"type":"text","text":"b"}]}}"#;
        let s = scan(&[h, "null", "{bad", user]).unwrap();
        assert_eq!(s.first_message.as_deref(), Some("a b"));
        assert_eq!(s.message_count, 1);
        assert_eq!(s.last_activity, Some(1_767_225_605_000.0));
        // Not a session: the first value is not a session line.
        assert!(scan(&["5", h]).is_none());
        assert!(scan(&[user, h]).is_none());
        // Pi throws (and skips the file) on a null message, a null block, a numeric name.
        assert!(scan(&[h, r#"{"type":"message"}"#]).is_none());
        assert!(scan(&[h, r#"{"type":"message","message":{"role":"user","content":[null]}}"#]).is_none());
        assert!(scan(&[h, r#"{"type":"message","message":{"role":"user","content":null}}"#]).is_none());
        assert!(scan(&[h, r#"{"type":"session_info","name":5}"#]).is_none());
        // …but not on content-less or role-less messages, or a string message.
        let s = scan(&[
            h,
            r#"{"type":"message","message":"x"}"#,
            r#"{"type":"message","message":{"role":"toolResult","content":null}}"#,
            r#"{"type":"message","message":{"role":"user","timestamp":9}}"#,
            r#"{"type":"session_info","name":"  hi  "}"#,
        ])
        .unwrap();
        assert_eq!(s.message_count, 3);
        assert_eq!(s.last_activity, None);
        assert_eq!(s.name.as_deref(), Some("hi"));
        // Duplicate keys: the last one wins, as in JSON.parse.
        let dup = r#"{"type":"message","message":{"role":"user","content":"x","content":"y","timestamp":7}}"#;
        let s = scan(&[h, dup]).unwrap();
        assert_eq!(s.first_message.as_deref(), Some("y"));
        assert_eq!(s.last_activity, Some(7.0));
    }

    fn info(name: &str, modified: Option<i64>) -> SessionInfo {
        SessionInfo {
            path: PathBuf::from(format!("/s/{name}.jsonl")),
            id: Some(name.to_owned()),
            name: None,
            first_message: None,
            message_count: 0,
            created: None,
            modified,
            cwd: String::new(),
            parent_session: None,
            mtime: None,
        }
    }

    #[test]
    fn sorted_newest_first_stable_invalid_dates_last() {
        let mut v = vec![
            info("a", Some(1)),
            info("bad", None),
            info("b", Some(3)),
            info("c", Some(1)),
            info("d", Some(2)),
        ];
        sort_sessions(&mut v);
        let ids: Vec<_> = v.iter().map(|s| s.id.clone().unwrap()).collect();
        assert_eq!(ids, ["b", "d", "a", "c", "bad"]);
    }

    #[test]
    fn one_pass_reading_agrees_with_the_general_readers() {
        let header = r#"{"type":"session","id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}"#;
        let cases: &[&[&str]] = &[
            &[
                r#"{"type":"session_info","name":"  n  "}"#,
                r#"{"type":"session_info","name":null}"#,
            ],
            &[r#"{"type":"session_info","name":5}"#],
            &[r#"{"type":"session_info","name":"a","name":[1]}"#],
            &[r#"{"type":"message","message":null}"#],
            &[r#"{"type":"message"}"#],
            &[
                r#"{"type":"message","message":"x"}"#,
                r#"{"type":"message","message":{"role":"toolResult"}}"#,
            ],
            &[
                r#"{"type":"message","timestamp":"2026-01-02T00:00:00.000Z","message":{"content":"hi","role":"user"}}"#,
                r#"{"type":"message","message":{"role":"assistant","content":[{"type":"text","text":"a"}],"timestamp":1767225610000}}"#,
                r#"{"type":"message","message":{"role":"user","role":"assistant","content":"second"}}"#,
            ],
            &[r#"{"type":"message","message":{"role":"user","content":[null]}}"#],
            &[r#"{"type":"message","message":{"role":"user","content":[{"type":"text","text":7},{"type":"image"}]}}"#],
            &[
                r#"{"type":"message","message":{"role":"user"}}"#,
                r#"{"type":"custom","name":{}}"#,
            ],
        ];
        for lines in cases {
            let (mut one, mut general) = (Scan::default(), Scan::default());
            let a: Result<(), NotASession> = std::iter::once(&header)
                .chain(lines.iter())
                .try_for_each(|l| one.feed(l.as_bytes()));
            let b: Result<(), NotASession> = std::iter::once(&header)
                .chain(lines.iter())
                .try_for_each(|l| general.feed_exactly(l.as_bytes()));
            let view = |s: &Scan, r: &Result<(), NotASession>| {
                format!(
                    "{:?} {:?} {:?} {} {:?}",
                    r.is_ok(),
                    s.name,
                    s.first_message,
                    s.message_count,
                    s.last_activity
                )
            };
            assert_eq!(view(&one, &a), view(&general, &b), "{lines:?}");
        }
    }

    #[test]
    fn fast_message_reading_agrees_with_the_derived_one() {
        let view = |m: &MessageLine| {
            let text = m.message.content.text().map(|t| t.into_owned()).map_err(|_| ());
            format!("{:?} {:?} {text:?}", m.timestamp, m.message.timestamp)
        };
        for line in [
            r#"{"timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":"caf\u00e9 \"q\""}}"#,
            r#"{"message":{"content":[{"type":"text","text":"a"},{"type":"image"},{"text":"b","type":"text"},{"type":"text","text":5},{"type":"text"}],"timestamp":17}}"#,
            r#"{"message":{"content":[{"type":"text","text":"a"},null]}}"#,
            r#"{"message":{"content":{"a":1}}}"#,
            r#"{"message":{"content":null}}"#,
            r#"{"message":{"content":[1,"x",[null]]},"timestamp":1.5}"#,
            r#"{"message":{"role":"user"}}"#,
        ] {
            let fast = fast::message_line(line.as_bytes(), true).expect(line);
            let derived = serde_json::from_slice::<MessageLine>(line.as_bytes()).expect(line);
            assert_eq!(view(&fast), view(&derived), "{line}");
            assert_eq!(
                matches!(fast.message.content, Content::Missing),
                matches!(derived.message.content, Content::Missing)
            );
        }
        // Lines it leaves to the other readers.
        for line in [
            r#"{"message":"x"}"#,
            r#"{"timestamp":1}"#,
            r#"{"message":{"content":"\ud800"}}"#,
        ] {
            assert!(fast::message_line(line.as_bytes(), true).is_err(), "{line}");
        }
    }

    /// Lines end at `\n`, `\r\n` or a lone `\r`, as Node's readline ends them; a `\r` inside
    /// a JSON line cuts it into two pieces that are not entries.
    #[test]
    fn lines_end_at_newlines_and_carriage_returns() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let lines = [
            r#"{"type":"session","id":"sid","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#,
            r#"{"type":"message","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":"hi"}}"#,
            r#"{"type":"session_info","name":"n"}"#,
            r#"{"type":"message","message":{"role":"assistant","content":[],"timestamp":1767225610000}}"#,
        ];
        let info = |text: &str| {
            fs::write(&path, text).unwrap();
            build_session_info(&path).map(|s| (s.id, s.name, s.first_message, s.message_count, s.modified))
        };
        let plain = info(&lines.join("\n"));
        assert_eq!(plain.as_ref().unwrap().3, 2);
        for sep in ["\r\n", "\r", "\n\n", "\r\r\n", "\n\r"] {
            assert_eq!(info(&(lines.join(sep) + sep)), plain, "lines ended by {sep:?}");
        }
        // A carriage return inside the second line: neither piece is an entry.
        let cut = lines[1].replace("\"hi\"", "\"h\ri\"");
        let text = [lines[0], &cut, lines[2], lines[3]].join("\n");
        assert_eq!(info(&text).unwrap().3, 1);
    }

    #[test]
    fn build_session_info_fields_and_record() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let lines = [
            r#"{"type":"session","id":"sid","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p","parentSession":"/q.jsonl"}"#,
            r#"{"type":"message","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":"  first  "}}"#,
            r#"{"type":"message","message":{"role":"assistant","content":[],"timestamp":1767225610000}}"#,
            r#"{"type":"message","message":{"role":"toolResult","content":[]}}"#,
            r#"{"type":"session_info","name":"  named "}"#,
        ];
        fs::write(&path, lines.join("\n")).unwrap();
        let s = build_session_info(&path).unwrap();
        assert_eq!(s.id.as_deref(), Some("sid"));
        assert_eq!(s.name.as_deref(), Some("named"));
        assert_eq!(s.first_message.as_deref(), Some("  first  "));
        assert_eq!(s.message_count, 3);
        assert_eq!(s.created, Some(1_767_225_600_000));
        assert_eq!(s.modified, Some(1_767_225_610_000));
        assert_eq!(s.cwd, "/p");
        assert_eq!(s.parent_session.as_deref(), Some("/q.jsonl"));
        let rec = serde_json::to_value(s.record(true)).unwrap();
        let keys: Vec<&str> = rec.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "path",
                "id",
                "name",
                "firstMessage",
                "messageCount",
                "created",
                "modified",
                "cwd",
                "parentSession",
                "current"
            ]
        );
        assert_eq!(rec["created"], "2026-01-01T00:00:00.000Z");
        assert_eq!(rec["modified"], "2026-01-01T00:00:10.000Z");
        assert_eq!(rec["current"], true);
        // No activity: the header time; not a session: None.
        fs::write(&path, lines[0]).unwrap();
        assert_eq!(build_session_info(&path).unwrap().modified, Some(1_767_225_600_000));
        fs::write(&path, lines[1]).unwrap();
        assert!(build_session_info(&path).is_none());
    }

    #[test]
    fn lists_a_custom_dir_filtered_by_cwd() {
        let dir = tempfile::tempdir().unwrap();
        let h = |id: &str, cwd: &str| {
            format!(r#"{{"type":"session","id":"{id}","timestamp":"2026-01-0{id}T00:00:00.000Z","cwd":"{cwd}"}}"#)
        };
        fs::write(dir.path().join("1.jsonl"), h("1", "/p")).unwrap();
        fs::write(dir.path().join("2.jsonl"), h("2", "/q")).unwrap();
        fs::write(dir.path().join("3.jsonl"), h("3", "/p")).unwrap();
        fs::write(dir.path().join("x.jsonl"), "not json").unwrap();
        let loc = Locations {
            cwd: PathBuf::from("/p"),
            agent_dir: dir.path().join("agent"),
            custom_dir: Some(dir.path().to_path_buf()),
        };
        let ids = |l: &Listing| l.sessions.iter().map(|s| s.id.clone().unwrap()).collect::<Vec<_>>();
        let here = list(
            &loc,
            &ListOptions {
                all: false,
                cache: None,
            },
            &crate::progress::Silent,
        );
        assert_eq!(ids(&here), ["3", "1"]);
        assert_eq!(here.skipped, 1);
        let all = list(&loc, &ListOptions { all: true, cache: None }, &crate::progress::Silent);
        assert_eq!(ids(&all), ["3", "2", "1"]);
    }

    /// What a listing result is, to the bit (`SessionInfo` has no equality; `mtime` by its
    /// bits, so that a NaN or -0 read back counts).
    fn view(info: &Option<SessionInfo>) -> String {
        format!("{info:?} {:?}", info.as_ref().map(|s| s.mtime.map(f64::to_bits)))
    }

    fn arbitrary_info() -> impl proptest::strategy::Strategy<Value = Option<SessionInfo>> {
        use proptest::prelude::*;
        let text = || proptest::option::of(any::<String>());
        let ms = || proptest::option::of(any::<i64>());
        let fields = (
            (text(), text(), text(), any::<u64>()),
            (ms(), ms(), any::<String>(), text(), proptest::option::of(any::<u64>())),
        );
        proptest::option::of(fields.prop_map(
            |((id, name, first_message, message_count), (created, modified, cwd, parent_session, mtime))| SessionInfo {
                path: PathBuf::from("/s/x.jsonl"),
                id,
                name,
                first_message,
                message_count,
                created,
                modified,
                cwd,
                parent_session,
                mtime: mtime.map(f64::from_bits),
            },
        ))
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(500))]

        /// Any listing result, session or not, reads back from the cache as it was recorded.
        #[test]
        fn a_record_reads_back_as_written(info in arbitrary_info()) {
            let dir = tempfile::tempdir().unwrap();
            let file = dir.path().join("listing.cache");
            let (path, stamp) = crate::file_cache::tests::settled_file(dir.path(), "x.jsonl", "");
            let key = crate::file_cache::key(&path);
            let mut cache = cached::open(&file);
            cached::record(&mut cache, &key, stamp, info.as_ref());
            cache.save();
            let (back, fresh) = cached::read(Some(&cached::open(&file)), &path);
            proptest::prop_assert!(fresh.is_none(), "answered from the cache");
            let want = info.map(|i| SessionInfo { path, ..i });
            proptest::prop_assert_eq!(view(&back), view(&want));
        }

        /// A folder of session files (and files that are not sessions) lists the same from
        /// the cache as from the files.
        #[test]
        fn a_listing_from_the_cache_is_the_listing_from_the_files(
            files in proptest::collection::vec(proptest::collection::vec(proptest::sample::select(LINES), 0..6), 1..6),
        ) {
            let dir = tempfile::tempdir().unwrap();
            let sessions = dir.path().join("sessions");
            fs::create_dir_all(&sessions).unwrap();
            for (i, lines) in files.iter().enumerate() {
                let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
                crate::file_cache::tests::settled_file(&sessions, &format!("{i}.jsonl"), &text);
            }
            let loc = Locations {
                cwd: PathBuf::from("/p"),
                agent_dir: dir.path().join("agent"),
                custom_dir: Some(sessions),
            };
            let listed = |cache: Option<PathBuf>| {
                let l = list(&loc, &ListOptions { all: true, cache }, &crate::progress::Silent);
                let infos: Vec<String> = l.sessions.into_iter().map(|s| view(&Some(s))).collect();
                (infos, l.skipped)
            };
            let file = dir.path().join("listing.cache");
            let uncached = listed(None);
            proptest::prop_assert_eq!(&listed(Some(file.clone())), &uncached);
            proptest::prop_assert!(file.exists());
            proptest::prop_assert_eq!(&listed(Some(file)), &uncached);
        }
    }

    /// Lines of session files: headers, messages and names of every shape the listing tells
    /// apart, and lines that make a file not a session.
    const LINES: &[&str] = &[
        r#"{"type":"session","id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#,
        r#"{"type":"session","id":"t","timestamp":"bad","cwd":"/q","parentSession":"/p/s.jsonl"}"#,
        r#"{"type":"session"}"#,
        r#"{"type":"message","timestamp":"2026-01-02T00:00:00.000Z","message":{"role":"user","content":"hi"}}"#,
        r#"{"type":"message","message":{"role":"assistant","content":[{"type":"text","text":"a"}],"timestamp":1767225610000}}"#,
        r#"{"type":"message","message":{"role":"user","content":[null]}}"#,
        r#"{"type":"message","message":"x"}"#,
        r#"{"type":"session_info","name":"  named  "}"#,
        r#"{"type":"session_info","name":5}"#,
        "null",
        "42",
        "{bad",
        "",
    ];
}
