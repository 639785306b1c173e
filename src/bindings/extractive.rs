//! JS entry points of the offline `extractive` summarizer (core/extractive.rs).
//! The package entry wraps them as `extractive(options) => async (messages) => text`.

use js_sys::{JsString, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::config::{count, options_object, unreadable_object};
use super::js::{self, describe};
use super::Refusal;
use crate::core::config::{ConfigError, EXTRACTIVE_CALL, EXTRACTIVE_MAX_CHARS};
use crate::core::extractive::{summarize, Message, DEFAULT_MAX_CHARS};
use crate::core::format::MAX_ROLE_UNITS;
use crate::core::recall::{MAX_CONTENT_UNITS, MAX_ENTRIES};

/// Validates `extractive(options)` and returns its budget; throws on bad
/// options. They are read once, as `summarize`'s are: a key it does not
/// take (`maxchars`) is refused, not ignored.
#[wasm_bindgen(js_name = extractiveBudget)]
pub fn extractive_budget(options: JsValue) -> Result<f64, Refusal> {
    if options.is_undefined() {
        return Ok(DEFAULT_MAX_CHARS as f64);
    }
    // A `maxChars` a class or prototype gives is read once too.
    let fields =
        options_object(&options, &[EXTRACTIVE_MAX_CHARS], &[EXTRACTIVE_MAX_CHARS], ConfigError::extractive_options)?;
    let max_chars = Reflect::get(&fields, &JsValue::from_str(EXTRACTIVE_MAX_CHARS)).unwrap_or_default();
    Ok(count(EXTRACTIVE_CALL, &max_chars, EXTRACTIVE_MAX_CHARS, DEFAULT_MAX_CHARS)? as f64)
}

/// The summary of `messages` (the stage's callback shape: the instruction
/// first, as a `system` message, which is skipped), within `max_chars`.
/// What is copied into the instance is bounded as a recall is: a role's
/// first [`MAX_ROLE_UNITS`], and at most [`MAX_ENTRIES`] messages holding
/// [`MAX_CONTENT_UNITS`] of content in all (more is refused, a failure of
/// this call alone).
#[wasm_bindgen(js_name = extractiveSummary)]
pub fn extractive_summary(messages: JsValue, max_chars: f64) -> Result<String, Refusal> {
    let refused = |found: &str| Refusal::from(ConfigError::extractive_messages(found));
    // Read by calls that catch, as a recall is: the array may be a Proxy that throws.
    if !js::is_array(&messages).unwrap_or(false) {
        return Err(refused(&describe(&messages)));
    }
    let messages =
        js::copy_up_to(&messages, MAX_ENTRIES as u32 + 1).map_err(|error| refused(&unreadable_object(&error)))?;
    if messages.length() as usize > MAX_ENTRIES + 1 {
        let more = MAX_ENTRIES + 1;
        return Err(refused(&format!(
            "an array of more than {more} messages, more than a recall of {MAX_ENTRIES} entries gives"
        )));
    }
    let mut units = 0usize;
    let mut text: Vec<(String, String)> = Vec::new();
    for message in messages.iter() {
        let field = |key: &str| {
            Reflect::get(&message, &JsValue::from_str(key)).ok().and_then(|v| v.dyn_into::<JsString>().ok())
        };
        let content = field("content");
        units = units.saturating_add(content.as_ref().map_or(0, |content| content.length() as usize));
        if units > MAX_CONTENT_UNITS {
            let found =
                format!("{} messages holding more than {MAX_CONTENT_UNITS} chars of content", messages.length());
            return Err(refused(&found));
        }
        let role =
            field("role").map_or_else(|| "unknown".to_owned(), |role| String::from(role.slice(0, MAX_ROLE_UNITS)));
        text.push((role, content.map(String::from).unwrap_or_default()));
    }
    let skip = usize::from(text.first().is_some_and(|(role, _)| role == "system"));
    let borrowed: Vec<Message<'_>> = text[skip..].iter().map(|(role, content)| Message { role, content }).collect();
    Ok(summarize(&borrowed, max_chars as usize))
}
