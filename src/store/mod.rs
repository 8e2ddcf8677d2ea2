//! The session store as a whole rather than one session: sessions moved out of Pi's
//! folders into the archive beside them and back ([`archive`]), or to the trash
//! ([`trash`]), each move one rename that never replaces (a session is in exactly one place
//! at every moment), and the caches' records of what moved dropped ([`forget_cached`]).

pub mod archive;
pub mod trash;

use std::path::{Path, PathBuf};

/// Whether the file `meta` describes changed in the last few seconds
/// ([`crate::session::io::append::modified_recently`]): a running Pi may have the session
/// open, and would go on writing to a file that has left its folder.
pub fn changed_recently(meta: &std::fs::Metadata) -> bool {
    crate::session::io::append::modified_recently(meta.modified().ok())
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
