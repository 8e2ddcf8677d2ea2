//! `pi-session export`: a branch as Markdown or as one self-contained, safe HTML file.

use crate::common;

use common::{cmd, run_ok};
use serde_json::{Value, json};
use std::fs;
use std::path::{Path, PathBuf};

/// u1 → a1 (tool call) → t1 (tool result) → a2 → u2 (@), and a side branch u1 → x1.
fn session(dir: &Path) -> PathBuf {
    let ts = |s: u32| format!("2026-01-01T00:00:{s:02}.000Z");
    let lines: Vec<Value> = vec![
        json!({"type": "session", "version": 3, "id": "sess-1", "timestamp": ts(0), "cwd": "/home/u/proj"}),
        json!({"type": "message", "id": "u1", "parentId": null, "timestamp": ts(1),
               "message": {"role": "user", "content": [{"type": "text",
                   "text": "Please check <script>alert(1)</script> & \"quotes\" 'here'\u{1b}[31m\u{7}"}]}}),
        json!({"type": "message", "id": "a1", "parentId": "u1", "timestamp": ts(2),
               "message": {"role": "assistant", "provider": "anthropic", "model": "claude", "stopReason": "toolUse",
                           "content": [{"type": "thinking", "thinking": "Let me look."},
                                       {"type": "text", "text": "Reading the file."},
                                       {"type": "toolCall", "id": "call_1", "name": "read",
                                        "arguments": {"path": "<img src=x onerror=alert(2)>.rs"}}]}}),
        json!({"type": "message", "id": "t1", "parentId": "a1", "timestamp": ts(3),
               "message": {"role": "toolResult", "toolCallId": "call_1", "toolName": "read", "isError": false,
                           "content": [{"type": "text", "text": "fn main() {}\n```\nbackticks inside\r\n</pre></details>"}]}}),
        json!({"type": "message", "id": "a2", "parentId": "t1", "timestamp": ts(4),
               "message": {"role": "assistant", "provider": "anthropic", "model": "claude", "stopReason": "stop",
                           "content": [{"type": "text", "text": "It is **fine**."}]}}),
        json!({"type": "message", "id": "x1", "parentId": "u1", "timestamp": ts(5),
               "message": {"role": "assistant", "provider": "anthropic", "model": "claude", "stopReason": "stop",
                           "content": [{"type": "text", "text": "A side branch answer."}]}}),
        json!({"type": "message", "id": "u2", "parentId": "a2", "timestamp": ts(6),
               "message": {"role": "user", "content": "Thanks!"}}),
    ];
    let path = dir.join("s.jsonl");
    fs::write(&path, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    path
}

#[test]
fn markdown_transcript_of_the_branch() {
    let tmp = tempfile::tempdir().unwrap();
    let file = session(tmp.path());
    let md = run_ok(&file, &["export", "--format", "md"]);
    assert_eq!(md, run_ok(&file, &["export"]), "md is the default");
    assert!(md.starts_with("# Please check <script>alert(1)</script>"), "{md}");
    assert!(md.contains("- Session: `sess-1`"));
    assert!(md.contains("## User"));
    assert!(md.contains("## Assistant"));
    assert!(md.contains("Reading the file."));
    assert!(md.contains("> Let me look."), "thinking as a quote");
    // A read shows its path, and its result under it, fenced in the file's language with
    // more backticks than it contains; CRLF becomes LF.
    assert!(
        md.contains("**→ read** `<img src=x onerror=alert(2)>.rs`\n\n**← output**\n\n"),
        "{md}"
    );
    assert!(
        md.contains("````rust\nfn main() {}\n```\nbackticks inside\n</pre></details>\n````"),
        "{md}"
    );
    assert!(!md.contains("**← `read`**"), "the result is not repeated on its own");
    assert!(md.contains("It is **fine**."));
    assert!(md.contains("Thanks!"));
    assert!(!md.contains("side branch"), "only the branch of @");
    // Order follows the branch.
    let pos = |s: &str| md.find(s).unwrap_or_else(|| panic!("{s}"));
    assert!(pos("Reading the file.") < pos("fn main()") && pos("fn main()") < pos("It is **fine**."));
    // Control characters never reach the output raw.
    assert!(!md.contains('\u{1b}') && !md.contains('\u{7}') && !md.contains('\r'));
    assert!(md.contains("'here'\\e[31m\\x07"));

    // Another branch by REV.
    let side = run_ok(&file, &["export", "x1"]);
    assert!(side.contains("A side branch answer.") && !side.contains("Thanks!"));
}

#[test]
fn html_is_one_safe_self_contained_file() {
    let tmp = tempfile::tempdir().unwrap();
    let file = session(tmp.path());
    let dest = tmp.path().join("out.html");
    let out = cmd()
        .arg("-s")
        .arg(&file)
        .args(["export", "--format", "html", "-o"])
        .arg(&dest)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(out.stdout.is_empty());
    let html = fs::read_to_string(&dest).unwrap();
    // Nothing else was written beside it (no leftover temp file).
    let names: Vec<_> = fs::read_dir(tmp.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 2, "{names:?}");

    assert!(html.starts_with("<!DOCTYPE html>"));
    assert!(html.trim_end().ends_with("</html>"));
    assert!(html.contains("<style>"));
    let lower = html.to_lowercase();
    for bad in ["<script", "<link", "src=\"http", "url(", "@import", "<img"] {
        assert!(!lower.contains(bad), "found {bad}");
    }
    assert!(
        html.contains("Please check &lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;quotes&quot; &#39;here&#39;")
    );
    assert!(html.contains("&lt;img src=x onerror=alert(2)&gt;.rs"));
    assert!(html.contains("&lt;/pre&gt;&lt;/details&gt;"));
    // No raw control characters: only newlines (and tabs) below 0x20.
    assert!(
        html.chars().all(|c| c == '\n' || c == '\t' || !c.is_control()),
        "raw control character in the HTML"
    );
    assert!(html.contains("\\e[31m\\x07"));
    // A tool call shows what it did, its result under it (not an entry of its own); thinking
    // folds.
    let call = html
        .find("<div class=\"tool\" id=\"call-call_1\"><div class=\"tool-head\"><span class=\"tool-name\">read</span> &lt;img src=x onerror=alert(2)&gt;.rs</div>")
        .expect("the read call");
    let result = html.find("backticks inside").expect("its result");
    assert!(call < result && result < html.find("It is <strong>fine</strong>.").expect("the next message"));
    assert!(!html.contains("id=\"e-t1\""), "no article for the result");
    assert!(html.contains("<details class=\"thinking\"><summary>Thinking · 1 line</summary>"));
    assert_eq!(html.matches("<details").count(), html.matches("</details>").count());
    assert!(!html.contains("side branch"));
}

#[test]
fn output_file_is_never_replaced_and_format_follows_its_extension() {
    let tmp = tempfile::tempdir().unwrap();
    let file = session(tmp.path());
    let dest = tmp.path().join("t.htm");
    let run = || {
        cmd()
            .arg("-s")
            .arg(&file)
            .arg("export")
            .arg("-o")
            .arg(&dest)
            .output()
            .unwrap()
    };
    assert!(run().status.success());
    let first = fs::read_to_string(&dest).unwrap();
    assert!(first.starts_with("<!DOCTYPE html>"), "html from the .htm extension");

    fs::write(&dest, "keep me").unwrap();
    let out = run();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("error:"));
    assert_eq!(fs::read_to_string(&dest).unwrap(), "keep me");

    let md = tmp.path().join("t.txt");
    let out = cmd()
        .arg("-s")
        .arg(&file)
        .args(["export", "-o"])
        .arg(&md)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(fs::read_to_string(&md).unwrap().starts_with("# "));
}

fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

#[test]
fn an_existing_output_is_named_and_force_replaces_it() {
    let tmp = tempfile::tempdir().unwrap();
    let file = session(tmp.path());
    let dest = tmp.path().join("x.html");
    fs::write(&dest, "keep me").unwrap();
    let export = |extra: &[&str]| {
        cmd()
            .arg("-s")
            .arg(&file)
            .args(["export", "-o"])
            .arg(&dest)
            .args(extra)
            .output()
            .unwrap()
    };
    let out = export(&[]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        stderr,
        format!(
            "error: {} already exists\nhint: add --force to replace it, or choose another path\n",
            dest.display()
        )
    );
    assert_eq!(fs::read_to_string(&dest).unwrap(), "keep me");
    let before = listing(tmp.path());
    for flag in ["--force", "-f"] {
        let out = export(&[flag]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert!(out.stdout.is_empty());
        assert!(fs::read_to_string(&dest).unwrap().starts_with("<!DOCTYPE html>"));
        assert_eq!(listing(tmp.path()), before, "no temporary file left");
    }
}

#[test]
fn output_dash_is_stdout() {
    let tmp = tempfile::tempdir().unwrap();
    let file = session(tmp.path());
    let before = listing(tmp.path());
    let export = |args: &[&str]| {
        let out = cmd()
            .current_dir(tmp.path())
            .arg("-s")
            .arg(&file)
            .arg("export")
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    let md = export(&[]);
    assert!(md.starts_with("# "), "{md}");
    assert_eq!(export(&["-o", "-"]), md);
    assert_eq!(export(&["--output", "-"]), md);
    assert_eq!(export(&["-o", "-", "--force"]), md);
    let html = export(&["-o", "-", "--format", "html"]);
    assert!(html.starts_with("<!DOCTYPE html>"), "{html}");
    assert_eq!(listing(tmp.path()), before, "no file named -");
}

#[test]
fn corpus_session_exports() {
    let file = common::corpus_dir().join("pi-built.v3.jsonl");
    let md = run_ok(&file, &["export", "d2e5793f"]);
    assert!(md.starts_with("# Tokenizer refactor\n"));
    assert!(md.contains("## Branch summary"));
    let html = run_ok(&file, &["export", "--format", "html", "d2e5793f"]);
    assert!(html.contains("<title>Tokenizer refactor</title>"));
    assert!(html.contains("Summary of the branch left behind"));
    let v1 = common::corpus_dir().join("real-large.v1.jsonl");
    let html = run_ok(&v1, &["export", "--format", "html"]);
    assert!(html.chars().all(|c| c == '\n' || c == '\t' || !c.is_control()));
    assert!(!html.to_lowercase().contains("<script"));
}

#[test]
fn content_blocks_of_every_shape() {
    let tmp = tempfile::tempdir().unwrap();
    let ts = "2026-01-01T00:00:01.000Z";
    let lines = [
        json!({"type": "session", "version": 3, "id": "s-shapes", "timestamp": ts, "cwd": "/p"}),
        json!({"type": "message", "id": "u1", "parentId": null, "timestamp": ts,
               "message": {"role": "user", "content": [
                   {"type": "text", "text": "\u{feff} \n"},
                   {"type": "text", "text": 42},
                   "a bare string",
                   {"type": "audio", "data": "x"},
                   {"type": "image", "mimeType": "image/svg+xml", "data": "PHN2Zz4="},
                   {"type": "text", "text": "Real text"}]}}),
        json!({"type": "message", "id": "a1", "parentId": "u1", "timestamp": ts,
               "message": {"role": "assistant", "stopReason": "stop", "content": [
                   {"type": "thinking", "thinking": 7},
                   {"type": "toolCall", "name": "ls"}]}}),
    ];
    let file = tmp.path().join("s.jsonl");
    fs::write(&file, lines.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    let md = run_ok(&file, &["export"]);
    // Blank and non-string text is left out; the title comes from the first real text.
    assert!(md.starts_with("# Real text\n"), "{md}");
    let body = &md[md.find("## User").unwrap()..];
    let user = &body[..body.find("---").unwrap()];
    assert!(
        user.ends_with("_[untyped block]_\n\n_[audio block]_\n\n_[image image/svg+xml]_\n\nReal text\n\n"),
        "{user:?}"
    );
    assert!(body.contains("**→ ls**\n\n```json\nnull\n```"), "{body}");
    let html = run_ok(&file, &["export", "--format", "html"]);
    // Only plain raster images are inlined.
    assert!(html.contains("<p class=\"note\">[image image/svg+xml]</p>"), "{html}");
    assert!(!html.contains("data:image/svg"));
}

/// A branch of several megabytes is rendered in several pieces on worker threads: every
/// section comes out once, in branch order, and stdout and `-o` get the same bytes.
#[test]
fn a_long_branch_exports_whole_and_in_order() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("long.jsonl");
    let mut data =
        String::from(r#"{"type":"session","version":3,"id":"long","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#);
    data.push('\n');
    let n = 3000;
    let filler = "lorem \"ipsum\" <dolor> & sit ämet 日本語\n".repeat(50);
    for k in 0..n {
        let parent = if k == 0 {
            Value::Null
        } else {
            json!(format!("e{}", k - 1))
        };
        let role = if k % 2 == 0 { "user" } else { "assistant" };
        let line = json!({"type": "message", "id": format!("e{k}"), "parentId": parent,
                          "timestamp": "2026-01-01T00:00:01.000Z",
                          "message": {"role": role, "content": [{"type": "text", "text": format!("entry {k}\n{filler}")}]}});
        data.push_str(&format!("{line}\n"));
    }
    assert!(data.len() > 5 << 20, "spans several pieces");
    fs::write(&file, &data).unwrap();
    for format in ["md", "html"] {
        let stdout = run_ok(&file, &["export", "--format", format]);
        let dest = tmp.path().join(format!("out.{format}"));
        run_ok(&file, &["export", "-o", dest.to_str().unwrap()]);
        assert_eq!(fs::read_to_string(&dest).unwrap(), stdout, "{format}");
        let mut at = 0;
        for k in 0..n {
            let needle = format!("entry {k}\n");
            let found = stdout[at..]
                .find(&needle)
                .unwrap_or_else(|| panic!("entry {k} in order ({format})"));
            at += found + needle.len();
        }
        // Each entry once, and the title (from the first one) once in Markdown, twice in HTML.
        let titles = if format == "md" { 1 } else { 2 };
        assert_eq!(stdout.matches("entry ").count(), n + titles, "{format}");
        assert!(stdout.ends_with(if format == "md" {
            "sit ämet 日本語\n"
        } else {
            "</html>\n"
        }));
    }
}

/// `--force` replaces files only: a FIFO (or a device, a folder) at the output path is
/// refused and left as it is.
#[cfg(unix)]
#[test]
fn force_never_replaces_what_is_not_a_file() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    let s = session(dir.path());
    let fifo = dir.path().join("pipe");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap()
            .success()
    );
    let folder = dir.path().join("folder");
    fs::create_dir(&folder).unwrap();
    for dest in [&fifo, &folder] {
        let out = cmd()
            .arg("-s")
            .arg(&s)
            .arg("export")
            .arg("-o")
            .arg(dest)
            .arg("--force")
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(1), "{dest:?}");
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("not a regular file"), "{err}");
    }
    assert!(fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    assert!(folder.is_dir());
    // Nothing left behind: no temp file beside them.
    let names: Vec<String> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".tmp"))
        .collect();
    assert!(names.is_empty(), "{names:?}");
}

