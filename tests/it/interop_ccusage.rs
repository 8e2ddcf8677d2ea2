//! `pi-session usage` against ccusage's Pi reader (`@ccusage/pi` 18.0.11, `daily --json`),
//! on one agent folder.
//!
//! What ccusage counts (its `loadPiAgentData`): assistant messages whose `usage` has numeric
//! `input` and `output`, each once by `pi:${timestamp}:${totalTokens}`, cost the recorded
//! `usage.cost.total`, day the entry's timestamp's date in the zone; files in glob order,
//! calls in file order. So on assistant messages both report the same days and sums, to the
//! last bit of the cost; the summary calls of compactions and branch summaries and Pi 1.6's
//! `usage` entries (cache warming) are paid calls ccusage leaves out, by design.

use crate::common;

use common::ccusage::{self, Day};
use common::{cmd, ndjson};
// The benchmark generator's deterministic numbers, so the sessions are the same every run.
use crate::gen_session::generator::Rng;
use serde_json::{Value, json};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// (provider, model, dollars per token for input, output, cache read, cache write): real
/// prices, whose products and sums are not exact in binary, so the order of the additions
/// shows in the last bits.
const MODELS: [(&str, &str, [f64; 4]); 3] = [
    ("anthropic", "claude-sonnet-4-5", [3e-6, 15e-6, 0.3e-6, 3.75e-6]),
    ("openai", "gpt-5.1-codex", [1.25e-6, 10e-6, 0.125e-6, 0.0]),
    ("google", "gemini-2.5-pro", [1.25e-6, 10e-6, 0.31e-6, 0.0]),
];

/// A usage object as Pi records it: each cost part priced, the total their sum.
fn priced(prices: [f64; 4], tokens: [u64; 4]) -> Value {
    let [input, output, cache_read, cache_write] = tokens;
    let parts: Vec<f64> = prices.iter().zip(tokens).map(|(p, t)| p * t as f64).collect();
    let total = parts[0] + parts[1] + parts[2] + parts[3];
    json!({"input": input, "output": output, "cacheRead": cache_read, "cacheWrite": cache_write,
           "totalTokens": input + output + cache_read + cache_write,
           "cost": {"input": parts[0], "output": parts[1], "cacheRead": parts[2], "cacheWrite": parts[3],
                    "total": total}})
}

fn header(id: &str, ts: &str, cwd: &str) -> Value {
    json!({"type": "session", "version": 3, "id": id, "timestamp": ts, "cwd": cwd})
}

/// Builds a session's entries in one chain, each the child of the one before.
struct Chain {
    id: String,
    lines: Vec<Value>,
    n: usize,
    last: Option<String>,
}

impl Chain {
    fn new(id: &str, ts: &str, cwd: &str) -> Chain {
        Chain {
            id: id.to_owned(),
            lines: vec![header(id, ts, cwd)],
            n: 0,
            last: None,
        }
    }

    /// Appends an entry of `kind` with these fields; returns its id.
    fn push(&mut self, kind: &str, ts: &str, fields: Value) -> String {
        self.n += 1;
        let id = format!("{}{:04}", self.id, self.n);
        let mut entry = json!({"type": kind, "id": id, "parentId": self.last, "timestamp": ts});
        entry
            .as_object_mut()
            .unwrap()
            .extend(fields.as_object().unwrap().clone());
        self.lines.push(entry);
        self.last = Some(id.clone());
        id
    }

    fn user(&mut self, ts: &str) {
        self.push(
            "message",
            ts,
            json!({"message": {"role": "user", "content": "go", "timestamp": 1}}),
        );
    }

    fn assistant(&mut self, ts: &str, provider: &str, model: &str, usage: Value) {
        self.push(
            "message",
            ts,
            json!({"message": {"role": "assistant", "content": [{"type": "text", "text": "ok"}],
                               "provider": provider, "model": model, "stopReason": "stop",
                               "usage": usage}}),
        );
    }
}

