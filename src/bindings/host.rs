//! The visit's JS side: step 1 (recall, the identity and their token
//! counts, read once), and the `core::visit::Host` the visit runs over: the
//! calls into the caller's summarizer and store, the stage's warning, and
//! where a visit's result goes.

use std::future::Future;
use std::rc::Rc;

use js_sys::{Array, Function, JsString, Promise, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::future_to_promise;

use super::call::{self, Started, Timer};
use super::call_input::{CutText, RoleRead};
use super::config::Settings;
use super::identity::{self, VisitIdentity};
use super::js::{self, AbortController, Callee, Scope, Source as SourceFields};
use super::memory::{self, MEMORY};
use super::output::{to_js, AsIs};
use super::recall::{self, Counting, FoldField, HeldRecall, Recall, Unusable};
use super::stage::StageHandle;
use super::tokens;
use crate::core::config::{Key, StageConfig};
use crate::core::decision::Candidate;
use crate::core::details::Audit;
use crate::core::events::{self, warning, Event, InvalidSpot};
use crate::core::format::{utf16_len, EVENT_TYPE};
use crate::core::recall::EntryFacts;
use crate::core::shapes::{EventRecord, FoldResult, Message, Payload, ProviderRequest};
use crate::core::visit::{
    self, Audience, Called, ConditionalWrite, HeldClaim, Host, Loaded, Outcome, Pending, Stage, Visited,
};

/// What step 1 read for one visit: the host, the stage and what was
/// loaded, and (`background: true`) where a fold it leaves running goes.
pub struct Read {
    pub host: JsHost,
    pub stage: Stage<JsValue>,
    pub loaded: Loaded,
    pub background: Option<BackgroundFolds>,
}

/// Where a background fold's promise goes: the stage's `settled()`, and
/// `waitUntil` when given.
pub struct BackgroundFolds {
    handle: StageHandle,
    wait_until: Option<Function>,
    config: Rc<StageConfig>,
}

/// `stage(scope)`: reads `scope.loaded` and `scope.identity`, may assign
/// `scope.loaded`, emits through `scope.$emit`; resolves to undefined.
/// Err is the visit's promise, rejected.
pub fn read_scope(stage: StageHandle, scope: JsValue) -> Result<Read, Promise> {
    // The identity is copied before recall is read: a getter that runs
    // while recall is read cannot change what this visit is keyed by.
    let identity = identity::read(scope.unchecked_ref::<Scope>().identity());
    read(stage, identity, recall::scope_loaded(&scope), Target::Scope(scope))
}

/// `stage.fold(loaded, identity)`: the same visit; resolves to `{ recall, events }`.
pub fn read_fold(stage: StageHandle, loaded: JsValue, identity: JsValue) -> Result<Read, Promise> {
    let identity = identity::read(Ok(identity));
    read(stage, identity, Ok(loaded.clone()), Target::Fold(loaded))
}

/// The visit's promise: settled already, or once its calls have answered.
/// A fold it leaves running is handed to `background`.
pub fn promise_of(visited: Visited<JsHost>, background: Option<BackgroundFolds>) -> Promise {
    match (visited, background) {
        (Visited::Now(delivered), _) => Promise::resolve(&delivered),
        (Visited::Later(delivered), _) => future_to_promise(async move { Ok(delivered.await) }),
        (Visited::Background { now, fold }, background) => {
            let fold = future_to_promise(async move { Ok(fold.await) });
            if let Some(BackgroundFolds { handle, wait_until, config }) = background {
                let ended = js::track_background_fold(&handle, &fold);
                // The platform's: a throw (an unbound `ctx.waitUntil`) leaves the visit alone.
                if let Some(Err(error)) = wait_until.map(|wait_until| wait_until.call1(&JsValue::UNDEFINED, &ended)) {
                    handle.warn_once(|| warning::wait_until_threw(&config.strategy_id, &js::cause_of(&error)));
                }
            }
            Promise::resolve(&now)
        }
    }
}

/// Where a visit's result goes.
#[derive(Default)]
enum Target {
    /// Assign `scope.loaded` and emit through `scope.$emit`.
    Scope(JsValue),
    /// Build `{ recall, events }`; holds the caller's `loaded`.
    Fold(JsValue),
    /// `onEvent` alone: the visit has had its result.
    #[default]
    Observers,
}

/// Everything a visit knows of JS once recall is read.
pub struct JsHost {
    handle: StageHandle,
    pub(super) settings: Settings,
    /// Recall as read (no entries when it could not be read), or, once a
    /// background fold's visit has had its result, what the fold reads.
    pub(super) recall: HeldRecall,
    /// Each entry's role, once read for the call: when a span bound
    /// measures its message or the span is known (§4 step 8).
    pub(super) roles: Vec<RoleRead>,
    /// The messages a span bound sends cut (`core::span_bound`): a few at
    /// most, those of one turn.
    pub(super) cut_texts: Vec<CutText>,
    /// The visit's copy of its identity: what every store call receives.
    identity: JsValue,
    /// The first folded entry's `source.identity`, when truthy.
    source_identity: Option<JsValue>,
    /// The span's lines for a provider's transcript; None when a role has no string form.
    pub(super) span_lines: Option<Vec<SpanLine>>,
    /// The span's entries, by index (the visit's own list).
    span: Rc<[usize]>,
    /// Taken by the visit's one delivery: a background fold that goes on
    /// keeps nothing of the caller's.
    target: Target,
}

/// What a provider's transcript takes of one span entry (SPEC §5).
pub(super) struct SpanLine {
    pub role: Option<String>,
    pub turn: Option<f64>,
    pub summary: bool,
}

/// Step 1: recall, read once by iteration, every field of every entry
/// once; the identity, copied once (§8, Isolation); with token budgets,
/// every entry's content counted once, by one counter.
fn read(
    handle: StageHandle,
    identity: Result<VisitIdentity, InvalidSpot>,
    loaded: Result<JsValue, Unusable>,
    target: Target,
) -> Result<Read, Promise> {
    let settings = handle.settings();
    // An identity that is bad input is the visit's first: nothing is counted.
    let counts = identity.is_ok() && settings.core.tokens.is_some();
    let counting = counts.then_some(Counting(settings.count_tokens.as_ref()));
    let recall = loaded.and_then(|loaded| recall::read_recall(&loaded, counting));
    let (loaded_len, recall, invalid) = match recall {
        Ok(recall) => (recall.entries.len(), recall, None),
        Err(Unusable { spot, loaded_len }) => (loaded_len, Recall::default(), Some(spot)),
    };
    let (identity, key, invalid) = match identity {
        Ok(VisitIdentity { copy, key }) => (copy, key, invalid),
        Err(spot) => (JsValue::UNDEFINED, None, invalid.or(Some(spot))),
    };
    let Recall { entries, facts, id_keys } = recall;
    let loaded = Loaded { len: loaded_len, facts, id_keys, identity_key: invalid.map_or(Ok(key), Err) };
    let stage = Stage { id: handle.id(), config: settings.core.clone(), memory: MEMORY.with(Rc::clone) };
    let background = settings.core.background.then(|| BackgroundFolds {
        handle: handle.clone().unchecked_into(),
        wait_until: settings.wait_until.clone(),
        config: settings.core.clone(),
    });
    let host = JsHost {
        handle,
        settings,
        recall: HeldRecall::Read(entries),
        identity,
        roles: Vec::new(),
        cut_texts: Vec::new(),
        source_identity: None,
        span_lines: None,
        span: Rc::from([]),
        target,
    };
    Ok(Read { host, stage, loaded, background })
}

impl Host for JsHost {
    type Entry = JsValue;
    type Text = JsString;
    type Writer = Function;
    type Delivered = JsValue;

    /// The identity as a plain copy (one that cannot be read or copied is
    /// left out); the roles only for a provider, since a callback is given
    /// the span's own value objects, but a cut message's, which it is given
    /// as `{ role, content }`.
    fn keep_span(&mut self, span: &Rc<[usize]>, facts: &[EntryFacts], cut_texts: Vec<(usize, String)>) {
        self.span = span.clone();
        self.cut_texts = cut_texts
            .into_iter()
            .map(|(index, text)| CutText { index, role: self.role(index).flatten(), text })
            .collect();
        if self.settings.core.model().is_some() {
            let line = |host: &mut JsHost, index: usize| {
                let role = host.role(index)?;
                Some(SpanLine { role, turn: facts[index].turn, summary: facts[index].summary.is_some() })
            };
            self.span_lines = span.iter().map(|&index| line(self, index)).collect();
        }
        let source = &self.recall.read()[span[0]].source;
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

    /// Copied into the instance.
    fn span_texts(&self, span: &[usize]) -> Vec<String> {
        span.iter().map(|&index| self.content_text(index)).collect()
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

    fn timer(&self, ms: f64) -> impl Future<Output = ()> + 'static {
        Timer::new(ms)
    }

    /// SPEC §4 step 8: the provider gets the transcript as data; the
    /// callback gets the span's own value objects, but for a message a span
    /// bound cut, which goes as `{ role, content }` with the cut text.
    fn summarize(&self, span: &[usize]) -> Result<Called<JsString>, &'static str> {
        let timeout_ms = self.settings.core.call_timeout_ms();
        let instruction = self.settings.core.instruction();
        let model = self.settings.core.model();
        let (started, sent_chars) = match model {
            Some(model) => {
                let text = self.transcript(span).ok_or("write the transcript")?;
                let sent_chars = utf16_len(&instruction) + utf16_len(&text);
                let controller = timeout_ms.map(|_| AbortController::new());
                let request = ProviderRequest {
                    system_prompt: &instruction,
                    messages: [Message { role: "user", content: text }],
                    model,
                    signal: controller.as_ref().map(|c| AsIs(c.signal())),
                };
                let llm = &self.settings.llm;
                let complete = call::method(llm, "llm.complete", Callee::complete);
                (Started::call(llm, complete, &Array::of1(&to_js(&request)), timeout_ms, controller), sent_chars)
            }
            None => {
                let (messages, sent_chars) = self.callback_messages(span, instruction);
                let callback = call::function_of(Ok(self.settings.llm.clone()), Key::Llm.name());
                (Started::call(&JsValue::UNDEFINED, callback, &Array::of1(&messages), timeout_ms, None), sent_chars)
            }
        };
        let read_answer = if model.is_some() { call::provider_answer } else { call::callback_answer };
        let answer = Box::pin(async move { started.answer().await.and_then(read_answer) });
        Ok(Called { answer, sent_chars })
    }

    /// Undefined means a store without claims; anything else that is not a
    /// function is a broken one.
    fn claim_writer(&self) -> Result<Option<Function>, String> {
        match self.store().unchecked_ref::<Callee>().put_if_version() {
            Ok(method) if method.is_undefined() => Ok(None),
            read => call::function_of(read, "store.putIfVersion").map(Some),
        }
    }

    fn write_claim(
        &self,
        candidate: &Candidate,
        held: &HeldClaim<Function>,
        ttl: f64,
        expected_version: f64,
    ) -> Pending<Result<ConditionalWrite, String>> {
        let entry = to_js(&visit::claim_entry(&self.settings.core, candidate, held, ttl, self.identity()));
        let args = Array::of3(&self.identity, &entry, &JsValue::from_f64(expected_version));
        let started =
            Started::call(&self.store(), Ok(held.writer.clone()), &args, self.settings.core.call_timeout_ms(), None);
        Box::pin(async move { started.answer().await.and_then(call::conditional_write_answer) })
    }

    /// Called once awaited (after the outcome is published to the runs
    /// that joined), under `timeoutMs` when set.
    fn put(&self, entry: &JsValue) -> Option<impl Future<Output = Result<(), String>>> {
        let store = self.settings.store.clone()?;
        let (args, timeout_ms) = (Array::of2(&self.identity, entry), self.settings.core.call_timeout_ms());
        Some(async move {
            let put = call::method(&store, "store.put", Callee::put);
            Started::call(&store, put, &args, timeout_ms, None).answer().await.map(drop)
        })
    }

    fn detach(&self, call: Pending<Result<ConditionalWrite, String>>) {
        wasm_bindgen_futures::spawn_local(async move {
            let _ = call.await;
        });
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
        let covered_ids: Array = span.iter().map(|&index| self.id(index)).collect();
        if let Some(claim_id) = claim_id {
            covered_ids.push(&JsValue::from_str(claim_id));
        }
        let (content, covered_ids) = (AsIs::of(content), AsIs::of(covered_ids));
        to_js(&visit::summary_entry(&self.settings.core, candidate, now, audit, content, covered_ids, self.identity()))
    }

    /// Assigns `scope.loaded` when recall changed and emits, or builds
    /// `stage.fold`'s result; a fold going on keeps only what it reads.
    fn deliver(&mut self, outcome: Outcome<JsValue>) -> JsValue {
        let target = match outcome.audience {
            Audience::Visit | Audience::VisitWhileFolding => std::mem::take(&mut self.target),
            Audience::Observers => Target::Observers,
        };
        let delivered = self.deliver_to(&target, &outcome);
        if outcome.audience == Audience::VisitWhileFolding {
            self.keep_for_fold();
        }
        delivered
    }

    fn warn_once(&self, message: impl FnOnce() -> String) {
        self.handle.warn_once(message);
    }

    fn first_claims_note(&self) -> bool {
        let first = !self.handle.claims_noted();
        self.handle.set_claims_noted(true);
        first
    }

    fn free_latch_with_stage(&self) {
        memory::free_latch_with(&self.handle);
    }
}

impl JsHost {
    /// Assigns `scope.loaded` when recall changed and emits, or builds
    /// `stage.fold`'s result, or (`Observers`) emits alone.
    fn deliver_to(&self, target: &Target, outcome: &Outcome<JsValue>) -> JsValue {
        let entries = self.recall.read();
        let recall = || -> Array { outcome.recall(|index| entries[index].entry.clone()).collect() };
        let (settled, untouched) = (&outcome.settled, outcome.untouched);
        match target {
            Target::Scope(scope) => {
                let mut event = settled.event.clone();
                if !untouched && !settled.is_unchanged(entries.len()) {
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
                        if let Some(event) = event.as_mut() {
                            events::recall_refused(event, &cause);
                        }
                    }
                }
                if let Some(event) = &event {
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
            Target::Observers => {
                if let Some(event) = &settled.event {
                    self.emit(None, &self.payload(event));
                }
                JsValue::UNDEFINED
            }
        }
    }

    /// A background fold keeps only what it reads ([`HeldRecall::KeptForFold`]).
    fn keep_for_fold(&mut self) {
        self.recall.keep_for_fold(&self.span);
    }

    fn id(&self, index: usize) -> JsValue {
        self.recall.fold_field(index, FoldField::Id)
    }

    pub(super) fn content(&self, index: usize) -> Option<JsString> {
        self.recall.fold_field(index, FoldField::Content).dyn_into().ok()
    }

    /// Entry `index`'s content copied into the instance ("" when absent).
    pub(super) fn content_text(&self, index: usize) -> String {
        self.content(index).as_ref().map(String::from).unwrap_or_default()
    }

    pub(super) fn value(&self, index: usize) -> JsValue {
        self.recall.fold_field(index, FoldField::Value)
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
        let dropped_ids: Array = event.dropped.iter().map(|&index| self.id(index)).collect();
        to_js(&Payload::of(&self.settings.core.strategy_id, event, AsIs::of(dropped_ids)))
    }
}
