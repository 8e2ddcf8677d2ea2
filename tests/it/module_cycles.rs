//! No import cycles between modules: a module (one file under `src/`) never reaches itself
//! through the paths it names (`use crate::…`, `use super::…`, `pi_session::…`, a child module's
//! `name::…`, in `use` items or in code). `mod x;` declarations are not imports, and
//! `#[cfg(test)]` modules may reach anything. A name a module re-exports (`pub use a::B`) counts
//! as an import of the module that defines it.
//!
//! A module naming its own submodules (`cli` dispatching to `cli::commands::log`, `session`
//! calling `session::load`) is not counted: a parent is the face of its subtree, and its
//! children may use the types it defines. Every other edge counts, so a cycle through siblings
//! or cousins (`cli/output` -> `cli/pager` -> `cli/commands/export` -> `cli/output`) fails.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// A module: which crate (`lib` for `src/lib.rs`'s tree, `bin` for `src/main.rs`'s) and its path.
type Module = (&'static str, Vec<String>);

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    Punct(char),
    /// `::`
    Sep,
}

/// Comments, strings and chars removed; identifiers, `::` and punctuation kept.
fn lex(src: &str) -> Vec<Tok> {
    let b: Vec<char> = src.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let next = b.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < b.len() && b[i] != '\n' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            let mut depth = 0;
            while i < b.len() {
                if b[i] == '/' && b.get(i + 1) == Some(&'*') {
                    depth += 1;
                    i += 2;
                } else if b[i] == '*' && b.get(i + 1) == Some(&'/') {
                    depth -= 1;
                    i += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    i += 1;
                }
            }
        } else if c == 'r' && (next == Some('"') || next == Some('#')) && !prev_ident(&b, i) {
            // Raw string r"…" or r#"…"#.
            let mut j = i + 1;
            let mut hashes = 0;
            while b.get(j) == Some(&'#') {
                hashes += 1;
                j += 1;
            }
            if b.get(j) != Some(&'"') {
                out.push(Tok::Ident("r".into()));
                i += 1;
                continue;
            }
            j += 1;
            loop {
                if j >= b.len() {
                    break;
                }
                if b[j] == '"' && (0..hashes).all(|k| b.get(j + 1 + k) == Some(&'#')) {
                    j += 1 + hashes;
                    break;
                }
                j += 1;
            }
            i = j;
        } else if c == '"' {
            i += 1;
            while i < b.len() && b[i] != '"' {
                if b[i] == '\\' {
                    i += 1;
                }
                i += 1;
            }
            i += 1;
        } else if c == '\'' {
            // A char literal ('x', '\n', '\u{1F}') or a lifetime ('a).
            if next == Some('\\') {
                i += 2;
                while i < b.len() && b[i] != '\'' {
                    i += 1;
                }
                i += 1;
            } else if b.get(i + 2) == Some(&'\'') {
                i += 3;
            } else {
                i += 1;
                while i < b.len() && (b[i].is_alphanumeric() || b[i] == '_') {
                    i += 1;
                }
            }
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < b.len() && (b[i].is_alphanumeric() || b[i] == '_') {
                i += 1;
            }
            out.push(Tok::Ident(b[start..i].iter().collect()));
        } else if c == ':' && next == Some(':') {
            out.push(Tok::Sep);
            i += 2;
        } else if c.is_whitespace() || c.is_numeric() {
            i += 1;
        } else {
            out.push(Tok::Punct(c));
            i += 1;
        }
    }
    out
}

fn prev_ident(b: &[char], i: usize) -> bool {
    i > 0 && (b[i - 1].is_alphanumeric() || b[i - 1] == '_')
}

fn ident(t: Option<&Tok>) -> Option<&str> {
    match t {
        Some(Tok::Ident(s)) => Some(s),
        _ => None,
    }
}

/// Drops `#[cfg(test)]` items (a test module may reach anything).
fn without_tests(toks: Vec<Tok>) -> Vec<Tok> {
    let pat = [
        Tok::Punct('#'),
        Tok::Punct('['),
        Tok::Ident("cfg".into()),
        Tok::Punct('('),
        Tok::Ident("test".into()),
        Tok::Punct(')'),
        Tok::Punct(']'),
    ];
    let mut out = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        if toks[i..].starts_with(&pat) {
            // Skip to the end of the item: its `{…}` block, or a `;` before one.
            let mut j = i + pat.len();
            while j < toks.len() && toks[j] != Tok::Punct('{') && toks[j] != Tok::Punct(';') {
                j += 1;
            }
            if toks.get(j) == Some(&Tok::Punct('{')) {
                let mut depth = 0;
                while j < toks.len() {
                    match toks[j] {
                        Tok::Punct('{') => depth += 1,
                        Tok::Punct('}') => {
                            depth -= 1;
                            if depth == 0 {
                                break;
                            }
                        }
                        _ => {}
                    }
                    j += 1;
                }
            }
            i = j + 1;
        } else {
            out.push(toks[i].clone());
            i += 1;
        }
    }
    out
}

