//! Moving sessions to another project directory. Pi files a session under a folder named
//! after its working directory (`--<cwd>--`, see [`locate::encode_cwd`]) and records that
//! directory in the header's `cwd`; a project that was moved or renamed loses its sessions.
//! A move writes the session anew in the new directory's folder, with the header's `cwd`
//! changed and every other line byte for byte, under the same file name, then removes the
//! old file.
//!
//! The new file is made as every new file is (temp, fsync, link: never over a file), and is
//! registered as this run's until the old one is gone ([`temp::commit`]), so Ctrl-C leaves
//! the session in one place. A `kill -9` between the link and the unlink leaves it in both,
//! the new one whole; the next move of it sees its own finished copy and only removes the
//! old file. Where the sessions of every project share one folder (a `sessionDir`), the
//! file stays where it is and its header is rewritten as `repair` rewrites (atomically, with
//! a backup, lines appended meanwhile carried over).

use crate::json::rawjson;
use crate::repair::apply::{apply, backup_path};
use crate::repair::plan::Plan;
use crate::session::SessionError;
use crate::session::io::append::{changed_recently_by_another, modified_recently};
use crate::session::io::data::Data;
use crate::session::io::locate::{self, Locations};
use crate::session::io::temp::{self, Temp};
use crate::session::io::write::{LockedFile, sync_dir, write_file};
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};

/// One session to move.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Move {
    pub from: PathBuf,
    pub to: PathBuf,
    /// The header's `cwd` before and after.
    pub old_cwd: String,
    pub new_cwd: String,
}

/// What became of a move.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Outcome {
    /// Written to its new place (and the old file removed, unless copying).
    Moved,
    /// Its header rewritten where it is (one folder for every project); the original kept
    /// as a backup.
    Rewritten,
    /// A copy from an interrupted earlier move was found in place, whole: the old file removed.
    Resumed,
}

/// Where the session at `path` goes for the project directory `dir` (absolute), under
/// `loc`'s rules: the folder Pi uses for `dir`, the same file name.
pub fn plan(path: &Path, dir: &Path, loc: &Locations) -> Result<Move, SessionError> {
    let header = locate::read_header(path).ok_or_else(|| {
        SessionError::Refused(format!(
            "{} is not a Pi session (its first line is not a session header)",
            path.display()
        ))
    })?;
    let folder = Locations {
        cwd: dir.to_path_buf(),
        ..loc.clone()
    }
    .here()
    .path;
    let name = path
        .file_name()
        .ok_or_else(|| SessionError::Refused(format!("{} has no file name", path.display())))?;
    Ok(Move {
        from: path.to_path_buf(),
        to: folder.join(name),
        old_cwd: header.cwd.unwrap_or_default(),
        new_cwd: dir.to_string_lossy().into_owned(),
    })
}

/// The sessions of `old` and of the directories inside it (by their header's `cwd`) among
/// every project's, each to the same place under `new`.
pub fn plan_project(old: &Path, new: &Path, loc: &Locations) -> Vec<Result<Move, SessionError>> {
    let mut plans = Vec::new();
    for path in loc.all_files() {
        let Some(cwd) = locate::read_header(&path).and_then(|h| h.cwd) else {
            continue;
        };
        let Ok(rest) = Path::new(&cwd).strip_prefix(old) else {
            continue;
        };
        let dir = if rest.as_os_str().is_empty() {
            new.to_path_buf()
        } else {
            new.join(rest)
        };
        plans.push(plan(&path, &dir, loc));
    }
    plans
}

/// `bytes` (a whole session file) with its header's `cwd` set to `cwd`: the header line
/// re-emitted with that one value changed (its other values as written), every later byte
/// as it is.
pub fn with_cwd(bytes: &[u8], cwd: &str) -> Result<Vec<u8>, SessionError> {
    set_header_field(bytes, "cwd", cwd)
}

fn set_header_field(bytes: &[u8], key: &str, value: &str) -> Result<Vec<u8>, SessionError> {
    let end = memchr::memchr(b'\n', bytes).unwrap_or(bytes.len());
    let refused = || SessionError::Refused("the first line is not a session header this can rewrite".into());
    let first = std::str::from_utf8(&bytes[..end]).map_err(|_| refused())?;
    let fields = rawjson::fields(first.trim_end_matches('\r')).ok_or_else(refused)?;
    if !fields.iter().any(|(k, v)| k == "type" && v.get() == "\"session\"") {
        return Err(refused());
    }
    let mut out = rawjson::with_fields(&fields, &[(key, Value::from(value))]).into_bytes();
    out.extend_from_slice(&bytes[end..]);
    Ok(out)
}

