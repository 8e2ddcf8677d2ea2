//! The temp files a write makes beside its target before putting them in place.
//!
//! They are named after the target and the process (`.NAME.PID.tmp`, `.NAME.TAG.PID.tmp`),
//! and listed here while they exist, so that an interrupted run can remove them (the binary's
//! signal handler calls [`remove_registered`]). One that a killed process left behind is
//! found by the next write beside the same target, by its process being gone, and removed
//! ([`remove_stale`]); the paths removed so are kept for the binary to report
//! ([`take_removed_stale`]).

use std::fs::{File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, MutexGuard};

/// The tags a temp file's name may carry between the target's name and the process id.
const TAGS: [&str; 2] = ["repair", "rejects"];

static LIVE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());
static REMOVED_STALE: Mutex<Vec<PathBuf>> = Mutex::new(Vec::new());

fn lock(list: &'static Mutex<Vec<PathBuf>>) -> MutexGuard<'static, Vec<PathBuf>> {
    list.lock().unwrap_or_else(|e| e.into_inner())
}

/// The temp file for `target` in `dir`: `.NAME.PID.tmp`, or `.NAME.TAG.PID.tmp` with a tag
/// (one of [`TAGS`]).
pub fn temp_path(dir: &Path, target: &Path, tag: Option<&str>) -> PathBuf {
    debug_assert!(tag.is_none_or(|t| TAGS.contains(&t)));
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let pid = std::process::id();
    dir.join(match tag {
        Some(tag) => format!(".{name}.{tag}.{pid}.tmp"),
        None => format!(".{name}.{pid}.tmp"),
    })
}

/// A temp file that is removed if the process is interrupted, or if this is dropped before
/// [`Temp::placed`] says it was renamed (or linked) into place.
#[derive(Debug)]
pub struct Temp {
    path: PathBuf,
}

impl Temp {
    /// Creates the file at `path` with `options` (and `create_new`: a file already there is
    /// not taken over, nor removed), registered from before it exists.
    pub fn create(path: PathBuf, options: &mut OpenOptions) -> io::Result<(Temp, File)> {
        lock(&LIVE).push(path.clone());
        match options.create_new(true).open(&path) {
            Ok(file) => Ok((Temp { path }, file)),
            Err(e) => {
                unregister(&path);
                Err(e)
            }
        }
    }

    /// Registers a file this process has just made (a backup linked into place), or is
    /// about to make, or a folder made for such files (removed once they are gone, if empty).
    pub fn register(path: PathBuf) -> Temp {
        lock(&LIVE).push(path.clone());
        Temp { path }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file is in place under its new name: nothing is left to remove.
    pub fn placed(self) {
        unregister(&self.path);
        std::mem::forget(self);
    }
}

impl Temp {
    /// Forgets the file without removing it: it was never made (a write that failed before
    /// placing it, whose own temp file is already gone), or is not this one's to remove.
    pub fn placed_quietly(self) {
        self.placed();
    }
}

/// Runs `step` (the removal of a moved file's old name, say) and then unregisters `temp`, with
/// the list locked throughout, so that an interrupt removes `temp` only if `step` has not run:
/// the signal handler ([`remove_registered`]) waits for the lock.
pub fn commit<T>(temp: Temp, step: impl FnOnce() -> io::Result<T>) -> io::Result<T> {
    let mut live = lock(&LIVE);
    let done = step();
    if done.is_ok()
        && let Some(i) = live.iter().rposition(|p| p == &temp.path)
    {
        live.swap_remove(i);
    }
    drop(live);
    match done {
        Ok(t) => {
            std::mem::forget(temp);
            Ok(t)
        }
        // Not done: dropping `temp` removes the new file, the old one stays.
        Err(e) => Err(e),
    }
}

impl Drop for Temp {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path).or_else(|_| std::fs::remove_dir(&self.path));
        unregister(&self.path);
    }
}

fn unregister(path: &Path) {
    let mut live = lock(&LIVE);
    if let Some(i) = live.iter().rposition(|p| p == path) {
        live.swap_remove(i);
    }
}

/// Removes every registered temp file, for a process about to end on a signal. The list
/// stays locked, so a write still going on cannot register or place another one.
pub fn remove_registered() -> MutexGuard<'static, Vec<PathBuf>> {
    let live = lock(&LIVE);
    for p in live.iter() {
        let _ = std::fs::remove_file(p);
    }
    // The folders made for them, empty now.
    for p in live.iter() {
        let _ = std::fs::remove_dir(p);
    }
    live
}

