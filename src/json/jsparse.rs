//! JSON text read exactly as JavaScript's `JSON.parse` reads it, into a `serde_json::Value`.
//!
//! Differences from `serde_json::from_str` that matter for Pi's files:
//! - numbers are parsed correctly rounded into doubles, as JavaScript holds every number:
//!   integers beyond 2^53 lose precision, `1e400` becomes Infinity (kept as `null`, which is
//!   what `JSON.stringify` prints for it), `-0` reads as `0`, `5.0` as `5`;
//! - lone surrogate escapes (`"\ud83d"`, which Pi writes when output is cut inside an emoji)
//!   are accepted: each is kept as a stand-in character (see [`LONE_SURROGATE_BASE`]) that
//!   [`super::jsjson::stringify`] writes back as the same escape and displays as U+FFFD;
//! - nesting is limited only by [`MAX_DEPTH`], far beyond serde_json's 128 (the parser is
//!   iterative; the limit keeps the recursive walks over the value off the stack's end);
//! - invalid UTF-8 is read as U+FFFD, as Node decodes a file.
//!
//! Duplicate keys keep the last value at the first key's place, as `JSON.parse` does.

use serde_json::{Map, Number, Value};
use std::borrow::Cow;

/// Lone surrogate U+D800 + k is held as the character U+10F800 + k (the top of
/// Supplementary Private Use Area-B), since a Rust string cannot hold a surrogate. A real
/// character from that range in a session would be written back as a surrogate escape; no
/// known writer puts them there.
pub const LONE_SURROGATE_BASE: u32 = 0x10_F800;

/// The deepest nesting of arrays and objects read.
pub const MAX_DEPTH: usize = 5_000;

/// Why a text is not JSON.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// Byte offset where reading failed (in the text after invalid UTF-8 was replaced).
    pub offset: usize,
    pub message: &'static str,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} at byte {}", self.message, self.offset)
    }
}

impl std::error::Error for ParseError {}

/// Parses one JSON text (JSON whitespace around it allowed) as `JSON.parse` does.
pub fn parse(bytes: &[u8]) -> Result<Value, ParseError> {
    let text: Cow<'_, str> = match simdutf8::basic::from_utf8(bytes) {
        Ok(s) => Cow::Borrowed(s),
        Err(_) => String::from_utf8_lossy(bytes),
    };
    Parser {
        s: text.as_bytes(),
        pos: 0,
    }
    .document()
}

/// The value of `bytes` (an object; `None` for any other text) written back as plain JSON
/// text: each key once (`JSON.parse`'s last value, at its first place), strings as UTF-8
/// with only the escapes JSON requires (a lone surrogate as its stand-in), numbers as
/// doubles print. Containers nested deeper than `max_depth` are written as `null`. A reader
/// of lines that declines an unusual line reads this form of it instead, with the same rule.
pub fn plain_object(bytes: &[u8], max_depth: usize) -> Option<Vec<u8>> {
    fn cut(v: &Value, depth: usize) -> Value {
        match v {
            Value::Object(_) | Value::Array(_) if depth == 0 => Value::Null,
            Value::Object(m) => Value::Object(m.iter().map(|(k, v)| (k.clone(), cut(v, depth - 1))).collect()),
            Value::Array(a) => Value::Array(a.iter().map(|v| cut(v, depth - 1)).collect()),
            other => other.clone(),
        }
    }
    let v = parse(bytes).ok().filter(Value::is_object)?;
    serde_json::to_vec(&cut(&v, max_depth)).ok()
}

/// Length of the leading run of `s` that holds no quote, backslash or control character,
/// read eight bytes at a time.
fn plain_run(s: &[u8]) -> usize {
    const LO: u64 = 0x0101_0101_0101_0101;
    const HI: u64 = 0x8080_8080_8080_8080;
    let mut i = 0;
    while let Some(chunk) = s.get(i..i + 8) {
        let x = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
        let quote = x ^ (LO * u64::from(b'"'));
        let backslash = x ^ (LO * u64::from(b'\\'));
        // A byte is zero / below 0x20 (no false alarm without a true one in the word).
        let found = (quote.wrapping_sub(LO) & !quote)
            | (backslash.wrapping_sub(LO) & !backslash)
            | (x.wrapping_sub(LO * 0x20) & !x);
        if found & HI != 0 {
            break;
        }
        i += 8;
    }
    i + s[i..]
        .iter()
        .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
        .unwrap_or(s.len() - i)
}

