//! Models and providers: the built-in table of providers and well-known models, and the
//! custom providers and models of Pi's `models.json`, both read by one reader.
//!
//! The built-in table is data, `builtin-models.json`: the providers pi-session knows without
//! configuration (endpoint and wire format) and the limits, prices (USD per million tokens)
//! and thinking levels of well-known models, as Pi 1.6.0's catalog
//! (`pi-ai/dist/providers/data/*.json`) gives them. OpenRouter models are reached through
//! OpenRouter's chat completions endpoint, Mistral through its OpenAI-compatible one. It has
//! the shape of the user's file and is read like it, once per process: whatever the table
//! says, a user can say in their `models.json` too.
//!
//! `models.json` (in the agent directory) has the shape
//! `{"providers": {"<id>": {baseUrl, api, apiKey, headers, authHeader, compat, models: [{id,
//! api, baseUrl, reasoning, contextWindow, maxTokens, cost: {input, output, cacheRead,
//! cacheWrite, tiers}, thinkingLevelMap, compat}], modelOverrides: {"<id>": {…}}}}}`.
//! A built-in provider id changes that provider (its base URL also applies to its built-in
//! models); any other id adds a provider. `//` comments and trailing commas are allowed, as
//! in Pi.

use super::LlmError;
use super::Usage;
pub use super::api::Api;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// Context window and output limit of a model that neither the built-in table nor
/// `models.json` describes (Pi's defaults for custom models).
pub const DEFAULT_CONTEXT_WINDOW: u64 = 128_000;
pub const DEFAULT_MAX_OUTPUT_TOKENS: u64 = 16_384;

/// Prices in USD per million tokens.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelCost {
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    pub cache_write: f64,
    /// Request-wide pricing tiers: the tier with the highest threshold below the request's
    /// input (input + cache read + cache write) prices the whole request.
    pub tiers: Vec<CostTier>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct CostTier {
    pub input_tokens_above: u64,
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    pub cache_write: f64,
}

/// Per-model overrides of how OpenAI-compatible requests are shaped (Pi's `compat` in
/// `models.json`); `None` means "detect from the provider and base URL" as Pi does.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OpenAiCompat {
    /// `"max_tokens"` or `"max_completion_tokens"`.
    pub max_tokens_field: Option<String>,
    pub supports_developer_role: Option<bool>,
    pub supports_reasoning_effort: Option<bool>,
    pub supports_store: Option<bool>,
    /// `"openai"`, `"openrouter"`, `"deepseek"`, `"zai"`, `"qwen"`, `"together"`…
    pub thinking_format: Option<String>,
}

/// Everything pi-session needs to know about one model.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelInfo {
    pub provider: String,
    pub id: String,
    pub api: Api,
    /// Without a trailing slash.
    pub base_url: String,
    pub context_window: u64,
    pub max_output_tokens: u64,
    /// Whether the model supports thinking / reasoning.
    pub reasoning: bool,
    pub cost: ModelCost,
    /// Pi's `thinkingLevelMap`: the provider value sent for a thinking level, `None` when the
    /// model does not support that level. Levels not listed use their own name (through
    /// `high`; `xhigh` and `max` only when listed).
    pub thinking_levels: Vec<(String, Option<String>)>,
    /// Anthropic models that only accept adaptive thinking with an effort
    /// (Pi's `compat.forceAdaptiveThinking`).
    pub adaptive_thinking: bool,
    pub compat: OpenAiCompat,
}

/// Pi's thinking levels, weakest first.
pub const THINKING_LEVELS: [&str; 7] = ["off", "minimal", "low", "medium", "high", "xhigh", "max"];

impl ModelInfo {
    /// `provider/id`.
    pub fn spec(&self) -> String {
        format!("{}/{}", self.provider, self.id)
    }

    /// A model of `provider` that no table describes: Pi's defaults, no reasoning, free.
    pub fn unknown(provider: &str, id: &str, api: Api, base_url: &str) -> ModelInfo {
        ModelInfo {
            provider: provider.to_string(),
            id: id.to_string(),
            api,
            base_url: trim_base_url(base_url),
            context_window: DEFAULT_CONTEXT_WINDOW,
            max_output_tokens: DEFAULT_MAX_OUTPUT_TOKENS,
            reasoning: false,
            cost: ModelCost::default(),
            thinking_levels: Vec::new(),
            adaptive_thinking: false,
            compat: OpenAiCompat::default(),
        }
    }

