//! What a session paid for: every call recorded in it ([`calls`]: assistant messages, `usage`
//! entries such as cache warming, and the summary calls of compactions and branch summaries)
//! and their sums ([`Stats`]). Sums are taken in file order with JavaScript's arithmetic, so
//! they equal what a script adding the same numbers gets; cost is what the session recorded.
//!
//! [`Call`] and [`call_in_line`] are what `stats` and the report over many sessions
//! ([`report`]) both count with.

pub mod report;

use crate::llm::Cost;
use crate::session::jsjson::number;
use crate::session::{Detail, EntryIdx, EntryKind, MessageAt, Role, Session, jsparse};
use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;
use std::borrow::Cow;

/// Where a paid call is recorded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Source {
    /// An assistant message's `usage`.
    Assistant,
    /// A `usage` entry (a call that left no message, e.g. cache warming).
    Usage,
    /// The summary call of a compaction entry.
    Compaction,
    /// The summary call of a branch-summary entry.
    BranchSummary,
}

impl Source {
    pub const ALL: [Source; 4] = [
        Source::Assistant,
        Source::Usage,
        Source::Compaction,
        Source::BranchSummary,
    ];

    /// The name used in JSON and tables.
    pub fn name(self) -> &'static str {
        match self {
            Source::Assistant => "assistant",
            Source::Usage => "usage",
            Source::Compaction => "compaction",
            Source::BranchSummary => "branchSummary",
        }
    }
}

/// The model summaries are attributed to when their entry names none.
pub const SUMMARIES: &str = "(summaries)";
/// The model of a call whose entry names none (assistant messages and `usage` entries).
pub const UNKNOWN_MODEL: &str = "?";

/// One paid call recorded in a session.
#[derive(Debug, Clone, PartialEq)]
pub struct Call {
    pub source: Source,
    /// The entry that records it.
    pub entry: EntryIdx,
    /// The entry's `timestamp` as written (ISO 8601 in files Pi writes).
    pub timestamp: Option<String>,
    pub provider: Option<String>,
    /// The model that answered (for assistant messages `responseModel` when present), else
    /// [`UNKNOWN_MODEL`], or [`SUMMARIES`] for a summary entry that names none.
    pub model: String,
    /// The amounts of its `usage` object.
    pub totals: Totals,
}

/// The fields of an entry line that carry usage; everything else is skipped unparsed.
#[derive(Debug, Deserialize)]
struct UsageLine {
    #[serde(default)]
    provider: Option<Value>,
    #[serde(default)]
    model: Option<Value>,
    #[serde(default)]
    usage: Option<Value>,
    #[serde(default)]
    message: Option<UsageMessage>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase")]
struct UsageMessage {
    #[serde(default)]
    provider: Option<Value>,
    #[serde(default)]
    model: Option<Value>,
    #[serde(default)]
    response_model: Option<Value>,
    #[serde(default)]
    usage: Option<Value>,
}

impl UsageLine {
    /// From the full entry, for lines the narrow reader refuses (duplicate keys, odd types).
    fn from_value(v: &Value) -> UsageLine {
        let m = v.get("message");
        UsageLine {
            provider: v.get("provider").cloned(),
            model: v.get("model").cloned(),
            usage: v.get("usage").cloned(),
            message: m.filter(|m| m.is_object()).map(|m| UsageMessage {
                provider: m.get("provider").cloned(),
                model: m.get("model").cloned(),
                response_model: m.get("responseModel").cloned(),
                usage: m.get("usage").cloned(),
            }),
        }
    }
}

fn string(v: Option<Value>) -> Option<String> {
    match v {
        Some(Value::String(s)) => Some(s),
        _ => None,
    }
}

/// The source of the call an entry of this kind (and message role) records, if it can
/// record one.
pub fn source_of(kind: &EntryKind, role: Option<&Role>) -> Option<Source> {
    match kind {
        EntryKind::Message if role == Some(&Role::Assistant) => Some(Source::Assistant),
        EntryKind::Usage => Some(Source::Usage),
        EntryKind::Compaction => Some(Source::Compaction),
        EntryKind::BranchSummary => Some(Source::BranchSummary),
        _ => None,
    }
}

/// What a loader already knows of an assistant message: its provider, model and
/// `responseModel`, and where its values are in the line.
pub struct KnownMessage<'a> {
    pub provider: Option<&'a str>,
    pub model: Option<&'a str>,
    pub response_model: Option<&'a str>,
    pub at: &'a MessageAt,
}

/// The provider, model and usage of the call an entry line records (`source` being what
/// kind of call it can be), or `None` when it recorded none. `known`: what the loader
/// located of an assistant message, so its line need not be read again; `value`: the
/// entry's whole value, for lines the narrow readers refuse.
pub fn call_in_line<'a>(
    source: Source,
    raw: &[u8],
    known: Option<KnownMessage<'a>>,
    value: impl FnOnce() -> Value,
) -> Option<(Option<Cow<'a, str>>, Cow<'a, str>, Totals)> {
    if let Some(m) = known.filter(|_| source == Source::Assistant) {
        let (provider, model, totals) = known_call(raw, m)?;
        return Some((provider.map(Cow::Borrowed), Cow::Borrowed(model), totals));
    }
    let line = fast::usage_line(raw)
        .or_else(|_| serde_json::from_slice::<UsageLine>(raw))
        .unwrap_or_else(|_| UsageLine::from_value(&value()));
    let (provider, model, usage) = match source {
        Source::Assistant => {
            let m = line.message?;
            // Pi's /session breakdown names the model that answered (e.g. OpenRouter's `auto`
            // resolved), else the one asked.
            let model = string(m.response_model).or(string(m.model));
            (
                string(m.provider),
                model.unwrap_or_else(|| UNKNOWN_MODEL.into()),
                m.usage?,
            )
        }
        Source::Usage => (
            string(line.provider),
            string(line.model).unwrap_or_else(|| UNKNOWN_MODEL.into()),
            line.usage?,
        ),
        Source::Compaction | Source::BranchSummary => {
            let model = string(line.model);
            let provider = model.as_ref().and(string(line.provider));
            (provider, model.unwrap_or_else(|| SUMMARIES.into()), line.usage?)
        }
    };
    Some((provider.map(Cow::Owned), Cow::Owned(model), Totals::of_object(&usage)?))
}

