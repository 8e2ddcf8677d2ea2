//! `secrets` and `redact`: every planted secret found where it is, nothing found in the real
//! sessions, and redaction that changes only the strings that held a secret.

use crate::common;

use common::oracle::run_oracle;
use common::{cmd, fixture, ndjson};
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The session with a secret planted in every place a session holds strings
/// (`examples/plant_secrets.rs`), and its manifest: one record per planted value,
/// `{"entry", "path", "rule", "secret"}`, `rule` null for a near miss that must not be found.
fn planted() -> (PathBuf, Vec<Value>) {
    let file = fixture("secrets/planted.v3.jsonl");
    let manifest = std::fs::read_to_string(fixture("secrets/planted.manifest.jsonl")).unwrap();
    (file, ndjson(&manifest))
}

fn secrets(file: &Path, extra: &[&str]) -> (i32, Vec<Value>, String) {
    let out = cmd()
        .arg("-s")
        .arg(file)
        .args(["secrets", "--json", "--no-own-keys"])
        .args(extra)
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    (
        out.status.code().unwrap(),
        ndjson(&stdout),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn findings(records: &[Value]) -> Vec<&Value> {
    records.iter().filter(|r| r.get("rule").is_some()).collect()
}

#[test]
fn every_planted_secret_is_found_where_it_is_and_nothing_else() {
    let (file, manifest) = planted();
    let (code, records, stderr) = secrets(&file, &[]);
    assert_eq!(code, 1, "found something: exit 1; {stderr}");
    let found = findings(&records);
    let planted: Vec<&Value> = manifest.iter().filter(|m| !m["rule"].is_null()).collect();
    assert!(planted.len() >= 18, "the fixture plants every kind of secret");
    for m in &planted {
        assert!(
            found
                .iter()
                .any(|f| f["entry"] == m["entry"] && f["path"] == m["path"] && f["rule"] == m["rule"]),
            "not found: {m}\nfound: {found:#?}"
        );
    }
    for f in &found {
        assert!(
            planted
                .iter()
                .any(|m| f["entry"] == m["entry"] && f["path"] == m["path"]),
            "found where nothing was planted: {f}"
        );
        let preview = f["preview"].as_str().unwrap();
        let length = f["length"].as_u64().unwrap() as usize;
        let shown = preview.split('…').next().unwrap().chars().count();
        assert!(
            shown * 3 <= length,
            "the preview shows at most a third: {preview} of {length}"
        );
    }
    // The whole secret never reaches stdout or stderr.
    let out = cmd()
        .arg("-s")
        .arg(&file)
        .args(["secrets", "--no-own-keys"])
        .output()
        .unwrap();
    let all = [out.stdout, out.stderr].concat();
    let all = String::from_utf8_lossy(&all);
    for m in &planted {
        let secret = m["secret"].as_str().unwrap();
        assert!(!all.contains(secret), "printed: {secret}");
    }
    // The unreadable payloads are named.
    assert!(
        records.iter().any(|r| r.get("unscannable").is_some()),
        "redacted thinking is reported as unscannable"
    );
}

#[test]
fn the_real_sessions_hold_no_secrets() {
    for file in common::corpus_files() {
        let (code, records, stderr) = secrets(&file, &[]);
        assert_eq!(code, 0, "{}: {records:#?} {stderr}", file.display());
    }
}

/// The strings of a JSON value by path, for comparing two versions of a line.
fn strings(v: &Value, path: String, out: &mut Vec<(String, String)>) {
    match v {
        Value::String(s) => out.push((path, s.clone())),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .for_each(|(i, x)| strings(x, format!("{path}[{i}]"), out)),
        Value::Object(o) => o.iter().for_each(|(k, x)| {
            let p = if path.is_empty() {
                k.clone()
            } else {
                format!("{path}.{k}")
            };
            strings(x, p, out)
        }),
        _ => {}
    }
}

#[test]
fn redact_changes_only_the_strings_that_held_a_secret() {
    let (file, manifest) = planted();
    let (_dir, copy) = common::temp_copy(&file);
    let before = std::fs::read(&copy).unwrap();
    let (_, records, _) = secrets(&copy, &[]);
    let found = findings(&records);

    // A dry run writes nothing.
    let out = cmd()
        .args(["redact", "--dry-run", "--no-own-keys"])
        .arg(&copy)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert_eq!(std::fs::read(&copy).unwrap(), before);
    assert!(!copy.with_extension("jsonl.bak").exists());

    let out = cmd().args(["redact", "--no-own-keys"]).arg(&copy).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let after = std::fs::read(&copy).unwrap();
    let backup = copy.with_extension("jsonl.bak");
    assert_eq!(std::fs::read(&backup).unwrap(), before, "the backup is the original");
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(&backup).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o600, "the backup is readable by its owner only");
    }

    // Line by line: lines without a finding are byte-identical; in the others only the
    // strings at the findings' paths changed (and a redacted thinking text's signature).
    let old: Vec<&[u8]> = before.split(|&b| b == b'\n').collect();
    let new: Vec<&[u8]> = after.split(|&b| b == b'\n').collect();
    assert_eq!(old.len(), new.len());
    for (n, (o, w)) in old.iter().zip(&new).enumerate() {
        let line = n as u64 + 1;
        let here: Vec<&&Value> = found.iter().filter(|f| f["line"] == line).collect();
        if here.is_empty() {
            assert_eq!(o, w, "line {line} changed");
            continue;
        }
        let (mut a, mut b) = (Vec::new(), Vec::new());
        strings(&pi_session::json::jsparse::parse(o).unwrap(), String::new(), &mut a);
        strings(&pi_session::json::jsparse::parse(w).unwrap(), String::new(), &mut b);
        assert_eq!(a.len(), b.len(), "line {line}: the same strings");
        for ((pa, sa), (pb, sb)) in a.iter().zip(&b) {
            assert_eq!(pa, pb);
            if sa == sb {
                continue;
            }
            let redacted_here = here.iter().any(|f| f["path"] == pa.as_str());
            let signature = pa.ends_with(".thinkingSignature") && sb.is_empty();
            assert!(redacted_here || signature, "line {line}: {pa} changed");
            if redacted_here {
                assert!(sb.contains("[REDACTED:"), "line {line}: {pa}: {sb}");
            }
        }
    }
    for m in manifest.iter().filter(|m| !m["rule"].is_null()) {
        let secret = m["secret"].as_str().unwrap();
        assert!(
            !String::from_utf8_lossy(&after).contains(secret),
            "still there: {secret}"
        );
    }
    // A thinking block whose text was redacted has an empty signature (Pi then sends it as
    // text); the other blocks keep theirs.
    let thinking: Vec<&&Value> = found
        .iter()
        .filter(|f| f["path"].as_str().unwrap().ends_with(".thinking"))
        .collect();
    assert!(
        !thinking.is_empty(),
        "the fixture plants a secret in a signed thinking block"
    );
    for f in thinking {
        let line = new[f["line"].as_u64().unwrap() as usize - 1];
        let entry = pi_session::json::jsparse::parse(line).unwrap();
        let block_path = f["path"].as_str().unwrap().trim_end_matches(".thinking");
        let index: usize = block_path
            .trim_start_matches("message.content[")
            .trim_end_matches(']')
            .parse()
            .unwrap();
        assert_eq!(entry["message"]["content"][index]["thinkingSignature"], "", "{f}");
    }

    // The tree is as it was.
    let log = |f: &Path| common::run_ok(f, &["log", "--all", "--json"]).lines().count();
    assert_eq!(log(&copy), log(&file));
    assert_eq!(
        common::run_ok(&copy, &["rev-parse", "@"]),
        common::run_ok(&file, &["rev-parse", "@"])
    );
    let context = |f: &Path| common::run_ok(f, &["context", "--json"]).lines().count();
    assert_eq!(context(&copy), context(&file));

    // Nothing left to find, nothing left to do.
    let (code, _, _) = secrets(&copy, &[]);
    assert_eq!(code, 0);
    std::fs::remove_file(&backup).unwrap();
    let out = cmd().args(["redact", "--no-own-keys"]).arg(&copy).output().unwrap();
    assert!(out.status.success());
    assert_eq!(std::fs::read(&copy).unwrap(), after, "a second redact changes nothing");
    assert!(!backup.exists(), "and keeps no backup of a file it did not change");
}

