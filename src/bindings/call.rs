//! Calls into the user's summarizer and store, awaited as Rust futures.
//!
//! A call is started synchronously (`Started::call`), so the stage has made
//! its summarizer call before it returns its promise, as the original's async
//! function does; `answer` awaits it under an optional deadline. Nothing here
//! throws: a sync throw, a rejection and a timeout all become `Err(cause)`.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};

use js_sys::{Array, Function, JsString};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::js::{self, AbortController, Callee, ConditionalWriteAnswer, Deadline, ProviderResponse, UsageCounts};
use super::promise_wait::{PromiseWait, ABANDONED};
use crate::core::deadline;
use crate::core::events::Usage;
use crate::core::format::is_blank;
use crate::core::js_number::js_number_to_string;
use crate::core::visit::{Answer, ConditionalWrite};

/// A call in the air. One that threw at once is settled as failed only when
/// awaited, like a rejection: until then it holds its span's flight, so runs
/// started meanwhile wait for it instead of calling again.
pub struct Started {
    answer: Result<PromiseWait, String>,
    /// `timeoutMs`, timed from the call.
    deadline: Option<(f64, Timer)>,
    /// Aborted past the deadline: a provider's own request stops too.
    controller: Option<AbortController>,
}

/// `target.name`, read through its getter (`Callee::complete` and the
/// like), as a function to call; or why it cannot be.
pub fn method(target: &JsValue, name: &str, get: fn(&Callee) -> Result<JsValue, JsValue>) -> Result<Function, String> {
    function_of(get(target.unchecked_ref()), name)
}

/// What a getter of `name` read, as a function to call; or why it cannot be.
pub fn function_of(read: Result<JsValue, JsValue>, name: &str) -> Result<Function, String> {
    let value = read.map_err(|error| format!("reading {name} threw: {}", js::cause_of(&error)))?;
    // `typeof` (not `instanceof`): a function from another realm is a function too.
    if value.is_function() {
        Ok(value.unchecked_into())
    } else {
        Err(format!("{name} is {}, not a function", js::describe(&value)))
    }
}

impl Started {
    /// Calls `function` on `this` with `args` now (a throw is caught by
    /// js-sys, so nothing unwinds through Wasm), under `timeout_ms`; past it
    /// `controller` is aborted.
    pub fn call(
        this: &JsValue,
        function: Result<Function, String>,
        args: &Array,
        timeout_ms: Option<f64>,
        controller: Option<AbortController>,
    ) -> Started {
        let value = function.and_then(|function| function.apply(this, args).map_err(|error| js::cause_of(&error)));
        let answer = value.map(|value| PromiseWait::of(&js::awaitable(&value)));
        let deadline = timeout_ms.filter(|_| answer.is_ok()).map(|ms| (ms, Timer::new(ms)));
        Started { answer, deadline, controller }
    }

    /// What the call resolved to, or why it failed.
    pub async fn answer(self) -> Result<JsValue, String> {
        let answer = self.answer?;
        let settled = match self.deadline {
            Some((ms, timer)) => deadline::before(timer, answer).await.ok_or(ms),
            None => Ok(answer.await),
        };
        match settled {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(Some(error))) => Err(js::cause_of(&error)),
            Ok(Err(None)) => Err(ABANDONED.to_owned()),
            Err(ms) => {
                let cause = format!("timed out after {} ms", js_number_to_string(ms));
                if let Some(controller) = &self.controller {
                    controller.abort(&js_sys::Error::new(&cause));
                }
                Err(cause)
            }
        }
    }
}

/// A host timer (a call's `timeoutMs`, a join window): ends after its
/// time; dropped before then, it stops, so no timer outlives what waits on it.
pub struct Timer {
    deadline: Deadline,
    ended: PromiseWait,
}

impl Timer {
    pub fn new(ms: f64) -> Timer {
        let deadline = js::deadline(ms);
        let ended = PromiseWait::of(&deadline.promise());
        Timer { deadline, ended }
    }
}

impl Future for Timer {
    type Output = ();

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        Pin::new(&mut self.ended).poll(cx).map(drop)
    }
}

impl Drop for Timer {
    fn drop(&mut self) {
        self.deadline.clear();
    }
}

/// A provider's response: `{ content, usage? }`.
pub fn provider_answer(response: JsValue) -> Result<Answer<JsString>, String> {
    if !response.is_object() {
        return Err(format!("the provider resolved to {} instead of a response object", js::describe(&response)));
    }
    let fields: &ProviderResponse = response.unchecked_ref();
    let (text, copy) = text(fields.content().map_err(|error| js::cause_of(&error))?)?;
    let usage = fields.usage().map_err(|error| js::cause_of(&error))?;
    let usage = usage.is_object().then(|| {
        let counts: &UsageCounts = usage.unchecked_ref();
        // A count that cannot be read is left out, as a missing one is.
        let count = |read: Result<JsValue, JsValue>| read.ok().and_then(|n| n.as_f64()).filter(|n| n.is_finite());
        Usage { input: count(counts.input()), output: count(counts.output()) }
    });
    Ok(Answer { text, copy, usage })
}

/// What a store's `putIfVersion` resolved to: `{ applied, currentVersion? }`.
pub fn conditional_write_answer(answer: JsValue) -> Result<ConditionalWrite, String> {
    let unreadable = |error: JsValue| js::cause_of(&error);
    let fields: &ConditionalWriteAnswer = answer.unchecked_ref();
    let applied = if answer.is_object() { fields.applied().map_err(unreadable)?.as_bool() } else { None };
    let Some(applied) = applied else {
        return Err(format!(
            "the store's putIfVersion resolved to {} instead of {{ applied: boolean, currentVersion? }}",
            js::describe(&answer)
        ));
    };
    let current_version = fields.current_version().map_err(unreadable)?.as_f64().filter(|n| n.is_finite());
    Ok(ConditionalWrite { applied, current_version })
}

/// A callback's answer: the summary text itself.
pub fn callback_answer(value: JsValue) -> Result<Answer<JsString>, String> {
    let (text, copy) = text(value)?;
    Ok(Answer { text, copy, usage: None })
}

/// The summary's text, and its copy. A blank one is a failed call: folded, it
/// would leave the label alone in place of the span, for as long as the
/// summary stands.
fn text(value: JsValue) -> Result<(JsString, String), String> {
    let text = value
        .dyn_into::<JsString>()
        .map_err(|value| format!("the summarizer returned {} instead of a string", js::describe(&value)))?;
    let copy = String::from(&text);
    if is_blank(&copy) {
        return Err(format!("the summarizer returned {} with no text to fold", js::describe(&text)));
    }
    Ok((text, copy))
}

/// What a synchronous user function (`now`, `countTokens`) returned, when it
/// is a number `accept` takes; otherwise what it gave instead, as an event
/// names it (`nothing (it threw: …)` for a throw).
pub fn number_returned(returned: Result<JsValue, JsValue>, accept: impl Fn(f64) -> bool) -> Result<f64, String> {
    match returned {
        Ok(value) => value.as_f64().filter(|&n| accept(n)).ok_or_else(|| js::describe(&value)),
        Err(error) => Err(format!("nothing (it threw: {})", js::cause_of(&error))),
    }
}
