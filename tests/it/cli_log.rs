//! `pi-session log`: the branch of a revision newest first, or every entry with --all.

use crate::common;

use common::{cmd, entry_lines, example, fixture, ndjson, run_ok};
use std::path::Path;

/// The first column of each output line: the (short) entry id.
fn ids(out: &str) -> Vec<&str> {
    out.lines().map(|l| l.split_whitespace().next().unwrap_or("")).collect()
}

/// Runs `pi-session -s FILE ARGS…`, expecting failure; returns (code, stdout, stderr).
fn run_fail(file: &Path, args: &[&str]) -> (i32, String, String) {
    let out = cmd().arg("-s").arg(file).args(args).output().unwrap();
    assert!(!out.status.success(), "pi-session {args:?} unexpectedly succeeded");
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// The `id` of every entry line of a file, in file order.
fn file_ids(file: &Path) -> Vec<String> {
    entry_lines(file)
        .iter()
        .map(|(_, l)| {
            let v: serde_json::Value = serde_json::from_slice(l).unwrap();
            v["id"].as_str().unwrap().to_owned()
        })
        .collect()
}

/// The original bytes of the line of the entry with this id.
fn line_of(file: &Path, id: &str) -> Vec<u8> {
    let lines = entry_lines(file);
    let ids = file_ids(file);
    let i = ids
        .iter()
        .position(|x| x == id)
        .unwrap_or_else(|| panic!("no entry {id}"));
    lines[i].1.clone()
}

const AT_BRANCH: [&str; 5] = ["b8731d22", "6fe7bd1a", "80fbf1f2", "9e4e00c3", "cb75110e"];

const GREEN_BRANCH: [&str; 11] = [
    "d2e5793f", "f2707ba7", "d4664141", "d679de06", "b7b227e2", "30af4c7e", "f49bcd6b", "7affd800", "80fbf1f2",
    "9e4e00c3", "cb75110e",
];

#[test]
fn default_is_the_branch_of_at_newest_first() {
    let out = run_ok(&example(), &["log"]);
    assert_eq!(ids(&out), AT_BRANCH);
    let lines: Vec<&str> = out.lines().collect();
    // Only the @ entry is marked, and labels show on their target.
    assert!(lines[0].contains("(@)"), "{}", lines[0]);
    assert_eq!(out.matches("(@)").count(), 1);
    assert!(lines[2].contains("[start]"), "{}", lines[2]);
    assert!(lines[2].contains("Read src/parser.rs and explain the tokenizer."));
    assert!(
        lines[0].starts_with("b8731d22 2026-11-02 10:01:35 assistant"),
        "{}",
        lines[0]
    );
    assert!(
        lines[1].contains("label") && lines[1].contains("80fbf1f2 ← start"),
        "{}",
        lines[1]
    );
}

#[test]
fn explicit_at_is_the_default() {
    assert_eq!(run_ok(&example(), &["log", "@"]), run_ok(&example(), &["log"]));
}

#[test]
fn rev_argument_selects_another_branch() {
    let out = run_ok(&example(), &["log", "d2e5793f"]);
    assert_eq!(ids(&out), GREEN_BRANCH);
    assert!(!out.contains("(@)"), "@ is not on this branch");
    assert!(out.lines().next().unwrap().contains("[green]"));
    // Any revision form works: a label, a prefix, an ancestor.
    assert_eq!(run_ok(&example(), &["log", "green"]), out);
    assert_eq!(run_ok(&example(), &["log", "d2e5"]), out);
    assert_eq!(ids(&run_ok(&example(), &["log", "green~2"])), &GREEN_BRANCH[2..]);
}

#[test]
fn unknown_rev_fails() {
    let (code, stdout, stderr) = run_fail(&example(), &["log", "nosuchrev"]);
    assert_eq!(code, 1);
    assert_eq!(stdout, "");
    assert!(stderr.starts_with("error: unknown revision 'nosuchrev'"), "{stderr}");
}

#[test]
fn max_count_limits_the_newest() {
    assert_eq!(ids(&run_ok(&example(), &["log", "-n", "2"])), &AT_BRANCH[..2]);
    assert_eq!(
        ids(&run_ok(&example(), &["log", "--max-count", "3", "green"])),
        &GREEN_BRANCH[..3]
    );
    assert_eq!(run_ok(&example(), &["log", "-n", "0"]), "");
    assert_eq!(ids(&run_ok(&example(), &["log", "-n", "100"])), AT_BRANCH);
}

#[test]
fn reverse_is_oldest_first() {
    let mut expected = GREEN_BRANCH.to_vec();
    expected.reverse();
    assert_eq!(ids(&run_ok(&example(), &["log", "--reverse", "green"])), expected);
    // Like git: -n picks the newest N, --reverse then shows them oldest first.
    assert_eq!(
        ids(&run_ok(&example(), &["log", "--reverse", "-n", "2", "green"])),
        ["f2707ba7", "d2e5793f"]
    );
}

#[test]
fn type_filters_by_entry_type() {
    let out = run_ok(&example(), &["log", "--type", "label"]);
    assert_eq!(ids(&out), ["6fe7bd1a"]);
    let out = run_ok(&example(), &["log", "--type", "model_change,thinking_level_change"]);
    assert_eq!(ids(&out), ["9e4e00c3", "cb75110e"]);
    let out = run_ok(&example(), &["log", "--all", "--type", "label,custom"]);
    assert_eq!(ids(&out), ["305e383a", "a1f78308", "d426da40", "a0f6e3c1", "6fe7bd1a"]);
    let out = run_ok(
        &example(),
        &["log", "--all", "--type", "compaction,branch_summary,session_info"],
    );
    assert_eq!(ids(&out), ["b7b227e2", "df41f248", "5f7822f3"]);
    assert_eq!(run_ok(&example(), &["log", "--type", "usage"]), "");
}

#[test]
fn role_filters_messages_by_role() {
    let out = run_ok(&example(), &["log", "--role", "user", "green"]);
    assert_eq!(ids(&out), ["d679de06", "80fbf1f2"]);
    let out = run_ok(&example(), &["log", "--role", "user,assistant", "green"]);
    assert_eq!(
        ids(&out),
        ["d2e5793f", "d4664141", "d679de06", "30af4c7e", "7affd800", "80fbf1f2"]
    );
    let out = run_ok(&example(), &["log", "--all", "--role", "toolResult"]);
    assert_eq!(out.lines().count(), 10);
    assert!(out.lines().all(|l| l.contains(" toolResult ")), "{out}");
    // --role and --type combine; with -n and --reverse.
    let out = run_ok(
        &example(),
        &[
            "log",
            "--all",
            "--type",
            "message",
            "--role",
            "toolResult",
            "-n",
            "2",
            "--reverse",
        ],
    );
    assert_eq!(ids(&out), ["a3d28170", "f49bcd6b"]);
}

#[test]
fn long_shows_full_text_and_pretty_tool_calls() {
    let out = run_ok(&example(), &["log", "--long", "-n", "1", "42d8d20f"]);
    let expected = "\
42d8d20f 2026-11-02 10:00:17 assistant
    Editing.
    → edit (call_2)
      {
        \"path\": \"src/parser.rs\",
        \"oldText\": \"loop {\",
        \"newText\": \"for tok in iter {\"
      }
    → bash (call_3)
      {
        \"command\": \"cargo test\"
      }
";
    assert_eq!(out, expected);
}

#[test]
fn long_separates_entries_with_blank_lines() {
    let out = run_ok(&example(), &["log", "--long", "-n", "3", "green"]);
    let headers: Vec<&str> = out.lines().filter(|l| !l.is_empty() && !l.starts_with(' ')).collect();
    assert_eq!(ids(&headers.join("\n")), &GREEN_BRANCH[..3]);
    assert_eq!(out.lines().filter(|l| l.is_empty()).count(), 2);
    assert!(out.contains("\n    Done; all tests pass.\n"), "{out}");
    assert!(out.contains("    ← write (call_4)\n    wrote 18 bytes\n"), "{out}");
}

#[test]
fn long_cuts_tool_results_at_max_chars() {
    let v: serde_json::Value = serde_json::from_slice(&line_of(&example(), "f49bcd6b")).unwrap();
    let text = v["message"]["content"][0]["text"].as_str().unwrap();
    let total = text.chars().count();
    assert!(total > 20);

    let out = run_ok(
        &example(),
        &["log", "--long", "--max-chars", "20", "-n", "1", "f49bcd6b"],
    );
    let kept: String = text.chars().take(20).collect();
    assert!(out.contains(&format!("\n    {kept}\n")), "{out}");
    assert!(
        out.contains(&format!("    … ({} more characters)\n", total - 20)),
        "{out}"
    );
    assert!(!out.contains("line 1:"), "{out}");

    // The default limit is 2000 characters.
    assert!(total > 2000);
    let out = run_ok(&example(), &["log", "--long", "-n", "1", "f49bcd6b"]);
    assert!(
        out.contains(&format!("    … ({} more characters)\n", total - 2000)),
        "{out}"
    );
    let last = text.lines().last().unwrap();
    assert!(!out.contains(last), "{out}");
    // A short result is shown whole.
    let out = run_ok(
        &example(),
        &["log", "--long", "--max-chars", "2", "-n", "1", "a3d28170"],
    );
    assert!(out.ends_with("\n    ok\n"), "{out}");
    assert!(!out.contains("more characters"), "{out}");
}

#[test]
fn long_does_not_cut_user_text() {
    let out = run_ok(
        &example(),
        &["log", "--long", "--max-chars", "5", "-n", "1", "80fbf1f2"],
    );
    assert!(
        out.contains("\n    Read src/parser.rs and explain the tokenizer.\n"),
        "{out}"
    );
    assert!(!out.contains("more characters"), "{out}");
}

#[test]
fn json_prints_original_lines_byte_for_byte() {
    let file = example();
    let out = cmd().arg("-s").arg(&file).args(["log", "--json"]).output().unwrap();
    assert!(out.status.success());
    let mut expected = Vec::new();
    for id in AT_BRANCH {
        expected.extend_from_slice(&line_of(&file, id));
        expected.push(b'\n');
    }
    assert_eq!(String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&expected));
    assert_eq!(out.stdout, expected);
    // Each line parses, and the ids follow the branch.
    let values = ndjson(&String::from_utf8(out.stdout).unwrap());
    let got: Vec<&str> = values.iter().map(|v| v["id"].as_str().unwrap()).collect();
    assert_eq!(got, AT_BRANCH);
}

