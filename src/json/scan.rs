//! A fast scanner over the raw bytes of a JSON line: it validates as `JSON.parse` does while
//! skipping, and hands back only the values a caller asks for, without building a tree.
//!
//! The scanner is allowed to decline ([`Bail`]) whenever a line is unusual (escapes it does
//! not decode, lone surrogates, invalid UTF-8 in a value it must return, very deep nesting,
//! numbers it does not hold exactly): callers then fall back to the exact reader
//! ([`super::jsparse`]). It must never accept a line `JSON.parse` rejects, nor return a
//! value different from the one `JSON.parse` would give; everything else is speed.
//!
//! One walker serves two readings, told apart by the const parameter `CHECK`: the first
//! reading of a line validates it (`CHECK = true`, the functions at this module's top
//! level), a later reading of a line `JSON.parse` already accepted only finds the bounds of
//! its values ([`trusted`]: control bytes and escapes are not looked at again, a number runs
//! to the next delimiter). Whatever a caller decodes is checked either way.

use std::borrow::Cow;

/// The walker over a line already known to be valid JSON (one `JSON.parse` accepted when
/// the session was loaded): a second reading of a line (a preview, say) costs a fraction
/// of the first. On a line that is not valid JSON these return wrong positions or
/// [`Bail`], never read out of bounds.
pub mod trusted {
    use super::{RawStr, Scan, string_end, ws};

    /// Reads the string token whose opening quote is at `pos` (see [`super::string`]).
    #[inline]
    pub fn string(b: &[u8], pos: usize) -> Scan<(RawStr<'_>, usize)> {
        super::string_in::<false>(b, pos)
    }

    /// The position of the closing quote of a string whose body goes on at `i` (a position
    /// not inside an escape: the body's start, or where a reader of its pieces stopped).
    #[inline]
    pub fn body_end(b: &[u8], i: usize) -> Scan<usize> {
        string_end::<false>(b, i).map(|(end, _)| end)
    }

    /// Skips the value at `pos` (after any whitespace); returns the position after it.
    pub fn skip(b: &[u8], pos: usize) -> Scan<usize> {
        super::skip_at::<false>(b, ws(b, pos), 0)
    }

    /// Walks the object at `pos` (after any whitespace) as [`super::object`] does.
    pub fn object<'a>(
        b: &'a [u8],
        pos: usize,
        field: impl FnMut(RawStr<'a>, &'a [u8], usize) -> Scan<usize>,
    ) -> Scan<usize> {
        super::object_at::<false>(b, ws(b, pos), field)
    }

    /// Walks the array at `pos` (after any whitespace) as [`super::array`] does.
    pub fn array<'a>(b: &'a [u8], pos: usize, element: impl FnMut(&'a [u8], usize) -> Scan<usize>) -> Scan<usize> {
        super::array_at::<false>(b, ws(b, pos), element)
    }

    /// The raw text of the value at `pos` and the position after it.
    pub fn raw_value(b: &[u8], pos: usize) -> Scan<(&[u8], usize)> {
        let end = super::skip_at::<false>(b, pos, 1)?;
        Ok((&b[pos..end], end))
    }
}

/// The scanner declines this input; read it with the exact parser instead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bail;

pub type Scan<T> = Result<T, Bail>;

/// Nesting deeper than this is left to the exact parser (which allows 5,000 levels).
const MAX_DEPTH: u32 = 256;

/// A string token as written: the bytes between its quotes.
#[derive(Debug, Clone, Copy)]
pub struct RawStr<'a> {
    pub bytes: &'a [u8],
    /// Whether the string holds a backslash escape.
    pub escaped: bool,
}

impl<'a> RawStr<'a> {
    /// Whether the string's value is `lit` (an ASCII literal without quotes or escapes).
    #[inline]
    /// What `of` makes of the value's bytes (decoded first when the string has escapes;
    /// `other` when it cannot be decoded): one look to tell several names apart, where
    /// [`RawStr::is`] would take one per name.
    pub fn named<T>(&self, of: impl Fn(&[u8]) -> T, other: T) -> T {
        if !self.escaped {
            return of(self.bytes);
        }
        self.decode().map_or(other, |s| of(s.as_bytes()))
    }

    pub fn is(&self, lit: &str) -> bool {
        if !self.escaped {
            return self.bytes == lit.as_bytes();
        }
        matches!(self.decode(), Ok(s) if s == lit)
    }

    /// The string's value. Declines on invalid UTF-8 (Node would read U+FFFD there) and on
    /// lone surrogates (which Rust strings cannot hold).
    #[inline]
    pub fn decode(&self) -> Scan<Cow<'a, str>> {
        if !self.escaped {
            return utf8(self.bytes).map(Cow::Borrowed);
        }
        decode_escaped(self.bytes, usize::MAX).map(Cow::Owned)
    }

    /// The first `max_chars` characters of the string's value (all of it when shorter).
    pub fn decode_prefix(&self, max_chars: usize) -> Scan<Cow<'a, str>> {
        if !self.escaped {
            // Cut at a character boundary after at most `max_chars` characters.
            let cut = char_cut(self.bytes, max_chars);
            return utf8(&self.bytes[..cut]).map(Cow::Borrowed);
        }
        decode_escaped(self.bytes, max_chars).map(Cow::Owned)
    }
}

/// The character starting at `b[i]` and its length in bytes (declining invalid UTF-8).
#[inline]
pub fn char_at(b: &[u8], i: usize) -> Scan<(char, usize)> {
    let len = match b[i] {
        0x00..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        _ => 4,
    };
    let text = std::str::from_utf8(b.get(i..i + len).ok_or(Bail)?).map_err(|_| Bail)?;
    let c = text.chars().next().ok_or(Bail)?;
    Ok((c, len))
}

/// The text of UTF-8 bytes. Most strings of a session are short, which std's validator
/// (a word at a time over ASCII) tells faster than one set up for long texts.
#[inline]
pub(crate) fn utf8(bytes: &[u8]) -> Scan<&str> {
    if bytes.len() < 64 {
        return std::str::from_utf8(bytes).map_err(|_| Bail);
    }
    simdutf8::basic::from_utf8(bytes).map_err(|_| Bail)
}

