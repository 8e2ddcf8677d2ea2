//! What a command read from each file, kept between runs so that reading files that have
//! not changed costs a `stat` per file: the one cache behind `usage` and `ls` (each keeps
//! its own cache file, and says what a record holds; this module keeps them).
//!
//! A file's record is used only while the file's size, modification time, inode and device
//! are those it had when it was read: Pi only ever appends to a session (the size changes)
//! and `repair` renames a new file over it (the inode changes). A file modified in the last
//! few seconds before a run is not recorded, so that a change within the timestamp's
//! resolution cannot go unnoticed. The cache is one file, replaced whole (temp file and
//! rename) when a run read something new; anything wrong with it (missing, torn, damaged,
//! another kind or version, written by another build) makes it empty, never a different
//! answer.
//!
//! The file: the user's magic line, its probe (16 bytes), the [`Stamp`] of the executable
//! that wrote it; then per record its length, checksum, and the record: the file's path and
//! stamp, then what the user wrote.

use crate::session::io::data::Data;
use rustc_hash::FxHashMap;
use std::io::Write;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// Files modified this recently are not recorded.
const SETTLE: Duration = Duration::from_secs(2);

/// What tells a file's versions apart.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Stamp {
    len: u64,
    mtime_ns: i128,
    ino: u64,
    dev: u64,
}

impl Stamp {
    /// The stamp of the regular file at `path` (symbolic links followed); `None` for
    /// anything else, or what cannot be read.
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

    fn write(&self, w: &mut Writer) {
        w.u64(self.len);
        w.i128(self.mtime_ns);
        w.u64(self.ino);
        w.u64(self.dev);
    }

    fn read(r: &mut Reader) -> Option<Stamp> {
        Some(Stamp {
            len: r.u64()?,
            mtime_ns: r.i128()?,
            ino: r.u64()?,
            dev: r.u64()?,
        })
    }
}

/// The key a file is recorded under: its path made absolute (not resolved, which would
/// cost more than the `stat`).
pub fn key(path: &Path) -> PathBuf {
    std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf())
}

/// What the cache file starts with: the user's magic line and probe, then the build's stamp.
fn preamble(magic: &[u8], probe: u128) -> Vec<u8> {
    let mut w = Writer::default();
    w.0.extend_from_slice(magic);
    w.u128(probe);
    // What a record holds is what this build read: another build may read differently
    // (a fix to what Pi's reading means, a new field), so its records are not used.
    let build = std::env::current_exe().ok().and_then(|exe| Stamp::of(&exe));
    build.unwrap_or_default().write(&mut w);
    w.0
}

/// A record of the cache file: where it lies, and for which version of its file.
struct Slot {
    stamp: Stamp,
    /// The whole record (its key included).
    range: Range<usize>,
    /// Where what the user wrote starts.
    body: usize,
}

/// A new record, for the file written at the end.
struct Fresh {
    key: Vec<u8>,
    bytes: Vec<u8>,
}

/// A cache of one record per file.
pub struct FileCache {
    file: PathBuf,
    preamble: Vec<u8>,
    /// The cache file, mapped: only the records of the files looked up are paged in.
    bytes: Data,
    /// The records by their key's bytes (hashed faster than a `Path`, which hashes its
    /// components).
    slots: FxHashMap<Box<[u8]>, Slot>,
    fresh: Vec<Fresh>,
    /// Files modified after this are not recorded.
    settled_before: i128,
}

