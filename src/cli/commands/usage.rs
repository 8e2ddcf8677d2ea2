use crate::cli::GlobalArgs;
use crate::cli::amounts::{dollars, tokens};
use crate::cli::cache_file::{USAGE, cache_file};
use crate::cli::output::{Output, advise_for, escape_line};
use crate::cli::progress::Terminal;
use crate::cli::session_arg::warn_damaged;
use crate::cli::table::Table;
use anyhow::{Result, anyhow};
use pi_session::dates::When;
use pi_session::session::io::locate::{self, Locations};
use pi_session::usage::report::{self, GroupRecord, Key, KeyValue, Options, Report, TotalRecord, Warning};
use std::path::PathBuf;

/// What sessions cost, across every project: tokens and cost by day, week, month, session,
/// project, model, provider or source.
///
/// Reads every session Pi knows (all projects), the sessions of one project (--project), or
/// the sessions given with -s (repeatable). Counts what `stats` counts: assistant messages,
/// `usage` entries and the summary calls of compactions and branch summaries, with the cost
/// each recorded (never re-priced). Every call counts once: entries a clone or fork copied
/// from its parent session count for the parent only, and a file holding the same session as
/// another (same header id) is read once. A call's day is that of its entry's timestamp, in
/// the local time zone or --timezone.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Group by these keys, in this order (repeat or separate with commas).
    #[arg(long, value_name = "KEY", value_delimiter = ',', default_value = "day",
          value_parser = ["day", "week", "month", "session", "project", "model", "provider", "source"])]
    pub by: Vec<String>,

    /// Only calls from DATE on, as `log --since` takes it: a day (2026-11-30, 20261130, today,
    /// yesterday, 7d, 2w) from its first instant in the report's time zone, a date and time
    /// (2026-11-30T14:00; with Z or +02:00, else in the report's zone), or a time ago
    /// ('3 days ago', 2.weeks.ago, 1h, 90min).
    #[arg(long, value_name = "DATE")]
    pub since: Option<When>,

    /// Only calls up to DATE: a day through its last instant, else the moment named (the
    /// forms of --since).
    #[arg(long, value_name = "DATE")]
    pub until: Option<When>,

    /// Take calendar days in this time zone (an IANA name such as Europe/Paris, or UTC)
    /// [default: the local time zone].
    #[arg(short = 'z', long, value_name = "TZ")]
    pub timezone: Option<String>,

    /// Only the sessions of this project folder (`.` for the current directory).
    #[arg(long, value_name = "DIR")]
    pub project: Option<PathBuf>,

    /// Also read the archived sessions (`pi-session archive`) of every project, or of
    /// --project's.
    #[arg(long)]
    pub archived: bool,

    /// One JSON object per group (NDJSON): each --by key (day and week as YYYY-MM-DD, the
    /// week by its Monday; month as YYYY-MM; session as the session id plus "path"; project
    /// as the cwd; model; provider; source as assistant, usage, compaction, branchSummary
    /// or toolResult), then "input", "output", "cacheRead", "cacheWrite", "totalTokens",
    /// "cost" and "calls"; last, {"total": true, ...} with the same counters.
    #[arg(long, conflicts_with = "csv")]
    pub json: bool,

    /// CSV with a header row; the last row holds the totals.
    #[arg(long)]
    pub csv: bool,

    /// Read every session file, neither using nor updating the cache. By default what was
    /// read from each file is kept in $XDG_CACHE_HOME/pi-session/usage.cache (or
    /// ~/.cache/pi-session/usage.cache) and used again while the file's size, modification
    /// time and inode are unchanged, so a report over unchanged files costs a stat per file.
    #[arg(long)]
    pub no_cache: bool,
}

/// The session files to report on.
fn session_files(global: &GlobalArgs, args: &Args) -> Result<Vec<PathBuf>> {
    let cwd = std::env::current_dir()?;
    if !global.sessions.is_empty() {
        if args.archived {
            return Err(crate::cli::exit::CommandError::usage(
                "--archived adds the archive to the sessions found; -s names them",
                "drop -s, or name the archived files with -s",
            ));
        }
        return global
            .sessions
            .iter()
            .map(|s| Ok(locate::find_session(Some(s), &cwd)?))
            .collect();
    }
    if let Some(dir) = &args.project {
        // A project folder since removed still has its sessions.
        let dir = cwd.join(dir);
        let dir = std::fs::canonicalize(&dir).unwrap_or(dir);
        let loc = Locations::discover(&dir);
        let mut dirs = vec![loc.here()];
        dirs.extend(args.archived.then(|| loc.archive().here()));
        return Ok(dirs.iter().flat_map(locate::sessions_in).map(|(p, _)| p).collect());
    }
    let loc = Locations::discover(&cwd);
    let mut files = loc.all_files();
    if args.archived {
        files.extend(loc.archive().all_files());
    }
    Ok(files)
}

