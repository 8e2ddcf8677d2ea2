//! Finding the few lines of a file that can matter to a question, without reading every
//! line: a raw-byte prefilter that may take too many lines but never misses one. The lines
//! it takes are then read by the loader itself (see [`crate::ops::label`]), so what they
//! mean is decided in one place.
//!
//! A JSON string equal to (or containing) some text either holds that text's bytes as they
//! are, or writes one of its characters as an escape (`\u0061`, `\/`, `\"`…). So a line
//! can only have such a string if it contains the text, or an escape that stands for one
//! of the text's characters; every other line is passed over at the speed of a byte search.

use std::ops::Range;

/// The part of the file a session read from its end did not read: the bytes between its
/// header and the part read, mapped, with their range in the file.
pub fn unread(tip: &super::Session) -> Result<(super::io::data::Data, Range<usize>), super::SessionError> {
    let from = tip.header.end as usize + 1;
    let to = tip.read_from().ok_or(super::SessionError::NeedMore)? as usize;
    let data = super::io::data::Data::open(&tip.path).map_err(|e| super::SessionError::io(&tip.path, e))?;
    if data.get(from..to).is_none() {
        return Err(super::SessionError::NeedMore);
    }
    Ok((data, from..to))
}

/// `tip` (read from the end) with `lines` of `before` (the part it did not read, see
/// [`unread`]) put back in file order ahead of its entries, loaded by the loader itself as one
/// session, so that its rules answer for the lines found as for the whole file.
pub fn with_lines(
    tip: &super::Session,
    before: &[u8],
    lines: &[Range<usize>],
) -> Result<super::Session, super::SessionError> {
    let mut bytes = tip.line_bytes(tip.header.start, tip.header.end).to_vec();
    bytes.push(b'\n');
    for r in lines {
        bytes.extend_from_slice(&before[r.clone()]);
        bytes.push(b'\n');
    }
    for i in 0..tip.entries.len() {
        bytes.extend_from_slice(tip.raw(i));
        bytes.push(b'\n');
    }
    super::Session::from_bytes(tip.path.clone(), bytes)
}

/// The lines of `data` (whole lines, as the loader splits them at `\n`, without their `\n`)
/// that may hold one of `needles` in a string, in file order. Runs on every core for large
/// inputs.
pub fn scan(data: &[u8], needles: &[&str]) -> Vec<Range<usize>> {
    let filter = Filter::new(needles);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(16);
    if data.len() < (8 << 20) || threads < 2 {
        return scan_range(data, 0, data.len(), &filter);
    }
    let mut bounds = vec![0];
    for k in 1..threads {
        let guess = data.len() * k / threads;
        let cut = memchr::memchr(b'\n', &data[guess..]).map_or(data.len(), |i| guess + i + 1);
        if cut > *bounds.last().expect("non-empty") && cut < data.len() {
            bounds.push(cut);
        }
    }
    bounds.push(data.len());
    let filter = &filter;
    std::thread::scope(|scope| {
        let parts: Vec<_> = bounds
            .windows(2)
            .map(|w| {
                let (from, to) = (w[0], w[1]);
                scope.spawn(move || scan_range(data, from, to, filter))
            })
            .collect();
        parts.into_iter().flat_map(|p| p.join().expect("scan thread")).collect()
    })
}

/// What the prefilter looks for: the needles' bytes, and escapes of their characters.
struct Filter {
    finders: Vec<memchr::memmem::Finder<'static>>,
    /// The UTF-16 code units of the needles (what a `\uXXXX` escape can stand for).
    units: Vec<u16>,
    /// A needle holds U+FFFD, which invalid UTF-8 reads as: every line may hold it.
    every_line: bool,
    /// A needle holds a character a two-character escape stands for (`"`, `\`, `/`, or a
    /// control character): every backslash is then looked at, not only `\u`.
    short_escapes: bool,
    unicode_escape: memchr::memmem::Finder<'static>,
}

impl Filter {
    fn new(needles: &[&str]) -> Filter {
        let mut units: Vec<u16> = needles.iter().flat_map(|n| n.encode_utf16()).collect();
        units.sort_unstable();
        units.dedup();
        Filter {
            finders: needles
                .iter()
                .map(|n| memchr::memmem::Finder::new(n.as_bytes()).into_owned())
                .collect(),
            every_line: needles.iter().any(|n| n.contains('\u{fffd}') || n.is_empty()),
            short_escapes: units
                .iter()
                .any(|&u| u < 0x20 || u == u16::from(b'"') || u == u16::from(b'\\') || u == u16::from(b'/')),
            unicode_escape: memchr::memmem::Finder::new(b"\\u").into_owned(),
            units,
        }
    }

    /// Whether `line` may hold a string with one of the needles in it.
    fn may_hold(&self, line: &[u8]) -> bool {
        self.every_line || self.finders.iter().any(|f| f.find(line).is_some()) || self.escapes_a_needle_char(line)
    }

