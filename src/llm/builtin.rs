//! The built-in model table, kept as data: `builtin-models.json` lists the providers
//! pi-session knows without configuration (endpoint and wire format) and the limits, prices
//! (USD per million tokens) and thinking levels of well-known models, as Pi 1.6.0's catalog
//! (`pi-ai/dist/providers/data/*.json`) gives them; OpenRouter models are reached through
//! OpenRouter's chat completions endpoint, Mistral through its OpenAI-compatible one.
//!
//! The file has the shape of the user's own `models.json` and is read by the same reader
//! ([`super::models::parse_providers`]), once per process: whatever the table says, a user can
//! say in their file too.

use super::models::{Api, BuiltinProvider, ModelInfo, parse_providers};
use std::sync::OnceLock;

/// The built-in providers and models, in the file's order.
pub(crate) struct Table {
    pub providers: Vec<BuiltinProvider>,
    pub models: Vec<ModelInfo>,
}

/// The parsed table; the file is part of the binary, so a fault in it is a bug that every
/// test run would show.
pub(crate) fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = Table {
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

fn bad(msg: &str) -> ! {
    panic!("src/llm/builtin-models.json: {msg}")
}

/// Whether an endpoint is on this machine (a local server such as Ollama's takes no key).
fn is_local(base_url: &str) -> bool {
    let rest = base_url.split_once("://").map_or(base_url, |(_, rest)| rest);
    let host = rest.split(['/', ':']).next().unwrap_or_default();
    matches!(host, "localhost" | "127.0.0.1")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_loads() {
        let t = table();
        assert_eq!((t.providers.len(), t.models.len()), (18, 51));
        let needs_key = |id: &str| t.providers.iter().find(|p| p.id == id).map(|p| p.needs_key);
        assert_eq!((needs_key("anthropic"), needs_key("ollama")), (Some(true), Some(false)));
        assert!(t.models.iter().all(|m| t.providers.iter().any(|p| p.id == m.provider)));
    }
}
