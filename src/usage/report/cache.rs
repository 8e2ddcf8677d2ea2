//! What the report read from each session file, kept between runs so that a report over
//! files that have not changed costs a `stat` per file.
//!
//! A file's record is used only while the file's size, modification time, inode and device
//! are those it had when it was read: Pi only ever appends to a session (the size changes)
//! and `repair` renames a new file over it (the inode changes). A file modified in the last
//! few seconds before a run is not recorded, so that a change within the timestamp's
//! resolution cannot go unnoticed. The cache is one file, replaced whole (temp file and
//! rename) when a run read something new; anything wrong with it (missing, torn, another
//! version, written by a build whose call identities differ) makes it empty, never a
//! different answer.

use super::{CallRecord, Names, Read, identity};
use crate::session::data::Data;
use crate::session::locate::HeaderInfo;
use crate::usage::{Cost, Source, Totals};
use rustc_hash::FxHashMap;
use std::io::Write;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, SystemTime};

const MAGIC: &[u8] = b"pi-session usage cache 1\n";

/// Files modified this recently are not recorded.
const SETTLE: Duration = Duration::from_secs(2);

/// What tells a file's versions apart.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    len: u64,
    mtime_ns: i128,
    ino: u64,
    dev: u64,
}

impl Stamp {
    pub fn of(path: &Path) -> Option<Stamp> {
        let meta = std::fs::metadata(path).ok()?;
        if !meta.is_file() {
            return None;
        }
        let mtime_ns = match meta.modified().ok()?.duration_since(SystemTime::UNIX_EPOCH) {
            Ok(d) => d.as_nanos() as i128,
            Err(e) => -(e.duration().as_nanos() as i128),
        };
        #[cfg(unix)]
        let (ino, dev) = {
            use std::os::unix::fs::MetadataExt;
            (meta.ino(), meta.dev())
        };
        #[cfg(not(unix))]
        let (ino, dev) = (0, 0);
        Some(Stamp {
            len: meta.len(),
            mtime_ns,
            ino,
            dev,
        })
    }
}

/// A record of the cache file: where it lies, and for which version of its file.
struct Slot {
    stamp: Stamp,
    range: Range<usize>,
}

/// A new record, for the file written at the end.
struct Fresh {
    path: PathBuf,
    bytes: Vec<u8>,
}

pub struct Cache {
    file: PathBuf,
    /// The cache file, mapped: only the records of the sessions reported are paged in.
    bytes: Data,
    slots: FxHashMap<PathBuf, Slot>,
    fresh: Vec<Fresh>,
    /// Files modified after this are not recorded.
    settled_before: i128,
}

/// What the calls' identities hash to in this build: a cache written by a build where
/// they differ is not used.
fn probe() -> u128 {
    identity("pi-session", "usage cache")
}

