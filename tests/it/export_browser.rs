//! HTML exports as a real browser sees them: Debian's Chromium, headless, parses each export
//! (`--dump-dom`) and the tests look at the document it built, not at our text.
//!
//! Where Chromium is missing the tests say so and pass, unless `PI_SESSION_REQUIRE_CHROMIUM`
//! is set (`.ci/run` installs Chromium and sets it). `PI_SESSION_CHROMIUM` names the binary.

use crate::common::{self, cmd};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// The Chromium to run, or `None` (the test is skipped) when there is none and none is
/// required.
pub fn chromium() -> Option<PathBuf> {
    let required = std::env::var_os("PI_SESSION_REQUIRE_CHROMIUM").is_some_and(|v| !v.is_empty());
    let named = std::env::var_os("PI_SESSION_CHROMIUM").map(PathBuf::from);
    let found = named.or_else(|| {
        ["chromium", "chromium-browser", "google-chrome"]
            .iter()
            .find_map(|name| {
                std::env::var_os("PATH").and_then(|paths| {
                    std::env::split_paths(&paths)
                        .map(|d| d.join(name))
                        .find(|p| p.is_file())
                })
            })
    });
    match found {
        Some(p) => Some(p),
        None if required => panic!("PI_SESSION_REQUIRE_CHROMIUM is set but no chromium was found"),
        None => {
            crate::common::skip("no chromium on PATH (set PI_SESSION_CHROMIUM to name one)");
            None
        }
    }
}

/// Headless Chromium as this machine lets it run: no sandbox as root, none of the background
/// connections a closed network refuses, a fresh profile each time.
fn headless(chromium: &Path, profile: &Path) -> Command {
    let mut c = Command::new(chromium);
    c.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-extensions",
    ])
    .arg(format!("--user-data-dir={}", profile.display()))
    .stdin(Stdio::null());
    c
}

/// Runs `c`, killing it after `limit`: a page that never finishes rendering fails the test
/// instead of hanging it.
fn run_bounded(mut c: Command, limit: Duration) -> (String, Duration) {
    let out_path = tempfile::NamedTempFile::new().unwrap();
    let started = Instant::now();
    let mut child = c
        .stdout(std::fs::File::create(out_path.path()).unwrap())
        .stderr(Stdio::null())
        .spawn()
        .expect("chromium starts");
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "chromium failed: {status}");
            break;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            panic!("chromium did not finish within {limit:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    (std::fs::read_to_string(out_path.path()).unwrap(), started.elapsed())
}

/// The document Chromium builds from an HTML file.
pub fn dump_dom(chromium: &Path, html: &Path, limit: Duration) -> (String, Duration) {
    let profile = tempfile::tempdir().unwrap();
    let mut c = headless(chromium, profile.path());
    c.arg("--dump-dom").arg(format!("file://{}", html.display()));
    run_bounded(c, limit)
}

/// Exports `session` (extra `args` after `export`) as HTML into `dir`, returning the path.
fn export_html(session: &Path, dir: &Path, name: &str, args: &[&str]) -> PathBuf {
    let dest = dir.join(name);
    let out = cmd()
        .arg("-s")
        .arg(session)
        .arg("export")
        .args(args)
        .arg("-o")
        .arg(&dest)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    dest
}

/// Every `href="#X"` of the document names an element's `id`.
fn assert_anchors_resolve(dom: &str) {
    let ids: std::collections::HashSet<&str> = dom
        .match_indices(" id=\"")
        .filter_map(|(at, m)| {
            let rest = &dom[at + m.len()..];
            rest.find('"').map(|end| &rest[..end])
        })
        .collect();
    let mut links = 0;
    for (at, m) in dom.match_indices("href=\"#") {
        let rest = &dom[at + m.len()..];
        let target = &rest[..rest.find('"').unwrap()];
        assert!(ids.contains(target), "a link to #{target}, which no element has");
        links += 1;
    }
    assert!(links > 0, "no links at all");
}

