//! The plain objects the stage hands to JS, as serde types: the summary entry
//! (SPEC §2), the event payload, a provider request and `stage.fold`'s
//! result. Key order is field order. Values that are the caller's own (ids,
//! identities, entries) or already JS strings pass through untouched
//! (`serde_wasm_bindgen::preserve`), so large id lists are never copied.

use js_sys::{Array, JsString};
use serde::Serialize;
use wasm_bindgen::JsValue;

use crate::core::config::Tier;
use crate::core::events::Evidence;
use crate::core::format::{
    rolling_system_prompt, DEFAULT_STRATEGY_ID, DEFAULT_SYSTEM_PROMPT, EVENT_TYPE, MARKER_LEAD, STRATEGY_KIND,
};

/// The fixed strings every fold or event carries, and the config's string
/// defaults, made into JS strings once: each `JsValue::from_str` is a
/// `TextDecoder` call, and these were a fifth of that cost in a 20-entry fold.
pub struct Fixed {
    pub system: JsString,
    pub user: JsString,
    pub event_type: JsString,
    pub strategy_kind: JsString,
    pub default_prompt: JsString,
    /// The default instruction when earlier summaries may be folded in.
    pub rolling_prompt: JsString,
    pub default_strategy_id: JsString,
    /// A claim's content: it holds no text.
    pub empty: JsString,
    pub marker_lead: JsString,
    tiers: [JsString; 3],
}

impl Fixed {
    pub fn tier(&self, tier: Tier) -> JsString {
        self.tiers[tier as usize].clone()
    }
}

thread_local! {
    static FIXED: Fixed = Fixed {
        system: "system".into(),
        user: "user".into(),
        event_type: EVENT_TYPE.into(),
        strategy_kind: STRATEGY_KIND.into(),
        default_prompt: DEFAULT_SYSTEM_PROMPT.into(),
        rolling_prompt: rolling_system_prompt().as_str().into(),
        default_strategy_id: DEFAULT_STRATEGY_ID.into(),
        empty: "".into(),
        marker_lead: MARKER_LEAD.into(),
        tiers: [Tier::Hot, Tier::Warm, Tier::Cold].map(|tier| tier.as_str().into()),
    };
}

pub fn fixed<T>(pick: impl FnOnce(&Fixed) -> T) -> T {
    FIXED.with(pick)
}

/// Plain objects and arrays only (SPEC §1): footprintjs clones what it is given.
pub fn to_js(value: &impl Serialize) -> JsValue {
    let serializer = serde_wasm_bindgen::Serializer::json_compatible();
    // Serializing these types cannot fail: every field is a number, a string,
    // a struct of them or a preserved JS value.
    value.serialize(&serializer).unwrap_or(JsValue::UNDEFINED)
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SummaryEntry<'a> {
    pub id: &'a str,
    pub value: Message,
    pub metadata: Metadata,
    pub version: u32,
    pub created_at: f64,
    pub updated_at: f64,
    pub last_accessed_at: f64,
    pub access_count: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ttl: Option<f64>,
    #[serde(with = "serde_wasm_bindgen::preserve")]
    pub tier: JsString,
    pub source: Source,
}

/// A `{ role, content }` message of JS strings.
#[derive(Serialize)]
pub struct Message {
    #[serde(with = "serde_wasm_bindgen::preserve")]
    pub role: JsString,
    #[serde(with = "serde_wasm_bindgen::preserve")]
    pub content: JsString,
}

#[derive(Serialize)]
pub struct Metadata {
    pub summarizes: Coverage,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Coverage {
    pub from_turn: f64,
    pub to_turn: f64,
    pub entry_count: usize,
    #[serde(with = "serde_wasm_bindgen::preserve")]
    pub covered_ids: Array,
    /// The provider's model; undefined (left out) for a callback.
    #[serde(skip_serializing_if = "JsValue::is_undefined", with = "serde_wasm_bindgen::preserve")]
    pub model: JsValue,
    pub summarized_at_ms: f64,
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
    pub value: Message,
    pub metadata: ClaimMetadata,
    pub version: f64,
    pub created_at: f64,
    pub updated_at: f64,
    pub last_accessed_at: f64,
    pub access_count: u32,
    pub ttl: f64,
    #[serde(with = "serde_wasm_bindgen::preserve")]
    pub tier: JsString,
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
    #[serde(with = "serde_wasm_bindgen::preserve")]
    pub strategy_id: JsString,
    #[serde(with = "serde_wasm_bindgen::preserve")]
    pub strategy_kind: JsString,
    pub reason: &'a str,
    pub input_memory_count: usize,
    pub output_memory_count: usize,
    #[serde(with = "serde_wasm_bindgen::preserve")]
    pub dropped_ids: Array,
    pub added_ids: &'a [String],
    pub score_evidence: &'a Evidence,
}

/// The provider shape's one request (SPEC §4 step 8).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderRequest {
    #[serde(with = "serde_wasm_bindgen::preserve")]
    pub system_prompt: JsString,
    pub messages: [Message; 1],
    #[serde(with = "serde_wasm_bindgen::preserve")]
    pub model: JsString,
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
    #[serde(rename = "type", with = "serde_wasm_bindgen::preserve")]
    pub kind: JsString,
    #[serde(with = "serde_wasm_bindgen::preserve")]
    pub payload: JsValue,
}
