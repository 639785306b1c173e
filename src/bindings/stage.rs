//! One stage instance: its config, latch, flights and warn-once flag, and
//! the visit that walks SPEC §4 over a recall. Decisions come from
//! `crate::core`; this file only moves JS values to and from them.
//!
//! A visit runs synchronously until it must wait for a promise (the
//! summarizer, the store, or another run's call). It is then parked under a
//! ticket and handed to glue.js as an `Await`; glue awaits the promise and
//! calls `resume` with what it resolved to. So no Rust frame ever spans an
//! await, and every `RefCell` borrow ends before JS code runs.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use js_sys::Promise;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::config::{JsConfig, Summarizer};
use super::evidence::PackedFields;
use super::flight::{Flight, FlightOutcome};
use super::glue::{self, CallOutcome, RecallRead};
use super::span_key::SpanSource;
use crate::core::decision::{self, Candidate, Plan, Settled};
use crate::core::events::{warning, Caller, Event, InvalidSpot, Usage, WriteBack};
use crate::core::format::{transcript, utf16_len, LineText, TranscriptLine};
use crate::core::latch::{Latch, SpanKey};
use crate::core::recall::{partition, EntryFacts, StringTable, SummaryFacts};

/// Must match `STRIDE` and the flag bits in glue.js.
const STRIDE: usize = 5;
const HAS_TURN: u32 = 1;
const HAS_UPDATED_AT: u32 = 2;
const IS_SUMMARY: u32 = 4;
const COVERED: u32 = 8;
/// In text lengths from `readSpanText`: this string was not sent (the glue
/// splices it in), or this entry has no role. Must match glue.js.
const NOT_SENT: u32 = u32::MAX;
const NO_ROLE: u32 = u32::MAX - 1;

/// The instance behind a stage function: `makeStage` in glue.js wraps it.
#[wasm_bindgen]
pub struct SummarizeStage {
    state: Rc<StageState>,
}

impl SummarizeStage {
    /// `decision::facts_needed_from` for this config, as the glue's reader takes it.
    pub fn facts_from(&self) -> u32 {
        u32::try_from(decision::facts_needed_from(&self.state.config.core)).unwrap_or(u32::MAX)
    }

    pub fn new(config: JsConfig) -> SummarizeStage {
        SummarizeStage {
            state: Rc::new(StageState {
                config,
                latch: RefCell::new(Latch::new(Latch::DEFAULT_CAPACITY)),
                flights: RefCell::new(Vec::new()),
                parked: RefCell::new(Vec::new()),
                warned: Cell::new(false),
            }),
        }
    }
}

#[wasm_bindgen]
impl SummarizeStage {
    /// The footprintjs stage over `read` (glue.js read `scope.loaded`): may
    /// assign `scope.loaded`, emits through `scope.$emit`. Returns undefined
    /// when the visit is settled, else an `Await` (see `makeStage`).
    /// `status`, `summary_count` and `facts` are `read`'s, passed along so
    /// that they cross with the call instead of one getter each.
    pub fn run(&self, scope: JsValue, read: RecallRead, status: i32, summary_count: u32, facts: Vec<f64>) -> JsValue {
        let step = self.state.prepare(ReadFacts { read, status, summary_count, packed: facts }, None);
        self.state.advance(step, Target::Scope(scope))
    }

    /// The same visit without a scope: `{ recall, events }` when settled,
    /// else an `Await`.
    pub fn fold(
        &self,
        loaded: JsValue,
        identity: JsValue,
        read: RecallRead,
        status: i32,
        summary_count: u32,
        facts: Vec<f64>,
    ) -> JsValue {
        let step = self.state.prepare(ReadFacts { read, status, summary_count, packed: facts }, Some(identity));
        self.state.advance(step, Target::Fold(loaded))
    }

    /// Takes a parked visit on with what its promise resolved to: the
    /// settled value (as `run`/`fold` return it) or the next `Await`.
    pub fn resume(&self, ticket: u32, resolved: JsValue) -> JsValue {
        self.state.resume(ticket, resolved)
    }
}

