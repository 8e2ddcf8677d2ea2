use crate::cli::GlobalArgs;
use crate::cli::output::{Output, escape_block, escape_line, local_time, local_time_into};
use crate::cli::session_arg::{open_session_redacted, warn_cycle};
use anyhow::Result;
use pi_session::session::Session;
use pi_session::session::write;
use pi_session::transcript::{self, Class, Head, Part, Plan, Section};
use std::borrow::Cow;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Export a branch as a readable transcript: Markdown, or one self-contained HTML file.
///
/// The transcript follows the branch ending at REV from its root: messages with their text,
/// thinking, tool calls and results, bash commands, custom messages, compaction and branch
/// summaries, and model changes. The HTML file has its CSS inline, loads nothing, runs no
/// script, and folds tool calls, tool results and thinking into collapsible sections.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Export the branch ending at this revision [default: @].
    #[arg(value_name = "REV")]
    pub rev: Option<String>,

    /// md or html [default: html when FILE ends in .html or .htm, else md].
    #[arg(long, value_enum)]
    pub format: Option<Format>,

    /// Write to FILE instead of stdout (`-` is stdout). The file is written atomically (a temp
    /// file linked into place) and never replaces an existing file without --force.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Replace the -o file if it exists (atomically: the new file is renamed over it).
    #[arg(long, short = 'f')]
    pub force: bool,

    /// Take the credentials `secrets` finds (built-in rules, ./.gitleaks.toml, your own
    /// keys) out of what is written, as `redact` would; the session file is not changed.
    #[arg(long)]
    pub redact: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Md,
    Html,
}

/// Bytes that may start a character `clean` or `line` changes: C0 controls, DEL, and the
/// first bytes of C1 controls (`C2`), of the bidirectional controls (`E2`) and of the
/// stand-ins for lone surrogates (`F4`).
const SUSPECT: [bool; 256] = {
    let mut t = [false; 256];
    let mut b = 0;
    while b < 0x20 {
        t[b] = true;
        b += 1;
    }
    t[0x7f] = true;
    t[0xc2] = true;
    t[0xe2] = true;
    t[0xf4] = true;
    t
};

/// For 16 bytes: a bit per byte in [`SUSPECT`] (`\n` and `\t` not counted with `lines`).
#[inline]
fn suspects16(block: &[u8], lines: bool) -> u32 {
    debug_assert_eq!(block.len(), 16);
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        // SAFETY: SSE2 is part of the x86_64 baseline; the load reads the 16 bytes of `block`.
        unsafe {
            let v = _mm_loadu_si128(block.as_ptr().cast::<__m128i>());
            let max_control = _mm_set1_epi8(0x1f);
            let mut control = _mm_cmpeq_epi8(_mm_max_epu8(v, max_control), max_control);
            if lines {
                let kept = _mm_or_si128(
                    _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\n' as i8)),
                    _mm_cmpeq_epi8(v, _mm_set1_epi8(b'\t' as i8)),
                );
                control = _mm_andnot_si128(kept, control);
            }
            let high = _mm_or_si128(
                _mm_or_si128(
                    _mm_cmpeq_epi8(v, _mm_set1_epi8(0x7f)),
                    _mm_cmpeq_epi8(v, _mm_set1_epi8(0xc2u8 as i8)),
                ),
                _mm_or_si128(
                    _mm_cmpeq_epi8(v, _mm_set1_epi8(0xe2u8 as i8)),
                    _mm_cmpeq_epi8(v, _mm_set1_epi8(0xf4u8 as i8)),
                ),
            );
            _mm_movemask_epi8(_mm_or_si128(control, high)) as u32
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let mut mask = 0;
        for (k, &b) in block.iter().enumerate() {
            let suspect = SUSPECT[b as usize] && !(lines && (b == b'\n' || b == b'\t'));
            mask |= u32::from(suspect) << k;
        }
        mask
    }
}

/// Whether the suspect byte at `i` of `b` starts a character `escape_line` (with `lines`:
/// `escape_block`) changes, or is a `\r`.
#[inline]
fn changed_at(b: &[u8], i: usize, lines: bool) -> bool {
    let next = |k: usize| b.get(i + k).copied().unwrap_or(0);
    match b[i] {
        b'\n' | b'\t' => !lines,
        0xc2 => (0x80..=0x9f).contains(&next(1)),
        0xe2 => {
            (next(1) == 0x80 && (0xaa..=0xae).contains(&next(2)))
                || (next(1) == 0x81 && (0xa6..=0xa9).contains(&next(2)))
        }
        0xf4 => next(1) == 0x8f && next(2) >= 0xa0,
        _ => true,
    }
}

