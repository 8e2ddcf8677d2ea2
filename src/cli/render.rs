//! Human renderings of entries shared by `log`, `show` and `context`.

use super::output::{
    Look, Output, Style, display_width, escape_block, escape_line, fit_one_line_into, local_time_into, short_id,
};
use pi_session::session::content::{Block, Content};
use pi_session::session::{EntryIdx, EntryKind, Role, Session, text};
use serde_json::Value;

/// The style of an entry kind.
pub fn kind_style(kind: &str) -> Style {
    match kind {
        "user" => Style::User,
        "assistant" => Style::Assistant,
        "toolResult" | "bashExecution" => Style::Tool,
        "compaction" | "branch_summary" | "compactionSummary" | "branchSummary" => Style::Bold,
        _ => Style::Meta,
    }
}

/// `a1b2c3d4 2026-11-02 10:00:06 user        (@) [label] preview`, fitted to the terminal:
/// on a narrow one the time is shortened (`11-02 10:00`), then left out ([`time_shown`]).
pub fn entry_line(out: &Output, session: &Session, idx: EntryIdx, current: bool, preview: bool) -> String {
    entry_line_in(&out.look(), session, idx, current, preview)
}

/// [`entry_line`], rendered with `out`'s look.
pub fn entry_line_in(out: &Look, session: &Session, idx: EntryIdx, current: bool, preview: bool) -> String {
    let mut line = String::new();
    entry_line_into(&mut line, out, session, idx, current, preview);
    line
}

/// [`entry_line_in`], appended to `buf`: a listing renders one per row, so the row is
/// written in place, and its width counted as it goes rather than from a second copy.
pub fn entry_line_into(buf: &mut String, out: &Look, session: &Session, idx: EntryIdx, current: bool, preview: bool) {
    let start = buf.len();
    let e = &session.entries[idx];
    // `{:<n}` pads to n characters; the width is counted in columns.
    // The padding is painted with the text, as `paint(&format!("{text:<n}"))` would.
    let padded = |buf: &mut String, style: Style, text: &str, n: usize| -> usize {
        // Printable ASCII (ids, kinds: nearly always) is a character and a column a byte.
        let plain = text.bytes().all(|c| c.is_ascii_graphic());
        let pad = n.saturating_sub(if plain { text.len() } else { text.chars().count() });
        let painted = out.color && !(text.is_empty() && pad == 0);
        if painted {
            buf.push_str("\x1b[");
            buf.push_str(style.code());
            buf.push('m');
        }
        buf.push_str(text);
        const SPACES: &str = "                ";
        match SPACES.get(..pad) {
            Some(spaces) => buf.push_str(spaces),
            None => buf.extend(std::iter::repeat_n(' ', pad)),
        }
        if painted {
            buf.push_str("\x1b[0m");
        }
        let cols = if plain { text.len() } else { display_width(text) };
        cols + pad + 1
    };
    let mut width = match session.id_str(idx) {
        Some(id) if id.len() <= 8 && id.bytes().all(|c| c.is_ascii_graphic()) => padded(buf, Style::Id, id, 8),
        _ => padded(buf, Style::Id, &short_id(&session.id_or_line(idx)), 8),
    };
    buf.push(' ');
    let time = match out.width {
        Some(w) => time_shown(w, marks_width(session, idx, current), preview),
        None => TimeShown::Full,
    };
    if time != TimeShown::None {
        let time_at = buf.len();
        local_time_into(buf, e.timestamp.as_deref());
        if time == TimeShown::Short && buf.len() - time_at == 19 {
            // `2026-11-02 10:00:06` → `11-02 10:00` (ASCII: digits, or question marks).
            buf.truncate(time_at + 16);
            buf.drain(time_at..time_at + 5);
        }
        if out.color {
            let time = buf.split_off(time_at);
            out.paint_into(buf, Style::Dim, &time);
            width += time.len() + 1;
        } else {
            // Digits and separators, or question marks: ASCII.
            width += buf.len() - time_at + 1;
        }
        buf.push(' ');
    }
    let kind = e.kind_name();
    width += if kind.bytes().all(|c| c.is_ascii_graphic()) {
        padded(buf, kind_style(kind), kind, 13)
    } else {
        padded(buf, kind_style(kind), &escape_line(kind), 13)
    };
    buf.push(' ');
    width += marks_into(buf, out, session, idx, current);
    if preview {
        let room = match out.width {
            Some(w) => w.saturating_sub(width),
            None => PIPED_PREVIEW_COLUMNS,
        };
        if room > 0 {
            fit_preview_into(buf, session, idx, room);
        }
    }
    let kept = buf[start..].trim_end().len();
    buf.truncate(start + kept);
}

