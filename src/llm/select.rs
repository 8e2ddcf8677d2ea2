//! Choosing the model and building its summarizer: `--model PROVIDER/MODEL`, else Pi's
//! `defaultProvider` / `defaultModel`, else the model in effect on the branch; `--base-url`
//! points any provider at another endpoint (an unknown provider name becomes an
//! OpenAI-compatible server keyed by `<PROVIDER>_API_KEY`, or no key for local servers).

use super::LlmError;
use super::auth::{self, find_credential, resolve_config_value};
use super::client::{HttpOptions, ProviderSummarizer};
use super::models::{
    Api, ModelInfo, ModelRegistry, OAUTH_ONLY_PROVIDERS, UNSUPPORTED_PROVIDERS, builtin_provider, trim_base_url,
};
use super::settings::Settings;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Where the model choice came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ModelSource {
    /// `--model`.
    Flag,
    /// Pi's `defaultProvider` / `defaultModel` settings.
    Settings,
    /// The model in effect on the branch.
    Branch,
}

/// Everything [`resolve_in`] needs besides the files of the agent directory.
#[derive(Debug, Clone, Default)]
pub struct ResolveRequest<'a> {
    /// `PROVIDER/MODEL` (or a bare model id known to exactly one provider).
    pub model_spec: Option<&'a str>,
    pub base_url: Option<&'a str>,
    /// `(provider, model id)` in effect on the branch.
    pub branch_model: Option<(&'a str, &'a str)>,
    pub context_window: Option<u64>,
    pub max_output_tokens: Option<u64>,
}

/// Picks the model and builds its summarizer, reading the agent directory
/// (`$PI_CODING_AGENT_DIR` or `~/.pi/agent`: `models.json`, `auth.json`, `settings.json`) and
/// the project's `.pi/settings.json` in the working directory.
pub fn resolve(
    model_spec: Option<&str>,
    base_url: Option<&str>,
    branch_model: Option<(&str, &str)>,
    context_window: Option<u64>,
    max_output_tokens: Option<u64>,
) -> Result<(ModelInfo, ProviderSummarizer), LlmError> {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    let agent_dir = crate::session::io::locate::agent_dir();
    let settings = Settings::load(&cwd);
    let request = ResolveRequest {
        model_spec,
        base_url,
        branch_model,
        context_window,
        max_output_tokens,
    };
    let (summarizer, _) = resolve_in(&agent_dir, &settings, &request)?;
    Ok((summarizer.model().clone(), summarizer))
}

/// [`resolve`] with an explicit agent directory and settings; also says where the model
/// choice came from.
pub fn resolve_in(
    agent_dir: &Path,
    settings: &Settings,
    request: &ResolveRequest<'_>,
) -> Result<(ProviderSummarizer, ModelSource), LlmError> {
    let registry = ModelRegistry::load(agent_dir)?;
    let (provider, id, source) = choose(request, settings, &registry)?;
    let configured = registry.provider_config(&provider);
    if configured.is_none() && UNSUPPORTED_PROVIDERS.contains(&provider.as_str()) && request.base_url.is_none() {
        return Err(LlmError::Config(format!(
            "provider {provider} needs cloud credentials or endpoints that pi-session does not support; \
             use another provider, or --base-url for an OpenAI-compatible endpoint"
        )));
    }
    if OAUTH_ONLY_PROVIDERS.contains(&provider.as_str()) && configured.is_none() {
        // find_credential explains.
        find_credential(&provider, agent_dir, None)?;
    }
    let mut model = match registry.find(&provider, &id)? {
        Some(m) => m,
        None => match request.base_url {
            Some(url) => ModelInfo::unknown(&provider, &id, Api::OpenAiChat, url),
            None => {
                return Err(LlmError::Config(format!(
                    "unknown provider \"{provider}\": it is neither built in nor defined in {}; pass --base-url URL \
                     to use an OpenAI-compatible server",
                    agent_dir.join("models.json").display()
                )));
            }
        },
    };
    if let Some(url) = request.base_url {
        model.base_url = trim_base_url(url);
    }
    if model.base_url.is_empty() {
        return Err(LlmError::Config(format!("provider {provider} has an empty base URL")));
    }
    if let Some(n) = request.context_window {
        model.context_window = n;
    }
    if let Some(n) = request.max_output_tokens {
        model.max_output_tokens = n.max(1);
    }

    let credential = find_credential(&provider, agent_dir, configured)?;
    let at_official_endpoint =
        builtin_provider(&provider).is_some_and(|p| p.needs_key && trim_base_url(&p.base_url) == model.base_url);
    if credential.is_none() && at_official_endpoint {
        let vars = auth::env_vars_for(&provider);
        let var = vars
            .iter()
            .find(|v| !v.starts_with("ANTHROPIC_AUTH") && !v.contains("OAUTH"))
            .unwrap_or(&vars[0]);
        return Err(LlmError::Config(format!(
            "no API key for {provider}: set {var}, or add {{\"type\": \"api_key\", \"key\": …}} for \"{provider}\" to {}",
            agent_dir.join("auth.json").display()
        )));
    }

    let mut headers = Vec::new();
    if let Some(c) = configured {
        for (name, raw) in &c.headers {
            let value = resolve_config_value(raw, &BTreeMap::new()).map_err(|why| {
                LlmError::Config(format!(
                    "cannot resolve header \"{name}\" of provider \"{provider}\" in models.json: {why}"
                ))
            })?;
            headers.push((name.clone(), value));
        }
    }
    let auth_header = configured.is_some_and(|c| c.auth_header);
    let options = HttpOptions::from_settings(&settings.retry);
    let summarizer =
        ProviderSummarizer::new(model, credential.map(|c| c.credential), options)?.with_headers(headers, auth_header);
    Ok((summarizer, source))
}

