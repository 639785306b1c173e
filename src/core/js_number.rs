//! JavaScript's `String(x)` (radix 10) for an `f64`.
//!
//! Summary ids (`msg-summary-{from}-{to}`) and the stored label embed turn
//! numbers exactly as `String(n)` renders them, and other readers match those
//! strings byte for byte, so Rust's own float formatting (`1e21` →
//! `"1000000000000000000000"`) is not good enough.
//!
//! Turns are small integers, written here. Anything else (fractions, and
//! magnitudes from 2^53 up, where JS switches to exponent form at 1e21) is
//! written by the host: in the package that is JavaScript's own `String`,
//! installed by the bindings before any stage exists. It is exact by
//! definition and keeps a shortest-digits algorithm out of the Wasm (ryu
//! cost about 4 KB gzipped of the module's 40 KB budget).

use std::sync::OnceLock;

/// Writes a finite number the integer path does not cover, as `String(x)`.
pub type HostNumberText = fn(f64) -> String;

static HOST_NUMBER_TEXT: OnceLock<HostNumberText> = OnceLock::new();

/// Installs the host's `String(x)`. The first installation wins.
pub fn install_host_number_text(text: HostNumberText) {
    let _ = HOST_NUMBER_TEXT.set(text);
}

/// Below this, every integer-valued f64 is exact as an i64 and JS writes it
/// in plain digits.
const EXACT_INTEGERS: f64 = 9_007_199_254_740_992.0;

/// `String(x)` for a JS number (`-0` → `"0"`, `NaN`, `Infinity`).
pub fn js_number_to_string(x: f64) -> String {
    let mut text = String::new();
    push_js_number(&mut text, x);
    text
}

/// Appends `String(x)` to `text`. Integers, the usual case, are written
/// without allocating and without `core::fmt`: they are in every summary id,
/// reason and label length.
pub fn push_js_number(text: &mut String, x: f64) {
    if x.is_nan() {
        text.push_str("NaN");
    } else if x.is_infinite() {
        text.push_str(if x > 0.0 { "Infinity" } else { "-Infinity" });
    } else if x.fract() == 0.0 && x.abs() < EXACT_INTEGERS {
        // `as i64` also turns -0 into 0, as JS writes it.
        let value = x as i64;
        if value < 0 {
            text.push('-');
        }
        push_digits(text, value.unsigned_abs());
    } else {
        match HOST_NUMBER_TEXT.get() {
            Some(host) => text.push_str(&host(x)),
            // No host installed: never the case in the package (the bindings
            // install one at start). Written so that any test that forgets fails.
            None => text.push_str("NaN"),
        }
    }
}

/// Appends a count in decimal digits, as `String(n)` writes it.
pub fn push_count(text: &mut String, count: usize) {
    push_digits(text, count as u64);
}

/// Appends the decimal digits of `value`.
fn push_digits(text: &mut String, mut value: u64) {
    let mut digits = [0u8; 20];
    let mut start = digits.len();
    loop {
        start -= 1;
        digits[start] = b'0' + (value % 10) as u8;
        value /= 10;
        if value == 0 {
            break;
        }
    }
    for &digit in &digits[start..] {
        text.push(char::from(digit));
    }
}

/// A host for native tests: JS's Number::toString layout over Rust's shortest
/// round-trip digits (`{:e}`), checked against Node's output in the tests
/// below. Tests that write non-integers install it; one host per process.
#[cfg(test)]
pub(crate) fn install_test_host() {
    install_host_number_text(|x| {
        let text = format!("{:e}", x.abs());
        let (mantissa, exponent) = text.split_once('e').unwrap();
        let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
        let digits = digits.trim_end_matches('0');
        let (k, n) = (digits.len() as i32, exponent.parse::<i32>().unwrap() + 1);
        let body = if k <= n && n <= 21 {
            format!("{digits}{}", "0".repeat((n - k) as usize))
        } else if 0 < n && n <= 21 {
            format!("{}.{}", &digits[..n as usize], &digits[n as usize..])
        } else if -6 < n && n <= 0 {
            format!("0.{}{digits}", "0".repeat((-n) as usize))
        } else {
            let fraction = if k > 1 { format!(".{}", &digits[1..]) } else { String::new() };
            format!("{}{fraction}e{}{}", &digits[..1], if n > 0 { "+" } else { "-" }, (n - 1).abs())
        };
        format!("{}{body}", if x < 0.0 { "-" } else { "" })
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn integers_are_written_here_as_javascript_does() {
        let cases: &[(f64, &str)] = &[
            (0.0, "0"),
            (-0.0, "0"),
            (7.0, "7"),
            (-3.0, "-3"),
            (9007199254740991.0, "9007199254740991"),
            (-9007199254740991.0, "-9007199254740991"),
            (f64::NAN, "NaN"),
            (f64::INFINITY, "Infinity"),
            (f64::NEG_INFINITY, "-Infinity"),
        ];
        for (x, expected) in cases {
            assert_eq!(js_number_to_string(*x), *expected, "String({x:?})");
        }
        let mut text = String::from("n=");
        push_digits(&mut text, u64::MAX);
        push_js_number(&mut text, -12.0);
        assert_eq!(text, "n=18446744073709551615-12");
    }

    #[test]
    fn everything_else_is_the_hosts_text() {
        install_test_host();
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
