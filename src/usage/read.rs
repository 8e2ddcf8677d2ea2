//! How a call is read from its entry, written once: which fields name the provider and the
//! model, which hold the amounts, and what counts when a field is missing, repeated or of
//! another type. The rule is written against [`Json`], which two backends provide: the
//! line's bytes through the scanner ([`crate::json::scan`]), and the parsed value for the
//! lines the scanner declines (escaped keys, numbers it does not hold exactly…).
//!
//! JavaScript's reading holds throughout: of a repeated key the last counts, a number is a
//! double, and a value of another type counts as absent (0 for an amount).

use super::{COST, COST_COLUMNS, SUMMARIES, Source, TOKEN_COLUMNS, Totals, UNKNOWN_MODEL};
use crate::json::jsparse;
use crate::json::scan::{self, Bail, Scan};
use crate::llm::Cost;
use serde_json::Value;
use std::borrow::Cow;

/// A JSON value as the rule reads it, once, from the front. `End` is what a read leaves:
/// the position after the value in the bytes, nothing in a parsed value.
pub(super) trait Json<'a>: Copy {
    type End;
    /// Hands `member` each key and value of an object, in order, repeated keys included;
    /// `false` (and the value skipped) when it is not an object.
    fn members(self, member: impl FnMut(&[u8], Self) -> Scan<Self::End>) -> Scan<(bool, Self::End)>;
    /// The value when it is a number.
    fn number(self) -> Scan<(Option<f64>, Self::End)>;
    /// The value when it is a string.
    fn string(self) -> Scan<(Option<Cow<'a, str>>, Self::End)>;
    fn skip(self) -> Scan<Self::End>;
}

/// A value in a line's bytes: where it starts (after any whitespace).
#[derive(Clone, Copy)]
pub(super) struct Bytes<'a> {
    b: &'a [u8],
    pos: usize,
}

impl<'a> Bytes<'a> {
    /// The value `b` holds, which must be all of `b` (whitespace aside) to be read.
    pub(super) fn whole(b: &'a [u8]) -> Bytes<'a> {
        Bytes { b, pos: scan::ws(b, 0) }
    }

    pub(super) fn at_end(self, end: usize) -> Scan<()> {
        if scan::at_end(self.b, end) { Ok(()) } else { Err(Bail) }
    }
}

impl<'a> Json<'a> for Bytes<'a> {
    type End = usize;

    #[inline]
    fn members(self, mut member: impl FnMut(&[u8], Self) -> Scan<usize>) -> Scan<(bool, usize)> {
        if self.b.get(self.pos) != Some(&b'{') {
            return Ok((false, scan::skip(self.b, self.pos)?));
        }
        let end = scan::object(self.b, self.pos, |key, b, pos| {
            // Keys are compared as written: one with an escape is left to the value.
            if key.escaped {
                return Err(Bail);
            }
            member(key.bytes, Bytes { b, pos })
        })?;
        Ok((true, end))
    }

    #[inline]
    fn number(self) -> Scan<(Option<f64>, usize)> {
        scan::lenient_number(self.b, self.pos)
    }

    #[inline]
    fn string(self) -> Scan<(Option<Cow<'a, str>>, usize)> {
        scan::lenient_str(self.b, self.pos)
    }

    #[inline]
    fn skip(self) -> Scan<usize> {
        scan::skip(self.b, self.pos)
    }
}

impl<'a> Json<'a> for &'a Value {
    type End = ();

    fn members(self, mut member: impl FnMut(&[u8], Self) -> Scan<()>) -> Scan<(bool, ())> {
        let Value::Object(map) = self else {
            return Ok((false, ()));
        };
        for (key, value) in map {
            member(key.as_bytes(), value)?;
        }
        Ok((true, ()))
    }

    fn number(self) -> Scan<(Option<f64>, ())> {
        Ok((self.as_f64(), ()))
    }

    fn string(self) -> Scan<(Option<Cow<'a, str>>, ())> {
        Ok((self.as_str().map(Cow::Borrowed), ()))
    }

    fn skip(self) -> Scan<()> {
        Ok(())
    }
}

/// Which of `columns` `key` names.
#[inline]
fn column(columns: &[&str; 5], key: &[u8]) -> Option<usize> {
    columns.iter().position(|c| c.as_bytes() == key)
}

/// Reads an amount into `slot`: a number, else 0.
#[inline]
fn amount<'a, J: Json<'a>>(slot: &mut f64, value: J) -> Scan<J::End> {
    let (n, end) = value.number()?;
    *slot = n.unwrap_or(0.0);
    Ok(end)
}