/// For 32 bytes at `at` of `b`: a bit per byte in [`SUSPECT`] (`\n` and `\t` not counted
/// with `lines`), with AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn suspects32(b: &[u8], at: usize, lines: bool) -> u32 {
    use std::arch::x86_64::*;
    let block = &b[at..at + 32];
    // SAFETY: the load reads the 32 bytes of `block`.
    let v = unsafe { _mm256_loadu_si256(block.as_ptr().cast::<__m256i>()) };
    let eq = |c: u8| _mm256_cmpeq_epi8(v, _mm256_set1_epi8(c as i8));
    let max_control = _mm256_set1_epi8(0x1f);
    let mut control = _mm256_cmpeq_epi8(_mm256_max_epu8(v, max_control), max_control);
    if lines {
        control = _mm256_andnot_si256(_mm256_or_si256(eq(b'\n'), eq(b'\t')), control);
    }
    let high = _mm256_or_si256(_mm256_or_si256(eq(0x7f), eq(0xc2)), _mm256_or_si256(eq(0xe2), eq(0xf4)));
    _mm256_movemask_epi8(_mm256_or_si256(control, high)) as u32
}

/// [`is_plain`] 32 bytes at a time, with AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn is_plain_avx2(b: &[u8], lines: bool) -> bool {
    is_plain_by::<32>(b, lines, |at| suspects32(b, at, lines))
}

/// [`is_plain`] `N` bytes at a time, `suspects(at)` giving the bytes at `at..at + N` that
/// may need a change.
#[inline(always)]
fn is_plain_by<const N: usize>(b: &[u8], lines: bool, suspects: impl Fn(usize) -> u32) -> bool {
    let mut at = 0;
    while at + N <= b.len() {
        let mut mask = suspects(at);
        while mask != 0 {
            if changed_at(b, at + mask.trailing_zeros() as usize, lines) {
                return false;
            }
            mask &= mask - 1;
        }
        at += N;
    }
    (at..b.len()).all(|i| !SUSPECT[b[i] as usize] || !changed_at(b, i, lines))
}

/// Whether `s` has no character that `escape_line` (with `lines`: `escape_block`) changes,
/// and no `\r`: most session text needs no change, and is read 32 or 16 bytes at a time.
fn is_plain(s: &str, lines: bool) -> bool {
    let b = s.as_bytes();
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2.
        return unsafe { is_plain_avx2(b, lines) };
    }
    is_plain_16(b, lines)
}

/// [`is_plain`] 16 bytes at a time.
fn is_plain_16(b: &[u8], lines: bool) -> bool {
    is_plain_by::<16>(b, lines, |at| suspects16(&b[at..at + 16], lines))
}

/// Session text made safe to print: CRLF as LF, control characters escaped (tab and LF kept).
fn clean(s: &str) -> Cow<'_, str> {
    if is_plain(s, true) {
        return s.into();
    }
    escape_block(&s.replace("\r\n", "\n")).into()
}

/// Session text for one line: every control character escaped.
fn line(s: &str) -> Cow<'_, str> {
    if is_plain(s, false) {
        return s.into();
    }
    escape_line(s).into()
}

/// Bytes HTML escapes.
const HTML_SPECIAL: [bool; 256] = {
    let mut t = [false; 256];
    t[b'&' as usize] = true;
    t[b'<' as usize] = true;
    t[b'>' as usize] = true;
    t[b'"' as usize] = true;
    t[b'\'' as usize] = true;
    t
};

/// For 32 bytes: a bit per byte HTML escapes.
#[inline]
fn html_specials32(block: &[u8]) -> u32 {
    debug_assert_eq!(block.len(), 32);
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        // SAFETY: SSE2 is part of the x86_64 baseline; the two loads read the 32 bytes of `block`.
        unsafe {
            let mut mask = 0u32;
            for half in 0..2 {
                let v = _mm_loadu_si128(block.as_ptr().add(half * 16).cast::<__m128i>());
                let eq = |c: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(c as i8));
                let hit = _mm_or_si128(
                    _mm_or_si128(_mm_or_si128(eq(b'&'), eq(b'<')), _mm_or_si128(eq(b'>'), eq(b'"'))),
                    eq(b'\''),
                );
                mask |= (_mm_movemask_epi8(hit) as u32) << (half * 16);
            }
            mask
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let mut mask = 0u32;
        for (j, &c) in block.iter().enumerate() {
            mask |= u32::from(HTML_SPECIAL[c as usize]) << j;
        }
        mask
    }
}

