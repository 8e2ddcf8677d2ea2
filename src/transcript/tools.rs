//! What Pi's built-in tools were asked to do, read from a tool call's arguments: the path and
//! line range of a `read`, the diff of an `edit`, the content of a `write`, the command of a
//! `bash`, the pattern of a `grep` or `find`, the directory of an `ls`. Printers show these
//! as a person reads them instead of as JSON; a call to any other tool, or one whose
//! arguments are not what the tool takes, stays JSON ([`ToolView::Other`]).
//!
//! The argument names are those of Pi 1.6.0's tools (`path`, `offset`, `limit`, `edits` of
//! `{oldText, newText}`, `content`, `command`, `timeout`, `pattern`, `glob`, `ignoreCase`,
//! `literal`, `context`), with the older `file_path` and top-level `oldText`/`newText`
//! that earlier sessions hold.

use crate::json::scan::{self, Bail, Scan, trusted};
use serde_json::{Map, Value};
use std::borrow::Cow;

/// A built-in tool call, understood. Its texts borrow from the session when read from the
/// arguments as written ([`ToolView::of_json`]).
#[derive(Debug, Clone, PartialEq)]
pub enum ToolView<'a> {
    Read {
        path: Cow<'a, str>,
        /// `:START` or `:START-END`, as Pi's export writes the range read.
        range: String,
    },
    Write {
        path: Cow<'a, str>,
        content: Cow<'a, str>,
    },
    Edit {
        path: Cow<'a, str>,
        /// A unified diff of each replacement, old text to new.
        diff: String,
        /// How many replacements the call made.
        edits: usize,
    },
    Bash {
        command: Cow<'a, str>,
        /// The timeout in seconds, as written.
        timeout: Option<String>,
    },
    Grep {
        pattern: Cow<'a, str>,
        path: Cow<'a, str>,
        /// Options as `grep` would take them (`-i`, `-F`, `-C 2`, `--glob '*.rs'`).
        flags: Vec<String>,
    },
    Find {
        pattern: Cow<'a, str>,
        path: Cow<'a, str>,
    },
    Ls {
        path: Cow<'a, str>,
    },
    /// Any other call: its arguments as they are (pretty-printed JSON).
    Other,
}

impl ToolView<'_> {
    /// The view of a call of `name` with `args` (the arguments as JSON text).
    pub fn of(name: &str, args: &str) -> ToolView<'static> {
        if !matches!(name, "read" | "write" | "edit" | "bash" | "grep" | "find" | "ls") {
            return ToolView::Other;
        }
        match serde_json::from_str::<Value>(args) {
            Ok(Value::Object(a)) => of_object(name, &a).unwrap_or(ToolView::Other),
            _ => ToolView::Other,
        }
    }

    /// One line saying what the call does: `read src/main.rs:10-59`, `$ cargo test`.
    pub fn headline(&self) -> String {
        match self {
            ToolView::Read { path, range } => format!("{path}{range}"),
            ToolView::Write { path, content } => format!("{path} ({})", count_lines(content)),
            ToolView::Edit { path, edits, .. } if *edits > 1 => format!("{path} ({edits} edits)"),
            ToolView::Edit { path, .. } => path.to_string(),
            ToolView::Bash { command, .. } => command.lines().next().unwrap_or("").to_owned(),
            ToolView::Grep { pattern, path, flags } => {
                let mut s = String::new();
                for f in flags {
                    s.push_str(f);
                    s.push(' ');
                }
                s.push_str(&format!("/{pattern}/ in {path}"));
                s
            }
            ToolView::Find { pattern, path } => format!("{pattern} in {path}"),
            ToolView::Ls { path } => path.to_string(),
            ToolView::Other => String::new(),
        }
    }
}

