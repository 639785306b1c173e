// `footprint-summarize/agentfootprint` against a real agentfootprint (the
// vendored 9.62, installed in a scratch project beside the packed tarball):
// the definition agentfootprint's own `defineMemory` builds, with only the
// summarize stage replaced; the same system prompts, paid calls, store writes
// and event reasons through a real Agent, turn by turn; refusals; background
// folds that no turn waits for; and a fleet of processes on agentfootprint's
// own RedisStore paying once a span. Skipped, with the reason, where
// agentfootprint is not installed.

import assert from 'node:assert/strict';
import { execFile, fork } from 'node:child_process';
import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

import { turnMessages } from '../../examples/demo/conversation.mjs';
import { startRedis } from '../support/redis-server.mjs';
import { projectWithAgentfootprint, skipWithoutAgentfootprint as skip } from './lib/agentfootprint.mjs';
import { repoRoot } from './lib/scratch.mjs';

const runFile = promisify(execFile);

const IDENTITY = Object.freeze({ conversationId: 'c-agentfootprint' });
/** Entry fields a store stamps with the wall clock: the two runs differ there only. */
const CLOCK_FIELDS = ['createdAt', 'updatedAt', 'lastAccessedAt', 'accessCount'];

let project;
let Agent;
let mock;
let memory; // agentfootprint/memory
let ours; // footprint-summarize/agentfootprint
let pkg; // footprint-summarize

before(async () => {
  if (skip) return;
  project = await projectWithAgentfootprint();
  ({ Agent } = await project.importPackage('agentfootprint'));
  ({ mock } = await project.importPackage('agentfootprint/providers'));
  memory = await project.importPackage('agentfootprint/memory');
  ours = await project.importPackage('footprint-summarize/agentfootprint');
  pkg = await project.importPackage();
});

/**
 * A summarizer provider that records each request and answers with a short
 * text made from it (the same request gets the same summary), after `wait`
 * resolves when one is given.
 */
function recordingSummarizer(wait) {
  const requests = [];
  return {
    requests,
    name: 'summarizer',
    async complete(request) {
      requests.push({ model: request.model, systemPrompt: request.systemPrompt, messages: request.messages });
      if (wait) await wait();
      const last = request.messages.at(-1)?.content ?? '';
      const content = `Summary of ${request.messages.length} messages; the last said: ${String(last).slice(0, 80)}`;
      return { content, toolCalls: [], usage: { input: 100, output: 20 }, stopReason: 'stop' };
    },
  };
}

/** The memory options of the declaration, with `strategy` on top. */
function memoryOptions(store, llm, strategy = {}) {
  return {
    id: 'chat',
    type: memory.MEMORY_TYPES.EPISODIC,
    store,
    strategy: { kind: memory.MEMORY_STRATEGIES.SUMMARIZE, llm, model: 'claude-haiku-4-5', recent: 4, ...strategy },
  };
}

/** The store's entries as the two runs can be compared: by id, without clock fields. */
async function storedEntries(store) {
  const { entries } = await store.list(IDENTITY, { limit: 1000 });
  return entries
    .map((entry) => Object.fromEntries(Object.entries(entry).filter(([key]) => !CLOCK_FIELDS.includes(key))))
    .sort((a, b) => (a.id < b.id ? -1 : 1));
}

/**
 * Plays `turns` turns of the demo's support conversation through a real
 * Agent whose memory `defineMemory` built. One record a turn: the system
 * prompt the agent's model was sent, the summarizer's requests, the events'
 * reasons and the store's entries after the turn. The clock reads one time
 * a turn, the same in both runs: the prompt shows each entry's `updatedAt`,
 * which the store stamps with Date.now().
 */
async function converse(defineMemory, { turns, strategy = {} }) {
  const store = new memory.InMemoryStore();
  const summarizer = recordingSummarizer();
  const definition = defineMemory(memoryOptions(store, summarizer, strategy));
  let record;
  // No delay between streamed chunks (the mock's default is 30 ms a chunk).
  const main = mock({
    chunkDelayMs: 0,
    respond: (request) => {
      record.prompt = request.systemPrompt ?? '';
      return turnMessages(record.turn)[1].content;
    },
  });
  const agent = Agent.create({ provider: main, model: 'main-model' }).memory(definition).build();
  agent.on('agentfootprint.memory.strategy_applied', (event) => record.reasons.push(event.payload.reason));
  const records = [];
  const realNow = Date.now;
  Date.now = () => 1_767_225_600_000 + record.turn * 60_000;
  try {
    for (let turn = 1; turn <= turns; turn += 1) {
      record = { turn, reasons: [], calls: summarizer.requests.length };
      await agent.run({ message: turnMessages(turn)[0].content, identity: IDENTITY });
      record.calls = summarizer.requests.slice(record.calls);
      record.entries = await storedEntries(store);
      records.push(record);
    }
  } finally {
    Date.now = realNow;
  }
  return records;
}

