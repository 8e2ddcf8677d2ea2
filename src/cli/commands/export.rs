//! `pi-session export`: the arguments, the output's destination, and the cycle warning; the
//! transcript itself is written by the library ([`pi_session::export`]).

use crate::cli::GlobalArgs;
use crate::cli::output::{Output, local_time};
use crate::cli::progress::{Terminal, while_doing};
use crate::cli::session_arg::{open_session_redacted, warn_cycle};
use anyhow::Result;
use pi_session::export::{self, Export};
use pi_session::session::io::write;
use std::path::{Path, PathBuf};

/// Export a branch as a readable transcript: Markdown, or one self-contained HTML file.
///
/// The transcript follows the branch ending at REV from its root: messages with their text,
/// thinking, tool calls with their results, bash commands, custom messages, compaction and
/// branch summaries, labels, and model changes. Calls of Pi's built-in tools show what they
/// did: the path and lines a `read` read, an `edit` as a diff, the file a `write` wrote, the
/// command a `bash` ran. The HTML file renders each message's Markdown, highlights code, has
/// its CSS inline (light and dark), loads nothing and runs no script: long outputs, thinking
/// and written files fold into sections that open on a click. `--all-branches` adds every
/// other branch of the tree, with an outline to move between them.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Export the branch ending at this revision [default: @].
    #[arg(value_name = "REV")]
    pub rev: Option<String>,

    /// md or html [default: html when FILE ends in .html or .htm, else md].
    #[arg(long, value_enum)]
    pub format: Option<Format>,

    /// Write to FILE instead of stdout (`-` is stdout). The file is written atomically (a temp
    /// file linked into place) and never replaces an existing file without --force. HTML is
    /// not printed to a terminal without `-o -`.
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub output: Option<PathBuf>,

    /// Replace the -o file if it exists (atomically: the new file is renamed over it).
    #[arg(long, short = 'f')]
    pub force: bool,

    /// Take the credentials `secrets` finds (built-in rules, ./.gitleaks.toml, your own
    /// keys) out of what is written, as `redact` would; the session file is not changed.
    #[arg(long)]
    pub redact: bool,

    /// Export the whole tree: the branch of REV (@) first, then every other branch from the
    /// entry it leaves, each entry once, with an outline of them all and links at each
    /// branch point.
    #[arg(long)]
    pub all_branches: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Md,
    Html,
}

fn format_of(args: &Args) -> export::Format {
    let ext = args
        .output
        .as_deref()
        .and_then(Path::extension)
        .map(|e| e.to_string_lossy().to_ascii_lowercase());
    match (args.format, ext.as_deref()) {
        (Some(Format::Html), _) | (None, Some("html" | "htm")) => export::Format::Html,
        _ => export::Format::Md,
    }
}

/// The command's output as a writer.
struct Raw<'o>(&'o mut Output);

impl std::io::Write for Raw<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0.raw(buf)?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.0.flush()
    }
}

pub fn run(global: &GlobalArgs, args: &Args, out: &mut Output) -> Result<()> {
    // A page of HTML is for a browser: a terminal would get a megabyte of markup.
    if out.is_terminal && args.output.is_none() && format_of(args) == export::Format::Html {
        return Err(crate::cli::exit::CommandError::usage(
            "an HTML transcript is a file for a browser, not for a terminal",
            "write it to a file with `-o FILE.html` (or pipe it, or `-o -` to print it anyway)",
        ));
    }
    // The head's times need the system's time zone, whose lookup walks the zone database:
    // done on the side while the session loads, not after it.
    std::thread::spawn(|| local_time(Some("1970-01-01T00:00:00.000Z")));
    let progress = Terminal::new();
    let reading = if args.redact {
        "reading and redacting the session"
    } else {
        "reading the session"
    };
    let session = while_doing(&progress, reading, || open_session_redacted(global, args.redact))?;
    let options = export::Options {
        format: format_of(args),
        rev: args.rev.clone(),
        all_branches: args.all_branches,
    };
    let export = while_doing(&progress, "laying out the transcript", || {
        Export::new(&session, &options)
    })?;
    warn_cycle(&session, export.cycle_at());
    match args.output.as_deref().filter(|p| p.as_os_str() != "-") {
        Some(path) => {
            let what = format!("writing {}", path.file_name().unwrap_or_default().to_string_lossy());
            while_doing(&progress, &what, || {
                write::write_file_with(path, args.force, |f| export.write(f))
            })?
        }
        // No spinner over the transcript itself, on the terminal or in its pager.
        None => export.write(&mut Raw(out))?,
    }
    // The process ends next, and takes the branch's index, the session's index and its
    // mapping with it faster than freeing them piece by piece would.
    std::mem::forget(export);
    std::mem::forget(session);
    Ok(())
}
