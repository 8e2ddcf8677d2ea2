//! Searching the text of a session: which texts each entry has, under which role, and the
//! lines of them a regular expression matches.
//!
//! Searched are message text (user and assistant text, tool results, bash commands and
//! output, custom and system messages), compaction and branch summaries, and optionally the
//! arguments of tool calls (role `toolCall`), line by line, in every entry of the file.

use crate::session::content::{Block, Content};
use crate::session::{EntryIdx, EntryKind, Role, Session};
use regex::{Regex, RegexBuilder};
use serde::Serialize;
use serde_json::Value;
use std::sync::atomic::{AtomicBool, Ordering};

/// The roles a search can be limited to.
pub const ROLES: [&str; 9] = [
    "user",
    "assistant",
    "toolResult",
    "bashExecution",
    "custom",
    "system",
    "compaction",
    "branchSummary",
    "toolCall",
];

/// The regular expression for `pattern` taken literally (`fixed`, grep's `-F`) and/or
/// matching only whole words (`word`, `-w`: the match neither starts right after nor ends
/// right before a word character, ripgrep's half word boundaries, Unicode-aware).
pub fn pattern(pattern: &str, fixed: bool, word: bool) -> String {
    let p = if fixed {
        regex::escape(pattern)
    } else {
        pattern.to_owned()
    };
    if word {
        format!(r"\b{{start-half}}(?:{p})\b{{end-half}}")
    } else {
        p
    }
}

/// What to search for.
#[derive(Debug, Clone)]
pub struct Query {
    pub regex: Regex,
    /// Only texts of these roles; empty means every role.
    pub roles: Vec<String>,
    /// Whether tool-call arguments are searched.
    pub tools: bool,
    /// The pattern without its assertions (`^`, `$`, `\b`...), over bytes: whatever the
    /// pattern matches in a line of some text, this matches wherever that text stands
    /// (unescaped) in an entry's line. `None` when it could not be built.
    prefilter: Option<regex::bytes::Regex>,
    /// Whether the pattern can never match a character a simple JSON escape stands for
    /// (`"`, `\`, `/`, backspace, form feed, newline, return, tab). Then, in a line without
    /// `\u` escapes, every match of the unescaped text is also in the raw bytes.
    escape_free: bool,
}

impl Query {
    /// A query for `pattern` (Rust regex syntax). `tools` adds tool-call arguments (and,
    /// when `roles` limits the search, the role `toolCall` to it); naming the role
    /// `toolCall` searches them too.
    pub fn new(pattern: &str, ignore_case: bool, roles: &[String], tools: bool) -> Result<Query, regex::Error> {
        let regex = RegexBuilder::new(pattern).case_insensitive(ignore_case).build()?;
        let mut roles = roles.to_vec();
        let named = roles.iter().any(|r| r == "toolCall");
        if tools && !roles.is_empty() && !named {
            roles.push("toolCall".into());
        }
        Ok(Query {
            regex,
            roles,
            tools: tools || named,
            prefilter: prefilter(pattern, ignore_case),
            escape_free: escape_free(pattern, ignore_case),
        })
    }

    /// Whether an entry's line could hold a match: false only when none of the texts
    /// [`texts`] would take from it can. Looks at the line's bytes with JSON string escapes
    /// undone (`buf` is scratch space); `true` whenever unsure.
    fn could_match(&self, raw: &[u8], buf: &mut Vec<u8>) -> bool {
        let Some(pre) = &self.prefilter else {
            return true;
        };
        // Invalid UTF-8 reads as U+FFFD, which is not in the bytes.
        if simdutf8::basic::from_utf8(raw).is_err() {
            return true;
        }
        let hay = if memchr::memchr(b'\\', raw).is_none() {
            raw
        } else if self.escape_free && memchr::memmem::find(raw, b"\\u").is_none() {
            // Matches cannot involve an escaped character: the raw bytes will do, without
            // undoing the escapes.
            raw
        } else if unescape(raw, buf) {
            &buf[..]
        } else {
            return true;
        };
        // Tool-call texts are built (`key: value`, values re-encoded as JSON): not in the bytes.
        if self.tools && memchr::memmem::find(hay, b"toolCall").is_some() {
            return true;
        }
        pre.is_match(hay)
    }

