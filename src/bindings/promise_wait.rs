//! Awaiting a JS promise so that one that can never settle holds nothing.
//!
//! `JsFuture` keeps its two callbacks from Rust, in the externref table, a
//! root JS cannot see past; so does a closure from `once_into_js` until it
//! is called; and wasm-bindgen-futures' task holds its own waker while it is
//! pending: a visit awaiting a summarizer that never answers would be kept,
//! with everything it read, for the life of the process. Here the promise's
//! reactions hold only a number (`glue.js` `onSettled`): when the promise
//! becomes garbage, JS's `FinalizationRegistry` reports the wait abandoned,
//! the visit goes on to its end, and its task is freed, as the original's
//! awaiting chain is garbage in the same case. A promise that settles
//! leaves nothing for a finalizer: a loop that never lets the event loop
//! turn (the soaks) keeps no memory either.

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

/// A promise's outcome: its value, or its rejection (None once abandoned).
pub struct PromiseWait {
    state: Rc<RefCell<State>>,
}

#[derive(Default)]
struct State {
    outcome: Option<Result<JsValue, Option<JsValue>>>,
    waker: Option<Waker>,
}

/// The waits whose promise has not settled yet, by the number their
/// promise's reactions hold; a freed number is given out again.
#[derive(Default)]
struct Waits {
    slots: Vec<Option<Rc<RefCell<State>>>>,
    free: Vec<u32>,
}

thread_local! {
    static WAITS: RefCell<Waits> = RefCell::default();
    /// `settle(id, fulfilled, value)`, one function for the instance;
    /// `fulfilled` undefined: abandoned.
    static SETTLE: JsValue = Closure::<dyn Fn(u32, Option<bool>, JsValue)>::new(settle).into_js_value();
}

impl PromiseWait {
    /// Waits on `promise` (a native one: `js::awaitable`), which alone holds the wait.
    pub fn of(promise: &Promise) -> PromiseWait {
        let state = Rc::new(RefCell::new(State::default()));
        let id = WAITS.with(|waits| {
            let Waits { slots, free } = &mut *waits.borrow_mut();
            let id = free.pop().unwrap_or_else(|| {
                slots.push(None);
                (slots.len() - 1) as u32
            });
            slots[id as usize] = Some(state.clone());
            id
        });
        SETTLE.with(|settle| js::on_settled(promise, id, settle));
        PromiseWait { state }
    }
}

/// The promise `id` settled (or, with no outcome, can never settle).
fn settle(id: u32, fulfilled: Option<bool>, value: JsValue) {
    let taken = WAITS.with(|waits| {
        let Waits { slots, free } = &mut *waits.borrow_mut();
        let state = slots.get_mut(id as usize).and_then(Option::take)?;
        free.push(id);
        Some(state)
    });
    let Some(state) = taken else {
        return;
    };
    // Woken after the borrow ends: the wake may poll the task.
    let waker = {
        let mut state = state.borrow_mut();
        state.outcome = Some(match fulfilled {
            Some(true) => Ok(value),
            Some(false) => Err(Some(value)),
            None => Err(None),
        });
        state.waker.take()
    };
    if let Some(waker) = waker {
        waker.wake();
    }
}

impl Future for PromiseWait {
    /// Err is the rejection, or None when the wait was abandoned.
    type Output = Result<JsValue, Option<JsValue>>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut state = self.state.borrow_mut();
        if let Some(outcome) = state.outcome.take() {
            return Poll::Ready(outcome);
        }
        state.waker = Some(cx.waker().clone());
        Poll::Pending
    }
}

impl Drop for PromiseWait {
    /// Nothing waits any more (a deadline ended first): its task is not kept.
    fn drop(&mut self) {
        self.state.borrow_mut().waker = None;
    }
}
