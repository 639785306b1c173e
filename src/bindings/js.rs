//! The JS values the stage reads and calls, declared once: the caller's
//! scope, entries, identity, summarizer and store, the globals it uses, and
//! `glue.js`. Every getter of a caller's object is `catch`: a getter or a
//! Proxy may throw, and nothing a caller throws may unwind through Wasm.

use js_sys::{Array, JsString, Object, Promise};
use wasm_bindgen::prelude::*;

use crate::core::events::bounded_cause;

#[wasm_bindgen(module = "/src/bindings/glue.js")]
extern "C" {
    /// `a number (42)`: a short, safe description of any value.
    pub fn describe(value: &JsValue) -> String;
    #[wasm_bindgen(js_name = causeOf)]
    fn whole_cause_of(error: &JsValue) -> String;
    /// A native promise of what `await value` gives.
    pub fn awaitable(value: &JsValue) -> Promise;
    /// Calls `settle(id, true, value)` or `settle(id, false, error)` once
    /// `promise` settles, or `settle(id)` once it is garbage.
    #[wasm_bindgen(js_name = onSettled)]
    pub fn on_settled(promise: &Promise, id: u32, settle: &JsValue);
    /// `{ ...value }`: its own enumerable properties, each read once.
    #[wasm_bindgen(js_name = plainCopy, catch)]
    pub fn plain_copy(value: &JsValue) -> Result<Object, JsValue>;
    /// A copy by iteration, as footprintjs needs (SPEC §4 step 1), that
    /// stops once it holds more than `max` entries.
    #[wasm_bindgen(js_name = copyUpTo, catch)]
    pub fn copy_up_to(value: &JsValue, max: u32) -> Result<Array, JsValue>;

    /// A timer's promise, and the function that clears it.
    pub type Deadline;
    pub fn deadline(ms: f64) -> Deadline;
    #[wasm_bindgen(method, getter)]
    pub fn promise(this: &Deadline) -> Promise;
    #[wasm_bindgen(method)]
    pub fn clear(this: &Deadline);

    /// Counts a background fold's promise in the stage's `settled()`, and
    /// returns a promise that settles (never rejects) when the fold ends.
    #[wasm_bindgen(js_name = trackBackgroundFold)]
    pub fn track_background_fold(handle: &JsValue, fold: &Promise) -> Promise;
    #[wasm_bindgen(js_name = makeStage)]
    pub fn make_stage(handle: &JsValue) -> JsValue;
    /// Makes this instance the one every stage runs on.
    #[wasm_bindgen(js_name = useEntryPoints)]
    pub fn use_entry_points(run: &JsValue, fold: &JsValue);
    /// A stage id no instance of this module has given out.
    #[wasm_bindgen(js_name = nextStageId)]
    pub fn next_stage_id() -> f64;
    /// Names what an export throws on purpose to the guard, and returns it.
    pub fn refuse(error: JsValue) -> JsValue;
}

#[wasm_bindgen]
extern "C" {
    /// The global `String(value)`; it throws for a value with no string form.
    #[wasm_bindgen(js_name = String, catch)]
    pub fn js_string(value: &JsValue) -> Result<JsString, JsValue>;
    /// `Array.isArray`, which throws for a revoked Proxy.
    #[wasm_bindgen(js_namespace = Array, js_name = isArray, catch)]
    pub fn is_array(value: &JsValue) -> Result<bool, JsValue>;
    #[wasm_bindgen(js_namespace = console, js_name = warn, catch)]
    pub fn console_warn(message: &str) -> Result<(), JsValue>;

    /// The platform's `AbortController`, for a provider request's `signal`.
    pub type AbortController;
    #[wasm_bindgen(constructor)]
    pub fn new() -> AbortController;
    #[wasm_bindgen(method, getter)]
    pub fn signal(this: &AbortController) -> JsValue;
    #[wasm_bindgen(method)]
    pub fn abort(this: &AbortController, reason: &JsValue);

    /// Web Crypto's CSPRNG: a global in Node 20+, Deno, Bun, workerd and
    /// browsers (`memory.rs` falls back on a host without it).
    #[wasm_bindgen(js_namespace = crypto, js_name = getRandomValues, catch)]
    pub fn fill_random(bytes: &mut [u8]) -> Result<(), JsValue>;
}

