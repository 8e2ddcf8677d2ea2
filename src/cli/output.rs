//! Human and machine output: colors only where they help, terminal-safe text, widths.

use std::io::{BufWriter, IsTerminal, Stdout, Write};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum ColorChoice {
    Auto,
    Always,
    Never,
}

/// Whether human output on stdout is coloured. `--color always|never` wins; with `auto`, the
/// environment's conventions in this order: `NO_COLOR` (not empty) means no colour; then
/// `CLICOLOR_FORCE` (not empty or `0`) or `FORCE_COLOR` (not empty, `0` or `false`, as Node reads
/// it) colour even into a pipe; then `CLICOLOR=0` means no colour; else colour on a terminal
/// whose `TERM` is not `dumb`. `env` reads a variable (the process environment outside tests).
pub fn use_color(choice: ColorChoice, is_terminal: bool, env: impl Fn(&str) -> Option<std::ffi::OsString>) -> bool {
    let set = |name: &str, off: &[&str]| env(name).is_some_and(|v| !v.is_empty() && !off.iter().any(|o| v == *o));
    match choice {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto if set("NO_COLOR", &[]) => false,
        ColorChoice::Auto if set("CLICOLOR_FORCE", &["0"]) || set("FORCE_COLOR", &["0", "false"]) => true,
        ColorChoice::Auto if env("CLICOLOR").is_some_and(|v| v == "0") => false,
        ColorChoice::Auto => is_terminal && env("TERM").is_none_or(|t| t != "dumb"),
    }
}

/// Styles used in human output.
#[derive(Debug, Clone, Copy)]
pub enum Style {
    Id,
    Dim,
    Label,
    User,
    Assistant,
    Tool,
    Meta,
    Current,
    Warn,
    Bold,
}

impl Style {
    pub fn code(self) -> &'static str {
        match self {
            Style::Id => "33",
            Style::Dim => "2",
            Style::Label => "32",
            Style::User => "36",
            Style::Assistant => "35",
            Style::Tool => "34",
            Style::Meta => "90",
            Style::Current => "1;32",
            Style::Warn => "31",
            Style::Bold => "1",
        }
    }
}

/// What rendering a line needs of an [`Output`]: whether to color, and the width to fit to.
/// A copy, so that rows can be rendered on other threads while the output is written.
#[derive(Debug, Clone, Copy)]
pub struct Look {
    pub color: bool,
    pub width: Option<usize>,
}

impl Look {
    /// `text` in a style (when coloring). The text must already be escaped.
    pub fn paint(&self, style: Style, text: &str) -> String {
        if self.color && !text.is_empty() {
            format!("\x1b[{}m{text}\x1b[0m", style.code())
        } else {
            text.to_owned()
        }
    }

    /// [`Look::paint`], appended to `buf`.
    pub fn paint_into(&self, buf: &mut String, style: Style, text: &str) {
        if self.color && !text.is_empty() {
            buf.push_str("\x1b[");
            buf.push_str(style.code());
            buf.push('m');
            buf.push_str(text);
            buf.push_str("\x1b[0m");
        } else {
            buf.push_str(text);
        }
    }
}

/// Where output goes: stdout, or a pager reading from a pipe.
enum Sink {
    Stdout(BufWriter<Stdout>),
    Pager {
        stdin: BufWriter<std::process::ChildStdin>,
        child: std::process::Child,
    },
}

/// Buffered stdout with the color decision and the width to fit lines to.
pub struct Output {
    out: Sink,
    /// The pager to start with the first line written (see [`Output::page`]).
    pending_pager: Option<String>,
    pub color: bool,
    pub is_terminal: bool,
    /// Columns to fit one-line output to; `None` when stdout is not a terminal.
    pub width: Option<usize>,
}

/// Diagnostics on stderr, for every command the same way: escaped (nothing from a session
/// reaches the terminal raw) and, for warnings and hints, with the `-s` the user gave carried
/// into the `pi-session` commands they suggest (see [`advise`]). Errors go through
/// `cli::report`.
impl Output {
    /// `warning: TEXT`.
    pub fn warn(text: &str) {
        Output::diagnostic(&format!("warning: {text}"));
    }

    /// `error: TEXT`, for an error that does not end the command (one file of several).
    pub fn error(text: &str) {
        stderr_line(&escape_line(&format!("error: {text}")));
    }

    /// `hint: TEXT`.
    pub fn hint(text: &str) {
        Output::diagnostic(&format!("hint: {text}"));
    }

    /// `note: TEXT`: something the user may want to know, not a problem.
    pub fn note(text: &str) {
        stderr_line(&escape_line(&format!("note: {text}")));
    }

    /// A line of its own about what the command did or did not do ("dry run: nothing
    /// written", "already there: nothing to do").
    pub fn say(text: &str) {
        stderr_line(&escape_line(text));
    }

    /// [`Output::say`] for text of several lines (newlines and tabs kept).
    pub fn say_block(text: &str) {
        stderr_line(&escape_block(text));
    }

    /// A whole diagnostic line, its prefix included, with the commands it suggests advised.
    pub fn diagnostic(line: &str) {
        stderr_line(&escape_line(&advise(line)));
    }
}

/// A line on stderr, above the progress bar if one is drawn.
fn stderr_line(line: &str) {
    super::progress::suspend(|| eprintln!("{line}"));
}