/** SPEC §6's stable tokens: a reason's words beyond them are each stage's own. */
const STABLE_TOKENS = [
  'already covered', 'not re-asked', 'summarizer-failed', 'verbatim', 'replacement-not-smaller', 'no call made',
  'write-back FAILED', 'written back', 'no store configured', 'invalid-input', 'summarized-elsewhere', 'claim-failed',
  'fold-in-background',
];
const tokensOf = (reason) => STABLE_TOKENS.filter((token) => reason.includes(token));

/**
 * The entries as the original writes them: a summary's coverage without
 * `droppedDetails`, which this stage adds (beyond the original, SPEC §2).
 */
function withoutDroppedDetails(entries) {
  return entries.map((entry) => {
    const coverage = entry.metadata?.summarizes;
    if (coverage?.droppedDetails === undefined) return entry;
    const { droppedDetails, ...original } = coverage;
    assert.ok(droppedDetails.length > 0, `${entry.id} lists what its summary dropped`);
    return { ...entry, metadata: { ...entry.metadata, summarizes: original } };
  });
}

/** A chart as agentfootprint builds it, but for its stages' functions. */
const chartShape = (chart) => ({
  structure: chart.buildTimeStructure,
  description: chart.description,
  stageDescriptions: [...chart.stageDescriptions],
  stages: [...chart.stageMap.keys()],
});

test('EPISODIC × SUMMARIZE: agentfootprint\'s definition, its read chart the same but for the summarize stage', { skip }, () => {
  for (const strategy of [{}, { size: 12, systemPrompt: 'Summarize tersely.' }]) {
    const store = new memory.InMemoryStore();
    const llm = recordingSummarizer();
    const theirs = memory.defineMemory(memoryOptions(store, llm, strategy));
    const mine = ours.defineMemory(memoryOptions(store, llm, strategy));
    const { read: theirRead, write: theirWrite, ...theirFields } = theirs;
    const { read: myRead, write: myWrite, ...myFields } = mine;
    assert.deepEqual(myFields, theirFields, 'id, type, strategy, timing, billing and store are agentfootprint\'s');
    assert.equal(mine.store, store);
    assert.equal(mine.billing.provider, llm, 'the billing agentfootprint checks names the summarizer');
    assert.ok(Object.isFrozen(mine));
    assert.deepEqual(chartShape(myWrite), chartShape(theirWrite), 'the write pipeline is agentfootprint\'s');
    assert.deepEqual(chartShape(myRead), chartShape(theirRead), 'the same stages, names, ids and descriptions');
    assert.notEqual(myRead.stageMap.get('summarize'), theirRead.stageMap.get('summarize'));
    assert.equal(myRead.stageMap.get('summarize'), ours.summarizeStageOf(mine), 'the summarize step runs this package\'s stage');
    assert.equal(typeof ours.summarizeStageOf(mine).fold, 'function');
  }
});

test('every other type and strategy is agentfootprint\'s own, and so is the rest of the door', { skip }, () => {
  const store = new memory.InMemoryStore();
  const window = { id: 'w', type: memory.MEMORY_TYPES.EPISODIC, store, strategy: { kind: memory.MEMORY_STRATEGIES.WINDOW, size: 10 } };
  const mine = ours.defineMemory(window);
  assert.deepEqual(chartShape(mine.read), chartShape(memory.defineMemory(window).read));
  assert.equal(ours.summarizeStageOf(mine), undefined);
  const semantic = { ...window, type: memory.MEMORY_TYPES.SEMANTIC, strategy: { kind: memory.MEMORY_STRATEGIES.SUMMARIZE, recent: 2 } };
  assert.throws(() => ours.defineMemory(semantic), { message: captureMessage(() => memory.defineMemory(semantic)) });
  for (const name of ['InMemoryStore', 'RedisStore', 'MEMORY_TYPES', 'MEMORY_STRATEGIES', 'MEMORY_TIMING', 'loadRecent', 'defaultPipeline']) {
    assert.equal(ours[name], memory[name], `${name} is agentfootprint's`);
  }
  assert.notEqual(ours.defineMemory, memory.defineMemory);
});

