//! Operations: what a command asks of a session, decided in the library so that a command
//! only parses its arguments, makes one call and renders the answer (cargo's `ops`). Each
//! works on a whole [`crate::session::Session`] or on its end alone, answering
//! [`crate::session::SessionError::NeedMore`] when the part read cannot tell.

pub mod check;
pub mod checkout;
pub mod files;
pub mod label;
pub mod log;
pub mod mv;
pub mod name;
pub mod prune;
pub mod slim;
pub mod tree_view;
