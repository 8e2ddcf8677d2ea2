//! The Markdown export: a heading per entry, each message's own Markdown kept as written but
//! nested under it (its headings moved down two levels), and tool calls as what they did —
//! a `read`'s path and lines, an `edit` as a `diff` block, a `bash` command as an `sh` block,
//! other arguments as pretty-printed JSON — each followed by its result.

use super::escape::{Ticks, clean, line, push_if_clean, push_if_line, push_line};
use super::highlight;
use super::markdown::shift_headings;
use super::{Doc, take_result};
use crate::human::{dollars, local_time, local_time_into, tokens};
use crate::transcript::tools::{ToolView, count_lines};
use crate::transcript::{CallArgs, Class, Part, Section};
use crate::usage::Stats;
use std::borrow::Cow;
use std::ops::Range;

/// How far a message's headings move down: its `#` sits under the entry's `##`.
const HEADING_SHIFT: u8 = 2;

/// Backticks enough to fence `s`: one more than its longest run, at least `min`. Borrowed
/// for the usual lengths: a fence is written around every id and block.
pub(super) fn fence_for(s: &str, min: usize) -> Cow<'static, str> {
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

/// `s` as inline code, on one line.
pub(super) fn push_code(md: &mut String, s: &str) {
    // Most are ids and paths, with no backtick and nothing to escape: copied as checked.
    let start = md.len();
    md.push('`');
    if push_if_line(md, s) == Some(Ticks::None) {
        md.push('`');
        return;
    }
    md.truncate(start);
    push_code_escaped(md, s);
}

