//! Pi 1.6.0's session listing (`SessionManager.list` / `listAll`, what `/resume` shows):
//! [`build_session_info`] reads one file as Pi's `buildSessionInfo` does, [`list`] reads the
//! candidate files of [`Locations`] in parallel and sorts them as Pi's `sortSessionInfos`.
//! [`SessionRecord`] is a listed session as a JSON record (`ls --json`).
//!
//! Each line is read once, through the entry view ([`crate::json::view`]): the rule of
//! what a line tells the listing is written against [`Obj`]/[`Val`], whether the view
//! answers from the line's bytes or from the parsed value.

use crate::json::jsdate::{date_value_ms, parse_date_ms};
use crate::json::scan::{Bail, Scan as Walk};
use crate::json::view::{Kind, Obj, Tape, Val, js_string};
use crate::json::{jsparse, jsstr};
use crate::progress::Progress;
use crate::session::io::locate::Locations;
use serde::Serialize;
use serde_json::Value;
use std::borrow::Cow;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

/// Pi's `firstMessage` for a session without a user message that has text.
pub const NO_MESSAGES: &str = "(no messages)";

/// What Pi's `buildSessionInfo` finds in a session file.
#[derive(Debug, Clone)]
pub struct SessionInfo {
    pub path: PathBuf,
    /// The header's `id` (`String(id)` when it is not a string; `None` when null or missing).
    pub id: Option<String>,
    /// The latest `session_info` name, trimmed; an empty or missing name clears it.
    pub name: Option<String>,
    /// The text of the first user message that has text.
    pub first_message: Option<String>,
    /// Every `message` entry.
    pub message_count: u64,
    /// `new Date(header.timestamp)` in ms; `None` for an invalid date.
    pub created: Option<i64>,
    /// Last activity, else the header time, else the file's mtime; `None` for an invalid date.
    pub modified: Option<i64>,
    /// The header's `cwd`, or empty.
    pub cwd: String,
    pub parent_session: Option<String>,
    /// The file's modification time in ms, for Pi's pre-sort of `--all`.
    pub mtime: Option<f64>,
}

/// Why a file is left out: Pi's `buildSessionInfo` returns null for it.
struct NotASession;

/// ECMAScript TimeClip: `new Date(ms)` keeps whole milliseconds within ±8.64e15.
fn time_clip(ms: f64) -> Option<i64> {
    (ms.is_finite() && ms.abs() <= 8.64e15).then(|| ms.trunc() as i64)
}

/// `Date.prototype.toISOString` (years outside 0–9999 as ±YYYYYY).
pub fn iso_ms(ms: i64) -> String {
    let days = ms.div_euclid(86_400_000);
    let rem = ms.rem_euclid(86_400_000);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    let year = if (0..=9999).contains(&year) {
        format!("{year:04}")
    } else if year < 0 {
        format!("-{:06}", -year)
    } else {
        format!("+{year:06}")
    };
    format!(
        "{year}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{:03}Z",
        rem / 3_600_000,
        rem / 60_000 % 60,
        rem / 1000 % 60,
        rem % 1000
    )
}

/// `new Date(value)` in ms ([`date_value_ms`]); a string, the usual timestamp, is read
/// without building its value.
fn date_ms(v: Option<Val<'_, '_>>) -> Walk<Option<i64>> {
    match v {
        None => Ok(None),
        Some(v) if v.kind() == Kind::Str => Ok(v.str()?.as_deref().and_then(parse_date_ms)),
        Some(v) => Ok(date_value_ms(Some(&*v.to_value()?))),
    }
}

/// Pi's `extractTextContent` of a message's `content`: a string as it is, else the `text`
/// of each `text` block, joined by spaces. `None` where it throws (a `null` block, content
/// that is neither a string nor an array). Without `need_text` only whether it throws is
/// found, and the text reads as empty.
fn text_of(content: Val<'_, '_>, need_text: bool) -> Walk<Option<String>> {
    match content.kind() {
        Kind::Str if need_text => Ok(Some(content.str()?.unwrap_or_default().into_owned())),
        Kind::Str => Ok(Some(String::new())),
        Kind::Arr => {
            let mut parts = Vec::new();
            for block in content.arr().unwrap_or_default() {
                if block.is_null() {
                    return Ok(None); // `block.type` throws
                }
                let Some(block) = block.obj() else { continue };
                if need_text && block.str("type")?.as_deref() == Some("text") {
                    parts.push(block.get("text")?.map_or(Ok(String::new()), js_string)?);
                }
            }
            Ok(Some(parts.join(" ")))
        }
        _ => Ok(None),
    }
}

/// What the listing takes from the header line.
struct Header {
    id: Option<String>,
    cwd: Option<String>,
    parent_session: Option<String>,
    /// `timestamp` when it is a string, as a date.
    time: Option<i64>,
    /// `new Date(timestamp)`.
    created: Option<i64>,
}

/// The header line's fields; `None` when it is not a `session` line.
fn header(o: Obj<'_, '_>) -> Walk<Option<Header>> {
    if o.str("type")?.as_deref() != Some("session") {
        return Ok(None);
    }
    let string = |key: &str| Ok::<_, Bail>(o.str(key)?.map(Cow::into_owned));
    let timestamp = o.get("timestamp")?;
    let created = date_ms(timestamp)?;
    Ok(Some(Header {
        // Pi lists a header whatever its `id` is (`12345`): kept as `String(id)`.
        id: match o.get("id")? {
            Some(v) if !v.is_null() => Some(js_string(v)?),
            _ => None,
        },
        cwd: string("cwd")?,
        parent_session: string("parentSession")?,
        time: created.filter(|_| timestamp.is_some_and(|t| t.kind() == Kind::Str)),
        created,
    }))
}

