//! JavaScript's `Number.prototype.toString()` (radix 10) for an `f64`.
//!
//! Summary ids (`msg-summary-{from}-{to}`) and the stored label embed turn
//! numbers exactly as `String(n)` renders them, and other readers match those
//! strings byte for byte, so Rust's own float formatting (`1e21` →
//! `"1000000000000000000000"`) is not good enough.

/// `String(x)` for a JS number: shortest round-trip digits laid out per
/// ECMAScript Number::toString (`1e+21`, `1.5e-7`, `-0` → `"0"`).
pub fn js_number_to_string(x: f64) -> String {
    if x.is_nan() {
        return "NaN".to_owned();
    }
    if x == 0.0 {
        return "0".to_owned();
    }
    if x.is_infinite() {
        return if x > 0.0 { "Infinity" } else { "-Infinity" }.to_owned();
    }
    // Turns are small integers: exact as i64, no shortest-digits search needed.
    const EXACT_INTEGERS: f64 = 9_007_199_254_740_992.0;
    if x.fract() == 0.0 && x.abs() < EXACT_INTEGERS {
        return (x as i64).to_string();
    }
    let mut out = String::new();
    if x < 0.0 {
        out.push('-');
    }
    let (digits, n) = shortest_digits(x.abs());
    // ASCII digits, sliced as bytes: no str-boundary panic path in the Wasm.
    let digits = digits.as_bytes();
    let push = |out: &mut String, part: &[u8]| out.extend(part.iter().map(|&b| char::from(b)));
    let k = digits.len() as i32;
    if k <= n && n <= 21 {
        push(&mut out, digits);
        out.extend(std::iter::repeat_n('0', (n - k) as usize));
    } else if 0 < n && n <= 21 {
        let (integer, fraction) = digits.split_at(n as usize);
        push(&mut out, integer);
        out.push('.');
        push(&mut out, fraction);
    } else if -6 < n && n <= 0 {
        out.push_str("0.");
        out.extend(std::iter::repeat_n('0', (-n) as usize));
        push(&mut out, digits);
    } else {
        let e = n - 1;
        let (first, rest) = digits.split_at(1);
        push(&mut out, first);
        if k > 1 {
            out.push('.');
            push(&mut out, rest);
        }
        out.push('e');
        out.push(if e >= 0 { '+' } else { '-' });
        out.push_str(&e.abs().to_string());
    }
    out
}

/// ECMAScript's (digits, n) for a finite positive `x`: the shortest
/// round-trip digits without leading or trailing zeros, and the position of
/// the decimal point after `n` digits. Read off ryu's output (`1.5e-7`,
/// `123.0`, `1e21`): the same shortest digits as JS, in a fraction of the
/// Wasm that `core::fmt`'s float formatting costs.
fn shortest_digits(x: f64) -> (String, i32) {
    let mut buffer = ryu::Buffer::new();
    let text = buffer.format_finite(x);
    let (mantissa, exponent) = text.split_once('e').unwrap_or((text, "0"));
    let exponent: i32 = exponent.parse().unwrap_or(0);
    let (integer, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let all: String = integer.chars().chain(fraction.chars()).collect();
    let leading_zeros = all.len() - all.trim_start_matches('0').len();
    let digits = all.trim_matches('0').to_owned();
    (digits, integer.len() as i32 - leading_zeros as i32 + exponent)
}

#[cfg(test)]
mod tests {
    use super::js_number_to_string as s;

    #[test]
    fn matches_javascript_string_conversion() {
        // Expected values are what `String(x)` prints in Node 20.
        let cases: &[(f64, &str)] = &[
            (0.0, "0"),
            (-0.0, "0"),
            (7.0, "7"),
            (-3.0, "-3"),
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
            (f64::NAN, "NaN"),
            (f64::INFINITY, "Infinity"),
            (f64::NEG_INFINITY, "-Infinity"),
            (2.5e21, "2.5e+21"),
            (-1.25e-10, "-1.25e-10"),
        ];
        for (x, expected) in cases {
            assert_eq!(s(*x), *expected, "String({x:?})");
        }
    }
}
