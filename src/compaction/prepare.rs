//! The compaction plan: Pi 1.6.0's `prepareCompaction` on a branch, step for step. It works
//! on the context projection (the previous compaction's retained tail, context edits
//! applied), walks back from the newest message until `keepRecentTokens` is reached, and
//! never cuts at a tool result.

use super::fileops::FileOps;
use super::system::current_system_message;
use crate::session::content::role_of;
use crate::session::context::{ProjectedEntry, entry_messages, projection};
use crate::session::estimate::estimate_tokens;
use crate::session::{EntryIdx, EntryKind, Role, Session};
use serde_json::Value;

/// Why there is nothing to compact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoCompaction {
    /// The branch already ends with a compaction.
    AlreadyCompacted,
    /// Nothing before the kept messages to summarize (the session is small).
    NothingToSummarize,
}

/// What a compaction will summarize and keep.
#[derive(Debug, Clone)]
pub struct Preparation {
    pub first_kept: EntryIdx,
    pub first_kept_id: String,
    /// Messages summarized into the history summary.
    pub messages_to_summarize: Vec<Value>,
    /// With a split turn: the start of the turn the cut falls into, summarized apart.
    pub turn_prefix: Vec<Value>,
    pub is_split_turn: bool,
    /// Pi's estimate of the context before compaction.
    pub tokens_before: f64,
    /// Estimated tokens of what is kept (the projection from the cut on).
    pub tokens_kept: u64,
    pub previous_summary: Option<String>,
    pub file_ops: FileOps,
}

fn is_cut_point(m: &Value) -> bool {
    is_turn_start(m) || role_of(m) == Some(Role::Assistant)
}

fn is_turn_start(m: &Value) -> bool {
    matches!(
        role_of(m),
        Some(Role::User | Role::BashExecution | Role::Custom | Role::BranchSummary | Role::CompactionSummary)
    )
}

fn tokens_of(p: &ProjectedEntry) -> u64 {
    p.messages.iter().map(estimate_tokens).sum()
}

struct CutPoint {
    first_kept_index: usize,
    turn_start_index: Option<usize>,
    is_split_turn: bool,
}

/// Pi's `prepareCompaction(pathEntries, settings)`.
pub fn prepare(session: &Session, path: &[EntryIdx], keep_recent_tokens: f64) -> Result<Preparation, NoCompaction> {
    if path
        .last()
        .is_some_and(|&l| session.entries[l].kind == EntryKind::Compaction)
    {
        return Err(NoCompaction::AlreadyCompacted);
    }
    let projected = projection(session, path);
    let is_compaction = |p: &ProjectedEntry| session.entries[p.source].kind == EntryKind::Compaction;
    let prev = projected
        .iter()
        .position(|p| is_compaction(p) && !p.messages.is_empty());
    let (previous_summary, start) = match prev {
        Some(i) => (
            session
                .value(projected[i].source)
                .get("summary")
                .and_then(Value::as_str)
                .map(str::to_owned),
            i + 1,
        ),
        None => (None, 0),
    };
    let end = projected.len();
    let tokens_before = projected_context_tokens(session, &projected, path);
    let cut = find_cut_point(session, &projected, start, end, keep_recent_tokens);
    let first_kept = projected
        .get(cut.first_kept_index)
        .map(|p| p.source)
        .ok_or(NoCompaction::NothingToSummarize)?;
    let first_kept_id = session
        .id_str(first_kept)
        .filter(|s| !s.is_empty())
        .ok_or(NoCompaction::NothingToSummarize)?
        .to_owned();
    let history_end = if cut.is_split_turn {
        cut.turn_start_index.expect("split turns have a start")
    } else {
        cut.first_kept_index
    };
    let summarizable = |range: std::ops::Range<usize>| -> Vec<Value> {
        projected[range]
            .iter()
            .filter(|p| !is_compaction(p))
            .flat_map(|p| p.messages.iter().filter(|m| role_of(m) != Some(Role::System)).cloned())
            .collect()
    };
    let messages_to_summarize = summarizable(start..history_end.max(start));
    let turn_prefix = if cut.is_split_turn {
        summarizable(cut.turn_start_index.expect("split")..cut.first_kept_index)
    } else {
        Vec::new()
    };
    if messages_to_summarize.is_empty() && turn_prefix.is_empty() {
        return Err(NoCompaction::NothingToSummarize);
    }
    let mut file_ops = FileOps::default();
    if let Some(i) = prev {
        let v = session.value(projected[i].source);
        let from_hook = crate::session::context::truthy(v.get("fromHook"));
        if !from_hook && let Some(details) = v.get("details").filter(|d| crate::session::context::truthy(Some(d))) {
            file_ops.add_from_details(details);
        }
    }
    for m in messages_to_summarize.iter().chain(&turn_prefix) {
        file_ops.add_from_message(m);
    }
    let tokens_kept = projected[cut.first_kept_index..].iter().map(tokens_of).sum();
    Ok(Preparation {
        first_kept,
        first_kept_id,
        messages_to_summarize,
        turn_prefix,
        is_split_turn: cut.is_split_turn,
        tokens_before,
        tokens_kept,
        previous_summary,
        file_ops,
    })
}

