//! Finding session files the way Pi does: the agent directory (`$PI_CODING_AGENT_DIR` or
//! `~/.pi/agent`), sessions under `sessions/--<cwd>--/` or in `$PI_CODING_AGENT_SESSION_DIR`,
//! and the most recent one by modification time among files whose header parses.

use super::SessionError;
use super::skim::{LineRead, read_line};
use std::fs;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

/// Where Pi keeps sessions for a working directory.
#[derive(Debug, Clone)]
pub struct SessionDir {
    pub path: PathBuf,
    /// With `$PI_CODING_AGENT_SESSION_DIR`, all projects share one folder and Pi keeps only
    /// sessions whose header `cwd` is this directory.
    pub filter_cwd: Option<PathBuf>,
}

fn expand_tilde(p: &str) -> PathBuf {
    match (p.strip_prefix("~/"), std::env::var_os("HOME")) {
        (Some(rest), Some(home)) => PathBuf::from(home).join(rest),
        _ if p == "~" => std::env::var_os("HOME").map(PathBuf::from).unwrap_or_else(|| p.into()),
        _ => PathBuf::from(p),
    }
}

/// `$PI_CODING_AGENT_DIR`, else `~/.pi/agent`.
pub fn agent_dir() -> PathBuf {
    match std::env::var("PI_CODING_AGENT_DIR") {
        Ok(d) if !d.is_empty() => expand_tilde(&d),
        _ => {
            let home = std::env::var_os("HOME").map(PathBuf::from).unwrap_or_default();
            home.join(".pi").join("agent")
        }
    }
}

/// The folder holding every project's session folder.
pub fn sessions_root() -> PathBuf {
    agent_dir().join("sessions")
}

/// Pi's folder name for a cwd: `--` + the path without its leading separator, with `/`,
/// `\` and `:` replaced by `-`, + `--`.
pub fn encode_cwd(cwd: &Path) -> String {
    let s = cwd.to_string_lossy();
    let s = s.strip_prefix(['/', '\\']).unwrap_or(&s);
    format!("--{}--", s.replace(['/', '\\', ':'], "-"))
}

/// The session folder for `cwd`.
pub fn session_dir_for(cwd: &Path) -> SessionDir {
    match std::env::var("PI_CODING_AGENT_SESSION_DIR") {
        Ok(d) if !d.is_empty() => SessionDir {
            path: expand_tilde(&d),
            filter_cwd: Some(cwd.to_path_buf()),
        },
        _ => SessionDir {
            path: sessions_root().join(encode_cwd(cwd)),
            filter_cwd: None,
        },
    }
}

/// The header of a session file, read without reading the rest: the first line that
/// parses must be a `session` line with a string id (Pi's `readSessionHeader`).
#[derive(Debug, Clone)]
pub struct HeaderInfo {
    pub id: String,
    pub cwd: Option<String>,
    pub timestamp: Option<String>,
    pub parent_session: Option<String>,
}

/// Pi scans at most this much for the header during discovery.
const MAX_HEADER_SCAN: u64 = 1024 * 1024;

pub fn read_header(path: &Path) -> Option<HeaderInfo> {
    let file = super::data::open_regular(path).ok()?;
    let mut reader = BufReader::new(file.take(MAX_HEADER_SCAN));
    let mut line = Vec::new();
    loop {
        line.clear();
        if reader.read_until(b'\n', &mut line).ok()? == 0 {
            return None;
        }
        let body = line.strip_suffix(b"\n").unwrap_or(&line);
        if body.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match read_line(body) {
            LineRead::Object(s) => {
                if s.kind.as_deref() != Some("session") {
                    return None;
                }
                return Some(HeaderInfo {
                    id: s.id?.into_owned(),
                    cwd: s.cwd.map(|c| c.into_owned()),
                    timestamp: s.timestamp.map(|c| c.into_owned()),
                    parent_session: s.parent_session.map(|c| c.into_owned()),
                });
            }
            // Pi refuses a file whose first truthy value before the header is not an
            // object (`42`); falsy ones (`null`, `0`) it skips.
            _ if super::skim::truthy_non_object(body) => return None,
            _ => continue,
        }
    }
}

