//! What many sessions cost, grouped by time, session, project, model, provider or source,
//! with every paid call counted once across them all.
//!
//! A session made by cloning or forking another (Pi's `/fork` and `/clone`, `--fork`,
//! `pi-session clone` and `fork`) starts with copies of its parent's entries, and a copy keeps
//! the entry's `id` and `timestamp` (Pi copies entries whole; pi-session copies their bytes).
//! So a call is known by its entry's id and timestamp, and counts once, for the session that
//! holds it first: sessions are taken oldest first (by their header's `timestamp`), and a
//! call already seen in an older session is a copy. A session whose `parentSession` is not
//! among those reported has the calls it shares with that file (when it exists) left out:
//! they were paid for in the parent. A file whose header repeats another's session id (a
//! copy of the file, a backup) is the same session and is read once.

use super::{Source, Totals, call_of};
use crate::json::jsdate;
use crate::progress::Progress;
use crate::session::{LoadReport, Session};
use rustc_hash::{FxHashMap, FxHashSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;

mod cache;
mod csv;
use crate::file_cache::{Stamp, key};
use cache::Cache;

/// What a call is grouped by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Key {
    /// The calendar day of the call, in the report's time zone.
    Day,
    /// The ISO week of the call (named by its Monday).
    Week,
    /// The calendar month of the call.
    Month,
    /// The session file that paid for it.
    Session,
    /// The session's working directory (its header's `cwd`).
    Project,
    Model,
    Provider,
    Source,
}

impl Key {
    pub const ALL: [Key; 8] = [
        Key::Day,
        Key::Week,
        Key::Month,
        Key::Session,
        Key::Project,
        Key::Model,
        Key::Provider,
        Key::Source,
    ];

    /// The name used on the command line and in JSON.
    pub fn name(self) -> &'static str {
        match self {
            Key::Day => "day",
            Key::Week => "week",
            Key::Month => "month",
            Key::Session => "session",
            Key::Project => "project",
            Key::Model => "model",
            Key::Provider => "provider",
            Key::Source => "source",
        }
    }

    pub fn parse(s: &str) -> Option<Key> {
        Key::ALL.into_iter().find(|k| k.name() == s)
    }
}

/// What to count and how to group it.
#[derive(Debug, Clone)]
pub struct Options {
    /// Grouping keys, in order (none: one total).
    pub by: Vec<Key>,
    /// The zone calendar days are taken in.
    pub zone: jiff::tz::TimeZone,
    /// Only calls at or after this millisecond since the epoch (`--since`, resolved by
    /// [`crate::dates::When::first_ms`]).
    pub since_ms: Option<i64>,
    /// Only calls at or before this millisecond ([`crate::dates::When::last_ms`]).
    pub until_ms: Option<i64>,
    /// The file that keeps what was read from each session between runs ([`cache`]); `None`
    /// reads every file.
    pub cache: Option<PathBuf>,
}

/// The value of one grouping key for a group.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum KeyValue {
    /// `YYYY-MM-DD`, `None` when the entry's timestamp is not a date.
    Day(Option<String>),
    /// The week's Monday, `YYYY-MM-DD`.
    Week(Option<String>),
    /// `YYYY-MM`.
    Month(Option<String>),
    /// The session, by its place among the sessions read (oldest first).
    Session(usize),
    Project(Option<String>),
    Model(String),
    Provider(Option<String>),
    Source(SourceOrder),
}

/// A [`Source`] ordered as [`Source::ALL`] lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SourceOrder(u8);

impl SourceOrder {
    pub fn source(self) -> Source {
        Source::ALL[usize::from(self.0)]
    }

    fn of(source: Source) -> SourceOrder {
        SourceOrder(Source::ALL.iter().position(|&s| s == source).unwrap_or(0) as u8)
    }
}

/// One row of the report: its key values (in the order of [`Options::by`]) and what its
/// calls add up to.
#[derive(Debug, Clone, PartialEq)]
pub struct Group {
    pub keys: Vec<KeyValue>,
    pub totals: Totals,
    pub calls: u64,
}

/// A session that was read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SessionSeen {
    pub path: PathBuf,
    /// The header's `id`.
    pub id: String,
    pub cwd: Option<String>,
}

