//! The visit's steps over a host that records every call into user code,
//! as one stage's visits share it: the flights, the latch, the warning.

use std::cell::{Cell, RefCell};
use std::future::{poll_fn, ready};
use std::task::{Context, Poll, Waker};

use super::*;
use crate::core::config::Shape;
use crate::core::decision::Slot;
use crate::core::events::Evidence;
use crate::core::span_bound::{Cut, SpanBound};

/// What the summarizer answers: a text, a failure, or (while the cell is
/// empty) nothing yet.
#[derive(Clone)]
enum Reply {
    Text(String),
    Fails(&'static str),
    Later(Rc<RefCell<Option<String>>>),
}

/// One stage's state between visits, and every call its visits made.
struct StageState {
    memory: Rc<Memory<String>>,
    warned: Cell<bool>,
    claims_noted: Cell<bool>,
    /// What `putIfVersion` answers; None for a store without one.
    claim_applies: Option<bool>,
    /// `background: true`, and the folds its visits left running.
    background: bool,
    background_folds: RefCell<Vec<Running>>,
    calls: RefCell<Vec<String>>,
}

impl Default for StageState {
    fn default() -> StageState {
        StageState {
            memory: Rc::new(Memory::new(|| [7, 11])),
            warned: Cell::default(),
            claims_noted: Cell::default(),
            claim_applies: None,
            background: false,
            background_folds: RefCell::default(),
            calls: RefCell::default(),
        }
    }
}

impl StageState {
    fn log(&self, call: String) {
        self.calls.borrow_mut().push(call);
    }

    fn calls(&self) -> Vec<String> {
        self.calls.borrow().clone()
    }
}

struct Mock {
    stage: Rc<StageState>,
    facts: Vec<EntryFacts>,
    reply: Reply,
}

impl Host for Mock {
    type Entry = String;
    type Text = String;
    type Writer = ();
    type Delivered = Outcome<String>;

