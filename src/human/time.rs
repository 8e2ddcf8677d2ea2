//! Entry timestamps in the local time zone, `YYYY-MM-DD HH:MM:SS`: the system's zone is
//! read once per process, and the offset is kept between the zone's transitions so that a
//! listing or an export of many entries does not ask the zone for each.

/// An entry timestamp in the local time zone, `YYYY-MM-DD HH:MM:SS`.
pub fn local_time(ts: Option<&str>) -> String {
    let mut s = String::with_capacity(19);
    local_time_into(&mut s, ts);
    s
}

/// [`local_time`], appended to `buf` (a listing formats one per row).
pub fn local_time_into(buf: &mut String, ts: Option<&str>) {
    const UNKNOWN: &str = "????-??-?? ??:??:??";
    let Some(ms) = ts.and_then(crate::session::jsdate::parse_date_ms) else {
        buf.push_str(UNKNOWN);
        return;
    };
    if (0..FAST_TIME_END_MS).contains(&ms) {
        thread_local! {
            static CACHE: std::cell::Cell<Option<TimeCache>> = const { std::cell::Cell::new(None) };
        }
        CACHE.with(|cache| local_time_fast_into(buf, ms, system_zone(), cache));
        return;
    }
    local_time_general_into(buf, ms, system_zone());
}

/// The system's zone, looked up once per process (the lookup is not free).
fn system_zone() -> &'static jiff::tz::TimeZone {
    static ZONE: std::sync::OnceLock<jiff::tz::TimeZone> = std::sync::OnceLock::new();
    ZONE.get_or_init(|| localtime_zone().unwrap_or_else(jiff::tz::TimeZone::system))
}

/// The zone of `/etc/localtime`, read as it is, when `TZ` does not name another. jiff's
/// lookup finds the zone's name too, and to find it loads its database: a walk of the whole
/// zoneinfo directory (thousands of files) that costs more than formatting a listing's
/// times. Only the zone's offsets are needed, and they are in the file. `None` where jiff's
/// lookup decides (`TZ` set, no readable file).
fn localtime_zone() -> Option<jiff::tz::TimeZone> {
    if std::env::var_os("TZ").is_some() {
        return None;
    }
    let bytes = std::fs::read("/etc/localtime").ok()?;
    jiff::tz::TimeZone::tzif("Local", &bytes).ok()
}

/// Times from 1970 to 9999-01-01 (UTC) are formatted by [`local_time_fast_into`]: no
/// offset takes them out of four-digit years.
const FAST_TIME_END_MS: i64 = 253_370_764_800_000;

/// What [`local_time_fast_into`] keeps per thread: the zone's UTC offset over the span
/// between two of its transitions (`from..until`, in ms; the offset cannot change inside),
/// and the last local day formatted. A listing's rows are mostly close in time, so the zone
/// is asked again only when a row falls outside the span.
#[derive(Clone, Copy)]
struct TimeCache {
    from: i64,
    until: i64,
    offset_s: i64,
    day: i64,
    date: [u8; 10],
}

/// [`local_time_general_into`] of a time in `0..FAST_TIME_END_MS` (ms since the epoch),
/// `cache` kept for `zone` only.
fn local_time_fast_into(
    buf: &mut String,
    ms: i64,
    zone: &jiff::tz::TimeZone,
    cache: &std::cell::Cell<Option<TimeCache>>,
) {
    let mut c = cache.get().unwrap_or(TimeCache {
        from: 0,
        until: 0,
        offset_s: 0,
        day: i64::MIN,
        date: [0; 10],
    });
    if !(c.from..c.until).contains(&ms) {
        let t = jiff::Timestamp::from_millisecond(ms).expect("in jiff's range");
        c.offset_s = i64::from(zone.to_offset(t).seconds());
        // The last transition at or before `ms`, and the first after it.
        let after = jiff::Timestamp::from_millisecond(ms + 1).expect("in jiff's range");
        c.from = zone
            .preceding(after)
            .next()
            .map_or(i64::MIN, |tr| tr.timestamp().as_millisecond());
        c.until = zone
            .following(t)
            .next()
            .map_or(i64::MAX, |tr| tr.timestamp().as_millisecond());
        if !(c.from..c.until).contains(&ms) {
            // Not a span the offset is known over (a transition within the millisecond):
            // nothing is kept.
            c.from = 0;
            c.until = 0;
        }
    }
    let local = ms.div_euclid(1000) + c.offset_s;
    let (day, secs) = (local.div_euclid(86_400), local.rem_euclid(86_400));
    if day != c.day {
        let (y, m, d) = civil_from_days(day);
        c.day = day;
        let mut date = *b"0000-00-00";
        for (k, v) in [(0, y / 100), (2, y % 100), (5, m), (8, d)] {
            date[k] = b'0' + (v / 10) as u8;
            date[k + 1] = b'0' + (v % 10) as u8;
        }
        c.date = date;
    }
    cache.set(Some(c));
    let mut line = *b"0000-00-00 00:00:00";
    line[..10].copy_from_slice(&c.date);
    for (k, v) in [(11, secs / 3600), (14, secs / 60 % 60), (17, secs % 60)] {
        line[k] = b'0' + (v / 10) as u8;
        line[k + 1] = b'0' + (v % 10) as u8;
    }
    buf.push_str(std::str::from_utf8(&line).expect("digits and separators"));
}

