//! Completion scripts: clap_complete's output for the public command line, extended so that
//! revisions (REV, TARGET, A, B) complete with `@`, `root` and the session's labels (through
//! the hidden `__complete-revs`), and sessions (`-s`, `redact FILE|ID`) with files and the
//! ids of the current directory's sessions (through `__complete-sessions`). Used by
//! `completions` and `__generate-docs`.
//!
//! (clap_complete's dynamic completion, `CompleteEnv`, would do this in Rust, but it is
//! behind an unstable feature and would change how every installed script works.)

use clap::{Arg, ArgAction, Command, CommandFactory};
use clap_complete::Shell;
use std::fmt::Write as _;

/// The shells `completions` offers a script for, whose scripts are kept in `completions/`. Unix
/// shells only, as pi-session runs on Unix only.
pub const SHELLS: [Shell; 4] = [Shell::Bash, Shell::Zsh, Shell::Fish, Shell::Elvish];

/// The command line as users see it: without the hidden helper subcommands.
pub fn public_command() -> Command {
    let full = crate::cli::Cli::command();
    let mut cmd = Command::new("pi-session")
        .bin_name("pi-session")
        .version(env!("CARGO_PKG_VERSION"))
        .propagate_version(true)
        .args(full.get_arguments().cloned())
        .subcommands(full.get_subcommands().filter(|s| !s.is_hide_set()).cloned());
    if let Some(about) = full.get_about() {
        cmd = cmd.about(about.clone());
    }
    if let Some(about) = full.get_long_about() {
        cmd = cmd.long_about(about.clone());
    }
    if let Some(after) = full.get_after_help() {
        cmd = cmd.after_help(after.clone());
    }
    cmd
}

/// The completion script for `shell`.
pub fn script(shell: Shell) -> String {
    let mut cmd = public_command();
    // clap_complete 4.6 names bash's per-subcommand cases inconsistently when the program name
    // holds a `-`, so no subcommand option would complete: bash's script is generated for a
    // name without one (only its function names use it) and registered for pi-session below.
    let name = if shell == Shell::Bash {
        "pi_session"
    } else {
        "pi-session"
    };
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, name, &mut buf);
    let base = String::from_utf8(buf).expect("completion scripts are UTF-8");
    let subs = subcommands(&cmd);
    match shell {
        Shell::Bash => bash(base, &cmd, &subs),
        Shell::Zsh => zsh(base, &subs),
        Shell::Fish => fish(base, &cmd, &subs),
        _ => base,
    }
}

/// What the scripts need to know of a subcommand to find its REV arguments.
struct Sub {
    name: String,
    /// For each positional argument in order: what it takes, and whether several values.
    positionals: Vec<(Takes, bool)>,
    /// Arg ids of the revision positionals.
    rev_ids: Vec<String>,
    /// Arg ids of the session positionals (`redact FILE|ID`).
    session_ids: Vec<String>,
    /// `-x` and `--xyz` options that take a value (the global ones included).
    value_options: Vec<String>,
    /// Those of them that take one of a list of values (the others complete files).
    choice_options: Vec<String>,
}

/// What a positional argument takes, for completion.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Takes {
    Revision,
    Session,
    Other,
}

/// The value names of revision arguments (`diff A B` and `merge-base A B` compare two).
const REVISION_VALUE_NAMES: [&str; 4] = ["REV", "TARGET", "A", "B"];

fn takes(arg: &Arg) -> Takes {
    let names = arg.get_value_names().unwrap_or_default();
    if names.iter().any(|n| REVISION_VALUE_NAMES.contains(&n.as_str())) {
        Takes::Revision
    } else if names.iter().any(|n| n.as_str() == "FILE|ID") {
        Takes::Session
    } else {
        Takes::Other
    }
}

fn is_rev(arg: &Arg) -> bool {
    takes(arg) == Takes::Revision
}

fn choice_options(cmd: &Command) -> Vec<String> {
    let mut v = Vec::new();
    for a in cmd.get_arguments().filter(|a| !a.is_positional()) {
        if !a.get_action().takes_values() || a.get_possible_values().is_empty() {
            continue;
        }
        v.extend(a.get_short().map(|s| format!("-{s}")));
        v.extend(a.get_long().map(|l| format!("--{l}")));
    }
    v
}

