//! Google's Gemini API: `POST {base}/models/{id}:generateContent` with the key in
//! `x-goog-api-key`, non-streaming.

use super::auth::Credential;
use super::models::ModelInfo;
use super::wire::{TOOL_CALL, WireRequest, bad_response, cut_off, excerpt, json_headers, non_empty, set_header};
use super::{LlmError, SummaryRequest, SummaryResponse, Usage};
use serde_json::{Value, json};

/// Models controlled by a discrete `thinkingLevel` rather than a token budget (Gemini 3 Pro
/// and Flash, Gemini 4 and later, the `-latest` Flash aliases, Gemma 4), as in Pi.
pub fn uses_thinking_level(id: &str) -> bool {
    let id = id.to_lowercase();
    let gemini3 = id.match_indices("gemini-3").any(|(i, m)| {
        let mut rest = &id[i + m.len()..];
        if let Some(r) = rest.strip_prefix('.') {
            let digits = r.bytes().take_while(u8::is_ascii_digit).count();
            if digits == 0 {
                return false;
            }
            rest = &r[digits..];
        }
        rest.starts_with("-pro") || rest.starts_with("-flash")
    });
    let gemini4_plus = id.match_indices("gemini-").any(|(i, m)| {
        let b = id.as_bytes();
        let (c1, c2) = (b.get(i + m.len()).copied(), b.get(i + m.len() + 1).copied());
        matches!(c1, Some(b'4'..=b'9')) || (matches!(c1, Some(b'1'..=b'9')) && c2.is_some_and(|c| c.is_ascii_digit()))
    });
    gemini3
        || gemini4_plus
        || id == "gemini-flash-latest"
        || id == "gemini-flash-lite-latest"
        || id.contains("gemma-4")
        || id.contains("gemma4")
}

/// A level Google understands: the model's mapped value (lower-cased) or the level itself;
/// `xhigh` and `max` become `high`.
fn google_level(model: &ModelInfo, level: &str) -> &'static str {
    let resolved = match model.thinking_levels.iter().find(|(l, _)| l == level) {
        Some((_, Some(v))) => v.to_lowercase(),
        _ => level.to_string(),
    };
    match resolved.as_str() {
        "minimal" => "minimal",
        "low" => "low",
        "medium" => "medium",
        _ => "high",
    }
}

/// Pi's thinking budgets of Gemini 2.5 models; -1 lets the model decide.
fn thinking_budget(id: &str, level: &str) -> i64 {
    let table: [i64; 4] = if id.contains("2.5-pro") {
        [128, 2048, 8192, 32768]
    } else if id.contains("2.5-flash-lite") {
        [512, 2048, 8192, 24576]
    } else if id.contains("2.5-flash") {
        [128, 2048, 8192, 24576]
    } else {
        return -1;
    };
    match level {
        "minimal" => table[0],
        "low" => table[1],
        "medium" => table[2],
        _ => table[3],
    }
}

fn thinking_config(model: &ModelInfo, requested: Option<&str>) -> Option<Value> {
    if !model.reasoning {
        return None;
    }
    let level = requested.map(|l| model.clamp_thinking_level(l)).filter(|l| *l != "off");
    let by_level = uses_thinking_level(&model.id);
    match level {
        Some(l) if by_level => Some(json!({"thinkingLevel": google_level(model, l).to_uppercase()})),
        Some(l) => Some(json!({"thinkingBudget": thinking_budget(&model.id, google_level(model, l))})),
        None => {
            // Pi asks for the least thinking the model allows. Gemini 2.5 Pro cannot turn
            // thinking off (a zero budget is rejected), so it keeps its default.
            if !by_level {
                return (!model.id.contains("2.5-pro")).then(|| json!({"thinkingBudget": 0}));
            }
            match model.clamp_thinking_level("off") {
                "off" => Some(json!({"thinkingBudget": 0})),
                l => Some(json!({"thinkingLevel": google_level(model, l).to_uppercase()})),
            }
        }
    }
}

