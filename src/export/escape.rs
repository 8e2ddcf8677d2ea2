//! The export's escaping, all of it: session text made safe to show (`clean` for blocks,
//! `line` for one line: controls shown as escapes, as the terminal output shows them) and
//! HTML escaping, which the page writer, the Markdown renderer and the highlighter share.
//!
//! Most session text needs no change, so each check reads the text in blocks of 32 bytes
//! with a test that has no branch per byte (the compiler makes it SIMD) and looks closer
//! only at a block that has a byte that may matter. The HTML escaper alone writes with raw
//! fixed-size copies ([`escape_into`], which the highlighter's writer calls too): a page is
//! mostly highlighted tokens of a few bytes, and escaping them with a `push_str` per piece
//! made the whole `export --format html` of a 256 MiB session take 15–20 % more CPU.

use crate::human::{escape_block, escape_line};
use std::borrow::Cow;

/// Bytes that may start a character `clean` or `line` changes: C0 controls, DEL, and the
/// first bytes of C1 controls (`C2`), of the Arabic letter mark (`D8`), of the other
/// bidirectional controls (`E2`) and of the stand-ins for lone surrogates (`F4`).
const SUSPECT: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = true;
        b += 1;
    }
    t[0x7f] = true;
    t[0xc2] = true;
    t[0xd8] = true;
    t[0xe2] = true;
    t[0xf4] = true;
    t
};

/// Whether a block has a byte in [`SUSPECT`] (`\n` and `\t` not counted with `LINES`), and
/// (with `TICKS`) whether it has a backtick. Both are const: each caller's loop is compiled
/// for what it asks, with no test of its own per block.
#[inline(always)]
fn block_marks<const LINES: bool, const TICKS: bool>(block: &[u8; 32]) -> (bool, bool) {
    let (mut suspect, mut tick) = (0u8, 0u8);
    for &b in block {
        let control = b < 0x20 && !(LINES && (b == b'\n' || b == b'\t'));
        suspect |= u8::from(control)
            | u8::from(b == 0x7f)
            | u8::from(b == 0xc2)
            | u8::from(b == 0xd8)
            | u8::from(b == 0xe2)
            | u8::from(b == 0xf4);
        if TICKS {
            tick |= u8::from(b == b'`');
        }
    }
    (suspect != 0, tick != 0)
}

/// Whether the suspect byte at `i` of `b` starts a character `escape_line` (with `lines`:
/// `escape_block`) changes, or is a `\r`.
#[inline]
fn changed_at(b: &[u8], i: usize, lines: bool) -> bool {
    let next = |k: usize| b.get(i + k).copied().unwrap_or(0);
    match b[i] {
        b'\n' | b'\t' => !lines,
        0xc2 => (0x80..=0x9f).contains(&next(1)),
        0xd8 => next(1) == 0x9c,
        0xe2 => {
            (next(1) == 0x80 && matches!(next(2), 0x8e | 0x8f | 0xaa..=0xae))
                || (next(1) == 0x81 && (0xa6..=0xa9).contains(&next(2)))
        }
        0xf4 => next(1) == 0x8f && next(2) >= 0xa0,
        _ => true,
    }
}

/// Whether `s` has no character that `escape_line` (with `LINES`: `escape_block`) changes,
/// and no `\r`; if so, (with `TICKS`) whether it has a backtick. The last bytes (under 32)
/// are read as a block too, padded with spaces (which are neither suspect nor backticks).
fn scan<const LINES: bool, const TICKS: bool>(s: &str) -> Option<bool> {
    let b = s.as_bytes();
    let changed = |from: usize, to: usize| (from..to).any(|i| SUSPECT[usize::from(b[i])] && changed_at(b, i, LINES));
    let mut ticks = false;
    let mut at = 0;
    while let Some(block) = b.get(at..at + 32) {
        let (suspect, tick) = block_marks::<LINES, TICKS>(block.try_into().expect("32 bytes"));
        if suspect && changed(at, at + 32) {
            return None;
        }
        ticks |= tick;
        at += 32;
    }
    if at < b.len() {
        let mut last = [b' '; 32];
        last[..b.len() - at].copy_from_slice(&b[at..]);
        let (suspect, tick) = block_marks::<LINES, TICKS>(&last);
        if suspect && changed(at, b.len()) {
            return None;
        }
        ticks |= tick;
    }
    Some(ticks)
}