fn value_options(cmd: &Command) -> Vec<String> {
    let mut v = Vec::new();
    for a in cmd.get_arguments().filter(|a| !a.is_positional()) {
        if !a.get_action().takes_values() {
            continue;
        }
        if let Some(s) = a.get_short() {
            v.push(format!("-{s}"));
        }
        if let Some(l) = a.get_long() {
            v.push(format!("--{l}"));
        }
    }
    v
}

fn subcommands(cmd: &Command) -> Vec<Sub> {
    cmd.get_subcommands()
        .filter(|s| s.get_name() != "help")
        .map(|s| {
            let positionals: Vec<&Arg> = s.get_positionals().collect();
            Sub {
                name: s.get_name().to_owned(),
                positionals: positionals
                    .iter()
                    .map(|a| {
                        let many = matches!(a.get_action(), ArgAction::Append)
                            || a.get_num_args().is_some_and(|n| n.max_values() > 1);
                        (takes(a), many)
                    })
                    .collect(),
                rev_ids: positionals
                    .iter()
                    .filter(|a| is_rev(a))
                    .map(|a| a.get_id().to_string())
                    .collect(),
                session_ids: positionals
                    .iter()
                    .filter(|a| takes(a) == Takes::Session)
                    .map(|a| a.get_id().to_string())
                    .collect(),
                value_options: value_options(s),
                choice_options: choice_options(s),
            }
        })
        .collect()
}

/// A shell condition on `$npos` (positionals before the cursor) true where a positional
/// `wanted` takes goes.
fn npos_condition(sub: &Sub, wanted: impl Fn(Takes) -> bool) -> Option<String> {
    let conds: Vec<String> = sub
        .positionals
        .iter()
        .enumerate()
        .filter(|(_, (t, _))| wanted(*t))
        .map(|(k, (_, many))| {
            if *many {
                format!("npos >= {k}")
            } else {
                format!("npos == {k}")
            }
        })
        .collect();
    (!conds.is_empty()).then(|| conds.join(" || "))
}

fn bash(base: String, cmd: &Command, subs: &[Sub]) -> String {
    // The generated registration (for the placeholder name) is replaced by ours.
    let mut base = match base.find("\nif [[ \"${BASH_VERSINFO[0]}\" -eq 4") {
        Some(i) => base[..=i].to_owned(),
        None => base,
    };
    let mut takes_value = String::new();
    let top = value_options(cmd);
    if !top.is_empty() {
        let _ = writeln!(takes_value, "        :{}) return 0 ;;", top.join("|:"));
    }
    for s in subs.iter().filter(|s| !s.value_options.is_empty()) {
        let alts: Vec<String> = s.value_options.iter().map(|o| format!("{}:{o}", s.name)).collect();
        let _ = writeln!(takes_value, "        {}) return 0 ;;", alts.join("|"));
    }
    let mut choice = String::new();
    let top_choice = choice_options(cmd);
    if !top_choice.is_empty() {
        let _ = writeln!(choice, "        :{}) return 0 ;;", top_choice.join("|:"));
    }
    for s in subs {
        let alts: Vec<String> = top_choice
            .iter()
            .chain(&s.choice_options)
            .map(|o| format!("{}:{o}", s.name))
            .collect();
        if !alts.is_empty() {
            let _ = writeln!(choice, "        {}) return 0 ;;", alts.join("|"));
        }
    }
    let case_of = |wanted: &dyn Fn(Takes) -> bool| {
        let mut cases = String::new();
        for s in subs {
            if let Some(cond) = npos_condition(s, wanted) {
                let _ = writeln!(cases, "        {}) (( {cond} )) ;;", s.name);
            }
        }
        cases
    };
    let rev_at = case_of(&|t| t == Takes::Revision);
    let session_at = case_of(&|t| t == Takes::Session);
    let positional_at = case_of(&|_| true);
    let _ = write!(
        base,
        r#"
# Revisions (REV, TARGET, A, B) complete with @, root and the session's labels, from
# `pi-session __complete-revs` on the session given with -s, if any; sessions (-s, FILE|ID)
# with files and the ids of `pi-session __complete-sessions`.
_pi_session_takes_value() {{
    case "$1:$2" in
{takes_value}    esac
    return 1
}}

_pi_session_takes_choice() {{
    case "$1:$2" in
{choice}    esac
    return 1
}}

_pi_session_rev_here() {{
    local npos="$2"
    case "$1" in
{rev_at}        *) return 1 ;;
    esac
}}

_pi_session_session_here() {{
    local npos="$2"
    case "$1" in
{session_at}        *) return 1 ;;
    esac
}}

