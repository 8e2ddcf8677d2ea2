//! Pi's settings files: the project's `.pi/settings.json` (in the working directory) merged
//! over the global `<agent dir>/settings.json`, objects merging key by key as in Pi's
//! `SettingsManager`. Only the fields pi-session uses are exposed.

use super::LlmError;
use super::models::strip_json_comments;
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

/// Pi's defaults (`settings-defaults.js`).
pub const DEFAULT_RESERVE_TOKENS: u64 = 16_384;
pub const DEFAULT_KEEP_RECENT_TOKENS: u64 = 20_000;
pub const DEFAULT_MAX_RETRIES: u32 = 3;
pub const DEFAULT_RETRY_BASE_DELAY_MS: u64 = 2_000;
pub const DEFAULT_MAX_RETRY_DELAY_MS: u64 = 60_000;

/// Compaction settings of one model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CompactionSettings {
    pub enabled: bool,
    /// `compaction.reserveTokens`: tokens kept free for the summary and the next turn.
    pub reserve_tokens: u64,
    /// `compaction.keepRecentTokens`: recent context kept verbatim after the cut.
    pub keep_recent_tokens: u64,
}

impl Default for CompactionSettings {
    fn default() -> Self {
        CompactionSettings {
            enabled: true,
            reserve_tokens: DEFAULT_RESERVE_TOKENS,
            keep_recent_tokens: DEFAULT_KEEP_RECENT_TOKENS,
        }
    }
}

/// Retry policy (`retry.*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RetrySettings {
    pub enabled: bool,
    pub max_retries: u32,
    pub base_delay_ms: u64,
    /// Longest backoff between attempts (`retry.maxAgentDelayMs`).
    pub max_delay_ms: u64,
    /// Longest server-requested delay (`Retry-After`) honoured; longer fails
    /// (`retry.provider.maxRetryDelayMs`; 0 = no limit).
    pub max_retry_after_ms: u64,
    /// Request timeout (`retry.provider.timeoutMs`).
    pub timeout_ms: Option<u64>,
}

impl Default for RetrySettings {
    fn default() -> Self {
        RetrySettings {
            enabled: true,
            max_retries: DEFAULT_MAX_RETRIES,
            base_delay_ms: DEFAULT_RETRY_BASE_DELAY_MS,
            max_delay_ms: DEFAULT_MAX_RETRY_DELAY_MS,
            max_retry_after_ms: DEFAULT_MAX_RETRY_DELAY_MS,
            timeout_ms: None,
        }
    }
}

/// The effective settings (project over global).
#[derive(Debug, Clone, Default)]
pub struct Settings {
    /// `defaultProvider`.
    pub default_provider: Option<String>,
    /// `defaultModel`.
    pub default_model: Option<String>,
    /// `defaultThinkingLevel`.
    pub default_thinking_level: Option<String>,
    pub retry: RetrySettings,
    /// Files that could not be read or parsed (Pi reports them and goes on without them).
    pub warnings: Vec<String>,
    merged: Map<String, Value>,
}

impl Settings {
    /// Global settings of the agent directory, then the project's in `cwd`.
    pub fn load(cwd: &Path) -> Settings {
        let agent = crate::session::io::locate::agent_dir();
        Settings::load_from(&agent.join("settings.json"), &cwd.join(".pi").join("settings.json"))
    }

    pub fn load_from(global: &Path, project: &Path) -> Settings {
        let mut warnings = Vec::new();
        let mut merged = Map::new();
        for path in [global, project] {
            match read_object(path) {
                Ok(Some(o)) => deep_merge(&mut merged, o),
                Ok(None) => {}
                Err(msg) => warnings.push(msg),
            }
        }
        Settings::from_merged(merged, warnings)
    }

    /// Settings from JSON text (one file).
    pub fn parse(text: &str) -> Result<Settings, String> {
        match serde_json::from_str::<Value>(&strip_json_comments(text)).map_err(|e| e.to_string())? {
            Value::Object(o) => Ok(Settings::from_merged(o, Vec::new())),
            _ => Err("expected an object".into()),
        }
    }

