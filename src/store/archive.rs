//! `archive`: sessions moved out of Pi's session folders into the archive beside them
//! ([`Locations::archive`]: `<agent dir>/sessions-archive/--<cwd>--/`, or `D-archive/` for
//! one custom folder `D`), where Pi no longer lists them, and back (`--restore`).
//!
//! A run is planned whole first ([`plan`]): every session it names is checked (in Pi's
//! folders, or in the archive to restore; not changed in the last few seconds, when a
//! running Pi may hold it open; nothing already at its destination), so that a refused run
//! moves nothing. Then each session is moved with one rename that never replaces
//! ([`move_file`]), so at every moment, across Ctrl-C or `kill -9`, each session is whole
//! in exactly one of the two places.

use crate::listing::{self, ListOptions};
use crate::progress::Cancel;
use crate::session::SessionError;
use crate::session::io::locate::Locations;
use crate::session::io::write::move_file;
use std::fs;
use std::path::{Path, PathBuf};

/// Which way sessions move.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    /// From Pi's folders into the archive.
    Archive,
    /// From the archive back into Pi's folders.
    Restore,
}

/// One session to move.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Move {
    pub from: PathBuf,
    pub to: PathBuf,
}

/// Why a session cannot be moved.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error("{0} is not a session file")]
    NotAFile(PathBuf),
    #[error("{path} is not in {where_}")]
    NotInStore { path: PathBuf, where_: PathBuf },
    #[error("{0} changed in the last few seconds: a running Pi may have it open")]
    ChangedRecently(PathBuf),
    #[error("{path} cannot move to {to}: a file is already there")]
    Exists { path: PathBuf, to: PathBuf },
}

impl Refusal {
    /// Whether `--force` overrides it.
    pub fn forcible(&self) -> bool {
        matches!(self, Refusal::ChangedRecently(_))
    }
}

/// What a run will do: the moves, and the sessions it refuses.
#[derive(Debug, Clone, Default)]
pub struct Plan {
    pub moves: Vec<Move>,
    pub refused: Vec<Refusal>,
}

/// `path` as a session of the folders of `from` would be found: its folder resolved (links
/// followed), its name kept (a session that is a link moves as the link).
fn resolved(path: &Path) -> Option<PathBuf> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    Some(fs::canonicalize(dir).ok()?.join(path.file_name()?))
}

/// Where the session at `path` goes: from the folders of `from` to the same place in those
/// of `to` (a per-project folder keeps its name; a custom folder holds its sessions
/// directly). `None` when `path` is not in the folders of `from`.
pub fn destination(from: &Locations, to: &Locations, path: &Path) -> Option<PathBuf> {
    let path = resolved(path)?;
    let root = fs::canonicalize(from.root()).ok()?;
    let name = path.file_name()?;
    let dir = path.parent()?;
    if from.custom_dir.is_some() {
        return (dir == root).then(|| to.root().join(name));
    }
    let project = dir.file_name()?;
    (dir.parent()? == root).then(|| to.root().join(project).join(name))
}

/// The two sets of folders of a direction: (from, to).
fn ends(loc: &Locations, direction: Direction) -> (Locations, Locations) {
    let pi = Locations {
        archived: false,
        ..loc.clone()
    };
    let archive = pi.archive();
    match direction {
        Direction::Archive => (pi, archive),
        Direction::Restore => (archive, pi),
    }
}

/// Plans moving the sessions at `paths` in `direction`. A session changed less than
/// [`crate::session::io::append::RECENT_WRITE`] ago is refused unless `force` (only when archiving: Pi writes
/// only to its own folders). The same file named twice moves once.
pub fn plan(loc: &Locations, paths: &[PathBuf], direction: Direction, force: bool) -> Plan {
    let (from, to) = ends(loc, direction);
    let mut plan = Plan::default();
    let mut seen = std::collections::HashSet::new();
    for path in paths {
        let meta = match fs::metadata(path) {
            Ok(m) if m.is_file() => m,
            _ => {
                plan.refused.push(Refusal::NotAFile(path.clone()));
                continue;
            }
        };
        let Some(dest) = destination(&from, &to, path) else {
            plan.refused.push(Refusal::NotInStore {
                path: path.clone(),
                where_: from.root(),
            });
            continue;
        };
        if !seen.insert(dest.clone()) {
            continue;
        }
        if direction == Direction::Archive && super::changed_recently(&meta) && !force {
            plan.refused.push(Refusal::ChangedRecently(path.clone()));
            continue;
        }
        if fs::symlink_metadata(&dest).is_ok() {
            plan.refused.push(Refusal::Exists {
                path: path.clone(),
                to: dest,
            });
            continue;
        }
        plan.moves.push(Move {
            from: path.clone(),
            to: dest,
        });
    }
    plan
}

