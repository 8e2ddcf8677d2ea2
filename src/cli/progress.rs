//! The one progress helper of the binary: draws what the library reports through
//! [`pi_session::progress::Progress`] as a spinner or a bar on a terminal's stderr (and
//! nothing elsewhere). (Ctrl-C cancels work through [`super::interrupt::cancel`].)
//!
//! A phase is drawn only once it has lasted [`DELAY`]: most runs are quick, and a bar that
//! flashes for a tenth of a second is noise (and a flicker over the output that follows).

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use pi_session::progress::Progress;
use std::io::IsTerminal;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

/// How long a phase runs unseen.
pub const DELAY: Duration = Duration::from_secs(1);

/// The bar on screen, if any, for [`suspend`].
static DRAWN: Mutex<Option<ProgressBar>> = Mutex::new(None);

/// Runs `f` (which prints a line on stderr) with the bar on screen, if any, cleared
/// meanwhile and drawn again after: a warning does not end up on the bar's line.
pub fn suspend<R>(f: impl FnOnce() -> R) -> R {
    let drawn = DRAWN.lock().unwrap_or_else(|e| e.into_inner()).clone();
    match drawn {
        Some(bar) => bar.suspend(f),
        None => f(),
    }
}

/// Records the bar on screen (`None`: none any more).
fn set_drawn(bar: Option<&ProgressBar>) {
    *DRAWN.lock().unwrap_or_else(|e| e.into_inner()) = bar.cloned();
}

/// The phase being reported: `id` tells the thread that reveals a bar whether the phase
/// it waited for is still the current one.
#[derive(Default)]
struct Slot {
    id: u64,
    bar: Option<ProgressBar>,
    shown: bool,
}

/// Progress on stderr when it is a terminal; silent otherwise.
pub struct Terminal {
    slot: Arc<Mutex<Slot>>,
    enabled: bool,
    delay: Duration,
}

fn lock(slot: &Mutex<Slot>) -> MutexGuard<'_, Slot> {
    slot.lock().unwrap_or_else(|e| e.into_inner())
}

impl Terminal {
    pub fn new() -> Terminal {
        Terminal::with(std::io::stderr().is_terminal(), DELAY)
    }

    /// Progress when `enabled` (a command's `--json` passes false: its stderr is for errors).
    pub fn when(enabled: bool) -> Terminal {
        Terminal::with(enabled && std::io::stderr().is_terminal(), DELAY)
    }

    fn with(enabled: bool, delay: Duration) -> Terminal {
        Terminal {
            slot: Arc::default(),
            enabled,
            delay,
        }
    }

    fn with_bar(&self, f: impl FnOnce(&ProgressBar)) {
        if let Some(bar) = lock(&self.slot).bar.as_ref() {
            f(bar);
        }
    }

    /// Whether the current phase is drawn.
    #[cfg(test)]
    fn shown(&self) -> bool {
        lock(&self.slot).shown
    }
}

impl Default for Terminal {
    fn default() -> Self {
        Terminal::new()
    }
}

impl Progress for Terminal {
    fn start(&self, what: &str, total: Option<u64>) {
        if !self.enabled {
            return;
        }
        // Drawn nowhere until the delay has passed.
        let bar = ProgressBar::with_draw_target(total, ProgressDrawTarget::hidden());
        match total {
            Some(_) => {
                if let Ok(style) = ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len}") {
                    bar.set_style(style.progress_chars("=> "));
                }
            }
            None => {
                if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} [{elapsed}]") {
                    bar.set_style(style);
                }
                bar.enable_steady_tick(Duration::from_millis(100));
            }
        }
        bar.set_message(super::output::escape_line(what));
        let id = {
            let mut slot = lock(&self.slot);
            if let Some(old) = slot.bar.replace(bar) {
                if slot.shown {
                    set_drawn(None);
                }
                old.finish_and_clear();
            }
            slot.id += 1;
            slot.shown = false;
            slot.id
        };
        let (slot, delay) = (Arc::clone(&self.slot), self.delay);
        // Not joined: a process that ends first simply never draws.
        std::thread::spawn(move || {
            std::thread::sleep(delay);
            let mut slot = lock(&slot);
            if slot.id == id
                && let Some(bar) = slot.bar.as_ref()
            {
                bar.set_draw_target(ProgressDrawTarget::stderr());
                bar.tick();
                set_drawn(Some(bar));
                slot.shown = true;
            }
        });
    }

    fn advance(&self, n: u64) {
        self.with_bar(|b| b.inc(n));
    }

    fn message(&self, text: &str) {
        self.with_bar(|b| b.set_message(super::output::escape_line(text)));
    }

    fn finish(&self) {
        let mut slot = lock(&self.slot);
        if let Some(bar) = slot.bar.take() {
            if slot.shown {
                set_drawn(None);
            }
            bar.finish_and_clear();
        }
        slot.shown = false;
    }
}

/// Shows `what` as a spinner while `work` runs (after [`DELAY`], on a terminal).
pub fn while_doing<T>(progress: &dyn Progress, what: &str, work: impl FnOnce() -> T) -> T {
    progress.start(what, None);
    let result = work();
    progress.finish();
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHORT: Duration = Duration::from_millis(50);

    #[test]
    fn a_phase_is_drawn_only_after_the_delay() {
        let t = Terminal::with(true, SHORT);
        t.start("reading", None);
        assert!(!t.shown(), "drawn at once");
        std::thread::sleep(SHORT * 6);
        assert!(t.shown(), "not drawn after the delay");
        t.finish();
        assert!(!t.shown());
    }

    #[test]
    fn a_phase_over_before_the_delay_is_never_drawn() {
        let t = Terminal::with(true, SHORT);
        t.start("reading", Some(10));
        t.advance(10);
        t.finish();
        // A second quick phase: the first phase's timer must not reveal it.
        t.start("writing", None);
        std::thread::sleep(SHORT / 2);
        t.finish();
        std::thread::sleep(SHORT * 4);
        assert!(!t.shown());
    }

    #[test]
    fn nothing_is_drawn_when_disabled() {
        let t = Terminal::with(false, SHORT);
        t.start("reading", None);
        std::thread::sleep(SHORT * 4);
        assert!(!t.shown());
    }
}