/// [`call_in_line`] of an assistant message the loader located: its usage read where the
/// loader saw it, its names borrowed from what the loader kept.
fn known_call<'a>(raw: &[u8], m: KnownMessage<'a>) -> Option<(Option<&'a str>, &'a str, Totals)> {
    let (offset, len) = m.at.usage?;
    let usage = raw.get(offset as usize..(offset as usize).checked_add(len as usize)?)?;
    let totals = match Totals::of_raw(usage) {
        Some(t) => t,
        None => Totals::of_object(&jsparse::parse(usage).ok()?)?,
    };
    Some((
        m.provider,
        m.response_model.or(m.model).unwrap_or(UNKNOWN_MODEL),
        totals,
    ))
}

/// What an entry's message is known to hold, if the loader located its values.
fn known_message(e: &crate::session::Entry) -> Option<KnownMessage<'_>> {
    match &e.detail {
        Detail::Message {
            provider,
            model,
            response_model,
            at: Some(at),
            ..
        } => Some(KnownMessage {
            provider: provider.as_deref(),
            model: model.as_deref(),
            response_model: response_model.as_deref(),
            at,
        }),
        _ => None,
    }
}

/// A paid call as the totals count it: [`Call`] without the entry and its timestamp, and
/// with the names borrowed from the session where it holds them.
struct Counted<'a> {
    source: Source,
    provider: Option<Cow<'a, str>>,
    model: Cow<'a, str>,
    totals: Totals,
}

/// The paid call an entry records, if any, as the totals count it.
fn counted_call(session: &Session, idx: EntryIdx) -> Option<Counted<'_>> {
    let e = &session.entries[idx];
    let source = source_of(&e.kind, e.role())?;
    let (provider, model, totals) = call_in_line(source, session.raw(idx), known_message(e), || session.value(idx))?;
    Some(Counted {
        source,
        provider,
        model,
        totals,
    })
}

/// The paid call an entry records, if any. Parses only entries that can hold one.
pub fn call_of(session: &Session, idx: EntryIdx) -> Option<Call> {
    let e = &session.entries[idx];
    let Counted {
        source,
        provider,
        model,
        totals,
    } = counted_call(session, idx)?;
    Some(Call {
        source,
        entry: idx,
        timestamp: e.timestamp.as_deref().map(str::to_owned),
        provider: provider.map(Cow::into_owned),
        model: model.into_owned(),
        totals,
    })
}

/// The paid calls among `entries`, in their order.
pub fn calls(session: &Session, entries: impl IntoIterator<Item = EntryIdx>) -> impl Iterator<Item = Call> {
    entries.into_iter().filter_map(move |idx| call_of(session, idx))
}

/// Which entries to count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The whole file: abandoned branches and compacted history were paid for too.
    File,
    /// The branch ending at this entry (nothing when `None`: an empty session).
    Branch(Option<EntryIdx>),
}

/// The counted entries of a scope, in file order, and where a parent cycle stopped the walk
/// up the branch.
pub fn entries_of(session: &Session, scope: Scope) -> (Vec<EntryIdx>, Option<EntryIdx>) {
    match scope {
        Scope::File => ((0..session.entries.len()).collect(), None),
        Scope::Branch(None) => (Vec::new(), None),
        Scope::Branch(Some(tip)) => {
            let branch = session.branch(tip);
            let mut on = vec![false; session.entries.len()];
            for i in branch.path {
                on[i] = true;
            }
            ((0..session.entries.len()).filter(|&i| on[i]).collect(), branch.cycle_at)
        }
    }
}

fn js<S: Serializer>(n: &f64, s: S) -> Result<S::Ok, S::Error> {
    number(*n).serialize(s)
}

fn js_cost<S: Serializer>(c: &Cost, s: S) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Record {
        #[serde(serialize_with = "js")]
        input: f64,
        #[serde(serialize_with = "js")]
        output: f64,
        #[serde(serialize_with = "js")]
        cache_read: f64,
        #[serde(serialize_with = "js")]
        cache_write: f64,
        #[serde(serialize_with = "js")]
        total: f64,
    }
    Record {
        input: c.input,
        output: c.output,
        cache_read: c.cache_read,
        cache_write: c.cache_write,
        total: c.total,
    }
    .serialize(s)
}

/// The token columns of a `usage` object, in the order Pi writes them.
pub const TOKEN_COLUMNS: [&str; 5] = ["input", "output", "cacheRead", "cacheWrite", "totalTokens"];
/// The key of a `usage` object's cost.
pub const COST: &str = "cost";
/// The columns of a cost object, in the order Pi writes them.
pub const COST_COLUMNS: [&str; 5] = ["input", "output", "cacheRead", "cacheWrite", "total"];

/// Sums of `usage` objects. In JSON: `{input, output, cacheRead, cacheWrite, totalTokens,
/// cost: {input, output, cacheRead, cacheWrite, total}}`, numbers as JavaScript prints them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Totals {
    #[serde(serialize_with = "js")]
    pub input: f64,
    #[serde(serialize_with = "js")]
    pub output: f64,
    #[serde(serialize_with = "js")]
    pub cache_read: f64,
    #[serde(serialize_with = "js")]
    pub cache_write: f64,
    #[serde(serialize_with = "js")]
    pub total_tokens: f64,
    #[serde(serialize_with = "js_cost")]
    pub cost: Cost,
}

fn num(v: &Value, key: &str) -> f64 {
    v.get(key).and_then(Value::as_f64).unwrap_or(0.0)
}

/// [`scan::lenient_number`](crate::session::scan::lenient_number), read by [`plain_number`]
/// (without a float parser for the usual amounts) when it is written as one.
#[inline]
fn lenient_count(b: &[u8], pos: usize) -> crate::session::scan::Scan<(Option<f64>, usize)> {
    match plain_number(b, pos) {
        Some((v, end)) => Ok((Some(v), end)),
        None => crate::session::scan::lenient_number(b, pos),
    }
}

/// 10^0 ..= 10^22, the powers of ten a double holds exactly.
const EXACT_POW10: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20,
    1e21, 1e22,
];

