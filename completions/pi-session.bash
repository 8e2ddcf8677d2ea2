_pi_session() {
    local i cur prev opts cmd
    COMPREPLY=()
    if [[ "${BASH_VERSINFO[0]}" -ge 4 ]]; then
        cur="$2"
    else
        cur="${COMP_WORDS[COMP_CWORD]}"
    fi
    prev="$3"
    cmd=""
    opts=""

    for i in "${COMP_WORDS[@]:0:COMP_CWORD}"
    do
        case "${cmd},${i}" in
            ",$1")
                cmd="pi_session"
                ;;
            pi_session,archive)
                cmd="pi_session__subcmd__archive"
                ;;
            pi_session,check)
                cmd="pi_session__subcmd__check"
                ;;
            pi_session,checkout)
                cmd="pi_session__subcmd__checkout"
                ;;
            pi_session,clone)
                cmd="pi_session__subcmd__clone"
                ;;
            pi_session,compact)
                cmd="pi_session__subcmd__compact"
                ;;
            pi_session,completions)
                cmd="pi_session__subcmd__completions"
                ;;
            pi_session,context)
                cmd="pi_session__subcmd__context"
                ;;
            pi_session,diff)
                cmd="pi_session__subcmd__diff"
                ;;
            pi_session,export)
                cmd="pi_session__subcmd__export"
                ;;
            pi_session,files)
                cmd="pi_session__subcmd__files"
                ;;
            pi_session,fork)
                cmd="pi_session__subcmd__fork"
                ;;
            pi_session,grep)
                cmd="pi_session__subcmd__grep"
                ;;
            pi_session,help)
                cmd="pi_session__subcmd__help"
                ;;
            pi_session,import)
                cmd="pi_session__subcmd__import"
                ;;
            pi_session,label)
                cmd="pi_session__subcmd__label"
                ;;
            pi_session,log)
                cmd="pi_session__subcmd__log"
                ;;
            pi_session,ls)
                cmd="pi_session__subcmd__ls"
                ;;
            pi_session,merge-base)
                cmd="pi_session__subcmd__merge__subcmd__base"
                ;;
            pi_session,mv)
                cmd="pi_session__subcmd__mv"
                ;;
            pi_session,name)
                cmd="pi_session__subcmd__name"
                ;;
            pi_session,prune)
                cmd="pi_session__subcmd__prune"
                ;;
            pi_session,redact)
                cmd="pi_session__subcmd__redact"
                ;;
            pi_session,repair)
                cmd="pi_session__subcmd__repair"
                ;;
            pi_session,rev-parse)
                cmd="pi_session__subcmd__rev__subcmd__parse"
                ;;
            pi_session,rm)
                cmd="pi_session__subcmd__rm"
                ;;
            pi_session,secrets)
                cmd="pi_session__subcmd__secrets"
                ;;
            pi_session,show)
                cmd="pi_session__subcmd__show"
                ;;
            pi_session,slim)
                cmd="pi_session__subcmd__slim"
                ;;
            pi_session,stats)
                cmd="pi_session__subcmd__stats"
                ;;
            pi_session,summarize-branch)
                cmd="pi_session__subcmd__summarize__subcmd__branch"
                ;;
            pi_session,tree)
                cmd="pi_session__subcmd__tree"
                ;;
            pi_session,usage)
                cmd="pi_session__subcmd__usage"
                ;;
            pi_session__subcmd__help,archive)
                cmd="pi_session__subcmd__help__subcmd__archive"
                ;;
            pi_session__subcmd__help,check)
                cmd="pi_session__subcmd__help__subcmd__check"
                ;;
            pi_session__subcmd__help,checkout)
                cmd="pi_session__subcmd__help__subcmd__checkout"
                ;;
            pi_session__subcmd__help,clone)
                cmd="pi_session__subcmd__help__subcmd__clone"
                ;;
            pi_session__subcmd__help,compact)
                cmd="pi_session__subcmd__help__subcmd__compact"
                ;;
            pi_session__subcmd__help,completions)
                cmd="pi_session__subcmd__help__subcmd__completions"
                ;;
            pi_session__subcmd__help,context)
                cmd="pi_session__subcmd__help__subcmd__context"
                ;;
            pi_session__subcmd__help,diff)
                cmd="pi_session__subcmd__help__subcmd__diff"
                ;;
            pi_session__subcmd__help,export)
                cmd="pi_session__subcmd__help__subcmd__export"
                ;;
            pi_session__subcmd__help,files)
                cmd="pi_session__subcmd__help__subcmd__files"
                ;;
            pi_session__subcmd__help,fork)
                cmd="pi_session__subcmd__help__subcmd__fork"
                ;;
            pi_session__subcmd__help,grep)
                cmd="pi_session__subcmd__help__subcmd__grep"
                ;;
            pi_session__subcmd__help,help)
                cmd="pi_session__subcmd__help__subcmd__help"
                ;;
            pi_session__subcmd__help,import)
                cmd="pi_session__subcmd__help__subcmd__import"
                ;;
            pi_session__subcmd__help,label)
                cmd="pi_session__subcmd__help__subcmd__label"
                ;;
            pi_session__subcmd__help,log)
                cmd="pi_session__subcmd__help__subcmd__log"
                ;;
            pi_session__subcmd__help,ls)
                cmd="pi_session__subcmd__help__subcmd__ls"
                ;;
            pi_session__subcmd__help,merge-base)
                cmd="pi_session__subcmd__help__subcmd__merge__subcmd__base"
                ;;
            pi_session__subcmd__help,mv)
                cmd="pi_session__subcmd__help__subcmd__mv"
                ;;
            pi_session__subcmd__help,name)
                cmd="pi_session__subcmd__help__subcmd__name"
                ;;
            pi_session__subcmd__help,prune)
                cmd="pi_session__subcmd__help__subcmd__prune"
                ;;
            pi_session__subcmd__help,redact)
                cmd="pi_session__subcmd__help__subcmd__redact"
                ;;
            pi_session__subcmd__help,repair)
                cmd="pi_session__subcmd__help__subcmd__repair"
                ;;
            pi_session__subcmd__help,rev-parse)
                cmd="pi_session__subcmd__help__subcmd__rev__subcmd__parse"
                ;;
            pi_session__subcmd__help,rm)
                cmd="pi_session__subcmd__help__subcmd__rm"
                ;;
            pi_session__subcmd__help,secrets)
                cmd="pi_session__subcmd__help__subcmd__secrets"
                ;;
            pi_session__subcmd__help,show)
                cmd="pi_session__subcmd__help__subcmd__show"
                ;;
            pi_session__subcmd__help,slim)
                cmd="pi_session__subcmd__help__subcmd__slim"
                ;;
            pi_session__subcmd__help,stats)
                cmd="pi_session__subcmd__help__subcmd__stats"
                ;;
            pi_session__subcmd__help,summarize-branch)
                cmd="pi_session__subcmd__help__subcmd__summarize__subcmd__branch"
                ;;
            pi_session__subcmd__help,tree)
                cmd="pi_session__subcmd__help__subcmd__tree"
                ;;
            pi_session__subcmd__help,usage)
                cmd="pi_session__subcmd__help__subcmd__usage"
                ;;
            *)
                ;;
        esac
    done

    case "${cmd}" in
        pi_session)
            opts="-s -h -V --session --color --no-pager --help --version log tree show context rev-parse diff merge-base checkout label name mv import clone fork repair prune compact summarize-branch ls archive rm stats files check usage secrets redact slim grep export completions help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 1 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -s)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__archive)
            opts="-s -h -V --older-than --all --restore --force --dry-run --json --session --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --older-than)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -s)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__check)
            opts="-s -h -V --all --config --max-cost --max-tokens --max-context --max-tool-calls --max-turns --no-tool-errors --max-tool-errors --no-secrets --valid --forbid-tool --require-tool --paths --branch --gitleaks-config --no-own-keys --json --format --junit --force --no-cache --session --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-cost)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-tokens)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-tool-calls)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-turns)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-tool-errors)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --forbid-tool)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --require-tool)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --paths)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --gitleaks-config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -W "human github" -- "${cur}"))
                    return 0
                    ;;
                --junit)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -s)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__checkout)
            opts="-s -h -V --empty --json --summarize --model --base-url --context-window --max-output-tokens --instructions --timeout --include-thinking --summary-file --summarizer --dry-run --print-prompt --expect-leaf --session --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --model)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --base-url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context-window)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-output-tokens)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --instructions)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --summary-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --summarizer)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --expect-leaf)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -s)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__clone)
            opts="-o -f -s -h -V --redact --output --force --dry-run --json --session --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --output)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -s)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__compact)
            opts="-s -h -V --keep-recent-tokens --reserve-tokens --if-needed --json --model --base-url --context-window --max-output-tokens --instructions --timeout --include-thinking --summary-file --summarizer --dry-run --print-prompt --expect-leaf --session --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --keep-recent-tokens)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --reserve-tokens)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --model)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --base-url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context-window)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-output-tokens)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --instructions)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --summary-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --summarizer)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --expect-leaf)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -s)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__completions)
            opts="-s -h -V --session --color --no-pager --help --version bash zsh fish elvish"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -s)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__context)
            opts="-s -h -V --json --max-chars --session --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --max-chars)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -s)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__diff)
            opts="-s -h -V --stat --json --session --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -s)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__export)
            opts="-o -f -s -h -V --format --output --force --redact --all-branches --session --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --format)
                    COMPREPLY=($(compgen -W "md html" -- "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -s)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__files)
            opts="-s -h -V --all --json --session --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -s)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__fork)
            opts="-o -f -s -h -V --output --force --dry-run --json --session --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --output)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -s)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__grep)
            opts="-i -F -w -A -B -C -m -n -q -H -c -l -s -h -V --all-sessions --all --archived --role --ignore-case --fixed-strings --word-regexp --tools --after-context --before-context --context --max-count --limit --quiet --heading --no-heading --with-filename --no-filename --json --count --files-with-matches --session --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --role)
                    COMPREPLY=($(compgen -W "user assistant toolResult bashExecution custom system compaction branchSummary toolCall" -- "${cur}"))
                    return 0
                    ;;
                --after-context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -A)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --before-context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -B)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -C)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-count)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -m)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --limit)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -s)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__help)
            opts="log tree show context rev-parse diff merge-base checkout label name mv import clone fork repair prune compact summarize-branch ls archive rm stats files check usage secrets redact slim grep export completions help"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__help__subcmd__archive)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__help__subcmd__check)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__help__subcmd__checkout)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__help__subcmd__clone)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__help__subcmd__compact)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__help__subcmd__completions)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__help__subcmd__context)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__help__subcmd__diff)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__help__subcmd__export)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__help__subcmd__files)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__help__subcmd__fork)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__help__subcmd__grep)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__help__subcmd__help)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__help__subcmd__import)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__help__subcmd__label)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__help__subcmd__log)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__help__subcmd__ls)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__help__subcmd__merge__subcmd__base)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__help__subcmd__mv)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__help__subcmd__name)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__help__subcmd__prune)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__help__subcmd__redact)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__help__subcmd__repair)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__help__subcmd__rev__subcmd__parse)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__help__subcmd__rm)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__help__subcmd__secrets)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__help__subcmd__show)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__help__subcmd__slim)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__help__subcmd__stats)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__help__subcmd__summarize__subcmd__branch)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__help__subcmd__tree)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__help__subcmd__usage)
            opts=""
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 3 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__import)
            opts="-o -s -h -V --from --all --output --map-tools --dry-run --json --session --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --from)
                    COMPREPLY=($(compgen -W "claude codex" -- "${cur}"))
                    return 0
                    ;;
                --output)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -o)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -s)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__label)
            opts="-d -l -f -s -h -V --delete --list --json --force --dry-run --expect-leaf --session --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --expect-leaf)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -s)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__log)
            opts="-n -f -s -h -V --max-count --reverse --type --role --long --max-chars --json --all --since --until --after --oneline --format --follow --wait --session --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --max-count)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --type)
                    COMPREPLY=($(compgen -W "message model_change thinking_level_change compaction branch_summary custom custom_message label session_info context_edit usage" -- "${cur}"))
                    return 0
                    ;;
                --role)
                    COMPREPLY=($(compgen -W "user assistant toolResult bashExecution custom system branchSummary compactionSummary" -- "${cur}"))
                    return 0
                    ;;
                --max-chars)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --since)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --until)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --after)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --format)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -s)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__ls)
            opts="-n -v -s -h -V --all --json --tree --no-children --archived --max-count --verbose --no-cache --session --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --max-count)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -s)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__merge__subcmd__base)
            opts="-s -h -V --json --session --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -s)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__mv)
            opts="-f -s -h -V --from --to --copy --relink --force --dry-run --json --session --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --from)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --to)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -s)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__name)
            opts="-f -s -h -V --clear --generate --all --all-projects --unnamed --json --force --model --base-url --context-window --max-output-tokens --instructions --timeout --include-thinking --summary-file --summarizer --dry-run --print-prompt --expect-leaf --session --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --model)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --base-url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context-window)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-output-tokens)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --instructions)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --summary-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --summarizer)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --expect-leaf)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -s)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__prune)
            opts="-s -h -V --empty --force --dry-run --json --session --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -s)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__redact)
            opts="-s -h -V --all --dry-run --no-backup --json --config --no-own-keys --session --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -s)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__repair)
            opts="-s -h -V --check --dry-run --all --json --session --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -s)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__rev__subcmd__parse)
            opts="-s -h -V --leaf --session --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -s)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__rm)
            opts="-s -h -V --force --dry-run --json --session --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -s)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__secrets)
            opts="-s -h -V --all --archived --json --config --no-own-keys --session --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --config)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -s)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__show)
            opts="-s -h -V --json --max-chars --session --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --max-chars)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -s)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__slim)
            opts="-y -s -h -V --all --dry-run --max-output --in-context --restore --drop --yes --force --no-backup --json --session --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --max-output)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -s)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__stats)
            opts="-s -h -V --branch --json --session --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -s)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__summarize__subcmd__branch)
            opts="-s -h -V --reserve-tokens --json --model --base-url --context-window --max-output-tokens --instructions --timeout --include-thinking --summary-file --summarizer --dry-run --print-prompt --expect-leaf --session --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --reserve-tokens)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --model)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --base-url)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --context-window)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --max-output-tokens)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --instructions)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --timeout)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --summary-file)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --summarizer)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --expect-leaf)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -s)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__tree)
            opts="-n -s -h -V --all --user --max-count --depth --json --session --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --max-count)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -n)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --depth)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -s)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
        pi_session__subcmd__usage)
            opts="-z -s -h -V --by --since --until --timezone --project --archived --json --csv --no-cache --session --color --no-pager --help --version"
            if [[ ${cur} == -* || ${COMP_CWORD} -eq 2 ]] ; then
                COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
                return 0
            fi
            case "${prev}" in
                --by)
                    COMPREPLY=($(compgen -W "day week month session project model provider source" -- "${cur}"))
                    return 0
                    ;;
                --since)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --until)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --timezone)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -z)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --project)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --session)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                -s)
                    COMPREPLY=($(compgen -f "${cur}"))
                    return 0
                    ;;
                --color)
                    COMPREPLY=($(compgen -W "auto always never" -- "${cur}"))
                    return 0
                    ;;
                *)
                    COMPREPLY=()
                    ;;
            esac
            COMPREPLY=( $(compgen -W "${opts}" -- "${cur}") )
            return 0
            ;;
    esac
}


