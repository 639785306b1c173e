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

/// What a store's `putIfVersion` resolved to: `{ applied, currentVersion? }`.
pub struct ConditionalWrite {
    pub applied: bool,
    pub current_version: Option<f64>,
}

/// The fleet's claim on a span, as this run wrote it.
#[derive(Clone)]
pub struct HeldClaim<Writer> {
    pub id: String,
    /// The version the store holds it at: the expected version when it is
    /// given up (`claim_version` says why it is written as it is).
    pub version: f64,
    pub claimed_at: f64,
    pub lease_ms: f64,
    /// The store's `putIfVersion` as the claim read it: the give-up calls
    /// the same function, not whatever the store holds after the awaits.
    pub writer: Writer,
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

/// `claim`'s entry on `candidate`'s span, its lease ending at `ttl`, dated
/// by the loaded entries (`claim_dated`).
pub fn claim_entry<'a, W, V>(
    config: &StageConfig,
    candidate: &Candidate,
    loaded: &[EntryFacts],
    claim: &'a HeldClaim<W>,
    ttl: f64,
    identity: Option<V>,
) -> ClaimEntry<'a, V> {
    let facts = candidate.span;
    let dated = claim_dated(loaded, claim.claimed_at);
    ClaimEntry {
        id: &claim.id,
        value: Message { role: "system", content: "" },
        metadata: ClaimMetadata {
            summary_claim: Claim {
                from_turn: facts.from_turn,
                to_turn: facts.to_turn,
                entry_count: facts.entries,
                claimed_at_ms: claim.claimed_at,
                lease_ms: claim.lease_ms,
            },
        },
        version: claim.version,
        created_at: dated,
        updated_at: dated,
        last_accessed_at: claim.claimed_at,
        access_count: 0,
        ttl,
        tier: config.tier.as_str(),
        source: Source { turn: facts.to_turn, identity },
    }
}

