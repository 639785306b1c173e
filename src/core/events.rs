//! Events as plain Rust data: the reason sentence, the counts, which entries
//! were dropped or added, and the evidence, in the key order SPEC §2/§4 fix.
//! The bindings turn `dropped` indices into the caller's own ids.

use std::fmt;

use serde::Serialize;

use super::details::Audit;
use super::format::{utf16_len, utf16_prefix};
use super::js_number::JsNumber;

#[derive(Clone, Debug, PartialEq)]
pub struct Event {
    pub reason: String,
    pub input_count: usize,
    pub output_count: usize,
    /// Indices into the loaded snapshot, in `droppedIds` order.
    pub dropped: Vec<usize>,
    /// The new summary's id: a visit adds one summary at most, so `addedIds`
    /// is empty or holds this.
    pub added: Option<String>,
    pub evidence: Evidence,
}

/// Token usage a provider reported.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Usage {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub input: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output: Option<f64>,
}

/// The `scoreEvidence` object of each kind of event. Serialized as a plain
/// object whose keys are the fields in order (SPEC §4's key orders), with
/// absent options left out.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Evidence {
    CoveredOnly(CoveredOnly),
    Latched(Latched),
    Predicted(Predicted),
    Deferred(Deferred),
    TooFewTokens(TooFewTokens),
    Failed(Failed),
    NotSmaller(NotSmaller),
    Folded(Folded),
    InvalidInput(InvalidInput),
    Unreadable(Unreadable),
    Unclaimed(Unclaimed),
}

/// What the run that made the call knows of its claim (`claims: true`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ClaimState {
    /// Claims are off, or this run is not the one to say anything of them.
    Silent,
    /// The run holds the fleet's claim on the span, under this id.
    Held(String),
    /// The run gave its claim up so the next turn can retry (its call
    /// failed, could not be made, or its summary could not be written), and
    /// what the store said to that.
    Released { id: String, given_up: GiveUp },
    /// Claims are on but the store has no `putIfVersion` (said once per stage).
    Unsupported,
}

/// What became of a claim's give-up.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum GiveUp {
    Done,
    /// The store did not apply it: the claim holds the span until its lease ends.
    Refused,
    /// It failed or missed `timeoutMs` (it may still land): the cause.
    Failed(String),
}

impl ClaimState {
    fn claim_id(&self) -> Option<String> {
        match self {
            ClaimState::Held(id) | ClaimState::Released { id, .. } => Some(id.clone()),
            _ => None,
        }
    }

    fn given_up(&self) -> Option<bool> {
        match self {
            ClaimState::Released { given_up, .. } => Some(*given_up == GiveUp::Done),
            _ => None,
        }
    }

    /// What the reason of a run that gave its claim up adds.
    fn release(&self) -> Release<'_> {
        Release(self)
    }

    fn unsupported(&self) -> Option<bool> {
        (*self == ClaimState::Unsupported).then_some(true)
    }
}

/// `"; its claim is given up, …"`, or nothing.
struct Release<'a>(&'a ClaimState);

impl fmt::Display for Release<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            ClaimState::Released { given_up: GiveUp::Done, .. } => {
                f.write_str("; its claim is given up, so a later turn retries")
            }
            ClaimState::Released { given_up: GiveUp::Refused, .. } => {
                f.write_str("; the store refused to give its claim up, so the span waits for the claim's lease to end")
            }
            ClaimState::Released { given_up: GiveUp::Failed(cause), .. } => {
                write!(f, "; giving its claim up failed ({cause}), so the span may wait for the claim's lease to end")
            }
            _ => Ok(()),
        }
    }
}

impl fmt::Display for ClaimState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ClaimState::Silent => Ok(()),
            ClaimState::Held(id) | ClaimState::Released { id, .. } => {
                write!(f, " (the span was claimed for the fleet as {id})")
            }
            ClaimState::Unsupported => f.write_str(
                " (claims are on, but the store has no putIfVersion, so the span was not claimed and another \
process may pay for it too)",
            ),
        }
    }
}

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

/// A span the stage considered folding, as the sentences describe it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpanFacts {
    pub entries: usize,
    pub chars: usize,
    pub from_turn: f64,
    pub to_turn: f64,
}

/// `"1 entry"`, `"2 entries"`: a count and the word for it.
struct Counted(usize, &'static str, &'static str);

