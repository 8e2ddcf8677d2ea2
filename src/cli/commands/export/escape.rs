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
        // SAFETY: the CPU has AVX2, and nothing is copied.
        return unsafe {
            if lines {
                scan_avx2::<true, false>(b, None)
            } else {
                scan_avx2::<false, false>(b, None)
            }
        }
        .is_some();
    }
    is_plain_16(b, lines)
}

/// [`is_plain`] 16 bytes at a time.
pub(super) fn is_plain_16(b: &[u8], lines: bool) -> bool {
    is_plain_by::<16>(b, lines, |at| suspects16(&b[at..at + 16], lines))
}

/// Bits of the nibble tables [`LO_CLASS`] and [`HI_CLASS`]: a byte is in a class when both
/// its low nibble's entry and its high nibble's entry have the class's bit.
mod class {
    /// C0 controls other than tab and LF (`00`–`1F` but `09`, `0A`).
    pub const C0: u8 = 0x01;
    /// `10`–`1F`.
    pub const C1X: u8 = 0x02;
    /// DEL.
    pub const DEL: u8 = 0x04;
    /// `C2` and `E2`: first bytes of C1 controls and of bidirectional controls.
    pub const LEAD: u8 = 0x08;
    /// `F4`: first byte of the stand-ins for lone surrogates.
    pub const F4: u8 = 0x10;
    /// A backtick.
    pub const TICK: u8 = 0x20;
    /// Tab and LF.
    pub const TAB_LF: u8 = 0x40;
    /// The bytes [`super::SUSPECT`] has, tab and LF left out.
    pub const SUSPECT: u8 = C0 | C1X | DEL | LEAD | F4;
}

/// Classes of a byte by its low nibble (see [`class`]).
const LO_CLASS: [u8; 16] = {
    let mut t = [0u8; 16];
    let mut l = 0;
    while l < 16 {
        t[l] = if l == 9 || l == 0xa { class::TAB_LF } else { class::C0 } | class::C1X;
        l += 1;
    }
    t[0xf] |= class::DEL;
    t[0x2] |= class::LEAD;
    t[0x4] |= class::F4;
    t[0x0] |= class::TICK;
    t
};

/// Classes of a byte by its high nibble (see [`class`]).
const HI_CLASS: [u8; 16] = {
    let mut t = [0u8; 16];
    t[0x0] = class::C0 | class::TAB_LF;
    t[0x1] = class::C1X;
    t[0x6] = class::TICK;
    t[0x7] = class::DEL;
    t[0xc] = class::LEAD;
    t[0xe] = class::LEAD;
    t[0xf] = class::F4;
    t
};

/// The classes of each byte (see [`class`]).
const CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = 0;
    while c < 256 {
        t[c] = LO_CLASS[c & 0xf] & HI_CLASS[c >> 4];
        c += 1;
    }
    t
};

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

/// The [`Ticks`] of `s`, by searching.
fn ticks_of(s: &str) -> Ticks {
    let b = s.as_bytes();
    if memchr::memchr(b'`', b).is_none() {
        Ticks::None
    } else if memchr::memmem::find(b, b"```").is_none() {
        Ticks::Short
    } else {
        Ticks::Long
    }
}

/// Appends `s` to `out` when [`clean`] (with `LINES`; else [`line`]) would leave it as it
/// is, and tells its [`Ticks`]; `None`, with nothing appended, when it would change it. The
/// check and the copy are one read of `s`, 32 bytes at a time where the CPU can.
fn push_if_plain<const LINES: bool>(out: &mut String, s: &str) -> Option<Ticks> {
    if s.len() < 32 {
        // Ids, names, titles: a byte at a time, all at once unless one is in a class.
        let wanted = wanted_bits::<LINES, true>();
        if s.bytes().fold(0, |acc, c| acc | CLASS[c as usize]) & wanted == 0 {
            out.push_str(s);
            return Some(Ticks::None);
        }
    }
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        out.reserve(s.len());
        let start = out.len();
        // SAFETY: the CPU has AVX2; `out` has room for `s.len()` more bytes.
        let ticks = unsafe { scan_avx2::<LINES, true>(s.as_bytes(), Some(out.as_mut_vec().as_mut_ptr().add(start)))? };
        // SAFETY: the bytes after `start` were written by the scan, a copy of `s`, which is
        // UTF-8.
        unsafe { out.as_mut_vec().set_len(start + s.len()) };
        return Some(ticks);
    }
    push_if_plain_by_parts(out, s, LINES)
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

/// [`push_if_plain`] as a check, a search and a copy.
fn push_if_plain_by_parts(out: &mut String, s: &str, lines: bool) -> Option<Ticks> {
    if !is_plain_16(s.as_bytes(), lines) {
        return None;
    }
    out.push_str(s);
    Some(ticks_of(s))
}

