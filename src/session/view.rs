//! One view of an entry's JSON, for every reader that shows what an entry holds: fields are
//! asked for by name ([`Obj::str`], [`Obj::num`], [`Obj::obj`], [`Obj::arr`], …), and the
//! answers are `JSON.parse`'s.
//!
//! The view has two backends. Usually it reads the line's bytes as they are: a line the
//! loader accepted is walked once, without being checked again ([`scan::trusted`]), into a
//! [`Tape`] that locates each value; nothing is decoded until it is asked for, and texts
//! are borrowed from the line where they hold no escapes — building a `serde_json::Value`
//! of every entry shown costs several times as much. What the bytes backend does not hold exactly (lone surrogates, invalid
//! UTF-8, which Node reads as U+FFFD, numbers whose double is `-0` or infinite, very deep
//! nesting) it declines with [`Bail`]; [`read`] then runs the same reading again over the
//! value [`jsparse`] gives, which never declines. A reader is written once, against
//! [`Obj`]: which backend answered is not its concern.
//!
//! `JSON.parse`'s rules live here: a key written twice counts with its last value, at the
//! place of its first; keys are compared decoded; numbers are doubles.

use super::jsparse;
use super::scan::{self, Bail, RawStr, Scan, trusted};
use serde_json::{Map, Value};
use std::borrow::Cow;

/// A JSON value of an entry: in the line's bytes, or in a parsed value.
#[derive(Debug, Clone, Copy)]
pub struct Val<'a, 'v>(Repr<'a, 'v>);

#[derive(Debug, Clone, Copy)]
enum Repr<'a, 'v> {
    /// Node `1` of a line's tape.
    Node(&'v [Node<'a>], usize),
    Value(&'v Value),
}

/// An object of an entry: in the line's bytes, or a parsed object.
#[derive(Debug, Clone, Copy)]
pub struct Obj<'a, 'v>(ObjRepr<'a, 'v>);

#[derive(Debug, Clone, Copy)]
enum ObjRepr<'a, 'v> {
    /// Node `1` of a line's tape (an object).
    Node(&'v [Node<'a>], usize),
    Value(&'v Map<String, Value>),
    Empty,
}

/// A value of a line located in one walk of it: the line is walked once, whatever is asked
/// of it afterwards, and nothing is decoded until asked for.
#[derive(Debug, Clone, Copy)]
struct Node<'a> {
    /// The member's key (empty for an array's element and for the line's object).
    key: RawStr<'a>,
    item: Item<'a>,
    /// The index of the node after this one and all it holds.
    next: usize,
}

#[derive(Debug, Clone, Copy)]
enum Item<'a> {
    /// A string: its body, and its whole token with the quotes.
    Str(RawStr<'a>, &'a [u8]),
    /// A number, `true`, `false` or `null`: its text.
    Scalar(&'a [u8]),
    Obj(&'a [u8]),
    Arr(&'a [u8]),
}

/// A line's values, located ([`Node`]s in the order written, each before what it holds).
#[derive(Debug)]
pub struct Tape<'a>(Vec<Node<'a>>);

/// Nesting deeper than this is left to the parsed value.
const MAX_DEPTH: u32 = 256;

const NO_KEY: RawStr<'static> = RawStr {
    bytes: b"",
    escaped: false,
};

impl<'a> Tape<'a> {
    /// The tape of the object a whole line holds (declined when it holds anything else).
    pub fn of_line(line: &'a [u8]) -> Scan<Tape<'a>> {
        let p = scan::ws(line, 0);
        if line.get(p) != Some(&b'{') {
            return Err(Bail);
        }
        let mut tape = Vec::with_capacity(32);
        let end = push(line, p, NO_KEY, &mut tape, 0)?;
        if !scan::at_end(line, end) {
            return Err(Bail);
        }
        Ok(Tape(tape))
    }

    /// The line's object.
    pub fn root(&self) -> Obj<'a, '_> {
        Obj(ObjRepr::Node(&self.0, 0))
    }
}

/// Adds the value at `p` of `b` (member `key`) and all it holds to `tape`; returns the
/// position after it.
fn push<'a>(b: &'a [u8], p: usize, key: RawStr<'a>, tape: &mut Vec<Node<'a>>, depth: u32) -> Scan<usize> {
    let me = tape.len();
    let (item, end) = match b.get(p) {
        Some(b'"') => {
            let (s, end) = trusted::string(b, p)?;
            (Item::Str(s, &b[p..end]), end)
        }
        Some(b'{' | b'[') if depth >= MAX_DEPTH => return Err(Bail),
        Some(b'{') => {
            tape.push(Node {
                key,
                item: Item::Obj(b""),
                next: 0,
            });
            let end = trusted::object(b, p, |k, b, q| push(b, q, k, tape, depth + 1))?;
            tape[me].item = Item::Obj(&b[p..end]);
            tape[me].next = tape.len();
            return Ok(end);
        }
        Some(b'[') => {
            tape.push(Node {
                key,
                item: Item::Arr(b""),
                next: 0,
            });
            let end = trusted::array(b, p, |b, q| push(b, q, NO_KEY, tape, depth + 1))?;
            tape[me].item = Item::Arr(&b[p..end]);
            tape[me].next = tape.len();
            return Ok(end);
        }
        _ => {
            let end = trusted::skip(b, p)?;
            (Item::Scalar(&b[p..end]), end)
        }
    };
    tape.push(Node {
        key,
        item,
        next: me + 1,
    });
    Ok(end)
}

