//! JSON text read for the lean read of a section, in one pass each: a string decoded while
//! its end is looked for, and a tool call's arguments pretty-printed straight from their
//! text as `serde_json::to_string_pretty` prints them once parsed.
//!
//! Both read text that is valid UTF-8 (the caller checks the line once), and both decline
//! what they do not handle exactly: the string reader with [`Bail`] (the entry is then read
//! in full), the printer with `None` (the arguments are then parsed and printed).

use crate::session::scan::{self, Bail, RawStr, Scan};
use std::borrow::Cow;

/// For 64 bytes: a bit per byte that is a quote, a backslash or a control byte.
#[inline(always)]
fn specials64(block: &[u8]) -> u64 {
    let (quote, backslash, control) = scan::masks64(block);
    quote | backslash | control
}

/// [`specials64`] with AVX2.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn specials64_avx2(block: &[u8]) -> u64 {
    // SAFETY: the caller runs with AVX2 enabled.
    let (quote, backslash, control) = unsafe { scan::masks64_avx2(block) };
    quote | backslash | control
}

/// Decodes the escape whose backslash is at `at`, appends its character's UTF-8 and returns
/// the escape's length. Declines lone surrogates (a Rust string cannot hold them) and
/// anything that is not a JSON escape.
#[inline]
fn push_escape(b: &[u8], at: usize, out: &mut Vec<u8>) -> Scan<usize> {
    let next = b.get(at + 1).copied().unwrap_or(0);
    let byte = SHORT_ESCAPE[next as usize];
    if byte != 0 {
        out.push(byte);
        return Ok(2);
    }
    let (c, len) = scan::escape_at(b, at)?;
    out.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes());
    Ok(len)
}

/// The character of each two-byte escape, by the byte after the backslash (0: none).
const SHORT_ESCAPE: [u8; 256] = {
    let mut t = [0u8; 256];
    t[b'n' as usize] = b'\n';
    t[b'"' as usize] = b'"';
    t[b'\\' as usize] = b'\\';
    t[b't' as usize] = b'\t';
    t[b'r' as usize] = b'\r';
    t[b'/' as usize] = b'/';
    t[b'b' as usize] = 0x08;
    t[b'f' as usize] = 0x0c;
    t
};

/// The string whose opening quote is at `pos` in `line`, and the position after its closing
/// quote: borrowed from the line when it has no escapes, else decoded as it is read.
/// Declines raw control characters, as `JSON.parse` rejects them.
pub(super) fn string(line: &str, pos: usize) -> Scan<(Cow<'_, str>, usize)> {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2.
        return unsafe { string_avx2(line, pos) };
    }
    string_by(line, pos, specials64)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn string_avx2(line: &str, pos: usize) -> Scan<(Cow<'_, str>, usize)> {
    // SAFETY: AVX2 is enabled here.
    string_by(line, pos, |block| unsafe { specials64_avx2(block) })
}

/// The scalar test for a byte [`specials64`] marks.
#[inline(always)]
fn special(c: u8) -> bool {
    c < 0x20 || c == b'"' || c == b'\\'
}

/// [`string`], `specials` marking the quotes, backslashes and controls of 64 bytes.
#[inline(always)]
fn string_by(line: &str, pos: usize, specials: impl Fn(&[u8]) -> u64) -> Scan<(Cow<'_, str>, usize)> {
    let b = line.as_bytes();
    debug_assert_eq!(b.get(pos), Some(&b'"'));
    let start = pos + 1;
    // Up to the first escape, the bytes are only looked at, 64 at a time. The block the
    // first special byte is in, and its mask, go on to the decoder.
    let mut at = start;
    let (first, block) = loop {
        if at + 64 <= b.len() {
            let mask = specials(&b[at..at + 64]);
            if mask == 0 {
                at += 64;
                continue;
            }
            break (at + mask.trailing_zeros() as usize, Some((at, mask)));
        }
        let k = b[at..].iter().position(|&c| special(c)).ok_or(Bail)?;
        break (at + k, None);
    };
    match b[first] {
        b'"' => return Ok((Cow::Borrowed(line.get(start..first).ok_or(Bail)?), first + 1)),
        b'\\' => {}
        _ => return Err(Bail),
    }
    let mut decoded = Vec::with_capacity((b.len() - start).min(1 << 15));
    decoded.extend_from_slice(&b[start..first]);
    let end = decode_from(b, first, block, &mut decoded, specials)?;
    debug_assert!(std::str::from_utf8(&decoded).is_ok());
    // SAFETY: `decoded` is pieces of `line` cut next to ASCII bytes (quotes, backslashes and
    // controls), so whole characters of valid UTF-8, and escapes written as UTF-8.
    let text = unsafe { String::from_utf8_unchecked(decoded) };
    Ok((Cow::Owned(text), end))
}

