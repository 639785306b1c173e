//! A stage's state between visits, held in a plain JS object (the handle).
//!
//! A stage made per request must cost what the original's closure costs,
//! and be freed as soon as it is unreachable. Rust state behind a
//! wasm-bindgen object is freed only by a finalizer, which runs only when the
//! event loop turns: a loop that builds 100,000 stages without yielding would
//! keep all of them in Wasm memory. So the validated config lives here, in
//! JS, and the visit reads what it needs each time. The only Wasm state a
//! stage can own is its latch (from its first refusal on, see `latches.rs`).

use js_sys::{Function, JsString, Object};
use wasm_bindgen::prelude::*;

use crate::core::config::{Shape, StageConfig};

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(extends = Object)]
    pub type StageHandle;

    /// Tells this stage's latch apart from every other stage's.
    #[wasm_bindgen(method, getter)]
    pub fn id(this: &StageHandle) -> f64;
    #[wasm_bindgen(method, setter)]
    pub fn set_id(this: &StageHandle, id: f64);
    /// The provider object, or the callback.
    #[wasm_bindgen(method, getter)]
    pub fn llm(this: &StageHandle) -> JsValue;
    #[wasm_bindgen(method, setter)]
    pub fn set_llm(this: &StageHandle, llm: &JsValue);
    /// The provider shape's model; undefined for a callback.
    #[wasm_bindgen(method, getter)]
    pub fn model(this: &StageHandle) -> Option<JsString>;
    #[wasm_bindgen(method, setter)]
    pub fn set_model(this: &StageHandle, model: Option<JsString>);
    #[wasm_bindgen(method, getter)]
    pub fn store(this: &StageHandle) -> JsValue;
    #[wasm_bindgen(method, setter)]
    pub fn set_store(this: &StageHandle, store: &JsValue);
    #[wasm_bindgen(method, getter, js_name = triggerMinEntries)]
    pub fn trigger_min_entries(this: &StageHandle) -> f64;
    #[wasm_bindgen(method, setter, js_name = triggerMinEntries)]
    pub fn set_trigger_min_entries(this: &StageHandle, value: f64);
    #[wasm_bindgen(method, getter, js_name = preserveRecent)]
    pub fn preserve_recent(this: &StageHandle) -> f64;
    #[wasm_bindgen(method, setter, js_name = preserveRecent)]
    pub fn set_preserve_recent(this: &StageHandle, value: f64);
    #[wasm_bindgen(method, getter, js_name = minFoldEntries)]
    pub fn min_fold_entries(this: &StageHandle) -> f64;
    #[wasm_bindgen(method, setter, js_name = minFoldEntries)]
    pub fn set_min_fold_entries(this: &StageHandle, value: f64);
    #[wasm_bindgen(method, getter, js_name = ttlMs)]
    pub fn ttl_ms(this: &StageHandle) -> Option<f64>;
    #[wasm_bindgen(method, setter, js_name = ttlMs)]
    pub fn set_ttl_ms(this: &StageHandle, value: Option<f64>);
    #[wasm_bindgen(method, getter, js_name = timeoutMs)]
    pub fn timeout_ms(this: &StageHandle) -> Option<f64>;
    #[wasm_bindgen(method, setter, js_name = timeoutMs)]
    pub fn set_timeout_ms(this: &StageHandle, value: Option<f64>);
    #[wasm_bindgen(method, getter, js_name = systemPrompt)]
    pub fn system_prompt(this: &StageHandle) -> JsString;
    #[wasm_bindgen(method, setter, js_name = systemPrompt)]
    pub fn set_system_prompt(this: &StageHandle, value: &JsString);
    #[wasm_bindgen(method, getter, js_name = summaryTier)]
    pub fn summary_tier(this: &StageHandle) -> String;
    #[wasm_bindgen(method, setter, js_name = summaryTier)]
    pub fn set_summary_tier(this: &StageHandle, value: &str);
    #[wasm_bindgen(method, getter, js_name = strategyId)]
    pub fn strategy_id(this: &StageHandle) -> JsString;
    #[wasm_bindgen(method, setter, js_name = strategyId)]
    pub fn set_strategy_id(this: &StageHandle, value: &JsString);
    #[wasm_bindgen(method, getter, js_name = onEvent)]
    pub fn on_event(this: &StageHandle) -> JsValue;
    #[wasm_bindgen(method, setter, js_name = onEvent)]
    pub fn set_on_event(this: &StageHandle, value: &JsValue);
    #[wasm_bindgen(method, getter)]
    pub fn now(this: &StageHandle) -> Option<Function>;
    #[wasm_bindgen(method, setter)]
    pub fn set_now(this: &StageHandle, value: Option<Function>);
    /// SPEC §7: set once the stage's one warning is printed.
    #[wasm_bindgen(method, getter)]
    pub fn warned(this: &StageHandle) -> bool;
    #[wasm_bindgen(method, setter)]
    pub fn set_warned(this: &StageHandle, value: bool);
}

impl StageHandle {
    pub fn new() -> StageHandle {
        let handle: StageHandle = Object::new().unchecked_into();
        handle.set_warned(false);
        handle
    }

    /// The core's view of this stage's config, for one visit (the tier is
    /// read where the summary entry is written).
    pub fn core_config(&self) -> StageConfig {
        let shape = match self.model() {
            Some(model) => Shape::Provider { model: model.into() },
            None => Shape::Callback,
        };
        let mut config = StageConfig::new(shape);
        config.trigger_min_entries = self.trigger_min_entries() as usize;
        config.preserve_recent = self.preserve_recent() as usize;
        config.min_fold_entries = self.min_fold_entries() as usize;
        config.ttl_ms = self.ttl_ms();
        config.timeout_ms = self.timeout_ms();
        config
    }
}
