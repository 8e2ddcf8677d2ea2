//! pi-session: git-style plumbing for the session files of Pi, the terminal coding agent.
//!
//! The library holds the session model ([`session`]); the `pi-session` binary is a thin CLI
//! over it ([`cli`]).

pub mod cli;
pub mod compaction;
pub mod llm;
pub mod repair;
pub mod session;