impl Output {
    pub fn new(choice: ColorChoice) -> Output {
        let stdout = std::io::stdout();
        let is_terminal = stdout.is_terminal();
        let color = use_color(choice, is_terminal, |name| std::env::var_os(name));
        // In a pipe lines are whole, unless COLUMNS asks for a width (as GNU ls reads it).
        let columns = || {
            std::env::var("COLUMNS")
                .ok()?
                .trim()
                .parse()
                .ok()
                .filter(|&w: &usize| w > 0)
        };
        let width = if is_terminal {
            terminal_size::terminal_size()
                .map(|(w, _)| w.0 as usize)
                .or_else(columns)
                .or(Some(80))
        } else {
            columns()
        };
        Output {
            out: Sink::Stdout(BufWriter::with_capacity(64 * 1024, stdout)),
            pending_pager: None,
            color,
            is_terminal,
            width,
        }
    }

    /// `text` in a style (when coloring). The text must already be escaped.
    pub fn paint(&self, style: Style, text: &str) -> String {
        self.look().paint(style, text)
    }

    /// How lines are rendered for this output, apart from the output itself.
    pub fn look(&self) -> Look {
        Look {
            color: self.color,
            width: self.width,
        }
    }

    pub fn line(&mut self, s: &str) -> std::io::Result<()> {
        let w = self.writer();
        w.write_all(s.as_bytes())?;
        w.write_all(b"\n")
    }

    /// `label` (escaped, padded to `indent` columns) then `parts` joined by ", ", wrapped at
    /// those joins onto lines indented by `indent` when the output has a width: no part is
    /// ever cut, so a number stays whole on a narrow terminal.
    pub fn labelled(&mut self, label: &str, indent: usize, parts: &[String]) -> std::io::Result<()> {
        let mut line = format!("{label}{}", " ".repeat(indent.saturating_sub(display_width(label))));
        let mut used = display_width(&line);
        let room = self.width.unwrap_or(usize::MAX);
        for (n, part) in parts.iter().enumerate() {
            let last = n + 1 == parts.len();
            let piece = if last { part.clone() } else { format!("{part},") };
            let wide = display_width(&piece);
            let fresh = used == indent.max(display_width(label));
            if !fresh && used + 1 + wide > room {
                self.line(&line)?;
                line = " ".repeat(indent);
                used = indent;
            } else if !fresh {
                line.push(' ');
                used += 1;
            }
            line.push_str(&piece);
            used += wide;
        }
        self.line(&line)
    }

    /// One `--json` record, written as `JSON.stringify` would write it: numbers as
    /// JavaScript prints them, a lone surrogate from a session as its escape.
    pub fn json(&mut self, record: &serde_json::Value) -> std::io::Result<()> {
        self.line(&pi_session::json::jsjson::stringify(record))
    }

    /// Bytes as they are, no newline added: for output written piece by piece.
    pub fn raw(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        self.writer().write_all(bytes)
    }

    pub fn raw_line(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        let w = self.writer();
        w.write_all(bytes)?;
        w.write_all(b"\n")
    }

    pub fn flush(&mut self) -> std::io::Result<()> {
        match &mut self.out {
            Sink::Stdout(w) => w.flush(),
            Sink::Pager { stdin, .. } => stdin.flush(),
        }
    }

    /// Sends the output through a pager when stdout is a terminal and a pager is configured
    /// (see `pager.rs`). The pager starts with the first line written, so a command that fails
    /// before printing anything never starts one.
    pub fn page(&mut self) {
        if self.is_terminal {
            self.pending_pager = super::pager::pager_command();
        }
    }

    /// Flushes, and when a pager runs, closes its input and waits until the user quits it.
    pub fn finish(&mut self) -> std::io::Result<()> {
        self.pending_pager = None;
        let flushed = self.flush();
        if let Sink::Pager { .. } = self.out {
            let stdout = Sink::Stdout(BufWriter::new(std::io::stdout()));
            if let Sink::Pager { stdin, mut child } = std::mem::replace(&mut self.out, stdout) {
                drop(stdin);
                let _ = child.wait();
            }
        }
        flushed
    }

    fn writer(&mut self) -> &mut dyn Write {
        if let Some(cmd) = self.pending_pager.take()
            && let Some(pager) = super::pager::spawn(&cmd)
        {
            if let Sink::Stdout(w) = &mut self.out {
                let _ = w.flush();
            }
            self.out = Sink::Pager {
                stdin: BufWriter::with_capacity(64 * 1024, pager.stdin),
                child: pager.child,
            };
        }
        match &mut self.out {
            Sink::Stdout(w) => w,
            Sink::Pager { stdin, .. } => stdin,
        }
    }
}

impl Drop for Output {
    /// A pager is never left running on the terminal, even on an early return.
    fn drop(&mut self) {
        let _ = self.finish();
    }
}

/// The `-s/--session` the user gave, for the commands suggested in hints and warnings.
static SESSION_ARG: std::sync::OnceLock<Option<String>> = std::sync::OnceLock::new();

/// Remembers the `-s/--session` of this run (see [`advise`]).
pub fn set_session_arg(arg: Option<&str>) {
    let _ = SESSION_ARG.set(arg.map(str::to_owned));
}