/// Appends `b[from..to]` (at most 64 bytes) to `out`: 64 bytes copied whole when `b` has
/// them, then the length set, so that short pieces cost no call.
#[inline(always)]
fn push_piece(b: &[u8], from: usize, to: usize, out: &mut Vec<u8>) {
    debug_assert!(from <= to && to - from <= 64);
    if from + 64 <= b.len() {
        if out.capacity() - out.len() < 64 {
            // What is left of the line bounds what is left to decode (an escape is no
            // shorter than its character): one growth, instead of a copy per doubling of
            // a long tool output.
            out.reserve(b.len() - from);
        }
        let len = out.len();
        // SAFETY: 64 bytes are reserved past `len`, and `from + 64` is within `b`; of them
        // the first `to - from` (at most 64) are kept.
        unsafe {
            std::ptr::copy_nonoverlapping(b.as_ptr().add(from), out.as_mut_ptr().add(len), 64);
            out.set_len(len + (to - from));
        }
    } else {
        out.extend_from_slice(&b[from..to]);
    }
}

/// Decodes a string body from the special byte at `src` (a quote, a backslash or a control)
/// to its closing quote, appending to `decoded`; returns the position after the quote.
/// `block` is the 64-byte block `src` is in and its mask of special bytes, when it has one:
/// each block's mask is worked out once, and the text between its special bytes goes over
/// a piece at a time.
#[inline(always)]
fn decode_from(
    b: &[u8],
    mut src: usize,
    mut block: Option<(usize, u64)>,
    decoded: &mut Vec<u8>,
    specials: impl Fn(&[u8]) -> u64,
) -> Scan<usize> {
    loop {
        match b[src] {
            b'"' => return Ok(src + 1),
            b'\\' => src += push_escape(b, src, decoded)?,
            _ => return Err(Bail),
        }
        // On to the next special byte, copying the text before it.
        loop {
            if let Some((at, mask)) = block
                && src < at + 64
            {
                let ahead = mask & (u64::MAX << (src - at));
                if ahead != 0 {
                    let next = at + ahead.trailing_zeros() as usize;
                    push_piece(b, src, next, decoded);
                    src = next;
                    break;
                }
                push_piece(b, src, at + 64, decoded);
                src = at + 64;
            }
            if src + 64 <= b.len() {
                block = Some((src, specials(&b[src..src + 64])));
                continue;
            }
            block = None;
            let k = b[src..].iter().position(|&c| special(c)).ok_or(Bail)?;
            decoded.extend_from_slice(&b[src..src + k]);
            src += k;
            break;
        }
    }
}

/// `serde_json::to_string_pretty` of the value `crate::session::jsparse` reads from `raw`
/// (valid JSON, checked by the caller), printed straight from the text; `None` when the
/// text holds what printing would change: duplicate keys, escapes other than the ones
/// printed back as written, numbers other than small integers.
pub(super) fn pretty(raw: &str) -> Option<String> {
    let mut p = Pretty {
        b: raw.as_bytes(),
        text: raw,
        out: String::with_capacity(raw.len() + raw.len() / 2 + 8),
    };
    let end = p.value(0, 0)?;
    (ws(p.b, end) == p.b.len()).then_some(p.out)
}

struct Pretty<'a> {
    b: &'a [u8],
    text: &'a str,
    out: String,
}

#[inline]
fn ws(b: &[u8], mut p: usize) -> usize {
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = b.get(p) {
        p += 1;
    }
    p
}

impl<'a> Pretty<'a> {
    fn indent(&mut self, depth: usize) {
        for _ in 0..depth {
            self.out.push_str("  ");
        }
    }