    fn wants(&self, role: &str) -> bool {
        self.roles.is_empty() || self.roles.iter().any(|r| r == role)
    }
}

/// The prefilter of a pattern: the same regular expression with every assertion (anchors,
/// word boundaries) replaced by the empty match, so that it matches a string wherever the
/// string stands. Case folding is already spelt out in the parsed expression.
fn prefilter(pattern: &str, ignore_case: bool) -> Option<regex::bytes::Regex> {
    use regex_syntax::hir::{Capture, Hir, HirKind, Repetition};
    fn relax(h: &Hir) -> Hir {
        match h.kind() {
            HirKind::Look(_) => Hir::empty(),
            HirKind::Empty | HirKind::Literal(_) | HirKind::Class(_) => h.clone(),
            HirKind::Repetition(r) => Hir::repetition(Repetition {
                min: r.min,
                max: r.max,
                greedy: r.greedy,
                sub: Box::new(relax(&r.sub)),
            }),
            HirKind::Capture(c) => Hir::capture(Capture {
                index: c.index,
                name: c.name.clone(),
                sub: Box::new(relax(&c.sub)),
            }),
            HirKind::Concat(v) => Hir::concat(v.iter().map(relax).collect()),
            HirKind::Alternation(v) => Hir::alternation(v.iter().map(relax).collect()),
        }
    }
    let hir = regex_syntax::ParserBuilder::new()
        .case_insensitive(ignore_case)
        .build()
        .parse(pattern)
        .ok()?;
    regex::bytes::RegexBuilder::new(&relax(&hir).to_string()).build().ok()
}

/// Whether `pattern` can never match a character that a simple JSON escape stands for.
fn escape_free(pattern: &str, ignore_case: bool) -> bool {
    use regex_syntax::hir::{Class, Hir, HirKind};
    const ESCAPED: [char; 8] = ['"', '\\', '/', '\u{8}', '\u{c}', '\n', '\r', '\t'];
    fn free(h: &Hir) -> bool {
        match h.kind() {
            HirKind::Empty | HirKind::Look(_) => true,
            HirKind::Literal(l) => !l.0.iter().any(|b| ESCAPED.contains(&char::from(*b))),
            HirKind::Class(Class::Unicode(c)) => !c
                .ranges()
                .iter()
                .any(|r| ESCAPED.iter().any(|&e| r.start() <= e && e <= r.end())),
            HirKind::Class(Class::Bytes(c)) => !c.ranges().iter().any(|r| {
                ESCAPED
                    .iter()
                    .any(|&e| r.start() as u32 <= e as u32 && e as u32 <= r.end() as u32)
            }),
            HirKind::Repetition(r) => free(&r.sub),
            HirKind::Capture(c) => free(&c.sub),
            HirKind::Concat(v) | HirKind::Alternation(v) => v.iter().all(free),
        }
    }
    regex_syntax::ParserBuilder::new()
        .case_insensitive(ignore_case)
        .build()
        .parse(pattern)
        .is_ok_and(|h| free(&h))
}

/// `raw` (one JSON line) with the escapes in its strings undone, into `out`; false when an
/// escape is not one this undoes exactly (a lone surrogate, a malformed escape).
fn unescape(raw: &[u8], out: &mut Vec<u8>) -> bool {
    out.clear();
    let mut rest = raw;
    while let Some(i) = memchr::memchr(b'\\', rest) {
        out.extend_from_slice(&rest[..i]);
        let Some(&c) = rest.get(i + 1) else {
            return false;
        };
        rest = &rest[i + 2..];
        let byte = match c {
            b'"' => b'"',
            b'\\' => b'\\',
            b'/' => b'/',
            b'b' => 8,
            b'f' => 12,
            b'n' => b'\n',
            b'r' => b'\r',
            b't' => b'\t',
            b'u' => {
                let Some(hi) = hex4(rest) else {
                    return false;
                };
                rest = &rest[4..];
                let code = if (0xD800..0xDC00).contains(&hi) {
                    let lo = match rest {
                        [b'\\', b'u', tail @ ..] => hex4(tail),
                        _ => None,
                    };
                    match lo {
                        Some(lo) if (0xDC00..0xE000).contains(&lo) => {
                            rest = &rest[6..];
                            0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                        }
                        _ => return false,
                    }
                } else {
                    hi
                };
                let Some(ch) = char::from_u32(code) else {
                    return false;
                };
                out.extend_from_slice(ch.encode_utf8(&mut [0; 4]).as_bytes());
                continue;
            }
            _ => return false,
        };
        out.push(byte);
    }
    out.extend_from_slice(rest);
    true
}