/// The flat paths of a use tree starting at `toks[*i]`, each with its local name.
fn use_tree(toks: &[Tok], i: &mut usize, prefix: &[String], out: &mut Vec<(Vec<String>, String)>) {
    let mut path = prefix.to_vec();
    loop {
        match toks.get(*i) {
            Some(Tok::Ident(s)) if s != "as" => {
                path.push(s.clone());
                *i += 1;
                if toks.get(*i) == Some(&Tok::Sep) {
                    *i += 1;
                    continue;
                }
                let mut name = path.last().cloned().unwrap_or_default();
                if ident(toks.get(*i)) == Some("as") {
                    name = ident(toks.get(*i + 1)).unwrap_or("_").to_owned();
                    *i += 2;
                }
                if name == "self" {
                    path.pop();
                    name = path.last().cloned().unwrap_or_default();
                }
                out.push((path, name));
                return;
            }
            Some(Tok::Punct('{')) => {
                *i += 1;
                while toks.get(*i).is_some_and(|t| *t != Tok::Punct('}')) {
                    use_tree(toks, i, &path, out);
                    if toks.get(*i) == Some(&Tok::Punct(',')) {
                        *i += 1;
                    }
                }
                *i += 1;
                return;
            }
            Some(Tok::Punct('*')) => {
                *i += 1;
                out.push((path, "*".into()));
                return;
            }
            _ => {
                *i += 1;
                return;
            }
        }
    }
}

struct File {
    module: Module,
    /// `mod x;` children.
    children: BTreeSet<String>,
    /// Paths named in `use` items, with whether the item is `pub` and its local name.
    uses: Vec<(bool, Vec<String>, String)>,
    /// Paths named in code.
    paths: Vec<Vec<String>>,
}

fn parse(module: Module, src: &str) -> File {
    let toks = without_tests(lex(src));
    let mut f = File {
        module,
        children: BTreeSet::new(),
        uses: Vec::new(),
        paths: Vec::new(),
    };
    let mut i = 0;
    while i < toks.len() {
        match ident(toks.get(i)) {
            Some("mod") if matches!(toks.get(i + 2), Some(Tok::Punct(';'))) => {
                f.children.insert(ident(toks.get(i + 1)).unwrap_or_default().to_owned());
                i += 3;
            }
            Some("use") => {
                let public = i > 0 && ident(toks.get(i - 1)) == Some("pub")
                    || (i > 3 && ident(toks.get(i - 4)) == Some("pub") && toks.get(i - 3) == Some(&Tok::Punct('(')));
                i += 1;
                if toks.get(i) == Some(&Tok::Sep) {
                    i += 1;
                }
                let mut flat = Vec::new();
                use_tree(&toks, &mut i, &[], &mut flat);
                f.uses.extend(flat.into_iter().map(|(p, n)| (public, p, n)));
            }
            Some(_) if toks.get(i + 1) == Some(&Tok::Sep) && !(i > 0 && toks[i - 1] == Tok::Sep) => {
                let mut path = Vec::new();
                let mut j = i;
                while let Some(s) = ident(toks.get(j)) {
                    path.push(s.to_owned());
                    if toks.get(j + 1) != Some(&Tok::Sep) {
                        break;
                    }
                    j += 2;
                }
                f.paths.push(path);
                i = j + 1;
            }
            _ => i += 1,
        }
    }
    f
}

fn module_of(src: &Path, file: &Path) -> Module {
    let rel = file.strip_prefix(src).unwrap();
    let mut segs: Vec<String> = rel.iter().map(|s| s.to_string_lossy().into_owned()).collect();
    let last = segs.pop().unwrap();
    let stem = last.trim_end_matches(".rs");
    if !matches!(stem, "mod" | "lib" | "main") {
        segs.push(stem.to_owned());
    }
    // The binary is `main.rs` and the `cli` tree it declares; the rest is the library.
    let krate = if last == "main.rs" && segs.is_empty() || segs.first().is_some_and(|s| s == "cli") {
        "bin"
    } else {
        "lib"
    };
    (krate, segs)
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            rust_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "rs") {
            out.push(p);
        }
    }
}

struct Graph {
    files: BTreeMap<Module, File>,
}

