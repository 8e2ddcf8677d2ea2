//! Claude Code's sessions: `~/.claude/projects/<cwd>/<session-id>.jsonl` (the root is
//! `$CLAUDE_CONFIG_DIR/projects` when that is set; `<cwd>` is the project directory with
//! every character but `[A-Za-z0-9]` written `-`, one per UTF-16 unit as JavaScript's
//! `replace` counts them).
//!
//! # The format
//!
//! One JSON object a line. Most lines carry `type`, `uuid`, `parentUuid` (`null` at a root),
//! `isSidechain`, `sessionId`, `cwd`, `timestamp` (ISO), `version`, `gitBranch`; `user` and
//! `assistant` lines a `message` in Anthropic's Messages form (`role`, `content`: a string or
//! blocks `text`, `thinking {thinking, signature}`, `redacted_thinking {data}`,
//! `tool_use {id, name, input}`, `tool_result {tool_use_id, content, is_error}`,
//! `image {source: {type: "base64", media_type, data}}`; on replies `model`, `id`, `usage`,
//! `stop_reason`). One reply is often written over several lines sharing `message.id`, one
//! content block each, each repeating the usage. `isMeta` marks user lines the user never
//! typed (command caveats…). A compaction is a `system` line with `subtype:
//! "compact_boundary"` (`compactMetadata {trigger, preTokens}`, `parentUuid: null`,
//! `logicalParentUuid` naming the line before it), then a `user` line with
//! `isCompactSummary: true` holding the summary. `summary`, `file-history-snapshot`,
//! `queue-operation`… lines carry no `uuid`. `isSidechain: true` lines are a subagent's
//! conversation (older versions wrote them into the session's file; newer ones write
//! `agent-*.jsonl` files, which [`sources_for`] leaves out).
//!
//! # The mapping
//!
//! - The `uuid`/`parentUuid` tree is kept: each line a fresh 8-hex id, its parent the
//!   entry of its `parentUuid`, or of the nearest ancestor that was kept when that line was
//!   merged or dropped; a parent not in the file (or not before the line) makes a root. The
//!   leaf is the entry of the file's last main-line line, written last.
//! - `user` lines: each `tool_result` block a `toolResult` message (the tool's name from its
//!   call), then the text and images a `user` message; a result whose call is not on its
//!   branch goes to a `custom` entry (Pi would refuse it).
//! - `assistant` lines: one Pi message per `message.id` along a chain (a later part's
//!   blocks join the first part's message, its usage counted once: the largest count of each
//!   kind over the parts); `thinking` with its signature, `redacted_thinking` as Pi keeps it,
//!   `tool_use` a `toolCall`; a `model_change` before the first reply and where the model
//!   changes along a branch (not for Claude Code's `<synthetic>` replies); the cost from
//!   the model table, a dated id (`claude-sonnet-4-5-20250929`) priced as its undated one
//!   when only that is known; `stop_reason` `end_turn`/`stop_sequence` → `stop`, `tool_use` →
//!   `toolUse`, `max_tokens` → `length`; `isApiErrorMessage` → `error`.
//! - `compact_boundary` and its summary: one `compaction` entry (retain-none: its
//!   `firstKeptEntryId` its own id), under the boundary's `logicalParentUuid` so that the
//!   history before it stays on its branch.
//! - Sidechains: each chain (by its root) a child session, `importedFrom.sessionId`
//!   `<sessionId>:<agentId or the chain's first uuid>`; a file of sidechain lines only (a
//!   subagent's own transcript) is read as one session.
//! - `toolUseResult` (Claude Code's structured copy of a tool's output) is not kept: the
//!   `tool_result` block is what the model saw.
//! - Anything else (`isMeta` lines, `system` lines, lines without `uuid`, unknown types): a
//!   `custom` entry `import.claude.<type>` holding the line. A line without `uuid` goes where
//!   it was: before the next entry written (or before the leaf, at the end of the file).

use super::pi::{self, Body, ImportedFrom, PiEntry, PiSession};
use super::{Converted, Options, Report};
use crate::session::SessionError;
use crate::session::io::append::new_entry_id;
use serde_json::{Value, json};
use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

/// Converts one Claude Code session file.
pub fn convert(bytes: &[u8], path: &Path, options: &Options) -> Result<Converted, SessionError> {
    let mut report = Report::default();
    let lines = parse(bytes, &mut report);
    let src = index(&lines);
    let abs = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let file_session_id = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let session_id = lines
        .iter()
        .find_map(|l| str_of(&l.v, "sessionId"))
        .map(str::to_owned)
        .unwrap_or(file_session_id);
    let any_cwd = lines.iter().find_map(|l| str_of(&l.v, "cwd")).unwrap_or("").to_owned();
    let from = |session_id: String| ImportedFrom {
        agent: "claude",
        path: abs.to_string_lossy().into_owned(),
        session_id,
    };

    let sidechain = |l: &Line| l.v.get("isSidechain").and_then(Value::as_bool) == Some(true);
    let main_has_lines = lines.iter().any(|l| !sidechain(l) && str_of(&l.v, "uuid").is_some());
    // A file of nothing but sidechain lines is a subagent's own transcript: read it whole.
    let whole = !main_has_lines && lines.iter().any(sidechain);
    let main: Vec<usize> = (0..lines.len()).filter(|&i| whole || !sidechain(&lines[i])).collect();
    let mut chains: Vec<(String, Vec<usize>)> = Vec::new();
    if !whole {
        let mut by_root: HashMap<String, usize> = HashMap::new();
        for i in (0..lines.len()).filter(|&i| sidechain(&lines[i])) {
            let root = chain_root(&lines, &src, i);
            let k = *by_root.entry(root.clone()).or_insert_with(|| {
                chains.push((root, Vec::new()));
                chains.len() - 1
            });
            chains[k].1.push(i);
        }
    }

    let built = build(&lines, &src, &main, options);
    report.custom = built.report.custom;
    report.unknown = built.report.unknown;
    report.notes.extend(built.report.notes);
    if whole && !lines.is_empty() {
        report
            .notes
            .push("every line is a sidechain: read as a subagent's own session".into());
    }
    // A subagent's transcript is named as its chain is when it comes inside the session.
    let main_id = match lines.iter().find_map(|l| str_of(&l.v, "agentId")) {
        Some(agent) if whole => format!("{session_id}:{agent}"),
        _ => session_id.clone(),
    };
    let session = session_of(&lines, &main, built.entries, &any_cwd, from(main_id));
    let mut children = Vec::new();
    for (root, members) in &chains {
        let b = build(&lines, &src, members, options);
        let agent = members
            .iter()
            .find_map(|&i| str_of(&lines[i].v, "agentId"))
            .unwrap_or(root)
            .to_owned();
        let s = session_of(
            &lines,
            members,
            b.entries,
            &any_cwd,
            from(format!("{session_id}:{agent}")),
        );
        children.push(Converted {
            session: s,
            report: b.report,
            children: Vec::new(),
        });
    }
    if !children.is_empty() {
        report.notes.push(format!(
            "{} subagent sidechain(s) imported as child session(s)",
            children.len()
        ));
    }
    Ok(Converted {
        session,
        report,
        children,
    })
}

/// Every Claude Code session file of the project directory `cwd` under `root`: the
/// `*.jsonl` files of its project folder (a folder whose name Claude Code cut, for a long
/// path, is matched by its first 200 characters) whose lines name `cwd` as theirs (or no
/// `cwd` at all). Subagent transcripts (`agent-*.jsonl`) are left out.
pub fn sources_for(root: &Path, cwd: &Path) -> Vec<PathBuf> {
    let name = project_folder(cwd);
    let mut dirs = vec![root.join(&name)];
    if name.len() > 200
        && let Ok(rd) = std::fs::read_dir(root)
    {
        for d in rd.flatten() {
            let n = d.file_name().to_string_lossy().into_owned();
            if n != name && n.starts_with(&name[..200]) {
                dirs.push(d.path());
            }
        }
    }
    let want = cwd.to_string_lossy();
    let mut out = Vec::new();
    for dir in dirs {
        let Ok(rd) = std::fs::read_dir(&dir) else { continue };
        for f in rd.flatten() {
            let p = f.path();
            let n = f.file_name().to_string_lossy().into_owned();
            if !n.ends_with(".jsonl") || n.starts_with("agent-") || !p.is_file() {
                continue;
            }
            match file_cwd(&p) {
                Some(c) if c != want => continue,
                _ => out.push(p),
            }
        }
    }
    out.sort();
    out
}

/// The Claude Code session file whose session id is `id`, under `root`: `<id>.jsonl` in any
/// project folder.
pub fn find_by_id(root: &Path, id: &str) -> Option<PathBuf> {
    if id.is_empty() || id.contains(['/', '\\']) || id.starts_with('.') {
        return None;
    }
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(root)
        .ok()?
        .flatten()
        .map(|d| d.path())
        .filter(|p| p.is_dir())
        .collect();
    dirs.sort();
    dirs.into_iter()
        .map(|d| d.join(format!("{id}.jsonl")))
        .find(|p| p.is_file())
}

/// Claude Code's folder name for a project directory: every character but `[A-Za-z0-9]`
/// as `-`, one per UTF-16 unit (JavaScript's `replace(/[^a-zA-Z0-9]/g, "-")`).
pub fn project_folder(cwd: &Path) -> String {
    let mut out = String::new();
    for c in cwd.to_string_lossy().chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else {
            out.extend(std::iter::repeat_n('-', c.len_utf16()));
        }
    }
    out
}

