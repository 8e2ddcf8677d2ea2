//! What a session paid for: every call recorded in it ([`calls`]: assistant messages, `usage`
//! entries such as cache warming, and the summary calls of compactions and branch summaries)
//! and their sums ([`Stats`]). Sums are taken in file order with JavaScript's arithmetic, so
//! they equal what a script adding the same numbers gets; cost is what the session recorded.
//!
//! [`Call`] and [`call_in_line`] are what `stats` and the report over many sessions
//! ([`report`]) both count with; how a call is read from its line is written once, in
//! `read`.

mod counts;
mod read;
pub mod report;

pub use counts::{Counts, ToolCounts, message_counts, result_of, tool_calls};

use crate::llm::Cost;
use crate::session::{Detail, EntryIdx, EntryKind, MessageAt, Role, Session};
use serde::{Serialize, Serializer};
use serde_json::Value;
use std::borrow::Cow;

/// Where a paid call is recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Source {
    /// An assistant message's `usage`.
    Assistant,
    /// A `usage` entry (a call that left no message, e.g. cache warming).
    Usage,
    /// The summary call of a compaction entry.
    Compaction,
    /// The summary call of a branch-summary entry.
    BranchSummary,
    /// A tool result's `usage`: a tool that called a model itself (Pi counts it with the
    /// summaries, as "Tools/summaries").
    ToolResult,
}

impl Source {
    pub const ALL: [Source; 5] = [
        Source::Assistant,
        Source::Usage,
        Source::Compaction,
        Source::BranchSummary,
        Source::ToolResult,
    ];

    /// The name used in JSON and tables.
    pub fn name(self) -> &'static str {
        match self {
            Source::Assistant => "assistant",
            Source::Usage => "usage",
            Source::Compaction => "compaction",
            Source::BranchSummary => "branchSummary",
            Source::ToolResult => "toolResult",
        }
    }
}

/// The model summaries are attributed to when their entry names none.
pub const SUMMARIES: &str = "(summaries)";
/// The model of a call whose entry names none (assistant messages and `usage` entries).
pub const UNKNOWN_MODEL: &str = "?";

/// One paid call recorded in a session.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub source: Source,
    /// The entry that records it.
    pub entry: EntryIdx,
    /// The entry's `timestamp` as written (ISO 8601 in files Pi writes).
    pub timestamp: Option<String>,
    pub provider: Option<String>,
    /// The model that answered (for assistant messages `responseModel` when present), else
    /// [`UNKNOWN_MODEL`], or [`SUMMARIES`] for a summary entry that names none.
    pub model: String,
    /// The amounts of its `usage` object.
    pub totals: Totals,
}

/// The source of the call an entry of this kind (and message role) records, if it can
/// record one.
pub fn source_of(kind: &EntryKind, role: Option<&Role>) -> Option<Source> {
    match kind {
        EntryKind::Message if role == Some(&Role::Assistant) => Some(Source::Assistant),
        EntryKind::Message if role == Some(&Role::ToolResult) => Some(Source::ToolResult),
        EntryKind::Usage => Some(Source::Usage),
        EntryKind::Compaction => Some(Source::Compaction),
        EntryKind::BranchSummary => Some(Source::BranchSummary),
        _ => None,
    }
}

/// What a loader already knows of an assistant message: its provider, model and
/// `responseModel`, and where its values are in the line.
pub struct KnownMessage<'a> {
    pub provider: Option<&'a str>,
    pub model: Option<&'a str>,
    pub response_model: Option<&'a str>,
    pub at: &'a MessageAt,
}