    fn mapped_level(&self, level: &str) -> Option<&Option<String>> {
        self.thinking_levels.iter().find(|(l, _)| l == level).map(|(_, v)| v)
    }

    /// The provider value for a (supported) thinking level: the mapped string, else the
    /// level's own name.
    pub fn thinking_value(&self, level: &str) -> String {
        match self.mapped_level(level) {
            Some(Some(v)) => v.clone(),
            _ => level.to_string(),
        }
    }

    /// Whether the model explicitly marks `level` unsupported (a `null` in the map).
    pub fn level_marked_unsupported(&self, level: &str) -> bool {
        matches!(self.mapped_level(level), Some(None))
    }

    /// The thinking levels the model supports (Pi's `getSupportedThinkingLevels`).
    pub fn supported_thinking_levels(&self) -> Vec<&'static str> {
        if !self.reasoning {
            return vec!["off"];
        }
        THINKING_LEVELS
            .iter()
            .copied()
            .filter(|level| match self.mapped_level(level) {
                Some(None) => false,
                Some(Some(_)) => true,
                None => *level != "xhigh" && *level != "max",
            })
            .collect()
    }

    /// The nearest supported level to `level`, looking upward first (Pi's
    /// `clampThinkingLevel`).
    pub fn clamp_thinking_level(&self, level: &str) -> &'static str {
        let available = self.supported_thinking_levels();
        if let Some(l) = available.iter().find(|l| **l == level) {
            return l;
        }
        let first = available.first().copied().unwrap_or("off");
        let Some(requested) = THINKING_LEVELS.iter().position(|l| *l == level) else {
            return first;
        };
        THINKING_LEVELS[requested..]
            .iter()
            .chain(THINKING_LEVELS[..requested].iter().rev())
            .find(|l| available.contains(l))
            .copied()
            .unwrap_or(first)
    }

    /// Fills in the cost of `usage` from the model's prices (Pi's `calculateCost`) and its
    /// total tokens.
    pub fn apply_cost(&self, usage: &mut Usage) {
        let input_tokens = usage.input + usage.cache_read + usage.cache_write;
        let (mut rates, mut threshold) = (
            [
                self.cost.input,
                self.cost.output,
                self.cost.cache_read,
                self.cost.cache_write,
            ],
            None::<u64>,
        );
        for tier in &self.cost.tiers {
            if input_tokens > tier.input_tokens_above && threshold.is_none_or(|t| tier.input_tokens_above > t) {
                rates = [tier.input, tier.output, tier.cache_read, tier.cache_write];
                threshold = Some(tier.input_tokens_above);
            }
        }
        let per = |rate: f64, tokens: u64| rate / 1_000_000.0 * tokens as f64;
        usage.cost.input = per(rates[0], usage.input);
        usage.cost.output = per(rates[1], usage.output);
        usage.cost.cache_read = per(rates[2], usage.cache_read);
        usage.cost.cache_write = per(rates[3], usage.cache_write);
        usage.cost.total = usage.cost.input + usage.cost.output + usage.cost.cache_read + usage.cost.cache_write;
    }
}

/// A provider pi-session knows without `models.json` (a provider of the built-in table).
#[derive(Debug, Clone)]
pub struct BuiltinProvider {
    pub id: String,
    pub api: Api,
    pub base_url: String,
    /// Whether requests need a key (local servers do not).
    pub needs_key: bool,
}

/// Pi providers that only sign in with OAuth (a subscription login).
pub const OAUTH_ONLY_PROVIDERS: &[&str] = &["openai-codex", "github-copilot"];

/// Pi providers that need cloud credentials or endpoints pi-session does not handle.
pub const UNSUPPORTED_PROVIDERS: &[&str] = &[
    "amazon-bedrock",
    "azure",
    "google-vertex",
    "cloudflare-workers-ai",
    "cloudflare-ai-gateway",
];

