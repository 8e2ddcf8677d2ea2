//! Tables for people: columns padded to their widest cell (keys left-aligned, numbers
//! right-aligned), the last row (the total) in bold, and columns dropped in a given order
//! while the table is wider than the terminal, so that no number is cut.

use super::output::{Output, Style, display_width, fit};

/// A table to print.
pub struct Table<'a> {
    pub head: &'a [&'a str],
    /// The rows, the total last.
    pub rows: &'a [Vec<String>],
    /// How many columns (the first) are keys; the rest are numbers.
    pub keys: usize,
    /// The headings of the columns to drop first when the table is too wide.
    pub drop_order: &'a [&'a str],
}

impl Table<'_> {
    pub fn write(&self, out: &mut Output) -> std::io::Result<()> {
        // Columns shown, dropped in self.drop_order while the table is wider than the terminal.
        let mut shown: Vec<usize> = (0..self.head.len()).collect();
        let width_of = |col: usize| {
            self.rows
                .iter()
                .map(|r| display_width(&r[col]))
                .chain([self.head[col].len()])
                .max()
                .unwrap_or(0)
        };
        let widths: Vec<usize> = (0..self.head.len()).map(width_of).collect();
        let table_width = |shown: &[usize]| shown.iter().map(|&c| widths[c] + 2).sum::<usize>();
        if let Some(room) = out.width {
            for &name in self.drop_order {
                if table_width(&shown) <= room {
                    break;
                }
                shown.retain(|&c| self.head[c] != name);
            }
        }
        let keys = self.keys;
        let line = |cells: &dyn Fn(usize) -> String| -> String {
            let mut s = String::new();
            for (n, &c) in shown.iter().enumerate() {
                if n > 0 {
                    s.push_str("  ");
                }
                let text = cells(c);
                let pad = widths[c].saturating_sub(display_width(&text));
                if c < keys {
                    s.push_str(&text);
                    s.push_str(&" ".repeat(pad));
                } else {
                    s.push_str(&" ".repeat(pad));
                    s.push_str(&text);
                }
            }
            s.trim_end().to_owned()
        };
        let room = out.width;
        let fitted = |s: String| match room {
            Some(w) => fit(&s, w),
            None => s,
        };
        let heading = fitted(line(&|c| self.head[c].to_owned()));
        out.line(&out.paint(Style::Bold, &heading))?;
        let last = self.rows.len() - 1;
        for (i, row) in self.rows.iter().enumerate() {
            let text = fitted(line(&|c| row[c].clone()));
            if i == last {
                out.line(&out.paint(Style::Bold, &text))?;
            } else {
                out.line(&text)?;
            }
        }
        Ok(())
    }
}
