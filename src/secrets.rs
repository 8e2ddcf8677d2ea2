//! Credentials a session has recorded: the rules that recognise them ([`rules`], with
//! gitleaks configurations read by [`gitleaks`]), the string tokens of a line and where each
//! lies ([`walk`]).

pub mod gitleaks;
pub mod own;
pub mod redact;
pub mod rules;
pub mod scan;
pub mod walk;
