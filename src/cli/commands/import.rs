use crate::cli::GlobalArgs;
use crate::cli::exit::{CommandError, Exit};
use crate::cli::output::{Output, escape_block, escape_line};
use anyhow::Result;
use pi_session::import::{self, Agent, Converted, Options};
use pi_session::session::branch_copy::absolute;
use pi_session::session::io::locate::Locations;
use std::path::{Path, PathBuf};

/// Bring Claude Code or Codex CLI sessions into Pi, tree and all.
///
/// Writes a new Pi session from SOURCE (a session file, or a session id of the other
/// agent) in the Pi session folder of the source's working directory (`-o PATH` chooses
/// the file, `-o -` prints it), and prints its path. A rewind in Claude Code is a branch in
/// Pi too; compactions become Pi compactions; whatever Pi has no place for goes into
/// `custom` entries, which the model never sees. Before writing, the new file is read back
/// with pi-session's Pi-exact reader and refused unless Pi will see what was meant. The new
/// header records where the session came from (`importedFrom`), so `--all` (every session
/// of the other agent for the current directory) imports only what is not imported yet.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The agent whose sessions to read: claude (~/.claude/projects, or $CLAUDE_CONFIG_DIR/projects)
    /// or codex (~/.codex/sessions, or $CODEX_HOME/sessions).
    #[arg(long, value_enum, value_name = "AGENT")]
    pub from: From,

    /// The session: a file, or the other agent's session id.
    #[arg(value_name = "SOURCE", required_unless_present = "all", conflicts_with = "all")]
    pub source: Option<String>,

    /// Every session of the other agent for the current directory not imported yet.
    #[arg(long)]
    pub all: bool,

    /// Write the session here (`-` prints it on stdout); not with --all.
    #[arg(short = 'o', long = "output", value_name = "PATH", conflicts_with = "all")]
    pub output: Option<PathBuf>,

    /// Map the obvious tools (Read, Write, Edit, Bash, shell, apply_patch) to Pi's built-ins,
    /// so that export, files and the compaction's file lists understand them.
    #[arg(long)]
    pub map_tools: bool,

    /// Print the plan (entries by kind, what goes to custom entries, what is unknown), and
    /// write nothing.
    #[arg(long)]
    pub dry_run: bool,

    /// One JSON object per session: {"source","path","sessionId","entries","custom",
    /// "unknown","malformedLines","notes","dryRun","skipped"}.
    #[arg(long)]
    pub json: bool,
}

#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum From {
    Claude,
    Codex,
}

pub fn run(global: &GlobalArgs, args: &Args, out: &mut Output) -> Result<Exit> {
    if global.session().is_some() {
        return Err(CommandError::usage(
            "import writes a new session; -s does not apply",
            "drop -s",
        ));
    }
    let agent = match args.from {
        From::Claude => Agent::Claude,
        From::Codex => Agent::Codex,
    };
    let cwd = std::env::current_dir()?;
    let loc = Locations::discover(&cwd);
    let sources = match &args.source {
        Some(s) => vec![import::find_source(agent, s, &cwd)?],
        None => import::sources_for(agent, &cwd),
    };
    if sources.is_empty() {
        Output::say(&format!(
            "no {} session for {} (looked in {})",
            agent.name(),
            escape_line(&cwd.display().to_string()),
            import::source_root(agent)
                .map(|r| escape_line(&r.display().to_string()))
                .unwrap_or_default()
        ));
        return Ok(Exit::Failure);
    }
    let done: Vec<(String, String)> = import::already_imported(&loc);
    let options = Options {
        map_tools: args.map_tools,
    };
    let (mut written, mut skipped, mut failed) = (0usize, 0usize, 0usize);
    for source in &sources {
        let converted = std::fs::read(source)
            .map_err(|e| pi_session::session::SessionError::io(source, e))
            .and_then(|bytes| import::convert(agent, &bytes, &absolute(source), &options));
        let converted = match converted {
            Ok(c) => c,
            Err(e) => {
                failed += 1;
                Output::error(&format!("{}: {e}", escape_line(&source.display().to_string())));
                continue;
            }
        };
        let from = &converted.session.imported_from;
        if args.all && done.iter().any(|(a, s)| a == from.agent && *s == from.session_id) {
            skipped += 1;
            if args.json {
                out.json(&serde_json::json!({"source": source, "sessionId": from.session_id, "skipped": true}))?;
            }
            continue;
        }
        match write_one(converted, &loc, args, out) {
            Ok(n) => written += n,
            Err(e) => {
                failed += 1;
                Output::error(&format!("{}: {e:#}", escape_line(&source.display().to_string())));
            }
        }
    }
    if args.all || failed > 0 {
        let verb = if args.dry_run { "would import" } else { "imported" };
        let mut line = format!("{verb} {written} session(s) from {}", agent.name());
        if skipped > 0 {
            line.push_str(&format!(", {skipped} imported before left out"));
        }
        if failed > 0 {
            line.push_str(&format!(", {failed} failed"));
        }
        Output::say(&line);
    }
    Ok(if failed > 0 { Exit::Failure } else { Exit::Success })
}

