//! Rules in the gitleaks configuration format (TOML `[[rules]]` and `[allowlist]`).
//!
//! What is read: `title`, `description`, `[extend]` (`useDefault`, `disabledRules`),
//! `[[rules]]` (`id`, `description`, `regex`, `secretGroup`, `entropy`, `keywords`, `path`,
//! `tags`, with `[[rules.allowlists]]` or the older `[rules.allowlist]`), and the global
//! `[allowlist]` or `[[allowlists]]` (`regexes`, `regexTarget`, `stopwords`, `condition`,
//! `targetRules`). Keys are matched case-insensitively, as gitleaks (through viper) does.
//!
//! A session has no file paths or commits: rules that only name a `path` are skipped (and
//! listed in [`Config::ignored_rules`]), a rule's `path` beside a regex is not applied (the
//! regex runs on all text), and allowlists' `paths` and `commits` never hold (see
//! [`Allowlist`]). `[extend] path`/`url` (another configuration) is an error, not a silent
//! loss of its rules.

use regex::{Regex, RegexBuilder};
use toml::{Table, Value};

use super::rules::{Allowlist, Condition, Rule, RuleSet, Target};

/// A gitleaks configuration, its regexes compiled.
#[derive(Debug, Clone, Default)]
pub struct Config {
    pub title: Option<String>,
    pub description: Option<String>,
    /// `[extend] useDefault`: the built-in rules stay beside the configuration's.
    pub use_default: bool,
    /// `[extend] disabledRules`: built-in rules to drop when extending them.
    pub disabled_rules: Vec<String>,
    /// Rules that cannot run on a session's text, with why.
    pub ignored_rules: Vec<IgnoredRule>,
    pub(crate) rules: Vec<Rule>,
    /// Rules without a regex that add allowlists or keywords to a rule of the same id.
    pub(crate) rule_patches: Vec<RulePatch>,
    /// Global allowlists.
    pub(crate) allowlists: Vec<Allowlist>,
    /// Global allowlists with `targetRules`: (rule id, allowlist).
    pub(crate) targeted_allowlists: Vec<(String, Allowlist)>,
}

impl Config {
    /// The ids of the configuration's rules that will run, in order.
    pub fn rule_ids(&self) -> Vec<&str> {
        self.rules.iter().map(|r| r.id.as_str()).collect()
    }
}

impl RuleSet {
    /// Adds the rules and allowlists of a gitleaks configuration. With `[extend] useDefault`
    /// the built-in rules stay (less the configuration's `disabledRules`), else its rules
    /// replace them; the user's exact key values always stay. A configured rule with a
    /// built-in's id replaces it when it has a regex, else adds its allowlists and keywords to it
    /// (how gitleaks extends a default rule).
    pub fn with_config(self, config: Config) -> RuleSet {
        let mut rules = if config.use_default {
            self.rules
                .into_iter()
                .filter(|r| !config.disabled_rules.contains(&r.id))
                .collect()
        } else {
            Vec::new()
        };
        for patch in config.rule_patches {
            if let Some(rule) = rules.iter_mut().find(|r| r.id == patch.id) {
                rule.allowlists.extend(patch.allowlists);
                for k in patch.keywords {
                    if !rule.keywords.contains(&k) {
                        rule.keywords.push(k);
                    }
                }
            }
        }
        for rule in config.rules {
            match rules.iter_mut().find(|r| r.id == rule.id) {
                Some(old) => *old = rule,
                None => rules.push(rule),
            }
        }
        for (id, allowlist) in config.targeted_allowlists {
            if let Some(rule) = rules.iter_mut().find(|r| r.id == id) {
                rule.allowlists.push(allowlist);
            }
        }
        let mut global = if config.use_default { self.global } else { Vec::new() };
        global.extend(config.allowlists);
        RuleSet::from_parts(rules, global, self.exact)
    }
}

/// A rule of the configuration that is not used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IgnoredRule {
    pub id: String,
    pub reason: &'static str,
}

