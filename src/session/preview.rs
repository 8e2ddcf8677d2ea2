//! One-line previews of entries read straight from their line's bytes with [`super::scan`],
//! without building a JSON value: only the fields a preview shows are decoded, and texts only
//! as far as their first line (or a caller's character budget) reaches. Lines are those of
//! loaded entries, which `JSON.parse` accepted, so they are walked without being validated
//! again ([`scan::trusted`]).
//!
//! Whatever the scanner declines ([`Bail`]) is left to the value-based preview
//! ([`super::text::preview`] falls back to it), so a preview read here is always the one the
//! value gives. As `JSON.parse`, a key written twice counts with its last value (and an
//! object's members keep the place of a key's first occurrence).

use super::entry::{EntryKind, MessageAt, Role};
use super::scan::{self, Bail, RawStr, Scan, trusted};
use std::borrow::Cow;

/// Tokens in a compact `42k` form.
pub fn short_tokens(n: f64) -> String {
    if n >= 1_000_000.0 {
        format!("{:.1}M", n / 1_000_000.0)
    } else if n >= 1000.0 {
        format!("{}k", (n / 1000.0).round())
    } else {
        format!("{n}")
    }
}

/// A preview read from a line: its text and whether it was cut at the budget (then `text`
/// is the start of the whole preview, and fitting it is only exact when it is already wider
/// than the room it is fitted to).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Preview {
    pub text: String,
    pub cut: bool,
}

/// What kind of entry a line is, as the index knows it.
pub struct Shape<'a> {
    pub kind: &'a EntryKind,
    pub role: Option<&'a Role>,
    pub checkout: bool,
    /// Where the loader saw the message's values, when it recorded them.
    pub at: Option<&'a MessageAt>,
}

/// The preview text with a budget of characters.
struct Out {
    s: String,
    /// Characters left in the budget (`usize::MAX` less what was pushed, without one).
    left: usize,
    limited: bool,
    cut: bool,
}

impl Out {
    fn new(budget: Option<usize>) -> Out {
        Out {
            s: String::new(),
            left: budget.unwrap_or(usize::MAX),
            limited: budget.is_some(),
            cut: false,
        }
    }

    fn push(&mut self, t: &str) {
        if self.cut || t.is_empty() {
            return;
        }
        if !self.limited {
            self.s.push_str(t);
            return;
        }
        if t.len() <= self.left {
            // Within the budget even counted in bytes.
            self.left -= t.chars().count();
            self.s.push_str(t);
            return;
        }
        match t.char_indices().nth(self.left) {
            Some((at, _)) => {
                self.s.push_str(&t[..at]);
                self.left = 0;
                self.cut = true;
            }
            None => {
                self.left -= t.chars().count();
                self.s.push_str(t);
            }
        }
    }

    fn done(&self) -> bool {
        self.cut
    }

    /// How many characters of a string to decode: one past the budget, or all.
    fn want(&self, extra: usize) -> usize {
        if self.limited {
            self.left.saturating_add(extra)
        } else {
            usize::MAX
        }
    }
}

/// A message's or custom message's `content`, as far as previews read it.
#[derive(Default)]
enum ContentParts<'a> {
    #[default]
    None,
    Text(RawStr<'a>),
    Blocks(Vec<BlockParts<'a>>),
}

/// One content block: its `type`, `text`, `name` (string values only) and `arguments`.
#[derive(Default)]
struct BlockParts<'a> {
    kind: Option<RawStr<'a>>,
    text: Option<RawStr<'a>>,
    name: Option<RawStr<'a>>,
    arguments: Option<&'a [u8]>,
}

#[derive(Default)]
struct MessageParts<'a> {
    content: ContentParts<'a>,
    stop_reason: Option<RawStr<'a>>,
    tool_name: Option<RawStr<'a>>,
    is_error: bool,
    command: Option<RawStr<'a>>,
}

/// A string value (`Some`), or any other value skipped (`None`).
fn str_at(b: &[u8], p: usize) -> Scan<(Option<RawStr<'_>>, usize)> {
    if b.get(p) == Some(&b'"') {
        let (s, end) = trusted::string(b, p)?;
        Ok((Some(s), end))
    } else {
        Ok((None, trusted::skip(b, p)?))
    }
}