fn options(args: &Args) -> Result<Options> {
    let zone = match &args.timezone {
        Some(name) => jiff::tz::TimeZone::get(name)
            .map_err(|_| anyhow!("unknown time zone '{name}' (an IANA name such as Europe/Paris, or UTC)"))?,
        None => jiff::tz::TimeZone::system(),
    };
    let now = jiff::Timestamp::now();
    Ok(Options {
        by: args.by.iter().filter_map(|k| Key::parse(k)).collect(),
        since_ms: args.since.as_ref().map(|w| w.first_ms(now, &zone)),
        until_ms: args.until.as_ref().map(|w| w.last_ms(now, &zone)),
        zone,
        cache: if args.no_cache { None } else { cache_file(USAGE) },
    })
}

fn warn(w: &Warning) {
    let text = match w {
        Warning::NotASession { path, reason } => {
            format!("warning: {}: not counted: {reason}", path.display())
        }
        Warning::Damaged { path, report, complete } => {
            warn_damaged(path, report, *complete, |t| advise_for(t, path));
            return;
        }
        Warning::SameSession { id, kept, dropped } => format!(
            "warning: {} holds the same session as {} (id {id}): counted once",
            dropped.display(),
            kept.display()
        ),
        Warning::ParentMissing { path, parent } => format!(
            "warning: {}: its parent session {parent} is not there, so the entries copied from it count here",
            path.display()
        ),
    };
    Output::say(&text);
}

pub fn run(global: &GlobalArgs, args: &Args, out: &mut Output) -> Result<()> {
    let options = options(args)?;
    let files = session_files(global, args)?;
    let progress = Terminal::when(!args.json);
    let report = report::report(&files, &options, &progress);
    for w in &report.warnings {
        warn(w);
    }
    if args.json {
        for group in &report.groups {
            let record = GroupRecord {
                by: &options.by,
                group,
                sessions: &report.sessions,
            };
            out.json(&serde_json::to_value(&record)?)?;
        }
        out.json(&serde_json::to_value(TotalRecord { report: &report })?)?;
        return Ok(());
    }
    if args.csv {
        for row in report.csv_rows(&options.by) {
            out.line(&escape_line(&row))?;
        }
        return Ok(());
    }
    write_table(out, &options.by, &report)
}

/// The text of a key value for tables.
fn key_text(value: &KeyValue, report: &Report) -> String {
    let or_unknown = |v: &Option<String>| v.clone().unwrap_or_else(|| "?".into());
    match value {
        KeyValue::Day(v) | KeyValue::Week(v) | KeyValue::Month(v) | KeyValue::Project(v) => or_unknown(v),
        KeyValue::Provider(v) => v.clone().unwrap_or_else(|| "-".into()),
        KeyValue::Model(m) => m.clone(),
        KeyValue::Source(s) => s.source().name().into(),
        KeyValue::Session(i) => report.sessions[*i].id.clone(),
    }
}

/// The numeric columns: heading, and the text of a group's value.
type Column = (&'static str, fn(&pi_session::usage::Totals, u64) -> String);

const COLUMNS: [Column; 7] = [
    ("calls", |_, calls| tokens(calls as f64)),
    ("input", |t, _| tokens(t.input)),
    ("output", |t, _| tokens(t.output)),
    ("cache read", |t, _| tokens(t.cache_read)),
    ("cache write", |t, _| tokens(t.cache_write)),
    ("total tokens", |t, _| tokens(t.total_tokens)),
    ("cost", |t, _| dollars(t.cost.total)),
];

/// Which numeric columns go first when the table is too wide for the terminal: the cost
/// stays longest.
const DROP_ORDER: [&str; 6] = ["cache write", "cache read", "input", "output", "calls", "total tokens"];

fn write_table(out: &mut Output, by: &[Key], report: &Report) -> Result<()> {
    let mut rows: Vec<Vec<String>> = report
        .groups
        .iter()
        .map(|g| {
            let mut row: Vec<String> = g.keys.iter().map(|k| escape_line(&key_text(k, report))).collect();
            row.extend(COLUMNS.iter().map(|(_, f)| f(&g.totals, g.calls)));
            row
        })
        .collect();
    let mut total: Vec<String> = by.iter().map(|_| String::new()).collect();
    if let Some(first) = total.first_mut() {
        *first = "total".into();
    }
    total.extend(COLUMNS.iter().map(|(_, f)| f(&report.total, report.calls)));
    rows.push(total);
    let mut head: Vec<&str> = by.iter().map(|k| k.name()).collect();
    head.extend(COLUMNS.iter().map(|(h, _)| *h));
    let table = Table {
        head: &head,
        rows: &rows,
        keys: by.len(),
        drop_order: &DROP_ORDER,
        total: rows.len() - 1,
    };
    Ok(table.write(out)?)
}