struct StageState {
    config: JsConfig,
    latch: RefCell<Latch>,
    /// Spans being summarized right now: a handful at most, so a Vec.
    flights: RefCell<Vec<Rc<Flight>>>,
    /// Visits waiting on a promise, by ticket; a freed slot is reused.
    parked: RefCell<Vec<Option<Parked>>>,
    warned: Cell<bool>,
}

/// Where a visit's result goes.
enum Target {
    /// `run`: assign `scope.loaded` and emit through `scope.$emit`.
    Scope(JsValue),
    /// `fold`: build `{ recall, events }`; holds the caller's `loaded`.
    Fold(JsValue),
}

/// A visit waiting on a promise, and what it needs when that resolves.
enum Parked {
    /// The leader, waiting for the summarizer.
    Calling { pending: Box<Pending>, flight: Rc<Flight>, clock_before_call: f64, target: Target },
    /// The leader, waiting for the store's write of the summary entry.
    Writing { pending: Box<Pending>, flight: Rc<Flight>, written: Written, target: Target },
    /// Another run is calling for the same span.
    Following { pending: Box<Pending>, flight: Rc<Flight>, target: Target },
}

/// A fold the leader has made, before the store has answered.
struct Written {
    entry: JsValue,
    summary_chars: usize,
    usage: Option<Usage>,
}

/// What the summarizer's answer leads to.
enum AfterCall {
    Settled(FlightOutcome),
    Write { put: Promise, written: Written },
}

/// A recall as glue.js read it: the read, and what it packed.
struct ReadFacts {
    read: RecallRead,
    /// -1 for invalid input, else the number of entries.
    status: i32,
    summary_count: u32,
    /// `STRIDE` numbers per entry; empty when no facts were needed.
    packed: Vec<f64>,
}

/// What one visit decided, with what is needed to build recall and events.
struct Visit {
    read: RecallRead,
    /// How many entries were loaded: recall that still holds exactly those,
    /// in order, is not assigned again.
    loaded_len: usize,
    settled: Settled,
    new_summary: JsValue,
    /// Invalid input: recall is left exactly as given, so `fold` hands the
    /// caller's own value back (whatever it was) instead of a rebuilt array.
    untouched: bool,
}

/// Where a visit stands after its synchronous part.
enum Step {
    /// Decided without a call (most visits).
    Done(Visit),
    /// This run makes the one call for its span. `clock_before_call` is the
    /// reading that proved a user's `now` works before paying for the call
    /// (NaN with the default clock, which cannot fail).
    Lead { pending: Box<Pending>, flight: Rc<Flight>, clock_before_call: f64 },
    /// Another run is already calling for the same span; wait for it.
    Follow { pending: Box<Pending>, flight: Rc<Flight> },
}

/// What the asynchronous part of a visit needs.
struct Pending {
    read: RecallRead,
    identity: JsValue,
    facts: Vec<EntryFacts>,
    candidate: Candidate,
    /// The span's indices into the snapshot, as the glue takes them.
    span: Rc<[u32]>,
}

