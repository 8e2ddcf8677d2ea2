//! `usage --csv`: the report as CSV, one row per group then the total, with the `--json`
//! records' column names; numbers as JavaScript prints them. Rows are handed back as text:
//! a field may hold any character, and the caller escapes what a terminal must not get.

use super::{Key, KeyValue, Report};
use crate::json::jsjson::js_number;
use crate::usage::{COST, TOKEN_COLUMNS};

/// A CSV field, quoted when it holds a comma, a quote or a line break.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_owned()
    }
}

impl Report {
    /// The report grouped `by` as CSV rows (without line ends): the heading, the groups,
    /// the total.
    pub fn csv_rows(&self, by: &[Key]) -> Vec<String> {
        let mut head: Vec<&str> = Vec::new();
        for k in by {
            head.push(k.name());
            if *k == Key::Session {
                head.push("path");
            }
        }
        head.extend(TOKEN_COLUMNS);
        head.extend([COST, "calls"]);
        let mut rows = vec![head.join(",")];
        let counters = |t: &crate::usage::Totals, calls: u64| {
            t.tokens()
                .iter()
                .chain([&t.cost.total])
                .map(|&n| js_number(n))
                .chain([calls.to_string()])
                .collect::<Vec<_>>()
        };
        for g in &self.groups {
            let mut row = Vec::new();
            for k in &g.keys {
                match k {
                    KeyValue::Session(i) => {
                        row.push(csv_field(&self.sessions[*i].id));
                        row.push(csv_field(&self.sessions[*i].path.to_string_lossy()));
                    }
                    KeyValue::Day(v)
                    | KeyValue::Week(v)
                    | KeyValue::Month(v)
                    | KeyValue::Project(v)
                    | KeyValue::Provider(v) => row.push(csv_field(v.as_deref().unwrap_or(""))),
                    KeyValue::Model(m) => row.push(csv_field(m)),
                    KeyValue::Source(s) => row.push(csv_field(s.source().name())),
                }
            }
            row.extend(counters(&g.totals, g.calls));
            rows.push(row.join(","));
        }
        let mut row = vec!["total".to_owned()];
        row.resize(head.len() - 7, String::new());
        row.extend(counters(&self.total, self.calls));
        rows.push(row.join(","));
        rows
    }
}