/// Something the caller should tell the user about a file.
#[derive(Debug)]
pub enum Warning {
    /// Not a session Pi would open (no header, not JSON lines, unreadable): not counted.
    NotASession { path: PathBuf, reason: String },
    /// A session with damaged lines: read as Pi reads it (the damaged lines skipped).
    Damaged {
        path: PathBuf,
        report: LoadReport,
        complete: bool,
    },
    /// Two files hold the same session (same header id): the second is not read.
    SameSession {
        id: String,
        kept: PathBuf,
        dropped: PathBuf,
    },
    /// A session names a parent session that is not there, and none of its calls turned up
    /// in another session: whatever it copied from the parent counts here.
    ParentMissing { path: PathBuf, parent: String },
}

/// The report: groups in key order, the total of every counted call, the sessions read
/// (oldest first; [`KeyValue::Session`] indexes them), and the warnings.
#[derive(Debug, Default)]
pub struct Report {
    pub groups: Vec<Group>,
    pub total: Totals,
    pub calls: u64,
    pub sessions: Vec<SessionSeen>,
    /// Calls left out as copies of calls counted elsewhere.
    pub copies: u64,
    pub warnings: Vec<Warning>,
    /// Sessions whose calls came from the cache rather than their file.
    pub cached: usize,
}

/// A call's entry id and timestamp, what a copy of the entry keeps, as 128 bits of two
/// SipHash digests (with fixed keys, so runs agree): no allocation per call, and two calls
/// that differ collide with a chance of about n²/2¹²⁹ (1e-27 for a million calls).
type Identity = u128;

fn identity(id: &str, timestamp: &str) -> Identity {
    use std::hash::{Hash, Hasher};
    let digest = |salt: u8| {
        let mut h = std::hash::DefaultHasher::new();
        salt.hash(&mut h);
        id.hash(&mut h);
        timestamp.hash(&mut h);
        h.finish()
    };
    (u128::from(digest(1)) << 64) | u128::from(digest(2))
}

/// Strings many calls share (models, providers), held once per file read.
#[derive(Default)]
struct Names(FxHashMap<String, Arc<str>>);

impl Names {
    fn get(&mut self, s: &str) -> Arc<str> {
        if let Some(a) = self.0.get(s) {
            return a.clone();
        }
        let a: Arc<str> = s.into();
        self.0.insert(s.to_owned(), a.clone());
        a
    }
}

/// A paid call as the report needs it.
#[derive(Debug, PartialEq)]
struct CallRecord {
    identity: Option<Identity>,
    /// Milliseconds since the epoch, when the timestamp is a date.
    ms: Option<i64>,
    source: Source,
    provider: Option<Arc<str>>,
    model: Arc<str>,
    totals: Totals,
}

/// A session file read for the report.
struct Read {
    path: PathBuf,
    id: String,
    cwd: Option<Arc<str>>,
    parent: Option<String>,
    calls: Vec<CallRecord>,
}

/// Reads the paid calls of one session file: lean when the file is one [`read_lean`]
/// takes, else loaded whole.
fn read(path: &Path) -> Result<(Read, Option<Warning>), Warning> {
    match read_lean(path) {
        Some(read) => Ok(read),
        None => read_loaded(path),
    }
}

/// [`read`] by loading the session as every command does.
fn read_loaded(path: &Path) -> Result<(Read, Option<Warning>), Warning> {
    let session = Session::open(path).map_err(|e| Warning::NotASession {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })?;
    let damaged = (!session.report.malformed_lines.is_empty()).then(|| Warning::Damaged {
        path: path.to_path_buf(),
        report: session.report.clone(),
        complete: session.is_complete(),
    });
    let mut names = Names::default();
    let calls = (0..session.entries.len())
        .filter_map(|i| {
            let call = call_of(&session, i)?;
            Some(CallRecord {
                identity: session
                    .id_str(i)
                    .zip(call.timestamp.as_deref())
                    .map(|(id, ts)| identity(id, ts)),
                ms: call.timestamp.as_deref().and_then(jsdate::parse_date_ms),
                source: call.source,
                provider: call.provider.as_deref().map(|p| names.get(p)),
                model: names.get(&call.model),
                totals: call.totals,
            })
        })
        .collect();
    let h = &session.header;
    Ok((
        Read {
            path: path.to_path_buf(),
            id: h.id.clone(),
            cwd: h.cwd.as_deref().map(Arc::from),
            parent: h.parent_session.clone(),
            calls,
        },
        damaged,
    ))
}

