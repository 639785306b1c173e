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
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { runNode } from '../support/run-node.mjs';
import { pinnedNodes } from './lib/runtimes.mjs';
import { repoRoot } from './lib/scratch.mjs';

const fixture = join(repoRoot, 'tests/js/fixtures/deopt-during-call.mjs');
const entry = pathToFileURL(join(repoRoot, 'pkg/dist/index.mjs')).href;
const wasm = join(repoRoot, 'pkg/dist/footprint_summarize_bg.wasm');
const nodes = [{ major: Number(process.versions.node.split('.')[0]), command: process.execPath }, ...pinnedNodes];
/**
 * Where V8 cannot deoptimize an inlined call that returns one reference (the
 * runtimes scripts/runtimes pins). Should a pinned Node's V8 be fixed, its
 * control test below fails by surviving: take it out of this list.
 */
const CRASHING_MAJORS = [20, 22];
/** `%GetOptimizationStatus`'s "optimized" bit, as V8 before 14 (Node 24 and older) lays it out. */
const OPTIMIZED = 1 << 4;
const LAST_MAJOR_WITH_THAT_BIT = 24;

/** The fixture's outcome in `node`: how the process ended, and what it printed. */
function runFixture(node, target) {
  return runNode(fixture, [target], { node: node.command, nodeArgs: ['--allow-natives-syntax'], timeout: 60_000 });
}

for (const node of nodes) {
  const crashes = CRASHING_MAJORS.includes(node.major);
  test(`Node ${node.major}: the harness ${crashes ? 'kills' : 'does not kill'} a process with a plain Wasm export that returns one reference`, async () => {
    const { code, signal, stdout, stderr } = await runFixture(node, 'control');
    if (crashes) {
      assert.notEqual(code, 0, stdout);
      assert.ok(signal === 'SIGTRAP' || code === 133, `${code} ${signal}`);
      assert.match(stderr, /unreachable code/);
    } else {
      assert.equal(code, 0, stderr);
      assert.deepEqual(JSON.parse(stdout).control.outcome, true);
    }
  });

  test(`Node ${node.major}: every call into the package survives its caller being deoptimized during it`, async () => {
    const { code, stdout, stderr } = await runFixture(node, entry);
    assert.equal(code, 0, stderr);
    const outcomes = JSON.parse(stdout);
    for (const [call, { tripped, status }] of Object.entries(outcomes)) {
      assert.equal(tripped, 1, `${call}: the getter that deoptimizes the caller ran during the call`);
      if (node.major <= LAST_MAJOR_WITH_THAT_BIT) {
        assert.ok(status & OPTIMIZED, `${call}: its caller was optimized when the getter ran (status ${status})`);
      }
    }
    assert.deepEqual(
      Object.fromEntries(Object.entries(outcomes).map(([call, { outcome }]) => [call, outcome])),
      {
        stage: 'undefined',
        fold: 1,
        coverage: 1,
        isSummaryEntry: true,
        isSummaryClaim: false,
        summarize: 'function',
        summaryEntryId: 'msg-summary-1-2',
      },
    );
  });
}

test('no export of the Wasm returns a single reference, the kind V8 inlines and then cannot deoptimize', async () => {
  // The platform's own type reflection (behind a flag in Node), on the very bytes the package ships.
  const probe = `const m = new WebAssembly.Module(require('node:fs').readFileSync(${JSON.stringify(wasm)}));
    process.stdout.write(JSON.stringify(WebAssembly.Module.exports(m).filter((e) => e.kind === 'function')));`;
  const { code, stdout, stderr } = await runNode('-e', [probe], { nodeArgs: ['--experimental-wasm-type-reflection'] });
  assert.equal(code, 0, stderr);
  const functions = JSON.parse(stdout);
  const coverage = functions.find((f) => f.name === 'summaryCoverage');
  assert.deepEqual(coverage?.type.parameters, ['externref'], 'the reflection names reference types as this test does');
  const single = functions.filter(({ type }) => type.results.length === 1 && type.results[0] === 'externref');
  assert.deepEqual(single.map((f) => f.name), []);
});
