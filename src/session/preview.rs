//! One-line previews of entries, read straight from their line's bytes with [`crate::json::scan`]
//! without building a JSON value: only the fields a preview shows are decoded, and texts only
//! as far as their first line (or a caller's character budget) reaches. Lines are those of
//! loaded entries, which `JSON.parse` accepted, so they are walked without being validated
//! again ([`scan::trusted`]).
//!
//! The preview is written once, as that walk. A message's values are read where the loader
//! saw them ([`MessageAt`]), so a long text (a tool's output, a `write`'s content) is read
//! only as far as it shows. What the walk cannot read as it goes (a key of a block written
//! twice, a lone surrogate, invalid UTF-8) it declines ([`Bail`]), and the line's plain form
//! is read instead ([`jsparse::plain_object`]: `JSON.parse`'s value written back with each
//! key once), by the same walk.

use super::entry::{EntryKind, MessageAt, Role};
use super::skim;
use crate::json::jsparse;
use crate::json::scan::{self, Bail, RawStr, Scan, trusted};
use std::borrow::Cow;
use std::num::NonZeroU32;

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
#[derive(Debug, Clone, Default, PartialEq, Eq)]
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

/// The preview of an entry read from its line. `budget` caps the characters produced
/// (`None`: the whole preview). A line that holds nothing a preview can show (nesting
/// deeper than the walk goes around what it shows) previews as nothing.
pub fn preview(line: &[u8], shape: &Shape<'_>, budget: Option<usize>) -> Preview {
    read(line, shape, budget, false)
        .or_else(|_| {
            let plain = jsparse::plain_object(line, jsparse::MAX_DEPTH).ok_or(Bail)?;
            let at = located(&plain);
            let shape = Shape {
                at: at.as_ref(),
                ..*shape
            };
            read(&plain, &shape, budget, true)
        })
        .unwrap_or_default()
}

/// [`preview`] of the plain form of `line`, as a test compares it with the line's.
#[cfg(test)]
pub(crate) fn preview_of_plain_form(line: &[u8], shape: &Shape<'_>, budget: Option<usize>) -> Option<Preview> {
    let plain = jsparse::plain_object(line, jsparse::MAX_DEPTH)?;
    let at = located(&plain);
    let shape = Shape {
        at: at.as_ref(),
        ..*shape
    };
    Some(read(&plain, &shape, budget, true).unwrap_or_default())
}

/// Where the values of a plain line's message are.
fn located(plain: &[u8]) -> Option<MessageAt> {
    match skim::read_line(plain) {
        skim::LineRead::Object(s) => s.message.and_then(|m| m.at),
        _ => None,
    }
}

/// [`preview`] of `line`; `plain` when it is a plain form (each key written once).
fn read(line: &[u8], shape: &Shape<'_>, budget: Option<usize>, plain: bool) -> Scan<Preview> {
    let mut out = Out::new(budget);
    match shape.kind {
        EntryKind::Message => message(&mut out, line, shape.role, shape.at.ok_or(Bail)?, plain)?,
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
            // The content's blocks are known to write their keys once only in a plain line.
            let at = MessageAt {
                content: content.map(|c| offset(line, c)).transpose()?,
                plain_blocks: plain,
                ..MessageAt::default()
            };
            message(&mut out, line, None, &at, plain)?;
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
    out.finish()
}

/// The offset in `line` of `value`, a slice of it (never 0: a line starts with `{`).
fn offset(line: &[u8], value: &[u8]) -> Scan<NonZeroU32> {
    let at = value.as_ptr().addr() - line.as_ptr().addr();
    u32::try_from(at).ok().and_then(NonZeroU32::new).ok_or(Bail)
}

/// The preview of a message (or a custom message's content) whose values are where `at`
/// says: the first line of its content's text (its string, or its text blocks joined by a
/// space), after a tool result's head, and an assistant's tool calls after `→`.
fn message(out: &mut Out, line: &[u8], role: Option<&Role>, at: &MessageAt, plain: bool) -> Scan<()> {
    let string = |p: Option<NonZeroU32>| match p {
        Some(p) => Ok(str_at(line, p.get() as usize)?.0),
        None => Ok(None),
    };
    let assistant = match role {
        Some(Role::BashExecution) => {
            out.push("$ ");
            if let Some(command) = string(at.command)? {
                out.push_value(&command)?;
            }
            return Ok(());
        }
        Some(Role::System) => {
            out.push("system prompt");
            return Ok(());
        }
        Some(Role::ToolResult) => {
            push_result_head(out, string(at.tool_name)?.as_ref(), at.is_error)?;
            false
        }
        Some(Role::Assistant) => true,
        _ => false,
    };
    if let Some(content) = at.content.map(|p| p.get() as usize) {
        let mut reader = Reader {
            line,
            out: &mut *out,
            text: FirstLine::new(),
            first: true,
            calls: assistant.then_some(0),
        };
        match line.get(content) {
            Some(b'"') => {
                reader.feed_text(content)?;
            }
            Some(b'[') if !(plain || at.plain_blocks) => return Err(Bail),
            Some(b'[') if assistant && !(plain || at.plain_calls) => return Err(Bail),
            Some(b'[') if assistant && at.text_after_call => {
                // The text shows before the calls: the blocks are read for it first.
                reader.calls = None;
                reader.blocks(content)?;
                reader.text.finish(reader.out);
                reader.text.done = true;
                reader.calls = Some(0);
                reader.blocks(content)?;
            }
            Some(b'[') => {
                reader.blocks(content)?;
            }
            _ => {}
        }
        reader.text.finish(reader.out);
    }
    if assistant && out.s.is_empty() {
        push_stop_note(out, string(at.stop_reason)?.as_ref())?;
    }
    Ok(())
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

/// A string's whole value (declining lone surrogates and invalid UTF-8).
fn whole<'a>(s: &RawStr<'a>) -> Scan<Cow<'a, str>> {
    s.decode()
}

