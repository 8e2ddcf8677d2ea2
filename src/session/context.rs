//! What Pi 1.6.0 sends to the model with the leaf at a given entry: `buildContextEntries`,
//! `buildSessionProjection` and `buildSessionContext` of session-manager.js.

use super::{Detail, EntryIdx, EntryKind, Role, Session, Sym};
use crate::json::jsdate::date_value_ms;
use rustc_hash::FxHashMap;
use serde_json::{Map, Value, json};

/// One message of the context, with the entry it came from.
#[derive(Debug, Clone)]
pub struct ContextMessage {
    pub source: EntryIdx,
    pub message: Value,
}

/// The model context at a leaf. Its messages are made one entry at a time
/// ([`Context::messages`]): held all at once, a long session's messages would cost several
/// times the file.
#[derive(Debug, Clone, Default)]
pub struct Context {
    /// The thinking level in effect (`"off"` unless a change says otherwise).
    pub thinking_level: Value,
    /// `{provider, modelId}` in effect, from model changes and assistant messages.
    pub model: Option<Value>,
    /// The compaction that bounds the context, if any.
    pub compaction: Option<EntryIdx>,
    /// The entries selected for the context, in order (Pi's `buildContextEntries`).
    pub entries: Vec<EntryIdx>,
    /// Set when the walk to the root met a parent cycle (Pi would hang).
    pub cycle_at: Option<EntryIdx>,
    /// The context edits among `entries`, by the entry each edits.
    edits: FxHashMap<Sym, EntryIdx>,
}

impl Context {
    /// The messages, in order, each made when it is reached.
    pub fn messages<'a>(&'a self, session: &'a Session) -> impl Iterator<Item = ContextMessage> + 'a {
        self.entries.iter().enumerate().flat_map(move |(pos, &i)| {
            project_selected(session, &self.edits, pos, i)
                .into_iter()
                .map(move |message| ContextMessage { source: i, message })
        })
    }
}

/// One selected entry and the messages it contributes (Pi's `buildSessionProjection`).
#[derive(Debug, Clone)]
pub struct ProjectedEntry {
    pub source: EntryIdx,
    pub messages: Vec<Value>,
}

/// Pi's projection of a path: the selected entries, each with its messages.
pub fn projection(session: &Session, path: &[EntryIdx]) -> Vec<ProjectedEntry> {
    let (selected, edits) = selected_and_edits(session, path);
    selected
        .iter()
        .enumerate()
        .map(|(pos, &i)| ProjectedEntry {
            source: i,
            messages: project_selected(session, &edits, pos, i),
        })
        .collect()
}

/// The entries of `path` the context takes, and the context edits among them by the entry
/// each edits.
fn selected_and_edits(session: &Session, path: &[EntryIdx]) -> (Vec<EntryIdx>, FxHashMap<Sym, EntryIdx>) {
    let selected = context_entries(session, path);
    let mut edits: FxHashMap<Sym, EntryIdx> = FxHashMap::default();
    for &i in &selected {
        if let Detail::ContextEdit { target: Some(t) } = &session.entries[i].detail {
            edits.insert(*t, i);
        }
    }
    (selected, edits)
}

/// The messages of the `pos`-th selected entry `i`.
fn project_selected(session: &Session, edits: &FxHashMap<Sym, EntryIdx>, pos: usize, i: EntryIdx) -> Vec<Value> {
    let e = &session.entries[i];
    // An older compaction inside the retained range contributes nothing; only the one that
    // opens the context does.
    if e.kind == EntryKind::Compaction && pos > 0 {
        return Vec::new();
    }
    let edit = e.id.and_then(|id| edits.get(&id)).map(|&ei| session.value(ei));
    project(session, i, edit.as_ref())
}

/// How many messages the context at `leaf` has, reading one entry at a time (for large
/// files, where holding every message at once would cost several times the file).
pub fn message_count(session: &Session, leaf: Option<EntryIdx>) -> usize {
    let Some(leaf) = leaf else { return 0 };
    let path = session.branch(leaf).path;
    let (selected, edits) = selected_and_edits(session, &path);
    selected
        .iter()
        .enumerate()
        .map(|(pos, &i)| project_selected(session, &edits, pos, i).len())
        .sum()
}