impl Graph {
    /// The absolute module path a path names from `from`, or `None` for an outside crate.
    fn absolute(&self, from: &File, path: &[String]) -> Option<(&'static str, Vec<String>)> {
        let (krate, here) = (&from.module.0, &from.module.1);
        let first = path.first()?;
        let (base, rest): ((&'static str, Vec<String>), &[String]) = match first.as_str() {
            "crate" => ((krate, vec![]), &path[1..]),
            "pi_session" => (("lib", vec![]), &path[1..]),
            "self" => ((krate, here.clone()), &path[1..]),
            "super" => {
                let mut m = here.clone();
                let mut k = 0;
                while path.get(k).is_some_and(|s| s == "super") {
                    m.pop();
                    k += 1;
                }
                ((krate, m), &path[k..])
            }
            name if from.children.contains(name) => ((krate, here.clone()), path),
            _ => return None,
        };
        let mut segs = base.1;
        segs.extend(rest.iter().cloned());
        Some((base.0, segs))
    }

    /// The file that defines what an absolute path names, following re-exports.
    fn resolve(&self, krate: &'static str, segs: &[String], depth: usize) -> Option<Module> {
        let n = (0..=segs.len())
            .rev()
            .find(|&n| self.files.contains_key(&(krate, segs[..n].to_vec())))?;
        let module: Module = (krate, segs[..n].to_vec());
        if depth < 8
            && let Some(name) = segs.get(n)
        {
            let file = &self.files[&module];
            for (public, path, local) in &file.uses {
                if *public
                    && local == name
                    && let Some((k, abs)) = self.absolute(file, path)
                    && let Some(m) = self.resolve(k, &abs, depth + 1)
                {
                    return Some(m);
                }
            }
        }
        Some(module)
    }

    fn edges(&self) -> BTreeMap<Module, BTreeSet<Module>> {
        let mut edges: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
        for (m, f) in &self.files {
            let targets = edges.entry(m.clone()).or_default();
            let named = f.uses.iter().map(|(_, p, _)| p).chain(&f.paths);
            for path in named {
                if let Some((k, abs)) = self.absolute(f, path)
                    && let Some(t) = self.resolve(k, &abs, 0)
                    && t != *m
                    && !(t.0 == m.0 && t.1.starts_with(&m.1))
                {
                    targets.insert(t);
                }
            }
        }
        edges
    }
}

fn graph() -> Graph {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut paths = Vec::new();
    rust_files(&src, &mut paths);
    let files = paths
        .iter()
        .map(|p| {
            let m = module_of(&src, p);
            (m.clone(), parse(m, &std::fs::read_to_string(p).unwrap()))
        })
        .collect();
    Graph { files }
}

fn name(m: &Module) -> String {
    match (m.0, m.1.is_empty()) {
        ("bin", true) => "main".into(),
        (_, true) => "lib".into(),
        _ => m.1.join("/"),
    }
}

/// Every cycle, as the strongly connected components (of two or more modules) with one
/// cycle through each shown.
fn cycles(edges: &BTreeMap<Module, BTreeSet<Module>>) -> Vec<Vec<Module>> {
    // Components by mutual reachability (the graph is small).
    let reach = |from: &Module| {
        let mut seen = BTreeSet::new();
        let mut stack = vec![from.clone()];
        while let Some(m) = stack.pop() {
            for t in edges.get(&m).into_iter().flatten() {
                if seen.insert(t.clone()) {
                    stack.push(t.clone());
                }
            }
        }
        seen
    };
    let reached: BTreeMap<&Module, BTreeSet<Module>> = edges.keys().map(|m| (m, reach(m))).collect();
    let mut done = BTreeSet::new();
    let mut out = Vec::new();
    for m in edges.keys() {
        if done.contains(m) || !reached[m].contains(m) {
            continue;
        }
        let comp: Vec<Module> = edges
            .keys()
            .filter(|o| (*o == m || reached[m].contains(*o)) && reached[*o].contains(m))
            .cloned()
            .collect();
        done.extend(comp.iter().cloned());
        out.push(comp);
    }
    out
}

/// One shortest cycle through `start` inside `comp`.
fn cycle_through(edges: &BTreeMap<Module, BTreeSet<Module>>, comp: &[Module], start: &Module) -> Vec<Module> {
    let inside: BTreeSet<&Module> = comp.iter().collect();
    let mut prev: BTreeMap<Module, Module> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start.clone()]);
    while let Some(m) = queue.pop_front() {
        for t in edges.get(&m).into_iter().flatten().filter(|t| inside.contains(t)) {
            if t == start {
                let mut path = vec![m.clone()];
                while let Some(p) = prev.get(path.last().unwrap()) {
                    path.push(p.clone());
                }
                path.reverse();
                return path;
            }
            if !prev.contains_key(t) {
                prev.insert(t.clone(), m.clone());
                queue.push_back(t.clone());
            }
        }
    }
    vec![start.clone()]
}

