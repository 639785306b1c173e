//! SPEC §7: the one `console.warn` a stage instance may print, for
//! whichever failure comes first. Every occurrence is also an event.

use crate::core::format::EVENT_TYPE;

pub fn summarizer_failed(strategy_id: &str, cause: &str) -> String {
    format!(
        "[footprint-summarize] {strategy_id}: the summarizer threw or failed (Cause: {cause}). Recall is served \
verbatim and the turn is not failed. Shown once per stage instance; every occurrence is on the {EVENT_TYPE} event."
    )
}

pub fn store_refused(strategy_id: &str, cause: &str) -> String {
    format!(
        "[footprint-summarize] {strategy_id}: the summary was not written back, the store refused it ({cause}). The fold \
was still used for this turn, but it is not persisted, so the next turn pays for it again. Shown once per stage instance; \
every occurrence is on the {EVENT_TYPE} event."
    )
}

pub fn claim_refused(strategy_id: &str, claim_id: &str, cause: &str) -> String {
    format!(
        "[footprint-summarize] {strategy_id}: the span was not claimed as {claim_id}, the store refused it ({cause}). \
No summarizer call was made and recall is served verbatim, so the turn goes on; a later turn claims it again. Shown once \
per stage instance; every occurrence is on the {EVENT_TYPE} event."
    )
}

pub fn recall_refused(strategy_id: &str, cause: &str) -> String {
    format!(
        "[footprint-summarize] {strategy_id}: scope.loaded refused the recall this visit settled to ({cause}), \
so the turn goes on with recall as loaded. Shown once per stage instance; every occurrence is on the {EVENT_TYPE} event."
    )
}

/// `waitUntil` threw when handed a background fold's promise: the fold
/// runs on, but the platform was not told of it (no event carries this).
pub fn wait_until_threw(strategy_id: &str, cause: &str) -> String {
    format!(
        "[footprint-summarize] {strategy_id}: waitUntil threw when handed a background fold's promise ({cause}), so \
the platform was not told of the fold, and a serverless function may be frozen before it ends. Fix: pass a bound \
function, e.g. waitUntil: ctx.waitUntil.bind(ctx). Shown once per stage instance."
    )
}

/// A decline that is the input's fault (invalid entries, a broken clock): its reason says it all.
pub fn declined(strategy_id: &str, reason: &str) -> String {
    format!("[footprint-summarize] {strategy_id}: {reason}")
}