/// Removes the temp files of `target` in `dir` that processes no longer running left
/// behind (a `kill -9`, a crash, a power cut), and keeps their paths for
/// [`take_removed_stale`]. Beside a session file, those of every session file in the folder
/// go: a killed `clone` or `fork` left one for a file whose name no later run writes again.
/// Where whether a process runs cannot be told (no `/proc`), nothing is removed.
pub fn remove_stale(dir: &Path, target: &Path) {
    if !Path::new("/proc/self").exists() {
        return;
    }
    let Some(target) = target.file_name().and_then(|n| n.to_str()) else {
        return;
    };
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|f| stale_pid(f, target)) else {
            continue;
        };
        let is_file = entry.file_type().is_ok_and(|t| t.is_file());
        if is_file && pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
            let path = entry.path();
            if std::fs::remove_file(&path).is_ok() {
                lock(&REMOVED_STALE).push(path);
            }
        }
    }
}

/// The process id in `file_name` when it is a temp file [`remove_stale`] may take for
/// `target`: `.NAME.PID.tmp` or `.NAME.TAG.PID.tmp`, NAME the target's name, or any session
/// file's (`*.jsonl`) when the target is one, or any payload's of `slim`'s store (a SHA-256
/// in hex) when the target is one.
fn stale_pid(file_name: &str, target: &str) -> Option<u32> {
    let rest = file_name.strip_prefix('.')?.strip_suffix(".tmp")?;
    let (rest, pid) = rest.rsplit_once('.')?;
    if pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let name = match rest.rsplit_once('.') {
        Some((name, tag)) if TAGS.contains(&tag) => name,
        _ => rest,
    };
    let sha = |n: &str| n.len() == 64 && n.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
    let ours = rest == target
        || name == target
        || (name.ends_with(".jsonl") && target.ends_with(".jsonl"))
        || (sha(name) && sha(target));
    if !ours {
        return None;
    }
    pid.parse().ok()
}

/// The stale temp files [`remove_stale`] removed since the last call.
pub fn take_removed_stale() -> Vec<PathBuf> {
    std::mem::take(&mut *lock(&REMOVED_STALE))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temp_names_carry_the_process() {
        assert_eq!(stale_pid(".s.jsonl.123.tmp", "s.jsonl"), Some(123));
        assert_eq!(stale_pid(".s.jsonl.repair.123.tmp", "s.jsonl"), Some(123));
        assert_eq!(stale_pid(".s.jsonl.rejects.9.tmp", "s.jsonl"), Some(9));
        assert_eq!(stale_pid(".t.jsonl.9.tmp", "s.jsonl"), Some(9), "another session's");
        assert_eq!(stale_pid(".out.md.9.tmp", "out.md"), Some(9));
        assert_eq!(stale_pid(".out.md.9.tmp", "other.md"), None);
        assert_eq!(stale_pid(".t.jsonl.9.tmp", "out.md"), None);
        assert_eq!(stale_pid(".s.jsonl.bak.123.tmp", "s.jsonl"), None);
        assert_eq!(stale_pid(".s.jsonl.repair..tmp", "s.jsonl"), None);
        assert_eq!(stale_pid(".s.jsonl.12a.tmp", "s.jsonl"), None);
        assert_eq!(stale_pid("s.jsonl.12.tmp", "s.jsonl"), None);
        let p = temp_path(Path::new("/d"), Path::new("/x/s.jsonl"), Some("repair"));
        assert_eq!(p, Path::new(&format!("/d/.s.jsonl.repair.{}.tmp", std::process::id())));
    }

    #[test]
    fn only_temp_files_of_gone_processes_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("s.jsonl");
        // Above the largest process id Linux hands out (2^22).
        let gone = [
            ".s.jsonl.4999999.tmp",
            ".s.jsonl.repair.4999999.tmp",
            ".2026-01-01_x.jsonl.4999999.tmp",
        ];
        let kept = [
            format!(".s.jsonl.{}.tmp", std::process::id()),
            ".s.jsonl.bak.4999999.tmp".to_owned(),
            ".notes.txt.4999999.tmp".to_owned(),
            "s.jsonl".to_owned(),
        ];
        for n in gone.iter().copied().chain(kept.iter().map(String::as_str)) {
            std::fs::write(dir.path().join(n), b"x").unwrap();
        }
        remove_stale(dir.path(), &target);
        let mut left: Vec<String> = std::fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        left.sort();
        let mut want = kept.to_vec();
        want.sort();
        assert_eq!(left, want);
        let removed = take_removed_stale();
        for g in gone {
            assert!(removed.contains(&dir.path().join(g)), "{removed:?}");
        }
    }

    #[test]
    fn a_temp_not_placed_is_removed() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join(".s.jsonl.1.tmp");
        let (t, _) = Temp::create(p.clone(), OpenOptions::new().write(true)).unwrap();
        drop(t);
        assert!(!p.exists());
        let (t, _) = Temp::create(p.clone(), OpenOptions::new().write(true)).unwrap();
        assert!(Temp::create(p.clone(), OpenOptions::new().write(true)).is_err());
        assert!(p.exists(), "a file already there is neither taken over nor removed");
        t.placed();
        assert!(p.exists());
        assert!(!lock(&LIVE).contains(&p));
    }
}
