//! The budgets and rules `check` takes on its command line, and the policy they make with
//! the `--config` file's.

use anyhow::{Result, bail};
use pi_session::ops::check::Policy;
use std::path::Path;

#[derive(Debug, Clone, clap::Args)]
pub struct PolicyArgs {
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

    /// No credential is recorded (the `secrets` scan; see --gitleaks-config, --no-own-keys).
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

    /// Every file an edit or write call changed matches these gitignore-style globs, from the
    /// session's cwd: `*.md` at any depth, `/build` or `src/*.rs` from the top, `docs/` a
    /// directory, `!GLOB` an exception.
    #[arg(long, value_name = "GLOB", num_args = 1.., help_heading = "Rules")]
    pub paths: Vec<String>,

    /// Budgets and tool rules count only the branch of @ (what the model saw).
    #[arg(long)]
    pub branch: bool,
}

impl PolicyArgs {
    /// The policy: the `config` file's, with what the command line gives replacing it.
    pub fn policy(&self, config: Option<&Path>) -> Result<Policy> {
        let file = match config {
            Some(path) => Policy::from_file(path).map_err(anyhow::Error::msg)?,
            None => Policy::default(),
        };
        let given = Policy {
            max_cost: self.max_cost,
            max_tokens: self.max_tokens,
            max_tool_calls: self.max_tool_calls,
            max_turns: self.max_turns,
            max_context: self.max_context,
            no_tool_errors: self.no_tool_errors,
            max_tool_errors: self.max_tool_errors,
            paths: self.paths.clone(),
            no_secrets: self.no_secrets,
            valid: self.valid,
            forbid_tool: self.forbid_tool.clone(),
            require_tool: self.require_tool.clone(),
            branch: self.branch,
        };
        let policy = file.overlay(given);
        policy.validate().map_err(anyhow::Error::msg)?;
        if policy.is_empty() {
            bail!("nothing to check: give a budget or a rule (see --help), or --config FILE");
        }
        Ok(policy)
    }
}