#[test]
fn json_all_reproduces_every_entry_line() {
    let file = example();
    let out = cmd()
        .arg("-s")
        .arg(&file)
        .args(["log", "--all", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let mut expected = Vec::new();
    for (_, l) in entry_lines(&file) {
        expected.extend_from_slice(&l);
        expected.push(b'\n');
    }
    assert_eq!(out.stdout, expected);
    // The file is the header line followed by exactly these bytes.
    let data = std::fs::read(&file).unwrap();
    let header_end = data.iter().position(|&b| b == b'\n').unwrap() + 1;
    assert_eq!(&data[header_end..], &expected[..]);
}

#[test]
fn json_on_crlf_file_strips_the_carriage_return() {
    let file = fixture("crlf.jsonl");
    let out = cmd()
        .arg("-s")
        .arg(&file)
        .args(["log", "--all", "--json"])
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(!out.stdout.contains(&b'\r'));
    let data = std::fs::read(&file).unwrap();
    let mut expected = Vec::new();
    for line in data.split(|&b| b == b'\n').skip(1).filter(|l| !l.is_empty()) {
        assert!(line.ends_with(b"\r"));
        expected.extend_from_slice(&line[..line.len() - 1]);
        expected.push(b'\n');
    }
    assert_eq!(out.stdout, expected);
    assert_eq!(expected.iter().filter(|&&b| b == b'\n').count(), 5);
}

#[test]
fn json_respects_filters() {
    let file = example();
    let out = run_ok(&file, &["log", "--json", "--role", "user", "-n", "1", "green"]);
    let mut expected = line_of(&file, "d679de06");
    expected.push(b'\n');
    assert_eq!(out.as_bytes(), &expected[..]);
}

#[test]
fn all_lists_every_entry_in_append_order() {
    let file = example();
    let out = run_ok(&file, &["log", "--all"]);
    let expected = file_ids(&file);
    assert_eq!(expected.len(), 53);
    assert_eq!(ids(&out), expected);
    // Entries of other branches are included; @ is marked once.
    assert!(out.contains("\ne3472b97 "));
    assert!(out.contains("\n1817a11b "));
    assert_eq!(out.matches("(@)").count(), 1);
    assert!(out.lines().last().unwrap().contains("(@)"));
    let reversed = run_ok(&file, &["log", "--all", "--reverse"]);
    let mut rev = expected.clone();
    rev.reverse();
    assert_eq!(ids(&reversed), rev);
}

#[test]
fn all_since_lists_entries_after_the_cursor() {
    let file = example();
    let out = run_ok(&file, &["log", "--all", "--since", "1817a11b"]);
    assert_eq!(ids(&out), ["87e5e905", "a0f6e3c1", "6fe7bd1a", "b8731d22"]);
    // The last entry as cursor: nothing new.
    assert_eq!(run_ok(&file, &["log", "--all", "--since", "b8731d22"]), "");
    // The first entry: all but it.
    assert_eq!(ids(&run_ok(&file, &["log", "--all", "--since", "cb75110e"])).len(), 52);
    let out = run_ok(&file, &["log", "--all", "--since", "1817a11b", "--json"]);
    assert_eq!(ndjson(&out).len(), 4);
}

#[test]
fn all_since_unknown_id_fails() {
    let (code, stdout, stderr) = run_fail(&example(), &["log", "--all", "--since", "zzzzzzzz"]);
    assert_eq!(code, 1);
    assert_eq!(stdout, "");
    assert!(stderr.starts_with("error: "), "{stderr}");
    assert!(stderr.contains("zzzzzzzz"), "{stderr}");
}

#[test]
fn since_without_all_is_a_usage_error() {
    let (code, stdout, stderr) = run_fail(&example(), &["log", "--since", "1817a11b"]);
    assert_eq!(code, 2);
    assert_eq!(stdout, "");
    assert!(stderr.contains("--all"), "{stderr}");
}

#[test]
fn all_with_rev_is_a_usage_error() {
    let (code, stdout, stderr) = run_fail(&example(), &["log", "--all", "@"]);
    assert_eq!(code, 2);
    assert_eq!(stdout, "");
    assert!(stderr.contains("cannot be used with"), "{stderr}");
}

#[test]
fn bad_max_count_is_a_usage_error() {
    let (code, _, stderr) = run_fail(&example(), &["log", "-n", "many"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("many"), "{stderr}");
}

#[test]
fn labels_fixture_branch_runs_through_label_entries() {
    let out = run_ok(&fixture("labels.jsonl"), &["log"]);
    assert_eq!(
        ids(&out),
        [
            "1a2b3c06", "1a2b3c05", "1abe1002", "1a2b3c04", "1a2b3c03", "1abe1001", "1a2b3c02", "1a2b3c01"
        ]
    );
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].contains("(@) [done]"), "{}", lines[0]);
    assert!(lines[3].contains("[root-cause]"), "{}", lines[3]);
    // Cleared labels are not shown.
    assert!(!out.contains("[question]") && !out.contains("[fix-request]"), "{out}");
}

#[test]
fn unknown_roles_and_types_are_usage_errors_with_a_suggestion() {
    for (args, bad, tip) in [
        (&["log", "--role", "usr"][..], "'usr' for '--role <ROLE>'", "'user'"),
        (
            &["log", "--all", "--role", "user,asistant"],
            "'asistant'",
            "'assistant'",
        ),
        (
            &["log", "--type", "compactoin"],
            "'compactoin' for '--type <TYPE>'",
            "'compaction'",
        ),
        (&["log", "--type", "message,lable"], "'lable'", "'label'"),
    ] {
        let out = common::cmd().arg("-s").arg(example()).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert!(stderr.starts_with("error: invalid value "), "{stderr}");
        assert!(stderr.contains(bad), "{stderr}");
        assert!(stderr.contains(&format!("a similar value exists: {tip}")), "{stderr}");
    }
    // Every role and type a session holds is accepted.
    for role in [
        "user",
        "assistant",
        "toolResult",
        "bashExecution",
        "custom",
        "system",
        "branchSummary",
        "compactionSummary",
    ] {
        run_ok(&example(), &["log", "--all", "--role", role]);
    }
    for t in [
        "message",
        "model_change",
        "thinking_level_change",
        "compaction",
        "branch_summary",
        "custom",
        "custom_message",
        "label",
        "session_info",
        "context_edit",
        "usage",
    ] {
        run_ok(&example(), &["log", "--all", "--type", t]);
    }
}

#[test]
fn json_of_lines_with_invalid_utf8_is_json_as_pi_reads_them() {
    let file = fixture("outside/invalid-utf8-json-output.jsonl");
    for args in [&["log", "--all", "--json"][..], &["log", "--json"]] {
        let out = cmd().arg("-s").arg(&file).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(0));
        let stdout = String::from_utf8(out.stdout).expect("valid UTF-8");
        let rows = ndjson(&stdout);
        assert_eq!(rows.len(), 1, "{args:?}");
        assert_eq!(rows[0]["message"]["content"], "caf\u{fffd} \u{fffd}");
        let stderr = String::from_utf8(out.stderr).unwrap();
        assert_eq!(stderr.lines().count(), 1, "said once: {stderr}");
        assert!(stderr.starts_with("warning: "), "{stderr}");
        assert!(
            stderr.contains("not valid UTF-8 (line 2)") && stderr.contains("U+FFFD"),
            "{stderr}"
        );
    }
}