/// The provider, model and usage of the call an entry line records (`source` being what
/// kind of call it can be), or `None` when it recorded none. `known`: what the loader
/// located of an assistant message, so its line need not be read again; `value`: the
/// entry's whole value, for lines the scanner declines.
pub fn call_in_line<'a>(
    source: Source,
    raw: &'a [u8],
    known: Option<KnownMessage<'a>>,
    value: impl FnOnce() -> Value,
) -> Option<(Option<Cow<'a, str>>, Cow<'a, str>, Totals)> {
    if let Some(m) = known.filter(|_| matches!(source, Source::Assistant | Source::ToolResult)) {
        let (provider, model, totals) = known_call(source, raw, m)?;
        return Some((provider.map(Cow::Borrowed), Cow::Borrowed(model), totals));
    }
    read::call_in(source, raw, value)
}

/// [`call_in_line`] of an assistant message the loader located: its usage read where the
/// loader saw it, its names borrowed from what the loader kept.
fn known_call<'a>(source: Source, raw: &[u8], m: KnownMessage<'a>) -> Option<(Option<&'a str>, &'a str, Totals)> {
    let (offset, len) = m.at.usage?;
    let usage = raw.get(offset as usize..(offset as usize).checked_add(len as usize)?)?;
    let totals = read::totals_in(usage)?;
    if source == Source::ToolResult {
        return Some((None, SUMMARIES, totals));
    }
    Some((
        m.provider,
        m.response_model.or(m.model).unwrap_or(UNKNOWN_MODEL),
        totals,
    ))
}

/// What an entry's message is known to hold, if the loader located its values.
fn known_message(e: &crate::session::Entry) -> Option<KnownMessage<'_>> {
    match &e.detail {
        Detail::Message {
            provider,
            model,
            response_model,
            at: Some(at),
            ..
        } => Some(KnownMessage {
            provider: provider.as_deref(),
            model: model.as_deref(),
            response_model: response_model.as_deref(),
            at,
        }),
        _ => None,
    }
}

/// A paid call as the totals count it: [`Call`] without the entry and its timestamp, and
/// with the names borrowed from the session where it holds them.
struct Counted<'a> {
    source: Source,
    provider: Option<Cow<'a, str>>,
    model: Cow<'a, str>,
    totals: Totals,
}

/// The paid call an entry records, if any, as the totals count it.
fn counted_call(session: &Session, idx: EntryIdx) -> Option<Counted<'_>> {
    let e = &session.entries[idx];
    let source = source_of(&e.kind, e.role())?;
    let (provider, model, totals) = call_in_line(source, session.raw(idx), known_message(e), || session.value(idx))?;
    Some(Counted {
        source,
        provider,
        model,
        totals,
    })
}

/// The paid call an entry records, if any. Parses only entries that can hold one.
pub fn call_of(session: &Session, idx: EntryIdx) -> Option<Call> {
    let e = &session.entries[idx];
    let Counted {
        source,
        provider,
        model,
        totals,
    } = counted_call(session, idx)?;
    Some(Call {
        source,
        entry: idx,
        timestamp: e.timestamp.as_deref().map(str::to_owned),
        provider: provider.map(Cow::into_owned),
        model: model.into_owned(),
        totals,
    })
}

/// The paid calls among `entries`, in their order.
pub fn calls(session: &Session, entries: impl IntoIterator<Item = EntryIdx>) -> impl Iterator<Item = Call> {
    entries.into_iter().filter_map(move |idx| call_of(session, idx))
}

/// Which entries to count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The whole file: abandoned branches and compacted history were paid for too.
    File,
    /// The branch ending at this entry (nothing when `None`: an empty session).
    Branch(Option<EntryIdx>),
}

/// The counted entries of a scope, in file order, and where a parent cycle stopped the walk
/// up the branch.
pub fn entries_of(session: &Session, scope: Scope) -> (Vec<EntryIdx>, Option<EntryIdx>) {
    match scope {
        Scope::File => ((0..session.entries.len()).collect(), None),
        Scope::Branch(None) => (Vec::new(), None),
        Scope::Branch(Some(tip)) => {
            let branch = session.branch(tip);
            let mut on = vec![false; session.entries.len()];
            for i in branch.path {
                on[i] = true;
            }
            ((0..session.entries.len()).filter(|&i| on[i]).collect(), branch.cycle_at)
        }
    }
}

