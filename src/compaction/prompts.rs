//! Our wording of the summary prompts. The structure is Pi's (the same sections, the same
//! tags around the conversation and the previous summary), so summaries written here read
//! like Pi's own.

pub const SYSTEM: &str = "You write checkpoint summaries of conversations between a user and an AI coding \
assistant. Another model will read your summary in place of the conversation and carry on the work.\n\n\
Only summarize. Do not answer questions from the conversation, do not continue it, and do not call tools.";

const SECTIONS: &str = "## Goal
[What the user wants to achieve; several items if the session covers several tasks.]

## Constraints & Preferences
- [Requirements, constraints and preferences the user stated, or \"(none)\"]

## Progress
### Done
- [x] [Finished tasks and changes]

### In Progress
- [ ] [Work under way]

### Blocked
- [What stands in the way, if anything]

## Key Decisions
- **[Decision]**: [Why, in a few words]

## Next Steps
1. [What should happen next, in order]

## Critical Context
- [Data, examples and references needed to continue, or \"(none)\"]

Be brief in every section. Keep file paths, function names and error messages exactly as written.";

/// Instructions for a first summary.
pub fn new_summary() -> String {
    format!(
        "Write a checkpoint summary of the conversation in <conversation> for the model that will continue \
         this work. Use exactly this structure:\n\n{SECTIONS}"
    )
}

/// Instructions for updating a previous summary with newer messages.
pub fn update_summary() -> String {
    format!(
        "The conversation in <conversation> continues the work summarized in <previous-summary>. Write the \
         updated checkpoint summary:\n\
         - keep everything from the previous summary that still matters;\n\
         - add the new progress, decisions and context;\n\
         - move items from \"In Progress\" to \"Done\" once they are finished, and update \"Next Steps\";\n\
         - keep file paths, function names and error messages exactly as written;\n\
         - drop what is no longer relevant.\n\n\
         Use exactly this structure:\n\n{SECTIONS}"
    )
}

/// Instructions for the start of a turn that the cut splits.
pub const TURN_PREFIX: &str = "The messages above are the beginning of a turn whose later messages are kept \
separately; they need not be reconstructed. Write a short checkpoint of this beginning, to be placed before the \
kept messages so the conversation can go on:

## Original Request
[What the user asked for]

## Progress So Far
- [Decisions made and work done in these messages]

## Context Needed to Continue
- [What the later messages need from these to make sense]

Use only what the messages above say; do not guess at what came later.";

/// Instructions for summarizing a branch being left.
pub const BRANCH: &str = "Write a summary of this conversation branch, to keep as context when the conversation \
returns to it later. Use exactly this structure:

## Goal
[What the user was trying to achieve on this branch]

## Constraints & Preferences
- [Requirements, constraints and preferences stated, or \"(none)\"]

## Progress
### Done
- [x] [Finished tasks and changes]

### In Progress
- [ ] [Work started but not finished]

### Blocked
- [What stood in the way, if anything]

## Key Decisions
- **[Decision]**: [Why, in a few words]

## Next Steps
1. [What should happen next to continue this work]

Be brief in every section. Keep file paths, function names and error messages exactly as written.";

/// Put before a branch summary, so the model knows where it comes from.
pub const BRANCH_PREAMBLE: &str = "The user explored another branch of this conversation before coming back \
here. What happened on that branch:\n\n";

/// How a history summary and a turn-prefix summary are joined (Pi's layout).
pub fn merge_split_turn(history: &str, turn_prefix: &str) -> String {
    format!("{history}\n\n---\n\n**Turn Context (split turn):**\n\n{turn_prefix}")
}

/// Appends the user's focus, as Pi does.
pub fn with_focus(instructions: String, focus: Option<&str>) -> String {
    match focus.filter(|f| !f.trim().is_empty()) {
        Some(f) => format!("{instructions}\n\nAdditional focus: {f}"),
        None => instructions,
    }
}
