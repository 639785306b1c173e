#!/usr/bin/env node
// A visit's cost with many folds in flight: each conversation's summarizer
// never answers, so every visit leaves one fold in the air, as when a
// provider slows down. The median of a visit's time over the last 1,000
// visits, once 1,000 folds are in flight and once 30,000 are, blocking
// (each visit abandoned by its caller, no timeoutMs) and background
// (timeoutMs past the run). Exits 1 when 30,000 costs more than twice
// 1,000 in either mode. The original stage finds nothing of a pending call,
// so it stays flat; this stage finds its flights by key.
//
//   node bench/in-flight.mjs [path/to/module.mjs]

import { performance } from 'node:perf_hooks';

import { messageEntry } from '../tests/support/memory-pipeline.mjs';
import { loadSummarizeApi } from './load-api.mjs';

const { summarize } = await loadSummarizeApi(process.argv[2] ?? 'pkg/dist/index.mjs');
const COUNTS = [1_000, 30_000];
const SAMPLE = 1_000;
const LIMIT = 2;

/** One conversation's recall: 12 entries, past the trigger of 10. */
function recallOf(conversationId) {
  const identity = { tenant: 'in-flight', conversationId };
  const loaded = Array.from({ length: 12 }, (_, i) =>
    messageEntry({
      turn: Math.floor(i / 2) + 1,
      index: i % 2,
      message: { role: i % 2 ? 'assistant' : 'user', content: `#${conversationId} order #4411, turn ${i}: details follow.` },
      identity,
      at: 1_700_000_000_000 + i * 1000,
    }),
  );
  return { loaded, identity };
}

/** Median visit time, in ms, for the last `SAMPLE` visits before each count in `COUNTS`. */
async function medians(background) {
  const never = () => new Promise(() => {});
  const stage = summarize({
    llm: never,
    store: { put: async () => {} },
    triggerMinEntries: 10,
    preserveRecent: 4,
    ...(background ? { background: true, timeoutMs: 600_000 } : {}),
  });
  const times = [];
  const found = [];
  for (let conversation = 0; conversation < Math.max(...COUNTS); conversation += 1) {
    const { loaded, identity } = recallOf(`c${conversation}`);
    const started = performance.now();
    const visit = stage.fold(loaded, identity);
    if (background) await visit; // recall at once; the fold stays in the air
    times.push(performance.now() - started);
    if (COUNTS.includes(conversation + 1)) {
      const sorted = times.slice(-SAMPLE).sort((a, b) => a - b);
      found.push(sorted[sorted.length >> 1]);
    }
  }
  return found;
}

const warn = console.warn;
console.warn = () => {};
const rows = [];
for (const background of [false, true]) rows.push({ mode: background ? 'background' : 'blocking', medians: await medians(background) });
console.warn = warn;

console.log(`| folds in flight | ${COUNTS.map((count) => count.toLocaleString('en')).join(' | ')} | ratio | limit |`);
console.log(`| --- | ${COUNTS.map(() => '---').join(' | ')} | --- | --- |`);
let missed = false;
for (const { mode, medians: [few, many] } of rows) {
  const ratio = many / few;
  missed ||= ratio > LIMIT;
  console.log(`| ${mode}: median visit, ms | ${few.toFixed(4)} | ${many.toFixed(4)} | ${ratio.toFixed(2)}× | ≤ ${LIMIT}× |`);
}
console.log(missed ? 'verdict: a visit costs MORE with more folds in flight' : 'verdict: a visit costs the same with 30,000 folds in flight');
process.exit(missed ? 1 : 0);