#[test]
fn no_backup_leaves_no_copy_of_the_secrets() {
    let (file, _) = planted();
    let (dir, copy) = common::temp_copy(&file);
    let out = cmd()
        .args(["redact", "--no-own-keys", "--no-backup"])
        .arg(&copy)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names.len(), 1, "only the session is left: {names:?}");
}

#[test]
fn pi_opens_a_redacted_session_as_it_is() {
    let (file, _) = planted();
    let Some(before) = run_oracle(&file, &[]) else { return };
    let (_dir, copy) = common::temp_copy(&file);
    let out = cmd().args(["redact", "--no-own-keys"]).arg(&copy).output().unwrap();
    assert!(out.status.success());
    let pi = run_oracle(&copy, &[]).unwrap();
    assert_eq!(pi["rewritten"], false, "Pi rewrote the redacted file");
    for key in ["leaf", "at", "branch"] {
        assert_eq!(pi[key], before[key], "{key}");
    }
    // Labels name the same entries; a label's name changed only if it held a secret.
    let (old, new) = (before["labels"].as_array().unwrap(), pi["labels"].as_array().unwrap());
    assert_eq!(old.len(), new.len());
    for (o, n) in old.iter().zip(new) {
        assert_eq!(o[0], n[0], "the label is on the same entry");
        assert!(
            o[1] == n[1] || n[1].as_str().unwrap().contains("[REDACTED:"),
            "{o} → {n}"
        );
    }
    assert_eq!(
        pi["context"].as_array().map(Vec::len),
        before["context"].as_array().map(Vec::len),
        "the same number of messages in context"
    );
}