impl Cache {
    /// The cache kept in `file`: empty when there is none or it cannot be used.
    pub fn open(file: &Path) -> Cache {
        let now = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as i128);
        let mut cache = Cache {
            file: file.to_path_buf(),
            bytes: Data::Owned(Vec::new()),
            slots: FxHashMap::default(),
            fresh: Vec::new(),
            settled_before: now - SETTLE.as_nanos() as i128,
        };
        if let Ok(bytes) = Data::open(file)
            && let Some(slots) = index(&bytes)
        {
            cache.bytes = bytes;
            cache.slots = slots;
        }
        cache
    }

    fn slot(&self, path: &Path, stamp: Option<Stamp>) -> Option<&[u8]> {
        let slot = self.slots.get(path)?;
        (Some(slot.stamp) == stamp).then(|| &self.bytes[slot.range.clone()])
    }

    /// The header recorded for this version of the file.
    pub fn header(&self, path: &Path, stamp: Option<Stamp>) -> Option<HeaderInfo> {
        let mut r = Reader::new(self.slot(path, stamp)?);
        r.skip_key()?;
        read_header(&mut r)
    }

    /// What was read from this version of the file.
    pub fn read(&self, path: &Path, stamp: Option<Stamp>) -> Option<Read> {
        let mut r = Reader::new(self.slot(path, stamp)?);
        r.skip_key()?;
        read_header(&mut r)?;
        read_body(&mut r, path)
    }

    /// Records what was read from a file (read cleanly, from the version `stamp` tells).
    pub fn record(&mut self, path: &Path, stamp: Stamp, header: &HeaderInfo, read: &Read) {
        if stamp.mtime_ns >= self.settled_before {
            return;
        }
        let mut w = Writer::default();
        w.bytes(path.as_os_str().as_encoded_bytes());
        w.u64(stamp.len);
        w.0.extend_from_slice(&stamp.mtime_ns.to_le_bytes());
        w.u64(stamp.ino);
        w.u64(stamp.dev);
        write_header(&mut w, header);
        write_body(&mut w, read);
        self.fresh.push(Fresh {
            path: path.to_path_buf(),
            bytes: w.0,
        });
    }

    /// Writes the cache file when something new was recorded: the new records, and the
    /// old ones whose files are still there. Best effort: a cache that cannot be written
    /// only makes the next run read the files again.
    pub fn save(self) {
        if self.fresh.is_empty() {
            return;
        }
        let _ = self.write();
    }

    fn write(&self) -> Result<(), crate::session::SessionError> {
        if let Some(dir) = self.file.parent() {
            std::fs::create_dir_all(dir).map_err(|e| crate::session::SessionError::write(dir, e))?;
        }
        crate::session::write::write_file_with(&self.file, true, |file| {
            let mut out = std::io::BufWriter::new(file);
            out.write_all(MAGIC)?;
            out.write_all(&probe().to_le_bytes())?;
            let replaced: rustc_hash::FxHashSet<&Path> = self.fresh.iter().map(|f| f.path.as_path()).collect();
            let kept = self
                .slots
                .iter()
                .filter(|(path, slot)| !replaced.contains(path.as_path()) && Stamp::of(path) == Some(slot.stamp));
            let records = self.fresh.iter().map(|f| &f.bytes[..]);
            for record in records.chain(kept.map(|(_, slot)| &self.bytes[slot.range.clone()])) {
                out.write_all(&(record.len() as u64).to_le_bytes())?;
                out.write_all(&checksum(record).to_le_bytes())?;
                out.write_all(record)?;
            }
            out.flush()
        })
    }
}

/// The records of a cache file by path, or `None` when the file cannot be used.
fn index(bytes: &[u8]) -> Option<FxHashMap<PathBuf, Slot>> {
    let mut r = Reader::new(bytes.strip_prefix(MAGIC)?);
    if r.u128()? != probe() {
        return None;
    }
    let mut slots = FxHashMap::default();
    let base = MAGIC.len();
    while !r.done() {
        let len = usize::try_from(r.u64()?).ok()?;
        let sum = r.u64()?;
        let start = base + r.pos;
        let record = r.take(len)?;
        if checksum(record) != sum {
            return None;
        }
        let mut k = Reader::new(record);
        let path = PathBuf::from(os_string(k.bytes()?)?);
        let stamp = Stamp {
            len: k.u64()?,
            mtime_ns: i128::from_le_bytes(k.take(16)?.try_into().ok()?),
            ino: k.u64()?,
            dev: k.u64()?,
        };
        slots.insert(
            path,
            Slot {
                stamp,
                range: start..start + len,
            },
        );
    }
    Some(slots)
}

/// What tells a record damaged on disk from the one written.
fn checksum(record: &[u8]) -> u64 {
    use std::hash::Hasher;
    let mut h = rustc_hash::FxHasher::default();
    h.write(record);
    h.finish()
}

/// A path's bytes as written by [`Cache::record`] (UTF-8 where the platform's paths are
/// not plain bytes).
fn os_string(b: &[u8]) -> Option<std::ffi::OsString> {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        Some(std::ffi::OsStr::from_bytes(b).to_os_string())
    }
    #[cfg(not(unix))]
    {
        std::str::from_utf8(b).ok().map(std::ffi::OsString::from)
    }
}