/// Whether `c` is the stand-in for a lone surrogate.
pub fn is_lone_surrogate(c: char) -> bool {
    (LONE_SURROGATE_BASE..LONE_SURROGATE_BASE + 0x800).contains(&(c as u32))
}

/// The UTF-16 code unit a stand-in holds.
pub fn lone_surrogate_unit(c: char) -> Option<u16> {
    is_lone_surrogate(c).then(|| (0xD800 + (c as u32 - LONE_SURROGATE_BASE)) as u16)
}

/// Whether `s` holds a stand-in for a lone surrogate.
pub fn has_lone_surrogate(s: &str) -> bool {
    // Stand-ins encode as F4 8F A0..BF xx: a cheap byte test before a char walk.
    s.as_bytes().windows(2).any(|w| w[0] == 0xF4 && w[1] == 0x8F) && s.chars().any(is_lone_surrogate)
}

/// `s` for display: stand-ins for lone surrogates become U+FFFD, as a terminal shows them.
pub fn display(s: &str) -> Cow<'_, str> {
    if has_lone_surrogate(s) {
        s.chars()
            .map(|c| if is_lone_surrogate(c) { '\u{fffd}' } else { c })
            .collect::<String>()
            .into()
    } else {
        s.into()
    }
}

/// A container being read.
enum Frame {
    Array(Vec<Value>),
    /// The object so far and the key whose value is being read.
    Object(Map<String, Value>, String),
}

struct Parser<'a> {
    s: &'a [u8],
    pos: usize,
}

