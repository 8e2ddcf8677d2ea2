//! How `grep` prints one session's matching lines for people, as ripgrep prints a file's:
//! `ENTRY-ID:ROLE: line` (context lines with `-`), `--` between groups that are not adjacent,
//! the path above them (a heading) or at the start of each line.

use super::output::{Output, Style, escape_line};
use super::render::kind_style;
use pi_session::search::Hit;

/// Prints `hits` of the session at `path`.
pub fn print_hits(
    out: &mut Output,
    hits: &[Hit],
    path: &str,
    show_path: bool,
    heading: bool,
    with_context: bool,
) -> std::io::Result<()> {
    let painted_path = out.paint(Style::Meta, &escape_line(path));
    if heading {
        out.line(&painted_path)?;
    }
    let mut previous: Option<&Hit> = None;
    for hit in hits {
        if with_context && previous.is_some_and(|p| !p.is_followed_by(hit)) {
            out.line("--")?;
        }
        previous = Some(hit);
        let sep = if hit.context { '-' } else { ':' };
        let mut row = String::new();
        if show_path && !heading {
            row.push_str(&painted_path);
            row.push(sep);
        }
        row.push_str(&format!(
            "{}{sep}{}{sep} {}",
            out.paint(Style::Id, &escape_line(&hit.id)),
            out.paint(kind_style(&hit.role), &escape_line(&hit.role)),
            highlighted(out, hit)
        ));
        out.line(&row)?;
    }
    Ok(())
}

/// The line with its matches painted; every piece escaped.
fn highlighted(out: &Output, hit: &Hit) -> String {
    let mut s = String::new();
    let mut pos = 0;
    for &(start, end) in &hit.matches {
        if start < pos || start == end {
            continue;
        }
        s.push_str(&escape_line(&hit.text[pos..start]));
        s.push_str(&out.paint(Style::Warn, &escape_line(&hit.text[start..end])));
        pos = end;
    }
    s.push_str(&escape_line(&hit.text[pos..]));
    s
}
