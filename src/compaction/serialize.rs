//! The conversation as text for a summary request: Pi's `convertToLlm` followed by
//! `serializeConversation`. Serialized text keeps the model from continuing the
//! conversation instead of summarizing it.

use crate::json::jsjson::{stringify, utf16_len};
use crate::session::Role;
use crate::session::content::{Block, Content, role_of};
use crate::session::text::content_text;
use serde_json::{Value, json};

/// Tool results are cut to this many characters (UTF-16 units, as Pi counts).
pub const TOOL_RESULT_MAX_CHARS: usize = 2000;

const COMPACTION_PREFIX: &str =
    "The conversation history before this point was compacted into the following summary:\n\n<summary>\n";
const COMPACTION_SUFFIX: &str = "\n</summary>";
const BRANCH_PREFIX: &str =
    "The following is a summary of a branch that this conversation came back from:\n\n<summary>\n";
const BRANCH_SUFFIX: &str = "</summary>";

/// Pi's `bashExecutionToText`.
fn bash_text(m: &Value) -> String {
    let s = |k: &str| m.get(k).and_then(Value::as_str).unwrap_or("");
    let mut text = format!("Ran `{}`\n", s("command"));
    let output = s("output");
    if output.is_empty() {
        text.push_str("(no output)");
    } else {
        text.push_str(&format!("```\n{output}\n```"));
    }
    if m.get("cancelled").and_then(Value::as_bool) == Some(true) {
        text.push_str("\n\n(command cancelled)");
    } else if let Some(code) = m.get("exitCode").and_then(Value::as_i64).filter(|c| *c != 0) {
        text.push_str(&format!("\n\nCommand exited with code {code}"));
    }
    if m.get("truncated").and_then(Value::as_bool) == Some(true)
        && let Some(path) = m
            .get("fullOutputPath")
            .and_then(Value::as_str)
            .filter(|p| !p.is_empty())
    {
        text.push_str(&format!("\n\n[Output truncated. Full output: {path}]"));
    }
    text
}

/// Pi's `convertToLlm`: agent messages as the user/assistant/tool messages a provider takes.
pub fn to_llm(messages: &[Value]) -> Vec<Value> {
    let text_msg = |text: String, m: &Value| json!({"role": "user", "content": [{"type": "text", "text": text}], "timestamp": m.get("timestamp")});
    messages
        .iter()
        .filter_map(|m| match role_of(m) {
            Some(Role::BashExecution) if m.get("excludeFromContext").and_then(Value::as_bool) == Some(true) => None,
            Some(Role::BashExecution) => Some(text_msg(bash_text(m), m)),
            Some(Role::Custom) => {
                let content = match m.get("content") {
                    Some(Value::String(s)) => json!([{"type": "text", "text": s}]),
                    Some(c) => c.clone(),
                    None => Value::Null,
                };
                Some(json!({"role": "user", "content": content, "timestamp": m.get("timestamp")}))
            }
            Some(Role::BranchSummary) => {
                let s = m.get("summary").and_then(Value::as_str).unwrap_or("");
                Some(text_msg(format!("{BRANCH_PREFIX}{s}{BRANCH_SUFFIX}"), m))
            }
            Some(Role::CompactionSummary) => {
                let s = m.get("summary").and_then(Value::as_str).unwrap_or("");
                Some(text_msg(format!("{COMPACTION_PREFIX}{s}{COMPACTION_SUFFIX}"), m))
            }
            Some(Role::System | Role::User | Role::Assistant | Role::ToolResult) => Some(m.clone()),
            _ => None,
        })
        .collect()
}

/// The first `max` UTF-16 units of `s`, never splitting a surrogate pair.
fn slice_head(s: &str, max: usize) -> &str {
    let mut units = 0;
    for (i, c) in s.char_indices() {
        if units + c.len_utf16() > max {
            return &s[..i];
        }
        units += c.len_utf16();
    }
    s
}

fn truncate_for_summary(text: &str, max: usize) -> String {
    let len = utf16_len(text);
    if len <= max {
        return text.to_owned();
    }
    format!(
        "{}\n\n[... {} more characters truncated]",
        slice_head(text, max),
        len - max
    )
}

/// Pi's `serializeConversation`, with thinking left out as Pi leaves it out, unless
/// `include_thinking` asks for it.
pub fn serialize(messages: &[Value], include_thinking: bool) -> String {
    let mut parts = Vec::new();
    for m in messages {
        match role_of(m) {
            Some(Role::User) => {
                let c = content_text(m.get("content"), "");
                if !c.is_empty() {
                    parts.push(format!("[User]: {c}"));
                }
            }
            Some(Role::Assistant) => {
                // Pi walks an assistant's blocks: content written as one string has none.
                let content = Content::of_value(m.get("content"));
                let blocks = match content {
                    Content::Blocks(_) => content.blocks().unwrap_or_default(),
                    _ => Vec::new(),
                };
                let mut calls = Vec::new();
                let mut thinking = Vec::new();
                for b in &blocks {
                    match b {
                        Block::ToolCall { name, arguments, .. } => {
                            let args = match arguments.and_then(|a| a.to_value().ok()).as_deref() {
                                Some(Value::Object(o)) => o
                                    .iter()
                                    .map(|(k, v)| format!("{k}={}", stringify(v)))
                                    .collect::<Vec<_>>()
                                    .join(", "),
                                _ => String::new(),
                            };
                            calls.push(format!("{}({args})", name.as_deref().unwrap_or("")));
                        }
                        Block::Thinking { thinking: Some(t) } if !t.is_empty() => thinking.push(t.to_string()),
                        _ => {}
                    }
                }
                if include_thinking && !thinking.is_empty() {
                    parts.push(format!("[Assistant thinking]: {}", thinking.join("\n")));
                }
                if blocks.iter().any(|b| matches!(b, Block::Text { .. })) {
                    parts.push(format!("[Assistant]: {}", content_text(m.get("content"), "\n")));
                }
                if !calls.is_empty() {
                    parts.push(format!("[Assistant tool calls]: {}", calls.join("; ")));
                }
            }
            Some(Role::ToolResult) => {
                let c = content_text(m.get("content"), "");
                if !c.is_empty() {
                    parts.push(format!(
                        "[Tool result]: {}",
                        truncate_for_summary(&c, TOOL_RESULT_MAX_CHARS)
                    ));
                }
            }
            _ => {}
        }
    }
    parts.join("\n\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serializes_roles_calls_and_cut_results() {
        let msgs = vec![
            json!({"role": "user", "content": "fix it"}),
            json!({"role": "assistant", "content": [
                {"type": "thinking", "thinking": "hmm"},
                {"type": "text", "text": "Reading."},
                {"type": "toolCall", "id": "c1", "name": "read", "arguments": {"path": "a.rs", "n": 1.0}}
            ]}),
            json!({"role": "toolResult", "content": [{"type": "text", "text": "x".repeat(2005)}]}),
        ];
        let s = serialize(&to_llm(&msgs), false);
        assert!(s.starts_with(
            "[User]: fix it\n\n[Assistant]: Reading.\n\n[Assistant tool calls]: read(path=\"a.rs\", n=1)"
        ));
        assert!(s.ends_with("\n\n[... 5 more characters truncated]"));
        assert!(!s.contains("hmm"));
        assert!(serialize(&to_llm(&msgs), true).contains("[Assistant thinking]: hmm"));
    }

    #[test]
    fn slices_without_splitting_pairs() {
        assert_eq!(slice_head("a😀b", 2), "a");
        assert_eq!(slice_head("a😀b", 3), "a😀");
    }
}
