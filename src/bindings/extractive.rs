//! JS entry points of the offline `extractive` summarizer (core/extractive.rs).
//! The package entry wraps them as `extractive(options) => async (messages) => text`.

use js_sys::{Array, Reflect};
use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;

use super::glue::describe;
use crate::core::config::{count_option, ConfigError, ErrorClass};
use crate::core::extractive::{summarize, Message, DEFAULT_MAX_CHARS};

/// Validates `extractive(options)` and returns its budget; throws on bad options.
#[wasm_bindgen(js_name = extractiveBudget)]
pub fn extractive_budget(options: JsValue) -> Result<f64, JsValue> {
    let refuse = |error: ConfigError| -> JsValue { super::config::to_js_error(error) };
    if options.is_undefined() {
        return Ok(DEFAULT_MAX_CHARS as f64);
    }
    if !options.is_object() {
        return Err(refuse(ConfigError::invalid(
            ErrorClass::TypeError,
            "options",
            "an object like { maxChars }",
            &describe(&options),
            "Fix: call extractive() or extractive({ maxChars: 800 }).",
        )));
    }
    let max_chars = Reflect::get(&options, &JsValue::from_str("maxChars")).unwrap_or(JsValue::UNDEFINED);
    if max_chars.is_undefined() {
        return Ok(DEFAULT_MAX_CHARS as f64);
    }
    let Some(value) = max_chars.as_f64() else {
        return Err(refuse(ConfigError::invalid(
            ErrorClass::TypeError,
            "maxChars",
            "a non-negative integer",
            &describe(&max_chars),
            "Fix: pass a number of characters, or omit it for 1200.",
        )));
    };
    count_option("maxChars", value, DEFAULT_MAX_CHARS).map(|n| n as f64).map_err(refuse)
}

/// The summary of `messages` (the stage's callback shape: the instruction
/// first, as a `system` message, which is skipped), within `max_chars`.
#[wasm_bindgen(js_name = extractiveSummary)]
pub fn extractive_summary(messages: JsValue, max_chars: f64) -> Result<String, JsValue> {
    let Some(messages) = messages.dyn_ref::<Array>() else {
        return Err(js_sys::TypeError::new(&format!(
            "extractive: `messages` must be an array of {{ role, content }}; received {}.",
            describe(&messages)
        ))
        .into());
    };
    let text: Vec<(String, String)> = messages
        .iter()
        .map(|message| {
            let field = |key: &str| Reflect::get(&message, &JsValue::from_str(key)).ok().and_then(|v| v.as_string());
            (field("role").unwrap_or_else(|| "unknown".to_owned()), field("content").unwrap_or_default())
        })
        .collect();
    let skip = usize::from(text.first().is_some_and(|(role, _)| role == "system"));
    let borrowed: Vec<Message<'_>> =
        text[skip..].iter().map(|(role, content)| Message { role, content }).collect();
    Ok(summarize(&borrowed, max_chars as usize))
}