impl StageState {
    /// SPEC §4 steps 1–7 and the §8 checks that precede a call: everything
    /// up to the summarizer call, with no await, so no borrow spans one.
    /// `identity` is `None` for a scope read, which carries its own.
    fn prepare(&self, read_facts: ReadFacts, identity: Option<JsValue>) -> Step {
        let ReadFacts { read, status, summary_count, packed } = read_facts;
        let Ok(len) = usize::try_from(status) else {
            let spot = read.invalid().map(|spot| InvalidSpot {
                index: usize::try_from(spot.index()).ok(),
                field: spot.field(),
                found: spot.found(),
                expected: spot.expected(),
            });
            return Step::Done(self.invalid(read, &spot.unwrap_or_default()));
        };
        // glue.js settles such visits without entering Wasm (a read that
        // packed no facts); this guard keeps one from ever being partitioned.
        let done = |read: RecallRead, settled: Settled| {
            Step::Done(Visit { read, loaded_len: len, settled, new_summary: JsValue::UNDEFINED, untouched: false })
        };
        if len == 0 || decision::unchanged_without_reading(&self.config.core, len, summary_count as usize) {
            return done(read, Settled { recall: (0..len as u32).collect(), event: None });
        }
        let facts = parse_facts(&packed);
        let candidate = match decision::plan(&self.config.core, &facts, partition(&facts)) {
            Plan::Settle(settled) => return done(read, settled),
            Plan::Consider(candidate) => candidate,
        };
        // A span the latch cannot hold and no summary can shrink is declined
        // before its identity and key are read: they serve only the latch
        // and the flights.
        let may_be_latched = self.latch.borrow().may_hold_span_of(candidate.span.entries);
        if !may_be_latched && candidate.cannot_pass() {
            return done(read, candidate.predicted_not_smaller());
        }
        let identity = identity.unwrap_or_else(|| read.identity());
        let span: Rc<[u32]> = candidate.span_indices().iter().map(|&i| i as u32).collect();
        let source = SpanSource { identity_key: glue::identity_key(&identity), read, span };
        let mut key = None;
        if may_be_latched {
            if source.is_keyed() {
                let read_key = source.key();
                if self.latch.borrow().contains(read_key) {
                    return done(source.read, candidate.latched());
                }
                key = Some(read_key);
            }
            // Not latched: the same prediction as above, for this span.
            if candidate.cannot_pass() {
                return done(source.read, candidate.predicted_not_smaller());
            }
        }
        let mut in_flight = self.flight_for(&source, &mut key);
        // Only a user's `now` can fail, so only it is read before paying for
        // the call; `Date.now` is read once, after.
        let mut clock_before_call = f64::NAN;
        if in_flight.is_none() && self.config.now.is_some() {
            clock_before_call = match self.clock() {
                Ok(now) => now,
                Err(found) => {
                    let settled = candidate.invalid_clock(&found);
                    self.warn_about(settled.event.as_ref());
                    return done(source.read, settled);
                }
            };
            // `now` is the user's code: a run it started over this span may
            // be in flight by now.
            in_flight = self.flight_for(&source, &mut key);
        }
        let pending = move |source: SpanSource| {
            let SpanSource { read, span, .. } = source;
            Box::new(Pending { read, identity, facts, candidate, span })
        };
        if let Some(flight) = in_flight {
            return Step::Follow { pending: pending(source), flight };
        }
        let flight = Rc::new(Flight::new(source.clone(), key));
        // An unkeyed span is nobody else's: its flight is not listed.
        if source.is_keyed() {
            self.flights.borrow_mut().push(flight.clone());
        }
        let pending = pending(source);
        Step::Lead { pending, flight, clock_before_call }
    }

    /// The flight over this visit's span, if one is running. Keys are read
    /// (this span's, and a leader's on demand) only when a flight has a span
    /// of the same length; no borrow is held while they are read from JS.
    fn flight_for(&self, source: &SpanSource, key: &mut Option<SpanKey>) -> Option<Rc<Flight>> {
        if !source.is_keyed() {
            return None;
        }
        let entries = source.span.len();
        let same_length: Vec<Rc<Flight>> =
            self.flights.borrow().iter().filter(|flight| flight.span_len() == entries).cloned().collect();
        if same_length.is_empty() {
            return None;
        }
        let read_key = *key.get_or_insert_with(|| source.key());
        same_length.into_iter().find(|flight| flight.key() == read_key)
    }

    /// Settles a prepared visit, or starts what it waits for and parks it.
    fn advance(&self, step: Step, target: Target) -> JsValue {
        match step {
            Step::Done(visit) => self.deliver(&target, visit),
            Step::Follow { pending, flight } => {
                let promise = flight.promise();
                self.park(Parked::Following { pending, flight, target }, &promise)
            }
            Step::Lead { pending, flight, clock_before_call } => match self.start_call(&pending) {
                Ok(call) => self.park(Parked::Calling { pending, flight, clock_before_call, target }, &call),
                Err(cause) => {
                    let outcome = self.failed(cause);
                    self.conclude_lead(pending, &flight, outcome, &target)
                }
            },
        }
    }

