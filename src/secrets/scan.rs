//! The credentials a session file holds: every string of every line, scanned by the rules.
//!
//! The rules' keywords are looked for in a line's raw bytes (one pass over the line). A
//! keyword of the assignment, AWS secret or URL rule counts only where the raw bytes after
//! it could start a match (a name then `=` or `:` and a long value outside an object key; a
//! user, password and `@`); a line with no keyword that counts, and no `\u` escape (or
//! `\/`) that could hide one, is only checked to be JSON (which decides whether it is
//! scanned as text) and not walked. In a walked line, a string is decoded and matched only
//! when a keyword that counts, an exact value or such an escape is in it, and only by the
//! rules those wake. Lines are scanned on every core. What the file holds on disk is what counts, so a line Pi would skip as damaged is
//! scanned as text, and a key written twice in an object is scanned twice.

use super::rules::{RuleSet, TokenPlan, mask, needles};
use super::walk::{self, Step};
use crate::json::scan as json;
use std::ops::Range;

/// A credential found in a line.
#[derive(Debug, Clone, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Finding {
    /// The line's number in the file (1-based).
    pub line: u32,
    /// The entry's `id` (none for the header, or a damaged line).
    pub entry: Option<String>,
    /// The entry's `type`.
    #[serde(rename = "type")]
    pub entry_type: Option<String>,
    /// Where in the entry, as a JSON path (`message.content[2].arguments.command`); empty
    /// for a damaged line, which is scanned as text.
    pub path: String,
    /// The rule that matched.
    pub rule: String,
    /// The secret's first characters and its length, never the whole of it.
    pub preview: String,
    /// The secret's length in characters.
    pub length: usize,
    #[serde(skip)]
    pub(crate) at: At,
}

/// A finding as `secrets --json` and `redact --json` print it: the session it is in, then
/// the finding's fields.
#[derive(serde::Serialize)]
pub struct FindingRecord<'a> {
    pub session: &'a str,
    #[serde(flatten)]
    pub finding: &'a Finding,
}

/// Where a finding's bytes are, for taking them out.
#[derive(Debug, Clone)]
pub(crate) struct At {
    /// The line's bytes in the file (without its `\n`).
    pub line: Range<usize>,
    /// The string token holding the secret, within the line (quotes included); `None` for a
    /// damaged line, whose secret is replaced in its raw bytes.
    pub token: Option<Range<usize>>,
    /// The secret within the token's decoded text (or within the damaged line).
    pub secret: Range<usize>,
    /// For a thinking block's text: its `thinkingSignature` token, which no longer matches
    /// the text once the secret is out.
    pub signature: Option<Range<usize>>,
    /// Whether the token is an object key.
    pub key: bool,
}

/// A payload the rules cannot read: redacted thinking and encrypted reasoning, kept opaque
/// for the provider. Reported, left as it is.
#[derive(Debug, Clone, serde::Serialize)]
pub struct Unscannable {
    pub line: u32,
    pub entry: Option<String>,
    pub path: String,
    pub reason: &'static str,
}

/// What a scan of a file found, in line order.
#[derive(Debug, Default)]
pub struct FileScan {
    pub findings: Vec<Finding>,
    pub unscannable: Vec<Unscannable>,
    /// Lines that are not JSON (scanned as text).
    pub damaged_lines: Vec<u32>,
}

/// Top-level fields that hold the tree's own names and dates, never a credential: a
/// "secret" in them is a false hit, and taking it out would break the tree.
const STRUCTURE: [&str; 7] = [
    "type",
    "id",
    "parentId",
    "timestamp",
    "firstKeptEntryId",
    "targetId",
    "fromId",
];

/// Opaque fields: signatures and encrypted payloads a provider checks, and image data.
fn opaque(path: &[Step]) -> bool {
    match path {
        [.., Step::Index(_), Step::Key(k)] if k == "data" => true,
        [.., Step::Key(k)] => matches!(k.as_str(), "thinkingSignature" | "thoughtSignature" | "textSignature"),
        _ => false,
    }
}

