//! The sentence and the evidence of each outcome: the words SPEC §4 and §8
//! fix, and what a person reading the event needs to act on it.

use super::*;

use crate::core::span_bound::Bounded;

/// Entries left out with no call: `excluded` covered by stored summaries,
/// and `claims`, the fleet's claims on spans.
pub fn covered_only(excluded: usize, summaries: usize, claims: usize) -> (String, Evidence) {
    let claims_left_out = Counted(claims, "fleet claim", "fleet claims");
    let reason = match (excluded, claims) {
        (_, 0) => format!(
            "{} already covered by {} \u{2014} no new call this turn",
            Counted(excluded, "entry", "entries"),
            Counted(summaries, "stored summary", "stored summaries"),
        ),
        (0, _) => format!("{claims_left_out} left out of recall \u{2014} no new call this turn"),
        _ => format!(
            "{} already covered by {}, and {claims_left_out} left out of recall \u{2014} no new call this turn",
            Counted(excluded, "entry", "entries"),
            Counted(summaries, "stored summary", "stored summaries"),
        ),
    };
    (reason, Evidence::CoveredOnly(CoveredOnly { summarizer_called: false }))
}

pub fn claimed_elsewhere(span: SpanFacts, claim_id: &str) -> (String, Evidence) {
    let reason = format!(
        "summarized-elsewhere: another process holds the claim {claim_id} on the span of {} (it is paying for it, \
or its answer was no smaller and the claim stands until its lease ends), so no call was made; recall is served \
verbatim until a stored summary covers the span",
        Span(span)
    );
    (reason, unclaimed(span, claim_id, true))
}

pub fn claim_failed(span: SpanFacts, claim_id: &str, cause: &str) -> (String, Evidence) {
    let reason = format!(
        "claim-failed: the store did not take the claim {claim_id} on the span of {} (putIfVersion failed), so no \
call was made (paying without a claim could pay once per process); recall is served verbatim and the turn goes on. \
Cause: {cause}",
        Span(span)
    );
    (reason, unclaimed(span, claim_id, false))
}

/// The evidence of a span left verbatim for want of the claim: held
/// `elsewhere`, or failed.
fn unclaimed(span: SpanFacts, claim_id: &str, elsewhere: bool) -> Evidence {
    Evidence::Unclaimed(Unclaimed {
        span_entries: span.entries,
        span_chars: span.chars,
        summarizer_called: false,
        claim_id: claim_id.to_owned(),
        claimed_elsewhere: elsewhere.then_some(true),
        claim_failed: (!elsewhere).then_some(true),
    })
}

/// `bounded`: the span is one a bound cut short, which later turns wait behind.
pub fn latched(span: SpanFacts, bounded: Option<&Bounded>) -> (String, Evidence) {
    let behind = bounded.map(|bounded| {
        format!(
            "; it is as much of the conversation as {} ({}) lets one call be sent, so later turns wait behind it: \
raise {}, or have the summarizer write shorter summaries",
            bounded.bound.key(),
            JsNumber(bounded.bound.max),
            bounded.bound.key()
        )
    });
    (
        format!(
            "the span of {} was refused before (as replacement-not-smaller, or a summary countTokens could \
not count) and is not re-asked: the same span gives the same answer, so recall is served verbatim{}",
            Span(span),
            behind.unwrap_or_default()
        ),
        Evidence::Latched(Latched {
            span_entries: span.entries,
            span_chars: span.chars,
            summarizer_called: false,
            latched: true,
        }),
    )
}

/// `background: true`: the visit started the span's fold and did not wait for it.
pub fn background_started(span: SpanFacts, summarizer_called: bool) -> (String, Evidence) {
    (
        format!(
            "fold-in-background: the span of {} is folding in the background; recall is served without that fold \
this turn, and later turns load its summary from the store once it is written (its own event follows when the call \
ends)",
            Span(span)
        ),
        background(span, summarizer_called, None),
    )
}

/// `background: true`: the conversation's fold is in flight already.
pub fn background_in_flight(span: SpanFacts) -> (String, Evidence) {
    (
        format!(
            "fold-in-background: a fold of this conversation is in flight in the background, so no call was made for \
the span of {}; recall is served without it this turn",
            Span(span)
        ),
        background(span, false, Some(true)),
    )
}

fn background(span: SpanFacts, summarizer_called: bool, coalesced: Option<bool>) -> Evidence {
    Evidence::Background(Background {
        span_entries: span.entries,
        span_chars: span.chars,
        summarizer_called,
        coalesced,
    })
}