/// The first `cwd` among a file's first lines.
fn file_cwd(path: &Path) -> Option<String> {
    use std::io::BufRead;
    let file = crate::session::io::data::open_regular(path).ok()?;
    let mut r = std::io::BufReader::new(file);
    let mut line = Vec::new();
    for _ in 0..200 {
        line.clear();
        if r.read_until(b'\n', &mut line).ok()? == 0 {
            return None;
        }
        if let Ok(v) = serde_json::from_slice::<Value>(&line)
            && let Some(c) = str_of(&v, "cwd")
        {
            return Some(c.to_owned());
        }
    }
    None
}

/// A JSON object line of the source.
struct Line {
    v: Value,
}

fn parse(bytes: &[u8], report: &mut Report) -> Vec<Line> {
    let mut out = Vec::new();
    for (i, raw) in bytes.split(|&b| b == b'\n').enumerate() {
        let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
        if raw.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        let no = u32::try_from(i + 1).unwrap_or(u32::MAX);
        match serde_json::from_slice::<Value>(raw) {
            Ok(v) if v.is_object() => out.push(Line { v }),
            _ => report.malformed_lines.push(no),
        }
    }
    out
}

fn str_of<'a>(v: &'a Value, key: &str) -> Option<&'a str> {
    v.get(key).and_then(Value::as_str)
}

/// Each `uuid` (first occurrence): its line's position and the parent it names
/// (`parentUuid`, or a compaction boundary's `logicalParentUuid`).
type SrcIndex = HashMap<String, (usize, Option<String>)>;

fn source_parent(v: &Value) -> Option<String> {
    str_of(v, "parentUuid")
        .or_else(|| {
            (str_of(v, "subtype") == Some("compact_boundary"))
                .then(|| str_of(v, "logicalParentUuid"))
                .flatten()
        })
        .map(str::to_owned)
}

fn index(lines: &[Line]) -> SrcIndex {
    let mut src = SrcIndex::new();
    for (i, l) in lines.iter().enumerate() {
        if let Some(u) = str_of(&l.v, "uuid") {
            src.entry(u.to_owned()).or_insert((i, source_parent(&l.v)));
        }
    }
    src
}

/// The uuid of the first line of the sidechain line `i`'s chain.
fn chain_root(lines: &[Line], src: &SrcIndex, i: usize) -> String {
    let mut pos = i;
    let mut root = str_of(&lines[i].v, "uuid").unwrap_or("").to_owned();
    while let Some(p) = src.get(&root).and_then(|(_, p)| p.clone()) {
        match src.get(&p) {
            Some(&(j, _)) if j < pos && lines[j].v.get("isSidechain").and_then(Value::as_bool) == Some(true) => {
                pos = j;
                root = p;
            }
            _ => break,
        }
    }
    root
}

fn session_of(
    lines: &[Line],
    members: &[usize],
    entries: Vec<PiEntry>,
    any_cwd: &str,
    from: ImportedFrom,
) -> PiSession {
    let ms = members
        .iter()
        .find_map(|&i| str_of(&lines[i].v, "timestamp").and_then(pi::ms_of))
        .unwrap_or_else(|| jiff::Timestamp::now().as_millisecond());
    let cwd = members
        .iter()
        .find_map(|&i| str_of(&lines[i].v, "cwd"))
        .unwrap_or(any_cwd);
    PiSession {
        id: uuid::Uuid::now_v7().to_string(),
        timestamp: pi::iso_of(ms),
        cwd: cwd.to_owned(),
        parent_session: None,
        imported_from: from,
        entries,
    }
}

/// What became of a source line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Slot {
    /// Written as the entries `first..=last` (a chain: `first`'s parent is the line's
    /// parent, `last` the parent of the line's children).
    Kept { first: usize, last: usize },
    /// Folded into the entry given (a later part of a reply, a compaction's summary): its
    /// children go to its own nearest kept ancestor.
    Merged(usize),
}

/// A reply being gathered over its lines.
struct Reply {
    entry: usize,
    first_uuid: String,
    model: String,
    content: Vec<Value>,
    /// input, output, cache read, cache creation.
    usage: [u64; 4],
    stop: Option<String>,
    error: bool,
    ms: i64,
}

struct Built {
    entries: Vec<PiEntry>,
    report: Report,
    /// Each source `uuid`'s fate, by entry position in `entries` before the leaf was moved
    /// last; [`Built::ids`] gives the ids.
    #[cfg_attr(not(test), allow(dead_code))]
    ids: HashMap<String, (String, String)>,
}

struct Builder<'a> {
    options: &'a Options,
    lines: &'a [Line],
    src: &'a SrcIndex,
    entries: Vec<PiEntry>,
    parents: Vec<Option<usize>>,
    model_at: Vec<Option<String>>,
    used: HashSet<String>,
    slots: HashMap<String, Slot>,
    /// Lines without a `uuid` waiting for the next entry.
    pending: Vec<(i64, String, Value)>,
    replies: Vec<Reply>,
    open_replies: HashMap<String, usize>,
    call_names: HashMap<String, String>,
    call_at: HashMap<String, usize>,
    /// Compactions still waiting for their summary line.
    unsummarized: HashSet<usize>,
    report: Report,
    last_ms: i64,
    unknown_parents: usize,
    duplicates: usize,
    orphan_results: usize,
    /// Lines with a `toolUseResult` (Claude Code's structured copy of a tool's output).
    tool_use_results: usize,
    dropped_blocks: BTreeMap<String, usize>,
}

const KNOWN_TYPES: [&str; 5] = ["user", "assistant", "system", "summary", "file-history-snapshot"];

fn build(lines: &[Line], src: &SrcIndex, members: &[usize], options: &Options) -> Built {
    let mut b = Builder {
        options,
        lines,
        src,
        entries: Vec::new(),
        parents: Vec::new(),
        model_at: Vec::new(),
        used: HashSet::new(),
        slots: HashMap::new(),
        pending: Vec::new(),
        replies: Vec::new(),
        open_replies: HashMap::new(),
        call_names: HashMap::new(),
        call_at: HashMap::new(),
        unsummarized: HashSet::new(),
        report: Report::default(),
        last_ms: members
            .iter()
            .find_map(|&i| str_of(&lines[i].v, "timestamp").and_then(pi::ms_of))
            .unwrap_or(0),
        unknown_parents: 0,
        duplicates: 0,
        orphan_results: 0,
        tool_use_results: 0,
        dropped_blocks: BTreeMap::new(),
    };
    let mut last_uuid: Option<(usize, String)> = None;
    for &i in members {
        if let Some(u) = b.line(i) {
            last_uuid = Some((i, u));
        }
    }
    b.finish(last_uuid)
}