    fn park(&self, parked: Parked, promise: &Promise) -> JsValue {
        let ticket = {
            let mut slots = self.parked.borrow_mut();
            match slots.iter().position(Option::is_none) {
                Some(free) => {
                    slots[free] = Some(parked);
                    free
                }
                None => {
                    slots.push(Some(parked));
                    slots.len() - 1
                }
            }
        };
        glue::await_step(ticket as u32, promise)
    }

    fn resume(&self, ticket: u32, resolved: JsValue) -> JsValue {
        let parked = self.parked.borrow_mut().get_mut(ticket as usize).and_then(Option::take);
        let Some(parked) = parked else {
            // Only glue.js resumes, once per ticket; nothing to take on.
            return JsValue::UNDEFINED;
        };
        match parked {
            Parked::Following { pending, flight, target } => {
                let outcome = flight.outcome().unwrap_or_else(|| FlightOutcome::Failed {
                    cause: "the run making the call ended without an outcome".to_owned(),
                });
                let visit = self.settle(*pending, outcome, Caller::Follower);
                self.deliver(&target, visit)
            }
            Parked::Calling { pending, flight, clock_before_call, target } => {
                match self.after_call(&pending, resolved.unchecked_into(), clock_before_call) {
                    AfterCall::Settled(outcome) => self.conclude_lead(pending, &flight, outcome, &target),
                    AfterCall::Write { put, written } => {
                        self.park(Parked::Writing { pending, flight, written, target }, &put)
                    }
                }
            }
            Parked::Writing { pending, flight, written, target } => {
                let put: CallOutcome = resolved.unchecked_into();
                let write_back = if put.ok() {
                    WriteBack::Written
                } else {
                    let cause = put.cause();
                    self.warn_once(|| warning::store_refused(&self.config.core.strategy_id, &cause));
                    WriteBack::Failed(cause)
                };
                let Written { entry, summary_chars, usage } = written;
                let outcome = FlightOutcome::Folded { entry, summary_chars, write_back, usage };
                self.conclude_lead(pending, &flight, outcome, &target)
            }
        }
    }

    /// The leader's end: latch a refusal, free the span, hand the outcome to
    /// its followers, and settle its own visit.
    fn conclude_lead(
        &self,
        pending: Box<Pending>,
        flight: &Rc<Flight>,
        outcome: FlightOutcome,
        target: &Target,
    ) -> JsValue {
        if matches!(outcome, FlightOutcome::NotSmaller { .. }) {
            // The flight holds the key if anything read it; else it is read
            // now. An unkeyed span is not latched (see `SpanSource::is_keyed`).
            if flight.is_keyed() {
                self.latch.borrow_mut().insert(flight.key(), pending.candidate.span.entries);
            }
        }
        self.flights.borrow_mut().retain(|other| !Rc::ptr_eq(other, flight));
        flight.finish(outcome.clone());
        let visit = self.settle(*pending, outcome, Caller::Leader);
        self.deliver(target, visit)
    }

    fn deliver(&self, target: &Target, visit: Visit) -> JsValue {
        match target {
            Target::Scope(scope) => {
                self.apply_to_scope(scope, visit);
                JsValue::UNDEFINED
            }
            Target::Fold(loaded) => self.fold_result(loaded, visit),
        }
    }

    /// Assigns `scope.loaded` when recall changed, then emits.
    fn apply_to_scope(&self, scope: &JsValue, mut visit: Visit) {
        if !visit.settled.is_unchanged(visit.loaded_len) {
            glue::assign_loaded(scope, &visit.read, &visit.settled.recall, &visit.new_summary);
        }
        if let Some(event) = visit.settled.event.take() {
            self.emit(scope, &visit.read, event);
        }
    }

    /// `{ recall, events }` for `stage.fold`, calling `onEvent` as it goes.
    fn fold_result(&self, loaded: &JsValue, mut visit: Visit) -> JsValue {
        let payload = match visit.settled.event.take() {
            Some(event) => self.emit(&JsValue::UNDEFINED, &visit.read, event),
            None => JsValue::UNDEFINED,
        };
        let recall: JsValue = if visit.untouched {
            loaded.clone()
        } else {
            glue::build_recall(&visit.read, &visit.settled.recall, &visit.new_summary).into()
        };
        glue::fold_result(&recall, &self.config.event_type, &payload)
    }

