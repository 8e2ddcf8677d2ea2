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
        // Myers' diff is minimal and takes time in proportion to the lines times the changes;
        // past the deadline it settles for a diff that is right but longer, so a replacement
        // of many thousands of unrelated lines costs no quadratic time.
        let diff = similar::TextDiff::configure()
            .algorithm(similar::Algorithm::Myers)
            .timeout(DIFF_TIMEOUT)
            .diff_lines(*old, *new);
        out.push_str(
            &diff
                .unified_diff()
                .context_radius(3)
                .missing_newline_hint(false)
                .to_string(),
        );
    }
    out
}

/// How long one replacement's diff may search for the shortest edit script.
const DIFF_TIMEOUT: std::time::Duration = std::time::Duration::from_millis(500);

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
        // A large replacement of unrelated lines: all removed, then all added.
        let big_old: String = (0..3000).map(|k| format!("a{k}\n")).collect();
        let big_new: String = (0..3000).map(|k| format!("b{k}\n")).collect();
        let big = d(&big_old, &big_new);
        assert!(big.starts_with("@@ -1,3000 +1,3000 @@\n-a0\n"), "{}", &big[..100]);
        assert_eq!(big.matches("\n-").count() + 1, 3001);
        // The last line's missing newline is a change, and the diff's lines all end in one.
        assert_eq!(d("x", "x\n"), "@@ -1 +1 @@\n-x\n+x\n");
        assert_eq!(d("a\nb", "a\nc"), "@@ -1,2 +1,2 @@\n a\n-b\n+c\n");
    }

    /// A 2,400-line file with 48 lines changed here and there shows those 48 lines removed
    /// and added, not the whole file.
    #[test]
    fn a_long_file_diff_shows_only_what_changed() {
        let old: String = (0..2400).map(|k| format!("line {k}\n")).collect();
        let new: String = (0..2400)
            .map(|k| {
                if k % 50 == 7 {
                    format!("changed {k}\n")
                } else {
                    format!("line {k}\n")
                }
            })
            .collect();
        let diff = unified_diff(&[(&old, &new)]);
        let removed = diff.lines().filter(|l| l.starts_with('-')).count();
        let added = diff.lines().filter(|l| l.starts_with('+')).count();
        assert_eq!((removed, added), (48, 48));
    }

    /// `old` with the unified diff `diff` applied.
    fn apply(old: &[&str], diff: &str) -> Vec<String> {
        let mut out = Vec::new();
        let mut next = 0; // the next old line not yet copied
        for line in diff.lines() {
            if let Some(header) = line.strip_prefix("@@ -") {
                let range = header.split(' ').next().unwrap();
                let (start, len) = range.split_once(',').unwrap_or((range, "1"));
                let start: usize = start.parse().unwrap();
                // `-0,0` and `-5,0` name the line before the hunk.
                let first = if len == "0" { start } else { start - 1 };
                out.extend(old[next..first].iter().map(|s| s.to_string()));
                next = first;
            } else if let Some(kept) = line.strip_prefix(' ') {
                assert_eq!(old[next], kept);
                out.push(kept.to_owned());
                next += 1;
            } else if let Some(removed) = line.strip_prefix('-') {
                assert_eq!(old[next], removed);
                next += 1;
            } else {
                out.push(line.strip_prefix('+').unwrap().to_owned());
            }
        }
        out.extend(old[next..].iter().map(|s| s.to_string()));
        out
    }

    proptest::proptest! {
        /// The diff takes the old text to the new one, in as few removed and added lines as
        /// the longest common subsequence allows.
        #[test]
        fn a_diff_takes_old_to_new(
            o in proptest::collection::vec(proptest::sample::select(&["a", "b", "c", ""][..]), 0..30),
            n in proptest::collection::vec(proptest::sample::select(&["a", "b", "c", ""][..]), 0..30),
        ) {
            let text = |lines: &[&str]| lines.iter().map(|l| format!("{l}\n")).collect::<String>();
            let diff = unified_diff(&[(&text(&o), &text(&n))]);
            proptest::prop_assert_eq!(apply(&o, &diff), n.iter().map(|s| s.to_string()).collect::<Vec<_>>());
            let mut lcs = vec![vec![0usize; n.len() + 1]; o.len() + 1];
            for i in (0..o.len()).rev() {
                for j in (0..n.len()).rev() {
                    lcs[i][j] = if o[i] == n[j] { lcs[i + 1][j + 1] + 1 } else { lcs[i + 1][j].max(lcs[i][j + 1]) };
                }
            }
            let changes = diff.lines().filter(|l| l.starts_with('-') || l.starts_with('+')).count();
            proptest::prop_assert_eq!(changes, o.len() + n.len() - 2 * lcs[0][0]);
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