# Revisions (REV, TARGET, A, B) complete with @, root and the session's labels, from
# `pi-session __complete-revs` on the session given with -s, if any; sessions (-s, FILE|ID)
# with files and the ids of `pi-session __complete-sessions`.
_pi_session_takes_value() {
    case "$1:$2" in
        :-s|:--session|:--color) return 0 ;;
        log:-n|log:--max-count|log:--type|log:--role|log:--max-chars|log:--since|log:--until|log:--after|log:--format|log:-s|log:--session|log:--color) return 0 ;;
        tree:-n|tree:--max-count|tree:--depth|tree:-s|tree:--session|tree:--color) return 0 ;;
        show:--max-chars|show:-s|show:--session|show:--color) return 0 ;;
        context:--max-chars|context:-s|context:--session|context:--color) return 0 ;;
        rev-parse:-s|rev-parse:--session|rev-parse:--color) return 0 ;;
        diff:-s|diff:--session|diff:--color) return 0 ;;
        merge-base:-s|merge-base:--session|merge-base:--color) return 0 ;;
        checkout:--model|checkout:--base-url|checkout:--context-window|checkout:--max-output-tokens|checkout:--instructions|checkout:--timeout|checkout:--summary-file|checkout:--summarizer|checkout:--expect-leaf|checkout:-s|checkout:--session|checkout:--color) return 0 ;;
        label:--expect-leaf|label:-s|label:--session|label:--color) return 0 ;;
        name:--model|name:--base-url|name:--context-window|name:--max-output-tokens|name:--instructions|name:--timeout|name:--summary-file|name:--summarizer|name:--expect-leaf|name:-s|name:--session|name:--color) return 0 ;;
        mv:--from|mv:--to|mv:-s|mv:--session|mv:--color) return 0 ;;
        import:--from|import:-o|import:--output|import:-s|import:--session|import:--color) return 0 ;;
        clone:-o|clone:--output|clone:-s|clone:--session|clone:--color) return 0 ;;
        fork:-o|fork:--output|fork:-s|fork:--session|fork:--color) return 0 ;;
        repair:-s|repair:--session|repair:--color) return 0 ;;
        prune:-s|prune:--session|prune:--color) return 0 ;;
        compact:--keep-recent-tokens|compact:--reserve-tokens|compact:--model|compact:--base-url|compact:--context-window|compact:--max-output-tokens|compact:--instructions|compact:--timeout|compact:--summary-file|compact:--summarizer|compact:--expect-leaf|compact:-s|compact:--session|compact:--color) return 0 ;;
        summarize-branch:--reserve-tokens|summarize-branch:--model|summarize-branch:--base-url|summarize-branch:--context-window|summarize-branch:--max-output-tokens|summarize-branch:--instructions|summarize-branch:--timeout|summarize-branch:--summary-file|summarize-branch:--summarizer|summarize-branch:--expect-leaf|summarize-branch:-s|summarize-branch:--session|summarize-branch:--color) return 0 ;;
        ls:-n|ls:--max-count|ls:-s|ls:--session|ls:--color) return 0 ;;
        archive:--older-than|archive:-s|archive:--session|archive:--color) return 0 ;;
        rm:-s|rm:--session|rm:--color) return 0 ;;
        stats:-s|stats:--session|stats:--color) return 0 ;;
        files:-s|files:--session|files:--color) return 0 ;;
        check:--config|check:--max-cost|check:--max-tokens|check:--max-context|check:--max-tool-calls|check:--max-turns|check:--max-tool-errors|check:--forbid-tool|check:--require-tool|check:--paths|check:--gitleaks-config|check:--format|check:--junit|check:-s|check:--session|check:--color) return 0 ;;
        usage:--by|usage:--since|usage:--until|usage:-z|usage:--timezone|usage:--project|usage:-s|usage:--session|usage:--color) return 0 ;;
        secrets:--config|secrets:-s|secrets:--session|secrets:--color) return 0 ;;
        redact:--config|redact:-s|redact:--session|redact:--color) return 0 ;;
        slim:--max-output|slim:-s|slim:--session|slim:--color) return 0 ;;
        grep:--role|grep:-A|grep:--after-context|grep:-B|grep:--before-context|grep:-C|grep:--context|grep:-m|grep:--max-count|grep:-n|grep:--limit|grep:-s|grep:--session|grep:--color) return 0 ;;
        export:--format|export:-o|export:--output|export:-s|export:--session|export:--color) return 0 ;;
        completions:-s|completions:--session|completions:--color) return 0 ;;
    esac
    return 1
}

