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
use super::scan::{self, Bail, Piece, RawStr, Scan, trusted};
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
    /// A character was pushed past the budget (and left out).
    cut: bool,
}

impl Out {
    fn new(budget: Option<usize>) -> Out {
        // Room for a budget of ASCII (nearly every preview), so the text is not grown a
        // piece at a time.
        let room = budget.map_or(0, |b| b.saturating_add(16).min(4096));
        Out {
            s: String::with_capacity(room),
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

    fn push_char(&mut self, c: char) {
        if self.cut {
            return;
        }
        if self.left == 0 {
            self.cut = true;
            return;
        }
        self.s.push(c);
        if self.limited {
            self.left -= 1;
        }
    }

    /// Appends a run of a string's text ([`Piece::Run`]), checking as much of it as the
    /// budget takes: the run is counted while it is checked, and never decoded into a
    /// string of its own.
    fn push_run(&mut self, raw: &[u8]) -> Scan<()> {
        if self.cut || raw.is_empty() {
            return Ok(());
        }
        if raw.len() <= self.left {
            // Within the budget even counted in bytes (always, without a budget).
            let (t, n) = scan::utf8_chars(raw)?;
            self.s.push_str(t);
            if self.limited {
                self.left -= n;
            }
            return Ok(());
        }
        let head = &raw[..self.left];
        if head.is_ascii() {
            // The budget ends in ASCII (most texts): a character a byte, and one follows.
            // SAFETY: ASCII is UTF-8.
            self.s.push_str(unsafe { std::str::from_utf8_unchecked(head) });
            self.left = 0;
            self.cut = true;
            return Ok(());
        }
        let (cut, n) = scan::char_cut_counted(raw, self.left);
        // Counted already: only checked.
        let t = simdutf8::basic::from_utf8(&raw[..cut]).map_err(|_| Bail)?;
        self.s.push_str(t);
        self.left -= n;
        self.cut = cut < raw.len();
        Ok(())
    }

    /// How many bytes of a run are worth reading: as many as the characters left (and one
    /// past them, to tell a cut) can take, or all.
    fn run_room(&self) -> usize {
        self.left.saturating_add(1).saturating_mul(4)
    }

    /// Appends a string's value, decoding only as much of it as the budget takes.
    fn push_value(&mut self, s: &RawStr<'_>) -> Scan<()> {
        let mut i = 0;
        while i < s.bytes.len() && !self.cut {
            let (piece, next) = s.piece_at(i, self.run_room())?;
            match piece {
                Piece::Run(raw) => self.push_run(raw)?,
                Piece::Char(c) => self.push_char(c),
            }
            i = next;
        }
        Ok(())
    }

    fn done(&self) -> bool {
        self.cut
    }
}

/// A message's or custom message's `content`, as far as previews read it.
#[derive(Default, Clone, Copy)]
enum ContentParts<'a> {
    #[default]
    None,
    Text(RawStr<'a>),
    /// The content array: the line from its `[` on (its blocks are read as they are
    /// needed, and no further than they are).
    Blocks(&'a [u8]),
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

/// Walks the blocks of a content array in order until `each` says it has seen enough
/// (returns false): the rest of the array is not read.
fn each_block<'a>(raw: &'a [u8], mut each: impl FnMut(BlockParts<'a>) -> Scan<bool>) -> Scan<()> {
    let mut enough = false;
    let walked = trusted::array(raw, 0, |b, p| {
        let (block, end) = block_at(b, p)?;
        if let Some(block) = block
            && !each(block)?
        {
            // Not a decline: the walk stops here.
            enough = true;
            return Err(Bail);
        }
        Ok(end)
    });
    match walked {
        Err(_) if enough => Ok(()),
        other => other.map(|_| ()),
    }
}

fn content_at(b: &[u8], p: usize) -> Scan<(ContentParts<'_>, usize)> {
    match b.get(p) {
        Some(b'"') => {
            let (s, end) = trusted::string(b, p)?;
            Ok((ContentParts::Text(s), end))
        }
        Some(b'[') => {
            let end = trusted::skip(b, p)?;
            Ok((ContentParts::Blocks(&b[p..end]), end))
        }
        _ => Ok((ContentParts::None, trusted::skip(b, p)?)),
    }
}

/// [`content_at`] for a content whose end is not needed: an array is not walked here.
fn content_from(b: &[u8], p: usize) -> Scan<ContentParts<'_>> {
    match b.get(p) {
        Some(b'[') => Ok(ContentParts::Blocks(&b[p..])),
        _ => Ok(content_at(b, p)?.0),
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

    /// Adds a string value, decoding only as much of it as the line and `out` need.
    fn feed_raw(&mut self, out: &mut Out, s: &RawStr<'_>) -> Scan<()> {
        let b = s.bytes;
        let mut i = 0;
        while i < b.len() && !self.full(out) {
            if !self.started && (b[i] == b' ' || b[i] >= 0x80) && !(s.escaped && b[i] == b'\\') {
                // Leading whitespace in the text: skipped a character at a time.
                let (c, len) = if b[i] == b' ' { (' ', 1) } else { scan::char_at(b, i)? };
                if c.is_whitespace() {
                    i += len;
                    continue;
                }
            }
            let (piece, next) = s.piece_at(i, out.run_room())?;
            match piece {
                Piece::Char(c) => self.feed_char(out, c),
                Piece::Run(raw) => {
                    // Runs hold no line break; a run starting with whitespace was skipped
                    // above, so this one starts the line if nothing did.
                    self.started = true;
                    if std::mem::take(&mut self.cr) {
                        out.push_char('\r');
                    }
                    out.push_run(raw)?;
                }
            }
            i = next;
        }
        Ok(())
    }

    /// Ends the line: a `\r` held back belongs to it.
    fn finish(&mut self, out: &mut Out) {
        if std::mem::take(&mut self.cr) {
            out.push_char('\r');
        }
    }
}

/// The first line of a content's text (its string, or its text blocks joined by a space).
/// `calls` collects the tool call blocks of an array when asked for, until `out` is full.
fn content_first_line<'a>(
    out: &mut Out,
    content: &ContentParts<'a>,
    mut calls: Option<&mut Vec<BlockParts<'a>>>,
) -> Scan<()> {
    let mut line = FirstLine::new();
    match content {
        ContentParts::None => {}
        ContentParts::Text(s) => line.feed_raw(out, s)?,
        ContentParts::Blocks(raw) => {
            let mut first = true;
            each_block(raw, |block| {
                let kind = block.kind;
                if kind.is_some_and(|k| k.is("text")) {
                    if !line.full(out) {
                        if !first {
                            line.feed_char(out, ' ');
                        }
                        first = false;
                        if let Some(text) = &block.text {
                            line.feed_raw(out, text)?;
                        }
                    }
                } else if let Some(calls) = calls.as_deref_mut()
                    && kind.is_some_and(|k| k.is("toolCall"))
                {
                    calls.push(block);
                }
                // Once `out` is full nothing more shows; once the line is, only tool calls.
                Ok(!(out.done() || (line.done && calls.is_none())))
            })?;
        }
    }
    line.finish(out);
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
    if raw.len() >= 2 && raw[0] == b'"' {
        // The string's end is known: its body is not looked for again.
        let bytes = &raw[1..raw.len() - 1];
        let s = RawStr {
            bytes,
            escaped: memchr::memchr(b'\\', bytes).is_some(),
        };
        out.push_value(&s)?;
    } else {
        out.push(&value_text(raw)?);
    }
    Ok(())
}

/// `name(arg=value, …)` of each tool call, joined by `, `.
fn push_calls(out: &mut Out, calls: &[BlockParts<'_>]) -> Scan<()> {
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
            Some(p) => content_from(line, p.get() as usize)?,
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

/// How many bytes of a text [`short_preview`] reads first before it looks for the text's
/// end: a row's first line nearly always ends within them (else it reads on as far as any
/// budget of characters could reach, before giving up).
const WINDOW: usize = 256;

/// The string whose opening quote is at `pos`: whole (`true`) when it ends within `window`
/// bytes, else the start of it (`false`), cut where no escape and no character is split,
/// so that its pieces are the whole string's first pieces. `None` when no such cut is near.
fn string_start(b: &[u8], pos: usize, window: usize) -> Option<(RawStr<'_>, bool)> {
    let start = pos + 1;
    let limit = b.len().min(start.saturating_add(window));
    if let Ok((s, _)) = trusted::string(&b[..limit], pos) {
        return Some((s, true));
    }
    // No backslash in the 12 bytes before the cut: no escape (at most 6 bytes, 12 for a
    // surrogate pair written as two) runs into it or ends just before it.
    let mut cut = limit;
    for _ in 0..8 {
        while cut > start && b.get(cut).is_some_and(|&c| c & 0xc0 == 0x80) {
            cut -= 1;
        }
        let from = cut.saturating_sub(12).max(start);
        match memchr::memchr(b'\\', &b[from..cut]) {
            None => {
                let bytes = &b[start..cut];
                let escaped = memchr::memchr(b'\\', bytes).is_some();
                return Some((RawStr { bytes, escaped }, false));
            }
            Some(k) => cut = from + k,
        }
    }
    None
}

/// The preview of a message that shows the first line of its content only (not an
/// assistant's: its tool calls are read to the end), read no further than the line or the
/// budget reach: a long text (a tool's output) is not walked to its end, as it must be when
/// a key could be written again after it. `None` when that cannot be told without reading
/// on (the general reading then decides); else what the general reading gives.
fn short_preview(line: &[u8], shape: &Shape<'_>, budget: usize, window: usize) -> Option<Preview> {
    let at = shape.at?;
    let content = at.content?.get() as usize;
    let mut out = Out::new(Some(budget));
    match shape.role {
        Some(Role::Assistant | Role::BashExecution | Role::System) => return None,
        Some(Role::ToolResult) => {
            match at.tool_name {
                Some(p) => match str_at(line, p.get() as usize).ok()?.0 {
                    Some(name) => out.push(&whole(&name).ok()?),
                    None => out.push("tool"),
                },
                None => out.push("tool"),
            }
            out.push(if at.is_error { " error: " } else { ": " });
        }
        _ => {}
    }
    let mut first_line = FirstLine::new();
    let fl = &mut first_line;
    // Feeds the string at `p` (its opening quote); `None` when its start did not fill the
    // line and the rest was not read.
    let feed = |out: &mut Out, fl: &mut FirstLine, p: usize| -> Option<usize> {
        let (s, whole) = string_start(line, p, window)?;
        fl.feed_raw(out, &s).ok()?;
        if whole {
            Some(p + 1 + s.bytes.len() + 1)
        } else if fl.full(out) {
            // Nothing after this can show: where the string ends does not matter.
            Some(usize::MAX)
        } else {
            None
        }
    };
    match line.get(content) {
        Some(b'"') => {
            feed(&mut out, fl, content)?;
        }
        Some(b'[') if at.plain_blocks => {
            // The blocks in order, as `content_first_line` walks them; a block's `type` and
            // `text` are each written once.
            let mut first = true;
            let mut p = scan::ws(line, content + 1);
            if line.get(p) == Some(&b']') {
                p = usize::MAX;
            }
            while p != usize::MAX && !fl.full(&out) {
                if line.get(p) == Some(&b'{') {
                    let mut kind: Option<RawStr<'_>> = None;
                    // The text's opening quote, while the type is not known yet.
                    let mut text_at: Option<usize> = None;
                    let mut fed = false;
                    let mut q = scan::ws(line, p + 1);
                    if line.get(q) == Some(&b'}') {
                        q += 1;
                    } else {
                        loop {
                            if line.get(q) != Some(&b'"') {
                                return None;
                            }
                            let (key, after) = trusted::string(line, q).ok()?;
                            q = scan::ws(line, after);
                            if line.get(q) != Some(&b':') {
                                return None;
                            }
                            q = scan::ws(line, q + 1);
                            if key.is("type") {
                                let (k, end) = str_at(line, q).ok()?;
                                kind = k;
                                q = end;
                            } else if key.is("text") && line.get(q) == Some(&b'"') {
                                if kind.is_some_and(|k| k.is("text")) {
                                    // A text block's only text: fed as far as it shows.
                                    if !fl.full(&out) {
                                        if !first {
                                            fl.feed_char(&mut out, ' ');
                                        }
                                        first = false;
                                        fed = true;
                                        q = feed(&mut out, fl, q)?;
                                        if q == usize::MAX {
                                            break;
                                        }
                                    } else {
                                        q = trusted::skip(line, q).ok()?;
                                    }
                                } else {
                                    text_at = Some(q);
                                    q = trusted::skip(line, q).ok()?;
                                }
                            } else {
                                q = trusted::skip(line, q).ok()?;
                            }
                            q = scan::ws(line, q);
                            match line.get(q) {
                                Some(b',') => q = scan::ws(line, q + 1),
                                Some(b'}') => {
                                    q += 1;
                                    break;
                                }
                                _ => return None,
                            }
                        }
                    }
                    if q == usize::MAX {
                        break;
                    }
                    if !fed && kind.is_some_and(|k| k.is("text")) && !fl.full(&out) {
                        // A text block whose text came before its type, or has none.
                        if !first {
                            fl.feed_char(&mut out, ' ');
                        }
                        first = false;
                        if let Some(t) = text_at
                            && feed(&mut out, fl, t)? == usize::MAX
                        {
                            break;
                        }
                    }
                    p = q;
                } else {
                    p = trusted::skip(line, p).ok()?;
                }
                p = scan::ws(line, p);
                match line.get(p) {
                    Some(b',') => p = scan::ws(line, p + 1),
                    Some(b']') => break,
                    _ => return None,
                }
            }
        }
        _ => return None,
    }
    first_line.finish(&mut out);
    Some(Preview {
        cut: out.cut,
        text: out.s,
    })
}

/// The preview of an entry read from its line. `budget` caps the characters produced
/// (`None`: the whole preview).
pub fn preview(line: &[u8], shape: &Shape<'_>, budget: Option<usize>) -> Scan<Preview> {
    if let Some(budget) = budget
        && *shape.kind == EntryKind::Message
        && let Some(p) = short_preview(line, shape, budget, WINDOW)
            .or_else(|| short_preview(line, shape, budget, budget.saturating_mul(12).saturating_add(64)))
    {
        return Ok(p);
    }
    general_preview(line, shape, budget)
}

/// [`preview`] read by walking the values a preview shows to their ends.
fn general_preview(line: &[u8], shape: &Shape<'_>, budget: Option<usize>) -> Scan<Preview> {
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
                Some(raw) => content_from(raw, 0)?,
                None => ContentParts::None,
            };
            content_first_line(&mut out, &content, None)?;
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
        let mut line = FirstLine::new();
        line.feed_raw(out, &s)?;
        line.finish(out);
    }
    Ok(())
}

fn message_preview(out: &mut Out, m: &MessageParts<'_>, role: Option<&Role>) -> Scan<()> {
    match role {
        Some(Role::Assistant) => {
            let mut calls = Vec::new();
            content_first_line(out, &m.content, Some(&mut calls))?;
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
            content_first_line(out, &m.content, None)?;
        }
        Some(Role::BashExecution) => {
            out.push("$ ");
            if let Some(command) = &m.command {
                out.push_value(command)?;
            }
        }
        Some(Role::System) => out.push("system prompt"),
        _ => content_first_line(out, &m.content, None)?,
    }
    Ok(())
}

/// What Pi's default tree view reads of an assistant message: whether a text block holds
/// more than JavaScript whitespace, and its `stopReason`.
pub fn assistant_visibility(line: &[u8], at: Option<&MessageAt>) -> Scan<(bool, Option<String>)> {
    let message = message_parts(line, at)?;
    let mut has_text = false;
    if let ContentParts::Blocks(raw) = message.content {
        each_block(raw, |block| {
            if block.kind.is_some_and(|k| k.is("text"))
                && let Some(text) = &block.text
                && !is_js_blank(text)?
            {
                has_text = true;
            }
            Ok(!has_text)
        })?;
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
            prop::option::of((0usize..300, prop::sample::select(&[0x80u8, 0xff, 0xe6][..]))),
        )
            .prop_map(|(parts, invalid)| {
                let mut b = parts.concat().into_bytes();
                if let Some((at, byte)) = invalid {
                    let at = at.min(b.len());
                    b.insert(at, byte);
                }
                b
            })
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

    /// A content block: keys in any order, `type` and `text` sometimes written twice or of
    /// other values, and keys the preview skips.
    fn any_block() -> impl Strategy<Value = String> {
        let member = prop_oneof![
            4 => prop::sample::select(vec!["text", "toolCall", "image", "thinking", ""])
                .prop_map(|t| format!(r#""type":"{t}""#)),
            1 => Just(r#""type":7"#.to_owned()),
            4 => text_body().prop_map(|t| format!(r#""text":"{t}""#)),
            1 => Just(r#""text":null"#.to_owned()),
            1 => text_body().prop_map(|t| format!(r#""thinking":"{t}""#)),
            1 => Just(r#""data":{"a":[1,"\\\"}"]}"#.to_owned()),
        ];
        prop_oneof![
            8 => prop::collection::vec(member, 0..5).prop_map(|m| format!("{{{}}}", m.join(" , "))),
            1 => Just("5".to_owned()),
            1 => text_body().prop_map(|t| format!("\"{t}\"")),
        ]
    }

    fn any_content() -> impl Strategy<Value = String> {
        prop_oneof![
            3 => prop::collection::vec(any_block(), 0..5).prop_map(|b| format!("[ {} ]", b.join(","))),
            1 => text_body().prop_map(|t| format!("\"{t}\"")),
            1 => Just("null".to_owned()),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        /// A preview read no further than it shows is the preview of the general reading,
        /// for any window and budget; and it is given for plain lines.
        #[test]
        fn short_previews_equal_the_general_previews(
            role in prop::sample::select(vec!["user", "toolResult", "custom", "assistant", "branchSummary"]),
            content in any_content(),
            window in prop_oneof![1usize..40, 40usize..400, Just(WINDOW)],
            budget in prop_oneof![0usize..20, 20usize..300],
            is_error in any::<bool>(),
        ) {
            let header = r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}"#;
            let line = format!(
                r#"{{"type":"message","id":"a","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{{"role":"{role}","toolName":"bash","isError":{is_error},"content":{content}}}}}"#
            );
            let session = super::super::Session::from_bytes("t.jsonl".into(), format!("{header}\n{line}\n").into_bytes()).unwrap();
            let e = &session.entries[0];
            prop_assert!(e.message_at().is_some(), "{}", line);
            let shape = Shape { kind: &e.kind, role: e.role(), checkout: false, at: e.message_at() };
            let general = general_preview(session.raw(0), &shape, Some(budget));
            if let Some(short) = short_preview(session.raw(0), &shape, budget, window) {
                prop_assert_eq!(Ok(short), general, "{}", line);
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
                    prop_assert_eq!(out.s, format!("{before}{want}"));
                    prop_assert_eq!(out.cut, before_cut || cut);
                }
                // Declined, unless the budget ran out before what is declined.
                Err(_) => prop_assert!(pushed.is_err() || out.cut),
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
                fed = line.feed_raw(&mut out, &raw(t));
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
                prop_assert_eq!(&out.s, &want);
                prop_assert_eq!(out.cut, cut);
            }
        }
    }
}
