use crate::cli::GlobalArgs;
use crate::cli::exit::Exit;
use crate::cli::output::{Output, Style, escape_line};
use crate::cli::progress::Terminal;
use crate::cli::secret_rules::{RuleArgs, rule_set};
use crate::cli::session_arg::project_sessions_named;
use anyhow::{Context as _, Result, bail};
use pi_session::ops::check::junit::{self, Suite};
use pi_session::ops::check::{Context, Policy, Verdict, check_files};
use pi_session::session::io::write;
use std::path::PathBuf;

/// Check sessions against budgets and rules, for CI.
///
/// Every budget and rule given (on the command line, or in the --config file) is checked
/// on each session; the verdicts name the entries that broke a rule. Budgets and tool rules
/// count the whole file (abandoned branches and compacted history were paid for too) unless
/// --branch.
///
/// Exit status: 0 every rule holds, 1 a rule failed, 2 a usage error or a session that
/// cannot be read.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Every session of the current project [default: the sessions -s names (repeatable),
    /// else the most recent session of the current directory].
    #[arg(long)]
    pub all: bool,

    /// Budgets and rules from a TOML file, keys named as the options (max-cost = 2.5,
    /// paths = ["src/**"], no-secrets = true). Options given on the command line replace
    /// the file's.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// At most this cost in US dollars, as `usage` sums it.
    #[arg(long, value_name = "USD", help_heading = "Budgets")]
    pub max_cost: Option<f64>,

    /// At most this many tokens over all paid calls.
    #[arg(long, value_name = "N", help_heading = "Budgets")]
    pub max_tokens: Option<u64>,

    /// The fullest context a reply reported is at most this percent of its model's window.
    #[arg(long, value_name = "PERCENT", help_heading = "Budgets")]
    pub max_context: Option<f64>,

    /// At most this many tool calls.
    #[arg(long, value_name = "N", help_heading = "Budgets")]
    pub max_tool_calls: Option<u64>,

    /// At most this many turns (assistant messages: one model call each).
    #[arg(long, value_name = "N", help_heading = "Budgets")]
    pub max_turns: Option<u64>,

    /// No tool result is an error.
    #[arg(long, conflicts_with = "max_tool_errors", help_heading = "Rules")]
    pub no_tool_errors: bool,

    /// At most this many tool results are errors.
    #[arg(long, value_name = "N", help_heading = "Rules")]
    pub max_tool_errors: Option<u64>,

    /// No credential is recorded (the `secrets` scan, with its --gitleaks-config and
    /// --no-own-keys).
    #[arg(long, help_heading = "Rules")]
    pub no_secrets: bool,

    /// Nothing `repair --check` calls a defect.
    #[arg(long, help_heading = "Rules")]
    pub valid: bool,

    /// These tools are never called.
    #[arg(long, value_name = "NAME", num_args = 1.., help_heading = "Rules")]
    pub forbid_tool: Vec<String>,

    /// These tools are each called at least once.
    #[arg(long, value_name = "NAME", num_args = 1.., help_heading = "Rules")]
    pub require_tool: Vec<String>,

    /// Every tool call that changed a file (edit, write) changed one these gitignore-style
    /// globs match, relative to the session's working directory: `*.md` at any depth,
    /// `/build` or `src/*.rs` from the top, `docs/` a whole directory, `!GLOB` an exception.
    #[arg(long, value_name = "GLOB", num_args = 1.., help_heading = "Rules")]
    pub paths: Vec<String>,

    /// Budgets and tool rules count only the branch of @ (what the model saw).
    #[arg(long)]
    pub branch: bool,

    /// Rules in gitleaks' format for --no-secrets [default: ./.gitleaks.toml if any].
    #[arg(long, value_name = "FILE")]
    pub gitleaks_config: Option<PathBuf>,

    /// --no-secrets does not look for the values of your own keys.
    #[arg(long)]
    pub no_own_keys: bool,

    /// One JSON object per rule and session (NDJSON): {"session", "rule", "limit", "value",
    /// "pass", "entries": [{"id", "line", "note"}]}; {"session", "error"} for a session that
    /// cannot be read.
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
}

/// Usage errors and sessions that cannot be read end with 2, so that 1 means "a rule failed".
pub fn run(global: &GlobalArgs, args: &Args, out: &mut Output) -> Result<Exit> {
    match check_and_report(global, args, out) {
        // A closed pipe stays a success.
        Err(e) => Ok(match crate::cli::report(&e, None) {
            Exit::Success => Exit::Success,
            _ => Exit::Usage,
        }),
        ok => ok,
    }
}

