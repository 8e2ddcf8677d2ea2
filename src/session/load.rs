//! Loading a file as Pi 1.6.0 does (`loadEntriesFromFile` and the in-memory migrations),
//! while recording what Pi skips silently so commands can report it.

use super::data::Data;
use super::entry::{Detail, Entry, EntryKind, IdTable, Role, Shared, Sym, Tools};
use super::skim::{self, LineRead, Skim};
use super::{Header, LabelState, Session, SessionError};
use rustc_hash::FxHashMap;
use std::borrow::Cow;
use std::path::PathBuf;

/// What loading skipped or noticed. Pi skips all of this without a word.
#[derive(Debug, Default, Clone)]
pub struct LoadReport {
    /// Lines that are not JSON, or JSON but not an object (1-based).
    pub malformed_lines: Vec<u32>,
    /// The last line has no `\n` and does not parse: a write torn by a crash.
    pub torn_last_line: bool,
    /// The last line has no `\n` (whether or not it parses).
    pub missing_final_newline: bool,
    /// `session` lines after the header; Pi ignores them.
    pub extra_headers: Vec<u32>,
    /// Blank (whitespace-only) lines.
    pub blank_lines: u32,
    /// The format version the file was migrated from in memory (1 or 2), if any.
    pub migrated_from: Option<u32>,
    /// Entry lines ending in `\r` (CRLF files): Pi reads them, `repair` normalizes them.
    pub crlf_lines: u32,
    /// Lines whose kept fields needed U+FFFD replacements. (Invalid bytes elsewhere in a
    /// line are not looked for while loading: see [`crate::session::Session::is_valid_utf8`].)
    pub invalid_utf8_lines: u32,
}

impl LoadReport {
    /// Nothing at the level of lines that `repair` would change.
    pub fn lines_clean(&self) -> bool {
        self.malformed_lines.is_empty()
            && !self.missing_final_newline
            && self.extra_headers.is_empty()
            && self.blank_lines == 0
            && self.migrated_from.is_none()
            && self.crlf_lines == 0
            && self.invalid_utf8_lines == 0
    }
}

impl LoadReport {
    /// Lines Pi skips that a user should hear about.
    pub fn skipped_lines(&self) -> &[u32] {
        &self.malformed_lines
    }
}

/// One physical line, classified (in parallel for large files).
// Entries are most lines: boxing them would cost an allocation per line.
#[allow(clippy::large_enum_variant)]
enum Line<'a> {
    Blank,
    Unreadable,
    /// JSON, not an object, and true to JavaScript (`42`, `"x"`, `[]`): Pi keeps it as an
    /// entry, so before the header it refuses the file.
    TruthyValue,
    /// A `session` line: the file's header if it comes first, else ignored.
    Session(Box<Skim<'a>>),
    /// An entry, built on the worker thread; its ids are interned in file order afterwards.
    Entry(Pending),
}

/// An entry built while classifying, waiting for its ids to be interned: the entry's `id`,
/// `parent`, line number and the symbol in its detail are filled in by [`load`].
/// Its id texts are copied into the chunk's [`IdTexts`], so that interning them does not
/// touch the file's pages again.
struct Pending {
    entry: Entry,
    id: Option<IdText>,
    parent: Option<IdText>,
    /// The id the detail refers to: a label's or context edit's target, a compaction's first
    /// kept entry.
    target: Option<IdText>,
    /// `firstKeptEntryIndex` of a format 1 compaction.
    first_kept_entry_index: Option<f64>,
}

struct Classified<'a> {
    start: usize,
    end: usize,
    line: Line<'a>,
    crlf: bool,
    invalid_utf8: bool,
}

/// Files larger than this are classified on every core.
const PARALLEL_THRESHOLD: usize = 8 << 20;

/// Where an id's text is in its chunk's [`IdTexts`].
#[derive(Clone, Copy)]
struct IdText {
    start: u32,
    end: u32,
}

/// The id texts of a chunk's entries, one after another.
#[derive(Default)]
struct IdTexts(String);

