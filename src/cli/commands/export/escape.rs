//! Escaping for the export: text made safe for a terminal (`clean`, `line`: controls shown as
//! escapes) and for HTML, a block of bytes at a time where nothing needs changing.

use crate::cli::output::{escape_block, escape_line};
use std::borrow::Cow;

/// Bytes that may start a character `clean` or `line` changes: C0 controls, DEL, and the
/// first bytes of C1 controls (`C2`), of the bidirectional controls (`E2`) and of the
/// stand-ins for lone surrogates (`F4`).
const SUSPECT: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = true;
        b += 1;
    }
    t[0x7f] = true;
    t[0xc2] = true;
    t[0xe2] = true;
    t[0xf4] = true;
    t
};

/// For 16 bytes: a bit per byte in [`SUSPECT`] (`\n` and `\t` not counted with `lines`).
#[inline]
fn suspects16(block: &[u8], lines: bool) -> u32 {
    debug_assert_eq!(block.len(), 16);
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        // SAFETY: SSE2 is part of the x86_64 baseline; the load reads the 16 bytes of `block`.
        unsafe {
            let v = _mm_loadu_si128(block.as_ptr().cast::<__m128i>());
            let max_control = _mm_set1_epi8(0x1f);
            let mut control = _mm_cmpeq_epi8(_mm_max_epu8(v, max_control), max_control);
            if lines {
                let kept = _mm_or_si128(
                    _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\n' as i8)),
                    _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\t' as i8)),
                );
                control = _mm_andnot_si128(kept, control);
            }
            let high = _mm_or_si128(
                _mm_or_si128(
                    _mm_cmpeq_epi8(v, _mm_set1_epi8(0x7f)),
                    _mm_cmpeq_epi8(v, _mm_set1_epi8(0xc2u8 as i8)),
                ),
                _mm_or_si128(
                    _mm_cmpeq_epi8(v, _mm_set1_epi8(0xe2u8 as i8)),
                    _mm_cmpeq_epi8(v, _mm_set1_epi8(0xf4u8 as i8)),
                ),
            );
            _mm_movemask_epi8(_mm_or_si128(control, high)) as u32
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let mut mask = 0;
        for (k, &b) in block.iter().enumerate() {
            let suspect = SUSPECT[b as usize] && !(lines && (b == b'\n' || b == b'\t'));
            mask |= u32::from(suspect) << k;
        }
        mask
    }
}

/// Whether the suspect byte at `i` of `b` starts a character `escape_line` (with `lines`:
/// `escape_block`) changes, or is a `\r`.
#[inline]
fn changed_at(b: &[u8], i: usize, lines: bool) -> bool {
    let next = |k: usize| b.get(i + k).copied().unwrap_or(0);
    match b[i] {
        b'\n' | b'\t' => !lines,
        0xc2 => (0x80..=0x9f).contains(&next(1)),
        0xe2 => {
            (next(1) == 0x80 && (0xaa..=0xae).contains(&next(2)))
                || (next(1) == 0x81 && (0xa6..=0xa9).contains(&next(2)))
        }
        0xf4 => next(1) == 0x8f && next(2) >= 0xa0,
        _ => true,
    }
}

/// For 32 bytes at `at` of `b`: a bit per byte in [`SUSPECT`] (`\n` and `\t` not counted
/// with `lines`), with AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn suspects32(b: &[u8], at: usize, lines: bool) -> u32 {
    use std::arch::x86_64::*;
    let block = &b[at..at + 32];
    // SAFETY: the load reads the 32 bytes of `block`.
    let v = unsafe { _mm256_loadu_si256(block.as_ptr().cast::<__m256i>()) };
    let eq = |c: u8| _mm256_cmpeq_epi8(v, _mm256_set1_epi8(c as i8));
    let max_control = _mm256_set1_epi8(0x1f);
    let mut control = _mm256_cmpeq_epi8(_mm256_max_epu8(v, max_control), max_control);
    if lines {
        control = _mm256_andnot_si256(_mm256_or_si256(eq(b'\n'), eq(b'\t')), control);
    }
    let high = _mm256_or_si256(_mm256_or_si256(eq(0x7f), eq(0xc2)), _mm256_or_si256(eq(0xe2), eq(0xf4)));
    _mm256_movemask_epi8(_mm256_or_si256(control, high)) as u32
}

/// [`is_plain`] 32 bytes at a time, with AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn is_plain_avx2(b: &[u8], lines: bool) -> bool {
    is_plain_by::<32>(b, lines, |at| suspects32(b, at, lines))
}

/// [`is_plain`] `N` bytes at a time, `suspects(at)` giving the bytes at `at..at + N` that
/// may need a change.
#[inline(always)]
fn is_plain_by<const N: usize>(b: &[u8], lines: bool, suspects: impl Fn(usize) -> u32) -> bool {
    let mut at = 0;
    while at + N <= b.len() {
        let mut mask = suspects(at);
        while mask != 0 {
            if changed_at(b, at + mask.trailing_zeros() as usize, lines) {
                return false;
            }
            mask &= mask - 1;
        }
        at += N;
    }
    (at..b.len()).all(|i| !SUSPECT[b[i] as usize] || !changed_at(b, i, lines))
}

/// Whether `s` has no character that `escape_line` (with `lines`: `escape_block`) changes,
/// and no `\r`: most session text needs no change, and is read 32 or 16 bytes at a time.
pub(super) fn is_plain(s: &str, lines: bool) -> bool {
    let b = s.as_bytes();
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2.
        return unsafe { is_plain_avx2(b, lines) };
    }
    is_plain_16(b, lines)
}

