//! Codex CLI's sessions: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<uuid>.jsonl`.
//!
//! A rollout is one JSON object a line, `{"timestamp", "type", "payload"}` (Codex's
//! `RolloutLine`, `codex-rs/protocol`), `type` one of `session_meta`, `response_item`,
//! `event_msg`, `turn_context`, `compacted`. It is linear, so the Pi session is a chain: each
//! entry the child of the one before, the last the leaf.
//!
//! - `session_meta` makes the header (its `id`, `timestamp`, `cwd`) and a `custom` entry
//!   keeping the rest (instructions, git, CLI version);
//! - `response_item` `message`s of the user become user messages (`input_text` text,
//!   `input_image` data URLs images); what Codex injects as user text (`<environment_context>`,
//!   `<user_instructions>`, `# AGENTS.md instructions…`, `<turn_aborted>`) and `developer` or
//!   `system` messages are not the user's words and become `custom` entries;
//! - a run of model output (`reasoning`, assistant `message`, `function_call`,
//!   `custom_tool_call`, `local_shell_call`) becomes one assistant message (thinking from the
//!   reasoning *summaries*, or its plain `content` when it has no summary, never
//!   `encrypted_content`; text; toolCall blocks) and the outputs that answer its calls the tool
//!   results after it (an output answering no call is a `custom` entry: Pi would see an orphan);
//! - `event_msg` `token_count` gives the usage of the latest assistant message of the turn
//!   (`last_token_usage`: input less the cached part, cacheRead the cached part, output as
//!   counted — Codex's `output_tokens` already hold the reasoning tokens); `user_message`,
//!   `agent_message` and `agent_reasoning*` repeat response items and are skipped; the other
//!   events Codex persists become `custom` entries (`import.codex.<type>`);
//! - `turn_context` gives `model_change` (when the model changes) and `thinking_level_change`
//!   (when the reasoning effort does) entries;
//! - `compacted` becomes a retain-none `compaction` entry (its own id as `firstKeptEntryId`).
//!
//! Files written before Codex wrapped records in `payload` (a first line with `id` and
//! `timestamp`, then bare response items and `record_type: "state"` lines) read the same way.

use super::pi::{self, Body, ImportedFrom, PiEntry, PiSession};
use super::{Converted, Options, Report};
use crate::llm::Usage;
use crate::session::SessionError;
use serde_json::{Value, json};
use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

const API: &str = "openai-responses";
const PROVIDER: &str = "openai";

/// The `event_msg` types that repeat a response item.
const DUPLICATE_EVENTS: &[&str] = &[
    "user_message",
    "agent_message",
    "agent_reasoning",
    "agent_reasoning_raw_content",
    "agent_reasoning_section_break",
];

/// The other `event_msg` types Codex persists (its rollout policy), kept as `custom` entries.
const KNOWN_EVENTS: &[&str] = &[
    "patch_apply_end",
    "exec_command_end",
    "mcp_tool_call_end",
    "web_search_end",
    "view_image_tool_call",
    "image_generation_end",
    "thread_name_updated",
    "context_compacted",
    "entered_review_mode",
    "exited_review_mode",
    "thread_rolled_back",
    "turn_aborted",
    "task_started",
    "task_complete",
    "turn_started",
    "turn_complete",
    "item_completed",
    "error",
    "warning",
    "stream_error",
    "guardian_assessment",
    "plan_update",
    "collab_agent_spawn_end",
    "collab_agent_interaction_end",
    "collab_waiting_end",
    "collab_close_end",
    "collab_resume_end",
    "dynamic_tool_call_request",
    "dynamic_tool_call_response",
];

/// The response item types that are model output (one assistant message while they run).
const MODEL_OUTPUT: &[&str] = &["reasoning", "function_call", "custom_tool_call", "local_shell_call"];

/// The response item types kept as `custom` entries (Pi has no place for them).
const OTHER_ITEMS: &[&str] = &[
    "web_search_call",
    "image_generation_call",
    "tool_search_call",
    "tool_search_output",
    "ghost_snapshot",
    "compaction",
    "compaction_summary",
];

/// Converts one Codex CLI session file.
pub fn convert(bytes: &[u8], path: &Path, options: &Options) -> Result<Converted, SessionError> {
    let mut r = Reader::new(options);
    let mut lines = bytes.split(|&b| b == b'\n').peekable();
    let mut n = 0u32;
    while let Some(line) = lines.next() {
        n += 1;
        let line = line.strip_suffix(b"\r").unwrap_or(line);
        if line.iter().all(u8::is_ascii_whitespace) {
            continue;
        }
        match serde_json::from_slice::<Value>(line) {
            Ok(v @ Value::Object(_)) => r.record(v, n == 1),
            _ => {
                r.report.malformed_lines.push(n);
                if lines.peek().is_none() {
                    r.report.notes.push(format!(
                        "the last line ({n}) is cut short (a session being written?): left out"
                    ));
                }
            }
        }
    }
    r.finish(path)
}

/// One Pi entry to be, before the ids and the usage are settled.
enum Item {
    Assistant(Assistant),
    Message {
        ms: i64,
        message: Value,
    },
    Other {
        ms: i64,
        body: Body,
    },
    Compaction {
        ms: i64,
        summary: String,
        tokens_before: u64,
    },
}

struct Assistant {
    ms: i64,
    model: String,
    content: Vec<Value>,
    usage: Option<Usage>,
}

struct Reader<'a> {
    options: &'a Options,
    report: Report,
    items: Vec<Item>,
    /// The assistant message the model's output goes to (a run not yet ended by a tool output,
    /// a user message, a compaction or a model change).
    open: Option<usize>,
    /// The assistant message a `token_count` goes to: the latest of the turn.
    usage_target: Option<usize>,
    /// The tool name (as written to Pi) of every call, by `call_id`.
    calls: HashMap<String, String>,
    model: Option<String>,
    effort: Option<String>,
    last_total: Option<Value>,
    /// The context size the latest `token_count` reports (a compaction's `tokensBefore`).
    context_tokens: u64,
    duplicates: usize,
    encrypted_only: usize,
    orphans: usize,
    legacy_state: usize,
    /// The time of the latest record (a record without one gets it).
    ms: Option<i64>,
    meta: Option<Value>,
    meta_ms: Option<i64>,
    /// The cwd a `turn_context` or `<environment_context>` names, for a meta without one.
    cwd_seen: Option<String>,
}

impl<'a> Reader<'a> {
    fn new(options: &'a Options) -> Self {
        Reader {
            options,
            report: Report::default(),
            items: Vec::new(),
            open: None,
            usage_target: None,
            calls: HashMap::new(),
            model: None,
            effort: None,
            last_total: None,
            context_tokens: 0,
            duplicates: 0,
            encrypted_only: 0,
            orphans: 0,
            legacy_state: 0,
            ms: None,
            meta: None,
            meta_ms: None,
            cwd_seen: None,
        }
    }

    fn record(&mut self, v: Value, first: bool) {
        if let Some(ms) = v["timestamp"].as_str().and_then(pi::ms_of) {
            self.ms = Some(ms);
        }
        let kind = v["type"].as_str().unwrap_or("").to_owned();
        let payload = &v["payload"];
        if !payload.is_object() {
            // The shape before `payload`: a first line of meta, then bare items.
            if first && v.get("type").is_none() && v["id"].is_string() {
                return self.session_meta(&v);
            }
            if v.get("record_type").is_some() {
                self.legacy_state += 1;
                return;
            }
            if v.get("type").is_some() && v.get("payload").is_none() {
                return self.response_item(&v);
            }
            *self
                .report
                .unknown
                .entry(if kind.is_empty() { "(no type)".into() } else { kind })
                .or_default() += 1;
            return;
        }
        match kind.as_str() {
            "session_meta" => self.session_meta(payload),
            "response_item" => self.response_item(payload),
            "event_msg" => self.event(payload),
            "turn_context" => self.turn_context(payload),
            "compacted" => self.compacted(payload),
            _ => *self.report.unknown.entry(kind).or_default() += 1,
        }
    }

