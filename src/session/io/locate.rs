//! Finding session files the way Pi 1.6.0 does, in one place ([`Locations`]): the agent
//! directory (`$PI_CODING_AGENT_DIR` or `~/.pi/agent`); sessions under
//! `sessions/--<cwd>--/`, or all in one folder named by `$PI_CODING_AGENT_SESSION_DIR` or the
//! `sessionDir` setting; the most recent one by modification time among files whose header
//! parses.

use crate::session::SessionError;
use crate::session::skim::{LineRead, read_line};
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

/// Pi's `normalizePath` for a configured directory: `~` and `~/…` name the home directory.
fn expand_tilde(p: &str, home: Option<&Path>) -> PathBuf {
    match (p.strip_prefix("~/"), home) {
        (Some(rest), Some(home)) => home.join(rest),
        (None, Some(home)) if p == "~" => home.to_path_buf(),
        _ => PathBuf::from(p),
    }
}

fn home_dir() -> Option<PathBuf> {
    std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from)
}

/// `$PI_CODING_AGENT_DIR`, else `~/.pi/agent`.
pub fn agent_dir() -> PathBuf {
    match std::env::var("PI_CODING_AGENT_DIR") {
        Ok(d) if !d.is_empty() => expand_tilde(&d, home_dir().as_deref()),
        _ => home_dir().unwrap_or_default().join(".pi").join("agent"),
    }
}

/// Pi's folder name for a cwd: `--` + the path without its leading separator, with `/`,
/// `\` and `:` replaced by `-`, + `--`.
pub fn encode_cwd(cwd: &Path) -> String {
    let s = cwd.to_string_lossy();
    let s = s.strip_prefix(['/', '\\']).unwrap_or(&s);
    format!("--{}--", s.replace(['/', '\\', ':'], "-"))
}

/// The `sessionDir` value of one settings file: `Some(value)` when the file is a JSON object
/// with that key (Pi reads it with `JSON.parse` after dropping a BOM; a file that does not
/// parse counts as empty, as Pi reports it and goes on without it).
fn setting_in(path: &Path) -> Option<serde_json::Value> {
    let bytes = fs::read(path).ok()?;
    let bytes = bytes.strip_prefix("\u{feff}".as_bytes()).unwrap_or(&bytes);
    match crate::json::jsparse::parse(bytes).ok()? {
        serde_json::Value::Object(mut o) => o.remove("sessionDir"),
        _ => None,
    }
}

/// Pi 1.6.0's session directory, in its order: `$PI_CODING_AGENT_SESSION_DIR` (when not
/// empty), else `sessionDir` of the settings, the project's `<cwd>/.pi/settings.json` over
/// the global `<agent dir>/settings.json`. A leading `~` is the home directory; a relative
/// path is kept as it is, relative to the working directory (`cwd` is that directory).
/// `None`: no custom directory, each project has its folder under `<agent dir>/sessions`.
/// An empty, `null` or non-string `sessionDir` sets none.
pub fn custom_session_dir(env: Option<&str>, agent_dir: &Path, cwd: &Path, home: Option<&Path>) -> Option<PathBuf> {
    let configured = match env.filter(|d| !d.is_empty()) {
        Some(d) => d.to_owned(),
        None => {
            let global = setting_in(&agent_dir.join("settings.json"));
            let project = setting_in(&cwd.join(".pi").join("settings.json"));
            match project.or(global)? {
                serde_json::Value::String(s) if !s.is_empty() => s,
                _ => return None,
            }
        }
    };
    // A relative path stays relative (to the process's working directory), as in Pi.
    Some(expand_tilde(&configured, home))
}