/// The indexes of the nodes that node `i` of `tape` holds directly.
fn children<'a>(tape: &[Node<'a>], i: usize) -> impl Iterator<Item = usize> {
    let end = tape[i].next;
    let mut k = i + 1;
    std::iter::from_fn(move || {
        (k < end).then(|| {
            let here = k;
            k = tape[here].next;
            here
        })
    })
}

/// Reads an entry once through the view: `f` runs over the line's bytes when there are
/// some (`line`, a line the loader accepted) and again over the parsed value (`value`)
/// when the bytes backend declined or there are none. `None` when `f` fails over the
/// value too (it then found no object to read).
pub fn read<'a, T>(
    line: Option<&'a [u8]>,
    value: impl FnOnce() -> Value,
    f: impl for<'v> Fn(Obj<'a, 'v>) -> Scan<T>,
) -> Option<T> {
    if let Some(line) = line
        && let Ok(tape) = Tape::of_line(line)
        && let Ok(t) = f(tape.root())
    {
        return Some(t);
    }
    let v = value();
    f(Obj::of_value(&v)?).ok()
}

impl<'a, 'v> Obj<'a, 'v> {
    /// The object of a parsed value; `None` when it is not an object.
    pub fn of_value(v: &'v Value) -> Option<Obj<'a, 'v>> {
        v.as_object().map(|m| Obj(ObjRepr::Value(m)))
    }

    /// An object without members.
    pub fn empty() -> Obj<'a, 'v> {
        Obj(ObjRepr::Empty)
    }

    /// The value of member `key` (its last, when written twice).
    pub fn get(&self, key: &str) -> Scan<Option<Val<'a, 'v>>> {
        match self.0 {
            ObjRepr::Node(tape, i) => {
                let mut found = None;
                for k in children(tape, i) {
                    if same_key(&tape[k].key, key)? {
                        found = Some(Val(Repr::Node(tape, k)));
                    }
                }
                Ok(found)
            }
            ObjRepr::Value(m) => Ok(m.get(key).map(|v| Val(Repr::Value(v)))),
            ObjRepr::Empty => Ok(None),
        }
    }

    /// The string at `key`; `None` when absent or not a string.
    pub fn str(&self, key: &str) -> Scan<Option<Cow<'a, str>>> {
        self.get(key)?.map_or(Ok(None), |v| v.str())
    }

    /// The string at `key`, or empty when absent or not a string.
    pub fn str_or_empty(&self, key: &str) -> Scan<Cow<'a, str>> {
        Ok(self.str(key)?.unwrap_or_default())
    }

    /// The number at `key`; `None` when absent or not a number.
    pub fn num(&self, key: &str) -> Scan<Option<f64>> {
        self.get(key)?.map_or(Ok(None), |v| v.num())
    }

    /// The boolean at `key`; `None` when absent or not a boolean.
    pub fn bool(&self, key: &str) -> Scan<Option<bool>> {
        Ok(self.get(key)?.and_then(|v| v.bool()))
    }

    /// The object at `key`; `None` when absent or not an object.
    pub fn obj(&self, key: &str) -> Scan<Option<Obj<'a, 'v>>> {
        Ok(self.get(key)?.and_then(|v| v.obj()))
    }

    /// The elements of the array at `key`; `None` when absent or not an array.
    pub fn arr(&self, key: &str) -> Scan<Option<Vec<Val<'a, 'v>>>> {
        Ok(self.get(key)?.and_then(|v| v.arr()))
    }

    /// The members as `JSON.parse` holds them: each key once, at the place it was first
    /// written, with the value it was last given.
    pub fn members(&self) -> Scan<Vec<(Cow<'a, str>, Val<'a, 'v>)>> {
        match self.0 {
            ObjRepr::Node(tape, i) => {
                let mut out: Vec<(Cow<'a, str>, Val<'a, 'v>)> = Vec::new();
                for k in children(tape, i) {
                    let key = tape[k].key.decode()?;
                    let v = Val(Repr::Node(tape, k));
                    match out.iter_mut().find(|(seen, _)| *seen == key) {
                        Some(slot) => slot.1 = v,
                        None => out.push((key, v)),
                    }
                }
                Ok(out)
            }
            ObjRepr::Value(m) => Ok(m
                .iter()
                .map(|(k, v)| (Cow::Owned(k.clone()), Val(Repr::Value(v))))
                .collect()),
            ObjRepr::Empty => Ok(Vec::new()),
        }
    }
}

