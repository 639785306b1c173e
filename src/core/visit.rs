//! One visit of the stage, SPEC §4 top to bottom, over a [`Host`]: the
//! bindings read recall and the identity (step 1) and make the calls the
//! visit asks for; every step, and the order of every call into user code,
//! is here.
//!
//! [`visit`] runs steps 2–7 and starts the one call (step 8) synchronously,
//! so the summarizer has been called before the stage returns its promise,
//! as the original's async function does. The rest is an async tail
//! ([`Visited::Later`]) that awaits the summarizer and the store. The visit
//! owns its host: nothing is borrowed across an await, so concurrent visits
//! never collide.
//!
//! With `claims: true` the leader first claims the span for the fleet
//! through the store's `putIfVersion` and awaits the answer, so there the
//! summarizer is called after the stage has returned its promise.

use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;

use super::config::{claim_version, StageConfig, JOIN_WINDOW_MS};
use super::decision::{self, CallOutcome, Candidate, Fold, Plan, Settled};
use super::details::{self, Audit};
use super::events::{warning, Caller, ClaimState, Event, GiveUp, InvalidSpot, Usage, WriteBack};
use super::flight::Flights;
use super::format::utf16_len;
use super::js_number::js_number_to_string;
use super::latch::span_key_text;
use super::recall::{claim_dated, partition, EntryFacts};
use super::shapes::{Claim, ClaimEntry, ClaimMetadata, Coverage, Message, Metadata, Source, SummaryEntry};

/// A leader's call over a span, as other runs over it wait on it.
pub type Flight<Entry> = super::flight::Flight<CallOutcome<Entry>>;

/// What the stage hands back: at once, or once its calls have answered.
pub enum Visited<H: Host> {
    Now(H::Delivered),
    Later(Pin<Box<dyn Future<Output = H::Delivered>>>),
}

/// What a visit settled to: recall as slots, the event, and the new summary.
pub struct Outcome<Entry> {
    pub settled: Settled,
    pub new_summary: Option<Entry>,
    /// Invalid input: recall is left exactly as given.
    pub untouched: bool,
}

impl<Entry> Outcome<Entry> {
    fn of(settled: Settled) -> Outcome<Entry> {
        Outcome { settled, new_summary: None, untouched: false }
    }
}

/// The summarizer's answer: its text as the host holds it, a copy of that
/// text (what the audit reads), and, from a provider, the usage it reported.
pub struct Answer<Text> {
    pub text: Text,
    pub copy: String,
    pub usage: Option<Usage>,
}

/// The summary entry on `candidate`'s span (SPEC §2), folded at `now`,
/// with the host's `content`, the span's own ids as `covered_ids` (and the
/// claim it was paid under, so every reader leaves the claim out) and the
/// `identity` its first entry names.
pub fn summary_entry<'a, V>(
    config: &'a StageConfig,
    candidate: &Candidate,
    now: f64,
    audit: &'a Audit,
    content: V,
    covered_ids: V,
    identity: Option<V>,
) -> SummaryEntry<'a, V> {
    let facts = candidate.span;
    let anchor = candidate.anchor.unwrap_or(now);
    SummaryEntry {
        id: candidate.summary_id(),
        value: Message { role: "system", content },
        metadata: Metadata {
            summarizes: Coverage {
                from_turn: facts.from_turn,
                to_turn: facts.to_turn,
                entry_count: facts.entries,
                covered_ids,
                model: config.model(),
                summarized_at_ms: now,
                dropped_details: audit.listed(),
            },
        },
        version: 1,
        created_at: anchor,
        updated_at: anchor,
        last_accessed_at: now,
        access_count: 0,
        ttl: config.ttl_ms.map(|ttl| anchor + ttl),
        tier: config.tier.as_str(),
        source: Source { turn: facts.to_turn, identity },
    }
}

