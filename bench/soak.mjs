#!/usr/bin/env node
// The soak: does the package keep its memory flat over a long run? Not a
// test; it prints memory (after a forced full GC) and a verdict, and exits 1
// when the verdict is missed. Two workloads:
//
//   node bench/soak.mjs                      one stage, 1,000,000 recalls over 10,000 conversations
//   node bench/soak.mjs --runs 100000 --conversations 1000
//     options: --every N (report interval, default 100,000 or runs/10)
//              --warmup N (baseline mark, default 200,000 or runs/5)
//              --active N (conversations open at once, default 64)
//              --concurrency N (recalls started together, default 8)
//   node bench/soak.mjs --per-request        a stage built per request, 100,000 times
//   node bench/soak.mjs --per-request --runs 20000 --subject bench/reference-original.mjs
//   node bench/soak.mjs --hung blocking      10,000 abandoned turns whose summarizer never answers
//   node bench/soak.mjs --hung background    3,000 conversations whose background call hangs (timeoutMs 500)
//
// One stage (the default): ONE stage instance serves every recall. `--active`
// conversations are open at a time and visited round-robin; each lives for
// runs/conversations visits, then ends (its stored data is dropped) and a new
// conversation takes its place, so all `--conversations` pass through the one
// instance. Each visit adds a turn (two entries) and recalls the last
// RECALL_LIMIT raw entries plus that conversation's stored summaries, the way
// loadRecent does; every fourth visit recalls the same turn again (a retry),
// which meets the latch and the stored coverage. Early visits are below the
// trigger; later ones fold with an instant summarizer and write the summary
// back. Three conversations in ten get a summarizer that answers longer than
// the span, so their spans are refused and latched: a new latch key on most
// visits, far past the latch's bound. Each batch also re-runs one recall
// concurrently, so single flight is exercised. Ids repeat across
// conversations, as in real stores. Every recall builds fresh entry objects
// and the store only holds the open conversations' newest summaries, so the
// JS side is bounded and the numbers measure the package.
// Verdict: between the warm-up mark and the last mark, Wasm linear memory may
// grow at most WASM_GROWTH_TOLERANCE (allocator slack: memory grows in 64 KiB
// pages and never shrinks) and the JS heap at most HEAP_GROWTH_TOLERANCE (GC
// noise).
//
// Per request: a stage built for every request, as a server that builds its
// memory pipeline per request does. Each iteration builds a stage (provider +
// store), runs one fold at N = 20 and awaits its store write, all in one loop
// that never yields to the event loop (awaiting the stage's own promises runs
// microtasks only), so finalizers never run and nothing but ordinary garbage
// collection can free a stage. Verdict: heap and Wasm memory grow by at most
// PER_REQUEST_GROWTH_LIMIT, and the last 10% of iterations take at most
// SLOWDOWN_LIMIT times the first 10%. `--subject` runs it on another module
// with the same API (the stand-in for the original, say).
//
// Hung (`--hung blocking|background`): a summarizer that never answers. In
// blocking mode, without `timeoutMs`, each turn is abandoned by its caller
// (nothing awaits its promise): once the collector finds the summarizer's
// promise garbage, the visit ends and frees what it held. The turns come in
// batches of HUNG_BATCH, and the collector runs between batches, as it does
// on a server while it serves (Wasm memory never shrinks, so its high-water
// mark is what one batch holds). In background mode every visit returns at
// once and the harness holds each hung call's promise, as a client's open
// socket holds a real one, so each conversation's fold is waited on until
// its `timeoutMs` 500 (thousands at once: Wasm memory and the externref
// table keep that high-water mark); the harness awaits `stage.settled()`.
// Verdict: heap plus Wasm memory, after a full GC, within HUNG_LIMIT of the
// start.
//
// Measuring Wasm memory: the package does not expose its WebAssembly.Memory,
// so the probe (bench/wasm-probe.mjs) watches the instantiation at import;
// `wasm` below is exactly that linear memory's byte length. Node counts Wasm
// memory in `external`, not in `arrayBuffers`.

import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { watchWebAssembly } from './wasm-probe.mjs';
import { messageEntry } from '../tests/support/memory-pipeline.mjs';
import v8 from 'node:v8';
import vm from 'node:vm';

