//! Entries as the index holds them: where their bytes are, and the few typed fields that
//! tree walks, revisions and listings need. Everything else stays in the original line and
//! is parsed on demand ([`crate::session::Session::value`]).

use std::num::NonZeroU32;

/// An interned entry id: an index into the session's id table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Sym(pub u32);

/// Position of an entry in [`crate::session::Session::entries`] (file order, header excluded).
pub type EntryIdx = usize;

/// The `type` of an entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum EntryKind {
    Message,
    ModelChange,
    ThinkingLevelChange,
    Compaction,
    BranchSummary,
    Custom,
    CustomMessage,
    Label,
    SessionInfo,
    ContextEdit,
    Usage,
    /// A type this version does not know, or none at all. (Boxed twice, so that the kind,
    /// in every entry, takes 16 bytes rather than 24: unknown types are rare.)
    Other(Option<Box<Box<str>>>),
}

/// The names of an enum's known values, written once: `NAMES` in this order, and the
/// mapping from a name and back.
macro_rules! known_names {
    ($ty:ident { $($variant:ident = $name:literal),* $(,)? }) => {
        impl $ty {
            /// Every known name, in the order commands list them.
            pub const NAMES: [&'static str; [$($name),*].len()] = [$($name),*];

            fn known(name: &str) -> Option<$ty> {
                match name {
                    $($name => Some($ty::$variant),)*
                    _ => None,
                }
            }

            fn known_name(&self) -> Option<&'static str> {
                match self {
                    $($ty::$variant => Some($name),)*
                    _ => None,
                }
            }
        }
    };
}

known_names!(EntryKind {
    Message = "message",
    ModelChange = "model_change",
    ThinkingLevelChange = "thinking_level_change",
    Compaction = "compaction",
    BranchSummary = "branch_summary",
    Custom = "custom",
    CustomMessage = "custom_message",
    Label = "label",
    SessionInfo = "session_info",
    ContextEdit = "context_edit",
    Usage = "usage",
});

impl EntryKind {
    pub fn parse(s: Option<&str>) -> EntryKind {
        s.and_then(EntryKind::known)
            .unwrap_or_else(|| EntryKind::Other(s.map(|s| Box::new(s.into()))))
    }

    /// The `type` string as written in the file (`None` when the entry has no string type).
    pub fn as_str(&self) -> Option<&str> {
        match self {
            EntryKind::Other(s) => s.as_deref().map(|s| &**s),
            known => known.known_name(),
        }
    }
}

/// The role of a message entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Role {
    User,
    Assistant,
    ToolResult,
    BashExecution,
    System,
    /// Extension messages (`hookMessage` before format v3).
    Custom,
    BranchSummary,
    CompactionSummary,
    /// (Boxed twice, so that a message's role takes 16 bytes rather than 24: other roles
    /// are rare.)
    Other(Box<Box<str>>),
}

known_names!(Role {
    User = "user",
    Assistant = "assistant",
    ToolResult = "toolResult",
    BashExecution = "bashExecution",
    Custom = "custom",
    System = "system",
    BranchSummary = "branchSummary",
    CompactionSummary = "compactionSummary",
});

impl Role {
    pub fn parse(s: &str) -> Role {
        Role::known(s).unwrap_or_else(|| Role::Other(Box::new(s.into())))
    }

    pub fn as_str(&self) -> &str {
        match self {
            Role::Other(s) => s,
            known => known.known_name().unwrap_or_default(),
        }
    }
}

/// The tool calls of a message, whose ids `repair` checks pair up.
#[derive(Debug, Clone, Default)]
pub enum Tools {
    #[default]
    None,
    /// An assistant message's calls (boxed: entries stay small).
    Calls(Box<ToolCalls>),
    /// The call a tool result answers.
    ResultOf(Box<str>),
}

/// The tool-call blocks of an assistant message.
#[derive(Debug, Clone, Default)]
pub struct ToolCalls {
    /// The ids of the calls that have one.
    pub ids: Box<[Box<str>]>,
    /// The names of every call, in order (`""` for a name that is not a string): the one
    /// reading of a call's name (`stats`, `check`, `files` and `diff` ask the index).
    pub names: Box<[Shared]>,
}

