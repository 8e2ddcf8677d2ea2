//! Message Markdown for the exports: rendered to HTML safe for a shared page, or with its
//! headings moved down for the Markdown export.
//!
//! Parsing is pulldown-cmark's (CommonMark with GFM tables, strikethrough and task lists);
//! the HTML is written here rather than by its `html` module so that nothing the message
//! says reaches the page unescaped: raw HTML becomes text, links and images keep only
//! schemes that cannot run script. Rendering walks the event stream with explicit state
//! (no recursion), so deeply nested input cannot exhaust the stack.

use super::escape::push_escaped_html;
use super::highlight::{self, Language};
use pulldown_cmark::{Alignment, CodeBlockKind, Event, HeadingLevel, LinkType, Options, Parser, Tag, TagEnd};
use std::borrow::Cow;
use std::ops::Range;

/// The extensions both functions parse with, so that they agree on what a heading is.
fn options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS
}

/// `markdown` rendered as HTML into `out`: CommonMark plus GFM tables, strikethrough and
/// task lists.
///
/// Safe for a shared page: raw HTML (blocks and inline) is shown as escaped text; links
/// keep only `http:`, `https:`, `mailto:` and `#fragment` destinations (others, relative
/// ones included, become their text); images are shown inline only as
/// `data:image/(png|jpeg|gif|webp);base64`, other safe ones become links, unsafe ones
/// their alt text. Code blocks go through [`highlight::push_highlighted`] with the fence's
/// language. Headings move down `heading_shift` levels (at most to `h6`), so a message's
/// `#` nests under the page's own headings.
pub fn push_html(out: &mut String, markdown: &str, heading_shift: u8) {
    let mut r = Renderer {
        out,
        shift: heading_shift,
        links: Vec::new(),
        code: None,
        html_block: None,
        image: None,
        table: Table::default(),
    };
    for event in Parser::new_ext(markdown, options()) {
        r.event(event);
    }
    // pulldown-cmark closes every tag it opens, so the stacks end empty; an image or
    // code block still open would be a parser bug, but its text is not lost.
    r.finish();
}

/// How an image is shown, decided at its start, written at its end (after its alt text).
enum ImageKind<'a> {
    /// A base64 PNG/JPEG/GIF/WebP: an `<img>`.
    Inline(Cow<'a, str>),
    /// Another safe URL: a link to it.
    Link(Cow<'a, str>),
    /// An unsafe URL: the alt text alone.
    Text,
}

struct Image<'a> {
    kind: ImageKind<'a>,
    title: Cow<'a, str>,
    /// The alt text, escaped.
    alt: String,
    /// Images nested in the alt text (their alt text joins this one).
    depth: usize,
}

#[derive(Default)]
struct Table {
    aligns: Vec<Alignment>,
    in_head: bool,
    body_open: bool,
    cell: usize,
}

struct Renderer<'o, 'a> {
    out: &'o mut String,
    shift: u8,
    /// For each open link, what closes it (`</a>`, or nothing for an unsafe one).
    links: Vec<&'static str>,
    /// An open code block: its language and text so far (highlighted whole at its end).
    code: Option<(Option<Language>, String)>,
    /// An open raw HTML block's text.
    html_block: Option<String>,
    image: Option<Image<'a>>,
    table: Table,
}

/// The level a heading of `level` gets, moved down `shift`.
fn heading_level(level: HeadingLevel, shift: u8) -> u8 {
    (level as u8).saturating_add(shift).min(6)
}

