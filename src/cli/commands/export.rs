use crate::cli::GlobalArgs;
use crate::cli::output::{Output, escape_block, escape_line, local_time};
use crate::cli::session_arg::{open_session, warn_cycle};
use anyhow::Result;
use pi_session::session::write;
use pi_session::transcript::{self, Class, Part, Transcript};
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
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Md,
    Html,
}

/// Session text made safe to print: CRLF as LF, control characters escaped (tab and LF kept).
fn clean(s: &str) -> std::borrow::Cow<'_, str> {
    // Most text is printable ASCII, tabs and newlines: nothing to change.
    if s.bytes().all(|b| matches!(b, b'\n' | b'\t' | 0x20..=0x7e)) {
        return s.into();
    }
    escape_block(&s.replace("\r\n", "\n")).into()
}

/// Text escaped for HTML content and attribute values; never a raw control character.
fn html(s: &str) -> String {
    let s = clean(s);
    if !s.bytes().any(|b| matches!(b, b'&' | b'<' | b'>' | b'"' | b'\'')) {
        return s.into_owned();
    }
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// One-line text for HTML (headings, summaries).
fn html_line(s: &str) -> String {
    html(&escape_line(s))
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
fn info(t: &Transcript) -> Vec<(&'static str, String)> {
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

/// Backticks enough to fence `s`: one more than its longest run, at least `min`.
fn fence_for(s: &str, min: usize) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in s.bytes() {
        if c == b'`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    "`".repeat((longest + 1).max(min))
}

fn md_code(s: &str) -> String {
    let s = escape_line(s);
    let f = fence_for(&s, 1);
    if s.starts_with('`') || s.ends_with('`') {
        format!("{f} {s} {f}")
    } else {
        format!("{f}{s}{f}")
    }
}

fn md_block(s: &str, lang: &str) -> String {
    let s = clean(s);
    let f = fence_for(&s, 3);
    format!("{f}{lang}\n{}\n{f}\n", s.trim_end_matches('\n'))
}

fn markdown(doc: &Transcript) -> String {
    let mut md = format!("# {}\n\n", escape_line(&doc.title));
    for (k, v) in &info(doc) {
        let v = if matches!(*k, "Session" | "Directory") {
            md_code(v)
        } else {
            escape_line(v)
        };
        md.push_str(&format!("- {k}: {v}\n"));
    }
    for s in &doc.sections {
        md.push_str("\n---\n\n");
        if s.class == Class::Note {
            md.push_str(&format!(
                "_{}_ · {} · {}\n",
                escape_line(&s.title),
                local_time(s.timestamp.as_deref()),
                md_code(&s.id)
            ));
            continue;
        }
        md.push_str(&format!("## {}\n\n", escape_line(&s.title)));
        let mut meta = vec![local_time(s.timestamp.as_deref())];
        meta.extend(s.meta.iter().map(|m| escape_line(m)));
        meta.push(md_code(&s.id));
        md.push_str(&format!("_{}_\n\n", meta.join(" · ")));
        for p in &s.parts {
            match p {
                Part::Text(t) => md.push_str(&format!("{}\n\n", clean(t).trim_end())),
                Part::Thinking(t) => {
                    let quoted: Vec<String> = clean(t).trim_end().lines().map(|l| format!("> {l}")).collect();
                    md.push_str(&format!("> **Thinking**\n>\n{}\n\n", quoted.join("\n")));
                }
                Part::ToolCall { name, id, args } => {
                    md.push_str(&format!("**→ {}** {}\n\n", md_code(name), md_code(id)));
                    md.push_str(&md_block(args, "json"));
                    md.push('\n');
                }
                Part::ToolResult { name, id, error, text } => {
                    let err = if *error { " (error)" } else { "" };
                    md.push_str(&format!("**← {}** {}{err}\n\n", md_code(name), md_code(id)));
                    md.push_str(&md_block(text, "text"));
                    md.push('\n');
                }
                Part::Bash { command, output, exit } => {
                    md.push_str(&md_block(&format!("$ {command}\n{output}"), "console"));
                    if let Some(code) = exit {
                        md.push_str(&format!("\n_exit code {}_\n", escape_line(code)));
                    }
                    md.push('\n');
                }
                Part::Image { mime, .. } => md.push_str(&format!("_[image {}]_\n\n", escape_line(mime))),
                Part::Folded { title, text } => {
                    md.push_str(&format!("**{}**\n\n", escape_line(title)));
                    md.push_str(&md_block(text, "text"));
                    md.push('\n');
                }
                Part::Note(n) => md.push_str(&format!("_{}_\n\n", escape_line(n))),
            }
        }
        while md.ends_with("\n\n") {
            md.pop();
        }
    }
    if !md.ends_with('\n') {
        md.push('\n');
    }
    md
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

fn html_doc(doc: &Transcript) -> String {
    let mut h = String::new();
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
    h.push_str(&format!("<title>{}</title>\n", html_line(&doc.title)));
    h.push_str(&format!("<style>{CSS}</style>\n</head>\n<body>\n<header>\n"));
    h.push_str(&format!("<h1>{}</h1>\n<dl class=\"info\">\n", html_line(&doc.title)));
    for (k, v) in &info(doc) {
        h.push_str(&format!("<dt>{k}</dt><dd>{}</dd>\n", html_line(v)));
    }
    h.push_str("</dl>\n</header>\n<main>\n");
    for s in &doc.sections {
        let anchor = html_line(&format!("e-{}", s.id));
        h.push_str(&format!("<article class=\"{}\" id=\"{anchor}\">\n", s.class.as_str()));
        let mut meta = vec![html_line(&local_time(s.timestamp.as_deref()))];
        meta.extend(s.meta.iter().map(|m| html_line(m)));
        h.push_str(&format!(
            "<div class=\"head\"><span class=\"who\">{}</span><span class=\"meta\">{}</span>\
             <a class=\"id\" href=\"#{anchor}\">{}</a></div>\n",
            html_line(&s.title),
            meta.join(" · "),
            html_line(&s.id)
        ));
        for p in &s.parts {
            h.push_str(&html_part(p));
        }
        h.push_str("</article>\n");
    }
    h.push_str("</main>\n</body>\n</html>\n");
    h
}

fn html_part(p: &Part) -> String {
    let lines = |t: &str| {
        let n = t.trim_end_matches('\n').lines().count();
        if n == 1 {
            "1 line".to_owned()
        } else {
            format!("{n} lines")
        }
    };
    match p {
        Part::Text(t) => format!("<div class=\"text\">{}</div>\n", html(t.trim_end())),
        Part::Thinking(t) => format!(
            "<details class=\"thinking\"><summary>Thinking</summary><div class=\"text\">{}</div></details>\n",
            html(t.trim_end())
        ),
        Part::ToolCall { name, id, args } => format!(
            "<details class=\"tool-call\"><summary>→ <b>{}</b> <code>{}</code></summary><pre>\n{}</pre></details>\n",
            html_line(name),
            html_line(id),
            html(args)
        ),
        Part::ToolResult { name, id, error, text } => format!(
            "<details class=\"tool-result{}\"><summary>← <b>{}</b> <code>{}</code> ({}){}</summary><pre>\n{}</pre></details>\n",
            if *error { " error" } else { "" },
            html_line(name),
            html_line(id),
            lines(text),
            if *error { " (error)" } else { "" },
            html(text.trim_end())
        ),
        Part::Bash { command, output, exit } => {
            let first = command.lines().next().unwrap_or("");
            let code = exit
                .as_deref()
                .map(|c| format!(" (exit code {})", html_line(c)))
                .unwrap_or_default();
            format!(
                "<details class=\"bash\"><summary>$ <code>{}</code>{code}</summary><pre>\n$ {}\n{}</pre></details>\n",
                html_line(first),
                html(command),
                html(output.trim_end())
            )
        }
        Part::Image { mime, data } if safe_image(mime, data) => {
            let data: String = data.chars().filter(|c| !c.is_ascii_whitespace()).collect();
            format!("<img alt=\"image\" src=\"data:{mime};base64,{data}\">\n")
        }
        Part::Image { mime, .. } => format!("<p class=\"note\">[image {}]</p>\n", html_line(mime)),
        Part::Folded { title, text } => format!(
            "<details class=\"folded\"><summary>{} ({})</summary><div class=\"text\">{}</div></details>\n",
            html_line(title),
            lines(text),
            html(text.trim_end())
        ),
        Part::Note(n) => format!("<p class=\"note\">{}</p>\n", html_line(n)),
    }
}

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
    let session = open_session(global)?;
    let options = transcript::Options { rev: args.rev.clone() };
    let doc = transcript::build(&session, &options)?;
    warn_cycle(&session, doc.cycle_at);
    let text = match format_of(args) {
        Format::Md => markdown(&doc),
        Format::Html => html_doc(&doc),
    };
    match args.output.as_deref().filter(|p| p.as_os_str() != "-") {
        Some(path) => write::write_file(path, text.as_bytes(), args.force)?,
        None => out.raw_line(text.trim_end_matches('\n').as_bytes())?,
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
    }

    #[test]
    fn fences_outgrow_content() {
        assert_eq!(fence_for("a ``` b", 3), "````");
        assert_eq!(md_code("a`b"), "``a`b``");
        assert_eq!(md_code("`x"), "`` `x ``");
    }
}
