//! OpenAI chat completions (`POST {base}/chat/completions`) and the many servers that speak
//! it, non-streaming. Request details that differ between hosts (the max-tokens field, the
//! `store` flag, the developer role, the shape of reasoning parameters) are detected from the
//! provider and base URL as Pi does, and can be overridden by `compat` in `models.json`.

use super::auth::Credential;
use super::models::ModelInfo;
use super::wire::{TOOL_CALL, WireRequest, bad_response, cut_off, excerpt, json_headers, non_empty, set_header};
use super::{LlmError, SummaryRequest, SummaryResponse, Usage};
use serde_json::{Value, json};

/// How a host wants chat-completions requests shaped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Compat {
    pub supports_store: bool,
    pub supports_developer_role: bool,
    pub supports_reasoning_effort: bool,
    /// `max_tokens` or `max_completion_tokens`.
    pub max_tokens_field: String,
    pub thinking_format: String,
}

/// Pi's `detectCompat` for the fields pi-session uses, with the model's overrides applied.
/// Mistral, which Pi reaches through its own API, is treated like the other hosts that only
/// accept the classic request fields.
pub fn compat(model: &ModelInfo) -> Compat {
    let p = model.provider.as_str();
    let url = model.base_url.as_str();
    let has = |s: &str| url.contains(s);
    let is_zai = p == "zai" || p == "zai-coding-cn" || has("api.z.ai") || has("open.bigmodel.cn");
    let is_together = p == "together" || has("api.together.ai") || has("api.together.xyz");
    let is_moonshot = p == "moonshotai" || p == "moonshotai-cn" || has("api.moonshot.");
    let is_openrouter = p == "openrouter" || has("openrouter.ai");
    let is_cf_workers = p == "cloudflare-workers-ai" || has("api.cloudflare.com");
    let is_cf_gateway = p == "cloudflare-ai-gateway" || has("gateway.ai.cloudflare.com");
    let is_nvidia = p == "nvidia" || has("integrate.api.nvidia.com");
    let is_ant_ling = p == "ant-ling" || has("api.ant-ling.com");
    let is_cerebras = p == "cerebras" || has("cerebras.ai");
    let is_deepseek = p == "deepseek" || url.to_lowercase().contains("deepseek.com");
    let is_grok = p == "xai" || has("api.x.ai");
    let is_mistral = p == "mistral" || has("api.mistral.ai");
    let is_opencode = p == "opencode" || has("opencode.ai");
    let non_standard = is_nvidia
        || is_cerebras
        || is_grok
        || is_together
        || has("chutes.ai")
        || is_deepseek
        || is_zai
        || is_moonshot
        || is_opencode
        || is_cf_workers
        || is_cf_gateway
        || is_ant_ling
        || is_mistral;
    let use_max_tokens = has("chutes.ai")
        || is_deepseek
        || is_moonshot
        || is_cf_gateway
        || is_together
        || is_nvidia
        || is_ant_ling
        || is_zai
        || is_mistral;
    let is_openai = p == "openai" || has("api.openai.com");
    let thinking_format = if is_deepseek {
        "deepseek"
    } else if is_zai {
        "zai"
    } else if is_together {
        "together"
    } else if is_ant_ling {
        "ant-ling"
    } else if is_openrouter {
        "openrouter"
    } else {
        "openai"
    };
    let o = &model.compat;
    Compat {
        supports_store: o.supports_store.unwrap_or(!non_standard),
        supports_developer_role: o.supports_developer_role.unwrap_or(is_openai),
        supports_reasoning_effort: o.supports_reasoning_effort.unwrap_or(
            !is_grok
                && !is_zai
                && !is_moonshot
                && !is_together
                && !is_cf_gateway
                && !is_nvidia
                && !is_ant_ling
                && !is_mistral,
        ),
        max_tokens_field: o.max_tokens_field.clone().unwrap_or_else(|| {
            if use_max_tokens {
                "max_tokens".into()
            } else {
                "max_completion_tokens".into()
            }
        }),
        thinking_format: o.thinking_format.clone().unwrap_or_else(|| thinking_format.into()),
    }
}

