//! Sessions of other agents brought into Pi, tree and all: a reader per agent turns a source
//! file into a [`pi::PiSession`] (its tree kept: a rewind is a branch in Pi too) and a
//! [`Report`] of what went where; [`verify`] reads the bytes about to be written back with
//! pi-session's own Pi-exact loader and refuses them unless Pi will see what was meant
//! (entries, parents, leaf, messages, tool pairs); [`write`] puts them in Pi's session
//! folder as every new file is written (temp, fsync, link: never over a file).
//!
//! - [`claude`]: Claude Code (`~/.claude/projects/<cwd>/<id>.jsonl`);
//! - [`codex`]: Codex CLI (`~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl`).

pub mod claude;
pub mod codex;
pub mod pi;

use crate::session::io::locate::Locations;
use crate::session::{Session, SessionError};
use pi::{Body, PiSession};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The agents `import` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Agent {
    Claude,
    Codex,
}

impl Agent {
    /// The name recorded in `importedFrom.agent`.
    pub fn name(self) -> &'static str {
        match self {
            Agent::Claude => "claude",
            Agent::Codex => "codex",
        }
    }
}

/// How a source is read.
#[derive(Debug, Clone, Copy, Default)]
pub struct Options {
    /// Map the source's obvious tools (Read/Write/Edit/Bash, `shell`, `apply_patch`) to Pi's
    /// built-ins, so that `export`, `files` and the compaction's file lists understand them.
    pub map_tools: bool,
}

/// What a conversion did, for the plan (`--dry-run`) and the summary.
#[derive(Debug, Clone, Default, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Report {
    /// Entries written, by kind (`user`, `assistant`, `toolResult`, `model_change`,
    /// `compaction`, `custom`…).
    pub entries: BTreeMap<String, usize>,
    /// What went to `custom` entries, by the source's record type.
    pub custom: BTreeMap<String, usize>,
    /// Source records of a type no reader knows, by type: counted, not fatal.
    pub unknown: BTreeMap<String, usize>,
    /// Lines that are not JSON (1-based), skipped as `repair` would.
    pub malformed_lines: Vec<u32>,
    /// Anything else a user should know (subagent sessions left out, a tree cut…).
    pub notes: Vec<String>,
}

/// One source converted: the main session, and the sessions found inside it (Claude Code's
/// subagent sidechains), each with `parentSession` set once the main one's path is known.
#[derive(Debug, Clone)]
pub struct Converted {
    pub session: PiSession,
    pub report: Report,
    pub children: Vec<Converted>,
}

impl Converted {
    /// Counts the entries by kind into the report (the readers leave that to this).
    pub fn count(&mut self) {
        self.report.entries.clear();
        for e in &self.session.entries {
            *self.report.entries.entry(e.body.kind()).or_default() += 1;
        }
        for c in &mut self.children {
            c.count();
        }
    }
}

/// Reads a source file of `agent`.
pub fn convert(agent: Agent, bytes: &[u8], path: &Path, options: &Options) -> Result<Converted, SessionError> {
    let mut c = match agent {
        Agent::Claude => claude::convert(bytes, path, options)?,
        Agent::Codex => codex::convert(bytes, path, options)?,
    };
    c.count();
    Ok(c)
}

/// Whether `bytes` are what `session` means to Pi: loaded by pi-session's reader (which reads
/// as Pi 1.6.0 does), every line an entry, each entry's id and parent as planned, the leaf
/// the last entry, the same messages, every tool result after the call it answers on its
/// branch. `Err` says what differs.
pub fn verify(bytes: &[u8], session: &PiSession) -> Result<(), String> {
    let read = Session::from_bytes(PathBuf::from(session.file_name()), bytes.to_vec()).map_err(|e| e.to_string())?;
    let r = &read.report;
    if !r.malformed_lines.is_empty() || r.torn_last_line || !r.extra_headers.is_empty() || r.migrated_from.is_some() {
        return Err(format!("the file does not read cleanly: {r:?}"));
    }
    if read.entries.len() != session.entries.len() {
        return Err(format!(
            "{} entries read back, {} meant",
            read.entries.len(),
            session.entries.len()
        ));
    }
    for (i, e) in session.entries.iter().enumerate() {
        if read.id_str(i) != Some(e.id.as_str()) || read.parent_id_str(i) != e.parent_id.as_deref() {
            return Err(format!(
                "entry {} ({}) reads back with another id or parent",
                i + 1,
                e.id
            ));
        }
    }
    let leaf = read.leaf().and_then(|l| read.id_str(l));
    if leaf != session.entries.last().map(|e| e.id.as_str()) {
        return Err(format!("the leaf reads back as {leaf:?}"));
    }
    let messages = session
        .entries
        .iter()
        .filter(|e| matches!(e.body, Body::Message(_)))
        .count();
    let read_messages = read
        .entries
        .iter()
        .filter(|e| e.kind == crate::session::entry::EntryKind::Message)
        .count();
    if messages != read_messages {
        return Err(format!("{read_messages} messages read back, {messages} meant"));
    }
    // Each tool result answers a call made before it on its own branch.
    for (i, e) in session.entries.iter().enumerate() {
        let Body::Message(m) = &e.body else { continue };
        let Some(call) = m.get("toolCallId").and_then(|c| c.as_str()) else {
            continue;
        };
        let answered = read.branch(i).path.iter().rev().skip(1).any(|&j| {
            matches!(&session.entries[j].body, Body::Message(a)
                if a["content"].as_array().is_some_and(|c| c.iter().any(|b| b["type"] == "toolCall" && b["id"] == call)))
        });
        if !answered {
            return Err(format!("the tool result {} answers no call on its branch", e.id));
        }
    }
    Ok(())
}