/// [`push_code`] for text with a backtick or a character `line` changes.
fn push_code_escaped(md: &mut String, s: &str) {
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
pub(super) fn code(s: &str) -> String {
    let mut out = String::new();
    push_code(&mut out, s);
    out
}

/// `s` as a fenced block of language `lang`, followed by a blank line.
fn push_block(md: &mut String, s: &str, lang: &str) {
    // Most text needs no change: it is copied as it is checked, under a fence of three
    // backticks, which grows only when the text holds a run of three.
    let body = s.trim_end_matches('\n');
    let start = md.len();
    md.push_str("```");
    md.push_str(lang);
    md.push('\n');
    match push_if_clean(md, body) {
        Some(Ticks::None | Ticks::Short) => md.push_str("\n```\n\n"),
        Some(Ticks::Long) => {
            let f = fence_for(body, 3);
            md.insert_str(start, &f[3..]);
            for piece in ["\n", &f, "\n\n"] {
                md.push_str(piece);
            }
        }
        None => {
            md.truncate(start);
            push_block_cleaned(md, s, lang);
        }
    }
}

/// [`push_block`] for text that `clean` changes.
fn push_block_cleaned(md: &mut String, s: &str, lang: &str) {
    let s = clean(s);
    let f = fence_for(&s, 3);
    for piece in [&*f, lang, "\n", s.trim_end_matches('\n'), "\n", &f, "\n\n"] {
        md.push_str(piece);
    }
}

pub(super) fn head(doc: &Doc<'_>, stats: &Stats, md: &mut String) {
    let h = &doc.head;
    md.push_str("# ");
    push_line(md, &h.title);
    md.push_str("\n\n- Session: ");
    push_code(md, &h.session_id);
    md.push('\n');
    if let Some(cwd) = &h.cwd {
        md.push_str("- Directory: ");
        push_code(md, cwd);
        md.push('\n');
    }
    md.push_str("- Created: ");
    md.push_str(&local_time(h.created.as_deref()));
    md.push_str("\n- Last entry: ");
    md.push_str(&local_time(doc.last_time));
    md.push('\n');
    if let Some(b) = &h.branch {
        md.push_str("- Branch: ");
        md.push_str(&line(&format!("{} → {} ({} entries)", b.first, b.last, b.entries)));
        md.push('\n');
    }
    let t = &stats.total;
    md.push_str(&format!(
        "- Tokens: {} input, {} output, {} cache read, {} cache write; cost {}\n",
        tokens(t.input),
        tokens(t.output),
        tokens(t.cache_read),
        tokens(t.cache_write),
        dollars(t.cost.total)
    ));
    for m in &stats.by_model {
        let name = match &m.provider {
            Some(p) => format!("{p}/{}", m.model),
            None => m.model.clone(),
        };
        md.push_str("  - ");
        push_code(md, &name);
        md.push_str(&format!(
            ": {} input, {} output, {} cache read, {} cache write; {}\n",
            tokens(m.totals.input),
            tokens(m.totals.output),
            tokens(m.totals.cache_read),
            tokens(m.totals.cache_write),
            dollars(m.totals.cost.total)
        ));
    }
    if doc.all_branches {
        md.push_str(&format!("- Branches: {}\n", doc.chains.len()));
    }
    md.push_str(&format!("- Exported by: pi-session {}\n", env!("CARGO_PKG_VERSION")));
}

/// Entries `range` of chain `k`, each a section, after the chain's heading when it starts
/// there (`--all-branches`).
pub(super) fn unit(doc: &Doc<'_>, k: usize, range: Range<usize>, md: &mut String) {
    let chain = &doc.chains[k];
    if doc.all_branches && range.start == 0 {
        md.push_str(&format!("\n---\n\n# Branch {}", k + 1));
        if chain.current {
            md.push_str(" (@)");
        }
        md.push_str("\n\n_");
        match chain.fork {
            Some((from, at)) => {
                md.push_str("leaves ");
                push_code(md, &doc.session.id_or_line(at));
                md.push_str(&format!(" on branch {}", from + 1));
            }
            None => md.push_str("from a root"),
        }
        md.push_str(&format!(" · {} entries_\n", chain.path.len()));
    }
    for pos in range {
        let Some((s, mut results)) = doc.section_at(k, pos) else {
            continue;
        };
        section(&s, &mut results, md);
        let forks = doc.forks_at(chain.path[pos]);
        if !forks.is_empty() {
            let names: Vec<String> = forks.iter().map(|b| (b + 1).to_string()).collect();
            md.push_str(&format!("\n\n_Branches from here: {}_", names.join(", ")));
        }
    }
}

/// One section, with the results answering its calls under them.
pub(super) fn section(s: &Section, results: &mut Vec<Section<'_>>, md: &mut String) {
    md.push_str("\n---\n\n");
    if s.class == Class::Note {
        md.push('_');
        push_line(md, &s.title);
        md.push_str("_ · ");
        local_time_into(md, s.timestamp);
        md.push_str(" · ");
        push_code(md, &s.id);
        md.push('\n');
        return;
    }
    md.push_str("## ");
    push_line(md, &s.title);
    md.push_str("\n\n_");
    local_time_into(md, s.timestamp);
    for m in &s.meta {
        md.push_str(" · ");
        push_line(md, m);
    }
    md.push_str(" · ");
    push_code(md, &s.id);
    if let Some(label) = s.label {
        md.push_str(" · label ");
        push_code(md, label);
    }
    md.push_str("_\n\n");
    for p in &s.parts {
        match p {
            Part::ToolCall { name, id, args } => {
                let result = take_result(results, id);
                tool_call(md, name, args, result.as_ref());
            }
            p => part(md, p),
        }
    }
    // Results whose call this section does not show (a call id given twice).
    for r in results.drain(..) {
        for p in &r.parts {
            part(md, p);
        }
    }
    while md.ends_with("\n\n") {
        md.pop();
    }
}

fn part(md: &mut String, p: &Part) {
    match p {
        Part::Text(t) => push_markdown(md, t),
        Part::Thinking(t) => {
            md.push_str("> **Thinking**\n>\n");
            push_quoted(md, &clean(t));
            md.push_str("\n\n");
        }
        Part::ToolCall { name, args, .. } => tool_call(md, name, args, None),
        Part::ToolResult { name, id, error, text } => {
            md.push_str("**← ");
            push_code(md, name);
            md.push_str("** ");
            push_code(md, id);
            md.push_str(if *error { " (error)\n\n" } else { "\n\n" });
            push_block(md, text, "text");
        }
        Part::Bash { command, output, exit } => {
            push_console(md, command, output);
            if let Some(code) = exit {
                md.push_str("_exit code ");
                push_line(md, code);
                md.push_str("_\n\n");
            }
        }
        Part::Image { mime, .. } => {
            md.push_str("_[image ");
            push_line(md, mime);
            md.push_str("]_\n\n");
        }
        Part::Folded { title, text } => {
            md.push_str("**");
            push_line(md, title);
            md.push_str("**\n\n");
            push_markdown(md, text);
        }
        Part::Note(n) => {
            md.push('_');
            push_line(md, n);
            md.push_str("_\n\n");
        }
    }
}

/// A message's own Markdown, its headings moved under the entry's, then a blank line.
fn push_markdown(md: &mut String, t: &str) {
    let start = md.len();
    if push_if_clean(md, t).is_none() {
        md.push_str(shift_headings(&clean(t), HEADING_SHIFT).trim_end());
    } else {
        // Copied as it was checked; shifted in place when it has headings (few do).
        let shifted = match shift_headings(&md[start..], HEADING_SHIFT) {
            Cow::Borrowed(same) => Err(same.trim_end().len()),
            Cow::Owned(shifted) => Ok(shifted),
        };
        match shifted {
            Err(keep) => md.truncate(start + keep),
            Ok(shifted) => {
                md.truncate(start);
                md.push_str(shifted.trim_end());
            }
        }
    }
    md.push_str("\n\n");
}

/// `t`'s lines (no `\r` in it), trailing whitespace left out, each after `> `.
fn push_quoted(md: &mut String, t: &str) {
    let t = t.trim_end();
    if t.is_empty() {
        return;
    }
    md.push_str("> ");
    let mut from = 0;
    for i in memchr::memchr_iter(b'\n', t.as_bytes()) {
        md.push_str(&t[from..=i]);
        md.push_str("> ");
        from = i + 1;
    }
    md.push_str(&t[from..]);
}

/// A bash command and its output as one `console` block: `$ command`, then the output.
fn push_console(md: &mut String, command: &str, output: &str) {
    push_block(md, &format!("$ {command}\n{output}"), "console");
}

/// The language name of a file's fenced block (empty when unknown).
fn lang_of(path: &str) -> &'static str {
    highlight::language_for_path(path).map_or("", |l| l.name())
}

