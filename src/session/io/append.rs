//! The append protocol every write command shares: lock the file, read it as it is under
//! the lock, refuse what Pi would have to migrate, then add one whole line with one write.

use super::write::{LOCK_WAIT, LockedFile};
use crate::json::rawjson::object_line;
use crate::session::{Session, SessionError};
use serde_json::Value;
use std::path::Path;
use std::time::{Duration, SystemTime};

/// A file modified this recently may be open in a running Pi.
pub const RECENT_WRITE: Duration = Duration::from_secs(5);

/// How much of the end of the file [`SessionWriter::open_if_leaf`] re-reads under the lock.
pub const TAIL_UNDER_LOCK: u64 = 1 << 20;

/// A session locked for appending.
pub struct SessionWriter {
    file: LockedFile,
    pub session: Session,
}

/// What an append did besides adding its line.
#[derive(Debug, Default)]
pub struct Appended {
    /// The file ended in a torn line, which was terminated with `\n` first (as Pi does
    /// when it loads such a file); the torn bytes stay where they were.
    pub terminated_torn_line: bool,
}

impl SessionWriter {
    /// Locks `path` and loads it. Refuses v1/v2 files: Pi would migrate and rewrite them.
    pub fn open(path: &Path) -> Result<SessionWriter, SessionError> {
        SessionWriter::open_tail(path, u64::MAX)
    }

    /// Locks `path` and loads only its last `tail` bytes (and header): see
    /// [`Session::open_tail`]. New ids are then checked against the entries read.
    pub fn open_tail(path: &Path, tail: u64) -> Result<SessionWriter, SessionError> {
        SessionWriter::open_tail_with(LockedFile::open(path, lock_wait())?, path, tail)
    }

    /// Like [`Self::open_tail`] for a dry run: the file is opened read-only under a shared
    /// lock, so nothing can be appended through it (and a read-only file can be planned on).
    pub fn open_tail_dry_run(path: &Path, tail: u64) -> Result<SessionWriter, SessionError> {
        SessionWriter::open_tail_with(LockedFile::open_shared(path, lock_wait())?, path, tail)
    }

    fn open_tail_with(mut file: LockedFile, path: &Path, tail: u64) -> Result<SessionWriter, SessionError> {
        let load = |file: &mut LockedFile| -> Result<Session, SessionError> {
            if tail == u64::MAX {
                let data = file.read_all()?;
                Session::from_bytes(path.to_path_buf(), data)
            } else {
                Session::open_tail(path, tail)
            }
        };
        let mut session = load(&mut file)?;
        if !session.ends_with_newline() && wait_for_last_line(&file) {
            session = load(&mut file)?;
        }
        let version = session.header.format();
        if version < crate::session::CURRENT_VERSION {
            return Err(SessionError::OldFormat {
                path: path.to_path_buf(),
                version,
            });
        }
        Ok(SessionWriter { file, session })
    }

    /// Locks `path` for an append planned on an earlier read: re-reads the end of the file
    /// ([`TAIL_UNDER_LOCK`]) and refuses ([`SessionError::LeafMismatch`]) unless Pi's leaf is
    /// still `leaf` (`None`: any leaf). An unchanged leaf means nothing was appended since
    /// the plan, so the file as planned is the file as it is, and reading its end is enough.
    /// The writer holds the lock until dropped.
    pub fn open_if_leaf(path: &Path, leaf: Option<&str>) -> Result<SessionWriter, SessionError> {
        let writer = SessionWriter::open_tail(path, TAIL_UNDER_LOCK)?;
        writer.expect_leaf(leaf)?;
        Ok(writer)
    }

    /// Refuses when Pi's leaf is not `expected` (for scripts that must not race).
    pub fn expect_leaf(&self, expected: Option<&str>) -> Result<(), SessionError> {
        let Some(expected) = expected else { return Ok(()) };
        let actual = self
            .session
            .leaf()
            .and_then(|i| self.session.id_str(i))
            .map(str::to_owned)
            .unwrap_or_else(|| "(none)".into());
        if actual != expected {
            return Err(SessionError::LeafMismatch {
                expected: expected.to_owned(),
                actual,
            });
        }
        Ok(())
    }

