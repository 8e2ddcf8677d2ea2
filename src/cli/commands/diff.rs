use crate::cli::GlobalArgs;
use crate::cli::amounts::{dollars, tokens};
use crate::cli::output::{Look, Output, Style, escape_line, fit};
use crate::cli::render::entry_line_in;
use crate::cli::rev_pair::RevPair;
use crate::cli::session_arg::{open_session, warn_cycle};
use anyhow::Result;
use pi_session::compare::{self, SideStat};
use pi_session::session::{EntryIdx, Session, text};
use serde::Serialize;

/// Compare two branches: where they part, and what each did after.
///
/// Shows the merge base of A and B (the newest entry both branches hold), then the entries
/// of A's branch after it (marked `<`) and those of B's (marked `>`), each oldest first, as
/// `git log --left-right A...B` shows two branches. `diff @ green` is what happened since
/// the entry labelled green (when green is on @'s branch, B's side is empty); `diff @ other`
/// after a `/tree` retry is what the other attempt did differently. --stat sums each side
/// instead: entries, messages by role, tokens and cost, tools called.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub revs: RevPair,

    /// Sum each side: entries, messages by role, tokens and cost, tools called.
    #[arg(long)]
    pub stat: bool,

    /// NDJSON: a {"mergeBase", "left", "right"} record with the two tips' ids, then one
    /// {"side", "id", "parentId", "type", "role", "timestamp", "preview"} record per entry
    /// (`side`: "left" or "right"); with --stat one {"side", "entries", "messages", "roles",
    /// "totalTokens", "cost", "tools"} record per side.
    #[arg(long)]
    pub json: bool,
}

/// The record naming what is compared.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct HeadRecord {
    merge_base: Option<String>,
    left: String,
    right: String,
}

/// One entry of a side.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct EntryRecord<'a> {
    side: &'static str,
    id: Option<&'a str>,
    parent_id: Option<&'a str>,
    #[serde(rename = "type")]
    kind: Option<&'a str>,
    role: Option<&'a str>,
    timestamp: Option<&'a str>,
    preview: String,
}

/// The sums of a side.
#[derive(Serialize)]
struct StatRecord<'a> {
    side: &'static str,
    #[serde(flatten)]
    stat: &'a SideStat,
}

fn entry_record<'a>(session: &'a Session, side: &'static str, i: EntryIdx) -> EntryRecord<'a> {
    let e = &session.entries[i];
    EntryRecord {
        side,
        id: session.id_str(i),
        parent_id: session.parent_id_str(i),
        kind: e.kind.as_str(),
        role: e.role().map(|r| r.as_str()),
        timestamp: e.timestamp.as_deref(),
        preview: text::preview(session, i),
    }
}

pub fn run(global: &GlobalArgs, args: &Args, out: &mut Output) -> Result<()> {
    let session = open_session(global)?;
    let (a, b) = args.revs.resolve(&session)?;
    let d = compare::diverge(&session, a, b);
    warn_cycle(&session, d.cycle_at);
    let at = session.at();
    let b_rev = args.revs.b().to_owned();
    let sides = [
        ("left", '<', &args.revs.a, a, &d.left),
        ("right", '>', &b_rev, b, &d.right),
    ];
    if args.json {
        out.json(&serde_json::to_value(HeadRecord {
            merge_base: d.base.map(|i| session.id_or_line(i)),
            left: session.id_or_line(a),
            right: session.id_or_line(b),
        })?)?;
        for (side, _, _, _, entries) in sides {
            if args.stat {
                let stat = compare::side_stat(&session, entries);
                out.json(&serde_json::to_value(StatRecord { side, stat: &stat })?)?;
            } else {
                for &i in entries {
                    out.json(&serde_json::to_value(entry_record(&session, side, i))?)?;
                }
            }
        }
        return Ok(());
    }
    match d.base {
        Some(base) => {
            let line = entry_line_in(&narrower(out, 11), &session, base, Some(base) == at, true);
            out.line(&format!("{} {line}", out.paint(Style::Meta, "merge base")))?;
        }
        None => out.line(&out.paint(Style::Meta, "no merge base: the branches start at different roots"))?,
    }
    if args.stat {
        let stats: Vec<SideStat> = sides.iter().map(|s| compare::side_stat(&session, s.4)).collect();
        stat_table(out, &sides.map(|s| (s.1, s.2.clone())), &stats)?;
        return Ok(());
    }
    for (_, mark, rev, _, entries) in sides {
        let count = entries.len();
        let heading = format!(
            "{mark} {} ({count} entr{} after the merge base)",
            escape_line(rev),
            if count == 1 { "y" } else { "ies" }
        );
        let heading = match out.width {
            Some(w) => fit(&heading, w),
            None => heading,
        };
        out.line(&out.paint(Style::Bold, &heading))?;
        let look = narrower(out, 2);
        for &i in entries {
            let line = entry_line_in(&look, &session, i, Some(i) == at, true);
            out.line(&format!("{mark} {line}"))?;
        }
    }
    Ok(())
}