/// `{ ...value }`, plus each of `names` that `value` inherits (a class's
/// getter, a prototype's field), which a spread leaves out: every field is
/// read once. May throw (a getter, a Proxy).
pub fn plain_copy_with(value: &JsValue, names: &[&str]) -> Result<Object, JsValue> {
    let copy = plain_copy(value)?;
    for name in names {
        let name = JsValue::from_str(name);
        // The copy's own properties are plain data: asking it cannot throw.
        if !js_sys::Reflect::has(&copy, &name).unwrap_or(true) && js_sys::Reflect::has(value, &name)? {
            // A plain object takes any key.
            let _ = js_sys::Reflect::set(&copy, &name, &js_sys::Reflect::get(value, &name)?);
        }
    }
    Ok(copy)
}

/// An `Error`'s message, or `String(value)` for anything else, as events
/// and warnings quote it (`bounded_cause`).
pub fn cause_of(error: &JsValue) -> String {
    bounded_cause(whole_cause_of(error))
}

/// What the stage reads of the caller's objects (SPEC §2), field by field.
#[wasm_bindgen]
extern "C" {
    /// A footprintjs scope, or any object with the same fields.
    pub type Scope;
    #[wasm_bindgen(method, getter, catch)]
    pub fn loaded(this: &Scope) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, getter, catch)]
    pub fn identity(this: &Scope) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, getter, catch, js_name = "$emit")]
    pub fn emit(this: &Scope) -> Result<JsValue, JsValue>;

    pub type Entry;
    #[wasm_bindgen(method, getter, catch)]
    pub fn id(this: &Entry) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, getter, catch)]
    pub fn value(this: &Entry) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, getter, catch)]
    pub fn source(this: &Entry) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, getter, catch, js_name = updatedAt)]
    pub fn updated_at(this: &Entry) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, getter, catch)]
    pub fn metadata(this: &Entry) -> Result<JsValue, JsValue>;

    /// `entry.value`: a message.
    pub type Message;
    #[wasm_bindgen(method, getter, catch)]
    pub fn role(this: &Message) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, getter, catch)]
    pub fn content(this: &Message) -> Result<JsValue, JsValue>;

    pub type Source;
    #[wasm_bindgen(method, getter, catch)]
    pub fn turn(this: &Source) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, getter, catch)]
    pub fn identity(this: &Source) -> Result<JsValue, JsValue>;

    pub type Metadata;
    /// A summary's coverage (SPEC §2).
    #[wasm_bindgen(method, getter, catch)]
    pub fn summarizes(this: &Metadata) -> Result<JsValue, JsValue>;
    /// A fleet's claim on a span (SPEC §8, Claims).
    #[wasm_bindgen(method, getter, catch, js_name = summaryClaim)]
    pub fn summary_claim(this: &Metadata) -> Result<JsValue, JsValue>;

    pub type Coverage;
    #[wasm_bindgen(method, getter, catch, js_name = coveredIds)]
    pub fn covered_ids(this: &Coverage) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, getter, catch, js_name = fromTurn)]
    pub fn from_turn(this: &Coverage) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, getter, catch, js_name = toTurn)]
    pub fn to_turn(this: &Coverage) -> Result<JsValue, JsValue>;

    /// What a provider (`llm.complete`) or a store (`store.put`,
    /// `store.putIfVersion`) must have.
    pub type Callee;
    #[wasm_bindgen(method, getter, catch)]
    pub fn complete(this: &Callee) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, getter, catch)]
    pub fn put(this: &Callee) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, getter, catch, js_name = putIfVersion)]
    pub fn put_if_version(this: &Callee) -> Result<JsValue, JsValue>;

    /// A provider's response: `{ content, usage? }`.
    pub type ProviderResponse;
    #[wasm_bindgen(method, getter, catch)]
    pub fn content(this: &ProviderResponse) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, getter, catch)]
    pub fn usage(this: &ProviderResponse) -> Result<JsValue, JsValue>;

    /// `usage`'s token counts.
    pub type UsageCounts;
    #[wasm_bindgen(method, getter, catch)]
    pub fn input(this: &UsageCounts) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, getter, catch)]
    pub fn output(this: &UsageCounts) -> Result<JsValue, JsValue>;

    /// What a store's `putIfVersion` resolves to: `{ applied, currentVersion? }`.
    pub type ConditionalWriteAnswer;
    #[wasm_bindgen(method, getter, catch)]
    pub fn applied(this: &ConditionalWriteAnswer) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(method, getter, catch, js_name = currentVersion)]
    pub fn current_version(this: &ConditionalWriteAnswer) -> Result<JsValue, JsValue>;
}
