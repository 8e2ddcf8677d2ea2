//! The string tokens of a JSON line, with their paths and byte spans, and rewriting one in place.
//!
//! Redaction must change only the string tokens that held a secret and leave every other
//! byte of a line as it was, so nothing here builds a tree: [`for_each_string`] walks the
//! raw text (validating it as `JSON.parse` does, with the scanner of
//! [`crate::json::scan`] skipping string bodies), [`decode`] reads one token with a map
//! back to its raw bytes, [`replace_in_token`] rewrites only the decoded ranges asked for,
//! and [`splice`] puts the new tokens into the line.
//!
//! Decoded text follows [`crate::json::jsparse`] except in one respect: a lone surrogate
//! escape (`"\ud83d"`, which `JSON.parse` keeps) reads as U+FFFD rather than jsparse's
//! stand-in character, so rules matching text see what a terminal shows; the map still
//! points it at its six-byte escape, which is kept as written unless an edit covers it. (So a
//! real character of U+10F800..U+10FFFF, the range jsparse borrows for its stand-ins, reads
//! as itself here, where jsparse's display shows U+FFFD.)

use crate::json::jsjson;
use crate::json::scan;
use std::ops::Range;

/// One step of a JSON path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Step {
    /// A member of an object: its key, decoded (lone surrogates as U+FFFD, as in [`Decoded`]).
    Key(String),
    /// An element of an array.
    Index(usize),
}

/// A JSON path rendered as users read it: `message.content[2].arguments.command`. A key that
/// is not a plain ASCII identifier (`[A-Za-z_$][A-Za-z0-9_$]*`) is written `["odd key"]`,
/// escaped as `JSON.stringify` escapes it. The root (an empty path) renders as `""`.
pub fn render(path: &[Step]) -> String {
    let mut out = String::new();
    for step in path {
        match step {
            Step::Index(i) => {
                out.push('[');
                out.push_str(&i.to_string());
                out.push(']');
            }
            Step::Key(k) if is_identifier(k) => {
                if !out.is_empty() {
                    out.push('.');
                }
                out.push_str(k);
            }
            Step::Key(k) => {
                out.push('[');
                jsjson::write_string(&mut out, k);
                out.push(']');
            }
        }
    }
    out
}

/// Whether `k` reads unambiguously after a dot.
fn is_identifier(k: &str) -> bool {
    let mut bytes = k.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_' || b == b'$')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'$')
}

/// A line that is not JSON: `JSON.parse` would reject it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Malformed {
    /// Byte offset in the line near which reading failed (the start of the token that did not read).
    pub offset: usize,
}

impl std::fmt::Display for Malformed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "not JSON (at byte {})", self.offset)
    }
}

impl std::error::Error for Malformed {}

/// Calls `f` for every string token of the JSON text `line`, values and object keys alike
/// (`is_key` tells them apart), in document order, with the path from the root and the byte
/// span of the token in `line` (quotes included). A key's path ends with the key itself (the
/// path of the member it names). Duplicate keys: every occurrence is visited, since what is
/// on disk matters, not only what `JSON.parse` keeps.
///
/// Validates as `JSON.parse` does (JSON whitespace only, exact number and literal grammar,
/// escapes checked, no raw control characters in strings; invalid UTF-8 inside a string is
/// accepted, as Node reads it as U+FFFD), and returns `Err` on anything it rejects; `f` may
/// have been called for tokens before the fault. The one difference: nesting is not limited
/// (jsparse stops at [`crate::json::jsparse::MAX_DEPTH`]); the walk is iterative, its
/// stack is the path, so any depth costs heap, not stack.
pub fn for_each_string(line: &[u8], f: impl FnMut(&[Step], Range<usize>, bool /* is_key */)) -> Result<(), Malformed> {
    Walker::default().walk(line, f)
}

/// [`for_each_string`] with its buffers kept between lines: the path and the keys' text
/// grow to the deepest line seen, so walking further lines allocates nothing.
#[derive(Debug, Default)]
pub struct Walker {
    /// The path; only `path[..depth]` is live during a walk, the rest keeps buffers.
    path: Vec<Step>,
    /// Key buffers freed when a step became an index.
    spare: Vec<String>,
}

