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
use super::deadline;
use super::decision::{self, CallOutcome, Candidate, Fold, Plan, Settled, Slot};
use super::details::{self, Audit};
use super::events::{warning, Caller, ClaimState, Event, GiveUp, InvalidSpot, Usage, WriteBack};
use super::flight::FlightKey;
use super::format::utf16_len;
use super::js_number::js_number_to_string;
use super::latch::{span_key_text, KeyText};
use super::memory::Memory;
use super::recall::{claim_dated, oldest_dated, partition, EntryFacts};
use super::shapes::{Claim, ClaimEntry, ClaimMetadata, Coverage, Message, Metadata, Source, SummaryEntry};

/// A leader's call over a span, as other runs over it wait on it.
pub type Flight<Entry> = super::flight::Flight<CallOutcome<Entry>>;

/// What the stage hands back: at once, or once its calls have answered.
pub enum Visited<H: Host> {
    Now(H::Delivered),
    Later(Pin<Box<dyn Future<Output = H::Delivered>>>),
    /// `background: true`: recall at once, without the fold `fold` finishes
    /// (and delivers to `onEvent` alone) when its calls have answered.
    Background {
        now: H::Delivered,
        fold: Pin<Box<dyn Future<Output = H::Delivered>>>,
    },
}

/// The summarizer's answer: its text as the host holds it, a copy of that
/// text (what the audit reads), and, from a provider, the usage it reported.
pub struct Answer<Text> {
    pub text: Text,
    pub copy: String,
    pub usage: Option<Usage>,
}

/// A summarizer call the host started: its answer, to await, and its size.
pub struct Called<Text> {
    pub answer: Pending<Result<Answer<Text>, String>>,
    /// The call's UTF-16 length: the instruction and every message as sent.
    pub sent_chars: usize,
}

/// The stage a visit runs for: its id (which tells its latch and flights
/// apart from every other stage's), its config (as its build read it),
/// and the module's memory of flights and latches.
pub struct Stage<Entry> {
    pub id: f64,
    pub config: Rc<StageConfig>,
    pub memory: Rc<Memory<Entry>>,
}

/// What step 1 read: each loaded entry's facts and id text, and the
/// identity's key (None when it names no conversation), or the visit's
/// first bad input.
pub struct Loaded {
    /// How many entries `loaded` held, even when reading stopped at a bad one.
    pub len: usize,
    pub facts: Vec<EntryFacts>,
    /// Each entry's id as a key, for span keys.
    pub id_keys: Vec<String>,
    pub identity_key: Result<Option<KeyText>, InvalidSpot>,
}

/// Steps 2–8 of a visit whose recall and identity the host has read.
pub fn visit<H: Host>(mut host: H, stage: Stage<H::Entry>, loaded: Loaded) -> Visited<H> {
    match prepare(&mut host, &stage, loaded) {
        Ok(considered) => act(host, stage, considered),
        Err(settled) => Visited::Now(host.deliver(settled)),
    }
}

/// A span steps 2–7 found worth a call.
struct Considered {
    candidate: Candidate,
    /// What folds: any summaries rolled in (`maxSummaries`), then the raw span.
    span: Rc<[usize]>,
    /// Its keys, when the identity names a conversation (§8, Isolation:
    /// only a span that can be told apart is anyone else's to join).
    keys: Option<SpanKeys>,
    /// The oldest loaded entry's `updatedAt` (a claim is dated before it).
    oldest_dated: Option<f64>,
}

/// The keys a span is known by between visits.
struct SpanKeys {
    /// The span's full key: what single flight compares and the latch hashes.
    span: Rc<str>,
    /// With `background`, the conversation's key: its one fold in flight is
    /// found by it, whatever span that fold is over.
    conversation: Option<Rc<str>>,
}

impl SpanKeys {
    fn flight(&self) -> FlightKey {
        match &self.conversation {
            Some(conversation) => FlightKey::Conversation(conversation.clone()),
            None => FlightKey::Span(self.span.clone()),
        }
    }
}