pub fn predicted_not_smaller(span: SpanFacts, label_chars: usize) -> (String, Evidence) {
    (
        format!(
            "replacement-not-smaller, no call made: the label alone is {label_chars} chars, no shorter than the \
span of {} it would replace, so no summary could make recall smaller; recall is served verbatim",
            Span(span)
        ),
        predicted(span, label_chars),
    )
}

/// A refusal foreseen before the call, of either kind.
fn predicted(span: SpanFacts, label_chars: usize) -> Evidence {
    Evidence::Predicted(Predicted {
        span_entries: span.entries,
        span_chars: span.chars,
        summarizer_called: false,
        label_chars,
        predicted: true,
    })
}

/// With an option beyond the original, a span must leave its summary at
/// least `1 / ROOM_SHARE` of its length after the label (`predicted_too_little_room`).
pub const ROOM_SHARE: usize = 2;

pub fn predicted_too_little_room(span: SpanFacts, label_chars: usize, room: usize) -> (String, Evidence) {
    (
        format!(
            "replacement-not-smaller, no call made: after its label of {label_chars} chars, the span of {} leaves \
room for {room} chars of summary, under 1/{ROOM_SHARE} of its length, too little for a useful summary, so the \
answer would be refused; recall is served verbatim until more turns leave the verbatim tail",
            Span(span)
        ),
        predicted(span, label_chars),
    )
}

pub fn too_few_tokens(span: SpanFacts, new_tokens: f64, min_fold_tokens: f64) -> (String, Evidence) {
    (
        format!(
            "not-worth-a-call-yet, no call made: the span of {} holds {} tokens of new text, under minFoldTokens \
({}), so a fold would take too little out of recall for its call; recall is served verbatim until more turns \
leave the verbatim tail",
            Span(span),
            JsNumber(new_tokens),
            JsNumber(min_fold_tokens)
        ),
        Evidence::TooFewTokens(TooFewTokens {
            span_entries: span.entries,
            span_chars: span.chars,
            summarizer_called: false,
            new_tokens,
            min_fold_tokens,
        }),
    )
}

/// How many label-lengths of new text a rolling fold must take out of recall
/// to be worth its call (`deferred`).
pub const WORTH_FACTOR: usize = 3;

pub fn deferred(span: SpanFacts, label_chars: usize, new_chars: usize) -> (String, Evidence) {
    (
        format!(
            "not-worth-a-call-yet, no call made: the span of {} holds {new_chars} chars of new text, under \
{WORTH_FACTOR} times its label's {label_chars} chars, so a fold would cost more than it takes out of recall; \
recall is served verbatim until more turns leave the verbatim tail",
            Span(span)
        ),
        Evidence::Deferred(Deferred {
            span_entries: span.entries,
            span_chars: span.chars,
            summarizer_called: false,
            label_chars,
            new_chars,
            deferred: true,
        }),
    )
}

pub fn failed(
    span: SpanFacts,
    model: Option<&str>,
    caller: Caller,
    cause: &str,
    claim: &ClaimState,
    sent: Sent<'_>,
) -> (String, Evidence) {
    (
        format!(
            "summarizer-failed for the span of {}{claim}: recall is served verbatim and the turn goes on{}{}{sent}. \
Cause: {cause}",
            Span(span),
            caller.suffix(),
            claim.release()
        ),
        Evidence::Failed(Failed {
            span_entries: span.entries,
            span_chars: span.chars,
            summarizer_called: caller.called(),
            failed: true,
            model: model.map(str::to_owned),
            coalesced: caller.coalesced(),
            claim_id: claim.claim_id(),
            claim_given_up: claim.given_up(),
            claims_unsupported: claim.unsupported(),
            span_bound: sent.bounded.map(SpanBoundEvidence::of),
        }),
    )
}

pub fn not_smaller(
    span: SpanFacts,
    summary_chars: usize,
    model: Option<&str>,
    usage: Option<Usage>,
    caller: Caller,
    claim: &ClaimState,
    bounded: Option<&Bounded>,
) -> (String, Evidence) {
    (
        format!(
            "replacement-not-smaller: the summary with its label is {summary_chars} chars and the span of {}{claim} \
is {} chars, so folding would grow recall; the span is {}{}{}",
            Span(span),
            span.chars,
            match caller {
                Caller::Alone => format!("served verbatim and {NOT_LATCHED}"),
                _ => "latched and served verbatim".to_owned(),
            },
            caller.suffix(),
            Sent { bounded, chars: None }
        ),
        Evidence::NotSmaller(NotSmaller {
            span_entries: span.entries,
            span_chars: span.chars,
            summarizer_called: caller.called(),
            summary_chars,
            model: model.map(str::to_owned),
            usage: caller.usage(usage),
            coalesced: caller.coalesced(),
            claim_id: claim.claim_id(),
            claims_unsupported: claim.unsupported(),
            span_bound: bounded.map(SpanBoundEvidence::of),
        }),
    )
}

