//! Compaction and branch summaries as Pi 1.6.0 makes them: the plan (what is summarized,
//! what is kept), the summary requests, and the entries appended to the session.

pub mod branch;
pub mod command;
pub mod context_usage;
pub mod fileops;
pub mod prepare;
pub mod prompts;
pub mod serialize;
pub mod system;

use crate::json::jsjson::number;
use crate::llm::{LlmError, Summarizer, SummaryRequest, SummaryResponse, Usage};
use crate::session::io::append::entry_line;
use crate::session::{Detail, EntryIdx, Role, Session};
use fileops::format_file_lists;
use prepare::Preparation;
use serde_json::{Value, json};

/// The model in effect on a branch (`path`, root first): the last model change or
/// assistant message naming a provider and a model, as `(provider, model id)`.
pub fn branch_model(session: &Session, path: &[EntryIdx]) -> Option<(String, String)> {
    path.iter().rev().find_map(|&i| match &session.entries[i].detail {
        Detail::ModelChange {
            provider: Some(p),
            model_id: Some(m),
        } => Some((p.to_string(), m.to_string())),
        Detail::Message {
            role: Some(Role::Assistant),
            provider: Some(p),
            model: Some(m),
            ..
        } => Some((p.to_string(), m.to_string())),
        _ => None,
    })
}

/// Where the summary text comes from.
pub enum SummarySource<'a> {
    /// A provider or a local command: one request per summary.
    Model(&'a dyn Summarizer),
    /// Text written elsewhere, used as it is.
    Text(String),
}

/// A finished summary, ready to be written.
#[derive(Debug, Clone)]
pub struct Summary {
    pub text: String,
    /// The sum over the requests (none for text from elsewhere).
    pub usage: Option<Usage>,
    pub read_files: Vec<String>,
    pub modified_files: Vec<String>,
}

/// The requests a compaction sends: the history (update form with a previous summary), and
/// for a split turn, the turn's beginning.
pub fn compaction_requests(
    prep: &Preparation,
    focus: Option<&str>,
    include_thinking: bool,
    thinking_level: Option<&str>,
) -> (Option<SummaryRequest>, Option<SummaryRequest>) {
    let request = |prompt: String| SummaryRequest {
        system: prompts::SYSTEM.to_owned(),
        prompt,
        thinking_level: thinking_level.map(str::to_owned),
    };
    let history = if !prep.is_split_turn || !prep.messages_to_summarize.is_empty() {
        let text = serialize::serialize(&serialize::to_llm(&prep.messages_to_summarize), include_thinking);
        let mut prompt = format!("<conversation>\n{text}\n</conversation>\n\n");
        // An empty previous summary counts as none, as in Pi.
        let instructions = match prep.previous_summary.as_deref().filter(|p| !p.is_empty()) {
            Some(prev) => {
                prompt.push_str(&format!("<previous-summary>\n{prev}\n</previous-summary>\n\n"));
                prompts::update_summary()
            }
            None => prompts::new_summary(),
        };
        prompt.push_str(&prompts::with_focus(instructions, focus));
        Some(request(prompt))
    } else {
        None
    };
    let turn = (prep.is_split_turn && !prep.turn_prefix.is_empty()).then(|| {
        let text = serialize::serialize(&serialize::to_llm(&prep.turn_prefix), include_thinking);
        let prompt = format!("# Conversation\n{text}\n\n# Instructions\n{}", prompts::TURN_PREFIX);
        request(prompts::with_focus(prompt, focus))
    });
    (history, turn)
}

/// Usage worth recording: a local command reports none.
fn paid(u: Usage) -> Option<Usage> {
    (u != Usage::default()).then_some(u)
}

fn ask(s: &dyn Summarizer, r: &SummaryRequest) -> Result<SummaryResponse, LlmError> {
    s.summarize(r)
}

/// Produces a compaction summary (Pi's `compact`): one or two requests merged, then the
/// file lists appended.
pub fn summarize_compaction(
    prep: &Preparation,
    source: SummarySource<'_>,
    focus: Option<&str>,
    include_thinking: bool,
    thinking_level: Option<&str>,
) -> Result<Summary, LlmError> {
    let (read_files, modified_files) = prep.file_ops.lists();
    let (mut text, usage) = match source {
        SummarySource::Text(t) => (t, None),
        SummarySource::Model(s) => {
            let (history, turn) = compaction_requests(prep, focus, include_thinking, thinking_level);
            match turn {
                Some(turn) => {
                    let (history_text, history_usage) = match &history {
                        Some(h) => {
                            let r = ask(s, h)?;
                            (r.text, Some(r.usage))
                        }
                        None => (
                            prep.previous_summary
                                .clone()
                                .unwrap_or_else(|| "No prior history.".into()),
                            None,
                        ),
                    };
                    let t = ask(s, &turn)?;
                    let usage = match history_usage {
                        Some(h) => h.add(&t.usage),
                        None => t.usage,
                    };
                    (prompts::merge_split_turn(&history_text, &t.text), paid(usage))
                }
                None => {
                    let r = ask(s, history.as_ref().expect("a history request"))?;
                    (r.text, paid(r.usage))
                }
            }
        }
    };
    text.push_str(&format_file_lists(&read_files, &modified_files));
    Ok(Summary {
        text,
        usage,
        read_files,
        modified_files,
    })
}