/// The byte length of the first `max_chars` characters of UTF-8 `bytes` (counting lead bytes).
fn char_cut(bytes: &[u8], max_chars: usize) -> usize {
    if bytes.len() <= max_chars {
        return bytes.len();
    }
    let mut chars = 0;
    for (i, &b) in bytes.iter().enumerate() {
        if b & 0xC0 != 0x80 {
            if chars == max_chars {
                return i;
            }
            chars += 1;
        }
    }
    bytes.len()
}

fn hex4(b: &[u8]) -> Scan<u16> {
    if b.len() < 4 {
        return Err(Bail);
    }
    let mut v: u16 = 0;
    for &c in &b[..4] {
        let d = match c {
            b'0'..=b'9' => c - b'0',
            b'a'..=b'f' => c - b'a' + 10,
            b'A'..=b'F' => c - b'A' + 10,
            _ => return Err(Bail),
        };
        v = (v << 4) | u16::from(d);
    }
    Ok(v)
}

/// Decodes the escapes of a string body, stopping after `max_chars` characters.
fn decode_escaped(b: &[u8], max_chars: usize) -> Scan<String> {
    // Escapes are ASCII, so the body is valid UTF-8 exactly when its text is. A whole value is
    // checked once; a prefix only as far as it goes (a long text need not be read for its
    // start).
    if max_chars == usize::MAX {
        return decode_whole(b);
    }
    let mut out = String::with_capacity(b.len().min(max_chars.saturating_mul(4)));
    let mut chars = 0usize;
    let mut i = 0;
    while i < b.len() && chars < max_chars {
        // A prefix needs at most 4 bytes a character: the run to the next escape is looked
        // for (and checked) no further, however long the text.
        let limit = b.len().min(i.saturating_add((max_chars - chars).saturating_mul(4)));
        let run_end = memchr::memchr(b'\\', &b[i..limit]).map_or(limit, |p| i + p);
        if run_end > i {
            // Cut first, then check: a window cut by `limit` may end inside a character,
            // never before the `max_chars`th one ends.
            let raw = &b[i..run_end];
            let cut = char_cut(raw, max_chars - chars);
            let run = utf8(&raw[..cut])?;
            out.push_str(run);
            chars += run.chars().count();
            if cut < raw.len() {
                return Ok(out);
            }
            i = run_end;
            continue;
        }
        let (c, len) = escape_at(b, i)?;
        i += len;
        out.push(c);
        chars += 1;
    }
    Ok(out)
}

/// The value of a whole string body with escapes (declined when it is not UTF-8). Texts
/// with many escapes (a tool's output, a `\n` every line) are common: the backslashes are
/// found 64 bytes at a time ([`masks64`]), not with a search per run between two of them,
/// and the two-byte escapes are looked up in a table.
fn decode_whole(b: &[u8]) -> Scan<String> {
    // Escapes are ASCII: the body is UTF-8 exactly when its text is, and it is cut next to
    // them, at whole characters.
    let text = utf8(b)?;
    let mut out = String::with_capacity(b.len());
    // The text up to `run` is in `out`; `base` is the block whose backslashes `mask` holds
    // (those at or after `run`).
    let mut run = 0;
    let mut base = 0;
    let mut mask = backslashes(b, 0);
    loop {
        while mask == 0 {
            base += 64;
            if base >= b.len() {
                out.push_str(&text[run..]);
                return Ok(out);
            }
            mask = backslashes(b, base);
        }
        let at = base + mask.trailing_zeros() as usize;
        out.push_str(&text[run..at]);
        let short = b.get(at + 1).map_or(0, |&c| SHORT_ESCAPE[usize::from(c)]);
        if short != 0 {
            out.push(char::from(short));
            run = at + 2;
        } else {
            let (c, len) = escape_at(b, at)?;
            out.push(c);
            run = at + len;
        }
        // Drop the backslashes the escape covered, in this block or the next.
        while run >= base + 64 {
            base += 64;
            if base >= b.len() {
                return Ok(out);
            }
            mask = backslashes(b, base);
        }
        mask &= u64::MAX << (run - base);
    }
}

/// The character of each two-byte escape, by the byte after the backslash (0: none).
static SHORT_ESCAPE: [u8; 256] = {
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

/// A bit per backslash of the (up to) 64 bytes of `b` from `base`.
#[inline]
fn backslashes(b: &[u8], base: usize) -> u64 {
    match b.get(base..base + 64) {
        Some(block) => masks64(block).1,
        None => b[base.min(b.len())..]
            .iter()
            .enumerate()
            .fold(0, |m, (k, &c)| m | (u64::from(c == b'\\') << k)),
    }
}

/// The character the escape at `b[i]` (a backslash) stands for, and the escape's length
/// (12 for a surrogate pair). Declines invalid escapes and lone surrogates (which a Rust
/// string cannot hold).
#[inline]
pub(crate) fn escape_at(b: &[u8], i: usize) -> Scan<(char, usize)> {
    let c = match b.get(i + 1) {
        Some(b'u') => {
            let unit = hex4(&b[i + 2..])?;
            return match unit {
                0xD800..=0xDBFF => {
                    if b.get(i + 6) != Some(&b'\\') || b.get(i + 7) != Some(&b'u') {
                        return Err(Bail);
                    }
                    let low = hex4(&b[i + 8..])?;
                    if !(0xDC00..=0xDFFF).contains(&low) {
                        return Err(Bail);
                    }
                    let cp = 0x10000 + ((u32::from(unit) - 0xD800) << 10) + (u32::from(low) - 0xDC00);
                    Ok((char::from_u32(cp).ok_or(Bail)?, 12))
                }
                0xDC00..=0xDFFF => Err(Bail),
                _ => Ok((char::from_u32(u32::from(unit)).ok_or(Bail)?, 6)),
            };
        }
        c => c.copied().and_then(short_escape).ok_or(Bail)?,
    };
    Ok((c, 2))
}

/// The character a two-byte escape (`\n`, `\"`, …) stands for, by the byte after its
/// backslash; `None` for `u` and for what is no escape.
#[inline]
pub(crate) fn short_escape(c: u8) -> Option<char> {
    Some(match c {
        b'"' => '"',
        b'\\' => '\\',
        b'/' => '/',
        b'b' => '\u{8}',
        b'f' => '\u{c}',
        b'n' => '\n',
        b'r' => '\r',
        b't' => '\t',
        _ => return None,
    })
}

/// The offset of the first `"`, `\` or control byte (< 0x20) in `s`.
#[inline]
pub(crate) fn find_special(s: &[u8]) -> Option<usize> {
    let mut i = 0;
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        // SAFETY: SSE2 is part of the x86_64 baseline; every load reads 16 bytes inside `s`.
        unsafe {
            let quote = _mm_set1_epi8(b'"' as i8);
            let backslash = _mm_set1_epi8(b'\\' as i8);
            let max_control = _mm_set1_epi8(0x1f);
            while i + 16 <= s.len() {
                let v = _mm_loadu_si128(s.as_ptr().add(i).cast::<__m128i>());
                let control = _mm_cmpeq_epi8(_mm_max_epu8(v, max_control), max_control);
                let hit = _mm_or_si128(
                    _mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                    control,
                );
                let mask = _mm_movemask_epi8(hit);
                if mask != 0 {
                    return Some(i + mask.trailing_zeros() as usize);
                }
                i += 16;
            }
        }
    }
    s[i..]
        .iter()
        .position(|&c| c == b'"' || c == b'\\' || c < 0x20)
        .map(|p| p + i)
}

