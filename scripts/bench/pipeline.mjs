// Per-recall timing inside a real footprintjs run: the stage gets the scope
// footprintjs builds (a Proxy over the run's state, whose `loaded` hands out
// live element proxies on index reads, records every write and routes `$emit`
// to the executor's recorders). That is where users run the stage, and what
// the scope costs lands on each implementation according to how it reads and
// writes it.
import { flowChart, FlowChartExecutor } from 'footprintjs';
import { BENCH_IDENTITY } from './workloads.mjs';

// A run records every write it sees; batches stay short so that log stays small.
export const MAX_RECALLS_PER_RUN = 100;

/**
 * One timed batch of `size` recalls, in one footprintjs run: before each
 * recall `scope.loaded` is set to that recall's entries (not timed), then
 * `await stage(scope)` is timed. Returns what `timeBatch` in bench.mjs does.
 */
export async function timeBatchInPipeline(workload, api, size) {
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
          // What checkBatch reads from a plain scope, read back untimed.
          served.push({ loaded: { length: scope.loaded.length }, eventCount: emitted - emittedBefore });
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
