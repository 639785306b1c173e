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
use crate::core::config::{Shape, StageConfig, Tier};

#[wasm_bindgen(module = "/src/bindings/glue.js")]
extern "C" {
    pub type StageHandle;
    /// `{ config: { ...config }, id, warned: false, claimsNoted: false }`, and the first key of
    /// the config that `known` (a `Set`) lacks; throws what a getter of the
    /// config throws.
    #[wasm_bindgen(js_name = newHandle, catch)]
    pub fn new_handle(config: &JsValue, id: f64, known: &JsValue) -> Result<StageHandle, JsValue>;
    #[wasm_bindgen(method, getter, js_name = unknownKey)]
    pub fn unknown_key(this: &StageHandle) -> Option<String>;
    #[wasm_bindgen(method, getter, js_name = unknownValue)]
    pub fn unknown_value(this: &StageHandle) -> JsValue;
    #[wasm_bindgen(method, getter)]
    pub fn config(this: &StageHandle) -> Settings;
    /// Tells this stage's latch apart from every other stage's.
    #[wasm_bindgen(method, getter)]
    pub fn id(this: &StageHandle) -> f64;
    /// SPEC §7: set once the stage's one warning is printed.
    #[wasm_bindgen(method, getter)]
    pub fn warned(this: &StageHandle) -> bool;
    #[wasm_bindgen(method, setter)]
    pub fn set_warned(this: &StageHandle, value: bool);
    /// With `claims: true`, the lease `config.rs` worked out at build from
    /// `claimLeaseMs` and `timeoutMs` (set only then: absent, it reads as None).
    #[wasm_bindgen(method, getter, js_name = leaseMs)]
    pub fn lease_ms(this: &StageHandle) -> Option<f64>;
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
    /// The config as given (SPEC §1's table): every option, as the user wrote it.
    pub type Settings;
    #[wasm_bindgen(method, getter)]
    pub fn llm(this: &Settings) -> JsValue;
    #[wasm_bindgen(method, getter)]
    pub fn model(this: &Settings) -> JsValue;
    #[wasm_bindgen(method, getter)]
    pub fn store(this: &Settings) -> JsValue;
    #[wasm_bindgen(method, getter, js_name = triggerMinEntries)]
    pub fn trigger_min_entries(this: &Settings) -> JsValue;
    #[wasm_bindgen(method, getter, js_name = preserveRecent)]
    pub fn preserve_recent(this: &Settings) -> JsValue;
    #[wasm_bindgen(method, getter, js_name = minFoldEntries)]
    pub fn min_fold_entries(this: &Settings) -> JsValue;
    #[wasm_bindgen(method, getter, js_name = maxSummaries)]
    pub fn max_summaries(this: &Settings) -> JsValue;
    #[wasm_bindgen(method, getter, js_name = triggerMinChars)]
    pub fn trigger_min_chars(this: &Settings) -> JsValue;
    #[wasm_bindgen(method, getter, js_name = systemPrompt)]
    pub fn system_prompt(this: &Settings) -> JsValue;
    #[wasm_bindgen(method, getter, js_name = ttlMs)]
    pub fn ttl_ms(this: &Settings) -> JsValue;
    #[wasm_bindgen(method, getter, js_name = summaryTier)]
    pub fn summary_tier(this: &Settings) -> JsValue;
    #[wasm_bindgen(method, getter, js_name = strategyId)]
    pub fn strategy_id(this: &Settings) -> JsValue;
    #[wasm_bindgen(method, getter, js_name = onEvent)]
    pub fn on_event(this: &Settings) -> JsValue;
    #[wasm_bindgen(method, getter, js_name = timeoutMs)]
    pub fn timeout_ms(this: &Settings) -> JsValue;
    #[wasm_bindgen(method, getter)]
    pub fn now(this: &Settings) -> JsValue;
    #[wasm_bindgen(method, getter)]
    pub fn claims(this: &Settings) -> JsValue;
    #[wasm_bindgen(method, getter, js_name = claimLeaseMs)]
    pub fn claim_lease_ms(this: &Settings) -> JsValue;

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

/// The defaults of SPEC §1's table; `config.rs` checked every value given.
impl Settings {
    /// The core's view of the config, for one visit.
    pub fn core_config(&self) -> StageConfig {
        let shape = match self.model().as_string() {
            Some(model) => Shape::Provider { model },
            None => Shape::Callback,
        };
        let mut config = StageConfig::new(shape);
        let count = |value: JsValue, default: usize| value.as_f64().map_or(default, |n| n as usize);
        config.trigger_min_entries = count(self.trigger_min_entries(), config.trigger_min_entries);
        config.preserve_recent = count(self.preserve_recent(), config.preserve_recent);
        config.min_fold_entries = count(self.min_fold_entries(), config.min_fold_entries);
        config.max_summaries = self.max_summaries().as_f64().map(|n| n as usize);
        config.trigger_min_chars = self.trigger_min_chars().as_f64().map(|n| n as usize);
        config.ttl_ms = self.ttl_ms().as_f64();
        config.timeout_ms = self.timeout_ms().as_f64();
        config
    }

    /// The provider shape's model; None for a callback.
    pub fn provider_model(&self) -> Option<JsString> {
        self.model().dyn_into().ok()
    }

    /// The configured instruction, or the default (the rolling one when
    /// earlier summaries may be folded in).
    pub fn instruction(&self, rolling: bool) -> JsString {
        self.system_prompt().dyn_into().unwrap_or_else(|_| {
            output::fixed(|f| if rolling { f.rolling_prompt.clone() } else { f.default_prompt.clone() })
        })
    }

    pub fn strategy(&self) -> JsString {
        self.strategy_id().dyn_into().unwrap_or_else(|_| output::fixed(|f| f.default_strategy_id.clone()))
    }

    pub fn tier(&self) -> Tier {
        self.summary_tier().as_string().as_deref().and_then(Tier::parse).unwrap_or(Tier::DEFAULT)
    }

    pub fn clock(&self) -> Option<Function> {
        self.now().dyn_into().ok()
    }

    pub fn write_back(&self) -> Option<JsValue> {
        Some(self.store()).filter(|store| !store.is_undefined())
    }
}
