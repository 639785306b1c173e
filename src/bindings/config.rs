//! Reads the JS config object into the core's `StageConfig` plus the JS
//! callables, refusing a bad config at build time (SPEC §3).

use js_sys::{Function, JsString, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::glue::describe;
use crate::core::config::{
    count_option, timeout_option, ttl_option, ConfigError, ErrorClass, Shape, StageConfig, Tier, SUMMARIZE_CALL,
};
use crate::core::format::{summary_id_text, NumberedText, EVENT_TYPE, STRATEGY_KIND};

/// Everything a stage instance holds from its config.
pub struct JsConfig {
    pub core: StageConfig,
    /// Strings that go out on every call, write or event, made into JS
    /// strings once per stage instead of once per use.
    pub system_prompt: JsString,
    pub strategy_id: JsString,
    pub tier: JsString,
    /// The fixed pieces of the summary id and of `core.header`: glue.js
    /// writes the numbers in between.
    pub summary_id_pieces: js_sys::Array,
    pub header_pieces: js_sys::Array,
    /// Evidence key names for glue.js (`evidence::key_names`).
    pub evidence_keys: js_sys::Array,
    pub event_type: JsString,
    pub strategy_kind: JsString,
    pub summarizer: Summarizer,
    pub store: Option<JsValue>,
    pub on_event: JsValue,
    pub now: Option<Function>,
}

/// The summarizer in the shape SPEC §3 allows, with what its call needs.
pub enum Summarizer {
    /// An object with `complete`, and the `model` every request names.
    Provider { llm: JsValue, model: JsString },
    /// `(messages) => Promise<string>`.
    Callback { llm: JsValue },
}

impl Summarizer {
    fn of(shape: &Shape, llm: JsValue) -> Summarizer {
        match shape {
            Shape::Provider { model } => Summarizer::Provider { llm, model: JsString::from(model.as_str()) },
            Shape::Callback => Summarizer::Callback { llm },
        }
    }

    /// The provider's model; `None` for a callback.
    pub fn model(&self) -> Option<&JsString> {
        match self {
            Summarizer::Provider { model, .. } => Some(model),
            Summarizer::Callback { .. } => None,
        }
    }
}

pub fn read_config(config: &JsValue) -> Result<JsConfig, ConfigError> {
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
    let shape = if llm.is_function() {
        if !model.is_undefined() {
            return Err(ConfigError::model_with_callback(&describe(&model)));
        }
        Shape::Callback
    } else if llm.is_object() && Reflect::get(&llm, &JsValue::from_str("complete")).is_ok_and(|f| f.is_function()) {
        match model.as_string() {
            Some(model) if !model.is_empty() => Shape::Provider { model },
            _ => return Err(ConfigError::model_required(&describe(&model))),
        }
    } else {
        return Err(ConfigError::invalid(
            SUMMARIZE_CALL,
            ErrorClass::TypeError,
            "llm",
            "a provider (an object with a `complete` method) or a callback `(messages) => Promise<string>`",
            &describe(&llm),
            "Fix: pass your LLM provider with `model`, or an async function that returns the summary text.",
        ));
    };
    let summarizer = Summarizer::of(&shape, llm);
    let mut core = StageConfig::new(shape);

    let store = get("store");
    let store = if store.is_undefined() {
        None
    } else if store.is_object() && Reflect::get(&store, &JsValue::from_str("put")).is_ok_and(|f| f.is_function()) {
        Some(store)
    } else {
        return Err(ConfigError::invalid(
            SUMMARIZE_CALL,
            ErrorClass::TypeError,
            "store",
            "an object with a `put(identity, entry)` method",
            &describe(&store),
            "Fix: pass your memory store, or omit `store` to fold without writing back.",
        ));
    };

    core.trigger_min_entries =
        count(SUMMARIZE_CALL, &get("triggerMinEntries"), "triggerMinEntries", core.trigger_min_entries)?;
    core.preserve_recent = count(SUMMARIZE_CALL, &get("preserveRecent"), "preserveRecent", core.preserve_recent)?;
    core.min_fold_entries = count(SUMMARIZE_CALL, &get("minFoldEntries"), "minFoldEntries", core.min_fold_entries)?;
    core.ttl_ms = number(SUMMARIZE_CALL, &get("ttlMs"), "ttlMs")?.map(|n| ttl_option("ttlMs", n)).transpose()?;
    core.timeout_ms =
        number(SUMMARIZE_CALL, &get("timeoutMs"), "timeoutMs")?.map(|n| timeout_option("timeoutMs", n)).transpose()?;
    if let Some(prompt) =
        string(&get("systemPrompt"), "systemPrompt", "Fix: pass the instruction text, or omit it for the default.")?
    {
        core.system_prompt = prompt;
    }
    if let Some(strategy_id) =
        string(&get("strategyId"), "strategyId", "Fix: pass a name, or omit it for 'memory-summarize'.")?
    {
        core.strategy_id = strategy_id;
    }
    let tier = get("summaryTier");
    if !tier.is_undefined() {
        core.tier = tier.as_string().as_deref().and_then(Tier::parse).ok_or_else(|| {
            ConfigError::invalid(
                SUMMARIZE_CALL,
                if tier.is_string() { ErrorClass::RangeError } else { ErrorClass::TypeError },
                "summaryTier",
                "'hot', 'warm' or 'cold'",
                &describe(&tier),
                "Fix: pick one of the three, or omit it for 'cold'.",
            )
        })?;
    }
    let on_event = function(&get("onEvent"), "onEvent", "Fix: pass `(type, payload) => void`, or omit it.")?;
    let now = function(&get("now"), "now", "Fix: pass `() => unixMs`, or omit it for Date.now.")?;

    Ok(JsConfig {
        system_prompt: JsString::from(core.system_prompt.as_str()),
        strategy_id: JsString::from(core.strategy_id.as_str()),
        tier: JsString::from(core.tier.as_str()),
        summary_id_pieces: js_pieces(&summary_id_text()),
        header_pieces: js_pieces(core.header()),
        evidence_keys: super::evidence::key_names(),
        event_type: JsString::from(EVENT_TYPE),
        strategy_kind: JsString::from(STRATEGY_KIND),
        core,
        summarizer,
        store,
        on_event: on_event.map(JsValue::from).unwrap_or(JsValue::UNDEFINED),
        now,
    })
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

fn string(value: &JsValue, key: &str, fix: &str) -> Result<Option<String>, ConfigError> {
    if value.is_undefined() {
        return Ok(None);
    }
    value.as_string().map(Some).ok_or_else(|| {
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

fn js_pieces(text: &NumberedText) -> js_sys::Array {
    text.pieces().iter().map(|piece| JsValue::from(JsString::from(piece.as_str()))).collect()
}

/// The refusal as the JS error class it names.
pub fn to_js_error(error: ConfigError) -> JsValue {
    match error.class {
        ErrorClass::Error => js_sys::Error::new(&error.message).into(),
        ErrorClass::TypeError => js_sys::TypeError::new(&error.message).into(),
        ErrorClass::RangeError => js_sys::RangeError::new(&error.message).into(),
    }
}
