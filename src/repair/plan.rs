//! Putting the passes together: the findings, the repaired file, and the rejects.

use super::finding::{Finding, Severity};
use super::header::place;
use super::lines::{LineState, read_lines};
use super::structure::{Decisions, Parent, decide, tool_warnings};
use crate::json::rawjson::{edit_object, fields};
use crate::session::context::message_count;
use crate::session::{Detail, EntryKind, Session, SessionError};
use rustc_hash::FxHashSet;
use std::path::Path;

/// What repair found and would write.
#[derive(Debug)]
pub struct Plan {
    /// Defects (and warnings) in line order.
    pub findings: Vec<Finding>,
    /// The repaired file; `None` when there is nothing to fix.
    pub output: Option<Vec<u8>>,
    /// Original lines that are dropped or rewritten, byte for byte (without `\n`).
    pub rejects: Vec<Vec<u8>>,
    /// How Pi reads the result.
    pub after: Option<Reading>,
}

/// What Pi reads from a (repaired) file.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Reading {
    /// The id of the last entry (Pi's leaf).
    pub leaf: Option<String>,
    /// The id of the entry `@` names.
    pub at: Option<String>,
    /// Entries on the current branch.
    pub branch: usize,
    /// Messages Pi would send to the model (written `context_messages`, as it always was).
    pub context_messages: usize,
    /// Entries in the file.
    pub entries: usize,
}

impl Plan {
    pub fn defects(&self) -> usize {
        self.findings.iter().filter(|f| f.severity == Severity::Defect).count()
    }
}

/// The plan for a file that is clean as loaded (nothing at the level of lines, nothing in
/// the tree): only its warnings. `None` when there is something to repair; then [`plan`]
/// examines the bytes.
pub fn clean_plan(session: &Session) -> Option<Plan> {
    if !lines_clean(session) {
        return None;
    }
    let mut findings = Vec::new();
    decide(session, &mut findings);
    if !findings.is_empty() {
        return None;
    }
    Some(Plan {
        findings: tool_warnings(session),
        output: None,
        rejects: Vec::new(),
        after: Some(reading(session)),
    })
}

/// Whether the line pass would find nothing in the file `session` was loaded from: every
/// line one object as it is (nothing skipped, no CRs, no blank lines, valid UTF-8), the
/// header first, the format current. Then the file as loaded is the file as repair reads
/// it, and only the tree can hold defects.
fn lines_clean(session: &Session) -> bool {
    session.is_complete() && session.report.lines_clean() && session.header.line == 1 && session.is_valid_utf8()
}

/// What the loader found on each line of the file `s` was loaded from (see
/// [`super::lines::Known`]).
fn known_lines(s: &Session) -> Vec<u8> {
    use super::lines::{ENTRY, SESSION};
    let last = s
        .entries
        .iter()
        .map(|e| e.line)
        .chain(s.report.extra_headers.iter().copied())
        .chain([s.header.line])
        .max()
        .unwrap_or(0);
    let mut known = vec![super::lines::NOT_KNOWN; last as usize + 1];
    known[s.header.line as usize] = SESSION;
    for &l in &s.report.extra_headers {
        known[l as usize] = SESSION;
    }
    for e in &s.entries {
        known[e.line as usize] = ENTRY;
    }
    known
}

/// Examines `data` (the bytes of `path`) and plans its repair.
pub fn plan(path: &Path, data: &[u8]) -> Result<Plan, SessionError> {
    plan_with(path, data, None)
}

/// Plans the repair of a file that loaded (but not clean), reading its bytes from the
/// session: no second copy of them.
pub fn plan_loaded(session: &Session) -> Result<Plan, SessionError> {
    plan_with(&session.path, session.bytes(), Some(session))
}

