//! The plain objects the stage hands to JS, defined once: the summary entry
//! and the fleet's claim (SPEC §2, §8), the event payload, a provider
//! request and `stage.fold`'s result. Each serializes to a plain object
//! whose keys are its fields in order, absent options left out.
//!
//! `V` is a JS value the bindings pass through as it is: the caller's own
//! (ids, identities, entries) or one the stage made in JS (the summary's
//! text, an `AbortSignal`, the events). These tests use JSON values.

use serde::Serialize;

use super::events::{Event, Evidence};
use super::format::{STRATEGY_KIND, SUMMARY_COVERAGE_KEY, SUMMARY_FRAME_PREFIX, SUMMARY_ID_PREFIX};

/// A `{ role, content }` message.
#[derive(Serialize)]
pub struct Message<Content> {
    pub role: &'static str,
    pub content: Content,
}

/// A message a span bound sent cut, in place of the entry's value object
/// (the callback shape): its role as read, when it has one, and the cut text.
#[derive(Serialize)]
pub struct CutMessage<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    pub content: &'a str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SummaryEntry<'a, V> {
    pub id: String,
    /// The label, then the summarizer's own text (and, with `keepDetails`,
    /// the line of details it dropped).
    pub value: Message<V>,
    pub metadata: Metadata<'a, V>,
    pub version: u32,
    pub created_at: f64,
    pub updated_at: f64,
    pub last_accessed_at: f64,
    pub access_count: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ttl: Option<f64>,
    pub tier: &'static str,
    pub source: Source<V>,
}

#[derive(Serialize)]
pub struct Metadata<'a, V> {
    pub summarizes: Coverage<'a, V>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Coverage<'a, V> {
    pub from_turn: f64,
    pub to_turn: f64,
    pub entry_count: usize,
    /// The caller's own id strings (and the claim's id, when one was held).
    pub covered_ids: V,
    /// The provider's model; left out for a callback.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<&'a str>,
    pub summarized_at_ms: f64,
    /// The first details of the span the summary entry holds nowhere, in its
    /// text or its `keepDetails` line (`core::details`); left out when none.
    #[serde(skip_serializing_if = "<[String]>::is_empty")]
    pub dropped_details: &'a [String],
}

#[derive(Serialize)]
pub struct Source<V> {
    pub turn: f64,
    /// The first span entry's `source.identity`, when truthy.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub identity: Option<V>,
}

/// A fleet's claim on a span (`claims: true`), written with
/// `putIfVersion(identity, claim, 0)` before the call is paid for. Its
/// `ttl` is when the lease ends; it is dated just before the oldest loaded
/// entry, so a recency-limited load never takes it in place of a message.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ClaimEntry<'a, V> {
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
    pub source: Source<V>,
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
pub struct Payload<'a, V> {
    pub strategy_id: &'a str,
    pub strategy_kind: &'static str,
    pub reason: &'a str,
    pub input_memory_count: usize,
    pub output_memory_count: usize,
    /// The caller's own id strings.
    pub dropped_ids: V,
    pub added_ids: &'a [String],
    pub score_evidence: ScoreEvidence<'a>,
}

/// The evidence, and `background: true` on the events of a background fold.
#[derive(Serialize)]
pub struct ScoreEvidence<'a> {
    #[serde(flatten)]
    pub evidence: &'a Evidence,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub background: bool,
}

impl<'a, V> Payload<'a, V> {
    /// `event`'s payload, naming its dropped entries by the caller's own ids.
    pub fn of(strategy_id: &'a str, event: &'a Event, dropped_ids: V) -> Payload<'a, V> {
        Payload {
            strategy_id,
            strategy_kind: STRATEGY_KIND,
            reason: &event.reason,
            input_memory_count: event.input_count,
            output_memory_count: event.output_count,
            dropped_ids,
            added_ids: event.added.as_slice(),
            score_evidence: ScoreEvidence { evidence: &event.evidence, background: event.background },
        }
    }
}

/// The stable string constants, by the names the package exports them
/// under (read once by the package entry).
#[derive(Serialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub struct SummaryConstants {
    summary_id_prefix: &'static str,
    summary_coverage_key: &'static str,
    summary_frame_prefix: &'static str,
}

pub const SUMMARY_CONSTANTS: SummaryConstants = SummaryConstants {
    summary_id_prefix: SUMMARY_ID_PREFIX,
    summary_coverage_key: SUMMARY_COVERAGE_KEY,
    summary_frame_prefix: SUMMARY_FRAME_PREFIX,
};

/// The provider shape's one request (SPEC §4 step 8).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderRequest<'a, V> {
    pub system_prompt: &'a str,
    pub messages: [Message<String>; 1],
    pub model: &'a str,
    /// An `AbortSignal`, with `timeoutMs`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub signal: Option<V>,
}