/// 10^0 ..= 10^19, the powers of ten an u64 holds.
const POW10_U64: [u64; 20] = {
    let mut p = [1u64; 20];
    let mut i = 1;
    while i < 20 {
        p[i] = p[i - 1] * 10;
        i += 1;
    }
    p
};

/// The digits from `p` on, added to `n` (`n` wraps past 19 digits in all), and the
/// position after them. Up to eight at a time while eight bytes are there: a digit's byte
/// xor `0`'s is its value, below 10.
#[inline(always)]
fn digits(b: &[u8], mut p: usize, mut n: u64) -> (u64, usize) {
    const ZEROS: u64 = 0x3030_3030_3030_3030;
    const HIGH: u64 = 0xF0F0_F0F0_F0F0_F0F0;
    while let Some(chunk) = b.get(p..p + 8) {
        let x = u64::from_le_bytes(chunk.try_into().expect("eight bytes")) ^ ZEROS;
        // A byte is flagged when it is no digit: its value has a high nibble, or reaches 10
        // (adding 6 carries into the high nibble). A carry out of a flagged byte only
        // reaches later bytes; the first flagged one is right.
        let flagged = (x | x.wrapping_add(0x0606_0606_0606_0606)) & HIGH;
        let count = (flagged.trailing_zeros() / 8) as usize;
        if count == 0 {
            return (n, p);
        }
        // The digits moved to the end of the eight (the first byte is the lowest), zeros
        // before them and what follows them shifted out: their value by pairs, fours and
        // the eight.
        let v = x << (8 * (8 - count));
        let v = v.wrapping_mul(10) + (v >> 8);
        let v = ((v & 0x0000_00FF_0000_00FF).wrapping_mul(100 + (1_000_000 << 32))
            + ((v >> 16) & 0x0000_00FF_0000_00FF).wrapping_mul(1 + (10_000 << 32)))
            >> 32;
        n = n.wrapping_mul(POW10_U64[count]).wrapping_add(v);
        p += count;
        if count < 8 {
            return (n, p);
        }
    }
    while let Some(&d) = b.get(p) {
        let d = d.wrapping_sub(b'0');
        if d >= 10 {
            break;
        }
        n = n.wrapping_mul(10).wrapping_add(u64::from(d));
        p += 1;
    }
    (n, p)
}

/// `n / 10^k` correctly rounded (as `JSON.parse` reads the decimal `n` with its point `k`
/// digits from the end), for `k` at most 19: the quotient to 64 bits and more in integers,
/// rounded to the nearest double (ties to even) with the remainder telling whether the
/// cut-off bits are exactly half.
fn decimal(n: u64, k: usize) -> f64 {
    if n == 0 {
        return 0.0;
    }
    let lz = n.leading_zeros();
    let num = u128::from(n << lz) << 64;
    let d = u128::from(POW10_U64[k]);
    let (q, r) = (num / d, num % d);
    // q >= 2^63: at least 64 bits, 53 of which are kept.
    let shift = 128 - q.leading_zeros() - 53;
    let mut m = (q >> shift) as u64;
    let rest = q & ((1u128 << shift) - 1);
    let half = 1u128 << (shift - 1);
    if rest > half || (rest == half && (r != 0 || m & 1 == 1)) {
        m += 1;
    }
    // n / 10^k = (q + r / d) * 2^-(64 + lz); m at most 2^53 and the power of two normal
    // (the value is at least 10^-19), so the product is exact.
    let e = i64::from(shift) - 64 - i64::from(lz);
    m as f64 * f64::from_bits(((1023 + e) as u64) << 52)
}

/// The number at `pos` when it is written `digits[.digits]` (no sign, no exponent, no
/// leading zero), as `JSON.parse` reads it, and the position after it; `None` for anything
/// else, and for a number too large to be finite. Inlined into the layout reader: a call
/// costs as much as reading a short number.
#[inline(always)]
fn plain_number(b: &[u8], pos: usize) -> Option<(f64, usize)> {
    const MAX_EXACT: u64 = 1 << 53;
    let digit = |p: usize| b.get(p).is_some_and(u8::is_ascii_digit);
    let (n, mut p) = match b.get(pos)? {
        b'0' => (0, pos + 1),
        b'1'..=b'9' => digits(b, pos, 0),
        _ => return None,
    };
    // A leading zero before more digits is not JSON.
    if digit(p) {
        return None;
    }
    let int_digits = p - pos;
    let (n, after_point) = if b.get(p) == Some(&b'.') {
        let (n, end) = digits(b, p + 1, n);
        let after_point = end - (p + 1);
        if after_point == 0 {
            return None;
        }
        p = end;
        (n, after_point)
    } else {
        (n, 0)
    };
    if matches!(b.get(p), Some(b'e' | b'E')) {
        return None;
    }
    // At most 19 digits cannot have wrapped an u64.
    if int_digits + after_point <= 19 {
        if n <= MAX_EXACT {
            // Both exact: one correctly rounded division.
            return Some((n as f64 / EXACT_POW10[after_point], p));
        }
        return Some((decimal(n, after_point), p));
    }
    // SAFETY: `pos..p` holds ASCII digits and at most one point.
    let text = unsafe { std::str::from_utf8_unchecked(&b[pos..p]) };
    let v: f64 = text.parse().ok()?;
    v.is_finite().then_some((v, p))
}

/// Where the value after `key` starts, when `key` is at `p`.
#[inline(always)]
fn key_at<const N: usize>(raw: &[u8], p: usize, key: &[u8; N]) -> Option<usize> {
    let at: &[u8; N] = raw.get(p..p + N)?.try_into().ok()?;
    (at == key).then_some(p + N)
}

