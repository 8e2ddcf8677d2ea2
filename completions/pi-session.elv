
use builtin;
use str;

set edit:completion:arg-completer[pi-session] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'pi-session'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'pi-session'= {
            cand -s 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --session 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --color 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)'
            cand --no-pager 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
            cand log 'Show a branch, newest entry first'
            cand tree 'Show the whole session tree, as Pi''s /tree shows it'
            cand show 'Show entries in full: every content block, tool-call arguments, model, usage and cost'
            cand context 'Show exactly the messages Pi 1.6.0 sends to the model with the leaf at REV'
            cand rev-parse 'Print the full ids that revisions name, one per line'
            cand diff 'Compare two branches: where they part, and what each did after'
            cand merge-base 'Print the newest entry two branches share: their merge base'
            cand checkout 'Move @ to another entry, persistently, so Pi continues from there'
            cand label 'Set, clear or list labels: names for entries that work as revisions'
            cand name 'Print or set the session''s name, as Pi''s /name does'
            cand mv 'Move sessions to another project directory (a project that was moved or renamed)'
            cand import 'Bring Claude Code or Codex CLI sessions into Pi, tree and all'
            cand clone 'Copy the branch ending at REV into a new session file, as Pi''s /clone does'
            cand fork 'Start a new session from just before a user message, as Pi''s /fork does'
            cand repair 'Check a session file for defects and fix them in place, losing nothing'
            cand prune 'Delete branches from a session''s tree, as `git branch -D` deletes a branch'
            cand compact 'Compact the conversation: summarize old history, keep recent messages, as Pi''s /compact'
            cand summarize-branch 'Leave @ for TARGET, keeping a summary of the branch being left, as Pi''s /tree does'
            cand ls 'List sessions as Pi''s /resume does, most recently active first'
            cand archive 'Move sessions out of Pi''s session folders into an archive beside them, or back'
            cand rm 'Move sessions to the trash, where file managers list them and can put them back'
            cand stats 'Tokens and cost of every paid call recorded in the session'
            cand files 'The files the branch read, edited and wrote, each with the entry that touched it last'
            cand check 'Check sessions against budgets and rules, for CI'
            cand usage 'What sessions cost, across every project: tokens and cost by day, week, month, session, project, model, provider or source'
            cand secrets 'Find the credentials sessions have recorded: API keys, tokens, private keys, passwords'
            cand redact 'Take the credentials `secrets` finds out of session files, in place'
            cand slim 'Move the heavy payloads the model no longer sees out of session files, in place'
            cand grep 'Search the text of a session with a regular expression, as ripgrep searches files'
            cand export 'Export a branch as a readable transcript: Markdown, or one self-contained HTML file'
            cand completions 'Print the completion script of a shell'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'pi-session;log'= {
            cand -n 'Show at most N entries'
            cand --max-count 'Show at most N entries'
            cand --type 'Only entries of these types (repeat or separate with commas)'
            cand --role 'Only messages with these roles (repeat or separate with commas)'
            cand --max-chars 'With --long: cut tool results and command output after this many characters'
            cand --since 'Only entries from DATE on, by their timestamp: a day (2026-11-30, 20261130, today, yesterday, 7d, 2w) from its first instant, a date and time (2026-11-30T14:00, ''2026-11-30 14:00:05''; with Z or +02:00, else local time), or a time ago (''3 days ago'', 2.weeks.ago, ''90 minutes ago'', 1h, 90min, now: units second, minute, hour, day, week, month, year). Entries without a readable timestamp are left out. (With --all, an entry id here is taken as --after ID, with a deprecation note: that spelling goes in the next release.)'
            cand --until 'Only entries up to DATE, by their timestamp: a day through its last instant, else the moment named (the forms of --since)'
            cand --after 'With --all: only entries appended after the entry with this id (a cursor for polling)'
            cand --format 'One line per entry from TEMPLATE, with these placeholders: %H id, %h short id (8 characters), %P parent id, %t time (local, as log shows it), %T timestamp as written, %y type, %r role, %K kind (the role of a message, else the type), %m model (of an assistant message or a model change), %l label, %k tokens (the totalTokens of the call the entry records), %s the first line of the entry''s text, %n newline, %% percent. A field an entry lacks is empty; control characters are escaped'
            cand -s 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --session 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --color 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)'
            cand --reverse 'Oldest first'
            cand --long 'Show each entry in full: text, thinking, tool calls with arguments, tool results'
            cand --json 'Print each entry''s original line, byte for byte (NDJSON)'
            cand --all 'Every entry of the file in append order, not one branch (like Pi''s RPC get_entries)'
            cand --oneline 'One short line per entry: short id, kind (the role of a message, else the type), (@) and [label] when they apply, and the first line of the entry''s text, fitted to the terminal (off a terminal, to $COLUMNS, else 200 columns)'
            cand -f 'After what log prints, print each entry as Pi appends it, until Ctrl-C (status 0). New entries come in append order: with --all every one, else those on the branch of @ as it moves (a notice on stderr when @ moves to another branch). -n and --reverse apply to the first part only. With --json, one original line per entry, flushed at once. A file replaced, cut or rewritten (repair, Pi''s migration) is read again with a notice on stderr, and only entries whose ids were not seen yet are printed'
            cand --follow 'After what log prints, print each entry as Pi appends it, until Ctrl-C (status 0). New entries come in append order: with --all every one, else those on the branch of @ as it moves (a notice on stderr when @ moves to another branch). -n and --reverse apply to the first part only. With --json, one original line per entry, flushed at once. A file replaced, cut or rewritten (repair, Pi''s migration) is read again with a notice on stderr, and only entries whose ids were not seen yet are printed'
            cand --wait 'With --follow: wait for a session file that does not exist yet (a path given with -s, or the first session of the current directory)'
            cand --no-pager 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'pi-session;tree'= {
            cand -n 'Show at most N rows (the first N in display order)'
            cand --max-count 'Show at most N rows (the first N in display order)'
            cand --depth 'Show only rows at most N forks deep: 0 is the trunk (the rows up to the first fork, the fork included), 1 adds the branches of those forks, and so on. A fork is a row with two or more children in the view shown, where the tree indents. A row whose rows below were cut ends with (+K rows). Applied before -n'
            cand -s 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --session 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --color 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)'
            cand --all 'Show every entry'
            cand --user 'Show only user messages'
            cand --json 'One row per line (NDJSON), in display order: {"id","parentId","depth","type","role","label","timestamp","current","children"}; `current` marks @, `children` counts the row''s visible children (with --depth, those cut off too). `depth` counts the row''s ancestors, not forks'
            cand --no-pager 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'pi-session;show'= {
            cand --max-chars 'Cut tool results and command output after this many characters'
            cand -s 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --session 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --color 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)'
            cand --json 'Print each entry''s original line, byte for byte (one line per revision)'
            cand --no-pager 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'pi-session;context'= {
            cand --max-chars 'Cut tool results and command output after this many characters'
            cand -s 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --session 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --color 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)'
            cand --json 'One message object per line, field for field what Pi builds (NDJSON)'
            cand --no-pager 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'pi-session;rev-parse'= {
            cand -s 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --session 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --color 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)'
            cand --leaf 'Print Pi''s literal leaf: the last entry of the file'
            cand --no-pager 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'pi-session;diff'= {
            cand -s 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --session 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --color 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)'
            cand --stat 'Sum each side: entries, messages by role, tokens and cost, tools called'
            cand --json 'NDJSON: a {"mergeBase", "left", "right"} record with the two tips'' ids, then one {"side", "id", "parentId", "type", "role", "timestamp", "preview"} record per entry (`side`: "left" or "right"); with --stat one {"side", "entries", "messages", "roles", "totalTokens", "cost", "tools"} record per side'
            cand --no-pager 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'pi-session;merge-base'= {
            cand -s 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --session 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --color 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)'
            cand --json 'One JSON object: {"mergeBase": ID or null}'
            cand --no-pager 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'pi-session;checkout'= {
            cand --model 'The model that writes the summary, as PROVIDER/MODEL (anthropic, openai, google, openrouter, groq, xai, mistral, deepseek, a custom provider of Pi''s models.json…). Default: Pi''s defaultProvider/defaultModel settings, else the model in effect on the branch'
            cand --base-url 'Send the request to this OpenAI-compatible endpoint (Ollama, llama.cpp, vLLM, …)'
            cand --context-window 'The model''s context window in tokens [default: what is known for the model, else 128000]'
            cand --max-output-tokens 'The model''s output limit in tokens [default: what is known for the model, else 16384]'
            cand --instructions 'A focus for the summary, added to the instructions'
            cand --timeout 'Give up on the model after SECONDS in all, retries and waits included (nothing is written)'
            cand --summary-file 'Use this text as the summary instead of asking a model (`-` reads stdin)'
            cand --summarizer 'Run CMD through the shell with the request on stdin; its stdout is the summary'
            cand --expect-leaf 'Write nothing, and exit with status 4, unless Pi''s leaf (the last entry) is ID'
            cand -s 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --session 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --color 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)'
            cand --empty 'Make the next message start a new root (an empty conversation)'
            cand --json 'Print {"at","from","abandoned","record"} as one JSON line (with --dry-run also "dryRun": true and "line", the line that would be appended)'
            cand --summarize 'Keep a summary of the branch being left, as `pi-session summarize-branch REV` does'
            cand --include-thinking 'Include assistant thinking in the text sent for summarizing (Pi leaves it out)'
            cand --dry-run 'Write nothing: show what would be written (for a summary, the plan)'
            cand --print-prompt 'Print what would be sent to the model and change nothing'
            cand --no-pager 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'pi-session;label'= {
            cand --expect-leaf 'Write nothing, and exit with status 4, unless Pi''s leaf (the last entry) is ID'
            cand -s 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --session 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --color 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)'
            cand -d 'Clear the label of REV'
            cand --delete 'Clear the label of REV'
            cand -l 'List the current labels: name, target id, preview (also what a bare `label` does)'
            cand --list 'List the current labels: name, target id, preview (also what a bare `label` does)'
            cand --json 'When listing: one JSON object per label {"label","targetId","type","role","timestamp","preview"}; with --dry-run: the label entries that would be appended, one per line'
            cand -f 'Move NAME here from the entry that has it (its label is cleared)'
            cand --force 'Move NAME here from the entry that has it (its label is cleared)'
            cand --dry-run 'Print the label entries that would be appended, and write nothing'
            cand --no-pager 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'pi-session;name'= {
            cand --model 'The model that writes the summary, as PROVIDER/MODEL (anthropic, openai, google, openrouter, groq, xai, mistral, deepseek, a custom provider of Pi''s models.json…). Default: Pi''s defaultProvider/defaultModel settings, else the model in effect on the branch'
            cand --base-url 'Send the request to this OpenAI-compatible endpoint (Ollama, llama.cpp, vLLM, …)'
            cand --context-window 'The model''s context window in tokens [default: what is known for the model, else 128000]'
            cand --max-output-tokens 'The model''s output limit in tokens [default: what is known for the model, else 16384]'
            cand --instructions 'A focus for the summary, added to the instructions'
            cand --timeout 'Give up on the model after SECONDS in all, retries and waits included (nothing is written)'
            cand --summary-file 'Use this text as the summary instead of asking a model (`-` reads stdin)'
            cand --summarizer 'Run CMD through the shell with the request on stdin; its stdout is the summary'
            cand --expect-leaf 'Write nothing, and exit with status 4, unless Pi''s leaf (the last entry) is ID'
            cand -s 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --session 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --color 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)'
            cand --clear 'Clear the name (an empty session_info name, as Pi writes it)'
            cand --generate 'Ask a model for a short title of the conversation and name the session with it'
            cand --all 'With --generate: every session of the current directory (or of every project, with --all-projects), with a progress bar and a summary'
            cand --all-projects 'With --all: every session of every project'
            cand --unnamed 'With --all: only sessions that have no name'
            cand --json 'One JSON object per session: {"path","name"} for a bare `name`; {"path","name", "previous","entryId","dryRun"} for a change'
            cand -f 'Write even if the file changed in the last few seconds'
            cand --force 'Write even if the file changed in the last few seconds'
            cand --include-thinking 'Include assistant thinking in the text sent for summarizing (Pi leaves it out)'
            cand --dry-run 'Write nothing: show what would be written (for a summary, the plan)'
            cand --print-prompt 'Print what would be sent to the model and change nothing'
            cand --no-pager 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'pi-session;mv'= {
            cand --from 'Move every session of this project directory (and of the directories inside it)'
            cand --to 'Where the project of --from is now'
            cand -s 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --session 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --color 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)'
            cand --copy 'Keep the old files: the new ones are copies'
            cand --relink 'Point the `parentSession` of sessions that came from a moved file at its new path (their headers are rewritten, each with a backup)'
            cand -f 'Move a session changed in the last few seconds (Pi may have it open)'
            cand --force 'Move a session changed in the last few seconds (Pi may have it open)'
            cand --dry-run 'Print what would move, and write nothing'
            cand --json 'One JSON object per session: {"from","to","oldCwd","newCwd","outcome"} ("moved", "rewritten", "resumed"; null in a dry run), then one per relinked session {"session","parentSession","backup"}'
            cand --no-pager 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'pi-session;import'= {
            cand --from 'The agent whose sessions to read: claude (~/.claude/projects, or $CLAUDE_CONFIG_DIR/projects) or codex (~/.codex/sessions, or $CODEX_HOME/sessions)'
            cand -o 'Write the session here (`-` prints it on stdout); not with --all'
            cand --output 'Write the session here (`-` prints it on stdout); not with --all'
            cand -s 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --session 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --color 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)'
            cand --all 'Every session of the other agent for the current directory not imported yet'
            cand --map-tools 'Map the obvious tools (Read, Write, Edit, Bash, shell, apply_patch) to Pi''s built-ins, so that export, files and the compaction''s file lists understand them'
            cand --dry-run 'Print the plan (entries by kind, what goes to custom entries, what is unknown), and write nothing'
            cand --json 'One JSON object per session: {"source","path","sessionId","entries","custom", "unknown","malformedLines","notes","dryRun","skipped"}'
            cand --no-pager 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'pi-session;clone'= {
            cand -o 'Write the new session here instead of beside the source; `-` prints it on stdout. An existing file is never replaced without --force'
            cand --output 'Write the new session here instead of beside the source; `-` prints it on stdout. An existing file is never replaced without --force'
            cand -s 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --session 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --color 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)'
            cand --redact 'Take the credentials `secrets` finds (built-in rules, ./.gitleaks.toml, your own keys) out of what is written, as `redact` would; the session file is not changed'
            cand -f 'Replace the -o file if it exists (atomically: the new file is renamed over it)'
            cand --force 'Replace the -o file if it exists (atomically: the new file is renamed over it)'
            cand --dry-run 'Print the path and line count of the file that would be written, and write nothing'
            cand --json 'Print {"path","parentSession","entries","message"} as one JSON line (with --dry-run, also "lines" and "dryRun")'
            cand --no-pager 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'pi-session;fork'= {
            cand -o 'Write the new session here instead of beside the source; `-` prints it on stdout. An existing file is never replaced without --force'
            cand --output 'Write the new session here instead of beside the source; `-` prints it on stdout. An existing file is never replaced without --force'
            cand -s 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --session 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --color 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)'
            cand -f 'Replace the -o file if it exists (atomically: the new file is renamed over it)'
            cand --force 'Replace the -o file if it exists (atomically: the new file is renamed over it)'
            cand --dry-run 'Print the path and line count of the file that would be written, and write nothing'
            cand --json 'Print {"path","parentSession","entries","message"} as one JSON line (with --dry-run, also "lines" and "dryRun")'
            cand --no-pager 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'pi-session;repair'= {
            cand -s 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --session 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --color 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)'
            cand --check 'Report only; exit 1 if a defect was found (warnings allowed). The repaired file is not built, so with --json `after` is null when there are defects'
            cand --dry-run 'Show what would be done, write nothing'
            cand --all 'Every session in the sessions directory, with a summary table'
            cand --json 'One JSON object per finding {"path","line","lines","kind","severity","id","message","action"}, then one per file {"path","result","defects","warnings","backup","rejectsFile","carriedLines","after"}; `after` is how Pi reads the repaired file: {"leaf","at","branch","context_messages","entries"}'
            cand --no-pager 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'pi-session;prune'= {
            cand -s 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --session 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --color 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)'
            cand --empty 'Also drop the branches off @''s branch that hold nothing but aborted or error replies'
            cand --force 'Prune even when @''s branch passes through REV (moving @ first) or the file changed in the last few seconds'
            cand --dry-run 'List what would be dropped; write nothing'
            cand --json 'One JSON object per dropped entry {"session", "id", "line", "kind", "reason" (rev, descendant, label, empty)}, then one for the file {"session", "result" (nothing, would-prune, pruned, failed), "dropped", "references" (kept entries naming a dropped one: [{"id", "kind", "refersTo"}]), "at", "movedAt", "record" (the id of a checkout record appended), "backup", "carriedLines", "error"}'
            cand --no-pager 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'pi-session;compact'= {
            cand --keep-recent-tokens 'Tokens of recent conversation to keep [default: settings, else 20000]'
            cand --reserve-tokens 'Tokens kept free for the model''s answer [default: settings, else 16384]'
            cand --model 'The model that writes the summary, as PROVIDER/MODEL (anthropic, openai, google, openrouter, groq, xai, mistral, deepseek, a custom provider of Pi''s models.json…). Default: Pi''s defaultProvider/defaultModel settings, else the model in effect on the branch'
            cand --base-url 'Send the request to this OpenAI-compatible endpoint (Ollama, llama.cpp, vLLM, …)'
            cand --context-window 'The model''s context window in tokens [default: what is known for the model, else 128000]'
            cand --max-output-tokens 'The model''s output limit in tokens [default: what is known for the model, else 16384]'
            cand --instructions 'A focus for the summary, added to the instructions'
            cand --timeout 'Give up on the model after SECONDS in all, retries and waits included (nothing is written)'
            cand --summary-file 'Use this text as the summary instead of asking a model (`-` reads stdin)'
            cand --summarizer 'Run CMD through the shell with the request on stdin; its stdout is the summary'
            cand --expect-leaf 'Write nothing, and exit with status 4, unless Pi''s leaf (the last entry) is ID'
            cand -s 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --session 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --color 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)'
            cand --if-needed 'Compact only when the context exceeds the context window minus reserveTokens'
            cand --json 'With --dry-run: the plan as one JSON object {"compact":true,"firstKeptEntryId","isSplitTurn","tokensBefore","tokensKept","messagesToSummarize", "turnPrefixMessages","previousSummary","readFiles","modifiedFiles","keepRecentTokens"}, or {"compact":false,"reason"} when there is nothing to compact (reason: noEntries, alreadyCompacted, nothingToSummarize or notNeeded)'
            cand --include-thinking 'Include assistant thinking in the text sent for summarizing (Pi leaves it out)'
            cand --dry-run 'Write nothing: show what would be written (for a summary, the plan)'
            cand --print-prompt 'Print what would be sent to the model and change nothing'
            cand --no-pager 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'pi-session;summarize-branch'= {
            cand --reserve-tokens 'Tokens kept free for the model''s answer [default: settings, else 16384]'
            cand --model 'The model that writes the summary, as PROVIDER/MODEL (anthropic, openai, google, openrouter, groq, xai, mistral, deepseek, a custom provider of Pi''s models.json…). Default: Pi''s defaultProvider/defaultModel settings, else the model in effect on the branch'
            cand --base-url 'Send the request to this OpenAI-compatible endpoint (Ollama, llama.cpp, vLLM, …)'
            cand --context-window 'The model''s context window in tokens [default: what is known for the model, else 128000]'
            cand --max-output-tokens 'The model''s output limit in tokens [default: what is known for the model, else 16384]'
            cand --instructions 'A focus for the summary, added to the instructions'
            cand --timeout 'Give up on the model after SECONDS in all, retries and waits included (nothing is written)'
            cand --summary-file 'Use this text as the summary instead of asking a model (`-` reads stdin)'
            cand --summarizer 'Run CMD through the shell with the request on stdin; its stdout is the summary'
            cand --expect-leaf 'Write nothing, and exit with status 4, unless Pi''s leaf (the last entry) is ID'
            cand -s 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --session 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --color 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)'
            cand --json 'With --dry-run: the plan as one JSON object {"target","parent" (where the summary goes: TARGET, or its parent for a user or custom message),"from" (Pi''s leaf),"commonAncestor","entries","messages","totalTokens", "readFiles","modifiedFiles"}'
            cand --include-thinking 'Include assistant thinking in the text sent for summarizing (Pi leaves it out)'
            cand --dry-run 'Write nothing: show what would be written (for a summary, the plan)'
            cand --print-prompt 'Print what would be sent to the model and change nothing'
            cand --no-pager 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'pi-session;ls'= {
            cand -n 'Show at most N sessions (the most recently modified)'
            cand --max-count 'Show at most N sessions (the most recently modified)'
            cand -s 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --session 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --color 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)'
            cand --all 'Sessions of every project, not only the current directory''s'
            cand --json 'One JSON object per session (NDJSON): path, id, name, firstMessage, messageCount, created, modified (ISO 8601 or null), cwd, parentSession, current (true for the session that commands run here without -s use); archived (true, only for an archived session); with --tree, depth (0 for a root)'
            cand --tree 'Draw each session under the session it came from (its header''s parentSession: clones, forks, subagents), with ├─ └─ │: roots in the usual order, children under their parent. A session whose parent is not listed is a root. With -n, the N most recent sessions are drawn'
            cand --no-children 'Hide the sessions whose parent session is listed (subagents, clones, forks)'
            cand --archived 'Also list the archived sessions (`pi-session archive`), marked `A`'
            cand -v 'Also show each session''s path, creation time and parent session, and say on stderr how many files were skipped because they are not Pi sessions'
            cand --verbose 'Also show each session''s path, creation time and parent session, and say on stderr how many files were skipped because they are not Pi sessions'
            cand --no-cache 'Read every session file, neither using nor updating the cache. By default what was read from each file is kept in $XDG_CACHE_HOME/pi-session/listing.cache (or ~/.cache/pi-session/listing.cache) and used again while the file''s size, modification time and inode are unchanged, so listing unchanged files costs a stat per file'
            cand --no-pager 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'pi-session;archive'= {
            cand --older-than 'Every session of the current project (of every project with --all) whose last activity (ls''s MODIFIED) is before AGE, in the forms `log --since` takes: a day (14d, 2w, 2026-11-30: before its first instant), a time ago (''2 weeks'', ''90 minutes ago'', now), or a date and time. With --restore, of the archived sessions'
            cand -s 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --session 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --color 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)'
            cand --all 'With --older-than: the sessions of every project. With --restore alone: every archived session'
            cand --restore 'Move archived sessions back into Pi''s folders'
            cand --force 'Archive even a session changed in the last few seconds (a running Pi may have it open)'
            cand --dry-run 'Print what would move; move nothing'
            cand --json 'One JSON object per session moved (or that would be, with --dry-run): {"action" (archive, restore), "from", "to", "dryRun"}'
            cand --no-pager 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'pi-session;rm'= {
            cand -s 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --session 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --color 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)'
            cand --force 'Delete the sessions that cannot go to the trash (another file system, no trash), and take sessions changed in the last few seconds'
            cand --dry-run 'Print what would be moved or deleted; touch nothing'
            cand --json 'One JSON object per session: {"from", "to" (its place in the trash; null when deleted), "deleted", "dryRun"}'
            cand --no-pager 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'pi-session;stats'= {
            cand -s 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --session 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --color 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)'
            cand --branch 'Count only the calls on the branch of REV [default: @], not the whole file'
            cand --json 'One JSON object: {"userMessages", "assistantMessages", "toolCalls", "toolResults", "totalMessages" (Pi''s get_session_stats counts: every message entry, and the toolCall blocks of assistant messages), "compactions", "branchSummaries", "byTool" (per tool {"name", "calls", "results", "failed"}, most calls first), "contextUsage" (at REV or @: {"tokens", "contextWindow", "percent"}, tokens and percent null after a compaction no reply followed; null when the model''s window is unknown), "total", "byModel", "bySource"}. Each total is {"input", "output", "cacheRead", "cacheWrite", "totalTokens", "cost": {"input", "output", "cacheRead", "cacheWrite", "total"}}; "byModel" lists them with "provider" and "model", "bySource" names them "assistant", "usage", "compaction", "branchSummary" and "toolResult"'
            cand --no-pager 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'pi-session;files'= {
            cand -s 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --session 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --color 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)'
            cand --all 'Every branch of the file, not only the branch of REV'
            cand --json 'One JSON object per file (NDJSON): "path", "op" ("read", "edited" or "written": how the last entry touched it), "entryId" (that entry''s id, or its line number when it has none) and "modified" (true when some entry edited or wrote it)'
            cand --no-pager 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'pi-session;check'= {
            cand --config 'Budgets and rules from a TOML file, keys named as the options (max-cost = 2.5, paths = ["src/**"], no-secrets = true). Options given on the command line replace the file''s'
            cand --max-cost 'At most this cost in US dollars, as `usage` sums it'
            cand --max-tokens 'At most this many tokens over all paid calls'
            cand --max-context 'The fullest context a reply reported is at most this percent of its model''s window'
            cand --max-tool-calls 'At most this many tool calls'
            cand --max-turns 'At most this many turns (assistant messages: one model call each)'
            cand --max-tool-errors 'At most this many tool results are errors'
            cand --forbid-tool 'These tools are never called'
            cand --require-tool 'These tools are each called at least once'
            cand --paths 'Every file an edit or write call changed matches these gitignore-style globs, from the session''s cwd: `*.md` at any depth, `/build` or `src/*.rs` from the top, `docs/` a directory, `!GLOB` an exception'
            cand --gitleaks-config 'Rules in gitleaks'' format for --no-secrets [default: ./.gitleaks.toml if any]'
            cand --format 'How to print the verdicts: `human`, or `github` (GitHub Actions annotations, `::error file=…,line=…,title=…::…`, one per failed rule)'
            cand --junit 'Also write the verdicts as JUnit XML to FILE (one testsuite per session, one testcase per rule, a failure per failed rule)'
            cand -s 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --session 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --color 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)'
            cand --all 'Every session of the current project [default: those -s names (repeatable), else the most recent session of the current directory]'
            cand --no-tool-errors 'No tool result is an error'
            cand --no-secrets 'No credential is recorded (the `secrets` scan; see --gitleaks-config, --no-own-keys)'
            cand --valid 'Nothing `repair --check` calls a defect'
            cand --branch 'Budgets and tool rules count only the branch of @ (what the model saw)'
            cand --no-own-keys '--no-secrets does not look for the values of your own keys'
            cand --json 'One JSON object per rule and session (NDJSON): {"session", "rule", "limit", "value", "pass", "entries": [{"id", "line", "note"}]}, or {"session", "error"}'
            cand --force 'Replace the --junit file if it exists (atomically)'
            cand --no-cache 'Check every file again. By default the verdicts on files unchanged since a run under the same policy come from $XDG_CACHE_HOME/pi-session/check.cache (or ~/.cache/…)'
            cand --no-pager 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'pi-session;usage'= {
            cand --by 'Group by these keys, in this order (repeat or separate with commas)'
            cand --since 'Only calls from DATE on, as `log --since` takes it: a day (2026-11-30, 20261130, today, yesterday, 7d, 2w) from its first instant in the report''s time zone, a date and time (2026-11-30T14:00; with Z or +02:00, else in the report''s zone), or a time ago (''3 days ago'', 2.weeks.ago, 1h, 90min)'
            cand --until 'Only calls up to DATE: a day through its last instant, else the moment named (the forms of --since)'
            cand -z 'Take calendar days in this time zone (an IANA name such as Europe/Paris, or UTC) [default: the local time zone]'
            cand --timezone 'Take calendar days in this time zone (an IANA name such as Europe/Paris, or UTC) [default: the local time zone]'
            cand --project 'Only the sessions of this project folder (`.` for the current directory)'
            cand -s 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --session 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --color 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)'
            cand --archived 'Also read the archived sessions (`pi-session archive`) of every project, or of --project''s'
            cand --json 'One JSON object per group (NDJSON): each --by key (day and week as YYYY-MM-DD, the week by its Monday; month as YYYY-MM; session as the session id plus "path"; project as the cwd; model; provider; source as assistant, usage, compaction, branchSummary or toolResult), then "input", "output", "cacheRead", "cacheWrite", "totalTokens", "cost" and "calls"; last, {"total": true, ...} with the same counters'
            cand --csv 'CSV with a header row; the last row holds the totals'
            cand --no-cache 'Read every session file, neither using nor updating the cache. By default what was read from each file is kept in $XDG_CACHE_HOME/pi-session/usage.cache (or ~/.cache/pi-session/usage.cache) and used again while the file''s size, modification time and inode are unchanged, so a report over unchanged files costs a stat per file'
            cand --no-pager 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'pi-session;secrets'= {
            cand --config 'Rules in gitleaks'' configuration format (TOML [[rules]] and [allowlist]), e.g. a team''s .gitleaks.toml [default: ./.gitleaks.toml when there is one]. Its rules replace the built-in ones unless it has `[extend] useDefault = true`; its allowlists apply'
            cand -s 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --session 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --color 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)'
            cand --all 'Every session of every project [default: the session -s names (repeatable), else the most recent session of the current directory]'
            cand --archived 'With --all, also scan the archived sessions (`pi-session archive`)'
            cand --json 'One JSON object per finding: {"session", "line", "entry", "type", "path", "rule", "preview", "length"} (path: where in the entry, as message.content[2].arguments.command); and one per payload that cannot be read: {"session", "line", "entry", "path", "unscannable"}'
            cand --no-own-keys 'Do not look for the values of your own keys: the provider variables Pi reads (and any other *_API_KEY, *_TOKEN, *_SECRET variable) and the keys in Pi''s auth.json'
            cand --no-pager 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'pi-session;redact'= {
            cand --config 'Rules in gitleaks'' configuration format (TOML [[rules]] and [allowlist]), e.g. a team''s .gitleaks.toml [default: ./.gitleaks.toml when there is one]. Its rules replace the built-in ones unless it has `[extend] useDefault = true`; its allowlists apply'
            cand -s 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --session 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --color 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)'
            cand --all 'Every session of every project'
            cand --dry-run 'Show what would be taken out; write nothing'
            cand --no-backup 'Keep no backup of the original, so the secrets leave the file system''s view (blocks the disk held may still hold them until reused)'
            cand --json 'One JSON object per finding (as `secrets --json`), then one per file: {"session", "result" (clean, would-redact, redacted, failed), "redacted", "backup", "carriedLines", "error"}'
            cand --no-own-keys 'Do not look for the values of your own keys: the provider variables Pi reads (and any other *_API_KEY, *_TOKEN, *_SECRET variable) and the keys in Pi''s auth.json'
            cand --no-pager 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'pi-session;slim'= {
            cand --max-output 'Move tool outputs longer than SIZE bytes (K, M, G: 1024s) [default: 64K]'
            cand -s 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --session 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --color 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)'
            cand --all 'Every session of the current project (the working directory''s, as `ls` lists them)'
            cand --dry-run 'Show what would be moved (or put back), per kind; write nothing'
            cand --in-context 'Also move the images still in the context at @: the model then sees the placeholder''s text instead (for a session too heavy to resume otherwise)'
            cand --restore 'Put back what an earlier slim moved out, from FILE.slim/'
            cand --drop 'Delete what earlier slims moved out (FILE.slim/): it cannot be put back then. Asks first on a terminal'
            cand -y 'With --drop: do not ask'
            cand --yes 'With --drop: do not ask'
            cand --force 'Rewrite a file even if it changed in the last few seconds'
            cand --no-backup 'Keep no backup of the original'
            cand --json 'One JSON object per payload {"session", "line", "id", "kind" (image, output), "bytes", "saved", "sha256" (null on a dry run), "inContext"}, then one per file: {"session", "result" (clean, would-slim, slimmed, would-restore, restored, dropped, failed), "moved", "saved", "store", "backup", "carriedLines", "missing", "error"}'
            cand --no-pager 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'pi-session;grep'= {
            cand --role 'Only text of these roles (repeat or separate with commas)'
            cand -A 'Show NUM lines after each match (within the same text: never from another entry)'
            cand --after-context 'Show NUM lines after each match (within the same text: never from another entry)'
            cand -B 'Show NUM lines before each match (within the same text: never from another entry)'
            cand --before-context 'Show NUM lines before each match (within the same text: never from another entry)'
            cand -C 'Show NUM lines before and after each match (-A and -B take precedence)'
            cand --context 'Show NUM lines before and after each match (-A and -B take precedence)'
            cand -m 'At most NUM matching lines per session (the context after the last still shows)'
            cand --max-count 'At most NUM matching lines per session (the context after the last still shows)'
            cand -n 'At most N matching lines in all, across every session searched (the context after the last still shows); -N is -n N. Unlike ripgrep''s -n (line numbers: here lines are named by their entry id, and --json gives line numbers), -n is a count, as in log, tree and ls'
            cand --limit 'At most N matching lines in all, across every session searched (the context after the last still shows); -N is -n N. Unlike ripgrep''s -n (line numbers: here lines are named by their entry id, and --json gives line numbers), -n is a count, as in log, tree and ls'
            cand -s 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --session 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --color 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)'
            cand --all-sessions 'Search every session of the current directory, newest first'
            cand --all 'Search every session of every project (the sessions `ls --all` lists), in its order'
            cand --archived 'With --all-sessions or --all, also search the archived sessions (`pi-session archive`)'
            cand -i 'Match case-insensitively'
            cand --ignore-case 'Match case-insensitively'
            cand -F 'Take PATTERN literally, not as a regular expression'
            cand --fixed-strings 'Take PATTERN literally, not as a regular expression'
            cand -w 'Match only whole words: a match neither starts right after nor ends right before a word character (letters, digits and `_`, in any script)'
            cand --word-regexp 'Match only whole words: a match neither starts right after nor ends right before a word character (letters, digits and `_`, in any script)'
            cand --tools 'Also search tool-call arguments (role toolCall), one `key: value` per line'
            cand -q 'Print nothing; exit 0 at the first match (the search stops there), even if a session could not be read, else 1'
            cand --quiet 'Print nothing; exit 0 at the first match (the search stops there), even if a session could not be read, else 1'
            cand --heading 'Each session''s path on a line of its own above its lines (the default on a terminal, when paths are shown)'
            cand --no-heading 'The session''s path at the start of each line instead of above them (the default when stdout is not a terminal)'
            cand -H 'Show the session''s path even when one session is searched'
            cand --with-filename 'Show the session''s path even when one session is searched'
            cand --no-filename 'Never show the session''s path'
            cand --json 'One JSON object per match (NDJSON): path, id, role, line (1-based, within that text), text (the line), start and end (byte offsets of the match in text). No context lines'
            cand -c 'Print SESSION:COUNT, the number of matching lines, for each session that matched'
            cand --count 'Print SESSION:COUNT, the number of matching lines, for each session that matched'
            cand -l 'Print only the paths of sessions that matched'
            cand --files-with-matches 'Print only the paths of sessions that matched'
            cand --no-pager 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'pi-session;export'= {
            cand --format 'md or html [default: html when FILE ends in .html or .htm, else md]'
            cand -o 'Write to FILE instead of stdout (`-` is stdout). The file is written atomically (a temp file linked into place) and never replaces an existing file without --force. HTML is not printed to a terminal without `-o -`'
            cand --output 'Write to FILE instead of stdout (`-` is stdout). The file is written atomically (a temp file linked into place) and never replaces an existing file without --force. HTML is not printed to a terminal without `-o -`'
            cand -s 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --session 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --color 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)'
            cand -f 'Replace the -o file if it exists (atomically: the new file is renamed over it)'
            cand --force 'Replace the -o file if it exists (atomically: the new file is renamed over it)'
            cand --redact 'Take the credentials `secrets` finds (built-in rules, ./.gitleaks.toml, your own keys) out of what is written, as `redact` would; the session file is not changed'
            cand --all-branches 'Export the whole tree: the branch of REV (@) first, then every other branch from the entry it leaves, each entry once, with an outline of them all and links at each branch point'
            cand --no-pager 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'pi-session;completions'= {
            cand -s 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --session 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets`, `redact`, `slim` and `check` take several'
            cand --color 'When to color human output. `auto`: on a terminal, unless NO_COLOR (not empty) or CLICOLOR=0 is set; CLICOLOR_FORCE or FORCE_COLOR color even into a pipe (NO_COLOR wins)'
            cand --no-pager 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'pi-session;help'= {
            cand log 'Show a branch, newest entry first'
            cand tree 'Show the whole session tree, as Pi''s /tree shows it'
            cand show 'Show entries in full: every content block, tool-call arguments, model, usage and cost'
            cand context 'Show exactly the messages Pi 1.6.0 sends to the model with the leaf at REV'
            cand rev-parse 'Print the full ids that revisions name, one per line'
            cand diff 'Compare two branches: where they part, and what each did after'
            cand merge-base 'Print the newest entry two branches share: their merge base'
            cand checkout 'Move @ to another entry, persistently, so Pi continues from there'
            cand label 'Set, clear or list labels: names for entries that work as revisions'
            cand name 'Print or set the session''s name, as Pi''s /name does'
            cand mv 'Move sessions to another project directory (a project that was moved or renamed)'
            cand import 'Bring Claude Code or Codex CLI sessions into Pi, tree and all'
            cand clone 'Copy the branch ending at REV into a new session file, as Pi''s /clone does'
            cand fork 'Start a new session from just before a user message, as Pi''s /fork does'
            cand repair 'Check a session file for defects and fix them in place, losing nothing'
            cand prune 'Delete branches from a session''s tree, as `git branch -D` deletes a branch'
            cand compact 'Compact the conversation: summarize old history, keep recent messages, as Pi''s /compact'
            cand summarize-branch 'Leave @ for TARGET, keeping a summary of the branch being left, as Pi''s /tree does'
            cand ls 'List sessions as Pi''s /resume does, most recently active first'
            cand archive 'Move sessions out of Pi''s session folders into an archive beside them, or back'
            cand rm 'Move sessions to the trash, where file managers list them and can put them back'
            cand stats 'Tokens and cost of every paid call recorded in the session'
            cand files 'The files the branch read, edited and wrote, each with the entry that touched it last'
            cand check 'Check sessions against budgets and rules, for CI'
            cand usage 'What sessions cost, across every project: tokens and cost by day, week, month, session, project, model, provider or source'
            cand secrets 'Find the credentials sessions have recorded: API keys, tokens, private keys, passwords'
            cand redact 'Take the credentials `secrets` finds out of session files, in place'
            cand slim 'Move the heavy payloads the model no longer sees out of session files, in place'
            cand grep 'Search the text of a session with a regular expression, as ripgrep searches files'
            cand export 'Export a branch as a readable transcript: Markdown, or one self-contained HTML file'
            cand completions 'Print the completion script of a shell'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'pi-session;help;log'= {
        }
        &'pi-session;help;tree'= {
        }
        &'pi-session;help;show'= {
        }
        &'pi-session;help;context'= {
        }
        &'pi-session;help;rev-parse'= {
        }
        &'pi-session;help;diff'= {
        }
        &'pi-session;help;merge-base'= {
        }
        &'pi-session;help;checkout'= {
        }
        &'pi-session;help;label'= {
        }
        &'pi-session;help;name'= {
        }
        &'pi-session;help;mv'= {
        }
        &'pi-session;help;import'= {
        }
        &'pi-session;help;clone'= {
        }
        &'pi-session;help;fork'= {
        }
        &'pi-session;help;repair'= {
        }
        &'pi-session;help;prune'= {
        }
        &'pi-session;help;compact'= {
        }
        &'pi-session;help;summarize-branch'= {
        }
        &'pi-session;help;ls'= {
        }
        &'pi-session;help;archive'= {
        }
        &'pi-session;help;rm'= {
        }
        &'pi-session;help;stats'= {
        }
        &'pi-session;help;files'= {
        }
        &'pi-session;help;check'= {
        }
        &'pi-session;help;usage'= {
        }
        &'pi-session;help;secrets'= {
        }
        &'pi-session;help;redact'= {
        }
        &'pi-session;help;slim'= {
        }
        &'pi-session;help;grep'= {
        }
        &'pi-session;help;export'= {
        }
        &'pi-session;help;completions'= {
        }
        &'pi-session;help;help'= {
        }
    ]
    $completions[$command]
}
