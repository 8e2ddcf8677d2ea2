//! Following a session file while Pi writes it (`log --follow`): a [`Follower`] owns the
//! read position, hands out only complete lines (a half-written last line waits for its
//! newline), and notices when the file at the path is replaced (a rename over it, as
//! `repair` does), cut short, or rewritten in place (Pi migrating it), so that the caller
//! can read it again from the start (once there is a complete line to read: an empty file
//! at the path is a moment in someone's rewrite, waited out). Waiting for a change goes through [`Wait`]: [`Watch`]
//! is woken by the system's file notifications (inotify), and polls when those cannot be set
//! up. Nothing here prints; the caller passes a [`Cancel`] to stop.

use crate::progress::Cancel;
use crate::session::{EntryIdx, Result, Session};
use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

/// How often a [`Watch`] looks at the file without notifications; also the longest a
/// notified wait lasts before the file is looked at anyway (a missed event costs this
/// much, never the line).
pub const POLL: Duration = Duration::from_millis(100);

/// Why the file is read again from its start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Restart {
    /// Another file is at the path now (renamed over it, or deleted and created again).
    Replaced,
    /// The file is shorter than what was read.
    Truncated,
    /// The bytes before the read position changed: rewritten in place.
    Rewritten,
}

/// What a read found.
#[derive(Debug)]
pub enum Change {
    /// Complete lines appended after what was read, each with its `\n`.
    Appended(Vec<u8>),
    /// The file was read again from its start: its complete lines.
    Restarted(Restart, Vec<u8>),
}

/// Blocks until the followed file may have changed.
pub trait Wait {
    /// Returns when something may have changed, or after `timeout` at the latest.
    fn wait(&mut self, timeout: Duration);
}

/// Bytes before the read position compared on every read, to tell an in-place rewrite.
const CHECKED: u64 = 256;

/// The read side of a followed file.
#[derive(Debug)]
pub struct Follower {
    path: PathBuf,
    file: File,
    /// Device and inode of `file`: another file at `path` has others.
    identity: (u64, u64),
    /// End of the last complete line handed out.
    pos: u64,
    /// The last bytes before `pos`, as read.
    before: Vec<u8>,
    /// A restart found while the file had no complete line yet (replaced by an empty file,
    /// or cut to nothing, for a moment): told with the first lines that come.
    pending: Option<Restart>,
}

fn identity(meta: &std::fs::Metadata) -> (u64, u64) {
    (meta.dev(), meta.ino())
}

impl Follower {
    /// Opens the file at `path`, positioned at its start.
    pub fn open(path: &Path) -> io::Result<Follower> {
        let file = super::data::open_regular(path)?;
        let identity = identity(&file.metadata()?);
        Ok(Follower {
            path: path.to_path_buf(),
            file,
            identity,
            pos: 0,
            before: Vec::new(),
            pending: None,
        })
    }