/// The path a finding reports: a key's path ends with the key, which may be the secret, so
/// it is shown masked, as the finding's preview is.
fn finding_path(path: &[Step], is_key: bool) -> String {
    match path.split_last() {
        Some((Step::Key(key), parent)) if is_key => {
            let mut masked = parent.to_vec();
            masked.push(Step::Key(mask(key)));
            walk::render(&masked)
        }
        _ => walk::render(path),
    }
}

fn structural(path: &[Step]) -> bool {
    matches!(path, [Step::Key(k)] if STRUCTURE.contains(&k.as_str()))
}

/// Scans a whole file's bytes.
pub fn scan(bytes: &[u8], rules: &RuleSet) -> FileScan {
    // Pieces of about a MiB cut at line ends, scanned on every core, put back in order.
    let mut pieces: Vec<Range<usize>> = Vec::new();
    let mut start = 0;
    while start < bytes.len() {
        let want = (start + (1 << 20)).min(bytes.len());
        let end = match memchr::memchr(b'\n', &bytes[want..]) {
            Some(n) if want < bytes.len() => want + n + 1,
            _ => bytes.len(),
        };
        pieces.push(start..end);
        start = end;
    }
    // Each piece numbers its lines from 1 and counts them as it goes; the numbers are
    // shifted once the pieces before are counted (no pass over the bytes only to count).
    let parts = crate::parallel::par_map(&pieces, |piece| scan_piece(bytes, piece.clone(), rules), || {});
    let mut all = FileScan::default();
    let mut before = 0u32;
    for (mut part, lines) in parts {
        for f in &mut part.findings {
            f.line += before;
        }
        for u in &mut part.unscannable {
            u.line += before;
        }
        all.findings.extend(part.findings);
        all.unscannable.extend(part.unscannable);
        all.damaged_lines
            .extend(part.damaged_lines.into_iter().map(|n| n + before));
        before += lines;
    }
    all
}

/// The findings of a piece's lines, numbered from 1 within it, and how many lines it has.
fn scan_piece(bytes: &[u8], piece: Range<usize>, rules: &RuleSet) -> (FileScan, u32) {
    let mut out = FileScan::default();
    // One walker for the piece: its path and key buffers are reused from line to line.
    let mut scratch = Scratch::default();
    let mut at = piece.start;
    let mut number = 1;
    while at < piece.end {
        let end = memchr::memchr(b'\n', &bytes[at..piece.end]).map_or(piece.end, |n| at + n);
        let raw = &bytes[at..end];
        let line = raw.strip_suffix(b"\r").unwrap_or(raw);
        scan_line(line, at, number, rules, &mut scratch, &mut out);
        at = end + 1;
        number += 1;
    }
    (out, number - 1)
}

/// Buffers a piece's lines reuse.
#[derive(Default)]
struct Scratch {
    walker: walk::Walker,
    /// A line lowercased, for the keyword search.
    lower: Vec<u8>,
}

