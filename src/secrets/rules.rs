//! The rules that recognise a credential in a piece of text.
//!
//! A [`RuleSet`] holds regex rules in the manner of gitleaks (a regex, the group that is the
//! secret, keywords, an entropy floor, allowlists), the built-in rules of [`RuleSet::builtin`],
//! rules read from a gitleaks configuration ([`RuleSet::with_config`]) and the user's own key
//! values matched verbatim ([`RuleSet::with_exact`]). Searching a text costs one SIMD search
//! for the keywords, then only the rules whose keywords occurred run their regex.

use std::ops::Range;

use aho_corasick::{AhoCorasick, AhoCorasickBuilder, MatchKind, packed};
use regex::Regex;

/// What an allowlist's regexes are tested against (gitleaks' `regexTarget`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Target {
    /// The secret (the secret group), gitleaks' default.
    #[default]
    Secret,
    /// The whole match of the rule's regex.
    Match,
    /// The line of the text that holds the match.
    Line,
}

/// How an allowlist's checks combine (gitleaks' `condition`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Condition {
    /// Any check that holds allows the finding.
    #[default]
    Or,
    /// Every check the allowlist defines must hold.
    And,
}

/// Findings a rule (or every rule) lets pass: by regexes over the [`Target`] and by stop words
/// contained in the secret.
#[derive(Debug, Clone, Default)]
pub struct Allowlist {
    pub(crate) regexes: Vec<Regex>,
    /// Lowercase; a secret containing one (ASCII case-insensitively) is allowed.
    pub(crate) stopwords: Vec<String>,
    pub(crate) regex_target: Target,
    pub(crate) condition: Condition,
    /// The allowlist also named paths or commits, which a session's text has not: under
    /// [`Condition::And`] such an allowlist never holds (its path or commit check cannot pass),
    /// under [`Condition::Or`] those checks are left out.
    pub(crate) has_unevaluable: bool,
}

impl Allowlist {
    /// Does this allowlist let the finding pass?
    fn allows(&self, secret: &str, matched: &str, line: &str) -> bool {
        let target = match self.regex_target {
            Target::Secret => secret,
            Target::Match => matched,
            Target::Line => line,
        };
        let regex_hit = || self.regexes.iter().any(|r| r.is_match(target));
        let stop_hit = || {
            let lower = secret.to_ascii_lowercase();
            self.stopwords.iter().any(|w| lower.contains(w.as_str()))
        };
        match self.condition {
            Condition::Or => regex_hit() || stop_hit(),
            Condition::And => {
                if self.has_unevaluable || (self.regexes.is_empty() && self.stopwords.is_empty()) {
                    return false;
                }
                (self.regexes.is_empty() || regex_hit()) && (self.stopwords.is_empty() || stop_hit())
            }
        }
    }
}

/// A check a built-in rule makes beyond its regex: given the secret and the whole match, is
/// this a credential (rather than a placeholder)?
type Filter = fn(secret: &str, matched: &str) -> bool;

/// One rule: a regex whose secret group is the credential.
#[derive(Debug, Clone)]
pub struct Rule {
    pub id: String,
    pub description: String,
    pub(crate) regex: LazyRegex,
    /// The capture group that is the secret; 0 takes the first group that matched something
    /// (as gitleaks does), or the whole match when the regex has no groups.
    pub(crate) secret_group: usize,
    /// Lowercase. A rule with keywords runs only on text holding one of them.
    pub(crate) keywords: Vec<String>,
    /// A secret whose [`entropy`] is at most this is no finding (gitleaks' `entropy`).
    pub(crate) entropy: Option<f64>,
    pub(crate) allowlists: Vec<Allowlist>,
    pub(crate) filter: Option<Filter>,
    /// A catch-all rule (a secret by its name, not its shape): its hits give way to any other
    /// rule's that they overlap.
    pub(crate) generic: bool,
    /// The built-in assignment rule: a match is a name holding one of its keywords, then
    /// `=` or `:` (see [`assignment_windows`]), so its regex runs only around those.
    pub(crate) assignment: bool,
    /// A built-in rule whose every match is a keyword of its kind with something after it
    /// that raw bytes can tell: in a string token without `\u` escapes it runs only where
    /// such a keyword has it (see [`SiteKind`]).
    pub(crate) site: Option<SiteKind>,
}

/// What follows a keyword in every match of a built-in rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SiteKind {
    /// A name holding one of [`SITE_NAMES`], then `=` or `:` and a value (the assignment
    /// rule and the AWS secret key rule; see [`assignment_site`]).
    Assignment,
    /// `://`, then a user, a password and `@` (see [`url_site`]).
    Url,
}

/// A rule's regex, compiled when a text first needs it: the built-in rules' Unicode classes
/// with long repetitions cost more to compile than a scan of most sessions, and a session
/// whose keywords never wake a rule never needs it.
#[derive(Debug, Clone)]
pub(crate) struct LazyRegex {
    pattern: String,
    cell: std::sync::OnceLock<Regex>,
}

impl LazyRegex {
    /// A pattern known to compile (the built-in rules', checked by the tests).
    fn new(pattern: String) -> LazyRegex {
        LazyRegex {
            pattern,
            cell: std::sync::OnceLock::new(),
        }
    }
}

impl From<Regex> for LazyRegex {
    fn from(regex: Regex) -> LazyRegex {
        LazyRegex {
            pattern: regex.as_str().to_owned(),
            cell: std::sync::OnceLock::from(regex),
        }
    }
}

impl std::ops::Deref for LazyRegex {
    type Target = Regex;
    fn deref(&self) -> &Regex {
        self.cell
            .get_or_init(|| Regex::new(&self.pattern).expect("built-in rules compile"))
    }
}

/// A credential found in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hit {
    /// The rule's id (`own-key:<label>` for the user's own key values).
    pub rule: String,
    /// Byte range of the secret (the secret group, not the whole match) in the text.
    pub range: Range<usize>,
}

/// What a pattern of the keyword automaton stands for.
#[derive(Debug, Clone, Copy)]
enum Pattern {
    /// A keyword: the rules it wakes.
    Keyword(usize),
    /// One spelling of an exact value: it only tells the scan where to look.
    Exact,
}

/// Rules, allowlists and exact values, with the keyword automaton built over them.
#[derive(Debug, Clone)]
pub struct RuleSet {
    pub(super) rules: Vec<Rule>,
    pub(super) global: Vec<Allowlist>,
    pub(super) exact: Vec<(String, String)>,
    /// Keyword `i` wakes `wakes[i]` (rule indices).
    wakes: Vec<Vec<usize>>,
    /// Rules without keywords: they always run.
    always: Vec<usize>,
    patterns: Vec<Pattern>,
    /// Keywords then exact values (raw and JSON-escaped), ASCII case-insensitive.
    prefilter: Option<AhoCorasick>,
    /// The exact values, case-sensitive, leftmost-longest.
    exact_matcher: Option<AhoCorasick>,
    /// The prefilter's spellings, lowercased, searched with SIMD (Teddy) in a lowercased
    /// copy of the text: several times faster than the automaton, which checks every byte.
    /// `None` when Teddy cannot be used (no SIMD, too many spellings, an empty one).
    fast: Option<FastKeywords>,
    /// No keyword holds a byte a JSON escape other than `\u` and `\/` can write (`"`, `\\`, a
    /// control character) or a non-ASCII byte: the keywords of a string's decoded text can
    /// then be read off its raw token (see [`RuleSet::woken_by_raw`]).
    keywords_plain: bool,
    /// Some keyword holds a `/`, which `\/` can write.
    keyword_slash: bool,
    /// Some exact value holds a `/`, which `\/` can write.
    exact_slash: bool,
    /// Some exact value holds U+FFFD, which invalid UTF-8 in a token decodes to: the raw
    /// bytes cannot tell where such a value is, so every string is checked.
    exact_fffd: bool,
    /// The rules with [`Rule::site`], and theirs.
    site_rules: Vec<(usize, SiteKind)>,
    /// Keyword `i` is one of [`SITE_NAMES`], or `://`.
    keyword_site: Vec<Option<SiteKind>>,
    /// Keyword `i` wakes only rules with [`Rule::site`]: a hit of it matters only where a
    /// name of [`SITE_NAMES`] is followed by `=` or `:`.
    keyword_sited: Vec<bool>,
}

/// The names the matches of the rules with [`Rule::site`] hold, lowercase: the keywords of
/// the AWS secret key rule and of the assignment rule.
const SITE_NAMES: [&str; 7] = ["aws", "secret", "key", "token", "passw", "pwd", "credential"];

/// What a string token needs, as its raw bytes tell (see [`RuleSet::plan_token`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TokenPlan {
    /// Nothing any rule can find is in it.
    Skip,
    /// Its decoded text needs only these rules (and the exact values).
    Woken(Vec<bool>),
    /// Its escapes could hide a keyword: every rule its decoded text wakes.
    Full,
}

/// The prefilter's spellings for a SIMD search: its candidates are checked here, every
/// spelling starting where Teddy found the leftmost one.
#[derive(Debug, Clone)]
struct FastKeywords {
    teddy: packed::Searcher,
    /// By first byte: (pattern, lowercased spelling).
    by_first: Vec<Vec<(u32, Box<[u8]>)>>,
}

/// A keyword or exact value found in raw bytes: the prefilter pattern and where.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct KeywordHit {
    pub start: usize,
    pub end: usize,
    pattern: u32,
}

/// The shortest own key value looked for: shorter values would hit too much ordinary text.
const MIN_EXACT_LEN: usize = 8;

/// The shortest string token [`RuleSet::find_by_lines`] reads line by line: a short one
/// costs little to decode whole. Every token (two quotes or more) in the tests, which check
/// that both ways agree.
const BY_LINES_MIN: usize = if cfg!(test) { 2 } else { 4096 };

/// What pi-session writes in place of a secret; no rule may find a secret inside it.
const REDACTED_OPEN: &str = "[REDACTED:";

impl RuleSet {
    /// What the set finds, hashed: two sets with the same fingerprint find the same things
    /// (for caches of findings; the exact values are hashed, never kept). Built-in filters
    /// count by presence: what they do is the build's, which a cache tells apart itself.
    pub fn fingerprint(&self) -> [u8; 32] {
        use sha2::{Digest, Sha256};
        let mut h = Sha256::new();
        let mut put = |s: &str| {
            h.update((s.len() as u64).to_le_bytes());
            h.update(s);
        };
        let allowlist = |a: &Allowlist, put: &mut dyn FnMut(&str)| {
            for r in &a.regexes {
                put(r.as_str());
            }
            for w in &a.stopwords {
                put(w);
            }
            put(&format!("{:?} {:?} {}", a.regex_target, a.condition, a.has_unevaluable));
        };
        for r in &self.rules {
            put(&r.id);
            put(&r.regex.pattern);
            put(&format!(
                "{} {:?} {:?} {} {} {} {:?} {}",
                r.secret_group,
                r.keywords,
                r.entropy,
                r.filter.is_some(),
                r.generic,
                r.assignment,
                r.site,
                r.allowlists.len()
            ));
            for a in &r.allowlists {
                allowlist(a, &mut put);
            }
        }
        put("global");
        for a in &self.global {
            allowlist(a, &mut put);
        }
        put("exact");
        for (name, value) in &self.exact {
            put(name);
            put(value);
        }
        h.finalize().into()
    }

