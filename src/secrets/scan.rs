//! The credentials a session file holds: every string of every line, scanned by the rules.
//!
//! A line is looked at only when the rules' keywords occur in its raw bytes (one pass over
//! the line); then each string value is decoded and matched. Lines are scanned on every
//! core. What the file holds on disk is what counts, so a line Pi would skip as damaged is
//! scanned as text, and a key written twice in an object is scanned twice.

use super::rules::{RuleSet, mask, needles};
use super::walk::{self, Step};
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
    let first_lines: Vec<u32> = {
        let mut n = 1u32;
        pieces
            .iter()
            .map(|p| {
                let first = n;
                n += memchr::memchr_iter(b'\n', &bytes[p.clone()]).count() as u32;
                first
            })
            .collect()
    };
    let jobs: Vec<(Range<usize>, u32)> = pieces.into_iter().zip(first_lines).collect();
    let parts = crate::parallel::par_map(
        &jobs,
        |(piece, first)| scan_piece(bytes, piece.clone(), *first, rules),
        || {},
    );
    let mut all = FileScan::default();
    for part in parts {
        all.findings.extend(part.findings);
        all.unscannable.extend(part.unscannable);
        all.damaged_lines.extend(part.damaged_lines);
    }
    all
}

fn scan_piece(bytes: &[u8], piece: Range<usize>, first_line: u32, rules: &RuleSet) -> FileScan {
    let mut out = FileScan::default();
    // One walker for the piece: its path and key buffers are reused from line to line.
    let mut scratch = Scratch::default();
    let mut at = piece.start;
    let mut number = first_line;
    while at < piece.end {
        let end = memchr::memchr(b'\n', &bytes[at..piece.end]).map_or(piece.end, |n| at + n);
        let raw = &bytes[at..end];
        let line = raw.strip_suffix(b"\r").unwrap_or(raw);
        scan_line(line, at, number, rules, &mut scratch, &mut out);
        at = end + 1;
        number += 1;
    }
    out
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
    // Where the rules' keywords occur in the raw line: only the strings holding one (or an
    // escape, which could spell one) are decoded and matched.
    let hits = rules.keyword_hits(line, &mut scratch.lower);
    let spans = hits.as_deref().map(RuleSet::spans_of);
    if spans.as_ref().is_some_and(Vec::is_empty) && !opaque_here {
        return;
    }
    let worth_matching = |token: &Range<usize>| match &spans {
        None => true,
        Some(spans) => {
            let first = spans.partition_point(|s| s.start < token.start);
            spans[first..]
                .iter()
                .take_while(|s| s.start < token.end)
                .any(|s| s.end <= token.end)
                || needles::BACKSLASH_U.find(&line[token.clone()]).is_some()
        }
    };
    let line_range = offset..offset + line.len();
    // (path, token, hit, preview, length in characters)
    let mut found: Vec<(String, Range<usize>, super::rules::Hit, String, usize)> = Vec::new();
    // Signature tokens by the path of their block, to blank with the block's text.
    let mut signatures: Vec<(String, Range<usize>)> = Vec::new();
    let walked = scratch.walker.walk(line, |path, span, is_key| {
        if is_key || structural(path) {
            return;
        }
        if opaque(path) {
            if let [parent @ .., Step::Key(k)] = path
                && k == "thinkingSignature"
            {
                signatures.push((walk::render(parent), span));
            }
            return;
        }
        if !worth_matching(&span) {
            return;
        }
        let raw = &line[span.clone()];
        let decoded = walk::decode(raw);
        // The rules to run, from the line's keyword hits when the token's escapes allow.
        let woken = hits.as_deref().and_then(|h| rules.woken_by_raw(raw, span.start, h));
        let found_here = match woken {
            Some(run) => rules.find_woken(&decoded.text, &run),
            None => rules.find(&decoded.text),
        };
        for hit in found_here {
            let secret = &decoded.text[hit.range.clone()];
            let (preview, length) = (mask(secret), secret.chars().count());
            found.push((walk::render(path), span.clone(), hit, preview, length));
        }
    });
    if walked.is_err() {
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
    for (path, token, hit, preview, length) in found {
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
            },
        });
    }
}

/// The redacted thinking blocks and encrypted reasoning of a line's message.
fn opaque_payloads(line: &[u8]) -> Vec<(String, &'static str)> {
    let Ok(value) = crate::session::jsparse::parse(line) else {
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

fn replacement(rule: &str) -> String {
    format!("[REDACTED:{rule}]")
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
                edits.push((from + p..from + p + secret.len(), replacement(&f.rule).into_bytes()));
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
    for f in findings {
        let token = f.at.token.clone().expect("a walked line's findings have tokens");
        match tokens.iter_mut().find(|(t, _)| *t == token) {
            Some((_, edits)) => edits.push((f.at.secret.clone(), replacement(&f.rule))),
            None => tokens.push((token, vec![(f.at.secret.clone(), replacement(&f.rule))])),
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
    let data = crate::session::data::Data::open(path).map_err(|e| crate::session::SessionError::io(path, e))?;
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
                if let Ok(old) = crate::session::jsparse::parse(b) {
                    let new = crate::session::jsparse::parse(a);
                    prop_assert!(new.is_ok(), "{:?}", String::from_utf8_lossy(a));
                    let new = new.unwrap();
                    prop_assert_eq!(&old["type"], &new["type"]);
                    prop_assert_eq!(&old["id"], &new["id"]);
                }
            }
        }
    }
}