impl<'a> Renderer<'_, 'a> {
    fn event(&mut self, event: Event<'a>) {
        // Inside an image everything is alt text.
        if let Some(image) = &mut self.image {
            match event {
                Event::Start(Tag::Image { .. }) => image.depth += 1,
                Event::End(TagEnd::Image) if image.depth > 0 => image.depth -= 1,
                Event::End(TagEnd::Image) => {
                    let image = self.image.take().expect("checked above");
                    self.write_image(image);
                }
                Event::Text(t) | Event::Code(t) | Event::InlineMath(t) | Event::DisplayMath(t) => {
                    push_escaped_html(&mut image.alt, &t)
                }
                Event::Html(t) | Event::InlineHtml(t) => push_escaped_html(&mut image.alt, &t),
                Event::SoftBreak | Event::HardBreak => image.alt.push(' '),
                _ => {}
            }
            return;
        }
        if let Some((_, text)) = &mut self.code {
            match event {
                Event::End(TagEnd::CodeBlock) => {
                    let (lang, text) = self.code.take().expect("checked above");
                    self.out.push_str("<pre><code");
                    if let Some(lang) = lang {
                        self.out.push_str(" class=\"language-");
                        self.out.push_str(lang.name());
                        self.out.push('"');
                    }
                    self.out.push('>');
                    highlight::push_highlighted(self.out, lang, &text);
                    self.out.push_str("</code></pre>\n");
                }
                Event::Text(t) | Event::Html(t) | Event::InlineHtml(t) | Event::Code(t) => text.push_str(&t),
                _ => {}
            }
            return;
        }
        if let Some(text) = &mut self.html_block {
            match event {
                Event::End(TagEnd::HtmlBlock) => {
                    let text = self.html_block.take().expect("checked above");
                    self.out.push_str("<pre class=\"md-raw-html\"><code>");
                    highlight::push_highlighted(self.out, Some(Language::Html), &text);
                    self.out.push_str("</code></pre>\n");
                }
                Event::Text(t) | Event::Html(t) | Event::InlineHtml(t) => text.push_str(&t),
                _ => {}
            }
            return;
        }
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(t) => push_escaped_html(self.out, &t),
            Event::Code(t) => {
                self.out.push_str("<code>");
                push_escaped_html(self.out, &t);
                self.out.push_str("</code>");
            }
            Event::InlineMath(t) | Event::DisplayMath(t) => {
                self.out.push_str("<code class=\"md-math\">");
                push_escaped_html(self.out, &t);
                self.out.push_str("</code>");
            }
            // Raw HTML is shown, never obeyed.
            Event::Html(t) | Event::InlineHtml(t) => push_escaped_html(self.out, &t),
            Event::FootnoteReference(t) => {
                self.out.push_str("[^");
                push_escaped_html(self.out, &t);
                self.out.push(']');
            }
            Event::SoftBreak => self.out.push('\n'),
            Event::HardBreak => self.out.push_str("<br>\n"),
            Event::Rule => self.out.push_str("<hr>\n"),
            Event::TaskListMarker(checked) => self.out.push_str(if checked {
                "<input type=\"checkbox\" disabled checked> "
            } else {
                "<input type=\"checkbox\" disabled> "
            }),
        }
    }

    fn start(&mut self, tag: Tag<'a>) {
        let out = &mut *self.out;
        match tag {
            Tag::Paragraph => out.push_str("<p>"),
            Tag::Heading { level, .. } => {
                let h = heading_level(level, self.shift);
                out.push_str("<h");
                out.push(char::from(b'0' + h));
                out.push('>');
            }
            Tag::BlockQuote(_) => out.push_str("<blockquote>\n"),
            Tag::CodeBlock(kind) => {
                let lang = match kind {
                    CodeBlockKind::Fenced(info) => highlight::language(&info),
                    CodeBlockKind::Indented => None,
                };
                self.code = Some((lang, String::new()));
            }
            Tag::HtmlBlock => self.html_block = Some(String::new()),
            Tag::List(None) => out.push_str("<ul>\n"),
            Tag::List(Some(1)) => out.push_str("<ol>\n"),
            Tag::List(Some(start)) => {
                out.push_str("<ol start=\"");
                out.push_str(&start.to_string());
                out.push_str("\">\n");
            }
            Tag::Item => out.push_str("<li>"),
            Tag::FootnoteDefinition(name) => {
                out.push_str("<div class=\"md-footnote\">[^");
                push_escaped_html(out, &name);
                out.push_str("]: ");
            }
            Tag::DefinitionList => out.push_str("<dl>\n"),
            Tag::DefinitionListTitle => out.push_str("<dt>"),
            Tag::DefinitionListDefinition => out.push_str("<dd>"),
            Tag::Table(aligns) => {
                self.table = Table {
                    aligns,
                    ..Table::default()
                };
                out.push_str("<table>\n");
            }
            Tag::TableHead => {
                self.table.in_head = true;
                self.table.cell = 0;
                out.push_str("<thead><tr>");
            }
            Tag::TableRow => {
                if !self.table.body_open {
                    self.table.body_open = true;
                    out.push_str("<tbody>\n");
                }
                self.table.cell = 0;
                out.push_str("<tr>");
            }
            Tag::TableCell => {
                out.push_str(if self.table.in_head { "<th" } else { "<td" });
                match self.table.aligns.get(self.table.cell) {
                    Some(Alignment::Left) => out.push_str(" style=\"text-align:left\""),
                    Some(Alignment::Center) => out.push_str(" style=\"text-align:center\""),
                    Some(Alignment::Right) => out.push_str(" style=\"text-align:right\""),
                    Some(Alignment::None) | None => {}
                }
                out.push('>');
            }
            Tag::Emphasis => out.push_str("<em>"),
            Tag::Strong => out.push_str("<strong>"),
            Tag::Strikethrough => out.push_str("<del>"),
            Tag::Superscript => out.push_str("<sup>"),
            Tag::Subscript => out.push_str("<sub>"),
            Tag::Link {
                link_type,
                dest_url,
                title,
                ..
            } => {
                let dest = if link_type == LinkType::Email {
                    Some(Cow::Owned(format!("mailto:{dest_url}")))
                } else {
                    safe_link(&dest_url).map(|u| Cow::Owned(u.into_owned()))
                };
                match dest {
                    Some(dest) => {
                        out.push_str("<a href=\"");
                        push_escaped_html(out, &dest);
                        out.push('"');
                        if !title.is_empty() {
                            out.push_str(" title=\"");
                            push_escaped_html(out, &title);
                            out.push('"');
                        }
                        out.push_str(" rel=\"nofollow\">");
                        self.links.push("</a>");
                    }
                    None => self.links.push(""),
                }
            }
            Tag::Image { dest_url, title, .. } => {
                let kind = if is_inline_image(&dest_url) {
                    ImageKind::Inline(dest_url.into_string().into())
                } else {
                    match safe_link(&dest_url) {
                        Some(url) => ImageKind::Link(Cow::Owned(url.into_owned())),
                        None => ImageKind::Text,
                    }
                };
                self.image = Some(Image {
                    kind,
                    title: title.into_string().into(),
                    alt: String::new(),
                    depth: 0,
                });
            }
            Tag::MetadataBlock(_) => out.push_str("<pre class=\"md-metadata\"><code>"),
        }
    }

    fn end(&mut self, tag: TagEnd) {
        let out = &mut *self.out;
        match tag {
            TagEnd::Paragraph => out.push_str("</p>\n"),
            TagEnd::Heading(level) => {
                let h = heading_level(level, self.shift);
                out.push_str("</h");
                out.push(char::from(b'0' + h));
                out.push_str(">\n");
            }
            TagEnd::BlockQuote(_) => out.push_str("</blockquote>\n"),
            // Handled while the block is open; these only come unmatched.
            TagEnd::CodeBlock | TagEnd::HtmlBlock | TagEnd::Image => {}
            TagEnd::List(true) => out.push_str("</ol>\n"),
            TagEnd::List(false) => out.push_str("</ul>\n"),
            TagEnd::Item => out.push_str("</li>\n"),
            TagEnd::FootnoteDefinition => out.push_str("</div>\n"),
            TagEnd::DefinitionList => out.push_str("</dl>\n"),
            TagEnd::DefinitionListTitle => out.push_str("</dt>\n"),
            TagEnd::DefinitionListDefinition => out.push_str("</dd>\n"),
            TagEnd::Table => {
                if self.table.body_open {
                    out.push_str("</tbody>\n");
                }
                out.push_str("</table>\n");
                self.table = Table::default();
            }
            TagEnd::TableHead => {
                self.table.in_head = false;
                out.push_str("</tr></thead>\n");
            }
            TagEnd::TableRow => out.push_str("</tr>\n"),
            TagEnd::TableCell => {
                out.push_str(if self.table.in_head { "</th>" } else { "</td>" });
                self.table.cell += 1;
            }
            TagEnd::Emphasis => out.push_str("</em>"),
            TagEnd::Strong => out.push_str("</strong>"),
            TagEnd::Strikethrough => out.push_str("</del>"),
            TagEnd::Superscript => out.push_str("</sup>"),
            TagEnd::Subscript => out.push_str("</sub>"),
            TagEnd::Link => {
                let close = self.links.pop().unwrap_or("");
                out.push_str(close);
            }
            TagEnd::MetadataBlock(_) => out.push_str("</code></pre>\n"),
        }
    }

    fn write_image(&mut self, image: Image<'a>) {
        let out = &mut *self.out;
        let title = |out: &mut String| {
            if !image.title.is_empty() {
                out.push_str(" title=\"");
                push_escaped_html(out, &image.title);
                out.push('"');
            }
        };
        match &image.kind {
            ImageKind::Inline(src) => {
                out.push_str("<img src=\"");
                push_escaped_html(out, src);
                out.push_str("\" alt=\"");
                out.push_str(&image.alt);
                out.push('"');
                title(out);
                out.push('>');
            }
            ImageKind::Link(url) => {
                out.push_str("<a class=\"md-image\" href=\"");
                push_escaped_html(out, url);
                out.push('"');
                title(out);
                out.push_str(" rel=\"nofollow\">");
                if image.alt.is_empty() {
                    push_escaped_html(out, url);
                } else {
                    out.push_str(&image.alt);
                }
                out.push_str("</a>");
            }
            ImageKind::Text => {
                out.push_str("<span class=\"md-image\">");
                out.push_str(if image.alt.is_empty() { "[image]" } else { &image.alt });
                out.push_str("</span>");
            }
        }
    }

    /// Writes what an unbalanced stream left open (not expected from pulldown-cmark).
    fn finish(&mut self) {
        if let Some(image) = self.image.take() {
            self.write_image(image);
        }
        if self.code.is_some() {
            self.event(Event::End(TagEnd::CodeBlock));
        }
        if self.html_block.is_some() {
            self.event(Event::End(TagEnd::HtmlBlock));
        }
    }
}

