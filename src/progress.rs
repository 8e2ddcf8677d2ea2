//! How a long library call reports progress and learns that it should stop. Both are
//! passed in by the caller: the binary decides whether a terminal gets a spinner or a bar,
//! and turns Ctrl-C into a [`Cancel`]; the library only calls these.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// Progress of a long call. Every method has a do-nothing default; [`Silent`] is the
/// implementation for callers that show nothing.
pub trait Progress: Sync {
    /// A phase begins: what is being done, and how many steps it has when that is known
    /// (files to read, bytes to scan); `None` for a wait of unknown length (a request).
    fn start(&self, _what: &str, _total: Option<u64>) {}
    /// `n` more steps are done.
    fn advance(&self, _n: u64) {}
    /// News about the current phase (`retrying in 2 s after HTTP 529`).
    fn message(&self, _text: &str) {}
    /// The phase is over.
    fn finish(&self) {}
}

/// Shows nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct Silent;

impl Progress for Silent {}

/// A request to stop, set by the caller (on Ctrl-C) and checked by the library between
/// steps and while it waits. Clones share one flag.
#[derive(Debug, Clone, Default)]
pub struct Cancel(Arc<AtomicBool>);

impl Cancel {
    pub fn new() -> Cancel {
        Cancel::default()
    }

    /// Asks the work to stop.
    pub fn cancel(&self) {
        self.0.store(true, Ordering::SeqCst);
    }

    pub fn is_cancelled(&self) -> bool {
        self.0.load(Ordering::SeqCst)
    }

    /// Forgets an earlier request, for a caller that carries on.
    pub fn reset(&self) {
        self.0.store(false, Ordering::SeqCst);
    }
}
