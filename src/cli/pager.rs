//! Paging long human output, as git does: `$PI_SESSION_PAGER`, else `$PAGER`, else
//! `less -FRX`; only when stdout is a terminal; `--no-pager`, an empty pager or `cat` turn it off.

use std::process::{Child, ChildStdin, Stdio};

/// The pager used when neither `$PI_SESSION_PAGER` nor `$PAGER` is set.
pub const DEFAULT_PAGER: &str = "less -FRX";

/// The pager command line from the environment, or `None` when paging is turned off.
pub fn pager_command() -> Option<String> {
    let var = |name: &str| std::env::var_os(name).map(|v| v.to_string_lossy().into_owned());
    let cmd = var("PI_SESSION_PAGER")
        .or_else(|| var("PAGER"))
        .unwrap_or_else(|| DEFAULT_PAGER.to_owned());
    let cmd = cmd.trim();
    (!cmd.is_empty() && cmd != "cat").then(|| cmd.to_owned())
}

/// A command line that needs no shell: words of ordinary characters only. These are run
/// directly, so a pager that is not installed is noticed (and stdout used instead).
fn is_simple(cmd: &str) -> bool {
    cmd.chars()
        .all(|c| c.is_alphanumeric() || c == ' ' || "-_./+,:@%".contains(c))
}

/// A running pager reading what is written to `stdin`.
pub struct Pager {
    pub child: Child,
    pub stdin: ChildStdin,
}

/// Starts the pager; `None` when it cannot be started (the caller writes to stdout then).
pub fn spawn(cmd: &str) -> Option<Pager> {
    let mut command = if is_simple(cmd) || cfg!(not(unix)) {
        let mut words = cmd.split_whitespace();
        let mut c = std::process::Command::new(words.next()?);
        c.args(words);
        c
    } else {
        let mut c = std::process::Command::new("sh");
        c.arg("-c").arg(cmd);
        c
    };
    // As git does: quit if one screen, keep colors, do not clear the screen on exit.
    if std::env::var_os("LESS").is_none() {
        command.env("LESS", "FRX");
    }
    if std::env::var_os("LV").is_none() {
        command.env("LV", "-c");
    }
    let mut child = command.stdin(Stdio::piped()).spawn().ok()?;
    let Some(stdin) = child.stdin.take() else {
        let _ = child.kill();
        let _ = child.wait();
        return None;
    };
    // Ctrl-C belongs to the pager while it runs.
    super::interrupt::leave_to_pager();
    Some(Pager { child, stdin })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn simple_commands_run_without_a_shell() {
        assert!(is_simple("less -FRX"));
        assert!(is_simple("/usr/bin/most"));
        assert!(!is_simple("less | tee x"));
        assert!(!is_simple("LESS=R less"));
        assert!(!is_simple("less $X"));
    }
}
