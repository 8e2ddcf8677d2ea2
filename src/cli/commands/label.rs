use crate::cli::GlobalArgs;
use crate::cli::output::{Output, Style, escape_line, fit, one_line, short_id};
use crate::cli::session_arg::open_session;
use crate::cli::write_args::{WriteArgs, append, open_writer_tip};
use crate::session::append::{entry_line, now_timestamp};
use crate::session::{SessionError, revision, text};
use anyhow::Result;
use serde_json::{Value, json};

/// Set, clear or list labels: names for entries that work as revisions.
///
/// `label REV NAME` sets, `label REV --delete` clears, `label --list` lists. Label entries
/// are appended as children of Pi's leaf, as Pi appends them, so the branch Pi continues
/// on does not change.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The entry to label.
    #[arg(value_name = "REV", required_unless_present = "list")]
    pub rev: Option<String>,

    /// The label.
    #[arg(value_name = "NAME", required_unless_present_any = ["list", "delete"], conflicts_with = "delete")]
    pub name: Option<String>,

    /// Clear the label of REV.
    #[arg(long, short = 'd')]
    pub delete: bool,

    /// List the current labels: name, target id, preview.
    #[arg(long, short = 'l', conflicts_with_all = ["rev", "delete"])]
    pub list: bool,

    /// With --list: one JSON object per label {"label","targetId","type","role","timestamp","preview"}.
    #[arg(long, requires = "list")]
    pub json: bool,

    #[command(flatten)]
    pub write: WriteArgs,
}

pub fn run(global: &GlobalArgs, args: &Args, out: &mut Output) -> Result<()> {
    if args.list {
        return list(global, args, out);
    }
    if args.json {
        eprintln!("error: --json goes with --list\nhint: `pi-session label --list --json`");
        return Err(crate::cli::ExitCode(crate::cli::exit::USAGE).into());
    }
    let rev = args.rev.as_deref().expect("clap requires REV");
    if let Some(name) = &args.name {
        check_name(name)?;
    }
    // Reads only the end of the file unless the revision needs more: a label entry follows
    // its target, so the target's current label is always within what was read.
    let (mut writer, target) = open_writer_tip(global, &args.write, |session| {
        Ok(revision::resolve_entry(session, rev)?)
    })?;
    let session = &writer.session;
    let target_id = session.id_str(target).ok_or_else(|| {
        SessionError::Refused(format!(
            "the entry on line {} has no id and cannot be labelled",
            session.entries[target].line
        ))
    })?;
    let current = session.label_of(target).map(str::to_owned);
    if args.delete && current.is_none() {
        eprintln!("{} has no label: nothing to do", escape_line(target_id));
        return Ok(());
    }
    if let Some(name) = &args.name {
        if current.as_deref() == Some(name) {
            eprintln!(
                "{} is already labelled {}: nothing to do",
                escape_line(target_id),
                escape_line(name)
            );
            return Ok(());
        }
        warn_ambiguous(session, name, target_id);
    }
    let mut rest = vec![("targetId", Value::from(target_id))];
    if let Some(name) = &args.name {
        rest.push(("label", Value::from(name.as_str())));
    }
    let parent = session.leaf().and_then(|l| session.id_str(l)).map(str::to_owned);
    let line = entry_line("label", &writer.new_id(), parent.as_deref(), &now_timestamp(), rest);
    let target_id = target_id.to_owned();
    append(&mut writer, &line)?;
    match &args.name {
        Some(name) => out.line(&format!(
            "{} {}",
            short_id(&target_id),
            out.paint(Style::Label, &format!("[{}]", escape_line(name)))
        ))?,
        None => out.line(&format!(
            "{} (label {} cleared)",
            short_id(&target_id),
            escape_line(current.as_deref().unwrap_or(""))
        ))?,
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

fn warn_ambiguous(session: &crate::session::Session, name: &str, target: &str) {
    let shadows_id = session.ids().iter().any(|(_, id)| id.starts_with(name) && id != target);
    if name.len() >= revision::MIN_PREFIX_LEN && shadows_id {
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
            let e = entry.map(|i| &session.entries[i]);
            let row = json!({
                "label": &*state.label,
                "targetId": id,
                "type": e.and_then(|e| e.kind.as_str()),
                "role": e.and_then(|e| e.role()).map(|r| r.as_str()),
                "timestamp": session.entries[state.set_by].timestamp.as_deref(),
                "preview": entry.map(|i| text::preview(&session, i)),
            });
            out.line(&row.to_string())?;
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