    /// Whether the file changed in the last few seconds, and not by pi-session's own last
    /// append: then a running Pi may hold it open.
    ///
    /// After each append pi-session sets the file's modification time to the `timestamp`
    /// of the line it wrote (to the millisecond, no finer: see [`Self::stamp_own_write`]).
    /// Any other change (Pi appending, an editor, `touch`) sets the clock's time, which is
    /// finer than a millisecond, so a file whose modification time is exactly its last
    /// line's timestamp was last changed by pi-session.
    pub fn recently_changed_by_another(&self) -> bool {
        changed_recently_by_another(self.file.modified, &self.session)
    }

    /// Marks the append just made as pi-session's own: sets the modification time to
    /// `timestamp` (the ISO time of the line written, a few milliseconds back at most).
    /// Best effort: where it cannot be set (a file owned by another user, a file system
    /// with coarse times), the next write just warns as it would after any other change.
    pub fn stamp_own_write(&self, timestamp: &str) {
        if let Some(t) = crate::json::jsdate::parse_date_ms(timestamp).and_then(stamp_time) {
            let _ = self.file.set_modified(t);
        }
    }

    /// A fresh entry id: 8 lowercase hex digits, unique among all ids in the file.
    pub fn new_id(&self) -> String {
        new_entry_id(|id| self.session.ids().get(id).is_some())
    }

    /// A fresh entry id unique both here and in `whole`, the file as read in full earlier
    /// (for writes that plan on a whole read and append after a read of the end).
    pub fn new_id_beside(&self, whole: &Session) -> String {
        new_entry_id(|id| self.session.ids().get(id).is_some() || whole.ids().get(id).is_some())
    }

    /// Appends one entry line (without `\n`), or several joined by `\n`, with one write,
    /// after a `\n` that terminates an unfinished last line, if the file ends in one right
    /// before the write (see [`LockedFile::append_line`]).
    pub fn append_line(&mut self, line: &str) -> Result<Appended, SessionError> {
        debug_assert!(!line.is_empty() && !line.starts_with('\n') && !line.ends_with('\n'));
        let mut bytes = Vec::with_capacity(line.len() + 2);
        bytes.push(b'\n');
        bytes.extend_from_slice(line.as_bytes());
        bytes.push(b'\n');
        let read_len = self.file.len;
        let torn = self.file.append_line(&bytes, read_len, UNFINISHED_LINE_WAIT)?;
        Ok(Appended {
            terminated_torn_line: torn,
        })
    }
}

/// Whether a file last modified at `modified`, read as `session`, changed in the last few
/// seconds, and not by pi-session's own last append (see
/// [`SessionWriter::recently_changed_by_another`]).
pub fn changed_recently_by_another(modified: Option<SystemTime>, session: &Session) -> bool {
    modified.is_some_and(|m| modified_recently(Some(m)) && !last_line_is_own_write(session, m))
}

/// Whether a file last modified at `modified` changed less than [`RECENT_WRITE`] ago (a time
/// ahead of the clock counts as now): a running Pi may have it open.
pub fn modified_recently(modified: Option<SystemTime>) -> bool {
    modified.is_some_and(|m| SystemTime::now().duration_since(m).unwrap_or_default() < RECENT_WRITE)
}

/// Whether the last line of the file is a whole entry whose timestamp is exactly the
/// file's modification time (what [`SessionWriter::stamp_own_write`] leaves).
fn last_line_is_own_write(s: &Session, modified: SystemTime) -> bool {
    let Some(last) = s.leaf() else { return false };
    if !s.ends_with_newline() || s.entries[last].end + 1 != s.len_bytes() {
        return false;
    }
    s.timestamp_ms(last).and_then(stamp_time) == Some(modified)
}

/// How long a write waits for a writer that has begun its last line to finish it.
pub const UNFINISHED_LINE_WAIT: Duration = Duration::from_millis(1000);