/// Builds the request. `max_tokens` is already fitted to the context window.
pub(crate) fn build(
    model: &ModelInfo,
    request: &SummaryRequest,
    max_tokens: u64,
    credential: Option<&Credential>,
) -> Result<WireRequest, LlmError> {
    let mut headers = json_headers();
    match credential {
        Some(Credential::ApiKey(key)) => set_header(&mut headers, "x-goog-api-key", key.expose(), true)?,
        Some(Credential::BearerToken(token)) => set_header(
            &mut headers,
            "authorization",
            &format!("Bearer {}", token.expose()),
            true,
        )?,
        None => {}
    }
    let mut generation = json!({"maxOutputTokens": max_tokens});
    if let Some(t) = thinking_config(model, request.thinking_level.as_deref()) {
        generation["thinkingConfig"] = t;
    }
    let mut body = json!({
        "contents": [{"role": "user", "parts": [{"text": request.prompt}]}],
        "generationConfig": generation,
    });
    if !request.system.is_empty() {
        body["systemInstruction"] = json!({"parts": [{"text": request.system}]});
    }
    let path = if model.id.contains('/') {
        model.id.clone()
    } else {
        format!("models/{}", model.id)
    };
    Ok(WireRequest {
        url: format!("{}/{path}:generateContent", model.base_url),
        headers,
        body,
        max_tokens,
    })
}

/// Parses a successful answer.
pub(crate) fn parse(model: &ModelInfo, body: &Value, max_tokens: u64) -> Result<SummaryResponse, LlmError> {
    let Some(candidate) = body.get("candidates").and_then(Value::as_array).and_then(|c| c.first()) else {
        let why = match body.pointer("/promptFeedback/blockReason").and_then(Value::as_str) {
            Some(reason) => format!("the prompt was blocked: {}", excerpt(reason)),
            None => "the answer has no candidates".into(),
        };
        return Err(bad_response(model, why));
    };
    let finish = candidate.get("finishReason").and_then(Value::as_str);
    if matches!(finish, Some("MAX_TOKENS") | Some("CONTINUATION")) {
        return Err(bad_response(model, cut_off(max_tokens)));
    }
    let parts = candidate
        .pointer("/content/parts")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or(&[]);
    let mut text = String::new();
    for part in parts {
        if part.get("functionCall").is_some() {
            return Err(bad_response(model, TOOL_CALL.into()));
        }
        if part.get("thought").and_then(Value::as_bool) == Some(true) {
            continue;
        }
        if let Some(t) = part.get("text").and_then(Value::as_str) {
            text.push_str(t);
        }
    }
    match finish {
        Some("STOP") => {}
        Some(other) => return Err(bad_response(model, format!("stopped with: {}", excerpt(other)))),
        None => return Err(bad_response(model, "the answer has no finishReason".into())),
    }
    let n = |k: &str| {
        body.pointer(&format!("/usageMetadata/{k}"))
            .and_then(Value::as_u64)
            .unwrap_or(0)
    };
    let cached = n("cachedContentTokenCount");
    let mut usage = Usage {
        input: n("promptTokenCount").saturating_sub(cached),
        output: n("candidatesTokenCount") + n("thoughtsTokenCount"),
        cache_read: cached,
        cache_write: 0,
        ..Usage::default()
    };
    model.apply_cost(&mut usage);
    usage.total_tokens = n("totalTokenCount");
    Ok(SummaryResponse {
        text: non_empty(model, text)?,
        usage,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thinking_level_models() {
        for id in [
            "gemini-3-flash-preview",
            "gemini-3.1-pro-preview",
            "gemini-3.1-flash-lite",
            "gemini-4-argon",
            "gemini-flash-latest",
            "gemma-4-31b-it",
        ] {
            assert!(uses_thinking_level(id), "{id}");
        }
        for id in [
            "gemini-2.5-pro",
            "gemini-2.5-flash",
            "gemini-2.0-flash",
            "gemini-3",
            "gemini-3.x-pro",
        ] {
            assert!(!uses_thinking_level(id), "{id}");
        }
    }
}
