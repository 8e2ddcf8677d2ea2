//! JavaScript's `new Date(value).getTime()` for the values found in session files.
//!
//! Pi turns entry timestamps into message timestamps with `new Date(entry.timestamp).getTime()`,
//! and sorts tree children with the same rule, so our answers depend on reproducing it. We
//! implement ECMAScript's date-time string format (the ISO 8601 profile every Pi version
//! writes); strings outside it give `None`, which is JavaScript's `NaN` (serialized as `null`).
//! Engines also accept assorted legacy formats; no Pi session contains them.

use serde_json::Value;

/// Largest absolute time value a JavaScript `Date` holds (ECMAScript TimeClip).
const MAX_TIME_MS: i64 = 8_640_000_000_000_000;

/// `new Date(v).getTime()` for a JSON value: strings are parsed, numbers are taken as
/// milliseconds, `null` is 0, everything else is `NaN` (`None`).
pub fn date_value_ms(value: Option<&Value>) -> Option<i64> {
    match value {
        Some(Value::String(s)) => parse_date_ms(s),
        Some(Value::Number(n)) => n.as_f64().and_then(time_clip),
        Some(Value::Null) => Some(0),
        Some(Value::Bool(b)) => Some(*b as i64),
        _ => None,
    }
}

fn time_clip(ms: f64) -> Option<i64> {
    if !ms.is_finite() || ms.abs() > MAX_TIME_MS as f64 {
        return None;
    }
    Some(ms.trunc() as i64)
}

/// Parses an ECMAScript date-time string to milliseconds since the epoch.
pub fn parse_date_ms(s: &str) -> Option<i64> {
    if let Some(ms) = canonical_ms(s.as_bytes()) {
        return Some(ms);
    }
    parse_general_ms(s)
}

/// [`parse_date_ms`] of the shape every Pi version writes (`Date.toISOString()`:
/// `YYYY-MM-DDTHH:MM:SS.sssZ`), read straight from its digits: a listing formats one per
/// row. `None` for any other shape, and for values out of range (the general parser then
/// decides, and gives the same time for every string this one reads).
#[inline]
fn canonical_ms(b: &[u8]) -> Option<i64> {
    let b: &[u8; 24] = b.try_into().ok()?;
    if b[4] != b'-' || b[7] != b'-' || b[10] != b'T' || b[13] != b':' || b[16] != b':' || b[19] != b'.' || b[23] != b'Z'
    {
        return None;
    }
    let mut bad = 0u8;
    let mut d = |i: usize| {
        let v = b[i].wrapping_sub(b'0');
        bad |= u8::from(v > 9);
        u32::from(v)
    };
    let year = d(0) * 1000 + d(1) * 100 + d(2) * 10 + d(3);
    let month = d(5) * 10 + d(6);
    let day = d(8) * 10 + d(9);
    let hour = d(11) * 10 + d(12);
    let minute = d(14) * 10 + d(15);
    let second = d(17) * 10 + d(18);
    let millis = d(20) * 100 + d(21) * 10 + d(22);
    let year = i64::from(year);
    // Hour 24 (allowed at 24:00:00.000) is left to the general parser.
    if bad != 0
        || !(1..=12).contains(&month)
        || day < 1
        || day > days_in_month(year, month)
        || hour > 23
        || minute > 59
        || second > 59
    {
        return None;
    }
    Some(
        days_from_civil(year, month, day) * 86_400_000
            + i64::from(hour * 3_600_000 + minute * 60_000 + second * 1000 + millis),
    )
}