/// Where the session goes: `output`, else Pi's session folder of its `cwd` under `loc`'s rules.
pub fn destination(session: &PiSession, loc: &Locations, output: Option<&Path>) -> PathBuf {
    match output {
        Some(p) => p.to_path_buf(),
        None => Locations {
            cwd: PathBuf::from(&session.cwd),
            ..loc.clone()
        }
        .here()
        .path
        .join(session.file_name()),
    }
}

/// Checks `bytes` against `session` ([`verify`]) and writes them at `path` (never over a
/// file); refused, nothing is written.
pub fn write(bytes: &[u8], session: &PiSession, path: &Path) -> Result<(), SessionError> {
    verify(bytes, session).map_err(|why| {
        SessionError::Refused(format!(
            "the imported session would not read back as meant ({why}); nothing written"
        ))
    })?;
    if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|e| SessionError::write(dir, e))?;
    }
    crate::session::io::write::create_new_file(path, bytes)?;
    // The file's time is the conversation's last (best effort): an import is not activity, so
    // it neither becomes the most recent session of its folder (`pi -c`) nor looks like a
    // file Pi wrote a moment ago.
    let last = session
        .entries
        .last()
        .map_or(session.timestamp.as_str(), |e| e.timestamp.as_str());
    if let Some(ms) = pi::ms_of(last).and_then(|ms| u64::try_from(ms).ok()) {
        let when = std::time::UNIX_EPOCH + std::time::Duration::from_millis(ms);
        let _ = std::fs::File::options()
            .append(true)
            .open(path)
            .and_then(|f| f.set_modified(when));
    }
    Ok(())
}

/// The sources already imported into `loc`'s session folders: `(agent, source session id)`
/// of every Pi session whose header has `importedFrom`.
pub fn already_imported(loc: &Locations) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for path in loc.all_files() {
        let Some(first) = first_line(&path) else { continue };
        let Ok(header) = serde_json::from_slice::<serde_json::Value>(&first) else {
            continue;
        };
        let from = &header["importedFrom"];
        if let (Some(a), Some(s)) = (from["agent"].as_str(), from["sessionId"].as_str()) {
            out.push((a.to_owned(), s.to_owned()));
        }
    }
    out
}

fn first_line(path: &Path) -> Option<Vec<u8>> {
    use std::io::BufRead;
    let file = crate::session::io::data::open_regular(path).ok()?;
    let mut line = Vec::new();
    std::io::BufReader::new(file).read_until(b'\n', &mut line).ok()?;
    Some(line)
}

/// Where `agent` keeps its sessions: `$CLAUDE_CONFIG_DIR/projects` or `~/.claude/projects`;
/// `$CODEX_HOME/sessions` or `~/.codex/sessions`.
pub fn source_root(agent: Agent) -> Option<PathBuf> {
    let home = || std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from);
    let dir = |var: &str, default: &str| match std::env::var_os(var).filter(|v| !v.is_empty()) {
        Some(d) => Some(PathBuf::from(d)),
        None => home().map(|h| h.join(default)),
    };
    match agent {
        Agent::Claude => dir("CLAUDE_CONFIG_DIR", ".claude").map(|d| d.join("projects")),
        Agent::Codex => dir("CODEX_HOME", ".codex").map(|d| d.join("sessions")),
    }
}

/// Every session file of `agent` for the project directory `cwd`.
pub fn sources_for(agent: Agent, cwd: &Path) -> Vec<PathBuf> {
    let Some(root) = source_root(agent) else {
        return Vec::new();
    };
    match agent {
        Agent::Claude => claude::sources_for(&root, cwd),
        Agent::Codex => codex::sources_for(&root, cwd),
    }
}

/// The source session `arg` names: a file, or a session id of `agent` for `cwd`.
pub fn find_source(agent: Agent, arg: &str, cwd: &Path) -> Result<PathBuf, SessionError> {
    let p = Path::new(arg);
    if p.is_file() {
        return Ok(p.to_path_buf());
    }
    let root = source_root(agent).ok_or_else(|| SessionError::Refused("HOME is not set".into()))?;
    let found = match agent {
        Agent::Claude => claude::find_by_id(&root, arg),
        Agent::Codex => codex::find_by_id(&root, arg),
    };
    found.ok_or_else(|| {
        SessionError::Refused(format!(
            "no {} session {arg} (neither a file nor a session id under {}; looked for project {})",
            agent.name(),
            root.display(),
            cwd.display()
        ))
    })
}