    fn keep_span(&mut self, _span: &Rc<[usize]>, _facts: &[EntryFacts], cut_texts: Vec<(usize, String)>) {
        if !cut_texts.is_empty() {
            self.stage.log(format!("sends cut {cut_texts:?}"));
        }
    }
    fn span_texts(&self, span: &[usize]) -> Vec<String> {
        span.iter().map(|&index| "m".repeat(self.facts[index].content_units)).collect()
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
    fn timer(&self, _ms: f64) -> impl Future<Output = ()> + 'static {
        std::future::pending()
    }
    fn summarize(&self, span: &[usize]) -> Result<Called<String>, &'static str> {
        self.stage.log(format!("summarize {span:?}"));
        let reply = self.reply.clone();
        let answer = Box::pin(async move {
            let text = match reply {
                Reply::Text(text) => text,
                Reply::Fails(cause) => return Err(cause.to_owned()),
                Reply::Later(cell) => poll_fn(|_| cell.borrow().clone().map_or(Poll::Pending, Poll::Ready)).await,
            };
            Ok(Answer { copy: text.clone(), text, usage: None })
        });
        let sent_chars =
            MOCK_OVERHEAD as usize + span.iter().map(|&index| self.facts[index].content_units).sum::<usize>();
        Ok(Called { answer, sent_chars })
    }
    fn claim_writer(&self) -> Result<Option<()>, String> {
        Ok(self.stage.claim_applies.map(drop))
    }
    fn write_claim(
        &self,
        _: &Candidate,
        claim: &HeldClaim<()>,
        _ttl: f64,
        expected_version: f64,
    ) -> Pending<Result<ConditionalWrite, String>> {
        self.stage.log(format!("putIfVersion {} over {expected_version}", claim.id));
        let applied = self.stage.claim_applies.unwrap_or(false);
        Box::pin(ready(Ok(ConditionalWrite { applied, current_version: None })))
    }
    fn put(&self, entry: &String) -> Option<impl Future<Output = Result<(), String>>> {
        self.stage.log(format!("put {entry}"));
        Some(ready(Ok(())))
    }
    fn detach(&self, _call: Pending<Result<ConditionalWrite, String>>) {
        self.stage.log("detached".to_owned());
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
    fn deliver(&mut self, outcome: Outcome<String>) -> Outcome<String> {
        outcome
    }
    fn warn_once(&self, message: impl FnOnce() -> String) {
        if !self.stage.warned.replace(true) {
            self.stage.log(format!("warn: {}", message()));
        }
    }
    fn first_claims_note(&self) -> bool {
        !self.stage.claims_noted.replace(true)
    }
    fn free_latch_with_stage(&self) {}
}

/// What the mock's calls are sent besides the messages.
const MOCK_OVERHEAD: f64 = 100.0;

/// A callback's call in chars: the instruction, then each message whole,
/// or cut to its room (logged).
impl Sizer for Mock {
    fn overhead(&mut self, _: SpanBound) -> Result<f64, InvalidSpot> {
        Ok(MOCK_OVERHEAD)
    }
    fn entry(&mut self, _: SpanBound, index: usize, _: &EntryFacts, room: f64) -> Result<Option<f64>, InvalidSpot> {
        let units = self.facts[index].content_units as f64;
        Ok((units <= room).then_some(units))
    }
    fn cut(&mut self, _: SpanBound, index: usize, _: &EntryFacts, room: f64) -> Result<Option<Cut>, InvalidSpot> {
        self.stage.log(format!("cut {index} to {room}"));
        let units = self.facts[index].content_units;
        Ok(Some(Cut {
            index,
            id: format!("msg-{}", index + 1),
            text: format!("{index} cut"),
            cost: room,
            units,
            left_out: units.saturating_sub(room as usize),
        }))
    }
}

/// Six turns of one entry each, 400 units apiece: the first five fold,
/// the last stays verbatim.
fn visit_of(stage: &Rc<StageState>, identity: Option<&str>, reply: Reply) -> Running {
    visit_with(stage, identity, reply, 400, |_| {})
}

/// Six turns of one entry each, `units` apiece, under the config `tune` leaves.
fn visit_with(
    stage: &Rc<StageState>,
    identity: Option<&str>,
    reply: Reply,
    units: usize,
    tune: impl FnOnce(&mut StageConfig),
) -> Running {
    let mut config = StageConfig::new(Shape::Callback);
    (config.trigger_min_entries, config.preserve_recent) = (4, 1);
    if stage.claim_applies.is_some() {
        config.claim_lease_ms = Some(60_000.0);
    }
    config.background = stage.background;
    tune(&mut config);
    let facts: Vec<EntryFacts> = (1..=6)
        .map(|turn| EntryFacts { turn: Some(turn as f64), content_units: units, ..Default::default() })
        .collect();
    let id_keys = (1..=6).map(|turn| format!("msg-{turn}")).collect();
    let loaded = Loaded {
        len: facts.len(),
        facts: facts.clone(),
        id_keys,
        identity_key: Ok(identity.map(|identity| KeyText::default().part(identity))),
    };
    let mock = Mock { stage: stage.clone(), facts, reply };
    let of_stage = super::Stage { id: 1.0, config: Rc::new(config), memory: stage.memory.clone() };
    match visit(mock, of_stage, loaded) {
        Visited::Now(outcome) => Box::pin(ready(outcome)),
        Visited::Later(future) => future,
        Visited::Background { now, fold } => {
            stage.background_folds.borrow_mut().push(fold);
            Box::pin(ready(now))
        }
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

const UNCHANGED: [Slot; 6] =
    [Slot::Loaded(0), Slot::Loaded(1), Slot::Loaded(2), Slot::Loaded(3), Slot::Loaded(4), Slot::Loaded(5)];

#[test]
fn a_fold_makes_one_call_writes_the_summary_and_keeps_the_tail() {
    let stage = Rc::new(StageState::default());
    let outcome = settled(visit_of(&stage, Some("alice"), Reply::Text("short".into())));
    assert_eq!(outcome.settled.recall, [Slot::NewSummary, Slot::Loaded(5)]);
    assert_eq!(outcome.new_summary.as_deref(), Some("msg-summary-1-5"));
    assert_eq!(stage.calls(), ["summarize [0, 1, 2, 3, 4]", "put msg-summary-1-5"]);
}

#[test]
fn runs_over_one_conversations_span_share_its_one_call() {
    let stage = Rc::new(StageState::default());
    let answer = Rc::new(RefCell::new(None));
    let mut leader = visit_of(&stage, Some("alice"), Reply::Later(answer.clone()));
    let mut follower = visit_of(&stage, Some("alice"), Reply::Later(answer.clone()));
    assert!(poll(&mut leader).is_none() && poll(&mut follower).is_none());
    *answer.borrow_mut() = Some("short".to_owned());
    let led = poll(&mut leader).expect("the leader folds once answered");
    let followed = poll(&mut follower).expect("the follower settles from the leader's outcome");
    assert_eq!(
        (led.settled.recall, followed.settled.recall.clone()),
        (vec![Slot::NewSummary, Slot::Loaded(5)], vec![Slot::NewSummary, Slot::Loaded(5)])
    );
    assert!(reason(&followed).contains("coalesced"), "{}", reason(&followed));
    assert_eq!(stage.calls(), ["summarize [0, 1, 2, 3, 4]", "put msg-summary-1-5"]);
}

#[test]
fn another_conversation_or_one_without_a_key_makes_its_own_call() {
    let stage = Rc::new(StageState::default());
    let answer = Rc::new(RefCell::new(None));
    let mut visits: Vec<_> = [Some("alice"), Some("bob"), None, None]
        .into_iter()
        .map(|identity| visit_of(&stage, identity, Reply::Later(answer.clone())))
        .collect();
    visits.iter_mut().for_each(|visit| assert!(poll(visit).is_none()));
    assert_eq!(stage.calls().len(), 4, "{:?}", stage.calls());
}

#[test]
fn in_the_background_a_visit_returns_at_once_and_its_fold_ends_later() {
    let stage = Rc::new(StageState { background: true, ..StageState::default() });
    let answer = Rc::new(RefCell::new(None));
    let first = settled(visit_of(&stage, Some("alice"), Reply::Later(answer.clone())));
    assert_eq!(first.settled.recall, UNCHANGED, "recall as if the span had not been considered");
    let event = first.settled.event.as_ref().expect("an event");
    assert!(event.background && event.reason.starts_with("fold-in-background"), "{}", event.reason);
    // The conversation's fold is in flight: a later visit neither waits nor calls.
    let second = settled(visit_of(&stage, Some("alice"), Reply::Later(answer.clone())));
    assert!(reason(&second).contains("in flight in the background"), "{}", reason(&second));
    assert_eq!(second.settled.recall, UNCHANGED);
    let mut fold = stage.background_folds.borrow_mut().remove(0);
    assert!(poll(&mut fold).is_none(), "the fold waits for its answer");
    *answer.borrow_mut() = Some("short".to_owned());
    let folded = poll(&mut fold).expect("the fold ends once answered");
    let event = folded.settled.event.as_ref().expect("the fold's own event");
    assert!(event.background && event.reason.starts_with("folded"), "{}", event.reason);
    assert_eq!(stage.calls(), ["summarize [0, 1, 2, 3, 4]", "put msg-summary-1-5"]);
    // Ended: the next visit starts the conversation's next fold.
    settled(visit_of(&stage, Some("alice"), Reply::Text("short".into())));
    assert_eq!(stage.background_folds.borrow().len(), 1);
}

#[test]
fn in_the_background_a_visit_whose_identity_names_no_conversation_folds_within_its_turn() {
    let stage = Rc::new(StageState { background: true, ..StageState::default() });
    let outcome = settled(visit_of(&stage, None, Reply::Text("short".into())));
    assert_eq!(outcome.settled.recall, [Slot::NewSummary, Slot::Loaded(5)]);
    assert!(!outcome.settled.event.as_ref().expect("an event").background);
    assert!(stage.background_folds.borrow().is_empty(), "no fold left running");
}

#[test]
fn a_span_another_process_claimed_makes_no_call_and_stays_verbatim() {
    let stage = Rc::new(StageState { claim_applies: Some(false), ..StageState::default() });
    let outcome = settled(visit_of(&stage, Some("alice"), Reply::Text("short".into())));
    assert_eq!(outcome.settled.recall, UNCHANGED);
    assert!(reason(&outcome).starts_with("summarized-elsewhere"), "{}", reason(&outcome));
    assert_eq!(stage.calls(), ["putIfVersion msg-summary-claim-1-5 over 0"]);
}

#[test]
fn with_claims_the_call_is_made_once_the_claim_is_held() {
    let stage = Rc::new(StageState { claim_applies: Some(true), ..StageState::default() });
    let outcome = settled(visit_of(&stage, Some("alice"), Reply::Text("short".into())));
    assert_eq!(outcome.settled.recall, [Slot::NewSummary, Slot::Loaded(5)]);
    let calls = ["putIfVersion msg-summary-claim-1-5 over 0", "summarize [0, 1, 2, 3, 4]", "put msg-summary-1-5"];
    assert_eq!(stage.calls(), calls);
}

#[test]
fn a_failed_call_is_asked_again_next_turn_and_warns_once() {
    let stage = Rc::new(StageState::default());
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
    let stage = Rc::new(StageState::default());
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

#[test]
fn a_failed_call_without_a_bound_says_what_it_was_sent() {
    let stage = Rc::new(StageState::default());
    let outcome = settled(visit_of(&stage, Some("alice"), Reply::Fails("context length exceeded")));
    assert!(reason(&outcome).contains("the call was sent 2100 chars"), "{}", reason(&outcome));
    assert!(reason(&outcome).contains("set maxSpanChars"), "{}", reason(&outcome));
    assert!(reason(&outcome).ends_with("Cause: context length exceeded"), "{}", reason(&outcome));
}

fn bounded_chars(max: f64) -> impl FnOnce(&mut StageConfig) {
    move |config| config.max_span = Some(SpanBound { unit: crate::core::span_bound::BoundUnit::Chars, max })
}

#[test]
fn a_span_over_the_bound_folds_its_oldest_whole_turns_and_says_what_waits() {
    let stage = Rc::new(StageState::default());
    // Five turns of 6,000 fold without a bound; 16,000 of room takes two.
    let outcome =
        settled(visit_with(&stage, Some("alice"), Reply::Text("short".into()), 6_000, bounded_chars(16_100.0)));
    assert!(stage.calls().contains(&"summarize [0, 1]".to_owned()), "{:?}", stage.calls());
    let event = outcome.settled.event.as_ref().expect("an event");
    assert_eq!(outcome.settled.recall[0], Slot::NewSummary);
    assert_eq!(outcome.settled.recall.len(), 5, "the summary, three deferred turns and the tail");
    assert!(event.reason.contains("within maxSpanChars (16100)"), "{}", event.reason);
    assert!(event.reason.contains("3 entries after these (18000 chars) stay verbatim"), "{}", event.reason);
    let Evidence::Folded(folded) = &event.evidence else { panic!("{:?}", event.evidence) };
    let bound = folded.span_bound.as_ref().expect("spanBound");
    assert_eq!((bound.sent, bound.deferred_entries, bound.deferred_chars), (12_100.0, 3, 18_000));
    assert_eq!(folded.span_entries, 2);
}

#[test]
fn an_entry_past_the_bound_is_sent_cut_and_folds_whole() {
    let stage = Rc::new(StageState::default());
    let outcome =
        settled(visit_with(&stage, Some("alice"), Reply::Text("short".into()), 100_000, bounded_chars(8_100.0)));
    let calls = stage.calls();
    assert!(calls.contains(&"cut 0 to 8000".to_owned()) && calls.contains(&"summarize [0]".to_owned()), "{calls:?}");
    let event = outcome.settled.event.as_ref().expect("an event");
    let Evidence::Folded(folded) = &event.evidence else { panic!("{:?}", event.evidence) };
    assert_eq!(folded.span_chars, 100_000, "the summary stands for the whole entry");
    let cut = &folded.span_bound.as_ref().expect("spanBound").cut;
    assert_eq!((cut[0].id.as_str(), cut[0].chars, cut[0].left_out_chars), ("msg-1", 100_000, 92_000));
    assert!(event.reason.contains("1 message was sent cut, 92000 chars left out"), "{}", event.reason);
}

/// A fit may cut a message in a try it gives up on: only the cuts of the
/// fit it keeps are the call's.
#[test]
fn the_host_sends_cut_only_what_the_kept_fit_cut() {
    let stage = Rc::new(StageState::default());
    settled(visit_with(&stage, Some("alice"), Reply::Text("short".into()), 100_000, bounded_chars(8_100.0)));
    let sent_cut: Vec<String> = stage.calls().into_iter().filter(|call| call.starts_with("sends cut")).collect();
    assert_eq!(sent_cut, [r#"sends cut [(0, "0 cut")]"#]);
}

#[test]
fn a_bound_too_small_for_any_fold_declines_and_warns() {
    let stage = Rc::new(StageState::default());
    let outcome = settled(visit_of(&stage, Some("alice"), Reply::Text("short".into())));
    assert_eq!(outcome.settled.recall[0], Slot::NewSummary, "without a bound it folds");
    let stage = Rc::new(StageState::default());
    let tokens = |config: &mut StageConfig| {
        config.max_span = Some(SpanBound { unit: crate::core::span_bound::BoundUnit::Tokens, max: 400.0 })
    };
    let outcome = settled(visit_with(&stage, Some("alice"), Reply::Text("short".into()), 400, tokens));
    assert_eq!(outcome.settled.recall, UNCHANGED);
    assert!(reason(&outcome).starts_with("span-over-bound, no call made: maxSpanTokens (400)"), "{}", reason(&outcome));
    assert!(reason(&outcome).contains("raise maxSpanTokens to at least 2100"), "{}", reason(&outcome));
    let calls = stage.calls();
    assert!(!calls.iter().any(|call| call.starts_with("summarize")), "{calls:?}");
    assert_eq!(calls.iter().filter(|call| call.starts_with("warn: ")).count(), 1, "{calls:?}");
}
