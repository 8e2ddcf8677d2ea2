//! The message counts of Pi's `/session` (RPC `get_session_stats`): how many messages, by
//! role, and how many tool calls the assistant messages make, with Pi's rules (every
//! `message` entry counts towards `totalMessages`; a tool call is a content block whose
//! `type` is `toolCall` in an assistant message whose content is an array).

use super::{Scope, entries_of};
use crate::session::{Detail, EntryIdx, EntryKind, Role, Session, Tools};
use serde::Serialize;
use serde_json::Value;

/// `stats --json`'s counts, Pi's names first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Counts {
    pub user_messages: u64,
    pub assistant_messages: u64,
    pub tool_calls: u64,
    pub tool_results: u64,
    pub total_messages: u64,
    /// Compaction and branch-summary entries (Pi does not count these).
    pub compactions: u64,
    pub branch_summaries: u64,
    /// By tool name (`""` when a call or result names none): most calls first, then by name.
    pub by_tool: Vec<ToolCounts>,
}

/// The calls of one tool, its results and how many of them failed (`isError`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolCounts {
    pub name: String,
    pub calls: u64,
    pub results: u64,
    pub failed: u64,
}

fn tool<'a>(by_tool: &'a mut Vec<ToolCounts>, name: &str) -> &'a mut ToolCounts {
    match by_tool.iter().position(|t| t.name == name) {
        Some(i) => &mut by_tool[i],
        None => {
            by_tool.push(ToolCounts {
                name: name.to_owned(),
                ..ToolCounts::default()
            });
            by_tool.last_mut().expect("just pushed")
        }
    }
}

/// The counts of a scope's entries.
pub fn message_counts(session: &Session, scope: Scope) -> Counts {
    let (entries, _) = entries_of(session, scope);
    let mut c = Counts::default();
    for idx in entries {
        let e = &session.entries[idx];
        match e.kind {
            EntryKind::Compaction => c.compactions += 1,
            EntryKind::BranchSummary => c.branch_summaries += 1,
            EntryKind::Message => {
                c.total_messages += 1;
                match e.role() {
                    Some(Role::User) => c.user_messages += 1,
                    Some(Role::ToolResult) => {
                        c.tool_results += 1;
                        let (name, failed) = result_of(session, idx);
                        let t = tool(&mut c.by_tool, &name);
                        t.results += 1;
                        t.failed += u64::from(failed);
                    }
                    Some(Role::Assistant) => {
                        c.assistant_messages += 1;
                        for name in tool_calls(session, idx) {
                            c.tool_calls += 1;
                            tool(&mut c.by_tool, &name).calls += 1;
                        }
                    }
                    _ => {}
                }
            }
            _ => {}
        }
    }
    c.by_tool
        .sort_by(|a, b| b.calls.cmp(&a.calls).then_with(|| a.name.cmp(&b.name)));
    c
}

/// A tool result's `toolName` and whether it failed (`isError` is `true`).
pub fn result_of(session: &Session, idx: EntryIdx) -> (String, bool) {
    if let Some(at) = session.entries[idx].message_at() {
        let name = at
            .tool_name
            .and_then(|p| {
                serde_json::Deserializer::from_slice(&session.raw(idx)[p.get() as usize..])
                    .into_iter::<Value>()
                    .next()
            })
            .and_then(Result::ok);
        return (
            name.as_ref().and_then(Value::as_str).unwrap_or("").to_owned(),
            at.is_error,
        );
    }
    let v = session.value(idx);
    let name = v.pointer("/message/toolName").and_then(Value::as_str).unwrap_or("");
    (
        name.to_owned(),
        v.pointer("/message/isError") == Some(&Value::Bool(true)),
    )
}

/// The names of the tool-call blocks of an assistant message (`""` for a name that is not a
/// string), as the loader read them.
pub fn tool_calls(session: &Session, idx: EntryIdx) -> Vec<String> {
    match &session.entries[idx].detail {
        Detail::Message {
            tools: Tools::Calls(calls),
            ..
        } => calls.names.iter().map(|n| n.to_string()).collect(),
        _ => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn session(lines: &[Value]) -> Session {
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        Session::from_bytes("t.jsonl".into(), text.into_bytes()).unwrap()
    }

    fn msg(id: &str, parent: Option<&str>, message: Value) -> Value {
        json!({"type":"message","id":id,"parentId":parent,"timestamp":"2025-01-01T00:00:01.000Z","message":message})
    }

    fn sample() -> Session {
        session(&[
            json!({"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}),
            msg("a", None, json!({"role":"user","content":"hi"})),
            msg(
                "b",
                Some("a"),
                json!({"role":"assistant","content":[
                {"type":"text","text":"calling toolCall"},
                {"type":"toolCall","id":"c1","name":"read","arguments":{}},
                {"type":"toolCall","name":"bash","arguments":{}}]}),
            ),
            msg(
                "c",
                Some("b"),
                json!({"role":"toolResult","toolCallId":"c1","toolName":"read","content":[],"isError":true}),
            ),
            msg(
                "d",
                Some("a"),
                json!({"role":"assistant","content":[
                {"type":"toolCall","id":"c2","name":"read","arguments":{}}]}),
            ),
            msg(
                "e",
                Some("d"),
                json!({"role":"bashExecution","command":"ls","output":""}),
            ),
            json!({"type":"compaction","id":"f","parentId":"e","timestamp":"2025-01-01T00:00:04.000Z",
                   "summary":"s","firstKeptEntryId":"d","tokensBefore":5}),
            msg(
                "g",
                Some("f"),
                json!({"role":"assistant","content":"no blocks: toolCall"}),
            ),
        ])
    }

    #[test]
    fn counts_the_whole_file_as_pi_does() {
        let c = message_counts(&sample(), Scope::File);
        assert_eq!(
            c,
            Counts {
                user_messages: 1,
                assistant_messages: 3,
                tool_calls: 3,
                tool_results: 1,
                total_messages: 6,
                compactions: 1,
                branch_summaries: 0,
                by_tool: vec![
                    ToolCounts {
                        name: "read".into(),
                        calls: 2,
                        results: 1,
                        failed: 1
                    },
                    ToolCounts {
                        name: "bash".into(),
                        calls: 1,
                        results: 0,
                        failed: 0
                    },
                ],
            }
        );
    }

    #[test]
    fn branch_counts_only_its_entries() {
        let s = sample();
        let c = message_counts(&s, Scope::Branch(s.lookup("e")));
        assert_eq!(
            (c.user_messages, c.assistant_messages, c.tool_calls, c.total_messages),
            (1, 1, 1, 3)
        );
        assert_eq!(c.compactions, 0);
    }

    #[test]
    fn escaped_type_is_a_call() {
        let text = concat!(
            r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}"#,
            "\n",
            r#"{"type":"message","id":"a","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{"role":"assistant","content":[{"type":"\u0074oolCall","name":"x","arguments":{}},{"type":"toolCall","id":"k","name":"x","arguments":{}}]}}"#,
            "\n"
        );
        let s = Session::from_bytes("t.jsonl".into(), text.as_bytes().to_vec()).unwrap();
        assert_eq!(message_counts(&s, Scope::File).tool_calls, 2);
    }
}