    /// The built-in rules.
    pub fn builtin() -> RuleSet {
        RuleSet::from_parts(builtin_rules(), Vec::new(), Vec::new())
    }

    /// Adds the user's own key values, matched verbatim anywhere (rule id
    /// `own-key:<label>`); values shorter than 8 bytes are ignored (too many false hits).
    pub fn with_exact(self, values: Vec<(String, String)>) -> RuleSet {
        let mut exact = self.exact;
        for (label, value) in values {
            if value.len() >= MIN_EXACT_LEN && !exact.iter().any(|(_, v)| *v == value) {
                exact.push((label, value));
            }
        }
        RuleSet::from_parts(self.rules, self.global, exact)
    }

    /// The rules, in the order ties between equal hits are settled (earlier wins).
    pub fn rules(&self) -> &[Rule] {
        &self.rules
    }

    pub(super) fn from_parts(rules: Vec<Rule>, global: Vec<Allowlist>, exact: Vec<(String, String)>) -> RuleSet {
        let mut keywords: Vec<String> = Vec::new();
        let mut wakes: Vec<Vec<usize>> = Vec::new();
        let mut always = Vec::new();
        for (i, rule) in rules.iter().enumerate() {
            if rule.keywords.is_empty() {
                always.push(i);
            }
            for k in &rule.keywords {
                match keywords.iter().position(|x| x == k) {
                    Some(p) => wakes[p].push(i),
                    None => {
                        keywords.push(k.clone());
                        wakes.push(vec![i]);
                    }
                }
            }
        }
        let mut patterns: Vec<Pattern> = (0..keywords.len()).map(Pattern::Keyword).collect();
        let mut spellings: Vec<String> = keywords;
        for (_, value) in &exact {
            spellings.push(value.clone());
            patterns.push(Pattern::Exact);
            // A raw JSON line holds the value as JSON escapes it.
            let escaped = json_escaped(value);
            if escaped != *value {
                spellings.push(escaped);
                patterns.push(Pattern::Exact);
            }
        }
        let prefilter = (!spellings.is_empty()).then(|| {
            // A DFA: the automaton runs over whole lines of every session scanned.
            AhoCorasickBuilder::new()
                .ascii_case_insensitive(true)
                .match_kind(MatchKind::Standard)
                .kind(Some(aho_corasick::AhoCorasickKind::DFA))
                .build(&spellings)
                .expect("keywords build an automaton")
        });
        let exact_matcher = (!exact.is_empty()).then(|| {
            AhoCorasickBuilder::new()
                .match_kind(MatchKind::LeftmostLongest)
                .build(exact.iter().map(|(_, v)| v.as_str()))
                .expect("exact values build an automaton")
        });
        let fast = fast_keywords(&spellings);
        let keywords = &spellings[..wakes.len()];
        let keywords_plain = keywords
            .iter()
            .all(|k| !k.is_empty() && k.bytes().all(|b| b.is_ascii() && b >= 0x20 && b != b'"' && b != b'\\'));
        let keyword_slash = keywords.iter().any(|k| k.contains('/'));
        let site_rules: Vec<(usize, SiteKind)> =
            (0..rules.len()).filter_map(|i| rules[i].site.map(|k| (i, k))).collect();
        let keyword_site = keywords
            .iter()
            .map(|k| match k.as_str() {
                "://" => Some(SiteKind::Url),
                k if SITE_NAMES.contains(&k) => Some(SiteKind::Assignment),
                _ => None,
            })
            .collect();
        let keyword_sited = wakes
            .iter()
            .map(|w| w.iter().all(|&r| rules[r].site.is_some()))
            .collect();
        let exact_slash = exact.iter().any(|(_, v)| v.contains('/'));
        let exact_fffd = exact.iter().any(|(_, v)| v.contains('\u{FFFD}'));
        RuleSet {
            rules,
            global,
            exact,
            wakes,
            always,
            patterns,
            prefilter,
            exact_matcher,
            fast,
            keywords_plain,
            keyword_slash,
            exact_slash,
            exact_fffd,
            site_rules,
            keyword_site,
            keyword_sited,
        }
    }

    /// Could these raw bytes (a JSON line, escaped) hold any hit? What [`Self::keyword_hits`]
    /// tells the scan, as a yes or no, for the tests of the prefilter.
    ///
    /// Keywords are looked for as written: a keyword holding a character JSON escapes (`"`,
    /// `\\`, a control character) would be missed in the raw line; no built-in has one.
    #[cfg(test)]
    pub(crate) fn may_match(&self, raw: &[u8]) -> bool {
        self.keyword_hits(raw, &mut Vec::new())
            .is_none_or(|hits| !hits.is_empty())
    }

    /// Where in the raw bytes a keyword or an exact value occurs (in order, not
    /// overlapping), as the automaton's standard search finds them: what the scan once
    /// asked, and the reference [`Self::spans_of`] is tested against.
    #[cfg(test)]
    pub(crate) fn keyword_spans(&self, raw: &[u8]) -> Option<Vec<std::ops::Range<usize>>> {
        if !self.always.is_empty() {
            return None;
        }
        Some(match &self.prefilter {
            Some(ac) => ac.find_iter(raw).map(|m| m.range()).collect(),
            None => Vec::new(),
        })
    }

    /// Every place in the raw bytes a keyword or an exact value occurs, overlapping ones
    /// included, ordered by (start, end, pattern); `None` when some rule has no keywords, so
    /// every string must be checked. `lower` is a buffer for a lowercased copy of `raw`.
    pub fn keyword_hits(&self, raw: &[u8], lower: &mut Vec<u8>) -> Option<Vec<KeywordHit>> {
        if !self.always.is_empty() || self.exact_fffd {
            return None;
        }
        let Some(fast) = &self.fast else {
            return Some(self.keyword_hits_slow(raw));
        };
        lower.clear();
        // Copied, then lowered in place: one loop the compiler vectorizes.
        lower.extend_from_slice(raw);
        lower.make_ascii_lowercase();
        let mut hits = Vec::new();
        let mut at = 0;
        // Teddy reports the leftmost occurrence from `at`: every spelling starting there is
        // taken, then the search goes on from the next byte.
        while let Some(m) = fast
            .teddy
            .find_in(&lower[..], aho_corasick::Span::from(at..lower.len()))
        {
            let p = m.start();
            let first = hits.len();
            for (pattern, spelling) in &fast.by_first[lower[p] as usize] {
                if lower[p..].starts_with(spelling) {
                    hits.push(KeywordHit {
                        start: p,
                        end: p + spelling.len(),
                        pattern: *pattern,
                    });
                }
            }
            hits[first..].sort_unstable();
            at = p + 1;
        }
        Some(hits)
    }

    /// [`Self::keyword_hits`] by the automaton (the straightforward way, and where Teddy
    /// cannot run).
    fn keyword_hits_slow(&self, raw: &[u8]) -> Vec<KeywordHit> {
        let Some(ac) = &self.prefilter else {
            return Vec::new();
        };
        let mut hits: Vec<KeywordHit> = ac
            .find_overlapping_iter(raw)
            .map(|m| KeywordHit {
                start: m.start(),
                end: m.end(),
                pattern: m.pattern().as_usize() as u32,
            })
            .collect();
        hits.sort_unstable();
        hits
    }

    /// The hits a search that does not report overlapping ones gives, in order: the
    /// automaton's standard search reports the occurrence ending first (the longest of those
    /// ending together), then searches on from its end. A string token is checked when one of
    /// these lies in it: a keyword holds no quote, so two overlapping hits lie in the same
    /// token, and one is enough to check it.
    pub fn spans_of(hits: &[KeywordHit]) -> Vec<Range<usize>> {
        let mut by_end: Vec<(usize, usize)> = hits.iter().map(|h| (h.end, h.start)).collect();
        by_end.sort_unstable();
        let mut spans = Vec::new();
        let mut from = 0;
        for (end, start) in by_end {
            if start >= from {
                spans.push(start..end);
                from = end;
            }
        }
        spans
    }

    /// The rules the decoded text of the string token `raw` (quotes included) wakes, read off
    /// the keyword hits of its raw bytes (`hits`: those of the line, `at`: where the token is
    /// in the line); `None` when its escapes could hide a keyword (a `\u` escape, or `\/` when
    /// a keyword holds `/`), so the decoded text must be searched.
    ///
    /// With no such escape, a keyword of the decoded text is in the raw bytes as written (the
    /// other escapes write none of a keyword's bytes), and a keyword in the raw bytes is in
    /// the decoded text unless its first byte is an escape's letter (`\token`: a tab, then
    /// `oken`).
    pub fn woken_by_raw(&self, raw: &[u8], at: usize, hits: &[KeywordHit]) -> Option<Vec<bool>> {
        if !self.keywords_plain {
            return None;
        }
        let has_backslash = memchr::memchr(b'\\', raw).is_some();
        if has_backslash
            && (needles::BACKSLASH_U.find(raw).is_some()
                || (self.keyword_slash && needles::BACKSLASH_SLASH.find(raw).is_some()))
        {
            return None;
        }
        let mut run = vec![false; self.rules.len()];
        for &i in &self.always {
            run[i] = true;
        }
        let first = hits.partition_point(|h| h.start < at);
        for h in hits[first..].iter().take_while(|h| h.start < at + raw.len()) {
            if h.end > at + raw.len() {
                continue;
            }
            let Pattern::Keyword(k) = self.patterns[h.pattern as usize] else {
                continue;
            };
            if has_backslash {
                let before = &raw[..h.start - at];
                let slashes = before.iter().rev().take_while(|&&b| b == b'\\').count();
                if slashes % 2 == 1 {
                    continue;
                }
            }
            for &r in &self.wakes[k] {
                run[r] = true;
            }
        }
        Some(run)
    }

    /// Whether `\/` can hide a keyword or an exact value.
    fn slash_matters(&self) -> bool {
        self.keyword_slash || self.exact_slash
    }

    /// Whether a `\u` escape, or a `\/` where one can hide something, is in `raw`: its
    /// decoded text may hold a keyword or an exact value its raw bytes do not show.
    pub fn escapes_hide(&self, raw: &[u8]) -> bool {
        memchr::memchr(b'\\', raw).is_some()
            && (needles::BACKSLASH_U.find(raw).is_some()
                || (self.slash_matters() && needles::BACKSLASH_SLASH.find(raw).is_some()))
    }

    /// Could a rule find something in the JSON line `line` (whose keyword hits are `hits`)
    /// when it is valid JSON? False only when no string token needs matching: every hit is
    /// of a keyword that wakes only rules with [`Rule::site`], with no assignment after it
    /// (or only inside an object key), and no escape hides anything. A line that turns out
    /// not to be JSON must still be scanned as text.
    pub fn line_may_find(&self, line: &[u8], hits: &[KeywordHit]) -> bool {
        if !self.keywords_plain || self.escapes_hide(line) {
            return true;
        }
        let odd_names = || needles::KELVIN.find(line).is_some() || needles::LONG_S.find(line).is_some();
        let mut odd: Option<bool> = None;
        hits.iter().any(|h| match self.patterns[h.pattern as usize] {
            Pattern::Exact => true,
            Pattern::Keyword(k) if !self.keyword_sited[k] => true,
            Pattern::Keyword(k) => match self.keyword_site[k] {
                Some(SiteKind::Assignment) => {
                    *odd.get_or_insert_with(odd_names) || matches!(assignment_site(line, h.end), Some(Site::Value))
                }
                Some(SiteKind::Url) => url_site(line, h.end),
                None => false,
            },
        })
    }

