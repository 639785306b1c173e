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

use js_sys::{Array, Function, JsString};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::future_to_promise;

use super::call::{self, AbortController, Answer, Started};
use super::flight::{self, Flight, FlightOutcome, SpanSource};
use super::glue::{self, RecallRead};
use super::handle::{Callee, Settings, StageHandle};
use super::latches;
use super::output::SummaryEntry;
use super::output::{self, Coverage, FoldResult, Message, Metadata, Payload, ProviderRequest, Source};
use crate::core::config::claim_version;
use crate::core::config::{Key, StageConfig};
use crate::core::decision::{self, Candidate, Plan, Settled, NEW_SUMMARY_SLOT};
use crate::core::events::{warning, Caller, ClaimState, Event, GiveUp, InvalidSpot, WriteBack};
use crate::core::format::{transcript, LineText, TranscriptLine};
use crate::core::recall::{partition, EntryFacts, StringTable, SummaryFacts};

/// `stage(scope)`: reads `scope.loaded` and `scope.identity`, may assign
/// `scope.loaded`, emits through `scope.$emit`; its result is undefined.
///
/// A visit hands back its result itself when it settled without waiting (no
/// call, or a flight's published outcome), and a Promise of it while it
/// waits on the summarizer or the store: `guarded` in glue.js makes the
/// stage's Promise from either, and lists only the waiting ones.
pub fn run(stage: StageHandle, scope: JsValue) -> JsValue {
    let read = glue::read_scope(&scope);
    let identity = read.identity();
    visit(stage, read, identity, Target::Scope(scope))
}

