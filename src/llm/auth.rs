//! API keys, found the way Pi finds them.
//!
//! Order (Pi's `resolveProviderAuth` and `models.json` composition):
//! 1. `auth.json` in the agent directory: an entry `{"type": "api_key", "key": …, "env": {…}}`
//!    for the provider owns it. The key is a literal, `$NAME` / `${NAME}` interpolation of
//!    environment variables (the entry's `env` object first, then the process environment;
//!    `$$` and `$!` escape), or `!command` whose trimmed standard output is the key. A key that
//!    does not resolve (unset variable, failing command, empty output) falls through to the
//!    provider's environment variables, as in Pi. An entry of type `oauth` is a subscription
//!    login, which pi-session cannot use.
//! 2. The provider's `apiKey` in `models.json` (same syntax; an unresolvable value is an error).
//! 3. The provider's environment variables (`ANTHROPIC_API_KEY`, `OPENAI_API_KEY`,
//!    `GEMINI_API_KEY`…); for a provider reached only through `--base-url`, `<PROVIDER>_API_KEY`.
//!
//! Keys live in [`Secret`], whose `Debug` and `Display` print `***`.

use super::LlmError;
use super::models::{OAUTH_ONLY_PROVIDERS, ProviderConfig};
use serde_json::Value;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A credential. Never printed: `Debug` and `Display` show `***`.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(value: impl Into<String>) -> Secret {
        Secret(value.into())
    }

    /// The value, for an HTTP header. Do not format it into messages.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("***")
    }
}

impl std::fmt::Display for Secret {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("***")
    }
}

/// How a request authenticates.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Credential {
    /// An API key, sent the provider's way (`x-api-key`, `Authorization: Bearer`,
    /// `x-goog-api-key`).
    ApiKey(Secret),
    /// A bearer token sent as `Authorization: Bearer` even to Anthropic
    /// (`ANTHROPIC_AUTH_TOKEN`, for gateways).
    BearerToken(Secret),
}

impl Credential {
    pub fn secret(&self) -> &Secret {
        match self {
            Credential::ApiKey(s) | Credential::BearerToken(s) => s,
        }
    }
}

/// A credential and where it came from (for messages; never the value).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedCredential {
    pub credential: Credential,
    /// `auth.json`, `models.json apiKey`, or the environment variable's name.
    pub source: String,
}

/// The environment variables Pi reads a provider's key from, in order (`env-api-keys.js`).
/// For Anthropic, `ANTHROPIC_AUTH_TOKEN` is a bearer token and `ANTHROPIC_OAUTH_TOKEN` an
/// OAuth token.
pub fn provider_env_vars(provider: &str) -> &'static [&'static str] {
    match provider {
        "anthropic" => &["ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY"],
        "github-copilot" => &["COPILOT_GITHUB_TOKEN"],
        "ant-ling" => &["ANT_LING_API_KEY"],
        "qwen-token-plan" => &["QWEN_TOKEN_PLAN_TEAM_API_KEY", "QWEN_TOKEN_PLAN_API_KEY"],
        "qwen-token-plan-cn" => &["QWEN_TOKEN_PLAN_TEAM_CN_API_KEY", "QWEN_TOKEN_PLAN_CN_API_KEY"],
        "qwen-token-plan-individual" => &["QWEN_TOKEN_PLAN_INDIVIDUAL_API_KEY", "QWEN_TOKEN_PLAN_API_KEY"],
        "qwen-token-plan-individual-cn" => &["QWEN_TOKEN_PLAN_INDIVIDUAL_CN_API_KEY", "QWEN_TOKEN_PLAN_CN_API_KEY"],
        "openai" => &["OPENAI_API_KEY"],
        "azure" => &["AZURE_OPENAI_API_KEY"],
        "nvidia" => &["NVIDIA_API_KEY"],
        "deepseek" => &["DEEPSEEK_API_KEY"],
        "google" => &["GEMINI_API_KEY"],
        "google-vertex" => &["GOOGLE_CLOUD_API_KEY"],
        "groq" => &["GROQ_API_KEY"],
        "cerebras" => &["CEREBRAS_API_KEY"],
        "xai" => &["XAI_API_KEY"],
        "typesafe" => &["TYPESAFE_API_KEY"],
        "radius" => &["RADIUS_API_KEY"],
        "openrouter" => &["OPENROUTER_API_KEY"],
        "vercel-ai-gateway" => &["AI_GATEWAY_API_KEY"],
        "zai" => &["ZAI_API_KEY"],
        "zai-coding-cn" => &["ZAI_CODING_CN_API_KEY"],
        "mistral" => &["MISTRAL_API_KEY"],
        "minimax" => &["MINIMAX_API_KEY"],
        "minimax-cn" => &["MINIMAX_CN_API_KEY"],
        "moonshotai" | "moonshotai-cn" => &["MOONSHOT_API_KEY"],
        "huggingface" => &["HF_TOKEN"],
        "fireworks" => &["FIREWORKS_API_KEY"],
        "together" => &["TOGETHER_API_KEY"],
        "baseten" => &["BASETEN_API_KEY"],
        "opencode" | "opencode-go" => &["OPENCODE_API_KEY"],
        "kimi-coding" => &["KIMI_API_KEY"],
        "meta" => &["META_API_KEY"],
        "cloudflare-workers-ai" | "cloudflare-ai-gateway" => &["CLOUDFLARE_API_KEY"],
        "xiaomi" => &["XIAOMI_API_KEY"],
        "xiaomi-token-plan-cn" => &["XIAOMI_TOKEN_PLAN_CN_API_KEY"],
        "xiaomi-token-plan-ams" => &["XIAOMI_TOKEN_PLAN_AMS_API_KEY"],
        "xiaomi-token-plan-sgp" => &["XIAOMI_TOKEN_PLAN_SGP_API_KEY"],
        _ => &[],
    }
}

