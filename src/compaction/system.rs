//! The system prompt and tools in effect: every system message replayed into one
//! (pi-ai's `getCurrentSystemMessage`).

use crate::session::text::content_text;
use serde_json::{Map, Value};

/// A JavaScript `Map` with string keys: setting an existing key keeps its place.
#[derive(Default)]
struct OrderedMap(Vec<(String, Value)>);

impl OrderedMap {
    fn set(&mut self, k: &str, v: Value) {
        match self.0.iter_mut().find(|(ek, _)| ek == k) {
            Some(slot) => slot.1 = v,
            None => self.0.push((k.to_owned(), v)),
        }
    }
    fn delete(&mut self, k: &str) {
        self.0.retain(|(ek, _)| ek != k);
    }
}

/// The replayed system message of `messages`, or `None` when there is no prompt or tool.
pub fn current_system_message(messages: &[Value]) -> Option<Value> {
    let mut content = Vec::new();
    let mut sections = OrderedMap::default();
    let mut tools = OrderedMap::default();
    let mut timestamp: Option<Value> = None;
    for m in messages
        .iter()
        .filter(|m| crate::session::content::role_of(m) == Some(crate::session::Role::System))
    {
        if timestamp.is_none() {
            timestamp = m.get("timestamp").filter(|t| !t.is_null()).cloned();
        }
        let text = content_text(m.get("content"), "\n");
        if !text.is_empty() {
            content.push(text);
        }
        if let Some(obj) = m.get("sections").and_then(Value::as_object) {
            for (name, value) in obj {
                if value.is_null() {
                    sections.delete(name);
                } else {
                    sections.set(name, value.clone());
                }
            }
        }
        for t in m.get("toolsRemoved").and_then(Value::as_array).into_iter().flatten() {
            tools.delete(t.get("name").and_then(Value::as_str).unwrap_or(""));
        }
        for t in m.get("toolsAdded").and_then(Value::as_array).into_iter().flatten() {
            tools.set(t.get("name").and_then(Value::as_str).unwrap_or(""), t.clone());
        }
    }
    if timestamp.is_none() && tools.0.is_empty() {
        return None;
    }
    let mut out = Map::new();
    out.insert("role".into(), "system".into());
    out.insert("content".into(), Value::String(content.join("\n\n")));
    if !sections.0.is_empty() {
        out.insert("sections".into(), Value::Object(sections.0.into_iter().collect()));
    }
    if !tools.0.is_empty() {
        out.insert(
            "toolsAdded".into(),
            Value::Array(tools.0.into_iter().map(|(_, t)| t).collect()),
        );
    }
    out.insert("timestamp".into(), timestamp.unwrap_or(Value::from(0)));
    Some(Value::Object(out))
}
