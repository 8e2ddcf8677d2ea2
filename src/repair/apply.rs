//! Writing a repair: atomically, with a byte-identical backup and the rejects kept.

use super::plan::Plan;
use crate::session::io::append::{changed_recently_by_another, lock_wait};
use crate::session::io::temp::{Temp, remove_stale, temp_path};
use crate::session::io::write::{LockedFile, rewrite_target, same_file, sync_dir};
use crate::session::{Session, SessionError};
use std::fs::{self, File, OpenOptions};
use std::io::Write;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Where the original went, and what was kept aside.
#[derive(Debug)]
pub struct Applied {
    pub backup: PathBuf,
    pub rejects_file: Option<PathBuf>,
    pub rejected_lines: usize,
    /// Bytes (whole lines) appended by another writer while repair ran, carried over after
    /// the repaired content.
    pub carried_bytes: u64,
    pub carried_lines: usize,
}

/// The per-file record of `repair --json`, after the file's findings.
#[derive(Debug, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileRecord<'a> {
    /// The file, as given or found.
    pub path: &'a str,
    /// `clean`, `defects` (with `--check`), `would-repair` (with `--dry-run`), `repaired` or `failed`.
    pub result: &'a str,
    /// Findings that are defects.
    pub defects: usize,
    /// Findings that are warnings.
    pub warnings: usize,
    /// Where the original was kept, when the file was rewritten.
    pub backup: Option<String>,
    /// Where dropped and rewritten lines were kept, when there were any.
    pub rejects_file: Option<String>,
    /// Lines another writer appended while repair ran, carried over after the repaired content.
    pub carried_lines: usize,
    /// How Pi reads the repaired file; `null` when it was not built (`--check` with defects).
    pub after: Option<&'a super::Reading>,
}