    /// What the string token at `span` of `line` needs, from the line's keyword hits: a
    /// token whose escapes could hide a keyword (see [`Self::woken_by_raw`]) needs every rule
    /// its decoded text wakes; else the rules its keywords wake, less the rules with
    /// [`Rule::site`] when no name of [`SITE_NAMES`] in it is followed by `=` or `:`; none
    /// of them and no exact value: nothing to decode.
    pub fn plan_token(&self, line: &[u8], span: Range<usize>, hits: &[KeywordHit]) -> TokenPlan {
        let raw = &line[span.clone()];
        if self.exact_slash && memchr::memchr(b'\\', raw).is_some() && needles::BACKSLASH_SLASH.find(raw).is_some() {
            return TokenPlan::Full;
        }
        let Some(mut run) = self.woken_by_raw(raw, span.start, hits) else {
            return TokenPlan::Full;
        };
        let first = hits.partition_point(|h| h.start < span.start);
        let inside = || {
            hits[first..]
                .iter()
                .take_while(|h| h.start < span.end)
                .filter(|h| h.end <= span.end)
        };
        let exact = inside().any(|h| matches!(self.patterns[h.pattern as usize], Pattern::Exact));
        for kind in [SiteKind::Assignment, SiteKind::Url] {
            if !self.site_rules.iter().any(|&(r, k)| k == kind && run[r])
                || (kind == SiteKind::Assignment
                    && (needles::KELVIN.find(raw).is_some() || needles::LONG_S.find(raw).is_some()))
            {
                continue;
            }
            let sited = inside().any(|h| match self.patterns[h.pattern as usize] {
                Pattern::Keyword(k) if self.keyword_site[k] == Some(kind) => match kind {
                    SiteKind::Assignment => assignment_site(line, h.end).is_some(),
                    SiteKind::Url => url_site(line, h.end),
                },
                _ => false,
            });
            if !sited {
                for &(r, k) in &self.site_rules {
                    if k == kind {
                        run[r] = false;
                    }
                }
            }
        }
        if !exact && !run.contains(&true) {
            return TokenPlan::Skip;
        }
        TokenPlan::Woken(run)
    }

    /// [`Self::find_woken`] over the decoded text of the string token at `span` of `line`
    /// (whose plan is [`TokenPlan::Woken`] with `run`), decoding only its lines (cut after
    /// its `\n` escapes) that hold a keyword of [`SITE_NAMES`] followed by `=` or `:`: a
    /// tool's output of a hundred KiB with a few `tokens: …` in it is not decoded whole.
    /// Returns the hits (ranges in the whole decoded text) with their secrets; `None` where
    /// this does not apply, and the whole text must be decoded.
    ///
    /// It applies when `run` wakes only the assignment rule, no exact value is in the token,
    /// and the token is UTF-8 without the Kelvin sign, the long s or a `[REDACTED:` marker
    /// (and, its plan being `Woken`, without `\u`). A match of the assignment rule holds no
    /// newline but the one closing it, so a search of each line, its newline included,
    /// finds what a search of the whole text does there (the rule's windows aside, which
    /// find what a search of the whole text does); its name holds a keyword whose
    /// [`assignment_site`] is found, so lines without one have none; and each escape but
    /// `\u` writes one byte, so a line's offset in the text is its offset in the token less
    /// the escapes before it.
    pub(crate) fn find_by_lines(
        &self,
        line: &[u8],
        span: Range<usize>,
        hits: &[KeywordHit],
        run: &[bool],
    ) -> Option<Vec<(Hit, String)>> {
        if span.len() < BY_LINES_MIN
            || !run.contains(&true)
            || run.iter().zip(&self.rules).any(|(&r, rule)| r && !rule.assignment)
        {
            return None;
        }
        let body = &line[span.start + 1..span.end - 1];
        let base = span.start + 1;
        let first = hits.partition_point(|h| h.start < span.start);
        let mut sites: Vec<usize> = Vec::new();
        for h in hits[first..].iter().take_while(|h| h.start < span.end) {
            match self.patterns[h.pattern as usize] {
                Pattern::Exact => return None,
                Pattern::Keyword(k) => {
                    if self.keyword_site[k] == Some(SiteKind::Assignment) && assignment_site(line, h.end).is_some() {
                        sites.push(h.start.saturating_sub(base));
                    }
                }
            }
        }
        if needles::KELVIN.find(body).is_some()
            || needles::LONG_S.find(body).is_some()
            || needles::REDACTED_OPEN.find(body).is_some()
            || simdutf8::basic::from_utf8(body).is_err()
        {
            return None;
        }
        let mut out = Vec::new();
        let mut search = |seg: Range<usize>, text_at: usize| {
            let text = super::walk::decode_body_text(&body[seg]);
            for mut hit in self.find_woken(&text, run) {
                let secret = text[hit.range.clone()].to_owned();
                hit.range = hit.range.start + text_at..hit.range.end + text_at;
                out.push((hit, secret));
            }
        };
        // Escapes seen so far, and the line being read (its start in the body, and in the text).
        let mut escapes = 0;
        let (mut start, mut text_start) = (0, 0);
        let mut next_site = 0;
        let mut i = 0;
        while next_site < sites.len() {
            // A body ending in a lone backslash (not JSON, but scanned all the same) puts `i`
            // past its end.
            let Some(p) = body.get(i..).and_then(|rest| memchr::memchr(b'\\', rest)) else {
                break;
            };
            let at = i + p;
            escapes += 1;
            i = at + 2;
            if body.get(at + 1) == Some(&b'n') {
                if sites[next_site] < i {
                    search(start..i, text_start);
                    while next_site < sites.len() && sites[next_site] < i {
                        next_site += 1;
                    }
                }
                start = i;
                text_start = i - escapes;
            }
        }
        if next_site < sites.len() {
            search(start..body.len(), text_start);
        }
        Some(out)
    }

    /// The rules the keywords of `text` wake (the rules without keywords always run).
    fn woken_in(&self, text: &str) -> Vec<bool> {
        let mut run = vec![false; self.rules.len()];
        for &i in &self.always {
            run[i] = true;
        }
        if let Some(ac) = &self.prefilter {
            let mut seen = vec![false; self.wakes.len()];
            for m in ac.find_overlapping_iter(text) {
                if let Pattern::Keyword(k) = self.patterns[m.pattern().as_usize()]
                    && !seen[k]
                {
                    seen[k] = true;
                    for &r in &self.wakes[k] {
                        run[r] = true;
                    }
                }
            }
        }
        run
    }

    /// Every hit in `text`, in order of start, non-overlapping, after allowlists and entropy
    /// checks. Of two overlapping hits the earlier is kept, of two starting together the
    /// longer, then the user's own keys, then the rule listed first; but a generic rule's hit
    /// (ids `generic…`) gives way to any other hit it overlaps.
    pub fn find(&self, text: &str) -> Vec<Hit> {
        self.find_woken(text, &self.woken_in(text))
    }

    /// [`Self::find`], running the rules `run` marks (those the text's keywords wake, as
    /// [`Self::woken_by_raw`] found them).
    pub fn find_woken(&self, text: &str, run: &[bool]) -> Vec<Hit> {
        // (tier, start, end, priority): tier 1 is the generic rules, whose hits count only where
        // no vendor rule or own key hit (a generic value can run past a token it holds);
        // priority orders equal ranges (own keys, then rules in order).
        let mut raw: Vec<(u8, usize, usize, usize)> = Vec::new();
        if let Some(ac) = &self.exact_matcher {
            for m in ac.find_iter(text) {
                raw.push((0, m.start(), m.end(), m.pattern().as_usize()));
            }
        }
        let base = self.exact.len();
        for (i, rule) in self.rules.iter().enumerate() {
            if run[i] {
                let tier = u8::from(rule.generic);
                self.run_rule(rule, text, |start, end| raw.push((tier, start, end, base + i)));
            }
        }
        if raw.is_empty() {
            return Vec::new();
        }
        let redacted = redacted_spans(text);
        raw.retain(|&(_, s, e, _)| !redacted.iter().any(|r| s < r.end && r.start < e));
        raw.sort_by(|a, b| {
            a.0.cmp(&b.0)
                .then(a.1.cmp(&b.1))
                .then(b.2.cmp(&a.2))
                .then(a.3.cmp(&b.3))
        });
        let mut kept: Vec<(usize, usize, usize)> = Vec::new();
        // How many of `kept` are tier 0, once tier 1 begins.
        let mut specific: Option<usize> = None;
        let mut last_end = None;
        for (tier, start, end, p) in raw {
            if tier == 1 && specific.is_none() {
                specific = Some(kept.len());
                last_end = None;
            }
            if last_end.is_some_and(|e| start < e) {
                continue;
            }
            if let Some(n) = specific
                && kept[..n].iter().any(|&(s, e, _)| start < e && s < end)
            {
                continue;
            }
            last_end = Some(end);
            kept.push((start, end, p));
        }
        kept.sort_unstable();
        kept.into_iter()
            .map(|(start, end, p)| {
                let rule = if p < base {
                    format!("own-key:{}", self.exact[p].0)
                } else {
                    self.rules[p - base].id.clone()
                };
                Hit {
                    rule,
                    range: start..end,
                }
            })
            .collect()
    }

    /// Runs one rule over the text, handing each secret that passes its checks to `found`.
    fn run_rule(&self, rule: &Rule, text: &str, mut found: impl FnMut(usize, usize)) {
        let windows = if rule.assignment {
            assignment_windows(text)
        } else {
            None
        };
        match windows {
            Some(windows) => {
                let mut pos = 0;
                for w in windows {
                    pos = self.run_rule_in(rule, text, w.end, pos.max(w.start), &mut found);
                }
            }
            None => {
                self.run_rule_in(rule, text, text.len(), 0, &mut found);
            }
        }
    }

    /// Runs one rule over `text[..end]` from `pos` (the text before `pos` is context for the
    /// regex's look-behind), returning where a further search would start.
    fn run_rule_in(
        &self,
        rule: &Rule,
        text: &str,
        end: usize,
        mut pos: usize,
        found: &mut impl FnMut(usize, usize),
    ) -> usize {
        let hay = &text[..end];
        let mut locs = rule.regex.capture_locations();
        while pos <= hay.len() {
            let Some(whole) = rule.regex.captures_read_at(&mut locs, hay, pos) else {
                break;
            };
            let secret = secret_span(&locs, rule.secret_group, whole.range());
            // Resume at the secret's end (not the match's), so a character a rule consumed as
            // trailing context can start the next match.
            let mut next = match &secret {
                Some(s) if s.end > whole.start() => s.end,
                _ => whole.end(),
            };
            if next <= pos {
                next = pos + 1;
            }
            while next < hay.len() && !hay.is_char_boundary(next) {
                next += 1;
            }
            pos = next;
            let Some(span) = secret else { continue };
            if span.is_empty() {
                continue;
            }
            let s = &text[span.clone()];
            let m = whole.as_str();
            if let Some(floor) = rule.entropy
                && entropy(s) <= floor
            {
                continue;
            }
            if let Some(filter) = rule.filter
                && !filter(s, m)
            {
                continue;
            }
            if !rule.allowlists.is_empty() || !self.global.is_empty() {
                let line = line_of(text, whole.range());
                if rule.allowlists.iter().chain(&self.global).any(|a| a.allows(s, m, line)) {
                    continue;
                }
            }
            found(span.start, span.end);
        }
        pos
    }
}

