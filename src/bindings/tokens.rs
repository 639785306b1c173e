//! Token counts (`countTokens`, `triggerMinTokens`, `preserveRecentTokens`,
//! `minFoldTokens`):
//! each entry's content counted once per visit by the configured counter,
//! or `ceil(length / 4)` (UTF-16), agentfootprint's approximate counter.

use js_sys::{Function, JsString};
use wasm_bindgen::prelude::*;

use super::call;
use super::recall::Recall;
use crate::core::events::InvalidSpot;

/// Counts every entry's content into its facts; the first entry the counter
/// gives no count for is the visit's invalid input.
pub fn count_recall(counter: Option<&Function>, recall: &mut Recall) -> Result<(), InvalidSpot> {
    for (index, loaded) in recall.entries.iter().enumerate() {
        let tokens = match &loaded.content {
            Some(text) if text.length() > 0 => count(counter, text),
            _ => Ok(0.0),
        };
        recall.facts[index].tokens = tokens.map_err(|found| InvalidSpot::uncounted(index, found))?;
    }
    Ok(())
}

/// `text`'s tokens, or what the counter gave instead of a count.
pub fn count(counter: Option<&Function>, text: &JsString) -> Result<f64, String> {
    let Some(counter) = counter else {
        return Ok((f64::from(text.length()) / 4.0).ceil());
    };
    call::number_returned(counter.call1(&JsValue::UNDEFINED, text), |n| n.is_finite() && n >= 0.0)
}