impl Walker {
    /// Walks `line` as [`for_each_string`] does.
    pub fn walk(
        &mut self,
        line: &[u8],
        mut f: impl FnMut(&[Step], Range<usize>, bool /* is_key */),
    ) -> Result<(), Malformed> {
        let b = line;
        let bad = |offset: usize| Err(Malformed { offset });
        // The containers open around `pos`: `path[..depth]`, an index step for an array, a
        // key step for an object.
        let mut depth = 0usize;
        let mut pos = scan::ws(b, 0);
        'value: loop {
            // A value starts at `pos` (whitespace skipped).
            match b.get(pos) {
                Some(b'"') => {
                    let Ok((_, end)) = scan::string(b, pos) else {
                        return bad(pos);
                    };
                    f(&self.path[..depth], pos..end, false);
                    pos = end;
                }
                Some(b'{') => {
                    pos = scan::ws(b, pos + 1);
                    if b.get(pos) == Some(&b'}') {
                        pos += 1;
                    } else {
                        pos = self.member(b, pos, depth, &mut f)?;
                        depth += 1;
                        continue 'value;
                    }
                }
                Some(b'[') => {
                    pos = scan::ws(b, pos + 1);
                    if b.get(pos) == Some(&b']') {
                        pos += 1;
                    } else {
                        self.set_index(depth);
                        depth += 1;
                        continue 'value;
                    }
                }
                // Numbers and literals (containers and strings were taken above).
                Some(_) => match scan::skip(b, pos) {
                    Ok(end) => pos = end,
                    Err(_) => return bad(pos),
                },
                None => return bad(pos),
            }
            // A value ended at `pos`: go on in its container, closing those that end here.
            loop {
                pos = scan::ws(b, pos);
                if depth == 0 {
                    return if pos == b.len() { Ok(()) } else { bad(pos) };
                }
                match (&mut self.path[depth - 1], b.get(pos)) {
                    (Step::Index(i), Some(b',')) => {
                        *i += 1;
                        pos = scan::ws(b, pos + 1);
                        continue 'value;
                    }
                    (Step::Key(_), Some(b',')) => {
                        pos = self.member(b, scan::ws(b, pos + 1), depth - 1, &mut f)?;
                        continue 'value;
                    }
                    (Step::Index(_), Some(b']')) | (Step::Key(_), Some(b'}')) => {
                        pos += 1;
                        depth -= 1;
                    }
                    _ => return bad(pos),
                }
            }
        }
    }

    /// Reads the key at `pos` into the step at `depth`, hands it to `f`, and returns the
    /// position of the member's value (after the colon and whitespace).
    fn member(
        &mut self,
        b: &[u8],
        pos: usize,
        depth: usize,
        f: &mut impl FnMut(&[Step], Range<usize>, bool),
    ) -> Result<usize, Malformed> {
        let bad = Malformed { offset: pos };
        if b.get(pos) != Some(&b'"') {
            return Err(bad);
        }
        let (raw, end) = scan::string(b, pos).map_err(|_| bad)?;
        let key = self.set_key(depth);
        key.clear();
        match raw.bytes.is_ascii() && !raw.escaped {
            // Nearly every key: copied as it is.
            // SAFETY: ASCII is UTF-8.
            true => key.push_str(unsafe { std::str::from_utf8_unchecked(raw.bytes) }),
            false => decode_body(raw.bytes, key, |_| {}),
        }
        f(&self.path[..=depth], pos..end, true);
        let colon = scan::ws(b, end);
        if b.get(colon) != Some(&b':') {
            return Err(Malformed { offset: colon });
        }
        Ok(scan::ws(b, colon + 1))
    }

    /// Makes the step at `depth` an index 0.
    fn set_index(&mut self, depth: usize) {
        if depth == self.path.len() {
            self.path.push(Step::Index(0));
        } else if let Step::Key(s) = std::mem::replace(&mut self.path[depth], Step::Index(0)) {
            self.spare.push(s);
        }
    }

    /// Makes the step at `depth` a key and returns its buffer (holding an old key).
    fn set_key(&mut self, depth: usize) -> &mut String {
        if depth == self.path.len() {
            self.path.push(Step::Key(self.spare.pop().unwrap_or_default()));
        } else if matches!(self.path[depth], Step::Index(_)) {
            self.path[depth] = Step::Key(self.spare.pop().unwrap_or_default());
        }
        match &mut self.path[depth] {
            Step::Key(s) => s,
            Step::Index(_) => unreachable!("just made a key"),
        }
    }
}

/// A string token decoded, with the map from decoded byte offsets back to the token's raw bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decoded {
    /// The string's value. A lone surrogate escape reads as U+FFFD (3 bytes here, mapped to
    /// its 6-byte escape), as does each invalid UTF-8 sequence (mapped to its bytes, as
    /// `String::from_utf8_lossy` and Node cut them).
    pub text: String,
    /// Each character of `text` not copied from the token's bytes (an escape, or U+FFFD for
    /// invalid UTF-8), in order; between two, text and token hold the same bytes. Empty for
    /// a token without escapes in valid UTF-8, the common case.
    map: Vec<Piece>,
}

/// A character of decoded text that stands for other raw bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Piece {
    /// Its offset in the decoded text.
    text: usize,
    /// Its offset in the token (quotes included).
    raw: usize,
    /// Its length in the text (1 to 4).
    text_len: u8,
    /// Its length in the token (2 to 12).
    raw_len: u8,
}

/// Decodes a string token (quotes included), as jsparse reads it except that lone
/// surrogates read as U+FFFD (see [`Decoded`]). `token` should be a token
/// [`for_each_string`] found; other bytes decode to something, without panicking (a stray
/// backslash reads as U+FFFD).
pub fn decode(token: &[u8]) -> Decoded {
    let body = token.get(1..token.len().saturating_sub(1)).unwrap_or_default();
    let mut text = String::with_capacity(body.len());
    let mut map = Vec::new();
    decode_body(body, &mut text, |p| {
        map.push(Piece {
            // Offsets in the body, shifted past the opening quote.
            raw: p.raw + 1,
            ..p
        })
    });
    Decoded { text, map }
}