#[test]
fn corpus_sessions_render_with_their_structure() {
    let Some(chromium) = chromium() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let corpus = common::corpus_dir();
    for name in [
        "real-large.v3.jsonl",
        "real-before-compaction.v3.jsonl",
        "pi-built.v3.jsonl",
    ] {
        let html = export_html(&corpus.join(name), tmp.path(), &format!("{name}.html"), &[]);
        let text = std::fs::read_to_string(&html).unwrap();
        let (dom, _) = dump_dom(&chromium, &html, Duration::from_secs(120));
        // The browser kept every entry's article (none swallowed by a stray tag).
        assert_eq!(
            dom.matches("<article ").count(),
            text.matches("<article ").count(),
            "{name}"
        );
        assert!(dom.contains("<article class=\"user\""), "{name}");
        // No script ever: the page is readable as it is.
        assert!(!dom.contains("<script"), "{name}");
        assert_anchors_resolve(&dom);
        if name.starts_with("real-") {
            // Markdown rendered: lists, code spans and highlighted code blocks.
            assert!(dom.contains("<li>"), "{name}: no rendered list");
            assert!(dom.contains("<code>"), "{name}: no rendered code span");
            assert!(dom.contains("class=\"hl-"), "{name}: no highlighted code");
            // A tool call reads as what it did, its result under it.
            assert!(dom.contains("<span class=\"tool-name\">read</span>"), "{name}");
            assert!(dom.contains("<span class=\"tool-name\">bash</span>"), "{name}");
            // An edit is a diff.
            assert!(dom.contains("<pre class=\"diff\"><code>"), "{name}: no diff");
            assert!(dom.contains("<span class=\"hl-removed\">") && dom.contains("<span class=\"hl-added\">"));
            // Long outputs fold, their size shown.
            assert!(
                dom.contains("<details class=\"more\"><summary>"),
                "{name}: nothing folded"
            );
            assert!(dom.contains(" more lines · "), "{name}");
        }
    }
}

#[test]
fn every_branch_is_reachable_with_all_branches() {
    let Some(chromium) = chromium() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let session = tmp.path().join("branchy.jsonl");
    crate::gen_session::generator::realistic(3 << 20, session.to_str().unwrap(), 11);
    let tree = common::ndjson(&common::run_ok(&session, &["tree", "--all", "--json"]));
    let leaves = tree.iter().filter(|r| r["children"] == 0).count();
    assert!(leaves > 3, "the generated session has branches");
    let html = export_html(&session, tmp.path(), "all.html", &["--all-branches"]);
    let (dom, _) = dump_dom(&chromium, &html, Duration::from_secs(120));
    // One branch section per leaf, each listed in the outline, and every link lands.
    assert_eq!(dom.matches("<section class=\"branch").count(), leaves);
    for k in 1..=leaves {
        assert!(
            dom.contains(&format!("<a href=\"#b-{k}\">Branch {k}</a>")),
            "branch {k} in the outline"
        );
    }
    assert_eq!(dom.matches("<section class=\"branch current\"").count(), 1);
    assert_anchors_resolve(&dom);
    // Every entry a transcript shows appears once.
    let single = export_html(&session, tmp.path(), "one.html", &[]);
    let one = std::fs::read_to_string(single).unwrap();
    assert!(dom.matches("<article ").count() > one.matches("<article ").count());
}

#[test]
fn a_ten_thousand_entry_export_renders() {
    let Some(chromium) = chromium() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let session = tmp.path().join("big.jsonl");
    crate::gen_session::generator::realistic(36 << 20, session.to_str().unwrap(), 5);
    let html = export_html(&session, tmp.path(), "big.html", &["--all-branches"]);
    let text = std::fs::read_to_string(&html).unwrap();
    let articles = text.matches("<article ").count();
    assert!(articles >= 10_000, "{articles} entries exported");
    // A bound, not a speed target: a page that does not finish in it is broken
    // (`bench/export-browser.sh` measures the time).
    let (dom, _) = dump_dom(&chromium, &html, Duration::from_secs(300));
    assert_eq!(dom.matches("<article ").count(), articles);
    assert!(dom.trim_end().ends_with("</html>"));
}
