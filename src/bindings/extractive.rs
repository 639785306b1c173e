//! JS entry points of the offline `extractive` summarizer (core/extractive.rs).
//! The package entry wraps them as `extractive(options) => async (messages) => text`.

use js_sys::{Array, JsString, Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::config::{count, to_js_error, unreadable_object};
use super::js::{self, describe, plain_copy_with};
use crate::core::config::{ConfigError, EXTRACTIVE_CALL, EXTRACTIVE_MAX_CHARS};
use crate::core::extractive::{summarize, Message, DEFAULT_MAX_CHARS};

/// Validates `extractive(options)` and returns its budget; throws on bad
/// options. They are read once, as `summarize`'s are: a key it does not
/// take (`maxchars`) is refused, not ignored.
#[wasm_bindgen(js_name = extractiveBudget)]
pub fn extractive_budget(options: JsValue) -> Result<f64, JsValue> {
    if options.is_undefined() {
        return Ok(DEFAULT_MAX_CHARS as f64);
    }
    let refusal = |found: &str| to_js_error(ConfigError::extractive_options(found));
    if !options.is_object() || options.is_function() || js::is_array(&options).unwrap_or(true) {
        return Err(refusal(&describe(&options)));
    }
    // A `maxChars` a class or prototype gives is read once too.
    let fields =
        plain_copy_with(&options, &[EXTRACTIVE_MAX_CHARS]).map_err(|error| refusal(&unreadable_object(&error)))?;
    for key in Object::keys(&fields) {
        let name = String::from(key.unchecked_ref::<JsString>());
        if name != EXTRACTIVE_MAX_CHARS {
            return Err(refusal(&format!("an object with `{name}`")));
        }
    }
    let max_chars = Reflect::get(&fields, &JsValue::from_str(EXTRACTIVE_MAX_CHARS)).unwrap_or_default();
    count(EXTRACTIVE_CALL, &max_chars, EXTRACTIVE_MAX_CHARS, DEFAULT_MAX_CHARS).map(|n| n as f64).map_err(to_js_error)
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
