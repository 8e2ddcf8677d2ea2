//! The exit statuses pi-session documents, in one place, and the errors whose words a
//! command chooses itself.

/// How the process ends. The README's "Exit status" and `--help` list the same codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// 0: done.
    Success,
    /// 1: the command failed, or its answer is "no": `grep` found nothing, `repair --check`
    /// found a defect.
    Failure,
    /// 2: a usage error; `grep` also ends with 2 when an error kept it from searching
    /// everything, as ripgrep does.
    Usage,
    /// 4: `--expect-leaf` did not match, or Pi's leaf moved while a model wrote a summary;
    /// nothing was written.
    LeafMismatch,
    /// 130: interrupted by Ctrl-C, SIGTERM or SIGHUP (see `cli::interrupt`): the temp files
    /// of the writes under way removed, nothing written; or Ctrl-C while waiting for a model.
    Interrupted,
}

impl Exit {
    pub fn code(self) -> u8 {
        match self {
            Exit::Success => 0,
            Exit::Failure => 1,
            Exit::Usage => 2,
            Exit::LeafMismatch => 4,
            Exit::Interrupted => 130,
        }
    }
}

impl From<Exit> for std::process::ExitCode {
    fn from(e: Exit) -> Self {
        std::process::ExitCode::from(e.code())
    }
}

impl Exit {
    /// How a search ends, as ripgrep's does: 0 something matched, 1 nothing did, 2 an error
    /// anywhere, even after matches; with `quiet`, a match is the answer whatever else went
    /// wrong.
    pub fn of_search(matched: bool, failed: bool, quiet: bool) -> Exit {
        match (failed, matched) {
            (_, true) if quiet => Exit::Success,
            (true, _) => Exit::Usage,
            (false, true) => Exit::Success,
            (false, false) => Exit::Failure,
        }
    }
}

/// Most commands succeed or fail; `run` returning `()` means success.
impl From<()> for Exit {
    fn from((): ()) -> Self {
        Exit::Success
    }
}

/// An error worded by the command: rendered as `error:` and `hint:` lines like every other
/// error, ending the process with `exit`.
#[derive(Debug)]
pub struct CommandError {
    pub message: String,
    pub hint: Option<String>,
    pub exit: Exit,
}

impl CommandError {
    /// Options that cannot go together, or an argument missing: exit status 2.
    pub fn usage(message: impl Into<String>, hint: impl Into<String>) -> anyhow::Error {
        CommandError {
            message: message.into(),
            hint: Some(hint.into()),
            exit: Exit::Usage,
        }
        .into()
    }

    /// A refusal with its own advice: exit status 1.
    pub fn refused(message: impl Into<String>, hint: impl Into<String>) -> anyhow::Error {
        CommandError {
            message: message.into(),
            hint: Some(hint.into()),
            exit: Exit::Failure,
        }
        .into()
    }
}

impl std::fmt::Display for CommandError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for CommandError {}
