//! `import --from claude|codex`: where the new session goes, what it prints, `--all` importing
//! only what is new, `--dry-run` writing nothing, never over a file, subagents as their own
//! sessions, `--map-tools`, and a source that is not the other agent's.

use crate::common::{cmd, ndjson, run_ok};
use serde_json::Value;
use std::path::{Path, PathBuf};

fn fixture(agent: &str, name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/import")
        .join(agent)
        .join(name)
}

const CODEX: &str = "rollout-2025-09-14T10-02-11-0199479b-2c1e-7d40-9a51-3f0e8c6d2a17.jsonl";

/// A home with a project folder, Pi's agent dir and the other agents' folders.
struct Home {
    dir: tempfile::TempDir,
}

impl Home {
    fn new() -> Home {
        let h = Home {
            dir: tempfile::tempdir().unwrap(),
        };
        std::fs::create_dir_all(h.project()).unwrap();
        h
    }
    fn path(&self) -> &Path {
        self.dir.path()
    }
    fn project(&self) -> PathBuf {
        self.path().join("proj")
    }
    fn pi_folder(&self) -> PathBuf {
        let encoded = self
            .project()
            .display()
            .to_string()
            .trim_start_matches('/')
            .replace('/', "-");
        self.path().join("agent/sessions").join(format!("--{encoded}--"))
    }
    /// A Claude Code session of the project: `fixture` with every `cwd` the project's.
    fn claude_session(&self, fixture_name: &str, id: &str) -> PathBuf {
        let folder: String = self
            .project()
            .display()
            .to_string()
            .chars()
            .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
            .collect();
        let dir = self.path().join("claude/projects").join(folder);
        std::fs::create_dir_all(&dir).unwrap();
        let text = std::fs::read_to_string(fixture("claude", fixture_name)).unwrap();
        let mut out = String::new();
        for line in text.lines() {
            match serde_json::from_str::<Value>(line) {
                Ok(mut v) if v.get("cwd").is_some() => {
                    v["cwd"] = Value::from(self.project().display().to_string());
                    v["sessionId"] = Value::from(id);
                    out.push_str(&v.to_string());
                }
                _ => out.push_str(line),
            }
            out.push('\n');
        }
        let path = dir.join(format!("{id}.jsonl"));
        std::fs::write(&path, out).unwrap();
        path
    }
    fn run(&self, args: &[&str]) -> std::process::Output {
        cmd()
            .current_dir(self.project())
            .env("HOME", self.path())
            .env("PI_CODING_AGENT_DIR", self.path().join("agent"))
            .env("CLAUDE_CONFIG_DIR", self.path().join("claude"))
            .env("CODEX_HOME", self.path().join("codex"))
            .args(args)
            .output()
            .unwrap()
    }
}