/// Runs `pi-session -s FILE ARGS…` with more environment: (code, stdout, stderr).
fn run_env(file: &Path, args: &[&str], env: &[(&str, &str)]) -> (i32, String, String) {
    let mut c = cmd();
    c.arg("-s").arg(file).args(args);
    for (k, v) in env {
        c.env(k, v);
    }
    let out = c.output().unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

/// The entries of examples/session.jsonl from 10:01:20 to 10:01:30 (UTC), in append order.
const TEN_OH_ONE: [&str; 6] = ["1ff0ab1e", "60f7bb55", "e0a8c95d", "5f7822f3", "b40ffcae", "1817a11b"];

#[test]
fn since_and_until_take_dates_and_times() {
    let file = example();
    let window = |since: &str, until: &str, tz: &str| {
        let (code, out, err) = run_env(
            &file,
            &["log", "--all", "--since", since, "--until", until],
            &[("TZ", tz)],
        );
        assert_eq!((code, err.as_str()), (0, ""), "{since} {until} {tz}");
        ids(&out).into_iter().map(str::to_owned).collect::<Vec<_>>()
    };
    // Bounds are inclusive, in the local zone without a zone of their own.
    assert_eq!(window("2026-11-02T10:01:20", "2026-11-02 10:01:30", "UTC"), TEN_OH_ONE);
    assert_eq!(
        window("2026-11-02T19:01:20", "2026-11-02T19:01:30.000", "Asia/Tokyo"),
        TEN_OH_ONE
    );
    assert_eq!(
        window("2026-11-02T11:01:20+01:00", "2026-11-02T10:01:30Z", "Asia/Tokyo"),
        TEN_OH_ONE
    );
    assert_eq!(
        window("2026-11-02 05:01:20-0500", "2026-11-02T10:01:30.000Z", "UTC"),
        TEN_OH_ONE
    );
    // A day is whole: from its first instant through its last, in the local zone.
    assert_eq!(window("2026-11-02", "2026-11-02", "UTC").len(), 53);
    assert_eq!(window("20261102", "20261102", "Asia/Tokyo").len(), 53);
    // 10:00 UTC is the next day's first hour at UTC+14.
    assert_eq!(window("2026-11-02", "2026-11-02", "Pacific/Kiritimati").len(), 0);
    assert_eq!(window("2026-11-03", "2026-11-03", "Pacific/Kiritimati").len(), 53);
    assert_eq!(window("2026-11-03", "2026-12-01", "UTC").len(), 0);
    // On a branch, newest first, and with -n (read from the end of the file).
    let out = run_ok(&file, &["log", "--since", "2026-11-02T10:00:05", "-n", "5"]);
    assert_eq!(ids(&out), ["b8731d22", "6fe7bd1a", "80fbf1f2"]);
    let out = run_ok(&file, &["log", "--until", "2026-11-02T10:00:05"]);
    assert_eq!(ids(&out), ["9e4e00c3", "cb75110e"]);
    // The other listings take them too.
    let out = run_ok(
        &file,
        &["log", "--all", "--since", "2026-11-02T10:01:20", "--json", "-n", "2"],
    );
    assert_eq!(ndjson(&out).len(), 2);
}

#[test]
fn since_and_until_take_times_ago() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("recent.jsonl");
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs() as i64;
    let iso = |secs_ago: i64| {
        let t = jiff::Timestamp::from_second(now - secs_ago).unwrap();
        t.strftime("%Y-%m-%dT%H:%M:%S.000Z").to_string()
    };
    const DAY: i64 = 86_400;
    let mut text = format!(
        "{{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"{}\",\"cwd\":\"/\"}}\n",
        iso(20 * DAY)
    );
    let mut parent = "null".to_owned();
    for (id, ago) in [("old", 10 * DAY), ("days", 2 * DAY), ("hour", 3600), ("min", 60)] {
        text.push_str(&format!(
            "{{\"type\":\"message\",\"id\":\"{id}\",\"parentId\":{parent},\"timestamp\":\"{}\",\"message\":{{\"role\":\"user\",\"content\":\"{id}\"}}}}\n",
            iso(ago)
        ));
        parent = format!("\"{id}\"");
    }
    std::fs::write(&file, text).unwrap();
    let shown = |args: &[&str]| {
        let mut a = vec!["log", "--all", "--format", "%H"];
        a.extend_from_slice(args);
        run_ok(&file, &a)
    };
    assert_eq!(shown(&["--since", "3 days ago"]), "days\nhour\nmin\n");
    assert_eq!(shown(&["--since", "3.days.ago"]), "days\nhour\nmin\n");
    assert_eq!(shown(&["--since", "2.weeks.ago"]), "old\ndays\nhour\nmin\n");
    assert_eq!(shown(&["--since", "1 week"]), "days\nhour\nmin\n");
    assert_eq!(shown(&["--since", "90min"]), "hour\nmin\n");
    assert_eq!(shown(&["--since", "90 minutes ago"]), "hour\nmin\n");
    assert_eq!(shown(&["--since", "30 minutes ago"]), "min\n");
    assert_eq!(shown(&["--since", "2h", "--until", "30 minutes ago"]), "hour\n");
    assert_eq!(shown(&["--since", "1 month ago", "--until", "1 week ago"]), "old\n");
    assert_eq!(shown(&["--since", "yesterday"]), "hour\nmin\n");
    // (An hour ago may still be yesterday, just after midnight.)
    let until_yesterday = shown(&["--until", "yesterday"]);
    assert!(until_yesterday.starts_with("old\ndays\n") && !until_yesterday.contains("min"));
    assert_eq!(shown(&["--since", "5d"]), "days\nhour\nmin\n");
    assert_eq!(shown(&["--since", "2w", "--until", "now"]), "old\ndays\nhour\nmin\n");
    assert_eq!(shown(&["--since", "now"]), "");
}

