use crate::cli::GlobalArgs;
use crate::cli::output::{Output, Style, escape_line, fit, one_line, short_id};
use crate::cli::session_arg::open_session;
use crate::cli::write_args::{WriteArgs, open_writer_tip, show_dry_run};
use anyhow::Result;
use pi_session::session::append::{entry_line, new_entry_id, now_timestamp};
use pi_session::session::data::Data;
use pi_session::session::tree::LabelRecord;
use pi_session::session::{Detail, EntryIdx, Session, SessionError, line_search, revision, text};
use rustc_hash::FxHashMap;
use serde_json::Value;

/// Set, clear or list labels: names for entries that work as revisions.
///
/// `label REV NAME` sets, `label NAME` labels @, `label REV --delete` clears, `label` (or
/// `label --list`) lists. A name is on one entry at a time: a name already on another entry
/// is refused unless --force moves it (the other entry's label is cleared); replacing an
/// entry's label is announced. Label entries are appended as children of Pi's leaf, as Pi
/// appends them, so the branch Pi continues on does not change.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The entry to label (with only NAME given: @).
    #[arg(value_name = "REV")]
    pub rev: Option<String>,

    /// The label.
    #[arg(value_name = "NAME", conflicts_with = "delete")]
    pub name: Option<String>,

    /// Clear the label of REV.
    #[arg(long, short = 'd')]
    pub delete: bool,

    /// List the current labels: name, target id, preview (also what a bare `label` does).
    #[arg(long, short = 'l', conflicts_with_all = ["rev", "delete"])]
    pub list: bool,

    /// When listing: one JSON object per label {"label","targetId","type","role","timestamp","preview"}.
    #[arg(long)]
    pub json: bool,

    /// Move NAME here from the entry that has it (its label is cleared).
    #[arg(long, short = 'f', conflicts_with_all = ["delete", "list"])]
    pub force: bool,

    /// Print the label entries that would be appended, and write nothing.
    #[arg(long)]
    pub dry_run: bool,

    #[command(flatten)]
    pub write: WriteArgs,
}

fn usage_error(message: &str, hint: &str) -> anyhow::Error {
    crate::cli::exit::CommandError::usage(message, hint)
}

pub fn run(global: &GlobalArgs, args: &Args, out: &mut Output) -> Result<()> {
    if args.list || (args.rev.is_none() && !args.delete) {
        if args.force {
            return Err(usage_error(
                "--force goes with a NAME to move",
                "`pi-session label REV NAME --force`",
            ));
        }
        return list(global, args, out);
    }
    if args.json {
        return Err(usage_error(
            "--json goes with --list",
            "`pi-session label --list --json`",
        ));
    }
    // `label NAME` labels @; `label --delete` needs the entry whose label to clear.
    let (rev, name) = match (&args.rev, &args.name) {
        (Some(rev), Some(name)) => (rev.as_str(), Some(name.as_str())),
        (Some(name), None) if !args.delete => ("@", Some(name.as_str())),
        (Some(rev), None) => (rev.as_str(), None),
        (None, _) => {
            return Err(usage_error(
                "--delete needs the entry whose label to clear",
                "`pi-session label REV --delete`",
            ));
        }
    };
    if let Some(name) = name {
        check_name(name)?;
    }
    // Reads only the end of the file unless the revision needs more: a label entry follows
    // its target, so the target's current label is always within what was read. A new name
    // needs the labels of the whole file, to know which other entry may have it: the part
    // not read is searched for label entries (see `NameCheck::of_tip`).
    let (mut writer, (target, check)) = open_writer_tip(global, &args.write, args.dry_run, |session| {
        let target = revision::resolve_entry(session, rev)?;
        let check = match name {
            Some(name) => Some(NameCheck::of(session, target, name)?),
            None => None,
        };
        Ok((target, check))
    })?;
    let session = &writer.session;
    let target_id = session.id_str(target).ok_or_else(|| {
        SessionError::Refused(format!(
            "the entry on line {} has no id and cannot be labelled",
            session.entries[target].line
        ))
    })?;
    let current = match &check {
        Some(c) => c.current.clone(),
        None => session.label_of(target).map(str::to_owned),
    };
    if args.delete && current.is_none() {
        eprintln!("{} has no label: nothing to do", escape_line(target_id));
        return Ok(());
    }
    // Other entries with the name: each loses it when --force moves it here.
    let mut holders: Vec<String> = Vec::new();
    if let Some(name) = name {
        if current.as_deref() == Some(name) {
            eprintln!(
                "{} is already labelled {}: nothing to do",
                escape_line(target_id),
                escape_line(name)
            );
            return Ok(());
        }
        let check = check.as_ref().expect("checked with the name");
        holders = check.holders.clone();
        if !holders.is_empty() && !args.force {
            let holder = &holders[0];
            let what = check
                .first_holder_preview
                .as_ref()
                .map(|p| format!(" ({})", one_line(p)))
                .unwrap_or_default();
            return Err(crate::cli::exit::CommandError::refused(
                format!("'{name}' already labels {holder}{}", fit(&what, 60)),
                format!("a name is on one entry at a time; add --force to move it to {target_id}"),
            ));
        }
        warn_ambiguous(check.shadows_id, name);
    }
    // Pi keeps one label per entry: clearing the name on its other entries, then setting it
    // here, leaves Pi (and every revision) with the name on this entry only.
    let timestamp = now_timestamp();
    let mut parent = session.leaf().and_then(|l| session.id_str(l)).map(str::to_owned);
    let mut lines: Vec<String> = Vec::new();
    let mut taken: Vec<String> = Vec::new();
    let mut entry = |rest: Vec<(&str, Value)>, parent: &mut Option<String>| {
        let id = new_entry_id(|c| session.ids().get(c).is_some() || taken.iter().any(|t| t == c));
        taken.push(id.clone());
        lines.push(entry_line("label", &id, parent.as_deref(), &timestamp, rest));
        *parent = Some(id);
    };
    for holder in &holders {
        entry(vec![("targetId", Value::from(holder.as_str()))], &mut parent);
    }
    let mut rest = vec![("targetId", Value::from(target_id))];
    if let Some(name) = name {
        rest.push(("label", Value::from(name)));
    }
    entry(rest, &mut parent);
    let target_id = target_id.to_owned();
    let path = session.path.clone();
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    if !args.dry_run {
        crate::cli::write_args::append_lines(&mut writer, &lines)?;
    }
    if let Some(name) = name {
        for holder in &holders {
            eprintln!(
                "{} '{}' from {} (its label cleared)",
                if args.dry_run { "would move" } else { "moved" },
                escape_line(name),
                escape_line(holder)
            );
        }
        if let Some(old) = &current {
            eprintln!(
                "{} {} labelled '{}': the new label {}",
                escape_line(&target_id),
                if args.dry_run { "is" } else { "was" },
                escape_line(old),
                if args.dry_run {
                    "would replace it"
                } else {
                    "replaces it"
                }
            );
        }
    }
    match name {
        Some(name) => out.line(&format!(
            "{} {}",
            short_id(&target_id),
            out.paint(Style::Label, &format!("[{}]", escape_line(name)))
        ))?,
        None => out.line(&format!(
            "{} (label {} {})",
            short_id(&target_id),
            escape_line(current.as_deref().unwrap_or("")),
            if args.dry_run { "would be cleared" } else { "cleared" }
        ))?,
    }
    if args.dry_run {
        show_dry_run(out, &path, &lines)?;
    }
    Ok(())
}

