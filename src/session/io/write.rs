//! Writing session files safely: appends of whole lines under a lock, and new files that
//! appear complete or not at all.

use crate::session::SessionError;
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

/// How long a write waits for another process's lock before giving up.
pub const LOCK_WAIT: Duration = Duration::from_secs(5);

/// A session file opened for appending, with an exclusive advisory lock held until drop.
pub struct LockedFile {
    pub path: PathBuf,
    file: File,
    /// Length and modification time when the lock was taken.
    pub len: u64,
    pub modified: Option<SystemTime>,
}

impl LockedFile {
    /// Opens `path` for reading and appending and takes an exclusive lock, waiting up to
    /// `wait` for another holder.
    pub fn open(path: &Path, wait: Duration) -> Result<LockedFile, SessionError> {
        Self::lock_with(path, wait, || open_append(path), File::try_lock)
    }

    /// Opens `path` with `open`, takes the lock with `try_lock`, waiting up to `wait`.
    fn lock_with(
        path: &Path,
        wait: Duration,
        open: impl Fn() -> Result<File, SessionError>,
        try_lock: impl Fn(&File) -> Result<(), fs::TryLockError>,
    ) -> Result<LockedFile, SessionError> {
        let start = Instant::now();
        let mut file = open()?;
        loop {
            match try_lock(&file) {
                // `repair` replaces the file by renaming; a lock won on the replaced inode
                // would append to the backup, so check the path still names this file.
                Ok(()) if !same_file(&file, path) => file = open()?,
                Ok(()) => break,
                Err(fs::TryLockError::WouldBlock) if start.elapsed() < wait => {
                    std::thread::sleep(Duration::from_millis(50));
                }
                Err(fs::TryLockError::WouldBlock) => {
                    return Err(SessionError::Locked {
                        path: path.to_path_buf(),
                        waited: wait,
                    });
                }
                Err(fs::TryLockError::Error(e)) => return Err(SessionError::io(path, e)),
            }
        }
        let meta = file.metadata().map_err(|e| SessionError::io(path, e))?;
        Ok(LockedFile {
            path: path.to_path_buf(),
            len: meta.len(),
            modified: meta.modified().ok(),
            file,
        })
    }

    /// The open file (the inode the lock is on), for reads at an offset.
    pub fn file(&self) -> &File {
        &self.file
    }

    /// Opens `path` for reading only and takes a shared lock (which keeps writers out, as
    /// their exclusive lock waits for it), waiting up to `wait`: for dry runs, which must
    /// read the file as a write would, and work where it could not be written.
    pub fn open_shared(path: &Path, wait: Duration) -> Result<LockedFile, SessionError> {
        Self::lock_with(
            path,
            wait,
            || File::open(path).map_err(|e| SessionError::io(path, e)),
            File::try_lock_shared,
        )
    }

    /// The whole file as it is under the lock, mapped rather than copied where it is large.
    pub fn map_all(&mut self) -> Result<super::data::Data, SessionError> {
        let data = super::data::Data::map_file(&self.file).map_err(|e| SessionError::io(&self.path, e))?;
        self.len = data.len() as u64;
        Ok(data)
    }

    /// The whole file as it is under the lock.
    pub fn read_all(&mut self) -> Result<Vec<u8>, SessionError> {
        let mut buf = Vec::with_capacity(self.len as usize);
        self.file
            .seek(SeekFrom::Start(0))
            .map_err(|e| SessionError::io(&self.path, e))?;
        self.file
            .read_to_end(&mut buf)
            .map_err(|e| SessionError::io(&self.path, e))?;
        self.len = buf.len() as u64;
        Ok(buf)
    }

    /// Appends a line with one `write` on the O_APPEND descriptor, then fsyncs: `bytes` is
    /// `\n`, the line, `\n`; the first `\n` is written only when the file ends in an
    /// unfinished line (which it then terminates). Returns whether it did.
    ///
    /// Whether the file ends in an unfinished line is looked at right before the write, not
    /// taken from the bytes read earlier: another writer (Pi) appends without the lock, and a
    /// line written into the middle of its line would glue the two into one unreadable line.
    /// When the file grew since `read_len` bytes were read and its last line is unfinished,
    /// that writer is in the middle of it: waits up to `wait` for it to be finished.
    ///
    /// A write that stops part-way is undone (the file is cut back to its old length), so no
    /// half line is ever left behind.
    pub fn append_line(&mut self, bytes: &[u8], read_len: u64, wait: Duration) -> Result<bool, SessionError> {
        debug_assert!(bytes.len() > 2 && bytes[0] == b'\n' && bytes.ends_with(b"\n"));
        let (old_len, unfinished) = self.end_now(read_len, wait)?;
        let bytes = if unfinished { bytes } else { &bytes[1..] };
        let result = match self.file.write(bytes) {
            Ok(n) if n == bytes.len() => self.file.sync_all(),
            Ok(n) => Err(io::Error::new(
                io::ErrorKind::WriteZero,
                format!("only {n} of {} bytes were written", bytes.len()),
            )),
            Err(e) => Err(e),
        };
        if let Err(e) = result {
            let _ = self.file.set_len(old_len);
            let _ = self.file.sync_all();
            return Err(SessionError::write(&self.path, e));
        }
        Ok(unfinished)
    }

