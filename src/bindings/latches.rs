//! Each stage's latch of spans refused as not smaller (SPEC §4 step 9), in
//! Wasm memory from the stage's first refusal on. A latched stage's handle
//! is registered with a `FinalizationRegistry`, which frees its latch once
//! the handle is collected; a stage that never refused anything owns no
//! Wasm memory at all (see `stage.rs`).

use std::cell::RefCell;

use js_sys::FinalizationRegistry;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::js::fill_random;
use super::stage::StageHandle;
use crate::core::latch::{Latches, SpanKey};

thread_local! {
    static LATCHES: RefCell<Latches> = RefCell::default();
    /// Drawn once per process, on first use: see `core::latch`.
    static SEED: [u64; 2] = draw_seed();
    static REGISTRY: FinalizationRegistry =
        FinalizationRegistry::new(Closure::<dyn Fn(JsValue)>::new(forget).into_js_value().unchecked_ref());
}

fn draw_seed() -> [u64; 2] {
    let mut bytes = [0u8; 16];
    if fill_random(&mut bytes).is_err() {
        // A host without Web Crypto: Math.random, 32 bits a draw, four
        // draws for 128. Unpredictable enough for a latch, whose false
        // match costs a verbatim turn, never a leak.
        for chunk in bytes.chunks_exact_mut(4) {
            chunk.copy_from_slice(&((js_sys::Math::random() * 4_294_967_296.0) as u32).to_le_bytes());
        }
    }
    let bits = u128::from_le_bytes(bytes);
    [bits as u64, (bits >> 64) as u64]
}

/// Whether this stage latched the span with this full key text. Only a
/// stage that has latched something hashes the key: the seed's first draw
/// reads `crypto`, whose first use loads Node's Web Crypto, a part of a
/// serverless cold start users feel (README, "Cold start"), so a first fold
/// never pays for it.
pub fn contains(stage: &StageHandle, key_text: &str) -> bool {
    LATCHES.with_borrow(|latches| latches.contains(stage.id() as u64, || key_of(key_text)))
}

fn key_of(text: &str) -> SpanKey {
    SpanKey::of(text, SEED.with(|seed| *seed))
}

pub fn insert(stage: &StageHandle, key_text: &str) {
    let key = key_of(key_text);
    if LATCHES.with_borrow_mut(|latches| latches.insert(stage.id() as u64, key)) {
        REGISTRY.with(|registry| registry.register(stage, &JsValue::from_f64(stage.id())));
    }
}

/// The registry's cleanup: the stage id `insert` registered.
fn forget(stage_id: JsValue) {
    if let Some(id) = stage_id.as_f64() {
        LATCHES.with_borrow_mut(|latches| latches.forget(id as u64));
    }
}