fn write_header(w: &mut Writer, h: &HeaderInfo) {
    w.str(&h.id);
    w.opt(h.cwd.as_deref());
    w.opt(h.timestamp.as_deref());
    w.opt(h.parent_session.as_deref());
}

fn read_header(r: &mut Reader) -> Option<HeaderInfo> {
    Some(HeaderInfo {
        id: r.str()?.to_owned(),
        cwd: r.opt()?.map(str::to_owned),
        timestamp: r.opt()?.map(str::to_owned),
        parent_session: r.opt()?.map(str::to_owned),
    })
}

const HAS_IDENTITY: u8 = 1;
const HAS_MS: u8 = 2;
const HAS_PROVIDER: u8 = 4;

fn write_body(w: &mut Writer, read: &Read) {
    w.str(&read.id);
    w.opt(read.cwd.as_deref());
    w.opt(read.parent.as_deref());
    // Models and providers once each, calls by index.
    fn number<'a>(names: &mut FxHashMap<&'a str, u32>, table: &mut Vec<&'a str>, s: &'a str) -> u32 {
        *names.entry(s).or_insert_with(|| {
            table.push(s);
            (table.len() - 1) as u32
        })
    }
    let mut names: FxHashMap<&str, u32> = FxHashMap::default();
    let mut table: Vec<&str> = Vec::new();
    let mut calls: Vec<(u32, Option<u32>)> = Vec::with_capacity(read.calls.len());
    for call in &read.calls {
        let model = number(&mut names, &mut table, &call.model);
        let provider = call.provider.as_deref().map(|p| number(&mut names, &mut table, p));
        calls.push((model, provider));
    }
    w.u64(table.len() as u64);
    for name in &table {
        w.str(name);
    }
    w.u64(read.calls.len() as u64);
    for (call, (model, provider)) in read.calls.iter().zip(calls) {
        let flag = |set: bool, bit: u8| if set { bit } else { 0 };
        let flags = flag(call.identity.is_some(), HAS_IDENTITY)
            | flag(call.ms.is_some(), HAS_MS)
            | flag(provider.is_some(), HAS_PROVIDER);
        w.u8(flags);
        w.u8(Source::ALL.iter().position(|&s| s == call.source).unwrap_or(0) as u8);
        if let Some(identity) = call.identity {
            w.0.extend_from_slice(&identity.to_le_bytes());
        }
        if let Some(ms) = call.ms {
            w.0.extend_from_slice(&ms.to_le_bytes());
        }
        if let Some(p) = provider {
            w.u32(p);
        }
        w.u32(model);
        let t = &call.totals;
        for x in [t.input, t.output, t.cache_read, t.cache_write, t.total_tokens] {
            w.f64(x);
        }
        let c = &t.cost;
        for x in [c.input, c.output, c.cache_read, c.cache_write, c.total] {
            w.f64(x);
        }
    }
}

