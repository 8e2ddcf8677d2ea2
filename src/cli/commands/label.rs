use crate::cli::GlobalArgs;
use crate::cli::output::{Output, Style, escape_line, fit, one_line, short_id};
use crate::cli::session_arg::open_session;
use crate::cli::write_args::{WriteArgs, open_writer_tip, show_dry_run};
use anyhow::Result;
use pi_session::ops::label::{NameCheck, check_name, label_lines};
use pi_session::session::io::append::now_timestamp;
use pi_session::session::tree::LabelRecord;
use pi_session::session::{SessionError, revision, text};

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

    /// The label (without `~`, `^` or `:`, not starting with `@`: those read as revisions).
    #[arg(value_name = "NAME", conflicts_with = "delete")]
    pub name: Option<String>,

    /// Clear the label of REV.
    #[arg(long, short = 'd')]
    pub delete: bool,

    /// List the current labels: name, target id, preview (also what a bare `label` does).
    #[arg(long, short = 'l', conflicts_with_all = ["rev", "delete"])]
    pub list: bool,

    /// When listing: one JSON object per label {"label","targetId","type","role","timestamp","preview"};
    /// with --dry-run: the label entries that would be appended, one per line.
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
    if args.json && !args.dry_run {
        return Err(usage_error(
            "--json goes with --list or --dry-run",
            "`pi-session label --list --json`, or `--dry-run --json` for the entries a change would append",
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
        Output::say(&format!("{} has no label: nothing to do", escape_line(target_id)));
        return Ok(());
    }
    // Other entries with the name: each loses it when --force moves it here.
    let mut holders: Vec<String> = Vec::new();
    if let Some(name) = name {
        if current.as_deref() == Some(name) {
            Output::say(&format!(
                "{} is already labelled {}: nothing to do",
                escape_line(target_id),
                escape_line(name)
            ));
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
    let lines = label_lines(session, target_id, name, &holders, &now_timestamp());
    let target_id = target_id.to_owned();
    let path = session.path.clone();
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    if !args.dry_run {
        crate::cli::write_args::append_lines(&mut writer, &lines)?;
    }
    if let Some(name) = name {
        for holder in &holders {
            Output::say(&format!(
                "{} '{}' from {} (its label cleared)",
                if args.dry_run { "would move" } else { "moved" },
                escape_line(name),
                escape_line(holder)
            ));
        }
        // A label replaced is lost as a name for the entry: said as loudly as a move.
        if let Some(old) = &current {
            Output::warn(&format!(
                "{} {} labelled '{}': '{}' {} it, and '{}' no longer names the entry",
                escape_line(&target_id),
                if args.dry_run { "is" } else { "was" },
                escape_line(old),
                escape_line(name),
                if args.dry_run { "would replace" } else { "replaces" },
                escape_line(old),
            ));
        }
    }
    if args.json {
        // Only with --dry-run: the entries themselves, as they would be appended.
        for l in &lines {
            let shown = if out.is_terminal {
                escape_line(l)
            } else {
                (*l).to_owned()
            };
            out.line(&shown)?;
        }
        Output::say("dry run: nothing written");
        return Ok(());
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

fn warn_ambiguous(shadows_id: bool, name: &str) {
    if shadows_id {
        Output::warn(&format!(
            "'{}' is also the beginning of an entry id; as a revision, an exact id wins over a label \
             and a label over a prefix (use label:{} to be explicit)",
            escape_line(name),
            escape_line(name)
        ));
    } else if name == "root" {
        Output::warn("'root' names the first entry of @'s branch; reach this label as label:root");
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
