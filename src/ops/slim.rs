//! `slim`: moving the heavy payloads the model no longer sees out of a session file, and
//! putting them back.
//!
//! A payload is one element of a message's content array: an inline image (user messages,
//! tool results, custom messages) or a tool result's text longer than a threshold. Only
//! entries outside the context Pi builds at `@` (and at the leaf) are taken by default:
//! branches off `@`'s and history a compaction replaced. Each element is replaced, in
//! place, by a text block saying what was there and where it went; every other byte of
//! the file stays. The element's exact bytes are kept in `<session>.slim/<sha256>`, so
//! [`restore_file`] puts them back byte for byte.
//!
//! Written as `repair` writes ([`crate::repair::apply::apply`]): under the lock, a temp
//! file renamed over the original, the original kept as the backup, lines Pi appended
//! meanwhile carried over. The store files are written (fsynced, renamed into place)
//! before the rewrite, so a slimmed file never names a payload that is not on disk.

use crate::json::scan::{self, RawStr, Scan, trusted};
use crate::repair::apply::apply;
use crate::repair::plan::Plan;
use crate::session::context::build_context;
use crate::session::io::temp::Temp;
use crate::session::io::write::{LockedFile, rewrite_target, write_file};
use crate::session::{EntryKind, Session, SessionError};
use sha2::{Digest, Sha256};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Tool outputs longer than this are moved out by default: well above what a tool usually
/// returns (a file read, a short command's output: a few KiB), so only the outliers that
/// make a session heavy (fetched pages, dumped logs, whole-tree listings) go.
pub const DEFAULT_MAX_OUTPUT: usize = 64 * 1024;

/// The start of every placeholder's text: how `restore` (and a reader) knows one.
const MARK: &str = "[pi-session slim: ";

/// What a payload was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Kind {
    /// An inline image block.
    Image,
    /// A tool result's text longer than the threshold.
    Output,
}

/// One payload moved out (or that would be, or was put back).
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Moved {
    /// 1-based line of the entry.
    pub line: u32,
    pub id: Option<String>,
    pub kind: Kind,
    /// Size of the payload as written in the file (the whole content block).
    pub bytes: u64,
    /// Bytes the file shrinks by (the payload less its placeholder).
    pub saved: u64,
    /// Its name in the store (not worked out by a dry run).
    pub sha256: Option<String>,
    /// Whether the entry is in the context at `@` (only with `in_context`).
    pub in_context: bool,
}

/// How to slim.
#[derive(Debug, Clone)]
pub struct Options {
    /// Tool outputs longer than this (bytes, as written) are moved.
    pub max_output: usize,
    /// Also images still in the context at `@` (the model then sees the placeholder).
    pub in_context: bool,
    /// Find what would be moved; write nothing.
    pub dry_run: bool,
    /// Rewrite a file changed in the last few seconds.
    pub force: bool,
    /// Keep the original as `<file>.bak`.
    pub keep_backup: bool,
}

/// What `slim` or `slim --restore` did to a file.
#[derive(Debug, Default)]
pub struct Outcome {
    /// The payloads moved out, or put back.
    pub moved: Vec<Moved>,
    /// Whether the file was rewritten.
    pub written: bool,
    pub backup: Option<PathBuf>,
    /// Lines appended while the file was rewritten, carried over as they were.
    pub carried_lines: usize,
    /// Where the payloads are kept.
    pub store: PathBuf,
    /// Placeholders whose payload is not in the store (restore): left as they are.
    pub missing: Vec<String>,
}

/// Where the payloads of the session at `path` are kept: `<session>.slim/`, beside the
/// file itself when `path` is a symbolic link.
pub fn store_dir(path: &Path) -> Result<PathBuf, SessionError> {
    let target = rewrite_target(path)?;
    let mut s = target.into_os_string();
    s.push(".slim");
    Ok(PathBuf::from(s))
}

/// One content block to replace: its bytes in the file and what goes there.
struct Span {
    start: usize,
    end: usize,
    replacement: Vec<u8>,
}

