//! One view of an entry's JSON, for every reader that shows what an entry holds: fields are
//! asked for by name ([`Obj::str`], [`Obj::num`], [`Obj::obj`], [`Obj::arr`], …), and the
//! answers are `JSON.parse`'s.
//!
//! The view has two backends. Usually it reads the line's bytes as they are: a line the
//! loader accepted is walked without being checked again ([`scan::trusted`]), only the
//! members of the objects asked for are located, and texts are borrowed from the line where
//! they hold no escapes — building a `serde_json::Value` of every entry shown costs several
//! times as much. What the bytes backend does not hold exactly (lone surrogates, invalid
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
    /// A string token: its body, and the whole token with its quotes.
    Str(RawStr<'a>, &'a [u8]),
    /// Any other value's text.
    Text(&'a [u8]),
    Value(&'v Value),
}

/// An object of an entry: its members located in the line's bytes, or a parsed object.
#[derive(Debug, Clone)]
pub struct Obj<'a, 'v>(ObjRepr<'a, 'v>);

#[derive(Debug, Clone)]
enum ObjRepr<'a, 'v> {
    /// The members in the order written, duplicates included.
    Bytes(Vec<(RawStr<'a>, Val<'a, 'v>)>),
    Value(&'v Map<String, Value>),
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
        && let Ok(t) = Obj::of_line(line).and_then(&f)
    {
        return Some(t);
    }
    let v = value();
    f(Obj::of_value(&v)?).ok()
}

/// The value of a member, read in the bytes: a string is located with its escapes known,
/// anything else only bounded.
#[inline]
fn val_at(b: &[u8], p: usize) -> Scan<(Val<'_, 'static>, usize)> {
    if b.get(p) == Some(&b'"') {
        let (s, end) = trusted::string(b, p)?;
        Ok((Val(Repr::Str(s, &b[p..end])), end))
    } else {
        let end = trusted::skip(b, p)?;
        Ok((Val(Repr::Text(&b[p..end])), end))
    }
}

impl<'a, 'v> Obj<'a, 'v> {
    /// The object a whole line holds (declined when the line holds anything else).
    pub fn of_line(line: &'a [u8]) -> Scan<Obj<'a, 'v>> {
        let p = scan::ws(line, 0);
        if line.get(p) != Some(&b'{') {
            return Err(Bail);
        }
        let (obj, end) = Self::walk(line, p)?;
        if !scan::at_end(line, end) {
            return Err(Bail);
        }
        Ok(obj)
    }

    /// The object of a parsed value; `None` when it is not an object.
    pub fn of_value(v: &'v Value) -> Option<Obj<'a, 'v>> {
        v.as_object().map(|m| Obj(ObjRepr::Value(m)))
    }

    /// An object without members.
    pub fn empty() -> Obj<'a, 'v> {
        Obj(ObjRepr::Bytes(Vec::new()))
    }

    /// The members of the object whose `{` is at `p` of `b`, and the position after it.
    fn walk(b: &'a [u8], p: usize) -> Scan<(Obj<'a, 'v>, usize)> {
        let mut members = Vec::with_capacity(12);
        let end = trusted::object(b, p, |key, b, p| {
            let (v, end) = val_at(b, p)?;
            members.push((key, v));
            Ok(end)
        })?;
        Ok((Obj(ObjRepr::Bytes(members)), end))
    }

    /// The value of member `key` (its last, when written twice).
    pub fn get(&self, key: &str) -> Scan<Option<Val<'a, 'v>>> {
        match &self.0 {
            ObjRepr::Bytes(members) => {
                for (k, v) in members.iter().rev() {
                    if same_key(k, key)? {
                        return Ok(Some(*v));
                    }
                }
                Ok(None)
            }
            ObjRepr::Value(m) => Ok(m.get(key).map(|v| Val(Repr::Value(v)))),
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
        self.get(key)?.map_or(Ok(None), |v| v.obj())
    }

    /// The elements of the array at `key`; `None` when absent or not an array.
    pub fn arr(&self, key: &str) -> Scan<Option<Vec<Val<'a, 'v>>>> {
        self.get(key)?.map_or(Ok(None), |v| v.arr())
    }

    /// The members as `JSON.parse` holds them: each key once, at the place it was first
    /// written, with the value it was last given.
    pub fn members(&self) -> Scan<Vec<(Cow<'a, str>, Val<'a, 'v>)>> {
        match &self.0 {
            ObjRepr::Bytes(members) => {
                let mut out: Vec<(Cow<'a, str>, Val<'a, 'v>)> = Vec::with_capacity(members.len());
                for (k, v) in members {
                    let k = k.decode()?;
                    match out.iter_mut().find(|(seen, _)| *seen == k) {
                        Some(slot) => slot.1 = *v,
                        None => out.push((k, *v)),
                    }
                }
                Ok(out)
            }
            ObjRepr::Value(m) => Ok(m
                .iter()
                .map(|(k, v)| (Cow::Owned(k.clone()), Val(Repr::Value(v))))
                .collect()),
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
            Repr::Str(..) => Kind::Str,
            Repr::Text(t) => match t.first() {
                Some(b'{') => Kind::Obj,
                Some(b'[') => Kind::Arr,
                Some(b't' | b'f') => Kind::Bool,
                Some(b'n') => Kind::Null,
                _ => Kind::Num,
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
            Repr::Str(s, _) => s.decode().map(Some),
            Repr::Text(_) => Ok(None),
            Repr::Value(v) => Ok(v.as_str().map(|s| Cow::Owned(s.to_owned()))),
        }
    }

    /// The number as JavaScript holds it; `None` for any other value.
    pub fn num(&self) -> Scan<Option<f64>> {
        match self.0 {
            Repr::Text(t) if self.kind() == Kind::Num => {
                let (n, end) = scan::number(t, 0)?;
                if end != t.len() {
                    return Err(Bail);
                }
                Ok(Some(n))
            }
            Repr::Value(v) => Ok(v.as_f64()),
            _ => Ok(None),
        }
    }

    /// The boolean; `None` for any other value.
    pub fn bool(&self) -> Option<bool> {
        match self.0 {
            Repr::Text(b"true") => Some(true),
            Repr::Text(b"false") => Some(false),
            Repr::Value(v) => v.as_bool(),
            _ => None,
        }
    }

    /// Whether the value is `null`.
    pub fn is_null(&self) -> bool {
        self.kind() == Kind::Null
    }

    /// The object; `None` for any other value.
    pub fn obj(&self) -> Scan<Option<Obj<'a, 'v>>> {
        match self.0 {
            Repr::Text(t) if t.first() == Some(&b'{') => Obj::walk(t, 0).map(|(o, _)| Some(o)),
            Repr::Value(Value::Object(m)) => Ok(Some(Obj(ObjRepr::Value(m)))),
            _ => Ok(None),
        }
    }

    /// The array's elements; `None` for any other value.
    pub fn arr(&self) -> Scan<Option<Vec<Val<'a, 'v>>>> {
        match self.0 {
            Repr::Text(t) if t.first() == Some(&b'[') => {
                let mut items = Vec::new();
                trusted::array(t, 0, |b, p| {
                    let (v, end) = val_at(b, p)?;
                    items.push(v);
                    Ok(end)
                })?;
                Ok(Some(items))
            }
            Repr::Value(Value::Array(a)) => Ok(Some(a.iter().map(|v| Val(Repr::Value(v))).collect())),
            _ => Ok(None),
        }
    }

    /// The value's JSON text as the line writes it; `None` over a parsed value (which has
    /// no text), and declined when the text is not UTF-8.
    pub fn text(&self) -> Scan<Option<&'a str>> {
        match self.0 {
            Repr::Str(_, t) | Repr::Text(t) => scan::utf8(t).map(Some),
            Repr::Value(_) => Ok(None),
        }
    }

    /// The value as `JSON.parse` builds it.
    pub fn to_value(&self) -> Scan<Cow<'v, Value>> {
        match self.0 {
            Repr::Str(_, t) | Repr::Text(t) => jsparse::parse(t).map(Cow::Owned).map_err(|_| Bail),
            Repr::Value(v) => Ok(Cow::Borrowed(v)),
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
        if let Some(items) = bytes.arr().unwrap() {
            let want = value.arr().unwrap().unwrap();
            prop_assert_eq!(items.len(), want.len());
            for (a, b) in items.into_iter().zip(want) {
                same(a, b)?;
            }
        }
        if let Some(obj) = bytes.obj().unwrap() {
            same_obj(&obj, &value.obj().unwrap().unwrap())?;
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
            if let Ok(by_bytes) = Obj::of_line(&line) {
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
        let o = Obj::of_line(line).unwrap();
        assert_eq!(o.num("a"), Ok(Some(2.0)));
        let keys: Vec<_> = o.members().unwrap().into_iter().map(|(k, _)| k).collect();
        assert_eq!(keys, ["a", "b"]);
        assert_eq!(o.str("b").unwrap().as_deref(), Some("x"));
        assert_eq!(o.str("a"), Ok(None));
    }

    #[test]
    fn what_the_bytes_cannot_hold_is_declined_and_read_from_the_value() {
        let line = br#"{"t":"\ud83d","n":-0}"#;
        let o = Obj::of_line(line).unwrap();
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
        assert!(Obj::of_line(deep.as_bytes()).is_err());
        let got = read(
            Some(deep.as_bytes()),
            || v.clone(),
            |o| Ok(o.get("k")?.map(|v| v.kind())),
        );
        assert_eq!(got, Some(Some(Kind::Arr)));
    }
}