/// Cycles that work under way on issue 11 removes (the LLM client and its providers, the model
/// table and the built-in models). A cycle among modules all listed in one entry is tolerated;
/// empty this list once they are gone.
const KNOWN_CYCLES: &[&[&str]] = &[];

#[test]
fn no_import_cycles_between_modules() {
    let edges = graph().edges();
    let mut found = Vec::new();
    for comp in cycles(&edges) {
        let names: Vec<String> = comp.iter().map(name).collect();
        if KNOWN_CYCLES
            .iter()
            .any(|known| names.iter().all(|n| known.contains(&n.as_str())))
        {
            continue;
        }
        let shown: Vec<String> = cycle_through(&edges, &comp, &comp[0]).iter().map(name).collect();
        found.push(format!(
            "{} (e.g. {} -> {})",
            names.join(", "),
            shown.join(" -> "),
            shown[0]
        ));
    }
    assert!(found.is_empty(), "import cycles between modules:\n{}", found.join("\n"));
}

/// The library's top-level modules (`session`, `listing`, `file_cache`, `usage`, …) are
/// layers: one never reaches another that reaches it back, through any of their files.
#[test]
fn no_import_cycles_between_the_librarys_top_level_modules() {
    let mut top: BTreeMap<Module, BTreeSet<Module>> = BTreeMap::new();
    let up = |m: &Module| (m.0, m.1.iter().take(1).cloned().collect::<Vec<_>>());
    for (from, targets) in graph().edges() {
        if from.0 != "lib" || from.1.is_empty() {
            continue;
        }
        let entry = top.entry(up(&from)).or_default();
        for to in targets
            .iter()
            .filter(|t| t.0 == "lib" && !t.1.is_empty() && up(t) != up(&from))
        {
            entry.insert(up(to));
        }
    }
    let found: Vec<String> = cycles(&top)
        .iter()
        .map(|comp| comp.iter().map(name).collect::<Vec<_>>().join(", "))
        .collect();
    assert!(
        found.is_empty(),
        "import cycles between top-level modules:\n{}",
        found.join("\n")
    );
}

/// Command imports that work under way on issue 11 removes; empty it once they are gone.
const KNOWN_COMMAND_IMPORTS: &[(&str, &str)] = &[];

/// Each command stands alone: what two commands share lives in the library or in `cli`.
#[test]
fn no_command_imports_another() {
    let is_command = |m: &Module| m.0 == "bin" && m.1.len() == 3 && m.1[..2] == ["cli", "commands"];
    let mut found = Vec::new();
    for (from, targets) in graph().edges() {
        for to in targets.iter().filter(|t| is_command(&from) && is_command(t)) {
            let pair = (name(&from), name(to));
            if !KNOWN_COMMAND_IMPORTS.contains(&(pair.0.as_str(), pair.1.as_str())) {
                found.push(format!("{} -> {}", pair.0, pair.1));
            }
        }
    }
    assert!(found.is_empty(), "commands importing commands:\n{}", found.join("\n"));
}

#[test]
fn the_parser_sees_what_a_file_names() {
    let f = parse(
        ("bin", vec!["cli".into(), "pager".into()]),
        "use super::{Command, output::{self, Output as O}};\nmod x;\nfn f() { let s = \"crate::no\"; x::y(); crate::cli::render::z(); }\n#[cfg(test)]\nmod tests { use crate::elsewhere; }\n",
    );
    let uses: Vec<String> = f.uses.iter().map(|(_, p, n)| format!("{}={n}", p.join("::"))).collect();
    assert_eq!(
        uses,
        [
            "super::Command=Command",
            "super::output=output",
            "super::output::Output=O"
        ]
    );
    let paths: Vec<String> = f.paths.iter().map(|p| p.join("::")).collect();
    assert_eq!(paths, ["x::y", "crate::cli::render::z"]);
    assert!(f.children.contains("x"));
}

/// The library knows sessions, not terminals: only the binary (`src/main.rs`, `src/cli/`)
/// may use the command-line and terminal crates, or end the process.
#[test]
fn the_library_uses_no_terminal_crates() {
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut found = Vec::new();
    let mut stack = vec![src.clone()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let rel = path.strip_prefix(&src).unwrap().to_string_lossy().into_owned();
            if rel == "cli" || rel == "main.rs" {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let text = std::fs::read_to_string(&path).unwrap();
            for needle in [
                "clap::",
                "indicatif::",
                "terminal_size::",
                "ctrlc::",
                "process::exit",
                "is_terminal()",
            ] {
                if text.contains(needle) {
                    found.push(format!("src/{rel}: {needle}"));
                }
            }
        }
    }
    assert!(
        found.is_empty(),
        "library code that belongs in the binary:\n{}",
        found.join("\n")
    );
}