/// Where values of a message are in its line, as the loader's fast reader saw them: the
/// last occurrence of each key in the line's (last) `message` object. Readers of these
/// values (usage reports, previews) go straight to them instead of walking the line again.
/// An offset is never 0: a line starts with `{`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MessageAt {
    /// `usage`: the byte offset of its value and its length.
    pub usage: Option<(u32, u32)>,
    /// Byte offsets of the values of `content`, `toolName`, `stopReason` and `command`.
    pub content: Option<NonZeroU32>,
    pub tool_name: Option<NonZeroU32>,
    pub stop_reason: Option<NonZeroU32>,
    pub command: Option<NonZeroU32>,
    /// `isError` is `true`.
    pub is_error: bool,
    /// `content` is an array none of whose blocks writes its `type` or `text` twice: a
    /// reader of a block can take the first occurrence of either as the last, and stop once
    /// it has what it needs (a preview reads the start of a long text, not to its end).
    pub plain_blocks: bool,
    /// Besides [`Self::plain_blocks`]: no block writes its `name` or `arguments` twice, and
    /// no `arguments` object writes a key twice (each key written without escapes). A
    /// preview of tool calls can then show them as they come, and stop once it is full (a
    /// `write`'s long content is not walked).
    pub plain_calls: bool,
    /// A text block comes after a tool call block (a preview, which shows the text before
    /// the calls, then reads the blocks twice).
    pub text_after_call: bool,
}

/// Per-type fields the index keeps.
#[derive(Debug, Clone, Default)]
pub enum Detail {
    #[default]
    None,
    Message {
        role: Option<Role>,
        /// `provider` and `model` of assistant messages: the model in effect.
        provider: Option<Shared>,
        model: Option<Shared>,
        /// Tool calls of an assistant message, or the call a tool result answers.
        tools: Tools,
        /// `responseModel` (the model that answered, when the provider resolved one).
        response_model: Option<Shared>,
        /// Where the message's values are in the line (`None`: the line was read by a
        /// slower reader; read the line to find out).
        at: Option<MessageAt>,
    },
    Label {
        target: Option<Sym>,
        /// `None` clears the target's label (Pi clears on any falsy label).
        label: Option<Box<str>>,
    },
    Custom {
        custom_type: Option<Box<str>>,
    },
    Compaction {
        first_kept: Option<Sym>,
        tokens_before: Option<f64>,
    },
    BranchSummary {
        from: Option<Box<str>>,
    },
    SessionInfo {
        name: Option<Box<str>>,
    },
    ContextEdit {
        target: Option<Sym>,
    },
    ModelChange {
        provider: Option<Shared>,
        model_id: Option<Shared>,
    },
    ThinkingLevel {
        level: Option<Box<str>>,
    },
}

/// One entry line of a session file.
#[derive(Debug, Clone)]
pub struct Entry {
    /// 1-based line number in the file.
    pub line: u32,
    /// Byte range of the line in the file, without its `\n` (a trailing `\r` stays).
    pub start: u64,
    pub end: u64,
    pub kind: EntryKind,
    pub id: Option<Sym>,
    pub parent: Option<Sym>,
    pub timestamp: Option<Box<str>>,
    pub detail: Detail,
}

/// The customType of pi-session's own checkout records.
pub const CHECKOUT_CUSTOM_TYPE: &str = "pi-session.checkout";

impl Entry {
    pub fn role(&self) -> Option<&Role> {
        match &self.detail {
            Detail::Message { role, .. } => role.as_ref(),
            _ => None,
        }
    }

    /// Where the loader saw a message's values (`None`: not a message, or not recorded).
    pub fn message_at(&self) -> Option<&MessageAt> {
        match &self.detail {
            Detail::Message { at, .. } => at.as_ref(),
            _ => None,
        }
    }

    pub fn is_role(&self, r: &Role) -> bool {
        self.role() == Some(r)
    }

    pub fn is_system_message(&self) -> bool {
        self.is_role(&Role::System)
    }

    pub fn custom_type(&self) -> Option<&str> {
        match &self.detail {
            Detail::Custom { custom_type } => custom_type.as_deref(),
            _ => None,
        }
    }

    /// A pi-session checkout record (`custom` entry of type `pi-session.checkout`).
    pub fn is_checkout(&self) -> bool {
        self.kind == EntryKind::Custom && self.custom_type() == Some(CHECKOUT_CUSTOM_TYPE)
    }

    /// Bookkeeping at the tip that `@` steps over: labels and checkout records.
    pub fn is_tip_bookkeeping(&self) -> bool {
        self.kind == EntryKind::Label || self.is_checkout()
    }