/// The sessions of the current project (or with `all`, of every project) whose last
/// activity (the listing's `modified`) is before `cutoff_ms`, oldest first; in the archive
/// with [`Direction::Restore`]. A session whose activity has no valid date is left out.
pub fn older_than(
    loc: &Locations,
    all: bool,
    cutoff_ms: i64,
    direction: Direction,
    cache: Option<PathBuf>,
) -> Vec<PathBuf> {
    let (from, _) = ends(loc, direction);
    let listed = listing::list(
        &from,
        &ListOptions {
            all,
            archived: false,
            cache,
        },
        &crate::progress::Silent,
    );
    let mut old: Vec<_> = listed
        .sessions
        .into_iter()
        .filter(|s| s.modified.is_some_and(|m| m < cutoff_ms))
        .collect();
    old.reverse();
    old.into_iter().map(|s| s.path).collect()
}

/// Every session file in the archive (`all`: of every project; else the current
/// project's), for `--restore --all`.
pub fn archived_files(loc: &Locations, all: bool) -> Vec<PathBuf> {
    let (archive, _) = ends(loc, Direction::Restore);
    if all {
        return archive.all_files();
    }
    crate::session::io::locate::sessions_in(&archive.here())
        .into_iter()
        .map(|(p, _)| p)
        .collect()
}

/// How a run ended.
#[derive(Debug)]
pub struct Done {
    /// The moves made, in order.
    pub moved: Vec<Move>,
    /// Stopped by `cancel` before the rest.
    pub cancelled: bool,
    /// The move that failed, and why: the ones before it are made, the rest not tried.
    pub failed: Option<(Move, SessionError)>,
}

/// Makes the moves of `plan`, one by one, each with one rename that never replaces,
/// creating the destination's folder as needed. Stops between two moves when `cancel` is
/// set, and at the first failure. A restore removes the archive's folders it emptied.
pub fn apply(moves: &[Move], cancel: &Cancel, mut each: impl FnMut(&Move)) -> Done {
    let mut done = Done {
        moved: Vec::new(),
        cancelled: false,
        failed: None,
    };
    for m in moves {
        if cancel.is_cancelled() {
            done.cancelled = true;
            break;
        }
        let made = match m.to.parent() {
            Some(dir) => fs::create_dir_all(dir).map_err(|e| SessionError::write(dir, e)),
            None => Ok(()),
        };
        if let Err(e) = made.and_then(|()| move_file(&m.from, &m.to)) {
            done.failed = Some((m.clone(), e));
            break;
        }
        each(m);
        done.moved.push(m.clone());
    }
    done
}