/// Builds the context with the leaf at `leaf` (`None`: an empty context, as after
/// `resetLeaf`).
pub fn build_context(session: &Session, leaf: Option<EntryIdx>) -> Context {
    let Some(leaf) = leaf else {
        return Context {
            thinking_level: Value::String("off".into()),
            ..Context::default()
        };
    };
    let branch = session.branch(leaf);
    let path = &branch.path;
    let (thinking_level, model) = settings(session, path);
    let (selected, edits) = selected_and_edits(session, path);
    let compaction = selected
        .first()
        .copied()
        .filter(|&i| session.entries[i].kind == EntryKind::Compaction);
    Context {
        thinking_level,
        model,
        compaction,
        entries: selected,
        cycle_at: branch.cycle_at,
        edits,
    }
}

/// Pi's `getSessionContextSettings`: the last thinking level and model on the path.
fn settings(session: &Session, path: &[EntryIdx]) -> (Value, Option<Value>) {
    let mut thinking = Value::String("off".into());
    let mut model = None;
    let opt = |s: &Option<super::entry::Shared>| s.as_deref().map(|s| Value::String(s.into()));
    for &i in path {
        let e = &session.entries[i];
        match &e.detail {
            Detail::ThinkingLevel { level } => {
                // A non-string level is carried as written.
                thinking = match level {
                    Some(l) => Value::String(l.to_string()),
                    None => session.value(i).get("thinkingLevel").cloned().unwrap_or(Value::Null),
                };
            }
            Detail::ModelChange { provider, model_id } => {
                model = Some(model_value(opt(provider), opt(model_id)));
            }
            Detail::Message {
                role: Some(Role::Assistant),
                provider,
                model: m,
                ..
            } => {
                model = Some(model_value(opt(provider), opt(m)));
            }
            _ => {}
        }
    }
    (thinking, model)
}

fn model_value(provider: Option<Value>, model_id: Option<Value>) -> Value {
    let mut m = Map::new();
    if let Some(p) = provider {
        m.insert("provider".into(), p);
    }
    if let Some(id) = model_id {
        m.insert("modelId".into(), id);
    }
    Value::Object(m)
}

/// Pi's `buildContextEntries`: the path, or with a compaction on it, the latest compaction
/// followed by the non-system entries from its `firstKeptEntryId` and everything after it.
pub fn context_entries(session: &Session, path: &[EntryIdx]) -> Vec<EntryIdx> {
    let Some(cpos) = path
        .iter()
        .rposition(|&i| session.entries[i].kind == EntryKind::Compaction)
    else {
        return path.to_vec();
    };
    let c = &session.entries[path[cpos]];
    let first_kept = match &c.detail {
        Detail::Compaction { first_kept, .. } => *first_kept,
        _ => None,
    };
    let mut out = vec![path[cpos]];
    let mut found = false;
    for &i in &path[..cpos] {
        let e = &session.entries[i];
        if first_kept.is_some() && e.id == first_kept {
            found = true;
        }
        if found && !e.is_system_message() {
            out.push(i);
        }
    }
    out.extend_from_slice(&path[cpos + 1..]);
    out
}

/// Pi's `projectContextEntry`: the messages one entry contributes, with an edit applied.
fn project(session: &Session, idx: EntryIdx, edit: Option<&Value>) -> Vec<Value> {
    let messages = entry_messages(session, idx);
    match edit {
        Some(edit) => messages.into_iter().filter_map(|m| apply_edit(m, edit)).collect(),
        None => messages,
    }
}