fn js_cost<S: Serializer>(c: &Cost, s: S) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Record {
        #[serde(serialize_with = "crate::json::jsjson::serialize_number")]
        input: f64,
        #[serde(serialize_with = "crate::json::jsjson::serialize_number")]
        output: f64,
        #[serde(serialize_with = "crate::json::jsjson::serialize_number")]
        cache_read: f64,
        #[serde(serialize_with = "crate::json::jsjson::serialize_number")]
        cache_write: f64,
        #[serde(serialize_with = "crate::json::jsjson::serialize_number")]
        total: f64,
    }
    Record {
        input: c.input,
        output: c.output,
        cache_read: c.cache_read,
        cache_write: c.cache_write,
        total: c.total,
    }
    .serialize(s)
}

/// The token columns of a `usage` object, in the order Pi writes them.
pub const TOKEN_COLUMNS: [&str; 5] = ["input", "output", "cacheRead", "cacheWrite", "totalTokens"];
/// The key of a `usage` object's cost.
pub const COST: &str = "cost";
/// The columns of a cost object, in the order Pi writes them.
pub const COST_COLUMNS: [&str; 5] = ["input", "output", "cacheRead", "cacheWrite", "total"];

/// Sums of `usage` objects. In JSON: `{input, output, cacheRead, cacheWrite, totalTokens,
/// cost: {input, output, cacheRead, cacheWrite, total}}`, numbers as JavaScript prints them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Totals {
    #[serde(serialize_with = "crate::json::jsjson::serialize_number")]
    pub input: f64,
    #[serde(serialize_with = "crate::json::jsjson::serialize_number")]
    pub output: f64,
    #[serde(serialize_with = "crate::json::jsjson::serialize_number")]
    pub cache_read: f64,
    #[serde(serialize_with = "crate::json::jsjson::serialize_number")]
    pub cache_write: f64,
    #[serde(serialize_with = "crate::json::jsjson::serialize_number")]
    pub total_tokens: f64,
    #[serde(serialize_with = "js_cost")]
    pub cost: Cost,
}

impl Totals {
    /// The amounts of one `usage` object; fields that are missing or not numbers count as 0.
    pub fn of(usage: &Value) -> Totals {
        Totals::of_object(usage).unwrap_or_default()
    }

    /// [`Totals::of`] a recorded `usage` value, which must be an object to count.
    pub fn of_object(usage: &Value) -> Option<Totals> {
        read::totals(usage).ok()?.0
    }

    /// The token amounts, in the order of [`TOKEN_COLUMNS`].
    pub fn tokens(&self) -> [f64; 5] {
        [
            self.input,
            self.output,
            self.cache_read,
            self.cache_write,
            self.total_tokens,
        ]
    }

    /// The tokens used, as Pi's `calculateContextTokens` counts them: `totalTokens`, or the
    /// sum of the parts when that is 0 (which reading a `usage` object already did).
    pub fn context_tokens(&self) -> f64 {
        self.total_tokens
    }

    /// Adds the amounts of one call, field by field (the same sums as adding its `usage`).
    pub fn add_totals(&mut self, t: &Totals) {
        self.input += t.input;
        self.output += t.output;
        self.cache_read += t.cache_read;
        self.cache_write += t.cache_write;
        self.total_tokens += t.total_tokens;
        self.cost.input += t.cost.input;
        self.cost.output += t.cost.output;
        self.cost.cache_read += t.cost.cache_read;
        self.cost.cache_write += t.cost.cache_write;
        self.cost.total += t.cost.total;
    }
}

/// The totals of one (provider, model). In JSON: `{provider, model, …totals}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelTotals {
    /// `null` when the entries name none.
    pub provider: Option<String>,
    pub model: String,
    #[serde(flatten)]
    pub totals: Totals,
}