#[test]
fn bad_dates_are_usage_errors_naming_the_forms() {
    let file = example();
    for args in [
        &["log", "--since", "last tuesday"][..],
        &["log", "--until", "2026-13-01"],
        &["log", "--all", "--until", "3 fortnights ago"],
    ] {
        let (code, stdout, stderr) = run_fail(&file, args);
        assert_eq!(code, 2, "{args:?}");
        assert_eq!(stdout, "");
        assert!(
            stderr.contains("2.weeks.ago") && stderr.contains("2026-11-30T14:00"),
            "{stderr}"
        );
    }
    // With --all, a word that is neither a date nor an entry: as the id cursor's error was.
    let (code, _, stderr) = run_fail(&file, &["log", "--all", "--since", "last tuesday"]);
    assert_eq!(code, 1);
    assert!(
        stderr.contains("neither a date nor an entry") && stderr.contains("--after"),
        "{stderr}"
    );
}

#[test]
fn after_is_the_entry_cursor_and_since_an_id_is_deprecated() {
    let file = example();
    let (code, after, stderr) = run_env(&file, &["log", "--all", "--after", "1817a11b"], &[]);
    assert_eq!((code, stderr.as_str()), (0, ""));
    assert_eq!(ids(&after), ["87e5e905", "a0f6e3c1", "6fe7bd1a", "b8731d22"]);
    // The old spelling: the same entries, and a note on stderr.
    let (code, since, stderr) = run_env(&file, &["log", "--all", "--since", "1817a11b"], &[]);
    assert_eq!(code, 0);
    assert_eq!(since, after);
    assert_eq!(stderr, "note: --since with an entry id is deprecated; use --after ID\n");
    // Any revision naming an entry, as before.
    let (_, by_label, stderr) = run_env(&file, &["log", "--all", "--since", "green"], &[]);
    assert_eq!(by_label, run_ok(&file, &["log", "--all", "--after", "green"]));
    assert!(stderr.contains("deprecated"), "{stderr}");
    // --after needs --all, and does not go with --since.
    let (code, _, stderr) = run_fail(&file, &["log", "--after", "1817a11b"]);
    assert_eq!(code, 2);
    assert!(stderr.contains("--all"), "{stderr}");
    let (code, _, _) = run_fail(&file, &["log", "--all", "--after", "1817a11b", "--since", "today"]);
    assert_eq!(code, 2);
}

