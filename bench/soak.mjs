#!/usr/bin/env node
// Soak benchmark for footprint-summarize. Not a test: it measures
// whether one long-lived stage instance keeps its memory flat.
//
//   node bench/soak.mjs                          1,000,000 recalls, 10,000 conversations
//   node bench/soak.mjs --runs 100000 --conversations 1000
//   options: --every N (report interval, default 100,000 or runs/10)
//            --warmup N (baseline mark, default 200,000 or runs/5)
//            --active N (conversations open at once, default 64)
//            --concurrency N (recalls started together, default 8)
//
// Workload: ONE stage instance serves every recall. `--active` conversations
// are open at a time and visited round-robin; each lives for runs/conversations
// visits, then ends (its stored data is dropped) and a new conversation takes
// its place, so all `--conversations` pass through the one instance. Each
// visit adds a turn (two entries) and recalls the last RECALL_LIMIT raw
// entries plus that conversation's stored summaries, the way loadRecent does;
// every fourth visit recalls the same turn again (a retry), which meets the
// latch and the stored coverage. Early visits are below the trigger; later
// ones fold with an instant summarizer and write the summary back. Three
// conversations in ten get a summarizer that answers longer than the span, so
// their spans are refused and latched: a new latch key on most visits, far
// past the latch's bound. Each batch also re-runs one recall concurrently, so
// single flight is exercised. Ids repeat across conversations, as in real
// stores. Every recall builds fresh entry objects and the store only holds the
// open conversations' newest summaries, so the JS side is bounded and the
// numbers measure the package.
//
// Measuring Wasm memory: the package does not expose its WebAssembly.Memory,
// so the benchmark's probe (bench/wasm-probe.mjs) watches the instantiation
// at import; `wasm` below is exactly that linear memory's byte length.
// Node counts Wasm memory in `external`, not in `arrayBuffers`. Every sample is taken after a forced full GC.
//
// Verdict: memory must not grow after warm-up. Between the warm-up mark and
// the last mark, Wasm linear memory may grow at most WASM_GROWTH_TOLERANCE
// (allocator slack: memory grows in 64 KiB pages and never shrinks) and the JS
// heap at most HEAP_GROWTH_TOLERANCE (GC noise). Exit code 1 otherwise.

import { parseArgs } from 'node:util';
import { watchWebAssembly } from './wasm-probe.mjs';
import { messageEntry } from '../tests/support/memory-pipeline.mjs';
import v8 from 'node:v8';
import vm from 'node:vm';

const WASM_GROWTH_TOLERANCE = 1024 * 1024;
const HEAP_GROWTH_TOLERANCE = 4 * 1024 * 1024;
const RECALL_LIMIT = 24;
const STORED_PER_CONVERSATION = 3;
const REFUSING_SHARE = 3; // out of 10 conversations

const { values: options } = parseArgs({
  options: {
    runs: { type: 'string', default: '1000000' },
    conversations: { type: 'string', default: '10000' },
    every: { type: 'string' },
    warmup: { type: 'string' },
    active: { type: 'string', default: '64' },
    concurrency: { type: 'string', default: '8' },
  },
});
const totalRuns = Number(options.runs);
const conversationCount = Number(options.conversations);
const reportEvery = Number(options.every ?? Math.min(100_000, Math.max(1, Math.floor(totalRuns / 10))));
const warmupMark = Number(options.warmup ?? Math.min(200_000, Math.floor(totalRuns / 5)));
const activeCount = Math.min(Number(options.active), conversationCount);
const concurrency = Math.min(Number(options.concurrency), activeCount);
// Each batch adds one concurrent duplicate, so visits are concurrency/(concurrency+1) of the runs.
const visitsPerConversation = Math.max(1, Math.round((totalRuns * concurrency) / (concurrency + 1) / conversationCount));
for (const [name, value] of Object.entries({ runs: totalRuns, conversations: conversationCount, every: reportEvery, active: activeCount, concurrency })) {
  if (!Number.isInteger(value) || value < 1) throw new RangeError(`--${name} must be a positive integer, got ${value}`);
}
if (!Number.isInteger(warmupMark) || warmupMark < 0) throw new RangeError(`--warmup must be a whole number, got ${warmupMark}`);

