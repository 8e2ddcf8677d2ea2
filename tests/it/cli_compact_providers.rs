//! `compact` and `summarize-branch` against a local server speaking the Anthropic, OpenAI
//! and Gemini wire formats: the requests sent, the entries written, and that any failure
//! writes nothing.

use crate::common;
use crate::common::llm_server;

use common::{cmd, corpus_dir, last_entry, ndjson};
use llm_server::{LlmServer, Scripted, Tokens, anthropic_body, gemini_body, openai_body};
use std::path::{Path, PathBuf};
use std::time::Duration;

const KEY: &str = "sk-test-do-not-print-4f2a9c";

fn copy(name: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let dest = dir.path().join("s.jsonl");
    std::fs::copy(corpus_dir().join(name), &dest).unwrap();
    std::fs::create_dir_all(dir.path().join("agent")).unwrap();
    (dir, dest)
}

/// `pi-session` with an empty agent dir, fast retries, and the test key.
fn pi(dir: &Path) -> assert_cmd::Command {
    let mut c = cmd();
    c.current_dir(dir)
        .env("PI_CODING_AGENT_DIR", dir.join("agent"))
        .env("PI_SESSION_RETRY_BASE_MS", "10")
        .env_remove("ANTHROPIC_API_KEY")
        .env_remove("OPENAI_API_KEY")
        .env_remove("GEMINI_API_KEY");
    c
}

fn tokens(input: u64, output: u64) -> Tokens {
    Tokens {
        input,
        output,
        ..Tokens::default()
    }
}

