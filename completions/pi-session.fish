# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_pi_session_global_optspecs
    string join \n s/session= color= no-pager h/help V/version
end

function __fish_pi_session_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_pi_session_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_pi_session_using_subcommand
    set -l cmd (__fish_pi_session_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c pi-session -n "__fish_pi_session_needs_command" -s s -l session -d 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several' -r
complete -c pi-session -n "__fish_pi_session_needs_command" -l color -d 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c pi-session -n "__fish_pi_session_needs_command" -l no-pager -d 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
complete -c pi-session -n "__fish_pi_session_needs_command" -s h -l help -d 'Print help'
complete -c pi-session -n "__fish_pi_session_needs_command" -s V -l version -d 'Print version'
complete -c pi-session -n "__fish_pi_session_needs_command" -f -a "log" -d 'Show a branch, newest entry first'
complete -c pi-session -n "__fish_pi_session_needs_command" -f -a "tree" -d 'Show the whole session tree, as Pi\'s /tree shows it'
complete -c pi-session -n "__fish_pi_session_needs_command" -f -a "show" -d 'Show entries in full: every content block, tool-call arguments, model, usage and cost'
complete -c pi-session -n "__fish_pi_session_needs_command" -f -a "context" -d 'Show exactly the messages Pi 1.6.0 sends to the model with the leaf at REV'
complete -c pi-session -n "__fish_pi_session_needs_command" -f -a "rev-parse" -d 'Print the full ids that revisions name, one per line'
complete -c pi-session -n "__fish_pi_session_needs_command" -f -a "diff" -d 'Compare two branches: where they part, and what each did after'
complete -c pi-session -n "__fish_pi_session_needs_command" -f -a "merge-base" -d 'Print the newest entry two branches share: their merge base'
complete -c pi-session -n "__fish_pi_session_needs_command" -f -a "checkout" -d 'Move @ to another entry, persistently, so Pi continues from there'
complete -c pi-session -n "__fish_pi_session_needs_command" -f -a "label" -d 'Set, clear or list labels: names for entries that work as revisions'
complete -c pi-session -n "__fish_pi_session_needs_command" -f -a "name" -d 'Print or set the session\'s name, as Pi\'s /name does'
complete -c pi-session -n "__fish_pi_session_needs_command" -f -a "mv" -d 'Move sessions to another project directory (a project that was moved or renamed)'
complete -c pi-session -n "__fish_pi_session_needs_command" -f -a "import" -d 'Bring Claude Code or Codex CLI sessions into Pi, tree and all'
complete -c pi-session -n "__fish_pi_session_needs_command" -f -a "clone" -d 'Copy the branch ending at REV into a new session file, as Pi\'s /clone does'
complete -c pi-session -n "__fish_pi_session_needs_command" -f -a "fork" -d 'Start a new session from just before a user message, as Pi\'s /fork does'
complete -c pi-session -n "__fish_pi_session_needs_command" -f -a "repair" -d 'Check a session file for defects and fix them in place, losing nothing'
complete -c pi-session -n "__fish_pi_session_needs_command" -f -a "prune" -d 'Delete branches from a session\'s tree, as `git branch -D` deletes a branch'
complete -c pi-session -n "__fish_pi_session_needs_command" -f -a "compact" -d 'Compact the conversation: summarize old history, keep recent messages, as Pi\'s /compact'
complete -c pi-session -n "__fish_pi_session_needs_command" -f -a "summarize-branch" -d 'Leave @ for TARGET, keeping a summary of the branch being left, as Pi\'s /tree does'
complete -c pi-session -n "__fish_pi_session_needs_command" -f -a "ls" -d 'List sessions as Pi\'s /resume does, most recently active first'
complete -c pi-session -n "__fish_pi_session_needs_command" -f -a "archive" -d 'Move sessions out of Pi\'s session folders into an archive beside them, or back'
complete -c pi-session -n "__fish_pi_session_needs_command" -f -a "rm" -d 'Move sessions to the trash, where file managers list them and can put them back'
complete -c pi-session -n "__fish_pi_session_needs_command" -f -a "stats" -d 'Tokens and cost of every paid call recorded in the session'
complete -c pi-session -n "__fish_pi_session_needs_command" -f -a "files" -d 'The files the branch read, edited and wrote, each with the entry that touched it last'
complete -c pi-session -n "__fish_pi_session_needs_command" -f -a "check" -d 'Check sessions against budgets and rules, for CI'
complete -c pi-session -n "__fish_pi_session_needs_command" -f -a "usage" -d 'What sessions cost, across every project: tokens and cost by day, week, month, session, project, model, provider or source'
complete -c pi-session -n "__fish_pi_session_needs_command" -f -a "secrets" -d 'Find the credentials sessions have recorded: API keys, tokens, private keys, passwords'
complete -c pi-session -n "__fish_pi_session_needs_command" -f -a "redact" -d 'Take the credentials `secrets` finds out of session files, in place'
complete -c pi-session -n "__fish_pi_session_needs_command" -f -a "slim" -d 'Move the heavy payloads the model no longer sees out of session files, in place'
complete -c pi-session -n "__fish_pi_session_needs_command" -f -a "grep" -d 'Search the text of a session with a regular expression, as ripgrep searches files'
complete -c pi-session -n "__fish_pi_session_needs_command" -f -a "export" -d 'Export a branch as a readable transcript: Markdown, or one self-contained HTML file'
complete -c pi-session -n "__fish_pi_session_needs_command" -f -a "completions" -d 'Print the completion script of a shell'
complete -c pi-session -n "__fish_pi_session_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c pi-session -n "__fish_pi_session_using_subcommand log" -s n -l max-count -d 'Show at most N entries' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand log" -l type -d 'Only entries of these types (repeat or separate with commas)' -r -f -a "message\t''
model_change\t''
thinking_level_change\t''
compaction\t''
branch_summary\t''
custom\t''
custom_message\t''
label\t''
session_info\t''
context_edit\t''
usage\t''"
complete -c pi-session -n "__fish_pi_session_using_subcommand log" -l role -d 'Only messages with these roles (repeat or separate with commas)' -r -f -a "user\t''
assistant\t''
toolResult\t''
bashExecution\t''
custom\t''
system\t''
branchSummary\t''
compactionSummary\t''"
complete -c pi-session -n "__fish_pi_session_using_subcommand log" -l max-chars -d 'With --long: cut tool results and command output after this many characters' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand log" -l since -d 'Only entries from DATE on, by their timestamp: a day (2026-11-30, 20261130, today, yesterday, 7d, 2w) from its first instant, a date and time (2026-11-30T14:00, \'2026-11-30 14:00:05\'; with Z or +02:00, else local time), or a time ago (\'3 days ago\', 2.weeks.ago, \'90 minutes ago\', 1h, 90min, now: units second, minute, hour, day, week, month, year). Entries without a readable timestamp are left out. (With --all, an entry id here is taken as --after ID, with a deprecation note: that spelling goes in the next release.)' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand log" -l until -d 'Only entries up to DATE, by their timestamp: a day through its last instant, else the moment named (the forms of --since)' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand log" -l after -d 'With --all: only entries appended after the entry with this id (a cursor for polling)' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand log" -l format -d 'One line per entry from TEMPLATE, with these placeholders: %H id, %h short id (8 characters), %P parent id, %t time (local, as log shows it), %T timestamp as written, %y type, %r role, %K kind (the role of a message, else the type), %m model (of an assistant message or a model change), %l label, %k tokens (the totalTokens of the call the entry records), %s the first line of the entry\'s text, %n newline, %% percent. A field an entry lacks is empty; control characters are escaped' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand log" -s s -l session -d 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand log" -l color -d 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c pi-session -n "__fish_pi_session_using_subcommand log" -l reverse -d 'Oldest first'
complete -c pi-session -n "__fish_pi_session_using_subcommand log" -l long -d 'Show each entry in full: text, thinking, tool calls with arguments, tool results'
complete -c pi-session -n "__fish_pi_session_using_subcommand log" -l json -d 'Print each entry\'s original line, byte for byte (NDJSON)'
complete -c pi-session -n "__fish_pi_session_using_subcommand log" -l all -d 'Every entry of the file in append order, not one branch (like Pi\'s RPC get_entries)'
complete -c pi-session -n "__fish_pi_session_using_subcommand log" -l oneline -d 'One short line per entry: short id, kind (the role of a message, else the type), (@) and [label] when they apply, and the first line of the entry\'s text, fitted to the terminal (off a terminal, to $COLUMNS, else 200 columns)'
complete -c pi-session -n "__fish_pi_session_using_subcommand log" -s f -l follow -d 'After what log prints, print each entry as Pi appends it, until Ctrl-C (status 0). New entries come in append order: with --all every one, else those on the branch of @ as it moves (a notice on stderr when @ moves to another branch). -n and --reverse apply to the first part only. With --json, one original line per entry, flushed at once. A file replaced, cut or rewritten (repair, Pi\'s migration) is read again with a notice on stderr, and only entries whose ids were not seen yet are printed'
complete -c pi-session -n "__fish_pi_session_using_subcommand log" -l wait -d 'With --follow: wait for a session file that does not exist yet (a path given with -s, or the first session of the current directory)'
complete -c pi-session -n "__fish_pi_session_using_subcommand log" -l no-pager -d 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
complete -c pi-session -n "__fish_pi_session_using_subcommand log" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-session -n "__fish_pi_session_using_subcommand log" -s V -l version -d 'Print version'
complete -c pi-session -n "__fish_pi_session_using_subcommand tree" -s n -l max-count -d 'Show at most N rows (the first N in display order)' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand tree" -l depth -d 'Show only rows at most N forks deep: 0 is the trunk (the rows up to the first fork, the fork included), 1 adds the branches of those forks, and so on. A fork is a row with two or more children in the view shown, where the tree indents. A row whose rows below were cut ends with (+K rows). Applied before -n' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand tree" -s s -l session -d 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand tree" -l color -d 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c pi-session -n "__fish_pi_session_using_subcommand tree" -l all -d 'Show every entry'
complete -c pi-session -n "__fish_pi_session_using_subcommand tree" -l user -d 'Show only user messages'
complete -c pi-session -n "__fish_pi_session_using_subcommand tree" -l json -d 'One row per line (NDJSON), in display order: {"id","parentId","depth","type","role","label","timestamp","current","children"}; `current` marks @, `children` counts the row\'s visible children (with --depth, those cut off too). `depth` counts the row\'s ancestors, not forks'
complete -c pi-session -n "__fish_pi_session_using_subcommand tree" -l no-pager -d 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
complete -c pi-session -n "__fish_pi_session_using_subcommand tree" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-session -n "__fish_pi_session_using_subcommand tree" -s V -l version -d 'Print version'
complete -c pi-session -n "__fish_pi_session_using_subcommand show" -l max-chars -d 'Cut tool results and command output after this many characters' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand show" -s s -l session -d 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand show" -l color -d 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c pi-session -n "__fish_pi_session_using_subcommand show" -l json -d 'Print each entry\'s original line, byte for byte (one line per revision)'
complete -c pi-session -n "__fish_pi_session_using_subcommand show" -l no-pager -d 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
complete -c pi-session -n "__fish_pi_session_using_subcommand show" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-session -n "__fish_pi_session_using_subcommand show" -s V -l version -d 'Print version'
complete -c pi-session -n "__fish_pi_session_using_subcommand context" -l max-chars -d 'Cut tool results and command output after this many characters' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand context" -s s -l session -d 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand context" -l color -d 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c pi-session -n "__fish_pi_session_using_subcommand context" -l json -d 'One message object per line, field for field what Pi builds (NDJSON)'
complete -c pi-session -n "__fish_pi_session_using_subcommand context" -l no-pager -d 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
complete -c pi-session -n "__fish_pi_session_using_subcommand context" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-session -n "__fish_pi_session_using_subcommand context" -s V -l version -d 'Print version'
complete -c pi-session -n "__fish_pi_session_using_subcommand rev-parse" -s s -l session -d 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand rev-parse" -l color -d 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c pi-session -n "__fish_pi_session_using_subcommand rev-parse" -l leaf -d 'Print Pi\'s literal leaf: the last entry of the file'
complete -c pi-session -n "__fish_pi_session_using_subcommand rev-parse" -l no-pager -d 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
complete -c pi-session -n "__fish_pi_session_using_subcommand rev-parse" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-session -n "__fish_pi_session_using_subcommand rev-parse" -s V -l version -d 'Print version'
complete -c pi-session -n "__fish_pi_session_using_subcommand diff" -s s -l session -d 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand diff" -l color -d 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c pi-session -n "__fish_pi_session_using_subcommand diff" -l stat -d 'Sum each side: entries, messages by role, tokens and cost, tools called'
complete -c pi-session -n "__fish_pi_session_using_subcommand diff" -l json -d 'NDJSON: a {"mergeBase", "left", "right"} record with the two tips\' ids, then one {"side", "id", "parentId", "type", "role", "timestamp", "preview"} record per entry (`side`: "left" or "right"); with --stat one {"side", "entries", "messages", "roles", "totalTokens", "cost", "tools"} record per side'
complete -c pi-session -n "__fish_pi_session_using_subcommand diff" -l no-pager -d 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
complete -c pi-session -n "__fish_pi_session_using_subcommand diff" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-session -n "__fish_pi_session_using_subcommand diff" -s V -l version -d 'Print version'
complete -c pi-session -n "__fish_pi_session_using_subcommand merge-base" -s s -l session -d 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand merge-base" -l color -d 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c pi-session -n "__fish_pi_session_using_subcommand merge-base" -l json -d 'One JSON object: {"mergeBase": ID or null}'
complete -c pi-session -n "__fish_pi_session_using_subcommand merge-base" -l no-pager -d 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
complete -c pi-session -n "__fish_pi_session_using_subcommand merge-base" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-session -n "__fish_pi_session_using_subcommand merge-base" -s V -l version -d 'Print version'
complete -c pi-session -n "__fish_pi_session_using_subcommand checkout" -l model -d 'The model that writes the summary, as PROVIDER/MODEL (anthropic, openai, google, openrouter, groq, xai, mistral, deepseek, a custom provider of Pi\'s models.json…). Default: Pi\'s defaultProvider/defaultModel settings, else the model in effect on the branch' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand checkout" -l base-url -d 'Send the request to this OpenAI-compatible endpoint (Ollama, llama.cpp, vLLM, …)' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand checkout" -l context-window -d 'The model\'s context window in tokens [default: what is known for the model, else 128000]' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand checkout" -l max-output-tokens -d 'The model\'s output limit in tokens [default: what is known for the model, else 16384]' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand checkout" -l instructions -d 'A focus for the summary, added to the instructions' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand checkout" -l timeout -d 'Give up on the model after SECONDS in all, retries and waits included (nothing is written)' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand checkout" -l summary-file -d 'Use this text as the summary instead of asking a model (`-` reads stdin)' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand checkout" -l summarizer -d 'Run CMD through the shell with the request on stdin; its stdout is the summary' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand checkout" -l expect-leaf -d 'Write nothing, and exit with status 4, unless Pi\'s leaf (the last entry) is ID' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand checkout" -s s -l session -d 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand checkout" -l color -d 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c pi-session -n "__fish_pi_session_using_subcommand checkout" -l empty -d 'Make the next message start a new root (an empty conversation)'
complete -c pi-session -n "__fish_pi_session_using_subcommand checkout" -l json -d 'Print {"at","from","abandoned","record"} as one JSON line (with --dry-run also "dryRun": true and "line", the line that would be appended)'
complete -c pi-session -n "__fish_pi_session_using_subcommand checkout" -l summarize -d 'Keep a summary of the branch being left, as `pi-session summarize-branch REV` does'
complete -c pi-session -n "__fish_pi_session_using_subcommand checkout" -l include-thinking -d 'Include assistant thinking in the text sent for summarizing (Pi leaves it out)'
complete -c pi-session -n "__fish_pi_session_using_subcommand checkout" -l dry-run -d 'Write nothing: show what would be written (for a summary, the plan)'
complete -c pi-session -n "__fish_pi_session_using_subcommand checkout" -l print-prompt -d 'Print what would be sent to the model and change nothing'
complete -c pi-session -n "__fish_pi_session_using_subcommand checkout" -l no-pager -d 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
complete -c pi-session -n "__fish_pi_session_using_subcommand checkout" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-session -n "__fish_pi_session_using_subcommand checkout" -s V -l version -d 'Print version'
complete -c pi-session -n "__fish_pi_session_using_subcommand label" -l expect-leaf -d 'Write nothing, and exit with status 4, unless Pi\'s leaf (the last entry) is ID' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand label" -s s -l session -d 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand label" -l color -d 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c pi-session -n "__fish_pi_session_using_subcommand label" -s d -l delete -d 'Clear the label of REV'
complete -c pi-session -n "__fish_pi_session_using_subcommand label" -s l -l list -d 'List the current labels: name, target id, preview (also what a bare `label` does)'
complete -c pi-session -n "__fish_pi_session_using_subcommand label" -l json -d 'When listing: one JSON object per label {"label","targetId","type","role","timestamp","preview"}; with --dry-run: the label entries that would be appended, one per line'
complete -c pi-session -n "__fish_pi_session_using_subcommand label" -s f -l force -d 'Move NAME here from the entry that has it (its label is cleared)'
complete -c pi-session -n "__fish_pi_session_using_subcommand label" -l dry-run -d 'Print the label entries that would be appended, and write nothing'
complete -c pi-session -n "__fish_pi_session_using_subcommand label" -l no-pager -d 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
complete -c pi-session -n "__fish_pi_session_using_subcommand label" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-session -n "__fish_pi_session_using_subcommand label" -s V -l version -d 'Print version'
complete -c pi-session -n "__fish_pi_session_using_subcommand name" -l model -d 'The model that writes the summary, as PROVIDER/MODEL (anthropic, openai, google, openrouter, groq, xai, mistral, deepseek, a custom provider of Pi\'s models.json…). Default: Pi\'s defaultProvider/defaultModel settings, else the model in effect on the branch' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand name" -l base-url -d 'Send the request to this OpenAI-compatible endpoint (Ollama, llama.cpp, vLLM, …)' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand name" -l context-window -d 'The model\'s context window in tokens [default: what is known for the model, else 128000]' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand name" -l max-output-tokens -d 'The model\'s output limit in tokens [default: what is known for the model, else 16384]' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand name" -l instructions -d 'A focus for the summary, added to the instructions' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand name" -l timeout -d 'Give up on the model after SECONDS in all, retries and waits included (nothing is written)' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand name" -l summary-file -d 'Use this text as the summary instead of asking a model (`-` reads stdin)' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand name" -l summarizer -d 'Run CMD through the shell with the request on stdin; its stdout is the summary' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand name" -l expect-leaf -d 'Write nothing, and exit with status 4, unless Pi\'s leaf (the last entry) is ID' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand name" -s s -l session -d 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand name" -l color -d 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c pi-session -n "__fish_pi_session_using_subcommand name" -l clear -d 'Clear the name (an empty session_info name, as Pi writes it)'
complete -c pi-session -n "__fish_pi_session_using_subcommand name" -l generate -d 'Ask a model for a short title of the conversation and name the session with it'
complete -c pi-session -n "__fish_pi_session_using_subcommand name" -l all -d 'With --generate: every session of the current directory (or of every project, with --all-projects), with a progress bar and a summary'
complete -c pi-session -n "__fish_pi_session_using_subcommand name" -l all-projects -d 'With --all: every session of every project'
complete -c pi-session -n "__fish_pi_session_using_subcommand name" -l unnamed -d 'With --all: only sessions that have no name'
complete -c pi-session -n "__fish_pi_session_using_subcommand name" -l json -d 'One JSON object per session: {"path","name"} for a bare `name`; {"path","name", "previous","entryId","dryRun"} for a change'
complete -c pi-session -n "__fish_pi_session_using_subcommand name" -s f -l force -d 'Write even if the file changed in the last few seconds'
complete -c pi-session -n "__fish_pi_session_using_subcommand name" -l include-thinking -d 'Include assistant thinking in the text sent for summarizing (Pi leaves it out)'
complete -c pi-session -n "__fish_pi_session_using_subcommand name" -l dry-run -d 'Write nothing: show what would be written (for a summary, the plan)'
complete -c pi-session -n "__fish_pi_session_using_subcommand name" -l print-prompt -d 'Print what would be sent to the model and change nothing'
complete -c pi-session -n "__fish_pi_session_using_subcommand name" -l no-pager -d 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
complete -c pi-session -n "__fish_pi_session_using_subcommand name" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-session -n "__fish_pi_session_using_subcommand name" -s V -l version -d 'Print version'
complete -c pi-session -n "__fish_pi_session_using_subcommand mv" -l from -d 'Move every session of this project directory (and of the directories inside it)' -r -F
complete -c pi-session -n "__fish_pi_session_using_subcommand mv" -l to -d 'Where the project of --from is now' -r -F
complete -c pi-session -n "__fish_pi_session_using_subcommand mv" -s s -l session -d 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand mv" -l color -d 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c pi-session -n "__fish_pi_session_using_subcommand mv" -l copy -d 'Keep the old files: the new ones are copies'
complete -c pi-session -n "__fish_pi_session_using_subcommand mv" -l relink -d 'Point the `parentSession` of sessions that came from a moved file at its new path (their headers are rewritten, each with a backup)'
complete -c pi-session -n "__fish_pi_session_using_subcommand mv" -s f -l force -d 'Move a session changed in the last few seconds (Pi may have it open)'
complete -c pi-session -n "__fish_pi_session_using_subcommand mv" -l dry-run -d 'Print what would move, and write nothing'
complete -c pi-session -n "__fish_pi_session_using_subcommand mv" -l json -d 'One JSON object per session: {"from","to","oldCwd","newCwd","outcome"} ("moved", "rewritten", "resumed"; null in a dry run), then one per relinked session {"session","parentSession","backup"}'
complete -c pi-session -n "__fish_pi_session_using_subcommand mv" -l no-pager -d 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
complete -c pi-session -n "__fish_pi_session_using_subcommand mv" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-session -n "__fish_pi_session_using_subcommand mv" -s V -l version -d 'Print version'
complete -c pi-session -n "__fish_pi_session_using_subcommand import" -l from -d 'The agent whose sessions to read: claude (~/.claude/projects, or $CLAUDE_CONFIG_DIR/projects) or codex (~/.codex/sessions, or $CODEX_HOME/sessions)' -r -f -a "claude\t''
codex\t''"
complete -c pi-session -n "__fish_pi_session_using_subcommand import" -s o -l output -d 'Write the session here (`-` prints it on stdout); not with --all' -r -F
complete -c pi-session -n "__fish_pi_session_using_subcommand import" -s s -l session -d 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand import" -l color -d 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c pi-session -n "__fish_pi_session_using_subcommand import" -l all -d 'Every session of the other agent for the current directory not imported yet'
complete -c pi-session -n "__fish_pi_session_using_subcommand import" -l map-tools -d 'Map the obvious tools (Read, Write, Edit, Bash, shell, apply_patch) to Pi\'s built-ins, so that export, files and the compaction\'s file lists understand them'
complete -c pi-session -n "__fish_pi_session_using_subcommand import" -l dry-run -d 'Print the plan (entries by kind, what goes to custom entries, what is unknown), and write nothing'
complete -c pi-session -n "__fish_pi_session_using_subcommand import" -l json -d 'One JSON object per session: {"source","path","sessionId","entries","custom", "unknown","malformedLines","notes","dryRun","skipped"}'
complete -c pi-session -n "__fish_pi_session_using_subcommand import" -l no-pager -d 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
complete -c pi-session -n "__fish_pi_session_using_subcommand import" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-session -n "__fish_pi_session_using_subcommand import" -s V -l version -d 'Print version'
complete -c pi-session -n "__fish_pi_session_using_subcommand clone" -s o -l output -d 'Write the new session here instead of beside the source; `-` prints it on stdout. An existing file is never replaced without --force' -r -F
complete -c pi-session -n "__fish_pi_session_using_subcommand clone" -s s -l session -d 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand clone" -l color -d 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c pi-session -n "__fish_pi_session_using_subcommand clone" -l redact -d 'Take the credentials `secrets` finds (built-in rules, ./.gitleaks.toml, your own keys) out of what is written, as `redact` would; the session file is not changed'
complete -c pi-session -n "__fish_pi_session_using_subcommand clone" -s f -l force -d 'Replace the -o file if it exists (atomically: the new file is renamed over it)'
complete -c pi-session -n "__fish_pi_session_using_subcommand clone" -l dry-run -d 'Print the path and line count of the file that would be written, and write nothing'
complete -c pi-session -n "__fish_pi_session_using_subcommand clone" -l json -d 'Print {"path","parentSession","entries","message"} as one JSON line (with --dry-run, also "lines" and "dryRun")'
complete -c pi-session -n "__fish_pi_session_using_subcommand clone" -l no-pager -d 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
complete -c pi-session -n "__fish_pi_session_using_subcommand clone" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-session -n "__fish_pi_session_using_subcommand clone" -s V -l version -d 'Print version'
complete -c pi-session -n "__fish_pi_session_using_subcommand fork" -s o -l output -d 'Write the new session here instead of beside the source; `-` prints it on stdout. An existing file is never replaced without --force' -r -F
complete -c pi-session -n "__fish_pi_session_using_subcommand fork" -s s -l session -d 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand fork" -l color -d 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c pi-session -n "__fish_pi_session_using_subcommand fork" -s f -l force -d 'Replace the -o file if it exists (atomically: the new file is renamed over it)'
complete -c pi-session -n "__fish_pi_session_using_subcommand fork" -l dry-run -d 'Print the path and line count of the file that would be written, and write nothing'
complete -c pi-session -n "__fish_pi_session_using_subcommand fork" -l json -d 'Print {"path","parentSession","entries","message"} as one JSON line (with --dry-run, also "lines" and "dryRun")'
complete -c pi-session -n "__fish_pi_session_using_subcommand fork" -l no-pager -d 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
complete -c pi-session -n "__fish_pi_session_using_subcommand fork" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-session -n "__fish_pi_session_using_subcommand fork" -s V -l version -d 'Print version'
complete -c pi-session -n "__fish_pi_session_using_subcommand repair" -s s -l session -d 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand repair" -l color -d 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c pi-session -n "__fish_pi_session_using_subcommand repair" -l check -d 'Report only; exit 1 if a defect was found (warnings allowed). The repaired file is not built, so with --json `after` is null when there are defects'
complete -c pi-session -n "__fish_pi_session_using_subcommand repair" -l dry-run -d 'Show what would be done, write nothing'
complete -c pi-session -n "__fish_pi_session_using_subcommand repair" -l all -d 'Every session in the sessions directory, with a summary table'
complete -c pi-session -n "__fish_pi_session_using_subcommand repair" -l json -d 'One JSON object per finding {"path","line","lines","kind","severity","id","message","action"}, then one per file {"path","result","defects","warnings","backup","rejectsFile","carriedLines","after"}; `after` is how Pi reads the repaired file: {"leaf","at","branch","context_messages","entries"}'
complete -c pi-session -n "__fish_pi_session_using_subcommand repair" -l no-pager -d 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
complete -c pi-session -n "__fish_pi_session_using_subcommand repair" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-session -n "__fish_pi_session_using_subcommand repair" -s V -l version -d 'Print version'
complete -c pi-session -n "__fish_pi_session_using_subcommand prune" -s s -l session -d 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand prune" -l color -d 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c pi-session -n "__fish_pi_session_using_subcommand prune" -l empty -d 'Also drop the branches off @\'s branch that hold nothing but aborted or error replies'
complete -c pi-session -n "__fish_pi_session_using_subcommand prune" -l force -d 'Prune even when @\'s branch passes through REV (moving @ first) or the file changed in the last few seconds'
complete -c pi-session -n "__fish_pi_session_using_subcommand prune" -l dry-run -d 'List what would be dropped; write nothing'
complete -c pi-session -n "__fish_pi_session_using_subcommand prune" -l json -d 'One JSON object per dropped entry {"session", "id", "line", "kind", "reason" (rev, descendant, label, empty)}, then one for the file {"session", "result" (nothing, would-prune, pruned, failed), "dropped", "references" (kept entries naming a dropped one: [{"id", "kind", "refersTo"}]), "at", "movedAt", "record" (the id of a checkout record appended), "backup", "carriedLines", "error"}'
complete -c pi-session -n "__fish_pi_session_using_subcommand prune" -l no-pager -d 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
complete -c pi-session -n "__fish_pi_session_using_subcommand prune" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-session -n "__fish_pi_session_using_subcommand prune" -s V -l version -d 'Print version'
complete -c pi-session -n "__fish_pi_session_using_subcommand compact" -l keep-recent-tokens -d 'Tokens of recent conversation to keep [default: settings, else 20000]' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand compact" -l reserve-tokens -d 'Tokens kept free for the model\'s answer [default: settings, else 16384]' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand compact" -l model -d 'The model that writes the summary, as PROVIDER/MODEL (anthropic, openai, google, openrouter, groq, xai, mistral, deepseek, a custom provider of Pi\'s models.json…). Default: Pi\'s defaultProvider/defaultModel settings, else the model in effect on the branch' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand compact" -l base-url -d 'Send the request to this OpenAI-compatible endpoint (Ollama, llama.cpp, vLLM, …)' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand compact" -l context-window -d 'The model\'s context window in tokens [default: what is known for the model, else 128000]' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand compact" -l max-output-tokens -d 'The model\'s output limit in tokens [default: what is known for the model, else 16384]' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand compact" -l instructions -d 'A focus for the summary, added to the instructions' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand compact" -l timeout -d 'Give up on the model after SECONDS in all, retries and waits included (nothing is written)' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand compact" -l summary-file -d 'Use this text as the summary instead of asking a model (`-` reads stdin)' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand compact" -l summarizer -d 'Run CMD through the shell with the request on stdin; its stdout is the summary' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand compact" -l expect-leaf -d 'Write nothing, and exit with status 4, unless Pi\'s leaf (the last entry) is ID' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand compact" -s s -l session -d 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand compact" -l color -d 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c pi-session -n "__fish_pi_session_using_subcommand compact" -l if-needed -d 'Compact only when the context exceeds the context window minus reserveTokens'
complete -c pi-session -n "__fish_pi_session_using_subcommand compact" -l json -d 'With --dry-run: the plan as one JSON object {"compact":true,"firstKeptEntryId","isSplitTurn","tokensBefore","tokensKept","messagesToSummarize", "turnPrefixMessages","previousSummary","readFiles","modifiedFiles","keepRecentTokens"}, or {"compact":false,"reason"} when there is nothing to compact (reason: noEntries, alreadyCompacted, nothingToSummarize or notNeeded)'
complete -c pi-session -n "__fish_pi_session_using_subcommand compact" -l include-thinking -d 'Include assistant thinking in the text sent for summarizing (Pi leaves it out)'
complete -c pi-session -n "__fish_pi_session_using_subcommand compact" -l dry-run -d 'Write nothing: show what would be written (for a summary, the plan)'
complete -c pi-session -n "__fish_pi_session_using_subcommand compact" -l print-prompt -d 'Print what would be sent to the model and change nothing'
complete -c pi-session -n "__fish_pi_session_using_subcommand compact" -l no-pager -d 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
complete -c pi-session -n "__fish_pi_session_using_subcommand compact" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-session -n "__fish_pi_session_using_subcommand compact" -s V -l version -d 'Print version'
complete -c pi-session -n "__fish_pi_session_using_subcommand summarize-branch" -l reserve-tokens -d 'Tokens kept free for the model\'s answer [default: settings, else 16384]' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand summarize-branch" -l model -d 'The model that writes the summary, as PROVIDER/MODEL (anthropic, openai, google, openrouter, groq, xai, mistral, deepseek, a custom provider of Pi\'s models.json…). Default: Pi\'s defaultProvider/defaultModel settings, else the model in effect on the branch' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand summarize-branch" -l base-url -d 'Send the request to this OpenAI-compatible endpoint (Ollama, llama.cpp, vLLM, …)' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand summarize-branch" -l context-window -d 'The model\'s context window in tokens [default: what is known for the model, else 128000]' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand summarize-branch" -l max-output-tokens -d 'The model\'s output limit in tokens [default: what is known for the model, else 16384]' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand summarize-branch" -l instructions -d 'A focus for the summary, added to the instructions' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand summarize-branch" -l timeout -d 'Give up on the model after SECONDS in all, retries and waits included (nothing is written)' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand summarize-branch" -l summary-file -d 'Use this text as the summary instead of asking a model (`-` reads stdin)' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand summarize-branch" -l summarizer -d 'Run CMD through the shell with the request on stdin; its stdout is the summary' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand summarize-branch" -l expect-leaf -d 'Write nothing, and exit with status 4, unless Pi\'s leaf (the last entry) is ID' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand summarize-branch" -s s -l session -d 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand summarize-branch" -l color -d 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c pi-session -n "__fish_pi_session_using_subcommand summarize-branch" -l json -d 'With --dry-run: the plan as one JSON object {"target","parent" (where the summary goes: TARGET, or its parent for a user or custom message),"from" (Pi\'s leaf),"commonAncestor","entries","messages","totalTokens", "readFiles","modifiedFiles"}'
complete -c pi-session -n "__fish_pi_session_using_subcommand summarize-branch" -l include-thinking -d 'Include assistant thinking in the text sent for summarizing (Pi leaves it out)'
complete -c pi-session -n "__fish_pi_session_using_subcommand summarize-branch" -l dry-run -d 'Write nothing: show what would be written (for a summary, the plan)'
complete -c pi-session -n "__fish_pi_session_using_subcommand summarize-branch" -l print-prompt -d 'Print what would be sent to the model and change nothing'
complete -c pi-session -n "__fish_pi_session_using_subcommand summarize-branch" -l no-pager -d 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
complete -c pi-session -n "__fish_pi_session_using_subcommand summarize-branch" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-session -n "__fish_pi_session_using_subcommand summarize-branch" -s V -l version -d 'Print version'
complete -c pi-session -n "__fish_pi_session_using_subcommand ls" -s n -l max-count -d 'Show at most N sessions (the most recently modified)' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand ls" -s s -l session -d 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand ls" -l color -d 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c pi-session -n "__fish_pi_session_using_subcommand ls" -l all -d 'Sessions of every project, not only the current directory\'s'
complete -c pi-session -n "__fish_pi_session_using_subcommand ls" -l json -d 'One JSON object per session (NDJSON): path, id, name, firstMessage, messageCount, created, modified (ISO 8601 or null), cwd, parentSession, current (true for the session that commands run here without -s use); archived (true, only for an archived session); with --tree, depth (0 for a root)'
complete -c pi-session -n "__fish_pi_session_using_subcommand ls" -l tree -d 'Draw each session under the session it came from (its header\'s parentSession: clones, forks, subagents), with ├─ └─ │: roots in the usual order, children under their parent. A session whose parent is not listed is a root. With -n, the N most recent sessions are drawn'
complete -c pi-session -n "__fish_pi_session_using_subcommand ls" -l no-children -d 'Hide the sessions whose parent session is listed (subagents, clones, forks)'
complete -c pi-session -n "__fish_pi_session_using_subcommand ls" -l archived -d 'Also list the archived sessions (`pi-session archive`), marked `A`'
complete -c pi-session -n "__fish_pi_session_using_subcommand ls" -s v -l verbose -d 'Also show each session\'s path, creation time and parent session, and say on stderr how many files were skipped because they are not Pi sessions'
complete -c pi-session -n "__fish_pi_session_using_subcommand ls" -l no-cache -d 'Read every session file, neither using nor updating the cache. By default what was read from each file is kept in $XDG_CACHE_HOME/pi-session/listing.cache (or ~/.cache/pi-session/listing.cache) and used again while the file\'s size, modification time and inode are unchanged, so listing unchanged files costs a stat per file'
complete -c pi-session -n "__fish_pi_session_using_subcommand ls" -l no-pager -d 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
complete -c pi-session -n "__fish_pi_session_using_subcommand ls" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-session -n "__fish_pi_session_using_subcommand ls" -s V -l version -d 'Print version'
complete -c pi-session -n "__fish_pi_session_using_subcommand archive" -l older-than -d 'Every session of the current project (of every project with --all) whose last activity (ls\'s MODIFIED) is before AGE, in the forms `log --since` takes: a day (14d, 2w, 2026-11-30: before its first instant), a time ago (\'2 weeks\', \'90 minutes ago\', now), or a date and time. With --restore, of the archived sessions' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand archive" -s s -l session -d 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand archive" -l color -d 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c pi-session -n "__fish_pi_session_using_subcommand archive" -l all -d 'With --older-than: the sessions of every project. With --restore alone: every archived session'
complete -c pi-session -n "__fish_pi_session_using_subcommand archive" -l restore -d 'Move archived sessions back into Pi\'s folders'
complete -c pi-session -n "__fish_pi_session_using_subcommand archive" -l force -d 'Archive even a session changed in the last few seconds (a running Pi may have it open)'
complete -c pi-session -n "__fish_pi_session_using_subcommand archive" -l dry-run -d 'Print what would move; move nothing'
complete -c pi-session -n "__fish_pi_session_using_subcommand archive" -l json -d 'One JSON object per session moved (or that would be, with --dry-run): {"action" (archive, restore), "from", "to", "dryRun"}'
complete -c pi-session -n "__fish_pi_session_using_subcommand archive" -l no-pager -d 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
complete -c pi-session -n "__fish_pi_session_using_subcommand archive" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-session -n "__fish_pi_session_using_subcommand archive" -s V -l version -d 'Print version'
complete -c pi-session -n "__fish_pi_session_using_subcommand rm" -s s -l session -d 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand rm" -l color -d 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c pi-session -n "__fish_pi_session_using_subcommand rm" -l force -d 'Delete the sessions that cannot go to the trash (another file system, no trash), and take sessions changed in the last few seconds'
complete -c pi-session -n "__fish_pi_session_using_subcommand rm" -l dry-run -d 'Print what would be moved or deleted; touch nothing'
complete -c pi-session -n "__fish_pi_session_using_subcommand rm" -l json -d 'One JSON object per session: {"from", "to" (its place in the trash; null when deleted), "deleted", "dryRun"}'
complete -c pi-session -n "__fish_pi_session_using_subcommand rm" -l no-pager -d 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
complete -c pi-session -n "__fish_pi_session_using_subcommand rm" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-session -n "__fish_pi_session_using_subcommand rm" -s V -l version -d 'Print version'
complete -c pi-session -n "__fish_pi_session_using_subcommand stats" -s s -l session -d 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand stats" -l color -d 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c pi-session -n "__fish_pi_session_using_subcommand stats" -l branch -d 'Count only the calls on the branch of REV [default: @], not the whole file'
complete -c pi-session -n "__fish_pi_session_using_subcommand stats" -l json -d 'One JSON object: {"userMessages", "assistantMessages", "toolCalls", "toolResults", "totalMessages" (Pi\'s get_session_stats counts: every message entry, and the toolCall blocks of assistant messages), "compactions", "branchSummaries", "byTool" (per tool {"name", "calls", "results", "failed"}, most calls first), "contextUsage" (at REV or @: {"tokens", "contextWindow", "percent"}, tokens and percent null after a compaction no reply followed; null when the model\'s window is unknown), "total", "byModel", "bySource"}. Each total is {"input", "output", "cacheRead", "cacheWrite", "totalTokens", "cost": {"input", "output", "cacheRead", "cacheWrite", "total"}}; "byModel" lists them with "provider" and "model", "bySource" names them "assistant", "usage", "compaction", "branchSummary" and "toolResult"'
complete -c pi-session -n "__fish_pi_session_using_subcommand stats" -l no-pager -d 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
complete -c pi-session -n "__fish_pi_session_using_subcommand stats" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-session -n "__fish_pi_session_using_subcommand stats" -s V -l version -d 'Print version'
complete -c pi-session -n "__fish_pi_session_using_subcommand files" -s s -l session -d 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand files" -l color -d 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c pi-session -n "__fish_pi_session_using_subcommand files" -l all -d 'Every branch of the file, not only the branch of REV'
complete -c pi-session -n "__fish_pi_session_using_subcommand files" -l json -d 'One JSON object per file (NDJSON): "path", "op" ("read", "edited" or "written": how the last entry touched it), "entryId" (that entry\'s id, or its line number when it has none) and "modified" (true when some entry edited or wrote it)'
complete -c pi-session -n "__fish_pi_session_using_subcommand files" -l no-pager -d 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
complete -c pi-session -n "__fish_pi_session_using_subcommand files" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-session -n "__fish_pi_session_using_subcommand files" -s V -l version -d 'Print version'
complete -c pi-session -n "__fish_pi_session_using_subcommand check" -l config -d 'Budgets and rules from a TOML file, keys named as the options (max-cost = 2.5, paths = ["src/**"], no-secrets = true). Options given on the command line replace the file\'s' -r -F
complete -c pi-session -n "__fish_pi_session_using_subcommand check" -l max-cost -d 'At most this cost in US dollars, as `usage` sums it' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand check" -l max-tokens -d 'At most this many tokens over all paid calls' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand check" -l max-context -d 'The fullest context a reply reported is at most this percent of its model\'s window' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand check" -l max-tool-calls -d 'At most this many tool calls' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand check" -l max-turns -d 'At most this many turns (assistant messages: one model call each)' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand check" -l max-tool-errors -d 'At most this many tool results are errors' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand check" -l forbid-tool -d 'These tools are never called' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand check" -l require-tool -d 'These tools are each called at least once' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand check" -l paths -d 'Every file an edit or write call changed matches these gitignore-style globs, from the session\'s cwd: `*.md` at any depth, `/build` or `src/*.rs` from the top, `docs/` a directory, `!GLOB` an exception' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand check" -l gitleaks-config -d 'Rules in gitleaks\' format for --no-secrets [default: ./.gitleaks.toml if any]' -r -F
complete -c pi-session -n "__fish_pi_session_using_subcommand check" -l format -d 'How to print the verdicts: `human`, or `github` (GitHub Actions annotations, `::error file=…,line=…,title=…::…`, one per failed rule)' -r -f -a "human\t''
github\t''"
complete -c pi-session -n "__fish_pi_session_using_subcommand check" -l junit -d 'Also write the verdicts as JUnit XML to FILE (one testsuite per session, one testcase per rule, a failure per failed rule)' -r -F
complete -c pi-session -n "__fish_pi_session_using_subcommand check" -s s -l session -d 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand check" -l color -d 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c pi-session -n "__fish_pi_session_using_subcommand check" -l all -d 'Every session of the current project [default: those -s names (repeatable), else the most recent session of the current directory]'
complete -c pi-session -n "__fish_pi_session_using_subcommand check" -l no-tool-errors -d 'No tool result is an error'
complete -c pi-session -n "__fish_pi_session_using_subcommand check" -l no-secrets -d 'No credential is recorded (the `secrets` scan; see --gitleaks-config, --no-own-keys)'
complete -c pi-session -n "__fish_pi_session_using_subcommand check" -l valid -d 'Nothing `repair --check` calls a defect'
complete -c pi-session -n "__fish_pi_session_using_subcommand check" -l branch -d 'Budgets and tool rules count only the branch of @ (what the model saw)'
complete -c pi-session -n "__fish_pi_session_using_subcommand check" -l no-own-keys -d '--no-secrets does not look for the values of your own keys'
complete -c pi-session -n "__fish_pi_session_using_subcommand check" -l json -d 'One JSON object per rule and session (NDJSON): {"session", "rule", "limit", "value", "pass", "entries": [{"id", "line", "note"}]}, or {"session", "error"}'
complete -c pi-session -n "__fish_pi_session_using_subcommand check" -l force -d 'Replace the --junit file if it exists (atomically)'
complete -c pi-session -n "__fish_pi_session_using_subcommand check" -l no-cache -d 'Check every file again. By default the verdicts on files unchanged since a run under the same policy come from $XDG_CACHE_HOME/pi-session/check.cache (or ~/.cache/…)'
complete -c pi-session -n "__fish_pi_session_using_subcommand check" -l no-pager -d 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
complete -c pi-session -n "__fish_pi_session_using_subcommand check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-session -n "__fish_pi_session_using_subcommand check" -s V -l version -d 'Print version'
complete -c pi-session -n "__fish_pi_session_using_subcommand usage" -l by -d 'Group by these keys, in this order (repeat or separate with commas)' -r -f -a "day\t''
week\t''
month\t''
session\t''
project\t''
model\t''
provider\t''
source\t''"
complete -c pi-session -n "__fish_pi_session_using_subcommand usage" -l since -d 'Only calls from DATE on, as `log --since` takes it: a day (2026-11-30, 20261130, today, yesterday, 7d, 2w) from its first instant in the report\'s time zone, a date and time (2026-11-30T14:00; with Z or +02:00, else in the report\'s zone), or a time ago (\'3 days ago\', 2.weeks.ago, 1h, 90min)' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand usage" -l until -d 'Only calls up to DATE: a day through its last instant, else the moment named (the forms of --since)' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand usage" -s z -l timezone -d 'Take calendar days in this time zone (an IANA name such as Europe/Paris, or UTC) [default: the local time zone]' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand usage" -l project -d 'Only the sessions of this project folder (`.` for the current directory)' -r -F
complete -c pi-session -n "__fish_pi_session_using_subcommand usage" -s s -l session -d 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand usage" -l color -d 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c pi-session -n "__fish_pi_session_using_subcommand usage" -l archived -d 'Also read the archived sessions (`pi-session archive`) of every project, or of --project\'s'
complete -c pi-session -n "__fish_pi_session_using_subcommand usage" -l json -d 'One JSON object per group (NDJSON): each --by key (day and week as YYYY-MM-DD, the week by its Monday; month as YYYY-MM; session as the session id plus "path"; project as the cwd; model; provider; source as assistant, usage, compaction, branchSummary or toolResult), then "input", "output", "cacheRead", "cacheWrite", "totalTokens", "cost" and "calls"; last, {"total": true, ...} with the same counters'
complete -c pi-session -n "__fish_pi_session_using_subcommand usage" -l csv -d 'CSV with a header row; the last row holds the totals'
complete -c pi-session -n "__fish_pi_session_using_subcommand usage" -l no-cache -d 'Read every session file, neither using nor updating the cache. By default what was read from each file is kept in $XDG_CACHE_HOME/pi-session/usage.cache (or ~/.cache/pi-session/usage.cache) and used again while the file\'s size, modification time and inode are unchanged, so a report over unchanged files costs a stat per file'
complete -c pi-session -n "__fish_pi_session_using_subcommand usage" -l no-pager -d 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
complete -c pi-session -n "__fish_pi_session_using_subcommand usage" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-session -n "__fish_pi_session_using_subcommand usage" -s V -l version -d 'Print version'
complete -c pi-session -n "__fish_pi_session_using_subcommand secrets" -l config -d 'Rules in gitleaks\' configuration format (TOML [[rules]] and [allowlist]), e.g. a team\'s .gitleaks.toml [default: ./.gitleaks.toml when there is one]. Its rules replace the built-in ones unless it has `[extend] useDefault = true`; its allowlists apply' -r -F
complete -c pi-session -n "__fish_pi_session_using_subcommand secrets" -s s -l session -d 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand secrets" -l color -d 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c pi-session -n "__fish_pi_session_using_subcommand secrets" -l all -d 'Every session of every project [default: the session -s names (repeatable), else the most recent session of the current directory]'
complete -c pi-session -n "__fish_pi_session_using_subcommand secrets" -l archived -d 'With --all, also scan the archived sessions (`pi-session archive`)'
complete -c pi-session -n "__fish_pi_session_using_subcommand secrets" -l json -d 'One JSON object per finding: {"session", "line", "entry", "type", "path", "rule", "preview", "length"} (path: where in the entry, as message.content[2].arguments.command); and one per payload that cannot be read: {"session", "line", "entry", "path", "unscannable"}'
complete -c pi-session -n "__fish_pi_session_using_subcommand secrets" -l no-own-keys -d 'Do not look for the values of your own keys: the provider variables Pi reads (and any other *_API_KEY, *_TOKEN, *_SECRET variable) and the keys in Pi\'s auth.json'
complete -c pi-session -n "__fish_pi_session_using_subcommand secrets" -l no-pager -d 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
complete -c pi-session -n "__fish_pi_session_using_subcommand secrets" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-session -n "__fish_pi_session_using_subcommand secrets" -s V -l version -d 'Print version'
complete -c pi-session -n "__fish_pi_session_using_subcommand redact" -l config -d 'Rules in gitleaks\' configuration format (TOML [[rules]] and [allowlist]), e.g. a team\'s .gitleaks.toml [default: ./.gitleaks.toml when there is one]. Its rules replace the built-in ones unless it has `[extend] useDefault = true`; its allowlists apply' -r -F
complete -c pi-session -n "__fish_pi_session_using_subcommand redact" -s s -l session -d 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand redact" -l color -d 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c pi-session -n "__fish_pi_session_using_subcommand redact" -l all -d 'Every session of every project'
complete -c pi-session -n "__fish_pi_session_using_subcommand redact" -l dry-run -d 'Show what would be taken out; write nothing'
complete -c pi-session -n "__fish_pi_session_using_subcommand redact" -l no-backup -d 'Keep no backup of the original, so the secrets leave the file system\'s view (blocks the disk held may still hold them until reused)'
complete -c pi-session -n "__fish_pi_session_using_subcommand redact" -l json -d 'One JSON object per finding (as `secrets --json`), then one per file: {"session", "result" (clean, would-redact, redacted, failed), "redacted", "backup", "carriedLines", "error"}'
complete -c pi-session -n "__fish_pi_session_using_subcommand redact" -l no-own-keys -d 'Do not look for the values of your own keys: the provider variables Pi reads (and any other *_API_KEY, *_TOKEN, *_SECRET variable) and the keys in Pi\'s auth.json'
complete -c pi-session -n "__fish_pi_session_using_subcommand redact" -l no-pager -d 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
complete -c pi-session -n "__fish_pi_session_using_subcommand redact" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-session -n "__fish_pi_session_using_subcommand redact" -s V -l version -d 'Print version'
complete -c pi-session -n "__fish_pi_session_using_subcommand slim" -l max-output -d 'Move tool outputs longer than SIZE bytes (K, M, G: 1024s) [default: 64K]' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand slim" -s s -l session -d 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand slim" -l color -d 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c pi-session -n "__fish_pi_session_using_subcommand slim" -l all -d 'Every session of the current project (the working directory\'s, as `ls` lists them)'
complete -c pi-session -n "__fish_pi_session_using_subcommand slim" -l dry-run -d 'Show what would be moved (or put back), per kind; write nothing'
complete -c pi-session -n "__fish_pi_session_using_subcommand slim" -l in-context -d 'Also move the images still in the context at @: the model then sees the placeholder\'s text instead (for a session too heavy to resume otherwise)'
complete -c pi-session -n "__fish_pi_session_using_subcommand slim" -l restore -d 'Put back what an earlier slim moved out, from FILE.slim/'
complete -c pi-session -n "__fish_pi_session_using_subcommand slim" -l drop -d 'Delete what earlier slims moved out (FILE.slim/): it cannot be put back then. Asks first on a terminal'
complete -c pi-session -n "__fish_pi_session_using_subcommand slim" -s y -l yes -d 'With --drop: do not ask'
complete -c pi-session -n "__fish_pi_session_using_subcommand slim" -l force -d 'Rewrite a file even if it changed in the last few seconds'
complete -c pi-session -n "__fish_pi_session_using_subcommand slim" -l no-backup -d 'Keep no backup of the original'
complete -c pi-session -n "__fish_pi_session_using_subcommand slim" -l json -d 'One JSON object per payload {"session", "line", "id", "kind" (image, output), "bytes", "saved", "sha256" (null on a dry run), "inContext"}, then one per file: {"session", "result" (clean, would-slim, slimmed, would-restore, restored, dropped, failed), "moved", "saved", "store", "backup", "carriedLines", "missing", "error"}'
complete -c pi-session -n "__fish_pi_session_using_subcommand slim" -l no-pager -d 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
complete -c pi-session -n "__fish_pi_session_using_subcommand slim" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-session -n "__fish_pi_session_using_subcommand slim" -s V -l version -d 'Print version'
complete -c pi-session -n "__fish_pi_session_using_subcommand grep" -l role -d 'Only text of these roles (repeat or separate with commas)' -r -f -a "user\t''
assistant\t''
toolResult\t''
bashExecution\t''
custom\t''
system\t''
compaction\t''
branchSummary\t''
toolCall\t''"
complete -c pi-session -n "__fish_pi_session_using_subcommand grep" -s A -l after-context -d 'Show NUM lines after each match (within the same text: never from another entry)' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand grep" -s B -l before-context -d 'Show NUM lines before each match (within the same text: never from another entry)' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand grep" -s C -l context -d 'Show NUM lines before and after each match (-A and -B take precedence)' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand grep" -s m -l max-count -d 'At most NUM matching lines per session (the context after the last still shows)' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand grep" -s n -l limit -d 'At most N matching lines in all, across every session searched (the context after the last still shows); -N is -n N. Unlike ripgrep\'s -n (line numbers: here lines are named by their entry id, and --json gives line numbers), -n is a count, as in log, tree and ls' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand grep" -s s -l session -d 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand grep" -l color -d 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c pi-session -n "__fish_pi_session_using_subcommand grep" -l all-sessions -d 'Search every session of the current directory, newest first'
complete -c pi-session -n "__fish_pi_session_using_subcommand grep" -l all -d 'Search every session of every project (the sessions `ls --all` lists), in its order'
complete -c pi-session -n "__fish_pi_session_using_subcommand grep" -l archived -d 'With --all-sessions or --all, also search the archived sessions (`pi-session archive`)'
complete -c pi-session -n "__fish_pi_session_using_subcommand grep" -s i -l ignore-case -d 'Match case-insensitively'
complete -c pi-session -n "__fish_pi_session_using_subcommand grep" -s F -l fixed-strings -d 'Take PATTERN literally, not as a regular expression'
complete -c pi-session -n "__fish_pi_session_using_subcommand grep" -s w -l word-regexp -d 'Match only whole words: a match neither starts right after nor ends right before a word character (letters, digits and `_`, in any script)'
complete -c pi-session -n "__fish_pi_session_using_subcommand grep" -l tools -d 'Also search tool-call arguments (role toolCall), one `key: value` per line'
complete -c pi-session -n "__fish_pi_session_using_subcommand grep" -s q -l quiet -d 'Print nothing; exit 0 at the first match (the search stops there), even if a session could not be read, else 1'
complete -c pi-session -n "__fish_pi_session_using_subcommand grep" -l heading -d 'Each session\'s path on a line of its own above its lines (the default on a terminal, when paths are shown)'
complete -c pi-session -n "__fish_pi_session_using_subcommand grep" -l no-heading -d 'The session\'s path at the start of each line instead of above them (the default when stdout is not a terminal)'
complete -c pi-session -n "__fish_pi_session_using_subcommand grep" -s H -l with-filename -d 'Show the session\'s path even when one session is searched'
complete -c pi-session -n "__fish_pi_session_using_subcommand grep" -l no-filename -d 'Never show the session\'s path'
complete -c pi-session -n "__fish_pi_session_using_subcommand grep" -l json -d 'One JSON object per match (NDJSON): path, id, role, line (1-based, within that text), text (the line), start and end (byte offsets of the match in text). No context lines'
complete -c pi-session -n "__fish_pi_session_using_subcommand grep" -s c -l count -d 'Print SESSION:COUNT, the number of matching lines, for each session that matched'
complete -c pi-session -n "__fish_pi_session_using_subcommand grep" -s l -l files-with-matches -d 'Print only the paths of sessions that matched'
complete -c pi-session -n "__fish_pi_session_using_subcommand grep" -l no-pager -d 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
complete -c pi-session -n "__fish_pi_session_using_subcommand grep" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-session -n "__fish_pi_session_using_subcommand grep" -s V -l version -d 'Print version'
complete -c pi-session -n "__fish_pi_session_using_subcommand export" -l format -d 'md or html [default: html when FILE ends in .html or .htm, else md]' -r -f -a "md\t''
html\t''"
complete -c pi-session -n "__fish_pi_session_using_subcommand export" -s o -l output -d 'Write to FILE instead of stdout (`-` is stdout). The file is written atomically (a temp file linked into place) and never replaces an existing file without --force. HTML is not printed to a terminal without `-o -`' -r -F
complete -c pi-session -n "__fish_pi_session_using_subcommand export" -s s -l session -d 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand export" -l color -d 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c pi-session -n "__fish_pi_session_using_subcommand export" -s f -l force -d 'Replace the -o file if it exists (atomically: the new file is renamed over it)'
complete -c pi-session -n "__fish_pi_session_using_subcommand export" -l redact -d 'Take the credentials `secrets` finds (built-in rules, ./.gitleaks.toml, your own keys) out of what is written, as `redact` would; the session file is not changed'
complete -c pi-session -n "__fish_pi_session_using_subcommand export" -l all-branches -d 'Export the whole tree: the branch of REV (@) first, then every other branch from the entry it leaves, each entry once, with an outline of them all and links at each branch point'
complete -c pi-session -n "__fish_pi_session_using_subcommand export" -l no-pager -d 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
complete -c pi-session -n "__fish_pi_session_using_subcommand export" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-session -n "__fish_pi_session_using_subcommand export" -s V -l version -d 'Print version'
complete -c pi-session -n "__fish_pi_session_using_subcommand completions" -s s -l session -d 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several' -r
complete -c pi-session -n "__fish_pi_session_using_subcommand completions" -l color -d 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)' -r -f -a "auto\t''
always\t''
never\t''"
complete -c pi-session -n "__fish_pi_session_using_subcommand completions" -l no-pager -d 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
complete -c pi-session -n "__fish_pi_session_using_subcommand completions" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c pi-session -n "__fish_pi_session_using_subcommand completions" -s V -l version -d 'Print version'
complete -c pi-session -n "__fish_pi_session_using_subcommand help; and not __fish_seen_subcommand_from log tree show context rev-parse diff merge-base checkout label name mv import clone fork repair prune compact summarize-branch ls archive rm stats files check usage secrets redact slim grep export completions help" -f -a "log" -d 'Show a branch, newest entry first'
complete -c pi-session -n "__fish_pi_session_using_subcommand help; and not __fish_seen_subcommand_from log tree show context rev-parse diff merge-base checkout label name mv import clone fork repair prune compact summarize-branch ls archive rm stats files check usage secrets redact slim grep export completions help" -f -a "tree" -d 'Show the whole session tree, as Pi\'s /tree shows it'
complete -c pi-session -n "__fish_pi_session_using_subcommand help; and not __fish_seen_subcommand_from log tree show context rev-parse diff merge-base checkout label name mv import clone fork repair prune compact summarize-branch ls archive rm stats files check usage secrets redact slim grep export completions help" -f -a "show" -d 'Show entries in full: every content block, tool-call arguments, model, usage and cost'
complete -c pi-session -n "__fish_pi_session_using_subcommand help; and not __fish_seen_subcommand_from log tree show context rev-parse diff merge-base checkout label name mv import clone fork repair prune compact summarize-branch ls archive rm stats files check usage secrets redact slim grep export completions help" -f -a "context" -d 'Show exactly the messages Pi 1.6.0 sends to the model with the leaf at REV'
complete -c pi-session -n "__fish_pi_session_using_subcommand help; and not __fish_seen_subcommand_from log tree show context rev-parse diff merge-base checkout label name mv import clone fork repair prune compact summarize-branch ls archive rm stats files check usage secrets redact slim grep export completions help" -f -a "rev-parse" -d 'Print the full ids that revisions name, one per line'
complete -c pi-session -n "__fish_pi_session_using_subcommand help; and not __fish_seen_subcommand_from log tree show context rev-parse diff merge-base checkout label name mv import clone fork repair prune compact summarize-branch ls archive rm stats files check usage secrets redact slim grep export completions help" -f -a "diff" -d 'Compare two branches: where they part, and what each did after'
complete -c pi-session -n "__fish_pi_session_using_subcommand help; and not __fish_seen_subcommand_from log tree show context rev-parse diff merge-base checkout label name mv import clone fork repair prune compact summarize-branch ls archive rm stats files check usage secrets redact slim grep export completions help" -f -a "merge-base" -d 'Print the newest entry two branches share: their merge base'
complete -c pi-session -n "__fish_pi_session_using_subcommand help; and not __fish_seen_subcommand_from log tree show context rev-parse diff merge-base checkout label name mv import clone fork repair prune compact summarize-branch ls archive rm stats files check usage secrets redact slim grep export completions help" -f -a "checkout" -d 'Move @ to another entry, persistently, so Pi continues from there'
complete -c pi-session -n "__fish_pi_session_using_subcommand help; and not __fish_seen_subcommand_from log tree show context rev-parse diff merge-base checkout label name mv import clone fork repair prune compact summarize-branch ls archive rm stats files check usage secrets redact slim grep export completions help" -f -a "label" -d 'Set, clear or list labels: names for entries that work as revisions'
complete -c pi-session -n "__fish_pi_session_using_subcommand help; and not __fish_seen_subcommand_from log tree show context rev-parse diff merge-base checkout label name mv import clone fork repair prune compact summarize-branch ls archive rm stats files check usage secrets redact slim grep export completions help" -f -a "name" -d 'Print or set the session\'s name, as Pi\'s /name does'
complete -c pi-session -n "__fish_pi_session_using_subcommand help; and not __fish_seen_subcommand_from log tree show context rev-parse diff merge-base checkout label name mv import clone fork repair prune compact summarize-branch ls archive rm stats files check usage secrets redact slim grep export completions help" -f -a "mv" -d 'Move sessions to another project directory (a project that was moved or renamed)'
complete -c pi-session -n "__fish_pi_session_using_subcommand help; and not __fish_seen_subcommand_from log tree show context rev-parse diff merge-base checkout label name mv import clone fork repair prune compact summarize-branch ls archive rm stats files check usage secrets redact slim grep export completions help" -f -a "import" -d 'Bring Claude Code or Codex CLI sessions into Pi, tree and all'
complete -c pi-session -n "__fish_pi_session_using_subcommand help; and not __fish_seen_subcommand_from log tree show context rev-parse diff merge-base checkout label name mv import clone fork repair prune compact summarize-branch ls archive rm stats files check usage secrets redact slim grep export completions help" -f -a "clone" -d 'Copy the branch ending at REV into a new session file, as Pi\'s /clone does'
complete -c pi-session -n "__fish_pi_session_using_subcommand help; and not __fish_seen_subcommand_from log tree show context rev-parse diff merge-base checkout label name mv import clone fork repair prune compact summarize-branch ls archive rm stats files check usage secrets redact slim grep export completions help" -f -a "fork" -d 'Start a new session from just before a user message, as Pi\'s /fork does'
complete -c pi-session -n "__fish_pi_session_using_subcommand help; and not __fish_seen_subcommand_from log tree show context rev-parse diff merge-base checkout label name mv import clone fork repair prune compact summarize-branch ls archive rm stats files check usage secrets redact slim grep export completions help" -f -a "repair" -d 'Check a session file for defects and fix them in place, losing nothing'
complete -c pi-session -n "__fish_pi_session_using_subcommand help; and not __fish_seen_subcommand_from log tree show context rev-parse diff merge-base checkout label name mv import clone fork repair prune compact summarize-branch ls archive rm stats files check usage secrets redact slim grep export completions help" -f -a "prune" -d 'Delete branches from a session\'s tree, as `git branch -D` deletes a branch'
complete -c pi-session -n "__fish_pi_session_using_subcommand help; and not __fish_seen_subcommand_from log tree show context rev-parse diff merge-base checkout label name mv import clone fork repair prune compact summarize-branch ls archive rm stats files check usage secrets redact slim grep export completions help" -f -a "compact" -d 'Compact the conversation: summarize old history, keep recent messages, as Pi\'s /compact'
complete -c pi-session -n "__fish_pi_session_using_subcommand help; and not __fish_seen_subcommand_from log tree show context rev-parse diff merge-base checkout label name mv import clone fork repair prune compact summarize-branch ls archive rm stats files check usage secrets redact slim grep export completions help" -f -a "summarize-branch" -d 'Leave @ for TARGET, keeping a summary of the branch being left, as Pi\'s /tree does'
complete -c pi-session -n "__fish_pi_session_using_subcommand help; and not __fish_seen_subcommand_from log tree show context rev-parse diff merge-base checkout label name mv import clone fork repair prune compact summarize-branch ls archive rm stats files check usage secrets redact slim grep export completions help" -f -a "ls" -d 'List sessions as Pi\'s /resume does, most recently active first'
complete -c pi-session -n "__fish_pi_session_using_subcommand help; and not __fish_seen_subcommand_from log tree show context rev-parse diff merge-base checkout label name mv import clone fork repair prune compact summarize-branch ls archive rm stats files check usage secrets redact slim grep export completions help" -f -a "archive" -d 'Move sessions out of Pi\'s session folders into an archive beside them, or back'
complete -c pi-session -n "__fish_pi_session_using_subcommand help; and not __fish_seen_subcommand_from log tree show context rev-parse diff merge-base checkout label name mv import clone fork repair prune compact summarize-branch ls archive rm stats files check usage secrets redact slim grep export completions help" -f -a "rm" -d 'Move sessions to the trash, where file managers list them and can put them back'
complete -c pi-session -n "__fish_pi_session_using_subcommand help; and not __fish_seen_subcommand_from log tree show context rev-parse diff merge-base checkout label name mv import clone fork repair prune compact summarize-branch ls archive rm stats files check usage secrets redact slim grep export completions help" -f -a "stats" -d 'Tokens and cost of every paid call recorded in the session'
complete -c pi-session -n "__fish_pi_session_using_subcommand help; and not __fish_seen_subcommand_from log tree show context rev-parse diff merge-base checkout label name mv import clone fork repair prune compact summarize-branch ls archive rm stats files check usage secrets redact slim grep export completions help" -f -a "files" -d 'The files the branch read, edited and wrote, each with the entry that touched it last'
complete -c pi-session -n "__fish_pi_session_using_subcommand help; and not __fish_seen_subcommand_from log tree show context rev-parse diff merge-base checkout label name mv import clone fork repair prune compact summarize-branch ls archive rm stats files check usage secrets redact slim grep export completions help" -f -a "check" -d 'Check sessions against budgets and rules, for CI'
complete -c pi-session -n "__fish_pi_session_using_subcommand help; and not __fish_seen_subcommand_from log tree show context rev-parse diff merge-base checkout label name mv import clone fork repair prune compact summarize-branch ls archive rm stats files check usage secrets redact slim grep export completions help" -f -a "usage" -d 'What sessions cost, across every project: tokens and cost by day, week, month, session, project, model, provider or source'
complete -c pi-session -n "__fish_pi_session_using_subcommand help; and not __fish_seen_subcommand_from log tree show context rev-parse diff merge-base checkout label name mv import clone fork repair prune compact summarize-branch ls archive rm stats files check usage secrets redact slim grep export completions help" -f -a "secrets" -d 'Find the credentials sessions have recorded: API keys, tokens, private keys, passwords'
complete -c pi-session -n "__fish_pi_session_using_subcommand help; and not __fish_seen_subcommand_from log tree show context rev-parse diff merge-base checkout label name mv import clone fork repair prune compact summarize-branch ls archive rm stats files check usage secrets redact slim grep export completions help" -f -a "redact" -d 'Take the credentials `secrets` finds out of session files, in place'
complete -c pi-session -n "__fish_pi_session_using_subcommand help; and not __fish_seen_subcommand_from log tree show context rev-parse diff merge-base checkout label name mv import clone fork repair prune compact summarize-branch ls archive rm stats files check usage secrets redact slim grep export completions help" -f -a "slim" -d 'Move the heavy payloads the model no longer sees out of session files, in place'
complete -c pi-session -n "__fish_pi_session_using_subcommand help; and not __fish_seen_subcommand_from log tree show context rev-parse diff merge-base checkout label name mv import clone fork repair prune compact summarize-branch ls archive rm stats files check usage secrets redact slim grep export completions help" -f -a "grep" -d 'Search the text of a session with a regular expression, as ripgrep searches files'
complete -c pi-session -n "__fish_pi_session_using_subcommand help; and not __fish_seen_subcommand_from log tree show context rev-parse diff merge-base checkout label name mv import clone fork repair prune compact summarize-branch ls archive rm stats files check usage secrets redact slim grep export completions help" -f -a "export" -d 'Export a branch as a readable transcript: Markdown, or one self-contained HTML file'
complete -c pi-session -n "__fish_pi_session_using_subcommand help; and not __fish_seen_subcommand_from log tree show context rev-parse diff merge-base checkout label name mv import clone fork repair prune compact summarize-branch ls archive rm stats files check usage secrets redact slim grep export completions help" -f -a "completions" -d 'Print the completion script of a shell'
complete -c pi-session -n "__fish_pi_session_using_subcommand help; and not __fish_seen_subcommand_from log tree show context rev-parse diff merge-base checkout label name mv import clone fork repair prune compact summarize-branch ls archive rm stats files check usage secrets redact slim grep export completions help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'

