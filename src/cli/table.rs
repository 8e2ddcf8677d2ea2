//! Tables for people: columns padded to their widest cell (keys left-aligned, numbers
//! right-aligned), the total row in bold, and, while the table is wider than the terminal,
//! columns dropped in a given order and then the keys shortened, so that no number is cut.

use super::output::{Output, Style, display_width, fit};

/// A table to print.
pub struct Table<'a> {
    pub head: &'a [&'a str],
    /// The rows. A row of a single cell is a heading over the rows that follow (`by model`).
    pub rows: &'a [Vec<String>],
    /// How many columns (the first) are keys; the rest are numbers.
    pub keys: usize,
    /// The headings of the columns to drop first when the table is too wide; then numbers
    /// are dropped from the right, keeping at least one.
    pub drop_order: &'a [&'a str],
    /// The row in bold: the total.
    pub total: usize,
}

/// The narrowest a key column is cut to before a number column goes.
const KEY_MIN: usize = 8;

/// The columns shown and their widths: every column fits `room` if it can, by dropping the
/// columns of `drop_order`, then cutting keys (to [`KEY_MIN`]), then dropping numbers from
/// the right; the keys and one number always stay, so a very narrow terminal wraps a row
/// rather than lose every number.
fn layout(head: &[&str], widths: &[usize], keys: usize, drop_order: &[&str], room: usize) -> (Vec<usize>, Vec<usize>) {
    let mut shown: Vec<usize> = (0..head.len()).collect();
    let mut widths = widths.to_vec();
    let total = |shown: &[usize], widths: &[usize]| {
        shown.iter().map(|&c| widths[c]).sum::<usize>() + 2 * shown.len().saturating_sub(1)
    };
    for &name in drop_order {
        if total(&shown, &widths) <= room {
            break;
        }
        shown.retain(|&c| head[c] != name);
    }
    loop {
        let over = total(&shown, &widths).saturating_sub(room);
        if over == 0 {
            break;
        }
        // Cut the widest key first, as far as it goes.
        let key = (0..keys.min(head.len()))
            .filter(|&c| widths[c] > KEY_MIN)
            .max_by_key(|&c| widths[c]);
        if let Some(c) = key {
            widths[c] = widths[c].saturating_sub(over).max(KEY_MIN);
            continue;
        }
        match shown.iter().rposition(|&c| c >= keys) {
            Some(i) if shown.iter().filter(|&&c| c >= keys).count() > 1 => {
                shown.remove(i);
            }
            _ => break,
        }
    }
    (shown, widths)
}

impl Table<'_> {
    pub fn write(&self, out: &mut Output) -> std::io::Result<()> {
        let width_of = |col: usize| {
            self.rows
                .iter()
                .filter(|r| r.len() > 1)
                .map(|r| display_width(&r[col]))
                .chain([self.head[col].len()])
                .max()
                .unwrap_or(0)
        };
        let widths: Vec<usize> = (0..self.head.len()).map(width_of).collect();
        let (shown, widths) = match out.width {
            Some(room) => layout(self.head, &widths, self.keys, self.drop_order, room),
            None => ((0..self.head.len()).collect(), widths),
        };
        let keys = self.keys;
        let line = |cells: &dyn Fn(usize) -> String| -> String {
            let mut s = String::new();
            for (n, &c) in shown.iter().enumerate() {
                if n > 0 {
                    s.push_str("  ");
                }
                let text = cells(c);
                if c < keys {
                    // Keys are cut to their column; numbers never are.
                    let text = fit(&text, widths[c]);
                    let pad = widths[c].saturating_sub(display_width(&text));
                    s.push_str(&text);
                    s.push_str(&" ".repeat(pad));
                } else {
                    let pad = widths[c].saturating_sub(display_width(&text));
                    s.push_str(&" ".repeat(pad));
                    s.push_str(&text);
                }
            }
            s.trim_end().to_owned()
        };
        let heading = line(&|c| self.head[c].to_owned());
        out.line(&out.paint(Style::Bold, &heading))?;
        for (i, row) in self.rows.iter().enumerate() {
            if let [heading] = row.as_slice() {
                let text = match out.width {
                    Some(w) => fit(heading, w),
                    None => heading.clone(),
                };
                out.line(&out.paint(Style::Meta, &text))?;
                continue;
            }
            let text = line(&|c| row[c].clone());
            if i == self.total {
                out.line(&out.paint(Style::Bold, &text))?;
            } else {
                out.line(&text)?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::layout;

    const HEAD: [&str; 4] = ["model", "input", "output", "cost"];

    #[test]
    fn columns_go_in_the_order_given_then_keys_shorten_then_numbers_go_from_the_right() {
        let widths = [30, 10, 10, 8];
        // Wide enough: everything.
        assert_eq!(layout(&HEAD, &widths, 1, &["input"], 80).0, [0, 1, 2, 3]);
        // 30 + 10 + 8 + 4 = 52: input goes first.
        assert_eq!(
            layout(&HEAD, &widths, 1, &["input"], 52),
            (vec![0, 2, 3], widths.to_vec())
        );
        // Then the key is cut (to 40 − 10 − 8 − 4 = 18).
        assert_eq!(
            layout(&HEAD, &widths, 1, &["input"], 40),
            (vec![0, 2, 3], vec![18, 10, 10, 8])
        );
        // Then numbers from the right, one always kept.
        assert_eq!(layout(&HEAD, &widths, 1, &["input"], 20).0, [0, 2]);
        assert_eq!(layout(&HEAD, &widths, 1, &["input"], 5).0, [0, 2]);
    }
}