/// [`read`] of a format-3 file whose first line is its header, parsing only the lines
/// that can record a call: those that hold `usage` (or a `\u` escape of one of its letters,
/// which could spell it in a key). A line is an entry or not whatever the others are (the report counts every
/// entry of the file, on any branch), so the rest need not be read; a damaged line that
/// could hold a call is skipped as Pi skips it, and said. `None`: a file this reader does
/// not take (another format, no header first, unreadable).
fn read_lean(path: &Path) -> Option<(Read, Option<Warning>)> {
    use crate::session::skim::{LineRead, read_line};
    use crate::session::{EntryKind, Role};
    let data = crate::session::io::data::Data::open(path).ok()?;
    let bytes: &[u8] = &data;
    let first_end = memchr::memchr(b'\n', bytes).unwrap_or(bytes.len());
    let LineRead::Object(h) = read_line(&bytes[..first_end]) else {
        return None;
    };
    if h.kind.as_deref() != Some("session") || !h.version.is_some_and(|v| v >= 3.0) {
        return None;
    }
    // The lines that hold `usage` or `\u`, found over the whole file rather than line by
    // line, in file order.
    let body = (first_end + 1).min(bytes.len());
    let mut candidates: Vec<(usize, usize)> = Vec::new();
    // A key can spell a letter of `usage` as `\u0075`, `\u0073`, `\u0061`, `\u0067` or
    // `\u0065`: other `\u00` escapes (control characters in tool output) are passed over.
    let spells_a_letter =
        |hit: usize| matches!(bytes.get(hit + 4..hit + 6), Some(b"75" | b"73" | b"61" | b"67" | b"65"));
    for needle in [&b"usage"[..], &b"\\u00"[..]] {
        let finder = memchr::memmem::Finder::new(needle);
        let mut from = body;
        while let Some(p) = finder.find(&bytes[from..]) {
            let hit = from + p;
            if needle[0] == b'\\' && !spells_a_letter(hit) {
                from = hit + 1;
                continue;
            }
            let start = memchr::memrchr(b'\n', &bytes[..hit]).map_or(0, |n| n + 1);
            let end = memchr::memchr(b'\n', &bytes[hit..]).map_or(bytes.len(), |n| hit + n);
            candidates.push((start, end));
            from = end;
        }
    }
    candidates.sort_unstable();
    candidates.dedup();
    let mut calls = Vec::new();
    let mut names = Names::default();
    let mut malformed = Vec::new();
    let mut torn = false;
    // Line numbers are counted only for the lines reported.
    let (mut counted_to, mut lines_before) = (0, 0u32);
    let mut line_number = |start: usize| {
        lines_before += memchr::memchr_iter(b'\n', &bytes[counted_to..start]).count() as u32;
        counted_to = start;
        lines_before + 1
    };
    for (start, end) in candidates {
        let line = &bytes[start..end];
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        let s = match read_line(line) {
            LineRead::Object(s) => s,
            LineRead::Malformed => {
                malformed.push(line_number(start));
                torn |= end == bytes.len();
                continue;
            }
            LineRead::NotAnObject => continue,
        };
        let kind = EntryKind::parse(s.kind.as_deref());
        let m = s.message.as_ref();
        let role = m.and_then(|m| m.role.as_deref()).map(Role::parse);
        let Some(source) = super::source_of(&kind, role.as_ref()) else {
            continue;
        };
        let known = m.and_then(|m| {
            Some(super::KnownMessage {
                provider: m.provider.as_deref(),
                model: m.model.as_deref(),
                response_model: m.response_model.as_deref(),
                at: m.at.as_ref()?,
            })
        });
        let value = || crate::json::jsparse::parse(line).unwrap_or(serde_json::Value::Null);
        let Some((provider, model, totals)) = super::call_in_line(source, line, known, value) else {
            continue;
        };
        let timestamp = s.timestamp.as_deref();
        calls.push(CallRecord {
            identity: s.id.as_deref().zip(timestamp).map(|(id, ts)| identity(id, ts)),
            ms: timestamp.and_then(jsdate::parse_date_ms),
            source,
            provider: provider.as_deref().map(|p| names.get(p)),
            model: names.get(&model),
            totals,
        });
    }
    let damaged = (!malformed.is_empty()).then(|| Warning::Damaged {
        path: path.to_path_buf(),
        report: LoadReport {
            malformed_lines: malformed,
            torn_last_line: torn,
            ..LoadReport::default()
        },
        complete: true,
    });
    Some((
        Read {
            path: path.to_path_buf(),
            id: h.id.as_deref()?.to_owned(),
            cwd: h.cwd.as_deref().map(Arc::from),
            parent: h.parent_session.as_deref().map(str::to_owned),
            calls,
        },
        damaged,
    ))
}

