//! The plain objects the stage hands to JS, as serde types: the summary
//! entry and the claim (SPEC §2, §8), the event payload, a provider request
//! and `stage.fold`'s result. Key order is field order. What is the caller's
//! own (ids, identities, entries, the summarizer's text) passes through
//! untouched (`serde_wasm_bindgen::preserve`).

use js_sys::{Array, JsString};
use serde::Serialize;
use wasm_bindgen::JsValue;

use crate::core::events::Evidence;

/// Plain objects and arrays only (SPEC §1): footprintjs clones what it is given.
pub fn to_js(value: &impl Serialize) -> JsValue {
    let serializer = serde_wasm_bindgen::Serializer::json_compatible();
    // Serializing these types cannot fail: every field is a number, a string,
    // a struct of them or a preserved JS value.
    value.serialize(&serializer).unwrap_or(JsValue::UNDEFINED)
}

/// A `{ role, content }` message.
#[derive(Serialize)]
pub struct Message<Content: Serialize> {
    pub role: &'static str,
    pub content: Content,
}

/// The summary's content: the label, then the summarizer's own text.
#[derive(Serialize)]
#[serde(transparent)]
pub struct JsText(#[serde(with = "serde_wasm_bindgen::preserve")] pub JsString);

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SummaryEntry<'a> {
    pub id: &'a str,
    pub value: Message<JsText>,
    pub metadata: Metadata<'a>,
    pub version: u32,
    pub created_at: f64,
    pub updated_at: f64,
    pub last_accessed_at: f64,
    pub access_count: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ttl: Option<f64>,
    pub tier: &'static str,
    pub source: Source,
}

#[derive(Serialize)]
pub struct Metadata<'a> {
    pub summarizes: Coverage<'a>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Coverage<'a> {
    pub from_turn: f64,
    pub to_turn: f64,
    pub entry_count: usize,
    /// The caller's own id strings.
    #[serde(with = "serde_wasm_bindgen::preserve")]
    pub covered_ids: Array,
    /// The provider's model; left out for a callback.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    pub summarized_at_ms: f64,
    /// The first details of the span the summary dropped (`core::details`);
    /// left out when it dropped none.
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    pub dropped_details: &'a [String],
}

#[derive(Serialize)]
pub struct Source {
    pub turn: f64,
    /// The first span entry's `source.identity`, when truthy.
    #[serde(skip_serializing_if = "JsValue::is_undefined", with = "serde_wasm_bindgen::preserve")]
    pub identity: JsValue,
}

/// A fleet's claim on a span (`claims: true`), written with
/// `putIfVersion(identity, claim, 0)` before the call is paid for. Its
/// `ttl` is when the lease ends; it is dated just before the oldest loaded
/// entry, so a recency-limited load never takes it in place of a message.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClaimEntry<'a> {
    pub id: &'a str,
    pub value: Message<&'static str>,
    pub metadata: ClaimMetadata,
    pub version: f64,
    pub created_at: f64,
    pub updated_at: f64,
    pub last_accessed_at: f64,
    pub access_count: u32,
    pub ttl: f64,
    pub tier: &'static str,
    pub source: Source,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClaimMetadata {
    pub summary_claim: Claim,
}

/// What a claim says: the span, and when its lease started and how long it is.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Claim {
    pub from_turn: f64,
    pub to_turn: f64,
    pub entry_count: usize,
    pub claimed_at_ms: f64,
    pub lease_ms: f64,
}

/// `agentfootprint.memory.strategy_applied`'s payload (SPEC §2).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Payload<'a> {
    pub strategy_id: &'a str,
    pub strategy_kind: &'static str,
    pub reason: &'a str,
    pub input_memory_count: usize,
    pub output_memory_count: usize,
    /// The caller's own id strings.
    #[serde(with = "serde_wasm_bindgen::preserve")]
    pub dropped_ids: Array,
    pub added_ids: &'a [String],
    pub score_evidence: &'a Evidence,
}

/// The provider shape's one request (SPEC §4 step 8).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderRequest {
    pub system_prompt: String,
    pub messages: [Message<String>; 1],
    pub model: String,
    #[serde(skip_serializing_if = "JsValue::is_undefined", with = "serde_wasm_bindgen::preserve")]
    pub signal: JsValue,
}

/// What `stage.fold` resolves to.
#[derive(Serialize)]
pub struct FoldResult {
    #[serde(with = "serde_wasm_bindgen::preserve")]
    pub recall: JsValue,
    #[serde(with = "serde_wasm_bindgen::preserve")]
    pub events: Array,
}

/// One entry of `stage.fold`'s `events`.
#[derive(Serialize)]
pub struct EventRecord {
    #[serde(rename = "type")]
    pub kind: &'static str,
    #[serde(with = "serde_wasm_bindgen::preserve")]
    pub payload: JsValue,
}