function captureMessage(build) {
  try {
    build();
  } catch (error) {
    return error.message;
  }
  assert.fail('agentfootprint accepted it');
}

test('refusals at defineMemory: agentfootprint\'s own first, then each misplaced, misspelled or refused option named', { skip }, () => {
  const store = new memory.InMemoryStore();
  const llm = recordingSummarizer();
  const define = (strategy, top = {}) => () => ours.defineMemory({ ...memoryOptions(store, llm, strategy), ...top });
  // agentfootprint's: no model, a tail as large as the window, readOnly.
  for (const [strategy, top] of [[{ model: undefined }, {}], [{ recent: 20 }, {}], [{}, { readOnly: true }]]) {
    const theirs = captureMessage(() => memory.defineMemory({ ...memoryOptions(store, llm, strategy), ...top }));
    assert.throws(define(strategy, top), { message: theirs });
  }
  assert.throws(define({ maxSumaries: 1 }), {
    name: 'TypeError',
    message: /^defineMemory\[chat\]: in `strategy`, summarize\(config\): `maxSumaries` is not an option \(received a number \(1\)\).*did you mean `maxSummaries`\?$/,
  });
  assert.throws(define({}, { background: true }), {
    name: 'TypeError',
    message: /^defineMemory\[chat\]: `background` is not an option of defineMemory \(received a boolean \(true\)\).*go in `strategy`/,
  });
  assert.throws(define({ preserveRecent: 2 }), {
    name: 'TypeError',
    message: /^defineMemory\[chat\]: `strategy.preserveRecent` is set by defineMemory from `recent` \(received a number \(2\)\)\. Fix: remove it from `strategy` and set `recent` instead\.$/,
  });
  for (const key of ['store', 'triggerMinEntries', 'strategyId']) assert.throws(define({ [key]: 1 }), { message: new RegExp(`\`strategy.${key}\` is set by defineMemory`) });
  assert.throws(define({ timeoutMs: -5 }), { name: 'RangeError', message: /^defineMemory\[chat\]: in `strategy`, summarize\(config\): `timeoutMs` .*-5/ });
  assert.throws(define({ maxSpanBytes: 10 }), { message: /`maxSpanBytes` is not an option/ }, 'an option summarize does not take');
  assert.throws(define({ maxSpanChars: 10 }), { name: 'RangeError', message: /^defineMemory\[chat\]: in `strategy`, summarize\(config\): `maxSpanChars` must be at least \d+/ });
  // Options beyond the original are taken.
  const built = ours.defineMemory(memoryOptions(store, llm, { background: true, claims: false, maxSummaries: 1, keepDetails: true, timeoutMs: 5000, maxSpanChars: 40_000 }));
  assert.equal(typeof ours.summarizeStageOf(built).settled, 'function');
});

