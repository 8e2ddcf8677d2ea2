//! The user's own credentials, matched verbatim wherever a session holds them: the values
//! of the environment variables Pi reads keys from (and any other `*_API_KEY`, `*_TOKEN`,
//! `*_SECRET`), and the keys and tokens stored in Pi's `auth.json`. Values are only ever
//! compared, never shown: a finding names the variable or the `auth.json` entry.

use std::path::Path;

/// Values shorter than this are not looked for: too many would match by chance.
const SHORTEST: usize = 8;

/// Whether a variable of this name holds a credential.
fn is_credential_name(name: &str) -> bool {
    let builtin = crate::llm::models::builtin_providers()
        .iter()
        .any(|p| crate::llm::auth::provider_env_vars(&p.id).contains(&name));
    builtin
        || ["_API_KEY", "_TOKEN", "_SECRET", "_ACCESS_KEY", "_PASSWORD"]
            .iter()
            .any(|suffix| name.ends_with(suffix))
}

/// `(label, value)` pairs: the label is what a finding is reported under (`env:NAME`,
/// `auth.json:provider`), the value what is looked for.
pub fn own_keys(agent_dir: &Path, env: impl IntoIterator<Item = (String, String)>) -> Vec<(String, String)> {
    let mut keys: Vec<(String, String)> = env
        .into_iter()
        .filter(|(name, value)| is_credential_name(name) && value.trim().len() >= SHORTEST)
        .map(|(name, value)| (format!("env:{name}"), value.trim().to_owned()))
        .collect();
    keys.extend(auth_json_keys(agent_dir));
    keys.sort();
    // One label per value.
    let mut seen = rustc_hash::FxHashSet::default();
    keys.retain(|(_, value)| seen.insert(value.clone()));
    keys
}

/// Literal keys and OAuth tokens in `auth.json` (a `$VAR` or `!command` key is not a value:
/// the variable is looked for through the environment, and commands are not run).
fn auth_json_keys(agent_dir: &Path) -> Vec<(String, String)> {
    let Ok(text) = std::fs::read_to_string(agent_dir.join("auth.json")) else {
        return Vec::new();
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    let Ok(serde_json::Value::Object(root)) = serde_json::from_str::<serde_json::Value>(text) else {
        return Vec::new();
    };
    let mut keys = Vec::new();
    for (provider, entry) in &root {
        for field in ["key", "access", "refresh", "token"] {
            if let Some(value) = entry.get(field).and_then(|v| v.as_str())
                && value.len() >= SHORTEST
                && !value.starts_with('$')
                && !value.starts_with('!')
            {
                keys.push((format!("auth.json:{provider}"), value.to_owned()));
            }
        }
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_from_the_environment_and_auth_json() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("auth.json"),
            r#"{"anthropic": {"type": "api_key", "key": "literal-key-0123456789"},
                "openai": {"type": "api_key", "key": "$OPENAI_API_KEY"},
                "github-copilot": {"type": "oauth", "access": "access-token-abcdef", "refresh": "short"}}"#,
        )
        .unwrap();
        let env = [
            ("OPENAI_API_KEY", "sk-from-the-environment-1234"),
            ("HF_TOKEN", "hf_value_long_enough"),
            ("ANTHROPIC_API_KEY", "short"),
            ("HOME", "/home/someone/long/enough"),
            ("DUPLICATE_TOKEN", "literal-key-0123456789"),
        ]
        .map(|(a, b)| (a.to_owned(), b.to_owned()));
        let keys = own_keys(dir.path(), env);
        let labels: Vec<&str> = keys.iter().map(|(l, _)| l.as_str()).collect();
        assert_eq!(
            labels,
            [
                "auth.json:anthropic",
                "auth.json:github-copilot",
                "env:HF_TOKEN",
                "env:OPENAI_API_KEY"
            ]
        );
    }
}
