use crate::cli::GlobalArgs;
use crate::cli::output::{Look, Output, Style, display_width, escape_line, fit_into, is_plain, short_id};
use crate::cli::render::{PREFETCH_ROWS_AHEAD, fit_preview_into, kind_style, write_rows_in};
use crate::cli::session_arg::open_session;
use anyhow::Result;
use pi_session::session::content::Content;
use pi_session::session::tree::{Layout, Tree, TreeRecord, TreeRow};
use pi_session::session::{EntryIdx, EntryKind, Role, Session, jsjson, preview, text};
use serde_json::Value;
use std::fmt::Write as _;

/// Show the whole session tree, as Pi's /tree shows it.
///
/// Entries whose parent is missing are roots; children are sorted by timestamp. By default
/// bookkeeping entries (labels, custom entries, model and thinking changes, session info,
/// context edits, usage) and assistant messages holding only tool calls are hidden, as in
/// Pi's default view; their children attach to the nearest shown ancestor.
///
/// Previews are fitted to the terminal's width; off a terminal, to 200 columns, as in `log`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Show every entry.
    #[arg(long, conflicts_with = "user")]
    pub all: bool,

    /// Show only user messages.
    #[arg(long)]
    pub user: bool,

    /// Show at most N rows (the first N in display order).
    #[arg(short = 'n', long = "max-count", value_name = "N")]
    pub max_count: Option<usize>,

    /// Show only rows at most N forks deep: 0 is the trunk (the rows up to the first
    /// fork, the fork included), 1 adds the branches of those forks, and so on. A fork is a
    /// row with two or more children in the view shown, where the tree indents. A row whose
    /// rows below were cut ends with (+K rows). Applied before -n.
    #[arg(long, value_name = "N")]
    pub depth: Option<usize>,

    /// One row per line (NDJSON), in display order:
    /// {"id","parentId","depth","type","role","label","timestamp","current","children"};
    /// `current` marks @, `children` counts the row's visible children (with --depth, those
    /// cut off too). `depth` counts the row's ancestors, not forks.
    #[arg(long)]
    pub json: bool,
}

/// The rows at most `max` forks deep (a fork: a row with more than one child row), their
/// parents renumbered; with, for each row kept, how many rows below it were cut.
fn cut_depth(rows: Vec<TreeRow>, max: usize) -> (Vec<TreeRow>, Vec<usize>) {
    let fork: Vec<bool> = rows.iter().map(|r| r.children > 1).collect();
    let mut forks = vec![0usize; rows.len()];
    // Per row: its new index when kept, else the new index of its nearest kept ancestor.
    let mut kept_as = vec![0usize; rows.len()];
    let mut kept = Vec::with_capacity(rows.len());
    let mut cut = Vec::with_capacity(rows.len());
    for (r, mut row) in rows.into_iter().enumerate() {
        // A parent comes before its children, and forks never decrease down a path: the
        // parent of a row kept was kept.
        forks[r] = row.parent_row.map_or(0, |p| forks[p] + usize::from(fork[p]));
        if forks[r] <= max {
            row.parent_row = row.parent_row.map(|p| kept_as[p]);
            kept_as[r] = kept.len();
            kept.push(row);
            cut.push(0);
        } else {
            let p = row.parent_row.expect("a root is 0 forks deep");
            kept_as[r] = kept_as[p];
            cut[kept_as[p]] += 1;
        }
    }
    (kept, cut)
}

