//! A stage's config (SPEC §3), read by one function, [`Settings::read`]: at
//! build, where every refusal is thrown by `summarize(config)` at once, and
//! by a visit whose stage's plain config is no longer kept (`stage.rs`),
//! from the copy the build checked. A visit whose stage's plain config is
//! kept reads only the JS values again, by [`Settings::with_core`], with
//! which `read` ends. The numeric rules and the refusals' words are the
//! core's.

use std::rc::Rc;

use js_sys::{Function, JsString, Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::call;
use super::js::{self, cause_of, describe, plain_copy, plain_copy_with, Callee};
use super::output::to_js;
use crate::core::config::{
    claim_lease_option, count_option, keep_details_field, keep_details_option, span_bound_option, token_options,
    ConfigError, ErrorClass, Key, Shape, StageConfig, Tier, KEEP_DETAILS_KEYS, KNOWN_KEYS, SUMMARIZE_CALL,
};
use crate::core::details::PinBounds;
use crate::core::events::threw;
use crate::core::format::is_blank;

/// The config's own enumerable properties, copied as `{ ...config }` reads
/// them (once: later changes to the object change nothing), and checked;
/// beside it, the plain config the check read.
pub fn checked_copy(config: &JsValue) -> Result<(Object, Rc<StageConfig>), ConfigError> {
    if !config.is_object() {
        return Err(ConfigError::not_an_object(&describe(config)));
    }
    let copy = plain_copy(config).map_err(|error| ConfigError::not_an_object(&unreadable_object(&error)))?;
    let settings = Settings::read(&copy, Reading::Build)?;
    check_keys(&copy)?;
    // The bounds as checked replace the caller's `keepDetails`, which is so
    // read once: a getter or a later change cannot alter them.
    if !option(&copy, Key::KeepDetails).is_undefined() {
        let checked = settings.core.keep_details.map_or(JsValue::FALSE, |bounds| to_js(&bounds));
        let _ = Reflect::set(&copy, &JsValue::from_str(Key::KeepDetails.name()), &checked);
    }
    Ok((copy, settings.core))
}

/// Refuses a key the stage does not read: it would be dropped silently.
fn check_keys(copy: &Object) -> Result<(), ConfigError> {
    match unknown_key(copy, &KNOWN_KEYS) {
        Some((name, key)) => {
            // By the key itself: a lone surrogate in it does not survive the Rust text.
            let value = Reflect::get(copy, &key).unwrap_or_default();
            Err(ConfigError::unknown_key(&name, &describe(&value)))
        }
        None => Ok(()),
    }
}

/// The first of `copy`'s own keys that is not one of `known`: its text, and the key.
fn unknown_key(copy: &Object, known: &[&str]) -> Option<(String, JsValue)> {
    let named = |key: JsValue| (String::from(key.unchecked_ref::<JsString>()), key);
    Object::keys(copy).iter().map(named).find(|(name, _)| !known.contains(&name.as_str()))
}

/// An options object (not a function or an array), copied once with those
/// of `inherited` it inherits (a class's getter), and holding no key but
/// `known`; or `refusal` of what was found instead.
pub fn options_object(
    value: &JsValue,
    known: &[&str],
    inherited: &[&str],
    refusal: impl Fn(&str) -> ConfigError,
) -> Result<Object, ConfigError> {
    if !value.is_object() || value.is_function() || js::is_array(value).unwrap_or(true) {
        return Err(refusal(&describe(value)));
    }
    let fields = plain_copy_with(value, inherited).map_err(|error| refusal(&unreadable_object(&error)))?;
    match unknown_key(&fields, known) {
        Some((name, _)) => Err(refusal(&format!("an object with `{name}`"))),
        None => Ok(fields),
    }
}

/// One option of a config's copy: undefined when absent. The copy holds
/// plain data properties only, so reading one cannot throw.
fn option(copy: &Object, key: Key) -> JsValue {
    Reflect::get(copy, &JsValue::from_str(key.name())).unwrap_or(JsValue::UNDEFINED)
}

/// What reads a config.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    /// `summarize(config)`: also checks that the provider has `complete`
    /// and the store `put`.
    Build,
    /// A visit, which reads those methods once, when it calls them.
    Visit,
}

/// SPEC §1's table with its defaults, as a visit uses it.
pub struct Settings {
    /// A provider object or a callback function.
    pub llm: JsValue,
    pub store: Option<JsValue>,
    pub on_event: Option<Function>,
    pub now: Option<Function>,
    /// `countTokens`; without it (and with `core.tokens`), `ceil(length / 4)`.
    pub count_tokens: Option<Function>,
    /// `waitUntil`: given each background fold's promise.
    pub wait_until: Option<Function>,
    /// The numbers and the shape, as the core decides with them.
    pub core: Rc<StageConfig>,
}

impl Settings {
    /// The settings of a copy the build checked, whose plain config is
    /// known already: only its JS values are read again. [`Settings::read`]
    /// ends here too, so the two cannot take a JS value two ways.
    pub fn with_core(copy: &Object, core: Rc<StageConfig>) -> Settings {
        let get = |key| Some(option(copy, key)).filter(|value| !value.is_undefined());
        let function = |key| get(key).map(JsValue::unchecked_into::<Function>);
        Settings {
            llm: option(copy, Key::Llm),
            store: get(Key::Store),
            on_event: function(Key::OnEvent),
            now: function(Key::Now),
            count_tokens: function(Key::CountTokens),
            wait_until: function(Key::WaitUntil),
            core,
        }
    }