fn block_at(b: &[u8], p: usize) -> Scan<(Option<BlockParts<'_>>, usize)> {
    if b.get(p) != Some(&b'{') {
        return Ok((None, trusted::skip(b, p)?));
    }
    let mut block = BlockParts::default();
    let end = trusted::object(b, p, |key, b, p| {
        let slot = if key.is("type") {
            &mut block.kind
        } else if key.is("text") {
            &mut block.text
        } else if key.is("name") {
            &mut block.name
        } else if key.is("arguments") {
            let (raw, end) = trusted::raw_value(b, p)?;
            block.arguments = Some(raw);
            return Ok(end);
        } else {
            return trusted::skip(b, p);
        };
        let (s, end) = str_at(b, p)?;
        *slot = s;
        Ok(end)
    })?;
    Ok((Some(block), end))
}

fn content_at(b: &[u8], p: usize) -> Scan<(ContentParts<'_>, usize)> {
    match b.get(p) {
        Some(b'"') => {
            let (s, end) = trusted::string(b, p)?;
            Ok((ContentParts::Text(s), end))
        }
        Some(b'[') => {
            let mut blocks = Vec::new();
            let end = trusted::array(b, p, |b, p| {
                let (block, end) = block_at(b, p)?;
                blocks.extend(block);
                Ok(end)
            })?;
            Ok((ContentParts::Blocks(blocks), end))
        }
        _ => Ok((ContentParts::None, trusted::skip(b, p)?)),
    }
}

fn message_at(b: &[u8], p: usize) -> Scan<(MessageParts<'_>, usize)> {
    let mut m = MessageParts::default();
    if b.get(p) != Some(&b'{') {
        return Ok((m, trusted::skip(b, p)?));
    }
    let end = trusted::object(b, p, |key, b, p| {
        if key.is("content") {
            let (c, end) = content_at(b, p)?;
            m.content = c;
            return Ok(end);
        }
        if key.is("isError") {
            let end = trusted::skip(b, p)?;
            m.is_error = &b[p..end] == b"true";
            return Ok(end);
        }
        let slot = if key.is("stopReason") {
            &mut m.stop_reason
        } else if key.is("toolName") {
            &mut m.tool_name
        } else if key.is("command") {
            &mut m.command
        } else {
            return trusted::skip(b, p);
        };
        let (s, end) = str_at(b, p)?;
        *slot = s;
        Ok(end)
    })?;
    Ok((m, end))
}

/// The first `max` characters of a string's value, or all of it.
fn decode<'a>(s: &RawStr<'a>, max: usize) -> Scan<Cow<'a, str>> {
    if max == usize::MAX { whole(s) } else { prefix(s, max) }
}

/// The first `max` characters of a string's value (all of it when shorter).
fn prefix<'a>(s: &RawStr<'a>, max: usize) -> Scan<Cow<'a, str>> {
    s.decode_prefix(max)
}

/// A string's whole value (declining lone surrogates and invalid UTF-8).
fn whole<'a>(s: &RawStr<'a>) -> Scan<Cow<'a, str>> {
    s.decode()
}

/// Feeds texts (joined by separators) to `out` as `first_line` of the whole would read:
/// leading whitespace (Rust's) dropped, then up to the first `\n`, a `\r` before it dropped.
struct FirstLine {
    started: bool,
    done: bool,
}

impl FirstLine {
    fn new() -> FirstLine {
        FirstLine {
            started: false,
            done: false,
        }
    }

    /// Adds `t`.
    fn feed(&mut self, out: &mut Out, t: &str) {
        if self.done {
            return;
        }
        let t = if self.started {
            t
        } else {
            let rest = t.trim_start();
            if rest.is_empty() {
                return;
            }
            self.started = true;
            rest
        };
        match memchr::memchr(b'\n', t.as_bytes()) {
            Some(nl) => {
                let line = &t[..nl];
                out.push(line.strip_suffix('\r').unwrap_or(line));
                self.done = true;
            }
            None => out.push(t),
        }
    }

