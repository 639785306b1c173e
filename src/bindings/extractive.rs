//! JS entry points of the offline `extractive` summarizer (core/extractive.rs).
//! The package entry wraps them as `extractive(options) => async (messages) => text`.

use js_sys::{Array, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::config::{count, to_js_error};
use super::js::describe;
use crate::core::config::{ConfigError, EXTRACTIVE_CALL};
use crate::core::extractive::{summarize, Message, DEFAULT_MAX_CHARS};

/// Validates `extractive(options)` and returns its budget; throws on bad options.
#[wasm_bindgen(js_name = extractiveBudget)]
pub fn extractive_budget(options: JsValue) -> Result<f64, JsValue> {
    if options.is_undefined() {
        return Ok(DEFAULT_MAX_CHARS as f64);
    }
    if !options.is_object() {
        return Err(to_js_error(ConfigError::extractive_options(&describe(&options))));
    }
    let max_chars = Reflect::get(&options, &JsValue::from_str("maxChars")).unwrap_or(JsValue::UNDEFINED);
    count(EXTRACTIVE_CALL, &max_chars, "maxChars", DEFAULT_MAX_CHARS).map(|n| n as f64).map_err(to_js_error)
}

/// The summary of `messages` (the stage's callback shape: the instruction
/// first, as a `system` message, which is skipped), within `max_chars`.
#[wasm_bindgen(js_name = extractiveSummary)]
pub fn extractive_summary(messages: JsValue, max_chars: f64) -> Result<String, JsValue> {
    let Some(messages) = messages.dyn_ref::<Array>() else {
        return Err(to_js_error(ConfigError::extractive_messages(&describe(&messages))));
    };
    let text: Vec<(String, String)> = messages
        .iter()
        .map(|message| {
            let field = |key: &str| Reflect::get(&message, &JsValue::from_str(key)).ok().and_then(|v| v.as_string());
            (field("role").unwrap_or_else(|| "unknown".to_owned()), field("content").unwrap_or_default())
        })
        .collect();
    let skip = usize::from(text.first().is_some_and(|(role, _)| role == "system"));
    let borrowed: Vec<Message<'_>> = text[skip..].iter().map(|(role, content)| Message { role, content }).collect();
    Ok(summarize(&borrowed, max_chars as usize))
}
