//! `--dry-run` on every write command (checkout, label, clone, fork, compact,
//! summarize-branch): it says what would be written and writes nothing: the session keeps its
//! bytes and its modification time, and no file appears (no new session, lock or temp file).

use crate::common;

use common::{cmd, example, ndjson, run_ok, temp_copy};
use serde_json::Value;
use std::fs;
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Every file under `dir` (recursively), with its bytes and modification time.
fn snapshot(dir: &Path) -> Vec<(PathBuf, Vec<u8>, SystemTime)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            let meta = fs::symlink_metadata(&p).unwrap();
            if meta.is_dir() {
                out.push((p.clone(), Vec::new(), meta.modified().unwrap()));
                stack.push(p);
            } else {
                out.push((p.clone(), fs::read(&p).unwrap(), meta.modified().unwrap()));
            }
        }
    }
    out.sort();
    out
}

struct DryRun {
    stdout: String,
    stderr: String,
}

/// Runs `pi-session -s FILE ARGS…` in FILE's directory; it must succeed and leave that
/// directory exactly as it was.
fn dry_run(file: &Path, args: &[&str]) -> DryRun {
    let dir = file.parent().unwrap();
    let before = snapshot(dir);
    let out = cmd().current_dir(dir).arg("-s").arg(file).args(args).output().unwrap();
    let stderr = String::from_utf8(out.stderr).unwrap();
    assert_eq!(out.status.code(), Some(0), "{args:?}: {stderr}");
    let after = snapshot(dir);
    let names = |s: &[(PathBuf, Vec<u8>, SystemTime)]| s.iter().map(|f| f.0.clone()).collect::<Vec<_>>();
    assert_eq!(names(&after), names(&before), "{args:?} created or removed a file");
    for (a, b) in after.iter().zip(&before) {
        assert!(a.1 == b.1, "{args:?} changed the bytes of {}", a.0.display());
        assert_eq!(a.2, b.2, "{args:?} changed the modification time of {}", a.0.display());
    }
    DryRun {
        stdout: String::from_utf8(out.stdout).unwrap(),
        stderr,
    }
}

/// The lines a dry run says it would append.
fn would_append(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .filter_map(|l| l.strip_prefix("would append: "))
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}

/// A line without what differs from run to run (its id, its time, and ids it chains to).
fn stable(v: &Value) -> Value {
    let mut v = v.clone();
    let o = v.as_object_mut().unwrap();
    o.remove("id");
    o.remove("timestamp");
    v
}

/// What the same command appends for real on another copy.
fn appended_for_real(src: &Path, args: &[&str]) -> Vec<Value> {
    let (_dir, copy) = temp_copy(src);
    let before = fs::read(&copy).unwrap();
    run_ok(&copy, args);
    let after = fs::read(&copy).unwrap();
    assert_eq!(&after[..before.len()], &before[..]);
    ndjson(std::str::from_utf8(&after[before.len()..]).unwrap())
}

/// The dry run shows the lines a real run appends (ids and times aside; each line after
/// the first is chained to the one before).
fn check_lines_match(src: &Path, args: &[&str]) -> DryRun {
    let (_dir, copy) = temp_copy(src);
    let mut full = args.to_vec();
    full.push("--dry-run");
    let r = dry_run(&copy, &full);
    assert!(
        r.stderr.contains("dry run: nothing written to "),
        "{args:?}: {}",
        r.stderr
    );
    let shown = would_append(&r.stdout);
    let real = appended_for_real(src, args);
    assert!(!shown.is_empty(), "{args:?}: {}", r.stdout);
    assert_eq!(shown.len(), real.len(), "{args:?}: {}", r.stdout);
    for (i, (s, w)) in shown.iter().zip(&real).enumerate() {
        let (mut s, mut w) = (stable(s), stable(w));
        if i > 0 {
            assert_eq!(s["parentId"], shown[i - 1]["id"]);
            assert_eq!(w["parentId"], real[i - 1]["id"]);
            s["parentId"] = Value::Null;
            w["parentId"] = Value::Null;
        }
        assert_eq!(s, w, "{args:?}");
    }
    r
}