/// What [`ToolView::of_json`] reads of an argument.
#[derive(Debug, Default)]
enum Arg<'a> {
    #[default]
    Absent,
    Null,
    True,
    Str(Cow<'a, str>),
    /// A number written as a small integer (as printed back unchanged): its text.
    Int(&'a str),
    /// The elements of `edits`: each object's `oldText` and `newText`, `None` for others.
    Edits(Vec<Option<(Arg<'a>, Arg<'a>)>>),
    /// Any other value.
    Other,
}

impl<'a> Arg<'a> {
    fn str(&self) -> Option<&Cow<'a, str>> {
        match self {
            Arg::Str(s) => Some(s),
            _ => None,
        }
    }

    fn is_null_or_absent(&self) -> bool {
        matches!(self, Arg::Absent | Arg::Null)
    }
}

/// Reads the value at `p` of `raw` (after whitespace) as an [`Arg`]; `edits` reads an array
/// as the elements of `edits`. Declines numbers other than small integers.
fn arg_at<'a>(raw: &'a str, p: usize, edits: bool) -> Scan<(Arg<'a>, usize)> {
    let b = raw.as_bytes();
    match b.get(p) {
        Some(b'"') => {
            let (s, end) = scan::text_string(raw, p)?;
            Ok((Arg::Str(s), end))
        }
        Some(b'[') if edits => {
            let mut elements = Vec::new();
            let end = trusted::array(b, p, |_, q| {
                if b.get(q) != Some(&b'{') {
                    elements.push(None);
                    return trusted::skip(b, q);
                }
                let (mut old, mut new) = (Arg::Absent, Arg::Absent);
                let mut names = scan::KeyNames::default();
                let end = trusted::object(b, q, |key, _, v| {
                    let slot = match names.of(key) {
                        b"oldText" => &mut old,
                        b"newText" => &mut new,
                        _ => return trusted::skip(b, v),
                    };
                    let (a, end) = arg_at(raw, v, false)?;
                    *slot = a;
                    Ok(end)
                })?;
                elements.push(Some((old, new)));
                Ok(end)
            })?;
            Ok((Arg::Edits(elements), end))
        }
        Some(c) => {
            let end = trusted::skip(b, p)?;
            let arg = match c {
                b'n' => Arg::Null,
                b't' => Arg::True,
                b'-' | b'0'..=b'9' if scan::plain_integer(&b[p..end]) => Arg::Int(&raw[p..end]),
                b'-' | b'0'..=b'9' => return Err(Bail),
                _ => Arg::Other,
            };
            Ok((arg, end))
        }
        None => Err(Bail),
    }
}