#[test]
fn oneline_is_id_kind_marks_and_first_line() {
    let file = example();
    assert_eq!(
        run_ok(&file, &["log", "--oneline"]),
        "b8731d22 assistant (@) (alternative answer on a side branch)\n\
         6fe7bd1a label 80fbf1f2 ← start\n\
         80fbf1f2 user [start] Read src/parser.rs and explain the tokenizer.\n\
         9e4e00c3 thinking_level_change thinking medium\n\
         cb75110e model_change anthropic/claude-sonnet-4-5\n"
    );
    // The first line of a text of several lines.
    let out = run_ok(&file, &["log", "--oneline", "--all", "--type", "branch_summary"]);
    assert_eq!(out, "b7b227e2 branch_summary from e3472b97: ## Goal\n");
    // With the other options of log.
    let out = run_ok(
        &file,
        &["log", "--oneline", "--all", "--reverse", "-n", "2", "--role", "user"],
    );
    assert_eq!(ids(&out), ["1ecdd056", "80fbf1f2"]);
    for conflict in [&["--json"][..], &["--long"], &["--format", "%h"]] {
        let mut args = vec!["log", "--oneline"];
        args.extend_from_slice(conflict);
        assert_eq!(run_fail(&file, &args).0, 2, "{conflict:?}");
    }
}

