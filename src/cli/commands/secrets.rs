use crate::cli::GlobalArgs;
use crate::cli::exit::Exit;
use crate::cli::output::{Output, Style, escape_line};
use crate::cli::progress::Terminal;
use crate::cli::secret_rules::{RuleArgs, rule_set};
use crate::cli::session_arg::sessions_named;
use anyhow::Result;
use pi_session::secrets::scan::{FindingRecord, Unscannable, scan_paths};

/// Find the credentials sessions have recorded: API keys, tokens, private keys, passwords.
///
/// Scans every string a session holds (messages, thinking, tool-call arguments, tool
/// results, bash output, custom messages, compaction and branch summaries, session names,
/// labels) with built-in rules (Anthropic, OpenAI, AWS, GitHub, GitLab, Slack, Stripe,
/// Google, npm, PyPI, Hugging Face, private keys, JWTs, passwords in URLs, secret-looking
/// assignments), the rules of a gitleaks configuration, and the values of your own keys.
/// Prints where each one is, the rule and a masked preview, never the secret itself.
/// Redacted thinking and encrypted reasoning cannot be read: they are named on stderr.
///
/// Exit status: 0 nothing found, 1 something found, 2 an error kept a session from being
/// scanned.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Every session of every project [default: the session -s names (repeatable), else
    /// the most recent session of the current directory].
    #[arg(long)]
    pub all: bool,

    /// With --all, also scan the archived sessions (`pi-session archive`).
    #[arg(long, requires = "all")]
    pub archived: bool,

    /// One JSON object per finding: {"session", "line", "entry", "type", "path", "rule",
    /// "preview", "length"} (path: where in the entry, as message.content[2].arguments.command);
    /// and one per payload that cannot be read: {"session", "line", "entry", "path",
    /// "unscannable"}.
    #[arg(long)]
    pub json: bool,

    #[command(flatten)]
    pub rules: RuleArgs,
}

#[derive(serde::Serialize)]
struct UnscannableRecord<'a> {
    session: &'a str,
    line: u32,
    entry: &'a Option<String>,
    path: &'a str,
    unscannable: &'a str,
}

impl<'a> UnscannableRecord<'a> {
    fn new(session: &'a str, u: &'a Unscannable) -> Self {
        UnscannableRecord {
            session,
            line: u.line,
            entry: &u.entry,
            path: &u.path,
            unscannable: u.reason,
        }
    }
}

/// Errors end `secrets` with 2, so that 1 means "found" to a CI job.
pub fn run(global: &GlobalArgs, args: &Args, out: &mut Output) -> Result<Exit> {
    crate::cli::errors_end_with_usage(scan_and_report(global, args, out))
}

fn scan_and_report(global: &GlobalArgs, args: &Args, out: &mut Output) -> Result<Exit> {
    let rules = rule_set(&args.rules)?;
    let mut files = sessions_named(global, args.all, &[])?;
    if args.archived {
        let loc = pi_session::session::io::locate::Locations::discover(&std::env::current_dir()?);
        files.extend(loc.archive().all_files());
    }
    let results = scan_paths(&files, &rules, &Terminal::when(!args.json));
    let (mut found, mut sessions_with, mut failed) = (0usize, 0usize, false);
    for (path, result) in files.iter().zip(results) {
        let shown = path.to_string_lossy();
        let scan = match result {
            Ok(scan) => scan,
            Err(e) => {
                Output::error(&e.to_string());
                failed = true;
                continue;
            }
        };
        if !scan.damaged_lines.is_empty() {
            Output::warn(&format!(
                "{shown}: {} line(s) are not JSON (Pi skips them); scanned as text",
                scan.damaged_lines.len()
            ));
        }
        for u in &scan.unscannable {
            if args.json {
                out.json(&serde_json::to_value(UnscannableRecord::new(&shown, u))?)?;
            } else {
                Output::note(&format!(
                    "{}:{}: {}: {} (not scanned)",
                    escape_line(&shown),
                    u.line,
                    escape_line(&u.path),
                    u.reason
                ));
            }
        }
        found += scan.findings.len();
        sessions_with += usize::from(!scan.findings.is_empty());
        for f in &scan.findings {
            if args.json {
                out.json(&serde_json::to_value(FindingRecord {
                    session: &shown,
                    finding: f,
                })?)?;
                continue;
            }
            let entry = f.entry.as_deref().map(|e| format!("entry {e}")).unwrap_or_else(|| {
                if f.path.is_empty() {
                    "damaged line".into()
                } else {
                    "header".into()
                }
            });
            let place = if f.path.is_empty() {
                entry
            } else {
                format!("{entry}, {}", f.path)
            };
            let loc = format!("{}:{}:", shown, f.line);
            let text = format!(
                "{} {} {} ({})",
                out.paint(Style::Dim, &escape_line(&loc)),
                out.paint(Style::Bold, &escape_line(&f.rule)),
                escape_line(&f.preview),
                escape_line(&place)
            );
            out.line(&text)?;
        }
    }
    if !args.json {
        // The findings first: on a terminal the summary comes after them.
        out.flush()?;
        let summary = match found {
            0 => format!("no secrets found in {} session(s)", files.len()),
            n => format!(
                "{n} secret(s) in {sessions_with} of {} session(s); `pi-session redact` takes them out",
                files.len()
            ),
        };
        Output::say(&summary);
    }
    Ok(if failed {
        Exit::Usage
    } else if found > 0 {
        Exit::Failure
    } else {
        Exit::Success
    })
}