/// Builds the request. `max_tokens` is already fitted to the context window.
pub(crate) fn build(
    model: &ModelInfo,
    request: &SummaryRequest,
    max_tokens: u64,
    credential: Option<&Credential>,
) -> Result<WireRequest, LlmError> {
    let c = compat(model);
    let mut headers = json_headers();
    if let Some(cred) = credential {
        set_header(
            &mut headers,
            "authorization",
            &format!("Bearer {}", cred.secret().expose()),
            true,
        )?;
    }
    let mut messages = Vec::new();
    if !request.system.is_empty() {
        let role = if model.reasoning && c.supports_developer_role {
            "developer"
        } else {
            "system"
        };
        messages.push(json!({"role": role, "content": request.system}));
    }
    messages.push(json!({"role": "user", "content": request.prompt}));
    let mut body = json!({"model": model.id, "messages": messages});
    body[c.max_tokens_field.as_str()] = json!(max_tokens);
    if c.supports_store {
        body["store"] = json!(false);
    }
    apply_reasoning(model, &c, request.thinking_level.as_deref(), &mut body);
    Ok(WireRequest {
        url: format!("{}/chat/completions", model.base_url),
        headers,
        body,
        max_tokens,
    })
}

fn apply_reasoning(model: &ModelInfo, c: &Compat, requested: Option<&str>, body: &mut Value) {
    if !model.reasoning {
        return;
    }
    let level = requested.map(|l| model.clamp_thinking_level(l)).filter(|l| *l != "off");
    let value = |l: &str| model.thinking_value(l);
    let off_not_null = !model.level_marked_unsupported("off");
    let effort = c.supports_reasoning_effort;
    match c.thinking_format.as_str() {
        "zai" => {
            body["thinking"] = if level.is_some() {
                json!({"type": "enabled", "clear_thinking": false})
            } else {
                json!({"type": "disabled"})
            };
            if let (Some(l), true) = (level, effort)
                && !model.level_marked_unsupported(l)
            {
                body["reasoning_effort"] = json!(value(l));
            }
        }
        "qwen" => {
            body["enable_thinking"] = json!(level.is_some());
            if let (Some(l), true) = (level, effort) {
                body["reasoning_effort"] = json!(value(l));
            }
        }
        "deepseek" => {
            if level.is_some() {
                body["thinking"] = json!({"type": "enabled"});
            } else if off_not_null {
                body["thinking"] = json!({"type": "disabled"});
            }
            if let (Some(l), true) = (level, effort) {
                body["reasoning_effort"] = json!(value(l));
            }
        }
        "openrouter" => {
            if let Some(l) = level {
                body["reasoning"] = json!({"effort": value(l)});
            } else if off_not_null {
                let off = model
                    .thinking_levels
                    .iter()
                    .find(|(l, _)| l == "off")
                    .and_then(|(_, v)| v.clone())
                    .unwrap_or_else(|| "none".into());
                body["reasoning"] = json!({"effort": off});
            }
        }
        "together" => {
            body["reasoning"] = json!({"enabled": level.is_some()});
            if let (Some(l), true) = (level, effort) {
                body["reasoning_effort"] = json!(value(l));
            }
        }
        _ => match level {
            Some(l) if effort => body["reasoning_effort"] = json!(value(l)),
            None if effort => {
                if let Some((_, Some(off))) = model.thinking_levels.iter().find(|(l, _)| l == "off") {
                    body["reasoning_effort"] = json!(off);
                }
            }
            _ => {}
        },
    }
}

