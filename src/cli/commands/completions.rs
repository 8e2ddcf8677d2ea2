//! `completions SHELL`: the completion script of a shell, and the hidden `__complete-revs` and
//! `__complete-sessions` helpers the bash, zsh and fish scripts call to complete revisions
//! with the session's labels, and `-s` with the ids of the current directory's sessions.

use crate::cli::GlobalArgs;
use crate::cli::completion::{SHELLS, script};
use crate::cli::output::{Output, escape_line};
use anyhow::Result;
use clap_complete::Shell;

/// Print the completion script of a shell.
///
/// The bash, zsh and fish scripts complete revisions (REV, TARGET, A, B) with @, root and the
/// labels of the session given with -s on the command line being completed, else of the
/// current directory's most recent session; -s completes files and the ids of the current
/// directory's sessions.
#[derive(Debug, clap::Args)]
#[command(after_long_help = "Installing:
  bash  pi-session completions bash > ~/.local/share/bash-completion/completions/pi-session
  zsh   pi-session completions zsh > ~/.zfunc/_pi-session   (with fpath+=(~/.zfunc) before compinit)
  fish  pi-session completions fish > ~/.config/fish/completions/pi-session.fish")]
pub struct Args {
    /// The shell: bash, zsh, fish or elvish.
    // Not clap_complete's whole list: pi-session runs on Unix only, so no PowerShell script.
    #[arg(value_name = "SHELL", value_parser = shell_parser())]
    pub shell: Shell,
}

/// The shells a script is offered for: those of [`SHELLS`], by the names clap_complete gives them.
fn shell_parser() -> impl clap::builder::TypedValueParser<Value = Shell> {
    use clap::ValueEnum;
    use clap::builder::TypedValueParser;
    let values: Vec<_> = SHELLS.iter().filter_map(Shell::to_possible_value).collect();
    clap::builder::PossibleValuesParser::new(values).map(|name| Shell::from_str(&name, false).expect("one of SHELLS"))
}

/// The revisions to offer when completing REV: `@`, `root` and the current labels, one per line.
#[derive(Debug, clap::Args)]
pub struct RevsArgs {}

pub fn run(args: &Args, out: &mut Output) -> Result<()> {
    out.line(script(args.shell).trim_end_matches('\n'))?;
    Ok(())
}

/// `__complete-revs`: never fails and never warns, so a completion never prints noise. Labels a
/// terminal could not show safely (control characters) are left out.
pub fn run_revs(global: &GlobalArgs, _args: &RevsArgs, out: &mut Output) -> Result<()> {
    out.line("@")?;
    out.line("root")?;
    let Some(session) = std::env::current_dir()
        .ok()
        .and_then(|cwd| pi_session::session::io::locate::find_session(global.session(), &cwd).ok())
        .and_then(|path| pi_session::session::Session::open(&path).ok())
    else {
        return Ok(());
    };
    let mut labels: Vec<&str> = session
        .labels()
        .into_iter()
        .map(|(_, state)| &*state.label)
        .filter(|l| !l.is_empty() && escape_line(l) == *l)
        .collect();
    labels.sort_unstable();
    labels.dedup();
    for label in labels {
        out.line(label)?;
    }
    Ok(())
}

/// `__complete-sessions`: the ids of the current directory's sessions, newest first (as `-s`
/// takes them); like `__complete-revs`, never an error, and no id a terminal could not show.
pub fn run_sessions(out: &mut Output) -> Result<()> {
    let Ok(cwd) = std::env::current_dir() else {
        return Ok(());
    };
    for (_, header) in pi_session::session::io::locate::Locations::discover(&cwd).sessions_here() {
        if !header.id.is_empty() && escape_line(&header.id) == header.id && !header.id.contains(' ') {
            out.line(&header.id)?;
        }
    }
    Ok(())
}
