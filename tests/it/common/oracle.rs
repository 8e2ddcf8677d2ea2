//! The Pi 1.6.0 oracle: runs `tests/oracle/pi_oracle.mjs` under node and returns what
//! the reference implementation computes for a session file.
//!
//! Include from an integration test with `mod common;` (where `tests/common/mod.rs`
//! declares `pub mod oracle;`), then:
//!
//! ```ignore
//! let Some(pi) = common::oracle::run_oracle(path, &[]) else { return }; // skipped
//! assert_eq!(pi["leaf"], ...);
//! ```
//!
//! The oracle is found through `PI_ORACLE_MODULE_DIR`, else the cache that
//! `.ci/install-oracle` fills, else `/tmp/pi/node_modules/@earendil-works/pi-coding-agent`.
//! When it is missing the tests skip, unless `PI_SESSION_REQUIRE_ORACLE` or `CI` is set,
//! in which case they panic. The output schema is documented at the top of
//! `tests/oracle/pi_oracle.mjs`. Never give the oracle a file whose parent links form a
//! cycle and expect Pi's answer: Pi loops forever there, and the oracle reports `null`
//! plus a `*Cycle` flag instead.
#![allow(dead_code)]

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::thread;
use std::time::{Duration, Instant};

/// The npm package the oracle is built on.
pub const PI_PACKAGE: &str = "@earendil-works/pi-coding-agent";
/// The Pi version whose behaviour is the expected answer.
pub const PI_VERSION: &str = "1.6.0";
/// How long one oracle run may take.
pub const ORACLE_TIMEOUT: Duration = Duration::from_secs(60);

const SKIP_MESSAGE: &str = "interop tests skipped: node or the Pi 1.6.0 oracle is missing (run .ci/install-oracle; PI_SESSION_REQUIRE_ORACLE=1 makes this an error)";

/// Path of the node script.
pub fn oracle_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/pi_oracle.mjs")
}

fn env_flag(name: &str) -> bool {
    match std::env::var(name) {
        Ok(value) => {
            let value = value.trim();
            !(value.is_empty() || value == "0" || value.eq_ignore_ascii_case("false"))
        }
        Err(_) => false,
    }
}

/// True when a missing oracle must fail the tests instead of skipping them.
pub fn oracle_required() -> bool {
    env_flag("PI_SESSION_REQUIRE_ORACLE") || env_flag("CI")
}

fn is_package_dir(dir: &Path) -> bool {
    dir.join("dist/core/session-manager.js").is_file()
}

/// Where an install script of `.ci/` puts an npm package by default: `$<dir_env>`, else
/// `${XDG_CACHE_HOME:-$HOME/.cache}/pi-session/<folder>`, then `node_modules/<package>`.
pub fn cached_package_dir(dir_env: &str, folder: &str, package: &str) -> Option<PathBuf> {
    let base = match std::env::var_os(dir_env).filter(|v| !v.is_empty()) {
        Some(dir) => PathBuf::from(dir),
        None => {
            let cache = match std::env::var_os("XDG_CACHE_HOME").filter(|v| !v.is_empty()) {
                Some(dir) => PathBuf::from(dir),
                None => PathBuf::from(std::env::var_os("HOME")?).join(".cache"),
            };
            cache.join("pi-session").join(folder)
        }
    };
    Some(base.join("node_modules").join(package))
}

/// Where `.ci/install-oracle` puts the package by default.
fn default_cache_package_dir() -> Option<PathBuf> {
    cached_package_dir("PI_ORACLE_DIR", &format!("pi-{PI_VERSION}"), PI_PACKAGE)
}

/// The installed Pi package dir: `PI_ORACLE_MODULE_DIR`, else `.ci/install-oracle`'s cache, else `/tmp/pi`.
pub fn find_package_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("PI_ORACLE_MODULE_DIR").filter(|v| !v.is_empty()) {
        let dir = PathBuf::from(dir);
        if is_package_dir(&dir) {
            return Some(dir);
        }
        eprintln!(
            "PI_ORACLE_MODULE_DIR={} holds no dist/core/session-manager.js; looking elsewhere",
            dir.display()
        );
    }
    let fallback = PathBuf::from("/tmp/pi/node_modules").join(PI_PACKAGE);
    default_cache_package_dir()
        .into_iter()
        .chain(std::iter::once(fallback))
        .find(|dir| is_package_dir(dir))
}