fn scan_line(line: &[u8], offset: usize, number: u32, rules: &RuleSet, scratch: &mut Scratch, out: &mut FileScan) {
    if line.iter().all(u8::is_ascii_whitespace) {
        return;
    }
    let opaque_here = needles::REDACTED.find(line).is_some() || needles::ENCRYPTED.find(line).is_some();
    // Where the rules' keywords occur in the raw line: only the strings that hold one where
    // it can start a match (or an escape, which could spell one) are decoded and matched.
    let hits = rules.keyword_hits(line, &mut scratch.lower);
    // A line not JSON is reported only when it has a keyword (what a scan without one
    // could tell depends on nothing in it).
    let counted = hits.as_deref().is_none_or(|h| !h.is_empty()) || opaque_here;
    if let Some(h) = hits.as_deref()
        && !opaque_here
        && !rules.line_may_find(line, h)
    {
        // Nothing to find if it is JSON; whether it is decides only the count of damaged
        // lines, so a line without a keyword is not even read.
        if h.is_empty() || matches!(json::skip(line, 0), Ok(end) if json::at_end(line, end)) {
            return;
        }
    }
    let line_range = offset..offset + line.len();
    // (path, token, whether a key, hit, preview, length in characters)
    type Found = (String, Range<usize>, bool, super::rules::Hit, String, usize);
    let mut found: Vec<Found> = Vec::new();
    // Signature tokens by the path of their block, to blank with the block's text.
    let mut signatures: Vec<(String, Range<usize>)> = Vec::new();
    let walked = scratch.walker.walk(line, |path, span, is_key| {
        // Keys are text too (a map keyed by tokens); only values are structure or opaque.
        if !is_key && structural(path) {
            return;
        }
        if !is_key && opaque(path) {
            if let [parent @ .., Step::Key(k)] = path
                && k == "thinkingSignature"
            {
                signatures.push((walk::render(parent), span));
            }
            return;
        }
        // The rules to run, from the line's keyword hits when the token's escapes allow.
        let plan = match hits.as_deref() {
            Some(h) => rules.plan_token(line, span.clone(), h),
            None => TokenPlan::Full,
        };
        if plan == TokenPlan::Skip {
            return;
        }
        if let TokenPlan::Woken(run) = &plan
            && let Some(by_lines) = rules.find_by_lines(line, span.clone(), hits.as_deref().unwrap_or_default(), run)
        {
            for (hit, secret) in by_lines {
                let (preview, length) = (mask(&secret), secret.chars().count());
                found.push((finding_path(path, is_key), span.clone(), is_key, hit, preview, length));
            }
            return;
        }
        let decoded = walk::decode(&line[span.clone()]);
        let found_here = match plan {
            TokenPlan::Woken(run) => rules.find_woken(&decoded.text, &run),
            _ => rules.find(&decoded.text),
        };
        for hit in found_here {
            let secret = &decoded.text[hit.range.clone()];
            let (preview, length) = (mask(secret), secret.chars().count());
            found.push((finding_path(path, is_key), span.clone(), is_key, hit, preview, length));
        }
    });
    if walked.is_err() {
        if !counted {
            // Without a keyword nothing is found in its text.
            return;
        }
        // Not JSON: Pi skips the line, but the bytes are on disk. Scanned as text where it
        // is UTF-8 (a secret is ASCII; the rest of the line is left as it is).
        out.damaged_lines.push(number);
        let text = String::from_utf8_lossy(line);
        for hit in rules.find(&text) {
            let secret = &text[hit.range.clone()];
            if memchr::memmem::find(line, secret.as_bytes()).is_none() {
                continue;
            }
            out.findings.push(Finding {
                line: number,
                entry: None,
                entry_type: None,
                path: String::new(),
                rule: hit.rule.clone(),
                preview: mask(secret),
                length: secret.chars().count(),
                at: At {
                    line: line_range.clone(),
                    token: None,
                    secret: hit.range,
                    signature: None,
                    key: false,
                },
            });
        }
        return;
    }
    let unscannable = if opaque_here { opaque_payloads(line) } else { Vec::new() };
    if found.is_empty() && unscannable.is_empty() {
        return;
    }
    let (entry, entry_type) = match crate::session::skim::read_line(line) {
        crate::session::skim::LineRead::Object(s) => (s.id.map(|c| c.into_owned()), s.kind.map(|c| c.into_owned())),
        _ => (None, None),
    };
    for (path, reason) in unscannable {
        out.unscannable.push(Unscannable {
            line: number,
            entry: entry.clone(),
            path,
            reason,
        });
    }
    for (path, token, key, hit, preview, length) in found {
        let signature = path
            .strip_suffix(".thinking")
            .and_then(|block| signatures.iter().find(|(p, _)| p == block))
            .map(|(_, span)| span.clone());
        out.findings.push(Finding {
            line: number,
            entry: entry.clone(),
            entry_type: entry_type.clone(),
            path,
            rule: hit.rule,
            preview,
            length,
            at: At {
                line: line_range.clone(),
                token: Some(token),
                secret: hit.range,
                signature,
                key,
            },
        });
    }
}