/// Reads the string token whose opening quote is at `pos`: its body and the position after
/// its closing quote. Validates escapes and rejects raw control characters, as JSON.parse.
#[inline]
pub fn string(b: &[u8], pos: usize) -> Scan<(RawStr<'_>, usize)> {
    string_in::<true>(b, pos)
}

#[inline]
fn string_in<const CHECK: bool>(b: &[u8], pos: usize) -> Scan<(RawStr<'_>, usize)> {
    debug_assert_eq!(b.get(pos), Some(&b'"'));
    let start = pos + 1;
    let (end, escaped) = string_end::<CHECK>(b, start)?;
    let body = RawStr {
        bytes: &b[start..end],
        escaped,
    };
    Ok((body, end + 1))
}

/// [`string`] of a text known to be UTF-8, decoded: borrowed from `text` when it has no
/// escapes. Declines as [`RawStr::decode`] does.
pub fn text_string(text: &str, pos: usize) -> Scan<(Cow<'_, str>, usize)> {
    let (s, end) = string(text.as_bytes(), pos)?;
    if !s.escaped {
        // Cut next to the quotes, which are ASCII: whole characters.
        return Ok((Cow::Borrowed(&text[pos + 1..end - 1]), end));
    }
    Ok((s.decode()?, end))
}

/// Keys' names as `JSON.parse` reads them, for a reader that tells keys apart by name: the
/// bytes as written when a key has no escapes (nearly every key), else decoded into a buffer
/// kept from key to key. A key that does not decode (a lone surrogate) is none of the names
/// a reader looks for.
#[derive(Debug, Default)]
pub struct KeyNames(Vec<u8>);

impl KeyNames {
    #[inline]
    pub fn of<'s>(&'s mut self, key: RawStr<'s>) -> &'s [u8] {
        if !key.escaped {
            return key.bytes;
        }
        self.decoded(key)
    }

    #[cold]
    #[inline(never)]
    fn decoded<'s>(&'s mut self, key: RawStr<'_>) -> &'s [u8] {
        self.0.clear();
        if let Ok(name) = key.decode() {
            self.0.extend_from_slice(name.as_bytes());
        }
        &self.0
    }
}

/// Whether a number is written as serde_json prints the value JavaScript reads from it: a
/// small integer, and not `-0`.
pub fn plain_integer(raw: &[u8]) -> bool {
    let digits = raw.strip_prefix(b"-").unwrap_or(raw);
    !digits.is_empty()
        && digits.len() <= 15
        && digits.iter().all(u8::is_ascii_digit)
        && (digits[0] != b'0' || raw == b"0")
}

/// Checks the escape at `b[i]` (a backslash) and returns its length.
#[inline]
fn escape_len(b: &[u8], i: usize) -> Scan<usize> {
    match b.get(i + 1) {
        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => Ok(2),
        Some(b'u') => {
            hex4(&b[i + 2..])?;
            Ok(6)
        }
        _ => Err(Bail),
    }
}

/// The position of the closing quote of the string body starting at `i`, and whether the
/// body holds escapes. Text is examined 64 bytes at a time: masks of its quotes, backslashes
/// and control bytes give the escaped bytes of the whole block at once ([`escaped_bits`]),
/// so only the character after each backslash is looked at (and, unchecked, not even that).
#[inline]
fn string_end<const CHECK: bool>(b: &[u8], i: usize) -> Scan<(usize, bool)> {
    // Most strings are keys and short values (ids, timestamps, model names): the first
    // special byte, within 32 bytes, is their closing quote. (Looked for 16 bytes at a
    // time: a short string costs one look.)
    if let Some(head) = b.get(i..i + 32).or_else(|| b.get(i..i + 16))
        && let Some(k) = find_special(head)
        && head[k] == b'"'
    {
        return Ok((i + k, false));
    }
    string_end_long::<CHECK>(b, i)
}

/// [`string_end`] past its first look: out of line, so that the look at a short string
/// costs its callers no call (and no saving of the registers the blocks need).
#[inline(never)]
fn string_end_long<const CHECK: bool>(b: &[u8], i: usize) -> Scan<(usize, bool)> {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2.
        return unsafe { string_blocks_avx2::<CHECK>(b, i) };
    }
    string_blocks::<CHECK>(b, i, masks64)
}

/// [`string_blocks`] with masks taken 32 bytes at a time.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn string_blocks_avx2<const CHECK: bool>(b: &[u8], i: usize) -> Scan<(usize, bool)> {
    // SAFETY: AVX2 is enabled here.
    string_blocks::<CHECK>(b, i, |block| unsafe { masks64_avx2(block) })
}