impl Totals {
    /// [`Totals::of_raw`] of a usage object written exactly as Pi writes it:
    /// `{"input":…,"output":…,"cacheRead":…,"cacheWrite":…,"totalTokens":…,"cost":{"input":…,
    /// "output":…,"cacheRead":…,"cacheWrite":…,"total":…}}` with plain numbers. Each key is
    /// there once, so each value is read where it must be. `None` for any other text.
    fn of_pi_layout(raw: &[u8]) -> Option<Totals> {
        let mut p = 0;
        // The value after `key`, and `p` past it.
        macro_rules! field {
            ($key:literal) => {{
                let (v, end) = plain_number(raw, key_at(raw, p, $key)?)?;
                p = end;
                v
            }};
        }
        let input = field!(b"{\"input\":");
        let output = field!(b",\"output\":");
        let cache_read = field!(b",\"cacheRead\":");
        let cache_write = field!(b",\"cacheWrite\":");
        let total_tokens = field!(b",\"totalTokens\":");
        let c_input = field!(b",\"cost\":{\"input\":");
        let c_output = field!(b",\"output\":");
        let c_cache_read = field!(b",\"cacheRead\":");
        let c_cache_write = field!(b",\"cacheWrite\":");
        let c_total = field!(b",\"total\":");
        (key_at(raw, p, b"}}")? == raw.len()).then_some(Totals {
            input,
            output,
            cache_read,
            cache_write,
            total_tokens,
            cost: Cost {
                input: c_input,
                output: c_output,
                cache_read: c_cache_read,
                cache_write: c_cache_write,
                total: c_total,
            },
        })
    }

    /// The amounts of one `usage` object; fields that are missing or not numbers count as 0.
    pub fn of(usage: &Value) -> Totals {
        let mut t = Totals::default();
        t.add(usage);
        t
    }

    /// [`Totals::of`] a recorded `usage` value, which must be an object to count.
    pub fn of_object(usage: &Value) -> Option<Totals> {
        usage.is_object().then(|| Totals::of(usage))
    }

    /// [`Totals::of`] the usage object whose JSON text is `raw`, read with the scanner
    /// instead of building a value. `None` when the scanner declines it (not an object, keys
    /// written with escapes, numbers JavaScript reads as infinite or as -0): read the value.
    pub fn of_raw(raw: &[u8]) -> Option<Totals> {
        if let Some(t) = Totals::of_pi_layout(raw) {
            return Some(t);
        }
        use crate::session::scan::{self, Bail, Scan};
        use lenient_count as lenient_number;
        fn cost_at(b: &[u8], p: usize) -> Scan<(Cost, usize)> {
            let mut c = Cost::default();
            let end = scan::object(b, p, |key, b, p| {
                if key.escaped {
                    return Err(Bail);
                }
                let slot = match key.bytes {
                    b"input" => &mut c.input,
                    b"output" => &mut c.output,
                    b"cacheRead" => &mut c.cache_read,
                    b"cacheWrite" => &mut c.cache_write,
                    b"total" => &mut c.total,
                    _ => return scan::skip(b, p),
                };
                let (v, end) = lenient_number(b, p)?;
                *slot = v.unwrap_or(0.0);
                Ok(end)
            })?;
            Ok((c, end))
        }
        let read = || -> Scan<Totals> {
            let mut t = Totals::default();
            let end = scan::object(raw, 0, |key, b, p| {
                if key.escaped {
                    return Err(Bail);
                }
                let slot = match key.bytes {
                    b"input" => &mut t.input,
                    b"output" => &mut t.output,
                    b"cacheRead" => &mut t.cache_read,
                    b"cacheWrite" => &mut t.cache_write,
                    b"totalTokens" => &mut t.total_tokens,
                    // The last `cost` counts; one that is not an object counts as none.
                    b"cost" if b.get(p) == Some(&b'{') => {
                        let (c, end) = cost_at(b, p)?;
                        t.cost = c;
                        return Ok(end);
                    }
                    b"cost" => {
                        t.cost = Cost::default();
                        return scan::skip(b, p);
                    }
                    _ => return scan::skip(b, p),
                };
                let (v, end) = lenient_number(b, p)?;
                *slot = v.unwrap_or(0.0);
                Ok(end)
            })?;
            if !scan::at_end(raw, end) {
                return Err(Bail);
            }
            Ok(t)
        };
        read().ok()
    }

    /// The token amounts, in the order of [`TOKEN_COLUMNS`].
    pub fn tokens(&self) -> [f64; 5] {
        [
            self.input,
            self.output,
            self.cache_read,
            self.cache_write,
            self.total_tokens,
        ]
    }

    /// The tokens used, as Pi's `calculateContextTokens` counts them: `totalTokens`, or the
    /// sum of the parts when that is 0.
    pub fn context_tokens(&self) -> f64 {
        if self.total_tokens != 0.0 {
            self.total_tokens
        } else {
            self.input + self.output + self.cache_read + self.cache_write
        }
    }

    /// Adds the amounts of one call, field by field (the same sums as adding its `usage`).
    pub fn add_totals(&mut self, t: &Totals) {
        self.input += t.input;
        self.output += t.output;
        self.cache_read += t.cache_read;
        self.cache_write += t.cache_write;
        self.total_tokens += t.total_tokens;
        self.cost.input += t.cost.input;
        self.cost.output += t.cost.output;
        self.cost.cache_read += t.cost.cache_read;
        self.cost.cache_write += t.cost.cache_write;
        self.cost.total += t.cost.total;
    }

    /// Adds one `usage` object; fields that are missing or not numbers count as 0.
    pub fn add(&mut self, usage: &Value) {
        self.input += num(usage, "input");
        self.output += num(usage, "output");
        self.cache_read += num(usage, "cacheRead");
        self.cache_write += num(usage, "cacheWrite");
        self.total_tokens += num(usage, "totalTokens");
        if let Some(c) = usage.get("cost") {
            self.cost.input += num(c, "input");
            self.cost.output += num(c, "output");
            self.cost.cache_read += num(c, "cacheRead");
            self.cost.cache_write += num(c, "cacheWrite");
            self.cost.total += num(c, "total");
        }
    }
}

/// The totals of one (provider, model). In JSON: `{provider, model, …totals}`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ModelTotals {
    /// `null` when the entries name none.
    pub provider: Option<String>,
    pub model: String,
    #[serde(flatten)]
    pub totals: Totals,
}

/// The totals of each [`Source`]. In JSON: `{assistant, usage, compaction, branchSummary}`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BySource {
    pub assistant: Totals,
    pub usage: Totals,
    pub compaction: Totals,
    pub branch_summary: Totals,
}