/// Carries out `m`: the new file in place, then (unless `copy`) the old one removed. Unless
/// `force`, a session changed in the last few seconds is refused (Pi may have it open).
pub fn execute(m: &Move, copy: bool, force: bool) -> Result<Outcome, SessionError> {
    let mut lock = LockedFile::open(&m.from, crate::session::io::write::LOCK_WAIT)?;
    let data = lock.map_all()?;
    let bytes: &[u8] = &data;
    // Loaded only for a file changed a moment ago, to tell pi-session's own last write.
    if !force && modified_recently(lock.modified) {
        let session = crate::session::Session::from_data(m.from.clone(), lock.map_all()?)?;
        if changed_recently_by_another(lock.modified, &session) {
            return Err(SessionError::Refused(format!(
                "{} changed in the last few seconds: if Pi has it open, it would go on writing to the old \
                 file; close it (or pass --force); nothing was moved",
                m.from.display()
            )));
        }
    }
    let moved = with_cwd(bytes, &m.new_cwd)?;
    if same_file(&m.from, &m.to) {
        // One folder for every project: the header is rewritten where it is.
        let plan = Plan {
            findings: Vec::new(),
            output: Some(moved),
            rejects: Vec::new(),
            after: None,
        };
        apply(&mut lock, bytes, &plan)?;
        return Ok(Outcome::Rewritten);
    }
    let folder = m.to.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(folder).map_err(|e| SessionError::write(folder, e))?;
    if let Ok(there) = fs::read(&m.to) {
        // A finished copy of an interrupted move (with the lines appended since carried
        // over, or not yet): the old file only has to go.
        if there == moved && !copy {
            drop(lock);
            remove_old(&m.from)?;
            return Ok(Outcome::Resumed);
        }
        return Err(SessionError::Exists { path: m.to.clone() });
    }
    let placed = Temp::register(m.to.clone());
    if let Err(e) = write_file(&m.to, &moved, false) {
        // What is at `to` is not this run's.
        placed.placed_quietly();
        return Err(e);
    }
    // Lines Pi appended (it takes no lock) while the copy was written: carried over.
    let now = fs::read(&m.from).map_err(|e| SessionError::io(&m.from, e))?;
    if now.len() > bytes.len() && now.starts_with(bytes) {
        use std::io::Write;
        let mut f = fs::OpenOptions::new()
            .append(true)
            .open(&m.to)
            .map_err(|e| SessionError::write(&m.to, e))?;
        f.write_all(&now[bytes.len()..])
            .and_then(|()| f.sync_all())
            .map_err(|e| SessionError::write(&m.to, e))?;
    } else if now != bytes {
        return Err(SessionError::Refused(format!(
            "{} changed while it was being moved; nothing was moved",
            m.from.display()
        )));
    }
    // The session's time goes with it: a move is not activity (Pi's `pi -c` takes the newest
    // file, and a file changed a moment ago looks open in a running Pi).
    if let Some(t) = lock.modified {
        let _ = fs::File::options()
            .append(true)
            .open(&m.to)
            .and_then(|f| f.set_modified(t));
    }
    drop(lock);
    if copy {
        placed.placed();
        return Ok(Outcome::Moved);
    }
    temp::commit(placed, || fs::remove_file(&m.from)).map_err(|e| SessionError::write(&m.from, e))?;
    let from_dir = m.from.parent().unwrap_or(Path::new("."));
    sync_dir(from_dir).map_err(|e| SessionError::sync(from_dir, e))?;
    Ok(Outcome::Moved)
}

fn remove_old(path: &Path) -> Result<(), SessionError> {
    fs::remove_file(path).map_err(|e| SessionError::write(path, e))?;
    let dir = path.parent().unwrap_or(Path::new("."));
    sync_dir(dir).map_err(|e| SessionError::sync(dir, e))
}

fn same_file(a: &Path, b: &Path) -> bool {
    let canon = |p: &Path| {
        let dir = p.parent().and_then(|d| fs::canonicalize(d).ok());
        dir.zip(p.file_name()).map(|(d, n)| d.join(n))
    };
    canon(a).is_some() && canon(a) == canon(b)
}

/// The sessions whose header's `parentSession` names one of the files `moved` moved (old
/// path → new path), among every project's.
pub fn children_of(moved: &[(PathBuf, PathBuf)], loc: &Locations) -> Vec<(PathBuf, PathBuf)> {
    let mut out = Vec::new();
    for path in loc.all_files() {
        let Some(parent) = locate::read_header(&path).and_then(|h| h.parent_session) else {
            continue;
        };
        if let Some((_, new)) = moved.iter().find(|(old, _)| Path::new(&parent) == old) {
            out.push((path, new.clone()));
        }
    }
    out
}

/// Points the header's `parentSession` of the session at `path` at `parent`: a rewrite as
/// `repair` writes one (atomic, with a backup, which is returned).
pub fn relink(path: &Path, parent: &Path) -> Result<PathBuf, SessionError> {
    let mut lock = LockedFile::open(path, crate::session::io::write::LOCK_WAIT)?;
    let data: Data = lock.map_all()?;
    let output = set_header_field(&data, "parentSession", &parent.to_string_lossy())?;
    let backup = backup_path(path);
    let plan = Plan {
        findings: Vec::new(),
        output: Some(output),
        rejects: Vec::new(),
        after: None,
    };
    Ok(apply(&mut lock, &data, &plan)?.map_or(backup, |a| a.backup))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn with_cwd_changes_the_header_only() {
        let file = b"{\"type\":\"session\",\"version\":3,\"id\":\"a\",\"timestamp\":\"t\",\"cwd\":\"/old\",\"x\":1.50}\n{\"type\":\"message\",\"cwd\":\"/old\"}\n";
        let out = with_cwd(file, "/new/d\u{e9}").unwrap();
        let text = String::from_utf8(out).unwrap();
        assert_eq!(
            text,
            "{\"type\":\"session\",\"version\":3,\"id\":\"a\",\"timestamp\":\"t\",\"cwd\":\"/new/d\u{e9}\",\"x\":1.50}\n{\"type\":\"message\",\"cwd\":\"/old\"}\n"
        );
        assert!(with_cwd(b"{\"type\":\"message\"}\n", "/x").is_err());
        assert!(with_cwd(b"not json\n", "/x").is_err());
    }
}