/// The destination a link or image may use, or `None` unless it is an `http:`, `https:` or
/// `mailto:` URL or an in-page anchor (`#...`), the only ones the README promises. A page
/// shared as a file has nothing relative to point at, and a relative reference can leave
/// the page anyway (`//host` and `/\host` name another host, `../../etc/passwd` a local
/// file).
///
/// Browsers drop tabs and newlines anywhere in a URL and leading control characters and
/// spaces (`java\tscript:` is `javascript:`), so the scheme is read after doing the same,
/// and that cleaned URL is what the link gets. Any other control character makes it unsafe.
fn safe_link(url: &str) -> Option<Cow<'_, str>> {
    let cleaned: Cow<str> = if url.contains(['\t', '\n', '\r']) {
        Cow::Owned(url.chars().filter(|c| !matches!(c, '\t' | '\n' | '\r')).collect())
    } else {
        Cow::Borrowed(url)
    };
    let trimmed = cleaned.trim_matches(|c: char| c <= ' ');
    if trimmed.chars().any(|c| c.is_control()) {
        return None;
    }
    // A scheme is what comes before the first `:` when no `/`, `?`, `#` or `\\` comes
    // earlier.
    let ok = trimmed.starts_with('#')
        || trimmed.find([':', '/', '?', '#', '\\']).is_some_and(|k| {
            trimmed.as_bytes()[k] == b':'
                && ["http", "https", "mailto"]
                    .iter()
                    .any(|s| trimmed[..k].eq_ignore_ascii_case(s))
        });
    if !ok {
        return None;
    }
    Some(match cleaned {
        Cow::Borrowed(_) => Cow::Borrowed(url.trim_matches(|c: char| c <= ' ')),
        Cow::Owned(s) => Cow::Owned(s.trim_matches(|c: char| c <= ' ').to_owned()),
    })
}

/// A base64 PNG, JPEG, GIF or WebP data URL (SVG can carry script, so it is not one).
fn is_inline_image(url: &str) -> bool {
    let Some(rest) = url
        .get(..11)
        .filter(|p| p.eq_ignore_ascii_case("data:image/"))
        .map(|_| &url[11..])
    else {
        return false;
    };
    let payload = ["png", "jpeg", "jpg", "gif", "webp"].iter().find_map(|t| {
        let p = rest.get(..t.len() + 8)?;
        let (ty, tail) = p.split_at(t.len());
        (ty.eq_ignore_ascii_case(t) && tail.eq_ignore_ascii_case(";base64,")).then(|| &rest[t.len() + 8..])
    });
    payload.is_some_and(|p| {
        !p.is_empty()
            && p.bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'='))
    })
}

