//! The benchmark generator (`examples/gen_session.rs`) writes sessions Pi could have written:
//! `repair --check` finds nothing in either shape. Small files, so the test stays quick.

#[allow(dead_code)]
#[path = "../../examples/gen_session.rs"]
pub(crate) mod generator;

use crate::common;

fn check_clean(path: &std::path::Path) {
    let r = common::run(path, &["repair", "--check", "--json"]);
    let records = common::ndjson(&r.stdout);
    let findings: Vec<_> = records.iter().filter(|v| v.get("kind").is_some()).collect();
    assert!(findings.is_empty(), "{}: {findings:#?}", path.display());
    assert_eq!(r.code, 0, "{}", r.stderr);
    assert_eq!(records.last().unwrap()["result"], "clean");
}

#[test]
fn realistic_sessions_have_no_defects() {
    let dir = tempfile::tempdir().unwrap();
    for seed in [1, 7] {
        let path = dir.path().join(format!("realistic-{seed}.jsonl"));
        generator::realistic(6 << 20, path.to_str().unwrap(), seed);
        let text = std::fs::read_to_string(&path).unwrap();
        // The file has what the checks are about: compactions and branch points.
        assert!(text.contains(r#""type":"compaction""#));
        assert!(text.contains(r#""type":"branch_summary""#));
        check_clean(&path);
    }
}

#[test]
fn large_entry_sessions_have_no_defects() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("large.jsonl");
    generator::large_entries(3 << 20, path.to_str().unwrap(), 3);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(r#""type":"compaction""#));
    check_clean(&path);
}

#[test]
fn image_sessions_have_no_defects_and_slim_takes_their_weight() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("images.jsonl");
    generator::images(24 << 20, path.to_str().unwrap(), 5);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains(r#""type":"compaction""#));
    assert!(text.contains(r#""type":"image""#));
    check_clean(&path);
    let r = common::run(&path, &["slim", "--dry-run", "--json", "--force"]);
    assert_eq!(r.code, 0, "{}", r.stderr);
    let summary = common::ndjson(&r.stdout).pop().unwrap();
    assert!(summary["saved"].as_u64().unwrap() > 8 << 20, "{summary}");
}

#[test]
fn a_colliding_id_is_drawn_again() {
    let mut taken = std::collections::HashSet::new();
    let mut ahead = generator::Rng(99);
    // The id the generator would draw next is taken already.
    taken.insert(ahead.id32());
    let id = generator::fresh_id(&mut generator::Rng(99), &mut taken);
    assert_ne!(u32::from_str_radix(&id, 16).unwrap(), generator::Rng(99).id32());
    assert_eq!(taken.len(), 2);
}

/// `cargo run --example gen_session -- --help` prints help (it panicked); a bad value is a
/// usage error, not a panic.
#[test]
fn its_command_line_has_help_and_refuses_bad_values() {
    use clap::{CommandFactory, Parser, error::ErrorKind};
    generator::Cli::command().debug_assert();
    let kind = |args: &[&str]| generator::Cli::try_parse_from(args).err().map(|e| e.kind());
    assert_eq!(kind(&["gen_session", "--help"]), Some(ErrorKind::DisplayHelp));
    assert_eq!(
        kind(&["gen_session", "--size", "12Q"]),
        Some(ErrorKind::ValueValidation)
    );
    assert_eq!(
        kind(&["gen_session", "--shape", "round"]),
        Some(ErrorKind::InvalidValue)
    );
    assert_eq!(kind(&["gen_session", "--bogus"]), Some(ErrorKind::UnknownArgument));
    let cli = generator::Cli::try_parse_from(["gen_session", "--size", "2M", "--seed", "7"]).unwrap();
    assert_eq!((cli.size, cli.seed), (2 << 20, 7));
}