impl BySource {
    pub fn get(&self, source: Source) -> &Totals {
        match source {
            Source::Assistant => &self.assistant,
            Source::Usage => &self.usage,
            Source::Compaction => &self.compaction,
            Source::BranchSummary => &self.branch_summary,
        }
    }

    pub fn get_mut(&mut self, source: Source) -> &mut Totals {
        match source {
            Source::Assistant => &mut self.assistant,
            Source::Usage => &mut self.usage,
            Source::Compaction => &mut self.compaction,
            Source::BranchSummary => &mut self.branch_summary,
        }
    }
}

/// Totals overall, by (provider, model) and by source: `stats --json`'s record
/// `{total, byModel, bySource}`.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Stats {
    pub total: Totals,
    /// After [`Stats::sort`]: most expensive first, then most tokens; ties keep the order
    /// of first use.
    pub by_model: Vec<ModelTotals>,
    pub by_source: BySource,
}

impl Stats {
    /// Counts one call given by its amounts ([`Totals::of`] its usage).
    pub fn add_totals(&mut self, source: Source, t: &Totals, provider: Option<String>, model: String) {
        self.total.add_totals(t);
        self.by_source.get_mut(source).add_totals(t);
        match self
            .by_model
            .iter_mut()
            .find(|m| m.provider == provider && m.model == model)
        {
            Some(m) => m.totals.add_totals(t),
            None => {
                let mut totals = Totals::default();
                totals.add_totals(t);
                self.by_model.push(ModelTotals {
                    provider,
                    model,
                    totals,
                });
            }
        }
    }

    /// Orders `by_model`: most expensive first, then most tokens; ties keep their order.
    pub fn sort(&mut self) {
        self.by_model.sort_by(|a, b| {
            b.totals
                .cost
                .total
                .total_cmp(&a.totals.cost.total)
                .then(b.totals.total_tokens.total_cmp(&a.totals.total_tokens))
        });
    }
}

/// How many entries ahead of the one being counted its usage is asked for: entries without
/// a call take no time at all.
const PREFETCH_AHEAD: usize = 16;

/// The stats of `entries` (in file order), sorted.
pub fn collect(session: &Session, entries: impl IntoIterator<Item = EntryIdx>) -> Stats {
    let entries: Vec<EntryIdx> = entries.into_iter().collect();
    let mut sums = Sums::default();
    // Calls are read on every core, a chunk at a time, and added in file order (floating-point
    // sums depend on the order) as each chunk comes: only a few chunks are held at once, and
    // the threads are started once, not once per batch.
    const CHUNK: usize = 512;
    let chunks: Vec<&[EntryIdx]> = entries.chunks(CHUNK).collect();
    let added = crate::parallel::map_in_order(
        chunks.len(),
        |k, spare: Option<(usize, Vec<Counted<'_>>)>| {
            // Room for every entry being a call: the calls are not copied to grow it.
            let mut counted = spare.map(|(_, v)| v).unwrap_or_default();
            counted.clear();
            counted.reserve(chunks[k].len());
            let chunk = chunks[k];
            counted.extend(chunk.iter().enumerate().filter_map(|(j, &idx)| {
                // The lines are kilobytes apart: each call's usage is asked for a few
                // entries before it is read (see `Session::prefetch_usage`).
                if let Some(&ahead) = chunk.get(j + PREFETCH_AHEAD) {
                    session.prefetch_usage(ahead);
                }
                counted_call(session, idx)
            }));
            (k, counted)
        },
        |(k, mut counted)| {
            for c in counted.drain(..) {
                sums.add(c.source, &c.totals, c.provider, c.model);
            }
            if let (Some(&first), Some(&last)) = (chunks[k].first(), chunks[k].last()) {
                session.release_entries(first..last + 1);
            }
            Ok::<_, std::convert::Infallible>(Some((k, counted)))
        },
    );
    let Ok(()) = added;
    sums.stats()
}

/// [`Stats`] being counted, with the names of the models borrowed from the session: a call
/// of a model already seen allocates nothing.
#[derive(Default)]
struct Sums<'a> {
    total: Totals,
    by_source: BySource,
    /// (provider, model) and their totals, in order of first use.
    by_model: Vec<(Option<Cow<'a, str>>, Cow<'a, str>, Totals)>,
    /// The index in `by_model` of the last call's model: calls come in runs of one model.
    last: usize,
}

impl<'a> Sums<'a> {
    fn add(&mut self, source: Source, t: &Totals, provider: Option<Cow<'a, str>>, model: Cow<'a, str>) {
        self.total.add_totals(t);
        self.by_source.get_mut(source).add_totals(t);
        let same = |(p, m, _): &(Option<Cow<'a, str>>, Cow<'a, str>, Totals)| *p == provider && *m == model;
        let at = match self.by_model.get(self.last) {
            Some(g) if same(g) => Some(self.last),
            _ => self.by_model.iter().position(same),
        };
        let at = at.unwrap_or_else(|| {
            self.by_model.push((provider, model, Totals::default()));
            self.by_model.len() - 1
        });
        self.by_model[at].2.add_totals(t);
        self.last = at;
    }

    fn stats(self) -> Stats {
        let mut stats = Stats {
            total: self.total,
            by_model: self
                .by_model
                .into_iter()
                .map(|(provider, model, totals)| ModelTotals {
                    provider: provider.map(Cow::into_owned),
                    model: model.into_owned(),
                    totals,
                })
                .collect(),
            by_source: self.by_source,
        };
        stats.sort();
        stats
    }
}

/// The stats of a scope, and where a parent cycle stopped the walk (for a warning).
pub fn session_stats(session: &Session, scope: Scope) -> (Stats, Option<EntryIdx>) {
    let (entries, cycle_at) = entries_of(session, scope);
    (collect(session, entries), cycle_at)
}

/// The usage fields of a line by the fast scanner, which declines unusual lines.
mod fast {
    use super::{UsageLine, UsageMessage};
    use crate::session::jsparse;
    use crate::session::scan::{self, Bail, Scan};
    use serde_json::Value;

    /// How a field's value is read: the value, and the position after it.
    type ReadValue = fn(&[u8], usize) -> Scan<(Option<Value>, usize)>;

