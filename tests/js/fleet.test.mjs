// A fleet of real OS processes sharing one store pays for each span once
// (`claims: true`): the demo's `--processes` over a real Redis (started on a
// free loopback port here) and over the demo's SQLite file, with the
// summarizer an OpenAI-compatible stub that counts calls at the server; then
// a leader killed with SIGKILL mid-call (blocking, and during a background
// fold), and Redis killed and restarted mid-turn, driving the demo's fleet
// workers directly.

import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { turnMessages } from '../../examples/demo/conversation.mjs';
import { playTurn, settleWorkers, startWorker, stopWorkers } from '../../examples/demo/fleet.mjs';
import { IDENTITY, openStore, resetStore } from '../../examples/demo/setup.mjs';
import { isClaimEntry, isSummaryEntry, messageEntry } from '../support/memory-pipeline.mjs';
import { hashKey } from '../support/redis-store.mjs';
import { createClient } from 'redis';
import { answer, spanOf, startStub } from './lib/openai-stub.mjs';
import { startRedis } from '../support/redis-server.mjs';
import { jsonRecords, runDemoCli as runCli } from '../support/run-node.mjs';

const scratch = mkdtempSync(join(tmpdir(), 'fps-fleet-'));
let redis;
let stub;
/** What the stub does with a request; by default it answers at once. */
let respond;
const summaryText = (request) => `Stub summary of turns ${spanOf(request)}.`;

