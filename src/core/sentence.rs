//! Reason sentences, written piece by piece into one buffer.
//!
//! Every visit that changes recall explains itself with a sentence, so
//! building one is on the hot path. `format!` cost a `core::fmt` walk plus a
//! `String` for each nested piece (a plural, a number, a span's description):
//! about 0.2 µs of a 3 µs coverage turn in the Wasm profile. Here each piece
//! is appended to a buffer allocated once, and numbers are written with
//! `push_js_number`, as `String(n)` writes them.

use super::js_number::{push_count, push_js_number};

/// A reason being written. `Sentence::new().text("a ").count(3).done()` is `"a 3"`.
pub struct Sentence(String);

/// Room for the usual sentence and what an event appends to it (the
/// evidence's text fields and the added id), so most never regrow: reasons
/// run 60–220 bytes, more with a coalesced run's ending or a failure's
/// cause. (The module's allocator rounds a request up to a power of two
/// anyway.)
const USUAL_CAPACITY: usize = 256;

impl Sentence {
    pub fn new() -> Self {
        Sentence(String::with_capacity(USUAL_CAPACITY))
    }

    pub fn text(mut self, text: &str) -> Self {
        self.0.push_str(text);
        self
    }

    /// A count, in decimal digits.
    pub fn count(mut self, count: usize) -> Self {
        push_count(&mut self.0, count);
        self
    }

    /// A JS number, as `String(x)` writes it (turn numbers may be fractions).
    pub fn number(mut self, x: f64) -> Self {
        push_js_number(&mut self.0, x);
        self
    }

    /// `"1 entry"`, `"2 entries"`: the count, a space, then `one` or `many`.
    pub fn plural(self, count: usize, one: &str, many: &str) -> Self {
        self.count(count).text(" ").text(if count == 1 { one } else { many })
    }

    pub fn done(self) -> String {
        self.0
    }
}

impl Default for Sentence {
    fn default() -> Self {
        Self::new()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_are_written_in_order() {
        crate::core::js_number::install_test_host();
        let text = Sentence::new()
            .plural(1, "entry", "entries")
            .text(", ")
            .plural(0, "entry", "entries")
            .text(", ")
            .plural(12, "stored summary", "stored summaries")
            .text(" (turns ")
            .number(-0.0)
            .text("\u{2013}")
            .number(2.5)
            .text(", ")
            .count(usize::MAX)
            .text(")")
            .done();
        assert_eq!(text, format!("1 entry, 0 entries, 12 stored summaries (turns 0\u{2013}2.5, {})", usize::MAX));
    }
}