impl<'a> ToolView<'a> {
    /// [`ToolView::of`] read from the arguments as written (`raw`, JSON text that
    /// `JSON.parse` accepted), borrowing their strings; `None` when this read cannot tell
    /// (numbers other than small integers, strings a Rust string cannot hold): then the
    /// view is [`ToolView::of`] their pretty-printed JSON. Agrees with it otherwise (see
    /// the tests of `super::fast_agrees`).
    pub(crate) fn of_json(name: &str, raw: &'a str) -> Option<ToolView<'a>> {
        if !matches!(name, "read" | "write" | "edit" | "bash" | "grep" | "find" | "ls") {
            return Some(ToolView::Other);
        }
        let b = raw.as_bytes();
        let p = scan::ws(b, 0);
        if b.get(p) != Some(&b'{') {
            return Some(ToolView::Other);
        }
        #[derive(Default)]
        struct Fields<'a> {
            path: Arg<'a>,
            file_path: Arg<'a>,
            offset: Arg<'a>,
            limit: Arg<'a>,
            content: Arg<'a>,
            edits: Arg<'a>,
            old_text: Arg<'a>,
            new_text: Arg<'a>,
            command: Arg<'a>,
            timeout: Arg<'a>,
            ignore_case: Arg<'a>,
            literal: Arg<'a>,
            context: Arg<'a>,
            glob: Arg<'a>,
            pattern: Arg<'a>,
        }
        let mut f = Fields::default();
        let mut names = scan::KeyNames::default();
        trusted::object(b, p, |key, _, v| {
            let slot = match names.of(key) {
                b"path" => &mut f.path,
                b"file_path" => &mut f.file_path,
                b"offset" => &mut f.offset,
                b"limit" => &mut f.limit,
                b"content" => &mut f.content,
                b"edits" => {
                    let (a, end) = arg_at(raw, v, true)?;
                    f.edits = a;
                    return Ok(end);
                }
                b"oldText" => &mut f.old_text,
                b"newText" => &mut f.new_text,
                b"command" => &mut f.command,
                b"timeout" => &mut f.timeout,
                b"ignoreCase" => &mut f.ignore_case,
                b"literal" => &mut f.literal,
                b"context" => &mut f.context,
                b"glob" => &mut f.glob,
                b"pattern" => &mut f.pattern,
                _ => return trusted::skip(b, v),
            };
            let (a, end) = arg_at(raw, v, false)?;
            *slot = a;
            Ok(end)
        })
        .ok()?;
        // From here on, as `of_object` reads the parsed value; `None` there is `Other` here.
        let view = (|| {
            let path = || f.path.str().or(f.file_path.str()).cloned();
            let dir = || match &f.path {
                Arg::Absent | Arg::Null => Some(Cow::Borrowed(".")),
                p => p.str().cloned(),
            };
            let line_number = |a: &Arg| match a {
                Arg::Int(t) => t.parse::<u64>().ok(),
                _ => None,
            };
            Some(match name {
                "read" => ToolView::Read {
                    path: path()?,
                    range: range_of(&f.offset, &f.limit, line_number)?,
                },
                "write" => ToolView::Write {
                    path: path()?,
                    content: f.content.str()?.clone(),
                },
                "edit" => {
                    let pairs: Vec<(&str, &str)> = match &f.edits {
                        Arg::Edits(edits) => edits
                            .iter()
                            .map(|e| {
                                let (old, new) = e.as_ref()?;
                                Some((&**old.str()?, &**new.str()?))
                            })
                            .collect::<Option<_>>()?,
                        Arg::Absent => vec![(&**f.old_text.str()?, f.new_text.str().map_or("", |s| &**s))],
                        _ => return None,
                    };
                    ToolView::Edit {
                        path: path()?,
                        diff: unified_diff(&pairs),
                        edits: pairs.len(),
                    }
                }
                "bash" => ToolView::Bash {
                    command: f.command.str()?.clone(),
                    timeout: match &f.timeout {
                        Arg::Absent | Arg::Null => None,
                        Arg::Int(t) => Some((*t).to_owned()),
                        _ => return None,
                    },
                },
                "grep" => {
                    let mut flags = Vec::new();
                    if matches!(f.ignore_case, Arg::True) {
                        flags.push("-i".to_owned());
                    }
                    if matches!(f.literal, Arg::True) {
                        flags.push("-F".to_owned());
                    }
                    if let Arg::Int(c) = &f.context {
                        flags.push(format!("-C {c}"));
                    }
                    if let Some(g) = f.glob.str() {
                        flags.push(format!("--glob {g}"));
                    }
                    ToolView::Grep {
                        pattern: f.pattern.str()?.clone(),
                        path: dir()?,
                        flags,
                    }
                }
                "find" => ToolView::Find {
                    pattern: f.pattern.str()?.clone(),
                    path: dir()?,
                },
                "ls" => ToolView::Ls { path: dir()? },
                _ => return None,
            })
        })();
        Some(view.unwrap_or(ToolView::Other))
    }
}

/// [`read_range`] of arguments read lean.
fn range_of(offset: &Arg, limit: &Arg, line_number: impl Fn(&Arg) -> Option<u64>) -> Option<String> {
    let read = |a: &Arg| (!a.is_null_or_absent()).then(|| line_number(a));
    range_text(read(offset), read(limit))
}