/// Where the built-in assignment rule can match in `text`: around each name holding one of
/// its keywords (`key`, `token`, `secret`, `passw`, `pwd`, `credential`, in any case) that is
/// followed by `=` or `:` (past an optional backslash and quote, and spaces), from the name's
/// start to well past the longest value the rule takes; ordered, apart. `None` when the text
/// holds a character other than ASCII that the rule's case-insensitive name matches (the
/// Kelvin sign, the long s), where the whole text is searched.
///
/// Every match of the rule lies in one window, and a search of `text[..window end]` from the
/// window's start finds exactly the matches the whole text has there: each window reaches past
/// everything a match starting in it can look at, and a name whose window this is not cannot
/// start a match in it (windows overlapping one another are merged).
fn assignment_windows(text: &str) -> Option<Vec<Range<usize>>> {
    let b = text.as_bytes();
    if needles::KELVIN.find(b).is_some() || needles::LONG_S.find(b).is_some() {
        return None;
    }
    const NAMES: [&[u8]; 6] = [b"key", b"token", b"secret", b"passw", b"pwd", b"credential"];
    let name_byte = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-');
    let mut windows: Vec<Range<usize>> = Vec::new();
    for op in memchr::memchr2_iter(b'=', b':', b) {
        let mut j = op;
        while j > 0 && matches!(b[j - 1], b' ' | b'\t') {
            j -= 1;
        }
        // The optional quote, and the backslash escaping it (more is taken than the rule
        // takes: a window too many only costs a search).
        for _ in 0..2 {
            if j > 0 && matches!(b[j - 1], b'\\' | b'"' | b'\'') {
                j -= 1;
            }
        }
        let name_end = j;
        while j > 0 && name_byte(b[j - 1]) {
            j -= 1;
        }
        let name = &b[j..name_end];
        if name.len() < 3
            || !NAMES
                .iter()
                .any(|k| name.windows(k.len()).any(|w| w.eq_ignore_ascii_case(k)))
        {
            continue;
        }
        // The value starts after the operator (`=>` and `:=` are two bytes) and spaces; it
        // and what closes it are at most 204 characters.
        let mut q = op + 1;
        if q < b.len() && matches!(b[q], b'=' | b'>') {
            q += 1;
        }
        while q < b.len() && matches!(b[q], b' ' | b'\t') {
            q += 1;
        }
        let end = text[q..].char_indices().nth(210).map_or(text.len(), |(i, _)| q + i);
        match windows.last_mut() {
            Some(last) if j <= last.end => last.end = last.end.max(end),
            _ => windows.push(j..end),
        }
    }
    Some(windows)
}

/// What follows a name of [`SITE_NAMES`] ending at `end` in the raw bytes of a JSON line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Site {
    /// The name's string closes, and a `:` follows: an object key.
    Key,
    /// `=` or `:`, then a value as long as the rules want.
    Value,
}

/// Whether the name holding a keyword that ends at `end` in the raw bytes of a JSON string
/// token is followed by `=` or `:` and a value of 16 characters or more, as a match of a
/// rule with [`Rule::site`] needs; `None` when not. Generous: the rules allow after the
/// keyword more name characters (`[0-9a-z_.-]`), an optional backslash and quote, and
/// whitespace (`[ \t]`, or `\s`, also newlines and Unicode spaces), then the operator
/// (`=>`, `:=`, `=`, `:`), whitespace, an optional backslash and quote, and a value without
/// whitespace or backslash of 16 characters or more (40 for the AWS rule); here the part
/// before the operator may come in any order and number, written raw or as JSON escapes
/// (`\\`, `\"`, `\t`, `\n`, `\r`, `\f`), any byte beyond ASCII passes, and the value is
/// the bytes up to a space, a whitespace escape or the token's closing quote.
///
/// For a JSON string token without `\u` escapes (which can write any character) and
/// without the Kelvin sign or long s (which the rules' case-insensitive names take for `k`
/// and `s`): those are the caller's to rule out. A line scanned as text (not JSON) is not
/// read by this.
fn assignment_site(b: &[u8], end: usize) -> Option<Site> {
    let name_byte = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'_' | b'.' | b'-');
    let mut i = end;
    while i < b.len() && name_byte(b[i]) {
        i += 1;
    }
    if b.get(i) == Some(&b'"') {
        // The name's last byte is no backslash: this quote closes its string.
        let after = i
            + 1
            + b[i + 1..]
                .iter()
                .take_while(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r'))
                .count();
        if b.get(after) == Some(&b':') {
            return Some(Site::Key);
        }
    }
    loop {
        match b.get(i)? {
            b'=' | b':' => break,
            b'\\' if matches!(b.get(i + 1), Some(b't' | b'n' | b'r' | b'f')) => i += 2,
            b'\\' | b'"' | b'\'' | b' ' | 0x80.. => i += 1,
            _ => return None,
        }
    }
    // `i` is the operator; `=>` and `:=` are two bytes, but `=` then a value starting with
    // `>` or `=` is one.
    let long_value = |mut j: usize| {
        // Whitespace, raw or escaped.
        loop {
            match b.get(j) {
                Some(b' ') => j += 1,
                Some(b'\\') if matches!(b.get(j + 1), Some(b't' | b'n' | b'r' | b'f')) => j += 2,
                _ => break,
            }
        }
        // The quote and the value: no whitespace, and the token's closing quote ends it.
        let start = j;
        while j - start < 16 {
            match b.get(j) {
                None | Some(b' ' | b'"') => break,
                Some(b'\\') if matches!(b.get(j + 1), Some(b't' | b'n' | b'r' | b'f')) => break,
                Some(b'\\') => j += 2,
                Some(_) => j += 1,
            }
        }
        j - start >= 16
    };
    let two = matches!(b.get(i + 1), Some(b'>' | b'='));
    (long_value(i + 1) || (two && long_value(i + 2))).then_some(Site::Value)
}

/// Whether the `://` ending at `end` in the raw bytes of a JSON string token (without `\u`
/// escapes) is followed by a user, a password and `@`, as a match of the URL rule needs:
/// generous, an `@` before the first byte that cannot be in a user or password (whitespace,
/// `/`, a quote, `<`, `>`, raw or escaped; the rule's `:` and lengths are not checked).
fn url_site(b: &[u8], end: usize) -> bool {
    let mut i = end;
    loop {
        match b.get(i) {
            Some(b'@') => return true,
            None | Some(0..=b' ' | b'/' | b'"' | b'\'' | b'<' | b'>') => return false,
            Some(b'\\') => match b.get(i + 1) {
                Some(b'b' | b'\\') => i += 2,
                _ => return false,
            },
            Some(_) => i += 1,
        }
    }
}

/// Substring searchers built once: `memmem::find` builds its searcher anew on each call,
/// which costs more than the search in most strings.
pub(crate) mod needles {
    use memchr::memmem::Finder;
    use std::sync::LazyLock;

    pub(crate) static BACKSLASH_U: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"\\u"));
    pub(crate) static BACKSLASH_SLASH: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(b"\\/"));
    pub(crate) static KELVIN: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("\u{212A}"));
    pub(crate) static LONG_S: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new("\u{17F}"));
    pub(crate) static REDACTED: LazyLock<Finder<'static>> =
        LazyLock::new(|| crate::json::needle::in_json(b"\"redacted\""));
    pub(crate) static ENCRYPTED: LazyLock<Finder<'static>> =
        LazyLock::new(|| crate::json::needle::in_json(b"encrypted_content"));
    pub(crate) static REDACTED_OPEN: LazyLock<Finder<'static>> = LazyLock::new(|| Finder::new(super::REDACTED_OPEN));
}

/// The SIMD search for the prefilter's spellings, if Teddy can run them.
fn fast_keywords(spellings: &[String]) -> Option<FastKeywords> {
    if spellings.is_empty() || spellings.iter().any(|s| s.is_empty()) {
        return None;
    }
    let mut builder = packed::Config::new().builder();
    let mut by_first: Vec<Vec<(u32, Box<[u8]>)>> = vec![Vec::new(); 256];
    for (i, s) in spellings.iter().enumerate() {
        let lower = s.as_bytes().to_ascii_lowercase();
        builder.add(&lower);
        by_first[lower[0] as usize].push((i as u32, lower.into_boxed_slice()));
    }
    // `None` when Teddy cannot run them (no SIMD, more than 128).
    let teddy = builder.build()?;
    Some(FastKeywords { teddy, by_first })
}

/// The span of the secret group (see [`Rule::secret_group`]).
fn secret_span(locs: &regex::CaptureLocations, group: usize, whole: Range<usize>) -> Option<Range<usize>> {
    if group > 0 {
        return locs.get(group).map(|(s, e)| s..e);
    }
    if locs.len() == 1 {
        return Some(whole);
    }
    (1..locs.len())
        .filter_map(|g| locs.get(g))
        .find(|(s, e)| e > s)
        .map(|(s, e)| s..e)
}

/// The line of `text` that holds `range` (all of the lines it spans).
fn line_of(text: &str, range: Range<usize>) -> &str {
    let start = memchr::memrchr(b'\n', &text.as_bytes()[..range.start]).map_or(0, |i| i + 1);
    let end = memchr::memchr(b'\n', &text.as_bytes()[range.end..]).map_or(text.len(), |i| range.end + i);
    &text[start..end]
}

/// The `[REDACTED:…]` markers of the text.
fn redacted_spans(text: &str) -> Vec<Range<usize>> {
    let mut spans = Vec::new();
    for start in memchr::memmem::find_iter(text.as_bytes(), REDACTED_OPEN) {
        let after = start + REDACTED_OPEN.len();
        let end = memchr::memchr(b']', &text.as_bytes()[after..]).map_or(text.len(), |i| after + i + 1);
        spans.push(start..end);
    }
    spans
}

/// The value as it appears inside a JSON string.
fn json_escaped(value: &str) -> String {
    let quoted = serde_json::to_string(value).expect("a string serialises");
    quoted[1..quoted.len() - 1].to_string()
}

/// A masked preview that never shows the whole secret: the first 4 characters and the length,
/// e.g. `sk-a…(51 chars)`; secrets of 12 characters or fewer show 2, and no more than a third
/// of the secret's characters is ever shown.
pub fn mask(secret: &str) -> String {
    let chars = secret.chars().count();
    let shown = if chars > 12 { 4 } else { 2 }.min(chars / 3);
    let head: String = secret.chars().take(shown).collect();
    format!("{head}…({chars} chars)")
}

