//! The HTML export: one self-contained page that reads fully without scripts (it has none).
//! Messages are rendered Markdown with highlighted code; each tool call shows what it did and
//! its result under it, long outputs folded with their size shown; thinking, written files
//! and summaries fold too. The page has light and dark colours by `prefers-color-scheme`,
//! prints with every fold open, and, with `--all-branches`, an outline of the tree's
//! branches, each an anchor, with links from each branch point.

use super::escape::{clean, push_html, push_html_line};
use super::highlight::{self, Language};
use super::markdown;
use super::{Doc, take_result};
use crate::human::amounts::bytes as size;
use crate::human::{dollars, local_time, local_time_into, tokens};
use crate::transcript::tools::{ToolView, count_lines};
use crate::transcript::{CallArgs, Class, Part, Section};
use crate::usage::Stats;
use std::ops::Range;

const CSS: &str = include_str!("page.css");

/// How far a message's headings move down: its `#` becomes an `<h3>`, under the page's
/// `<h1>` title and `<h2>` branch headings.
const HEADING_SHIFT: u8 = 2;

/// Outputs up to this many lines (and [`SHORT_BYTES`]) are shown whole; longer ones show
/// their first [`PREVIEW_LINES`] and fold the rest.
const SHORT_LINES: usize = 20;
const SHORT_BYTES: usize = 4096;
const PREVIEW_LINES: usize = 8;

/// An image Pi stored inline, if it is a plain raster image in base64.
fn safe_image(mime: &str, data: &str) -> bool {
    matches!(mime, "image/png" | "image/jpeg" | "image/gif" | "image/webp")
        && !data.is_empty()
        && data
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'=' | b'\n' | b'\r'))
}

pub(super) fn head(doc: &Doc<'_>, stats: &Stats, h: &mut String) {
    let t = &doc.head;
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
    push_html_line(h, &t.title);
    h.push_str("</title>\n<style>");
    h.push_str(CSS);
    h.push_str(highlight::CSS);
    h.push_str("</style>\n</head>\n<body>\n<header>\n<h1>");
    push_html_line(h, &t.title);
    h.push_str("</h1>\n<dl class=\"info\">\n");
    let mut info = |k: &str, v: &str| {
        h.push_str("<dt>");
        h.push_str(k);
        h.push_str("</dt><dd>");
        push_html_line(h, v);
        h.push_str("</dd>\n");
    };
    info("Session", &t.session_id);
    if let Some(cwd) = &t.cwd {
        info("Directory", cwd);
    }
    info("Created", &local_time(t.created.as_deref()));
    info("Last entry", &local_time(doc.last_time));
    if let Some(b) = &t.branch {
        info("Branch", &format!("{} → {} ({} entries)", b.first, b.last, b.entries));
    }
    if doc.all_branches {
        info("Branches", &doc.chains.len().to_string());
    }
    info("Exported by", &format!("pi-session {}", env!("CARGO_PKG_VERSION")));
    h.push_str("</dl>\n");
    totals(stats, h);
    h.push_str("</header>\n");
    if doc.all_branches {
        outline(doc, h);
    }
    h.push_str("<main>\n");
}

/// Tokens and cost of the whole session, in all and by model (as `stats` counts them).
fn totals(s: &Stats, h: &mut String) {
    if s.by_model.is_empty() && s.total.total_tokens == 0.0 {
        return;
    }
    h.push_str(
        "<table class=\"totals\">\n<tr><th>Model</th><th>Input</th><th>Output</th><th>Cache read</th>\
         <th>Cache write</th><th>Cost</th></tr>\n",
    );
    let mut row = |name: &str, t: &crate::usage::Totals, bold: bool| {
        h.push_str(if bold { "<tr><th>" } else { "<tr><td>" });
        push_html_line(h, name);
        h.push_str(if bold { "</th>" } else { "</td>" });
        for v in [
            tokens(t.input),
            tokens(t.output),
            tokens(t.cache_read),
            tokens(t.cache_write),
            dollars(t.cost.total),
        ] {
            h.push_str("<td>");
            h.push_str(&v);
            h.push_str("</td>");
        }
        h.push_str("</tr>\n");
    };
    for m in &s.by_model {
        let name = match &m.provider {
            Some(p) => format!("{p}/{}", m.model),
            None => m.model.clone(),
        };
        row(&name, &m.totals, false);
    }
    row("Total (whole session)", &s.total, true);
    h.push_str("</table>\n");
}