/// Moves the heavy payloads out of the session at `path` (nothing written on a dry run,
/// or when there is nothing to move).
pub fn slim_file(path: &Path, opts: &Options) -> Result<Outcome, SessionError> {
    let store = store_dir(path)?;
    let store_name = store
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (mut lock, session) = open(path, opts.dry_run, opts.force)?;
    // What Pi sends when it resumes (at the leaf) and where the conversation stands (@):
    // the same but for trailing bookkeeping, both kept whole.
    let mut seen = vec![false; session.entries.len()];
    for leaf in [session.leaf(), session.at()] {
        for i in build_context(&session, leaf).entries {
            seen[i] = true;
        }
    }
    let bytes = session.bytes();
    let mut spans = Vec::new();
    let mut moved = Vec::new();
    let mut payloads: Vec<(String, std::ops::Range<usize>)> = Vec::new();
    for (i, e) in session.entries.iter().enumerate() {
        if seen[i] && !opts.in_context {
            continue;
        }
        let off = e.start as usize;
        let Ok(blocks) = blocks(session.raw(i), &e.kind) else {
            continue;
        };
        for b in blocks {
            let kind = match &b.what {
                What::Image { .. } if b.role != Role::Assistant => Kind::Image,
                What::Text { len, placeholder: None }
                    if !seen[i] && b.role == Role::ToolResult && *len > opts.max_output =>
                {
                    Kind::Output
                }
                _ => continue,
            };
            let range = off + b.start..off + b.end;
            let payload = &bytes[range.clone()];
            // A dry run does not hash (the placeholder's size does not depend on it).
            let sha = if opts.dry_run {
                "0".repeat(64)
            } else {
                hex_sha256(payload)
            };
            let what = match &b.what {
                What::Image { mime } => format!("an image ({mime}, {})", crate::human::amounts::bytes(payload.len())),
                _ => format!("a tool output ({})", crate::human::amounts::bytes(payload.len())),
            };
            let text = format!("{MARK}{what} was moved out of this session to {store_name}/{sha}]");
            let replacement = placeholder_block(&text);
            moved.push(Moved {
                line: e.line,
                id: session.id_str(i).map(str::to_owned),
                kind,
                bytes: payload.len() as u64,
                saved: (payload.len() as u64).saturating_sub(replacement.len() as u64),
                sha256: (!opts.dry_run).then(|| sha.clone()),
                in_context: seen[i],
            });
            payloads.push((sha, range.clone()));
            spans.push(Span {
                start: range.start,
                end: range.end,
                replacement,
            });
        }
    }
    let mut outcome = Outcome {
        moved,
        store: store.clone(),
        ..Outcome::default()
    };
    if opts.dry_run || spans.is_empty() {
        return Ok(outcome);
    }
    let mut output = spliced(bytes, &spans);
    if !opts.in_context {
        output = same_context(&session, output)?;
    }
    let created = write_store(&store, &payloads, bytes)?;
    // On an error the file is as it was, and what was stored for it goes (`created` drops).
    let written = rewrite(&mut lock, bytes, output, opts.keep_backup)?;
    created.placed();
    outcome.written = true;
    outcome.backup = written.0;
    outcome.carried_lines = written.1;
    Ok(outcome)
}