/// Writes (or plans) one converted source and the sessions found inside it; how many
/// sessions that made.
fn write_one(mut c: Converted, loc: &Locations, args: &Args, out: &mut Output) -> Result<usize> {
    let bytes = c.session.to_bytes();
    let to_stdout = args.output.as_deref().is_some_and(|o| o.as_os_str() == "-");
    let path = absolute(&import::destination(&c.session, loc, args.output.as_deref()));
    if to_stdout {
        import::verify(&bytes, &c.session).map_err(|why| anyhow::anyhow!("would not read back as meant: {why}"))?;
        if !args.dry_run {
            let text = String::from_utf8_lossy(&bytes);
            let text = text.strip_suffix('\n').unwrap_or(&text);
            if out.is_terminal {
                out.line(&escape_block(text))?;
            } else {
                out.raw_line(text.as_bytes())?;
            }
            report(&c);
            if !c.children.is_empty() {
                Output::note(&format!(
                    "{} subagent session(s) not printed: stdout holds one session; -o FILE writes them beside it",
                    c.children.len()
                ));
            }
            return Ok(1);
        }
    }
    if args.dry_run {
        import::verify(&bytes, &c.session).map_err(|why| anyhow::anyhow!("would not read back as meant: {why}"))?;
    } else {
        import::write(&bytes, &c.session, &path)?;
    }
    show(out, &c, &path, args)?;
    report(&c);
    let mut made = 1;
    for child in &mut c.children {
        child.session.parent_session = Some(path.to_string_lossy().into_owned());
        let child_bytes = child.session.to_bytes();
        // Beside the main session: in Pi's folder, or where -o put it.
        let child_path = match &args.output {
            Some(_) => path.parent().unwrap_or(Path::new(".")).join(child.session.file_name()),
            None => absolute(&import::destination(&child.session, loc, None)),
        };
        if args.dry_run {
            import::verify(&child_bytes, &child.session)
                .map_err(|why| anyhow::anyhow!("a subagent session would not read back as meant: {why}"))?;
        } else {
            import::write(&child_bytes, &child.session, &child_path)?;
        }
        show(out, child, &child_path, args)?;
        made += 1;
    }
    Ok(made)
}

/// The new file's path (so `pi --session "$(pi-session import …)"` works), or the record.
fn show(out: &mut Output, c: &Converted, path: &Path, args: &Args) -> Result<()> {
    if args.json {
        let r = &c.report;
        out.json(&serde_json::json!({
            "source": c.session.imported_from.path,
            "path": path,
            "sessionId": c.session.imported_from.session_id,
            "entries": r.entries,
            "custom": r.custom,
            "unknown": r.unknown,
            "malformedLines": r.malformed_lines,
            "notes": r.notes,
            "dryRun": args.dry_run,
        }))?;
    } else if args.dry_run {
        let counts: Vec<String> = c.report.entries.iter().map(|(k, n)| format!("{n} {k}")).collect();
        out.line(&format!(
            "would write {} ({})",
            escape_line(&path.display().to_string()),
            counts.join(", ")
        ))?;
        if !c.report.custom.is_empty() {
            let kept: Vec<String> = c.report.custom.iter().map(|(k, n)| format!("{n} {k}")).collect();
            out.line(&format!(
                "  as custom entries (invisible to the model): {}",
                escape_line(&kept.join(", "))
            ))?;
        }
    } else {
        out.line(&escape_line(&path.display().to_string()))?;
    }
    Ok(())
}

/// What a user should know about a conversion, on stderr.
fn report(c: &Converted) {
    let r = &c.report;
    let source = escape_line(&c.session.imported_from.path);
    if !r.malformed_lines.is_empty() {
        let lines: Vec<String> = r.malformed_lines.iter().map(u32::to_string).collect();
        Output::warn(&format!(
            "{source}: lines that are not JSON were skipped: {}",
            lines.join(", ")
        ));
    }
    if !r.unknown.is_empty() {
        let kinds: Vec<String> = r
            .unknown
            .iter()
            .map(|(k, n)| format!("{n} {}", escape_line(k)))
            .collect();
        Output::note(&format!(
            "{source}: records of unknown types kept as custom entries: {}",
            kinds.join(", ")
        ));
    }
    for note in &r.notes {
        Output::note(&format!("{source}: {}", escape_line(note)));
    }
}