impl Parser<'_> {
    fn err<T>(&self, message: &'static str) -> Result<T, ParseError> {
        Err(ParseError {
            offset: self.pos,
            message,
        })
    }

    fn skip_ws(&mut self) {
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = self.s.get(self.pos) {
            self.pos += 1;
        }
    }

    fn peek(&self) -> Option<u8> {
        self.s.get(self.pos).copied()
    }

    fn document(mut self) -> Result<Value, ParseError> {
        let v = self.value()?;
        self.skip_ws();
        if self.pos != self.s.len() {
            return self.err("unexpected text after the JSON value");
        }
        Ok(v)
    }

    /// One value, containers read with an explicit stack.
    fn value(&mut self) -> Result<Value, ParseError> {
        let mut stack: Vec<Frame> = Vec::new();
        'value: loop {
            self.skip_ws();
            let mut v = match self.peek() {
                Some(b'{') => {
                    self.pos += 1;
                    self.skip_ws();
                    if self.peek() == Some(b'}') {
                        self.pos += 1;
                        Value::Object(Map::new())
                    } else {
                        if stack.len() >= MAX_DEPTH {
                            return self.err("nested too deeply");
                        }
                        let key = self.key()?;
                        stack.push(Frame::Object(Map::new(), key));
                        continue 'value;
                    }
                }
                Some(b'[') => {
                    self.pos += 1;
                    self.skip_ws();
                    if self.peek() == Some(b']') {
                        self.pos += 1;
                        Value::Array(Vec::new())
                    } else {
                        if stack.len() >= MAX_DEPTH {
                            return self.err("nested too deeply");
                        }
                        stack.push(Frame::Array(Vec::new()));
                        continue 'value;
                    }
                }
                Some(b'"') => Value::String(self.string()?),
                Some(b't') => self.literal("true", Value::Bool(true))?,
                Some(b'f') => self.literal("false", Value::Bool(false))?,
                Some(b'n') => self.literal("null", Value::Null)?,
                Some(b'-' | b'0'..=b'9') => self.number()?,
                Some(_) => return self.err("unexpected character"),
                None => return self.err("unexpected end of text"),
            };
            // Hand the finished value to its container, closing containers that end here.
            loop {
                let Some(top) = stack.last_mut() else { return Ok(v) };
                self.skip_ws();
                match top {
                    Frame::Array(items) => {
                        items.push(v);
                        match self.peek() {
                            Some(b',') => {
                                self.pos += 1;
                                continue 'value;
                            }
                            Some(b']') => {
                                self.pos += 1;
                                let Some(Frame::Array(items)) = stack.pop() else {
                                    unreachable!()
                                };
                                v = Value::Array(items);
                            }
                            _ => return self.err("expected ',' or ']'"),
                        }
                    }
                    Frame::Object(map, key) => {
                        // Assigning an existing key keeps its place, as in JavaScript.
                        map.insert(std::mem::take(key), v);
                        match self.peek() {
                            Some(b',') => {
                                self.pos += 1;
                                self.skip_ws();
                                *key = self.key()?;
                                continue 'value;
                            }
                            Some(b'}') => {
                                self.pos += 1;
                                let Some(Frame::Object(map, _)) = stack.pop() else {
                                    unreachable!()
                                };
                                v = Value::Object(map);
                            }
                            _ => return self.err("expected ',' or '}'"),
                        }
                    }
                }
            }
        }
    }

    /// An object key and its colon.
    fn key(&mut self) -> Result<String, ParseError> {
        if self.peek() != Some(b'"') {
            return self.err("expected a string key");
        }
        let k = self.string()?;
        self.skip_ws();
        if self.peek() != Some(b':') {
            return self.err("expected ':'");
        }
        self.pos += 1;
        Ok(k)
    }

    fn literal(&mut self, word: &'static str, v: Value) -> Result<Value, ParseError> {
        if self.s[self.pos..].starts_with(word.as_bytes()) {
            self.pos += word.len();
            Ok(v)
        } else {
            self.err("unexpected character")
        }
    }

    fn number(&mut self) -> Result<Value, ParseError> {
        let start = self.pos;
        let digits = |p: &mut Self| {
            let from = p.pos;
            while let Some(b'0'..=b'9') = p.peek() {
                p.pos += 1;
            }
            p.pos - from
        };
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        match self.peek() {
            Some(b'0') => self.pos += 1,
            Some(b'1'..=b'9') => {
                digits(self);
            }
            _ => return self.err("expected a digit"),
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if digits(self) == 0 {
                return self.err("expected a digit after '.'");
            }
        }
        if let Some(b'e' | b'E') = self.peek() {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if digits(self) == 0 {
                return self.err("expected a digit in the exponent");
            }
        }
        let text = std::str::from_utf8(&self.s[start..self.pos]).expect("ASCII");
        // Rust's float parsing is correctly rounded, as ECMAScript's is.
        let f: f64 = text.parse().expect("a JSON number");
        Ok(js_number_value(f))
    }

    fn string(&mut self) -> Result<String, ParseError> {
        debug_assert_eq!(self.peek(), Some(b'"'));
        self.pos += 1;
        let mut out = String::new();
        loop {
            // Copy the run up to the next quote, backslash or control character at once.
            let run = plain_run(&self.s[self.pos..]);
            let bytes = &self.s[self.pos..self.pos + run];
            // SAFETY: `self.s` is the bytes of a `str`, and the run starts and ends next to
            // ASCII bytes (or at the text's ends), so it is whole UTF-8 characters.
            out.push_str(unsafe { std::str::from_utf8_unchecked(bytes) });
            self.pos += run;
            match self.peek() {
                Some(b'"') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.pos += 1;
                    let c = match self.peek() {
                        Some(b'u') => {
                            self.pos += 1;
                            let unit = self.hex4()?;
                            out.push(self.code_point(unit)?);
                            continue;
                        }
                        c => match c.and_then(super::scan::short_escape) {
                            Some(c) => c,
                            None => return self.err("invalid escape"),
                        },
                    };
                    self.pos += 1;
                    out.push(c);
                }
                Some(_) => return self.err("control character in a string"),
                None => return self.err("unterminated string"),
            }
        }
    }

    fn hex4(&mut self) -> Result<u16, ParseError> {
        let Some(h) = self.s.get(self.pos..self.pos + 4) else {
            return self.err("invalid \\u escape");
        };
        let mut unit = 0u16;
        for &b in h {
            let d = match b {
                b'0'..=b'9' => b - b'0',
                b'a'..=b'f' => b - b'a' + 10,
                b'A'..=b'F' => b - b'A' + 10,
                _ => return self.err("invalid \\u escape"),
            };
            unit = unit << 4 | u16::from(d);
        }
        self.pos += 4;
        Ok(unit)
    }

    /// The character a `\uXXXX` escape starts: a pair of escapes for characters beyond the
    /// BMP, a stand-in for a surrogate without its partner.
    fn code_point(&mut self, unit: u16) -> Result<char, ParseError> {
        let stand_in = |u: u16| char::from_u32(LONE_SURROGATE_BASE + u32::from(u - 0xD800)).expect("valid");
        match unit {
            0xD800..=0xDBFF => {
                if self.s[self.pos..].starts_with(b"\\u") {
                    let save = self.pos;
                    self.pos += 2;
                    let low = self.hex4()?;
                    if (0xDC00..=0xDFFF).contains(&low) {
                        let c = 0x10000 + ((u32::from(unit) - 0xD800) << 10) + (u32::from(low) - 0xDC00);
                        return Ok(char::from_u32(c).expect("valid"));
                    }
                    self.pos = save;
                }
                Ok(stand_in(unit))
            }
            0xDC00..=0xDFFF => Ok(stand_in(unit)),
            u => Ok(char::from_u32(u32::from(u)).expect("BMP scalar")),
        }
    }
}

