//! `name` (print, set, clear, generate) and `mv` (one session, a whole project, --copy,
//! --relink, a shared sessionDir, interrupted moves).

use crate::common::{cmd, example, run_ok};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

fn copy_example(dir: &Path) -> PathBuf {
    let file = dir.join("s.jsonl");
    std::fs::copy(example(), &file).unwrap();
    age(&file);
    file
}

/// Makes a file look untouched for a minute (no Pi writing it).
fn age(file: &Path) {
    let f = std::fs::File::options().append(true).open(file).unwrap();
    f.set_modified(SystemTime::now() - Duration::from_secs(60)).unwrap();
}

fn last_line(file: &Path) -> Value {
    let text = std::fs::read_to_string(file).unwrap();
    serde_json::from_str(text.lines().last().unwrap()).unwrap()
}

#[test]
fn name_prints_sets_and_clears_as_pi_writes() {
    let dir = tempfile::tempdir().unwrap();
    let file = copy_example(dir.path());
    assert_eq!(run_ok(&file, &["name"]), "Tokenizer refactor\n");
    let before = std::fs::read(&file).unwrap();
    run_ok(&file, &["name", "  Port the\r\n\nparser  "]);
    let after = std::fs::read(&file).unwrap();
    assert_eq!(&after[..before.len()], &before[..], "only appended");
    let entry = last_line(&file);
    let keys: Vec<&str> = entry.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["type", "id", "parentId", "timestamp", "name"]);
    assert_eq!(entry["type"], "session_info");
    assert_eq!(entry["name"], "Port the parser");
    assert_eq!(run_ok(&file, &["name"]), "Port the parser\n");
    let json: Value = serde_json::from_str(&run_ok(&file, &["name", "--json"])).unwrap();
    assert_eq!(json["name"], "Port the parser");

    run_ok(&file, &["name", "--clear"]);
    assert_eq!(last_line(&file)["name"], "");
    let out = cmd().arg("-s").arg(&file).arg("name").output().unwrap();
    assert_eq!(out.status.code(), Some(1), "no name: status 1");
    assert!(out.stdout.is_empty());
}