/// `calls` calls a day on each of `days` (`YYYY-MM-DD`), between 00:01 and 23:59 UTC (so
/// that other zones move some to the day before or after), with models and token counts
/// drawn from `rng`. An aborted reply without usage and a call whose usage records no cost
/// come along: neither tool counts a cost for them.
fn chain_over_days(id: &str, cwd: &str, days: &[&str], calls: u32, rng: &mut Rng) -> Chain {
    let mut c = Chain::new(id, &format!("{}T00:00:30.000Z", days[0]), cwd);
    for day in days {
        for k in 0..calls {
            // Spread over the day, first and last call near midnight.
            let minute = 1 + u64::from(k) * (24 * 60 - 2) / u64::from(calls - 1);
            let (hh, mm) = (minute / 60, minute % 60);
            c.user(&format!("{day}T{hh:02}:{mm:02}:00.000Z"));
            let ts = format!("{day}T{hh:02}:{mm:02}:{:02}.{:03}Z", 1 + rng.below(58), rng.below(1000));
            let (provider, model, prices) = MODELS[rng.below(3) as usize];
            let tokens = [
                1 + rng.below(5000),
                1 + rng.below(3000),
                rng.below(200_000),
                rng.below(20_000),
            ];
            c.assistant(&ts, provider, model, priced(prices, tokens));
        }
    }
    let day = days[days.len() / 2];
    c.user(&format!("{day}T12:30:00.000Z"));
    c.push(
        "message",
        &format!("{day}T12:30:01.000Z"),
        json!({"message": {"role": "assistant", "content": [], "provider": "anthropic",
                           "model": "claude-sonnet-4-5", "stopReason": "aborted"}}),
    );
    c.assistant(
        &format!("{day}T12:30:02.000Z"),
        "openai",
        "gpt-5.1-codex",
        json!({"input": 7, "output": 3, "cacheRead": 0, "cacheWrite": 0, "totalTokens": 10}),
    );
    c
}

/// An agent folder (`PI_CODING_AGENT_DIR`) whose `sessions/` ccusage reads as `--piPath`.
struct Agent {
    dir: tempfile::TempDir,
}

impl Agent {
    fn empty() -> Agent {
        Agent {
            dir: tempfile::tempdir().unwrap(),
        }
    }

    /// The corpus's real session (Anthropic and OpenAI calls over two days, 2025-11-20 and
    /// 21) and three hand-made ones over March 2026, in two projects. Every day's assistant
    /// calls come from a single file, in every zone within 12 hours of UTC: the hand-made
    /// files cover runs of days with a day between runs. ccusage sums a day across files in
    /// the order its glob lists them and pi-session oldest session first, so only then are
    /// both sums of the same numbers in the same order, and their costs can be compared bit
    /// for bit (floating-point addition is not associative: the corpus's 423 costs of
    /// 2025-11-21 give three different sums in file order, reversed and sorted).
    fn new() -> Agent {
        let agent = Agent::empty();
        let real = common::corpus_dir().join("real-large.v3.jsonl");
        let to = agent.file(
            "--Users-badlogic-workspaces-pi-mono--",
            "2025-11-20T23-33-50-805Z_real.jsonl",
        );
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(real, to).unwrap();
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for (project, id, days) in [
            ("--p-alpha--", "h1", &["2026-03-01", "2026-03-02", "2026-03-03"][..]),
            // Los Angeles moves to summer time on 2026-03-08.
            (
                "--p-beta--",
                "h2",
                &["2026-03-05", "2026-03-06", "2026-03-07", "2026-03-08", "2026-03-09"][..],
            ),
            ("--p-alpha--", "h3", &["2026-03-11"][..]),
        ] {
            let cwd = format!("/p/{}", project.trim_matches('-').trim_start_matches("p-"));
            let chain = chain_over_days(id, &cwd, days, 9, &mut rng);
            agent.write_chain(project, &chain);
        }
        agent
    }

    fn sessions(&self) -> PathBuf {
        self.dir.path().join("sessions")
    }

    fn file(&self, project: &str, name: &str) -> PathBuf {
        self.sessions().join(project).join(name)
    }

