//! Single flight: concurrent runs of one stage over the same (identity, span)
//! share one summarizer call. The first run leads; the others wait for its
//! outcome, woken through std's `Waker` (no JS promise between).
//!
//! A flight is found by its stage and its [`FlightKey`]: a span's, or with
//! `background: true` a conversation's, which keeps the conversation to one
//! fold in the air whatever span it folds. It exists only while its call
//! and write are in the air: the registry is one map for the module, so a
//! visit finds, starts and ends a flight at the same cost however many are
//! in the air (a server whose provider slows down piles folds up;
//! `bench/in-flight.mjs` holds it). The outcome is published as soon as it is known, before the
//! summary's write-back: waiting runs go on then, and a run that arrives
//! during the write settles from the published summary at once, so a store
//! that is slow (or never answers) holds no run but the leader's own. Runs
//! join a flight only on an equal full key (`span_key_text`: the same
//! identity text and the same ids), never on a hash. Without `timeoutMs`, a
//! run joins only a flight younger than the join window, and waits at most
//! until the flight is that old (`JOIN_WINDOW_MS`; the bindings time the
//! wait): a call that never settles holds the runs that joined it for a
//! minute, never later turns, and the registry forgets it then (a call that
//! never settles is the leader's alone to hold). With `timeoutMs`, the
//! leader's own deadlines bound every wait.

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, VecDeque};
use std::rc::{Rc, Weak};
use std::task::{Poll, Waker};

/// What a flight keeps to one call, within its stage.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum FlightKey {
    /// A span's full key (`span_key_text`: the identity and every span
    /// id): runs over the same span share its call.
    Span(Rc<str>),
    /// With `background: true`, a conversation's (its identity's key): the
    /// conversation has one fold in the air, and a later visit that finds
    /// it neither waits nor calls.
    Conversation(Rc<str>),
}

/// A flight's place in the registry: its stage's id (as bits) and its key.
type Registered = (u64, FlightKey);

/// One leader's call over one span, and its outcome once published.
pub struct Flight<T> {
    registered: Registered,
    /// The span's full key: the span its outcome latches, whatever key the
    /// flight is found by.
    span: Rc<str>,
    /// When the leader started, in wall-clock ms.
    started_at: f64,
    /// Past this (the join window's end), no run joins it and the registry
    /// forgets it, unless its outcome is out.
    joinable_until: Option<f64>,
    outcome: RefCell<Option<T>>,
    /// The newest `toTurn` of a summary a run that found this flight
    /// loaded (`background`: a fold never writes over a newer summary).
    newest_summary_seen: Cell<f64>,
    /// The waiting runs, woken when the outcome is published (most flights have none).
    waiters: RefCell<Vec<Waker>>,
}

/// Every flight in the air.
pub struct Flights<T> {
    by_key: RefCell<HashMap<Registered, Rc<Flight<T>>>>,
    /// The flights with a join window, oldest first: each start forgets
    /// those whose window has passed, from the front, so a flight that
    /// never ends leaves the map without a scan of it.
    windowed: RefCell<VecDeque<Weak<Flight<T>>>>,
}

impl<T> Default for Flights<T> {
    fn default() -> Flights<T> {
        Flights { by_key: RefCell::default(), windowed: RefCell::default() }
    }
}

impl<T: Clone> Flights<T> {
    /// This stage's flight with exactly this key (the same full text) that
    /// a run may wait on at `now`: one whose outcome is out already (no
    /// wait), or, with a `window_ms`, one younger than that.
    pub fn find(&self, stage_id: f64, key: &FlightKey, now: f64) -> Option<Rc<Flight<T>>> {
        let by_key = self.by_key.borrow();
        by_key.get(&(stage_id.to_bits(), key.clone())).filter(|flight| flight.joinable_at(now)).cloned()
    }