/// How an entry line shows the time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum TimeShown {
    Full,
    Short,
    None,
}

/// The fewest columns a preview should get before the time gives up room to it.
const PREVIEW_MIN: usize = 20;

/// The time as wide as `width` columns allow: the id (8) and kind (13) columns and the
/// marks (`marks` columns) stay; the time is shortened, then left out, while the preview
/// would get fewer than [`PREVIEW_MIN`] columns.
fn time_shown(width: usize, marks: usize, preview: bool) -> TimeShown {
    let fixed = 9 + 14 + marks + if preview { PREVIEW_MIN } else { 0 };
    if width >= fixed + 20 {
        TimeShown::Full
    } else if width >= fixed + 12 {
        TimeShown::Short
    } else {
        TimeShown::None
    }
}

/// The columns [`marks_into`] takes.
fn marks_width(session: &Session, idx: EntryIdx, current: bool) -> usize {
    let label = session.label_of(idx).map_or(0, |l| display_width(&escape_line(l)) + 3);
    if current { label + 4 } else { label }
}

/// `(@) ` when the entry is `@`, `[label] ` when it has one; the columns they take.
pub fn marks_into(buf: &mut String, out: &Look, session: &Session, idx: EntryIdx, current: bool) -> usize {
    let mut width = 0;
    if current {
        out.paint_into(buf, Style::Current, "(@)");
        buf.push(' ');
        width += 4;
    }
    if let Some(label) = session.label_of(idx) {
        let l = format!("[{}]", escape_line(label));
        out.paint_into(buf, Style::Label, &l);
        buf.push(' ');
        width += display_width(&l) + 1;
    }
    width
}

/// How wide a preview is when the output is not a terminal (a pipe, a file): wide enough
/// for scripts and `grep` to see what the entry is about, without copying whole texts.
pub const PIPED_PREVIEW_COLUMNS: usize = 200;

/// How many rows ahead of the one being rendered a row's line is asked for
/// ([`pi_session::session::Session::prefetch_preview`]): a row's preview takes about as long
/// as a line takes to come from memory.
pub const PREFETCH_ROWS_AHEAD: usize = 4;

/// The entry's preview laid on one line ([`super::output::one_line`]) and fitted to `room` columns,
/// appended to `buf`. Only as much of the entry's text is read as the room can show.
pub fn fit_preview_into(buf: &mut String, session: &Session, idx: EntryIdx, room: usize) {
    // A few characters over the room: whitespace runs that fold into one space, or
    // characters of no width, can make a start of the preview narrower than it is long.
    const SLACK: usize = 16;
    if room >= 1 << 30 {
        fit_one_line_into(buf, &text::preview(session, idx), room);
        return;
    }
    // The start decides the fit only when it already overflows the room; when it does not
    // (whitespace folded away), a start twice as long is read. The start is laid on one
    // line and fitted in one pass ([`fit_one_line_into`]).
    let mut budget = room + SLACK;
    loop {
        let start = text::preview_start(session, idx, budget);
        let at = buf.len();
        if !fit_one_line_into(buf, &start.text, room) || !start.cut {
            return;
        }
        buf.truncate(at);
        budget = budget.saturating_mul(2);
    }
}

/// Rows rendered on every core and written in order: `render(i, buf)` appends row `i`'s
/// line (without its newline) to `buf`. Rows go in rounds of at most `ROUND` rows, so only
/// one round of rendered text is held at a time.
pub fn write_rows(
    out: &mut Output,
    rows: std::ops::Range<usize>,
    render: impl Fn(usize, &mut String) + Sync,
) -> std::io::Result<()> {
    write_rows_in(out, rows, &mut Vec::new(), render)
}

