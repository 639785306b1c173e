// A call into the package from optimized code that V8 deoptimizes during the
// call must return, not end the process. On Node 20 and 22, V8 inlines a
// call to a Wasm export into the calling JS, and when that JS is deoptimized
// while the call runs, it cannot rebuild a result that is a single reference:
// the process dies with "Fatal error: unreachable code". Any getter, `$emit`
// or summarizer the stage runs can cause such a deopt in a busy server, so
// every export returns its JS value as several Wasm values
// (`NotInlined` in src/bindings/mod.rs), which V8 never inlines.
//
// Needs pkg/ (scripts/build.sh). Without it the suite fails — it never skips.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { repoRoot } from './lib/scratch.mjs';

const run = promisify(execFile);
const entry = pathToFileURL(join(repoRoot, 'pkg/dist/index.mjs')).href;
const wasm = join(repoRoot, 'pkg/dist/footprint_summarize_bg.wasm');
const runtimesDir = join(repoRoot, 'scripts/runtimes/node_modules');
const nodes = [
  { name: `Node ${process.versions.node} (the test runner's)`, command: process.execPath },
  { name: 'Node 22', command: join(runtimesDir, 'node22/bin/node') },
  { name: 'Node 24', command: join(runtimesDir, 'node24/bin/node') },
  { name: 'Node 26', command: join(runtimesDir, 'node26/bin/node') },
];

for (const node of nodes) {
  test(`${node.name}: every call into the package survives its caller being deoptimized during it`, async () => {
    const fixture = join(repoRoot, 'tests/js/fixtures/deopt-during-call.mjs');
    const { stdout } = await run(node.command, ['--allow-natives-syntax', fixture, entry]);
    const outcomes = JSON.parse(stdout);
    for (const [call, { tripped }] of Object.entries(outcomes)) {
      assert.equal(tripped, 1, `${call}: the getter that deoptimizes the caller ran during the call`);
    }
    assert.deepEqual(
      Object.fromEntries(Object.entries(outcomes).map(([call, { tripped, ...outcome }]) => [call, outcome])),
      {
        stage: { outcome: 'undefined' },
        fold: { recallLength: 1 },
        coverage: { toTurn: 1 },
        isSummaryEntry: { outcome: true },
        isSummaryClaim: { outcome: false },
        summarize: { outcome: 'function' },
        summaryEntryId: { outcome: 'msg-summary-1-2' },
        extractive: { outcome: 'assistant: Yes, the refund of 129.90 EUR is approved and ships Friday.' },
      },
    );
  });
}

test('no export of the Wasm returns a single reference, the kind V8 inlines and then cannot deoptimize', async () => {
  // The platform's own type reflection (behind a flag in Node), on the very bytes the package ships.
  const probe = `const m = new WebAssembly.Module(require('node:fs').readFileSync(${JSON.stringify(wasm)}));
    process.stdout.write(JSON.stringify(WebAssembly.Module.exports(m).filter((e) => e.kind === 'function')));`;
  const { stdout } = await run(process.execPath, ['--experimental-wasm-type-reflection', '-e', probe]);
  const functions = JSON.parse(stdout);
  assert.ok(functions.some((f) => f.name === 'summaryCoverage'), 'the reflection names the exports');
  const single = functions.filter(({ type }) => type.results.length === 1 && type.results[0] === 'externref');
  assert.deepEqual(single.map((f) => f.name), []);
});
