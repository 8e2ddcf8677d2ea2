//! `pi-session clone` and `pi-session fork`: new session files made from a branch of
//! another, as Pi's /clone and /fork write them; the source is never touched.

use crate::common;

use common::{Run, cmd, corpus_files, example, ndjson, rev_parse, run, run_ok, temp_copy};
use serde_json::{Value, json};
use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};
use tempfile::TempDir;

/// A temporary directory holding `text` as `name`.
fn temp_session(name: &str, text: &str) -> (TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join(name);
    fs::write(&path, text).unwrap();
    (dir, path)
}

fn listing(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// Runs clone/fork on `source`, which must succeed without touching it and create exactly
/// one file; returns (the new file, the run).
fn make(source: &Path, args: &[&str]) -> (PathBuf, Run) {
    let before = fs::read(source).unwrap();
    let dir_before = listing(source.parent().unwrap());
    let r = run(source, args);
    assert_eq!(r.code, 0, "{args:?}: {}", r.stderr);
    assert!(fs::read(source).unwrap() == before, "{args:?} changed the source");
    let path = if args.contains(&"--json") {
        PathBuf::from(ndjson(&r.stdout)[0]["path"].as_str().unwrap())
    } else {
        assert_eq!(r.stdout.lines().count(), 1, "{}", r.stdout);
        assert!(r.stdout.ends_with('\n'));
        PathBuf::from(r.stdout.trim_end_matches('\n'))
    };
    assert!(path.is_absolute(), "{}", path.display());
    assert!(path.is_file(), "{}", path.display());
    let dir_after = listing(source.parent().unwrap());
    if path.parent() == source.parent() {
        assert_eq!(dir_after.len(), dir_before.len() + 1, "{dir_after:?}");
    } else {
        assert_eq!(dir_after, dir_before);
    }
    (path, r)
}

/// Runs a command on `source` that must fail with exit 1 and create no file.
fn refused(source: &Path, args: &[&str]) -> Run {
    let before = fs::read(source).unwrap();
    let dir_before = listing(source.parent().unwrap());
    let r = run(source, args);
    assert_eq!(r.code, 1, "{args:?}: {} {}", r.stdout, r.stderr);
    assert!(r.stdout.is_empty(), "{}", r.stdout);
    assert!(fs::read(source).unwrap() == before);
    assert_eq!(listing(source.parent().unwrap()), dir_before, "{args:?} left a file");
    r
}

fn lines(path: &Path) -> Vec<String> {
    let text = fs::read_to_string(path).unwrap();
    assert!(text.ends_with('\n'), "no final newline");
    text.lines().map(str::to_owned).collect()
}

/// The line of the entry with this id in `path`, byte for byte.
fn source_line(path: &Path, id: &str) -> String {
    let needle = format!("\"id\":\"{id}\"");
    let found: Vec<String> = lines(path).into_iter().filter(|l| l.contains(&needle)).collect();
    assert_eq!(found.len(), 1, "{id}");
    found[0].clone()
}

fn is_iso_millis(s: &str) -> bool {
    let pattern = "dddd-dd-ddTdd:dd:dd.dddZ";
    s.len() == pattern.len()
        && s.bytes().zip(pattern.bytes()).all(|(c, p)| match p {
            b'd' => c.is_ascii_digit(),
            _ => c == p,
        })
}

/// Checks the new file's name and header line; returns the header.
fn check_header(new: &Path, source_abs: &Path, cwd: &str) -> Value {
    let first = lines(new).remove(0);
    let h: Value = serde_json::from_str(&first).unwrap();
    let id = h["id"].as_str().unwrap();
    let ts = h["timestamp"].as_str().unwrap();
    assert_eq!(
        first,
        format!(
            r#"{{"type":"session","version":3,"id":"{id}","timestamp":"{ts}","cwd":{},"parentSession":{}}}"#,
            json!(cwd),
            json!(source_abs.to_str().unwrap())
        )
    );
    assert!(is_iso_millis(ts), "{ts}");
    let uuid = uuid::Uuid::parse_str(id).unwrap();
    assert_eq!(uuid.get_version_num(), 7, "{id}");
    assert_eq!(uuid.hyphenated().to_string(), id);
    // The uuid's time is the header's time.
    let (secs, nanos) = uuid.get_timestamp().unwrap().to_unix();
    let uuid_ms = secs as i64 * 1000 + nanos as i64 / 1_000_000;
    let t: jiff::Timestamp = ts.parse().unwrap();
    assert!((uuid_ms - t.as_millisecond()).abs() < 2000, "{id} vs {ts}");
    h
}

/// A default-placed file: in the source's directory, named `<timestamp>_<id>.jsonl`.
fn check_default_name(new: &Path, source: &Path, header: &Value) {
    assert_eq!(new.parent(), source.parent());
    let name = new.file_name().unwrap().to_str().unwrap();
    let expected = format!(
        "{}_{}.jsonl",
        header["timestamp"].as_str().unwrap().replace([':', '.'], "-"),
        header["id"].as_str().unwrap()
    );
    assert_eq!(name, expected);
}

fn is_entry_id(s: &str) -> bool {
    s.len() == 8 && s.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// Checks a re-created label line; returns its id.
fn check_label(line: &str, parent: &str, timestamp: &str, target: &str, name: &str, taken: &HashSet<String>) -> String {
    let v: Value = serde_json::from_str(line).unwrap();
    let id = v["id"].as_str().unwrap().to_owned();
    assert!(is_entry_id(&id), "{id}");
    assert!(!taken.contains(&id), "{id} is taken");
    assert_eq!(
        line,
        format!(
            r#"{{"type":"label","id":"{id}","parentId":"{parent}","timestamp":"{timestamp}","targetId":"{target}","label":"{name}"}}"#
        )
    );
    id
}

fn all_ids(path: &Path) -> HashSet<String> {
    lines(path)
        .iter()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter_map(|v| v["id"].as_str().map(str::to_owned))
        .collect()
}

fn context(file: &Path, rev: Option<&str>) -> String {
    let mut args = vec!["context", "--json"];
    args.extend(rev);
    run_ok(file, &args)
}

#[test]
fn clone_copies_the_branch_of_at_without_labels_rechained() {
    let (_dir, src) = temp_copy(&example());
    let (new, _) = make(&src, &["clone"]);
    let h = check_header(&new, &src, "/home/user/proj");
    check_default_name(&new, &src, &h);
    let l = lines(&new);
    assert_eq!(l.len(), 1 + 4 + 1, "{l:#?}");
    // Lines that needed no change are the source's bytes.
    for (i, id) in ["cb75110e", "9e4e00c3", "80fbf1f2"].iter().enumerate() {
        assert_eq!(l[1 + i], source_line(&src, id), "{id}");
    }
    // b8731d22 hung below the label 6fe7bd1a: it now hangs below 80fbf1f2, and only
    // parentId changed.
    let b873 = source_line(&src, "b8731d22");
    assert!(b873.contains(r#""parentId":"6fe7bd1a""#));
    assert_eq!(
        l[4],
        b873.replace(r#""parentId":"6fe7bd1a""#, r#""parentId":"80fbf1f2""#)
    );
    // The label of a copied entry, re-created at the end with its original timestamp.
    check_label(
        &l[5],
        "b8731d22",
        "2026-11-02T10:01:33.000Z",
        "80fbf1f2",
        "start",
        &all_ids(&src),
    );
    // The clone reads as the source at REV.
    assert_eq!(rev_parse(&new, "@"), "b8731d22");
    assert_eq!(rev_parse(&new, "start"), "80fbf1f2");
    assert_eq!(context(&new, None), context(&src, None));
}

#[test]
fn clone_rev_with_labels_set_cleared_and_off_the_path() {
    let (_dir, src) = temp_copy(&example());
    let green = [
        "cb75110e", "9e4e00c3", "80fbf1f2", "7affd800", "f49bcd6b", "30af4c7e", "b7b227e2", "d679de06", "d4664141",
        "f2707ba7", "d2e5793f",
    ];
    let (new, r) = make(&src, &["clone", "green", "--json"]);
    let out = ndjson(&r.stdout);
    let keys: Vec<&str> = out[0].as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["path", "parentSession", "entries", "message"]);
    assert_eq!(
        out[0],
        json!({"path": new.to_str().unwrap(), "parentSession": src.to_str().unwrap(), "entries": 13, "message": null})
    );
    let h = check_header(&new, &src, "/home/user/proj");
    check_default_name(&new, &src, &h);
    let l = lines(&new);
    assert_eq!(l.len(), 1 + green.len() + 2);
    for (i, id) in green.iter().enumerate() {
        assert_eq!(l[1 + i], source_line(&src, id), "{id}");
    }
    // Labels in the order Pi's map keeps them: `green` was set before `start`;
    // `explained` (on 30af4c7e) was cleared.
    let mut taken = all_ids(&src);
    let g = check_label(
        &l[12],
        "d2e5793f",
        "2026-11-02T10:00:33.000Z",
        "d2e5793f",
        "green",
        &taken,
    );
    taken.insert(g.clone());
    check_label(&l[13], &g, "2026-11-02T10:01:33.000Z", "80fbf1f2", "start", &taken);
    assert_eq!(rev_parse(&new, "@"), "d2e5793f");
    assert_eq!(context(&new, None), context(&src, Some("d2e5793f")));
}

#[test]
fn clone_through_a_label_in_the_middle() {
    let (_dir, src) = temp_copy(&example());
    let (new, _) = make(&src, &["clone", "e3472b97"]);
    let l = lines(&new);
    let ids = [
        "cb75110e", "9e4e00c3", "80fbf1f2", "7affd800", "f49bcd6b", "30af4c7e", "1ecdd056", "42d8d20f", "a3d28170",
        "97f4b9e9", "e3472b97",
    ];
    assert_eq!(l.len(), 1 + ids.len() + 1);
    for (i, id) in ids.iter().enumerate() {
        let original = source_line(&src, id);
        if *id == "1ecdd056" {
            // Its parent was the label 305e383a.
            assert_eq!(
                l[1 + i],
                original.replace(r#""parentId":"305e383a""#, r#""parentId":"30af4c7e""#)
            );
        } else {
            assert_eq!(l[1 + i], original, "{id}");
        }
    }
    check_label(
        &l[12],
        "e3472b97",
        "2026-11-02T10:01:33.000Z",
        "80fbf1f2",
        "start",
        &all_ids(&src),
    );
    assert_eq!(rev_parse(&new, "@"), "e3472b97");
    assert_eq!(context(&new, None), context(&src, Some("e3472b97")));
}

#[test]
fn clone_of_the_labels_fixture() {
    let src_fixture = common::fixture("labels.jsonl");
    let (_dir, src) = temp_copy(&src_fixture);
    let (new, _) = make(&src, &["clone"]);
    check_header(&new, &src, "/home/dev/tokenizer");
    let l = lines(&new);
    assert_eq!(l.len(), 1 + 6 + 2);
    assert_eq!(l[1], source_line(&src, "1a2b3c01"));
    assert_eq!(l[2], source_line(&src, "1a2b3c02"));
    assert_eq!(
        l[3],
        source_line(&src, "1a2b3c03").replace(r#""parentId":"1abe1001""#, r#""parentId":"1a2b3c02""#)
    );
    assert_eq!(l[4], source_line(&src, "1a2b3c04"));
    assert_eq!(
        l[5],
        source_line(&src, "1a2b3c05").replace(r#""parentId":"1abe1002""#, r#""parentId":"1a2b3c04""#)
    );
    assert_eq!(l[6], source_line(&src, "1a2b3c06"));
    // root-cause: the place of its first setting ("diagnosis"), the timestamp of the
    // entry that set it last. "question" and "fix-request" were cleared.
    let mut taken = all_ids(&src);
    let a = check_label(
        &l[7],
        "1a2b3c06",
        "2026-03-04T15:00:21.000Z",
        "1a2b3c04",
        "root-cause",
        &taken,
    );
    taken.insert(a.clone());
    check_label(&l[8], &a, "2026-03-04T15:00:25.000Z", "1a2b3c06", "done", &taken);
    assert_eq!(rev_parse(&new, "@"), "1a2b3c06");
    assert_eq!(context(&new, None), context(&src, None));
}

#[test]
fn clone_moves_a_compaction_kept_from_a_removed_label() {
    let text = concat!(
        r#"{"type":"session","version":3,"id":"019a0000-0000-7000-8000-000000000001","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/home/dev/c"}"#,
        "\n",
        r#"{"type":"message","id":"c0000001","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"first question","timestamp":1767225601000}}"#,
        "\n",
        r#"{"type":"label","id":"c0000002","parentId":"c0000001","timestamp":"2026-01-01T00:00:02.000Z","targetId":"c0000001","label":"q"}"#,
        "\n",
        r#"{"type":"message","id":"c0000003","parentId":"c0000002","timestamp":"2026-01-01T00:00:03.000Z","message":{"role":"assistant","content":[{"type":"text","text":"first answer"}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1767225603000}}"#,
        "\n",
        r#"{"type":"compaction","id":"c0000004","parentId":"c0000003","timestamp":"2026-01-01T00:00:04.000Z","summary":"asked and answered","firstKeptEntryId":"c0000002","tokensBefore":100}"#,
        "\n",
        r#"{"type":"message","id":"c0000005","parentId":"c0000004","timestamp":"2026-01-01T00:00:05.000Z","message":{"role":"user","content":"second question","timestamp":1767225605000}}"#,
        "\n",
    );
    let (_dir, src) = temp_session("c.jsonl", text);
    let (new, _) = make(&src, &["clone"]);
    let l = lines(&new);
    assert_eq!(l.len(), 1 + 4 + 1);
    assert_eq!(l[1], source_line(&src, "c0000001"));
    assert_eq!(
        l[2],
        source_line(&src, "c0000003").replace(r#""parentId":"c0000002""#, r#""parentId":"c0000001""#)
    );
    assert_eq!(
        l[3],
        source_line(&src, "c0000004").replace(r#""firstKeptEntryId":"c0000002""#, r#""firstKeptEntryId":"c0000003""#)
    );
    assert_eq!(l[4], source_line(&src, "c0000005"));
    check_label(
        &l[5],
        "c0000005",
        "2026-01-01T00:00:02.000Z",
        "c0000001",
        "q",
        &all_ids(&src),
    );
    assert_eq!(context(&new, None), context(&src, None));
}

#[test]
fn clone_to_an_output_path() {
    let (dir, src) = temp_copy(&example());
    let out = dir.path().join("sub-copy.jsonl");
    let (new, r) = make(&src, &["clone", "-o", out.to_str().unwrap(), "d679de06"]);
    assert_eq!(new, out);
    assert_eq!(r.stdout, format!("{}\n", out.display()));
    check_header(&new, &src, "/home/user/proj");
    assert_eq!(rev_parse(&new, "@"), "d679de06");
    assert_eq!(context(&new, None), context(&src, Some("d679de06")));

    // An existing file is never replaced, and no temporary file is left behind.
    let other = dir.path().join("other.jsonl");
    fs::write(&other, "precious\n").unwrap();
    for args in [
        &["clone", "-o", other.to_str().unwrap()][..],
        &["clone", "--output", out.to_str().unwrap()][..],
        &["fork", "-o", other.to_str().unwrap(), "80fbf1f2"][..],
    ] {
        let before_new = fs::read(&new).unwrap();
        let r = refused(&src, args);
        assert!(r.stderr.contains("exists"), "{}", r.stderr);
        assert!(fs::read(&new).unwrap() == before_new);
    }
    assert_eq!(fs::read_to_string(&other).unwrap(), "precious\n");
}

#[test]
fn relative_paths_are_made_absolute() {
    let (dir, _) = temp_copy(&example());
    let base = dir.path().canonicalize().unwrap();
    let out = cmd()
        .current_dir(dir.path())
        .args(["-s", "session.jsonl", "clone", "--json", "-o", "rel.jsonl"])
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let v = &ndjson(&String::from_utf8(out.stdout).unwrap())[0];
    assert_eq!(v["path"], base.join("rel.jsonl").to_str().unwrap());
    assert_eq!(v["parentSession"], base.join("session.jsonl").to_str().unwrap());
    check_header(&base.join("rel.jsonl"), &base.join("session.jsonl"), "/home/user/proj");
}

#[test]
fn clones_of_corpus_sessions_read_as_their_source() {
    for src in corpus_files() {
        let name = src.file_name().unwrap().to_string_lossy().into_owned();
        let (_dir, copy) = temp_copy(&src);
        if name.contains(".v1.") {
            let r = refused(&copy, &["clone"]);
            let repair = format!("`pi-session -s {} repair`", copy.display());
            assert!(r.stderr.contains(&repair), "{}", r.stderr);
            continue;
        }
        let (new, _) = make(&copy, &["clone"]);
        let cwd: Value = serde_json::from_str(&lines(&copy)[0]).unwrap();
        check_header(&new, &copy, cwd["cwd"].as_str().unwrap());
        assert_eq!(rev_parse(&new, "@"), rev_parse(&copy, "@"), "{name}");
        assert_eq!(context(&new, None), context(&copy, None), "{name}");
        // No label entries survive in the body; every copied line keeps the source's
        // bytes except for parentId.
        let src_lines: HashSet<String> = lines(&copy).into_iter().collect();
        let mut labels_started = false;
        for line in &lines(&new)[1..] {
            let v: Value = serde_json::from_str(line).unwrap();
            if v["type"] == "label" {
                labels_started = true;
                continue;
            }
            assert!(!labels_started, "{name}: an entry after the re-created labels");
            if !src_lines.contains(line) {
                let id = v["id"].as_str().unwrap();
                let original: Value = serde_json::from_str(&source_line(&copy, id)).unwrap();
                let mut patched = original.clone();
                patched["parentId"] = v["parentId"].clone();
                if v["type"] == "compaction" {
                    patched["firstKeptEntryId"] = v["firstKeptEntryId"].clone();
                }
                assert_eq!(v, patched, "{name}: {id}");
            }
        }
    }
}

#[test]
fn fork_holds_the_path_to_the_parent_of_a_user_message() {
    let (_dir, src) = temp_copy(&example());
    let (new, r) = make(&src, &["fork", "80fbf1f2"]);
    let h = check_header(&new, &src, "/home/user/proj");
    check_default_name(&new, &src, &h);
    let l = lines(&new);
    assert_eq!(l[1..], [source_line(&src, "cb75110e"), source_line(&src, "9e4e00c3")]);
    assert!(
        r.stderr.contains("Read src/parser.rs and explain the tokenizer."),
        "{}",
        r.stderr
    );
    assert!(r.stderr.contains("forked before this message"), "{}", r.stderr);
    assert_eq!(rev_parse(&new, "@"), "9e4e00c3");
    assert_eq!(context(&new, None), context(&src, Some("80fbf1f2^")));
}

#[test]
fn fork_json_and_labels_on_the_path() {
    let (_dir, src) = temp_copy(&example());
    let (new, r) = make(&src, &["fork", "--json", "d679de06"]);
    let out = ndjson(&r.stdout);
    let keys: Vec<&str> = out[0].as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["path", "parentSession", "entries", "message"]);
    assert_eq!(
        out[0],
        json!({"path": new.to_str().unwrap(), "parentSession": src.to_str().unwrap(), "entries": 8,
               "message": "Refactor it to use an iterator, and keep the final token."})
    );
    let l = lines(&new);
    let ids = [
        "cb75110e", "9e4e00c3", "80fbf1f2", "7affd800", "f49bcd6b", "30af4c7e", "b7b227e2",
    ];
    for (i, id) in ids.iter().enumerate() {
        assert_eq!(l[1 + i], source_line(&src, id), "{id}");
    }
    check_label(
        &l[8],
        "b7b227e2",
        "2026-11-02T10:01:33.000Z",
        "80fbf1f2",
        "start",
        &all_ids(&src),
    );
    assert_eq!(l.len(), 9);
    assert_eq!(rev_parse(&new, "@"), "b7b227e2");
    assert_eq!(context(&new, None), context(&src, Some("d679de06^")));
}

#[test]
fn fork_of_a_message_below_a_label() {
    // 1ecdd056's parent is the label 305e383a: the fork ends at the label's parent.
    let (_dir, src) = temp_copy(&example());
    let (new, _) = make(&src, &["fork", "1ecdd056"]);
    let l = lines(&new);
    let ids = ["cb75110e", "9e4e00c3", "80fbf1f2", "7affd800", "f49bcd6b", "30af4c7e"];
    assert_eq!(l.len(), 1 + ids.len() + 1);
    for (i, id) in ids.iter().enumerate() {
        assert_eq!(l[1 + i], source_line(&src, id), "{id}");
    }
    assert_eq!(rev_parse(&new, "@"), "30af4c7e");
    assert_eq!(context(&new, None), context(&src, Some("1ecdd056^")));
}

#[test]
fn fork_refuses_anything_but_a_user_message() {
    let (_dir, src) = temp_copy(&example());
    for rev in [
        "b8731d22", "@", "6fe7bd1a", "cb75110e", "f49bcd6b", "b7b227e2", "d426da40", "30b6b253", "5f7822f3",
    ] {
        let r = refused(&src, &["fork", rev]);
        assert!(r.stderr.contains("is not a user message"), "{rev}: {}", r.stderr);
        let clone = format!("`pi-session -s {} clone ", src.display());
        assert!(r.stderr.contains(&clone), "{rev}: {}", r.stderr);
    }
    let r = refused(&src, &["fork", "b8731d22"]);
    assert!(
        r.stderr.contains(&format!(
            "to copy the conversation up to and including this entry, use `pi-session -s {} clone b8731d22`",
            src.display()
        )),
        "{}",
        r.stderr
    );
    let r = refused(&src, &["fork", "nosuchrev"]);
    assert!(r.stderr.contains("unknown revision"), "{}", r.stderr);
}

const ROOT_USER: &str = concat!(
    r#"{"type":"session","version":3,"id":"019a0000-0000-7000-8000-0000000000aa","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/home/dev/root"}"#,
    "\n",
    r#"{"type":"message","id":"aa000001","parentId":null,"timestamp":"2026-01-01T00:00:01.000Z","message":{"role":"user","content":"hello there","timestamp":1767225601000}}"#,
    "\n",
    r#"{"type":"message","id":"aa000002","parentId":"aa000001","timestamp":"2026-01-01T00:00:02.000Z","message":{"role":"assistant","content":[{"type":"text","text":"Hi."}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{"input":1,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":2,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}},"stopReason":"stop","timestamp":1767225602000}}"#,
    "\n",
    r#"{"type":"label","id":"aa000003","parentId":"aa000002","timestamp":"2026-01-01T00:00:03.000Z","targetId":"aa000001","label":"hello"}"#,
    "\n",
    r#"{"type":"message","id":"aa000004","parentId":"aa000003","timestamp":"2026-01-01T00:00:04.000Z","message":{"role":"user","content":[{"type":"text","text":"first part, "},{"type":"image","data":"iVBORw0KGgo=","mimeType":"image/png"},{"type":"text","text":"second part"}],"timestamp":1767225604000}}"#,
    "\n",
);

#[test]
fn fork_of_a_root_user_message_is_header_only() {
    let (_dir, src) = temp_session("root.jsonl", ROOT_USER);
    let (new, r) = make(&src, &["fork", "--json", "hello"]);
    assert_eq!(
        ndjson(&r.stdout),
        [
            json!({"path": new.to_str().unwrap(), "parentSession": src.to_str().unwrap(), "entries": 0,
                "message": "hello there"})
        ]
    );
    assert!(r.stderr.contains("hello there"), "{}", r.stderr);
    let h = check_header(&new, &src, "/home/dev/root");
    check_default_name(&new, &src, &h);
    assert_eq!(lines(&new).len(), 1);
    let at = run(&new, &["rev-parse", "@"]);
    assert_eq!(at.code, 1);
    assert!(at.stderr.contains("empty"), "{}", at.stderr);
    assert_eq!(context(&new, None), "");
}

#[test]
fn fork_message_joins_text_parts_without_separator() {
    let (_dir, src) = temp_session("root.jsonl", ROOT_USER);
    let (new, r) = make(&src, &["fork", "--json", "aa000004"]);
    let out = &ndjson(&r.stdout)[0];
    assert_eq!(out["message"], "first part, second part");
    assert_eq!(out["entries"], 3);
    let l = lines(&new);
    assert_eq!(l[1], source_line(&src, "aa000001"));
    assert_eq!(l[2], source_line(&src, "aa000002"));
    check_label(
        &l[3],
        "aa000002",
        "2026-01-01T00:00:03.000Z",
        "aa000001",
        "hello",
        &all_ids(&src),
    );
    assert_eq!(rev_parse(&new, "@"), "aa000002");
    assert_eq!(context(&new, None), context(&src, Some("aa000004^")));
    // Human mode: only the path on stdout, the text on stderr.
    let (_, r) = make(&src, &["fork", "aa000004"]);
    assert!(r.stderr.contains("first part, second part"), "{}", r.stderr);
}

#[test]
fn clone_of_an_empty_position_is_header_only() {
    let (_dir, src) = temp_copy(&example());
    run_ok(&src, &["checkout", "--empty"]);
    let (new, r) = make(&src, &["clone", "@", "--json"]);
    assert_eq!(ndjson(&r.stdout)[0]["entries"], 0);
    check_header(&new, &src, "/home/user/proj");
    assert_eq!(lines(&new).len(), 1);
    assert_eq!(context(&new, None), "");
    // Without REV, Pi's leaf: the checkout record, which /clone copies as it is.
    let (new, r) = make(&src, &["clone", "--json"]);
    assert_eq!(ndjson(&r.stdout)[0]["entries"], 1);
    assert_eq!(common::last_entry(&new)["customType"], "pi-session.checkout");
    assert_eq!(common::last_entry(&new)["parentId"], serde_json::Value::Null);
    assert_eq!(context(&new, None), "");
}

#[test]
fn clone_without_rev_keeps_a_trailing_checkout_record_as_pi_does() {
    // Reproducer from the outside comparison: a checkout record is the last entry.
    let (_dir, src) = temp_copy(&common::fixture("outside/fid-clone-trailing-checkout.jsonl"));
    let (new, r) = make(&src, &["clone", "--json"]);
    assert_eq!(ndjson(&r.stdout)[0]["entries"], 3);
    let l = lines(&new);
    let text = fs::read_to_string(&src).unwrap();
    let source: Vec<&str> = text.lines().collect();
    // The record and the path it stands on, byte for byte; the side message is not copied.
    assert_eq!(l[1..], [source[1], source[2], source[5]]);
    assert_eq!(context(&new, None), context(&src, None));
    // `@` names the position: the record is left out.
    let (new, r) = make(&src, &["clone", "@", "--json"]);
    assert_eq!(ndjson(&r.stdout)[0]["entries"], 2);
    assert_eq!(lines(&new)[1..], [source[1], source[2]]);
}

#[test]
fn clone_skips_unreadable_lines_and_refuses_cycles() {
    let (_dir, src) = temp_copy(&common::fixture("torn-last-line.jsonl"));
    let (new, _) = make(&src, &["clone"]);
    let l = lines(&new);
    let text = fs::read_to_string(&src).unwrap();
    let good: Vec<&str> = text.lines().skip(1).take(4).collect();
    assert_eq!(l[1..], good);
    assert_eq!(context(&new, None), context(&src, None));

    let (_dir, src) = temp_copy(&common::fixture("malformed-middle.jsonl"));
    let (new, _) = make(&src, &["clone"]);
    assert!(!fs::read_to_string(&new).unwrap().contains("deadbeef"));
    assert_eq!(lines(&new).len(), 1 + 5);
    assert_eq!(context(&new, None), context(&src, None));

    let (_dir, src) = temp_copy(&common::fixture("cycle.jsonl"));
    let r = refused(&src, &["clone"]);
    assert!(r.stderr.contains("cycle"), "{}", r.stderr);
    let (new, _) = make(&src, &["clone", "c7c70002"]);
    assert_eq!(lines(&new).len(), 1 + 2);
}

#[test]
fn output_dash_is_stdout() {
    let (dir, src) = temp_copy(&example());
    let listing_before = listing(dir.path());
    for (args, copied) in [
        (&["clone", "-o", "-", "d679de06"][..], "d679de06"),
        (&["fork", "--output", "-", "d679de06"][..], "b7b227e2"),
    ] {
        let before = fs::read(&src).unwrap();
        let out = cmd()
            .current_dir(dir.path())
            .arg("-s")
            .arg(&src)
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        assert_eq!(fs::read(&src).unwrap(), before);
        // The session itself, as the file would hold it; no file named `-`, no other file.
        assert_eq!(listing(dir.path()), listing_before, "{args:?}");
        let text = String::from_utf8(out.stdout).unwrap();
        let file = dir.path().join("from-stdout.jsonl");
        fs::write(&file, &text).unwrap();
        check_header(&file, &src, "/home/user/proj");
        assert_eq!(rev_parse(&file, "@"), copied);
        assert_eq!(context(&file, None), context(&src, Some(copied)));
        fs::remove_file(&file).unwrap();
    }
    // --json reports a file: with -o - there is none.
    let r = run(&src, &["clone", "-o", "-", "--json"]);
    assert_eq!(r.code, 2, "{}", r.stderr);
    assert!(r.stdout.is_empty());
    assert!(r.stderr.contains("-o -"), "{}", r.stderr);
    assert_eq!(listing(dir.path()), listing_before);
}

#[test]
fn an_existing_output_is_replaced_only_with_force() {
    use std::os::unix::fs::PermissionsExt;
    let (dir, src) = temp_copy(&example());
    let other = dir.path().join("other.jsonl");
    fs::write(&other, "precious\n").unwrap();
    fs::set_permissions(&other, fs::Permissions::from_mode(0o600)).unwrap();
    let o = other.to_str().unwrap();
    for args in [&["clone", "-o", o][..], &["fork", "-o", o, "d679de06"][..]] {
        let r = refused(&src, args);
        assert!(
            r.stderr.starts_with(&format!("error: {o} already exists\n")),
            "{}",
            r.stderr
        );
        assert!(r.stderr.contains("hint: add --force to replace it"), "{}", r.stderr);
        assert!(
            !r.stderr.contains("cannot read") && !r.stderr.contains("-s"),
            "{}",
            r.stderr
        );
    }
    assert_eq!(fs::read_to_string(&other).unwrap(), "precious\n");
    for (args, at) in [
        (&["clone", "-o", o, "--force", "d679de06"][..], "d679de06"),
        (&["fork", "-f", "-o", o, "d679de06"][..], "b7b227e2"),
    ] {
        let before = listing(dir.path());
        let r = run(&src, args);
        assert_eq!(r.code, 0, "{}", r.stderr);
        assert_eq!(r.stdout, format!("{o}\n"));
        // Replaced in place: no temporary file left, the old file's permissions kept.
        assert_eq!(listing(dir.path()), before);
        check_header(&other, &src, "/home/user/proj");
        assert_eq!(rev_parse(&other, "@"), at);
        assert_eq!(fs::metadata(&other).unwrap().permissions().mode() & 0o777, 0o600);
    }
    // --force with a new path just creates it.
    let fresh = dir.path().join("fresh.jsonl");
    let (new, _) = make(&src, &["clone", "--force", "-o", fresh.to_str().unwrap()]);
    assert_eq!(new, fresh);
}

#[test]
fn paths_are_printed_exactly_into_a_pipe() {
    // A tab in a directory name: escaped, the printed path would not exist.
    let base = tempfile::tempdir().unwrap();
    let dir = base.path().join("tab\there");
    fs::create_dir(&dir).unwrap();
    let src = dir.join("session.jsonl");
    fs::copy(example(), &src).unwrap();
    let out = cmd().arg("-s").arg(&src).arg("clone").output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let printed = String::from_utf8(out.stdout).unwrap();
    let path = PathBuf::from(printed.strip_suffix('\n').unwrap());
    assert!(path.starts_with(&dir), "{printed:?}");
    assert!(path.is_file(), "{printed:?}");
    let out = cmd()
        .arg("-s")
        .arg(&src)
        .args(["fork", "-o"])
        .arg(dir.join("f\tork.jsonl"))
        .arg("80fbf1f2")
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(
        out.stdout,
        format!("{}\n", dir.join("f\tork.jsonl").display()).into_bytes()
    );
}

#[test]
fn clone_help_names_its_default_once() {
    let out = cmd().args(["clone", "--help"]).output().unwrap();
    let help = String::from_utf8(out.stdout).unwrap();
    // REV's default is named once (the --color default is another).
    assert_eq!(help.matches("[default: Pi's leaf").count(), 1, "{help}");
    assert!(!help.contains("[default: @]"), "{help}");
}

/// A root written with `parentId: ""` is copied as Pi's clone copies it: with `null`
/// (`clone-empty-parent-id.jsonl`).
#[test]
fn an_empty_parent_id_is_copied_as_null() {
    let (dir, copy) = temp_copy(&common::fixture("outside-2/clone-empty-parent-id.jsonl"));
    let out = dir.path().join("clone.jsonl");
    run_ok(&copy, &["clone", "-o", out.to_str().unwrap()]);
    let lines: Vec<Value> = ndjson(&fs::read_to_string(&out).unwrap());
    assert_eq!(lines[1]["id"], "u0000001");
    assert_eq!(lines[1]["parentId"], Value::Null);
    assert_eq!(lines[2]["parentId"], "u0000001");
}