/// What a visit needs of its platform: what step 1 read, the stage's state
/// between visits, the caller's functions, and where the result goes. A
/// call is started by one method and awaited by another, so the visit
/// decides what runs before the stage returns.
pub trait Host: Sized + 'static {
    /// A recall entry, and the new summary entry.
    type Entry: Clone + 'static;
    /// The summary's text as the summarizer gave it.
    type Text: 'static;
    /// A call into the caller's summarizer or store, started and not yet awaited.
    type Call: 'static;
    /// The store's conditional write (`putIfVersion`).
    type Writer: Clone + 'static;
    type Delivered: 'static;

    fn config(&self) -> &StageConfig;
    /// How many entries `loaded` held, even when reading stopped at a bad one.
    fn loaded_len(&self) -> usize;
    fn facts(&self) -> &[EntryFacts];
    /// Entry `index`'s id as text, for keys.
    fn id_text(&self, index: usize) -> &str;
    /// Counts every entry's content into its facts' tokens; the first
    /// entry the counter gives no count for is the visit's invalid input.
    fn count_tokens(&mut self) -> Result<(), InvalidSpot>;
    /// Copies what the call and the entries it writes take of the span's
    /// entries (the first one's `source.identity`, SPEC §2; each role for a
    /// provider's transcript, §5), once the span is known and before anything
    /// is awaited: the caller may change or reuse its objects meanwhile.
    fn keep_span(&mut self, span: &[usize]);

    /// Whether this stage latched the span with this key (SPEC §4 step 9).
    fn latched(&self, key: &str) -> bool;
    fn latch(&self, key: &str);
    /// Tells this stage's latch and flights apart from every other stage's.
    fn stage_id(&self) -> f64;
    /// The module's flights, every stage's, where the host keeps them.
    fn with_flights<R>(&self, use_them: impl FnOnce(&Flights<CallOutcome<Self::Entry>>) -> R) -> R;
    /// The flight of this stage over exactly this span a run may join now.
    fn find_flight(&self, key: &str) -> Option<Rc<Flight<Self::Entry>>> {
        let (stage_id, window_ms, now) = (self.stage_id(), self.config().join_window_ms(), self.wall_clock());
        self.with_flights(|flights| flights.find(stage_id, key, window_ms, now))
    }
    fn start_flight(&self, key: String) -> Rc<Flight<Self::Entry>> {
        let (stage_id, now) = (self.stage_id(), self.wall_clock());
        self.with_flights(|flights| flights.start(stage_id, key, now))
    }
    /// Ends the flight: later runs over the span start their own.
    fn finish_flight(&self, flight: &Rc<Flight<Self::Entry>>) {
        self.with_flights(|flights| flights.finish(flight));
    }
    /// The leader's outcome once it is published; None past the join window.
    fn published(&self, flight: &Flight<Self::Entry>) -> impl Future<Output = Option<CallOutcome<Self::Entry>>>;
    /// SPEC §7: at most one console.warn per stage.
    fn warn_once(&self, message: impl FnOnce() -> String);
    /// True the first time it is asked for this stage: once per stage, an
    /// event says that the store cannot take claims.
    fn first_claims_note(&self) -> bool;

    /// The configured `now`'s reading (None without one).
    fn configured_clock(&self) -> Option<Result<f64, String>>;
    /// `Date.now()`.
    fn wall_clock(&self) -> f64;
    /// `Math.random()`.
    fn random(&self) -> f64;

    /// Starts the summarizer call on `span`; or what could not be done with
    /// the span's entries (no call was made).
    fn start_summarizer(&self, span: &[usize]) -> Result<Self::Call, &'static str>;
    fn summary(&self, call: Self::Call) -> impl Future<Output = Result<Answer<Self::Text>, String>>;
    /// `store.putIfVersion`: None when the store has none (it takes no claims).
    fn claim_writer(&self) -> Result<Option<Self::Writer>, String>;
    /// Starts writing `claim`'s entry on `candidate`'s span, its lease
    /// ending at `ttl`, over the store's version `expected_version`.
    fn start_claim_write(
        &self,
        candidate: &Candidate,
        claim: &HeldClaim<Self::Writer>,
        ttl: f64,
        expected_version: f64,
    ) -> Self::Call;
    fn claim_written(&self, call: Self::Call) -> impl Future<Output = Result<ConditionalWrite, String>>;
    /// Lets a started call run to its end unawaited.
    fn detach(&self, call: Self::Call);

    /// The span's contents as text (empty when absent).
    fn span_texts(&self, span: &[usize]) -> Vec<String>;
    /// `label + text + pinned`, keeping the summarizer's text as it is.
    fn summary_content(&self, label: &str, text: Self::Text, pinned: &str) -> Self::Text;
    fn count_summary_tokens(&self, content: &Self::Text) -> Result<f64, String>;
    /// The summary entry (SPEC §2); its coverage names the claim it was paid under.
    fn summary_entry(
        &self,
        candidate: &Candidate,
        span: &[usize],
        content: Self::Text,
        now: f64,
        claim_id: Option<&str>,
        audit: &Audit,
    ) -> Self::Entry;
    fn has_store(&self) -> bool;
    /// `store.put(identity, entry)`.
    fn put(&self, entry: &Self::Entry) -> impl Future<Output = Result<(), String>>;

    /// SPEC §4 step 3 and the event: the recall and the event, delivered.
    fn deliver(&self, outcome: Outcome<Self::Entry>) -> Self::Delivered;
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

/// What `putIfVersion(identity, claim, 0)` came to.
enum ClaimAnswer<Writer> {
    Held(HeldClaim<Writer>),
    /// Another process holds a live claim on the span.
    Elsewhere,
    /// The store has no `putIfVersion`: run as without claims.
    Unsupported,
    /// No answer to trust (a rejection, a deadline, a malformed answer).
    /// The claim may still land: `attempted` is what was written.
    Failed {
        cause: String,
        attempted: Option<HeldClaim<Writer>>,
    },
}

/// A started call and the claim it is paid under, if any.
type Claimed<H> = (<H as Host>::Call, Option<HeldClaim<<H as Host>::Writer>>);

