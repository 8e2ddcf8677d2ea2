//! What the report read from each session file, kept between runs so that a report over
//! files that have not changed costs a `stat` per file ([`crate::file_cache`]: when a
//! record is used, when one is written). A record holds the file's header, then its calls.

use super::{CallRecord, Names, Read, identity};
use crate::file_cache::{FileCache, Reader, Stamp, Writer};
use crate::session::io::locate::HeaderInfo;
use crate::usage::{Cost, Source, Totals};
use rustc_hash::FxHashMap;
use std::path::Path;
use std::sync::Arc;

const MAGIC: &[u8] = b"pi-session usage cache 2\n";

/// What the calls' identities hash to in this build: a cache written by a build where
/// they differ is not used.
fn probe() -> u128 {
    identity("pi-session", "usage cache")
}

pub struct Cache(FileCache);

impl Cache {
    /// The cache kept in `file`: empty when there is none or it cannot be used.
    pub fn open(file: &Path) -> Cache {
        Cache(FileCache::open(file, MAGIC, probe()))
    }

    /// The header recorded for this version of the file (`key` as [`crate::file_cache::key`]
    /// makes it).
    pub fn header(&self, key: &Path, stamp: Option<Stamp>) -> Option<HeaderInfo> {
        read_header(&mut self.0.get(key, stamp)?)
    }

    /// What was read from this version of the file.
    pub fn read(&self, key: &Path, stamp: Option<Stamp>) -> Option<Read> {
        let mut r = self.0.get(key, stamp)?;
        read_header(&mut r)?;
        read_body(&mut r, key)
    }

    /// Records what was read from a file (read cleanly, from the version `stamp` tells).
    pub fn record(&mut self, key: &Path, stamp: Stamp, header: &HeaderInfo, read: &Read) {
        self.0.record(key, stamp, |w| {
            write_header(w, header);
            write_body(w, read);
        });
    }

    /// Writes the cache file when something new was recorded (best effort).
    pub fn save(self) {
        self.0.save();
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
            w.u128(identity);
        }
        if let Some(ms) = call.ms {
            w.i64(ms);
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::file_cache::tests::settled_file;

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

    #[test]
    fn a_record_reads_back_as_written_while_its_file_is_unchanged() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("cache/usage.cache");
        let (path, stamp) = settled_file(dir.path(), "a.jsonl", "{}\n");
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
        let (_, appended) = settled_file(dir.path(), "a.jsonl", "{}\n{}\n");
        assert!(cache.read(&path, Some(appended)).is_none());
        assert!(cache.read(&dir.path().join("b.jsonl"), Some(stamp)).is_none());
        assert!(cache.header(&path, None).is_none());

        // A file modified a moment ago is not recorded.
        let mut cache = Cache::open(&file);
        let fresh = dir.path().join("fresh.jsonl");
        std::fs::write(&fresh, "{}\n").unwrap();
        cache.record(&fresh, Stamp::of(&fresh).unwrap(), &header, &read);
        assert_eq!(cache.0.recorded(), 0);
    }

    #[test]
    fn a_cache_of_other_call_identities_is_not_used() {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("usage.cache");
        let (path, stamp) = settled_file(dir.path(), "a.jsonl", "{}\n");
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
        assert!(Cache::open(&file).read(&path, Some(stamp)).is_some());
        // Written by a build whose call identities hash otherwise: not used (how the cache
        // tells torn and damaged files is tested with it, in `file_cache`).
        let mut other = std::fs::read(&file).unwrap();
        other[MAGIC.len()] ^= 1;
        std::fs::write(&file, &other).unwrap();
        assert!(Cache::open(&file).read(&path, Some(stamp)).is_none());
    }
}
