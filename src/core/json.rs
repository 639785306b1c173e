//! JSON text for the evidence objects events carry; the bindings hand it to
//! `JSON.parse`, which builds the plain object in one step.
//!
//! Written by hand rather than through serde: serde-wasm-bindgen and the
//! derived serializers cost about 3 KB of the module's 40 KB gzipped budget
//! for seven small objects. Keys keep the order they are written in, which is
//! the order SPEC §4 gives.

use super::js_number::{push_digits, push_js_number};

/// One JSON object, written key by key. Keys are the package's own camelCase
/// literals and are written as they are; string values are escaped.
pub struct JsonObject {
    text: String,
    /// Where the object's `{` is in `text`.
    start: usize,
}

impl Default for JsonObject {
    fn default() -> Self {
        JsonObject::after(String::new())
    }
}

impl JsonObject {
    /// An object written at the end of `text`, after what it already holds.
    pub fn after(mut text: String) -> Self {
        let start = text.len();
        text.push('{');
        JsonObject { text, start }
    }

    fn key(&mut self, key: &str) -> &mut Self {
        if self.text.len() > self.start + 1 {
            self.text.push(',');
        }
        self.text.push('"');
        self.text.push_str(key);
        self.text.push_str("\":");
        self
    }

    pub fn bool(&mut self, key: &str, value: bool) -> &mut Self {
        self.key(key).text.push_str(if value { "true" } else { "false" });
        self
    }

    pub fn count(&mut self, key: &str, value: usize) -> &mut Self {
        push_digits(&mut self.key(key).text, value as u64);
        self
    }

    /// A JS number. JSON has no NaN or Infinity: those are written as null.
    pub fn number(&mut self, key: &str, value: f64) -> &mut Self {
        let text = &mut self.key(key).text;
        if value.is_finite() {
            push_js_number(text, value);
        } else {
            text.push_str("null");
        }
        self
    }

    pub fn string(&mut self, key: &str, value: &str) -> &mut Self {
        self.key(key).text.push('"');
        for c in value.chars() {
            match c {
                '"' => self.text.push_str("\\\""),
                '\\' => self.text.push_str("\\\\"),
                c if u32::from(c) < 0x20 => {
                    const HEX: &[u8; 16] = b"0123456789abcdef";
                    let code = u32::from(c) as usize;
                    self.text.push_str("\\u00");
                    self.text.push(char::from(HEX[code >> 4]));
                    self.text.push(char::from(HEX[code & 0xf]));
                }
                c => self.text.push(c),
            }
        }
        self.text.push('"');
        self
    }

    pub fn object(&mut self, key: &str, value: JsonObject) -> &mut Self {
        self.key(key).text.push_str(&value.finish());
        self
    }

    pub fn finish(mut self) -> String {
        self.text.push('}');
        self.text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_keys_in_order_and_escapes_strings() {
        let mut inner = JsonObject::default();
        inner.number("input", 1.0).number("output", f64::NAN);
        let mut object = JsonObject::default();
        object
            .bool("called", false)
            .count("chars", 1200)
            .string("model", "a \"quoted\" \\ name\n\u{1}中😀")
            .object("usage", inner);
        assert_eq!(
            object.finish(),
            r#"{"called":false,"chars":1200,"model":"a \"quoted\" \\ name\u000a\u0001中😀","usage":{"input":1,"output":null}}"#
        );
        assert_eq!(JsonObject::default().finish(), "{}");
        let mut after = JsonObject::after("reason ".to_owned());
        after.bool("first", true);
        assert_eq!(after.finish(), r#"reason {"first":true}"#);
    }
}
