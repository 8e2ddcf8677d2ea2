//! Substring searchers for needles looked for in whole lines of JSON. memchr's searcher
//! looks first for the needle's two rarest bytes, ranked by their frequency in prose and
//! code (a ranking it does not export), where `"` is rare; in JSON every string opens and
//! closes with one, so a needle holding a quote would be looked for by its commonest byte.

use memchr::arch::all::packedpair::HeuristicFrequencyRank;
use memchr::memmem::{Finder, FinderBuilder};

/// Bytes ranked by how often they occur in a session's lines (higher: commoner).
struct JsonRank;

impl HeuristicFrequencyRank for JsonRank {
    fn rank(&self, byte: u8) -> u8 {
        match byte {
            b'"' | b':' | b',' | b'\\' | b'{' | b'}' => 255,
            b' ' | b'\n' => 254,
            // English letters by frequency; the needles are words.
            b'e' | b't' | b'a' | b'o' | b'i' | b'n' | b's' | b'r' => 240,
            b'h' | b'l' | b'd' | b'c' | b'u' | b'm' | b'_' => 200,
            b'f' | b'p' | b'g' | b'w' | b'y' | b'b' => 160,
            b'v' | b'k' => 130,
            _ => 100,
        }
    }
}

/// A searcher for `needle` in lines of JSON (build it once: building costs more than a
/// search of most lines).
pub fn in_json(needle: &'static [u8]) -> Finder<'static> {
    FinderBuilder::new().build_forward_with_ranker(JsonRank, needle)
}

#[cfg(test)]
mod tests {
    use super::in_json;

    #[test]
    fn finds_what_memmem_finds() {
        let line = br#"{"type":"thinking","thinking":"","redacted":true,"x":"\u00e9 nestedCalls"}"#;
        for needle in [&b"\"redacted\""[..], b"nestedCalls\"", b"\\u", b"absent"] {
            assert_eq!(
                in_json(needle).find(line),
                memchr::memmem::find(line, needle),
                "{needle:?}"
            );
        }
    }
}