/// [`write_rows`] with the buffers rows are rendered into kept in `bufs`, for a caller that
/// writes rows a range at a time: a round's buffers are not allocated (and their pages not
/// faulted in) again for each range.
///
/// A round is rendered in chunks that this thread and the helpers take as they come free, so
/// a thread that gets less of the machine (other processes, a slow row) leaves its share to
/// the others instead of holding the round up.
pub fn write_rows_in(
    out: &mut Output,
    rows: std::ops::Range<usize>,
    bufs: &mut Vec<std::sync::Mutex<String>>,
    render: impl Fn(usize, &mut String) + Sync,
) -> std::io::Result<()> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    // Few rounds: each is a point where every thread waits for the slowest.
    const ROUND: usize = 4096;
    const CHUNK: usize = 64;
    const ALONE: usize = 256;
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut start = rows.start;
    while start < rows.end {
        let end = rows.end.min(start + ROUND);
        let chunks = (end - start).div_ceil(CHUNK);
        if bufs.len() < chunks {
            bufs.resize_with(chunks, Default::default);
        }
        let round = &bufs[..chunks];
        let next = AtomicUsize::new(0);
        let work = || {
            loop {
                let c = next.fetch_add(1, Ordering::Relaxed);
                if c >= chunks {
                    break;
                }
                let from = start + c * CHUNK;
                // The chunk is rendered into a buffer of this thread's own, not in place:
                // the slots of neighbouring chunks share cache lines, and every character
                // written updates a string's length.
                let mut buf = std::mem::take(&mut *round[c].lock().expect("no render thread panicked"));
                buf.clear();
                // Room for a chunk of rows of a wide terminal's width, so that a buffer is
                // not grown (and copied) a few times over in the first round.
                buf.reserve(CHUNK * 256);
                for i in from..end.min(from + CHUNK) {
                    if i > from {
                        buf.push('\n');
                    }
                    render(i, &mut buf);
                }
                *round[c].lock().expect("no render thread panicked") = buf;
            }
        };
        let helpers = if threads == 1 || end - start <= ALONE {
            0
        } else {
            threads - 1
        };
        std::thread::scope(|s| {
            for _ in 0..helpers {
                s.spawn(work);
            }
            work();
        });
        for buf in round {
            out.raw_line(buf.lock().expect("no render thread panicked").as_bytes())?;
        }
        start = end;
    }
    Ok(())
}

/// Cuts text at `max` characters with a note of what was left out.
pub fn cut(s: &str, max: Option<usize>) -> String {
    match max {
        Some(max) if s.chars().count() > max => {
            let kept: String = s.chars().take(max).collect();
            let rest = s.chars().count() - max;
            format!("{kept}\n… ({rest} more characters)")
        }
        _ => s.to_owned(),
    }
}

fn indent(s: &str, by: &str) -> String {
    s.lines().map(|l| format!("{by}{l}")).collect::<Vec<_>>().join("\n")
}

/// The full body of a message value (a stored message or a context message), as lines.
pub fn message_body(out: &Output, m: &Value, max_chars: Option<usize>) -> Vec<String> {
    let mut lines = Vec::new();
    let role = m.get("role").and_then(Value::as_str).unwrap_or("");
    let push_text = |lines: &mut Vec<String>, s: &str, max: Option<usize>| {
        if !s.is_empty() {
            lines.push(escape_block(&cut(s, max)));
        }
    };
    match role {
        "bashExecution" => {
            let cmd = m.get("command").and_then(Value::as_str).unwrap_or("");
            lines.push(out.paint(Style::Tool, &format!("$ {}", escape_line(cmd))));
            push_text(
                &mut lines,
                m.get("output").and_then(Value::as_str).unwrap_or(""),
                max_chars,
            );
            if let Some(code) = m.get("exitCode").filter(|c| !c.is_null()) {
                lines.push(out.paint(Style::Meta, &format!("(exit code {code})")));
            }
        }
        "compactionSummary" | "branchSummary" => {
            push_text(
                &mut lines,
                m.get("summary").and_then(Value::as_str).unwrap_or(""),
                max_chars,
            );
        }
        "system" => {
            push_text(
                &mut lines,
                m.get("content").and_then(Value::as_str).unwrap_or(""),
                max_chars,
            );
            if let Some(sections) = m.get("sections").and_then(Value::as_object) {
                for (name, v) in sections {
                    match v.as_str() {
                        Some(s) => {
                            lines.push(out.paint(Style::Meta, &format!("[section {}]", escape_line(name))));
                            push_text(&mut lines, s, max_chars);
                        }
                        None => lines.push(out.paint(Style::Meta, &format!("[section {} removed]", escape_line(name)))),
                    }
                }
            }
            for (key, what) in [("toolsAdded", "tools added"), ("toolsRemoved", "tools removed")] {
                if let Some(tools) = m.get(key).and_then(Value::as_array).filter(|t| !t.is_empty()) {
                    let names: Vec<String> = tools
                        .iter()
                        .filter_map(|t| t.get("name").and_then(Value::as_str))
                        .map(escape_line)
                        .collect();
                    lines.push(out.paint(Style::Meta, &format!("[{what}: {}]", names.join(", "))));
                }
            }
        }
        _ => {
            let max = if role == "toolResult" { max_chars } else { None };
            for block in Content::of_value(m.get("content")).blocks().unwrap_or_default() {
                match block {
                    Block::Text { text } => push_text(&mut lines, text.as_deref().unwrap_or(""), max),
                    Block::Thinking { thinking } => {
                        let t = thinking.as_deref().unwrap_or("");
                        if !t.is_empty() {
                            lines.push(out.paint(Style::Dim, &indent(&escape_block(t), "│ ")));
                        }
                    }
                    Block::ToolCall { id, name, arguments } => {
                        let (name, id) = (name.as_deref().unwrap_or("?"), id.as_deref().unwrap_or(""));
                        lines.push(out.paint(Style::Tool, &format!("→ {} ({})", escape_line(name), escape_line(id))));
                        let arguments = arguments.and_then(|a| a.to_value().ok());
                        let pretty = serde_json::to_string_pretty(arguments.as_deref().unwrap_or(&Value::Null))
                            .unwrap_or_default();
                        lines.push(indent(&escape_block(&pretty), "  "));
                    }
                    Block::Image { mime_type, .. } => {
                        let mime = mime_type.as_deref().unwrap_or("image");
                        lines.push(out.paint(Style::Meta, &format!("[image {}]", escape_line(mime))));
                    }
                    Block::Other { kind } => {
                        lines.push(out.paint(
                            Style::Meta,
                            &format!("[{} block]", escape_line(kind.as_deref().unwrap_or("untyped"))),
                        ));
                    }
                }
            }
        }
    }
    lines
}