/// Four hex digits at the start of `b`.
fn hex4(b: &[u8]) -> Option<u32> {
    let d = b.get(..4)?;
    let mut n = 0;
    for &c in d {
        n = n * 16 + (c as char).to_digit(16)?;
    }
    Some(n)
}

/// One matching line, or a line of context around one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// The entry's index in the file.
    pub entry: EntryIdx,
    /// The entry's id, or `(line N)` for an entry without one.
    pub id: String,
    pub role: String,
    /// Which of the entry's texts (see [`texts`]) the line is in, from 0: two lines are
    /// adjacent only within one text.
    pub text_no: usize,
    /// A line of context (see [`SearchOptions`]), not a match: `matches` is empty.
    pub context: bool,
    /// 1-based, within the text searched.
    pub line_no: usize,
    /// The line, without its line ending.
    pub text: String,
    /// Byte ranges of the matches in `text`.
    pub matches: Vec<(usize, usize)>,
}

/// One match as `grep --json` prints it, one object per match.
#[derive(Debug, Serialize)]
pub struct MatchRecord<'a> {
    /// The session file.
    pub path: &'a str,
    /// The entry's id (or `(line N)`).
    pub id: &'a str,
    pub role: &'a str,
    /// The line's number within that text, from 1.
    pub line: usize,
    /// The whole line.
    pub text: &'a str,
    /// Byte offset where the match starts in `text`.
    pub start: usize,
    /// Byte offset where the match ends in `text`.
    pub end: usize,
}

impl Hit {
    /// The records of this hit's matches, for the session at `path`.
    pub fn records<'a>(&'a self, path: &'a str) -> impl Iterator<Item = MatchRecord<'a>> {
        self.matches.iter().map(move |&(start, end)| MatchRecord {
            path,
            id: &self.id,
            role: &self.role,
            line: self.line_no,
            text: &self.text,
            start,
            end,
        })
    }
}

/// A tool call's name, then its arguments as lines of `key: value` (strings as they are,
/// other values as JSON).
pub fn tool_call_text(name: Option<&str>, arguments: Option<&Value>) -> String {
    let mut lines = vec![name.unwrap_or("?").to_owned()];
    match arguments {
        Some(Value::Object(m)) => {
            for (k, v) in m {
                match v {
                    Value::String(s) => lines.push(format!("{k}: {s}")),
                    other => lines.push(format!("{k}: {other}")),
                }
            }
        }
        Some(Value::Null) | None => {}
        Some(other) => lines.push(other.to_string()),
    }
    lines.join("\n")
}