for (const [name, strategy] of [
  ['the issue\'s declaration, size left to its default (20)', {}],
  ['size 12 and a systemPrompt', { size: 12, recent: 3, systemPrompt: 'Summarize the conversation in one short paragraph.' }],
]) {
  test(`parity through a real Agent, 36 turns (${name}): prompts, paid calls, store writes and reasons`, { skip, timeout: 180_000 }, async () => {
    const theirs = await converse(memory.defineMemory, { turns: 36, strategy });
    const mine = await converse(ours.defineMemory, { turns: 36, strategy });
    const paid = (records) => records.flatMap((record) => record.calls);
    assert.ok(paid(theirs).length >= 3, `agentfootprint's stage called: ${paid(theirs).length} calls`);
    assert.ok(theirs.at(-1).prompt.includes('[summary of earlier turns'), 'the last prompt holds a summary');
    let saved = 0;
    for (const [index, their] of theirs.entries()) {
      const my = mine[index];
      const where = `turn ${my.turn}`;
      assert.equal(my.prompt, their.prompt, `${where}: the system prompt`);
      assert.deepEqual(withoutDroppedDetails(my.entries), their.entries, `${where}: the store's entries`);
      assert.equal(my.reasons.length, their.reasons.length, `${where}: one event each, or none`);
      for (const [k, reason] of my.reasons.entries()) {
        // A fold's and a covered span's sentences are the original's; the
        // others say the same tokens in the package's words (SPEC §6).
        if (/written back|already covered/.test(their.reasons[k])) assert.equal(reason, their.reasons[k], where);
        else assert.deepEqual(tokensOf(reason).filter((token) => token !== 'no call made'), tokensOf(their.reasons[k]), `${where}: ${reason}`);
      }
      if (my.reasons.some((reason) => reason.includes('no call made'))) {
        // The label rule (always on, beyond the original): no call for a span
        // its label alone outgrows. agentfootprint's stage pays for it, and
        // throws the answer away as not smaller.
        assert.equal(my.calls.length, 0, where);
        assert.equal(their.calls.length, 1, where);
        assert.match(their.reasons[0], /^replacement-not-smaller/, where);
        saved += 1;
        continue;
      }
      // The same paid calls: model and transcript, and the strategy's
      // systemPrompt; without one, each stage sends its own default
      // instruction (this package's names the transcript's layout, SPEC §5).
      const instructionless = ({ systemPrompt, ...request }) => request;
      assert.deepEqual(my.calls.map(instructionless), their.calls.map(instructionless), `${where}: the paid calls`);
      for (const call of my.calls) assert.equal(call.systemPrompt, strategy.systemPrompt ?? call.systemPrompt.match(/.*never follow it.*/s)?.[0], where);
    }
    console.log(`# parity (${name}): 36 turns; agentfootprint's stage paid ${paid(theirs).length} calls, this one ${paid(mine).length} (${saved} it would have thrown away not made); ${mine.at(-1).entries.length} entries stored; ${mine.flatMap((record) => record.reasons).length} events`);
  });
}

test('background: true through defineMemory: no turn waits for a summarizer that has not answered, and the folds land', { skip, timeout: 120_000 }, async () => {
  let open;
  const gate = new Promise((resolve) => (open = resolve));
  const summarizer = recordingSummarizer(() => gate);
  const store = new memory.InMemoryStore();
  const definition = ours.defineMemory(memoryOptions(store, summarizer, { size: 12, background: true }));
  let turn = 0;
  const prompts = [];
  // No delay between streamed chunks (the mock's default is 30 ms a chunk).
  const main = mock({
    chunkDelayMs: 0,
    respond: (request) => {
      prompts[turn - 1] = request.systemPrompt ?? '';
      return turnMessages(turn)[1].content;
    },
  });
  const agent = Agent.create({ provider: main, model: 'main-model' }).memory(definition).build();
  const reasons = [];
  agent.on('agentfootprint.memory.strategy_applied', (event) => reasons.push(event.payload.reason));
  const play = async (upTo) => {
    for (turn += 1; turn <= upTo; turn += 1) {
      const ran = agent.run({ message: turnMessages(turn)[0].content, identity: IDENTITY });
      const held = new Promise((_, reject) => setTimeout(() => reject(new Error(`turn ${turn} waited for the summarizer`)), 10_000).unref());
      await Promise.race([ran, held]);
    }
    turn -= 1;
  };
  await play(16);
  assert.ok(summarizer.requests.length >= 1, 'a background fold called the summarizer');
  assert.ok(reasons.some((reason) => reason.startsWith('fold-in-background')), reasons.join('\n'));
  assert.equal((await store.list(IDENTITY, { limit: 1000 })).entries.filter(pkg.isSummaryEntry).length, 0, 'nothing landed while the summarizer held');
  open();
  await ours.summarizeStageOf(definition).settled();
  const summaries = (await store.list(IDENTITY, { limit: 1000 })).entries.filter(pkg.isSummaryEntry);
  assert.ok(summaries.length >= 1, 'the fold landed in the store');
  await play(20);
  assert.ok(prompts.at(-1).includes('[summary of earlier turns'), 'later turns recall the summary');
  const ids = new Set((await store.list(IDENTITY, { limit: 1000 })).entries.map((entry) => entry.id));
  for (let t = 1; t <= 20; t += 1) for (const i of [0, 1]) assert.ok(ids.has(`msg-${t}-${i}`), `msg-${t}-${i} is kept`);
});

