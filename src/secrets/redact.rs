//! Taking the secrets out of a session file, with `repair`'s discipline: under the file's
//! lock, into a temp file in the same folder, fsynced, renamed over the original only if the
//! file did not change meanwhile (lines Pi appended are carried over), the original kept as
//! the backup. The backup is the one place the secrets survive: it is made readable by its
//! owner only, or removed on request. Nothing else holds them: no rejects are written, and a
//! temp file holds only the redacted bytes.

use super::rules::RuleSet;
use super::scan::{FileScan, redact_all, scan};
use crate::repair::apply::apply;
use crate::repair::plan::Plan;
use crate::session::SessionError;
use crate::session::io::append::lock_wait;
use crate::session::io::write::LockedFile;
use std::path::{Path, PathBuf};

/// What `redact` did to a file.
#[derive(Debug)]
pub struct Redaction {
    pub scan: FileScan,
    /// Whether the file was rewritten (false: nothing found, or a dry run).
    pub written: bool,
    /// The original, kept (mode 0600), unless asked not to.
    pub backup: Option<PathBuf>,
    /// Lines appended while the file was being redacted, carried over as they were: not
    /// scanned (a second run takes them).
    pub carried_lines: usize,
}

/// Redacts `path` in place (nothing written on a dry run, or when nothing is found).
pub fn redact_file(path: &Path, rules: &RuleSet, dry_run: bool, keep_backup: bool) -> Result<Redaction, SessionError> {
    let mut lock = if dry_run {
        LockedFile::open_shared(path, lock_wait())?
    } else {
        LockedFile::open(path, lock_wait())?
    };
    let data = lock.map_all()?;
    let (output, found) = match redact_all(&data, scan(&data, rules), rules) {
        Some((output, found)) if !dry_run => (output, found),
        Some((_, found)) => (Vec::new(), found),
        None => (Vec::new(), FileScan::default()),
    };
    if dry_run || found.findings.is_empty() {
        return Ok(Redaction {
            scan: found,
            written: false,
            backup: None,
            carried_lines: 0,
        });
    }
    let plan = Plan {
        findings: Vec::new(),
        output: Some(output),
        rejects: Vec::new(),
        after: None,
    };
    let applied = apply(&mut lock, &data, &plan)?.expect("a plan with output is applied");
    drop(lock);
    let backup = if keep_backup {
        restrict(&applied.backup).map_err(|e| SessionError::write(&applied.backup, e))?;
        Some(applied.backup)
    } else {
        std::fs::remove_file(&applied.backup).map_err(|e| SessionError::write(&applied.backup, e))?;
        None
    };
    Ok(Redaction {
        scan: found,
        written: true,
        backup,
        carried_lines: applied.carried_lines,
    })
}

/// Makes a file readable and writable by its owner only.
fn restrict(path: &Path) -> std::io::Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
    }
    #[cfg(not(unix))]
    {
        let _ = path;
        Ok(())
    }
}

/// A session's bytes with its secrets taken out (for `export --redact` and `clone --redact`,
/// which leave the original as it is).
pub fn redacted_bytes(bytes: &[u8], rules: &RuleSet) -> Option<Vec<u8>> {
    redact_all(bytes, scan(bytes, rules), rules).map(|(out, _)| out)
}