impl fmt::Display for Counted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Counted(count, one, many) = *self;
        write!(f, "{count} {}", if count == 1 { one } else { many })
    }
}

/// `"3 entries (turns 1–2"`: what a span's description and a fold's reason
/// both start with.
struct SpanTurns(SpanFacts);

impl fmt::Display for SpanTurns {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let span = self.0;
        let entries = Counted(span.entries, "entry", "entries");
        write!(f, "{entries} (turns {}\u{2013}{}", JsNumber(span.from_turn), JsNumber(span.to_turn))
    }
}

/// `", 2 of them earlier summaries,"`, or nothing.
struct Rolled(usize);

impl fmt::Display for Rolled {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.0 {
            0 => Ok(()),
            1 => f.write_str(", 1 of them an earlier summary,"),
            n => write!(f, ", {n} of them earlier summaries,"),
        }
    }
}

/// `"3 entries (turns 1–2, 120 chars)"`.
struct Span(SpanFacts);

impl fmt::Display for Span {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}, {} chars)", SpanTurns(self.0), self.0.chars)
    }
}

/// Whether a shared result was computed by this run or waited for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Caller {
    /// Made the call, for a conversation other runs can share it with.
    Leader,
    /// Made the call for a visit whose identity names no conversation
    /// (§8, Isolation): it shares nothing, so nothing it learns is latched.
    Alone,
    Follower,
}

/// What a refusal says of its span when the run is [`Caller::Alone`].
const NOT_LATCHED: &str = "not latched: the identity names no conversation (that takes a string or number \
conversationId, with tenant and principal absent, strings or numbers), so the same span may be asked again";

impl Caller {
    fn called(self) -> bool {
        self != Caller::Follower
    }

    /// What a refusal that is latched says of its span: "latched", except
    /// for a run alone.
    fn latched(self) -> &'static str {
        if self == Caller::Alone {
            NOT_LATCHED
        } else {
            "latched"
        }
    }

    fn coalesced(self) -> Option<bool> {
        (self == Caller::Follower).then_some(true)
    }

    /// Token usage is the leading run's bill: repeating it on every waiting
    /// run's event would count one paid call once per run.
    fn usage(self, usage: Option<Usage>) -> Option<Usage> {
        if self.called() {
            usage
        } else {
            None
        }
    }

    fn suffix(self) -> &'static str {
        match self {
            Caller::Leader | Caller::Alone => "",
            Caller::Follower => {
                " (coalesced: a concurrent run over the same span made the one call; this run waited for it)"
            }
        }
    }
}

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

pub fn latched(span: SpanFacts) -> (String, Evidence) {
    (
        format!(
            "the span of {} was refused before (as replacement-not-smaller, or a summary countTokens could \
not count) and is not re-asked: the same span gives the same answer, so recall is served verbatim",
            Span(span)
        ),
        Evidence::Latched(Latched {
            span_entries: span.entries,
            span_chars: span.chars,
            summarizer_called: false,
            latched: true,
        }),
    )
}