_pi_session_takes_choice() {
    case "$1:$2" in
        :--color) return 0 ;;
        log:--color|log:--type|log:--role|log:--color) return 0 ;;
        tree:--color|tree:--color) return 0 ;;
        show:--color|show:--color) return 0 ;;
        context:--color|context:--color) return 0 ;;
        rev-parse:--color|rev-parse:--color) return 0 ;;
        diff:--color|diff:--color) return 0 ;;
        merge-base:--color|merge-base:--color) return 0 ;;
        checkout:--color|checkout:--color) return 0 ;;
        label:--color|label:--color) return 0 ;;
        name:--color|name:--color) return 0 ;;
        mv:--color|mv:--color) return 0 ;;
        import:--color|import:--from|import:--color) return 0 ;;
        clone:--color|clone:--color) return 0 ;;
        fork:--color|fork:--color) return 0 ;;
        repair:--color|repair:--color) return 0 ;;
        prune:--color|prune:--color) return 0 ;;
        compact:--color|compact:--color) return 0 ;;
        summarize-branch:--color|summarize-branch:--color) return 0 ;;
        ls:--color|ls:--color) return 0 ;;
        archive:--color|archive:--color) return 0 ;;
        rm:--color|rm:--color) return 0 ;;
        stats:--color|stats:--color) return 0 ;;
        files:--color|files:--color) return 0 ;;
        check:--color|check:--format|check:--color) return 0 ;;
        usage:--color|usage:--by|usage:--color) return 0 ;;
        secrets:--color|secrets:--color) return 0 ;;
        redact:--color|redact:--color) return 0 ;;
        slim:--color|slim:--color) return 0 ;;
        grep:--color|grep:--role|grep:--color) return 0 ;;
        export:--color|export:--format|export:--color) return 0 ;;
        completions:--color|completions:--color) return 0 ;;
    esac
    return 1
}