impl IdTexts {
    fn keep(&mut self, s: Option<Cow<'_, str>>) -> Option<IdText> {
        let s = s?;
        let start = self.0.len() as u32;
        self.0.push_str(&s);
        Some(IdText {
            start,
            end: self.0.len() as u32,
        })
    }

    fn get(&self, t: IdText) -> &str {
        &self.0[t.start as usize..t.end as usize]
    }
}

/// The lines of one chunk of the file, classified.
struct Chunk<'a> {
    lines: Vec<Classified<'a>>,
    ids: IdTexts,
}

/// A guess at the lines of `bytes` bytes of a session, on the high side: real sessions
/// average 1 to 2.5 KB a line. Vectors sized by it are filled without being copied as they
/// grow (room not used is never touched, so it costs no memory).
fn lines_in(bytes: usize) -> usize {
    bytes / 1024
}

fn classify_range(data: &[u8], from: usize, to: usize) -> Chunk<'_> {
    let mut out = Vec::with_capacity(lines_in(to - from));
    let mut ids = IdTexts::default();
    let mut shared = SharedStrings::default();
    let mut pos = from;
    while pos < to {
        let end = memchr::memchr(b'\n', &data[pos..to]).map_or(to, |i| pos + i);
        let bytes = &data[pos..end];
        let line = if super::jsstr::is_blank(bytes) {
            Line::Blank
        } else if let Some(skim) = skim::read_line_fast(bytes) {
            // Most lines: the entry is built straight from the skim, never boxed.
            if skim.kind.as_deref() == Some("session") {
                Line::Session(Box::new(skim))
            } else {
                Line::Entry(pending(&mut shared, &mut ids, skim, pos as u64, end as u64))
            }
        } else {
            match skim::read_line_slowly(bytes) {
                LineRead::Object(skim) if skim.kind.as_deref() == Some("session") => Line::Session(skim),
                LineRead::Object(skim) => Line::Entry(pending(&mut shared, &mut ids, *skim, pos as u64, end as u64)),
                LineRead::NotAnObject if skim::truthy_non_object(bytes) => Line::TruthyValue,
                LineRead::NotAnObject | LineRead::Malformed => Line::Unreadable,
            }
        };
        let crlf = bytes.last() == Some(&b'\r');
        let invalid_utf8 = match &line {
            Line::Session(s) => s.lossy,
            Line::Entry(p) => p.lossy(),
            _ => false,
        };
        out.push(Classified {
            start: pos,
            end,
            line,
            crlf,
            invalid_utf8,
        });
        pos = end + 1;
    }
    Chunk { lines: out, ids }
}

/// Lines are classified this many bytes at a time, on every core, while the loading thread
/// interns the chunks already done, in order; the skims of a large file are never all held
/// at once.
const CHUNK: usize = 2 << 20;

/// Classifies every line of `data` and hands the lines to `each` in file order. Large inputs
/// are classified in chunks on worker threads while `each` runs on the calling thread; when
/// `each` fails, the workers stop.
///
/// `release` is called with each chunk once it is classified, so that the mapped pages of a
/// large file need not all stay resident.
fn for_each_line<'a, E>(
    data: &'a [u8],
    sizes: Sizes,
    release: &(impl Fn(usize, usize) + Sync),
    mut each: impl FnMut(Classified<'a>, &IdTexts) -> Result<(), E>,
) -> Result<(), E> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(16);
    let threads = threads.max(sizes.min_threads);
    if data.len() < sizes.parallel_from || threads < 2 {
        let chunk = classify_range(data, 0, data.len());
        return chunk.lines.into_iter().try_for_each(|c| each(c, &chunk.ids));
    }
    // Chunk boundaries, each just after a newline.
    let mut bounds = vec![0];
    let mut at = 0;
    while at < data.len() {
        let guess = at + sizes.chunk;
        at = if guess >= data.len() {
            data.len()
        } else {
            memchr::memchr(b'\n', &data[guess..]).map_or(data.len(), |i| guess + i + 1)
        };
        bounds.push(at);
    }
    // Chunks are classified in any order on the workers and handed on in file order; a
    // failing `each` stops the workers.
    crate::parallel::map_in_order_on(
        threads,
        bounds.len() - 1,
        |k, _| {
            let chunk = classify_range(data, bounds[k], bounds[k + 1]);
            release(bounds[k], bounds[k + 1]);
            chunk
        },
        |chunk| {
            for line in chunk.lines {
                each(line, &chunk.ids)?;
            }
            Ok(None)
        },
    )
}