/// Runs a node command to its end within `timeout` (then kills it and panics, adding `why`
/// to the message), with both pipes drained on their own threads so a large output cannot
/// block the child; panics unless it succeeds. Returns stdout and stderr.
pub fn run_to_end(mut command: Command, what: &str, timeout: Duration, why: &str) -> (Vec<u8>, String) {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command
        .spawn()
        .unwrap_or_else(|e| panic!("{what}: cannot start node: {e}"));
    let mut stdout = child.stdout.take().expect("piped stdout");
    let mut stderr = child.stderr.take().expect("piped stderr");
    let out_reader = thread::spawn(move || {
        let mut buf = Vec::new();
        stdout.read_to_end(&mut buf).map(|_| buf)
    });
    let err_reader = thread::spawn(move || {
        let mut buf = Vec::new();
        stderr.read_to_end(&mut buf).map(|_| buf)
    });
    let started = Instant::now();
    let status = loop {
        match child.try_wait() {
            Ok(Some(status)) => break status,
            Ok(None) if started.elapsed() >= timeout => {
                let _ = child.kill();
                let _ = child.wait();
                panic!("{what}: timed out after {}s{why}", timeout.as_secs());
            }
            Ok(None) => thread::sleep(Duration::from_millis(10)),
            Err(e) => panic!("{what}: waiting for node failed: {e}"),
        }
    };
    let stdout = out_reader
        .join()
        .expect("stdout reader thread")
        .unwrap_or_else(|e| panic!("{what}: reading stdout failed: {e}"));
    let stderr = err_reader
        .join()
        .expect("stderr reader thread")
        .unwrap_or_else(|e| panic!("{what}: reading stderr failed: {e}"));
    let stderr = String::from_utf8_lossy(&stderr).into_owned();
    if !status.success() {
        panic!("{what}: node exited with {status}\n{stderr}");
    }
    (stdout, stderr)
}

/// True when `node` runs.
pub fn node_available() -> bool {
    Command::new("node")
        .arg("--version")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .map(|status| status.success())
        .unwrap_or(false)
}

/// The installed Pi package dir (`.../node_modules/@earendil-works/pi-coding-agent`), or
/// `None` (after saying the test skips) when the oracle is unavailable.
///
/// Panics instead of returning `None` when `PI_SESSION_REQUIRE_ORACLE` or `CI` is set.
pub fn oracle_module_dir() -> Option<PathBuf> {
    static FOUND: OnceLock<Option<PathBuf>> = OnceLock::new();
    let found = FOUND.get_or_init(|| {
        if !node_available() {
            return None;
        }
        find_package_dir()
    });
    if found.is_none() {
        if oracle_required() {
            panic!(
                "the Pi {PI_VERSION} oracle is required (PI_SESSION_REQUIRE_ORACLE or CI is set) \
                 but unavailable: need `node` on PATH and {PI_PACKAGE}@{PI_VERSION} installed; \
                 run .ci/install-oracle and set PI_ORACLE_MODULE_DIR to the path it prints"
            );
        }
        // Each test that skips says so (see `common::skip`).
        super::skip(SKIP_MESSAGE);
    }
    found.clone()
}

/// Run the oracle on `file` (Pi opens a temp copy, never `file` itself), with one
/// `--at ID` per element of `at`. Returns the oracle's JSON object, or `None` when the
/// oracle is unavailable and the test should skip.
///
/// Panics if node fails, times out (60 s), or prints something that is not JSON.
pub fn run_oracle(file: &Path, at: &[&str]) -> Option<serde_json::Value> {
    let args: Vec<&str> = at.iter().flat_map(|id| ["--at", id]).collect();
    run_oracle_args(file, &args)
}

/// Like [`run_oracle`], with the oracle's flags given as they are (`--compact 2000`,
/// `--branch-summary ID:BUDGET`, `--at ID`).
pub fn run_oracle_args(file: &Path, args: &[&str]) -> Option<serde_json::Value> {
    let mut command = Command::new("node");
    command.arg(oracle_script()).arg(file).args(args);
    run_node(command, format!("Pi oracle on {}", file.display()))
}

/// Pi 1.6.0 doing one of the writes pi-session mirrors (`tests/oracle/pi_mirror.mjs`, whose
/// header documents the output) on a temp copy of `file`: `op` is `compact` (args: KEEP
/// BODY), `navigate` (TARGET BODY) or `clone`. `None` when the oracle is unavailable.
pub fn run_mirror(op: &str, file: &Path, args: &[&str]) -> Option<serde_json::Value> {
    let mut command = Command::new("node");
    command
        .arg(Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/pi_mirror.mjs"))
        .arg(op)
        .arg(file)
        .args(args);
    run_node(command, format!("Pi mirror {op} on {}", file.display()))
}

fn run_node(mut command: Command, what: String) -> Option<serde_json::Value> {
    let module_dir = oracle_module_dir()?;
    command.env("PI_ORACLE_MODULE_DIR", &module_dir);
    let (stdout, stderr) = run_to_end(
        command,
        &what,
        ORACLE_TIMEOUT,
        " (a parent cycle makes Pi loop forever)",
    );
    // Read as JSON.parse reads it: the output holds what sessions hold (lone surrogates,
    // numbers serde_json would round differently).
    match pi_session::json::jsparse::parse(&stdout) {
        Ok(value) => Some(value),
        Err(e) => panic!(
            "{what}: output is not JSON ({e}); first bytes: {:?}\n{stderr}",
            String::from_utf8_lossy(&stdout[..stdout.len().min(200)])
        ),
    }
}
