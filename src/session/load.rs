//! Loading a file as Pi 1.6.0 does (`loadEntriesFromFile` and the in-memory migrations),
//! while recording what Pi skips silently so commands can report it.

use super::entry::{Detail, Entry, EntryKind, IdTable, Role, Shared, Sym, ToolCalls, Tools};
use super::io::data::Data;
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

/// A line of a chunk that is not an entry, or a session line.
enum Event<'a> {
    Blank,
    /// Not JSON, or JSON but not an object; `end` is where the line ends.
    Unreadable {
        end: usize,
    },
    /// JSON, not an object, and true to JavaScript (`42`, `"x"`, `[]`): Pi keeps it as an
    /// entry, so before the header it refuses the file.
    TruthyValue,
    /// A `session` line: the file's header if it comes first, else ignored.
    Session {
        skim: Box<Skim<'a>>,
        start: usize,
        end: usize,
    },
}

/// A line of a chunk that is not an entry, and where it comes among the chunk's lines and
/// entries.
struct Mark<'a> {
    /// The line's index in its chunk.
    line: u32,
    /// How many of the chunk's entries come before it.
    entries_before: u32,
    event: Event<'a>,
}

/// Files larger than this are classified on every core.
const PARALLEL_THRESHOLD: usize = 8 << 20;

/// Where an id's text is in its chunk's [`IdTexts`] ([`IdText::NONE`]: no id).
#[derive(Clone, Copy)]
struct IdText {
    start: u32,
    end: u32,
}

impl IdText {
    const NONE: IdText = IdText {
        start: u32::MAX,
        end: 0,
    };
}

/// The ids of a chunk's entry, waiting to be interned in file order: the entry's `id` and
/// `parent`, and the id its detail refers to (a label's or context edit's target, a
/// compaction's first kept entry).
#[derive(Clone, Copy)]
struct Refs {
    id: IdText,
    parent: IdText,
    target: IdText,
}

/// The id texts of a chunk's entries, one after another.
#[derive(Default)]
struct IdTexts(String);

impl IdTexts {
    fn keep(&mut self, s: Option<&str>) -> IdText {
        let Some(s) = s else { return IdText::NONE };
        let start = self.0.len() as u32;
        self.0.push_str(s);
        IdText {
            start,
            end: self.0.len() as u32,
        }
    }

    fn get(&self, t: IdText) -> Option<&str> {
        (t.start != u32::MAX).then(|| &self.0[t.start as usize..t.end as usize])
    }
}

/// The lines of one chunk of the file, classified. Entries are built on the worker, in the
/// form the session keeps (their ids not yet interned, their `line` counted from the
/// chunk's first line), so that the loading thread only interns ids and appends them all at
/// once; the few other lines are [`Mark`]s among them.
#[derive(Default)]
struct Chunk<'a> {
    entries: Vec<Entry>,
    /// The ids of each of `entries`.
    refs: Vec<Refs>,
    marks: Vec<Mark<'a>>,
    /// `firstKeptEntryIndex` of format 1 compactions, by index in `entries`.
    first_kept_index: Vec<(u32, f64)>,
    ids: IdTexts,
    /// Physical lines in the chunk.
    lines: u32,
    /// Entry and session lines ending in `\r`, and needing U+FFFD replacements.
    crlf: u32,
    invalid_utf8: u32,
}

impl Chunk<'_> {
    /// Empties the chunk, keeping its room for the next one.
    fn clear(&mut self) {
        self.entries.clear();
        self.refs.clear();
        self.marks.clear();
        self.first_kept_index.clear();
        self.ids.0.clear();
        self.lines = 0;
        self.crlf = 0;
        self.invalid_utf8 = 0;
    }
}

/// A guess at the lines of `bytes` bytes of a session, on the high side: real sessions
/// average 1 to 2.5 KB a line. Vectors sized by it are filled without being copied as they
/// grow (room not used is never touched, so it costs no memory).
fn lines_in(bytes: usize) -> usize {
    bytes / 1024
}

