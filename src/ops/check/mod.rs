//! `check`: a session held to a [`Policy`] of budgets and rules, one verdict per rule, each
//! naming the entries that broke it. What each rule measures is defined elsewhere, once: the
//! paid calls and their sums are `usage`'s, tool calls and results are counted as `stats`
//! counts them, changed files are `files`' (Pi's compaction rule), credentials are the
//! `secrets` scan's, defects are `repair --check`'s. This module only compares.

pub mod cache;
pub mod junit;
pub mod paths;
pub mod policy;

use crate::compaction::fileops::{FileOps, Touch};
use crate::compaction::prepare::assistant_usage;
use crate::file_cache::Stamp;
use crate::human::amounts::{counted, dollars, tokens};
use crate::human::terminal::escape_line;
use crate::json::jsjson::number;
use crate::llm::models::builtin_model;
use crate::ops::files::entry_ops;
use crate::repair::finding::Severity;
use crate::secrets::rules::RuleSet;
use crate::session::{EntryIdx, EntryKind, Role, Session, SessionError};
use crate::usage::{Scope, Totals, calls, entries_of, result_of, tool_calls};
pub use policy::Policy;
use serde::Serialize;
use serde_json::{Value, json};
use std::collections::HashSet;
use std::path::Path;

/// Every rule's name, in the order verdicts come.
pub const RULES: [&str; 12] = [
    "max-cost",
    "max-tokens",
    "max-context",
    "max-tool-calls",
    "max-turns",
    "no-tool-errors",
    "max-tool-errors",
    "forbid-tool",
    "require-tool",
    "paths",
    "no-secrets",
    "valid",
];

/// A call's (provider, model).
type ModelKey = (Option<String>, String);

/// An entry (or a line) that broke a rule, and how.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Offender {
    /// The entry's id (none for the header or a damaged line).
    pub id: Option<String>,
    /// Its line in the file (1-based; 0 when the finding has none).
    pub line: u32,
    /// What it did, in a few words.
    pub note: String,
}

/// One rule's verdict. In `--json`: `{rule, limit, value, pass, entries}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Verdict {
    /// The option's name: `max-cost`, `paths`, `no-secrets`, …
    pub rule: &'static str,
    /// The limit, as the policy gave it (a number, a list of globs or tools, or `true`).
    pub limit: Value,
    /// What the session has: a number (`null` when it cannot be measured), or the tools
    /// missing for `require-tool`.
    pub value: Value,
    pub pass: bool,
    /// The entries that broke the rule (for a budget, the one that went over it).
    pub entries: Vec<Offender>,
}

impl Verdict {
    /// One line saying what was found, for people and for CI annotations.
    pub fn message(&self) -> String {
        let n = |v: &Value| v.as_f64().unwrap_or(0.0);
        let over = if self.pass { "within" } else { "over" };
        let (value, limit) = (n(&self.value), n(&self.limit));
        match self.rule {
            "max-cost" => format!("cost {}, {over} the budget of ${}", dollars(value), number(limit)),
            "max-context" => match self.value.as_f64() {
                Some(v) => format!(
                    "the fullest context was {v:.1}% of the window, {over} {}%",
                    number(limit)
                ),
                None => "no reply of a model with a known context window: not measured".into(),
            },
            "max-tokens" | "max-tool-calls" | "max-turns" | "max-tool-errors" | "no-tool-errors" => {
                let (one, many) = match self.rule {
                    "max-tokens" => ("token", "tokens"),
                    "max-tool-calls" => ("tool call", "tool calls"),
                    "max-turns" => ("turn", "turns"),
                    _ => ("failed tool result", "failed tool results"),
                };
                let what = if value == 1.0 { one } else { many };
                format!("{} {what}, {over} the limit of {}", tokens(value), tokens(limit))
            }
            "paths" => format!(
                "{} outside the allowed paths",
                counted(value as u64, "changed file", "changed files")
            ),
            "no-secrets" => format!("{} found", counted(value as u64, "secret", "secrets")),
            "valid" => format!("{} that repair would fix", counted(value as u64, "defect", "defects")),
            "forbid-tool" => counted(value as u64, "call of a forbidden tool", "calls of a forbidden tool"),
            "require-tool" => match self.value.as_array().map(Vec::as_slice) {
                Some([]) | None => "every required tool was called".into(),
                Some(missing) => {
                    let names: Vec<&str> = missing.iter().filter_map(Value::as_str).collect();
                    format!("never called: {}", names.join(", "))
                }
            },
            other => other.to_owned(),
        }
    }