/// Steps 2–7: the span this visit would fold, or how it settles without a call.
fn prepare<H: Host>(host: &mut H, stage: &Stage<H::Entry>, loaded: Loaded) -> Result<Considered, Outcome<H::Entry>> {
    let config = &*stage.config;
    let identity_key = loaded.identity_key.map_err(|spot| invalid_input(host, config, loaded.len, spot))?;
    // `background`: the conversation's one fold in flight is found by the
    // identity alone. A visit whose identity names no conversation folds
    // within its turn: there is no conversation to keep to one fold, and
    // its folds would pile up.
    let conversation: Option<Rc<str>> =
        identity_key.as_ref().filter(|_| config.background).map(|key| key.clone().into_string().into());
    if let Some(conversation) = &conversation {
        let running = FlightKey::Conversation(conversation.clone());
        if let Some(running) = stage.memory.flights().find(stage.id, &running, host.wall_clock()) {
            // Whatever this visit settles to, a summary it loaded that
            // reaches the running fold's span is newer than that fold's base.
            let newest = loaded.facts.iter().filter_map(|facts| facts.summary.as_ref().map(|summary| summary.to_turn));
            running.saw_summary_up_to(newest.fold(f64::NEG_INFINITY, f64::max));
        }
    }
    if loaded.len == 0 {
        return Err(Outcome::of(Settled { recall: Vec::new(), event: None }));
    }
    // 2–5. Partition, seam, and whether a call is worth making at all.
    let candidate = match decision::plan(config, &loaded.facts, partition(&loaded.facts)) {
        Plan::Settle(settled) => return Err(Outcome::of(settled)),
        Plan::Consider(candidate) => candidate,
    };
    // 6, §8 Bounded spans: the oldest part of the span one call can be sent.
    let mut candidate = match candidate.within_bound(config, &loaded.facts, host) {
        Ok(Plan::Consider(candidate)) => candidate,
        Ok(Plan::Settle(settled)) => return Err(warned(host, config, settled)),
        Err(spot) => return Err(invalid_input(host, config, loaded.len, spot)),
    };
    // 7 and §8: latched, or too short for any summary to pay, or deferred.
    let span: Rc<[usize]> = candidate.folded_indices().into();
    host.keep_span(&span, &loaded.facts, candidate.take_cut_texts());
    let id_keys = span.iter().map(|&index| loaded.id_keys[index].as_str());
    let keys = identity_key.map(|identity| SpanKeys { span: span_key_text(identity, id_keys).into(), conversation });
    if keys.as_ref().is_some_and(|keys| stage.memory.is_latched(stage.id, &keys.span)) {
        let settled = candidate.latched();
        // A span a bound cut short holds every later turn back: say so once.
        return Err(if candidate.shaped_by_bound() { warned(host, config, settled) } else { Outcome::of(settled) });
    }
    let declined = candidate.too_few_tokens(config).or_else(|| candidate.predicted_refusal(config));
    if let Some(declined) = declined.or_else(|| candidate.defer(config)) {
        return Err(Outcome::of(declined));
    }
    Ok(Considered { candidate, span, keys, oldest_dated: oldest_dated(&loaded.facts) })
}

/// Step 8: join the call in flight over this span (with `background`, the
/// conversation's fold), or lead the one call.
fn act<H: Host>(mut host: H, stage: Stage<H::Entry>, considered: Considered) -> Visited<H> {
    let Considered { candidate, span, keys, oldest_dated } = considered;
    let flight_key = keys.as_ref().map(SpanKeys::flight);
    let background = matches!(flight_key, Some(FlightKey::Conversation(_)));
    let in_flight = |host: &H| stage.memory.flights().find(stage.id, flight_key.as_ref()?, host.wall_clock());
    if let Some(flight) = in_flight(&host) {
        return join(host, stage, candidate, flight, background);
    }
    // Only a user's `now` can fail, so only it is read before paying for the
    // call (`None` without one: `Date.now` is read when it is needed). A
    // run that joins reads no clock, so the flight is looked for first.
    let clock_before_call = match host.configured_clock().transpose() {
        Ok(now) => now,
        Err(found) => {
            let settled = warned(&host, &stage.config, candidate.invalid_clock(&found));
            return Visited::Now(host.deliver(settled));
        }
    };
    // A user's `now` is user code: it may have started a run over this span.
    if let Some(flight) = in_flight(&host) {
        return join(host, stage, candidate, flight, background);
    }
    // The flight is listed before the call: the call runs user code, which
    // may start another run over this span. A background fold's flight is
    // bounded by its calls' own deadlines.
    let window_ms = stage.config.join_window_ms().filter(|_| !background);
    let start =
        |keys: SpanKeys| stage.memory.flights().start(stage.id, keys.flight(), keys.span, host.wall_clock(), window_ms);
    let flight = keys.map(start);
    Run { host, stage, oldest_dated, candidate, span, flight, clock_before_call, detached: false }.start(background)
}

