//! Values as people read them: times in the local time zone, token counts and dollars, and
//! session text made safe for a terminal. The binary's tables and listings and the library's
//! `export` format the same values, so they are written here once.

pub mod amounts;
pub mod terminal;
pub mod time;

pub use amounts::{counted, dollars, tokens};
pub use terminal::{escape_block, escape_line};
pub use time::{local_time, local_time_into};
