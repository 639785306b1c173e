#!/usr/bin/env node
// The soak's per-request mode: a stage built for every request, as a server
// that builds its memory pipeline per request does. Each iteration builds a
// stage (provider + store), runs one fold at N = 20 and awaits its store
// write, all in one loop that never yields to the event loop (awaiting the
// stage's own promises runs microtasks only), so finalizers never run and
// nothing but ordinary garbage collection can free a stage.
//
//   node bench/soak-per-request.mjs                  100,000 iterations
//   node bench/soak-per-request.mjs --runs 20000 --subject bench/reference-original.mjs
//
// It prints the JS heap and Wasm linear memory (after a forced full GC)
// before the first iteration and after the last, and the mean time per
// iteration over the first and the last 10% of iterations. Verdict (exit 1
// when missed): heap and Wasm memory grow by at most 5 MiB, and the last 10%
// take at most 1.2x the first 10%.

import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { watchWebAssembly } from './wasm-probe.mjs';
import { messageEntry } from '../tests/support/memory-pipeline.mjs';

const GROWTH_LIMIT = 5 * 1024 * 1024;
const SLOWDOWN_LIMIT = 1.2;
const N = 20;

const { values: options } = parseArgs({
  options: {
    runs: { type: 'string', default: '100000' },
    subject: { type: 'string', default: 'pkg/dist/index.mjs' },
  },
});
const runs = Number(options.runs);
if (!Number.isInteger(runs) || runs < 10) throw new RangeError(`--runs must be a whole number of at least 10, got ${options.runs}`);

v8.setFlagsFromString('--expose-gc');
const collectGarbage = vm.runInNewContext('gc');
const webAssembly = watchWebAssembly();
const { summarize } = await import(pathToFileURL(resolve(options.subject)).href);

// One conversation's recall per iteration, built before the clock starts:
// 8 conversations, so consecutive requests never see the same span.
const recalls = Array.from({ length: 8 }, (_, conversation) => {
  const identity = { tenant: 'soak', conversationId: `conv-${conversation}` };
  const loaded = Array.from({ length: N }, (_, i) =>
    messageEntry({
      turn: Math.floor(i / 2) + 1,
      index: i % 2,
      message: { role: i % 2 ? 'assistant' : 'user', content: `#${conversation} order #4411 refund of €42.50 approved, turn ${i} — details follow.` },
      identity,
      at: 1_700_000_000_000 + i * 1000,
    }),
  );
  return { loaded, identity };
});
const provider = { complete: async () => ({ content: 'Refund approved; delivery Friday.', usage: { input: 120, output: 9 } }) };
let writes = 0;
const store = { put: async () => void writes++ };

function memory() {
  collectGarbage();
  return { heap: process.memoryUsage().heapUsed, wasm: webAssembly.linearMemoryBytes() ?? 0 };
}

const tenth = Math.floor(runs / 10);
const before = memory();
let firstTenth = 0;
let lastTenth = 0;
let started = performance.now();
for (let i = 0; i < runs; i++) {
  if (i === tenth) firstTenth = performance.now() - started;
  if (i === runs - tenth) started = performance.now();
  const stage = summarize({ llm: provider, model: 'mini-1', store, triggerMinEntries: 10, preserveRecent: 4 });
  const { loaded, identity } = recalls[i % recalls.length];
  const scope = { loaded, identity };
  await stage(scope);
  if (scope.loaded === loaded) throw new Error(`iteration ${i}: the stage did not fold`);
}
lastTenth = performance.now() - started;
const after = memory();
if (writes !== runs) throw new Error(`expected ${runs} store writes, saw ${writes}`);

const MiB = 1024 * 1024;
const mib = (bytes) => `${(bytes / MiB).toFixed(2)} MiB`;
const heapGrowth = after.heap - before.heap;
const wasmGrowth = after.wasm - before.wasm;
const slowdown = lastTenth / firstTenth;
const perIteration = (ms) => `${((ms * 1000) / tenth).toFixed(2)} µs`;
console.log(`per-request soak: ${runs} iterations of build + one provider fold (N=${N}) + one store write, never yielding; subject ${options.subject}`);
console.log(`| measure | before | after | change | limit |`);
console.log(`| --- | --- | --- | --- | --- |`);
console.log(`| JS heap used | ${mib(before.heap)} | ${mib(after.heap)} | ${mib(heapGrowth)} | ≤ 5 MiB |`);
console.log(`| Wasm linear memory | ${mib(before.wasm)} | ${mib(after.wasm)} | ${mib(wasmGrowth)} | ≤ 5 MiB |`);
console.log(`| time per iteration | ${perIteration(firstTenth)} (first 10%) | ${perIteration(lastTenth)} (last 10%) | ${slowdown.toFixed(2)}x | ≤ ${SLOWDOWN_LIMIT}x |`);
const missed = heapGrowth > GROWTH_LIMIT || wasmGrowth > GROWTH_LIMIT || slowdown > SLOWDOWN_LIMIT;
console.log(missed ? 'MISSED' : 'met');
process.exitCode = missed ? 1 : 0;
