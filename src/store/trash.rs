//! `rm`: sessions moved to the user's trash as the freedesktop.org Trash specification
//! (1.0) puts files there: the home trash `$XDG_DATA_HOME/Trash` (else
//! `~/.local/share/Trash`), the file under `files/NAME` and, written first and exclusively,
//! `info/NAME.trashinfo` with its original `Path=` (URL-escaped) and `DeletionDate=` (local
//! time), so that file managers list it and can put it back.
//!
//! Written here rather than with a trash crate because of three needs such a crate's one
//! `delete` call does not let the caller decide: each session must move with
//! [`move_file`]'s one rename that never replaces (a session is in exactly one place at
//! every moment), a session on another file system than the home trash must be refused
//! rather than copied or put in another trash, and `--dry-run` needs the plan without the
//! move. The part of the spec a session file needs is short.

use crate::session::SessionError;
use crate::session::io::temp::Temp;
use crate::session::io::write::move_file;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

/// The home trash: `$XDG_DATA_HOME/Trash` when that is an absolute path, else
/// `~/.local/share/Trash`; `None` without a home.
pub fn home_trash() -> Option<PathBuf> {
    let absolute = |v: std::ffi::OsString| Some(PathBuf::from(v)).filter(|p| p.is_absolute());
    let data = std::env::var_os("XDG_DATA_HOME").and_then(absolute).or_else(|| {
        std::env::var_os("HOME")
            .and_then(absolute)
            .map(|h| h.join(".local/share"))
    })?;
    Some(data.join("Trash"))
}

/// Where a session goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Disposal {
    /// Into the trash folder (its `files/` and `info/` beside).
    Trash(PathBuf),
    /// Deleted: it is not on the home trash's file system (or there is none), and `--force`
    /// said delete.
    Delete,
}

/// Why a session cannot go to the trash.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("{0} is not a session file")]
    NotAFile(PathBuf),
    #[error("{path} is not on the file system of the trash {trash}: moving it there would copy it")]
    OtherFileSystem { path: PathBuf, trash: PathBuf },
    #[error("{0}: there is no home trash (neither XDG_DATA_HOME nor HOME is set)")]
    NoTrash(PathBuf),
    #[error("{0} changed in the last few seconds: Pi may have it open")]
    ChangedRecently(PathBuf),
}

/// The device of `path`, or of its nearest existing folder above (the trash may not exist
/// yet).
fn device(path: &Path) -> Option<u64> {
    use std::os::unix::fs::MetadataExt;
    path.ancestors().find_map(|p| fs::metadata(p).ok()).map(|m| m.dev())
}

/// Where the session at `path` goes: the home `trash` when it is on the same file system;
/// else, with `force`, deleted; else refused. A session changed in the last few seconds is
/// refused unless `force` ([`super::changed_recently`]).
pub fn disposal(path: &Path, trash: Option<&Path>, force: bool) -> Result<Disposal, Refusal> {
    use std::os::unix::fs::MetadataExt;
    let meta = match fs::symlink_metadata(path) {
        Ok(m) if m.is_file() || m.file_type().is_symlink() => m,
        _ => return Err(Refusal::NotAFile(path.to_path_buf())),
    };
    if !force && fs::metadata(path).is_ok_and(|m| super::changed_recently(&m)) {
        return Err(Refusal::ChangedRecently(path.to_path_buf()));
    }
    let Some(trash) = trash else {
        return if force {
            Ok(Disposal::Delete)
        } else {
            Err(Refusal::NoTrash(path.to_path_buf()))
        };
    };
    if device(trash) == Some(meta.dev()) {
        return Ok(Disposal::Trash(trash.to_path_buf()));
    }
    if force {
        Ok(Disposal::Delete)
    } else {
        Err(Refusal::OtherFileSystem {
            path: path.to_path_buf(),
            trash: trash.to_path_buf(),
        })
    }
}