/// The value of a string body (a token without its quotes), without the map [`decode`]
/// keeps: for a piece of a token cut at escapes, whose value is that piece of the token's.
pub fn decode_body_text(body: &[u8]) -> String {
    let mut text = String::with_capacity(body.len());
    decode_body(body, &mut text, |_| {});
    text
}

/// Appends the value of a string body to `out`, reporting each character not copied from
/// the body (offsets in `out` as it was on entry plus what was appended, and in `body`).
fn decode_body(body: &[u8], out: &mut String, mut piece: impl FnMut(Piece)) {
    let base = out.len();
    let mut push = |out: &mut String, c: char, raw: usize, raw_len: usize| {
        piece(Piece {
            text: out.len() - base,
            raw,
            text_len: c.len_utf8() as u8,
            raw_len: raw_len as u8,
        });
        out.push(c);
    };
    // Valid UTF-8 (the rule) is checked once for the whole body, not run by run: the runs
    // between escapes (`\n` in a tool's output) are short, and each check has a cost.
    let whole = simdutf8::basic::from_utf8(body).ok();
    let mut i = 0;
    while i < body.len() {
        let run_end = memchr::memchr(b'\\', &body[i..]).map_or(body.len(), |p| i + p);
        // The run up to the escape, cut where its UTF-8 is invalid as Node cuts it. In a
        // valid body, runs start and end at ASCII bytes (an escape, or the ends).
        if let Some(valid) = whole
            .map(|w| &w[i..run_end])
            .or_else(|| simdutf8::basic::from_utf8(&body[i..run_end]).ok())
        {
            out.push_str(valid);
            i = run_end;
            if i == body.len() {
                break;
            }
        }
        let mut at = i;
        for chunk in body[i..run_end].utf8_chunks() {
            out.push_str(chunk.valid());
            at += chunk.valid().len();
            if !chunk.invalid().is_empty() {
                push(out, char::REPLACEMENT_CHARACTER, at, chunk.invalid().len());
                at += chunk.invalid().len();
            }
        }
        i = run_end;
        if i == body.len() {
            break;
        }
        let (c, len) = match scan::escape_at(body, i) {
            Ok(escape) => escape,
            // The scanner declines lone surrogates, which JSON.parse keeps.
            Err(_) => match body.get(i + 1..i + 6) {
                Some([b'u', hex @ ..])
                    if hex.iter().all(u8::is_ascii_hexdigit)
                        && matches!(hex[0], b'd' | b'D')
                        && matches!(hex[1], b'8'..=b'9' | b'a'..=b'f' | b'A'..=b'F') =>
                {
                    (char::REPLACEMENT_CHARACTER, 6)
                }
                _ => (char::REPLACEMENT_CHARACTER, 1),
            },
        };
        push(out, c, i, len);
        i += len;
    }
}

impl Decoded {
    /// The raw byte range (within the token, quotes included) of the decoded bytes `range`.
    ///
    /// A range should lie on character boundaries of `text`; one that does not is widened
    /// to the whole characters it touches (a start inside a character moves to its start,
    /// an end to its end), so a range never splits a multi-byte character nor an escape:
    /// a character from a surrogate-pair escape maps to all 12 bytes of the pair. A range
    /// past the end is cut at the end; a reversed one is empty at its start.
    pub fn raw_range(&self, range: Range<usize>) -> Range<usize> {
        let (start, end) = self.widen(range);
        self.raw_offset(start)..self.raw_offset(end)
    }

    /// `range` widened to character boundaries of `text`.
    fn widen(&self, range: Range<usize>) -> (usize, usize) {
        let t = &self.text;
        let mut start = range.start.min(t.len());
        while !t.is_char_boundary(start) {
            start -= 1;
        }
        let mut end = range.end.clamp(start, t.len());
        while !t.is_char_boundary(end) {
            end += 1;
        }
        (start, end)
    }

    /// The token offset of text offset `at`, a character boundary.
    fn raw_offset(&self, at: usize) -> usize {
        let k = self.map.partition_point(|p| p.text < at);
        // Pieces before `at` end at or before it (it is a character boundary); the bytes
        // after the last of them up to `at` are copies.
        match k.checked_sub(1).map(|k| self.map[k]) {
            None => 1 + at,
            Some(p) => p.raw + usize::from(p.raw_len) + (at - p.text - usize::from(p.text_len)),
        }
    }
}