impl FileCache {
    /// The cache kept in `file`: empty when there is none or it cannot be used. `magic` (a
    /// line naming the cache and its record format) and `probe` (what the user's records
    /// depend on besides the build) must be those it was written with.
    pub fn open(file: &Path, magic: &[u8], probe: u128) -> FileCache {
        let now = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos() as i128);
        let mut cache = FileCache {
            file: file.to_path_buf(),
            preamble: preamble(magic, probe),
            bytes: Data::Owned(Vec::new()),
            slots: FxHashMap::default(),
            fresh: Vec::new(),
            settled_before: now - SETTLE.as_nanos() as i128,
        };
        if let Ok(bytes) = Data::open(file)
            && let Some(slots) = index(&bytes, &cache.preamble)
        {
            cache.bytes = bytes;
            cache.slots = slots;
        }
        cache
    }

    /// What was recorded for this version of the file (`key` as [`key`] makes it, `stamp`
    /// as the file is now): a reader at the start of what the user wrote.
    pub fn get(&self, key: &Path, stamp: Option<Stamp>) -> Option<Reader<'_>> {
        let slot = self.slots.get(key.as_os_str().as_encoded_bytes())?;
        (Some(slot.stamp) == stamp).then(|| Reader::new(&self.bytes[slot.body..slot.range.end]))
    }

    /// Records what was read from a file (from the version `stamp` tells), as `body`
    /// writes it; a file modified too recently is not recorded.
    pub fn record(&mut self, key: &Path, stamp: Stamp, body: impl FnOnce(&mut Writer)) {
        if stamp.mtime_ns >= self.settled_before {
            return;
        }
        let mut w = Writer::default();
        let key = key.as_os_str().as_encoded_bytes();
        w.bytes(key);
        stamp.write(&mut w);
        body(&mut w);
        self.fresh.push(Fresh {
            key: key.to_vec(),
            bytes: w.0,
        });
    }

    /// How many records are new in this run.
    #[cfg(test)]
    pub fn recorded(&self) -> usize {
        self.fresh.len()
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
        crate::session::io::write::write_file_with(&self.file, true, |file| {
            owner_only(file)?;
            let mut out = std::io::BufWriter::new(file);
            out.write_all(&self.preamble)?;
            let replaced: rustc_hash::FxHashSet<&[u8]> = self.fresh.iter().map(|f| &f.key[..]).collect();
            let unchanged = |key: &[u8], slot: &Slot| {
                os_string(key).is_some_and(|path| Stamp::of(Path::new(&path)) == Some(slot.stamp))
            };
            let kept = self
                .slots
                .iter()
                .filter(|(key, slot)| !replaced.contains(&key[..]) && unchanged(key, slot));
            let records = self.fresh.iter().map(|f| &f.bytes[..]);
            for record in records.chain(kept.map(|(_, slot)| &self.bytes[slot.range.clone()])) {
                out.write_all(&(record.len() as u64).to_le_bytes())?;
                out.write_all(&checksum(record).to_le_bytes())?;
                out.write_all(record)?;
            }
            out.flush()
        })?;
        // A cache written by an earlier version may have been readable by others, and the
        // replacement takes on the permissions of the file it replaces.
        if let Ok(file) = std::fs::File::open(&self.file) {
            let _ = owner_only(&file);
        }
        Ok(())
    }
}

/// Drops the records of `paths` (as [`key`] makes their keys) from the cache file `file`,
/// whatever its kind: for a command that moves sessions away, so that no record is kept
/// under a path the session left (and no later file at that path could meet it). The
/// records of other files are kept as they are; a cache that cannot be read or written
/// is left alone (best effort, as [`FileCache::save`]). Returns how many were dropped.
pub fn forget(file: &Path, paths: &[PathBuf]) -> usize {
    let Ok(bytes) = std::fs::read(file) else {
        return 0;
    };
    // The preamble: the magic line, then the probe and the build's stamp.
    let Some(magic_end) = memchr::memchr(b'\n', &bytes) else {
        return 0;
    };
    let fixed = preamble(b"", 0).len();
    let Some(preamble) = bytes.get(..magic_end + 1 + fixed) else {
        return 0;
    };
    let Some(slots) = index(&bytes, preamble) else {
        return 0;
    };
    let gone: rustc_hash::FxHashSet<Vec<u8>> = paths
        .iter()
        .map(|p| key(p).into_os_string().into_encoded_bytes())
        .collect();
    let dropped = slots.keys().filter(|k| gone.contains(&k[..])).count();
    if dropped == 0 {
        return 0;
    }
    let mut kept: Vec<&Slot> = slots
        .iter()
        .filter(|(k, _)| !gone.contains(&k[..]))
        .map(|(_, slot)| slot)
        .collect();
    kept.sort_by_key(|slot| slot.range.start);
    let written = crate::session::io::write::write_file_with(file, true, |f| {
        owner_only(f)?;
        let mut out = std::io::BufWriter::new(f);
        out.write_all(preamble)?;
        for slot in kept {
            let record = &bytes[slot.range.clone()];
            out.write_all(&(record.len() as u64).to_le_bytes())?;
            out.write_all(&checksum(record).to_le_bytes())?;
            out.write_all(record)?;
        }
        out.flush()
    });
    if written.is_ok() { dropped } else { 0 }
}