v8.setFlagsFromString('--expose-gc');
const collectGarbage = vm.runInNewContext('gc');

const webAssembly = watchWebAssembly();
const { summarize } = await import(new URL('../pkg/dist/index.mjs', import.meta.url).href);

// ---------------------------------------------------------------------------
// The workload.

const SENTENCES = [
  'The customer asked to move the delivery to Friday at 10:00.',
  'Refund of €42.50 approved for order #4411 — ticket closed.',
  'ユーザーは東京の住所を更新しました。',
  'Prefers email over phone 📧; timezone Europe/Zürich.',
  'Agreed: renew the plan for 12 months at the old price 👍.',
];
const isRefusing = (conversation) => conversation % 10 < REFUSING_SHARE;

// The same ids (`msg-{turn}-{k}`) in every conversation, as in real stores.
function entryOf(conversation, turn, k, identity) {
  return messageEntry({
    turn,
    index: k,
    message: {
      role: k === 0 ? 'user' : 'assistant',
      content: `#${conversation} ${SENTENCES[(conversation + turn + k) % SENTENCES.length]} (turn ${turn})`,
    },
    identity,
    at: 1_700_000_000_000 + turn * 1000 + k,
  });
}

const store = new Map(); // conversationId -> newest summaries of an open conversation

const summarizer = async (messages) => {
  const first = messages[1]?.content ?? '';
  const conversation = Number(first.slice(1, first.indexOf(' ')));
  if (!isRefusing(conversation)) return `Summary of ${messages.length - 1} messages: delivery Friday, refund approved.`;
  const spanChars = messages.slice(1).reduce((sum, message) => sum + (message.content ?? '').length, 0);
  return 'x'.repeat(spanChars + 10);
};

let clock = 1_800_000_000_000;
const stage = summarize({
  llm: summarizer,
  store: {
    async put(identity, entry) {
      const kept = store.get(identity.conversationId) ?? [];
      kept.push(entry);
      store.set(identity.conversationId, kept.slice(-STORED_PER_CONVERSATION));
    },
  },
  triggerMinEntries: 10,
  preserveRecent: 4,
  minFoldEntries: 2,
  now: () => clock,
});

const open = Array.from({ length: activeCount }, (_, id) => ({ id, turn: 0, visits: 0 }));
let conversationsStarted = activeCount;
let nextSlot = 0;

function nextRecall() {
  const slot = nextSlot;
  nextSlot = (nextSlot + 1) % activeCount;
  if (open[slot].visits >= visitsPerConversation) {
    store.delete(`conv-${open[slot].id}`); // the conversation is over
    open[slot] = { id: conversationsStarted++, turn: 0, visits: 0 };
  }
  const state = open[slot];
  const isRetry = ++state.visits % 4 === 0;
  if (!isRetry) state.turn++;
  const { id: conversation, turn } = state;
  const identity = { tenant: 'soak', conversationId: `conv-${conversation}` };
  const raw = [];
  for (let t = Math.max(1, turn - RECALL_LIMIT / 2 + 1); t <= turn; t++) {
    raw.push(entryOf(conversation, t, 0, identity), entryOf(conversation, t, 1, identity));
  }
  return { loaded: [...(store.get(identity.conversationId) ?? []), ...raw], identity };
}

const tally = new Map();
function outcomeOf(events) {
  if (events.length === 0) return 'no event';
  const { reason, scoreEvidence: evidence } = events[0].payload;
  if (evidence.coalesced) return 'coalesced';
  if (evidence.latched) return 'latched';
  if (evidence.predicted) return 'predicted';
  if (reason.startsWith('folded')) return 'folded';
  if (reason.includes('replacement-not-smaller')) return 'refused';
  if (reason.includes('already covered')) return 'already covered';
  return 'other';
}
function count(events) {
  const outcome = outcomeOf(events);
  tally.set(outcome, (tally.get(outcome) ?? 0) + 1);
}