/// The request of a branch summary.
pub fn branch_request(
    prep: &branch::BranchPreparation,
    focus: Option<&str>,
    include_thinking: bool,
    thinking_level: Option<&str>,
) -> SummaryRequest {
    let text = serialize::serialize(&serialize::to_llm(&prep.messages), include_thinking);
    let prompt = format!(
        "<conversation>\n{text}\n</conversation>\n\n{}",
        prompts::with_focus(prompts::BRANCH.to_owned(), focus)
    );
    SummaryRequest {
        system: prompts::SYSTEM.to_owned(),
        prompt,
        thinking_level: thinking_level.map(str::to_owned),
    }
}

/// Produces a branch summary (Pi's `generateBranchSummary`).
pub fn summarize_branch(
    prep: &branch::BranchPreparation,
    source: SummarySource<'_>,
    focus: Option<&str>,
    include_thinking: bool,
    thinking_level: Option<&str>,
) -> Result<Summary, LlmError> {
    let (read_files, modified_files) = prep.file_ops.lists();
    if prep.messages.is_empty() {
        // Pi's answer when the branch holds nothing to summarize, whatever the summary
        // would have been (a text given is not used either).
        return Ok(Summary {
            text: "No content to summarize".into(),
            usage: None,
            read_files: Vec::new(),
            modified_files: Vec::new(),
        });
    }
    let (body, usage) = match source {
        SummarySource::Text(t) => (t, None),
        SummarySource::Model(s) => {
            let r = ask(s, &branch_request(prep, focus, include_thinking, thinking_level))?;
            (r.text, paid(r.usage))
        }
    };
    let mut text = format!("{}{body}", prompts::BRANCH_PREAMBLE);
    text.push_str(&format_file_lists(&read_files, &modified_files));
    Ok(Summary {
        text,
        usage,
        read_files,
        modified_files,
    })
}

/// The compaction entry line, as Pi 1.6.0's `appendCompaction` writes it.
#[allow(clippy::too_many_arguments)]
pub fn compaction_entry(
    id: &str,
    parent: Option<&str>,
    timestamp: &str,
    summary: &Summary,
    first_kept_id: &str,
    tokens_before: f64,
    system_message: Option<Value>,
) -> String {
    let mut rest = vec![
        ("summary", Value::from(summary.text.as_str())),
        ("firstKeptEntryId", Value::from(first_kept_id)),
        ("tokensBefore", number(tokens_before)),
        (
            "details",
            json!({"readFiles": summary.read_files, "modifiedFiles": summary.modified_files}),
        ),
    ];
    if let Some(u) = &summary.usage {
        rest.push(("usage", serde_json::to_value(u).unwrap_or(Value::Null)));
    }
    rest.push(("fromHook", Value::Bool(false)));
    if let Some(mut sys) = system_message {
        if let Some(o) = sys.as_object_mut() {
            let ms = crate::json::jsdate::parse_date_ms(timestamp)
                .map(Value::from)
                .unwrap_or(Value::Null);
            o.insert("timestamp".into(), ms);
        }
        rest.push(("systemMessage", sys));
    }
    entry_line("compaction", id, parent, timestamp, rest)
}

/// The branch summary entry line, as Pi 1.6.0's `branchWithSummary` writes it.
pub fn branch_summary_entry(
    id: &str,
    parent: Option<&str>,
    timestamp: &str,
    from_id: &str,
    summary: &Summary,
) -> String {
    let mut rest = vec![
        ("fromId", Value::from(from_id)),
        ("summary", Value::from(summary.text.as_str())),
        (
            "details",
            json!({"readFiles": summary.read_files, "modifiedFiles": summary.modified_files}),
        ),
    ];
    if let Some(u) = &summary.usage {
        rest.push(("usage", serde_json::to_value(u).unwrap_or(Value::Null)));
    }
    rest.push(("fromHook", Value::Bool(false)));
    entry_line("branch_summary", id, parent, timestamp, rest)
}