/// The sums of the two sides, a column each.
fn stat_table(out: &mut Output, heads: &[(char, String); 2], stats: &[SideStat]) -> Result<()> {
    let mut rows: Vec<(String, [String; 2])> = Vec::new();
    let both = |f: &dyn Fn(&SideStat) -> String| [f(&stats[0]), f(&stats[1])];
    rows.push((
        String::new(),
        heads.clone().map(|(m, r)| format!("{m} {}", escape_line(&r))),
    ));
    rows.push(("entries".into(), both(&|s| s.entries.to_string())));
    rows.push(("messages".into(), both(&|s| s.messages.to_string())));
    let mut roles: Vec<&str> = Vec::new();
    for s in stats {
        for (r, _) in &s.roles {
            if !roles.contains(&r.as_str()) {
                roles.push(r);
            }
        }
    }
    for role in roles {
        rows.push((
            format!("  {}", escape_line(role)),
            both(&|s| {
                s.roles
                    .iter()
                    .find(|(r, _)| r == role)
                    .map_or(0, |(_, c)| *c)
                    .to_string()
            }),
        ));
    }
    rows.push(("tokens".into(), both(&|s| tokens(s.total_tokens))));
    rows.push(("cost".into(), both(&|s| dollars(s.cost))));
    let w0 = rows.iter().map(|r| r.0.chars().count()).max().unwrap_or(0).max(5);
    let mut w1 = rows.iter().map(|r| r.1[0].chars().count()).max().unwrap_or(0);
    // The tools lists get the room left, the left one at most half of it; a list that does
    // not fit loses its last tools (never part of a count).
    let room = out.width.map_or(usize::MAX, |w| w.saturating_sub(w0 + 4));
    let tools = |s: &SideStat, room: usize| {
        let list: Vec<String> = s.tools.iter().map(|(t, c)| format!("{} {c}", escape_line(t))).collect();
        if list.is_empty() {
            "-".into()
        } else {
            first_items(&list, room)
        }
    };
    let left = tools(&stats[0], w1.max(room / 2));
    w1 = w1.max(left.chars().count());
    let right = tools(&stats[1], room.saturating_sub(w1 + 2));
    rows.push(("tools".into(), [left, right]));
    for (k, (name, [l, r])) in rows.iter().enumerate() {
        let pad0 = " ".repeat(w0 - name.chars().count());
        let pad1 = " ".repeat(w1 - l.chars().count());
        let line = format!("{name}{pad0}  {l}{pad1}  {r}");
        let line = line.trim_end();
        if k == 0 {
            out.line(&out.paint(Style::Bold, line))?;
        } else {
            out.line(line)?;
        }
    }
    Ok(())
}

/// `out`'s look for lines after a prefix of `prefix` columns.
fn narrower(out: &Output, prefix: usize) -> Look {
    Look {
        width: out.width.map(|w| w.saturating_sub(prefix)),
        ..out.look()
    }
}

/// As many of `items` as fit in `room` columns, joined by `, `; `…` in place of those left out.
fn first_items(items: &[String], room: usize) -> String {
    let mut out = String::new();
    for (k, item) in items.iter().enumerate() {
        let sep = if k == 0 { "" } else { ", " };
        let more = if k + 1 < items.len() { 3 } else { 0 };
        if out.chars().count() + sep.len() + item.chars().count() + more > room {
            out.push_str(if k == 0 { "…" } else { ", …" });
            return out;
        }
        out.push_str(sep);
        out.push_str(item);
    }
    out
}