_pi_session_rev_here() {
    local npos="$2"
    case "$1" in
        log) (( npos == 0 )) ;;
        show) (( npos >= 0 )) ;;
        context) (( npos == 0 )) ;;
        rev-parse) (( npos >= 0 )) ;;
        diff) (( npos == 0 || npos == 1 )) ;;
        merge-base) (( npos == 0 || npos == 1 )) ;;
        checkout) (( npos == 0 )) ;;
        label) (( npos == 0 )) ;;
        clone) (( npos == 0 )) ;;
        fork) (( npos == 0 )) ;;
        prune) (( npos >= 0 )) ;;
        summarize-branch) (( npos == 0 )) ;;
        stats) (( npos == 0 )) ;;
        files) (( npos == 0 )) ;;
        export) (( npos == 0 )) ;;
        *) return 1 ;;
    esac
}

_pi_session_session_here() {
    local npos="$2"
    case "$1" in
        redact) (( npos >= 0 )) ;;
        slim) (( npos >= 0 )) ;;
        *) return 1 ;;
    esac
}

_pi_session_positional_here() {
    local npos="$2"
    case "$1" in
        log) (( npos == 0 )) ;;
        show) (( npos >= 0 )) ;;
        context) (( npos == 0 )) ;;
        rev-parse) (( npos >= 0 )) ;;
        diff) (( npos == 0 || npos == 1 )) ;;
        merge-base) (( npos == 0 || npos == 1 )) ;;
        checkout) (( npos == 0 )) ;;
        label) (( npos == 0 || npos == 1 )) ;;
        name) (( npos == 0 )) ;;
        mv) (( npos == 0 )) ;;
        import) (( npos == 0 )) ;;
        clone) (( npos == 0 )) ;;
        fork) (( npos == 0 )) ;;
        prune) (( npos >= 0 )) ;;
        summarize-branch) (( npos == 0 )) ;;
        archive) (( npos >= 0 )) ;;
        rm) (( npos >= 0 )) ;;
        stats) (( npos == 0 )) ;;
        files) (( npos == 0 )) ;;
        redact) (( npos >= 0 )) ;;
        slim) (( npos >= 0 )) ;;
        grep) (( npos == 0 )) ;;
        export) (( npos == 0 )) ;;
        completions) (( npos == 0 )) ;;
        *) return 1 ;;
    esac
}