/// Appends text escaped for HTML content and attribute values. The text is read 32 bytes
/// at a time: a mask of where the specials are, then each special in turn.
fn push_escaped_html(out: &mut String, s: &str) {
    let b = s.as_bytes();
    let mut from = 0;
    let mut escape = |out: &mut String, i: usize| {
        out.push_str(&s[from..i]);
        out.push_str(match b[i] {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            b'"' => "&quot;",
            _ => "&#39;",
        });
        from = i + 1;
    };
    let mut at = 0;
    while let Some(block) = b.get(at..at + 32) {
        let mut mask = html_specials32(block);
        while mask != 0 {
            escape(out, at + mask.trailing_zeros() as usize);
            mask &= mask - 1;
        }
        at += 32;
    }
    for i in at..b.len() {
        if HTML_SPECIAL[b[i] as usize] {
            escape(out, i);
        }
    }
    out.push_str(&s[from..]);
}

/// Appends text escaped for HTML content and attribute values; never a raw control character.
fn push_html(out: &mut String, s: &str) {
    push_escaped_html(out, &clean(s));
}

/// Appends one-line text for HTML (headings, summaries).
fn push_html_line(out: &mut String, s: &str) {
    push_escaped_html(out, &line(s));
}

#[cfg(test)]
fn html(s: &str) -> String {
    let mut out = String::new();
    push_html(&mut out, s);
    out
}

/// An image Pi stored inline, if it is a plain raster image in base64.
fn safe_image(mime: &str, data: &str) -> bool {
    matches!(mime, "image/png" | "image/jpeg" | "image/gif" | "image/webp")
        && !data.is_empty()
        && data
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b'\n' | b'\r'))
}

/// The header lines of the transcript: what, where, when, which branch, by whom.
fn info(t: &Head) -> Vec<(&'static str, String)> {
    let mut info = vec![("Session", t.session_id.clone())];
    if let Some(cwd) = &t.cwd {
        info.push(("Directory", cwd.clone()));
    }
    info.push(("Created", local_time(t.created.as_deref())));
    if let Some(b) = &t.branch {
        info.push(("Branch", format!("{} → {} ({} entries)", b.first, b.last, b.entries)));
    }
    info.push(("Exported by", format!("pi-session {}", env!("CARGO_PKG_VERSION"))));
    info
}

/// Backticks enough to fence `s`: one more than its longest run, at least `min`. Borrowed
/// for the usual lengths: a fence is written around every id and block.
fn fence_for(s: &str, min: usize) -> Cow<'static, str> {
    const TICKS: &str = "````````````````";
    let mut longest = 0;
    let mut run = 0;
    let mut last = usize::MAX;
    for i in memchr::memchr_iter(b'`', s.as_bytes()) {
        run = if last.wrapping_add(1) == i { run + 1 } else { 1 };
        longest = longest.max(run);
        last = i;
    }
    let n = (longest + 1).max(min);
    match TICKS.get(..n) {
        Some(f) => f.into(),
        None => "`".repeat(n).into(),
    }
}

fn push_md_code(md: &mut String, s: &str) {
    let s = line(s);
    let f = fence_for(&s, 1);
    let pad = if s.starts_with('`') || s.ends_with('`') {
        " "
    } else {
        ""
    };
    for piece in [&*f, pad, &s, pad, &f] {
        md.push_str(piece);
    }
}

#[cfg(test)]
fn md_code(s: &str) -> String {
    let mut out = String::new();
    push_md_code(&mut out, s);
    out
}

fn push_md_block(md: &mut String, s: &str, lang: &str) {
    let s = clean(s);
    let f = fence_for(&s, 3);
    for piece in [&*f, lang, "\n", s.trim_end_matches('\n'), "\n", &f, "\n"] {
        md.push_str(piece);
    }
}

fn md_head(doc: &Head, md: &mut String) {
    md.push_str("# ");
    md.push_str(&line(&doc.title));
    md.push_str("\n\n");
    for (k, v) in &info(doc) {
        md.push_str("- ");
        md.push_str(k);
        md.push_str(": ");
        if matches!(*k, "Session" | "Directory") {
            push_md_code(md, v);
        } else {
            md.push_str(&line(v));
        }
        md.push('\n');
    }
}

