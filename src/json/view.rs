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
    Node(&'v Tape<'a>, usize),
    Value(&'v Value),
}

/// An object of an entry: in the line's bytes, or a parsed object.
#[derive(Debug, Clone, Copy)]
pub struct Obj<'a, 'v>(ObjRepr<'a, 'v>);

#[derive(Debug, Clone, Copy)]
enum ObjRepr<'a, 'v> {
    /// Node `1` of a line's tape (an object).
    Node(&'v Tape<'a>, usize),
    Value(&'v Map<String, Value>),
    Empty,
}

/// A value of a line located in one walk of it: the line is walked once, whatever is asked
/// of it afterwards, and nothing is decoded until asked for. Offsets are into the line.
#[derive(Debug, Clone, Copy)]
struct Node {
    /// The member's key as written, without quotes (empty for an array's element and for
    /// the line's object).
    key: (u32, u32),
    key_escaped: bool,
    item: Item,
    /// Whether a string holds an escape.
    escaped: bool,
    /// The value's text.
    start: u32,
    end: u32,
    /// The index of the node after this one and all it holds.
    next: u32,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Item {
    Str,
    /// A number, `true`, `false` or `null`.
    Scalar,
    Obj,
    Arr,
}

/// A line's values, located ([`Node`]s in the order written, each before what it holds).
#[derive(Debug)]
pub struct Tape<'a> {
    line: &'a [u8],
    nodes: Vec<Node>,
}

/// Nesting deeper than this is left to the parsed value.
const MAX_DEPTH: u32 = 256;

thread_local! {
    /// A tape's nodes, kept for the next line read on this thread.
    static NODES: std::cell::Cell<Vec<Node>> = const { std::cell::Cell::new(Vec::new()) };
}

impl<'a> Tape<'a> {
    /// The tape of the object a whole line holds (declined when it holds anything else).
    pub fn of_line(line: &'a [u8]) -> Scan<Tape<'a>> {
        Self::of_line_in::<false>(line, Vec::with_capacity(32))
    }

    /// [`Tape::of_line`] of a line not known to be JSON, checked as `JSON.parse` checks it
    /// while it is walked (the listing reads files the loader has not).
    pub fn of_checked_line(line: &'a [u8]) -> Scan<Tape<'a>> {
        Self::of_line_in::<true>(line, Vec::with_capacity(32))
    }

    fn of_line_in<const CHECK: bool>(line: &'a [u8], mut nodes: Vec<Node>) -> Scan<Tape<'a>> {
        nodes.clear();
        let p = scan::ws(line, 0);
        if line.get(p) != Some(&b'{') || u32::try_from(line.len()).is_err() {
            return Err(Bail);
        }
        let end = push::<CHECK>(line, p, (0, 0), false, &mut nodes, 0)?;
        if !scan::at_end(line, end) {
            return Err(Bail);
        }
        Ok(Tape { line, nodes })
    }

    /// The line's object.
    pub fn root(&self) -> Obj<'a, '_> {
        Obj(ObjRepr::Node(self, 0))
    }

    fn key(&self, i: usize) -> RawStr<'a> {
        let n = &self.nodes[i];
        RawStr {
            bytes: &self.line[n.key.0 as usize..n.key.1 as usize],
            escaped: n.key_escaped,
        }
    }

    fn token(&self, i: usize) -> &'a [u8] {
        let n = &self.nodes[i];
        &self.line[n.start as usize..n.end as usize]
    }

    /// The node of member `key` of object node `i` (its last, when written twice).
    #[inline(always)]
    fn member(&self, i: usize, key: &str) -> Scan<Option<usize>> {
        let ascii = key.is_ascii();
        let end = self.nodes[i].next as usize;
        let mut k = i + 1;
        let mut found = None;
        while let Some(n) = self.nodes.get(k).filter(|_| k < end) {
            if self.key_is(k, key, ascii)? {
                found = Some(k);
            }
            k = n.next as usize;
        }
        Ok(found)
    }

    /// Whether node `k`'s key is `name` (`ascii`: `name` is ASCII).
    ///
    /// Readers ask for ASCII names, several of each object: a key written without escapes
    /// is such a name exactly when its bytes are (a byte that is not UTF-8 reads as U+FFFD,
    /// never as ASCII), so most keys cost a length compare and nothing is decoded.
    #[inline(always)]
    fn key_is(&self, k: usize, name: &str, ascii: bool) -> Scan<bool> {
        let n = &self.nodes[k];
        if ascii && !n.key_escaped {
            let (from, to) = (n.key.0 as usize, n.key.1 as usize);
            return Ok(to - from == name.len() && &self.line[from..to] == name.as_bytes());
        }
        same_key(&self.key(k), name)
    }

    /// The indexes of the nodes that node `i` holds directly.
    fn children(&self, i: usize) -> impl Iterator<Item = usize> {
        let end = self.nodes[i].next as usize;
        let mut k = i + 1;
        std::iter::from_fn(move || {
            (k < end).then(|| {
                let here = k;
                k = self.nodes[here].next as usize;
                here
            })
        })
    }
}

/// Adds the value at `p` of `b` (member `key`, offsets of its text) and all it holds to
/// `nodes`; returns the position after it. Offsets fit: the line's length does. With
/// `CHECK`, the walk checks the text as `JSON.parse` does (a line not loaded yet).
fn push<const CHECK: bool>(
    b: &[u8],
    p: usize,
    key: (u32, u32),
    key_escaped: bool,
    nodes: &mut Vec<Node>,
    depth: u32,
) -> Scan<usize> {
    let me = nodes.len();
    let mut node = Node {
        key,
        key_escaped,
        item: Item::Scalar,
        escaped: false,
        start: p as u32,
        end: 0,
        next: 0,
    };
    let end = match b.get(p) {
        Some(b'"') => {
            let (s, end) = if CHECK {
                scan::string(b, p)?
            } else {
                trusted::string(b, p)?
            };
            node.item = Item::Str;
            node.escaped = s.escaped;
            end
        }
        Some(b'{' | b'[') if depth >= MAX_DEPTH => return Err(Bail),
        Some(b'{') => {
            node.item = Item::Obj;
            nodes.push(node);
            let member = |k: RawStr<'_>, b: &[u8], q| {
                let from = k.bytes.as_ptr().addr() - b.as_ptr().addr();
                let key = (from as u32, (from + k.bytes.len()) as u32);
                push::<CHECK>(b, q, key, k.escaped, nodes, depth + 1)
            };
            if CHECK {
                scan::object(b, p, member)?
            } else {
                trusted::object(b, p, member)?
            }
        }
        Some(b'[') => {
            node.item = Item::Arr;
            nodes.push(node);
            let element = |b, q| push::<CHECK>(b, q, (0, 0), false, nodes, depth + 1);
            if CHECK {
                scan::array(b, p, element)?
            } else {
                trusted::array(b, p, element)?
            }
        }
        _ if CHECK => scan::skip(b, p)?,
        _ => trusted::skip(b, p)?,
    };
    if matches!(node.item, Item::Obj | Item::Arr) {
        let n = &mut nodes[me];
        n.end = end as u32;
        n.next = 0;
    } else {
        node.end = end as u32;
        nodes.push(node);
    }
    let next = nodes.len() as u32;
    nodes[me].next = next;
    Ok(end)
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
    if let Some(line) = line {
        // The nodes of the thread's last line are reused: a line's allocation, not one per
        // line read.
        let (done, nodes) = match Tape::of_line_in::<false>(line, NODES.take()) {
            Ok(tape) => {
                let done = f(tape.root()).ok();
                (done, tape.nodes)
            }
            Err(_) => (None, Vec::new()),
        };
        NODES.set(nodes);
        if done.is_some() {
            return done;
        }
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
    #[inline(always)]
    pub fn get(&self, key: &str) -> Scan<Option<Val<'a, 'v>>> {
        match self.0 {
            ObjRepr::Node(tape, i) => Ok(tape.member(i, key)?.map(|k| Val(Repr::Node(tape, k)))),
            ObjRepr::Value(m) => Ok(m.get(key).map(|v| Val(Repr::Value(v)))),
            ObjRepr::Empty => Ok(None),
        }
    }

    /// The string at `key`; `None` when absent or not a string.
    #[inline(always)]
    pub fn str(&self, key: &str) -> Scan<Option<Cow<'a, str>>> {
        self.get(key)?.map_or(Ok(None), |v| v.str())
    }