/// What the run that leads does first: await the call it started, or (with
/// `claims: true`) claim the span for the fleet and only then call.
enum First<Text> {
    Call(Called<Text>),
    Claim { lease_ms: f64 },
}

/// The run that makes the call: what it knows once the call is decided.
struct Run<H: Host> {
    host: H,
    stage: Stage<H::Entry>,
    /// The oldest loaded entry's `updatedAt` (a claim is dated before it).
    oldest_dated: Option<f64>,
    candidate: Candidate,
    span: Rc<[usize]>,
    /// Its flight, when its span can be told apart: other runs join it (or,
    /// with `background`, find their conversation's fold in flight).
    flight: Option<Rc<Flight<H::Entry>>>,
    clock_before_call: Option<f64>,
    /// A background fold whose visit has returned: its end goes to `onEvent` alone.
    detached: bool,
}

impl<H: Host> Run<H> {
    fn config(&self) -> &StageConfig {
        &self.stage.config
    }

    /// Step 8: the one call (or, with `claims`, the claim before it),
    /// started now. With `background`, recall goes back at once, as if this
    /// span had not been considered, and the fold delivers its own event
    /// when its calls end.
    fn start(mut self, background: bool) -> Visited<H> {
        // The fleet claims a span only for a conversation it can tell apart
        // (§8, Isolation): without a key, two conversations would claim one span.
        let first = match self.config().claim_lease_ms.filter(|_| self.flight.is_some()) {
            Some(lease_ms) => First::Claim { lease_ms },
            None => match self.host.summarize(&self.span) {
                Ok(call) => First::Call(call),
                Err(what) => return Visited::Now(self.finish_unclaimed(CallOutcome::Unreadable { what })),
            },
        };
        if !background {
            return Visited::Later(Box::pin(Box::new(self).lead(first)));
        }
        let started = self.candidate.started_in_background(matches!(first, First::Call(_)));
        let now = self.host.deliver(Outcome { audience: Audience::VisitWhileFolding, ..Outcome::of(started) });
        self.detached = true;
        Visited::Background { now, fold: Box::pin(Box::new(self).lead(first)) }
    }

    /// Steps 8–10, then the run's one ending. The run is boxed, and each
    /// later step's state is boxed where that step starts: a fold waiting
    /// on its call (in the background, perhaps until its deadline) holds
    /// only what waiting needs, not the largest step's state, which with
    /// thousands of hung folds would be most of what they hold (README,
    /// "Hung summarizers").
    async fn lead(self: Box<Self>, first: First<H::Text>) -> H::Delivered {
        let (call, held) = match first {
            First::Call(call) => (call, None),
            First::Claim { lease_ms } => match Box::pin(self.claim_and_call(lease_ms)).await {
                Ok(claimed) => claimed,
                Err((outcome, held)) => return Box::pin((*self).finish(outcome, held)).await,
            },
        };
        let outcome = self.fold(call, held.as_ref()).await;
        Box::pin((*self).finish(outcome, held)).await
    }

    /// Awaits the summarizer's answer and, when it makes recall smaller,
    /// folds it into the summary entry and writes that back.
    async fn fold(&self, call: Called<H::Text>, held: Option<&HeldClaim<H::Writer>>) -> CallOutcome<H::Entry> {
        // 8. Await the summarizer's answer.
        match call.answer.await {
            // Boxed: see `lead`.
            Ok(answer) => Box::pin(self.fold_answer(answer, held)).await,
            Err(cause) => {
                self.host.warn_once(|| warning::summarizer_failed(&self.config().strategy_id, &cause));
                CallOutcome::Failed { cause, sent_chars: Some(call.sent_chars) }
            }
        }
    }