fn md_section(s: &Section, md: &mut String) {
    md.push_str("\n---\n\n");
    if s.class == Class::Note {
        md.push('_');
        md.push_str(&line(&s.title));
        md.push_str("_ · ");
        local_time_into(md, s.timestamp);
        md.push_str(" · ");
        push_md_code(md, &s.id);
        md.push('\n');
        return;
    }
    md.push_str("## ");
    md.push_str(&line(&s.title));
    md.push_str("\n\n_");
    local_time_into(md, s.timestamp);
    for m in &s.meta {
        md.push_str(" · ");
        md.push_str(&line(m));
    }
    md.push_str(" · ");
    push_md_code(md, &s.id);
    md.push_str("_\n\n");
    for p in &s.parts {
        match p {
            Part::Text(t) => {
                md.push_str(clean(t).trim_end());
                md.push_str("\n\n");
            }
            Part::Thinking(t) => {
                md.push_str("> **Thinking**\n>\n");
                let t = clean(t);
                for (i, l) in t.trim_end().lines().enumerate() {
                    if i > 0 {
                        md.push('\n');
                    }
                    md.push_str("> ");
                    md.push_str(l);
                }
                md.push_str("\n\n");
            }
            Part::ToolCall { name, id, args } => {
                md.push_str("**→ ");
                push_md_code(md, name);
                md.push_str("** ");
                push_md_code(md, id);
                md.push_str("\n\n");
                push_md_block(md, args, "json");
                md.push('\n');
            }
            Part::ToolResult { name, id, error, text } => {
                md.push_str("**← ");
                push_md_code(md, name);
                md.push_str("** ");
                push_md_code(md, id);
                md.push_str(if *error { " (error)\n\n" } else { "\n\n" });
                push_md_block(md, text, "text");
                md.push('\n');
            }
            Part::Bash { command, output, exit } => {
                push_md_block(md, &format!("$ {command}\n{output}"), "console");
                if let Some(code) = exit {
                    md.push_str("\n_exit code ");
                    md.push_str(&line(code));
                    md.push_str("_\n");
                }
                md.push('\n');
            }
            Part::Image { mime, .. } => {
                md.push_str("_[image ");
                md.push_str(&line(mime));
                md.push_str("]_\n\n");
            }
            Part::Folded { title, text } => {
                md.push_str("**");
                md.push_str(&line(title));
                md.push_str("**\n\n");
                push_md_block(md, text, "text");
                md.push('\n');
            }
            Part::Note(n) => {
                md.push('_');
                md.push_str(&line(n));
                md.push_str("_\n\n");
            }
        }
    }
    while md.ends_with("\n\n") {
        md.pop();
    }
}

