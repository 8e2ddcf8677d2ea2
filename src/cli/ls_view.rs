//! How `ls` draws its rows: times, id prefixes, home-relative paths, and the tree glyphs of
//! `--tree`.

use pi_session::listing::{SessionInfo, TreeRow};

/// `YYYY-MM-DD HH:MM` in the local time zone; `short`, `MM-DD HH:MM`.
pub fn local_minute(ms: Option<i64>, short: bool) -> String {
    let (format, unknown) = if short {
        ("%m-%d %H:%M", "??-?? ??:??")
    } else {
        ("%Y-%m-%d %H:%M", "????-??-?? ??:??")
    };
    ms.and_then(|ms| jiff::Timestamp::from_millisecond(ms).ok())
        .map(|t| {
            t.to_zoned_datetime(jiff::tz::TimeZone::system())
                .strftime(format)
                .to_string()
        })
        .unwrap_or_else(|| unknown.into())
}

/// For each id, its shortest prefix of at least 8 characters that no other listed id shares.
pub fn unique_prefixes(sessions: &[SessionInfo]) -> Vec<String> {
    let mut sorted: Vec<&str> = sessions.iter().filter_map(|s| s.id.as_deref()).collect();
    sorted.sort_unstable();
    sorted.dedup();
    let common = |a: &str, b: &str| a.chars().zip(b.chars()).take_while(|(x, y)| x == y).count();
    sessions
        .iter()
        .map(|s| {
            let Some(id) = s.id.as_deref() else {
                return "-".to_owned();
            };
            let i = sorted.binary_search(&id).unwrap_or(0);
            let mut need = 8;
            if i > 0 {
                need = need.max(common(id, sorted[i - 1]) + 1);
            }
            if i + 1 < sorted.len() {
                need = need.max(common(id, sorted[i + 1]) + 1);
            }
            id.chars().take(need).collect()
        })
        .collect()
}

/// `~/…` for paths under the home directory.
pub fn shorten_home(p: &str) -> String {
    match std::env::var("HOME") {
        Ok(home) if !home.is_empty() && p.starts_with(&home) && p[home.len()..].starts_with('/') => {
            format!("~{}", &p[home.len()..])
        }
        _ => p.to_owned(),
    }
}

/// The glyphs before a session's name in `ls --tree`: `│  ` or three spaces for each level
/// above (whether a later sibling follows there), then `├─ ` or `└─ `.
pub fn tree_prefix(row: &TreeRow) -> String {
    let Some((own, above)) = row.more.split_last() else {
        return String::new();
    };
    let mut s: String = above.iter().map(|&m| if m { "│  " } else { "   " }).collect();
    s.push_str(if *own { "├─ " } else { "└─ " });
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tree_glyphs() {
        let row = |more: Vec<bool>| TreeRow {
            index: 0,
            depth: more.len(),
            more,
        };
        assert_eq!(tree_prefix(&row(vec![])), "");
        assert_eq!(tree_prefix(&row(vec![true])), "├─ ");
        assert_eq!(tree_prefix(&row(vec![true, false])), "│  └─ ");
        assert_eq!(tree_prefix(&row(vec![false, true])), "   ├─ ");
    }
}