/// Only the findings (for `--check`): the repaired file is not built, so `output` and
/// `after` are `None` when there are defects, and the warnings are those of the file as
/// it is. Memory stays at about the file plus its index. `loaded`: the session loaded from
/// `data`, if it loaded.
pub fn check_only(path: &Path, data: &[u8], loaded: Option<&Session>) -> Result<Plan, SessionError> {
    let mut findings = Vec::new();
    if let Some(session) = loaded.filter(|s| lines_clean(s)) {
        // The line pass would find nothing and read the file as loaded: only the tree is
        // examined.
        decide(session, &mut findings);
        findings.sort_by_key(|f| f.line.unwrap_or(0));
        let after = findings.is_empty().then(|| reading(session));
        findings.extend(tool_warnings(session));
        return Ok(Plan {
            findings,
            output: None,
            rejects: Vec::new(),
            after,
        });
    }
    let Pass { session, .. } = repaired(path, data, loaded, false, &mut findings)?;
    let after = findings.is_empty().then(|| reading(&session));
    findings.sort_by_key(|f| f.line.unwrap_or(0));
    findings.extend(tool_warnings(&session));
    Ok(Plan {
        findings,
        output: None,
        rejects: Vec::new(),
        after,
    })
}

fn plan_with(path: &Path, data: &[u8], loaded: Option<&Session>) -> Result<Plan, SessionError> {
    let mut findings = Vec::new();
    let Pass {
        output,
        rejects,
        session,
    } = repaired(path, data, loaded, true, &mut findings)?;
    let (output, rejects, result) = if findings.is_empty() {
        (None, Vec::new(), session)
    } else {
        drop(session);
        let result = Session::from_bytes(path.to_path_buf(), output)?;
        // The result must need nothing more: anything else is a bug in repair.
        let mut again = Vec::new();
        let _ = repaired(path, result.bytes(), Some(&result), false, &mut again)?;
        if let Some(f) = again.first() {
            return Err(SessionError::Refused(format!(
                "repair could not settle this file (after repair: {}: {} — {}); nothing written; please report it",
                f.line.map(|l| format!("line {l}")).unwrap_or_else(|| "the file".into()),
                f.kind,
                f.message
            )));
        }
        (Some(()), rejects, Held::Owned(Box::new(result)))
    };
    findings.sort_by_key(|f| f.line.unwrap_or(0));
    findings.extend(tool_warnings(&result));
    let after = Some(reading(&result));
    let output = match (output, result) {
        (Some(()), Held::Owned(result)) => Some(result.into_bytes()),
        _ => None,
    };
    Ok(Plan {
        findings,
        output,
        rejects,
        after,
    })
}

fn reading(s: &Session) -> Reading {
    let at = s.at();
    Reading {
        leaf: s.leaf().map(|l| s.id_or_line(l)),
        at: at.map(|a| s.id_or_line(a)),
        branch: at.map(|a| s.branch(a).path.len()).unwrap_or(0),
        context_messages: message_count(s, at),
        entries: s.entries.len(),
    }
}

/// A session loaded here, or the one the caller loaded from the same bytes.
enum Held<'a> {
    Owned(Box<Session>),
    Borrowed(&'a Session),
}

impl std::ops::Deref for Held<'_> {
    type Target = Session;
    fn deref(&self) -> &Session {
        match self {
            Held::Owned(s) => s,
            Held::Borrowed(s) => s,
        }
    }
}

/// One pass over a file: the repaired bytes, the rejected lines, and the session as loaded
/// before the structural fixes (the file as Pi would read it after line fixes).
struct Pass<'a> {
    /// Empty when there was nothing to repair (or `build` was not asked for).
    output: Vec<u8>,
    rejects: Vec<Vec<u8>>,
    session: Held<'a>,
}

