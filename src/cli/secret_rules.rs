//! The rules `secrets`, `redact`, and the `--redact` of `export` and `clone` look for
//! credentials with: the built-in ones, a gitleaks configuration, and the user's own keys.

use anyhow::{Context as _, Result};
use pi_session::secrets::rules::RuleSet;
use pi_session::secrets::{gitleaks, own};
use pi_session::session::io::locate;
use std::path::{Path, PathBuf};

#[derive(Debug, Clone, clap::Args)]
pub struct RuleArgs {
    /// Rules in gitleaks' configuration format (TOML [[rules]] and [allowlist]), e.g. a
    /// team's .gitleaks.toml [default: ./.gitleaks.toml when there is one]. Its rules replace
    /// the built-in ones unless it has `[extend] useDefault = true`; its allowlists apply.
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,

    /// Do not look for the values of your own keys: the provider variables Pi reads (and
    /// any other *_API_KEY, *_TOKEN, *_SECRET variable) and the keys in Pi's auth.json.
    #[arg(long)]
    pub no_own_keys: bool,
}

/// The rule set the arguments ask for.
pub fn rule_set(args: &RuleArgs) -> Result<RuleSet> {
    let mut rules = RuleSet::builtin();
    let default = Path::new(".gitleaks.toml");
    let config = match &args.config {
        Some(path) => Some(path.as_path()),
        None => default.is_file().then_some(default),
    };
    if let Some(path) = config {
        let text = std::fs::read_to_string(path).with_context(|| format!("cannot read {}", path.display()))?;
        let parsed =
            gitleaks::parse(&text).with_context(|| format!("{}: not a gitleaks configuration", path.display()))?;
        rules = rules.with_config(parsed);
    }
    if !args.no_own_keys {
        rules = rules.with_exact(own::own_keys(&locate::agent_dir(), std::env::vars()));
    }
    Ok(rules)
}
