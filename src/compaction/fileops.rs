//! Files the summarized conversation read and changed, tracked across compactions
//! (`createFileOps`, `extractFileOpsFromMessage`, `computeFileLists` in Pi's utils.js).

use crate::json::scan::Scan;
use crate::json::view::{Obj, Val};
use crate::session::Role;
use crate::session::content::{Block, Content};
use serde_json::Value;
use std::collections::BTreeSet;

/// How a call of a tool touches the file its `path` names: only Pi's `read`, `write` and
/// `edit` tools are tracked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Touch {
    Read,
    Write,
    Edit,
}

impl Touch {
    /// How a call of the tool `name` touches its file, if it does.
    pub fn of(name: &str) -> Option<Touch> {
        match name {
            "read" => Some(Touch::Read),
            "write" => Some(Touch::Write),
            "edit" => Some(Touch::Edit),
            _ => None,
        }
    }
}

/// Insertion-ordered sets are not needed: Pi sorts the final lists.
#[derive(Debug, Clone, Default)]
pub struct FileOps {
    pub read: BTreeSet<String>,
    pub written: BTreeSet<String>,
    pub edited: BTreeSet<String>,
}

impl FileOps {
    /// Tool calls of an assistant message, or the nested calls recorded on a tool result.
    pub fn add_from_message(&mut self, m: &Value) {
        if let Some(m) = Obj::of_value(m) {
            // A parsed value never declines.
            let _ = self.add_from_message_view(m);
        }
    }

    /// [`FileOps::add_from_message`] over the entry view of a message (its line's bytes,
    /// nothing else decoded); `Err` when the bytes backend declines.
    pub fn add_from_message_view(&mut self, m: Obj<'_, '_>) -> Scan<()> {
        let role = m.str("role")?.map(|r| Role::parse(&r));
        match role {
            Some(Role::ToolResult) => {
                let calls = m.obj("nestedCalls")?.map(|n| n.arr("calls")).transpose()?.flatten();
                for c in calls.unwrap_or_default().iter().filter_map(|c| c.obj()) {
                    self.add(c.str("name")?.as_deref(), c.get("arguments")?)?;
                }
            }
            Some(Role::Assistant) => {
                for block in Content::of_message(&m)?.blocks()? {
                    if let Block::ToolCall {
                        name: Some(name),
                        arguments: Some(arguments),
                        ..
                    } = block
                    {
                        self.add(Some(&name), Some(arguments))?;
                    }
                }
            }
            _ => {}
        }
        Ok(())
    }

    fn add(&mut self, name: Option<&str>, args: Option<Val<'_, '_>>) -> Scan<()> {
        let path = match args.and_then(|a| a.obj()) {
            Some(a) => a.str("path")?,
            None => None,
        };
        let Some(path) = path.filter(|p| !p.is_empty()) else {
            return Ok(());
        };
        match name.and_then(Touch::of) {
            Some(Touch::Read) => self.read.insert(path.into_owned()),
            Some(Touch::Write) => self.written.insert(path.into_owned()),
            Some(Touch::Edit) => self.edited.insert(path.into_owned()),
            None => false,
        };
        Ok(())
    }

    /// The lists a previous summary recorded in its `details` (`readFiles`, `modifiedFiles`).
    pub fn add_from_details(&mut self, details: &Value) {
        for f in details.get("readFiles").and_then(Value::as_array).into_iter().flatten() {
            if let Some(s) = f.as_str() {
                self.read.insert(s.to_owned());
            }
        }
        for f in details
            .get("modifiedFiles")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            if let Some(s) = f.as_str() {
                self.edited.insert(s.to_owned());
            }
        }
    }

    /// (files only read, files modified), each sorted as JavaScript's `sort()` does.
    pub fn lists(&self) -> (Vec<String>, Vec<String>) {
        let modified: BTreeSet<&String> = self.edited.iter().chain(&self.written).collect();
        let mut read: Vec<String> = self.read.iter().filter(|f| !modified.contains(f)).cloned().collect();
        let mut modified: Vec<String> = modified.into_iter().cloned().collect();
        read.sort_by(|a, b| js_order(a, b));
        modified.sort_by(|a, b| js_order(a, b));
        (read, modified)
    }
}

/// JavaScript's default sort order for strings: by UTF-16 code units, not by code points
/// (they differ once a character beyond U+FFFF meets one in U+E000..U+FFFF: `😀` sorts
/// before `Ａ`).
pub fn js_order(a: &str, b: &str) -> std::cmp::Ordering {
    a.encode_utf16().cmp(b.encode_utf16())
}

/// The `<read-files>` and `<modified-files>` blocks appended to a summary.
pub fn format_file_lists(read: &[String], modified: &[String]) -> String {
    let mut sections = Vec::new();
    if !read.is_empty() {
        sections.push(format!("<read-files>\n{}\n</read-files>", read.join("\n")));
    }
    if !modified.is_empty() {
        sections.push(format!("<modified-files>\n{}\n</modified-files>", modified.join("\n")));
    }
    if sections.is_empty() {
        String::new()
    } else {
        format!("\n\n{}", sections.join("\n\n"))
    }
}