/// The file ends without `\n`: a line torn by a crash, or one Pi is writing right now (it
/// takes no lock). If the file changed in the last few seconds, waits up to
/// [`UNFINISHED_LINE_WAIT`] for the line to be finished. Whether it now ends with `\n`.
fn wait_for_last_line(file: &LockedFile) -> bool {
    use std::os::unix::fs::FileExt;
    if !modified_recently(file.modified) {
        return false;
    }
    let start = std::time::Instant::now();
    loop {
        let len = file.file().metadata().map(|m| m.len()).unwrap_or(0);
        let mut last = [0u8];
        if len > 0 && file.file().read_exact_at(&mut last, len - 1).is_ok() && last[0] == b'\n' {
            return true;
        }
        if start.elapsed() >= UNFINISHED_LINE_WAIT {
            return false;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// The modification time pi-session gives a file after appending a line with this
/// timestamp (milliseconds since the epoch).
fn stamp_time(ms: i64) -> Option<SystemTime> {
    let ms = u64::try_from(ms).ok()?;
    SystemTime::UNIX_EPOCH.checked_add(Duration::from_millis(ms))
}

/// How long to wait for another writer's lock: `$PI_SESSION_LOCK_TIMEOUT` seconds, else 5.
pub fn lock_wait() -> Duration {
    std::env::var("PI_SESSION_LOCK_TIMEOUT")
        .ok()
        .and_then(|s| s.parse::<f64>().ok())
        .filter(|s| s.is_finite() && *s >= 0.0)
        .map(Duration::from_secs_f64)
        .unwrap_or(LOCK_WAIT)
}

/// A new random id: the first 8 hex digits of a random UUID, as Pi draws them, retried
/// while `taken`; a whole UUID if 100 draws collide (Pi's fallback too).
pub fn new_entry_id(taken: impl Fn(&str) -> bool) -> String {
    for _ in 0..100 {
        let id = uuid::Uuid::new_v4().simple().to_string()[..8].to_owned();
        if !taken(&id) {
            return id;
        }
    }
    uuid::Uuid::new_v4().to_string()
}

/// Now, as Pi writes entry timestamps: ISO 8601 UTC with milliseconds.
pub fn now_timestamp() -> String {
    iso_timestamp(jiff::Timestamp::now())
}

pub fn iso_timestamp(t: jiff::Timestamp) -> String {
    t.strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

/// An entry line with Pi's leading keys (`type`, `id`, `parentId`, `timestamp`), then `rest`.
pub fn entry_line(kind: &str, id: &str, parent: Option<&str>, timestamp: &str, rest: Vec<(&str, Value)>) -> String {
    let mut pairs = vec![
        ("type", Value::from(kind)),
        ("id", Value::from(id)),
        ("parentId", parent.map(Value::from).unwrap_or(Value::Null)),
        ("timestamp", Value::from(timestamp)),
    ];
    pairs.extend(rest);
    object_line(pairs)
}

/// A pi-session checkout record: a `custom` entry (never part of the model's context) whose
/// parent is where `@` moves (`None`: the next message starts a new root), remembering where
/// `@` was for `checkout -`.
pub fn checkout_record(id: &str, to: Option<&str>, from: Option<&str>) -> String {
    entry_line(
        "custom",
        id,
        to,
        &now_timestamp(),
        vec![
            ("customType", crate::session::entry::CHECKOUT_CUSTOM_TYPE.into()),
            ("data", serde_json::json!({ "from": from })),
        ],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_have_milliseconds() {
        let t = jiff::Timestamp::from_millisecond(1_793_613_602_005).unwrap();
        assert_eq!(iso_timestamp(t), "2026-11-02T10:00:02.005Z");
    }

    #[test]
    fn ids_are_8_hex_and_avoid_taken() {
        let id = new_entry_id(|_| false);
        assert_eq!(id.len(), 8);
        assert!(id.bytes().all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()));
        assert_eq!(new_entry_id(|_| true).len(), 36);
    }

    #[test]
    fn open_if_leaf_writes_only_after_an_unmoved_leaf() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        let header = r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}"#;
        let a = r#"{"type":"message","id":"a","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"hi"}}"#;
        std::fs::write(&path, format!("{header}\n{a}\n")).unwrap();
        let mut w = SessionWriter::open_if_leaf(&path, Some("a")).unwrap();
        let b = entry_line(
            "label",
            "b",
            Some("a"),
            "2025-01-01T00:00:02.000Z",
            vec![("targetId", "a".into())],
        );
        w.append_line(&b).unwrap();
        drop(w);
        let before = std::fs::read(&path).unwrap();
        let err = SessionWriter::open_if_leaf(&path, Some("a")).err().unwrap();
        assert!(
            matches!(&err, SessionError::LeafMismatch { expected, actual } if expected == "a" && actual == "b"),
            "{err:?}"
        );
        assert_eq!(std::fs::read(&path).unwrap(), before);
        assert!(SessionWriter::open_if_leaf(&path, None).is_ok());
    }

    #[test]
    fn entry_lines_lead_with_pi_keys() {
        let l = entry_line("label", "abcd1234", None, "t", vec![("targetId", Value::from("x"))]);
        assert_eq!(
            l,
            r#"{"type":"label","id":"abcd1234","parentId":null,"timestamp":"t","targetId":"x"}"#
        );
    }
}