/// Shannon entropy in bits per character, as gitleaks computes it (counts per character,
/// frequencies over the length in bytes).
pub fn entropy(s: &str) -> f64 {
    if s.is_empty() {
        return 0.0;
    }
    let mut counts: rustc_hash::FxHashMap<char, usize> = rustc_hash::FxHashMap::default();
    for c in s.chars() {
        *counts.entry(c).or_insert(0) += 1;
    }
    let inv = 1.0 / s.len() as f64;
    counts
        .values()
        .map(|&n| {
            let f = n as f64 * inv;
            -f * f.log2()
        })
        .sum()
}

// ---------------------------------------------------------------------------------------------
// The built-in rules.

/// Before a token: the text's start or a character that cannot be part of one.
const P: &str = "(?:^|[^0-9A-Za-z_-])";
/// After a token: a character that cannot be part of one, or the text's end.
const E: &str = "(?:[^0-9A-Za-z_-]|$)";

struct Spec {
    id: &'static str,
    description: &'static str,
    regex: String,
    secret_group: usize,
    keywords: &'static [&'static str],
    entropy: Option<f64>,
    filter: Option<Filter>,
}

/// A token rule: `token` between token boundaries, the token being group 1.
fn token(id: &'static str, description: &'static str, token: &str, keywords: &'static [&'static str]) -> Spec {
    Spec {
        id,
        description,
        regex: format!("{P}({token}){E}"),
        secret_group: 1,
        keywords,
        entropy: Some(3.0),
        filter: Some(not_placeholder_token),
    }
}

fn builtin_specs() -> Vec<Spec> {
    vec![
        token(
            "anthropic-api-key",
            "Anthropic API key",
            "sk-ant-(?:api|admin|oat|ort)[0-9]{2}-[0-9A-Za-z_-]{80,120}AA",
            &["sk-ant-"],
        ),
        token(
            "openai-api-key",
            "OpenAI API key",
            "sk-(?:proj|svcacct|admin)-[0-9A-Za-z_-]{40,250}|sk-[0-9A-Za-z]{20}T3BlbkFJ[0-9A-Za-z]{20}",
            &["sk-proj-", "sk-svcacct-", "sk-admin-", "t3blbkfj"],
        ),
        Spec {
            filter: Some(not_aws_example),
            ..token(
                "aws-access-key-id",
                "AWS access key ID",
                "(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}",
                &["a3t", "akia", "asia", "abia", "acca"],
            )
        },
        token("github-pat", "GitHub personal access token", "ghp_[0-9A-Za-z]{36}", &["ghp_"]),
        token(
            "github-fine-grained-pat",
            "GitHub fine-grained personal access token",
            "github_pat_[0-9A-Za-z_]{82}",
            &["github_pat_"],
        ),
        token(
            "github-app-token",
            "GitHub App token",
            "(?:ghu|ghs)_[0-9A-Za-z]{36}",
            &["ghu_", "ghs_"],
        ),
        token("github-oauth", "GitHub OAuth access token", "gho_[0-9A-Za-z]{36}", &["gho_"]),
        token(
            "gitlab-pat",
            "GitLab personal access token",
            "glpat-[0-9A-Za-z_-]{20,100}",
            &["glpat-"],
        ),
        token(
            "slack-token",
            "Slack token",
            "xox[baprs]-[0-9]{6,14}-[0-9A-Za-z-]{10,250}",
            &["xoxb-", "xoxa-", "xoxp-", "xoxr-", "xoxs-"],
        ),
        Spec {
            id: "slack-webhook-url",
            description: "Slack incoming webhook URL",
            regex: "((?:https?://)?hooks\\.slack\\.com/(?:services|workflows|triggers)/[A-Za-z0-9+/]{43,120})(?:[^A-Za-z0-9+/]|$)"
                .to_string(),
            secret_group: 1,
            keywords: &["hooks.slack.com"],
            entropy: None,
            filter: Some(slack_webhook_real),
        },
        token(
            "stripe-live-key",
            "Stripe live secret or restricted key",
            "(?:sk|rk)_live_[0-9A-Za-z]{20,247}",
            &["sk_live_", "rk_live_"],
        ),
        token("gcp-api-key", "Google Cloud API key", "AIza[0-9A-Za-z_-]{35}", &["aiza"]),
        token("npm-token", "npm access token", "npm_[0-9A-Za-z]{36}", &["npm_"]),
        token(
            "pypi-token",
            "PyPI upload token",
            "pypi-AgEIcHlwaS5vcmc[0-9A-Za-z_-]{50,}",
            &["pypi-ageichlwas5vcmc"],
        ),
        token("huggingface-token", "Hugging Face access token", "hf_[A-Za-z]{34}", &["hf_"]),
        Spec {
            id: "private-key",
            description: "Private key (PEM block)",
            regex: "(?s)-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----.{64,}?-----END[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----"
                .to_string(),
            secret_group: 0,
            keywords: &["-----begin"],
            entropy: None,
            filter: Some(private_key_body),
        },
        Spec {
            id: "jwt",
            description: "JSON Web Token",
            regex: "(?:^|[^0-9A-Za-z_.-])(eyJ[0-9A-Za-z_-]{10,}\\.eyJ[0-9A-Za-z_-]{10,}\\.[0-9A-Za-z_-]{10,})(?:[^0-9A-Za-z_.=-]|$)"
                .to_string(),
            secret_group: 1,
            keywords: &["eyj"],
            entropy: Some(3.0),
            filter: None,
        },
        Spec {
            id: "url-password",
            description: "Password in a URL (scheme://user:password@host)",
            regex: "[A-Za-z][A-Za-z0-9+.-]{0,30}://([^\\s:/@'\"<>]{0,100}):([^\\s/@'\"<>]{1,200})@[A-Za-z0-9\\[]"
                .to_string(),
            secret_group: 2,
            keywords: &["://"],
            entropy: None,
            filter: Some(url_password_real),
        },
        Spec {
            id: "aws-secret-access-key",
            description: "AWS secret access key (40 characters next to an aws or secret name)",
            regex: "(?i)(?:aws|secret)[0-9a-z_.-]{0,30}\\\\?[\"']?\\s*(?:=>|:=|=|:)\\s*\\\\?[\"']?([0-9a-z/+]{40})(?:[^0-9a-z/+=]|$)"
                .to_string(),
            secret_group: 1,
            keywords: &["aws", "secret"],
            entropy: Some(4.0),
            filter: Some(aws_secret_real),
        },
        Spec {
            id: "generic-secret-assignment",
            description: "A secret assigned to a name holding key, token, secret, password or credential",
            regex: concat!(
                "(?i)[0-9a-z_.-]*(?:key|token|secret|passw|pwd|credential)[0-9a-z_.-]*",
                "\\\\?[\"']?[ \\t]*(?:=>|:=|=|:)[ \\t]*",
                "(?:\\\\?\"([^\"\\\\\\s]{16,200})\\\\?\"|'([^'\\\\\\s]{16,200})'",
                "|([^\\s\"'`,;(){}\\[\\]<>\\\\]{16,200})(?:[\\s\"'`,;)}\\]\\\\]|$))"
            )
            .to_string(),
            secret_group: 0,
            keywords: &["key", "token", "secret", "passw", "pwd", "credential"],
            entropy: None,
            filter: Some(generic_real),
        },
    ]
}

fn builtin_rules() -> Vec<Rule> {
    builtin_specs()
        .into_iter()
        .map(|s| Rule {
            id: s.id.to_string(),
            description: s.description.to_string(),
            regex: LazyRegex::new(s.regex),
            secret_group: s.secret_group,
            keywords: s.keywords.iter().map(|k| k.to_ascii_lowercase()).collect(),
            entropy: s.entropy,
            allowlists: Vec::new(),
            filter: s.filter,
            generic: s.id.starts_with("generic"),
            assignment: s.id == "generic-secret-assignment",
            site: match s.id {
                "generic-secret-assignment" | "aws-secret-access-key" => Some(SiteKind::Assignment),
                "url-password" => Some(SiteKind::Url),
                _ => None,
            },
        })
        .collect()
}

// ---------------------------------------------------------------------------------------------
// The built-in rules' checks beyond their regexes.

/// Is every character the same?
fn all_same(s: &str) -> bool {
    let mut chars = s.chars();
    match chars.next() {
        Some(first) => chars.all(|c| c == first),
        None => true,
    }
}

/// Words that mark a value as a stand-in for a secret, not a secret.
const PLACEHOLDER_WORDS: &[&str] = &[
    "your",
    "example",
    "changeme",
    "change_me",
    "change-me",
    "redacted",
    "placeholder",
    "xxxx",
    "****",
    "....",
    "…",
    "dummy",
    "sample",
    "insert",
    "replace",
    "here",
    "fake",
    "notreal",
    "not-real",
    "not_real",
];

/// A value that only stands for a secret: a variable reference, a template, a word such as
/// `example`, one character repeated.
fn is_placeholder(v: &str) -> bool {
    let lower = v.to_ascii_lowercase();
    if v.starts_with('$')
        || v.contains("${")
        || v.contains("$(")
        || v.contains("{{")
        || (v.starts_with('<') && v.ends_with('>'))
        || (v.starts_with('{') && v.ends_with('}'))
        || (v.starts_with('%') && v.ends_with('%'))
        || v.starts_with(REDACTED_OPEN)
        || lower.contains("process.env")
        || lower.contains("os.environ")
        || lower.contains("getenv")
        || lower.contains("import.meta.env")
        || lower.starts_with("env.")
        || lower.starts_with("secrets.")
        || all_same(v)
    {
        return true;
    }
    PLACEHOLDER_WORDS.iter().any(|w| lower.contains(w))
}

/// A vendor token is no run of one character (`ghp_xxxx…`) nor a placeholder word: random
/// bodies never have one character in half their places.
fn not_placeholder_token(secret: &str, _matched: &str) -> bool {
    let mut counts = [0usize; 256];
    for b in secret.bytes() {
        counts[b as usize] += 1;
    }
    let most = counts.iter().copied().max().unwrap_or(0);
    let lower = secret.to_ascii_lowercase();
    most * 2 <= secret.len() && !lower.contains("xxxxxxxx") && !lower.contains("example")
}

/// AWS documents its example keys with an `EXAMPLE` suffix (gitleaks allows them too).
fn not_aws_example(secret: &str, matched: &str) -> bool {
    !secret.ends_with("EXAMPLE") && not_placeholder_token(secret, matched)
}

fn slack_webhook_real(secret: &str, _matched: &str) -> bool {
    let path = secret.rsplit_once("slack.com/").map_or(secret, |(_, p)| p);
    let last = path.rsplit('/').next().unwrap_or(path);
    !all_same(last) && !last.to_ascii_lowercase().contains("xxxx") && entropy(path) > 3.0
}

/// A PEM block's body is base64 of real length, not `...` or a placeholder.
fn private_key_body(secret: &str, _matched: &str) -> bool {
    let body: String = secret
        .lines()
        .filter(|l| !l.contains("-----"))
        .flat_map(|l| l.chars())
        .filter(|c| c.is_ascii_alphanumeric() || *c == '+' || *c == '/')
        .collect();
    body.len() >= 64 && entropy(&body) > 4.0
}

