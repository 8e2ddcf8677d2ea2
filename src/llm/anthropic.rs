//! Anthropic's Messages API: `POST {base}/v1/messages`, non-streaming, no prompt caching.

use super::auth::Credential;
use super::models::ModelInfo;
use super::wire::{
    TOOL_CALL, WireRequest, bad_response, clamp_max_tokens, cut_off, excerpt, json_headers, non_empty, set_header,
};
use super::{LlmError, SummaryRequest, SummaryResponse, Usage};
use serde_json::{Value, json};

pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// Pi's default thinking budgets for budget-based (non-adaptive) thinking.
fn thinking_budget(level: &str) -> u64 {
    match level {
        "minimal" => 1024,
        "low" => 2048,
        "medium" => 8192,
        _ => 16384, // high; xhigh and max clamp to high
    }
}

/// Pi's effort for adaptive thinking: the mapped value, else low / medium / high.
fn effort(model: &ModelInfo, level: &str) -> String {
    if let Some((_, Some(v))) = model.thinking_levels.iter().find(|(l, _)| l == level) {
        return v.clone();
    }
    match level {
        "minimal" | "low" => "low",
        "medium" => "medium",
        _ => "high",
    }
    .to_string()
}

/// Builds the request. `max_tokens` is already fitted to the context window.
pub(crate) fn build(
    model: &ModelInfo,
    request: &SummaryRequest,
    max_tokens: u64,
    input_tokens: u64,
    credential: Option<&Credential>,
) -> Result<WireRequest, LlmError> {
    let mut headers = json_headers();
    match credential {
        Some(Credential::ApiKey(key)) => set_header(&mut headers, "x-api-key", key.expose(), true)?,
        Some(Credential::BearerToken(token)) => set_header(
            &mut headers,
            "authorization",
            &format!("Bearer {}", token.expose()),
            true,
        )?,
        None => {}
    }
    set_header(&mut headers, "anthropic-version", ANTHROPIC_VERSION, false)?;

    let mut body = json!({
        "model": model.id,
        "max_tokens": max_tokens,
        "messages": [{"role": "user", "content": [{"type": "text", "text": request.prompt}]}],
    });
    if !request.system.is_empty() {
        body["system"] = json!([{"type": "text", "text": request.system}]);
    }
    let level = request
        .thinking_level
        .as_deref()
        .filter(|l| *l != "off" && model.reasoning);
    let mut max_tokens = max_tokens;
    match level {
        None => {
            // Pi turns thinking off explicitly unless the model cannot run without it.
            if model.reasoning && !model.level_marked_unsupported("off") {
                body["thinking"] = json!({"type": "disabled"});
            }
        }
        Some(level) if model.adaptive_thinking => {
            body["thinking"] = json!({"type": "adaptive"});
            body["output_config"] = json!({"effort": effort(model, level)});
        }
        Some(level) => {
            // The budget shares max_tokens with the answer (Pi's adjustMaxTokensForThinking).
            let budget = thinking_budget(level);
            let wanted = (max_tokens + budget).min(model.max_output_tokens);
            max_tokens = clamp_max_tokens(model.context_window, input_tokens, wanted);
            let budget = budget.min(max_tokens.saturating_sub(1024));
            if budget >= 1024 {
                body["max_tokens"] = json!(max_tokens);
                body["thinking"] = json!({"type": "enabled", "budget_tokens": budget});
            } else {
                body["thinking"] = json!({"type": "disabled"});
            }
        }
    }
    let max_tokens = body["max_tokens"].as_u64().unwrap_or(max_tokens);
    Ok(WireRequest {
        url: format!("{}/v1/messages", model.base_url),
        headers,
        body,
        max_tokens,
    })
}

/// Parses a successful answer.
pub(crate) fn parse(model: &ModelInfo, body: &Value, max_tokens: u64) -> Result<SummaryResponse, LlmError> {
    let stop = body.get("stop_reason").and_then(Value::as_str);
    if matches!(stop, Some("max_tokens") | Some("model_context_window_exceeded")) {
        return Err(bad_response(model, cut_off(max_tokens)));
    }
    let content = body
        .get("content")
        .and_then(Value::as_array)
        .ok_or_else(|| bad_response(model, "the answer has no \"content\" array".into()))?;
    let mut texts = Vec::new();
    for block in content {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => texts.push(block.get("text").and_then(Value::as_str).unwrap_or_default()),
            Some("tool_use") | Some("server_tool_use") => {
                return Err(bad_response(model, TOOL_CALL.into()));
            }
            _ => {}
        }
    }
    match stop {
        None | Some("end_turn") | Some("stop_sequence") | Some("pause_turn") => {}
        Some("tool_use") => return Err(bad_response(model, TOOL_CALL.into())),
        Some("refusal") => {
            let why = body
                .pointer("/stop_details/explanation")
                .and_then(Value::as_str)
                .unwrap_or("the model refused to complete the request");
            return Err(bad_response(model, format!("refused: {}", excerpt(why))));
        }
        Some(other) => return Err(bad_response(model, format!("stopped with: {}", excerpt(other)))),
    }
    let u = body.get("usage");
    let n = |k: &str| u.and_then(|u| u.get(k)).and_then(Value::as_u64).unwrap_or(0);
    let mut usage = Usage {
        input: n("input_tokens"),
        output: n("output_tokens"),
        cache_read: n("cache_read_input_tokens"),
        cache_write: n("cache_creation_input_tokens"),
        ..Usage::default()
    };
    usage.total_tokens = usage.input + usage.output + usage.cache_read + usage.cache_write;
    model.apply_cost(&mut usage);
    Ok(SummaryResponse {
        text: non_empty(model, texts.join("\n"))?,
        usage,
    })
}
