//! Text of entries for people: message text, one-line previews, token estimates.

use super::content::Content;
use super::{EntryIdx, EntryKind, Role, Session};
use serde_json::Value;

/// The text of a message's `content`: a string, or its text blocks joined by `sep` (pi-ai's
/// `contentText`; a text block without text joins as an empty string, as in JavaScript).
pub fn content_text(content: Option<&Value>, sep: &str) -> String {
    Content::of(content).text(sep)
}

/// Tool calls of an assistant message as `name(arg=value, …)`.
pub fn tool_calls(message: &Value) -> Vec<String> {
    Content::of_message(message)
        .tool_calls()
        .map(|call| {
            let name = call.name.unwrap_or("?");
            let args = match call.arguments {
                Some(Value::Object(m)) => m
                    .iter()
                    .map(|(k, v)| format!("{k}={}", compact_value(v)))
                    .collect::<Vec<_>>()
                    .join(", "),
                Some(v) => compact_value(v),
                None => String::new(),
            };
            format!("{name}({args})")
        })
        .collect()
}

fn compact_value(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// The user or assistant text of a message entry (what `:/TEXT` searches).
pub fn conversation_text(session: &Session, idx: EntryIdx) -> Option<String> {
    let e = &session.entries[idx];
    if !(e.is_role(&Role::User) || e.is_role(&Role::Assistant)) {
        return None;
    }
    let v = session.value(idx);
    Some(content_text(v.pointer("/message/content"), "\n"))
}

/// Tokens in a compact `42k` form.
pub fn short_tokens(n: f64) -> String {
    if n >= 1_000_000.0 {
        format!("{:.1}M", n / 1_000_000.0)
    } else if n >= 1000.0 {
        format!("{}k", (n / 1000.0).round())
    } else {
        format!("{n}")
    }
}

fn first_line(s: &str) -> &str {
    s.trim_start().lines().next().unwrap_or("")
}

/// A one-line description of an entry, for `log` and `tree`.
pub fn preview(session: &Session, idx: EntryIdx) -> String {
    let e = &session.entries[idx];
    let v = session.preview_value(idx);
    let s = |key: &str| v.get(key).and_then(Value::as_str).unwrap_or("").to_owned();
    match &e.kind {
        EntryKind::Message => {
            let m = v.get("message").unwrap_or(&Value::Null);
            let text = content_text(m.get("content"), " ");
            match e.role() {
                Some(Role::Assistant) => {
                    let calls = tool_calls(m);
                    let mut out = first_line(&text).to_owned();
                    if !calls.is_empty() {
                        if !out.is_empty() {
                            out.push(' ');
                        }
                        out.push_str(&format!("→ {}", calls.join(", ")));
                    }
                    if out.is_empty()
                        && let Some(reason) = m.get("stopReason").and_then(Value::as_str)
                        && reason != "stop"
                    {
                        out = format!("({reason})");
                    }
                    out
                }
                Some(Role::ToolResult) => {
                    let name = m.get("toolName").and_then(Value::as_str).unwrap_or("tool");
                    let err = if m.get("isError").and_then(Value::as_bool) == Some(true) {
                        " error"
                    } else {
                        ""
                    };
                    format!("{name}{err}: {}", first_line(&text))
                }
                Some(Role::BashExecution) => {
                    format!("$ {}", m.get("command").and_then(Value::as_str).unwrap_or(""))
                }
                Some(Role::System) => "system prompt".to_owned(),
                _ => first_line(&text).to_owned(),
            }
        }
        EntryKind::Compaction => {
            let tokens = v
                .get("tokensBefore")
                .and_then(Value::as_f64)
                .map(short_tokens)
                .unwrap_or_else(|| "?".into());
            format!("[compaction: {tokens} tokens] {}", first_line(&s("summary")))
        }
        EntryKind::BranchSummary => format!("from {}: {}", s("fromId"), first_line(&s("summary"))),
        EntryKind::Label => {
            let target = s("targetId");
            match v.get("label").and_then(Value::as_str).filter(|l| !l.is_empty()) {
                Some(l) => format!("{target} ← {l}"),
                None => format!("{target} (label cleared)"),
            }
        }
        EntryKind::ModelChange => format!("{}/{}", s("provider"), s("modelId")),
        EntryKind::ThinkingLevelChange => format!("thinking {}", s("thinkingLevel")),
        EntryKind::SessionInfo => format!("name: {}", s("name")),
        EntryKind::Custom if e.is_checkout() => {
            let from = v.pointer("/data/from").and_then(Value::as_str).unwrap_or("?");
            format!("checkout (from {from})")
        }
        EntryKind::Custom => s("customType"),
        EntryKind::CustomMessage => {
            format!(
                "{}: {}",
                s("customType"),
                first_line(&content_text(v.get("content"), " "))
            )
        }
        EntryKind::ContextEdit => match v.get("replacement") {
            Some(Value::Null) | None => format!("omit {} from context", s("targetId")),
            Some(_) => format!("replace {} in context", s("targetId")),
        },
        EntryKind::Usage => {
            let tokens = v
                .pointer("/usage/totalTokens")
                .and_then(Value::as_f64)
                .map(short_tokens)
                .unwrap_or_default();
            format!("{} {}/{} {tokens} tokens", s("kind"), s("provider"), s("model"))
        }
        EntryKind::Other(_) => String::new(),
    }
}