/// One pass. `loaded`: the session loaded from `data` as it is, if it loaded; it is used
/// when every line is read as it is (no staged copy of the file is then made). `build`:
/// write the output when there is something to repair.
fn repaired<'a>(
    path: &Path,
    data: &[u8],
    loaded: Option<&'a Session>,
    build: bool,
    findings: &mut Vec<Finding>,
) -> Result<Pass<'a>, SessionError> {
    // Only a session loaded from these bytes as a whole file, numbered from line 1.
    let known = loaded
        .filter(|s| s.is_complete() && (std::ptr::eq(s.bytes(), data) || s.bytes() == data))
        .map(known_lines);
    let lines = read_lines(data, known.as_deref(), findings);
    drop(known);
    let placed = place(path, &lines, findings).ok_or_else(|| SessionError::NotASession {
        path: path.to_path_buf(),
        reason: "no line holds a JSON object: there is nothing to repair".into(),
    })?;

    // The file as Pi would read it once the lines are fixed: the header on "line 0", every
    // entry on its own line number, so v1 ids (derived from line numbers) do not move.
    // Objects glued on one line take the following staged lines; `original` maps every staged
    // line back to the line it came from. When the header comes first as it is and every
    // line holding an object is read as it is, the file as loaded is that reading already.
    let n = lines.len() + 1;
    let placed_at = || {
        let mut v = vec![false; n];
        for (line, _) in &placed.entries {
            v[*line as usize] = true;
        }
        v
    };
    let as_is = loaded.filter(|s| {
        placed.header_as_is
            && s.header.line == 1
            && placed.header_source_line == Some(1)
            && lines.iter().all(|l| l.objects.is_empty() || l.read_as_is())
            && {
                // The loader read the same lines as entries (it reads JSON as the line pass does).
                let at = placed_at();
                s.entries.len() == placed.entries.len()
                    && s.entries.iter().all(|e| at.get(e.line as usize) == Some(&true))
            }
    });
    let (mut session, original, holds_object) = match as_is {
        Some(s) => (Held::Borrowed(s), (0..n as u32).collect::<Vec<u32>>(), placed_at()),
        _ => {
            let mut staged = String::with_capacity(data.len() + 64);
            staged.push_str(&placed.header);
            let mut original: Vec<u32> = vec![0];
            let mut holds_object: Vec<bool> = vec![false];
            // Pi's v1 migration resolves `firstKeptEntryIndex` against every parsed line,
            // extra `session` lines included: in a v1 file a dropped extra header keeps its
            // place as a bare session line, so that the indices mean what they meant.
            let v1 = match crate::session::skim::read_line(placed.header.as_bytes()) {
                crate::session::skim::LineRead::Object(h) => h.version.is_none_or(|v| v < 2.0),
                _ => false,
            };
            for (line, obj) in &placed.entries {
                while (original.len() as u32) < *line {
                    staged.push('\n');
                    if v1 && placed.dropped_lines.contains(&(original.len() as u32)) {
                        staged.push_str(r#"{"type":"session"}"#);
                    }
                    original.push(original.len() as u32);
                    holds_object.push(false);
                }
                staged.push('\n');
                staged.push_str(obj);
                original.push(*line);
                holds_object.push(true);
            }
            staged.push('\n');
            let session = Session::from_bytes_numbered(path.to_path_buf(), staged.into_bytes(), 0)?;
            (Held::Owned(Box::new(session)), original, holds_object)
        }
    };
    // Every object placed as an entry must load as one: a line the loader skipped would
    // otherwise vanish from the output unreported. (The line pass and the loader read JSON
    // the same way, so this is only a safety net.)
    let mut loaded_at = vec![false; original.len()];
    for e in &session.entries {
        if let Some(l) = loaded_at.get_mut(e.line as usize) {
            *l = true;
        }
    }
    let mut unloaded: Vec<u32> = Vec::new();
    for k in 1..original.len() {
        if holds_object[k] && !loaded_at[k] && !unloaded.contains(&original[k]) {
            unloaded.push(original[k]);
            findings.push(Finding::defect(
                "unreadable-line",
                Some(original[k]),
                "an object pi-session cannot read as an entry",
                "drop it (kept in the .rejects file)",
            ));
        }
    }
    if let Held::Owned(session) = &mut session {
        for e in &mut session.entries {
            e.line = original.get(e.line as usize).copied().unwrap_or(e.line);
        }
    }
    drop(loaded_at);
    drop(holds_object);
    drop(original);

    let format = session.header.format();
    if format < 3 {
        findings.push(Finding::defect(
            "old-format",
            Some(session.header.line.max(1)),
            format!(
                "session format v{format}{}; Pi migrates and rewrites such files when it opens them",
                if format == 1 {
                    " (no ids, compactions by line index)"
                } else {
                    " (hookMessage roles)"
                }
            ),
            if format == 1 {
                "migrate it to v3 as Pi does, with the ids pi-session shows (from line numbers)"
            } else {
                "migrate it to v3 as Pi does (hookMessage roles become custom)"
            },
        ));
    }
    let decisions = decide(&session, findings);
    if findings.is_empty() || !build {
        return Ok(Pass {
            output: Vec::new(),
            rejects: Vec::new(),
            session,
        });
    }

    let mut out = String::with_capacity(data.len() + 64);
    let mut header = placed.header.clone();
    if format < 3 {
        let f = fields(&header).unwrap_or_default();
        header = edit_object(&f, &[("version".into(), "3".into())], &[]);
    }
    out.push_str(&header);
    out.push('\n');
    let mut rejected_lines: FxHashSet<u32> = FxHashSet::default();
    for l in &lines {
        if l.changed() && !l.raw.is_empty() && !(l.objects.is_empty() && l.raw.iter().all(|&b| b == b' ' || b == b'\t'))
        {
            rejected_lines.insert(l.number);
        }
    }
    rejected_lines.extend(&placed.dropped_lines);
    rejected_lines.extend(&unloaded);
    if placed.header_changed
        && let Some(line) = placed.header_source_line
    {
        rejected_lines.insert(line);
    }
    for i in 0..session.entries.len() {
        let e = &session.entries[i];
        if !decisions.keep[i] {
            rejected_lines.insert(e.line);
            continue;
        }
        let (text, structural) = entry_text(&session, &decisions, i, format);
        if structural {
            rejected_lines.insert(e.line);
        }
        out.push_str(&text);
        out.push('\n');
    }
    let rejects = lines
        .iter()
        .filter(|l| rejected_lines.contains(&l.number))
        .map(|l: &LineState| l.raw.to_vec())
        .collect();
    Ok(Pass {
        output: out.into_bytes(),
        rejects,
        session,
    })
}