/// The outline of every branch: each a link to its anchor, indented under the branch it
/// leaves, with its size and first words.
fn outline(doc: &Doc<'_>, h: &mut String) {
    h.push_str("<nav class=\"outline\">\n<h2>Branches</h2>\n<ol>\n");
    for (k, c) in doc.chains.iter().enumerate() {
        let depth = doc.depths[k].min(12);
        h.push_str(&format!(
            "<li{} style=\"margin-left: {}.{}em\"><a href=\"#b-{}\">Branch {}</a>{}",
            if c.current { " class=\"current\"" } else { "" },
            depth * 12 / 10,
            depth * 12 % 10,
            k + 1,
            k + 1,
            if c.current { " (@)" } else { "" }
        ));
        if let Some((_, at)) = c.fork {
            h.push_str(" <span class=\"fork\">leaves <a href=\"#e-");
            let id = doc.session.id_or_line(at);
            push_html_line(h, &id);
            h.push_str("\">");
            push_html_line(h, &id);
            h.push_str("</a></span>");
        }
        h.push_str(&format!(" <span class=\"size\">· {} entries</span>", c.path.len()));
        if let Some(&first) = c
            .path
            .iter()
            .find(|&&i| crate::transcript::section(doc.session, i).is_some())
        {
            let p = crate::session::text::preview_start(doc.session, first, 80);
            let text: String = p.text.split_whitespace().collect::<Vec<_>>().join(" ");
            let text: String = text.chars().take(80).collect();
            h.push_str(" <span class=\"preview\">");
            push_html_line(h, &text);
            if p.cut || text.len() < p.text.trim().len() {
                h.push('…');
            }
            h.push_str("</span>");
        }
        h.push_str("</li>\n");
    }
    h.push_str("</ol>\n</nav>\n");
}

pub(super) fn foot(_doc: &Doc<'_>, h: &mut String) {
    h.push_str("</main>\n</body>\n</html>\n");
}

/// Entries `range` of chain `k`; with `--all-branches` inside the chain's `<section>`.
pub(super) fn unit(doc: &Doc<'_>, k: usize, range: Range<usize>, h: &mut String) {
    let chain = &doc.chains[k];
    if doc.all_branches && range.start == 0 {
        h.push_str(&format!(
            "<section class=\"branch{}\" id=\"b-{}\">\n<h2>Branch {}</h2>\n<p class=\"fork\">",
            if chain.current { " current" } else { "" },
            k + 1,
            k + 1
        ));
        match chain.fork {
            Some((from, at)) => {
                let id = doc.session.id_or_line(at);
                h.push_str("Leaves <a href=\"#e-");
                push_html_line(h, &id);
                h.push_str("\">");
                push_html_line(h, &id);
                h.push_str(&format!("</a> on <a href=\"#b-{}\">branch {}</a>", from + 1, from + 1));
            }
            None => h.push_str("Starts at a root"),
        }
        h.push_str(&format!(" · {} entries</p>\n", chain.path.len()));
    }
    let end = range.end;
    for pos in range {
        let Some((s, mut results)) = doc.section_at(k, pos) else {
            continue;
        };
        section(&s, &mut results, doc.forks_at(chain.path[pos]), h);
    }
    if doc.all_branches && end == chain.path.len() {
        h.push_str("</section>\n");
    }
}

/// One entry's `<article>`, the results answering its calls under them, and links to the
/// branches that leave it.
pub(super) fn section(s: &Section, results: &mut Vec<Section<'_>>, forks: &[usize], h: &mut String) {
    // The anchor is `e-` and the id, escaped as one line (escapes go character by character).
    h.push_str("<article class=\"");
    h.push_str(s.class.as_str());
    h.push_str("\" id=\"e-");
    push_html_line(h, &s.id);
    h.push_str("\">\n<div class=\"head\"><span class=\"who\">");
    push_html_line(h, &s.title);
    h.push_str("</span>");
    if let Some(label) = s.label {
        h.push_str("<span class=\"label\">");
        push_html_line(h, label);
        h.push_str("</span>");
    }
    h.push_str("<span class=\"meta\">");
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
    if s.class != Class::Note {
        for p in &s.parts {
            match p {
                Part::ToolCall { name, id, args } => {
                    let result = take_result(results, id);
                    tool_call(h, name, id, args, result.as_ref());
                }
                p => part(h, p),
            }
        }
        for r in results.drain(..) {
            for p in &r.parts {
                part(h, p);
            }
        }
    }
    if !forks.is_empty() {
        h.push_str("<p class=\"forks\">Branches from here:");
        for b in forks {
            h.push_str(&format!(" <a href=\"#b-{}\">branch {}</a>", b + 1, b + 1));
        }
        h.push_str("</p>\n");
    }
    h.push_str("</article>\n");
}