/// Puts back every payload whose placeholder is in the session at `path`, from its store.
pub fn restore_file(path: &Path, dry_run: bool, force: bool, keep_backup: bool) -> Result<Outcome, SessionError> {
    let store = store_dir(path)?;
    let (mut lock, session) = open(path, dry_run, force)?;
    let bytes = session.bytes();
    let mut spans = Vec::new();
    let mut outcome = Outcome {
        store: store.clone(),
        ..Outcome::default()
    };
    for (i, e) in session.entries.iter().enumerate() {
        let off = e.start as usize;
        let Ok(blocks) = blocks(session.raw(i), &e.kind) else {
            continue;
        };
        for b in blocks {
            let What::Text {
                placeholder: Some(sha), ..
            } = &b.what
            else {
                continue;
            };
            let file = store.join(sha);
            let original = match std::fs::read(&file) {
                Ok(o) if hex_sha256(&o) == *sha => o,
                _ => {
                    outcome.missing.push(sha.clone());
                    continue;
                }
            };
            let kind = if is_image_block(&original) {
                Kind::Image
            } else {
                Kind::Output
            };
            let placeholder_len = (b.end - b.start) as u64;
            outcome.moved.push(Moved {
                line: e.line,
                id: session.id_str(i).map(str::to_owned),
                kind,
                bytes: original.len() as u64,
                saved: (original.len() as u64).saturating_sub(placeholder_len),
                sha256: Some(sha.clone()),
                in_context: false,
            });
            spans.push(Span {
                start: off + b.start,
                end: off + b.end,
                replacement: original,
            });
        }
    }
    if dry_run || spans.is_empty() {
        return Ok(outcome);
    }
    let (backup, carried) = rewrite(&mut lock, bytes, spliced(bytes, &spans), keep_backup)?;
    outcome.written = true;
    outcome.backup = backup;
    outcome.carried_lines = carried;
    Ok(outcome)
}

/// Deletes the payloads kept for the session at `path`: how many files, and their bytes.
/// Placeholders left in the session then name payloads that are gone for good.
pub fn drop_store(path: &Path) -> Result<(usize, u64), SessionError> {
    let store = store_dir(path)?;
    let entries = match std::fs::read_dir(&store) {
        Ok(r) => r,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok((0, 0)),
        Err(e) => return Err(SessionError::io(&store, e)),
    };
    let (mut n, mut size) = (0, 0);
    for entry in entries {
        let entry = entry.map_err(|e| SessionError::io(&store, e))?;
        // Only what slim put there: a file named by its hash.
        let name = entry.file_name();
        if !name.to_str().is_some_and(is_sha) {
            continue;
        }
        let meta = entry.metadata().map_err(|e| SessionError::io(entry.path(), e))?;
        if !meta.is_file() {
            continue;
        }
        std::fs::remove_file(entry.path()).map_err(|e| SessionError::write(entry.path(), e))?;
        n += 1;
        size += meta.len();
    }
    // Left when it holds anything else.
    let _ = std::fs::remove_dir(&store);
    Ok((n, size))
}

/// What the payloads kept for the session at `path` take: how many files, and their bytes.
pub fn store_size(path: &Path) -> Result<(usize, u64), SessionError> {
    let store = store_dir(path)?;
    let Ok(entries) = std::fs::read_dir(&store) else {
        return Ok((0, 0));
    };
    let mut n = 0;
    let mut size = 0;
    for entry in entries.flatten() {
        if entry.file_name().to_str().is_some_and(is_sha)
            && let Ok(m) = entry.metadata()
            && m.is_file()
        {
            n += 1;
            size += m.len();
        }
    }
    Ok((n, size))
}

/// Locks and loads the session for slim's rewrite (a dry run is never refused as recent).
fn open(path: &Path, dry_run: bool, force: bool) -> Result<(LockedFile, Session), SessionError> {
    crate::repair::apply::open_for_rewrite(path, dry_run, force || dry_run)
}

/// `output`, once read back, gives the same context at `@` and at the leaf as `session`:
/// what slim promises, checked before anything is written (the placeholders must never
/// reach the model unasked).
fn same_context(session: &Session, output: Vec<u8>) -> Result<Vec<u8>, SessionError> {
    let after = Session::from_bytes(session.path.clone(), output)?;
    let same = after.entries.len() == session.entries.len()
        && after.at() == session.at()
        && [session.at(), session.leaf()].into_iter().all(|leaf| {
            build_context(session, leaf)
                .messages(session)
                .map(|m| m.message)
                .eq(build_context(&after, leaf).messages(&after).map(|m| m.message))
        });
    if !same {
        return Err(SessionError::Refused(
            "slimming this file would change what the model sees (a bug: please report it); nothing was changed".into(),
        ));
    }
    Ok(after.into_bytes())
}