    /// SPEC §4 step 8 for the leading run: starts the one call. The promise
    /// never rejects (glue.js turns every failure into an outcome).
    fn start_call(&self, pending: &Pending) -> Result<Promise, String> {
        let Pending { read, facts, span, .. } = pending;
        let timeout_ms = self.config.core.timeout_ms;
        match &self.config.summarizer {
            Summarizer::Provider { llm, model } => {
                let text = span_transcript(read, span, facts)
                    .ok_or("the span's entries could not be read again to write the transcript")?;
                Ok(glue::call_provider(llm, &self.config.system_prompt, &text, model, timeout_ms))
            }
            Summarizer::Callback { llm } => {
                Ok(glue::call_callback(llm, &self.config.system_prompt, read, span, timeout_ms))
            }
        }
    }

    /// SPEC §4 steps 9–10 once the summarizer has answered: refuse a summary
    /// that is not smaller, else build the entry and start its write.
    fn after_call(&self, pending: &Pending, outcome: CallOutcome, clock_before_call: f64) -> AfterCall {
        let Pending { read, identity, candidate, span, .. } = pending;
        let core = &self.config.core;
        if !outcome.ok() {
            return AfterCall::Settled(self.failed(outcome.cause()));
        }
        let text = outcome.text();
        let usage = outcome.usage().map(|usage| Usage { input: usage.input(), output: usage.output() });
        let summary_chars = candidate.label_chars() + text.length() as usize;
        if summary_chars >= candidate.span.chars {
            return AfterCall::Settled(FlightOutcome::NotSmaller { summary_chars, usage });
        }
        // "When the fold happened": after the call. A clock that broke during
        // the call falls back to the reading that was fine before it.
        let now = self.clock().unwrap_or(clock_before_call);
        let span_facts = candidate.span;
        let entry = glue::summary_entry(
            read,
            span,
            &self.config.summary_id_pieces,
            &self.config.header_pieces,
            &text,
            span_facts.from_turn,
            span_facts.to_turn,
            candidate.anchor.unwrap_or(now),
            now,
            core.ttl_ms,
            &self.config.tier,
            self.config.summarizer.model().cloned(),
        );
        if entry.is_undefined() {
            return AfterCall::Settled(
                self.failed("the span's entries could not be read again to build the summary entry".to_owned()),
            );
        }
        match &self.config.store {
            None => AfterCall::Settled(FlightOutcome::Folded {
                entry,
                summary_chars,
                write_back: WriteBack::NoStore,
                usage,
            }),
            Some(store) => {
                let put = glue::put_entry(store, identity, &entry);
                AfterCall::Write { put, written: Written { entry, summary_chars, usage } }
            }
        }
    }

    fn failed(&self, cause: String) -> FlightOutcome {
        self.warn_once(|| warning::summarizer_failed(&self.config.core.strategy_id, &cause));
        FlightOutcome::Failed { cause }
    }

    /// A waiting visit's end, from the outcome of its span's call.
    fn settle(&self, pending: Pending, outcome: FlightOutcome, caller: Caller) -> Visit {
        let Pending { read, facts, candidate, .. } = pending;
        let model = self.config.core.model();
        let (settled, new_summary) = match outcome {
            FlightOutcome::Failed { cause } => (candidate.failed(model, caller, &cause), JsValue::UNDEFINED),
            FlightOutcome::NotSmaller { summary_chars, usage } => {
                (candidate.not_smaller(summary_chars, model, usage, caller), JsValue::UNDEFINED)
            }
            FlightOutcome::Folded { entry, summary_chars, write_back, usage } => {
                (candidate.folded(summary_chars, &write_back, model, usage, caller), entry)
            }
        };
        Visit { read, loaded_len: facts.len(), settled, new_summary, untouched: false }
    }

