//! The two revisions `diff` and `merge-base` compare.

use pi_session::session::{EntryIdx, Session, SessionError, revision};

/// A, and B (`@` when not given).
#[derive(Debug, clap::Args)]
pub struct RevPair {
    /// The first revision (an id, a prefix, a label, `@~2`, …).
    #[arg(value_name = "A")]
    pub a: String,

    /// The second revision [default: @].
    #[arg(value_name = "B")]
    pub b: Option<String>,
}

impl RevPair {
    /// B as given, or `@`.
    pub fn b(&self) -> &str {
        self.b.as_deref().unwrap_or("@")
    }

    /// The entries A and B name.
    pub fn resolve(&self, session: &Session) -> Result<(EntryIdx, EntryIdx), SessionError> {
        Ok((
            revision::resolve_entry(session, &self.a)?,
            revision::resolve_entry(session, self.b())?,
        ))
    }
}
