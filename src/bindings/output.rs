//! Hands the core's shapes (`core::shapes`) to JS as plain objects. A JS
//! value goes in as [`AsIs`] and passes through untouched
//! (`serde_wasm_bindgen::preserve`): the caller's own ids, identities and
//! entries, and what the stage made in JS (the summary's text, a signal).

use serde::Serialize;
use wasm_bindgen::JsValue;

/// Plain objects and arrays only (SPEC §1): footprintjs clones what it is given.
pub fn to_js(value: &impl Serialize) -> JsValue {
    let serializer = serde_wasm_bindgen::Serializer::json_compatible();
    // Serializing these types cannot fail: every field is a number, a string,
    // a struct of them or a preserved JS value.
    value.serialize(&serializer).unwrap_or(JsValue::UNDEFINED)
}

/// A JS value placed into a shape as it is.
#[derive(Serialize)]
#[serde(transparent)]
pub struct AsIs(#[serde(with = "serde_wasm_bindgen::preserve")] pub JsValue);

impl AsIs {
    pub fn of(value: impl Into<JsValue>) -> AsIs {
        AsIs(value.into())
    }
}