/// Allowlists and keywords a configuration adds to a rule it extends.
#[derive(Debug, Clone)]
pub(crate) struct RulePatch {
    pub(crate) id: String,
    pub(crate) allowlists: Vec<Allowlist>,
    pub(crate) keywords: Vec<String>,
}

/// Why a configuration could not be read.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// Not TOML; the message holds the line and column.
    #[error("not a valid gitleaks configuration: {0}")]
    Toml(#[from] toml::de::Error),
    #[error("rule {rule:?}: its regex does not compile: {source}")]
    Regex { rule: String, source: Box<regex::Error> },
    #[error("{place}: an allowlist regex does not compile: {source}")]
    AllowlistRegex { place: String, source: Box<regex::Error> },
    #[error("{place}: {what}")]
    Invalid { place: String, what: String },
    #[error(
        "[extend] {0} is not supported: extending another configuration file or URL is not \
         read; merge its rules into this file, or use [extend] useDefault = true"
    )]
    Extend(&'static str),
}

/// Compiled regexes above this size are refused (gitleaks' default rules stay far below).
const REGEX_SIZE_LIMIT: usize = 64 << 20;

/// Compiles a regex written for Go's RE2: braces read as Go reads them (see [`go_braces`]),
/// ASCII classes (`\w`, `\d`, `\s`, `\b` are ASCII in Go) when the pattern allows it, else with
/// Unicode classes (a pattern such as `[^"]` must match whole characters in a `&str` regex).
pub(crate) fn compile(pattern: &str) -> Result<Regex, regex::Error> {
    let pattern = go_braces(pattern);
    RegexBuilder::new(&pattern)
        .unicode(false)
        .size_limit(REGEX_SIZE_LIMIT)
        .build()
        .or_else(|_| RegexBuilder::new(&pattern).size_limit(REGEX_SIZE_LIMIT).build())
}

/// The pattern with its literal braces escaped. Go's regexp reads a `{` that does not start a
/// repetition (`{n}`, `{n,}`, `{n,m}`, numbers without leading zeros) as a literal brace, and `}`
/// outside a repetition as one too; Rust's regex rejects both. Gitleaks' own rules rely on it
/// (`\$\{[A-Z_]+}`, `{"type":`), so those braces become `\{` and `\}`. Braces of escapes
/// (`\p{Greek}`, `\x{41}`) and inside character classes are left as they are.
pub(crate) fn go_braces(pattern: &str) -> std::borrow::Cow<'_, str> {
    let b = pattern.as_bytes();
    let mut out = String::new();
    let mut copied = 0;
    let mut i = 0;
    while i < b.len() {
        match b[i] {
            b'\\' => i = after_escape(b, i),
            b'[' => i = after_class(b, i),
            b'{' | b'}' => {
                if b[i] == b'{'
                    && let Some(end) = go_repetition(b, i)
                {
                    i = end;
                    continue;
                }
                // Both are ASCII, so `i` is a char boundary.
                out.push_str(&pattern[copied..i]);
                out.push('\\');
                copied = i;
                i += 1;
            }
            _ => i += 1,
        }
    }
    if out.is_empty() {
        return std::borrow::Cow::Borrowed(pattern);
    }
    out.push_str(&pattern[copied..]);
    std::borrow::Cow::Owned(out)
}

/// Where the escape at `b[i]` (a backslash) ends: after `\p{…}`, `\x{…}`, else after the
/// escaped character's first byte (a multi-byte character continues as ordinary bytes).
fn after_escape(b: &[u8], i: usize) -> usize {
    match (b.get(i + 1), b.get(i + 2)) {
        (Some(b'p' | b'P' | b'x'), Some(b'{')) => b[i + 2..]
            .iter()
            .position(|&c| c == b'}')
            .map_or(b.len(), |p| i + 2 + p + 1),
        _ => (i + 2).min(b.len()),
    }
}

