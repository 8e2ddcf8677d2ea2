//! The scanner's walk over a line already known to be valid JSON (a line `JSON.parse`
//! accepted when the session was loaded). Nothing is validated again: a string ends at its
//! first unescaped quote, found 64 bytes at a time without looking at each escape, so a
//! second reading of a line (a preview, say) costs a fraction of the first.
//!
//! Only the boundaries of values are trusted. Whatever a caller decodes still goes through
//! [`RawStr::decode`], which declines what it cannot hold exactly. On a line that is not
//! valid JSON these functions return wrong positions or [`Bail`], never read out of bounds.

use super::{Bail, RawStr, Scan, ws};

/// Nesting deeper than this is declined, so a hostile line cannot exhaust the stack.
const MAX_DEPTH: u32 = 256;

/// Reads the string token whose opening quote is at `pos`: its body and the position after
/// its closing quote.
#[inline]
pub fn string(b: &[u8], pos: usize) -> Scan<(RawStr<'_>, usize)> {
    let start = pos + 1;
    let (end, escaped) = string_end(b, start)?;
    let body = RawStr {
        bytes: &b[start..end],
        escaped,
    };
    Ok((body, end + 1))
}

/// The position of the closing quote of a string whose body goes on at `i` (a position
/// not inside an escape: the body's start, or where a reader of its pieces stopped).
#[inline]
pub fn body_end(b: &[u8], i: usize) -> Scan<usize> {
    string_end(b, i).map(|(end, _)| end)
}

/// The bits of the bytes escaped by a backslash, given the backslashes of a 64-byte block;
/// `carry` says whether the block's first byte is escaped (a run of backslashes ending the
/// previous block), and is set for the next block. A run of backslashes escapes every other
/// byte after its start: the trick is simdjson's, adding the odd-started runs to carry
/// across each run.
#[inline]
pub(super) fn escaped_bits(backslash: u64, carry: &mut u64) -> u64 {
    const EVEN: u64 = 0x5555_5555_5555_5555;
    let backslash = backslash & !*carry;
    let follows_escape = (backslash << 1) | *carry;
    let odd_starts = backslash & !EVEN & !follows_escape;
    let (even_runs, overflow) = odd_starts.overflowing_add(backslash);
    *carry = u64::from(overflow);
    (EVEN ^ (even_runs << 1)) & follows_escape
}

/// The position of the first unescaped quote at or after `i`, and whether a backslash
/// comes before it.
#[inline]
fn string_end(b: &[u8], i: usize) -> Scan<(usize, bool)> {
    // Most strings are keys and short values (ids, timestamps, model names): their first
    // special byte, within 32 bytes, is their closing quote (a valid line has no control
    // byte in a string). Looked for 16 bytes at a time: a short string costs one look.
    if let Some(head) = b.get(i..i + 32).or_else(|| b.get(i..i + 16))
        && let Some(k) = super::find_special(head)
        && head[k] == b'"'
    {
        return Ok((i + k, false));
    }
    string_end_long(b, i)
}

/// [`string_end`] past its first look, out of line (see [`super::string_end`]).
#[inline(never)]
fn string_end_long(b: &[u8], i: usize) -> Scan<(usize, bool)> {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2.
        return unsafe { string_blocks_avx2(b, i) };
    }
    string_blocks(b, i, super::masks64)
}

/// [`string_blocks`] with the scanner's masks taken 32 bytes at a time.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn string_blocks_avx2(b: &[u8], i: usize) -> Scan<(usize, bool)> {
    // SAFETY: AVX2 is enabled here.
    string_blocks(b, i, |block| unsafe { super::masks64_avx2(block) })
}

/// The string's end from `i` on, 64 bytes at a time, with `masks` giving a block's quotes
/// and backslashes (and control bytes, not looked at: the line was checked).
#[inline(always)]
fn string_blocks(b: &[u8], mut i: usize, masks: impl Fn(&[u8]) -> (u64, u64, u64)) -> Scan<(usize, bool)> {
    let mut carry = 0u64;
    let mut escaped = false;
    while i + 64 <= b.len() {
        let (quote, backslash, _) = masks(&b[i..i + 64]);
        // A block without backslashes after one that did not end in a run of them has no
        // escaped byte (the common case in long texts).
        let real = if backslash | carry == 0 {
            quote
        } else {
            quote & !escaped_bits(backslash, &mut carry)
        };
        if real != 0 {
            let k = real.trailing_zeros();
            escaped |= backslash & ((1u64 << k) - 1) != 0;
            return Ok((i + k as usize, escaped));
        }
        escaped |= backslash != 0;
        i += 64;
    }
    let mut after_backslash = carry != 0;
    while let Some(&c) = b.get(i) {
        if after_backslash {
            after_backslash = false;
        } else if c == b'\\' {
            after_backslash = true;
            escaped = true;
        } else if c == b'"' {
            return Ok((i, escaped));
        }
        i += 1;
    }
    Err(Bail)
}