/// [`masks64`] 32 bytes at a time.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline]
unsafe fn masks64_avx2(block: &[u8]) -> (u64, u64, u64) {
    use std::arch::x86_64::*;
    debug_assert_eq!(block.len(), 64);
    // SAFETY: AVX2 is enabled here; the two loads read the 64 bytes of `block`.
    unsafe {
        let quote = _mm256_set1_epi8(b'"' as i8);
        let backslash = _mm256_set1_epi8(b'\\' as i8);
        let max_control = _mm256_set1_epi8(0x1f);
        let (mut q, mut s, mut c) = (0u64, 0u64, 0u64);
        for part in 0..2 {
            let v = _mm256_loadu_si256(block.as_ptr().add(part * 32).cast::<__m256i>());
            let ctl = _mm256_cmpeq_epi8(_mm256_max_epu8(v, max_control), max_control);
            q |= u64::from(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, quote)) as u32) << (part * 32);
            s |= u64::from(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, backslash)) as u32) << (part * 32);
            c |= u64::from(_mm256_movemask_epi8(ctl) as u32) << (part * 32);
        }
        (q, s, c)
    }
}

/// The string's end from `i` on, 64 bytes at a time, with `masks` giving a block's quotes,
/// backslashes and control bytes (the last two looked at only when `CHECK`ing).
#[inline(always)]
fn string_blocks<const CHECK: bool>(
    b: &[u8],
    mut i: usize,
    masks: impl Fn(&[u8]) -> (u64, u64, u64),
) -> Scan<(usize, bool)> {
    let mut escaped_any = false;
    let mut carry = 0u64;
    while i + 64 <= b.len() {
        let block = &b[i..i + 64];
        let (quote, backslash, control) = masks(block);
        if backslash | carry == 0 {
            // No escape in the block (the common case in long texts): its first quote ends
            // the string, and there is nothing else to look at.
            if CHECK && control & below_lowest(quote) != 0 {
                return Err(Bail);
            }
            if quote != 0 {
                return Ok((i + quote.trailing_zeros() as usize, escaped_any));
            }
            i += 64;
            continue;
        }
        let carry_in = carry;
        let escaped = escaped_bits(backslash, &mut carry);
        let real = quote & !escaped;
        // The bytes of the string in this block: those before its closing quote.
        let within = below_lowest(real);
        if CHECK && control & within != 0 {
            return Err(Bail);
        }
        // Escaped quotes and backslashes are valid escapes, known from the masks; the other
        // escaped characters are looked up one by one.
        let mut each = if CHECK {
            escaped & within & !(quote | backslash)
        } else {
            0
        };
        while each != 0 {
            let k = each.trailing_zeros() as usize;
            match ESCAPE_KIND[usize::from(block[k])] {
                ESCAPE_SIMPLE => {}
                // Its four hex digits may cross the block: read this block one escape at
                // a time, from its escape's backslash.
                ESCAPE_UNICODE => {
                    return string_end_each::<CHECK>(b, if carry_in != 0 { i - 1 } else { i }, escaped_any);
                }
                _ => return Err(Bail),
            }
            each &= each - 1;
        }
        escaped_any |= backslash & within != 0;
        if real != 0 {
            return Ok((i + real.trailing_zeros() as usize, escaped_any));
        }
        i += 64;
    }
    string_end_each::<CHECK>(b, if carry != 0 { i - 1 } else { i }, escaped_any)
}

/// The bits of the bytes escaped by a backslash, given the backslashes of a 64-byte block;
/// `carry` says whether the block's first byte is escaped (a run of backslashes ending the
/// previous block), and is set for the next block. A run of backslashes escapes every other
/// byte after its start: the trick is simdjson's, adding the odd-started runs to carry
/// across each run.
#[inline]
fn escaped_bits(backslash: u64, carry: &mut u64) -> u64 {
    const EVEN: u64 = 0x5555_5555_5555_5555;
    let backslash = backslash & !*carry;
    let follows_escape = (backslash << 1) | *carry;
    let odd_starts = backslash & !EVEN & !follows_escape;
    let (even_runs, overflow) = odd_starts.overflowing_add(backslash);
    *carry = u64::from(overflow);
    (EVEN ^ (even_runs << 1)) & follows_escape
}

const ESCAPE_INVALID: u8 = 0;
const ESCAPE_SIMPLE: u8 = 1;
const ESCAPE_UNICODE: u8 = 2;

/// What a backslash followed by each byte is: one table look instead of a jump per escape.
static ESCAPE_KIND: [u8; 256] = {
    let mut t = [ESCAPE_INVALID; 256];
    let simple = b"\"\\/bfnrt";
    let mut k = 0;
    while k < simple.len() {
        t[simple[k] as usize] = ESCAPE_SIMPLE;
        k += 1;
    }
    t[b'u' as usize] = ESCAPE_UNICODE;
    t
};

/// The bits below the lowest set bit of `x` (all of them when `x` is 0).
#[inline(always)]
fn below_lowest(x: u64) -> u64 {
    x.wrapping_sub(1) & !x
}

/// [`string_end`] one special byte at a time, from `i` (the start of the body, or a
/// backslash in it): for the last bytes of a line, and blocks with `\u` escapes.
fn string_end_each<const CHECK: bool>(b: &[u8], mut i: usize, mut escaped: bool) -> Scan<(usize, bool)> {
    loop {
        i += find_special(b.get(i..).ok_or(Bail)?).ok_or(Bail)?;
        match b[i] {
            b'"' => return Ok((i, escaped)),
            b'\\' => {
                escaped = true;
                i += if CHECK { escape_len(b, i)? } else { 2 };
            }
            _ if CHECK => return Err(Bail),
            _ => i += 1,
        }
    }
}

/// For 64 bytes: a bit per quote, per backslash and per control byte.
#[inline]
fn masks64(block: &[u8]) -> (u64, u64, u64) {
    debug_assert_eq!(block.len(), 64);
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        // SAFETY: SSE2 is part of the x86_64 baseline; the four loads read the 64 bytes of `block`.
        unsafe {
            let quote = _mm_set1_epi8(b'"' as i8);
            let backslash = _mm_set1_epi8(b'\\' as i8);
            let max_control = _mm_set1_epi8(0x1f);
            let (mut q, mut s, mut c) = (0u64, 0u64, 0u64);
            for part in 0..4 {
                let v = _mm_loadu_si128(block.as_ptr().add(part * 16).cast::<__m128i>());
                let ctl = _mm_cmpeq_epi8(_mm_max_epu8(v, max_control), max_control);
                q |= (_mm_movemask_epi8(_mm_cmpeq_epi8(v, quote)) as u16 as u64) << (part * 16);
                s |= (_mm_movemask_epi8(_mm_cmpeq_epi8(v, backslash)) as u16 as u64) << (part * 16);
                c |= (_mm_movemask_epi8(ctl) as u16 as u64) << (part * 16);
            }
            (q, s, c)
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let (mut q, mut s, mut c) = (0u64, 0u64, 0u64);
        for (k, &byte) in block.iter().enumerate() {
            q |= u64::from(byte == b'"') << k;
            s |= u64::from(byte == b'\\') << k;
            c |= u64::from(byte < 0x20) << k;
        }
        (q, s, c)
    }
}

