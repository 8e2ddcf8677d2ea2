//! Codex CLI's sessions: `~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`.
//! (Being written.)

use super::{Converted, Options};
use crate::session::SessionError;
use std::path::{Path, PathBuf};

/// Converts one Codex CLI session file.
pub fn convert(_bytes: &[u8], path: &Path, _options: &Options) -> Result<Converted, SessionError> {
    Err(SessionError::Refused(format!(
        "{}: importing Codex CLI sessions is not written yet",
        path.display()
    )))
}

/// Every Codex CLI session file of the project directory `cwd` under `root`.
pub fn sources_for(_root: &Path, _cwd: &Path) -> Vec<PathBuf> {
    Vec::new()
}

/// The Codex CLI session file whose session id is `id`, under `root`.
pub fn find_by_id(_root: &Path, _id: &str) -> Option<PathBuf> {
    None
}
