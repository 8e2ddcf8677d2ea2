use crate::cli::GlobalArgs;
use crate::cli::exit::Exit;
use crate::cli::output::{Output, Style, escape_line};
use crate::cli::render::kind_style;
use crate::cli::session_arg::{open_session, warn_load_report_naming};
use anyhow::{Result, bail};
use pi_session::session::text::content_text;
use pi_session::session::{EntryIdx, EntryKind, Session, locate};
use regex::{Regex, RegexBuilder};
use serde_json::{Value, json};
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
    #[arg(long, value_name = "ROLE", value_delimiter = ',', value_parser = ROLES)]
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

/// The roles `--role` takes.
const ROLES: [&str; 9] = [
    "user",
    "assistant",
    "toolResult",
    "bashExecution",
    "custom",
    "system",
    "compaction",
    "branchSummary",
    "toolCall",
];

/// One matching line.
#[derive(Debug)]
struct Hit {
    id: String,
    role: String,
    line_no: usize,
    text: String,
    /// Byte ranges of the matches in `text`.
    matches: Vec<(usize, usize)>,
}

/// A tool call's arguments as lines of `key: value` (strings as they are, other values as JSON).
fn tool_call_text(block: &Value) -> String {
    let name = block.get("name").and_then(Value::as_str).unwrap_or("?");
    let mut lines = vec![name.to_owned()];
    match block.get("arguments") {
        Some(Value::Object(m)) => {
            for (k, v) in m {
                match v {
                    Value::String(s) => lines.push(format!("{k}: {s}")),
                    other => lines.push(format!("{k}: {other}")),
                }
            }
        }
        Some(Value::Null) | None => {}
        Some(other) => lines.push(other.to_string()),
    }
    lines.join("\n")
}

/// The searchable texts of an entry, each with its role.
fn texts(session: &Session, idx: EntryIdx, tools: bool) -> Vec<(String, String)> {
    let e = &session.entries[idx];
    let s = |v: &Value, key: &str| v.get(key).and_then(Value::as_str).unwrap_or("").to_owned();
    match &e.kind {
        EntryKind::Message => {
            let v = session.value(idx);
            let Some(m) = v.get("message") else {
                return Vec::new();
            };
            let role = m.get("role").and_then(Value::as_str).unwrap_or("").to_owned();
            match role.as_str() {
                "bashExecution" => vec![(role.clone(), s(m, "command")), (role, s(m, "output"))],
                "compactionSummary" | "branchSummary" => {
                    let role = if role == "branchSummary" {
                        role
                    } else {
                        "compaction".into()
                    };
                    vec![(role, s(m, "summary"))]
                }
                _ => {
                    let mut out = vec![(role, content_text(m.get("content"), "\n"))];
                    if tools && let Some(blocks) = m.get("content").and_then(Value::as_array) {
                        out.extend(
                            blocks
                                .iter()
                                .filter(|b| b.get("type").and_then(Value::as_str) == Some("toolCall"))
                                .map(|b| ("toolCall".to_owned(), tool_call_text(b))),
                        );
                    }
                    out
                }
            }
        }
        EntryKind::CustomMessage => {
            let v = session.value(idx);
            vec![("custom".into(), content_text(v.get("content"), "\n"))]
        }
        EntryKind::Compaction => vec![("compaction".into(), s(&session.value(idx), "summary"))],
        EntryKind::BranchSummary => vec![("branchSummary".into(), s(&session.value(idx), "summary"))],
        _ => Vec::new(),
    }
}

fn search(session: &Session, re: &Regex, roles: &[String], tools: bool) -> Vec<Hit> {
    let mut hits = Vec::new();
    for idx in 0..session.entries.len() {
        for (role, text) in texts(session, idx, tools) {
            if text.is_empty() || (!roles.is_empty() && !roles.contains(&role)) {
                continue;
            }
            for (n, line) in text.split('\n').enumerate() {
                let line = line.strip_suffix('\r').unwrap_or(line);
                let matches: Vec<(usize, usize)> = re.find_iter(line).map(|m| (m.start(), m.end())).collect();
                if matches.is_empty() {
                    continue;
                }
                hits.push(Hit {
                    id: session.id_or_line(idx),
                    role: role.clone(),
                    line_no: n + 1,
                    text: line.to_owned(),
                    matches,
                });
            }
        }
    }
    hits
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
    if global.session.is_some() {
        bail!("--all-sessions searches every session of the current directory; drop -s/--session");
    }
    let loc = locate::Locations::discover(&std::env::current_dir()?);
    Ok(loc.sessions_here().into_iter().map(|(p, _)| p).collect())
}

fn run_inner(global: &GlobalArgs, args: &Args, out: &mut Output) -> Result<Exit> {
    let re = RegexBuilder::new(&args.pattern)
        .case_insensitive(args.ignore_case)
        .build()?;
    let mut roles = args.role.clone();
    let tools = args.tools || roles.iter().any(|r| r == "toolCall");
    if args.tools && !roles.is_empty() && !roles.iter().any(|r| r == "toolCall") {
        roles.push("toolCall".into());
    }

    // (path, hits) per session, in order; sessions that fail to load are reported and skipped.
    let mut results: Vec<(PathBuf, Vec<Hit>)> = Vec::new();
    let mut failed = false;
    if args.all_sessions {
        let paths = all_sessions(global)?;
        let found = pi_session::parallel::par_map(
            &paths,
            |p| Session::open(p).map(|s| (search(&s, &re, &roles, tools), s)),
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
        let hits = search(&session, &re, &roles, tools);
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
                for &(start, end) in &hit.matches {
                    let o = json!({
                        "path": shown_path,
                        "id": hit.id,
                        "role": hit.role,
                        "line": hit.line_no,
                        "text": hit.text,
                        "start": start,
                        "end": end,
                    });
                    out.json(&o)?;
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