    fn invalid(&self, read: RecallRead, spot: &InvalidSpot) -> Visit {
        let loaded_len = read.length() as usize;
        let settled = decision::invalid_input(loaded_len, spot);
        self.warn_about(settled.event.as_ref());
        Visit { read, loaded_len, settled, new_summary: JsValue::UNDEFINED, untouched: true }
    }

    fn clock(&self) -> Result<f64, String> {
        let Some(now) = &self.config.now else {
            return Ok(js_sys::Date::now());
        };
        match now.call0(&JsValue::UNDEFINED) {
            Ok(value) => match value.as_f64() {
                Some(ms) if ms.is_finite() => Ok(ms),
                _ => Err(glue::describe(&value)),
            },
            Err(error) => Err(format!("nothing (it threw: {})", glue::cause_of(&error))),
        }
    }

    fn warn_about(&self, event: Option<&Event>) {
        if let Some(event) = event {
            self.warn_once(|| warning::declined(&self.config.core.strategy_id, &event.reason));
        }
    }

    /// SPEC §7: at most one console.warn per stage instance.
    fn warn_once(&self, message: impl FnOnce() -> String) {
        if !self.warned.replace(true) {
            glue::warn(&message());
        }
    }

    /// Builds the payload, sends it to `$emit` (when a scope is given) and
    /// `onEvent`, and returns it.
    fn emit(&self, scope: &JsValue, read: &RecallRead, event: Event) -> JsValue {
        let dropped: Vec<u32> = event.dropped.iter().map(|&i| i as u32).collect();
        // The evidence's text fields and the added id go after the reason, in
        // its own buffer (a `Sentence` leaves room for them).
        let mut text = event.reason;
        let reason_end = utf16_len(&text) as u32;
        let mut fields = PackedFields { numbers: Vec::with_capacity(3 * 8), text: &mut text };
        event.evidence.write_to(&mut fields);
        let fields = fields.numbers;
        if let Some(id) = &event.added {
            text.push_str(id);
        }
        glue::emit_event(
            scope,
            &self.config.on_event,
            &self.config.event_type,
            &self.config.strategy_id,
            &self.config.strategy_kind,
            &text,
            reason_end,
            &self.config.evidence_keys,
            &fields,
            event.input_count as u32,
            event.output_count as u32,
            read,
            &dropped,
        )
    }
}

fn parse_facts(packed: &[f64]) -> Vec<EntryFacts> {
    packed
        .chunks_exact(STRIDE)
        .map(|row| {
            let flags = row[0] as u32;
            EntryFacts {
                turn: (flags & HAS_TURN != 0).then_some(row[1]),
                updated_at: (flags & HAS_UPDATED_AT != 0).then_some(row[2]),
                content_units: row[3] as usize,
                summary: (flags & IS_SUMMARY != 0).then_some(SummaryFacts { to_turn: row[4] }),
                covered: flags & COVERED != 0,
            }
        })
        .collect()
}

/// The provider transcript: the core writes the format, the glue splices in
/// every content that cannot hold a marker, so those never cross into Wasm.
fn span_transcript(read: &RecallRead, span: &[u32], facts: &[EntryFacts]) -> Option<js_sys::JsString> {
    let joined = glue::read_span_text(read, span)?;
    let lengths = read.text_lengths().to_vec();
    let sent: Vec<u32> = lengths.iter().map(|&units| if units >= NO_ROLE { 0 } else { units }).collect();
    let table = StringTable::from_utf16_lengths(joined, &sent).ok()?;
    let text =
        |piece: usize| if lengths[piece] == NOT_SENT { LineText::Spliced } else { LineText::Text(table.get(piece)) };
    let plan = transcript(span.iter().enumerate().map(|(k, &index)| TranscriptLine {
        role: (lengths[2 * k] != NO_ROLE).then(|| text(2 * k)),
        turn: facts[index as usize].turn,
        content: text(2 * k + 1),
    }));
    let splices: Vec<u32> = plan.splices.iter().flat_map(|&(offset, piece)| [offset, piece]).collect();
    Some(glue::assemble_transcript(read, &plan.text, &splices))
}
