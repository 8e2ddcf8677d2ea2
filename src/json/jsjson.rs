//! How JavaScript sees JSON values: `JSON.stringify` text and string lengths in UTF-16 code
//! units. Pi's token estimates count `.length` of strings and of `JSON.stringify(...)`, so
//! matching its numbers means counting the way JavaScript does.

use super::jsparse;
use serde_json::Value;

/// `s.length` in JavaScript (a lone surrogate's stand-in is one code unit).
pub fn utf16_len(s: &str) -> usize {
    s.chars()
        .map(|c| {
            if jsparse::is_lone_surrogate(c) {
                1
            } else {
                c.len_utf16()
            }
        })
        .sum()
}

/// `JSON.stringify(v).length`.
pub fn stringify_len(v: &Value) -> usize {
    match v {
        Value::Null => 4,
        Value::Bool(true) => 4,
        Value::Bool(false) => 5,
        Value::Number(n) => number_text(n).len(),
        Value::String(s) => string_len(s),
        Value::Array(a) => 2 + a.len().saturating_sub(1) + a.iter().map(stringify_len).sum::<usize>(),
        Value::Object(o) => {
            2 + o.len().saturating_sub(1)
                + o.iter()
                    .map(|(k, v)| string_len(k) + 1 + stringify_len(v))
                    .sum::<usize>()
        }
    }
}

/// `JSON.stringify(v)`, byte for byte: numbers as JavaScript prints them, strings escaped as
/// it escapes them (lone surrogates as `\udxxx`), and integer-like keys first, ascending, as
/// JavaScript orders an object's properties.
pub fn stringify(v: &Value) -> String {
    let mut out = String::new();
    write_value(&mut out, v);
    out
}

fn write_value(out: &mut String, v: &Value) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => out.push_str(&number_text(n)),
        Value::String(s) => write_string(out, s),
        Value::Array(a) => {
            out.push('[');
            for (i, x) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(out, x);
            }
            out.push(']');
        }
        Value::Object(o) => {
            out.push('{');
            let mut first = true;
            let mut member = |out: &mut String, k: &str, x: &Value| {
                if !first {
                    out.push(',');
                }
                first = false;
                write_string(out, k);
                out.push(':');
                write_value(out, x);
            };
            if o.keys().any(|k| array_index(k).is_some()) {
                let mut indexed: Vec<(u32, &String, &Value)> = o
                    .iter()
                    .filter_map(|(k, x)| array_index(k).map(|i| (i, k, x)))
                    .collect();
                indexed.sort_by_key(|(i, _, _)| *i);
                for (_, k, x) in indexed {
                    member(out, k, x);
                }
                for (k, x) in o.iter().filter(|(k, _)| array_index(k).is_none()) {
                    member(out, k, x);
                }
            } else {
                for (k, x) in o {
                    member(out, k, x);
                }
            }
            out.push('}');
        }
    }
}

/// A key JavaScript treats as an array index (`"0"` … `"4294967294"`, no leading zeros):
/// such properties come first, in ascending order.
fn array_index(k: &str) -> Option<u32> {
    if k.is_empty() || k.len() > 10 || (k.len() > 1 && k.starts_with('0')) || !k.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    k.parse::<u64>()
        .ok()
        .filter(|&i| i < u64::from(u32::MAX))
        .map(|i| i as u32)
}

/// A string as `JSON.stringify` writes it.
pub fn write_string(out: &mut String, s: &str) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => match jsparse::lone_surrogate_unit(c) {
                Some(unit) => out.push_str(&format!("\\u{unit:04x}")),
                None => out.push(c),
            },
        }
    }
    out.push('"');
}

fn string_len(s: &str) -> usize {
    2 + s
        .chars()
        .map(|c| match c {
            '"' | '\\' | '\u{8}' | '\u{c}' | '\n' | '\r' | '\t' => 2,
            c if (c as u32) < 0x20 => 6,
            c if jsparse::is_lone_surrogate(c) => 6,
            c => c.len_utf16(),
        })
        .sum::<usize>()
}

/// A number as JavaScript prints it (`Number.prototype.toString`): integers beyond 2^53
/// first become the double JavaScript would hold.
pub fn number_text(n: &serde_json::Number) -> String {
    const EXACT: u64 = 1 << 53;
    if let Some(i) = n.as_u64() {
        if i <= EXACT {
            return i.to_string();
        }
    } else if let Some(i) = n.as_i64()
        && i.unsigned_abs() <= EXACT
    {
        return i.to_string();
    }
    js_number(n.as_f64().unwrap_or(f64::NAN))
}

/// Serializes a `f64` field as JavaScript prints the number (`#[serde(serialize_with =
/// "crate::json::jsjson::serialize_number")]`).
pub fn serialize_number<S: serde::Serializer>(n: &f64, s: S) -> Result<S::Ok, S::Error> {
    serde::Serialize::serialize(&number(*n), s)
}

/// [`serialize_number`] of an optional number (`None` as `null`).
pub fn serialize_opt_number<S: serde::Serializer>(n: &Option<f64>, s: S) -> Result<S::Ok, S::Error> {
    serde::Serialize::serialize(&n.map(number), s)
}

/// A JavaScript number as a JSON value: whole numbers without a fraction, others printed
/// as JavaScript prints them (`NaN` and infinities, which JSON cannot hold, as `null`).
pub fn number(n: f64) -> Value {
    jsparse::js_number_value(n)
}