/// Whether a key as written is `name` once decoded. A key that does not decode (a lone
/// surrogate, invalid UTF-8) declines: it might be any name.
#[inline]
fn same_key(k: &RawStr<'_>, name: &str) -> Scan<bool> {
    if !k.escaped && k.bytes.is_ascii() {
        return Ok(k.bytes == name.as_bytes());
    }
    Ok(k.decode()? == name)
}

/// What kind of JSON value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Null,
    Bool,
    Num,
    Str,
    Arr,
    Obj,
}

impl<'a, 'v> Val<'a, 'v> {
    /// A view of a parsed value.
    pub fn of_value(v: &'v Value) -> Val<'a, 'v> {
        Val(Repr::Value(v))
    }

    /// What kind of value this is.
    pub fn kind(&self) -> Kind {
        match self.0 {
            Repr::Node(tape, i) => match tape[i].item {
                Item::Str(..) => Kind::Str,
                Item::Obj(_) => Kind::Obj,
                Item::Arr(_) => Kind::Arr,
                Item::Scalar(t) => match t.first() {
                    Some(b't' | b'f') => Kind::Bool,
                    Some(b'n') => Kind::Null,
                    _ => Kind::Num,
                },
            },
            Repr::Value(v) => match v {
                Value::Null => Kind::Null,
                Value::Bool(_) => Kind::Bool,
                Value::Number(_) => Kind::Num,
                Value::String(_) => Kind::Str,
                Value::Array(_) => Kind::Arr,
                Value::Object(_) => Kind::Obj,
            },
        }
    }