#[test]
fn format_placeholders() {
    let file = example();
    let out = run_ok(
        &file,
        &[
            "log",
            "-n",
            "3",
            "--format",
            "%h|%H|%P|%t|%T|%y|%r|%K|%m|%l|%k|%s|%%|%n-",
        ],
    );
    assert_eq!(
        out,
        "b8731d22|b8731d22|6fe7bd1a|2026-11-02 10:01:35|2026-11-02T10:01:35.000Z|message|assistant|assistant|claude-sonnet-4-5||1280|(alternative answer on a side branch)|%|\n-\n\
         6fe7bd1a|6fe7bd1a|80fbf1f2|2026-11-02 10:01:33|2026-11-02T10:01:33.000Z|label||label||||80fbf1f2 ← start|%|\n-\n\
         80fbf1f2|80fbf1f2|9e4e00c3|2026-11-02 10:00:06|2026-11-02T10:00:06.000Z|message|user|user||start||Read src/parser.rs and explain the tokenizer.|%|\n-\n"
    );
    // A model change names its model; text without placeholders is repeated.
    assert_eq!(
        run_ok(&file, &["log", "--format", "%m", "cb75110e"]),
        "claude-sonnet-4-5\n"
    );
    assert_eq!(run_ok(&file, &["log", "--format", "x", "-n", "2"]), "x\nx\n");
    // --all, --after and the dates apply as to every listing.
    let out = run_ok(&file, &["log", "--all", "--after", "1817a11b", "--format", "%h %K"]);
    assert_eq!(
        out,
        "87e5e905 context_edit\na0f6e3c1 label\n6fe7bd1a label\nb8731d22 assistant\n"
    );
    for bad in ["%q", "50%", "%", "%{id}"] {
        let (code, stdout, stderr) = run_fail(&file, &["log", "--format", bad]);
        assert_eq!(code, 2, "{bad}");
        assert_eq!(stdout, "");
        assert!(stderr.contains("%H id"), "{stderr}");
    }
    assert_eq!(run_fail(&file, &["log", "--format", "%h", "--json"]).0, 2);
}