/// What a tool result's preview starts with: the tool's name (`tool` when it has none that
/// is a string) and whether it failed.
fn push_result_head(out: &mut Out, name: Option<&RawStr<'_>>, is_error: bool) -> Scan<()> {
    match name {
        Some(name) => out.push(&whole(name)?),
        None => out.push("tool"),
    }
    out.push(if is_error { " error: " } else { ": " });
    Ok(())
}

/// An assistant message that shows nothing else shows why it stopped, unless it simply
/// stopped (`stop`).
fn push_stop_note(out: &mut Out, reason: Option<&RawStr<'_>>) -> Scan<()> {
    if let Some(reason) = reason.filter(|_| out.s.is_empty()) {
        let reason = whole(reason)?;
        if reason != "stop" {
            out.push("(");
            out.push(&reason);
            out.push(")");
        }
    }
    Ok(())
}

/// The preview text with a budget of characters.
struct Out {
    /// The text so far. Text of a string's body goes in as it is written and is checked as
    /// UTF-8 once, when the preview is done ([`Out::finish`]); everything else is `str`.
    s: Vec<u8>,
    /// Characters left in the budget (`usize::MAX` less what was pushed, without one).
    left: usize,
    limited: bool,
    /// A character was pushed past the budget (and left out).
    cut: bool,
}

impl Out {
    fn new(budget: Option<usize>) -> Out {
        // Room for a budget of two-byte characters, so the text is not grown a piece at a
        // time.
        let room = budget.map_or(0, |b| b.saturating_mul(2).saturating_add(16).min(4096));
        Out {
            s: Vec::with_capacity(room),
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
            self.s.extend_from_slice(t.as_bytes());
            return;
        }
        if t.len() <= self.left {
            // Within the budget even counted in bytes: the characters are the bytes that
            // are not continuation bytes.
            self.left -= t.bytes().filter(|&b| (b as i8) >= -0x40).count();
            self.s.extend_from_slice(t.as_bytes());
            return;
        }
        match t.char_indices().nth(self.left) {
            Some((at, _)) => {
                self.s.extend_from_slice(&t.as_bytes()[..at]);
                self.left = 0;
                self.cut = true;
            }
            None => {
                self.left -= t.chars().count();
                self.s.extend_from_slice(t.as_bytes());
            }
        }
    }

    fn push_char(&mut self, c: char) {
        if self.cut {
            return;
        }
        if self.left == 0 {
            self.cut = true;
            return;
        }
        self.s.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
        if self.limited {
            self.left -= 1;
        }
    }

    /// Appends the text of a string's body from `b[i]` (a position not inside an escape) to
    /// its next escape or closing quote, or as far as the budget takes (then `cut` is set
    /// when a character follows); returns where it stopped. Characters are counted by
    /// their lead bytes, sixteen bytes at a time, and nothing past the budget is read; the
    /// bytes appended are checked as UTF-8 with the whole text ([`Out::finish`]), so a
    /// count made of invalid bytes never shows.
    fn push_text(&mut self, b: &[u8], i: usize) -> Scan<usize> {
        if self.cut {
            return Ok(i);
        }
        let (j, left) = if self.limited {
            let run = text_run(b, i, self.left);
            self.cut = run.cut;
            (run.end, run.left)
        } else {
            (
                memchr::memchr2(b'\\', b'"', &b[i..]).map_or(b.len(), |k| i + k),
                self.left,
            )
        };
        self.s.extend_from_slice(&b[i..j]);
        self.left = left;
        Ok(j)
    }

    /// The preview: the text, checked as UTF-8 (a string's invalid bytes decline it).
    fn finish(self) -> Scan<Preview> {
        simdutf8::basic::from_utf8(&self.s).map_err(|_| Bail)?;
        Ok(Preview {
            cut: self.cut,
            // SAFETY: checked just above.
            text: unsafe { String::from_utf8_unchecked(self.s) },
        })
    }

    /// Appends a string's value, decoding only as much of it as the budget takes.
    fn push_value(&mut self, s: &RawStr<'_>) -> Scan<()> {
        self.push_body(s.bytes).map(|_| ())
    }

    /// Appends the value of a string from its body `b` (as written: a string's body, or the
    /// line from a body's start on, the value then ending at its closing quote), decoding
    /// only as much of it as the budget takes. Returns where it stopped: at the body's end
    /// (its closing quote), or where the budget ran out.
    fn push_body(&mut self, b: &[u8]) -> Scan<usize> {
        let mut i = 0;
        while i < b.len() && !self.cut {
            match b[i] {
                b'\\' => {
                    let (c, len) = scan::escape_at(b, i)?;
                    self.push_char(c);
                    i += len;
                }
                b'"' => break,
                _ => i = self.push_text(b, i)?,
            }
        }
        Ok(i)
    }