/// The totals of each [`Source`]. In JSON: `{assistant, usage, compaction, branchSummary,
/// toolResult}`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BySource {
    pub assistant: Totals,
    pub usage: Totals,
    pub compaction: Totals,
    pub branch_summary: Totals,
    pub tool_result: Totals,
}

impl BySource {
    pub fn get(&self, source: Source) -> &Totals {
        match source {
            Source::Assistant => &self.assistant,
            Source::Usage => &self.usage,
            Source::Compaction => &self.compaction,
            Source::BranchSummary => &self.branch_summary,
            Source::ToolResult => &self.tool_result,
        }
    }

    pub fn get_mut(&mut self, source: Source) -> &mut Totals {
        match source {
            Source::Assistant => &mut self.assistant,
            Source::Usage => &mut self.usage,
            Source::Compaction => &mut self.compaction,
            Source::BranchSummary => &mut self.branch_summary,
            Source::ToolResult => &mut self.tool_result,
        }
    }
}

/// Totals overall, by (provider, model) and by source: `stats --json`'s record
/// `{total, byModel, bySource}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Stats {
    pub total: Totals,
    /// After [`Stats::sort`]: most expensive first, then most tokens; ties keep the order
    /// of first use.
    pub by_model: Vec<ModelTotals>,
    pub by_source: BySource,
}

impl Stats {
    /// Counts one call given by its amounts ([`Totals::of`] its usage).
    pub fn add_totals(&mut self, source: Source, t: &Totals, provider: Option<String>, model: String) {
        self.total.add_totals(t);
        self.by_source.get_mut(source).add_totals(t);
        match self
            .by_model
            .iter_mut()
            .find(|m| m.provider == provider && m.model == model)
        {
            Some(m) => m.totals.add_totals(t),
            None => {
                let mut totals = Totals::default();
                totals.add_totals(t);
                self.by_model.push(ModelTotals {
                    provider,
                    model,
                    totals,
                });
            }
        }
    }

    /// Orders `by_model`: most expensive first, then most tokens; ties keep their order.
    pub fn sort(&mut self) {
        self.by_model.sort_by(|a, b| {
            b.totals
                .cost
                .total
                .total_cmp(&a.totals.cost.total)
                .then(b.totals.total_tokens.total_cmp(&a.totals.total_tokens))
        });
    }
}

/// How many entries ahead of the one being counted its usage is asked for: entries without
/// a call take no time at all.
const PREFETCH_AHEAD: usize = 16;

/// The stats of `entries` (in file order), sorted.
pub fn collect(session: &Session, entries: impl IntoIterator<Item = EntryIdx>) -> Stats {
    let entries: Vec<EntryIdx> = entries.into_iter().collect();
    let mut sums = Sums::default();
    // Calls are read on every core, a chunk at a time, and added in file order (floating-point
    // sums depend on the order) as each chunk comes: only a few chunks are held at once, and
    // the threads are started once, not once per batch.
    const CHUNK: usize = 512;
    let chunks: Vec<&[EntryIdx]> = entries.chunks(CHUNK).collect();
    let added = crate::parallel::map_in_order(
        chunks.len(),
        |k, spare: Option<(usize, Vec<Counted<'_>>)>| {
            // Room for every entry being a call: the calls are not copied to grow it.
            let mut counted = spare.map(|(_, v)| v).unwrap_or_default();
            counted.clear();
            counted.reserve(chunks[k].len());
            let chunk = chunks[k];
            counted.extend(chunk.iter().enumerate().filter_map(|(j, &idx)| {
                // The lines are kilobytes apart: each call's usage is asked for a few
                // entries before it is read (see `Session::prefetch_usage`).
                if let Some(&ahead) = chunk.get(j + PREFETCH_AHEAD) {
                    session.prefetch_usage(ahead);
                }
                counted_call(session, idx)
            }));
            (k, counted)
        },
        |(k, mut counted)| {
            for c in counted.drain(..) {
                sums.add(c.source, &c.totals, c.provider, c.model);
            }
            if let (Some(&first), Some(&last)) = (chunks[k].first(), chunks[k].last()) {
                session.release_entries(first..last + 1);
            }
            Ok::<_, std::convert::Infallible>(Some((k, counted)))
        },
    );
    let Ok(()) = added;
    sums.stats()
}