/// Names the revision syntax could not reach, or that a terminal could not show, are refused.
fn check_name(name: &str) -> Result<(), SessionError> {
    if name.trim().is_empty() {
        return Err(SessionError::Refused(
            "a label needs a name; use --delete to clear one".into(),
        ));
    }
    if name.chars().any(char::is_control) {
        return Err(SessionError::Refused(
            "a label cannot contain control characters or newlines".into(),
        ));
    }
    if name == "@" || name.starts_with(":/") || name.starts_with("id:") || name.starts_with("label:") {
        return Err(SessionError::Refused(format!(
            "'{name}' would be read as revision syntax, not as a label"
        )));
    }
    Ok(())
}

/// What a new NAME for the target meets in the whole file.
struct NameCheck {
    /// The target's current label.
    current: Option<String>,
    /// The other entries NAME labels now, in the order they were labelled.
    holders: Vec<String>,
    /// NAME is long enough to be an id prefix, and some other id starts with it.
    shadows_id: bool,
    /// The preview of the first holder's entry.
    first_holder_preview: Option<String>,
}

impl NameCheck {
    fn of(session: &Session, target: EntryIdx, name: &str) -> Result<NameCheck> {
        if !session.is_complete() {
            return NameCheck::of_tip(session, target, name);
        }
        let target_id = session.id_str(target).unwrap_or_default();
        let holders: Vec<String> = session
            .targets_labelled(name)
            .into_iter()
            .filter(|&sym| session.lookup_sym(sym).is_some_and(|i| i != target))
            .map(|sym| session.ids().name(sym).to_owned())
            .collect();
        Ok(NameCheck {
            current: session.label_of(target).map(str::to_owned),
            first_holder_preview: holders
                .first()
                .and_then(|h| session.lookup(h))
                .map(|i| text::preview(session, i)),
            holders,
            shadows_id: name.len() >= revision::MIN_PREFIX_LEN
                && session
                    .ids()
                    .iter()
                    .any(|(_, id)| id.starts_with(name) && id != target_id),
        })
    }

