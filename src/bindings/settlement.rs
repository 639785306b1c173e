//! Awaiting a JS promise so that one that can never settle holds nothing.
//!
//! `JsFuture` keeps its two callbacks from Rust, so JS never sees them as
//! garbage, and wasm-bindgen-futures' task holds its own waker while it is
//! pending: a visit awaiting a summarizer that never answers is kept, with
//! everything it read, for the life of the process. Here JS owns the one
//! callback. When the promise it waits on becomes garbage (nothing can
//! settle it any more), JS collects the callback, and dropping it ends the
//! wait as abandoned: the visit goes on to its end and its task is freed,
//! as the original's awaiting chain is garbage in the same case.

use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use js_sys::Promise;
use wasm_bindgen::prelude::*;

use super::js;

/// What the cause of an abandoned wait says.
pub const ABANDONED: &str =
    "its promise can never settle: nothing holds it any more (it was garbage-collected unsettled)";

/// A promise's outcome: its value, or what its rejection (or abandonment) says.
pub struct Settlement {
    state: Rc<RefCell<State>>,
}

#[derive(Default)]
struct State {
    outcome: Option<Result<JsValue, JsValue>>,
    abandoned: bool,
    waker: Option<Waker>,
}

impl Settlement {
    /// Waits on `promise` (a native one: `js::awaitable`). Nothing here
    /// holds the promise: only its reaction holds this wait.
    pub fn of(promise: &Promise) -> Settlement {
        let state = Rc::new(RefCell::new(State::default()));
        let reaction = Reaction(state.clone());
        // `into_js_value`, not `once_into_js`, which keeps its closure from
        // Rust until it is called: only JS may hold this one.
        let callback = Closure::once(move |fulfilled: bool, value: JsValue| {
            reaction.settle(|state| state.outcome = Some(if fulfilled { Ok(value) } else { Err(value) }));
        })
        .into_js_value();
        js::on_settled(promise, &callback);
        Settlement { state }
    }
}

impl Future for Settlement {
    /// Err is the rejection, or None when the wait was abandoned.
    type Output = Result<JsValue, Option<JsValue>>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut state = self.state.borrow_mut();
        if let Some(outcome) = state.outcome.take() {
            return Poll::Ready(outcome.map_err(Some));
        }
        if state.abandoned {
            return Poll::Ready(Err(None));
        }
        state.waker = Some(cx.waker().clone());
        Poll::Pending
    }
}

/// The promise's side of the wait, owned by JS through its callback.
struct Reaction(Rc<RefCell<State>>);

impl Reaction {
    fn settle(&self, record: impl FnOnce(&mut State)) {
        // Woken after the borrow ends: the wake may poll, or free, the task.
        let waker = {
            let mut state = self.0.borrow_mut();
            record(&mut state);
            state.waker.take()
        };
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

impl Drop for Reaction {
    /// Collected uncalled: the promise is garbage, so the wait is abandoned.
    fn drop(&mut self) {
        let settled = self.0.borrow().outcome.is_some();
        if !settled {
            self.settle(|state| state.abandoned = true);
        }
    }
}