_pi_session_positional_here() {{
    local npos="$2"
    case "$1" in
{positional_at}        *) return 1 ;;
    esac
}}

# Files (a directory gets a `/`, not a space) and, for a session, the current directory's
# session ids.
_pi_session_files() {{
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
}}

_pi_session_complete() {{
    _pi_session "$@"
    local cur="${{COMP_WORDS[COMP_CWORD]}}"
    [[ "$cur" == -* ]] && return 0
    local i w sub="" opt="" npos=0 skip=0 session=()
    for (( i = 1; i < COMP_CWORD; i++ )); do
        w="${{COMP_WORDS[i]}}"
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
                if [[ "${{COMP_WORDS[i+1]}}" == "=" ]]; then
                    session=(-s "${{COMP_WORDS[i+2]}}")
                else
                    session=(-s "${{COMP_WORDS[i+1]}}")
                fi
                ;;
            --session=?*) session=(-s "${{w#--session=}}") ;;
            -s?*) session=(-s "${{w#-s}}") ;;
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
            for c in "${{COMPREPLY[@]}}"; do
                [[ "$c" == -* ]] || kept+=("$c")
            done
            COMPREPLY=("${{kept[@]}}")
        fi
        return 0
    fi
    if (( ${{#session[@]}} )); then
        session[1]="${{session[1]/#\~\//$HOME/}}"
    fi
    local rev quoted want="${{cur//\\/}}"
    want="${{want#[\"\']}}"
    COMPREPLY=()
    while IFS= read -r rev; do
        if [[ "$rev" == "$want"* ]]; then
            printf -v quoted '%q' "$rev"
            COMPREPLY+=("$quoted")
        fi
    done < <(command pi-session "${{session[@]}}" __complete-revs 2>/dev/null)
}}

if [[ "${{BASH_VERSINFO[0]}}" -eq 4 && "${{BASH_VERSINFO[1]}}" -ge 4 || "${{BASH_VERSINFO[0]}}" -gt 4 ]]; then
    complete -F _pi_session_complete -o nosort -o bashdefault -o default pi-session
else
    complete -F _pi_session_complete -o bashdefault -o default pi-session
fi
"#
    );
    base
}

