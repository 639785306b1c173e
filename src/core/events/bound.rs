//! What an event says of `maxSpanChars` and `maxSpanTokens` (§8, Bounded
//! spans): what the call was sent, what waits for later turns, which
//! messages were cut; and, without a bound, what a failed call was sent,
//! so a user can tell a span too big for the summarizer and set one.

use super::*;

use serde::Serialize;

use crate::core::span_bound::{Bounded, SpanBound};

/// `scoreEvidence.spanBound` of a call made under a bound.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SpanBoundEvidence {
    /// `maxSpanChars` or `maxSpanTokens`, and its value.
    pub option: &'static str,
    pub max: f64,
    /// The call's size in that unit: instruction, rolled summaries, messages.
    pub sent: f64,
    /// The raw entries up to the seam left for later turns, and their chars.
    pub deferred_entries: usize,
    pub deferred_chars: usize,
    /// The messages sent cut, in span order.
    pub cut: Vec<CutEvidence>,
}

/// One message sent cut: its id, its whole length and how much of it the
/// summarizer was not sent.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct CutEvidence {
    pub id: String,
    pub chars: usize,
    pub left_out_chars: usize,
}

/// `scoreEvidence.spanBound` when the bound leaves no room for a fold.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct BoundTooSmall {
    pub option: &'static str,
    pub max: f64,
    /// The least bound this span's fold needs.
    pub needed: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SpanOverBound {
    pub span_entries: usize,
    pub span_chars: usize,
    pub summarizer_called: bool,
    pub span_bound: BoundTooSmall,
}

impl SpanBoundEvidence {
    pub fn of(bounded: &Bounded) -> SpanBoundEvidence {
        let cut = bounded.cuts.iter().map(|cut| CutEvidence {
            id: cut.id.clone(),
            chars: cut.units,
            left_out_chars: cut.left_out,
        });
        SpanBoundEvidence {
            option: bounded.bound.key(),
            max: bounded.bound.max,
            sent: bounded.sent,
            deferred_entries: bounded.deferred_entries,
            deferred_chars: bounded.deferred_chars,
            cut: cut.collect(),
        }
    }
}

/// What a call was sent, as a reason says it: under a bound, what the
/// bound made of the span; without one, the call's size (a failure's).
#[derive(Clone, Copy, Debug, Default)]
pub struct Sent<'a> {
    pub bounded: Option<&'a Bounded>,
    /// Without a bound: the call's UTF-16 length, when this run made it.
    pub chars: Option<usize>,
}

impl fmt::Display for Sent<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.bounded, self.chars) {
            (Some(bounded), _) => BoundClause(bounded).fmt(f),
            (None, Some(chars)) => write!(
                f,
                "; the call was sent {chars} chars (if the summarizer refused it for its size, set maxSpanChars to \
what it takes, and the span folds in parts)"
            ),
            (None, None) => Ok(()),
        }
    }
}

/// `"; the call was sent N chars, within maxSpanChars (M); …"`.
pub(super) struct BoundClause<'a>(pub &'a Bounded);

impl fmt::Display for BoundClause<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Bounded { bound, sent, deferred_entries, deferred_chars, cuts } = self.0;
        write!(
            f,
            "; the call was sent {} {}, within {} ({})",
            JsNumber(*sent),
            bound.unit_name(),
            bound.key(),
            JsNumber(bound.max)
        )?;
        if *deferred_entries > 0 {
            write!(
                f,
                "; the span's {} after these ({deferred_chars} chars) stay verbatim and fold on later turns",
                Counted(*deferred_entries, "entry", "entries")
            )?;
        }
        if !cuts.is_empty() {
            let left_out = cuts.iter().fold(0usize, |sum, cut| sum.saturating_add(cut.left_out));
            write!(
                f,
                "; {} sent cut, {left_out} chars left out (the details audit read {} whole, and the store keeps {})",
                Counted(cuts.len(), "message was", "messages were"),
                if cuts.len() == 1 { "it" } else { "them" },
                if cuts.len() == 1 { "it" } else { "them" },
            )?;
        }
        Ok(())
    }
}

pub fn span_bound_too_small(span: SpanFacts, bound: SpanBound, needed: f64) -> (String, Evidence) {
    let (key, unit) = (bound.key(), bound.unit_name());
    (
        format!(
            "span-over-bound, no call made: {key} ({}) leaves too little of a call for the span of {}: the \
instruction, any earlier summaries the fold takes in, and room for part of the span need at least {} {unit}; recall \
is served verbatim. Fix: raise {key} to at least {}, or shorten systemPrompt",
            JsNumber(bound.max),
            Span(span),
            JsNumber(needed.ceil()),
            JsNumber(needed.ceil())
        ),
        Evidence::SpanOverBound(SpanOverBound {
            span_entries: span.entries,
            span_chars: span.chars,
            summarizer_called: false,
            span_bound: BoundTooSmall { option: bound.key(), max: bound.max, needed: needed.ceil() },
        }),
    )
}
