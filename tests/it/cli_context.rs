//! `pi-session context`: the messages Pi sends to the model with the leaf at a revision.

use crate::common;

use common::{cmd, example, fixture, ndjson, run_ok};
use serde_json::Value;
use std::path::Path;

fn messages(file: &Path, args: &[&str]) -> Vec<Value> {
    let mut a = vec!["context", "--json"];
    a.extend_from_slice(args);
    ndjson(&run_ok(file, &a))
}

fn roles(messages: &[Value]) -> Vec<&str> {
    messages.iter().map(|m| m["role"].as_str().unwrap()).collect()
}

fn text_of(m: &Value) -> String {
    match &m["content"] {
        Value::String(s) => s.clone(),
        Value::Array(blocks) => blocks
            .iter()
            .filter_map(|b| b["text"].as_str())
            .collect::<Vec<_>>()
            .join(""),
        _ => String::new(),
    }
}

/// The `── role  source` separator lines of the human output: (role, source id).
fn sections(out: &str) -> Vec<(String, String)> {
    out.lines()
        .filter_map(|l| l.strip_prefix("── "))
        .map(|l| {
            let mut parts = l.split_whitespace();
            (parts.next().unwrap().to_owned(), parts.next().unwrap_or("").to_owned())
        })
        .collect()
}

#[test]
fn default_is_the_context_at_at() {
    let m = messages(&example(), &[]);
    assert_eq!(roles(&m), ["user", "assistant"]);
    assert_eq!(text_of(&m[0]), "Read src/parser.rs and explain the tokenizer.");
    assert_eq!(text_of(&m[1]), "(alternative answer on a side branch)");
    // Messages are the stored ones, field for field.
    assert_eq!(m[1]["model"], "claude-sonnet-4-5");
    assert_eq!(m[1]["usage"]["totalTokens"], 1280);
    assert_eq!(messages(&example(), &["@"]), m);
}

#[test]
fn human_header_counts_messages_tokens_model_and_thinking() {
    let out = run_ok(&example(), &["context"]);
    let header = out.lines().next().unwrap();
    // 45 + 37 characters of text: 12 + 10 tokens.
    assert_eq!(
        header,
        "2 messages, ~22 tokens (characters/4) · model anthropic/claude-sonnet-4-5 · thinking medium"
    );
    assert_eq!(
        sections(&out),
        [
            ("user".into(), "80fbf1f2".into()),
            ("assistant".into(), "b8731d22".into())
        ]
    );
    assert!(
        out.contains("\nRead src/parser.rs and explain the tokenizer.\n"),
        "{out}"
    );
}

#[test]
fn rev_builds_the_context_at_an_earlier_entry() {
    let at_first_answer = messages(&example(), &["7affd800"]);
    assert_eq!(roles(&at_first_answer), ["user", "assistant"]);
    assert_eq!(at_first_answer[1]["content"][1]["name"], "read");
    let at_user = messages(&example(), &["80fbf1f2"]);
    assert_eq!(roles(&at_user), ["user"]);
    let green = messages(&example(), &["green"]);
    assert_eq!(
        roles(&green),
        [
            "user",
            "assistant",
            "toolResult",
            "assistant",
            "branchSummary",
            "user",
            "assistant",
            "toolResult",
            "assistant"
        ]
    );
    assert_eq!(green[4]["fromId"], "e3472b97");
    let out = run_ok(&example(), &["context", "green"]);
    assert!(out.starts_with("9 messages, ~"), "{out}");
    assert_eq!(sections(&out).len(), 9);
    assert_eq!(sections(&out)[8], ("assistant".into(), "d2e5793f".into()));
}

#[test]
fn compaction_starts_the_context_with_its_summary() {
    let m = messages(&example(), &["1817a11b"]);
    assert_eq!(m[0]["role"], "compactionSummary");
    assert_eq!(m[0]["tokensBefore"], 42000);
    assert!(m[0]["summary"].as_str().unwrap().starts_with("## Goal"));
    // Kept from firstKeptEntryId (the user message of step 4).
    assert_eq!(text_of(&m[1]), "Step 4: run the benchmarks and report.");
    assert_eq!(m.len(), 11);
    assert_eq!(text_of(&m[10]), "| step | gain |\n|---|---|\n| 0 | 0% |");
}