/// `N lines` (`1 line`) of a text, a last line without its newline counted.
pub fn count_lines(text: &str) -> String {
    let t = text.strip_suffix('\n').unwrap_or(text);
    let n = if t.is_empty() {
        0
    } else {
        memchr::memchr_iter(b'\n', t.as_bytes()).count() + 1
    };
    if n == 1 { "1 line".into() } else { format!("{n} lines") }
}

fn of_object(name: &str, a: &Map<String, Value>) -> Option<ToolView<'static>> {
    let s = |k: &str| a.get(k).and_then(Value::as_str);
    let path = || s("path").or(s("file_path")).map(|p| Cow::Owned(p.to_owned()));
    let dir = || {
        match a.get("path") {
            None | Some(Value::Null) => Some("."),
            Some(p) => p.as_str(),
        }
        .map(|p| Cow::Owned(p.to_owned()))
    };
    let s = |k: &str| s(k).map(|v| Cow::Owned(v.to_owned()));
    Some(match name {
        "read" => ToolView::Read {
            path: path()?,
            range: read_range(a.get("offset"), a.get("limit"))?,
        },
        "write" => ToolView::Write {
            path: path()?,
            content: s("content")?,
        },
        "edit" => {
            let pairs: Vec<(&str, &str)> = match a.get("edits") {
                Some(Value::Array(edits)) => edits
                    .iter()
                    .map(|e| Some((e.get("oldText")?.as_str()?, e.get("newText")?.as_str()?)))
                    .collect::<Option<_>>()?,
                Some(_) => return None,
                None => vec![(
                    a.get("oldText")?.as_str()?,
                    a.get("newText").and_then(Value::as_str).unwrap_or(""),
                )],
            };
            ToolView::Edit {
                path: path()?,
                diff: unified_diff(&pairs),
                edits: pairs.len(),
            }
        }
        "bash" => ToolView::Bash {
            command: s("command")?,
            timeout: match a.get("timeout") {
                None | Some(Value::Null) => None,
                Some(t @ Value::Number(_)) => Some(t.to_string()),
                Some(_) => return None,
            },
        },
        "grep" => {
            let mut flags = Vec::new();
            if a.get("ignoreCase") == Some(&Value::Bool(true)) {
                flags.push("-i".to_owned());
            }
            if a.get("literal") == Some(&Value::Bool(true)) {
                flags.push("-F".to_owned());
            }
            if let Some(c @ Value::Number(_)) = a.get("context") {
                flags.push(format!("-C {c}"));
            }
            if let Some(g) = s("glob") {
                flags.push(format!("--glob {g}"));
            }
            ToolView::Grep {
                pattern: s("pattern")?,
                path: dir()?,
                flags,
            }
        }
        "find" => ToolView::Find {
            pattern: s("pattern")?,
            path: dir()?,
        },
        "ls" => ToolView::Ls { path: dir()? },
        _ => return None,
    })
}

/// The line range of a read as Pi's export shows it: `:START` or `:START-END`, empty for a
/// whole file; `None` when `offset` or `limit` is not a line number.
fn read_range(offset: Option<&Value>, limit: Option<&Value>) -> Option<String> {
    let line_number = |v: &Value| match v {
        Value::Number(n) => n
            .as_f64()
            .filter(|x| x.fract() == 0.0 && *x >= 0.0 && *x < 1e15)
            .map(|x| x as u64),
        _ => None,
    };
    let read = |a: Option<&Value>| a.filter(|v| !v.is_null()).map(line_number);
    range_text(read(offset), read(limit))
}

/// `:START` or `:START-END` from a read's `offset` and `limit`: each `None` when absent or
/// null, `Some(None)` when not a line number (then no range can be shown).
fn range_text(offset: Option<Option<u64>>, limit: Option<Option<u64>>) -> Option<String> {
    if offset.is_none() && limit.is_none() {
        return Some(String::new());
    }
    let start = match offset {
        None => 1,
        Some(v) => v?,
    };
    match limit {
        None => Some(format!(":{start}")),
        Some(v) => {
            let count = v?;
            match (start + count).checked_sub(1) {
                Some(end) if end > 0 => Some(format!(":{start}-{end}")),
                _ => Some(format!(":{start}")),
            }
        }
    }
}

