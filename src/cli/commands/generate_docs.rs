//! The hidden `__generate-docs DIR`: writes the man pages and completion scripts kept in the
//! repository (`man/`, `completions/`). Run `cargo run -- __generate-docs .` after changing the
//! command line; `tests/generated_docs.rs` fails until the committed files match.

use crate::cli::completion::{SHELLS, public_command, script};
use crate::cli::output::Output;
use anyhow::{Context, Result};
use clap_complete::Generator;
use std::path::{Path, PathBuf};

/// Write man/pi-session*.1 and completions/* under DIR.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The repository root to write into.
    #[arg(value_name = "DIR", default_value = ".")]
    pub dir: PathBuf,
}

pub fn run(args: &Args, out: &mut Output) -> Result<()> {
    let written = generate(&args.dir)?;
    for path in written {
        out.line(&crate::cli::output::escape_line(&path.display().to_string()))?;
    }
    Ok(())
}

/// The man page of `cmd` (`name` for its extra sections): clap's sections, then EXAMPLES,
/// ENVIRONMENT and EXIT STATUS, then the version.
fn page(cmd: &clap::Command, name: &str) -> std::io::Result<Vec<u8>> {
    let man = clap_mangen::Man::new(cmd.clone());
    let mut out = Vec::new();
    man.render_title(&mut out)?;
    man.render_name_section(&mut out)?;
    man.render_synopsis_section(&mut out)?;
    man.render_description_section(&mut out)?;
    if cmd.get_arguments().any(|a| !a.is_hide_set()) {
        man.render_options_section(&mut out)?;
    }
    if cmd.get_subcommands().any(|s| !s.is_hide_set()) {
        man.render_subcommands_section(&mut out)?;
    }
    out.extend_from_slice(crate::cli::man_sections::render(name).as_bytes());
    if cmd.get_version().is_some() {
        man.render_version_section(&mut out)?;
    }
    // Each section comes with roff's two-line prologue; the page needs it once, at the top.
    let text = String::from_utf8_lossy(&out).into_owned();
    let prologue = ".ie \\n(.g .ds Aq \\(aq\n.el .ds Aq '\n";
    let body = text.strip_prefix(prologue).unwrap_or(&text).replace(prologue, "");
    Ok(format!("{prologue}{body}").into_bytes())
}

/// The man pages of the command and of each visible subcommand.
fn write_pages(dir: &Path) -> std::io::Result<()> {
    let mut cmd = public_command().disable_help_subcommand(true);
    cmd.build();
    for sub in cmd.get_subcommands().filter(|s| !s.is_hide_set()) {
        let file = dir.join(clap_mangen::Man::new(sub.clone()).get_filename());
        std::fs::write(file, page(sub, sub.get_name())?)?;
    }
    let file = dir.join(clap_mangen::Man::new(cmd.clone()).get_filename());
    std::fs::write(file, page(&cmd, "pi-session")?)
}

/// Writes every file; returns their paths. Stale man pages (of removed commands) are deleted.
pub fn generate(dir: &Path) -> Result<Vec<PathBuf>> {
    let man = dir.join("man");
    let completions = dir.join("completions");
    std::fs::create_dir_all(&man).with_context(|| format!("creating {}", man.display()))?;
    std::fs::create_dir_all(&completions).with_context(|| format!("creating {}", completions.display()))?;
    for entry in std::fs::read_dir(&man)? {
        let path = entry?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if name.starts_with("pi-session") && name.ends_with(".1") {
            std::fs::remove_file(&path)?;
        }
    }
    write_pages(&man).with_context(|| format!("writing {}", man.display()))?;
    let mut written: Vec<PathBuf> = std::fs::read_dir(&man)?
        .map(|e| e.map(|e| e.path()))
        .collect::<std::io::Result<_>>()?;
    written.sort();
    for shell in SHELLS {
        let path = completions.join(shell.file_name("pi-session"));
        std::fs::write(&path, script(shell)).with_context(|| format!("writing {}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}