/// [`parse_date_ms`] of any string.
fn parse_general_ms(s: &str) -> Option<i64> {
    let mut p = Cursor { b: s.as_bytes(), i: 0 };
    let year: i64 = match p.peek()? {
        b'+' | b'-' => {
            let negative = p.next()? == b'-';
            let y = p.digits(6)? as i64;
            if negative && y == 0 {
                return None; // -000000 is explicitly invalid
            }
            if negative { -y } else { y }
        }
        _ => p.digits(4)? as i64,
    };
    let (mut month, mut day) = (1, 1);
    if p.eat(b'-') {
        month = p.digits(2)?;
        if p.eat(b'-') {
            day = p.digits(2)?;
        }
    }
    if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return None;
    }
    let (mut hour, mut minute, mut second, mut millis) = (0, 0, 0, 0);
    let mut has_time = false;
    let mut offset_minutes: Option<i64> = None;
    if p.eat(b'T') || p.eat(b't') || p.eat(b' ') {
        has_time = true;
        hour = p.digits(2)?;
        p.expect(b':')?;
        minute = p.digits(2)?;
        if p.eat(b':') {
            second = p.digits(2)?;
            if p.eat(b'.') || p.eat(b',') {
                // At least one digit; digits past milliseconds are dropped, as V8 does.
                let start = p.i;
                let mut value = 0u32;
                while let Some(c) = p.peek().filter(u8::is_ascii_digit) {
                    if p.i - start < 3 {
                        value = value * 10 + u32::from(c - b'0');
                    }
                    p.i += 1;
                }
                let n = p.i - start;
                if n == 0 {
                    return None;
                }
                millis = value * 10u32.pow(3u32.saturating_sub(n as u32));
            }
        }
        if hour > 24 || minute > 59 || second > 59 || (hour == 24 && (minute | second | millis) != 0) {
            return None;
        }
    }
    if p.eat(b'Z') || p.eat(b'z') {
        offset_minutes = Some(0);
    } else if let Some(sign @ (b'+' | b'-')) = p.peek() {
        p.i += 1;
        let h = p.digits(2)? as i64;
        p.eat(b':');
        let m = p.digits(2)? as i64;
        if h > 23 || m > 59 {
            return None;
        }
        let total = h * 60 + m;
        offset_minutes = Some(if sign == b'-' { -total } else { total });
    }
    if p.i != p.b.len() {
        return None;
    }
    let days = days_from_civil(year, month, day);
    let local_ms = days * 86_400_000
        + i64::from(hour) * 3_600_000
        + i64::from(minute) * 60_000
        + i64::from(second) * 1000
        + i64::from(millis);
    let ms = match offset_minutes {
        Some(off) => local_ms - off * 60_000,
        // Date-only forms are UTC; date-time forms without an offset are local time.
        None if !has_time => local_ms,
        None => local_ms - local_offset_ms(local_ms),
    };
    time_clip(ms as f64)
}

/// Offset of the system time zone at a local wall-clock time given as if it were UTC.
fn local_offset_ms(local_ms: i64) -> i64 {
    let tz = jiff::tz::TimeZone::system();
    match jiff::Timestamp::from_millisecond(local_ms) {
        Ok(ts) => {
            let civil = jiff::tz::TimeZone::UTC.to_datetime(ts);
            match tz.to_ambiguous_zoned_datetime(civil).compatible() {
                Ok(z) => i64::from(z.offset().seconds()) * 1000,
                Err(_) => 0,
            }
        }
        Err(_) => 0,
    }
}

struct Cursor<'a> {
    b: &'a [u8],
    i: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.i).copied()
    }
    fn next(&mut self) -> Option<u8> {
        let c = self.peek()?;
        self.i += 1;
        Some(c)
    }
    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }
    fn expect(&mut self, c: u8) -> Option<()> {
        self.eat(c).then_some(())
    }
    fn digits(&mut self, n: usize) -> Option<u32> {
        let mut v = 0u32;
        for _ in 0..n {
            let c = self.next()?;
            if !c.is_ascii_digit() {
                return None;
            }
            v = v * 10 + u32::from(c - b'0');
        }
        Some(v)
    }
}

fn is_leap(y: i64) -> bool {
    (y % 4 == 0 && y % 100 != 0) || y % 400 == 0
}