/// `s` as one shell word: as it is when it needs no quoting, else in single quotes.
pub fn shell_quote(s: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_@%+=:,./-".contains(c);
    if !s.is_empty() && s.chars().all(plain) {
        s.to_owned()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

/// The option naming a session, as a user would type it again.
fn session_option(arg: &str) -> String {
    if arg.starts_with('-') {
        format!("--session={}", shell_quote(arg))
    } else {
        format!("-s {}", shell_quote(arg))
    }
}

/// Subcommands that do not read one session: a suggestion of them carries no `-s`.
const SESSIONLESS: [&str; 3] = ["ls", "completions", "help"];

/// Puts `option` after `pi-session` in every command suggested in `text` (written as
/// `` `pi-session SUBCOMMAND …` ``), so that pasted it acts on the same session.
fn with_option(text: &str, option: &str) -> String {
    const CMD: &str = "`pi-session ";
    let mut out = String::with_capacity(text.len() + option.len());
    let mut rest = text;
    while let Some(at) = rest.find(CMD) {
        let (before, after) = rest.split_at(at + CMD.len());
        out.push_str(before);
        let word: String = after
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '-')
            .collect();
        if word.starts_with(|c: char| c.is_ascii_lowercase()) && !SESSIONLESS.contains(&word.as_str()) {
            out.push_str(option);
            out.push(' ');
        }
        rest = after;
    }
    out.push_str(rest);
    out
}

/// `text` with the user's `-s/--session` (if any) in each `pi-session` command it suggests:
/// as git's advice names the paths given, a pasted hint acts on the same session.
pub fn advise(text: &str) -> String {
    match SESSION_ARG.get() {
        Some(Some(arg)) => with_option(text, &session_option(arg)),
        _ => text.to_owned(),
    }
}

/// `text` with `-s PATH` in each `pi-session` command it suggests: for commands that go
/// through several sessions, where the one a hint is about is not the default.
pub fn advise_for(text: &str, path: &std::path::Path) -> String {
    with_option(text, &session_option(&path.to_string_lossy()))
}

use pi_session::human::terminal::{is_unsafe, push_escaped};
pub use pi_session::human::{escape_block, escape_line};

/// Flattens whitespace runs (newlines included) to single spaces, then escapes: for previews.
pub fn one_line(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut gap = false;
    let bytes = s.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        // A run of printable ASCII goes over at once.
        let run = bytes[i..].iter().take_while(|b| b.is_ascii_graphic()).count();
        if run > 0 {
            if gap && !out.is_empty() {
                out.push(' ');
            }
            gap = false;
            out.push_str(&s[i..i + run]);
            i += run;
            continue;
        }
        let c = s[i..].chars().next().expect("a character starts here");
        i += c.len_utf8();
        if c.is_whitespace() {
            gap = true;
            continue;
        }
        if gap && !out.is_empty() {
            out.push(' ');
        }
        gap = false;
        if is_unsafe(c) {
            push_escaped(&mut out, c);
        } else {
            out.push(c);
        }
    }
    out
}

/// [`fit`] of [`one_line`] of `s`, appended to `buf` in one pass: no line laid out first,
/// and no more of `s` read than the width can show. Returns whether the whole line fits.
pub fn fit_one_line_into(buf: &mut String, s: &str, width: usize) -> bool {
    let bytes = s.as_bytes();
    let mut fit = Fit::new(width, buf.len());
    // `s[seg..i]` is laid as it is (characters shown as they are, single spaces between
    // them) and is appended when something else comes: until then character `k` of it
    // would be at `buf.len() + k - seg`.
    let mut seg = 0;
    let mut i = 0;
    // Whitespace was met since the last character shown (it shows as one space before the
    // next one).
    let mut gap = false;
    let mut any = false;
    while i < bytes.len() {
        if !gap {
            // Printable ASCII, with single spaces between words, while it leaves room for
            // `…` ([`plain_run`]): nothing about the cut is decided there.
            let (j, used) = plain_run(bytes, i, fit.used(), fit.room, any);
            if j > i {
                fit.run(buf.len() + j - 1 - seg, used);
                any = true;
                i = j;
                if i == bytes.len() {
                    break;
                }
            }
        }
        let b = bytes[i];
        let at = buf.len() + i - seg;
        let spaced = b == b' ' && any && bytes.get(i + 1).is_some_and(u8::is_ascii_graphic);
        if (b.is_ascii_graphic() || spaced) && !gap {
            // Printable ASCII with single spaces between words, eight bytes at a time while
            // it lasts and then a byte at a time, until a column over the room. A step never
            // ends after a space, so the byte before each step is not one (a run starts at a
            // printable byte, or at a space between a shown character and one).
            let room = fit.room.saturating_sub(fit.used()).saturating_add(1);
            let end = i + room.min(bytes.len() - i);
            let mut j = (i + 1 + usize::from(spaced)).min(bytes.len());
            while j + 8 <= end {
                let x = u64::from_le_bytes(bytes[j..j + 8].try_into().expect("eight bytes"));
                match words_step(x) {
                    0 => break,
                    step => j += step,
                }
            }
            while j < end {
                let b = bytes[j];
                if b.is_ascii_graphic() {
                    j += 1;
                } else if b == b' ' && bytes.get(j + 1).is_some_and(u8::is_ascii_graphic) {
                    j += 2;
                } else {
                    break;
                }
            }
            if !fit.ascii(at, j - i) {
                return fit.overflow(buf, &s[seg..j]);
            }
            any = true;
            i = j;
            continue;
        }
        if b == b' ' && any && !gap && s[i + 1..].chars().next().is_some_and(shown_as_is) {
            // One space between shown characters stays as it is.
            if !fit.ascii(at, 1) {
                return fit.overflow(buf, &s[seg..i + 1]);
            }
            i += 1;
            continue;
        }
        let c = s[i..].chars().next().expect("a character starts here");
        if !gap && shown_as_is(c) {
            if !fit.char(at, c, buf, &s[seg..i]) {
                return fit.overflow(buf, &s[seg..i + c.len_utf8()]);
            }
            any = true;
            i += c.len_utf8();
            continue;
        }
        // Anything else ends the run: whitespace folds, unsafe characters are escaped.
        buf.push_str(&s[seg..i]);
        i += c.len_utf8();
        seg = i;
        if c.is_whitespace() {
            gap = true;
            continue;
        }
        if gap && any && !fit.push(buf, ' ') {
            return false;
        }
        gap = false;
        any = true;
        let fits = if is_unsafe(c) {
            let mut escaped = String::new();
            push_escaped(&mut escaped, c);
            escaped.chars().all(|c| fit.push(buf, c))
        } else {
            fit.push(buf, c)
        };
        if !fits {
            return false;
        }
    }
    buf.push_str(&s[seg..]);
    fit.close() || fit.overflow(buf, "")
}

