//! Sessions for the library's unit tests.

use super::Session;
use std::path::PathBuf;

/// A session of user messages with these ids and parents, the k-th written k seconds after
/// the first (in file order, so siblings sort as written).
pub(crate) fn tree_session(edges: &[(&str, Option<&str>)]) -> Session {
    let mut data =
        String::from(r#"{"type":"session","version":3,"id":"s","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/"}"#);
    data.push('\n');
    for (k, (id, parent)) in edges.iter().enumerate() {
        let parent = parent.map_or("null".to_owned(), |p| format!("\"{p}\""));
        let (h, m, s) = (k / 3600 % 24, k / 60 % 60, k % 60);
        data.push_str(&format!(
            r#"{{"type":"message","id":"{id}","parentId":{parent},"timestamp":"2026-01-01T{h:02}:{m:02}:{s:02}.000Z","message":{{"role":"user","content":"x"}}}}"#
        ));
        data.push('\n');
    }
    Session::from_bytes(PathBuf::from("/t.jsonl"), data.into_bytes()).unwrap()
}