/// Loads `data`; its first physical line gets number `first_line` (1 for a file as it is).
/// How a file is split for loading on several threads.
#[derive(Clone, Copy)]
struct Sizes {
    /// Files at least this large are classified on worker threads.
    parallel_from: usize,
    chunk: usize,
    /// Workers to use even on a machine with fewer cores (for tests).
    min_threads: usize,
}

impl Sizes {
    const DEFAULT: Sizes = Sizes {
        parallel_from: PARALLEL_THRESHOLD,
        chunk: CHUNK,
        min_threads: 1,
    };
}

/// Loads `data`; its first physical line gets number `first_line` (1 for a file as it is).
pub(super) fn load(path: PathBuf, data: Data, first_line: u32) -> Result<Session, SessionError> {
    load_sized(path, data, first_line, Sizes::DEFAULT)
}

fn load_sized(path: PathBuf, data: Data, first_line: u32, sizes: Sizes) -> Result<Session, SessionError> {
    let mut report = LoadReport::default();
    let mut ids = IdTable::with_capacity(lines_in(data.len()));
    let mut entries: Vec<Entry> = Vec::with_capacity(lines_in(data.len()));
    let mut header: Option<Header> = None;
    // Pi's v1 migration resolves `firstKeptEntryIndex` against the array of parsed lines
    // (header included), so remember which entry each parsed line became.
    // (Only format 1 files need it; the header, which comes first, says.)
    let mut parsed: Vec<Option<usize>> = Vec::new();
    let mut v1 = false;
    let mut v1_first_kept_index: Vec<(usize, f64)> = Vec::new();

    let len = data.len();
    report.missing_final_newline = len > 0 && data[len - 1] != b'\n';
    let mut line_no: u32 = first_line.wrapping_sub(1);
    for_each_line(
        &data,
        sizes,
        &|from, to| data.release(from, to),
        |c, id_texts| -> Result<(), SessionError> {
            line_no = line_no.wrapping_add(1);
            let (start, stop) = (c.start as u64, c.end as u64);
            let end = c.end;
            let skim = match c.line {
                Line::Blank => {
                    report.blank_lines += 1;
                    return Ok(());
                }
                Line::Unreadable => {
                    report.malformed_lines.push(line_no);
                    if end == len {
                        report.torn_last_line = true;
                    }
                    return Ok(());
                }
                Line::TruthyValue if header.is_none() => {
                    let reason = format!(
                        "line {line_no} is a JSON value that is not an object where the session header should be; Pi refuses such a file"
                    );
                    return Err(SessionError::NotASession {
                        path: path.clone(),
                        reason,
                    });
                }
                Line::TruthyValue => {
                    report.malformed_lines.push(line_no);
                    return Ok(());
                }
                Line::Session(skim) => skim,
                Line::Entry(p) => {
                    report.crlf_lines += u32::from(c.crlf);
                    report.invalid_utf8_lines += u32::from(c.invalid_utf8);
                    if header.is_none() {
                        let reason = format!(
                            "line {line_no} should be a session header (\"type\":\"session\"), but its type is {}",
                            p.entry
                                .kind
                                .as_str()
                                .map(|k| format!("\"{k}\""))
                                .unwrap_or_else(|| "missing".into())
                        );
                        return Err(SessionError::NotASession {
                            path: path.clone(),
                            reason,
                        });
                    }
                    if let Some(index) = p.first_kept_entry_index {
                        v1_first_kept_index.push((entries.len(), index));
                    }
                    if v1 {
                        parsed.push(Some(entries.len()));
                    }
                    if entries.len() == entries.capacity() {
                        // Grow to the count the file so far predicts (a little over), not
                        // to double: the index of a large file is its largest allocation.
                        let predicted = (entries.len() as u64 * len as u64 / (end as u64).max(1)) as usize;
                        let want = (predicted + predicted / 16 + 64).max(entries.len() + 64);
                        entries.reserve_exact(want - entries.len());
                    }
                    entries.push(intern(&mut ids, id_texts, p, line_no));
                    return Ok(());
                }
            };
            report.crlf_lines += u32::from(c.crlf);
            report.invalid_utf8_lines += u32::from(c.invalid_utf8);
            if header.is_none() {
                match &skim.id {
                    Some(id) => {
                        header = Some(Header {
                            line: line_no,
                            start,
                            end: stop,
                            id: id.to_string(),
                            version: skim.version,
                            cwd: skim.cwd.as_deref().map(Into::into),
                            timestamp: skim.timestamp.as_deref().map(Into::into),
                            parent_session: skim.parent_session.as_deref().map(Into::into),
                        });
                        v1 = header.as_ref().is_some_and(|h| h.format() < 2);
                        if v1 {
                            parsed.push(None);
                        }
                        return Ok(());
                    }
                    None => {
                        let reason = format!("the header on line {line_no} has no string id");
                        return Err(SessionError::NotASession {
                            path: path.clone(),
                            reason,
                        });
                    }
                }
            }
            report.extra_headers.push(line_no);
            if v1 {
                parsed.push(None);
            }
            Ok(())
        },
    )?;

    let Some(header) = header else {
        let reason = if report.malformed_lines.is_empty() {
            "the file has no entries".to_string()
        } else {
            "no line of it is a JSON object".to_string()
        };
        return Err(SessionError::NotJsonLines { path, reason });
    };

    let format = header.format();
    if format < 3 {
        report.migrated_from = Some(format);
    }
    if format < 2 {
        migrate_v1(&mut ids, &mut entries, &parsed, &v1_first_kept_index);
    }
    if format < 3 {
        for e in &mut entries {
            if let Detail::Message {
                role: role @ Some(Role::Other(_)),
                ..
            } = &mut e.detail
                && role.as_ref().map(Role::as_str) == Some("hookMessage")
            {
                *role = Some(Role::Custom);
            }
        }
    }

    // The spare room of `entries` and `ids` is not shrunk away: it was never touched, so
    // it costs no memory, and shrinking would copy the entries and rehash every id.
    // Symbols are dense, so the entry of each id is a plain vector indexed by symbol.
    let mut by_id = vec![super::NO_ENTRY; ids.len()];
    let mut labels: FxHashMap<Sym, LabelState> = FxHashMap::default();
    let mut session_name = None;
    for (i, e) in entries.iter().enumerate() {
        if let Some(id) = e.id {
            by_id[id.0 as usize] = i as u32;
        }
        match &e.detail {
            Detail::Label { target: Some(t), label } => match label {
                Some(l) if !l.is_empty() => {
                    labels.insert(
                        *t,
                        LabelState {
                            label: l.clone(),
                            set_by: i,
                        },
                    );
                }
                _ => {
                    labels.remove(t);
                }
            },
            Detail::SessionInfo { name } => {
                session_name = name
                    .as_deref()
                    .map(super::jsstr::trim)
                    .filter(|n| !n.is_empty())
                    .map(Into::into);
            }
            _ => {}
        }
    }

    Ok(Session {
        path,
        data,
        header,
        entries,
        ids,
        by_id,
        labels,
        session_name,
        report,
        tail_from: None,
    })
}