/// Whether a line of `markdown` could be a heading or a setext underline: after indentation
/// and container markers (`>`, list bullets and numbers) it starts with `#`, or it is a run
/// of `=` or of `-`. Never false for a text with a heading (the parser decides the rest), and
/// false for most texts, which then cost one pass over their lines instead of a parse.
fn may_hold_heading(markdown: &str) -> bool {
    let b = markdown.as_bytes();
    let mut start = 0;
    loop {
        let end = memchr::memchr(b'\n', &b[start..]).map_or(b.len(), |k| start + k);
        // Most lines start with a byte that no such line can start with.
        if b.get(start).is_some_and(|&c| MAY_START_HEADING[c as usize]) && line_may_be_heading(&markdown[start..end]) {
            return true;
        }
        if end == b.len() {
            return false;
        }
        start = end + 1;
    }
}

/// The bytes a line [`line_may_be_heading`] can start with: the markers skipped before a
/// `#`, the `#`, and the `=` or `-` of an underline.
const MAY_START_HEADING: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = b'0';
    while c <= b'9' {
        t[c as usize] = true;
        c += 1;
    }
    let marks = *b" \t>-*+.)#=";
    let mut k = 0;
    while k < marks.len() {
        t[marks[k] as usize] = true;
        k += 1;
    }
    t
};

/// Whether `line` could be a heading or a setext underline (see [`may_hold_heading`]).
fn line_may_be_heading(line: &str) -> bool {
    let b = line.as_bytes();
    let start = b
        .iter()
        .position(|c| !matches!(c, b' ' | b'\t' | b'>' | b'-' | b'*' | b'+' | b'.' | b')' | b'0'..=b'9'))
        .unwrap_or(b.len());
    if b.get(start) == Some(&b'#') {
        return true;
    }
    let rest = line.trim_start_matches([' ', '\t', '>']).trim_end();
    !rest.is_empty() && (rest.bytes().all(|c| c == b'=') || rest.bytes().all(|c| c == b'-'))
}

/// For the Markdown export: `markdown` with every heading (ATX `#…` and setext `===`/`---`
/// underlined) moved down `by` levels, at most to 6; setext headings become ATX ones (a
/// multi-line setext heading joins its lines with spaces). Everything else is
/// byte-identical — code blocks, `#` in fences or inline code are untouched. Borrowed when
/// nothing changes.
pub fn shift_headings(markdown: &str, by: u8) -> Cow<'_, str> {
    if by == 0 || !may_hold_heading(markdown) {
        return Cow::Borrowed(markdown);
    }
    if let Some(headings) = plain_atx_headings(markdown) {
        // The usual case of a text with headings (a summary's `## Goal`): no parse needed.
        let mut out = String::with_capacity(markdown.len() + headings.len() * usize::from(by));
        let mut last = 0;
        for (at, level) in headings {
            let new = (level + usize::from(by)).min(6);
            out.push_str(&markdown[last..at]);
            for _ in level..new {
                out.push('#');
            }
            last = at;
        }
        out.push_str(&markdown[last..]);
        return if out.len() == markdown.len() {
            Cow::Borrowed(markdown)
        } else {
            Cow::Owned(out)
        };
    }
    shift_headings_parsed(markdown, by)
}

/// The ATX headings of `markdown` (where each starts, and its level) when they are the only
/// lines that could be headings, each starts its line (no indentation, no container), and
/// nothing in the text could hold a line that starts with `#` without it being a heading:
/// no line starts (after indentation and container markers) a fence, an HTML block or a
/// link reference definition (whose title may span lines), no `|` (tables), no `\r`.
/// `None` otherwise, when the parser decides.
fn plain_atx_headings(markdown: &str) -> Option<Vec<(usize, usize)>> {
    let b = markdown.as_bytes();
    if memchr::memchr2(b'|', b'\r', b).is_some() {
        return None;
    }
    let mut headings = Vec::new();
    let mut start = 0;
    loop {
        let end = memchr::memchr(b'\n', &b[start..]).map_or(b.len(), |k| start + k);
        if b.get(start).is_some_and(|&c| MAY_START_BLOCK[c as usize]) {
            let line = &b[start..end];
            let hashes = line.iter().take_while(|&&c| c == b'#').count();
            if (1..=6).contains(&hashes) && matches!(line.get(hashes), None | Some(b' ' | b'\t')) {
                headings.push((start, hashes));
            } else if line_may_be_heading(&markdown[start..end]) {
                return None;
            } else {
                let first = line
                    .iter()
                    .position(|c| !matches!(c, b' ' | b'\t' | b'>' | b'-' | b'*' | b'+' | b'.' | b')' | b'0'..=b'9'));
                if first.is_some_and(|k| matches!(line[k], b'`' | b'~' | b'<' | b'[')) {
                    return None;
                }
            }
        }
        if end == b.len() {
            return Some(headings);
        }
        start = end + 1;
    }
}

/// The bytes [`plain_atx_headings`] looks at a line for: those a line
/// [`line_may_be_heading`] can start with, and the starts of fences, HTML blocks and link
/// reference definitions.
const MAY_START_BLOCK: [bool; 256] = {
    let mut t = MAY_START_HEADING;
    t[b'`' as usize] = true;
    t[b'~' as usize] = true;
    t[b'<' as usize] = true;
    t[b'[' as usize] = true;
    t
};