    /// The file's length now, and whether it ends in an unfinished line (see
    /// [`Self::append_line`]).
    fn end_now(&self, read_len: u64, wait: Duration) -> Result<(u64, bool), SessionError> {
        use std::os::unix::fs::FileExt;
        let start = Instant::now();
        loop {
            let len = self.file.metadata().map_err(|e| SessionError::io(&self.path, e))?.len();
            if len == 0 {
                return Ok((0, false));
            }
            let mut last = [0u8];
            self.file
                .read_exact_at(&mut last, len - 1)
                .map_err(|e| SessionError::io(&self.path, e))?;
            if last[0] == b'\n' {
                return Ok((len, false));
            }
            // An unfinished line that was there when the file was read was waited for then.
            if len == read_len || start.elapsed() >= wait {
                return Ok((len, true));
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    /// Sets the file's modification time (see `SessionWriter::stamp_own_write`).
    pub fn set_modified(&self, time: SystemTime) -> io::Result<()> {
        self.file.set_modified(time)
    }
}

fn open_append(path: &Path) -> Result<File, SessionError> {
    OpenOptions::new()
        .read(true)
        .append(true)
        .open(path)
        .map_err(|e| match e.kind() {
            // The file is there but may not be changed: not a reading problem, nor a wrong path.
            io::ErrorKind::PermissionDenied | io::ErrorKind::ReadOnlyFilesystem => SessionError::write(path, e),
            _ => SessionError::io(path, e),
        })
}

/// Whether `path` (followed through symbolic links) names the inode `file` has open.
#[cfg(unix)]
pub fn same_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), fs::metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
pub fn same_file(_file: &File, _path: &Path) -> bool {
    true
}

/// Writes a new file at `dest` atomically: a temp file in the same directory, fsynced, then
/// linked into place, which fails rather than replace an existing file; then the directory
/// is fsynced.
pub fn create_new_file(dest: &Path, bytes: &[u8]) -> Result<(), SessionError> {
    write_file(dest, bytes, false)
}

/// Writes `dest` atomically, as [`create_new_file`] does; with `replace`, an existing file
/// is replaced by renaming the fsynced temp file over it (keeping its permissions), so
/// `dest` holds either the old bytes or the new ones, never a mix.
pub fn write_file(dest: &Path, bytes: &[u8], replace: bool) -> Result<(), SessionError> {
    write_file_with(dest, replace, |f| f.write_all(bytes))
}

/// [`write_file`] with the bytes written by `fill` (into the temp file, which is then
/// fsynced and placed): for output made piece by piece.
pub fn write_file_with(
    dest: &Path,
    replace: bool,
    fill: impl FnOnce(&mut File) -> io::Result<()>,
) -> Result<(), SessionError> {
    let dir = match dest.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let existing = fs::symlink_metadata(dest).ok();
    if existing.is_some() && !replace {
        return Err(SessionError::Exists {
            path: dest.to_path_buf(),
        });
    }
    // Replacing is for files: a rename over a device, a FIFO or a folder would put a file
    // where the system (or the user) expects something else.
    if let Some(t) = existing.as_ref().map(fs::Metadata::file_type)
        && !t.is_file()
        && !t.is_symlink()
    {
        return Err(SessionError::write(dest, super::data::not_regular(t)));
    }
    super::temp::remove_stale(&dir, dest);
    let tmp = super::temp::temp_path(&dir, dest, None);
    let (temp, mut f) = super::temp::Temp::create(tmp.clone(), OpenOptions::new().write(true))
        .map_err(|e| SessionError::write(&tmp, e))?;
    // On any error from here, dropping `temp` removes the file.
    fill(&mut f).map_err(|e| SessionError::write(&tmp, e))?;
    if let Some(meta) = existing.as_ref().filter(|m| m.is_file()) {
        f.set_permissions(meta.permissions())
            .map_err(|e| SessionError::write(&tmp, e))?;
    }
    f.sync_all().map_err(|e| SessionError::sync(&tmp, e))?;
    drop(f);
    if replace {
        fs::rename(&tmp, dest).map_err(|e| SessionError::rename(&tmp, dest, e))?;
        temp.placed();
    } else {
        fs::hard_link(&tmp, dest).map_err(|e| match e.kind() {
            io::ErrorKind::AlreadyExists => SessionError::Exists {
                path: dest.to_path_buf(),
            },
            _ => SessionError::link(&tmp, dest, e),
        })?;
        drop(temp);
    }
    sync_dir(&dir).map_err(|e| SessionError::sync(&dir, e))
}

/// The file a rewrite in place must replace: `path` itself, or, when `path` is a symbolic
/// link, the file it points to (through every link). A rename over the link would replace
/// the link and leave the file it points to (with its secrets or damage) as it was.
pub fn rewrite_target(path: &Path) -> Result<PathBuf, SessionError> {
    match fs::symlink_metadata(path) {
        Ok(m) if m.file_type().is_symlink() => fs::canonicalize(path).map_err(|e| SessionError::io(path, e)),
        _ => Ok(path.to_path_buf()),
    }
}

/// Fsyncs a directory so a rename or link in it survives a crash.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Moves the file `src` to `dest`, which must not exist, so that at every moment the file is
/// at exactly one of the two paths, also across an interrupt or a `kill -9`: one
/// `renameat2(RENAME_NOREPLACE)`. Where the file system cannot do that without replacing, a
/// hard link and an unlink (for a moment both names are the one file: never half of it);
/// across file systems, a copy written as [`create_new_file`] writes one, then the unlink
/// (a `kill -9` between them leaves two whole copies; Ctrl-C removes the copy). Both
/// directories are fsynced.
pub fn move_file(src: &Path, dest: &Path) -> Result<(), SessionError> {
    if fs::symlink_metadata(dest).is_ok() {
        return Err(SessionError::Exists {
            path: dest.to_path_buf(),
        });
    }
    let dir_of = |p: &Path| match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let exists = |e: io::Error| match e.kind() {
        io::ErrorKind::AlreadyExists => SessionError::Exists {
            path: dest.to_path_buf(),
        },
        _ => SessionError::rename(src, dest, e),
    };
    match rename_no_replace(src, dest) {
        Ok(()) => {}
        Err(e) if e.raw_os_error() == Some(rustix::io::Errno::XDEV.raw_os_error()) => {
            // Another file system: the copy is registered as a temp file until the source
            // is gone, so Ctrl-C in between removes the copy, never both.
            let copy = super::temp::Temp::register(dest.to_path_buf());
            let mut from = File::open(src).map_err(|e| SessionError::io(src, e))?;
            if let Err(e) = write_file_with(dest, false, |f| io::copy(&mut from, f).map(drop)) {
                // Nothing of this run at `dest` (what is there now is another's).
                copy.placed_quietly();
                return Err(e);
            }
            super::temp::commit(copy, || fs::remove_file(src)).map_err(|e| SessionError::write(src, e))?;
        }
        Err(e)
            if [rustix::io::Errno::INVAL, rustix::io::Errno::NOSYS]
                .iter()
                .any(|n| e.raw_os_error() == Some(n.raw_os_error())) =>
        {
            fs::hard_link(src, dest).map_err(exists)?;
            fs::remove_file(src).map_err(|e| SessionError::write(src, e))?;
        }
        Err(e) => return Err(exists(e)),
    }
    let (from, to) = (dir_of(src), dir_of(dest));
    sync_dir(&to).map_err(|e| SessionError::sync(&to, e))?;
    if from != to {
        sync_dir(&from).map_err(|e| SessionError::sync(&from, e))?;
    }
    Ok(())
}

/// `renameat2(…, RENAME_NOREPLACE)` (`renameatx_np(…, RENAME_EXCL)` on Apple systems), through
/// rustix's safe wrapper: the rename fails with `EEXIST` rather than replace.
#[cfg(any(target_os = "linux", target_os = "android", target_vendor = "apple"))]
fn rename_no_replace(src: &Path, dest: &Path) -> io::Result<()> {
    use rustix::fs::{CWD, RenameFlags, renameat_with};
    renameat_with(CWD, src, CWD, dest, RenameFlags::NOREPLACE).map_err(io::Error::from)
}

/// Elsewhere no rename refuses to replace: the caller links and unlinks instead.
#[cfg(not(any(target_os = "linux", target_os = "android", target_vendor = "apple")))]
fn rename_no_replace(_src: &Path, _dest: &Path) -> io::Result<()> {
    Err(io::Error::from(rustix::io::Errno::INVAL))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn move_file_moves_and_never_replaces() {
        let dir = tempfile::tempdir().unwrap();
        let (a, b) = (dir.path().join("a.jsonl"), dir.path().join("sub/b.jsonl"));
        fs::create_dir(dir.path().join("sub")).unwrap();
        fs::write(&a, "one\n").unwrap();
        move_file(&a, &b).unwrap();
        assert!(!a.exists());
        assert_eq!(fs::read_to_string(&b).unwrap(), "one\n");
        // Back, onto a file that is there: refused, both as they were.
        fs::write(&a, "two\n").unwrap();
        assert!(matches!(move_file(&b, &a), Err(SessionError::Exists { .. })));
        assert_eq!(fs::read_to_string(&a).unwrap(), "two\n");
        assert_eq!(fs::read_to_string(&b).unwrap(), "one\n");
        // A missing source: an error, nothing made.
        let c = dir.path().join("c.jsonl");
        assert!(move_file(&dir.path().join("none"), &c).is_err());
        assert!(!c.exists());
    }
}
