//! The hidden `__generate-docs DIR`: writes the man pages and completion scripts kept in the
//! repository (`man/`, `completions/`). Run `cargo run -- __generate-docs .` after changing the
//! command line; `tests/generated_docs.rs` fails until the committed files match.

use crate::cli::completion::{public_command, script};
use crate::cli::output::Output;
use anyhow::{Context, Result};
use clap_complete::{Generator, Shell};
use std::path::{Path, PathBuf};

/// Write man/pi-session*.1 and completions/* under DIR.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The repository root to write into.
    #[arg(value_name = "DIR", default_value = ".")]
    pub dir: PathBuf,
}

/// The shells whose scripts are kept, in `completions/`.
pub const SHELLS: [Shell; 5] = [Shell::Bash, Shell::Zsh, Shell::Fish, Shell::Elvish, Shell::PowerShell];

pub fn run(args: &Args, out: &mut Output) -> Result<()> {
    let written = generate(&args.dir)?;
    for path in written {
        out.line(&crate::cli::output::escape_line(&path.display().to_string()))?;
    }
    Ok(())
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
    clap_mangen::generate_to(public_command(), &man).with_context(|| format!("writing {}", man.display()))?;
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