/// Where the character class opening at `b[i]` ends, as Go parses one: a `]` right after `[`
/// or `[^` is a member, `[:alpha:]` is a named class, escapes are skipped.
fn after_class(b: &[u8], i: usize) -> usize {
    let mut j = i + 1;
    if b.get(j) == Some(&b'^') {
        j += 1;
    }
    if b.get(j) == Some(&b']') {
        j += 1;
    }
    while j < b.len() {
        match b[j] {
            b'\\' => j = after_escape(b, j),
            b'[' if b.get(j + 1) == Some(&b':') => {
                j = match b[j + 2..].windows(2).position(|w| w == b":]") {
                    Some(p) => j + 2 + p + 2,
                    None => j + 1,
                }
            }
            b']' => return j + 1,
            _ => j += 1,
        }
    }
    b.len()
}

/// The end of the repetition `{n}`, `{n,}` or `{n,m}` opening at `b[i]`, if it is one for Go
/// (`parseRepeat`: at least one digit before the comma, no leading zeros).
fn go_repetition(b: &[u8], i: usize) -> Option<usize> {
    fn number(b: &[u8], j: usize) -> Option<usize> {
        let digits = b[j.min(b.len())..].iter().take_while(|c| c.is_ascii_digit()).count();
        match digits {
            0 => None,
            _ if digits > 1 && b[j] == b'0' => None,
            _ => Some(j + digits),
        }
    }
    let mut j = number(b, i + 1)?;
    if b.get(j) == Some(&b',') {
        j += 1;
        if b.get(j) != Some(&b'}') {
            j = number(b, j)?;
        }
    }
    (b.get(j) == Some(&b'}')).then_some(j + 1)
}

/// Reads a gitleaks configuration.
pub fn parse(text: &str) -> Result<Config, ConfigError> {
    let table: Table = toml::from_str(text)?;
    let mut config = Config {
        title: string(&table, "title", "top level")?,
        description: string(&table, "description", "top level")?,
        ..Config::default()
    };
    if let Some(extend) = get(&table, "extend") {
        let extend = as_table(extend, "[extend]")?;
        if get(extend, "path").is_some() {
            return Err(ConfigError::Extend("path"));
        }
        if get(extend, "url").is_some() {
            return Err(ConfigError::Extend("url"));
        }
        config.use_default = boolean(extend, "useDefault", "[extend]")?.unwrap_or(false);
        config.disabled_rules = strings(extend, "disabledRules", "[extend]")?;
    }
    if let Some(rules) = get(&table, "rules") {
        let Value::Array(rules) = rules else {
            return Err(invalid("top level", "rules must be an array of tables ([[rules]])"));
        };
        for (n, rule) in rules.iter().enumerate() {
            read_rule(&mut config, as_table(rule, &format!("rule #{}", n + 1))?, n)?;
        }
    }
    let old = get(&table, "allowlist");
    let new = get(&table, "allowlists");
    if old.is_some() && new.is_some() {
        return Err(invalid(
            "top level",
            "[allowlist] is deprecated, it cannot be used alongside [[allowlists]]",
        ));
    }
    for (place, table) in allowlist_tables(old.or(new), "[allowlist]")? {
        let allowlist = read_allowlist(table, &place)?;
        let targets = strings(table, "targetRules", &place)?;
        if targets.is_empty() {
            config.allowlists.push(allowlist);
        } else {
            for id in targets {
                config.targeted_allowlists.push((id, allowlist.clone()));
            }
        }
    }
    Ok(config)
}

