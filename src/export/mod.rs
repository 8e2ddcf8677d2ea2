//! `export`: a branch, or the whole tree, written as a readable transcript, Markdown or one
//! self-contained HTML page, to a writer the caller hands in (a file, stdout, a buffer).
//!
//! The sections come from [`crate::transcript`]; this module lays them out: [`md`] and
//! [`html`] each write a head, the entries piece by piece, and a foot, with the escaping of
//! [`escape`], Markdown rendered by [`markdown`] and code coloured by [`highlight`]. Pieces
//! are rendered on every core and written in order, so a large session streams out with
//! bounded memory. Like the rest of the library it prints nothing of its own: the caller
//! decides where the bytes go and what to say about a parent cycle.

use crate::session::{EntryIdx, Session, SessionError};
use crate::transcript::outline::{self, Chain};
use crate::transcript::{self, Head, Pairing, Section};
use crate::usage::{Scope, Stats, session_stats};
use std::io::Write;
use std::ops::Range;

mod escape;
pub mod highlight;
mod html;
mod markdown;
mod md;

/// What an export writes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Format {
    /// Markdown: a heading per entry, each message's own Markdown nested under it.
    #[default]
    Md,
    /// One HTML page with its CSS inline, no script, nothing loaded.
    Html,
}

/// How to export.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub format: Format,
    /// The revision whose branch is exported; `None` is `@`.
    pub rev: Option<String>,
    /// The whole tree: the branch of `rev` first, then every other branch from the entry it
    /// leaves, each entry once, with an outline of them all.
    pub all_branches: bool,
}

/// An export planned: the branch (or branches) chosen and paired, ready to be written.
pub struct Export<'s> {
    doc: Doc<'s>,
    format: Format,
}

impl<'s> Export<'s> {
    /// Plans the export of `session` as `options` say; fails when the revision does not
    /// resolve. Nothing is read beyond the index yet.
    pub fn new(session: &'s Session, options: &Options) -> Result<Export<'s>, SessionError> {
        let plan = transcript::plan(
            session,
            &transcript::Options {
                rev: options.rev.clone(),
            },
        )?;
        Ok(Export {
            doc: Doc::new(session, plan.head, plan.path, plan.pairing, options.all_branches),
            format: options.format,
        })
    }

    /// The entry where the branch's walk to its root met a parent cycle and stopped, if it
    /// did (Pi hangs on such a file: worth a warning).
    pub fn cycle_at(&self) -> Option<EntryIdx> {
        self.doc.head.cycle_at
    }

    /// Writes the export to `out`. The session's totals, shown in the head, are counted on
    /// the side while the first pieces are rendered.
    pub fn write(&self, out: &mut impl Write) -> std::io::Result<()> {
        let session = self.doc.session;
        std::thread::scope(|scope| {
            let stats = scope.spawn(|| session_stats(session, Scope::File).0);
            let stats = || stats.join().expect("counting the totals panicked");
            render(&self.doc, self.format, CHUNK_BYTES, stats, |b| out.write_all(b))
        })
    }
}

/// What an export shows: the head, the totals, and the chains of entries (one for a branch,
/// every branch of the tree with `--all-branches`).
struct Doc<'s> {
    session: &'s Session,
    head: Head,
    /// The last entry's time, as stored.
    last_time: Option<&'s str>,
    chains: Vec<Chain>,
    pairings: Vec<Pairing>,
    /// By entry: the chains that branch off it (`--all-branches` only).
    forks: rustc_hash::FxHashMap<EntryIdx, Vec<usize>>,
    depths: Vec<usize>,
    all_branches: bool,
}