# Revisions (REV, TARGET) complete with @, root and the session's labels, from
# `pi-session __complete-revs` on the session given with -s, if any.
function __fish_pi_session_takes_value
    switch "$argv[1]:$argv[2]"
        case ':-s' ':--session' ':--color'
            return 0
        case 'log:-n' 'log:--max-count' 'log:--type' 'log:--role' 'log:--max-chars' 'log:--since' 'log:--until' 'log:--after' 'log:--format' 'log:-s' 'log:--session' 'log:--color'
            return 0
        case 'tree:-n' 'tree:--max-count' 'tree:--depth' 'tree:-s' 'tree:--session' 'tree:--color'
            return 0
        case 'show:--max-chars' 'show:-s' 'show:--session' 'show:--color'
            return 0
        case 'context:--max-chars' 'context:-s' 'context:--session' 'context:--color'
            return 0
        case 'rev-parse:-s' 'rev-parse:--session' 'rev-parse:--color'
            return 0
        case 'diff:-s' 'diff:--session' 'diff:--color'
            return 0
        case 'merge-base:-s' 'merge-base:--session' 'merge-base:--color'
            return 0
        case 'checkout:--model' 'checkout:--base-url' 'checkout:--context-window' 'checkout:--max-output-tokens' 'checkout:--instructions' 'checkout:--timeout' 'checkout:--summary-file' 'checkout:--summarizer' 'checkout:--expect-leaf' 'checkout:-s' 'checkout:--session' 'checkout:--color'
            return 0
        case 'label:--expect-leaf' 'label:-s' 'label:--session' 'label:--color'
            return 0
        case 'name:--model' 'name:--base-url' 'name:--context-window' 'name:--max-output-tokens' 'name:--instructions' 'name:--timeout' 'name:--summary-file' 'name:--summarizer' 'name:--expect-leaf' 'name:-s' 'name:--session' 'name:--color'
            return 0
        case 'mv:--from' 'mv:--to' 'mv:-s' 'mv:--session' 'mv:--color'
            return 0
        case 'import:--from' 'import:-o' 'import:--output' 'import:-s' 'import:--session' 'import:--color'
            return 0
        case 'clone:-o' 'clone:--output' 'clone:-s' 'clone:--session' 'clone:--color'
            return 0
        case 'fork:-o' 'fork:--output' 'fork:-s' 'fork:--session' 'fork:--color'
            return 0
        case 'repair:-s' 'repair:--session' 'repair:--color'
            return 0
        case 'prune:-s' 'prune:--session' 'prune:--color'
            return 0
        case 'compact:--keep-recent-tokens' 'compact:--reserve-tokens' 'compact:--model' 'compact:--base-url' 'compact:--context-window' 'compact:--max-output-tokens' 'compact:--instructions' 'compact:--timeout' 'compact:--summary-file' 'compact:--summarizer' 'compact:--expect-leaf' 'compact:-s' 'compact:--session' 'compact:--color'
            return 0
        case 'summarize-branch:--reserve-tokens' 'summarize-branch:--model' 'summarize-branch:--base-url' 'summarize-branch:--context-window' 'summarize-branch:--max-output-tokens' 'summarize-branch:--instructions' 'summarize-branch:--timeout' 'summarize-branch:--summary-file' 'summarize-branch:--summarizer' 'summarize-branch:--expect-leaf' 'summarize-branch:-s' 'summarize-branch:--session' 'summarize-branch:--color'
            return 0
        case 'ls:-n' 'ls:--max-count' 'ls:-s' 'ls:--session' 'ls:--color'
            return 0
        case 'archive:--older-than' 'archive:-s' 'archive:--session' 'archive:--color'
            return 0
        case 'rm:-s' 'rm:--session' 'rm:--color'
            return 0
        case 'stats:-s' 'stats:--session' 'stats:--color'
            return 0
        case 'files:-s' 'files:--session' 'files:--color'
            return 0
        case 'check:--config' 'check:--max-cost' 'check:--max-tokens' 'check:--max-context' 'check:--max-tool-calls' 'check:--max-turns' 'check:--max-tool-errors' 'check:--forbid-tool' 'check:--require-tool' 'check:--paths' 'check:--gitleaks-config' 'check:--format' 'check:--junit' 'check:-s' 'check:--session' 'check:--color'
            return 0
        case 'usage:--by' 'usage:--since' 'usage:--until' 'usage:-z' 'usage:--timezone' 'usage:--project' 'usage:-s' 'usage:--session' 'usage:--color'
            return 0
        case 'secrets:--config' 'secrets:-s' 'secrets:--session' 'secrets:--color'
            return 0
        case 'redact:--config' 'redact:-s' 'redact:--session' 'redact:--color'
            return 0
        case 'slim:--max-output' 'slim:-s' 'slim:--session' 'slim:--color'
            return 0
        case 'grep:--role' 'grep:-A' 'grep:--after-context' 'grep:-B' 'grep:--before-context' 'grep:-C' 'grep:--context' 'grep:-m' 'grep:--max-count' 'grep:-n' 'grep:--limit' 'grep:-s' 'grep:--session' 'grep:--color'
            return 0
        case 'export:--format' 'export:-o' 'export:--output' 'export:-s' 'export:--session' 'export:--color'
            return 0
        case 'completions:-s' 'completions:--session' 'completions:--color'
            return 0
    end
    return 1
