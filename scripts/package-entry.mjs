// The package entry, bundled by scripts/assemble-package.mjs into
// dist/index.mjs (ESM) and dist/index.cjs (CJS) with the Wasm bytes inlined.
// Instantiating synchronously at import is what lets `summarize(config)` be
// called (and throw on a bad config) right after import, in Node, in a
// browser <script type="module">, and inside any bundle, with no plugin and
// no async init step.
import {
  initSync,
  summarize,
  summaryEntryId,
  summaryCoverage,
  isSummaryEntry,
  summaryConstants,
  extractiveBudget,
  extractiveSummary,
} from './footprint_summarize.js';
import { WASM_BASE64 } from './wasm-bytes.js';

function decodeBase64(base64) {
  // Native decoders first: at import time every millisecond is cold start.
  if (typeof Uint8Array.fromBase64 === 'function') return Uint8Array.fromBase64(base64);
  if (typeof Buffer === 'function') return Buffer.from(base64, 'base64');
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

initSync({ module: decodeBase64(WASM_BASE64) });

const [idPrefix, coverageKey, framePrefix] = summaryConstants();
export const SUMMARY_ID_PREFIX = idPrefix;
export const SUMMARY_COVERAGE_KEY = coverageKey;
export const SUMMARY_FRAME_PREFIX = framePrefix;
export { summarize, summaryEntryId, summaryCoverage, isSummaryEntry };

/**
 * An offline, deterministic summarizer in the callback shape: keeps the
 * fact-carrying sentences, never invents text, stays within `maxChars`.
 * Options are checked now, so a bad budget throws here, not mid-turn.
 */
export function extractive(options) {
  const maxChars = extractiveBudget(options);
  return async (messages) => extractiveSummary(messages, maxChars);
}
