//! The session store as a whole rather than one session: sessions moved out of Pi's
//! folders into the archive beside them and back ([`archive`]), or to the trash
//! ([`trash`]), each move one rename that never replaces (a session is in exactly one place
//! at every moment), and the caches' records of what moved dropped ([`forget_cached`]).

pub mod archive;
pub mod trash;

use crate::session::io::append::RECENT_WRITE;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Whether the file `meta` describes changed less than [`RECENT_WRITE`] before `now` (a
/// time in the future counts as now): a running Pi may have the session open, and would go
/// on writing to a file that has left its folder.
pub fn changed_recently(meta: &std::fs::Metadata, now: SystemTime) -> bool {
    meta.modified()
        .ok()
        .map(|m| now.duration_since(m).unwrap_or_default())
        .is_some_and(|age| age < RECENT_WRITE)
}

/// Drops the records of `paths` from each cache file of `caches` (the listing's, usage's,
/// check's: every cache is keyed by path), so that what moved away is never answered from
/// a record kept under its old path. Best effort, as the caches are: a cache that cannot be
/// read or written is left as it is. Returns how many records were dropped.
pub fn forget_cached(caches: &[PathBuf], paths: &[&Path]) -> usize {
    // A record is keyed by the path as it was read: given, and resolved through links.
    let mut keys: Vec<PathBuf> = Vec::with_capacity(paths.len() * 2);
    for p in paths {
        keys.push(p.to_path_buf());
        if let Some(dir) = p.parent().and_then(|d| std::fs::canonicalize(d).ok())
            && let Some(name) = p.file_name()
        {
            keys.push(dir.join(name));
        }
    }
    caches.iter().map(|c| crate::file_cache::forget(c, &keys)).sum()
}