    fn done(&self) -> bool {
        self.cut
    }
}

/// A run of a string's text ([`text_run`]).
#[derive(Debug, PartialEq, Eq)]
struct Run {
    /// Where it ends.
    end: usize,
    /// The characters then left in the budget.
    left: usize,
    /// It ended for the budget (a character follows).
    cut: bool,
}

/// The run of a string's text from `b[i]` to its next escape or closing quote, or to the
/// lead byte of the character past `left` characters. Characters are counted by their lead
/// bytes (any byte but a continuation byte, 0b10xx_xxxx), sixteen bytes at a time.
#[inline]
fn text_run(b: &[u8], i: usize, mut left: usize) -> Run {
    let mut j = i;
    #[cfg(target_arch = "x86_64")]
    while j + 16 <= b.len() {
        use std::arch::x86_64::*;
        // SAFETY: SSE2 is part of x86_64; the load is of sixteen bytes of `b`.
        let (stops, leads) = unsafe {
            let v = _mm_loadu_si128(b.as_ptr().add(j).cast::<__m128i>());
            let stops = _mm_or_si128(
                _mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8)),
                _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8)),
            );
            // Signed: continuation bytes are the ones below 0xc0 from 0x80 on.
            let continuation = _mm_cmplt_epi8(v, _mm_set1_epi8(0xc0_u8 as i8));
            (
                _mm_movemask_epi8(stops) as u32,
                !(_mm_movemask_epi8(continuation) as u32) & 0xffff,
            )
        };
        let within = if stops == 0 {
            0xffff
        } else {
            (1 << stops.trailing_zeros()) - 1
        };
        let mut leads = leads & within;
        let chars = leads.count_ones() as usize;
        if chars > left {
            // The run ends at the lead byte of the character past the budget.
            for _ in 0..left {
                leads &= leads - 1;
            }
            let end = j + leads.trailing_zeros() as usize;
            return Run {
                end,
                left: 0,
                cut: true,
            };
        }
        left -= chars;
        if stops != 0 {
            let end = j + stops.trailing_zeros() as usize;
            return Run { end, left, cut: false };
        }
        j += 16;
    }
    while let Some(&c) = b.get(j) {
        if c == b'"' || c == b'\\' {
            break;
        }
        if c & 0xc0 != 0x80 {
            if left == 0 {
                return Run {
                    end: j,
                    left: 0,
                    cut: true,
                };
            }
            left -= 1;
        }
        j += 1;
    }
    Run {
        end: j,
        left,
        cut: false,
    }
}

/// Feeds texts (joined by separators) to `out` as `first_line` of the whole would read:
/// leading whitespace (Rust's) dropped, then up to the first `\n`, a `\r` before it dropped.
/// Values are decoded a piece at a time straight into `out`, and only as far as the line
/// and the budget reach.
struct FirstLine {
    started: bool,
    done: bool,
    /// A `\r` held back: it is left out when a `\n` follows.
    cr: bool,
}

impl FirstLine {
    fn new() -> FirstLine {
        FirstLine {
            started: false,
            done: false,
            cr: false,
        }
    }

    /// Whether nothing more can change the line.
    fn full(&self, out: &Out) -> bool {
        self.done || out.done()
    }

    /// Adds a character.
    fn feed_char(&mut self, out: &mut Out, c: char) {
        if self.done {
            return;
        }
        if !self.started {
            if c.is_whitespace() {
                return;
            }
            self.started = true;
        }
        if c == '\n' {
            self.cr = false;
            self.done = true;
            return;
        }
        if std::mem::take(&mut self.cr) {
            out.push_char('\r');
        }
        if c == '\r' {
            self.cr = true;
        } else {
            out.push_char(c);
        }
    }

    /// Adds a string's value from its body `b` (as [`Out::push_body`] reads it), decoding
    /// only as much of it as the line and `out` need; returns where it stopped.
    fn feed_raw(&mut self, out: &mut Out, b: &[u8]) -> Scan<usize> {
        let mut i = 0;
        while i < b.len() && !self.full(out) {
            let c = b[i];
            if c == b'"' {
                break;
            }
            if c == b'\\' {
                let (c, len) = scan::escape_at(b, i)?;
                self.feed_char(out, c);
                i += len;
                continue;
            }
            if !self.started && (c == b' ' || c >= 0x80) {
                // Leading whitespace in the text: skipped a character at a time.
                let (c, len) = if c == b' ' { (' ', 1) } else { scan::char_at(b, i)? };
                if c.is_whitespace() {
                    i += len;
                    continue;
                }
            }
            // Text holds no line break (a valid line has no control byte in a string), and
            // text starting with whitespace was skipped above: this starts the line if
            // nothing did.
            self.started = true;
            if std::mem::take(&mut self.cr) {
                out.push_char('\r');
            }
            i = out.push_text(b, i)?;
        }
        Ok(i)
    }

    /// Ends the line: a `\r` held back belongs to it.
    fn finish(&mut self, out: &mut Out) {
        if std::mem::take(&mut self.cr) {
            out.push_char('\r');
        }
    }
}