/// [`Stats`] being counted, with the names of the models borrowed from the session: a call
/// of a model already seen allocates nothing.
#[derive(Default)]
struct Sums<'a> {
    total: Totals,
    by_source: BySource,
    /// (provider, model) and their totals, in order of first use.
    by_model: Vec<(Option<Cow<'a, str>>, Cow<'a, str>, Totals)>,
    /// The index in `by_model` of the last call's model: calls come in runs of one model.
    last: usize,
}

impl<'a> Sums<'a> {
    fn add(&mut self, source: Source, t: &Totals, provider: Option<Cow<'a, str>>, model: Cow<'a, str>) {
        self.total.add_totals(t);
        self.by_source.get_mut(source).add_totals(t);
        let same = |(p, m, _): &(Option<Cow<'a, str>>, Cow<'a, str>, Totals)| *p == provider && *m == model;
        let at = match self.by_model.get(self.last) {
            Some(g) if same(g) => Some(self.last),
            _ => self.by_model.iter().position(same),
        };
        let at = at.unwrap_or_else(|| {
            self.by_model.push((provider, model, Totals::default()));
            self.by_model.len() - 1
        });
        self.by_model[at].2.add_totals(t);
        self.last = at;
    }

    fn stats(self) -> Stats {
        let mut stats = Stats {
            total: self.total,
            by_model: self
                .by_model
                .into_iter()
                .map(|(provider, model, totals)| ModelTotals {
                    provider: provider.map(Cow::into_owned),
                    model: model.into_owned(),
                    totals,
                })
                .collect(),
            by_source: self.by_source,
        };
        stats.sort();
        stats
    }
}