/// Skips the value at `pos` (after any whitespace); returns the position after it.
pub fn skip(b: &[u8], pos: usize) -> Scan<usize> {
    skip_at(b, ws(b, pos), 0)
}

fn skip_at(b: &[u8], pos: usize, depth: u32) -> Scan<usize> {
    match b.get(pos) {
        Some(b'"') => string(b, pos).map(|(_, end)| end),
        Some(b'{') | Some(b'[') if depth >= MAX_DEPTH => Err(Bail),
        Some(b'{') => object_at(b, pos, |_, b, p| skip_at(b, p, depth + 1)),
        Some(b'[') => array(b, pos, |b, p| skip_at(b, p, depth + 1)),
        Some(_) => {
            // A number, `true`, `false` or `null`: it runs to the next delimiter.
            let len = b[pos..]
                .iter()
                .position(|&c| matches!(c, b',' | b'}' | b']' | b' ' | b'\t' | b'\n' | b'\r'))
                .unwrap_or(b.len() - pos);
            if len == 0 { Err(Bail) } else { Ok(pos + len) }
        }
        None => Err(Bail),
    }
}

/// Walks the object at `pos` (after any whitespace) as [`super::object`] does.
pub fn object<'a>(
    b: &'a [u8],
    pos: usize,
    field: impl FnMut(RawStr<'a>, &'a [u8], usize) -> Scan<usize>,
) -> Scan<usize> {
    object_at(b, ws(b, pos), field)
}

fn object_at<'a>(
    b: &'a [u8],
    pos: usize,
    mut field: impl FnMut(RawStr<'a>, &'a [u8], usize) -> Scan<usize>,
) -> Scan<usize> {
    if b.get(pos) != Some(&b'{') {
        return Err(Bail);
    }
    let mut p = ws(b, pos + 1);
    if b.get(p) == Some(&b'}') {
        return Ok(p + 1);
    }
    loop {
        if b.get(p) != Some(&b'"') {
            return Err(Bail);
        }
        let (key, after) = string(b, p)?;
        p = ws(b, after);
        if b.get(p) != Some(&b':') {
            return Err(Bail);
        }
        p = ws(b, field(key, b, ws(b, p + 1))?);
        match b.get(p) {
            Some(b',') => p = ws(b, p + 1),
            Some(b'}') => return Ok(p + 1),
            _ => return Err(Bail),
        }
    }
}

/// Walks the array at `pos` (after any whitespace) as [`super::array`] does.
pub fn array<'a>(b: &'a [u8], pos: usize, mut element: impl FnMut(&'a [u8], usize) -> Scan<usize>) -> Scan<usize> {
    let pos = ws(b, pos);
    if b.get(pos) != Some(&b'[') {
        return Err(Bail);
    }
    let mut p = ws(b, pos + 1);
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

/// The raw text of the value at `pos` and the position after it.
pub fn raw_value(b: &[u8], pos: usize) -> Scan<(&[u8], usize)> {
    let end = skip_at(b, pos, 1)?;
    Ok((&b[pos..end], end))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The string end a byte at a time, as the grammar says.
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

    proptest! {
        #[test]
        fn string_end_agrees_with_a_byte_loop(
            body in prop::collection::vec(prop::sample::select(&[b'a', b'\\', b'"', b'n', 0xc3, b' '][..]), 0..400),
            start in 0usize..70,
        ) {
            let start = start.min(body.len());
            prop_assert_eq!(string_end(&body, start).ok(), slow_end(&body, start));
            prop_assert_eq!(string_blocks(&body, start, super::super::masks64).ok(), slow_end(&body, start));
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
                assert_eq!(string_end(&b, 0).ok(), slow_end(&b, 0), "run {run} lead {lead}");
            }
        }
    }

    #[test]
    fn walks_as_the_validating_scanner_does() {
        let line = br#"{"a":[1,-2.5e3,true,null,{"b":"x\"y\\"}],"c":"\u00e9" , "d" : false}"#;
        let mut keys = Vec::new();
        let end = object(line, 0, |k, b, p| {
            keys.push(String::from_utf8(k.bytes.to_vec()).unwrap());
            let (raw, end) = raw_value(b, p)?;
            let (want, want_end) = super::super::raw_value(b, p)?;
            assert_eq!((raw, end), (want, want_end));
            Ok(end)
        })
        .unwrap();
        assert_eq!(end, line.len());
        assert_eq!(keys, ["a", "c", "d"]);
    }
}