/// `*.jsonl` files of a folder with their headers, newest modification first. Only regular
/// files (or symlinks to them) count: a FIFO or a device is never opened.
pub fn sessions_in(dir: &SessionDir) -> Vec<(PathBuf, HeaderInfo)> {
    let Ok(read) = fs::read_dir(&dir.path) else {
        return Vec::new();
    };
    let mut files: Vec<(PathBuf, std::time::SystemTime)> = read
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .filter_map(|p| {
            let meta = fs::metadata(&p).ok()?;
            if !meta.is_file() {
                return None;
            }
            Some((p, meta.modified().ok()?))
        })
        .collect();
    files.sort_by_key(|f| std::cmp::Reverse(f.1));
    files
        .into_iter()
        .filter_map(|(p, _)| {
            let h = read_header(&p)?;
            if let Some(cwd) = &dir.filter_cwd {
                let matches = h.cwd.as_deref().is_some_and(|c| !c.is_empty() && Path::new(c) == cwd);
                if !matches {
                    return None;
                }
            }
            Some((p, h))
        })
        .collect()
}

/// Every `*.jsonl` file of the sessions directory: `$PI_CODING_AGENT_SESSION_DIR`, or each
/// project folder under the agent directory's `sessions/`. Sorted by path.
pub fn all_session_files() -> (PathBuf, Vec<PathBuf>) {
    let jsonl_in = |dir: &Path| -> Vec<PathBuf> {
        fs::read_dir(dir)
            .map(|r| {
                r.filter_map(Result::ok)
                    .map(|e| e.path())
                    .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "jsonl"))
                    .collect()
            })
            .unwrap_or_default()
    };
    let (root, mut files) = match std::env::var("PI_CODING_AGENT_SESSION_DIR") {
        Ok(d) if !d.is_empty() => {
            let root = expand_tilde(&d);
            let files = jsonl_in(&root);
            (root, files)
        }
        _ => {
            let root = sessions_root();
            let mut files = Vec::new();
            if let Ok(r) = fs::read_dir(&root) {
                for dir in r.filter_map(Result::ok).map(|e| e.path()).filter(|p| p.is_dir()) {
                    files.extend(jsonl_in(&dir));
                }
            }
            (root, files)
        }
    };
    files.sort();
    (root, files)
}

/// Resolves `-s/--session`: a path to a regular file, or a session id or unique id prefix:
/// looked up in the current directory's session folder first, then in every project's (the
/// sessions `ls --all` lists). Without it, the most recent session of the current directory.
pub fn find_session(arg: Option<&str>, cwd: &Path) -> Result<PathBuf, SessionError> {
    let dir = session_dir_for(cwd);
    let Some(arg) = arg else {
        return sessions_in(&dir).into_iter().next().map(|(p, _)| p).ok_or_else(|| {
            SessionError::NoSession(format!("no Pi session for {} in {}", cwd.display(), dir.path.display()))
        });
    };
    let as_path = cwd.join(arg);
    if as_path.exists() || arg.contains('/') || arg.contains('\\') || arg.ends_with(".jsonl") {
        if as_path.exists() {
            super::data::check_regular(&as_path).map_err(|e| SessionError::io(&as_path, e))?;
        }
        return Ok(as_path);
    }
    if arg.is_empty() {
        return Err(SessionError::NoSession("an empty session id names no session".into()));
    }
    let here: Vec<(PathBuf, String)> = sessions_in(&dir).into_iter().map(|(p, h)| (p, h.id)).collect();
    if let Some(found) = pick_by_id(arg, &here)? {
        return Ok(found);
    }
    let (_, files) = all_session_files();
    let everywhere: Vec<(PathBuf, String)> = files
        .into_iter()
        .filter_map(|p| read_header(&p).map(|h| (p, h.id)))
        .collect();
    if let Some(found) = pick_by_id(arg, &everywhere)? {
        return Ok(found);
    }
    Err(SessionError::NoSession(format!(
        "'{arg}' is neither a file nor the id of a session (looked in {} and every project's sessions)",
        dir.path.display()
    )))
}

/// The session whose id is `arg`, else the only one whose id starts with it.
fn pick_by_id(arg: &str, sessions: &[(PathBuf, String)]) -> Result<Option<PathBuf>, SessionError> {
    if let Some((p, _)) = sessions.iter().find(|(_, id)| id == arg) {
        return Ok(Some(p.clone()));
    }
    let mut matches: Vec<&(PathBuf, String)> = sessions.iter().filter(|(_, id)| id.starts_with(arg)).collect();
    // The same file reached twice (e.g. through the current folder and the sessions root).
    matches.dedup_by(|a, b| a.0 == b.0);
    match matches.as_slice() {
        [] => Ok(None),
        [one] => Ok(Some(one.0.clone())),
        many => Err(SessionError::AmbiguousSession {
            arg: arg.to_owned(),
            candidates: many.iter().map(|(p, id)| (id.clone(), p.clone())).collect(),
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_cwd_like_pi() {
        assert_eq!(encode_cwd(Path::new("/home/user/proj")), "--home-user-proj--");
        assert_eq!(encode_cwd(Path::new("C:\\work\\x")), "--C--work-x--");
    }
}
