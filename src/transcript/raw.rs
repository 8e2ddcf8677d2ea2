//! JSON text read for the lean read of a section, in one pass each: a string decoded while
//! its end is looked for, and a tool call's arguments pretty-printed straight from their
//! text as `serde_json::to_string_pretty` prints them once parsed.
//!
//! Both decline what they do not handle exactly: the string reader with [`Bail`] (the
//! entry is then read in full), the printer with `None` (the arguments are then parsed and
//! printed).
//!
//! A line is not checked for UTF-8 as a whole: only the strings kept are, and only those
//! holding a byte of 0x80 or more (seen as their bytes are looked at). Invalid bytes in a
//! string that is skipped never reach a section, and Node's decoding of them to U+FFFD
//! never makes or unmakes an ASCII byte (a quote, a backslash), so the values' bounds are
//! the same either way.

use crate::session::scan::{self, Bail, RawStr, Scan};
use std::borrow::Cow;

/// The bits of the quotes, backslashes and control bytes of the 32 bytes at `src`, and
/// the bits of its bytes of 0x80 or more, after copying them to `dst` when it is not null
/// (a "chunk" function); a byte at a time, for CPUs without AVX2.
///
/// # Safety
/// `src` points to 32 readable bytes, `dst` (when not null) to 32 writable ones.
#[inline(always)]
unsafe fn chunk_bytes(src: *const u8, dst: *mut u8) -> (u32, u32) {
    // SAFETY: the caller hands 32 readable bytes at `src`, and 32 writable at `dst` when
    // it is not null.
    let block = unsafe { &*src.cast::<[u8; 32]>() };
    if !dst.is_null() {
        unsafe { dst.cast::<[u8; 32]>().write_unaligned(*block) };
    }
    block.iter().enumerate().fold((0, 0), |(m, h), (i, &c)| {
        (m | (u32::from(special(c)) << i), h | (u32::from(c >> 7) << i))
    })
}

/// [`chunk_bytes`] with AVX2.
///
/// # Safety
/// As [`chunk_bytes`], on a CPU with AVX2.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn chunk_avx2(src: *const u8, dst: *mut u8) -> (u32, u32) {
    use std::arch::x86_64::*;
    // SAFETY: the caller runs with AVX2 enabled and hands 32 readable bytes at `src`, and
    // 32 writable at `dst` when it is not null.
    unsafe {
        let v = _mm256_loadu_si256(src.cast::<__m256i>());
        if !dst.is_null() {
            _mm256_storeu_si256(dst.cast::<__m256i>(), v);
        }
        let max_control = _mm256_set1_epi8(0x1f);
        let control = _mm256_cmpeq_epi8(_mm256_max_epu8(v, max_control), max_control);
        let quote = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'"' as i8));
        let backslash = _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b'\\' as i8));
        let specials = _mm256_or_si256(_mm256_or_si256(quote, backslash), control);
        (_mm256_movemask_epi8(specials) as u32, _mm256_movemask_epi8(v) as u32)
    }
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
/// Declines raw control characters, as `JSON.parse` rejects them, and invalid UTF-8 (which
/// Node reads as U+FFFD: the full read does that).
pub(super) fn string(line: &[u8], pos: usize) -> Scan<(Cow<'_, str>, usize)> {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2.
        return unsafe { string_avx2::<true>(line, pos) };
    }
    // SAFETY: `chunk_bytes` runs on any CPU.
    unsafe { string_by::<true>(line, pos, |s, d| chunk_bytes(s, d)) }
}

/// [`string`] of a text known to be UTF-8 (not checked again).
pub(super) fn string_in(text: &str, pos: usize) -> Scan<(Cow<'_, str>, usize)> {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2; `text` is UTF-8.
        return unsafe { string_avx2::<false>(text.as_bytes(), pos) };
    }
    // SAFETY: `chunk_bytes` runs on any CPU; `text` is UTF-8.
    unsafe { string_by::<false>(text.as_bytes(), pos, |s, d| chunk_bytes(s, d)) }
}

/// [`string`] without AVX2, for the tests.
#[cfg(test)]
pub(super) fn string_bytewise(line: &[u8], pos: usize) -> Scan<(Cow<'_, str>, usize)> {
    // SAFETY: `chunk_bytes` runs on any CPU.
    unsafe { string_by::<true>(line, pos, |s, d| chunk_bytes(s, d)) }
}