#[test]
fn name_dry_run_writes_nothing_and_recent_changes_are_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = copy_example(dir.path());
    let before = std::fs::read(&file).unwrap();
    let out = run_ok(&file, &["name", "X", "--dry-run"]);
    assert!(out.starts_with("would append: {\"type\":\"session_info\""), "{out}");
    assert_eq!(std::fs::read(&file).unwrap(), before);
    // Changed a moment ago by someone else (Pi): refused, untouched; --force writes.
    std::fs::File::options()
        .append(true)
        .open(&file)
        .unwrap()
        .set_modified(SystemTime::now())
        .unwrap();
    let out = cmd().arg("-s").arg(&file).args(["name", "X"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("last few seconds"));
    assert_eq!(std::fs::read(&file).unwrap(), before);
    run_ok(&file, &["name", "X", "--force"]);
    assert_eq!(last_line(&file)["name"], "X");
    // An empty name is a usage error.
    let out = cmd().arg("-s").arg(&file).args(["name", " \n "]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn name_generate_reads_a_title_from_the_summarizer() {
    let dir = tempfile::tempdir().unwrap();
    let file = copy_example(dir.path());
    // The command gets the request (system prompt, then the conversation) on stdin.
    let seen = dir.path().join("seen.txt");
    let summarizer = format!(
        "cat > '{}'; printf '\"Title: Explain the tokenizer.\"\\n'",
        seen.display()
    );
    run_ok(&file, &["name", "--generate", "--summarizer", &summarizer]);
    assert_eq!(last_line(&file)["name"], "Explain the tokenizer");
    let request = std::fs::read_to_string(&seen).unwrap();
    assert!(
        request.contains("[User]: Read src/parser.rs and explain the tokenizer."),
        "{request}"
    );
    let prompt = run_ok(&file, &["name", "--generate", "--print-prompt"]);
    assert!(prompt.contains("===== system =====") && prompt.contains("<conversation>"));
}

#[test]
fn name_generate_all_unnamed_names_only_the_unnamed() {
    let home = tempfile::tempdir().unwrap();
    let project = home.path().join("proj");
    std::fs::create_dir(&project).unwrap();
    let agent = home.path().join("agent");
    let folder = agent.join("sessions").join(format!(
        "--{}--",
        project.display().to_string().trim_start_matches('/').replace('/', "-")
    ));
    std::fs::create_dir_all(&folder).unwrap();
    let text = std::fs::read_to_string(example()).unwrap();
    let unnamed: String = text
        .lines()
        .filter(|l| !l.contains("\"session_info\""))
        .map(|l| format!("{l}\n"))
        .collect();
    for (n, body) in [("a", &text), ("b", &unnamed), ("c", &unnamed)] {
        let f = folder.join(format!("2026-01-0{}T00-00-00-000Z_{n}.jsonl", n.len()));
        let f = if n == "a" {
            f
        } else {
            folder.join(format!("2026-01-01T00-00-00-000Z_{n}.jsonl"))
        };
        std::fs::write(&f, body).unwrap();
        age(&f);
    }
    let out = cmd()
        .current_dir(&project)
        .env("PI_CODING_AGENT_DIR", &agent)
        .args([
            "name",
            "--generate",
            "--all",
            "--unnamed",
            "--summarizer",
            "echo Fresh title",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("named 2 of 2 session(s), 1 already named"), "{stderr}");
    for (n, want) in [("a", "Tokenizer refactor"), ("b", "Fresh title"), ("c", "Fresh title")] {
        let f = std::fs::read_dir(&folder)
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| p.to_string_lossy().ends_with(&format!("_{n}.jsonl")))
            .unwrap();
        assert_eq!(run_ok(&f, &["name"]).trim_end(), want);
    }
}

/// An agent dir with `project`'s sessions under Pi's folder for it.
struct Store {
    home: tempfile::TempDir,
}

impl Store {
    fn new() -> Store {
        Store {
            home: tempfile::tempdir().unwrap(),
        }
    }
    fn agent(&self) -> PathBuf {
        self.home.path().join("agent")
    }
    fn project(&self, name: &str) -> PathBuf {
        let p = self.home.path().join(name);
        std::fs::create_dir_all(&p).unwrap();
        p
    }
    fn folder(&self, project: &Path) -> PathBuf {
        let encoded = project.display().to_string().trim_start_matches('/').replace('/', "-");
        self.agent().join("sessions").join(format!("--{encoded}--"))
    }
    /// The example session as a session of `project`, named `file`.
    fn session(&self, project: &Path, file: &str, parent: Option<&Path>) -> PathBuf {
        let text = std::fs::read_to_string(example()).unwrap();
        let mut lines = text.lines();
        let mut header: Value = serde_json::from_str(lines.next().unwrap()).unwrap();
        header["cwd"] = Value::from(project.display().to_string());
        if let Some(p) = parent {
            header["parentSession"] = Value::from(p.display().to_string());
        }
        let body: String = lines.map(|l| format!("{l}\n")).collect();
        let folder = self.folder(project);
        std::fs::create_dir_all(&folder).unwrap();
        let path = folder.join(file);
        std::fs::write(&path, format!("{header}\n{body}")).unwrap();
        age(&path);
        path
    }
    fn run(&self, args: &[&str]) -> std::process::Output {
        cmd()
            .current_dir(self.home.path())
            .env("PI_CODING_AGENT_DIR", self.agent())
            .args(args)
            .output()
            .unwrap()
    }
}

#[test]
fn mv_moves_a_session_changing_only_the_header_cwd() {
    let store = Store::new();
    let (old, new) = (store.project("old"), store.project("new"));
    let src = store.session(&old, "2026-01-01T00-00-00-000Z_a.jsonl", None);
    let before = std::fs::read(&src).unwrap();
    let dry = store.run(&["-s", src.to_str().unwrap(), "mv", new.to_str().unwrap(), "--dry-run"]);
    assert!(dry.status.success());
    assert!(src.exists() && !store.folder(&new).exists(), "a dry run writes nothing");
    let out = store.run(&["-s", src.to_str().unwrap(), "mv", new.to_str().unwrap(), "--json"]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let record: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(record["outcome"], "moved");
    let dest = store.folder(&new).join("2026-01-01T00-00-00-000Z_a.jsonl");
    assert_eq!(record["to"], dest.display().to_string());
    assert!(!src.exists());
    let after = std::fs::read(&dest).unwrap();
    let cut = |b: &[u8]| b.iter().position(|&c| c == b'\n').unwrap();
    assert_eq!(
        &after[cut(&after)..],
        &before[cut(&before)..],
        "every line after the header as it was"
    );
    let header: Value = serde_json::from_slice(&after[..cut(&after)]).unwrap();
    assert_eq!(header["cwd"], new.display().to_string());
    // Back onto a name that is taken: refused, both files as they were.
    // (Another session under the same name: an identical one would be the rest of an
    // interrupted move, which the move finishes.)
    let again = store.session(&old, "2026-01-01T00-00-00-000Z_a.jsonl", None);
    std::fs::write(&again, [std::fs::read(&again).unwrap(), b"\n".to_vec()].concat()).unwrap();
    age(&again);
    let out = store.run(&["-s", again.to_str().unwrap(), "mv", new.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(std::fs::read(&dest).unwrap(), after);
    assert!(again.exists());
}

#[test]
fn mv_from_to_moves_a_project_and_relinks_children() {
    let store = Store::new();
    let (old, new) = (store.project("old"), store.project("new"));
    let sub = store.project("old/sub");
    let a = store.session(&old, "2026-01-01T00-00-00-000Z_a.jsonl", None);
    let b = store.session(&sub, "2026-01-02T00-00-00-000Z_b.jsonl", None);
    let other = store.project("other");
    let child = store.session(&other, "2026-01-03T00-00-00-000Z_c.jsonl", Some(&a));
    // Without --relink, the child is named and left as it was.
    let child_before = std::fs::read(&child).unwrap();
    let out = store.run(&[
        "mv",
        "--from",
        old.to_str().unwrap(),
        "--to",
        new.to_str().unwrap(),
        "--copy",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(a.exists() && b.exists(), "--copy keeps the old files");
    assert!(store.folder(&new).join(a.file_name().unwrap()).exists());
    assert!(store.folder(&new.join("sub")).join(b.file_name().unwrap()).exists());
    assert_eq!(std::fs::read(&child).unwrap(), child_before);
    // Moving again over the copies: refused (never over a file).
    for f in [
        store.folder(&new).join(a.file_name().unwrap()),
        store.folder(&new.join("sub")).join(b.file_name().unwrap()),
    ] {
        std::fs::remove_file(f).unwrap();
    }
    let out = store.run(&[
        "mv",
        "--from",
        old.to_str().unwrap(),
        "--to",
        new.to_str().unwrap(),
        "--relink",
    ]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(!a.exists() && !b.exists());
    let moved_a = store.folder(&new).join(a.file_name().unwrap());
    let header: Value = serde_json::from_str(std::fs::read_to_string(&child).unwrap().lines().next().unwrap()).unwrap();
    assert_eq!(header["parentSession"], moved_a.display().to_string());
    assert!(
        child.with_extension("jsonl.bak").exists(),
        "the relinked header's backup"
    );
}

#[test]
fn mv_in_a_shared_session_dir_rewrites_the_header_in_place() {
    let store = Store::new();
    let (old, new) = (store.project("old"), store.project("new"));
    let shared = store.home.path().join("shared");
    std::fs::create_dir_all(&shared).unwrap();
    let made = store.session(&old, "2026-01-01T00-00-00-000Z_a.jsonl", None);
    let src = shared.join("2026-01-01T00-00-00-000Z_a.jsonl");
    std::fs::rename(&made, &src).unwrap();
    let out = cmd()
        .current_dir(&old)
        .env("PI_CODING_AGENT_DIR", store.agent())
        .env("PI_CODING_AGENT_SESSION_DIR", &shared)
        .args([
            "mv",
            "--from",
            old.to_str().unwrap(),
            "--to",
            new.to_str().unwrap(),
            "--json",
        ])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let record: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(record["outcome"], "rewritten");
    let header: Value = serde_json::from_str(std::fs::read_to_string(&src).unwrap().lines().next().unwrap()).unwrap();
    assert_eq!(header["cwd"], new.display().to_string());
    assert!(src.with_extension("jsonl.bak").exists());
}

#[test]
fn mv_finishes_a_move_a_kill_interrupted() {
    let store = Store::new();
    let (old, new) = (store.project("old"), store.project("new"));
    let src = store.session(&old, "2026-01-01T00-00-00-000Z_a.jsonl", None);
    // What a `kill -9` between the link and the unlink leaves: the whole new file and the old.
    let out = store.run(&["-s", src.to_str().unwrap(), "mv", new.to_str().unwrap(), "--copy"]);
    assert!(out.status.success());
    let out = store.run(&["-s", src.to_str().unwrap(), "mv", new.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("finished an interrupted move"));
    assert!(!src.exists());
}

/// Ctrl-C and `kill -9` at random moments of a move of many sessions: each session is in
/// exactly one place, whole (the old file, or the new one with the new cwd; both only when a
/// kill fell between the link and the unlink, the new one then whole), and no temp file stays.
#[test]
fn interrupted_moves_leave_each_session_in_one_place() {
    use std::process::Stdio;
    for (round, signal) in [(0u64, "INT"), (1, "KILL"), (2, "INT"), (3, "KILL")] {
        let store = Store::new();
        let (old, new) = (store.project("old"), store.project("new"));
        let files: Vec<PathBuf> = (0..400)
            .map(|i| store.session(&old, &format!("2026-01-01T00-00-00-000Z_{i:03}.jsonl"), None))
            .collect();
        let originals: Vec<Vec<u8>> = files.iter().map(|f| std::fs::read(f).unwrap()).collect();
        let child = std::process::Command::new(assert_cmd::cargo::cargo_bin("pi-session"))
            .current_dir(store.home.path())
            .env("PI_CODING_AGENT_DIR", store.agent())
            .args(["mv", "--from", old.to_str().unwrap(), "--to", new.to_str().unwrap()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(Duration::from_millis(20 + round * 15));
        std::process::Command::new("kill")
            .args([&format!("-{signal}"), &child.id().to_string()])
            .status()
            .unwrap();
        let mut child = child;
        child.wait().unwrap();
        let left = files.iter().filter(|f| f.exists()).count();
        eprintln!(
            "{signal} after {} ms: {left} of {} sessions not moved yet",
            20 + round * 15,
            files.len()
        );
        for (f, original) in files.iter().zip(&originals) {
            let dest = store.folder(&new).join(f.file_name().unwrap());
            let moved = dest.exists().then(|| std::fs::read(&dest).unwrap());
            if let Some(m) = &moved {
                let text = String::from_utf8_lossy(m);
                let header: Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
                assert_eq!(header["cwd"], new.display().to_string(), "{signal}: {}", dest.display());
                assert_eq!(
                    m.len() - text.lines().next().unwrap().len(),
                    original.len() - original.iter().position(|&c| c == b'\n').unwrap()
                );
            }
            match (f.exists(), moved.is_some()) {
                (true, false) => assert_eq!(&std::fs::read(f).unwrap(), original),
                (false, true) => {}
                (true, true) => assert_eq!(signal, "KILL", "Ctrl-C left {} in two places", f.display()),
                (false, false) => panic!("{signal}: {} is nowhere", f.display()),
            }
        }
        for folder in [store.folder(&old), store.folder(&new)] {
            for e in std::fs::read_dir(&folder).into_iter().flatten() {
                let name = e.unwrap().file_name().to_string_lossy().into_owned();
                assert!(
                    !name.ends_with(".tmp") || signal == "KILL",
                    "{signal}: temp file {name} left"
                );
            }
        }
    }
}