/// The identities of the calls a file holds (empty when it cannot be read).
fn identities(path: &Path, cache: Option<&Cache>) -> FxHashSet<Identity> {
    let cached = cache.and_then(|c| c.read(&key(path), Stamp::of(path)));
    match cached.map(Ok).unwrap_or_else(|| read(path).map(|(r, _)| r)) {
        Ok(r) => r.calls.into_iter().filter_map(|c| c.identity).collect(),
        Err(_) => FxHashSet::default(),
    }
}

/// A path made absolute and canonical where it can be, for telling files apart.
fn canonical(p: &Path) -> PathBuf {
    std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf())
}

/// The calendar parts of an instant in `zone`: day, week (its Monday) and month.
fn calendar(ms: i64, zone: &jiff::tz::TimeZone) -> Option<jiff::civil::Date> {
    let t = jiff::Timestamp::from_millisecond(ms).ok()?;
    Some(zone.to_datetime(t).date())
}

/// A grouping key's value while calls are added up: cheap to build, hash and order; made
/// into a [`KeyValue`] once per group.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Cheap {
    Day(Option<jiff::civil::Date>),
    /// The week's Monday.
    Week(Option<jiff::civil::Date>),
    /// The month's first day.
    Month(Option<jiff::civil::Date>),
    Session(usize),
    Project(Option<Arc<str>>),
    Model(Arc<str>),
    Provider(Option<Arc<str>>),
    Source(SourceOrder),
}

fn cheap_key(
    key: Key,
    call: &CallRecord,
    date: Option<jiff::civil::Date>,
    session: usize,
    cwd: &Option<Arc<str>>,
) -> Cheap {
    match key {
        Key::Day => Cheap::Day(date),
        Key::Week => Cheap::Week(date.map(|d| {
            let back = i64::from(d.weekday().to_monday_zero_offset());
            d.checked_sub(jiff::Span::new().days(back)).unwrap_or(d)
        })),
        Key::Month => Cheap::Month(date.map(|d| d.first_of_month())),
        Key::Session => Cheap::Session(session),
        Key::Project => Cheap::Project(cwd.clone()),
        Key::Model => Cheap::Model(call.model.clone()),
        Key::Provider => Cheap::Provider(call.provider.clone()),
        Key::Source => Cheap::Source(SourceOrder::of(call.source)),
    }
}

fn key_value(cheap: Cheap) -> KeyValue {
    let text = |t: Option<Arc<str>>| t.map(|t| t.to_string());
    match cheap {
        Cheap::Day(d) => KeyValue::Day(d.map(|d| d.to_string())),
        Cheap::Week(d) => KeyValue::Week(d.map(|d| d.to_string())),
        Cheap::Month(d) => KeyValue::Month(d.map(|d| format!("{:04}-{:02}", d.year(), d.month()))),
        Cheap::Session(n) => KeyValue::Session(n),
        Cheap::Project(p) => KeyValue::Project(text(p)),
        Cheap::Model(m) => KeyValue::Model(m.to_string()),
        Cheap::Provider(p) => KeyValue::Provider(text(p)),
        Cheap::Source(s) => KeyValue::Source(s),
    }
}

