//! A stage's state between visits, held in a plain JS object (the handle).
//!
//! A stage made per request must cost what the original's closure costs,
//! and be freed as soon as it is unreachable. Rust state behind a
//! wasm-bindgen object is freed only by a finalizer, which runs only when the
//! event loop turns: a loop that builds 100,000 stages without yielding would
//! keep all of them in Wasm memory. So a stage is a JS object: a copy of the
//! config as `{ ...config }` reads it (taken once, at build, and checked
//! then; `config.rs`), its id and its warn-once flag. A visit reads the few
//! settings it needs from it. The only Wasm state a stage can own is its
//! latch, from its first refusal on (`latches.rs`).

use js_sys::{Function, JsString};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::output;
use crate::core::config::{Key, Shape, StageConfig, Tier};

#[wasm_bindgen(module = "/src/bindings/glue.js")]
extern "C" {
    pub type StageHandle;
    /// `{ config: { ...config }, present, id, warned: false, claimsNoted: false }`:
    /// `present` ORs `known.get(key)` ([`KNOWN`]) over the
    /// copy's keys; the handle also names the first key `known` lacks.
    /// Throws what a getter of the config throws.
    #[wasm_bindgen(js_name = newHandle, catch)]
    pub fn new_handle(config: &JsValue, id: f64, known: &JsValue) -> Result<StageHandle, JsValue>;
    /// A JS string, not a Rust one: it crosses only for a refusal.
    #[wasm_bindgen(method, getter, js_name = unknownKey)]
    pub fn unknown_key(this: &StageHandle) -> Option<JsString>;
    #[wasm_bindgen(method, getter, js_name = unknownValue)]
    pub fn unknown_value(this: &StageHandle) -> JsValue;
    /// The config as given (SPEC §1's table), copied: read through [`Settings`].
    #[wasm_bindgen(method, getter)]
    fn config(this: &StageHandle) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn present(this: &StageHandle) -> u32;
    /// Tells this stage's latch apart from every other stage's.
    #[wasm_bindgen(method, getter)]
    pub fn id(this: &StageHandle) -> f64;
    /// SPEC §7: set once the stage's one warning is printed.
    #[wasm_bindgen(method, getter)]
    pub fn warned(this: &StageHandle) -> bool;
    #[wasm_bindgen(method, setter)]
    pub fn set_warned(this: &StageHandle, value: bool);
    /// With `claims: true`, the lease `config.rs` worked out at build from
    /// `claimLeaseMs` and `timeoutMs` (set only then: absent, it reads as
    /// None). Read through [`StageHandle::claim_lease_ms`].
    #[wasm_bindgen(method, getter, js_name = leaseMs)]
    fn lease_ms(this: &StageHandle) -> Option<f64>;
    #[wasm_bindgen(method, setter, js_name = leaseMs)]
    pub fn set_lease_ms(this: &StageHandle, value: f64);
    /// Set once an event has said that the store cannot take claims.
    #[wasm_bindgen(method, getter, js_name = claimsNoted)]
    pub fn claims_noted(this: &StageHandle) -> bool;
    #[wasm_bindgen(method, setter, js_name = claimsNoted)]
    pub fn set_claims_noted(this: &StageHandle, value: bool);
}

#[wasm_bindgen]
extern "C" {
    /// `Reflect.get` on the stage's copy of its config, without js-sys's
    /// `catch`: the copy holds plain data properties only, so reading one
    /// cannot throw, and the try/catch around every read was about a tenth
    /// of a provider + store build.
    #[wasm_bindgen(js_namespace = Reflect, js_name = get)]
    fn data_property(copy: &JsValue, key: &JsValue) -> JsValue;

    /// What a provider (`llm.complete`) or a store (`store.put`) must have.
    pub type Callee;
    #[wasm_bindgen(method, getter, catch)]
    pub fn complete(this: &Callee) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, getter, catch)]
    pub fn put(this: &Callee) -> Result<JsValue, JsValue>;
    /// The store's conditional write, which claims need.
    #[wasm_bindgen(method, getter, catch, js_name = putIfVersion)]
    pub fn put_if_version(this: &Callee) -> Result<JsValue, JsValue>;
}