/// `<PROVIDER>_API_KEY` for a provider Pi does not know: upper case, other characters than
/// letters and digits become `_`.
pub fn generic_env_var(provider: &str) -> String {
    let mut name: String = provider
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    name.push_str("_API_KEY");
    name
}

/// The environment variables to try for `provider`.
pub fn env_vars_for(provider: &str) -> Vec<String> {
    let known = provider_env_vars(provider);
    if known.is_empty() {
        vec![generic_env_var(provider)]
    } else {
        known.iter().map(|s| s.to_string()).collect()
    }
}

fn env_value(name: &str, overrides: &BTreeMap<String, String>) -> Option<String> {
    overrides
        .get(name)
        .filter(|v| !v.is_empty())
        .cloned()
        .or_else(|| std::env::var(name).ok().filter(|v| !v.is_empty()))
}

/// Why a configuration value did not resolve (never containing the value).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unresolved {
    /// `$NAME` references to unset variables.
    MissingEnv(Vec<String>),
    /// `!command` failed: the reason (exit status, timeout, empty output).
    Command(String),
}

impl std::fmt::Display for Unresolved {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Unresolved::MissingEnv(names) if names.len() == 1 => {
                write!(f, "environment variable {} is not set", names[0])
            }
            Unresolved::MissingEnv(names) => write!(f, "environment variables {} are not set", names.join(", ")),
            Unresolved::Command(why) => write!(f, "its shell command {why}"),
        }
    }
}

/// Resolves a configuration value as Pi does (`resolve-config-value.js`): `!command` runs the
/// command through `sh -c` (10 s limit) and takes its trimmed standard output; otherwise
/// `$NAME` and `${NAME}` are replaced by environment variables (`overrides` first), `$$` is a
/// literal `$`, `$!` a literal `!`, and the rest is literal.
pub fn resolve_config_value(raw: &str, overrides: &BTreeMap<String, String>) -> Result<Secret, Unresolved> {
    if let Some(command) = raw.strip_prefix('!') {
        return run_key_command(command).map(Secret);
    }
    let mut out = String::new();
    let mut missing = Vec::new();
    let bytes = raw.as_bytes();
    let mut i = 0;
    let is_start = |b: u8| b.is_ascii_alphabetic() || b == b'_';
    let is_cont = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    while i < raw.len() {
        let Some(off) = raw[i..].find('$') else {
            out.push_str(&raw[i..]);
            break;
        };
        let d = i + off;
        out.push_str(&raw[i..d]);
        match bytes.get(d + 1) {
            Some(b'$') | Some(b'!') => {
                out.push(bytes[d + 1] as char);
                i = d + 2;
            }
            Some(b'{') => match raw[d + 2..].find('}') {
                None => {
                    out.push('$');
                    i = d + 1;
                }
                Some(len) => {
                    let name = &raw[d + 2..d + 2 + len];
                    let valid = name.bytes().next().is_some_and(is_start) && name.bytes().all(is_cont);
                    if valid {
                        match env_value(name, overrides) {
                            Some(v) => out.push_str(&v),
                            None => missing.push(name.to_string()),
                        }
                    } else {
                        out.push_str(&raw[d..d + 3 + len]);
                    }
                    i = d + 3 + len;
                }
            },
            Some(&b) if is_start(b) => {
                let mut j = d + 1;
                while j < raw.len() && is_cont(bytes[j]) {
                    j += 1;
                }
                let name = &raw[d + 1..j];
                match env_value(name, overrides) {
                    Some(v) => out.push_str(&v),
                    None => missing.push(name.to_string()),
                }
                i = j;
            }
            _ => {
                out.push('$');
                i = d + 1;
            }
        }
    }
    if missing.is_empty() {
        Ok(Secret(out))
    } else {
        missing.dedup();
        Err(Unresolved::MissingEnv(missing))
    }
}