/// The report over the session files `paths`. Files are read on every core; `progress`
/// hears of one phase, a step per file.
pub fn report(paths: &[PathBuf], options: &Options, progress: &dyn Progress) -> Report {
    let mut report = Report::default();
    // The headers first, a line each: they give the order sessions are taken in (oldest
    // first: a copy is never older than what it copies; files without a date last, ties by
    // path) and the files that repeat a session. Bodies are then read a batch at a time in
    // that order, so that only a batch of files' calls is held at once.
    //
    // With a cache, a file unchanged since it was recorded is not opened at all.
    let mut cache = options.cache.as_deref().map(Cache::open);
    let indices: Vec<usize> = (0..paths.len()).collect();
    let stamps: Vec<(PathBuf, Option<Stamp>)> = match cache {
        Some(_) => crate::parallel::par_map(paths, |p| (key(p), Stamp::of(p)), || {}),
        None => Vec::new(),
    };
    fn cached<'c>(
        cache: Option<&'c Cache>,
        stamps: &'c [(PathBuf, Option<Stamp>)],
        i: usize,
    ) -> Option<(&'c Cache, &'c Path, Option<Stamp>)> {
        let (key, stamp) = stamps.get(i)?;
        Some((cache?, key.as_path(), *stamp))
    }
    let headers = crate::parallel::par_map(
        &indices,
        |&i| {
            cached(cache.as_ref(), &stamps, i)
                .and_then(|(c, key, stamp)| c.header(key, stamp))
                .or_else(|| crate::session::io::locate::read_header(&paths[i]))
        },
        || {},
    );
    let created = |i: usize| {
        headers[i]
            .as_ref()
            .and_then(|h| h.timestamp.as_deref())
            .and_then(jsdate::parse_date_ms)
    };
    let mut ordered: Vec<usize> = (0..paths.len()).collect();
    ordered.sort_by(|&a, &b| {
        (created(a).is_none(), created(a), &paths[a]).cmp(&(created(b).is_none(), created(b), &paths[b]))
    });
    // One file per session id.
    let mut by_id: FxHashMap<&str, &PathBuf> = FxHashMap::default();
    ordered.retain(|&i| {
        let Some(h) = &headers[i] else { return true };
        match by_id.get(h.id.as_str()) {
            Some(kept) => {
                report.warnings.push(Warning::SameSession {
                    id: h.id.clone(),
                    kept: (*kept).clone(),
                    dropped: paths[i].clone(),
                });
                false
            }
            None => {
                by_id.insert(&h.id, &paths[i]);
                true
            }
        }
    });
    let reported: FxHashSet<PathBuf> = ordered.iter().map(|&i| canonical(&paths[i])).collect();

    let mut seen: FxHashSet<Identity> = FxHashSet::default();
    let mut parents: FxHashMap<PathBuf, FxHashSet<Identity>> = FxHashMap::default();
    let mut groups: FxHashMap<Vec<Cheap>, (Totals, u64)> = FxHashMap::default();
    let mut order: Vec<Vec<Cheap>> = Vec::new();
    const BATCH: usize = 64;
    progress.start("sessions", Some(ordered.len() as u64));
    for batch in ordered.chunks(BATCH) {
        let results = crate::parallel::par_map(
            batch,
            |&i| match cached(cache.as_ref(), &stamps, i).and_then(|(c, key, stamp)| c.read(key, stamp)) {
                Some(r) => (
                    Ok((
                        Read {
                            path: paths[i].clone(),
                            ..r
                        },
                        None,
                    )),
                    true,
                ),
                None => (read(&paths[i]), false),
            },
            || progress.advance(1),
        );
        for (&i, (result, from_cache)) in batch.iter().zip(results) {
            let r = match result {
                Ok((r, damaged)) => {
                    // Only what was read cleanly is kept: a damaged file is read (and
                    // said) every time.
                    match (&mut cache, from_cache, &damaged, &headers[i], stamps.get(i)) {
                        (_, true, ..) => report.cached += 1,
                        (Some(c), false, None, Some(header), Some((key, Some(stamp)))) => {
                            c.record(key, *stamp, header, &r)
                        }
                        _ => {}
                    }
                    report.warnings.extend(damaged);
                    r
                }
                Err(w) => {
                    report.warnings.push(w);
                    continue;
                }
            };
            let n = report.sessions.len();
            // Calls copied from a parent outside the report were paid for there.
            let mut missing_parent = None;
            let copies_before = report.copies;
            let empty = FxHashSet::default();
            let outside = match &r.parent {
                Some(parent) if !parent.is_empty() => {
                    let p = Path::new(parent);
                    let key = canonical(p);
                    if reported.contains(&key) {
                        &empty
                    } else if p.is_file() {
                        // Forks of one parent read it once.
                        parents.entry(key).or_insert_with(|| identities(p, cache.as_ref()))
                    } else {
                        // Said below, unless copies of its calls turn up in the report anyway.
                        missing_parent = Some(parent.clone());
                        &empty
                    }
                }
                _ => &empty,
            };
            for call in &r.calls {
                if let Some(identity) = &call.identity
                    && (outside.contains(identity) || !seen.insert(*identity))
                {
                    report.copies += 1;
                    continue;
                }
                let in_range = match (options.since_ms, options.until_ms) {
                    (None, None) => true,
                    (since, until) => call
                        .ms
                        .is_some_and(|ms| since.is_none_or(|s| ms >= s) && until.is_none_or(|u| ms <= u)),
                };
                if !in_range {
                    continue;
                }
                let date = call.ms.and_then(|ms| calendar(ms, &options.zone));
                let keys: Vec<Cheap> = options
                    .by
                    .iter()
                    .map(|&k| cheap_key(k, call, date, n, &r.cwd))
                    .collect();
                report.total.add_totals(&call.totals);
                report.calls += 1;
                let slot = groups.entry(keys).or_insert_with_key(|k| {
                    order.push(k.clone());
                    (Totals::default(), 0)
                });
                slot.0.add_totals(&call.totals);
                slot.1 += 1;
            }
            if let Some(parent) = missing_parent.filter(|_| report.copies == copies_before) {
                report.warnings.push(Warning::ParentMissing {
                    path: r.path.clone(),
                    parent,
                });
            }
            report.sessions.push(SessionSeen {
                path: r.path,
                id: r.id,
                cwd: r.cwd.map(|c| c.to_string()),
            });
        }
    }
    progress.finish();
    if let Some(c) = cache {
        c.save();
    }
    order.sort();
    report.groups = order
        .into_iter()
        .map(|keys| {
            let (totals, calls) = groups.remove(&keys).expect("every group key was recorded");
            let keys = keys.into_iter().map(key_value).collect();
            Group { keys, totals, calls }
        })
        .collect();
    report
}

