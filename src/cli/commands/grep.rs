use crate::cli::GlobalArgs;
use crate::cli::cache_file::{LISTING, cache_file};
use crate::cli::exit::Exit;
use crate::cli::grep_view;
use crate::cli::output::{Output, Style, escape_line};
use crate::cli::session_arg::{open_session, warn_load_report_naming};
use anyhow::{Result, bail};
use pi_session::search::{self, Hit, Query, SearchOptions};
use pi_session::{listing, session::io::locate};
use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

/// Search the text of a session with a regular expression, as ripgrep searches files.
///
/// Searches message text (user and assistant text, tool results, bash commands and output,
/// custom and system messages), compaction and branch summaries, and with --tools tool-call
/// arguments, line by line, in every entry of the file. Prints ENTRY-ID:ROLE: LINE for each
/// matching line; context lines (-A, -B, -C) as ENTRY-ID-ROLE- LINE, with a `--` line between
/// groups that are not adjacent. When a folder of sessions is searched (--all-sessions, --all)
/// or with -H, each line starts with SESSION: (SESSION- for context), or, on a terminal (or
/// with --heading), each session's lines follow its path on a line of its own, with a blank
/// line between sessions. Exit status: 0 when something matched, 1 when nothing did, 2 on error.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("scope").args(["all_sessions", "all"])))]
pub struct Args {
    /// A regular expression (Rust regex syntax), matched against each line.
    #[arg(value_name = "PATTERN")]
    pub pattern: String,

    /// Search every session of the current directory, newest first.
    #[arg(long, conflicts_with = "all")]
    pub all_sessions: bool,

    /// Search every session of every project (the sessions `ls --all` lists), in its order.
    #[arg(long)]
    pub all: bool,

    /// With --all-sessions or --all, also search the archived sessions (`pi-session archive`).
    #[arg(long, requires = "scope")]
    pub archived: bool,

    /// Only text of these roles (repeat or separate with commas).
    #[arg(long, value_name = "ROLE", value_delimiter = ',', value_parser = search::ROLES)]
    pub role: Vec<String>,

    /// Match case-insensitively.
    #[arg(short = 'i', long)]
    pub ignore_case: bool,

    /// Take PATTERN literally, not as a regular expression.
    #[arg(short = 'F', long)]
    pub fixed_strings: bool,

    /// Match only whole words: a match neither starts right after nor ends right before a
    /// word character (letters, digits and `_`, in any script).
    #[arg(short = 'w', long)]
    pub word_regexp: bool,

    /// Also search tool-call arguments (role toolCall), one `key: value` per line.
    #[arg(long)]
    pub tools: bool,

    /// Show NUM lines after each match (within the same text: never from another entry).
    #[arg(short = 'A', long, value_name = "NUM")]
    pub after_context: Option<usize>,

    /// Show NUM lines before each match (within the same text: never from another entry).
    #[arg(short = 'B', long, value_name = "NUM")]
    pub before_context: Option<usize>,

    /// Show NUM lines before and after each match (-A and -B take precedence).
    #[arg(short = 'C', long, value_name = "NUM")]
    pub context: Option<usize>,

    /// At most NUM matching lines per session (the context after the last still shows).
    #[arg(short = 'm', long, value_name = "NUM")]
    pub max_count: Option<usize>,

    /// At most N matching lines in all, across every session searched (the context after
    /// the last still shows); -N is -n N. Unlike ripgrep's -n (line numbers: here lines are
    /// named by their entry id, and --json gives line numbers), -n is a count, as in log,
    /// tree and ls.
    #[arg(short = 'n', long = "limit", value_name = "N", value_parser = limit)]
    pub limit: Option<usize>,

    /// Print nothing; exit 0 at the first match (the search stops there), even if a
    /// session could not be read, else 1.
    #[arg(short = 'q', long)]
    pub quiet: bool,

    /// Each session's path on a line of its own above its lines (the default on a
    /// terminal, when paths are shown).
    #[arg(long, overrides_with = "no_heading")]
    pub heading: bool,

    /// The session's path at the start of each line instead of above them (the default
    /// when stdout is not a terminal).
    #[arg(long, overrides_with = "heading")]
    pub no_heading: bool,

    /// Show the session's path even when one session is searched.
    #[arg(short = 'H', long, overrides_with = "no_filename")]
    pub with_filename: bool,

    /// Never show the session's path.
    #[arg(long, overrides_with = "with_filename")]
    pub no_filename: bool,

    /// One JSON object per match (NDJSON): path, id, role, line (1-based, within that text),
    /// text (the line), start and end (byte offsets of the match in text). No context lines.
    #[arg(long, conflicts_with_all = ["count", "files_with_matches"])]
    pub json: bool,

