//! Finding the few lines of a file that can matter to a question, without reading every
//! line: a raw-byte prefilter that may take too many lines but never misses one, then an
//! exact reading (as the loader reads a line) of the lines it took.
//!
//! A JSON string equal to (or containing) some text either holds that text's bytes as they
//! are, or writes one of its characters as an escape (`\u0061`, `\/`, `\"`…). So a line
//! can only have such a string if it contains the text, or an escape that stands for one
//! of the text's characters; every other line is passed over at the speed of a byte search.

use super::jsparse;
use serde_json::Value;

/// The fields of one object line that the index takes from it (strings only, as the loader
/// reads them: a field of another JSON type reads as absent).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ScannedLine {
    /// Where the line starts in the bytes scanned.
    pub offset: usize,
    pub kind: Option<String>,
    pub id: Option<String>,
    pub parent_id: Option<String>,
    pub target_id: Option<String>,
    pub label: Option<String>,
    pub first_kept_entry_id: Option<String>,
}

impl ScannedLine {
    /// The ids loading this line as an entry names (its own, its parent's, and the target of
    /// a label, a context edit or a compaction), as the loader records them: an empty
    /// reference is none. Nothing for a `session` line, which is not an entry.
    pub fn ids(&self) -> impl Iterator<Item = &str> {
        let entry = self.kind.as_deref() != Some("session");
        fn non_empty(s: &Option<String>) -> Option<&str> {
            s.as_deref().filter(|s| !s.is_empty())
        }
        let target = match self.kind.as_deref() {
            Some("label" | "context_edit") => non_empty(&self.target_id),
            Some("compaction") => non_empty(&self.first_kept_entry_id),
            _ => None,
        };
        [self.id.as_deref(), non_empty(&self.parent_id), target]
            .into_iter()
            .flatten()
            .filter(move |_| entry)
    }
}

/// Every object line of `data` (whole lines, as the loader splits them at `\n`) that may
/// hold one of `needles` in a string, read exactly, in file order. A line that is not a
/// JSON object (not an entry) is left out. Runs on every core for large inputs.
pub fn scan(data: &[u8], needles: &[&str]) -> Vec<ScannedLine> {
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

fn scan_range(data: &[u8], from: usize, to: usize, filter: &Filter) -> Vec<ScannedLine> {
    let mut out = Vec::new();
    let mut pos = from;
    while pos < to {
        let end = memchr::memchr(b'\n', &data[pos..to]).map_or(to, |i| pos + i);
        let line = &data[pos..end];
        if filter.may_hold(line)
            && let Some(mut read) = read_object(line)
        {
            read.offset = pos;
            out.push(read);
        }
        pos = end + 1;
    }
    out
}

/// A line read as the loader reads it: bytes that are not UTF-8 as U+FFFD, then
/// `JSON.parse`; `None` unless it is an object.
fn read_object(line: &[u8]) -> Option<ScannedLine> {
    let text = String::from_utf8_lossy(line);
    let Ok(Value::Object(o)) = jsparse::parse(text.as_bytes()) else {
        return None;
    };
    let s = |k: &str| o.get(k).and_then(Value::as_str).map(str::to_owned);
    Some(ScannedLine {
        offset: 0,
        kind: s("type"),
        id: s("id"),
        parent_id: s("parentId"),
        target_id: s("targetId"),
        label: s("label"),
        first_kept_entry_id: s("firstKeptEntryId"),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kinds(data: &str, needles: &[&str]) -> Vec<Option<String>> {
        scan(data.as_bytes(), needles).into_iter().map(|l| l.kind).collect()
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
            "not json with label in it\n",
            r#"["label"]"#,
            "\n",
        );
        let found = scan(data.as_bytes(), &["label"]);
        let ids: Vec<_> = found.iter().map(|l| l.id.as_deref().unwrap()).collect();
        assert_eq!(ids, ["b", "c", "d"]);
        assert_eq!(found[1].kind.as_deref(), Some("label"));
        assert_eq!(found[2].kind.as_deref(), Some("label"));
        assert_eq!(found[2].label, None);
    }

    #[test]
    fn escapes_of_other_characters_are_passed_over() {
        let data = "{\"type\":\"message\",\"t\":\"\\u001b \\n \\\" x\"}\n";
        assert!(kinds(data, &["label"]).is_empty());
        assert!(kinds(data, &["zq"]).is_empty());
        assert_eq!(kinds(data, &["\u{1b}z"]), [Some("message".to_owned())]);
        assert_eq!(kinds(data, &["z\"z"]), [Some("message".to_owned())]);
        // An escaped backslash, then text: no escape of `a`.
        assert!(kinds("{\"type\":\"note\",\"t\":\"\\\\u0061\"}\n", &["a"]).is_empty());
        // An escaped backslash, then an escape of `a`.
        assert_eq!(
            kinds(r#"{"type":"note","t":"\\\u0061"}"#, &["a"]),
            [Some("note".to_owned())]
        );
        // A needle with a character a short escape stands for: every escape is looked at.
        assert_eq!(kinds(r#"{"type":"note","t":"\/"}"#, &["z/"]), [Some("note".to_owned())]);
        assert!(kinds(r#"{"type":"note","t":"\\\n"}"#, &["z/"]).is_empty());
        assert_eq!(
            kinds("{\"type\":\"note\",\"t\":\"\\u0061\"}\n", &["a"]),
            [Some("note".to_owned())]
        );
    }

    #[test]
    fn invalid_utf8_reads_as_replacement_characters() {
        let mut data = b"{\"type\":\"label\",\"label\":\"a".to_vec();
        data.extend_from_slice(b"\xff\"}\n");
        let found = scan(&data, &["a\u{fffd}"]);
        assert_eq!(found[0].label.as_deref(), Some("a\u{fffd}"));
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
        assert!(found.windows(2).all(|w| w[0].offset < w[1].offset));
        assert_eq!(&data[found[0].offset..found[0].offset + 15], "{\"type\":\"label\"");
    }

    #[test]
    fn ids_are_those_the_loader_records() {
        let l = ScannedLine {
            kind: Some("label".into()),
            id: Some("x1".into()),
            parent_id: Some(String::new()),
            target_id: Some("t".into()),
            ..Default::default()
        };
        assert_eq!(l.ids().collect::<Vec<_>>(), ["x1", "t"]);
        let h = ScannedLine {
            kind: Some("session".into()),
            id: Some("s".into()),
            ..Default::default()
        };
        assert_eq!(h.ids().count(), 0);
    }
}