/// Passwords that only stand for one.
const PLACEHOLDER_PASSWORDS: &[&str] = &[
    "password", "passwd", "pass", "pwd", "secret", "user", "username", "pw", "token", "changeme",
];

fn url_password_real(secret: &str, matched: &str) -> bool {
    let lower = secret.to_ascii_lowercase();
    let user = matched
        .split_once("://")
        .and_then(|(_, rest)| rest.split_once(':'))
        .map_or("", |(u, _)| u);
    !(PLACEHOLDER_PASSWORDS.contains(&lower.as_str())
        || secret == user
        || secret.starts_with('%')
        || (secret.starts_with('[') && secret.ends_with(']'))
        || is_placeholder(secret))
}

fn aws_secret_real(secret: &str, matched: &str) -> bool {
    secret.bytes().any(|b| b.is_ascii_digit())
        && secret.bytes().any(|b| b.is_ascii_alphabetic())
        && !is_placeholder(secret)
        && !matched.to_ascii_lowercase().contains("example")
}

/// Names holding `key` that are no credential.
const HARMLESS_KEY_NAMES: &[&str] = &[
    "cache",
    "sort",
    "primary",
    "foreign",
    "partition",
    "idempot",
    "keyboard",
    "monkey",
    "keyword",
    "hotkey",
    "turkey",
    "public",
    "lookup",
    "keypath",
    "keystroke",
    "keyid",
    "key_id",
    "keys",
    "keyname",
    "key_name",
    "dedup",
    "storage_key",
    "object_key",
    "s3_key",
    "map_key",
    "row_key",
];

/// Name endings that say the value is about a secret (where it lies, what kind it is).
const NOT_SECRET_SUFFIXES: &[&str] = &[
    "path", "file", "filename", "dir", "url", "uri", "endpoint", "name", "type", "id", "ids", "count", "length",
    "size", "limit", "env", "var", "header", "field", "prefix", "format", "version", "hash", "sha", "digest",
];

/// Names under which hex is a digest, not a key.
const HASH_NAMES: &[&str] = &[
    "hash",
    "sha",
    "digest",
    "checksum",
    "commit",
    "etag",
    "fingerprint",
    "md5",
];

/// `8-4-4-4-12` hex digits.
fn is_uuid(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, &c)| {
            if matches!(i, 8 | 13 | 18 | 23) {
                c == b'-'
            } else {
                c.is_ascii_hexdigit()
            }
        })
}

fn generic_real(secret: &str, matched: &str) -> bool {
    let name = matched
        .split(['=', ':'])
        .next()
        .unwrap_or("")
        .trim_matches(|c: char| c == '"' || c == '\'' || c == '\\' || c.is_whitespace())
        .to_ascii_lowercase();
    let name_words = ["token", "secret", "passw", "pwd", "credential"];
    if !name_words.iter().any(|w| name.contains(w)) && HARMLESS_KEY_NAMES.iter().any(|w| name.contains(w)) {
        return false;
    }
    if is_placeholder(secret) || entropy(secret) < 3.5 {
        return false;
    }
    // Keys that are public or only for tests (Stripe's publishable and test keys).
    if ["sk_test_", "rk_test_", "pk_test_", "pk_live_"]
        .iter()
        .any(|p| secret.starts_with(p))
    {
        return false;
    }
    // Names of things about a secret (its path, its type, its id), not the secret.
    if NOT_SECRET_SUFFIXES.iter().any(|s| name.ends_with(s)) {
        return false;
    }
    // Ids and digests: a UUID, or hex under a name that says hash.
    if is_uuid(secret) || (secret.bytes().all(|b| b.is_ascii_hexdigit()) && HASH_NAMES.iter().any(|h| name.contains(h)))
    {
        return false;
    }
    // File paths.
    if ["/", "./", "../", "~/"].iter().any(|p| secret.starts_with(p))
        && secret.bytes().filter(|&b| b == b'/').count() >= 2
    {
        return false;
    }
    let lower = secret.bytes().any(|b| b.is_ascii_lowercase());
    let upper = secret.bytes().any(|b| b.is_ascii_uppercase());
    let digit = secret.bytes().any(|b| b.is_ascii_digit());
    let other = secret.bytes().any(|b| !b.is_ascii_alphanumeric());
    let kinds = [lower, upper, digit, other].iter().filter(|&&k| k).count();
    if kinds < 2 {
        return false;
    }
    // An unquoted value must hold a digit: unquoted digitless words are mostly code
    // (`token = self.tokenizer.encode`), not secrets.
    let before = &matched[..matched.rfind(secret).unwrap_or(0)];
    let quoted = before.ends_with('"') || before.ends_with('\'');
    if !quoted && !digit {
        return false;
    }
    // Dotted paths and URLs are references, not secrets.
    if secret.contains("://") || (secret.contains('.') && !secret.contains(|c: char| c.is_ascii_digit())) {
        return false;
    }
    true
}

#[cfg(test)]
mod tests {

    #[test]
    fn fingerprints_are_the_same_for_the_same_rules_and_differ_otherwise() {
        let a = RuleSet::builtin();
        // Using the rules (compiling their regexes) changes nothing.
        let _ = a.find("ghp_0123456789abcdefghijklmnopqrstuvwxyz");
        assert_eq!(a.fingerprint(), RuleSet::builtin().fingerprint());
        let keyed = RuleSet::builtin().with_exact(vec![("MY_TOKEN".into(), "s3cr3t-value-123".into())]);
        assert_ne!(a.fingerprint(), keyed.fingerprint());
    }

    use super::*;
    use proptest::prelude::*;
    use std::sync::LazyLock;

