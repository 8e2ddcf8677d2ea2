//! The session model: a Pi session file loaded into a compact index over its original
//! bytes. Lines are never re-serialized; typed fields come from a skim of each line, and
//! full JSON is parsed only for the entries a command shows.

pub mod branch_copy;
pub mod content;
pub mod context;
pub mod entry;
pub mod error;
pub mod estimate;
pub mod io;
pub mod line_search;
mod load;
pub mod preview;
pub mod revision;
pub mod skim;
#[cfg(test)]
pub(crate) mod testing;
pub mod text;
pub mod tree;

pub use entry::{Detail, Entry, EntryIdx, EntryKind, IdTable, MessageAt, Role, Sym, ToolCalls, Tools};
pub use error::{Result, SessionError};
pub use load::LoadReport;

use crate::json::{jsdate, jsparse};
use io::{data, tip};
use rustc_hash::FxHashMap;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The newest session format, the one Pi 1.6.0 writes.
pub const CURRENT_VERSION: u32 = 3;

/// The first line of a session file.
#[derive(Debug, Clone)]
pub struct Header {
    pub line: u32,
    pub start: u64,
    pub end: u64,
    pub id: String,
    /// `version` as written; absent means format 1.
    pub version: Option<f64>,
    pub cwd: Option<String>,
    pub timestamp: Option<String>,
    pub parent_session: Option<String>,
}

impl Header {
    /// The format version Pi reads the file as (1, 2 or 3).
    pub fn format(&self) -> u32 {
        match self.version {
            Some(v) if v >= 3.0 => 3,
            Some(v) if v >= 2.0 => 2,
            _ => 1,
        }
    }
}

/// In `Session::by_id`: no entry has this id.
const NO_ENTRY: u32 = u32::MAX;

/// The current label of an entry.
#[derive(Debug, Clone)]
pub struct LabelState {
    pub label: Box<str>,
    /// The `label` entry that set it.
    pub set_by: EntryIdx,
}

/// A loaded session file.
#[derive(Debug)]
pub struct Session {
    pub path: PathBuf,
    data: data::Data,
    pub header: Header,
    /// Every entry in file order, the header and any later `session` lines excluded.
    pub entries: Vec<Entry>,
    ids: IdTable,
    /// Duplicate ids resolve to the last entry that has them, as in Pi.
    /// Indexed by symbol: the entry with that id, or [`NO_ENTRY`].
    by_id: Vec<u32>,
    labels: FxHashMap<Sym, LabelState>,
    session_name: Option<String>,
    pub report: LoadReport,
    /// For a session read from the end (`open_tail`): the file offset where the read part
    /// starts. Ids, parents and labels outside it are unknown.
    tail_from: Option<u64>,
}

/// The branch from the root to an entry.
#[derive(Debug, Clone, Default)]
pub struct Branch {
    /// Root first, the requested entry last.
    pub path: Vec<EntryIdx>,
    /// Set when the walk met an entry already on the path: the entry whose parent link
    /// closes a cycle. Pi 1.6.0 loops forever there; we stop.
    pub cycle_at: Option<EntryIdx>,
    /// The first entry has a parent id that was not found: an orphan in a whole file, or
    /// the edge of what was read in a session read from the end.
    pub truncated: bool,
}

impl Session {
    /// Reads and indexes a session file the way Pi 1.6.0 loads it.
    pub fn open(path: &Path) -> Result<Session> {
        let data = data::Data::open(path).map_err(|e| SessionError::io(path, e))?;
        load::load(path.to_path_buf(), data, 1)
    }

    /// Loads bytes already read or mapped (`data::Data`).
    pub fn from_data(path: PathBuf, data: data::Data) -> Result<Session> {
        load::load(path, data, 1)
    }

    pub fn from_bytes(path: PathBuf, data: Vec<u8>) -> Result<Session> {
        load::load(path, data.into(), 1)
    }

    /// Like [`Session::from_bytes`], numbering the first physical line `first_line`: repair
    /// puts a header it made or moved on "line 0" so the other lines keep their numbers.
    pub fn from_bytes_numbered(path: PathBuf, data: Vec<u8>, first_line: u32) -> Result<Session> {
        load::load(path, data.into(), first_line)
    }

    /// Every byte read (the whole file, for a session not read from the end).
    pub fn bytes(&self) -> &[u8] {
        &self.data
    }

    /// The bytes read, given back (copied only if the file was mapped).
    pub fn into_bytes(self) -> Vec<u8> {
        self.data.into_vec()
    }

