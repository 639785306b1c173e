//! The floor probe: the least a callback fold at any N can cost when it is
//! built the way this project's stage is, measured by `scripts/bench-floor.sh`
//! against the same baseline as the package.
//!
//! It keeps only what the design fixes for every fold:
//! - the stage's Promise comes from `future_to_promise`, and Rust awaits the
//!   summarizer's answer as a `JsFuture`;
//! - the summary entry and the event payload are serde types written by
//!   `serde_wasm_bindgen::Serializer::json_compatible()`, with the fixed
//!   strings made into JS strings once, as the package does.
//!
//! Everything else is left out or done where it is cheapest: `api.mjs` reads
//! the span in plain JS, and there is no validation, no config, no latch, no
//! single flight, no clock check and no error path. So no stage built this way
//! can be faster than this probe.

use js_sys::{Array, Function, JsString, Promise, Reflect};
use serde::Serialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::{future_to_promise, JsFuture};

#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

#[wasm_bindgen]
extern "C" {
    /// What `spanOf` in api.mjs read: the span's messages (slot 0 is left
    /// for the instruction) and ids, its turns, and the verbatim tail.
    pub type Span;
    #[wasm_bindgen(method, getter)]
    fn messages(this: &Span) -> Array;
    #[wasm_bindgen(method, getter)]
    fn ids(this: &Span) -> Array;
    #[wasm_bindgen(method, getter, js_name = fromTurn)]
    fn from_turn(this: &Span) -> f64;
    #[wasm_bindgen(method, getter, js_name = toTurn)]
    fn to_turn(this: &Span) -> f64;
    #[wasm_bindgen(method, getter)]
    fn tail(this: &Span) -> Array;
}

struct Fixed {
    system: JsValue,
    instruction: JsValue,
    tier: JsValue,
    strategy_id: JsValue,
    strategy_kind: JsValue,
    loaded: JsValue,
    emit: JsValue,
    event_type: JsValue,
}

thread_local! {
    static FIXED: Fixed = Fixed {
        system: "system".into(),
        instruction: "Summarize the conversation so far.".into(),
        tier: "cold".into(),
        strategy_id: "memory-summarize".into(),
        strategy_kind: "summarizing".into(),
        loaded: "loaded".into(),
        emit: "$emit".into(),
        event_type: "agentfootprint.memory.strategy_applied".into(),
    };
}

fn fixed(pick: impl FnOnce(&Fixed) -> &JsValue) -> JsValue {
    FIXED.with(|f| pick(f).clone())
}

#[derive(Serialize)]
struct Message {
    #[serde(with = "serde_wasm_bindgen::preserve")]
    role: JsValue,
    #[serde(with = "serde_wasm_bindgen::preserve")]
    content: JsValue,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Coverage {
    from_turn: f64,
    to_turn: f64,
    entry_count: u32,
    #[serde(with = "serde_wasm_bindgen::preserve")]
    covered_ids: JsValue,
    summarized_at_ms: f64,
}

#[derive(Serialize)]
struct Metadata {
    summarizes: Coverage,
}

#[derive(Serialize)]
struct Source {
    turn: f64,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SummaryEntry<'a> {
    id: &'a str,
    value: Message,
    metadata: Metadata,
    version: u32,
    created_at: f64,
    updated_at: f64,
    last_accessed_at: f64,
    access_count: u32,
    #[serde(with = "serde_wasm_bindgen::preserve")]
    tier: JsValue,
    source: Source,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Evidence {
    summarizer_called: bool,
    span_entries: u32,
    summary_chars: u32,
    persisted: bool,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Payload<'a> {
    #[serde(with = "serde_wasm_bindgen::preserve")]
    strategy_id: JsValue,
    #[serde(with = "serde_wasm_bindgen::preserve")]
    strategy_kind: JsValue,
    reason: &'a str,
    input_memory_count: u32,
    output_memory_count: u32,
    #[serde(with = "serde_wasm_bindgen::preserve")]
    dropped_ids: JsValue,
    added_ids: [&'a str; 1],
    score_evidence: Evidence,
}

fn to_js<T: Serialize>(value: &T) -> Result<JsValue, JsValue> {
    Ok(value.serialize(&serde_wasm_bindgen::Serializer::json_compatible())?)
}

/// One callback fold of `span`: calls `llm`, awaits its answer, then assigns
/// `scope.loaded` (the summary, then the tail) and emits the event.
#[wasm_bindgen]
pub fn fold(llm: &Function, scope: JsValue, span: Span) -> Promise {
    let messages = span.messages();
    let instruction = Message { role: fixed(|f| &f.system), content: fixed(|f| &f.instruction) };
    let called = to_js(&instruction).and_then(|instruction| {
        messages.set(0, instruction);
        llm.call1(&JsValue::UNDEFINED, &messages)
    });
    future_to_promise(async move {
        let text: JsString = JsFuture::from(Promise::resolve(&called?)).await?.unchecked_into();
        let (from_turn, to_turn, ids) = (span.from_turn(), span.to_turn(), span.ids());
        let entries = ids.length();
        let id = format!("msg-summary-{from_turn}-{to_turn}");
        let label = format!("[summary of earlier turns {from_turn}–{to_turn} — {entries} earlier message(s)]\n\n");
        let content = JsString::from(label.as_str()).concat(&text);
        let summary_chars = content.length();
        let now = js_sys::Date::now();
        let entry = to_js(&SummaryEntry {
            id: &id,
            value: Message { role: fixed(|f| &f.system), content: content.into() },
            metadata: Metadata {
                summarizes: Coverage {
                    from_turn,
                    to_turn,
                    entry_count: entries,
                    covered_ids: ids.slice(0, entries).into(),
                    summarized_at_ms: now,
                },
            },
            version: 1,
            created_at: now,
            updated_at: now,
            last_accessed_at: now,
            access_count: 0,
            tier: fixed(|f| &f.tier),
            source: Source { turn: to_turn },
        })?;
        let recall = span.tail();
        recall.unshift(&entry);
        Reflect::set(&scope, &fixed(|f| &f.loaded), &recall)?;
        let reason = format!("folded {entries} entries (turns {from_turn}–{to_turn}) into {id}");
        let payload = to_js(&Payload {
            strategy_id: fixed(|f| &f.strategy_id),
            strategy_kind: fixed(|f| &f.strategy_kind),
            reason: &reason,
            input_memory_count: entries + recall.length() - 1,
            output_memory_count: recall.length(),
            dropped_ids: ids.into(),
            added_ids: [&id],
            score_evidence: Evidence {
                summarizer_called: true,
                span_entries: entries,
                summary_chars,
                persisted: false,
            },
        })?;
        let emit: Function = Reflect::get(&scope, &fixed(|f| &f.emit))?.unchecked_into();
        emit.call2(&scope, &fixed(|f| &f.event_type), &payload)?;
        Ok(JsValue::UNDEFINED)
    })
}