const WASM_GROWTH_TOLERANCE = 1024 * 1024;
const HEAP_GROWTH_TOLERANCE = 4 * 1024 * 1024;
const PER_REQUEST_GROWTH_LIMIT = 5 * 1024 * 1024;
const SLOWDOWN_LIMIT = 1.2;
const HUNG_LIMIT = 8 * 1024 * 1024;
const HUNG_BATCH = 1000;
const SMALL_RECALL_ENTRIES = 20;
const RECALL_LIMIT = 24;
const STORED_PER_CONVERSATION = 3;
const REFUSING_SHARE = 3; // out of 10 conversations
// What the one-stage soak's conversations say, in turn.
const SENTENCES = [
  'The customer asked to move the delivery to Friday at 10:00.',
  'Refund of €42.50 approved for order #4411 — ticket closed.',
  'ユーザーは東京の住所を更新しました。',
  'Prefers email over phone 📧; timezone Europe/Zürich.',
  'Agreed: renew the plan for 12 months at the old price 👍.',
];

const { values: options } = parseArgs({
  options: {
    'per-request': { type: 'boolean', default: false },
    hung: { type: 'string' },
    subject: { type: 'string', default: 'pkg/dist/index.mjs' },
    runs: { type: 'string' },
    conversations: { type: 'string', default: '10000' },
    every: { type: 'string' },
    warmup: { type: 'string' },
    active: { type: 'string', default: '64' },
    concurrency: { type: 'string', default: '8' },
  },
});
if (options.hung !== undefined && !['blocking', 'background'].includes(options.hung)) {
  throw new RangeError(`--hung must be blocking or background, got ${options.hung}`);
}
const defaultRuns = options.hung === 'blocking' ? 10_000 : options.hung === 'background' ? 3_000 : options['per-request'] ? 100_000 : 1_000_000;
const totalRuns = Number(options.runs ?? defaultRuns);
if (!Number.isInteger(totalRuns) || totalRuns < 10) throw new RangeError(`--runs must be a whole number of at least 10, got ${options.runs}`);

v8.setFlagsFromString('--expose-gc');
const collectGarbage = vm.runInNewContext('gc');
const webAssembly = watchWebAssembly();
const { summarize } = await import(pathToFileURL(resolve(options.subject)).href);

const MiB = 1024 * 1024;
const formatMiB = (bytes) => (bytes === null ? 'n/a' : `${(bytes / MiB).toFixed(2)} MiB`);
/** Memory after a forced full GC; `wasm` is null when the probe found no module. */
function memory() {
  collectGarbage();
  const usage = process.memoryUsage();
  return { wasm: webAssembly.linearMemoryBytes(), heapUsed: usage.heapUsed, external: usage.external, arrayBuffers: usage.arrayBuffers, rss: usage.rss };
}

const workload = options.hung !== undefined ? hung : options['per-request'] ? perRequest : oneStage;
process.exitCode = (await workload()) ? 0 : 1;

/** Twenty entries (ten turns) of one conversation: a recall that folds at `triggerMinEntries` 10. */
function recallOf(conversationId) {
  const identity = { tenant: 'soak', conversationId };
  const loaded = Array.from({ length: SMALL_RECALL_ENTRIES }, (_, i) =>
    messageEntry({
      turn: Math.floor(i / 2) + 1,
      index: i % 2,
      message: { role: i % 2 ? 'assistant' : 'user', content: `#${conversationId} order #4411 refund of €42.50 approved, turn ${i} — details follow.` },
      identity,
      at: 1_700_000_000_000 + i * 1000,
    }),
  );
  return { loaded, identity };
}

// ---------------------------------------------------------------------------
// One stage, many conversations.

/** REFUSING_SHARE conversations in ten get an answer longer than their span, so their spans are refused and latched. */
function isRefusing(conversation) {
  return conversation % 10 < REFUSING_SHARE;
}

