//! What `compact` and `summarize-branch` share: where the summary comes from (a provider, a
//! local command, a file), the prompt options, and the plan-only modes.

use crate::cli::output::Output;
use crate::cli::progress::{Terminal, while_doing};
use anyhow::{Context as _, Result};
use pi_session::compaction::SummarySource;
use pi_session::compaction::command::CommandSummarizer;
use pi_session::llm::{LlmError, Summarizer, SummaryRequest, SummaryResponse};
use std::io::Read;

#[derive(Debug, Clone, clap::Args)]
pub struct SummaryArgs {
    /// The model that writes the summary, as PROVIDER/MODEL (anthropic, openai, google, openrouter,
    /// groq, xai, mistral, deepseek, a custom provider of Pi's models.json…). Default: Pi's
    /// defaultProvider/defaultModel settings, else the model in effect on the branch.
    #[arg(long, value_name = "PROVIDER/MODEL")]
    pub model: Option<String>,

    /// Send the request to this OpenAI-compatible endpoint (Ollama, llama.cpp, vLLM, …).
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,

    /// The model's context window in tokens [default: what is known for the model, else 128000].
    #[arg(long, value_name = "N")]
    pub context_window: Option<u64>,

    /// The model's output limit in tokens [default: what is known for the model, else 16384].
    #[arg(long, value_name = "N")]
    pub max_output_tokens: Option<u64>,

    /// A focus for the summary, added to the instructions.
    #[arg(long, value_name = "TEXT")]
    pub instructions: Option<String>,

    /// Give up on the model after SECONDS in all, retries and waits included (nothing is written).
    #[arg(long, value_name = "SECONDS", env = "PI_SESSION_LLM_TIMEOUT", default_value = "600", value_parser = seconds)]
    pub timeout: std::time::Duration,

    /// Include assistant thinking in the text sent for summarizing (Pi leaves it out).
    #[arg(long)]
    pub include_thinking: bool,

    /// Use this text as the summary instead of asking a model (`-` reads stdin).
    #[arg(long, value_name = "FILE", conflicts_with_all = ["summarizer", "model", "base_url"])]
    pub summary_file: Option<String>,

    /// Run CMD through the shell with the request on stdin; its stdout is the summary.
    #[arg(long, value_name = "CMD", conflicts_with_all = ["model", "base_url"])]
    pub summarizer: Option<String>,

    /// Write nothing: show what would be written (for a summary, the plan).
    #[arg(long)]
    pub dry_run: bool,

    /// Print what would be sent to the model and change nothing.
    #[arg(long, conflicts_with = "dry_run")]
    pub print_prompt: bool,
}

/// A positive number of seconds (fractions allowed).
fn seconds(s: &str) -> Result<std::time::Duration, String> {
    match s.trim().parse::<f64>() {
        Ok(n) if n > 0.0 && n.is_finite() && n < 1e9 => Ok(std::time::Duration::from_secs_f64(n)),
        _ => Err(format!("expected a positive number of seconds, not \"{s}\"")),
    }
}

/// The chosen source of summaries, owning what it needs.
pub enum Source {
    Text(String),
    Command(ShownCommand),
    Model(Box<dyn Summarizer>),
}

/// A summarizer command with a spinner while it runs (a provider's summarizer draws its
/// own, with its retries): a command may take minutes, and the screen should not look hung.
pub struct ShownCommand {
    command: CommandSummarizer,
    progress: Terminal,
}

impl Summarizer for ShownCommand {
    fn summarize(&self, request: &SummaryRequest) -> Result<SummaryResponse, LlmError> {
        while_doing(&self.progress, "waiting for the summarizer command", || {
            self.command.summarize(request)
        })
    }

    fn describe(&self) -> String {
        self.command.describe()
    }
}

impl Source {
    pub fn as_source(&self) -> SummarySource<'_> {
        match self {
            Source::Text(t) => SummarySource::Text(t.clone()),
            Source::Command(c) => SummarySource::Model(c),
            Source::Model(m) => SummarySource::Model(m.as_ref()),
        }
    }
}

/// The model's context window and output limit, and a summarizer for it (not for a file).
pub struct ModelChoice {
    pub context_window: u64,
    pub source: Source,
}

/// Picks the summary source. `branch_model` is the model in effect on the branch.
pub fn choose(args: &SummaryArgs, branch_model: Option<(String, String)>) -> Result<ModelChoice> {
    if let Some(file) = &args.summary_file {
        let text = if file == "-" {
            let mut s = String::new();
            std::io::stdin()
                .read_to_string(&mut s)
                .context("reading the summary from stdin")?;
            s
        } else {
            std::fs::read_to_string(file).with_context(|| format!("reading the summary from {file}"))?
        };
        let text = text.trim_end().to_owned();
        if text.trim().is_empty() {
            anyhow::bail!("the summary in {file} is empty");
        }
        return Ok(ModelChoice {
            context_window: args.context_window.unwrap_or(128_000),
            source: Source::Text(text),
        });
    }
    if let Some(cmd) = &args.summarizer {
        return Ok(ModelChoice {
            context_window: args.context_window.unwrap_or(128_000),
            source: Source::Command(ShownCommand {
                command: CommandSummarizer { command: cmd.clone() },
                progress: Terminal::new(),
            }),
        });
    }
    let (info, summarizer) = pi_session::llm::resolve(
        args.model.as_deref(),
        args.base_url.as_deref(),
        branch_model.as_ref().map(|(p, m)| (p.as_str(), m.as_str())),
        args.context_window,
        args.max_output_tokens,
    )?;
    let summarizer = summarizer
        .with_deadline(args.timeout)
        .with_progress(std::sync::Arc::new(crate::cli::progress::Terminal::new()))
        .with_cancel(crate::cli::interrupt::cancel().clone());
    Ok(ModelChoice {
        context_window: info.context_window,
        source: Source::Model(Box::new(summarizer)),
    })
}

/// Pi's compaction settings: command line, then `.pi/settings.json`, then the agent's
/// settings.json (with its per-model overrides), then Pi's defaults (20000 and 16384).
pub fn compaction_settings(keep: Option<u64>, reserve: Option<u64>, model: Option<(&str, &str)>) -> Result<(u64, u64)> {
    let cwd = std::env::current_dir()?;
    let settings = pi_session::llm::settings::Settings::load(&cwd);
    for w in &settings.warnings {
        Output::warn(w);
    }
    let c = settings.compaction(model)?;
    Ok((
        keep.unwrap_or(c.keep_recent_tokens),
        reserve.unwrap_or(c.reserve_tokens),
    ))
}