/// The searchable texts of an entry, each with its role (`tools`: with tool-call arguments).
pub fn texts(session: &Session, idx: EntryIdx, tools: bool) -> Vec<(String, String)> {
    let e = &session.entries[idx];
    let s = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).unwrap_or("").to_owned();
    match &e.kind {
        EntryKind::Message => {
            let v = session.value(idx);
            let Some(m) = v.get("message") else {
                return Vec::new();
            };
            let role = m.get("role").and_then(Value::as_str).unwrap_or("").to_owned();
            match Role::parse(&role) {
                Role::BashExecution => vec![(role.clone(), s(m, "command")), (role, s(m, "output"))],
                Role::CompactionSummary => vec![("compaction".into(), s(m, "summary"))],
                Role::BranchSummary => vec![(role, s(m, "summary"))],
                _ => {
                    let content = Content::of_value(m.get("content"));
                    let mut out = vec![(role, content.text("\n").unwrap_or_default().into_owned())];
                    // Tool calls count only in block content.
                    if tools && let Content::Blocks(_) = content {
                        for block in content.blocks().unwrap_or_default() {
                            if let Block::ToolCall { name, arguments, .. } = block {
                                let arguments = arguments.and_then(|a| a.to_value().ok());
                                out.push((
                                    "toolCall".to_owned(),
                                    tool_call_text(name.as_deref(), arguments.as_deref()),
                                ));
                            }
                        }
                    }
                    out
                }
            }
        }
        EntryKind::CustomMessage => {
            let v = session.value(idx);
            let text = Content::of_value(v.get("content")).text("\n").unwrap_or_default();
            vec![("custom".into(), text.into_owned())]
        }
        EntryKind::Compaction => vec![("compaction".into(), s(&session.value(idx), "summary"))],
        EntryKind::BranchSummary => vec![("branchSummary".into(), s(&session.value(idx), "summary"))],
        _ => Vec::new(),
    }
}

/// How much of what matches to give: lines of context, a cap, an early stop.
#[derive(Debug, Clone, Copy, Default)]
pub struct SearchOptions<'a> {
    /// Lines of context before each match, within the same text.
    pub before: usize,
    /// Lines of context after each match, within the same text.
    pub after: usize,
    /// At most this many matching lines; the context after the last one still follows
    /// (later matches in it count as context).
    pub max_count: Option<usize>,
    /// Set at the first match; once set (here or by another search sharing it), the search
    /// ends as soon as it can. For a yes/no answer (`grep -q`).
    pub stop: Option<&'a AtomicBool>,
}

/// Every matching line of the session, in file order.
pub fn search(session: &Session, query: &Query) -> Vec<Hit> {
    search_with(session, query, &SearchOptions::default())
}

/// The matching lines of the session with their context lines, in file order.
pub fn search_with(session: &Session, query: &Query, options: &SearchOptions) -> Vec<Hit> {
    // Runs of entries searched on every core, their hits put back in file order. Each run
    // stops at the cap on its own; the whole is then cut at the cap.
    let starts: Vec<EntryIdx> = (0..session.entries.len()).step_by(4096).collect();
    let mut hits: Vec<Hit> = if starts.len() < 2 {
        search_run(session, query, options, 0..session.entries.len())
    } else {
        let found = crate::parallel::par_map(
            &starts,
            |&start| {
                search_run(
                    session,
                    query,
                    options,
                    start..(start + 4096).min(session.entries.len()),
                )
            },
            || {},
        );
        found.into_iter().flatten().collect()
    };
    if let Some(max) = options.max_count {
        cut_at(&mut hits, max, options.after);
    }
    hits
}

/// Keeps the first `max` matches of `hits` and the context after the last of them (the
/// lines of its text at most `after` below it), as context.
fn cut_at(hits: &mut Vec<Hit>, max: usize, after: usize) {
    if max == 0 {
        hits.clear();
        return;
    }
    let Some(k) = hits
        .iter()
        .enumerate()
        .filter(|(_, h)| !h.context)
        .nth(max - 1)
        .map(|(k, _)| k)
    else {
        return;
    };
    let (entry, text_no, line_no) = (hits[k].entry, hits[k].text_no, hits[k].line_no);
    let tail = hits[k + 1..]
        .iter()
        .take_while(|h| h.entry == entry && h.text_no == text_no && h.line_no <= line_no + after)
        .count();
    hits.truncate(k + 1 + tail);
    for h in &mut hits[k + 1..] {
        h.context = true;
        h.matches.clear();
    }
}

