//! Checks a stage's config at build time (SPEC §3): every refusal is thrown
//! by `summarize(config)` at once. The rules and the words are the core's.

use js_sys::{JsString, Object};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::call;
use super::js::{self, cause_of, describe, plain_copy, Callee};
use super::stage::option;
use crate::core::config::{
    claim_lease_option, count_option, keep_details_option, max_summaries_option, timeout_option, token_options,
    trigger_chars_option, ttl_option, ConfigError, ErrorClass, Key, Shape, StageConfig, Tier, KEEP_DETAILS_KEYS,
    KNOWN_KEYS, SUMMARIZE_CALL,
};
use crate::core::details::PinBounds;
use crate::core::format::DEFAULT_STRATEGY_ID;

/// The config's own enumerable properties, copied as `{ ...config }` reads
/// them (once: later changes to the object change nothing), and checked.
pub fn checked_copy(config: &JsValue) -> Result<Object, ConfigError> {
    let refusal = |found: &str| {
        ConfigError::invalid(
            SUMMARIZE_CALL,
            ErrorClass::TypeError,
            "config",
            "an object",
            found,
            "Fix: call summarize({ llm, ... }).",
        )
    };
    if !config.is_object() {
        return Err(refusal(&describe(config)));
    }
    let copy = plain_copy(config)
        .map_err(|error| refusal(&format!("an object that cannot be read (reading it threw: {})", cause_of(&error))))?;
    check(&copy)?;
    check_keys(&copy)?;
    Ok(copy)
}

/// Refuses a key the stage does not read: it would be dropped silently.
fn check_keys(copy: &Object) -> Result<(), ConfigError> {
    for key in Object::keys(copy) {
        let name = String::from(key.unchecked_ref::<JsString>());
        if !KNOWN_KEYS.contains(&name.as_str()) {
            return Err(ConfigError::unknown_key(
                &name,
                &describe(&js_sys::Reflect::get(copy, &key).unwrap_or_default()),
            ));
        }
    }
    Ok(())
}

/// Checks every option.
fn check(copy: &Object) -> Result<(), ConfigError> {
    let get = |key| Some(option(copy, key)).filter(|value| !value.is_undefined());
    let llm = option(copy, Key::Llm);
    let model = get(Key::Model);
    if llm.is_function() {
        if let Some(model) = model {
            return Err(ConfigError::model_with_callback(&describe(&model)));
        }
    } else {
        if !(llm.is_object() && call::method(&llm, "llm.complete", Callee::complete).is_ok()) {
            return Err(ConfigError::invalid(
                SUMMARIZE_CALL,
                ErrorClass::TypeError,
                Key::Llm.name(),
                "a provider (an object with a `complete` method) or a callback `(messages) => Promise<string>`",
                &describe(&llm),
                "Fix: pass your LLM provider with `model`, or an async function that returns the summary text.",
            ));
        }
        if !model.as_ref().and_then(|model| model.dyn_ref::<JsString>()).is_some_and(|model| model.length() > 0) {
            return Err(ConfigError::model_required(&describe(&option(copy, Key::Model))));
        }
    }

    let store = get(Key::Store);
    if let Some(store) = &store {
        if !(store.is_object() && call::method(store, "store.put", Callee::put).is_ok()) {
            return Err(ConfigError::invalid(
                SUMMARIZE_CALL,
                ErrorClass::TypeError,
                Key::Store.name(),
                "an object with a `put(identity, entry)` method",
                &describe(store),
                "Fix: pass your memory store, or omit `store` to fold without writing back.",
            ));
        }
    }

    let number_option = |key: Key| get(key).map_or(Ok(None), |value| number(SUMMARIZE_CALL, &value, key.name()));
    let defaults = StageConfig::new(Shape::Callback);
    for (key, default) in [
        (Key::TriggerMinEntries, defaults.trigger_min_entries),
        (Key::PreserveRecent, defaults.preserve_recent),
        (Key::MinFoldEntries, defaults.min_fold_entries),
    ] {
        number_option(key)?.map(|n| count_option(SUMMARIZE_CALL, key.name(), n, default)).transpose()?;
    }
    number_option(Key::MaxSummaries)?.map(max_summaries_option).transpose()?;
    number_option(Key::TriggerMinChars)?.map(trigger_chars_option).transpose()?;
    number_option(Key::TtlMs)?.map(|n| ttl_option(Key::TtlMs.name(), n)).transpose()?;
    let timeout_ms = number_option(Key::TimeoutMs)?.map(|n| timeout_option(Key::TimeoutMs.name(), n)).transpose()?;
    let string = |key: Key, fix: String| match get(key) {
        Some(value) if !value.is_string() => Err(ConfigError::invalid(
            SUMMARIZE_CALL,
            ErrorClass::TypeError,
            key.name(),
            "a string",
            &describe(&value),
            &fix,
        )),
        _ => Ok(()),
    };
    string(Key::SystemPrompt, "Fix: pass the instruction text, or omit it for the default.".to_owned())?;
    string(Key::StrategyId, format!("Fix: pass a name, or omit it for '{DEFAULT_STRATEGY_ID}'."))?;
    if let Some(tier) = get(Key::SummaryTier) {
        if tier.as_string().as_deref().and_then(Tier::parse).is_none() {
            return Err(ConfigError::invalid(
                SUMMARIZE_CALL,
                if tier.is_string() { ErrorClass::RangeError } else { ErrorClass::TypeError },
                Key::SummaryTier.name(),
                "'hot', 'warm' or 'cold'",
                &describe(&tier),
                &format!("Fix: pick one of the three, or omit it for '{}'.", Tier::DEFAULT.as_str()),
            ));
        }
    }
    let claims = match get(Key::Claims) {
        None => false,
        Some(claims) => claims.as_bool().ok_or_else(|| {
            ConfigError::invalid(
                SUMMARIZE_CALL,
                ErrorClass::TypeError,
                Key::Claims.name(),
                "a boolean",
                &describe(&claims),
                "Fix: pass true to claim each span through the store before paying for it, or omit it.",
            )
        })?,
    };
    claim_lease_option(claims, number_option(Key::ClaimLeaseMs)?, timeout_ms, store.is_some())?;
    let function = |key: Key, fix: &str| match get(key) {
        Some(value) if !value.is_function() => Err(ConfigError::invalid(
            SUMMARIZE_CALL,
            ErrorClass::TypeError,
            key.name(),
            "a function",
            &describe(&value),
            fix,
        )),
        _ => Ok(()),
    };
    function(Key::OnEvent, "Fix: pass `(type, payload) => void`, or omit it.")?;
    function(Key::Now, "Fix: pass `() => unixMs`, or omit it for Date.now.")?;
    function(
        Key::CountTokens,
        "Fix: pass your pipeline's TokenCounter, `(text) => number`, or omit it for Math.ceil(text.length / 4).",
    )?;
    token_options(
        get(Key::CountTokens).is_some(),
        number_option(Key::TriggerMinTokens)?,
        number_option(Key::PreserveRecentTokens)?,
        number_option(Key::PreserveRecent)?,
    )?;
    if let Some(keep) = get(Key::KeepDetails) {
        // The bounds as checked replace the caller's object, which is read
        // once: a getter or a later change cannot alter them.
        let checked = match keep_details(&keep)? {
            Some(bounds) => {
                let own = Object::new();
                for (key, value) in KEEP_DETAILS_KEYS.iter().zip([bounds.max_details, bounds.max_chars]) {
                    let _ = js_sys::Reflect::set(&own, &JsValue::from_str(key), &JsValue::from_f64(value as f64));
                }
                own.into()
            }
            None => JsValue::FALSE,
        };
        let _ = js_sys::Reflect::set(copy, &JsValue::from_str(Key::KeepDetails.name()), &checked);
    }
    Ok(())
}