/// Where Pi keeps sessions, resolved once from the environment and the settings: every
/// command that finds sessions (`ls`, the default session, `-s ID`, `grep --all-sessions`,
/// `repair --all`) goes through this.
#[derive(Debug, Clone)]
pub struct Locations {
    /// The working directory the lookup is for.
    pub cwd: PathBuf,
    /// The agent directory (`$PI_CODING_AGENT_DIR` or `~/.pi/agent`).
    pub agent_dir: PathBuf,
    /// The one folder every project's sessions share (`$PI_CODING_AGENT_SESSION_DIR` or the
    /// `sessionDir` setting); `None`: one folder per project under `<agent dir>/sessions`.
    pub custom_dir: Option<PathBuf>,
    /// Whether these are the archive's folders ([`Locations::archive`]): the per-project
    /// folders under `<agent dir>/sessions-archive` rather than `<agent dir>/sessions`.
    pub archived: bool,
}

impl Locations {
    /// From this process's environment and Pi's settings files, for `cwd`.
    pub fn discover(cwd: &Path) -> Locations {
        let agent_dir = agent_dir();
        let env = std::env::var("PI_CODING_AGENT_SESSION_DIR").ok();
        let custom_dir = custom_session_dir(env.as_deref(), &agent_dir, cwd, home_dir().as_deref());
        Locations {
            cwd: cwd.to_path_buf(),
            agent_dir,
            custom_dir,
            archived: false,
        }
    }

    /// The same locations in the archive `pi-session archive` moves sessions to, beside
    /// Pi's folders so that a move is a rename and Pi never lists them:
    /// `<agent dir>/sessions-archive/--<cwd>--/` for the per-project folders, and for one
    /// custom folder `D`, the sibling `D-archive/` (`D/sessions-archive/` when `D` has no
    /// name, as `/`). Already the archive: itself.
    pub fn archive(&self) -> Locations {
        if self.archived {
            return self.clone();
        }
        Locations {
            custom_dir: self.custom_dir.as_deref().map(archive_of_custom_dir),
            archived: true,
            ..self.clone()
        }
    }

    /// The folder the per-project folders are in: `<agent dir>/sessions`, or
    /// `<agent dir>/sessions-archive` for the archive.
    fn projects_root(&self) -> PathBuf {
        self.agent_dir
            .join(if self.archived { "sessions-archive" } else { "sessions" })
    }

    /// The folder holding every session: the custom directory, else `<agent dir>/sessions`.
    pub fn root(&self) -> PathBuf {
        self.custom_dir.clone().unwrap_or_else(|| self.projects_root())
    }

    /// The session folder of the working directory.
    pub fn here(&self) -> SessionDir {
        match &self.custom_dir {
            Some(d) => SessionDir {
                path: d.clone(),
                filter_cwd: Some(self.cwd.clone()),
            },
            None => SessionDir {
                path: self.projects_root().join(encode_cwd(&self.cwd)),
                filter_cwd: None,
            },
        }
    }

    /// The folders that hold sessions of any project: the custom directory, or each
    /// project folder under `<agent dir>/sessions` (in directory order).
    pub fn folders(&self) -> Vec<PathBuf> {
        if let Some(d) = &self.custom_dir {
            return vec![d.clone()];
        }
        let Ok(read) = fs::read_dir(self.projects_root()) else {
            return Vec::new();
        };
        read.filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.is_dir())
            .collect()
    }

    /// Sessions of the working directory with their headers, newest modification first.
    pub fn sessions_here(&self) -> Vec<(PathBuf, HeaderInfo)> {
        sessions_in(&self.here())
    }

    /// The nearest directory above the working directory that has sessions of its own, with
    /// how many. Pi looks only at the exact working directory, so from a subdirectory of a
    /// project it finds none: this lets a caller say where they are.
    pub fn nearest_parent_with_sessions(&self) -> Option<(PathBuf, usize)> {
        let above = self.cwd.ancestors().skip(1);
        let found = |dir: &Path, n: usize| (n > 0).then(|| (dir.to_path_buf(), n));
        match &self.custom_dir {
            // One folder for every project: its headers are read once.
            Some(d) => {
                let all = sessions_in(&SessionDir {
                    path: d.clone(),
                    filter_cwd: None,
                });
                above
                    .into_iter()
                    .find_map(|dir| found(dir, all.iter().filter(|(_, h)| h.is_for(dir)).count()))
            }
            None => above.into_iter().find_map(|dir| {
                let here = Locations {
                    cwd: dir.to_path_buf(),
                    ..self.clone()
                };
                found(dir, here.sessions_here().len())
            }),
        }
    }

    /// Every regular `*.jsonl` file of every project, sorted by path.
    pub fn all_files(&self) -> Vec<PathBuf> {
        let mut files: Vec<PathBuf> = self
            .folders()
            .iter()
            .filter_map(|dir| fs::read_dir(dir).ok())
            .flat_map(|r| r.filter_map(Result::ok).map(|e| e.path()))
            .filter(|p| p.is_file() && p.extension().is_some_and(|x| x == "jsonl"))
            .collect();
        files.sort();
        files
    }

    /// Resolves `-s/--session`: a path to a regular file, or a session id or unique id
    /// prefix: looked up in the working directory's sessions first, then in every project's
    /// (the sessions `ls --all` lists). Without it, the most recent session here.
    pub fn find_session(&self, arg: Option<&str>) -> Result<PathBuf, SessionError> {
        let cwd = &self.cwd;
        let dir = self.here();
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
        let everywhere: Vec<(PathBuf, String)> = self
            .all_files()
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
}