/// The built-in providers and models, in the file's order.
struct BuiltinTable {
    providers: Vec<BuiltinProvider>,
    models: Vec<ModelInfo>,
}

/// The parsed built-in table; the file is part of the binary, so a fault in it is a bug that
/// every test run shows.
fn builtin_table() -> &'static BuiltinTable {
    static TABLE: OnceLock<BuiltinTable> = OnceLock::new();
    fn bad(msg: &str) -> ! {
        panic!("src/llm/builtin-models.json: {msg}")
    }
    TABLE.get_or_init(|| {
        let mut table = BuiltinTable {
            providers: Vec::new(),
            models: Vec::new(),
        };
        for (id, config) in parse_providers(include_str!("builtin-models.json")).unwrap_or_else(|msg| bad(&msg)) {
            let base_url = config
                .base_url
                .clone()
                .unwrap_or_else(|| bad(&format!("{id}: no baseUrl")));
            let api = config.api.as_deref().and_then(Api::from_pi_name);
            let api = api.unwrap_or_else(|| bad(&format!("{id}: no known api")));
            table
                .models
                .extend(config.defined_models(&id).unwrap_or_else(|msg| bad(&msg)));
            table.providers.push(BuiltinProvider {
                needs_key: !is_local(&base_url),
                id,
                api,
                base_url,
            });
        }
        table
    })
}

/// Whether an endpoint is on this machine (a local server such as Ollama's takes no key).
fn is_local(base_url: &str) -> bool {
    let rest = base_url.split_once("://").map_or(base_url, |(_, rest)| rest);
    let host = rest.split(['/', ':']).next().unwrap_or_default();
    matches!(host, "localhost" | "127.0.0.1")
}

/// The built-in providers and their default endpoints, in the table's order.
pub fn builtin_providers() -> &'static [BuiltinProvider] {
    &builtin_table().providers
}

pub fn builtin_provider(id: &str) -> Option<&'static BuiltinProvider> {
    builtin_providers().iter().find(|p| p.id == id)
}

/// A model of the built-in table.
pub fn builtin_model(provider: &str, id: &str) -> Option<ModelInfo> {
    builtin_table()
        .models
        .iter()
        .find(|m| m.provider == provider && m.id == id)
        .cloned()
}

pub(crate) fn trim_base_url(url: &str) -> String {
    url.trim().trim_end_matches('/').to_string()
}

/// One provider of `models.json`.
#[derive(Debug, Clone, Default)]
pub struct ProviderConfig {
    pub base_url: Option<String>,
    /// Pi's API name, as written.
    pub api: Option<String>,
    /// The raw `apiKey` value: a literal, `$NAME` / `${NAME}` interpolation, or `!command`.
    /// Resolve it with [`super::auth`], never print it.
    pub api_key: Option<String>,
    /// Raw header values, resolved like `apiKey`.
    pub headers: Vec<(String, String)>,
    /// Send the resolved key as `Authorization: Bearer`.
    pub auth_header: bool,
    compat: Map<String, Value>,
    models: Vec<Map<String, Value>>,
    model_overrides: Map<String, Value>,
}

impl ProviderConfig {
    /// The model that `def` (one of this provider's `models`) defines: its own `api` and
    /// `baseUrl`, else the provider's, else the fallbacks; limits, prices and thinking levels
    /// from the definition, on top of Pi's defaults for custom models.
    fn define(
        &self,
        provider: &str,
        def: &Map<String, Value>,
        fallback_api: Option<Api>,
        fallback_url: Option<&str>,
    ) -> Result<ModelInfo, String> {
        let id = def.get("id").and_then(Value::as_str).unwrap_or_default();
        let api_name = def
            .get("api")
            .and_then(Value::as_str)
            .map(str::to_string)
            .or_else(|| self.api.clone());
        let api = match api_name {
            Some(name) => Api::from_pi_name(&name).ok_or_else(|| unsupported_api(&name))?,
            None => fallback_api
                .ok_or_else(|| format!("model {id}: no \"api\" specified; set it at provider or model level"))?,
        };
        let base_url = def
            .get("baseUrl")
            .and_then(Value::as_str)
            .or(self.base_url.as_deref())
            .or(fallback_url)
            .ok_or_else(|| "\"baseUrl\" is required when defining custom models".to_string())?;
        let mut info = ModelInfo::unknown(provider, id, api, base_url);
        apply_model_fields(&mut info, def, true).map_err(|m| format!("model {id}: {m}"))?;
        apply_compat(&mut info, &self.compat);
        if let Some(c) = def.get("compat").and_then(Value::as_object) {
            apply_compat(&mut info, c);
        }
        Ok(info)
    }