const CSS: &str = "
:root { color-scheme: light dark; --bg: #fafafa; --fg: #1f2328; --card: #fff; --border: #d0d7de;
  --muted: #656d76; --user: #0969da; --assistant: #8250df; --tool: #1a7f37; --error: #cf222e; --code: #f6f8fa; }
@media (prefers-color-scheme: dark) { :root { --bg: #0d1117; --fg: #e6edf3; --card: #161b22; --border: #30363d;
  --muted: #8d96a0; --user: #4493f8; --assistant: #ab7df8; --tool: #3fb950; --error: #f85149; --code: #1f2428; } }
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 15px/1.5 -apple-system, BlinkMacSystemFont, 'Segoe UI', Helvetica, Arial, sans-serif; }
header, main { max-width: 920px; margin: 0 auto; padding: 16px; }
h1 { font-size: 1.5em; margin: 0.5em 0; overflow-wrap: anywhere; }
dl.info { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; color: var(--muted); margin: 0; }
dl.info dd { margin: 0; overflow-wrap: anywhere; }
article { background: var(--card); border: 1px solid var(--border); border-left: 4px solid var(--border);
  border-radius: 6px; padding: 10px 14px; margin: 12px 0; }
article.user { border-left-color: var(--user); }
article.assistant { border-left-color: var(--assistant); }
article.tool, article.bash { border-left-color: var(--tool); }
article.note { background: none; border: none; padding: 0 14px; margin: 4px 0; color: var(--muted); font-size: 0.9em; }
.head { display: flex; flex-wrap: wrap; gap: 4px 12px; align-items: baseline; margin-bottom: 6px; }
.who { font-weight: 600; }
article.user .who { color: var(--user); }
article.assistant .who { color: var(--assistant); }
.meta, a.id { color: var(--muted); font-size: 0.85em; }
a.id { margin-left: auto; text-decoration: none; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
.text { white-space: pre-wrap; overflow-wrap: anywhere; margin: 6px 0; }
pre { background: var(--code); border-radius: 4px; padding: 8px; margin: 6px 0; overflow-x: auto;
  white-space: pre-wrap; overflow-wrap: anywhere; font: 13px/1.45 ui-monospace, SFMono-Regular, Menlo, monospace; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 0.9em; }
details { border: 1px solid var(--border); border-radius: 4px; margin: 6px 0; padding: 0 8px; }
details > summary { cursor: pointer; padding: 4px 0; color: var(--muted); }
details[open] > summary { border-bottom: 1px solid var(--border); margin-bottom: 4px; }
details.error > summary { color: var(--error); }
details.thinking .text { color: var(--muted); font-style: italic; }
.note { color: var(--muted); font-style: italic; }
img { max-width: 100%; border-radius: 4px; }
";

fn html_head(doc: &Head, h: &mut String) {
    h.push_str("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n");
    h.push_str(
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; \
         img-src data:\">\n",
    );
    h.push_str("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n");
    h.push_str(&format!(
        "<meta name=\"generator\" content=\"pi-session {}\">\n",
        env!("CARGO_PKG_VERSION")
    ));
    h.push_str("<title>");
    push_html_line(h, &doc.title);
    h.push_str("</title>\n");
    h.push_str(&format!("<style>{CSS}</style>\n</head>\n<body>\n<header>\n"));
    h.push_str("<h1>");
    push_html_line(h, &doc.title);
    h.push_str("</h1>\n<dl class=\"info\">\n");
    for (k, v) in &info(doc) {
        h.push_str("<dt>");
        h.push_str(k);
        h.push_str("</dt><dd>");
        push_html_line(h, v);
        h.push_str("</dd>\n");
    }
    h.push_str("</dl>\n</header>\n<main>\n");
}

const HTML_FOOT: &str = "</main>\n</body>\n</html>\n";

fn html_section(s: &Section, h: &mut String) {
    // The anchor is `e-` and the id, escaped as one line (escapes go character by character).
    h.push_str("<article class=\"");
    h.push_str(s.class.as_str());
    h.push_str("\" id=\"e-");
    push_html_line(h, &s.id);
    h.push_str("\">\n<div class=\"head\"><span class=\"who\">");
    push_html_line(h, &s.title);
    h.push_str("</span><span class=\"meta\">");
    // Digits and separators: nothing to escape.
    local_time_into(h, s.timestamp);
    for m in &s.meta {
        h.push_str(" · ");
        push_html_line(h, m);
    }
    h.push_str("</span><a class=\"id\" href=\"#e-");
    push_html_line(h, &s.id);
    h.push_str("\">");
    push_html_line(h, &s.id);
    h.push_str("</a></div>\n");
    for p in &s.parts {
        html_part(p, h);
    }
    h.push_str("</article>\n");
}

/// `N lines` of a text (`1 line`), trailing newlines not counted.
fn push_lines(h: &mut String, t: &str) {
    // Lines end at each `\n` (a `\r` before one is part of its end); the last needs none.
    let t = t.trim_end_matches('\n');
    let n = if t.is_empty() {
        0
    } else {
        memchr::memchr_iter(b'\n', t.as_bytes()).count() + 1
    };
    if n == 1 {
        h.push_str("1 line");
    } else {
        h.push_str(&n.to_string());
        h.push_str(" lines");
    }
}

fn html_part(p: &Part, h: &mut String) {
    match p {
        Part::Text(t) => {
            h.push_str("<div class=\"text\">");
            push_html(h, t.trim_end());
            h.push_str("</div>\n");
        }
        Part::Thinking(t) => {
            h.push_str("<details class=\"thinking\"><summary>Thinking</summary><div class=\"text\">");
            push_html(h, t.trim_end());
            h.push_str("</div></details>\n");
        }
        Part::ToolCall { name, id, args } => {
            h.push_str("<details class=\"tool-call\"><summary>→ <b>");
            push_html_line(h, name);
            h.push_str("</b> <code>");
            push_html_line(h, id);
            h.push_str("</code></summary><pre>\n");
            push_html(h, args);
            h.push_str("</pre></details>\n");
        }
        Part::ToolResult { name, id, error, text } => {
            h.push_str(if *error {
                "<details class=\"tool-result error\"><summary>← <b>"
            } else {
                "<details class=\"tool-result\"><summary>← <b>"
            });
            push_html_line(h, name);
            h.push_str("</b> <code>");
            push_html_line(h, id);
            h.push_str("</code> (");
            push_lines(h, text);
            h.push_str(if *error {
                ") (error)</summary><pre>\n"
            } else {
                ")</summary><pre>\n"
            });
            push_html(h, text.trim_end());
            h.push_str("</pre></details>\n");
        }
        Part::Bash { command, output, exit } => {
            h.push_str("<details class=\"bash\"><summary>$ <code>");
            push_html_line(h, command.lines().next().unwrap_or(""));
            h.push_str("</code>");
            if let Some(c) = exit.as_deref() {
                h.push_str(" (exit code ");
                push_html_line(h, c);
                h.push(')');
            }
            h.push_str("</summary><pre>\n$ ");
            push_html(h, command);
            h.push('\n');
            push_html(h, output.trim_end());
            h.push_str("</pre></details>\n");
        }
        Part::Image { mime, data } if safe_image(mime, data) => {
            h.push_str("<img alt=\"image\" src=\"data:");
            h.push_str(mime);
            h.push_str(";base64,");
            h.extend(data.chars().filter(|c| !c.is_ascii_whitespace()));
            h.push_str("\">\n");
        }
        Part::Image { mime, .. } => {
            h.push_str("<p class=\"note\">[image ");
            push_html_line(h, mime);
            h.push_str("]</p>\n");
        }
        Part::Folded { title, text } => {
            h.push_str("<details class=\"folded\"><summary>");
            push_html_line(h, title);
            h.push_str(" (");
            push_lines(h, text);
            h.push_str(")</summary><div class=\"text\">");
            push_html(h, text.trim_end());
            h.push_str("</div></details>\n");
        }
        Part::Note(n) => {
            h.push_str("<p class=\"note\">");
            push_html_line(h, n);
            h.push_str("</p>\n");
        }
    }
}

/// Writes the transcript of `plan` in `format` to `write`, piece by piece: the branch is
/// rendered `chunk_bytes` of session lines at a time on every core, and written in order.
fn render(
    session: &Session,
    plan: &Plan,
    format: Format,
    chunk_bytes: usize,
    mut write: impl FnMut(&[u8]) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut head = String::new();
    match format {
        Format::Md => md_head(&plan.head, &mut head),
        Format::Html => html_head(&plan.head, &mut head),
    }
    write(head.as_bytes())?;
    drop(head);
    let pieces = transcript::chunks(session, &plan.path, chunk_bytes);
    transcript::render_in_order(
        pieces.len(),
        |k, out| {
            let piece = &plan.path[pieces[k].clone()];
            for &i in piece {
                if let Some(s) = transcript::section(session, i) {
                    match format {
                        Format::Md => md_section(&s, out),
                        Format::Html => html_section(&s, out),
                    }
                }
            }
            // A large file's lines need not stay in memory once rendered.
            if let (Some(&first), Some(&last)) = (piece.iter().min(), piece.iter().max()) {
                session.release_entries(first..last + 1);
            }
        },
        |text| write(text.as_bytes()),
    )?;
    // Markdown ends with the newline of its last line; HTML with its closing tags.
    if format == Format::Html {
        write(HTML_FOOT.as_bytes())?;
    }
    Ok(())
}

/// Session lines rendered per piece of the transcript.
const CHUNK_BYTES: usize = 2 << 20;

fn format_of(args: &Args) -> Format {
    if let Some(f) = args.format {
        return f;
    }
    let ext = args
        .output
        .as_deref()
        .and_then(Path::extension)
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    match ext.as_deref() {
        Some("html" | "htm") => Format::Html,
        _ => Format::Md,
    }
}

pub fn run(global: &GlobalArgs, args: &Args, out: &mut Output) -> Result<()> {
    let session = open_session_redacted(global, args.redact)?;
    let options = transcript::Options { rev: args.rev.clone() };
    let plan = transcript::plan(&session, &options)?;
    warn_cycle(&session, plan.head.cycle_at);
    let format = format_of(args);
    match args.output.as_deref().filter(|p| p.as_os_str() != "-") {
        Some(path) => write::write_file_with(path, args.force, |f| {
            render(&session, &plan, format, CHUNK_BYTES, |b| f.write_all(b))
        })?,
        None => render(&session, &plan, format, CHUNK_BYTES, |b| out.raw(b))?,
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_html_and_controls() {
        assert_eq!(
            html("<script>alert('x\"&')</script>\x1b\x00\r\n"),
            "&lt;script&gt;alert(&#39;x&quot;&amp;&#39;)&lt;/script&gt;\\e\\x00\n"
        );
        // Long text, read in blocks: specials and controls anywhere in them.
        for k in 0..70 {
            let mut t = "ab日本語cd".repeat(9);
            let at = t.char_indices().nth(k).map_or(t.len(), |(i, _)| i);
            t.insert_str(at, "<&'\x1b\"");
            let want = t
                .replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('\'', "&#39;")
                .replace('"', "&quot;")
                .replace('\x1b', "\\e");
            assert_eq!(html(&t), want);
        }
    }

    proptest::proptest! {
        /// HTML escaping, read in blocks copied whole, agrees with escaping character by
        /// character on text of any shape.
        #[test]
        fn html_escaping_agrees_with_replacing(parts in proptest::collection::vec(proptest::sample::select(
            &["a", "é", "日本語", "😀", "&", "<", ">", "\"", "'", "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx", " "][..]), 0..40)) {
            let t = parts.concat();
            let mut out = String::from("<");
            push_escaped_html(&mut out, &t);
            let want = t
                .replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;")
                .replace('"', "&quot;")
                .replace('\'', "&#39;");
            proptest::prop_assert_eq!(out, format!("<{want}"));
        }
    }

    #[test]
    fn fences_outgrow_content() {
        assert_eq!(fence_for("a ``` b", 3), "````");
        assert_eq!(fence_for("`", 1), "``");
        assert_eq!(fence_for("`a``b`````c``", 1), "``````");
        assert_eq!(fence_for("", 3), "```");
        let long = format!("{}{}{}", "x".repeat(40), "`".repeat(5), "x".repeat(40));
        assert_eq!(fence_for(&long, 3), "``````");
        assert_eq!(md_code("a`b"), "``a`b``");
        assert_eq!(md_code("`x"), "`` `x ``");
    }

    /// Every character `clean` or `line` could meet near the ones that matter, alone and
    /// between others: the byte scan agrees with the character-by-character escapes.
    #[test]
    fn the_byte_scan_agrees_with_the_escapes() {
        let chars = (0..0x3000u32)
            .chain(0xfff0..0x10010)
            .chain(0x10_f000..=0x10_ffff)
            .filter_map(char::from_u32);
        for c in chars {
            for s in [c.to_string(), format!("a{c}b"), format!("{c}\r\n{c}\n")] {
                assert_eq!(clean(&s), escape_block(&s.replace("\r\n", "\n")), "{:x}", c as u32);
                assert_eq!(line(&s), escape_line(&s), "{:x}", c as u32);
            }
        }
        let lone = char::from_u32(pi_session::session::jsparse::LONE_SURROGATE_BASE).unwrap();
        assert_eq!(line(&format!("x{lone}")), "x\u{fffd}");
        assert_eq!(clean("a\u{202e}b\r\nc\rd\t"), "a\\u{202e}b\nc\\rd\t");
    }

    /// The byte scan read 16 bytes at a time: every character that matters at every offset
    /// of a long text, next to the characters whose first bytes are suspect.
    #[test]
    fn the_block_scan_agrees_with_the_escapes() {
        let lone = char::from_u32(pi_session::session::jsparse::LONE_SURROGATE_BASE).unwrap();
        let chars = [
            '\n',
            '\t',
            '\r',
            '\x1b',
            '\0',
            '\x7f',
            '\u{80}',
            '\u{85}',
            '\u{9f}',
            '\u{a0}',
            '\u{202a}',
            '\u{202e}',
            '\u{2066}',
            '\u{2069}',
            '\u{2028}',
            '\u{20ac}',
            lone,
            '\u{10ffff}',
            'é',
            '😀',
        ];
        for c in chars {
            for at in 0..40 {
                let mut s: String = "abcdefghij".repeat(4);
                s.insert(at, c);
                for t in [s.clone(), format!("{s}\u{a0}é"), format!("日本{s}")] {
                    for lines in [false, true] {
                        assert_eq!(is_plain_16(t.as_bytes(), lines), is_plain(&t, lines), "{t:?}");
                    }
                    assert_eq!(
                        clean(&t),
                        escape_block(&t.replace("\r\n", "\n")),
                        "{:x} at {at}",
                        c as u32
                    );
                    assert_eq!(line(&t), escape_line(&t), "{:x} at {at}", c as u32);
                }
            }
        }
    }

    fn session_of(lines: &[serde_json::Value]) -> Session {
        let mut data = String::from(
            r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#,
        );
        data.push('\n');
        for l in lines {
            data.push_str(&l.to_string());
            data.push('\n');
        }
        Session::from_bytes(PathBuf::from("/t.jsonl"), data.into_bytes()).unwrap()
    }

    /// A branch of every kind of section, with text that needs escaping.
    fn mixed_session() -> Session {
        use serde_json::json;
        let mut lines = Vec::new();
        let mut parent = serde_json::Value::Null;
        let mut push = |mut v: serde_json::Value, id: String| {
            v["id"] = json!(id);
            v["parentId"] = parent.clone();
            v["timestamp"] = json!("2026-01-01T00:00:01.000Z");
            parent = json!(id);
            lines.push(v);
        };
        for k in 0..12 {
            let msg = |m: serde_json::Value| json!({"type": "message", "message": m});
            push(
                msg(json!({"role": "user", "content": format!("ask {k} <b>&\u{1b}\r\n`x`")})),
                format!("u{k}"),
            );
            push(
                msg(
                    json!({"role": "assistant", "provider": "p", "model": "m", "stopReason": "toolUse",
                    "content": [{"type": "thinking", "thinking": "hmm\nmore\r\n"},
                                {"type": "text", "text": "ok ```"},
                                {"type": "toolCall", "id": "c", "name": "bash", "arguments": {"cmd": "ls\u{202e}"}},
                                {"type": "image", "mimeType": "image/png", "data": "AAAA\nBB=="}]}),
                ),
                format!("a{k}"),
            );
            push(
                msg(
                    json!({"role": "toolResult", "toolCallId": "c", "toolName": "bash", "isError": k % 2 == 0,
                    "content": [{"type": "text", "text": "out\n\n"}, {"type": "image", "mimeType": "image/svg", "data": "x"}]}),
                ),
                format!("t{k}"),
            );
            push(
                msg(json!({"role": "bashExecution", "command": "make\nall", "output": "done\u{85}", "exitCode": k})),
                format!("b{k}"),
            );
            push(
                json!({"type": "model_change", "provider": "p", "modelId": format!("m{k}")}),
                format!("m{k}"),
            );
            push(
                json!({"type": "label", "targetId": "u0", "label": "x"}),
                format!("l{k}"),
            );
            push(
                json!({"type": "compaction", "summary": "so far\n", "tokensBefore": 12345, "firstKeptEntryId": "u0"}),
                format!("c{k}"),
            );
            push(
                msg(
                    json!({"role": "assistant", "provider": "p", "model": "m", "stopReason": "error",
                    "errorMessage": "boom", "content": []}),
                ),
                format!("e{k}"),
            );
        }
        session_of(&lines)
    }

    fn rendered(session: &Session, format: Format, chunk_bytes: usize) -> String {
        let plan = transcript::plan(session, &transcript::Options::default()).unwrap();
        let mut out = Vec::new();
        render(session, &plan, format, chunk_bytes, |b| {
            out.extend_from_slice(b);
            Ok(())
        })
        .unwrap();
        String::from_utf8(out).unwrap()
    }

    /// The transcript as one string, section after section: what `render` must write
    /// whatever the pieces.
    fn whole(session: &Session, format: Format) -> String {
        let t = transcript::build(session, &transcript::Options::default()).unwrap();
        let plan = transcript::plan(session, &transcript::Options::default()).unwrap();
        let mut out = String::new();
        match format {
            Format::Md => md_head(&plan.head, &mut out),
            Format::Html => html_head(&plan.head, &mut out),
        }
        for s in &t.sections {
            match format {
                Format::Md => md_section(s, &mut out),
                Format::Html => html_section(s, &mut out),
            }
        }
        if format == Format::Html {
            out.push_str(HTML_FOOT);
        }
        out
    }

    #[test]
    fn a_branch_in_many_pieces_renders_as_in_one() {
        let s = mixed_session();
        for format in [Format::Md, Format::Html] {
            let one = rendered(&s, format, usize::MAX);
            assert_eq!(one, whole(&s, format));
            assert!(one.ends_with(if format == Format::Md { "_\n" } else { "</html>\n" }));
            for chunk in [1, 100, 700, 5000] {
                let path = transcript::plan(&s, &transcript::Options::default()).unwrap().path;
                assert!(chunk > 1000 || transcript::chunks(&s, &path, chunk).len() > 10);
                assert_eq!(
                    rendered(&s, format, chunk),
                    one,
                    "{format:?} in pieces of {chunk} bytes"
                );
            }
        }
        let md = rendered(&s, Format::Md, 1);
        assert!(md.starts_with("# ask 0 <b>&\\e\n\n- Session: `s1`\n"), "{md}");
        assert_eq!(md.matches("\n---\n\n").count(), 12 * 7);
        assert!(md.contains("> **Thinking**\n>\n> hmm\n> more\n\n"));
        assert!(md.contains("```console\n$ make\nall\ndone\\x85\n```\n\n_exit code 3_\n"));
        let html = rendered(&s, Format::Html, 1);
        assert!(html.contains("<img alt=\"image\" src=\"data:image/png;base64,AAAABB==\">\n"));
        assert!(html.contains("<p class=\"note\">[image image/svg]</p>\n"));
        assert!(html.contains("<b>bash</b> <code>c</code> (1 line) (error)</summary>"));
    }

    #[test]
    fn an_empty_branch_is_the_head_alone() {
        let s = session_of(&[]);
        assert_eq!(rendered(&s, Format::Md, 1), whole(&s, Format::Md));
        let md = rendered(&s, Format::Md, 1);
        assert!(md.starts_with("# Pi session s1\n\n") && !md.contains("---"), "{md}");
        assert!(md.ends_with(&format!("- Exported by: pi-session {}\n", env!("CARGO_PKG_VERSION"))));
        assert!(rendered(&s, Format::Html, 1).ends_with("<main>\n</main>\n</body>\n</html>\n"));
    }
}
