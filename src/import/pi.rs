//! The Pi v3 session an import builds: a header and entries with their own ids and parent
//! links (so a source's tree stays a tree), written as Pi writes lines (`JSON.stringify`,
//! Pi's key order). The messages are Pi's `AgentMessage`s; the helpers here make them the one
//! way every importer uses ([`user`], [`assistant`], [`tool_result`], [`usage`]).

use crate::json::rawjson::object_line;
use crate::llm::Usage;
use crate::session::io::append::entry_line;
use serde_json::{Value, json};

/// Where an imported session came from, recorded in its header (`importedFrom`), so that a
/// later `import --all` knows it and skips it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ImportedFrom {
    /// `claude` or `codex`.
    pub agent: &'static str,
    /// The source file, absolute.
    pub path: String,
    /// The source's own session id.
    pub session_id: String,
}

/// A session about to be written.
#[derive(Debug, Clone)]
pub struct PiSession {
    pub id: String,
    /// The header's time: when the source session began (ISO 8601, milliseconds, UTC).
    pub timestamp: String,
    pub cwd: String,
    pub parent_session: Option<String>,
    pub imported_from: ImportedFrom,
    /// In file order: every parent before its children, the leaf last.
    pub entries: Vec<PiEntry>,
}

#[derive(Debug, Clone)]
pub struct PiEntry {
    pub id: String,
    pub parent_id: Option<String>,
    /// ISO 8601 with milliseconds, UTC.
    pub timestamp: String,
    pub body: Body,
}

#[derive(Debug, Clone)]
pub enum Body {
    /// An `AgentMessage` (`role`, `content`, …, `timestamp` in ms).
    Message(Value),
    ModelChange {
        provider: String,
        model_id: String,
    },
    ThinkingLevelChange(String),
    Compaction {
        summary: String,
        first_kept_entry_id: String,
        tokens_before: u64,
    },
    /// What Pi has no place for: kept, invisible to the model.
    Custom {
        custom_type: String,
        data: Value,
    },
}

impl Body {
    /// The kind as a plan counts it: `user`, `assistant`, `toolResult`, `model_change`, …
    pub fn kind(&self) -> String {
        match self {
            Body::Message(m) => m.get("role").and_then(Value::as_str).unwrap_or("message").to_owned(),
            Body::ModelChange { .. } => "model_change".into(),
            Body::ThinkingLevelChange(_) => "thinking_level_change".into(),
            Body::Compaction { .. } => "compaction".into(),
            Body::Custom { .. } => "custom".into(),
        }
    }
}

impl PiSession {
    /// Pi's file name: `<timestamp with : and . as ->_<id>.jsonl`.
    pub fn file_name(&self) -> String {
        format!("{}_{}.jsonl", self.timestamp.replace([':', '.'], "-"), self.id)
    }

    /// The whole file, each line ending in `\n`.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut header = vec![
            ("type", Value::from("session")),
            ("version", Value::from(3)),
            ("id", Value::from(self.id.as_str())),
            ("timestamp", Value::from(self.timestamp.as_str())),
            ("cwd", Value::from(self.cwd.as_str())),
        ];
        if let Some(p) = &self.parent_session {
            header.push(("parentSession", Value::from(p.as_str())));
        }
        header.push((
            "importedFrom",
            serde_json::to_value(&self.imported_from).expect("plain data"),
        ));
        let mut out = object_line(header).into_bytes();
        out.push(b'\n');
        for e in &self.entries {
            out.extend_from_slice(e.line().as_bytes());
            out.push(b'\n');
        }
        out
    }
}

