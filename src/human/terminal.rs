//! Session text for a terminal: the characters that must not reach one raw (controls, the
//! bidirectional controls that can disguise text, lone surrogates) shown as escapes.

use std::fmt::Write as _;

/// Characters that must not reach a terminal raw: C0 controls, DEL, C1 controls, and the
/// bidirectional controls that can disguise text: embeddings, overrides, isolates and the
/// marks (left-to-right, right-to-left, Arabic letter mark), which reorder neutral
/// characters around them as well.
pub fn is_unsafe(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{061c}'
        )
        || crate::json::jsparse::is_lone_surrogate(c)
}

pub fn push_escaped(out: &mut String, c: char) {
    match c {
        // A lone surrogate shows as the replacement character, as a terminal shows one.
        c if crate::json::jsparse::is_lone_surrogate(c) => out.push('\u{fffd}'),
        '\x1b' => out.push_str("\\e"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        '\n' => out.push_str("\\n"),
        c if (c as u32) < 0x100 => {
            let _ = write!(out, "\\x{:02x}", c as u32);
        }
        c => {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
}

/// Session text for one line of output: every control character escaped, newlines too.
pub fn escape_line(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if is_unsafe(c) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    out
}

/// Session text for a block of output: newlines and tabs kept, other controls escaped.
pub fn escape_block(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if c == '\n' || c == '\t' || !is_unsafe(c) {
            out.push(c);
        } else {
            push_escaped(&mut out, c);
        }
    }
    out
}