/// What an entry line after the header changes in the listing.
enum Entry {
    /// A `session_info` entry: `entry.name?.trim() || undefined`.
    Name(Option<String>),
    /// A `message` entry, with what a user or assistant message with content tells.
    Message(Option<Said>),
    /// Pi throws on this entry, and gives up on the file.
    Throws,
    Other,
}

/// A user or assistant message with content.
struct Said {
    is_user: bool,
    /// `getMessageActivityTime`.
    activity: Option<f64>,
    /// Its text (read only when asked for; empty otherwise).
    text: String,
}

/// Pi's `buildSessionInfo` on one entry; `need_text`: whether a first user message is still
/// wanted (else no text is decoded).
fn entry(o: Obj<'_, '_>, need_text: bool) -> Walk<Entry> {
    match o.str("type")?.as_deref() {
        Some("session_info") => Ok(match o.get("name")? {
            None => Entry::Name(None),
            Some(n) if n.is_null() => Entry::Name(None),
            Some(n) => match n.str()? {
                Some(n) => Entry::Name(Some(jsstr::trim(&n)).filter(|n| !n.is_empty()).map(str::to_owned)),
                None => Entry::Throws, // `name.trim` is not a function
            },
        }),
        Some("message") => message(o, need_text),
        _ => Ok(Entry::Other),
    }
}

fn message(o: Obj<'_, '_>, need_text: bool) -> Walk<Entry> {
    let m = match o.get("message")? {
        // `message.role` throws on a missing or null message; other values have no role.
        None => return Ok(Entry::Throws),
        Some(m) if m.is_null() => return Ok(Entry::Throws),
        Some(m) => m.obj(),
    };
    let Some(m) = m else {
        return Ok(Entry::Message(None));
    };
    let is_user = match m.str("role")?.as_deref() {
        Some("user") => true,
        Some("assistant") => false,
        _ => return Ok(Entry::Message(None)),
    };
    let Some(content) = m.get("content")? else {
        return Ok(Entry::Message(None)); // not a message "with content"
    };
    // getMessageActivityTime: a numeric message timestamp, else the entry's.
    let activity = match m.get("timestamp")?.filter(|t| t.kind() == Kind::Num) {
        Some(t) => t.num()?,
        None => date_ms(o.get("timestamp")?)?.map(|ms| ms as f64),
    };
    Ok(match text_of(content, need_text && is_user)? {
        Some(text) => Entry::Message(Some(Said {
            is_user,
            activity,
            text,
        })),
        None => Entry::Throws,
    })
}

/// A line as `JSON.parse` takes it.
enum Line<T> {
    /// An object, read.
    Object(T),
    /// Valid JSON that is not an object.
    Other(Value),
    Malformed,
}

/// Reads `line` through the entry view with `f`. A line is not known to be JSON here: the
/// validating walker checks it first, and what it declines the exact parser decides (and
/// the view then reads from the value where its bytes backend declines).
fn read_line<'a, T>(line: &'a [u8], f: impl for<'v> Fn(Obj<'a, 'v>) -> Walk<T>) -> Line<T> {
    if let Some(tape) = checked_tape(line)
        && let Ok(t) = f(tape.root())
    {
        return Line::Object(t);
    }
    match jsparse::parse(line) {
        Ok(v) => match Obj::of_value(&v) {
            Some(o) => f(o).map_or(Line::Malformed, Line::Object),
            None => Line::Other(v),
        },
        Err(_) => Line::Malformed,
    }
}

/// The tape of a line that is a JSON object, checked as `JSON.parse` checks it; `None`
/// when the walker declines it.
fn checked_tape(line: &[u8]) -> Option<Tape<'_>> {
    Tape::of_checked_line(line).ok()
}

/// The running state of Pi's `buildSessionInfo` over one file.
#[derive(Default)]
struct Reading {
    header: Option<Header>,
    name: Option<String>,
    first_message: Option<String>,
    message_count: u64,
    last_activity: Option<f64>,
}

impl Reading {
    /// One line (as Node's readline splits them). `Err` where Pi gives up on the file.
    fn feed(&mut self, line: &[u8]) -> Result<(), NotASession> {
        if self.header.is_none() {
            return match read_line(line, header) {
                Line::Object(Some(h)) => {
                    self.header = Some(h);
                    Ok(())
                }
                Line::Object(None) => Err(NotASession),
                // `if (!entry) continue;` skips falsy values; anything else before the
                // header is not a `session` line.
                Line::Other(v) if truthy(&v) => Err(NotASession),
                Line::Other(_) | Line::Malformed => Ok(()),
            };
        }
        let need_text = self.first_message.is_none();
        let Line::Object(entry) = read_line(line, |o| entry(o, need_text)) else {
            return Ok(());
        };
        match entry {
            Entry::Name(name) => self.name = name,
            Entry::Message(said) => {
                self.message_count += 1;
                if let Some(said) = said {
                    if let Some(a) = said.activity {
                        self.last_activity = Some(self.last_activity.unwrap_or(0.0).max(a));
                    }
                    if said.is_user && need_text && !said.text.is_empty() {
                        self.first_message = Some(said.text);
                    }
                }
            }
            Entry::Throws => return Err(NotASession),
            Entry::Other => {}
        }
        Ok(())
    }
}

