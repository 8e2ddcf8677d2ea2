//! The header: found, moved to the top, given an id, or made anew.

use super::finding::Finding;
use super::lines::LineState;
use crate::json::rawjson::{edit_object, fields, object_line};
use crate::session::io::append::now_timestamp;
use crate::session::skim;
use serde_json::Value;
use std::path::Path;

/// Where each object of the normalized lines goes.
pub struct Placed<'l> {
    /// The header line, first in the output.
    pub header: String,
    /// The header was rewritten or made (its original, if any, goes to the rejects).
    pub header_changed: bool,
    /// (line number, object text) of every entry, in file order.
    pub entries: Vec<(u32, &'l str)>,
    /// The header is the file's first object, unchanged, alone on its line.
    pub header_as_is: bool,
    /// Lines holding a second `session` object, dropped.
    pub dropped_lines: Vec<u32>,
    /// The line the header came from, if the file had one.
    pub header_source_line: Option<u32>,
}

/// The `type` of an object line and whether it has a string `id`, read as the loader reads
/// them (the skim).
fn kind_of(obj: &str) -> Option<(Option<String>, bool)> {
    match skim::read_line(obj.as_bytes()) {
        skim::LineRead::Object(s) => Some((s.kind.map(|k| k.into_owned()), s.id.is_some())),
        _ => None,
    }
}

/// Finds the header among the objects, moving, fixing or making it as needed.
pub fn place<'l>(path: &Path, lines: &'l [LineState<'_>], findings: &mut Vec<Finding>) -> Option<Placed<'l>> {
    // (line, object, whether it is a `session` line when the loader said so).
    let objects: Vec<(u32, &'l str, Option<bool>)> = lines
        .iter()
        .flat_map(|l| l.objects.iter().map(move |o| (l.number, &**o, l.known_session)))
        .collect();
    if objects.is_empty() {
        return None;
    }
    let is_session = |o: &str, known: Option<bool>| {
        known.unwrap_or_else(|| kind_of(o).is_some_and(|(k, _)| k.as_deref() == Some("session")))
    };
    let header_pos = objects.iter().position(|&(_, o, known)| is_session(o, known));
    let mut header_changed = false;
    let header = match header_pos {
        Some(p) => {
            let (line, obj, _) = objects[p];
            if p != 0 {
                findings.push(Finding::defect(
                    "misplaced-header",
                    Some(line),
                    format!("the session header is on line {line}, after entries; Pi refuses a file that does not start with it"),
                    "move it to the top",
                ));
            }
            let (_, has_id) = kind_of(obj).unwrap_or((None, false));
            if has_id {
                obj.to_owned()
            } else {
                header_changed = true;
                findings.push(Finding::defect(
                    "header-without-id",
                    Some(line),
                    "the session header has no string id; Pi refuses the file",
                    "give it the id from the file name, or a new one",
                ));
                let f = fields(obj)?;
                let id = serde_json::to_string(&session_id_for(path)).ok()?;
                edit_object(&f, &[("id".to_owned(), id)], &[])
            }
        }
        None => {
            header_changed = true;
            let header = synthesize(path, &objects);
            findings.push(Finding::defect(
                "missing-header",
                Some(objects[0].0),
                "no session header; Pi refuses the file",
                format!("add one: {header}"),
            ));
            header
        }
    };
    let mut entries = Vec::new();
    let mut dropped_lines = Vec::new();
    for (k, &(line, obj, known)) in objects.iter().enumerate() {
        if Some(k) == header_pos {
            continue;
        }
        if is_session(obj, known) {
            findings.push(Finding::defect(
                "extra-header",
                Some(line),
                "a second session header; Pi ignores it",
                "drop it (kept in the .rejects file)",
            ));
            dropped_lines.push(line);
            continue;
        }
        entries.push((line, obj));
    }
    let header_as_is = header_pos == Some(0)
        && !header_changed
        && lines
            .iter()
            .find(|l| l.number == objects[0].0)
            .is_some_and(LineState::read_as_is);
    Some(Placed {
        header_as_is,
        header,
        header_changed,
        header_source_line: header_pos.map(|p| objects[p].0),
        entries,
        dropped_lines,
    })
}

/// A session id for a file without one: from a Pi-style name `<timestamp>_<id>.jsonl`,
/// else a new UUID v7.
fn session_id_for(path: &Path) -> String {
    let stem = path
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    if let Some((_, id)) = stem.split_once('_') {
        let valid = !id.is_empty()
            && id
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
            && id.starts_with(|c: char| c.is_ascii_alphanumeric())
            && id.ends_with(|c: char| c.is_ascii_alphanumeric());
        if valid {
            return id.to_owned();
        }
    }
    uuid::Uuid::now_v7().to_string()
}

/// A header for a file that has none: id from the file name, timestamp from the first
/// entry, cwd from the entries themselves or from Pi's name for the session folder.
fn synthesize(path: &Path, objects: &[(u32, &str, Option<bool>)]) -> String {
    let field = |get: fn(&skim::Skim<'_>) -> Option<String>| {
        objects
            .iter()
            .find_map(|(_, o, _)| match skim::read_line(o.as_bytes()) {
                skim::LineRead::Object(s) => get(&s),
                _ => None,
            })
    };
    let timestamp = field(|s| s.timestamp.as_deref().map(str::to_owned)).unwrap_or_else(now_timestamp);
    let cwd = field(|s| s.cwd.as_deref().map(str::to_owned))
        .or_else(|| cwd_from_folder(path))
        .or_else(|| std::env::current_dir().ok().map(|d| d.to_string_lossy().into_owned()))
        .unwrap_or_default();
    object_line(vec![
        ("type", "session".into()),
        ("version", 3.into()),
        ("id", Value::from(session_id_for(path))),
        ("timestamp", Value::from(timestamp)),
        ("cwd", Value::from(cwd)),
    ])
}

/// `--home-user-proj--` → `/home/user/proj` (Pi's folder naming, read back; `-` inside a
/// directory name cannot be told from a separator, so this is a best guess).
fn cwd_from_folder(path: &Path) -> Option<String> {
    let abs = crate::session::branch_copy::absolute(path);
    let dir = abs.parent()?.file_name()?.to_string_lossy().into_owned();
    let inner = dir.strip_prefix("--")?.strip_suffix("--")?;
    Some(format!("/{}", inner.replace('-', "/")))
}