#[test]
fn checkout_dry_run_shows_the_record() {
    let src = example();
    let r = check_lines_match(&src, &["checkout", "d2e5793f"]);
    assert!(r.stdout.starts_with("@ would move to d2e5793f "), "{}", r.stdout);
    assert!(r.stderr.contains("would leave 2 entries behind"), "{}", r.stderr);
    check_lines_match(&src, &["checkout", "start"]);
    let r = check_lines_match(&src, &["checkout", "--empty"]);
    assert!(r.stdout.starts_with("@ would be empty"), "{}", r.stdout);
    // `checkout -` after a checkout made for real.
    let (_dir, moved) = temp_copy(&src);
    run_ok(&moved, &["checkout", "d2e5793f"]);
    let r = check_lines_match(&moved, &["checkout", "-"]);
    assert_eq!(would_append(&r.stdout)[0]["parentId"], "b8731d22");
    // --json says what would be written, and that nothing was.
    let (_dir, copy) = temp_copy(&src);
    let r = dry_run(&copy, &["checkout", "--json", "--dry-run", "cb75110e"]);
    assert!(r.stderr.contains("dry run: nothing written"), "{}", r.stderr);
    let v = &ndjson(&r.stdout)[0];
    assert_eq!(v["at"], "cb75110e");
    assert_eq!(v["from"], "b8731d22");
    assert_eq!(v["dryRun"], true);
    let line: Value = serde_json::from_str(v["line"].as_str().unwrap()).unwrap();
    assert_eq!(line["id"], v["record"]);
    assert_eq!(line["parentId"], "cb75110e");
    // Nothing to do is nothing to do.
    let r = dry_run(&copy, &["checkout", "--dry-run", "@"]);
    assert!(would_append(&r.stdout).is_empty());
    assert!(r.stderr.contains("already there"), "{}", r.stderr);
}

#[test]
fn checkout_summarize_dry_run_shows_the_plan() {
    let (_dir, copy) = temp_copy(&example());
    let r = dry_run(&copy, &["checkout", "--summarize", "--dry-run", "1ecdd056"]);
    assert!(
        r.stdout.starts_with("branch summary plan; nothing written"),
        "{}",
        r.stdout
    );
    let r = dry_run(&copy, &["checkout", "--summarize", "--dry-run", "--json", "1ecdd056"]);
    assert_eq!(ndjson(&r.stdout)[0]["target"], "1ecdd056");
}

#[test]
fn label_dry_run_shows_the_label_entries() {
    let src = example();
    let r = check_lines_match(&src, &["label", "1ecdd056", "refactor"]);
    assert!(r.stdout.starts_with("1ecdd056 [refactor]\n"), "{}", r.stdout);
    check_lines_match(&src, &["label", "here"]);
    let r = check_lines_match(&src, &["label", "green", "--delete"]);
    assert!(r.stdout.contains("would be cleared"), "{}", r.stdout);
    // Moving a name: two lines, the clearing first.
    let r = check_lines_match(&src, &["label", "e0a8c95d", "green", "--force"]);
    let lines = would_append(&r.stdout);
    assert_eq!(lines[0]["targetId"], "d2e5793f");
    assert!(lines[0].get("label").is_none());
    assert_eq!(lines[1]["label"], "green");
    assert!(r.stderr.contains("would move 'green' from d2e5793f"), "{}", r.stderr);
    // Replacing a label.
    let r = check_lines_match(&src, &["label", "d2e5793f", "verde"]);
    assert!(
        r.stderr
            .contains("warning: d2e5793f is labelled 'green': 'verde' would replace it"),
        "{}",
        r.stderr
    );
}