#[test]
fn oneline_and_format_never_pass_control_characters() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("controls.jsonl");
    std::fs::write(
        &file,
        "{\"type\":\"session\",\"version\":3,\"id\":\"s\",\"timestamp\":\"2026-11-02T10:00:00.000Z\",\"cwd\":\"/\"}\n\
         {\"type\":\"message\",\"id\":\"a\\u001b]0;x\",\"parentId\":null,\"timestamp\":\"2026-11-02T10:00:01.000Z\",\"message\":{\"role\":\"user\\u0007\",\"content\":\"\\u001b[31mred\\r\\nsecond\"}}\n\
         {\"type\":\"label\",\"id\":\"l\",\"parentId\":\"a\\u001b]0;x\",\"timestamp\":\"2026-11-02T10:00:02.000Z\",\"targetId\":\"a\\u001b]0;x\",\"label\":\"\\u009b31m\"}\n",
    )
    .unwrap();
    for args in [
        &["log", "--all", "--oneline"][..],
        &["log", "--all", "--format", "%H %h %P %y %r %K %l %s %T"],
    ] {
        let out = run_ok(&file, args);
        assert!(!out.chars().any(|c| c.is_control() && c != '\n'), "{args:?}: {out:?}");
        assert!(out.contains("\\e[31mred"), "{out}");
    }
}
