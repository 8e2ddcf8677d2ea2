//! The one progress helper of the binary: draws what the library reports through
//! [`pi_session::progress::Progress`] as a spinner or a bar on a terminal's stderr (and
//! nothing elsewhere). (Ctrl-C cancels work through [`super::interrupt::cancel`].)

use indicatif::{ProgressBar, ProgressStyle};
use pi_session::progress::Progress;
use std::io::IsTerminal;
use std::sync::Mutex;
use std::time::Duration;

/// Progress on stderr when it is a terminal; silent otherwise.
pub struct Terminal {
    bar: Mutex<Option<ProgressBar>>,
    enabled: bool,
}

impl Terminal {
    pub fn new() -> Terminal {
        Terminal {
            bar: Mutex::new(None),
            enabled: std::io::stderr().is_terminal(),
        }
    }

    fn with_bar(&self, f: impl FnOnce(&ProgressBar)) {
        if let Some(bar) = self.bar.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
            f(bar);
        }
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
        let bar = match total {
            Some(n) => {
                let bar = ProgressBar::new(n);
                if let Ok(style) = ProgressStyle::with_template("{msg} [{bar:30}] {pos}/{len}") {
                    bar.set_style(style.progress_chars("=> "));
                }
                bar
            }
            None => {
                let bar = ProgressBar::new_spinner();
                if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} [{elapsed}]") {
                    bar.set_style(style);
                }
                bar.enable_steady_tick(Duration::from_millis(100));
                bar
            }
        };
        bar.set_message(super::output::escape_line(what));
        let old = self.bar.lock().unwrap_or_else(|e| e.into_inner()).replace(bar);
        if let Some(old) = old {
            old.finish_and_clear();
        }
    }

    fn advance(&self, n: u64) {
        self.with_bar(|b| b.inc(n));
    }

    fn message(&self, text: &str) {
        self.with_bar(|b| b.set_message(super::output::escape_line(text)));
    }

    fn finish(&self) {
        if let Some(bar) = self.bar.lock().unwrap_or_else(|e| e.into_inner()).take() {
            bar.finish_and_clear();
        }
    }
}