    /// Adds a string value, decoding only as much of it as the line and `out` need.
    fn feed_raw(&mut self, out: &mut Out, s: &RawStr<'_>) -> Scan<()> {
        if self.done || out.done() {
            return Ok(());
        }
        if !out.limited {
            return self.feed_lines(out, s);
        }
        // Enough for the budget past some leading whitespace; all of it when that is not.
        let want = out.left.saturating_add(64);
        let head = prefix(s, want)?;
        let complete = head.chars().count() < want;
        if complete {
            self.feed(out, &head);
            return Ok(());
        }
        let lead = if self.started {
            0
        } else {
            head.len() - head.trim_start().len()
        };
        // `head` holds the line to its end, or more of it than the budget takes.
        let rest = &head[lead..];
        if rest.contains('\n') || rest.chars().count() > out.left {
            self.feed(out, &head);
        } else {
            self.feed(out, &whole(s)?);
        }
        Ok(())
    }
}

impl FirstLine {
    /// Adds a string value a line at a time (cut after each `\n` escape), until the first
    /// line is complete: a long text is decoded only as far as its first line.
    fn feed_lines(&mut self, out: &mut Out, s: &RawStr<'_>) -> Scan<()> {
        if !s.escaped {
            // No escape, so no line break: the line takes all of it.
            self.feed(out, &whole(s)?);
            return Ok(());
        }
        let b = s.bytes;
        let mut from = 0;
        while from < b.len() && !self.done && !out.done() {
            let cut = newline_escape_after(b, from).unwrap_or(b.len());
            let piece = RawStr {
                bytes: &b[from..cut],
                escaped: true,
            };
            self.feed(out, &whole(&piece)?);
            from = cut;
        }
        Ok(())
    }
}

/// The offset just after the first `\n` escape at or after `from` (an escape boundary) in
/// the body of an escaped string.
fn newline_escape_after(b: &[u8], mut from: usize) -> Option<usize> {
    while let Some(at) = memchr::memchr(b'\\', &b[from..]) {
        let p = from + at;
        if b.get(p + 1) == Some(&b'n') {
            return Some(p + 2);
        }
        // Any other escape: its second byte is not a backslash, nor are `\u`'s digits.
        from = p + 2;
    }
    None
}

/// The first line of a content's text (its string, or its text blocks joined by a space).
fn content_first_line(out: &mut Out, content: &ContentParts<'_>) -> Scan<()> {
    let mut line = FirstLine::new();
    match content {
        ContentParts::None => {}
        ContentParts::Text(s) => line.feed_raw(out, s)?,
        ContentParts::Blocks(blocks) => {
            let mut first = true;
            for block in blocks.iter().filter(|b| b.kind.is_some_and(|k| k.is("text"))) {
                if line.done || out.done() {
                    break;
                }
                if !first {
                    line.feed(out, " ");
                }
                first = false;
                if let Some(text) = &block.text {
                    line.feed_raw(out, text)?;
                }
            }
        }
    }
    Ok(())
}

/// A non-string JSON value as `serde_json` prints the value `JSON.parse` reads.
fn value_text(raw: &[u8]) -> Scan<String> {
    let v = super::jsparse::parse(raw).map_err(|_| Bail)?;
    Ok(match v {
        serde_json::Value::String(s) => s,
        other => other.to_string(),
    })
}

/// A tool call argument value in a preview: a string as it is, anything else as JSON.
fn push_compact(out: &mut Out, raw: &[u8]) -> Scan<()> {
    if raw.first() == Some(&b'"') {
        let (s, _) = trusted::string(raw, 0)?;
        let max = out.want(1);
        out.push(&decode(&s, max)?);
    } else {
        out.push(&value_text(raw)?);
    }
    Ok(())
}