/// Runs a key command with `sh -c`, standard input and error closed, for at most 10 s.
fn run_key_command(command: &str) -> Result<String, Unresolved> {
    let mut child = Command::new("sh")
        .arg("-c")
        .arg(command)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| Unresolved::Command(format!("could not start: {}", e.kind())))?;
    let mut stdout = child.stdout.take().expect("piped stdout");
    let reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stdout.read_to_end(&mut buf);
        buf
    });
    let deadline = Instant::now() + Duration::from_secs(10);
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if Instant::now() < deadline => std::thread::sleep(Duration::from_millis(10)),
            Ok(None) => {
                let _ = child.kill();
                let _ = child.wait();
                return Err(Unresolved::Command("timed out after 10 s".into()));
            }
            Err(e) => return Err(Unresolved::Command(format!("could not be waited for: {}", e.kind()))),
        }
    };
    let output = reader.join().unwrap_or_default();
    if !status.success() {
        return Err(Unresolved::Command(match status.code() {
            Some(code) => format!("exited with status {code}"),
            None => "was killed by a signal".into(),
        }));
    }
    let text = String::from_utf8_lossy(&output).trim().to_string();
    if text.is_empty() {
        Err(Unresolved::Command("printed nothing".into()))
    } else {
        Ok(text)
    }
}

/// One entry of `auth.json`.
#[derive(Debug, Clone)]
pub enum StoredCredential {
    /// `type: "api_key"`: the raw key (unresolved) and the entry's `env` overrides.
    ApiKey {
        key: Option<String>,
        env: BTreeMap<String, String>,
    },
    /// `type: "oauth"`: a subscription login.
    OAuth,
}

