//! The shared suite: drives the exported API through real JS values (a JS
//! store, provider and callback, a Proxy scope that records every get and
//! set) and checks SPEC §1–§8. Included by tests/node.rs and tests/browser.rs;
//! the helpers are here, the tests in one module per topic.

mod background;
mod beyond;
mod claims;
mod details;
mod failures;
mod isolation;
mod parity;
mod rolling;
mod tokens;

use footprint_summarize::bindings as api;
use footprint_summarize::core::format::{label_text, utf16_len, DEFAULT_SYSTEM_PROMPT, EVENT_TYPE};
use footprint_summarize::core::latch::Latch;
use js_sys::{Array, Function, Promise, Reflect};
use serde_json::{json, Value};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::*;

/// The stored label, as the core writes it.
fn label(from_turn: f64, to_turn: f64, count: usize, author: &str) -> String {
    label_text(author).render(&[from_turn, to_turn, count as f64])
}

#[wasm_bindgen(module = "/tests/common/fixtures.js")]
extern "C" {
    fn conversation(turns: u32, per_turn: u32, content_length: u32, conversation_id: &str) -> Array;
    fn tagged(entries: &Array, tag: &str) -> Array;
    fn entry(id: &str, content: &JsValue, turn: JsValue, updated_at: JsValue) -> JsValue;
    #[wasm_bindgen(js_name = summaryOf)]
    fn summary_of(id: &str, covered_ids: &JsValue, to_turn: f64) -> JsValue;
    #[wasm_bindgen(js_name = withProperty)]
    fn with_property(object: &JsValue, path: &str, value: &JsValue) -> JsValue;
    fn ids(array: &JsValue) -> String;
    #[wasm_bindgen(js_name = keysOf)]
    fn keys_of(object: &JsValue) -> String;
    fn same(a: &JsValue, b: &JsValue) -> bool;
    #[wasm_bindgen(js_name = json)]
    fn to_json(value: &JsValue) -> String;
    #[wasm_bindgen(js_name = isPlain)]
    fn is_plain(value: &JsValue) -> bool;
    fn sleep(ms: u32) -> Promise;
    #[wasm_bindgen(js_name = runConcurrently)]
    fn run_concurrently(
        stage: &JsValue,
        harness: &Harness,
        loaded: &JsValue,
        identity: &JsValue,
        count: u32,
    ) -> JsValue;

    type Harness;
    #[wasm_bindgen(constructor)]
    fn new(options: JsValue) -> Harness;
    #[wasm_bindgen(method)]
    fn config(this: &Harness, extra: JsValue) -> JsValue;
    #[wasm_bindgen(method)]
    fn scope(this: &Harness, loaded: &JsValue, identity: &JsValue) -> JsValue;
    #[wasm_bindgen(method)]
    fn json(this: &Harness, field: &str) -> String;
    #[wasm_bindgen(method, js_name = recallIds)]
    fn recall_ids(this: &Harness) -> String;
    #[wasm_bindgen(method, js_name = captureWarnings)]
    fn capture_warnings(this: &Harness);
    #[wasm_bindgen(method, js_name = restoreWarnings)]
    fn restore_warnings(this: &Harness);
    #[wasm_bindgen(method)]
    fn release(this: &Harness);
    #[wasm_bindgen(method, getter, js_name = indexReads)]
    fn index_reads(this: &Harness) -> u32;
    #[wasm_bindgen(method, getter, js_name = emitThisWasScope)]
    fn emit_this_was_scope(this: &Harness) -> bool;
    #[wasm_bindgen(method, getter)]
    fn state(this: &Harness) -> JsValue;
    #[wasm_bindgen(method, getter)]
    fn calls(this: &Harness) -> Array;
    #[wasm_bindgen(method, getter)]
    fn puts(this: &Harness) -> Array;
}

// ---------------------------------------------------------------- helpers

fn js(value: &Value) -> JsValue {
    js_sys::JSON::parse(&value.to_string()).expect("test JSON")
}

fn parse(text: &str) -> Value {
    serde_json::from_str(text).expect("JSON from a fixture")
}

fn get(object: &JsValue, key: &str) -> JsValue {
    Reflect::get(object, &JsValue::from_str(key)).expect("readable property")
}

fn at(array: &JsValue, index: u32) -> JsValue {
    Reflect::get_u32(array, index).expect("readable element")
}

fn eval(code: &str) -> JsValue {
    js_sys::eval(code).expect("test code evaluates")
}

/// A harness, a stage built from its config plus `extra`, and helpers.
struct Fixture {
    h: Harness,
    stage: JsValue,
}

impl Fixture {
    fn new(options: Value, extra: Value) -> Fixture {
        Fixture::with_functions(options, extra, &[])
    }

    /// `new` with config options JSON cannot carry (`now`, `onEvent`).
    fn with_functions(options: Value, extra: Value, functions: &[(&str, JsValue)]) -> Fixture {
        let h = Harness::new(js(&options));
        let config = h.config(js(&extra));
        for (key, function) in functions {
            Reflect::set(&config, &(*key).into(), function).unwrap();
        }
        let stage = api::summarize(config).expect("valid config");
        Fixture { h, stage }
    }

    fn scope(&self, loaded: &JsValue) -> JsValue {
        self.h.scope(loaded, &js(&json!({ "conversationId": "c1" })))
    }