/// A JavaScript number as a `Value`: integral values within 2^53 as integers (so `5.0` and
/// `-0` print as `5` and `0`), other finite values as doubles, Infinity and NaN as `null`.
pub fn js_number_value(f: f64) -> Value {
    if !f.is_finite() {
        Value::Null
    } else if f.fract() == 0.0 && f.abs() <= 9_007_199_254_740_992.0 {
        Value::from(f as i64)
    } else {
        Number::from_f64(f).map_or(Value::Null, Value::Number)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn p(s: &str) -> Value {
        parse(s.as_bytes()).unwrap_or_else(|e| panic!("{e}: {s}"))
    }

    #[test]
    fn reads_what_serde_reads() {
        let s =
            r#" {"a":[1,2.5,-3.25,true,false,null,"x\"\\\/\b\f\n\r\tü😀\u00e9"],"b":{},"c":[],"d":{"e":{"f":[[]]}}} "#;
        assert_eq!(p(s), serde_json::from_str::<Value>(s).unwrap());
    }

    #[test]
    fn numbers_as_javascript_holds_them() {
        assert_eq!(p("5.0"), json!(5));
        assert_eq!(p("-0.0"), json!(0));
        assert_eq!(p("1e400"), Value::Null);
        assert_eq!(p("-1e400"), Value::Null);
        assert_eq!(p("0.0012000000000000001").as_f64(), Some(0.0012000000000000001));
        assert_eq!(p("18446744073709551616").as_f64(), Some(18446744073709551616.0));
        assert_eq!(p("9007199254740993"), json!(9007199254740992i64));
        assert!(parse(b"01").is_err());
        assert!(parse(b"1.").is_err());
        assert!(parse(b"-").is_err());
        assert!(parse(b"1e").is_err());
        assert!(parse(b".5").is_err());
    }

    #[test]
    fn lone_surrogates_are_kept() {
        let v = p(r#"["\ud83d","\ud83d\ude00","\ude00x","\ud83d\u0041","\uD83D\uDE00"]"#);
        let a = v.as_array().unwrap();
        assert_eq!(
            lone_surrogate_unit(a[0].as_str().unwrap().chars().next().unwrap()),
            Some(0xd83d)
        );
        assert_eq!(a[1], json!("😀"));
        assert_eq!(display(a[2].as_str().unwrap()), "\u{fffd}x");
        assert_eq!(display(a[3].as_str().unwrap()), "\u{fffd}A");
        assert_eq!(a[4], json!("😀"));
    }

    #[test]
    fn duplicate_keys_keep_first_place_last_value() {
        let v = p(r#"{"a":1,"b":2,"a":3}"#);
        assert_eq!(serde_json::to_string(&v).unwrap(), r#"{"a":3,"b":2}"#);
    }

    #[test]
    fn deep_nesting() {
        let n = 100;
        let s = format!("{}{}", "[".repeat(n * 10), "]".repeat(n * 10));
        assert!(parse(s.as_bytes()).is_ok());
        let s = format!("{}{}", "[".repeat(MAX_DEPTH + 2), "]".repeat(MAX_DEPTH + 2));
        assert!(parse(s.as_bytes()).is_err());
    }

    #[test]
    fn rejects_what_json_parse_rejects() {
        for bad in [
            "",
            " ",
            "{",
            "[1,]",
            "{\"a\":1,}",
            "{\"a\" 1}",
            "\"a\nb\"",
            "'a'",
            "[1] x",
            "tru",
            "nul",
            "\"\\x\"",
            "\"\\u12\"",
            "{1:2}",
            "NaN",
            "Infinity",
            "+1",
        ] {
            assert!(parse(bad.as_bytes()).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn invalid_utf8_reads_as_replacement() {
        assert_eq!(parse(b"\"a\xffb\"").unwrap(), json!("a\u{fffd}b"));
    }
}
