use crate::cli::GlobalArgs;
use crate::cli::output::{Output, Style, display_width, escape_line, fit_into, one_line, short_id};
use crate::cli::render::kind_style;
use crate::cli::session_arg::open_session;
use anyhow::Result;
use pi_session::session::content::Content;
use pi_session::session::tree::{Layout, Tree, TreeRecord};
use pi_session::session::{EntryIdx, EntryKind, Role, Session, text};
use rustc_hash::FxHashSet;
use serde_json::Value;

/// Show the whole session tree, as Pi's /tree shows it.
///
/// Entries whose parent is missing are roots; children are sorted by timestamp. By default
/// bookkeeping entries (labels, custom entries, model and thinking changes, session info,
/// context edits, usage) and assistant messages holding only tool calls are hidden, as in
/// Pi's default view; their children attach to the nearest shown ancestor.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Show every entry.
    #[arg(long, conflicts_with = "user")]
    pub all: bool,

    /// Show only user messages.
    #[arg(long)]
    pub user: bool,

    /// One row per line (NDJSON), in display order:
    /// {"id","parentId","depth","type","role","label","timestamp","current","children"};
    /// `current` marks @, `children` counts the row's visible children.
    #[arg(long)]
    pub json: bool,
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
            let mut v = session.preview_value(i);
            let m = v.get_mut("message").map(Value::take).unwrap_or(Value::Null);
            let has_text = Content::of_message(&m).has_text();
            let stop = m.get("stopReason").and_then(Value::as_str);
            has_text || stop.is_some_and(|s| s != "stop" && s != "toolUse")
        }
        _ => true,
    }
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
        tree.rows(|i| default_visible(&session, i, leaf))
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
    if args.json {
        for r in &rows {
            out.json(&serde_json::to_value(TreeRecord::new(&session, r, at))?)?;
        }
        return Ok(());
    }
    let on_branch: FxHashSet<EntryIdx> = at
        .map(|a| session.branch(a).path.into_iter().collect())
        .unwrap_or_default();
    // Rows stream out: one line buffer, prefixes laid out as they are written.
    let mut lay = Layout::new(&rows);
    let mut line = String::new();
    let mut prefix = String::new();
    for r in &rows {
        let i = r.entry;
        let e = &session.entries[i];
        prefix.clear();
        let mut plain_width = lay.next_prefix(&mut prefix);
        line.clear();
        out.paint_into(&mut line, Style::Meta, &prefix);
        let id = short_id(&session.id_or_line(i));
        plain_width += display_width(&id) + 1;
        out.paint_into(&mut line, Style::Id, &id);
        line.push(' ');
        let marker = if on_branch.contains(&i) { "• " } else { "  " };
        plain_width += 2;
        out.paint_into(&mut line, Style::Current, marker);
        if let Some(label) = session.label_of(i) {
            let l = format!("[{}] ", escape_line(label));
            plain_width += display_width(&l);
            out.paint_into(&mut line, Style::Label, &l);
        }
        let kind = escape_line(e.kind_name());
        plain_width += display_width(&kind) + 1;
        out.paint_into(&mut line, kind_style(e.kind_name()), &kind);
        line.push(' ');
        let tail = if Some(i) == at { " ← @" } else { "" };
        let preview = match &e.detail {
            pi_session::session::Detail::Compaction { tokens_before, .. } => {
                format!(
                    "[compaction: {} tokens]",
                    tokens_before.map(text::short_tokens).unwrap_or_else(|| "?".into())
                )
            }
            _ => one_line(&text::preview(&session, i)),
        };
        let room = out
            .width
            .unwrap_or(usize::MAX)
            .saturating_sub(plain_width + display_width(tail));
        fit_into(&mut line, &preview, room.max(8));
        if !tail.is_empty() {
            out.paint_into(&mut line, Style::Current, tail);
        }
        out.line(line.trim_end())?;
    }
    Ok(())
}