/// Strings that repeat across entries (providers, models), each allocated once.
#[derive(Default)]
struct SharedStrings(FxHashMap<Box<str>, Shared>);

impl SharedStrings {
    fn get(&mut self, s: Option<Cow<'_, str>>) -> Option<Shared> {
        let s = s?;
        if let Some(v) = self.0.get(&*s) {
            return Some(v.clone());
        }
        let v: Shared = Shared::from(&*s);
        // Bounded: a file of all-distinct values should not build a second copy of them.
        if self.0.len() < 4096 {
            self.0.insert(s.into(), v.clone());
        }
        Some(v)
    }
}

impl Pending {
    fn lossy(&self) -> bool {
        self.entry.line == LOSSY
    }
}

/// Marks a pending entry whose kept fields needed U+FFFD replacements (its line number is
/// set later, so the field is free until then).
const LOSSY: u32 = u32::MAX;

/// Builds the entry of a skimmed line, all but its interned ids.
fn pending(shared: &mut SharedStrings, id_texts: &mut IdTexts, s: Skim<'_>, start: u64, end: u64) -> Pending {
    let kind = EntryKind::parse(s.kind.as_deref());
    let b = |c: Option<Cow<'_, str>>| c.map(|c| Box::<str>::from(&*c));
    let mut target = None;
    let detail = match kind {
        EntryKind::Message => {
            let m = s.message.unwrap_or_default();
            let role = m.role.as_deref().map(Role::parse);
            let tools = match &role {
                Some(Role::Assistant) => Tools::Calls(m.tool_calls.into_iter().map(Into::into).collect()),
                Some(Role::ToolResult) => Tools::ResultOf(m.tool_call_id.as_deref().unwrap_or("").into()),
                _ => Tools::None,
            };
            Detail::Message {
                role,
                provider: shared.get(m.provider),
                model: shared.get(m.model),
                tools,
                response_model: shared.get(m.response_model),
                at: m.at,
            }
        }
        EntryKind::Label => {
            target = s.target_id;
            Detail::Label {
                target: None,
                label: b(s.label),
            }
        }
        EntryKind::Custom | EntryKind::CustomMessage => Detail::Custom {
            custom_type: b(s.custom_type),
        },
        EntryKind::Compaction => {
            target = s.first_kept_entry_id;
            Detail::Compaction {
                first_kept: None,
                tokens_before: s.tokens_before,
            }
        }
        EntryKind::BranchSummary => Detail::BranchSummary { from: b(s.from_id) },
        EntryKind::SessionInfo => Detail::SessionInfo { name: b(s.name) },
        EntryKind::ContextEdit => {
            target = s.target_id;
            Detail::ContextEdit { target: None }
        }
        EntryKind::ModelChange => Detail::ModelChange {
            provider: shared.get(s.provider),
            model_id: shared.get(s.model_id),
        },
        EntryKind::ThinkingLevelChange => Detail::ThinkingLevel {
            level: b(s.thinking_level),
        },
        _ => Detail::None,
    };
    Pending {
        entry: Entry {
            line: if s.lossy { LOSSY } else { 0 },
            start,
            end,
            kind,
            id: None,
            parent: None,
            timestamp: b(s.timestamp),
            detail,
        },
        id: id_texts.keep(s.id),
        parent: id_texts.keep(s.parent_id),
        target: id_texts.keep(target),
        first_kept_entry_index: s.first_kept_entry_index,
    }
}

