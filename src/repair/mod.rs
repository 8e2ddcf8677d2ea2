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
