use crate::cli::GlobalArgs;
use crate::cli::amounts::counted;
use crate::cli::cache_file::{CHECK, cache_file};
use crate::cli::check_policy::PolicyArgs;
use crate::cli::exit::Exit;
use crate::cli::output::{Output, Style, escape_line};
use crate::cli::progress::Terminal;
use crate::cli::secret_rules::{RuleArgs, rule_set};
use crate::cli::session_arg::project_sessions_named;
use anyhow::{Result, bail};
use pi_session::ops::check::{Context, ErrorRecord, Verdict, VerdictRecord, check_files, junit};
use pi_session::session::io::write;
use std::path::PathBuf;

/// Check sessions against budgets and rules, for CI.
///
/// Every budget and rule given (on the command line, or in the --config file) is checked
/// on each session; the verdicts name the entries that broke a rule. Budgets and tool rules
/// count the whole file (abandoned branches and compacted history were paid for too) unless
/// --branch.
///
/// Exit status: 0 every rule holds, 1 a rule failed, 2 a usage error, a session that cannot
/// be read, or no session to check (--all in a directory without sessions).
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Every session of the current project [default: those -s names (repeatable), else
    /// the most recent session of the current directory].
    #[arg(long)]
    pub all: bool,

    /// Budgets and rules from a TOML file, keys named as the options (max-cost = 2.5,
    /// paths = ["src/**"], no-secrets = true). Options given on the command line replace
    /// the file's.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    #[command(flatten)]
    pub rules: PolicyArgs,

    /// Rules in gitleaks' format for --no-secrets [default: ./.gitleaks.toml if any].
    #[arg(long, value_name = "FILE")]
    pub gitleaks_config: Option<PathBuf>,

    /// --no-secrets does not look for the values of your own keys.
    #[arg(long)]
    pub no_own_keys: bool,

    /// One JSON object per rule and session (NDJSON): {"session", "rule", "limit", "value",
    /// "pass", "entries": [{"id", "line", "note"}]}, or {"session", "error"}.
    #[arg(long, conflicts_with = "format")]
    pub json: bool,

    /// How to print the verdicts: `human`, or `github` (GitHub Actions annotations,
    /// `::error file=…,line=…,title=…::…`, one per failed rule).
    #[arg(long, value_name = "FORMAT", value_parser = ["human", "github"], default_value = "human")]
    pub format: String,

    /// Also write the verdicts as JUnit XML to FILE (one testsuite per session, one testcase
    /// per rule, a failure per failed rule).
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,

    /// Replace the --junit file if it exists (atomically).
    #[arg(long)]
    pub force: bool,

    /// Check every file again. By default the verdicts on files unchanged since a run under
    /// the same policy come from $XDG_CACHE_HOME/pi-session/check.cache (or ~/.cache/…).
    #[arg(long)]
    pub no_cache: bool,
}

/// Usage errors and sessions that cannot be read end with 2, so that 1 means "a rule failed".
pub fn run(global: &GlobalArgs, args: &Args, out: &mut Output) -> Result<Exit> {
    crate::cli::errors_end_with_usage(check_and_report(global, args, out))
}

fn check_and_report(global: &GlobalArgs, args: &Args, out: &mut Output) -> Result<Exit> {
    let policy = args.rules.policy(args.config.as_deref())?;
    if let Some(path) = args.junit.as_deref().filter(|p| p.exists() && !args.force) {
        bail!("{} exists; --force replaces it", path.display());
    }
    // A gitleaks file and the user's keys are read only for the rule that needs them.
    let (config, no_own_keys) = (args.gitleaks_config.clone(), args.no_own_keys);
    let rules = policy
        .no_secrets
        .then(|| rule_set(&RuleArgs { config, no_own_keys }))
        .transpose()?;
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let (secrets, home) = (rules.as_ref(), home.as_deref());
    let cx = Context { secrets, home };
    let files = project_sessions_named(global, args.all, &[])?;
    if files.is_empty() {
        // A gate that checked nothing must not pass: the job may run in another directory.
        let loc = pi_session::session::io::locate::Locations::discover(&std::env::current_dir()?);
        crate::cli::session_arg::say_none_found(&loc, false);
        bail!("no session to check");
    }
    let cache = cache_file(CHECK).filter(|_| !args.no_cache);
    let results = check_files(&files, &policy, &cx, cache.as_deref(), &Terminal::when(!args.json));
    let names: Vec<String> = files.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    for (name, result) in names.iter().zip(&results) {
        let verdicts = match result {
            Ok(v) => v,
            Err(error) if args.json => {
                out.json(&serde_json::to_value(ErrorRecord { session: name, error })?)?;
                continue;
            }
            Err(e) => {
                Output::error(&format!("{}: {}", escape_line(name), escape_line(e)));
                continue;
            }
        };
        if args.json {
            for verdict in verdicts {
                out.json(&serde_json::to_value(VerdictRecord { session: name, verdict })?)?;
            }
        } else if args.format == "github" {
            for v in verdicts.iter().filter(|v| !v.pass) {
                out.line(&v.github_annotation(name, SHOWN))?;
            }
        } else {
            write_human(out, name, verdicts)?;
        }
    }
    if let Some(path) = &args.junit {
        write::write_file_with(path, args.force, |f| junit::write(f, &names, &results))?;
    }
    let unreadable = results.iter().filter(|r| r.is_err()).count();
    let failed_rules = results.iter().flatten().flatten().filter(|v| !v.pass).count();
    let failed_sessions = results.iter().flatten().filter(|v| v.iter().any(|v| !v.pass)).count();
    if !args.json {
        // The verdicts first: on a terminal the summary comes after them.
        out.flush()?;
        let sessions = |n: usize| counted(n as u64, "session", "sessions");
        Output::say(&match failed_rules {
            0 => format!("every rule holds in {}", sessions(files.len() - unreadable)),
            n => format!(
                "{} failed in {failed_sessions} of {}",
                counted(n as u64, "rule", "rules"),
                sessions(files.len())
            ),
        });
    }
    Ok(match (unreadable, failed_rules) {
        (0, 0) => Exit::Success,
        (0, _) => Exit::Failure,
        _ => Exit::Usage,
    })
}

/// At most this many offending entries are listed under a failed rule (`--json` has all).
const SHOWN: usize = 5;

fn write_human(out: &mut Output, name: &str, verdicts: &[Verdict]) -> Result<()> {
    out.line(&out.paint(Style::Bold, &escape_line(name)))?;
    let width = verdicts.iter().map(|v| v.rule.len()).max().unwrap_or(0);
    for v in verdicts {
        let (mark, style) = if v.pass {
            ("ok  ", Style::Dim)
        } else {
            ("FAIL", Style::Bold)
        };
        let rule = format!("{:<width$}", v.rule);
        out.line(&format!(
            "  {}  {rule}  {}",
            out.paint(style, mark),
            escape_line(&v.message())
        ))?;
        for o in v.entries.iter().take(SHOWN) {
            let id = o.id.as_deref().map_or(String::new(), |id| format!(" {id}"));
            out.line(&escape_line(&format!("        line {}{id}: {}", o.line, o.note)))?;
        }
        if v.entries.len() > SHOWN {
            out.line(&format!("        … and {} more (see --json)", v.entries.len() - SHOWN))?;
        }
    }
    Ok(())
}