/// `stage.fold(loaded, identity)`: the same visit; its result is `{ recall, events }`.
pub fn fold(stage: StageHandle, loaded: JsValue, identity: JsValue) -> JsValue {
    let read = glue::read_recall(&loaded);
    visit(stage, read, identity, Target::Fold(loaded))
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
    config: StageConfig,
    snapshot: Array,
    ids: Array,
    identity: JsValue,
    facts: Vec<EntryFacts>,
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

fn visit(stage: StageHandle, read: RecallRead, identity: JsValue, target: Target) -> JsValue {
    // 1. Recall, read once by iteration (glue.js), with every entry's facts.
    let snapshot = read.snapshot();
    let settings = stage.settings();
    let mut config = settings.core_config();
    config.claim_lease_ms = stage.claim_lease_ms(&settings);
    let mut visit = Visit { stage, settings, config, snapshot, ids: read.ids(), identity, facts: Vec::new(), target };
    if let Some(spot) = read.invalid() {
        let outcome = visit.invalid_input(InvalidSpot {
            index: usize::try_from(spot.index()).ok(),
            field: spot.field(),
            found: spot.found(),
            expected: spot.expected(),
        });
        return visit.deliver(outcome);
    }
    let loaded_len = visit.snapshot.length() as usize;
    if loaded_len == 0
        || decision::unchanged_without_reading(&visit.config, loaded_len, read.summaries_and_claims() as usize)
    {
        let settled = Settled { recall: (0..loaded_len as u32).collect(), event: None };
        return visit.deliver(Outcome::of(settled));
    }
    visit.facts = facts_of(&read, loaded_len);

    // 2–5. Partition, seam, and whether a call is worth making at all.
    let candidate = match decision::plan(&visit.config, &visit.facts, partition(&visit.facts)) {
        Plan::Settle(settled) => return visit.deliver(Outcome::of(settled)),
        Plan::Consider(candidate) => candidate,
    };

    // 7 and §8: latched, or too short for any summary to pay; another run's
    // call over the same span; a clock that cannot stamp the fold.
    // What folds: any summaries rolled in (`maxSummaries`), then the raw span.
    let span: Rc<[u32]> = candidate.folded_indices().iter().map(|&i| i as u32).collect();
    let source = glue::identity_key(&visit.identity)
        .map(|identity_text| SpanSource::new(identity_text, visit.ids.clone(), span.clone()));
    let key_latched = |source: &SpanSource| {
        latches::may_hold(&visit.stage, span.len()) && latches::contains(&visit.stage, latches::key_of(source.key()))
    };
    if source.as_ref().is_some_and(key_latched) {
        return visit.deliver(Outcome::of(candidate.latched()));
    }
    if candidate.cannot_pass() {
        return visit.deliver(Outcome::of(candidate.predicted_not_smaller()));
    }
    if let Some(deferred) = candidate.defer(&visit.config) {
        return visit.deliver(Outcome::of(deferred));
    }
    let stage_id = visit.stage.id();
    let in_flight = |source: &Option<SpanSource>| source.as_ref().and_then(|source| flight::find(stage_id, source));
    if let Some(flight) = in_flight(&source) {
        return visit.follow(candidate, flight);
    }
    // Only a user's `now` can fail, so only it is read before paying for the
    // call (NaN for `Date.now`, which is read after it).
    let clock_before_call = match visit.clock(|| f64::NAN) {
        Ok(now) => now,
        Err(found) => {
            let settled = candidate.invalid_clock(&found);
            visit.warn_about(settled.event.as_ref());
            return visit.deliver(Outcome::of(settled));
        }
    };
    // A user's `now` is user code: it may have started a run over this span.
    if let Some(flight) = in_flight(&source) {
        return visit.follow(candidate, flight);
    }

    // 8. The one call, started now. The flight is listed first: the call
    // runs user code, which may start another run over this span. Only a
    // span that can be told apart is anyone else's to join.
    let flight = source.map(|source| flight::start(stage_id, source));
    let first = match visit.config.claim_lease_ms {
        Some(lease_ms) => First::Claim { lease_ms },
        None => match visit.start_call(&span) {
            Ok(started) => First::Call(started),
            Err(Unreadable(what)) => {
                let outcome = FlightOutcome::Unreadable { what };
                return visit.conclude(&candidate, flight, outcome, &ClaimState::Silent);
            }
        },
    };
    future_to_promise(visit.lead(candidate, span, flight, clock_before_call, first)).into()
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
struct HeldClaim {
    id: String,
    /// The version the store holds it at: the expected version when it is
    /// given up (`claim_version` says why it is written as it is).
    version: f64,
    claimed_at: f64,
    lease_ms: f64,
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
        span: &[u32],
        flight: &Option<Rc<Flight>>,
        clock_before_call: f64,
        lease_ms: f64,
    ) -> Result<(Started, Option<HeldClaim>), JsValue> {
        // A configured clock was read and checked before the call; `Date.now` otherwise.
        let now = if clock_before_call.is_nan() { js_sys::Date::now() } else { clock_before_call };
        let held = match self.claim(candidate, now, lease_ms).await {
            ClaimAnswer::Held(held) => Some(held),
            ClaimAnswer::Unsupported => None,
            ClaimAnswer::Elsewhere => {
                return Err(self.conclude(
                    candidate,
                    flight.clone(),
                    FlightOutcome::ClaimedElsewhere,
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
                self.warn_once(|| warning::claim_refused(&self.strategy_id(), &candidate.claim_id(), &cause));
                let outcome = FlightOutcome::ClaimFailed { cause };
                return Err(self.conclude(candidate, flight.clone(), outcome, &ClaimState::Silent));
            }
        };
        match self.start_call(span) {
            Ok(started) => Ok((started, held)),
            Err(Unreadable(what)) => {
                let outcome = FlightOutcome::Unreadable { what };
                end_flight(flight.clone(), &outcome);
                let claim = self.give_up_or(candidate, held, || ClaimState::Silent).await;
                Err(self.deliver(self.settle(candidate, outcome, Caller::Leader, &claim)))
            }
        }
    }

    /// `await store.putIfVersion(identity, claim, 0)`: 0 means "only if no
    /// live claim is there", so of all the runs over a span, one holds it.
    async fn claim(&self, candidate: &Candidate, now: f64, lease_ms: f64) -> ClaimAnswer {
        let store = self.settings.value(Key::Store);
        // Undefined means a store without claims; anything else that is not a function is a broken one.
        let put_if_version = match store.unchecked_ref::<Callee>().put_if_version() {
            Ok(method) if method.is_undefined() => return ClaimAnswer::Unsupported,
            read => match call::function_of(read, "store.putIfVersion") {
                Ok(method) => method,
                Err(cause) => return ClaimAnswer::Failed { cause, attempted: None },
            },
        };
        let version = claim_version(now, js_sys::Math::random());
        let held = HeldClaim { id: candidate.claim_id(), version, claimed_at: now, lease_ms };
        let entry = self.claim_entry(candidate, &held, now + lease_ms);
        let answer = self.put_if_version(Ok(put_if_version), &entry, 0.0).answer().await;
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
        let released = HeldClaim { id: held.id.clone(), version: held.version + 1.0, ..*held };
        let entry = self.claim_entry(candidate, &released, now + 1.0);
        let method = call::method(&self.settings.value(Key::Store), "store.putIfVersion", Callee::put_if_version);
        self.put_if_version(method, &entry, held.version)
    }

    /// Starts `store.putIfVersion(identity, entry, expected_version)`, under `timeoutMs`.
    fn put_if_version(&self, method: Result<Function, String>, entry: &JsValue, expected_version: f64) -> Started {
        let args = Array::of3(&self.identity, entry, &JsValue::from_f64(expected_version));
        Started::call(&self.settings.value(Key::Store), method, &args, self.config.timeout_ms, None)
    }

    /// What an event says of a run that made its call without a claim: once
    /// per stage, that the store cannot take claims.
    fn unclaimed(&self) -> ClaimState {
        if self.config.claim_lease_ms.is_none() || self.stage.claims_noted() {
            return ClaimState::Silent;
        }
        self.stage.set_claims_noted(true);
        ClaimState::Unsupported
    }

    /// Steps 8–10 for the run that makes the call, then settle.
    async fn lead(
        self,
        candidate: Candidate,
        span: Rc<[u32]>,
        flight: Option<Rc<Flight>>,
        clock_before_call: f64,
        first: First,
    ) -> Result<JsValue, JsValue> {
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
        let answer = started.answer().await.and_then(|value| match self.config.model() {
            Some(_) => call::provider_answer(value),
            None => call::callback_answer(value),
        });
        let Answer { text, usage } = match answer {
            Ok(answer) => answer,
            Err(cause) => {
                let outcome = self.failed(cause);
                end_flight(flight, &outcome);
                let claim = self.give_up_or(&candidate, held, || self.unclaimed()).await;
                return Ok(self.deliver(self.settle(&candidate, outcome, Caller::Leader, &claim)));
            }
        };
        // Kept through a refusal: the same span gives the same answer, so
        // the claim spares the fleet that call until its lease ends.
        let claim = match &held {
            Some(held) => ClaimState::Held(held.id.clone()),
            None => self.unclaimed(),
        };
        // 9. A summary that does not make recall smaller is refused, and its
        // span latched: the same span gives the same answer.
        let summary_chars = candidate.label_chars() + text.length() as usize;
        if summary_chars >= candidate.span.chars {
            if let Some(flight) = &flight {
                latches::insert(&self.stage, latches::key_of(flight.source().key()), span.len());
            }
            let outcome = FlightOutcome::NotSmaller { summary_chars, usage };
            return Ok(self.conclude(&candidate, flight, outcome, &claim));
        }
        // 10. Fold: the summary entry, stamped when the fold happens (after
        // the call; a clock that broke during it keeps the earlier reading).
        let now = self.clock(js_sys::Date::now).unwrap_or(clock_before_call);
        let entry = self.summary_entry(&candidate, &span, &text, now, held.as_ref());
        let Some(store) = self.settings.get(Key::Store) else {
            let outcome = FlightOutcome::Folded { entry, summary_chars, write_back: WriteBack::NoStore, usage };
            return Ok(self.conclude(&candidate, flight, outcome, &claim));
        };
        // Waiting runs go on as soon as the summary exists: the write is
        // this run's own (a store that never answers holds no one else).
        if let Some(flight) = &flight {
            let outcome = FlightOutcome::Folded {
                entry: entry.clone(),
                summary_chars,
                write_back: WriteBack::ByLeader,
                usage: None,
            };
            flight.publish(outcome);
        }
        let written = self.put(&store, &entry).await;
        if let Some(flight) = &flight {
            flight.finish();
        }
        let (write_back, claim) = match written {
            Ok(()) => (WriteBack::Written, claim),
            Err(cause) => {
                self.warn_once(|| warning::store_refused(&self.strategy_id(), &cause));
                // No summary for the fleet to load: let the next turn pay for it.
                let claim = self.give_up_or(&candidate, held, || claim).await;
                (WriteBack::Failed(cause), claim)
            }
        };
        let outcome = FlightOutcome::Folded { entry, summary_chars, write_back, usage };
        let outcome = self.settle(&candidate, outcome, Caller::Leader, &claim);
        Ok(self.deliver(outcome))
    }

    /// A run over a span another run is calling for: it settles from that
    /// run's outcome, at once when it is published already.
    fn follow(self, candidate: Candidate, flight: Rc<Flight>) -> JsValue {
        if let Some(outcome) = flight.published() {
            let settled = self.settle(&candidate, outcome, Caller::Follower, &ClaimState::Silent);
            return self.deliver(settled);
        }
        future_to_promise(async move {
            let outcome = flight.outcome().await;
            Ok(self.deliver(self.settle(&candidate, outcome, Caller::Follower, &ClaimState::Silent)))
        })
        .into()
    }

    /// The leader's end without a write: publish, free the span, settle.
    fn conclude(
        &self,
        candidate: &Candidate,
        flight: Option<Rc<Flight>>,
        outcome: FlightOutcome,
        claim: &ClaimState,
    ) -> JsValue {
        end_flight(flight, &outcome);
        self.deliver(self.settle(candidate, outcome, Caller::Leader, claim))
    }

    fn settle(&self, candidate: &Candidate, outcome: FlightOutcome, caller: Caller, claim: &ClaimState) -> Outcome {
        let model = self.config.model();
        match outcome {
            FlightOutcome::ClaimedElsewhere => Outcome::of(candidate.claimed_elsewhere()),
            FlightOutcome::ClaimFailed { cause } => Outcome::of(candidate.claim_failed(&cause)),
            FlightOutcome::Unreadable { what } => {
                let settled = candidate.unreadable(what, claim);
                self.warn_about(settled.event.as_ref());
                Outcome::of(settled)
            }
            FlightOutcome::Failed { cause } => Outcome::of(candidate.failed(model, caller, &cause, claim)),
            FlightOutcome::NotSmaller { summary_chars, usage } => {
                Outcome::of(candidate.not_smaller(summary_chars, model, usage, caller, claim))
            }
            FlightOutcome::Folded { entry, summary_chars, write_back, usage } => Outcome {
                settled: candidate.folded(summary_chars, &write_back, model, usage, caller, claim),
                new_summary: entry,
                untouched: false,
            },
        }
    }

    fn invalid_input(&self, spot: InvalidSpot) -> Outcome {
        let settled = decision::invalid_input(self.snapshot.length() as usize, &spot);
        self.warn_about(settled.event.as_ref());
        Outcome { settled, new_summary: JsValue::UNDEFINED, untouched: true }
    }

    /// SPEC §4 step 8: starts the summarizer call. The provider gets the
    /// transcript as data; the callback gets the span's own value objects.
    fn start_call(&self, span: &[u32]) -> Result<Started, Unreadable> {
        let settings = &self.settings;
        let timeout_ms = self.config.timeout_ms;
        Ok(match settings.provider_model() {
            Some(model) => {
                let text = self.transcript(span).ok_or(Unreadable("write the transcript"))?;
                let controller = timeout_ms.map(|_| AbortController::new());
                let request = ProviderRequest {
                    system_prompt: settings.instruction(self.config.max_summaries.is_some()),
                    messages: [Message { role: output::fixed(|f| f.user.clone()), content: text }],
                    model,
                    signal: controller.as_ref().map_or(JsValue::UNDEFINED, |c| c.signal()),
                };
                let request = Array::of1(&output::to_js(&request));
                let llm = settings.value(Key::Llm);
                Started::call(
                    &llm,
                    call::method(&llm, "llm.complete", Callee::complete),
                    &request,
                    timeout_ms,
                    controller,
                )
            }
            None => {
                let messages = glue::span_values(&self.snapshot, span).ok_or(Unreadable("gather its messages"))?;
                let instruction = Message {
                    role: output::fixed(|f| f.system.clone()),
                    content: settings.instruction(self.config.max_summaries.is_some()),
                };
                messages.unshift(&output::to_js(&instruction));
                let callback = call::function_of(Ok(settings.value(Key::Llm)), Key::Llm.name());
                Started::call(&JsValue::UNDEFINED, callback, &Array::of1(&messages), timeout_ms, None)
            }
        })
    }

    /// The provider transcript (SPEC §5), or None when a span entry can no
    /// longer be read. The core lays it out; texts that cannot hold a marker
    /// stay in JS and are spliced in there (see `spanTexts` in glue.js).
    fn transcript(&self, span: &[u32]) -> Option<JsString> {
        let read = glue::span_texts(&self.snapshot, span, &output::fixed(|f| f.marker_lead.clone()))?;
        let absent_roles = read.absent_roles();
        let marked_at = read.marked_at();
        let marked = StringTable::from_utf16_lengths(read.marked(), &read.marked_lengths()).ok()?;
        // `marked_at` is ascending: the texts are listed in order.
        let text = |at: usize| match marked_at.binary_search(&(at as u32)) {
            Ok(k) => LineText::Text(marked.get(k)),
            Err(_) => LineText::Spliced,
        };
        let plan = transcript(span.iter().enumerate().map(|(k, &index)| TranscriptLine {
            role: (absent_roles[k] == 0).then(|| text(2 * k)),
            turn: self.facts[index as usize].turn,
            content: text(2 * k + 1),
        }));
        let splices: Vec<u32> = plan.splices.iter().flat_map(|&(offset, piece)| [offset, piece]).collect();
        Some(glue::assemble_transcript(&read.texts(), &plan.text, &splices))
    }

    /// The claim entry on `candidate`'s span, with its lease ending at `ttl`.
    fn claim_entry(&self, candidate: &Candidate, held: &HeldClaim, ttl: f64) -> JsValue {
        let facts = candidate.span;
        // Just before the oldest loaded entry: a recency window that starts
        // at the span never loads the claim in place of one of its messages.
        let oldest = self.facts.iter().filter_map(|f| f.updated_at).fold(f64::INFINITY, f64::min);
        let dated = if oldest.is_finite() { oldest - 1.0 } else { held.claimed_at };
        let first = candidate.folded_indices().first().map_or(JsValue::UNDEFINED, |&i| self.snapshot.get(i as u32));
        let entry = output::ClaimEntry {
            id: &held.id,
            value: Message { role: output::fixed(|f| f.system.clone()), content: output::fixed(|f| f.empty.clone()) },
            metadata: output::ClaimMetadata {
                summary_claim: output::Claim {
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
            tier: output::fixed(|f| f.tier(self.settings.tier())),
            source: Source { turn: facts.to_turn, identity: glue::source_identity(&first) },
        };
        output::to_js(&entry)
    }

    /// The summary entry, in SPEC §2 key order. Its coverage names the
    /// claim it was paid under, so every reader leaves the claim out.
    fn summary_entry(
        &self,
        candidate: &Candidate,
        span: &[u32],
        text: &JsString,
        now: f64,
        held: Option<&HeldClaim>,
    ) -> JsValue {
        let facts = candidate.span;
        let anchor = candidate.anchor.unwrap_or(now);
        let label = self.config.header().render(&[facts.from_turn, facts.to_turn, facts.entries as f64]);
        let content = JsString::from(label).concat(text);
        let first = self.snapshot.get(span[0]);
        let entry = SummaryEntry {
            id: &candidate.summary_id(),
            value: Message { role: output::fixed(|f| f.system.clone()), content },
            metadata: Metadata {
                summarizes: Coverage {
                    from_turn: facts.from_turn,
                    to_turn: facts.to_turn,
                    entry_count: facts.entries,
                    covered_ids: {
                        let ids = glue::pick_ids(&self.ids, span);
                        if let Some(held) = held {
                            ids.push(&JsValue::from_str(&held.id));
                        }
                        ids
                    },
                    model: self.settings.provider_model().map_or(JsValue::UNDEFINED, JsValue::from),
                    summarized_at_ms: now,
                },
            },
            version: 1,
            created_at: anchor,
            updated_at: anchor,
            last_accessed_at: now,
            access_count: 0,
            ttl: self.config.ttl_ms.map(|ttl| anchor + ttl),
            tier: output::fixed(|f| f.tier(self.settings.tier())),
            source: Source { turn: facts.to_turn, identity: glue::source_identity(&first) },
        };
        output::to_js(&entry)
    }

    /// `await store.put(scope.identity, entry)`, under `timeoutMs` when set.
    async fn put(&self, store: &JsValue, entry: &JsValue) -> Result<(), String> {
        let args = Array::of2(&self.identity, entry);
        let put = call::method(store, "store.put", Callee::put);
        Started::call(store, put, &args, self.config.timeout_ms, None).answer().await.map(drop)
    }

    fn failed(&self, cause: String) -> FlightOutcome {
        self.warn_once(|| warning::summarizer_failed(&self.strategy_id(), &cause));
        FlightOutcome::Failed { cause }
    }

    /// The configured `now`, or `default()` without one.
    fn clock(&self, default: impl FnOnce() -> f64) -> Result<f64, String> {
        match self.settings.clock() {
            Some(now) => read_clock(&now),
            None => Ok(default()),
        }
    }

    fn strategy_id(&self) -> String {
        self.settings.strategy().into()
    }

    fn warn_about(&self, event: Option<&Event>) {
        if let Some(event) = event {
            self.warn_once(|| warning::declined(&self.strategy_id(), &event.reason));
        }
    }

    /// SPEC §7: at most one console.warn per stage instance.
    fn warn_once(&self, message: impl FnOnce() -> String) {
        if !self.stage.warned() {
            self.stage.set_warned(true);
            glue::warn(&message());
        }
    }

    /// SPEC §4 step 3 and the event: assign `scope.loaded` when recall
    /// changed and emit, or build `stage.fold`'s result.
    fn deliver(&self, outcome: Outcome) -> JsValue {
        let Outcome { settled, new_summary, untouched } = outcome;
        let payload = settled.event.as_ref().map(|event| self.payload(event));
        let recall = || glue::pick(&self.snapshot, &settled.recall, &new_summary, NEW_SUMMARY_SLOT);
        match &self.target {
            Target::Scope(scope) => {
                if !untouched && !settled.is_unchanged(self.snapshot.length() as usize) {
                    glue::assign_loaded(scope, &recall());
                }
                if let Some(payload) = &payload {
                    glue::send_event(
                        scope,
                        &self.settings.value(Key::OnEvent),
                        &output::fixed(|f| f.event_type.clone()),
                        payload,
                    );
                }
                JsValue::UNDEFINED
            }
            Target::Fold(loaded) => {
                let events = Array::new();
                if let Some(payload) = &payload {
                    let kind = output::fixed(|f| f.event_type.clone());
                    glue::send_event(&JsValue::UNDEFINED, &self.settings.value(Key::OnEvent), &kind, payload);
                    events.push(&output::to_js(&output::EventRecord { kind, payload: payload.clone() }));
                }
                let recall = if untouched { loaded.clone() } else { recall().into() };
                output::to_js(&FoldResult { recall, events })
            }
        }
    }

    fn payload(&self, event: &Event) -> JsValue {
        let dropped: Vec<u32> = event.dropped.iter().map(|&i| i as u32).collect();
        output::to_js(&Payload {
            strategy_id: self.settings.strategy(),
            strategy_kind: output::fixed(|f| f.strategy_kind.clone()),
            reason: &event.reason,
            input_memory_count: event.input_count,
            output_memory_count: event.output_count,
            dropped_ids: glue::pick_ids(&self.ids, &dropped),
            added_ids: event.added.as_slice(),
            score_evidence: &event.evidence,
        })
    }
}

/// Publishes the leader's outcome, so waiting runs go on, and frees the span.
fn end_flight(flight: Option<Rc<Flight>>, outcome: &FlightOutcome) {
    if let Some(flight) = flight {
        flight.publish(outcome.clone());
        flight.finish();
    }
}

/// Reads a user's `now`: a finite number of unix ms, or what was found.
fn read_clock(now: &Function) -> Result<f64, String> {
    match now.call0(&JsValue::UNDEFINED) {
        Ok(value) => value.as_f64().filter(|ms| ms.is_finite()).ok_or_else(|| glue::describe(&value)),
        Err(error) => Err(format!("nothing (it threw: {})", glue::cause_of(&error))),
    }
}

/// The core's facts from what glue.js read (NaN marks what is absent), in
/// one copy out of JS.
fn facts_of(read: &RecallRead, entries: usize) -> Vec<EntryFacts> {
    let facts = read.facts().to_vec();
    // A column starts where `FACT_COLUMNS` says; one the array lacks reads as absent.
    let column = |start: usize| facts.get(start * entries..(start + 1) * entries).unwrap_or(&[]);
    let (turns, updated_ats, units, to_turns, from_turns, covered, claims) = glue::FACT_COLUMNS.with(|c| {
        (
            column(c.turns()),
            column(c.updated_ats()),
            column(c.units()),
            column(c.to_turns()),
            column(c.from_turns()),
            column(c.covered()),
            column(c.claims()),
        )
    });
    let fact = |column: &[f64], i: usize| column.get(i).copied().unwrap_or(f64::NAN);
    let present = |x: f64| (!x.is_nan()).then_some(x);
    (0..entries)
        .map(|i| EntryFacts {
            turn: present(fact(turns, i)),
            updated_at: present(fact(updated_ats, i)),
            content_units: fact(units, i) as usize,
            summary: present(fact(to_turns, i)).map(|to_turn| SummaryFacts { to_turn, from_turn: fact(from_turns, i) }),
            covered: fact(covered, i) == 1.0,
            claim: fact(claims, i) == 1.0,
        })
        .collect()
}