/// The redacted thinking blocks and encrypted reasoning of a line's message.
fn opaque_payloads(line: &[u8]) -> Vec<(String, &'static str)> {
    let Ok(value) = crate::json::jsparse::parse(line) else {
        return Vec::new();
    };
    let Some(blocks) = value.pointer("/message/content").and_then(|c| c.as_array()) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for (i, block) in blocks.iter().enumerate() {
        if block.get("type").and_then(|t| t.as_str()) != Some("thinking") {
            continue;
        }
        if block.get("redacted") == Some(&serde_json::Value::Bool(true)) {
            out.push((
                format!("message.content[{i}]"),
                "redacted thinking: an encrypted payload",
            ));
        } else if block
            .get("thinkingSignature")
            .and_then(|s| s.as_str())
            .is_some_and(|s| s.contains("encrypted_content"))
        {
            out.push((format!("message.content[{i}]"), "encrypted reasoning"));
        }
    }
    out
}

/// The file's bytes with every finding replaced by `[REDACTED:<rule>]`: only the string
/// tokens that held a secret change (and the signature of a thinking block whose text
/// changed, which becomes `""`); every other byte stays.
pub fn redact(bytes: &[u8], scan: &FileScan) -> Vec<u8> {
    let mut out = Vec::with_capacity(bytes.len());
    let mut copied = 0;
    let mut i = 0;
    let findings = &scan.findings;
    while i < findings.len() {
        let line = findings[i].at.line.clone();
        let mut j = i;
        while j < findings.len() && findings[j].at.line == line {
            j += 1;
        }
        out.extend_from_slice(&bytes[copied..line.start]);
        out.extend_from_slice(&redact_line(&bytes[line.clone()], &findings[i..j]));
        copied = line.end;
        i = j;
    }
    out.extend_from_slice(&bytes[copied..]);
    out
}

/// `bytes` with every finding taken out, scanning the result again until nothing is found:
/// a marker put where a secret was can make the text beside it match (a GitHub token right
/// after a private key's `-----END …-----` is not one to a rule that wants no `-` before it,
/// but is after `[REDACTED:private-key]`). Returns the bytes and the findings of every round
/// (`scan`'s first); `None` when `scan` found nothing.
pub fn redact_all(bytes: &[u8], mut scan: FileScan, rules: &RuleSet) -> Option<(Vec<u8>, FileScan)> {
    if scan.findings.is_empty() {
        return None;
    }
    let mut out = redact(bytes, &scan);
    // Each round takes out at least one secret and adds none that was not there, so this
    // ends; the bound is a guard.
    for _ in 0..8 {
        let again = self::scan(&out, rules);
        if again.findings.is_empty() {
            break;
        }
        out = redact(&out, &again);
        scan.findings.extend(again.findings);
    }
    scan.findings.sort_by_key(|f| f.line);
    Some((out, scan))
}

/// The marker put in place of a secret; the `n`th key of a line redacted (from the second
/// on) says its number too.
fn replacement(rule: &str, n: usize) -> String {
    if n > 1 {
        format!("[REDACTED:{rule}#{n}]")
    } else {
        format!("[REDACTED:{rule}]")
    }
}

