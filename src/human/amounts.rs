//! Token counts and dollar amounts as people read them, for the tables of `stats`, `usage`
//! and the export (a `--json` output keeps JavaScript's exact sums).

/// A size for people: `812 B`, `12.3 KB`, `4.1 MB` (the export's figures and `slim`'s
/// placeholders).
pub fn bytes(bytes: usize) -> String {
    match bytes {
        b if b < 1024 => format!("{b} B"),
        b if b < 1024 * 1024 => format!("{:.1} KB", b as f64 / 1024.0),
        b => format!("{:.1} MB", b as f64 / (1024.0 * 1024.0)),
    }
}

/// `n` and its noun, singular for one: `1 compaction`, `2 compactions`, `3 entries`.
pub fn counted(n: u64, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Digits with thousands separated by commas.
fn grouped(digits: &str) -> String {
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A token count for people: thousands separated, and a sum that is not whole (files not
/// written by Pi) rounded to two decimals, so that no `0.30000000000000004` shows.
pub fn tokens(f: f64) -> String {
    if !f.is_finite() || f.abs() >= 1e15 {
        return format!("{f}");
    }
    let cents = (f.abs() * 100.0).round() as u64;
    let sign = if f < 0.0 && cents != 0 { "-" } else { "" };
    let whole = grouped(&(cents / 100).to_string());
    match cents % 100 {
        0 => format!("{sign}{whole}"),
        c if c % 10 == 0 => format!("{sign}{whole}.{}", c / 10),
        c => format!("{sign}{whole}.{c:02}"),
    }
}

/// Dollars for people, to the hundredth of a cent (the JSON keeps JavaScript's exact sums);
/// a cost too small to show is not shown as nothing.
pub fn dollars(f: f64) -> String {
    if f > 0.0 && f < 0.00005 {
        return "<$0.0001".into();
    }
    format!("${f:.4}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats() {
        assert_eq!(tokens(1234567.0), "1,234,567");
        assert_eq!(tokens(999.0), "999");
        assert_eq!(tokens(1.5), "1.5");
        assert_eq!(tokens(0.1 + 0.2), "0.3");
        assert_eq!(tokens(1234.567), "1,234.57");
        assert_eq!(tokens(-2.0), "-2");
        assert_eq!(tokens(0.001), "0");
        assert_eq!(dollars(0.24599999999999997), "$0.2460");
        assert_eq!(dollars(0.0), "$0.0000");
        assert_eq!(dollars(0.00001), "<$0.0001");
    }
}