before(async () => {
  redis = await startRedis();
  stub = await startStub((request, res) => respond(request, res));
});
after(async () => {
  await stub?.close();
  await redis?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

let runCounter = 0;
/** A fresh store for one test: a Redis database of its own is not needed, the demo's identity is reset. */
const storeOptions = (kind) =>
  kind === 'redis' ? { redisUrl: redis.url } : { dbPath: join(scratch, `fleet-${(runCounter += 1)}.db`) };
const storeArgs = (options) => (options.redisUrl ? ['--redis', options.redisUrl] : ['--db', options.dbPath]);



const openAiArgs = () => ['--llm', 'openai', '--base-url', stub.baseUrl, '--model', 'stub-mini', '--timeout-ms', '5000'];

/** Requests the stub got since `from`, counted by the span each paid for. */
function callsBySpan(from = 0) {
  const counts = {};
  for (const request of stub.requests.slice(from)) counts[spanOf(request)] = (counts[spanOf(request)] ?? 0) + 1;
  return counts;
}

async function readStore(options) {
  const store = await openStore(options);
  try {
    return await store.list(IDENTITY);
  } finally {
    await store.close();
  }
}

/** Every message of turns 1..`lastTurn` is in the store (no entry lost), and what else is there. */
function assertNoEntryLost(entries, lastTurn) {
  const ids = new Set(entries.map((entry) => entry.id));
  for (let turn = 1; turn <= lastTurn; turn += 1) {
    for (const index of [0, 1]) assert.ok(ids.has(`msg-${turn}-${index}`), `msg-${turn}-${index} is in the store`);
  }
  return { summaries: entries.filter(isSummaryEntry), claims: entries.filter(isClaimEntry) };
}

for (const kind of ['redis', 'sqlite']) {
  test(`${kind}: 8 processes × 4 concurrent runs a turn pay for each span once and write it once`, { timeout: 240_000 }, async () => {
    respond = (request, res) => answer(res, summaryText(request));
    const options = storeOptions(kind);
    const from = stub.requests.length;
    const turns = 30;
    const result = await runCli([
      '--reset', '--json', '--turns', String(turns), '--processes', '8', '--concurrency', '4', ...storeArgs(options), ...openAiArgs(),
    ]);
    assert.equal(result.code, 0, result.stderr);
    const records = jsonRecords(result.stdout);
    assert.equal(records.length, turns);
    const last = records.at(-1);
    const calls = callsBySpan(from);
    assert.ok(Object.keys(calls).length >= 2, `several spans were summarized: ${JSON.stringify(calls)}`);
    for (const [span, count] of Object.entries(calls)) assert.equal(count, 1, `span ${span} was paid ${count} times`);
    // Nor two overlapping spans paid (a replica that read another's writes of the same turn).
    const ranges = Object.keys(calls).map((span) => span.split('-').map(Number)).sort((a, b) => a[0] - b[0]);
    for (let k = 1; k < ranges.length; k += 1) assert.ok(ranges[k][0] > ranges[k - 1][1], `paid spans overlap: ${JSON.stringify(calls)}`);
    assert.equal(last.paidCallsSoFar, stub.requests.length - from, 'the processes count what the server billed');
    assert.deepEqual(Object.values(last.summaryWritesSoFar), Object.keys(calls).map(() => 1), 'one write a span');
    // Every turn, every run: a fold, a coalesced wait, a claim held elsewhere, or a stored summary.
    for (const record of records) assert.equal(record.runs.length, 32, `turn ${record.turn}: 8 × 4 runs`);
    const elsewhere = records.reduce((sum, record) => sum + (record.events['summarized-elsewhere'] ?? 0), 0);
    assert.ok(elsewhere > 0, 'other processes found the span claimed');
    assert.ok(!records.some((record) => record.runs.some((run) => run.recallIds.some((id) => id.startsWith('msg-summary-claim-')))),
      'no claim reaches recall');
    const { summaries, claims } = assertNoEntryLost(await readStore(options), turns);
    assert.equal(summaries.length, Object.keys(calls).length);
    for (const summary of summaries) {
      const { fromTurn, toTurn, coveredIds } = summary.metadata.summarizes;
      assert.equal(coveredIds.at(-1), `msg-summary-claim-${fromTurn}-${toTurn}`, 'the summary names its claim');
      assert.ok(claims.some((claim) => claim.id === coveredIds.at(-1)), 'the claim is in the store');
    }
    assert.match(result.stderr, /paid calls per process +(\d+, ){7}\d+/);
  });
}

test('sqlite: --no-claims pays for each span once per process (what claims save)', { timeout: 120_000 }, async () => {
  respond = (request, res) => answer(res, summaryText(request));
  const options = storeOptions('sqlite');
  const from = stub.requests.length;
  const result = await runCli(['--reset', '--json', '--turns', '12', '--processes', '4', '--concurrency', '2', '--no-claims', ...storeArgs(options), ...openAiArgs()]);
  assert.equal(result.code, 0, result.stderr);
  const calls = callsBySpan(from);
  assert.ok(Object.keys(calls).length >= 1);
  for (const [span, count] of Object.entries(calls)) assert.equal(count, 4, `span ${span}: once per process (single flight inside each)`);
});

/** A store holding turns 1..`turns` of the demo conversation and nothing else, stamped as the demo does. */
async function writeTurns(options, turns) {
  await resetStore(options);
  const store = await openStore(options);
  try {
    let at = Date.now() - 60_000;
    for (let turn = 1; turn <= turns; turn += 1) {
      for (const [index, message] of turnMessages(turn).entries()) {
        await store.put(IDENTITY, messageEntry({ turn, index, message, identity: IDENTITY, at: (at += 1) }));
      }
    }
  } finally {
    await store.close();
  }
}

const workerOptions = (store, more) => ({
  ...store,
  llm: 'openai',
  baseUrl: stub.baseUrl,
  model: 'stub-mini',
  apiKeyEnv: 'FPS_FLEET_TEST_NO_KEY',
  concurrency: 2,
  claims: true,
  ...more,
});

async function startFleet(count, options) {
  return Promise.all(Array.from({ length: count }, (_, index) => startWorker(index, options, Date.now())));
}

/**
 * The stub answers every call but the first: the process that made it is
 * killed once that call is at the server (mid-call). `at` holds when the
 * first and the second call arrived; `killed` resolves to the killed leader.
 */
function killTheFirstCaller(workers) {
  const at = { firstCall: undefined, secondCall: undefined };
  let firstCallArrived;
  const arrived = new Promise((resolveArrived) => (firstCallArrived = resolveArrived));
  respond = (request, res) => {
    if (at.firstCall === undefined) {
      at.firstCall = Date.now();
      firstCallArrived();
      return;
    }
    at.secondCall ??= Date.now();
    answer(res, summaryText(request));
  };
  const calling = new Promise((resolveCalling) => {
    for (const worker of workers) {
      worker.listeners.add((message) => message.type === 'calling' && resolveCalling(worker));
    }
  });
  const killed = Promise.all([calling, arrived]).then(([leader]) => {
    leader.child.kill('SIGKILL');
    return leader;
  });
  return { at, killed };
}

const eventsOf = (dones) => dones.flatMap((done) => done.runs.flatMap((run) => run.events));

for (const kind of ['redis', 'sqlite']) {
  test(`${kind}: a leader killed mid-call leaves a claim that expires; the span is paid exactly once more, after the lease`, { timeout: 120_000 }, async () => {
    const options = storeOptions(kind);
    await writeTurns(options, 11);
    // No deadline: the leader waits on its call until it is killed.
    const leaseMs = 2000;
    const workers = await startFleet(4, workerOptions(options, { leaseMs }));
    const from = stub.requests.length;
    const { at, killed } = killTheFirstCaller(workers);
    try {
      // A retried request: the same recall on every process, so the same span.
      const first = await playTurn(workers, 12, { replay: true });
      const leader = await killed;
      await leader.exited;
      assert.equal(leader.exit.signal, 'SIGKILL');
      assert.equal(first.length, 3, 'the three others answered the turn');
      assert.ok(eventsOf(first).every((event) => event.reason.startsWith('summarized-elsewhere')), 'they found it claimed');
      // Retried every 100 ms: verbatim while the dead leader's lease holds, then one pays.
      const events = [];
      while (at.secondCall === undefined) {
        events.push(...eventsOf(await playTurn(workers, 12, { replay: true })));
        await sleep(100);
        assert.ok(Date.now() - at.firstCall < 20_000, 'the span is paid again within its lease and a bit');
      }
      const calls = callsBySpan(from);
      assert.deepEqual(Object.values(calls), [2], `one span, paid by the dead leader and once more: ${JSON.stringify(calls)}`);
      assert.ok(at.secondCall - at.firstCall >= leaseMs - 100, `paid again ${at.secondCall - at.firstCall} ms after the first call, the lease is ${leaseMs}`);
      assert.ok(events.some((event) => event.reason.startsWith('summarized-elsewhere')), 'retries inside the lease made no call');
      // Afterwards every retry loads the summary.
      const later = await playTurn(workers, 12, { replay: true });
      assert.equal(stub.requests.length - from, 2, 'no further call');
      assert.ok(later.every((done) => done.runs.every((run) => /^msg-summary-\d/.test(run.recallIds[0]))), 'recall starts with the summary');
      const writes = later.reduce((sum, done) => sum + Object.values(done.summaryWrites).reduce((a, b) => a + b, 0), 0);
      assert.equal(writes, 1, 'one summary write');
      const { summaries } = assertNoEntryLost(await readStore(options), 11);
      assert.equal(summaries.length, 1);
    } finally {
      await stopWorkers(workers);
    }
  });
}

for (const kind of ['redis', 'sqlite']) {
  test(`${kind}: background folds: a leader killed during its background call leaves a claim that expires; the span is paid exactly once more, after the lease`, { timeout: 120_000 }, async () => {
    const options = storeOptions(kind);
    await writeTurns(options, 11);
    // A background call's deadline is timeoutMs; the lease must be at least three of them.
    const timeoutMs = 1000;
    const leaseMs = 3000;
    const workers = await startFleet(4, workerOptions(options, { background: true, timeoutMs, leaseMs }));
    const from = stub.requests.length;
    const { at, killed } = killTheFirstCaller(workers);
    const endsOf = (settled) => settled.flatMap((done) => done.ends);
    try {
      // Every visit returns without waiting for the call: recall verbatim, the fold in the background.
      const first = await playTurn(workers, 12, { replay: true });
      assert.equal(first.length, 4, 'every process answered the turn');
      assert.ok(eventsOf(first).every((event) => event.reason.startsWith('fold-in-background') && event.evidence.background === true),
        JSON.stringify(eventsOf(first).map((event) => event.reason.slice(0, 40))));
      assert.ok(first.every((done) => done.runs.every((run) => run.recallIds[0] === 'msg-1-0')), 'recall is served verbatim meanwhile');
      const leader = await killed;
      await leader.exited;
      assert.equal(leader.exit.signal, 'SIGKILL');
      // The three others' folds found the span claimed, and said so to onEvent.
      const others = endsOf(await settleWorkers(workers));
      assert.equal(others.length, 3, JSON.stringify(others));
      assert.ok(others.every((end) => end.reason.startsWith('summarized-elsewhere') && end.evidence.background === true),
        JSON.stringify(others.map((end) => end.reason.slice(0, 40))));
      // Retried every 100 ms: background folds find the dead leader's lease, then one pays.
      const ends = [];
      while (at.secondCall === undefined) {
        const turn = await playTurn(workers, 12, { replay: true });
        assert.ok(eventsOf(turn).every((event) => event.evidence.background === true), 'every visit is served at once');
        ends.push(...endsOf(await settleWorkers(workers)));
        await sleep(100);
        assert.ok(Date.now() - at.firstCall < 20_000, 'the span is paid again within its lease and a bit');
      }
      ends.push(...endsOf(await settleWorkers(workers)));
      const calls = callsBySpan(from);
      assert.deepEqual(Object.values(calls), [2], `one span, paid by the dead leader and once more: ${JSON.stringify(calls)}`);
      assert.ok(at.secondCall - at.firstCall >= leaseMs - 100, `paid again ${at.secondCall - at.firstCall} ms after the first call, the lease is ${leaseMs}`);
      assert.ok(ends.some((end) => end.reason.startsWith('summarized-elsewhere')), 'retries inside the lease made no call');
      const folded = ends.filter((end) => end.reason.startsWith('folded'));
      assert.equal(folded.length, 1, `one background fold wrote the summary: ${JSON.stringify(ends.map((end) => end.reason.slice(0, 40)))}`);
      assert.equal(folded[0].evidence.background, true);
      // Afterwards every retry loads the summary, and makes no call.
      const later = await playTurn(workers, 12, { replay: true });
      await settleWorkers(workers);
      assert.equal(stub.requests.length - from, 2, 'no further call');
      assert.ok(later.every((done) => done.runs.every((run) => /^msg-summary-\d/.test(run.recallIds[0]))), 'recall starts with the summary');
      const writes = workers.filter((worker) => worker.alive)
        .reduce((sum, worker) => sum + Object.values(worker.summaryWrites).reduce((a, b) => a + b, 0), 0);
      assert.equal(writes, 1, 'one summary write');
      const { summaries } = assertNoEntryLost(await readStore(options), 11);
      assert.equal(summaries.length, 1);
    } finally {
      await stopWorkers(workers);
    }
  });
}

test('redis: a server killed and restarted mid-turn: claims time out, recall is served verbatim with an event, and no entry is lost', { timeout: 120_000 }, async () => {
  respond = (request, res) => answer(res, summaryText(request));
  const options = storeOptions('redis');
  await writeTurns(options, 11);
  const timeoutMs = 800;
  const workers = await startFleet(4, workerOptions(options, { timeoutMs, concurrency: 1 }));
  const from = stub.requests.length;
  try {
    // Every process has loaded turn 12's recall; then the server dies.
    const loaded = workers.map((worker) => worker.next('loaded'));
    const dones = playTurn(workers, 12, { holdAfterLoad: true });
    await Promise.all(loaded);
    await redis.kill();
    for (const worker of workers) worker.child.send({ type: 'go' });
    // The claims wait for the server past the stage's deadline; then it comes back.
    await sleep(timeoutMs + 700);
    await redis.start();
    const turn12 = await dones;
    assert.equal(turn12.length, 4, 'every process finished the turn');
    for (const done of turn12) {
      const [run] = done.runs;
      assert.equal(run.events.length, 1);
      assert.match(run.events[0].reason, /^claim-failed: .*timed out after 800 ms/s);
      assert.equal(run.events[0].evidence.summarizerCalled, false);
      assert.equal(run.recallIds.length, 22, 'recall is the loaded 11 turns, verbatim');
    }
    assert.equal(stub.requests.length - from, 0, 'no call was paid without a claim');
    // The claims that timed out landed when the server came back, and were given up behind them.
    const raw = createClient({ url: redis.url });
    await raw.connect();
    try {
      const text = await raw.hGet(hashKey(IDENTITY), 'msg-summary-claim-1-9');
      assert.ok(text, 'a claim made during the outage landed once the server was back');
      const claim = JSON.parse(text);
      assert.ok(claim.ttl <= Date.now(), `and was given up behind it (ttl ${claim.ttl}, now ${Date.now()})`);
      assert.ok(claim.ttl < claim.metadata.summaryClaim.claimedAtMs + claim.metadata.summaryClaim.leaseMs, 'before its lease ended');
    } finally {
      await raw.close();
    }
    // The next turn folds, once for the fleet.
    const turn13 = await playTurn(workers, 13);
    const folded = eventsOf(turn13).filter((event) => event.reason.startsWith('folded') && event.evidence.summarizerCalled);
    assert.equal(folded.length, 1, 'one process paid');
    assert.equal(stub.requests.length - from, 1);
    const { summaries } = assertNoEntryLost(await readStore(options), 13);
    assert.equal(summaries.length, 1);
  } finally {
    await stopWorkers(workers);
  }
});