/// [`is_plain`] 16 bytes at a time.
pub(super) fn is_plain_16(b: &[u8], lines: bool) -> bool {
    is_plain_by::<16>(b, lines, |at| suspects16(&b[at..at + 16], lines))
}

/// Session text made safe to print: CRLF as LF, control characters escaped (tab and LF kept).
pub(super) fn clean(s: &str) -> Cow<'_, str> {
    if is_plain(s, true) {
        return s.into();
    }
    escape_block(&s.replace("\r\n", "\n")).into()
}

/// Session text for one line: every control character escaped.
pub(super) fn line(s: &str) -> Cow<'_, str> {
    if is_plain(s, false) {
        return s.into();
    }
    escape_line(s).into()
}

/// `s` with `&`, `<`, `>`, `"` and `'` escaped for HTML (the library's escaping, which the
/// highlighter uses too).
pub(super) fn push_escaped_html(out: &mut String, s: &str) {
    pi_session::transcript::highlight::push_escaped(out, s);
}

/// Appends text escaped for HTML content and attribute values; never a raw control character.
pub(super) fn push_html(out: &mut String, s: &str) {
    push_escaped_html(out, &clean(s));
}

/// Appends one-line text for HTML (headings, summaries).
pub(super) fn push_html_line(out: &mut String, s: &str) {
    push_escaped_html(out, &line(s));
}

#[cfg(test)]
pub(super) fn html(s: &str) -> String {
    let mut out = String::new();
    push_html(&mut out, s);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_html_and_controls() {
        assert_eq!(
            html("<script>alert('x\"&')</script>\x1b\x00\r\n"),
            "&lt;script&gt;alert(&#39;x&quot;&amp;&#39;)&lt;/script&gt;\\e\\x00\n"
        );
        // Long text, read in blocks: specials and controls anywhere in them.
        for k in 0..70 {
            let mut t = "ab日本語cd".repeat(9);
            let at = t.char_indices().nth(k).map_or(t.len(), |(i, _)| i);
            t.insert_str(at, "<&'\x1b\"");
            let want = t
                .replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('\'', "&#39;")
                .replace('"', "&quot;")
                .replace('\x1b', "\\e");
            assert_eq!(html(&t), want);
        }
    }

    proptest::proptest! {
        /// HTML escaping, read in blocks copied whole, agrees with escaping character by
        /// character on text of any shape.
        #[test]
        fn html_escaping_agrees_with_replacing(parts in proptest::collection::vec(proptest::sample::select(
            &["a", "é", "日本語", "😀", "&", "<", ">", "\"", "'", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", " "][..]), 0..40)) {
            let t = parts.concat();
            let mut out = String::from("<");
            push_escaped_html(&mut out, &t);
            let want = t
                .replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;")
                .replace('"', "&quot;")
                .replace('\'', "&#39;");
            proptest::prop_assert_eq!(out, format!("<{want}"));
        }
    }

    /// Every character `clean` or `line` could meet near the ones that matter, alone and
    /// between others: the byte scan agrees with the character-by-character escapes.
    #[test]
    fn the_byte_scan_agrees_with_the_escapes() {
        let chars = (0..0x3000u32)
            .chain(0xfff0..0x10010)
            .chain(0x10_f000..=0x10_ffff)
            .filter_map(char::from_u32);
        for c in chars {
            for s in [c.to_string(), format!("a{c}b"), format!("{c}\r\n{c}\n")] {
                assert_eq!(clean(&s), escape_block(&s.replace("\r\n", "\n")), "{:x}", c as u32);
                assert_eq!(line(&s), escape_line(&s), "{:x}", c as u32);
            }
        }
        let lone = char::from_u32(pi_session::session::jsparse::LONE_SURROGATE_BASE).unwrap();
        assert_eq!(line(&format!("x{lone}")), "x\u{fffd}");
        assert_eq!(clean("a\u{202e}b\r\nc\rd\t"), "a\\u{202e}b\nc\\rd\t");
    }

    /// The byte scan read 16 bytes at a time: every character that matters at every offset
    /// of a long text, next to the characters whose first bytes are suspect.
    #[test]
    fn the_block_scan_agrees_with_the_escapes() {
        let lone = char::from_u32(pi_session::session::jsparse::LONE_SURROGATE_BASE).unwrap();
        let chars = [
            '\n',
            '\t',
            '\r',
            '\x1b',
            '\0',
            '\x7f',
            '\u{80}',
            '\u{85}',
            '\u{9f}',
            '\u{a0}',
            '\u{202a}',
            '\u{202e}',
            '\u{2066}',
            '\u{2069}',
            '\u{2028}',
            '\u{20ac}',
            lone,
            '\u{10ffff}',
            'é',
            '😀',
        ];
        for c in chars {
            for at in 0..40 {
                let mut s: String = "abcdefghij".repeat(4);
                s.insert(at, c);
                for t in [s.clone(), format!("{s}\u{a0}é"), format!("日本{s}")] {
                    for lines in [false, true] {
                        assert_eq!(is_plain_16(t.as_bytes(), lines), is_plain(&t, lines), "{t:?}");
                    }
                    assert_eq!(
                        clean(&t),
                        escape_block(&t.replace("\r\n", "\n")),
                        "{:x} at {at}",
                        c as u32
                    );
                    assert_eq!(line(&t), escape_line(&t), "{:x} at {at}", c as u32);
                }
            }
        }
    }
}
