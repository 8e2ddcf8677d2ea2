
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'pi-session' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'pi-session'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'pi-session' {
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets` and `redact` take several')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets` and `redact` take several')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('log', 'log', [CompletionResultType]::ParameterValue, 'Show a branch, newest entry first')
            [CompletionResult]::new('tree', 'tree', [CompletionResultType]::ParameterValue, 'Show the whole session tree, as Pi''s /tree shows it')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show entries in full: every content block, tool-call arguments, model, usage and cost')
            [CompletionResult]::new('context', 'context', [CompletionResultType]::ParameterValue, 'Show exactly the messages Pi 1.6.0 sends to the model with the leaf at REV')
            [CompletionResult]::new('rev-parse', 'rev-parse', [CompletionResultType]::ParameterValue, 'Print the full ids that revisions name, one per line')
            [CompletionResult]::new('diff', 'diff', [CompletionResultType]::ParameterValue, 'Compare two branches: where they part, and what each did after')
            [CompletionResult]::new('merge-base', 'merge-base', [CompletionResultType]::ParameterValue, 'Print the newest entry two branches share: their merge base')
            [CompletionResult]::new('checkout', 'checkout', [CompletionResultType]::ParameterValue, 'Move @ to another entry, persistently, so Pi continues from there')
            [CompletionResult]::new('label', 'label', [CompletionResultType]::ParameterValue, 'Set, clear or list labels: names for entries that work as revisions')
            [CompletionResult]::new('clone', 'clone', [CompletionResultType]::ParameterValue, 'Copy the branch ending at REV into a new session file, as Pi''s /clone does')
            [CompletionResult]::new('fork', 'fork', [CompletionResultType]::ParameterValue, 'Start a new session from just before a user message, as Pi''s /fork does')
            [CompletionResult]::new('repair', 'repair', [CompletionResultType]::ParameterValue, 'Check a session file for defects and fix them in place, losing nothing')
            [CompletionResult]::new('compact', 'compact', [CompletionResultType]::ParameterValue, 'Compact the conversation: summarize old history, keep recent messages, as Pi''s /compact')
            [CompletionResult]::new('summarize-branch', 'summarize-branch', [CompletionResultType]::ParameterValue, 'Leave @ for TARGET, keeping a summary of the branch being left, as Pi''s /tree does')
            [CompletionResult]::new('ls', 'ls', [CompletionResultType]::ParameterValue, 'List sessions as Pi''s /resume does, most recently active first')
            [CompletionResult]::new('stats', 'stats', [CompletionResultType]::ParameterValue, 'Tokens and cost of every paid call recorded in the session')
            [CompletionResult]::new('usage', 'usage', [CompletionResultType]::ParameterValue, 'What sessions cost, across every project: tokens and cost by day, week, month, session, project, model, provider or source')
            [CompletionResult]::new('secrets', 'secrets', [CompletionResultType]::ParameterValue, 'Find the credentials sessions have recorded: API keys, tokens, private keys, passwords')
            [CompletionResult]::new('redact', 'redact', [CompletionResultType]::ParameterValue, 'Take the credentials `secrets` finds out of session files, in place')
            [CompletionResult]::new('grep', 'grep', [CompletionResultType]::ParameterValue, 'Search the text of a session with a regular expression, as ripgrep searches files')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Export a branch as a readable transcript: Markdown, or one self-contained HTML file')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print the completion script of a shell')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'pi-session;log' {
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Show at most N entries')
            [CompletionResult]::new('--max-count', '--max-count', [CompletionResultType]::ParameterName, 'Show at most N entries')
            [CompletionResult]::new('--type', '--type', [CompletionResultType]::ParameterName, 'Only entries of these types (repeat or separate with commas)')
            [CompletionResult]::new('--role', '--role', [CompletionResultType]::ParameterName, 'Only messages with these roles (repeat or separate with commas)')
            [CompletionResult]::new('--max-chars', '--max-chars', [CompletionResultType]::ParameterName, 'With --long: cut tool results and command output after this many characters')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only entries from DATE on, by their timestamp: a day (2026-11-30, 20261130, today, yesterday, 7d, 2w) from its first instant, a date and time (2026-11-30T14:00, ''2026-11-30 14:00:05''; with Z or +02:00, else local time), or a time ago (''3 days ago'', 2.weeks.ago, ''90 minutes ago'', 1h, 90min, now: units second, minute, hour, day, week, month, year). Entries without a readable timestamp are left out. (With --all, an entry id here is taken as --after ID, with a deprecation note: that spelling goes in the next release.)')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Only entries up to DATE, by their timestamp: a day through its last instant, else the moment named (the forms of --since)')
            [CompletionResult]::new('--after', '--after', [CompletionResultType]::ParameterName, 'With --all: only entries appended after the entry with this id (a cursor for polling)')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'One line per entry from TEMPLATE, with these placeholders: %H id, %h short id (8 characters), %P parent id, %t time (local, as log shows it), %T timestamp as written, %y type, %r role, %K kind (the role of a message, else the type), %m model (of an assistant message or a model change), %l label, %k tokens (the totalTokens of the call the entry records), %s the first line of the entry''s text, %n newline, %% percent. A field an entry lacks is empty; control characters are escaped')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets` and `redact` take several')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets` and `redact` take several')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('--reverse', '--reverse', [CompletionResultType]::ParameterName, 'Oldest first')
            [CompletionResult]::new('--long', '--long', [CompletionResultType]::ParameterName, 'Show each entry in full: text, thinking, tool calls with arguments, tool results')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print each entry''s original line, byte for byte (NDJSON)')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every entry of the file in append order, not one branch (like Pi''s RPC get_entries)')
            [CompletionResult]::new('--oneline', '--oneline', [CompletionResultType]::ParameterName, 'One short line per entry: short id, kind (the role of a message, else the type), (@) and [label] when they apply, and the first line of the entry''s text, fitted to the terminal (off a terminal, to 200 columns)')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'After what log prints, print each entry as Pi appends it, until Ctrl-C (status 0). New entries come in append order: with --all every one, else those on the branch of @ as it moves (a notice on stderr when @ moves to another branch). -n and --reverse apply to the first part only. With --json, one original line per entry, flushed at once. A file replaced, cut or rewritten (repair, Pi''s migration) is read again with a notice on stderr, and only entries whose ids were not seen yet are printed')
            [CompletionResult]::new('--follow', '--follow', [CompletionResultType]::ParameterName, 'After what log prints, print each entry as Pi appends it, until Ctrl-C (status 0). New entries come in append order: with --all every one, else those on the branch of @ as it moves (a notice on stderr when @ moves to another branch). -n and --reverse apply to the first part only. With --json, one original line per entry, flushed at once. A file replaced, cut or rewritten (repair, Pi''s migration) is read again with a notice on stderr, and only entries whose ids were not seen yet are printed')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'With --follow: wait for a session file that does not exist yet (a path given with -s, or the first session of the current directory)')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'pi-session;tree' {
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Show at most N rows (the first N in display order)')
            [CompletionResult]::new('--max-count', '--max-count', [CompletionResultType]::ParameterName, 'Show at most N rows (the first N in display order)')
            [CompletionResult]::new('--depth', '--depth', [CompletionResultType]::ParameterName, 'Show only rows at most N forks deep: 0 is the trunk (the rows up to the first fork, the fork included), 1 adds the branches of those forks, and so on. A fork is a row with two or more children in the view shown, where the tree indents. A row whose rows below were cut ends with (+K rows). Applied before -n')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets` and `redact` take several')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets` and `redact` take several')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Show every entry')
            [CompletionResult]::new('--user', '--user', [CompletionResultType]::ParameterName, 'Show only user messages')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'One row per line (NDJSON), in display order: {"id","parentId","depth","type","role","label","timestamp","current","children"}; `current` marks @, `children` counts the row''s visible children (with --depth, those cut off too). `depth` counts the row''s ancestors, not forks')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'pi-session;show' {
            [CompletionResult]::new('--max-chars', '--max-chars', [CompletionResultType]::ParameterName, 'Cut tool results and command output after this many characters')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets` and `redact` take several')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets` and `redact` take several')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print each entry''s original line, byte for byte (one line per revision)')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'pi-session;context' {
            [CompletionResult]::new('--max-chars', '--max-chars', [CompletionResultType]::ParameterName, 'Cut tool results and command output after this many characters')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets` and `redact` take several')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets` and `redact` take several')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'One message object per line, field for field what Pi builds (NDJSON)')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'pi-session;rev-parse' {
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets` and `redact` take several')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets` and `redact` take several')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('--leaf', '--leaf', [CompletionResultType]::ParameterName, 'Print Pi''s literal leaf: the last entry of the file')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'pi-session;diff' {
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets` and `redact` take several')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets` and `redact` take several')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('--stat', '--stat', [CompletionResultType]::ParameterName, 'Sum each side: entries, messages by role, tokens and cost, tools called')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'NDJSON: a {"mergeBase", "left", "right"} record with the two tips'' ids, then one {"side", "id", "parentId", "type", "role", "timestamp", "preview"} record per entry (`side`: "left" or "right"); with --stat one {"side", "entries", "messages", "roles", "totalTokens", "cost", "tools"} record per side')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'pi-session;merge-base' {
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets` and `redact` take several')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets` and `redact` take several')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'One JSON object: {"mergeBase": ID or null}')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'pi-session;checkout' {
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'The model that writes the summary, as PROVIDER/MODEL (anthropic, openai, google, openrouter, groq, xai, mistral, deepseek, a custom provider of Pi''s models.json…). Default: Pi''s defaultProvider/defaultModel settings, else the model in effect on the branch')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Send the request to this OpenAI-compatible endpoint (Ollama, llama.cpp, vLLM, …)')
            [CompletionResult]::new('--context-window', '--context-window', [CompletionResultType]::ParameterName, 'The model''s context window in tokens [default: what is known for the model, else 128000]')
            [CompletionResult]::new('--max-output-tokens', '--max-output-tokens', [CompletionResultType]::ParameterName, 'The model''s output limit in tokens [default: what is known for the model, else 16384]')
            [CompletionResult]::new('--instructions', '--instructions', [CompletionResultType]::ParameterName, 'A focus for the summary, added to the instructions')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Give up on the model after SECONDS in all, retries and waits included (nothing is written)')
            [CompletionResult]::new('--summary-file', '--summary-file', [CompletionResultType]::ParameterName, 'Use this text as the summary instead of asking a model (`-` reads stdin)')
            [CompletionResult]::new('--summarizer', '--summarizer', [CompletionResultType]::ParameterName, 'Run CMD through the shell with the request on stdin; its stdout is the summary')
            [CompletionResult]::new('--expect-leaf', '--expect-leaf', [CompletionResultType]::ParameterName, 'Write nothing, and exit with status 4, unless Pi''s leaf (the last entry) is ID')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets` and `redact` take several')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets` and `redact` take several')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('--empty', '--empty', [CompletionResultType]::ParameterName, 'Make the next message start a new root (an empty conversation)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print {"at","from","abandoned","record"} as one JSON line (with --dry-run also "dryRun": true and "line", the line that would be appended)')
            [CompletionResult]::new('--summarize', '--summarize', [CompletionResultType]::ParameterName, 'Keep a summary of the branch being left, as `pi-session summarize-branch REV` does')
            [CompletionResult]::new('--include-thinking', '--include-thinking', [CompletionResultType]::ParameterName, 'Include assistant thinking in the text sent for summarizing (Pi leaves it out)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Write nothing: show what would be written (for a summary, the plan)')
            [CompletionResult]::new('--print-prompt', '--print-prompt', [CompletionResultType]::ParameterName, 'Print what would be sent to the model and change nothing')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'pi-session;label' {
            [CompletionResult]::new('--expect-leaf', '--expect-leaf', [CompletionResultType]::ParameterName, 'Write nothing, and exit with status 4, unless Pi''s leaf (the last entry) is ID')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets` and `redact` take several')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets` and `redact` take several')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('-d', '-d', [CompletionResultType]::ParameterName, 'Clear the label of REV')
            [CompletionResult]::new('--delete', '--delete', [CompletionResultType]::ParameterName, 'Clear the label of REV')
            [CompletionResult]::new('-l', '-l', [CompletionResultType]::ParameterName, 'List the current labels: name, target id, preview (also what a bare `label` does)')
            [CompletionResult]::new('--list', '--list', [CompletionResultType]::ParameterName, 'List the current labels: name, target id, preview (also what a bare `label` does)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'When listing: one JSON object per label {"label","targetId","type","role","timestamp","preview"}; with --dry-run: the label entries that would be appended, one per line')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Move NAME here from the entry that has it (its label is cleared)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Move NAME here from the entry that has it (its label is cleared)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the label entries that would be appended, and write nothing')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'pi-session;clone' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write the new session here instead of beside the source; `-` prints it on stdout. An existing file is never replaced without --force')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write the new session here instead of beside the source; `-` prints it on stdout. An existing file is never replaced without --force')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets` and `redact` take several')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets` and `redact` take several')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('--redact', '--redact', [CompletionResultType]::ParameterName, 'Take the credentials `secrets` finds (built-in rules, ./.gitleaks.toml, your own keys) out of what is written, as `redact` would; the session file is not changed')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Replace the -o file if it exists (atomically: the new file is renamed over it)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Replace the -o file if it exists (atomically: the new file is renamed over it)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the path and line count of the file that would be written, and write nothing')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print {"path","parentSession","entries","message"} as one JSON line (with --dry-run, also "lines" and "dryRun")')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'pi-session;fork' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write the new session here instead of beside the source; `-` prints it on stdout. An existing file is never replaced without --force')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write the new session here instead of beside the source; `-` prints it on stdout. An existing file is never replaced without --force')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets` and `redact` take several')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets` and `redact` take several')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Replace the -o file if it exists (atomically: the new file is renamed over it)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Replace the -o file if it exists (atomically: the new file is renamed over it)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Print the path and line count of the file that would be written, and write nothing')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Print {"path","parentSession","entries","message"} as one JSON line (with --dry-run, also "lines" and "dryRun")')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'pi-session;repair' {
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets` and `redact` take several')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets` and `redact` take several')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('--check', '--check', [CompletionResultType]::ParameterName, 'Report only; exit 1 if a defect was found (warnings allowed). The repaired file is not built, so with --json `after` is null when there are defects')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would be done, write nothing')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every session in the sessions directory, with a summary table')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'One JSON object per finding {"path","line","lines","kind","severity","id","message","action"}, then one per file {"path","result","defects","warnings","backup","rejectsFile","carriedLines","after"}; `after` is how Pi reads the repaired file: {"leaf","at","branch","context_messages","entries"}')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'pi-session;compact' {
            [CompletionResult]::new('--keep-recent-tokens', '--keep-recent-tokens', [CompletionResultType]::ParameterName, 'Tokens of recent conversation to keep [default: settings, else 20000]')
            [CompletionResult]::new('--reserve-tokens', '--reserve-tokens', [CompletionResultType]::ParameterName, 'Tokens kept free for the model''s answer [default: settings, else 16384]')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'The model that writes the summary, as PROVIDER/MODEL (anthropic, openai, google, openrouter, groq, xai, mistral, deepseek, a custom provider of Pi''s models.json…). Default: Pi''s defaultProvider/defaultModel settings, else the model in effect on the branch')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Send the request to this OpenAI-compatible endpoint (Ollama, llama.cpp, vLLM, …)')
            [CompletionResult]::new('--context-window', '--context-window', [CompletionResultType]::ParameterName, 'The model''s context window in tokens [default: what is known for the model, else 128000]')
            [CompletionResult]::new('--max-output-tokens', '--max-output-tokens', [CompletionResultType]::ParameterName, 'The model''s output limit in tokens [default: what is known for the model, else 16384]')
            [CompletionResult]::new('--instructions', '--instructions', [CompletionResultType]::ParameterName, 'A focus for the summary, added to the instructions')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Give up on the model after SECONDS in all, retries and waits included (nothing is written)')
            [CompletionResult]::new('--summary-file', '--summary-file', [CompletionResultType]::ParameterName, 'Use this text as the summary instead of asking a model (`-` reads stdin)')
            [CompletionResult]::new('--summarizer', '--summarizer', [CompletionResultType]::ParameterName, 'Run CMD through the shell with the request on stdin; its stdout is the summary')
            [CompletionResult]::new('--expect-leaf', '--expect-leaf', [CompletionResultType]::ParameterName, 'Write nothing, and exit with status 4, unless Pi''s leaf (the last entry) is ID')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets` and `redact` take several')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets` and `redact` take several')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('--if-needed', '--if-needed', [CompletionResultType]::ParameterName, 'Compact only when the context exceeds the context window minus reserveTokens')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'With --dry-run: the plan as one JSON object {"compact":true,"firstKeptEntryId","isSplitTurn","tokensBefore","tokensKept","messagesToSummarize", "turnPrefixMessages","previousSummary","readFiles","modifiedFiles","keepRecentTokens"}, or {"compact":false,"reason"} when there is nothing to compact (reason: noEntries, alreadyCompacted, nothingToSummarize or notNeeded)')
            [CompletionResult]::new('--include-thinking', '--include-thinking', [CompletionResultType]::ParameterName, 'Include assistant thinking in the text sent for summarizing (Pi leaves it out)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Write nothing: show what would be written (for a summary, the plan)')
            [CompletionResult]::new('--print-prompt', '--print-prompt', [CompletionResultType]::ParameterName, 'Print what would be sent to the model and change nothing')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'pi-session;summarize-branch' {
            [CompletionResult]::new('--reserve-tokens', '--reserve-tokens', [CompletionResultType]::ParameterName, 'Tokens kept free for the model''s answer [default: settings, else 16384]')
            [CompletionResult]::new('--model', '--model', [CompletionResultType]::ParameterName, 'The model that writes the summary, as PROVIDER/MODEL (anthropic, openai, google, openrouter, groq, xai, mistral, deepseek, a custom provider of Pi''s models.json…). Default: Pi''s defaultProvider/defaultModel settings, else the model in effect on the branch')
            [CompletionResult]::new('--base-url', '--base-url', [CompletionResultType]::ParameterName, 'Send the request to this OpenAI-compatible endpoint (Ollama, llama.cpp, vLLM, …)')
            [CompletionResult]::new('--context-window', '--context-window', [CompletionResultType]::ParameterName, 'The model''s context window in tokens [default: what is known for the model, else 128000]')
            [CompletionResult]::new('--max-output-tokens', '--max-output-tokens', [CompletionResultType]::ParameterName, 'The model''s output limit in tokens [default: what is known for the model, else 16384]')
            [CompletionResult]::new('--instructions', '--instructions', [CompletionResultType]::ParameterName, 'A focus for the summary, added to the instructions')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Give up on the model after SECONDS in all, retries and waits included (nothing is written)')
            [CompletionResult]::new('--summary-file', '--summary-file', [CompletionResultType]::ParameterName, 'Use this text as the summary instead of asking a model (`-` reads stdin)')
            [CompletionResult]::new('--summarizer', '--summarizer', [CompletionResultType]::ParameterName, 'Run CMD through the shell with the request on stdin; its stdout is the summary')
            [CompletionResult]::new('--expect-leaf', '--expect-leaf', [CompletionResultType]::ParameterName, 'Write nothing, and exit with status 4, unless Pi''s leaf (the last entry) is ID')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets` and `redact` take several')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets` and `redact` take several')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'With --dry-run: the plan as one JSON object {"target","parent" (where the summary goes: TARGET, or its parent for a user or custom message),"from" (Pi''s leaf),"commonAncestor","entries","messages","totalTokens", "readFiles","modifiedFiles"}')
            [CompletionResult]::new('--include-thinking', '--include-thinking', [CompletionResultType]::ParameterName, 'Include assistant thinking in the text sent for summarizing (Pi leaves it out)')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Write nothing: show what would be written (for a summary, the plan)')
            [CompletionResult]::new('--print-prompt', '--print-prompt', [CompletionResultType]::ParameterName, 'Print what would be sent to the model and change nothing')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'pi-session;ls' {
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Show at most N sessions (the most recently modified)')
            [CompletionResult]::new('--max-count', '--max-count', [CompletionResultType]::ParameterName, 'Show at most N sessions (the most recently modified)')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets` and `redact` take several')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets` and `redact` take several')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Sessions of every project, not only the current directory''s')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'One JSON object per session (NDJSON): path, id, name, firstMessage, messageCount, created, modified (ISO 8601 or null), cwd, parentSession, current (true for the session that commands run here without -s use)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Also show each session''s path, creation time and parent session, and say on stderr how many files were skipped because they are not Pi sessions')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also show each session''s path, creation time and parent session, and say on stderr how many files were skipped because they are not Pi sessions')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Read every session file, neither using nor updating the cache. By default what was read from each file is kept in $XDG_CACHE_HOME/pi-session/listing.cache (or ~/.cache/pi-session/listing.cache) and used again while the file''s size, modification time and inode are unchanged, so listing unchanged files costs a stat per file')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'pi-session;stats' {
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets` and `redact` take several')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets` and `redact` take several')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('--branch', '--branch', [CompletionResultType]::ParameterName, 'Count only the calls on the branch of REV [default: @], not the whole file')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'One JSON object: {"total", "byModel", "bySource"}. Each total is {"input", "output", "cacheRead", "cacheWrite", "totalTokens", "cost": {"input", "output", "cacheRead", "cacheWrite", "total"}}; "byModel" lists them with "provider" and "model", "bySource" names them "assistant", "usage", "compaction", "branchSummary" and "toolResult"')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'pi-session;usage' {
            [CompletionResult]::new('--by', '--by', [CompletionResultType]::ParameterName, 'Group by these keys, in this order (repeat or separate with commas)')
            [CompletionResult]::new('--since', '--since', [CompletionResultType]::ParameterName, 'Only calls on or after this day: YYYY-MM-DD, YYYYMMDD, or Nd / Nw (N days or weeks before today; 0d is today)')
            [CompletionResult]::new('--until', '--until', [CompletionResultType]::ParameterName, 'Only calls on or before this day (same forms as --since)')
            [CompletionResult]::new('-z', '-z', [CompletionResultType]::ParameterName, 'Take calendar days in this time zone (an IANA name such as Europe/Paris, or UTC) [default: the local time zone]')
            [CompletionResult]::new('--timezone', '--timezone', [CompletionResultType]::ParameterName, 'Take calendar days in this time zone (an IANA name such as Europe/Paris, or UTC) [default: the local time zone]')
            [CompletionResult]::new('--project', '--project', [CompletionResultType]::ParameterName, 'Only the sessions of this project folder (`.` for the current directory)')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets` and `redact` take several')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets` and `redact` take several')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'One JSON object per group (NDJSON): each --by key (day and week as YYYY-MM-DD, the week by its Monday; month as YYYY-MM; session as the session id plus "path"; project as the cwd; model; provider; source as assistant, usage, compaction, branchSummary or toolResult), then "input", "output", "cacheRead", "cacheWrite", "totalTokens", "cost" and "calls"; last, {"total": true, ...} with the same counters')
            [CompletionResult]::new('--csv', '--csv', [CompletionResultType]::ParameterName, 'CSV with a header row; the last row holds the totals')
            [CompletionResult]::new('--no-cache', '--no-cache', [CompletionResultType]::ParameterName, 'Read every session file, neither using nor updating the cache. By default what was read from each file is kept in $XDG_CACHE_HOME/pi-session/usage.cache (or ~/.cache/pi-session/usage.cache) and used again while the file''s size, modification time and inode are unchanged, so a report over unchanged files costs a stat per file')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'pi-session;secrets' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Rules in gitleaks'' configuration format (TOML [[rules]] and [allowlist]), e.g. a team''s .gitleaks.toml [default: ./.gitleaks.toml when there is one]. Its rules replace the built-in ones unless it has `[extend] useDefault = true`; its allowlists apply')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets` and `redact` take several')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets` and `redact` take several')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every session of every project [default: the session -s names (repeatable), else the most recent session of the current directory]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'One JSON object per finding: {"session", "line", "entry", "type", "path", "rule", "preview", "length"} (path: where in the entry, as message.content[2].arguments.command); and one per payload that cannot be read: {"session", "line", "entry", "path", "unscannable"}')
            [CompletionResult]::new('--no-own-keys', '--no-own-keys', [CompletionResultType]::ParameterName, 'Do not look for the values of your own keys: the provider variables Pi reads (and any other *_API_KEY, *_TOKEN, *_SECRET variable) and the keys in Pi''s auth.json')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'pi-session;redact' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'Rules in gitleaks'' configuration format (TOML [[rules]] and [allowlist]), e.g. a team''s .gitleaks.toml [default: ./.gitleaks.toml when there is one]. Its rules replace the built-in ones unless it has `[extend] useDefault = true`; its allowlists apply')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets` and `redact` take several')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets` and `redact` take several')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Every session of every project')
            [CompletionResult]::new('--dry-run', '--dry-run', [CompletionResultType]::ParameterName, 'Show what would be taken out; write nothing')
            [CompletionResult]::new('--no-backup', '--no-backup', [CompletionResultType]::ParameterName, 'Keep no backup of the original, so the secrets leave the file system''s view (blocks the disk held may still hold them until reused)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'One JSON object per finding (as `secrets --json`), then one per file: {"session", "result" (clean, would-redact, redacted, failed), "redacted", "backup", "carriedLines", "error"}')
            [CompletionResult]::new('--no-own-keys', '--no-own-keys', [CompletionResultType]::ParameterName, 'Do not look for the values of your own keys: the provider variables Pi reads (and any other *_API_KEY, *_TOKEN, *_SECRET variable) and the keys in Pi''s auth.json')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'pi-session;grep' {
            [CompletionResult]::new('--role', '--role', [CompletionResultType]::ParameterName, 'Only text of these roles (repeat or separate with commas)')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Show NUM lines after each match (within the same text: never from another entry)')
            [CompletionResult]::new('--after-context', '--after-context', [CompletionResultType]::ParameterName, 'Show NUM lines after each match (within the same text: never from another entry)')
            [CompletionResult]::new('-B', '-B ', [CompletionResultType]::ParameterName, 'Show NUM lines before each match (within the same text: never from another entry)')
            [CompletionResult]::new('--before-context', '--before-context', [CompletionResultType]::ParameterName, 'Show NUM lines before each match (within the same text: never from another entry)')
            [CompletionResult]::new('-C', '-C ', [CompletionResultType]::ParameterName, 'Show NUM lines before and after each match (-A and -B take precedence)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'Show NUM lines before and after each match (-A and -B take precedence)')
            [CompletionResult]::new('-m', '-m', [CompletionResultType]::ParameterName, 'At most NUM matching lines per session (the context after the last still shows)')
            [CompletionResult]::new('--max-count', '--max-count', [CompletionResultType]::ParameterName, 'At most NUM matching lines per session (the context after the last still shows)')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'At most N matching lines in all, across every session searched (the context after the last still shows); -N is -n N. Unlike ripgrep''s -n (line numbers: here lines are named by their entry id, and --json gives line numbers), -n is a count, as in log, tree and ls')
            [CompletionResult]::new('--limit', '--limit', [CompletionResultType]::ParameterName, 'At most N matching lines in all, across every session searched (the context after the last still shows); -N is -n N. Unlike ripgrep''s -n (line numbers: here lines are named by their entry id, and --json gives line numbers), -n is a count, as in log, tree and ls')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets` and `redact` take several')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets` and `redact` take several')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('--all-sessions', '--all-sessions', [CompletionResultType]::ParameterName, 'Search every session of the current directory, newest first')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Search every session of every project (the sessions `ls --all` lists), in its order')
            [CompletionResult]::new('-i', '-i', [CompletionResultType]::ParameterName, 'Match case-insensitively')
            [CompletionResult]::new('--ignore-case', '--ignore-case', [CompletionResultType]::ParameterName, 'Match case-insensitively')
            [CompletionResult]::new('-F', '-F ', [CompletionResultType]::ParameterName, 'Take PATTERN literally, not as a regular expression')
            [CompletionResult]::new('--fixed-strings', '--fixed-strings', [CompletionResultType]::ParameterName, 'Take PATTERN literally, not as a regular expression')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Match only whole words: a match neither starts right after nor ends right before a word character (letters, digits and `_`, in any script)')
            [CompletionResult]::new('--word-regexp', '--word-regexp', [CompletionResultType]::ParameterName, 'Match only whole words: a match neither starts right after nor ends right before a word character (letters, digits and `_`, in any script)')
            [CompletionResult]::new('--tools', '--tools', [CompletionResultType]::ParameterName, 'Also search tool-call arguments (role toolCall), one `key: value` per line')
            [CompletionResult]::new('-q', '-q', [CompletionResultType]::ParameterName, 'Print nothing; exit 0 at the first match (the search stops there), even if a session could not be read, else 1')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Print nothing; exit 0 at the first match (the search stops there), even if a session could not be read, else 1')
            [CompletionResult]::new('--heading', '--heading', [CompletionResultType]::ParameterName, 'Each session''s path on a line of its own above its lines (the default on a terminal, when paths are shown)')
            [CompletionResult]::new('--no-heading', '--no-heading', [CompletionResultType]::ParameterName, 'The session''s path at the start of each line instead of above them (the default when stdout is not a terminal)')
            [CompletionResult]::new('-H', '-H ', [CompletionResultType]::ParameterName, 'Show the session''s path even when one session is searched')
            [CompletionResult]::new('--with-filename', '--with-filename', [CompletionResultType]::ParameterName, 'Show the session''s path even when one session is searched')
            [CompletionResult]::new('--no-filename', '--no-filename', [CompletionResultType]::ParameterName, 'Never show the session''s path')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'One JSON object per match (NDJSON): path, id, role, line (1-based, within that text), text (the line), start and end (byte offsets of the match in text). No context lines')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Print SESSION:COUNT, the number of matching lines, for each session that matched')
            [CompletionResult]::new('--count', '--count', [CompletionResultType]::ParameterName, 'Print SESSION:COUNT, the number of matching lines, for each session that matched')
            [CompletionResult]::new('-l', '-l', [CompletionResultType]::ParameterName, 'Print only the paths of sessions that matched')
            [CompletionResult]::new('--files-with-matches', '--files-with-matches', [CompletionResultType]::ParameterName, 'Print only the paths of sessions that matched')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'pi-session;export' {
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'md or html [default: html when FILE ends in .html or .htm, else md]')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write to FILE instead of stdout (`-` is stdout). The file is written atomically (a temp file linked into place) and never replaces an existing file without --force. HTML is not printed to a terminal without `-o -`')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write to FILE instead of stdout (`-` is stdout). The file is written atomically (a temp file linked into place) and never replaces an existing file without --force. HTML is not printed to a terminal without `-o -`')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets` and `redact` take several')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets` and `redact` take several')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Replace the -o file if it exists (atomically: the new file is renamed over it)')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Replace the -o file if it exists (atomically: the new file is renamed over it)')
            [CompletionResult]::new('--redact', '--redact', [CompletionResultType]::ParameterName, 'Take the credentials `secrets` finds (built-in rules, ./.gitleaks.toml, your own keys) out of what is written, as `redact` would; the session file is not changed')
            [CompletionResult]::new('--all-branches', '--all-branches', [CompletionResultType]::ParameterName, 'Export the whole tree: the branch of REV (@) first, then every other branch from the entry it leaves, each entry once, with an outline of them all and links at each branch point')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'pi-session;completions' {
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets` and `redact` take several')
            [CompletionResult]::new('--session', '--session', [CompletionResultType]::ParameterName, 'Session file, or the id (or unique id prefix) of a session of the current directory. Default: the most recent session of the current directory, found as Pi finds it. `usage`, `secrets` and `redact` take several')
            [CompletionResult]::new('--color', '--color', [CompletionResultType]::ParameterName, 'When to color human output')
            [CompletionResult]::new('--no-pager', '--no-pager', [CompletionResultType]::ParameterName, 'Do not page the human output of log, show, context and export (on a terminal it goes through $PI_SESSION_PAGER, else $PAGER, else `less -FRX`)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'pi-session;help' {
            [CompletionResult]::new('log', 'log', [CompletionResultType]::ParameterValue, 'Show a branch, newest entry first')
            [CompletionResult]::new('tree', 'tree', [CompletionResultType]::ParameterValue, 'Show the whole session tree, as Pi''s /tree shows it')
            [CompletionResult]::new('show', 'show', [CompletionResultType]::ParameterValue, 'Show entries in full: every content block, tool-call arguments, model, usage and cost')
            [CompletionResult]::new('context', 'context', [CompletionResultType]::ParameterValue, 'Show exactly the messages Pi 1.6.0 sends to the model with the leaf at REV')
            [CompletionResult]::new('rev-parse', 'rev-parse', [CompletionResultType]::ParameterValue, 'Print the full ids that revisions name, one per line')
            [CompletionResult]::new('diff', 'diff', [CompletionResultType]::ParameterValue, 'Compare two branches: where they part, and what each did after')
            [CompletionResult]::new('merge-base', 'merge-base', [CompletionResultType]::ParameterValue, 'Print the newest entry two branches share: their merge base')
            [CompletionResult]::new('checkout', 'checkout', [CompletionResultType]::ParameterValue, 'Move @ to another entry, persistently, so Pi continues from there')
            [CompletionResult]::new('label', 'label', [CompletionResultType]::ParameterValue, 'Set, clear or list labels: names for entries that work as revisions')
            [CompletionResult]::new('clone', 'clone', [CompletionResultType]::ParameterValue, 'Copy the branch ending at REV into a new session file, as Pi''s /clone does')
            [CompletionResult]::new('fork', 'fork', [CompletionResultType]::ParameterValue, 'Start a new session from just before a user message, as Pi''s /fork does')
            [CompletionResult]::new('repair', 'repair', [CompletionResultType]::ParameterValue, 'Check a session file for defects and fix them in place, losing nothing')
            [CompletionResult]::new('compact', 'compact', [CompletionResultType]::ParameterValue, 'Compact the conversation: summarize old history, keep recent messages, as Pi''s /compact')
            [CompletionResult]::new('summarize-branch', 'summarize-branch', [CompletionResultType]::ParameterValue, 'Leave @ for TARGET, keeping a summary of the branch being left, as Pi''s /tree does')
            [CompletionResult]::new('ls', 'ls', [CompletionResultType]::ParameterValue, 'List sessions as Pi''s /resume does, most recently active first')
            [CompletionResult]::new('stats', 'stats', [CompletionResultType]::ParameterValue, 'Tokens and cost of every paid call recorded in the session')
            [CompletionResult]::new('usage', 'usage', [CompletionResultType]::ParameterValue, 'What sessions cost, across every project: tokens and cost by day, week, month, session, project, model, provider or source')
            [CompletionResult]::new('secrets', 'secrets', [CompletionResultType]::ParameterValue, 'Find the credentials sessions have recorded: API keys, tokens, private keys, passwords')
            [CompletionResult]::new('redact', 'redact', [CompletionResultType]::ParameterValue, 'Take the credentials `secrets` finds out of session files, in place')
            [CompletionResult]::new('grep', 'grep', [CompletionResultType]::ParameterValue, 'Search the text of a session with a regular expression, as ripgrep searches files')
            [CompletionResult]::new('export', 'export', [CompletionResultType]::ParameterValue, 'Export a branch as a readable transcript: Markdown, or one self-contained HTML file')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print the completion script of a shell')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'pi-session;help;log' {
            break
        }
        'pi-session;help;tree' {
            break
        }
        'pi-session;help;show' {
            break
        }
        'pi-session;help;context' {
            break
        }
        'pi-session;help;rev-parse' {
            break
        }
        'pi-session;help;diff' {
            break
        }
        'pi-session;help;merge-base' {
            break
        }
        'pi-session;help;checkout' {
            break
        }
        'pi-session;help;label' {
            break
        }
        'pi-session;help;clone' {
            break
        }
        'pi-session;help;fork' {
            break
        }
        'pi-session;help;repair' {
            break
        }
        'pi-session;help;compact' {
            break
        }
        'pi-session;help;summarize-branch' {
            break
        }
        'pi-session;help;ls' {
            break
        }
        'pi-session;help;stats' {
            break
        }
        'pi-session;help;usage' {
            break
        }
        'pi-session;help;secrets' {
            break
        }
        'pi-session;help;redact' {
            break
        }
        'pi-session;help;grep' {
            break
        }
        'pi-session;help;export' {
            break
        }
        'pi-session;help;completions' {
            break
        }
        'pi-session;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