/// Pi's `findProjectedCutPoint`.
fn find_cut_point(session: &Session, entries: &[ProjectedEntry], start: usize, end: usize, keep: f64) -> CutPoint {
    let is_compaction = |p: &ProjectedEntry| session.entries[p.source].kind == EntryKind::Compaction;
    let cut_points: Vec<usize> = (start..end)
        .filter(|&i| !is_compaction(&entries[i]) && entries[i].messages.iter().any(is_cut_point))
        .collect();
    if cut_points.is_empty() {
        return CutPoint {
            first_kept_index: start,
            turn_start_index: None,
            is_split_turn: false,
        };
    }
    let mut accumulated = 0f64;
    let mut exceeded = false;
    let mut cut = cut_points[0];
    for i in (start..end).rev() {
        let t = tokens_of(&entries[i]);
        if t == 0 {
            continue;
        }
        accumulated += t as f64;
        if accumulated >= keep {
            exceeded = true;
            cut = cut_points
                .iter()
                .copied()
                .find(|&c| c >= i)
                .unwrap_or(*cut_points.last().expect("non-empty"));
            break;
        }
    }

    // A recovery attempt whose assistant answers were all omitted by context edits after
    // the last visible input: Pi moves the cut past it.
    let suffix = &entries[(cut + 1).min(end)..end];
    let visible = |p: &ProjectedEntry| {
        session.entries[p.source].kind != EntryKind::ContextEdit && !entry_messages(session, p.source).is_empty()
    };
    let omitted = |p: &ProjectedEntry| visible(p) && p.messages.is_empty();
    let omitted_ids: Vec<Option<&str>> = suffix
        .iter()
        .filter(|p| omitted(p))
        .map(|p| session.id_str(p.source))
        .collect();
    let external_replacement = suffix.iter().any(|p| {
        if session.entries[p.source].kind != EntryKind::ContextEdit {
            return false;
        }
        let v = session.value(p.source);
        let replaced = !matches!(v.get("replacement"), Some(Value::Null));
        let target = v.get("targetId").and_then(Value::as_str);
        replaced && !omitted_ids.contains(&target)
    });
    let recovery = exceeded
        && !external_replacement
        && suffix
            .iter()
            .any(|p| session.entries[p.source].is_role(&crate::session::Role::Assistant) && omitted(p))
        && suffix.iter().all(|p| !is_compaction(p) && (!visible(p) || omitted(p)));
    if recovery {
        cut += 1;
    }
    while cut > start {
        let prev = &entries[cut - 1];
        if is_compaction(prev) || !prev.messages.is_empty() {
            break;
        }
        cut -= 1;
    }
    let turn_start = |p: &ProjectedEntry| !is_compaction(p) && p.messages.iter().any(is_turn_start);
    let starts_turn = entries.get(cut).is_some_and(turn_start);
    let turn_start_index = if starts_turn {
        None
    } else {
        (start..=cut.min(end.saturating_sub(1)))
            .rev()
            .find(|&i| turn_start(&entries[i]))
    };
    CutPoint {
        first_kept_index: cut,
        turn_start_index,
        is_split_turn: !starts_turn && turn_start_index.is_some(),
    }
}

/// `calculateContextTokens`: `totalTokens`, or the sum of the parts.
fn context_tokens(usage: &Value) -> f64 {
    crate::usage::Totals::of(usage).context_tokens()
}

/// Usage of an assistant message that is trustworthy (not aborted, not an error, not zero).
pub(crate) fn assistant_usage(m: &Value) -> Option<&Value> {
    if role_of(m) != Some(Role::Assistant) {
        return None;
    }
    let usage = m.get("usage").filter(|u| crate::session::context::truthy(Some(u)))?;
    let stop = m.get("stopReason").and_then(Value::as_str);
    (stop != Some("aborted") && stop != Some("error") && context_tokens(usage) > 0.0).then_some(usage)
}