    /// A string stays a string; every other value is `null` (read as absent either way).
    fn string_or_null(b: &[u8], p: usize) -> Scan<(Option<Value>, usize)> {
        let (s, end) = scan::lenient_str(b, p)?;
        Ok((Some(s.map_or(Value::Null, |s| Value::String(s.into_owned()))), end))
    }

    /// The value exactly as JSON.parse holds it: usage objects are small.
    fn exact(b: &[u8], p: usize) -> Scan<(Option<Value>, usize)> {
        let (raw, end) = scan::raw_value(b, p)?;
        Ok((Some(jsparse::parse(raw).map_err(|_| Bail)?), end))
    }

    pub fn usage_line(line: &[u8]) -> Scan<UsageLine> {
        let mut u = UsageLine {
            provider: None,
            model: None,
            usage: None,
            message: None,
        };
        let end = scan::object(line, 0, |key, b, p| {
            if key.escaped {
                return Err(Bail);
            }
            let (slot, read): (&mut Option<Value>, ReadValue) = match key.bytes {
                b"provider" => (&mut u.provider, string_or_null),
                b"model" => (&mut u.model, string_or_null),
                b"usage" => (&mut u.usage, exact),
                b"message" => {
                    if b.get(p) != Some(&b'{') {
                        u.message = None;
                        return scan::skip(b, p);
                    }
                    let (m, end) = message(b, p)?;
                    u.message = Some(m);
                    return Ok(end);
                }
                _ => return scan::skip(b, p),
            };
            let (v, end) = read(b, p)?;
            *slot = v;
            Ok(end)
        })?;
        if !scan::at_end(line, end) {
            return Err(Bail);
        }
        Ok(u)
    }

