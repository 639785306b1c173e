// The bench's fleet section: what claims (`claims: true`) save a fleet of
// processes sharing one store, and what they cost each fold, on a real Redis
// started here on a free loopback port:
//
// 1. Paid summarizer calls per span: the demo's fleet (`--processes P`, each
//    process playing every turn of the conversation, 2 concurrent runs a
//    turn each) with 1, 4 and 16 processes, with and without claims. The
//    summarizer is the package's offline extractive one, counted as a paid
//    call per answer (what a hosted model would bill).
// 2. A claim's round trip per fold: `stage.fold` over the Redis store with
//    claims on and off, interleaved in one process, every fold over a new
//    conversation so each one claims and pays. The difference is what a
//    claim adds to a turn that folds; other turns make no claim.
//
// A problem is reported when a fleet did not produce the outcome it is named
// after: with claims, one paid call a span; without them, more than one from
// 4 processes on.

import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

import { openRedisStore } from '../tests/support/redis-store.mjs';
import { startRedis } from '../tests/support/redis-server.mjs';
import { messageEntry } from '../tests/support/memory-pipeline.mjs';
import { jsonRecords, runDemoCli } from '../tests/support/run-node.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const CONCURRENCY = 2;

async function demo(args) {
  const { code, stdout, stderr } = await runDemoCli(args);
  if (code !== 0) throw new Error(`demo ${args.join(' ')} exited ${code}: ${stderr}`);
  return stdout;
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function paidPerSpan(redis, turns, progress) {
  const rows = [];
  for (const processes of [1, 4, 16]) {
    for (const claims of [true, false]) {
      progress(`fleet: ${processes} processes, claims ${claims ? 'on' : 'off'}`);
      const args = ['--reset', '--json', '--redis', redis.url, '--turns', String(turns), '--processes', String(processes), '--concurrency', String(CONCURRENCY)];
      const records = jsonRecords(await demo(claims ? args : [...args, '--no-claims']));
      const last = records.at(-1);
      const spans = Object.keys(last.summaryWritesSoFar).length;
      const writes = Object.values(last.summaryWritesSoFar).reduce((a, b) => a + b, 0);
      rows.push({ processes, claims, paid: last.paidCallsSoFar, spans, writes });
    }
  }
  return rows;
}

/** One conversation of 12 turns, 2 messages a turn, ~200 chars each: a fold of turns 1–10. */
function conversation(conversationId) {
  const identity = { conversationId };
  return Array.from({ length: 24 }, (_, k) => {
    const turn = Math.floor(k / 2) + 1;
    const content = `Turn ${turn}: order #NW-${48000 + turn} ships on May ${turn}. `.repeat(4);
    const message = { role: k % 2 ? 'assistant' : 'user', content };
    return messageEntry({ turn, index: k % 2, message, identity, at: turn * 10 + (k % 2) });
  });
}

async function claimCost(redis, folds) {
  const pkg = await import(pathToFileURL(join(ROOT, 'pkg/dist/index.mjs')).href);
  const store = await openRedisStore(redis.url);
  const llm = pkg.extractive({ maxChars: 200 });
  const base = { llm, store, triggerMinEntries: 12, preserveRecent: 4 };
  const stages = { off: pkg.summarize(base), on: pkg.summarize({ ...base, claims: true }) };
  const times = { off: [], on: [] };
  let n = 0;
  const foldOnce = async (mode) => {
    const identity = { conversationId: `bench-${mode}-${(n += 1)}` };
    const started = performance.now();
    const { events } = await stages[mode].fold(conversation(identity.conversationId), identity);
    times[mode].push(performance.now() - started);
    if (!events[0]?.payload.reason.startsWith('folded')) throw new Error(`a fold did not fold: ${events[0]?.payload.reason}`);
  };
  for (let i = 0; i < 50; i += 1) for (const mode of ['off', 'on']) await foldOnce(mode); // warm-up
  times.off.length = 0;
  times.on.length = 0;
  for (let i = 0; i < folds; i += 1) for (const mode of i % 2 ? ['off', 'on'] : ['on', 'off']) await foldOnce(mode);
  const rtt = [];
  for (let i = 0; i < folds; i += 1) {
    const started = performance.now();
    await store.putIfVersion({ conversationId: 'bench-rtt' }, { id: `claim-${i}`, version: 1, ttl: Date.now() + 60_000 }, 0);
    rtt.push(performance.now() - started);
  }
  await store.close();
  return { off: median(times.off), on: median(times.on), rtt: median(rtt) };
}

/**
 * The section: `quick` (the test command) plays 14 turns and times 40 folds
 * a mode, the default 30 turns and 400 folds.
 */
export async function measureFleet(quick, progress) {
  const turns = quick ? 14 : 30;
  const folds = quick ? 40 : 400;
  // Redis as it ships (no fsync per write): the claim's cost, not the disk's.
  const redis = await startRedis({ fsyncEveryWrite: false });
  try {
    const rows = await paidPerSpan(redis, turns, progress);
    progress('fleet: a claim\'s cost per fold');
    const cost = await claimCost(redis, folds);
    const problems = rows
      .filter((row) => row.spans === 0 || (row.claims || row.processes === 1 ? row.paid !== row.spans : row.paid <= row.spans))
      .map((row) => `${row.processes} processes, claims ${row.claims ? 'on' : 'off'}: ${row.paid} paid over ${row.spans} spans`);
    return { turns, folds, concurrency: CONCURRENCY, rows, cost, problems };
  } finally {
    await redis.stop();
  }
}

/** The section as markdown lines. */
export function renderFleet({ turns, folds, concurrency, rows, cost }) {
  return [
    `### Fleet: paid summarizer calls per span (${turns} turns, ${concurrency} concurrent runs a turn in each process, Redis)`,
    '',
    'Measured on the package in `pkg/dist`, which the demo\'s fleet workers load: `--subject` and `--baseline` do not apply here.',
    '',
    '| processes | claims | paid calls | spans written | summary writes | paid calls per span |',
    '|---:|:---|---:|---:|---:|---:|',
    ...rows.map((row) => `| ${row.processes} | ${row.claims ? 'on' : 'off'} | ${row.paid} | ${row.spans} | ${row.writes} | ${(row.paid / row.spans).toFixed(2)} |`),
    '',
    `### Fleet: a claim's round trip per fold (median of ${folds} folds each, interleaved, Redis on loopback, no fsync per write)`,
    '',
    '| | ms per fold |',
    '|:---|---:|',
    `| claims off | ${cost.off.toFixed(3)} |`,
    `| claims on | ${cost.on.toFixed(3)} |`,
    `| difference (the claim) | ${(cost.on - cost.off).toFixed(3)} |`,
    `| putIfVersion alone | ${cost.rtt.toFixed(3)} |`,
    '',
    `ratio on/off: ${(cost.on / cost.off).toFixed(2)}×`,
  ];
}