    /// The end of the string token at `p` when serde_json prints its value as written: its
    /// escapes are only those of `"`, `\` and the controls serde_json writes short.
    fn string_end(&self, p: usize) -> Option<usize> {
        let b = self.b;
        let mut i = p + 1;
        loop {
            i += memchr::memchr2(b'"', b'\\', &b[i..])?;
            if b[i] == b'"' {
                return Some(i + 1);
            }
            match b.get(i + 1)? {
                b'"' | b'\\' | b'n' | b't' | b'r' | b'b' | b'f' => i += 2,
                _ => return None,
            }
        }
    }

    fn value(&mut self, p: usize, depth: usize) -> Option<usize> {
        let b = self.b;
        let p = ws(b, p);
        match *b.get(p)? {
            b'"' => {
                let end = self.string_end(p)?;
                self.out.push_str(self.text.get(p..end)?);
                Some(end)
            }
            b'{' => {
                let mut q = ws(b, p + 1);
                if b.get(q) == Some(&b'}') {
                    self.out.push_str("{}");
                    return Some(q + 1);
                }
                self.out.push('{');
                let mut keys: Vec<&str> = Vec::new();
                loop {
                    if b.get(q) != Some(&b'"') {
                        return None;
                    }
                    let end = self.string_end(q)?;
                    // Escapes as printed are the only way to write their characters, so
                    // keys are equal exactly when their text is.
                    let key = self.text.get(q..end)?;
                    if keys.contains(&key) {
                        return None;
                    }
                    keys.push(key);
                    self.out.push('\n');
                    self.indent(depth + 1);
                    self.out.push_str(key);
                    self.out.push_str(": ");
                    q = ws(b, end);
                    if b.get(q) != Some(&b':') {
                        return None;
                    }
                    q = ws(b, self.value(q + 1, depth + 1)?);
                    match b.get(q)? {
                        b',' => {
                            self.out.push(',');
                            q = ws(b, q + 1);
                        }
                        b'}' => {
                            self.out.push('\n');
                            self.indent(depth);
                            self.out.push('}');
                            return Some(q + 1);
                        }
                        _ => return None,
                    }
                }
            }
            b'[' => {
                let mut q = ws(b, p + 1);
                if b.get(q) == Some(&b']') {
                    self.out.push_str("[]");
                    return Some(q + 1);
                }
                self.out.push('[');
                loop {
                    self.out.push('\n');
                    self.indent(depth + 1);
                    q = ws(b, self.value(q, depth + 1)?);
                    match b.get(q)? {
                        b',' => {
                            self.out.push(',');
                            q += 1;
                        }
                        b']' => {
                            self.out.push('\n');
                            self.indent(depth);
                            self.out.push(']');
                            return Some(q + 1);
                        }
                        _ => return None,
                    }
                }
            }
            b't' | b'f' | b'n' => {
                let word = ["true", "false", "null"]
                    .into_iter()
                    .find(|w| b[p..].starts_with(w.as_bytes()))?;
                self.out.push_str(word);
                Some(p + word.len())
            }
            _ => {
                let len = b[p..]
                    .iter()
                    .position(|c| !matches!(c, b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9'))
                    .unwrap_or(b.len() - p);
                let number = &self.text[p..p + len];
                if !plain_integer(number.as_bytes()) {
                    return None;
                }
                self.out.push_str(number);
                Some(p + len)
            }
        }
    }
}

/// Whether a number is written as serde_json prints the value JavaScript reads from it: a
/// small integer, and not `-0`.
pub(super) fn plain_integer(raw: &[u8]) -> bool {
    let digits = raw.strip_prefix(b"-").unwrap_or(raw);
    !digits.is_empty()
        && digits.len() <= 15
        && digits.iter().all(u8::is_ascii_digit)
        && (digits[0] != b'0' || raw == b"0")
}

/// A key's name as `JSON.parse` reads it: the bytes as written when it has no escapes. A key
/// that does not decode (a lone surrogate) is none of the names read here.
pub(super) fn key_name(key: RawStr<'_>) -> Cow<'_, [u8]> {
    if !key.escaped {
        return Cow::Borrowed(key.bytes);
    }
    match key.decode() {
        Ok(s) => Cow::Owned(s.into_owned().into_bytes()),
        Err(_) => Cow::Borrowed(b""),
    }
}
