//! The JSON and JavaScript machinery the session model stands on: Pi reads a line with
//! `JSON.parse` and writes one with `JSON.stringify`, so pi-session reads and writes them by
//! the same rules. Nothing here knows what an entry is.
//!
//! - [`scan`]: the one JSON walker over a line's bytes (validating, or trusting a line
//!   already loaded), declining what it does not hold exactly;
//! - [`view`]: the lazy view of an entry's JSON every reader of entries asks;
//! - [`jsparse`]: `JSON.parse` into a value (and a declined line's plain form);
//! - [`jsjson`]: `JSON.stringify`, and lengths in UTF-16 units;
//! - [`jsdate`]: `new Date(…)` and `Date.parse`;
//! - [`jsstr`]: JavaScript's whitespace and `trim`;
//! - [`rawjson`]: one field of a line edited in place, every other byte kept;
//! - [`needle`]: substring searchers ranked for JSON text.

pub mod jsdate;
pub mod jsjson;
pub mod jsparse;
pub mod jsstr;
pub mod needle;
pub mod rawjson;
pub mod scan;
pub mod view;