/// # Safety
/// As [`string_by`], on a CPU with AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn string_avx2<const CHECK: bool>(line: &[u8], pos: usize) -> Scan<(Cow<'_, str>, usize)> {
    // SAFETY: AVX2 is enabled here; the caller keeps the rest of the contract.
    unsafe { string_by::<CHECK>(line, pos, |s, d| chunk_avx2(s, d)) }
}

/// The scalar test for a byte [`chunk_bytes`] marks.
#[inline(always)]
fn special(c: u8) -> bool {
    c < 0x20 || c == b'"' || c == b'\\'
}

/// 32 bytes of `b` from `at` for a chunk function to read: in place, or, near the end of
/// `b`, copied to `pad` after a control byte (which ends any string read from it: a string
/// not closed within the line is declined).
#[inline(always)]
fn chunk_src(b: &[u8], at: usize, pad: &mut [u8; 32]) -> *const u8 {
    if at + 32 <= b.len() {
        // SAFETY: `at` is within `b` (32 bytes before its end or more).
        unsafe { b.as_ptr().add(at) }
    } else {
        padded(b[at..].as_ptr(), b.len() - at, pad)
    }
}

/// The bits of a chunk's bytes before its first special byte `m` marks (and that byte).
#[inline(always)]
fn up_to_first(m: u32) -> u32 {
    m ^ m.wrapping_sub(1)
}

/// The text of `bytes`, checked as UTF-8 when `CHECK` and `high` says a byte of 0x80 or
/// more is among them.
#[inline(always)]
fn text_of<const CHECK: bool>(bytes: &[u8], high: u32) -> Scan<&str> {
    if CHECK && high != 0 {
        return if bytes.len() < 64 {
            std::str::from_utf8(bytes).map_err(|_| Bail)
        } else {
            simdutf8::basic::from_utf8(bytes).map_err(|_| Bail)
        };
    }
    debug_assert!(std::str::from_utf8(bytes).is_ok());
    // SAFETY: ASCII when `CHECK` (no byte of 0x80 or more), else UTF-8 by the caller's
    // word.
    Ok(unsafe { std::str::from_utf8_unchecked(bytes) })
}

/// [`string`], `chunk` finding the special and high bytes of 32 bytes; the text's UTF-8
/// checked when `CHECK`.
///
/// # Safety
/// `chunk` must be safe to call on this CPU; when not `CHECK`, `line` is UTF-8.
#[inline(always)]
unsafe fn string_by<const CHECK: bool>(
    line: &[u8],
    pos: usize,
    chunk: impl Fn(*const u8, *mut u8) -> (u32, u32),
) -> Scan<(Cow<'_, str>, usize)> {
    let b = line;
    debug_assert_eq!(b.get(pos), Some(&b'"'));
    let start = pos + 1;
    let mut pad = [0u8; 32];
    // Up to the first special byte, the bytes are only looked at.
    let mut at = start;
    let mut high = 0;
    let first = loop {
        let (m, h) = chunk(chunk_src(b, at, &mut pad), std::ptr::null_mut());
        if m != 0 {
            high |= h & up_to_first(m);
            break at + m.trailing_zeros() as usize;
        }
        high |= h;
        at += 32;
    };
    match b.get(first) {
        Some(b'"') => return Ok((Cow::Borrowed(text_of::<CHECK>(&b[start..first], high)?), first + 1)),
        Some(b'\\') => {}
        _ => return Err(Bail),
    }
    let mut decoded = Vec::with_capacity((b.len() - start).min(1 << 15) + SLACK);
    decoded.extend_from_slice(&b[start..first]);
    let end = decode_from(b, first, &mut decoded, chunk, &mut pad, &mut high)?;
    text_of::<CHECK>(&decoded, high)?;
    // SAFETY: checked as UTF-8 just above, or ASCII, or (not `CHECK`) pieces of a UTF-8
    // `line` cut next to ASCII bytes (quotes, backslashes and controls), so whole
    // characters, and escapes written as UTF-8.
    let text = unsafe { String::from_utf8_unchecked(decoded) };
    Ok((Cow::Owned(text), end))
}

/// Room kept past the decoded text: a chunk's 32 bytes copied whole, and an escape's
/// character (4 bytes at most) written after a chunk cut short.
const SLACK: usize = 32 + 4;