    /// The verdict as a GitHub Actions `::error` workflow command on `session` (at the line
    /// of the first entry that broke the rule): `%` escaped in the message, also `:` and `,`
    /// in the properties, the first few entries on lines of their own (an escaped LF), and
    /// control characters escaped so that a session cannot inject a command of its own.
    pub fn github_annotation(&self, session: &str, entries_shown: usize) -> String {
        let data = |s: &str| escape_line(s).replace('%', "%25");
        let property = |s: &str| data(s).replace(':', "%3A").replace(',', "%2C");
        let mut message = data(&self.message());
        for o in self.entries.iter().take(entries_shown) {
            message.push_str("%0A");
            message.push_str(&data(&format!("line {}: {}", o.line, o.note)));
        }
        let line = self
            .entries
            .first()
            .map_or(String::new(), |o| format!(",line={}", o.line));
        format!(
            "::error file={}{line},title={}::{message}",
            property(session),
            property(&format!("pi-session check: {}", self.rule))
        )
    }
}

/// A `--json` record: the session's path, then the verdict's fields.
#[derive(Serialize)]
pub struct VerdictRecord<'a> {
    pub session: &'a str,
    #[serde(flatten)]
    pub verdict: &'a Verdict,
}

/// A `--json` record for a session that could not be checked.
#[derive(Serialize)]
pub struct ErrorRecord<'a> {
    pub session: &'a str,
    pub error: &'a str,
}

/// The verdict of a rule that no entry may break: the entries that broke it.
fn listed(rule: &'static str, limit: Value, entries: Vec<Offender>) -> Verdict {
    Verdict {
        rule,
        limit,
        value: json!(entries.len()),
        pass: entries.is_empty(),
        entries,
    }
}

/// What `check` needs besides the session and the policy.
pub struct Context<'a> {
    /// The credential rules, for `no-secrets` (which needs them).
    pub secrets: Option<&'a RuleSet>,
    /// The home directory, for `~` in tool paths.
    pub home: Option<&'a Path>,
}

/// The rules that read the same part of a session, checked together.
type Group<'a> = dyn Fn() -> Result<Vec<Verdict>, String> + Sync + 'a;

/// Sessions this large (in bytes) have their groups of rules checked on threads of their
/// own; below it, starting the threads costs more than it saves.
const PARALLEL_FROM: usize = 8 << 20;

