use crate::cli::GlobalArgs;
use crate::cli::exit::CommandError;
use crate::cli::output::{Look, Output, Style, display_width, escape_line, fit_into, local_time_into, short_id};
use crate::cli::render::{
    PIPED_PREVIEW_COLUMNS, PREFETCH_ROWS_AHEAD, entry_body, entry_line, entry_line_into, kind_style, marks_into,
    write_rows,
};
use crate::cli::session_arg::{RawLines, open_session, open_tip, warn_cycle};
use anyhow::Result;
use pi_session::dates::{self, When};
use pi_session::session::{Detail, Entry, EntryIdx, EntryKind, Role, Session, revision, text};
use std::fmt::Write as _;

/// Show a branch, newest entry first.
///
/// Without REV, the branch of @ (where the conversation stands) back to its root. With
/// --all, every entry of the file in append order.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Show the branch ending at this revision [default: @].
    #[arg(value_name = "REV")]
    pub rev: Option<String>,

    /// Show at most N entries.
    #[arg(short = 'n', long = "max-count", value_name = "N")]
    pub max_count: Option<usize>,

    /// Oldest first.
    #[arg(long)]
    pub reverse: bool,

    /// Only entries of these types (repeat or separate with commas).
    #[arg(long = "type", value_name = "TYPE", value_delimiter = ',', value_parser = EntryKind::NAMES)]
    pub types: Vec<String>,

    /// Only messages with these roles (repeat or separate with commas).
    #[arg(long, value_name = "ROLE", value_delimiter = ',', value_parser = Role::NAMES)]
    pub role: Vec<String>,

    /// Show each entry in full: text, thinking, tool calls with arguments, tool results.
    #[arg(long)]
    pub long: bool,

    /// With --long: cut tool results and command output after this many characters.
    #[arg(long, value_name = "N", default_value_t = 2000)]
    pub max_chars: usize,

    /// Print each entry's original line, byte for byte (NDJSON).
    #[arg(long)]
    pub json: bool,

    /// Every entry of the file in append order, not one branch (like Pi's RPC get_entries).
    #[arg(long, conflicts_with = "rev")]
    pub all: bool,

    /// Only entries from DATE on, by their timestamp: a day (2026-11-30, 20261130, today,
    /// yesterday, 7d, 2w) from its first instant, a date and time (2026-11-30T14:00,
    /// '2026-11-30 14:00:05'; with Z or +02:00, else local time), or a time ago
    /// ('3 days ago', 2.weeks.ago, '90 minutes ago', 1h, 90min, now: units second, minute,
    /// hour, day, week, month, year). Entries without a readable timestamp are left out.
    /// (With --all, an entry id here is taken as --after ID, with a deprecation note: that
    /// spelling goes in the next release.)
    #[arg(long, value_name = "DATE", conflicts_with = "after")]
    pub since: Option<String>,

    /// Only entries up to DATE, by their timestamp: a day through its last instant, else
    /// the moment named (the forms of --since).
    #[arg(long, value_name = "DATE", value_parser = date)]
    pub until: Option<When>,

    /// With --all: only entries appended after the entry with this id (a cursor for polling).
    #[arg(long, value_name = "ID", requires = "all")]
    pub after: Option<String>,

    /// One short line per entry: short id, kind (the role of a message, else the type),
    /// (@) and [label] when they apply, and the first line of the entry's text, fitted to
    /// the terminal (off a terminal, to 200 columns).
    #[arg(long, conflicts_with_all = ["json", "long", "format"])]
    pub oneline: bool,

    /// One line per entry from TEMPLATE, with these placeholders: %H id, %h short id (8
    /// characters), %P parent id, %t time (local, as log shows it), %T timestamp as written,
    /// %y type, %r role, %K kind (the role of a message, else the type), %m model (of an
    /// assistant message or a model change), %l label, %k tokens (the totalTokens of the
    /// call the entry records), %s the first line of the entry's text, %n newline, %%
    /// percent. A field an entry lacks is empty; control characters are escaped.
    #[arg(long, value_name = "TEMPLATE", value_parser = Template::parse, conflicts_with_all = ["json", "long"])]
    pub format: Option<Template>,

    /// After what log prints, print each entry as Pi appends it, until Ctrl-C (status 0).
    /// New entries come in append order: with --all every one, else those on the branch of
    /// @ as it moves (a notice on stderr when @ moves to another branch). -n and --reverse
    /// apply to the first part only. With --json, one original line per entry, flushed at
    /// once. A file replaced, cut or rewritten (repair, Pi's migration) is read again with a
    /// notice on stderr, and only entries whose ids were not seen yet are printed.
    #[arg(short = 'f', long, conflicts_with = "rev")]
    pub follow: bool,

    /// With --follow: wait for a session file that does not exist yet (a path given with
    /// -s, or the first session of the current directory).
    #[arg(long, requires = "follow")]
    pub wait: bool,
}