    /// The original bytes of a line (entry or header), without `\n`.
    pub fn line_bytes(&self, start: u64, end: u64) -> &[u8] {
        &self.data[start as usize..end as usize]
    }

    /// Tells the system that the lines of `entries` (a run in file order) will not be read
    /// again soon: the pages wholly inside them stop counting in the process's memory (they
    /// stay in the page cache, and are read back if needed). Commands that go through a
    /// large file once call this behind them.
    pub fn release_entries(&self, entries: std::ops::Range<EntryIdx>) {
        if entries.is_empty() || self.tail_from.is_some() {
            return;
        }
        let (first, last) = (&self.entries[entries.start], &self.entries[entries.end - 1]);
        self.data.release(first.start as usize, last.end as usize);
    }

    /// The original bytes of an entry's line, without `\n` and without a trailing `\r`.
    pub fn raw(&self, idx: EntryIdx) -> &[u8] {
        let e = &self.entries[idx];
        let b = self.line_bytes(e.start, e.end);
        b.strip_suffix(b"\r").unwrap_or(b)
    }

    /// Asks the CPU to start loading the bytes a one-line preview of entry `idx` reads
    /// first (its message's content, else the line's start), so that a render going down
    /// many rows finds a row's line in cache when it comes to it: the lines of a large file
    /// are a couple of kilobytes apart, too far apart for the hardware to guess. Only a hint:
    /// it reads nothing, and a page not mapped in is skipped, not faulted in.
    pub fn prefetch_preview(&self, idx: EntryIdx) {
        // The cache lines from the content's start that a preview's text usually comes from.
        const LINES: usize = 4;
        let e = &self.entries[idx];
        let from = e.message_at().and_then(|a| a.content).map_or(0, |c| c.get() as usize);
        prefetch_bytes(self.line_bytes(e.start, e.end), from, LINES * 64);
    }

    /// [`Session::prefetch_preview`] for the bytes the usage totals read: the message's
    /// `usage` object (its first few hundred bytes), when the loader located one.
    pub fn prefetch_usage(&self, idx: EntryIdx) {
        // Pi's usage objects are about 300 bytes; a larger one is not worth more hints.
        const MAX: usize = 512;
        let e = &self.entries[idx];
        if let Some((offset, len)) = e.message_at().and_then(|a| a.usage) {
            prefetch_bytes(
                self.line_bytes(e.start, e.end),
                offset as usize,
                (len as usize).min(MAX),
            );
        }
    }

    /// The whole entry as JSON, with Pi's in-memory migrations applied (v2 `hookMessage`
    /// roles read as `custom`). Parses the line; use for entries being shown.
    pub fn value(&self, idx: EntryIdx) -> Value {
        self.migrated(idx, jsparse::parse(self.raw(idx)).unwrap_or(Value::Null))
    }

    fn migrated(&self, idx: EntryIdx, mut v: Value) -> Value {
        if self.header.format() < 3
            && let Some(role) = v.pointer_mut("/message/role")
            && role == "hookMessage"
        {
            *role = Value::String("custom".into());
        }
        if self.header.format() < 2
            && let Some(obj) = v.as_object_mut()
        {
            // Pi's v1 migration gives every entry an id and chains them.
            let e = &self.entries[idx];
            let id = e.id.map(|s| Value::String(self.ids.name(s).into()));
            let parent = e.parent.map(|s| Value::String(self.ids.name(s).into()));
            obj.insert("id".into(), id.unwrap_or(Value::Null));
            obj.insert("parentId".into(), parent.unwrap_or(Value::Null));
            if let Detail::Compaction { first_kept, .. } = &e.detail {
                obj.shift_remove("firstKeptEntryIndex");
                if let Some(s) = first_kept {
                    obj.insert("firstKeptEntryId".into(), Value::String(self.ids.name(*s).into()));
                }
            }
        }
        v
    }

    pub fn ids(&self) -> &IdTable {
        &self.ids
    }

    pub fn id_str(&self, idx: EntryIdx) -> Option<&str> {
        self.entries[idx].id.map(|s| self.ids.name(s))
    }

    /// The entry's id, or a placeholder for entries without one.
    /// The error for `rev` naming no entry, with Pi's leaf when there is one.
    pub fn empty_position(&self, rev: &str) -> SessionError {
        let leaf = self.leaf().map(|i| {
            let kind = self.entries[i].kind.as_str().unwrap_or("entry");
            format!("{kind} {}", self.id_or_line(i))
        });
        SessionError::EmptyPosition {
            rev: rev.to_owned(),
            leaf,
        }
    }

