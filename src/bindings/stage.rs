//! One stage instance: its config, latch, flights and warn-once flag, and
//! the visit that walks SPEC §4 over a recall. Decisions come from
//! `crate::core`; this file only moves JS values to and from them.
//!
//! State is shared as `Rc<StageState>` with `RefCell`s borrowed only between
//! awaits, so concurrent runs of one instance never collide.

use std::cell::{Cell, RefCell};
use std::rc::Rc;

use js_sys::{Array, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::{future_to_promise, JsFuture};

use super::config::JsConfig;
use super::flight::{Flight, FlightOutcome};
use super::glue::{self, CallOutcome, RecallRead};
use crate::core::config::Shape;
use crate::core::decision::{self, Candidate, Plan, Settled};
use crate::core::events::{Caller, Event, InvalidSpot, Usage, WriteBack};
use crate::core::format::{summary_entry_id, transcript, TranscriptLine, EVENT_TYPE};
use crate::core::latch::{Latch, SpanKey};
use crate::core::recall::{needs_ids_for_partition, partition, EntryFacts, StringTable, SummaryFacts};

/// Must match `STRIDE` and the flag bits in glue.js.
const STRIDE: usize = 6;
const HAS_TURN: u32 = 1;
const HAS_UPDATED_AT: u32 = 2;
const IS_SUMMARY: u32 = 4;
const MISSING_TEXT: u32 = u32::MAX;

/// The instance behind a stage function: `makeStage` in glue.js wraps it.
#[wasm_bindgen]
pub struct SummarizeStage {
    state: Rc<StageState>,
}

impl SummarizeStage {
    pub fn new(config: JsConfig) -> SummarizeStage {
        SummarizeStage {
            state: Rc::new(StageState {
                config,
                latch: RefCell::new(Latch::new(Latch::DEFAULT_CAPACITY)),
                flights: RefCell::new(Vec::new()),
                warned: Cell::new(false),
            }),
        }
    }
}

#[wasm_bindgen]
impl SummarizeStage {
    /// The footprintjs stage: reads and may assign `scope.loaded`, emits
    /// through `scope.$emit`. Always resolves to undefined.
    pub fn run(&self, scope: JsValue) -> Promise {
        let state = self.state.clone();
        future_to_promise(async move {
            let loaded = Reflect::get(&scope, &JsValue::from_str("loaded"));
            let identity = Reflect::get(&scope, &JsValue::from_str("identity")).unwrap_or(JsValue::UNDEFINED);
            let visit = match loaded {
                Ok(loaded) => state.visit(&loaded, &identity).await,
                Err(error) => state.unreadable_loaded(&error),
            };
            if !visit.settled.is_unchanged(visit.read.length() as usize) {
                let recall = glue::build_recall(&visit.read, &visit.settled.recall, &visit.new_summary);
                // A scope that refuses the write keeps its old recall; nothing else to do.
                let _ = Reflect::set(&scope, &JsValue::from_str("loaded"), &recall);
            }
            if let Some(event) = &visit.settled.event {
                state.emit(&scope, &visit.read, event);
            }
            Ok(JsValue::UNDEFINED)
        })
    }

    /// The same visit without a scope: resolves to `{ recall, events }`.
    pub fn fold(&self, loaded: JsValue, identity: JsValue) -> Promise {
        let state = self.state.clone();
        future_to_promise(async move {
            let visit = state.visit(&loaded, &identity).await;
            let events = Array::new();
            if let Some(event) = &visit.settled.event {
                let payload = state.emit(&JsValue::UNDEFINED, &visit.read, event);
                let record = js_sys::Object::new();
                Reflect::set(&record, &JsValue::from_str("type"), &JsValue::from_str(EVENT_TYPE))?;
                Reflect::set(&record, &JsValue::from_str("payload"), &payload)?;
                events.push(&record);
            }
            let recall: JsValue = if visit.loaded_not_an_array {
                loaded // untouched, whatever it was
            } else {
                glue::build_recall(&visit.read, &visit.settled.recall, &visit.new_summary).into()
            };
            let result = js_sys::Object::new();
            Reflect::set(&result, &JsValue::from_str("recall"), &recall)?;
            Reflect::set(&result, &JsValue::from_str("events"), &events)?;
            Ok(result.into())
        })
    }
}

struct StageState {
    config: JsConfig,
    latch: RefCell<Latch>,
    /// Spans being summarized right now: a handful at most, so a Vec.
    flights: RefCell<Vec<(SpanKey, Rc<Flight>)>>,
    warned: Cell<bool>,
}

/// What one visit decided, with what is needed to build recall and events.
struct Visit {
    read: RecallRead,
    settled: Settled,
    new_summary: JsValue,
    loaded_not_an_array: bool,
}

impl StageState {
    async fn visit(self: &Rc<Self>, loaded: &JsValue, identity: &JsValue) -> Visit {
        let read = glue::read_recall(loaded);
        let done = |read: RecallRead, settled: Settled| Visit { read, settled, new_summary: JsValue::UNDEFINED, loaded_not_an_array: false };
        if let Some(spot) = read.invalid() {
            let index = spot.index();
            let spot = InvalidSpot {
                index: usize::try_from(index).ok(),
                field: spot.field(),
                found: spot.found(),
                expected: spot.expected(),
            };
            return self.invalid(read, &spot);
        }
        let len = read.length() as usize;
        let Some(facts) = read.facts().map(|packed| parse_facts(&packed.to_vec(), len)) else {
            return done(read, Settled { recall: Vec::new(), event: None });
        };
        if len == 0 {
            return done(read, Settled { recall: Vec::new(), event: None });
        }
        let mut ids = None;
        if needs_ids_for_partition(&facts) {
            match read_ids(&read) {
                Ok(table) => ids = Some(table),
                Err(spot) => return self.invalid(read, &spot),
            }
        }
        let part = match partition(&facts, ids.as_ref()) {
            Ok(part) => part,
            Err(_) => return self.invalid(read, &changed_while_read()),
        };
        let candidate = match decision::plan(&self.config.core, &facts, part) {
            Plan::Settle(settled) => return done(read, settled),
            Plan::Consider(candidate) => candidate,
        };
        let ids = match ids {
            Some(ids) => ids,
            None => match read_ids(&read) {
                Ok(ids) => ids,
                Err(spot) => return self.invalid(read, &spot),
            },
        };
        let key = SpanKey::new(&glue::identity_key(identity), candidate.span_indices().iter().map(|&i| ids.get(i)));
        let model = self.config.core.model();

        if self.latch.borrow().contains(key) {
            return done(read, candidate.latched());
        }
        if candidate.cannot_pass(model) {
            return done(read, candidate.predicted_not_smaller(model));
        }
        let in_flight = self.flights.borrow().iter().find(|(k, _)| *k == key).map(|(_, flight)| flight.clone());
        if let Some(flight) = in_flight {
            let outcome = flight.wait().await;
            return self.settle(read, &candidate, outcome, Caller::Follower);
        }
        let now = match self.clock() {
            Ok(now) => now,
            Err(found) => {
                let settled = candidate.invalid_clock(&found);
                self.warn_about(settled.event.as_ref());
                return done(read, settled);
            }
        };
        let flight = Rc::new(Flight::default());
        self.flights.borrow_mut().push((key, flight.clone()));
        let outcome = self.call_and_write(&read, &facts, &candidate, identity, now).await;
        if matches!(outcome, FlightOutcome::NotSmaller { .. }) {
            self.latch.borrow_mut().insert(key);
        }
        self.flights.borrow_mut().retain(|(k, _)| *k != key);
        flight.finish(outcome.clone());
        self.settle(read, &candidate, outcome, Caller::Leader)
    }

    /// SPEC §4 steps 8–10 for the leading run: the one call, then the write.
    async fn call_and_write(
        &self,
        read: &RecallRead,
        facts: &[EntryFacts],
        candidate: &Candidate,
        identity: &JsValue,
        now: f64,
    ) -> FlightOutcome {
        let core = &self.config.core;
        let span: Vec<u32> = candidate.span_indices().iter().map(|&i| i as u32).collect();
        let call = match &core.shape {
            Shape::Provider { model } => {
                let text = match span_transcript(read, &span, facts) {
                    Some(text) => text,
                    None => return FlightOutcome::Failed { cause: "the span's text changed while it was being read".to_owned() },
                };
                glue::call_provider(&self.config.llm, &core.system_prompt, &text, model, core.timeout_ms)
            }
            Shape::Callback => glue::call_callback(&self.config.llm, &core.system_prompt, read, &span, core.timeout_ms),
        };
        let outcome: CallOutcome = match JsFuture::from(call).await {
            Ok(outcome) => outcome.unchecked_into(),
            Err(error) => return self.failed(glue::describe(&error)),
        };
        if !outcome.ok() {
            return self.failed(outcome.cause());
        }
        let text = outcome.text();
        let usage = outcome.usage().map(|usage| Usage { input: usage.input(), output: usage.output() });
        let model = core.model();
        let summary_chars = candidate.label_chars(model) + text.length() as usize;
        if summary_chars >= candidate.span.chars {
            return FlightOutcome::NotSmaller { summary_chars, usage };
        }
        let span_facts = candidate.span;
        let entry = glue::summary_entry(
            read,
            &span,
            &summary_entry_id(span_facts.from_turn, span_facts.to_turn),
            &candidate.label(model),
            &text,
            span_facts.from_turn,
            span_facts.to_turn,
            candidate.anchor.unwrap_or(now),
            now,
            core.ttl_ms,
            core.tier.as_str(),
            model.map(str::to_owned),
        );
        let write_back = match &self.config.store {
            None => WriteBack::NoStore,
            Some(store) => {
                let put: CallOutcome = match JsFuture::from(glue::put_entry(store, identity, &entry)).await {
                    Ok(put) => put.unchecked_into(),
                    Err(error) => return self.failed(glue::describe(&error)),
                };
                if put.ok() {
                    WriteBack::Written
                } else {
                    let cause = put.cause();
                    self.warn_once(|| {
                        format!(
                            "[footprint-summarize] {}: the store refused the summary write ({cause}). The fold \
was still used for this turn, but it is not persisted, so the next turn pays for it again. Shown once per \
stage instance; every occurrence is on the {EVENT_TYPE} event.",
                            self.config.core.strategy_id
                        )
                    });
                    WriteBack::Failed(cause)
                }
            }
        };
        FlightOutcome::Folded { entry, summary_chars, write_back, usage }
    }

    fn failed(&self, cause: String) -> FlightOutcome {
        self.warn_once(|| {
            format!(
                "[footprint-summarize] {}: the summarizer failed (Cause: {cause}). Recall is served verbatim \
and the turn is not failed. Shown once per stage instance; every occurrence is on the {EVENT_TYPE} event.",
                self.config.core.strategy_id
            )
        });
        FlightOutcome::Failed { cause }
    }

    fn settle(&self, read: RecallRead, candidate: &Candidate, outcome: FlightOutcome, caller: Caller) -> Visit {
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
        Visit { read, settled, new_summary, loaded_not_an_array: false }
    }

    fn invalid(&self, read: RecallRead, spot: &InvalidSpot) -> Visit {
        let settled = decision::invalid_input(read.length() as usize, spot);
        self.warn_about(settled.event.as_ref());
        Visit { read, settled, new_summary: JsValue::UNDEFINED, loaded_not_an_array: spot.index.is_none() }
    }

    fn unreadable_loaded(&self, error: &JsValue) -> Visit {
        let spot = InvalidSpot {
            index: None,
            field: "loaded".to_owned(),
            found: format!("unreadable (reading it threw {})", glue::describe(error)),
            expected: "an array of memory entries, or undefined".to_owned(),
        };
        self.invalid(glue::read_recall(&JsValue::UNDEFINED), &spot)
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
            Err(error) => Err(format!("nothing (it threw {})", glue::describe(&error))),
        }
    }

    fn warn_about(&self, event: Option<&Event>) {
        if let Some(event) = event {
            self.warn_once(|| format!("[footprint-summarize] {}: {}", self.config.core.strategy_id, event.reason));
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
    fn emit(&self, scope: &JsValue, read: &RecallRead, event: &Event) -> JsValue {
        let evidence = serde_wasm_bindgen::to_value(&event.evidence).unwrap_or(JsValue::UNDEFINED);
        let dropped: Vec<u32> = event.dropped.iter().map(|&i| i as u32).collect();
        let payload = glue::event_payload(
            &self.config.core.strategy_id,
            &event.reason,
            event.input_count as u32,
            event.output_count as u32,
            read,
            &dropped,
            event.added.clone(),
            &evidence,
        );
        glue::emit_event(scope, &self.config.on_event, EVENT_TYPE, &payload);
        payload
    }
}

fn parse_facts(packed: &[f64], len: usize) -> Vec<EntryFacts> {
    packed
        .chunks_exact(STRIDE)
        .take(len)
        .map(|row| {
            let flags = row[0] as u32;
            EntryFacts {
                turn: (flags & HAS_TURN != 0).then_some(row[1]),
                updated_at: (flags & HAS_UPDATED_AT != 0).then_some(row[2]),
                content_units: row[3] as usize,
                summary: (flags & IS_SUMMARY != 0).then(|| SummaryFacts { to_turn: row[4], covered_count: row[5] as usize }),
            }
        })
        .collect()
}

fn read_ids(read: &RecallRead) -> Result<StringTable, InvalidSpot> {
    let joined = glue::read_ids(read);
    StringTable::from_utf16_lengths(joined, &read.id_lengths().to_vec()).map_err(|_| changed_while_read())
}

/// Getters with side effects can make two reads of one entry disagree.
fn changed_while_read() -> InvalidSpot {
    InvalidSpot {
        index: None,
        field: "loaded".to_owned(),
        found: "changing while it was read (an id or coverage getter returned different values)".to_owned(),
        expected: "plain memory entries".to_owned(),
    }
}

/// The provider transcript, from the span's roles and contents only.
fn span_transcript(read: &RecallRead, span: &[u32], facts: &[EntryFacts]) -> Option<String> {
    let joined = glue::read_span_text(read, span);
    let lengths = read.text_lengths().to_vec();
    let missing_role: Vec<bool> = lengths.iter().step_by(2).map(|&units| units == MISSING_TEXT).collect();
    let lengths: Vec<u32> = lengths.iter().map(|&units| if units == MISSING_TEXT { 0 } else { units }).collect();
    let table = StringTable::from_utf16_lengths(joined, &lengths).ok()?;
    Some(transcript(span.iter().enumerate().map(|(k, &index)| TranscriptLine {
        role: (!missing_role[k]).then(|| table.get(2 * k)),
        turn: facts[index as usize].turn,
        content: Some(table.get(2 * k + 1)),
    })))
}