/// A unified diff (three lines of context) of each old → new replacement, one after the
/// other; the hunks' line numbers count from the start of each replaced text.
pub fn unified_diff(pairs: &[(&str, &str)]) -> String {
    let mut out = String::new();
    for (old, new) in pairs {
        let old: Vec<&str> = lines(old);
        let new: Vec<&str> = lines(new);
        push_hunks(&mut out, &old, &new, &line_ops(&old, &new));
    }
    out
}

/// The lines of a text, each without its `\n` (a last line without one counted).
fn lines(text: &str) -> Vec<&str> {
    let t = text.strip_suffix('\n').unwrap_or(text);
    if text.is_empty() {
        Vec::new()
    } else {
        t.split('\n').collect()
    }
}

/// A line kept, removed from the old text, or added from the new one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Keep,
    Remove,
    Add,
}

/// Larger middles (after the common first and last lines) than this many cells of the
/// longest-common-subsequence table are shown as removed, then added: a replacement of
/// thousands of lines costs no quadratic time or memory.
const MAX_TABLE: usize = 1 << 20;

/// The edit script from `old` to `new`: common first and last lines kept, and the lines
/// between aligned on a longest common subsequence.
fn line_ops(old: &[&str], new: &[&str]) -> Vec<Op> {
    let head = old.iter().zip(new).take_while(|(a, b)| a == b).count();
    let tail = old[head..]
        .iter()
        .rev()
        .zip(new[head..].iter().rev())
        .take_while(|(a, b)| a == b)
        .count();
    let (a, b) = (&old[head..old.len() - tail], &new[head..new.len() - tail]);
    let mut ops = vec![Op::Keep; head];
    if a.len().saturating_mul(b.len()) > MAX_TABLE {
        ops.extend(std::iter::repeat_n(Op::Remove, a.len()));
        ops.extend(std::iter::repeat_n(Op::Add, b.len()));
    } else {
        // lcs[i][j]: the longest common subsequence of a[i..] and b[j..].
        let w = b.len() + 1;
        let mut lcs = vec![0u32; (a.len() + 1) * w];
        for i in (0..a.len()).rev() {
            for j in (0..b.len()).rev() {
                lcs[i * w + j] = if a[i] == b[j] {
                    lcs[(i + 1) * w + j + 1] + 1
                } else {
                    lcs[(i + 1) * w + j].max(lcs[i * w + j + 1])
                };
            }
        }
        let (mut i, mut j) = (0, 0);
        while i < a.len() || j < b.len() {
            if i < a.len() && j < b.len() && a[i] == b[j] {
                ops.push(Op::Keep);
                i += 1;
                j += 1;
            } else if j < b.len() && (i == a.len() || lcs[i * w + j + 1] >= lcs[(i + 1) * w + j]) {
                // Removals before additions where both are as long: `-` lines come first.
                if i < a.len() && lcs[(i + 1) * w + j] == lcs[i * w + j + 1] {
                    ops.push(Op::Remove);
                    i += 1;
                } else {
                    ops.push(Op::Add);
                    j += 1;
                }
            } else {
                ops.push(Op::Remove);
                i += 1;
            }
        }
    }
    ops.extend(std::iter::repeat_n(Op::Keep, tail));
    ops
}

