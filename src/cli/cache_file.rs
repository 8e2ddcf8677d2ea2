//! Where the command line keeps its caches (`usage`, `ls`).

use std::path::PathBuf;

/// What `usage` read from each session file.
pub const USAGE: &str = "usage.cache";

/// The verdicts `check` reached on each session file, under the last policy it checked.
pub const CHECK: &str = "check.cache";

/// What `ls` (and `grep --all`, which searches what `ls --all` lists) read from each
/// session file.
pub const LISTING: &str = "listing.cache";

/// The cache file `name`: $XDG_CACHE_HOME/pi-session/`name`, else under ~/.cache; `None`
/// when neither is set to an absolute path.
pub fn cache_file(name: &str) -> Option<PathBuf> {
    let absolute = |v: std::ffi::OsString| Some(PathBuf::from(v)).filter(|p| p.is_absolute());
    let base = std::env::var_os("XDG_CACHE_HOME")
        .and_then(absolute)
        .or_else(|| std::env::var_os("HOME").and_then(absolute).map(|h| h.join(".cache")))?;
    Some(base.join("pi-session").join(name))
}