/// The matching lines of the entries in `run` with their context, in file order.
fn search_run(session: &Session, query: &Query, options: &SearchOptions, run: std::ops::Range<EntryIdx>) -> Vec<Hit> {
    let mut hits = Vec::new();
    let mut buf = Vec::new();
    let max = options.max_count.unwrap_or(usize::MAX);
    let stopped = || options.stop.is_some_and(|s| s.load(Ordering::Relaxed));
    let mut count = 0;
    for idx in run.clone() {
        if count >= max || stopped() {
            break;
        }
        let searched = matches!(
            session.entries[idx].kind,
            EntryKind::Message | EntryKind::CustomMessage | EntryKind::Compaction | EntryKind::BranchSummary
        );
        if !searched || !query.could_match(session.raw(idx), &mut buf) {
            continue;
        }
        for (text_no, (role, text)) in texts(session, idx, query.tools).into_iter().enumerate() {
            if text.is_empty() || !query.wants(&role) {
                continue;
            }
            let lines: Vec<&str> = text.split('\n').map(|l| l.strip_suffix('\r').unwrap_or(l)).collect();
            let line = |n: usize, context: bool, matches: Vec<(usize, usize)>| Hit {
                entry: idx,
                id: session.id_or_line(idx),
                role: role.clone(),
                text_no,
                context,
                line_no: n + 1,
                text: lines[n].to_owned(),
                matches,
            };
            // The empty piece after a final newline is no line to show as context (as
            // ripgrep sees it); it is still searched, as it always was.
            let shown = lines.len() - usize::from(lines.len() > 1 && lines[lines.len() - 1].is_empty());
            // The first line not given yet, and the end of the context after the last match.
            let mut next = 0;
            let mut after_end = 0;
            for (n, &text_line) in lines.iter().enumerate() {
                if count >= max && n >= after_end {
                    break;
                }
                let matches: Vec<(usize, usize)> = if count < max {
                    query.regex.find_iter(text_line).map(|m| (m.start(), m.end())).collect()
                } else {
                    Vec::new()
                };
                if matches.is_empty() {
                    if n < after_end && n < shown {
                        hits.push(line(n, true, matches));
                        next = n + 1;
                    }
                    continue;
                }
                for c in n.saturating_sub(options.before).max(next)..n {
                    hits.push(line(c, true, Vec::new()));
                }
                hits.push(line(n, false, matches));
                next = n + 1;
                after_end = n + 1 + options.after;
                count += 1;
                if let Some(stop) = options.stop {
                    stop.store(true, Ordering::Relaxed);
                    break;
                }
            }
            if count >= max || stopped() {
                break;
            }
        }
    }
    session.release_entries(run);
    hits
}

impl Hit {
    /// Whether `next` is the line right after this one in the same text.
    pub fn is_followed_by(&self, next: &Hit) -> bool {
        self.entry == next.entry && self.text_no == next.text_no && self.line_no + 1 == next.line_no
    }
}

/// What searching one file gives: its matching lines and the session read, or why it could
/// not be read.
pub type FileHits = Result<(Vec<Hit>, Session), crate::session::SessionError>;

/// [`search_with`] over the files at `paths`, on every core, in their order; a file that
/// cannot be read gives its error. With `options.stop` set, files not started yet are
/// passed over (`None`).
pub fn search_files(paths: &[std::path::PathBuf], query: &Query, options: &SearchOptions) -> Vec<Option<FileHits>> {
    crate::parallel::par_map(
        paths,
        |p| {
            if options
                .stop
                .is_some_and(|s| s.load(std::sync::atomic::Ordering::Relaxed))
            {
                return None;
            }
            Some(Session::open(p).map(|s| (search_with(&s, query, options), s)))
        },
        || {},
    )
}