/// Skips JSON whitespace (space, tab, LF, CR: nothing else counts for JSON.parse).
#[inline]
pub fn ws(b: &[u8], mut pos: usize) -> usize {
    while let Some(b' ' | b'\t' | b'\n' | b'\r') = b.get(pos) {
        pos += 1;
    }
    pos
}

#[inline]
fn expect(b: &[u8], pos: usize, c: u8) -> Scan<usize> {
    if b.get(pos) == Some(&c) { Ok(pos + 1) } else { Err(Bail) }
}

/// The end of the number token at `pos`, checked against JSON's grammar.
fn number_end(b: &[u8], mut pos: usize) -> Scan<usize> {
    let digits = |b: &[u8], p: usize| {
        let end = digits_end(b, p);
        (end, end - p)
    };
    if b.get(pos) == Some(&b'-') {
        pos += 1;
    }
    match b.get(pos) {
        Some(b'0') => pos += 1,
        Some(b'1'..=b'9') => pos = digits(b, pos).0,
        _ => return Err(Bail),
    }
    if b.get(pos) == Some(&b'.') {
        let (p, n) = digits(b, pos + 1);
        if n == 0 {
            return Err(Bail);
        }
        pos = p;
    }
    if let Some(b'e' | b'E') = b.get(pos) {
        pos += 1;
        if let Some(b'+' | b'-') = b.get(pos) {
            pos += 1;
        }
        let (p, n) = digits(b, pos);
        if n == 0 {
            return Err(Bail);
        }
        pos = p;
    }
    Ok(pos)
}

/// The end of the run of ASCII digits at `p`, eight bytes at a time while eight remain
/// (usage amounts and costs run to 20 digits).
#[inline]
fn digits_end(b: &[u8], mut p: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    while let Some(chunk) = b.get(p..p + 8) {
        let x = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        // Digits become 0..=9; a byte is not a digit when its high bit is set or its low
        // seven bits are 10 or more (adding 0x76 to them then sets the high bit, carrying
        // into nothing).
        let t = x ^ (ONES * 0x30);
        let not_digit = ((t & (ONES * 0x7f)).wrapping_add(ONES * 0x76) | t) & (ONES * 0x80);
        if not_digit != 0 {
            return p + (not_digit.trailing_zeros() / 8) as usize;
        }
        p += 8;
    }
    while let Some(b'0'..=b'9') = b.get(p) {
        p += 1;
    }
    p
}

/// The number at `pos` as JavaScript holds it, and the position after it. Declines numbers
/// whose double is not finite or is a negative zero (the exact reader decides those).
pub fn number(b: &[u8], pos: usize) -> Scan<(f64, usize)> {
    let end = number_end(b, pos)?;
    let digits = &b[pos..end];
    // Most numbers in a session are counts: whole, unsigned, and short enough (15 digits at
    // most, below 2^53) that every one is a double exactly, so no float parsing is needed.
    if digits.len() <= 15 && digits.iter().all(u8::is_ascii_digit) {
        let n = digits.iter().fold(0u64, |n, d| n * 10 + u64::from(d - b'0'));
        return Ok((n as f64, end));
    }
    // The token is ASCII digits, sign, point and exponent only.
    let text = std::str::from_utf8(digits).map_err(|_| Bail)?;
    let v: f64 = text.parse().map_err(|_| Bail)?;
    if !v.is_finite() || (v == 0.0 && v.is_sign_negative()) {
        return Err(Bail);
    }
    Ok((v, end))
}

/// Pi's usage object as it writes it: these literals, each followed by a number, then `}}`.
const USAGE_SHAPE: [&[u8]; 10] = [
    b"{\"input\":",
    b",\"output\":",
    b",\"cacheRead\":",
    b",\"cacheWrite\":",
    b",\"totalTokens\":",
    b",\"cost\":{\"input\":",
    b",\"output\":",
    b",\"cacheRead\":",
    b",\"cacheWrite\":",
    b",\"total\":",
];

/// The end of the usage object at `pos` when it is written exactly as Pi writes one (its
/// keys in Pi's order, numbers, no whitespace): a dozen literal compares and numbers, where
/// [`skip`] reads each key as a string and looks for whitespace around every token. `None`
/// for any other text (valid or not), which [`skip`] then reads.
#[inline]
pub fn usage_end(b: &[u8], mut pos: usize) -> Option<usize> {
    for part in USAGE_SHAPE {
        if !b.get(pos..)?.starts_with(part) {
            return None;
        }
        pos = number_end(b, pos + part.len()).ok()?;
    }
    b.get(pos..)?.starts_with(b"}}").then_some(pos + 2)
}

/// Skips the value at `pos` (after any whitespace), validating it; returns the position after it.
pub fn skip(b: &[u8], pos: usize) -> Scan<usize> {
    skip_at::<true>(b, ws(b, pos), 0)
}