pub fn predicted_not_smaller(span: SpanFacts, label_chars: usize) -> (String, Evidence) {
    (
        format!(
            "replacement-not-smaller, no call made: the label alone is {label_chars} chars, no shorter than the \
span of {} it would replace, so no summary could make recall smaller; recall is served verbatim",
            Span(span)
        ),
        Evidence::Predicted(Predicted {
            span_entries: span.entries,
            span_chars: span.chars,
            summarizer_called: false,
            label_chars,
            predicted: true,
        }),
    )
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
        Evidence::Predicted(Predicted {
            span_entries: span.entries,
            span_chars: span.chars,
            summarizer_called: false,
            label_chars,
            predicted: true,
        }),
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
) -> (String, Evidence) {
    (
        format!(
            "summarizer-failed for the span of {}{claim}: recall is served verbatim and the turn goes on{}{}. \
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
) -> (String, Evidence) {
    (
        format!(
            "replacement-not-smaller: the summary with its label is {summary_chars} chars and the span of {}{claim} \
is {} chars, so folding would grow recall; the span is {}{}",
            Span(span),
            span.chars,
            match caller {
                Caller::Alone => format!("served verbatim and {NOT_LATCHED}"),
                _ => "latched and served verbatim".to_owned(),
            },
            caller.suffix()
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
    };
    (
        format!(
            "folded {}){} into {}{}; {} kept verbatim{write_back}{}{}",
            SpanTurns(span),
            Rolled(report.rolled),
            report.summary_id,
            report.claim,
            report.kept,
            report.caller.suffix(),
            report.claim.release()
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

/// Where a visit's input was malformed, named the way the user would write it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InvalidSpot {
    /// The entry's index; `None` when the spot is `loaded` or the identity.
    pub index: Option<usize>,
    /// `entry`, `id`, `value`, `value.content`, `source.turn`, `updatedAt`,
    /// `countTokens` (an entry's count), `loaded` or `identity`.
    pub field: String,
    /// What was found there, e.g. `a number (42)`.
    pub found: String,
    /// What is accepted there.
    pub expected: String,
}

/// The field an [`InvalidSpot`] names when the configured `countTokens`
/// gave no token count for an entry's content.
pub const COUNTER_FIELD: &str = "countTokens";

/// What a token count must be.
const TOKEN_COUNT_EXPECTED: &str = "a finite, non-negative number of tokens";

impl InvalidSpot {
    /// `loaded` itself is unusable: no array, or one that threw while it
    /// was read or iterated (what `found` describes).
    pub fn loaded(found: String) -> InvalidSpot {
        let expected = "an array of memory entries, or undefined".into();
        InvalidSpot { index: None, field: "loaded".into(), found, expected }
    }

    /// `loaded` holds more (`limit` of `unit` at most) than one visit folds safely.
    pub fn too_large(found: String, unit: &str, limit: usize) -> InvalidSpot {
        let expected = format!("at most {limit} {unit}, which one visit folds safely");
        InvalidSpot { index: None, field: "loaded".into(), found, expected }
    }

    /// Entry `index`'s `field` holds what `found` describes; `expected` is accepted there.
    pub fn entry(index: usize, field: &str, found: String, expected: &str) -> InvalidSpot {
        InvalidSpot { index: Some(index), field: field.into(), found, expected: expected.into() }
    }

    /// Entry `index` is covered only by `summaries` (their ids), which
    /// cover one another (`core::recall::covered_by_another`).
    pub fn covered_in_a_cycle(index: usize, summaries: &[String]) -> InvalidSpot {
        let named = match summaries {
            [first, second, third, _, ..] => format!("{first}, {second}, {third} and {} more", summaries.len() - 3),
            _ => summaries.join(", "),
        };
        InvalidSpot::entry(
            index,
            "entry",
            format!("covered only by summaries that cover one another ({named}), so it and they would leave recall"),
            "an entry that a summary left in recall stands for, directly or through the summaries it took in",
        )
    }

    /// The visit's identity threw while it was read.
    pub fn identity_unreadable(cause: &str) -> InvalidSpot {
        InvalidSpot {
            index: None,
            field: "identity".into(),
            found: threw("reading", cause),
            expected: "an identity whose fields can be read, { tenant?, principal?, conversationId }".into(),
        }
    }

    /// `countTokens` gave what `found` describes instead of a count for entry `index`'s content.
    pub fn uncounted(index: usize, found: String) -> InvalidSpot {
        InvalidSpot::entry(index, COUNTER_FIELD, found, TOKEN_COUNT_EXPECTED)
    }
}

/// An event whose recall `scope.loaded` refused to take (a frozen scope, a
/// setter that throws): the decision stands (a fold was paid for, and
/// written back when it says so), and this turn's recall is as loaded, so
/// the event drops and adds nothing.
pub fn recall_refused(event: &mut Event, cause: &str) {
    event.reason = format!(
        "{}; but scope.loaded refused the new recall ({cause}), so the turn goes on with recall as loaded",
        event.reason
    );
    event.output_count = event.input_count;
    event.dropped.clear();
    event.added = None;
}

/// The most UTF-16 units of a failure's cause an event or a warning quotes.
/// A provider may put a whole response body in an error's message, and an
/// event is cloned by footprintjs and kept in its history.
pub const MAX_CAUSE_CHARS: usize = 1000;

/// `cause`, cut to [`MAX_CAUSE_CHARS`] at a character boundary, saying how
/// long it was.
pub fn bounded_cause(cause: String) -> String {
    let total = utf16_len(&cause);
    if total <= MAX_CAUSE_CHARS {
        return cause;
    }
    format!("{}\u{2026} ({total} chars in all)", utf16_prefix(&cause, MAX_CAUSE_CHARS))
}

/// How a spot names a value that threw while it was read or iterated
/// (`doing`): `unreadable (reading it threw: cause)`.
pub fn threw(doing: &str, cause: &str) -> String {
    format!("unreadable ({doing} it threw: {cause})")
}

pub fn invalid_input(spot: &InvalidSpot) -> (String, Evidence) {
    let place = match spot.index {
        Some(index) if spot.field == "entry" => format!("loaded[{index}]"),
        Some(index) if spot.field == COUNTER_FIELD => format!("countTokens(loaded[{index}].value.content)"),
        Some(index) => format!("loaded[{index}].{}", spot.field),
        None => spot.field.clone(),
    };
    let fix = match spot.field.as_str() {
        "identity" => "Fix the identity the pipeline gives the stage",
        COUNTER_FIELD => "Fix the `countTokens` option",
        _ => "Fix whatever writes these entries to the store",
    };
    (
        format!(
            "invalid-input: {place} is {} (expected {}); recall is left untouched, with no summarizer call \
and no write this turn. {fix}",
            spot.found, spot.expected
        ),
        Evidence::InvalidInput(InvalidInput {
            summarizer_called: false,
            invalid_index: spot.index,
            invalid_field: spot.field.clone(),
        }),
    )
}

/// An `invalid-input` decline after the call: `countTokens` gave no count
/// for the new summary, so it is not used (nothing is written), and the
/// span is latched (but for a run alone): the same span would be paid for
/// again to the same end.
pub fn invalid_summary_tokens(span: SpanFacts, found: &str, caller: Caller, claim: &ClaimState) -> (String, Evidence) {
    (
        format!(
            "invalid-input: countTokens returned {found} for the summary of the span of {}{claim} (expected \
{TOKEN_COUNT_EXPECTED}); the summary is not used: recall is served verbatim, nothing is written and the span is \
{}{}{}. Fix the `countTokens` option",
            Span(span),
            caller.latched(),
            caller.suffix(),
            claim.release()
        ),
        Evidence::InvalidInput(InvalidInput {
            summarizer_called: caller.called(),
            invalid_index: None,
            invalid_field: COUNTER_FIELD.to_owned(),
        }),
    )
}

/// An `invalid-input` decline about the configured clock.
pub fn invalid_clock(found: &str) -> (String, Evidence) {
    (
        format!(
            "invalid-input: the configured `now` clock returned {found} (expected a finite number of unix ms); \
the fold is skipped and recall is served verbatim. Fix the `now` option"
        ),
        Evidence::InvalidInput(InvalidInput {
            summarizer_called: false,
            invalid_index: None,
            invalid_field: "now".to_owned(),
        }),
    )
}

/// SPEC §7: the one `console.warn` a stage instance may print, for
/// whichever failure comes first. Every occurrence is also an event.
pub mod warning {
    use crate::core::format::EVENT_TYPE;

    pub fn summarizer_failed(strategy_id: &str, cause: &str) -> String {
        format!(
            "[footprint-summarize] {strategy_id}: the summarizer threw or failed (Cause: {cause}). Recall is served \
verbatim and the turn is not failed. Shown once per stage instance; every occurrence is on the {EVENT_TYPE} event."
        )
    }

    pub fn store_refused(strategy_id: &str, cause: &str) -> String {
        format!(
            "[footprint-summarize] {strategy_id}: the summary was not written back, the store refused it ({cause}). The fold \
was still used for this turn, but it is not persisted, so the next turn pays for it again. Shown once per stage instance; \
every occurrence is on the {EVENT_TYPE} event."
        )
    }

    pub fn claim_refused(strategy_id: &str, claim_id: &str, cause: &str) -> String {
        format!(
            "[footprint-summarize] {strategy_id}: the span was not claimed as {claim_id}, the store refused it ({cause}). \
No summarizer call was made and recall is served verbatim, so the turn goes on; a later turn claims it again. Shown once \
per stage instance; every occurrence is on the {EVENT_TYPE} event."
        )
    }

    pub fn recall_refused(strategy_id: &str, cause: &str) -> String {
        format!(
            "[footprint-summarize] {strategy_id}: scope.loaded refused the recall this visit settled to ({cause}), \
so the turn goes on with recall as loaded. Shown once per stage instance; every occurrence is on the {EVENT_TYPE} event."
        )
    }

    /// A decline that is the input's fault (invalid entries, a broken clock): its reason says it all.
    pub fn declined(strategy_id: &str, reason: &str) -> String {
        format!("[footprint-summarize] {strategy_id}: {reason}")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static NO_AUDIT: Audit = Audit { kept: 0, pinned: None, dropped: Vec::new() };

    const SPAN: SpanFacts = SpanFacts { entries: 3, chars: 120, from_turn: 1.0, to_turn: 2.0 };

    #[test]
    fn reasons_carry_their_stable_tokens() {
        assert_eq!(
            covered_only(1, 1, 0).0,
            "1 entry already covered by 1 stored summary \u{2014} no new call this turn"
        );
        assert_eq!(
            covered_only(4, 2, 0).0,
            "4 entries already covered by 2 stored summaries \u{2014} no new call this turn"
        );
        assert!(latched(SPAN).0.contains("not re-asked"));
        let (reason, _) = failed(SPAN, Some("m"), Caller::Leader, "boom", &ClaimState::Silent);
        assert!(reason.contains("summarizer-failed") && reason.contains("verbatim") && reason.ends_with("Cause: boom"));
        let (reason, _) = failed(SPAN, None, Caller::Follower, "boom", &ClaimState::Silent);
        assert!(reason.ends_with("Cause: boom"), "{reason}");
        let (reason, _) = not_smaller(SPAN, 130, None, None, Caller::Leader, &ClaimState::Silent);
        assert!(reason.contains("replacement-not-smaller") && reason.contains("130") && reason.contains("120"));
        let (reason, _) = predicted_not_smaller(SPAN, 300);
        assert!(reason.contains("replacement-not-smaller") && reason.contains("no call made"));
    }

    /// Every reason word for word, one span in the singular with a
    /// fractional turn, so each piece of each sentence is pinned.
    #[test]
    fn every_reason_reads_in_full() {
        let one = SpanFacts { entries: 1, chars: 9, from_turn: 2.5, to_turn: 3.0 };
        let coalesced = " (coalesced: a concurrent run over the same span made the one call; this run waited for it)";
        assert_eq!(
            latched(one).0,
            "the span of 1 entry (turns 2.5\u{2013}3, 9 chars) was refused before (as replacement-not-smaller, or a \
summary countTokens could not count) and is not re-asked: the same span gives the same answer, so recall is served \
verbatim"
        );
        assert_eq!(
            predicted_not_smaller(SPAN, 300).0,
            "replacement-not-smaller, no call made: the label alone is 300 chars, no shorter than the span of 3 entries \
(turns 1\u{2013}2, 120 chars) it would replace, so no summary could make recall smaller; recall is served verbatim"
        );
        assert_eq!(
            failed(SPAN, None, Caller::Leader, "boom", &ClaimState::Silent).0,
            "summarizer-failed for the span of 3 entries (turns 1\u{2013}2, 120 chars): recall is served verbatim and \
the turn goes on. Cause: boom"
        );
        assert_eq!(
            failed(SPAN, None, Caller::Follower, "boom", &ClaimState::Silent).0,
            format!(
                "summarizer-failed for the span of 3 entries (turns 1\u{2013}2, 120 chars): recall is served verbatim \
and the turn goes on{coalesced}. Cause: boom"
            )
        );
        assert_eq!(
            not_smaller(SPAN, 130, None, None, Caller::Follower, &ClaimState::Silent).0,
            format!(
                "replacement-not-smaller: the summary with its label is 130 chars and the span of 3 entries \
(turns 1\u{2013}2, 120 chars) is 120 chars, so folding would grow recall; the span is latched and served \
verbatim{coalesced}"
            )
        );
        let not_latched = "not latched: the identity names no conversation (that takes a string or number \
conversationId, with tenant and principal absent, strings or numbers), so the same span may be asked again";
        assert_eq!(
            not_smaller(SPAN, 130, None, None, Caller::Alone, &ClaimState::Silent).0,
            format!(
                "replacement-not-smaller: the summary with its label is 130 chars and the span of 3 entries \
(turns 1\u{2013}2, 120 chars) is 120 chars, so folding would grow recall; the span is served verbatim and \
{not_latched}"
            )
        );
        assert_eq!(
            invalid_summary_tokens(SPAN, "a string (\"many\")", Caller::Leader, &ClaimState::Silent).0,
            format!(
                "invalid-input: countTokens returned a string (\"many\") for the summary of the span of 3 entries \
(turns 1\u{2013}2, 120 chars) (expected {TOKEN_COUNT_EXPECTED}); the summary is not used: recall is served verbatim, \
nothing is written and the span is latched. Fix the `countTokens` option"
            )
        );
        assert_eq!(
            invalid_summary_tokens(SPAN, "NaN", Caller::Alone, &ClaimState::Silent).0,
            format!(
                "invalid-input: countTokens returned NaN for the summary of the span of 3 entries (turns \
1\u{2013}2, 120 chars) (expected {TOKEN_COUNT_EXPECTED}); the summary is not used: recall is served verbatim, \
nothing is written and the span is {not_latched}. Fix the `countTokens` option"
            )
        );
        let report = |write_back, caller| FoldReport {
            span: one,
            rolled: 0,
            kept: 1,
            summary_id: "msg-summary-2.5-3",
            summary_chars: 8,
            write_back,
            model: None,
            usage: None,
            caller,
            claim: &ClaimState::Silent,
            audit: &NO_AUDIT,
            tokens: None,
        };
        assert_eq!(
            folded(report(&WriteBack::NoStore, Caller::Leader)).0,
            "folded 1 entry (turns 2.5\u{2013}3) into msg-summary-2.5-3; 1 kept verbatim \u{2014} not written back \
(no store configured), so this fold is paid for every turn"
        );
        assert_eq!(
            folded(report(&WriteBack::Failed("disk full".into()), Caller::Follower)).0,
            format!(
                "folded 1 entry (turns 2.5\u{2013}3) into msg-summary-2.5-3; 1 kept verbatim \u{2014} write-back \
FAILED (disk full), so this fold will be paid again{coalesced}"
            )
        );
    }

    #[test]
    fn fold_reason_names_the_write_back() {
        let report = |write_back| FoldReport {
            span: SPAN,
            kept: 5,
            summary_id: "msg-summary-1-2",
            rolled: 0,
            summary_chars: 80,
            write_back,
            model: None,
            usage: None,
            caller: Caller::Leader,
            claim: &ClaimState::Silent,
            audit: &NO_AUDIT,
            tokens: None,
        };
        assert_eq!(
            folded(report(&WriteBack::Written)).0,
            "folded 3 entries (turns 1\u{2013}2) into msg-summary-1-2; 5 kept verbatim \u{2014} written back, so this span is not summarized again"
        );
        assert!(folded(report(&WriteBack::NoStore)).0.contains("no store configured"));
        assert!(folded(report(&WriteBack::Failed("disk full".into()))).0.contains("write-back FAILED (disk full)"));
    }

    #[test]
    fn claim_reasons_and_evidence_name_the_claim() {
        let json = |evidence: Evidence| serde_json::to_string(&evidence).unwrap();
        let (reason, evidence) = claimed_elsewhere(SPAN, "msg-summary-claim-1-2");
        assert!(reason.starts_with("summarized-elsewhere: another process holds the claim msg-summary-claim-1-2"));
        assert!(reason.contains("no call was made") && reason.contains("verbatim"), "{reason}");
        assert_eq!(
            json(evidence),
            r#"{"spanEntries":3,"spanChars":120,"summarizerCalled":false,"claimId":"msg-summary-claim-1-2","claimedElsewhere":true}"#
        );
        let (reason, evidence) = claim_failed(SPAN, "msg-summary-claim-1-2", "ECONNREFUSED");
        assert!(reason.starts_with("claim-failed:") && reason.ends_with("Cause: ECONNREFUSED"), "{reason}");
        assert!(json(evidence).ends_with(r#""claimId":"msg-summary-claim-1-2","claimFailed":true}"#));
        let released = |given_up| ClaimState::Released { id: "msg-summary-claim-1-2".into(), given_up };
        let (reason, evidence) = failed(SPAN, None, Caller::Leader, "HTTP 500", &released(GiveUp::Done));
        assert!(reason.contains("claimed for the fleet as msg-summary-claim-1-2") && reason.contains("is given up"));
        assert!(json(evidence).ends_with(r#""failed":true,"claimId":"msg-summary-claim-1-2","claimGivenUp":true}"#));
        let (reason, _) = failed(SPAN, None, Caller::Leader, "HTTP 500", &released(GiveUp::Refused));
        assert!(reason.contains("refused to give its claim up") && reason.ends_with("Cause: HTTP 500"), "{reason}");
        let (reason, evidence) =
            failed(SPAN, None, Caller::Leader, "HTTP 500", &released(GiveUp::Failed("timed out after 5 ms".into())));
        assert!(reason.contains("giving its claim up failed (timed out after 5 ms)"), "{reason}");
        assert!(json(evidence).ends_with(r#""claimGivenUp":false}"#));
        let (reason, evidence) = unreadable_span(SPAN, "gather its messages", &released(GiveUp::Done));
        assert!(reason.contains("is given up") && reason.ends_with("to the store"), "{reason}");
        assert!(json(evidence)
            .ends_with(r#""summarizerCalled":false,"claimId":"msg-summary-claim-1-2","claimGivenUp":true}"#));
        let held = ClaimState::Held("msg-summary-claim-1-2".into());
        let (reason, _) = not_smaller(SPAN, 130, None, None, Caller::Leader, &held);
        assert!(reason.contains("claimed for the fleet") && !reason.contains("given up"), "{reason}");
        let (reason, evidence) = not_smaller(SPAN, 130, None, None, Caller::Leader, &ClaimState::Unsupported);
        assert!(reason.contains("no putIfVersion"), "{reason}");
        assert!(json(evidence).ends_with(r#""claimsUnsupported":true}"#));
        assert_eq!(covered_only(0, 0, 1).0, "1 fleet claim left out of recall \u{2014} no new call this turn");
        assert_eq!(
            covered_only(2, 1, 2).0,
            "2 entries already covered by 1 stored summary, and 2 fleet claims left out of recall \u{2014} no new \
call this turn"
        );
    }

    #[test]
    fn warnings_name_the_strategy_the_cause_and_what_happens_next() {
        let failed = warning::summarizer_failed("mem-a", "HTTP 500");
        for needle in ["mem-a", "HTTP 500", "verbatim", "turn is not failed"] {
            assert!(failed.contains(needle), "{failed}");
        }
        let refused = warning::store_refused("mem-b", "disk full");
        for needle in ["mem-b", "disk full", "next turn pays"] {
            assert!(refused.contains(needle), "{refused}");
        }
        assert_eq!(warning::declined("mem-c", "invalid-input: x"), "[footprint-summarize] mem-c: invalid-input: x");
        let refused = warning::recall_refused("mem-d", "object is not extensible");
        for needle in ["mem-d", "scope.loaded refused", "object is not extensible", "recall as loaded"] {
            assert!(refused.contains(needle), "{refused}");
        }
    }

    #[test]
    fn only_the_run_that_called_reports_usage() {
        let usage = Some(Usage { input: Some(10.0), output: Some(2.0) });
        let Evidence::NotSmaller(leader) =
            not_smaller(SPAN, 500, None, usage.clone(), Caller::Leader, &ClaimState::Silent).1
        else {
            panic!()
        };
        assert_eq!(leader.usage, usage);
        let Evidence::NotSmaller(alone) =
            not_smaller(SPAN, 500, None, usage.clone(), Caller::Alone, &ClaimState::Silent).1
        else {
            panic!()
        };
        assert_eq!((alone.usage, alone.summarizer_called, alone.coalesced), (usage.clone(), true, None));
        let Evidence::NotSmaller(follower) =
            not_smaller(SPAN, 500, None, usage, Caller::Follower, &ClaimState::Silent).1
        else {
            panic!()
        };
        assert_eq!((follower.usage, follower.summarizer_called, follower.coalesced), (None, false, Some(true)));
    }

    /// SPEC §4's key orders, with absent options left out.
    #[test]
    fn evidence_json_keeps_spec_key_order() {
        let usage = Some(Usage { input: Some(1200.0), output: Some(0.5) });
        let report = |caller| FoldReport {
            span: SPAN,
            kept: 5,
            summary_id: "msg-summary-1-2",
            rolled: 0,
            summary_chars: 80,
            write_back: &WriteBack::Written,
            model: Some("mini \"m\""),
            usage: usage.clone(),
            caller,
            claim: &ClaimState::Silent,
            audit: &NO_AUDIT,
            tokens: None,
        };
        let cases = [
            (covered_only(2, 1, 0).1, r#"{"summarizerCalled":false}"#),
            (latched(SPAN).1, r#"{"spanEntries":3,"spanChars":120,"summarizerCalled":false,"latched":true}"#),
            (
                predicted_not_smaller(SPAN, 300).1,
                r#"{"spanEntries":3,"spanChars":120,"summarizerCalled":false,"labelChars":300,"predicted":true}"#,
            ),
            (
                failed(SPAN, None, Caller::Follower, "x", &ClaimState::Silent).1,
                r#"{"spanEntries":3,"spanChars":120,"summarizerCalled":false,"failed":true,"coalesced":true}"#,
            ),
            (
                not_smaller(SPAN, 130, Some("mini"), usage.clone(), Caller::Leader, &ClaimState::Silent).1,
                r#"{"spanEntries":3,"spanChars":120,"summarizerCalled":true,"summaryChars":130,"model":"mini","usage":{"input":1200,"output":0.5}}"#,
            ),
            (
                folded(report(Caller::Leader)).1,
                r#"{"summarizerCalled":true,"spanEntries":3,"spanChars":120,"summaryChars":80,"persisted":true,"model":"mini \"m\"","usage":{"input":1200,"output":0.5},"detailsFound":0,"detailsKept":0,"droppedDetails":[],"droppedDetailCount":0}"#,
            ),
            (
                folded(report(Caller::Follower)).1,
                r#"{"summarizerCalled":false,"spanEntries":3,"spanChars":120,"summaryChars":80,"persisted":true,"model":"mini \"m\"","coalesced":true,"detailsFound":0,"detailsKept":0,"droppedDetails":[],"droppedDetailCount":0}"#,
            ),
            (invalid_clock("NaN").1, r#"{"summarizerCalled":false,"invalidField":"now"}"#),
        ];
        for (evidence, expected) in cases {
            assert_eq!(json(&evidence), expected);
        }
        let spot = InvalidSpot { index: Some(0), field: "id".into(), ..InvalidSpot::default() };
        assert_eq!(json(&invalid_input(&spot).1), r#"{"summarizerCalled":false,"invalidIndex":0,"invalidField":"id"}"#);
        let usage = Usage { input: Some(f64::NAN), output: None };
        let evidence = not_smaller(SPAN, 130, None, Some(usage), Caller::Leader, &ClaimState::Silent).1;
        assert!(json(&evidence).ends_with(r#""usage":{"input":null}}"#));
    }

    /// Evidence as JSON text, to compare key orders as text (serde_json
    /// writes a float with its `.0`, as JS does not).
    fn json(evidence: &Evidence) -> String {
        serde_json::to_string(evidence).expect("evidence serializes").replace(".0,", ",").replace(".0}", "}")
    }

    #[test]
    fn a_long_cause_is_cut_at_a_character_and_says_how_long_it_was() {
        assert_eq!(bounded_cause("HTTP 500".into()), "HTTP 500");
        let exact = "x".repeat(MAX_CAUSE_CHARS);
        assert_eq!(bounded_cause(exact.clone()), exact);
        // An emoji is two UTF-16 units: the cut never splits one.
        let long = format!("{}😀😀", "x".repeat(MAX_CAUSE_CHARS - 1));
        assert_eq!(bounded_cause(long), format!("{}\u{2026} (1003 chars in all)", "x".repeat(MAX_CAUSE_CHARS - 1)));
    }

    #[test]
    fn invalid_input_names_index_and_field() {
        let spot = InvalidSpot {
            index: Some(3),
            field: "value.content".into(),
            found: "a number (42)".into(),
            expected: "a string, null or absent".into(),
        };
        let (reason, evidence) = invalid_input(&spot);
        assert!(reason.starts_with("invalid-input: loaded[3].value.content is a number (42)"), "{reason}");
        assert_eq!(
            evidence,
            Evidence::InvalidInput(InvalidInput {
                summarizer_called: false,
                invalid_index: Some(3),
                invalid_field: "value.content".into()
            })
        );
        let five: Vec<String> = (1..=5).map(|n| format!("s{n}")).collect();
        let (reason, _) = invalid_input(&InvalidSpot::covered_in_a_cycle(2, &five));
        assert!(
            reason.starts_with(
                "invalid-input: loaded[2] is covered only by summaries that cover one another (s1, s2, s3 and 2 more)"
            ),
            "{reason}"
        );
    }
}