# Files (a directory gets a `/`, not a space) and, for a session, the current directory's
# session ids.
_pi_session_files() {
    local cur="$1" id
    compopt -o filenames 2>/dev/null
    COMPREPLY=()
    while IFS= read -r id; do
        COMPREPLY+=("$id")
    done < <(compgen -f -- "$cur")
    if [[ "$2" == session ]]; then
        while IFS= read -r id; do
            [[ "$id" == "$cur"* ]] && COMPREPLY+=("$id")
        done < <(command pi-session __complete-sessions 2>/dev/null)
    fi
}

_pi_session_complete() {
    _pi_session "$@"
    local cur="${COMP_WORDS[COMP_CWORD]}"
    [[ "$cur" == -* ]] && return 0
    local i w sub="" opt="" npos=0 skip=0 session=()
    for (( i = 1; i < COMP_CWORD; i++ )); do
        w="${COMP_WORDS[i]}"
        if [[ "$w" == "=" ]]; then
            skip=1
            continue
        fi
        if (( skip )); then
            skip=0
            continue
        fi
        case "$w" in
            -s|--session)
                if [[ "${COMP_WORDS[i+1]}" == "=" ]]; then
                    session=(-s "${COMP_WORDS[i+2]}")
                else
                    session=(-s "${COMP_WORDS[i+1]}")
                fi
                ;;
            --session=?*) session=(-s "${w#--session=}") ;;
            -s?*) session=(-s "${w#-s}") ;;
        esac
        case "$w" in
            -*)
                opt="$w"
                _pi_session_takes_value "$sub" "$w" && skip=1
                continue
                ;;
        esac
        if [[ -z "$sub" ]]; then
            sub="$w"
        else
            npos=$((npos + 1))
        fi
    done
    if (( skip )); then
        # The value of an option: files, but for the options that take a choice.
        _pi_session_takes_choice "$sub" "$opt" && return 0
        case "$opt" in
            -s|--session) _pi_session_files "$cur" session ;;
            *) _pi_session_files "$cur" ;;
        esac
        return 0
    fi
    [[ -n "$sub" ]] || return 0
    if _pi_session_session_here "$sub" "$npos"; then
        _pi_session_files "$cur" session
        return 0
    fi
    if ! _pi_session_rev_here "$sub" "$npos"; then
        # Where an argument goes, options are offered once a `-` is typed (their common
        # prefix alone would be inserted).
        if _pi_session_positional_here "$sub" "$npos"; then
            local kept=() c
            for c in "${COMPREPLY[@]}"; do
                [[ "$c" == -* ]] || kept+=("$c")
            done
            COMPREPLY=("${kept[@]}")
        fi
        return 0
    fi
    if (( ${#session[@]} )); then
        session[1]="${session[1]/#\~\//$HOME/}"
    fi
    local rev quoted want="${cur//\\/}"
    want="${want#[\"\']}"
    COMPREPLY=()
    while IFS= read -r rev; do
        if [[ "$rev" == "$want"* ]]; then
            printf -v quoted '%q' "$rev"
            COMPREPLY+=("$quoted")
        fi
    done < <(command pi-session "${session[@]}" __complete-revs 2>/dev/null)
}

if [[ "${BASH_VERSINFO[0]}" -eq 4 && "${BASH_VERSINFO[1]}" -ge 4 || "${BASH_VERSINFO[0]}" -gt 4 ]]; then
    complete -F _pi_session_complete -o nosort -o bashdefault -o default pi-session
else
    complete -F _pi_session_complete -o bashdefault -o default pi-session
fi