/// Whether JavaScript holds a parsed value true (the parser keeps `±1e400` as `null`).
fn truthy(v: &Value) -> bool {
    match v {
        Value::Null => false,
        Value::Bool(b) => *b,
        Value::Number(n) => n.as_f64() != Some(0.0),
        Value::String(s) => !s.is_empty(),
        Value::Array(_) | Value::Object(_) => true,
    }
}

/// Node's `stats.mtimeMs`: milliseconds since the epoch, with a fraction.
fn mtime_ms(meta: &fs::Metadata) -> Option<f64> {
    let ms = |d: std::time::Duration| d.as_secs() as f64 * 1000.0 + f64::from(d.subsec_nanos()) / 1e6;
    let m = meta.modified().ok()?;
    Some(match m.duration_since(UNIX_EPOCH) {
        Ok(d) => ms(d),
        Err(e) => -ms(e.duration()),
    })
}

/// Pi 1.6.0's `buildSessionInfo`: reads the file once, line by line. `None` for a file that
/// is not a Pi session, or that Pi fails on.
pub fn build_session_info(path: &Path) -> Option<SessionInfo> {
    read_session_info(path).ok().flatten()
}

/// [`build_session_info`], telling a file that could not be read (`Err`: it may be
/// readable next time) from one that is not a session (`Ok(None)`).
fn read_session_info(path: &Path) -> std::io::Result<Option<SessionInfo>> {
    // Never opens a FIFO (the open would block) or a device (it never ends).
    let file = crate::session::io::data::open_regular(path)?;
    let meta = file.metadata()?;
    let mtime = mtime_ms(&meta);
    // Small files are read into a buffer each thread reuses; large ones are mapped.
    thread_local! {
        static BUFFER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
    }
    const READ_UP_TO: u64 = 8 << 20;
    let mapped;
    let mut buffer = BUFFER.with(|b| std::mem::take(&mut *b.borrow_mut()));
    let data: &[u8] = if meta.len() <= READ_UP_TO {
        buffer.clear();
        if let Err(e) = std::io::Read::read_to_end(&mut &file, &mut buffer) {
            BUFFER.with(|b| *b.borrow_mut() = buffer);
            return Err(e);
        }
        &buffer
    } else {
        mapped = crate::session::io::data::Data::map_file(&file)?;
        &mapped
    };
    let mut reading = Reading::default();
    let read = read_lines(&mut reading, data);
    BUFFER.with(|b| *b.borrow_mut() = buffer);
    Ok(read.and_then(|()| info_of(path, reading, mtime)))
}

/// Feeds every line of `data` to `reading`, as Node's readline splits them: a line ends at
/// `\n`, `\r\n` or a lone `\r`, so the lines are the non-empty pieces between any `\n` or
/// `\r` (empty lines are skipped anyway). One pass looks for both bytes.
fn read_lines(reading: &mut Reading, data: &[u8]) -> Option<()> {
    let mut from = 0;
    for end in memchr::memchr2_iter(b'\n', b'\r', data).chain(std::iter::once(data.len())) {
        if end > from {
            reading.feed(&data[from..end]).ok()?;
        }
        from = end + 1;
    }
    Some(())
}

fn info_of(path: &Path, reading: Reading, mtime: Option<f64>) -> Option<SessionInfo> {
    let header = reading.header?;
    let modified = match reading.last_activity {
        Some(last) if last > 0.0 => time_clip(last),
        // `stats.mtime`: Node rounds mtimeMs to a whole millisecond.
        _ => header.time.or_else(|| mtime.and_then(|m| time_clip(m.round()))),
    };
    Some(SessionInfo {
        path: path.to_path_buf(),
        id: header.id,
        name: reading.name,
        first_message: reading.first_message,
        message_count: reading.message_count,
        created: header.created,
        modified,
        cwd: header.cwd.unwrap_or_default(),
        parent_session: header.parent_session,
        mtime,
    })
}

/// `*.jsonl` names in a folder (Pi's `file.endsWith(".jsonl")`), sorted by name, descending.
/// Every name counts: a file that is not a regular file is skipped (and counted) when read.
fn jsonl_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(read) = fs::read_dir(dir) else {
        return Vec::new();
    };
    // Each name once, not parsed out of its path at every comparison.
    let mut files: Vec<(std::ffi::OsString, PathBuf)> = read
        .filter_map(Result::ok)
        .map(|e| (e.file_name(), e.path()))
        .filter(|(name, _)| name.to_string_lossy().ends_with(".jsonl"))
        .collect();
    files.sort_by(|a, b| b.0.cmp(&a.0));
    files.into_iter().map(|(_, path)| path).collect()
}

/// The paths of the working directory's sessions, newest first, or with `all` of every
/// project's, as [`list`] lists them (with the listing's `cache`); with `archived`, the
/// archive's after them (see [`Locations::archive`]).
pub fn session_paths(loc: &Locations, options: &ListOptions) -> Vec<PathBuf> {
    if !options.all {
        let mut paths: Vec<PathBuf> = loc.sessions_here().into_iter().map(|(p, _)| p).collect();
        if options.archived {
            paths.extend(loc.archive().sessions_here().into_iter().map(|(p, _)| p));
        }
        return paths;
    }
    let found = list(loc, options, &crate::progress::Silent);
    found.sessions.into_iter().map(|s| s.path).collect()
}

/// What to list.
#[derive(Debug, Clone, Default)]
pub struct ListOptions {
    /// Every project's sessions (Pi's `listAll`), not only the working directory's (`list`).
    pub all: bool,
    /// Also the archive's sessions ([`Locations::archive`]), listed among the others.
    pub archived: bool,
    /// The file that keeps what was read from each session file between runs (see
    /// [`crate::file_cache`]); `None` reads every file.
    pub cache: Option<PathBuf>,
}