    /// Every model this provider defines, in order.
    fn defined_models(&self, provider: &str) -> Result<Vec<ModelInfo>, String> {
        self.models
            .iter()
            .map(|def| self.define(provider, def, None, None))
            .collect()
    }
}

/// The built-in table combined with the agent directory's `models.json`.
#[derive(Debug, Clone, Default)]
pub struct ModelRegistry {
    providers: BTreeMap<String, ProviderConfig>,
    path: Option<PathBuf>,
}

impl ModelRegistry {
    /// Reads `<agent_dir>/models.json`; a missing file is an empty configuration.
    pub fn load(agent_dir: &Path) -> Result<ModelRegistry, LlmError> {
        let path = agent_dir.join("models.json");
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(ModelRegistry::default()),
            Err(e) => return Err(LlmError::Config(format!("cannot read {}: {e}", path.display()))),
        };
        let mut reg = ModelRegistry::parse(&text)
            .map_err(|msg| LlmError::Config(format!("invalid models.json ({}): {msg}", path.display())))?;
        reg.path = Some(path);
        Ok(reg)
    }

    /// Parses the text of a `models.json`.
    pub fn parse(text: &str) -> Result<ModelRegistry, String> {
        Ok(ModelRegistry {
            providers: parse_providers(text)?.into_iter().collect(),
            path: None,
        })
    }

    /// The `models.json` entry of a provider.
    pub fn provider_config(&self, provider: &str) -> Option<&ProviderConfig> {
        self.providers.get(provider)
    }

    /// Whether `provider` is built in or defined in `models.json`.
    pub fn is_known_provider(&self, provider: &str) -> bool {
        builtin_provider(provider).is_some() || self.providers.contains_key(provider)
    }

    fn where_(&self) -> String {
        self.path
            .as_ref()
            .map(|p| p.display().to_string())
            .unwrap_or_else(|| "models.json".into())
    }

    /// Looks a model up: a `models.json` definition, else the built-in table (with the
    /// provider's `models.json` base URL and `modelOverrides`), else Pi's defaults for a model
    /// of a known provider. `Ok(None)` when the provider is unknown.
    pub fn find(&self, provider: &str, id: &str) -> Result<Option<ModelInfo>, LlmError> {
        let config = self.providers.get(provider);
        let builtin_prov = builtin_provider(provider);
        let builtin = builtin_model(provider, id);
        let bad = |msg: String| LlmError::Config(format!("{}: provider {provider}: {msg}", self.where_()));

        if let Some(def) = config.and_then(|c| {
            c.models
                .iter()
                .find(|m| m.get("id").and_then(Value::as_str) == Some(id))
        }) {
            let config = config.expect("definition comes from config");
            let fallback_api = builtin.as_ref().map(|m| m.api).or(builtin_prov.map(|p| p.api));
            let fallback_url = builtin_prov.map(|p| p.base_url.as_str());
            let info = config.define(provider, def, fallback_api, fallback_url).map_err(bad)?;
            return Ok(Some(info));
        }

        if let Some(mut info) = builtin {
            if let Some(config) = config {
                if let Some(url) = &config.base_url {
                    info.base_url = trim_base_url(url);
                }
                if let Some(o) = config.model_overrides.get(id).and_then(Value::as_object) {
                    apply_model_fields(&mut info, o, false).map_err(|m| bad(format!("modelOverrides.{id}: {m}")))?;
                    if let Some(c) = o.get("compat").and_then(Value::as_object) {
                        apply_compat(&mut info, c);
                    }
                }
                apply_compat(&mut info, &config.compat);
            }
            return Ok(Some(info));
        }

        if let Some(config) = config {
            let api = match &config.api {
                Some(name) => Api::from_pi_name(name).ok_or_else(|| bad(unsupported_api(name)))?,
                None => match builtin_prov {
                    Some(p) => p.api,
                    None => {
                        return Err(bad(format!(
                            "model {id} is not defined and the provider has no \"api\""
                        )));
                    }
                },
            };
            let base_url = config
                .base_url
                .clone()
                .or_else(|| builtin_prov.map(|p| p.base_url.to_string()))
                .ok_or_else(|| bad("no \"baseUrl\"".into()))?;
            let mut info = ModelInfo::unknown(provider, id, api, &base_url);
            apply_compat(&mut info, &config.compat);
            return Ok(Some(info));
        }

        Ok(builtin_prov.map(|p| ModelInfo::unknown(provider, id, p.api, &p.base_url)))
    }

    /// Providers whose built-in or `models.json` models have this exact id.
    pub fn providers_with_model(&self, id: &str) -> Vec<String> {
        let mut found: Vec<String> = builtin_table()
            .models
            .iter()
            .filter(|m| m.id == id)
            .map(|m| m.provider.to_string())
            .collect();
        for (p, c) in &self.providers {
            if c.models.iter().any(|m| m.get("id").and_then(Value::as_str) == Some(id)) && !found.contains(p) {
                found.push(p.clone());
            }
        }
        found
    }
}