impl<'s> Doc<'s> {
    /// The document of the branch `path`, whose results pair with its calls as `pairing`
    /// says (the plan's pairing: with `--all-branches`, each chain is paired anew).
    fn new(session: &'s Session, head: Head, path: Vec<EntryIdx>, pairing: Pairing, all_branches: bool) -> Doc<'s> {
        let (chains, forks, pairings) = if all_branches {
            let o = outline::outline(session, path.last().copied());
            let pairings = o.chains.iter().map(|c| Pairing::of(session, &c.path)).collect();
            (o.chains, o.forks, pairings)
        } else {
            let chain = Chain {
                path,
                fork: None,
                current: true,
            };
            (vec![chain], Default::default(), vec![pairing])
        };
        let depths = outline::depths(&chains);
        let last_time = session.entries.iter().rev().find_map(|e| e.timestamp.as_deref());
        Doc {
            session,
            head,
            last_time,
            chains,
            pairings,
            forks,
            depths,
            all_branches,
        }
    }

    /// The branches that leave entry `idx`.
    fn forks_at(&self, idx: EntryIdx) -> &[usize] {
        self.forks.get(&idx).map_or(&[], Vec::as_slice)
    }

    /// The section of the entry at `pos` of chain `k`, and the result sections answering its
    /// calls; `None` for an entry without a section, or a result shown under its call.
    fn section_at(&self, k: usize, pos: usize) -> Option<(Section<'s>, Vec<Section<'s>>)> {
        let pairing = &self.pairings[k];
        if pairing.is_attached(pos) {
            return None;
        }
        let path = &self.chains[k].path;
        let s = transcript::section(self.session, path[pos])?;
        let results = pairing
            .results_of(pos)
            .iter()
            .filter_map(|&r| transcript::section(self.session, path[r]))
            .collect();
        Some((s, results))
    }
}

/// The result among `results` that answers call `id`, taken out of the list.
fn take_result<'s>(results: &mut Vec<Section<'s>>, id: &str) -> Option<Section<'s>> {
    let at = results.iter().position(|r| {
        r.parts
            .iter()
            .any(|p| matches!(p, transcript::Part::ToolResult { id: rid, .. } if rid == id))
    })?;
    Some(results.remove(at))
}

/// A piece of the export: entries `range` of chain `chain`.
struct Unit {
    chain: usize,
    range: Range<usize>,
}

/// Writes the export of `doc` in `format` to `write`, piece by piece: each chain is rendered
/// `chunk_bytes` of session lines at a time on every core, and written in order. The head
/// shows the session's totals: `stats` is called for them only when the head is written,
/// after the first pieces are under way (it may be waiting for totals counted on the side).
fn render(
    doc: &Doc<'_>,
    format: Format,
    chunk_bytes: usize,
    stats: impl FnOnce() -> Stats,
    mut write: impl FnMut(&[u8]) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let mut stats = Some(stats);
    // Writes the head first of all.
    let mut put = |text: &[u8]| {
        if let Some(stats) = stats.take() {
            let mut head = String::new();
            match format {
                Format::Md => md::head(doc, &stats(), &mut head),
                Format::Html => html::head(doc, &stats(), &mut head),
            }
            write(head.as_bytes())?;
        }
        write(text)
    };
    let units: Vec<Unit> = doc
        .chains
        .iter()
        .enumerate()
        .flat_map(|(k, c)| {
            transcript::chunks(doc.session, &c.path, chunk_bytes)
                .into_iter()
                .map(move |range| Unit { chain: k, range })
        })
        .collect();
    transcript::render_in_order(
        units.len(),
        |u, out| {
            let Unit { chain, range } = &units[u];
            let path = &doc.chains[*chain].path;
            // Room for the piece up front: grown by doubling, a piece of megabytes is
            // copied over and over (a buffer reused from an earlier piece has the room).
            let input: usize = path[range.clone()]
                .iter()
                .map(|&i| {
                    let e = &doc.session.entries[i];
                    (e.end - e.start) as usize
                })
                .sum();
            out.reserve(match format {
                Format::Md => input,
                Format::Html => input + input / 2,
            });
            match format {
                Format::Md => md::unit(doc, *chain, range.clone(), out),
                Format::Html => html::unit(doc, *chain, range.clone(), out),
            }
            // A large file's lines need not stay in memory once rendered.
            let piece = &path[range.clone()];
            if let (Some(&first), Some(&last)) = (piece.iter().min(), piece.iter().max()) {
                doc.session.release_entries(first..last + 1);
            }
        },
        |text| put(text.as_bytes()),
    )?;
    let mut foot = String::new();
    match format {
        Format::Md => {}
        Format::Html => html::foot(doc, &mut foot),
    }
    put(foot.as_bytes())
}