/// The listed sessions, newest activity first, and how many candidate files were left out
/// because they are not Pi sessions (or not regular files).
#[derive(Debug, Clone, Default)]
pub struct Listing {
    pub sessions: Vec<SessionInfo>,
    pub skipped: usize,
}

/// The files to read, in the order Pi reads them; the header cwd to keep (if any); whether
/// Pi pre-sorts by mtime (`listAll` over per-project folders).
fn candidates(loc: &Locations, all: bool, archived: bool) -> (Vec<PathBuf>, Option<PathBuf>, bool) {
    if archived {
        let (mut files, filter_cwd, by_mtime) = candidates(loc, all, false);
        files.extend(candidates(&loc.archive(), all, false).0);
        return (files, filter_cwd, by_mtime);
    }
    if !all {
        let dir = loc.here();
        return (jsonl_files(&dir.path), dir.filter_cwd, false);
    }
    // listAll(sessionDir) reads the one folder; without one, every project folder.
    let files = loc.folders().iter().flat_map(|d| jsonl_files(d)).collect();
    (files, None, loc.custom_dir.is_none())
}

/// Sessions as Pi's `SessionManager.list` (or `listAll` with [`ListOptions::all`]) returns
/// them. `progress` hears of one phase, a step per file read (from several threads).
pub fn list(loc: &Locations, options: &ListOptions, progress: &dyn Progress) -> Listing {
    let (files, filter_cwd, by_mtime) = candidates(loc, options.all, options.archived);
    // With a cache, a file unchanged since it was recorded is not opened at all.
    let mut cache = options.cache.as_deref().map(cached::open);
    progress.start("sessions", Some(files.len() as u64));
    let reads = crate::parallel::par_map(&files, |p| cached::read(cache.as_ref(), p), || progress.advance(1));
    progress.finish();
    if let Some(mut c) = cache.take() {
        for (info, fresh) in &reads {
            if let Some((key, stamp)) = fresh {
                cached::record(&mut c, key, *stamp, info.as_ref());
            }
        }
        c.save();
    }
    let skipped = reads.iter().filter(|(i, _)| i.is_none()).count();
    let mut sessions: Vec<SessionInfo> = reads
        .into_iter()
        .filter_map(|(info, _)| info)
        .filter(|s| match &filter_cwd {
            Some(cwd) => !s.cwd.is_empty() && Path::new(&s.cwd) == cwd,
            None => true,
        })
        .collect();
    if by_mtime {
        sort_by_mtime(&mut sessions);
    }
    sort_sessions(&mut sessions);
    Listing { sessions, skipped }
}

/// The listing's records in the [`crate::file_cache`]: what [`build_session_info`] gave for
/// a version of a file, "not a session" included (a file that could not be read is not
/// recorded).
mod cached {
    use super::{SessionInfo, read_session_info};
    use crate::file_cache::{self, FileCache, Reader, Stamp, Writer};
    use std::path::{Path, PathBuf};

    const MAGIC: &[u8] = b"pi-session listing cache 1\n";
    /// A record holds only what this build read, which the cache's build stamp covers.
    const PROBE: u128 = 1;

    pub(super) fn open(file: &Path) -> FileCache {
        FileCache::open(file, MAGIC, PROBE)
    }

    /// What [`build_session_info`](super::build_session_info) gives for `path`, from the
    /// cache when it has this version of the file; and, when it was read from the file, the
    /// key and stamp to record it under.
    pub(super) fn read(cache: Option<&FileCache>, path: &Path) -> (Option<SessionInfo>, Option<(PathBuf, Stamp)>) {
        let Some(cache) = cache else {
            return (super::build_session_info(path), None);
        };
        let key = file_cache::key(path);
        let stamp = Stamp::of(path);
        if let Some(info) = cache.get(&key, stamp).and_then(|mut r| info(&mut r, path)) {
            return (info, None);
        }
        match read_session_info(path) {
            Ok(info) => (info, stamp.map(|s| (key, s))),
            Err(_) => (None, None),
        }
    }

    pub(super) fn record(cache: &mut FileCache, key: &Path, stamp: Stamp, info: Option<&SessionInfo>) {
        cache.record(key, stamp, |w| write(w, info));
    }

    fn write(w: &mut Writer, info: Option<&SessionInfo>) {
        let Some(s) = info else {
            w.u8(0);
            return;
        };
        w.u8(1);
        w.opt(s.id.as_deref());
        w.opt(s.name.as_deref());
        w.opt(s.first_message.as_deref());
        w.u64(s.message_count);
        for ms in [s.created, s.modified] {
            w.u8(u8::from(ms.is_some()));
            w.i64(ms.unwrap_or(0));
        }
        w.str(&s.cwd);
        w.opt(s.parent_session.as_deref());
        w.u8(u8::from(s.mtime.is_some()));
        w.f64(s.mtime.unwrap_or(0.0));
    }

    /// A record as [`write`] wrote it (`Some(None)`: not a session); `None` when malformed.
    fn info(r: &mut Reader, path: &Path) -> Option<Option<SessionInfo>> {
        let owned = |s: Option<&str>| s.map(str::to_owned);
        fn flag(r: &mut Reader) -> Option<bool> {
            match r.u8()? {
                0 => Some(false),
                1 => Some(true),
                _ => None,
            }
        }
        // A number that may be absent: its flag, then the number (0 when absent).
        fn some<'a, T>(r: &mut Reader<'a>, value: fn(&mut Reader<'a>) -> Option<T>) -> Option<Option<T>> {
            let set = flag(r)?;
            let v = value(r)?;
            Some(set.then_some(v))
        }
        let info = if flag(r)? {
            Some(SessionInfo {
                path: path.to_path_buf(),
                id: owned(r.opt()?),
                name: owned(r.opt()?),
                first_message: owned(r.opt()?),
                message_count: r.u64()?,
                created: some(r, Reader::i64)?,
                modified: some(r, Reader::i64)?,
                cwd: r.str()?.to_owned(),
                parent_session: owned(r.opt()?),
                mtime: some(r, Reader::f64)?,
            })
        } else {
            None
        };
        r.done().then_some(info)
    }
}

