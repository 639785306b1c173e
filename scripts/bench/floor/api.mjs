// The floor probe (src/lib.rs) behind the summarize API, so scripts/bench.mjs
// times it as a subject: the fold-callback case only. The span is read here,
// in plain JS, the cheapest place, by the benchmark's own seam rule. The
// helpers the benchmark's checks call are the baseline's own.
import { readFileSync } from 'node:fs';
import { fold, initSync } from '../../../target/floor-probe/pkg/floor_probe.js';
import { foldSpanLength } from '../workloads.mjs';

initSync({ module: readFileSync(new URL('../../../target/floor-probe/pkg/floor_probe_bg.wasm', import.meta.url)) });

export {
  summaryEntryId,
  summaryCoverage,
  isSummaryEntry,
  SUMMARY_ID_PREFIX,
  SUMMARY_COVERAGE_KEY,
  SUMMARY_FRAME_PREFIX,
} from '../reference-original.mjs';

export function summarize({ llm, preserveRecent = 5, ...rest }) {
  if (typeof llm !== 'function' || Object.keys(rest).length > 0) {
    throw new Error(`the floor probe folds with a callback \`llm\` only; it was given ${Object.keys(rest).join(', ') || 'a provider'}`);
  }
  return (scope) => fold(llm, scope, spanOf(scope.loaded, preserveRecent));
}

/** The span before the verbatim tail, as `Span` in lib.rs reads it. */
function spanOf(loaded, preserveRecent) {
  const splitAt = foldSpanLength(loaded, preserveRecent);
  const messages = new Array(splitAt + 1);
  const ids = new Array(splitAt);
  for (let i = 0; i < splitAt; i++) {
    messages[i + 1] = loaded[i].value;
    ids[i] = loaded[i].id;
  }
  const fromTurn = loaded[0].source.turn;
  return { messages, ids, fromTurn, toTurn: loaded[splitAt - 1].source.turn, tail: loaded.slice(splitAt) };
}