/// Classifies the lines of `data[from..to]` into `chunk` (a spare one, emptied, or new).
fn classify_range<'a>(data: &'a [u8], from: usize, to: usize, chunk: Option<Chunk<'a>>) -> Chunk<'a> {
    let mut chunk = match chunk {
        Some(mut c) => {
            c.clear();
            c
        }
        None => Chunk {
            entries: Vec::with_capacity(lines_in(to - from)),
            refs: Vec::with_capacity(lines_in(to - from)),
            ..Chunk::default()
        },
    };
    let mut shared = SharedStrings::default();
    // One skim, filled again for each line.
    let mut skim = Skim::default();
    let mut pos = from;
    let mut line: u32 = 0;
    while pos < to {
        let end = memchr::memchr(b'\n', &data[pos..to]).map_or(to, |i| pos + i);
        let bytes = &data[pos..end];
        let event = if crate::json::jsstr::is_blank(bytes) {
            Some(Event::Blank)
        } else if skim::read_line_fast(bytes, &mut skim) {
            // Most lines: the entry is built straight from the skim, never boxed.
            if skim.kind.as_deref() == Some("session") {
                Some(Event::Session {
                    skim: Box::new(std::mem::take(&mut skim)),
                    start: pos,
                    end,
                })
            } else {
                pending(&mut chunk, &mut shared, &mut skim, pos as u64, end as u64, line);
                None
            }
        } else {
            match skim::read_line_slowly(bytes) {
                LineRead::Object(skim) if skim.kind.as_deref() == Some("session") => {
                    Some(Event::Session { skim, start: pos, end })
                }
                LineRead::Object(mut skim) => {
                    pending(&mut chunk, &mut shared, &mut skim, pos as u64, end as u64, line);
                    None
                }
                LineRead::NotAnObject if skim::truthy_non_object(bytes) => Some(Event::TruthyValue),
                LineRead::NotAnObject | LineRead::Malformed => Some(Event::Unreadable { end }),
            }
        };
        // Entry and session lines (`None`: an entry) count their `\r`s.
        if matches!(event, None | Some(Event::Session { .. })) {
            chunk.crlf += u32::from(bytes.last() == Some(&b'\r'));
        }
        if let Some(event) = event {
            if let Event::Session { skim, .. } = &event {
                chunk.invalid_utf8 += u32::from(skim.lossy);
            }
            chunk.marks.push(Mark {
                line,
                entries_before: chunk.entries.len() as u32,
                event,
            });
        }
        line += 1;
        pos = end + 1;
    }
    chunk.lines = line;
    chunk
}

/// Lines are classified this many bytes at a time, on every core, while the loading thread
/// interns the chunks already done, in order; the skims of a large file are never all held
/// at once.
const CHUNK: usize = 2 << 20;

