//! A class-based syntax highlighter for the HTML export: code is escaped and its tokens
//! wrapped in `<span class="hl-…">`, coloured by [`CSS`].
//!
//! One hand-written lexer per family of languages (C-like, hash-comment scripting, shell,
//! markup, data, diff), each a single forward pass over the bytes: linear time, no regex,
//! no backtracking. Tokens only ever start and end at ASCII bytes or at the ends of the
//! text (every scanner treats all bytes ≥ 0x80 alike, so it never stops inside a UTF-8
//! sequence), and unterminated strings or comments run to the end of the line or text.
//! Spans never nest: stripping them and unescaping gives the code back exactly. The
//! escaping is the export's one HTML escaper (`export::escape`); the lexer's writer puts
//! each token and its tags down in one reservation with it.

use super::escape::{escape_into, escape_room, push_escaped_html};

/// A language the highlighter knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Language {
    Rust,
    C,
    Cpp,
    CSharp,
    Go,
    Java,
    Kotlin,
    Swift,
    JavaScript,
    TypeScript,
    Python,
    Ruby,
    Shell,
    /// A terminal session: lines starting with `$ ` are shell commands, the rest output.
    Console,
    Json,
    Toml,
    Yaml,
    Diff,
    Html,
    Xml,
    Css,
    Sql,
    Markdown,
    Dockerfile,
    Makefile,
}

impl Language {
    /// Every language, for tests and callers that list them.
    pub const ALL: [Language; 25] = [
        Language::Rust,
        Language::C,
        Language::Cpp,
        Language::CSharp,
        Language::Go,
        Language::Java,
        Language::Kotlin,
        Language::Swift,
        Language::JavaScript,
        Language::TypeScript,
        Language::Python,
        Language::Ruby,
        Language::Shell,
        Language::Console,
        Language::Json,
        Language::Toml,
        Language::Yaml,
        Language::Diff,
        Language::Html,
        Language::Xml,
        Language::Css,
        Language::Sql,
        Language::Markdown,
        Language::Dockerfile,
        Language::Makefile,
    ];

    /// The canonical lower-case name (what [`language`] maps aliases to).
    pub fn name(self) -> &'static str {
        match self {
            Language::Rust => "rust",
            Language::C => "c",
            Language::Cpp => "cpp",
            Language::CSharp => "csharp",
            Language::Go => "go",
            Language::Java => "java",
            Language::Kotlin => "kotlin",
            Language::Swift => "swift",
            Language::JavaScript => "javascript",
            Language::TypeScript => "typescript",
            Language::Python => "python",
            Language::Ruby => "ruby",
            Language::Shell => "shell",
            Language::Console => "console",
            Language::Json => "json",
            Language::Toml => "toml",
            Language::Yaml => "yaml",
            Language::Diff => "diff",
            Language::Html => "html",
            Language::Xml => "xml",
            Language::Css => "css",
            Language::Sql => "sql",
            Language::Markdown => "markdown",
            Language::Dockerfile => "dockerfile",
            Language::Makefile => "makefile",
        }
    }
}

/// Canonical language for a fence info string or a name ("rs", "rust", "py", "sh",
/// "console", "tsx", "jsonc", "yml", "patch" …), `None` when unknown. Only the info
/// string's first word counts, case-insensitively; `{.rust}` and `lang=rust` style
/// decorations are not understood.
pub fn language(info: &str) -> Option<Language> {
    let word = info.split([' ', '\t', ',', '{']).find(|w| !w.is_empty())?;
    if word.len() > 16 {
        return None;
    }
    let lower = word.to_ascii_lowercase();
    let lower = lower.strip_prefix("language-").unwrap_or(&lower);
    Some(match lower {
        "rust" | "rs" => Language::Rust,
        "c" | "h" => Language::C,
        "cpp" | "c++" | "cc" | "cxx" | "hpp" | "hh" | "hxx" | "cuda" | "cu" => Language::Cpp,
        "csharp" | "cs" | "c#" => Language::CSharp,
        "go" | "golang" => Language::Go,
        "java" => Language::Java,
        "kotlin" | "kt" | "kts" => Language::Kotlin,
        "swift" => Language::Swift,
        "javascript" | "js" | "jsx" | "mjs" | "cjs" | "node" => Language::JavaScript,
        "typescript" | "ts" | "tsx" | "mts" | "cts" => Language::TypeScript,
        "python" | "py" | "python3" | "py3" | "pyi" | "ipython" => Language::Python,
        "ruby" | "rb" => Language::Ruby,
        "shell" | "sh" | "bash" | "zsh" | "ksh" | "fish" | "shellscript" => Language::Shell,
        "console" | "shell-session" | "shellsession" | "terminal" | "sh-session" => Language::Console,
        "json" | "jsonc" | "json5" | "jsonl" | "ndjson" | "geojson" => Language::Json,
        "toml" => Language::Toml,
        "yaml" | "yml" => Language::Yaml,
        "diff" | "patch" | "udiff" => Language::Diff,
        "html" | "htm" | "xhtml" | "vue" | "svelte" => Language::Html,
        "xml" | "svg" | "xsd" | "xsl" | "plist" => Language::Xml,
        "css" | "scss" | "less" => Language::Css,
        "sql" | "mysql" | "postgresql" | "postgres" | "psql" | "sqlite" | "plsql" => Language::Sql,
        "markdown" | "md" | "mdx" => Language::Markdown,
        "dockerfile" | "docker" | "containerfile" => Language::Dockerfile,
        "makefile" | "make" | "mk" | "mak" => Language::Makefile,
        _ => return None,
    })
}

/// Language from a file path's extension or name (`src/main.rs`, `Makefile`,
/// `Dockerfile`, `.bashrc` …), `None` when unknown.
pub fn language_for_path(path: &str) -> Option<Language> {
    let name = path.rsplit(['/', '\\']).next().unwrap_or(path);
    let lower = name.to_ascii_lowercase();
    match lower.as_str() {
        "makefile" | "gnumakefile" => return Some(Language::Makefile),
        "dockerfile" | "containerfile" => return Some(Language::Dockerfile),
        ".bashrc" | ".bash_profile" | ".profile" | ".zshrc" | ".zprofile" | ".bash_aliases" | ".envrc" | "pkgbuild" => {
            return Some(Language::Shell);
        }
        "gemfile" | "rakefile" => return Some(Language::Ruby),
        "cargo.lock" | "pipfile" => return Some(Language::Toml),
        ".gitconfig" | ".editorconfig" => return Some(Language::Toml),
        _ => {}
    }
    if lower.starts_with("dockerfile.") || lower.ends_with(".dockerfile") {
        return Some(Language::Dockerfile);
    }
    let (_, ext) = lower.rsplit_once('.')?;
    match ext {
        "mk" | "mak" => Some(Language::Makefile),
        "txt" | "log" => None,
        "markdown" => Some(Language::Markdown),
        _ => language(ext),
    }
}

/// A token's class; each is a `hl-…` CSS class.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Class {
    Keyword,
    Literal,
    String,
    Comment,
    Number,
    Function,
    Type,
    Meta,
    Variable,
    Key,
    Tag,
    Attr,
    Added,
    Removed,
    Hunk,
    Prompt,
    Heading,
    Code,
}

impl Class {
    /// The opening tag, whole (padded in [`OPEN`] for the writer's fixed-size copies).
    const fn open(self) -> &'static str {
        match self {
            Class::Keyword => "<span class=\"hl-keyword\">",
            Class::Literal => "<span class=\"hl-literal\">",
            Class::String => "<span class=\"hl-string\">",
            Class::Comment => "<span class=\"hl-comment\">",
            Class::Number => "<span class=\"hl-number\">",
            Class::Function => "<span class=\"hl-function\">",
            Class::Type => "<span class=\"hl-type\">",
            Class::Meta => "<span class=\"hl-meta\">",
            Class::Variable => "<span class=\"hl-variable\">",
            Class::Key => "<span class=\"hl-key\">",
            Class::Tag => "<span class=\"hl-tag\">",
            Class::Attr => "<span class=\"hl-attr\">",
            Class::Added => "<span class=\"hl-added\">",
            Class::Removed => "<span class=\"hl-removed\">",
            Class::Hunk => "<span class=\"hl-hunk\">",
            Class::Prompt => "<span class=\"hl-prompt\">",
            Class::Heading => "<span class=\"hl-heading\">",
            Class::Code => "<span class=\"hl-code\">",
        }
    }
}

/// Every class, in declaration order (the index of [`OPEN`]).
const CLASSES: [Class; 18] = [
    Class::Keyword,
    Class::Literal,
    Class::String,
    Class::Comment,
    Class::Number,
    Class::Function,
    Class::Type,
    Class::Meta,
    Class::Variable,
    Class::Key,
    Class::Tag,
    Class::Attr,
    Class::Added,
    Class::Removed,
    Class::Hunk,
    Class::Prompt,
    Class::Heading,
    Class::Code,
];

/// Each class's opening tag padded to 32 bytes, and its length: the writer copies all 32
/// bytes (one fixed-size copy, no call) and moves on by the length.
static OPEN: [([u8; 32], usize); 18] = {
    let mut t = [([0u8; 32], 0usize); 18];
    let mut k = 0;
    while k < CLASSES.len() {
        let tag = CLASSES[k].open().as_bytes();
        assert!(tag.len() <= 32 && CLASSES[k] as usize == k);
        let mut j = 0;
        while j < tag.len() {
            t[k].0[j] = tag[j];
            j += 1;
        }
        t[k].1 = tag.len();
        k += 1;
    }
    t
};