/// Pi's default filter of the tree view.
fn default_visible(session: &Session, i: EntryIdx, leaf: Option<EntryIdx>) -> bool {
    let e = &session.entries[i];
    match &e.kind {
        EntryKind::Usage
        | EntryKind::Label
        | EntryKind::ContextEdit
        | EntryKind::Custom
        | EntryKind::ModelChange
        | EntryKind::ThinkingLevelChange
        | EntryKind::SessionInfo => false,
        EntryKind::Message if e.is_role(&Role::Assistant) && Some(i) != leaf => {
            // Assistant messages with only tool calls are hidden unless they ended badly.
            let (has_text, stop) = match preview::assistant_visibility(session.raw(i), e.message_at()) {
                Ok(read) => read,
                Err(_) => {
                    let mut v = session.preview_value(i);
                    let m = v.get_mut("message").map(Value::take).unwrap_or(Value::Null);
                    let stop = m.get("stopReason").and_then(Value::as_str).map(str::to_owned);
                    (Content::of_message(&m).has_text(), stop)
                }
            };
            has_text || stop.is_some_and(|s| s != "stop" && s != "toolUse")
        }
        _ => true,
    }
}

/// [`default_visible`] of every entry, worked out on every core.
fn default_view(session: &Session, leaf: Option<EntryIdx>) -> Vec<bool> {
    const PIECE: usize = 4096;
    let n = session.entries.len();
    let pieces: Vec<std::ops::Range<usize>> = (0..n).step_by(PIECE).map(|s| s..n.min(s + PIECE)).collect();
    pi_session::parallel::par_map(
        &pieces,
        |r| {
            let visible = r
                .clone()
                .map(|i| default_visible(session, i, leaf))
                .collect::<Vec<bool>>();
            // The lines looked at are given back (large files only).
            session.release_entries(r.clone());
            visible
        },
        || {},
    )
    .concat()
}

/// `tree --json`'s record of a row, written as `JSON.stringify` writes the [`TreeRecord`].
fn write_record(buf: &mut String, session: &Session, row: &TreeRow, at: Option<EntryIdx>) {
    let r = TreeRecord::new(session, row, at);
    let string = |buf: &mut String, key: &str, s: Option<&str>| {
        buf.push_str(key);
        match s {
            // Nothing to escape: no quote, backslash or control character, and no character
            // from U+100000 on (lone surrogates' stand-ins are there).
            Some(s) if !s.bytes().any(|b| b == b'"' || b == b'\\' || b < 0x20 || b == 0xF4) => {
                buf.push('"');
                buf.push_str(s);
                buf.push('"');
            }
            Some(s) => jsjson::write_string(buf, s),
            None => buf.push_str("null"),
        }
    };
    string(buf, "{\"id\":", r.id);
    string(buf, ",\"parentId\":", r.parent_id);
    let _ = write!(buf, ",\"depth\":{}", r.depth);
    string(buf, ",\"type\":", r.kind);
    string(buf, ",\"role\":", r.role);
    string(buf, ",\"label\":", r.label);
    string(buf, ",\"timestamp\":", r.timestamp);
    let _ = write!(buf, ",\"current\":{},\"children\":{}}}", r.current, r.children);
}