/// Whether `s` has no character that `escape_line` (with `lines`: `escape_block`) changes,
/// and no `\r`.
pub(super) fn is_plain(s: &str, lines: bool) -> bool {
    if lines {
        scan::<true, false>(s).is_some()
    } else {
        scan::<false, false>(s).is_some()
    }
}

/// The backticks of a text, as far as a fence around it cares.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ticks {
    /// No backtick.
    None,
    /// Backticks, in runs of one or two.
    Short,
    /// A run of three or more.
    Long,
}

/// Appends `s` to `out` when [`clean`] (with `lines`; else [`line`]) would leave it as it
/// is, and tells its [`Ticks`]; `None`, with nothing appended, when it would change it.
#[inline]
fn push_if_plain<const LINES: bool>(out: &mut String, s: &str) -> Option<Ticks> {
    let ticks = scan::<LINES, true>(s)?;
    out.push_str(s);
    Some(if !ticks {
        Ticks::None
    } else if memchr::memmem::find(s.as_bytes(), b"```").is_none() {
        Ticks::Short
    } else {
        Ticks::Long
    })
}

/// Appends `s` to `out` when [`clean`] would leave it as it is, and tells its [`Ticks`];
/// `None`, with nothing appended, when `clean` would change it.
pub(super) fn push_if_clean(out: &mut String, s: &str) -> Option<Ticks> {
    push_if_plain::<true>(out, s)
}

/// Appends `s` to `out` when [`line`] would leave it as it is, and tells its [`Ticks`];
/// `None`, with nothing appended, when `line` would change it.
pub(super) fn push_if_line(out: &mut String, s: &str) -> Option<Ticks> {
    push_if_plain::<false>(out, s)
}

