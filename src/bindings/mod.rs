//! The wasm-bindgen layer: reads JS values into the core's plain data, awaits
//! JS promises, writes the scope and emits events. No decisions live here.

mod call;
mod config;
mod extractive;
pub use extractive::{extractive_budget, extractive_summary};
mod flight;
mod glue;
mod handle;
mod latches;
mod output;
mod visit;

use std::cell::Cell;

use wasm_bindgen::prelude::*;

use crate::core::format::{summary_entry_id, SUMMARY_COVERAGE_KEY, SUMMARY_FRAME_PREFIX, SUMMARY_ID_PREFIX};
use handle::StageHandle;

#[wasm_bindgen(start)]
fn start() {
    console_error_panic_hook::set_once();
}

#[wasm_bindgen]
extern "C" {
    /// The global `String(value)` conversion; it throws for a value with no
    /// string form (an object without a prototype).
    #[wasm_bindgen(js_name = String, catch)]
    fn js_string(value: &JsValue) -> Result<String, JsValue>;
}

thread_local! {
    /// The stage and `stage.fold` entry points, as the JS functions every
    /// stage function calls: made once for the module, not once per stage.
    static RUN: JsValue = Closure::<dyn Fn(StageHandle, JsValue) -> JsValue>::new(visit::run).into_js_value();
    static FOLD: JsValue =
        Closure::<dyn Fn(StageHandle, JsValue, JsValue) -> JsValue>::new(visit::fold).into_js_value();
    static NEXT_STAGE_ID: Cell<f64> = const { Cell::new(0.0) };
}

/// `summarize(config)`: validates the config (throwing at once on a bad one)
/// and returns the stage function with `fold` attached.
#[wasm_bindgen]
pub fn summarize(config: JsValue) -> Result<JsValue, JsValue> {
    let id = NEXT_STAGE_ID.with(|next| next.replace(next.get() + 1.0));
    let handle = config::handle_for(&config, id).map_err(config::to_js_error)?;
    let lease_ms = config::check(&handle.settings()).map_err(config::to_js_error)?;
    config::check_keys(&handle).map_err(config::to_js_error)?;
    // Only a stage with claims on carries a lease (one crossing fewer per build otherwise).
    if let Some(lease_ms) = lease_ms {
        handle.set_lease_ms(lease_ms);
    }
    Ok(RUN.with(|run| FOLD.with(|fold| glue::make_stage(&handle, run, fold))))
}

/// `'msg-summary-' + String(from) + '-' + String(to)`.
#[wasm_bindgen(js_name = summaryEntryId)]
pub fn summary_entry_id_js(from_turn: JsValue, to_turn: JsValue) -> Result<String, JsValue> {
    match (from_turn.as_f64(), to_turn.as_f64()) {
        (Some(from), Some(to)) => Ok(summary_entry_id(from, to)),
        _ => Ok(format!("{SUMMARY_ID_PREFIX}{}-{}", js_string(&from_turn)?, js_string(&to_turn)?)),
    }
}

/// The coverage object a summary entry carries, or undefined.
#[wasm_bindgen(js_name = summaryCoverage)]
pub fn summary_coverage(entry: JsValue) -> JsValue {
    glue::coverage_of(&entry)
}

#[wasm_bindgen(js_name = isSummaryEntry)]
pub fn is_summary_entry(entry: JsValue) -> bool {
    !glue::coverage_of(&entry).is_undefined()
}

/// Whether an entry is a fleet's claim on a span (`metadata.summaryClaim`)
/// and not a summary: what the stage leaves out of recall.
#[wasm_bindgen(js_name = isSummaryClaim)]
pub fn is_summary_claim(entry: JsValue) -> bool {
    glue::claim_entry(&entry)
}

/// The stable string constants, read once by the package entry.
#[wasm_bindgen(js_name = summaryConstants)]
pub fn summary_constants() -> Vec<JsValue> {
    [SUMMARY_ID_PREFIX, SUMMARY_COVERAGE_KEY, SUMMARY_FRAME_PREFIX].iter().map(|s| JsValue::from_str(s)).collect()
}