/// Parses a successful answer.
pub(crate) fn parse(model: &ModelInfo, body: &Value, max_tokens: u64) -> Result<SummaryResponse, LlmError> {
    let choice = body
        .get("choices")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
        .ok_or_else(|| bad_response(model, "the answer has no choices".into()))?;
    let finish = choice.get("finish_reason").and_then(Value::as_str);
    if finish == Some("length") {
        return Err(bad_response(model, cut_off(max_tokens)));
    }
    let message = choice
        .get("message")
        .ok_or_else(|| bad_response(model, "the answer has no message".into()))?;
    let has_tool_calls = message
        .get("tool_calls")
        .and_then(Value::as_array)
        .is_some_and(|t| !t.is_empty())
        || message.get("function_call").is_some_and(|f| !f.is_null());
    if has_tool_calls || matches!(finish, Some("tool_calls") | Some("function_call")) {
        return Err(bad_response(model, TOOL_CALL.into()));
    }
    match finish {
        None | Some("stop") | Some("end") => {}
        Some(other) => {
            return Err(bad_response(
                model,
                format!("stopped with finish_reason {}", excerpt(other)),
            ));
        }
    }
    if let Some(refusal) = message.get("refusal").and_then(Value::as_str).filter(|r| !r.is_empty()) {
        return Err(bad_response(model, format!("refused: {}", excerpt(refusal))));
    }
    let text = match message.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(parts)) => parts
            .iter()
            .filter(|p| {
                p.get("type")
                    .and_then(Value::as_str)
                    .is_none_or(|t| t == "text" || t == "output_text")
            })
            .filter_map(|p| p.get("text").and_then(Value::as_str))
            .collect::<Vec<_>>()
            .join(""),
        Some(Value::Null) | None => String::new(),
        Some(_) => {
            return Err(bad_response(
                model,
                "the message content is neither text nor parts".into(),
            ));
        }
    };
    let usage = parse_usage(model, body.get("usage"));
    Ok(SummaryResponse {
        text: non_empty(model, text)?,
        usage,
    })
}

fn parse_usage(model: &ModelInfo, raw: Option<&Value>) -> Usage {
    let Some(raw) = raw else {
        return Usage::default();
    };
    let n = |p: &str| raw.pointer(p).and_then(Value::as_u64);
    let prompt = n("/prompt_tokens").unwrap_or(0);
    let cache_read = n("/prompt_tokens_details/cached_tokens")
        .or_else(|| n("/prompt_cache_hit_tokens"))
        .or_else(|| n("/cached_tokens"))
        .unwrap_or(0);
    let cache_write = n("/prompt_tokens_details/cache_write_tokens").unwrap_or(0);
    let mut usage = Usage {
        input: prompt.saturating_sub(cache_read + cache_write),
        output: n("/completion_tokens").unwrap_or(0),
        cache_read,
        cache_write,
        ..Usage::default()
    };
    usage.total_tokens = usage.input + usage.output + usage.cache_read + usage.cache_write;
    model.apply_cost(&mut usage);
    if model.provider == "openrouter" || model.base_url.contains("openrouter.ai") {
        apply_openrouter_cost(&mut usage, raw);
    }
    usage
}

/// OpenRouter bills what it reports: use its total when the accounting is complete (Pi's
/// `applyOpenRouterReportedCost`).
fn apply_openrouter_cost(usage: &mut Usage, raw: &Value) {
    let valid = |v: Option<&Value>| v.and_then(Value::as_f64).filter(|c| c.is_finite() && *c >= 0.0);
    let Some(cost) = valid(raw.get("cost")) else {
        return;
    };
    match raw.get("is_byok").and_then(Value::as_bool) {
        Some(false) => usage.cost.total = cost,
        Some(true) => {
            let Some(details) = raw.get("cost_details") else {
                return;
            };
            let upstream = match details.get("upstream_inference_cost") {
                Some(Value::Null) => {
                    match (
                        valid(details.get("upstream_inference_prompt_cost")),
                        valid(details.get("upstream_inference_completions_cost")),
                    ) {
                        (Some(a), Some(b)) => Some(a + b),
                        _ => None,
                    }
                }
                v => valid(v),
            };
            if let Some(up) = upstream {
                usage.cost.total = cost + up;
            }
        }
        None => {}
    }
}
