use crate::cli::GlobalArgs;
use crate::cli::exit::Exit;
use crate::cli::output::{Output, Style, escape_line};
use crate::cli::render::kind_style;
use crate::cli::session_arg::{open_session, warn_load_report_naming};
use anyhow::{Result, bail};
use pi_session::search::{self, Hit, Query};
use pi_session::session::{Session, locate};
use std::path::PathBuf;

/// Search the text of a session with a regular expression.
///
/// Searches message text (user and assistant text, tool results, bash commands and output,
/// custom and system messages), compaction and branch summaries, and with --tools tool-call
/// arguments, line by line, in every entry of the file. Prints SESSION:ENTRY-ID:ROLE: LINE.
/// Exit status: 0 when something matched, 1 when nothing did, 2 on error.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// A regular expression (Rust regex syntax), matched against each line.
    #[arg(value_name = "PATTERN")]
    pub pattern: String,

    /// Search every session of the current directory, newest first.
    #[arg(long)]
    pub all_sessions: bool,

    /// Only text of these roles (repeat or separate with commas).
    #[arg(long, value_name = "ROLE", value_delimiter = ',', value_parser = search::ROLES)]
    pub role: Vec<String>,

    /// Match case-insensitively.
    #[arg(short = 'i', long)]
    pub ignore_case: bool,

    /// Also search tool-call arguments (role toolCall), one `key: value` per line.
    #[arg(long)]
    pub tools: bool,

    /// One JSON object per match (NDJSON): path, id, role, line (1-based, within that text),
    /// text (the line), start and end (byte offsets of the match in text).
    #[arg(long, conflicts_with_all = ["count", "files_with_matches"])]
    pub json: bool,

    /// Print SESSION:COUNT, the number of matching lines, for each session that matched.
    #[arg(short = 'c', long, conflicts_with = "files_with_matches")]
    pub count: bool,

    /// Print only the paths of sessions that matched.
    #[arg(short = 'l', long)]
    pub files_with_matches: bool,
}

/// The line with its matches painted; every piece escaped.
fn highlighted(out: &Output, hit: &Hit) -> String {
    let mut s = String::new();
    let mut pos = 0;
    for &(start, end) in &hit.matches {
        if start < pos || start == end {
            continue;
        }
        s.push_str(&escape_line(&hit.text[pos..start]));
        s.push_str(&out.paint(Style::Warn, &escape_line(&hit.text[start..end])));
        pos = end;
    }
    s.push_str(&escape_line(&hit.text[pos..]));
    s
}

/// Every session of the current directory's session folder, newest first.
fn all_sessions(global: &GlobalArgs) -> Result<Vec<PathBuf>> {
    if global.session().is_some() {
        bail!("--all-sessions searches every session of the current directory; drop -s/--session");
    }
    let loc = locate::Locations::discover(&std::env::current_dir()?);
    Ok(loc.sessions_here().into_iter().map(|(p, _)| p).collect())
}

fn run_inner(global: &GlobalArgs, args: &Args, out: &mut Output) -> Result<Exit> {
    let query = Query::new(&args.pattern, args.ignore_case, &args.role, args.tools)?;

    // (path, hits) per session, in order; sessions that fail to load are reported and skipped.
    let mut results: Vec<(PathBuf, Vec<Hit>)> = Vec::new();
    let mut failed = false;
    if args.all_sessions {
        let paths = all_sessions(global)?;
        let found = pi_session::parallel::par_map(
            &paths,
            |p| Session::open(p).map(|s| (search::search(&s, &query), s)),
            || {},
        );
        for (path, r) in paths.into_iter().zip(found) {
            match r {
                Ok((hits, session)) => {
                    warn_load_report_naming(&session);
                    results.push((path, hits));
                }
                Err(e) => {
                    crate::cli::report(&anyhow::Error::from(e), None);
                    failed = true;
                }
            }
        }
    } else {
        let session = open_session(global)?;
        let hits = search::search(&session, &query);
        results.push((session.path.clone(), hits));
    }

    let mut matched = false;
    for (path, hits) in &results {
        if hits.is_empty() {
            continue;
        }
        matched = true;
        let shown_path = path.to_string_lossy();
        if args.files_with_matches {
            out.line(&out.paint(Style::Meta, &escape_line(&shown_path)))?;
            continue;
        }
        if args.count {
            out.line(&format!(
                "{}:{}",
                out.paint(Style::Meta, &escape_line(&shown_path)),
                hits.len()
            ))?;
            continue;
        }
        for hit in hits {
            if args.json {
                for record in hit.records(&shown_path) {
                    out.json(&serde_json::to_value(record)?)?;
                }
                continue;
            }
            out.line(&format!(
                "{}:{}:{}: {}",
                out.paint(Style::Meta, &escape_line(&shown_path)),
                out.paint(Style::Id, &escape_line(&hit.id)),
                out.paint(kind_style(&hit.role), &escape_line(&hit.role)),
                highlighted(out, hit)
            ))?;
        }
    }
    Ok(match (failed, matched) {
        // Like ripgrep: an error anywhere ends with 2, even after matches.
        (true, _) => Exit::Usage,
        (false, true) => Exit::Success,
        (false, false) => Exit::Failure,
    })
}

/// Exit status as ripgrep's: 0 something matched, 1 nothing matched, 2 an error.
pub fn run(global: &GlobalArgs, args: &Args, out: &mut Output) -> Result<Exit> {
    match run_inner(global, args, out) {
        Ok(exit) => Ok(exit),
        Err(e) => Ok(match crate::cli::report(&e, None) {
            // A closed pipe is not an error.
            Exit::Success => Exit::Success,
            _ => Exit::Usage,
        }),
    }
}