    /// The string's value; `None` for any other value.
    #[inline]
    pub fn str(&self) -> Scan<Option<Cow<'a, str>>> {
        match self.0 {
            Repr::Node(tape, i) => match tape[i].item {
                Item::Str(s, _) => s.decode().map(Some),
                _ => Ok(None),
            },
            Repr::Value(v) => Ok(v.as_str().map(|s| Cow::Owned(s.to_owned()))),
        }
    }

    /// The number as JavaScript holds it; `None` for any other value.
    pub fn num(&self) -> Scan<Option<f64>> {
        match self.0 {
            Repr::Node(tape, i) => match tape[i].item {
                Item::Scalar(t) if self.kind() == Kind::Num => {
                    let (n, end) = scan::number(t, 0)?;
                    if end != t.len() {
                        return Err(Bail);
                    }
                    Ok(Some(n))
                }
                _ => Ok(None),
            },
            Repr::Value(v) => Ok(v.as_f64()),
        }
    }

    /// The boolean; `None` for any other value.
    pub fn bool(&self) -> Option<bool> {
        match self.0 {
            Repr::Node(tape, i) => match tape[i].item {
                Item::Scalar(b"true") => Some(true),
                Item::Scalar(b"false") => Some(false),
                _ => None,
            },
            Repr::Value(v) => v.as_bool(),
        }
    }

    /// Whether the value is `null`.
    pub fn is_null(&self) -> bool {
        self.kind() == Kind::Null
    }

    /// The object; `None` for any other value.
    pub fn obj(&self) -> Option<Obj<'a, 'v>> {
        match self.0 {
            Repr::Node(tape, i) if matches!(tape[i].item, Item::Obj(_)) => Some(Obj(ObjRepr::Node(tape, i))),
            Repr::Value(Value::Object(m)) => Some(Obj(ObjRepr::Value(m))),
            _ => None,
        }
    }

    /// The array's elements; `None` for any other value.
    pub fn arr(&self) -> Option<Vec<Val<'a, 'v>>> {
        match self.0 {
            Repr::Node(tape, i) if matches!(tape[i].item, Item::Arr(_)) => {
                Some(children(tape, i).map(|k| Val(Repr::Node(tape, k))).collect())
            }
            Repr::Value(Value::Array(a)) => Some(a.iter().map(|v| Val(Repr::Value(v))).collect()),
            _ => None,
        }
    }

    /// The value's JSON text as the line writes it.
    fn token(&self) -> Option<&'a [u8]> {
        match self.0 {
            Repr::Node(tape, i) => Some(match tape[i].item {
                Item::Str(_, t) | Item::Scalar(t) | Item::Obj(t) | Item::Arr(t) => t,
            }),
            Repr::Value(_) => None,
        }
    }

    /// The value's JSON text as the line writes it; `None` over a parsed value (which has
    /// no text), and declined when the text is not UTF-8.
    pub fn text(&self) -> Scan<Option<&'a str>> {
        self.token().map(scan::utf8).transpose()
    }

    /// The value as `JSON.parse` builds it.
    pub fn to_value(&self) -> Scan<Cow<'v, Value>> {
        match (self.0, self.token()) {
            (Repr::Value(v), _) => Ok(Cow::Borrowed(v)),
            (_, t) => jsparse::parse(t.unwrap_or_default()).map(Cow::Owned).map_err(|_| Bail),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Asserts that `bytes` answers every accessor as `value` does, all the way down, where
    /// it answers: declining is allowed (the reader then reads the value), a different
    /// answer is not.
    fn same(bytes: Val<'_, '_>, value: Val<'_, '_>) -> Result<(), TestCaseError> {
        let Ok(n) = bytes.num() else {
            return Ok(());
        };
        prop_assert_eq!(n, value.num().unwrap());
        prop_assert_eq!(bytes.kind(), value.kind());
        prop_assert_eq!(bytes.bool(), value.bool());
        prop_assert_eq!(bytes.is_null(), value.is_null());
        let Ok(s) = bytes.str() else {
            return Ok(());
        };
        prop_assert_eq!(s, value.str().unwrap());
        if let Some(items) = bytes.arr() {
            let want = value.arr().unwrap();
            prop_assert_eq!(items.len(), want.len());
            for (a, b) in items.into_iter().zip(want) {
                same(a, b)?;
            }
        }
        if let Some(obj) = bytes.obj() {
            same_obj(&obj, &value.obj().unwrap())?;
        }
        Ok(())
    }

    fn same_obj(bytes: &Obj<'_, '_>, value: &Obj<'_, '_>) -> Result<(), TestCaseError> {
        for key in ["a", "b", "é", "", "missing"] {
            if let Ok(got) = bytes.get(key) {
                let want = value.get(key).unwrap();
                prop_assert_eq!(got.is_some(), want.is_some());
                if let (Some(a), Some(b)) = (got, want) {
                    same(a, b)?;
                }
            }
        }
        let Ok(got) = bytes.members() else {
            return Ok(());
        };
        let want = value.members().unwrap();
        prop_assert_eq!(
            got.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>(),
            want.iter().map(|(k, _)| k.clone()).collect::<Vec<_>>()
        );
        for ((k, a), (_, b)) in got.into_iter().zip(want) {
            same(a, b)?;
            same(bytes.get(&k).unwrap().unwrap(), value.get(&k).unwrap().unwrap())?;
        }
        Ok(())
    }

    /// JSON text with what `JSON.parse`'s rules are about: keys written twice (also once
    /// escaped), escapes, lone surrogates, invalid UTF-8, odd numbers, deep nesting, spaces.
    fn json() -> impl Strategy<Value = Vec<u8>> {
        let key = prop::sample::select(vec![
            &b"\"a\""[..],
            b"\"b\"",
            b"\"\\u0061\"",
            "\"é\"".as_bytes(),
            b"\"\\ud800\"",
            b"\"\"",
            b"\"a\xff\"",
        ]);
        let leaf = prop::sample::select(vec![
            &b"0"[..],
            b"-0",
            b"1",
            b"-1.5",
            b"1e400",
            b"-1e400",
            b"5.0",
            b"1E2",
            b"123456789012345678901",
            b"0.1",
            b"true",
            b"false",
            b"null",
            b"\"\"",
            b"\"x\"",
            b"\"a\\\"b\\\\c\\n\\u00e9\\ud83d\\ude00\"",
            b"\"\\ud83d\"",
            b"\"\\udc00x\"",
            "\"é日😀\"".as_bytes(),
            b"\"\\/\\b\\f\\r\\t\"",
            b"\"\xc3\"",
            b"\"\xff\xfe\"",
        ])
        .prop_map(<[u8]>::to_vec);
        leaf.prop_recursive(8, 64, 6, move |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..5).prop_map(|items| {
                    let mut out = b"[".to_vec();
                    for (i, item) in items.iter().enumerate() {
                        if i > 0 {
                            out.extend_from_slice(b", ");
                        }
                        out.extend_from_slice(item);
                    }
                    out.push(b']');
                    out
                }),
                prop::collection::vec((key.clone(), inner), 0..6).prop_map(|members| {
                    let mut out = b"{".to_vec();
                    for (i, (k, v)) in members.iter().enumerate() {
                        if i > 0 {
                            out.push(b',');
                        }
                        out.extend_from_slice(k);
                        out.extend_from_slice(b" : ");
                        out.extend_from_slice(v);
                    }
                    out.push(b'}');
                    out
                }),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(3000))]
        /// Wherever the bytes backend answers, it answers every accessor as the value
        /// `JSON.parse` builds does; and [`read`] always answers, as the value does.
        #[test]
        fn the_bytes_answer_as_the_value_does(body in json(), twice in any::<bool>()) {
            let mut line = b"{\"k\":".to_vec();
            line.extend_from_slice(&body);
            if twice {
                line.extend_from_slice(b",\"k2\":1,\"k\":");
                line.extend_from_slice(&body);
            }
            line.extend_from_slice(b"}");
            let value = jsparse::parse(&line).expect("valid JSON");
            let by_value = Obj::of_value(&value).unwrap();
            if let Ok(tape) = Tape::of_line(&line) {
                let by_bytes = tape.root();
                same_obj(&by_bytes, &by_value)?;
                if let Ok(Some(k)) = by_bytes.get("k") {
                    same(k, by_value.get("k").unwrap().unwrap())?;
                }
            }
            let read_back = read(Some(&line), || value.clone(), |o| {
                Ok(o.get("k")?.map(|v| v.to_value().map(Cow::into_owned)))
            });
            let read_back = read_back.flatten().and_then(Result::ok);
            prop_assert_eq!(read_back.as_ref(), value.get("k"));
        }
    }

    #[test]
    fn the_last_duplicate_wins_at_the_first_place() {
        let line = br#"{"a":1,"b":"x","\u0061":2}"#;
        let tape = Tape::of_line(line).unwrap();
        let o = tape.root();
        assert_eq!(o.num("a"), Ok(Some(2.0)));
        let keys: Vec<_> = o.members().unwrap().into_iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ["a", "b"]);
        assert_eq!(o.str("b").unwrap().as_deref(), Some("x"));
        assert_eq!(o.str("a"), Ok(None));
    }

    #[test]
    fn what_the_bytes_cannot_hold_is_declined_and_read_from_the_value() {
        let line = br#"{"t":"\ud83d","n":-0}"#;
        let tape = Tape::of_line(line).unwrap();
        let o = tape.root();
        assert_eq!(o.str("t"), Err(Bail));
        assert_eq!(o.num("n"), Err(Bail));
        let v = jsparse::parse(line).unwrap();
        let got = read(
            Some(line),
            || v.clone(),
            |o| Ok((o.str_or_empty("t")?.into_owned(), o.num("n")?)),
        );
        assert_eq!(got, Some(("\u{10f83d}".to_owned(), Some(0.0))));
    }

    #[test]
    fn deep_nesting_is_read_from_the_value() {
        let deep = format!("{{\"k\":{}1{}}}", "[".repeat(1000), "]".repeat(1000));
        let v = jsparse::parse(deep.as_bytes()).unwrap();
        assert!(Tape::of_line(deep.as_bytes()).is_err());
        let got = read(
            Some(deep.as_bytes()),
            || v.clone(),
            |o| Ok(o.get("k")?.map(|v| v.kind())),
        );
        assert_eq!(got, Some(Some(Kind::Arr)));
    }
}
