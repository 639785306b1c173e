//! Single flight: concurrent runs of one stage over the same (identity, span)
//! share one summarizer call. The first run leads; the others wait for its
//! outcome, woken through std's `Waker` (no JS promise between).
//!
//! A flight exists only while its call and write are in the air: the
//! registry is one list for the module, keyed by stage id and the span's
//! full key. The outcome is published as soon as it is known, before the
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
use std::rc::Rc;
use std::task::{Poll, Waker};

/// One leader's call over one span, and its outcome once published.
pub struct Flight<T> {
    stage_id: f64,
    /// The span's full key.
    key: String,
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
    flights: RefCell<Vec<Rc<Flight<T>>>>,
}

impl<T> Default for Flights<T> {
    fn default() -> Flights<T> {
        Flights { flights: RefCell::default() }
    }
}

impl<T: Clone> Flights<T> {
    /// The flight of this stage over exactly this span (the same full key)
    /// that a run may wait on at `now`: one whose outcome is out already (no
    /// wait), or, with a `window_ms`, one younger than that.
    pub fn find(&self, stage_id: f64, key: &str, now: f64) -> Option<Rc<Flight<T>>> {
        self.flights.borrow().iter().find(|f| f.stage_id == stage_id && f.key == key && f.joinable_at(now)).cloned()
    }

    /// Registers the leader's flight, started at `now`, which runs may join
    /// for `window_ms` (for as long as it is in the air without one), and
    /// forgets the flights no run may join any more.
    pub fn start(&self, stage_id: f64, key: String, now: f64, window_ms: Option<f64>) -> Rc<Flight<T>> {
        let flight = Rc::new(Flight {
            stage_id,
            key,
            started_at: now,
            joinable_until: window_ms.map(|ms| now + ms),
            outcome: RefCell::new(None),
            newest_summary_seen: Cell::new(f64::NEG_INFINITY),
            waiters: RefCell::new(Vec::new()),
        });
        let mut flights = self.flights.borrow_mut();
        flights.retain(|other| other.joinable_at(now));
        flights.push(flight.clone());
        flight
    }

    /// Ends the flight: later runs over the span start their own.
    pub fn finish(&self, flight: &Rc<Flight<T>>) {
        self.flights.borrow_mut().retain(|other| !Rc::ptr_eq(other, flight));
    }
}

impl<T: Clone> Flight<T> {
    pub fn stage_id(&self) -> f64 {
        self.stage_id
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

    impl Wake for Count {
        fn wake(self: Arc<Self>) {
            self.0.fetch_add(1, Ordering::SeqCst);
        }
    }

    #[test]
    fn runs_join_only_the_same_stage_and_key_within_the_window() {
        let flights = Flights::<u32>::default();
        let leader = flights.start(1.0, "5:alice2:m1".into(), 1_000.0, Some(60_000.0));
        assert!(flights.find(1.0, "5:alice2:m1", 2_000.0).is_some());
        assert!(flights.find(2.0, "5:alice2:m1", 2_000.0).is_none(), "another stage");
        assert!(flights.find(1.0, "3:bob2:m1", 2_000.0).is_none(), "another conversation");
        assert!(flights.find(1.0, "5:alice2:m1", 61_000.0).is_none(), "past the window");
        let timed = flights.start(1.0, "5:carol2:m1".into(), 1_000.0, None);
        assert!(flights.find(1.0, "5:carol2:m1", 1e12).is_some(), "no window with timeoutMs");
        leader.publish(7);
        assert_eq!(flights.find(1.0, "5:alice2:m1", 61_000.0).and_then(|f| f.published()), Some(7));
        flights.finish(&leader);
        flights.finish(&timed);
        assert!(flights.find(1.0, "5:alice2:m1", 2_000.0).is_none(), "finished");
    }

    #[test]
    fn the_registry_forgets_a_flight_that_never_ends_once_its_window_has() {
        let flights = Flights::<u32>::default();
        let hung = flights.start(1.0, "hung".into(), 0.0, Some(60_000.0));
        let published = flights.start(1.0, "writing".into(), 0.0, Some(60_000.0));
        published.publish(1);
        let _later = flights.start(1.0, "later".into(), 60_000.0, Some(60_000.0));
        let keys: Vec<String> = flights.flights.borrow().iter().map(|f| f.key.clone()).collect();
        assert_eq!(keys, ["writing", "later"], "the hung flight is forgotten; one whose outcome is out is not");
        assert_eq!(Rc::strong_count(&hung), 1, "only its leader holds it");
    }

    #[test]
    fn publishing_wakes_every_waiting_run_once() {
        let flights = Flights::<u32>::default();
        let flight = flights.start(1.0, "k".into(), 0.0, None);
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
        let flight = flights.start(1.0, "k".into(), 0.0, None);
        let mut cx = std::task::Context::from_waker(Waker::noop());
        let never = std::future::pending::<()>();
        let mut waiting = std::pin::pin!(crate::core::deadline::before(never, flight.outcome()));
        assert_eq!(waiting.as_mut().poll(&mut cx), Poll::Pending);
        flight.publish(5);
        assert_eq!(waiting.as_mut().poll(&mut cx), Poll::Ready(Some(5)));
        let late = flights.start(1.0, "k2".into(), 0.0, None);
        let ended = std::future::ready(());
        let mut expired = std::pin::pin!(crate::core::deadline::before(ended, late.outcome()));
        assert_eq!(expired.as_mut().poll(&mut cx), Poll::Ready(None), "the window ended first");
    }
}