impl<'a> FileRecord<'a> {
    /// The record of one file; `applied` is what a repair wrote, if it wrote.
    pub fn new(path: &'a str, result: &'a str, plan: &'a super::Plan, applied: Option<&Applied>) -> FileRecord<'a> {
        let defects = plan.defects();
        FileRecord {
            path,
            result,
            defects,
            warnings: plan.findings.len() - defects,
            backup: applied.map(|a| a.backup.to_string_lossy().into_owned()),
            rejects_file: applied
                .and_then(|a| a.rejects_file.as_ref())
                .map(|p| p.to_string_lossy().into_owned()),
            carried_lines: applied.map_or(0, |a| a.carried_lines),
            after: plan.after.as_ref(),
        }
    }
}

/// The file as repair read it under the lock.
pub enum Original {
    /// It loaded as a session (which holds its bytes).
    Loaded(Box<Session>),
    /// It did not load; its bytes (mapped where it is large).
    Read(crate::session::io::data::Data),
}

impl Original {
    pub fn bytes(&self) -> &[u8] {
        match self {
            Original::Loaded(s) => s.bytes(),
            Original::Read(b) => b,
        }
    }
}

/// Locks `path`, reads it, and plans its repair under the lock. A file that loads clean is
/// only checked; the bytes are examined line by line only when there is something to
/// repair, with no second copy of them when the file loads. `check`: only the findings
/// (see [`super::plan::check_only`]). `read_only`: the file is opened for reading only,
/// under a shared lock (for `--check` and `--dry-run`, which write nothing).
pub fn lock_and_plan(path: &Path, check: bool, read_only: bool) -> Result<(LockedFile, Original, Plan), SessionError> {
    let mut file = if read_only {
        LockedFile::open_shared(path, lock_wait())?
    } else {
        LockedFile::open(path, lock_wait())?
    };
    // Mapped, not copied: a clean file costs a read of it and its index.
    let data = file.map_all()?;
    match Session::from_data(path.to_path_buf(), data) {
        Ok(session) => {
            let plan = if check {
                super::plan::check_only(path, session.bytes(), Some(&session))?
            } else {
                match super::clean_plan(&session) {
                    Some(plan) => plan,
                    None => super::plan_loaded(&session)?,
                }
            };
            Ok((file, Original::Loaded(Box::new(session)), plan))
        }
        Err(_) => {
            // Mapped again (a small file is read, from its start).
            std::io::Seek::rewind(&mut file.file()).map_err(|e| SessionError::io(path, e))?;
            let data = file.map_all()?;
            let plan = if check {
                super::plan::check_only(path, &data, None)?
            } else {
                super::plan(path, &data)?
            };
            Ok((file, Original::Read(data), plan))
        }
    }
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
    // A dangling link is taken too: the backup is linked into place, which fails on any name.
    while fs::symlink_metadata(&candidate).is_ok() {
        let mut s = base.clone();
        s.push(format!(".bak.{n}"));
        candidate = PathBuf::from(s);
        n += 1;
    }
    candidate
}

/// How long to wait for a line another writer has begun to append (its `\n` not yet
/// written) before giving up.
const PARTIAL_LINE_WAIT: Duration = Duration::from_secs(1);

/// The bytes appended to `file` after `original`, which must still be its beginning
/// (`None` when it is not: the file was rewritten, not appended to). Only whole lines:
/// a line still being written is waited for, up to [`PARTIAL_LINE_WAIT`].
fn appended_since(
    file: &File,
    path: &Path,
    original_len: u64,
    original: &[u8],
) -> Result<Option<Vec<u8>>, SessionError> {
    let io = |e| SessionError::io(path, e);
    let len = file.metadata().map_err(io)?.len();
    if len < original_len {
        return Ok(None);
    }
    // The beginning, compared in pieces (no second copy of a large file).
    let mut buf = vec![0u8; 1 << 20];
    let mut at = 0usize;
    while at < original.len() {
        let n = buf.len().min(original.len() - at);
        file.read_exact_at(&mut buf[..n], at as u64).map_err(io)?;
        if buf[..n] != original[at..at + n] {
            return Ok(None);
        }
        at += n;
    }
    let started = Instant::now();
    loop {
        let len = file.metadata().map_err(io)?.len();
        let mut tail = vec![0u8; (len - original_len) as usize];
        file.read_exact_at(&mut tail, original_len).map_err(io)?;
        if tail.is_empty() || tail.ends_with(b"\n") {
            return Ok(Some(tail));
        }
        if started.elapsed() >= PARTIAL_LINE_WAIT {
            return Err(SessionError::Refused(
                "a line appended while the file was being rewritten is still unfinished (is Pi writing to it?); nothing was changed"
                    .into(),
            ));
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

/// Locks a session for a rewrite that keeps its format (`prune`, `slim`) and loads it: a
/// shared lock for a dry run, which only reads. A file in an older format is refused (Pi
/// would migrate it on open; `repair` writes it in the current one). Unless `force`, a file
/// changed in the last few seconds by something other than pi-session is refused too: a Pi
/// that has it open keeps its own copy of the entries and would go on from them.
pub fn open_for_rewrite(path: &Path, dry_run: bool, force: bool) -> Result<(LockedFile, Session), SessionError> {
    let mut lock = if dry_run {
        LockedFile::open_shared(path, lock_wait())?
    } else {
        LockedFile::open(path, lock_wait())?
    };
    let data = lock.map_all()?;
    let session = Session::from_data(path.to_path_buf(), data)?;
    let version = session.header.format();
    if version < crate::session::CURRENT_VERSION {
        return Err(SessionError::OldFormat {
            path: path.to_path_buf(),
            version,
        });
    }
    if !force && changed_recently_by_another(lock.modified, &session) {
        return Err(SessionError::Refused(
            "the file changed in the last few seconds: if Pi has this session open, it keeps its own copy of \
             the entries and would go on from them; close it (or pass --force); nothing was changed"
                .into(),
        ));
    }
    Ok((lock, session))
}

/// Writes the plan's output over `path`: temp file in the same directory, fsync, the original
/// kept as the backup, rename, then the rejects added to `<file>.rejects` (written whole to a
/// temp file beforehand, renamed into place), directory fsync. A `path` that is a symbolic link is left a link: the file it points to is rewritten, in
/// its own directory (where its backup and rejects go).
///
/// Pi appends without a lock, so lines may arrive while repair works. Right before the
/// rename, whatever was appended since `original` was read is carried over after the
/// repaired content, as the whole lines it is; once renamed, a line that still reached the
/// old file (a writer that opened it just before) is carried over too. If the file changed
/// in any other way, nothing is changed.
pub fn apply(lock: &mut LockedFile, original: &[u8], plan: &Plan) -> Result<Option<Applied>, SessionError> {
    let Some(output) = &plan.output else { return Ok(None) };
    let path = rewrite_target(&lock.path)?;
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let io = |p: &Path| {
        let p = p.to_path_buf();
        move |e| SessionError::io(p, e)
    };
    let wr = |p: &Path| {
        let p = p.to_path_buf();
        move |e| SessionError::write(p, e)
    };
    let sy = |p: &Path| {
        let p = p.to_path_buf();
        move |e| SessionError::sync(p, e)
    };
    let changed = || {
        SessionError::Refused(
            "the file changed while it was being rewritten (is Pi writing to it?); nothing was changed".into(),
        )
    };
    let original_len = original.len() as u64;
    let rejects_path = (!plan.rejects.is_empty()).then(|| {
        let mut rp = path.as_os_str().to_owned();
        rp.push(".rejects");
        PathBuf::from(rp)
    });
    // The link may have been pointed elsewhere since the file was locked.
    if !same_file(lock.file(), &path) {
        return Err(changed());
    }
    // Appending through a link would write the rejected lines (secrets, perhaps) into
    // whatever it points to.
    if let Some(rp) = &rejects_path
        && let Ok(meta) = fs::symlink_metadata(rp)
        && !meta.is_file()
    {
        return Err(SessionError::Refused(format!(
            "{} is not a regular file (a symbolic link?); repair does not write through it: move it aside and run repair again; nothing was changed",
            rp.display()
        )));
    }
    remove_stale(&dir, &path);
    // Until the rename, every error (and an interrupt) removes what was made so far: the
    // temp files when their guards drop, the backup likewise.
    let tmp = temp_path(&dir, &path, Some("repair"));
    let (temp, mut f) = Temp::create(tmp.clone(), OpenOptions::new().read(true).append(true)).map_err(wr(&tmp))?;
    // Locked before it is renamed into place: other pi-session writers wait until the
    // lines appended meanwhile are carried over.
    f.lock().map_err(wr(&tmp))?;
    f.write_all(output).map_err(wr(&tmp))?;
    f.sync_all().map_err(sy(&tmp))?;
    if appended_since(lock.file(), &path, original_len, original)?.is_none() {
        return Err(changed());
    }
    // Put in place only after the repaired file is: a run stopped before that adds no
    // rejects, so its rerun does not add them twice.
    let rejects = match &rejects_path {
        Some(rp) => Some(rejects_temp(&dir, &path, rp, &plan.rejects)?),
        None => None,
    };
    let backup = backup_path(&path);
    fs::hard_link(&path, &backup).map_err(|e| SessionError::link(&path, &backup, e))?;
    let backup_guard = Temp::register(backup.clone());
    // The last look before the rename: carry over what was appended meanwhile.
    let appended = appended_since(lock.file(), &path, original_len, original)?.ok_or_else(changed)?;
    if !appended.is_empty() && !original.ends_with(b"\n") {
        // The new bytes may finish the original's unterminated last line.
        return Err(changed());
    }
    let mut carried = appended.len() as u64;
    // No fsync between the last look and the rename, to keep that window short: the
    // carried lines are also in the backup until the fsync below.
    if !appended.is_empty() {
        f.write_all(&appended).map_err(wr(&tmp))?;
    }
    // Kept from here on, interrupted or not: the original is about to be replaced.
    backup_guard.placed();
    if let Err(e) = fs::rename(&tmp, &path) {
        let _ = fs::remove_file(&backup);
        return Err(SessionError::rename(&tmp, &path, e));
    }
    temp.placed();
    // Stopped here, the dropped lines are still in the backup.
    let rejects_file = match (rejects, rejects_path) {
        (Some(r), Some(rp)) => {
            fs::rename(r.path(), &rp).map_err(|e| {
                SessionError::Refused(format!(
                    "repaired, but the rejected lines could not be added to {} ({}); they are in the backup {}",
                    rp.display(),
                    e,
                    backup.display()
                ))
            })?;
            r.placed();
            Some(rp)
        }
        _ => None,
    };
    // What the repaired file holds of ours: its content and the lines carried so far.
    let mut ours = output.len() as u64 + carried;
    // A writer that opened the old file just before the rename writes into it (and so
    // into the backup): bring such lines over too, in the order they were written.
    for pause in [0, 50] {
        std::thread::sleep(Duration::from_millis(pause));
        let late = appended_tail(lock.file(), &path, original_len + carried)?;
        if late.is_empty() {
            continue;
        }
        carried += late.len() as u64;
        if f.metadata().map_err(io(&path))?.len() == ours {
            f.write_all(&late).map_err(wr(&path))?;
        } else {
            // Lines already reached the repaired file after the rename; the late ones
            // were written before them, so they go first.
            f = put_before_newer_lines(f, &path, &tmp, ours, &late)?;
        }
        ours += late.len() as u64;
    }
    f.sync_all().map_err(sy(&path))?;
    sync_dir(&dir).map_err(sy(&dir))?;
    Ok(Some(Applied {
        backup,
        rejects_file,
        rejected_lines: plan.rejects.len(),
        carried_bytes: carried,
        carried_lines: count_lines(lock.file(), &path, original_len, carried)?,
    }))
}

/// The rejects file as it is to be, in a temp file beside it, fsynced: what `rejects_path`
/// holds now (if anything), then `lines`.
fn rejects_temp(dir: &Path, session: &Path, rejects_path: &Path, lines: &[Vec<u8>]) -> Result<Temp, SessionError> {
    let tmp = temp_path(dir, session, Some("rejects"));
    let wr = |e| SessionError::write(&tmp, e);
    let (temp, mut r) = Temp::create(tmp.clone(), OpenOptions::new().write(true)).map_err(wr)?;
    match File::open(rejects_path) {
        Ok(mut old) => {
            let meta = old.metadata().map_err(|e| SessionError::io(rejects_path, e))?;
            std::io::copy(&mut old, &mut r).map_err(wr)?;
            r.set_permissions(meta.permissions()).map_err(wr)?;
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(SessionError::io(rejects_path, e)),
    }
    let mut bytes = Vec::new();
    for line in lines {
        bytes.extend_from_slice(line);
        bytes.push(b'\n');
    }
    r.write_all(&bytes).map_err(wr)?;
    r.sync_all().map_err(|e| SessionError::sync(temp.path(), e))?;
    Ok(temp)
}

/// Rewrites the file at `path` (open as `current`) with `late` inserted at byte `at`, before
/// the lines other writers appended after it: a new temp file, renamed over `path`; lines
/// that reach `current` meanwhile are brought over. Returns the new file, open for appending.
fn put_before_newer_lines(current: File, path: &Path, tmp: &Path, at: u64, late: &[u8]) -> Result<File, SessionError> {
    let io = |p: &Path| {
        let p = p.to_path_buf();
        move |e| SessionError::io(p, e)
    };
    let wr = |p: &Path| {
        let p = p.to_path_buf();
        move |e| SessionError::write(p, e)
    };
    let sy = |p: &Path| {
        let p = p.to_path_buf();
        move |e| SessionError::sync(p, e)
    };
    let len = current.metadata().map_err(io(path))?.len();
    let mut content = vec![0u8; len as usize];
    current.read_exact_at(&mut content, 0).map_err(io(path))?;
    content.splice(at as usize..at as usize, late.iter().copied());
    let (temp, mut next) =
        Temp::create(tmp.to_path_buf(), OpenOptions::new().read(true).append(true)).map_err(wr(tmp))?;
    next.lock().map_err(wr(tmp))?;
    next.write_all(&content).map_err(wr(tmp))?;
    next.sync_all().map_err(sy(tmp))?;
    fs::rename(tmp, path).map_err(|e| SessionError::rename(tmp, path, e))?;
    temp.placed();
    let stragglers = appended_tail(&current, path, len)?;
    if !stragglers.is_empty() {
        next.write_all(&stragglers).map_err(wr(path))?;
    }
    Ok(next)
}

/// The whole lines of `file` from `from` on (a line still being written is waited for).
fn appended_tail(file: &File, path: &Path, from: u64) -> Result<Vec<u8>, SessionError> {
    let io = |e| SessionError::io(path, e);
    let started = Instant::now();
    loop {
        let len = file.metadata().map_err(io)?.len();
        if len <= from {
            return Ok(Vec::new());
        }
        let mut tail = vec![0u8; (len - from) as usize];
        file.read_exact_at(&mut tail, from).map_err(io)?;
        if tail.ends_with(b"\n") || started.elapsed() >= PARTIAL_LINE_WAIT {
            return Ok(tail);
        }
        std::thread::sleep(Duration::from_millis(10));
    }
}

fn count_lines(file: &File, path: &Path, from: u64, len: u64) -> Result<usize, SessionError> {
    if len == 0 {
        return Ok(0);
    }
    let mut buf = vec![0u8; len as usize];
    file.read_exact_at(&mut buf, from)
        .map_err(|e| SessionError::io(path, e))?;
    Ok(memchr::memchr_iter(b'\n', &buf).count())
}

#[cfg(test)]
mod tests {
    use super::*;

    const DAMAGED: &str = concat!(
        r#"{"type":"session","version":3,"id":"s-1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#,
        "\n",
        r#"{"type":"message","id":"m1","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"Hi","timestamp":1}}"#,
        "\nnot json\n",
        r#"{"type":"message","id":"m2","parentId":"m1","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"user","content":"Again","timestamp":2}}"#,
        "\n",
    );
    const APPENDED: &str = "{\"type\":\"message\",\"id\":\"m3\",\"parentId\":\"m2\",\"timestamp\":\"2026-01-01T00:00:03.000Z\",\"message\":{\"role\":\"user\",\"content\":\"Meanwhile\",\"timestamp\":3}}\r\n";

    fn setup() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        fs::write(&path, DAMAGED).unwrap();
        (dir, path)
    }

    #[test]
    fn late_lines_go_before_lines_that_came_after_them() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let tmp = dir.path().join(".s.tmp");
        fs::write(&path, b"ours\nnewer\n").unwrap();
        let current = OpenOptions::new().read(true).append(true).open(&path).unwrap();
        let mut f = put_before_newer_lines(current, &path, &tmp, 5, b"late\n").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"ours\nlate\nnewer\n");
        f.write_all(b"next\n").unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"ours\nlate\nnewer\nnext\n");
        assert!(!tmp.exists());
    }

    #[test]
    fn lines_appended_after_the_read_are_carried_over() {
        let (_dir, path) = setup();
        let (mut lock, original, plan) = lock_and_plan(&path, false, false).unwrap();
        // Pi appends, without a lock, after repair has read the file.
        OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap()
            .write_all(APPENDED.as_bytes())
            .unwrap();
        let applied = apply(&mut lock, original.bytes(), &plan).unwrap().unwrap();
        assert_eq!(applied.carried_lines, 1);
        assert_eq!(applied.carried_bytes, APPENDED.len() as u64);
        let mut want = plan.output.clone().unwrap();
        want.extend_from_slice(APPENDED.as_bytes());
        assert_eq!(fs::read(&path).unwrap(), want);
        // The backup is the old file, appended line included.
        assert_eq!(
            fs::read(&applied.backup).unwrap(),
            [DAMAGED, APPENDED].concat().as_bytes()
        );
    }

    #[test]
    fn a_file_rewritten_meanwhile_is_left_alone() {
        let (dir, path) = setup();
        let (mut lock, original, plan) = lock_and_plan(&path, false, false).unwrap();
        let rewritten = DAMAGED.replace("Again", "Other");
        fs::OpenOptions::new()
            .write(true)
            .open(&path)
            .unwrap()
            .write_all(rewritten.as_bytes())
            .unwrap();
        let e = apply(&mut lock, original.bytes(), &plan).unwrap_err();
        assert!(e.to_string().contains("changed while it was being rewritten"), "{e}");
        assert_eq!(fs::read_to_string(&path).unwrap(), rewritten);
        let names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["s.jsonl"], "no backup, rejects or temp file left");
    }
}