/// The proleptic Gregorian date (year, month, day) of a count of days since 1970-01-01.
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(m <= 2), m, d)
}

/// [`local_time_into`] of any time, through jiff.
fn local_time_general_into(buf: &mut String, ms: i64, zone: &jiff::tz::TimeZone) {
    const UNKNOWN: &str = "????-??-?? ??:??:??";
    let Ok(t) = jiff::Timestamp::from_millisecond(ms) else {
        buf.push_str(UNKNOWN);
        return;
    };
    let d = zone.to_datetime(t);
    let Ok(year) = u16::try_from(d.year()) else {
        // Years before 1 BCE print with their sign, as `{:04}` does.
        buf.push_str(&format!("{:04}", d.year()));
        buf.push_str(&local_time_rest(&d));
        return;
    };
    let digits = |buf: &mut String, v: u16, n: u32| {
        for k in (0..n).rev() {
            buf.push(char::from(b'0' + (v / 10u16.pow(k) % 10) as u8));
        }
    };
    digits(buf, year, 4);
    for (sep, v) in [
        ('-', d.month()),
        ('-', d.day()),
        (' ', d.hour()),
        (':', d.minute()),
        (':', d.second()),
    ] {
        buf.push(sep);
        digits(buf, v as u16, 2);
    }
}

/// What follows the year in [`local_time`], for the rare year written with a sign.
fn local_time_rest(d: &jiff::civil::DateTime) -> String {
    format!(
        "-{:02}-{:02} {:02}:{:02}:{:02}",
        d.month(),
        d.day(),
        d.hour(),
        d.minute(),
        d.second()
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Instants next to daylight-saving changes (Berlin, New York, Lord Howe's half hour)
    /// and the ends of the fast range.
    fn near_changes() -> impl Strategy<Value = i64> {
        let changes = vec![
            0,
            1_774_746_000_000,
            1_792_890_000_000,
            1_772_953_200_000,
            1_793_512_800_000,
            1_775_314_800_000,
            1_791_556_200_000,
            FAST_TIME_END_MS - 1,
        ];
        (
            prop::sample::select(changes),
            prop_oneof![-2000i64..2000, -7_200_000i64..7_200_000],
        )
            .prop_map(|(at, d)| (at + d).clamp(0, FAST_TIME_END_MS - 1))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]
        /// Times formatted with an offset kept between the zone's transitions are the
        /// times jiff gives, row after row in any order.
        #[test]
        fn local_times_from_kept_offsets_agree_with_the_general_path(
            zone in prop::sample::select(vec![
                "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata", "UTC",
            ]),
            times in prop::collection::vec(prop_oneof![
                2 => near_changes(),
                1 => 0i64..FAST_TIME_END_MS,
                1 => 1_600_000_000_000i64..1_900_000_000_000,
                1 => (1_767_225_600_000i64..1_798_761_600_000).prop_map(|t| t / 3_600_000 * 3_600_000),
            ], 1..40),
        ) {
            let zone = jiff::tz::TimeZone::get(zone).unwrap();
            let cache = std::cell::Cell::new(None);
            for ms in times {
                let (mut fast, mut general) = (String::new(), String::new());
                local_time_fast_into(&mut fast, ms, &zone, &cache);
                local_time_general_into(&mut general, ms, &zone);
                prop_assert_eq!(fast, general, "{}", ms);
            }
        }
    }

    #[test]
    fn local_times_of_any_stamp() {
        // Invalid stamps, and times outside the fast range (through the general path).
        assert_eq!(local_time(None), "????-??-?? ??:??:??");
        assert_eq!(local_time(Some("2026-13-01T00:00:00Z")), "????-??-?? ??:??:??");
        assert_eq!(local_time(Some("+275760-09-13T00:00:00.001Z")), "????-??-?? ??:??:??");
        let zone = jiff::tz::TimeZone::get("Europe/Berlin").unwrap();
        let cache = std::cell::Cell::new(None);
        let mut s = String::new();
        local_time_fast_into(&mut s, 1_774_745_999_999, &zone, &cache);
        local_time_fast_into(&mut s, 1_774_746_000_000, &zone, &cache);
        local_time_fast_into(&mut s, 1_774_745_999_000, &zone, &cache);
        assert_eq!(s, "2026-03-29 01:59:592026-03-29 03:00:002026-03-29 01:59:59");
        let mut s = String::new();
        local_time_general_into(&mut s, -62_198_755_200_000, &zone);
        assert_eq!(s, "-001-01-01 00:53:28");
    }

    #[test]
    fn the_localtime_zone_is_the_system_zone() {
        if std::env::var_os("TZ").is_some() {
            return;
        }
        let (Some(local), system) = (localtime_zone(), jiff::tz::TimeZone::system()) else {
            return;
        };
        for s in (0..2_000_000_000i64).step_by(3_600 * 24 * 7 + 1234) {
            let t = jiff::Timestamp::from_second(s).unwrap();
            assert_eq!(local.to_offset(t), system.to_offset(t), "{t}");
        }
    }
}
