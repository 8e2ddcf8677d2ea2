//! JSON text read exactly as JavaScript's `JSON.parse` reads it, into a `serde_json::Value`.
//!
//! Differences from `serde_json::from_str` that matter for Pi's files:
//! - numbers are parsed correctly rounded into doubles, as JavaScript holds every number:
//!   integers beyond 2^53 lose precision, `1e400` becomes Infinity (kept as `null`, which is
//!   what `JSON.stringify` prints for it), `-0` reads as `0`;
//! - lone surrogate escapes (`"\ud83d"`, which Pi writes when output is cut inside an emoji)
//!   are accepted: each is kept as a stand-in character (see [`LONE_SURROGATE_BASE`]) that
//!   [`super::jsjson::stringify`] writes back as the same escape and displays as U+FFFD;
//! - nesting has no depth limit (the parser is iterative);
//! - invalid UTF-8 is read as U+FFFD, as Node decodes a file.
//!
//! Duplicate keys keep the last value at the first key's place, as `JSON.parse` does.

use serde_json::Value;

/// Lone surrogate U+D800 + k is held as the character U+10F800 + k (Supplementary Private
/// Use Area-B), since a Rust string cannot hold a surrogate.
pub const LONE_SURROGATE_BASE: u32 = 0x10_F800;

/// Why a text is not JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// Byte offset where reading failed.
    pub offset: usize,
    pub message: &'static str,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} at byte {}", self.message, self.offset)
    }
}

impl std::error::Error for ParseError {}

/// Parses one JSON text (leading and trailing JSON whitespace allowed) as `JSON.parse` does.
pub fn parse(bytes: &[u8]) -> Result<Value, ParseError> {
    // Stub: replaced by the exact reader.
    serde_json::from_slice(bytes)
        .or_else(|_| serde_json::from_str(&String::from_utf8_lossy(bytes)))
        .map_err(|_| ParseError {
            offset: 0,
            message: "not JSON",
        })
}

/// Whether `c` is the stand-in for a lone surrogate.
pub fn is_lone_surrogate(c: char) -> bool {
    (LONE_SURROGATE_BASE..LONE_SURROGATE_BASE + 0x800).contains(&(c as u32))
}

/// `s` for display: stand-ins for lone surrogates become U+FFFD, as a terminal shows them.
pub fn display(s: &str) -> std::borrow::Cow<'_, str> {
    if s.chars().any(is_lone_surrogate) {
        s.chars()
            .map(|c| if is_lone_surrogate(c) { '\u{fffd}' } else { c })
            .collect::<String>()
            .into()
    } else {
        s.into()
    }
}