/// Makes `file` readable and writable by its owner only: a cache holds what sessions say
/// (the listing's names and first messages), which is no one else's to read.
fn owner_only(file: &std::fs::File) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    #[cfg(not(unix))]
    let _ = file;
    Ok(())
}

/// The records of a cache file by key, or `None` when the file cannot be used.
fn index(bytes: &[u8], preamble: &[u8]) -> Option<FxHashMap<Box<[u8]>, Slot>> {
    let mut r = Reader::new(bytes.strip_prefix(preamble)?);
    let mut slots = FxHashMap::default();
    let base = preamble.len();
    while !r.done() {
        let len = usize::try_from(r.u64()?).ok()?;
        let sum = r.u64()?;
        let start = base + r.pos;
        let record = r.take(len)?;
        if checksum(record) != sum {
            return None;
        }
        let mut k = Reader::new(record);
        let key = Box::from(k.bytes()?);
        let stamp = Stamp::read(&mut k)?;
        slots.insert(
            key,
            Slot {
                stamp,
                range: start..start + len,
                body: start + k.pos,
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

/// A path's bytes as written by [`FileCache::record`] (UTF-8 where the platform's paths
/// are not plain bytes).
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

/// A record's bytes, little-endian; strings and byte strings after their length.
#[derive(Default)]
pub struct Writer(Vec<u8>);

impl Writer {
    pub fn u8(&mut self, v: u8) {
        self.0.push(v);
    }
    pub fn f64(&mut self, v: f64) {
        self.u64(v.to_bits());
    }
    pub fn bytes(&mut self, b: &[u8]) {
        self.u64(b.len() as u64);
        self.0.extend_from_slice(b);
    }
    pub fn str(&mut self, s: &str) {
        self.bytes(s.as_bytes());
    }
    /// An optional string: a byte 0 (none) or 1 (then the string).
    pub fn opt(&mut self, s: Option<&str>) {
        match s {
            Some(s) => {
                self.u8(1);
                self.str(s);
            }
            None => self.u8(0),
        }
    }
}

/// The fixed-size integers, little-endian, for [`Writer`] and [`Reader`].
macro_rules! integers {
    ($($t:ident),*) => {
        impl Writer {
            $(pub fn $t(&mut self, v: $t) {
                self.0.extend_from_slice(&v.to_le_bytes());
            })*
        }
        impl Reader<'_> {
            $(pub fn $t(&mut self) -> Option<$t> {
                self.array().map($t::from_le_bytes)
            })*
        }
    };
}
integers!(u32, u64, i64, u128, i128);

/// Reads what [`Writer`] wrote; `None` past the end or on anything malformed.
pub struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes, pos: 0 }
    }
    /// Whether everything was read.
    pub fn done(&self) -> bool {
        self.pos == self.bytes.len()
    }
    /// The bytes not yet read.
    pub fn left(&self) -> usize {
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
    pub fn u8(&mut self) -> Option<u8> {
        Some(self.take(1)?[0])
    }
    pub fn f64(&mut self) -> Option<f64> {
        self.u64().map(f64::from_bits)
    }
    pub fn bytes(&mut self) -> Option<&'a [u8]> {
        let n = usize::try_from(self.u64()?).ok()?;
        self.take(n)
    }
    pub fn str(&mut self) -> Option<&'a str> {
        std::str::from_utf8(self.bytes()?).ok()
    }
    pub fn opt(&mut self) -> Option<Option<&'a str>> {
        match self.u8()? {
            0 => Some(None),
            1 => Some(Some(self.str()?)),
            _ => None,
        }
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    const MAGIC: &[u8] = b"pi-session test cache 1\n";

    /// A file at `dir/name` last modified a minute ago (settled), and its stamp.
    pub(crate) fn settled_file(dir: &Path, name: &str, text: &str) -> (PathBuf, Stamp) {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
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

    fn body(r: &mut Reader) -> Option<(String, u64, i64, f64, Option<String>, u128)> {
        let v = (
            r.str()?.to_owned(),
            r.u64()?,
            r.i64()?,
            r.f64()?,
            r.opt()?.map(str::to_owned),
            r.u128()?,
        );
        r.done().then_some(v)
    }

    fn write_body(w: &mut Writer, text: &str) {
        w.str(text);
        w.u64(u64::MAX);
        w.i64(-5);
        w.f64(1.5);
        w.opt(None);
        w.u128(u128::MAX - 1);
    }

    /// Forgetting drops the named files' records, whatever the cache's kind, and keeps the
    /// others readable.
    #[test]
    fn forgotten_records_are_gone_and_the_rest_kept() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("test.cache");
        let (a, a_stamp) = settled_file(dir.path(), "a.jsonl", "{}\n");
        let (b, b_stamp) = settled_file(dir.path(), "b.jsonl", "{}\n");
        let mut cache = FileCache::open(&file, MAGIC, 7);
        cache.record(&a, a_stamp, |w| write_body(w, "a"));
        cache.record(&b, b_stamp, |w| write_body(w, "b"));
        cache.save();
        assert_eq!(forget(&file, &[dir.path().join("none.jsonl")]), 0);
        assert_eq!(forget(&file, std::slice::from_ref(&a)), 1);
        let cache = FileCache::open(&file, MAGIC, 7);
        assert!(cache.get(&a, Some(a_stamp)).is_none());
        assert!(body(&mut cache.get(&b, Some(b_stamp)).unwrap()).is_some());
        // No cache file, or not a cache: nothing to do, nothing made.
        assert_eq!(forget(&dir.path().join("missing"), std::slice::from_ref(&b)), 0);
        assert!(!dir.path().join("missing").exists());
        std::fs::write(&file, "not a cache").unwrap();
        assert_eq!(forget(&file, &[b]), 0);
        assert_eq!(std::fs::read(&file).unwrap(), b"not a cache");
    }

    /// A cache left readable by others (by an earlier version) is made private when it is
    /// written again.
    #[cfg(unix)]
    #[test]
    fn a_cache_is_its_owners_alone() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("test.cache");
        std::fs::write(&file, "an earlier cache").unwrap();
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
        let (a, stamp) = settled_file(dir.path(), "a.jsonl", "{}\n");
        let mut cache = FileCache::open(&file, MAGIC, 7);
        cache.record(&a, stamp, |w| write_body(w, "a"));
        cache.save();
        let mode = std::fs::metadata(&file).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        assert!(FileCache::open(&file, MAGIC, 7).get(&a, Some(stamp)).is_some());
    }

    #[test]
    fn a_record_reads_back_as_written_while_its_file_is_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("cache/test.cache");
        let (a, stamp) = settled_file(dir.path(), "a.jsonl", "{}\n");
        let (b, b_stamp) = settled_file(dir.path(), "b.jsonl", "{}\n");
        let mut cache = FileCache::open(&file, MAGIC, 7);
        assert!(cache.get(&a, Some(stamp)).is_none());
        cache.record(&a, stamp, |w| write_body(w, "a"));
        cache.record(&b, b_stamp, |w| write_body(w, "b"));
        assert_eq!(cache.recorded(), 2);
        cache.save();

        let cache = FileCache::open(&file, MAGIC, 7);
        let want = |t: &str| Some((t.to_owned(), u64::MAX, -5, 1.5, None, u128::MAX - 1));
        assert_eq!(body(&mut cache.get(&a, Some(stamp)).unwrap()), want("a"));
        assert_eq!(body(&mut cache.get(&b, Some(b_stamp)).unwrap()), want("b"));
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&file).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600, "only its owner reads a cache");
        }
        // Another version of the file, no file, or another file: not answered.
        let mut changed = stamp;
        changed.len += 1;
        assert!(cache.get(&a, Some(changed)).is_none());
        assert!(cache.get(&a, None).is_none());
        assert!(cache.get(&dir.path().join("c.jsonl"), Some(stamp)).is_none());
        // Another magic or probe: nothing.
        assert!(FileCache::open(&file, b"pi-session test cache 2\n", 7).slots.is_empty());
        assert!(FileCache::open(&file, MAGIC, 8).slots.is_empty());

        // A run that records nothing leaves the file as it is.
        let before = std::fs::read(&file).unwrap();
        std::fs::remove_file(&b).unwrap();
        FileCache::open(&file, MAGIC, 7).save();
        assert_eq!(std::fs::read(&file).unwrap(), before);
        // One that does keeps the records of files still as they were, and drops the rest.
        let (c, c_stamp) = settled_file(dir.path(), "c.jsonl", "{}\n");
        let mut cache = FileCache::open(&file, MAGIC, 7);
        cache.record(&c, c_stamp, |w| write_body(w, "c"));
        cache.save();
        let cache = FileCache::open(&file, MAGIC, 7);
        assert_eq!(cache.slots.len(), 2);
        assert_eq!(body(&mut cache.get(&a, Some(stamp)).unwrap()), want("a"));
        assert_eq!(body(&mut cache.get(&c, Some(c_stamp)).unwrap()), want("c"));
    }

    #[test]
    fn a_file_changed_within_the_settle_window_is_not_recorded() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("test.cache");
        let fresh = dir.path().join("fresh.jsonl");
        std::fs::write(&fresh, "{}\n").unwrap();
        let mut cache = FileCache::open(&file, MAGIC, 7);
        cache.record(&fresh, Stamp::of(&fresh).unwrap(), |w| write_body(w, "f"));
        assert_eq!(cache.recorded(), 0);
        cache.save();
        assert!(!file.exists(), "nothing recorded, nothing written");
    }

    #[test]
    fn a_stamp_tells_appends_replacements_and_touches_apart() {
        let dir = tempfile::tempdir().unwrap();
        let (path, stamp) = settled_file(dir.path(), "a.jsonl", "{}\n");
        assert_eq!(Stamp::of(&path), Some(stamp));
        assert_eq!(Stamp::of(dir.path()), None, "a folder has none");
        assert_eq!(Stamp::of(&dir.path().join("missing")), None);
        // Appended.
        std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(b"{}\n")
            .unwrap();
        let appended = Stamp::of(&path).unwrap();
        assert_ne!(appended, stamp);
        // Renamed over, same size and time.
        let (other, _) = settled_file(dir.path(), "b.jsonl", "{}\n{}\n");
        let time = std::fs::metadata(&path).unwrap().modified().unwrap();
        std::fs::File::options()
            .write(true)
            .open(&other)
            .unwrap()
            .set_modified(time)
            .unwrap();
        std::fs::rename(&other, &path).unwrap();
        let replaced = Stamp::of(&path).unwrap();
        assert_eq!((replaced.len, replaced.mtime_ns), (appended.len, appended.mtime_ns));
        assert_ne!(replaced, appended);
    }

    #[test]
    fn a_cache_that_cannot_be_used_is_empty() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("test.cache");
        let (path, stamp) = settled_file(dir.path(), "a.jsonl", "{}\n");
        let mut cache = FileCache::open(&file, MAGIC, 7);
        cache.record(&path, stamp, |w| write_body(w, "a"));
        cache.save();
        let whole = std::fs::read(&file).unwrap();
        let preamble = preamble(MAGIC, 7).len();
        assert!(FileCache::open(&file, MAGIC, 7).get(&path, Some(stamp)).is_some());
        // Torn at every length: nothing is answered, nothing panics.
        for cut in 0..whole.len() {
            std::fs::write(&file, &whole[..cut]).unwrap();
            assert!(FileCache::open(&file, MAGIC, 7).slots.is_empty(), "torn at {cut}");
        }
        // Any byte of the preamble (magic, probe, build) or of the record damaged: nothing.
        for at in 0..whole.len() {
            let mut damaged = whole.clone();
            damaged[at] ^= 0x10;
            std::fs::write(&file, &damaged).unwrap();
            let cache = FileCache::open(&file, MAGIC, 7);
            assert!(cache.get(&path, Some(stamp)).is_none(), "damaged at {at}");
            if at < preamble {
                assert!(cache.slots.is_empty(), "damaged at {at}");
            }
        }
        // A damaged cache is replaced whole by the next run that records something.
        let mut cache = FileCache::open(&file, MAGIC, 7);
        cache.record(&path, stamp, |w| write_body(w, "a"));
        cache.save();
        assert_eq!(std::fs::read(&file).unwrap(), whole);
    }
}