    fn now(&self) -> i64 {
        self.ms.or(self.meta_ms).unwrap_or(0)
    }

    fn custom(&mut self, what: &str, data: &Value) {
        let mut data = data.clone();
        strip_encrypted(&mut data);
        *self.report.custom.entry(what.to_owned()).or_default() += 1;
        self.items.push(Item::Other {
            ms: self.now(),
            body: Body::Custom {
                custom_type: format!("import.codex.{what}"),
                data,
            },
        });
    }

    /// Ends the run of model output: what comes next is a new message.
    fn close(&mut self) {
        self.open = None;
    }

    fn session_meta(&mut self, p: &Value) {
        if self.meta.is_some() {
            // A resumed or forked rollout can carry another meta line: kept, not the header.
            return self.custom("session_meta", p);
        }
        self.meta_ms = p["timestamp"].as_str().and_then(pi::ms_of);
        self.meta = Some(p.clone());
        self.custom("session_meta", p);
    }

    fn response_item(&mut self, p: &Value) {
        let kind = p["type"].as_str().unwrap_or("");
        match kind {
            "message" => self.message(p),
            _ if MODEL_OUTPUT.contains(&kind) => self.model_output(p),
            "function_call_output" | "custom_tool_call_output" => self.tool_output(p),
            _ if OTHER_ITEMS.contains(&kind) => self.custom(kind, p),
            _ => *self.report.unknown.entry(format!("response_item.{kind}")).or_default() += 1,
        }
    }

    fn message(&mut self, p: &Value) {
        let role = p["role"].as_str().unwrap_or("");
        let content = p["content"].as_array().map(Vec::as_slice).unwrap_or_default();
        match role {
            "assistant" => {
                let texts: Vec<Value> = content
                    .iter()
                    .filter_map(|c| c["text"].as_str())
                    .map(pi::text)
                    .collect();
                let a = self.open_assistant();
                a.content.extend(texts);
            }
            "user" => {
                let first = content.iter().find_map(|c| c["text"].as_str()).unwrap_or("");
                if let Some(what) = injected(first) {
                    if let Some(cwd) = tag(first, "cwd") {
                        self.cwd_seen.get_or_insert(cwd.to_owned());
                    }
                    return self.custom(what, p);
                }
                self.close();
                self.usage_target = None;
                let blocks: Vec<Value> = content.iter().filter_map(user_block).collect();
                let ms = self.now();
                self.items.push(Item::Message {
                    ms,
                    message: pi::user(Value::Array(blocks), ms),
                });
            }
            "developer" | "system" => self.custom(&format!("{role}_message"), p),
            _ => *self.report.unknown.entry(format!("message.{role}")).or_default() += 1,
        }
    }

    fn open_assistant(&mut self) -> &mut Assistant {
        let i = match self.open {
            Some(i) => i,
            None => {
                self.items.push(Item::Assistant(Assistant {
                    ms: self.now(),
                    model: self.model.clone().unwrap_or_else(|| "unknown".into()),
                    content: Vec::new(),
                    usage: None,
                }));
                let i = self.items.len() - 1;
                self.open = Some(i);
                self.usage_target = Some(i);
                i
            }
        };
        match &mut self.items[i] {
            Item::Assistant(a) => a,
            _ => unreachable!("open is an assistant message"),
        }
    }