    /// Whether an escape in `line` stands for a character of a needle. Escapes are read
    /// from the start of the line, so `\\u0061` is an escaped backslash and then text, as
    /// in JSON (a backslash outside a string makes the line no JSON at all).
    fn escapes_a_needle_char(&self, line: &[u8]) -> bool {
        if !self.short_escapes {
            // Only `\uXXXX` can stand for a needle's character. A `\u` after an odd run of
            // backslashes is an escaped backslash and a `u`, not an escape.
            return self.unicode_escape.find_iter(line).any(|p| {
                let run = line[..p].iter().rev().take_while(|&&b| b == b'\\').count();
                run % 2 == 0
                    && line
                        .get(p + 2..p + 6)
                        .and_then(hex4)
                        .is_some_and(|u| self.units.binary_search(&u).is_ok())
            });
        }
        let mut at = 0;
        while let Some(i) = memchr::memchr(b'\\', &line[at..]) {
            let p = at + i;
            let Some(&c) = line.get(p + 1) else { return false };
            let (unit, len) = match c {
                b'u' => match line.get(p + 2..p + 6).and_then(hex4) {
                    Some(u) => (u, 6),
                    None => {
                        at = p + 2;
                        continue;
                    }
                },
                b'"' | b'\\' | b'/' => (u16::from(c), 2),
                b'b' => (0x08, 2),
                b'f' => (0x0c, 2),
                b'n' => (0x0a, 2),
                b'r' => (0x0d, 2),
                b't' => (0x09, 2),
                _ => (u16::MAX, 2),
            };
            if self.units.binary_search(&unit).is_ok() {
                return true;
            }
            at = p + len;
        }
        false
    }
}

fn hex4(b: &[u8]) -> Option<u16> {
    let s = std::str::from_utf8(b).ok()?;
    if !s.bytes().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    u16::from_str_radix(s, 16).ok()
}

fn scan_range(data: &[u8], from: usize, to: usize, filter: &Filter) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    let mut pos = from;
    while pos < to {
        let end = memchr::memchr(b'\n', &data[pos..to]).map_or(to, |i| pos + i);
        if filter.may_hold(&data[pos..end]) {
            out.push(pos..end);
        }
        pos = end + 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines<'a>(data: &'a str, needles: &[&str]) -> Vec<&'a str> {
        scan(data.as_bytes(), needles).into_iter().map(|r| &data[r]).collect()
    }

    #[test]
    fn finds_a_field_written_with_escapes_or_spaces() {
        let data = concat!(
            r#"{"type":"message","id":"a","message":{"role":"user","content":"hi"}}"#,
            "\n",
            r#"{ "type" : "label" , "id":"b","targetId":"a","label":"x"}"#,
            "\n",
            r#"{"type":"lab\u0065l","id":"c","targetId":"a","label":"y"}"#,
            "\n",
            r#"{"\u0074ype":"\u006c\u0061\u0062\u0065\u006C","id":"d","targetId":"a"}"#,
            "\n",
            r#"{"type":"message","id":"e","message":{"content":"\u001b[1m bold \\u0061 \n"}}"#,
            "\n",
            "no JSON, with label in it\n",
        );
        let found = lines(data, &["label"]);
        assert_eq!(found.len(), 4);
        assert!(found[0].contains(r#""id":"b""#));
        assert!(found[1].contains(r#""id":"c""#));
        assert!(found[2].contains(r#""id":"d""#));
        assert_eq!(found[3], "no JSON, with label in it");
    }

    #[test]
    fn escapes_of_other_characters_are_passed_over() {
        let data = "{\"type\":\"message\",\"t\":\"\\u001b \\n \\\" x\"}\n";
        assert!(lines(data, &["label"]).is_empty());
        assert!(lines(data, &["zq"]).is_empty());
        assert_eq!(lines(data, &["\u{1b}z"]).len(), 1);
        assert_eq!(lines(data, &["z\"z"]).len(), 1);
        // An escaped backslash, then text: no escape of `a`.
        assert!(lines("{\"type\":\"note\",\"t\":\"\\\\u0061\"}\n", &["a"]).is_empty());
        // An escaped backslash, then an escape of `a`.
        assert_eq!(lines(r#"{"type":"note","t":"\\\u0061"}"#, &["a"]).len(), 1);
        // A needle with a character a short escape stands for: every escape is looked at.
        assert_eq!(lines(r#"{"type":"note","t":"\/"}"#, &["z/"]).len(), 1);
        assert!(lines(r#"{"type":"note","t":"\\\n"}"#, &["z/"]).is_empty());
        assert_eq!(lines("{\"type\":\"note\",\"t\":\"\\u0061\"}\n", &["a"]).len(), 1);
    }

    #[test]
    fn a_needle_with_a_replacement_character_takes_every_line() {
        let data = "{\"type\":\"label\"}\n{\"type\":\"other\"}\n";
        assert_eq!(lines(data, &["a\u{fffd}"]).len(), 2);
    }

    #[test]
    fn large_inputs_are_scanned_in_pieces_in_order() {
        let mut data = String::new();
        for i in 0..200_000 {
            if i % 1000 == 7 {
                data.push_str(&format!("{{\"type\":\"label\",\"id\":\"l{i}\",\"targetId\":\"m\"}}\n"));
            } else {
                data.push_str(&format!(
                    "{{\"type\":\"message\",\"id\":\"m{i}\",\"pad\":\"{}\"}}\n",
                    "x".repeat(40)
                ));
            }
        }
        assert!(data.len() > 8 << 20);
        let found = scan(data.as_bytes(), &["label"]);
        assert_eq!(found.len(), 200);
        assert!(found.windows(2).all(|w| w[0].end < w[1].start));
        assert_eq!(&data[found[0].start..found[0].start + 15], "{\"type\":\"label\"");
    }
}
