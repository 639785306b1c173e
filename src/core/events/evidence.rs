//! Each outcome's `scoreEvidence`, its keys in the order SPEC §4 fixes.

use super::*;

use serde::Serialize;

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CoveredOnly {
    pub summarizer_called: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Latched {
    pub span_entries: usize,
    pub span_chars: usize,
    pub summarizer_called: bool,
    pub latched: bool,
}

/// A visit of a stage with `background: true` that did not wait for the
/// span's fold (the event adds `background: true`).
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Background {
    pub span_entries: usize,
    pub span_chars: usize,
    pub summarizer_called: bool,
    /// The conversation's fold was in flight already.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coalesced: Option<bool>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Predicted {
    pub span_entries: usize,
    pub span_chars: usize,
    pub summarizer_called: bool,
    pub label_chars: usize,
    pub predicted: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Deferred {
    pub span_entries: usize,
    pub span_chars: usize,
    pub summarizer_called: bool,
    pub label_chars: usize,
    /// The chars of new (raw) text the span holds, which a fold would take out of recall.
    pub new_chars: usize,
    pub deferred: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TooFewTokens {
    pub span_entries: usize,
    pub span_chars: usize,
    pub summarizer_called: bool,
    /// The raw span's tokens: the new text a fold would take out of recall.
    pub new_tokens: f64,
    pub min_fold_tokens: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Failed {
    pub span_entries: usize,
    pub span_chars: usize,
    pub summarizer_called: bool,
    pub failed: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coalesced: Option<bool>,
    /// The claim this run held, and gave up when the call failed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claim_id: Option<String>,
    /// Whether the store took the give-up (false: the claim holds until its lease ends).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claim_given_up: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claims_unsupported: Option<bool>,
    /// Under `maxSpanChars` or `maxSpanTokens`: what the call was sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub span_bound: Option<SpanBoundEvidence>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NotSmaller {
    pub span_entries: usize,
    pub span_chars: usize,
    pub summarizer_called: bool,
    pub summary_chars: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coalesced: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claim_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claims_unsupported: Option<bool>,
    /// Under `maxSpanChars` or `maxSpanTokens`: what the call was sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub span_bound: Option<SpanBoundEvidence>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Folded {
    pub summarizer_called: bool,
    pub span_entries: usize,
    pub span_chars: usize,
    pub summary_chars: usize,
    pub persisted: bool,
    /// How many earlier summaries the fold took in (`maxSummaries`); absent when none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rolled_summaries: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub usage: Option<Usage>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub coalesced: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claim_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claim_given_up: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claims_unsupported: Option<bool>,
    /// The span's exact details the audit found (`core::details`), how many
    /// the summarizer's text kept, how many the `keepDetails` line holds
    /// (absent without it), and the ones the summary entry holds nowhere:
    /// the first of them and how many (with `keepDetails`, the ones its
    /// bounds let go).
    pub details_found: usize,
    pub details_kept: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub details_pinned: Option<usize>,
    pub dropped_details: Vec<String>,
    pub dropped_detail_count: usize,
    /// When the stage counts tokens (`countTokens` or a token option), all
    /// by the same counter: recall as loaded and as the fold leaves it, the
    /// span and the summary.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recall_tokens_before: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub recall_tokens_after: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub span_tokens: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary_tokens: Option<f64>,
    /// Under `maxSpanChars` or `maxSpanTokens`: what the call was sent.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub span_bound: Option<SpanBoundEvidence>,
}

/// A fold's tokens, counted by the stage's counter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TokenReport {
    pub recall_before: f64,
    pub recall_after: f64,
    pub span: f64,
    pub summary: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Unreadable {
    pub span_entries: usize,
    pub span_chars: usize,
    pub summarizer_called: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claim_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claim_given_up: Option<bool>,
}

/// No call was made for want of the fleet's claim: another process holds a
/// live one (`claimed_elsewhere`), or the store failed to take it
/// (`claim_failed`). One of the two is set.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Unclaimed {
    pub span_entries: usize,
    pub span_chars: usize,
    pub summarizer_called: bool,
    pub claim_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claimed_elsewhere: Option<bool>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub claim_failed: Option<bool>,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InvalidInput {
    pub summarizer_called: bool,
    /// Absent when `loaded` itself is the problem.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub invalid_index: Option<usize>,
    pub invalid_field: String,
}
