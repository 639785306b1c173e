//! Single flight: concurrent runs over the same (identity, span) share one
//! summarizer call and one write. The first run leads; the others wait on
//! the flight's promise, then read the shared outcome here.

use std::cell::{Cell, RefCell};

use js_sys::Promise;
use wasm_bindgen::JsValue;

use super::glue::{self, FlightSignal};
use super::span_key::SpanSource;
use crate::core::events::{Usage, WriteBack};
use crate::core::latch::SpanKey;

/// What the leading run's call came to, as every waiting run needs it.
#[derive(Clone)]
pub enum FlightOutcome {
    Failed { cause: String },
    NotSmaller { summary_chars: usize, usage: Option<Usage> },
    Folded { entry: JsValue, summary_chars: usize, write_back: WriteBack, usage: Option<Usage> },
}

pub struct Flight {
    source: SpanSource,
    /// The leader's span key, once something has needed it.
    key: Cell<Option<SpanKey>>,
    outcome: RefCell<Option<FlightOutcome>>,
    /// Made when the first follower arrives: most flights have none.
    signal: RefCell<Option<FlightSignal>>,
}

impl Flight {
    /// `key` when the leader has read it already; else it is read on demand.
    pub fn new(source: SpanSource, key: Option<SpanKey>) -> Flight {
        Flight { source, key: Cell::new(key), outcome: RefCell::new(None), signal: RefCell::new(None) }
    }

    pub fn is_keyed(&self) -> bool {
        self.source.is_keyed()
    }

    pub fn span_len(&self) -> usize {
        self.source.span.len()
    }

    /// The leader's span key, read on first need; only for a keyed span.
    pub fn key(&self) -> SpanKey {
        let key = self.key.get().unwrap_or_else(|| self.source.key());
        self.key.set(Some(key));
        key
    }

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
