//! Single flight: concurrent runs over the same (identity, span) share one
//! summarizer call and one write. The first run leads; the others await the
//! shared outcome here. Borrows are taken only between awaits.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use wasm_bindgen::JsValue;

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
    waiting: RefCell<Vec<Waker>>,
}

impl Flight {
    pub fn finish(&self, outcome: FlightOutcome) {
        *self.outcome.borrow_mut() = Some(outcome);
        for waker in self.waiting.borrow_mut().drain(..) {
            waker.wake();
        }
    }

    pub fn wait(self: Rc<Self>) -> WaitForFlight {
        WaitForFlight(self)
    }
}

pub struct WaitForFlight(Rc<Flight>);

impl Future for WaitForFlight {
    type Output = FlightOutcome;

    fn poll(self: Pin<&mut Self>, context: &mut Context<'_>) -> Poll<FlightOutcome> {
        if let Some(outcome) = self.0.outcome.borrow().as_ref() {
            return Poll::Ready(outcome.clone());
        }
        self.0.waiting.borrow_mut().push(context.waker().clone());
        Poll::Pending
    }
}
