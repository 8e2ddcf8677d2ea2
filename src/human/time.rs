//! Entry timestamps in the local time zone, `YYYY-MM-DD HH:MM:SS`: the system's zone is
//! read once per process, and its offset is kept between the zone's transitions so that a
//! listing or an export of many entries does not ask the zone for each (the date itself is
//! always jiff's).

/// An entry timestamp in the local time zone, `YYYY-MM-DD HH:MM:SS`.
pub fn local_time(ts: Option<&str>) -> String {
    let mut s = String::with_capacity(19);
    local_time_into(&mut s, ts);
    s
}

/// [`local_time`], appended to `buf` (a listing formats one per row).
pub fn local_time_into(buf: &mut String, ts: Option<&str>) {
    thread_local! {
        static KEPT: std::cell::Cell<Option<KeptOffset>> = const { std::cell::Cell::new(None) };
    }
    match ts.and_then(crate::json::jsdate::parse_date_ms) {
        Some(ms) => KEPT.with(|kept| format_into(buf, ms, system_zone(), kept)),
        None => buf.push_str(UNKNOWN),
    }
}

const UNKNOWN: &str = "????-??-?? ??:??:??";

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

/// A zone's UTC offset over the span between two of its transitions (`from..until`, in ms
/// since the epoch; the offset cannot change inside). A listing's rows are mostly close in
/// time, so the zone is asked again only when a row falls outside the span.
#[derive(Clone, Copy)]
struct KeptOffset {
    from: i64,
    until: i64,
    offset: jiff::tz::Offset,
}

impl KeptOffset {
    /// The offset at `t` (`ms`), kept over the span around it.
    fn at(zone: &jiff::tz::TimeZone, t: jiff::Timestamp, ms: i64) -> KeptOffset {
        let ms_of = |tr: jiff::tz::TimeZoneTransition| tr.timestamp().as_millisecond();
        // The last transition at or before `ms`, and the first after it.
        let from = jiff::Timestamp::from_millisecond(ms.saturating_add(1))
            .ok()
            .and_then(|after| zone.preceding(after).next())
            .map_or(i64::MIN, ms_of);
        let until = zone.following(t).next().map_or(i64::MAX, ms_of);
        let offset = zone.to_offset(t);
        if (from..until).contains(&ms) {
            KeptOffset { from, until, offset }
        } else {
            // Not a span the offset is known over (a transition within the millisecond).
            KeptOffset {
                from: 0,
                until: 0,
                offset,
            }
        }
    }
}

/// The local time of `ms` in `zone`, with the offset `kept` between calls.
fn format_into(buf: &mut String, ms: i64, zone: &jiff::tz::TimeZone, kept: &std::cell::Cell<Option<KeptOffset>>) {
    let Ok(t) = jiff::Timestamp::from_millisecond(ms) else {
        buf.push_str(UNKNOWN);
        return;
    };
    let offset = match kept.get() {
        Some(k) if (k.from..k.until).contains(&ms) => k.offset,
        _ => {
            let k = KeptOffset::at(zone, t, ms);
            kept.set(Some(k));
            k.offset
        }
    };
    let d = offset.to_datetime(t);
    let digits = |buf: &mut String, v: i16, n: u32| {
        for k in (0..n).rev() {
            buf.push(char::from(b'0' + (v / 10i16.pow(k) % 10) as u8));
        }
    };
    match d.year() {
        year @ 0.. => digits(buf, year, 4),
        // Years before 1 BCE print with their sign, as `{:04}` does.
        year => buf.push_str(&format!("{year:04}")),
    }
    for (sep, v) in [
        ('-', d.month()),
        ('-', d.day()),
        (' ', d.hour()),
        (':', d.minute()),
        (':', d.second()),
    ] {
        buf.push(sep);
        digits(buf, i16::from(v), 2);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Instants next to daylight-saving changes (Berlin, New York, Lord Howe's half hour)
    /// and the ends of the fast range.
    fn near_changes() -> impl Strategy<Value = i64> {
        let changes = vec![
            -62_198_755_200_000,
            0,
            1_774_746_000_000,
            1_792_890_000_000,
            1_772_953_200_000,
            1_793_512_800_000,
            1_775_314_800_000,
            1_791_556_200_000,
            253_402_300_799_000,
        ];
        (
            prop::sample::select(changes),
            prop_oneof![-2000i64..2000, -7_200_000i64..7_200_000],
        )
            .prop_map(|(at, d)| at + d)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]
        /// Times formatted with an offset kept between the zone's transitions are the
        /// times the zone gives, row after row in any order.
        #[test]
        fn kept_offsets_are_the_zones(
            zone in prop::sample::select(vec![
                "Europe/Berlin", "America/New_York", "Australia/Lord_Howe", "Asia/Kolkata", "UTC",
            ]),
            times in prop::collection::vec(prop_oneof![
                2 => near_changes(),
                1 => 0i64..253_402_300_799_000,
                1 => 1_600_000_000_000i64..1_900_000_000_000,
                1 => (1_767_225_600_000i64..1_798_761_600_000).prop_map(|t| t / 3_600_000 * 3_600_000),
            ], 1..40),
        ) {
            let zone = jiff::tz::TimeZone::get(zone).unwrap();
            let kept = std::cell::Cell::new(None);
            for ms in times {
                let (mut mine, mut fresh) = (String::new(), String::new());
                format_into(&mut mine, ms, &zone, &kept);
                format_into(&mut fresh, ms, &zone, &std::cell::Cell::new(None));
                prop_assert_eq!(&mine, &fresh, "{}", ms);
                let Ok(t) = jiff::Timestamp::from_millisecond(ms) else {
                    prop_assert_eq!(mine, UNKNOWN);
                    continue;
                };
                prop_assert_eq!(mine, zone.to_datetime(t).strftime("%Y-%m-%d %H:%M:%S").to_string(), "{}", ms);
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
        let kept = std::cell::Cell::new(None);
        let mut s = String::new();
        format_into(&mut s, 1_774_745_999_999, &zone, &kept);
        format_into(&mut s, 1_774_746_000_000, &zone, &kept);
        format_into(&mut s, 1_774_745_999_000, &zone, &kept);
        assert_eq!(s, "2026-03-29 01:59:592026-03-29 03:00:002026-03-29 01:59:59");
        let mut s = String::new();
        format_into(&mut s, -62_198_755_200_000, &zone, &kept);
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
