//! The wasm-bindgen layer: reads JS values into the core's plain data, awaits
//! JS promises, writes the scope and emits events. No decisions live here.

mod call;
mod call_input;
mod config;
mod extractive;
pub use extractive::{extractive_budget, extractive_summary};
mod host;
mod identity;
mod js;
mod memory;
mod output;
mod promise_wait;
mod recall;
mod stage;
mod tokens;

use std::cell::Cell;

use wasm_bindgen::prelude::*;

use crate::core::config::ConfigError;
use crate::core::format::summary_entry_id_of;
use crate::core::shapes::SUMMARY_CONSTANTS;
use crate::core::visit;
use stage::StageHandle;

/// What an export (or entry point) returns when it returns a JS value: always
/// `Ok`. As a `Result`, wasm-bindgen returns it as several Wasm values, and
/// V8 never inlines such a call into the JS that makes it. A call inlined
/// there that returns a single reference crashes the process on Node 20 and
/// 22 (their V8 cannot rebuild that result) when the calling JS is
/// deoptimized during the call, which any getter, `$emit` or summarizer the
/// stage runs can cause (tests/js/deopt.test.mjs).
type NotInlined<T> = Result<T, JsValue>;

#[wasm_bindgen(start)]
fn start() {
    console_error_panic_hook::set_once();
    register_entry_points();
}

/// Makes this instance the one every stage runs on (`useEntryPoints` in
/// glue.js), once: as it starts, and, where nothing runs its start function
/// (the Wasm test suites), when its first stage is built.
fn register_entry_points() {
    if !REGISTERED.replace(true) {
        RUN.with(|run| FOLD.with(|fold| js::use_entry_points(run, fold)));
    }
}

thread_local! {
    /// The stage and `stage.fold` entry points, as the JS functions every
    /// stage function calls: made once for the instance, not once per stage.
    static RUN: JsValue = Closure::<dyn Fn(StageHandle, JsValue) -> NotInlined<js_sys::Promise>>::new(
        |stage, scope| Ok(match host::read_scope(stage, scope) {
            Ok(read) => host::promise_of(visit::visit(read.host, read.stage, read.loaded), read.background),
            Err(rejected) => rejected,
        })
    ).into_js_value();
    static FOLD: JsValue = Closure::<dyn Fn(StageHandle, JsValue, JsValue) -> NotInlined<js_sys::Promise>>::new(
        |stage, loaded, identity| Ok(match host::read_fold(stage, loaded, identity) {
            Ok(read) => host::promise_of(visit::visit(read.host, read.stage, read.loaded), read.background),
            Err(rejected) => rejected,
        })
    ).into_js_value();
    static REGISTERED: Cell<bool> = const { Cell::new(false) };
}

/// What an export throws on purpose: a refused config or option, or the
/// exception a caller's value threw. It is named to glue.js's guard as it
/// leaves (`From`), since the guard takes anything else an export throws for
/// a failure that unwound through the instance. Any error Rust holds as a
/// value was caught (a `catch` import) or made here, so each converts: an
/// exception that unwinds through the instance never becomes a value.
#[derive(Debug)]
pub struct Refusal(JsValue);

impl From<JsValue> for Refusal {
    fn from(error: JsValue) -> Refusal {
        Refusal(error)
    }
}

impl From<ConfigError> for Refusal {
    fn from(error: ConfigError) -> Refusal {
        Refusal(config::to_js_error(error))
    }
}

impl From<Refusal> for JsValue {
    fn from(Refusal(error): Refusal) -> JsValue {
        js::refuse(error)
    }
}

/// `summarize(config)`: validates the config (throwing at once on a bad one)
/// and returns the stage function with `fold` attached.
#[wasm_bindgen]
pub fn summarize(config: JsValue) -> Result<JsValue, Refusal> {
    let (copy, plain) = config::checked_copy(&config)?;
    register_entry_points();
    let handle = StageHandle::new(&copy, js::next_stage_id(), plain);
    Ok(js::make_stage(&handle))
}

/// `'msg-summary-' + String(from) + '-' + String(to)`.
#[wasm_bindgen(js_name = summaryEntryId)]
pub fn summary_entry_id_js(from_turn: JsValue, to_turn: JsValue) -> Result<String, Refusal> {
    Ok(summary_entry_id_of(&String::from(js::js_string(&from_turn)?), &String::from(js::js_string(&to_turn)?)))
}

/// The coverage object a summary entry carries, or undefined.
#[wasm_bindgen(js_name = summaryCoverage)]
pub fn summary_coverage(entry: JsValue) -> NotInlined<JsValue> {
    Ok(recall::coverage_of(&entry))
}

#[wasm_bindgen(js_name = isSummaryEntry)]
pub fn is_summary_entry(entry: JsValue) -> bool {
    !recall::coverage_of(&entry).is_undefined()
}

/// Whether an entry is a fleet's claim on a span (`metadata.summaryClaim`)
/// and not a summary: what the stage leaves out of recall.
#[wasm_bindgen(js_name = isSummaryClaim)]
pub fn is_summary_claim(entry: JsValue) -> bool {
    recall::is_claim(&entry)
}

/// The stable string constants (`SUMMARY_CONSTANTS`), read once by the package entry.
#[wasm_bindgen(js_name = summaryConstants)]
pub fn summary_constants() -> NotInlined<JsValue> {
    Ok(output::to_js(&SUMMARY_CONSTANTS))
}
