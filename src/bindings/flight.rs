//! Single flight: concurrent runs over the same (identity, span) share one
//! summarizer call and one write. The first run leads; the others wait on
//! the flight's promise, then read the shared outcome here.

use std::cell::RefCell;

use js_sys::Promise;
use wasm_bindgen::JsValue;

use super::glue::{self, FlightSignal};
use crate::core::events::{Usage, WriteBack};

/// What the leading run's call came to, as every waiting run needs it.
#[derive(Clone)]
pub enum FlightOutcome {
    Failed { cause: String },
    NotSmaller { summary_chars: usize, usage: Option<Usage> },
    Folded { entry: JsValue, summary_chars: usize, write_back: WriteBack, usage: Option<Usage> },
}

#[derive(Default)]
pub struct Flight {
    outcome: RefCell<Option<FlightOutcome>>,
    /// Made when the first follower arrives: most flights have none.
    signal: RefCell<Option<FlightSignal>>,
}

impl Flight {
    /// Resolves once the leader has finished; then `outcome` is set.
    pub fn promise(&self) -> Promise {
        self.signal.borrow_mut().get_or_insert_with(glue::new_flight_signal).promise()
    }

    pub fn finish(&self, outcome: FlightOutcome) {
        *self.outcome.borrow_mut() = Some(outcome);
        let signal = self.signal.borrow_mut().take();
        if let Some(signal) = signal {
            signal.resolve();
        }
    }

    pub fn outcome(&self) -> Option<FlightOutcome> {
        self.outcome.borrow().clone()
    }
}