/// The repaired text of a kept entry, and whether it changed for a reason other than the
/// version migration.
fn entry_text(session: &Session, d: &Decisions, i: usize, format: u32) -> (String, bool) {
    let e = &session.entries[i];
    let raw = String::from_utf8_lossy(session.raw(i)).into_owned();
    let mut set: Vec<(String, String)> = Vec::new();
    let mut remove: Vec<&str> = Vec::new();
    let mut structural = false;
    let json = |s: &str| serde_json::to_string(s).expect("string");

    let desired_parent = match d.parent[i] {
        Parent::Root => None,
        Parent::Entry(j) => d.id_of(session, j),
    };
    if format < 2 {
        // Pi's v1 migration: every entry gets an id and its predecessor as parent.
        let id = d.id_of(session, i).expect("v1 ids are synthesized");
        set.push(("id".into(), json(id)));
        set.push((
            "parentId".into(),
            desired_parent.map(json).unwrap_or_else(|| "null".into()),
        ));
        structural |= d.new_id[i].is_some();
        if e.kind == EntryKind::Compaction {
            remove.push("firstKeptEntryIndex");
        }
    } else {
        if let Some(id) = &d.new_id[i] {
            set.push(("id".into(), json(id)));
            structural = true;
        }
        if session.parent_id_str(i) != desired_parent {
            set.push((
                "parentId".into(),
                desired_parent.map(json).unwrap_or_else(|| "null".into()),
            ));
            structural = true;
        }
    }
    if let Detail::Compaction { first_kept, .. } = &e.detail {
        if d.retarget_first_kept.contains(&i) {
            let own = d.id_of(session, i).expect("kept entries have ids");
            set.push(("firstKeptEntryId".into(), json(own)));
            structural = true;
        } else if format < 2
            && let Some(f) = first_kept
        {
            set.push(("firstKeptEntryId".into(), json(session.ids().name(*f))));
        }
    }
    if format < 3 && e.kind == EntryKind::Message {
        // Pi's v2 migration: the hookMessage role is now `custom`.
        if let Some(f) = fields(&raw)
            && let Some((_, message)) = f.iter().find(|(k, _)| k == "message")
            && let Some(mf) = fields(message.get())
            && mf
                .iter()
                .any(|(k, v)| k == "role" && v.get().trim() == "\"hookMessage\"")
        {
            let new_message = edit_object(&mf, &[("role".into(), "\"custom\"".into())], &[]);
            set.push(("message".into(), new_message));
        }
    }
    if set.is_empty() && remove.is_empty() {
        return (raw, false);
    }
    // A line whose keys cannot be read one by one (e.g. a lone surrogate escape in a key)
    // stays as it is: repair then cannot settle and writes nothing, rather than lose fields.
    let Some(f) = fields(&raw) else { return (raw, false) };
    (edit_object(&f, &set, &remove), structural)
}