/// A context edit applied to one message, as Pi applies it: a `null` replacement drops the
/// message (`None`); otherwise a user, assistant, tool-result or custom message takes the
/// replacement's `content` (a string as one text block for assistant and tool results; no
/// `content` key when the replacement has none, as `{...message, content: undefined}`
/// serializes). Pi dereferences a missing `replacement` and would throw; it reads here as a
/// replacement without content.
pub(crate) fn apply_edit(mut m: Value, edit: &Value) -> Option<Value> {
    let content = match edit.get("replacement") {
        Some(Value::Null) => return None,
        r => r.and_then(|r| r.get("content")).cloned(),
    };
    let role = m.get("role").and_then(Value::as_str).unwrap_or("").to_owned();
    if !matches!(role.as_str(), "user" | "assistant" | "toolResult" | "custom") {
        return Some(m);
    }
    let content = match (content, role.as_str()) {
        (Some(Value::String(text)), "assistant" | "toolResult") => Some(json!([{"type": "text", "text": text}])),
        (c, _) => c,
    };
    if let Some(o) = m.as_object_mut() {
        match content {
            Some(c) => {
                o.insert("content".into(), c);
            }
            None => {
                o.shift_remove("content");
            }
        }
    }
    Some(m)
}

/// Pi's `sessionEntryToContextMessages`.
pub fn entry_messages(session: &Session, idx: EntryIdx) -> Vec<Value> {
    let e = &session.entries[idx];
    match e.kind {
        EntryKind::Message => {
            let v = session.value(idx);
            let Some(mut message) = v.get("message").cloned() else {
                return Vec::new();
            };
            if let Some(o) = message.as_object_mut() {
                let role = o.get("role").and_then(Value::as_str).unwrap_or("").to_owned();
                let missing = o.get("content").is_none_or(Value::is_null);
                if missing && role == "system" {
                    o.insert("content".into(), Value::String(String::new()));
                } else if missing && matches!(role.as_str(), "user" | "assistant" | "toolResult") {
                    o.insert("content".into(), Value::Array(Vec::new()));
                }
            }
            // JSON.stringify drops a message that is `undefined`; `null` messages stay `null`.
            vec![message]
        }
        EntryKind::CustomMessage => {
            let v = session.value(idx);
            let mut m = Map::new();
            m.insert("role".into(), "custom".into());
            copy(&v, "customType", &mut m);
            let content = v
                .get("content")
                .filter(|c| !c.is_null())
                .cloned()
                .unwrap_or(Value::Array(Vec::new()));
            m.insert("content".into(), content);
            copy(&v, "display", &mut m);
            copy(&v, "details", &mut m);
            m.insert("timestamp".into(), ms_value(&v));
            vec![Value::Object(m)]
        }
        EntryKind::BranchSummary => {
            let v = session.value(idx);
            if !truthy(v.get("summary")) {
                return Vec::new();
            }
            let mut m = Map::new();
            m.insert("role".into(), "branchSummary".into());
            copy(&v, "summary", &mut m);
            copy(&v, "fromId", &mut m);
            m.insert("timestamp".into(), ms_value(&v));
            vec![Value::Object(m)]
        }
        EntryKind::Compaction => {
            let v = session.value(idx);
            let mut m = Map::new();
            m.insert("role".into(), "compactionSummary".into());
            copy(&v, "summary", &mut m);
            copy(&v, "tokensBefore", &mut m);
            m.insert("timestamp".into(), ms_value(&v));
            let summary = Value::Object(m);
            match v.get("systemMessage").filter(|s| truthy(Some(s))) {
                Some(system) => vec![system.clone(), summary],
                None => vec![summary],
            }
        }
        _ => Vec::new(),
    }
}

/// Copies a field when present; JSON.stringify drops `undefined` ones.
fn copy(from: &Value, key: &str, to: &mut Map<String, Value>) {
    if let Some(v) = from.get(key) {
        to.insert(key.into(), v.clone());
    }
}

/// `new Date(entry.timestamp).getTime()`, `null` when JavaScript would give NaN.
fn ms_value(entry: &Value) -> Value {
    date_value_ms(entry.get("timestamp"))
        .map(Value::from)
        .unwrap_or(Value::Null)
}

/// JavaScript truthiness of a JSON value (`undefined` when absent).
pub fn truthy(v: Option<&Value>) -> bool {
    match v {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_f64().is_some_and(|f| f != 0.0 && !f.is_nan()),
        Some(Value::String(s)) => !s.is_empty(),
        Some(_) => true,
    }
}
