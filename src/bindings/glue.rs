//! Declarations of `glue.js`, the JS half of the bindings, and of the
//! objects it builds: the one place their property names are written down.

use js_sys::{Array, Float64Array, Function, Promise};
use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/src/bindings/glue.js")]
extern "C" {
    /// One recall as `readRecall` read it: the snapshot, and each entry's id
    /// and facts.
    pub type RecallRead;
    #[wasm_bindgen(method, getter)]
    pub fn snapshot(this: &RecallRead) -> Array;
    #[wasm_bindgen(method, getter)]
    pub fn identity(this: &RecallRead) -> JsValue;
    /// Every entry's id as checked: the caller's own strings.
    #[wasm_bindgen(method, getter)]
    pub fn ids(this: &RecallRead) -> Array;
    /// Every entry's facts, one column after another, where `FACT_COLUMNS`
    /// says each column starts.
    #[wasm_bindgen(method, getter)]
    pub fn facts(this: &RecallRead) -> Float64Array;

    /// Where each fact column starts in `RecallRead.facts`, in entries (a
    /// recall of n entries has entry i's turn at `turns * n + i`). NaN in
    /// `turns`/`updatedAts` means absent; NaN in `toTurns` means a raw entry
    /// (a summary without a finite `toTurn` has 0). Read at each recall's
    /// copy: seven getters on one frozen object.
    pub type FactColumns;
    #[wasm_bindgen(thread_local_v2, js_name = FACT_COLUMNS)]
    pub static FACT_COLUMNS: FactColumns;
    #[wasm_bindgen(method, getter)]
    pub fn turns(this: &FactColumns) -> usize;
    #[wasm_bindgen(method, getter, js_name = updatedAts)]
    pub fn updated_ats(this: &FactColumns) -> usize;
    /// UTF-16 length of each content (0 when null or absent).
    #[wasm_bindgen(method, getter)]
    pub fn units(this: &FactColumns) -> usize;
    #[wasm_bindgen(method, getter, js_name = toTurns)]
    pub fn to_turns(this: &FactColumns) -> usize;
    /// A summary's `coverage.fromTurn` (its `toTurn` when not a finite number).
    #[wasm_bindgen(method, getter, js_name = fromTurns)]
    pub fn from_turns(this: &FactColumns) -> usize;
    /// 1 where another summary in this recall names the entry's id.
    #[wasm_bindgen(method, getter)]
    pub fn covered(this: &FactColumns) -> usize;
    /// 1 where the entry is a fleet's claim on a span (`metadata.summaryClaim`)
    /// and not a summary.
    #[wasm_bindgen(method, getter)]
    pub fn claims(this: &FactColumns) -> usize;

    /// How many entries are summaries or claims.
    #[wasm_bindgen(method, getter, js_name = summariesAndClaims)]
    pub fn summaries_and_claims(this: &RecallRead) -> u32;
    /// The first spot that broke SPEC §8's shapes, if any.
    #[wasm_bindgen(method, getter)]
    pub fn invalid(this: &RecallRead) -> Option<InvalidSpotJs>;

    pub type InvalidSpotJs;
    /// -1 when `loaded` itself is the problem.
    #[wasm_bindgen(method, getter)]
    pub fn index(this: &InvalidSpotJs) -> i32;
    #[wasm_bindgen(method, getter)]
    pub fn field(this: &InvalidSpotJs) -> String;
    #[wasm_bindgen(method, getter)]
    pub fn found(this: &InvalidSpotJs) -> String;
    #[wasm_bindgen(method, getter)]
    pub fn expected(this: &InvalidSpotJs) -> String;

    #[wasm_bindgen(js_name = readScope)]
    pub fn read_scope(scope: &JsValue) -> RecallRead;
    #[wasm_bindgen(js_name = readRecall)]
    pub fn read_recall(loaded: &JsValue) -> RecallRead;

    /// A deadline's promise and the function that clears it.
    pub type Deadline;
    pub fn deadline(ms: f64, marker: &JsValue) -> Deadline;
    #[wasm_bindgen(method, getter)]
    pub fn promise(this: &Deadline) -> Promise;
    #[wasm_bindgen(method)]
    pub fn clear(this: &Deadline);

    #[wasm_bindgen(js_name = coverageOf)]
    pub fn coverage_of(entry: &JsValue) -> JsValue;
    /// A fleet's claim that is not a summary (what `readRecall` marks in `claims`).
    #[wasm_bindgen(js_name = isClaimEntry)]
    pub fn claim_entry(entry: &JsValue) -> bool;
    pub fn describe(value: &JsValue) -> String;
    #[wasm_bindgen(js_name = causeOf)]
    pub fn cause_of(error: &JsValue) -> String;
    pub fn awaitable(value: &JsValue) -> Promise;
    pub fn pick(snapshot: &Array, slots: &[u32], added: &JsValue, added_slot: u32) -> Array;
    #[wasm_bindgen(js_name = pickIds)]
    pub fn pick_ids(ids: &Array, indices: &[u32]) -> Array;
    /// See `spanTexts` in glue.js: the span's texts, and those that must
    /// cross to be defanged.
    pub type SpanTexts;
    #[wasm_bindgen(js_name = spanTexts)]
    pub fn span_texts(snapshot: &Array, span: &[u32], marker_lead: &js_sys::JsString) -> Option<SpanTexts>;
    #[wasm_bindgen(method, getter)]
    pub fn texts(this: &SpanTexts) -> Array;
    #[wasm_bindgen(method, getter, js_name = absentRoles)]
    pub fn absent_roles(this: &SpanTexts) -> Vec<u8>;
    #[wasm_bindgen(method, getter)]
    pub fn marked(this: &SpanTexts) -> String;
    #[wasm_bindgen(method, getter, js_name = markedAt)]
    pub fn marked_at(this: &SpanTexts) -> Vec<u32>;
    #[wasm_bindgen(method, getter, js_name = markedLengths)]
    pub fn marked_lengths(this: &SpanTexts) -> Vec<u32>;
    #[wasm_bindgen(js_name = assembleTranscript)]
    pub fn assemble_transcript(texts: &Array, text: &str, splices: &[u32]) -> js_sys::JsString;
    #[wasm_bindgen(js_name = spanValues)]
    pub fn span_values(snapshot: &Array, span: &[u32]) -> Option<Array>;
    #[wasm_bindgen(js_name = sourceIdentity)]
    pub fn source_identity(entry: &JsValue) -> JsValue;
    #[wasm_bindgen(js_name = identityKey)]
    pub fn identity_key(identity: &JsValue) -> Option<js_sys::JsString>;
    #[wasm_bindgen(js_name = spanKey)]
    pub fn span_key(identity_text: &js_sys::JsString, ids: &Array, span: &[u32]) -> js_sys::JsString;
    #[wasm_bindgen(js_name = sendEvent)]
    pub fn send_event(scope: &JsValue, on_event: &JsValue, kind: &js_sys::JsString, payload: &JsValue);
    #[wasm_bindgen(js_name = assignLoaded)]
    pub fn assign_loaded(scope: &JsValue, recall: &Array);
    pub fn warn(message: &str);
    #[wasm_bindgen(js_name = freeWhenCollected)]
    pub fn free_when_collected(handle: &JsValue, stage_id: f64, free: &Function);
    #[wasm_bindgen(js_name = makeStage)]
    pub fn make_stage(handle: &JsValue, run: &JsValue, fold: &JsValue) -> JsValue;
}