/// Removes the folders the moves left empty under the archive's root (best effort: a
/// folder something else was put in stays).
pub fn remove_emptied(loc: &Locations, moved: &[Move]) {
    let root = loc.archive().root();
    let mut dirs: Vec<&Path> = moved.iter().filter_map(|m| m.from.parent()).collect();
    dirs.sort();
    dirs.dedup();
    for d in dirs {
        if d.starts_with(&root)
            || resolved(d).is_some_and(|r| fs::canonicalize(&root).is_ok_and(|root| r.starts_with(root)))
        {
            let _ = fs::remove_dir(d);
        }
    }
    let _ = fs::remove_dir(&root);
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::SystemTime;

    fn setup() -> (tempfile::TempDir, Locations) {
        let tmp = tempfile::tempdir().unwrap();
        let root = tmp.path().canonicalize().unwrap();
        let loc = Locations {
            cwd: PathBuf::from("/w/p"),
            agent_dir: root.join("agent"),
            custom_dir: None,
            archived: false,
        };
        (tmp, loc)
    }

    fn session(dir: &Path, name: &str, age_secs: u64) -> PathBuf {
        fs::create_dir_all(dir).unwrap();
        let p = dir.join(name);
        fs::write(&p, format!("{{\"type\":\"session\",\"id\":\"{name}\"}}\n")).unwrap();
        let t = SystemTime::now() - std::time::Duration::from_secs(age_secs);
        fs::File::options()
            .write(true)
            .open(&p)
            .unwrap()
            .set_modified(t)
            .unwrap();
        p
    }

    #[test]
    fn archives_and_restores_to_the_same_folder_name() {
        let (_tmp, loc) = setup();
        let here = loc.here().path;
        let a = session(&here, "a.jsonl", 60);
        let plan = plan(&loc, std::slice::from_ref(&a), Direction::Archive, false);
        let to = loc.agent_dir.join("sessions-archive/--w-p--/a.jsonl");
        assert_eq!(
            plan.moves,
            [Move {
                from: a.clone(),
                to: to.clone()
            }]
        );
        let done = apply(&plan.moves, &Cancel::new(), |_| {});
        assert_eq!(done.moved.len(), 1);
        assert!(!a.exists() && to.exists());
        // Back: the archive's folder, emptied, is removed.
        let back = super::plan(&loc, std::slice::from_ref(&to), Direction::Restore, false);
        assert_eq!(
            back.moves,
            [Move {
                from: to.clone(),
                to: a.clone()
            }]
        );
        let done = apply(&back.moves, &Cancel::new(), |_| {});
        remove_emptied(&loc, &done.moved);
        assert!(a.exists() && !loc.agent_dir.join("sessions-archive").exists());
    }

    #[test]
    fn refusals() {
        let (tmp, loc) = setup();
        let here = loc.here().path;
        let fresh = session(&here, "fresh.jsonl", 0);
        let outside = session(tmp.path(), "outside.jsonl", 60);
        let taken = session(&here, "taken.jsonl", 60);
        session(&loc.archive().here().path, "taken.jsonl", 60);
        let paths = [fresh.clone(), outside.clone(), taken.clone(), here.join("none.jsonl")];
        let p = plan(&loc, &paths, Direction::Archive, false);
        assert!(p.moves.is_empty());
        assert_eq!(p.refused.len(), 4);
        assert!(p.refused[0].forcible());
        assert!(matches!(p.refused[1], Refusal::NotInStore { .. }));
        assert!(matches!(p.refused[2], Refusal::Exists { .. }));
        assert!(matches!(p.refused[3], Refusal::NotAFile(_)));
        // --force takes the recent one; a session in the archive is not restored twice.
        let p = plan(&loc, &[fresh.clone(), fresh], Direction::Archive, true);
        assert_eq!(p.moves.len(), 1);
        // A session of Pi's folders is not in the archive: nothing to restore.
        let p = plan(&loc, &[taken], Direction::Restore, false);
        assert!(matches!(p.refused[..], [Refusal::NotInStore { .. }]));
    }

    #[test]
    fn a_custom_folder_archives_to_its_sibling() {
        let (tmp, loc) = setup();
        let custom = tmp.path().canonicalize().unwrap().join("mine");
        let loc = Locations {
            custom_dir: Some(custom.clone()),
            ..loc
        };
        let a = session(&custom, "a.jsonl", 60);
        let p = plan(&loc, &[a], Direction::Archive, false);
        assert_eq!(p.moves[0].to, custom.with_file_name("mine-archive").join("a.jsonl"));
    }

    #[test]
    fn a_cancelled_run_stops_between_moves() {
        let (_tmp, loc) = setup();
        let here = loc.here().path;
        let paths: Vec<PathBuf> = (0..3).map(|i| session(&here, &format!("{i}.jsonl"), 60)).collect();
        let p = plan(&loc, &paths, Direction::Archive, false);
        let cancel = Cancel::new();
        let done = apply(&p.moves, &cancel, |_| cancel.cancel());
        assert!(done.cancelled);
        assert_eq!(done.moved.len(), 1);
        assert!(!paths[0].exists() && paths[1].exists() && paths[2].exists());
    }
}