/// What happened to the write-back of a fold.
#[derive(Clone, Debug, PartialEq)]
pub enum WriteBack {
    Written,
    NoStore,
    Failed(String),
    /// A waiting run's view: the run that made the call is writing the
    /// summary back (waiting runs go on once the summary exists).
    ByLeader,
    /// `background: true`: a newer summary of the conversation landed
    /// during the call (a later visit loaded it), so this one is not written.
    Superseded,
}

pub struct FoldReport<'a> {
    pub span: SpanFacts,
    /// How many of `span.entries` are earlier summaries rolled in.
    pub rolled: usize,
    pub kept: usize,
    pub summary_id: &'a str,
    pub summary_chars: usize,
    pub write_back: &'a WriteBack,
    pub model: Option<&'a str>,
    pub usage: Option<Usage>,
    pub caller: Caller,
    pub claim: &'a ClaimState,
    /// What the summary kept of the span's details.
    pub audit: &'a Audit,
    /// What `maxSpanChars` or `maxSpanTokens` made of the span.
    pub bounded: Option<&'a Bounded>,
    pub tokens: Option<TokenReport>,
}

pub fn folded(report: FoldReport<'_>) -> (String, Evidence) {
    let span = report.span;
    let write_back = match report.write_back {
        WriteBack::Written => " \u{2014} written back, so this span is not summarized again".to_owned(),
        WriteBack::NoStore => {
            " \u{2014} not written back (no store configured), so this fold is paid for every turn".to_owned()
        }
        WriteBack::Failed(cause) => format!(" \u{2014} write-back FAILED ({cause}), so this fold will be paid again"),
        WriteBack::ByLeader => " \u{2014} the run that made the call writes it back".to_owned(),
        WriteBack::Superseded => " \u{2014} not written back: a newer summary of this conversation landed while this \
one was computed, and an older base is never written over it"
            .to_owned(),
    };
    (
        format!(
            "folded {}){} into {}{}; {} kept verbatim{write_back}{}{}{}",
            SpanTurns(span),
            Rolled(report.rolled),
            report.summary_id,
            report.claim,
            report.kept,
            report.caller.suffix(),
            report.claim.release(),
            Sent { bounded: report.bounded, chars: None }
        ),
        Evidence::Folded(Folded {
            summarizer_called: report.caller.called(),
            span_entries: span.entries,
            span_chars: span.chars,
            summary_chars: report.summary_chars,
            persisted: *report.write_back == WriteBack::Written,
            rolled_summaries: (report.rolled > 0).then_some(report.rolled),
            model: report.model.map(str::to_owned),
            usage: report.caller.usage(report.usage),
            coalesced: report.caller.coalesced(),
            claim_id: report.claim.claim_id(),
            claim_given_up: report.claim.given_up(),
            claims_unsupported: report.claim.unsupported(),
            details_found: report.audit.found(),
            details_kept: report.audit.kept,
            details_pinned: report.audit.pinned,
            dropped_details: report.audit.listed().to_vec(),
            dropped_detail_count: report.audit.dropped.len(),
            recall_tokens_before: report.tokens.map(|t| t.recall_before),
            recall_tokens_after: report.tokens.map(|t| t.recall_after),
            span_tokens: report.tokens.map(|t| t.span),
            summary_tokens: report.tokens.map(|t| t.summary),
            span_bound: report.bounded.map(SpanBoundEvidence::of),
        }),
    )
}

/// A span whose entries could not be read again to make the call (a role
/// with no string form, a getter that throws): no call was made.
pub fn unreadable_span(span: SpanFacts, what: &str, claim: &ClaimState) -> (String, Evidence) {
    (
        format!(
            "invalid-input: the span of {}{claim} could not be read again to {what}; no call was made and recall is \
served verbatim{}. Fix whatever writes these entries to the store",
            Span(span),
            claim.release()
        ),
        Evidence::Unreadable(Unreadable {
            span_entries: span.entries,
            span_chars: span.chars,
            summarizer_called: false,
            claim_id: claim.claim_id(),
            claim_given_up: claim.given_up(),
        }),
    )
}
