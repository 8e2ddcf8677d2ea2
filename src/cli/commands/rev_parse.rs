use crate::cli::GlobalArgs;
use crate::cli::output::{Output, escape_line};
use crate::cli::session_arg::open_tip;
use anyhow::Result;
use pi_session::session::revision;

/// Print the full ids that revisions name, one per line.
///
/// `@` is where the conversation stands: Pi's leaf, stepping back over trailing labels and
/// pi-session checkout records.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Revisions to resolve.
    #[arg(value_name = "REV", required_unless_present = "leaf")]
    pub revs: Vec<String>,

    /// Print Pi's literal leaf: the last entry of the file.
    #[arg(long)]
    pub leaf: bool,
}

pub fn run(global: &GlobalArgs, args: &Args, out: &mut Output) -> Result<()> {
    // Reads only the end of the file unless a revision needs more (labels, prefixes).
    let (_, ids) = open_tip(global, |session| {
        let mut ids = Vec::new();
        if args.leaf {
            match session.leaf() {
                Some(i) => ids.push(session.id_or_line(i)),
                None => return Err(session.empty_position("--leaf").into()),
            }
        }
        for rev in &args.revs {
            let idx = revision::resolve_entry(session, rev)?;
            ids.push(session.id_or_line(idx));
        }
        Ok(ids)
    })?;
    for id in ids {
        // Ids are data for scripts, but an id holding control characters would reach a
        // terminal through any pipe: such ids are escaped, like all session text.
        out.line(&escape_line(&id))?;
    }
    Ok(())
}