    fn from_merged(merged: Map<String, Value>, warnings: Vec<String>) -> Settings {
        let s = |k: &str| merged.get(k).and_then(Value::as_str).map(str::to_string);
        let retry = merged.get("retry").and_then(Value::as_object);
        let provider = retry.and_then(|r| r.get("provider")).and_then(Value::as_object);
        let num = |o: Option<&Map<String, Value>>, k: &str| o.and_then(|o| o.get(k)).and_then(Value::as_u64);
        let defaults = RetrySettings::default();
        let retry = RetrySettings {
            enabled: retry
                .and_then(|r| r.get("enabled"))
                .and_then(Value::as_bool)
                .unwrap_or(true),
            max_retries: num(retry, "maxRetries")
                .map(|n| n.min(100) as u32)
                .unwrap_or(defaults.max_retries),
            base_delay_ms: num(retry, "baseDelayMs").unwrap_or(defaults.base_delay_ms),
            max_delay_ms: num(retry, "maxAgentDelayMs").unwrap_or(defaults.max_delay_ms),
            // Pi's older `retry.maxDelayMs` migrates to `retry.provider.maxRetryDelayMs`.
            max_retry_after_ms: num(provider, "maxRetryDelayMs")
                .or_else(|| num(retry, "maxDelayMs"))
                .unwrap_or(defaults.max_retry_after_ms),
            timeout_ms: num(provider, "timeoutMs"),
        };
        Settings {
            default_provider: s("defaultProvider"),
            default_model: s("defaultModel"),
            default_thinking_level: s("defaultThinkingLevel"),
            retry,
            warnings,
            merged,
        }
    }

    /// Compaction settings for a model (`provider`, `id`): `compaction.modelOverrides
    /// ["provider/id"]`, then `compaction.*`, then Pi's defaults. Invalid values are errors,
    /// as in Pi.
    pub fn compaction(&self, model: Option<(&str, &str)>) -> Result<CompactionSettings, LlmError> {
        let defaults = CompactionSettings::default();
        let compaction = match self.merged.get("compaction") {
            None => return Ok(defaults),
            Some(Value::Object(o)) => o,
            Some(_) => {
                return Err(LlmError::Config(
                    "invalid compaction setting: expected an object".into(),
                ));
            }
        };
        let key = model.map(|(p, id)| format!("{p}/{id}"));
        let entry = match (&key, compaction.get("modelOverrides").and_then(Value::as_object)) {
            (Some(k), Some(o)) => match o.get(k) {
                None => None,
                Some(Value::Object(e)) => Some(e),
                Some(v) => {
                    return Err(LlmError::Config(format!(
                        "invalid compaction.modelOverrides[\"{k}\"] setting: {v}; expected an object"
                    )));
                }
            },
            _ => None,
        };
        let token = |field: &str, default: u64| -> Result<u64, LlmError> {
            let check = |v: &Value, path: String| -> Result<u64, LlmError> {
                v.as_u64().filter(|n| *n < (1u64 << 53)).ok_or_else(|| {
                    LlmError::Config(format!(
                        "invalid {path} setting: {v}; expected a non-negative safe integer"
                    ))
                })
            };
            let ordinary = compaction
                .get(field)
                .map(|v| check(v, format!("compaction.{field}")))
                .transpose()?;
            let over = entry
                .and_then(|e| e.get(field))
                .map(|v| {
                    check(
                        v,
                        format!(
                            "compaction.modelOverrides[\"{}\"].{field}",
                            key.as_deref().unwrap_or_default()
                        ),
                    )
                })
                .transpose()?;
            Ok(over.or(ordinary).unwrap_or(default))
        };
        Ok(CompactionSettings {
            enabled: compaction.get("enabled").and_then(Value::as_bool).unwrap_or(true),
            reserve_tokens: token("reserveTokens", defaults.reserve_tokens)?,
            keep_recent_tokens: token("keepRecentTokens", defaults.keep_recent_tokens)?,
        })
    }

