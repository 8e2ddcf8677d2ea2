//! Summaries from real LLM providers over HTTP: Anthropic's Messages API, OpenAI's chat
//! completions (and every OpenAI-compatible endpoint), and Google's Gemini API. Keys and
//! models come from Pi's own environment variables and config files.
//!
//! The compaction code only sees [`Summarizer`]: one request (a system prompt and one user
//! prompt) in, text and usage out. [`resolve`] picks the model (`--model`, Pi's default
//! model settings, or the branch's model) and builds its [`ProviderSummarizer`].

mod api;
pub mod auth;
pub mod client;
pub mod models;
pub mod select;
pub mod settings;
mod wire;

mod anthropic;
mod gemini;
pub mod openai;

pub use auth::{Credential, Secret};
pub use client::{HttpOptions, ProviderSummarizer};
pub use models::{Api, ModelCost, ModelInfo, ModelRegistry};
pub use select::{ModelSource, ResolveRequest, resolve, resolve_in};
pub use settings::{CompactionSettings, Settings};
pub use wire::{clamp_max_tokens, estimate_input_tokens, estimate_tokens, max_tokens_for};

use serde::{Deserialize, Serialize};

/// Token usage and cost of one or more requests, in Pi's shape (`usage` of assistant
/// messages and of compaction and branch-summary entries).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
    pub total_tokens: u64,
    pub cost: Cost,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Cost {
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    pub cache_write: f64,
    pub total: f64,
}

impl Usage {
    /// The sum of two usages (Pi's `combineUsage`).
    pub fn add(&self, other: &Usage) -> Usage {
        Usage {
            input: self.input + other.input,
            output: self.output + other.output,
            cache_read: self.cache_read + other.cache_read,
            cache_write: self.cache_write + other.cache_write,
            total_tokens: self.total_tokens + other.total_tokens,
            cost: Cost {
                input: self.cost.input + other.cost.input,
                output: self.cost.output + other.cost.output,
                cache_read: self.cost.cache_read + other.cost.cache_read,
                cache_write: self.cost.cache_write + other.cost.cache_write,
                total: self.cost.total + other.cost.total,
            },
        }
    }
}

/// One summarization request.
#[derive(Debug, Clone)]
pub struct SummaryRequest {
    pub system: String,
    pub prompt: String,
    /// Reasoning effort to ask for when the model supports it (Pi's thinking level), or None.
    pub thinking_level: Option<String>,
}

/// A provider's answer.
#[derive(Debug, Clone)]
pub struct SummaryResponse {
    pub text: String,
    pub usage: Usage,
}

/// Anything that can produce a summary: an HTTP provider, a local command, a file.
pub trait Summarizer {
    fn summarize(&self, request: &SummaryRequest) -> Result<SummaryResponse, LlmError>;
    /// Where the summary comes from, for messages (`anthropic/claude-sonnet-4-5`, `command`).
    fn describe(&self) -> String;
}

#[derive(Debug, thiserror::Error)]
pub enum LlmError {
    /// The provider answered with an error status (after retries).
    #[error("{provider} answered HTTP {status}: {message}")]
    Status {
        provider: String,
        status: u16,
        message: String,
    },
    /// No connection, a timeout, or a broken body (after retries).
    #[error("{provider}: {message}")]
    Transport { provider: String, message: String },
    /// The answer could not be used (malformed, cut off at the token cap, a tool call…).
    #[error("{provider}: {message}")]
    BadResponse { provider: String, message: String },
    /// Configuration: unknown provider or model, no key, OAuth-only provider…
    #[error("{0}")]
    Config(String),
    /// Cancelled by the caller (the binary cancels on Ctrl-C).
    #[error("interrupted")]
    Interrupted,
}