pub fn run(global: &GlobalArgs, args: &Args, out: &mut Output) -> Result<()> {
    let session = open_session(global)?;
    let at = session.at();
    let leaf = session.leaf();
    let mut tree = Tree::build(&session);
    let rows = if args.all {
        tree.rows(|_| true)
    } else if args.user {
        tree.rows(|i| session.entries[i].is_role(&Role::User))
    } else {
        let visible = default_view(&session, leaf);
        tree.rows(|i| visible[i])
    };
    if tree.cycle {
        eprintln!(
            "{}",
            crate::cli::output::escape_line(&crate::cli::output::advise(
                "warning: the tree holds a parent cycle (through duplicate ids); the entries on it are shown once \
                 (Pi 1.6.0 hangs on this file); run `pi-session repair`"
            ))
        );
    }
    let (rows, cut) = match args.depth {
        Some(max) => cut_depth(rows, max),
        None => (rows, Vec::new()),
    };
    // The rows are laid out whole (a row's gutter depends on the rows after it), then cut.
    let shown = args.max_count.map_or(rows.len(), |n| n.min(rows.len()));
    if args.json {
        let mut buf = String::new();
        for r in &rows[..shown] {
            buf.clear();
            write_record(&mut buf, &session, r, at);
            out.line(&buf)?;
        }
        return Ok(());
    }
    let on_branch = branch_marks(&session, at);
    // Rows stream out in rounds: the prefixes of a round are laid out in order, then its
    // lines are rendered on every core and written. Rows of a run share their prefix: it is
    // copied into the round's prefixes only when it changes.
    // Rounds as large as `write_rows_in`'s: each is a point where every thread waits.
    const ROUND: usize = 4096;
    let look = out.look();
    let mut lay = Layout::new(&rows);
    let mut prefixes = String::new();
    let mut spans: Vec<(usize, usize, usize)> = Vec::with_capacity(ROUND.min(rows.len()));
    let mut bufs = Vec::new();
    for from in (0..shown).step_by(ROUND) {
        let to = shown.min(from + ROUND);
        prefixes.clear();
        spans.clear();
        let mut span = (0, 0);
        for _ in from..to {
            let changed = lay.advance().expect("a row to lay out");
            if changed || spans.is_empty() {
                let start = prefixes.len();
                prefixes.push_str(lay.prefix());
                span = (start, prefixes.len());
            }
            spans.push((span.0, span.1, lay.prefix_width()));
        }
        let render = |r: usize, buf: &mut String| {
            if let Some(ahead) = rows.get(r + PREFETCH_ROWS_AHEAD) {
                session.prefetch_preview(ahead.entry);
            }
            let (start, end, width) = spans[r - from];
            let line_start = buf.len();
            row_line(
                buf,
                &look,
                &session,
                rows[r].entry,
                &prefixes[start..end],
                width,
                &on_branch,
                at,
                cut.get(r).copied().unwrap_or(0),
            );
            let kept = buf[line_start..].trim_end().len();
            buf.truncate(line_start + kept);
        };
        write_rows_in(out, from..to, &mut bufs, render)?;
        release_rows(&session, rows[from..to].iter().map(|r| r.entry));
    }
    Ok(())
}

/// Which entries are on `at`'s branch ([`Session::branch`]'s path), as marks by entry: the
/// marks are also the walk's record of where it has been, so a parent cycle stops it as it
/// stops that walk.
fn branch_marks(session: &Session, at: Option<EntryIdx>) -> Vec<bool> {
    let mut marks = vec![false; session.entries.len()];
    let mut cur = at;
    while let Some(i) = cur.filter(|&i| !marks[i]) {
        marks[i] = true;
        cur = session.parent(i);
    }
    marks
}

/// Gives back the lines of rows already written (on large files: see
/// [`Session::release_entries`]).
fn release_rows(session: &Session, entries: impl Iterator<Item = EntryIdx>) {
    let (lo, hi) = entries.fold((usize::MAX, 0), |(lo, hi), i| (lo.min(i), hi.max(i)));
    if lo <= hi {
        session.release_entries(lo..hi + 1);
    }
}