    fn model_output(&mut self, p: &Value) {
        match p["type"].as_str().unwrap_or("") {
            "reasoning" => {
                let mut texts: Vec<&str> = p["summary"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|s| s["text"].as_str())
                    .collect();
                if texts.is_empty() {
                    texts = p["content"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(|s| s["text"].as_str())
                        .collect();
                }
                if texts.is_empty() {
                    self.encrypted_only += 1;
                    return;
                }
                let block = pi::thinking(&texts.join("\n\n"), None);
                self.open_assistant().content.push(block);
            }
            kind => {
                let (call_id, name, arguments) = match kind {
                    "function_call" => {
                        let raw = p["arguments"].as_str().unwrap_or("");
                        let args = match serde_json::from_str::<Value>(raw) {
                            Ok(v @ Value::Object(_)) => v,
                            Ok(v) => json!({ "input": v }),
                            Err(_) => json!({ "input": raw }),
                        };
                        (p["call_id"].as_str(), p["name"].as_str().unwrap_or("function"), args)
                    }
                    "custom_tool_call" => (
                        p["call_id"].as_str(),
                        p["name"].as_str().unwrap_or("custom_tool"),
                        json!({ "input": p["input"].as_str().unwrap_or("") }),
                    ),
                    _ => {
                        // local_shell_call: `action` {type: exec, command: [argv], …}.
                        let mut action = p["action"].clone();
                        if let Some(o) = action.as_object_mut() {
                            o.remove("type");
                        }
                        let args = if action.is_object() { action } else { json!({}) };
                        (p["call_id"].as_str().or(p["id"].as_str()), "local_shell", args)
                    }
                };
                let call_id = call_id
                    .map(str::to_owned)
                    .unwrap_or_else(|| format!("call_{}", self.calls.len() + 1));
                let (name, arguments) = if self.options.map_tools {
                    let cwd = self.meta.as_ref().and_then(|m| m["cwd"].as_str()).unwrap_or("");
                    map_tool(name, arguments, cwd)
                } else {
                    (name.to_owned(), arguments)
                };
                self.calls.insert(call_id.clone(), name.clone());
                let block = pi::tool_call(&call_id, &name, arguments);
                self.open_assistant().content.push(block);
            }
        }
    }

    fn tool_output(&mut self, p: &Value) {
        let call_id = p["call_id"].as_str().unwrap_or("");
        let Some(name) = self.calls.get(call_id).cloned() else {
            // No call to answer: a tool result here would be an orphan to Pi.
            self.orphans += 1;
            let kind = p["type"].as_str().unwrap_or("function_call_output").to_owned();
            return self.custom(&kind, p);
        };
        self.close();
        let (content, is_error) = output_content(&p["output"]);
        let ms = self.now();
        self.items.push(Item::Message {
            ms,
            message: pi::tool_result(call_id, &name, content, is_error, ms),
        });
    }

    fn event(&mut self, p: &Value) {
        let kind = p["type"].as_str().unwrap_or("");
        if DUPLICATE_EVENTS.contains(&kind) {
            self.duplicates += 1;
        } else if kind == "token_count" {
            self.token_count(p);
        } else if KNOWN_EVENTS.contains(&kind) {
            self.custom(kind, p);
        } else {
            *self.report.unknown.entry(format!("event_msg.{kind}")).or_default() += 1;
        }
    }

    fn token_count(&mut self, p: &Value) {
        let info = &p["info"];
        if !info.is_object() {
            return; // rate limits only
        }
        let total = info["total_token_usage"].clone();
        if !total.is_null() && self.last_total.as_ref() == Some(&total) {
            return; // Codex repeats the count at the end of a turn
        }
        let last = match &info["last_token_usage"] {
            l if l.is_object() => l.clone(),
            _ => delta(&total, self.last_total.as_ref()),
        };
        self.last_total = Some(total);
        let n = |k: &str| last[k].as_u64().unwrap_or(0);
        self.context_tokens = n("total_tokens");
        let Some(i) = self.usage_target else { return };
        let Item::Assistant(a) = &mut self.items[i] else { return };
        let cached = n("cached_input_tokens");
        let u = pi::usage(
            PROVIDER,
            &a.model,
            n("input_tokens").saturating_sub(cached),
            n("output_tokens"),
            cached,
            0,
        );
        // A message made of two model responses has both counts.
        a.usage = Some(match &a.usage {
            Some(before) => before.add(&u),
            None => u,
        });
    }

    fn turn_context(&mut self, p: &Value) {
        if let Some(cwd) = p["cwd"].as_str() {
            self.cwd_seen.get_or_insert(cwd.to_owned());
        }
        if let Some(model) = p["model"].as_str().filter(|m| !m.is_empty())
            && self.model.as_deref() != Some(model)
        {
            self.close();
            self.model = Some(model.to_owned());
            self.items.push(Item::Other {
                ms: self.now(),
                body: Body::ModelChange {
                    provider: PROVIDER.into(),
                    model_id: model.to_owned(),
                },
            });
        }
        if let Some(effort) = p["effort"].as_str().filter(|e| !e.is_empty())
            && self.effort.as_deref() != Some(effort)
        {
            self.close();
            self.effort = Some(effort.to_owned());
            let level = if effort == "none" { "off" } else { effort };
            self.items.push(Item::Other {
                ms: self.now(),
                body: Body::ThinkingLevelChange(level.to_owned()),
            });
        }
    }

    fn compacted(&mut self, p: &Value) {
        self.close();
        self.usage_target = None;
        if p["replacement_history"].is_array() {
            self.report
                .notes
                .push("a compaction's replacement history is left out (its summary is kept)".into());
        }
        self.items.push(Item::Compaction {
            ms: self.now(),
            summary: p["message"].as_str().unwrap_or("").to_owned(),
            tokens_before: self.context_tokens,
        });
    }

    fn finish(mut self, path: &Path) -> Result<Converted, SessionError> {
        let refuse = |why: &str| SessionError::Refused(format!("{}: not a Codex CLI session ({why})", path.display()));
        let meta = self.meta.take().ok_or_else(|| refuse("no session_meta line"))?;
        let session_id = meta["id"]
            .as_str()
            .ok_or_else(|| refuse("the session_meta has no id"))?
            .to_owned();
        let cwd = meta["cwd"]
            .as_str()
            .map(str::to_owned)
            .or(self.cwd_seen.take())
            .ok_or_else(|| refuse("no cwd"))?;
        let start = self.meta_ms.or(self.ms).unwrap_or(0);

        let r = &mut self.report;
        if self.duplicates > 0 {
            r.notes.push(format!(
                "{} event_msg records repeating a response item (user_message, agent_message, agent_reasoning) skipped",
                self.duplicates
            ));
        }
        if self.encrypted_only > 0 {
            r.notes.push(format!(
                "{} reasoning items with no summary (encrypted only) left out",
                self.encrypted_only
            ));
        }
        if self.orphans > 0 {
            r.notes.push(format!(
                "{} tool outputs answering no call kept as custom entries",
                self.orphans
            ));
        }
        if self.legacy_state > 0 {
            r.notes
                .push(format!("{} legacy record_type state lines skipped", self.legacy_state));
        }
        r.notes.dedup();

        let mut entries: Vec<PiEntry> = Vec::with_capacity(self.items.len());
        let mut taken = HashSet::new();
        for item in self.items {
            let id = crate::session::io::append::new_entry_id(|id| taken.contains(id));
            taken.insert(id.clone());
            let (ms, body) = match item {
                Item::Assistant(a) => {
                    if a.content.is_empty() && a.usage.is_none() {
                        taken.remove(&id);
                        continue;
                    }
                    let calls = a.content.iter().any(|b| b["type"] == "toolCall");
                    let usage = a.usage.unwrap_or_else(|| pi::usage(PROVIDER, &a.model, 0, 0, 0, 0));
                    let stop = if calls { "toolUse" } else { "stop" };
                    let m = pi::assistant(a.content, API, PROVIDER, &a.model, &usage, stop, a.ms);
                    (a.ms, Body::Message(m))
                }
                Item::Message { ms, message } => (ms, Body::Message(message)),
                Item::Other { ms, body } => (ms, body),
                Item::Compaction {
                    ms,
                    summary,
                    tokens_before,
                } => (
                    ms,
                    Body::Compaction {
                        summary,
                        first_kept_entry_id: id.clone(),
                        tokens_before,
                    },
                ),
            };
            entries.push(PiEntry {
                parent_id: entries.last().map(|e| e.id.clone()),
                id,
                timestamp: pi::iso_of(ms),
                body,
            });
        }
        let session = PiSession {
            id: uuid::Uuid::now_v7().to_string(),
            timestamp: pi::iso_of(start),
            cwd,
            parent_session: None,
            imported_from: ImportedFrom {
                agent: "codex",
                path: std::path::absolute(path)
                    .unwrap_or_else(|_| path.to_path_buf())
                    .to_string_lossy()
                    .into_owned(),
                session_id,
            },
            entries,
        };
        Ok(Converted {
            session,
            report: self.report,
            children: Vec::new(),
        })
    }
}

/// What Codex puts in a user message that the user did not write: the custom type.
fn injected(text: &str) -> Option<&'static str> {
    let t = text.trim_start();
    if t.starts_with("<environment_context>") {
        Some("environment_context")
    } else if t.starts_with("<user_instructions>") || t.starts_with("# AGENTS.md instructions") {
        Some("user_instructions")
    } else if t.starts_with("<turn_aborted>") {
        Some("turn_aborted")
    } else {
        None
    }
}

/// The text of `<name>…</name>` in `text`.
fn tag<'t>(text: &'t str, name: &str) -> Option<&'t str> {
    let open = format!("<{name}>");
    let start = text.find(&open)? + open.len();
    let end = text[start..].find(&format!("</{name}>"))?;
    Some(text[start..start + end].trim())
}

/// A user content item as a Pi block: text, or an image from a data URL.
fn user_block(c: &Value) -> Option<Value> {
    match c["type"].as_str()? {
        "input_image" => {
            let url = c["image_url"].as_str()?;
            Some(match data_url(url) {
                Some((mime, data)) => pi::image(data, mime),
                None => pi::text(&format!("[image: {url}]")),
            })
        }
        _ => c["text"].as_str().map(pi::text),
    }
}

/// `(mime type, base64 data)` of a `data:<mime>;base64,<data>` URL.
fn data_url(url: &str) -> Option<(&str, &str)> {
    let rest = url.strip_prefix("data:")?;
    let (head, data) = rest.split_once(',')?;
    let mime = head.strip_suffix(";base64")?;
    Some((mime, data))
}

/// A tool output as Pi content, and whether it says the tool failed: a JSON string
/// `{output, metadata: {exit_code}}` (the shell tool), text beginning `Exit code: N` or with a
/// `Process exited with code N` line, content items, or `{content, success}`.
fn output_content(output: &Value) -> (Vec<Value>, bool) {
    match output {
        Value::String(s) => {
            if let Ok(Value::Object(o)) = serde_json::from_str::<Value>(s)
                && let Some(text) = o.get("output").and_then(Value::as_str)
            {
                let code = o.get("metadata").and_then(|m| m["exit_code"].as_i64());
                return (vec![pi::text(text)], code.is_some_and(|c| c != 0));
            }
            (vec![pi::text(s)], text_says_failed(s))
        }
        Value::Array(items) => {
            let blocks = items.iter().filter_map(user_block).collect();
            (blocks, false)
        }
        Value::Object(o) => {
            let failed = o.get("success").and_then(Value::as_bool) == Some(false);
            let (blocks, said) = match o.get("content").or(o.get("output")) {
                Some(inner @ (Value::String(_) | Value::Array(_))) => output_content(inner),
                _ => (vec![pi::text(&output.to_string())], false),
            };
            (blocks, failed || said)
        }
        Value::Null => (Vec::new(), false),
        other => (vec![pi::text(&other.to_string())], false),
    }
}