test('tsc --strict accepts the declaration with this package\'s options and rejects misuse (nodenext ESM and CommonJS, bundler)', { skip }, async () => {
  const tsc = join(repoRoot, 'node_modules/typescript/bin/tsc');
  const fixture = fileURLToPath(new URL('./fixtures/types/define-memory.ts', import.meta.url));
  for (const [name, extension, flags] of [
    ['nodenext-esm', '.mts', ['--module', 'nodenext', '--moduleResolution', 'nodenext']],
    ['nodenext-cjs', '.cts', ['--module', 'nodenext', '--moduleResolution', 'nodenext']],
    ['bundler', '.ts', ['--module', 'esnext', '--moduleResolution', 'bundler']],
  ]) {
    const file = join(project.dir, `define-memory-${name}${extension}`);
    copyFileSync(fixture, file);
    // agentfootprint's own declarations name optional peers it does not
    // install, so libraries are not checked; a type that did not resolve
    // would leave the misuse above unflagged, which fails the run.
    const result = await runFile(process.execPath, [tsc, '--strict', '--noEmit', '--skipLibCheck', '--target', 'es2022', '--pretty', 'false', ...flags, file], { cwd: project.dir }).catch((error) => error);
    assert.equal(result.code ?? 0, 0, `${name}: tsc reported:\n${result.stdout}${result.stderr}`);
  }
});

let redis;
after(async () => {
  await redis?.stop();
});

test('a fleet of 4 processes on agentfootprint\'s RedisStore, claims: true: one paid call a span', { skip, timeout: 240_000 }, async () => {
  redis = await startRedis();
  const worker = join(project.dir, 'agentfootprint-fleet-worker.mjs');
  copyFileSync(fileURLToPath(new URL('./fixtures/agentfootprint-fleet-worker.mjs', import.meta.url)), worker);
  const conversation = new URL('../../examples/demo/conversation.mjs', import.meta.url).href;
  const workers = Array.from({ length: 4 }, () => fork(worker, [], { cwd: project.dir, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }));
  const next = (child, type) =>
    new Promise((resolve, reject) => {
      const onMessage = (message) => {
        if (message.type === 'failed') reject(new Error(message.message));
        else if (message.type === type) {
          child.off('message', onMessage);
          resolve(message);
        }
      };
      child.on('message', onMessage);
    });
  const all = (type) => Promise.all(workers.map((child) => next(child, type)));
  try {
    const ready = all('ready');
    for (const child of workers) child.send({ type: 'start', redisUrl: redis.url, identity: IDENTITY, conversation });
    await ready;
    const turns = 24;
    const paid = {};
    let calls = 0;
    const reasons = [];
    for (let turn = 1; turn <= turns; turn += 1) {
      // Every replica plays the turn; their writes wait until all four have
      // read the store, so all four take the same turn number and recall.
      const writing = all('writing');
      const done = all('done');
      for (const child of workers) child.send({ type: 'turn', turn });
      await writing;
      for (const child of workers) child.send({ type: 'write' });
      for (const report of await done) {
        calls += report.calls;
        reasons.push(...report.reasons);
        for (const id of report.paid) paid[id] = (paid[id] ?? 0) + 1;
      }
    }
    const spans = Object.keys(paid);
    assert.ok(spans.length >= 2, `several spans were folded: ${JSON.stringify(paid)}`);
    for (const [span, count] of Object.entries(paid)) assert.equal(count, 1, `${span} was paid ${count} times`);
    assert.equal(calls, spans.length, 'every call the fleet made folded a span of its own');
    assert.ok(reasons.some((reason) => reason.startsWith('summarized-elsewhere')), 'replicas found the span claimed');
    const reader = new ours.RedisStore({ url: redis.url });
    const { entries: stored } = await reader.list(IDENTITY, { limit: 1000 });
    await reader.close();
    const ids = new Set(stored.map((entry) => entry.id));
    for (let t = 1; t <= turns; t += 1) for (const i of [0, 1]) assert.ok(ids.has(`msg-${t}-${i}`), `msg-${t}-${i} is in Redis`);
    assert.ok(!ids.has(`msg-${turns + 1}-0`), 'no replica wrote past the last turn');
    assert.deepEqual(stored.filter(pkg.isSummaryEntry).map((entry) => entry.id).sort(), spans.sort(), 'one summary a paid span');
    console.log(`# fleet: 4 processes × ${turns} turns, ${calls} paid calls for ${spans.length} spans`);
  } finally {
    for (const child of workers) child.kill();
  }
});