    pub fn id_or_line(&self, idx: EntryIdx) -> String {
        match self.id_str(idx) {
            Some(id) => id.to_owned(),
            None => format!("(line {})", self.entries[idx].line),
        }
    }

    pub fn parent_id_str(&self, idx: EntryIdx) -> Option<&str> {
        self.entries[idx].parent.map(|s| self.ids.name(s))
    }

    /// The entry Pi finds for an id (the last one with it).
    pub fn lookup(&self, id: &str) -> Option<EntryIdx> {
        self.ids.get(id).and_then(|s| self.lookup_sym(s))
    }

    pub fn lookup_sym(&self, sym: Sym) -> Option<EntryIdx> {
        match self.by_id.get(sym.0 as usize) {
            Some(&i) if i != NO_ENTRY => Some(i as EntryIdx),
            _ => None,
        }
    }

    /// Every id that more than one entry carries, with those entries.
    pub fn duplicate_ids(&self) -> Vec<(Sym, Vec<EntryIdx>)> {
        let mut seen: FxHashMap<Sym, Vec<EntryIdx>> = FxHashMap::default();
        for (i, e) in self.entries.iter().enumerate() {
            if let Some(id) = e.id {
                seen.entry(id).or_default().push(i);
            }
        }
        let mut dups: Vec<_> = seen.into_iter().filter(|(_, v)| v.len() > 1).collect();
        dups.sort_by_key(|(_, v)| v[0]);
        dups
    }

    /// The parent Pi follows: the entry with the `parentId`, if any.
    pub fn parent(&self, idx: EntryIdx) -> Option<EntryIdx> {
        self.entries[idx].parent.and_then(|p| self.lookup_sym(p))
    }

    /// Pi's leaf: the last entry of the file.
    pub fn leaf(&self) -> Option<EntryIdx> {
        self.entries.len().checked_sub(1)
    }

    /// `@`, where the conversation stands: the leaf, stepping back over trailing labels
    /// and checkout records. `None` when that leaves no entry (e.g. after
    /// `checkout --empty`, the next message starts a new root).
    pub fn at(&self) -> Option<EntryIdx> {
        self.position_of(self.leaf()?)
    }

    /// The position a leaf at `idx` stands for: `idx`, stepping back over labels and
    /// checkout records, which only bookkeep. `None` when no entry remains.
    pub fn position_of(&self, idx: EntryIdx) -> Option<EntryIdx> {
        let mut cur = idx;
        let mut steps = 0;
        while self.entries[cur].is_tip_bookkeeping() {
            cur = self.parent(cur)?;
            steps += 1;
            if steps > self.entries.len() {
                return None; // a cycle made only of bookkeeping
            }
        }
        Some(cur)
    }

    /// The branch from the root to `idx`. Never loops: a parent cycle stops the walk.
    pub fn branch(&self, idx: EntryIdx) -> Branch {
        let mut path = vec![idx];
        // One bit per entry, not a hash set: a branch can hold most of a file's entries.
        let mut seen = vec![0u64; self.entries.len().div_ceil(64)];
        let mut first_visit = |i: EntryIdx| {
            let (word, bit) = (i / 64, 1u64 << (i % 64));
            let new = seen[word] & bit == 0;
            seen[word] |= bit;
            new
        };
        first_visit(idx);
        let mut cycle_at = None;
        let mut cur = idx;
        while let Some(p) = self.parent(cur) {
            if !first_visit(p) {
                cycle_at = Some(cur);
                break;
            }
            path.push(p);
            cur = p;
        }
        let truncated = cycle_at.is_none() && self.entries[cur].parent.is_some();
        path.reverse();
        Branch {
            path,
            cycle_at,
            truncated,
        }
    }

    /// Walks up `n` parents from `idx`; `Err(available)` when the root comes first.
    pub fn ancestor(&self, idx: EntryIdx, n: usize) -> std::result::Result<EntryIdx, usize> {
        let mut cur = idx;
        for i in 0..n {
            match self.parent(cur) {
                // A walk longer than the file has gone round a cycle.
                Some(p) if i < self.entries.len() => cur = p,
                _ => return Err(i),
            }
        }
        Ok(cur)
    }

    /// The current label of the entry with this id.
    pub fn label_of_sym(&self, sym: Sym) -> Option<&str> {
        self.labels.get(&sym).map(|l| &*l.label)
    }