/// `text` as Markdown, in a `<div class="md">`.
fn push_markdown(h: &mut String, text: &str) {
    h.push_str("<div class=\"md\">");
    markdown::push_html(h, &clean(text), HEADING_SHIFT);
    h.push_str("</div>\n");
}

fn part(h: &mut String, p: &Part) {
    match p {
        Part::Text(t) => push_markdown(h, t.trim_end()),
        Part::Thinking(t) => {
            h.push_str("<details class=\"thinking\"><summary>Thinking · ");
            h.push_str(&count_lines(t.trim_end()));
            h.push_str("</summary><div class=\"text\">");
            push_html(h, t.trim_end());
            h.push_str("</div></details>\n");
        }
        Part::ToolCall { name, id, args } => tool_call(h, name, id, args, None),
        Part::ToolResult { name, error, text, .. } => {
            h.push_str(if *error {
                "<div class=\"tool error\"><div class=\"tool-head\">← <span class=\"tool-name\">"
            } else {
                "<div class=\"tool\"><div class=\"tool-head\">← <span class=\"tool-name\">"
            });
            push_html_line(h, name);
            h.push_str("</span></div>\n");
            output(h, text, None);
            h.push_str("</div>\n");
        }
        Part::Bash {
            command,
            output: out,
            exit,
        } => {
            let failed = exit.as_deref().is_some_and(|c| c != "0");
            h.push_str("<div class=\"tool\"><div class=\"tool-head\"><span class=\"tool-name\">$</span> ");
            push_html_line(h, command.lines().next().unwrap_or(""));
            if let Some(c) = exit.as_deref() {
                h.push_str(if failed {
                    " <span class=\"exit failed\">exit code "
                } else {
                    " <span class=\"exit\">exit code "
                });
                push_html_line(h, c);
                h.push_str("</span>");
            }
            h.push_str("</div>\n");
            if command.contains('\n') {
                code_block(h, "cmd", Some(Language::Shell), command);
            }
            output(h, out, None);
            h.push_str("</div>\n");
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
            h.push_str(" · ");
            h.push_str(&count_lines(text.trim_end()));
            h.push_str("</summary>");
            push_markdown(h, text.trim_end());
            h.push_str("</details>\n");
        }
        Part::Note(n) => {
            h.push_str("<p class=\"note\">");
            push_html_line(h, n);
            h.push_str("</p>\n");
        }
    }
}

/// `code` highlighted in a `<pre class="CLASS">`.
fn code_block(h: &mut String, class: &str, lang: Option<Language>, code: &str) {
    h.push_str("<pre class=\"");
    h.push_str(class);
    h.push_str("\"><code>");
    match lang {
        Some(lang) => highlight::push_highlighted(h, Some(lang), &clean(code)),
        // Plain text: escaped a block at a time where nothing needs it.
        None => push_html(h, code),
    }
    h.push_str("</code></pre>\n");
}

/// A tool's output: whole when short; else its first lines, and the rest folded with its
/// size.
fn output(h: &mut String, text: &str, lang: Option<Language>) {
    let text = text.trim_end();
    if text.is_empty() {
        return;
    }
    let lines = memchr::memchr_iter(b'\n', text.as_bytes()).count() + 1;
    if lines <= SHORT_LINES && text.len() <= SHORT_BYTES {
        code_block(h, "out", lang, text);
        return;
    }
    // The first lines, cut at a line (or, for one long line, a character) boundary.
    let mut cut = memchr::memchr_iter(b'\n', text.as_bytes())
        .nth(PREVIEW_LINES - 1)
        .unwrap_or(text.len())
        .min(SHORT_BYTES / 2);
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let (first, rest) = text.split_at(cut);
    let rest = rest.strip_prefix('\n').unwrap_or(rest);
    code_block(h, "out", lang, first);
    let rest_lines = if rest.is_empty() {
        0
    } else {
        memchr::memchr_iter(b'\n', rest.as_bytes()).count() + 1
    };
    h.push_str(&format!(
        "<details class=\"more\"><summary>{} more line{} · {}</summary>",
        rest_lines,
        if rest_lines == 1 { "" } else { "s" },
        size(rest.len()),
    ));
    code_block(h, "out", lang, rest);
    h.push_str("</details>\n");
}

/// The exit code a `bash` result reports on its last line (Pi writes `Command exited with
/// code N` there when a command fails).
fn exit_code(text: &str) -> Option<&str> {
    let last = text.trim_end().rsplit('\n').next()?;
    let code = last.strip_prefix("Command exited with code ")?;
    (!code.is_empty() && code.bytes().all(|b| b.is_ascii_digit())).then_some(code)
}

