use crate::cli::GlobalArgs;
use crate::cli::cache_file::{LISTING, cache_file};
use crate::cli::ls_view::{local_minute, shorten_home, tree_prefix, unique_prefixes};
use crate::cli::output::{Output, Style, display_width, escape_line, fit, one_line};
use crate::cli::progress::Terminal;
use anyhow::Result;
use pi_session::listing::{self, ListOptions, TreeRow};
use pi_session::session::io::locate::Locations;
use std::fs;
use std::path::{Path, PathBuf};

/// List sessions as Pi's /resume does, most recently active first.
///
/// Each session shows its name (the latest session_info name, else the first user message),
/// message count, last activity (the newest user or assistant message) and id; `*` marks the
/// session that commands run here without -s use. Files that are not Pi sessions (or not
/// regular files) are skipped, as Pi skips them.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Sessions of every project, not only the current directory's.
    #[arg(long)]
    pub all: bool,

    /// One JSON object per session (NDJSON): path, id, name, firstMessage, messageCount,
    /// created, modified (ISO 8601 or null), cwd, parentSession, current (true for the session
    /// that commands run here without -s use); archived (true, only for an archived session);
    /// with --tree, depth (0 for a root).
    #[arg(long)]
    pub json: bool,

    /// Draw each session under the session it came from (its header's parentSession: clones,
    /// forks, subagents), with ├─ └─ │: roots in the usual order, children under their
    /// parent. A session whose parent is not listed is a root. With -n, the N most recent
    /// sessions are drawn.
    #[arg(long, conflicts_with = "no_children")]
    pub tree: bool,

    /// Hide the sessions whose parent session is listed (subagents, clones, forks).
    #[arg(long)]
    pub no_children: bool,

    /// Also list the archived sessions (`pi-session archive`), marked `A`.
    #[arg(long)]
    pub archived: bool,

    /// Show at most N sessions (the most recently modified).
    #[arg(short = 'n', long = "max-count", value_name = "N")]
    pub max_count: Option<usize>,

    /// Also show each session's path, creation time and parent session, and say on stderr how
    /// many files were skipped because they are not Pi sessions.
    #[arg(short = 'v', long)]
    pub verbose: bool,

    /// Read every session file, neither using nor updating the cache. By default what was
    /// read from each file is kept in $XDG_CACHE_HOME/pi-session/listing.cache (or
    /// ~/.cache/pi-session/listing.cache) and used again while the file's size, modification
    /// time and inode are unchanged, so listing unchanged files costs a stat per file.
    #[arg(long)]
    pub no_cache: bool,
}

impl Args {
    fn options(&self) -> ListOptions {
        ListOptions {
            all: self.all,
            archived: self.archived,
            cache: if self.no_cache { None } else { cache_file(LISTING) },
        }
    }
}

/// The session commands run in the current directory without `-s` use, if any.
fn default_session(loc: &Locations) -> Option<PathBuf> {
    let path = loc.find_session(None).ok()?;
    Some(fs::canonicalize(&path).unwrap_or(path))
}

/// Whether `path` is `default` (given canonical).
fn is_default(path: &Path, default: Option<&Path>) -> bool {
    let Some(d) = default else {
        return false;
    };
    path == d || (path.file_name() == d.file_name() && fs::canonicalize(path).is_ok_and(|c| c == d))
}

