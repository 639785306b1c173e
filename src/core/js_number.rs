//! JavaScript's `String(x)` (radix 10) for an `f64`.
//!
//! Summary ids (`msg-summary-{from}-{to}`) and the stored label embed turn
//! numbers exactly as `String(n)` renders them, and other readers match those
//! strings byte for byte, so Rust's own float formatting (`1e21` →
//! `"1000000000000000000000"`) is not good enough. ryu-js writes the
//! ECMAScript Number::toString form (`-0` → `"0"`, `NaN`, `Infinity`).

use std::fmt;

/// `String(x)` for a JS number.
pub fn js_number_to_string(x: f64) -> String {
    ryu_js::Buffer::new().format(x).to_owned()
}

/// Appends `String(x)` to `text`.
pub fn push_js_number(text: &mut String, x: f64) {
    text.push_str(ryu_js::Buffer::new().format(x));
}

/// Formats as `String(x)`: `format!("turn {}", JsNumber(x))`.
pub struct JsNumber(pub f64);

impl fmt::Display for JsNumber {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(ryu_js::Buffer::new().format(self.0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_are_written_as_javascript_does() {
        let cases: &[(f64, &str)] = &[
            (0.0, "0"),
            (-0.0, "0"),
            (7.0, "7"),
            (-3.0, "-3"),
            (9007199254740991.0, "9007199254740991"),
            (-9007199254740991.0, "-9007199254740991"),
            (9007199254740992.0, "9007199254740992"),
            (1152921504606846976.0, "1152921504606847000"),
            (-1152921504606846976.0, "-1152921504606847000"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "Infinity"),
            (f64::NEG_INFINITY, "-Infinity"),
        ];
        for (x, expected) in cases {
            assert_eq!(js_number_to_string(*x), *expected, "String({x:?})");
        }
        let mut text = String::from("n=");
        push_js_number(&mut text, -12.0);
        assert_eq!(format!("{text} {}", JsNumber(1e21)), "n=-12 1e+21");
    }

    #[test]
    fn fractions_and_large_magnitudes_too() {
        // Expected values are what `String(x)` prints in Node 20; the shared
        // Wasm suite checks ten of them against JS's own String.
        let cases: &[(f64, &str)] = &[
            (12.5, "12.5"),
            (0.1, "0.1"),
            (1e21, "1e+21"),
            (1e20, "100000000000000000000"),
            (123456789012345680000.0, "123456789012345680000"),
            (1.5e-7, "1.5e-7"),
            (0.000001, "0.000001"),
            (1e-7, "1e-7"),
            (9007199254740993.0, "9007199254740992"),
            (f64::MAX, "1.7976931348623157e+308"),
            (5e-324, "5e-324"),
            (2.5e21, "2.5e+21"),
            (-1.25e-10, "-1.25e-10"),
        ];
        for (x, expected) in cases {
            assert_eq!(js_number_to_string(*x), *expected, "String({x:?})");
        }
    }
}
