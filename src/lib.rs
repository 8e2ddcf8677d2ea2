//! pi-session: git-style plumbing for the session files of Pi, the terminal coding agent.
//!
//! The library knows sessions: reading them as Pi 1.6.0 does ([`session`]), compaction and
//! branch summaries ([`compaction`]) with summaries from providers ([`llm`]), repair
//! ([`repair`]), what a session paid for ([`usage`]), two branches compared ([`compare`]), searching session text ([`search`]),
//! the transcript model ([`transcript`]) and its export as Markdown or HTML ([`export`]), and
//! values as people read them ([`human`]). It never prints, draws progress or
//! exits: the `pi-session` binary
//! (`src/main.rs`, `src/cli/`) parses the command line, calls it and renders what it returns.

// Reads and repairs use Unix positioned I/O, caches recognise files by inode, and interrupted
// writes are cleaned up on Unix signals: say so once, rather than with a dozen unresolved
// `std::os::unix` imports.
#[cfg(not(unix))]
compile_error!(
    "pi-session supports Unix systems only (Linux, macOS, the BSDs): it relies on Unix file \
     I/O, inodes and signals. On Windows, build and run it under WSL."
);

pub mod compaction;
pub mod compare;
pub mod dates;
pub mod export;
pub(crate) mod file_cache;
pub mod human;
pub mod import;
pub mod json;
pub mod listing;
pub mod llm;
pub mod ops;
pub mod parallel;
pub mod progress;
pub mod repair;
pub mod search;
pub mod secrets;
pub mod session;
pub mod store;
pub mod transcript;
pub mod usage;
