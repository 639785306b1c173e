//! Reads the JS config object into a stage handle, refusing a bad config at
//! build time (SPEC §3). The rules and the words are the core's.

use js_sys::{Function, JsString, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::glue::describe;
use super::handle::StageHandle;
use crate::core::config::{
    count_option, timeout_option, ttl_option, ConfigError, ErrorClass, Tier, SUMMARIZE_CALL,
};
use crate::core::format::{DEFAULT_STRATEGY_ID, DEFAULT_SYSTEM_PROMPT};

pub fn read_config(config: &JsValue, handle: &StageHandle) -> Result<(), ConfigError> {
    if !config.is_object() {
        return Err(ConfigError::invalid(
            SUMMARIZE_CALL,
            ErrorClass::TypeError,
            "config",
            "an object",
            &describe(config),
            "Fix: call summarize({ llm, ... }).",
        ));
    }
    let get = |key: &str| Reflect::get(config, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED);

    let llm = get("llm");
    let model = get("model");
    if llm.is_function() {
        if !model.is_undefined() {
            return Err(ConfigError::model_with_callback(&describe(&model)));
        }
    } else {
        let complete = if llm.is_object() { Reflect::get(&llm, &JsValue::from_str("complete")).ok() } else { None };
        if !complete.is_some_and(|f| f.is_function()) {
            return Err(ConfigError::invalid(
                SUMMARIZE_CALL,
                ErrorClass::TypeError,
                "llm",
                "a provider (an object with a `complete` method) or a callback `(messages) => Promise<string>`",
                &describe(&llm),
                "Fix: pass your LLM provider with `model`, or an async function that returns the summary text.",
            ));
        }
        match model.dyn_into::<JsString>() {
            Ok(model) if model.length() > 0 => handle.set_model(Some(model)),
            Ok(model) => return Err(ConfigError::model_required(&describe(&model))),
            Err(model) => return Err(ConfigError::model_required(&describe(&model))),
        }
    }
    handle.set_llm(&llm);

    let store = get("store");
    if !store.is_undefined() {
        if !(store.is_object() && Reflect::get(&store, &JsValue::from_str("put")).is_ok_and(|f| f.is_function())) {
            return Err(ConfigError::invalid(
                SUMMARIZE_CALL,
                ErrorClass::TypeError,
                "store",
                "an object with a `put(identity, entry)` method",
                &describe(&store),
                "Fix: pass your memory store, or omit `store` to fold without writing back.",
            ));
        }
        handle.set_store(&store);
    }

    handle.set_trigger_min_entries(count(SUMMARIZE_CALL, &get("triggerMinEntries"), "triggerMinEntries", 20)? as f64);
    handle.set_preserve_recent(count(SUMMARIZE_CALL, &get("preserveRecent"), "preserveRecent", 5)? as f64);
    handle.set_min_fold_entries(count(SUMMARIZE_CALL, &get("minFoldEntries"), "minFoldEntries", 2)? as f64);
    handle.set_ttl_ms(number(SUMMARIZE_CALL, &get("ttlMs"), "ttlMs")?.map(|n| ttl_option("ttlMs", n)).transpose()?);
    handle.set_timeout_ms(
        number(SUMMARIZE_CALL, &get("timeoutMs"), "timeoutMs")?.map(|n| timeout_option("timeoutMs", n)).transpose()?,
    );
    let prompt = string(&get("systemPrompt"), "systemPrompt", "Fix: pass the instruction text, or omit it for the default.")?;
    handle.set_system_prompt(&prompt.unwrap_or_else(|| JsString::from(DEFAULT_SYSTEM_PROMPT)));
    let strategy_id = string(&get("strategyId"), "strategyId", "Fix: pass a name, or omit it for 'memory-summarize'.")?;
    handle.set_strategy_id(&strategy_id.unwrap_or_else(|| JsString::from(DEFAULT_STRATEGY_ID)));
    let tier = get("summaryTier");
    let tier = if tier.is_undefined() {
        Tier::Cold
    } else {
        tier.as_string().as_deref().and_then(Tier::parse).ok_or_else(|| {
            ConfigError::invalid(
                SUMMARIZE_CALL,
                if tier.is_string() { ErrorClass::RangeError } else { ErrorClass::TypeError },
                "summaryTier",
                "'hot', 'warm' or 'cold'",
                &describe(&tier),
                "Fix: pick one of the three, or omit it for 'cold'.",
            )
        })?
    };
    handle.set_summary_tier(tier.as_str());
    let on_event = function(&get("onEvent"), "onEvent", "Fix: pass `(type, payload) => void`, or omit it.")?;
    handle.set_on_event(&on_event.map(JsValue::from).unwrap_or(JsValue::UNDEFINED));
    handle.set_now(function(&get("now"), "now", "Fix: pass `() => unixMs`, or omit it for Date.now.")?);
    Ok(())
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

fn string(value: &JsValue, key: &str, fix: &str) -> Result<Option<JsString>, ConfigError> {
    if value.is_undefined() {
        return Ok(None);
    }
    value.dyn_ref::<JsString>().cloned().map(Some).ok_or_else(|| {
        ConfigError::invalid(SUMMARIZE_CALL, ErrorClass::TypeError, key, "a string", &describe(value), fix)
    })
}

fn function(value: &JsValue, key: &str, fix: &str) -> Result<Option<Function>, ConfigError> {
    if value.is_undefined() {
        return Ok(None);
    }
    value.dyn_ref::<Function>().cloned().map(Some).ok_or_else(|| {
        ConfigError::invalid(SUMMARIZE_CALL, ErrorClass::TypeError, key, "a function", &describe(value), fix)
    })
}

/// The refusal as the JS error class it names.
pub fn to_js_error(error: ConfigError) -> JsValue {
    match error.class {
        ErrorClass::Error => js_sys::Error::new(&error.message).into(),
        ErrorClass::TypeError => js_sys::TypeError::new(&error.message).into(),
        ErrorClass::RangeError => js_sys::RangeError::new(&error.message).into(),
    }
}