/// The providers of a `models.json` text, in the file's order (the user's file and the
/// built-in table are read by this one reader).
fn parse_providers(text: &str) -> Result<Vec<(String, ProviderConfig)>, String> {
    let cleaned = strip_json_comments(text.strip_prefix('\u{feff}').unwrap_or(text));
    let root: Value = serde_json::from_str(&cleaned).map_err(|e| e.to_string())?;
    let providers = root
        .get("providers")
        .and_then(Value::as_object)
        .ok_or_else(|| "expected an object with \"providers\"".to_string())?;
    let mut out = Vec::with_capacity(providers.len());
    for (id, p) in providers {
        let p = p
            .as_object()
            .ok_or_else(|| format!("providers.{id}: expected an object"))?;
        let string = |key: &str| -> Result<Option<String>, String> {
            match p.get(key) {
                None => Ok(None),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(_) => Err(format!("providers.{id}.{key}: expected a string")),
            }
        };
        let headers = match p.get("headers") {
            None => Vec::new(),
            Some(Value::Object(h)) => h
                .iter()
                .map(|(k, v)| match v {
                    Value::String(s) => Ok((k.clone(), s.clone())),
                    _ => Err(format!("providers.{id}.headers.{k}: expected a string")),
                })
                .collect::<Result<_, _>>()?,
            Some(_) => return Err(format!("providers.{id}.headers: expected an object")),
        };
        let models = match p.get("models") {
            None => Vec::new(),
            Some(Value::Array(ms)) => ms
                .iter()
                .enumerate()
                .map(|(i, m)| match m.as_object() {
                    Some(o) if o.get("id").and_then(Value::as_str).is_some_and(|s| !s.is_empty()) => Ok(o.clone()),
                    _ => Err(format!("providers.{id}.models[{i}]: expected an object with an \"id\"")),
                })
                .collect::<Result<_, _>>()?,
            Some(_) => return Err(format!("providers.{id}.models: expected an array")),
        };
        out.push((
            id.clone(),
            ProviderConfig {
                base_url: string("baseUrl")?,
                api: string("api")?,
                api_key: string("apiKey")?,
                headers,
                auth_header: p.get("authHeader").and_then(Value::as_bool).unwrap_or(false),
                compat: p.get("compat").and_then(Value::as_object).cloned().unwrap_or_default(),
                models,
                model_overrides: p
                    .get("modelOverrides")
                    .and_then(Value::as_object)
                    .cloned()
                    .unwrap_or_default(),
            },
        ));
    }
    Ok(out)
}

