//! A stage's state between visits, held in a plain JS object (the handle),
//! and the settings a visit reads from it.
//!
//! A stage made per request must be freed by ordinary garbage collection:
//! Rust state behind a wasm-bindgen object is freed only by a finalizer,
//! which runs only when the event loop turns, and the per-request soak
//! (README, "Per-request soak") builds 100,000 stages without yielding. So the handle
//! is a JS object holding a copy of the config (taken once at build, as
//! `{ ...config }` reads it, and checked then: `config.rs`), the stage's id
//! and its once-only flags. The Wasm state a stage can own is its latch,
//! from its first refusal on (`memory.rs`), and, while it is among the
//! latest, its plain config (below).
//!
//! The plain config the build read (numbers, texts, the shape: no JS value)
//! is kept for the stages used most recently, so their visits read only
//! the config's functions and objects again, and the background folds of a
//! stage share one copy instead of holding one each (README, "Decisions
//! worth knowing", gives the memory and time this saves). A stage used
//! longer ago reads it from its copy, as the build did, and gets the same
//! config.

use std::cell::RefCell;
use std::rc::Rc;

use js_sys::Object;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::config::Settings;
use super::js;
use crate::core::config::StageConfig;

/// How many stages' plain configs are kept: a server's shared stages, and
/// the stage a request has just built.
const KEPT_CONFIGS: usize = 16;

thread_local! {
    /// The plain configs of the stages used most recently, by stage id,
    /// the least recently used first.
    static PLAIN_CONFIGS: RefCell<Vec<(f64, Rc<StageConfig>)>> = RefCell::default();
}

/// Keeps `config` for stage `id` as the most recently used, letting go of
/// the least recently used past `KEPT_CONFIGS`.
fn keep_plain_config(id: f64, config: Rc<StageConfig>) {
    PLAIN_CONFIGS.with(|kept| {
        let mut kept = kept.borrow_mut();
        if kept.len() == KEPT_CONFIGS {
            kept.remove(0);
        }
        kept.push((id, config));
    });
}

/// Stage `id`'s kept plain config, now the most recently used.
fn kept_plain_config(id: f64) -> Option<Rc<StageConfig>> {
    PLAIN_CONFIGS.with(|kept| {
        let mut kept = kept.borrow_mut();
        let at = kept.iter().position(|(of, _)| *of == id)?;
        let used = kept.remove(at);
        let config = used.1.clone();
        kept.push(used);
        Some(config)
    })
}

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
    /// A stage over a checked copy of its config, and the plain config the check read.
    pub fn new(config: &Object, id: f64, plain: Rc<StageConfig>) -> StageHandle {
        keep_plain_config(id, plain);
        let handle: StageHandle = Object::new().unchecked_into();
        handle.set_config(config);
        handle.set_id(id);
        handle.set_warned(false);
        handle.set_claims_noted(false);
        handle
    }

    /// SPEC §7: the stage's one `console.warn`, the first time it is asked for.
    pub fn warn_once(&self, message: impl FnOnce() -> String) {
        if !self.warned() {
            self.set_warned(true);
            // A console that throws has nowhere else to say it.
            let _ = js::console_warn(&message());
        }
    }

    /// The settings of the copy this stage was built with, which was checked
    /// then.
    pub fn settings(&self) -> Settings {
        let id = self.id();
        if let Some(plain) = kept_plain_config(id) {
            return Settings::with_core(&self.config(), plain);
        }
        let settings = Settings::of_checked(&self.config());
        keep_plain_config(id, settings.core.clone());
        settings
    }
}