    async fn run(&self, scope: &JsValue) {
        let stage: &Function = self.stage.unchecked_ref();
        let returned = stage.call1(&JsValue::UNDEFINED, scope).expect("stage does not throw");
        let promise: Promise = returned.dyn_into().expect("stage returns a real Promise");
        let resolved = JsFuture::from(promise).await.expect("stage resolves");
        assert!(resolved.is_undefined(), "stage resolves to undefined");
    }

    /// Calls `stage.fold` and hands back its promise without waiting on it.
    fn start_fold(&self, loaded: &JsValue, identity: &JsValue) -> Promise {
        let fold: Function = get(&self.stage, "fold").dyn_into().expect("stage.fold is a function");
        fold.call2(&JsValue::UNDEFINED, loaded, identity).unwrap().dyn_into().expect("fold returns a Promise")
    }

    async fn fold(&self, loaded: &JsValue, identity: &JsValue) -> JsValue {
        JsFuture::from(self.start_fold(loaded, identity)).await.expect("fold resolves")
    }

    fn events(&self) -> Vec<Value> {
        parse(&self.h.json("events")).as_array().unwrap().clone()
    }

    fn only_event(&self) -> Value {
        let events = self.events();
        assert_eq!(events.len(), 1, "exactly one event: {events:#?}");
        assert_eq!(events[0]["type"], EVENT_TYPE);
        events[0]["payload"].clone()
    }

    fn field(&self, name: &str) -> Value {
        parse(&self.h.json(name))
    }

    fn call_count(&self) -> u32 {
        self.h.calls().length()
    }

    fn recall_ids(&self) -> Vec<String> {
        serde_json::from_str(&self.h.recall_ids()).unwrap()
    }
}

/// The payload of the first event a `stage.fold` result holds.
fn first_payload(result: &JsValue) -> Value {
    parse(&to_json(&get(&at(&get(result, "events"), 0), "payload")))
}

/// The fold evidence of the first event a `stage.fold` result holds.
fn first_evidence(result: &JsValue) -> Value {
    first_payload(result)["scoreEvidence"].clone()
}

/// The content of `array[index]` (an entry with a string content).
fn content_at(array: &JsValue, index: u32) -> String {
    get(&get(&at(array, index), "value"), "content").as_string().expect("content is a string")
}

/// Starts a fold for each (recall, identity) at once while the gated
/// summarizer holds every call. Returns the calls made while all were in
/// flight and, once released, each fold's result.
async fn fold_held(f: &Fixture, runs: &[(&JsValue, &JsValue)]) -> (u32, Vec<Value>) {
    let folds: Vec<Promise> = runs.iter().map(|(loaded, identity)| f.start_fold(loaded, identity)).collect();
    JsFuture::from(sleep(5)).await.unwrap();
    let calls = f.call_count();
    f.h.release();
    let mut results = Vec::new();
    for promise in folds {
        results.push(parse(&to_json(&JsFuture::from(promise).await.unwrap())));
    }
    (calls, results)
}

/// `config` (JS source) is refused at build with this error class and a message holding `says`.
fn assert_refused(config: &str, class: &str, says: &str) {
    let (found_class, message) = refusal(config);
    assert_eq!(found_class, class, "{config}: {message}");
    assert!(message.contains(says), "{config}: {message}");
}

fn reason(payload: &Value) -> &str {
    payload["reason"].as_str().expect("reason is a string")
}

/// Default-ish settings used by most tests: 2 entries a turn, fold early.
fn small_config() -> Value {
    json!({ "triggerMinEntries": 10, "preserveRecent": 4 })
}

fn id_list(prefix_turns: std::ops::RangeInclusive<u32>, per_turn: u32) -> Vec<String> {
    prefix_turns.flat_map(|t| (0..per_turn).map(move |i| format!("msg-{t}-{i}"))).collect()
}

fn refusal(config: &str) -> (String, String) {
    let error = JsValue::from(api::summarize(eval(config)).err().unwrap_or_else(|| panic!("{config} was accepted")));
    let class = get(&get(&error, "constructor"), "name").as_string().unwrap();
    (class, get(&error, "message").as_string().unwrap())
}

/// The 12-entry conversation `small_config` folds 8 entries of, with the
/// last id of that span (entry 7) replaced.
fn with_last_span_id(id: &JsValue) -> Array {
    let loaded = conversation(6, 2, 100, "c1");
    with_property(&at(&loaded, 7), "id", id);
    loaded
}

/// Entries `from..=to` turns (2 a turn, 200 chars each) of conversation c1.
fn turns(from: u32, to: u32) -> Vec<JsValue> {
    let all = conversation(to, 2, 200, "c1");
    all.iter().skip(2 * (from as usize - 1)).collect()
}

fn array_of(entries: &[JsValue]) -> Array {
    entries.iter().collect()
}

/// The exact details of `conversation(6, 2, 100, _)`'s first four turns
/// (`order #100N costs $N.99` in each), all dropped by a summary that names
/// none: the audit fields (SPEC §8, Details) a fold's evidence ends with.
fn dropped_filler_details() -> Value {
    let details: Vec<String> = (1..=4).flat_map(|turn| [format!("#{}", 1000 + turn), format!("${turn}.99")]).collect();
    json!({ "detailsFound": 8, "detailsKept": 0, "droppedDetails": details, "droppedDetailCount": 8 })
}

/// `evidence` with the audit fields of `dropped_filler_details` after the rest.
fn with_dropped_filler_details(mut evidence: Value) -> Value {
    let fields = evidence.as_object_mut().expect("evidence is an object");
    for (key, value) in dropped_filler_details().as_object().unwrap() {
        fields.insert(key.clone(), value.clone());
    }
    evidence
}