impl PiEntry {
    /// The entry's line, keys in Pi's order.
    pub fn line(&self) -> String {
        let rest: Vec<(&str, Value)> = match &self.body {
            Body::Message(m) => vec![("message", m.clone())],
            Body::ModelChange { provider, model_id } => {
                vec![
                    ("provider", Value::from(provider.as_str())),
                    ("modelId", Value::from(model_id.as_str())),
                ]
            }
            Body::ThinkingLevelChange(level) => vec![("thinkingLevel", Value::from(level.as_str()))],
            Body::Compaction {
                summary,
                first_kept_entry_id,
                tokens_before,
            } => vec![
                ("summary", Value::from(summary.as_str())),
                ("firstKeptEntryId", Value::from(first_kept_entry_id.as_str())),
                ("tokensBefore", Value::from(*tokens_before)),
            ],
            Body::Custom { custom_type, data } => {
                vec![
                    ("customType", Value::from(custom_type.as_str())),
                    ("data", data.clone()),
                ]
            }
        };
        let kind = match self.body {
            Body::Message(_) => "message",
            Body::ModelChange { .. } => "model_change",
            Body::ThinkingLevelChange(_) => "thinking_level_change",
            Body::Compaction { .. } => "compaction",
            Body::Custom { .. } => "custom",
        };
        entry_line(kind, &self.id, self.parent_id.as_deref(), &self.timestamp, rest)
    }
}

/// A user message: `content` is Pi's content (a string, or text and image blocks).
pub fn user(content: Value, timestamp_ms: i64) -> Value {
    json!({"role": "user", "content": content, "timestamp": timestamp_ms})
}

/// An assistant message. `content` holds text, thinking and toolCall blocks; `stop_reason`
/// is Pi's (`stop`, `length`, `toolUse`, `error`, `aborted`).
pub fn assistant(
    content: Vec<Value>,
    api: &str,
    provider: &str,
    model: &str,
    usage: &Usage,
    stop_reason: &str,
    timestamp_ms: i64,
) -> Value {
    json!({
        "role": "assistant",
        "content": content,
        "api": api,
        "provider": provider,
        "model": model,
        "usage": usage,
        "stopReason": stop_reason,
        "timestamp": timestamp_ms,
    })
}

/// A tool result answering the call `tool_call_id`.
pub fn tool_result(
    tool_call_id: &str,
    tool_name: &str,
    content: Vec<Value>,
    is_error: bool,
    timestamp_ms: i64,
) -> Value {
    json!({
        "role": "toolResult",
        "toolCallId": tool_call_id,
        "toolName": tool_name,
        "content": content,
        "isError": is_error,
        "timestamp": timestamp_ms,
    })
}

/// A text block.
pub fn text(t: &str) -> Value {
    json!({"type": "text", "text": t})
}

/// A toolCall block.
pub fn tool_call(id: &str, name: &str, arguments: Value) -> Value {
    json!({"type": "toolCall", "id": id, "name": name, "arguments": arguments})
}

/// A thinking block (with the provider's signature when there is one).
pub fn thinking(t: &str, signature: Option<&str>) -> Value {
    match signature {
        Some(s) => json!({"type": "thinking", "thinking": t, "thinkingSignature": s}),
        None => json!({"type": "thinking", "thinking": t}),
    }
}

/// A redacted thinking block as Pi's Anthropic provider keeps a `redacted_thinking` block:
/// the text `[Reasoning redacted]`, the encrypted payload as the signature, `redacted: true`
/// (so that Pi sends it back as `redacted_thinking`).
pub fn redacted_thinking(data: &str) -> Value {
    json!({"type": "thinking", "thinking": "[Reasoning redacted]", "thinkingSignature": data, "redacted": true})
}

/// An image block.
pub fn image(data: &str, mime_type: &str) -> Value {
    json!({"type": "image", "data": data, "mimeType": mime_type})
}

/// Pi's usage of a reply: the tokens as counted, `totalTokens` their sum, the cost from the
/// model table pi-session has (zero for a model it does not know).
pub fn usage(provider: &str, model: &str, input: u64, output: u64, cache_read: u64, cache_write: u64) -> Usage {
    let mut u = Usage {
        input,
        output,
        cache_read,
        cache_write,
        total_tokens: input + output + cache_read + cache_write,
        ..Usage::default()
    };
    if let Some(m) = crate::llm::models::builtin_model(provider, model) {
        m.apply_cost(&mut u);
    }
    u.total_tokens = input + output + cache_read + cache_write;
    u
}

/// Milliseconds since the epoch of an ISO 8601 time, as JavaScript's `Date.parse` reads it.
pub fn ms_of(iso: &str) -> Option<i64> {
    crate::json::jsdate::parse_date_ms(iso)
}

/// `ms` as Pi writes entry timestamps.
pub fn iso_of(ms: i64) -> String {
    crate::listing::iso_ms(ms)
}
