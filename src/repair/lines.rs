//! The first pass of repair: each physical line on its own. Bytes that are not part of a
//! readable entry (BOM, NULs, CRs, invalid UTF-8, blank and unreadable lines) are found and
//! normalized; lines that cannot be read are dropped.

use super::finding::Finding;
use crate::json::jsparse;
use std::borrow::Cow;

/// One physical line and what becomes of it. Borrows from the file's bytes: only a line
/// whose bytes change (NULs stripped, invalid UTF-8 re-encoded) is copied.
#[derive(Debug, Clone)]
pub struct LineState<'a> {
    pub number: u32,
    /// The original bytes, without `\n`.
    pub raw: &'a [u8],
    /// The normalized JSON objects this line holds (usually one; none when dropped; more
    /// when a lost newline glued lines together).
    pub objects: Vec<Cow<'a, str>>,
    /// For a line the loader read as one object, as it is: whether that object is a
    /// `session` line (so its type need not be read again).
    pub known_session: Option<bool>,
}

impl LineState<'_> {
    /// The line's bytes changed (or it was dropped), so its original goes to the rejects.
    pub fn changed(&self) -> bool {
        !(self.objects.len() == 1 && self.objects[0].as_bytes() == self.raw)
    }

    /// The line holds one object that the loader reads from the line as it is (the line
    /// without one trailing `\r`, which is what an entry's raw bytes are).
    pub fn read_as_is(&self) -> bool {
        self.objects.len() == 1 && {
            let o = self.objects[0].as_bytes();
            o == self.raw || self.raw.strip_suffix(b"\r") == Some(o)
        }
    }
}

/// What loading the same bytes found about each line, by line number: [`NOT_KNOWN`], or
/// the line is one object, a `session` line ([`SESSION`]) or not ([`ENTRY`]).
pub type Known = [u8];
pub const NOT_KNOWN: u8 = 0;
pub const ENTRY: u8 = 1;
pub const SESSION: u8 = 2;

/// Splits `data` into lines and normalizes each, collecting findings. `known`: what the
/// loader found reading the same bytes (line by line, see [`Known`]): a line it read as one
/// object, valid UTF-8 and unchanged here, is not parsed again.
pub fn read_lines<'a>(data: &'a [u8], known: Option<&Known>, findings: &mut Vec<Finding>) -> Vec<LineState<'a>> {
    let mut out = Vec::new();
    let mut crlf = Vec::new();
    let mut blank = Vec::new();
    let mut pos = 0;
    let mut number = 0u32;
    let mut seen_object = false;
    while pos < data.len() {
        number += 1;
        let (end, next, unterminated) = match memchr::memchr(b'\n', &data[pos..]) {
            Some(i) => (pos + i, pos + i + 1, false),
            None => (data.len(), data.len(), true),
        };
        let raw = &data[pos..end];
        pos = next;
        let mut bytes: &[u8] = raw;
        let mut fixes: Vec<&str> = Vec::new();
        if let Some(rest) = bytes.strip_prefix(b"\xef\xbb\xbf") {
            bytes = rest;
            findings.push(Finding::defect(
                "bom",
                Some(number),
                "a UTF-8 byte-order mark starts the line; Pi cannot parse a line that starts with one",
                "strip it",
            ));
            fixes.push("bom");
        }
        let without_nuls: Vec<u8>;
        let nul = memchr::memchr(0, bytes).is_some();
        if nul {
            without_nuls = bytes.iter().copied().filter(|&b| b != 0).collect();
            let only_nuls = without_nuls.iter().all(u8::is_ascii_whitespace);
            findings.push(Finding::defect(
                "nul-bytes",
                Some(number),
                if only_nuls {
                    "NUL bytes where a line should be (left by a crash)".to_string()
                } else {
                    format!(
                        "{} NUL bytes inside the line (left by a crash)",
                        bytes.len() - without_nuls.len()
                    )
                },
                if only_nuls { "drop them" } else { "strip them" },
            ));
            bytes = &without_nuls;
        }
        if let Some(rest) = bytes.strip_suffix(b"\r") {
            bytes = rest;
            crlf.push(number);
        }
        let valid = if nul {
            simdutf8::basic::from_utf8(bytes).map(|t| Cow::Owned(t.to_owned()))
        } else {
            // `bytes` is a piece of `raw`, which lives in `data`.
            let from = bytes.as_ptr() as usize - raw.as_ptr() as usize;
            simdutf8::basic::from_utf8(&raw[from..from + bytes.len()]).map(Cow::Borrowed)
        };
        let text: Cow<'a, str> = match valid {
            Ok(t) => t,
            Err(_) => {
                findings.push(Finding::defect(
                    "invalid-utf8",
                    Some(number),
                    "bytes that are not UTF-8 (Pi reads them as U+FFFD)",
                    "re-encode them as U+FFFD, as Pi reads them",
                ));
                Cow::Owned(String::from_utf8_lossy(bytes).into_owned())
            }
        };
        if text.trim().is_empty() {
            if !nul {
                blank.push(number);
            }
            out.push(LineState {
                number,
                raw,
                objects: Vec::new(),
                known_session: None,
            });
            continue;
        }
        let kind = known.and_then(|k| k.get(number as usize)).copied().unwrap_or(NOT_KNOWN);
        let known_session =
            (kind != NOT_KNOWN && fixes.is_empty() && matches!(text, Cow::Borrowed(_))).then_some(kind == SESSION);
        let objects: Vec<Cow<'a, str>> = match &text {
            // The loader read this line (the same bytes, less the CR stripped above) as one
            // object, as `parse_objects` reads it: only its trailing CRs go.
            Cow::Borrowed(t) if known_session.is_some() => vec![Cow::Borrowed(&t[one_object(t)])],
            Cow::Borrowed(t) => parse_objects(t).into_iter().map(|r| Cow::Borrowed(&t[r])).collect(),
            Cow::Owned(t) => parse_objects(t)
                .into_iter()
                .map(|r| Cow::Owned(t[r].to_owned()))
                .collect(),
        };
        seen_object |= !objects.is_empty();
        if objects.is_empty() {
            let json = jsparse::parse(text.as_bytes()).is_ok();
            let (kind, message) = if unterminated && !json {
                (
                    "torn-last-line",
                    "the last line is cut off (no newline, not JSON): a write torn by a crash",
                )
            } else if !json {
                ("malformed-line", "not JSON; Pi skips it")
            } else if !seen_object && crate::session::skim::truthy_non_object(text.as_bytes()) {
                (
                    "malformed-line",
                    "a JSON value that is not an object, before the session header; Pi refuses the file",
                )
            } else {
                (
                    "malformed-line",
                    "JSON but not an object, so not an entry; Pi cannot use it",
                )
            };
            findings.push(Finding::defect(
                kind,
                Some(number),
                message,
                "drop it (kept in the .rejects file)",
            ));
        } else if objects.len() > 1 {
            findings.push(Finding::defect(
                "joined-lines",
                Some(number),
                format!(
                    "{} JSON objects on one line (a lost newline); Pi skips the line",
                    objects.len()
                ),
                "split it into one line per object",
            ));
        } else if unterminated {
            findings.push(Finding::defect(
                "missing-final-newline",
                Some(number),
                "the last line has no newline; Pi appends one when it opens the file",
                "end it with a newline",
            ));
        }
        out.push(LineState {
            number,
            raw,
            objects,
            known_session,
        });
    }
    if !crlf.is_empty() {
        findings.push(
            Finding::defect(
                "crlf",
                crlf.first().copied(),
                if crlf.len() == 1 {
                    "1 line ends with CRLF (or more CRs); Pi reads it, but it is not how Pi writes".to_owned()
                } else {
                    format!(
                        "{} lines end with CRLF (or more CRs); Pi reads them, but it is not how Pi writes",
                        crlf.len()
                    )
                },
                "strip the CRs",
            )
            .with_lines(crlf),
        );
    }
    if !blank.is_empty() {
        findings.push(
            Finding::defect(
                "blank-lines",
                blank.first().copied(),
                format!("{} blank line{}", blank.len(), if blank.len() == 1 { "" } else { "s" }),
                "drop them",
            )
            .with_lines(blank),
        );
    }
    out
}

