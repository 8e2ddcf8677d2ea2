//! The `paths` rule's two halves: where a tool's `path` argument pointed, resolved the way
//! Pi's tools resolve it against the session's working directory, and whether that place
//! matches the allowed globs. The globs are gitignore lines (the `ignore` crate's matcher,
//! ripgrep's): `*.md` matches at any depth, `/build` or `src/*.rs` only from the top,
//! `docs/` a directory and everything in it, `!` takes a path back out.

use crate::session::branch_copy::resolve;
use ignore::gitignore::{Gitignore, GitignoreBuilder};
use std::path::{Path, PathBuf};

/// The allowed globs.
pub struct Allowed(Gitignore);

impl Allowed {
    /// The matcher of `globs`; an error names the glob that is not one.
    pub fn new(globs: &[String]) -> Result<Allowed, String> {
        let mut builder = GitignoreBuilder::new("");
        for glob in globs {
            builder
                .add_line(None, glob)
                .map_err(|e| format!("--paths {glob:?}: {e}"))?;
        }
        builder.build().map(Allowed).map_err(|e| e.to_string())
    }

    /// Whether `path` (relative to the working directory, inside it) is allowed: it or a
    /// directory above it matches a glob that no later `!` glob takes back.
    pub fn allows(&self, relative: &Path) -> bool {
        self.0.matched_path_or_any_parents(relative, false).is_ignore()
    }
}

/// Where a tool's `path` argument points, relative to the working directory `cwd`; `None`
/// when it is outside it. As Pi's `resolveToCwd`: unicode spaces read as spaces, a leading
/// `@` dropped, `~` is the home directory, and the path is resolved against `cwd` without
/// looking at the disk (`..` removes the component before it).
pub fn inside(path: &str, cwd: &str, home: Option<&Path>) -> Option<PathBuf> {
    let spaced: String = path
        .chars()
        .map(|c| match c {
            '\u{00A0}' | '\u{2000}'..='\u{200A}' | '\u{202F}' | '\u{205F}' | '\u{3000}' => ' ',
            c => c,
        })
        .collect();
    let path = spaced.strip_prefix('@').unwrap_or(&spaced);
    let expanded: PathBuf = match (path, home) {
        ("~", Some(home)) => home.to_path_buf(),
        (p, Some(home)) if p.starts_with("~/") => home.join(&p[2..]),
        (p, _) => PathBuf::from(p.strip_prefix("file://").unwrap_or(p)),
    };
    let cwd = resolve(Path::new("/"), Path::new(cwd));
    let full = resolve(&cwd, &expanded);
    let relative = full.strip_prefix(&cwd).ok()?;
    (!relative.as_os_str().is_empty()).then(|| relative.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allowed(globs: &[&str]) -> Allowed {
        Allowed::new(&globs.iter().map(|g| g.to_string()).collect::<Vec<_>>()).unwrap()
    }

    #[test]
    fn globs_read_as_gitignore_lines() {
        let a = allowed(&["*.md", "/src/**/*.rs", "docs/", "tests/", "!tests/fixtures/"]);
        for ok in [
            "README.md",
            "deep/a/b.md",
            "src/main.rs",
            "src/a/b.rs",
            "docs/x/y.png",
            "tests/a.rs",
        ] {
            assert!(a.allows(Path::new(ok)), "{ok}");
        }
        for no in [
            "main.rs",
            "lib/src/main.rs",
            "Cargo.toml",
            "tests/fixtures/x.json",
            "docsx/a",
        ] {
            assert!(!a.allows(Path::new(no)), "{no}");
        }
    }

    #[test]
    fn paths_resolve_as_pis_tools_resolve_them() {
        let home = Some(Path::new("/home/u"));
        let at = |p| inside(p, "/home/u/proj", home);
        assert_eq!(at("src/a.rs"), Some("src/a.rs".into()));
        assert_eq!(at("./src/../b.rs"), Some("b.rs".into()));
        assert_eq!(at("@src/a.rs"), Some("src/a.rs".into()));
        assert_eq!(at("/home/u/proj/x/y"), Some("x/y".into()));
        assert_eq!(at("~/proj/z"), Some("z".into()));
        assert_eq!(at("a\u{00A0}b"), Some("a b".into()));
        assert_eq!(at("../other/a.rs"), None);
        assert_eq!(at("/etc/passwd"), None);
        assert_eq!(at("/home/u/project/a"), None);
        assert_eq!(at("."), None);
    }
}