/// A session of `n` messages of some length, in `dir`: one that takes a while to export.
fn long_session(dir: &Path, n: usize) -> PathBuf {
    let path = dir.join("long.jsonl");
    let mut text = String::from(
        r#"{"type":"session","version":3,"id":"s-long","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#,
    );
    text.push('\n');
    for i in 0..n {
        let parent = if i == 0 {
            Value::Null
        } else {
            json!(format!("m{:07x}", i - 1))
        };
        let role = if i % 2 == 0 { "user" } else { "assistant" };
        let line = json!({"type": "message", "id": format!("m{i:07x}"), "parentId": parent,
            "timestamp": "2026-01-01T00:00:01.000Z",
            "message": {"role": role, "content": [{"type": "text",
                "text": format!("message {i} {}", "lorem ipsum *dolor* sit amet ".repeat(10))}], "timestamp": 1}});
        text.push_str(&line.to_string());
        text.push('\n');
    }
    fs::write(&path, text).unwrap();
    path
}

/// Ctrl-C (or SIGTERM) during `export -o` removes the temp file: the interrupted run ends with
/// 130 and leaves nothing beside the session.
#[test]
fn an_interrupted_export_leaves_no_temp_file() {
    let dir = tempfile::tempdir().unwrap();
    let file = long_session(dir.path(), 20_000);
    for signal in ["INT", "TERM"] {
        let out = dir.path().join("out.html");
        let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_pi-session"))
            .env("XDG_CACHE_HOME", common::cache_home())
            .arg("-s")
            .arg(&file)
            .args(["export", "--format", "html", "-o"])
            .arg(&out)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let start = std::time::Instant::now();
        let temp_seen = loop {
            let temp = listing(dir.path())
                .iter()
                .any(|n| n.starts_with(".out.html.") && n.ends_with(".tmp"));
            if temp || child.try_wait().unwrap().is_some() || start.elapsed().as_secs() > 30 {
                break temp;
            }
            std::thread::sleep(std::time::Duration::from_millis(2));
        };
        assert!(
            temp_seen,
            "SIG{signal}: the export ended before it could be interrupted"
        );
        let killed = std::process::Command::new("kill")
            .arg(format!("-{signal}"))
            .arg(child.id().to_string())
            .status()
            .unwrap();
        assert!(killed.success());
        let result = child.wait_with_output().unwrap();
        assert_eq!(
            result.status.code(),
            Some(130),
            "SIG{signal}: {}",
            String::from_utf8_lossy(&result.stderr)
        );
        assert_eq!(
            listing(dir.path()),
            ["long.jsonl"],
            "SIG{signal}: nothing left beside it"
        );
    }
}