/// The counters of a record, after its keys: `input`, `output`, `cacheRead`, `cacheWrite`,
/// `totalTokens`, `cost` (the total) and `calls`, numbers as JavaScript prints them.
fn serialize_counters<M: serde::ser::SerializeMap>(map: &mut M, t: &Totals, calls: u64) -> Result<(), M::Error> {
    use crate::json::jsjson::number;
    for (column, n) in super::TOKEN_COLUMNS.iter().zip(t.tokens()) {
        map.serialize_entry(column, &number(n))?;
    }
    map.serialize_entry(super::COST, &number(t.cost.total))?;
    map.serialize_entry("calls", &calls)
}

/// `usage --json`'s record of a group: each key in the order of [`Options::by`] (`day` and
/// `week` as `YYYY-MM-DD`, `month` as `YYYY-MM`, `session` as the session id followed by its
/// `path`, `project` as the cwd, `model`, `provider`, `source`), then the counters.
pub struct GroupRecord<'a> {
    pub by: &'a [Key],
    pub group: &'a Group,
    pub sessions: &'a [SessionSeen],
}

impl serde::Serialize for GroupRecord<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(None)?;
        for (key, value) in self.by.iter().zip(&self.group.keys) {
            match value {
                KeyValue::Day(v)
                | KeyValue::Week(v)
                | KeyValue::Month(v)
                | KeyValue::Project(v)
                | KeyValue::Provider(v) => map.serialize_entry(key.name(), v)?,
                KeyValue::Model(m) => map.serialize_entry("model", m)?,
                KeyValue::Source(o) => map.serialize_entry("source", o.source().name())?,
                KeyValue::Session(i) => {
                    let session = &self.sessions[*i];
                    map.serialize_entry("session", &session.id)?;
                    map.serialize_entry("path", &session.path.to_string_lossy())?;
                }
            }
        }
        serialize_counters(&mut map, &self.group.totals, self.group.calls)?;
        map.end()
    }
}

/// `usage --json`'s last record: `{"total": true, …counters}`.
pub struct TotalRecord<'a> {
    pub report: &'a Report,
}