/// How far from `bytes[j]` printable ASCII goes over as it is, and the columns then used
/// (`used` before), a single space kept between two characters (not before the first shown,
/// `any` false), while it leaves room for `…` in `room`; sixteen or eight bytes at a time.
/// The byte before `bytes[j]` is not a space that was kept.
#[inline(always)]
fn plain_run(bytes: &[u8], mut j: usize, mut used: usize, room: usize, mut any: bool) -> (usize, usize) {
    loop {
        // Sixteen bytes at a time, then eight, while they leave room for `…`.
        while any || bytes.get(j) != Some(&b' ') {
            let (step, of) = if j + 16 <= bytes.len() && used + 16 < room {
                let chunk: &[u8; 16] = bytes[j..j + 16].try_into().expect("sixteen bytes");
                (words_prefix16(chunk), 16)
            } else if j + 8 <= bytes.len() && used + 8 < room {
                let x = u64::from_le_bytes(bytes[j..j + 8].try_into().expect("eight bytes"));
                (words_prefix(x), 8)
            } else {
                break;
            };
            j += step;
            used += step;
            any |= step > 0;
            if step < of {
                // A byte that is not one of ASCII words follows: taken below.
                break;
            }
        }
        let Some(&b) = bytes.get(j) else { break };
        let (w, n) = if b.is_ascii_graphic() {
            (1, 1)
        } else if b == b' ' && any && bytes.get(j + 1).is_some_and(u8::is_ascii_graphic) {
            (2, 2)
        } else {
            break;
        };
        if used + w >= room {
            break;
        }
        used += w;
        j += n;
        any = true;
    }
    (j, used)
}

/// How many of eight bytes (`x`, little-endian) from the first go over as they are in a
/// run of printable ASCII with single spaces, the byte before them not being a space: up to
/// the first byte that is not printable ASCII or a space, or a space after a space, and
/// never ending with a space (whether it stays depends on what follows it).
#[inline(always)]
fn words_prefix(x: u64) -> usize {
    const LOW: u64 = 0x7f7f_7f7f_7f7f_7f7f;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    const ONES: u64 = 0x0101_0101_0101_0101;
    // The high bit of each byte that is `b` (exact: no carry crosses a byte).
    let equal = |b: u64| {
        let y = x ^ (b * ONES);
        !(((y & LOW) + LOW) | y) & HIGH
    };
    let spaces = equal(0x20);
    // Below 0x20 (for ASCII bytes: bytes from 0x80 are marked anyway).
    let controls = !((x & LOW) + 0x60 * ONES) & HIGH;
    let bad = (x & HIGH) | controls | equal(0x7f) | (spaces & (spaces << 8));
    let mut n = if bad == 0 { 8 } else { bad.trailing_zeros() as usize / 8 };
    if n > 0 && spaces >> (8 * n - 1) & 1 == 1 {
        n -= 1;
    }
    n
}

/// [`words_prefix`] of sixteen bytes.
#[inline(always)]
fn words_prefix16(chunk: &[u8; 16]) -> usize {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::*;
        // SAFETY: SSE2 is part of x86_64; the load is of sixteen bytes of `chunk`.
        let (graphic, spaces) = unsafe {
            let v = _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>());
            // Signed: bytes from 0x80 are below 0x21.
            let graphic = _mm_andnot_si128(
                _mm_cmpeq_epi8(v, _mm_set1_epi8(0x7f)),
                _mm_cmpgt_epi8(v, _mm_set1_epi8(0x20)),
            );
            let spaces = _mm_cmpeq_epi8(v, _mm_set1_epi8(0x20));
            (_mm_movemask_epi8(graphic) as u32, _mm_movemask_epi8(spaces) as u32)
        };
        let bad = !(graphic | spaces) | (spaces & (spaces << 1));
        // At most 16: the bits from 16 on are set.
        let mut n = bad.trailing_zeros() as usize;
        if n > 0 && spaces >> (n - 1) & 1 == 1 {
            n -= 1;
        }
        n
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let x = u64::from_le_bytes(chunk[..8].try_into().expect("eight bytes"));
        match words_prefix(x) {
            8 => 8 + words_prefix(u64::from_le_bytes(chunk[8..].try_into().expect("eight bytes"))),
            n => n,
        }
    }
}

