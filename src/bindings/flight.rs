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
//! identity text and the same ids), never on a hash.

use std::cell::RefCell;
use std::rc::Rc;

use std::task::{Poll, Waker};

use wasm_bindgen::JsValue;

use crate::core::events::{Usage, WriteBack};

/// What the leading run's call came to, as every waiting run needs it.
#[derive(Clone)]
pub enum FlightOutcome {
    /// Another process holds the fleet's claim on the span: no call was made.
    ClaimedElsewhere,
    /// The store failed to take the claim: no call was made.
    ClaimFailed {
        cause: String,
    },
    /// The span's entries could not be read again to make the call: none was made.
    Unreadable {
        what: &'static str,
    },
    Failed {
        cause: String,
    },
    NotSmaller {
        summary_chars: usize,
        usage: Option<Usage>,
    },
    Folded {
        entry: JsValue,
        summary_chars: usize,
        write_back: WriteBack,
        usage: Option<Usage>,
    },
}

pub struct Flight {
    stage_id: f64,
    /// The span's full key.
    key: String,
    outcome: RefCell<Option<FlightOutcome>>,
    /// The waiting runs' futures, woken when the outcome is published (most
    /// flights have none).
    waiters: RefCell<Vec<Waker>>,
}

thread_local! {
    static FLIGHTS: RefCell<Vec<Rc<Flight>>> = const { RefCell::new(Vec::new()) };
}

/// The flight of this stage over exactly this span: the same full key.
pub fn find(stage_id: f64, key: &str) -> Option<Rc<Flight>> {
    FLIGHTS.with_borrow(|flights| flights.iter().find(|f| f.stage_id == stage_id && f.key == key).cloned())
}

/// Registers the leader's flight.
pub fn start(stage_id: f64, key: String) -> Rc<Flight> {
    let flight = Rc::new(Flight { stage_id, key, outcome: RefCell::new(None), waiters: RefCell::new(Vec::new()) });
    FLIGHTS.with_borrow_mut(|flights| flights.push(flight.clone()));
    flight
}

impl Flight {
    pub fn key(&self) -> &str {
        &self.key
    }

    /// The leader's outcome, once it is published. Each poll borrows only
    /// for its own check, so nothing is borrowed across the wait.
    pub async fn outcome(&self) -> FlightOutcome {
        std::future::poll_fn(|cx| match self.published() {
            Some(outcome) => Poll::Ready(outcome),
            None => {
                self.waiters.borrow_mut().push(cx.waker().clone());
                Poll::Pending
            }
        })
        .await
    }

    /// Publishes the outcome: waiting runs go on, and later ones settle from it.
    pub fn publish(&self, outcome: FlightOutcome) {
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
    pub fn published(&self) -> Option<FlightOutcome> {
        self.outcome.borrow().clone()
    }
}
