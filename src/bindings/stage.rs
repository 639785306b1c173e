//! A stage's state between visits, held in a plain JS object (the handle),
//! and the settings a visit reads from it.
//!
//! A stage made per request must be freed by ordinary garbage collection:
//! Rust state behind a wasm-bindgen object is freed only by a finalizer,
//! which runs only when the event loop turns, and the per-request soak
//! (README, "Memory") builds 100,000 stages without yielding. So the handle
//! is a JS object holding a copy of the config (taken once at build, as
//! `{ ...config }` reads it, and checked then: `config.rs`), the stage's id
//! and its once-only flags. The only Wasm state a stage can own is its
//! latch, from its first refusal on (`latches.rs`).

use js_sys::{Function, Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::config::checked_keep_details;
use crate::core::config::{claim_lease_option, token_options, Key, Shape, StageConfig, Tier};
use crate::core::format::{rolling_system_prompt, DEFAULT_STRATEGY_ID, DEFAULT_SYSTEM_PROMPT};

#[wasm_bindgen]
extern "C" {
    /// `{ config, id, warned, claimsNoted }`, made by [`StageHandle::new`].
    pub type StageHandle;
    /// The config's copy, checked at build.
    #[wasm_bindgen(method, getter)]
    fn config(this: &StageHandle) -> Object;
    #[wasm_bindgen(method, setter)]
    fn set_config(this: &StageHandle, value: &Object);
    /// Tells this stage's latch and flights apart from every other stage's.
    #[wasm_bindgen(method, getter)]
    pub fn id(this: &StageHandle) -> f64;
    #[wasm_bindgen(method, setter)]
    fn set_id(this: &StageHandle, value: f64);
    /// SPEC §7: set once the stage's one warning is printed.
    #[wasm_bindgen(method, getter)]
    pub fn warned(this: &StageHandle) -> bool;
    #[wasm_bindgen(method, setter)]
    pub fn set_warned(this: &StageHandle, value: bool);
    /// Set once an event has said that the store cannot take claims.
    #[wasm_bindgen(method, getter, js_name = claimsNoted)]
    pub fn claims_noted(this: &StageHandle) -> bool;
    #[wasm_bindgen(method, setter, js_name = claimsNoted)]
    pub fn set_claims_noted(this: &StageHandle, value: bool);
}

impl StageHandle {
    pub fn new(config: &Object, id: f64) -> StageHandle {
        let handle: StageHandle = Object::new().unchecked_into();
        handle.set_config(config);
        handle.set_id(id);
        handle.set_warned(false);
        handle.set_claims_noted(false);
        handle
    }

    pub fn settings(&self) -> Settings {
        Settings::read(&self.config())
    }
}

/// One option of a config's copy: undefined when absent. The copy holds
/// plain data properties only, so reading one cannot throw.
pub fn option(copy: &Object, key: Key) -> JsValue {
    Reflect::get(copy, &JsValue::from_str(key.name())).unwrap_or(JsValue::UNDEFINED)
}

/// SPEC §1's table with its defaults, as a visit uses it.
pub struct Settings {
    /// A provider object or a callback function.
    pub llm: JsValue,
    pub store: Option<JsValue>,
    pub system_prompt: Option<String>,
    pub strategy_id: String,
    pub tier: Tier,
    pub on_event: Option<Function>,
    pub now: Option<Function>,
    /// `countTokens`; without it (and with `core.tokens`), `ceil(length / 4)`.
    pub count_tokens: Option<Function>,
    /// Claims' lease when `claims: true`; the core's numbers and shape.
    pub core: StageConfig,
}

impl Settings {
    /// Reads a checked copy (`config::check` refused anything else).
    pub fn read(copy: &Object) -> Settings {
        let get = |key| Some(option(copy, key)).filter(|value| !value.is_undefined());
        let number = |key| get(key).and_then(|value| value.as_f64());
        let shape = match get(Key::Model).and_then(|model| model.as_string()) {
            Some(model) => Shape::Provider { model },
            None => Shape::Callback,
        };
        let mut core = StageConfig::new(shape);
        let count = |key, default: usize| number(key).map_or(default, |n| n as usize);
        core.trigger_min_entries = count(Key::TriggerMinEntries, core.trigger_min_entries);
        core.preserve_recent = count(Key::PreserveRecent, core.preserve_recent);
        core.min_fold_entries = count(Key::MinFoldEntries, core.min_fold_entries);
        core.max_summaries = number(Key::MaxSummaries).map(|n| n as usize);
        core.trigger_min_chars = number(Key::TriggerMinChars).map(|n| n as usize);
        core.ttl_ms = number(Key::TtlMs);
        core.timeout_ms = number(Key::TimeoutMs);
        let store = get(Key::Store);
        let claims = get(Key::Claims).and_then(|claims| claims.as_bool()).unwrap_or(false);
        core.claim_lease_ms =
            claim_lease_option(claims, number(Key::ClaimLeaseMs), core.timeout_ms, store.is_some()).ok().flatten();
        core.keep_details = get(Key::KeepDetails).and_then(|own| checked_keep_details(&own));
        let count_tokens: Option<Function> = get(Key::CountTokens).and_then(|f| f.dyn_into().ok());
        core.tokens = token_options(
            count_tokens.is_some(),
            number(Key::TriggerMinTokens),
            number(Key::PreserveRecentTokens),
            number(Key::PreserveRecent),
        )
        .ok()
        .flatten();
        Settings {
            llm: option(copy, Key::Llm),
            store,
            system_prompt: get(Key::SystemPrompt).and_then(|prompt| prompt.as_string()),
            strategy_id: get(Key::StrategyId)
                .and_then(|id| id.as_string())
                .unwrap_or_else(|| DEFAULT_STRATEGY_ID.to_owned()),
            tier: get(Key::SummaryTier)
                .and_then(|tier| tier.as_string())
                .as_deref()
                .and_then(Tier::parse)
                .unwrap_or(Tier::DEFAULT),
            on_event: get(Key::OnEvent).and_then(|f| f.dyn_into().ok()),
            now: get(Key::Now).and_then(|f| f.dyn_into().ok()),
            count_tokens,
            core,
        }
    }

    /// The configured instruction, or the default (the rolling one when
    /// earlier summaries may be folded in).
    pub fn instruction(&self) -> String {
        match (&self.system_prompt, self.core.max_summaries) {
            (Some(prompt), _) => prompt.clone(),
            (None, Some(_)) => rolling_system_prompt(),
            (None, None) => DEFAULT_SYSTEM_PROMPT.to_owned(),
        }
    }
}