/// `claims: true`: claim the span for the fleet, then start the call. A
/// span another process holds, or a claim the store failed to take,
/// makes no call (paying without a claim could pay once per process):
/// then the run's end is delivered, as `Err`.
async fn claim_and_call<H: Host>(
    host: &H,
    candidate: &Candidate,
    span: &[usize],
    flight: &Option<Rc<Flight<H::Entry>>>,
    clock_before_call: Option<f64>,
    lease_ms: f64,
) -> Result<Claimed<H>, H::Delivered> {
    // A configured clock was read and checked before the call; `Date.now` otherwise.
    let now = clock_before_call.unwrap_or_else(|| host.wall_clock());
    let held = match claim(host, candidate, now, lease_ms).await {
        ClaimAnswer::Held(held) => Some(held),
        ClaimAnswer::Unsupported => None,
        ClaimAnswer::Elsewhere => {
            let outcome = CallOutcome::ClaimedElsewhere;
            return Err(conclude(host, candidate, flight.clone(), outcome, &ClaimState::Silent));
        }
        ClaimAnswer::Failed { cause, attempted } => {
            // A claim that timed out may still land (a client that queues
            // while the server is away): give it up behind it, unawaited.
            if let Some(attempted) = attempted {
                host.detach(start_give_up(host, candidate, &attempted));
            }
            host.warn_once(|| warning::claim_refused(&host.config().strategy_id, &candidate.claim_id(), &cause));
            let outcome = CallOutcome::ClaimFailed { cause };
            return Err(conclude(host, candidate, flight.clone(), outcome, &ClaimState::Silent));
        }
    };
    match host.start_summarizer(span) {
        Ok(call) => Ok((call, held)),
        Err(what) => {
            let outcome = CallOutcome::Unreadable { what };
            end_flight(host, flight.clone(), &outcome);
            let claim = give_up_or(host, candidate, held, || ClaimState::Silent).await;
            Err(host.deliver(settle(host, candidate, outcome, leader(flight), &claim)))
        }
    }
}