/// The CSS for the `hl-*` classes: a light palette, a dark one under
/// `prefers-color-scheme: dark`, and for print the light one with bold keywords so it
/// reads in black and white too.
pub const CSS: &str = "\
.hl-keyword{color:#a626a4}
.hl-literal{color:#986801}
.hl-string{color:#50a14f}
.hl-comment{color:#6a737d;font-style:italic}
.hl-number{color:#986801}
.hl-function{color:#4078f2}
.hl-type{color:#c18401}
.hl-meta{color:#8a6d3b}
.hl-variable{color:#e45649}
.hl-key{color:#e45649}
.hl-tag{color:#e45649}
.hl-attr{color:#986801}
.hl-added{color:#22863a;background:#e6ffed}
.hl-removed{color:#b31d28;background:#ffeef0}
.hl-hunk{color:#6f42c1}
.hl-prompt{color:#6a737d;user-select:none}
.hl-heading{color:#005cc5;font-weight:bold}
.hl-code{color:#50a14f}
@media (prefers-color-scheme: dark){
.hl-keyword{color:#c678dd}
.hl-literal{color:#d19a66}
.hl-string{color:#98c379}
.hl-comment{color:#7f848e}
.hl-number{color:#d19a66}
.hl-function{color:#61afef}
.hl-type{color:#e5c07b}
.hl-meta{color:#c8ae9d}
.hl-variable{color:#e06c75}
.hl-key{color:#e06c75}
.hl-tag{color:#e06c75}
.hl-attr{color:#d19a66}
.hl-added{color:#98c379;background:#1f3326}
.hl-removed{color:#e06c75;background:#3c2226}
.hl-hunk{color:#c678dd}
.hl-prompt{color:#7f848e}
.hl-heading{color:#61afef}
.hl-code{color:#98c379}
}
@media print{
.hl-keyword{color:#a626a4;font-weight:bold}
.hl-literal,.hl-number{color:#986801}
.hl-string,.hl-code{color:#50a14f}
.hl-comment{color:#6a737d;font-style:italic}
.hl-function{color:#4078f2}
.hl-type{color:#c18401}
.hl-meta{color:#8a6d3b}
.hl-variable,.hl-key,.hl-tag{color:#e45649}
.hl-attr{color:#986801}
.hl-added{color:#22863a;background:none}
.hl-removed{color:#b31d28;background:none;text-decoration:line-through}
.hl-hunk{color:#6f42c1}
.hl-prompt{color:#6a737d}
.hl-heading{color:#005cc5}
}
";

/// Identifier bytes: ASCII letters, digits, `_`, and every byte of a non-ASCII character.
static IDENT: [bool; 256] = {
    let mut t = [false; 256];
    let mut c = 0;
    while c < 256 {
        let b = c as u8;
        t[c] = b.is_ascii_alphanumeric() || b == b'_' || b >= 0x80;
        c += 1;
    }
    t
};

/// `code` HTML-escaped into `out`, its tokens wrapped in `<span class="hl-…">…</span>`
/// (never nested); with `lang` `None` it is only escaped.
pub fn push_highlighted(out: &mut String, lang: Option<Language>, code: &str) {
    let Some(lang) = lang else {
        push_escaped_html(out, code);
        return;
    };
    out.reserve(code.len() + code.len() / 2);
    let mut lx = Lexer::new(out, code);
    match lang {
        Language::Rust => generic(&mut lx, &RUST),
        Language::C => generic(&mut lx, &C),
        Language::Cpp => generic(&mut lx, &CPP),
        Language::CSharp => generic(&mut lx, &CSHARP),
        Language::Go => generic(&mut lx, &GO),
        Language::Java => generic(&mut lx, &JAVA),
        Language::Kotlin => generic(&mut lx, &KOTLIN),
        Language::Swift => generic(&mut lx, &SWIFT),
        Language::JavaScript => generic(&mut lx, &JAVASCRIPT),
        Language::TypeScript => generic(&mut lx, &TYPESCRIPT),
        Language::Python => generic(&mut lx, &PYTHON),
        Language::Ruby => generic(&mut lx, &RUBY),
        Language::Json => generic(&mut lx, &JSON),
        Language::Toml => generic(&mut lx, &TOML),
        Language::Yaml => generic(&mut lx, &YAML),
        Language::Sql => generic(&mut lx, &SQL),
        Language::Shell => shell(&mut lx, ShellFlavour::Shell),
        Language::Dockerfile => shell(&mut lx, ShellFlavour::Dockerfile),
        Language::Makefile => shell(&mut lx, ShellFlavour::Makefile),
        Language::Console => console(&mut lx),
        Language::Diff => diff(&mut lx),
        Language::Html | Language::Xml => markup(&mut lx),
        Language::Css => css(&mut lx),
        Language::Markdown => markdown(&mut lx),
    }
    lx.finish();
}

/// The output and a cursor: `src[plain..pos]` is scanned text not yet written (plain,
/// no class), written escaped just before the next token.
struct Lexer<'o, 's> {
    out: &'o mut String,
    src: &'s str,
    b: &'s [u8],
    pos: usize,
    plain: usize,
}

impl<'o, 's> Lexer<'o, 's> {
    fn new(out: &'o mut String, src: &'s str) -> Self {
        Lexer {
            out,
            src,
            b: src.as_bytes(),
            pos: 0,
            plain: 0,
        }
    }

    /// Writes `src[pos..end]` as a token of `class` (after the pending plain text) and
    /// moves past it. An empty token writes nothing.
    fn token(&mut self, class: Class, end: usize) {
        debug_assert!(end >= self.pos && end <= self.b.len());
        if end == self.pos {
            return;
        }
        self.emit(Some(class), end);
    }

    /// [`Lexer::token`] for a token known not to be empty and to need no escaping
    /// (identifiers and numbers: most tokens), copied as it is.
    #[inline(always)]
    fn word(&mut self, class: Class, end: usize) {
        debug_assert!(end > self.pos);
        debug_assert!(!self.b[self.pos..end].iter().any(|c| b"&<>\"'".contains(c)));
        self.write(Some(class), end, true);
    }

    /// Writes the pending plain text, then `src[pos..end]` as a token of `class` (none:
    /// `end` is `pos`).
    #[inline]
    fn emit(&mut self, class: Option<Class>, end: usize) {
        self.write(class, end, false);
    }

    /// [`Lexer::emit`]'s writing, in one reservation and one length update: the pending
    /// plain text escaped, then the token in its tags. With `raw_word` (a token with nothing
    /// to escape), a token of at most 16 bytes with 16 bytes of `src` from its start is
    /// copied as 16 bytes instead of escaped.
    ///
    /// This writer is what the `unsafe` buys: a token is a few bytes, and written with a
    /// `push_str` per piece (the text before it, the tag, the token, the closing tag) the
    /// whole `export --format html` took a fifth longer (measured against this).
    #[inline(always)]
    fn write(&mut self, class: Option<Class>, end: usize, raw_word: bool) {
        let (plain, pos) = (self.plain, self.pos);
        debug_assert!(plain <= pos && pos <= end && end <= self.b.len());
        let raw_word = raw_word && end - pos <= 16 && pos + 16 <= self.b.len();
        // SAFETY: `escape_into` and the tag copies write only source bytes, in order, and
        // ASCII, within the room reserved (each escape its `escape_room`, the tags 32 and
        // 8 bytes, a raw word 16, which lie in `src` as just checked); tokens start and end
        // at ASCII bytes or the ends of `src`, and the length is set to the end of what was
        // written, so `out` stays UTF-8.
        unsafe {
            let out = self.out.as_mut_vec();
            out.reserve(escape_room(end - plain) + 64);
            let start = out.as_mut_ptr().add(out.len());
            let mut dst = escape_into(start, self.b, plain, pos);
            if let Some(class) = class {
                let (tag, len) = &OPEN[class as usize];
                std::ptr::copy_nonoverlapping(tag.as_ptr(), dst, 32);
                dst = dst.add(*len);
                dst = if raw_word {
                    std::ptr::copy_nonoverlapping(self.b.as_ptr().add(pos), dst, 16);
                    dst.add(end - pos)
                } else {
                    escape_into(dst, self.b, pos, end)
                };
                std::ptr::copy_nonoverlapping(b"</span> ".as_ptr(), dst, 8);
                dst = dst.add(7);
            }
            out.set_len(out.len() + dst.offset_from(start) as usize);
        }
        self.pos = end;
        self.plain = end;
    }

    /// Writes the pending plain text up to `pos` (used before handing a range to another
    /// lexer).
    fn flush(&mut self) {
        self.emit(None, self.pos);
    }

    fn finish(&mut self) {
        self.pos = self.b.len();
        self.flush();
    }

    fn at(&self, i: usize) -> u8 {
        self.b.get(i).copied().unwrap_or(0)
    }

    fn starts_with(&self, i: usize, s: &[u8]) -> bool {
        self.b.get(i..).is_some_and(|r| r.starts_with(s))
    }

    /// The index of the next `\n` at or after `i`, or the end.
    fn line_end(&self, i: usize) -> usize {
        memchr::memchr(b'\n', &self.b[i..]).map_or(self.b.len(), |k| i + k)
    }

    /// The end of an identifier-like run starting at `i`.
    fn ident_end(&self, mut i: usize, dash: bool) -> usize {
        while i < self.b.len() && (is_ident(self.b[i]) || (dash && self.b[i] == b'-')) {
            i += 1;
        }
        i
    }

    /// The end of a string opened by the `quote` at `i`: past the closing quote, or at the
    /// line's end (or the text's end when `multiline`) when unterminated.
    fn string_end(&self, i: usize, quote: u8, escapes: bool, multiline: bool) -> usize {
        let b = self.b;
        let mut j = i + 1;
        while j < b.len() {
            let c = b[j];
            if c == quote {
                return j + 1;
            }
            if c == b'\\' && escapes {
                // An escaped newline continues the string; an escaped multi-byte
                // character is skipped a byte at a time below, which is fine since no
                // ASCII byte hides inside it.
                if j + 1 < b.len() && b[j + 1] < 0x80 {
                    j += 2;
                    continue;
                }
            } else if c == b'\n' && !multiline {
                return j;
            }
            j += 1;
        }
        b.len()
    }

    /// The end of a string closed by `close` (several bytes), or the text's end.
    fn until(&self, from: usize, close: &[u8]) -> usize {
        let hay = &self.b[from.min(self.b.len())..];
        match memchr::memmem::find(hay, close) {
            Some(k) => from + k + close.len(),
            None => self.b.len(),
        }
    }

    /// The end of a number starting at `i`: digits, letters (hex, suffixes, units), `_`,
    /// a `.` not followed by another `.` (ranges), and a sign after an exponent.
    fn number_end(&self, i: usize) -> usize {
        let b = self.b;
        let hex = b[i] == b'0' && matches!(self.at(i + 1), b'x' | b'X');
        let mut j = i + 1;
        while j < b.len() {
            let c = b[j];
            let more = c.is_ascii_alphanumeric()
                || c == b'_'
                || (c == b'.' && self.at(j + 1).is_ascii_digit())
                || ((c == b'+' || c == b'-')
                    && !hex
                    && matches!(b[j - 1], b'e' | b'E')
                    && self.at(j + 1).is_ascii_digit());
            if !more {
                break;
            }
            j += 1;
        }
        j
    }

    /// The first non-blank byte at or after `i` on the same line, or 0.
    fn next_nonblank(&self, mut i: usize) -> u8 {
        while i < self.b.len() && (self.b[i] == b' ' || self.b[i] == b'\t') {
            i += 1;
        }
        self.at(i)
    }

    fn prev(&self, i: usize) -> u8 {
        if i == 0 { 0 } else { self.b[i - 1] }
    }
}

fn is_ident(c: u8) -> bool {
    IDENT[usize::from(c)]
}

/// The end of the run of identifier bytes (and `$` when `dollar`) from `i`.
#[inline]
fn ident_run(b: &[u8], mut i: usize, dollar: bool) -> usize {
    while i < b.len() && (is_ident(b[i]) || (dollar && b[i] == b'$')) {
        i += 1;
    }
    i
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c >= 0x80
}

/// What a word is in a language, from its lists.
#[derive(Clone, Copy, PartialEq)]
enum Word {
    Keyword,
    /// A keyword after which a function's name comes (`fn`).
    FnKeyword,
    /// A keyword after which a type's name comes (`struct`).
    TypeKeyword,
    Literal,
    Type,
}

/// A config's word lists as one table, and which bytes its lexer passes over.
struct Words {
    /// Words of up to eight bytes (all of them but a few), each packed into a `u64`
    /// (little-endian, zero-padded: no word holds a zero byte, so the packing is unique),
    /// open-addressed by a multiplicative hash: one multiply, a load and a compare per
    /// identifier, no call (the hash map's byte comparisons were a tenth of the lexer's
    /// time). An empty slot is 0.
    small: Box<[(u64, Word); SMALL_SLOTS]>,
    /// The longer words.
    long: rustc_hash::FxHashMap<&'static [u8], Word>,
    /// Bytes that start nothing in this language outside a line's start (blanks and most
    /// punctuation): the lexer passes over runs of them at once.
    skip: [bool; 256],
    /// What each byte starts outside a line's start, for the fast dispatch.
    kind: [Kind; 256],
    /// Bytes that, just after a word, may change what it is (`(` of a call, `!` of a Rust
    /// macro, a string after its prefix, Ruby's `defined?`).
    after: [bool; 256],
    /// For each first byte, bit `len` (at most 63) set when a listed word of that length
    /// starts with it: a word with its bit clear is in no list, without a look-up.
    lens: [u64; 256],
}

/// What a byte starts in [`generic`] (outside a line's start).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// Nothing: a blank or punctuation ([`Words::skip`]).
    Skip,
    /// A word.
    Word,
    /// Anything else: a newline, quote, number, comment …
    Other,
}

/// [`Words::small`]'s size: a power of two, several times the longest word list, so a
/// look-up mostly ends at its first slot.
const SMALL_SLOTS: usize = 512;

/// `word` (one to eight bytes) packed as [`Words::small`] keys it.
fn pack(word: &[u8]) -> u64 {
    let mut k = [0u8; 8];
    k[..word.len()].copy_from_slice(word);
    u64::from_le_bytes(k)
}

/// The slot a packed word's probe starts at.
fn slot(key: u64) -> usize {
    (key.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (64 - SMALL_SLOTS.trailing_zeros())) as usize
}

impl Words {
    fn get(&self, word: &[u8]) -> Option<Word> {
        match word.len() {
            0 => None,
            1..=8 => self.get_packed(pack(word)),
            _ => self.long.get(word).copied(),
        }
    }

    /// The word `b[i..end]`, read with one unaligned load where eight bytes are there.
    #[inline]
    fn get_at(&self, b: &[u8], i: usize, end: usize) -> Option<Word> {
        let len = end - i;
        if (1..=8).contains(&len)
            && let Some(chunk) = b.get(i..i + 8)
        {
            let word = u64::from_le_bytes(chunk.try_into().expect("eight bytes"));
            return self.get_packed(word & (u64::MAX >> (64 - 8 * len)));
        }
        self.get(&b[i..end])
    }

    #[inline]
    fn get_packed(&self, key: u64) -> Option<Word> {
        let mut k = slot(key);
        loop {
            let (have, word) = self.small[k];
            if have == key {
                return Some(word);
            }
            if have == 0 {
                return None;
            }
            k = (k + 1) % SMALL_SLOTS;
        }
    }
}

const CONFIGS: usize = 16;
static WORDS: [std::sync::OnceLock<Words>; CONFIGS] = [const { std::sync::OnceLock::new() }; CONFIGS];

fn words(cfg: &Config) -> &'static Words {
    WORDS[cfg.id].get_or_init(|| {
        let mut small = Box::new([(0u64, Word::Keyword); SMALL_SLOTS]);
        let mut long = rustc_hash::FxHashMap::default();
        // Later lists win: a keyword that is also a declaration keyword is the latter.
        for (list, word) in [
            (cfg.types, Word::Type),
            (cfg.literals, Word::Literal),
            (cfg.keywords, Word::Keyword),
            (cfg.fn_decl, Word::FnKeyword),
            (cfg.type_decl, Word::TypeKeyword),
        ] {
            for w in list.split_ascii_whitespace() {
                let w = w.as_bytes();
                if w.len() > 8 {
                    long.insert(w, word);
                    continue;
                }
                let key = pack(w);
                let mut k = slot(key);
                while small[k].0 != 0 && small[k].0 != key {
                    k = (k + 1) % SMALL_SLOTS;
                }
                small[k] = (key, word);
            }
        }
        let mut lens = [0u64; 256];
        for list in [cfg.types, cfg.literals, cfg.keywords, cfg.fn_decl, cfg.type_decl] {
            for w in list.split_ascii_whitespace() {
                let first = w.as_bytes()[0];
                let bit = 1u64 << w.len().min(63);
                lens[usize::from(first)] |= bit;
                if cfg.case_insensitive {
                    lens[usize::from(first.to_ascii_uppercase())] |= bit;
                    lens[usize::from(first.to_ascii_lowercase())] |= bit;
                }
            }
        }
        let skip = skip_bytes(cfg);
        let mut kind = [Kind::Other; 256];
        let mut after = [false; 256];
        for c in 0..=255u8 {
            after[usize::from(c)] = (c == b'(' && cfg.calls)
                || (c == b'!' && cfg.rust)
                || (c == b'?' && cfg.symbols)
                || (matches!(c, b'"' | b'\'' | b'#') && (cfg.rust || cfg.py_prefixes));
            kind[usize::from(c)] = if skip[usize::from(c)] {
                Kind::Skip
            } else if is_ident_start(c) || (c == b'$' && cfg.dollar_ident) {
                Kind::Word
            } else {
                Kind::Other
            };
        }
        Words {
            small,
            long,
            skip,
            kind,
            after,
            lens,
        }
    })
}

/// The bytes [`generic`] does nothing with but step over when not at a line's start: every
/// byte that starts an arm of its loop (or a comment) is left out.
fn skip_bytes(cfg: &Config) -> [bool; 256] {
    let mut t = [false; 256];
    for c in 0..=255u8 {
        t[usize::from(c)] = !(c == b'\n'
            || matches!(c, b'"' | b'\'' | b'`' | b'.' | b'0'..=b'9')
            || is_ident_start(c)
            || (c == b'$' && cfg.dollar_ident)
            || cfg.line_comment.first() == Some(&c)
            || cfg.line_comment2.first() == Some(&c)
            || cfg.block_comment.is_some_and(|(open, _)| open[0] == c)
            || (c == b'#' && cfg.rust)
            || (c == b'@' && cfg.annotations)
            || (c == b':' && cfg.symbols)
            || (c == b'~' && cfg.keys == Keys::Yaml));
    }
    t
}

fn contains(list: &[&str], word: &str) -> bool {
    list.binary_search(&word).is_ok()
}

/// How a language treats `'`.
#[derive(Clone, Copy, PartialEq)]
enum Single {
    /// Not a quote (JSON, Go's runes are handled as strings anyway).
    None,
    /// A string with backslash escapes.
    Str,
    /// A string without escapes (YAML, TOML literal strings).
    Raw,
    /// Rust: a char literal or a lifetime.
    RustChar,
}

/// A family member of the generic lexer.
struct Config {
    /// Its index in [`WORDS`] (unique per config; a test checks).
    id: usize,
    keywords: &'static str,
    literals: &'static str,
    types: &'static str,
    /// The word after one of these names a function (`fn`, `def` …).
    fn_decl: &'static str,
    /// The word after one of these names a type (`struct`, `class` …).
    type_decl: &'static str,
    /// Keywords match case-insensitively (SQL); the lists hold lower case.
    case_insensitive: bool,
    line_comment: &'static [u8],
    /// A second line comment (`#` in PHP-like, unused mostly).
    line_comment2: &'static [u8],
    /// `#` comments only at a word's start (YAML, TOML values like `a#b`).
    hash_at_word_start: bool,
    block_comment: Option<(&'static [u8], &'static [u8])>,
    nested_comments: bool,
    single: Single,
    /// `"` strings may span lines.
    multiline_strings: bool,
    /// `"""` (and `'''` when `'` is a quote) strings.
    triple: bool,
    /// `` ` `` strings: `Some(escapes)`.
    backtick: Option<bool>,
    /// Quotes open strings only after a non-word byte (YAML: `it's`).
    quote_at_word_start: bool,
    /// A word followed by `(` is a function.
    calls: bool,
    /// A capitalised word is a type.
    caps_types: bool,
    /// `$` is an identifier byte (JavaScript, PHP-like).
    dollar_ident: bool,
    /// Python string prefixes (`f"…"`, `rb'…'`).
    py_prefixes: bool,
    /// `@name` is an annotation or decorator.
    annotations: bool,
    /// Rust: raw strings, byte strings, macros, attributes.
    rust: bool,
    /// C preprocessor lines.
    preprocessor: bool,
    /// Ruby `:symbols`.
    symbols: bool,
    /// A string followed by `:` is a key (JSON), or a line-leading word followed by `=`
    /// (TOML) or `:` (YAML).
    keys: Keys,
}

#[derive(Clone, Copy, PartialEq)]
enum Keys {
    None,
    Json,
    Toml,
    Yaml,
}

const BASE: Config = Config {
    id: usize::MAX,
    keywords: "",
    literals: "",
    types: "",
    fn_decl: "",
    type_decl: "",
    case_insensitive: false,
    line_comment: b"//",
    line_comment2: b"",
    hash_at_word_start: false,
    block_comment: Some((b"/*", b"*/")),
    nested_comments: false,
    single: Single::Str,
    multiline_strings: false,
    triple: false,
    backtick: None,
    quote_at_word_start: false,
    calls: true,
    caps_types: false,
    dollar_ident: false,
    py_prefixes: false,
    annotations: false,
    rust: false,
    preprocessor: false,
    symbols: false,
    keys: Keys::None,
};

// Word lists are space-separated; `words` makes one hash table of a config's lists.
const RUST: Config = Config {
    id: 0,
    keywords: concat!(
        "as async await break const continue crate dyn else enum extern fn for if impl in let ",
        "loop match mod move mut pub ref return self static struct super trait type union unsafe ",
        "use where while yield",
    ),
    literals: "false true",
    types: "Self bool char f32 f64 i128 i16 i32 i64 i8 isize str u128 u16 u32 u64 u8 usize",
    fn_decl: "fn",
    type_decl: "enum struct trait type union",
    nested_comments: true,
    single: Single::RustChar,
    multiline_strings: true,
    caps_types: true,
    rust: true,
    ..BASE
};

const C: Config = Config {
    id: 1,
    keywords: concat!(
        "auto break case const continue default do else enum extern for goto if inline register ",
        "restrict return sizeof static struct switch typedef union volatile while",
    ),
    literals: "NULL false true",
    types: concat!(
        "bool char double float int int16_t int32_t int64_t int8_t long short signed size_t ",
        "ssize_t uint16_t uint32_t uint64_t uint8_t unsigned void",
    ),
    type_decl: "enum struct union",
    preprocessor: true,
    ..BASE
};

const CPP: Config = Config {
    id: 2,
    keywords: concat!(
        "alignas alignof auto break case catch class co_await co_return co_yield const consteval ",
        "constexpr continue decltype default delete do else enum explicit export extern final for ",
        "friend goto if inline mutable namespace new noexcept operator override private protected ",
        "public return sizeof static static_assert struct switch template this throw try typedef ",
        "typename union using virtual volatile while",
    ),
    literals: "NULL false nullptr true",
    types: "bool char double float int long short signed size_t string unsigned void wchar_t",
    type_decl: "class enum namespace struct union",
    preprocessor: true,
    ..BASE
};

const CSHARP: Config = Config {
    id: 3,
    keywords: concat!(
        "abstract as async await base break case catch class const continue default delegate do ",
        "else enum event explicit extern finally fixed for foreach get goto if implicit in ",
        "interface internal is lock namespace new operator out override params private protected ",
        "public readonly record ref return sealed set sizeof static struct switch this throw try ",
        "typeof using var virtual void while yield",
    ),
    literals: "false null true",
    types: "bool byte char decimal double float int long object sbyte short string uint ulong ushort",
    type_decl: "class enum interface record struct",
    caps_types: true,
    preprocessor: true,
    annotations: true,
    ..BASE
};

const GO: Config = Config {
    id: 4,
    keywords: concat!(
        "break case chan const continue default defer else fallthrough for func go goto if import ",
        "interface map package range return select struct switch type var",
    ),
    literals: "false iota nil true",
    types: concat!(
        "any bool byte complex128 complex64 error float32 float64 int int16 int32 int64 int8 rune ",
        "string uint uint16 uint32 uint64 uint8 uintptr",
    ),
    fn_decl: "func",
    type_decl: "type",
    backtick: Some(false),
    ..BASE
};

const JAVA: Config = Config {
    id: 5,
    keywords: concat!(
        "abstract assert break case catch class const continue default do else enum extends final ",
        "finally for goto if implements import instanceof interface native new package private ",
        "protected public record return static strictfp super switch synchronized this throw ",
        "throws transient try var volatile while yield",
    ),
    literals: "false null true",
    types: "boolean byte char double float int long short void",
    type_decl: "class enum interface record",
    caps_types: true,
    annotations: true,
    triple: true,
    ..BASE
};

const KOTLIN: Config = Config {
    id: 6,
    keywords: concat!(
        "abstract as break by catch class companion const continue data do else enum finally for ",
        "fun if import in init inline interface internal is lateinit object open operator ",
        "override package private protected public return sealed super suspend this throw try ",
        "typealias val var when while",
    ),
    literals: "false null true",
    fn_decl: "fun",
    type_decl: "class interface object typealias",
    nested_comments: true,
    caps_types: true,
    annotations: true,
    triple: true,
    ..BASE
};

const SWIFT: Config = Config {
    id: 7,
    keywords: concat!(
        "as associatedtype async await break case catch class continue default defer deinit do ",
        "else enum extension fallthrough fileprivate for func guard if import in init inout ",
        "internal is let mutating open operator override private protocol public repeat rethrows ",
        "return self static struct subscript super switch throw throws try typealias var where ",
        "while",
    ),
    literals: "false nil true",
    fn_decl: "func",
    type_decl: "class enum extension protocol struct typealias",
    nested_comments: true,
    caps_types: true,
    annotations: true,
    triple: true,
    single: Single::None,
    ..BASE
};

const JS_KEYWORDS: &str = concat!(
    "as async await break case catch class const continue debugger default delete do else ",
    "export extends finally for from function if import in instanceof let new of return ",
    "static super switch this throw try typeof var void while with yield",
);

const JAVASCRIPT: Config = Config {
    id: 8,
    keywords: JS_KEYWORDS,
    literals: "NaN false null true undefined",
    fn_decl: "function",
    type_decl: "class",
    backtick: Some(true),
    dollar_ident: true,
    annotations: true,
    ..BASE
};

const TYPESCRIPT: Config = Config {
    id: 9,
    keywords: concat!(
        "abstract as async await break case catch class const continue debugger declare default ",
        "delete do else enum export extends finally for from function if implements import in ",
        "infer instanceof interface is keyof let namespace new of private protected public ",
        "readonly return satisfies static super switch this throw try type typeof var void while ",
        "with yield",
    ),
    types: "any bigint boolean never number object string symbol unknown",
    type_decl: "class enum interface type",
    caps_types: true,
    ..JAVASCRIPT
};

const PYTHON: Config = Config {
    id: 10,
    keywords: concat!(
        "and as assert async await break case class continue def del elif else except finally for ",
        "from global if import in is lambda match nonlocal not or pass raise return try while ",
        "with yield",
    ),
    literals: "False None True self",
    types: "bool bytes dict float frozenset int list object set str tuple type",
    fn_decl: "def",
    type_decl: "class",
    line_comment: b"#",
    block_comment: None,
    triple: true,
    py_prefixes: true,
    annotations: true,
    ..BASE
};

const RUBY: Config = Config {
    id: 11,
    keywords: concat!(
        "alias and begin break case class def defined? do else elsif end ensure for if in module ",
        "next not or redo rescue retry return self super then undef unless until when while yield",
    ),
    literals: "false nil true",
    fn_decl: "def",
    type_decl: "class module",
    line_comment: b"#",
    block_comment: None,
    multiline_strings: true,
    caps_types: true,
    symbols: true,
    ..BASE
};

const JSON: Config = Config {
    id: 12,
    literals: "false null true",
    single: Single::None,
    calls: false,
    keys: Keys::Json,
    ..BASE
};

const TOML: Config = Config {
    id: 13,
    literals: "false inf nan true",
    line_comment: b"#",
    block_comment: None,
    single: Single::Raw,
    triple: true,
    calls: false,
    keys: Keys::Toml,
    ..BASE
};

const YAML: Config = Config {
    id: 14,
    literals: "False NO No Null Off On True YES Yes false no null off on true yes ~",
    line_comment: b"#",
    hash_at_word_start: true,
    block_comment: None,
    single: Single::Raw,
    quote_at_word_start: true,
    calls: false,
    keys: Keys::Yaml,
    ..BASE
};

const SQL: Config = Config {
    id: 15,
    keywords: concat!(
        "add all alter and as asc begin between by case check column commit constraint create ",
        "cross default delete desc distinct drop else end exists foreign from full group having ",
        "if in index inner insert into is join key left like limit not offset on or order outer ",
        "primary references returning right rollback select set table then transaction union ",
        "unique update using values view when where with",
    ),
    literals: "false null true",
    types: concat!(
        "bigint blob boolean char date decimal float int integer numeric real serial text ",
        "timestamp varchar",
    ),
    case_insensitive: true,
    line_comment: b"--",
    ..BASE
};

/// Lexes C-like, scripting and data languages as configured. Bytes are dispatched by
/// [`Words::kind`] (blanks and punctuation, words, the rest), and words in no list skip the
/// look-up.
fn generic(lx: &mut Lexer, cfg: &Config) {
    let n = lx.b.len();
    let words = words(cfg);
    // First bytes of comment openers: most bytes are neither, and skip the checks.
    let lc = cfg.line_comment.first().copied().unwrap_or(0);
    let lc2 = cfg.line_comment2.first().copied().unwrap_or(0);
    let bc = cfg.block_comment.map_or(0, |(open, _)| open[0]);
    let mut line_start = true;
    // What the previous word makes of the next one (`fn name`, `class Name`).
    let mut next_word: Option<Class> = None;
    while lx.pos < n {
        let i = lx.pos;
        let c = lx.b[i];
        if line_start {
            if c == b' ' || c == b'\t' {
                lx.pos += 1;
                continue;
            }
            line_start = false;
            match cfg.keys {
                Keys::Toml => toml_line_start(lx),
                Keys::Yaml => yaml_line_start(lx),
                _ => {}
            }
            if cfg.preprocessor && c == b'#' {
                let end = lx.ident_end(i + 1, false);
                lx.token(Class::Meta, end);
            }
            continue;
        }
        if words.kind[usize::from(c)] != Kind::Other {
            words_and_blanks(lx, cfg, words, &mut next_word);
            continue;
        }
        if c == b'\n' {
            line_start = true;
            lx.pos += 1;
            continue;
        }
        if words.skip[usize::from(c)] {
            // Blanks and punctuation: nothing to write, no state to change.
            let mut j = i + 1;
            while j < n && words.skip[usize::from(lx.b[j])] {
                j += 1;
            }
            lx.pos = j;
            continue;
        }
        if (c == lc || c == lc2 || c == bc) && generic_comment(lx, cfg, i) {
            continue;
        }
        match c {
            b'"' | b'\'' | b'`' => {
                if cfg.quote_at_word_start && is_ident(lx.prev(i)) {
                    lx.pos += 1;
                    continue;
                }
                if let Some(end) = quoted(lx, cfg, i) {
                    let class = if cfg.keys == Keys::Json && lx.next_nonblank(end) == b':' {
                        Class::Key
                    } else {
                        Class::String
                    };
                    lx.token(class, end);
                } else if c == b'\'' && cfg.single == Single::RustChar {
                    // A lifetime or label: plain.
                    lx.pos = lx.ident_end(i + 1, false).max(i + 1);
                } else {
                    lx.pos += 1;
                }
            }
            b'0'..=b'9' => {
                let end = lx.number_end(i);
                lx.word(Class::Number, end);
            }
            b'.' if lx.at(i + 1).is_ascii_digit() && !is_ident(lx.prev(i)) => {
                let end = lx.number_end(i);
                lx.word(Class::Number, end);
            }
            b'#' if cfg.rust && (lx.at(i + 1) == b'[' || lx.starts_with(i + 1, b"![")) => {
                let end = attribute_end(lx, i);
                lx.token(Class::Meta, end);
            }
            b'@' if cfg.annotations && is_ident_start(lx.at(i + 1)) => {
                let mut end = lx.ident_end(i + 1, false);
                while lx.at(end) == b'.' && is_ident_start(lx.at(end + 1)) {
                    end = lx.ident_end(end + 1, false);
                }
                lx.token(Class::Meta, end);
            }
            b':' if cfg.symbols && is_ident_start(lx.at(i + 1)) && lx.prev(i) != b':' && !is_ident(lx.prev(i)) => {
                let end = lx.ident_end(i + 1, false);
                lx.token(Class::Literal, end);
            }
            b'~' if cfg.keys == Keys::Yaml && !is_ident(lx.at(i + 1)) => {
                lx.token(Class::Literal, i + 1);
            }
            c if is_ident_start(c) || (c == b'$' && cfg.dollar_ident) => {
                let end = ident_run(lx.b, i + 1, cfg.dollar_ident);
                generic_word(lx, cfg, words, end, &mut next_word);
            }
            _ => lx.pos += 1,
        }
    }
}

/// From `lx.pos`, blanks, punctuation and words, up to the first byte that starts anything
/// else ([`Kind::Other`]): a plain word costs its run, a table look-up and a few compares;
/// a word that may be more goes to [`generic_word`].
#[inline(always)]
fn words_and_blanks(lx: &mut Lexer, cfg: &Config, words: &Words, next_word: &mut Option<Class>) {
    let b = lx.b;
    let n = b.len();
    let mut i = lx.pos;
    loop {
        while i < n && words.kind[usize::from(b[i])] == Kind::Skip {
            i += 1;
        }
        if i >= n || words.kind[usize::from(b[i])] != Kind::Word {
            break;
        }
        let c = b[i];
        let end = ident_run(b, i + 1, cfg.dollar_ident);
        let after = b.get(end).copied().unwrap_or(0);
        if next_word.is_none()
            && (words.lens[usize::from(c)] >> (end - i).min(63)) & 1 == 0
            && !words.after[usize::from(after)]
            && !(cfg.caps_types && c.is_ascii_uppercase())
        {
            // In no list, not declared, not a call, a type by its case, nor a prefix.
            i = end;
            continue;
        }
        lx.pos = i;
        generic_word(lx, cfg, words, end, next_word);
        i = lx.pos;
    }
    lx.pos = i;
}

/// The word from `lx.pos` to `end` (its identifier run; a string when it is a string's
/// prefix), written and passed.
#[inline(always)]
fn generic_word(lx: &mut Lexer, cfg: &Config, words: &Words, mut end: usize, next_word: &mut Option<Class>) {
    let i = lx.pos;
    if cfg.symbols && lx.at(end) == b'?' && &lx.b[i..end] == b"defined" {
        end += 1;
    }
    // String prefixes: Rust `r#"…"#`, `b"…"`, Python `f"…"`.
    if end - i <= 2
        && matches!(lx.at(end), b'"' | b'\'' | b'#')
        && let Some(s_end) = prefixed_string(lx, cfg, end, &lx.src[i..end])
    {
        lx.token(Class::String, s_end);
        return;
    }
    match classify(lx, cfg, words, i, end, next_word) {
        Some(class) => lx.word(class, end),
        None => lx.pos = end,
    }
}

/// A comment starting at `i`, written; false when there is none.
fn generic_comment(lx: &mut Lexer, cfg: &Config, i: usize) -> bool {
    if (lx.starts_with(i, cfg.line_comment) || (!cfg.line_comment2.is_empty() && lx.starts_with(i, cfg.line_comment2)))
        && (!cfg.hash_at_word_start || matches!(lx.prev(i), 0 | b' ' | b'\t' | b'\n'))
    {
        let end = lx.line_end(i);
        lx.token(Class::Comment, end);
        return true;
    }
    if let Some((open, close)) = cfg.block_comment
        && lx.starts_with(i, open)
    {
        let end = block_comment_end(lx, i, open, close, cfg.nested_comments);
        lx.token(Class::Comment, end);
        return true;
    }
    false
}

/// The class of the word `b[start..end]`, and what it makes of the next word. A word whose
/// first byte and length no listed word has is in no list, unlooked-up.
#[inline(always)]
fn classify(
    lx: &Lexer,
    cfg: &Config,
    words: &Words,
    start: usize,
    end: usize,
    next_word: &mut Option<Class>,
) -> Option<Class> {
    let declared = next_word.take();
    let word = &lx.b[start..end];
    let len = word.len();
    let found = if (words.lens[usize::from(word[0])] >> len.min(63)) & 1 == 0 {
        None
    } else if cfg.case_insensitive && len <= 24 {
        let mut lower = [0u8; 24];
        let l = &mut lower[..len];
        l.copy_from_slice(word);
        l.make_ascii_lowercase();
        words.get(l)
    } else {
        words.get_at(lx.b, start, end)
    };
    if cfg.keys == Keys::Yaml || cfg.keys == Keys::Toml {
        // Data: only literals are words worth colouring.
        return (found == Some(Word::Literal)).then_some(Class::Literal);
    }
    match found {
        Some(Word::FnKeyword) => {
            *next_word = Some(Class::Function);
            return Some(Class::Keyword);
        }
        Some(Word::TypeKeyword) => {
            *next_word = Some(Class::Type);
            return Some(Class::Keyword);
        }
        Some(Word::Keyword) => return Some(Class::Keyword),
        Some(Word::Literal) => return Some(Class::Literal),
        Some(Word::Type) | None => {}
    }
    if let Some(class) = declared {
        return Some(class);
    }
    if found == Some(Word::Type) {
        return Some(Class::Type);
    }
    let after = lx.at(end);
    if cfg.calls && after == b'(' {
        return Some(Class::Function);
    }
    if cfg.rust && after == b'!' && lx.at(end + 1) != b'=' {
        return Some(Class::Function);
    }
    if cfg.caps_types && word[0].is_ascii_uppercase() {
        // ALL_CAPS are constants rather than types.
        let all_caps = word
            .iter()
            .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || *b == b'_');
        return Some(if all_caps && len > 1 {
            Class::Literal
        } else {
            Class::Type
        });
    }
    None
}

/// The end of the string whose opening quote is at `q`, or `None` when the byte at `q` opens
/// no string in this language.
fn quoted(lx: &Lexer, cfg: &Config, q: usize) -> Option<usize> {
    let c = lx.b[q];
    match c {
        b'"' | b'\'' if cfg.triple && lx.at(q + 1) == c && lx.at(q + 2) == c => {
            if c == b'\'' && matches!(cfg.single, Single::None | Single::RustChar) {
                return None;
            }
            let close: &[u8] = if c == b'"' { b"\"\"\"" } else { b"'''" };
            Some(lx.until(q + 3, close))
        }
        b'"' => Some(lx.string_end(q, b'"', true, cfg.multiline_strings)),
        b'\'' => match cfg.single {
            Single::None => None,
            Single::Str => Some(lx.string_end(q, b'\'', true, cfg.multiline_strings)),
            Single::Raw => Some(lx.string_end(q, b'\'', false, false)),
            Single::RustChar => rust_char_end(lx, q),
        },
        b'`' => cfg.backtick.map(|esc| lx.string_end(q, b'`', esc, true)),
        _ => None,
    }
}

/// Rust: `'x'`, `'\n'`, `'\u{1F600}'` are chars; `'a` in `&'a str` or `'outer:` is not.
fn rust_char_end(lx: &Lexer, q: usize) -> Option<usize> {
    let b = lx.b;
    let next = *b.get(q + 1)?;
    if next == b'\\' {
        // An escape: up to the closing quote on this line.
        let mut j = q + 2;
        while j < b.len() && j < q + 16 && b[j] != b'\n' {
            if b[j] == b'\'' && j > q + 2 {
                return Some(j + 1);
            }
            j += 1;
        }
        return None;
    }
    // One character (1–4 bytes) then a quote.
    let len = match next {
        0..=0x7f => 1,
        0xc0..=0xdf => 2,
        0xe0..=0xef => 3,
        _ => 4,
    };
    (lx.at(q + 1 + len) == b'\'' && next != b'\'' && next != b'\n').then_some(q + 2 + len)
}

/// A string with a prefix word ending at `end` (`r#"…"#`, `b'x'`, `f"…"`), its end.
fn prefixed_string(lx: &Lexer, cfg: &Config, end: usize, word: &str) -> Option<usize> {
    let after = lx.at(end);
    if cfg.rust {
        match word {
            "r" | "br" | "cr" if after == b'"' || after == b'#' => {
                let mut j = end;
                while lx.at(j) == b'#' {
                    j += 1;
                }
                if lx.at(j) != b'"' {
                    return None;
                }
                let hashes = j - end;
                // Close: `"` followed by as many `#`.
                let mut k = j + 1;
                loop {
                    let hay = lx.b.get(k..)?;
                    let Some(off) = memchr::memchr(b'"', hay) else {
                        return Some(lx.b.len());
                    };
                    let close = k + off;
                    let mut m = close + 1;
                    while m < close + 1 + hashes && lx.at(m) == b'#' {
                        m += 1;
                    }
                    if m == close + 1 + hashes {
                        return Some(m);
                    }
                    k = close + 1;
                }
            }
            "b" | "c" if after == b'"' => return Some(lx.string_end(end, b'"', true, true)),
            "b" if after == b'\'' => return rust_char_end(lx, end),
            _ => return None,
        }
    }
    if cfg.py_prefixes
        && (after == b'"' || after == b'\'')
        && word.len() <= 2
        && word.bytes().all(|c| b"rRbBfFuU".contains(&c))
    {
        return quoted(lx, cfg, end);
    }
    None
}

/// The end of a block comment opened at `i`, counting nesting when the language nests them.
fn block_comment_end(lx: &Lexer, i: usize, open: &[u8], close: &[u8], nested: bool) -> usize {
    if !nested {
        return lx.until(i + open.len(), close);
    }
    let b = lx.b;
    let at = |j: usize, pat: &[u8]| b.len() - j >= pat.len() && pat.iter().enumerate().all(|(k, &c)| b[j + k] == c);
    let mut depth = 1usize;
    let mut j = i + open.len();
    // Straight to the next byte that may start either (a slice comparison per byte was a
    // tenth of the lexer's time on Rust).
    while let Some(k) = memchr::memchr2(close[0], open[0], &b[j..]) {
        j += k;
        if at(j, close) {
            depth -= 1;
            j += close.len();
            if depth == 0 {
                return j;
            }
        } else if at(j, open) {
            depth += 1;
            j += open.len();
        } else {
            j += 1;
        }
    }
    b.len()
}

/// Rust `#[…]` / `#![…]`: to the matching `]` on the line, or the line's end.
fn attribute_end(lx: &Lexer, i: usize) -> usize {
    let b = lx.b;
    let mut depth = 0usize;
    let mut j = i + 1;
    while j < b.len() && b[j] != b'\n' {
        match b[j] {
            b'[' => depth += 1,
            b']' => {
                depth -= 1;
                if depth == 0 {
                    return j + 1;
                }
            }
            b'"' => {
                j = lx.string_end(j, b'"', true, false);
                continue;
            }
            _ => {}
        }
        j += 1;
    }
    j
}

/// TOML: `[table]` headers and `key =` at a line's start.
fn toml_line_start(lx: &mut Lexer) {
    let i = lx.pos;
    if lx.at(i) == b'[' {
        let line = lx.line_end(i);
        let close = memchr::memrchr(b']', &lx.b[i..line]).map_or(line, |k| i + k + 1);
        lx.token(Class::Type, close);
        return;
    }
    let end = key_end(lx, i, |c| c == b'=' || c == b'#' || c == b'\n');
    if end > i && lx.next_nonblank(end) == b'=' {
        lx.token(Class::Key, end);
    }
}

/// YAML: document markers, list dashes, then `key:` at a line's start.
fn yaml_line_start(lx: &mut Lexer) {
    let i = lx.pos;
    if matches!(lx.prev(i), 0 | b'\n')
        && (lx.starts_with(i, b"---") || lx.starts_with(i, b"..."))
        && matches!(lx.at(i + 3), 0 | b'\n' | b' ' | b'\r')
    {
        lx.token(Class::Meta, i + 3);
        return;
    }
    let mut j = i;
    while lx.at(j) == b'-' && matches!(lx.at(j + 1), b' ' | b'\t') {
        j += 2;
        while matches!(lx.at(j), b' ' | b'\t') {
            j += 1;
        }
    }
    lx.pos = j;
    let c = lx.at(j);
    if c == b'#' || c == b'\n' || c == 0 {
        return;
    }
    let end = if c == b'"' || c == b'\'' {
        lx.string_end(j, c, c == b'"', false)
    } else {
        // A plain key: up to `: `, `:` at the line's end, or a comment.
        let mut k = j;
        let b = lx.b;
        loop {
            match b.get(k) {
                None | Some(b'\n') => return,
                Some(b':') if matches!(lx.at(k + 1), 0 | b' ' | b'\t' | b'\n' | b'\r') => break,
                Some(b'#') if matches!(lx.prev(k), b' ' | b'\t') => return,
                _ => k += 1,
            }
        }
        // Trailing blanks stay plain.
        while k > j && matches!(b[k - 1], b' ' | b'\t') {
            k -= 1;
        }
        k
    };
    if lx.next_nonblank(end) == b':' {
        lx.token(Class::Key, end);
    }
}

/// The end of a TOML key (bare, quoted or dotted) starting at `i`.
fn key_end(lx: &Lexer, i: usize, stop: impl Fn(u8) -> bool) -> usize {
    let b = lx.b;
    let mut j = i;
    while j < b.len() && !stop(b[j]) {
        match b[j] {
            b'"' | b'\'' => j = lx.string_end(j, b[j], b[j] == b'"', false),
            _ => j += 1,
        }
    }
    while j > i && matches!(b[j - 1], b' ' | b'\t') {
        j -= 1;
    }
    j
}

#[derive(Clone, Copy, PartialEq)]
enum ShellFlavour {
    Shell,
    Dockerfile,
    Makefile,
}

const SHELL_KEYWORDS: &[&str] = &[
    "alias", "case", "declare", "do", "done", "elif", "else", "esac", "eval", "exec", "exit", "export", "fi", "for",
    "function", "if", "in", "local", "readonly", "return", "select", "set", "shift", "source", "then", "time", "trap",
    "unset", "until", "while",
];

const DOCKERFILE_INSTRUCTIONS: &[&str] = &[
    "add",
    "arg",
    "cmd",
    "copy",
    "entrypoint",
    "env",
    "expose",
    "from",
    "healthcheck",
    "label",
    "maintainer",
    "onbuild",
    "run",
    "shell",
    "stopsignal",
    "user",
    "volume",
    "workdir",
];

const MAKE_KEYWORDS: &[&str] = &[
    "-include",
    ".DEFAULT_GOAL",
    ".PHONY",
    ".SUFFIXES",
    "define",
    "else",
    "endef",
    "endif",
    "export",
    "ifdef",
    "ifeq",
    "ifndef",
    "ifneq",
    "include",
    "override",
    "sinclude",
    "unexport",
    "vpath",
];

/// Word bytes for shell: identifiers plus what paths, flags and globs use.
fn is_shell_word(c: u8) -> bool {
    is_ident(c)
        || matches!(
            c,
            b'-' | b'.'
                | b'/'
                | b'+'
                | b','
                | b'@'
                | b'%'
                | b':'
                | b'~'
                | b'='
                | b'*'
                | b'?'
                | b'['
                | b']'
                | b'^'
                | b'!'
        )
}

/// Shell, and what is shell with a line-start twist (Dockerfile instructions, Makefile
/// targets and variables).
fn shell(lx: &mut Lexer, flavour: ShellFlavour) {
    let n = lx.b.len();
    let mut line_start = true;
    // At a command's name: the first word of a line or after `|`, `;`, `&&`, `(`.
    let mut command = true;
    // The previous line ended with `\`: this one continues it.
    let mut continued = false;
    while lx.pos < n {
        let i = lx.pos;
        let c = lx.b[i];
        if line_start {
            if c == b' ' || c == b'\t' {
                lx.pos += 1;
                continue;
            }
            line_start = false;
            if !continued {
                command = true;
                match flavour {
                    ShellFlavour::Shell => {}
                    ShellFlavour::Dockerfile => {
                        let end = lx.ident_end(i, false);
                        let word = lx.src[i..end].to_ascii_lowercase();
                        if end > i && contains(DOCKERFILE_INSTRUCTIONS, &word) {
                            lx.token(Class::Keyword, end);
                            command = word == "run";
                            continue;
                        }
                    }
                    ShellFlavour::Makefile => {
                        // A recipe line (tab-indented) is shell; others are make.
                        if i == 0 || lx.b[i - 1] != b'\t' {
                            make_line_start(lx);
                            command = false;
                            continue;
                        }
                    }
                }
            }
            continue;
        }
        match c {
            b'\n' => {
                continued = lx.prev(i) == b'\\';
                line_start = true;
                lx.pos += 1;
            }
            b'#' if matches!(lx.prev(i), 0 | b' ' | b'\t' | b'\n' | b';' | b'(') => {
                let end = lx.line_end(i);
                lx.token(Class::Comment, end);
            }
            b'"' => {
                let end = lx.string_end(i, b'"', true, true);
                lx.token(Class::String, end);
                command = false;
            }
            b'\'' => {
                let end = lx.string_end(i, b'\'', false, true);
                lx.token(Class::String, end);
                command = false;
            }
            b'$' => {
                let next = lx.at(i + 1);
                let end = match next {
                    b'{' => {
                        let line = lx.line_end(i);
                        memchr::memchr(b'}', &lx.b[i..line]).map_or(line, |k| i + k + 1)
                    }
                    b'(' if flavour == ShellFlavour::Makefile => make_var_end(lx, i),
                    c if is_ident_start(c) && c < 0x80 => {
                        let mut j = i + 1;
                        while j < n && (lx.b[j].is_ascii_alphanumeric() || lx.b[j] == b'_') {
                            j += 1;
                        }
                        j
                    }
                    b'0'..=b'9' | b'@' | b'*' | b'#' | b'?' | b'$' | b'!' | b'-' | b'<' | b'^' => i + 2,
                    _ => i + 1,
                };
                if end > i + 1 {
                    lx.token(Class::Variable, end);
                } else {
                    lx.pos += 1;
                }
            }
            b'|' | b';' | b'&' | b'(' | b'`' | b'{' => {
                command = true;
                lx.pos += 1;
            }
            b' ' | b'\t' | b'\r' => lx.pos += 1,
            c if is_shell_word(c) => {
                let mut end = i + 1;
                while end < n && is_shell_word(lx.b[end]) && lx.b[end] != b'=' {
                    end += 1;
                }
                let word = &lx.src[i..end];
                if lx.at(end) == b'=' && command && is_ident_start(c) {
                    // `VAR=value cmd`: an assignment, the command comes after.
                    lx.token(Class::Variable, end);
                    // The value, then still at the command's name.
                    let v = end + 1;
                    match lx.at(v) {
                        q @ (b'"' | b'\'') => {
                            lx.pos = v;
                            let s_end = lx.string_end(v, q, q == b'"', true);
                            lx.token(Class::String, s_end);
                        }
                        _ => {
                            let mut e = v;
                            while e < n && is_shell_word(lx.b[e]) {
                                e += 1;
                            }
                            lx.pos = e;
                        }
                    }
                    continue;
                }
                // The rest of a word like `--opt=value` is plain.
                while end < n && is_shell_word(lx.b[end]) {
                    end += 1;
                }
                if contains(SHELL_KEYWORDS, word) && (command || word == "in" || word == "do") {
                    lx.token(Class::Keyword, end);
                    command = word != "export"
                        && word != "local"
                        && word != "declare"
                        && word != "readonly"
                        && word != "unset"
                        && word != "alias"
                        && word != "for"
                        && word != "case"
                        && word != "in"
                        && word != "select";
                } else if command {
                    lx.token(Class::Function, end);
                    command = false;
                } else if word.bytes().all(|b| b.is_ascii_digit()) {
                    lx.token(Class::Number, end);
                } else {
                    lx.pos = end;
                }
            }
            _ => lx.pos += 1,
        }
    }
}

/// `$(…)` in a Makefile: to the matching `)` on the line.
fn make_var_end(lx: &Lexer, i: usize) -> usize {
    let b = lx.b;
    let mut depth = 0usize;
    let mut j = i + 1;
    while j < b.len() && b[j] != b'\n' {
        match b[j] {
            b'(' => depth += 1,
            b')' => {
                depth -= 1;
                if depth == 0 {
                    return j + 1;
                }
            }
            _ => {}
        }
        j += 1;
    }
    j
}

/// A Makefile line outside a recipe: keywords, `target:` and `VAR =`.
fn make_line_start(lx: &mut Lexer) {
    let i = lx.pos;
    let end = lx.ident_end(i, true);
    let mut end = end;
    while end < lx.b.len() && matches!(lx.b[end], b'.' | b'/' | b'%' | b'-' | b'_') {
        end = lx.ident_end(end + 1, true);
    }
    if end == i && lx.at(i) == b'.' {
        end = lx.ident_end(i + 1, true);
    }
    if end == i {
        return;
    }
    let word = &lx.src[i..end];
    if contains(MAKE_KEYWORDS, word) {
        lx.token(Class::Keyword, end);
        return;
    }
    let mut j = end;
    while matches!(lx.at(j), b' ' | b'\t') {
        j += 1;
    }
    let c = lx.at(j);
    let assign = c == b'='
        || (matches!(c, b':' | b'?' | b'+' | b'!') && lx.at(j + 1) == b'=')
        || (c == b':' && lx.at(j + 1) == b':' && lx.at(j + 2) == b'=');
    if assign {
        lx.token(Class::Key, end);
    } else if c == b':' || (c != b'\n' && c != 0 && is_shell_word(c)) {
        // `target:` or `a b c:`: the target list up to the colon.
        let line = lx.line_end(i);
        if let Some(k) = memchr::memchr(b':', &lx.b[i..line])
            && !lx.src[i..i + k].contains(['=', '$', '#'])
        {
            let mut t = i + k;
            while t > i && matches!(lx.b[t - 1], b' ' | b'\t') {
                t -= 1;
            }
            lx.token(Class::Function, t);
        }
    }
}

/// A terminal session: `$ command` lines (and their `\` continuations) are shell, the
/// rest is output, left plain.
fn console(lx: &mut Lexer) {
    let n = lx.b.len();
    while lx.pos < n {
        let i = lx.pos;
        let line = lx.line_end(i);
        let prompt = lx.starts_with(i, b"$ ") || (line == i + 1 && lx.at(i) == b'$');
        if !prompt {
            lx.pos = (line + 1).min(n);
            continue;
        }
        lx.token(Class::Prompt, i + 1);
        // The command runs on while lines end with `\`.
        let mut end = line;
        while end < n && end > 0 && lx.b[end - 1] == b'\\' {
            end = lx.line_end(end + 1);
        }
        lx.flush();
        push_highlighted(lx.out, Some(Language::Shell), &lx.src[i + 1..end]);
        lx.pos = end;
        lx.plain = end;
        if end < n {
            lx.pos = end + 1;
        }
    }
}

/// A unified diff: whole lines classed by their first bytes.
fn diff(lx: &mut Lexer) {
    let n = lx.b.len();
    while lx.pos < n {
        let i = lx.pos;
        let line = lx.line_end(i);
        let b = &lx.b[i..line];
        let class = if b.starts_with(b"+++ ") || b.starts_with(b"--- ") || b == b"+++" || b == b"---" {
            Some(Class::Meta)
        } else if b.starts_with(b"@@") {
            Some(Class::Hunk)
        } else if b.starts_with(b"+") {
            Some(Class::Added)
        } else if b.starts_with(b"-") {
            Some(Class::Removed)
        } else if b.starts_with(b"diff ")
            || b.starts_with(b"index ")
            || b.starts_with(b"new file")
            || b.starts_with(b"deleted file")
            || b.starts_with(b"similarity ")
            || b.starts_with(b"rename ")
            || b.starts_with(b"Binary files")
        {
            Some(Class::Meta)
        } else if b.starts_with(b"\\ ") {
            Some(Class::Comment)
        } else {
            None
        };
        match class {
            Some(class) => lx.token(class, line),
            None => lx.pos = line,
        }
        if lx.pos < n {
            lx.pos += 1;
        }
    }
}

/// HTML and XML: tags, attributes, their values, comments, doctypes, entities.
fn markup(lx: &mut Lexer) {
    let n = lx.b.len();
    while lx.pos < n {
        let i = lx.pos;
        let Some(k) = memchr::memchr2(b'<', b'&', &lx.b[i..]) else {
            lx.pos = n;
            break;
        };
        let i = i + k;
        lx.pos = i;
        if lx.b[i] == b'&' {
            let mut j = i + 1;
            while j < n && j < i + 32 && (lx.b[j].is_ascii_alphanumeric() || lx.b[j] == b'#') {
                j += 1;
            }
            if j > i + 1 && lx.at(j) == b';' {
                lx.token(Class::Literal, j + 1);
            } else {
                lx.pos += 1;
            }
            continue;
        }
        if lx.starts_with(i, b"<!--") {
            let end = lx.until(i + 4, b"-->");
            lx.token(Class::Comment, end);
            continue;
        }
        if lx.starts_with(i, b"<![CDATA[") {
            let end = lx.until(i + 9, b"]]>");
            lx.token(Class::String, end);
            continue;
        }
        if matches!(lx.at(i + 1), b'!' | b'?') {
            let end = memchr::memchr(b'>', &lx.b[i..]).map_or(n, |k| i + k + 1);
            lx.token(Class::Meta, end);
            continue;
        }
        let name_start = if lx.at(i + 1) == b'/' { i + 2 } else { i + 1 };
        if !is_ident_start(lx.at(name_start)) {
            lx.pos += 1;
            continue;
        }
        lx.pos = name_start;
        let name_end = tag_name_end(lx, name_start);
        lx.token(Class::Tag, name_end);
        // Attributes up to `>`.
        while lx.pos < n {
            let j = lx.pos;
            match lx.b[j] {
                b'>' => {
                    lx.pos += 1;
                    break;
                }
                b'<' => break,
                b'"' | b'\'' => {
                    let end = lx.string_end(j, lx.b[j], false, true);
                    lx.token(Class::String, end);
                }
                c if is_ident_start(c) || c == b':' || c == b'@' => {
                    let end = tag_name_end(lx, j + 1);
                    lx.token(Class::Attr, end);
                }
                _ => lx.pos += 1,
            }
        }
    }
}

fn tag_name_end(lx: &Lexer, mut j: usize) -> usize {
    while j < lx.b.len() && (is_ident(lx.b[j]) || matches!(lx.b[j], b'-' | b':' | b'.')) {
        j += 1;
    }
    j
}

/// CSS: selectors outside braces, properties and values inside.
fn css(lx: &mut Lexer) {
    let n = lx.b.len();
    let mut depth = 0usize;
    while lx.pos < n {
        let i = lx.pos;
        let c = lx.b[i];
        match c {
            b'/' if lx.at(i + 1) == b'*' => {
                let end = lx.until(i + 2, b"*/");
                lx.token(Class::Comment, end);
            }
            b'"' | b'\'' => {
                let end = lx.string_end(i, c, true, false);
                lx.token(Class::String, end);
            }
            b'{' => {
                depth += 1;
                lx.pos += 1;
            }
            b'}' => {
                depth = depth.saturating_sub(1);
                lx.pos += 1;
            }
            b'@' if is_ident_start(lx.at(i + 1)) => {
                let end = lx.ident_end(i + 1, true);
                lx.token(Class::Keyword, end);
            }
            b'!' if lx.starts_with(i + 1, b"important") => lx.token(Class::Keyword, i + 10),
            b'#' if depth > 0 && lx.at(i + 1).is_ascii_hexdigit() => {
                let end = lx.ident_end(i + 1, false);
                lx.token(Class::Number, end);
            }
            b'.' | b'#' if depth == 0 && (is_ident_start(lx.at(i + 1)) || lx.at(i + 1) == b'-') => {
                let end = lx.ident_end(i + 1, true);
                lx.token(Class::Attr, end);
            }
            b'0'..=b'9' => {
                let mut end = lx.number_end(i);
                if lx.at(end) == b'%' {
                    end += 1;
                }
                lx.token(Class::Number, end);
            }
            b'.' if lx.at(i + 1).is_ascii_digit() => {
                let end = lx.number_end(i);
                lx.token(Class::Number, end);
            }
            c if is_ident_start(c) || (c == b'-' && (is_ident_start(lx.at(i + 1)) || lx.at(i + 1) == b'-')) => {
                let end = lx.ident_end(i + 1, true);
                let after = lx.next_nonblank(end);
                let class = if after == b'(' {
                    Some(Class::Function)
                } else if depth > 0 && after == b':' {
                    Some(Class::Key)
                } else if depth == 0 && lx.prev(i) != b':' {
                    Some(Class::Tag)
                } else {
                    None
                };
                match class {
                    Some(class) => lx.token(class, end),
                    None => lx.pos = end,
                }
            }
            _ => lx.pos += 1,
        }
    }
}

/// Markdown, minimally: headings, fenced code (highlighted in its own language, unless it
/// is Markdown again), code spans.
fn markdown(lx: &mut Lexer) {
    let n = lx.b.len();
    // Backtick runs of a length already known to have no closer on this line.
    let mut no_closer: [usize; 16] = [usize::MAX; 16];
    let mut line_start = true;
    while lx.pos < n {
        let i = lx.pos;
        let c = lx.b[i];
        if line_start {
            line_start = false;
            no_closer = [usize::MAX; 16];
            let line = lx.line_end(i);
            let mut j = i;
            while j < i + 3 && lx.at(j) == b' ' {
                j += 1;
            }
            let h = lx.b[j..line].iter().take_while(|&&c| c == b'#').count();
            if (1..=6).contains(&h) && matches!(lx.at(j + h), b' ' | b'\t' | b'\n' | 0) {
                lx.pos = j;
                lx.token(Class::Heading, line);
                continue;
            }
            let fence_char = lx.at(j);
            let fence = lx.b[j..line].iter().take_while(|&&c| c == fence_char).count();
            if (fence_char == b'`' || fence_char == b'~') && fence >= 3 {
                let info = &lx.src[j + fence..line];
                if fence_char == b'`' && info.contains('`') {
                    // Not a fence: an inline code span.
                } else {
                    let lang = language(info.trim()).filter(|&l| l != Language::Markdown);
                    lx.pos = j;
                    lx.token(Class::Meta, line);
                    // The body: up to a closing fence of the same char, at least as long.
                    let body = (line + 1).min(n);
                    let mut k = body;
                    let mut close = None;
                    while k < n {
                        let l_end = lx.line_end(k);
                        let t = lx.src[k..l_end].trim_start_matches(' ');
                        let run = t.bytes().take_while(|&c| c == fence_char).count();
                        if run >= fence && t[run..].trim().is_empty() && l_end - k - t.len() < 4 {
                            close = Some((k, l_end));
                            break;
                        }
                        k = (l_end + 1).min(n);
                        if l_end == n {
                            break;
                        }
                    }
                    let body_end = close.map_or(n, |(k, _)| k);
                    lx.pos = body;
                    match lang {
                        Some(_) => {
                            lx.flush();
                            push_highlighted(lx.out, lang, &lx.src[body..body_end]);
                            lx.plain = body_end;
                            lx.pos = body_end;
                        }
                        None => lx.token(Class::Code, body_end),
                    }
                    lx.pos = body_end;
                    if let Some((_, l_end)) = close {
                        lx.token(Class::Meta, l_end);
                    }
                    line_start = false;
                    continue;
                }
            }
        }
        match c {
            b'\n' => {
                line_start = true;
                lx.pos += 1;
            }
            b'`' => {
                let run = lx.b[i..].iter().take_while(|&&c| c == b'`').count();
                let line = lx.line_end(i);
                let slot = run.min(16) - 1;
                let mut close = None;
                if run <= 16 && no_closer[slot] > i {
                    let mut k = i + run;
                    while let Some(off) = memchr::memchr(b'`', &lx.b[k..line]) {
                        let s = k + off;
                        let r = lx.b[s..line].iter().take_while(|&&c| c == b'`').count();
                        if r == run {
                            close = Some(s + r);
                            break;
                        }
                        k = s + r;
                    }
                    if close.is_none() {
                        no_closer[slot] = i;
                    }
                }
                match close {
                    Some(end) => lx.token(Class::Code, end),
                    None => lx.pos = i + run,
                }
            }
            _ => {
                // Plain text up to the next backtick or newline.
                lx.pos = memchr::memchr2(b'`', b'\n', &lx.b[i..]).map_or(n, |k| i + k).max(i + 1);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn hl(lang: Language, code: &str) -> String {
        let mut out = String::new();
        push_highlighted(&mut out, Some(lang), code);
        out
    }

    /// The text with its spans stripped and unescaped; panics on unbalanced or nested spans.
    fn strip(html: &str) -> String {
        let mut text = String::new();
        let mut depth = 0i32;
        let mut rest = html;
        while let Some(k) = rest.find('<') {
            text.push_str(&rest[..k]);
            let end = rest[k..].find('>').expect("tag closes") + k;
            let tag = &rest[k..=end];
            if tag == "</span>" {
                depth -= 1;
                assert!(depth >= 0, "unbalanced close in {html:?}");
            } else {
                assert!(tag.starts_with("<span class=\"hl-"), "unknown tag {tag}");
                depth += 1;
                assert!(depth == 1, "nested span in {html:?}");
            }
            rest = &rest[end + 1..];
        }
        text.push_str(rest);
        assert_eq!(depth, 0, "unclosed span in {html:?}");
        assert!(!text.contains('>'), "raw > in {html:?}");
        text.replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&#39;", "'")
            .replace("&amp;", "&")
    }

    fn spans(html: &str) -> Vec<(String, String)> {
        let mut v = Vec::new();
        let mut rest = html;
        while let Some(k) = rest.find("<span class=\"hl-") {
            rest = &rest[k + 16..];
            let q = rest.find('"').unwrap();
            let class = rest[..q].to_owned();
            rest = &rest[q + 2..];
            let e = rest.find("</span>").unwrap();
            v.push((class, rest[..e].to_owned()));
            rest = &rest[e..];
        }
        v
    }

    /// Every language configuration of the generic lexer.
    const ALL_CONFIGS: [&Config; 16] = [
        &RUST,
        &C,
        &CPP,
        &CSHARP,
        &GO,
        &JAVA,
        &KOTLIN,
        &SWIFT,
        &JAVASCRIPT,
        &TYPESCRIPT,
        &PYTHON,
        &RUBY,
        &JSON,
        &TOML,
        &YAML,
        &SQL,
    ];

    fn has(lang: Language, code: &str, class: &str, text: &str) -> bool {
        spans(&hl(lang, code)).iter().any(|(c, t)| c == class && t == text)
    }

    #[test]
    fn config_ids_index_words() {
        let configs = ALL_CONFIGS;
        let mut ids: Vec<usize> = configs.iter().map(|c| c.id).collect();
        ids.sort();
        assert_eq!(ids, (0..CONFIGS).collect::<Vec<_>>());
    }

    #[test]
    fn shell_word_lists_are_sorted_for_binary_search() {
        for list in [SHELL_KEYWORDS, DOCKERFILE_INSTRUCTIONS, MAKE_KEYWORDS] {
            assert!(list.windows(2).all(|w| w[0] < w[1]), "{list:?} is not sorted");
        }
    }

    #[test]
    fn declaration_keywords_are_keywords() {
        let configs = ALL_CONFIGS;
        for c in configs {
            for w in c
                .fn_decl
                .split(' ')
                .chain(c.type_decl.split(' '))
                .filter(|w| !w.is_empty())
            {
                assert!(c.keywords.split(' ').any(|k| k == w), "{w}");
            }
        }
    }

    #[test]
    fn names_and_aliases() {
        for lang in Language::ALL {
            assert_eq!(language(lang.name()), Some(lang));
        }
        assert_eq!(language("rs"), Some(Language::Rust));
        assert_eq!(language("Rust ignore"), Some(Language::Rust));
        assert_eq!(language("py"), Some(Language::Python));
        assert_eq!(language("sh"), Some(Language::Shell));
        assert_eq!(language("console"), Some(Language::Console));
        assert_eq!(language("tsx"), Some(Language::TypeScript));
        assert_eq!(language("jsx"), Some(Language::JavaScript));
        assert_eq!(language("jsonc"), Some(Language::Json));
        assert_eq!(language("yml"), Some(Language::Yaml));
        assert_eq!(language("patch"), Some(Language::Diff));
        assert_eq!(language("language-go"), Some(Language::Go));
        assert_eq!(language("brainfuck"), None);
        assert_eq!(language(""), None);
        assert_eq!(language_for_path("src/main.rs"), Some(Language::Rust));
        assert_eq!(language_for_path("/x/Makefile"), Some(Language::Makefile));
        assert_eq!(language_for_path("Dockerfile"), Some(Language::Dockerfile));
        assert_eq!(language_for_path("/root/.bashrc"), Some(Language::Shell));
        assert_eq!(language_for_path("a/b.test.tsx"), Some(Language::TypeScript));
        assert_eq!(language_for_path("Cargo.toml"), Some(Language::Toml));
        assert_eq!(language_for_path("notes.txt"), None);
        assert_eq!(language_for_path("README"), None);
    }

    proptest! {
        #[test]
        fn word_look_ups_agree_with_the_lists(word in "[a-zA-Z_0-9?~]{1,12}", pad in "[a-z ]{0,9}") {
            for cfg in ALL_CONFIGS {
                let in_list = |list: &str| list.split_ascii_whitespace().any(|w| w == word);
                let want = if in_list(cfg.type_decl) {
                    Some(Word::TypeKeyword)
                } else if in_list(cfg.fn_decl) {
                    Some(Word::FnKeyword)
                } else if in_list(cfg.keywords) {
                    Some(Word::Keyword)
                } else if in_list(cfg.literals) {
                    Some(Word::Literal)
                } else if in_list(cfg.types) {
                    Some(Word::Type)
                } else {
                    None
                };
                let w = words(cfg);
                prop_assert!(w.get(word.as_bytes()) == want, "{}", word);
                // Read in place, with or without bytes after it.
                let text = format!("{word}{pad}");
                prop_assert!(w.get_at(text.as_bytes(), 0, word.len()) == want, "{}", word);
            }
        }
    }

    #[test]
    fn every_listed_word_is_found() {
        for cfg in ALL_CONFIGS {
            let w = words(cfg);
            for list in [cfg.keywords, cfg.literals, cfg.types, cfg.fn_decl, cfg.type_decl] {
                for word in list.split_ascii_whitespace() {
                    assert!(w.get(word.as_bytes()).is_some(), "{word}");
                }
            }
        }
    }

    #[test]
    fn none_only_escapes() {
        let mut out = String::new();
        push_highlighted(&mut out, None, "a<b> & \"c\" 'd'");
        assert_eq!(out, "a&lt;b&gt; &amp; &quot;c&quot; &#39;d&#39;");
    }

    #[test]
    fn rust() {
        let code = "#[derive(Debug)]\npub fn main<'a>(x: &'a str) -> u8 {\n    // hi\n    let s = r#\"a\"b\"#; let c = '\\n'; println!(\"{x}\"); Foo::new(1.5e-3) /* a /* b */ c */\n}";
        let out = hl(Language::Rust, code);
        assert_eq!(strip(&out), code);
        let s = spans(&out);
        let want = [
            ("meta", "#[derive(Debug)]"),
            ("keyword", "pub"),
            ("keyword", "fn"),
            ("function", "main"),
            ("type", "str"),
            ("type", "u8"),
            ("comment", "// hi"),
            ("string", "r#&quot;a&quot;b&quot;#"),
            ("string", "&#39;\\n&#39;"),
            ("function", "println"),
            ("string", "&quot;{x}&quot;"),
            ("type", "Foo"),
            ("function", "new"),
            ("number", "1.5e-3"),
            ("comment", "/* a /* b */ c */"),
        ];
        for (c, t) in want {
            assert!(s.iter().any(|(sc, st)| sc == c && st == t), "{c} {t} not in {s:?}");
        }
        // Lifetimes are not chars.
        assert!(!s.iter().any(|(_, t)| t.contains("&#39;a")), "{s:?}");
    }

    #[test]
    fn c_like_and_scripts() {
        assert!(has(Language::C, "#include <stdio.h>\nint x;", "meta", "#include"));
        assert!(has(Language::C, "int x;", "type", "int"));
        assert!(has(Language::Go, "x := `raw\\`", "string", "`raw\\`"));
        assert!(has(Language::Go, "func Add(a int)", "function", "Add"));
        assert!(has(Language::JavaScript, "const s = `a\nb`;", "string", "`a\nb`"));
        assert!(has(Language::TypeScript, "interface Foo {}", "type", "Foo"));
        assert!(has(Language::Java, "@Override\npublic void f()", "meta", "@Override"));
        assert!(has(
            Language::Python,
            "def f():\n  '''doc\n'''",
            "string",
            "&#39;&#39;&#39;doc\n&#39;&#39;&#39;"
        ));
        assert!(has(Language::Python, "x = f\"{a}\" # c", "string", "f&quot;{a}&quot;"));
        assert!(has(Language::Python, "x = f\"{a}\" # c", "comment", "# c"));
        assert!(has(Language::Python, "return None", "literal", "None"));
        assert!(has(Language::Ruby, "puts :sym if defined?(x)", "literal", ":sym"));
        assert!(has(Language::Ruby, "puts :sym if defined?(x)", "keyword", "defined?"));
        assert!(has(Language::Sql, "SELECT id FROM t -- c", "keyword", "SELECT"));
        assert!(has(Language::Sql, "select 'it''s'", "string", "&#39;it&#39;"));
        assert!(has(Language::Sql, "SELECT id FROM t -- c", "comment", "-- c"));
        assert!(has(
            Language::Kotlin,
            "fun main() = println(\"\"\"x\"\"\")",
            "function",
            "main"
        ));
    }

    #[test]
    fn data() {
        let json = r#"{"a": [1, -2.5e3, true, null], "b": "x\"y"}"#;
        assert!(has(Language::Json, json, "key", "&quot;a&quot;"));
        assert!(has(Language::Json, json, "string", "&quot;x\\&quot;y&quot;"));
        assert!(has(Language::Json, json, "number", "2.5e3"));
        assert!(has(Language::Json, json, "literal", "null"));
        let toml = "[package]\nname = \"x\" # c\nversion.workspace = true\n";
        assert!(has(Language::Toml, toml, "type", "[package]"));
        assert!(has(Language::Toml, toml, "key", "name"));
        assert!(has(Language::Toml, toml, "key", "version.workspace"));
        assert!(has(Language::Toml, toml, "comment", "# c"));
        assert!(has(Language::Toml, toml, "literal", "true"));
        let yaml = "---\nname: it's # c\nlist:\n  - key: 'v'\n    n: 3\n";
        assert!(has(Language::Yaml, yaml, "meta", "---"));
        assert!(has(Language::Yaml, yaml, "key", "name"));
        assert!(has(Language::Yaml, yaml, "key", "key"));
        assert!(has(Language::Yaml, yaml, "key", "n"));
        assert!(has(Language::Yaml, yaml, "comment", "# c"));
        assert!(has(Language::Yaml, yaml, "number", "3"));
        assert!(!hl(Language::Yaml, yaml).contains("hl-string\">&#39;s"));
    }

    #[test]
    fn shells() {
        let sh = "FOO=1 cargo build --release && echo \"$HOME\" | grep -v x # done\nif [ -f a ]; then rm a; fi";
        assert!(has(Language::Shell, sh, "variable", "FOO"));
        assert!(has(Language::Shell, sh, "function", "cargo"));
        assert!(has(Language::Shell, sh, "function", "echo"));
        assert!(has(Language::Shell, sh, "function", "grep"));
        assert!(!has(Language::Shell, sh, "function", "build"));
        assert!(has(Language::Shell, sh, "string", "&quot;$HOME&quot;"));
        assert!(has(Language::Shell, sh, "comment", "# done"));
        assert!(has(Language::Shell, sh, "keyword", "if"));
        assert!(has(Language::Shell, sh, "keyword", "fi"));
        assert!(has(Language::Shell, "echo ${A}x $1", "variable", "${A}"));
        assert!(!has(Language::Shell, "echo a#b", "comment", "#b"));

        let console = "$ ls -la \\\n  /tmp\ntotal 0\n$ echo hi # x\nhi\n";
        let out = hl(Language::Console, console);
        assert_eq!(strip(&out), console);
        let s = spans(&out);
        assert_eq!(s.iter().filter(|(c, _)| c == "prompt").count(), 2);
        assert!(s.contains(&("function".into(), "ls".into())));
        assert!(s.contains(&("function".into(), "echo".into())));
        assert!(!s.iter().any(|(_, t)| t == "total" || t == "hi"));

        let docker = "FROM rust:1 AS build\nRUN apt-get update \\\n  && apt-get install -y x\n# c\n";
        assert!(has(Language::Dockerfile, docker, "keyword", "FROM"));
        assert!(has(Language::Dockerfile, docker, "keyword", "RUN"));
        assert!(has(Language::Dockerfile, docker, "function", "apt-get"));
        assert!(has(Language::Dockerfile, docker, "comment", "# c"));

        let make = ".PHONY: all\nCC := gcc\nall: main.o\n\t$(CC) -o $@ $^ # link\n";
        assert!(has(Language::Makefile, make, "keyword", ".PHONY"));
        assert!(has(Language::Makefile, make, "key", "CC"));
        assert!(has(Language::Makefile, make, "function", "all"));
        assert!(has(Language::Makefile, make, "variable", "$(CC)"));
        assert!(has(Language::Makefile, make, "variable", "$@"));
    }

    #[test]
    fn diff_markup_css_markdown() {
        let d = "diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n ctx\n";
        let s = spans(&hl(Language::Diff, d));
        assert_eq!(
            s,
            [
                ("meta", "diff --git a/x b/x"),
                ("meta", "--- a/x"),
                ("meta", "+++ b/x"),
                ("hunk", "@@ -1 +1 @@"),
                ("removed", "-old"),
                ("added", "+new"),
            ]
            .map(|(a, b)| (a.to_owned(), b.to_owned()))
        );
        let html = "<!DOCTYPE html>\n<a href=\"x\" hidden>t &amp; u</a><!-- c -->";
        assert!(has(Language::Html, html, "tag", "a"));
        assert!(has(Language::Html, html, "attr", "href"));
        assert!(has(Language::Html, html, "attr", "hidden"));
        assert!(has(Language::Html, html, "string", "&quot;x&quot;"));
        assert!(has(Language::Html, html, "literal", "&amp;amp;"));
        assert!(has(Language::Html, html, "comment", "&lt;!-- c --&gt;"));
        assert!(has(Language::Html, html, "meta", "&lt;!DOCTYPE html&gt;"));
        let css = "@media print {\n  a.b:hover, #id { color: #fff !important; margin: 0 1.5em }\n}\n/* c */";
        assert!(has(Language::Css, css, "keyword", "@media"));
        assert!(has(Language::Css, css, "key", "color"));
        assert!(has(Language::Css, css, "number", "#fff"));
        assert!(has(Language::Css, css, "number", "1.5em"));
        assert!(has(Language::Css, css, "keyword", "!important"));
        assert!(has(Language::Css, css, "comment", "/* c */"));
        let md = "# Title\ntext `code` and ``a`b``\n```rust\nfn x() {}\n```\n";
        let out = hl(Language::Markdown, md);
        assert_eq!(strip(&out), md);
        assert!(has(Language::Markdown, md, "heading", "# Title"));
        assert!(has(Language::Markdown, md, "code", "`code`"));
        assert!(has(Language::Markdown, md, "code", "``a`b``"));
        assert!(has(Language::Markdown, md, "keyword", "fn"));
        assert!(has(Language::Markdown, md, "meta", "```rust"));
    }

    #[test]
    fn unterminated_things_run_to_the_line_or_text_end() {
        let out = hl(Language::C, "x = \"abc\ny /* open");
        let s = spans(&out);
        assert!(s.contains(&("string".into(), "&quot;abc".into())));
        assert!(s.contains(&("comment".into(), "/* open".into())));
        assert_eq!(strip(&hl(Language::Rust, "r##\"x\"#")), "r##\"x\"#");
        assert_eq!(strip(&hl(Language::Python, "'''x")), "'''x");
    }

    #[test]
    fn linear_on_pathological_inputs() {
        // Each would be quadratic with a per-token rescan; these finish instantly.
        for input in [
            "`".repeat(200_000),
            "`a".repeat(100_000),
            "/*".repeat(100_000),
            "r#".repeat(100_000),
            "\"\\".repeat(100_000),
            "<a ".repeat(100_000),
            "$(".repeat(100_000),
            "#[".repeat(100_000),
        ] {
            for lang in Language::ALL {
                assert_eq!(strip(&hl(lang, &input)), input);
            }
        }
    }

    fn code_text() -> impl Strategy<Value = String> {
        prop_oneof![
            any::<String>(),
            prop::collection::vec(
                prop::sample::select(vec![
                    "\"", "'", "`", "#", "//", "/*", "*/", "\n", " ", "\\", "r#\"", "\"#", "$", "${", "(", ")", "{",
                    "}", "[", "]", "<", ">", "&", "<!--", "-->", "```", "---", "@@", "+", "-", ":", "=", "fn", "def",
                    "x", "é", "😀", "0x1f", "1.5e-3", "$ ", "\t", "@", "'''", "\"\"\"", "b'", "f\"", "-- ", "!", ".",
                    "\r",
                ]),
                0..40,
            )
            .prop_map(|v| v.concat()),
        ]
    }

    /// Code that reaches the fast ways' every turn: listed words of every language next to
    /// ones that are not (same first letter and length, other case), declarations, calls,
    /// macros, string prefixes, capitalised and ALL_CAPS words, identifiers past 8, 16 and
    /// 64 bytes, non-ASCII, the escaped bytes, unterminated strings and comments, CRLF and
    /// tabs, runs of blanks and punctuation.
    fn tricky_code() -> impl Strategy<Value = String> {
        let mut pieces: Vec<String> = [
            "fn",
            "fo",
            "struct",
            "strucT",
            "impl",
            "self",
            "Self",
            "true",
            "trux",
            "None",
            "def",
            "class",
            "func",
            "function",
            "SELECT",
            "Select",
            "select",
            "Null",
            "null",
            "nulL",
            "defined?",
            "defined",
            "end",
            "int",
            "String",
            "Foo",
            "FOO_BAR",
            "X",
            "x",
            "_",
            "token",
            "span",
            "(",
            ")",
            "!",
            "!=",
            "r\"",
            "r#\"x\"#",
            "br#\"",
            "b'",
            "b'x'",
            "f\"",
            "rb'",
            "u8",
            ":sym",
            "::",
            "$x",
            "$",
            "@ann",
            "@",
            "a.b",
            "x_1",
            "très",
            "日本語",
            "😀",
            "\r\n",
            "\n",
            "\t",
            " ",
            "  ",
            ",",
            ";",
            "0x1F",
            "1e+5",
            ".5",
            "9",
            "'a",
            "'\\n'",
            "'",
            "\"",
            "`",
            "// c",
            "# c",
            "#[a]",
            "-- c",
            "/* c */",
            "/*",
            "*/",
            "<",
            ">",
            "&",
            "~",
            "- ",
            "---",
            "key: ",
            "k = ",
            "[t]",
            "\"\"\"",
            "'''",
            "\\",
            "=",
            "?",
            "abcdefghijklmnopq",
            "a_very_long_identifier_name_x",
            "é日本語😀ident",
            "fnord",
        ]
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
        pieces.push("a".repeat(70));
        pieces.push("Z".repeat(17));
        prop_oneof![
            any::<String>(),
            prop::collection::vec(prop::sample::select(pieces), 0..60).prop_map(|v| v.concat()),
            prop::collection::vec(prop::sample::select(pieces_spaced()), 0..40).prop_map(|v| v.concat()),
        ]
    }

    /// Listed and unlisted words with blanks between: the fast way's usual going.
    fn pieces_spaced() -> Vec<String> {
        let mut v: Vec<String> = ALL_CONFIGS
            .iter()
            .flat_map(|c| [c.keywords, c.literals, c.types, c.fn_decl, c.type_decl])
            .flat_map(|l| l.split_ascii_whitespace())
            .flat_map(|w| {
                [
                    format!("{w} "),
                    format!("{w}("),
                    format!("{w}x "),
                    w.to_ascii_uppercase() + " ",
                ]
            })
            .collect();
        v.extend(["x ", "Foo ", "日本語 ", "\n", "  ", "\"q\" ", "// c\n", "1 "].map(String::from));
        v.sort();
        v.dedup();
        v
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(1000))]
        /// Code that reaches the lexers' every turn strips back to itself.
        #[test]
        fn tricky_code_strips_back_to_the_input(code in tricky_code()) {
            for lang in Language::ALL {
                prop_assert_eq!(strip(&hl(lang, &code)), code.clone(), "{}", lang.name());
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(400))]
        #[test]
        fn spans_strip_back_to_the_input(code in code_text()) {
            for lang in Language::ALL {
                let out = hl(lang, &code);
                prop_assert_eq!(strip(&out), code.clone(), "{}", lang.name());
            }
        }
    }
}