/// The amounts of a `usage` object; `None` when the value is not an object. A `cost` that
/// is not an object counts as none.
pub(super) fn totals<'a, J: Json<'a>>(usage: J) -> Scan<(Option<Totals>, J::End)> {
    let mut t = Totals::default();
    let (is_object, end) = usage.members(|key, value| {
        if let Some(i) = column(&TOKEN_COLUMNS, key) {
            let slot = match i {
                0 => &mut t.input,
                1 => &mut t.output,
                2 => &mut t.cache_read,
                3 => &mut t.cache_write,
                _ => &mut t.total_tokens,
            };
            return amount(slot, value);
        }
        if key != COST.as_bytes() {
            return value.skip();
        }
        let mut c = Cost::default();
        let (_, end) = value.members(|key, value| {
            let slot = match column(&COST_COLUMNS, key) {
                Some(0) => &mut c.input,
                Some(1) => &mut c.output,
                Some(2) => &mut c.cache_read,
                Some(3) => &mut c.cache_write,
                Some(_) => &mut c.total,
                None => return value.skip(),
            };
            amount(slot, value)
        })?;
        t.cost = c;
        Ok(end)
    })?;
    // Older Pi versions wrote no `totalTokens`: the total is then the sum of the parts, as
    // Pi's `calculateContextTokens` counts it.
    if t.total_tokens == 0.0 {
        t.total_tokens = t.input + t.output + t.cache_read + t.cache_write;
    }
    Ok((is_object.then_some(t), end))
}

/// The provider, model and amounts of a call.
pub(super) type Read<'a> = (Option<Cow<'a, str>>, Cow<'a, str>, Totals);

/// The fields of an entry (or of its message) that name and measure a call.
#[derive(Default)]
struct Fields<'a> {
    provider: Option<Cow<'a, str>>,
    model: Option<Cow<'a, str>>,
    response_model: Option<Cow<'a, str>>,
    usage: Option<Totals>,
}

impl<'a> Fields<'a> {
    fn read<J: Json<'a>>(&mut self, key: &[u8], value: J) -> Scan<J::End> {
        let slot = match key {
            b"provider" => &mut self.provider,
            b"model" => &mut self.model,
            b"responseModel" => &mut self.response_model,
            b"usage" => {
                let (t, end) = totals(value)?;
                self.usage = t;
                return Ok(end);
            }
            _ => return value.skip(),
        };
        let (s, end) = value.string()?;
        *slot = s;
        Ok(end)
    }
}

/// The call an entry of `source`'s kind records, or `None` when it records none: an
/// assistant message's `message.{provider, responseModel or model, usage}`, else the
/// entry's own `provider`, `model` and `usage`.
pub(super) fn call<'a, J: Json<'a>>(source: Source, entry: J) -> Scan<(Option<Read<'a>>, J::End)> {
    let mut f = Fields::default();
    let (_, end) = match source {
        Source::Assistant | Source::ToolResult => {
            let mut message = None;
            let read = entry.members(|key, value| {
                if key != b"message" {
                    return value.skip();
                }
                let mut m = Fields::default();
                let (is_object, end) = value.members(|key, value| m.read(key, value))?;
                message = is_object.then_some(m);
                Ok(end)
            })?;
            f = message.unwrap_or_default();
            read
        }
        _ => entry.members(|key, value| f.read(key, value))?,
    };
    let Some(usage) = f.usage else {
        return Ok((None, end));
    };
    let (provider, model) = match source {
        // Pi's /session breakdown names the model that answered (e.g. OpenRouter's `auto`
        // resolved), else the one asked.
        Source::Assistant => (f.provider, f.response_model.or(f.model)),
        Source::Usage => (f.provider, f.model),
        // A summary names its provider only with its model.
        Source::Compaction | Source::BranchSummary => (f.model.as_ref().and(f.provider), f.model),
        // A tool's own calls: Pi counts them with the summaries.
        Source::ToolResult => (None, None),
    };
    let unnamed = if source == Source::Assistant || source == Source::Usage {
        UNKNOWN_MODEL
    } else {
        SUMMARIES
    };
    Ok((Some((provider, model.unwrap_or(Cow::Borrowed(unnamed)), usage)), end))
}

/// [`call`] of an entry line, read from its bytes, or from its value (`value()`) when the
/// scanner declines them.
pub(super) fn call_in<'a>(source: Source, line: &'a [u8], value: impl FnOnce() -> Value) -> Option<Read<'a>> {
    let bytes = Bytes::whole(line);
    let scanned = call(source, bytes).and_then(|(read, end)| bytes.at_end(end).map(|()| read));
    match scanned {
        Ok(read) => read,
        Err(Bail) => {
            let value = value();
            let (read, ()) = call(source, &value).ok()?;
            read.map(|(provider, model, t)| {
                (
                    provider.map(|p| Cow::Owned(p.into_owned())),
                    Cow::Owned(model.into_owned()),
                    t,
                )
            })
        }
    }
}

/// [`totals`] of the text of a `usage` object, read from its bytes, or from its parsed value
/// when the scanner declines them.
pub(super) fn totals_in(raw: &[u8]) -> Option<Totals> {
    let bytes = Bytes::whole(raw);
    match totals(bytes).and_then(|(t, end)| bytes.at_end(end).map(|()| t)) {
        Ok(t) => t,
        Err(Bail) => totals(&jsparse::parse(raw).ok()?).ok()?.0,
    }
}
