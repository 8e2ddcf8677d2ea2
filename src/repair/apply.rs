//! Writing a repair: atomically, with a byte-identical backup and the rejects kept.

use super::plan::Plan;
use crate::session::SessionError;
use crate::session::append::lock_wait;
use crate::session::write::{LockedFile, sync_dir};
use std::fs::{self, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

/// Where the original went, and what was kept aside.
#[derive(Debug)]
pub struct Applied {
    pub backup: PathBuf,
    pub rejects_file: Option<PathBuf>,
    pub rejected_lines: usize,
}

/// Locks `path`, reads it, and plans its repair under the lock. A file that loads clean is
/// only checked (one pass over a mapped file); the bytes are examined line by line only
/// when there is something to repair.
pub fn lock_and_plan(path: &Path) -> Result<(LockedFile, Vec<u8>, Plan), SessionError> {
    let mut file = LockedFile::open(path, lock_wait())?;
    if let Ok(session) = crate::session::Session::open(path)
        && let Some(plan) = super::clean_plan(&session)
    {
        return Ok((file, Vec::new(), plan));
    }
    let data = file.read_all()?;
    let plan = super::plan(path, &data)?;
    Ok((file, data, plan))
}

/// The first free backup name: `<file>.bak`, then `.bak.1`, `.bak.2`, …
pub fn backup_path(path: &Path) -> PathBuf {
    let base = path.as_os_str().to_owned();
    let mut candidate = PathBuf::from({
        let mut s = base.clone();
        s.push(".bak");
        s
    });
    let mut n = 1;
    while candidate.exists() {
        let mut s = base.clone();
        s.push(format!(".bak.{n}"));
        candidate = PathBuf::from(s);
        n += 1;
    }
    candidate
}

/// Writes the plan's output over `path`: temp file in the same directory, fsync, rejects
/// appended to `<file>.rejects`, the original kept as the backup, rename, directory fsync.
/// If the file changed since `original` was read, nothing is changed.
pub fn apply(lock: &mut LockedFile, original: &[u8], plan: &Plan) -> Result<Option<Applied>, SessionError> {
    let Some(output) = &plan.output else { return Ok(None) };
    let path = lock.path.clone();
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = dir.join(format!(".{name}.repair.{}.tmp", std::process::id()));
    let io = |p: &Path| {
        let p = p.to_path_buf();
        move |e| SessionError::io(p, e)
    };
    let result = (|| {
        let mut f = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .map_err(io(&tmp))?;
        f.write_all(output).map_err(io(&tmp))?;
        f.sync_all().map_err(io(&tmp))?;
        // Pi does not lock: make sure nothing was appended while we worked.
        if lock.read_all()? != original {
            return Err(SessionError::Refused(
                "the file changed while repair ran (is Pi writing to it?); nothing was changed".into(),
            ));
        }
        let rejects_file = if plan.rejects.is_empty() {
            None
        } else {
            let mut rp = path.as_os_str().to_owned();
            rp.push(".rejects");
            let rp = PathBuf::from(rp);
            let mut r = OpenOptions::new()
                .create(true)
                .append(true)
                .open(&rp)
                .map_err(io(&rp))?;
            let mut bytes = Vec::new();
            for line in &plan.rejects {
                bytes.extend_from_slice(line);
                bytes.push(b'\n');
            }
            r.write_all(&bytes).map_err(io(&rp))?;
            r.sync_all().map_err(io(&rp))?;
            Some(rp)
        };
        let backup = backup_path(&path);
        fs::hard_link(&path, &backup).map_err(io(&backup))?;
        fs::rename(&tmp, &path).map_err(io(&path))?;
        sync_dir(&dir).map_err(io(&dir))?;
        Ok(Applied {
            backup,
            rejects_file,
            rejected_lines: plan.rejects.len(),
        })
    })();
    if result.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    result.map(Some)
}