/// A temp file a killed export left (its process gone) is removed by the next export to
/// the same file, with a note; one of a running process is left alone.
#[test]
fn a_stale_temp_file_is_removed_by_the_next_write() {
    let dir = tempfile::tempdir().unwrap();
    let file = session(dir.path());
    // Above the largest process id Linux hands out (2^22): a process that is gone.
    let stale = dir.path().join(".out.md.4999999.tmp");
    let live = dir.path().join(format!(".out.md.{}.tmp", std::process::id()));
    fs::write(&stale, b"half an export").unwrap();
    fs::write(&live, b"another export under way").unwrap();
    let out = cmd()
        .arg("-s")
        .arg(&file)
        .args(["export", "-o"])
        .arg(dir.path().join("out.md"))
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "note: removed {}, left by an interrupted pi-session",
            stale.display()
        )),
        "{stderr}"
    );
    assert!(!stale.exists());
    assert!(live.exists(), "a running process's temp file is kept");
}

/// Links and images in message Markdown keep only `http:`, `https:`, `mailto:` and in-page
/// anchors; protocol-relative (`//host`), backslash (`/\host`, `\\host`) and relative
/// (`../../etc/passwd`, `./rel`, `?q=1`) targets are shown as their text (issue 34).
#[test]
fn html_links_go_only_to_the_web_mail_and_the_page() {
    let file = common::fixture("outside-2/export-link-forms.jsonl");
    let out = cmd()
        .arg("-s")
        .arg(&file)
        .args(["export", "--format", "html", "-o", "-"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let html = String::from_utf8(out.stdout).unwrap();
    let hrefs: Vec<&str> = html
        .split("href=\"")
        .skip(1)
        .map(|rest| &rest[..rest.find('"').unwrap()])
        .collect();
    assert!(hrefs.len() > 10, "{hrefs:?}");
    for href in &hrefs {
        let lower = href.to_ascii_lowercase();
        assert!(
            ["#", "http:", "https:", "mailto:"].iter().any(|p| lower.starts_with(p)),
            "{href}"
        );
        assert!(!lower.contains("evil.example") || lower.starts_with("http"), "{href}");
    }
    // Images load nothing: only inline base64 ones are shown.
    for src in html.split("src=\"").skip(1) {
        assert!(src.starts_with("data:image/png;base64,"), "{src}");
    }
    // Refused links are their text, in both messages.
    for k in [0, 1, 2, 3, 4, 5, 23] {
        assert_eq!(html.matches(&format!("<p>l{k} &lt;")).count(), 2, "l{k}");
        assert_eq!(
            html.matches(&format!("<span class=\"md-image\">i{k}</span>")).count(),
            2,
            "i{k}"
        );
    }
    for hidden in ["//evil.example", "\\evil.example", "../../etc/passwd", "./rel"] {
        assert!(!hrefs.iter().any(|h| h.contains(hidden)), "{hidden}");
    }
}
