//! The integration tests, in one binary: a module per command or concern, helpers in
//! `common`. (`tests/llm_providers.rs` is its own binary: it sets process-wide environment
//! variables, which would leak into the commands other tests start.)

mod common;

mod cli_append_protocol;
mod cli_archive;
mod cli_check;
mod cli_checkout;
mod cli_clone_fork;
mod cli_color;
mod cli_compact;
mod cli_compact_providers;
mod cli_completions;
mod cli_context;
mod cli_diff;
mod cli_dry_run;
mod cli_errors;
mod cli_export;
mod cli_files;
mod cli_grep;
mod cli_import;
mod cli_label;
mod cli_log;
mod cli_log_follow;
mod cli_ls;
mod cli_name_mv;
mod cli_narrow;
mod cli_pager;
mod cli_progress;
mod cli_prune;
mod cli_repair;
mod cli_rev_parse;
mod cli_secrets;
mod cli_session_lookup;
mod cli_show;
mod cli_slim;
mod cli_stats;
mod cli_terminal_safety;
mod cli_tree;
mod cli_usage;
mod export_browser;
mod gen_session;
mod generated_docs;
mod interop;
mod interop_ccusage;
mod interop_compaction;
mod interop_import;
mod interop_pi_cli;
mod interop_prune;
mod interop_repair;
mod interop_slim;
mod interop_store;
mod interop_writes;
mod json_fields;
mod module_cycles;
mod package;
mod prop_prune;
mod prop_repair;
mod prop_slim;
mod terminal_control_sequences;
mod tip_reads;

/// Every test file in this folder is a module of this binary: a file left out would never run.
#[test]
fn every_test_file_is_wired() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it");
    let main = std::fs::read_to_string(dir.join("main.rs")).unwrap();
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        let Some(stem) = path.file_stem().and_then(|s| s.to_str()) else {
            continue;
        };
        if path.extension().is_some_and(|e| e == "rs") && stem != "main" {
            assert!(
                main.contains(&format!("\nmod {stem};\n")),
                "tests/it/{stem}.rs is not a module of tests/it/main.rs"
            );
        }
    }
    let top = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    for entry in std::fs::read_dir(&top).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "rs") {
            assert_eq!(
                path.file_name().unwrap(),
                "llm_providers.rs",
                "{}: put integration tests in tests/it/",
                path.display()
            );
        }
    }
}
