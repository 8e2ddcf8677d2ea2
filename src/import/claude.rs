//! Claude Code's sessions: `~/.claude/projects/<cwd>/<session-id>.jsonl`.
//! (Being written.)

use super::{Converted, Options};
use crate::session::SessionError;
use std::path::{Path, PathBuf};

/// Converts one Claude Code session file.
pub fn convert(_bytes: &[u8], path: &Path, _options: &Options) -> Result<Converted, SessionError> {
    Err(SessionError::Refused(format!(
        "{}: importing Claude Code sessions is not written yet",
        path.display()
    )))
}

/// Every Claude Code session file of the project directory `cwd` under `root`.
pub fn sources_for(_root: &Path, _cwd: &Path) -> Vec<PathBuf> {
    Vec::new()
}

/// The Claude Code session file whose session id is `id`, under `root`.
pub fn find_by_id(_root: &Path, _id: &str) -> Option<PathBuf> {
    None
}
