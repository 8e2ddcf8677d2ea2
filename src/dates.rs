//! Dates as the command line takes them (`log --since/--until`, `usage --since/--until`):
//! a core of git's approxidate, resolved against a given "now" and time zone so that the
//! same words always mean the same instants in tests.
//!
//! - A day: `2026-11-30`, `20261130`, `today`, `yesterday`, or `Nd` / `Nw` (N days or weeks
//!   before today, `0d` being today). As a lower bound a day starts at its first instant;
//!   as an upper bound it ends at its last, so `--since D --until D` is the whole day D.
//! - A moment: a date and time, `2026-11-30T14:00`, `2026-11-30 14:00:05`, with fractions
//!   of a second, and with a zone (`Z`, `+02:00`, `-0500`) or without one (the local time).
//! - A time ago: `N UNIT [ago]` with UNIT one of second, minute, hour, day, week, month,
//!   year (singular or plural; also sec, min, hr), words separated by spaces or dots
//!   (`3 days ago`, `2.weeks.ago`, `1 hour`); `Nh` and `Nmin`; `now`. Days, months and
//!   years are counted on the calendar of the time zone, as git does.

use jiff::civil::{Date, DateTime};
use jiff::tz::TimeZone;
use jiff::{Span, Timestamp, ZonedDateTime};

/// A day as `--since/--until` take it: `2026-11-01`, `20261101`, or a count of days or
/// weeks before today (`7d`, `2w`; `0d` is today).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DaySpec {
    On(Date),
    DaysAgo(u32),
}

impl DaySpec {
    pub fn parse(s: &str) -> Option<DaySpec> {
        let s = s.trim();
        if let Some(n) = s.strip_suffix('d').and_then(count) {
            return Some(DaySpec::DaysAgo(n));
        }
        if let Some(n) = s.strip_suffix('w').and_then(count) {
            return Some(DaySpec::DaysAgo(n.checked_mul(7)?));
        }
        let digits: String = match s.len() {
            10 if s.as_bytes()[4] == b'-' && s.as_bytes()[7] == b'-' => format!("{}{}{}", &s[..4], &s[5..7], &s[8..]),
            8 => s.to_owned(),
            _ => return None,
        };
        if !digits.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        let year: i16 = digits[..4].parse().ok()?;
        let month: i8 = digits[4..6].parse().ok()?;
        let day: i8 = digits[6..].parse().ok()?;
        Date::new(year, month, day).ok().map(DaySpec::On)
    }

    /// The day meant, `today` being the current day in the zone of interest.
    pub fn resolve(self, today: Date) -> Date {
        match self {
            DaySpec::On(d) => d,
            DaySpec::DaysAgo(n) => Span::new()
                .try_days(i64::from(n))
                .ok()
                .and_then(|span| today.checked_sub(span).ok())
                .unwrap_or(Date::MIN),
        }
    }
}