    /// For a session read from the end: the part before it is searched for the lines that
    /// can matter (label entries, and ids that start with NAME) instead of being loaded;
    /// together with the entries read, they give what a whole read gives. An entry NAME
    /// labels that is not in the part read is searched for the same way.
    fn of_tip(session: &Session, target: EntryIdx, name: &str) -> Result<NameCheck> {
        let target_id = session.id_str(target).unwrap_or_default();
        let from = session.header.end as usize + 1;
        let to = session.read_from().expect("read from the end") as usize;
        let data = Data::open(&session.path).map_err(|e| SessionError::io(&session.path, e))?;
        let before = data.get(from..to).ok_or(SessionError::NeedMore)?;
        let prefix = name.len() >= revision::MIN_PREFIX_LEN;
        let needles: &[&str] = if prefix { &["label", name] } else { &["label"] };
        let lines = line_search::scan(before, needles);

        // Labels as loading sets them: in file order, the last label entry for a target wins;
        // an empty or missing label clears.
        let mut labels: FxHashMap<String, (String, usize)> = FxHashMap::default();
        let mut order = 0;
        let mut apply = |target: Option<&str>, label: Option<&str>| {
            let Some(target) = target.filter(|t| !t.is_empty()) else {
                return;
            };
            match label.filter(|l| !l.is_empty()) {
                Some(l) => {
                    labels.insert(target.to_owned(), (l.to_owned(), order));
                    order += 1;
                }
                None => {
                    labels.remove(target);
                }
            }
        };
        for l in lines.iter().filter(|l| l.kind.as_deref() == Some("label")) {
            apply(l.target_id.as_deref(), l.label.as_deref());
        }
        for e in &session.entries {
            if let Detail::Label { target: Some(t), label } = &e.detail {
                apply(Some(session.ids().name(*t)), label.as_deref());
            }
        }
        let mut named: Vec<(&String, usize)> = labels
            .iter()
            .filter(|(_, (l, _))| l == name)
            .map(|(t, (_, o))| (t, *o))
            .collect();
        named.sort_by_key(|&(_, o)| o);
        // The entries NAME labels: in the part read, or else (the last entry with the id, as
        // ids resolve) before it; a label of an entry that is nowhere labels nothing.
        let far: Vec<&str> = named
            .iter()
            .filter(|(t, _)| session.lookup(t).is_none())
            .map(|(t, _)| t.as_str())
            .collect();
        let far_lines = if far.is_empty() {
            Vec::new()
        } else {
            line_search::scan(before, &far)
        };
        let far_entry = |t: &str| {
            far_lines
                .iter()
                .rev()
                .find(|l| l.kind.as_deref() != Some("session") && l.id.as_deref() == Some(t))
        };
        let mut holders = Vec::new();
        let mut first_holder_preview = None;
        for (t, _) in &named {
            let preview = match session.lookup(t) {
                Some(i) if i == target => continue,
                Some(i) => text::preview(session, i),
                None => match far_entry(t) {
                    Some(l) => preview_of_line(session, before, l.offset)?,
                    None => continue,
                },
            };
            if holders.is_empty() {
                first_holder_preview = Some(preview);
            }
            holders.push((*t).clone());
        }
        let shadows = |id: &str| id.starts_with(name) && id != target_id;
        Ok(NameCheck {
            current: labels.get(target_id).map(|(l, _)| l.clone()),
            holders,
            first_holder_preview,
            shadows_id: prefix
                && (session.ids().iter().any(|(_, id)| shadows(id)) || lines.iter().flat_map(|l| l.ids()).any(shadows)),
        })
    }
}

/// The preview of the entry on the line at `offset` in `before` (the part of the file before
/// what `session` read): that line read on its own, under the session's header.
fn preview_of_line(session: &Session, before: &[u8], offset: usize) -> Result<String> {
    let end = memchr::memchr(b'\n', &before[offset..]).map_or(before.len(), |i| offset + i);
    let header = session.line_bytes(session.header.start, session.header.end);
    let mut bytes = Vec::with_capacity(header.len() + end - offset + 2);
    bytes.extend_from_slice(header);
    bytes.push(b'\n');
    bytes.extend_from_slice(&before[offset..end]);
    bytes.push(b'\n');
    let one = Session::from_bytes(session.path.clone(), bytes)?;
    Ok(one.entries.first().map(|_| text::preview(&one, 0)).unwrap_or_default())
}

fn warn_ambiguous(shadows_id: bool, name: &str) {
    if shadows_id {
        eprintln!(
            "warning: '{}' is also the beginning of an entry id; as a revision, an exact id wins over a label \
             and a label over a prefix (use label:{} to be explicit)",
            escape_line(name),
            escape_line(name)
        );
    } else if name == "root" {
        eprintln!("warning: 'root' names the first entry of @'s branch; reach this label as label:root");
    }
}

fn list(global: &GlobalArgs, args: &Args, out: &mut Output) -> Result<()> {
    let session = open_session(global)?;
    for (target, state) in session.labels() {
        let id = session.ids().name(target);
        let entry = session.lookup_sym(target);
        if args.json {
            out.json(&serde_json::to_value(LabelRecord::new(&session, target, state))?)?;
            continue;
        }
        let preview = match entry {
            Some(i) => format!("{} {}", session.entries[i].kind_name(), text::preview(&session, i)),
            None => "(missing entry)".into(),
        };
        let label = escape_line(&state.label);
        let head = format!("{label:<16} {} ", short_id(id));
        let room = out
            .width
            .map_or(200, |w| w.saturating_sub(head.chars().count()).max(10));
        out.line(&format!(
            "{} {} {}",
            out.paint(Style::Label, &format!("{label:<16}")),
            out.paint(Style::Id, &short_id(id)),
            fit(&one_line(&preview), room)
        ))?;
    }
    Ok(())
}