    fn message(b: &[u8], pos: usize) -> Scan<(UsageMessage, usize)> {
        let mut m = UsageMessage {
            provider: None,
            model: None,
            response_model: None,
            usage: None,
        };
        let end = scan::object(b, pos, |key, b, p| {
            if key.escaped {
                return Err(Bail);
            }
            let (slot, read): (&mut Option<Value>, ReadValue) = match key.bytes {
                b"provider" => (&mut m.provider, string_or_null),
                b"model" => (&mut m.model, string_or_null),
                b"responseModel" => (&mut m.response_model, string_or_null),
                b"usage" => (&mut m.usage, exact),
                _ => return scan::skip(b, p),
            };
            let (v, end) = read(b, p)?;
            *slot = v;
            Ok(end)
        })?;
        Ok((m, end))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn session(lines: &[Value]) -> Session {
        let text: String = lines.iter().map(|l| format!("{l}\n")).collect();
        Session::from_bytes("t.jsonl".into(), text.into_bytes()).unwrap()
    }

    fn header() -> Value {
        json!({"type":"session","version":3,"id":"s","timestamp":"2025-01-01T00:00:00.000Z","cwd":"/"})
    }

    fn usage(input: f64, total: f64, cost: f64) -> Value {
        json!({"input": input, "output": 1, "cacheRead": 0, "cacheWrite": 0, "totalTokens": total,
               "cost": {"input": cost, "output": 0, "cacheRead": 0, "cacheWrite": 0, "total": cost}})
    }

    fn sample() -> Session {
        session(&[
            header(),
            json!({"type":"message","id":"a","parentId":null,"timestamp":"2025-01-01T00:00:01.000Z",
                   "message":{"role":"user","content":"hi"}}),
            json!({"type":"message","id":"b","parentId":"a","timestamp":"2025-01-01T00:00:02.000Z",
                   "message":{"role":"assistant","content":[],"provider":"anthropic","model":"m1",
                              "usage": usage(10.0, 11.0, 0.1)}}),
            json!({"type":"message","id":"c","parentId":"a","timestamp":"2025-01-01T00:00:03.000Z",
                   "message":{"role":"assistant","content":[],"provider":"openai","model":"m2",
                              "responseModel":"m2-resolved","usage": usage(20.0, 21.0, 0.2)}}),
            json!({"type":"compaction","id":"d","parentId":"c","timestamp":"2025-01-01T00:00:04.000Z",
                   "summary":"s","firstKeptEntryId":"c","tokensBefore":5,"usage": usage(5.0, 6.0, 0.0)}),
            json!({"type":"usage","id":"e","parentId":"d","timestamp":"2025-01-01T00:00:05.000Z",
                   "provider":"anthropic","model":"m1","usage": usage(1.0, 2.0, 0.1)}),
        ])
    }

    mod raw_totals {
        use super::super::*;
        use proptest::prelude::*;

        fn number() -> impl Strategy<Value = String> {
            prop_oneof![
                prop::sample::select(vec![
                    "0",
                    "-0",
                    "1",
                    "0.1",
                    "0.30000000000000004",
                    "1e400",
                    "-1e400",
                    "5e-324",
                    "1e308",
                    "9007199254740993",
                    "999999999999999",
                    "1000000000000000",
                    "123456789012345.5",
                    "12345678901234567890",
                    "7e2",
                    "2.5E3",
                    "-7",
                    "null",
                    "true",
                    "\"5\"",
                    "[]",
                    "{}",
                ])
                .prop_map(str::to_owned),
                (0u64..1_000_000).prop_map(|n| n.to_string()),
                (0.0f64..10.0).prop_map(|f| f.to_string()),
            ]
        }

        fn object(keys: &'static [&'static str], inner: BoxedStrategy<String>) -> impl Strategy<Value = String> {
            prop::collection::vec((prop::sample::select(keys), inner), 0..8).prop_map(|fields| {
                let body: Vec<String> = fields.iter().map(|(k, v)| format!("\"{k}\" : {v}")).collect();
                format!("{{{}}}", body.join(","))
            })
        }

        const COST: &[&str] = &[
            "input",
            "output",
            "cacheRead",
            "cacheWrite",
            "total",
            "x",
            "\\u0069nput",
        ];
        const USAGE: &[&str] = &[
            "input",
            "output",
            "cacheRead",
            "cacheWrite",
            "totalTokens",
            "cost",
            "cost",
            "y",
            "\\u0069nput",
        ];

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(4000))]
            /// The fast reader agrees with the general one, on numbers and on other text.
            #[test]
            fn counts_read_as_numbers_are(
                text in prop_oneof![
                    number(),
                    "[-0-9.eE+]{1,22}[,} x]?",
                    "[0-9]{1,12}\\.[0-9]{1,24}[,}]?",
                    // Decimals of up to 19 digits with the point anywhere, like the costs Pi writes.
                    (0u64..(1 << 60), 0usize..26).prop_map(|(n, point)| {
                        let digits = format!("{n:0>27}");
                        let (int, frac) = digits.split_at(27 - point);
                        let int = int.trim_start_matches('0');
                        let int = if int.is_empty() { "0" } else { int };
                        if frac.is_empty() { int.to_owned() } else { format!("{int}.{frac}") }
                    }),
                    (0.0f64..1.0).prop_map(|f| f.to_string()),
                    (0u64..u64::MAX).prop_map(|n| n.to_string()),
                    (0u64..10_000_000_000_000_000).prop_map(|n| format!("{n},")),
                ]
            ) {
                let b = text.as_bytes();
                let fast = super::super::lenient_count(b, 0).ok();
                let general = crate::session::scan::lenient_number(b, 0).ok();
                prop_assert_eq!(
                    fast.map(|(v, end)| (v.map(f64::to_bits), end)),
                    general.map(|(v, end)| (v.map(f64::to_bits), end))
                );
            }
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(2000))]
            /// Whenever the scanner reads a usage object, it reads what the value gives.
            #[test]
            fn the_scanner_reads_the_totals_of_the_value(
                usage in object(USAGE, prop_oneof![
                    3 => number().boxed(),
                    1 => object(COST, number().boxed()).boxed(),
                ].boxed())
            ) {
                let value = crate::session::jsparse::parse(usage.as_bytes()).unwrap();
                let of_value = Totals::of_object(&value).unwrap();
                if let Some(of_raw) = Totals::of_raw(usage.as_bytes()) {
                    prop_assert_eq!(format!("{of_raw:?}"), format!("{of_value:?}"));
                }
            }
        }

        /// A usage object in Pi's layout with these values, each written as given.
        fn pi_layout(v: &[String]) -> String {
            format!(
                r#"{{"input":{},"output":{},"cacheRead":{},"cacheWrite":{},"totalTokens":{},"cost":{{"input":{},"output":{},"cacheRead":{},"cacheWrite":{},"total":{}}}}}"#,
                v[0], v[1], v[2], v[3], v[4], v[5], v[6], v[7], v[8], v[9]
            )
        }

        /// Decimals as Pi writes costs and tokens: up to 25 digits, the point anywhere.
        fn decimal_text() -> impl Strategy<Value = String> {
            ("[0-9]{1,25}", 0usize..26).prop_map(|(digits, point)| {
                let point = point.min(digits.len());
                let (int, frac) = digits.split_at(digits.len() - point);
                let int = int.trim_start_matches('0');
                let int = if int.is_empty() { "0" } else { int };
                if frac.is_empty() {
                    int.to_owned()
                } else {
                    format!("{int}.{frac}")
                }
            })
        }

        proptest! {
            #![proptest_config(ProptestConfig::with_cases(4000))]
            /// The rounded quotient is the nearest double, as the float parser finds it.
            #[test]
            fn a_decimal_is_correctly_rounded(n in prop_oneof![
                any::<u64>(),
                (1u64 << 53)..(1u64 << 54),
                // Halfway cases: an odd multiple of five near the limits.
                (0u64..1_000_000).prop_map(|i| (1u64 << 53) + 2 * i + 1),
            ], k in 0usize..20) {
                let expected: f64 = format!("{n}e-{k}").parse().unwrap();
                prop_assert_eq!(super::super::decimal(n, k).to_bits(), expected.to_bits());
            }

            /// Digits read eight at a time are the digits read one at a time.
            #[test]
            fn digits_by_eight_are_digits(text in "[0-9]{0,30}[^0-9]{0,3}[0-9]{0,3}", from in 0usize..4, n in any::<u64>()) {
                let b = text.as_bytes();
                let from = from.min(b.len());
                let mut one = (n, from);
                while let Some(&d @ b'0'..=b'9') = b.get(one.1) {
                    one = (one.0.wrapping_mul(10).wrapping_add(u64::from(d - b'0')), one.1 + 1);
                }
                prop_assert_eq!(super::super::digits(b, from, n), one);
            }

            /// A plain number reads as the general reader reads it.
            #[test]
            fn plain_numbers_read_as_numbers_do(
                text in prop_oneof![
                    decimal_text().prop_map(|d| format!("{d},")),
                    decimal_text().prop_map(|d| format!("{d}}}")),
                    decimal_text(),
                    number(),
                    "[-0-9.eE+]{1,30}[,} x]?",
                    "[0-9]{300,320}(\\.[0-9])?",
                ]
            ) {
                let b = text.as_bytes();
                if let Some((v, end)) = super::super::plain_number(b, 0) {
                    let general = crate::session::scan::lenient_number(b, 0);
                    prop_assert_eq!(general.ok().map(|(v, end)| (v.map(f64::to_bits), end)), Some((Some(v.to_bits()), end)));
                } else {
                    // Declined: not in the plain form, or too large.
                    let plain = regex_lite_plain(text.trim_end_matches([',', '}']));
                    prop_assert!(!plain || crate::session::scan::lenient_number(b, 0).is_err(), "{}", text);
                }
            }

            /// Pi's layout reads as the value does, whatever its numbers; and so does the
            /// layout changed by a byte.
            #[test]
            fn pi_layout_reads_as_the_value(
                values in prop::collection::vec(prop_oneof![3 => decimal_text(), 1 => number()], 10),
                cut in any::<prop::sample::Index>(),
                with in prop::sample::select(vec!["", " ", "\"", "1", "}", "x", ",\"input\":5"]),
                change in any::<bool>(),
            ) {
                let mut usage = pi_layout(&values);
                if change {
                    let mut at = cut.index(usage.len() + 1);
                    while !usage.is_char_boundary(at) {
                        at -= 1;
                    }
                    usage.insert_str(at, with);
                }
                let of_value = crate::session::jsparse::parse(usage.as_bytes()).ok().and_then(|v| Totals::of_object(&v));
                let of_layout = Totals::of_pi_layout(usage.as_bytes());
                if let Some(t) = of_layout {
                    prop_assert_eq!(Some(format!("{t:?}")), of_value.map(|t| format!("{t:?}")));
                }
                if let Some(of_raw) = Totals::of_raw(usage.as_bytes()) {
                    prop_assert_eq!(Some(format!("{of_raw:?}")), of_value.map(|t| format!("{t:?}")));
                }
                if !change && values.iter().all(|v| regex_lite_plain(v) && v.len() < 300) {
                    prop_assert!(of_layout.is_some(), "{}", usage);
                }
            }
        }

        /// Whether `text` is written `digits[.digits]` without a leading zero.
        fn regex_lite_plain(text: &str) -> bool {
            let (int, frac) = text.split_once('.').unwrap_or((text, "1"));
            let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
            digits(int) && digits(frac) && (int == "0" || !int.starts_with('0'))
        }

        #[test]
        fn what_the_scanner_declines() {
            for raw in [
                "[1]",
                "5",
                r#"{"input":1e400}"#,
                r#"{"\u0069nput":1}"#,
                r#"{"input":-0}"#,
                r#"{"input":1} x"#,
            ] {
                assert_eq!(Totals::of_raw(raw.as_bytes()), None, "{raw}");
            }
            let t = Totals::of_raw(br#"{"input":2,"cost":{"total":0.5},"input":3,"cost":7,"output":"9"}"#).unwrap();
            assert_eq!((t.input, t.output, t.cost.total), (3.0, 0.0, 0.0));
        }
    }

    #[test]
    fn fast_reader_agrees_with_the_exact_one() {
        for line in [
            r#"{"type":"message","message":{"role":"assistant","provider":"p","model":"m","usage":{"input":1,"cost":{"total":0.1}}}}"#,
            r#"{"type":"usage","provider":5,"model":"m","usage":{"input":1,"input":2},"model":null}"#,
            r#"{"message":"x","usage":[1],"provider":"a","provider":"b"}"#,
            r#"{"message":{"responseModel":"r","model":"m","usage":{"totalTokens":1e400}},"message":{"model":"n"}}"#,
            r#" { "type" : "compaction" , "usage" : { "input" : 0.30000000000000004 } } "#,
        ] {
            // What the call reader uses of a line: strings, and usage values as they are.
            let view = |u: UsageLine| {
                let m = u
                    .message
                    .map(|m| (string(m.provider), string(m.model), string(m.response_model), m.usage));
                format!("{:?}", (string(u.provider), string(u.model), u.usage, m))
            };
            let exact = UsageLine::from_value(&crate::session::jsparse::parse(line.as_bytes()).unwrap());
            let fast = fast::usage_line(line.as_bytes()).expect(line);
            assert_eq!(view(fast), view(exact), "{line}");
        }
        assert!(fast::usage_line(br#"{"usage":{"a":1},}"#).is_err());
    }

    #[test]
    fn every_paid_call_with_its_source_model_and_time() {
        let s = sample();
        let calls: Vec<Call> = calls(&s, 0..s.entries.len()).collect();
        let seen: Vec<_> = calls
            .iter()
            .map(|c| {
                (
                    c.source,
                    c.provider.as_deref(),
                    c.model.as_str(),
                    c.timestamp.as_deref(),
                )
            })
            .collect();
        assert_eq!(
            seen,
            [
                (
                    Source::Assistant,
                    Some("anthropic"),
                    "m1",
                    Some("2025-01-01T00:00:02.000Z")
                ),
                (
                    Source::Assistant,
                    Some("openai"),
                    "m2-resolved",
                    Some("2025-01-01T00:00:03.000Z")
                ),
                (Source::Compaction, None, SUMMARIES, Some("2025-01-01T00:00:04.000Z")),
                (Source::Usage, Some("anthropic"), "m1", Some("2025-01-01T00:00:05.000Z")),
            ]
        );
        assert_eq!(calls[0].totals.input, 10.0);
    }

    #[test]
    fn sums_in_file_order_as_javascript_does() {
        let s = sample();
        let (stats, cycle) = session_stats(&s, Scope::File);
        assert_eq!(cycle, None);
        assert_eq!(stats.total.input, 36.0);
        // 0.1 + 0.2 + 0.0 + 0.1, added in file order.
        assert_eq!(stats.total.cost.total, 0.1 + 0.2 + 0.0 + 0.1);
        assert_eq!(stats.by_source.get(Source::Compaction).input, 5.0);
        let models: Vec<_> = stats.by_model.iter().map(|m| m.model.as_str()).collect();
        // Equal cost (0.1 + 0.1 against 0.2): more tokens first.
        assert_eq!(models, ["m2-resolved", "m1", SUMMARIES]);
    }

    #[test]
    fn a_branch_counts_only_its_entries() {
        let s = sample();
        let b = s.entries.iter().position(|e| e.line == 3).unwrap();
        let (stats, _) = session_stats(&s, Scope::Branch(Some(b)));
        assert_eq!(stats.total.input, 10.0);
        assert_eq!(session_stats(&s, Scope::Branch(None)).0, Stats::default());
    }

    #[test]
    fn the_json_record() {
        let s = session(&[
            header(),
            json!({"type":"message","id":"b","parentId":null,"timestamp":"t",
                   "message":{"role":"assistant","content":[],"usage": usage(3.0, 4.0, 0.25)}}),
        ]);
        let stats = collect(&s, 0..s.entries.len());
        let v = serde_json::to_value(&stats).unwrap();
        let t = json!({"input":3,"output":1,"cacheRead":0,"cacheWrite":0,"totalTokens":4,
                       "cost":{"input":0.25,"output":0,"cacheRead":0,"cacheWrite":0,"total":0.25}});
        let zero = json!({"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,
                          "cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}});
        let mut m = json!({"provider": null, "model": "?"});
        m.as_object_mut().unwrap().extend(t.as_object().unwrap().clone());
        assert_eq!(
            v,
            json!({"total": t, "byModel": [m],
                   "bySource": {"assistant": t, "usage": zero, "compaction": zero, "branchSummary": zero}})
        );
        let keys: Vec<_> = v["byModel"][0].as_object().unwrap().keys().cloned().collect();
        assert_eq!(keys[..3], ["provider", "model", "input"]);
    }
}
