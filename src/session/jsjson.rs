//! How JavaScript sees JSON values: `JSON.stringify` text and string lengths in UTF-16 code
//! units. Pi's token estimates count `.length` of strings and of `JSON.stringify(...)`, so
//! matching its numbers means counting the way JavaScript does.

use serde_json::Value;

/// `s.length` in JavaScript.
pub fn utf16_len(s: &str) -> usize {
    s.chars().map(char::len_utf16).sum()
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

/// `JSON.stringify(v)`, for the values Pi serializes into prompts.
pub fn stringify(v: &Value) -> String {
    match v {
        Value::Number(n) => number_text(n),
        Value::Array(a) => format!("[{}]", a.iter().map(stringify).collect::<Vec<_>>().join(",")),
        Value::Object(o) => format!(
            "{{{}}}",
            o.iter()
                .map(|(k, v)| format!("{}:{}", Value::String(k.clone()), stringify(v)))
                .collect::<Vec<_>>()
                .join(",")
        ),
        // serde_json escapes strings exactly as JSON.stringify does (", \, and controls).
        other => other.to_string(),
    }
}

fn string_len(s: &str) -> usize {
    2 + s
        .chars()
        .map(|c| match c {
            '"' | '\\' | '\u{8}' | '\u{c}' | '\n' | '\r' | '\t' => 2,
            c if (c as u32) < 0x20 => 6,
            c => c.len_utf16(),
        })
        .sum::<usize>()
}

/// A number as JavaScript prints it (`Number.prototype.toString`).
pub fn number_text(n: &serde_json::Number) -> String {
    if n.is_i64() || n.is_u64() {
        return n.to_string();
    }
    js_number(n.as_f64().unwrap_or(f64::NAN))
}

/// A JavaScript number as a JSON value: whole numbers without a fraction, others printed
/// as JavaScript prints them (`NaN` and infinities, which JSON cannot hold, as `null`).
pub fn number(n: f64) -> Value {
    if n.fract() == 0.0 && n.abs() < 9_007_199_254_740_992.0 {
        Value::from(n as i64)
    } else {
        serde_json::from_str(&js_number(n)).unwrap_or(Value::Null)
    }
}

/// ECMAScript Number::toString for finite doubles.
pub fn js_number(f: f64) -> String {
    if f.is_nan() {
        return "NaN".into();
    }
    if f == 0.0 {
        return "0".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "Infinity".into() } else { "-Infinity".into() };
    }
    let sign = if f < 0.0 { "-" } else { "" };
    // Shortest round-trip digits and exponent, from Rust's `{:e}`.
    let e = format!("{:e}", f.abs());
    let (mantissa, exp) = e.split_once('e').expect("exponent form");
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let k = digits.len() as i32;
    let n = exp.parse::<i32>().expect("exponent") + 1; // the decimal point's position
    let body = if k <= n && n <= 21 {
        format!("{digits}{}", "0".repeat((n - k) as usize))
    } else if 0 < n && n <= 21 {
        format!("{}.{}", &digits[..n as usize], &digits[n as usize..])
    } else if -6 < n && n <= 0 {
        format!("0.{}{digits}", "0".repeat((-n) as usize))
    } else {
        let e = n - 1;
        let es = if e >= 0 { format!("+{e}") } else { e.to_string() };
        if k == 1 {
            format!("{digits}e{es}")
        } else {
            format!("{}.{}e{es}", &digits[..1], &digits[1..])
        }
    };
    format!("{sign}{body}")
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
    }

    #[test]
    fn stringify_lengths() {
        let v: Value = serde_json::from_str(r#"{"path":"a\"b\n","n":1.0,"x":[true,null],"u":"中😀"}"#).unwrap();
        assert_eq!(stringify(&v), r#"{"path":"a\"b\n","n":1,"x":[true,null],"u":"中😀"}"#);
        assert_eq!(stringify_len(&v), utf16_len(&stringify(&v)));
        assert_eq!(stringify_len(&json!("\u{1}")), 8);
    }
}