/// A run of ASCII digits as a count (no sign, no spaces).
fn count(n: &str) -> Option<u32> {
    (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
        .then(|| n.parse::<u32>().ok())
        .flatten()
}

/// What the forms this module takes are, for error messages.
pub const FORMS: &str = "a date (2026-11-30, 20261130, today, yesterday, 7d, 2w), a date and time \
     (2026-11-30T14:00, '2026-11-30 14:00:05', with Z or +02:00 for a zone other than the local one), \
     or a time ago ('3 days ago', 2.weeks.ago, '90 minutes ago', 1h, 90min, now)";

/// A date or time as `--since`/`--until` take it (see the module's documentation).
#[derive(Debug, Clone)]
pub enum When {
    /// A whole calendar day.
    Day(DaySpec),
    /// A date and time.
    Moment(Moment),
    /// A span before now, counted on the zone's calendar.
    Ago(Span),
}

/// A date and time, in a zone of its own or in the local one.
#[derive(Debug, Clone, PartialEq)]
pub enum Moment {
    Exact(Timestamp),
    Local(DateTime),
}

/// A `--since`/`--until` value that is none of the forms of [`FORMS`].
#[derive(Debug, Clone, thiserror::Error)]
#[error("not a date: use {FORMS}")]
pub struct NotADate;

/// How the command line reads `--since`/`--until` values, for every command that takes them.
impl std::str::FromStr for When {
    type Err = NotADate;

    fn from_str(s: &str) -> Result<When, NotADate> {
        When::parse(s).ok_or(NotADate)
    }
}

impl When {
    /// Reads one of the forms the module lists; `None` for anything else.
    pub fn parse(s: &str) -> Option<When> {
        let s = s.trim();
        if let Some(d) = DaySpec::parse(s) {
            return Some(When::Day(d));
        }
        let lower = s.to_ascii_lowercase();
        match lower.as_str() {
            "today" => return Some(When::Day(DaySpec::DaysAgo(0))),
            "yesterday" => return Some(When::Day(DaySpec::DaysAgo(1))),
            "now" => return Some(When::Ago(Span::new())),
            _ => {}
        }
        if let Some(span) = ago(&lower) {
            return Some(When::Ago(span));
        }
        // A date and time: with a zone it names an instant; without one, the local time.
        // (A bare date was taken above, so what is left here has a time of day.)
        if !s.as_bytes().first().is_some_and(u8::is_ascii_digit) {
            return None;
        }
        if let Ok(t) = s.parse::<Timestamp>() {
            return Some(When::Moment(Moment::Exact(t)));
        }
        // jiff takes `2026-11-30T14:00[Europe/Paris]` as a date-time and drops the bracket's
        // zone: only plain date-times are taken as local times.
        if s.contains('[') || s.len() <= 10 {
            return None;
        }
        s.parse::<DateTime>().ok().map(|d| When::Moment(Moment::Local(d)))
    }

    /// The first millisecond (since the epoch) the form covers, for a lower bound: a day's
    /// first instant, the moment itself.
    pub fn first_ms(&self, now: Timestamp, zone: &TimeZone) -> i64 {
        match self {
            When::Day(d) => day_start(d.resolve(today(now, zone)), zone),
            When::Moment(m) => m.ms(zone),
            When::Ago(span) => ago_ms(*span, now, zone),
        }
    }

    /// The last millisecond the form covers, for an upper bound: a day's last instant, the
    /// moment itself.
    pub fn last_ms(&self, now: Timestamp, zone: &TimeZone) -> i64 {
        match self {
            When::Day(d) => {
                let day = d.resolve(today(now, zone));
                match day.tomorrow() {
                    Ok(next) => day_start(next, zone).saturating_sub(1),
                    Err(_) => i64::MAX,
                }
            }
            When::Moment(m) => m.ms(zone),
            When::Ago(span) => ago_ms(*span, now, zone),
        }
    }
}

impl Moment {
    fn ms(&self, zone: &TimeZone) -> i64 {
        match self {
            Moment::Exact(t) => t.as_millisecond(),
            // A local time a DST change skips or repeats resolves as jiff's default does
            // (the later offset for a gap, the earlier for a fold), like `date -d`.
            Moment::Local(d) => zone
                .to_ambiguous_timestamp(*d)
                .compatible()
                .map_or(i64::MIN, |t| t.as_millisecond()),
        }
    }
}

fn today(now: Timestamp, zone: &TimeZone) -> Date {
    zone.to_datetime(now).date()
}

/// The first instant of `day` in `zone` (not always midnight: a DST change can skip it).
fn day_start(day: Date, zone: &TimeZone) -> i64 {
    day.to_zoned_datetime(zone.clone())
        .and_then(|z| z.start_of_day())
        .map_or(i64::MIN, |z| z.timestamp().as_millisecond())
}

/// `now` less `span`, on the calendar of `zone`; far past dates clamp to the earliest time.
fn ago_ms(span: Span, now: Timestamp, zone: &TimeZone) -> i64 {
    ZonedDateTime::new(now, zone.clone())
        .checked_sub(span)
        .map_or(i64::MIN, |z| z.timestamp().as_millisecond())
}

/// `N UNIT [ago]`, `Nh`, `Nmin`: the span, or `None`.
fn ago(s: &str) -> Option<Span> {
    let words: Vec<&str> = s.split(['.', ' ']).filter(|w| !w.is_empty()).collect();
    let (n, unit) = match words.as_slice() {
        [one] | [one, "ago"] => {
            // `1h`, `90min`: digits and a unit in one word.
            let split = one.find(|c: char| !c.is_ascii_digit())?;
            let (n, unit) = one.split_at(split);
            if !matches!(unit, "h" | "min") {
                return None;
            }
            (count(n)?, unit)
        }
        [n, unit] | [n, unit, "ago"] => (count(n)?, *unit),
        _ => return None,
    };
    let n = i64::from(n);
    let span = match unit {
        "s" | "sec" | "secs" | "second" | "seconds" => Span::new().try_seconds(n),
        "min" | "mins" | "minute" | "minutes" => Span::new().try_minutes(n),
        "h" | "hr" | "hrs" | "hour" | "hours" => Span::new().try_hours(n),
        "day" | "days" => Span::new().try_days(n),
        "week" | "weeks" => Span::new().try_weeks(n),
        "month" | "months" => Span::new().try_months(n),
        "year" | "years" => Span::new().try_years(n),
        _ => return None,
    };
    // A count too large for a span reaches back further than any session.
    Some(span.unwrap_or_else(|_| Span::new().years(19_998)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use jiff::civil::date;

    #[test]
    fn days_for_since_and_until() {
        let today = date(2026, 12, 1);
        let day = |s: &str| DaySpec::parse(s).map(|d| d.resolve(today));
        assert_eq!(day("2026-11-01"), Some(date(2026, 11, 1)));
        assert_eq!(day("20261101"), Some(date(2026, 11, 1)));
        assert_eq!(day("0d"), Some(today));
        assert_eq!(day("7d"), Some(date(2026, 11, 24)));
        assert_eq!(day("2w"), Some(date(2026, 11, 17)));
        assert_eq!(day("99999999d"), Some(Date::MIN));
        for bad in [
            "",
            "d",
            "2026-13-01",
            "2026-02-30",
            "2026/11/01",
            "1x",
            "-1d",
            "+1d",
            "2026110",
        ] {
            assert_eq!(DaySpec::parse(bad), None, "{bad}");
        }
    }

    /// `now`: 2026-12-01 10:30 in a zone two hours ahead of UTC (08:30Z).
    fn bounds(s: &str) -> (String, String) {
        let zone = TimeZone::fixed(jiff::tz::offset(2));
        let now: Timestamp = "2026-12-01T08:30:00Z".parse().unwrap();
        let when = When::parse(s).unwrap_or_else(|| panic!("{s} parses"));
        let show = |ms: i64| Timestamp::from_millisecond(ms).unwrap().to_string();
        (show(when.first_ms(now, &zone)), show(when.last_ms(now, &zone)))
    }

    fn at(s: &str) -> String {
        let (first, last) = bounds(s);
        assert_eq!(first, last, "{s} is one moment");
        first
    }

    #[test]
    fn days_cover_the_whole_day_in_the_zone() {
        let nov30 = ("2026-11-29T22:00:00Z".to_owned(), "2026-11-30T21:59:59.999Z".to_owned());
        assert_eq!(bounds("2026-11-30"), nov30);
        assert_eq!(bounds("20261130"), nov30);
        assert_eq!(bounds("yesterday"), nov30);
        assert_eq!(bounds("Yesterday"), nov30);
        assert_eq!(bounds("1d"), nov30);
        assert_eq!(
            bounds("today"),
            ("2026-11-30T22:00:00Z".to_owned(), "2026-12-01T21:59:59.999Z".to_owned())
        );
        assert_eq!(bounds("1w").0, "2026-11-23T22:00:00Z");
    }

    #[test]
    fn moments_with_and_without_a_zone() {
        assert_eq!(at("2026-11-30T14:00"), "2026-11-30T12:00:00Z");
        assert_eq!(at("2026-11-30 14:00:05"), "2026-11-30T12:00:05Z");
        assert_eq!(at("2026-11-30T14:00:05.250"), "2026-11-30T12:00:05.25Z");
        assert_eq!(at("2026-11-30T14:00Z"), "2026-11-30T14:00:00Z");
        assert_eq!(at("2026-11-30T14:00:00+05:00"), "2026-11-30T09:00:00Z");
        assert_eq!(at("2026-11-30 14:00-0500"), "2026-11-30T19:00:00Z");
    }

    #[test]
    fn times_ago() {
        assert_eq!(at("now"), "2026-12-01T08:30:00Z");
        assert_eq!(at("3 days ago"), "2026-11-28T08:30:00Z");
        assert_eq!(at("3 days"), "2026-11-28T08:30:00Z");
        assert_eq!(at("2.weeks.ago"), "2026-11-17T08:30:00Z");
        assert_eq!(at("1 week ago"), "2026-11-24T08:30:00Z");
        assert_eq!(at("90 minutes ago"), "2026-12-01T07:00:00Z");
        assert_eq!(at("90min"), "2026-12-01T07:00:00Z");
        assert_eq!(at("1h"), "2026-12-01T07:30:00Z");
        assert_eq!(at("1 hour ago"), "2026-12-01T07:30:00Z");
        assert_eq!(at("45 secs ago"), "2026-12-01T08:29:15Z");
        assert_eq!(at("1 month ago"), "2026-11-01T08:30:00Z");
        assert_eq!(at("2 years ago"), "2024-12-01T08:30:00Z");
        assert_eq!(at("  3 DAYS AGO "), "2026-11-28T08:30:00Z");
        // Further back than any calendar: the earliest time.
        let when = When::parse("4000000000 years ago").unwrap();
        assert_eq!(when.first_ms(Timestamp::now(), &TimeZone::UTC), i64::MIN);
    }

    #[test]
    fn other_words_are_not_dates() {
        for bad in [
            "",
            "a1b2c3d4",
            "ago",
            "3",
            "3 ago",
            "3 fortnights ago",
            "-3 days ago",
            "3 days ago ago",
            "1m",
            "1x",
            "tomorrow ago",
            "2026-11-30T25:00",
            "2026-11-30T14:00[Europe/Paris]",
            "14:00",
            "@",
            "HEAD",
        ] {
            assert!(When::parse(bad).is_none(), "{bad}");
        }
    }
}