/** Counts for the one-stage soak, from the options; throws on a count that is not a positive whole number. */
function oneStagePlan() {
  const conversationCount = Number(options.conversations);
  const reportEvery = Number(options.every ?? Math.min(100_000, Math.max(1, Math.floor(totalRuns / 10))));
  const warmupMark = Number(options.warmup ?? Math.min(200_000, Math.floor(totalRuns / 5)));
  const activeCount = Math.min(Number(options.active), conversationCount);
  const concurrency = Math.min(Number(options.concurrency), activeCount);
  // Each batch adds one concurrent duplicate, so visits are concurrency/(concurrency+1) of the runs.
  const visitsPerConversation = Math.max(1, Math.round((totalRuns * concurrency) / (concurrency + 1) / conversationCount));
  for (const [name, value] of Object.entries({ conversations: conversationCount, every: reportEvery, active: activeCount, concurrency })) {
    if (!Number.isInteger(value) || value < 1) throw new RangeError(`--${name} must be a positive integer, got ${value}`);
  }
  if (!Number.isInteger(warmupMark) || warmupMark < 0) throw new RangeError(`--warmup must be a whole number, got ${warmupMark}`);
  return { conversationCount, reportEvery, warmupMark, activeCount, concurrency, visitsPerConversation };
}

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

/**
 * The one stage every recall goes through, on `clock.ms`. Refusing
 * conversations get an answer longer than their span; every summary is
 * written back to `store` (conversationId -> its newest summaries).
 */
function createSoakStage(store, clock) {
  const summarizer = async (messages) => {
    const first = messages[1]?.content ?? '';
    const conversation = Number(first.slice(1, first.indexOf(' ')));
    if (!isRefusing(conversation)) return `Summary of ${messages.length - 1} messages: delivery Friday, refund approved.`;
    const spanChars = messages.slice(1).reduce((sum, message) => sum + (message.content ?? '').length, 0);
    return 'x'.repeat(spanChars + 10);
  };
  return summarize({
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
    now: () => clock.ms,
  });
}

/**
 * The open conversations, visited round-robin. A conversation past its
 * visits ends (its stored summaries are dropped) and a new one takes its slot.
 */
function createConversations({ activeCount, visitsPerConversation }, store) {
  const open = Array.from({ length: activeCount }, (_, id) => ({ id, turn: 0, visits: 0 }));
  let conversationsStarted = activeCount;
  let nextSlot = 0;

  /** The next visit's recall: the conversation's stored summaries, then its newest RECALL_LIMIT raw entries. */
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

  return { nextRecall, started: () => conversationsStarted };
}

/** What a recall's first event says happened, as the tally's label for it. */
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

// Sampling: one table row of memory per report interval.

function sample(runs, startedAt) {
  return { runs, elapsedSeconds: (performance.now() - startedAt) / 1000, ...memory() };
}
function sampleRow(cells) {
  return cells.map((cell, index) => String(cell).padStart(index === 0 ? 9 : 13)).join(' ');
}
function printSample(s) {
  console.log(sampleRow([s.runs, `${s.elapsedSeconds.toFixed(1)} s`, formatMiB(s.wasm), formatMiB(s.heapUsed), formatMiB(s.external), formatMiB(s.arrayBuffers), formatMiB(s.rss)]));
}

/**
 * Every recall, `concurrency` at a time plus one concurrent duplicate of the
 * batch's first (same identity and span, at the same time) while runs remain.
 * Tallies each recall's outcome; returns the memory samples, the first before
 * any recall.
 */
async function visitAll({ concurrency, reportEvery }, { stage, clock, conversations, tally }) {
  const startedAt = performance.now();
  const samples = [sample(0, startedAt)];
  printSample(samples[0]);

  let runs = 0;
  let nextReport = reportEvery;
  while (runs < totalRuns) {
    clock.ms += 1000;
    const batch = [];
    while (batch.length < concurrency && runs + batch.length < totalRuns) {
      batch.push(conversations.nextRecall());
    }
    if (runs + batch.length < totalRuns) batch.push(batch[0]); // same (identity, span), at the same time
    const results = await Promise.all(batch.map(({ loaded, identity }) => stage.fold(loaded, identity)));
    for (const { events } of results) {
      const outcome = outcomeOf(events);
      tally.set(outcome, (tally.get(outcome) ?? 0) + 1);
    }
    runs += batch.length;
    if (runs >= nextReport || runs === totalRuns) {
      const latest = sample(runs, startedAt);
      samples.push(latest);
      printSample(latest);
      while (nextReport <= runs) nextReport += reportEvery;
    }
  }
  return samples;
}