/// Keeps the first `limit` matching lines of all sessions (in order), with their context:
/// the lines after the last match that belong to it (at most `after`, adjacent to it) stay,
/// every later line goes.
pub fn keep_first_matches(results: &mut [(std::path::PathBuf, Vec<Hit>)], limit: usize, after: usize) {
    let mut left = limit;
    for (_, hits) in results.iter_mut() {
        if left == 0 {
            hits.clear();
            continue;
        }
        let matches = hits.iter().filter(|h| !h.context).count();
        if matches <= left {
            left -= matches;
            continue;
        }
        // The index of the last match kept, then its context after it.
        let last = hits
            .iter()
            .enumerate()
            .filter(|(_, h)| !h.context)
            .nth(left - 1)
            .map(|(k, _)| k);
        let mut end = last.map_or(0, |k| k + 1);
        if let Some(k) = last {
            while end < hits.len()
                && hits[end].context
                && hits[end - 1].is_followed_by(&hits[end])
                && hits[end].line_no <= hits[k].line_no + after
            {
                end += 1;
            }
        }
        hits.truncate(end);
        left = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn session(lines: &[&str]) -> Session {
        let mut data = String::from(
            r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#,
        );
        data.push('\n');
        for l in lines {
            data.push_str(l);
            data.push('\n');
        }
        Session::from_bytes(PathBuf::from("/t.jsonl"), data.into_bytes()).unwrap()
    }

    fn sample() -> Session {
        session(&[
            r#"{"type":"message","id":"u1","parentId":null,"timestamp":"t","message":{"role":"user","content":"find the Needle\r\nand a needle here"}}"#,
            r#"{"type":"message","id":"a1","parentId":"u1","timestamp":"t","message":{"role":"assistant","content":[{"type":"thinking","thinking":"needle in thought"},{"type":"text","text":"no match"},{"type":"toolCall","id":"c1","name":"grep","arguments":{"pattern":"needle","n":2}}]}}"#,
            r#"{"type":"message","id":"b1","parentId":"a1","timestamp":"t","message":{"role":"bashExecution","command":"echo needle","output":"needle\n"}}"#,
            r#"{"type":"compaction","id":"k1","parentId":"b1","timestamp":"t","summary":"a needle summary","firstKeptEntryId":"u1","tokensBefore":5}"#,
        ])
    }

    #[test]
    fn patterns_that_cannot_match_escaped_characters() {
        for p in ["needle", "a.c", "[a-z]+", "(?i)straße", r"\bword\b", "é+"] {
            assert_eq!(escape_free(p, false), !p.contains('.'), "{p}");
        }
        for p in ["a\"b", r"\\", "/", r"\s", r"[^a]", r"\n", "x.y"] {
            assert!(!escape_free(p, false), "{p}");
        }
        // A match right beside escapes is still found without undoing them.
        let s = session(&[
            r#"{"type":"message","id":"u1","parentId":null,"timestamp":"t","message":{"role":"user","content":"say \"needle\"\tnow"}}"#,
        ]);
        let q = Query::new("needle", false, &[], false).unwrap();
        assert_eq!(search(&s, &q).len(), 1);
        let q = Query::new("needle\"", false, &[], false).unwrap();
        assert_eq!(search(&s, &q).len(), 1);
    }

    #[test]
    fn lines_with_byte_offsets_per_role() {
        let s = sample();
        let q = Query::new("needle", true, &[], false).unwrap();
        let hits = search(&s, &q);
        let got: Vec<_> = hits
            .iter()
            .map(|h| (h.id.as_str(), h.role.as_str(), h.line_no, h.text.as_str()))
            .collect();
        assert_eq!(
            got,
            vec![
                ("u1", "user", 1, "find the Needle"),
                ("u1", "user", 2, "and a needle here"),
                ("b1", "bashExecution", 1, "echo needle"),
                ("b1", "bashExecution", 1, "needle"),
                ("k1", "compaction", 1, "a needle summary"),
            ]
        );
        assert_eq!(hits[0].matches, vec![(9, 15)]);
        // Thinking is not searched; tool calls only when asked.
        assert!(hits.iter().all(|h| h.id != "a1"));
    }

    #[test]
    fn tool_arguments_and_roles() {
        let s = sample();
        let q = Query::new("needle", false, &["user".into()], true).unwrap();
        assert_eq!(q.roles, vec!["user".to_owned(), "toolCall".to_owned()]);
        let hits = search(&s, &q);
        let got: Vec<_> = hits.iter().map(|h| (h.role.as_str(), h.text.as_str())).collect();
        assert_eq!(
            got,
            vec![("user", "and a needle here"), ("toolCall", "pattern: needle")]
        );
        assert_eq!(hits[1].line_no, 2);
        let q = Query::new("^n: 2$", false, &["toolCall".into()], false).unwrap();
        assert!(q.tools);
        assert_eq!(search(&s, &q).len(), 1);
    }

    #[test]
    fn matches_behind_json_escapes_are_found() {
        let s = session(&[
            r#"{"type":"message","id":"u1","parentId":null,"timestamp":"t","message":{"role":"user","content":"say \"caf\u00e9\"\nthen \ud83d\ude00 ok\\n"}}"#,
            r#"{"type":"message","id":"u2","parentId":"u1","timestamp":"t","message":{"role":"user","content":"lone \ud800 here"}}"#,
            r#"{"type":"message","id":"a1","parentId":"u2","timestamp":"t","message":{"role":"assistant","content":[{"type":"toolCall","id":"c1","name":"edit","arguments":{"path":"x","n":{"k":"v\nw"}}}]}}"#,
        ]);
        let count = |pattern: &str, ignore_case: bool, tools: bool| {
            search(&s, &Query::new(pattern, ignore_case, &[], tools).unwrap()).len()
        };
        assert_eq!(count(r#"say "café"$"#, false, false), 1);
        assert_eq!(count(r#"^SAY "CAFÉ""#, true, false), 1);
        assert_eq!(count("^then 😀 ok\\\\n$", false, false), 1);
        assert_eq!(count("\\bthen\\b", false, false), 1);
        assert_eq!(count("é\"\\nthen", false, false), 0);
        assert_eq!(count("^lone . here$", false, false), 1);
        assert_eq!(count("^path: x$", false, true), 1);
        assert_eq!(count(r#"^n: \{"k":"v\\nw"\}$"#, false, true), 1);
        assert_eq!(count("path: x", false, false), 0);
    }

    #[test]
    fn unescaping_and_the_prefilter() {
        let mut buf = Vec::new();
        assert!(unescape(br#"{"a":"x\"\\\/\t\u00e9\ud83d\ude00"}"#, &mut buf));
        assert_eq!(String::from_utf8(buf.clone()).unwrap(), "{\"a\":\"x\"\\/\té😀\"}");
        assert!(!unescape(br#""\ud800x""#, &mut buf));
        assert!(!unescape(br#""\udc00""#, &mut buf));
        assert!(!unescape(br#""\q""#, &mut buf));
        let pre = prefilter(r"^\bAb$", true).unwrap();
        assert!(pre.is_match(b"xxaBxx"));
        assert!(!pre.is_match(b"xxaxbxx"));
    }

    #[test]
    fn json_record_per_match() {
        let hit = Hit {
            entry: 1,
            id: "u1".into(),
            role: "user".into(),
            text_no: 0,
            context: false,
            line_no: 3,
            text: "aXbX".into(),
            matches: vec![(1, 2), (3, 4)],
        };
        let records: Vec<_> = hit
            .records("/p.jsonl")
            .map(|r| serde_json::to_value(r).unwrap())
            .collect();
        assert_eq!(
            records[1],
            serde_json::json!({"path": "/p.jsonl", "id": "u1", "role": "user", "line": 3, "text": "aXbX", "start": 3, "end": 4})
        );
        let keys: Vec<_> = records[0].as_object().unwrap().keys().cloned().collect();
        assert_eq!(keys, ["path", "id", "role", "line", "text", "start", "end"]);
    }

    /// (line, context) of each line given, as `(id, text_no, line_no, context)`.
    fn shape(hits: &[Hit]) -> Vec<(String, usize, usize, bool)> {
        hits.iter()
            .map(|h| (h.id.clone(), h.text_no, h.line_no, h.context))
            .collect()
    }

    fn options(before: usize, after: usize, max_count: Option<usize>) -> SearchOptions<'static> {
        SearchOptions {
            before,
            after,
            max_count,
            stop: None,
        }
    }

    #[test]
    fn context_within_each_text() {
        let s = sample();
        let q = Query::new("^and", false, &[], false).unwrap();
        // The user's text has two lines: one before, none after (the text ends).
        let got = shape(&search_with(&s, &q, &options(3, 3, None)));
        assert_eq!(got, [("u1".into(), 0, 1, true), ("u1".into(), 0, 2, false)]);
        // bashExecution's command and output are two texts: context does not cross.
        let q = Query::new("^needle$", false, &[], false).unwrap();
        let got = shape(&search_with(&s, &q, &options(5, 5, None)));
        assert_eq!(got, [("b1".into(), 1, 1, false)]);
    }

    #[test]
    fn patterns_fixed_and_whole_words() {
        assert_eq!(pattern("a.b", true, false), r"a\.b");
        let word = |p: &str, text: &str| Regex::new(&pattern(p, false, true)).unwrap().is_match(text);
        assert!(word("café", "un café."));
        assert!(!word("caf", "un café."));
        assert!(!word("café", "cafés"));
        assert!(word("-x", "a -x b"));
        assert!(word("a|b", "x b"));
        assert!(!word("a|b", "ab"));
    }

    #[test]
    fn stop_ends_every_search_sharing_it() {
        let s = sample();
        let q = Query::new("needle", true, &[], false).unwrap();
        let stop = AtomicBool::new(false);
        let opts = SearchOptions {
            stop: Some(&stop),
            ..SearchOptions::default()
        };
        assert_eq!(search_with(&s, &q, &opts).len(), 1);
        assert!(stop.load(Ordering::Relaxed));
        assert!(search_with(&s, &q, &opts).is_empty());
    }

    /// The lines a search with `before`, `after` and `max_count` gives, worked out the plain
    /// way from every text's lines.
    fn reference(
        texts: &[Vec<&str>],
        re: &Regex,
        before: usize,
        after: usize,
        max: usize,
    ) -> Vec<(String, usize, usize, bool)> {
        let mut out = Vec::new();
        let mut count = 0;
        for (e, lines) in texts.iter().enumerate() {
            let mut shown = vec![None; lines.len()];
            for (n, l) in lines.iter().enumerate() {
                if count == max || !re.is_match(l) {
                    continue;
                }
                count += 1;
                let last = lines.len() - usize::from(lines.len() > 1 && lines[lines.len() - 1].is_empty());
                let from = n.saturating_sub(before);
                for s in &mut shown[from..(n + after + 1).min(last).max(from)] {
                    s.get_or_insert(true);
                }
                shown[n] = Some(false);
            }
            for (n, s) in shown.iter().enumerate() {
                if let Some(context) = s {
                    out.push((format!("e{e}"), 0, n + 1, *context));
                }
            }
        }
        out
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(12))]
        /// Runs of entries searched apart, each stopping at the cap on its own, then cut,
        /// give what one plain pass gives.
        #[test]
        fn capped_runs_agree_with_one_pass(
            texts in proptest::collection::vec(
                proptest::collection::vec(proptest::sample::select(&["x", "y", "x y", ""][..]), 1..4),
                4097..9000,
            ),
            before in 0usize..3,
            after in 0usize..3,
            max in proptest::option::of(0usize..40),
            sparse in 1usize..3000,
        ) {
            // Matches only in some entries, so that the cap falls in any run.
            let texts: Vec<Vec<&str>> = texts
                .into_iter()
                .enumerate()
                .map(|(i, t)| if i % sparse == 0 { t } else { t.iter().map(|l| if *l == "x" { "y" } else { l }).collect() })
                .collect();
            let mut data = String::from(r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#);
            data.push('\n');
            for (i, t) in texts.iter().enumerate() {
                let parent = if i == 0 { Value::Null } else { Value::from(format!("e{}", i - 1)) };
                let line = serde_json::json!({"type": "message", "id": format!("e{i}"), "parentId": parent, "timestamp": "t",
                    "message": {"role": "user", "content": t.join("\n")}});
                data.push_str(&line.to_string());
                data.push('\n');
            }
            let s = Session::from_bytes(PathBuf::from("/t.jsonl"), data.into_bytes()).unwrap();
            let q = Query::new("^x", false, &[], false).unwrap();
            let got = shape(&search_with(&s, &q, &options(before, after, max)));
            let texts: Vec<Vec<&str>> = texts.iter().map(|t| if t.join("\n").is_empty() { Vec::new() } else { t.clone() }).collect();
            proptest::prop_assert_eq!(got, reference(&texts, &q.regex, before, after, max.unwrap_or(usize::MAX)));
        }
    }
}
