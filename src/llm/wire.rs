//! What the provider modules share: token estimates and the output cap (pi-ai's
//! `estimateContextTokens` and `clampMaxTokensToContext`), the request they build, and the
//! helpers that shape their errors. [`super::client`] sends what they build; they never call it.

use super::models::ModelInfo;
use super::{LlmError, SummaryRequest};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use serde_json::Value;
// `clampMaxTokensToContext`).

const CHARS_PER_TOKEN: f64 = 3.5;
const CONTEXT_SAFETY_TOKENS: u64 = 4096;
const CONTEXT_SAFETY_RATIO: f64 = 0.15;
const MIN_OUTPUT_WITH_RATIO_MARGIN: u64 = 32768;

/// Pi's token estimate of a text: its length in UTF-16 code units / 3.5, rounded up.
pub fn estimate_tokens(text: &str) -> u64 {
    (text.encode_utf16().count() as f64 / CHARS_PER_TOKEN).ceil() as u64
}

/// Estimated input tokens of a request: the system prompt and the user prompt, each
/// estimated as its own message.
pub fn estimate_input_tokens(request: &SummaryRequest) -> u64 {
    let system = if request.system.is_empty() {
        0
    } else {
        estimate_tokens(&request.system)
    };
    system + estimate_tokens(&request.prompt)
}

/// Fits `max_tokens` into the context window, leaving room for the input being counted
/// higher than estimated: a margin of 15 % of the input (at least 4096 tokens) while that
/// leaves at least 32768 tokens of output, else only the 4096-token margin with output capped
/// at 32768. At least 1.
pub fn clamp_max_tokens(context_window: u64, input_tokens: u64, max_tokens: u64) -> u64 {
    if context_window == 0 {
        return max_tokens.max(1);
    }
    let (window, input) = (context_window as i128, input_tokens as i128);
    let margin = (CONTEXT_SAFETY_TOKENS as i128).max((input_tokens as f64 * CONTEXT_SAFETY_RATIO).ceil() as i128);
    let mut room = window - input - margin;
    if room < MIN_OUTPUT_WITH_RATIO_MARGIN as i128 {
        room = (MIN_OUTPUT_WITH_RATIO_MARGIN as i128).min(window - input - CONTEXT_SAFETY_TOKENS as i128);
    }
    (max_tokens as i128).min(room.max(1)) as u64
}

/// The `max_tokens` a request to `model` asks for: the model's output limit fitted to its
/// context window. (With budget-based Anthropic thinking the budget is added on top, within
/// the model's limit.)
pub fn max_tokens_for(model: &ModelInfo, request: &SummaryRequest) -> u64 {
    clamp_max_tokens(
        model.context_window,
        estimate_input_tokens(request),
        model.max_output_tokens,
    )
}

/// A request ready to send.
pub(crate) struct WireRequest {
    pub url: String,
    pub headers: HeaderMap,
    pub body: Value,
    /// The `max_tokens` the body asks for (for messages).
    pub max_tokens: u64,
}

pub(crate) fn json_headers() -> HeaderMap {
    let mut h = HeaderMap::new();
    h.insert(
        reqwest::header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    h.insert(reqwest::header::ACCEPT, HeaderValue::from_static("application/json"));
    h
}

/// Sets a header; `sensitive` values are hidden from `Debug` output.
pub(crate) fn set_header(headers: &mut HeaderMap, name: &str, value: &str, sensitive: bool) -> Result<(), LlmError> {
    let name = HeaderName::from_bytes(name.as_bytes())
        .map_err(|_| LlmError::Config(format!("invalid HTTP header name {name:?}")))?;
    let mut value = HeaderValue::from_str(value).map_err(|_| {
        LlmError::Config(format!(
            "the value of HTTP header {name} has characters a header cannot carry"
        ))
    })?;
    value.set_sensitive(sensitive);
    headers.insert(name, value);
    Ok(())
}

pub(crate) const TOOL_CALL: &str = "the model called a tool instead of answering with a summary";

pub(crate) fn cut_off(max_tokens: u64) -> String {
    format!("the answer hit the token cap (max_tokens {max_tokens}), so the summary is incomplete")
}

pub(crate) fn bad_response(model: &ModelInfo, message: String) -> LlmError {
    LlmError::BadResponse {
        provider: model.provider.clone(),
        message,
    }
}

pub(crate) fn non_empty(model: &ModelInfo, text: String) -> Result<String, LlmError> {
    if text.trim().is_empty() {
        Err(bad_response(model, "the answer contains no text".into()))
    } else {
        Ok(text)
    }
}

/// A short single-line excerpt of provider text for messages: control characters become
/// spaces, at most 300 characters.
pub(crate) fn excerpt(text: &str) -> String {
    const MAX: usize = 300;
    let flat: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .collect::<String>()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    if flat.chars().count() > MAX {
        let cut: String = flat.chars().take(MAX).collect();
        format!("{cut}…")
    } else {
        flat
    }
}
