// The package entry, bundled by scripts/assemble-package.mjs into
// dist/index.mjs (ESM) and dist/index.cjs (CJS) with the Wasm bytes inlined,
// into dist/workerd.mjs, which imports the .wasm file as a module for
// runtimes that refuse to compile Wasm from bytes (Cloudflare Workers, edge
// runtimes), and into dist/browser.mjs, which fetches the .wasm beside it.
// `./wasm-init.js` is the one difference: the build points it at
// scripts/wasm-init-inline.mjs, wasm-init-module.mjs or wasm-init-url.mjs,
// each of which exports the compiled module. Every way, the module is ready
// when its import resolves, so `summarize(config)` can be called (and throw
// on a bad config) right after import, with no plugin and no async init step.
//
// `./instance.js` is wasm-bindgen's glue made into a function (see
// instanceFactory in assemble-package.mjs): when an instance fails, the
// bindings' guard (`./glue.js`) calls the hook below, which starts another
// from the same compiled module. Stages built before keep working on it.
import { compiledModule } from './wasm-init.js';
import { createInstance } from './instance.js';
import { HELPER_STACK, guardedExport, onInstanceFailure } from './glue.js';

function start() {
  const instance = createInstance();
  instance.initSync({ module: compiledModule });
  return instance;
}

let current = start();
// Retired first: should starting the fresh one fail (too little stack left,
// say), nothing of the failed one is called again while the glue tries anew.
onInstanceFailure(() => {
  current.retire();
  current = start();
});

/**
 * Calls `call` with the sound instance, under the guard: throws what keeps
 * it out (too little stack for `needed`, or no instance while none can be
 * made), and ends it when a call traps.
 */
function live(call, needed) {
  return guardedExport(() => call(current), needed);
}

export const { SUMMARY_ID_PREFIX, SUMMARY_COVERAGE_KEY, SUMMARY_FRAME_PREFIX } = current.summaryConstants();

export function summarize(config) {
  return live((instance) => instance.summarize(config));
}
export function summaryEntryId(fromTurn, toTurn) {
  return live((instance) => instance.summaryEntryId(fromTurn, toTurn), HELPER_STACK);
}
export function summaryCoverage(entry) {
  return live((instance) => instance.summaryCoverage(entry), HELPER_STACK);
}
export function isSummaryEntry(entry) {
  return live((instance) => instance.isSummaryEntry(entry), HELPER_STACK);
}
export function isSummaryClaim(entry) {
  return live((instance) => instance.isSummaryClaim(entry), HELPER_STACK);
}

/**
 * An offline, deterministic summarizer in the callback shape: keeps the
 * fact-carrying sentences, never invents text, stays within `maxChars`.
 * Options are checked now, so a bad budget throws here, not mid-turn.
 */
export function extractive(options) {
  const maxChars = live((instance) => instance.extractiveBudget(options));
  return async (messages) => live((instance) => instance.extractiveSummary(messages, maxChars));
}