/// Steps 2–8 of a visit whose recall and identity the host has read: the
/// identity's key when it names one conversation, or the visit's bad input.
pub fn visit<H: Host>(mut host: H, read: Result<Option<String>, InvalidSpot>) -> Visited<H> {
    let identity_key = match read {
        Ok(key) => key,
        Err(spot) => return Visited::Now(invalid_input(&host, spot)),
    };
    if host.loaded_len() == 0 {
        return Visited::Now(host.deliver(Outcome::of(Settled { recall: Vec::new(), event: None })));
    }
    // With token budgets, every entry's content is counted once, by one counter.
    if host.config().tokens.is_some() {
        if let Err(spot) = host.count_tokens() {
            return Visited::Now(invalid_input(&host, spot));
        }
    }

    // 2–5. Partition, seam, and whether a call is worth making at all.
    let candidate = match decision::plan(host.config(), host.facts(), partition(host.facts())) {
        Plan::Settle(settled) => return Visited::Now(host.deliver(Outcome::of(settled))),
        Plan::Consider(candidate) => candidate,
    };

    // 7 and §8: latched, or too short for any summary to pay; another run's
    // call over the same span; a clock that cannot stamp the fold.
    // What folds: any summaries rolled in (`maxSummaries`), then the raw span.
    let span: Rc<[usize]> = candidate.folded_indices().into();
    host.keep_span(&span);
    let key = identity_key.map(|identity| span_key_text(&identity, span.iter().map(|&index| host.id_text(index))));
    let settle_now = |host: &H, settled: Settled| Visited::Now(host.deliver(Outcome::of(settled)));
    if key.as_deref().is_some_and(|key| host.latched(key)) {
        return settle_now(&host, candidate.latched());
    }
    if let Some(declined) =
        candidate.too_few_tokens(host.config()).or_else(|| candidate.predicted_refusal(host.config()))
    {
        return settle_now(&host, declined);
    }
    if let Some(deferred) = candidate.defer(host.config()) {
        return settle_now(&host, deferred);
    }
    let in_flight = |host: &H| key.as_deref().and_then(|key| host.find_flight(key));
    if let Some(flight) = in_flight(&host) {
        return follow(host, candidate, flight);
    }
    // Only a user's `now` can fail, so only it is read before paying for the
    // call (`None` without one: `Date.now` is read when it is needed).
    let clock_before_call = match host.configured_clock().transpose() {
        Ok(now) => now,
        Err(found) => {
            let settled = candidate.invalid_clock(&found);
            warn_about(&host, settled.event.as_ref());
            return settle_now(&host, settled);
        }
    };
    // A user's `now` is user code: it may have started a run over this span.
    if let Some(flight) = in_flight(&host) {
        return follow(host, candidate, flight);
    }

    // 8. The one call, started now. The flight is listed first: the call
    // runs user code, which may start another run over this span. Only a
    // span that can be told apart is anyone else's to join.
    let flight = key.map(|key| host.start_flight(key));
    // The fleet claims a span only for a conversation it can tell apart
    // (§8, Isolation): without a key, two conversations would claim one span.
    let first = match host.config().claim_lease_ms.filter(|_| flight.is_some()) {
        Some(lease_ms) => First::Claim { lease_ms },
        None => match host.start_summarizer(&span) {
            Ok(call) => First::Call(call),
            Err(what) => {
                let outcome = CallOutcome::Unreadable { what };
                return Visited::Now(conclude(&host, &candidate, flight, outcome, &ClaimState::Silent));
            }
        },
    };
    Visited::Later(Box::pin(lead(host, candidate, span, flight, clock_before_call, first)))
}

/// What the run that leads does first: await the call it started, or (with
/// `claims: true`) claim the span for the fleet and only then call.
enum First<Call> {
    Call(Call),
    Claim { lease_ms: f64 },
}

