#!/usr/bin/env node
// Where a module's time goes in a V8 .cpuprofile (from `node --cpu-prof`):
// self time of every sample whose stack is inside the module, split into the
// module's JavaScript (the glue) and WebAssembly, with the top functions.
// GC samples carry no stack, so they are reported beside it, not attributed.
//
//   node --cpu-prof --cpu-prof-dir=test-output/prof bench/bench.mjs \
//        --cases coverage --sizes 2000 --sections recall
//   node bench/cpuprofile-summary.mjs test-output/prof/*.cpuprofile --module pkg/dist/index.mjs
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { module: { type: 'string' }, top: { type: 'string', default: '25' } },
});
if (positionals.length !== 1 || !values.module) {
  console.error('usage: node bench/cpuprofile-summary.mjs PROFILE.cpuprofile --module PATH [--top 25]');
  process.exit(2);
}

const profile = JSON.parse(readFileSync(positionals[0], 'utf8'));
const moduleUrl = pathToFileURL(resolve(values.module)).href;
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const parentOf = new Map();
for (const node of profile.nodes) for (const child of node.children ?? []) parentOf.set(child, node.id);

function kindOf(callFrame) {
  if (callFrame.url.startsWith('wasm://')) return 'Wasm';
  if (callFrame.url === moduleUrl) return 'module JS';
  return null;
}

// A sample is "inside the module" when any frame on its stack belongs to it;
// builtins and runtime frames called from the module count as the module's.
const insideCache = new Map();
function insideModule(nodeId) {
  if (insideCache.has(nodeId)) return insideCache.get(nodeId);
  const node = nodes.get(nodeId);
  const inside = kindOf(node.callFrame) !== null || (parentOf.has(nodeId) && insideModule(parentOf.get(nodeId)));
  insideCache.set(nodeId, inside);
  return inside;
}

// The nearest module frame at or above a sample: which part of the module is paying.
function owningFrame(nodeId) {
  for (let id = nodeId; id !== undefined; id = parentOf.get(id)) {
    const frame = nodes.get(id).callFrame;
    if (kindOf(frame) !== null) return frame;
  }
  return null;
}

const totals = { all: 0, inside: 0, gc: 0 };
const byKind = new Map();
const byFunction = new Map();
for (let i = 0; i < profile.samples.length; i++) {
  const nodeId = profile.samples[i];
  const micros = profile.timeDeltas[i] ?? 0;
  const frame = nodes.get(nodeId).callFrame;
  totals.all += micros;
  if (frame.functionName === '(garbage collector)') totals.gc += micros;
  if (!insideModule(nodeId)) continue;
  totals.inside += micros;
  const owner = owningFrame(nodeId);
  const kind = kindOf(owner);
  byKind.set(kind, (byKind.get(kind) ?? 0) + micros);
  const selfName = kindOf(frame) === null ? ` → ${frame.functionName || '(anonymous)'} [${frame.url.split('/').at(-1) || 'native'}]` : '';
  const key = `${kind} · ${owner.functionName || '(anonymous)'}:${owner.lineNumber + 1}${selfName}`;
  byFunction.set(key, (byFunction.get(key) ?? 0) + micros);
}

const ms = (micros) => (micros / 1000).toFixed(1);
const share = (micros, whole) => `${((100 * micros) / whole).toFixed(1)}%`;
console.log(`profile: ${positionals[0]}`);
console.log(`sampled ${ms(totals.all)} ms; inside ${values.module}: ${ms(totals.inside)} ms; GC (unattributed): ${ms(totals.gc)} ms\n`);
console.log('| part of the module | ms | share of module time |\n| --- | --- | --- |');
for (const [kind, micros] of [...byKind].sort((a, b) => b[1] - a[1])) console.log(`| ${kind} | ${ms(micros)} | ${share(micros, totals.inside)} |`);
console.log(`\n| top functions (module frame → self frame when it is not the module's) | ms | share |\n| --- | --- | --- |`);
for (const [key, micros] of [...byFunction].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top))) {
  console.log(`| ${key} | ${ms(micros)} | ${share(micros, totals.inside)} |`);
}
