// Per-recall timing inside a real footprintjs run: the stage gets the scope
// footprintjs builds (a Proxy over the run's state, whose `loaded` hands out
// live element proxies on index reads, records every write and routes `$emit`
// to the executor's recorders). That is where users run the stage, and what
// the scope costs lands on each implementation according to how it reads and
// writes it.
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { flowChart, FlowChartExecutor } from 'footprintjs';
import { BENCH_IDENTITY } from './workloads.mjs';

/** The version of the footprintjs this file imports (its exports map hides package.json). */
function footprintjsVersion() {
  for (let dir = dirname(createRequire(import.meta.url).resolve('footprintjs')); dir !== dirname(dir); dir = dirname(dir)) {
    const manifest = join(dir, 'package.json');
    if (!existsSync(manifest)) continue;
    const { name, version } = JSON.parse(readFileSync(manifest, 'utf8'));
    if (name === 'footprintjs') return version;
  }
  return 'unknown';
}

/**
 * How bench.mjs times this section (see PLAIN there). A run records every
 * write it sees, so batches stay short; at N = 20,000 a baseline that indexes
 * through footprintjs's live proxies takes seconds a recall, so the section
 * stops at 2,000. The scope's own cost is in both columns; what users see is
 * held to at most 1x the original's.
 */
export const IN_PIPELINE = Object.freeze({
  section: 'pipeline',
  timeBatch: timeBatchInPipeline,
  maxBatch: 100,
  maxN: 2000,
  target: () => 1,
  footprintjs: footprintjsVersion(),
});

/**
 * One timed batch of `size` recalls, in one footprintjs run: before each
 * recall `scope.loaded` is set to that recall's entries (not timed), then
 * `await stage(scope)` is timed. Returns what `timeBatch` in bench.mjs does.
 */
async function timeBatchInPipeline(workload, api, size) {
  const stages = workload.stagesFor(api, size);
  const inputs = workload.scopes(size);
  const callsBefore = { ...workload.calls };
  const served = [];
  let elapsedNs = 0n;
  let emitted = 0;
  const chart = flowChart(
    'Seed',
    (scope) => {
      scope.identity = BENCH_IDENTITY;
    },
    'seed',
  )
    .addFunction(
      'Recall',
      async (scope) => {
        for (let i = 0; i < size; i++) {
          scope.loaded = inputs[i].loaded;
          const emittedBefore = emitted;
          // One clock pair per recall (a few tens of ns), since the writes
          // between recalls must stay out of the time.
          const start = process.hrtime.bigint();
          await stages[i](scope);
          elapsedNs += process.hrtime.bigint() - start;
          // What checkBatch judges, read back untimed.
          served.push({ loadedLength: scope.loaded.length, eventCount: emitted - emittedBefore });
        }
      },
      'recall',
    )
    .build();
  const executor = new FlowChartExecutor(chart);
  executor.attachEmitRecorder({
    id: 'bench-events',
    onEmit: () => {
      emitted++;
    },
  });
  await executor.run({ input: {} });
  const problems = workload.checkBatch(served, callsBefore);
  if (served.length !== size) problems.push(`the run served ${served.length} of ${size} recalls`);
  return { microsPerRecall: Number(elapsedNs) / size / 1e3, problems };
}