    /// Print SESSION:COUNT, the number of matching lines, for each session that matched.
    #[arg(short = 'c', long, conflicts_with = "files_with_matches")]
    pub count: bool,

    /// Print only the paths of sessions that matched.
    #[arg(short = 'l', long)]
    pub files_with_matches: bool,
}

/// `-n`'s count, with a word for ripgrep's habit of `-n` for line numbers.
fn limit(s: &str) -> Result<usize, String> {
    s.parse().map_err(|_| {
        "-n takes a count of matching lines, as in log, tree and ls (not ripgrep's line numbers: \
         lines are named by their entry id)"
            .to_owned()
    })
}

/// What --all-sessions (this directory's sessions, newest first) or --all (`ls --all`'s, with its cache) searches.
fn sessions(global: &GlobalArgs, args: &Args) -> Result<Vec<PathBuf>> {
    if global.session().is_some() {
        let flag = if args.all { "--all" } else { "--all-sessions" };
        bail!("{flag} searches a folder of sessions; drop -s/--session");
    }
    let loc = locate::Locations::discover(&std::env::current_dir()?);
    let (all, archived, cache) = (args.all, args.archived, cache_file(LISTING));
    let options = listing::ListOptions { all, archived, cache };
    Ok(listing::session_paths(&loc, &options))
}

fn run_inner(global: &GlobalArgs, args: &Args, out: &mut Output) -> Result<Exit> {
    let pattern = search::pattern(&args.pattern, args.fixed_strings, args.word_regexp);
    let query = Query::new(&pattern, args.ignore_case, &args.role, args.tools)?;
    // -q only needs to know whether anything matches: every search stops at the first.
    let stop = AtomicBool::new(false);
    let options = SearchOptions {
        before: args.before_context.or(args.context).unwrap_or(0),
        after: args.after_context.or(args.context).unwrap_or(0),
        // No session needs more matches than the whole output shows.
        max_count: match (args.max_count, args.limit) {
            (Some(m), Some(n)) => Some(m.min(n)),
            (m, n) => m.or(n),
        },
        stop: args.quiet.then_some(&stop),
    };
    let with_context = options.before > 0 || options.after > 0;

    // (path, hits) per session, in order; sessions that fail to load are reported and skipped.
    let mut results: Vec<(PathBuf, Vec<Hit>)> = Vec::new();
    let mut failed = false;
    let folder = args.all_sessions || args.all;
    if folder {
        let paths = sessions(global, args)?;
        let found = search::search_files(&paths, &query, &options);
        for (path, r) in paths.into_iter().zip(found) {
            match r {
                None => {}
                Some(Ok((hits, session))) => {
                    warn_load_report_naming(&session);
                    results.push((path, hits));
                }
                Some(Err(e)) => {
                    crate::cli::report(&anyhow::Error::from(e), None);
                    failed = true;
                }
            }
        }
    } else {
        let session = open_session(global)?;
        let hits = search::search_with(&session, &query, &options);
        results.push((session.path.clone(), hits));
    }

    if let Some(limit) = args.limit {
        search::keep_first_matches(&mut results, limit, options.after);
    }

    // Like ripgrep: paths when a folder is searched (or asked for), above each session's
    // lines on a terminal, at the start of each line elsewhere.
    let show_path = !args.no_filename && (folder || args.with_filename);
    let heading = show_path && !args.no_heading && (args.heading || out.is_terminal);
    let mut matched = false;
    let mut printed_any = false;
    for (path, hits) in &results {
        if hits.iter().all(|h| h.context) {
            continue;
        }
        matched = true;
        if args.quiet {
            break;
        }
        let shown_path = path.to_string_lossy();
        if args.files_with_matches {
            out.line(&out.paint(Style::Meta, &escape_line(&shown_path)))?;
            continue;
        }
        if args.count {
            out.line(&format!(
                "{}:{}",
                out.paint(Style::Meta, &escape_line(&shown_path)),
                hits.iter().filter(|h| !h.context).count()
            ))?;
            continue;
        }
        if args.json {
            for hit in hits {
                for record in hit.records(&shown_path) {
                    out.json(&serde_json::to_value(record)?)?;
                }
            }
            continue;
        }
        // Between sessions: a blank line under headings, else `--` when there is context.
        if printed_any {
            if heading {
                out.line("")?;
            } else if with_context {
                out.line("--")?;
            }
        }
        printed_any = true;
        grep_view::print_hits(out, hits, &shown_path, show_path, heading, with_context)?;
    }
    Ok(Exit::of_search(matched, failed, args.quiet))
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
