//! Interop with Pi 1.6.0 for `import`: every imported fixture opens in Pi unchanged, with the
//! leaf the import meant (the last entry), every entry, and the context pi-session computes.
//! (The real Pi CLI's answers are compared in `interop_pi_cli::imports_read_alike_in_pi`.)

use crate::common;

use common::oracle::run_oracle;
use common::{json_eq, ndjson, run_ok};
use serde_json::Value;

#[test]
fn pi_opens_every_import_unchanged_with_the_meant_leaf() {
    for (src, _dir, file) in common::imported_fixtures() {
        let Some(pi) = run_oracle(&file, &[]) else { return };
        let what = src.display();
        assert_eq!(pi["rewritten"], false, "{what}: Pi opened it without a change");
        let text = std::fs::read_to_string(&file).unwrap();
        let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
        let entries = pi["entries"].as_array().unwrap();
        assert_eq!(entries.len(), lines.len() - 1, "{what}: every line an entry");
        assert_eq!(
            pi["leaf"],
            lines.last().unwrap()["id"],
            "{what}: the leaf is the last entry"
        );
        for (e, line) in entries.iter().zip(&lines[1..]) {
            assert_eq!(e["id"], line["id"], "{what}");
            assert_eq!(e["parentId"], line["parentId"], "{what}");
        }
        let ours = ndjson(&run_ok(&file, &["context", "--json"]));
        let theirs = pi["context"]["messages"].as_array().unwrap();
        assert_eq!(ours.len(), theirs.len(), "{what}: messages in the context");
        for (a, b) in ours.iter().zip(theirs) {
            assert!(json_eq(a, b), "{what}: ours {a}\nPi's {b}");
        }
    }
}
