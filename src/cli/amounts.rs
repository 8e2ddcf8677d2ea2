//! Token counts and dollar amounts for the tables: the library's ([`pi_session::human`]).

pub use pi_session::human::{counted, dollars, tokens};