fn text_says_failed(s: &str) -> bool {
    let code = |rest: &str| rest.split_whitespace().next().and_then(|n| n.parse::<i64>().ok());
    if let Some(rest) = s.strip_prefix("Exit code:") {
        return code(rest).is_some_and(|c| c != 0);
    }
    s.lines()
        .take(4)
        .find_map(|l| l.strip_prefix("Process exited with code"))
        .and_then(code)
        .is_some_and(|c| c != 0)
}

/// The usage since `before` from two `total_token_usage`s.
fn delta(total: &Value, before: Option<&Value>) -> Value {
    let mut out = serde_json::Map::new();
    for k in ["input_tokens", "cached_input_tokens", "output_tokens", "total_tokens"] {
        let now = total[k].as_u64().unwrap_or(0);
        let was = before.and_then(|b| b[k].as_u64()).unwrap_or(0);
        out.insert(k.into(), now.saturating_sub(was).into());
    }
    Value::Object(out)
}

/// Removes every `encrypted_content` from `v`: it never leaves Codex's file.
fn strip_encrypted(v: &mut Value) {
    match v {
        Value::Object(o) => {
            o.remove("encrypted_content");
            o.values_mut().for_each(strip_encrypted);
        }
        Value::Array(a) => a.iter_mut().for_each(strip_encrypted),
        _ => {}
    }
}

/// `--map-tools`: Codex's shell tools as Pi's `bash`, an `apply_patch` that adds one file as
/// `write` and one that only changes one file as `edit`; anything else as written.
fn map_tool(name: &str, args: Value, cwd: &str) -> (String, Value) {
    let keep = |args: Value| (name.to_owned(), args);
    match name {
        "shell" | "container.exec" | "local_shell" | "shell_command" | "exec_command" => {
            let command = match args.get("command").or(args.get("cmd")) {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Array(argv)) => {
                    let argv: Vec<&str> = argv.iter().filter_map(Value::as_str).collect();
                    if argv.first() == Some(&"apply_patch")
                        && let [_, patch] = argv.as_slice()
                        && let Some(mapped) = map_patch(patch)
                    {
                        return mapped;
                    }
                    command_line(&argv)
                }
                _ => return keep(args),
            };
            let workdir = args
                .get("workdir")
                .or(args.get("working_directory"))
                .and_then(Value::as_str);
            let command = match workdir {
                Some(w) if !w.is_empty() && w != cwd => {
                    format!("cd {} && {command}", shell_quote(w))
                }
                _ => command,
            };
            ("bash".into(), json!({ "command": command }))
        }
        "apply_patch" => match args["input"].as_str().and_then(map_patch) {
            Some(mapped) => mapped,
            None => keep(args),
        },
        _ => keep(args),
    }
}

/// An argv as one shell command line: `bash -lc X` is X.
fn command_line(argv: &[&str]) -> String {
    if let [shell, flag, script] = argv
        && ["bash", "sh", "zsh", "/bin/bash", "/bin/sh", "/bin/zsh"].contains(shell)
        && ["-c", "-lc"].contains(flag)
    {
        return (*script).to_owned();
    }
    argv.iter().map(|a| shell_quote(a)).collect::<Vec<_>>().join(" ")
}