/// `name(arg=value, …)` of each tool call, joined by `, `.
fn push_calls(out: &mut Out, calls: &[&BlockParts<'_>]) -> Scan<()> {
    for (n, call) in calls.iter().enumerate() {
        if out.done() {
            return Ok(());
        }
        if n > 0 {
            out.push(", ");
        }
        match &call.name {
            Some(name) => out.push(&whole(name)?),
            None => out.push("?"),
        }
        out.push("(");
        match call.arguments {
            Some(raw) if raw.first() == Some(&b'{') => {
                // Members in first-occurrence order, each with its last value.
                let mut members: Vec<(Cow<'_, str>, &[u8])> = Vec::new();
                trusted::object(raw, 0, |key, b, p| {
                    let (value, end) = trusted::raw_value(b, p)?;
                    let key = whole(&key)?;
                    match members.iter_mut().find(|(k, _)| *k == key) {
                        Some(member) => member.1 = value,
                        None => members.push((key, value)),
                    }
                    Ok(end)
                })?;
                for (i, (key, value)) in members.iter().enumerate() {
                    if out.done() {
                        break;
                    }
                    if i > 0 {
                        out.push(", ");
                    }
                    out.push(key);
                    out.push("=");
                    push_compact(out, value)?;
                }
            }
            Some(raw) => push_compact(out, raw)?,
            None => {}
        }
        out.push(")");
    }
    Ok(())
}

/// A number value as JavaScript reads it, `None` for any other value.
fn number_of(raw: Option<&[u8]>) -> Scan<Option<f64>> {
    match raw {
        Some(raw) => Ok(scan::lenient_number(raw, 0)?.0),
        None => Ok(None),
    }
}

/// The string value of a raw value, `""` for any other value or none.
fn str_or_empty<'a>(raw: Option<&'a [u8]>) -> Scan<Cow<'a, str>> {
    match raw {
        Some(raw) if raw.first() == Some(&b'"') => whole(&trusted::string(raw, 0)?.0),
        _ => Ok(Cow::Borrowed("")),
    }
}

/// The raw value of `key` in the object `raw` (its last occurrence), if `raw` is an object.
fn member<'a>(raw: Option<&'a [u8]>, key: &str) -> Scan<Option<&'a [u8]>> {
    let Some(raw) = raw.filter(|r| r.first() == Some(&b'{')) else {
        return Ok(None);
    };
    let mut found = None;
    trusted::object(raw, 0, |k, b, p| {
        let (value, end) = trusted::raw_value(b, p)?;
        if k.is(key) {
            found = Some(value);
        }
        Ok(end)
    })?;
    Ok(found)
}

/// Top-level fields of an entry line, by name (last occurrence), as raw values.
fn fields<'a, const N: usize>(line: &'a [u8], keys: [&str; N]) -> Scan<[Option<&'a [u8]>; N]> {
    let mut found = [None; N];
    let end = trusted::object(line, 0, |k, b, p| match keys.iter().position(|want| k.is(want)) {
        Some(i) => {
            let (value, end) = trusted::raw_value(b, p)?;
            found[i] = Some(value);
            Ok(end)
        }
        None => trusted::skip(b, p),
    })?;
    if !scan::at_end(line, end) {
        return Err(Bail);
    }
    Ok(found)
}

/// The parts of the line's `message` (its last occurrence; none when there is none), the
/// whole line checked to its end.
fn line_message(line: &[u8]) -> Scan<MessageParts<'_>> {
    let mut message = MessageParts::default();
    let end = trusted::object(line, 0, |k, b, p| {
        if k.is("message") {
            let (m, end) = message_at(b, p)?;
            message = m;
            Ok(end)
        } else {
            trusted::skip(b, p)
        }
    })?;
    if !scan::at_end(line, end) {
        return Err(Bail);
    }
    Ok(message)
}

/// The parts of a message whose values the loader located: each read where it is, without
/// walking the rest of the line.
fn message_located<'a>(line: &'a [u8], at: &MessageAt) -> Scan<MessageParts<'a>> {
    let string = |offset: Option<std::num::NonZeroU32>| match offset {
        Some(p) => Ok(str_at(line, p.get() as usize)?.0),
        None => Ok(None),
    };
    Ok(MessageParts {
        content: match at.content {
            Some(p) => content_at(line, p.get() as usize)?.0,
            None => ContentParts::None,
        },
        stop_reason: string(at.stop_reason)?,
        tool_name: string(at.tool_name)?,
        is_error: at.is_error,
        command: string(at.command)?,
    })
}

/// The parts of the line's message: where the loader saw them, or read from the line.
fn message_parts<'a>(line: &'a [u8], at: Option<&MessageAt>) -> Scan<MessageParts<'a>> {
    match at {
        Some(at) => message_located(line, at),
        None => line_message(line),
    }
}