/// Rewrites the file with `output`: the backup (kept or removed) and the lines carried over.
fn rewrite(
    lock: &mut LockedFile,
    original: &[u8],
    output: Vec<u8>,
    keep_backup: bool,
) -> Result<(Option<PathBuf>, usize), SessionError> {
    let plan = Plan {
        findings: Vec::new(),
        output: Some(output),
        rejects: Vec::new(),
        after: None,
    };
    let applied = apply(lock, original, &plan)?.expect("a plan with output is applied");
    if applied.carried_lines == 0
        && let Some(modified) = lock.modified
    {
        // The file holds what Pi last wrote, at the time it wrote it: listings sort by that
        // time, and the next write's "changed in the last few seconds" looks at it. Best
        // effort, as for appends.
        let _ = rewrite_target(&lock.path)
            .ok()
            .and_then(|p| std::fs::OpenOptions::new().write(true).open(p).ok())
            .map(|f| f.set_modified(modified));
    }
    let backup = if keep_backup {
        Some(applied.backup)
    } else {
        std::fs::remove_file(&applied.backup).map_err(|e| SessionError::write(&applied.backup, e))?;
        None
    };
    Ok((backup, applied.carried_lines))
}

/// The store files made by one run (and its folder), removed again if the rewrite does not
/// happen: on an error when this drops, on an interrupt with the temp files.
struct Created {
    // Dropped in this order: the files, then their folder.
    files: Vec<Temp>,
    dir: Option<Temp>,
}

impl Created {
    /// The session now names them: they stay.
    fn placed(self) {
        self.files.into_iter().for_each(Temp::placed);
        if let Some(d) = self.dir {
            d.placed();
        }
    }
}

/// Writes each payload to the store under its hash, unless a file of that name and size
/// is already there (content-addressed: the same image pasted twice is kept once).
fn write_store(
    store: &Path,
    payloads: &[(String, std::ops::Range<usize>)],
    bytes: &[u8],
) -> Result<Created, SessionError> {
    let mut created = Created {
        files: Vec::new(),
        dir: None,
    };
    if !store.is_dir() {
        created.dir = Some(Temp::register(store.to_path_buf()));
        std::fs::create_dir(store).map_err(|e| SessionError::write(store, e))?;
    }
    // What a killed run left (its temp files; the payloads it placed are kept, and used).
    if let Some((sha, _)) = payloads.first() {
        crate::session::io::temp::remove_stale(store, &store.join(sha));
    }
    for (sha, range) in payloads {
        let dest = store.join(sha);
        if std::fs::metadata(&dest).is_ok_and(|m| m.is_file() && m.len() == range.len() as u64) {
            continue;
        }
        // Registered before it exists: an interrupt from here on removes it.
        created.files.push(Temp::register(dest.clone()));
        write_file(&dest, &bytes[range.clone()], true)?;
    }
    Ok(created)
}

/// `bytes` with each span (in file order, not overlapping) replaced.
fn spliced(bytes: &[u8], spans: &[Span]) -> Vec<u8> {
    let removed: usize = spans.iter().map(|s| s.end - s.start).sum();
    let added: usize = spans.iter().map(|s| s.replacement.len()).sum();
    let mut out = Vec::with_capacity(bytes.len() - removed + added);
    let mut at = 0;
    for s in spans {
        out.extend_from_slice(&bytes[at..s.start]);
        out.extend_from_slice(&s.replacement);
        at = s.end;
    }
    out.extend_from_slice(&bytes[at..]);
    out
}

