//! How `log` renders the entries it selected, for `log` and for `log --follow` alike: one
//! row per entry (rendered on every core), `--oneline`, `--format` templates, `--long`
//! bodies, or the original lines (`--json`).

use super::output::{Look, Output, Style, display_width, escape_line, fit_into, local_time_into, short_id};
use super::render::{
    PIPED_PREVIEW_COLUMNS, PREFETCH_ROWS_AHEAD, entry_body, entry_line, entry_line_into, kind_style, marks_into,
    write_rows,
};
use super::session_arg::RawLines;
use anyhow::Result;
use pi_session::session::{Detail, Entry, EntryIdx, Session, text};
use std::fmt::Write as _;

/// How entries are printed.
#[derive(Debug, Clone, Copy)]
pub struct LogView<'a> {
    /// Each entry's original line.
    pub json: bool,
    /// Each entry in full, its tool results cut after `max_chars`.
    pub long: bool,
    pub max_chars: usize,
    /// One short line per entry.
    pub oneline: bool,
    /// One line per entry from a template.
    pub format: Option<&'a Template>,
}

/// Prints `shown` (in that order); `at` is marked.
pub fn print(
    out: &mut Output,
    view: &LogView,
    session: &Session,
    shown: &[EntryIdx],
    at: Option<EntryIdx>,
) -> Result<()> {
    if view.oneline || view.format.is_some() || !view.json && !view.long {
        // One line per entry, rendered on every core; a large file's lines are given back
        // behind the rows written.
        let look = out.look();
        let render = |k: usize, buf: &mut String| {
            if let Some(&ahead) = shown.get(k + PREFETCH_ROWS_AHEAD) {
                session.prefetch_preview(ahead);
            }
            let i = shown[k];
            if view.oneline || view.format.is_some() {
                short_line(buf, &look, view, session, i, Some(i) == at);
            } else {
                entry_line_into(buf, &look, session, i, Some(i) == at, true);
            }
        };
        for from in (0..shown.len()).step_by(8192) {
            let to = shown.len().min(from + 8192);
            write_rows(out, from..to, render)?;
            if !view.oneline && view.format.is_none() {
                let (lo, hi) = shown[from..to]
                    .iter()
                    .fold((usize::MAX, 0), |(lo, hi), &i| (lo.min(i), hi.max(i)));
                if lo <= hi {
                    session.release_entries(lo..hi + 1);
                }
            }
        }
        return Ok(());
    }
    let mut raw = RawLines::default();
    for (k, &i) in shown.iter().enumerate() {
        print_one(out, view, session, i, Some(i) == at, k > 0, &mut raw)?;
    }
    raw.warn(session);
    Ok(())
}

/// Prints one entry (`log --follow` prints them as they come); with `--long`, entries after
/// the first are set apart by a blank line (`apart`).
pub fn print_one(
    out: &mut Output,
    view: &LogView,
    session: &Session,
    i: EntryIdx,
    current: bool,
    apart: bool,
    raw: &mut RawLines,
) -> Result<()> {
    if view.json {
        return Ok(raw.print(out, session, i)?);
    }
    if view.oneline || view.format.is_some() {
        let mut line = String::new();
        short_line(&mut line, &out.look(), view, session, i, current);
        return Ok(out.line(&line)?);
    }
    let line = entry_line(out, session, i, current, !view.long);
    if view.long {
        if apart {
            out.line("")?;
        }
        out.line(&line)?;
        for body in entry_body(out, session, i, Some(view.max_chars)) {
            for l in body.lines() {
                out.line(&format!("    {l}"))?;
            }
        }
    } else {
        out.line(&line)?;
    }
    Ok(())
}

/// The line `--oneline` or `--format` prints for entry `i` (without its newline), appended
/// to `buf`.
fn short_line(buf: &mut String, out: &Look, view: &LogView, session: &Session, i: EntryIdx, current: bool) {
    match view.format {
        Some(template) => template.render_into(buf, session, i),
        None => oneline_into(buf, out, session, i, current),
    }
}

/// `a1b2c3d4 user (@) [label] first line of the text`.
fn oneline_into(buf: &mut String, out: &Look, session: &Session, i: EntryIdx, current: bool) {
    let start = buf.len();
    let id = short_id(&session.id_or_line(i));
    out.paint_into(buf, Style::Id, &id);
    buf.push(' ');
    let kind = escape_line(session.entries[i].kind_name());
    out.paint_into(buf, kind_style(&kind), &kind);
    buf.push(' ');
    let width = display_width(&id) + display_width(&kind) + 2 + marks_into(buf, out, session, i, current);
    let room = match out.width {
        Some(w) => w.saturating_sub(width).max(10),
        None => PIPED_PREVIEW_COLUMNS,
    };
    fit_into(buf, &escape_line(&subject(session, i, Some(room))), room);
    let kept = buf[start..].trim_end().len();
    buf.truncate(start + kept);
}