    /// The session file of a chain, named as Pi names it (its header's time, then its id).
    fn chain_file(&self, project: &str, chain: &Chain) -> PathBuf {
        let ts = chain.lines[0]["timestamp"].as_str().unwrap().replace([':', '.'], "-");
        self.file(project, &format!("{ts}_{}.jsonl", chain.id))
    }

    fn write_chain(&self, project: &str, chain: &Chain) -> PathBuf {
        let path = self.chain_file(project, chain);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        let text: String = chain.lines.iter().map(|l| format!("{l}\n")).collect();
        std::fs::write(&path, text).unwrap();
        path
    }

    /// `usage --json -z ZONE ARGS…`: the group records, then the total record.
    fn usage(&self, zone: &str, args: &[&str]) -> Vec<Value> {
        let out = cmd()
            .env("PI_CODING_AGENT_DIR", self.dir.path())
            .current_dir(self.dir.path())
            .args(["usage", "--json", "-z", zone])
            .args(args)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "usage {args:?}: {stderr}");
        assert_eq!(stderr, "", "usage {args:?} warned");
        ndjson(&String::from_utf8(out.stdout).unwrap())
    }

    /// pi-session's days as ccusage's [`Day`]s, of the calls from `source` (all when
    /// `None`), oldest first.
    fn days(&self, zone: &str, source: Option<&str>) -> Vec<Day> {
        let records = match source {
            Some(_) => self.usage(zone, &["--by", "day,source"]),
            None => self.usage(zone, &["--by", "day"]),
        };
        records
            .iter()
            .filter(|r| r.get("total").is_none())
            .filter(|r| source.is_none_or(|s| r["source"] == s))
            .map(|r| Day {
                date: r["day"].as_str().expect("a day").to_owned(),
                input: r["input"].as_f64().unwrap(),
                output: r["output"].as_f64().unwrap(),
                cache_read: r["cacheRead"].as_f64().unwrap(),
                cache_write: r["cacheWrite"].as_f64().unwrap(),
                cost: r["cost"].as_f64().unwrap(),
            })
            .collect()
    }
}

/// Equal days, costs to the bit (`==` alone would take 0.0 for -0.0).
fn assert_same_days(pi: &[Day], ccusage: &[Day], what: &str) {
    let dates = |d: &[Day]| d.iter().map(|d| d.date.clone()).collect::<Vec<_>>();
    assert_eq!(dates(pi), dates(ccusage), "{what}: the days");
    for (p, c) in pi.iter().zip(ccusage) {
        assert_eq!(
            (p.input, p.output, p.cache_read, p.cache_write),
            (c.input, c.output, c.cache_read, c.cache_write),
            "{what}: tokens of {} (pi-session, ccusage)",
            p.date
        );
        assert_eq!(
            p.cost.to_bits(),
            c.cost.to_bits(),
            "{what}: cost of {}: pi-session {:?}, ccusage {:?}",
            p.date,
            p.cost,
            c.cost
        );
    }
}

#[test]
fn assistant_days_match_ccusage() {
    let agent = Agent::new();
    for zone in ["UTC", "Asia/Tokyo", "America/Los_Angeles"] {
        let Some(theirs) = ccusage::daily(&agent.sessions(), zone) else {
            return;
        };
        let ours = agent.days(zone, Some("assistant"));
        assert_same_days(&ours, &theirs, zone);
        // Only assistant messages here: every call either tool counts.
        assert_eq!(agent.days(zone, None), ours, "{zone}");
        if zone == "UTC" {
            assert_eq!(ours.len(), 2 + 3 + 5 + 1, "{ours:?}");
            // Sums over many calls at real prices: the comparison is not of round numbers.
            assert!(
                ours.iter()
                    .all(|d| d.cost.fract() != 0.0 && d.cost * 1024.0 != (d.cost * 1024.0).round())
            );
        }
    }
}