fn read_rule(config: &mut Config, rule: &Table, n: usize) -> Result<(), ConfigError> {
    let id = string(rule, "id", &format!("rule #{}", n + 1))?
        .ok_or_else(|| invalid(&format!("rule #{}", n + 1), "a rule needs an id"))?;
    let place = format!("rule {id:?}");
    let description = string(rule, "description", &place)?.unwrap_or_default();
    let regex = string(rule, "regex", &place)?.filter(|r| !r.is_empty());
    let path = string(rule, "path", &place)?.filter(|p| !p.is_empty());
    let secret_group = match get(rule, "secretGroup") {
        None => 0,
        Some(Value::Integer(g)) if *g >= 0 => *g as usize,
        Some(_) => return Err(invalid(&place, "secretGroup must be a whole number")),
    };
    let entropy = match get(rule, "entropy") {
        None => None,
        Some(Value::Float(e)) => Some(*e),
        Some(Value::Integer(e)) => Some(*e as f64),
        Some(_) => return Err(invalid(&place, "entropy must be a number")),
    }
    .filter(|e| *e != 0.0);
    let keywords: Vec<String> = strings(rule, "keywords", &place)?
        .into_iter()
        .map(|k| k.to_lowercase())
        .filter(|k| !k.is_empty())
        .collect();
    strings(rule, "tags", &place)?;
    let old = get(rule, "allowlist");
    let new = get(rule, "allowlists");
    if old.is_some() && new.is_some() {
        return Err(invalid(
            &place,
            "[rules.allowlist] is deprecated, it cannot be used alongside [[rules.allowlists]]",
        ));
    }
    let mut allowlists = Vec::new();
    for (where_, table) in allowlist_tables(old.or(new), &format!("{place} allowlist"))? {
        allowlists.push(read_allowlist(table, &where_)?);
    }
    let Some(regex) = regex else {
        if path.is_some() {
            config.ignored_rules.push(IgnoredRule {
                id,
                reason: "matches file paths only, which a session has not",
            });
        } else if !allowlists.is_empty() || !keywords.is_empty() {
            config.rule_patches.push(RulePatch {
                id,
                allowlists,
                keywords,
            });
        } else {
            config.ignored_rules.push(IgnoredRule {
                id,
                reason: "has no regex",
            });
        }
        return Ok(());
    };
    let compiled = compile(&regex).map_err(|e| ConfigError::Regex {
        rule: id.clone(),
        source: Box::new(e),
    })?;
    if secret_group >= compiled.captures_len() {
        return Err(invalid(
            &place,
            &format!(
                "secretGroup {secret_group} but the regex has {} groups",
                compiled.captures_len() - 1
            ),
        ));
    }
    config.rules.push(Rule {
        description,
        regex: compiled.into(),
        secret_group,
        keywords,
        entropy,
        allowlists,
        filter: None,
        // gitleaks' own catch-all is `generic-api-key`.
        generic: id.starts_with("generic"),
        assignment: false,
        site: None,
        id,
    });
    Ok(())
}

/// The allowlist tables of an `allowlist` key (one table) or `allowlists` key (an array of
/// tables), each with a name for messages.
fn allowlist_tables<'a>(value: Option<&'a Value>, place: &str) -> Result<Vec<(String, &'a Table)>, ConfigError> {
    match value {
        None => Ok(Vec::new()),
        Some(Value::Table(t)) => Ok(vec![(place.to_string(), t)]),
        Some(Value::Array(items)) => items
            .iter()
            .enumerate()
            .map(|(i, v)| {
                let name = format!("{place} #{}", i + 1);
                as_table(v, &name).map(|t| (name, t))
            })
            .collect(),
        Some(_) => Err(invalid(place, "an allowlist must be a table")),
    }
}

fn read_allowlist(table: &Table, place: &str) -> Result<Allowlist, ConfigError> {
    let condition = match string(table, "condition", place)?
        .as_deref()
        .map(str::to_ascii_uppercase)
    {
        None => Condition::Or,
        Some(c) if c.is_empty() || c == "OR" || c == "||" => Condition::Or,
        Some(c) if c == "AND" || c == "&&" => Condition::And,
        Some(c) => {
            return Err(invalid(
                place,
                &format!("unknown condition {c:?} (expected 'and', 'or')"),
            ));
        }
    };
    let regex_target = match string(table, "regexTarget", place)?.as_deref() {
        None | Some("") | Some("secret") => Target::Secret,
        Some("match") => Target::Match,
        Some("line") => Target::Line,
        Some(t) => {
            return Err(invalid(
                place,
                &format!("unknown regexTarget {t:?} (expected 'secret', 'match', 'line')"),
            ));
        }
    };
    let regexes = strings(table, "regexes", place)?
        .iter()
        .map(|r| compile(r))
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| ConfigError::AllowlistRegex {
            place: place.to_string(),
            source: Box::new(e),
        })?;
    let stopwords = strings(table, "stopwords", place)?
        .into_iter()
        .map(|w| w.to_lowercase())
        .filter(|w| !w.is_empty())
        .collect();
    let has_unevaluable = !strings(table, "paths", place)?.is_empty() || !strings(table, "commits", place)?.is_empty();
    Ok(Allowlist {
        regexes,
        stopwords,
        regex_target,
        condition,
        has_unevaluable,
    })
}