/// Whether [`one_line`] shows `c` as it is (not whitespace, nothing to escape).
fn shown_as_is(c: char) -> bool {
    !c.is_whitespace() && !is_unsafe(c)
}

/// Characters a cluster holds at most: past them a joining character starts a new one, so
/// that measuring a cluster again as it grows costs no quadratic time.
const MAX_CLUSTER: usize = 32;

/// Whether `c`, after `prev`, belongs to the cluster `prev` is in (which has `len`
/// characters): characters of no width of their own (marks, variation selectors, joiners),
/// skin-tone modifiers, and whatever follows a zero-width joiner. Widths are taken cluster by cluster, each as
/// `unicode-width` measures it, so an emoji sequence, a keycap or a letter with its accents
/// counts as the terminal draws it and a cut never falls inside one. ASCII always starts
/// a cluster.
fn joins(prev: char, c: char, len: usize) -> bool {
    !c.is_ascii()
        && len < MAX_CLUSTER
        && (prev == '\u{200d}' || c.width() == Some(0) || ('\u{1f3fb}'..='\u{1f3ff}').contains(&c))
}

/// The width of one cluster ([`joins`]).
fn cluster_width(cluster: &str) -> usize {
    if cluster.len() == 1 { 1 } else { cluster.width() }
}

/// The clusters of `s` ([`joins`]), as where each starts and its width.
fn clusters(s: &str) -> impl Iterator<Item = (usize, usize)> + '_ {
    let mut chars = s.char_indices().peekable();
    std::iter::from_fn(move || {
        let (start, first) = chars.next()?;
        let (mut prev, mut len) = (first, 1);
        while let Some(&(_, c)) = chars.peek()
            && joins(prev, c, len)
        {
            chars.next();
            (prev, len) = (c, len + 1);
        }
        let end = chars.peek().map_or(s.len(), |&(at, _)| at);
        Some((start, cluster_width(&s[start..end])))
    })
}

/// Columns taken as [`fit_into`] takes them, cluster by cluster ([`joins`]): text is cut
/// at `cut` (a position in the buffer, room left for `…`) once it turns out wider than
/// `room`. The last cluster stays open, as a character may still join it and change its
/// width; it is judged when the next one starts, or at [`Fit::close`].
struct Fit {
    room: usize,
    /// Columns of the clusters before the open one.
    done: usize,
    /// Where the open cluster starts, its width and characters so far, and its last
    /// character.
    at: usize,
    width: usize,
    len: usize,
    last: char,
    cut: Option<usize>,
}

impl Fit {
    /// Nothing laid yet, the line to start at `at`.
    fn new(room: usize, at: usize) -> Fit {
        Fit {
            room,
            done: 0,
            at,
            width: 0,
            len: 0,
            last: ' ',
            cut: None,
        }
    }

    /// Columns taken, the open cluster's included.
    #[inline(always)]
    fn used(&self) -> usize {
        self.done + self.width
    }

    /// Closes the open cluster; false when the text is then wider than the room.
    #[inline(always)]
    fn close(&mut self) -> bool {
        if self.cut.is_none() && self.done + self.width + 1 > self.room {
            self.cut = Some(self.at);
        }
        self.done += self.width;
        self.width = 0;
        self.len = 0;
        self.done <= self.room
    }

    /// `n` one-column characters (printable ASCII), the first at `at`, each a cluster;
    /// false when what was laid before them overflows.
    #[inline(always)]
    fn ascii(&mut self, at: usize, n: usize) -> bool {
        if !self.close() {
            return false;
        }
        // Character k is `done + k` columns in: the cut is at the first one that leaves no
        // room for `…`.
        if self.cut.is_none() && self.done + n + 1 > self.room {
            self.cut = Some(at + self.room.saturating_sub(self.done + 1));
        }
        self.done += n - 1;
        (self.at, self.width, self.len, self.last) = (at + n - 1, 1, 1, 'a');
        self.done <= self.room
    }

    /// A run of printable ASCII ([`plain_run`]) that left room for `…`, `used` columns
    /// taken at its end, its last character at `last`.
    #[inline(always)]
    fn run(&mut self, last: usize, used: usize) {
        self.close();
        self.done = used - 1;
        (self.at, self.width, self.len, self.last) = (last, 1, 1, 'a');
    }