#[test]
fn anthropic_compaction_request_and_entry() {
    let (dir, f) = copy("real-large.v3.jsonl");
    // This session's last turn is split: a history request and a turn-prefix request.
    let server = LlmServer::start(vec![
        Scripted::json(200, anthropic_body("## Goal\nRefactor.", tokens(1000, 200), "end_turn")),
        Scripted::json(
            200,
            anthropic_body("## Original Request\nTests.", tokens(300, 30), "end_turn"),
        ),
    ]);
    let out = pi(dir.path())
        .env("ANTHROPIC_API_KEY", KEY)
        .args(["-s", f.to_str().unwrap(), "compact", "--keep-recent-tokens", "3000"])
        .args(["--model", "anthropic/claude-sonnet-4-5", "--base-url", &server.url()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    let r = &reqs[0];
    assert_eq!(r.header("x-api-key"), Some(KEY));
    assert!(r.header("anthropic-version").is_some());
    let body = r.json();
    assert_eq!(body["model"], "claude-sonnet-4-5");
    let prompt = body["messages"][0]["content"].to_string();
    assert!(
        prompt.contains("<conversation>") && prompt.contains("## Critical Context"),
        "{prompt}"
    );
    assert!(body["max_tokens"].as_u64().unwrap() > 0);
    assert!(!body.to_string().contains("cache_control"), "no prompt-cache writes");
    let e = last_entry(&f);
    assert_eq!(e["type"], "compaction");
    assert!(e["summary"].as_str().unwrap().starts_with("## Goal\nRefactor."));
    assert!(
        e["summary"]
            .as_str()
            .unwrap()
            .contains("**Turn Context (split turn):**\n\n## Original Request\nTests.")
    );
    assert_eq!(e["usage"]["input"], 1300, "usage is the sum over both requests");
    assert_eq!(e["usage"]["output"], 230);
    assert!(
        e["usage"]["cost"]["total"].as_f64().unwrap() > 0.0,
        "cost from the model's prices"
    );
    let all = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(!all.contains(KEY));
}

#[test]
fn split_turn_sends_two_requests_and_merges_them() {
    // Pi 1.6.0 splits the last turn of this session when keeping 20000 tokens.
    let (dir, f) = copy("real-before-compaction.v3.jsonl");
    let plan = ndjson(
        &String::from_utf8(
            pi(dir.path())
                .args(["-s", f.to_str().unwrap(), "compact", "--dry-run", "--json"])
                .output()
                .unwrap()
                .stdout,
        )
        .unwrap(),
    )[0]
    .clone();
    assert_eq!(plan["isSplitTurn"], true);
    let server = LlmServer::start(vec![
        Scripted::json(200, openai_body("HISTORY", tokens(100, 10), "stop")),
        Scripted::json(200, openai_body("PREFIX", tokens(50, 5), "stop")),
    ]);
    let out = pi(dir.path())
        .env("OPENAI_API_KEY", KEY)
        .args([
            "-s",
            f.to_str().unwrap(),
            "compact",
            "--model",
            "openai/gpt-4o",
            "--base-url",
            &server.url(),
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let reqs = server.requests();
    assert_eq!(reqs.len(), 2);
    assert!(
        reqs[0].json().to_string().contains("previous-summary"),
        "history update form"
    );
    assert_eq!(reqs[1].header("authorization"), Some(format!("Bearer {KEY}").as_str()));
    let e = last_entry(&f);
    let s = e["summary"].as_str().unwrap();
    assert!(
        s.starts_with("HISTORY\n\n---\n\n**Turn Context (split turn):**\n\nPREFIX"),
        "{s}"
    );
    assert!(s.contains("<modified-files>"));
    assert_eq!(e["usage"]["input"], 150);
    assert_eq!(e["usage"]["output"], 15);
    assert_eq!(e["firstKeptEntryId"], plan["firstKeptEntryId"]);
}

#[test]
fn gemini_branch_summary() {
    let (dir, f) = copy("pi-built.v3.jsonl");
    let server = LlmServer::start(vec![Scripted::json(
        200,
        gemini_body("Tried a side answer.", tokens(80, 8), "STOP"),
    )]);
    let out = pi(dir.path())
        .env("GEMINI_API_KEY", KEY)
        .args([
            "-s",
            f.to_str().unwrap(),
            "summarize-branch",
            "green",
            "--model",
            "google/gemini-2.5-flash",
        ])
        .args(["--base-url", &server.url()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let r = &server.requests()[0];
    assert_eq!(r.header("x-goog-api-key"), Some(KEY));
    let e = last_entry(&f);
    assert_eq!(e["type"], "branch_summary");
    assert!(e["summary"].as_str().unwrap().contains("Tried a side answer."));
    assert_eq!(e["usage"]["input"], 80);
}

#[test]
fn local_openai_compatible_server_needs_no_key() {
    let (dir, f) = copy("real-large.v3.jsonl");
    let server = LlmServer::start(vec![
        Scripted::json(200, openai_body("local summary", tokens(10, 1), "stop")),
        Scripted::json(200, openai_body("local prefix", tokens(10, 1), "stop")),
    ]);
    let out = pi(dir.path())
        .args(["-s", f.to_str().unwrap(), "compact", "--keep-recent-tokens", "3000"])
        .args(["--model", "mylocal/llama3", "--base-url", &server.url()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(server.requests()[0].json()["model"], "llama3");
    assert!(last_entry(&f)["summary"].as_str().unwrap().starts_with("local summary"));
}

#[test]
fn rate_limit_then_success() {
    let (dir, f) = copy("real-large.v3.jsonl");
    let server = LlmServer::start(vec![
        Scripted::json(429, r#"{"error":{"message":"slow down"}}"#).header("retry-after", "0"),
        Scripted::json(200, anthropic_body("after retry", tokens(5, 1), "end_turn")),
        Scripted::json(200, anthropic_body("prefix", tokens(5, 1), "end_turn")),
    ]);
    let out = pi(dir.path())
        .env("ANTHROPIC_API_KEY", KEY)
        .args(["-s", f.to_str().unwrap(), "compact", "--keep-recent-tokens", "3000"])
        .args(["--model", "anthropic/claude-sonnet-4-5", "--base-url", &server.url()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(server.requests().len(), 3);
    assert!(last_entry(&f)["summary"].as_str().unwrap().starts_with("after retry"));
}

fn assert_fails_unchanged(dir: &Path, f: &Path, server: &LlmServer, extra_env: &[(&str, &str)], expect: &[&str]) {
    let before = std::fs::read(f).unwrap();
    let mut c = pi(dir);
    for (k, v) in extra_env {
        c.env(k, v);
    }
    let out = c
        .env("ANTHROPIC_API_KEY", KEY)
        .args(["-s", f.to_str().unwrap(), "compact", "--keep-recent-tokens", "3000"])
        .args(["--model", "anthropic/claude-sonnet-4-5", "--base-url", &server.url()])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    for e in expect {
        assert!(stderr.contains(e), "stderr lacks {e:?}: {stderr}");
    }
    assert!(
        !stderr.contains(KEY) && !String::from_utf8_lossy(&out.stdout).contains(KEY),
        "the key leaked"
    );
    assert_eq!(std::fs::read(f).unwrap(), before, "a failure must write nothing");
}

#[test]
fn server_errors_write_nothing() {
    let (dir, f) = copy("real-large.v3.jsonl");
    let server = LlmServer::start(
        (0..6)
            .map(|_| Scripted::json(500, r#"{"error":{"message":"boom"}}"#))
            .collect(),
    );
    assert_fails_unchanged(dir.path(), &f, &server, &[], &["anthropic", "500"]);
    assert!(server.requests().len() >= 4, "retried");
}

#[test]
fn malformed_body_writes_nothing() {
    let (dir, f) = copy("real-large.v3.jsonl");
    let server = LlmServer::start(vec![Scripted::json(200, "{not json")]);
    assert_fails_unchanged(dir.path(), &f, &server, &[], &["anthropic"]);
}

#[test]
fn timeout_writes_nothing() {
    let (dir, f) = copy("real-large.v3.jsonl");
    let slow =
        || Scripted::json(200, anthropic_body("late", tokens(1, 1), "end_turn")).delay(Duration::from_millis(1500));
    let server = LlmServer::start(vec![slow(), slow(), slow(), slow()]);
    assert_fails_unchanged(
        dir.path(),
        &f,
        &server,
        &[("PI_SESSION_HTTP_TIMEOUT_MS", "200")],
        &["anthropic"],
    );
}

#[test]
fn truncated_summary_is_refused() {
    let (dir, f) = copy("real-large.v3.jsonl");
    let server = LlmServer::start(vec![Scripted::json(
        200,
        anthropic_body("half a summ", tokens(1, 1), "max_tokens"),
    )]);
    assert_fails_unchanged(dir.path(), &f, &server, &[], &["anthropic"]);
}

#[test]
fn one_deadline_bounds_all_attempts_and_waits() {
    // Each attempt may take 5 s and there are 4 of them with backoff between: without one
    // deadline over all of them this would take 20 s or more.
    let (dir, f) = copy("real-large.v3.jsonl");
    let slow = || Scripted::json(200, anthropic_body("late", tokens(1, 1), "end_turn")).delay(Duration::from_secs(5));
    let server = LlmServer::start(vec![slow(), slow(), slow(), slow()]);
    let started = std::time::Instant::now();
    assert_fails_unchanged(
        dir.path(),
        &f,
        &server,
        &[
            ("PI_SESSION_HTTP_TIMEOUT_MS", "5000"),
            ("PI_SESSION_LLM_TIMEOUT", "1.5"),
        ],
        &["anthropic", "no summary within 1.5 s"],
    );
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "the deadline was not kept: {:?}",
        started.elapsed()
    );
    assert_eq!(server.requests().len(), 1, "no retry starts after the deadline");
}

#[test]
fn timeout_flag_is_checked() {
    let (dir, f) = copy("real-large.v3.jsonl");
    let out = pi(dir.path())
        .args([
            "-s",
            f.to_str().unwrap(),
            "compact",
            "--timeout=-3",
            "--model",
            "anthropic/x",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("positive number of seconds"));
}

#[test]
fn a_negative_retry_after_means_backoff_not_an_immediate_retry() {
    let (dir, f) = copy("real-large.v3.jsonl");
    let server = LlmServer::start(vec![
        Scripted::json(429, r#"{"error":{"message":"slow down"}}"#).header("retry-after", "-5"),
        Scripted::json(200, anthropic_body("after retry", tokens(5, 1), "end_turn")),
        Scripted::json(200, anthropic_body("prefix", tokens(5, 1), "end_turn")),
    ]);
    let started = std::time::Instant::now();
    let out = pi(dir.path())
        .env("ANTHROPIC_API_KEY", KEY)
        .env("PI_SESSION_RETRY_BASE_MS", "400")
        .args(["-s", f.to_str().unwrap(), "compact", "--keep-recent-tokens", "3000"])
        .args(["--model", "anthropic/claude-sonnet-4-5", "--base-url", &server.url()])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(started.elapsed() >= Duration::from_millis(400), "retried at once");
    assert!(last_entry(&f)["summary"].as_str().unwrap().starts_with("after retry"));
}

#[test]
fn an_oversized_answer_is_refused() {
    let (dir, f) = copy("real-large.v3.jsonl");
    let huge = "x".repeat(5 << 20);
    let server = LlmServer::start(vec![Scripted::json(
        200,
        anthropic_body(&huge, tokens(1, 1), "end_turn"),
    )]);
    assert_fails_unchanged(
        dir.path(),
        &f,
        &server,
        &[],
        &["anthropic", "larger than 4194304 bytes"],
    );
    assert_eq!(server.requests().len(), 1, "a too-large answer is not asked for again");
}

#[test]
fn an_oversized_summary_is_refused() {
    let (dir, f) = copy("real-large.v3.jsonl");
    let big = "y".repeat(1_100_000);
    let server = LlmServer::start(vec![Scripted::json(
        200,
        anthropic_body(&big, tokens(1, 1), "end_turn"),
    )]);
    assert_fails_unchanged(dir.path(), &f, &server, &[], &["anthropic", "a summary may have"]);
}

/// `name --generate` asks the provider `compact` would use, with pi-session's title prompt,
/// and names the session with the first line of the answer; a provider error writes nothing.
#[test]
fn name_generate_asks_the_provider_for_a_title() {
    let (dir, f) = copy("real-large.v3.jsonl");
    let old = std::time::SystemTime::now() - Duration::from_secs(60);
    std::fs::File::options()
        .append(true)
        .open(&f)
        .unwrap()
        .set_modified(old)
        .unwrap();
    let server = LlmServer::start(vec![
        Scripted::json(
            200,
            anthropic_body("\"Refactor the session loader.\"\n", tokens(900, 12), "end_turn"),
        ),
        Scripted::json(
            400,
            r#"{"type":"error","error":{"type":"invalid_request_error","message":"no"}}"#,
        ),
    ]);
    let run = || {
        pi(dir.path())
            .env("ANTHROPIC_API_KEY", KEY)
            .args(["-s", f.to_str().unwrap(), "name", "--generate"])
            .args(["--model", "anthropic/claude-haiku-4-5", "--base-url", &server.url()])
            .output()
            .unwrap()
    };
    let out = run();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let reqs = server.requests();
    assert_eq!(reqs.len(), 1);
    let body = reqs[0].json();
    assert_eq!(body["model"], "claude-haiku-4-5");
    assert!(body.to_string().contains("short title"), "{body}");
    let e = last_entry(&f);
    assert_eq!(e["type"], "session_info");
    assert_eq!(e["name"], "Refactor the session loader");
    let before = std::fs::read(&f).unwrap();
    std::fs::File::options()
        .append(true)
        .open(&f)
        .unwrap()
        .set_modified(old)
        .unwrap();
    let out = run();
    assert!(!out.status.success());
    assert_eq!(std::fs::read(&f).unwrap(), before, "a failed request writes nothing");
}