fn redact_line(line: &[u8], findings: &[Finding]) -> Vec<u8> {
    if findings.iter().any(|f| f.at.token.is_none()) {
        // A damaged line: its secrets replaced in the raw bytes.
        let mut edits: Vec<(Range<usize>, Vec<u8>)> = Vec::new();
        let text = String::from_utf8_lossy(line);
        for f in findings {
            let secret = text[f.at.secret.clone()].as_bytes();
            let mut from = 0;
            while let Some(p) = memchr::memmem::find(&line[from..], secret) {
                edits.push((from + p..from + p + secret.len(), replacement(&f.rule, 1).into_bytes()));
                from += p + secret.len();
            }
        }
        edits.sort_by_key(|e| e.0.start);
        edits.dedup_by(|b, a| b.0.start < a.0.end);
        return walk::splice(line, &edits);
    }
    // Per token, its secrets; then the signatures to blank.
    /// A token and the secrets in its decoded text, with their replacements.
    type TokenEdits = (Range<usize>, Vec<(Range<usize>, String)>);
    let mut tokens: Vec<TokenEdits> = Vec::new();
    // Keys redacted in the line, numbered from the second on: two keys of an object made
    // the same would leave one member hidden behind the other.
    let mut keys: Vec<Range<usize>> = Vec::new();
    for f in findings {
        let token = f.at.token.clone().expect("a walked line's findings have tokens");
        let n = match keys.iter().position(|k| *k == token) {
            Some(n) => n + 1,
            None if f.at.key => {
                keys.push(token.clone());
                keys.len()
            }
            None => 1,
        };
        let marker = replacement(&f.rule, n);
        match tokens.iter_mut().find(|(t, _)| *t == token) {
            Some((_, edits)) => edits.push((f.at.secret.clone(), marker)),
            None => tokens.push((token, vec![(f.at.secret.clone(), marker)])),
        }
    }
    let mut edits: Vec<(Range<usize>, Vec<u8>)> = tokens
        .into_iter()
        .map(|(token, mut secrets)| {
            secrets.sort_by_key(|(r, _)| r.start);
            let raw = &line[token.clone()];
            let decoded = walk::decode(raw);
            let pairs: Vec<(Range<usize>, &str)> = secrets.iter().map(|(r, s)| (r.clone(), s.as_str())).collect();
            (token, walk::replace_in_token(raw, &decoded, &pairs))
        })
        .collect();
    for f in findings {
        if let Some(sig) = &f.at.signature
            && !edits.iter().any(|(t, _)| t == sig)
        {
            edits.push((sig.clone(), b"\"\"".to_vec()));
        }
    }
    edits.sort_by_key(|e| e.0.start);
    walk::splice(line, &edits)
}

/// Scans a session file (read as it is on disk, without a lock: nothing is written).
pub fn scan_path(path: &std::path::Path, rules: &RuleSet) -> Result<FileScan, crate::session::SessionError> {
    let data = crate::session::io::data::Data::open(path).map_err(|e| crate::session::SessionError::io(path, e))?;
    Ok(scan(&data, rules))
}