    /// The string at `key`, or empty when absent or not a string.
    #[inline(always)]
    pub fn str_or_empty(&self, key: &str) -> Scan<Cow<'a, str>> {
        Ok(self.str(key)?.unwrap_or_default())
    }

    /// The number at `key`; `None` when absent or not a number.
    #[inline(always)]
    pub fn num(&self, key: &str) -> Scan<Option<f64>> {
        self.get(key)?.map_or(Ok(None), |v| v.num())
    }

    /// The boolean at `key`; `None` when absent or not a boolean.
    #[inline(always)]
    pub fn bool(&self, key: &str) -> Scan<Option<bool>> {
        Ok(self.get(key)?.and_then(|v| v.bool()))
    }

    /// The object at `key`; `None` when absent or not an object.
    #[inline(always)]
    pub fn obj(&self, key: &str) -> Scan<Option<Obj<'a, 'v>>> {
        Ok(self.get(key)?.and_then(|v| v.obj()))
    }

    /// The elements of the array at `key`; `None` when absent or not an array.
    #[inline(always)]
    pub fn arr(&self, key: &str) -> Scan<Option<Vec<Val<'a, 'v>>>> {
        Ok(self.get(key)?.and_then(|v| v.arr()))
    }

    /// The members as `JSON.parse` holds them: each key once, at the place it was first
    /// written, with the value it was last given.
    pub fn members(&self) -> Scan<Vec<(Cow<'a, str>, Val<'a, 'v>)>> {
        match self.0 {
            ObjRepr::Node(tape, i) => {
                let mut out: Vec<(Cow<'a, str>, Val<'a, 'v>)> = Vec::new();
                for k in tape.children(i) {
                    let key = tape.key(k).decode()?;
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
            Repr::Node(tape, i) => match tape.nodes[i].item {
                Item::Str => Kind::Str,
                Item::Obj => Kind::Obj,
                Item::Arr => Kind::Arr,
                Item::Scalar => match tape.line[tape.nodes[i].start as usize] {
                    b't' | b'f' => Kind::Bool,
                    b'n' => Kind::Null,
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
            Repr::Node(tape, i) if tape.nodes[i].item == Item::Str => {
                let t = tape.token(i);
                let body = RawStr {
                    bytes: &t[1..t.len() - 1],
                    escaped: tape.nodes[i].escaped,
                };
                body.decode().map(Some)
            }
            Repr::Node(..) => Ok(None),
            Repr::Value(v) => Ok(v.as_str().map(|s| Cow::Owned(s.to_owned()))),
        }
    }

    /// The number as JavaScript holds it; `None` for any other value.
    pub fn num(&self) -> Scan<Option<f64>> {
        match self.0 {
            Repr::Node(tape, i) if self.kind() == Kind::Num => {
                let t = tape.token(i);
                let (n, end) = scan::number(t, 0)?;
                if end != t.len() {
                    return Err(Bail);
                }
                Ok(Some(n))
            }
            Repr::Node(..) => Ok(None),
            Repr::Value(v) => Ok(v.as_f64()),
        }
    }

    /// The boolean; `None` for any other value.
    pub fn bool(&self) -> Option<bool> {
        match self.0 {
            Repr::Node(tape, i) => match tape.token(i) {
                b"true" => Some(true),
                b"false" => Some(false),
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
            Repr::Node(tape, i) if tape.nodes[i].item == Item::Obj => Some(Obj(ObjRepr::Node(tape, i))),
            Repr::Value(Value::Object(m)) => Some(Obj(ObjRepr::Value(m))),
            _ => None,
        }
    }

    /// The array's elements; `None` for any other value.
    pub fn arr(&self) -> Option<Vec<Val<'a, 'v>>> {
        match self.0 {
            Repr::Node(tape, i) if tape.nodes[i].item == Item::Arr => {
                Some(tape.children(i).map(|k| Val(Repr::Node(tape, k))).collect())
            }
            Repr::Value(Value::Array(a)) => Some(a.iter().map(|v| Val(Repr::Value(v))).collect()),
            _ => None,
        }
    }

    /// The value's JSON text as the line writes it.
    fn token(&self) -> Option<&'a [u8]> {
        match self.0 {
            Repr::Node(tape, i) => Some(tape.token(i)),
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

/// `String(value)` in JavaScript, as `Array.prototype.join` and template strings write a
/// value (`null` written as empty, as `join` writes it).
pub fn js_string(v: Val<'_, '_>) -> Scan<String> {
    Ok(match v.kind() {
        Kind::Null => String::new(),
        Kind::Str => v.str()?.unwrap_or_default().into_owned(),
        Kind::Bool => v.bool().unwrap_or_default().to_string(),
        Kind::Num => super::jsjson::js_number(v.num()?.unwrap_or(f64::NAN)),
        Kind::Arr => v
            .arr()
            .unwrap_or_default()
            .into_iter()
            .map(js_string)
            .collect::<Scan<Vec<_>>>()?
            .join(","),
        Kind::Obj => "[object Object]".into(),
    })
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

        /// A line checked while it is taped is taken exactly when `JSON.parse` takes it
        /// (or declined), and then answers as the trusted tape does.
        #[test]
        fn a_checked_tape_takes_what_json_parse_takes(body in json(), cut in any::<prop::sample::Index>(), byte in any::<u8>()) {
            let mut line = b"{\"k\":".to_vec();
            line.extend_from_slice(&body);
            line.extend_from_slice(b"}");
            let whole = Tape::of_checked_line(&line);
            if let (Ok(checked), Ok(trusted)) = (&whole, Tape::of_line(&line)) {
                same_obj(&checked.root(), &trusted.root())?;
            }
            // One byte changed: a line that may no longer be JSON.
            let at = cut.index(line.len());
            line[at] = byte;
            // As Pi reads a file: invalid UTF-8 as U+FFFD, then `JSON.parse`.
            let parsed = jsparse::parse(&line).ok();
            if Tape::of_checked_line(&line).is_ok() {
                prop_assert!(parsed.is_some_and(|v| v.is_object()), "{}", String::from_utf8_lossy(&line));
            }
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
