//! One module per subcommand: an `Args` struct whose doc comments are the help text, and
//! one `run` function.

pub mod archive;
pub mod check;
pub mod checkout;
pub mod clone;
pub mod compact;
pub mod completions;
pub mod context;
pub mod diff;
pub mod export;
pub mod files;
pub mod fork;
pub mod generate_docs;
pub mod grep;
pub mod import;
pub mod label;
pub mod log;
pub mod ls;
pub mod merge_base;
pub mod mv;
pub mod name;
pub mod prune;
pub mod redact;
pub mod repair;
pub mod rev_parse;
pub mod rm;
pub mod secrets;
pub mod show;
pub mod slim;
pub mod stats;
pub mod summarize_branch;
pub mod tree;
pub mod usage;