/// The verdicts of `groups`, in their order: each group on a thread of its own when
/// `parallel`, else one after the other.
fn run_groups(groups: &[&Group<'_>], parallel: bool) -> Result<Vec<Verdict>, String> {
    let mut out = Vec::new();
    if !parallel {
        for g in groups {
            out.extend(g()?);
        }
        return Ok(out);
    }
    std::thread::scope(|s| {
        let handles: Vec<_> = groups.iter().map(|g| s.spawn(*g)).collect();
        for h in handles {
            out.extend(h.join().expect("a rule does not panic")?);
        }
        Ok(out)
    })
}

/// The verdicts of every rule `policy` sets, in the order the options are documented.
pub fn check(session: &Session, policy: &Policy, cx: &Context<'_>) -> Result<Vec<Verdict>, String> {
    let scope = if policy.branch {
        Scope::Branch(session.at())
    } else {
        Scope::File
    };
    let (entries, _) = entries_of(session, scope);
    let offender = |i: EntryIdx, note: String| Offender {
        id: session.id_str(i).map(str::to_owned),
        line: session.entries[i].line,
        note,
    };
    // A budget's verdict: the value, and the entry that went over the limit.
    let budget = |rule, limit: f64, value: f64, over_at: Option<(EntryIdx, String)>| Verdict {
        rule,
        limit: json!(number(limit)),
        value: json!(number(value)),
        pass: value <= limit,
        entries: over_at
            .filter(|_| value > limit)
            .map(|(i, n)| offender(i, n))
            .into_iter()
            .collect(),
    };

    let usage_rules = || -> Result<Vec<Verdict>, String> {
        let mut out = Vec::new();
        if policy.max_cost.is_some() || policy.max_tokens.is_some() || policy.max_context.is_some() {
            let (mut sum, mut cost_over, mut tokens_over) = (Totals::default(), None, None);
            let mut fullest: Vec<(f64, EntryIdx)> = Vec::new();
            // The context window of each (provider, model) met, looked up once.
            let mut windows: Vec<(ModelKey, Option<u64>)> = Vec::new();
            for call in calls(session, entries.iter().copied()) {
                sum.add_totals(&call.totals);
                if policy.max_cost.is_some_and(|l| sum.cost.total > l) && cost_over.is_none() {
                    cost_over = Some((call.entry, format!("the total reached ${:.4}", sum.cost.total)));
                }
                if policy.max_tokens.is_some_and(|l| sum.total_tokens > l as f64) && tokens_over.is_none() {
                    tokens_over = Some((call.entry, format!("the total reached {}", number(sum.total_tokens))));
                }
                if policy.max_context.is_some() && session.entries[call.entry].role() == Some(&Role::Assistant) {
                    let key = (call.provider.clone(), call.model.clone());
                    let window = match windows.iter().find(|(k, _)| *k == key) {
                        Some((_, w)) => *w,
                        None => {
                            let w = call
                                .provider
                                .as_deref()
                                .and_then(|p| builtin_model(p, &call.model))
                                .map(|m| m.context_window)
                                .filter(|&w| w > 0);
                            windows.push((key, w));
                            w
                        }
                    };
                    if let Some(w) = window {
                        fullest.push((call.totals.context_tokens() / w as f64 * 100.0, call.entry));
                    }
                }
            }
            if let Some(limit) = policy.max_cost {
                out.push(budget("max-cost", limit, sum.cost.total, cost_over));
            }
            if let Some(limit) = policy.max_tokens {
                out.push(budget("max-tokens", limit as f64, sum.total_tokens, tokens_over));
            }
            if let Some(limit) = policy.max_context {
                // Only replies whose usage Pi trusts (not aborted, not an error) count: the
                // fullest are looked at first, and parsed only until one is trusted.
                fullest.sort_by(|a, b| b.0.total_cmp(&a.0).then(a.1.cmp(&b.1)));
                let trusted = |i: EntryIdx| session.value(i).get("message").and_then(assistant_usage).is_some();
                let over: Vec<(f64, EntryIdx)> = fullest
                    .iter()
                    .copied()
                    .filter(|&(p, i)| p > limit && trusted(i))
                    .collect();
                let peak = over
                    .first()
                    .map(|&(p, _)| p)
                    .or_else(|| fullest.iter().find(|&&(_, i)| trusted(i)).map(|&(p, _)| p));
                let mut entries: Vec<Offender> = over
                    .iter()
                    .map(|&(p, i)| offender(i, format!("{p:.1}% of the window")))
                    .collect();
                entries.sort_by_key(|o| o.line);
                out.push(Verdict {
                    rule: "max-context",
                    limit: json!(number(limit)),
                    value: peak.map_or(Value::Null, |p| json!(number(p))),
                    pass: over.is_empty(),
                    entries,
                });
            }
        }
        Ok(out)
    };

    let tool_rules = || -> Result<Vec<Verdict>, String> {
        let mut out = Vec::new();
        let wants_tools = policy.max_tool_calls.is_some()
            || policy.max_turns.is_some()
            || policy.tool_error_budget().is_some()
            || !policy.forbid_tool.is_empty()
            || !policy.require_tool.is_empty();
        let wants_paths = !policy.paths.is_empty();
        // Turns and tool errors need no tool names.
        let wants_names =
            policy.max_tool_calls.is_some() || !policy.forbid_tool.is_empty() || !policy.require_tool.is_empty();
        if wants_tools || wants_paths {
            let (mut calls_made, mut turns, mut calls_over, mut turns_over) = (0u64, 0u64, None, None);
            let (mut errors, mut forbidden, mut seen) = (Vec::new(), Vec::new(), HashSet::new());
            let allowed = paths::Allowed::new(&policy.paths)?;
            let cwd = session.header.cwd.as_deref().unwrap_or("/");
            let (mut outside, mut named) = (Vec::new(), HashSet::new());
            for &i in &entries {
                let e = &session.entries[i];
                let assistant = e.kind == EntryKind::Message && e.role() == Some(&Role::Assistant);
                // Tool names come from the index (the loader read them); a line is read only
                // for the files an edit or write call names.
                let ops = if wants_paths {
                    entry_ops(session, i, |t| t != Touch::Read)
                } else {
                    FileOps::default()
                };
                let names = if assistant && wants_names {
                    tool_calls(session, i)
                } else {
                    Vec::new()
                };
                for path in ops.edited.iter().chain(&ops.written) {
                    let fine = paths::inside(path, cwd, cx.home).is_some_and(|r| allowed.allows(&r));
                    if !fine && named.insert(path.clone()) {
                        outside.push(offender(i, format!("changes {path}")));
                    }
                }
                if e.kind != EntryKind::Message {
                    continue;
                }
                match e.role() {
                    Some(Role::Assistant) => {
                        turns += 1;
                        if policy.max_turns.is_some_and(|l| turns > l) && turns_over.is_none() {
                            turns_over = Some((i, format!("turn {turns}")));
                        }
                        for name in names {
                            calls_made += 1;
                            if policy.max_tool_calls.is_some_and(|l| calls_made > l) && calls_over.is_none() {
                                calls_over = Some((i, format!("tool call {calls_made} ({name})")));
                            }
                            if policy.forbid_tool.contains(&name) {
                                forbidden.push(offender(i, format!("calls {name}")));
                            }
                            seen.insert(name);
                        }
                    }
                    Some(Role::ToolResult) => {
                        let (name, failed) = result_of(session, i);
                        if failed {
                            errors.push(offender(i, format!("{name} failed")));
                        }
                    }
                    _ => {}
                }
            }
            if let Some(limit) = policy.max_tool_calls {
                out.push(budget("max-tool-calls", limit as f64, calls_made as f64, calls_over));
            }
            if let Some(limit) = policy.max_turns {
                out.push(budget("max-turns", limit as f64, turns as f64, turns_over));
            }
            if let Some(limit) = policy.tool_error_budget() {
                let pass = errors.len() as u64 <= limit;
                out.push(Verdict {
                    rule: if policy.no_tool_errors {
                        "no-tool-errors"
                    } else {
                        "max-tool-errors"
                    },
                    limit: json!(limit),
                    value: json!(errors.len()),
                    pass,
                    entries: if pass { Vec::new() } else { errors },
                });
            }
            if !policy.forbid_tool.is_empty() {
                out.push(listed("forbid-tool", json!(policy.forbid_tool), forbidden));
            }
            if !policy.require_tool.is_empty() {
                let missing: Vec<&String> = policy.require_tool.iter().filter(|t| !seen.contains(*t)).collect();
                out.push(Verdict {
                    rule: "require-tool",
                    limit: json!(policy.require_tool),
                    value: json!(missing),
                    pass: missing.is_empty(),
                    entries: Vec::new(),
                });
            }
            if wants_paths {
                out.push(listed("paths", json!(policy.paths), outside));
            }
        }
        Ok(out)
    };

    let secrets_rule = || -> Result<Vec<Verdict>, String> {
        let mut out = Vec::new();
        if policy.no_secrets {
            let rules = cx.secrets.ok_or("no-secrets needs the credential rules")?;
            let scan = crate::secrets::scan::scan(session.bytes(), rules);
            let found: Vec<Offender> = scan
                .findings
                .iter()
                .map(|f| Offender {
                    id: f.entry.clone(),
                    line: f.line,
                    note: if f.path.is_empty() {
                        f.rule.clone()
                    } else {
                        format!("{} in {}", f.rule, f.path)
                    },
                })
                .collect();
            out.push(listed("no-secrets", json!(true), found));
        }
        Ok(out)
    };

    let valid_rule = || -> Result<Vec<Verdict>, String> {
        let mut out = Vec::new();
        if policy.valid {
            let plan = crate::repair::plan::check_only(&session.path, session.bytes(), Some(session))
                .map_err(|e: SessionError| e.to_string())?;
            let defects: Vec<Offender> = plan
                .findings
                .iter()
                .filter(|f| f.severity == Severity::Defect)
                .map(|f| Offender {
                    id: f.id.clone(),
                    line: f.line.unwrap_or(0),
                    note: format!("{}: {}", f.kind, f.message),
                })
                .collect();
            out.push(listed("valid", json!(true), defects));
        }
        Ok(out)
    };
    let groups: [&Group<'_>; 4] = [&usage_rules, &tool_rules, &secrets_rule, &valid_rule];
    run_groups(&groups, session.bytes().len() >= PARALLEL_FROM)
}

/// [`check`] of each file of `paths`, several at a time; results in the order of `paths`,
/// an error (a file that cannot be read as a session) in place of a file's verdicts. With a
/// `cache` file, the verdicts of files unchanged since a run under the same policy are taken
/// from it ([`cache`]) and the new ones recorded. `progress` hears of a step per file.
pub fn check_files(
    paths: &[std::path::PathBuf],
    policy: &Policy,
    cx: &Context<'_>,
    cache: Option<&Path>,
    progress: &dyn crate::progress::Progress,
) -> Vec<Result<Vec<Verdict>, String>> {
    let mut cache = cache.map(|file| cache::Cache::open(file, policy, cx));
    // Stamped before reading: a file that changes meanwhile is not recorded as this version.
    let stamps: Vec<Option<Stamp>> = paths.iter().map(|p| Stamp::of(p)).collect();
    let indices: Vec<usize> = (0..paths.len()).collect();
    progress.start("sessions", Some(paths.len() as u64));
    let results = crate::parallel::par_map(
        &indices,
        |&i| {
            if let Some(verdicts) = cache.as_ref().and_then(|c| c.get(&paths[i], stamps[i])) {
                return (Ok(verdicts), true);
            }
            let session = match Session::open(&paths[i]) {
                Ok(s) => s,
                Err(e) => return (Err(e.to_string()), false),
            };
            (check(&session, policy, cx), false)
        },
        || progress.advance(1),
    );
    progress.finish();
    if let Some(mut c) = cache.take() {
        for ((path, stamp), (result, cached)) in paths.iter().zip(&stamps).zip(&results) {
            if let (Ok(verdicts), false, Some(stamp)) = (result, cached, stamp) {
                c.record(path, *stamp, verdicts);
            }
        }
        c.save();
    }
    results.into_iter().map(|(r, _)| r).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    /// One step of a branch: an assistant message (cost in eighths of a dollar, so that sums
    /// are exact in any order; context tokens; one tool call) and its tool result.
    type Step = (u8, u32, usize, usize, bool);

    const TOOLS: [&str; 4] = ["read", "edit", "write", "bash"];
    const PATHS: [&str; 3] = ["src/a.rs", "docs/b.md", "../c"];

    fn lines(branch: &str, parent: &str, steps: &[Step]) -> Vec<(String, String)> {
        let mut out = Vec::new();
        let mut parent = parent.to_owned();
        for (n, &(eighths, tokens, tool, path, error)) in steps.iter().enumerate() {
            let (a, r) = (format!("{branch}a{n}"), format!("{branch}r{n}"));
            let usage = json!({"input": tokens, "output": 0, "cacheRead": 0, "cacheWrite": 0,
                "totalTokens": tokens, "cost": {"total": f64::from(eighths) / 8.0}});
            let call = json!({"type": "toolCall", "id": format!("c{a}"), "name": TOOLS[tool],
                "arguments": {"path": PATHS[path]}});
            out.push((
                a.clone(),
                json!({"type": "message", "id": a, "parentId": parent,
                "timestamp": "2026-01-01T00:00:01.000Z",
                "message": {"role": "assistant", "content": [call], "provider": "anthropic",
                    "model": "claude-sonnet-4-5", "usage": usage, "stopReason": "toolUse"}})
                .to_string(),
            ));
            out.push((
                r.clone(),
                json!({"type": "message", "id": r, "parentId": a,
                "timestamp": "2026-01-01T00:00:02.000Z",
                "message": {"role": "toolResult", "toolCallId": format!("c{a}"), "toolName": TOOLS[tool],
                    "content": [], "isError": error}})
                .to_string(),
            ));
            parent = r;
        }
        out
    }

    /// The session with branch `a` (ending at the last line, so `@` is on it) and branch `b`
    /// off the first message, their lines interleaved as `order` says.
    fn session(a: &[Step], b: &[Step], order: &[bool]) -> Session {
        let (mut a, mut b) = (lines("A", "u0", a).into_iter(), lines("B", "u0", b).into_iter());
        let mut text = String::from(
            "{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"cwd\":\"/p\"}\n\
             {\"type\":\"message\",\"id\":\"u0\",\"parentId\":null,\"timestamp\":\"2026-01-01T00:00:00.000Z\",\"message\":{\"role\":\"user\",\"content\":\"go\"}}\n",
        );
        let mut last_a = "u0".to_owned();
        for &take_a in order
            .iter()
            .chain(std::iter::repeat_n(&true, 64))
            .chain(std::iter::repeat_n(&false, 64))
        {
            let next = if take_a { a.next() } else { b.next() };
            if let Some((id, line)) = next {
                if take_a {
                    last_a = id;
                }
                text.push_str(&line);
                text.push('\n');
            }
        }
        text.push_str(&format!(
            "{{\"type\":\"message\",\"id\":\"end\",\"parentId\":\"{last_a}\",\"timestamp\":\"2026-01-01T00:00:03.000Z\",\"message\":{{\"role\":\"user\",\"content\":\"ok\"}}}}\n"
        ));
        Session::from_bytes("t.jsonl".into(), text.into_bytes()).unwrap()
    }

    /// What may not depend on the order of the lines: each rule's verdict and value, and
    /// what the entries that broke a rule did (which entry went over a budget first does
    /// depend on the order, as it is counted in file order).
    fn outcome(v: &[Verdict]) -> Vec<(&'static str, bool, Value, Vec<String>)> {
        v.iter()
            .map(|v| {
                let mut notes: Vec<String> = v.entries.iter().map(|o| o.note.clone()).collect();
                notes.sort();
                if v.rule.starts_with("max-") && v.rule != "max-tool-errors" && v.rule != "max-context" {
                    notes.clear();
                }
                (v.rule, v.pass, v.value.clone(), notes)
            })
            .collect()
    }

    fn step() -> impl Strategy<Value = Step> {
        (0u8..8, 0u32..300_000, 0..TOOLS.len(), 0..PATHS.len(), any::<bool>())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn verdicts_do_not_depend_on_how_unrelated_branches_interleave(
            a in prop::collection::vec(step(), 0..6),
            b in prop::collection::vec(step(), 0..6),
            order1 in prop::collection::vec(any::<bool>(), 0..24),
            order2 in prop::collection::vec(any::<bool>(), 0..24),
            branch in any::<bool>(),
        ) {
            let policy = Policy {
                max_cost: Some(1.0),
                max_tokens: Some(400_000),
                max_tool_calls: Some(4),
                max_turns: Some(5),
                max_context: Some(60.0),
                max_tool_errors: Some(1),
                paths: vec!["src/**".into()],
                valid: true,
                forbid_tool: vec!["bash".into()],
                require_tool: vec!["read".into(), "grep".into()],
                branch,
                ..Policy::default()
            };
            let rules = RuleSet::builtin();
            let cx = Context { secrets: Some(&rules), home: None };
            let one = check(&session(&a, &b, &order1), &policy, &cx).unwrap();
            let two = check(&session(&a, &b, &order2), &policy, &cx).unwrap();
            prop_assert_eq!(outcome(&one), outcome(&two));
        }
    }
}