/// Every file under `dir` with its bytes.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.push((p.clone(), std::fs::read(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn a_claude_session_goes_to_pis_folder_of_its_directory() {
    let home = Home::new();
    let src = home.claude_session("rewind.jsonl", "5b1c0e2a-0000-4000-8000-000000000001");
    let out = home.run(&["import", "--from", "claude", "5b1c0e2a-0000-4000-8000-000000000001"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let path = PathBuf::from(String::from_utf8(out.stdout).unwrap().trim());
    assert_eq!(
        path.parent().unwrap(),
        home.pi_folder(),
        "Pi's folder for the source's cwd"
    );
    let header: Value = serde_json::from_str(std::fs::read_to_string(&path).unwrap().lines().next().unwrap()).unwrap();
    assert_eq!(header["version"], 3);
    assert_eq!(header["cwd"], home.project().display().to_string());
    assert_eq!(header["importedFrom"]["agent"], "claude");
    assert_eq!(header["importedFrom"]["path"], src.display().to_string());
    assert!(
        path.file_name()
            .unwrap()
            .to_string_lossy()
            .ends_with(&format!("_{}.jsonl", header["id"].as_str().unwrap()))
    );
    // A rewind is a branch: the tree has a fork, and pi-session reads the file cleanly.
    let tree = ndjson(&run_ok(&path, &["tree", "--all", "--json"]));
    let mut parents = std::collections::HashMap::new();
    for row in &tree {
        *parents.entry(row["parentId"].to_string()).or_insert(0) += 1;
    }
    assert!(parents.values().any(|&n| n > 1), "a fork in the tree");
    let check = cmd().arg("-s").arg(&path).args(["repair", "--check"]).output().unwrap();
    assert!(check.status.success(), "{}", String::from_utf8_lossy(&check.stdout));
    // Listed by `ls` here, as Pi's /resume lists it.
    let ls = home.run(&["ls", "--json"]);
    assert_eq!(ndjson(&String::from_utf8(ls.stdout).unwrap()).len(), 1);
}

#[test]
fn all_imports_only_what_is_new_and_dry_run_writes_nothing() {
    let home = Home::new();
    home.claude_session("compaction.jsonl", "5b1c0e2a-0000-4000-8000-00000000000a");
    home.claude_session("tool-error.jsonl", "5b1c0e2a-0000-4000-8000-00000000000b");
    let before = snapshot(home.path());
    let dry = home.run(&["import", "--from", "claude", "--all", "--dry-run", "--json"]);
    assert!(dry.status.success(), "{}", String::from_utf8_lossy(&dry.stderr));
    let plans = ndjson(&String::from_utf8(dry.stdout).unwrap());
    assert_eq!(plans.len(), 2);
    assert!(plans.iter().all(|p| p["dryRun"] == true && p["entries"].is_object()));
    assert_eq!(snapshot(home.path()), before, "a dry run writes nothing");

    let first = home.run(&["import", "--from", "claude", "--all"]);
    assert!(first.status.success(), "{}", String::from_utf8_lossy(&first.stderr));
    assert_eq!(String::from_utf8(first.stdout).unwrap().lines().count(), 2);
    assert!(String::from_utf8_lossy(&first.stderr).contains("imported 2 session(s) from claude"));
    let second = home.run(&["import", "--from", "claude", "--all"]);
    assert!(second.status.success());
    assert!(second.stdout.is_empty());
    assert!(
        String::from_utf8_lossy(&second.stderr)
            .contains("imported 0 session(s) from claude, 2 imported before left out"),
        "{}",
        String::from_utf8_lossy(&second.stderr)
    );
    // A new session of the other agent is picked up.
    home.claude_session("image.jsonl", "5b1c0e2a-0000-4000-8000-00000000000c");
    let third = home.run(&["import", "--from", "claude", "--all"]);
    assert_eq!(String::from_utf8(third.stdout).unwrap().lines().count(), 1);
}

#[test]
fn never_over_a_file_and_stdout_with_dash() {
    let home = Home::new();
    let taken = home.path().join("taken.jsonl");
    std::fs::write(&taken, "mine\n").unwrap();
    let src = fixture("codex", CODEX);
    let out = home.run(&[
        "import",
        "--from",
        "codex",
        src.to_str().unwrap(),
        "-o",
        taken.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(std::fs::read_to_string(&taken).unwrap(), "mine\n");
    let out = home.run(&["import", "--from", "codex", src.to_str().unwrap(), "-o", "-"]);
    assert!(out.status.success());
    let lines = ndjson(&String::from_utf8(out.stdout).unwrap());
    assert_eq!(lines[0]["type"], "session");
    assert_eq!(lines[0]["importedFrom"]["agent"], "codex");
    // No encrypted reasoning, ever.
    assert!(!lines.iter().any(|l| l.to_string().contains("encrypted_content")));
}

#[test]
fn subagents_become_sessions_of_their_own() {
    let home = Home::new();
    home.claude_session("sidechain.jsonl", "5b1c0e2a-0000-4000-8000-0000000000d1");
    let out = home.run(&[
        "import",
        "--from",
        "claude",
        "5b1c0e2a-0000-4000-8000-0000000000d1",
        "--json",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let records = ndjson(&String::from_utf8(out.stdout).unwrap());
    assert!(records.len() >= 2, "the main session and its subagent's: {records:?}");
    let main = records[0]["path"].as_str().unwrap();
    for child in &records[1..] {
        let path = Path::new(child["path"].as_str().unwrap());
        let header: Value =
            serde_json::from_str(std::fs::read_to_string(path).unwrap().lines().next().unwrap()).unwrap();
        assert_eq!(header["parentSession"], main, "a subagent's session names its parent");
    }
    // `ls --tree` draws it under the main one.
    let ls = home.run(&["ls", "--tree", "--json"]);
    let rows = ndjson(&String::from_utf8(ls.stdout).unwrap());
    assert!(rows.iter().any(|r| r["depth"] == 1), "{rows:?}");
}

#[test]
fn map_tools_gives_pis_names_and_malformed_lines_are_reported() {
    let torn = fixture("claude", "torn-last-line.jsonl");
    let out = cmd()
        .args(["import", "--from", "claude", "--dry-run"])
        .arg(&torn)
        .output()
        .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("lines that are not JSON were skipped"), "{stderr}");
    let src = fixture("claude", "tool-error.jsonl");
    let dir = tempfile::tempdir().unwrap();
    let (plain, mapped) = (dir.path().join("plain.jsonl"), dir.path().join("mapped.jsonl"));
    let out = cmd()
        .args(["import", "--from", "claude"])
        .arg(&src)
        .arg("-o")
        .arg(&plain)
        .output()
        .unwrap();
    assert!(out.status.success());
    let out = cmd()
        .args(["import", "--from", "claude", "--map-tools"])
        .arg(&src)
        .arg("-o")
        .arg(&mapped)
        .output()
        .unwrap();
    assert!(out.status.success());
    let names = |f: &Path| -> Vec<String> {
        std::fs::read_to_string(f)
            .unwrap()
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .flat_map(|v| v["message"]["content"].as_array().cloned().unwrap_or_default())
            .filter(|b| b["type"] == "toolCall")
            .map(|b| b["name"].as_str().unwrap().to_owned())
            .collect()
    };
    let (a, b) = (names(&plain), names(&mapped));
    assert!(!a.is_empty());
    assert!(
        a.iter().all(|n| n.chars().next().unwrap().is_uppercase()),
        "as written: {a:?}"
    );
    assert!(
        b.iter().all(
            |n| ["read", "write", "edit", "bash"].contains(&n.as_str()) || n.chars().next().unwrap().is_uppercase()
        ),
        "{b:?}"
    );
    assert_ne!(a, b, "some tool mapped");
}

#[test]
fn a_file_that_is_not_the_agents_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let out_path = dir.path().join("x.jsonl");
    let src = fixture("claude", "rewind.jsonl");
    let out = cmd()
        .args(["import", "--from", "codex"])
        .arg(&src)
        .arg("-o")
        .arg(&out_path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!out_path.exists());
    let out = cmd()
        .args(["import", "--from", "claude", "no-such-session"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
}