fn skip_at<const CHECK: bool>(b: &[u8], pos: usize, depth: u32) -> Scan<usize> {
    match b.get(pos) {
        Some(b'"') => string_in::<CHECK>(b, pos).map(|(_, end)| end),
        Some(b'{' | b'[') if depth >= MAX_DEPTH => Err(Bail),
        Some(b'{') => object_at::<CHECK>(b, pos, |_, b, p| skip_at::<CHECK>(b, p, depth + 1)),
        Some(b'[') => array_at::<CHECK>(b, pos, |b, p| skip_at::<CHECK>(b, p, depth + 1)),
        // A number of a valid line ends where its grammar says (its digits read eight at a
        // time: timestamps, token counts and costs are long), a literal after its letters.
        Some(b'-' | b'0'..=b'9') if !CHECK => number_end(b, pos),
        Some(b't' | b'n') if !CHECK => Ok((pos + 4).min(b.len())),
        Some(b'f') if !CHECK => Ok((pos + 5).min(b.len())),
        Some(_) if !CHECK => {
            // Anything else (not JSON): it runs to the next delimiter.
            let len = b[pos..]
                .iter()
                .position(|&c| matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'))
                .unwrap_or(b.len() - pos);
            if len == 0 { Err(Bail) } else { Ok(pos + len) }
        }
        Some(b'-' | b'0'..=b'9') => number_end(b, pos),
        Some(b't') if b[pos..].starts_with(b"true") => Ok(pos + 4),
        Some(b'f') if b[pos..].starts_with(b"false") => Ok(pos + 5),
        Some(b'n') if b[pos..].starts_with(b"null") => Ok(pos + 4),
        _ => Err(Bail),
    }
}

/// Walks the object whose `{` is at `pos` (after any whitespace): `field` gets each key and
/// the position of its value (whitespace skipped) and returns the position after the value.
/// Returns the position after the closing `}`. Keys come in file order, duplicates included
/// (JSON.parse keeps the last).
pub fn object<'a>(
    b: &'a [u8],
    pos: usize,
    field: impl FnMut(RawStr<'a>, &'a [u8], usize) -> Scan<usize>,
) -> Scan<usize> {
    object_at::<true>(b, ws(b, pos), field)
}

#[inline]
fn object_at<'a, const CHECK: bool>(
    b: &'a [u8],
    pos: usize,
    mut field: impl FnMut(RawStr<'a>, &'a [u8], usize) -> Scan<usize>,
) -> Scan<usize> {
    let mut p = ws(b, expect(b, pos, b'{')?);
    if b.get(p) == Some(&b'}') {
        return Ok(p + 1);
    }
    loop {
        if b.get(p) != Some(&b'"') {
            return Err(Bail);
        }
        let (key, after) = string_in::<CHECK>(b, p)?;
        p = ws(b, expect(b, ws(b, after), b':')?);
        p = ws(b, field(key, b, p)?);
        match b.get(p) {
            Some(b',') => p = ws(b, p + 1),
            Some(b'}') => return Ok(p + 1),
            _ => return Err(Bail),
        }
    }
}

/// Walks the array whose `[` is at `pos` (after any whitespace): `element` gets the position
/// of each element and returns the position after it. Returns the position after the `]`.
pub fn array<'a>(b: &'a [u8], pos: usize, element: impl FnMut(&'a [u8], usize) -> Scan<usize>) -> Scan<usize> {
    array_at::<true>(b, ws(b, pos), element)
}

#[inline]
fn array_at<'a, const CHECK: bool>(
    b: &'a [u8],
    pos: usize,
    mut element: impl FnMut(&'a [u8], usize) -> Scan<usize>,
) -> Scan<usize> {
    let mut p = ws(b, expect(b, pos, b'[')?);
    if b.get(p) == Some(&b']') {
        return Ok(p + 1);
    }
    loop {
        p = ws(b, element(b, p)?);
        match b.get(p) {
            Some(b',') => p = ws(b, p + 1),
            Some(b']') => return Ok(p + 1),
            _ => return Err(Bail),
        }
    }
}

/// A value read leniently as a string: `Some` for a string, `None` for any other JSON value
/// (skipped and validated). Returns the position after the value.
#[inline]
pub fn lenient_str<'a>(b: &'a [u8], pos: usize) -> Scan<(Option<Cow<'a, str>>, usize)> {
    if b.get(pos) == Some(&b'"') {
        let (s, end) = string(b, pos)?;
        return Ok((Some(s.decode()?), end));
    }
    Ok((None, skip_at::<true>(b, pos, 1)?))
}

/// A value read leniently as a number: `Some` for a number, `None` for any other value.
#[inline]
pub fn lenient_number(b: &[u8], pos: usize) -> Scan<(Option<f64>, usize)> {
    match b.get(pos) {
        Some(b'-' | b'0'..=b'9') => number(b, pos).map(|(v, end)| (Some(v), end)),
        _ => Ok((None, skip_at::<true>(b, pos, 1)?)),
    }
}

/// The raw text of the value at `pos` and the position after it.
pub fn raw_value(b: &[u8], pos: usize) -> Scan<(&[u8], usize)> {
    let end = skip_at::<true>(b, pos, 1)?;
    Ok((&b[pos..end], end))
}

