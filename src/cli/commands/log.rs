use crate::cli::GlobalArgs;
use crate::cli::exit::CommandError;
use crate::cli::log_view::{self, LogView, Template};
use crate::cli::output::{Output, escape_line};
use crate::cli::session_arg::{open_session, open_tip, warn_cycle};
use anyhow::Result;
use pi_session::dates::{self, When};
use pi_session::ops::log::{LogQuery, Since, select};
use pi_session::session::{EntryKind, Role, Session};

/// Show a branch, newest entry first.
///
/// Without REV, the branch of @ (where the conversation stands) back to its root. With
/// --all, every entry of the file in append order.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Show the branch ending at this revision [default: @].
    #[arg(value_name = "REV")]
    pub rev: Option<String>,

    /// Show at most N entries.
    #[arg(short = 'n', long = "max-count", value_name = "N")]
    pub max_count: Option<usize>,

    /// Oldest first.
    #[arg(long)]
    pub reverse: bool,

    /// Only entries of these types (repeat or separate with commas).
    #[arg(long = "type", value_name = "TYPE", value_delimiter = ',', value_parser = EntryKind::NAMES)]
    pub types: Vec<String>,

    /// Only messages with these roles (repeat or separate with commas).
    #[arg(long, value_name = "ROLE", value_delimiter = ',', value_parser = Role::NAMES)]
    pub role: Vec<String>,

    /// Show each entry in full: text, thinking, tool calls with arguments, tool results.
    #[arg(long)]
    pub long: bool,

    /// With --long: cut tool results and command output after this many characters.
    #[arg(long, value_name = "N", default_value_t = 2000)]
    pub max_chars: usize,

    /// Print each entry's original line, byte for byte (NDJSON).
    #[arg(long)]
    pub json: bool,

    /// Every entry of the file in append order, not one branch (like Pi's RPC get_entries).
    #[arg(long, conflicts_with = "rev")]
    pub all: bool,

    /// Only entries from DATE on, by their timestamp: a day (2026-11-30, 20261130, today,
    /// yesterday, 7d, 2w) from its first instant, a date and time (2026-11-30T14:00,
    /// '2026-11-30 14:00:05'; with Z or +02:00, else local time), or a time ago
    /// ('3 days ago', 2.weeks.ago, '90 minutes ago', 1h, 90min, now: units second, minute,
    /// hour, day, week, month, year). Entries without a readable timestamp are left out.
    /// (With --all, an entry id here is taken as --after ID, with a deprecation note: that
    /// spelling goes in the next release.)
    #[arg(long, value_name = "DATE", conflicts_with = "after")]
    pub since: Option<String>,

    /// Only entries up to DATE, by their timestamp: a day through its last instant, else
    /// the moment named (the forms of --since).
    #[arg(long, value_name = "DATE")]
    pub until: Option<When>,

    /// With --all: only entries appended after the entry with this id (a cursor for polling).
    #[arg(long, value_name = "ID", requires = "all")]
    pub after: Option<String>,

    /// One short line per entry: short id, kind (the role of a message, else the type),
    /// (@) and [label] when they apply, and the first line of the entry's text, fitted to
    /// the terminal (off a terminal, to $COLUMNS, else 200 columns).
    #[arg(long, conflicts_with_all = ["json", "long", "format"])]
    pub oneline: bool,

    /// One line per entry from TEMPLATE, with these placeholders: %H id, %h short id (8
    /// characters), %P parent id, %t time (local, as log shows it), %T timestamp as written,
    /// %y type, %r role, %K kind (the role of a message, else the type), %m model (of an
    /// assistant message or a model change), %l label, %k tokens (the totalTokens of the
    /// call the entry records), %s the first line of the entry's text, %n newline, %%
    /// percent. A field an entry lacks is empty; control characters are escaped.
    #[arg(long, value_name = "TEMPLATE", value_parser = Template::parse, conflicts_with_all = ["json", "long"])]
    pub format: Option<Template>,

    /// After what log prints, print each entry as Pi appends it, until Ctrl-C (status 0).
    /// New entries come in append order: with --all every one, else those on the branch of
    /// @ as it moves (a notice on stderr when @ moves to another branch). -n and --reverse
    /// apply to the first part only. With --json, one original line per entry, flushed at
    /// once. A file replaced, cut or rewritten (repair, Pi's migration) is read again with a
    /// notice on stderr, and only entries whose ids were not seen yet are printed.
    #[arg(short = 'f', long, conflicts_with = "rev")]
    pub follow: bool,

    /// With --follow: wait for a session file that does not exist yet (a path given with
    /// -s, or the first session of the current directory).
    #[arg(long, requires = "follow")]
    pub wait: bool,
}

impl Args {
    /// The query these options make. `session` (the whole file) tells whether `--since`
    /// names an entry; it is needed only with --all, the one place an id was taken.
    pub(crate) fn query(&self, session: Option<&Session>) -> Result<LogQuery<'_>> {
        let now = jiff::Timestamp::now();
        let zone = jiff::tz::TimeZone::system();
        let mut query = LogQuery {
            rev: self.rev.as_deref(),
            all: self.all,
            after: self.after.as_deref(),
            types: &self.types,
            roles: &self.role,
            since_ms: None,
            until_ms: self.until.as_ref().map(|w| w.last_ms(now, &zone)),
            max_count: self.max_count,
            reverse: self.reverse,
        };
        let Some(since) = self.since.as_deref() else {
            return Ok(query);
        };
        match Since::read(since, self.all, session, now, &zone) {
            Since::From(ms) => query.since_ms = Some(ms),
            Since::After(id) => {
                Output::note("--since with an entry id is deprecated; use --after ID");
                query.after = Some(id);
            }
            // As when the id cursor was the only meaning: an entry not found (status 1).
            Since::Neither if self.all => {
                return Err(CommandError::refused(
                    format!("--since: '{}' is neither a date nor an entry", escape_line(since)),
                    format!("--since takes {}; --after takes an entry id", dates::FORMS),
                ));
            }
            Since::Neither => {
                return Err(CommandError::usage(
                    format!("--since: '{}' is not a date", escape_line(since)),
                    format!(
                        "--since takes {}; for the entries appended after an entry: --all --after ID",
                        dates::FORMS
                    ),
                ));
            }
        }
        Ok(query)
    }

    fn view(&self) -> LogView<'_> {
        LogView {
            json: self.json,
            long: self.long,
            max_chars: self.max_chars,
            oneline: self.oneline,
            format: self.format.as_ref(),
        }
    }
}

pub fn run(global: &GlobalArgs, args: &Args, out: &mut Output) -> Result<()> {
    if args.follow {
        let follow = crate::cli::follow::Follow {
            all: args.all,
            wait: args.wait,
            view: args.view(),
        };
        return crate::cli::follow::run(global, &follow, |s| args.query(Some(s)), out);
    }
    // A branch reads only as much of the end of the file as it shows; the rest reads it all.
    let (session, selection) = if args.all || args.max_count.is_none() {
        let session = open_session(global)?;
        let selection = select(&session, &args.query(Some(&session))?)?;
        (session, selection)
    } else {
        let query = args.query(None)?;
        open_tip(global, |session| Ok(select(session, &query)?))?
    };
    warn_cycle(&session, selection.cycle_at);
    log_view::print(out, &args.view(), &session, &selection.entries, selection.at)
}
