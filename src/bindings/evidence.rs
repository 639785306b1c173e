//! An event's evidence, packed for glue.js's `emitEvent`, which builds the
//! plain object from it: three numbers per field (key, kind, value). A text
//! field's value is its UTF-16 length; its characters go to the end of the
//! event's one text string, so they cross with the reason in one decode.

use js_sys::{Array, JsString};
use wasm_bindgen::JsValue;

use crate::core::fields::{FieldWriter, Key};
use crate::core::format::utf16_len;

// Field kinds; must match the FIELD_* constants in glue.js.
const BOOL: f64 = 0.0;
const NUMBER: f64 = 1.0;
const TEXT: f64 = 2.0;
const OPEN: f64 = 3.0;
const CLOSE: f64 = 4.0;

pub struct PackedFields<'a> {
    pub numbers: Vec<f64>,
    /// The event's text, which the text fields' characters are appended to.
    pub text: &'a mut String,
}

impl PackedFields<'_> {
    fn push(&mut self, key: Key, kind: f64, value: f64) {
        self.numbers.extend_from_slice(&[f64::from(key as u8), kind, value]);
    }
}

impl FieldWriter for PackedFields<'_> {
    fn bool(&mut self, key: Key, value: bool) {
        self.push(key, BOOL, f64::from(u8::from(value)));
    }

    fn number(&mut self, key: Key, value: f64) {
        self.push(key, NUMBER, value);
    }

    fn text(&mut self, key: Key, value: &str) {
        self.push(key, TEXT, utf16_len(value) as f64);
        self.text.push_str(value);
    }

    fn open(&mut self, key: Key) {
        self.push(key, OPEN, 0.0);
    }

    fn close(&mut self) {
        // The key is not read: a close ends the innermost open object.
        self.push(Key::Usage, CLOSE, 0.0);
    }
}

/// The key names, indexed by `Key as usize`, as glue.js reads `key` fields.
pub fn key_names() -> Array {
    Key::ALL.iter().map(|key| JsValue::from(JsString::from(key.name()))).collect()
}