/// Interns a pending entry's ids (in file order, so symbols are numbered as before).
fn intern(ids: &mut IdTable, id_texts: &IdTexts, p: Pending, line: u32) -> Entry {
    let mut e = p.entry;
    e.line = line;
    e.id = p.id.map(|t| ids.intern(id_texts.get(t)));
    // JavaScript treats an empty parentId as no parent (`parentId ? … : undefined`).
    let mut sym = |t: Option<IdText>| {
        t.map(|t| id_texts.get(t))
            .filter(|c| !c.is_empty())
            .map(|c| ids.intern(c))
    };
    // Symbols are numbered in the order ids are met: the detail's target before the parent.
    match &mut e.detail {
        Detail::Label { target, .. } | Detail::ContextEdit { target } => *target = sym(p.target),
        Detail::Compaction { first_kept, .. } => *first_kept = sym(p.target),
        _ => {}
    }
    e.parent = sym(p.parent);
    e
}

/// Pi's v1 → v2 migration, in memory: every entry gets an id and the entries are chained in
/// file order. Pi draws random ids; ours derive from the line number (`0000002a` for line
/// 42) so that a revision printed by one command still works in the next.
fn migrate_v1(ids: &mut IdTable, entries: &mut [Entry], parsed: &[Option<usize>], first_kept_index: &[(usize, f64)]) {
    let mut prev = None;
    for e in entries.iter_mut() {
        let id = ids.intern(&synthetic_v1_id(e.line));
        e.id = Some(id);
        e.parent = prev;
        prev = Some(id);
    }
    for &(i, index) in first_kept_index {
        let target_id = |t: usize| entries_id(entries, t);
        let found = (index >= 0.0 && index.fract() == 0.0)
            .then(|| parsed.get(index as usize).copied().flatten())
            .flatten()
            .filter(|&t| t <= i)
            .map(target_id);
        if let Detail::Compaction { first_kept, .. } = &mut entries[i].detail {
            // `entries[index]` in Pi: an integer index into the parsed lines; a target after the
            // compaction has no id yet when Pi reads it, and the header has none to give. Pi
            // leaves an existing firstKeptEntryId alone when the index finds no entry.
            if let Some(t) = found {
                *first_kept = t;
            }
        }
    }
}