/// The class bits that make a byte suspect: with `LINES` (a block of lines), tabs and line
/// feeds are text.
const fn suspect_bits<const LINES: bool>() -> u8 {
    if LINES {
        class::SUSPECT
    } else {
        class::SUSPECT | class::TAB_LF
    }
}

/// The class bits an AVX2 scan stops at: the suspect ones, and backticks with `TICKS`.
const fn wanted_bits<const LINES: bool, const TICKS: bool>() -> u8 {
    suspect_bits::<LINES>() | if TICKS { class::TICK } else { 0 }
}

/// [`LO_CLASS`] and [`HI_CLASS`] in registers: a byte's classes are the bits both of its
/// nibbles' entries have.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
struct ClassTable {
    lo: std::arch::x86_64::__m256i,
    hi: std::arch::x86_64::__m256i,
    nibble: std::arch::x86_64::__m256i,
}

#[cfg(target_arch = "x86_64")]
impl ClassTable {
    #[target_feature(enable = "avx2")]
    #[inline]
    fn new() -> ClassTable {
        use std::arch::x86_64::*;
        let table = |t: [u8; 16]| {
            // SAFETY: reads the 16 bytes of `t`.
            let half = unsafe { _mm_loadu_si128(t.as_ptr().cast::<__m128i>()) };
            _mm256_broadcastsi128_si256(half)
        };
        ClassTable {
            lo: table(LO_CLASS),
            hi: table(HI_CLASS),
            nibble: _mm256_set1_epi8(0x0f),
        }
    }

    /// The classes of each of the 32 bytes of `v`.
    #[target_feature(enable = "avx2")]
    #[inline]
    fn classes(self, v: std::arch::x86_64::__m256i) -> std::arch::x86_64::__m256i {
        use std::arch::x86_64::*;
        let lo = _mm256_and_si256(v, self.nibble);
        let hi = _mm256_and_si256(_mm256_srli_epi16::<4>(v), self.nibble);
        _mm256_and_si256(_mm256_shuffle_epi8(self.lo, lo), _mm256_shuffle_epi8(self.hi, hi))
    }
}

/// With AVX2, from `at`: the start of the first 64 bytes of `b` with a byte that
/// [`scan_avx2`] looks at, or where fewer than 64 are left; the bytes before it are copied to
/// `dst` if given. A function of its own so that its loop keeps the tables in registers.
///
/// # Safety
///
/// `dst`, if given, has room for `b.len()` bytes.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[inline(never)]
unsafe fn skip_plain<const LINES: bool, const TICKS: bool>(b: &[u8], dst: Option<*mut u8>, mut at: usize) -> usize {
    use std::arch::x86_64::*;
    let table = ClassTable::new();
    let classes = |v: __m256i| table.classes(v);
    let wanted = _mm256_set1_epi8(wanted_bits::<LINES, TICKS>() as i8);
    while at + 64 <= b.len() {
        // SAFETY: `at + 64 <= b.len()`: the loads read `b`, the stores write within
        // `dst..dst + b.len()`.
        let (v0, v1) = unsafe {
            let p = b.as_ptr().add(at);
            (
                _mm256_loadu_si256(p.cast::<__m256i>()),
                _mm256_loadu_si256(p.add(32).cast::<__m256i>()),
            )
        };
        if _mm256_testz_si256(_mm256_or_si256(classes(v0), classes(v1)), wanted) == 0 {
            break;
        }
        if let Some(d) = dst {
            // SAFETY: as above.
            unsafe {
                _mm256_storeu_si256(d.add(at).cast::<__m256i>(), v0);
                _mm256_storeu_si256(d.add(at + 32).cast::<__m256i>(), v1);
            }
        }
        at += 64;
    }
    at
}

