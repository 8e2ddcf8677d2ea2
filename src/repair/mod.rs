//! `repair`: a fsck for session files. Finds every defect Pi skips, rewrites or hangs on,
//! and fixes it so Pi 1.6.0 opens the result unchanged and reads what the report says,
//! keeping every original line in the result, the backup or the rejects file.

pub mod apply;
pub mod finding;
mod header;
mod lines;
pub mod plan;
mod structure;

pub use finding::{Finding, Severity};
pub use plan::{Plan, Reading, clean_plan, plan, plan_loaded};

/// What happened to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// No defect (warnings allowed).
    Clean,
    /// Defects found, and nothing changed (`--check`).
    Defects,
    /// Defects a repair would fix (`--dry-run`).
    WouldRepair,
    /// Defects fixed.
    Repaired,
    /// The repair failed, with why; the file is unchanged.
    Failed(String),
}

impl Outcome {
    /// The `result` of `repair --json`'s file record.
    pub fn name(&self) -> &'static str {
        match self {
            Outcome::Clean => "clean",
            Outcome::Defects => "defects",
            Outcome::WouldRepair => "would-repair",
            Outcome::Repaired => "repaired",
            Outcome::Failed(_) => "failed",
        }
    }
}