fn days_in_month(y: i64, m: u32) -> u32 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 for a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(y: i64, m: u32, d: u32) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = if y >= 0 { y } else { y - 399 } / 400;
    let yoe = y - era * 400;
    let m = i64::from(m);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(d) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iso_forms() {
        assert_eq!(parse_date_ms("1970-01-01T00:00:00.000Z"), Some(0));
        assert_eq!(parse_date_ms("2026-11-02T10:00:02.000Z"), Some(1_793_613_602_000));
        assert_eq!(parse_date_ms("2026-11-02T10:00:02Z"), Some(1_793_613_602_000));
        assert_eq!(parse_date_ms("2026-11-02T10:00:02.5Z"), Some(1_793_613_602_500));
        assert_eq!(parse_date_ms("2026-11-02T10:00:02.123456Z"), Some(1_793_613_602_123));
        assert_eq!(parse_date_ms("2026-11-02T12:00:02.000+02:00"), Some(1_793_613_602_000));
        assert_eq!(parse_date_ms("2026-11-02"), Some(1_793_577_600_000));
        assert_eq!(parse_date_ms("+002026-11-02T10:00:02Z"), Some(1_793_613_602_000));
        assert_eq!(parse_date_ms("1969-12-31T23:59:59.999Z"), Some(-1));
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(5000))]
        /// The canonical shape read from its digits is the time the general parser reads,
        /// and is read whenever the general parser reads the shape.
        #[test]
        fn canonical_stamps_agree_with_the_general_parser(
            digits in proptest::collection::vec(proptest::prop_oneof![
                8 => 0u8..10,
                1 => proptest::prelude::Just(b'a' - b'0'),
                1 => proptest::prelude::Just(b'/'.wrapping_sub(b'0')),
            ], 17),
            valid in proptest::prelude::any::<bool>(),
            ms in 0i64..253_402_300_800_000,
            shape in 0usize..4,
        ) {
            let s = if valid {
                jiff::Timestamp::from_millisecond(ms).unwrap().strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
            } else {
                let d: Vec<char> = digits.iter().map(|&x| char::from(b'0'.wrapping_add(x))).collect();
                let mut s = format!(
                    "{}{}{}{}-{}{}-{}{}T{}{}:{}{}:{}{}.{}{}{}Z",
                    d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7], d[8], d[9], d[10], d[11], d[12], d[13],
                    d[14], d[15], d[16]
                );
                match shape {
                    1 => s = s.replace('T', " "),
                    2 => s.push('Z'),
                    3 => s = s.replace('Z', "z"),
                    _ => {}
                }
                s
            };
            let general = parse_general_ms(&s);
            if let Some(fast) = canonical_ms(s.as_bytes()) {
                proptest::prop_assert_eq!(Some(fast), general, "{}", s);
            }
            if valid {
                proptest::prop_assert_eq!(canonical_ms(s.as_bytes()), Some(ms), "{}", s);
            }
            proptest::prop_assert_eq!(parse_date_ms(&s), general, "{}", s);
        }
    }

    #[test]
    fn canonical_edges() {
        for s in [
            "2024-02-29T23:59:59.999Z",
            "2023-02-29T00:00:00.000Z",
            "2026-11-02T24:00:00.000Z",
            "0000-01-01T00:00:00.000Z",
            "9999-12-31T23:59:59.999Z",
            "2026-00-10T00:00:00.000Z",
            "2026-04-31T00:00:00.000Z",
            "2026-04-00T00:00:00.000Z",
            "2026-11-02T10:60:00.000Z",
            "2026-11-02T10:00:60.000Z",
        ] {
            assert_eq!(parse_date_ms(s), parse_general_ms(s), "{s}");
            if let Some(fast) = canonical_ms(s.as_bytes()) {
                assert_eq!(Some(fast), parse_general_ms(s), "{s}");
            }
        }
    }

    #[test]
    fn invalid_is_nan() {
        for s in [
            "",
            "yesterday",
            "2026-13-01",
            "2026-02-30",
            "2026-11-02T25:00Z",
            "2026-11-02T10:00:02.Z",
            "2026-11-02Tx",
        ] {
            assert_eq!(parse_date_ms(s), None, "{s}");
        }
    }
}