/// `s` as one shell word: as it is when it needs no quoting, else in single quotes.
fn shell_quote(s: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_@%+=:,./-".contains(c);
    if !s.is_empty() && s.chars().all(plain) {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// A patch of one `*** Add File` as Pi's `write`, of one `*** Update File` (no move) as its
/// `edit` (each hunk's context and removed lines the old text, context and added lines the new).
fn map_patch(patch: &str) -> Option<(String, Value)> {
    let body = patch
        .trim()
        .strip_prefix("*** Begin Patch")?
        .strip_suffix("*** End Patch")?
        .trim_start_matches(['\r', '\n'])
        .trim_end_matches(['\r', '\n']);
    let mut lines = body.lines();
    let op = lines.next()?;
    if let Some(path) = op.strip_prefix("*** Add File: ") {
        let mut content = String::new();
        for l in lines {
            content.push_str(l.strip_prefix('+')?);
            content.push('\n');
        }
        return Some(("write".into(), json!({ "path": path.trim(), "content": content })));
    }
    let path = op.strip_prefix("*** Update File: ")?;
    let mut hunks: Vec<(Vec<&str>, Vec<&str>)> = vec![(Vec::new(), Vec::new())];
    for l in lines {
        let (old, new) = hunks.last_mut()?;
        if l.starts_with("@@") {
            hunks.push((Vec::new(), Vec::new()));
        } else if l == "*** End of File" {
        } else if let Some(t) = l.strip_prefix('-') {
            old.push(t);
        } else if let Some(t) = l.strip_prefix('+') {
            new.push(t);
        } else if let Some(t) = l.strip_prefix(' ').or((l.is_empty()).then_some("")) {
            old.push(t);
            new.push(t);
        } else {
            return None; // another file, a move, a line this reading does not know
        }
    }
    let mut edits = Vec::new();
    for (old, new) in hunks {
        match (old.is_empty(), new.is_empty()) {
            (true, true) => {}
            (true, false) => return None, // an insertion with no context: no old text to find
            _ => edits.push(json!({ "oldText": old.join("\n"), "newText": new.join("\n") })),
        }
    }
    if edits.is_empty() {
        return None;
    }
    Some(("edit".into(), json!({ "path": path.trim(), "edits": edits })))
}

/// Every rollout file under `root` (`YYYY/MM/DD/rollout-*.jsonl`), sorted.
fn rollouts(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut dirs = vec![(root.to_path_buf(), 0)];
    while let Some((dir, depth)) = dirs.pop() {
        let Ok(read) = std::fs::read_dir(&dir) else { continue };
        for e in read.flatten() {
            let p = e.path();
            let Ok(t) = e.file_type() else { continue };
            if t.is_dir() && depth < 4 {
                dirs.push((p, depth + 1));
            } else if t.is_file() {
                let name = e.file_name();
                let name = name.to_string_lossy();
                if name.starts_with("rollout-") && name.ends_with(".jsonl") {
                    out.push(p);
                }
            }
        }
    }
    out.sort();
    out
}

/// The `session_meta` payload of a rollout's first line (either shape).
fn meta_of(path: &Path) -> Option<Value> {
    let v: Value = serde_json::from_slice(&super::first_line(path)?).ok()?;
    if v["type"] == "session_meta" {
        Some(v["payload"].clone())
    } else if v.get("type").is_none() && v["id"].is_string() {
        Some(v)
    } else {
        None
    }
}

/// Every Codex CLI session file of the project directory `cwd` under `root`: those whose
/// `session_meta` names `cwd`.
pub fn sources_for(root: &Path, cwd: &Path) -> Vec<PathBuf> {
    rollouts(root)
        .into_iter()
        .filter(|p| meta_of(p).is_some_and(|m| m["cwd"].as_str().is_some_and(|c| Path::new(c) == cwd)))
        .collect()
}

/// The Codex CLI session file whose session id is `id`, under `root`: by its name
/// (`rollout-<time>-<id>.jsonl`), else by its `session_meta`.
pub fn find_by_id(root: &Path, id: &str) -> Option<PathBuf> {
    if id.is_empty() {
        return None;
    }
    let all = rollouts(root);
    let suffix = format!("-{id}.jsonl");
    if let Some(p) = all.iter().find(|p| p.to_string_lossy().ends_with(&suffix)) {
        return Some(p.clone());
    }
    all.into_iter()
        .find(|p| meta_of(p).is_some_and(|m| m["id"].as_str() == Some(id)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const META: &str = r#"{"timestamp":"2025-09-14T10:00:00.123Z","type":"session_meta","payload":{"id":"0199479b-0000-7000-8000-000000000001","timestamp":"2025-09-14T10:00:00.120Z","cwd":"/home/dev/proj","originator":"codex_cli_rs","cli_version":"0.36.0","instructions":null}}"#;

    fn line(t: &str, payload: Value) -> String {
        json!({"timestamp": "2025-09-14T10:00:01.000Z", "type": t, "payload": payload}).to_string()
    }
    fn item(payload: Value) -> String {
        line("response_item", payload)
    }
    fn event(payload: Value) -> String {
        line("event_msg", payload)
    }
    fn user_says(t: &str) -> String {
        item(json!({"type": "message", "role": "user", "content": [{"type": "input_text", "text": t}]}))
    }
    fn model_says(t: &str) -> String {
        item(json!({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": t}]}))
    }
    fn call(name: &str, args: Value, id: &str) -> String {
        item(json!({"type": "function_call", "name": name, "arguments": args.to_string(), "call_id": id}))
    }
    fn output(id: &str, out: Value) -> String {
        item(json!({"type": "function_call_output", "call_id": id, "output": out}))
    }
    fn tokens(input: u64, cached: u64, output: u64, total_in: u64) -> String {
        let last = json!({"input_tokens": input, "cached_input_tokens": cached, "output_tokens": output, "reasoning_output_tokens": 7, "total_tokens": input + output});
        let total = json!({"input_tokens": total_in, "cached_input_tokens": 0, "output_tokens": 0, "reasoning_output_tokens": 0, "total_tokens": total_in});
        event(
            json!({"type": "token_count", "info": {"total_token_usage": total, "last_token_usage": last, "model_context_window": 272000}}),
        )
    }

    fn convert_with(lines: &[String], options: &Options) -> Converted {
        let mut text = String::from(META);
        for l in lines {
            text.push('\n');
            text.push_str(l);
        }
        text.push('\n');
        let mut c = super::convert(text.as_bytes(), Path::new("/tmp/rollout-x.jsonl"), options).unwrap();
        c.count();
        let bytes = c.session.to_bytes();
        super::super::verify(&bytes, &c.session).unwrap();
        assert!(!String::from_utf8_lossy(&bytes).contains("ENCRYPTED"));
        c
    }
    fn conv(lines: &[String]) -> Converted {
        convert_with(lines, &Options::default())
    }
    fn messages(c: &Converted) -> Vec<&Value> {
        c.session
            .entries
            .iter()
            .filter_map(|e| match &e.body {
                Body::Message(m) => Some(m),
                _ => None,
            })
            .collect()
    }
    fn kinds(c: &Converted) -> Vec<String> {
        c.session.entries.iter().map(|e| e.body.kind()).collect()
    }
    fn count(c: &Converted, kind: &str) -> usize {
        c.report.entries.get(kind).copied().unwrap_or(0)
    }

    #[test]
    fn the_meta_makes_the_header() {
        let c = conv(&[user_says("hi")]);
        let s = &c.session;
        assert_eq!(uuid::Uuid::parse_str(&s.id).unwrap().get_version_num(), 7);
        assert_eq!(s.timestamp, "2025-09-14T10:00:00.120Z");
        assert_eq!(s.cwd, "/home/dev/proj");
        assert_eq!(s.imported_from.agent, "codex");
        assert_eq!(s.imported_from.path, "/tmp/rollout-x.jsonl");
        assert_eq!(s.imported_from.session_id, "0199479b-0000-7000-8000-000000000001");
        assert!(s.parent_session.is_none());
        // The rest of the meta is kept, in a custom entry.
        assert!(matches!(&s.entries[0].body, Body::Custom { custom_type, data }
            if custom_type == "import.codex.session_meta" && data["cli_version"] == "0.36.0"));
    }

    #[test]
    fn no_meta_is_refused() {
        let text = user_says("hi");
        assert!(super::convert(text.as_bytes(), Path::new("x.jsonl"), &Options::default()).is_err());
    }

    #[test]
    fn the_entries_are_a_chain_and_the_last_is_the_leaf() {
        let c = conv(&[user_says("a"), model_says("b"), user_says("c"), model_says("d")]);
        let e = &c.session.entries;
        assert_eq!(e[0].parent_id, None);
        for w in e.windows(2) {
            assert_eq!(w[1].parent_id.as_deref(), Some(w[0].id.as_str()));
        }
        assert_eq!(kinds(&c), ["custom", "user", "assistant", "user", "assistant"]);
    }

    #[test]
    fn user_text_and_data_url_images() {
        let c = conv(&[item(json!({"type": "message", "role": "user", "content": [
            {"type": "input_text", "text": "look"},
            {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo="},
            {"type": "input_image", "image_url": "https://example.com/a.png"},
        ]}))]);
        let m = messages(&c)[0];
        assert_eq!(m["role"], "user");
        assert_eq!(m["content"][0], json!({"type": "text", "text": "look"}));
        assert_eq!(
            m["content"][1],
            json!({"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"})
        );
        assert_eq!(m["content"][2]["text"], "[image: https://example.com/a.png]");
    }

    #[test]
    fn injected_user_text_and_developer_messages_are_custom() {
        let c = conv(&[
            user_says("<user_instructions>\nbe brief\n</user_instructions>"),
            user_says("<environment_context>\n  <cwd>/x</cwd>\n</environment_context>"),
            user_says("# AGENTS.md instructions for /x\n\n<INSTRUCTIONS>\nhi\n</INSTRUCTIONS>"),
            item(json!({"type": "message", "role": "developer", "content": [{"type": "input_text", "text": "rules"}]})),
            item(json!({"type": "message", "role": "system", "content": [{"type": "input_text", "text": "sys"}]})),
            user_says("the real question"),
        ]);
        assert_eq!(count(&c, "user"), 1);
        assert_eq!(count(&c, "custom"), 6);
        for k in [
            "user_instructions",
            "environment_context",
            "developer_message",
            "system_message",
        ] {
            assert!(c.report.custom.contains_key(k), "{k}");
        }
        assert_eq!(c.report.custom["user_instructions"], 2);
    }

    #[test]
    fn a_run_of_model_output_is_one_assistant_message_then_the_results() {
        let c = conv(&[
            user_says("go"),
            item(
                json!({"type": "reasoning", "summary": [{"type": "summary_text", "text": "plan"}], "encrypted_content": "ENCRYPTED1"}),
            ),
            model_says("Running two things."),
            call("shell", json!({"command": ["ls"]}), "c1"),
            call("shell", json!({"command": ["pwd"]}), "c2"),
            output("c1", json!("a\nb")),
            output("c2", json!("/x")),
            model_says("Done."),
        ]);
        assert_eq!(
            kinds(&c),
            ["custom", "user", "assistant", "toolResult", "toolResult", "assistant"]
        );
        let m = messages(&c);
        let blocks: Vec<&str> = m[1]["content"]
            .as_array()
            .unwrap()
            .iter()
            .map(|b| b["type"].as_str().unwrap())
            .collect();
        assert_eq!(blocks, ["thinking", "text", "toolCall", "toolCall"]);
        assert_eq!(m[1]["stopReason"], "toolUse");
        assert_eq!(m[1]["api"], "openai-responses");
        assert_eq!(m[1]["provider"], "openai");
        assert_eq!(m[2]["toolCallId"], "c1");
        assert_eq!(m[2]["toolName"], "shell");
        assert_eq!(m[2]["content"][0]["text"], "a\nb");
        assert_eq!(m[4]["stopReason"], "stop");
    }

    #[test]
    fn tool_call_arguments() {
        let c = conv(&[
            user_says("go"),
            call("shell", json!({"command": ["ls", "-la"], "workdir": "/x"}), "c1"),
            item(json!({"type": "function_call", "name": "odd", "arguments": "not json", "call_id": "c2"})),
            item(
                json!({"type": "custom_tool_call", "name": "apply_patch", "input": "*** Begin Patch\n*** End Patch\n", "call_id": "c3", "status": "completed"}),
            ),
            item(
                json!({"type": "local_shell_call", "call_id": "c4", "status": "completed", "action": {"type": "exec", "command": ["echo", "hi"], "timeout_ms": 1000}}),
            ),
            output("c1", json!("")),
            output("c2", json!("")),
            item(json!({"type": "custom_tool_call_output", "call_id": "c3", "output": "ok"})),
            output("c4", json!("hi")),
        ]);
        let calls = messages(&c)[1]["content"].as_array().unwrap().clone();
        assert_eq!(
            calls[0],
            pi::tool_call("c1", "shell", json!({"command": ["ls", "-la"], "workdir": "/x"}))
        );
        assert_eq!(calls[1]["arguments"], json!({"input": "not json"}));
        assert_eq!(calls[2]["name"], "apply_patch");
        assert_eq!(
            calls[2]["arguments"],
            json!({"input": "*** Begin Patch\n*** End Patch\n"})
        );
        assert_eq!(
            calls[3],
            pi::tool_call(
                "c4",
                "local_shell",
                json!({"command": ["echo", "hi"], "timeout_ms": 1000})
            )
        );
        assert_eq!(count(&c, "toolResult"), 4);
    }

    #[test]
    fn failed_tools_are_errors() {
        let ok = json!({"output": "fine", "metadata": {"exit_code": 0, "duration_seconds": 0.1}}).to_string();
        let bad = json!({"output": "boom", "metadata": {"exit_code": 2, "duration_seconds": 0.1}}).to_string();
        let c = conv(&[
            user_says("go"),
            call("shell", json!({"command": ["a"]}), "c1"),
            call("shell", json!({"command": ["b"]}), "c2"),
            call("shell_command", json!({"command": "c"}), "c3"),
            call("exec_command", json!({"cmd": "d"}), "c4"),
            call("exec_command", json!({"cmd": "e"}), "c5"),
            call("mcp__x__y", json!({}), "c6"),
            output("c1", json!(ok)),
            output("c2", json!(bad)),
            output("c3", json!("Exit code: 1\nWall time: 0.2 seconds\nOutput:\nnope\n")),
            output(
                "c4",
                json!("Chunk ID: 1\nWall time: 0.1 seconds\nProcess exited with code 0\nOutput:\nfine\n"),
            ),
            output(
                "c5",
                json!("Chunk ID: 2\nWall time: 0.1 seconds\nProcess exited with code 127\nOutput:\nd: not found\n"),
            ),
            output("c6", json!({"content": "err: timeout", "success": false})),
        ]);
        let errors: Vec<bool> = messages(&c)[2..]
            .iter()
            .map(|m| m["isError"].as_bool().unwrap())
            .collect();
        assert_eq!(errors, [false, true, true, false, true, true]);
        assert_eq!(messages(&c)[2]["content"][0]["text"], "fine");
        assert_eq!(messages(&c)[7]["content"][0]["text"], "err: timeout");
    }

    #[test]
    fn reasoning_summaries_are_thinking_and_encrypted_content_never_leaves() {
        let c = conv(&[
            user_says("go"),
            item(
                json!({"type": "reasoning", "summary": [{"type": "summary_text", "text": "one"}, {"type": "summary_text", "text": "two"}], "content": null, "encrypted_content": "ENCRYPTED-A"}),
            ),
            item(json!({"type": "reasoning", "summary": [], "encrypted_content": "ENCRYPTED-B"})),
            model_says("answer"),
            item(json!({"type": "compaction", "encrypted_content": "ENCRYPTED-C"})),
        ]);
        let m = messages(&c)[1];
        assert_eq!(m["content"][0], json!({"type": "thinking", "thinking": "one\n\ntwo"}));
        assert_eq!(m["content"][1]["text"], "answer");
        assert_eq!(m["content"].as_array().unwrap().len(), 2);
        assert!(c.report.notes.iter().any(|n| n.contains("encrypted only")));
        // (convert_with checks that no `ENCRYPTED` reaches the bytes.)
    }

    #[test]
    fn token_counts_are_the_usage_of_their_assistant_message() {
        let c = conv(&[
            item(json!({"type": "message", "role": "user", "content": []})),
            event(json!({"type": "token_count", "info": null, "rate_limits": {}})),
            call("shell", json!({"command": ["ls"]}), "c1"),
            output("c1", json!("x")),
            // Written after the output: still the usage of the call's message.
            tokens(1000, 400, 50, 1000),
            model_says("done"),
            tokens(1200, 1000, 30, 2200),
            tokens(1200, 1000, 30, 2200), // a repeat
        ]);
        let m = messages(&c);
        let u1 = &m[1]["usage"];
        assert_eq!(
            (u1["input"].as_u64(), u1["cacheRead"].as_u64(), u1["output"].as_u64()),
            (Some(600), Some(400), Some(50))
        );
        assert_eq!(u1["totalTokens"], 1050);
        let u2 = &m[3]["usage"];
        assert_eq!(
            (u2["input"].as_u64(), u2["cacheRead"].as_u64(), u2["output"].as_u64()),
            (Some(200), Some(1000), Some(30))
        );
    }

    #[test]
    fn model_and_effort_changes() {
        let ctx = |model: &str, effort: &str| {
            line(
                "turn_context",
                json!({"cwd": "/home/dev/proj", "model": model, "effort": effort, "summary": "auto"}),
            )
        };
        let c = conv(&[
            ctx("gpt-5-codex", "medium"),
            user_says("a"),
            model_says("b"),
            ctx("gpt-5-codex", "medium"),
            user_says("c"),
            model_says("d"),
            ctx("gpt-5", "none"),
            user_says("e"),
            model_says("f"),
        ]);
        assert_eq!(
            kinds(&c),
            [
                "custom",
                "model_change",
                "thinking_level_change",
                "user",
                "assistant",
                "user",
                "assistant",
                "model_change",
                "thinking_level_change",
                "user",
                "assistant"
            ]
        );
        assert!(
            matches!(&c.session.entries[1].body, Body::ModelChange { provider, model_id } if provider == "openai" && model_id == "gpt-5-codex")
        );
        assert!(matches!(&c.session.entries[8].body, Body::ThinkingLevelChange(l) if l == "off"));
        assert_eq!(messages(&c)[1]["model"], "gpt-5-codex");
        assert_eq!(messages(&c)[5]["model"], "gpt-5");
    }

    #[test]
    fn a_compaction_retains_none() {
        let c = conv(&[
            user_says("a"),
            model_says("b"),
            tokens(5000, 0, 100, 5000),
            line(
                "compacted",
                json!({"message": "summary of a and b", "replacement_history": []}),
            ),
            user_says("c"),
        ]);
        let e = &c.session.entries[3];
        match &e.body {
            Body::Compaction {
                summary,
                first_kept_entry_id,
                tokens_before,
            } => {
                assert_eq!(summary, "summary of a and b");
                assert_eq!(first_kept_entry_id, &e.id);
                assert_eq!(*tokens_before, 5100);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn events_duplicates_skipped_others_custom_unknown_counted() {
        let c = conv(&[
            user_says("a"),
            event(json!({"type": "user_message", "message": "a", "kind": "plain"})),
            event(json!({"type": "agent_reasoning", "text": "r"})),
            model_says("b"),
            event(json!({"type": "agent_message", "message": "b"})),
            event(json!({"type": "task_complete", "last_agent_message": "b"})),
            event(json!({"type": "something_new"})),
            line("world_state", json!({})),
            item(json!({"type": "brand_new_item"})),
        ]);
        assert_eq!(kinds(&c), ["custom", "user", "assistant", "custom"]);
        assert_eq!(c.report.custom["task_complete"], 1);
        assert_eq!(c.report.unknown["event_msg.something_new"], 1);
        assert_eq!(c.report.unknown["world_state"], 1);
        assert_eq!(c.report.unknown["response_item.brand_new_item"], 1);
        assert_eq!(
            c.report
                .notes
                .iter()
                .filter(|n| n.contains("repeating a response item"))
                .count(),
            1
        );
        assert!(c.report.notes.iter().any(|n| n.starts_with("3 event_msg")));
    }

    #[test]
    fn malformed_lines_are_skipped() {
        let text = format!(
            "{META}\nnot json\n{}\n{}",
            user_says("a"),
            r#"{"timestamp":"2025-09-14T10:00:02.000Z","type":"resp"#
        );
        let c = super::convert(text.as_bytes(), Path::new("/tmp/r.jsonl"), &Options::default()).unwrap();
        assert_eq!(c.report.malformed_lines, [2, 4]);
        assert!(c.report.notes.iter().any(|n| n.contains("cut short")));
    }

    #[test]
    fn an_output_answering_no_call_is_custom() {
        let c = conv(&[user_says("a"), output("nowhere", json!("x"))]);
        assert_eq!(kinds(&c), ["custom", "user", "custom"]);
        assert_eq!(c.report.custom["function_call_output"], 1);
    }

    #[test]
    fn map_tools_shell_and_apply_patch() {
        let on = Options { map_tools: true };
        let add = "*** Begin Patch\n*** Add File: notes.md\n+# Notes\n+\n+one\n*** End Patch";
        let update = "*** Begin Patch\n*** Update File: src/a.rs\n@@ fn a() {\n     let x = 1;\n-    x\n+    x + 1\n }\n@@\n-old\n+new\n*** End Patch\n";
        let two = "*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n*** Update File: b\n@@\n-x\n+y\n*** End Patch\n";
        let c = convert_with(
            &[
                user_says("go"),
                call(
                    "shell",
                    json!({"command": ["bash", "-lc", "cargo test && echo ok"], "workdir": "/home/dev/proj"}),
                    "c1",
                ),
                call(
                    "shell",
                    json!({"command": ["grep", "-n", "it's", "src/a b.rs"], "workdir": "/home/dev/proj/sub"}),
                    "c2",
                ),
                call("exec_command", json!({"cmd": "rg foo"}), "c3"),
                call("shell_command", json!({"command": "ls"}), "c4"),
                item(json!({"type": "custom_tool_call", "name": "apply_patch", "input": add, "call_id": "c5"})),
                item(json!({"type": "custom_tool_call", "name": "apply_patch", "input": update, "call_id": "c6"})),
                call("apply_patch", json!({"input": two}), "c7"),
                call("shell", json!({"command": ["apply_patch", add]}), "c8"),
                output("c1", json!("")),
                output("c5", json!("")),
            ],
            &on,
        );
        let m = messages(&c);
        let calls = m[1]["content"].as_array().unwrap();
        assert_eq!(calls[0]["name"], "bash");
        assert_eq!(calls[0]["arguments"], json!({"command": "cargo test && echo ok"}));
        assert_eq!(
            calls[1]["arguments"]["command"],
            "cd /home/dev/proj/sub && grep -n 'it'\\''s' 'src/a b.rs'"
        );
        assert_eq!(calls[2]["arguments"], json!({"command": "rg foo"}));
        assert_eq!(calls[3]["arguments"], json!({"command": "ls"}));
        assert_eq!(calls[4]["name"], "write");
        assert_eq!(
            calls[4]["arguments"],
            json!({"path": "notes.md", "content": "# Notes\n\none\n"})
        );
        assert_eq!(calls[5]["name"], "edit");
        assert_eq!(
            calls[5]["arguments"],
            json!({"path": "src/a.rs", "edits": [
                {"oldText": "    let x = 1;\n    x\n}", "newText": "    let x = 1;\n    x + 1\n}"},
                {"oldText": "old", "newText": "new"},
            ]})
        );
        assert_eq!(calls[6]["name"], "apply_patch");
        assert_eq!(calls[6]["arguments"], json!({"input": two}));
        assert_eq!(calls[7]["name"], "write");
        // The results carry the mapped names.
        assert_eq!(m[2]["toolName"], "bash");
        assert_eq!(m[3]["toolName"], "write");
    }

    #[test]
    fn without_map_tools_names_and_arguments_stay() {
        let c = conv(&[
            user_says("go"),
            call("shell", json!({"command": ["bash", "-lc", "ls"]}), "c1"),
        ]);
        let b = &messages(&c)[1]["content"][0];
        assert_eq!(b["name"], "shell");
        assert_eq!(b["arguments"], json!({"command": ["bash", "-lc", "ls"]}));
    }

    #[test]
    fn an_insertion_without_context_is_not_an_edit() {
        let p = "*** Begin Patch\n*** Update File: a\n@@\n+new line\n*** End Patch";
        assert!(map_patch(p).is_none());
        let moved = "*** Begin Patch\n*** Update File: a\n*** Move to: b\n@@\n-x\n+y\n*** End Patch";
        assert!(map_patch(moved).is_none());
    }

    #[test]
    fn the_shape_before_payload() {
        let text = [
            r#"{"id":"6f1c2d3e-0000-4000-8000-000000000009","timestamp":"2025-05-02T09:12:44.301Z","instructions":null}"#,
            r#"{"record_type":"state"}"#,
            r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"<environment_context>\n<cwd>/old</cwd>\n</environment_context>"}]}"#,
            r#"{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}"#,
            r#"{"type":"message","role":"assistant","content":[{"type":"output_text","text":"hello"}]}"#,
        ]
        .join("\n");
        let mut c = super::convert(text.as_bytes(), Path::new("/tmp/r.jsonl"), &Options::default()).unwrap();
        c.count();
        super::super::verify(&c.session.to_bytes(), &c.session).unwrap();
        assert_eq!(c.session.cwd, "/old");
        assert_eq!(c.session.timestamp, "2025-05-02T09:12:44.301Z");
        assert_eq!(
            c.session.imported_from.session_id,
            "6f1c2d3e-0000-4000-8000-000000000009"
        );
        assert_eq!(kinds(&c), ["custom", "custom", "user", "assistant"]);
        assert!(c.report.unknown.is_empty());
    }

    #[test]
    fn sources_and_ids_under_the_root() {
        let dir = tempfile::tempdir().unwrap();
        let day = dir.path().join("2025/09/14");
        std::fs::create_dir_all(&day).unwrap();
        let a = day.join("rollout-2025-09-14T10-00-00-0199479b-0000-7000-8000-000000000001.jsonl");
        std::fs::write(&a, format!("{META}\n")).unwrap();
        let other = META
            .replace("/home/dev/proj", "/elsewhere")
            .replace("000000000001", "000000000002");
        let b = day.join("rollout-2025-09-14T11-00-00-renamed.jsonl");
        std::fs::write(&b, format!("{other}\n")).unwrap();
        std::fs::write(day.join("notes.txt"), "x").unwrap();
        assert_eq!(
            sources_for(dir.path(), Path::new("/home/dev/proj")),
            std::slice::from_ref(&a)
        );
        assert_eq!(
            sources_for(dir.path(), Path::new("/elsewhere")),
            std::slice::from_ref(&b)
        );
        assert!(sources_for(dir.path(), Path::new("/nowhere")).is_empty());
        assert_eq!(find_by_id(dir.path(), "0199479b-0000-7000-8000-000000000001"), Some(a));
        // By the meta when the name does not say.
        assert_eq!(find_by_id(dir.path(), "0199479b-0000-7000-8000-000000000002"), Some(b));
        assert_eq!(find_by_id(dir.path(), "0199479b-0000-7000-8000-000000000003"), None);
    }

    fn fixture(name: &str) -> Converted {
        let path = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/fixtures/import/codex")
            .join(name);
        let bytes = std::fs::read(&path).unwrap();
        let c = crate::import::convert(crate::import::Agent::Codex, &bytes, &path, &Options::default()).unwrap();
        let out = c.session.to_bytes();
        super::super::verify(&out, &c.session).unwrap();
        let text = String::from_utf8(out).unwrap();
        assert!(!text.contains("ENCRYPTED"), "{name}: encrypted content leaked");
        assert!(!text.contains("encrypted_content"), "{name}");
        // Mapped as well.
        let mapped =
            crate::import::convert(crate::import::Agent::Codex, &bytes, &path, &Options { map_tools: true }).unwrap();
        super::super::verify(&mapped.session.to_bytes(), &mapped.session).unwrap();
        c
    }

    fn counts(c: &Converted) -> Vec<(&str, usize)> {
        c.report.entries.iter().map(|(k, v)| (k.as_str(), *v)).collect()
    }

    #[test]
    fn fixture_older_cli() {
        let c = fixture("rollout-2025-09-14T10-02-11-0199479b-2c1e-7d40-9a51-3f0e8c6d2a17.jsonl");
        assert_eq!(
            counts(&c),
            [
                ("assistant", 8),
                ("compaction", 1),
                ("custom", 6),
                ("model_change", 2),
                ("thinking_level_change", 2),
                ("toolResult", 5),
                ("user", 3)
            ]
        );
        assert_eq!(c.report.malformed_lines, [45]);
        assert!(c.report.unknown.is_empty());
        assert_eq!(c.session.cwd, "/home/dev/tally");
        assert_eq!(c.session.timestamp, "2025-09-14T10:02:11.470Z");
        let m = messages(&c);
        let errors = m.iter().filter(|m| m["isError"] == true).count();
        assert_eq!(errors, 2);
        assert!(
            m.iter()
                .any(|m| m["role"] == "user" && m["content"][1]["type"] == "image")
        );
        assert!(
            m.iter()
                .filter(|m| m["role"] == "assistant")
                .all(|m| m["usage"]["totalTokens"].as_u64() > Some(0))
        );
        let models: Vec<&str> = m
            .iter()
            .filter(|m| m["role"] == "assistant")
            .map(|m| m["model"].as_str().unwrap())
            .collect();
        assert_eq!(
            models,
            [
                "gpt-5-codex",
                "gpt-5-codex",
                "gpt-5-codex",
                "gpt-5",
                "gpt-5",
                "gpt-5",
                "gpt-5",
                "gpt-5"
            ]
        );
    }

    #[test]
    fn fixture_newer_cli() {
        let c = fixture("rollout-2026-02-03T16-40-05-019c2a1e-5b7d-7f02-8c33-6a4e1d9b0f55.jsonl");
        assert_eq!(
            counts(&c),
            [
                ("assistant", 6),
                ("custom", 7),
                ("model_change", 1),
                ("thinking_level_change", 2),
                ("toolResult", 4),
                ("user", 2)
            ]
        );
        assert_eq!(c.report.malformed_lines, [17]);
        assert_eq!(c.report.unknown.len(), 2);
        let errors: Vec<bool> = messages(&c)
            .iter()
            .filter(|m| m["role"] == "toolResult")
            .map(|m| m["isError"] == true)
            .collect();
        assert_eq!(errors, [false, false, true, false]);
    }

    #[test]
    fn fixture_before_payload() {
        let c = fixture("rollout-2025-05-02T09-12-44-6f1c2d3e-4a5b-4c6d-8e7f-901a2b3c4d5e.jsonl");
        assert_eq!(
            counts(&c),
            [("assistant", 2), ("custom", 2), ("toolResult", 1), ("user", 1)]
        );
        assert_eq!(c.session.cwd, "/home/dev/oldproj");
        assert!(c.report.malformed_lines.is_empty());
    }

    mod prop {
        use super::*;
        use proptest::prelude::*;

        /// A Codex record, and what it adds to the expected message count given whether a
        /// run of model output is open and which calls are still unanswered.
        #[derive(Debug, Clone)]
        enum Rec {
            User,
            Injected,
            Reasoning(bool),
            Say,
            Call,
            CustomCall,
            Output(usize),
            Tokens,
            Context(u8),
            Compacted,
            Event,
            Junk,
        }

        fn rec() -> impl Strategy<Value = Rec> {
            prop_oneof![
                3 => Just(Rec::User),
                1 => Just(Rec::Injected),
                2 => any::<bool>().prop_map(Rec::Reasoning),
                3 => Just(Rec::Say),
                3 => Just(Rec::Call),
                1 => Just(Rec::CustomCall),
                4 => (0usize..4).prop_map(Rec::Output),
                2 => Just(Rec::Tokens),
                1 => (0u8..3).prop_map(Rec::Context),
                1 => Just(Rec::Compacted),
                1 => Just(Rec::Event),
                1 => Just(Rec::Junk),
            ]
        }

        proptest! {
            #[test]
            fn any_sequence_reads_back(recs in proptest::collection::vec(rec(), 0..40)) {
                let mut lines = Vec::new();
                let mut expected = 0usize;
                let mut open = false; // a run of model output with content
                let mut calls: Vec<String> = Vec::new();
                let mut answered: HashSet<String> = HashSet::new();
                let mut n = 0;
                let mut model = None;
                let mut effort_set = false;
                for r in &recs {
                    n += 1;
                    match r {
                        Rec::User => { lines.push(user_says("q")); expected += 1; open = false; }
                        Rec::Injected => lines.push(user_says("<environment_context>\n</environment_context>")),
                        Rec::Reasoning(summary) => {
                            let s = if *summary { json!([{"type": "summary_text", "text": "t"}]) } else { json!([]) };
                            lines.push(item(json!({"type": "reasoning", "summary": s, "encrypted_content": "ENCRYPTED"})));
                            if *summary && !open { expected += 1; open = true; }
                        }
                        Rec::Say => { lines.push(model_says("a")); if !open { expected += 1; open = true; } }
                        Rec::Call | Rec::CustomCall => {
                            let id = format!("c{n}");
                            lines.push(if matches!(r, Rec::Call) {
                                call("shell", json!({"command": ["ls"]}), &id)
                            } else {
                                item(json!({"type": "custom_tool_call", "name": "apply_patch", "input": "x", "call_id": id}))
                            });
                            calls.push(id);
                            if !open { expected += 1; open = true; }
                        }
                        Rec::Output(k) => {
                            match calls.iter().rev().nth(*k).cloned() {
                                Some(id) if !answered.contains(&id) => {
                                    answered.insert(id.clone());
                                    lines.push(output(&id, json!("out")));
                                    expected += 1;
                                    open = false;
                                }
                                _ => lines.push(output(&format!("none{n}"), json!("out"))),
                            }
                        }
                        Rec::Tokens => lines.push(tokens(100 + n as u64, 10, 5, 1000 * n as u64)),
                        Rec::Context(m) => {
                            lines.push(line("turn_context", json!({"model": format!("gpt-{m}"), "effort": "high"})));
                            // A new model or effort ends the run (a change entry comes between).
                            if model != Some(*m) || !effort_set {
                                open = false;
                            }
                            model = Some(*m);
                            effort_set = true;
                        }
                        Rec::Compacted => { lines.push(line("compacted", json!({"message": "s"}))); open = false; }
                        Rec::Event => lines.push(event(json!({"type": "task_complete"}))),
                        Rec::Junk => lines.push("{not json".into()),
                    }
                }
                let c = conv(&lines);
                // verify() has passed (conv): ids, parents, the leaf the last entry, messages,
                // every tool result after its call.
                let e = &c.session.entries;
                prop_assert_eq!(messages(&c).len(), expected);
                for w in e.windows(2) {
                    prop_assert_eq!(w[1].parent_id.as_deref(), Some(w[0].id.as_str()));
                }
                let users = recs.iter().filter(|r| matches!(r, Rec::User)).count();
                prop_assert_eq!(count(&c, "user"), users);
                prop_assert_eq!(count(&c, "toolResult"), answered.len());
                prop_assert_eq!(c.report.malformed_lines.len(), recs.iter().filter(|r| matches!(r, Rec::Junk)).count());
            }
        }
    }
}