/** Prints the growth between the warm-up mark and the last sample, and the verdict; true when memory stayed flat. */
function flatAfterWarmUp(samples, warmupMark) {
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
  return !grew;
}

async function oneStage() {
  const plan = oneStagePlan();
  const store = new Map(); // conversationId -> newest summaries of an open conversation
  const clock = { ms: 1_800_000_000_000 };
  const stage = createSoakStage(store, clock);
  const conversations = createConversations(plan, store);
  const tally = new Map(); // outcome -> recalls

  console.log(
    `soak: ${totalRuns} recalls over ${plan.conversationCount} conversations (${plan.visitsPerConversation} visits each, ${plan.activeCount} open at a time) ` +
      `on one stage instance, ${plan.concurrency} at a time (+1 concurrent duplicate per batch); ` +
      `Wasm memory ${webAssembly.linearMemoryBytes() !== null ? 'read from the module\'s instance' : 'NOT found (n/a)'}`,
  );
  console.log(sampleRow(['runs', 'elapsed', 'wasm memory', 'heapUsed', 'external', 'arrayBuffers', 'rss']));
  const samples = await visitAll(plan, { stage, clock, conversations, tally });

  const total = [...tally.values()].reduce((sum, value) => sum + value, 0);
  console.log(`conversations started: ${conversations.started()}; outcomes: ${[...tally].sort((a, b) => b[1] - a[1]).map(([kind, n]) => `${kind} ${((100 * n) / total).toFixed(1)}%`).join(', ')}`);
  return flatAfterWarmUp(samples, plan.warmupMark);
}

// ---------------------------------------------------------------------------
// A stage per request.

async function perRequest() {
  // One conversation's recall per iteration, built before the clock starts:
  // 8 conversations, so consecutive requests never see the same span.
  const recalls = Array.from({ length: 8 }, (_, conversation) => recallOf(`conv-${conversation}`));
  const provider = { complete: async () => ({ content: 'Refund approved; delivery Friday.', usage: { input: 120, output: 9 } }) };
  let writes = 0;
  const store = { put: async () => void writes++ };

  const tenth = Math.floor(totalRuns / 10);
  const before = memory();
  let firstTenth = 0;
  let lastTenth = 0;
  let started = performance.now();
  for (let i = 0; i < totalRuns; i++) {
    if (i === tenth) firstTenth = performance.now() - started;
    if (i === totalRuns - tenth) started = performance.now();
    const stage = summarize({ llm: provider, model: 'mini-1', store, triggerMinEntries: 10, preserveRecent: 4 });
    const { loaded, identity } = recalls[i % recalls.length];
    const scope = { loaded, identity };
    await stage(scope);
    if (scope.loaded === loaded) throw new Error(`iteration ${i}: the stage did not fold`);
  }
  lastTenth = performance.now() - started;
  const after = memory();
  if (writes !== totalRuns) throw new Error(`expected ${totalRuns} store writes, saw ${writes}`);

  const heapGrowth = after.heapUsed - before.heapUsed;
  const wasmGrowth = (after.wasm ?? 0) - (before.wasm ?? 0);
  const slowdown = lastTenth / firstTenth;
  const perIteration = (ms) => `${((ms * 1000) / tenth).toFixed(2)} µs`;
  console.log(`per-request soak: ${totalRuns} iterations of build + one provider fold (N=${SMALL_RECALL_ENTRIES}) + one store write, never yielding; subject ${options.subject}`);
  console.log(`| measure | before | after | change | limit |`);
  console.log(`| --- | --- | --- | --- | --- |`);
  console.log(`| JS heap used | ${formatMiB(before.heapUsed)} | ${formatMiB(after.heapUsed)} | ${formatMiB(heapGrowth)} | ≤ ${formatMiB(PER_REQUEST_GROWTH_LIMIT)} |`);
  console.log(`| Wasm linear memory | ${formatMiB(before.wasm)} | ${formatMiB(after.wasm)} | ${formatMiB(wasmGrowth)} | ≤ ${formatMiB(PER_REQUEST_GROWTH_LIMIT)} |`);
  console.log(`| time per iteration | ${perIteration(firstTenth)} (first 10%) | ${perIteration(lastTenth)} (last 10%) | ${slowdown.toFixed(2)}x | ≤ ${SLOWDOWN_LIMIT}x |`);
  const missed = heapGrowth > PER_REQUEST_GROWTH_LIMIT || wasmGrowth > PER_REQUEST_GROWTH_LIMIT || slowdown > SLOWDOWN_LIMIT;
  console.log(missed ? 'verdict: memory or speed MISSED the limits' : 'verdict: memory flat and speed steady');
  return !missed;
}