    /// Reads and checks every option of a config's copy: the summarizer and
    /// the store first, then the numbers, the strings and the functions.
    pub fn read(copy: &Object, reading: Reading) -> Result<Settings, ConfigError> {
        let get = |key| Some(option(copy, key)).filter(|value| !value.is_undefined());
        let refused = |key: Key, value: &JsValue| ConfigError::refused(key, &describe(value));
        let number = |key: Key| get(key).map(|value| value.as_f64().ok_or_else(|| refused(key, &value))).transpose();
        let has =
            |target: &JsValue, name, method| reading == Reading::Visit || call::method(target, name, method).is_ok();

        let llm = option(copy, Key::Llm);
        let model = get(Key::Model);
        let shape = if llm.is_function() {
            if let Some(model) = model {
                return Err(ConfigError::model_with_callback(&describe(&model)));
            }
            Shape::Callback
        } else {
            if !(llm.is_object() && has(&llm, "llm.complete", Callee::complete)) {
                return Err(refused(Key::Llm, &llm));
            }
            match model.as_ref().map(|model| text_of(Key::Model, model)).transpose()?.flatten() {
                // A blank name names no model: the provider would refuse it on every turn.
                Some(model) if !is_blank(&model) => Shape::Provider { model },
                _ => return Err(ConfigError::model_required(&describe(&option(copy, Key::Model)))),
            }
        };
        let store = get(Key::Store);
        if let Some(store) = &store {
            if !(store.is_object() && has(store, "store.put", Callee::put)) {
                return Err(refused(Key::Store, store));
            }
        }

        let mut core = StageConfig::new(shape);
        core.read_numbers(number)?;

        let text =
            |key: Key| get(key).map(|value| text_of(key, &value)?.ok_or_else(|| refused(key, &value))).transpose();
        core.system_prompt = text(Key::SystemPrompt)?;
        if let Some(strategy_id) = text(Key::StrategyId)? {
            core.strategy_id = strategy_id;
        }
        if let Some(tier) = get(Key::SummaryTier) {
            core.tier = Tier::option(tier.as_string().as_deref(), || refused(Key::SummaryTier, &tier))?;
        }
        let boolean =
            |key: Key| get(key).map_or(Ok(false), |value| value.as_bool().ok_or_else(|| refused(key, &value)));
        let claims = boolean(Key::Claims)?;
        if let Some(store) = store.as_ref().filter(|_| claims && reading == Reading::Build) {
            match store.unchecked_ref::<Callee>().put_if_version() {
                Ok(method) if method.is_undefined() || method.is_function() => {}
                Ok(other) => return Err(ConfigError::put_if_version_not_a_function(&describe(&other))),
                Err(error) => {
                    return Err(ConfigError::put_if_version_not_a_function(&threw("reading", &cause_of(&error))))
                }
            }
        }
        core.background = boolean(Key::Background)?;
        if core.background && store.is_none() {
            return Err(ConfigError::background_without_store());
        }
        core.claim_lease_ms =
            claim_lease_option(claims, number(Key::ClaimLeaseMs)?, core.timeout_ms, core.background, store.is_some())?;

        // `typeof` (not `instanceof`): a function from another realm is a function too.
        let function = |key: Key| match get(key) {
            Some(value) if !value.is_function() => Err(refused(key, &value)),
            value => Ok(value.map(JsValue::unchecked_into::<Function>)),
        };
        function(Key::OnEvent)?;
        function(Key::Now)?;
        let count_tokens = function(Key::CountTokens)?;
        if function(Key::WaitUntil)?.is_some() && !core.background {
            return Err(ConfigError::wait_until_without_background());
        }
        core.tokens = token_options(count_tokens.is_some(), number)?;
        core.keep_details = get(Key::KeepDetails).map(|keep| keep_details(&keep)).transpose()?.flatten();
        let (max_chars, max_tokens) = (number(Key::MaxSpanChars)?, number(Key::MaxSpanTokens)?);
        core.max_span = span_bound_option(&core, max_chars, max_tokens, count_tokens.is_some())?;
        // The JS values as every visit takes them, by the one function that does.
        Ok(Settings::with_core(copy, Rc::new(core)))
    }
}

/// `keepDetails`: `true` (the default bounds), `false`, or
/// `{ maxDetails, maxChars }` (absent fields take the defaults).
fn keep_details(value: &JsValue) -> Result<Option<PinBounds>, ConfigError> {
    let refusal = |found: &str| ConfigError::refused(Key::KeepDetails, found);
    if let Some(keep) = value.as_bool() {
        return Ok(keep.then_some(PinBounds::DEFAULT));
    }
    // Its own keys only, as a spread reads them.
    let fields = options_object(value, &KEEP_DETAILS_KEYS, &[], refusal)?;
    keep_details_option(|key| {
        let value = Reflect::get(&fields, &JsValue::from_str(key)).unwrap_or_default();
        number(SUMMARIZE_CALL, &value, &keep_details_field(key))
    })
    .map(Some)
}

/// A string option's text (None for any other value). A lone surrogate is
/// refused: Rust's text cannot hold one, and the stage would send or emit
/// another string than the caller gave.
fn text_of(key: Key, value: &JsValue) -> Result<Option<String>, ConfigError> {
    match value.dyn_ref::<JsString>() {
        Some(text) if text.is_well_formed() => Ok(Some(String::from(text))),
        Some(_) => Err(ConfigError::not_well_formed(key, &describe(value))),
        None => Ok(None),
    }
}

/// How a refusal names an object whose reading threw.
pub fn unreadable_object(error: &JsValue) -> String {
    format!("an object that cannot be read (reading it threw: {})", cause_of(error))
}

fn number(call: &str, value: &JsValue, key: &str) -> Result<Option<f64>, ConfigError> {
    if value.is_undefined() {
        return Ok(None);
    }
    value.as_f64().map(Some).ok_or_else(|| ConfigError::not_a_number(call, key, &describe(value)))
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