/// Steps 8–10 for the run that makes the call, then settle.
async fn lead<H: Host>(
    host: H,
    candidate: Candidate,
    span: Rc<[usize]>,
    flight: Option<Rc<Flight<H::Entry>>>,
    clock_before_call: Option<f64>,
    first: First<H::Call>,
) -> H::Delivered {
    let caller = leader(&flight);
    let (call, held) = match first {
        First::Call(call) => (call, None),
        First::Claim { lease_ms } => {
            match claim_and_call(&host, &candidate, &span, &flight, clock_before_call, lease_ms).await {
                Ok(call) => call,
                Err(delivered) => return delivered,
            }
        }
    };
    // 8. Await the summarizer's answer.
    let Answer { text, copy, usage } = match host.summary(call).await {
        Ok(answer) => answer,
        Err(cause) => {
            host.warn_once(|| warning::summarizer_failed(&host.config().strategy_id, &cause));
            let outcome = CallOutcome::Failed { cause };
            end_flight(&host, flight, &outcome);
            let claim = give_up_or(&host, &candidate, held, || unclaimed(&host, caller)).await;
            return host.deliver(settle(&host, &candidate, outcome, caller, &claim));
        }
    };
    // Kept through a refusal: the same span gives the same answer, so
    // the claim spares the fleet that call until its lease ends.
    let claim = match &held {
        Some(held) => ClaimState::Held(held.id.clone()),
        None => unclaimed(&host, caller),
    };
    // 9. A summary that does not make recall smaller is refused, and its
    // span latched: the same span gives the same answer.
    let summary_chars = candidate.label_chars() + utf16_len(&copy);
    if !candidate.made_smaller_by(summary_chars) {
        let outcome = CallOutcome::NotSmaller { summary_chars, usage };
        return conclude(&host, &candidate, flight, outcome, &claim);
    }
    // 10. Fold: the summary entry, stamped when the fold happens (after
    // the call; a clock that broke during it keeps the earlier reading),
    // and what it kept of the span's exact details. With `keepDetails`,
    // a line lists the dropped ones, in the room left below the span's
    // length, so the summary stays smaller than what it replaces.
    let now = clock(&host).unwrap_or_else(|_| clock_before_call.unwrap_or_else(|| host.wall_clock()));
    // The span's texts are copied now, not held from before the call: a
    // summarizer that never answers (no `timeoutMs`) would otherwise keep
    // them in the memory every conversation shares.
    let span_texts = host.span_texts(&span);
    let rolled = |index: usize| host.facts()[index].summary.is_some();
    let audited = span.iter().zip(&span_texts).map(|(&index, text)| details::audited_text(text, rolled(index)));
    let mut audit = details::audit(audited, &copy);
    let room = candidate.room_after(summary_chars);
    let pinned = host.config().keep_details.map(|bounds| audit.pin(bounds, room)).unwrap_or_default();
    let facts = candidate.span;
    let label = host.config().header().render(&[facts.from_turn, facts.to_turn, facts.entries as f64]);
    let content = host.summary_content(&label, text, &pinned);
    let summary_tokens = match host.config().tokens.map(|_| host.count_summary_tokens(&content)).transpose() {
        Ok(tokens) => tokens,
        Err(found) => {
            let outcome = CallOutcome::SummaryUncounted { found };
            end_flight(&host, flight, &outcome);
            let claim = give_up_or(&host, &candidate, held, || claim).await;
            return host.deliver(settle(&host, &candidate, outcome, caller, &claim));
        }
    };
    let fold = Fold { summary_chars: summary_chars + utf16_len(&pinned), summary_tokens, usage, audit };
    let claim_id = held.as_ref().map(|held| held.id.as_str());
    let entry = host.summary_entry(&candidate, &span, content, now, claim_id, &fold.audit);
    if !host.has_store() {
        let outcome = CallOutcome::Folded { entry, fold, write_back: WriteBack::NoStore };
        return conclude(&host, &candidate, flight, outcome, &claim);
    }
    // Waiting runs go on as soon as the summary exists: the write is
    // this run's own (a store that never answers holds no one else).
    if let Some(flight) = &flight {
        let fold = Fold { usage: None, ..fold.clone() };
        flight.publish(CallOutcome::Folded { entry: entry.clone(), fold, write_back: WriteBack::ByLeader });
    }
    let written = host.put(&entry).await;
    if let Some(flight) = &flight {
        host.finish_flight(flight);
    }
    let (write_back, claim) = match written {
        Ok(()) => (WriteBack::Written, claim),
        Err(cause) => {
            host.warn_once(|| warning::store_refused(&host.config().strategy_id, &cause));
            // No summary for the fleet to load: let the next turn pay for it.
            let claim = give_up_or(&host, &candidate, held, || claim).await;
            (WriteBack::Failed(cause), claim)
        }
    };
    let outcome = CallOutcome::Folded { entry, fold, write_back };
    host.deliver(settle(&host, &candidate, outcome, caller, &claim))
}