fn choose(
    request: &ResolveRequest<'_>,
    settings: &Settings,
    registry: &ModelRegistry,
) -> Result<(String, String, ModelSource), LlmError> {
    if let Some(spec) = request.model_spec {
        let (p, id) = parse_spec(spec, registry, request.base_url.is_some())?;
        return Ok((p, id, ModelSource::Flag));
    }
    if let Some(model) = settings.default_model.as_deref().filter(|m| !m.is_empty()) {
        let (p, id) = match settings.default_provider.as_deref().filter(|p| !p.is_empty()) {
            Some(p) => (p.to_string(), model.to_string()),
            None => parse_spec(model, registry, false)?,
        };
        return Ok((p, id, ModelSource::Settings));
    }
    if let Some((p, id)) = request.branch_model {
        return Ok((p.to_string(), id.to_string(), ModelSource::Branch));
    }
    Err(LlmError::Config(
        "no model to summarize with: pass --model PROVIDER/MODEL, or set defaultProvider and defaultModel in Pi's \
         settings.json"
            .into(),
    ))
}

/// Splits `PROVIDER/MODEL`. A bare id (or an id with slashes whose first part is no provider,
/// such as `openai/gpt-oss-120b`) must belong to exactly one provider.
pub fn parse_spec(spec: &str, registry: &ModelRegistry, any_provider: bool) -> Result<(String, String), LlmError> {
    let spec = spec.trim();
    if let Some((p, id)) = spec.split_once('/') {
        let known = registry.is_known_provider(p)
            || OAUTH_ONLY_PROVIDERS.contains(&p)
            || UNSUPPORTED_PROVIDERS.contains(&p)
            || !auth::provider_env_vars(p).is_empty();
        if !p.is_empty() && !id.is_empty() && (known || any_provider) {
            return Ok((p.to_string(), id.to_string()));
        }
    }
    let providers = registry.providers_with_model(spec);
    match providers.as_slice() {
        [one] => Ok((one.clone(), spec.to_string())),
        [] if spec.contains('/') => Err(LlmError::Config(format!(
            "unknown provider in model \"{spec}\": use PROVIDER/MODEL with a built-in provider or one of models.json, \
             or pass --base-url for an OpenAI-compatible server"
        ))),
        [] => Err(LlmError::Config(format!(
            "unknown model \"{spec}\": use PROVIDER/MODEL"
        ))),
        many => Err(LlmError::Config(format!(
            "model \"{spec}\" is offered by several providers ({}): use PROVIDER/MODEL",
            many.join(", ")
        ))),
    }
}