// ---------------------------------------------------------------------------------------------
// Reading values, keys compared case-insensitively.

fn get<'a>(table: &'a Table, key: &str) -> Option<&'a Value> {
    table.iter().find(|(k, _)| k.eq_ignore_ascii_case(key)).map(|(_, v)| v)
}

fn invalid(place: &str, what: &str) -> ConfigError {
    ConfigError::Invalid {
        place: place.to_string(),
        what: what.to_string(),
    }
}

fn as_table<'a>(value: &'a Value, place: &str) -> Result<&'a Table, ConfigError> {
    match value {
        Value::Table(t) => Ok(t),
        _ => Err(invalid(place, "must be a table")),
    }
}

fn string(table: &Table, key: &str, place: &str) -> Result<Option<String>, ConfigError> {
    match get(table, key) {
        None => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => Err(invalid(place, &format!("{key} must be a string"))),
    }
}

fn boolean(table: &Table, key: &str, place: &str) -> Result<Option<bool>, ConfigError> {
    match get(table, key) {
        None => Ok(None),
        Some(Value::Boolean(b)) => Ok(Some(*b)),
        Some(_) => Err(invalid(place, &format!("{key} must be true or false"))),
    }
}

fn strings(table: &Table, key: &str, place: &str) -> Result<Vec<String>, ConfigError> {
    match get(table, key) {
        None => Ok(Vec::new()),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| match v {
                Value::String(s) => Ok(s.clone()),
                _ => Err(invalid(place, &format!("{key} must be a list of strings"))),
            })
            .collect(),
        Some(_) => Err(invalid(place, &format!("{key} must be a list of strings"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::secrets::rules::RuleSet;

    /// A project's own configuration: a custom rule, its allowlist, a global allowlist.
    const CUSTOM: &str = r#"
title = "acme gitleaks config"

[extend]
useDefault = true
disabledRules = ["jwt"]

[[rules]]
id = "acme-internal-token"
description = "ACME internal service token"
regex = '''\b(acme_(?:live|test)_[0-9a-f]{32})\b'''
secretGroup = 1
entropy = 3.0
keywords = ["acme_live_", "acme_test_"]
tags = ["acme", "internal"]

    [[rules.allowlists]]
    description = "test tokens are fine"
    regexes = ['''^acme_test_''']

    [[rules.allowlists]]
    condition = "AND"
    regexTarget = "line"
    regexes = ['''fixture''']
    stopwords = ["deadbeef"]

[[rules]]
id = "acme-paths"
description = "files that should not exist"
path = '''(?i)\.acme-credentials$'''

[allowlist]
description = "global allow list"
regexTarget = "match"
regexes = ['''(?i)docs\.acme\.dev''']
stopwords = ["0000000000"]
paths = ['''docs/''']
"#;

    fn hex(seed: u64, n: usize) -> String {
        let mut x = seed | 1;
        (0..n)
            .map(|_| {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                b"0123456789abcdef"[(x >> 60) as usize] as char
            })
            .collect()
    }

    #[test]
    fn a_custom_configuration() {
        let config = parse(CUSTOM).unwrap();
        assert_eq!(config.title.as_deref(), Some("acme gitleaks config"));
        assert!(config.use_default);
        assert_eq!(config.disabled_rules, vec!["jwt".to_string()]);
        assert_eq!(config.rule_ids(), vec!["acme-internal-token"]);
        assert_eq!(
            config.ignored_rules,
            vec![IgnoredRule {
                id: "acme-paths".into(),
                reason: "matches file paths only, which a session has not"
            }]
        );
        let set = RuleSet::builtin().with_config(config);
        assert!(set.rules().iter().any(|r| r.id == "github-pat"));
        assert!(!set.rules().iter().any(|r| r.id == "jwt"));

        let live = format!("acme_live_{}", hex(1, 32));
        let text = format!("ACME_TOKEN={live} ./deploy.sh");
        let hits = set.find(&text);
        assert_eq!(hits.len(), 1, "{hits:?}");
        assert_eq!(hits[0].rule, "acme-internal-token");
        assert_eq!(&text[hits[0].range.clone()], live);
        assert!(set.may_match(text.as_bytes()));

        // The rule's first allowlist (the secret starts with acme_test_).
        let test = format!("acme_test_{}", hex(2, 32));
        assert!(set.find(&format!("token {test}")).is_empty());
        // The second needs both the line regex and the stop word.
        let beef = format!("acme_live_deadbeef{}", hex(3, 24));
        assert!(set.find(&format!("fixture: {beef}")).is_empty());
        assert_eq!(set.find(&format!("prod: {beef}")).len(), 1);
        // The global allowlist, against the whole match.
        let zeros = format!("acme_live_0000000000{}", hex(4, 22));
        assert!(set.find(&format!("x {zeros}")).is_empty());
    }

    #[test]
    fn without_use_default_the_configuration_replaces_the_builtins() {
        let text = CUSTOM.replace("useDefault = true", "useDefault = false");
        let set = RuleSet::builtin()
            .with_exact(vec![("MINE".into(), "my-own-secret-value".into())])
            .with_config(parse(&text).unwrap());
        assert_eq!(set.rules().len(), 1);
        assert_eq!(set.find("x my-own-secret-value y")[0].rule, "own-key:MINE");
        let pat = format!("ghp_{}", hex(5, 36));
        assert!(set.find(&pat).is_empty());
    }

    /// Rules copied from gitleaks' default configuration (config/gitleaks.toml).
    const GITLEAKS_DEFAULT_PIECE: &str = r#"
title = "gitleaks config"

[allowlist]
description = "global allow lists"
paths = [
    '''gitleaks\.toml''',
    '''(?i)\.(?:bmp|gif|jpe?g|png|svg|tiff?)$''',
]

[[rules]]
id = "aws-access-token"
description = "Identified a pattern that may indicate AWS credentials, risking unauthorized cloud resource access and data breaches on AWS platforms."
regex = '''\b((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16})\b'''
entropy = 3
keywords = [
    "a3t",
    "akia",
    "asia",
    "abia",
    "acca",
]
[[rules.allowlists]]
regexes = [
    '''.+EXAMPLE$''',
]

[[rules]]
id = "github-pat"
description = "Uncovered a GitHub Personal Access Token, potentially leading to unauthorized repository access and sensitive content exposure."
regex = '''ghp_[0-9a-zA-Z]{36}'''
entropy = 3
keywords = ["ghp_"]
[[rules.allowlists]]
paths = [
    '''(?:^|/)@octokit/auth-token/README\.md$''',
]

[[rules]]
id = "gitlab-pat"
description = "Identified a GitLab Personal Access Token, risking unauthorized access to GitLab repositories and codebase exposure."
regex = '''glpat-[\w-]{20}'''
entropy = 3
keywords = ["glpat-"]

[[rules]]
id = "private-key"
description = "Identified a Private Key, which may compromise cryptographic security and sensitive data encryption."
regex = '''(?i)-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----[\s\S-]{64,}?KEY(?: BLOCK)?-----'''
keywords = ["-----begin"]

[[rules]]
id = "generic-api-key"
description = "Detected a Generic API Key, potentially exposing access to various services and sensitive operations."
regex = '''(?i)(?:key|api|token|secret|client|passwd|password|auth|access)(?:[0-9a-z\-_\t .]{0,20})(?:[\s|']|[\s|"]){0,3}(?:=|>|:{1,3}=|\|\|:|<=|=>|:|\?=)(?:'|\"|\s|=|\x60){0,5}([0-9a-z\-_.=]{10,150})(?:['|\"|\n|\r|\s|\x60|;]|$)'''
entropy = 3.5
keywords = [
    "key","api","token","secret","client","passwd","password","auth","access",
]
[rules.allowlist]
stopwords = ["client", "endpoint"]
"#;

    #[test]
    fn a_piece_of_the_gitleaks_default_configuration() {
        let config = parse(GITLEAKS_DEFAULT_PIECE).unwrap();
        assert!(!config.use_default);
        assert_eq!(
            config.rule_ids(),
            vec![
                "aws-access-token",
                "github-pat",
                "gitlab-pat",
                "private-key",
                "generic-api-key"
            ]
        );
        let set = RuleSet::builtin().with_config(config);
        let aws = format!("AKIA{}", "QW3RTY7UIOPASDF2".to_lowercase().to_uppercase());
        let text = format!("aws configure set aws_access_key_id {aws}");
        let hits = set.find(&text);
        assert!(
            hits.iter()
                .any(|h| h.rule == "aws-access-token" && text[h.range.clone()] == aws),
            "{hits:?}"
        );
        // Its allowlist: AWS's documented example key.
        let example = format!("{}{}", "AKIAIOSFODNN7", "EXAMPLE");
        assert!(
            !set.find(&format!("id {example} here"))
                .iter()
                .any(|h| h.rule == "aws-access-token")
        );
        // The path-only allowlist of github-pat never holds on a session's text.
        let pat = format!("ghp_{}", hex(7, 36));
        assert_eq!(
            set.find(&format!("token {pat}")).first().map(|h| h.rule.as_str()),
            Some("github-pat")
        );
        let glpat = format!("glpat-{}", hex(8, 20));
        assert!(
            set.find(&format!("--header PRIVATE-TOKEN:{glpat}"))
                .iter()
                .any(|h| h.rule == "gitlab-pat")
        );
        // The generic rule: its secret group and entropy floor.
        let value = format!("8dyfuiRyq=vVc3RRr_edRk-fK__{}", hex(9, 6));
        let text = format!("var discord_client_secret = '{value}'");
        let hits = set.find(&text);
        assert!(
            hits.iter()
                .any(|h| h.rule == "generic-api-key" && text[h.range.clone()] == value),
            "{hits:?}"
        );
        assert!(set.find("password = 'aaaaaaaaaaaaaaaa'").is_empty());
    }

    #[test]
    fn errors_name_the_rule_and_the_line() {
        let err = parse("title = \"x\"\n[[rules]]\nid = \"bad\"\nregex = '''(?=lookahead)x'''\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("\"bad\"") && err.contains("regex"), "{err}");
        let err = parse("title = \"x\"\n[[rules]\nid = 1\n").unwrap_err().to_string();
        assert!(err.contains("line 2"), "{err}");
        let err = parse("[extend]\npath = \"other.toml\"\n").unwrap_err().to_string();
        assert!(err.contains("path"), "{err}");
        let err = parse("[[rules]]\nid = \"r\"\nregex = 'x'\n[[rules.allowlists]]\nregexTarget = \"file\"\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("regexTarget"), "{err}");
        let err = parse("[[rules]]\nid = \"r\"\nregex = '(x)'\nsecretGroup = 3\n")
            .unwrap_err()
            .to_string();
        assert!(err.contains("secretGroup"), "{err}");
    }

    #[test]
    fn keys_are_case_insensitive_and_targeted_allowlists_apply() {
        let text = r#"
[[Rules]]
ID = "acme"
Regex = '''acme_[0-9a-f]{16}'''
Keywords = ["ACME_"]
[[allowlists]]
targetRules = ["acme"]
StopWords = ["cafe"]
"#;
        let set = RuleSet::builtin().with_config(parse(text).unwrap());
        assert_eq!(set.find(&format!("acme_{}", hex(10, 16))).len(), 1);
        assert!(set.find("acme_cafe000011112222").is_empty());
        assert!(set.may_match(b"xx ACME_ yy"));
    }

    #[test]
    fn braces_go_reads_as_literals_are_escaped() {
        for (go, rust) in [
            // Gitleaks' own: template placeholders, JavaScript imports, shell variables.
            (r#"['"]?\$?{{[^}]+}}['"]?"#, r#"['"]?\$?\{\{[^}]+\}\}['"]?"#),
            (
                r"import[ \t]+{[ \t\w,]+}[ \t]+from",
                r"import[ \t]+\{[ \t\w,]+\}[ \t]+from",
            ),
            (r"^\$(?:\d+|{\d+})$", r"^\$(?:\d+|\{\d+\})$"),
            (r"^\{\d{0,2}}$", r"^\{\d{0,2}\}$"),
            // Not repetitions for Go: no minimum, a leading zero, no closing brace, not a number.
            ("a{,3}", r"a\{,3\}"),
            ("a{01}", r"a\{01\}"),
            ("a{2", r"a\{2"),
            ("a{", r"a\{"),
            ("a{2,x}", r"a\{2,x\}"),
            ("}", r"\}"),
            // A multi-byte character before and inside.
            ("é{ü}", r"é\{ü\}"),
            // An escaped backslash does not escape the brace after it.
            (r"\\{x}", r"\\\{x\}"),
        ] {
            assert_eq!(go_braces(go), rust, "{go}");
            assert!(compile(go).is_ok(), "{go}");
        }
        // Repetitions, escapes and classes stay as written.
        for same in [
            "a{2}",
            "a{2,}",
            "a{2,5}",
            "a{0}",
            "a{10,100}",
            r"\p{Greek}{2}",
            r"\P{L}",
            r"\x{41}",
            r"\{\}",
            "[{}]",
            "[]{}]",
            "[^]{}]",
            "[[:alpha:]{}]",
            r"[\]{}]",
        ] {
            assert!(matches!(go_braces(same), std::borrow::Cow::Borrowed(_)), "{same}");
        }
        // They match what Go's do.
        let re = compile(r"^\${(?:[A-Z_]+|[a-z_]+)}$").unwrap();
        assert!(re.is_match("${HOME}") && !re.is_match("$HOME"));
        let re = compile(r"\$?{{[^}]+}}").unwrap();
        assert!(re.is_match("token: {{ secrets.TOKEN }}"));
        assert!(compile("a{2}").unwrap().is_match("aa") && !compile("a{2}").unwrap().is_match("a{2}"));
    }

    #[test]
    fn gitleaks_default_configuration_loads() {
        // Upstream's config/gitleaks.toml (MIT), kept as a fixture (tests/fixtures/README.md).
        let config = parse(include_str!("../../tests/fixtures/gitleaks-default.toml")).unwrap();
        assert_eq!(config.title.as_deref(), Some("gitleaks config"));
        assert_eq!(config.rule_ids().len(), 221);
        assert_eq!(config.ignored_rules.len(), 1, "{:?}", config.ignored_rules);
        let set = RuleSet::builtin().with_config(config);
        // The curl-auth-user allowlist, one of the patterns with literal braces.
        let hits = set.find("curl -u \"{{ user }}:{{ password }}\" https://example.com");
        assert!(!hits.iter().any(|h| h.rule == "curl-auth-user"), "{hits:?}");
        let hits = set.find("curl -u \"deploy:Zq8xv2LmPw\" https://example.com");
        assert!(hits.iter().any(|h| h.rule == "curl-auth-user"), "{hits:?}");
    }

    proptest::proptest! {
        /// Any pattern: no panic (slicing stays on char boundaries), only backslashes added,
        /// and a translated pattern translates to itself.
        #[test]
        fn brace_translation_is_total_and_stable(pattern in r"[a-z{}\[\]\\^:,0-9é]{0,24}") {
            let once = go_braces(&pattern).into_owned();
            proptest::prop_assert_eq!(go_braces(&once), once.as_str());
            // Only backslashes are added.
            proptest::prop_assert_eq!(once.replace('\\', ""), pattern.replace('\\', ""));
        }
    }
}
