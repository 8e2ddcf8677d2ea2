//! The session model: a Pi session file loaded into a compact index over its original
//! bytes. Lines are never re-serialized; typed fields come from a skim of each line, and
//! full JSON is parsed only for the entries a command shows.

pub mod append;
pub mod branch_copy;
pub mod context;
pub mod entry;
pub mod error;
pub mod estimate;
pub mod jsdate;
pub mod jsjson;
mod load;
pub mod locate;
pub mod rawjson;
pub mod revision;
pub mod skim;
pub mod text;
pub mod tree;
pub mod write;

pub use entry::{Detail, Entry, EntryIdx, EntryKind, IdTable, Role, Sym};
pub use error::{Result, SessionError};
pub use load::LoadReport;

use rustc_hash::{FxHashMap, FxHashSet};
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
    data: Vec<u8>,
    pub header: Header,
    /// Every entry in file order, the header and any later `session` lines excluded.
    pub entries: Vec<Entry>,
    ids: IdTable,
    /// Duplicate ids resolve to the last entry that has them, as in Pi.
    by_id: FxHashMap<Sym, EntryIdx>,
    labels: FxHashMap<Sym, LabelState>,
    session_name: Option<String>,
    pub report: LoadReport,
}

/// The branch from the root to an entry.
#[derive(Debug, Clone, Default)]
pub struct Branch {
    /// Root first, the requested entry last.
    pub path: Vec<EntryIdx>,
    /// Set when the walk met an entry already on the path: the entry whose parent link
    /// closes a cycle. Pi 1.6.0 loops forever there; we stop.
    pub cycle_at: Option<EntryIdx>,
}

impl Session {
    /// Reads and indexes a session file the way Pi 1.6.0 loads it.
    pub fn open(path: &Path) -> Result<Session> {
        let data = std::fs::read(path).map_err(|e| SessionError::io(path, e))?;
        Session::from_bytes(path.to_path_buf(), data)
    }

    pub fn from_bytes(path: PathBuf, data: Vec<u8>) -> Result<Session> {
        load::load(path, data, 1)
    }

    /// Like [`Session::from_bytes`], numbering the first physical line `first_line`: repair
    /// puts a header it made or moved on "line 0" so the other lines keep their numbers.
    pub fn from_bytes_numbered(path: PathBuf, data: Vec<u8>, first_line: u32) -> Result<Session> {
        load::load(path, data, first_line)
    }

    /// The original bytes of a line (entry or header), without `\n`.
    pub fn line_bytes(&self, start: u64, end: u64) -> &[u8] {
        &self.data[start as usize..end as usize]
    }

    /// The original bytes of an entry's line, without `\n` and without a trailing `\r`.
    pub fn raw(&self, idx: EntryIdx) -> &[u8] {
        let e = &self.entries[idx];
        let b = self.line_bytes(e.start, e.end);
        b.strip_suffix(b"\r").unwrap_or(b)
    }

    /// The whole entry as JSON, with Pi's in-memory migrations applied (v2 `hookMessage`
    /// roles read as `custom`). Parses the line; use for entries being shown.
    pub fn value(&self, idx: EntryIdx) -> Value {
        let raw = self.raw(idx);
        let mut v = serde_json::from_slice::<Value>(raw)
            .or_else(|_| serde_json::from_str(&String::from_utf8_lossy(raw)))
            .unwrap_or(Value::Null);
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
        self.ids.get(id).and_then(|s| self.by_id.get(&s).copied())
    }

    pub fn lookup_sym(&self, sym: Sym) -> Option<EntryIdx> {
        self.by_id.get(&sym).copied()
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
        let mut seen = FxHashSet::default();
        seen.insert(idx);
        let mut cycle_at = None;
        let mut cur = idx;
        while let Some(p) = self.parent(cur) {
            if !seen.insert(p) {
                cycle_at = Some(cur);
                break;
            }
            path.push(p);
            cur = p;
        }
        path.reverse();
        Branch { path, cycle_at }
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
        self.entries[idx].timestamp.as_deref().and_then(jsdate::parse_date_ms)
    }

    /// Whether the file is empty or ends with `\n` (a last line without one is torn or unfinished).
    pub fn ends_with_newline(&self) -> bool {
        self.data.last().is_none_or(|&b| b == b'\n')
    }

    /// Size of the file in bytes.
    pub fn len_bytes(&self) -> u64 {
        self.data.len() as u64
    }
}