/// A stage's config: its copy, and which known keys the copy has. An option
/// the user left out reads as None without a crossing into JS. Reading all
/// 17 options (a getter, then an `undefined` check, each a crossing) was most
/// of a stage's build: `summarize({ llm })` made 41 crossings in 2.1 µs on
/// Node 20, and makes 9 in 0.6 µs this way.
pub struct Settings {
    copy: JsValue,
    present: u32,
}

impl StageHandle {
    pub fn settings(&self) -> Settings {
        Settings { copy: self.config(), present: self.present() }
    }

    /// The claims' lease when claims are on. A config without `claims` has
    /// none, so only a config that has the key pays for the crossing.
    pub fn claim_lease_ms(&self, settings: &Settings) -> Option<f64> {
        settings.has(Key::Claims).then(|| self.lease_ms()).flatten()
    }
}

thread_local! {
    /// Each key's name as a JS string, made once: what `get` reads by.
    static KEY_NAMES: [JsValue; Key::ALL.len()] = Key::ALL.map(|key| JsValue::from_str(key.name()));
    /// Each key's name and bit, as a JS `Map` for `newHandle`.
    pub static KNOWN: JsValue = KEY_NAMES.with(|names| {
        let map = js_sys::Map::new();
        for key in Key::ALL {
            map.set(&names[key as usize], &JsValue::from(key.bit()));
        }
        map.into()
    });
}

/// The defaults of SPEC §1's table; `config.rs` checked every value given.
impl Settings {
    /// Whether the config has the key (its value may still be undefined).
    fn has(&self, key: Key) -> bool {
        self.present & key.bit() != 0
    }

    /// One option: None when the config lacks the key or holds undefined.
    pub fn get(&self, key: Key) -> Option<JsValue> {
        if !self.has(key) {
            return None;
        }
        Some(KEY_NAMES.with(|names| data_property(&self.copy, &names[key as usize])))
            .filter(|value| !value.is_undefined())
    }

    /// One option, undefined when the config lacks it: for a value passed
    /// on to JS as it is.
    pub fn value(&self, key: Key) -> JsValue {
        self.get(key).unwrap_or(JsValue::UNDEFINED)
    }

    /// A number option, as given (`config.rs` checked it at build).
    fn number(&self, key: Key) -> Option<f64> {
        self.get(key)?.as_f64()
    }

    /// The core's view of the config, for one visit.
    pub fn core_config(&self) -> StageConfig {
        let shape = match self.get(Key::Model).and_then(|model| model.as_string()) {
            Some(model) => Shape::Provider { model },
            None => Shape::Callback,
        };
        let mut config = StageConfig::new(shape);
        let count = |key, default: usize| self.number(key).map_or(default, |n| n as usize);
        config.trigger_min_entries = count(Key::TriggerMinEntries, config.trigger_min_entries);
        config.preserve_recent = count(Key::PreserveRecent, config.preserve_recent);
        config.min_fold_entries = count(Key::MinFoldEntries, config.min_fold_entries);
        config.max_summaries = self.number(Key::MaxSummaries).map(|n| n as usize);
        config.trigger_min_chars = self.number(Key::TriggerMinChars).map(|n| n as usize);
        config.ttl_ms = self.number(Key::TtlMs);
        config.timeout_ms = self.number(Key::TimeoutMs);
        config
    }

    /// The provider shape's model; None for a callback.
    pub fn provider_model(&self) -> Option<JsString> {
        self.get(Key::Model)?.dyn_into().ok()
    }

    /// The configured instruction, or the default (the rolling one when
    /// earlier summaries may be folded in).
    pub fn instruction(&self, rolling: bool) -> JsString {
        self.get(Key::SystemPrompt).and_then(|prompt| prompt.dyn_into().ok()).unwrap_or_else(|| {
            output::fixed(|f| if rolling { f.rolling_prompt.clone() } else { f.default_prompt.clone() })
        })
    }

    pub fn strategy(&self) -> JsString {
        self.get(Key::StrategyId)
            .and_then(|id| id.dyn_into().ok())
            .unwrap_or_else(|| output::fixed(|f| f.default_strategy_id.clone()))
    }

    pub fn tier(&self) -> Tier {
        self.get(Key::SummaryTier)
            .and_then(|tier| tier.as_string())
            .as_deref()
            .and_then(Tier::parse)
            .unwrap_or(Tier::DEFAULT)
    }

    pub fn clock(&self) -> Option<Function> {
        self.get(Key::Now)?.dyn_into().ok()
    }
}