/// [`shift_headings`] by the parser's reading.
fn shift_headings_parsed(markdown: &str, by: u8) -> Cow<'_, str> {
    // Edits as (range replaced, replacement), in source order.
    let mut edits: Vec<(Range<usize>, String)> = Vec::new();
    // BlockQuote and Item nesting: a setext heading's later lines inside them start with
    // the container's markers, which its ATX form must not keep.
    let mut containers = 0usize;
    for (event, range) in Parser::new_ext(markdown, options()).into_offset_iter() {
        match event {
            Event::Start(Tag::BlockQuote(_) | Tag::Item) => containers += 1,
            Event::End(TagEnd::BlockQuote(_) | TagEnd::Item) => containers = containers.saturating_sub(1),
            Event::Start(Tag::Heading { level, .. }) => {
                let level = level as usize;
                let new = (level + usize::from(by)).min(6);
                if let Some(edit) = heading_edit(markdown, range, level, new, containers > 0) {
                    edits.push(edit);
                }
            }
            _ => {}
        }
    }
    if edits.is_empty() {
        return Cow::Borrowed(markdown);
    }
    let mut out = String::with_capacity(markdown.len() + edits.len() * 8);
    let mut last = 0;
    for (range, text) in edits {
        out.push_str(&markdown[last..range.start]);
        out.push_str(&text);
        last = range.end;
    }
    out.push_str(&markdown[last..]);
    Cow::Owned(out)
}