/// The token with the decoded ranges replaced by `replacement` strings, each escaped as
/// `JSON.stringify` escapes it; every raw byte outside the replaced ranges is kept exactly
/// (a `\/` or `\u0041` escape the writer chose stays as it was).
///
/// Ranges are widened to whole characters and escapes as [`Decoded::raw_range`] says, and
/// may come in any order. Ranges that overlap once widened are merged into one, replaced by
/// their replacements in order of their starts, so no byte of any range survives (what a
/// redaction needs). One seam JSON itself joins: removing all text between a lone high
/// surrogate escape and a lone low one leaves them a pair, which `JSON.parse` reads as one
/// character, as JavaScript would after the same edit of its string.
pub fn replace_in_token(token: &[u8], decoded: &Decoded, edits: &[(Range<usize>, &str)]) -> Vec<u8> {
    let mut raw: Vec<(Range<usize>, &str)> = edits
        .iter()
        .map(|(range, with)| {
            // Clamped for bytes that are not a token (a valid one always holds its range).
            let r = decoded.raw_range(range.clone());
            (r.start.min(token.len())..r.end.min(token.len()), *with)
        })
        .collect();
    raw.sort_by_key(|(r, _)| r.start);
    let mut out = Vec::with_capacity(token.len() + edits.iter().map(|(_, w)| w.len() + 8).sum::<usize>());
    let mut escaped = String::new();
    // Copied up to here; the merged range being written ends at `open`.
    let mut copied = 0;
    let mut open: Option<usize> = None;
    for (r, with) in raw {
        match open {
            Some(end) if r.start < end => open = Some(end.max(r.end)),
            _ => {
                if let Some(end) = open {
                    copied = end;
                }
                out.extend_from_slice(&token[copied..r.start]);
                open = Some(r.end);
            }
        }
        escaped.clear();
        jsjson::write_string(&mut escaped, with);
        out.extend_from_slice(&escaped.as_bytes()[1..escaped.len() - 1]);
    }
    if let Some(end) = open {
        copied = end;
    }
    out.extend_from_slice(&token[copied..]);
    out
}