fn read_body(r: &mut Reader, path: &Path) -> Option<Read> {
    let id = r.str()?.to_owned();
    let cwd = r.opt()?.map(Arc::from);
    let parent = r.opt()?.map(str::to_owned);
    let mut names = Names::default();
    let count = usize::try_from(r.u64()?).ok()?;
    let table = (0..count)
        .map(|_| Some(names.get(r.str()?)))
        .collect::<Option<Vec<Arc<str>>>>()?;
    let name = |i: u32| table.get(i as usize).cloned();
    let count = usize::try_from(r.u64()?).ok()?;
    // Each call takes at least 86 bytes: a count past what is left is a damaged record.
    if count > r.left() / 86 {
        return None;
    }
    let mut calls = Vec::with_capacity(count);
    for _ in 0..count {
        let flags = r.u8()?;
        let source = *Source::ALL.get(usize::from(r.u8()?))?;
        let identity = if flags & HAS_IDENTITY != 0 {
            Some(r.u128()?)
        } else {
            None
        };
        let ms = if flags & HAS_MS != 0 { Some(r.i64()?) } else { None };
        let provider = if flags & HAS_PROVIDER != 0 {
            Some(name(r.u32()?)?)
        } else {
            None
        };
        let model = name(r.u32()?)?;
        let mut f = [0.0; 10];
        for x in &mut f {
            *x = r.f64()?;
        }
        let totals = Totals {
            input: f[0],
            output: f[1],
            cache_read: f[2],
            cache_write: f[3],
            total_tokens: f[4],
            cost: Cost {
                input: f[5],
                output: f[6],
                cache_read: f[7],
                cache_write: f[8],
                total: f[9],
            },
        };
        calls.push(CallRecord {
            identity,
            ms,
            source,
            provider,
            model,
            totals,
        });
    }
    r.done().then(|| Read {
        path: path.to_path_buf(),
        id,
        cwd,
        parent,
        calls,
    })
}

#[derive(Default)]
struct Writer(Vec<u8>);

impl Writer {
    fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn u64(&mut self, v: u64) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }
    fn f64(&mut self, v: f64) {
        self.0.extend_from_slice(&v.to_bits().to_le_bytes());
    }
    fn bytes(&mut self, b: &[u8]) {
        self.u64(b.len() as u64);
        self.0.extend_from_slice(b);
    }
    fn str(&mut self, s: &str) {
        self.bytes(s.as_bytes());
    }
    fn opt(&mut self, s: Option<&str>) {
        match s {
            Some(s) => {
                self.u8(1);
                self.str(s);
            }
            None => self.u8(0),
        }
    }
}