/// Whether `text` is whitespace only (most are not, and say so in their first byte).
fn is_blank(text: &str) -> bool {
    !text.as_bytes().first().is_some_and(u8::is_ascii_graphic) && text.trim().is_empty()
}

/// A tool call as what it does, then its result.
fn tool_call(md: &mut String, name: &str, args: &CallArgs<'_>, result: Option<&Section<'_>>) {
    let view = args.view(name);
    let view = &*view;
    md.push_str("**→ ");
    push_line(md, name);
    md.push_str("**");
    let (text, error) = match result.and_then(|r| r.parts.first()) {
        Some(Part::ToolResult { text, error, .. }) => (Some(&**text), *error),
        _ => (None, false),
    };
    match view {
        ToolView::Bash { command, timeout } => {
            if let Some(t) = timeout {
                md.push_str(" (timeout ");
                push_line(md, t);
                md.push_str("s)");
            }
            md.push_str("\n\n");
            push_block(md, command, "sh");
        }
        ToolView::Edit { path, diff, .. } => {
            md.push(' ');
            push_code(md, path);
            md.push_str("\n\n");
            push_block(md, diff, "diff");
        }
        ToolView::Write { path, content } => {
            md.push(' ');
            push_code(md, path);
            md.push_str(" (");
            md.push_str(&count_lines(content));
            md.push_str(")\n\n");
            push_block(md, content, lang_of(path));
        }
        ToolView::Other => {
            md.push_str("\n\n");
            push_block(md, &args.json(), "json");
        }
        v => {
            md.push(' ');
            push_code(md, &v.headline());
            md.push_str("\n\n");
        }
    }
    let Some(text) = text else {
        return;
    };
    // What an edit or a write answers is a line of confirmation; only a failure says more.
    if matches!(view, ToolView::Edit { .. } | ToolView::Write { .. }) && !error {
        return;
    }
    if !error && is_blank(text) {
        return;
    }
    md.push_str(if error {
        "**← error**\n\n"
    } else {
        "**← output**\n\n"
    });
    let lang = match &view {
        ToolView::Read { path, .. } => lang_of(path),
        _ => "text",
    };
    push_block(md, text, lang);
    if let Some(r) = result {
        for p in r.parts.iter().skip(1) {
            part(md, p);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// [`push_block`] as it was written before the copying scan: the reference.
    fn block_by_steps(s: &str, lang: &str) -> String {
        let mut md = String::from("x\n");
        push_block_cleaned(&mut md, s, lang);
        md
    }

    /// [`push_code`] by its general path.
    fn code_by_steps(s: &str) -> String {
        let mut md = String::from("x");
        push_code_escaped(&mut md, s);
        md
    }

    /// A text part, a thinking part and a bash part, as they were written before.
    fn parts_by_steps(t: &str, command: &str) -> String {
        let mut md = String::new();
        md.push_str(shift_headings(&clean(t), HEADING_SHIFT).trim_end());
        md.push_str("\n\n> **Thinking**\n>\n");
        let c = clean(t);
        for (i, l) in c.trim_end().lines().enumerate() {
            if i > 0 {
                md.push('\n');
            }
            md.push_str("> ");
            md.push_str(l);
        }
        md.push_str("\n\n");
        push_block_cleaned(&mut md, &format!("$ {command}\n{t}"), "console");
        md
    }

    fn parts(t: &str, command: &str) -> String {
        let mut md = String::new();
        part(&mut md, &Part::Text(t.into()));
        part(&mut md, &Part::Thinking(t.into()));
        push_console(&mut md, command, t);
        md
    }

    /// Text with what the writers look at: backticks in runs, controls, CRLF, characters
    /// that are escaped, headings, fences and blank lines.
    fn text() -> impl Strategy<Value = String> {
        prop_oneof![
            any::<String>(),
            prop::collection::vec(
                prop::sample::select(vec![
                    "a",
                    "abcdefghijklmnopqrstuvwxyz0123456789",
                    "`",
                    "``",
                    "```",
                    "````",
                    "\n",
                    "\n\n",
                    "\r\n",
                    "\r",
                    "\t",
                    " ",
                    "  ",
                    "\x1b",
                    "\0",
                    "\x7f",
                    "\u{85}",
                    "\u{202e}",
                    "\u{2026}",
                    "é",
                    "日本",
                    "# ",
                    "#",
                    "=",
                    "===",
                    "-",
                    "---",
                    "> ",
                    "- ",
                    "    ",
                    "\\",
                    "\u{a0}",
                    "\u{3000}",
                ]),
                0..50,
            )
            .prop_map(|v| v.concat()),
        ]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn writers_agree_with_their_steps(t in text(), command in text()) {
            for lang in ["text", ""] {
                let mut md = String::from("x\n");
                push_block(&mut md, &t, lang);
                prop_assert_eq!(md, block_by_steps(&t, lang));
            }
            let mut md = String::from("x");
            push_code(&mut md, &t);
            prop_assert_eq!(md, code_by_steps(&t));
            prop_assert_eq!(parts(&t, &command), parts_by_steps(&t, &command));
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
        assert_eq!(code("a`b"), "``a`b``");
        assert_eq!(code("`x"), "`` `x ``");
    }
}