fn unsupported_api(name: &str) -> String {
    format!(
        "API \"{name}\" is not supported by pi-session (supported: anthropic-messages, openai-completions, \
         openai-responses as chat completions, google-generative-ai)"
    )
}

fn apply_model_fields(info: &mut ModelInfo, o: &Map<String, Value>, definition: bool) -> Result<(), String> {
    let positive = |key: &str| -> Result<Option<u64>, String> {
        match o.get(key) {
            None => Ok(None),
            Some(v) => match v.as_f64() {
                Some(n) if n > 0.0 && n.is_finite() => Ok(Some(n as u64)),
                _ => Err(format!("invalid {key}")),
            },
        }
    };
    if let Some(n) = positive("contextWindow")? {
        info.context_window = n;
    }
    if let Some(n) = positive("maxTokens")? {
        info.max_output_tokens = n;
    }
    if let Some(b) = o.get("reasoning").and_then(Value::as_bool) {
        info.reasoning = b;
    }
    if let Some(c) = o.get("cost").and_then(Value::as_object) {
        let num = |k: &str| c.get(k).and_then(Value::as_f64);
        if definition {
            info.cost = ModelCost::default();
        }
        info.cost.input = num("input").unwrap_or(info.cost.input);
        info.cost.output = num("output").unwrap_or(info.cost.output);
        info.cost.cache_read = num("cacheRead").unwrap_or(info.cost.cache_read);
        info.cost.cache_write = num("cacheWrite").unwrap_or(info.cost.cache_write);
        if let Some(tiers) = c.get("tiers").and_then(Value::as_array) {
            info.cost.tiers = tiers
                .iter()
                .filter_map(Value::as_object)
                .map(|t| {
                    let n = |k: &str| t.get(k).and_then(Value::as_f64).unwrap_or(0.0);
                    CostTier {
                        input_tokens_above: n("inputTokensAbove") as u64,
                        input: n("input"),
                        output: n("output"),
                        cache_read: n("cacheRead"),
                        cache_write: n("cacheWrite"),
                    }
                })
                .collect();
        }
    }
    if let Some(map) = o.get("thinkingLevelMap").and_then(Value::as_object) {
        if definition {
            info.thinking_levels.clear();
        }
        for (level, v) in map {
            let value = v.as_str().map(str::to_string);
            match info.thinking_levels.iter_mut().find(|(l, _)| l == level) {
                Some(entry) => entry.1 = value,
                None => info.thinking_levels.push((level.clone(), value)),
            }
        }
    }
    Ok(())
}

fn apply_compat(info: &mut ModelInfo, c: &Map<String, Value>) {
    let s = |k: &str| c.get(k).and_then(Value::as_str).map(str::to_string);
    let b = |k: &str| c.get(k).and_then(Value::as_bool);
    if let Some(v) = s("maxTokensField") {
        info.compat.max_tokens_field = Some(v);
    }
    if let Some(v) = b("supportsDeveloperRole") {
        info.compat.supports_developer_role = Some(v);
    }
    if let Some(v) = b("supportsReasoningEffort") {
        info.compat.supports_reasoning_effort = Some(v);
    }
    if let Some(v) = b("supportsStore") {
        info.compat.supports_store = Some(v);
    }
    if let Some(v) = s("thinkingFormat") {
        info.compat.thinking_format = Some(v);
    }
    if let Some(v) = b("forceAdaptiveThinking") {
        info.adaptive_thinking = v;
    }
}