    /// Steps 9 and 10 for the summarizer's answer.
    async fn fold_answer(&self, answer: Answer<H::Text>, held: Option<&HeldClaim<H::Writer>>) -> CallOutcome<H::Entry> {
        let (host, config, candidate) = (&self.host, self.config(), &self.candidate);
        let Answer { text, copy, usage } = answer;
        // 9. A summary that does not make recall smaller is refused, and its
        // span latched: the same span gives the same answer.
        let summary_chars = candidate.label_chars() + utf16_len(&copy);
        if !candidate.made_smaller_by(summary_chars) {
            return CallOutcome::NotSmaller { summary_chars, usage };
        }
        // 10. Fold: the summary entry, stamped when the fold happens (after
        // the call; a clock that broke during it keeps the earlier reading),
        // and what it kept of the span's exact details. With `keepDetails`,
        // a line lists the dropped ones, in the room left below the span's
        // length, so the summary stays smaller than what it replaces.
        let now = clock(host).unwrap_or_else(|_| self.clock_before_call.unwrap_or_else(|| host.wall_clock()));
        // The span's texts are copied now, not held from before the call: a
        // summarizer that never answers (no `timeoutMs`) would otherwise keep
        // them in the memory every conversation shares.
        let span_texts = host.span_texts(&self.span);
        // The span is the rolled summaries, then the raw entries.
        let rolled = candidate.rolled_indices().len();
        let audited = span_texts.iter().enumerate().map(|(at, text)| details::audited_text(text, at < rolled));
        let mut audit = details::audit(audited, &copy);
        let room = candidate.room_after(summary_chars);
        let pinned = config.keep_details.map(|bounds| audit.pin(bounds, room)).unwrap_or_default();
        let facts = candidate.span;
        let label = config.header().render(&[facts.from_turn, facts.to_turn, facts.entries as f64]);
        let content = host.summary_content(&label, text, &pinned);
        let summary_tokens = match config.tokens.map(|_| host.count_summary_tokens(&content)).transpose() {
            Ok(tokens) => tokens,
            Err(found) => return CallOutcome::SummaryUncounted { found },
        };
        let fold = Fold { summary_chars: summary_chars + utf16_len(&pinned), summary_tokens, usage, audit };
        let claim_id = held.map(|held| held.id.as_str());
        let entry = host.summary_entry(candidate, &self.span, content, now, claim_id, &fold.audit);
        if self.flight.as_ref().is_some_and(|flight| flight.newest_summary_seen() >= candidate.span.to_turn) {
            return CallOutcome::Folded { entry, fold, write_back: WriteBack::Superseded };
        }
        let Some(written) = host.put(&entry).map(Box::pin) else {
            return CallOutcome::Folded { entry, fold, write_back: WriteBack::NoStore };
        };
        // Waiting runs go on as soon as the summary exists: the write is
        // this run's own (a store that never answers holds no one else).
        if let Some(flight) = &self.flight {
            let fold = Fold { usage: None, ..fold.clone() };
            flight.publish(CallOutcome::Folded { entry: entry.clone(), fold, write_back: WriteBack::ByLeader });
        }
        let write_back = match written.await {
            Ok(()) => WriteBack::Written,
            Err(cause) => {
                host.warn_once(|| warning::store_refused(&config.strategy_id, &cause));
                WriteBack::Failed(cause)
            }
        };
        CallOutcome::Folded { entry, fold, write_back }
    }

    /// The run's one ending: its outcome published to the runs that joined
    /// it, a claim it holds kept or given up, and the outcome delivered.
    async fn finish(self, outcome: CallOutcome<H::Entry>, held: Option<HeldClaim<H::Writer>>) -> H::Delivered {
        let Some(held) = held else {
            return self.finish_unclaimed(outcome);
        };
        self.end_flight(&outcome);
        let claim = if outcome.gives_up_claim() {
            // No summary for the fleet to load: let the next turn pay for it.
            self.give_up(held).await
        } else {
            ClaimState::Held(held.id)
        };
        self.deliver(outcome, &claim)
    }

    /// The ending of a run that holds no claim, at once.
    fn finish_unclaimed(self, outcome: CallOutcome<H::Entry>) -> H::Delivered {
        self.end_flight(&outcome);
        let claim = if outcome.made_no_call() { ClaimState::Silent } else { self.unclaimed() };
        self.deliver(outcome, &claim)
    }

    /// Publishes the outcome, so waiting runs go on, and frees the span; a
    /// span the outcome latches is latched first. Only a span that can be
    /// told apart has a flight, so only it is latched (§8, Isolation).
    fn end_flight(&self, outcome: &CallOutcome<H::Entry>) {
        if let Some(flight) = &self.flight {
            if self.stage.memory.end(flight, outcome) {
                self.host.free_latch_with_stage();
            }
        }
    }

