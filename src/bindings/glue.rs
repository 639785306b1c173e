//! Declarations of `glue.js`, the JS half of the bindings layer.

use js_sys::{Promise, Uint32Array};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/src/bindings/glue.js")]
extern "C" {
    /// One recall, snapshotted and validated by `readRecall` (glue.js reads it
    /// before entering Wasm; see `makeStage`).
    #[derive(Clone)]
    pub type RecallRead;

    #[wasm_bindgen(method, getter)]
    pub fn length(this: &RecallRead) -> u32;
    #[wasm_bindgen(method, getter)]
    pub fn identity(this: &RecallRead) -> JsValue;
    #[wasm_bindgen(method, getter)]
    pub fn invalid(this: &RecallRead) -> Option<InvalidSpotJs>;
    #[wasm_bindgen(method, getter, js_name = textLengths)]
    pub fn text_lengths(this: &RecallRead) -> Uint32Array;

    pub type InvalidSpotJs;
    #[wasm_bindgen(method, getter)]
    pub fn index(this: &InvalidSpotJs) -> i32;
    #[wasm_bindgen(method, getter)]
    pub fn field(this: &InvalidSpotJs) -> String;
    #[wasm_bindgen(method, getter)]
    pub fn found(this: &InvalidSpotJs) -> String;
    #[wasm_bindgen(method, getter)]
    pub fn expected(this: &InvalidSpotJs) -> String;

    /// The text that keys an identity (read once per considered fold), or
    /// undefined for one with no text of its own.
    #[wasm_bindgen(js_name = identityKey)]
    pub fn identity_key(identity: &JsValue) -> JsValue;
    /// The span key text's UTF-16 length (from the ids as read), given an
    /// identity's key text.
    #[wasm_bindgen(js_name = readSpanKey)]
    pub fn read_span_key(read: &RecallRead, identity_key: &JsValue, span: &[u32]) -> u32;
    /// Fills `lengths` (span length + 1) and the UTF-8 of the key text; the
    /// bytes written, or -1 when `bytes` is too small.
    #[wasm_bindgen(js_name = encodeSpanKey)]
    pub fn encode_span_key(read: &RecallRead, bytes: &mut [u8], lengths: &mut [u32]) -> i32;
    /// None when a span entry can no longer be read as it was.
    #[wasm_bindgen(js_name = readSpanText)]
    pub fn read_span_text(read: &RecallRead, span: &[u32]) -> Option<String>;
    #[wasm_bindgen(js_name = assembleTranscript)]
    pub fn assemble_transcript(read: &RecallRead, text: &str, splices: &[u32]) -> js_sys::JsString;
    #[wasm_bindgen(js_name = coverageOf)]
    pub fn coverage_of(entry: &JsValue) -> JsValue;
    pub fn describe(value: &JsValue) -> String;
    /// An exception's message (or its description when it is not an Error).
    #[wasm_bindgen(js_name = causeOf)]
    pub fn cause_of(error: &JsValue) -> String;

    /// What a summarizer call came to: `{ ok, text, usage, cause }`.
    pub type CallOutcome;
    #[wasm_bindgen(method, getter)]
    pub fn ok(this: &CallOutcome) -> bool;
    #[wasm_bindgen(method, getter)]
    pub fn text(this: &CallOutcome) -> js_sys::JsString;
    #[wasm_bindgen(method, getter)]
    pub fn cause(this: &CallOutcome) -> String;
    #[wasm_bindgen(method, getter)]
    pub fn usage(this: &CallOutcome) -> Option<UsageJs>;

    pub type UsageJs;
    #[wasm_bindgen(method, getter)]
    pub fn input(this: &UsageJs) -> Option<f64>;
    #[wasm_bindgen(method, getter)]
    pub fn output(this: &UsageJs) -> Option<f64>;

    #[wasm_bindgen(js_name = callProvider)]
    pub fn call_provider(
        llm: &JsValue,
        system_prompt: &js_sys::JsString,
        transcript: &js_sys::JsString,
        model: &js_sys::JsString,
        timeout_ms: Option<f64>,
    ) -> Promise;
    #[wasm_bindgen(js_name = callCallback)]
    pub fn call_callback(
        llm: &JsValue,
        system_prompt: &js_sys::JsString,
        read: &RecallRead,
        span: &[u32],
        timeout_ms: Option<f64>,
    ) -> Promise;
    #[wasm_bindgen(js_name = putEntry)]
    pub fn put_entry(store: &JsValue, identity: &JsValue, entry: &JsValue) -> Promise;

    /// Undefined when the first span entry's `source` can no longer be read
    /// (every other field it needs was read once, with recall). The id and
    /// the content's header are written from the pieces of
    /// `format::summary_id_text` and `StageConfig::header`.
    #[wasm_bindgen(js_name = summaryEntry)]
    pub fn summary_entry(
        read: &RecallRead,
        span: &[u32],
        summary_id_pieces: &js_sys::Array,
        header_pieces: &js_sys::Array,
        text: &js_sys::JsString,
        from_turn: f64,
        to_turn: f64,
        anchor: f64,
        now: f64,
        ttl_ms: Option<f64>,
        tier: &js_sys::JsString,
        model: Option<js_sys::JsString>,
    ) -> JsValue;
    #[wasm_bindgen(js_name = buildRecall)]
    pub fn build_recall(read: &RecallRead, slots: &[u32], new_summary: &JsValue) -> js_sys::Array;
    #[wasm_bindgen(js_name = assignLoaded)]
    pub fn assign_loaded(scope: &JsValue, read: &RecallRead, slots: &[u32], new_summary: &JsValue);
    #[wasm_bindgen(js_name = foldResult)]
    pub fn fold_result(recall: &JsValue, kind: &js_sys::JsString, payload: &JsValue) -> JsValue;
    /// Builds the payload, emits it (through `scope.$emit` when `scope` is
    /// defined, and `onEvent`) and returns it. `text` is the reason (up to
    /// `reason_end`, in UTF-16 units), then the evidence's text fields, then
    /// the added id if any: one string, decoded once. `fields` is the
    /// evidence packed by `evidence::PackedFields`, keyed by `evidence_keys`.
    #[wasm_bindgen(js_name = emitEvent)]
    pub fn emit_event(
        scope: &JsValue,
        on_event: &JsValue,
        kind: &js_sys::JsString,
        strategy_id: &js_sys::JsString,
        strategy_kind: &js_sys::JsString,
        text: &str,
        reason_end: u32,
        evidence_keys: &js_sys::Array,
        fields: &[f64],
        input_count: u32,
        output_count: u32,
        read: &RecallRead,
        dropped: &[u32],
    ) -> JsValue;
    /// `facts_from`: `decision::facts_needed_from`, for the reader.
    #[wasm_bindgen(js_name = makeStage)]
    pub fn make_stage(inner: JsValue, facts_from: u32) -> JsValue;
    /// What a visit waits on before `resume(ticket, value)` takes it on.
    #[wasm_bindgen(js_name = awaitStep)]
    pub fn await_step(ticket: u32, promise: &Promise) -> JsValue;

    /// A promise for a flight's followers, and the function that resolves it.
    pub type FlightSignal;
    #[wasm_bindgen(js_name = newFlightSignal)]
    pub fn new_flight_signal() -> FlightSignal;
    #[wasm_bindgen(method, getter)]
    pub fn promise(this: &FlightSignal) -> Promise;
    #[wasm_bindgen(method)]
    pub fn resolve(this: &FlightSignal);
    pub fn warn(message: &str);
}