    pub fn label_of(&self, idx: EntryIdx) -> Option<&str> {
        self.entries[idx].id.and_then(|s| self.label_of_sym(s))
    }

    /// Current labels: (target id, state), ordered by the label entries that set them.
    pub fn labels(&self) -> Vec<(Sym, &LabelState)> {
        let mut v: Vec<_> = self.labels.iter().map(|(s, l)| (*s, l)).collect();
        v.sort_by_key(|(_, l)| l.set_by);
        v
    }

    /// The target ids whose current label is `name`, in order of labelling.
    pub fn targets_labelled(&self, name: &str) -> Vec<Sym> {
        self.labels()
            .into_iter()
            .filter(|(_, l)| &*l.label == name)
            .map(|(s, _)| s)
            .collect()
    }

    /// The session name: the latest `session_info` entry's name, trimmed; empty clears.
    pub fn name(&self) -> Option<&str> {
        self.session_name.as_deref()
    }

    /// Milliseconds of the entry's ISO `timestamp`, as JavaScript reads it.
    pub fn timestamp_ms(&self, idx: EntryIdx) -> Option<i64> {
        match self.entries[idx].timestamp.as_deref() {
            Some(s) => jsdate::parse_date_ms(s),
            None => jsdate::date_value_ms(self.timestamp_not_string(idx).as_ref()),
        }
    }

    /// The entry's `timestamp` when it is there but not a string (a number, `null`, …),
    /// which the index does not keep: Pi's `new Date(…)` still makes a time of most.
    pub fn timestamp_not_string(&self, idx: EntryIdx) -> Option<Value> {
        if self.entries[idx].timestamp.is_some() {
            return None;
        }
        // Most lines have a string timestamp: the line is looked at first, parsed only when
        // the key is in it.
        memchr::memmem::find(self.raw(idx), b"timestamp")?;
        self.value(idx).get("timestamp").cloned()
    }

    /// Whether the file is empty or ends with `\n` (a last line without one is torn or unfinished).
    pub fn ends_with_newline(&self) -> bool {
        self.data.last().is_none_or(|&b| b == b'\n')
    }

    /// Whether every byte read is valid UTF-8 (Pi reads invalid bytes as U+FFFD; `repair`
    /// re-encodes them).
    pub fn is_valid_utf8(&self) -> bool {
        // On every core, in pieces cut after a newline (never inside a character).
        const PIECE: usize = 8 << 20;
        let data: &[u8] = &self.data;
        let mut pieces = Vec::new();
        let mut start = 0;
        while start < data.len() {
            let target = (start + PIECE).min(data.len());
            let end = memchr::memchr(b'\n', &data[target..]).map_or(data.len(), |i| target + i + 1);
            pieces.push(start..end);
            start = end;
        }
        crate::parallel::par_map(
            &pieces,
            |r| {
                let ok = simdutf8::basic::from_utf8(&data[r.clone()]).is_ok();
                self.data.release(r.start, r.end);
                ok
            },
            || {},
        )
        .into_iter()
        .all(|ok| ok)
    }

    /// Whether the whole file was read (not only its end).
    pub fn is_complete(&self) -> bool {
        self.tail_from.is_none()
    }

    /// For a session read from the end: the file offset where the part read starts (a line
    /// start; what comes before it, after the header, was not read).
    pub fn read_from(&self) -> Option<u64> {
        self.tail_from
    }

    /// In a session read from the end, a missing parent may just not have been read: the
    /// caller must read more. In a whole file it is an orphan.
    pub fn check_edge(&self, branch: &Branch) -> Result<()> {
        if branch.truncated && !self.is_complete() {
            Err(SessionError::NeedMore)
        } else {
            Ok(())
        }
    }

    /// `@`, or [`SessionError::NeedMore`] when a session read from the end cannot tell.
    pub fn at_checked(&self) -> Result<Option<EntryIdx>> {
        let Some(leaf) = self.leaf() else {
            return if self.is_complete() {
                Ok(None)
            } else {
                Err(SessionError::NeedMore)
            };
        };
        let mut cur = leaf;
        let mut steps = 0;
        while self.entries[cur].is_tip_bookkeeping() {
            match self.parent(cur) {
                Some(p) => cur = p,
                None if self.entries[cur].parent.is_some() && !self.is_complete() => {
                    return Err(SessionError::NeedMore);
                }
                None => return Ok(None),
            }
            steps += 1;
            if steps > self.entries.len() {
                return Ok(None);
            }
        }
        Ok(Some(cur))
    }