/// `--until`'s parser: one of the forms of [`pi_session::dates`].
fn date(s: &str) -> Result<When, String> {
    When::parse(s).ok_or_else(|| format!("not a date: use {}", dates::FORMS))
}

/// The options that pick entries, resolved once: the dates against the clock, `--since`
/// told apart as a date or (deprecated) an entry id.
pub(crate) struct Filter<'a> {
    args: &'a Args,
    since: Option<i64>,
    until: Option<i64>,
    /// `--after`'s id, or `--since`'s when it names an entry.
    after: Option<&'a str>,
}

impl<'a> Filter<'a> {
    /// `session` (the whole file) tells whether `--since` names an entry; it is needed only
    /// with --all, the one place an id was taken.
    pub(crate) fn new(args: &'a Args, session: Option<&Session>) -> Result<Filter<'a>> {
        let now = jiff::Timestamp::now();
        let zone = jiff::tz::TimeZone::system();
        let mut filter = Filter {
            args,
            since: None,
            until: args.until.as_ref().map(|w| w.last_ms(now, &zone)),
            after: args.after.as_deref(),
        };
        let Some(since) = args.since.as_deref() else {
            return Ok(filter);
        };
        // An entry's exact id first: a cursor that happens to read as a date (`20261130`)
        // keeps working. Then a date, then any revision naming an entry.
        let names_entry = |exact: bool| {
            args.all
                && session
                    .is_some_and(|s| s.lookup(since).is_some() || (!exact && revision::resolve_entry(s, since).is_ok()))
        };
        if names_entry(true) {
            filter.after = Some(since);
        } else if let Some(when) = When::parse(since) {
            filter.since = Some(when.first_ms(now, &zone));
        } else if names_entry(false) {
            filter.after = Some(since);
        } else if args.all {
            // As when the id cursor was the only meaning: an entry not found (status 1).
            return Err(CommandError::refused(
                format!("--since: '{}' is neither a date nor an entry", escape_line(since)),
                format!("--since takes {}; --after takes an entry id", dates::FORMS),
            ));
        } else {
            return Err(CommandError::usage(
                format!("--since: '{}' is not a date", escape_line(since)),
                format!(
                    "--since takes {}; for the entries appended after an entry: --all --after ID",
                    dates::FORMS
                ),
            ));
        }
        if filter.after.is_some() {
            eprintln!("note: --since with an entry id is deprecated; use --after ID");
        }
        Ok(filter)
    }

    /// Whether `log` shows entry `i`: its --type, --role, --since and --until.
    pub(crate) fn shows(&self, session: &Session, i: EntryIdx) -> bool {
        let (args, e) = (self.args, &session.entries[i]);
        (args.types.is_empty() || e.kind.as_str().is_some_and(|t| args.types.iter().any(|w| w == t)))
            && (args.role.is_empty() || e.role().is_some_and(|r| args.role.iter().any(|w| w == r.as_str())))
            && (self.since.is_none() && self.until.is_none() || {
                session
                    .timestamp_ms(i)
                    .is_some_and(|ms| self.since.is_none_or(|s| ms >= s) && self.until.is_none_or(|u| ms <= u))
            })
    }
}

fn selected(session: &Session, filter: &Filter) -> Result<(Vec<EntryIdx>, Option<EntryIdx>)> {
    let args = filter.args;
    let at = session.at_checked()?;
    if args.all {
        let from = match filter.after {
            Some(id) => {
                let idx = match session.lookup(id) {
                    Some(i) => i,
                    None => revision::resolve_entry(session, id)?,
                };
                idx + 1
            }
            None => 0,
        };
        return Ok(((from..session.entries.len()).collect(), at));
    }
    let tip = match &args.rev {
        Some(rev) => revision::resolve(session, rev)?,
        None => at,
    };
    let Some(tip) = tip else {
        return Ok((Vec::new(), at));
    };
    let branch = session.branch(tip);
    let mut path = branch.path.clone();
    path.reverse(); // newest first
    // Read from the end: enough when the entries to show were all read.
    let shown = path.iter().filter(|&&i| filter.shows(session, i)).count();
    if args.max_count.is_none_or(|n| shown < n) {
        session.check_edge(&branch)?;
    }
    warn_cycle(session, branch.cycle_at);
    Ok((path, at))
}

pub fn run(global: &GlobalArgs, args: &Args, out: &mut Output) -> Result<()> {
    // A branch reads only as much of the end of the file as it shows; --all reads it all,
    // and so does a whole branch (every branch goes back to the first entry).
    if args.all || args.max_count.is_none() {
        let session = open_session(global)?;
        let filter = Filter::new(args, Some(&session))?;
        let (entries, at) = selected(&session, &filter)?;
        return show(&session, &filter, entries, at, out);
    }
    let filter = Filter::new(args, None)?;
    let (session, (entries, at)) = open_tip(global, |session| selected(session, &filter))?;
    show(&session, &filter, entries, at, out)
}

/// What `log` prints of a session already open: the first part of `log --follow`.
pub(crate) fn show_session(session: &Session, filter: &Filter, out: &mut Output) -> Result<()> {
    let (entries, at) = selected(session, filter)?;
    show(session, filter, entries, at, out)
}

// The body is `run`'s as it was, borrows included, so that edits made to it meanwhile merge.
#[allow(clippy::needless_borrow)]
fn show(
    session: &Session,
    filter: &Filter,
    entries: Vec<EntryIdx>,
    at: Option<EntryIdx>,
    out: &mut Output,
) -> Result<()> {
    let args = filter.args;
    let mut shown: Vec<EntryIdx> = entries.into_iter().filter(|&i| filter.shows(&session, i)).collect();
    if let Some(n) = args.max_count {
        shown.truncate(n);
    }
    if args.reverse {
        shown.reverse();
    }
    if args.oneline || args.format.is_some() {
        // One line per entry, rendered on every core, as the default rows are.
        let look = out.look();
        let render = |k: usize, buf: &mut String| {
            if let Some(&ahead) = shown.get(k + PREFETCH_ROWS_AHEAD) {
                session.prefetch_preview(ahead);
            }
            let i = shown[k];
            short_line(buf, &look, args, &session, i, Some(i) == at);
        };
        for from in (0..shown.len()).step_by(8192) {
            let to = shown.len().min(from + 8192);
            write_rows(out, from..to, render)?;
        }
        return Ok(());
    }
    if !args.json && !args.long {
        // One line per entry, rendered on every core.
        let look = out.look();
        let render = |k: usize, buf: &mut String| {
            if let Some(&ahead) = shown.get(k + PREFETCH_ROWS_AHEAD) {
                session.prefetch_preview(ahead);
            }
            let i = shown[k];
            entry_line_into(buf, &look, &session, i, Some(i) == at, true);
        };
        // A large file's lines are given back behind the rows written.
        for from in (0..shown.len()).step_by(8192) {
            let to = shown.len().min(from + 8192);
            write_rows(out, from..to, render)?;
            let (lo, hi) = shown[from..to]
                .iter()
                .fold((usize::MAX, 0), |(lo, hi), &i| (lo.min(i), hi.max(i)));
            if lo <= hi {
                session.release_entries(lo..hi + 1);
            }
        }
        return Ok(());
    }
    let mut raw = RawLines::default();
    for (k, &i) in shown.iter().enumerate() {
        if args.json {
            raw.print(out, &session, i)?;
            continue;
        }
        let line = entry_line(out, &session, i, Some(i) == at, !args.long);
        if args.long {
            if k > 0 {
                out.line("")?;
            }
            out.line(&line)?;
            for body in entry_body(out, &session, i, Some(args.max_chars)) {
                for l in body.lines() {
                    out.line(&format!("    {l}"))?;
                }
            }
        } else {
            out.line(&line)?;
        }
    }
    raw.warn(&session);
    Ok(())
}

/// The line `--oneline` or `--format` prints for entry `i` (without its newline), appended
/// to `buf`.
pub(crate) fn short_line(buf: &mut String, out: &Look, args: &Args, session: &Session, i: EntryIdx, current: bool) {
    match &args.format {
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
    fn parse(s: &str) -> Result<Template, String> {
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