/// What `stage.fold` resolves to: the recall (the caller's own `loaded`
/// when it is left untouched) and the events, each an [`EventRecord`].
#[derive(Serialize)]
pub struct FoldResult<V> {
    pub recall: V,
    pub events: V,
}

/// One entry of `stage.fold`'s `events`.
#[derive(Serialize)]
pub struct EventRecord<V> {
    #[serde(rename = "type")]
    pub kind: &'static str,
    pub payload: V,
}

#[cfg(test)]
mod tests {
    use serde_json::{json, Value};

    use super::*;

    /// JSON text, in field order (serde_json writes an `f64` as `1.0`).
    fn text(value: &impl Serialize) -> String {
        serde_json::to_string(value).expect("serializes")
    }

    fn entry<'a>(
        ttl: Option<f64>,
        model: Option<&'a str>,
        identity: Option<Value>,
        dropped: &'a [String],
    ) -> SummaryEntry<'a, Value> {
        SummaryEntry {
            id: "msg-summary-1-3".to_owned(),
            value: Message { role: "system", content: json!("[summary] text") },
            metadata: Metadata {
                summarizes: Coverage {
                    from_turn: 1.0,
                    to_turn: 3.0,
                    entry_count: 6,
                    covered_ids: json!(["a", "b"]),
                    model,
                    summarized_at_ms: 50.0,
                    dropped_details: dropped,
                },
            },
            version: 1,
            created_at: 10.0,
            updated_at: 10.0,
            last_accessed_at: 50.0,
            access_count: 0,
            ttl,
            tier: "warm",
            source: Source { turn: 3.0, identity },
        }
    }

    #[test]
    fn a_summary_entry_has_spec_key_order_and_leaves_absent_options_out() {
        assert_eq!(
            text(&entry(None, None, None, &[])),
            r#"{"id":"msg-summary-1-3","value":{"role":"system","content":"[summary] text"},"metadata":{"summarizes":{"fromTurn":1.0,"toTurn":3.0,"entryCount":6,"coveredIds":["a","b"],"summarizedAtMs":50.0}},"version":1,"createdAt":10.0,"updatedAt":10.0,"lastAccessedAt":50.0,"accessCount":0,"tier":"warm","source":{"turn":3.0}}"#
        );
        let details = ["ORD-1".to_owned()];
        let full = serde_json::to_value(entry(Some(99.0), Some("m"), Some(json!({"user": "u"})), &details)).unwrap();
        assert_eq!(full["ttl"], json!(99.0));
        assert_eq!(full["metadata"]["summarizes"]["model"], json!("m"));
        assert_eq!(full["metadata"]["summarizes"]["droppedDetails"], json!(["ORD-1"]));
        assert_eq!(full["source"]["identity"], json!({"user": "u"}));
    }

    #[test]
    fn a_claim_and_a_provider_request_have_their_key_orders() {
        let claim = ClaimEntry {
            id: "msg-summary-claim-1-3",
            value: Message { role: "system", content: "" },
            metadata: ClaimMetadata {
                summary_claim: Claim {
                    from_turn: 1.0,
                    to_turn: 3.0,
                    entry_count: 6,
                    claimed_at_ms: 50.0,
                    lease_ms: 60.0,
                },
            },
            version: 7.0,
            created_at: 9.0,
            updated_at: 9.0,
            last_accessed_at: 50.0,
            access_count: 0,
            ttl: 110.0,
            tier: "warm",
            source: Source::<Value> { turn: 3.0, identity: None },
        };
        assert_eq!(
            text(&claim),
            r#"{"id":"msg-summary-claim-1-3","value":{"role":"system","content":""},"metadata":{"summaryClaim":{"fromTurn":1.0,"toTurn":3.0,"entryCount":6,"claimedAtMs":50.0,"leaseMs":60.0}},"version":7.0,"createdAt":9.0,"updatedAt":9.0,"lastAccessedAt":50.0,"accessCount":0,"ttl":110.0,"tier":"warm","source":{"turn":3.0}}"#
        );
        let request = ProviderRequest::<Value> {
            system_prompt: "p",
            messages: [Message { role: "user", content: "t".to_owned() }],
            model: "m",
            signal: None,
        };
        assert_eq!(text(&request), r#"{"systemPrompt":"p","messages":[{"role":"user","content":"t"}],"model":"m"}"#);
        assert_eq!(text(&EventRecord { kind: "k", payload: json!({}) }), r#"{"type":"k","payload":{}}"#);
        assert_eq!(text(&FoldResult { recall: json!([]), events: json!([]) }), r#"{"recall":[],"events":[]}"#);
    }
}