#[test]
fn export_and_clone_redact_what_they_write() {
    let (file, manifest) = planted();
    let (dir, copy) = common::temp_copy(&file);
    let before = std::fs::read(&copy).unwrap();
    let secrets_in = |text: &str| {
        manifest
            .iter()
            .filter(|m| !m["rule"].is_null())
            .filter(|m| text.contains(m["secret"].as_str().unwrap()))
            .count()
    };
    for format in ["md", "html"] {
        let plain = common::run_ok(&copy, &["export", "--format", format]);
        assert!(secrets_in(&plain) > 0, "the export without --redact shows them");
        let clean = common::run_ok(&copy, &["export", "--format", format, "--redact"]);
        assert_eq!(secrets_in(&clean), 0, "{format}");
        assert!(clean.contains("[REDACTED:"));
    }
    let out = cmd()
        .arg("-s")
        .arg(&copy)
        .args(["clone", "--redact"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let clone = PathBuf::from(String::from_utf8(out.stdout).unwrap().trim());
    let text = std::fs::read_to_string(&clone).unwrap();
    assert_eq!(secrets_in(&text), 0);
    assert_eq!(std::fs::read(&copy).unwrap(), before, "the original is untouched");
}

/// `dir/s.jsonl`: a session of one user message saying `text`.
fn one_message(dir: &Path, text: &str) -> PathBuf {
    let file = dir.join("s.jsonl");
    let header = r#"{"type":"session","version":3,"id":"s","timestamp":"2026-11-01T00:00:00.000Z","cwd":"/p"}"#;
    let message = serde_json::json!({"type": "message", "id": "a1", "parentId": null,
        "timestamp": "2026-11-01T00:00:01.000Z", "message": {"role": "user", "content": text, "timestamp": 1}});
    std::fs::write(&file, format!("{header}\n{message}\n")).unwrap();
    file
}

/// The listing cache keeps first messages: a session redacted does not leave its secret
/// there.
#[test]
fn redact_leaves_no_secret_in_the_listing_cache() {
    let dir = tempfile::tempdir().unwrap();
    let key = "own-0123456789-abcdefghij-klmnop";
    let file = one_message(dir.path(), &format!("my key is {key}"));
    // Settled, so that `ls` records it.
    std::fs::File::options()
        .write(true)
        .open(&file)
        .unwrap()
        .set_modified(std::time::SystemTime::now() - std::time::Duration::from_secs(60))
        .unwrap();
    let listing = common::cache_home().join("pi-session/listing.cache");
    let _ = std::fs::remove_file(&listing);
    let ls = || {
        let out = cmd()
            .env("PI_CODING_AGENT_SESSION_DIR", dir.path())
            .args(["ls", "--all", "--json"])
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap()
    };
    assert!(ls().contains(key));
    let cached = std::fs::read(&listing).unwrap();
    assert!(
        cached.windows(key.len()).any(|w| w == key.as_bytes()),
        "the first message is cached"
    );
    let out = cmd()
        .env("MY_SERVICE_TOKEN", key)
        .args(["redact", "--no-backup"])
        .arg(&file)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let left = std::fs::read(&listing).unwrap_or_default();
    assert!(
        !left.windows(key.len()).any(|w| w == key.as_bytes()),
        "no secret left in the cache"
    );
    assert!(!ls().contains(key));
}

#[test]
fn your_own_keys_are_found_by_value_and_never_shown() {
    let dir = tempfile::tempdir().unwrap();
    let key = "own-0123456789-abcdefghij-klmnop";
    let file = one_message(dir.path(), &format!("my key is {key}"));
    let out = cmd()
        .env("MY_SERVICE_TOKEN", key)
        .env("PI_CODING_AGENT_DIR", dir.path())
        .arg("-s")
        .arg(&file)
        .args(["secrets", "--json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(!text.contains(key));
    let records = ndjson(&text);
    assert_eq!(records.len(), 1, "{records:?}");
    assert_eq!(records[0]["path"], "message.content");
    assert!(records[0]["rule"].as_str().unwrap().contains("MY_SERVICE_TOKEN"));
    // Without them: nothing.
    let out = cmd()
        .env("MY_SERVICE_TOKEN", key)
        .arg("-s")
        .arg(&file)
        .args(["secrets", "--no-own-keys"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
}

#[test]
fn a_gitleaks_configuration_adds_rules_and_allows() {
    let dir = tempfile::tempdir().unwrap();
    let file = one_message(
        dir.path(),
        "tokens: acme_live_Q7xL2pR9vK4mN8sT and acme_live_ALLOWED0000000000",
    );
    let config = dir.path().join("gitleaks.toml");
    std::fs::write(
        &config,
        r#"
title = "team rules"
[extend]
useDefault = true

[[rules]]
id = "acme-live-token"
description = "Acme live token"
regex = '''acme_live_[A-Za-z0-9]{16,}'''
keywords = ["acme_live_"]

[allowlist]
regexes = ['''acme_live_ALLOWED0+''']
"#,
    )
    .unwrap();
    let config = config.to_str().unwrap().to_owned();
    let (code, records, stderr) = secrets(&file, &["--config", &config]);
    assert_eq!(code, 1, "{stderr}");
    let found = findings(&records);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0]["rule"], "acme-live-token");
    // A configuration that is not one is an error naming the file.
    std::fs::write(dir.path().join("bad.toml"), "[[rules]]\nid = 3\n").unwrap();
    let bad = dir.path().join("bad.toml");
    let (code, _, stderr) = secrets(&file, &["--config", bad.to_str().unwrap()]);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains("bad.toml"), "{stderr}");
}

/// Gitleaks' upstream default configuration (tests/fixtures/gitleaks-default.toml) loads,
/// literal braces in its regexes read as Go reads them, and finds what it should.
#[test]
fn the_upstream_gitleaks_configuration_loads_and_finds() {
    let config = fixture("gitleaks-default.toml");
    let config = config.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let clean = one_message(dir.path(), "please rename the helper and run the tests");
    let (code, records, stderr) = secrets(&clean, &["--config", config]);
    assert_eq!(code, 0, "{stderr}");
    assert!(findings(&records).is_empty(), "{records:?}");

    // Built here so that the repository holds no credential-shaped string.
    let pat = format!("ghp_{}", "R8vXq2Lm9TzK4wYc7NbP3sHd6JfG1aUe5QoE");
    let aws = format!("AKIA{}", "Q4Z7XK2LMN3PRT6V");
    let dir2 = tempfile::tempdir().unwrap();
    let file = one_message(
        dir2.path(),
        &format!(
            "export GITHUB_TOKEN={pat}\naws configure set aws_access_key_id {aws}\n\
             curl -u \"{{{{ user }}}}:{{{{ password }}}}\" https://example.com/api"
        ),
    );
    let (code, records, stderr) = secrets(&file, &["--config", config]);
    assert_eq!(code, 1, "{stderr}");
    let rules: Vec<&str> = findings(&records).iter().map(|r| r["rule"].as_str().unwrap()).collect();
    assert!(rules.contains(&"github-pat"), "{rules:?}");
    assert!(rules.contains(&"aws-access-token"), "{rules:?}");
    // A template placeholder, allowed by one of the rules whose regex has literal braces.
    assert!(!rules.contains(&"curl-auth-user"), "{rules:?}");
}

/// Redacting through a symbolic link takes the secrets out of the file it points to (with
/// --no-backup, out of the file system's view); the link stays a link.
#[test]
fn redact_through_a_symlink_redacts_the_file() {
    let (file, _) = planted();
    let (want_dir, want) = common::temp_copy(&file);
    let out = cmd()
        .args(["redact", "--no-own-keys", "--no-backup"])
        .arg(&want)
        .output()
        .unwrap();
    assert!(out.status.success());
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().join("real.jsonl");
    std::fs::copy(&file, &real).unwrap();
    let link = dir.path().join("link.jsonl");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let out = cmd()
        .args(["redact", "--no-own-keys", "--no-backup"])
        .arg(&link)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    assert_eq!(std::fs::read(&real).unwrap(), std::fs::read(&want).unwrap());
    let mut names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names, ["link.jsonl", "real.jsonl"], "no copy of the secrets left");
    drop(want_dir);
}

/// A redaction the disk has no room for says what failed and why, and changes nothing.
#[test]
fn redact_on_a_full_disk_reports_the_os_error() {
    let (file, _) = planted();
    let (dir, copy) = common::temp_copy(&file);
    let before = std::fs::read(&copy).unwrap();
    let r = crate::cli_repair::run_with_full_disk(&["redact".as_ref(), "--no-own-keys".as_ref(), copy.as_os_str()]);
    assert_eq!(r.code, 1, "{} {}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains("cannot write ") && r.stderr.contains("File too large"),
        "{}",
        r.stderr
    );
    assert_eq!(std::fs::read(&copy).unwrap(), before);
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
}

/// A credential used as an object key (a map keyed by tokens) is found, shown masked in
/// its path, and redacted in the key; two keys redacted in one object stay two members, and
/// the line stays JSON with every value kept (issue 34).
#[test]
fn a_secret_used_as_an_object_key_is_found_and_redacted() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("s.jsonl");
    let first = format!("{}{}", "ghp_", "Zq8XwB3vK9mT2pL7rN4sD6fH1jG5cY0aE8uQ");
    let second = format!("{}{}", "ghp_", "Mn3BvC8xZ1lK6jH4gF9dS2aP7oI5uY0tR3eW");
    let header = r#"{"type":"session","version":3,"id":"s","timestamp":"2026-11-01T00:00:00.000Z","cwd":"/p"}"#;
    let message = serde_json::json!({"type": "message", "id": "a1", "parentId": null,
        "timestamp": "2026-11-01T00:00:01.000Z", "message": {"role": "assistant", "content": [
            {"type": "toolCall", "id": "c1", "name": "remember",
             "arguments": {"tokens": {first.as_str(): "personal", second.as_str(): "work"}}}],
        "api": "x", "provider": "p", "model": "m", "stopReason": "stop", "timestamp": 1}});
    std::fs::write(&file, format!("{header}\n{message}\n")).unwrap();

    let (code, records, stderr) = secrets(&file, &[]);
    assert_eq!(code, 1, "found: {stderr}");
    let found = findings(&records);
    assert_eq!(found.len(), 2, "{records:?}");
    let out = serde_json::to_string(&records).unwrap();
    assert!(
        !out.contains(&first) && !out.contains(&second),
        "no secret shown: {out}"
    );
    for f in &found {
        let path = f["path"].as_str().unwrap();
        assert!(path.starts_with("message.content[0].arguments.tokens[\"ghp_"), "{path}");
        assert!(path.ends_with("…(40 chars)\"]"), "{path}");
    }

    let out = cmd().args(["redact", "--no-backup"]).arg(&file).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(!text.contains(&first) && !text.contains(&second), "{text}");
    let line: Value = serde_json::from_str(text.lines().nth(1).unwrap()).unwrap();
    let tokens = &line["message"]["content"][0]["arguments"]["tokens"];
    let rule = found[0]["rule"].as_str().unwrap();
    assert_eq!(tokens[format!("[REDACTED:{rule}]")], "personal", "{tokens}");
    assert_eq!(tokens[format!("[REDACTED:{rule}#2]")], "work", "{tokens}");
    assert_eq!(text.lines().next().unwrap(), header, "other lines as they were");
    let (_, after, _) = secrets(&file, &[]);
    assert!(findings(&after).is_empty(), "{after:?}");
}