/// A non-string JSON value as `serde_json` prints the value `JSON.parse` reads.
fn value_text(raw: &[u8]) -> Scan<String> {
    let v = crate::json::jsparse::parse(raw).map_err(|_| Bail)?;
    Ok(match v {
        serde_json::Value::String(s) => s,
        other => other.to_string(),
    })
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

/// The first line of the string `raw` (nothing for any other value or none).
fn string_first_line(out: &mut Out, raw: Option<&[u8]>) -> Scan<()> {
    if let Some(raw) = raw.filter(|r| r.first() == Some(&b'"')) {
        let (s, _) = trusted::string(raw, 0)?;
        let mut line = FirstLine::new();
        line.feed_raw(out, s.bytes)?;
        line.finish(out);
    }
    Ok(())
}

/// How far reading a value as far as it shows went.
enum Next {
    /// To its end: the position after it.
    At(usize),
    /// Not to its end: nothing after it can show.
    Done,
}

/// The keys of a content block that a preview reads.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Key {
    Type,
    Text,
    Name,
    Arguments,
    Other,
}

impl Key {
    fn of(key: &RawStr<'_>) -> Key {
        key.named(
            |k| match k {
                b"type" => Key::Type,
                b"text" => Key::Text,
                b"name" => Key::Name,
                b"arguments" => Key::Arguments,
                _ => Key::Other,
            },
            Key::Other,
        )
    }
}

/// A content block's `type`, as far as a preview tells them apart.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Text,
    ToolCall,
    Other,
}

impl Kind {
    /// The kind a `type` value (a string's, or none) names.
    fn of(kind: Option<RawStr<'_>>) -> Kind {
        kind.map_or(Kind::Other, |k| {
            k.named(
                |k| match k {
                    b"text" => Kind::Text,
                    b"toolCall" => Kind::ToolCall,
                    _ => Kind::Other,
                },
                Kind::Other,
            )
        })
    }
}

/// A message's content read no further than it shows: the reader's state as it walks the
/// line.
struct Reader<'a, 'o> {
    line: &'a [u8],
    out: &'o mut Out,
    text: FirstLine,
    /// No text block was met yet (text blocks are joined by a space).
    first: bool,
    /// An assistant's tool calls shown so far (`None`: the message shows none).
    calls: Option<usize>,
}

