// The package entry, bundled by scripts/assemble-package.mjs into
// dist/index.mjs (ESM) and dist/index.cjs (CJS) with the Wasm bytes inlined,
// into dist/workerd.mjs, which imports the .wasm file as a module for
// runtimes that refuse to compile Wasm from bytes (Cloudflare Workers, edge
// runtimes), and into dist/browser.mjs, which fetches the .wasm beside it.
// `./wasm-init.js` is the one difference: the build points it at
// scripts/wasm-init-inline.mjs, wasm-init-module.mjs or wasm-init-url.mjs.
// Every way, the module is ready when its import resolves, so
// `summarize(config)` can be called (and throw on a bad config) right after
// import, with no plugin and no async init step.
import './wasm-init.js';
import {
  summarize,
  summaryEntryId,
  summaryCoverage,
  isSummaryEntry,
  isSummaryClaim,
  summaryConstants,
  extractiveBudget,
  extractiveSummary,
} from './footprint_summarize.js';

const [idPrefix, coverageKey, framePrefix] = summaryConstants();
export const SUMMARY_ID_PREFIX = idPrefix;
export const SUMMARY_COVERAGE_KEY = coverageKey;
export const SUMMARY_FRAME_PREFIX = framePrefix;
export { summarize, summaryEntryId, summaryCoverage, isSummaryEntry, isSummaryClaim };

/**
 * An offline, deterministic summarizer in the callback shape: keeps the
 * fact-carrying sentences, never invents text, stays within `maxChars`.
 * Options are checked now, so a bad budget throws here, not mid-turn.
 */
export function extractive(options) {
  const maxChars = extractiveBudget(options);
  return async (messages) => extractiveSummary(messages, maxChars);
}