/// The JSON objects on a line: one normally; several when lines were glued together; none
/// when the line is not a sequence of objects. Each object is one `JSON.parse` accepts
/// (read with [`jsparse`], so lone surrogates, huge numbers and deep nesting are fine).
fn parse_objects(text: &str) -> Vec<std::ops::Range<usize>> {
    let trimmed = text.trim_matches(is_json_whitespace);
    if trimmed.starts_with('{') && jsparse::parse(text.as_bytes()).is_ok_and(|v| v.is_object()) {
        return vec![one_object(text)];
    }
    let mut objects = Vec::new();
    let mut at = 0;
    loop {
        at = text.len() - text[at..].trim_start_matches(is_json_whitespace).len();
        if at == text.len() {
            break;
        }
        let Some(len) = object_end(&text.as_bytes()[at..]) else {
            return Vec::new();
        };
        if !jsparse::parse(&text.as_bytes()[at..at + len]).is_ok_and(|v| v.is_object()) {
            return Vec::new();
        }
        objects.push(at..at + len);
        at += len;
    }
    objects
}

/// A line that is one object: the line as it is, except that trailing CRs (which would
/// read as CRLF again) go.
fn one_object(text: &str) -> std::ops::Range<usize> {
    if text.ends_with('\r') {
        0..text.trim_end_matches(is_json_whitespace).len()
    } else {
        0..text.len()
    }
}

fn is_json_whitespace(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r')
}

/// The length of the `{…}` that `bytes` starts with: braces and brackets balanced outside
/// strings. Only finds the boundary; the piece is then read with `jsparse`.
fn object_end(bytes: &[u8]) -> Option<usize> {
    if bytes.first() != Some(&b'{') {
        return None;
    }
    let mut depth = 0usize;
    let mut in_string = false;
    let mut escaped = false;
    for (i, &b) in bytes.iter().enumerate() {
        if in_string {
            if escaped {
                escaped = false;
            } else if b == b'\\' {
                escaped = true;
            } else if b == b'"' {
                in_string = false;
            }
            continue;
        }
        match b {
            b'"' => in_string = true,
            b'{' | b'[' => depth += 1,
            b'}' | b']' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    fn parse_objects(text: &str) -> Vec<&str> {
        super::parse_objects(text).into_iter().map(|r| &text[r]).collect()
    }

    #[test]
    fn one_object_or_several_or_none() {
        assert_eq!(parse_objects(r#" {"a":1} "#), [r#" {"a":1} "#]);
        assert_eq!(parse_objects("{\"a\":1}\r\r"), [r#"{"a":1}"#]);
        assert_eq!(
            parse_objects(r#"{"a":"}{"}{"b":[{}]}"#),
            [r#"{"a":"}{"}"#, r#"{"b":[{}]}"#]
        );
        assert!(parse_objects(r#"{"a":1}x"#).is_empty());
        assert!(parse_objects("42").is_empty());
        assert!(parse_objects(r#"{"a":1}42"#).is_empty());
        assert!(parse_objects(r#"{"a":}"#).is_empty());
    }
}