/// The first line of the entry's text (its preview's first line that is not blank),
/// trimmed; with `room`, as much of it as that many columns can show (or a little more).
fn subject(session: &Session, i: EntryIdx, room: Option<usize>) -> String {
    let mut budget = room.map_or(1024, |r| r + 16);
    loop {
        let start = text::preview_start(session, i, budget);
        let text = start.text.trim_start();
        if let Some(end) = text.find('\n') {
            return text[..end].trim_end().to_owned();
        }
        if !start.cut || room.is_some_and(|r| text.chars().count() > r) {
            return text.trim_end().to_owned();
        }
        budget = budget.saturating_mul(4);
    }
}

/// A `--format` template: text and placeholders.
#[derive(Debug, Clone)]
pub struct Template(Vec<Piece>);

#[derive(Debug, Clone)]
enum Piece {
    Text(String),
    Field(char),
}

/// The placeholders `--format` takes (after `%`), `n` and `%` being text.
const FIELDS: &str = "HhPtTyrKmlks";

impl Template {
    pub fn parse(s: &str) -> Result<Template, String> {
        let mut pieces = Vec::new();
        let mut text = String::new();
        let mut chars = s.chars();
        while let Some(c) = chars.next() {
            if c != '%' {
                text.push(c);
                continue;
            }
            match chars.next() {
                Some('%') => text.push('%'),
                Some('n') => text.push('\n'),
                Some(f) if FIELDS.contains(f) => {
                    if !text.is_empty() {
                        pieces.push(Piece::Text(std::mem::take(&mut text)));
                    }
                    pieces.push(Piece::Field(f));
                }
                other => {
                    let what = other.map_or("a lone % at the end".to_owned(), |f| {
                        format!("unknown placeholder %{}", escape_line(&f.to_string()))
                    });
                    return Err(format!(
                        "{what}: use %H id, %h short id, %P parent id, %t time, %T timestamp, %y type, %r role, \
                         %K kind, %m model, %l label, %k tokens, %s first line of text, %n newline, %% percent"
                    ));
                }
            }
        }
        if !text.is_empty() {
            pieces.push(Piece::Text(text));
        }
        Ok(Template(pieces))
    }

    fn render_into(&self, buf: &mut String, session: &Session, i: EntryIdx) {
        let e = &session.entries[i];
        let escaped = |buf: &mut String, s: Option<&str>| {
            if let Some(s) = s {
                if s.chars().all(|c| c.is_ascii_graphic() || c == ' ') {
                    buf.push_str(s);
                } else {
                    buf.push_str(&escape_line(s));
                }
            }
        };
        for piece in &self.0 {
            match piece {
                Piece::Text(t) => buf.push_str(t),
                Piece::Field('H') => escaped(buf, session.id_str(i)),
                Piece::Field('h') => {
                    if let Some(id) = session.id_str(i) {
                        buf.push_str(&short_id(id));
                    }
                }
                Piece::Field('P') => escaped(buf, session.parent_id_str(i)),
                Piece::Field('t') => local_time_into(buf, e.timestamp.as_deref()),
                Piece::Field('T') => escaped(buf, e.timestamp.as_deref()),
                Piece::Field('y') => escaped(buf, e.kind.as_str()),
                Piece::Field('r') => escaped(buf, e.role().map(|r| r.as_str())),
                Piece::Field('K') => escaped(buf, Some(e.kind_name())),
                Piece::Field('m') => escaped(buf, model(e)),
                Piece::Field('l') => escaped(buf, session.label_of(i)),
                Piece::Field('k') => {
                    if let Some(call) = pi_session::usage::call_of(session, i) {
                        let _ = write!(buf, "{}", call.totals.total_tokens);
                    }
                }
                Piece::Field('s') => escaped(buf, Some(&subject(session, i, None))),
                Piece::Field(_) => unreachable!("fields are checked when the template is read"),
            }
        }
    }
}

/// The model an entry names: the one that answered an assistant message (else the one
/// asked), or the one a model change switches to.
fn model(e: &Entry) -> Option<&str> {
    match &e.detail {
        Detail::Message {
            model, response_model, ..
        } => response_model.as_deref().or(model.as_deref()),
        Detail::ModelChange { model_id, .. } => model_id.as_deref(),
        _ => None,
    }
}
