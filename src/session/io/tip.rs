//! Reading only the end of a session: commands about where the conversation stands need the
//! last entries and the header, not the whole file. [`read_tip`] reads the end, asks the
//! caller's question, and reads further back only while the answer needs more of the file
//! ([`SessionError::NeedMore`]), so the cost follows the answer, not the file's size.

use super::append::SessionWriter;
use crate::session::{Session, SessionError};

/// How much of the end of a file is read first, and the factor each further read grows by.
pub const FIRST_READ: u64 = 4 << 20;
pub const GROWTH: u64 = 4;

impl AsRef<Session> for Session {
    fn as_ref(&self) -> &Session {
        self
    }
}

impl AsRef<Session> for SessionWriter {
    fn as_ref(&self) -> &Session {
        &self.session
    }
}

/// Opens the last `first_read` bytes with `open` (a [`Session`], or a locked
/// [`SessionWriter`]), and asks `answer`. While the answer is an error `needs_more` accepts
/// (an error that is [`SessionError::NeedMore`]) and the read did not reach the start of the
/// file, reads [`GROWTH`] times more and asks again. A read that holds no entry at all grows
/// without asking. Returns what was read with the answer.
pub fn read_tip<R: AsRef<Session>, T, E: From<SessionError>>(
    first_read: u64,
    mut open: impl FnMut(u64) -> Result<R, SessionError>,
    mut answer: impl FnMut(&R) -> Result<T, E>,
    needs_more: impl Fn(&E) -> bool,
) -> Result<(R, T), E> {
    let mut tail = first_read.max(1);
    loop {
        let read = open(tail)?;
        let complete = read.as_ref().is_complete();
        if read.as_ref().entries.is_empty() && !complete {
            tail = tail.saturating_mul(GROWTH);
            continue;
        }
        match answer(&read) {
            Err(e) if needs_more(&e) && !complete => tail = tail.saturating_mul(GROWTH),
            Err(e) => return Err(e),
            Ok(t) => return Ok((read, t)),
        }
    }
}

/// Whether a read of the last `tail` bytes of a `len`-byte file would take a large share of
/// it (an eighth or more): then loading the whole file costs less memory (a read from the
/// end copies what it reads, twice while it loads; a whole file is mapped, and its index is
/// about a fifth of its size) and little more time than the reads still to come.
pub fn covers_most(tail: u64, len: u64) -> bool {
    tail.saturating_mul(8) >= len
}

/// Whether an error only says that more of the file is needed.
pub fn needs_more(e: &SessionError) -> bool {
    matches!(e, SessionError::NeedMore)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::cell::RefCell;
    use std::io::Write;

    fn file(entries: usize) -> tempfile::NamedTempFile {
        let mut f = tempfile::NamedTempFile::new().unwrap();
        writeln!(
            f,
            r#"{{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}}"#
        )
        .unwrap();
        let mut parent = "null".to_owned();
        for i in 0..entries {
            writeln!(
                f,
                r#"{{"type":"message","id":"e{i:04}","parentId":{parent},"timestamp":"2025-01-01T00:00:01.000Z","message":{{"role":"user","content":"{}"}}}}"#,
                "x".repeat(100)
            )
            .unwrap();
            parent = format!("\"e{i:04}\"");
        }
        f
    }

    #[test]
    fn reads_further_back_only_while_the_answer_needs_more() {
        // Large enough that reading back to e1950 stays well under an eighth of the file
        // (`open_tail` loads a file whole past that).
        let f = file(2000);
        let reads = RefCell::new(Vec::new());
        let (session, first) = read_tip(
            256,
            |tail| {
                reads.borrow_mut().push(tail);
                Session::open_tail(f.path(), tail)
            },
            |s: &Session| match s.lookup("e1950") {
                Some(i) => Ok(s.id_str(i).map(str::to_owned)),
                None => Err(SessionError::NeedMore),
            },
            needs_more,
        )
        .unwrap();
        assert_eq!(first.as_deref(), Some("e1950"));
        assert!(session.lookup("e0000").is_none(), "the start was never read");
        assert!(!session.is_complete());
        let reads = reads.into_inner();
        assert!(reads.len() > 2, "{reads:?}");
        assert!(reads.windows(2).all(|w| w[1] == w[0] * GROWTH), "{reads:?}");
    }

    #[test]
    fn a_read_of_an_eighth_of_the_file_or_more_loads_it_whole() {
        assert!(covers_most(13, 100));
        assert!(covers_most(200, 100));
        assert!(!covers_most(12, 100));
        assert!(!covers_most(u64::MAX / 16, u64::MAX));
    }

    #[test]
    fn a_whole_file_ends_the_search_with_the_answer_s_error() {
        let f = file(3);
        let err = read_tip(
            64,
            |tail| Session::open_tail(f.path(), tail),
            |s: &Session| s.lookup("nowhere").ok_or(SessionError::NeedMore),
            needs_more,
        )
        .unwrap_err();
        assert!(matches!(err, SessionError::NeedMore));
    }

    #[test]
    fn a_writer_holds_the_lock_from_the_first_read() {
        let f = file(50);
        let (writer, leaf) = read_tip(
            128,
            |tail| SessionWriter::open_tail(f.path(), tail),
            |w: &SessionWriter| -> Result<String, SessionError> {
                Ok(w.session.id_str(w.session.leaf().unwrap()).unwrap().to_owned())
            },
            needs_more,
        )
        .unwrap();
        assert_eq!(leaf, "e0049");
        assert!(!writer.session.is_complete());
    }
}