// ---------------------------------------------------------------------------
// Sampling.

const MiB = 1024 * 1024;
const formatMiB = (bytes) => (bytes === null ? 'n/a' : `${(bytes / MiB).toFixed(2)} MiB`);
function sample(runs, startedAt) {
  collectGarbage();
  const usage = process.memoryUsage();
  return {
    runs,
    elapsedSeconds: (performance.now() - startedAt) / 1000,
    wasm: webAssembly.linearMemoryBytes(),
    heapUsed: usage.heapUsed,
    external: usage.external,
    arrayBuffers: usage.arrayBuffers,
    rss: usage.rss,
  };
}
const columns = ['runs', 'elapsed', 'wasm memory', 'heapUsed', 'external', 'arrayBuffers', 'rss'];
const row = (cells) => cells.map((cell, index) => String(cell).padStart(index === 0 ? 9 : 13)).join(' ');
const printSample = (s) =>
  console.log(row([s.runs, `${s.elapsedSeconds.toFixed(1)} s`, formatMiB(s.wasm), formatMiB(s.heapUsed), formatMiB(s.external), formatMiB(s.arrayBuffers), formatMiB(s.rss)]));

console.log(
  `soak: ${totalRuns} recalls over ${conversationCount} conversations (${visitsPerConversation} visits each, ${activeCount} open at a time) ` +
    `on one stage instance, ${concurrency} at a time (+1 concurrent duplicate per batch); ` +
    `Wasm memory ${webAssembly.linearMemoryBytes() !== null ? 'read from the module\'s instance' : 'NOT found (n/a)'}`,
);
console.log(row(columns));
const startedAt = performance.now();
const samples = [sample(0, startedAt)];
printSample(samples[0]);

let runs = 0;
let nextReport = reportEvery;
while (runs < totalRuns) {
  clock += 1000;
  const batch = [];
  while (batch.length < concurrency && runs + batch.length < totalRuns) {
    batch.push(nextRecall());
  }
  if (runs + batch.length < totalRuns) batch.push(batch[0]); // same (identity, span), at the same time
  const results = await Promise.all(batch.map(({ loaded, identity }) => stage.fold(loaded, identity)));
  for (const { events } of results) count(events);
  runs += batch.length;
  if (runs >= nextReport || runs === totalRuns) {
    const latest = sample(runs, startedAt);
    samples.push(latest);
    printSample(latest);
    while (nextReport <= runs) nextReport += reportEvery;
  }
}

const total = [...tally.values()].reduce((sum, value) => sum + value, 0);
console.log(`conversations started: ${conversationsStarted}; outcomes: ${[...tally].sort((a, b) => b[1] - a[1]).map(([kind, n]) => `${kind} ${((100 * n) / total).toFixed(1)}%`).join(', ')}`);

const baseline = samples.find((s) => s.runs >= warmupMark) ?? samples[0];
const last = samples.at(-1);
const wasmGrowth = baseline.wasm === null ? 0 : last.wasm - baseline.wasm;
const heapGrowth = last.heapUsed - baseline.heapUsed;
console.log(
  `growth after warm-up (${baseline.runs} → ${last.runs} runs): wasm ${formatMiB(wasmGrowth)} (tolerance ${formatMiB(WASM_GROWTH_TOLERANCE)}), ` +
    `heapUsed ${formatMiB(heapGrowth)} (tolerance ${formatMiB(HEAP_GROWTH_TOLERANCE)}), external ${formatMiB(last.external - baseline.external)}, ` +
    `arrayBuffers ${formatMiB(last.arrayBuffers - baseline.arrayBuffers)}`,
);
const grew = wasmGrowth > WASM_GROWTH_TOLERANCE || heapGrowth > HEAP_GROWTH_TOLERANCE;
console.log(grew ? 'verdict: memory GREW after warm-up' : 'verdict: memory flat after warm-up');
process.exitCode = grew ? 1 : 0;