    /// Reads only the last `tail` bytes of the file (and its header): enough for commands
    /// about where the conversation stands. Falls back to the whole file when the read would
    /// cover most of it ([`tip::covers_most`]), the file is not in format v3, or its header
    /// cannot be found quickly.
    pub fn open_tail(path: &Path, tail: u64) -> Result<Session> {
        use std::os::unix::fs::FileExt;
        let io = |e| SessionError::io(path, e);
        let file = data::open_regular(path).map_err(io)?;
        let len = file.metadata().map_err(io)?.len();
        // Reading most of the file from the end would copy it: map it whole instead.
        if tip::covers_most(tail, len) {
            return Session::open(path);
        }
        // The header: the first line, which must be one in any file we can read from the end.
        let mut head = vec![0u8; (64 * 1024).min(len as usize)];
        file.read_exact_at(&mut head, 0).map_err(io)?;
        let Some(nl) = memchr::memchr(b'\n', &head) else {
            return Session::open(path);
        };
        let header_line = &head[..nl];
        match skim::read_line(header_line) {
            skim::LineRead::Object(s) if s.kind.as_deref() == Some("session") && s.id.is_some() => {
                if !s.version.is_some_and(|v| v >= 3.0) {
                    return Session::open(path);
                }
            }
            _ => return Session::open(path),
        }
        let start = len - tail;
        let mut buf = vec![0u8; tail as usize + 1];
        file.read_exact_at(&mut buf, start - 1).map_err(io)?;
        // Start at a line boundary: drop the partial first line.
        let body = if buf[0] == b'\n' {
            &buf[1..]
        } else {
            match memchr::memchr(b'\n', &buf) {
                Some(i) => &buf[i + 1..],
                None => return Session::open(path),
            }
        };
        let from = len - body.len() as u64;
        if from <= nl as u64 + 1 {
            return Session::open(path);
        }
        let mut data = Vec::with_capacity(header_line.len() + 1 + body.len());
        data.extend_from_slice(header_line);
        data.push(b'\n');
        data.extend_from_slice(body);
        let mut s = load::load(path.to_path_buf(), data.into(), 1)?;
        s.tail_from = Some(from);
        Ok(s)
    }

    /// Where a line is, for messages: its number in a whole file, else its byte offset.
    pub fn line_label(&self, idx: EntryIdx) -> String {
        let e = &self.entries[idx];
        match self.tail_from {
            None => format!("line {}", e.line),
            Some(from) => format!("byte {}", from + e.start - (self.header.end + 1)),
        }
    }

    /// Size of the file in bytes.
    pub fn len_bytes(&self) -> u64 {
        self.data.len() as u64
    }
}

/// Hints that the `len` bytes of `line` from `from` (as far as the line goes) will be read
/// soon.
fn prefetch_bytes(line: &[u8], from: usize, len: usize) {
    let to = line.len().min(from.saturating_add(len));
    for at in (from..to).step_by(64) {
        prefetch(&line[at]);
    }
}

/// Hints that the cache line holding `byte` will be read soon.
#[inline(always)]
fn prefetch(byte: &u8) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch reads nothing and never faults; SSE is part of x86_64.
    unsafe {
        use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
        _mm_prefetch::<_MM_HINT_T0>(std::ptr::from_ref(byte).cast::<i8>());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = byte;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hint for every kind of line, the content at a line's very end included, touches
    /// nothing out of bounds.
    #[test]
    fn previews_are_prefetched_within_their_lines() {
        let lines = [
            r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}"#,
            r#"{"type":"message","id":"a","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"x"}}"#,
            r#"{"type":"label","id":"b","parentId":"a","timestamp":"2026-01-01T00:00:02.000Z","targetId":"a","label":"l"}"#,
            r#"{"type":"message","id":"c","parentId":"b","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"assistant","content":[]}}"#,
            r#"{"type":"message","id":"d","parentId":"c","timestamp":"2026-01-01T00:00:04.000Z","message":{"content":"#,
        ];
        let data = lines.join("\n");
        let session = Session::from_bytes(PathBuf::from("/t.jsonl"), data.into_bytes()).unwrap();
        assert!(session.entries.len() >= 3);
        for idx in 0..session.entries.len() {
            session.prefetch_preview(idx);
            session.prefetch_usage(idx);
        }
    }
}
