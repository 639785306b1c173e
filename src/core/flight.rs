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
//! minute, never later turns. With `timeoutMs`, the leader's own deadlines
//! bound every wait.

use std::cell::RefCell;
use std::rc::Rc;
use std::task::{Poll, Waker};

/// One leader's call over one span, and its outcome once published.
pub struct Flight<T> {
    stage_id: f64,
    /// The span's full key.
    key: String,
    /// When the leader started, in wall-clock ms.
    started_at: f64,
    outcome: RefCell<Option<T>>,
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
    pub fn find(&self, stage_id: f64, key: &str, window_ms: Option<f64>, now: f64) -> Option<Rc<Flight<T>>> {
        let joinable = |f: &Flight<T>| window_ms.is_none_or(|ms| now - f.started_at < ms) || f.published().is_some();
        self.flights.borrow().iter().find(|f| f.stage_id == stage_id && f.key == key && joinable(f)).cloned()
    }

    /// Registers the leader's flight, started at `now`.
    pub fn start(&self, stage_id: f64, key: String, now: f64) -> Rc<Flight<T>> {
        let flight = Rc::new(Flight {
            stage_id,
            key,
            started_at: now,
            outcome: RefCell::new(None),
            waiters: RefCell::new(Vec::new()),
        });
        self.flights.borrow_mut().push(flight.clone());
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

    pub fn key(&self) -> &str {
        &self.key
    }

    pub fn started_at(&self) -> f64 {
        self.started_at
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
        let leader = flights.start(1.0, "5:alice2:m1".into(), 1_000.0);
        assert!(flights.find(1.0, "5:alice2:m1", Some(60_000.0), 2_000.0).is_some());
        assert!(flights.find(2.0, "5:alice2:m1", Some(60_000.0), 2_000.0).is_none(), "another stage");
        assert!(flights.find(1.0, "3:bob2:m1", Some(60_000.0), 2_000.0).is_none(), "another conversation");
        assert!(flights.find(1.0, "5:alice2:m1", Some(60_000.0), 61_000.0).is_none(), "past the window");
        assert!(flights.find(1.0, "5:alice2:m1", None, 1e12).is_some(), "no window with timeoutMs");
        leader.publish(7);
        assert_eq!(flights.find(1.0, "5:alice2:m1", Some(60_000.0), 61_000.0).and_then(|f| f.published()), Some(7));
        flights.finish(&leader);
        assert!(flights.find(1.0, "5:alice2:m1", None, 2_000.0).is_none(), "finished");
    }

    #[test]
    fn publishing_wakes_every_waiting_run_once() {
        let flights = Flights::<u32>::default();
        let flight = flights.start(1.0, "k".into(), 0.0);
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
        let flight = flights.start(1.0, "k".into(), 0.0);
        let mut cx = std::task::Context::from_waker(Waker::noop());
        let never = std::future::pending::<()>();
        let mut waiting = std::pin::pin!(crate::core::deadline::before(never, flight.outcome()));
        assert_eq!(waiting.as_mut().poll(&mut cx), Poll::Pending);
        flight.publish(5);
        assert_eq!(waiting.as_mut().poll(&mut cx), Poll::Ready(Some(5)));
        let late = flights.start(1.0, "k2".into(), 0.0);
        let ended = std::future::ready(());
        let mut expired = std::pin::pin!(crate::core::deadline::before(ended, late.outcome()));
        assert_eq!(expired.as_mut().poll(&mut cx), Poll::Ready(None), "the window ended first");
    }
}