impl Builder<'_> {
    /// The entry a line naming `parent` hangs from: the last entry of `parent`'s line, or of
    /// its nearest kept ancestor; `None` at a root; for a parent not before `pos` (unknown,
    /// malformed, later), the entry written last (`None` when there is none yet).
    fn resolve(&mut self, parent: Option<&str>, pos: usize) -> Option<usize> {
        let mut cur = parent?.to_owned();
        let mut pos = pos;
        loop {
            if let Some(Slot::Kept { last, .. }) = self.slots.get(&cur) {
                return Some(*last);
            }
            match self.src.get(&cur) {
                Some((p, up)) if *p < pos => {
                    pos = *p;
                    cur = up.clone()?;
                }
                _ => {
                    // A line that did not parse, or of another file (a resumed session): the
                    // entry written last is the best guess of where this one went on.
                    self.unknown_parents += 1;
                    return self.entries.len().checked_sub(1);
                }
            }
        }
    }

    fn push_raw(&mut self, parent: Option<usize>, ms: i64, body: Body) -> usize {
        let id = new_entry_id(|id| self.used.contains(id));
        self.used.insert(id.clone());
        let model = match &body {
            Body::ModelChange { model_id, .. } => Some(model_id.clone()),
            _ => parent.and_then(|p| self.model_at[p].clone()),
        };
        self.entries.push(PiEntry {
            id,
            parent_id: parent.map(|p| self.entries[p].id.clone()),
            timestamp: pi::iso_of(ms),
            body,
        });
        self.parents.push(parent);
        self.model_at.push(model);
        self.entries.len() - 1
    }

    /// Writes an entry under `parent`, after the lines without `uuid` read since the last.
    fn push(&mut self, parent: Option<usize>, ms: i64, body: Body) -> usize {
        let mut parent = parent;
        for (pms, ty, data) in std::mem::take(&mut self.pending) {
            parent = Some(self.push_raw(parent, pms, custom(&ty, data)));
        }
        self.push_raw(parent, ms, body)
    }

    fn count_custom(&mut self, ty: &str) {
        *self.report.custom.entry(ty.to_owned()).or_default() += 1;
        if !KNOWN_TYPES.contains(&ty) {
            *self.report.unknown.entry(ty.to_owned()).or_default() += 1;
        }
    }

    fn drop_block(&mut self, kind: &str) {
        *self.dropped_blocks.entry(kind.to_owned()).or_default() += 1;
    }

    /// Reads line `pos`; returns its uuid when it has one (and is not a repeat).
    fn line(&mut self, pos: usize) -> Option<String> {
        let v = &self.lines[pos].v;
        let ty = str_of(v, "type").unwrap_or("").to_owned();
        let ms = str_of(v, "timestamp").and_then(pi::ms_of).unwrap_or(self.last_ms);
        self.last_ms = ms;
        let Some(uuid) = str_of(v, "uuid").map(str::to_owned) else {
            self.count_custom(&ty);
            self.pending.push((ms, ty, v.clone()));
            return None;
        };
        if self.slots.contains_key(&uuid) || self.src.get(&uuid).is_some_and(|(p, _)| *p != pos) {
            self.duplicates += 1;
            return None;
        }
        let parent = self.resolve(source_parent(v).as_deref(), pos);
        if v.get("toolUseResult").is_some() {
            self.tool_use_results += 1;
        }
        let flag = |k: &str| v.get(k).and_then(Value::as_bool) == Some(true);
        let slot = match ty.as_str() {
            "user" if flag("isCompactSummary") => self.compact_summary(v, parent, ms),
            "user" if !flag("isMeta") => self.user(v, parent, ms),
            "assistant" => self.assistant(v, &uuid, pos, parent, ms),
            "system" if str_of(v, "subtype") == Some("compact_boundary") => {
                let tokens = v["compactMetadata"]["preTokens"].as_u64().unwrap_or(0);
                let summary = str_of(v, "content").unwrap_or("").to_owned();
                let e = self.compaction(parent, ms, summary, tokens);
                self.unsummarized.insert(e);
                Some(Slot::Kept { first: e, last: e })
            }
            _ => None,
        };
        let slot = slot.unwrap_or_else(|| {
            self.count_custom(&ty);
            let e = self.push(parent, ms, custom(&ty, v.clone()));
            Slot::Kept { first: e, last: e }
        });
        self.slots.insert(uuid.clone(), slot);
        Some(uuid)
    }

    fn compaction(&mut self, parent: Option<usize>, ms: i64, summary: String, tokens_before: u64) -> usize {
        let e = self.push(
            parent,
            ms,
            Body::Compaction {
                summary,
                first_kept_entry_id: String::new(),
                tokens_before,
            },
        );
        // Retain-none: nothing before the boundary is kept, so the compaction names itself.
        let id = self.entries[e].id.clone();
        if let Body::Compaction {
            first_kept_entry_id, ..
        } = &mut self.entries[e].body
        {
            *first_kept_entry_id = id;
        }
        e
    }

    fn compact_summary(&mut self, v: &Value, parent: Option<usize>, ms: i64) -> Option<Slot> {
        let text = content_text(&v["message"]["content"]);
        if let Some(p) = parent.filter(|p| self.unsummarized.remove(p)) {
            if let Body::Compaction { summary, .. } = &mut self.entries[p].body {
                *summary = text;
            }
            return Some(Slot::Merged(p));
        }
        let e = self.compaction(parent, ms, text, 0);
        Some(Slot::Kept { first: e, last: e })
    }

    /// Whether call `call` was made on the branch ending at `from`.
    fn answered(&self, call: &str, from: Option<usize>) -> bool {
        let Some(&at) = self.call_at.get(call) else {
            return false;
        };
        let mut p = from;
        while let Some(i) = p {
            if i == at {
                return true;
            }
            if i < at {
                return false;
            }
            p = self.parents[i];
        }
        false
    }

    fn user(&mut self, v: &Value, parent: Option<usize>, ms: i64) -> Option<Slot> {
        let content = &v["message"]["content"];
        let mut results = Vec::new();
        let mut blocks = Vec::new();
        let user_content = if let Some(s) = content.as_str() {
            Some(Value::from(s))
        } else {
            for b in content.as_array().map(Vec::as_slice).unwrap_or_default() {
                match str_of(b, "type").unwrap_or("") {
                    "tool_result" => results.push(b),
                    "text" => blocks.push(pi::text(str_of(b, "text").unwrap_or(""))),
                    "image" => match image(b) {
                        Some(i) => blocks.push(i),
                        None => self.drop_block("image (not base64)"),
                    },
                    other => self.drop_block(other),
                }
            }
            (!blocks.is_empty()).then(|| Value::Array(blocks))
        };
        let mut cur = parent;
        let mut first = None;
        for r in results {
            let call = str_of(r, "tool_use_id").unwrap_or("");
            let e = if self.answered(call, cur) {
                let name = self.call_names.get(call).cloned().unwrap_or_default();
                let content = self.result_content(&r["content"]);
                let is_error = r.get("is_error").and_then(Value::as_bool) == Some(true);
                self.push(
                    cur,
                    ms,
                    Body::Message(pi::tool_result(call, &name, content, is_error, ms)),
                )
            } else {
                self.orphan_results += 1;
                self.count_custom("tool_result");
                self.push(cur, ms, custom("tool_result", r.clone()))
            };
            first.get_or_insert(e);
            cur = Some(e);
        }
        if let Some(c) = user_content {
            let e = self.push(cur, ms, Body::Message(pi::user(c, ms)));
            first.get_or_insert(e);
            cur = Some(e);
        }
        Some(Slot::Kept {
            first: first?,
            last: cur?,
        })
    }

    fn result_content(&mut self, c: &Value) -> Vec<Value> {
        match c {
            Value::String(s) => vec![pi::text(s)],
            Value::Array(bs) => {
                let mut out = Vec::new();
                for b in bs {
                    match str_of(b, "type").unwrap_or("") {
                        "text" => out.push(pi::text(str_of(b, "text").unwrap_or(""))),
                        "image" => match image(b) {
                            Some(i) => out.push(i),
                            None => self.drop_block("image (not base64)"),
                        },
                        other => self.drop_block(other),
                    }
                }
                out
            }
            _ => Vec::new(),
        }
    }

    fn assistant_blocks(&mut self, content: &Value, entry: usize) -> Vec<Value> {
        let mut out = Vec::new();
        if let Some(s) = content.as_str() {
            out.push(pi::text(s));
            return out;
        }
        for b in content.as_array().map(Vec::as_slice).unwrap_or_default() {
            match str_of(b, "type").unwrap_or("") {
                "text" => out.push(pi::text(str_of(b, "text").unwrap_or(""))),
                "thinking" => out.push(pi::thinking(
                    str_of(b, "thinking").unwrap_or(""),
                    str_of(b, "signature").filter(|s| !s.is_empty()),
                )),
                "redacted_thinking" => out.push(pi::redacted_thinking(str_of(b, "data").unwrap_or(""))),
                "tool_use" => {
                    let id = str_of(b, "id").unwrap_or("");
                    let name = str_of(b, "name").unwrap_or("");
                    let input = b.get("input").cloned().unwrap_or_else(|| json!({}));
                    let (name, args) = match self.options.map_tools.then(|| map_tool(name, &input)).flatten() {
                        Some((n, a)) => (n.to_owned(), a),
                        None => (name.to_owned(), input),
                    };
                    self.call_names.insert(id.to_owned(), name.clone());
                    self.call_at.insert(id.to_owned(), entry);
                    out.push(pi::tool_call(id, &name, args));
                }
                other => self.drop_block(other),
            }
        }
        out
    }

    fn assistant(&mut self, v: &Value, uuid: &str, pos: usize, parent: Option<usize>, ms: i64) -> Option<Slot> {
        let msg = &v["message"];
        let usage = &msg["usage"];
        let tokens = [
            "input_tokens",
            "output_tokens",
            "cache_read_input_tokens",
            "cache_creation_input_tokens",
        ]
        .map(|k| usage.get(k).and_then(Value::as_u64).unwrap_or(0));
        let stop = str_of(msg, "stop_reason").map(str::to_owned);
        let error = v.get("isApiErrorMessage").and_then(Value::as_bool) == Some(true);
        let mid = str_of(msg, "id").map(str::to_owned);
        // A later part of a reply already begun on this chain.
        if let Some(r) = mid.as_ref().and_then(|m| self.open_replies.get(m)).copied()
            && self.descends(pos, &self.replies[r].first_uuid)
        {
            let entry = self.replies[r].entry;
            let blocks = self.assistant_blocks(&msg["content"], entry);
            let reply = &mut self.replies[r];
            reply.content.extend(blocks);
            for (have, new) in reply.usage.iter_mut().zip(tokens) {
                *have = (*have).max(new);
            }
            if stop.is_some() {
                reply.stop = stop;
            }
            reply.error |= error;
            return Some(Slot::Merged(entry));
        }
        let model = str_of(msg, "model").unwrap_or("unknown").to_owned();
        let mut first = None;
        let mut parent = parent;
        if model != "<synthetic>" && parent.and_then(|p| self.model_at[p].as_deref()) != Some(model.as_str()) {
            let e = self.push(
                parent,
                ms,
                Body::ModelChange {
                    provider: "anthropic".into(),
                    model_id: model.clone(),
                },
            );
            first = Some(e);
            parent = Some(e);
        }
        let e = self.push(parent, ms, Body::Message(Value::Null));
        let content = self.assistant_blocks(&msg["content"], e);
        self.replies.push(Reply {
            entry: e,
            first_uuid: uuid.to_owned(),
            model,
            content,
            usage: tokens,
            stop,
            error,
            ms,
        });
        if let Some(m) = mid {
            self.open_replies.insert(m, self.replies.len() - 1);
        }
        Some(Slot::Kept {
            first: first.unwrap_or(e),
            last: e,
        })
    }

    /// Whether line `pos` descends (within a few hundred lines) from the line `ancestor`.
    fn descends(&self, pos: usize, ancestor: &str) -> bool {
        let mut cur = source_parent(&self.lines[pos].v);
        let mut pos = pos;
        for _ in 0..500 {
            let Some(c) = cur else { return false };
            if c == ancestor {
                return true;
            }
            match self.src.get(&c) {
                Some((p, up)) if *p < pos => {
                    pos = *p;
                    cur = up.clone();
                }
                _ => return false,
            }
        }
        false
    }

    fn finish(mut self, last: Option<(usize, String)>) -> Built {
        for r in std::mem::take(&mut self.replies) {
            let has_call = r.content.iter().any(|b| b["type"] == "toolCall");
            let stop = if r.error {
                "error"
            } else {
                match r.stop.as_deref() {
                    Some("tool_use") => "toolUse",
                    Some("max_tokens") => "length",
                    Some(_) => "stop",
                    None if has_call => "toolUse",
                    None => "stop",
                }
            };
            let [input, output, cache_read, cache_write] = r.usage;
            let usage = pi::usage(
                "anthropic",
                &known_model(&r.model),
                input,
                output,
                cache_read,
                cache_write,
            );
            self.entries[r.entry].body = Body::Message(pi::assistant(
                r.content,
                "anthropic-messages",
                "anthropic",
                &r.model,
                &usage,
                stop,
                r.ms,
            ));
        }
        // The leaf: the entry of the last line (or of its nearest kept ancestor), down to
        // the last entry written below it.
        let mut leaf = last.and_then(|(pos, uuid)| match self.slots.get(&uuid) {
            Some(Slot::Kept { last, .. }) => Some(*last),
            _ => self.resolve(Some(&uuid), pos + 1),
        });
        if let Some(mut l) = leaf {
            let mut children: HashMap<usize, usize> = HashMap::new();
            for (i, p) in self.parents.iter().enumerate() {
                if let Some(p) = p {
                    children.insert(*p, i);
                }
            }
            while let Some(&c) = children.get(&l) {
                l = c;
            }
            leaf = Some(l);
        }
        // Lines without uuid after the last entry: before the leaf.
        if !self.pending.is_empty() {
            let mut parent = leaf.and_then(|l| self.parents[l]);
            for (ms, ty, data) in std::mem::take(&mut self.pending) {
                parent = Some(self.push_raw(parent, ms, custom(&ty, data)));
            }
            match leaf {
                Some(l) => {
                    self.parents[l] = parent;
                    self.entries[l].parent_id = parent.map(|p| self.entries[p].id.clone());
                }
                None => leaf = parent,
            }
        }
        let ids = self
            .slots
            .iter()
            .map(|(u, s)| {
                let (f, l) = match *s {
                    Slot::Kept { first, last } => (first, last),
                    Slot::Merged(e) => (e, e),
                };
                (u.clone(), (self.entries[f].id.clone(), self.entries[l].id.clone()))
            })
            .collect();
        if let Some(l) = leaf {
            let e = self.entries.remove(l);
            self.entries.push(e);
        }
        let r = &mut self.report;
        if self.unknown_parents > 0 {
            r.notes.push(format!(
                "{} line(s) name a parent that is not before them in the file: each hangs from the entry before it",
                self.unknown_parents
            ));
        }
        if self.duplicates > 0 {
            r.notes.push(format!(
                "{} line(s) repeat an earlier line's uuid: left out",
                self.duplicates
            ));
        }
        if self.orphan_results > 0 {
            r.notes.push(format!(
                "{} tool result(s) answer no call on their branch: kept as custom entries",
                self.orphan_results
            ));
        }
        if self.tool_use_results > 0 {
            r.notes.push(format!(
                "{} structured copies of tool output (toolUseResult) left out: the tool results the model saw are kept",
                self.tool_use_results
            ));
        }
        if !self.dropped_blocks.is_empty() {
            let kinds: Vec<String> = self.dropped_blocks.iter().map(|(k, n)| format!("{k} ×{n}")).collect();
            r.notes.push(format!(
                "content blocks Pi has no place for, left out: {}",
                kinds.join(", ")
            ));
        }
        if self.entries.is_empty() {
            r.notes
                .push("no conversation in the source: the session is empty".into());
        }
        Built {
            entries: self.entries,
            report: self.report,
            ids,
        }
    }
}