/// zsh: the REV positionals of `_arguments` complete with `_pi-session_revs` instead of files.
fn zsh(base: String, subs: &[Sub]) -> String {
    let ids: Vec<&str> = subs.iter().flat_map(|s| s.rev_ids.iter().map(String::as_str)).collect();
    let session_ids: Vec<&str> = subs
        .iter()
        .flat_map(|s| s.session_ids.iter().map(String::as_str))
        .collect();
    let mut replaced = 0;
    let mut out = String::with_capacity(base.len() + 2048);
    for line in base.split_inclusive('\n') {
        let spec = line
            .trim_start_matches('\'')
            .trim_start_matches('*')
            .trim_start_matches(':');
        let is_rev = line.starts_with('\'')
            && ids.iter().any(|id| spec.starts_with(&format!("{id} -- ")))
            && line.ends_with(":_default' \\\n");
        if is_rev {
            out.push_str(&line[..line.len() - ":_default' \\\n".len()]);
            out.push_str(":_pi-session_revs' \\\n");
            replaced += 1;
        } else if let Some(head) = line.strip_suffix(":PATH|ID:_default' \\\n") {
            // -s: files and the current directory's session ids.
            out.push_str(head);
            out.push_str(":PATH|ID:_pi-session_sessions' \\\n");
        } else if let Some(head) = line.strip_suffix(":_default' \\\n")
            && line.starts_with('\'')
            && session_ids.iter().any(|id| spec.starts_with(&format!("{id} -- ")))
        {
            // `redact FILE|ID`: the same.
            out.push_str(head);
            out.push_str(":_pi-session_sessions' \\\n");
        } else {
            out.push_str(line);
        }
    }
    debug_assert_eq!(replaced, ids.len(), "every REV positional completes revisions");
    let helper = r#"
# Revisions (REV, TARGET) complete with @, root and the session's labels, from
# `pi-session __complete-revs` on the session given with -s, if any.
(( $+functions[_pi-session_revs] )) ||
_pi-session_revs() {
    local -a tokens session revs
    local i start=1 word
    tokens=(${(z)LBUFFER})
    for (( i = 1; i <= $#tokens; i++ )); do
        [[ ${(Q)tokens[i]} == (*/|)pi-session ]] && start=$i
    done
    for (( i = start + 1; i <= $#tokens; i++ )); do
        word=${(Q)tokens[i]}
        case $word in
            (-s|--session) session=(-s "${(Q)tokens[i+1]}") ;;
            (--session=*) session=(-s "${word#--session=}") ;;
            (-s?*) session=(-s "${word#-s}") ;;
        esac
    done
    (( $#session )) && session[2]=${session[2]/#\~\//$HOME/}
    revs=(${(f)"$(command pi-session $session __complete-revs 2>/dev/null)"})
    _wanted revisions expl 'revision' compadd -a revs
}

# Sessions (-s, FILE|ID): files, and the ids of `pi-session __complete-sessions`.
(( $+functions[_pi-session_sessions] )) ||
_pi-session_sessions() {
    local -a ids
    ids=(${(f)"$(command pi-session __complete-sessions 2>/dev/null)"})
    _alternative 'files:session file:_files' 'ids:session id:compadd -a ids'
}
"#;
    let tail = "\nif [ \"$funcstack[1]\" = \"_pi-session\" ]; then";
    match out.find(tail) {
        Some(i) => out.insert_str(i, helper),
        None => out.push_str(helper),
    }
    out
}

/// fish: one more completion, active where a revision goes.
fn fish(mut base: String, cmd: &Command, subs: &[Sub]) -> String {
    let mut takes_value = String::new();
    let top = value_options(cmd);
    if !top.is_empty() {
        let alts: Vec<String> = top.iter().map(|o| format!("':{o}'")).collect();
        let _ = writeln!(takes_value, "        case {}\n            return 0", alts.join(" "));
    }
    for s in subs.iter().filter(|s| !s.value_options.is_empty()) {
        let alts: Vec<String> = s.value_options.iter().map(|o| format!("'{}:{o}'", s.name)).collect();
        let _ = writeln!(takes_value, "        case {}\n            return 0", alts.join(" "));
    }
    let mut rev_at = String::new();
    for s in subs {
        let conds: Vec<String> = s
            .positionals
            .iter()
            .enumerate()
            .filter(|(_, (t, _))| *t == Takes::Revision)
            .map(|(k, (_, many))| format!("test $npos {} {k}", if *many { "-ge" } else { "-eq" }))
            .collect();
        if !conds.is_empty() {
            let _ = writeln!(rev_at, "        case {}\n            {}", s.name, conds.join("; or "));
        }
    }
    let _ = write!(
        base,
        r#"
# Revisions (REV, TARGET) complete with @, root and the session's labels, from
# `pi-session __complete-revs` on the session given with -s, if any.
function __fish_pi_session_takes_value
    switch "$argv[1]:$argv[2]"
{takes_value}    end
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
{rev_at}        case '*'
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
"#
    );
    // And so do the FILE|ID arguments (`redact`).
    for s in subs.iter().filter(|s| !s.session_ids.is_empty()) {
        let _ = writeln!(
            base,
            "complete -c pi-session -n \"__fish_pi_session_using_subcommand {}\" -a \"(command pi-session __complete-sessions 2>/dev/null)\"",
            s.name
        );
    }
    base
}