/// `listAll`'s candidate order: newest mtime first, then by file name descending.
fn sort_by_mtime(sessions: &mut [SessionInfo]) {
    sessions.sort_by(|a, b| {
        let ma = a.mtime.unwrap_or(f64::NEG_INFINITY);
        let mb = b.mtime.unwrap_or(f64::NEG_INFINITY);
        mb.total_cmp(&ma)
            .then_with(|| b.path.file_name().cmp(&a.path.file_name()))
    });
}

/// Pi's `sortSessionInfos` (stable): `modified`, descending. An invalid date compares as NaN
/// in JavaScript, which orders nothing; those sessions go last.
pub fn sort_sessions(sessions: &mut [SessionInfo]) {
    sessions.sort_by(|a, b| match (a.modified, b.modified) {
        (Some(x), Some(y)) => y.cmp(&x),
        (Some(_), None) => std::cmp::Ordering::Less,
        (None, Some(_)) => std::cmp::Ordering::Greater,
        (None, None) => std::cmp::Ordering::Equal,
    });
}

/// One listed session as a JSON record (`ls --json`, one per line). Dates are ISO 8601
/// (`Date.prototype.toISOString`) or `null` for an invalid date.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionRecord<'a> {
    /// The session file.
    pub path: Cow<'a, str>,
    /// The header's `id`.
    pub id: Option<&'a str>,
    /// The latest `session_info` name.
    pub name: Option<&'a str>,
    /// The text of the first user message, else Pi's "(no messages)".
    pub first_message: Option<&'a str>,
    /// Every `message` entry.
    pub message_count: u64,
    /// The header's `timestamp`.
    pub created: Option<String>,
    /// Last activity.
    pub modified: Option<String>,
    /// The header's `cwd`.
    pub cwd: &'a str,
    /// The header's `parentSession`.
    pub parent_session: Option<&'a str>,
    /// Whether this is the session commands use here without `-s`.
    pub current: bool,
    /// Whether it is in the archive (written only when it is).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub archived: bool,
    /// Its depth in the tree of sessions ([`family_tree`]; written only when set).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depth: Option<usize>,
}

impl SessionInfo {
    /// This session as a JSON record; `current` marks the default session.
    pub fn record(&self, current: bool) -> SessionRecord<'_> {
        SessionRecord {
            path: self.path.to_string_lossy(),
            id: self.id.as_deref(),
            name: self.name.as_deref(),
            first_message: Some(self.first_message.as_deref().unwrap_or(NO_MESSAGES)),
            message_count: self.message_count,
            created: self.created.map(iso_ms),
            modified: self.modified.map(iso_ms),
            cwd: &self.cwd,
            parent_session: self.parent_session.as_deref(),
            current,
            archived: false,
            depth: None,
        }
    }
}

/// A listed session's place in the tree of sessions ([`family_tree`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TreeRow {
    /// Its index in the listing.
    pub index: usize,
    /// 0 for a root, else one more than its parent's.
    pub depth: usize,
    /// For each level from 1 to `depth`: whether a later sibling follows at that level (the
    /// last one is this session's own), which is what a drawing needs to draw `│`, `├─`, `└─`.
    pub more: Vec<bool>,
}

/// The listed sessions as a tree by their header's `parentSession` (clones, forks,
/// subagents), in the order to draw it: each root in the listing's order, then its children
/// under it, in the listing's order too. A session is a child of the listed session whose
/// file its `parentSession` names (both resolved to canonical paths); one whose parent is not
/// listed is a root. A cycle of parents (a→b→a) has no root: its first session in the
/// listing's order is taken as one. The walk keeps its own stack, so a chain of any depth is
/// drawn without recursion.
pub fn family_tree(sessions: &[SessionInfo]) -> Vec<TreeRow> {
    let canonical =
        |p: &Path| fs::canonicalize(p).unwrap_or_else(|_| std::path::absolute(p).unwrap_or_else(|_| p.to_path_buf()));
    let by_path: rustc_hash::FxHashMap<PathBuf, usize> = sessions
        .iter()
        .enumerate()
        .map(|(i, s)| (canonical(&s.path), i))
        .collect();
    let parent: Vec<Option<usize>> = sessions
        .iter()
        .enumerate()
        .map(|(i, s)| {
            let p = s.parent_session.as_deref().filter(|p| !p.is_empty())?;
            by_path.get(&canonical(Path::new(p))).copied().filter(|&j| j != i)
        })
        .collect();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); sessions.len()];
    for (i, p) in parent.iter().enumerate() {
        if let Some(p) = p {
            children[*p].push(i);
        }
    }
    let roots = roots_with_cycles_broken(&parent);
    let mut seen = vec![false; sessions.len()];
    let mut rows = Vec::with_capacity(sessions.len());
    for root in roots {
        // Depth-first, each frame a session and the `more` flags down to it.
        let mut stack: Vec<(usize, Vec<bool>)> = vec![(root, Vec::new())];
        while let Some((i, more)) = stack.pop() {
            if std::mem::replace(&mut seen[i], true) {
                continue;
            }
            let kids: Vec<usize> = children[i].iter().copied().filter(|&k| !seen[k]).collect();
            for (n, &k) in kids.iter().enumerate().rev() {
                let mut m = more.clone();
                m.push(n + 1 < kids.len());
                stack.push((k, m));
            }
            rows.push(TreeRow {
                index: i,
                depth: more.len(),
                more,
            });
        }
    }
    rows
}