    /// `modelThinkingLevels["provider/id"]`, else `defaultThinkingLevel`.
    pub fn thinking_level(&self, provider: &str, id: &str) -> Option<String> {
        self.merged
            .get("modelThinkingLevels")
            .and_then(|m| m.get(format!("{provider}/{id}")))
            .and_then(Value::as_str)
            .map(str::to_string)
            .or_else(|| self.default_thinking_level.clone())
    }

    /// The merged JSON object.
    pub fn raw(&self) -> &Map<String, Value> {
        &self.merged
    }
}

fn read_object(path: &Path) -> Result<Option<Map<String, Value>>, String> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(format!("cannot read {}: {e}", path.display())),
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(&text);
    if text.trim().is_empty() {
        return Ok(None);
    }
    match serde_json::from_str::<Value>(&strip_json_comments(text)) {
        Ok(Value::Object(o)) => Ok(Some(o)),
        Ok(_) => Err(format!("ignoring {}: expected a JSON object", path.display())),
        Err(e) => Err(format!("ignoring {}: {e}", path.display())),
    }
}

fn deep_merge(base: &mut Map<String, Value>, over: Map<String, Value>) {
    for (k, v) in over {
        match (base.get_mut(&k), v) {
            (Some(Value::Object(b)), Value::Object(o)) => deep_merge(b, o),
            (_, v) => {
                base.insert(k, v);
            }
        }
    }
}

/// The project settings file for a working directory.
pub fn project_settings_path(cwd: &Path) -> PathBuf {
    cwd.join(".pi").join("settings.json")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_over_global() {
        let dir = std::env::temp_dir().join(format!("pis-settings-{}", std::process::id()));
        std::fs::create_dir_all(dir.join("p/.pi")).unwrap();
        std::fs::write(
            dir.join("g.json"),
            r#"{"defaultProvider": "anthropic", "defaultModel": "m1",
                "compaction": {"reserveTokens": 1000, "keepRecentTokens": 5000}}"#,
        )
        .unwrap();
        std::fs::write(
            dir.join("p/.pi/settings.json"),
            r#"{"defaultModel": "m2", "compaction": {"keepRecentTokens": 7000,}}"#,
        )
        .unwrap();
        let s = Settings::load_from(&dir.join("g.json"), &project_settings_path(&dir.join("p")));
        std::fs::remove_dir_all(&dir).unwrap();
        assert_eq!(s.default_provider.as_deref(), Some("anthropic"));
        assert_eq!(s.default_model.as_deref(), Some("m2"));
        let c = s.compaction(None).unwrap();
        assert_eq!((c.reserve_tokens, c.keep_recent_tokens), (1000, 7000));
        assert!(s.warnings.is_empty());
    }

    #[test]
    fn overrides_and_invalid() {
        let s = Settings::parse(
            r#"{"compaction": {"reserveTokens": 100, "modelOverrides": {"a/b": {"reserveTokens": 200}}},
                "retry": {"maxRetries": 5, "provider": {"timeoutMs": 1234}}}"#,
        )
        .unwrap();
        assert_eq!(s.compaction(Some(("a", "b"))).unwrap().reserve_tokens, 200);
        assert_eq!(s.compaction(Some(("a", "c"))).unwrap().reserve_tokens, 100);
        assert_eq!(
            s.compaction(None).unwrap().keep_recent_tokens,
            DEFAULT_KEEP_RECENT_TOKENS
        );
        assert_eq!((s.retry.max_retries, s.retry.timeout_ms), (5, Some(1234)));
        let bad = Settings::parse(r#"{"compaction": {"reserveTokens": -1}}"#).unwrap();
        assert!(bad.compaction(None).is_err());
        assert_eq!(
            Settings::default().compaction(None).unwrap(),
            CompactionSettings::default()
        );
    }
}