end

function __fish_pi_session_rev_wanted
    set -l tokens (commandline -opc)
    set -e tokens[1]
    set -l sub
    set -l npos 0
    set -l skip 0
    for w in $tokens
        if test $skip = 1
            set skip 0
            continue
        end
        switch $w
            case '-*'
                __fish_pi_session_takes_value "$sub" $w; and set skip 1
                continue
        end
        if test -z "$sub"
            set sub $w
        else
            set npos (math $npos + 1)
        end
    end
    test $skip = 1; and return 1
    switch $sub
        case log
            test $npos -eq 0
        case show
            test $npos -ge 0
        case context
            test $npos -eq 0
        case rev-parse
            test $npos -ge 0
        case diff
            test $npos -eq 0; or test $npos -eq 1
        case merge-base
            test $npos -eq 0; or test $npos -eq 1
        case checkout
            test $npos -eq 0
        case label
            test $npos -eq 0
        case clone
            test $npos -eq 0
        case fork
            test $npos -eq 0
        case prune
            test $npos -ge 0
        case summarize-branch
            test $npos -eq 0
        case stats
            test $npos -eq 0
        case files
            test $npos -eq 0
        case export
            test $npos -eq 0
        case '*'
            return 1
    end
end

function __fish_pi_session_revs
    set -l tokens (commandline -opc)
    set -l session
    set -l n (count $tokens)
    for i in (seq 2 $n)
        switch $tokens[$i]
            case -s --session
                if test $i -lt $n
                    set session -s $tokens[(math $i + 1)]
                end
            case '--session=*'
                set session -s (string replace -- --session= '' $tokens[$i])
            case '-s?*'
                set session -s (string sub -s 3 -- $tokens[$i])
        end
    end
    if set -q session[2]
        set session[2] (string replace -r -- '^~/' "$HOME/" $session[2])
    end
    command pi-session $session __complete-revs 2>/dev/null
end

complete -c pi-session -n "__fish_pi_session_rev_wanted" -f -a "(__fish_pi_session_revs)"

# Sessions: -s completes the current directory's session ids besides files.
complete -c pi-session -s s -l session -r -a "(command pi-session __complete-sessions 2>/dev/null)"
complete -c pi-session -n "__fish_pi_session_using_subcommand redact" -a "(command pi-session __complete-sessions 2>/dev/null)"
complete -c pi-session -n "__fish_pi_session_using_subcommand slim" -a "(command pi-session __complete-sessions 2>/dev/null)"
