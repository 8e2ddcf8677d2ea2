//! The process's one handler for Ctrl-C, SIGTERM and SIGHUP (ctrlc allows one per process;
//! the pager and the commands that wait for a model each want their own behaviour, so they
//! tell it here rather than install another).
//!
//! By default the handler removes the temp files of the writes under way
//! ([`pi_session::session::io::temp`]) and ends the process with status 130, so an
//! interrupted `export -o`, `repair` or `redact` leaves its target as it was and nothing
//! beside it. While a pager runs, the signal is the pager's. While work that can be
//! cancelled runs ([`cancel`]), the first signal cancels it (the work then writes nothing and
//! ends with 130) and a second one ends the process at once.

use crate::cli::exit::Exit;
use pi_session::progress::Cancel;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, Ordering};

struct State {
    cancel: Cancel,
    cancellable: AtomicBool,
    paging: AtomicBool,
}

fn state() -> &'static State {
    static STATE: OnceLock<State> = OnceLock::new();
    STATE.get_or_init(|| {
        let _ = ctrlc::set_handler(on_signal);
        State {
            cancel: Cancel::new(),
            cancellable: AtomicBool::new(false),
            paging: AtomicBool::new(false),
        }
    })
}

fn on_signal() {
    let s = state();
    if s.paging.load(Ordering::SeqCst) {
        return;
    }
    if s.cancellable.load(Ordering::SeqCst) && !s.cancel.is_cancelled() {
        s.cancel.cancel();
        return;
    }
    // Held until the process ends: a write still going on cannot place or make another.
    let _live = pi_session::session::io::temp::remove_registered();
    std::process::exit(Exit::Interrupted.code().into());
}

/// Installs the handler (once; later calls do nothing).
pub fn install() {
    state();
}

/// The work in progress's cancellation: the first Ctrl-C cancels it rather than end the
/// process.
pub fn cancel() -> &'static Cancel {
    let s = state();
    s.cancellable.store(true, Ordering::SeqCst);
    &s.cancel
}

/// The pager runs: Ctrl-C is its own from now on. pi-session must not die and leave it
/// reading from a closed pipe while the shell takes the terminal back; when the pager quits,
/// the next write fails with a broken pipe, which ends the command quietly.
pub fn leave_to_pager() {
    state().paging.store(true, Ordering::SeqCst);
}