    /// Registers the leader's flight over the span with full key `span`,
    /// found by `key`, started at `now`, which runs may join for
    /// `window_ms` (for as long as it is in the air without one), and
    /// forgets the flights no run may join any more.
    pub fn start(
        &self,
        stage_id: f64,
        key: FlightKey,
        span: Rc<str>,
        now: f64,
        window_ms: Option<f64>,
    ) -> Rc<Flight<T>> {
        self.forget_unjoinable(now);
        let registered = (stage_id.to_bits(), key);
        let flight = Rc::new(Flight {
            registered: registered.clone(),
            span,
            started_at: now,
            joinable_until: window_ms.map(|ms| now + ms),
            outcome: RefCell::new(None),
            newest_summary_seen: Cell::new(f64::NEG_INFINITY),
            waiters: RefCell::new(Vec::new()),
        });
        if window_ms.is_some() {
            self.windowed.borrow_mut().push_back(Rc::downgrade(&flight));
        }
        // A flight of the same key that no run may join any more is replaced.
        self.by_key.borrow_mut().insert(registered, flight.clone());
        flight
    }

    /// Ends the flight: later runs over the span start their own.
    pub fn finish(&self, flight: &Rc<Flight<T>>) {
        let mut by_key = self.by_key.borrow_mut();
        if by_key.get(&flight.registered).is_some_and(|current| Rc::ptr_eq(current, flight)) {
            by_key.remove(&flight.registered);
        }
    }

    /// Forgets, oldest first, the flights whose join window has passed by
    /// `now` and whose outcome is not out (one that is out ends with its
    /// leader's write).
    fn forget_unjoinable(&self, now: f64) {
        loop {
            let front = self.windowed.borrow().front().cloned();
            let Some(front) = front else { return };
            match front.upgrade() {
                Some(flight) if flight.joinable_until.is_some_and(|until| now < until) => return,
                Some(flight) if flight.published().is_none() => self.finish(&flight),
                _ => {}
            }
            self.windowed.borrow_mut().pop_front();
        }
    }
}

impl<T: Clone> Flight<T> {
    pub fn stage_id(&self) -> f64 {
        f64::from_bits(self.registered.0)
    }

    /// The full key of the span the flight folds.
    pub fn span(&self) -> &str {
        &self.span
    }

    pub fn started_at(&self) -> f64 {
        self.started_at
    }

    /// Notes the newest `toTurn` of a summary in a later run's recall.
    pub fn saw_summary_up_to(&self, to_turn: f64) {
        self.newest_summary_seen.set(self.newest_summary_seen.get().max(to_turn));
    }

    /// The newest `toTurn` of a summary a later run loaded (-∞ for none).
    pub fn newest_summary_seen(&self) -> f64 {
        self.newest_summary_seen.get()
    }

    /// Whether a run may wait on it at `now`: its outcome is out already
    /// (no wait), or it is within its join window.
    fn joinable_at(&self, now: f64) -> bool {
        self.joinable_until.is_none_or(|until| now < until) || self.published().is_some()
    }

    /// Publishes the outcome: waiting runs go on, and later ones settle from it.
    pub fn publish(&self, outcome: T) {
        *self.outcome.borrow_mut() = Some(outcome);
        let waiters = std::mem::take(&mut *self.waiters.borrow_mut());
        for waiter in waiters {
            waiter.wake();
        }
    }

    /// The published outcome, if there is one yet.
    pub fn published(&self) -> Option<T> {
        self.outcome.borrow().clone()
    }

    /// The outcome once it is published. Each poll borrows only for its
    /// own check: nothing is borrowed across the wait.
    pub async fn outcome(&self) -> T {
        std::future::poll_fn(|cx| match self.published() {
            Some(outcome) => Poll::Ready(outcome),
            None => {
                self.wake_on_publish(cx.waker());
                Poll::Pending
            }
        })
        .await
    }

