//! The man pages (`man/`) and completion scripts (`completions/`) in the repository are what
//! the command line generates: regenerated into a temporary folder, they must be identical.

use crate::common;

use std::collections::BTreeMap;
use std::path::Path;

const REGENERATE: &str = "cargo run -- __generate-docs .";

/// The generated files under `dir` (man pages and completion scripts), by relative path.
fn generated_files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    for sub in ["man", "completions"] {
        let Ok(entries) = std::fs::read_dir(dir.join(sub)) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            if sub == "man" && !(name.starts_with("pi-session") && name.ends_with(".1")) {
                continue;
            }
            files.insert(format!("{sub}/{name}"), std::fs::read(&path).unwrap());
        }
    }
    files
}

#[test]
fn committed_man_pages_and_completions_are_up_to_date() {
    let tmp = tempfile::tempdir().unwrap();
    common::cmd().arg("__generate-docs").arg(tmp.path()).assert().success();
    let fresh = generated_files(tmp.path());
    let committed = generated_files(Path::new(env!("CARGO_MANIFEST_DIR")));
    assert!(fresh.contains_key("man/pi-session.1"), "{:?}", fresh.keys());
    assert!(fresh.contains_key("man/pi-session-log.1"), "{:?}", fresh.keys());
    for name in ["pi-session.bash", "_pi-session", "pi-session.fish", "pi-session.elv"] {
        assert!(fresh.contains_key(&format!("completions/{name}")), "{name}");
    }
    // pi-session runs on Unix only: no PowerShell script.
    assert!(!fresh.contains_key("completions/_pi-session.ps1"), "{:?}", fresh.keys());
    let mut problems = Vec::new();
    for (name, data) in &fresh {
        match committed.get(name) {
            None => problems.push(format!("{name} is missing")),
            Some(old) if old != data => problems.push(format!("{name} is out of date")),
            Some(_) => {}
        }
    }
    for name in committed.keys().filter(|n| !fresh.contains_key(*n)) {
        problems.push(format!("{name} is no longer generated (a removed command?)"));
    }
    assert!(
        problems.is_empty(),
        "the committed man pages and completion scripts do not match the command line:\n  {}\n\
         regenerate them with `{REGENERATE}` (in the repository root) and commit man/ and completions/",
        problems.join("\n  ")
    );
}

#[test]
fn hidden_helpers_stay_out_of_pages_and_scripts() {
    let tmp = tempfile::tempdir().unwrap();
    common::cmd().arg("__generate-docs").arg(tmp.path()).assert().success();
    for (name, data) in generated_files(tmp.path()) {
        let text = String::from_utf8(data).unwrap();
        assert!(!text.contains("__generate-docs"), "{name}");
        // The scripts call the revision helper, but never offer it.
        if name.starts_with("man/") || name.ends_with(".elv") {
            assert!(!text.contains("__complete-revs"), "{name}");
        }
    }
    let help = common::cmd().arg("--help").output().unwrap();
    let help = String::from_utf8(help.stdout).unwrap();
    assert!(!help.contains("__"), "{help}");
}