/// What an event says of a run that made its call without a claim: once
/// per stage, that the store cannot take claims (a leader's identity
/// names its conversation, so it would have claimed; a run alone never
/// claims).
fn unclaimed<H: Host>(host: &H, caller: Caller) -> ClaimState {
    if caller == Caller::Leader && host.config().claim_lease_ms.is_some() && host.first_claims_note() {
        ClaimState::Unsupported
    } else {
        ClaimState::Silent
    }
}

/// A run over a span another run is calling for: it settles from that
/// run's outcome, at once when it is published already.
fn follow<H: Host>(host: H, candidate: Candidate, flight: Rc<Flight<H::Entry>>) -> Visited<H> {
    if let Some(outcome) = flight.published() {
        return Visited::Now(host.deliver(settle(&host, &candidate, outcome, Caller::Follower, &ClaimState::Silent)));
    }
    Visited::Later(Box::pin(async move {
        let outcome = host.published(&flight).await.unwrap_or_else(|| CallOutcome::Failed {
            cause: format!(
                "the concurrent run's call did not answer within the {} ms join window",
                js_number_to_string(JOIN_WINDOW_MS)
            ),
        });
        host.deliver(settle(&host, &candidate, outcome, Caller::Follower, &ClaimState::Silent))
    }))
}

/// The leader's end without a write: publish, free the span, settle.
fn conclude<H: Host>(
    host: &H,
    candidate: &Candidate,
    flight: Option<Rc<Flight<H::Entry>>>,
    outcome: CallOutcome<H::Entry>,
    claim: &ClaimState,
) -> H::Delivered {
    let caller = leader(&flight);
    end_flight(host, flight, &outcome);
    host.deliver(settle(host, candidate, outcome, caller, claim))
}

/// Publishes the leader's outcome, so waiting runs go on, and frees the
/// span; a span the outcome latches is latched first. Only a span that
/// can be told apart has a flight, so only it is latched (§8, Isolation).
fn end_flight<H: Host>(host: &H, flight: Option<Rc<Flight<H::Entry>>>, outcome: &CallOutcome<H::Entry>) {
    if let Some(flight) = flight {
        if outcome.latches() {
            host.latch(flight.key());
        }
        flight.publish(outcome.clone());
        host.finish_flight(&flight);
    }
}

fn settle<H: Host>(
    host: &H,
    candidate: &Candidate,
    outcome: CallOutcome<H::Entry>,
    caller: Caller,
    claim: &ClaimState,
) -> Outcome<H::Entry> {
    let warns = outcome.warns();
    let (settled, new_summary) = candidate.settle(outcome, host.config().model(), caller, claim);
    if warns {
        warn_about(host, settled.event.as_ref());
    }
    Outcome { settled, new_summary, untouched: false }
}

fn invalid_input<H: Host>(host: &H, spot: InvalidSpot) -> H::Delivered {
    let settled = decision::invalid_input(host.loaded_len(), &spot);
    warn_about(host, settled.event.as_ref());
    host.deliver(Outcome { settled, new_summary: None, untouched: true })
}

fn warn_about<H: Host>(host: &H, event: Option<&Event>) {
    if let Some(event) = event {
        host.warn_once(|| warning::declined(&host.config().strategy_id, &event.reason));
    }
}

/// The configured `now`, or `Date.now()` without one.
fn clock<H: Host>(host: &H) -> Result<f64, String> {
    host.configured_clock().unwrap_or_else(|| Ok(host.wall_clock()))
}

/// The run that makes the call: a leader other runs can join when its span
/// can be told apart (it has a flight), alone otherwise (§8, Isolation).
fn leader<Entry>(flight: &Option<Rc<Flight<Entry>>>) -> Caller {
    if flight.is_some() {
        Caller::Leader
    } else {
        Caller::Alone
    }
}

mod claims;
mod host;

use claims::{claim_and_call, give_up_or};
pub use claims::{claim_entry, ConditionalWrite, HeldClaim};
pub use host::Host;

#[cfg(test)]
mod tests;