/// The id pi-session's model table knows for a model Claude Code names with its snapshot
/// date (`claude-sonnet-4-5-20250929` → `claude-sonnet-4-5`), when only the undated one is in
/// the table; else the id as written. Only the cost is looked up by it: the reply and the
/// `model_change` keep the id Claude Code wrote.
fn known_model(model: &str) -> String {
    let known = |m: &str| crate::llm::models::builtin_model("anthropic", m).is_some();
    if !known(model)
        && let Some((base, date)) = model.rsplit_once('-')
        && date.len() == 8
        && date.bytes().all(|b| b.is_ascii_digit())
        && known(base)
    {
        return base.to_owned();
    }
    model.to_owned()
}

fn custom(ty: &str, data: Value) -> Body {
    Body::Custom {
        custom_type: format!("import.claude.{ty}"),
        data,
    }
}

/// A base64 image block as Pi's.
fn image(b: &Value) -> Option<Value> {
    let s = &b["source"];
    (str_of(s, "type") == Some("base64")).then_some(())?;
    Some(pi::image(str_of(s, "data")?, str_of(s, "media_type")?))
}

/// The text of a message's content (a string, or its text blocks joined by blank lines).
fn content_text(c: &Value) -> String {
    match c {
        Value::String(s) => s.clone(),
        Value::Array(bs) => bs
            .iter()
            .filter_map(|b| (b["type"] == "text").then(|| str_of(b, "text")).flatten())
            .collect::<Vec<_>>()
            .join("\n\n"),
        _ => String::new(),
    }
}