/// `await store.putIfVersion(identity, claim, 0)`: 0 means "only if no
/// live claim is there", so of all the runs over a span, one holds it.
async fn claim<H: Host>(host: &H, candidate: &Candidate, now: f64, lease_ms: f64) -> ClaimAnswer<H::Writer> {
    let writer = match host.claim_writer() {
        Ok(Some(writer)) => writer,
        Ok(None) => return ClaimAnswer::Unsupported,
        Err(cause) => return ClaimAnswer::Failed { cause, attempted: None },
    };
    let version = claim_version(now, host.random());
    let held = HeldClaim { id: candidate.claim_id(), version, claimed_at: now, lease_ms, writer };
    match host.claim_written(host.start_claim_write(candidate, &held, now + lease_ms, 0.0)).await {
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
async fn give_up_or<H: Host>(
    host: &H,
    candidate: &Candidate,
    held: Option<HeldClaim<H::Writer>>,
    otherwise: impl FnOnce() -> ClaimState,
) -> ClaimState {
    let Some(held) = held else {
        return otherwise();
    };
    let given_up = match host.claim_written(start_give_up(host, candidate, &held)).await {
        Ok(written) if written.applied => GiveUp::Done,
        Ok(_) => GiveUp::Refused,
        Err(cause) => GiveUp::Failed(cause),
    };
    ClaimState::Released { id: held.id, given_up }
}

/// Writes the same claim, expiring a millisecond from now, only over
/// this run's own version of it. (`ttl = now` would be a zero expiry,
/// which some stores refuse.)
fn start_give_up<H: Host>(host: &H, candidate: &Candidate, held: &HeldClaim<H::Writer>) -> H::Call {
    let now = clock(host).unwrap_or(held.claimed_at);
    let released = HeldClaim { version: held.version + 1.0, ..held.clone() };
    host.start_claim_write(candidate, &released, now + 1.0, held.version)
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

#[cfg(test)]
mod tests {
    //! The visit's steps over a host that records every call into user code,
    //! as one stage's visits share it: the flights, the latch, the warning.

    use std::cell::{Cell, RefCell};
    use std::future::{poll_fn, ready};
    use std::task::{Context, Poll, Waker};

    use super::*;
    use crate::core::config::Shape;
    use crate::core::decision::NEW_SUMMARY_SLOT;

    /// What the summarizer answers: a text, a failure, or (while the cell is
    /// empty) nothing yet.
    #[derive(Clone)]
    enum Reply {
        Text(String),
        Fails(&'static str),
        Later(Rc<RefCell<Option<String>>>),
    }

    /// One stage's state between visits, and every call its visits made.
    #[derive(Default)]
    struct Stage {
        flights: Flights<CallOutcome<String>>,
        latched: RefCell<Vec<String>>,
        warned: Cell<bool>,
        claims_noted: Cell<bool>,
        /// What `putIfVersion` answers; None for a store without one.
        claim_applies: Option<bool>,
        calls: RefCell<Vec<String>>,
    }

    impl Stage {
        fn log(&self, call: String) {
            self.calls.borrow_mut().push(call);
        }

        fn calls(&self) -> Vec<String> {
            self.calls.borrow().clone()
        }
    }

    struct Mock {
        stage: Rc<Stage>,
        config: StageConfig,
        facts: Vec<EntryFacts>,
        ids: Vec<String>,
        reply: Reply,
    }

    enum Call {
        Summarizer(Reply),
        ClaimWrite(bool),
    }

    impl Host for Mock {
        type Entry = String;
        type Text = String;
        type Call = Call;
        type Writer = ();
        type Delivered = Outcome<String>;

        fn config(&self) -> &StageConfig {
            &self.config
        }
        fn loaded_len(&self) -> usize {
            self.facts.len()
        }
        fn facts(&self) -> &[EntryFacts] {
            &self.facts
        }
        fn id_text(&self, index: usize) -> &str {
            &self.ids[index]
        }
        fn count_tokens(&mut self) -> Result<(), InvalidSpot> {
            Ok(())
        }
        fn keep_span(&mut self, _span: &[usize]) {}
        fn latched(&self, key: &str) -> bool {
            self.stage.latched.borrow().iter().any(|latched| latched == key)
        }
        fn latch(&self, key: &str) {
            self.stage.latched.borrow_mut().push(key.to_owned());
        }
        fn stage_id(&self) -> f64 {
            1.0
        }
        fn with_flights<R>(&self, use_them: impl FnOnce(&Flights<CallOutcome<String>>) -> R) -> R {
            use_them(&self.stage.flights)
        }
        fn published(&self, flight: &Flight<String>) -> impl Future<Output = Option<CallOutcome<String>>> {
            flight.outcome(None::<std::future::Pending<()>>)
        }
        fn warn_once(&self, message: impl FnOnce() -> String) {
            if !self.stage.warned.replace(true) {
                self.stage.log(format!("warn: {}", message()));
            }
        }
        fn first_claims_note(&self) -> bool {
            !self.stage.claims_noted.replace(true)
        }
        fn configured_clock(&self) -> Option<Result<f64, String>> {
            None
        }
        fn wall_clock(&self) -> f64 {
            1_000.0
        }
        fn random(&self) -> f64 {
            0.5
        }
        fn start_summarizer(&self, span: &[usize]) -> Result<Call, &'static str> {
            self.stage.log(format!("summarize {span:?}"));
            Ok(Call::Summarizer(self.reply.clone()))
        }
        async fn summary(&self, call: Call) -> Result<Answer<String>, String> {
            let Call::Summarizer(reply) = call else { panic!("not a summarizer call") };
            let text = match reply {
                Reply::Text(text) => text,
                Reply::Fails(cause) => return Err(cause.to_owned()),
                Reply::Later(cell) => poll_fn(|_| cell.borrow().clone().map_or(Poll::Pending, Poll::Ready)).await,
            };
            Ok(Answer { copy: text.clone(), text, usage: None })
        }
        fn claim_writer(&self) -> Result<Option<()>, String> {
            Ok(self.stage.claim_applies.map(drop))
        }
        fn start_claim_write(&self, _: &Candidate, claim: &HeldClaim<()>, _ttl: f64, expected_version: f64) -> Call {
            self.stage.log(format!("putIfVersion {} over {expected_version}", claim.id));
            Call::ClaimWrite(self.stage.claim_applies.unwrap_or(false))
        }
        fn claim_written(&self, call: Call) -> impl Future<Output = Result<ConditionalWrite, String>> {
            let Call::ClaimWrite(applied) = call else { panic!("not a claim write") };
            ready(Ok(ConditionalWrite { applied, current_version: None }))
        }
        fn detach(&self, _call: Call) {
            self.stage.log("detached".to_owned());
        }
        fn span_texts(&self, span: &[usize]) -> Vec<String> {
            span.iter().map(|&index| "m".repeat(self.facts[index].content_units)).collect()
        }
        fn summary_content(&self, label: &str, text: String, pinned: &str) -> String {
            format!("{label}{text}{pinned}")
        }
        fn count_summary_tokens(&self, _content: &String) -> Result<f64, String> {
            Ok(1.0)
        }
        fn summary_entry(
            &self,
            candidate: &Candidate,
            _: &[usize],
            _: String,
            _: f64,
            _: Option<&str>,
            _: &Audit,
        ) -> String {
            candidate.summary_id()
        }
        fn has_store(&self) -> bool {
            true
        }
        fn put(&self, entry: &String) -> impl Future<Output = Result<(), String>> {
            self.stage.log(format!("put {entry}"));
            ready(Ok(()))
        }
        fn deliver(&self, outcome: Outcome<String>) -> Outcome<String> {
            outcome
        }
    }

    /// Six turns of one entry each, 400 units apiece: the first five fold,
    /// the last stays verbatim.
    fn visit_of(stage: &Rc<Stage>, identity: Option<&str>, reply: Reply) -> Running {
        let mut config = StageConfig::new(Shape::Callback);
        (config.trigger_min_entries, config.preserve_recent) = (4, 1);
        if stage.claim_applies.is_some() {
            config.claim_lease_ms = Some(60_000.0);
        }
        let facts =
            (1..=6).map(|turn| EntryFacts { turn: Some(turn as f64), content_units: 400, ..Default::default() });
        let ids = (1..=6).map(|turn| format!("msg-{turn}")).collect();
        let mock = Mock { stage: stage.clone(), config, facts: facts.collect(), ids, reply };
        match visit(mock, Ok(identity.map(str::to_owned))) {
            Visited::Now(outcome) => Box::pin(ready(outcome)),
            Visited::Later(future) => future,
        }
    }

    /// A visit, whether it settled at once or not.
    type Running = Pin<Box<dyn Future<Output = Outcome<String>>>>;

    fn poll(visit: &mut Running) -> Option<Outcome<String>> {
        match visit.as_mut().poll(&mut Context::from_waker(Waker::noop())) {
            Poll::Ready(outcome) => Some(outcome),
            Poll::Pending => None,
        }
    }

    fn settled(mut visit: Running) -> Outcome<String> {
        poll(&mut visit).expect("the visit settles without waiting")
    }

    fn reason(outcome: &Outcome<String>) -> &str {
        &outcome.settled.event.as_ref().expect("an event").reason
    }

    const UNCHANGED: [u32; 6] = [0, 1, 2, 3, 4, 5];

    #[test]
    fn a_fold_makes_one_call_writes_the_summary_and_keeps_the_tail() {
        let stage = Rc::new(Stage::default());
        let outcome = settled(visit_of(&stage, Some("alice"), Reply::Text("short".into())));
        assert_eq!(outcome.settled.recall, [NEW_SUMMARY_SLOT, 5]);
        assert_eq!(outcome.new_summary.as_deref(), Some("msg-summary-1-5"));
        assert_eq!(stage.calls(), ["summarize [0, 1, 2, 3, 4]", "put msg-summary-1-5"]);
    }

    #[test]
    fn runs_over_one_conversations_span_share_its_one_call() {
        let stage = Rc::new(Stage::default());
        let answer = Rc::new(RefCell::new(None));
        let mut leader = visit_of(&stage, Some("alice"), Reply::Later(answer.clone()));
        let mut follower = visit_of(&stage, Some("alice"), Reply::Later(answer.clone()));
        assert!(poll(&mut leader).is_none() && poll(&mut follower).is_none());
        *answer.borrow_mut() = Some("short".to_owned());
        let led = poll(&mut leader).expect("the leader folds once answered");
        let followed = poll(&mut follower).expect("the follower settles from the leader's outcome");
        assert_eq!(
            (led.settled.recall, followed.settled.recall.clone()),
            (vec![NEW_SUMMARY_SLOT, 5], vec![NEW_SUMMARY_SLOT, 5])
        );
        assert!(reason(&followed).contains("coalesced"), "{}", reason(&followed));
        assert_eq!(stage.calls(), ["summarize [0, 1, 2, 3, 4]", "put msg-summary-1-5"]);
    }

    #[test]
    fn another_conversation_or_one_without_a_key_makes_its_own_call() {
        let stage = Rc::new(Stage::default());
        let answer = Rc::new(RefCell::new(None));
        let mut visits: Vec<_> = [Some("alice"), Some("bob"), None, None]
            .into_iter()
            .map(|identity| visit_of(&stage, identity, Reply::Later(answer.clone())))
            .collect();
        visits.iter_mut().for_each(|visit| assert!(poll(visit).is_none()));
        assert_eq!(stage.calls().len(), 4, "{:?}", stage.calls());
    }

    #[test]
    fn a_span_another_process_claimed_makes_no_call_and_stays_verbatim() {
        let stage = Rc::new(Stage { claim_applies: Some(false), ..Stage::default() });
        let outcome = settled(visit_of(&stage, Some("alice"), Reply::Text("short".into())));
        assert_eq!(outcome.settled.recall, UNCHANGED);
        assert!(reason(&outcome).starts_with("summarized-elsewhere"), "{}", reason(&outcome));
        assert_eq!(stage.calls(), ["putIfVersion msg-summary-claim-1-5 over 0"]);
    }

    #[test]
    fn with_claims_the_call_is_made_once_the_claim_is_held() {
        let stage = Rc::new(Stage { claim_applies: Some(true), ..Stage::default() });
        let outcome = settled(visit_of(&stage, Some("alice"), Reply::Text("short".into())));
        assert_eq!(outcome.settled.recall, [NEW_SUMMARY_SLOT, 5]);
        let calls = ["putIfVersion msg-summary-claim-1-5 over 0", "summarize [0, 1, 2, 3, 4]", "put msg-summary-1-5"];
        assert_eq!(stage.calls(), calls);
    }

    #[test]
    fn a_failed_call_is_asked_again_next_turn_and_warns_once() {
        let stage = Rc::new(Stage::default());
        for _ in 0..2 {
            let outcome = settled(visit_of(&stage, Some("alice"), Reply::Fails("boom")));
            assert_eq!(outcome.settled.recall, UNCHANGED);
            assert!(reason(&outcome).contains("summarizer-failed"), "{}", reason(&outcome));
        }
        let calls = stage.calls();
        assert_eq!(calls.iter().filter(|call| call.starts_with("summarize")).count(), 2, "{calls:?}");
        assert_eq!(calls.iter().filter(|call| call.starts_with("warn: ")).count(), 1, "{calls:?}");
    }

    #[test]
    fn a_summary_that_is_not_smaller_latches_its_conversations_span_only() {
        let stage = Rc::new(Stage::default());
        let long = Reply::Text("x".repeat(5_000));
        let refused = settled(visit_of(&stage, Some("alice"), long.clone()));
        assert!(reason(&refused).contains("replacement-not-smaller"), "{}", reason(&refused));
        let again = settled(visit_of(&stage, Some("alice"), long.clone()));
        assert!(reason(&again).contains("not re-asked"), "{}", reason(&again));
        settled(visit_of(&stage, Some("bob"), long.clone()));
        settled(visit_of(&stage, None, long.clone()));
        settled(visit_of(&stage, None, long));
        let asked = stage.calls().iter().filter(|call| call.starts_with("summarize")).count();
        assert_eq!(asked, 4, "alice once, bob once, and each run without a key: {:?}", stage.calls());
    }
}