/// Removes `//` line comments and trailing commas outside string literals (what Pi accepts in
/// its JSON configuration files).
pub fn strip_json_comments(input: &str) -> String {
    fn pass(input: &str, on_outside: &mut dyn FnMut(&[char], usize, &mut String) -> usize) -> String {
        let chars: Vec<char> = input.chars().collect();
        let mut out = String::with_capacity(input.len());
        let mut i = 0;
        while i < chars.len() {
            if chars[i] == '"' {
                out.push('"');
                i += 1;
                while i < chars.len() {
                    out.push(chars[i]);
                    if chars[i] == '\\' && i + 1 < chars.len() {
                        out.push(chars[i + 1]);
                        i += 2;
                        continue;
                    }
                    i += 1;
                    if chars[i - 1] == '"' {
                        break;
                    }
                }
            } else {
                i = on_outside(&chars, i, &mut out);
            }
        }
        out
    }
    let without_comments = pass(input, &mut |chars, i, out| {
        if chars[i] == '/' && chars.get(i + 1) == Some(&'/') {
            let mut j = i;
            while j < chars.len() && chars[j] != '\n' {
                j += 1;
            }
            j
        } else {
            out.push(chars[i]);
            i + 1
        }
    });
    pass(&without_comments, &mut |chars, i, out| {
        if chars[i] == ',' {
            let mut j = i + 1;
            while j < chars.len() && chars[j].is_whitespace() {
                j += 1;
            }
            if matches!(chars.get(j), Some('}') | Some(']')) {
                return i + 1;
            }
        }
        out.push(chars[i]);
        i + 1
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_and_trailing_commas() {
        let text = "{\n // c\n \"a\": \"x // not a comment\", \"b\": [1, 2,],\n}";
        let v: Value = serde_json::from_str(&strip_json_comments(text)).unwrap();
        assert_eq!(v["a"], "x // not a comment");
        assert_eq!(v["b"], serde_json::json!([1, 2]));
    }

    #[test]
    fn the_builtin_table_loads() {
        let t = builtin_table();
        assert_eq!((t.providers.len(), t.models.len()), (18, 51));
        let needs_key = |id: &str| builtin_provider(id).map(|p| p.needs_key);
        assert_eq!((needs_key("anthropic"), needs_key("ollama")), (Some(true), Some(false)));
        assert!(t.models.iter().all(|m| builtin_provider(&m.provider).is_some()));
    }

    #[test]
    fn clamp_levels_like_pi() {
        let m = builtin_model("openai", "gpt-5.1").unwrap();
        // gpt-5.1 maps minimal to null: minimal clamps up to low.
        assert_eq!(m.clamp_thinking_level("minimal"), "low");
        assert_eq!(m.clamp_thinking_level("xhigh"), "high");
        assert_eq!(m.clamp_thinking_level("off"), "off");
        let plain = builtin_model("openai", "gpt-4o").unwrap();
        assert_eq!(plain.clamp_thinking_level("high"), "off");
    }

    #[test]
    fn tiered_cost() {
        let m = builtin_model("openai", "gpt-5.4").unwrap();
        let mut u = Usage {
            input: 300_000,
            output: 1_000_000,
            ..Usage::default()
        };
        m.apply_cost(&mut u);
        assert!((u.cost.input - 1.5).abs() < 1e-9, "{:?}", u.cost);
        assert!((u.cost.output - 22.5).abs() < 1e-9);
    }

    #[test]
    fn custom_provider_defaults_and_overrides() {
        let reg = ModelRegistry::parse(
            r#"{"providers": {
                "local": {"baseUrl": "http://h:1/v1/", "api": "openai-completions", "apiKey": "x",
                          "models": [{"id": "m", "contextWindow": 32000, "cost": {"input": 1, "output": 2, "cacheRead": 0, "cacheWrite": 0}}]},
                "anthropic": {"baseUrl": "https://proxy/", "modelOverrides": {"claude-sonnet-4-5": {"maxTokens": 1000}}}
            }}"#,
        )
        .unwrap();
        let m = reg.find("local", "m").unwrap().unwrap();
        assert_eq!(
            (m.api, m.base_url.as_str(), m.context_window, m.max_output_tokens),
            (Api::OpenAiChat, "http://h:1/v1", 32000, 16384)
        );
        assert_eq!(m.cost.output, 2.0);
        let other = reg.find("local", "other").unwrap().unwrap();
        assert_eq!(other.context_window, DEFAULT_CONTEXT_WINDOW);
        let s = reg.find("anthropic", "claude-sonnet-4-5").unwrap().unwrap();
        assert_eq!(
            (s.base_url.as_str(), s.max_output_tokens, s.context_window),
            ("https://proxy", 1000, 200000)
        );
        assert!(reg.find("nobody", "x").unwrap().is_none());
    }
}