/// Reads what [`Writer`] wrote; `None` past the end or on anything malformed.
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, pos: 0 }
    }
    fn done(&self) -> bool {
        self.pos == self.bytes.len()
    }
    fn left(&self) -> usize {
        self.bytes.len() - self.pos
    }
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let b = self.bytes.get(self.pos..self.pos.checked_add(n)?)?;
        self.pos += n;
        Some(b)
    }
    fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        self.take(N)?.try_into().ok()
    }
    fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }
    fn u32(&mut self) -> Option<u32> {
        self.array().map(u32::from_le_bytes)
    }
    fn u64(&mut self) -> Option<u64> {
        self.array().map(u64::from_le_bytes)
    }
    fn i64(&mut self) -> Option<i64> {
        self.array().map(i64::from_le_bytes)
    }
    fn u128(&mut self) -> Option<u128> {
        self.array().map(u128::from_le_bytes)
    }
    fn f64(&mut self) -> Option<f64> {
        self.u64().map(f64::from_bits)
    }
    fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = usize::try_from(self.u64()?).ok()?;
        self.take(n)
    }
    fn str(&mut self) -> Option<&'a str> {
        std::str::from_utf8(self.bytes()?).ok()
    }
    fn opt(&mut self) -> Option<Option<&'a str>> {
        match self.u8()? {
            0 => Some(None),
            1 => Some(Some(self.str()?)),
            _ => None,
        }
    }
    /// Passes over a record's path and stamp.
    fn skip_key(&mut self) -> Option<()> {
        self.bytes()?;
        self.take(8 + 16 + 8 + 8).map(drop)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(identity: Option<u128>, ms: Option<i64>, provider: Option<&str>, model: &str, x: f64) -> CallRecord {
        let mut totals = Totals {
            input: x,
            total_tokens: 2.0 * x,
            ..Totals::default()
        };
        totals.cost.total = 0.1 + x;
        CallRecord {
            identity,
            ms,
            source: Source::ALL[(x as usize) % Source::ALL.len()],
            provider: provider.map(Arc::from),
            model: Arc::from(model),
            totals,
        }
    }

    fn session(dir: &Path, name: &str) -> (PathBuf, Stamp) {
        let path = dir.join(name);
        std::fs::write(&path, "{}\n").unwrap();
        let old = SystemTime::now() - Duration::from_secs(60);
        std::fs::File::options()
            .write(true)
            .open(&path)
            .unwrap()
            .set_modified(old)
            .unwrap();
        let stamp = Stamp::of(&path).unwrap();
        (path, stamp)
    }

    #[test]
    fn a_record_reads_back_as_written_while_its_file_is_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("cache/usage.cache");
        let (path, stamp) = session(dir.path(), "a.jsonl");
        let header = HeaderInfo {
            id: "a".into(),
            cwd: Some("/p".into()),
            timestamp: None,
            parent_session: Some("/x.jsonl".into()),
        };
        let read = Read {
            path: path.clone(),
            id: "a".into(),
            cwd: Some(Arc::from("/p")),
            parent: Some("/x.jsonl".into()),
            calls: vec![
                call(Some(u128::MAX - 1), Some(-5), Some("anthropic"), "m", 1.0),
                call(None, None, None, "m", 2.0),
                call(Some(7), Some(1_800_000_000_000), Some("m"), "n", 3.0),
            ],
        };
        let mut cache = Cache::open(&file);
        cache.record(&path, stamp, &header, &read);
        cache.save();

        let cache = Cache::open(&file);
        let back = cache.read(&path, Some(stamp)).expect("recorded");
        assert_eq!(back.calls, read.calls);
        assert_eq!((&back.id, &back.cwd, &back.parent), (&read.id, &read.cwd, &read.parent));
        let h = cache.header(&path, Some(stamp)).unwrap();
        assert_eq!(
            (h.id, h.cwd, h.timestamp, h.parent_session),
            ("a".into(), Some("/p".into()), None, Some("/x.jsonl".into()))
        );

        // Another version of the file, or another file, is not answered.
        let mut changed = stamp;
        changed.len += 1;
        assert!(cache.read(&path, Some(changed)).is_none());
        assert!(cache.read(&dir.path().join("b.jsonl"), Some(stamp)).is_none());
        assert!(cache.header(&path, None).is_none());

        // A file modified a moment ago is not recorded.
        let mut cache = Cache::open(&file);
        let fresh = dir.path().join("fresh.jsonl");
        std::fs::write(&fresh, "{}\n").unwrap();
        cache.record(&fresh, Stamp::of(&fresh).unwrap(), &header, &read);
        assert!(cache.fresh.is_empty());
    }

    #[test]
    fn a_cache_that_cannot_be_used_is_empty() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("usage.cache");
        let (path, stamp) = session(dir.path(), "a.jsonl");
        let header = HeaderInfo {
            id: "a".into(),
            cwd: None,
            timestamp: None,
            parent_session: None,
        };
        let read = Read {
            path: path.clone(),
            id: "a".into(),
            cwd: None,
            parent: None,
            calls: vec![call(Some(1), Some(2), None, "m", 1.0)],
        };
        let mut cache = Cache::open(&file);
        cache.record(&path, stamp, &header, &read);
        cache.save();
        let whole = std::fs::read(&file).unwrap();
        assert!(Cache::open(&file).read(&path, Some(stamp)).is_some());
        // Torn at every length, or with another probe: nothing is answered, nothing panics.
        for cut in 0..whole.len() {
            std::fs::write(&file, &whole[..cut]).unwrap();
            let cache = Cache::open(&file);
            assert!(cache.slots.is_empty(), "torn at {cut}");
        }
        let mut other = whole.clone();
        other[MAGIC.len()] ^= 1;
        std::fs::write(&file, &other).unwrap();
        assert!(Cache::open(&file).slots.is_empty());
        // A record damaged on disk (any byte of it) is not used.
        for at in MAGIC.len() + 16..whole.len() {
            let mut damaged = whole.clone();
            damaged[at] ^= 0x10;
            std::fs::write(&file, &damaged).unwrap();
            assert!(Cache::open(&file).read(&path, Some(stamp)).is_none(), "damaged at {at}");
        }
    }
}