    static BUILTIN: LazyLock<RuleSet> = LazyLock::new(RuleSet::builtin);
    static MINE: LazyLock<RuleSet> =
        LazyLock::new(|| RuleSet::builtin().with_exact(vec![("MINE".into(), "planted-own-value-42".into())]));
    static POSITIVES: LazyLock<Vec<(&'static str, String, String)>> = LazyLock::new(positives);

    // Fake secrets are generated at run time (a fixed pseudo-random sequence), so this source
    // holds no string a secret scanner would flag.

    const ALNUM: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    const UPPER_B32: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    const LETTERS: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    const B64: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    const URLSAFE: &str = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-";
    const DIGITS: &str = "0123456789";
    const HEX: &str = "0123456789abcdef";

    /// `n` characters of `alphabet`, pseudo-random from `seed`.
    fn rand(seed: u64, n: usize, alphabet: &str) -> String {
        let a = alphabet.as_bytes();
        let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                a[(x % a.len() as u64) as usize] as char
            })
            .collect()
    }

    fn cat(parts: &[&str]) -> String {
        parts.concat()
    }

    fn anthropic(seed: u64) -> String {
        cat(&["sk-ant-", "api03-", &rand(seed, 93, URLSAFE), "AA"])
    }

    fn pem(seed: u64) -> String {
        let body: Vec<String> = (0..6).map(|i| rand(seed + i, 64, B64)).collect();
        cat(&[
            "-----BEGIN ",
            "RSA PRIVATE KEY-----\n",
            &body.join("\n"),
            "\n-----END RSA PRIVATE KEY-----",
        ])
    }

    /// (rule, text, secret): each built-in rule finds its secret in realistic text.
    fn positives() -> Vec<(&'static str, String, String)> {
        let mut v = Vec::new();
        let mut add = |rule: &'static str, secret: String, text: &dyn Fn(&str) -> String| {
            let t = text(&secret);
            v.push((rule, t, secret));
        };
        add("anthropic-api-key", anthropic(1), &|s| {
            format!("export ANTHROPIC_API_KEY={s}\nnpm run dev\n")
        });
        add("anthropic-api-key", anthropic(2), &|s| {
            format!(
                "curl https://api.anthropic.com/v1/messages -H \"x-api-key: {s}\" -H \"content-type: application/json\""
            )
        });
        add("openai-api-key", cat(&["sk-", "proj-", &rand(3, 156, URLSAFE)]), &|s| {
            format!("{{\"OPENAI_API_KEY\": \"{s}\", \"model\": \"gpt-4o\"}}")
        });
        add(
            "openai-api-key",
            cat(&["sk-", &rand(4, 20, ALNUM), "T3Blbk", "FJ", &rand(5, 20, ALNUM)]),
            &|s| format!("curl https://api.openai.com/v1/models -H \"Authorization: Bearer {s}\""),
        );
        add("aws-access-key-id", cat(&["AKIA", &rand(6, 16, UPPER_B32)]), &|s| {
            format!("# .env\nAWS_ACCESS_KEY_ID={s}\nAWS_REGION=us-east-1\n")
        });
        add("aws-access-key-id", cat(&["ASIA", &rand(7, 16, UPPER_B32)]), &|s| {
            format!("$ aws sts get-caller-identity\n{{\"AccessKeyId\": \"{s}\"}}")
        });
        add("aws-secret-access-key", cat(&[&rand(8, 38, B64), "7q"]), &|s| {
            format!("[default]\nregion = us-east-1\naws_secret_access_key = {s}\n")
        });
        add("github-pat", cat(&["ghp", "_", &rand(10, 36, ALNUM)]), &|s| {
            format!("git remote set-url origin https://x-access-token:{s}@github.com/acme/app.git")
        });
        add(
            "github-fine-grained-pat",
            cat(&["github", "_pat_", &rand(11, 82, "ABCDEFabcdef0123456789_")]),
            &|s| format!("GH_TOKEN={s} gh pr list"),
        );
        add("github-app-token", cat(&["ghs", "_", &rand(12, 36, ALNUM)]), &|s| {
            format!("{{\"token\": \"{s}\", \"expires_at\": \"2025-01-01T00:00:00Z\"}}")
        });
        add("github-oauth", cat(&["gho", "_", &rand(13, 36, ALNUM)]), &|s| {
            format!("github.com:\n    user: octo\n    oauth_token: {s}\n    git_protocol: https\n")
        });
        add("gitlab-pat", cat(&["glpat", "-", &rand(14, 20, URLSAFE)]), &|s| {
            format!("curl --header \"PRIVATE-TOKEN: {s}\" https://gitlab.example.com/api/v4/projects")
        });
        add(
            "slack-token",
            cat(&[
                "xoxb",
                "-",
                &rand(15, 12, DIGITS),
                "-",
                &rand(16, 13, DIGITS),
                "-",
                &rand(17, 24, ALNUM),
            ]),
            &|s| format!("SLACK_BOT_TOKEN={s}\n"),
        );
        add(
            "slack-webhook-url",
            cat(&[
                "https://hooks.",
                "slack.com/services/T",
                &rand(18, 8, UPPER_B32),
                "/B",
                &rand(19, 10, UPPER_B32),
                "/",
                &rand(20, 24, ALNUM),
            ]),
            &|s| format!("curl -X POST -H 'Content-type: application/json' --data '{{\"text\":\"hi\"}}' {s}"),
        );
        add("stripe-live-key", cat(&["sk", "_live_", &rand(21, 99, ALNUM)]), &|s| {
            format!("stripe.api_key = \"{s}\"\n")
        });
        add("stripe-live-key", cat(&["rk", "_live_", &rand(22, 24, ALNUM)]), &|s| {
            format!("STRIPE_KEY={s}")
        });
        add("gcp-api-key", cat(&["AI", "za", &rand(23, 35, URLSAFE)]), &|s| {
            format!("GET https://maps.googleapis.com/maps/api/geocode/json?address=Paris&key={s} 200")
        });
        add("npm-token", cat(&["npm", "_", &rand(24, 36, ALNUM)]), &|s| {
            format!("//registry.npmjs.org/:_authToken={s}\n")
        });
        add(
            "pypi-token",
            cat(&["pypi-", "AgEIcHlwaS5vcmc", &rand(25, 120, URLSAFE)]),
            &|s| format!("[pypi]\n  username = __token__\n  password = {s}\n"),
        );
        add("huggingface-token", cat(&["hf", "_", &rand(26, 34, LETTERS)]), &|s| {
            format!("HF_TOKEN={s} python train.py")
        });
        add("private-key", pem(27), &|s| {
            format!("$ cat ~/.ssh/deploy_key\n{s}\n$ ls\n")
        });
        add(
            "jwt",
            cat(&[
                "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9",
                ".eyJ",
                &rand(28, 60, URLSAFE),
                ".",
                &rand(29, 43, URLSAFE),
            ]),
            &|s| format!("curl -H \"Authorization: Bearer {s}\" https://api.internal/v1/me"),
        );
        add("url-password", rand(30, 20, ALNUM), &|s| {
            format!("DATABASE_URL=postgres://app:{s}@db.internal:5432/prod\n")
        });
        add("url-password", rand(31, 16, ALNUM), &|s| {
            format!("redis://:{s}@cache:6379/0")
        });
        add("generic-secret-assignment", rand(32, 24, ALNUM), &|s| {
            format!("DB_PASSWORD=\"{s}\"\n")
        });
        add("generic-secret-assignment", rand(33, 32, URLSAFE), &|s| {
            format!("{{\"client_secret\": \"{s}\", \"redirect_uri\": \"https://app/cb\"}}")
        });
        add("generic-secret-assignment", rand(34, 40, ALNUM), &|s| {
            format!("export MY_SERVICE_TOKEN={s}\n")
        });
        add("generic-secret-assignment", rand(35, 28, ALNUM), &|s| {
            format!("service:\n  api_key: {s}\n  region: eu\n")
        });
        add("generic-secret-assignment", rand(36, 20, ALNUM), &|s| {
            format!("const apiKey = '{s}';")
        });
        v
    }

    #[test]
    fn every_builtin_rule_finds_its_secret_exactly() {
        let set = RuleSet::builtin();
        let cases = positives();
        for rule in set.rules() {
            assert!(
                cases.iter().any(|(r, _, _)| *r == rule.id),
                "no positive case for {}",
                rule.id
            );
            assert!(!rule.keywords.is_empty(), "{} has no keywords", rule.id);
        }
        for (rule, text, secret) in cases {
            let hits = set.find(&text);
            assert_eq!(hits.len(), 1, "{rule}: {hits:?} in {text:?}");
            assert_eq!(hits[0].rule, rule, "in {text:?}");
            assert_eq!(&text[hits[0].range.clone()], secret, "{rule}");
            assert!(set.may_match(text.as_bytes()), "{rule}");
            let json = serde_json::to_string(&text).unwrap();
            assert!(set.may_match(json.as_bytes()), "{rule} escaped");
        }
    }

    #[test]
    fn near_misses_do_not_match() {
        let set = RuleSet::builtin();
        let x93 = "x".repeat(93);
        let texts = vec![
            "export OPENAI_API_KEY=$OPENAI_API_KEY".to_string(),
            "export OPENAI_API_KEY=${OPENAI_API_KEY}".to_string(),
            "const key = process.env.OPENAI_API_KEY_PRODUCTION_1;".to_string(),
            "api_key = os.environ[\"OPENAI_API_KEY\"]".to_string(),
            "API_KEY=\"your-api-key-here-123456\"".to_string(),
            "ANTHROPIC_API_KEY=<your-anthropic-api-key-1>".to_string(),
            "password: changeme_changeme_123".to_string(),
            "SECRET_KEY=\"EXAMPLE_SECRET_KEY_1234567\"".to_string(),
            "token = \"[REDACTED:github-pat]\"".to_string(),
            "TOKEN=aaaaaaaaaaaaaaaaaaaaaaaaaaaaa".to_string(),
            cat(&["ANTHROPIC_API_KEY=sk-ant-", "api03-", &x93, "AA"]),
            cat(&["STRIPE_KEY=sk", "_test_", &rand(40, 99, ALNUM)]),
            cat(&["pk", "_live_", &rand(41, 99, ALNUM)]),
            cat(&["AWS_ACCESS_KEY_ID=AKIA", "IOSFODNN7", "EXAMPLE"]),
            "\"parentId\": \"123e4567-e89b-12d3-a456-426614174000\", \"tokenId\": \"123e4567-e89b-12d3-a456-426614174000\"".to_string(),
            format!("commit {}\nAuthor: A <a@b.c>", rand(42, 40, HEX)),
            format!("sha256: {}  session.jsonl", rand(43, 64, HEX)),
            format!("\"secret_hash\": \"{}\"", rand(44, 64, HEX)),
            format!("data:image/png;base64,{}", rand(45, 4000, B64)),
            "api_key_path = /etc/app/keys/api_key_production_v2.pem".to_string(),
            "see src/secrets/token_store.rs and ~/.ssh/id_rsa".to_string(),
            "token = self.tokenizer.encode_batch(texts)".to_string(),
            "const apiKey = getApiKeyFromSomewhere1();".to_string(),
            "postgres://postgres:postgres@localhost:5432/db".to_string(),
            "https://user:password@example.com and ftp://admin:***@host".to_string(),
            "mysql://root:${MYSQL_PASSWORD}@db/app".to_string(),
            "https://hooks.slack.com/services/T00000000/B00000000/XXXXXXXXXXXXXXXXXXXXXXXX".to_string(),
            "-----BEGIN PRIVATE KEY-----\n...\n-----END PRIVATE KEY-----".to_string(),
            cat(&["ghp", "_", &"x".repeat(36)]),
            cat(&["prefix", "ghp", "_", &rand(46, 36, ALNUM)]),
            cat(&["ghp", "_", &rand(47, 37, ALNUM)]),
            "The API key must be kept secret; the token: is passed in the header.".to_string(),
            "\"max_tokens\": 4096, \"input_tokens\": 123456789012345678".to_string(),
        ];
        for t in texts {
            assert_eq!(set.find(&t), Vec::new(), "in {t:?}");
        }
    }

    #[test]
    fn redaction_markers_never_match() {
        let mut set = RuleSet::builtin();
        set = set.with_exact(vec![("ANTHROPIC_API_KEY".into(), anthropic(50))]);
        let mut ids: Vec<String> = set.rules().iter().map(|r| r.id.clone()).collect();
        ids.push("own-key:ANTHROPIC_API_KEY".into());
        for id in ids {
            let m = format!("[REDACTED:{id}]");
            for t in [
                m.clone(),
                format!("OPENAI_API_KEY={m}"),
                format!("\"api_key\": \"{m}\""),
                format!("https://u:{m}@host/x"),
                format!("export SECRET_TOKEN={m} && run"),
            ] {
                assert_eq!(set.find(&t), Vec::new(), "in {t:?}");
            }
        }
    }

    #[test]
    fn may_match_is_false_without_keywords() {
        let set = &*BUILTIN;
        assert!(!set.may_match(b"{\"type\":\"message\",\"content\":\"hello world\"}"));
        assert!(set.may_match(b"{\"content\":\"GHP_ in upper case\"}"));
        let mine = RuleSet::builtin().with_exact(vec![("X".into(), "0123456789".into())]);
        assert!(mine.may_match(b"digits 0123456789 here"));
    }

    #[test]
    fn exact_values_and_priority() {
        let key = anthropic(60);
        let set = RuleSet::builtin().with_exact(vec![
            ("ANTHROPIC_API_KEY".into(), key.clone()),
            ("SHORT".into(), "abc".into()),
        ]);
        let text = format!("x-api-key: {key} and again {key}");
        let hits = set.find(&text);
        assert_eq!(hits.len(), 2);
        assert!(
            hits.iter()
                .all(|h| h.rule == "own-key:ANTHROPIC_API_KEY" && text[h.range.clone()] == key)
        );
        // A short value is ignored.
        assert!(set.find("abc abc").is_empty());
        // An own value of no known shape is found verbatim.
        let plain = "hunter2-but-longer";
        let set = RuleSet::builtin().with_exact(vec![("DB".into(), plain.into())]);
        assert_eq!(set.find(&format!("pw is {plain}."))[0].rule, "own-key:DB");
        assert!(set.may_match(b"pw is HUNTER2-BUT-LONGER"));
        let quoted = "ab\"cd\\efgh";
        let set = RuleSet::builtin().with_exact(vec![("Q".into(), quoted.into())]);
        assert!(set.may_match(serde_json::to_string(&format!("x {quoted} y")).unwrap().as_bytes()));
    }

    #[test]
    fn overlapping_hits_keep_the_earlier() {
        let pat = cat(&["ghp", "_", &rand(61, 36, ALNUM)]);
        let text = format!("GITHUB_TOKEN={pat}");
        let hits = RuleSet::builtin().find(&text);
        assert_eq!(
            hits,
            vec![Hit {
                rule: "github-pat".into(),
                range: 13..text.len()
            }]
        );
        // Two secrets separated by one character are both found.
        let a = cat(&["ghp", "_", &rand(62, 36, ALNUM)]);
        let b = cat(&["gho", "_", &rand(63, 36, ALNUM)]);
        let text = format!("{a},{b}");
        let hits = RuleSet::builtin().find(&text);
        assert_eq!(hits.len(), 2, "{hits:?}");
        assert_eq!(&text[hits[1].range.clone()], b);
    }

    #[test]
    fn only_two_characters_beyond_ascii_fold_into_an_assignments_name() {
        // assignment_windows reads names as ASCII, and searches the whole text when it holds
        // one of these.
        let name = Regex::new("(?i)^(?:[0-9a-z_.-]|key|token|secret|passw|pwd|credential)$").unwrap();
        let class = Regex::new("(?i)^[0-9a-z_.-]$").unwrap();
        let beyond: Vec<char> = (0x80..=0x10FFFFu32)
            .filter_map(char::from_u32)
            .filter(|c| class.is_match(&c.to_string()) || name.is_match(&c.to_string()))
            .collect();
        assert_eq!(beyond, vec!['\u{17F}', '\u{212A}']);
    }

    #[test]
    fn mask_shows_little() {
        assert_eq!(mask(&cat(&["sk-a", &"b".repeat(47)])), "sk-a…(51 chars)");
        assert_eq!(mask("abcdefghij"), "ab…(10 chars)");
        assert_eq!(mask("abcde"), "a…(5 chars)");
        assert_eq!(mask("ab"), "…(2 chars)");
        assert_eq!(mask(""), "…(0 chars)");
        assert_eq!(mask("日本語の秘密のパスワードです"), "日本語の…(14 chars)");
    }

    #[test]
    fn entropy_as_gitleaks() {
        assert_eq!(entropy(""), 0.0);
        assert_eq!(entropy("aaaa"), 0.0);
        assert!((entropy("ab") - 1.0).abs() < 1e-12);
        assert!((entropy("abcd") - 2.0).abs() < 1e-12);
    }

    fn planted() -> impl Strategy<Value = String> {
        (0u64..1000).prop_flat_map(|seed| {
            prop::sample::select(POSITIVES.iter().map(|(_, _, s)| s.clone()).collect::<Vec<_>>())
                .prop_map(move |s| if seed % 2 == 0 { s } else { s.to_lowercase() })
        })
    }

    fn noisy_text() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            "[ -~]{0,20}",
            "[a-zA-Z0-9_=:\"' \\n-]{0,30}",
            "\\PC{0,10}",
            prop::sample::select(vec![
                "key=",
                "API_KEY=",
                "\"token\": \"",
                "password: ",
                "://u:",
                "@",
                "-----BEGIN ",
                "PRIVATE KEY-----",
                "-----END ",
                "eyJ",
                ".",
                "[REDACTED:",
                "]",
                "é",
                "日本",
            ])
            .prop_map(String::from),
        ];
        let part = prop_oneof![3 => piece, 1 => planted()];
        prop::collection::vec(part, 0..8).prop_map(|v| v.concat())
    }

    /// The body of a JSON string as written on disk: keywords in any case, escapes (some
    /// spelling a keyword's byte, some standing just before one), planted secrets, other text.
    fn raw_body() -> impl Strategy<Value = String> {
        let piece = prop_oneof![
            "[ -!#-\\[\\]-~]{0,12}",
            "[a-zA-Z0-9_=:' .-]{0,20}",
            "\\PC{0,4}".prop_map(|s| s.replace(['"', '\\'], "")),
            prop::sample::select(vec![
                "\\n",
                "\\t",
                "\\r",
                "\\b",
                "\\f",
                "\\/",
                "\\\\",
                "\\\"",
                "\\u0074",
                "\\u004B",
                "\\u00e9",
                "\\ud83d\\ude00",
                "\\ud83d",
                ":\\/\\/",
                "\\token",
                "\\\\token",
                "\\npm_",
                "\\bkey",
                "TOKEN",
                "Key",
                "toKen",
                "secret",
                "passw",
                "pwd",
                "credential",
                "eyJ",
                "keyj",
                "://",
                "aws",
                "sk-ant-",
                "ghp_",
                "hf_",
                "hooks.slack.com",
                "-----BEGIN ",
                "AKIA",
                "=",
                ": ",
                "\\\"=",
                "[REDACTED:",
                "planted-own-value-42",
                "PLANTED-own-value-42",
                "\u{212A}",
                "\u{17F}",
            ])
            .prop_map(String::from),
        ];
        let part = prop_oneof![4 => piece, 1 => planted().prop_map(|s| serde_json::to_string(&s).unwrap().trim_matches('"').to_string())];
        prop::collection::vec(part, 0..10).prop_map(|v| v.concat())
    }

    /// The keyword hits the straightforward way: every overlapping match of the automaton.
    fn hits_by_automaton(set: &RuleSet, raw: &[u8]) -> Vec<KeywordHit> {
        set.keyword_hits_slow(raw)
    }

    /// Own values with a quote and a backslash, whose escaped spelling could run across the
    /// quote that ends a token.
    static ODD: LazyLock<RuleSet> = LazyLock::new(|| {
        RuleSet::builtin().with_exact(vec![
            ("Q".into(), "ab\"cd\\efgh".into()),
            ("T".into(), "x\":\"tokenkey".into()),
            ("P".into(), "planted-own-value-42".into()),
        ])
    });

    /// The built-in rules with the assignment rule's regex run over the whole text.
    static UNWINDOWED: LazyLock<RuleSet> = LazyLock::new(|| {
        let mut rules = builtin_rules();
        for r in &mut rules {
            r.assignment = false;
        }
        RuleSet::from_parts(rules, Vec::new(), vec![("MINE".into(), "planted-own-value-42".into())])
    });

    /// Assignments in many shapes, values of every length, near the window's edges.
    fn assignments() -> impl Strategy<Value = String> {
        let name = prop_oneof![
            "[a-zA-Z_.-]{0,6}(key|KEY|Token|secret|PASSW|pwd|credential|toke|ke)[a-zA-Z0-9_.-]{0,6}",
            Just("\u{212A}ey".to_string()),
            Just("to\u{212A}en".to_string()),
            Just("\u{17F}ecret".to_string()),
        ];
        let glue = "(\\\\?[\"']?)[ \t]{0,3}(=>|:=|=|:|==|::)[ \t]{0,3}(\\\\?[\"']?)";
        let value = prop_oneof![
            "[A-Za-z0-9]{10,20}",
            "[A-Za-z0-9+/_-]{190,215}",
            "[A-Za-zé€😀0-9]{195,210}",
            "[ -~]{0,30}",
        ];
        let part = prop_oneof![
            (name, glue, value, "[\"' ,;\n)]?").prop_map(|(n, g, v, e)| format!("{n}{g}{v}{e}")),
            noisy_text(),
        ];
        prop::collection::vec(part, 0..6).prop_map(|v| v.concat())
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]

        #[test]
        fn find_is_sound(text in noisy_text()) {
            let set = &*MINE;
            let hits = set.find(&text);
            let mut last = 0;
            for (i, h) in hits.iter().enumerate() {
                prop_assert!(h.range.start < h.range.end);
                prop_assert!(text.is_char_boundary(h.range.start) && text.is_char_boundary(h.range.end));
                if i > 0 { prop_assert!(h.range.start >= last); }
                last = h.range.end;
            }
            if !hits.is_empty() {
                prop_assert!(set.may_match(text.as_bytes()));
                prop_assert!(set.may_match(serde_json::to_string(&text).unwrap().as_bytes()));
            }
        }

        #[test]
        fn planted_secrets_are_found(pre in "[ -~]{0,40}", post in "[ -~]{0,40}", idx in 0usize..64) {
            let cases = &*POSITIVES;
            let (rule, text, secret) = &cases[idx % cases.len()];
            let full = format!("{pre}\n{text}\n{post}");
            let set = &*BUILTIN;
            prop_assert!(set.may_match(full.as_bytes()));
            let hits = set.find(&full);
            prop_assert!(
                hits.iter().any(|h| full[h.range.clone()].contains(secret.as_str()) || secret.contains(&full[h.range.clone()])),
                "{} lost in {:?}: {:?}", rule, full, hits
            );
        }

        #[test]
        fn keyword_hits_are_the_automatons(body in raw_body(), other in raw_body(), odd in any::<bool>()) {
            let set = if odd { &*ODD } else { &*MINE };
            let line = format!("{{\"a\":\"{body}\",\"{other}\":[\"{other}{body}\"]}}");
            let mut lower = Vec::new();
            let fast = set.keyword_hits(line.as_bytes(), &mut lower).unwrap();
            prop_assert_eq!(&fast, &hits_by_automaton(set, line.as_bytes()));
            // The spans of the line's search are those of the automaton's standard search.
            let spans = RuleSet::spans_of(&fast);
            prop_assert_eq!(Some(spans), set.keyword_spans(line.as_bytes()));
        }

        /// Matching a token's lines that hold an assignment finds what matching its whole
        /// decoded text does.
        #[test]
        fn find_by_lines_is_find_woken(
            lines in prop::collection::vec((raw_body(), assignments()), 1..5), pre in raw_body(), own in any::<bool>(),
        ) {
            let set = if own { &*MINE } else { &*BUILTIN };
            // Lines of text joined by `\n` escapes, as a tool's output is written.
            let body: Vec<String> = lines
                .iter()
                .map(|(raw, text)| format!("{raw}{}", serde_json::to_string(text).unwrap().trim_matches('"')))
                .collect();
            let token = format!("\"{}\"", body.join("\\n"));
            let line = format!("{{\"{pre}\":{token}}}");
            let span = line.len() - 1 - token.len()..line.len() - 1;
            let hits = set.keyword_hits(line.as_bytes(), &mut Vec::new()).unwrap();
            if let TokenPlan::Woken(run) = set.plan_token(line.as_bytes(), span.clone(), &hits)
                && let Some(by_lines) = set.find_by_lines(line.as_bytes(), span, &hits, &run)
            {
                let text = crate::secrets::walk::decode(token.as_bytes()).text;
                let want: Vec<(Hit, String)> =
                    set.find_woken(&text, &run).into_iter().map(|h| { let s = text[h.range.clone()].to_owned(); (h, s) }).collect();
                prop_assert_eq!(by_lines, want, "{:?}", token);
            }
        }

        #[test]
        fn rules_woken_by_raw_are_those_of_the_decoded_text(body in raw_body(), pre in raw_body()) {
            let set = &*MINE;
            let token = format!("\"{body}\"");
            let line = format!("{{\"{pre}\":{token}}}");
            let at = line.len() - 1 - token.len();
            let decoded = crate::secrets::walk::decode(token.as_bytes());
            let mut lower = Vec::new();
            let hits = set.keyword_hits(line.as_bytes(), &mut lower).unwrap();
            if let Some(run) = set.woken_by_raw(token.as_bytes(), at, &hits) {
                prop_assert_eq!(&run, &set.woken_in(&decoded.text), "{:?}", decoded.text);
                prop_assert_eq!(set.find_woken(&decoded.text, &run), set.find(&decoded.text));
            } else {
                prop_assert!(body.contains("\\u") || body.contains("\\/"));
            }
        }

        #[test]
        fn assignment_windows_find_what_the_whole_text_does(text in assignments()) {
            prop_assert_eq!(MINE.find(&text), UNWINDOWED.find(&text), "{:?}", text);
        }

        #[test]
        fn mask_never_reveals(s in "\\PC{0,80}") {
            let m = mask(&s);
            let n = s.chars().count();
            let shown = m.split('…').next().unwrap().chars().count();
            prop_assert!(shown * 3 <= n);
            prop_assert!(n == 0 || shown < n);
        }
    }

    /// The input the property test found in CI: a token whose body ends in a lone
    /// backslash (its closing quote escaped), which `find_by_lines` once sliced past.
    #[test]
    fn find_by_lines_stops_at_a_body_ending_in_a_backslash() {
        let set = &*BUILTIN;
        let token = "\"key0=>0aAAAAAa0A0a\\\"";
        let line = format!("{{\"\":{token}}}");
        let span = line.len() - 1 - token.len()..line.len() - 1;
        let hits = set.keyword_hits(line.as_bytes(), &mut Vec::new()).unwrap();
        if let TokenPlan::Woken(run) = set.plan_token(line.as_bytes(), span.clone(), &hits)
            && let Some(by_lines) = set.find_by_lines(line.as_bytes(), span, &hits, &run)
        {
            let text = crate::secrets::walk::decode(token.as_bytes()).text;
            let want: Vec<(Hit, String)> = set
                .find_woken(&text, &run)
                .into_iter()
                .map(|h| {
                    let s = text[h.range.clone()].to_owned();
                    (h, s)
                })
                .collect();
            assert_eq!(by_lines, want);
        }
    }
}