/// Session lines rendered per piece of the transcript. Small enough that the pieces in flight
/// (two per core, and their buffers kept for reuse) hold a few megabytes, not tens: on the
/// benchmark machines memory touched for the first time costs more than rendering it.
const CHUNK_BYTES: usize = 512 << 10;

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn session_of(lines: &[serde_json::Value]) -> Session {
        let mut data = String::from(
            r#"{"type":"session","version":3,"id":"s1","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/w"}"#,
        );
        data.push('\n');
        for l in lines {
            data.push_str(&l.to_string());
            data.push('\n');
        }
        Session::from_bytes(PathBuf::from("/t.jsonl"), data.into_bytes()).unwrap()
    }

    /// A branch of every kind of section, with text that needs escaping.
    fn mixed_session() -> Session {
        use serde_json::json;
        let mut lines = Vec::new();
        let mut parent = serde_json::Value::Null;
        let mut push = |mut v: serde_json::Value, id: String| {
            v["id"] = json!(id);
            v["parentId"] = parent.clone();
            v["timestamp"] = json!("2026-01-01T00:00:01.000Z");
            parent = json!(id);
            lines.push(v);
        };
        for k in 0..12 {
            let msg = |m: serde_json::Value| json!({"type": "message", "message": m});
            push(
                msg(json!({"role": "user", "content": format!("ask {k} <b>&\u{1b}\r\n`x`")})),
                format!("u{k}"),
            );
            push(
                msg(
                    json!({"role": "assistant", "provider": "p", "model": "m", "stopReason": "toolUse",
                    "content": [{"type": "thinking", "thinking": "hmm\nmore\r\n"},
                                {"type": "text", "text": "ok ```"},
                                {"type": "toolCall", "id": "c", "name": "bash", "arguments": {"cmd": "ls\u{202e}"}},
                                {"type": "image", "mimeType": "image/png", "data": "AAAA\nBB=="}]}),
                ),
                format!("a{k}"),
            );
            push(
                msg(
                    json!({"role": "toolResult", "toolCallId": "c", "toolName": "bash", "isError": k % 2 == 0,
                    "content": [{"type": "text", "text": "out\n\n"}, {"type": "image", "mimeType": "image/svg", "data": "x"}]}),
                ),
                format!("t{k}"),
            );
            push(
                msg(json!({"role": "bashExecution", "command": "make\nall", "output": "done\u{85}", "exitCode": k})),
                format!("b{k}"),
            );
            push(
                json!({"type": "model_change", "provider": "p", "modelId": format!("m{k}")}),
                format!("m{k}"),
            );
            push(
                json!({"type": "label", "targetId": "u0", "label": "x"}),
                format!("l{k}"),
            );
            push(
                json!({"type": "compaction", "summary": "so far\n", "tokensBefore": 12345, "firstKeptEntryId": "u0"}),
                format!("c{k}"),
            );
            push(
                msg(
                    json!({"role": "assistant", "provider": "p", "model": "m", "stopReason": "error",
                    "errorMessage": "boom", "content": []}),
                ),
                format!("e{k}"),
            );
        }
        session_of(&lines)
    }

    fn stats_of(session: &Session) -> Stats {
        session_stats(session, Scope::File).0
    }

    fn doc(session: &Session, all_branches: bool) -> Doc<'_> {
        let plan = transcript::plan(session, &transcript::Options::default()).unwrap();
        Doc::new(session, plan.head, plan.path, plan.pairing, all_branches)
    }

    fn rendered_with(session: &Session, format: Format, chunk_bytes: usize, all_branches: bool) -> String {
        let doc = doc(session, all_branches);
        let mut out = Vec::new();
        render(
            &doc,
            format,
            chunk_bytes,
            || stats_of(session),
            |b| {
                out.extend_from_slice(b);
                Ok(())
            },
        )
        .unwrap();
        String::from_utf8(out).unwrap()
    }

    fn rendered(session: &Session, format: Format, chunk_bytes: usize) -> String {
        rendered_with(session, format, chunk_bytes, false)
    }

    /// The export as one string, entry after entry: what `render` must write whatever the
    /// pieces.
    fn whole(session: &Session, format: Format) -> String {
        let doc = doc(session, false);
        let mut out = String::new();
        match format {
            Format::Md => md::head(&doc, &stats_of(session), &mut out),
            Format::Html => html::head(&doc, &stats_of(session), &mut out),
        }
        for pos in 0..doc.chains[0].path.len() {
            match format {
                Format::Md => md::unit(&doc, 0, pos..pos + 1, &mut out),
                Format::Html => html::unit(&doc, 0, pos..pos + 1, &mut out),
            }
        }
        if format == Format::Html {
            html::foot(&doc, &mut out);
        }
        out
    }

    #[test]
    fn a_branch_in_many_pieces_renders_as_in_one() {
        let s = mixed_session();
        for format in [Format::Md, Format::Html] {
            let one = rendered(&s, format, usize::MAX);
            assert_eq!(one, whole(&s, format));
            assert!(one.ends_with(if format == Format::Md { "_\n" } else { "</html>\n" }));
            for chunk in [1, 100, 700, 5000] {
                let path = transcript::plan(&s, &transcript::Options::default()).unwrap().path;
                assert!(chunk > 1000 || transcript::chunks(&s, &path, chunk).len() > 10);
                assert_eq!(
                    rendered(&s, format, chunk),
                    one,
                    "{format:?} in pieces of {chunk} bytes"
                );
            }
        }
        let md = rendered(&s, Format::Md, 1);
        assert!(md.starts_with("# ask 0 <b>&\\e\n\n- Session: `s1`\n"), "{md}");
        // Each result is under its call, not a section of its own.
        assert_eq!(md.matches("\n---\n\n").count(), 12 * 6);
        assert!(md.contains("> **Thinking**\n>\n> hmm\n> more\n\n"));
        assert!(md.contains("```console\n$ make\nall\ndone\\x85\n```\n\n_exit code 3_\n"));
        let html = rendered(&s, Format::Html, 1);
        assert!(html.contains("<img alt=\"image\" src=\"data:image/png;base64,AAAABB==\">\n"));
        assert!(html.contains("<p class=\"note\">[image image/svg]</p>\n"));
        // The result (an error on even turns) under its call, which is not a built-in's.
        assert!(html.contains("<div class=\"tool error\" id=\"call-c\"><div class=\"tool-head\"><span class=\"tool-name\">bash</span></div>\n<pre class=\"args\">"), "{html}");
        assert!(!html.contains("id=\"e-t0\""));
        // The label of u0 shows on its entry.
        assert!(html.contains("<span class=\"who\">User</span><span class=\"label\">x</span>"));
    }

    #[test]
    fn an_empty_branch_is_the_head_alone() {
        let s = session_of(&[]);
        assert_eq!(rendered(&s, Format::Md, 1), whole(&s, Format::Md));
        let md = rendered(&s, Format::Md, 1);
        assert!(md.starts_with("# Pi session s1\n\n") && !md.contains("---"), "{md}");
        assert!(md.ends_with(&format!("- Exported by: pi-session {}\n", env!("CARGO_PKG_VERSION"))));
        assert!(rendered(&s, Format::Html, 1).ends_with("<main>\n</main>\n</body>\n</html>\n"));
    }

    #[test]
    fn every_branch_once_with_all_branches() {
        use serde_json::json;
        let msg = |id: &str, parent: Option<&str>, text: &str| {
            json!({"type": "message", "id": id, "parentId": parent, "timestamp": "2026-01-01T00:00:01.000Z",
                   "message": {"role": "user", "content": text}})
        };
        let s = session_of(&[
            msg("a", None, "root text"),
            msg("b", Some("a"), "first try"),
            msg("c", Some("a"), "second try"),
            msg("d", Some("c"), "on the second"),
        ]);
        for format in [Format::Md, Format::Html] {
            let all = rendered_with(&s, format, usize::MAX, true);
            // After the head (whose title is the first user text).
            let body = &all[all
                .find(if format == Format::Md { "\n---\n" } else { "<main>" })
                .unwrap()..];
            for text in ["root text", "first try", "second try", "on the second"] {
                assert_eq!(body.matches(text).count(), 1, "{text} once in {format:?}");
            }
            assert!(body.find("on the second") < body.find("first try"), "@'s branch first");
            for chunk in [1, 50] {
                assert_eq!(
                    rendered_with(&s, format, chunk, true),
                    all,
                    "{format:?} in pieces of {chunk}"
                );
            }
        }
        let html = rendered_with(&s, Format::Html, 1, true);
        assert!(html.contains("<section class=\"branch current\" id=\"b-1\">"));
        assert!(html.contains("<section class=\"branch\" id=\"b-2\">"));
        assert!(html.contains("Branches from here: <a href=\"#b-2\">branch 2</a>"));
        assert!(html.contains("<li class=\"current\" style=\"margin-left: 0.0em\"><a href=\"#b-1\">Branch 1</a> (@)"));
        assert_eq!(html.matches("<section").count(), html.matches("</section>").count());
    }
}