/// The edit that moves the heading at `range` from `level` to `new`, if any.
fn heading_edit(
    md: &str,
    range: Range<usize>,
    level: usize,
    new: usize,
    in_container: bool,
) -> Option<(Range<usize>, String)> {
    let text = &md[range.clone()];
    let lead = text.len() - text.trim_start_matches([' ', '\t']).len();
    let body = text.trim_end_matches(['\n', '\r']);
    // An ATX heading is one line; a setext heading is at least two, and its text may start
    // with a `#` that opens no ATX heading (`#=` underlined is a level-1 heading of `#=`).
    if !body.contains(['\n', '\r']) {
        // ATX: more `#`s before the existing ones.
        if new == level {
            return None;
        }
        let at = range.start + lead;
        return Some((at..at, "#".repeat(new - level)));
    }
    // Setext: the last line of the range is the underline (lines ended by a lone `\r` are
    // left as they are).
    let underline = body.rfind('\n')?;
    let mut content = String::new();
    for (k, line) in body[..underline].lines().enumerate() {
        let mut line = line.trim_end_matches('\r');
        if k > 0 {
            line = if in_container {
                line.trim_start_matches([' ', '\t', '>'])
            } else {
                line.trim_start_matches([' ', '\t'])
            };
            // The previous line's hard break (`\` at its end) is a space on one line.
            if content.ends_with('\\') {
                content.pop();
            }
            content.push(' ');
        }
        content.push_str(line.trim_end());
    }
    let mut heading = "#".repeat(new);
    heading.push(' ');
    heading.push_str(content.trim());
    // A trailing `#` would read as the ATX closing sequence: close it explicitly.
    if heading.ends_with('#') {
        heading.push_str(" #");
    }
    Some((range.start..range.start + body.len(), heading))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn html(md: &str) -> String {
        let mut out = String::new();
        push_html(&mut out, md, 0);
        out
    }

    #[test]
    fn blocks_and_inlines() {
        assert_eq!(
            html("# T\n\nSome *a **b** c* `x<y`\n"),
            "<h1>T</h1>\n<p>Some <em>a <strong>b</strong> c</em> <code>x&lt;y</code></p>\n"
        );
        assert_eq!(
            html("- a\n- [x] b\n\n3. c\n"),
            "<ul>\n<li>a</li>\n<li><input type=\"checkbox\" disabled checked> b</li>\n</ul>\n<ol start=\"3\">\n<li>c</li>\n</ol>\n"
        );
        assert_eq!(
            html("> q\n\n---\n~~s~~"),
            "<blockquote>\n<p>q</p>\n</blockquote>\n<hr>\n<p><del>s</del></p>\n"
        );
        assert_eq!(
            html("| a | b |\n|:--|--:|\n| 1 | 2 |\n"),
            "<table>\n<thead><tr><th style=\"text-align:left\">a</th><th style=\"text-align:right\">b</th></tr></thead>\n<tbody>\n<tr><td style=\"text-align:left\">1</td><td style=\"text-align:right\">2</td></tr>\n</tbody>\n</table>\n"
        );
        assert_eq!(html("a  \nb"), "<p>a<br>\nb</p>\n");
        assert_eq!(html("\"q\" & 'a'"), "<p>&quot;q&quot; &amp; &#39;a&#39;</p>\n");
    }

    #[test]
    fn headings_shift_and_cap() {
        let mut out = String::new();
        push_html(&mut out, "# a\n## b\n###### c\nd\n=", 2);
        assert_eq!(out, "<h3>a</h3>\n<h4>b</h4>\n<h6>c</h6>\n<h3>d</h3>\n");
        let mut out = String::new();
        push_html(&mut out, "# a", 255);
        assert_eq!(out, "<h6>a</h6>\n");
    }

    #[test]
    fn code_blocks_are_highlighted() {
        assert_eq!(
            html("```rust\nfn x() {}\n```\n"),
            "<pre><code class=\"language-rust\"><span class=\"hl-keyword\">fn</span> <span class=\"hl-function\">x</span>() {}\n</code></pre>\n"
        );
        assert_eq!(html("```nope\n<b>\n```"), "<pre><code>&lt;b&gt;\n</code></pre>\n");
        assert_eq!(html("    <i>\n"), "<pre><code>&lt;i&gt;\n</code></pre>\n");
    }

    #[test]
    fn raw_html_is_text() {
        let out = html("<script>alert(1)</script>\n\nx <img src=x onerror=alert(1)> y");
        assert!(!out.contains("<script"), "{out}");
        assert!(!out.contains("<img"), "{out}");
        assert!(out.starts_with("<pre class=\"md-raw-html\"><code>"), "{out}");
        assert!(out.contains("<p>x &lt;img src=x onerror=alert(1)&gt; y</p>"), "{out}");
    }

    #[test]
    fn links() {
        assert_eq!(
            html("[a](https://x.org/?a=1&b=\"2\" \"t\") <https://y.org> <me@x.org> [r](../f.md#s) [f](#top)"),
            "<p><a href=\"https://x.org/?a=1&amp;b=&quot;2&quot;\" title=\"t\" rel=\"nofollow\">a</a> <a href=\"https://y.org\" rel=\"nofollow\">https://y.org</a> <a href=\"mailto:me@x.org\" rel=\"nofollow\">me@x.org</a> r <a href=\"#top\" rel=\"nofollow\">f</a></p>\n"
        );
        for bad in [
            "[x](javascript:alert(1))",
            "[x](JaVaScRiPt:alert(1))",
            "[x](<java\tscript:alert(1)>)",
            "[x](&#106;avascript:alert(1))",
            "[x](vbscript:msgbox)",
            "[x](data:text/html;base64,PHNjcmlwdD4=)",
            "[x]: javascript:alert(1)\n\n[x]",
            "[x](file:///etc/passwd)",
            "[x](\u{1}javascript:alert(1))",
            // Relative references: another host, a local file, the page's folder.
            "[x](//evil.example/x)",
            "[x](<\\\\evil.example\\x>)",
            "[x](/\\evil.example)",
            "[x](./rel)",
            "[x](../../etc/passwd)",
            "[x](?q=1)",
            "[x](%6A%61vascript:alert(1))",
            "[x](ftp://evil.example)",
        ] {
            let out = html(bad);
            assert!(!out.contains("<a"), "{bad} gave {out}");
            assert!(out.contains('x'), "{bad} lost its text: {out}");
        }
    }

    #[test]
    fn images() {
        assert_eq!(
            html("![a *b*](data:image/png;base64,iVBORw0KGgo= \"t\")"),
            "<p><img src=\"data:image/png;base64,iVBORw0KGgo=\" alt=\"a b\" title=\"t\"></p>\n"
        );
        assert_eq!(
            html("![pic](https://x.org/p.png)"),
            "<p><a class=\"md-image\" href=\"https://x.org/p.png\" rel=\"nofollow\">pic</a></p>\n"
        );
        assert_eq!(
            html("![](javascript:alert(1)) ![x](data:image/svg+xml;base64,PHN2Zz4=)"),
            "<p><span class=\"md-image\">[image]</span> <span class=\"md-image\">x</span></p>\n"
        );
        // An image in a link, and an image in an image's alt.
        assert_eq!(
            html("[![i](data:image/gif;base64,R0lG)](https://x.org) ![a ![b](y.png)](https://x.org/z.png)"),
            "<p><a href=\"https://x.org\" rel=\"nofollow\"><img src=\"data:image/gif;base64,R0lG\" alt=\"i\"></a> <a class=\"md-image\" href=\"https://x.org/z.png\" rel=\"nofollow\">a b</a></p>\n"
        );
        // Relative images are their alt text, as relative links are.
        assert_eq!(
            html("![p](//evil.example/p.png) ![q](../q.png)"),
            "<p><span class=\"md-image\">p</span> <span class=\"md-image\">q</span></p>\n"
        );
        assert_eq!(
            html("![x\"><script>](data:image/png;base64,AA)"),
            "<p><img src=\"data:image/png;base64,AA\" alt=\"x&quot;&gt;&lt;script&gt;\"></p>\n"
        );
    }

    #[test]
    fn deep_nesting_does_not_overflow() {
        for md in [
            ">".repeat(100_000),
            "- ".repeat(20_000),
            "*a ".repeat(50_000),
            "[".repeat(100_000),
            "![".repeat(50_000) + &"](x)".repeat(50_000),
        ] {
            check_safe(&md, &html(&md));
            let _ = shift_headings(&md, 1);
        }
        // A 1 MB message.
        let big = "## Head\n\nSome *text* with `code` and [a link](https://x.org).\n\n```rust\nfn main() {}\n```\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n".repeat(10_000);
        let out = html(&big);
        assert!(out.len() > big.len());
        assert_eq!(shift_headings(&big, 1).len(), big.len() + 10_000);
    }

    #[test]
    fn shift_headings_cases() {
        assert!(matches!(shift_headings("no headings\n", 2), Cow::Borrowed(_)));
        assert!(matches!(shift_headings("# a\n", 0), Cow::Borrowed(_)));
        assert!(matches!(shift_headings("###### six\n", 1), Cow::Borrowed(_)));
        assert_eq!(
            shift_headings("# a\n## b ##\n  ### c\n", 1),
            "## a\n### b ##\n  #### c\n"
        );
        assert_eq!(shift_headings("# a\n", 9), "###### a\n");
        assert_eq!(
            shift_headings("```\n# not\n```\n`# no` and \\# no\n    # indented code\n", 2),
            "```\n# not\n```\n`# no` and \\# no\n    # indented code\n"
        );
        assert_eq!(
            shift_headings("Title\n=====\n\nSub\n---\ntext\n", 1),
            "## Title\n\n### Sub\ntext\n"
        );
        assert_eq!(shift_headings("a\nb\\\nc\n===\n", 1), "## a b c\n");
        assert_eq!(shift_headings("> Q\n> ==\n", 1), "> ## Q\n");
        // A setext heading whose text starts with a `#` that opens no ATX heading.
        assert_eq!(shift_headings("#=\n=\n", 1), "## #=\n");
        assert_eq!(shift_headings("#tag\n---\n", 2), "#### #tag\n");
        assert_eq!(shift_headings("> a\n> b\n> --\n", 1), "> ### a b\n");
        assert_eq!(shift_headings("- # item\n", 1), "- ## item\n");
        assert_eq!(shift_headings("C#\n==\n", 1), "## C# #\n");
        // Plain ATX headings are moved without a parse; anything that could hold a `#` line
        // that is no heading makes the parser decide.
        assert_eq!(
            shift_headings("## Goal\nfn f() -> R<(), E> {}\n#\n", 2),
            "#### Goal\nfn f() -> R<(), E> {}\n###\n"
        );
        assert_eq!(shift_headings("```\n# a\n```\n# b", 1), "```\n# a\n```\n## b");
        assert_eq!(shift_headings("<div>\n# a\n</div>", 1), "<div>\n# a\n</div>");
        let linkref = "[x]: /u '\n# a\n'\n\n[x]";
        assert_eq!(shift_headings(linkref, 1), shift_headings_parsed(linkref, 1));
        assert_eq!(shift_headings("#x\n####### 7\n#\ta", 1), "#x\n####### 7\n##\ta");
    }

    /// Every tag in `out` is one the renderer writes, opens and closes balance, and no
    /// attribute can run script.
    fn check_safe(md: &str, out: &str) {
        const VOID: [&str; 4] = ["br", "hr", "img", "input"];
        let mut stack: Vec<String> = Vec::new();
        let mut rest = out;
        while let Some(k) = rest.find('<') {
            let end = rest[k..].find('>').unwrap_or_else(|| panic!("unclosed tag in {out:?}")) + k;
            let tag = &rest[k + 1..end];
            rest = &rest[end + 1..];
            let lower = tag.to_ascii_lowercase();
            // No script element, and no attribute whose URL has a script scheme (a relative
            // link named `script`, or `https://xjavascript:`, is fine).
            let script_url = lower.split("=\"").skip(1).any(|value| {
                let head = value.split(['/', '?', '#', '"']).next().unwrap_or("");
                head.split_once(':')
                    .is_some_and(|(scheme, _)| scheme.contains("script"))
            });
            assert!(
                !lower.starts_with("script") && !lower.starts_with("/script") && !script_url,
                "{md:?} gave {out:?}"
            );
            if let Some(name) = tag.strip_prefix('/') {
                let open = stack
                    .pop()
                    .unwrap_or_else(|| panic!("stray </{name}> for {md:?}: {out:?}"));
                assert_eq!(open, name, "{md:?}: {out:?}");
                continue;
            }
            let name = tag.split(' ').next().unwrap();
            assert!(
                [
                    "p",
                    "h1",
                    "h2",
                    "h3",
                    "h4",
                    "h5",
                    "h6",
                    "blockquote",
                    "pre",
                    "code",
                    "ul",
                    "ol",
                    "li",
                    "table",
                    "thead",
                    "tbody",
                    "tr",
                    "th",
                    "td",
                    "em",
                    "strong",
                    "del",
                    "a",
                    "span",
                    "br",
                    "hr",
                    "img",
                    "input",
                    "sup",
                    "sub",
                    "dl",
                    "dt",
                    "dd",
                    "div",
                ]
                .contains(&name),
                "tag {name} from {md:?}"
            );
            // Attributes: name="value" pairs (values are escaped, so split on quotes).
            let attrs = &tag[name.len()..];
            let parts: Vec<&str> = attrs.split('"').collect();
            for pair in parts.chunks(2) {
                let attr = pair[0].trim().trim_end_matches('=');
                for a in attr.split_whitespace() {
                    assert!(!a.starts_with("on"), "{a} in {out:?}");
                    assert!(
                        [
                            "class", "href", "title", "rel", "src", "alt", "style", "start", "type", "disabled",
                            "checked"
                        ]
                        .contains(&a),
                        "{a} in {out:?}"
                    );
                }
                if let [key, value] = pair {
                    let key = key.trim().trim_end_matches('=');
                    if key == "href" {
                        let v = value.to_ascii_lowercase();
                        let scheme = v
                            .find([':', '/', '?', '#'])
                            .filter(|&i| v.as_bytes()[i] == b':')
                            .map(|i| &v[..i]);
                        assert!(
                            v.starts_with('#') || matches!(scheme, Some("http" | "https" | "mailto")),
                            "{value} in {out:?}"
                        );
                    }
                    if key == "src" {
                        assert!(is_inline_image(&value.replace("&amp;", "&")), "{value}");
                    }
                }
            }
            if !VOID.contains(&name) {
                stack.push(name.to_owned());
            }
        }
        assert!(stack.is_empty(), "unclosed {stack:?} for {md:?}: {out:?}");
    }

    fn markdownish() -> impl Strategy<Value = String> {
        prop_oneof![
            any::<String>(),
            prop::collection::vec(
                prop::sample::select(vec![
                    "#",
                    "# ",
                    "\n",
                    "\n\n",
                    "=",
                    "-",
                    "---",
                    "===",
                    "> ",
                    "- ",
                    "1. ",
                    "* ",
                    "*",
                    "_",
                    "**",
                    "~~",
                    "`",
                    "```",
                    "```rust\n",
                    "~~~",
                    "    ",
                    "|",
                    "|---|",
                    "[",
                    "]",
                    "(",
                    ")",
                    "![",
                    "<",
                    ">",
                    "&",
                    "\"",
                    "'",
                    "javascript:",
                    "java\tscript:",
                    "data:image/png;base64,AA",
                    "data:text/html,",
                    "https://x",
                    "mailto:a",
                    "#f",
                    "<script>",
                    "<img src=x onerror=y>",
                    "<a href=\"javascript:x\">",
                    "</a>",
                    "-->",
                    "<!--",
                    "\\",
                    "[x]: ",
                    "[ ] ",
                    "[x] ",
                    "a",
                    "é",
                    " ",
                    "\t",
                    "&#106;",
                    "&amp;",
                    "onclick=",
                    "\r\n",
                ]),
                0..30,
            )
            .prop_map(|v| v.concat()),
        ]
    }

    /// Lines of Markdown, many of them ATX headings, between the blocks that could hold a
    /// line starting with `#` that is not a heading.
    fn headingish() -> impl Strategy<Value = String> {
        prop::collection::vec(
            prop_oneof![
                prop::sample::select(vec![
                    "# a",
                    "## Goal",
                    "###### six",
                    "####### seven",
                    "#",
                    "##",
                    "#\tt",
                    "#x",
                    "# a #",
                    " # in",
                    "\\# no",
                    "text",
                    "",
                    "  ",
                    "    code",
                    "```",
                    "```rust",
                    "~~~",
                    "<div>",
                    "<!--",
                    "-->",
                    "</div>",
                    "a <b> c",
                    "[x]: /u 'title",
                    "title'",
                    "[x]",
                    "> q",
                    "> # q",
                    "- item",
                    "- # item",
                    "1. # n",
                    "a | b",
                    "|---|",
                    "---",
                    "===",
                    "- - -",
                    "***",
                    "a\\",
                    "`code`",
                    "Result<(), E>",
                    "é",
                    "\t# tab",
                    "#\u{a0}x",
                ])
                .prop_map(str::to_owned),
                "[#a-z `<>|\\-=~\\[\\] \t]{0,8}",
            ],
            0..12,
        )
        .prop_map(|lines| lines.join("\n"))
    }

    /// Heading levels and texts as the parser sees them, with everything else as events
    /// (for comparing a text with its shifted form).
    fn outline(md: &str, by: u8) -> Vec<String> {
        let mut v = Vec::new();
        let mut in_heading = false;
        for event in Parser::new_ext(md, options()) {
            match event {
                Event::Start(Tag::Heading { level, .. }) => {
                    in_heading = true;
                    v.push(format!("h{}", (level as u8 + by).min(6)));
                }
                Event::End(TagEnd::Heading(_)) => {
                    in_heading = false;
                    v.push("/h".into());
                }
                Event::Text(t) if in_heading => {
                    if let Some(last) = v.last_mut().filter(|l| l.starts_with('t')) {
                        last.push_str(&t);
                    } else {
                        v.push(format!("t{t}"));
                    }
                }
                Event::SoftBreak | Event::HardBreak if in_heading => {
                    if let Some(last) = v.last_mut().filter(|l| l.starts_with('t')) {
                        last.push(' ');
                    } else {
                        v.push("t ".into());
                    }
                }
                // Inline code and text by their content: whether the parser borrowed or
                // boxed a string is not what is compared.
                Event::Code(c) => v.push(format!("code {c}")),
                Event::Text(t) => v.push(format!("text {t}")),
                e => v.push(format!("{e:?}")),
            }
        }
        v
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]
        #[test]
        fn rendering_is_safe_and_balanced(md in markdownish(), shift in 0u8..8) {
            let mut out = String::new();
            push_html(&mut out, &md, shift);
            check_safe(&md, &out);
        }

        #[test]
        fn plain_atx_headings_shift_as_parsed(md in headingish(), by in 0u8..7) {
            let fast = shift_headings(&md, by);
            let parsed = if by == 0 || !may_hold_heading(&md) { Cow::Borrowed(&*md) } else { shift_headings_parsed(&md, by) };
            prop_assert_eq!(matches!(fast, Cow::Borrowed(_)), matches!(parsed, Cow::Borrowed(_)), "{:?}", md);
            prop_assert_eq!(fast, parsed, "{:?}", md);
        }

        #[test]
        fn plain_atx_headings_shift_as_parsed_in_any_markdown(md in markdownish(), by in 1u8..4) {
            prop_assert_eq!(shift_headings(&md, by), shift_headings_parsed(&md, by), "{:?}", md);
        }

        #[test]
        fn the_line_scan_agrees_with_splitting(md in markdownish()) {
            prop_assert_eq!(may_hold_heading(&md), md.split('\n').any(line_may_be_heading), "{:?}", md);
        }

        #[test]
        fn the_quick_test_never_misses_a_heading(md in markdownish()) {
            let headings = Parser::new_ext(&md, options()).any(|e| matches!(e, Event::Start(Tag::Heading { .. })));
            prop_assert!(may_hold_heading(&md) || !headings, "{:?}", md);
        }

        #[test]
        fn shifting_moves_headings_and_nothing_else(md in markdownish(), by in 1u8..4) {
            let shifted = shift_headings(&md, by);
            let _ = outline(&shifted, 0);
            if !md.contains(['\r', '\\']) {
                prop_assert_eq!(outline(&shifted, 0), outline(&md, by), "{:?} -> {:?}", md, shifted);
            }
        }
    }
}