impl serde::Serialize for TotalRecord<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut map = s.serialize_map(None)?;
        map.serialize_entry("total", &true)?;
        serialize_counters(&mut map, &self.report.total, self.report.calls)?;
        map.end()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The lean reading of a file and the reading of the loaded session give the same calls.
    fn same_calls(path: &Path) {
        let (lean, _) = read_lean(path).expect("a file the lean reader takes");
        let (loaded, _) = read_loaded(path).unwrap_or_else(|_| panic!("{} loads", path.display()));
        assert_eq!(lean.calls, loaded.calls, "{}", path.display());
        assert_eq!((lean.id, lean.cwd, lean.parent), (loaded.id, loaded.cwd, loaded.parent));
    }

    #[test]
    fn the_lean_reading_finds_the_calls_loading_finds() {
        let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
        let mut files = 0;
        for entry in std::fs::read_dir(&corpus).unwrap() {
            let path = entry.unwrap().path();
            if path.to_string_lossy().ends_with(".v3.jsonl") {
                same_calls(&path);
                files += 1;
            }
        }
        assert!(files >= 3);

        let dir = tempfile::tempdir().unwrap();
        let u = r#"{"input":3,"output":1,"cost":{"total":0.1}}"#;
        let lines = [
            r#"{"type":"session","version":3,"id":"s","timestamp":"2026-11-01T00:00:00.000Z","cwd":"/p"}"#.to_owned(),
            format!(
                r#"{{"type":"message","id":"a","parentId":null,"timestamp":"2026-11-01T00:00:01.000Z","message":{{"role":"assistant","content":[],"provider":"p","model":"m","usage":{u}}}}}"#
            ),
            // Keys written twice: the last counts.
            format!(
                r#"{{"type":"message","id":"b","timestamp":"t","message":{{"role":"assistant","usage":{u},"model":"x","usage":{{"input":7}}}},"id":"b2"}}"#
            ),
            // A key spelled with an escape.
            format!(
                r#"{{"type":"usage","id":"c","timestamp":"2026-11-01T00:00:02.000Z","provider":"p","model":"m","usage":{u}}}"#
            ),
            format!(
                r#"{{"type":"usage","id":"c2","timestamp":"2026-11-01T00:00:02.000Z","us\u0061ge":{u},"text":"\u001b[0m"}}"#
            ),
            // The word in a text, no usage recorded; a usage that is not an object.
            r#"{"type":"message","id":"d","message":{"role":"assistant","content":[{"type":"text","text":"usage"}]}}"#
                .to_owned(),
            r#"{"type":"compaction","id":"e","summary":"s","usage":[1]}"#.to_owned(),
            format!(
                r#"{{"type":"branch_summary","id":"f","timestamp":"2026-11-01T00:00:03.000Z","summary":"s","model":"g","provider":"q","usage":{u}}}"#
            ),
            // Damaged, and a message that is not an object.
            r#"{"type":"message","id":"g","message":{"role":"assistant","usage":{"input":1"#.to_owned(),
            r#"{"type":"message","id":"h","message":"usage"}"#.to_owned(),
            // A later header, which is no entry, and a CRLF line.
            format!(r#"{{"type":"session","id":"s2","usage":{u}}}"#),
            format!("{{\"type\":\"usage\",\"id\":\"i\",\"model\":\"m\",\"usage\":{u}}}\r"),
            // Other roles and types with usage.
            format!(r#"{{"type":"message","id":"j","message":{{"role":"user","usage":{u}}}}}"#),
            format!(r#"{{"type":"custom","id":"k","usage":{u}}}"#),
            format!(r#" {{ "type" : "usage" , "id" : "l" , "usage" : {u} }} "#),
        ];
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let path = dir.path().join("odd.jsonl");
        std::fs::write(&path, &text).unwrap();
        same_calls(&path);
        let (lean, damaged) = read_lean(&path).unwrap();
        assert_eq!(lean.calls.len(), 7);
        assert!(matches!(damaged, Some(Warning::Damaged { ref report, .. }) if report.malformed_lines == [9]));
        // Invalid UTF-8 in a call's line, and a torn last line.
        let mut bytes = text.into_bytes();
        let at = bytes.windows(3).position(|w| w == b"\"m\"").unwrap() + 1;
        bytes[at] = 0xff;
        bytes.extend_from_slice(br#"{"type":"usage","id":"z","usage":{"inp"#);
        std::fs::write(&path, &bytes).unwrap();
        same_calls(&path);
        let (_, damaged) = read_lean(&path).unwrap();
        assert!(matches!(damaged, Some(Warning::Damaged { ref report, .. }) if report.torn_last_line));
        // Files of other formats are left to the loader.
        std::fs::write(&path, "{\"type\":\"session\",\"version\":2,\"id\":\"s\"}\n").unwrap();
        assert!(read_lean(&path).is_none());
    }
}
