//! `check --junit`: the verdicts as JUnit XML, the report GitLab, Jenkins, Azure Pipelines
//! and most CI systems display: one `<testsuite>` per session, one `<testcase>` per rule, a
//! `<failure>` in each rule that failed. Written by hand: the format is five elements, and
//! the one care it needs (escaping, and leaving out the characters XML 1.0 cannot hold) is
//! below.

use super::Verdict;
use std::io::{self, Write};

/// One session's verdicts, or the error that kept it from being checked.
struct Suite<'a> {
    /// The session's path, as given or found.
    name: &'a str,
    verdicts: Result<&'a [Verdict], &'a str>,
}

/// Writes the report of the sessions `names` (their paths), whose verdicts are `results`.
pub fn write(mut w: impl Write, names: &[String], results: &[Result<Vec<Verdict>, String>]) -> io::Result<()> {
    let suites: Vec<Suite<'_>> = names
        .iter()
        .zip(results)
        .map(|(name, r)| Suite {
            name,
            verdicts: r.as_deref().map_err(String::as_str),
        })
        .collect();
    let count = |s: &Suite<'_>| match s.verdicts {
        Ok(v) => (v.len(), v.iter().filter(|v| !v.pass).count(), 0),
        Err(_) => (1, 0, 1),
    };
    let (tests, failures, errors) = suites
        .iter()
        .map(count)
        .fold((0, 0, 0), |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2));
    writeln!(w, r#"<?xml version="1.0" encoding="UTF-8"?>"#)?;
    writeln!(
        w,
        r#"<testsuites name="pi-session check" tests="{tests}" failures="{failures}" errors="{errors}">"#
    )?;
    for s in &suites {
        let (tests, failures, errors) = count(s);
        let name = escape(s.name);
        writeln!(
            w,
            r#"  <testsuite name="{name}" tests="{tests}" failures="{failures}" errors="{errors}">"#
        )?;
        match s.verdicts {
            Err(e) => {
                writeln!(w, r#"    <testcase name="read" classname="{name}">"#)?;
                writeln!(w, r#"      <error message="{}"/>"#, escape(e))?;
                writeln!(w, "    </testcase>")?;
            }
            Ok(verdicts) => {
                for v in verdicts {
                    let case = format!(r#"<testcase name="{}" classname="{name}""#, v.rule);
                    if v.pass {
                        writeln!(w, "    {case}/>")?;
                        continue;
                    }
                    writeln!(w, "    {case}>")?;
                    writeln!(
                        w,
                        r#"      <failure message="{}" type="{}">"#,
                        escape(&v.message()),
                        v.rule
                    )?;
                    for o in &v.entries {
                        let id = o.id.as_deref().unwrap_or("-");
                        writeln!(w, "{}", escape(&format!("line {} entry {id}: {}", o.line, o.note)))?;
                    }
                    writeln!(w, "      </failure>")?;
                    writeln!(w, "    </testcase>")?;
                }
            }
        }
        writeln!(w, "  </testsuite>")?;
    }
    writeln!(w, "</testsuites>")
}

/// Text for an attribute or an element: markup escaped, and characters XML 1.0 does not
/// allow (control characters other than tab and newline, lone surrogates cannot occur in a
/// `str`, U+FFFE and U+FFFF) written as `\u{…}` so that the file stays well-formed.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            '\t' | '\n' => out.push(c),
            c if c < ' ' || c == '\u{7f}' || c == '\u{fffe}' || c == '\u{ffff}' => {
                out.push_str(&format!("\\u{{{:x}}}", c as u32))
            }
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ops::check::Offender;
    use serde_json::json;

    #[test]
    fn one_suite_per_session_one_case_per_rule_a_failure_per_failed_rule() {
        let verdicts = [
            Verdict {
                rule: "max-turns",
                limit: json!(3),
                value: json!(2),
                pass: true,
                entries: vec![],
            },
            Verdict {
                rule: "forbid-tool",
                limit: json!(["bash"]),
                value: json!(1),
                pass: false,
                entries: vec![Offender {
                    id: Some("a<b".into()),
                    line: 7,
                    note: "calls bash\u{1b}[2J".into(),
                }],
            },
        ];
        let mut xml = Vec::new();
        let names = ["s&1.jsonl".to_owned(), "gone.jsonl".to_owned()];
        let results = [Ok(verdicts.to_vec()), Err("cannot read".to_owned())];
        write(&mut xml, &names, &results).unwrap();
        let xml = String::from_utf8(xml).unwrap();
        assert!(
            xml.contains(r#"<testsuites name="pi-session check" tests="3" failures="1" errors="1">"#),
            "{xml}"
        );
        assert!(xml.contains(r#"<testsuite name="s&amp;1.jsonl" tests="2" failures="1" errors="0">"#));
        assert!(xml.contains(r#"<testcase name="max-turns" classname="s&amp;1.jsonl"/>"#));
        assert!(xml.contains(r#"<failure message="1 call of a forbidden tool" type="forbid-tool">"#));
        assert!(xml.contains("line 7 entry a&lt;b: calls bash\\u{1b}[2J"));
        assert!(xml.contains(r#"<error message="cannot read"/>"#));
        assert!(!xml.contains('\u{1b}'));
    }
}