    /// Has `waker` woken when the outcome is published (a waiting run's
    /// task, which then finds it with [`Flight::published`]).
    fn wake_on_publish(&self, waker: &Waker) {
        self.waiters.borrow_mut().push(waker.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::future::Future;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::Arc;
    use std::task::Wake;

    struct Count(AtomicUsize);

    fn span(text: &str) -> FlightKey {
        FlightKey::Span(text.into())
    }

    /// Starts a span flight.
    fn start(flights: &Flights<u32>, stage_id: f64, text: &str, now: f64, window_ms: Option<f64>) -> Rc<Flight<u32>> {
        flights.start(stage_id, span(text), text.into(), now, window_ms)
    }

    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn runs_join_only_the_same_stage_and_key_within_the_window() {
        let flights = Flights::<u32>::default();
        let leader = start(&flights, 1.0, "5:alice2:m1", 1_000.0, Some(60_000.0));
        assert!(flights.find(1.0, &span("5:alice2:m1"), 2_000.0).is_some());
        assert!(flights.find(2.0, &span("5:alice2:m1"), 2_000.0).is_none(), "another stage");
        assert!(flights.find(1.0, &span("3:bob2:m1"), 2_000.0).is_none(), "another conversation");
        assert!(flights.find(1.0, &span("5:alice2:m1"), 61_000.0).is_none(), "past the window");
        let timed = start(&flights, 1.0, "5:carol2:m1", 1_000.0, None);
        assert!(flights.find(1.0, &span("5:carol2:m1"), 1e12).is_some(), "no window with timeoutMs");
        leader.publish(7);
        assert_eq!(flights.find(1.0, &span("5:alice2:m1"), 61_000.0).and_then(|f| f.published()), Some(7));
        flights.finish(&leader);
        flights.finish(&timed);
        assert!(flights.find(1.0, &span("5:alice2:m1"), 2_000.0).is_none(), "finished");
    }

    #[test]
    fn the_registry_forgets_a_flight_that_never_ends_once_its_window_has() {
        let flights = Flights::<u32>::default();
        let hung = start(&flights, 1.0, "hung", 0.0, Some(60_000.0));
        let published = start(&flights, 1.0, "writing", 0.0, Some(60_000.0));
        published.publish(1);
        let _later = start(&flights, 1.0, "later", 60_000.0, Some(60_000.0));
        let mut keys: Vec<String> = flights.by_key.borrow().values().map(|f| f.span().to_owned()).collect();
        keys.sort();
        assert_eq!(keys, ["later", "writing"], "the hung flight is forgotten; one whose outcome is out is not");
        assert_eq!(Rc::strong_count(&hung), 1, "only its leader holds it");
    }

    #[test]
    fn a_conversation_flight_is_found_by_the_conversation_alone_and_latches_its_span() {
        let flights = Flights::<u32>::default();
        let conversation = FlightKey::Conversation("5:alice".into());
        let fold = flights.start(1.0, conversation.clone(), "5:alice2:m1".into(), 0.0, None);
        assert!(flights.find(1.0, &conversation, 1.0).is_some());
        assert!(flights.find(1.0, &span("5:alice"), 1.0).is_none(), "a span key of the same text is another key");
        assert!(flights.find(1.0, &span("5:alice2:m1"), 1.0).is_none(), "its span is not a span flight");
        assert_eq!(fold.span(), "5:alice2:m1");
        flights.finish(&fold);
        assert!(flights.find(1.0, &conversation, 1.0).is_none());
    }

    #[test]
    fn publishing_wakes_every_waiting_run_once() {
        let flights = Flights::<u32>::default();
        let flight = start(&flights, 1.0, "k", 0.0, None);
        let count = Arc::new(Count(AtomicUsize::new(0)));
        let waker = Waker::from(count.clone());
        flight.wake_on_publish(&waker);
        flight.wake_on_publish(&waker);
        assert_eq!(flight.published(), None);
        flight.publish(3);
        assert_eq!(count.0.load(Ordering::SeqCst), 2);
        assert_eq!(flight.published(), Some(3));
        flight.publish(4);
        assert_eq!(count.0.load(Ordering::SeqCst), 2, "no waiter is left to wake");
    }

    #[test]
    fn a_run_waits_for_the_outcome_until_its_window_expires() {
        let flights = Flights::<u32>::default();
        let flight = start(&flights, 1.0, "k", 0.0, None);
        let mut cx = std::task::Context::from_waker(Waker::noop());
        let never = std::future::pending::<()>();
        let mut waiting = std::pin::pin!(crate::core::deadline::before(never, flight.outcome()));
        assert_eq!(waiting.as_mut().poll(&mut cx), Poll::Pending);
        flight.publish(5);
        assert_eq!(waiting.as_mut().poll(&mut cx), Poll::Ready(Some(5)));
        let late = start(&flights, 1.0, "k2", 0.0, None);
        let ended = std::future::ready(());
        let mut expired = std::pin::pin!(crate::core::deadline::before(ended, late.outcome()));
        assert_eq!(expired.as_mut().poll(&mut cx), Poll::Ready(None), "the window ended first");
    }
}