/// With AVX2, whether `b` has no character that `escape_line` (with `LINES`: `escape_block`)
/// changes, and no `\r`, and if so its [`Ticks`] (with `TICKS`; else `None`); with `dst`, `b` is copied there as it is
/// read. Each 32 bytes are classified by two nibble lookups; only a block with a backtick
/// or a byte that may need a change is looked at more closely.
///
/// # Safety
///
/// `dst`, if given, has room for `b.len()` bytes.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn scan_avx2<const LINES: bool, const TICKS: bool>(b: &[u8], dst: Option<*mut u8>) -> Option<Ticks> {
    use std::arch::x86_64::*;
    let n = b.len();
    let table = ClassTable::new();
    // The classes of each byte of a block.
    let classes = |v: __m256i| table.classes(v);
    let wanted = _mm256_set1_epi8(wanted_bits::<LINES, TICKS>() as i8);
    let suspect = _mm256_set1_epi8(suspect_bits::<LINES>() as i8);
    let zero = _mm256_setzero_si256();
    let tick = _mm256_set1_epi8(b'`' as i8);
    // The bytes of a block that need a closer look: a bit per suspect byte, one per backtick.
    let marks_of = |v: __m256i, cls: __m256i| -> Option<(u32, u32)> {
        if _mm256_testz_si256(cls, wanted) == 1 {
            return None;
        }
        let clear = _mm256_cmpeq_epi8(_mm256_and_si256(cls, suspect), zero);
        let sus = !(_mm256_movemask_epi8(clear) as u32);
        let ticks = _mm256_movemask_epi8(_mm256_cmpeq_epi8(v, tick)) as u32;
        Some((sus, ticks))
    };
    let marks = |v: __m256i| marks_of(v, classes(v));
    let mut any_tick = false;
    let mut long = false;
    // The backticks of the two bytes before the block (bits 30 and 31), for runs that cross
    // into it.
    let mut carry = 0u32;
    // Where the block `carry` is of ends: a block that does not start there has no
    // backticks before it (the blocks between had none).
    let mut carry_end = usize::MAX;
    // Whether the block at `at` (its marks shifted so that bit 0 is `at`) changes nothing.
    let mut look = |at: usize, sus: u32, ticks: u32| -> bool {
        let mut m = sus;
        while m != 0 {
            if changed_at(b, at + m.trailing_zeros() as usize, LINES) {
                return false;
            }
            m &= m - 1;
        }
        any_tick |= ticks != 0;
        let before = if carry_end == at { carry >> 30 } else { 0 };
        let w = (u64::from(ticks) << 2) | u64::from(before);
        long |= w & (w >> 1) & (w >> 2) != 0;
        carry = ticks;
        carry_end = at + 32;
        true
    };
    let load = |at: usize| {
        // SAFETY: callers keep `at + 32 <= n`: the load reads `b`, the store writes within
        // `dst..dst + n`.
        unsafe {
            let v = _mm256_loadu_si256(b.as_ptr().add(at).cast::<__m256i>());
            if let Some(d) = dst {
                _mm256_storeu_si256(d.add(at).cast::<__m256i>(), v);
            }
            v
        }
    };
    let mut at = 0;
    while at + 64 <= n {
        // SAFETY: as for this function's caller.
        at = unsafe { skip_plain::<LINES, TICKS>(b, dst, at) };
        if at + 64 > n {
            break;
        }
        let (v0, v1) = (load(at), load(at + 32));
        for (v, c) in [(v0, classes(v0)), (v1, classes(v1))] {
            if let Some((sus, ticks)) = marks_of(v, c)
                && !look(at, sus, ticks)
            {
                return None;
            }
            at += 32;
        }
    }
    while at + 32 <= n {
        if let Some((sus, ticks)) = marks(load(at))
            && !look(at, sus, ticks)
        {
            return None;
        }
        at += 32;
    }
    let rest = n - at;
    if rest > 0 {
        let v = if n >= 32 {
            // The last 32 bytes again, of which the first `32 - rest` were looked at.
            load(n - 32)
        } else {
            // The bytes in a block padded with spaces (in no class).
            let mut block = [b' '; 32];
            block[..rest].copy_from_slice(b);
            if let Some(d) = dst {
                // SAFETY: writes `dst..dst + n`.
                unsafe { std::ptr::copy_nonoverlapping(b.as_ptr(), d, n) };
            }
            // SAFETY: reads the 32 bytes of `block`.
            unsafe { _mm256_loadu_si256(block.as_ptr().cast::<__m256i>()) }
        };
        let skip = 32 - rest as u32;
        if let Some((sus, ticks)) = marks(v) {
            let (sus, ticks) = if n >= 32 {
                (sus >> skip, ticks >> skip)
            } else {
                (sus, ticks)
            };
            if !look(at, sus, ticks) {
                return None;
            }
        }
    }
    Some(if long {
        Ticks::Long
    } else if any_tick {
        Ticks::Short
    } else {
        Ticks::None
    })
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

    /// Pieces of text for the copying scan: everything it looks at (controls, the first bytes
    /// of the characters it may escape, backticks in runs), and runs of letters that move
    /// the others across its 32-byte blocks.
    fn scan_text() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let lone = char::from_u32(pi_session::session::jsparse::LONE_SURROGATE_BASE + 7)
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
        /// The copying scan agrees with the 16-byte scan and the escapes on what needs a
        /// change, copies the text whole when nothing does, and counts its backticks right.
        #[test]
        fn the_copying_scan_agrees_with_the_escapes(t in scan_text(), lines in proptest::bool::ANY) {
            let mut out = String::from("head");
            let got = if lines { push_if_clean(&mut out, &t) } else { push_if_line(&mut out, &t) };
            let mut by_parts = String::from("head");
            proptest::prop_assert_eq!(got, push_if_plain_by_parts(&mut by_parts, &t, lines));
            proptest::prop_assert_eq!(got.is_some(), is_plain_16(t.as_bytes(), lines));
            proptest::prop_assert_eq!(is_plain(&t, lines), is_plain_16(t.as_bytes(), lines));
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