/// The full body of an entry, as lines (no header).
pub fn entry_body(out: &Output, session: &Session, idx: EntryIdx, max_chars: Option<usize>) -> Vec<String> {
    let e = &session.entries[idx];
    let v = session.value(idx);
    match &e.kind {
        EntryKind::Message => {
            let m = v.get("message").cloned().unwrap_or(Value::Null);
            let mut lines = Vec::new();
            if e.is_role(&Role::ToolResult) {
                let name = m.get("toolName").and_then(Value::as_str).unwrap_or("tool");
                let id = m.get("toolCallId").and_then(Value::as_str).unwrap_or("");
                let err = if m.get("isError").and_then(Value::as_bool) == Some(true) {
                    ", error"
                } else {
                    ""
                };
                lines.push(out.paint(
                    Style::Tool,
                    &format!("← {} ({}{err})", escape_line(name), escape_line(id)),
                ));
            }
            lines.extend(message_body(out, &m, max_chars));
            lines
        }
        EntryKind::Compaction | EntryKind::BranchSummary => {
            let s = v.get("summary").and_then(Value::as_str).unwrap_or("");
            vec![escape_block(&cut(s, max_chars))]
        }
        EntryKind::CustomMessage => {
            let fake =
                serde_json::json!({"role": "custom", "content": v.get("content").cloned().unwrap_or(Value::Null)});
            message_body(out, &fake, max_chars)
        }
        _ => {
            // Bookkeeping entries: their own fields, pretty-printed.
            let mut rest = v.as_object().cloned().unwrap_or_default();
            for k in ["type", "id", "parentId", "timestamp"] {
                rest.shift_remove(k);
            }
            if rest.is_empty() {
                return Vec::new();
            }
            let pretty = serde_json::to_string_pretty(&Value::Object(rest)).unwrap_or_default();
            vec![out.paint(Style::Meta, &escape_block(&pretty))]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cli::output::{fit, one_line};

    #[test]
    fn previews_fitted_from_their_start_equal_the_whole_fitted() {
        let header = r#"{"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"}"#;
        let texts = [
            "short".to_owned(),
            "word ".repeat(200),
            format!("a{}b{}c", " ".repeat(300), "\\t".repeat(300)),
            format!("x{}y", "\\u0301".repeat(400)),
            "日本語".repeat(100),
            "\\u001b[31m".repeat(60),
            format!("{}z", "\\n".repeat(500)),
            format!("{}\\nsecond line", "q".repeat(50)),
            "naïve größe テスト emoji😀 back\\\\slash ".repeat(20),
            format!("{}x \\u202e y", " \\t ".repeat(100)),
        ];
        let mut text = format!("{header}\n");
        for (i, t) in texts.iter().enumerate() {
            text.push_str(&format!(
                r#"{{"type":"message","id":"e{i}","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z","message":{{"role":"assistant","content":[{{"type":"text","text":"{t}"}},{{"type":"toolCall","name":"write","arguments":{{"content":"{t}"}}}}]}}}}"#
            ));
            text.push('\n');
        }
        let session = Session::from_bytes("t.jsonl".into(), text.into_bytes()).unwrap();
        for idx in 0..session.entries.len() {
            let whole = one_line(&text::preview(&session, idx));
            for room in [8, 10, 31, 80, 200, 1000, usize::MAX - 5] {
                let mut mine = String::new();
                fit_preview_into(&mut mine, &session, idx, room);
                assert_eq!(mine, fit(&whole, room), "entry {idx}, room {room}");
            }
        }
    }
}
