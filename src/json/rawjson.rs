//! Editing entry lines without re-serializing them: only the top-level fields a command
//! must change are rewritten; every other value keeps its original bytes.

use super::jsjson::stringify;
use serde_json::value::RawValue;
use serde_json::{Map, Value};

/// The top-level fields of a JSON object line, each value as its original text. Duplicate
/// keys keep the last value at the first key's place, as `JSON.parse` does.
pub fn fields(line: &str) -> Option<Vec<(String, Box<RawValue>)>> {
    let map: indexmap_like::Fields = serde_json::from_str(line).ok()?;
    Some(map.0)
}

/// Re-emits `fields` as one compact object, replacing or appending the given values.
pub fn with_fields(fields: &[(String, Box<RawValue>)], set: &[(&str, Value)]) -> String {
    let set: Vec<(String, String)> = set.iter().map(|(k, v)| ((*k).to_owned(), stringify(v))).collect();
    edit_object(fields, &set, &[])
}

/// Re-emits `fields` as one compact object: `set` replaces a value in place (or appends the
/// key, as assigning a new property in JavaScript does) with JSON text; `remove` drops keys.
pub fn edit_object(fields: &[(String, Box<RawValue>)], set: &[(String, String)], remove: &[&str]) -> String {
    let mut out = String::from("{");
    let mut first = true;
    let mut push = |out: &mut String, k: &str, v: &str| {
        if !first {
            out.push(',');
        }
        first = false;
        super::jsjson::write_string(out, k);
        out.push(':');
        out.push_str(v);
    };
    for (k, v) in fields {
        if remove.contains(&k.as_str()) {
            continue;
        }
        match set.iter().find(|(sk, _)| sk == k) {
            Some((_, nv)) => push(&mut out, k, nv),
            None => push(&mut out, k, v.get().trim()),
        }
    }
    for (k, v) in set {
        if !fields.iter().any(|(fk, _)| fk == k) {
            push(&mut out, k, v);
        }
    }
    out.push('}');
    out
}

/// Builds a compact JSON object line with keys in the given order, as `JSON.stringify`
/// writes it (Pi writes every line that way).
pub fn object_line(pairs: Vec<(&str, Value)>) -> String {
    let mut m = Map::new();
    for (k, v) in pairs {
        m.insert(k.to_owned(), v);
    }
    stringify(&Value::Object(m))
}

mod indexmap_like {
    use serde::de::{Deserialize, Deserializer, MapAccess, Visitor};
    use serde_json::value::RawValue;
    use std::fmt;

    /// Ordered top-level fields with raw values.
    pub struct Fields(pub Vec<(String, Box<RawValue>)>);

    impl<'de> Deserialize<'de> for Fields {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = Fields;
                fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                    f.write_str("a JSON object")
                }
                fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Fields, A::Error> {
                    let mut out: Vec<(String, Box<RawValue>)> = Vec::new();
                    while let Some((k, v)) = a.next_entry::<String, Box<RawValue>>()? {
                        match out.iter_mut().find(|(ek, _)| *ek == k) {
                            Some(slot) => slot.1 = v,
                            None => out.push((k, v)),
                        }
                    }
                    Ok(Fields(out))
                }
            }
            d.deserialize_map(V)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keeps_other_values_byte_for_byte() {
        let line = r#"{"type":"message","id":"a","parentId":"b","n":1.0,"s":"\u0041","x":{"y" : [1, 2]}}"#;
        let f = fields(line).unwrap();
        let out = with_fields(&f, &[("parentId", json!("c"))]);
        assert_eq!(
            out,
            r#"{"type":"message","id":"a","parentId":"c","n":1.0,"s":"\u0041","x":{"y" : [1, 2]}}"#
        );
    }

    #[test]
    fn duplicate_keys_last_wins_in_first_place() {
        let f = fields(r#"{"a":1,"b":2,"a":3}"#).unwrap();
        assert_eq!(with_fields(&f, &[]), r#"{"a":3,"b":2}"#);
    }
}
