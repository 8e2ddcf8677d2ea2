//! Pi's `contextUsage` (its footer and `/session`): how full the model's context window is
//! at an entry. It lives with compaction because it is the same projection of the context
//! and the same trusted-usage rule that decide when Pi compacts.

use crate::session::{EntryIdx, EntryKind, Session};
use serde::Serialize;

/// Pi's `contextUsage`: the context at an entry against its model's context window.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ContextUsage {
    /// `None` (JSON null) after a compaction no reply has followed yet: unknown, as Pi says.
    #[serde(serialize_with = "crate::json::jsjson::serialize_opt_number")]
    pub tokens: Option<f64>,
    pub context_window: u64,
    #[serde(serialize_with = "crate::json::jsjson::serialize_opt_number")]
    pub percent: Option<f64>,
}

/// The context at `at` as Pi's footer and `/session` show it: the model of its branch (from
/// the built-in model table; `None` for a model it does not know), the projected context
/// tokens (the last reply's usage and an estimate of what follows), and their percentage.
pub fn context_usage(session: &Session, at: EntryIdx) -> Option<ContextUsage> {
    let path = session.branch(at).path;
    let (provider, model) = super::branch_model(session, &path)?;
    let context_window = crate::llm::models::builtin_model(&provider, &model)?.context_window;
    if context_window == 0 {
        return None;
    }
    let projected = crate::session::context::projection(session, &path);
    // After a compaction, only a reply that came after it tells the context's size.
    if let Some(compaction) = path
        .iter()
        .rposition(|&i| session.entries[i].kind == EntryKind::Compaction)
    {
        let replied = projected.iter().any(|p| {
            path[compaction + 1..].contains(&p.source)
                && p.messages.iter().any(|m| super::prepare::assistant_usage(m).is_some())
        });
        if !replied {
            return Some(ContextUsage {
                tokens: None,
                context_window,
                percent: None,
            });
        }
    }
    let tokens = super::prepare::projected_context_tokens(session, &projected, &path);
    Some(ContextUsage {
        tokens: Some(tokens),
        context_window,
        percent: Some(tokens / context_window as f64 * 100.0),
    })
}