/// Pi's `estimateProjectedContextTokens`: the last assistant usage plus an estimate of what
/// follows it, unless a later context edit or compaction makes that usage stale.
pub fn projected_context_tokens(session: &Session, projected: &[ProjectedEntry], path: &[EntryIdx]) -> f64 {
    let messages: Vec<&Value> = projected.iter().flat_map(|p| p.messages.iter()).collect();
    if let Some(last) = messages.iter().rposition(|m| assistant_usage(m).is_some()) {
        let usage = context_tokens(assistant_usage(messages[last]).expect("found"));
        let trailing: u64 = messages[last + 1..].iter().map(|m| estimate_tokens(m)).sum();
        // Which entry the usage came from.
        let mut index = 0;
        let mut source = None;
        for p in projected {
            let next = index + p.messages.len();
            if last < next {
                source = Some(p.source);
                break;
            }
            index = next;
        }
        let usage_id = source.and_then(|s| session.id_str(s));
        let usage_pos = usage_id.and_then(|id| path.iter().position(|&i| session.id_str(i) == Some(id)));
        let invalidating = path
            .iter()
            .rposition(|&i| matches!(session.entries[i].kind, EntryKind::ContextEdit | EntryKind::Compaction));
        let fresh = match (usage_pos, invalidating) {
            (Some(u), Some(inv)) => u > inv,
            (Some(_), None) => true,
            (None, _) => false,
        };
        if fresh {
            return usage + trailing as f64;
        }
    }
    let owned: Vec<Value> = messages.iter().map(|m| (*m).clone()).collect();
    let system = current_system_message(&owned).map(|s| estimate_tokens(&s)).unwrap_or(0);
    let rest: u64 = messages
        .iter()
        .filter(|m| role_of(m) != Some(Role::System))
        .map(|m| estimate_tokens(m))
        .sum();
    (system + rest) as f64
}

/// A compaction plan as `compact --dry-run --json` prints it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PlanRecord {
    /// Always true: a plan (see [`NoPlanRecord`] for the record when there is none).
    pub compact: bool,
    /// The first entry kept: the compaction entry's `firstKeptEntryId`.
    pub first_kept_entry_id: String,
    /// The cut falls inside a turn, whose beginning is summarized apart.
    pub is_split_turn: bool,
    /// Pi's estimate of the context before compacting.
    #[serde(serialize_with = "crate::json::jsjson::serialize_number")]
    pub tokens_before: f64,
    /// Estimated tokens of what is kept.
    pub tokens_kept: u64,
    /// Messages summarized (the history request).
    pub messages_to_summarize: usize,
    /// Messages of the cut turn summarized apart.
    pub turn_prefix_messages: usize,
    /// The previous compaction's summary is updated (Pi ignores an empty one).
    pub previous_summary: bool,
    pub read_files: Vec<String>,
    pub modified_files: Vec<String>,
    /// The keepRecentTokens the plan was made with.
    pub keep_recent_tokens: u64,
}

/// What `compact --dry-run --json` prints when there is nothing to compact:
/// `{"compact":false,"reason":…}`, so that a script always gets one record.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct NoPlanRecord {
    /// Always false.
    pub compact: bool,
    pub reason: NoPlanReason,
}

/// Why there is no compaction plan.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub enum NoPlanReason {
    /// The session has no entries.
    NoEntries,
    /// The branch already ends with a compaction.
    AlreadyCompacted,
    /// Everything fits in the recent tokens kept.
    NothingToSummarize,
    /// `--if-needed`: the context is within the window.
    NotNeeded,
}

impl NoPlanRecord {
    pub fn new(reason: NoPlanReason) -> NoPlanRecord {
        NoPlanRecord { compact: false, reason }
    }
}

impl Preparation {
    /// Whether the summary request updates a previous summary (Pi ignores an empty one).
    pub fn updates_previous(&self) -> bool {
        self.previous_summary.as_deref().is_some_and(|p| !p.is_empty())
    }

    /// The plan's record, made with `keep_recent_tokens`.
    pub fn record(&self, keep_recent_tokens: u64) -> PlanRecord {
        let (read_files, modified_files) = self.file_ops.lists();
        PlanRecord {
            compact: true,
            first_kept_entry_id: self.first_kept_id.clone(),
            is_split_turn: self.is_split_turn,
            tokens_before: self.tokens_before,
            tokens_kept: self.tokens_kept,
            messages_to_summarize: self.messages_to_summarize.len(),
            turn_prefix_messages: self.turn_prefix.len(),
            previous_summary: self.updates_previous(),
            read_files,
            modified_files,
            keep_recent_tokens,
        }
    }
}