fn policy_of(args: &Args) -> Result<Policy> {
    let file = match &args.config {
        Some(path) => {
            let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
            Policy::from_toml(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?
        }
        None => Policy::default(),
    };
    let given = Policy {
        max_cost: args.max_cost,
        max_tokens: args.max_tokens,
        max_tool_calls: args.max_tool_calls,
        max_turns: args.max_turns,
        max_context: args.max_context,
        no_tool_errors: args.no_tool_errors,
        max_tool_errors: args.max_tool_errors,
        paths: args.paths.clone(),
        no_secrets: args.no_secrets,
        valid: args.valid,
        forbid_tool: args.forbid_tool.clone(),
        require_tool: args.require_tool.clone(),
        branch: args.branch,
    };
    let policy = file.overlay(given);
    policy.validate().map_err(anyhow::Error::msg)?;
    if policy.is_empty() {
        bail!("nothing to check: give a budget or a rule (see --help), or --config FILE");
    }
    Ok(policy)
}

fn check_and_report(global: &GlobalArgs, args: &Args, out: &mut Output) -> Result<Exit> {
    let policy = policy_of(args)?;
    if let Some(path) = args.junit.as_deref().filter(|p| p.exists() && !args.force) {
        bail!("{} exists; --force replaces it", path.display());
    }
    let rules = rule_set(&RuleArgs {
        config: args.gitleaks_config.clone(),
        no_own_keys: args.no_own_keys || !policy.no_secrets,
    })?;
    let home = std::env::var_os("HOME").map(PathBuf::from);
    let cx = Context {
        secrets: &rules,
        home: home.as_deref(),
    };
    let files = project_sessions_named(global, args.all, &[])?;
    let results = check_files(&files, &policy, &cx, &Terminal::when(!args.json));
    let names: Vec<String> = files.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let (mut failed_rules, mut failed_sessions, mut unreadable) = (0, 0, 0);
    for (name, result) in names.iter().zip(&results) {
        let verdicts = match result {
            Ok(v) => v,
            Err(e) => {
                unreadable += 1;
                if args.json {
                    out.json(&serde_json::json!({"session": name, "error": e}))?;
                } else {
                    Output::error(&format!("{}: {}", escape_line(name), escape_line(e)));
                }
                continue;
            }
        };
        let failed = verdicts.iter().filter(|v| !v.pass).count();
        failed_rules += failed;
        failed_sessions += usize::from(failed > 0);
        if args.json {
            for v in verdicts {
                let mut record = serde_json::json!({ "session": name });
                record.as_object_mut().expect("an object").extend(
                    serde_json::to_value(v)?
                        .as_object()
                        .cloned()
                        .expect("a verdict is an object"),
                );
                out.json(&record)?;
            }
        } else if args.format == "github" {
            for v in verdicts.iter().filter(|v| !v.pass) {
                out.line(&github_annotation(name, v))?;
            }
        } else {
            write_human(out, name, verdicts)?;
        }
    }
    if let Some(path) = &args.junit {
        let suites: Vec<Suite<'_>> = names
            .iter()
            .zip(&results)
            .map(|(name, r)| Suite {
                name,
                verdicts: r.as_deref().map_err(String::as_str),
            })
            .collect();
        write::write_file_with(path, args.force, |f| junit::write(f, &suites))?;
    }
    if !args.json {
        Output::say(&match failed_rules {
            0 => format!("every rule holds in {} session(s)", files.len() - unreadable),
            n => format!("{n} rule(s) failed in {failed_sessions} of {} session(s)", files.len()),
        });
    }
    Ok(if unreadable > 0 {
        Exit::Usage
    } else if failed_rules > 0 {
        Exit::Failure
    } else {
        Exit::Success
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

/// A GitHub Actions `::error` workflow command: the properties and the message escaped as
/// the runner reads them (`%`; `:` and `,` in properties), control bytes escaped.
fn github_annotation(session: &str, v: &Verdict) -> String {
    // escape_line leaves no CR or LF; lines of the message are joined with an escaped LF.
    let data = |s: &str| escape_line(s).replace('%', "%25");
    let property = |s: &str| data(s).replace(':', "%3A").replace(',', "%2C");
    let mut message = data(&v.message());
    for o in v.entries.iter().take(SHOWN) {
        message.push_str("%0A");
        message.push_str(&data(&format!("line {}: {}", o.line, o.note)));
    }
    let line = v.entries.first().map_or(String::new(), |o| format!(",line={}", o.line));
    format!(
        "::error file={}{line},title={}::{}",
        property(session),
        property(&format!("pi-session check: {}", v.rule)),
        message
    )
}