/// A line with some tokens replaced: `edits` are (token span in `line`, new token bytes), in
/// any order; bytes outside the spans are copied.
///
/// # Panics
/// If two spans overlap or one lies outside `line`: spans come from [`for_each_string`],
/// which never gives such.
pub fn splice(line: &[u8], edits: &[(Range<usize>, Vec<u8>)]) -> Vec<u8> {
    let mut order: Vec<&(Range<usize>, Vec<u8>)> = edits.iter().collect();
    order.sort_by_key(|(r, _)| r.start);
    let grow: usize = edits.iter().map(|(_, t)| t.len()).sum();
    let mut out = Vec::with_capacity(line.len() + grow);
    let mut copied = 0;
    for (r, token) in order {
        assert!(
            copied <= r.start && r.start <= r.end && r.end <= line.len(),
            "splice: span {r:?} overlaps another or lies outside the line"
        );
        out.extend_from_slice(&line[copied..r.start]);
        out.extend_from_slice(token);
        copied = r.end;
    }
    out.extend_from_slice(&line[copied..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json::jsparse;
    use proptest::prelude::*;
    use serde_json::Value;

    /// Pieces of string text as written and what they hold (UTF-16 units, as JavaScript
    /// holds a string, so lone surrogates and the pairs they form next to each other are
    /// modelled exactly). `None`: the units of the raw text read as UTF-8 (lossily).
    const FRAGS: &[(&[u8], Option<&[u16]>)] = &[
        (b"a", None),
        (b"key", None),
        (b"sk-ant-api03-XYZ", None),
        (b" ", None),
        ("é".as_bytes(), None),
        ("日本".as_bytes(), None),
        ("😀".as_bytes(), None),
        ("\u{7f}\u{2028}".as_bytes(), None),
        (b"\\n", Some(&[0x0a])),
        (b"\\t", Some(&[0x09])),
        (b"\\b", Some(&[0x08])),
        (b"\\\"", Some(&[0x22])),
        (b"\\\\", Some(&[0x5c])),
        (b"\\/", Some(&[0x2f])),
        (b"\\u0041", Some(&[0x41])),
        (b"\\u00e9", Some(&[0xe9])),
        (b"\\u0000", Some(&[0])),
        (b"\\u001F", Some(&[0x1f])),
        (b"\\ud83d\\ude00", Some(&[0xd83d, 0xde00])),
        (b"\\uD83D\\uDE00", Some(&[0xd83d, 0xde00])),
        (b"\\ud83d", Some(&[0xd83d])),
        (b"\\uDB40", Some(&[0xdb40])),
        (b"\\ude00", Some(&[0xde00])),
        (b"\xff", Some(&[0xfffd])),
        (b"\xf0\x9f\x98", Some(&[0xfffd])),
        (b"\xc3", Some(&[0xfffd])),
    ];

    /// Text as users see it: lone surrogates as U+FFFD.
    fn units_text(units: &[u16]) -> String {
        char::decode_utf16(units.iter().copied())
            .map(|c| c.unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect()
    }

    /// A string token: its raw bytes (quotes included) and its value's units.
    fn token_of(frags: &[usize]) -> (Vec<u8>, Vec<u16>) {
        let mut raw = vec![b'"'];
        let mut units = Vec::new();
        for &k in frags {
            let (r, u) = FRAGS[k];
            raw.extend_from_slice(r);
            match u {
                Some(u) => units.extend_from_slice(u),
                None => units.extend(std::str::from_utf8(r).unwrap().encode_utf16()),
            }
        }
        raw.push(b'"');
        (raw, units)
    }

    fn frags() -> impl Strategy<Value = Vec<usize>> {
        prop::collection::vec(0..FRAGS.len(), 0..8)
    }

    /// A JSON value as it could be written, odd bits and all.
    #[derive(Debug, Clone)]
    enum Node {
        Str(Vec<usize>),
        Scalar(&'static str),
        Arr(Vec<Node>),
        /// Members; keys from a small pool, so duplicates are common.
        Obj(Vec<(Vec<usize>, Node)>),
    }

    fn node() -> impl Strategy<Value = Node> {
        let leaf = prop_oneof![
            3 => frags().prop_map(Node::Str),
            1 => prop::sample::select(&["0", "-1.5e3", "1e400", "-0", "true", "false", "null", "123456789012345678901234"][..])
                .prop_map(Node::Scalar),
        ];
        leaf.prop_recursive(5, 48, 6, |inner| {
            let key = prop::collection::vec(prop::sample::select(&[0usize, 1, 2, 8, 20, 22, 23][..]), 0..2);
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..6).prop_map(Node::Arr),
                prop::collection::vec((key, inner), 0..6).prop_map(Node::Obj),
            ]
        })
    }

    /// What the walk should report for one token: path, value text, whether a key.
    type Seen = (Vec<Step>, String, bool);

    /// Writes `n` with whitespace from `ws` between tokens, and lists its string tokens.
    fn write(
        n: &Node,
        ws: &mut impl Iterator<Item = &'static str>,
        path: &mut Vec<Step>,
        out: &mut Vec<u8>,
        seen: &mut Vec<Seen>,
    ) {
        fn space(ws: &mut impl Iterator<Item = &'static str>, out: &mut Vec<u8>) {
            out.extend_from_slice(ws.next().unwrap_or("").as_bytes());
        }
        match n {
            Node::Str(f) => {
                let (raw, units) = token_of(f);
                out.extend_from_slice(&raw);
                seen.push((path.clone(), units_text(&units), false));
            }
            Node::Scalar(s) => out.extend_from_slice(s.as_bytes()),
            Node::Arr(items) => {
                out.push(b'[');
                space(ws, out);
                for (i, x) in items.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                        space(ws, out);
                    }
                    path.push(Step::Index(i));
                    write(x, ws, path, out, seen);
                    path.pop();
                    space(ws, out);
                }
                out.push(b']');
            }
            Node::Obj(members) => {
                out.push(b'{');
                space(ws, out);
                for (i, (k, x)) in members.iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                        space(ws, out);
                    }
                    let (raw, units) = token_of(k);
                    out.extend_from_slice(&raw);
                    path.push(Step::Key(units_text(&units)));
                    seen.push((path.clone(), units_text(&units), true));
                    space(ws, out);
                    out.push(b':');
                    space(ws, out);
                    write(x, ws, path, out, seen);
                    path.pop();
                    space(ws, out);
                }
                out.push(b'}');
            }
        }
    }

    /// A line: the text, the tokens it holds, and whether every object's keys differ (then
    /// jsparse keeps every member, and paths name values unambiguously).
    fn line() -> impl Strategy<Value = (Vec<u8>, Vec<Seen>, bool)> {
        let spaces = prop::collection::vec(
            prop::sample::select(&["", "", "", " ", "\t", "\r\n", "  \n"][..]),
            0..300,
        );
        (node(), spaces).prop_map(|(n, spaces)| {
            let mut ws = spaces.into_iter().cycle();
            let (mut out, mut seen) = (Vec::new(), Vec::new());
            out.extend_from_slice(ws.next().unwrap_or("").as_bytes());
            write(&n, &mut ws, &mut Vec::new(), &mut out, &mut seen);
            out.extend_from_slice(ws.next().unwrap_or("").as_bytes());
            let distinct = distinct_keys(&n);
            (out, seen, distinct)
        })
    }

    fn distinct_keys(n: &Node) -> bool {
        match n {
            Node::Str(_) | Node::Scalar(_) => true,
            Node::Arr(items) => items.iter().all(distinct_keys),
            Node::Obj(members) => {
                let keys: std::collections::HashSet<String> =
                    members.iter().map(|(k, _)| units_text(&token_of(k).1)).collect();
                keys.len() == members.len() && members.iter().all(|(_, x)| distinct_keys(x))
            }
        }
    }

    /// A token the walk reported: path, span, whether a key.
    type Token = (Vec<Step>, Range<usize>, bool);

    /// Every token of `line`.
    fn walk_all(line: &[u8]) -> Result<Vec<Token>, Malformed> {
        let mut out = Vec::new();
        for_each_string(line, |p, span, key| out.push((p.to_vec(), span, key)))?;
        Ok(out)
    }

    /// The string values of a jsparse value in document order, keys and texts as displayed.
    fn leaves(v: &Value, path: &mut Vec<Step>, out: &mut Vec<(Vec<Step>, String)>) {
        match v {
            Value::String(s) => out.push((path.clone(), jsparse::display(s).into_owned())),
            Value::Array(a) => {
                for (i, x) in a.iter().enumerate() {
                    path.push(Step::Index(i));
                    leaves(x, path, out);
                    path.pop();
                }
            }
            Value::Object(o) => {
                for (k, x) in o {
                    path.push(Step::Key(jsparse::display(k).into_owned()));
                    leaves(x, path, out);
                    path.pop();
                }
            }
            _ => {}
        }
    }

    /// The jsparse value at `path` (keys matched as displayed).
    fn at<'a>(v: &'a mut Value, path: &[Step]) -> &'a mut Value {
        path.iter().fold(v, |v, step| match step {
            Step::Index(i) => &mut v[*i],
            Step::Key(k) => {
                v.as_object_mut()
                    .unwrap()
                    .iter_mut()
                    .find(|(key, _)| jsparse::display(key) == k.as_str())
                    .unwrap()
                    .1
            }
        })
    }

    /// What jsparse reads a token as, displayed.
    fn jsparse_text(token: &[u8]) -> String {
        let v = jsparse::parse(token).unwrap_or_else(|e| panic!("{e}: {:?}", String::from_utf8_lossy(token)));
        jsparse::display(v.as_str().unwrap()).into_owned()
    }

    /// `cases` each, or `PROPTEST_CASES=N` for a longer hunt.
    fn config(cases: u32) -> ProptestConfig {
        ProptestConfig {
            cases: std::env::var("PROPTEST_CASES")
                .ok()
                .and_then(|n| n.parse().ok())
                .unwrap_or(cases),
            failure_persistence: None,
            ..ProptestConfig::default()
        }
    }

    proptest! {
        #![proptest_config(config(1000))]

        /// The walk sees every token written, in order, with its path and span; the values
        /// are exactly those jsparse keeps when keys do not repeat; each token decodes as
        /// jsparse reads it.
        #[test]
        fn walks_every_string_jsparse_sees((line, seen, distinct) in line()) {
            let walked = walk_all(&line).expect("valid JSON");
            prop_assert_eq!(walked.len(), seen.len());
            for ((path, span, key), (want_path, want_text, want_key)) in walked.iter().zip(&seen) {
                prop_assert_eq!(path, want_path);
                prop_assert_eq!(key, want_key);
                let token = &line[span.clone()];
                prop_assert_eq!(token.first(), Some(&b'"'));
                let text = decode(token).text;
                prop_assert_eq!(&text, want_text);
                prop_assert_eq!(&text, &jsparse_text(token));
            }
            let parsed = jsparse::parse(&line).expect("jsparse reads it");
            if distinct {
                let mut want = Vec::new();
                leaves(&parsed, &mut Vec::new(), &mut want);
                let got: Vec<(Vec<Step>, String)> = walked
                    .iter()
                    .filter(|(_, _, key)| !key)
                    .map(|(p, span, _)| (p.clone(), decode(&line[span.clone()]).text))
                    .collect();
                prop_assert_eq!(got, want);
            }
        }

        /// No edit: the token as it was. Edits (at any offsets, overlapping or not): the
        /// result reads as the value with the widened ranges replaced, and is the token's
        /// own bytes around the replacements, escaped as JSON.stringify escapes them.
        #[test]
        fn replacing_in_a_token(
            frags in prop::collection::vec(0..FRAGS.len(), 0..12),
            edits in prop::collection::vec(
                (0usize..60, 0usize..12, prop::sample::select(&["", "[REDACTED:aws]", "\"q\"\\", "\n\u{1}\u{1f}", "é😀\u{2028}"][..])),
                0..4,
            ),
        ) {
            let (token, units) = token_of(&frags);
            let d = decode(&token);
            prop_assert_eq!(&d.text, &units_text(&units));
            prop_assert_eq!(replace_in_token(&token, &d, &[]), token.clone());
            let edits: Vec<(Range<usize>, &str)> = edits.iter().map(|&(a, n, w)| (a..a + n, w)).collect();
            let out = replace_in_token(&token, &d, &edits);
            // The model: widen to whole characters, merge overlaps, replace in UTF-16 units.
            let mut char_units = vec![0usize]; // units before each char boundary, by text offset
            let mut bounds = vec![0usize];
            {
                let mut u = 0;
                let mut chars = d.text.char_indices().peekable();
                let parsed = jsparse::parse(&token).unwrap();
                for c in parsed.as_str().unwrap().chars() {
                    let (off, _) = chars.next().unwrap();
                    let len = d.text[off..].chars().next().unwrap().len_utf8();
                    u += if jsparse::is_lone_surrogate(c) { 1 } else { c.len_utf16() };
                    bounds.push(off + len);
                    char_units.push(u);
                }
            }
            let unit_at = |t: usize| char_units[bounds.iter().position(|&b| b == t).unwrap()];
            let mut widened: Vec<(usize, usize, &str)> = edits
                .iter()
                .map(|(r, w)| {
                    let start = *bounds.iter().rev().find(|&&b| b <= r.start.min(d.text.len())).unwrap();
                    let end = *bounds.iter().find(|&&b| b >= r.end.max(start).min(d.text.len())).unwrap();
                    (start, end, *w)
                })
                .collect();
            widened.sort_by_key(|e| e.0);
            let mut merged: Vec<(usize, usize, String)> = Vec::new();
            for (s, e, w) in widened {
                match merged.last_mut() {
                    Some(last) if s < last.1 => {
                        last.1 = last.1.max(e);
                        last.2.push_str(w);
                    }
                    _ => merged.push((s, e, w.to_owned())),
                }
            }
            let mut want_units = Vec::new();
            let mut want_bytes = Vec::new();
            let (mut at_text, mut at_raw) = (0, 0);
            for (s, e, w) in &merged {
                want_units.extend_from_slice(&units[unit_at(at_text)..unit_at(*s)]);
                want_units.extend(w.encode_utf16());
                at_text = *e;
                let r = d.raw_range(*s..*e);
                want_bytes.extend_from_slice(&token[at_raw..r.start]);
                let mut esc = String::new();
                jsjson::write_string(&mut esc, w);
                want_bytes.extend_from_slice(&esc.as_bytes()[1..esc.len() - 1]);
                at_raw = r.end;
            }
            want_units.extend_from_slice(&units[unit_at(at_text)..]);
            want_bytes.extend_from_slice(&token[at_raw..]);
            prop_assert_eq!(&out, &want_bytes);
            prop_assert_eq!(decode(&out).text, units_text(&want_units));
            prop_assert_eq!(jsparse_text(&out), units_text(&want_units));
        }

        /// Splicing new tokens into a line changes exactly those strings: jsparse reads the
        /// new line as the old value with those strings replaced (where keys do not repeat),
        /// and every byte outside the spans is as it was.
        #[test]
        fn splicing_changes_only_the_tokens((line, _, distinct) in line(), pick in prop::collection::vec(any::<bool>(), 64), cut in 0usize..20) {
            let walked = walk_all(&line).unwrap();
            let mut edits = Vec::new();
            let mut want = jsparse::parse(&line).unwrap();
            for ((path, span, key), pick) in walked.iter().zip(pick.iter().cycle()) {
                if *key || !pick {
                    continue;
                }
                let token = &line[span.clone()];
                let d = decode(token);
                let new = replace_in_token(token, &d, &[(cut.min(d.text.len())..d.text.len(), "[REDACTED:rule]")]);
                // With repeated keys a path may name a member jsparse drops: the value is
                // compared only without them, the bytes always.
                if distinct {
                    *at(&mut want, path) = jsparse::parse(&new).unwrap();
                }
                edits.push((span.clone(), new));
            }
            let out = splice(&line, &edits);
            let got = jsparse::parse(&out).unwrap();
            if distinct {
                prop_assert_eq!(got, want);
            }
            // Bytes between the spans, in order, as they were.
            let (mut old_at, mut new_at) = (0, 0);
            for (span, new) in &edits {
                let gap = span.start - old_at;
                prop_assert_eq!(&out[new_at..new_at + gap], &line[old_at..span.start]);
                prop_assert_eq!(&out[new_at + gap..new_at + gap + new.len()], &new[..]);
                new_at += gap + new.len();
                old_at = span.end;
            }
            prop_assert_eq!(&out[new_at..], &line[old_at..]);
        }

        /// Arbitrary bytes: no panic anywhere, and the walk accepts exactly what jsparse does.
        #[test]
        fn arbitrary_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..64), a in 0usize..70, n in 0usize..70) {
            let walked = for_each_string(&bytes, |_, _, _| {});
            prop_assert_eq!(walked.is_ok(), jsparse::parse(&bytes).is_ok());
            let d = decode(&bytes);
            let r = d.raw_range(a..a + n);
            prop_assert!(r.start <= r.end && r.end <= bytes.len().max(1));
            replace_in_token(&bytes, &d, &[(a..a + n, "x")]);
        }
    }

    proptest! {
        #![proptest_config(config(4000))]

        /// Text made of JSON's own characters: the walk accepts exactly what jsparse accepts.
        #[test]
        fn json_soup_accepted_as_jsparse_accepts(
            parts in prop::collection::vec(prop::sample::select(&[
                "{", "}", "[", "]", ",", ":", "\"", "\"a\"", "\"k\":", "0", "1", "-", ".", "5", "e", "+",
                "true", "fals", "null", " ", "\t", "\\", "\\u00e9", "\\ud800", "\\n", "\u{1}", "é", "\\x", "\u{a0}",
            ][..]), 1..24)
        ) {
            let text = parts.concat();
            let walked = for_each_string(text.as_bytes(), |p, span, _| {
                assert!(text.as_bytes()[span.clone()].starts_with(b"\""));
                let _ = render(p);
            });
            prop_assert_eq!(walked.is_ok(), jsparse::parse(text.as_bytes()).is_ok(), "{}", text);
        }
    }

    #[test]
    fn deep_nesting_walks_on_the_default_stack() {
        let n = 100_000;
        for (open, close) in [("[", "]"), ("{\"a\":", "}")] {
            let line = format!("{}\"s\"{}", open.repeat(n), close.repeat(n));
            let mut seen = 0;
            for_each_string(line.as_bytes(), |path, span, key| {
                if !key {
                    seen += 1;
                    assert_eq!(path.len(), n);
                    assert_eq!(&line[span], "\"s\"");
                }
            })
            .unwrap();
            assert_eq!(seen, 1);
            let cut = &line[..line.len() - 1];
            assert!(for_each_string(cut.as_bytes(), |_, _, _| {}).is_err());
        }
    }

    #[test]
    fn paths_render_as_users_read_them() {
        let p = vec![
            Step::Key("message".into()),
            Step::Key("content".into()),
            Step::Index(2),
            Step::Key("arguments".into()),
            Step::Key("command".into()),
        ];
        assert_eq!(render(&p), "message.content[2].arguments.command");
        let odd = vec![
            Step::Key("odd key".into()),
            Step::Key("$ok_1".into()),
            Step::Key("a\"b\n".into()),
            Step::Index(0),
        ];
        assert_eq!(render(&odd), r#"["odd key"].$ok_1["a\"b\n"][0]"#);
        assert_eq!(
            render(&[Step::Key(String::new()), Step::Key("1a".into())]),
            r#"[""]["1a"]"#
        );
        assert_eq!(render(&[]), "");
    }

    #[test]
    fn walks_keys_and_duplicates() {
        let line = br#" {"a" : "x", "b":[1,"y",{"c":null}], "a":"z","\u0041":"w"} "#;
        let walked = walk_all(line).unwrap();
        let got: Vec<(String, &str, bool)> = walked
            .iter()
            .map(|(p, s, k)| (render(p), std::str::from_utf8(&line[s.clone()]).unwrap(), *k))
            .collect();
        assert_eq!(
            got,
            [
                ("a".into(), "\"a\"", true),
                ("a".into(), "\"x\"", false),
                ("b".into(), "\"b\"", true),
                ("b[1]".into(), "\"y\"", false),
                ("b[2].c".into(), "\"c\"", true),
                ("a".into(), "\"a\"", true),
                ("a".into(), "\"z\"", false),
                ("A".into(), "\"\\u0041\"", true),
                ("A".into(), "\"w\"", false),
            ]
        );
        let mut w = Walker::default();
        let mut n = 0;
        w.walk(br#""top""#, |p, s, k| {
            assert!(p.is_empty() && s == (0..5) && !k);
            n += 1;
        })
        .unwrap();
        assert_eq!(n, 1);
        for bad in [
            &b""[..],
            b" ",
            b"{\"a\"}",
            b"[1,]",
            b"{\"a\":1,}",
            b"\"\t\"",
            b"[1] x",
            b"\xef\xbb\xbf{}",
            b"{\"a\":1}}",
        ] {
            assert!(w.walk(bad, |_, _, _| {}).is_err(), "{:?}", String::from_utf8_lossy(bad));
        }
    }

    #[test]
    fn raw_ranges_widen_to_whole_characters() {
        let token = br#""a\ud83d\ude00\u00e9\ud83d\/x""#;
        let d = decode(token);
        assert_eq!(d.text, "a😀é\u{fffd}/x");
        // 😀 is text 1..5, raw 2..14; é text 5..7, raw 14..20; U+FFFD 7..10, raw 20..26.
        assert_eq!(d.raw_range(1..5), 2..14);
        assert_eq!(d.raw_range(2..3), 2..14);
        assert_eq!(d.raw_range(6..8), 14..26);
        assert_eq!(d.raw_range(10..11), 26..28);
        assert_eq!(d.raw_range(11..99), 28..29);
        assert_eq!(d.raw_range(0..0), 1..1);
        let (start, end) = (5, 2);
        assert_eq!(d.raw_range(start..end), 14..14);
        let out = replace_in_token(token, &d, &[(1..5, "[R]"), (11..12, "\"")]);
        assert_eq!(out, br#""a[R]\u00e9\ud83d\/\"""#);
        // Overlapping ranges merge; nothing of either survives.
        let out = replace_in_token(token, &d, &[(2..6, "1"), (0..3, "2")]);
        assert_eq!(out, br#""21\ud83d\/x""#);
        // A real character of the range jsparse borrows for lone surrogates is itself here.
        assert_eq!(decode(br#""\uDBFF\uDE00""#).text, "\u{10fe00}");
        let plain = decode("\"héllo\"".as_bytes());
        assert_eq!(plain.raw_range(2..3), 2..4);
        assert_eq!(plain.map, []);
    }

    #[test]
    fn invalid_utf8_decodes_as_node_reads_it() {
        let token = b"\"a\xffb\xf0\x9f\x98c\xe2\x82\"";
        let d = decode(token);
        assert_eq!(d.text, jsparse_text(token));
        assert_eq!(d.text, "a\u{fffd}b\u{fffd}c\u{fffd}");
        assert_eq!(d.raw_range(1..4), 2..3);
        assert_eq!(d.raw_range(5..8), 4..7);
        assert_eq!(d.raw_range(9..12), 8..10);
    }
}