#[test]
fn a_dry_run_refuses_what_the_write_would_refuse() {
    let (_dir, copy) = temp_copy(&example());
    let before = fs::read(&copy).unwrap();
    for (args, code) in [
        (&["label", "e0a8c95d", "green", "--dry-run"][..], 1),
        (&["checkout", "nosuchrev", "--dry-run"][..], 1),
        (
            &["checkout", "d2e5793f", "--dry-run", "--expect-leaf", "d2e5793f"][..],
            4,
        ),
        (
            &["label", "d2e5793f", "x", "--dry-run", "--expect-leaf", "d2e5793f"][..],
            4,
        ),
    ] {
        let out = cmd().arg("-s").arg(&copy).args(args).output().unwrap();
        assert_eq!(out.status.code(), Some(code), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
    }
    assert!(fs::read(&copy).unwrap() == before);
}

/// The path and line count a clone or fork dry run reports.
fn would_create(stdout: &str) -> (PathBuf, usize) {
    let rest = stdout
        .strip_prefix("would create ")
        .or_else(|| stdout.strip_prefix("would replace "))
        .unwrap_or_else(|| panic!("{stdout}"));
    let rest = rest.strip_suffix(" lines)\n").unwrap();
    let (path, n) = rest.rsplit_once(" (").unwrap();
    (PathBuf::from(path), n.parse().unwrap())
}

#[test]
fn clone_and_fork_dry_runs_name_the_file_and_its_length() {
    let (dir, copy) = temp_copy(&example());
    let base = dir.path().canonicalize().unwrap();
    for (args, real_lines) in [
        (&["clone"][..], None),
        (&["clone", "d679de06"][..], None),
        (&["fork", "d679de06"][..], None),
        (&["fork", "80fbf1f2"][..], Some(3)),
    ] {
        let mut full = args.to_vec();
        full.push("--dry-run");
        let r = dry_run(&copy, &full);
        assert!(r.stderr.contains("dry run: nothing written"), "{}", r.stderr);
        let (path, n) = would_create(&r.stdout);
        assert_eq!(path.parent().unwrap(), base, "{}", r.stdout);
        assert!(path.to_str().unwrap().ends_with(".jsonl"));
        assert!(!path.exists());
        // A real run writes as many lines.
        let (_d, other) = temp_copy(&example());
        let made = run_ok(&other, args);
        let text = fs::read_to_string(made.trim_end()).unwrap();
        assert_eq!(text.lines().count(), n, "{args:?}");
        if let Some(expected) = real_lines {
            assert_eq!(n, expected);
        }
    }
    // With -o: the path given; an existing one is refused, or replaced with --force.
    let out = base.join("out.jsonl");
    let o = out.to_str().unwrap();
    let r = dry_run(&copy, &["clone", "-o", o, "--dry-run"]);
    assert_eq!(would_create(&r.stdout).0, out);
    fs::write(&out, "precious\n").unwrap();
    let refused = cmd()
        .arg("-s")
        .arg(&copy)
        .args(["clone", "-o", o, "--dry-run"])
        .output()
        .unwrap();
    assert_eq!(refused.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("already exists"));
    let r = dry_run(&copy, &["clone", "-o", o, "--force", "--dry-run"]);
    assert!(r.stdout.starts_with(&format!("would replace {o} (")), "{}", r.stdout);
    assert_eq!(fs::read_to_string(&out).unwrap(), "precious\n");
    // -o -: nothing printed but the count.
    let r = dry_run(&copy, &["clone", "-o", "-", "--dry-run"]);
    assert!(
        r.stdout.starts_with("would print ") && r.stdout.ends_with(" lines on stdout\n"),
        "{}",
        r.stdout
    );
    // --json: the report, with the line count and the dry-run mark.
    let r = dry_run(&copy, &["fork", "--json", "--dry-run", "d679de06"]);
    let v = &ndjson(&r.stdout)[0];
    assert_eq!(v["dryRun"], true);
    assert_eq!(v["entries"], 8);
    assert_eq!(v["lines"], 9);
    assert!(!Path::new(v["path"].as_str().unwrap()).exists());
    assert!(r.stderr.contains("would fork before this message"), "{}", r.stderr);
}

#[test]
fn compact_and_summarize_branch_dry_runs_show_their_plans() {
    let (_dir, copy) = temp_copy(&common::corpus_dir().join("real-large.v3.jsonl"));
    let r = dry_run(&copy, &["compact", "--dry-run", "--keep-recent-tokens", "2000"]);
    assert!(r.stdout.starts_with("compaction plan"), "{}", r.stdout);
    let r = dry_run(
        &copy,
        &["compact", "--dry-run", "--json", "--keep-recent-tokens", "2000"],
    );
    assert!(ndjson(&r.stdout)[0]["firstKeptEntryId"].is_string(), "{}", r.stdout);
    let target = run_ok(&copy, &["rev-parse", "@~20"]).trim().to_owned();
    let r = dry_run(&copy, &["summarize-branch", "--dry-run", &target]);
    assert!(
        r.stdout.starts_with("branch summary plan; nothing written"),
        "{}",
        r.stdout
    );
    let r = dry_run(&copy, &["summarize-branch", "--dry-run", "--json", &target]);
    assert_eq!(ndjson(&r.stdout)[0]["target"], target.as_str());
}

#[test]
fn a_dry_run_only_reads() {
    // It opens the session read-only under a shared lock: beside another reader's shared
    // lock it goes ahead, where a write waits for it; and a read-only file can be planned on.
    let (_dir, copy) = temp_copy(&example());
    let holder = fs::File::open(&copy).unwrap();
    holder.lock_shared().unwrap();
    let with_lock_held = |args: &[&str]| {
        cmd()
            .env("PI_SESSION_LOCK_TIMEOUT", "0.2")
            .arg("-s")
            .arg(&copy)
            .args(args)
            .output()
            .unwrap()
    };
    for args in [
        &["checkout", "d2e5793f", "--dry-run"][..],
        &["label", "d2e5793f", "x", "--dry-run"][..],
    ] {
        let out = with_lock_held(args);
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let out = with_lock_held(&["checkout", "d2e5793f"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("locked"));
    holder.unlock().unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        fs::set_permissions(&copy, fs::Permissions::from_mode(0o444)).unwrap();
    }
    let r = dry_run(&copy, &["checkout", "d2e5793f", "--dry-run"]);
    assert_eq!(would_append(&r.stdout).len(), 1);
}
