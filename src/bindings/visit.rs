//! One visit of the stage, SPEC §4 top to bottom.
//!
//! `visit` runs steps 1–7 and starts the one call (step 8) synchronously,
//! so the summarizer has been called before the stage returns its promise,
//! as the original's async function does. The rest is an async tail that
//! awaits the summarizer and the store as futures (wasm-bindgen-futures
//! makes the promise the stage returns). The visit owns its state: nothing
//! is borrowed across an await, so concurrent visits never collide.
//!
//! With `claims: true` the leader first claims the span for the fleet
//! through the store's `putIfVersion` and awaits the answer, so there the
//! summarizer is called after the stage has returned its promise.

use std::rc::Rc;

use js_sys::{Array, Function, JsString, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::future_to_promise;

use super::call::{self, Answer, Started};
use super::config::{to_js_error, Settings};
use super::flight::{self, Flight};
use super::identity::{self, VisitIdentity};
use super::js::{self, AbortController, Callee, Scope, Source as SourceFields};
use super::latches;
use super::output::{to_js, AsIs};
use super::recall::{self, Recall, Unusable};
use super::stage::StageHandle;
use super::tokens;
use crate::core::config::{claim_version, Key, JOIN_WINDOW_MS};
use crate::core::decision::{self, CallOutcome, Candidate, Fold, Plan, Settled, NEW_SUMMARY_SLOT};
use crate::core::details::{self, Audit};
use crate::core::events::{self, warning, Caller, ClaimState, Event, GiveUp, InvalidSpot, WriteBack};
use crate::core::format::{transcript, utf16_len, TranscriptLine, EVENT_TYPE, STRATEGY_KIND};
use crate::core::js_number::js_number_to_string;
use crate::core::latch::span_key_text;
use crate::core::recall::{claim_dated, partition};
use crate::core::shapes::{
    Claim, ClaimEntry, ClaimMetadata, Coverage, EventRecord, FoldResult, Message, Metadata, Payload, ProviderRequest,
    Source, SummaryEntry,
};

/// `stage(scope)`: reads `scope.loaded` and `scope.identity`, may assign
/// `scope.loaded`, emits through `scope.$emit`; resolves to undefined.
pub fn run(stage: StageHandle, scope: JsValue) -> Promise {
    // The identity is copied before recall is read: a getter that runs
    // while recall is read cannot change what this visit is keyed by.
    let identity = identity::read(scope.unchecked_ref::<Scope>().identity());
    visit(stage, recall::read_scope(&scope), identity, Target::Scope(scope))
}

/// `stage.fold(loaded, identity)`: the same visit; resolves to `{ recall, events }`.
pub fn fold(stage: StageHandle, loaded: JsValue, identity: JsValue) -> Promise {
    let identity = identity::read(Ok(identity));
    visit(stage, recall::read_recall(&loaded), identity, Target::Fold(loaded))
}

/// Where a visit's result goes.
enum Target {
    /// Assign `scope.loaded` and emit through `scope.$emit`.
    Scope(JsValue),
    /// Build `{ recall, events }`; holds the caller's `loaded`.
    Fold(JsValue),
}

/// Everything a visit knows once recall is read.
struct Visit {
    stage: StageHandle,
    settings: Settings,
    recall: Recall,
    /// How many entries `loaded` held, even when reading stopped at a bad one.
    loaded_len: usize,
    /// The visit's copy of its identity: what every store call receives.
    identity: JsValue,
    /// The first folded entry's `source.identity` (SPEC §2), read once when
    /// the span is known, before anything is awaited.
    source_identity: Option<JsValue>,
    target: Target,
}

/// What a visit settled to: recall as slots, the event, and the new summary.
struct Outcome {
    settled: Settled,
    new_summary: JsValue,
    /// Invalid input: recall is left exactly as given.
    untouched: bool,
}

impl Outcome {
    fn of(settled: Settled) -> Outcome {
        Outcome { settled, new_summary: JsValue::UNDEFINED, untouched: false }
    }
}

fn visit(
    stage: StageHandle,
    read: Result<Recall, Unusable>,
    identity: Result<VisitIdentity, InvalidSpot>,
    target: Target,
) -> Promise {
    // The copy was checked at build and only the stage function holds it,
    // so it reads the same at every visit. Were it ever refused, the visit
    // would reject, naming why, and the guard in glue.js would take that for
    // a failure of the instance, as it takes every rejection of a visit.
    let settings = match stage.settings() {
        Ok(settings) => settings,
        Err(error) => return Promise::reject(&to_js_error(error)),
    };
    // 1. Recall, read once by iteration, every field of every entry once;
    // the identity, copied once (§8, Isolation).
    let (recall, loaded_len, invalid) = match read {
        Ok(recall) => {
            let loaded_len = recall.entries.len();
            (recall, loaded_len, None)
        }
        Err(Unusable { spot, loaded_len }) => (Recall::default(), loaded_len, Some(spot)),
    };
    let (identity, identity_key, invalid) = match identity {
        Ok(VisitIdentity { copy, key }) => (copy, key, invalid),
        Err(spot) => (JsValue::UNDEFINED, None, invalid.or(Some(spot))),
    };
    let mut visit = Visit { stage, settings, recall, loaded_len, identity, source_identity: None, target };
    if let Some(spot) = invalid {
        return Promise::resolve(&visit.deliver(visit.invalid_input(spot)));
    }
    if loaded_len == 0 {
        return Promise::resolve(&visit.deliver(Outcome::of(Settled { recall: Vec::new(), event: None })));
    }
    // With token budgets, every entry's content is counted once, by one counter.
    if visit.settings.core.tokens.is_some() {
        if let Err(spot) = tokens::count_recall(visit.settings.count_tokens.as_ref(), &mut visit.recall) {
            return Promise::resolve(&visit.deliver(visit.invalid_input(spot)));
        }
    }

    // 2–5. Partition, seam, and whether a call is worth making at all.
    let facts = &visit.recall.facts;
    let candidate = match decision::plan(&visit.settings.core, facts, partition(facts)) {
        Plan::Settle(settled) => return Promise::resolve(&visit.deliver(Outcome::of(settled))),
        Plan::Consider(candidate) => candidate,
    };

    // 7 and §8: latched, or too short for any summary to pay; another run's
    // call over the same span; a clock that cannot stamp the fold.
    // What folds: any summaries rolled in (`maxSummaries`), then the raw span.
    let span: Rc<[usize]> = candidate.folded_indices().into();
    visit.source_identity = visit.first_source_identity(&span);
    let ids = span.iter().map(|&index| visit.recall.id_texts[index].as_str());
    let key = identity_key.map(|identity| span_key_text(&identity, ids));
    if key.as_deref().is_some_and(|key| latches::contains(&visit.stage, key)) {
        return Promise::resolve(&visit.deliver(Outcome::of(candidate.latched())));
    }
    if candidate.cannot_pass() {
        return Promise::resolve(&visit.deliver(Outcome::of(candidate.predicted_not_smaller())));
    }
    if let Some(deferred) = candidate.defer(&visit.settings.core) {
        return Promise::resolve(&visit.deliver(Outcome::of(deferred)));
    }
    let stage_id = visit.stage.id();
    let window_ms = visit.settings.core.join_window_ms();
    let in_flight = |key: &Option<String>| key.as_deref().and_then(|key| flight::find(stage_id, key, window_ms));
    if let Some(flight) = in_flight(&key) {
        return visit.follow(candidate, flight);
    }
    // Only a user's `now` can fail, so only it is read before paying for the
    // call (`None` without one: `Date.now` is read when it is needed).
    let clock_before_call = match visit.settings.now.as_ref().map(read_clock).transpose() {
        Ok(now) => now,
        Err(found) => {
            let settled = candidate.invalid_clock(&found);
            visit.warn_about(settled.event.as_ref());
            return Promise::resolve(&visit.deliver(Outcome::of(settled)));
        }
    };
    // A user's `now` is user code: it may have started a run over this span.
    if let Some(flight) = in_flight(&key) {
        return visit.follow(candidate, flight);
    }

    // 8. The one call, started now. The flight is listed first: the call
    // runs user code, which may start another run over this span. Only a
    // span that can be told apart is anyone else's to join.
    let flight = key.map(|key| flight::start(stage_id, key));
    // The fleet claims a span only for a conversation it can tell apart
    // (§8, Isolation): without a key, two conversations would claim one span.
    let first = match visit.settings.core.claim_lease_ms.filter(|_| flight.is_some()) {
        Some(lease_ms) => First::Claim { lease_ms },
        None => match visit.start_call(&span) {
            Ok(started) => First::Call(started),
            Err(Unreadable(what)) => {
                let outcome = CallOutcome::Unreadable { what };
                return Promise::resolve(&visit.conclude(&candidate, flight, outcome, &ClaimState::Silent));
            }
        },
    };
    future_to_promise(visit.lead(candidate, span, flight, clock_before_call, first))
}

/// What the run that leads does first: await the call it started, or (with
/// `claims: true`) claim the span for the fleet and only then call.
enum First {
    Call(Started),
    Claim { lease_ms: f64 },
}

/// The span's entries could not be read again to make the call (to do what
/// this says): no call was made.
struct Unreadable(&'static str);

/// The fleet's claim on a span, as this run wrote it.
#[derive(Clone)]
struct HeldClaim {
    id: String,
    /// The version the store holds it at: the expected version when it is
    /// given up (`claim_version` says why it is written as it is).
    version: f64,
    claimed_at: f64,
    lease_ms: f64,
    /// The store's `putIfVersion` as the claim read it: the give-up calls
    /// the same function, not whatever the store holds after the awaits.
    put_if_version: Function,
}

/// What `putIfVersion(identity, claim, 0)` came to.
enum ClaimAnswer {
    Held(HeldClaim),
    /// Another process holds a live claim on the span.
    Elsewhere,
    /// The store has no `putIfVersion`: run as without claims.
    Unsupported,
    /// No answer to trust (a rejection, a deadline, a malformed answer).
    /// The claim may still land: `attempted` is what was written.
    Failed {
        cause: String,
        attempted: Option<HeldClaim>,
    },
}

impl Visit {
    /// `claims: true`: claim the span for the fleet, then start the call. A
    /// span another process holds, or a claim the store failed to take,
    /// makes no call (paying without a claim could pay once per process):
    /// then the run's end is delivered, as `Err`.
    async fn claim_and_call(
        &self,
        candidate: &Candidate,
        span: &[usize],
        flight: &Option<Rc<Flight>>,
        clock_before_call: Option<f64>,
        lease_ms: f64,
    ) -> Result<(Started, Option<HeldClaim>), JsValue> {
        // A configured clock was read and checked before the call; `Date.now` otherwise.
        let now = clock_before_call.unwrap_or_else(js_sys::Date::now);
        let held = match self.claim(candidate, now, lease_ms).await {
            ClaimAnswer::Held(held) => Some(held),
            ClaimAnswer::Unsupported => None,
            ClaimAnswer::Elsewhere => {
                return Err(self.conclude(
                    candidate,
                    flight.clone(),
                    CallOutcome::ClaimedElsewhere,
                    &ClaimState::Silent,
                ));
            }
            ClaimAnswer::Failed { cause, attempted } => {
                // A claim that timed out may still land (a client that queues
                // while the server is away): give it up behind it, unawaited.
                if let Some(attempted) = attempted {
                    let give_up = self.start_give_up(candidate, &attempted);
                    wasm_bindgen_futures::spawn_local(async move {
                        let _ = give_up.answer().await;
                    });
                }
                self.warn_once(|| warning::claim_refused(&self.settings.strategy_id, &candidate.claim_id(), &cause));
                let outcome = CallOutcome::ClaimFailed { cause };
                return Err(self.conclude(candidate, flight.clone(), outcome, &ClaimState::Silent));
            }
        };
        match self.start_call(span) {
            Ok(started) => Ok((started, held)),
            Err(Unreadable(what)) => {
                let outcome = CallOutcome::Unreadable { what };
                self.end_flight(flight.clone(), &outcome);
                let claim = self.give_up_or(candidate, held, || ClaimState::Silent).await;
                Err(self.deliver(self.settle(candidate, outcome, leader(flight), &claim)))
            }
        }
    }

    /// `await store.putIfVersion(identity, claim, 0)`: 0 means "only if no
    /// live claim is there", so of all the runs over a span, one holds it.
    async fn claim(&self, candidate: &Candidate, now: f64, lease_ms: f64) -> ClaimAnswer {
        // Undefined means a store without claims; anything else that is not a function is a broken one.
        let put_if_version = match self.store().unchecked_ref::<Callee>().put_if_version() {
            Ok(method) if method.is_undefined() => return ClaimAnswer::Unsupported,
            read => match call::function_of(read, "store.putIfVersion") {
                Ok(method) => method,
                Err(cause) => return ClaimAnswer::Failed { cause, attempted: None },
            },
        };
        let version = claim_version(now, js_sys::Math::random());
        let held = HeldClaim { id: candidate.claim_id(), version, claimed_at: now, lease_ms, put_if_version };
        let entry = self.claim_entry(candidate, &held, now + lease_ms);
        let answer = self.put_if_version(held.put_if_version.clone(), &entry, 0.0).answer().await;
        match answer.and_then(call::conditional_write_answer) {
            Ok(written) if written.applied => {
                ClaimAnswer::Held(HeldClaim { version: written.current_version.unwrap_or(held.version), ..held })
            }
            Ok(_) => ClaimAnswer::Elsewhere,
            Err(cause) => ClaimAnswer::Failed { cause, attempted: Some(held) },
        }
    }

    /// Gives a claim up at once (its call failed, no call could be made, or
    /// its summary could not be written), so the next turn can claim the
    /// span again. Waiting runs have gone on already: this is the run's own.
    /// Without a claim, what the event says is `otherwise()`.
    async fn give_up_or(
        &self,
        candidate: &Candidate,
        held: Option<HeldClaim>,
        otherwise: impl FnOnce() -> ClaimState,
    ) -> ClaimState {
        let Some(held) = held else {
            return otherwise();
        };
        let answer = self.start_give_up(candidate, &held).answer().await;
        let given_up = match answer.and_then(call::conditional_write_answer) {
            Ok(written) if written.applied => GiveUp::Done,
            Ok(_) => GiveUp::Refused,
            Err(cause) => GiveUp::Failed(cause),
        };
        ClaimState::Released { id: held.id, given_up }
    }

    /// Writes the same claim, expiring a millisecond from now, only over
    /// this run's own version of it. (`ttl = now` would be a zero expiry,
    /// which some stores refuse.)
    fn start_give_up(&self, candidate: &Candidate, held: &HeldClaim) -> Started {
        let now = self.clock(js_sys::Date::now).unwrap_or(held.claimed_at);
        let released = HeldClaim { id: held.id.clone(), version: held.version + 1.0, ..held.clone() };
        let entry = self.claim_entry(candidate, &released, now + 1.0);
        self.put_if_version(held.put_if_version.clone(), &entry, held.version)
    }

    /// Starts `store.putIfVersion(identity, entry, expected_version)`, under `timeoutMs`.
    fn put_if_version(&self, method: Function, entry: &JsValue, expected_version: f64) -> Started {
        let args = Array::of3(&self.identity, entry, &JsValue::from_f64(expected_version));
        Started::call(&self.store(), Ok(method), &args, self.settings.core.timeout_ms, None)
    }

    /// The configured store (claims require one: `config.rs`).
    fn store(&self) -> JsValue {
        self.settings.store.clone().unwrap_or_default()
    }

    /// What an event says of a run that made its call without a claim: once
    /// per stage, that the store cannot take claims (a leader's identity
    /// names its conversation, so it would have claimed; a run alone never
    /// claims).
    fn unclaimed(&self, caller: Caller) -> ClaimState {
        if caller != Caller::Leader || self.settings.core.claim_lease_ms.is_none() || self.stage.claims_noted() {
            return ClaimState::Silent;
        }
        self.stage.set_claims_noted(true);
        ClaimState::Unsupported
    }

    /// Steps 8–10 for the run that makes the call, then settle.
    async fn lead(
        self,
        candidate: Candidate,
        span: Rc<[usize]>,
        flight: Option<Rc<Flight>>,
        clock_before_call: Option<f64>,
        first: First,
    ) -> Result<JsValue, JsValue> {
        let caller = leader(&flight);
        let (started, held) = match first {
            First::Call(started) => (started, None),
            First::Claim { lease_ms } => {
                match self.claim_and_call(&candidate, &span, &flight, clock_before_call, lease_ms).await {
                    Ok(call) => call,
                    Err(delivered) => return Ok(delivered),
                }
            }
        };
        // 8. Await the summarizer's answer.
        let answer = started.answer().await.and_then(|value| match self.settings.core.model() {
            Some(_) => call::provider_answer(value),
            None => call::callback_answer(value),
        });
        let Answer { text, usage } = match answer {
            Ok(answer) => answer,
            Err(cause) => {
                let outcome = self.failed(cause);
                self.end_flight(flight, &outcome);
                let claim = self.give_up_or(&candidate, held, || self.unclaimed(caller)).await;
                return Ok(self.deliver(self.settle(&candidate, outcome, caller, &claim)));
            }
        };
        // Kept through a refusal: the same span gives the same answer, so
        // the claim spares the fleet that call until its lease ends.
        let claim = match &held {
            Some(held) => ClaimState::Held(held.id.clone()),
            None => self.unclaimed(caller),
        };
        // 9. A summary that does not make recall smaller is refused, and its
        // span latched: the same span gives the same answer.
        let summary_chars = candidate.label_chars() + text.length() as usize;
        if !candidate.made_smaller_by(summary_chars) {
            let outcome = CallOutcome::NotSmaller { summary_chars, usage };
            return Ok(self.conclude(&candidate, flight, outcome, &claim));
        }
        // 10. Fold: the summary entry, stamped when the fold happens (after
        // the call; a clock that broke during it keeps the earlier reading),
        // and what it kept of the span's exact details. With `keepDetails`,
        // a line lists the dropped ones, in the room left below the span's
        // length, so the summary stays smaller than what it replaces.
        let now = self.clock(js_sys::Date::now).unwrap_or_else(|_| clock_before_call.unwrap_or_else(js_sys::Date::now));
        // The span's texts are copied into the instance now, not held from
        // before the call: a summarizer that never answers (no `timeoutMs`)
        // would otherwise keep them in the memory every conversation shares.
        let span_texts = self.span_texts(&span);
        let rolled = |index: usize| self.recall.facts[index].summary.is_some();
        let audited = span.iter().zip(&span_texts).map(|(&index, text)| details::audited_text(text, rolled(index)));
        let mut audit = details::audit(audited, &String::from(&text));
        let room = candidate.room_after(summary_chars);
        let pinned = self.settings.core.keep_details.map(|bounds| audit.pin(bounds, room)).unwrap_or_default();
        let content = self.label(&candidate).concat(&text).concat(&JsValue::from_str(&pinned));
        let summary_tokens = match self.summary_tokens(&content) {
            Ok(tokens) => tokens,
            Err(found) => {
                let outcome = CallOutcome::SummaryUncounted { found };
                self.end_flight(flight, &outcome);
                let claim = self.give_up_or(&candidate, held, || claim).await;
                return Ok(self.deliver(self.settle(&candidate, outcome, caller, &claim)));
            }
        };
        let fold = Fold { summary_chars: summary_chars + utf16_len(&pinned), summary_tokens, usage, audit };
        let entry = self.summary_entry(&candidate, &span, content, now, held.as_ref(), &fold.audit);
        let Some(store) = self.settings.store.clone() else {
            let outcome = CallOutcome::Folded { entry, fold, write_back: WriteBack::NoStore };
            return Ok(self.conclude(&candidate, flight, outcome, &claim));
        };
        // Waiting runs go on as soon as the summary exists: the write is
        // this run's own (a store that never answers holds no one else).
        if let Some(flight) = &flight {
            let fold = Fold { usage: None, ..fold.clone() };
            flight.publish(CallOutcome::Folded { entry: entry.clone(), fold, write_back: WriteBack::ByLeader });
        }
        let written = self.put(&store, &entry).await;
        if let Some(flight) = &flight {
            flight::finish(flight);
        }
        let (write_back, claim) = match written {
            Ok(()) => (WriteBack::Written, claim),
            Err(cause) => {
                self.warn_once(|| warning::store_refused(&self.settings.strategy_id, &cause));
                // No summary for the fleet to load: let the next turn pay for it.
                let claim = self.give_up_or(&candidate, held, || claim).await;
                (WriteBack::Failed(cause), claim)
            }
        };
        let outcome = CallOutcome::Folded { entry, fold, write_back };
        let outcome = self.settle(&candidate, outcome, caller, &claim);
        Ok(self.deliver(outcome))
    }

    /// A run over a span another run is calling for: it settles from that
    /// run's outcome, at once when it is published already.
    fn follow(self, candidate: Candidate, flight: Rc<Flight>) -> Promise {
        if let Some(outcome) = flight.published() {
            let settled = self.settle(&candidate, outcome, Caller::Follower, &ClaimState::Silent);
            return Promise::resolve(&self.deliver(settled));
        }
        future_to_promise(async move {
            let outcome = flight::outcome(&flight, self.settings.core.join_window_ms()).await.unwrap_or_else(|| {
                CallOutcome::Failed {
                    cause: format!(
                        "the concurrent run's call did not answer within the {} ms join window",
                        js_number_to_string(JOIN_WINDOW_MS)
                    ),
                }
            });
            Ok(self.deliver(self.settle(&candidate, outcome, Caller::Follower, &ClaimState::Silent)))
        })
    }

    /// The leader's end without a write: publish, free the span, settle.
    fn conclude(
        &self,
        candidate: &Candidate,
        flight: Option<Rc<Flight>>,
        outcome: CallOutcome<JsValue>,
        claim: &ClaimState,
    ) -> JsValue {
        let caller = leader(&flight);
        self.end_flight(flight, &outcome);
        self.deliver(self.settle(candidate, outcome, caller, claim))
    }

    /// Publishes the leader's outcome, so waiting runs go on, and frees the
    /// span; a span the outcome latches is latched first. Only a span that
    /// can be told apart has a flight, so only it is latched (§8, Isolation).
    fn end_flight(&self, flight: Option<Rc<Flight>>, outcome: &CallOutcome<JsValue>) {
        if let Some(flight) = flight {
            if outcome.latches() {
                latches::insert(&self.stage, flight.key());
            }
            flight.publish(outcome.clone());
            flight::finish(&flight);
        }
    }

    fn settle(
        &self,
        candidate: &Candidate,
        outcome: CallOutcome<JsValue>,
        caller: Caller,
        claim: &ClaimState,
    ) -> Outcome {
        let warns = outcome.warns();
        let (settled, new_summary) = candidate.settle(outcome, self.settings.core.model(), caller, claim);
        if warns {
            self.warn_about(settled.event.as_ref());
        }
        Outcome { settled, new_summary: new_summary.unwrap_or_default(), untouched: false }
    }

    fn invalid_input(&self, spot: InvalidSpot) -> Outcome {
        let settled = decision::invalid_input(self.loaded_len, &spot);
        self.warn_about(settled.event.as_ref());
        Outcome { settled, new_summary: JsValue::UNDEFINED, untouched: true }
    }

    /// SPEC §4 step 8: starts the summarizer call. The provider gets the
    /// transcript as data; the callback gets the span's own value objects.
    fn start_call(&self, span: &[usize]) -> Result<Started, Unreadable> {
        let timeout_ms = self.settings.core.timeout_ms;
        let instruction = self.settings.instruction();
        Ok(match self.settings.core.model() {
            Some(model) => {
                let text = self.transcript(span).ok_or(Unreadable("write the transcript"))?;
                let controller = timeout_ms.map(|_| AbortController::new());
                let request = ProviderRequest {
                    system_prompt: &instruction,
                    messages: [Message { role: "user", content: text }],
                    model,
                    signal: controller.as_ref().map(|c| AsIs(c.signal())),
                };
                let llm = &self.settings.llm;
                let complete = call::method(llm, "llm.complete", Callee::complete);
                Started::call(llm, complete, &Array::of1(&to_js(&request)), timeout_ms, controller)
            }
            None => {
                let messages = recall::span_values(&self.recall, span);
                messages.unshift(&to_js(&Message { role: "system", content: instruction }));
                let callback = call::function_of(Ok(self.settings.llm.clone()), Key::Llm.name());
                Started::call(&JsValue::UNDEFINED, callback, &Array::of1(&messages), timeout_ms, None)
            }
        })
    }

    /// The provider transcript (SPEC §5), from each span entry's role and
    /// content as read; None when a role has no string form.
    fn transcript(&self, span: &[usize]) -> Option<String> {
        let roles = recall::span_roles(&self.recall, span)?;
        Some(transcript(span.iter().zip(&roles).zip(&self.span_texts(span)).map(|((&index, role), content)| {
            TranscriptLine {
                role: role.as_deref(),
                turn: self.recall.facts[index].turn,
                content,
                summary: self.recall.facts[index].summary.is_some(),
            }
        })))
    }

    /// The span's contents as text (empty when absent), copied into the instance.
    fn span_texts(&self, span: &[usize]) -> Vec<String> {
        span.iter().map(|&index| self.recall.content_text(index)).collect()
    }

    /// The first folded entry's `source.identity`, when truthy (SPEC §2),
    /// as a plain copy: it is written after the summarizer is awaited, and
    /// the caller may reuse the object meanwhile. One that cannot be read
    /// or copied is left out.
    fn first_source_identity(&self, span: &[usize]) -> Option<JsValue> {
        let source = &self.recall.sources[span[0]];
        let identity = if source.is_object() {
            source.unchecked_ref::<SourceFields>().identity().unwrap_or_default()
        } else {
            JsValue::UNDEFINED
        };
        if !identity.is_truthy() {
            None
        } else if identity.is_object() {
            js::plain_copy(&identity).ok().map(JsValue::from)
        } else {
            Some(identity)
        }
    }

    /// The claim entry on `candidate`'s span, with its lease ending at `ttl`.
    fn claim_entry(&self, candidate: &Candidate, held: &HeldClaim, ttl: f64) -> JsValue {
        let facts = candidate.span;
        let dated = claim_dated(&self.recall.facts, held.claimed_at);
        to_js(&ClaimEntry {
            id: &held.id,
            value: Message { role: "system", content: "" },
            metadata: ClaimMetadata {
                summary_claim: Claim {
                    from_turn: facts.from_turn,
                    to_turn: facts.to_turn,
                    entry_count: facts.entries,
                    claimed_at_ms: held.claimed_at,
                    lease_ms: held.lease_ms,
                },
            },
            version: held.version,
            created_at: dated,
            updated_at: dated,
            last_accessed_at: held.claimed_at,
            access_count: 0,
            ttl,
            tier: self.settings.tier.as_str(),
            source: self.source(candidate),
        })
    }

    /// The entry's source: the span's newest turn, and the identity its first entry names.
    fn source(&self, candidate: &Candidate) -> Source<AsIs> {
        Source { turn: candidate.span.to_turn, identity: self.source_identity.clone().map(AsIs) }
    }

    /// The new summary's tokens when the stage counts tokens (`None` when it
    /// does not), or what the counter gave instead of a count.
    fn summary_tokens(&self, content: &JsString) -> Result<Option<f64>, String> {
        self.settings.core.tokens.map(|_| tokens::count(self.settings.count_tokens.as_ref(), content)).transpose()
    }

    /// The label and separator a summary's content starts with (SPEC §4 step 9).
    fn label(&self, candidate: &Candidate) -> JsString {
        let facts = candidate.span;
        JsString::from(self.settings.core.header().render(&[facts.from_turn, facts.to_turn, facts.entries as f64]))
    }

    /// The summary entry, in SPEC §2 key order. Its coverage names the
    /// claim it was paid under, so every reader leaves the claim out.
    fn summary_entry(
        &self,
        candidate: &Candidate,
        span: &[usize],
        content: JsString,
        now: f64,
        held: Option<&HeldClaim>,
        audit: &Audit,
    ) -> JsValue {
        let facts = candidate.span;
        let anchor = candidate.anchor.unwrap_or(now);
        let covered_ids: Array = span.iter().map(|&index| self.recall.ids[index].clone()).collect();
        if let Some(held) = held {
            covered_ids.push(&JsValue::from_str(&held.id));
        }
        to_js(&SummaryEntry {
            id: &candidate.summary_id(),
            value: Message { role: "system", content: AsIs::of(content) },
            metadata: Metadata {
                summarizes: Coverage {
                    from_turn: facts.from_turn,
                    to_turn: facts.to_turn,
                    entry_count: facts.entries,
                    covered_ids: AsIs::of(covered_ids),
                    model: self.settings.core.model(),
                    summarized_at_ms: now,
                    dropped_details: audit.listed(),
                },
            },
            version: 1,
            created_at: anchor,
            updated_at: anchor,
            last_accessed_at: now,
            access_count: 0,
            ttl: self.settings.core.ttl_ms.map(|ttl| anchor + ttl),
            tier: self.settings.tier.as_str(),
            source: self.source(candidate),
        })
    }

    /// `await store.put(scope.identity, entry)`, under `timeoutMs` when set.
    async fn put(&self, store: &JsValue, entry: &JsValue) -> Result<(), String> {
        let args = Array::of2(&self.identity, entry);
        let put = call::method(store, "store.put", Callee::put);
        Started::call(store, put, &args, self.settings.core.timeout_ms, None).answer().await.map(drop)
    }

    fn failed(&self, cause: String) -> CallOutcome<JsValue> {
        self.warn_once(|| warning::summarizer_failed(&self.settings.strategy_id, &cause));
        CallOutcome::Failed { cause }
    }

    /// The configured `now`, or `default()` without one.
    fn clock(&self, default: impl FnOnce() -> f64) -> Result<f64, String> {
        match &self.settings.now {
            Some(now) => read_clock(now),
            None => Ok(default()),
        }
    }

    fn warn_about(&self, event: Option<&Event>) {
        if let Some(event) = event {
            self.warn_once(|| warning::declined(&self.settings.strategy_id, &event.reason));
        }
    }

    /// SPEC §7: at most one console.warn per stage instance.
    fn warn_once(&self, message: impl FnOnce() -> String) {
        if !self.stage.warned() {
            self.stage.set_warned(true);
            // A console that throws has nowhere else to say it.
            let _ = js::console_warn(&message());
        }
    }

    /// SPEC §4 step 3 and the event: assign `scope.loaded` when recall
    /// changed and emit, or build `stage.fold`'s result.
    fn deliver(&self, outcome: Outcome) -> JsValue {
        let Outcome { mut settled, new_summary, untouched } = outcome;
        let recall = || -> Array {
            let entry = |slot: &u32| match *slot {
                NEW_SUMMARY_SLOT => new_summary.clone(),
                index => self.recall.entries[index as usize].clone(),
            };
            settled.recall.iter().map(entry).collect()
        };
        match &self.target {
            Target::Scope(scope) => {
                if !untouched && !settled.is_unchanged(self.loaded_len) {
                    // `Reflect.set`: a frozen scope refuses in sloppy-mode
                    // code too. A scope that refuses keeps its own recall,
                    // and the event says so.
                    let refused = match Reflect::set(scope, &JsValue::from_str("loaded"), &recall()) {
                        Ok(true) => None,
                        Ok(false) => Some("the scope is frozen or `loaded` is read-only".to_owned()),
                        Err(error) => Some(js::cause_of(&error)),
                    };
                    if let Some(cause) = refused {
                        self.warn_once(|| warning::recall_refused(&self.settings.strategy_id, &cause));
                        if let Some(event) = settled.event.as_mut() {
                            events::recall_refused(event, &cause);
                        }
                    }
                }
                if let Some(event) = &settled.event {
                    self.emit(Some(scope), &self.payload(event));
                }
                JsValue::UNDEFINED
            }
            Target::Fold(loaded) => {
                let events = Array::new();
                if let Some(event) = &settled.event {
                    let payload = self.payload(event);
                    self.emit(None, &payload);
                    events.push(&to_js(&EventRecord { kind: EVENT_TYPE, payload: AsIs(payload) }));
                }
                let recall = if untouched { loaded.clone() } else { recall().into() };
                to_js(&FoldResult { recall: AsIs(recall), events: AsIs::of(events) })
            }
        }
    }

    /// `scope.$emit` (this = scope), then `onEvent`. An observer that throws
    /// is ignored: its failure is the observer's, and the turn goes on.
    fn emit(&self, scope: Option<&JsValue>, payload: &JsValue) {
        let kind = JsValue::from_str(EVENT_TYPE);
        if let Some(scope) = scope {
            if let Ok(emit) = scope.unchecked_ref::<Scope>().emit() {
                if emit.is_function() {
                    let _ = emit.unchecked_ref::<Function>().call2(scope, &kind, payload);
                }
            }
        }
        if let Some(on_event) = &self.settings.on_event {
            let _ = on_event.call2(&JsValue::UNDEFINED, &kind, payload);
        }
    }

    fn payload(&self, event: &Event) -> JsValue {
        to_js(&Payload {
            strategy_id: &self.settings.strategy_id,
            strategy_kind: STRATEGY_KIND,
            reason: &event.reason,
            input_memory_count: event.input_count,
            output_memory_count: event.output_count,
            dropped_ids: AsIs::of(event.dropped.iter().map(|&index| self.recall.ids[index].clone()).collect::<Array>()),
            added_ids: event.added.as_slice(),
            score_evidence: &event.evidence,
        })
    }
}

/// The run that makes the call: a leader other runs can join when its span
/// can be told apart (it has a flight), alone otherwise (§8, Isolation).
fn leader(flight: &Option<Rc<Flight>>) -> Caller {
    if flight.is_some() {
        Caller::Leader
    } else {
        Caller::Alone
    }
}

/// Reads a user's `now`: a finite number of unix ms, or what was found.
fn read_clock(now: &Function) -> Result<f64, String> {
    call::number_returned(now.call0(&JsValue::UNDEFINED), f64::is_finite)
}