pub fn run(_global: &GlobalArgs, args: &Args, out: &mut Output) -> Result<()> {
    let loc = Locations::discover(&std::env::current_dir()?);
    let progress = Terminal::when(!args.json);
    let listing::Listing { mut sessions, skipped } = listing::list(&loc, &args.options(), &progress);
    if sessions.is_empty() {
        crate::cli::session_arg::say_none_found(&loc, args.all);
    }
    if args.no_children {
        let mut root = vec![false; sessions.len()];
        for r in listing::family_tree(&sessions) {
            root[r.index] = r.depth == 0;
        }
        let mut keep = root.into_iter();
        sessions.retain(|_| keep.next().unwrap_or(true));
    }
    if let Some(n) = args.max_count {
        sessions.truncate(n);
    }
    let rows: Vec<TreeRow> = if args.tree {
        listing::family_tree(&sessions)
    } else {
        (0..sessions.len())
            .map(|index| TreeRow {
                index,
                depth: 0,
                more: Vec::new(),
            })
            .collect()
    };
    let archive_root = loc.archive().root();
    let archived: Vec<bool> = sessions.iter().map(|s| s.path.starts_with(&archive_root)).collect();
    if args.verbose && skipped > 0 {
        let what = if skipped == 1 {
            "file that is not a Pi session"
        } else {
            "files that are not Pi sessions"
        };
        Output::say(&format!("skipped {skipped} {what}"));
    }
    let default = default_session(&loc);
    let current: Vec<bool> = sessions
        .iter()
        .map(|s| is_default(&s.path, default.as_deref()))
        .collect();
    if args.json {
        for r in &rows {
            let mut record = sessions[r.index].record(current[r.index]);
            record.archived = archived[r.index];
            record.depth = args.tree.then_some(r.depth);
            out.json(&serde_json::to_value(record)?)?;
        }
        return Ok(());
    }
    if sessions.is_empty() {
        return Ok(());
    }
    let ids: Vec<String> = unique_prefixes(&sessions).iter().map(|p| escape_line(p)).collect();
    let id_w = ids.iter().map(|i| display_width(i)).max().unwrap_or(2).max(2);
    let counts: Vec<String> = sessions.iter().map(|s| s.message_count.to_string()).collect();
    let count_w = counts.iter().map(String::len).max().unwrap_or(4).max(4);
    let cwds: Vec<String> = sessions.iter().map(|s| one_line(&shorten_home(&s.cwd))).collect();
    // MODIFIED (16) MSGS ID [CWD] NAME, one space apart, after the mark; on a terminal the name gets what is
    // left, the directory at most two fifths of it. Where the name would get less than 20
    // columns, the time loses its year (11), then the directory goes.
    // Two columns for the `*` mark (as `git branch` has).
    let fixed = |time_w: usize| 2 + time_w + 1 + count_w + 1 + id_w + 1;
    let short_time = out
        .width
        .is_some_and(|w| w < fixed(16) + 20 + if args.all { 4 } else { 0 });
    let time_w = if short_time { 11 } else { 16 };
    let room = out.width.map(|w| w.saturating_sub(fixed(time_w)));
    let show_cwd = args.all && room.is_none_or(|r| r >= 24);
    let cwd_w = if show_cwd {
        let widest = cwds.iter().map(|c| display_width(c)).max().unwrap_or(3).clamp(3, 40);
        match room {
            Some(r) => widest.min((r * 2 / 5).max(3)),
            None => widest,
        }
    } else {
        0
    };
    let name_room = match room {
        Some(r) => r.saturating_sub(if show_cwd { cwd_w + 1 } else { 0 }).max(1),
        None => 200,
    };

    let mut head = format!("  {:<time_w$} {:>count_w$} {:<id_w$} ", "MODIFIED", "MSGS", "ID");
    if show_cwd {
        head.push_str(&format!("{:<cwd_w$} ", "CWD"));
    }
    head.push_str("NAME");
    out.line(&out.paint(Style::Bold, &head))?;
    for r in &rows {
        let (k, s) = (r.index, &sessions[r.index]);
        let mark = if current[k] {
            format!("{} ", out.paint(Style::Current, "*"))
        } else if archived[k] {
            format!("{} ", out.paint(Style::Dim, "A"))
        } else {
            "  ".to_owned()
        };
        let mut line = format!(
            "{mark}{} {:>count_w$} {} ",
            out.paint(Style::Dim, &local_minute(s.modified, short_time)),
            counts[k],
            out.paint(Style::Id, &format!("{:<id_w$}", ids[k]))
        );
        if show_cwd {
            let cwd = fit(&cwds[k], cwd_w);
            let pad = cwd_w.saturating_sub(display_width(&cwd));
            line.push_str(&out.paint(Style::Meta, &cwd));
            line.push_str(&" ".repeat(pad + 1));
        }
        let graph = tree_prefix(r);
        line.push_str(&out.paint(Style::Dim, &graph));
        let name_room = name_room.saturating_sub(display_width(&graph)).max(1);
        match &s.name {
            Some(name) => line.push_str(&out.paint(Style::Label, &fit(&one_line(name), name_room))),
            None => {
                let first = s.first_message.as_deref().unwrap_or(pi_session::listing::NO_MESSAGES);
                line.push_str(&fit(&one_line(first), name_room));
            }
        }
        out.line(line.trim_end())?;
        if args.verbose {
            let mut detail = format!(
                "    {}  created {}",
                escape_line(&s.path.to_string_lossy()),
                local_minute(s.created, false)
            );
            if let Some(parent) = &s.parent_session {
                detail.push_str(&format!("  parent {}", escape_line(parent)));
            }
            if let Some(w) = out.width {
                detail = fit(&detail, w);
            }
            out.line(&out.paint(Style::Meta, &detail))?;
        }
    }
    Ok(())
}
