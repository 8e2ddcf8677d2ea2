use crate::cli::GlobalArgs;
use crate::cli::output::{Look, Output, Style, display_width, escape_line, fit_into, is_plain, short_id};
use crate::cli::render::{PREFETCH_ROWS_AHEAD, fit_preview_into, kind_style, write_rows_in};
use crate::cli::session_arg::open_session;
use anyhow::Result;
use pi_session::ops::tree_view::{self, Filter, View};
use pi_session::session::tree::Layout;
use pi_session::session::{EntryIdx, Session, text};

/// Show the whole session tree, as Pi's /tree shows it.
///
/// Entries whose parent is missing are roots; children are sorted by timestamp, and among
/// siblings the one whose branch holds the leaf comes first, as Pi draws them. By default
/// bookkeeping entries (labels, custom entries, model and thinking changes, session info,
/// context edits, usage) and assistant messages holding only tool calls are hidden, as in
/// Pi's default view; their children attach to the nearest shown ancestor.
///
/// Previews are fitted to the terminal's width; off a terminal, to $COLUMNS, else 200 columns, as in
/// `log`. Rows too deeply indented for the width are cut from the left, as Pi's /tree pans.
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

pub fn run(global: &GlobalArgs, args: &Args, out: &mut Output) -> Result<()> {
    let session = open_session(global)?;
    let at = session.at();
    let filter = match (args.all, args.user) {
        (true, _) => Filter::All,
        (_, true) => Filter::User,
        _ => Filter::Default,
    };
    let View {
        rows,
        cut,
        cycle,
        truncated,
        unreachable,
    } = tree_view::view(&session, filter, args.depth);
    if cycle {
        Output::warn(
            "the tree holds a parent cycle (through duplicate ids); the entries on it are shown once \
             (Pi 1.6.0 hangs on this file); run `pi-session repair`",
        );
    }
    if truncated {
        Output::warn(&format!(
            "stopped after {} rows: duplicated lines repeat subtrees in this file (Pi 1.6.0 shows each \
             copy); run `pi-session repair`",
            rows.len()
        ));
    }
    if unreachable > 0 {
        Output::warn(&format!(
            "{unreachable} {} on a parent cycle (or below one) and no root leads to {}: Pi 1.6.0 shows \
             none of them; run `pi-session repair`",
            if unreachable == 1 { "entry is" } else { "entries are" },
            if unreachable == 1 { "it" } else { "them" },
        ));
    }
    // The rows are laid out whole (a row's gutter depends on the rows after it), then cut.
    let shown = args.max_count.map_or(rows.len(), |n| n.min(rows.len()));
    if args.json {
        let mut buf = String::new();
        for r in &rows[..shown] {
            buf.clear();
            tree_view::write_record(&mut buf, &session, r, at);
            out.line(&buf)?;
        }
        return Ok(());
    }
    let on_branch = tree_view::branch_marks(&session, at);
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
    let cut_prefix = out.width.and_then(|w| cut_deep(prefix, plain_width, w));
    let prefix = cut_prefix.as_ref().map_or(prefix, |(p, w)| {
        plain_width = *w;
        p
    });
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

/// A tree prefix (`prefix_width` columns, a column a character) that leaves a row's entry
/// (id, marker, kind, preview) less than two thirds of a terminal `width` columns wide (or
/// 40), cut from the left as Pi's /tree pans its rows: a quarter of the width (2 to 12
/// columns) stays, the first of them shown as `…`. `None` when the prefix leaves room.
fn cut_deep(prefix: &str, prefix_width: usize, width: usize) -> Option<(String, usize)> {
    if prefix_width <= width.saturating_sub((width * 2 / 3).min(40)) {
        return None;
    }
    let keep = (width / 4).clamp(2, 12).min(prefix_width);
    let mut kept = String::from("…");
    kept.extend(prefix.chars().skip(prefix_width - keep + 1));
    Some((kept, keep))
}
