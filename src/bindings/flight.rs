//! Single flight: concurrent runs of one stage over the same (identity, span)
//! share one summarizer call. The first run leads; the others' futures wait
//! for its outcome (woken through std's `Waker`, no JS promise between).
//!
//! A flight exists only while its call and write are in the air: the
//! registry is one list for the module, keyed by stage id and the span's
//! full key. The outcome is published as soon as it is known, before the
//! summary's write-back: waiting runs go on then, and a run that arrives
//! during the write settles from the published summary at once, so a store
//! that is slow (or never answers) holds no run but the leader's own. Runs
//! join a flight only on an equal full key (`span_key_text`: the same
//! identity text and the same ids), never on a hash. Without `timeoutMs`, a
//! run joins only a flight younger than the join window and waits at most
//! until the flight is that old (`JOIN_WINDOW_MS`): a call that never
//! settles holds the runs that joined it for a minute, never later turns.
//! With `timeoutMs`, the leader's own deadlines bound every wait.

use std::cell::RefCell;
use std::rc::Rc;

use std::future::Future;
use std::pin::Pin;
use std::task::{Poll, Waker};

use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;

use super::js;

use crate::core::decision::CallOutcome;

pub struct Flight {
    stage_id: f64,
    /// The span's full key.
    key: String,
    /// When the leader started, in wall-clock ms (`Date.now()`).
    started_at: f64,
    outcome: RefCell<Option<CallOutcome<JsValue>>>,
    /// The waiting runs' futures, woken when the outcome is published (most
    /// flights have none).
    waiters: RefCell<Vec<Waker>>,
}

thread_local! {
    static FLIGHTS: RefCell<Vec<Rc<Flight>>> = const { RefCell::new(Vec::new()) };
}

/// The flight of this stage over exactly this span (the same full key)
/// that a run may wait on: one whose outcome is out already (no wait), or,
/// with a `window_ms`, one younger than that.
pub fn find(stage_id: f64, key: &str, window_ms: Option<f64>) -> Option<Rc<Flight>> {
    let now = js_sys::Date::now();
    let joinable = |f: &Flight| window_ms.is_none_or(|ms| now - f.started_at < ms) || f.published().is_some();
    FLIGHTS
        .with_borrow(|flights| flights.iter().find(|f| f.stage_id == stage_id && f.key == key && joinable(f)).cloned())
}

/// Registers the leader's flight.
pub fn start(stage_id: f64, key: String) -> Rc<Flight> {
    let flight = Rc::new(Flight {
        stage_id,
        key,
        started_at: js_sys::Date::now(),
        outcome: RefCell::new(None),
        waiters: RefCell::new(Vec::new()),
    });
    FLIGHTS.with_borrow_mut(|flights| flights.push(flight.clone()));
    flight
}

impl Flight {
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The leader's outcome, once it is published; with `window_ms`, None
    /// once the flight is that old. Each poll borrows only for its own
    /// check, so nothing is borrowed across the wait.
    pub async fn outcome(&self, window_ms: Option<f64>) -> Option<CallOutcome<JsValue>> {
        let deadline = window_ms.map(|ms| js::deadline(self.started_at + ms - js_sys::Date::now(), &JsValue::TRUE));
        let mut expired = deadline.as_ref().map(|deadline| JsFuture::from(deadline.promise()));
        let outcome = std::future::poll_fn(|cx| {
            if let Some(outcome) = self.published() {
                return Poll::Ready(Some(outcome));
            }
            if expired.as_mut().is_some_and(|expired| Pin::new(expired).poll(cx).is_ready()) {
                return Poll::Ready(None);
            }
            self.waiters.borrow_mut().push(cx.waker().clone());
            Poll::Pending
        })
        .await;
        if let Some(deadline) = deadline {
            deadline.clear();
        }
        outcome
    }

    /// Publishes the outcome: waiting runs go on, and later ones settle from it.
    pub fn publish(&self, outcome: CallOutcome<JsValue>) {
        *self.outcome.borrow_mut() = Some(outcome);
        let waiters = std::mem::take(&mut *self.waiters.borrow_mut());
        for waiter in waiters {
            waiter.wake();
        }
    }

    /// Ends the flight: later runs over the span start their own.
    pub fn finish(self: &Rc<Flight>) {
        FLIGHTS.with_borrow_mut(|flights| flights.retain(|other| !Rc::ptr_eq(other, self)));
    }

    /// The published outcome, if there is one yet.
    pub fn published(&self) -> Option<CallOutcome<JsValue>> {
        self.outcome.borrow().clone()
    }
}
