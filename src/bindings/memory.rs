//! The module's memory between visits (`core::memory`): every stage's
//! flights and latch, which the visit drives. A latch is in Wasm memory
//! from its stage's first refusal on; that stage's handle is then
//! registered with a `FinalizationRegistry`, which frees the latch once
//! the handle is collected. Besides, only the plain configs of the 16
//! stages used most recently are kept (`stage.rs`): a stage that never refused
//! anything owns no other Wasm memory.

use std::rc::Rc;

use js_sys::FinalizationRegistry;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::js::fill_random;
use super::stage::StageHandle;
use crate::core::memory::Memory;

thread_local! {
    pub static MEMORY: Rc<Memory<JsValue>> = Rc::new(Memory::new(draw_seed));
    static REGISTRY: FinalizationRegistry =
        FinalizationRegistry::new(Closure::<dyn Fn(JsValue)>::new(forget).into_js_value().unchecked_ref());
}

/// The latch's seed, drawn on its first use: that draw reads `crypto`,
/// whose first use loads Node's Web Crypto, a part of a serverless cold
/// start users feel (README, "Cold start"), so only a stage that latched
/// something pays for it.
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

/// Frees the stage's latch once its handle is collected.
pub fn free_latch_with(stage: &StageHandle) {
    REGISTRY.with(|registry| registry.register(stage, &JsValue::from_f64(stage.id())));
}

/// The registry's cleanup: the stage id `free_latch_with` registered.
fn forget(stage_id: JsValue) {
    if let Some(id) = stage_id.as_f64() {
        MEMORY.with(|memory| memory.forget(id));
    }
}
