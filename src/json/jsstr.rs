//! JavaScript's string semantics where Pi's answers depend on them: what `trim()` removes
//! (ECMAScript WhiteSpace and LineTerminator: Unicode `Zs`, TAB, VT, FF, U+FEFF, LF, CR,
//! U+2028, U+2029 — not U+0085, which Rust's `char::is_whitespace` counts). One definition,
//! used for blank lines, session names and previews alike.

/// Whether `String.prototype.trim` removes `c`.
pub fn is_whitespace(c: char) -> bool {
    (c.is_whitespace() && c != '\u{85}') || c == '\u{feff}'
}

/// `s.trim()` in JavaScript.
pub fn trim(s: &str) -> &str {
    s.trim_matches(is_whitespace)
}

/// `text.trim() === ""` for a line's bytes, as Node decodes them (invalid UTF-8 is not blank).
pub fn is_blank(line: &[u8]) -> bool {
    // Fast path: the first byte that is not ASCII JS whitespace decides, unless it starts
    // a multi-byte character.
    match line
        .iter()
        .find(|b| !matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c'))
    {
        None => true,
        Some(b) if b.is_ascii() => false,
        Some(_) => std::str::from_utf8(line).is_ok_and(|s| s.chars().all(is_whitespace)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_as_javascript_trims_it() {
        assert_eq!(trim("\u{feff}\u{a0} x \u{2028}\u{3000}\x0b"), "x");
        assert_eq!(trim("\u{85}x\u{85}"), "\u{85}x\u{85}");
        assert!(is_blank(b" \t\x0b\x0c\r"));
        assert!(is_blank("\u{feff}\u{2029}".as_bytes()));
        assert!(!is_blank("\u{85}".as_bytes()));
        assert!(!is_blank(b" x"));
        assert!(!is_blank(b"\xff"));
    }
}