impl<'a> Reader<'a, '_> {
    /// Whether nothing more can show.
    fn full(&self) -> bool {
        self.out.done() || (self.text.done && self.calls.is_none())
    }

    /// Feeds the text string whose opening quote is at `p` to the first line, a piece at
    /// a time, no further than the line and the budget need.
    fn feed_text(&mut self, p: usize) -> Scan<Next> {
        let line = self.line;
        let stop = p + 1 + self.text.feed_raw(self.out, &line[p + 1..])?;
        if line.get(stop) == Some(&b'"') {
            Ok(Next::At(stop + 1))
        } else if self.full() {
            Ok(Next::Done)
        } else {
            // The line is whole and tool calls may follow: the text's end is looked for.
            Ok(Next::At(trusted::body_end(line, stop)? + 1))
        }
    }

    /// Starts a text block: text blocks are joined by a space.
    fn join(&mut self) {
        if !self.first {
            self.text.feed_char(self.out, ' ');
        }
        self.first = false;
    }

    /// The blocks of the content array whose `[` is at `p`, in order, as
    /// the preview shows them: each block writes its `type` and
    /// `text` once (and, with tool calls shown, [`MessageAt::plain_calls`] holds).
    fn blocks(&mut self, p: usize) -> Scan<Next> {
        let line = self.line;
        let mut p = scan::ws(line, p + 1);
        if line.get(p) == Some(&b']') {
            return Ok(Next::At(p + 1));
        }
        loop {
            if self.full() {
                return Ok(Next::Done);
            }
            if line.get(p) == Some(&b'{') {
                match self.block(p)? {
                    Next::At(end) => p = end,
                    Next::Done => return Ok(Next::Done),
                }
            } else {
                p = trusted::skip(line, p)?;
            }
            p = scan::ws(line, p);
            match line.get(p) {
                Some(b',') => p = scan::ws(line, p + 1),
                Some(b']') => return Ok(Next::At(p + 1)),
                _ => return Err(Bail),
            }
        }
    }

    /// The block whose `{` is at `p`.
    fn block(&mut self, p: usize) -> Scan<Next> {
        let line = self.line;
        let mut kind = Kind::Other;
        // The text's opening quote, when it came before the type.
        let mut text_at: Option<usize> = None;
        let mut fed = false;
        // A tool call's name (`Some(None)`: not a string) and arguments, while they are not
        // shown yet.
        let mut name: Option<Option<RawStr<'_>>> = None;
        let mut arguments_at: Option<usize> = None;
        let mut shown = false;
        let mut q = scan::ws(line, p + 1);
        if line.get(q) == Some(&b'}') {
            return Ok(Next::At(q + 1));
        }
        loop {
            if line.get(q) != Some(&b'"') {
                return Err(Bail);
            }
            let (key, after) = trusted::string(line, q)?;
            q = scan::ws(line, after);
            if line.get(q) != Some(&b':') {
                return Err(Bail);
            }
            q = scan::ws(line, q + 1);
            match (Key::of(&key), line.get(q)) {
                (Key::Type, _) => {
                    let (k, end) = str_at(line, q)?;
                    kind = Kind::of(k);
                    q = end;
                }
                (Key::Text, Some(b'"')) => {
                    if kind == Kind::Text && !self.text.full(self.out) {
                        // A text block's only text: fed as far as it shows.
                        fed = true;
                        self.join();
                        match self.feed_text(q)? {
                            Next::At(end) => q = end,
                            Next::Done => return Ok(Next::Done),
                        }
                    } else {
                        if kind != Kind::Text {
                            text_at = Some(q);
                        }
                        q = trusted::skip(line, q)?;
                    }
                }
                (Key::Name, _) if self.calls.is_some() => {
                    let (n, end) = str_at(line, q)?;
                    name = Some(n);
                    q = end;
                }
                (Key::Arguments, _) if self.calls.is_some() => {
                    if let Some(n) = name
                        && kind == Kind::ToolCall
                    {
                        // A tool call's only arguments, its name known: shown as far as they
                        // show.
                        shown = true;
                        if self.call_head(n)? {
                            return Ok(Next::Done);
                        }
                        match self.arguments(q)? {
                            Next::At(end) => q = end,
                            Next::Done => return Ok(Next::Done),
                        }
                        self.out.push(")");
                    } else {
                        arguments_at = Some(q);
                        q = trusted::skip(line, q)?;
                    }
                }
                _ => q = trusted::skip(line, q)?,
            }
            q = scan::ws(line, q);
            match line.get(q) {
                Some(b',') => q = scan::ws(line, q + 1),
                Some(b'}') => break,
                _ => return Err(Bail),
            }
        }
        let end = q + 1;
        if kind == Kind::Text {
            if !fed && !self.text.full(self.out) {
                // A text block whose text came before its type, or has none.
                self.join();
                if let Some(t) = text_at
                    && let Next::Done = self.feed_text(t)?
                {
                    return Ok(Next::Done);
                }
            }
        } else if self.calls.is_some() && !shown && kind == Kind::ToolCall {
            // A tool call whose name or type came after its arguments, or that has none.
            if self.call_head(name.flatten())? {
                return Ok(Next::Done);
            }
            if let Some(a) = arguments_at
                && let Next::Done = self.arguments(a)?
            {
                return Ok(Next::Done);
            }
            self.out.push(")");
        }
        Ok(Next::At(end))
    }

    /// What comes before a tool call's arguments: ` → ` before the first (no text block
    /// follows a tool call: the line is whole), `, ` before the others, then `name(`.
    /// `Some(true)` when nothing more shows.
    fn call_head(&mut self, name: Option<RawStr<'_>>) -> Scan<bool> {
        let shown = self.calls.as_mut().ok_or(Bail)?;
        let first = *shown == 0;
        *shown += 1;
        if first {
            self.text.finish(self.out);
            if !self.out.s.is_empty() {
                self.out.push(" ");
            }
            self.out.push("→ ");
        }
        if self.out.done() {
            return Ok(true);
        }
        if !first {
            self.out.push(", ");
        }
        match &name {
            Some(name) => self.out.push(&whole(name)?),
            None => self.out.push("?"),
        }
        self.out.push("(");
        Ok(false)
    }

    /// A tool call's arguments at `p`: an object's members in the order written (each key
    /// written once), each value as far as it shows.
    fn arguments(&mut self, p: usize) -> Scan<Next> {
        let line = self.line;
        if line.get(p) != Some(&b'{') {
            return self.argument_value(p);
        }
        let mut p = scan::ws(line, p + 1);
        if line.get(p) == Some(&b'}') {
            return Ok(Next::At(p + 1));
        }
        let mut first = true;
        loop {
            if self.out.done() {
                return Ok(Next::Done);
            }
            if line.get(p) != Some(&b'"') {
                return Err(Bail);
            }
            let (key, after) = trusted::string(line, p)?;
            p = scan::ws(line, after);
            if line.get(p) != Some(&b':') {
                return Err(Bail);
            }
            p = scan::ws(line, p + 1);
            if !first {
                self.out.push(", ");
            }
            first = false;
            self.out.push(&whole(&key)?);
            self.out.push("=");
            match self.argument_value(p)? {
                Next::At(end) => p = scan::ws(line, end),
                Next::Done => return Ok(Next::Done),
            }
            match line.get(p) {
                Some(b',') => p = scan::ws(line, p + 1),
                Some(b'}') => return Ok(Next::At(p + 1)),
                _ => return Err(Bail),
            }
        }
    }

    /// An argument's value: a string as it is, read as far as it shows; anything else as JSON.
    fn argument_value(&mut self, p: usize) -> Scan<Next> {
        let line = self.line;
        if line.get(p) != Some(&b'"') {
            let (raw, end) = trusted::raw_value(line, p)?;
            self.out.push(&value_text(raw)?);
            return Ok(Next::At(end));
        }
        let stop = p + 1 + self.out.push_body(&line[p + 1..])?;
        if line.get(stop) == Some(&b'"') {
            Ok(Next::At(stop + 1))
        } else {
            // The budget ran out.
            Ok(Next::Done)
        }
    }
}

/// What Pi's default tree view reads of an assistant message: whether a text block holds
/// more than JavaScript whitespace, and its `stopReason`.
pub fn assistant_visibility(line: &[u8], at: Option<&MessageAt>) -> (bool, Option<String>) {
    visibility(line, at)
        .or_else(|_| {
            let plain = jsparse::plain_object(line, jsparse::MAX_DEPTH).ok_or(Bail)?;
            visibility(&plain, located(&plain).as_ref())
        })
        .unwrap_or_default()
}