/// The placeholder block for `text`, written always the same way, so that `restore` knows
/// its own placeholders from text a user wrote.
fn placeholder_block(text: &str) -> Vec<u8> {
    let mut s = String::from(r#"{"type":"text","text":"#);
    s.push_str(&serde_json::to_string(text).expect("a string serializes"));
    s.push('}');
    s.into_bytes()
}

/// The store name in a placeholder's text, if it is one of ours.
fn placeholder_sha(text: &str) -> Option<&str> {
    let rest = text.strip_prefix(MARK)?.strip_suffix(']')?;
    let sha = rest.get(rest.len().checked_sub(64)?..)?;
    (is_sha(sha) && rest[..rest.len() - 64].ends_with('/')).then_some(sha)
}

fn is_sha(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

fn hex_sha256(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut s = String::with_capacity(64);
    for b in digest.iter() {
        let _ = write!(s, "{b:02x}");
    }
    s
}

/// Whether a stored payload is an image block (what restore reports).
fn is_image_block(b: &[u8]) -> bool {
    let mut image = false;
    let _ = scan::object(b, 0, |k, b, p| {
        if k.is("type") && b.get(p) == Some(&b'"') {
            let (v, end) = scan::string(b, p)?;
            image = v.is("image");
            return Ok(end);
        }
        scan::skip(b, p)
    });
    image
}

/// Whose message a content array is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Role {
    User,
    ToolResult,
    /// A custom message's content.
    Custom,
    Assistant,
    Other,
}

/// One element of a content array, as far as slim cares.
#[derive(Debug)]
struct BlockSpan {
    /// Byte range of the element in the line.
    start: usize,
    end: usize,
    role: Role,
    what: What,
}

#[derive(Debug)]
enum What {
    Image {
        mime: String,
    },
    /// A text block: its text's length as written, and the store name when it is one of
    /// slim's placeholders (written exactly as [`placeholder_block`] writes it).
    Text {
        len: usize,
        placeholder: Option<String>,
    },
    Other,
}

/// The elements of the content array of a message or custom message line (an entry's: a
/// line `JSON.parse` accepted, so it is walked without being validated again), in one pass
/// over the line. Declines a line where a key this reads appears twice (JSON.parse keeps
/// the last; such a line is left alone rather than read in a way Pi might not).
fn blocks(line: &[u8], kind: &EntryKind) -> Scan<Vec<BlockSpan>> {
    let mut out = Vec::new();
    let field = match kind {
        EntryKind::Message => "message",
        EntryKind::CustomMessage => "content",
        _ => return Ok(out),
    };
    let mut seen = false;
    trusted::object(line, 0, |k, b, p| {
        if !k.is(field) {
            return trusted::skip(b, p);
        }
        if seen {
            return Err(scan::Bail);
        }
        seen = true;
        match kind {
            EntryKind::Message => message(b, p, &mut out),
            _ => elements(b, p, Role::Custom, &mut out),
        }
    })?;
    Ok(out)
}

/// The content elements of the message object at `pos`; the position after it.
fn message(b: &[u8], pos: usize, out: &mut Vec<BlockSpan>) -> Scan<usize> {
    if b.get(pos) != Some(&b'{') {
        return trusted::skip(b, pos);
    }
    let (mut role, mut content) = (None, false);
    let first = out.len();
    let end = trusted::object(b, pos, |k, b, p| {
        if k.is("role") {
            if role.is_some() {
                return Err(scan::Bail);
            }
            if b.get(p) != Some(&b'"') {
                role = Some(Role::Other);
                return trusted::skip(b, p);
            }
            let (v, end) = trusted::string(b, p)?;
            let named = |n: &[u8]| match n {
                b"user" => Role::User,
                b"toolResult" => Role::ToolResult,
                b"assistant" => Role::Assistant,
                _ => Role::Other,
            };
            role = Some(v.named(named, Role::Other));
            return Ok(end);
        }
        if k.is("content") {
            if content {
                return Err(scan::Bail);
            }
            content = true;
            // The role may come after: set below.
            return elements(b, p, Role::Other, out);
        }
        trusted::skip(b, p)
    })?;
    let Some(role) = role else {
        out.truncate(first);
        return Ok(end);
    };
    for span in &mut out[first..] {
        span.role = role;
    }
    Ok(end)
}

/// The elements of the content array at `pos` (none when it is not an array); the
/// position after it.
fn elements(b: &[u8], pos: usize, role: Role, out: &mut Vec<BlockSpan>) -> Scan<usize> {
    if b.get(pos) != Some(&b'[') {
        return trusted::skip(b, pos);
    }
    trusted::array(b, pos, |b, p| {
        let (what, end) = if b.get(p) == Some(&b'{') {
            block(b, p)?
        } else {
            (What::Other, trusted::skip(b, p)?)
        };
        out.push(BlockSpan {
            start: p,
            end,
            role,
            what,
        });
        Ok(end)
    })
}

/// What the block object at `pos` is, and the position after it.
fn block(b: &[u8], pos: usize) -> Scan<(What, usize)> {
    let (mut kind, mut text, mut mime): (Option<RawStr>, Option<RawStr>, Option<RawStr>) = (None, None, None);
    let mut dup = false;
    let mut keys = 0;
    let end = trusted::object(b, pos, |k, b, p| {
        keys += 1;
        let slot = if k.is("type") {
            &mut kind
        } else if k.is("text") {
            &mut text
        } else if k.is("mimeType") {
            &mut mime
        } else {
            return trusted::skip(b, p);
        };
        dup |= slot.is_some();
        if b.get(p) != Some(&b'"') {
            // Not a string: Pi reads the field as absent; a block slim leaves alone.
            dup = true;
            return trusted::skip(b, p);
        }
        let (v, end) = trusted::string(b, p)?;
        *slot = Some(v);
        Ok(end)
    })?;
    let what = match kind {
        _ if dup => What::Other,
        Some(k) if k.is("image") => {
            let mime = mime.and_then(|m| m.decode().ok()).map(|m| clean_mime(&m));
            What::Image {
                mime: mime.unwrap_or_else(|| "no type".into()),
            }
        }
        Some(k) if k.is("text") && text.is_some() => {
            let t = text.expect("checked");
            let placeholder = (keys == 2)
                .then(|| t.decode().ok())
                .flatten()
                .and_then(|s| placeholder_sha(&s).map(|sha| (sha.to_owned(), placeholder_block(&s))))
                .filter(|(_, canonical)| b[pos..end] == canonical[..])
                .map(|(sha, _)| sha);
            What::Text {
                len: t.bytes.len(),
                placeholder,
            }
        }
        _ => What::Other,
    };
    Ok((what, end))
}

/// A MIME type as a placeholder says it: only the characters such a type is made of.
fn clean_mime(m: &str) -> String {
    let s: String = m
        .chars()
        .filter(|c| c.is_ascii_alphanumeric() || matches!(c, '/' | '+' | '.' | '-'))
        .take(40)
        .collect();
    if s.is_empty() { "no type".into() } else { s }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placeholders_are_known_again() {
        let sha = hex_sha256(b"x");
        let text = format!("{MARK}an image (image/png, 1.0 KB) was moved out of this session to s.jsonl.slim/{sha}]");
        assert_eq!(placeholder_sha(&text), Some(sha.as_str()));
        assert_eq!(placeholder_sha("[pi-session slim: nothing]"), None);
        let block_bytes = placeholder_block(&text);
        let what = block(&block_bytes, 0).unwrap().0;
        assert!(matches!(what, What::Text { placeholder: Some(s), .. } if s == sha));
        // The same text written otherwise is a user's, not ours.
        let other = format!(r#"{{"text":{},"type":"text"}}"#, serde_json::to_string(&text).unwrap());
        assert!(matches!(
            block(other.as_bytes(), 0).unwrap().0,
            What::Text { placeholder: None, .. }
        ));
    }

    #[test]
    fn a_line_with_a_duplicate_content_key_is_left_alone() {
        let line = br#"{"type":"message","message":{"role":"user","content":[],"content":[{"type":"image","data":"AAAA","mimeType":"image/png"}]}}"#;
        assert!(blocks(line, &EntryKind::Message).is_err());
        let line = br#"{"type":"message","message":{"role":"user","content":[{"type":"image","data":"AAAA","mimeType":"image/png"}]}}"#;
        let b = blocks(line, &EntryKind::Message).unwrap();
        assert_eq!(b.len(), 1);
        assert!(matches!(&b[0].what, What::Image { mime } if mime == "image/png"));
    }
}