    /// What an event says of a run that made its call without a claim:
    /// once per stage, that the store cannot take claims (a leader's
    /// identity names its conversation, so it would have claimed; a run
    /// alone never claims).
    fn unclaimed(&self) -> ClaimState {
        if self.flight.is_some() && self.config().claim_lease_ms.is_some() && self.host.first_claims_note() {
            ClaimState::Unsupported
        } else {
            ClaimState::Silent
        }
    }

    fn deliver(mut self, outcome: CallOutcome<H::Entry>, claim: &ClaimState) -> H::Delivered {
        let caller = if self.flight.is_some() { Caller::Leader } else { Caller::Alone };
        let mut outcome = settle(&self.host, self.config(), &self.candidate, outcome, caller, claim);
        if self.detached {
            outcome.settled = outcome.settled.in_background();
            outcome.audience = Audience::Observers;
        }
        self.host.deliver(outcome)
    }
}

/// A run that finds a flight to join: with `background`, its
/// conversation's fold, which it does not wait for; otherwise a run over
/// its span, which it follows.
fn join<H: Host>(
    mut host: H,
    stage: Stage<H::Entry>,
    candidate: Candidate,
    flight: Rc<Flight<H::Entry>>,
    background: bool,
) -> Visited<H> {
    if background {
        return Visited::Now(host.deliver(Outcome::of(candidate.behind_background())));
    }
    follow(host, stage, candidate, flight)
}

/// A run over a span another run is calling for: it settles from that
/// run's outcome, at once when it is published already; otherwise it waits
/// until the flight is as old as the join window, when it has one.
fn follow<H: Host>(host: H, stage: Stage<H::Entry>, candidate: Candidate, flight: Rc<Flight<H::Entry>>) -> Visited<H> {
    let window_ms = stage.config.join_window_ms();
    let settle_from = move |mut host: H, outcome| {
        let outcome = settle(&host, &stage.config, &candidate, outcome, Caller::Follower, &ClaimState::Silent);
        host.deliver(outcome)
    };
    if let Some(outcome) = flight.published() {
        return Visited::Now(settle_from(host, outcome));
    }
    Visited::Later(Box::pin(async move {
        let outcome = match window_ms {
            Some(ms) => {
                deadline::before(host.timer(flight.started_at() + ms - host.wall_clock()), flight.outcome()).await
            }
            None => Some(flight.outcome().await),
        };
        let outcome = outcome.unwrap_or_else(|| CallOutcome::Failed {
            cause: format!(
                "the concurrent run's call did not answer within the {} ms join window",
                js_number_to_string(JOIN_WINDOW_MS)
            ),
            sent_chars: None,
        });
        settle_from(host, outcome)
    }))
}

fn settle<H: Host>(
    host: &H,
    config: &StageConfig,
    candidate: &Candidate,
    outcome: CallOutcome<H::Entry>,
    caller: Caller,
    claim: &ClaimState,
) -> Outcome<H::Entry> {
    let warns = outcome.warns();
    let (settled, new_summary) = candidate.settle(outcome, config.model(), caller, claim);
    if warns {
        warn_about(host, config, settled.event.as_ref());
    }
    Outcome { new_summary, ..Outcome::of(settled) }
}

/// Invalid input: recall left exactly as given, and a warning.
fn invalid_input<H: Host>(host: &H, config: &StageConfig, loaded_len: usize, spot: InvalidSpot) -> Outcome<H::Entry> {
    Outcome { untouched: true, ..warned(host, config, decision::invalid_input(loaded_len, &spot)) }
}

/// A settling the stage warns about once.
fn warned<H: Host>(host: &H, config: &StageConfig, settled: Settled) -> Outcome<H::Entry> {
    warn_about(host, config, settled.event.as_ref());
    Outcome::of(settled)
}

fn warn_about<H: Host>(host: &H, config: &StageConfig, event: Option<&Event>) {
    if let Some(event) = event {
        host.warn_once(|| warning::declined(&config.strategy_id, &event.reason));
    }
}

/// The configured `now`, or `Date.now()` without one.
fn clock<H: Host>(host: &H) -> Result<f64, String> {
    host.configured_clock().unwrap_or_else(|| Ok(host.wall_clock()))
}

mod claims;
mod host;
mod written;

pub use super::span_bound::Sizer;
pub use claims::{claim_entry, ConditionalWrite, HeldClaim};
pub use host::{Audience, Host, Outcome, Pending};
pub use written::summary_entry;

#[cfg(test)]
mod tests;