/// Whether only JSON whitespace follows `pos` to the end of `b`.
#[inline]
pub fn at_end(b: &[u8], pos: usize) -> bool {
    ws(b, pos) == b.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn valid(s: &str) -> bool {
        matches!(skip(s.as_bytes(), 0), Ok(end) if at_end(s.as_bytes(), end))
    }

    #[test]
    fn accepts_what_json_parse_accepts() {
        for s in [
            "{}",
            " { \"a\" : [ 1 , -0.5e+3 , true , false , null , \"x\\u00e9\\n\" ] } ",
            "[]",
            "\"\\ud800\"",
            "0",
            "-0",
            "1E5",
            "{\"a\":{\"b\":{}}}",
            "\"\u{7f}é😀\"",
        ] {
            assert!(valid(s), "{s}");
        }
    }

    #[test]
    fn declines_what_json_parse_rejects() {
        for s in [
            "{",
            "{\"a\"}",
            "{\"a\":1,}",
            "[1,]",
            "01",
            "1.",
            ".5",
            "1e",
            "+1",
            "tru",
            "\"\t\"",
            "\"\\x\"",
            "\"\\u12\"",
            "{'a':1}",
            "{\"a\":1}}",
            "nul",
            "[1 2]",
            "\u{a0}1",
            "\"a",
        ] {
            assert!(!valid(s), "{s}");
        }
    }

    #[test]
    fn decodes_strings() {
        let b = br#""a\"b\\c\/d\u00e9\ud83d\ude00\n""#;
        let (s, end) = string(b, 0).unwrap();
        assert_eq!(end, b.len());
        assert_eq!(s.decode().unwrap(), "a\"b\\c/dé😀\n");
        assert_eq!(s.decode_prefix(3).unwrap(), "a\"b");
        let (lone, _) = string(br#""\ud800x""#, 0).unwrap();
        assert_eq!(lone.decode(), Err(Bail));
        let (plain, _) = string("\"héllo wörld\"".as_bytes(), 0).unwrap();
        assert_eq!(plain.decode_prefix(4).unwrap(), "héll");
        assert!(plain.is("héllo wörld"));
    }

    #[test]
    fn long_strings_find_their_end() {
        let body = "x".repeat(100) + "é" + &"y".repeat(37);
        let line = format!("{{\"k\":\"{body}\",\"z\":1}}");
        let mut seen = Vec::new();
        let end = object(line.as_bytes(), 0, |k, b, p| {
            seen.push(String::from_utf8(k.bytes.to_vec()).unwrap());
            skip(b, p)
        })
        .unwrap();
        assert_eq!(end, line.len());
        assert_eq!(seen, ["k", "z"]);
        let ctl = format!("{{\"k\":\"{}\u{1}\"}}", "x".repeat(40));
        assert!(!valid(&ctl));
    }

    #[test]
    fn escapes_across_block_boundaries() {
        // Every escape at every offset around the 64-byte blocks, and a control byte or a
        // missing quote at each: the scanner agrees with the exact reader.
        for esc in [
            "\\n",
            "\\u00e9",
            "\\\"",
            "\\\\",
            "\\ud83d\\ude00",
            "\u{1}",
            "\\x",
            "\\u12",
        ] {
            for at in 0..140 {
                for tail in [0, 1, 7, 70] {
                    let body = format!("{}{esc}{}", "a".repeat(at), "b".repeat(tail));
                    for text in [format!("\"{body}\""), format!("\"{body}")] {
                        let exact = crate::json::jsparse::parse(text.as_bytes());
                        match string(text.as_bytes(), 0) {
                            Ok((s, end)) => {
                                assert_eq!(end, text.len(), "{text}");
                                let v = exact.expect(&text);
                                assert_eq!(s.decode().unwrap(), v.as_str().unwrap(), "{text}");
                            }
                            Err(_) => assert!(exact.is_err(), "{text}"),
                        }
                    }
                }
            }
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4000))]
        /// On text made of JSON's own characters, the scanner accepts exactly what JSON.parse
        /// (our exact reader) accepts.
        #[test]
        fn accepts_exactly_what_json_parse_accepts(
            parts in proptest::collection::vec(proptest::sample::select(&[
                "{", "}", "[", "]", ",", ":", "\"", "\"a\"", "\"k\":", "0", "1", "-", ".", "5", "e", "+",
                "true", "fals", "null", " ", "\t", "\\", "\\u00e9", "\\ud800", "\\n", "\u{1}", "é", "\\x",
            ][..]), 1..24)
        ) {
            let text = parts.concat();
            let exact = crate::json::jsparse::parse(text.as_bytes()).is_ok();
            proptest::prop_assert_eq!(valid(&text), exact, "{}", text);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(4000))]
        /// A usage object read by its shape ends where [`skip`] ends it; text the shape does
        /// not read is left to `skip`. Pi's usage objects, with a part damaged, swapped,
        /// spaced or escaped, and odd numbers.
        #[test]
        fn usage_by_shape_ends_where_skip_ends(
            numbers in proptest::collection::vec(proptest::sample::select(&[
                "0", "10515", "0.031545000000000004", "-1", "1e5", "1E+2", "2.5e-3", "01", "1.", "-", ".5",
                "\"7\"", "null", "123456789012345678901", " 3", "4 ",
            ][..]), 10),
            damage in proptest::option::of((0usize..200, proptest::sample::select(&[
                "", " ", "\\u0069", "\"", "}", "{", ",", ":", "x", "\u{1}", "é",
            ][..]))),
            tail in proptest::sample::select(&["", "}", "}}", "}}}", " }}", "},", ",\"x\":1}}"][..]),
        ) {
            let mut text = String::new();
            for (part, n) in USAGE_SHAPE.iter().zip(&numbers) {
                text.push_str(std::str::from_utf8(part).unwrap());
                text.push_str(n);
            }
            text.push_str(tail);
            if let Some((at, with)) = damage {
                let mut at = at.min(text.len());
                while !text.is_char_boundary(at) {
                    at -= 1;
                }
                text.insert_str(at, with);
            }
            let b = text.as_bytes();
            if let Some(end) = usage_end(b, 0) {
                proptest::prop_assert_eq!(skip(b, 0), Ok(end), "{}", text);
            }
            let plain = numbers.iter().all(|n| number_end(n.as_bytes(), 0) == Ok(n.len()));
            if plain && tail.starts_with("}}") && damage.is_none() {
                proptest::prop_assert_eq!(usage_end(b, 0), Some(text.len() - tail.len() + 2), "{}", text);
            }
        }
    }

    proptest::proptest! {
        /// The block-at-a-time string end agrees with the one-escape-at-a-time reading on
        /// text long enough to cross blocks, escapes (valid or not) at any offset.
        #[test]
        fn string_end_by_blocks_agrees_with_each_escape(
            parts in proptest::collection::vec(proptest::sample::select(&[
                "a", "bcdefgh", " ", "é", "😀", "\\n", "\\\"", "\\\\", "\\u00e9", "\\u12", "\\x",
                "\\", "\"", "\u{1}", "\\/", "\\t", "\\b", "\\f", "\\r", "\\a", "\\U0041",
            ][..]), 0..90),
            start in 0usize..3,
        ) {
            let body = parts.concat();
            let b = body.as_bytes();
            let start = start.min(b.len());
            let each = string_end_each::<true>(b, start, false);
            proptest::prop_assert_eq!(string_end::<true>(b, start), each);
            // The SSE2 masks too, whatever this CPU picks.
            proptest::prop_assert_eq!(string_blocks::<true>(b, start, masks64), each);
        }
    }

    proptest::proptest! {
        /// Digits eight at a time end where a byte-by-byte reading ends, whatever bytes
        /// (digits' neighbours in ASCII, high bytes, `-.eE`) follow, from any start.
        #[test]
        fn digits_by_eight_end_where_bytes_end(
            bytes in proptest::collection::vec(proptest::prop_oneof![
                6 => proptest::sample::select(&b"0123456789"[..]),
                1 => proptest::sample::select(&b"/:.-eE \"}\x00\x7f\x80\xb0\xb9\xff"[..]),
                1 => proptest::prelude::any::<u8>(),
            ], 0..40),
            start in 0usize..4,
        ) {
            let start = start.min(bytes.len());
            let slow = start + bytes[start..].iter().take_while(|c| c.is_ascii_digit()).count();
            proptest::prop_assert_eq!(digits_end(&bytes, start), slow);
        }
    }

    proptest::proptest! {
        /// A prefix is the start of the whole value, whatever mix of one- to four-byte
        /// characters and escapes the text holds (a prefix reads the text in windows).
        #[test]
        fn prefixes_are_starts_of_the_value(
            parts in proptest::collection::vec(proptest::sample::select(&[
                "a", "bc", " ", "é", "日本", "😀", "\\n", "\\\"", "\\u00e9", "\\ud83d\\ude00", "\\\\",
            ][..]), 0..120),
            max in 0usize..200,
        ) {
            let body = parts.concat();
            let s = RawStr { bytes: body.as_bytes(), escaped: body.contains('\\') };
            let whole: String = s.decode().unwrap().into_owned();
            let want: String = whole.chars().take(max).collect();
            proptest::prop_assert_eq!(s.decode_prefix(max).unwrap(), want);
        }
    }

    proptest::proptest! {
        /// A whole value decodes as `JSON.parse` reads it, escapes at any offset of the
        /// blocks; invalid UTF-8 and lone surrogates are declined.
        #[test]
        fn whole_values_decode_as_json_parse_reads_them(
            parts in proptest::collection::vec(proptest::sample::select(vec![
                &b"a"[..], b"bcdefghijklmnopqrstuvwxyz0123456789", " ".as_bytes(), "é".as_bytes(),
                "日本".as_bytes(), "😀".as_bytes(), b"\\n", b"\\\"", b"\\\\", b"\\u00e9", b"\\ud83d\\ude00",
                b"\\ud800", b"\\/", b"\\t", b"\xff", b"\xc3",
            ]), 0..200),
        ) {
            let body = parts.concat();
            let s = RawStr { bytes: &body, escaped: body.contains(&b'\\') };
            let mut text = b"\"".to_vec();
            text.extend_from_slice(&body);
            text.push(b'"');
            let exact = crate::json::jsparse::parse(&text).unwrap();
            let exact = exact.as_str().unwrap();
            match s.decode() {
                Ok(got) => proptest::prop_assert_eq!(&*got, exact),
                Err(_) => proptest::prop_assert!(
                    std::str::from_utf8(&body).is_err() || crate::json::jsparse::has_lone_surrogate(exact)
                ),
            }
        }
    }

    #[test]
    fn characters_are_read_one_at_a_time() {
        for c in ['a', 'é', '日', '😀', '\u{85}', '\u{3000}'] {
            let mut b = c.to_string().into_bytes();
            b.push(b'x');
            assert_eq!(char_at(&b, 0), Ok((c, c.len_utf8())));
        }
        assert_eq!(char_at(&[0xe6, 0x97], 0), Err(Bail));
        assert_eq!(char_at(&[0xff, 0x80, 0x80, 0x80], 0), Err(Bail));
        assert_eq!(char_at(&[0x80, b'a'], 0), Err(Bail));
    }

    #[test]
    fn numbers_are_exact_or_declined() {
        assert_eq!(number(b"0.1", 0).unwrap().0, 0.1);
        assert_eq!(
            number(b"123456789012345678901234567890", 0).unwrap().0,
            1.2345678901234568e29
        );
        assert_eq!(number(b"1e400", 0), Err(Bail));
        assert_eq!(number(b"-0", 0), Err(Bail));
    }

    #[test]
    fn deep_nesting_is_declined_not_overflowed() {
        let deep = "[".repeat(100_000) + &"]".repeat(100_000);
        assert_eq!(skip(deep.as_bytes(), 0), Err(Bail));
    }

    /// The string end a byte at a time, as the grammar says (for the unchecked walk).
    fn slow_end(b: &[u8], mut i: usize) -> Option<(usize, bool)> {
        let mut escaped = false;
        while i < b.len() {
            match b[i] {
                b'\\' => {
                    escaped = true;
                    i += 2;
                }
                b'"' => return Some((i, escaped)),
                _ => i += 1,
            }
        }
        None
    }

    proptest::proptest! {
        #[test]
        fn unchecked_string_end_agrees_with_a_byte_loop(
            body in proptest::collection::vec(proptest::sample::select(&[b'a', b'\\', b'"', b'n', 0xc3, b' ', 1][..]), 0..400),
            start in 0usize..70,
        ) {
            let start = start.min(body.len());
            proptest::prop_assert_eq!(string_end::<false>(&body, start).ok(), slow_end(&body, start));
            proptest::prop_assert_eq!(string_blocks::<false>(&body, start, masks64).ok(), slow_end(&body, start));
        }
    }

    #[test]
    fn backslash_runs_across_blocks() {
        for run in 0..140 {
            for lead in 0..70 {
                let mut b = vec![b'x'; lead];
                b.extend(std::iter::repeat_n(b'\\', run));
                b.extend_from_slice(b"\"tail\"");
                b.extend(std::iter::repeat_n(b'y', 70));
                assert_eq!(
                    string_end::<false>(&b, 0).ok(),
                    slow_end(&b, 0),
                    "run {run} lead {lead}"
                );
            }
        }
    }

    #[test]
    fn the_unchecked_walk_walks_as_the_checked_one() {
        let line = br#"{"a":[1,-2.5e3,true,null,{"b":"x\"y\\"}],"c":"\u00e9" , "d" : false}"#;
        let mut keys = Vec::new();
        let end = trusted::object(line, 0, |k, b, p| {
            keys.push(String::from_utf8(k.bytes.to_vec()).unwrap());
            let (raw, end) = trusted::raw_value(b, p)?;
            assert_eq!((raw, end), raw_value(b, p)?);
            Ok(end)
        })
        .unwrap();
        assert_eq!(end, line.len());
        assert_eq!(keys, ["a", "c", "d"]);
    }
}