/// One row of the human tree, after its prefix (`plain_width` columns wide).
#[allow(clippy::too_many_arguments)]
fn row_line(
    line: &mut String,
    out: &Look,
    session: &Session,
    i: EntryIdx,
    prefix: &str,
    mut plain_width: usize,
    on_branch: &[bool],
    at: Option<EntryIdx>,
    cut: usize,
) {
    let e = &session.entries[i];
    out.paint_into(line, Style::Meta, prefix);
    // Pi's ids are 8 printable ASCII characters: shown as they are, a column each.
    match session.id_str(i).map(|id| id.get(..8).unwrap_or(id)) {
        Some(id) if is_plain(id) => {
            plain_width += id.len() + 1;
            out.paint_into(line, Style::Id, id);
        }
        _ => {
            let id = short_id(&session.id_or_line(i));
            plain_width += display_width(&id) + 1;
            out.paint_into(line, Style::Id, &id);
        }
    }
    line.push(' ');
    let marker = if on_branch[i] { "• " } else { "  " };
    plain_width += 2;
    out.paint_into(line, Style::Current, marker);
    if let Some(label) = session.label_of(i) {
        let l = format!("[{}] ", escape_line(label));
        plain_width += display_width(&l);
        out.paint_into(line, Style::Label, &l);
    }
    let kind_name = e.kind_name();
    let style = kind_style(kind_name);
    if is_plain(kind_name) {
        plain_width += kind_name.len() + 1;
        out.paint_into(line, style, kind_name);
    } else {
        let kind = escape_line(kind_name);
        plain_width += display_width(&kind) + 1;
        out.paint_into(line, style, &kind);
    }
    line.push(' ');
    let tail = if Some(i) == at { " ← @" } else { "" };
    let cut_note = match cut {
        0 => String::new(),
        1 => " (+1 row)".to_owned(),
        n => format!(" (+{n} rows)"),
    };
    // Off a terminal the preview gets as many columns as `log` gives it.
    let room = match out.width {
        Some(w) => w.saturating_sub(plain_width + display_width(tail) + cut_note.len()),
        None => crate::cli::render::PIPED_PREVIEW_COLUMNS,
    };
    match &e.detail {
        pi_session::session::Detail::Compaction { tokens_before, .. } => {
            let preview = format!(
                "[compaction: {} tokens]",
                tokens_before.map(text::short_tokens).unwrap_or_else(|| "?".into())
            );
            fit_into(line, &preview, room.max(8));
        }
        _ => fit_preview_into(line, session, i, room.max(8)),
    }
    if !cut_note.is_empty() {
        out.paint_into(line, Style::Meta, &cut_note);
    }
    if !tail.is_empty() {
        out.paint_into(line, Style::Current, tail);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rustc_hash::FxHashSet;

    #[test]
    fn the_branch_marks_are_the_branch_path() {
        let header = r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}"#;
        let line = |id: &str, parent: &str| {
            format!(
                r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2025-01-01T00:00:01.000Z","message":{{"role":"user","content":"x"}}}}"#
            )
        };
        // A chain, a side branch, and a cycle through a duplicate id.
        let lines = [
            line("a", "null"),
            line("b", r#""a""#),
            line("c", r#""b""#),
            line("d", r#""a""#),
            line("x", r#""y""#),
            line("y", r#""x""#),
            line("b", r#""c""#),
        ];
        let text = format!("{header}\n{}\n", lines.join("\n"));
        let session = Session::from_bytes("t.jsonl".into(), text.into_bytes()).unwrap();
        for at in 0..session.entries.len() {
            let marks = branch_marks(&session, Some(at));
            let path: FxHashSet<EntryIdx> = session.branch(at).path.into_iter().collect();
            let marked: FxHashSet<EntryIdx> = (0..marks.len()).filter(|&i| marks[i]).collect();
            assert_eq!(marked, path, "at {at}");
        }
    }

    #[test]
    fn records_are_written_as_json_stringify_writes_them() {
        let header = r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}"#;
        let lines = [
            r#"{"type":"message","id":"a\"b\\c","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"user","content":"x"}}"#,
            r#"{"type":"message","id":"\u2028\ud800é\u0001","parentId":"a\"b\\c","timestamp":"t\n","message":{"role":"assistant","content":[]}}"#,
            r#"{"type":"label","id":"l","parentId":"\u2028\ud800é\u0001","timestamp":"2025-01-01T00:00:02.000Z","targetId":"a\"b\\c","label":"mark \"q\" \u001b \udbff"}"#,
            r#"{"type":"mystery","id":"m","parentId":"nowhere"}"#,
        ];
        let text = format!("{header}\n{}\n", lines.join("\n"));
        let session = Session::from_bytes("t.jsonl".into(), text.into_bytes()).unwrap();
        let mut tree = Tree::build(&session);
        let rows = tree.rows(|_| true);
        assert_eq!(rows.len(), 4);
        for at in [None, Some(1)] {
            for row in &rows {
                let mut mine = String::new();
                write_record(&mut mine, &session, row, at);
                let value = serde_json::to_value(TreeRecord::new(&session, row, at)).unwrap();
                assert_eq!(mine, jsjson::stringify(&value));
            }
        }
    }
}