/// The archive of the custom session folder `dir` (see [`Locations::archive`]).
fn archive_of_custom_dir(dir: &Path) -> PathBuf {
    match (dir.parent(), dir.file_name()) {
        (Some(parent), Some(name)) => {
            let mut name = name.to_os_string();
            name.push("-archive");
            parent.join(name)
        }
        _ => dir.join("sessions-archive"),
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

impl HeaderInfo {
    /// Whether the session belongs to `cwd` in a folder all projects share: its header's
    /// `cwd` is that directory.
    pub fn is_for(&self, cwd: &Path) -> bool {
        self.cwd
            .as_deref()
            .is_some_and(|c| !c.is_empty() && Path::new(c) == cwd)
    }
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
            _ if crate::session::skim::truthy_non_object(body) => return None,
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
            if let Some(cwd) = &dir.filter_cwd
                && !h.is_for(cwd)
            {
                return None;
            }
            Some((p, h))
        })
        .collect()
}

/// [`Locations::find_session`] for `cwd`, with the locations of this process.
pub fn find_session(arg: Option<&str>, cwd: &Path) -> Result<PathBuf, SessionError> {
    Locations::discover(cwd).find_session(arg)
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

    fn write(path: &Path, text: &str) {
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }

    #[test]
    fn session_dir_setting_precedence() {
        let tmp = tempfile::tempdir().unwrap();
        let agent = tmp.path().join("agent");
        let cwd = tmp.path().join("proj");
        let home = tmp.path().join("home");
        let dir = |env: Option<&str>| custom_session_dir(env, &agent, &cwd, Some(&home));
        // Nothing configured: per-project folders.
        assert_eq!(dir(None), None);
        assert_eq!(dir(Some("")), None);
        // The global setting, `~` expanded; a relative path stays relative to the cwd.
        write(&agent.join("settings.json"), r#"{"sessionDir":"~/s"}"#);
        assert_eq!(dir(None), Some(home.join("s")));
        write(&agent.join("settings.json"), "\u{feff}{\"sessionDir\":\"rel/s\"}");
        assert_eq!(dir(None), Some(PathBuf::from("rel/s")));
        // The project's setting wins over the global one…
        write(&cwd.join(".pi/settings.json"), r#"{"sessionDir":"/p"}"#);
        assert_eq!(dir(None), Some(PathBuf::from("/p")));
        // …and the environment over both.
        assert_eq!(dir(Some("~")), Some(home.clone()));
        assert_eq!(dir(Some("/e")), Some(PathBuf::from("/e")));
        // An empty or null project value overrides the global one and sets none; a project
        // file that does not parse is left out.
        write(&cwd.join(".pi/settings.json"), r#"{"sessionDir":""}"#);
        assert_eq!(dir(None), None);
        write(&cwd.join(".pi/settings.json"), r#"{"sessionDir":null}"#);
        assert_eq!(dir(None), None);
        write(&cwd.join(".pi/settings.json"), r#"{"other":1}"#);
        assert_eq!(dir(None), Some(PathBuf::from("rel/s")));
        write(&cwd.join(".pi/settings.json"), "{bad");
        assert_eq!(dir(None), Some(PathBuf::from("rel/s")));
    }

    #[test]
    fn the_nearest_parent_with_sessions() {
        let tmp = tempfile::tempdir().unwrap();
        let proj = tmp.path().join("w/proj");
        let loc = |cwd: &Path| Locations {
            cwd: cwd.to_path_buf(),
            agent_dir: tmp.path().join("agent"),
            custom_dir: None,
            archived: false,
        };
        let deep = proj.join("src/deep");
        assert_eq!(loc(&deep).nearest_parent_with_sessions(), None);
        let header = r#"{"type":"session","version":3,"id":"s1","cwd":"x"}"#;
        write(&loc(&proj).here().path.join("a.jsonl"), header);
        write(&loc(&proj).here().path.join("b.jsonl"), header);
        assert_eq!(loc(&deep).nearest_parent_with_sessions(), Some((proj.clone(), 2)));
        // The directory itself does not count: it is not above.
        assert_eq!(loc(&proj).nearest_parent_with_sessions(), None);
        // One folder for all projects: sessions count for the directory their header names.
        let shared = tmp.path().join("shared");
        let with_cwd = |cwd: &Path| format!(r#"{{"type":"session","version":3,"id":"s","cwd":{:?}}}"#, cwd);
        write(&shared.join("p.jsonl"), &with_cwd(&proj));
        write(&shared.join("w.jsonl"), &with_cwd(&tmp.path().join("w")));
        let custom = |cwd: &Path| Locations {
            custom_dir: Some(shared.clone()),
            ..loc(cwd)
        };
        assert_eq!(custom(&deep).nearest_parent_with_sessions(), Some((proj.clone(), 1)));
        assert_eq!(
            custom(&proj).nearest_parent_with_sessions(),
            Some((tmp.path().join("w"), 1))
        );
    }

    #[test]
    fn locations_with_and_without_a_custom_dir() {
        let loc = Locations {
            cwd: PathBuf::from("/w/p"),
            agent_dir: PathBuf::from("/a"),
            custom_dir: None,
            archived: false,
        };
        assert_eq!(loc.here().path, Path::new("/a/sessions/--w-p--"));
        assert_eq!(loc.here().filter_cwd, None);
        assert_eq!(loc.root(), Path::new("/a/sessions"));
        let loc = Locations {
            custom_dir: Some(PathBuf::from("/c")),
            ..loc
        };
        assert_eq!(loc.here().path, Path::new("/c"));
        assert_eq!(loc.here().filter_cwd.as_deref(), Some(Path::new("/w/p")));
        assert_eq!(loc.folders(), vec![PathBuf::from("/c")]);
        assert_eq!(loc.archive().root(), Path::new("/c-archive"));
        assert_eq!(loc.archive().here().path, Path::new("/c-archive"));
        let root = Locations {
            custom_dir: Some(PathBuf::from("/")),
            ..loc.clone()
        };
        assert_eq!(root.archive().root(), Path::new("/sessions-archive"));
    }

    #[test]
    fn the_archive_mirrors_the_project_folders() {
        let loc = Locations {
            cwd: PathBuf::from("/w/p"),
            agent_dir: PathBuf::from("/a"),
            custom_dir: None,
            archived: false,
        };
        let a = loc.archive();
        assert!(a.archived);
        assert_eq!(a.root(), Path::new("/a/sessions-archive"));
        assert_eq!(a.here().path, Path::new("/a/sessions-archive/--w-p--"));
        assert_eq!(a.archive().root(), a.root());
    }
}