/// `path` as the spec's `Path=` key holds it: absolute, each byte outside RFC 2396's
/// unreserved characters and `/` escaped as `%XX`.
pub fn escape_path(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut out = String::new();
    for &b in path.as_os_str().as_bytes() {
        if b.is_ascii_alphanumeric() || b"-_.!~*'()/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The `.trashinfo` of a file deleted from `path` at `when` (a local date and time).
pub fn trash_info(path: &Path, when: jiff::civil::DateTime) -> String {
    format!(
        "[Trash Info]\nPath={}\nDeletionDate={}\n",
        escape_path(path),
        when.strftime("%Y-%m-%dT%H:%M:%S")
    )
}

/// The names to try in the trash for a file named `name`: itself, then `STEM.2.EXT`,
/// `STEM.3.EXT`, ….
fn candidate_name(name: &str, n: u32) -> String {
    if n < 2 {
        return name.to_owned();
    }
    match name.rsplit_once('.') {
        Some((stem, ext)) if !stem.is_empty() => format!("{stem}.{n}.{ext}"),
        _ => format!("{name}.{n}"),
    }
}

/// Moves the file at `path` into `trash`: its `.trashinfo` written first (exclusively, so
/// that a name another deletion holds is never taken), then the file moved under the same
/// name with a rename that never replaces; on a name taken either way, the next one. An
/// interrupt between the two removes the info file (registered as a temp file until the
/// file is in place). Returns where the file now is.
pub fn trash_file(path: &Path, trash: &Path) -> Result<PathBuf, SessionError> {
    let absolute = std::path::absolute(path).map_err(|e| SessionError::io(path, e))?;
    let (files, info) = (trash.join("files"), trash.join("info"));
    for dir in [trash, &files, &info] {
        make_private_dir(dir).map_err(|e| SessionError::write(dir, e))?;
    }
    let name = absolute
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "session".into());
    let now = jiff::tz::TimeZone::system().to_datetime(jiff::Timestamp::now());
    let text = trash_info(&absolute, now);
    for n in 1..10_000 {
        let candidate = candidate_name(&name, n);
        let info_path = info.join(format!("{candidate}.trashinfo"));
        let dest = files.join(&candidate);
        let (temp, mut file) = match Temp::create(info_path.clone(), fs::OpenOptions::new().write(true)) {
            Ok(made) => made,
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(SessionError::write(&info_path, e)),
        };
        file.write_all(text.as_bytes())
            .and_then(|()| file.sync_all())
            .map_err(|e| SessionError::write(&info_path, e))?;
        drop(file);
        match move_file(&absolute, &dest) {
            Ok(()) => {
                temp.placed();
                return Ok(dest);
            }
            // A file without its info there (left by another program): the next name;
            // dropping `temp` removes this info file.
            Err(SessionError::Exists { .. }) => continue,
            Err(e) => return Err(e),
        }
    }
    Err(SessionError::Exists { path: files.join(name) })
}

/// Creates `dir` (owner only, as the spec asks of the trash) if it is not there.
fn make_private_dir(dir: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    match fs::DirBuilder::new().recursive(true).mode(0o700).create(dir) {
        Ok(()) => Ok(()),
        Err(_) if dir.is_dir() => Ok(()),
        Err(e) => Err(e),
    }
}

/// Deletes the file at `path` (`rm --force` where there is no trash to move it to).
pub fn delete_file(path: &Path) -> Result<(), SessionError> {
    fs::remove_file(path).map_err(|e| SessionError::write(path, e))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Writes `path` as a file no one has touched for a minute.
    fn write_old(path: &Path, text: &str) {
        fs::write(path, text).unwrap();
        let f = fs::File::options().append(true).open(path).unwrap();
        f.set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(60))
            .unwrap();
    }

    #[test]
    fn paths_are_escaped_as_urls() {
        assert_eq!(escape_path(Path::new("/a b/c%d/é.jsonl")), "/a%20b/c%25d/%C3%A9.jsonl");
        let when = jiff::civil::date(2026, 12, 7).at(9, 5, 3, 0);
        assert_eq!(
            trash_info(Path::new("/s/x.jsonl"), when),
            "[Trash Info]\nPath=/s/x.jsonl\nDeletionDate=2026-12-07T09:05:03\n"
        );
        assert_eq!(candidate_name("a.jsonl", 1), "a.jsonl");
        assert_eq!(candidate_name("a.jsonl", 3), "a.3.jsonl");
        assert_eq!(candidate_name(".x", 2), ".x.2");
    }

    #[test]
    fn trashed_with_its_info_and_a_new_name_on_collision() {
        let tmp = tempfile::tempdir().unwrap();
        let trash = tmp.path().join("Trash");
        let dir = tmp.path().join("s");
        fs::create_dir(&dir).unwrap();
        let a = dir.join("a.jsonl");
        // Just written: Pi may have it open; refused unless forced.
        fs::write(&a, "one\n").unwrap();
        assert_eq!(
            disposal(&a, Some(&trash), false),
            Err(Refusal::ChangedRecently(a.clone()))
        );
        assert_eq!(disposal(&a, Some(&trash), true), Ok(Disposal::Trash(trash.clone())));
        write_old(&a, "one\n");
        assert_eq!(disposal(&a, Some(&trash), false), Ok(Disposal::Trash(trash.clone())));
        let first = trash_file(&a, &trash).unwrap();
        assert_eq!(first, trash.join("files/a.jsonl"));
        assert!(!a.exists());
        let info = fs::read_to_string(trash.join("info/a.jsonl.trashinfo")).unwrap();
        assert!(info.starts_with(&format!("[Trash Info]\nPath={}\nDeletionDate=", escape_path(&a))));
        fs::write(&a, "two\n").unwrap();
        let second = trash_file(&a, &trash).unwrap();
        assert_eq!(second, trash.join("files/a.2.jsonl"));
        assert_eq!(fs::read_to_string(first).unwrap(), "one\n");
        assert_eq!(fs::read_to_string(second).unwrap(), "two\n");
        assert!(trash.join("info/a.2.jsonl.trashinfo").exists());
        // No trash: refused, or deleted with force.
        write_old(&a, "three\n");
        assert_eq!(disposal(&a, None, false), Err(Refusal::NoTrash(a.clone())));
        assert_eq!(disposal(&a, None, true), Ok(Disposal::Delete));
        assert!(matches!(
            disposal(&dir.join("none"), Some(&trash), true),
            Err(Refusal::NotAFile(_))
        ));
    }
}