    /// Character `c` at `at`, laid after `buf` and `pending`; false when what was laid
    /// before it overflows.
    fn char(&mut self, at: usize, c: char, buf: &str, pending: &str) -> bool {
        if self.len > 0 && joins(self.last, c, self.len) {
            // The open cluster measured again with `c`.
            let mut cluster = String::new();
            if self.at < buf.len() {
                cluster.push_str(&buf[self.at..]);
                cluster.push_str(pending);
            } else {
                cluster.push_str(&pending[self.at - buf.len()..]);
            }
            cluster.push(c);
            self.width = cluster_width(&cluster);
            self.len += 1;
            self.last = c;
            return true;
        }
        let fits = self.close();
        let mut one = [0u8; 4];
        (self.at, self.width, self.len, self.last) = (at, cluster_width(c.encode_utf8(&mut one)), 1, c);
        fits
    }

    /// Appends `c` to `buf`, or the cut text and `…` when it overflows (then false).
    fn push(&mut self, buf: &mut String, c: char) -> bool {
        if self.char(buf.len(), c, buf, "") {
            buf.push(c);
            true
        } else {
            self.overflow(buf, "")
        }
    }

    /// Ends the text at the cut, `pending` being the text not yet appended to `buf` (it
    /// holds the cut when the cut is past `buf`), and appends `…`; returns false.
    fn overflow(&self, buf: &mut String, pending: &str) -> bool {
        let cut = self.cut.expect("set before the text overflows");
        let end = buf.len();
        if cut > end {
            buf.push_str(&pending[..cut - end]);
        } else {
            buf.truncate(cut);
        }
        buf.push('…');
        false
    }
}

/// How many of eight bytes (`x`, little-endian) go over as they are in a run of printable
/// ASCII with single spaces, the byte before them not being a space: 8, or 7 when the last
/// is a space (whether it stays depends on the byte after it), or 0 when any byte is not
/// printable ASCII or two spaces meet.
fn words_step(x: u64) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    // Below 0x80 each byte can take the additions without a carry into the next.
    let ascii = x & HIGH == 0;
    let from_space = x.wrapping_add(0x60 * ONES) & HIGH == HIGH;
    let to_tilde = x.wrapping_add(ONES) & HIGH == 0;
    if !(ascii && from_space && to_tilde) {
        return 0;
    }
    // The high bit of each byte that is a space.
    let spaces = !((x ^ (0x20 * ONES)).wrapping_add(0x7f * ONES)) & HIGH;
    if spaces & (spaces >> 8) != 0 {
        0
    } else if spaces >> 63 == 1 {
        7
    } else {
        8
    }
}

/// Whether `s` is shown as it is, a column a byte: printable ASCII only, so that
/// [`escape_line`] keeps it and its [`display_width`] is its length.
pub fn is_plain(s: &str) -> bool {
    s.bytes().all(|b| (0x20..0x7f).contains(&b))
}

/// Display width of a string: the columns a terminal gives it, cluster by cluster
/// ([`joins`]), as `unicode-width` measures them.
pub fn display_width(s: &str) -> usize {
    if s.is_ascii() {
        return s.len();
    }
    clusters(s).map(|(_, w)| w).sum()
}

/// [`fit`], appended to `buf`.
pub fn fit_into(buf: &mut String, s: &str, width: usize) {
    // No cluster is wider in columns than in bytes.
    if s.len() <= width {
        buf.push_str(s);
        return;
    }
    // One pass: `cut` is where the text ends when it does not fit (room left for `…`);
    // the walk stops as soon as the whole is known to be too wide.
    let mut used = 0;
    let mut cut = None;
    for (at, w) in clusters(s) {
        if cut.is_none() && used + w + 1 > width {
            cut = Some(at);
        }
        used += w;
        if used > width {
            buf.push_str(&s[..cut.expect("set before the text overflows")]);
            buf.push('…');
            return;
        }
    }
    buf.push_str(s);
}

/// Cuts `s` to at most `width` columns, ending with `…` when cut.
pub fn fit(s: &str, width: usize) -> String {
    let mut out = String::new();
    fit_into(&mut out, s, width);
    out
}

pub use pi_session::human::{local_time, local_time_into};

/// The first 8 characters of an id: Pi's ids are 8 hex digits, so usually the whole id.
pub fn short_id(id: &str) -> String {
    escape_line(&id.chars().take(8).collect::<String>())
}