/// Scans many files, several at a time; results in the order of `paths`. `progress` hears
/// of a step per file.
pub fn scan_paths(
    paths: &[std::path::PathBuf],
    rules: &RuleSet,
    progress: &dyn crate::progress::Progress,
) -> Vec<Result<FileScan, crate::session::SessionError>> {
    progress.start("sessions", Some(paths.len() as u64));
    let results = crate::parallel::par_map(paths, |p| scan_path(p, rules), || progress.advance(1));
    progress.finish();
    results
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A string value: ordinary text, escapes, and now and then a token shaped like a
    /// GitHub or Slack token or a private key, pieced together here.
    fn text() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            "[ a-z=:\"\\\\\n\té€😀]{0,12}",
            "[A-Za-z0-9]{36}".prop_map(|t| format!("{}{t}", "ghp_")),
            "[0-9]{12}-[A-Za-z0-9]{24}".prop_map(|t| format!("{}{t}", "xoxb-1234567890-")),
            "[A-Za-z0-9+/]{64}".prop_map(|b| format!("-----BEGIN {0}-----\n{b}\n-----END {0}-----", "RSA PRIVATE KEY")),
            "[A-Za-z0-9]{20}".prop_map(|p| format!("export DB_PASSWORD={p}9x")),
        ];
        prop::collection::vec(piece, 0..5).prop_map(|v| v.concat())
    }

    fn line() -> impl Strategy<Value = Vec<u8>> {
        prop_oneof![
            (text(), text(), text()).prop_map(|(a, b, c)| {
                serde_json::json!({"type": "message", "id": "e1", "message": {"role": "user",
                    "content": [{"type": "text", "text": a}, {"type": "thinking", "thinking": b, "thinkingSignature": "sig"}],
                    "note": c}})
                .to_string()
                .into_bytes()
            }),
            // Damaged: cut short.
            text().prop_map(|a| {
                let mut l = serde_json::json!({"type": "message", "text": a}).to_string().into_bytes();
                l.truncate(l.len() / 2 + 1);
                l
            }),
        ]
    }

    /// A file of several pieces: each numbers its lines from 1, and the numbers come out as
    /// the file's (findings, opaque payloads and damaged lines alike).
    #[test]
    fn line_numbers_run_across_pieces() {
        let filler = serde_json::json!({"type": "message", "message": {"role": "user", "content": "x".repeat(3000)}});
        let secret = serde_json::json!({"type": "message", "id": "s", "message": {"role": "user",
            "content": "ghp_Zq8Lr2Vx9Kt4Mw7Np3Hs6Jd1Fg5Bc0Ya8XeU"}});
        let opaque = serde_json::json!({"type": "message", "id": "o", "message": {"role": "assistant",
            "content": [{"type": "thinking", "thinking": "", "redacted": true}]}});
        let mut bytes = Vec::new();
        let mut want = Vec::new();
        for n in 1..=2000u32 {
            let line = match n {
                700 | 1999 => secret.to_string(),
                1500 => opaque.to_string(),
                1800 => "{\"type\": \"message\", \"token\": ghp_Zq8Lr2Vx9Kt4Mw7Np3Hs6Jd1Fg5Bc0Ya8XeU".to_owned(),
                _ => filler.to_string(),
            };
            if matches!(n, 700 | 1999 | 1800) {
                want.push(n);
            }
            bytes.extend_from_slice(line.as_bytes());
            bytes.push(b'\n');
        }
        assert!(bytes.len() > 5 << 20);
        let found = scan(&bytes, &RuleSet::builtin());
        assert_eq!(found.findings.iter().map(|f| f.line).collect::<Vec<_>>(), want);
        assert_eq!(found.unscannable.iter().map(|u| u.line).collect::<Vec<_>>(), [1500]);
        assert_eq!(found.damaged_lines, [1800]);
    }

    proptest! {
        #[test]
        fn redaction_leaves_nothing_to_find_and_touches_only_lines_with_findings(
            lines in prop::collection::vec(line(), 1..6)
        ) {
            // Built once: compiling the rules' regexes dominates a debug test run.
            static RULES: std::sync::OnceLock<RuleSet> = std::sync::OnceLock::new();
            let rules = RULES.get_or_init(RuleSet::builtin);
            let bytes: Vec<u8> = lines.iter().flat_map(|l| l.iter().copied().chain([b'\n'])).collect();
            let found = scan(&bytes, rules);
            let (out, found) = redact_all(&bytes, found, rules).unwrap_or((bytes.clone(), FileScan::default()));
            prop_assert!(scan(&out, rules).findings.is_empty(), "{:?}", String::from_utf8_lossy(&out));
            let before: Vec<&[u8]> = bytes.split(|&b| b == b'\n').collect();
            let after: Vec<&[u8]> = out.split(|&b| b == b'\n').collect();
            prop_assert_eq!(before.len(), after.len());
            for (n, (b, a)) in before.iter().zip(&after).enumerate() {
                let touched = found.findings.iter().any(|f| f.line as usize == n + 1);
                if !touched {
                    prop_assert_eq!(b, a);
                    continue;
                }
                // A line that was JSON still is, with the same shape.
                if let Ok(old) = crate::json::jsparse::parse(b) {
                    let new = crate::json::jsparse::parse(a);
                    prop_assert!(new.is_ok(), "{:?}", String::from_utf8_lossy(a));
                    let new = new.unwrap();
                    prop_assert_eq!(&old["type"], &new["type"]);
                    prop_assert_eq!(&old["id"], &new["id"]);
                }
            }
        }
    }

    /// A finding as the tests compare them: line, path, rule, token, secret.
    type Found = (u32, String, String, Option<Range<usize>>, Range<usize>);

    /// What a scan finds without its shortcuts: every string of every line (keys included)
    /// decoded and matched by every rule, a line not JSON matched as text.
    fn reference(bytes: &[u8], rules: &RuleSet) -> Vec<Found> {
        let mut out = Vec::new();
        for (n, raw) in bytes.split(|&b| b == b'\n').enumerate() {
            let line = raw.strip_suffix(b"\r").unwrap_or(raw);
            let number = n as u32 + 1;
            let mut found = Vec::new();
            let walked = walk::for_each_string(line, |path, span, is_key| {
                if !is_key && (structural(path) || opaque(path)) {
                    return;
                }
                for hit in rules.find(&walk::decode(&line[span.clone()]).text) {
                    found.push((
                        number,
                        finding_path(path, is_key),
                        hit.rule,
                        Some(span.clone()),
                        hit.range,
                    ));
                }
            });
            if walked.is_ok() {
                out.extend(found);
            } else if !line.iter().all(u8::is_ascii_whitespace) {
                let text = String::from_utf8_lossy(line);
                for hit in rules.find(&text) {
                    if memchr::memmem::find(line, text[hit.range.clone()].as_bytes()).is_some() {
                        out.push((number, String::new(), hit.rule, None, hit.range));
                    }
                }
            }
        }
        out
    }

    /// A string body as written on disk: keywords before assignments and URLs in many
    /// shapes, tokens, and escapes that hide a keyword's letters (`\u0067hp_`, `:\/\/`) or
    /// stand between a name and its value.
    fn raw_body() -> impl Strategy<Value = String> {
        let name = prop::sample::select(vec![
            "api_key",
            "TOKEN",
            "Secret",
            "db_passwd",
            "pwd",
            "credential",
            "aws_secret",
            "aws",
            "tokenizer",
            "\\u006bey",
            "to\\u006ben",
            "\u{212A}ey",
            "\u{17F}ecret",
            "k\\u0065y",
            "x",
            "\\token",
        ]);
        let glue = prop::sample::select(vec!["", "\\\"", "'", "\\\\\\\"", " ", "\\t", "\\\"\\t ", "\\u0022"]);
        let op = prop::sample::select(vec!["=", ":", "=>", ":=", "==", ": ", " = ", "=\\n", "\\u003d", ","]);
        let quote = prop::sample::select(vec!["", "\\\"", "'", "\\\\\\\"", "\\u0027"]);
        let value = prop_oneof![
            "[A-Za-z0-9/+]{10,45}",
            "[A-Za-z0-9]{8,20}(\\\\/|\\\\b|\\\\u0041|é|\\\\\\\\)[A-Za-z0-9]{8,30}",
            "[ -!#-\\[\\]-~]{0,20}",
        ];
        let assignment = (name, glue, op, quote, value).prop_map(|(n, g, o, q, v)| format!("{n}{g}{o}{q}{v}"));
        let url = (
            prop::sample::select(vec!["https://", "postgres:\\/\\/", "ftp:\\u002f/", "s3://"]),
            "[a-z]{0,6}",
            prop::sample::select(vec![":", "\\u003a", ""]),
            "[A-Za-z0-9]{1,12}",
            prop::sample::select(vec!["@", "\\u0040", "\\/@", " @", ""]),
            "[a-z]{1,8}",
        )
            .prop_map(|(s, u, c, p, at, h)| format!("{s}{u}{c}{p}{at}{h}.example.com/x"));
        let tokens = prop_oneof![
            "[A-Za-z0-9]{36}".prop_map(|t| format!("{}{t}", "ghp_")),
            "[A-Za-z0-9]{36}".prop_map(|t| format!("{}{t}", "\\u0067hp_")),
            "[A-Za-z0-9]{36}".prop_map(|t| format!("{}{t}", "np\\u006d_")),
            "[A-Z2-7]{16}".prop_map(|t| format!("{}{t}", "AKIA")),
            "[0-9]{12}-[A-Za-z0-9]{24}".prop_map(|t| format!("{}{t}", "xoxb-1234567890-")),
            Just("planted-own-value-42".to_string()),
            Just("planted-own\\u002dvalue-42".to_string()),
            Just("a\\/b\\\\c-own-value".to_string()),
        ];
        let other = prop::sample::select(vec![
            " ",
            "\\n",
            "\\t",
            "\\\"",
            "\\\\",
            "\\/",
            "\\u00e9",
            "\\ud83d",
            ", ",
            "; ",
            "token ",
            "key: x",
            "日本",
            "\\u0041",
            "\\\"apiKey\\\": ",
        ]);
        let piece = prop_oneof![3 => assignment, 1 => url, 1 => tokens, 2 => other.prop_map(String::from)];
        prop::collection::vec(piece, 0..6).prop_map(|v| v.concat())
    }

    fn raw_line() -> impl Strategy<Value = Vec<u8>> {
        (raw_body(), raw_body(), raw_body(), 0usize..4, 0usize..200).prop_map(|(a, b, key, shape, cut)| {
            let line = match shape {
                0 => format!(r#"{{"type":"message","id":"e1","message":{{"role":"user","content":[{{"type":"text","text":"{a}"}},{{"type":"thinking","thinking":"{b}","thinkingSignature":"sig"}}]}}}}"#),
                1 => format!(r#"{{"type":"custom","id":"e2","{key}":"{a}","data":{{"{b}":["{a}{b}",1,true,null]}}}}"#),
                2 => format!(r#"{{"type":"label","id":"e3","label":"{a}"}}"#),
                _ => {
                    // Damaged: cut short.
                    let l = format!(r#"{{"type":"message","id":"e4","text":"{a} {b}"}}"#);
                    l[..l.floor_char_boundary(cut.min(l.len()))].to_string()
                }
            };
            line.into_bytes()
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        /// The keyword prefilter, the assignment and URL checks on raw bytes and the lines
        /// left unread find exactly what decoding and matching every string finds.
        #[test]
        fn the_shortcuts_find_what_matching_every_string_finds(
            lines in prop::collection::vec(raw_line(), 1..5), own in any::<bool>(),
        ) {
            static RULES: std::sync::OnceLock<(RuleSet, RuleSet)> = std::sync::OnceLock::new();
            let (plain, mine) = RULES.get_or_init(|| {
                let plain = RuleSet::builtin();
                let mine = RuleSet::builtin().with_exact(vec![
                    ("P".into(), "planted-own-value-42".into()),
                    ("S".into(), "a/b\\c-own-value".into()),
                ]);
                (plain, mine)
            });
            let rules = if own { mine } else { plain };
            let bytes: Vec<u8> = lines.iter().flat_map(|l| l.iter().copied().chain([b'\n'])).collect();
            let got: Vec<_> = scan(&bytes, rules)
                .findings
                .into_iter()
                .map(|f| (f.line, f.path, f.rule, f.at.token, f.at.secret))
                .collect();
            prop_assert_eq!(got, reference(&bytes, rules), "{}", String::from_utf8_lossy(&bytes));
        }
    }
}
