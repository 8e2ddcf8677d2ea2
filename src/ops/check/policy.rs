//! What `check` holds a session to: budgets and rules, given on the command line or kept in
//! a TOML file beside a repository's CI configuration. The file's keys are the options'
//! names without their dashes in front (`max-cost = 2.5`, `paths = ["src/**"]`).

use serde::Deserialize;

/// The budgets and rules to check. Unset budgets and rules are not checked.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "kebab-case", deny_unknown_fields)]
pub struct Policy {
    /// The cost of every paid call, in US dollars, as `usage` sums it.
    pub max_cost: Option<f64>,
    /// Tokens of every paid call (their `totalTokens`, or the sum of the parts).
    pub max_tokens: Option<u64>,
    /// Tool calls the assistant made.
    pub max_tool_calls: Option<u64>,
    /// Turns: assistant messages (one model call each, as Pi's turns).
    pub max_turns: Option<u64>,
    /// The fullest context a reply reported, in percent of its model's context window.
    pub max_context: Option<f64>,
    /// No tool result may be an error (`max-tool-errors = 0`).
    #[serde(default)]
    pub no_tool_errors: bool,
    /// Tool results that are errors.
    pub max_tool_errors: Option<u64>,
    /// Every file the session edited or wrote matches one of these gitignore-style globs,
    /// relative to the session's working directory.
    #[serde(default)]
    pub paths: Vec<String>,
    /// No credential in the session (the `secrets` scan).
    #[serde(default)]
    pub no_secrets: bool,
    /// Nothing `repair --check` would call a defect.
    #[serde(default)]
    pub valid: bool,
    /// Tools that must not be called.
    #[serde(default)]
    pub forbid_tool: Vec<String>,
    /// Tools that must be called at least once.
    #[serde(default)]
    pub require_tool: Vec<String>,
    /// Budgets and tool rules count only the branch of `@` (what the model saw), not the
    /// whole file.
    #[serde(default)]
    pub branch: bool,
}

impl Policy {
    /// The policy in a TOML file's text.
    pub fn from_toml(text: &str) -> Result<Policy, String> {
        let policy: Policy = toml::from_str(text).map_err(|e| e.to_string().trim_end().to_owned())?;
        policy.validate()?;
        Ok(policy)
    }

    /// The policy in the TOML file `path`; errors name the file.
    pub fn from_file(path: &std::path::Path) -> Result<Policy, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
        Policy::from_toml(&text).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// `self` with what `over` sets replacing it: the command line over the file.
    pub fn overlay(self, over: Policy) -> Policy {
        fn list(base: Vec<String>, over: Vec<String>) -> Vec<String> {
            if over.is_empty() { base } else { over }
        }
        Policy {
            max_cost: over.max_cost.or(self.max_cost),
            max_tokens: over.max_tokens.or(self.max_tokens),
            max_tool_calls: over.max_tool_calls.or(self.max_tool_calls),
            max_turns: over.max_turns.or(self.max_turns),
            max_context: over.max_context.or(self.max_context),
            no_tool_errors: over.no_tool_errors || self.no_tool_errors,
            max_tool_errors: over.max_tool_errors.or(self.max_tool_errors),
            paths: list(self.paths, over.paths),
            no_secrets: over.no_secrets || self.no_secrets,
            valid: over.valid || self.valid,
            forbid_tool: list(self.forbid_tool, over.forbid_tool),
            require_tool: list(self.require_tool, over.require_tool),
            branch: over.branch || self.branch,
        }
    }

    /// Limits that cannot mean anything: a negative or non-finite amount, a glob that is not
    /// one.
    pub fn validate(&self) -> Result<(), String> {
        for (name, v) in [("max-cost", self.max_cost), ("max-context", self.max_context)] {
            if let Some(v) = v
                && !(v.is_finite() && v >= 0.0)
            {
                return Err(format!("{name} must be a number of at least 0, not {v}"));
            }
        }
        super::paths::Allowed::new(&self.paths).map(drop)
    }

    /// Whether any budget or rule is set.
    pub fn is_empty(&self) -> bool {
        *self
            == Policy {
                branch: self.branch,
                ..Policy::default()
            }
    }

    /// The tool-error budget: `no-tool-errors` is a budget of 0.
    pub fn tool_error_budget(&self) -> Option<u64> {
        match (self.no_tool_errors, self.max_tool_errors) {
            (true, _) => Some(0),
            (false, n) => n,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_file_uses_the_options_names() {
        let p = Policy::from_toml(
            "max-cost = 2\nmax-context = 90.5\npaths = [\"src/**\"]\nno-secrets = true\nforbid-tool = [\"bash\"]\n",
        )
        .unwrap();
        assert_eq!(p.max_cost, Some(2.0));
        assert_eq!(p.max_context, Some(90.5));
        assert_eq!(p.paths, ["src/**"]);
        assert!(p.no_secrets && !p.valid);
        assert_eq!(p.forbid_tool, ["bash"]);
    }

    #[test]
    fn unknown_keys_and_impossible_limits_are_errors() {
        let e = Policy::from_toml("max-costs = 2\n").unwrap_err();
        assert!(e.contains("max-costs"), "{e}");
        assert!(Policy::from_toml("max-cost = -1\n").unwrap_err().contains("at least 0"));
        assert!(Policy::from_toml("max-tokens = 1.5\n").is_err());
        assert!(Policy::default().is_empty());
        assert!(
            Policy {
                branch: true,
                ..Policy::default()
            }
            .is_empty()
        );
    }

    #[test]
    fn the_command_line_replaces_what_the_file_sets() {
        let file = Policy::from_toml("max-cost = 2\nmax-turns = 5\npaths = [\"a\"]\n").unwrap();
        let cli = Policy {
            max_cost: Some(1.0),
            paths: vec!["b".into()],
            ..Policy::default()
        };
        let p = file.overlay(cli);
        assert_eq!((p.max_cost, p.max_turns), (Some(1.0), Some(5)));
        assert_eq!(p.paths, ["b"]);
        assert_eq!(p.tool_error_budget(), None);
    }
}
