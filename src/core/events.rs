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
    /// `background: true`: the visit did not wait for the fold, or this is
    /// the fold's own event, at its end (`scoreEvidence.background`).
    pub background: bool,
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
    Background(Background),
    Predicted(Predicted),
    Deferred(Deferred),
    TooFewTokens(TooFewTokens),
    Failed(Failed),
    NotSmaller(NotSmaller),
    Folded(Folded),
    InvalidInput(InvalidInput),
    Unreadable(Unreadable),
    Unclaimed(Unclaimed),
    SpanOverBound(SpanOverBound),
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

mod bound;
mod evidence;
mod input;
mod reasons;
pub mod warning;

pub use bound::*;
pub use evidence::*;
pub use input::*;
pub use reasons::*;

#[cfg(test)]
mod tests;