/// The hunks of `ops` with three lines of context, as `diff -u` writes them.
fn push_hunks(out: &mut String, old: &[&str], new: &[&str], ops: &[Op]) {
    const CONTEXT: usize = 3;
    let changed: Vec<usize> = (0..ops.len()).filter(|&k| ops[k] != Op::Keep).collect();
    let mut c = 0;
    while c < changed.len() {
        // A hunk runs from a change to the last change less than 2 × CONTEXT kept lines on.
        let first = changed[c];
        let mut last = first;
        while c + 1 < changed.len() && changed[c + 1] - last <= 2 * CONTEXT {
            c += 1;
            last = changed[c];
        }
        c += 1;
        let from = first.saturating_sub(CONTEXT);
        let to = (last + 1 + CONTEXT).min(ops.len());
        // Lines of each side before the hunk, and in it.
        let before = |side: Op| ops[..from].iter().filter(|&&o| o == Op::Keep || o == side).count();
        let within = |side: Op| ops[from..to].iter().filter(|&&o| o == Op::Keep || o == side).count();
        let range = |start: usize, len: usize| match len {
            1 => format!("{}", start + 1),
            0 => format!("{start},0"),
            _ => format!("{},{len}", start + 1),
        };
        let (o, n) = (before(Op::Remove), before(Op::Add));
        out.push_str(&format!(
            "@@ -{} +{} @@\n",
            range(o, within(Op::Remove)),
            range(n, within(Op::Add))
        ));
        let (mut i, mut j) = (o, n);
        for op in &ops[from..to] {
            let (sign, text) = match op {
                Op::Keep => {
                    i += 1;
                    j += 1;
                    (' ', old[i - 1])
                }
                Op::Remove => {
                    i += 1;
                    ('-', old[i - 1])
                }
                Op::Add => {
                    j += 1;
                    ('+', new[j - 1])
                }
            };
            out.push(sign);
            out.push_str(text);
            out.push('\n');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn view(name: &str, args: Value) -> ToolView<'static> {
        ToolView::of(name, &serde_json::to_string_pretty(&args).unwrap())
    }

    #[test]
    fn reads_show_their_range() {
        let r = |o: Value, l: Value| match view("read", serde_json::json!({"path": "a.rs", "offset": o, "limit": l})) {
            ToolView::Read { range, .. } => range,
            other => panic!("{other:?}"),
        };
        assert_eq!(r(Value::Null, Value::Null), "");
        assert_eq!(r(10.into(), Value::Null), ":10");
        assert_eq!(r(10.into(), 50.into()), ":10-59");
        assert_eq!(r(Value::Null, 20.into()), ":1-20");
        assert_eq!(
            view("read", serde_json::json!({"path": "a", "offset": "x"})),
            ToolView::Other
        );
        assert_eq!(
            view("read", serde_json::json!({"file_path": "/x/y"})).headline(),
            "/x/y"
        );
    }

    #[test]
    fn edits_become_a_diff() {
        let old = serde_json::json!({"path": "f.txt", "oldText": "a\nb\nc\n", "newText": "a\nB\nc\n"});
        let ToolView::Edit { diff, edits, .. } = view("edit", old) else {
            panic!()
        };
        assert_eq!(edits, 1);
        assert_eq!(diff, "@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n");
        let new = serde_json::json!({"path": "f", "edits": [{"oldText": "x", "newText": "y"}, {"oldText": "p", "newText": ""}]});
        let ToolView::Edit { diff, edits, .. } = view("edit", new) else {
            panic!()
        };
        assert_eq!(edits, 2);
        assert_eq!(diff, "@@ -1 +1 @@\n-x\n+y\n@@ -1 +0,0 @@\n-p\n");
        assert_eq!(
            view("edit", serde_json::json!({"path": "f", "edits": 3})),
            ToolView::Other
        );
    }

    #[test]
    fn diffs_are_as_diff_writes_them() {
        let d = |a: &str, b: &str| unified_diff(&[(a, b)]);
        assert_eq!(d("", "x\n"), "@@ -0,0 +1 @@\n+x\n");
        assert_eq!(d("same\n", "same\n"), "");
        let old: String = (1..=20).map(|k| format!("{k}\n")).collect();
        let new: String = (1..=20)
            .filter(|&k| k != 17)
            .map(|k| if k == 5 { "five\n".to_owned() } else { format!("{k}\n") })
            .collect();
        assert_eq!(
            d(&old, &new),
            "@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n@@ -14,7 +14,6 @@\n 14\n 15\n 16\n-17\n 18\n 19\n 20\n"
        );
        // Changes close together share a hunk.
        let near = old.replacen("5\n", "V\n", 1).replacen("9\n", "IX\n", 1);
        assert_eq!(d(&old, &near).matches("@@ -").count(), 1);
        // A large replacement is all removed, then all added, without a quadratic table.
        let big_old: String = (0..3000).map(|k| format!("a{k}\n")).collect();
        let big_new: String = (0..3000).map(|k| format!("b{k}\n")).collect();
        let big = d(&big_old, &big_new);
        assert!(big.starts_with("@@ -1,3000 +1,3000 @@\n-a0\n"));
        assert_eq!(big.matches("\n-").count() + 1, 3001);
    }

    proptest::proptest! {
        /// Applying the diff's kept and added lines gives the new text; its kept and removed
        /// lines give the old one (within the hunks; the rest is common to both).
        #[test]
        fn a_diff_takes_old_to_new(
            old in proptest::collection::vec(proptest::sample::select(&["a", "b", "c", ""][..]), 0..30),
            new in proptest::collection::vec(proptest::sample::select(&["a", "b", "c", ""][..]), 0..30),
        ) {
            let (o, n): (Vec<&str>, Vec<&str>) = (old.clone(), new.clone());
            let ops = line_ops(&o, &n);
            let kept_or = |side: Op, lines: &[&str]| -> Vec<String> {
                let mut k = 0;
                let mut out = Vec::new();
                for op in &ops {
                    if *op == Op::Keep || *op == side {
                        out.push(lines[k].to_owned());
                        k += 1;
                    }
                }
                out
            };
            proptest::prop_assert_eq!(kept_or(Op::Remove, &o), o.iter().map(|s| s.to_string()).collect::<Vec<_>>());
            proptest::prop_assert_eq!(kept_or(Op::Add, &n), n.iter().map(|s| s.to_string()).collect::<Vec<_>>());
            // Minimal: as many kept lines as the longest common subsequence.
            let keeps = ops.iter().filter(|&&op| op == Op::Keep).count();
            let mut lcs = vec![vec![0usize; n.len() + 1]; o.len() + 1];
            for i in (0..o.len()).rev() {
                for j in (0..n.len()).rev() {
                    lcs[i][j] = if o[i] == n[j] { lcs[i + 1][j + 1] + 1 } else { lcs[i + 1][j].max(lcs[i][j + 1]) };
                }
            }
            proptest::prop_assert_eq!(keeps, lcs[0][0]);
            let mut text = String::new();
            push_hunks(&mut text, &o, &n, &ops);
            let changes = ops.iter().filter(|&&op| op != Op::Keep).count();
            proptest::prop_assert_eq!(text.lines().filter(|l| l.starts_with('-') || l.starts_with('+')).count(), changes);
        }
    }

    #[test]
    fn other_tools_and_odd_arguments_stay_json() {
        assert_eq!(view("mcp", serde_json::json!({"path": "a"})), ToolView::Other);
        assert_eq!(view("bash", serde_json::json!({"command": 3})), ToolView::Other);
        assert_eq!(ToolView::of("bash", "not json"), ToolView::Other);
        assert_eq!(view("ls", serde_json::json!({})).headline(), ".");
        assert_eq!(
            view(
                "grep",
                serde_json::json!({"pattern": "fn main", "ignoreCase": true, "glob": "*.rs"})
            )
            .headline(),
            "-i --glob *.rs /fn main/ in ."
        );
        assert_eq!(
            view(
                "bash",
                serde_json::json!({"command": "cargo test\n  --release", "timeout": 60})
            ),
            ToolView::Bash {
                command: "cargo test\n  --release".into(),
                timeout: Some("60".into())
            }
        );
    }
}