/// A usage object with round token counts and a cost that is not a power of two.
fn extra_usage(input: u64, cost: f64) -> Value {
    json!({"input": input, "output": 100, "cacheRead": 0, "cacheWrite": 0, "totalTokens": input + 100,
           "cost": {"input": cost, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": cost}})
}

#[test]
fn summaries_and_usage_entries_are_what_ccusage_leaves_out() {
    let agent = Agent::new();
    // (day, usage) of every call ccusage does not count, in the order pi-session adds them.
    let mut extras: Vec<(&str, Value)> = Vec::new();

    // A compaction in h2 at the end of 2026-03-06, after that day's last call.
    let h2 = agent.file("--p-beta--", "2026-03-05T00-00-30-000Z_h2.jsonl");
    let text = std::fs::read_to_string(&h2).unwrap();
    let mut lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let at = lines
        .iter()
        .rposition(|l| l["timestamp"].as_str().is_some_and(|t| t.starts_with("2026-03-06")))
        .unwrap();
    let compaction_usage = extra_usage(40_000, 0.1337);
    let after = lines[at]["id"].clone();
    lines.insert(
        at + 1,
        json!({"type": "compaction", "id": "h2c1", "parentId": after, "timestamp": "2026-03-06T23:59:59.999Z",
               "summary": "s", "firstKeptEntryId": after, "tokensBefore": 90_000,
               "usage": compaction_usage}),
    );
    lines[at + 2]["parentId"] = json!("h2c1");
    let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
    std::fs::write(&h2, text).unwrap();
    extras.push(("2026-03-06", compaction_usage));

    // The newest session (read last): a branch summary on a day of h1, cache warming on a day
    // of h2 and on a day with no message, a compaction on a day of the real session, and an
    // assistant call of its own on a day of its own.
    let mut x = Chain::new("x", "2026-03-20T09:00:00.000Z", "/p/beta");
    x.user("2026-03-20T09:00:01.000Z");
    let calls = [
        ("branch_summary", "2026-03-02T13:00:00.000Z", extra_usage(3000, 0.0123)),
        ("usage", "2026-03-07T18:00:00.000Z", extra_usage(50_000, 0.15)),
        ("usage", "2026-03-07T18:05:00.000Z", extra_usage(50_000, 0.15)),
        ("usage", "2026-03-10T08:00:00.000Z", extra_usage(20_000, 0.06)),
        ("compaction", "2025-11-21T20:00:00.000Z", extra_usage(120_000, 0.3711)),
    ];
    for (kind, ts, usage) in calls {
        let fields = match kind {
            "branch_summary" => json!({"fromId": "x0001", "summary": "left", "usage": usage}),
            "usage" => json!({"kind": "cache_warm", "provider": "anthropic", "model": "claude-sonnet-4-5",
                              "usage": usage}),
            _ => json!({"summary": "s", "firstKeptEntryId": "x0001", "tokensBefore": 1, "usage": usage}),
        };
        x.push(kind, ts, fields);
        extras.push((&ts[..10], usage));
    }
    x.assistant(
        "2026-03-25T10:00:00.000Z",
        "anthropic",
        "claude-sonnet-4-5",
        priced(MODELS[0].2, [1234, 567, 89_012, 3456]),
    );
    agent.write_chain("--p-beta--", &x);

    let Some(theirs) = ccusage::daily(&agent.sessions(), "UTC") else {
        return;
    };
    // The assistant messages still match to the bit.
    assert_same_days(&agent.days("UTC", Some("assistant")), &theirs, "assistant");
    assert!(theirs.iter().any(|d| d.date == "2026-03-25"));
    assert!(
        !theirs.iter().any(|d| d.date == "2026-03-10"),
        "ccusage counts no usage entry"
    );

    // All sources, day by day: ccusage's sum, then each extra call added to it in order (each
    // day's extras come after its assistant calls in pi-session's order: at the end of the
    // day in h2, or in x, the newest session).
    let mut expected: BTreeMap<String, Day> = theirs.into_iter().map(|d| (d.date.clone(), d)).collect();
    for (date, usage) in &extras {
        let d = expected.entry((*date).to_owned()).or_insert_with(|| Day {
            date: (*date).to_owned(),
            input: 0.0,
            output: 0.0,
            cache_read: 0.0,
            cache_write: 0.0,
            cost: 0.0,
        });
        d.input += usage["input"].as_f64().unwrap();
        d.output += usage["output"].as_f64().unwrap();
        d.cache_read += usage["cacheRead"].as_f64().unwrap();
        d.cache_write += usage["cacheWrite"].as_f64().unwrap();
        d.cost += usage["cost"]["total"].as_f64().unwrap();
    }
    let expected: Vec<Day> = expected.into_values().collect();
    assert_same_days(&agent.days("UTC", None), &expected, "all sources");

    // And by source, the extras exactly.
    let records = agent.usage("UTC", &["--by", "source"]);
    let cost_of = |source: &str| {
        records
            .iter()
            .find(|r| r["source"] == source)
            .map(|r| (r["calls"].as_u64().unwrap(), r["input"].as_f64().unwrap()))
    };
    assert_eq!(cost_of("compaction"), Some((2, 160_000.0)));
    assert_eq!(cost_of("branchSummary"), Some((1, 3000.0)));
    assert_eq!(cost_of("usage"), Some((3, 120_000.0)));
}

/// Pi 1.6.0's own fork of a whole session (`SessionManager.forkFrom`, what `pi --fork` does):
/// a new session file in `session_dir` beginning with copies of every entry, then `append`ed
/// messages written by Pi (`appendMessage`, timestamped now). Returns its path, or `None`
/// when the Pi oracle is unavailable.
fn pi_fork(source: &Path, cwd: &str, session_dir: &Path, append: &[Value]) -> Option<PathBuf> {
    let module = common::oracle::oracle_module_dir()?;
    // Node 20 cannot load the package's index (it needs a newer node); the session manager
    // alone loads.
    let script = r#"
        import { pathToFileURL } from "node:url";
        import { join } from "node:path";
        const [dir, source, cwd, sessionDir, append] = process.argv.slice(1);
        const m = await import(pathToFileURL(join(dir, "dist/core/session-manager.js")).href);
        const forked = m.SessionManager.forkFrom(source, cwd, sessionDir);
        for (const message of JSON.parse(append)) forked.appendMessage(message);
        process.stdout.write(forked.getSessionFile());
    "#;
    let mut command = std::process::Command::new("node");
    command
        .args(["--input-type=module", "-e", script])
        .arg(&module)
        .arg(source)
        .arg(cwd)
        .arg(session_dir)
        .arg(Value::from(append.to_vec()).to_string());
    let out = ccusage::run(command, &format!("Pi forkFrom {}", source.display()));
    Some(PathBuf::from(out))
}

#[test]
fn a_fork_made_by_pi_counts_once() {
    let agent = Agent::new();
    let before_all = agent.usage("UTC", &["--by", "day,session"]);
    let before = agent.days("UTC", None);
    let Some(theirs_before) = ccusage::daily(&agent.sessions(), "UTC") else {
        return;
    };
    let source = agent.file("--p-beta--", "2026-03-05T00-00-30-000Z_h2.jsonl");
    let Some(fork) = pi_fork(&source, "/p/beta", source.parent().unwrap(), &[]) else {
        return;
    };
    assert!(fork.is_file() && fork.parent() == source.parent(), "{}", fork.display());
    let copied = std::fs::read_to_string(&fork).unwrap();
    assert!(copied.contains(&format!("\"parentSession\":\"{}\"", source.display())));
    assert_eq!(
        copied.lines().count(),
        std::fs::read_to_string(&source).unwrap().lines().count()
    );

    // pi-session: the fork holds only copies (same entry ids and timestamps), counted for h2;
    // every day, and the total, as before to the bit.
    assert_same_days(&agent.days("UTC", None), &before, "pi-session with Pi's fork");
    let after_all = agent.usage("UTC", &["--by", "day,session"]);
    assert_eq!(after_all, before_all, "the fork pays for nothing");
    assert_eq!(
        after_all.last().unwrap()["cost"].as_f64().unwrap().to_bits(),
        before_all.last().unwrap()["cost"].as_f64().unwrap().to_bits()
    );

    // ccusage: the copies have the timestamps and totalTokens of the calls they copy, so its
    // `pi:${timestamp}:${totalTokens}` key drops them (whichever of the two files its glob
    // reads first, the day's sum is of the same calls in the same order): the same days as
    // before, to the bit, and so still pi-session's.
    let Some(theirs) = ccusage::daily(&agent.sessions(), "UTC") else {
        return;
    };
    assert_same_days(&theirs, &theirs_before, "ccusage with Pi's fork");
    assert_same_days(&agent.days("UTC", Some("assistant")), &theirs, "with Pi's fork");

    // A fork of h3 that then pays for a call of its own, written by Pi: that call, and only
    // it, counts for the fork, in both tools.
    let h3 = agent.file("--p-alpha--", "2026-03-11T00-00-30-000Z_h3.jsonl");
    let own = priced(MODELS[1].2, [4321, 765, 43_210, 0]);
    let append = [
        json!({"role": "user", "content": "more", "timestamp": 2}),
        json!({"role": "assistant", "content": [{"type": "text", "text": "done"}], "api": "openai-responses",
               "provider": "openai", "model": "gpt-5.1-codex", "stopReason": "stop", "timestamp": 3,
               "usage": own}),
    ];
    let Some(fork2) = pi_fork(&h3, "/p/alpha", h3.parent().unwrap(), &append) else {
        return;
    };
    let sessions = agent.usage("UTC", &["--by", "session"]);
    let mine: Vec<&Value> = sessions
        .iter()
        .filter(|r| r["path"].as_str() == Some(fork2.to_str().unwrap()))
        .collect();
    assert_eq!(mine.len(), 1, "{sessions:?}");
    assert_eq!(mine[0]["calls"], 1);
    assert_eq!(
        mine[0]["cost"].as_f64().unwrap().to_bits(),
        own["cost"]["total"].as_f64().unwrap().to_bits()
    );
    assert_eq!(mine[0]["input"], 4321);
    let total = sessions.last().unwrap();
    assert_eq!(
        total["calls"],
        before_all.last().unwrap()["calls"].as_u64().unwrap() + 1
    );
    let Some(theirs) = ccusage::daily(&agent.sessions(), "UTC") else {
        return;
    };
    // Pi timestamps the call now: a day none of the other sessions has.
    assert_eq!(theirs.len(), theirs_before.len() + 1, "a day of its own");
    assert_same_days(&agent.days("UTC", Some("assistant")), &theirs, "with Pi's fork paying");
}

/// Where ccusage leaves out calls pi-session counts, by its own rules: two calls with one
/// timestamp and one token count are one to it (its key holds no entry id), and a timestamp
/// with more than milliseconds fails its schema. Pi writes neither (ids differ, timestamps
/// are `toISOString()`), but other writers may.
#[test]
fn calls_ccusage_drops_by_its_own_rules() {
    let agent = Agent::empty();
    let mut c = Chain::new("d", "2026-05-01T00:00:00.000Z", "/p/d");
    let (provider, model, prices) = MODELS[0];
    c.user("2026-05-01T09:59:00.000Z");
    c.assistant(
        "2026-05-01T10:00:00.000Z",
        provider,
        model,
        priced(prices, [40, 1, 0, 0]),
    );
    // Another call, its own id, at the same millisecond with the same totalTokens.
    c.assistant(
        "2026-05-01T10:00:00.000Z",
        provider,
        model,
        priced(prices, [1, 40, 0, 0]),
    );
    c.assistant(
        "2026-05-02T10:00:00.123456Z",
        provider,
        model,
        priced(prices, [50, 1, 0, 0]),
    );
    agent.write_chain("--p-d--", &c);
    let Some(theirs) = ccusage::daily(&agent.sessions(), "UTC") else {
        return;
    };
    let ours = agent.days("UTC", None);
    assert_eq!(
        ours.iter()
            .map(|d| (d.date.as_str(), d.input, d.output))
            .collect::<Vec<_>>(),
        [("2026-05-01", 41.0, 41.0), ("2026-05-02", 50.0, 1.0)]
    );
    assert_eq!(
        theirs
            .iter()
            .map(|d| (d.date.as_str(), d.input, d.output))
            .collect::<Vec<_>>(),
        [("2026-05-01", 40.0, 1.0)]
    );
}
