//! The crate as others get it: licensed, with the metadata crates.io asks for, and a package
//! that leaves out what only working on pi-session needs.

use std::path::Path;
use std::process::Command;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn manifest() -> toml::Table {
    let text = std::fs::read_to_string(root().join("Cargo.toml")).unwrap();
    text.parse().unwrap()
}

#[test]
fn the_crate_is_licensed_and_described() {
    let manifest = manifest();
    let package = manifest["package"].as_table().unwrap();
    assert_eq!(package["license"].as_str(), Some("MIT OR Apache-2.0"));
    for key in ["description", "readme", "keywords", "categories"] {
        assert!(package.contains_key(key), "Cargo.toml has no `{key}`");
    }
    let mit = std::fs::read_to_string(root().join("LICENSE-MIT")).unwrap();
    assert!(mit.contains("Copyright (c) the pi-session authors"), "{mit}");
    assert!(mit.contains("Permission is hereby granted, free of charge"), "{mit}");
    let apache = std::fs::read_to_string(root().join("LICENSE-APACHE")).unwrap();
    assert!(apache.contains("Apache License\n                        Version 2.0, January 2004"));
    assert!(apache.contains("END OF TERMS AND CONDITIONS"));
    assert_eq!(
        manifest["profile"]["release"]["strip"].as_bool(),
        Some(true),
        "the release binary is stripped"
    );
}

#[test]
fn rust_version_covers_the_locked_dependencies() {
    let manifest = manifest();
    let version = manifest["package"]["rust-version"]
        .as_str()
        .expect("Cargo.toml has a rust-version");
    let parts: Vec<u32> = version.split('.').map(|p| p.parse().unwrap()).collect();
    // notify-types 2.3 (under notify 8.2) declares rust-version 1.91, the highest of the lock
    // file; `cargo metadata --format-version 1` lists every package's rust_version.
    assert!(
        parts[..2] >= [1, 91][..],
        "rust-version {version} is older than the dependencies need"
    );
}

/// `cargo package --list` resolves nothing over the network with `--offline` and builds
/// nothing: a fraction of a second.
#[test]
fn the_package_leaves_out_ci_scripts_and_benchmarks() {
    let out = Command::new(env!("CARGO"))
        .args(["package", "--list", "--allow-dirty", "--offline", "--quiet"])
        .current_dir(root())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "cargo package --list failed:\n{stderr}");
    let files = String::from_utf8(out.stdout).unwrap();
    let files: Vec<&str> = files.lines().collect();
    for needed in [
        "Cargo.toml",
        "LICENSE-MIT",
        "LICENSE-APACHE",
        "README.md",
        "src/lib.rs",
        "src/main.rs",
    ] {
        assert!(files.contains(&needed), "{needed} is not in the package: {files:?}");
    }
    for file in &files {
        assert!(
            !file.starts_with(".ci/") && !file.starts_with("bench/"),
            "{file} is in the package"
        );
    }
}

/// The README's Quick start stays two commands, and its Install section gets a stranger from
/// a clone to `pi-session` on PATH with its man pages and completion, on the Rust version
/// Cargo.toml declares.
#[test]
fn the_readme_says_how_to_install() {
    let readme = std::fs::read_to_string(root().join("README.md")).unwrap();
    let section = |title: &str| {
        let start = readme
            .find(&format!("\n## {title}\n"))
            .unwrap_or_else(|| panic!("no {title}"));
        let rest = &readme[start + 1..];
        let end = rest[3..].find("\n## ").map_or(rest.len(), |e| e + 3);
        rest[..end].to_string()
    };
    let quick = section("Quick start");
    let block = quick.split("```sh\n").nth(1).unwrap().split("```").next().unwrap();
    assert_eq!(block, "cargo run -- -s examples/session.jsonl tree\ncargo test\n");
    let install = section("Install");
    let version = manifest()["package"]["rust-version"].as_str().unwrap().to_owned();
    for needed in [
        "cargo install --locked --path .",
        &format!("Rust {version} or newer"),
        "mkdir -p ~/.cargo/share/man/man1",
        "bash-completion package",
        "mkdir -p ~/.local/share/bash-completion/completions",
        "mkdir -p ~/.zfunc",
        "mkdir -p ~/.config/fish/completions",
        "Unix",
    ] {
        assert!(install.contains(needed), "the Install section does not say {needed:?}");
    }
}
