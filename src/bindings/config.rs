//! A stage's config (SPEC §3): what each option of its copy holds, reported
//! to the core's one reading of it (`core::config::read`), which holds
//! every rule and every refusal's words. The build ([`checked_copy`]) throws
//! the first refusal; a visit whose stage's plain config is no longer kept
//! (`stage.rs`) reads the copy the build checked again
//! ([`Settings::of_checked`]); one whose plain config is kept reads only the
//! JS values again ([`Settings::with_core`]), with which both end.
use std::rc::Rc;

use js_sys::{Function, JsString, Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::call;
use super::js::{self, cause_of, describe, plain_copy, plain_copy_with, Callee};
use super::output::to_js;
use crate::core::config::{
    self, count_option, ConfigError, ErrorClass, Found, Key, Methods, Options, StageConfig, KEEP_DETAILS_KEYS,
    KNOWN_KEYS,
};
use crate::core::events::threw;

/// The config's own enumerable properties, copied as `{ ...config }` reads
/// them (once: later changes to the object change nothing), and checked;
/// beside it, the plain config the check read.
pub fn checked_copy(config: &JsValue) -> Result<(Object, Rc<StageConfig>), ConfigError> {
    if !config.is_object() {
        return Err(ConfigError::not_an_object(&describe(config)));
    }
    let copy = plain_copy(config).map_err(|error| ConfigError::not_an_object(&unreadable_object(&error)))?;
    let (core, refusal) = config::read(&ConfigCopy(&copy), Some(&CallerObjects(&copy)));
    if let Some(refusal) = refusal {
        return Err(refusal);
    }
    check_keys(&copy)?;
    // The bounds as checked replace the caller's `keepDetails`, which is so
    // read once: a getter or a later change cannot alter them.
    if !option(&copy, Key::KeepDetails).is_undefined() {
        let checked = core.keep_details.map_or(JsValue::FALSE, |bounds| to_js(&bounds));
        let _ = Reflect::set(&copy, &JsValue::from_str(Key::KeepDetails.name()), &checked);
    }
    Ok((copy, Rc::new(core)))
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
    /// known already: only its JS values are read again. Every way to the
    /// settings ends here, so no two take a JS value two ways.
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

    /// The settings of a copy its build checked, read again for a stage
    /// whose plain config is no longer kept. The copy is plain data only
    /// the stage holds, so it reads as it did at build, where it met no
    /// refusal; the caller's methods are not looked up again (a visit
    /// reads each when it calls it).
    pub fn of_checked(copy: &Object) -> Settings {
        let (core, _no_refusal) = config::read(&ConfigCopy(copy), None);
        Settings::with_core(copy, Rc::new(core))
    }
}

/// A config's copy, as the core reads it (`core::config::read`).
struct ConfigCopy<'a>(&'a Object);

impl Options for ConfigCopy<'_> {
    fn found(&self, key: Key) -> Found {
        found(&option(self.0, key))
    }

    fn describe(&self, key: Key) -> String {
        describe(&option(self.0, key))
    }

    /// Its own keys only, as a spread reads them.
    fn keep_details_fields(&self) -> Result<[(Found, String); 2], ConfigError> {
        let refusal = |found: &str| ConfigError::refused(Key::KeepDetails, found);
        let fields = options_object(&option(self.0, Key::KeepDetails), &KEEP_DETAILS_KEYS, &[], refusal)?;
        Ok(KEEP_DETAILS_KEYS.map(|key| {
            let value = Reflect::get(&fields, &JsValue::from_str(key)).unwrap_or_default();
            (found(&value), describe(&value))
        }))
    }
}

/// What a JS value is, as the core's rules tell values apart.
fn found(value: &JsValue) -> Found {
    if value.is_undefined() {
        Found::Absent
    } else if let Some(n) = value.as_f64() {
        Found::Number(n)
    } else if let Some(text) = value.dyn_ref::<JsString>() {
        // A lone surrogate does not survive Rust's text: the stage would
        // send or emit another string than the caller gave.
        if text.is_well_formed() {
            Found::Text(String::from(text))
        } else {
            Found::IllFormedText
        }
    } else if let Some(value) = value.as_bool() {
        Found::Bool(value)
    } else if value.is_function() {
        Found::Function
    } else if value.is_object() {
        Found::Object
    } else {
        Found::Other
    }
}

/// The caller's provider and store, as the build finds their methods.
struct CallerObjects<'a>(&'a Object);

impl Methods for CallerObjects<'_> {
    fn provider_completes(&self) -> bool {
        call::method(&option(self.0, Key::Llm), "llm.complete", Callee::complete).is_ok()
    }

    fn store_puts(&self) -> bool {
        call::method(&option(self.0, Key::Store), "store.put", Callee::put).is_ok()
    }

    fn put_if_version(&self) -> Result<(Found, String), String> {
        let store = option(self.0, Key::Store);
        match store.unchecked_ref::<Callee>().put_if_version() {
            Ok(method) => Ok((found(&method), describe(&method))),
            Err(error) => Err(threw("reading", &cause_of(&error))),
        }
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