#[test]
fn compaction_fixture_applies_context_edits() {
    let file = fixture("compaction-context-edit.jsonl");
    let m = messages(&file, &[]);
    assert_eq!(
        roles(&m),
        [
            "compactionSummary",
            "user",
            "assistant",
            "custom",
            "user",
            "assistant",
            "assistant",
            "branchSummary",
            "custom",
            "user",
            "assistant"
        ]
    );
    assert_eq!(m[0]["tokensBefore"], 91344);
    // replacement: null drops the tool result ce00000d (the only toolResult after the cut).
    assert!(!roles(&m).contains(&"toolResult"));
    // A string replacement of an assistant message becomes a text block.
    assert_eq!(
        m[5]["content"],
        serde_json::json!([{"type":"text","text":"Switched tokens() to &str slices (edit applied)."}])
    );
    // The latest of two edits of one user message wins.
    assert_eq!(text_of(&m[9]), "Add a criterion benchmark.");
    assert_eq!(m[8]["content"], "Benchmarks live in benches/.");

    // Before the edits, the tool result is there and the assistant text is the original.
    let before = messages(&file, &["ce00000e"]);
    assert_eq!(
        roles(&before),
        [
            "compactionSummary",
            "user",
            "assistant",
            "custom",
            "user",
            "assistant",
            "toolResult",
            "assistant"
        ]
    );
    assert_eq!(before[6]["toolName"], "edit");
    assert_ne!(text_of(&before[5]), text_of(&m[5]));

    let out = run_ok(&file, &["context"]);
    let header = out.lines().next().unwrap();
    assert!(header.starts_with("11 messages, ~"), "{header}");
    assert!(
        header.ends_with(" tokens (characters/4) · model anthropic/claude-sonnet-4-5 · thinking high"),
        "{header}"
    );
    let s = sections(&out);
    assert_eq!(s.len(), 11);
    assert_eq!(s[0], ("compactionSummary".into(), "ce00000a".into()));
    assert_eq!(s[6], ("assistant".into(), "ce00000e".into()));
}

#[test]
fn at_an_abandoned_tip_the_branch_local_edit_applies() {
    let file = fixture("compaction-context-edit.jsonl");
    let m = messages(&file, &["ce000013"]);
    assert!(!roles(&m).contains(&"branchSummary"));
    assert!(
        !m.iter().any(|x| text_of(x) == "Now 1.1 s: 45 MB/s."),
        "the null edit on this branch removes ce00000e"
    );
    assert_eq!(text_of(m.last().unwrap()), "SIMD made it slower on short tokens.");
}

#[test]
fn max_chars_cuts_tool_results() {
    let full = run_ok(&example(), &["context", "green"]);
    assert!(!full.contains("more characters"));
    let out = run_ok(&example(), &["context", "--max-chars", "10", "green"]);
    assert!(
        out.contains("\n── toolResult  f49bcd6b\nline 0: fn\n… (8529 more characters)\n"),
        "{out}"
    );
    assert!(
        out.contains("\n── toolResult  f2707ba7\nwrote 18 b\n… (4 more characters)\n"),
        "{out}"
    );
    // Plain text is never cut.
    assert!(out.contains("\nRefactor it to use an iterator, and keep the final token.\n"));
}

#[test]
fn v2_hook_message_has_role_custom() {
    let m = messages(&fixture("v2.jsonl"), &[]);
    assert_eq!(roles(&m), ["user", "custom", "assistant", "toolResult", "assistant"]);
    assert_eq!(m[1]["customType"], "git-status");
    assert_eq!(
        m[1]["content"],
        "Working tree: 2 modified files (src/lib.rs, src/tokenizer.rs)."
    );
}

#[test]
fn v1_context_uses_the_migrated_compaction() {
    let file = fixture("v1.jsonl");
    let m = messages(&file, &[]);
    assert_eq!(m.len(), 7);
    assert_eq!(m[0]["role"], "compactionSummary");
    assert_eq!(text_of(&m[1]), "Make it keep punctuation as separate tokens.");
    let out = run_ok(&file, &["context"]);
    assert!(
        out.lines()
            .next()
            .unwrap()
            .ends_with("· model anthropic/claude-opus-4-5 · thinking medium"),
        "{out}"
    );
}

#[test]
fn unknown_revision_fails() {
    let out = cmd()
        .arg("-s")
        .arg(example())
        .args(["context", "nope"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(out.stdout.is_empty());
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error: unknown revision 'nope'"));
}

/// Doubles halfway between two shortest spellings print with the even digit, as
/// `JSON.stringify` prints them (issue 34).
#[test]
fn numbers_halfway_between_spellings_print_as_javascript_does() {
    let out = run_ok(&fixture("outside-2/number-tie-even.jsonl"), &["context", "--json"]);
    assert!(
        out.contains(r#""x":[1125899906842624.2,1473005467560142.2,0.1]"#),
        "{out}"
    );
}
