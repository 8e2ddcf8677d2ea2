//! Typed errors of the session library. The CLI turns each into an `error:` line and a
//! `hint:` line; keeping them typed lets it choose the hint and the exit code.

use std::path::PathBuf;

#[derive(Debug, thiserror::Error)]
pub enum SessionError {
    #[error("cannot read {path}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error("cannot write {path}")]
    Write {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// Written, but not made durable: the data may not be on the disk.
    #[error("cannot flush {path} to disk (fsync)")]
    Sync {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// A finished temp file could not be put in place (renamed or linked as `to`).
    #[error("cannot {how} {from} as {to}")]
    Place {
        how: &'static str,
        from: PathBuf,
        to: PathBuf,
        #[source]
        source: std::io::Error,
    },

    /// A file a command would create is already there (and `--force` was not given).
    #[error("{path} already exists")]
    Exists { path: PathBuf },

    #[error("{path} is not a Pi session: {reason}")]
    NotASession { path: PathBuf, reason: String },

    /// Not a session at all: no line of the file is a JSON object (empty, text, binary), so
    /// there is nothing `repair` could work with either.
    #[error("{path} is not a Pi session: {reason}")]
    NotJsonLines { path: PathBuf, reason: String },

    #[error("unknown revision '{0}'")]
    UnknownRevision(String),

    /// `:/TEXT` matched nothing on the one branch it searches, `@`'s, which ends at `at`
    /// (an id, or `line N`).
    #[error("unknown revision '{rev}': the text is not on @'s branch (root to {at}), the only branch :/TEXT searches")]
    TextNotFound { rev: String, text: String, at: String },

    #[error("ambiguous revision '{rev}': it matches {} entries", candidates.len())]
    AmbiguousRevision {
        rev: String,
        /// Full ids of the matching entries, in file order.
        candidates: Vec<String>,
    },

    #[error("invalid revision '{rev}': {reason}")]
    InvalidRevision { rev: String, reason: String },

    #[error("'{rev}' goes past the root of its branch ({available} ancestors available)")]
    PastRoot { rev: String, available: usize },

    /// `rev` names no entry: the session has none, or `@` steps back over bookkeeping
    /// (labels, checkout records) to an entry with no parent. `leaf` is then Pi's leaf
    /// (`"label 9c0a258a"`), the entry Pi hangs its next message under.
    #[error("{}", empty_position(rev, leaf.as_deref()))]
    EmptyPosition { rev: String, leaf: Option<String> },

    #[error("no session found: {0}")]
    NoSession(String),

    #[error("ambiguous session id '{arg}': it matches {} sessions", candidates.len())]
    AmbiguousSession {
        arg: String,
        /// (id, path) of each matching session.
        candidates: Vec<(String, PathBuf)>,
    },

    #[error("{path} is locked by another process (waited {}s)", waited.as_secs())]
    Locked { path: PathBuf, waited: std::time::Duration },

    #[error("{path} is in session format v{version}; pi-session writes only to v3 files")]
    OldFormat { path: PathBuf, version: u32 },

    #[error("Pi's leaf is {actual}, not {expected}: nothing written")]
    LeafMismatch { expected: String, actual: String },

    #[error("{0}")]
    Refused(String),

    /// A command reading only the end of a file needs more of it (never shown to users:
    /// the reader reads further back and tries again).
    #[error("more of the file is needed")]
    NeedMore,
}

impl SessionError {
    pub fn write(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        SessionError::Write {
            path: path.into(),
            source,
        }
    }

    pub fn sync(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        SessionError::Sync {
            path: path.into(),
            source,
        }
    }

    /// `from` could not be renamed to `to`.
    pub fn rename(from: impl Into<PathBuf>, to: impl Into<PathBuf>, source: std::io::Error) -> Self {
        SessionError::Place {
            how: "rename",
            from: from.into(),
            to: to.into(),
            source,
        }
    }

    /// `to` could not be made a hard link to `from`.
    pub fn link(from: impl Into<PathBuf>, to: impl Into<PathBuf>, source: std::io::Error) -> Self {
        SessionError::Place {
            how: "link",
            from: from.into(),
            to: to.into(),
            source,
        }
    }

    pub fn io(path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        SessionError::Io {
            path: path.into(),
            source,
        }
    }
}

pub type Result<T, E = SessionError> = std::result::Result<T, E>;

fn empty_position(rev: &str, leaf: Option<&str>) -> String {
    match leaf {
        None => format!("the session is empty: '{rev}' names no entry"),
        Some(leaf) => format!("'{rev}' names an empty position: Pi's leaf is {leaf}, which has no parent"),
    }
}
