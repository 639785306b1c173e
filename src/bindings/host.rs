//! The visit's JS side (`core::visit::Host`): the recall and identity step 1
//! read, the calls into the caller's summarizer and store, the stage's
//! latches, flights and warning, and where a visit's result goes.

use std::future::Future;

use js_sys::{Array, Function, JsString, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::future_to_promise;

use super::call::{self, Started};
use super::config::{to_js_error, Settings};
use super::flight;
use super::identity::{self, VisitIdentity};
use super::js::{self, AbortController, Callee, Scope, Source as SourceFields};
use super::latches;
use super::output::{to_js, AsIs};
use super::recall::{self, Recall, Unusable};
use super::stage::StageHandle;
use super::tokens;
use crate::core::config::{Key, StageConfig};
use crate::core::decision::{CallOutcome, Candidate, NEW_SUMMARY_SLOT};
use crate::core::details::Audit;
use crate::core::events::{self, warning, Event, InvalidSpot};
use crate::core::flight::Flights;
use crate::core::format::{transcript, TranscriptLine, EVENT_TYPE};
use crate::core::recall::EntryFacts;
use crate::core::shapes::{EventRecord, FoldResult, Message, Payload, ProviderRequest};
use crate::core::visit::{self, Answer, ConditionalWrite, Flight, HeldClaim, Host, Outcome, Visited};

/// `stage(scope)`: reads `scope.loaded` and `scope.identity`, may assign
/// `scope.loaded`, emits through `scope.$emit`; resolves to undefined.
pub fn run(stage: StageHandle, scope: JsValue) -> Promise {
    // The identity is copied before recall is read: a getter that runs
    // while recall is read cannot change what this visit is keyed by.
    let identity = identity::read(scope.unchecked_ref::<Scope>().identity());
    start(stage, recall::read_scope(&scope), identity, Target::Scope(scope))
}

/// `stage.fold(loaded, identity)`: the same visit; resolves to `{ recall, events }`.
pub fn fold(stage: StageHandle, loaded: JsValue, identity: JsValue) -> Promise {
    let identity = identity::read(Ok(identity));
    start(stage, recall::read_recall(&loaded), identity, Target::Fold(loaded))
}

/// Where a visit's result goes.
enum Target {
    /// Assign `scope.loaded` and emit through `scope.$emit`.
    Scope(JsValue),
    /// Build `{ recall, events }`; holds the caller's `loaded`.
    Fold(JsValue),
}

/// Everything a visit knows once recall is read.
struct JsHost {
    stage: StageHandle,
    settings: Settings,
    recall: Recall,
    loaded_len: usize,
    /// The visit's copy of its identity: what every store call receives.
    identity: JsValue,
    /// The first folded entry's `source.identity`, when truthy.
    source_identity: Option<JsValue>,
    /// The span's roles for a provider's transcript; None when one has no string form.
    span_roles: Option<Vec<Option<String>>>,
    target: Target,
}

/// Step 1 (recall, read once by iteration, every field of every entry
/// once; the identity, copied once: §8, Isolation), then the visit.
fn start(
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
    let (loaded_len, recall, invalid) = match read {
        Ok(recall) => (recall.entries.len(), recall, None),
        Err(Unusable { spot, loaded_len }) => (loaded_len, Recall::default(), Some(spot)),
    };
    let (identity, key, invalid) = match identity {
        Ok(VisitIdentity { copy, key }) => (copy, key, invalid),
        Err(spot) => (JsValue::UNDEFINED, None, invalid.or(Some(spot))),
    };
    let host =
        JsHost { stage, settings, recall, loaded_len, identity, source_identity: None, span_roles: None, target };
    match visit::visit(host, invalid.map_or(Ok(key), Err)) {
        Visited::Now(delivered) => Promise::resolve(&delivered),
        Visited::Later(delivered) => future_to_promise(async move { Ok(delivered.await) }),
    }
}

impl Host for JsHost {
    type Entry = JsValue;
    type Text = JsString;
    type Call = Started;
    type Writer = Function;
    type Delivered = JsValue;

    fn config(&self) -> &StageConfig {
        &self.settings.core
    }

    fn loaded_len(&self) -> usize {
        self.loaded_len
    }

    fn facts(&self) -> &[EntryFacts] {
        &self.recall.facts
    }

    fn id_text(&self, index: usize) -> &str {
        &self.recall.id_texts[index]
    }

    fn count_tokens(&mut self) -> Result<(), InvalidSpot> {
        tokens::count_recall(self.settings.count_tokens.as_ref(), &mut self.recall)
    }

    /// The identity as a plain copy (one that cannot be read or copied is
    /// left out); the roles only for a provider, since a callback is given
    /// the span's own value objects.
    fn keep_span(&mut self, span: &[usize]) {
        if self.settings.core.model().is_some() {
            self.span_roles = recall::span_roles(&self.recall, span);
        }
        let source = &self.recall.sources[span[0]];
        let identity = if source.is_object() {
            source.unchecked_ref::<SourceFields>().identity().unwrap_or_default()
        } else {
            JsValue::UNDEFINED
        };
        self.source_identity = if !identity.is_truthy() {
            None
        } else if identity.is_object() {
            js::plain_copy(&identity).ok().map(JsValue::from)
        } else {
            Some(identity)
        };
    }

    fn latched(&self, key: &str) -> bool {
        latches::contains(&self.stage, key)
    }

    fn latch(&self, key: &str) {
        latches::insert(&self.stage, key);
    }

    fn stage_id(&self) -> f64 {
        self.stage.id()
    }

    fn with_flights<R>(&self, use_them: impl FnOnce(&Flights<CallOutcome<JsValue>>) -> R) -> R {
        flight::FLIGHTS.with(use_them)
    }

    fn published(&self, flight: &Flight<JsValue>) -> impl Future<Output = Option<CallOutcome<JsValue>>> {
        flight::outcome(flight, self.settings.core.join_window_ms())
    }

    fn warn_once(&self, message: impl FnOnce() -> String) {
        if !self.stage.warned() {
            self.stage.set_warned(true);
            // A console that throws has nowhere else to say it.
            let _ = js::console_warn(&message());
        }
    }

    fn first_claims_note(&self) -> bool {
        let first = !self.stage.claims_noted();
        self.stage.set_claims_noted(true);
        first
    }

    fn configured_clock(&self) -> Option<Result<f64, String>> {
        let read = |now: &Function| call::number_returned(now.call0(&JsValue::UNDEFINED), f64::is_finite);
        self.settings.now.as_ref().map(read)
    }

    fn wall_clock(&self) -> f64 {
        js_sys::Date::now()
    }

    fn random(&self) -> f64 {
        js_sys::Math::random()
    }

    /// SPEC §4 step 8: the provider gets the transcript as data; the
    /// callback gets the span's own value objects.
    fn start_summarizer(&self, span: &[usize]) -> Result<Started, &'static str> {
        let timeout_ms = self.settings.core.timeout_ms;
        let instruction = self.settings.core.instruction();
        Ok(match self.settings.core.model() {
            Some(model) => {
                let text = self.transcript(span).ok_or("write the transcript")?;
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
                let messages: Array = span.iter().map(|&index| self.recall.values[index].clone()).collect();
                messages.unshift(&to_js(&Message { role: "system", content: instruction }));
                let callback = call::function_of(Ok(self.settings.llm.clone()), Key::Llm.name());
                Started::call(&JsValue::UNDEFINED, callback, &Array::of1(&messages), timeout_ms, None)
            }
        })
    }

    async fn summary(&self, call: Started) -> Result<Answer<JsString>, String> {
        let answer = call.answer().await?;
        match self.settings.core.model() {
            Some(_) => call::provider_answer(answer),
            None => call::callback_answer(answer),
        }
    }

    /// Undefined means a store without claims; anything else that is not a
    /// function is a broken one.
    fn claim_writer(&self) -> Result<Option<Function>, String> {
        match self.store().unchecked_ref::<Callee>().put_if_version() {
            Ok(method) if method.is_undefined() => Ok(None),
            read => call::function_of(read, "store.putIfVersion").map(Some),
        }
    }

    fn start_claim_write(
        &self,
        candidate: &Candidate,
        held: &HeldClaim<Function>,
        ttl: f64,
        expected_version: f64,
    ) -> Started {
        let entry =
            to_js(&visit::claim_entry(&self.settings.core, candidate, &self.recall.facts, held, ttl, self.identity()));
        let args = Array::of3(&self.identity, &entry, &JsValue::from_f64(expected_version));
        Started::call(&self.store(), Ok(held.writer.clone()), &args, self.settings.core.timeout_ms, None)
    }

    async fn claim_written(&self, call: Started) -> Result<ConditionalWrite, String> {
        call.answer().await.and_then(call::conditional_write_answer)
    }

    fn detach(&self, call: Started) {
        wasm_bindgen_futures::spawn_local(async move {
            let _ = call.answer().await;
        });
    }

    /// Copied into the instance.
    fn span_texts(&self, span: &[usize]) -> Vec<String> {
        span.iter().map(|&index| self.recall.contents[index].as_ref().map(String::from).unwrap_or_default()).collect()
    }

    fn summary_content(&self, label: &str, text: JsString, pinned: &str) -> JsString {
        JsString::from(label).concat(&text).concat(&JsValue::from_str(pinned))
    }

    fn count_summary_tokens(&self, content: &JsString) -> Result<f64, String> {
        tokens::count(self.settings.count_tokens.as_ref(), content)
    }

    fn summary_entry(
        &self,
        candidate: &Candidate,
        span: &[usize],
        content: JsString,
        now: f64,
        claim_id: Option<&str>,
        audit: &Audit,
    ) -> JsValue {
        let covered_ids: Array = span.iter().map(|&index| self.recall.ids[index].clone()).collect();
        if let Some(claim_id) = claim_id {
            covered_ids.push(&JsValue::from_str(claim_id));
        }
        let (content, covered_ids) = (AsIs::of(content), AsIs::of(covered_ids));
        to_js(&visit::summary_entry(&self.settings.core, candidate, now, audit, content, covered_ids, self.identity()))
    }

    fn has_store(&self) -> bool {
        self.settings.store.is_some()
    }

    /// Under `timeoutMs` when set.
    async fn put(&self, entry: &JsValue) -> Result<(), String> {
        let store = self.store();
        let args = Array::of2(&self.identity, entry);
        let put = call::method(&store, "store.put", Callee::put);
        Started::call(&store, put, &args, self.settings.core.timeout_ms, None).answer().await.map(drop)
    }

    /// Assigns `scope.loaded` when recall changed and emits, or builds
    /// `stage.fold`'s result.
    fn deliver(&self, outcome: Outcome<JsValue>) -> JsValue {
        let Outcome { mut settled, new_summary, untouched } = outcome;
        let recall = || -> Array {
            let entry = |slot: &u32| match *slot {
                NEW_SUMMARY_SLOT => new_summary.clone().unwrap_or_default(),
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
                        self.warn_once(|| warning::recall_refused(&self.settings.core.strategy_id, &cause));
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
}

impl JsHost {
    /// The provider transcript (SPEC §5), from each span entry's role and
    /// content as read; None when a role has no string form.
    fn transcript(&self, span: &[usize]) -> Option<String> {
        let roles = self.span_roles.as_ref()?;
        Some(transcript(span.iter().zip(roles).zip(&self.span_texts(span)).map(|((&index, role), content)| {
            TranscriptLine {
                role: role.as_deref(),
                turn: self.recall.facts[index].turn,
                content,
                summary: self.recall.facts[index].summary.is_some(),
            }
        })))
    }

    /// The configured store (claims require one: `config.rs`).
    fn store(&self) -> JsValue {
        self.settings.store.clone().unwrap_or_default()
    }

    /// The identity the span's first entry names, as the entries written carry it.
    fn identity(&self) -> Option<AsIs> {
        self.source_identity.clone().map(AsIs)
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
        let dropped_ids: Array = event.dropped.iter().map(|&index| self.recall.ids[index].clone()).collect();
        to_js(&Payload::of(&self.settings.core.strategy_id, event, AsIs::of(dropped_ids)))
    }
}
