//! Hands the core's shapes (`core::shapes`) to JS as plain objects. What is
//! the caller's own (ids, identities, entries, the summarizer's text) goes
//! in as [`Own`] and passes through untouched (`serde_wasm_bindgen::preserve`).

use serde::Serialize;
use wasm_bindgen::JsValue;

/// Plain objects and arrays only (SPEC §1): footprintjs clones what it is given.
pub fn to_js(value: &impl Serialize) -> JsValue {
    let serializer = serde_wasm_bindgen::Serializer::json_compatible();
    // Serializing these types cannot fail: every field is a number, a string,
    // a struct of them or a preserved JS value.
    value.serialize(&serializer).unwrap_or(JsValue::UNDEFINED)
}

/// A JS value of the caller's (or one the stage made, such as an array of
/// the caller's ids), placed into a shape as it is.
#[derive(Serialize)]
#[serde(transparent)]
pub struct Own(#[serde(with = "serde_wasm_bindgen::preserve")] pub JsValue);

impl Own {
    pub fn of(value: impl Into<JsValue>) -> Own {
        Own(value.into())
    }
}