fn visibility(line: &[u8], at: Option<&MessageAt>) -> Scan<(bool, Option<String>)> {
    let at = at.ok_or(Bail)?;
    let stop = match at.stop_reason {
        Some(p) => str_at(line, p.get() as usize)?
            .0
            .map(|s| whole(&s).map(Cow::into_owned))
            .transpose()?,
        None => None,
    };
    let has_text = match at.content.map(|p| p.get() as usize) {
        Some(p) if line.get(p) == Some(&b'"') => !is_js_blank(&trusted::string(line, p)?.0)?,
        Some(p) if line.get(p) == Some(&b'[') => {
            let mut has_text = false;
            trusted::array(line, p, |b, p| {
                if has_text || b.get(p) != Some(&b'{') {
                    return trusted::skip(b, p);
                }
                // A block's `type` and `text` as `JSON.parse` keeps them: their last values.
                let (mut is_text, mut text) = (false, None);
                let end = trusted::object(b, p, |key, b, p| {
                    if key.is("type") {
                        let (kind, end) = str_at(b, p)?;
                        is_text = kind.is_some_and(|k| k.is("text"));
                        Ok(end)
                    } else if key.is("text") {
                        let (t, end) = str_at(b, p)?;
                        text = t;
                        Ok(end)
                    } else {
                        trusted::skip(b, p)
                    }
                })?;
                if is_text && let Some(t) = text {
                    has_text = !is_js_blank(&t)?;
                }
                Ok(end)
            })?;
            has_text
        }
        _ => false,
    };
    Ok((has_text, stop))
}

