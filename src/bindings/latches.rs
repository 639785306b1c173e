//! Each stage's latch of spans refused as not smaller (SPEC §4 step 9), in
//! Wasm memory from the stage's first refusal on. A latched stage's handle
//! is registered with a `FinalizationRegistry`, which frees its latch once
//! the handle is collected; a stage that never refused anything owns no
//! Wasm memory at all (see `handle.rs`).

use std::cell::{Cell, RefCell};
use std::collections::HashMap;

use js_sys::{Function, JsString};
use wasm_bindgen::prelude::*;

use super::glue;
use super::handle::StageHandle;
use crate::core::latch::{Latch, SpanKey};

thread_local! {
    static LATCHES: RefCell<HashMap<u64, Latch>> = RefCell::new(HashMap::new());
    /// Drawn once per process: see `core::latch`.
    static SEED: Cell<Option<[u64; 2]>> = const { Cell::new(None) };
    static FREE: Function = Closure::<dyn Fn(f64)>::new(forget).into_js_value().into();
}

#[wasm_bindgen]
extern "C" {
    /// Web Crypto's CSPRNG, a global in every runtime the package supports.
    #[wasm_bindgen(js_namespace = crypto, js_name = getRandomValues, catch)]
    fn fill_random(bytes: &mut [u8]) -> Result<(), JsValue>;
}

fn seed() -> [u64; 2] {
    SEED.with(|seed| {
        seed.get().unwrap_or_else(|| {
            let mut bytes = [0u8; 16];
            if fill_random(&mut bytes).is_err() {
                // A host without Web Crypto: Math.random's 52 bits a draw,
                // four draws for 128. Unpredictable enough for a latch, whose
                // false match costs a verbatim turn, never a leak.
                for chunk in bytes.chunks_exact_mut(4) {
                    chunk.copy_from_slice(&((js_sys::Math::random() * 4_294_967_296.0) as u32).to_le_bytes());
                }
            }
            let bits = u128::from_le_bytes(bytes);
            let drawn = [bits as u64, (bits >> 64) as u64];
            seed.set(Some(drawn));
            drawn
        })
    })
}

pub fn key_of(text: &JsString) -> SpanKey {
    SpanKey::of(&String::from(text), seed())
}

/// Whether this stage has latched any span of this length: only then is a
/// span's key worth reading.
pub fn may_hold(stage: &StageHandle, span_len: usize) -> bool {
    LATCHES.with_borrow(|latches| latches.get(&(stage.id() as u64)).is_some_and(|l| l.may_hold_span_of(span_len)))
}

pub fn contains(stage: &StageHandle, key: SpanKey) -> bool {
    LATCHES.with_borrow(|latches| latches.get(&(stage.id() as u64)).is_some_and(|l| l.contains(key)))
}

pub fn insert(stage: &StageHandle, key: SpanKey, span_len: usize) {
    let id = stage.id() as u64;
    let created = LATCHES.with_borrow_mut(|latches| {
        let mut created = false;
        latches
            .entry(id)
            .or_insert_with(|| {
                created = true;
                Latch::new(Latch::DEFAULT_CAPACITY)
            })
            .insert(key, span_len);
        created
    });
    if created {
        FREE.with(|free| glue::free_when_collected(stage, id as f64, free));
    }
}

fn forget(stage_id: f64) {
    LATCHES.with_borrow_mut(|latches| latches.remove(&(stage_id as u64)));
}
