//! Pi's token estimate (`estimateTokens` in compaction.js): characters / 4, rounded up,
//! counting the way JavaScript counts string lengths.

use crate::json::jsjson::{stringify_len, utf16_len};
use serde_json::Value;

const IMAGE_CHARS: usize = 4800;

fn str_len(v: Option<&Value>) -> usize {
    v.and_then(Value::as_str).map(utf16_len).unwrap_or(0)
}

fn text_and_image_chars(content: Option<&Value>) -> usize {
    match content {
        Some(Value::String(s)) => utf16_len(s),
        Some(Value::Array(blocks)) => blocks
            .iter()
            .map(|b| match b.get("type").and_then(Value::as_str) {
                Some("text") => str_len(b.get("text")),
                Some("image") => IMAGE_CHARS,
                _ => 0,
            })
            .sum(),
        _ => 0,
    }
}

/// Estimated tokens of one context message.
pub fn estimate_tokens(m: &Value) -> u64 {
    let chars = match m.get("role").and_then(Value::as_str).unwrap_or("") {
        "system" => {
            let sections: usize = m
                .get("sections")
                .and_then(Value::as_object)
                .map(|o| o.values().map(|v| str_len(Some(v))).sum())
                .unwrap_or(0);
            let tools = m
                .get("toolsAdded")
                .filter(|t| !t.is_null())
                .map(stringify_len)
                .unwrap_or(0);
            text_and_image_chars(m.get("content")) + sections + tools
        }
        "user" | "custom" | "toolResult" => text_and_image_chars(m.get("content")),
        "assistant" => m
            .get("content")
            .and_then(Value::as_array)
            .map(|blocks| {
                blocks
                    .iter()
                    .map(|b| match b.get("type").and_then(Value::as_str) {
                        Some("text") => str_len(b.get("text")),
                        Some("thinking") => str_len(b.get("thinking")),
                        Some("toolCall") => str_len(b.get("name")) + b.get("arguments").map(stringify_len).unwrap_or(0),
                        _ => 0,
                    })
                    .sum()
            })
            .unwrap_or(0),
        "bashExecution" => str_len(m.get("command")) + str_len(m.get("output")),
        "branchSummary" | "compactionSummary" => str_len(m.get("summary")),
        _ => return 0,
    };
    (chars as u64).div_ceil(4)
}
