// One process of the demo's fleet (`--processes N`, fleet.mjs): a replica
// serving the conversation from the shared store, with its own stage, driven
// over IPC by whoever forked it (the demo's coordinator, or a test).
//
// Messages in:
//   { type: 'start', options, newestUpdatedAt }  build the stage and pipeline
//   { type: 'turn', turn, replay?, holdAfterLoad? }  play `turn`
//       `options.concurrency` times at once; `replay: true` plays it without
//       writing its messages (a retried request: the same recall, so the
//       same span); `holdAfterLoad: true` holds each run after its load
//       until `go`
//   { type: 'go' }  release the runs held after their load
//   { type: 'settle' }  wait for every background fold started so far
//   { type: 'stop' }
// Messages out:
//   { type: 'ready', pid }
//   { type: 'calling', turn }  the summarizer was called (a paid call starts)
//   { type: 'loaded', turn }   a run held after its load (`holdAfterLoad`):
//       the coordinator releases them once every run of the fleet has
//       loaded, so no replica reads another's writes of the same turn; a
//       test can act there, e.g. stop the store
//   { type: 'done', turn, runs, paid, summaryWrites }  paid and summaryWrites: this process's so far
//   { type: 'settled', ends, paid, summaryWrites }  the ended background
//       folds' events since the last `settled`, with `options.background`
//       (which the demo's CLI does not offer with --processes: the fleet
//       tests drive it); paid and summaryWrites as in `done`
//   { type: 'failed', message }

import { pathToFileURL } from 'node:url';

import { isSummaryEntry, runMemoryTurn } from '../../tests/support/memory-pipeline.mjs';
import { turnMessages } from './conversation.mjs';
import { IDENTITY, buildDemo, contentChars, openStore, readTurn } from './setup.mjs';

let worker;

process.on('message', (message) => {
  handle(message).catch((error) => {
    process.send({ type: 'failed', message: String(error?.stack ?? error) });
  });
});
process.on('disconnect', () => process.exit(0));

async function handle(message) {
  switch (message.type) {
    case 'start':
      worker = await startWorker(message);
      process.send({ type: 'ready', pid: process.pid });
      return;
    case 'turn':
      process.send(await worker.play(message.turn, message.replay === true, message.holdAfterLoad === true));
      return;
    case 'go':
      worker.go();
      return;
    case 'settle':
      process.send(await worker.settle());
      return;
    case 'stop':
      await worker?.close();
      process.exit(0);
  }
}

async function startWorker({ options, newestUpdatedAt, packageEntry }) {
  const pkg = await import(pathToFileURL(packageEntry).href);
  const shared = await openStore(options);
  let currentTurn;
  let holding = false;
  const summaryWrites = {};
  let waiting = [];
  // The stage's and the pipeline's store: summary writes counted, and a
  // run held between its load and the stage when the turn asks for it.
  const store = {
    ...shared,
    async put(identity, entry) {
      await shared.put(identity, entry);
      if (isSummaryEntry(entry)) summaryWrites[entry.id] = (summaryWrites[entry.id] ?? 0) + 1;
    },
    async listRecent(identity, limit) {
      const recent = await shared.listRecent(identity, limit);
      if (holding) {
        process.send({ type: 'loaded', turn: currentTurn });
        await new Promise((resolve) => waiting.push(resolve));
      }
      return recent;
    },
  };
  const { summarizer, pipeline, stage, backgroundEnds } = await buildDemo({
    options,
    pkg,
    store,
    newestUpdatedAt,
    onCall: () => process.send({ type: 'calling', turn: currentTurn }),
  });

  return {
    async play(turn, replay, holdAfterLoad) {
      currentTurn = turn;
      holding = holdAfterLoad;
      const messages = replay ? [] : turnMessages(turn);
      const runs = await Promise.all(
        Array.from({ length: options.concurrency }, async () => {
          const result = await runMemoryTurn(pipeline, { identity: IDENTITY, turn, messages });
          const observed = readTurn(result);
          return {
            recallIds: result.selected.map((entry) => entry.id),
            recallChars: contentChars(result.selected),
            events: observed.events.map(({ reason, addedIds, scoreEvidence }) => ({ reason, addedIds, evidence: scoreEvidence })),
          };
        }),
      );
      return { type: 'done', turn, runs, paid: summarizer.counts.paid, summaryWrites: { ...summaryWrites } };
    },
    go() {
      for (const resolve of waiting.splice(0)) resolve();
    },
    async settle() {
      await stage.settled();
      const ends = backgroundEnds.splice(0).map(({ reason, scoreEvidence }) => ({ reason, evidence: scoreEvidence }));
      return { type: 'settled', ends, paid: summarizer.counts.paid, summaryWrites: { ...summaryWrites } };
    },
    async close() {
      await shared.close();
    },
  };
}
