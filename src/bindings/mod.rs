//! The wasm-bindgen layer: reads JS values into the core's plain data, awaits
//! JS promises, writes the scope and emits events. No decisions live here.

mod allocator;
mod config;
mod evidence;
mod extractive;
pub use extractive::{extractive_budget, extractive_summary};
mod flight;
mod glue;
mod span_key;
mod stage;

use wasm_bindgen::prelude::*;

use crate::core::format::{summary_entry_id, SUMMARY_COVERAGE_KEY, SUMMARY_FRAME_PREFIX, SUMMARY_ID_PREFIX};

#[global_allocator]
static ALLOCATOR: allocator::SmallBlockCache = allocator::SmallBlockCache::new();

#[wasm_bindgen(start)]
fn start() {
    console_error_panic_hook::set_once();
}

/// Hands the core JS's own `String(x)` for the numbers it does not write
/// itself. Called by every entry point that may write a number (cheap after
/// the first call), so it holds however the module was started.
fn install_js_number_text() {
    crate::core::js_number::install_host_number_text(|x| js_string(&JsValue::from_f64(x)));
}

#[wasm_bindgen]
extern "C" {
    /// The global `String(value)` conversion.
    #[wasm_bindgen(js_name = String)]
    fn js_string(value: &JsValue) -> String;
}

/// `summarize(config)`: validates the config (throwing at once on a bad one)
/// and returns the stage function with `fold` attached.
#[wasm_bindgen]
pub fn summarize(config: JsValue) -> Result<JsValue, JsValue> {
    install_js_number_text();
    let config = config::read_config(&config).map_err(config::to_js_error)?;
    let stage = stage::SummarizeStage::new(config);
    let facts_from = stage.facts_from();
    Ok(glue::make_stage(stage.into(), facts_from))
}

/// `'msg-summary-' + String(from) + '-' + String(to)`.
#[wasm_bindgen(js_name = summaryEntryId)]
pub fn summary_entry_id_js(from_turn: JsValue, to_turn: JsValue) -> String {
    install_js_number_text();
    match (from_turn.as_f64(), to_turn.as_f64()) {
        (Some(from), Some(to)) => summary_entry_id(from, to),
        _ => format!("{SUMMARY_ID_PREFIX}{}-{}", js_string(&from_turn), js_string(&to_turn)),
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

/// The stable string constants, read once by the package entry.
#[wasm_bindgen(js_name = summaryConstants)]
pub fn summary_constants() -> Vec<JsValue> {
    [SUMMARY_ID_PREFIX, SUMMARY_COVERAGE_KEY, SUMMARY_FRAME_PREFIX].iter().map(|s| JsValue::from_str(s)).collect()
}