/// Asks `question` on the terminal (y/N). Without a terminal to ask on, fails saying
/// `what` and that --yes does it without asking.
pub fn confirm(question: &str, what: &str) -> anyhow::Result<bool> {
    use std::io::IsTerminal;
    if !std::io::stdin().is_terminal() {
        anyhow::bail!("{what}: pass --yes to do it without a terminal to ask on");
    }
    eprint!("{} [y/N] ", escape_line(question));
    let mut answer = String::new();
    std::io::stdin().read_line(&mut answer)?;
    Ok(matches!(answer.trim(), "y" | "Y" | "yes"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// [`use_color`] with the environment `vars` (`NAME=VALUE`, nothing else set).
    fn color_with(choice: ColorChoice, is_terminal: bool, vars: &[&str]) -> bool {
        use_color(choice, is_terminal, |name| {
            vars.iter()
                .filter_map(|v| v.split_once('='))
                .find(|(n, _)| *n == name)
                .map(|(_, value)| value.into())
        })
    }

    #[test]
    fn color_follows_the_flag_then_the_environment() {
        use ColorChoice::{Always, Auto, Never};
        // Terminal detection, when nothing says otherwise.
        assert!(color_with(Auto, true, &[]));
        assert!(!color_with(Auto, false, &[]));
        assert!(!color_with(Auto, true, &["TERM=dumb"]));
        // CLICOLOR=0 turns colour off on a terminal; any other CLICOLOR changes nothing.
        assert!(!color_with(Auto, true, &["CLICOLOR=0"]));
        assert!(color_with(Auto, true, &["CLICOLOR=1"]));
        assert!(!color_with(Auto, false, &["CLICOLOR=1"]));
        // Forced into a pipe; `0` (and for FORCE_COLOR `false`, as Node reads it) or empty is not forcing.
        for force in ["CLICOLOR_FORCE=1", "FORCE_COLOR=1", "FORCE_COLOR=3", "FORCE_COLOR=true"] {
            assert!(color_with(Auto, false, &[force]), "{force}");
            assert!(color_with(Auto, false, &[force, "CLICOLOR=0", "TERM=dumb"]), "{force}");
            // NO_COLOR wins over every other variable, the flag over NO_COLOR.
            assert!(!color_with(Auto, true, &[force, "NO_COLOR=1"]), "{force}");
            assert!(color_with(Always, false, &[force, "NO_COLOR=1"]), "{force}");
            assert!(!color_with(Never, true, &[force]), "{force}");
        }
        for not_forced in [
            "CLICOLOR_FORCE=0",
            "CLICOLOR_FORCE=",
            "FORCE_COLOR=0",
            "FORCE_COLOR=false",
            "FORCE_COLOR=",
        ] {
            assert!(!color_with(Auto, false, &[not_forced]), "{not_forced}");
            assert!(color_with(Auto, true, &[not_forced]), "{not_forced}");
        }
        // An empty NO_COLOR is not set.
        assert!(color_with(Auto, true, &["NO_COLOR="]));
        assert!(!color_with(Auto, true, &["NO_COLOR=0"]));
    }

    #[test]
    fn escapes_controls() {
        assert_eq!(escape_line("a\x1b[31mb\x07\r\n"), "a\\e[31mb\\x07\\r\\n");
        assert_eq!(escape_block("a\nb\x1b"), "a\nb\\e");
        assert_eq!(escape_line("\u{9b}x\u{202e}"), "\\x9bx\\u{202e}");
        // Bidi marks reorder what is around them too.
        assert_eq!(
            one_line("a\u{200e}b\u{200f}c\u{61c}d \u{200d}"),
            "a\\u{200e}b\\u{200f}c\\u{61c}d \u{200d}"
        );
        assert_eq!(one_line("  a \n\t b\x1b "), "a b\\e");
        assert_eq!(one_line("ab  cd\u{3000}é\u{85}x\u{9b}y "), "ab cd é x\\x9by");
    }

    #[test]
    fn suggestions_carry_the_session() {
        let opt = session_option("/x/my s.jsonl");
        assert_eq!(opt, "-s '/x/my s.jsonl'");
        assert_eq!(
            with_option(
                "run `pi-session repair` or `pi-session log --all`; `pi-session ls`",
                &opt
            ),
            "run `pi-session -s '/x/my s.jsonl' repair` or `pi-session -s '/x/my s.jsonl' log --all`; `pi-session ls`"
        );
        assert_eq!(with_option("see `pi-session --help`", &opt), "see `pi-session --help`");
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
        assert_eq!(shell_quote("ab12cd"), "ab12cd");
        assert_eq!(session_option("-x.jsonl"), "--session=-x.jsonl");
    }

    /// Pieces of text that [`one_line`] and the fitting treat each in their own way:
    /// ASCII words, single and repeated spaces, other whitespace, controls, wide and
    /// zero-width characters, bidi overrides, lone surrogates' stand-ins.
    fn piece() -> impl Strategy<Value = String> {
        prop_oneof![
            4 => "[a-z]{1,12}",
            3 => Just(" ".to_owned()),
            1 => "[ \t\n\r\u{b}\u{c}\u{85}\u{a0}\u{2028}\u{3000}]{1,3}",
            1 => "[\u{0}-\u{1f}\u{7f}-\u{9f}]",
            1 => "[!-~]{1,20}",
            1 => "[é日本語😀\u{301}\u{200b}\u{200e}\u{200f}\u{61c}\u{202e}\u{2067}\u{ff21}…]{1,3}",
            // Emoji sequences: joined, with presentation selectors, skin tones, keycaps.
            1 => "[0-9#✅⌚❤👨👩👧\u{200d}\u{fe0e}\u{fe0f}\u{20e3}\u{1f3fd}]{1,6}",
            1 => Just(char::from_u32(pi_session::json::jsparse::LONE_SURROGATE_BASE + 5).unwrap().to_string()),
            1 => "\\PC{1,4}",
            // Running text in other scripts, with what breaks it up (accents, no-break and
            // other spaces, zero-width characters, overrides, the last stand-ins).
            2 => "[à-ÿα-ωа-я가-힣ぁ-んァ-ン一-龥😀-🙏\u{300}-\u{36f}\u{80}-\u{a1}\u{10ff}-\u{1101}\u{2000}-\u{200f}\u{2028}-\u{2069}\u{3000}-\u{3001}\u{ffff}\u{10000}\u{10f7ff}-\u{10f801} ]{1,8}",
        ]
    }

    fn text() -> impl Strategy<Value = String> {
        prop::collection::vec(piece(), 0..30).prop_map(|v| v.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        /// Laying and fitting in one pass gives what laying then fitting gives.
        #[test]
        fn fitting_one_line_in_one_pass_equals_laying_then_fitting(
            s in text(),
            width in prop_oneof![0usize..40, 40usize..300, Just(usize::MAX)],
            before in "[a-z…]{0,3}",
        ) {
            let line = one_line(&s);
            let mut mine = before.clone();
            let fits = fit_one_line_into(&mut mine, &s, width);
            prop_assert_eq!(mine, format!("{before}{}", fit(&line, width)));
            prop_assert_eq!(fits, display_width(&line) <= width);
        }

        /// Eight bytes step over as they are exactly when a byte at a time would.
        #[test]
        fn words_step_agrees_with_bytes(chunk in prop::collection::vec(
            prop_oneof![4 => 0x21u8..0x7f, 3 => Just(b' '), 1 => 0u8..=255], 8)
        ) {
            let x = u64::from_le_bytes(chunk.clone().try_into().unwrap());
            let plain = chunk.iter().all(|b| (0x20..0x7f).contains(b));
            let doubled = chunk.windows(2).any(|w| w == b"  ");
            let expected = if !plain || doubled {
                0
            } else if chunk[7] == b' ' {
                7
            } else {
                8
            };
            prop_assert_eq!(words_step(x), expected);
        }

        /// Eight and sixteen bytes go over as they would a byte at a time.
        #[test]
        fn words_prefix_agrees_with_bytes(chunk in prop::collection::vec(
            prop_oneof![
                12 => 0x21u8..0x7f,
                6 => Just(b' '),
                1 => 0u8..=255,
                1 => prop::sample::select(vec![0x7fu8, 0x1f, 0x20, 0x21, 0x7e, 0x80, 0xa0, 0xff, 0]),
            ], 16)
        ) {
            let reference = |chunk: &[u8]| {
                let mut n = 0;
                while n < chunk.len()
                    && ((0x21..0x7f).contains(&chunk[n]) || (chunk[n] == b' ' && (n == 0 || chunk[n - 1] != b' ')))
                {
                    n += 1;
                }
                if n > 0 && chunk[n - 1] == b' ' {
                    n -= 1;
                }
                n
            };
            let x = u64::from_le_bytes(chunk[..8].try_into().unwrap());
            prop_assert_eq!(words_prefix(x), reference(&chunk[..8]), "{:?}", chunk);
            let sixteen: &[u8; 16] = chunk[..].try_into().unwrap();
            prop_assert_eq!(words_prefix16(sixteen), reference(&chunk), "{:?}", chunk);
        }

        /// Plain text is shown as it is, a column a byte.
        #[test]
        fn plain_text_needs_no_escape_and_is_as_wide_as_long(s in prop_oneof![text(), "[ -~]{0,20}".prop_map(String::from)]) {
            if is_plain(&s) {
                prop_assert_eq!(escape_line(&s), s.clone());
                prop_assert_eq!(display_width(&s), s.len());
            }
        }
    }

    /// Widths are `unicode-width`'s, taken a cluster at a time.
    #[test]
    fn widths_are_the_terminal_columns() {
        let family = "👨\u{200d}👩\u{200d}👧\u{200d}👦";
        for (text, width) in [
            ("abc", 3),
            ("✅", 2),
            ("⌚", 2),
            ("⌚\u{fe0e}", 1),
            ("❤\u{fe0f}", 2),
            ("1\u{fe0f}\u{20e3}", 2),
            (family, 2),
            ("👍\u{1f3fd}", 2),
            ("e\u{301}", 1),
            ("中文", 4),
            ("ｗ", 2),
            ("\u{200b}", 0),
            ("\u{1100}\u{1161}\u{11a8}", 2),
            ("🇫🇷", "🇫🇷".width()),
        ] {
            assert_eq!(display_width(text), width, "{text:?}");
            assert_eq!(display_width(text), text.width(), "{text:?}");
        }
        // A cut never falls inside a cluster.
        assert_eq!(fit(&format!("ab{family}cd"), 4), "ab…");
        assert_eq!(fit(&format!("ab{family}cd"), 5), format!("ab{family}…"));
        assert_eq!(fit(&format!("ab{family}cd"), 6), format!("ab{family}cd"));
        let mut one = String::new();
        assert!(!fit_one_line_into(
            &mut one,
            &format!("x {family} 1\u{fe0f}\u{20e3} y"),
            7
        ));
        assert_eq!(one, format!("x {family} …"));
    }

    /// No character or cluster is wider in columns than in bytes ([`fit_into`] counts on
    /// it).
    #[test]
    fn no_character_is_wider_than_its_bytes() {
        for c in (0..=0x10ffff).filter_map(char::from_u32) {
            assert!(c.width().unwrap_or(1) <= c.len_utf8(), "U+{:04X}", c as u32);
        }
    }

    #[test]
    fn fits_width() {
        assert_eq!(fit("hello", 10), "hello");
        assert_eq!(fit("hello world", 6), "hello…");
        assert_eq!(fit("中文中文", 5), "中文…");
    }
}