/// The stats of a scope, and where a parent cycle stopped the walk (for a warning).
pub fn session_stats(session: &Session, scope: Scope) -> (Stats, Option<EntryIdx>) {
    let (entries, cycle_at) = entries_of(session, scope);
    (collect(session, entries), cycle_at)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn session(lines: &[Value]) -> Session {
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        Session::from_bytes("t.jsonl".into(), text.into_bytes()).unwrap()
    }

    fn header() -> Value {
        json!({"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"})
    }

    fn usage(input: f64, total: f64, cost: f64) -> Value {
        json!({"input": input, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": total,
               "cost": {"input": cost, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": cost}})
    }

    fn sample() -> Session {
        session(&[
            header(),
            json!({"type":"message","id":"a","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z",
                   "message":{"role":"user","content":"hi"}}),
            json!({"type":"message","id":"b","parentId":"a","timestamp":"2025-01-01T00:00:02.000Z",
                   "message":{"role":"assistant","content":[],"provider":"anthropic","model":"m1",
                              "usage": usage(10.0, 11.0, 0.1)}}),
            json!({"type":"message","id":"c","parentId":"a","timestamp":"2025-01-01T00:00:03.000Z",
                   "message":{"role":"assistant","content":[],"provider":"openai","model":"m2",
                              "responseModel":"m2-resolved","usage": usage(20.0, 21.0, 0.2)}}),
            json!({"type":"compaction","id":"d","parentId":"c","timestamp":"2025-01-01T00:00:04.000Z",
                   "summary":"s","firstKeptEntryId":"c","tokensBefore":5,"usage": usage(5.0, 6.0, 0.0)}),
            json!({"type":"usage","id":"e","parentId":"d","timestamp":"2025-01-01T00:00:05.000Z",
                   "provider":"anthropic","model":"m1","usage": usage(1.0, 2.0, 0.1)}),
        ])
    }

    /// The scanner's reading of a usage object or an entry line is the value's.
    mod bytes_read_as_the_value {
        use super::super::read::{self, Bytes};
        use super::super::*;
        use proptest::prelude::*;

        fn number() -> impl Strategy<Value = String> {
            prop_oneof![
                prop::sample::select(vec![
                    "0",
                    "-0",
                    "1",
                    "0.1",
                    "0.30000000000000004",
                    "1e400",
                    "-1e400",
                    "5e-324",
                    "1e308",
                    "9007199254740993",
                    "123456789012345.5",
                    "12345678901234567890",
                    "7e2",
                    "2.5E3",
                    "-7",
                    "null",
                    "true",
                    "\"5\"",
                    "[]",
                    "{}",
                ])
                .prop_map(str::to_owned),
                (0u64..1_000_000).prop_map(|n| n.to_string()),
                (0.0f64..10.0).prop_map(|f| f.to_string()),
            ]
        }

        fn object(keys: &'static [&'static str], inner: BoxedStrategy<String>) -> impl Strategy<Value = String> {
            prop::collection::vec((prop::sample::select(keys), inner), 0..8).prop_map(|fields| {
                let body: Vec<String> = fields.iter().map(|(k, v)| format!("\"{k}\" : {v}")).collect();
                format!("{{{}}}", body.join(","))
            })
        }

        const COST: &[&str] = &[
            "input",
            "output",
            "cacheRead",
            "cacheWrite",
            "total",
            "x",
            "\\u0069nput",
        ];
        const USAGE: &[&str] = &[
            "input",
            "output",
            "cacheRead",
            "cacheWrite",
            "totalTokens",
            "cost",
            "cost",
            "y",
            "\\u0069nput",
        ];
        const ENTRY: &[&str] = &["provider", "model", "responseModel", "usage", "message", "x"];

        fn usage() -> BoxedStrategy<String> {
            object(
                USAGE,
                prop_oneof![3 => number().boxed(), 1 => object(COST, number().boxed()).boxed()].boxed(),
            )
            .boxed()
        }

        fn names() -> BoxedStrategy<String> {
            prop_oneof![
                Just("\"m\"".to_owned()),
                Just("\"n\\u00e9\"".to_owned()),
                Just("null".to_owned()),
                Just("5".to_owned())
            ]
            .boxed()
        }

        fn entry() -> impl Strategy<Value = String> {
            let field = prop_oneof![names(), usage(), Just("[1]".to_owned())].boxed();
            let message = object(ENTRY, field.clone()).boxed();
            object(ENTRY, prop_oneof![3 => field, 1 => message].boxed())
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(2000))]
            #[test]
            fn totals_of_the_bytes_are_the_values(usage in usage()) {
                let value = crate::json::jsparse::parse(usage.as_bytes()).unwrap();
                let of_value = read::totals(&value).unwrap().0;
                if let Ok((of_bytes, _)) = read::totals(Bytes::whole(usage.as_bytes())) {
                    prop_assert_eq!(format!("{of_bytes:?}"), format!("{of_value:?}"));
                }
                prop_assert_eq!(format!("{:?}", read::totals_in(usage.as_bytes())), format!("{of_value:?}"));
            }

            #[test]
            fn calls_of_the_bytes_are_the_values(line in entry(), source in prop::sample::select(Source::ALL.to_vec())) {
                let value = crate::json::jsparse::parse(line.as_bytes()).unwrap();
                let of_value = format!("{:?}", read::call(source, &value).unwrap().0);
                if let Ok((of_bytes, _)) = read::call(source, Bytes::whole(line.as_bytes())) {
                    prop_assert_eq!(format!("{of_bytes:?}"), of_value.clone());
                }
                let read = read::call_in(source, line.as_bytes(), || value.clone());
                prop_assert_eq!(format!("{read:?}"), of_value);
            }
        }

        #[test]
        fn what_the_scanner_declines() {
            for raw in [
                r#"{"input":1e400}"#,
                r#"{"\u0069nput":1}"#,
                r#"{"input":-0}"#,
                r#"{"input":1} x"#,
            ] {
                let bytes = Bytes::whole(raw.as_bytes());
                let declined = read::totals(bytes).and_then(|(_, end)| bytes.at_end(end));
                assert!(declined.is_err(), "{raw}");
            }
            assert_eq!(read::totals_in(b"[1]"), None);
            assert_eq!(read::totals_in(br#"{"input":-0}"#).map(|t| t.input), Some(0.0));
            let t = read::totals_in(br#"{"input":2,"cost":{"total":0.5},"input":3,"cost":7,"output":"9"}"#).unwrap();
            assert_eq!((t.input, t.output, t.cost.total), (3.0, 0.0, 0.0));
        }
    }

    #[test]
    fn every_paid_call_with_its_source_model_and_time() {
        let s = sample();
        let calls: Vec<Call> = calls(&s, 0..s.entries.len()).collect();
        let seen: Vec<_> = calls
            .iter()
            .map(|c| {
                (
                    c.source,
                    c.provider.as_deref(),
                    c.model.as_str(),
                    c.timestamp.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            seen,
            [
                (
                    Source::Assistant,
                    Some("anthropic"),
                    "m1",
                    Some("2025-01-01T00:00:02.000Z")
                ),
                (
                    Source::Assistant,
                    Some("openai"),
                    "m2-resolved",
                    Some("2025-01-01T00:00:03.000Z")
                ),
                (Source::Compaction, None, SUMMARIES, Some("2025-01-01T00:00:04.000Z")),
                (Source::Usage, Some("anthropic"), "m1", Some("2025-01-01T00:00:05.000Z")),
            ]
        );
        assert_eq!(calls[0].totals.input, 10.0);
    }

    #[test]
    fn sums_in_file_order_as_javascript_does() {
        let s = sample();
        let (stats, cycle) = session_stats(&s, Scope::File);
        assert_eq!(cycle, None);
        assert_eq!(stats.total.input, 36.0);
        // 0.1 + 0.2 + 0.0 + 0.1, added in file order.
        assert_eq!(stats.total.cost.total, 0.1 + 0.2 + 0.0 + 0.1);
        assert_eq!(stats.by_source.get(Source::Compaction).input, 5.0);
        let models: Vec<_> = stats.by_model.iter().map(|m| m.model.as_str()).collect();
        // Equal cost (0.1 + 0.1 against 0.2): more tokens first.
        assert_eq!(models, ["m2-resolved", "m1", SUMMARIES]);
    }

    #[test]
    fn a_branch_counts_only_its_entries() {
        let s = sample();
        let b = s.entries.iter().position(|e| e.line == 3).unwrap();
        let (stats, _) = session_stats(&s, Scope::Branch(Some(b)));
        assert_eq!(stats.total.input, 10.0);
        assert_eq!(session_stats(&s, Scope::Branch(None)).0, Stats::default());
    }

    #[test]
    fn the_json_record() {
        let s = session(&[
            header(),
            json!({"type":"message","id":"b","parentId":null,"timestamp":"t",
                   "message":{"role":"assistant","content":[],"usage": usage(3.0, 4.0, 0.25)}}),
        ]);
        let stats = collect(&s, 0..s.entries.len());
        let v = serde_json::to_value(&stats).unwrap();
        let t = json!({"input":3,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":4,
                       "cost":{"input":0.25,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.25}});
        let zero = json!({"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,
                          "cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}});
        let mut m = json!({"provider": null, "model": "?"});
        m.as_object_mut().unwrap().extend(t.as_object().unwrap().clone());
        assert_eq!(
            v,
            json!({"total": t, "byModel": [m],
                   "bySource": {"assistant": t, "usage": zero, "compaction": zero, "branchSummary": zero,
                                "toolResult": zero}})
        );
        let keys: Vec<_> = v["byModel"][0].as_object().unwrap().keys().cloned().collect();
        assert_eq!(keys[..3], ["provider", "model", "input"]);
    }
}
