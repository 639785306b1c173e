//! The module's single flights (`core::flight`), and a run's wait for its
//! leader's outcome, bounded by the join window.

use wasm_bindgen::JsValue;
use wasm_bindgen_futures::JsFuture;

use super::js;
use crate::core::decision::CallOutcome;
use crate::core::flight::Flights;
use crate::core::visit::Flight;

thread_local! {
    pub static FLIGHTS: Flights<CallOutcome<JsValue>> = const { Flights::new() };
}

/// The leader's outcome, once it is published; with `window_ms`, None once
/// the flight is that old.
pub async fn outcome(flight: &Flight<JsValue>, window_ms: Option<f64>) -> Option<CallOutcome<JsValue>> {
    let deadline = window_ms.map(|ms| js::deadline(flight.started_at() + ms - js_sys::Date::now(), &JsValue::TRUE));
    let outcome = flight.outcome(deadline.as_ref().map(|deadline| JsFuture::from(deadline.promise()))).await;
    if let Some(deadline) = deadline {
        deadline.clear();
    }
    outcome
}
