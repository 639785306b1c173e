//! Token counts (`countTokens`, `triggerMinTokens`, `preserveRecentTokens`,
//! `minFoldTokens`):
//! each entry's content counted once per visit by the configured counter,
//! or `ceil(length / 4)` (UTF-16), agentfootprint's approximate counter.

use js_sys::{Function, JsString};
use wasm_bindgen::prelude::*;

use super::call;

/// `text`'s tokens, or what the counter gave instead of a count.
pub fn count(counter: Option<&Function>, text: &JsString) -> Result<f64, String> {
    let Some(counter) = counter else {
        return Ok((f64::from(text.length()) / 4.0).ceil());
    };
    call::number_returned(counter.call1(&JsValue::UNDEFINED, text), |n| n.is_finite() && n >= 0.0)
}