/// The preview of an entry read from its line. `budget` caps the characters produced
/// (`None`: the whole preview).
pub fn preview(line: &[u8], shape: &Shape<'_>, budget: Option<usize>) -> Scan<Preview> {
    let mut out = Out::new(budget);
    match shape.kind {
        EntryKind::Message => {
            let message = message_parts(line, shape.at)?;
            message_preview(&mut out, &message, shape.role)?;
        }
        EntryKind::Compaction => {
            let [tokens, summary] = fields(line, ["tokensBefore", "summary"])?;
            let tokens = number_of(tokens)?.map(short_tokens);
            out.push("[compaction: ");
            out.push(tokens.as_deref().unwrap_or("?"));
            out.push(" tokens] ");
            string_first_line(&mut out, summary)?;
        }
        EntryKind::BranchSummary => {
            let [from, summary] = fields(line, ["fromId", "summary"])?;
            out.push("from ");
            out.push(&str_or_empty(from)?);
            out.push(": ");
            string_first_line(&mut out, summary)?;
        }
        EntryKind::Label => {
            let [target, label] = fields(line, ["targetId", "label"])?;
            out.push(&str_or_empty(target)?);
            let label = str_or_empty(label)?;
            if label.is_empty() {
                out.push(" (label cleared)");
            } else {
                out.push(" ← ");
                out.push(&label);
            }
        }
        EntryKind::ModelChange => {
            let [provider, model] = fields(line, ["provider", "modelId"])?;
            out.push(&str_or_empty(provider)?);
            out.push("/");
            out.push(&str_or_empty(model)?);
        }
        EntryKind::ThinkingLevelChange => {
            let [level] = fields(line, ["thinkingLevel"])?;
            out.push("thinking ");
            out.push(&str_or_empty(level)?);
        }
        EntryKind::SessionInfo => {
            let [name] = fields(line, ["name"])?;
            out.push("name: ");
            out.push(&str_or_empty(name)?);
        }
        EntryKind::Custom if shape.checkout => {
            let [data] = fields(line, ["data"])?;
            let from = match member(data, "from")? {
                Some(raw) if raw.first() == Some(&b'"') => str_or_empty(Some(raw))?,
                _ => Cow::Borrowed("?"),
            };
            out.push("checkout (from ");
            out.push(&from);
            out.push(")");
        }
        EntryKind::Custom => {
            let [kind] = fields(line, ["customType"])?;
            out.push(&str_or_empty(kind)?);
        }
        EntryKind::CustomMessage => {
            let [kind, content] = fields(line, ["customType", "content"])?;
            out.push(&str_or_empty(kind)?);
            out.push(": ");
            let content = match content {
                Some(raw) => content_at(raw, 0)?.0,
                None => ContentParts::None,
            };
            content_first_line(&mut out, &content)?;
        }
        EntryKind::ContextEdit => {
            let [replacement, target] = fields(line, ["replacement", "targetId"])?;
            let omit = replacement.is_none_or(|r| r == b"null");
            out.push(if omit { "omit " } else { "replace " });
            out.push(&str_or_empty(target)?);
            out.push(if omit { " from context" } else { " in context" });
        }
        EntryKind::Usage => {
            let [kind, provider, model, usage] = fields(line, ["kind", "provider", "model", "usage"])?;
            let tokens = number_of(member(usage, "totalTokens")?)?.map(short_tokens);
            out.push(&str_or_empty(kind)?);
            out.push(" ");
            out.push(&str_or_empty(provider)?);
            out.push("/");
            out.push(&str_or_empty(model)?);
            out.push(" ");
            out.push(tokens.as_deref().unwrap_or(""));
            out.push(" tokens");
        }
        EntryKind::Other(_) => {}
    }
    Ok(Preview {
        cut: out.cut,
        text: out.s,
    })
}

fn string_first_line(out: &mut Out, raw: Option<&[u8]>) -> Scan<()> {
    if let Some(raw) = raw.filter(|r| r.first() == Some(&b'"')) {
        let (s, _) = trusted::string(raw, 0)?;
        FirstLine::new().feed_raw(out, &s)?;
    }
    Ok(())
}