    /// The short name shown for the entry's kind: the role for messages, else the type.
    pub fn kind_name(&self) -> &str {
        match (&self.kind, self.role()) {
            (EntryKind::Message, Some(role)) => role.as_str(),
            (kind, _) => kind.as_str().unwrap_or("(untyped)"),
        }
    }
}

/// Interned entry ids: every id's text once, in one buffer, and a table of symbols hashed
/// by that text (a few bytes per id, no allocation per id).
#[derive(Default)]
pub struct IdTable {
    /// Every interned id, one after another.
    text: String,
    /// End of each id in `text` (its start is the previous end).
    ends: Vec<usize>,
    /// Symbols, hashed by their text.
    table: hashbrown::HashTable<u32>,
}

fn id_hash(s: &str) -> u64 {
    use std::hash::BuildHasher;
    rustc_hash::FxBuildHasher.hash_one(s)
}

fn name_in<'a>(text: &'a str, ends: &[usize], i: u32) -> &'a str {
    let i = i as usize;
    let start = if i == 0 { 0 } else { ends[i - 1] };
    &text[start..ends[i]]
}

impl IdTable {
    /// A table with room for `ids` ids of about 8 bytes without growing.
    pub fn with_capacity(ids: usize) -> IdTable {
        IdTable {
            text: String::with_capacity(ids * 8),
            ends: Vec::with_capacity(ids),
            table: hashbrown::HashTable::with_capacity(ids),
        }
    }

    pub fn intern(&mut self, s: &str) -> Sym {
        let hash = id_hash(s);
        let IdTable { text, ends, table } = self;
        // One probe finds the id or the slot for it.
        match table.entry(
            hash,
            |&i| name_in(text, ends, i) == s,
            |&j| id_hash(name_in(text, ends, j)),
        ) {
            hashbrown::hash_table::Entry::Occupied(o) => Sym(*o.get()),
            hashbrown::hash_table::Entry::Vacant(v) => {
                let i = ends.len() as u32;
                text.push_str(s);
                ends.push(text.len());
                v.insert(i);
                Sym(i)
            }
        }
    }

    pub fn get(&self, s: &str) -> Option<Sym> {
        self.table
            .find(id_hash(s), |&i| name_in(&self.text, &self.ends, i) == s)
            .map(|&i| Sym(i))
    }

    pub fn name(&self, sym: Sym) -> &str {
        name_in(&self.text, &self.ends, sym.0)
    }

    /// How many ids are interned (symbols are `0..len`).
    pub fn len(&self) -> usize {
        self.ends.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ends.is_empty()
    }

    pub fn iter(&self) -> impl Iterator<Item = (Sym, &str)> {
        (0..self.ends.len() as u32).map(|i| (Sym(i), name_in(&self.text, &self.ends, i)))
    }
}

impl std::fmt::Debug for IdTable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "IdTable({} ids)", self.len())
    }
}

/// Strings many entries share (providers, models), held once.
pub type Shared = std::sync::Arc<str>;

#[cfg(test)]
mod tests {
    use super::*;

    /// The index holds one entry per line: its size is what loading a large file touches.
    #[test]
    fn entries_stay_small() {
        assert!(std::mem::size_of::<Entry>() <= 192, "{}", std::mem::size_of::<Entry>());
    }

    #[test]
    fn interning_gives_one_symbol_per_text() {
        let mut t = IdTable::default();
        let a = t.intern("a1b2c3d4");
        let b = t.intern("");
        let c = t.intern("x");
        assert_eq!(t.intern("a1b2c3d4"), a);
        assert_eq!(t.intern(""), b);
        assert_ne!(a, c);
        assert_eq!(t.name(a), "a1b2c3d4");
        assert_eq!(t.name(b), "");
        assert_eq!(t.name(c), "x");
        assert_eq!(t.get("x"), Some(c));
        assert_eq!(t.get("y"), None);
        assert_eq!(t.len(), 3);
        for i in 0..5000 {
            t.intern(&format!("id{i:05}"));
        }
        assert_eq!(t.get("id04999").map(|s| t.name(s)), Some("id04999"));
        assert_eq!(t.get("a1b2c3d4"), Some(a));
        let names: Vec<_> = t.iter().take(3).map(|(s, n)| (s.0, n.to_owned())).collect();
        assert_eq!(names, [(0, "a1b2c3d4".into()), (1, "".into()), (2, "x".into())]);
    }
}