/// Decodes a string body from the special byte at `src` (a quote, a backslash or a control)
/// to its closing quote, appending to `out`; returns the position after the quote. Sets
/// bits of `high` when bytes of 0x80 or more are copied (escapes' characters aside: they
/// are written as valid UTF-8).
///
/// The text between special bytes is copied 32 bytes at a time as they are looked at (the
/// copy runs past the next special byte, and what is past it is written over), so that an
/// escape costs a look-up and one more chunk. Pointers rather than indices: the loop is
/// run once per escape, and indices cost it a register each.
#[inline(always)]
fn decode_from(
    b: &[u8],
    src: usize,
    out: &mut Vec<u8>,
    chunk: impl Fn(*const u8, *mut u8) -> (u32, u32),
    pad: &mut [u8; 32],
    high: &mut u32,
) -> Scan<usize> {
    out.reserve(SLACK);
    let first = b.as_ptr();
    // SAFETY: one past the end of `b`.
    let end = unsafe { first.add(b.len()) };
    let left = |s: *const u8| end as usize - s as usize;
    // SAFETY: (all through) `s` stays within `b` or one past its end: it moves to a special
    // byte a chunk marked, and a chunk read near the end is padded with a control byte
    // right after `b`'s last byte. `d` stays within `out`'s capacity: before each chunk
    // `d` is at most `limit`, `SLACK` bytes short of the capacity, and a chunk moves it
    // by less than 32 bytes when it stops, leaving room for the character of an escape.
    let mut s = unsafe { first.add(src) };
    let (mut d, mut limit) = room(out, out.len());
    let mut h_all = *high;
    loop {
        // At a special byte (or the end of `b`), with room for a character.
        match (left(s) > 0).then(|| unsafe { *s }) {
            Some(b'"') => {
                // SAFETY: the bytes up to `d` are written.
                unsafe { out.set_len(d as usize - out.as_ptr() as usize) };
                *high = h_all;
                return Ok(s as usize - first as usize + 1);
            }
            Some(b'\\') if left(s) >= 2 => {
                let byte = SHORT_ESCAPE[usize::from(unsafe { *s.add(1) })];
                if byte != 0 {
                    unsafe {
                        *d = byte;
                        d = d.add(1);
                        s = s.add(2);
                    }
                } else {
                    let (c, n) = scan::escape_at(b, s as usize - first as usize)?;
                    let mut utf8 = [0; 4];
                    let c = c.encode_utf8(&mut utf8).as_bytes();
                    unsafe {
                        std::ptr::copy_nonoverlapping(c.as_ptr(), d, c.len());
                        d = d.add(c.len());
                        s = s.add(n);
                    }
                }
            }
            _ => return Err(Bail),
        }
        // On to the next special byte, copying the text before it.
        loop {
            if d > limit {
                // What is left of the line bounds what is left to decode (an escape is no
                // shorter than its character): one growth, instead of a copy per doubling
                // of a long tool output.
                let written = d as usize - out.as_ptr() as usize;
                // SAFETY: the bytes up to `d` are written.
                unsafe { out.set_len(written) };
                out.reserve(left(s) + SLACK);
                (d, limit) = room(out, written);
            }
            let at = if left(s) >= 32 { s } else { padded(s, left(s), pad) };
            let (m, h) = chunk(at, d);
            if m == 0 {
                h_all |= h;
                unsafe {
                    s = s.add(32);
                    d = d.add(32);
                }
                continue;
            }
            h_all |= h & up_to_first(m);
            let k = m.trailing_zeros() as usize;
            unsafe {
                s = s.add(k);
                d = d.add(k);
            }
            break;
        }
    }
}

/// Where the byte after the first `len` of `out` goes, and the last place a chunk may be
/// copied to (`SLACK` bytes short of the capacity; the caller reserved that much).
#[inline(always)]
fn room(out: &mut Vec<u8>, len: usize) -> (*mut u8, *mut u8) {
    debug_assert!(out.capacity() - len >= SLACK);
    let ptr = out.as_mut_ptr();
    // SAFETY: both within the capacity.
    unsafe { (ptr.add(len), ptr.add(out.capacity() - SLACK)) }
}

/// The `len` (less than 32) bytes at `s` copied to `pad`, the rest of it controls.
#[cold]
fn padded(s: *const u8, len: usize, pad: &mut [u8; 32]) -> *const u8 {
    *pad = [0; 32];
    // SAFETY: the caller's `len` bytes at `s` are readable.
    unsafe { std::ptr::copy_nonoverlapping(s, pad.as_mut_ptr(), len) };
    pad.as_ptr()
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