fn message_preview(out: &mut Out, m: &MessageParts<'_>, role: Option<&Role>) -> Scan<()> {
    match role {
        Some(Role::Assistant) => {
            content_first_line(out, &m.content)?;
            let calls: Vec<&BlockParts<'_>> = match &m.content {
                ContentParts::Blocks(blocks) => blocks
                    .iter()
                    .filter(|b| b.kind.is_some_and(|k| k.is("toolCall")))
                    .collect(),
                _ => Vec::new(),
            };
            if !calls.is_empty() {
                if !out.s.is_empty() {
                    out.push(" ");
                }
                out.push("→ ");
                push_calls(out, &calls)?;
            }
            if out.s.is_empty()
                && let Some(reason) = &m.stop_reason
            {
                let reason = whole(reason)?;
                if reason != "stop" {
                    out.push("(");
                    out.push(&reason);
                    out.push(")");
                }
            }
        }
        Some(Role::ToolResult) => {
            match &m.tool_name {
                Some(name) => out.push(&whole(name)?),
                None => out.push("tool"),
            }
            out.push(if m.is_error { " error: " } else { ": " });
            content_first_line(out, &m.content)?;
        }
        Some(Role::BashExecution) => {
            out.push("$ ");
            if let Some(command) = &m.command {
                out.push(&decode(command, out.want(1))?);
            }
        }
        Some(Role::System) => out.push("system prompt"),
        _ => content_first_line(out, &m.content)?,
    }
    Ok(())
}

/// What Pi's default tree view reads of an assistant message: whether a text block holds
/// more than JavaScript whitespace, and its `stopReason`.
pub fn assistant_visibility(line: &[u8], at: Option<&MessageAt>) -> Scan<(bool, Option<String>)> {
    let message = message_parts(line, at)?;
    let mut has_text = false;
    if let ContentParts::Blocks(blocks) = &message.content {
        for text in blocks
            .iter()
            .filter(|b| b.kind.is_some_and(|k| k.is("text")))
            .filter_map(|b| b.text.as_ref())
        {
            if !is_js_blank(text)? {
                has_text = true;
                break;
            }
        }
    } else if let ContentParts::Text(text) = &message.content {
        has_text = !is_js_blank(text)?;
    }
    let stop = match &message.stop_reason {
        Some(s) => Some(whole(s)?.into_owned()),
        None => None,
    };
    Ok((has_text, stop))
}

/// Whether a string's value is all JavaScript whitespace (`trim() === ""`).
fn is_js_blank(s: &RawStr<'_>) -> Scan<bool> {
    let blank = |t: &str| t.chars().all(super::jsstr::is_whitespace);
    let head = prefix(s, 64)?;
    if !blank(&head) {
        return Ok(false);
    }
    if head.chars().count() < 64 {
        return Ok(true);
    }
    Ok(blank(&whole(s)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prefixes_and_pieces_agree_with_whole_values() {
        let bodies = [
            r#"plain text é 日本"#,
            r#"a\"b\\c\/d\u00e9\ud83d\ude00\n\t\r\b\f end"#,
            r#"\n\n\n  lead"#,
            r#"\ud800 lone"#,
            r#"x\udc00"#,
            r#"\ud83dx"#,
            r#"\u2028\u0085\ufeff"#,
            "",
        ];
        for body in bodies {
            let line = format!("\"{body}\"");
            let (s, _) = scan::string(line.as_bytes(), 0).unwrap();
            // A prefix is the start of the whole value (where there is one).
            if let Ok(all) = whole(&s) {
                for max in 0..40 {
                    let start: String = all.chars().take(max).collect();
                    assert_eq!(prefix(&s, max).unwrap(), start, "{body} {max}");
                }
            }
            let mut pieces = String::new();
            let mut from = 0;
            if s.escaped {
                while from < s.bytes.len() {
                    let cut = newline_escape_after(s.bytes, from).unwrap_or(s.bytes.len());
                    match whole(&RawStr {
                        bytes: &s.bytes[from..cut],
                        escaped: true,
                    }) {
                        Ok(p) => pieces.push_str(&p),
                        Err(_) => break,
                    }
                    from = cut;
                }
                if let Ok(all) = s.decode() {
                    assert_eq!(pieces, all);
                }
            }
        }
    }
}