/// Appends `s` as [`line`] gives it.
pub(super) fn push_line(out: &mut String, s: &str) {
    if push_if_line(out, s).is_none() {
        out.push_str(&escape_line(s));
    }
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

/// `s` HTML-escaped (`& < > " '`) into `out`: safe in element content and in quoted
/// attribute values. The one HTML escaper of the export: the page, the Markdown and the
/// highlighter's tokens all go through it (the highlighter through [`escape_into`]).
pub(crate) fn push_escaped_html(out: &mut String, s: &str) {
    let bytes = s.as_bytes();
    // SAFETY: the blocks copied whole and `escape_into` write only the text's bytes, in
    // order, and ASCII replacements of ASCII bytes, within the room reserved (`escape_room`
    // covers 32 bytes copied for 32 taken); the length covers exactly what was written, so
    // `out` stays UTF-8.
    unsafe {
        let out = out.as_mut_vec();
        out.reserve(escape_room(bytes.len()));
        let start = out.as_mut_ptr().add(out.len());
        let mut dst = start;
        let mut at = 0;
        // Long text (tool outputs, code blocks): its blocks of 32 with nothing to replace,
        // most of them, are copied whole.
        while let Some(block) = bytes.get(at..at + 32) {
            if has_html_special(block.try_into().expect("32 bytes")) {
                dst = escape_into(dst, bytes, at, at + 32);
            } else {
                std::ptr::copy_nonoverlapping(block.as_ptr(), dst, 32);
                dst = dst.add(32);
            }
            at += 32;
        }
        let end = escape_into(dst, bytes, at, bytes.len());
        out.set_len(out.len() + end.offset_from(start) as usize);
    }
}

/// Whether a block has a byte that HTML escaping replaces.
#[inline(always)]
fn has_html_special(block: &[u8; 32]) -> bool {
    let mut any = 0u8;
    for &b in block {
        any |= u8::from(is_html_special(b));
    }
    any != 0
}

/// The room [`escape_into`] needs for `len` bytes: at most six bytes out per byte in, and
/// what its fixed-size copies write past the end.
pub(crate) const fn escape_room(len: usize) -> usize {
    len * 6 + 32
}

/// Writes `src[from..to]` HTML-escaped at `dst`; returns the end of what it wrote.
///
/// The HTML of a page is mostly highlighted code: tokens a few bytes long, each escaped on
/// its own. A byte loop, or a `push_str` per piece, made that escaping cost a fifth more
/// of the whole `export --format html` (measured against this): here each block of 16 bytes
/// is copied whole with fixed-size copies, then the bytes to replace are replaced a piece at
/// a time, with no call per piece. A block may reach past `to` (the bytes after it are read
/// but not kept); within 32 bytes of the end of `src` the blocks are read from a padded copy.
///
/// # Safety
/// `from <= to <= src.len()`, and `dst` has room for [`escape_room`]`(to - from)` bytes:
/// up to 32 bytes past the escaped text are written over (left out of the length, or
/// written again by what follows).
#[inline(always)]
pub(crate) unsafe fn escape_into(mut dst: *mut u8, src: &[u8], from: usize, to: usize) -> *mut u8 {
    debug_assert!(from <= to && to <= src.len());
    let mut i = from;
    while i < to {
        let Some(block) = src.get(i..i + 32) else {
            // SAFETY: as the caller promised.
            return unsafe { escape_tail(dst, src, i, to) };
        };
        let take = (to - i).min(16);
        let found = escaped16(block[..16].try_into().expect("16 bytes")) & (u32::MAX >> (32 - take));
        // SAFETY: `block` has the 32 bytes `escape_block` reads; the room for its writes is
        // within what the caller promised (six bytes per byte taken, and 16 more).
        dst = unsafe { escape_html_block(dst, block.as_ptr(), found, take) };
        i += 16;
    }
    dst
}

/// [`escape_into`] from `i`, within 32 bytes of the end of `src`: the rest of `src` is
/// copied once, with room for every block's reads (bytes past it are neither kept nor
/// looked at). Out of line, so that the escaping of a token far from the end (most of
/// them: the highlighter escapes a page token by token) sets up no padded copy.
///
/// # Safety
/// As for [`escape_into`], with `i < to`.
#[inline(never)]
unsafe fn escape_tail(mut dst: *mut u8, src: &[u8], i: usize, to: usize) -> *mut u8 {
    let mut padded = [0u8; 64];
    copy_short(&src[i..], &mut padded);
    let mut k = 0;
    while k < to - i {
        // Less than 32 from the start of `padded`, as `src` ends within 32 of `i`.
        let block = &padded[k..k + 32];
        let take = (to - i - k).min(16);
        let found = escaped16(block[..16].try_into().expect("16 bytes")) & (u32::MAX >> (32 - take));
        // SAFETY: `block` has the 32 bytes `escape_block` reads; the room for its writes is
        // within what the caller promised (six bytes per byte taken, and 16 more).
        dst = unsafe { escape_html_block(dst, block.as_ptr(), found, take) };
        k += 16;
    }
    dst
}

/// Copies `src` (under 32 bytes) to the start of `dst` with two overlapping copies of a
/// power-of-two size (a `memcpy` call cost as much as the escaping of a short text).
#[inline(always)]
fn copy_short(src: &[u8], dst: &mut [u8; 64]) {
    let n = src.len();
    debug_assert!(n < 32);
    if n >= 16 {
        dst[..16].copy_from_slice(&src[..16]);
        dst[n - 16..n].copy_from_slice(&src[n - 16..]);
    } else if n >= 8 {
        dst[..8].copy_from_slice(&src[..8]);
        dst[n - 8..n].copy_from_slice(&src[n - 8..]);
    } else if n >= 4 {
        dst[..4].copy_from_slice(&src[..4]);
        dst[n - 4..n].copy_from_slice(&src[n - 4..]);
    } else {
        for (d, s) in dst.iter_mut().zip(src) {
            *d = *s;
        }
    }
}

/// Writes the first `take` (1 to 16) bytes of the block of 16 at `block` escaped, the bytes
/// to replace being the bits of `found`: whole copies of 16 bytes, each cut short by the
/// next replacement.
///
/// # Safety
/// 32 bytes readable at `block`; room at `dst` for six bytes per byte taken and 16 more.
#[inline(always)]
unsafe fn escape_html_block(mut dst: *mut u8, block: *const u8, mut found: u32, take: usize) -> *mut u8 {
    // SAFETY: every read is within the 32 bytes at `block` (`at` is at most 16), every
    // write within the room promised.
    unsafe {
        let mut at = 0;
        while found != 0 {
            let k = found.trailing_zeros() as usize;
            std::ptr::copy_nonoverlapping(block.add(at), dst, 16);
            dst = dst.add(k - at);
            let (rep, len) = &REPLACEMENTS[usize::from(REPLACE[usize::from(*block.add(k))])];
            std::ptr::copy_nonoverlapping(rep.as_ptr(), dst, 8);
            dst = dst.add(*len);
            at = k + 1;
            found &= found - 1;
        }
        std::ptr::copy_nonoverlapping(block.add(at), dst, 16);
        dst.add(take - at)
    }
}

/// Each replacement, padded to eight bytes, and its length; indexed by [`REPLACE`].
const REPLACEMENTS: [([u8; 8], usize); 5] = [
    (*b"&amp;\0\0\0", 5),
    (*b"&lt;\0\0\0\0", 4),
    (*b"&gt;\0\0\0\0", 4),
    (*b"&quot;\0\0", 6),
    (*b"&#39;\0\0\0", 5),
];

/// For each byte HTML escaping replaces, its replacement's index (0 for the others, which
/// are never looked up).
static REPLACE: [u8; 256] = {
    let mut t = [0u8; 256];
    t[b'<' as usize] = 1;
    t[b'>' as usize] = 2;
    t[b'"' as usize] = 3;
    t[b'\'' as usize] = 4;
    t
};

/// Whether HTML escaping replaces `b`.
#[inline(always)]
fn is_html_special(b: u8) -> bool {
    (b == b'&') | (b == b'<') | (b == b'>') | (b == b'"') | (b == b'\'')
}

/// A bit per byte of `block` that HTML escaping replaces.
#[inline(always)]
fn escaped16(block: &[u8; 16]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        // SAFETY: SSE2 is part of the x86_64 baseline; the load reads the 16 bytes of
        // `block`.
        unsafe {
            let v = _mm_loadu_si128(block.as_ptr().cast::<__m128i>());
            let eq = |c: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(c as i8));
            let hit = _mm_or_si128(
                _mm_or_si128(_mm_or_si128(eq(b'&'), eq(b'<')), _mm_or_si128(eq(b'>'), eq(b'"'))),
                eq(b'\''),
            );
            _mm_movemask_epi8(hit) as u32
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let mut mask = 0;
        for (k, &b) in block.iter().enumerate() {
            mask |= u32::from(is_html_special(b)) << k;
        }
        mask
    }
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
        /// A piece anywhere in a text, escaped where it lies (as the highlighter escapes its
        /// tokens), its blocks reaching past its end or not, is the piece replaced.
        #[test]
        fn escaping_a_piece_agrees_with_a_plain_replace(
            text in "[a-z&<>\"' é😀\n]{0,80}",
            cut in proptest::prelude::any::<(proptest::sample::Index, proptest::sample::Index)>(),
        ) {
            let bounds: Vec<usize> = (0..=text.len()).filter(|&k| text.is_char_boundary(k)).collect();
            let (a, b) = (cut.0.get(&bounds), cut.1.get(&bounds));
            let (from, to) = (*a.min(b), *a.max(b));
            let mut out = String::from("x");
            // SAFETY: the room is reserved, the length set to what was written, which is
            // UTF-8 (the piece is cut at character boundaries).
            unsafe {
                let v = out.as_mut_vec();
                v.reserve(escape_room(to - from));
                let start = v.as_mut_ptr().add(v.len());
                let end = escape_into(start, text.as_bytes(), from, to);
                v.set_len(v.len() + end.offset_from(start) as usize);
            }
            let want = text[from..to]
                .replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;")
                .replace('"', "&quot;")
                .replace('\'', "&#39;");
            proptest::prop_assert_eq!(out, format!("x{want}"));
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

    /// Pieces of text for the block scan: everything it looks at (controls, the first bytes
    /// of the characters it may escape, backticks in runs), and runs of letters that move
    /// the others across its 32-byte blocks.
    fn scan_text() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let lone = char::from_u32(crate::json::jsparse::LONE_SURROGATE_BASE + 7)
            .unwrap()
            .to_string();
        let pieces: Vec<String> = [
            "a",
            "abcdefghijklmnopqrstuvwxyz01234",
            "`",
            "``",
            "```",
            "é",
            "日本語",
            "😀",
            "\u{85}",
            "\u{a0}",
            "\u{9f}",
            "\u{202a}",
            "\u{202e}",
            "\u{200e}",
            "\u{200f}",
            "\u{200d}",
            "\u{061c}",
            "\u{061b}",
            "\u{2026}",
            "\u{2066}",
            "\u{2069}",
            "\u{206a}",
            "\u{10ffff}",
            "\u{fffd}",
            "\n",
            "\t",
            "\r",
            "\r\n",
            "\x1b",
            "\0",
            "\x7f",
            "\x1f",
            " ",
            "#",
        ]
        .iter()
        .map(|p| p.to_string())
        .chain([lone])
        .collect();
        prop_oneof![
            any::<String>(),
            proptest::collection::vec(proptest::sample::select(pieces), 0..60).prop_map(|v| v.concat()),
        ]
    }

    /// The longest run of backticks in `s`, as [`Ticks`].
    fn ticks_by_runs(s: &str) -> Ticks {
        let longest = s.split(|c| c != '`').map(str::len).max().unwrap_or(0);
        match longest {
            0 => Ticks::None,
            1 | 2 => Ticks::Short,
            _ => Ticks::Long,
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        /// The copying check agrees with the escapes on what needs a
        /// change, copies the text whole when nothing does, and counts its backticks right.
        #[test]
        fn the_copying_scan_agrees_with_the_escapes(t in scan_text(), lines in proptest::bool::ANY) {
            let mut out = String::from("head");
            let got = if lines { push_if_clean(&mut out, &t) } else { push_if_line(&mut out, &t) };
            proptest::prop_assert_eq!(got.is_some(), is_plain(&t, lines));
            match got {
                Some(ticks) => {
                    proptest::prop_assert_eq!(&out, &format!("head{t}"));
                    proptest::prop_assert_eq!(ticks, ticks_by_runs(&t));
                    let escaped = if lines { escape_block(&t.replace("\r\n", "\n")) } else { escape_line(&t) };
                    proptest::prop_assert_eq!(escaped, t.clone());
                }
                None => proptest::prop_assert_eq!(&out, "head"),
            }
            let mut pushed = String::new();
            push_line(&mut pushed, &t);
            proptest::prop_assert_eq!(pushed, escape_line(&t));
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
        let lone = char::from_u32(crate::json::jsparse::LONE_SURROGATE_BASE).unwrap();
        assert_eq!(line(&format!("x{lone}")), "x\u{fffd}");
        assert_eq!(clean("a\u{202e}b\r\nc\rd\t"), "a\\u{202e}b\nc\\rd\t");
    }

    /// The block scan, 32 bytes at a time: every character that matters at every offset
    /// of a long text, next to the characters whose first bytes are suspect.
    #[test]
    fn the_block_scan_agrees_with_the_escapes() {
        let lone = char::from_u32(crate::json::jsparse::LONE_SURROGATE_BASE).unwrap();
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
            '\u{200e}',
            '\u{200f}',
            '\u{061c}',
            '\u{061b}',
            '\u{200d}',
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