/// The roots of the parent links, in order: the sessions without a listed parent, and in
/// each cycle of parents its first session. Each session's chain of parents is walked once.
fn roots_with_cycles_broken(parent: &[Option<usize>]) -> Vec<usize> {
    const NEW: u8 = 0;
    const WALKING: u8 = 1;
    const DONE: u8 = 2;
    let mut state = vec![NEW; parent.len()];
    let mut root = vec![false; parent.len()];
    let mut walk = Vec::new();
    for start in 0..parent.len() {
        walk.clear();
        let mut at = Some(start);
        while let Some(i) = at {
            match state[i] {
                DONE => break,
                WALKING => {
                    // Back at a session of this walk: from it on, the walk is a cycle.
                    let from = walk.iter().position(|&w| w == i).unwrap_or(0);
                    let first = walk[from..].iter().copied().min().unwrap_or(i);
                    root[first] = true;
                    break;
                }
                _ => {
                    state[i] = WALKING;
                    walk.push(i);
                    at = parent[i];
                }
            }
        }
        for &w in &walk {
            state[w] = DONE;
        }
    }
    (0..parent.len()).filter(|&i| parent[i].is_none() || root[i]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scan(lines: &[&str]) -> Option<Reading> {
        let mut s = Reading::default();
        for l in lines {
            s.feed(l.as_bytes()).ok()?;
        }
        s.header.is_some().then_some(s)
    }

    #[test]
    fn iso_like_javascript() {
        assert_eq!(iso_ms(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(iso_ms(1_793_613_607_005), "2026-11-02T10:00:07.005Z");
        assert_eq!(iso_ms(-1), "1969-12-31T23:59:59.999Z");
        assert_eq!(iso_ms(8_640_000_000_000_000), "+275760-09-13T00:00:00.000Z");
        assert_eq!(iso_ms(-62_198_755_200_000), "-000001-01-01T00:00:00.000Z");
    }

    #[test]
    fn pi_rules() {
        let h = r#"{"type":"session","id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#;
        let user = r#"{"type":"message","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":[{"type":"text","text":"a"},{"type":"image"},{"type":"text","text":"b"}]}}"#;
        let s = scan(&[h, "null", "{bad", user]).unwrap();
        assert_eq!(s.first_message.as_deref(), Some("a b"));
        assert_eq!(s.message_count, 1);
        assert_eq!(s.last_activity, Some(1_767_225_605_000.0));
        // Not a session: the first value is not a session line.
        assert!(scan(&["5", h]).is_none());
        assert!(scan(&[user, h]).is_none());
        // Pi throws (and skips the file) on a null message, a null block, a numeric name.
        assert!(scan(&[h, r#"{"type":"message"}"#]).is_none());
        assert!(scan(&[h, r#"{"type":"message","message":{"role":"user","content":[null]}}"#]).is_none());
        assert!(scan(&[h, r#"{"type":"message","message":{"role":"user","content":null}}"#]).is_none());
        assert!(scan(&[h, r#"{"type":"session_info","name":5}"#]).is_none());
        // …but not on content-less or role-less messages, or a string message.
        let s = scan(&[
            h,
            r#"{"type":"message","message":"x"}"#,
            r#"{"type":"message","message":{"role":"toolResult","content":null}}"#,
            r#"{"type":"message","message":{"role":"user","timestamp":9}}"#,
            r#"{"type":"session_info","name":"  hi  "}"#,
        ])
        .unwrap();
        assert_eq!(s.message_count, 3);
        assert_eq!(s.last_activity, None);
        assert_eq!(s.name.as_deref(), Some("hi"));
        // Duplicate keys: the last one wins, as in JSON.parse.
        let dup = r#"{"type":"message","message":{"role":"user","content":"x","content":"y","timestamp":7}}"#;
        let s = scan(&[h, dup]).unwrap();
        assert_eq!(s.first_message.as_deref(), Some("y"));
        assert_eq!(s.last_activity, Some(7.0));
    }

    fn info(name: &str, modified: Option<i64>) -> SessionInfo {
        SessionInfo {
            path: PathBuf::from(format!("/s/{name}.jsonl")),
            id: Some(name.to_owned()),
            name: None,
            first_message: None,
            message_count: 0,
            created: None,
            modified,
            cwd: String::new(),
            parent_session: None,
            mtime: None,
        }
    }

    #[test]
    fn sorted_newest_first_stable_invalid_dates_last() {
        let mut v = vec![
            info("a", Some(1)),
            info("bad", None),
            info("b", Some(3)),
            info("c", Some(1)),
            info("d", Some(2)),
        ];
        sort_sessions(&mut v);
        let ids: Vec<_> = v.iter().map(|s| s.id.clone().unwrap()).collect();
        assert_eq!(ids, ["b", "d", "a", "c", "bad"]);
    }

    fn child(name: &str, dir: &Path, parent: Option<&str>) -> SessionInfo {
        SessionInfo {
            path: dir.join(format!("{name}.jsonl")),
            parent_session: parent.map(|p| dir.join(format!("{p}.jsonl")).to_string_lossy().into_owned()),
            ..info(name, Some(0))
        }
    }

    fn drawn(v: &[SessionInfo]) -> Vec<(String, usize, Vec<bool>)> {
        family_tree(v)
            .into_iter()
            .map(|r| (v[r.index].id.clone().unwrap(), r.depth, r.more))
            .collect()
    }

    #[test]
    fn sessions_under_the_session_they_came_from() {
        let dir = Path::new("/nowhere");
        let v = vec![
            child("c1", dir, Some("r")),
            child("r", dir, None),
            child("other", dir, Some("missing")),
            child("g", dir, Some("c1")),
            child("c2", dir, Some("r")),
        ];
        assert_eq!(
            drawn(&v),
            [
                ("r".into(), 0, vec![]),
                ("c1".into(), 1, vec![true]),
                ("g".into(), 2, vec![true, false]),
                ("c2".into(), 1, vec![false]),
                ("other".into(), 0, vec![]),
            ]
        );
    }

    #[test]
    fn a_cycle_of_parents_and_a_deep_chain() {
        let dir = Path::new("/nowhere");
        let v = vec![
            child("a", dir, Some("b")),
            child("b", dir, Some("a")),
            child("s", dir, Some("s")),
        ];
        assert_eq!(
            drawn(&v),
            [
                ("a".into(), 0, vec![]),
                ("b".into(), 1, vec![false]),
                ("s".into(), 0, vec![])
            ]
        );
        let v = vec![
            child("x", dir, None),
            child("b", dir, Some("a")),
            child("a", dir, Some("b")),
        ];
        assert_eq!(
            drawn(&v),
            [
                ("x".into(), 0, vec![]),
                ("b".into(), 0, vec![]),
                ("a".into(), 1, vec![false])
            ]
        );
        // A chain far deeper than a recursive walk's stack would take.
        let n = 20_000;
        let chain: Vec<SessionInfo> = (0..n)
            .map(|i| child(&i.to_string(), dir, (i > 0).then(|| (i - 1).to_string()).as_deref()))
            .collect();
        let rows = family_tree(&chain);
        assert_eq!(rows.len(), n);
        assert_eq!(rows.last().unwrap().depth, n - 1);
    }

    /// Lines end at `\n`, `\r\n` or a lone `\r`, as Node's readline ends them; a `\r` inside
    /// a JSON line cuts it into two pieces that are not entries.
    #[test]
    fn lines_end_at_newlines_and_carriage_returns() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let lines = [
            r#"{"type":"session","id":"sid","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#,
            r#"{"type":"message","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":"hi"}}"#,
            r#"{"type":"session_info","name":"n"}"#,
            r#"{"type":"message","message":{"role":"assistant","content":[],"timestamp":1767225610000}}"#,
        ];
        let info = |text: &str| {
            fs::write(&path, text).unwrap();
            build_session_info(&path).map(|s| (s.id, s.name, s.first_message, s.message_count, s.modified))
        };
        let plain = info(&lines.join("\n"));
        assert_eq!(plain.as_ref().unwrap().3, 2);
        for sep in ["\r\n", "\r", "\n\n", "\r\r\n", "\n\r"] {
            assert_eq!(info(&(lines.join(sep) + sep)), plain, "lines ended by {sep:?}");
        }
        // A carriage return inside the second line: neither piece is an entry.
        let cut = lines[1].replace("\"hi\"", "\"h\ri\"");
        let text = [lines[0], &cut, lines[2], lines[3]].join("\n");
        assert_eq!(info(&text).unwrap().3, 1);
    }

    #[test]
    fn build_session_info_fields_and_record() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let lines = [
            r#"{"type":"session","id":"sid","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p","parentSession":"/q.jsonl"}"#,
            r#"{"type":"message","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":"  first  "}}"#,
            r#"{"type":"message","message":{"role":"assistant","content":[],"timestamp":1767225610000}}"#,
            r#"{"type":"message","message":{"role":"toolResult","content":[]}}"#,
            r#"{"type":"session_info","name":"  named "}"#,
        ];
        fs::write(&path, lines.join("\n")).unwrap();
        let s = build_session_info(&path).unwrap();
        assert_eq!(s.id.as_deref(), Some("sid"));
        assert_eq!(s.name.as_deref(), Some("named"));
        assert_eq!(s.first_message.as_deref(), Some("  first  "));
        assert_eq!(s.message_count, 3);
        assert_eq!(s.created, Some(1_767_225_600_000));
        assert_eq!(s.modified, Some(1_767_225_610_000));
        assert_eq!(s.cwd, "/p");
        assert_eq!(s.parent_session.as_deref(), Some("/q.jsonl"));
        let rec = serde_json::to_value(s.record(true)).unwrap();
        let keys: Vec<&str> = rec.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "path",
                "id",
                "name",
                "firstMessage",
                "messageCount",
                "created",
                "modified",
                "cwd",
                "parentSession",
                "current"
            ]
        );
        assert_eq!(rec["created"], "2026-01-01T00:00:00.000Z");
        assert_eq!(rec["modified"], "2026-01-01T00:00:10.000Z");
        assert_eq!(rec["current"], true);
        // No activity: the header time; not a session: None.
        fs::write(&path, lines[0]).unwrap();
        assert_eq!(build_session_info(&path).unwrap().modified, Some(1_767_225_600_000));
        fs::write(&path, lines[1]).unwrap();
        assert!(build_session_info(&path).is_none());
    }

    #[test]
    fn lists_a_custom_dir_filtered_by_cwd() {
        let dir = tempfile::tempdir().unwrap();
        let h = |id: &str, cwd: &str| {
            format!(r#"{{"type":"session","id":"{id}","timestamp":"2026-01-0{id}T00:00:00.000Z","cwd":"{cwd}"}}"#)
        };
        fs::write(dir.path().join("1.jsonl"), h("1", "/p")).unwrap();
        fs::write(dir.path().join("2.jsonl"), h("2", "/q")).unwrap();
        fs::write(dir.path().join("3.jsonl"), h("3", "/p")).unwrap();
        fs::write(dir.path().join("x.jsonl"), "not json").unwrap();
        let loc = Locations {
            cwd: PathBuf::from("/p"),
            agent_dir: dir.path().join("agent"),
            custom_dir: Some(dir.path().to_path_buf()),
            archived: false,
        };
        let ids = |l: &Listing| l.sessions.iter().map(|s| s.id.clone().unwrap()).collect::<Vec<_>>();
        let here = list(
            &loc,
            &ListOptions {
                all: false,
                archived: false,
                cache: None,
            },
            &crate::progress::Silent,
        );
        assert_eq!(ids(&here), ["3", "1"]);
        assert_eq!(here.skipped, 1);
        let all = list(
            &loc,
            &ListOptions {
                all: true,
                ..Default::default()
            },
            &crate::progress::Silent,
        );
        assert_eq!(ids(&all), ["3", "2", "1"]);
    }

    /// What a listing result is, to the bit (`SessionInfo` has no equality; `mtime` by its
    /// bits, so that a NaN or -0 read back counts).
    fn view(info: &Option<SessionInfo>) -> String {
        format!("{info:?} {:?}", info.as_ref().map(|s| s.mtime.map(f64::to_bits)))
    }

    fn arbitrary_info() -> impl proptest::strategy::Strategy<Value = Option<SessionInfo>> {
        use proptest::prelude::*;
        let text = || proptest::option::of(any::<String>());
        let ms = || proptest::option::of(any::<i64>());
        let fields = (
            (text(), text(), text(), any::<u64>()),
            (ms(), ms(), any::<String>(), text(), proptest::option::of(any::<u64>())),
        );
        proptest::option::of(fields.prop_map(
            |((id, name, first_message, message_count), (created, modified, cwd, parent_session, mtime))| SessionInfo {
                path: PathBuf::from("/s/x.jsonl"),
                id,
                name,
                first_message,
                message_count,
                created,
                modified,
                cwd,
                parent_session,
                mtime: mtime.map(f64::from_bits),
            },
        ))
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(500))]

        /// Any listing result, session or not, reads back from the cache as it was recorded.
        #[test]
        fn a_record_reads_back_as_written(info in arbitrary_info()) {
            let dir = tempfile::tempdir().unwrap();
            let file = dir.path().join("listing.cache");
            let (path, stamp) = crate::file_cache::tests::settled_file(dir.path(), "x.jsonl", "");
            let key = crate::file_cache::key(&path);
            let mut cache = cached::open(&file);
            cached::record(&mut cache, &key, stamp, info.as_ref());
            cache.save();
            let (back, fresh) = cached::read(Some(&cached::open(&file)), &path);
            proptest::prop_assert!(fresh.is_none(), "answered from the cache");
            let want = info.map(|i| SessionInfo { path, ..i });
            proptest::prop_assert_eq!(view(&back), view(&want));
        }

        /// A folder of session files (and files that are not sessions) lists the same from
        /// the cache as from the files.
        #[test]
        fn a_listing_from_the_cache_is_the_listing_from_the_files(
            files in proptest::collection::vec(proptest::collection::vec(proptest::sample::select(LINES), 0..6), 1..6),
        ) {
            let dir = tempfile::tempdir().unwrap();
            let sessions = dir.path().join("sessions");
            fs::create_dir_all(&sessions).unwrap();
            for (i, lines) in files.iter().enumerate() {
                let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
                crate::file_cache::tests::settled_file(&sessions, &format!("{i}.jsonl"), &text);
            }
            let loc = Locations {
                cwd: PathBuf::from("/p"),
                agent_dir: dir.path().join("agent"),
                custom_dir: Some(sessions),
                archived: false,
            };
            let listed = |cache: Option<PathBuf>| {
                let l = list(&loc, &ListOptions { all: true, archived: false, cache }, &crate::progress::Silent);
                let infos: Vec<String> = l.sessions.into_iter().map(|s| view(&Some(s))).collect();
                (infos, l.skipped)
            };
            let file = dir.path().join("listing.cache");
            let uncached = listed(None);
            proptest::prop_assert_eq!(&listed(Some(file.clone())), &uncached);
            proptest::prop_assert!(file.exists());
            proptest::prop_assert_eq!(&listed(Some(file)), &uncached);
        }
    }

    /// Lines of session files: headers, messages and names of every shape the listing tells
    /// apart, and lines that make a file not a session.
    const LINES: &[&str] = &[
        r#"{"type":"session","id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/p"}"#,
        r#"{"type":"session","id":"t","timestamp":"bad","cwd":"/q","parentSession":"/p/s.jsonl"}"#,
        r#"{"type":"session"}"#,
        r#"{"type":"message","timestamp":"2026-01-02T00:00:00.000Z","message":{"role":"user","content":"hi"}}"#,
        r#"{"type":"message","message":{"role":"assistant","content":[{"type":"text","text":"a"}],"timestamp":1767225610000}}"#,
        r#"{"type":"message","message":{"role":"user","content":[null]}}"#,
        r#"{"type":"message","message":"x"}"#,
        r#"{"type":"session_info","name":"  named  "}"#,
        r#"{"type":"session_info","name":5}"#,
        "null",
        "42",
        "{bad",
        "",
    ];
}