/// Claude Code's Read/Write/Edit/MultiEdit/Bash as Pi's read/write/edit/bash, when the
/// arguments say the same thing (not an Edit with `replace_all`, nor a Bash in the
/// background).
fn map_tool(name: &str, input: &Value) -> Option<(&'static str, Value)> {
    let o = input.as_object()?;
    let s = |k: &str| o.get(k).and_then(Value::as_str);
    let edit = |e: &Value| -> Option<Value> {
        if e.get("replace_all").and_then(Value::as_bool) == Some(true) {
            return None;
        }
        Some(json!({"oldText": str_of(e, "old_string")?, "newText": str_of(e, "new_string")?}))
    };
    match name {
        "Read" => {
            let mut a = serde_json::Map::new();
            a.insert("path".into(), s("file_path")?.into());
            for k in ["offset", "limit"] {
                if let Some(n) = o.get(k).filter(|n| n.is_number()) {
                    a.insert(k.into(), n.clone());
                }
            }
            Some(("read", Value::Object(a)))
        }
        "Write" => Some(("write", json!({"path": s("file_path")?, "content": s("content")?}))),
        "Edit" => Some(("edit", json!({"path": s("file_path")?, "edits": [edit(input)?]}))),
        "MultiEdit" => {
            let edits = o
                .get("edits")?
                .as_array()?
                .iter()
                .map(edit)
                .collect::<Option<Vec<_>>>()?;
            Some(("edit", json!({"path": s("file_path")?, "edits": edits})))
        }
        "Bash" => {
            if o.get("run_in_background").and_then(Value::as_bool) == Some(true) {
                return None;
            }
            let mut a = serde_json::Map::new();
            a.insert("command".into(), s("command")?.into());
            // Claude Code's timeout is in milliseconds, Pi's in seconds.
            if let Some(ms) = o.get("timeout").and_then(Value::as_u64) {
                let t = if ms % 1000 == 0 {
                    Value::from(ms / 1000)
                } else {
                    Value::from(ms as f64 / 1000.0)
                };
                a.insert("timeout".into(), t);
            }
            Some(("bash", Value::Object(a)))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Agent, verify};
    use super::*;
    use proptest::prelude::*;

    const SID: &str = "11111111-2222-4333-8444-555555555555";

    fn ts(s: u32) -> String {
        format!("2026-03-14T09:{:02}:{:02}.250Z", s / 60, s % 60)
    }

    fn u(uuid: &str, parent: Option<&str>, s: u32, content: Value) -> Value {
        json!({"parentUuid": parent, "isSidechain": false, "userType": "external", "cwd": "/home/dev/app",
            "sessionId": SID, "version": "1.0.98", "gitBranch": "main", "type": "user",
            "message": {"role": "user", "content": content}, "uuid": uuid, "timestamp": ts(s)})
    }

    fn a(uuid: &str, parent: Option<&str>, s: u32, mid: &str, blocks: Value) -> Value {
        a_with(
            uuid,
            parent,
            s,
            mid,
            blocks,
            "claude-sonnet-4-5-20250929",
            Some("end_turn"),
        )
    }

    fn a_with(
        uuid: &str,
        parent: Option<&str>,
        s: u32,
        mid: &str,
        blocks: Value,
        model: &str,
        stop: Option<&str>,
    ) -> Value {
        json!({"parentUuid": parent, "isSidechain": false, "cwd": "/home/dev/app", "sessionId": SID,
            "type": "assistant", "message": {"id": mid, "type": "message", "role": "assistant", "model": model,
            "content": blocks, "stop_reason": stop, "usage": {"input_tokens": 10, "output_tokens": 20,
            "cache_read_input_tokens": 300, "cache_creation_input_tokens": 40}},
            "uuid": uuid, "timestamp": ts(s)})
    }

    fn say(t: &str) -> Value {
        json!([{"type": "text", "text": t}])
    }

    fn bytes_of(lines: &[Value]) -> Vec<u8> {
        let mut out = Vec::new();
        for l in lines {
            out.extend_from_slice(serde_json::to_string(l).unwrap().as_bytes());
            out.push(b'\n');
        }
        out
    }

    fn conv_bytes(bytes: &[u8], options: &Options) -> Converted {
        let c = super::super::convert(
            Agent::Claude,
            bytes,
            Path::new("/home/dev/.claude/projects/-home-dev-app/s.jsonl"),
            options,
        )
        .unwrap();
        check(&c);
        c
    }

    fn conv(lines: &[Value]) -> Converted {
        conv_bytes(&bytes_of(lines), &Options::default())
    }

    /// Every session (and child) reads back as meant.
    fn check(c: &Converted) {
        verify(&c.session.to_bytes(), &c.session).unwrap();
        for k in &c.children {
            check(k);
        }
    }

    /// The main line's session (checked) with each uuid's (first, last) entry ids.
    fn built(lines: &[Value]) -> (PiSession, HashMap<String, (String, String)>) {
        let mut r = Report::default();
        let ls = parse(&bytes_of(lines), &mut r);
        let src = index(&ls);
        let members: Vec<usize> = (0..ls.len()).collect();
        let b = build(&ls, &src, &members, &Options::default());
        let from = ImportedFrom {
            agent: "claude",
            path: "/s.jsonl".into(),
            session_id: SID.into(),
        };
        let s = session_of(&ls, &members, b.entries, "", from);
        verify(&s.to_bytes(), &s).unwrap();
        (s, b.ids)
    }

    fn by_id<'a>(s: &'a PiSession, id: &str) -> &'a PiEntry {
        s.entries.iter().find(|e| e.id == id).unwrap()
    }

    fn messages(s: &PiSession) -> Vec<&Value> {
        s.entries
            .iter()
            .filter_map(|e| match &e.body {
                Body::Message(m) => Some(m),
                _ => None,
            })
            .collect()
    }

    fn leaves(s: &PiSession) -> usize {
        let parents: HashSet<&str> = s.entries.iter().filter_map(|e| e.parent_id.as_deref()).collect();
        s.entries.iter().filter(|e| !parents.contains(e.id.as_str())).count()
    }

    fn leaf_text(s: &PiSession) -> String {
        match &s.entries.last().unwrap().body {
            Body::Message(m) => content_text(&m["content"]).replace("toolCall", ""),
            b => b.kind(),
        }
    }

    #[test]
    fn the_tree_is_kept_a_rewind_is_a_branch_and_the_last_line_the_leaf() {
        let lines = [
            u("u1", None, 1, json!("first")),
            a("a1", Some("u1"), 2, "m1", say("one")),
            u("u2", Some("a1"), 3, json!("second")),
            a("a2", Some("u2"), 4, "m2", say("two")),
            u("u2b", Some("a1"), 5, json!("second, again")),
            a("a3", Some("u2b"), 6, "m3", say("two, again")),
        ];
        let (s, ids) = built(&lines);
        let parent = |u: &str| by_id(&s, &ids[u].0).parent_id.clone();
        assert_eq!(parent("u2"), Some(ids["a1"].1.clone()));
        assert_eq!(parent("u2b"), Some(ids["a1"].1.clone()));
        assert_eq!(parent("a3"), Some(ids["u2b"].1.clone()));
        let c = conv(&lines);
        assert_eq!(leaves(&c.session), 2);
        assert_eq!(leaf_text(&c.session), "two, again");
        // Every id 8 hex digits, all distinct.
        let ids: HashSet<&str> = c.session.entries.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(ids.len(), c.session.entries.len());
        assert!(
            ids.iter()
                .all(|i| i.len() == 8 && i.bytes().all(|b| b.is_ascii_hexdigit()))
        );
    }

    #[test]
    fn the_leaf_is_written_last_even_when_it_is_on_an_older_branch() {
        // The last line answers the first branch: its entry must still end the file.
        let lines = [
            u("u1", None, 1, json!("first")),
            a("a1", Some("u1"), 2, "m1", say("one")),
            u("u2", Some("a1"), 3, json!("left")),
            u("u3", Some("a1"), 4, json!("right")),
            a("a2", Some("u2"), 5, "m2", say("left answered")),
        ];
        let c = conv(&lines);
        assert_eq!(leaf_text(&c.session), "left answered");
        assert_eq!(leaves(&c.session), 2);
    }

    #[test]
    fn a_parent_not_in_the_file_starts_a_root_or_follows_the_entry_before() {
        let lines = [
            u("u1", Some("not-here"), 1, json!("continued")),
            a("a1", Some("u1"), 2, "m1", say("ok")),
        ];
        let c = conv(&lines);
        assert_eq!(c.session.entries[0].parent_id, None);
        assert!(c.report.notes.iter().any(|n| n.contains("not before them")));
        // The parent's line did not parse: the chain goes on from the entry before.
        let mut bytes = bytes_of(&lines);
        bytes.extend_from_slice(b"{\"uuid\":\"u2\",\"parentUuid\":\"a1\",\"type\":\"us\n");
        bytes.extend_from_slice(&bytes_of(&[a("a2", Some("u2"), 4, "m2", say("later"))]));
        let c = conv_bytes(&bytes, &Options::default());
        assert_eq!(c.report.malformed_lines, [3]);
        assert_eq!(leaves(&c.session), 1);
        assert_eq!(leaf_text(&c.session), "later");
    }

    #[test]
    fn tool_results_become_tool_result_messages_then_the_user_text() {
        let call = json!([{"type": "tool_use", "id": "toolu_1", "name": "Grep", "input": {"pattern": "x"}},
            {"type": "tool_use", "id": "toolu_2", "name": "Glob", "input": {"pattern": "*.rs"}}]);
        let lines = [
            u("u1", None, 1, json!("look")),
            a_with(
                "a1",
                Some("u1"),
                2,
                "m1",
                call,
                "claude-sonnet-4-5-20250929",
                Some("tool_use"),
            ),
            u(
                "u2",
                Some("a1"),
                3,
                json!([
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "a.rs:1: x"},
                {"type": "tool_result", "tool_use_id": "toolu_2", "content": [{"type": "text", "text": "no match"}], "is_error": true},
                {"type": "text", "text": "and also this"}]),
            ),
            a("a2", Some("u2"), 4, "m2", say("done")),
        ];
        let c = conv(&lines);
        let m = messages(&c.session);
        let roles: Vec<&str> = m.iter().map(|m| m["role"].as_str().unwrap()).collect();
        assert_eq!(
            roles,
            ["user", "assistant", "toolResult", "toolResult", "user", "assistant"]
        );
        assert_eq!(m[2]["toolCallId"], "toolu_1");
        assert_eq!(m[2]["toolName"], "Grep");
        assert_eq!(m[2]["content"], json!([{"type": "text", "text": "a.rs:1: x"}]));
        assert_eq!(m[2]["isError"], false);
        assert_eq!(m[3]["toolName"], "Glob");
        assert_eq!(m[3]["isError"], true);
        assert_eq!(m[4]["content"], json!([{"type": "text", "text": "and also this"}]));
        assert_eq!(
            m[1]["content"][0],
            json!({"type": "toolCall", "id": "toolu_1", "name": "Grep", "arguments": {"pattern": "x"}})
        );
        assert_eq!(m[1]["stopReason"], "toolUse");
        // The chain: result, result, user text, then the reply.
        let e = &c.session.entries;
        let parent_of = |i: usize| e[i].parent_id.clone().unwrap();
        let idx = |role: &str, n: usize| {
            e.iter()
                .enumerate()
                .filter(|(_, x)| matches!(&x.body, Body::Message(m) if m["role"] == role))
                .nth(n)
                .unwrap()
                .0
        };
        assert_eq!(parent_of(idx("toolResult", 1)), e[idx("toolResult", 0)].id);
        assert_eq!(parent_of(idx("user", 1)), e[idx("toolResult", 1)].id);
        assert_eq!(parent_of(idx("assistant", 1)), e[idx("user", 1)].id);
    }

    #[test]
    fn a_tool_result_without_its_call_on_the_branch_is_kept_as_custom() {
        let lines = [
            u("u1", None, 1, json!("hi")),
            u(
                "u2",
                Some("u1"),
                2,
                json!([{"type": "tool_result", "tool_use_id": "toolu_gone", "content": "x"}]),
            ),
        ];
        let c = conv(&lines);
        assert_eq!(c.report.custom.get("tool_result"), Some(&1));
        assert!(messages(&c.session).iter().all(|m| m["role"] != "toolResult"));
    }

    #[test]
    fn thinking_keeps_its_signature_and_redacted_thinking_is_pis() {
        let lines = [
            u("u1", None, 1, json!("think")),
            a(
                "a1",
                Some("u1"),
                2,
                "m1",
                json!([
                {"type": "thinking", "thinking": "hmm", "signature": "sig1"},
                {"type": "redacted_thinking", "data": "ENCRYPTED"},
                {"type": "text", "text": "answer"}]),
            ),
        ];
        let c = conv(&lines);
        let m = messages(&c.session)[1];
        assert_eq!(
            m["content"][0],
            json!({"type": "thinking", "thinking": "hmm", "thinkingSignature": "sig1"})
        );
        assert_eq!(
            m["content"][1],
            json!({"type": "thinking", "thinking": "[Reasoning redacted]", "thinkingSignature": "ENCRYPTED", "redacted": true})
        );
        assert_eq!(m["content"][2], json!({"type": "text", "text": "answer"}));
    }

    #[test]
    fn a_split_reply_is_one_message_with_its_usage_counted_once() {
        let mut p1 = a_with(
            "a1",
            Some("u1"),
            2,
            "m1",
            json!([{"type": "thinking", "thinking": "t", "signature": "s"}]),
            "claude-sonnet-4-5-20250929",
            None,
        );
        let p2 = a_with(
            "a2",
            Some("a1"),
            3,
            "m1",
            say("text"),
            "claude-sonnet-4-5-20250929",
            None,
        );
        let mut p3 = a_with(
            "a3",
            Some("a2"),
            4,
            "m1",
            json!([{"type": "tool_use", "id": "toolu_9", "name": "Bash", "input": {"command": "ls"}}]),
            "claude-sonnet-4-5-20250929",
            Some("tool_use"),
        );
        p1["message"]["usage"]["output_tokens"] = json!(3);
        p3["message"]["usage"]["output_tokens"] = json!(77);
        let lines = [
            u("u1", None, 1, json!("go")),
            p1,
            p2,
            p3,
            u(
                "u2",
                Some("a3"),
                5,
                json!([{"type": "tool_result", "tool_use_id": "toolu_9", "content": "src"}]),
            ),
        ];
        let c = conv(&lines);
        let m = messages(&c.session);
        assert_eq!(m.len(), 3);
        let reply = m[1];
        assert_eq!(reply["content"].as_array().unwrap().len(), 3);
        assert_eq!(reply["usage"]["input"], 10);
        assert_eq!(reply["usage"]["output"], 77);
        assert_eq!(reply["usage"]["cacheRead"], 300);
        assert_eq!(reply["usage"]["cacheWrite"], 40);
        assert_eq!(reply["usage"]["totalTokens"], 10 + 77 + 300 + 40);
        assert_eq!(reply["stopReason"], "toolUse");
        assert_eq!(reply["timestamp"], pi::ms_of(&ts(2)).unwrap());
        // The result hangs from the merged reply.
        let (s, ids) = built(&lines);
        assert_eq!(ids["a3"].0, ids["a1"].1);
        assert_eq!(by_id(&s, &ids["u2"].0).parent_id.as_deref(), Some(ids["a1"].1.as_str()));
    }

    #[test]
    fn parallel_calls_interleaved_with_their_results_make_one_chain() {
        let call = |id: &str| json!([{"type": "tool_use", "id": id, "name": "Read", "input": {"file_path": "/f"}}]);
        let result = |id: &str| json!([{"type": "tool_result", "tool_use_id": id, "content": "x"}]);
        let lines = [
            u("u1", None, 1, json!("read both")),
            a_with(
                "a1",
                Some("u1"),
                2,
                "m1",
                call("t1"),
                "claude-sonnet-4-5-20250929",
                None,
            ),
            u("r1", Some("a1"), 3, result("t1")),
            a_with(
                "a2",
                Some("r1"),
                4,
                "m1",
                call("t2"),
                "claude-sonnet-4-5-20250929",
                Some("tool_use"),
            ),
            u("r2", Some("a2"), 5, result("t2")),
        ];
        let c = conv(&lines);
        assert_eq!(leaves(&c.session), 1);
        let roles: Vec<&str> = messages(&c.session)
            .iter()
            .map(|m| m["role"].as_str().unwrap())
            .collect();
        assert_eq!(roles, ["user", "assistant", "toolResult", "toolResult"]);
        assert_eq!(messages(&c.session)[1]["content"].as_array().unwrap().len(), 2);
    }

    #[test]
    fn stop_reasons_map_to_pis() {
        for (claude, pi) in [
            ("end_turn", "stop"),
            ("tool_use", "toolUse"),
            ("max_tokens", "length"),
            ("stop_sequence", "stop"),
        ] {
            let lines = [
                u("u1", None, 1, json!("x")),
                a_with(
                    "a1",
                    Some("u1"),
                    2,
                    "m1",
                    say("y"),
                    "claude-sonnet-4-5-20250929",
                    Some(claude),
                ),
            ];
            assert_eq!(messages(&conv(&lines).session)[1]["stopReason"], pi, "{claude}");
        }
    }

    #[test]
    fn usage_api_and_provider_are_anthropics() {
        let lines = [u("u1", None, 1, json!("x")), a("a1", Some("u1"), 2, "m1", say("y"))];
        let m = messages(&conv(&lines).session)[1].clone();
        assert_eq!(m["api"], "anthropic-messages");
        assert_eq!(m["provider"], "anthropic");
        assert_eq!(m["model"], "claude-sonnet-4-5-20250929");
        // The cost as the model table prices the undated id.
        let want = serde_json::to_value(pi::usage("anthropic", "claude-sonnet-4-5", 10, 20, 300, 40)).unwrap();
        assert_eq!(m["usage"], want);
        assert!(m["usage"]["cost"]["total"].as_f64().unwrap() > 0.0);
    }

    #[test]
    fn a_model_change_comes_before_the_first_reply_and_where_the_model_changes() {
        let lines = [
            u("u1", None, 1, json!("x")),
            a("a1", Some("u1"), 2, "m1", say("y")),
            u("u2", Some("a1"), 3, json!("x")),
            a("a2", Some("u2"), 4, "m2", say("y")),
            u("u3", Some("a2"), 5, json!("x")),
            a_with(
                "a3",
                Some("u3"),
                6,
                "m3",
                say("y"),
                "claude-opus-4-1-20250805",
                Some("end_turn"),
            ),
            // A rewind to before the change: the branch's model is still sonnet.
            u("u4", Some("a2"), 7, json!("x")),
            a("a4", Some("u4"), 8, "m4", say("y")),
            u("u5", Some("a1"), 9, json!("x")),
            a_with(
                "a5",
                Some("u5"),
                10,
                "m5",
                say("z"),
                "<synthetic>",
                Some("stop_sequence"),
            ),
        ];
        let c = conv(&lines);
        let changes: Vec<(String, Option<String>)> = c
            .session
            .entries
            .iter()
            .filter_map(|e| match &e.body {
                Body::ModelChange { provider, model_id } => {
                    assert_eq!(provider, "anthropic");
                    Some((model_id.clone(), e.parent_id.clone()))
                }
                _ => None,
            })
            .collect();
        assert_eq!(changes.len(), 2, "{changes:?}");
        assert_eq!(changes[0].0, "claude-sonnet-4-5-20250929");
        assert_eq!(changes[1].0, "claude-opus-4-1-20250805");
        let (s, ids) = built(&lines);
        let change_parent = |e: &PiEntry| by_id(&s, e.parent_id.as_deref().unwrap()).parent_id.clone();
        assert_eq!(change_parent(by_id(&s, &ids["a3"].1)), Some(ids["u3"].1.clone()));
        // The first reply's entry hangs from a change; the first of its line.
        let a1 = by_id(&s, &ids["a1"].1);
        assert!(matches!(
            by_id(&s, a1.parent_id.as_deref().unwrap()).body,
            Body::ModelChange { .. }
        ));
        assert_eq!(a1.parent_id.as_deref(), Some(ids["a1"].0.as_str()));
    }

    #[test]
    fn a_compaction_is_one_retain_none_entry_on_its_branch() {
        let lines = [
            u("u1", None, 1, json!("x")),
            a("a1", Some("u1"), 2, "m1", say("y")),
            json!({"parentUuid": null, "logicalParentUuid": "a1", "isSidechain": false, "type": "system",
                "subtype": "compact_boundary", "content": "Conversation compacted", "isMeta": false,
                "timestamp": ts(3), "uuid": "b1", "sessionId": SID, "level": "info",
                "compactMetadata": {"trigger": "auto", "preTokens": 155025}}),
            {
                let mut s = u(
                    "s1",
                    Some("b1"),
                    4,
                    json!("This session is being continued… Summary: x then y."),
                );
                s["isCompactSummary"] = json!(true);
                s
            },
            u("u2", Some("s1"), 5, json!("go on")),
            a("a2", Some("u2"), 6, "m2", say("z")),
        ];
        let c = conv(&lines);
        let (s, ids) = built(&lines);
        let comp = by_id(&s, &ids["b1"].0);
        let Body::Compaction {
            summary,
            first_kept_entry_id,
            tokens_before,
        } = &comp.body
        else {
            panic!("{:?}", comp.body)
        };
        assert_eq!(summary, "This session is being continued… Summary: x then y.");
        assert_eq!(first_kept_entry_id, &comp.id);
        assert_eq!(*tokens_before, 155025);
        assert_eq!(comp.parent_id.as_deref(), Some(ids["a1"].1.as_str()));
        assert_eq!(ids["s1"].0, comp.id);
        assert_eq!(by_id(&s, &ids["u2"].0).parent_id.as_deref(), Some(comp.id.as_str()));
        assert_eq!(messages(&c.session).len(), 4);
        assert_eq!(c.report.entries.get("compaction"), Some(&1));
    }

    #[test]
    fn a_summary_line_without_a_boundary_is_a_compaction_of_its_own() {
        let mut s = u(
            "s1",
            None,
            1,
            json!([{"type": "text", "text": "Summary: earlier work."}]),
        );
        s["isCompactSummary"] = json!(true);
        let lines = [s, u("u1", Some("s1"), 2, json!("next"))];
        let c = conv(&lines);
        let Body::Compaction {
            summary,
            first_kept_entry_id,
            tokens_before,
        } = &c.session.entries[0].body
        else {
            panic!()
        };
        assert_eq!(summary, "Summary: earlier work.");
        assert_eq!(first_kept_entry_id, &c.session.entries[0].id);
        assert_eq!(*tokens_before, 0);
    }

    #[test]
    fn sidechains_are_child_sessions() {
        let side = |mut v: Value| {
            v["isSidechain"] = json!(true);
            v
        };
        let task = json!([{"type": "tool_use", "id": "toolu_t", "name": "Task", "input": {"prompt": "find it"}}]);
        let lines = [
            u("u1", None, 1, json!("x")),
            a_with(
                "a1",
                Some("u1"),
                2,
                "m1",
                task,
                "claude-sonnet-4-5-20250929",
                Some("tool_use"),
            ),
            side(u("x1", None, 3, json!("find it"))),
            side(a("x2", Some("x1"), 4, "mx1", say("found"))),
            side(u("y1", None, 5, json!("another agent"))),
            u(
                "u2",
                Some("a1"),
                6,
                json!([{"type": "tool_result", "tool_use_id": "toolu_t", "content": "found"}]),
            ),
            a("a2", Some("u2"), 7, "m2", say("done")),
        ];
        let c = conv(&lines);
        assert_eq!(messages(&c.session).len(), 4);
        assert_eq!(c.children.len(), 2);
        let k = &c.children[0].session;
        assert_eq!(messages(k).len(), 2);
        assert_eq!(k.parent_session, None);
        assert_eq!(k.imported_from.session_id, format!("{SID}:x1"));
        assert_eq!(k.timestamp, pi::iso_of(pi::ms_of(&ts(3)).unwrap()));
        assert_eq!(leaf_text(k), "found");
        assert_eq!(messages(&c.children[1].session).len(), 1);
        assert!(c.report.notes.iter().any(|n| n.contains("2 subagent")));
        // A file of sidechain lines only is read as one session, named by its agent.
        let mut only: Vec<Value> = lines[2..4].to_vec();
        only[0]["agentId"] = json!("a1b2c3d4");
        let c = conv(&only);
        assert!(c.children.is_empty());
        assert_eq!(messages(&c.session).len(), 2);
        assert_eq!(c.session.imported_from.session_id, format!("{SID}:a1b2c3d4"));
        assert!(c.report.notes.iter().any(|n| n.contains("every line is a sidechain")));
        // A file without a conversation is not one.
        let c = conv(&[json!({"type": "summary", "summary": "t"})]);
        assert!(!c.report.notes.iter().any(|n| n.contains("sidechain")));
    }

    #[test]
    fn images_are_pi_image_blocks() {
        let lines = [u(
            "u1",
            None,
            1,
            json!([
            {"type": "text", "text": "see"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0K"}}]),
        )];
        let c = conv(&lines);
        assert_eq!(
            messages(&c.session)[0]["content"],
            json!([{"type": "text", "text": "see"}, {"type": "image", "data": "iVBORw0K", "mimeType": "image/png"}])
        );
    }

    #[test]
    fn what_pi_has_no_place_for_is_custom_where_it_was() {
        let mut meta = u(
            "m1",
            Some("u1"),
            2,
            json!("<local-command-caveat>Caveat</local-command-caveat>"),
        );
        meta["isMeta"] = json!(true);
        let lines = [
            json!({"type": "summary", "summary": "A title", "leafUuid": "a1"}),
            u("u1", None, 1, json!("x")),
            meta,
            json!({"parentUuid": "m1", "type": "system", "subtype": "turn_duration", "durationMs": 5,
                "uuid": "s1", "timestamp": ts(3), "isSidechain": false}),
            json!({"type": "file-history-snapshot", "messageId": "u2", "snapshot": {}}),
            u("u2", Some("s1"), 4, json!("y")),
            json!({"parentUuid": "u2", "type": "progress", "uuid": "p1", "timestamp": ts(5), "data": {}}),
            a("a1", Some("p1"), 6, "mA", say("z")),
            json!({"type": "queue-operation", "operation": "enqueue", "timestamp": ts(7)}),
        ];
        let c = conv(&lines);
        let kinds: Vec<String> = c
            .session
            .entries
            .iter()
            .map(|e| match &e.body {
                Body::Custom { custom_type, .. } => custom_type.clone(),
                b => b.kind(),
            })
            .collect();
        assert_eq!(
            kinds,
            [
                "import.claude.summary",
                "user",
                "import.claude.user",
                "import.claude.system",
                "import.claude.file-history-snapshot",
                "user",
                "import.claude.progress",
                "model_change",
                "import.claude.queue-operation",
                "assistant"
            ]
        );
        // One chain, the data the line itself.
        assert_eq!(leaves(&c.session), 1);
        let Body::Custom { data, .. } = &c.session.entries[0].body else {
            panic!()
        };
        assert_eq!(data, &lines[0]);
        assert_eq!(c.report.custom.get("summary"), Some(&1));
        assert_eq!(c.report.custom.get("user"), Some(&1));
        assert_eq!(c.report.custom.get("system"), Some(&1));
        assert_eq!(c.report.unknown.get("progress"), Some(&1));
        assert_eq!(c.report.unknown.get("queue-operation"), Some(&1));
        assert_eq!(c.report.unknown.get("summary"), None);
        assert_eq!(c.report.entries.get("custom"), Some(&6));
    }

    #[test]
    fn malformed_and_torn_lines_are_counted_and_skipped() {
        let mut bytes = bytes_of(&[u("u1", None, 1, json!("x"))]);
        bytes.extend_from_slice(b"not json\n\n[1,2]\n");
        bytes.extend_from_slice(&bytes_of(&[a("a1", Some("u1"), 2, "m1", say("y"))]));
        bytes.extend_from_slice(br#"{"parentUuid":"a1","type":"user","mess"#);
        let c = conv_bytes(&bytes, &Options::default());
        assert_eq!(c.report.malformed_lines, [2, 4, 6]);
        assert_eq!(messages(&c.session).len(), 2);
    }

    #[test]
    fn map_tools_gives_pis_built_in_names_and_arguments() {
        let calls = json!([
            {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "/a.rs", "offset": 5, "limit": 10}},
            {"type": "tool_use", "id": "t2", "name": "Write", "input": {"file_path": "/b.rs", "content": "fn main() {}"}},
            {"type": "tool_use", "id": "t3", "name": "Edit", "input": {"file_path": "/a.rs", "old_string": "a", "new_string": "b"}},
            {"type": "tool_use", "id": "t4", "name": "Bash", "input": {"command": "ls", "timeout": 120000, "description": "list"}},
            {"type": "tool_use", "id": "t5", "name": "Edit", "input": {"file_path": "/a.rs", "old_string": "a", "new_string": "b", "replace_all": true}},
            {"type": "tool_use", "id": "t6", "name": "MultiEdit", "input": {"file_path": "/a.rs", "edits": [{"old_string": "x", "new_string": "y"}]}},
            {"type": "tool_use", "id": "t7", "name": "Grep", "input": {"pattern": "p"}}
        ]);
        let lines = [
            u("u1", None, 1, json!("x")),
            a_with(
                "a1",
                Some("u1"),
                2,
                "m1",
                calls.clone(),
                "claude-sonnet-4-5-20250929",
                Some("tool_use"),
            ),
            u(
                "u2",
                Some("a1"),
                3,
                json!([{"type": "tool_result", "tool_use_id": "t3", "content": "ok"}]),
            ),
        ];
        let mapped = conv_bytes(&bytes_of(&lines), &Options { map_tools: true });
        let m = messages(&mapped.session);
        let got: Vec<(&str, &Value)> = m[1]["content"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| (b["name"].as_str().unwrap(), &b["arguments"]))
            .collect();
        assert_eq!(got[0], ("read", &json!({"path": "/a.rs", "offset": 5, "limit": 10})));
        assert_eq!(got[1], ("write", &json!({"path": "/b.rs", "content": "fn main() {}"})));
        assert_eq!(
            got[2],
            (
                "edit",
                &json!({"path": "/a.rs", "edits": [{"oldText": "a", "newText": "b"}]})
            )
        );
        assert_eq!(got[3], ("bash", &json!({"command": "ls", "timeout": 120})));
        assert_eq!(got[4].0, "Edit");
        assert_eq!(
            got[5],
            (
                "edit",
                &json!({"path": "/a.rs", "edits": [{"oldText": "x", "newText": "y"}]})
            )
        );
        assert_eq!(got[6], ("Grep", &json!({"pattern": "p"})));
        assert_eq!(m[2]["toolName"], "edit");
        let plain = conv(&lines);
        assert_eq!(messages(&plain.session)[1]["content"][0]["name"], "Read");
        assert_eq!(
            messages(&plain.session)[1]["content"][0]["arguments"],
            calls[0]["input"]
        );
        assert_eq!(messages(&plain.session)[2]["toolName"], "Edit");
    }

    #[test]
    fn the_header_and_timestamps_come_from_the_source() {
        let lines = [
            json!({"type": "summary", "summary": "t", "leafUuid": "u1"}),
            u("u1", None, 61, json!("x")),
            a("a1", Some("u1"), 62, "m1", say("y")),
        ];
        let c = conv(&lines);
        let s = &c.session;
        assert_eq!(uuid::Uuid::parse_str(&s.id).unwrap().get_version_num(), 7);
        assert_eq!(s.timestamp, "2026-03-14T09:01:01.250Z");
        assert_eq!(s.cwd, "/home/dev/app");
        assert_eq!(s.imported_from.agent, "claude");
        assert_eq!(s.imported_from.session_id, SID);
        assert_eq!(s.imported_from.path, "/home/dev/.claude/projects/-home-dev-app/s.jsonl");
        let user = s
            .entries
            .iter()
            .find(|e| matches!(&e.body, Body::Message(m) if m["role"] == "user"))
            .unwrap();
        assert_eq!(user.timestamp, "2026-03-14T09:01:01.250Z");
        let Body::Message(m) = &user.body else { panic!() };
        assert_eq!(m["timestamp"], pi::ms_of("2026-03-14T09:01:01.250Z").unwrap());
    }

    #[test]
    fn the_project_folder_is_claude_codes() {
        assert_eq!(project_folder(Path::new("/home/dev/my_app.v2")), "-home-dev-my-app-v2");
        assert_eq!(project_folder(Path::new("/tmp/café")), "-tmp-caf-");
        assert_eq!(project_folder(Path::new("/tmp/a😀")), "-tmp-a--");
    }

    #[test]
    fn sources_and_ids_are_found_in_the_project_folder() {
        let root = tempfile::tempdir().unwrap();
        let cwd = Path::new("/home/dev/app");
        let dir = root.path().join("-home-dev-app");
        std::fs::create_dir_all(&dir).unwrap();
        let line = |cwd: &str| format!("{{\"type\":\"summary\"}}\n{{\"type\":\"user\",\"cwd\":\"{cwd}\"}}\n");
        std::fs::write(dir.join("aaa.jsonl"), line("/home/dev/app")).unwrap();
        std::fs::write(dir.join("bbb.jsonl"), line("/home/dev-app")).unwrap();
        std::fs::write(dir.join("agent-1234.jsonl"), line("/home/dev/app")).unwrap();
        std::fs::write(dir.join("notes.txt"), "").unwrap();
        assert_eq!(sources_for(root.path(), cwd), [dir.join("aaa.jsonl")]);
        assert_eq!(sources_for(root.path(), Path::new("/elsewhere")), Vec::<PathBuf>::new());
        assert_eq!(find_by_id(root.path(), "bbb"), Some(dir.join("bbb.jsonl")));
        assert_eq!(find_by_id(root.path(), "ccc"), None);
        assert_eq!(find_by_id(root.path(), "../-home-dev-app/aaa"), None);
    }

    fn fixture(name: &str) -> Converted {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/import/claude")
            .join(name);
        let bytes = std::fs::read(&path).unwrap();
        let c = super::super::convert(Agent::Claude, &bytes, &path, &Options { map_tools: true }).unwrap();
        check(&c);
        c
    }

    #[test]
    fn the_fixtures_convert_and_read_back() {
        let c = fixture("rewind.jsonl");
        assert_eq!(leaves(&c.session), 2);
        assert!(leaf_text(&c.session).starts_with("Then `--units` takes a string"));
        assert_eq!(c.report.custom.get("summary"), Some(&1));
        assert_eq!(c.report.custom.get("file-history-snapshot"), Some(&1));
        assert_eq!(c.report.custom.get("system"), Some(&1));

        let c = fixture("compaction.jsonl");
        assert_eq!(leaves(&c.session), 1);
        assert_eq!(c.report.entries.get("compaction"), Some(&1));
        assert_eq!(c.report.entries.get("model_change"), Some(&2));
        assert!(leaf_text(&c.session).starts_with("The test now sets TZ=UTC"));

        let c = fixture("sidechain.jsonl");
        assert_eq!(c.children.len(), 1);
        assert_eq!(c.report.entries.get("toolResult"), Some(&1));
        assert_eq!(c.children[0].report.entries.get("toolResult"), Some(&1));
        assert_eq!(leaves(&c.session), 1);
        assert!(leaf_text(&c.children[0].session).starts_with("One read"));

        let c = fixture("image.jsonl");
        assert_eq!(messages(&c.session)[0]["content"][1]["type"], "image");

        let c = fixture("tool-error.jsonl");
        let m = messages(&c.session);
        let results: Vec<&&Value> = m.iter().filter(|m| m["role"] == "toolResult").collect();
        assert_eq!(results.len(), 3);
        assert_eq!(results[0]["isError"], true);
        assert_eq!(results[0]["toolName"], "bash");
        assert_eq!(results[1]["toolName"], "read");
        assert_eq!(results[2]["toolName"], "edit");

        let c = fixture("split-reply.jsonl");
        assert_eq!(leaves(&c.session), 1);
        let roles: Vec<&str> = messages(&c.session)
            .iter()
            .map(|m| m["role"].as_str().unwrap())
            .collect();
        assert_eq!(roles, ["user", "assistant", "toolResult", "toolResult", "assistant"]);
        assert_eq!(messages(&c.session)[1]["usage"]["output"], 214);
        assert_eq!(messages(&c.session)[1]["content"].as_array().unwrap().len(), 5);

        let c = fixture("torn-last-line.jsonl");
        assert_eq!(c.report.malformed_lines, [4]);
        assert_eq!(leaf_text(&c.session), "Shorter.");
    }

    /// A random Claude tree: each line's parent one of the earlier lines; a tool result
    /// answers a call on its branch when there is one.
    fn random_lines(choices: &[(usize, u8, bool)]) -> Vec<Value> {
        let mut lines: Vec<Value> = Vec::new();
        let mut parents: Vec<Option<usize>> = Vec::new();
        let mut calls: Vec<Option<String>> = Vec::new();
        for (i, &(p, kind, opus)) in choices.iter().enumerate() {
            let parent = (i > 0).then(|| p % i);
            let uuid = format!("line-{i}");
            let pu = parent.map(|p| format!("line-{p}"));
            let mut branch_calls = Vec::new();
            let mut q = parent;
            while let Some(j) = q {
                branch_calls.extend(calls[j].clone());
                q = parents[j];
            }
            let model = if opus {
                "claude-opus-4-1-20250805"
            } else {
                "claude-sonnet-4-5-20250929"
            };
            let (line, call) = match kind % 4 {
                0 => (u(&uuid, pu.as_deref(), i as u32, json!(format!("prompt {i}"))), None),
                1 => (
                    a_with(
                        &uuid,
                        pu.as_deref(),
                        i as u32,
                        &format!("msg_{i}"),
                        say("reply"),
                        model,
                        Some("end_turn"),
                    ),
                    None,
                ),
                2 => {
                    let id = format!("toolu_{i}");
                    let b = json!([{"type": "tool_use", "id": id, "name": "Bash", "input": {"command": "true"}}]);
                    (
                        a_with(
                            &uuid,
                            pu.as_deref(),
                            i as u32,
                            &format!("msg_{i}"),
                            b,
                            model,
                            Some("tool_use"),
                        ),
                        Some(id),
                    )
                }
                _ => match branch_calls.first() {
                    Some(id) => (
                        u(
                            &uuid,
                            pu.as_deref(),
                            i as u32,
                            json!([{"type": "tool_result", "tool_use_id": id, "content": "ok"}]),
                        ),
                        None,
                    ),
                    None => (u(&uuid, pu.as_deref(), i as u32, json!("plain")), None),
                },
            };
            lines.push(line);
            parents.push(parent);
            calls.push(call);
        }
        lines
    }

    /// Any mix of lines: split replies, results with or without their call, meta and system
    /// lines, lines without uuid, compactions, sidechains, unknown parents, garbage.
    fn messy_lines(choices: &[(usize, u8, u8)]) -> Vec<u8> {
        let mut out = Vec::new();
        for (i, &(p, kind, pick)) in choices.iter().enumerate() {
            let uuid = format!("line-{i}");
            let parent = match p % 8 {
                0 => None,
                1 => Some("elsewhere".to_owned()),
                _ if i == 0 => None,
                _ => Some(format!("line-{}", p % i)),
            };
            let pu = parent.as_deref();
            let mid = format!("msg_{}", pick % 4);
            let call = format!("toolu_{}", pick % 5);
            let line = match kind % 11 {
                0 => u(&uuid, pu, i as u32, json!("prompt")),
                1 => a_with(
                    &uuid,
                    pu,
                    i as u32,
                    &mid,
                    say("part"),
                    "claude-sonnet-4-5-20250929",
                    None,
                ),
                2 => a_with(
                    &uuid,
                    pu,
                    i as u32,
                    &mid,
                    json!([{"type": "tool_use", "id": call, "name": "Read", "input": {"file_path": "/f"}}]),
                    "claude-opus-4-1-20250805",
                    Some("tool_use"),
                ),
                3 => u(
                    &uuid,
                    pu,
                    i as u32,
                    json!([{"type": "tool_result", "tool_use_id": call, "content": "ok"}, {"type": "text", "text": "and"}]),
                ),
                4 => {
                    let mut m = u(&uuid, pu, i as u32, json!("caveat"));
                    m["isMeta"] = json!(true);
                    m
                }
                5 => json!({"type": "summary", "summary": "t", "leafUuid": uuid}),
                6 => json!({"type": "system", "subtype": "compact_boundary", "uuid": uuid, "parentUuid": null,
                    "logicalParentUuid": pu, "timestamp": ts(i as u32), "compactMetadata": {"preTokens": 9}}),
                7 => {
                    let mut m = u(&uuid, pu, i as u32, json!("Summary"));
                    m["isCompactSummary"] = json!(true);
                    m
                }
                8 => {
                    let mut m = a(&uuid, pu, i as u32, &mid, say("side"));
                    m["isSidechain"] = json!(true);
                    m
                }
                9 => {
                    let mut m = u(&uuid, pu, i as u32, json!("side prompt"));
                    m["isSidechain"] = json!(true);
                    m
                }
                _ => {
                    out.extend_from_slice(b"{garbage\n");
                    continue;
                }
            };
            out.extend_from_slice(serde_json::to_string(&line).unwrap().as_bytes());
            out.push(b'\n');
        }
        out
    }

    proptest! {
        #[test]
        fn random_trees_keep_their_shape_and_leaf(choices in prop::collection::vec((any::<usize>(), any::<u8>(), any::<bool>()), 1..40)) {
            let lines = random_lines(&choices);
            let (s, ids) = built(&lines);
            conv(&lines);
            for (i, l) in lines.iter().enumerate() {
                let uuid = format!("line-{i}");
                let (first, _) = &ids[&uuid];
                let want = str_of(l, "parentUuid").map(|p| ids[p].1.clone());
                prop_assert_eq!(&by_id(&s, first).parent_id, &want, "line {}", i);
            }
            let last = format!("line-{}", lines.len() - 1);
            prop_assert_eq!(&s.entries.last().unwrap().id, &ids[&last].1);
        }

        #[test]
        fn any_mix_of_lines_reads_back_as_meant(choices in prop::collection::vec((any::<usize>(), any::<u8>(), any::<u8>()), 0..40)) {
            for map_tools in [false, true] {
                conv_bytes(&messy_lines(&choices), &Options { map_tools });
            }
        }
    }
}