/// Classifies every line of `data`, a chunk at a time, and hands the chunks to `each` in file
/// order. Large inputs are classified on worker threads while `each` runs on the calling
/// thread; when `each` fails, the workers stop. `each` may take the chunk's entries; what it
/// leaves is room for a later chunk.
///
/// `release` is called with each chunk of a large input once it is classified, so that the
/// mapped pages of a large file need not all stay resident.
fn for_each_chunk<'a, E>(
    data: &'a [u8],
    sizes: Sizes,
    release: &(impl Fn(usize, usize) + Sync),
    mut each: impl FnMut(&mut Chunk<'a>) -> Result<(), E>,
) -> Result<(), E> {
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get()).min(16);
    let threads = threads.max(sizes.min_threads);
    let parallel = data.len() >= sizes.parallel_from && threads >= 2;
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
    // failing `each` stops the workers. A chunk handed on comes back as room for another.
    crate::parallel::map_in_order_on(
        if parallel { threads } else { 1 },
        bounds.len() - 1,
        |k, spare| {
            let chunk = classify_range(data, bounds[k], bounds[k + 1], spare);
            if parallel {
                release(bounds[k], bounds[k + 1]);
            }
            chunk
        },
        |mut chunk| {
            each(&mut chunk)?;
            Ok(Some(chunk))
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
    // The id of the last entry interned.
    let mut prev_id = None;
    // The number of the line before the chunk at hand.
    let mut line_no: u32 = first_line.wrapping_sub(1);
    for_each_chunk(
        &data,
        sizes,
        &|from, to| data.release(from, to),
        |chunk| -> Result<(), SessionError> {
            let base = line_no;
            let number = |line: u32| base.wrapping_add(line).wrapping_add(1);
            // Where the chunk's entries go in `entries`.
            let first = entries.len();
            // The chunk's entries `from..to` come next in file order: before the header they
            // refuse the file; a format 1 file remembers which parsed line each became.
            let run = |from: usize, to: usize, header: &Option<Header>, v1: bool, parsed: &mut Vec<Option<usize>>| {
                if from == to {
                    return Ok(());
                }
                if header.is_none() {
                    let e = &chunk.entries[from];
                    let reason = format!(
                        "line {} should be a session header (\"type\":\"session\"), but its type is {}",
                        number(e.line),
                        e.kind
                            .as_str()
                            .map(|k| format!("\"{k}\""))
                            .unwrap_or_else(|| "missing".into())
                    );
                    return Err(SessionError::NotASession {
                        path: path.clone(),
                        reason,
                    });
                }
                if v1 {
                    parsed.extend((first + from..first + to).map(Some));
                }
                Ok(())
            };
            let mut done = 0;
            for mark in chunk.marks.drain(..) {
                let at = mark.entries_before as usize;
                run(done, at, &header, v1, &mut parsed)?;
                done = at;
                let line_no = number(mark.line);
                let (skim, start, stop) = match mark.event {
                    Event::Blank => {
                        report.blank_lines += 1;
                        continue;
                    }
                    Event::Unreadable { end } => {
                        report.malformed_lines.push(line_no);
                        if end == len {
                            report.torn_last_line = true;
                        }
                        continue;
                    }
                    Event::TruthyValue if header.is_none() => {
                        let reason = format!(
                            "line {line_no} is a JSON value that is not an object where the session header should be; Pi refuses such a file"
                        );
                        return Err(SessionError::NotASession {
                            path: path.clone(),
                            reason,
                        });
                    }
                    Event::TruthyValue => {
                        report.malformed_lines.push(line_no);
                        continue;
                    }
                    Event::Session { skim, start, end } => (skim, start as u64, end as u64),
                };
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
                            continue;
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
            }
            run(done, chunk.entries.len(), &header, v1, &mut parsed)?;
            report.crlf_lines += chunk.crlf;
            report.invalid_utf8_lines += chunk.invalid_utf8;
            v1_first_kept_index.extend(
                chunk
                    .first_kept_index
                    .iter()
                    .map(|&(i, index)| (first + i as usize, index)),
            );
            for (e, refs) in chunk.entries.iter_mut().zip(&chunk.refs) {
                e.line = number(e.line);
                intern(&mut ids, &chunk.ids, e, refs, &mut prev_id);
            }
            let n = chunk.entries.len();
            if entries.len() + n > entries.capacity() {
                // Grow to the count the file so far predicts (a little over), not to double:
                // the index of a large file is its largest allocation.
                let end = chunk.entries.last().map_or(len, |e| e.end as usize);
                let predicted = ((entries.len() + n) as u64 * len as u64 / (end as u64).max(1)) as usize;
                let want = (predicted + predicted / 16 + 64).max(entries.len() + n + 64);
                entries.reserve_exact(want - entries.len());
            }
            // One copy of the chunk's entries, its room kept for a later chunk.
            entries.append(&mut chunk.entries);
            line_no = base.wrapping_add(chunk.lines);
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
                    .map(crate::json::jsstr::trim)
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
    fn get(&mut self, s: Option<&str>) -> Option<Shared> {
        let s = s?;
        if let Some(v) = self.0.get(s) {
            return Some(v.clone());
        }
        let v: Shared = Shared::from(s);
        // Bounded: a file of all-distinct values should not build a second copy of them.
        if self.0.len() < 4096 {
            self.0.insert(s.into(), v.clone());
        }
        Some(v)
    }
}

/// Builds the entry of a skimmed line into `chunk`, all but its interned ids; its `line`
/// is `line`, its index in the chunk.
fn pending(chunk: &mut Chunk<'_>, shared: &mut SharedStrings, s: &mut Skim<'_>, start: u64, end: u64, line: u32) {
    let kind = EntryKind::parse(s.kind.as_deref());
    let b = |c: &Option<Cow<'_, str>>| c.as_deref().map(Box::<str>::from);
    let mut target = None;
    let detail = match kind {
        EntryKind::Message => match &mut s.message {
            Some(m) => {
                let role = m.role.as_deref().map(Role::parse);
                let tools = match &role {
                    Some(Role::Assistant) => Tools::Calls(Box::new(ToolCalls {
                        ids: m.tool_calls.drain(..).map(Into::into).collect(),
                        names: m
                            .tool_names
                            .drain(..)
                            .map(|n| shared.get(Some(&n)).expect("a name"))
                            .collect(),
                    })),
                    Some(Role::ToolResult) => Tools::ResultOf(m.tool_call_id.as_deref().unwrap_or("").into()),
                    _ => Tools::None,
                };
                Detail::Message {
                    role,
                    provider: shared.get(m.provider.as_deref()),
                    model: shared.get(m.model.as_deref()),
                    tools,
                    response_model: shared.get(m.response_model.as_deref()),
                    at: m.at,
                }
            }
            None => Detail::Message {
                role: None,
                provider: None,
                model: None,
                tools: Tools::None,
                response_model: None,
                at: None,
            },
        },
        EntryKind::Label => {
            target = s.target_id.as_deref();
            Detail::Label {
                target: None,
                label: b(&s.label),
            }
        }
        EntryKind::Custom | EntryKind::CustomMessage => Detail::Custom {
            custom_type: b(&s.custom_type),
        },
        EntryKind::Compaction => {
            target = s.first_kept_entry_id.as_deref();
            Detail::Compaction {
                first_kept: None,
                tokens_before: s.tokens_before,
            }
        }
        EntryKind::BranchSummary => Detail::BranchSummary { from: b(&s.from_id) },
        EntryKind::SessionInfo => Detail::SessionInfo { name: b(&s.name) },
        EntryKind::ContextEdit => {
            target = s.target_id.as_deref();
            Detail::ContextEdit { target: None }
        }
        EntryKind::ModelChange => Detail::ModelChange {
            provider: shared.get(s.provider.as_deref()),
            model_id: shared.get(s.model_id.as_deref()),
        },
        EntryKind::ThinkingLevelChange => Detail::ThinkingLevel {
            level: b(&s.thinking_level),
        },
        _ => Detail::None,
    };
    if let Some(index) = s.first_kept_entry_index {
        chunk.first_kept_index.push((chunk.entries.len() as u32, index));
    }
    chunk.invalid_utf8 += u32::from(s.lossy);
    let ids = &mut chunk.ids;
    chunk.refs.push(Refs {
        id: ids.keep(s.id.as_deref()),
        parent: ids.keep(s.parent_id.as_deref()),
        target: ids.keep(target),
    });
    chunk.entries.push(Entry {
        line,
        start,
        end,
        kind,
        id: None,
        parent: None,
        timestamp: b(&s.timestamp),
        detail,
    });
}

/// Interns the ids of a chunk's entry (in file order, so symbols are numbered as before).
/// `prev` is the id of the entry before (updated): most entries' parent is that entry, which
/// is then told by one comparison of texts just written, not a lookup in the whole table.
fn intern(ids: &mut IdTable, id_texts: &IdTexts, e: &mut Entry, refs: &Refs, prev: &mut Option<Sym>) {
    e.id = id_texts.get(refs.id).map(|t| ids.intern(t));
    // JavaScript treats an empty parentId as no parent (`parentId ? … : undefined`).
    let mut sym = |t: IdText| {
        let c = id_texts.get(t).filter(|c| !c.is_empty())?;
        Some(match *prev {
            Some(p) if ids.name(p) == c => p,
            _ => ids.intern(c),
        })
    };
    // Symbols are numbered in the order ids are met: the detail's target before the parent.
    match &mut e.detail {
        Detail::Label { target, .. } | Detail::ContextEdit { target } => *target = sym(refs.target),
        Detail::Compaction { first_kept, .. } => *first_kept = sym(refs.target),
        _ => {}
    }
    e.parent = sym(refs.parent);
    *prev = e.id;
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
        // Chunks classified on 3 threads, and one after another on the calling thread.
        for (chunk, parallel_from, min_threads) in [(1, 0, 3), (100, 0, 3), (4096, 0, 3), (100, usize::MAX, 1)] {
            let sizes = Sizes {
                parallel_from,
                chunk,
                min_threads,
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