/// Reads the entry for `provider` from `<agent_dir>/auth.json` (missing file or entry: None).
pub fn read_auth_json(agent_dir: &Path, provider: &str) -> Result<Option<StoredCredential>, LlmError> {
    let path = agent_dir.join("auth.json");
    let text = match std::fs::read_to_string(&path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => {
            return Err(LlmError::Config(format!(
                "cannot read {}: {}",
                path.display(),
                e.kind()
            )));
        }
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    // The parser's message could quote the file's content, which holds keys: say only where.
    let root: Value = serde_json::from_str(text).map_err(|e| {
        LlmError::Config(format!(
            "invalid auth.json ({}): not JSON (line {}, column {})",
            path.display(),
            e.line(),
            e.column()
        ))
    })?;
    let root = root
        .as_object()
        .ok_or_else(|| LlmError::Config(format!("invalid auth.json ({}): expected an object", path.display())))?;
    let Some(entry) = root.get(provider) else {
        return Ok(None);
    };
    let invalid = || LlmError::Config(format!("invalid auth.json credential for provider \"{provider}\""));
    let entry = entry.as_object().ok_or_else(invalid)?;
    match entry.get("type").and_then(Value::as_str) {
        Some("api_key") => {
            let key = match entry.get("key") {
                None => None,
                Some(Value::String(s)) => Some(s.clone()),
                Some(_) => return Err(invalid()),
            };
            let env = match entry.get("env") {
                None => BTreeMap::new(),
                Some(Value::Object(o)) => o
                    .iter()
                    .map(|(k, v)| v.as_str().map(|s| (k.clone(), s.to_string())).ok_or_else(invalid))
                    .collect::<Result<_, _>>()?,
                Some(_) => return Err(invalid()),
            };
            Ok(Some(StoredCredential::ApiKey { key, env }))
        }
        Some("oauth") => Ok(Some(StoredCredential::OAuth)),
        _ => Err(invalid()),
    }
}

fn oauth_error(provider: &str, env_vars: &[String]) -> LlmError {
    let set = match env_vars.first() {
        Some(v) => format!("set {v} or store an api_key entry for \"{provider}\" in auth.json"),
        None => format!("store an api_key entry for \"{provider}\" in auth.json"),
    };
    LlmError::Config(format!(
        "{provider} uses OAuth (a subscription login), which pi-session does not support; {set}"
    ))
}

fn is_anthropic_oauth_token(provider: &str, key: &Secret) -> bool {
    provider == "anthropic" && key.expose().contains("sk-ant-oat")
}

/// Finds the credential for `provider` (see the module documentation for the order).
/// `Ok(None)` when nothing is configured; the caller decides whether a key is required.
pub fn find_credential(
    provider: &str,
    agent_dir: &Path,
    config: Option<&ProviderConfig>,
) -> Result<Option<ResolvedCredential>, LlmError> {
    let env_vars = env_vars_for(provider);
    if OAUTH_ONLY_PROVIDERS.contains(&provider) {
        return Err(LlmError::Config(format!(
            "{provider} only signs in with OAuth (a subscription login), which pi-session does not support; \
             use a provider with an API key"
        )));
    }
    // pi-session cannot use OAuth credentials (subscription logins, `sk-ant-oat` tokens): it
    // skips them and uses an API key configured elsewhere, or says so.
    let mut oauth_seen = false;
    let stored = read_auth_json(agent_dir, provider)?;
    match &stored {
        Some(StoredCredential::ApiKey { key: Some(raw), env }) if !raw.is_empty() => {
            if let Ok(key) = resolve_config_value(raw, env) {
                if is_anthropic_oauth_token(provider, &key) {
                    oauth_seen = true;
                } else if !key.expose().is_empty() {
                    return Ok(Some(ResolvedCredential {
                        credential: Credential::ApiKey(key),
                        source: "auth.json".into(),
                    }));
                }
            }
        }
        Some(StoredCredential::OAuth) => oauth_seen = true,
        _ => {}
    }
    // Pi consults models.json's apiKey only when auth.json has nothing for the provider.
    if stored.is_none()
        && let Some(raw) = config.and_then(|c| c.api_key.as_deref())
    {
        return match resolve_config_value(raw, &BTreeMap::new()) {
            Ok(key) if is_anthropic_oauth_token(provider, &key) => Err(oauth_error(provider, &env_vars)),
            Ok(key) => Ok(Some(ResolvedCredential {
                credential: Credential::ApiKey(key),
                source: "models.json apiKey".into(),
            })),
            Err(why) => Err(LlmError::Config(format!(
                "cannot resolve the apiKey of provider \"{provider}\" in models.json: {why}"
            ))),
        };
    }
    for var in &env_vars {
        let Some(value) = std::env::var(var).ok().filter(|v| !v.is_empty()) else {
            continue;
        };
        let secret = Secret(value);
        if var == "ANTHROPIC_OAUTH_TOKEN" || is_anthropic_oauth_token(provider, &secret) {
            oauth_seen = true;
            continue;
        }
        let credential = if var == "ANTHROPIC_AUTH_TOKEN" {
            Credential::BearerToken(secret)
        } else {
            Credential::ApiKey(secret)
        };
        return Ok(Some(ResolvedCredential {
            credential,
            source: var.clone(),
        }));
    }
    if oauth_seen {
        let key_vars: Vec<String> = env_vars
            .into_iter()
            .filter(|v| v != "ANTHROPIC_AUTH_TOKEN" && v != "ANTHROPIC_OAUTH_TOKEN")
            .collect();
        return Err(oauth_error(provider, &key_vars));
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs.iter().map(|(k, v)| (k.to_string(), v.to_string())).collect()
    }

    #[test]
    fn templates() {
        let e = env(&[("PIS_T_A", "alpha"), ("PIS_T_B", "beta")]);
        let r = |s: &str| resolve_config_value(s, &e).map(|s| s.expose().to_string());
        assert_eq!(r("plain").unwrap(), "plain");
        assert_eq!(r("UPPER_CASE_NAME").unwrap(), "UPPER_CASE_NAME");
        assert_eq!(r("$PIS_T_A").unwrap(), "alpha");
        assert_eq!(r("x-${PIS_T_B}-y").unwrap(), "x-beta-y");
        assert_eq!(r("a$$b$!c").unwrap(), "a$b!c");
        assert_eq!(r("cost $5").unwrap(), "cost $5");
        assert_eq!(r("${not valid}").unwrap(), "${not valid}");
        assert_eq!(
            r("$PIS_T_UNSET_X"),
            Err(Unresolved::MissingEnv(vec!["PIS_T_UNSET_X".into()]))
        );
    }

    #[test]
    fn commands() {
        let e = BTreeMap::new();
        assert_eq!(resolve_config_value("!printf ' k1 \\n'", &e).unwrap().expose(), "k1");
        assert_eq!(
            resolve_config_value("!exit 3", &e),
            Err(Unresolved::Command("exited with status 3".into()))
        );
        assert_eq!(
            resolve_config_value("!true", &e),
            Err(Unresolved::Command("printed nothing".into()))
        );
    }

    #[test]
    fn secret_never_prints() {
        let s = Secret::new("sk-secret");
        assert_eq!(
            format!("{s} {s:?} {:?}", Credential::ApiKey(s.clone())),
            "*** *** ApiKey(***)"
        );
    }

    #[test]
    fn generic_names() {
        assert_eq!(generic_env_var("my-llm.local"), "MY_LLM_LOCAL_API_KEY");
        assert_eq!(env_vars_for("google"), vec!["GEMINI_API_KEY".to_string()]);
    }
}
