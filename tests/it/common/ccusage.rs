//! ccusage's Pi reader (`@ccusage/pi` 18.0.11), the other tool that reports what Pi
//! sessions cost: runs its `daily --json` on a sessions folder, for comparing with
//! `pi-session usage`.
//!
//! ```ignore
//! let Some(days) = common::ccusage::daily(&sessions_dir, "UTC") else { return }; // skipped
//! ```
//!
//! The package is found through `CCUSAGE_PI_DIR`, else the cache that `.ci/install-ccusage`
//! fills, else `/tmp/ccu/node_modules/@ccusage/pi`. When it (or node) is missing the tests
//! skip, unless `PI_SESSION_REQUIRE_ORACLE` or `CI` is set, in which case they panic: the
//! same policy as the Pi oracle ([`super::oracle`]).
#![allow(dead_code)]

use super::oracle::{node_available, oracle_required};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

pub const CCUSAGE_PACKAGE: &str = "@ccusage/pi";
/// The version whose behaviour the tests pin.
pub const CCUSAGE_VERSION: &str = "18.0.11";
/// How long one run may take.
pub const TIMEOUT: Duration = Duration::from_secs(60);

const SKIP_MESSAGE: &str = "interop with ccusage skipped: node or @ccusage/pi 18.0.11 is missing (run .ci/install-ccusage and set CCUSAGE_PI_DIR to the path it prints; PI_SESSION_REQUIRE_ORACLE=1 makes this an error)";

/// A folder holding `@ccusage/pi` at the pinned version.
fn is_package_dir(dir: &Path) -> bool {
    if !dir.join("dist/index.js").is_file() {
        return false;
    }
    let Ok(text) = std::fs::read_to_string(dir.join("package.json")) else {
        return false;
    };
    serde_json::from_str::<Value>(&text).is_ok_and(|p| p["version"] == CCUSAGE_VERSION)
}

/// Where `.ci/install-ccusage` puts the package by default.
fn default_cache_package_dir() -> Option<PathBuf> {
    super::oracle::cached_package_dir("CCUSAGE_DIR", &format!("ccusage-pi-{CCUSAGE_VERSION}"), CCUSAGE_PACKAGE)
}

fn find_package_dir() -> Option<PathBuf> {
    if let Some(dir) = std::env::var_os("CCUSAGE_PI_DIR").filter(|v| !v.is_empty()) {
        let dir = PathBuf::from(dir);
        if is_package_dir(&dir) {
            return Some(dir);
        }
        eprintln!(
            "CCUSAGE_PI_DIR={} holds no {CCUSAGE_PACKAGE}@{CCUSAGE_VERSION}; looking elsewhere",
            dir.display()
        );
    }
    let fallback = PathBuf::from("/tmp/ccu/node_modules").join(CCUSAGE_PACKAGE);
    default_cache_package_dir()
        .into_iter()
        .chain(std::iter::once(fallback))
        .find(|dir| is_package_dir(dir))
}

/// The installed package dir (`.../node_modules/@ccusage/pi`), or `None` (after saying the
/// test skips) when it or node is missing.
///
/// Panics instead of returning `None` when `PI_SESSION_REQUIRE_ORACLE` or `CI` is set.
pub fn package_dir() -> Option<PathBuf> {
    static FOUND: OnceLock<Option<PathBuf>> = OnceLock::new();
    let found = FOUND.get_or_init(|| if node_available() { find_package_dir() } else { None });
    if found.is_none() {
        if oracle_required() {
            panic!(
                "{CCUSAGE_PACKAGE}@{CCUSAGE_VERSION} is required (PI_SESSION_REQUIRE_ORACLE or CI is set) \
                 but unavailable: need `node` on PATH and the package installed; run \
                 .ci/install-ccusage and set CCUSAGE_PI_DIR to the path it prints"
            );
        }
        // Each test that skips says so (see `common::skip`).
        super::skip(SKIP_MESSAGE);
    }
    found.clone()
}

/// One day of `daily --json`'s `daily` array: its counters as ccusage summed them.
#[derive(Debug, Clone, PartialEq)]
pub struct Day {
    pub date: String,
    pub input: f64,
    pub output: f64,
    pub cache_read: f64,
    pub cache_write: f64,
    pub cost: f64,
}

/// `ccusage-pi daily --json --timezone ZONE --piPath SESSIONS --order asc`: the days, oldest
/// first (none when ccusage found no usage). `None` when ccusage is unavailable.
///
/// Panics if node fails, times out (60 s) or prints something else.
pub fn daily(sessions: &Path, zone: &str) -> Option<Vec<Day>> {
    let dir = package_dir()?;
    let mut command = Command::new("node");
    command
        .arg(dir.join("dist/index.js"))
        .args(["daily", "--json", "--order", "asc", "--timezone", zone, "--piPath"])
        .arg(sessions)
        // Its other ways of finding sessions, and the local zone it would default to.
        .env_remove("PI_AGENT_DIR")
        .env("TZ", "UTC")
        .env("NO_COLOR", "1");
    let what = format!("ccusage daily on {}", sessions.display());
    let out = run(command, &what);
    // Read as JSON.parse reads it, so costs are the very doubles ccusage summed.
    let v = pi_session::json::jsparse::parse(out.as_bytes())
        .unwrap_or_else(|e| panic!("{what}: output is not JSON ({e}): {out}"));
    // No usage at all prints `[]`.
    if v.as_array().is_some_and(Vec::is_empty) {
        return Some(Vec::new());
    }
    let days = v["daily"]
        .as_array()
        .unwrap_or_else(|| panic!("{what}: no `daily` array: {out}"));
    let num = |d: &Value, key: &str| {
        d[key]
            .as_f64()
            .unwrap_or_else(|| panic!("{what}: `{key}` is not a number in {d}"))
    };
    Some(
        days.iter()
            .map(|d| Day {
                date: d["date"].as_str().expect("a date").to_owned(),
                input: num(d, "inputTokens"),
                output: num(d, "outputTokens"),
                cache_read: num(d, "cacheReadTokens"),
                cache_write: num(d, "cacheCreationTokens"),
                cost: num(d, "totalCost"),
            })
            .collect(),
    )
}

/// Runs node to the end within [`TIMEOUT`]; returns stdout.
pub fn run(command: Command, what: &str) -> String {
    let (stdout, _) = super::oracle::run_to_end(command, what, TIMEOUT, "");
    String::from_utf8(stdout).unwrap_or_else(|e| panic!("{what}: output is not UTF-8: {e}"))
}