// ---------------------------------------------------------------------------
// A summarizer that never answers.

async function hung() {
  const background = options.hung === 'background';
  const turnOf = (conversation) => recallOf(`hung-${conversation}`);
  let calls = 0;
  // Background mode holds the hung calls' promises until the stage has
  // settled (see the header).
  const held = [];
  const stage = summarize({
    llm: () => {
      calls++;
      const never = new Promise(() => {});
      if (background) held.push(never);
      return never;
    },
    store: { put: async () => {} },
    triggerMinEntries: 10,
    preserveRecent: 4,
    ...(background ? { background: true, timeoutMs: 500 } : {}),
  });
  const quietly = async (work) => {
    const warn = console.warn;
    console.warn = () => {}; // the stage's one warning says each call failed
    try {
      return await work();
    } finally {
      console.warn = warn;
    }
  };
  const collect = async () => {
    for (let i = 0; i < 3; i++) {
      collectGarbage();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  };
  const warmUp = 200;
  await quietly(async () => {
    for (let c = 0; c < warmUp; c++) {
      const { loaded, identity } = turnOf(-1 - c);
      if (background) await stage.fold(loaded, identity);
      else stage.fold(loaded, identity); // abandoned
    }
    if (background) await stage.settled();
    held.length = 0;
    await collect();
  });
  const before = memory();
  const started = performance.now();
  let slowest = 0;
  await quietly(async () => {
    for (let c = 0; c < totalRuns; c++) {
      const { loaded, identity } = turnOf(c);
      if (background) {
        const visitStarted = performance.now();
        await stage.fold(loaded, identity);
        slowest = Math.max(slowest, performance.now() - visitStarted);
      } else {
        stage.fold(loaded, identity); // abandoned: nothing awaits it
      }
      if (c % HUNG_BATCH === HUNG_BATCH - 1) await collect();
    }
    if (background) await stage.settled();
    held.length = 0;
    await collect();
  });
  const after = memory();
  if (calls !== warmUp + totalRuns) throw new Error(`expected ${warmUp + totalRuns} summarizer calls, saw ${calls}`);
  const heapGrowth = after.heapUsed - before.heapUsed;
  const wasmGrowth = (after.wasm ?? 0) - (before.wasm ?? 0);
  console.log(
    background
      ? `hung soak (background): ${totalRuns} conversations whose background call never answers (timeoutMs 500), stage.settled() awaited; slowest visit ${slowest.toFixed(1)} ms`
      : `hung soak (blocking): ${totalRuns} turns whose summarizer never answers, no timeoutMs, each abandoned by its caller; the collector runs every ${HUNG_BATCH}`,
  );
  console.log(`| measure | before | after | change |`);
  console.log(`| --- | --- | --- | --- |`);
  console.log(`| JS heap used | ${formatMiB(before.heapUsed)} | ${formatMiB(after.heapUsed)} | ${formatMiB(heapGrowth)} |`);
  console.log(`| Wasm linear memory | ${formatMiB(before.wasm)} | ${formatMiB(after.wasm)} | ${formatMiB(wasmGrowth)} |`);
  console.log(`| time | | | ${((performance.now() - started) / 1000).toFixed(1)} s |`);
  const kept = heapGrowth + wasmGrowth;
  const missed = kept > HUNG_LIMIT;
  console.log(`heap + Wasm growth ${formatMiB(kept)} (limit ${formatMiB(HUNG_LIMIT)})`);
  console.log(missed ? 'verdict: memory KEPT by hung calls' : 'verdict: memory flat after hung calls');
  return !missed;
}
