// The demo's fleet (`--processes N`): N worker processes (fleet-worker.mjs)
// on the same store, each playing every turn of the conversation, like N
// replicas serving one conversation. Each turn is one request served by all
// of them at once: every run loads recall before any run goes on to write
// (so no replica reads another's writes of that same turn), and the next
// turn waits for every one to finish. With claims on (the
// default here) each span is claimed through the store's `putIfVersion`
// and paid once by the fleet; `--no-claims` shows what it costs without.
//
// Prints a line a turn (or, with --json, one record a turn on stdout), then
// paid calls per process and in total, and summary writes per span.

import { fork } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { IDENTITY, PACKAGE_ENTRY, openStore, resetStore, storeDescription } from './setup.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const WORKER = resolve(HERE, 'fleet-worker.mjs');

/** Forks one worker and resolves once it is ready; `exited` resolves when it ends. */
export async function startWorker(index, options, newestUpdatedAt) {
  const child = fork(WORKER, [], { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
  const worker = { index, child, pid: child.pid, alive: true, listeners: new Set() };
  worker.exited = new Promise((resolveExit) => {
    child.on('exit', (code, signal) => {
      worker.alive = false;
      worker.exit = { code, signal };
      for (const listener of worker.listeners) listener({ type: 'exit', code, signal });
      resolveExit(worker.exit);
    });
  });
  child.on('message', (message) => {
    for (const listener of worker.listeners) listener(message);
  });
  worker.next = (type) =>
    new Promise((resolveNext, reject) => {
      const listener = (message) => {
        if (message.type === type || message.type === 'exit' || message.type === 'failed') {
          worker.listeners.delete(listener);
          if (message.type === type) resolveNext(message);
          else if (message.type === 'exit') resolveNext(undefined);
          else reject(new Error(`fleet process ${index} (pid ${worker.pid}) failed: ${message.message}`));
        }
      };
      worker.listeners.add(listener);
    });
  const ready = worker.next('ready');
  child.send({ type: 'start', options, newestUpdatedAt, packageEntry: PACKAGE_ENTRY });
  if ((await ready) === undefined) throw new Error(`fleet process ${index} exited before it was ready`);
  return worker;
}

/** The event kinds a turn's runs reported, counted: `{ folded: 1, 'summarized-elsewhere': 31 }`. */
function eventKinds(runs) {
  const kinds = {};
  for (const run of runs) {
    for (const { reason, evidence } of run.events) {
      const kind = evidence?.coalesced
        ? 'coalesced'
        : reason.startsWith('folded')
          ? 'folded'
          : (/^[a-z-]+(?=:)/.exec(reason)?.[0] ?? 'covered');
      kinds[kind] = (kinds[kind] ?? 0) + 1;
    }
  }
  return kinds;
}

/**
 * Sends `go` to every worker once each live one has loaded `runs` times (a
 * worker that exits stops counting); `stop()` removes the listeners.
 */
function releaseOnceAllLoaded(workers, runs) {
  const loaded = new Map(workers.map((worker) => [worker, 0]));
  let released = false;
  const check = () => {
    if (released || workers.some((worker) => worker.alive && loaded.get(worker) < runs)) return;
    released = true;
    // A killed worker may be disconnected before its exit is seen.
    for (const worker of workers.filter((w) => w.alive && w.child.connected)) worker.child.send({ type: 'go' });
  };
  const listeners = workers.map((worker) => {
    const listener = (message) => {
      if (message.type === 'loaded') loaded.set(worker, loaded.get(worker) + 1);
      if (message.type === 'loaded' || message.type === 'exit') check();
    };
    worker.listeners.add(listener);
    return listener;
  });
  return { stop: () => workers.forEach((worker, k) => worker.listeners.delete(listeners[k])) };
}

/** Summary writes by summary id, over every process (each `done` carries its process's counts so far). */
function writesPerSpan(workers) {
  const writes = {};
  for (const worker of workers) {
    for (const [id, count] of Object.entries(worker.summaryWrites ?? {})) writes[id] = (writes[id] ?? 0) + count;
  }
  return writes;
}

/**
 * Plays `turn` on every live worker and resolves to their `done` messages.
 * `replay`: the turn's messages are not written (a retried request);
 * `holdAfterLoad`: each run waits after its load for `go` (see
 * `releaseOnceAllLoaded`).
 */
export async function playTurn(workers, turn, { replay = false, holdAfterLoad = false } = {}) {
  return askEveryLiveWorker(workers, { type: 'turn', turn, replay, holdAfterLoad }, 'done');
}

/**
 * Sends `message` to every live worker and resolves to their `replyType`
 * replies (a worker that exits meanwhile gives none), each naming its
 * process. Each worker keeps its latest paid count and summary writes.
 */
async function askEveryLiveWorker(workers, message, replyType) {
  const live = workers.filter((worker) => worker.alive);
  const replies = await Promise.all(
    live.map(async (worker) => {
      const reply = worker.next(replyType);
      worker.child.send(message);
      const answer = await reply;
      if (answer !== undefined) {
        worker.paid = answer.paid;
        worker.summaryWrites = answer.summaryWrites;
      }
      return answer && { ...answer, process: worker.index };
    }),
  );
  return replies.filter(Boolean);
}

/**
 * Waits for every live worker's background folds started so far
 * (`stage.settled()`) and resolves to their `settled` messages, whose `ends`
 * are the folds' own events.
 */
export async function settleWorkers(workers) {
  return askEveryLiveWorker(workers, { type: 'settle' }, 'settled');
}

/** Stops every live worker and waits for all of them to exit. */
export async function stopWorkers(workers) {
  for (const worker of workers.filter((w) => w.alive && w.child.connected)) worker.child.send({ type: 'stop' });
  await Promise.all(workers.map((worker) => worker.exited));
}

export async function runFleet(options) {
  if (options.reset) await resetStore(options);
  const store = await openStore(options);
  const before = await store.stats(IDENTITY);
  await store.close();
  const firstTurn = (before.lastTurn ?? 0) + 1;
  const lastTurn = firstTurn + options.turns - 1;
  const out = (line) => process.stdout.write(`${line}\n`);
  const say = options.json ? (line) => process.stderr.write(`${line}\n`) : out;

  const workers = await Promise.all(
    Array.from({ length: options.processes }, (_, index) => startWorker(index, options, before.newestUpdatedAt)),
  );
  for (const worker of workers) {
    worker.paid = 0;
    worker.listeners.add((message) => {
      if (message.type === 'exit' && message.signal !== null) {
        process.stderr.write(`fleet: process ${worker.index} (pid ${worker.pid}) was killed (${message.signal}); the fleet goes on without it\n`);
      }
    });
  }
  say(`footprint-summarize demo fleet: ${options.processes} processes × ${options.concurrency} concurrent runs a turn, claims ${options.claims ? 'on' : 'off'}`);
  say(`  store       ${storeDescription(options)}`);
  say(`  playing     turns ${firstTurn}–${lastTurn}`);
  say('');

  let paidSoFar = 0;
  try {
    for (let turn = firstTurn; turn <= lastTurn; turn += 1) {
      if (!workers.some((worker) => worker.alive)) throw new Error('every fleet process has exited');
      const released = releaseOnceAllLoaded(workers.filter((worker) => worker.alive), options.concurrency);
      const done = await playTurn(workers, turn, { holdAfterLoad: true }).finally(released.stop);
      const runs = done.flatMap((message) => message.runs.map((run) => ({ ...run, process: message.process })));
      const paidNow = workers.reduce((sum, worker) => sum + worker.paid, 0);
      const writes = writesPerSpan(workers);
      const record = {
        turn,
        processes: done.length,
        paidThisTurn: paidNow - paidSoFar,
        paidCallsSoFar: paidNow,
        paidByProcess: workers.map((worker) => worker.paid),
        summaryWritesSoFar: writes,
        events: eventKinds(runs),
        runs,
      };
      paidSoFar = paidNow;
      if (options.json) {
        out(JSON.stringify(record));
      } else {
        const kinds = Object.entries(record.events).map(([kind, count]) => `${count} ${kind}`).join(', ');
        out(`turn ${String(turn).padStart(3)}  paid ${record.paidThisTurn}  (so far ${paidNow})  ${kinds}`);
      }
    }
  } finally {
    await stopWorkers(workers);
  }

  const writes = writesPerSpan(workers);
  const spans = Object.keys(writes).length;
  say('');
  say(`  paid calls per process  ${workers.map((worker) => worker.paid).join(', ')}`);
  say(`  paid calls in total     ${paidSoFar}`);
  say(`  spans summarized        ${spans}${spans ? ` (${(paidSoFar / spans).toFixed(2)} paid calls a span)` : ''}`);
  say(`  summary writes a span   ${Object.entries(writes).map(([id, count]) => `${id} ×${count}`).join(', ') || 'none'}`);
  return 0;
}