/// Whether a string's value is all JavaScript whitespace (`trim() === ""`).
fn is_js_blank(s: &RawStr<'_>) -> Scan<bool> {
    let blank = |t: &str| t.chars().all(crate::json::jsstr::is_whitespace);
    let head = s.decode_prefix(64)?;
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
    use proptest::prelude::*;

    /// String bodies as JSON writes them: plain and wide characters, escapes of every kind
    /// (surrogate pairs, lone surrogates, line breaks), whitespace runs, and raw whitespace
    /// beyond ASCII.
    fn body() -> impl Strategy<Value = Vec<u8>> {
        let piece = prop::sample::select(
            &[
                "a",
                "word",
                " ",
                "   ",
                "é",
                "日本",
                "😀",
                "\u{301}",
                "\u{a0}",
                "\u{3000}",
                "\u{85}",
                "\u{2028}",
                r"\n",
                r"\r",
                r"\r\n",
                r"\t",
                r#"\""#,
                r"\\",
                r"\/",
                r"\u00e9",
                r"\u0000",
                r"\u3000",
                r"\u00a0",
                r"\ud83d\ude00",
                r"\ud800",
                r"\udc00",
                "\\u200b",
                r"\x",
            ][..],
        );
        (
            prop::collection::vec(piece, 0..40),
            prop::option::of((
                0usize..300,
                prop::sample::select(vec![
                    &[0x80u8][..],
                    &[0xff],
                    &[0xe6],
                    &[0xe6, 0x97],
                    &[0xc0, 0x80],
                    &[0xed, 0xa0, 0x80],
                    &[0xf4, 0x90, 0x80, 0x80],
                ]),
            )),
        )
            .prop_map(|(parts, invalid)| {
                let mut b = parts.concat().into_bytes();
                if let Some((at, bytes)) = invalid {
                    let at = at.min(b.len());
                    b.splice(at..at, bytes.iter().copied());
                }
                b
            })
    }

    /// An assistant message shows in Pi's default tree when a text block holds more than
    /// JavaScript whitespace (U+FEFF is some, U+0085 is not), or when it stopped badly.
    #[test]
    fn visibility_reads_text_as_javascript_trims_it() {
        let visible = |content: &str| {
            let header = r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}"#;
            let line = format!(
                r#"{{"type":"message","id":"a","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{{"role":"assistant","content":{content},"stopReason":"toolUse"}}}}"#
            );
            let session =
                super::super::Session::from_bytes("t.jsonl".into(), format!("{header}\n{line}\n").into_bytes())
                    .unwrap();
            assistant_visibility(session.raw(0), session.entries[0].message_at())
        };
        let stop = Some("toolUse".to_owned());
        assert_eq!(
            visible(r#"[{"type":"text","text":" \ufeff\n"},{"type":"toolCall","name":"x"}]"#),
            (false, stop.clone())
        );
        assert_eq!(visible(r#"[{"type":"text","text":"\u0085"}]"#), (true, stop.clone()));
        assert_eq!(
            visible(r#"[{"type":"text","text":"ok","text":" "}]"#),
            (false, stop.clone())
        );
        assert_eq!(visible(r#"" x ""#), (true, stop.clone()));
        assert_eq!(visible(r#"[{"type":"text","text":"\ud800"}]"#), (true, stop));
    }

    fn raw(b: &[u8]) -> RawStr<'_> {
        RawStr {
            bytes: b,
            escaped: b.contains(&b'\\'),
        }
    }

    fn budget() -> impl Strategy<Value = Option<usize>> {
        prop_oneof![Just(None), (0usize..60).prop_map(Some), Just(Some(1000))]
    }

    /// The start of `text` a budget takes, and whether characters were left out.
    fn start_of(text: &str, budget: Option<usize>) -> (String, bool) {
        match budget {
            Some(n) => (text.chars().take(n).collect(), text.chars().count() > n),
            None => (text.to_owned(), false),
        }
    }

    /// Text blocks' pieces: escapes of every kind, line breaks, whitespace, wide characters.
    fn text_body() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            6 => "[a-z]{1,12}",
            3 => Just(" ".to_owned()),
            1 => prop::sample::select(vec![
                r"\n", r"\r", r"\t", r#"\""#, r"\\", r"\u00e9", r"\u3000", r"\ud83d\ude00", r"\ud800",
                "é", "日本", "😀", "\u{a0}", "\u{2028}", r"\u0085", "   ",
            ]).prop_map(str::to_owned),
        ];
        prop::collection::vec(piece, 0..60).prop_map(|v| v.concat())
    }

    /// A tool call's arguments: objects whose keys are sometimes written twice (or once
    /// plain and once with an escape), with values of every kind, or other values.
    fn any_arguments() -> impl Strategy<Value = String> {
        let key = prop::sample::select(vec!["path", "content", "a", r"\u0061", "日本", "x y", r"\ud800"]);
        let value = || {
            prop_oneof![
                4 => text_body().prop_map(|t| format!("\"{t}\"")),
                1 => prop::sample::select(vec![
                    "1", "-0", "2.5e3", "1e400", "true", "null", r#"[1,"a\nb",{"k":[]}]"#, r#"{"o":"\u2028","o":2}"#,
                ])
                .prop_map(str::to_owned),
            ]
        };
        let members = |m: Vec<(&str, String)>| {
            let m: Vec<String> = m.iter().map(|(k, v)| format!("\"{k}\" : {v}")).collect();
            format!("{{{}}}", m.join(","))
        };
        let distinct =
            prop::sample::subsequence(vec!["path", "content", "a", "日本", "x y"], 0..4).prop_flat_map(move |keys| {
                prop::collection::vec(value(), keys.len()).prop_map(move |v| keys.clone().into_iter().zip(v).collect())
            });
        prop_oneof![
            5 => distinct.prop_map(members),
            1 => prop::collection::vec((key, value()), 0..4).prop_map(members),
            1 => text_body().prop_map(|t| format!("\"{t}\"")),
            1 => Just("7".to_owned()),
            1 => Just("null".to_owned()),
        ]
    }

    /// A content block: keys in any order, `type`, `text`, `name` and `arguments` sometimes
    /// written twice or of other values, and keys the preview skips; tool calls often.
    fn any_block() -> impl Strategy<Value = String> {
        let member = prop_oneof![
            4 => prop::sample::select(vec!["text", "toolCall", "image", "thinking", ""])
                .prop_map(|t| format!(r#""type":"{t}""#)),
            1 => Just(r#""type":7"#.to_owned()),
            4 => text_body().prop_map(|t| format!(r#""text":"{t}""#)),
            1 => Just(r#""text":null"#.to_owned()),
            1 => text_body().prop_map(|t| format!(r#""thinking":"{t}""#)),
            1 => Just(r#""data":{"a":[1,"\\\"}"]}"#.to_owned()),
            1 => text_body().prop_map(|t| format!(r#""name":"{t}""#)),
            1 => any_arguments().prop_map(|a| format!(r#""arguments":{a}"#)),
        ];
        prop_oneof![
            4 => prop::collection::vec(member, 0..5).prop_map(|m| format!("{{{}}}", m.join(" , "))),
            6 => call_block(),
            1 => Just("5".to_owned()),
            1 => text_body().prop_map(|t| format!("\"{t}\"")),
        ]
    }

    /// A tool call block: its members once each in any order, some left out, and sometimes
    /// one written again.
    fn call_block() -> impl Strategy<Value = String> {
        let name = prop_oneof![
            4 => prop::sample::select(vec!["read", "write", "", "日本", r"a\nb", r"\ud800"])
                .prop_map(|n| format!(r#""name":"{n}""#)),
            1 => Just(r#""name":5"#.to_owned()),
        ];
        (
            prop::sample::select(vec![
                r#""type":"toolCall""#,
                r#""type":"toolCall""#,
                r#""type":"text""#,
                "",
            ]),
            prop::sample::select(vec![r#""id":"c1""#, ""]),
            prop::option::weighted(0.9, name.clone()),
            prop::option::weighted(0.9, any_arguments().prop_map(|a| format!(r#""arguments":{a}"#))),
            prop::option::weighted(
                0.1,
                prop_oneof![name, any_arguments().prop_map(|a| format!(r#""arguments":{a}"#))],
            ),
        )
            .prop_flat_map(|(kind, id, name, arguments, again)| {
                let members: Vec<String> = [Some(kind.to_owned()), Some(id.to_owned()), name, arguments, again]
                    .into_iter()
                    .flatten()
                    .filter(|m| !m.is_empty())
                    .collect();
                Just(members).prop_shuffle()
            })
            .prop_map(|m| format!("{{ {} }}", m.join(",")))
    }

    /// A content array as Pi writes an assistant's: text and thinking blocks, then tool calls.
    fn calls_content() -> impl Strategy<Value = String> {
        let block = prop_oneof![
            text_body().prop_map(|t| format!(r#"{{"type":"text","text":"{t}"}}"#)),
            text_body().prop_map(|t| format!(r#"{{"type":"thinking","thinking":"{t}","signature":"x"}}"#)),
        ];
        (
            prop::collection::vec(block, 0..3),
            prop::collection::vec(call_block(), 0..3),
        )
            .prop_map(|(b, c)| format!("[{}]", [b, c].concat().join(",")))
    }

    fn any_content() -> impl Strategy<Value = String> {
        prop_oneof![
            4 => prop::collection::vec(any_block(), 0..5).prop_map(|b| format!("[ {} ]", b.join(","))),
            3 => calls_content(),
            1 => text_body().prop_map(|t| format!("\"{t}\"")),
            1 => Just("null".to_owned()),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        /// A preview read from a line, no further than it shows, is the one the line's plain
        /// form (each key written once) gives, for any budget from 0 on.
        #[test]
        fn previews_read_as_the_plain_form_reads(
            role in prop::sample::select(vec!["user", "toolResult", "custom", "assistant", "assistant", "branchSummary"]),
            content in any_content(),
            budget in prop_oneof![0usize..20, 20usize..300],
            is_error in any::<bool>(),
            stop in prop::sample::select(vec!["", r#","stopReason":"stop""#, r#","stopReason":"toolUse""#, r#","stopReason":5"#, r#","stopReason":"\ud800""#]),
        ) {
            let header = r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}"#;
            let line = format!(
                r#"{{"type":"message","id":"a","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{{"role":"{role}","toolName":"bash","isError":{is_error},"content":{content}{stop}}}}}"#
            );
            let session = super::super::Session::from_bytes("t.jsonl".into(), format!("{header}\n{line}\n").into_bytes()).unwrap();
            let e = &session.entries[0];
            let shape = Shape { kind: &e.kind, role: e.role(), checkout: false, at: e.message_at() };
            for budget in [None, Some(budget)] {
                let got = preview(session.raw(0), &shape, budget);
                let want = preview_of_plain_form(session.raw(0), &shape, budget);
                prop_assert_eq!(Some(got), want, "{}", line);
            }
        }

        /// A value pushed a piece at a time is the start of the value `decode` gives; it is
        /// declined only where the value is.
        #[test]
        fn pushed_values_are_starts_of_the_decoded_value(b in body(), budget in budget(), before in "[a-é]{0,3}") {
            let s = raw(&b);
            let mut out = Out::new(budget);
            out.push(&before);
            let (before, before_cut) = start_of(&before, budget);
            let pushed = out.push_value(&s);
            match s.decode() {
                Ok(value) => {
                    prop_assert!(pushed.is_ok());
                    let room = budget.map(|n| n - before.chars().count());
                    let (want, cut) = start_of(&value, room);
                    let pushed = out.finish().expect("a valid value");
                    prop_assert_eq!(pushed.text, format!("{before}{want}"));
                    prop_assert_eq!(pushed.cut, before_cut || cut);
                }
                // Declined, unless the budget ran out before what is declined.
                Err(_) => prop_assert!(pushed.is_err() || out.cut || out.finish().is_err()),
            }
        }

        /// Texts fed to a first line, a piece at a time and no further than needed, give the
        /// start of `first_line` of the texts joined by spaces.
        #[test]
        fn fed_first_lines_are_starts_of_the_first_line(texts in prop::collection::vec(body(), 1..4), budget in budget()) {
            let mut out = Out::new(budget);
            let mut line = FirstLine::new();
            let mut fed = Ok(());
            for (i, t) in texts.iter().enumerate() {
                if line.full(&out) {
                    break;
                }
                if i > 0 {
                    line.feed_char(&mut out, ' ');
                }
                fed = line.feed_raw(&mut out, t).map(|_| ());
                if fed.is_err() {
                    break;
                }
            }
            line.finish(&mut out);
            let values: Result<Vec<_>, _> = texts.iter().map(|t| raw(t).decode()).collect();
            // A text is declined only where its line needs it, so only texts that all decode
            // tell what the line is.
            if let Ok(values) = values {
                prop_assert!(fed.is_ok());
                let joined = values.join(" ");
                let first = joined.trim_start().lines().next().unwrap_or("");
                let (want, cut) = start_of(first, budget);
                let fed = out.finish().expect("valid texts");
                prop_assert_eq!(&fed.text, &want);
                prop_assert_eq!(fed.cut, cut);
            }
        }

        /// A run of text read sixteen bytes at a time ends where a byte at a time it does.
        #[test]
        fn text_runs_agree_with_a_byte_loop(
            b in prop::collection::vec(prop_oneof![
                6 => 0x20u8..0x7f,
                1 => Just(b'\\'),
                1 => Just(b'"'),
                3 => 0x80u8..0xc0,
                2 => 0xc0u8..=0xff,
            ], 0..80),
            from in 0usize..80,
            left in prop_oneof![0usize..40, Just(usize::MAX)],
        ) {
            let from = from.min(b.len());
            let (mut j, mut l) = (from, left);
            let mut cut = false;
            while let Some(&c) = b.get(j) {
                if c == b'"' || c == b'\\' {
                    break;
                }
                if c & 0xc0 != 0x80 {
                    if l == 0 {
                        cut = true;
                        break;
                    }
                    l -= 1;
                }
                j += 1;
            }
            let run = text_run(&b, from, left);
            prop_assert_eq!((run.end, run.left, run.cut), (j, l, cut));
        }
    }
}
