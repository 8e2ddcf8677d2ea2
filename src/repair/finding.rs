//! What `repair` reports: one finding per defect or warning, with what it does about it.

use serde::Serialize;

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    /// Something Pi reads wrongly, skips, rewrites, or hangs on: fails `--check`.
    Defect,
    /// Legal in the file, but likely trouble (e.g. a context a provider would reject).
    Warning,
}

#[derive(Debug, Clone, Serialize)]
pub struct Finding {
    /// The first line it concerns (1-based), if any.
    pub line: Option<u32>,
    /// Every line it concerns, for findings that group many lines (CRLF, blank lines).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub lines: Vec<u32>,
    /// A stable, kebab-case name: `malformed-line`, `duplicate-id`, `orphan`, …
    pub kind: &'static str,
    pub severity: Severity,
    /// The entry concerned, if it has an id.
    pub id: Option<String>,
    /// What is wrong, in one line.
    pub message: String,
    /// What repair does (or would do) about it; empty for warnings.
    pub action: String,
}

impl Finding {
    pub fn defect(
        kind: &'static str,
        line: Option<u32>,
        message: impl Into<String>,
        action: impl Into<String>,
    ) -> Finding {
        Finding {
            line,
            lines: Vec::new(),
            kind,
            severity: Severity::Defect,
            id: None,
            message: message.into(),
            action: action.into(),
        }
    }

    pub fn warning(kind: &'static str, line: Option<u32>, message: impl Into<String>) -> Finding {
        Finding {
            line,
            lines: Vec::new(),
            kind,
            severity: Severity::Warning,
            id: None,
            message: message.into(),
            action: String::new(),
        }
    }

    pub fn with_id(mut self, id: Option<&str>) -> Finding {
        self.id = id.map(str::to_owned);
        self
    }

    pub fn with_lines(mut self, lines: Vec<u32>) -> Finding {
        self.lines = lines;
        self
    }
}

/// One finding of `repair --json`: the [`Finding`]'s fields, then the file it is in.
#[derive(Debug, Serialize)]
pub struct FindingRecord<'a> {
    #[serde(flatten)]
    pub finding: &'a Finding,
    /// The file, as given or found.
    pub path: &'a str,
}