/// The `keepDetails` bounds `check` wrote into the config's copy (`false`
/// when off): read each visit, never checked again.
pub fn checked_keep_details(own: &JsValue) -> Option<PinBounds> {
    let bound = |key: &str| js_sys::Reflect::get(own, &JsValue::from_str(key)).ok()?.as_f64().map(|n| n as usize);
    own.is_object()
        .then(|| Some(PinBounds { max_details: bound(KEEP_DETAILS_KEYS[0])?, max_chars: bound(KEEP_DETAILS_KEYS[1])? }))
        .flatten()
}

/// `keepDetails`: `true` (the default bounds), `false`, or
/// `{ maxDetails, maxChars }` (absent fields take the defaults).
fn keep_details(value: &JsValue) -> Result<Option<PinBounds>, ConfigError> {
    let refusal = |found: &str| {
        ConfigError::invalid(
            SUMMARIZE_CALL,
            ErrorClass::TypeError,
            Key::KeepDetails.name(),
            "true, false or an object like { maxDetails, maxChars }",
            found,
            "Fix: pass true to list the details a summary dropped after its text, or omit it.",
        )
    };
    if let Some(keep) = value.as_bool() {
        return Ok(keep.then_some(PinBounds::DEFAULT));
    }
    if !value.is_object() || value.is_function() || js::is_array(value).unwrap_or(true) {
        return Err(refusal(&describe(value)));
    }
    let fields = plain_copy(value)
        .map_err(|error| refusal(&format!("an object that cannot be read (reading it threw: {})", cause_of(&error))))?;
    for key in Object::keys(&fields) {
        let name = String::from(key.unchecked_ref::<JsString>());
        if !KEEP_DETAILS_KEYS.contains(&name.as_str()) {
            return Err(refusal(&format!("an object with `{name}`")));
        }
    }
    let field = |key: &str| {
        let value = js_sys::Reflect::get(&fields, &JsValue::from_str(key)).unwrap_or_default();
        number(SUMMARIZE_CALL, &value, &format!("{}.{key}", Key::KeepDetails.name()))
    };
    keep_details_option(field(KEEP_DETAILS_KEYS[0])?, field(KEEP_DETAILS_KEYS[1])?).map(Some)
}

fn number(call: &str, value: &JsValue, key: &str) -> Result<Option<f64>, ConfigError> {
    if value.is_undefined() {
        return Ok(None);
    }
    value.as_f64().map(Some).ok_or_else(|| {
        ConfigError::invalid(
            call,
            ErrorClass::TypeError,
            key,
            "a non-negative integer",
            &describe(value),
            "Fix: pass a number, or omit the option.",
        )
    })
}

/// A count option of `call`: absent → `default`.
pub fn count(call: &str, value: &JsValue, key: &str, default: usize) -> Result<usize, ConfigError> {
    number(call, value, key)?.map_or(Ok(default), |n| count_option(call, key, n, default))
}

/// The refusal as the JS error class it names.
pub fn to_js_error(error: ConfigError) -> JsValue {
    match error.class {
        ErrorClass::Error => js_sys::Error::new(&error.message).into(),
        ErrorClass::TypeError => js_sys::TypeError::new(&error.message).into(),
        ErrorClass::RangeError => js_sys::RangeError::new(&error.message).into(),
    }
}