fn entries_id(entries: &[Entry], i: usize) -> Option<Sym> {
    entries[i].id
}

/// The id pi-session gives the entry on `line` of a v1 file.
pub fn synthetic_v1_id(line: u32) -> String {
    format!("{line:08x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file of every kind of line, loaded in one piece and in tiny chunks on 3 threads,
    /// gives the same session: same entries, ids, report.
    #[test]
    fn chunked_loading_equals_loading_in_one_piece() {
        let mut text = Vec::new();
        text.extend_from_slice(
            b"{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"t\",\"cwd\":\"/\"}\n",
        );
        for i in 0..3000u32 {
            let parent = if i == 0 {
                "null".to_string()
            } else {
                format!("\"e{}\"", i - 1)
            };
            let line = match i % 11 {
                0 => format!(
                    "{{\"type\":\"message\",\"id\":\"e{i}\",\"parentId\":{parent},\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"message\":{{\"role\":\"assistant\",\"content\":[{{\"type\":\"toolCall\",\"id\":\"c{i}\"}}],\"usage\":{{\"input\":{i}}}}}}}"
                ),
                1 => "not json".to_string(),
                2 => "   ".to_string(),
                3 => format!(
                    "{{\"type\":\"label\",\"id\":\"e{i}\",\"parentId\":{parent},\"targetId\":\"e0\",\"label\":\"l{i}\"}}\r"
                ),
                4 => "{\"type\":\"session\",\"id\":\"again\"}".to_string(),
                5 => format!(
                    "{{\"type\":\"message\",\"id\":\"e{i}\",\"parentId\":{parent},\"message\":{{\"role\":\"user\",\"content\":\"café \\ud800 {}\"}}}}",
                    "x".repeat(i as usize % 300)
                ),
                6 => format!(
                    "{{\"type\":\"compaction\",\"id\":\"e{i}\",\"parentId\":{parent},\"firstKeptEntryId\":\"e{}\",\"tokensBefore\":5}}",
                    i - 3
                ),
                _ => format!(
                    "{{\"type\":\"message\",\"id\":\"e{i}\",\"parentId\":{parent},\"message\":{{\"role\":\"toolResult\",\"toolCallId\":\"c{i}\",\"content\":\"{}\"}}}}",
                    "y\\n".repeat(i as usize % 50)
                ),
            };
            text.extend_from_slice(line.as_bytes());
            if i % 97 == 0 {
                text.extend_from_slice(b"\xff\xfe");
            }
            text.push(b'\n');
        }
        text.extend_from_slice(b"{\"type\":\"message\",\"id\":\"torn\""); // no newline
        let one = load(PathBuf::from("a"), Data::from(text.clone()), 1).unwrap();
        for chunk in [1, 100, 4096] {
            let sizes = Sizes {
                parallel_from: 0,
                chunk,
                min_threads: 3,
            };
            let many = load_sized(PathBuf::from("a"), Data::from(text.clone()), 1, sizes).unwrap();
            assert_eq!(format!("{:?}", many.entries), format!("{:?}", one.entries));
            assert_eq!(format!("{:?}", many.report), format!("{:?}", one.report));
            assert_eq!(many.ids.len(), one.ids.len());
            assert_eq!(many.by_id, one.by_id);
            assert!(one.report.malformed_lines.len() > 200 && one.report.torn_last_line);
        }
    }
}