/// A tool call as what it does, with its result under it.
fn tool_call(h: &mut String, name: &str, id: &str, args: &CallArgs<'_>, result: Option<&Section<'_>>) {
    let view = args.view(name);
    let view = &*view;
    let (text, error) = match result.and_then(|r| r.parts.first()) {
        Some(Part::ToolResult { text, error, .. }) => (Some(&**text), *error),
        _ => (None, false),
    };
    let class = match (result, error) {
        (None, _) => "tool pending",
        (Some(_), true) => "tool error",
        (Some(_), false) => "tool",
    };
    h.push_str("<div class=\"");
    h.push_str(class);
    h.push_str("\" id=\"call-");
    push_html_line(h, id);
    h.push_str("\"><div class=\"tool-head\"><span class=\"tool-name\">");
    push_html_line(h, name);
    h.push_str("</span>");
    match view {
        ToolView::Read { path, range } => {
            h.push(' ');
            push_html_line(h, path);
            if !range.is_empty() {
                h.push_str("<span class=\"range\">");
                push_html_line(h, range);
                h.push_str("</span>");
            }
        }
        ToolView::Write { path, content } => {
            h.push(' ');
            push_html_line(h, path);
            h.push_str(" <span class=\"size\">");
            h.push_str(&count_lines(content));
            h.push_str("</span>");
        }
        ToolView::Edit { path, edits, .. } => {
            h.push(' ');
            push_html_line(h, path);
            if *edits > 1 {
                h.push_str(&format!(" <span class=\"size\">{edits} edits</span>"));
            }
        }
        ToolView::Bash { timeout, .. } => {
            if let Some(t) = timeout {
                h.push_str(" <span class=\"size\">timeout ");
                push_html_line(h, t);
                h.push_str("s</span>");
            }
        }
        ToolView::Other => {}
        v => {
            h.push(' ');
            push_html_line(h, &v.headline());
        }
    }
    if let Some(code) = text
        .filter(|_| matches!(view, ToolView::Bash { .. }))
        .and_then(exit_code)
    {
        h.push_str(" <span class=\"exit failed\">exit code ");
        h.push_str(code);
        h.push_str("</span>");
    }
    h.push_str("</div>\n");
    match view {
        ToolView::Bash { command, .. } => {
            h.push_str("<pre class=\"cmd\"><code>$ ");
            highlight::push_highlighted(h, Some(Language::Shell), &clean(command));
            h.push_str("</code></pre>\n");
        }
        ToolView::Edit { diff, .. } => code_block(h, "diff", Some(Language::Diff), diff),
        ToolView::Write { path, content } => {
            h.push_str("<details class=\"written\"><summary>content · ");
            h.push_str(&count_lines(content));
            h.push_str(", ");
            h.push_str(&size(content.len()));
            h.push_str("</summary>");
            code_block(h, "out", highlight::language_for_path(path), content);
            h.push_str("</details>\n");
        }
        ToolView::Other => code_block(h, "args", Some(Language::Json), &args.json()),
        _ => {}
    }
    if let Some(text) = text {
        // What an edit or a write answers is a line of confirmation; only a failure says more.
        let quiet = matches!(view, ToolView::Edit { .. } | ToolView::Write { .. }) && !error;
        if !quiet {
            let lang = match &view {
                ToolView::Read { path, .. } => highlight::language_for_path(path),
                _ => None,
            };
            output(h, text, lang);
        }
        if let Some(r) = result {
            for p in r.parts.iter().skip(1) {
                part(h, p);
            }
        }
    }
    h.push_str("</div>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exit_codes_are_read_from_the_last_line() {
        assert_eq!(exit_code("boom\n\nCommand exited with code 2\n"), Some("2"));
        assert_eq!(exit_code("Command exited with code 1"), Some("1"));
        assert_eq!(exit_code("Command exited with code x"), None);
        assert_eq!(exit_code("ok"), None);
    }

    #[test]
    fn long_outputs_fold_after_their_first_lines() {
        let text: String = (1..=100).map(|k| format!("line {k}\n")).collect();
        let mut h = String::new();
        output(&mut h, &text, None);
        assert!(h.starts_with("<pre class=\"out\"><code>line 1\n"), "{h}");
        assert!(
            h.contains("line 8</code></pre>\n<details class=\"more\"><summary>92 more lines"),
            "{h}"
        );
        let mut short = String::new();
        output(&mut short, "a\nb", None);
        assert_eq!(short, "<pre class=\"out\"><code>a\nb</code></pre>\n");
        // One long line: cut at a character boundary.
        let mut wide = String::new();
        output(&mut wide, &"é".repeat(5000), None);
        assert!(wide.contains("<details class=\"more\">"));
    }
}
