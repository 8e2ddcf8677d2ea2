//! Sizes given on the command line (`slim --max-output 64K`).

/// `64K`, `1M`, `65536`: bytes, in 1024s.
pub fn parse_size(s: &str) -> Result<usize, String> {
    let t = s.trim();
    let t = t.strip_suffix("iB").or_else(|| t.strip_suffix('B')).unwrap_or(t);
    let (digits, unit) = match t.char_indices().last() {
        Some((i, c)) if c.is_ascii_alphabetic() => (&t[..i], c.to_ascii_uppercase()),
        _ => (t, ' '),
    };
    let shift = match unit {
        ' ' => 0,
        'K' => 10,
        'M' => 20,
        'G' => 30,
        _ => return Err(format!("{s:?}: not a size (say 65536, 64K or 1M)")),
    };
    let n: usize = digits
        .trim()
        .parse()
        .map_err(|_| format!("{s:?}: not a size (say 65536, 64K or 1M)"))?;
    n.checked_mul(1 << shift).ok_or_else(|| format!("{s:?}: too large"))
}

#[cfg(test)]
mod tests {
    #[test]
    fn sizes() {
        assert_eq!(super::parse_size("65536"), Ok(65536));
        assert_eq!(super::parse_size("64K"), Ok(65536));
        assert_eq!(super::parse_size("1MiB"), Ok(1 << 20));
        assert!(super::parse_size("1X").is_err());
    }
}