/// ECMAScript `Number::toString`, `NaN` and the infinities included. `ryu-js` picks the
/// shortest digits as V8 does, ties to the even digit among them.
pub fn js_number(f: f64) -> String {
    ryu_js::Buffer::new().format(f).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn numbers_print_like_javascript() {
        assert_eq!(js_number(1.0), "1");
        assert_eq!(js_number(0.1), "0.1");
        assert_eq!(js_number(1e21), "1e+21");
        assert_eq!(js_number(1e-7), "1e-7");
        assert_eq!(js_number(123456.789), "123456.789");
        assert_eq!(js_number(0.0012000000000000001), "0.0012000000000000001");
        assert_eq!(js_number(-2.5e-7), "-2.5e-7");
        assert_eq!(js_number(1.5e300), "1.5e+300");
        assert_eq!(js_number(0.000001), "0.000001");
        // Halfway between two shortest spellings, V8 prints the even digit.
        assert_eq!(js_number(1125899906842624.2), "1125899906842624.2");
        assert_eq!(js_number(1473005467560142.2), "1473005467560142.2");
        assert_eq!(js_number(-0.0), "0");
        assert_eq!(js_number(5e-324), "5e-324");
        assert_eq!(js_number(-5e-324), "-5e-324");
        assert_eq!(js_number(f64::MAX), "1.7976931348623157e+308");
        assert_eq!(js_number(999999999999999900000.0), "999999999999999900000");
        assert_eq!(js_number(f64::NAN), "NaN");
        assert_eq!(js_number(f64::INFINITY), "Infinity");
        assert_eq!(js_number(f64::NEG_INFINITY), "-Infinity");
        assert_eq!(number(f64::NAN), Value::Null);
        assert_eq!(number(f64::INFINITY), Value::Null);
        assert_eq!(number(-0.0), json!(0));
        assert_eq!(stringify(&number(1125899906842624.2)), "1125899906842624.2");
    }

    /// 100,000 random doubles (every bit pattern equally likely, and as many of ordinary
    /// magnitude) printed here and by node's `String(x)`.
    #[test]
    fn numbers_agree_with_node() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let numbers: Vec<f64> = (0..100_000)
            .map(|i| {
                let bits = next();
                if i % 2 == 0 {
                    f64::from_bits(bits)
                } else {
                    // A random fraction scaled into 1e-9 .. 1e21.
                    (bits >> 11) as f64 / (1u64 << 53) as f64 * 10f64.powi((bits % 31) as i32 - 9)
                }
            })
            .collect();
        let input: String = numbers.iter().map(|f| format!("{:016x}\n", f.to_bits())).collect();
        let script = "const l=require('fs').readFileSync(0,'utf8').trim().split('\\n');\
            const v=new DataView(new ArrayBuffer(8));\
            console.log(l.map(h=>{v.setBigUint64(0,BigInt('0x'+h));return String(v.getFloat64(0))}).join('\\n'))";
        let child = std::process::Command::new("node")
            .args(["-e", script])
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .spawn();
        let Ok(mut child) = child else {
            eprintln!("SKIPPED numbers_agree_with_node: node is not installed");
            return;
        };
        use std::io::Write;
        child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
        let out = child.wait_with_output().unwrap();
        assert!(out.status.success(), "node failed");
        let node = String::from_utf8(out.stdout).unwrap();
        let mut differ = 0;
        for (f, want) in numbers.iter().zip(node.lines()) {
            if js_number(*f) != want {
                differ += 1;
                eprintln!("{:016x}: {} vs node {want}", f.to_bits(), js_number(*f));
            }
        }
        assert_eq!(node.lines().count(), numbers.len());
        assert_eq!(differ, 0);
    }

    #[test]
    fn stringify_prints_what_javascript_prints() {
        let p = |s: &str| stringify(&jsparse::parse(s.as_bytes()).unwrap());
        assert_eq!(p("0.0012000000000000001"), "0.0012000000000000001");
        assert_eq!(p("3e-6"), "0.000003");
        assert_eq!(p("1e+20"), "100000000000000000000");
        assert_eq!(p("1e21"), "1e+21");
        assert_eq!(p("1E-7"), "1e-7");
        assert_eq!(p("[5.0,100.0,-0.0,1e400]"), "[5,100,0,null]");
        assert_eq!(p("18446744073709551616"), "18446744073709552000");
        assert_eq!(p("9007199254740993"), "9007199254740992");
        assert_eq!(p("-9007199254740993"), "-9007199254740992");
        assert_eq!(p("123456789012345678901234567890"), "1.2345678901234568e+29");
        assert_eq!(
            p(r#"{"b":1,"10":2,"a":3,"2":4,"01":5,"4294967295":6,"4294967294":7}"#),
            r#"{"2":4,"10":2,"4294967294":7,"b":1,"a":3,"01":5,"4294967295":6}"#
        );
        assert_eq!(
            p(r#""\ud83d x \uDE00 \u2028 \u007f \u0001 \/""#),
            "\"\\ud83d x \\ude00 \u{2028} \u{7f} \\u0001 /\""
        );
        let v = jsparse::parse(br#"["\ud83dab",{"k\udc00":"\u0000"}]"#).unwrap();
        assert_eq!(stringify_len(&v), stringify(&v).encode_utf16().count());
        assert_eq!(utf16_len(v[0].as_str().unwrap()), 3);
    }

    #[test]
    fn stringify_lengths() {
        let v: Value = serde_json::from_str(r#"{"path":"a\"b\n","n":1.0,"x":[true,null],"u":"中😀"}"#).unwrap();
        assert_eq!(stringify(&v), r#"{"path":"a\"b\n","n":1,"x":[true,null],"u":"中😀"}"#);
        assert_eq!(stringify_len(&v), utf16_len(&stringify(&v)));
        assert_eq!(stringify_len(&json!("\u{1}")), 8);
    }
}