    /// [`Follower::open`], waiting for the file to appear; `None` when cancelled first.
    pub fn open_when_present(path: &Path, wait: &mut dyn Wait, cancel: &Cancel) -> io::Result<Option<Follower>> {
        loop {
            match Follower::open(path) {
                Ok(f) => return Ok(Some(f)),
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
            if cancel.is_cancelled() {
                return Ok(None);
            }
            wait.wait(POLL);
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// End of the last complete line read.
    pub fn position(&self) -> u64 {
        self.pos
    }

    /// Reads what changed since the last read, without waiting: `None` when no complete
    /// line was added.
    pub fn read(&mut self) -> io::Result<Option<Change>> {
        if let Some(why) = self.check()? {
            self.pos = 0;
            self.before.clear();
            // The first restart is the one to tell (a replacement, then lines written).
            self.pending = self.pending.or(Some(why));
        }
        let lines = self.read_lines()?;
        if lines.is_empty() {
            // An empty file in place of the session is taken as a moment in a rewrite (a
            // writer truncating before writing, an editor saving): waited out, not read.
            return Ok(None);
        }
        Ok(Some(match self.pending.take() {
            Some(why) => Change::Restarted(why, lines),
            None => Change::Appended(lines),
        }))
    }

    /// Waits for the next change: `None` once `cancel` is set.
    pub fn next(&mut self, wait: &mut dyn Wait, cancel: &Cancel) -> io::Result<Option<Change>> {
        loop {
            if cancel.is_cancelled() {
                return Ok(None);
            }
            if let Some(change) = self.read()? {
                return Ok(Some(change));
            }
            wait.wait(POLL);
        }
    }

    /// Whether the file must be read again from its start, and why. Reopens the path when
    /// another file is there.
    fn check(&mut self) -> io::Result<Option<Restart>> {
        // A path that is gone (deleted, or between an unlink and a create) keeps the file
        // open: it is read on until something appears at the path.
        if let Ok(meta) = std::fs::metadata(&self.path)
            && identity(&meta) != self.identity
        {
            match Follower::open(&self.path) {
                Ok(f) => {
                    self.file = f.file;
                    self.identity = f.identity;
                    return Ok(Some(Restart::Replaced));
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
        let len = self.file.metadata()?.len();
        if len < self.pos {
            return Ok(Some(Restart::Truncated));
        }
        if !self.before.is_empty() {
            let mut now = vec![0; self.before.len()];
            let at = self.pos - now.len() as u64;
            self.file.read_exact_at(&mut now, at)?;
            if now != self.before {
                return Ok(Some(Restart::Rewritten));
            }
        }
        Ok(None)
    }

    /// The complete lines after `pos`, moving `pos` past them.
    fn read_lines(&mut self) -> io::Result<Vec<u8>> {
        let mut buf = Vec::new();
        let mut f = &self.file;
        io::Seek::seek(&mut f, io::SeekFrom::Start(self.pos))?;
        f.read_to_end(&mut buf)?;
        // A half-written last line waits for its newline: it is read again next time.
        let complete = memchr::memrchr(b'\n', &buf).map_or(0, |i| i + 1);
        buf.truncate(complete);
        self.pos += complete as u64;
        if complete > 0 {
            let keep = (complete as u64).min(CHECKED) as usize;
            self.before.clear();
            self.before.extend_from_slice(&buf[complete - keep..]);
        }
        Ok(buf)
    }
}

/// Waits on the system's notifications about the file's folder (a folder watch also sees
/// the file replaced or created), or polls every [`POLL`] when they cannot be set up.
pub struct Watch {
    events: Option<(notify::RecommendedWatcher, mpsc::Receiver<()>)>,
}

impl Watch {
    /// Watches the folder of `path` for changes to it.
    pub fn new(path: &Path) -> Watch {
        Watch {
            events: Self::notified(path).ok(),
        }
    }

    /// A watch that only polls.
    pub fn polling() -> Watch {
        Watch { events: None }
    }

    fn notified(path: &Path) -> notify::Result<(notify::RecommendedWatcher, mpsc::Receiver<()>)> {
        use notify::Watcher;
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let name = path.file_name().map(|n| n.to_os_string());
        let (tx, rx) = mpsc::channel();
        let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
            // Only events about the file wake the reader (Pi's other sessions share the folder).
            let about_file = match &event {
                Ok(e) => e.paths.is_empty() || e.paths.iter().any(|p| p.file_name() == name.as_deref()),
                Err(_) => true,
            };
            if about_file {
                let _ = tx.send(());
            }
        })?;
        watcher.watch(&dir, notify::RecursiveMode::NonRecursive)?;
        Ok((watcher, rx))
    }
}

impl Wait for Watch {
    fn wait(&mut self, timeout: Duration) {
        match &self.events {
            Some((_, rx)) => {
                if rx.recv_timeout(timeout).is_ok() {
                    // One read answers every event that came meanwhile.
                    while rx.try_recv().is_ok() {}
                }
            }
            None => std::thread::sleep(timeout.min(POLL)),
        }
    }
}

/// Where `@` went when it left the branch it was on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Moved {
    /// To the branch of the entry with this id (a `/tree` navigation, a checkout).
    To(String),
    /// To an empty position: the next message starts a new root.
    Empty,
}

/// What to show after a change.
#[derive(Debug)]
pub struct Update {
    /// Set when `@` moved to another branch (not when it moved on along its own).
    pub moved: Option<Moved>,
    /// The entries to show, in order, as a session of their lines (under the file's
    /// header); `None` when there is none.
    pub shown: Option<Session>,
    /// The entry of `shown` that is `@`, if shown.
    pub at: Option<EntryIdx>,
}

/// An entry: in the session as last read whole, or appended since.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Ref {
    Base(EntryIdx),
    New(usize),
}

/// An entry appended since the session was last read whole.
#[derive(Debug)]
struct Node {
    id: Option<Box<str>>,
    parent: Option<Box<str>>,
    bookkeeping: bool,
    line: Vec<u8>,
}

/// Decides which appended entries to show: every one (`all`), or those that come onto the
/// branch of `@` as it moves. Entries are told apart by id: one shown (or present when
/// following began) is not shown again after the file is read anew.
#[derive(Debug)]
pub struct Tracker {
    all: bool,
    base: Session,
    new: Vec<Node>,
    new_by_id: rustc_hash::FxHashMap<Box<str>, usize>,
    seen: rustc_hash::FxHashSet<Box<str>>,
    at: Option<Ref>,
}

impl Tracker {
    /// Follows from `base`, the session as printed so far.
    pub fn new(base: Session, all: bool) -> Tracker {
        let seen = (0..base.entries.len())
            .filter_map(|i| base.id_str(i).map(Box::from))
            .collect();
        let at = base.at().map(Ref::Base);
        Tracker {
            all,
            base,
            new: Vec::new(),
            new_by_id: Default::default(),
            seen,
            at,
        }
    }

    /// Complete lines appended to the file.
    pub fn appended(&mut self, lines: &[u8]) -> Result<Update> {
        let header = self.base.line_bytes(self.base.header.start, self.base.header.end);
        let mut bytes = Vec::with_capacity(header.len() + 1 + lines.len());
        bytes.extend_from_slice(header);
        bytes.push(b'\n');
        bytes.extend_from_slice(lines);
        let batch = Session::from_bytes(self.base.path.clone(), bytes)?;
        let first = self.new.len();
        for i in 0..batch.entries.len() {
            let id: Option<Box<str>> = batch.id_str(i).map(Box::from);
            if let Some(id) = &id {
                self.new_by_id.insert(id.clone(), self.new.len());
            }
            self.new.push(Node {
                id,
                parent: batch.parent_id_str(i).map(Box::from),
                bookkeeping: batch.entries[i].is_tip_bookkeeping(),
                line: batch.raw(i).to_vec(),
            });
        }
        let old_at = self.at;
        let old_at_id = old_at.and_then(|r| self.id(r).map(str::to_owned));
        if self.new.len() > first {
            self.at = self.position_of(Ref::New(self.new.len() - 1));
        }
        let refs: Vec<Ref> = if self.all {
            (first..self.new.len())
                .filter(|&i| self.new[i].id.as_deref().is_none_or(|id| !self.seen.contains(id)))
                .map(Ref::New)
                .collect()
        } else {
            self.unseen_branch()
        };
        let moved = if self.all || self.at == old_at {
            None
        } else {
            self.moved(old_at_id.as_deref())
        };
        self.update(moved, refs)
    }

    /// The file was read again from its start: `base` is what it holds now.
    pub fn restarted(&mut self, base: Session) -> Result<Update> {
        let old_at_id = self.at.and_then(|r| self.id(r).map(str::to_owned));
        self.base = base;
        self.new.clear();
        self.new_by_id.clear();
        self.at = self.base.at().map(Ref::Base);
        let refs: Vec<Ref> = if self.all {
            (0..self.base.entries.len())
                .filter(|&i| self.base.id_str(i).is_some_and(|id| !self.seen.contains(id)))
                .map(Ref::Base)
                .collect()
        } else {
            self.unseen_branch()
        };
        let new_at_id = self.at.and_then(|r| self.id(r));
        let moved = if self.all || new_at_id == old_at_id.as_deref() {
            None
        } else {
            self.moved(old_at_id.as_deref())
        };
        self.update(moved, refs)
    }

    fn update(&mut self, moved: Option<Moved>, refs: Vec<Ref>) -> Result<Update> {
        if refs.is_empty() {
            return Ok(Update {
                moved,
                shown: None,
                at: None,
            });
        }
        let header = self.base.line_bytes(self.base.header.start, self.base.header.end);
        let mut bytes = header.to_vec();
        bytes.push(b'\n');
        let mut at = None;
        for (k, &r) in refs.iter().enumerate() {
            if Some(r) == self.at {
                at = Some(k);
            }
            if let Some(id) = self.id(r) {
                let id = Box::from(id);
                self.seen.insert(id);
            }
            bytes.extend_from_slice(match r {
                Ref::Base(i) => self.base.raw(i),
                Ref::New(i) => &self.new[i].line,
            });
            bytes.push(b'\n');
        }
        let shown = Session::from_bytes(self.base.path.clone(), bytes)?;
        // Lines Pi skips are not entries: `@` is found by position only when all are.
        let at = at.filter(|_| shown.entries.len() == refs.len());
        Ok(Update {
            moved,
            shown: Some(shown),
            at,
        })
    }

    fn id(&self, r: Ref) -> Option<&str> {
        match r {
            Ref::Base(i) => self.base.id_str(i),
            Ref::New(i) => self.new[i].id.as_deref(),
        }
    }

    /// The entry Pi finds for an id: the last appended with it.
    fn lookup(&self, id: &str) -> Option<Ref> {
        match self.new_by_id.get(id) {
            Some(&i) => Some(Ref::New(i)),
            None => self.base.lookup(id).map(Ref::Base),
        }
    }

    fn parent(&self, r: Ref) -> Option<Ref> {
        match r {
            Ref::Base(i) => self.base.parent(i).map(Ref::Base),
            Ref::New(i) => self.new[i].parent.as_deref().and_then(|p| self.lookup(p)),
        }
    }

    fn bookkeeping(&self, r: Ref) -> bool {
        match r {
            Ref::Base(i) => self.base.entries[i].is_tip_bookkeeping(),
            Ref::New(i) => self.new[i].bookkeeping,
        }
    }

    /// A walk longer than every entry has gone round a parent cycle.
    fn max_steps(&self) -> usize {
        self.base.entries.len() + self.new.len() + 1
    }

    /// `@` for a leaf: stepping back over labels and checkout records.
    fn position_of(&self, leaf: Ref) -> Option<Ref> {
        let mut cur = leaf;
        for _ in 0..self.max_steps() {
            if !self.bookkeeping(cur) {
                return Some(cur);
            }
            cur = self.parent(cur)?;
        }
        None
    }

    /// The entries of `@`'s branch not seen yet, root first: from `@` back to the first
    /// one seen (entries come after their parents, so the rest were seen).
    fn unseen_branch(&self) -> Vec<Ref> {
        let mut refs = Vec::new();
        let mut cur = self.at;
        while let Some(r) = cur {
            match self.id(r) {
                Some(id) if !self.seen.contains(id) => refs.push(r),
                _ => break,
            }
            if refs.len() > self.max_steps() {
                break;
            }
            cur = self.parent(r);
        }
        refs.reverse();
        refs
    }

    /// Whether `@` left the branch it was on: the old `@` (by id) is not on the new one.
    fn moved(&self, old_at: Option<&str>) -> Option<Moved> {
        let Some(at) = self.at else {
            return old_at.map(|_| Moved::Empty);
        };
        let old_at = old_at?;
        let mut cur = Some(at);
        for _ in 0..self.max_steps() {
            let Some(r) = cur else { break };
            if self.id(r) == Some(old_at) {
                return None;
            }
            cur = self.parent(r);
        }
        Some(Moved::To(self.id(at).unwrap_or_default().to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn append(path: &Path, bytes: &[u8]) {
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .open(path)
            .unwrap();
        f.write_all(bytes).unwrap();
    }

    fn appended(c: Option<Change>) -> Vec<u8> {
        match c {
            Some(Change::Appended(b)) => b,
            other => panic!("expected lines appended, got {other:?}"),
        }
    }

    #[test]
    fn hands_out_complete_lines_only() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        append(&path, b"a\nb\nhalf");
        let mut f = Follower::open(&path).unwrap();
        assert_eq!(appended(f.read().unwrap()), b"a\nb\n");
        assert!(f.read().unwrap().is_none());
        append(&path, b" a line");
        assert!(f.read().unwrap().is_none());
        append(&path, b"\nc\n");
        assert_eq!(appended(f.read().unwrap()), b"half a line\nc\n");
        assert_eq!(f.position(), 18);
    }

    #[test]
    fn a_cut_a_rewrite_and_a_replacement_restart() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        append(&path, b"one\ntwo\n");
        let mut f = Follower::open(&path).unwrap();
        appended(f.read().unwrap());
        std::fs::write(&path, b"x\n").unwrap();
        assert!(matches!(f.read().unwrap(), Some(Change::Restarted(Restart::Truncated, b)) if b == b"x\n"));
        std::fs::write(&path, b"y\nlonger\n").unwrap();
        assert!(matches!(
            f.read().unwrap(),
            Some(Change::Restarted(Restart::Rewritten, _))
        ));
        let other = dir.path().join("t.jsonl");
        std::fs::write(&other, b"z\n").unwrap();
        std::fs::rename(&other, &path).unwrap();
        assert!(matches!(f.read().unwrap(), Some(Change::Restarted(Restart::Replaced, b)) if b == b"z\n"));
        append(&path, b"w\n");
        assert_eq!(appended(f.read().unwrap()), b"w\n");
    }

    #[test]
    fn an_empty_file_for_a_moment_is_waited_out() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.jsonl");
        append(&path, b"one\ntwo\n");
        let mut f = Follower::open(&path).unwrap();
        appended(f.read().unwrap());
        // Replaced by an empty file: nothing to read yet, no restart with nothing in it.
        let other = dir.path().join("t.jsonl");
        std::fs::write(&other, b"").unwrap();
        std::fs::rename(&other, &path).unwrap();
        assert!(f.read().unwrap().is_none());
        // Only half a line: still waiting.
        append(&path, b"one");
        assert!(f.read().unwrap().is_none());
        append(&path, b"\ntwo\nthree\n");
        assert!(
            matches!(f.read().unwrap(), Some(Change::Restarted(Restart::Replaced, b)) if b == b"one\ntwo\nthree\n")
        );
        // Cut to nothing, then written again.
        std::fs::write(&path, b"").unwrap();
        assert!(f.read().unwrap().is_none());
        std::fs::write(&path, b"again\n").unwrap();
        assert!(matches!(f.read().unwrap(), Some(Change::Restarted(Restart::Truncated, b)) if b == b"again\n"));
    }

    #[test]
    fn waits_for_a_missing_file_until_cancelled() {
        let dir = tempfile::tempdir().unwrap();
        let cancel = Cancel::new();
        cancel.cancel();
        let got = Follower::open_when_present(&dir.path().join("none"), &mut Watch::polling(), &cancel).unwrap();
        assert!(got.is_none());
    }
}
