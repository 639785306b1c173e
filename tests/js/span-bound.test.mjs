// §8 Bounded spans (`maxSpanChars`, `maxSpanTokens`): a span bigger than the
// summarizer takes still folds. Conversations with a pasted 1 MB log and
// with many 30 KB tool outputs, against a summarizer that rejects any call
// over its limit, as providers answer a request past a model's context.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';

import { createMemoryStore, isSummaryEntry, messageEntry, selectRecent } from '../support/memory-pipeline.mjs';

const { summarize } = await import('../../pkg/dist/index.mjs');

const LIMIT = 40_000;
const quarter = (text) => Math.ceil(text.length / 4);
const logLine = 'INFO worker heartbeat ok, queue drained, nothing to report\n';

/** A log of about `chars`, with an id at its head, one in its middle and one at its tail. */
function pastedLog(chars, { head = 'RUN-4410', middle = 'ORDER-99173', tail = 'EXIT-7781' } = {}) {
  const half = logLine.repeat(Math.ceil(chars / 2 / logLine.length));
  return `run ${head} started\n${half}checkout failed for ${middle}\n${half}run finished as ${tail}`;
}

/** Ids a summarizer would keep: those it was shown. */
const idsIn = (text) => [...new Set(text.match(/\b[A-Z]{2,}-\d+\b/g) ?? [])];

/**
 * A provider that rejects a call over `limit` (by `count`, the instruction
 * and the transcript as sent) and otherwise answers with the ids it saw.
 */
function providerWithLimit(limit, count = (text) => text.length) {
  const calls = [];
  return {
    calls,
    async complete({ systemPrompt, messages }) {
      const size = count(systemPrompt) + messages.reduce((sum, message) => sum + count(message.content), 0);
      const transcript = messages[0].content;
      calls.push({ size, rejected: size > limit, transcript });
      if (size > limit) throw new Error(`context_length_exceeded: ${size} > ${limit}`);
      return { content: `The conversation covered ${idsIn(transcript).join(', ')}.` };
    },
  };
}

/** The store of the pipeline, with agentfootprint's `putIfVersion`. */
function storeWithClaims() {
  const store = createMemoryStore();
  store.putIfVersion = async (identity, entry, expectedVersion) => {
    const current = (await store.list(identity)).find((stored) => stored.id === entry.id);
    const live = current && !(current.ttl <= Date.now());
    const applied = expectedVersion === 0 ? !live : current?.version === expectedVersion;
    if (applied) await store.put(identity, entry);
    return { applied, currentVersion: applied ? entry.version : current?.version };
  };
  return store;
}

/**
 * `turns` turns of `messagesOf(turn)` through a recency window of `window`
 * entries and the stage, as a memory pipeline runs them: load, fold, then
 * write the turn. What each turn recalled and emitted.
 */
async function converse({ stage, store, turns, messagesOf, window = 40, background = false }) {
  const identity = { conversationId: 'bounded' };
  const seen = [];
  let at = 1_000;
  for (let turn = 1; turn <= turns; turn += 1) {
    const loaded = selectRecent(await store.list(identity), window);
    const { recall, events } = await stage.fold(loaded, identity);
    if (background) await stage.settled();
    seen.push({ turn, recall, events });
    for (const [index, message] of messagesOf(turn).entries()) {
      at += 1;
      await store.put(identity, messageEntry({ turn, index, message, identity, at }));
    }
  }
  return { identity, seen, stored: await store.list(identity) };
}

const chars = (entries) => entries.reduce((sum, entry) => sum + (entry.value.content?.length ?? 0), 0);

/** Every id the stored summaries stand for, through the summaries they took in. */
function coveredIds(stored) {
  return new Set(stored.filter(isSummaryEntry).flatMap((summary) => summary.metadata.summarizes.coveredIds));
}

/** A support conversation; turn 3's user pastes a 1 MB log. */
const withLog = (turn) => [
  { role: 'user', content: turn === 3 ? pastedLog(1_000_000) : `Turn ${turn}: please look at ticket TKT-${1000 + turn}.` },
  { role: 'assistant', content: `Looked at TKT-${1000 + turn}; nothing else is open.` },
];

const logConfig = { model: 'small', triggerMinEntries: 12, preserveRecent: 4 };

test('a 1 MB message: without a bound every call for its span is rejected and recall carries it verbatim', async () => {
  const llm = providerWithLimit(LIMIT);
  const store = createMemoryStore();
  const { seen } = await converse({ stage: summarize({ llm, store, ...logConfig }), store, turns: 30, messagesOf: withLog });
  const rejected = llm.calls.filter((call) => call.rejected);
  assert.ok(rejected.length >= 10, `${rejected.length} of ${llm.calls.length} calls rejected`);
  assert.ok(seen.filter(({ recall }) => chars(recall) > 1_000_000).length >= 15, 'the log stays in recall for good');
  const failed = seen.flatMap(({ events }) => events).find((event) => event.payload.reason.startsWith('summarizer-failed'));
  assert.match(failed.payload.reason, /the call was sent \d{7} chars \(if the summarizer refused it for its size, set maxSpanChars/);
  assert.equal(failed.payload.scoreEvidence.spanBound, undefined, 'no bound, no spanBound');
});

test('a 1 MB message under maxSpanChars: no call over the bound, the log folds cut, its hidden detail is reported, every original is stored', async () => {
  const llm = providerWithLimit(LIMIT);
  const store = createMemoryStore();
  const stage = summarize({ llm, store, ...logConfig, maxSpanChars: LIMIT });
  const { seen, stored } = await converse({ stage, store, turns: 30, messagesOf: withLog });

  assert.ok(llm.calls.length > 0);
  assert.deepEqual(llm.calls.filter((call) => call.size > LIMIT), [], 'no call exceeds the bound');
  const folds = seen.flatMap(({ turn, events }) => events.map((event) => ({ turn, ...event.payload }))).filter((event) => event.reason.startsWith('folded'));
  const logFold = folds.find((fold) => fold.scoreEvidence.spanBound.cut.length > 0);
  assert.ok(logFold, 'a fold sent the log cut');
  assert.ok(logFold.turn <= 3 + 5, `the log folded at turn ${logFold.turn}`);
  const [cut] = logFold.scoreEvidence.spanBound.cut;
  assert.equal(cut.id, 'msg-3-0');
  assert.ok(cut.leftOutChars > 950_000 && cut.leftOutChars < cut.chars, JSON.stringify(cut));
  assert.match(logFold.reason, /within maxSpanChars \(40000\); .*1 message was sent cut, \d+ chars left out/);
  // The summarizer saw the log's head and tail, never its middle: the audit reads it whole.
  const logCall = llm.calls.find((call) => call.transcript.includes('RUN-4410'));
  assert.ok(logCall.transcript.includes('EXIT-7781') && !logCall.transcript.includes('ORDER-99173'));
  assert.match(logCall.transcript, /\[… \d+ characters of this message left out here …\]/);
  assert.deepEqual(logFold.scoreEvidence.droppedDetails, ['ORDER-99173']);

  // Nothing lost: every message is stored as written, and stands for itself or is covered.
  const log = stored.find((entry) => entry.id === 'msg-3-0');
  assert.equal(log.value.content, pastedLog(1_000_000));
  const covered = coveredIds(stored);
  for (let turn = 1; turn <= 20; turn += 1) {
    assert.ok(covered.has(`msg-${turn}-0`) && covered.has(`msg-${turn}-1`), `turn ${turn} is covered by the end`);
  }
  // Recall stays bounded once the log is folded.
  const after = seen.filter(({ turn }) => turn > logFold.turn);
  assert.ok(after.every(({ recall }) => chars(recall) < 5_000), after.map(({ recall }) => chars(recall)).join(' '));
});

test('with keepDetails, the detail only the cut part held is kept in the summary', async () => {
  const llm = providerWithLimit(LIMIT);
  const store = createMemoryStore();
  const stage = summarize({ llm, store, ...logConfig, maxSpanChars: LIMIT, keepDetails: true });
  const { stored } = await converse({ stage, store, turns: 12, messagesOf: withLog });
  const summary = stored.find((entry) => isSummaryEntry(entry) && entry.metadata.summarizes.coveredIds.includes('msg-3-0'));
  assert.ok(summary, 'the log was folded');
  assert.match(summary.value.content, /\n\[exact details from these turns: [^\]]*ORDER-99173/);
  assert.equal(summary.metadata.summarizes.droppedDetails, undefined, 'nothing of the span is lost');
});

/** A tool call every turn, answered with 30 KB of output, an id in its middle. */
const withToolOutput = (turn) => [
  { role: 'user', content: `Turn ${turn}: run the report for JOB-${7000 + turn}.` },
  { role: 'tool', content: pastedLog(30_000, { head: `JOB-${7000 + turn}`, middle: `ROW-${5000 + turn}`, tail: `DONE-${turn}` }) },
  { role: 'assistant', content: `Report JOB-${7000 + turn} is ready.` },
];

test('many 30 KB tool outputs: one call a turn within the bound, and recall stops growing', async () => {
  const bare = providerWithLimit(LIMIT);
  const bareStore = createMemoryStore();
  const unbounded = await converse({ stage: summarize({ llm: bare, store: bareStore, ...logConfig }), store: bareStore, turns: 24, messagesOf: withToolOutput });
  assert.ok(bare.calls.length > 0 && bare.calls.every((call) => call.rejected), 'without a bound, every span of several outputs is rejected');
  assert.ok(chars(unbounded.seen.at(-1).recall) > 300_000, 'and recall holds every output the window loads');

  const llm = providerWithLimit(LIMIT);
  const store = createMemoryStore();
  const { seen, stored } = await converse({ stage: summarize({ llm, store, ...logConfig, maxSpanChars: LIMIT }), store, turns: 24, messagesOf: withToolOutput });
  assert.deepEqual(llm.calls.filter((call) => call.size > LIMIT), []);
  const folds = seen.flatMap(({ events }) => events).filter((event) => event.payload.reason.startsWith('folded'));
  assert.ok(folds.length >= 15, `${folds.length} folds in 24 turns`);
  assert.ok(folds.every((fold) => fold.payload.scoreEvidence.spanBound.cut.length === 0), 'an output that fits is sent whole');
  assert.ok(llm.calls.every((call) => !call.rejected));
  // Every turn but the newest few is covered, and recall holds the same few turns' worth from then on.
  const covered = coveredIds(stored);
  for (let turn = 1; turn <= 18; turn += 1) assert.ok(covered.has(`msg-${turn}-1`), `turn ${turn}'s output is covered`);
  const late = seen.slice(10).map(({ recall }) => chars(recall));
  assert.ok(Math.max(...late) < 6 * 30_500, late.join(' '));
  assert.ok(late.at(-1) <= late[0] + 5_000, `recall does not grow: ${late.join(' ')}`);
  assert.equal(stored.filter((entry) => !isSummaryEntry(entry)).length, 24 * 3, 'every original is stored');
});

test('maxSpanTokens: the call counted by countTokens stays within the bound, piece by piece and whole', async () => {
  const limit = 10_000;
  const llm = providerWithLimit(limit, quarter);
  const store = createMemoryStore();
  const stage = summarize({ llm, store, ...logConfig, countTokens: quarter, maxSpanTokens: limit });
  const { seen } = await converse({ stage, store, turns: 16, messagesOf: withLog });
  assert.ok(llm.calls.length > 0);
  assert.deepEqual(llm.calls.filter((call) => call.rejected), []);
  const folds = seen.flatMap(({ events }) => events).filter((event) => event.payload.reason.startsWith('folded'));
  const bound = folds.find((fold) => fold.payload.scoreEvidence.spanBound.cut.length > 0).payload.scoreEvidence.spanBound;
  assert.equal(bound.option, 'maxSpanTokens');
  assert.ok(bound.sent <= limit && bound.sent > limit / 2, JSON.stringify(bound));
});

test('a callback is sent its own value objects, and a cut message as { role, content }, within the bound', async () => {
  const sent = [];
  const llm = async (messages) => {
    sent.push(messages);
    return `Covered ${idsIn(messages.map((message) => message.content).join('\n')).join(', ')}.`;
  };
  const loaded = [1, 2, 3, 4, 5, 6, 7].flatMap((turn) => withLog(turn).map((message, index) => messageEntry({ turn, index, message, identity: { conversationId: 'c' }, at: turn * 10 + index })));
  const { events } = await summarize({ llm, triggerMinEntries: 12, preserveRecent: 4, maxSpanChars: 20_000 }).fold(loaded, { conversationId: 'c' });
  assert.equal(sent.length, 1);
  const [messages] = sent;
  assert.ok(messages.reduce((sum, message) => sum + message.content.length, 0) <= 20_000);
  assert.equal(messages[1], loaded[0].value, 'an uncut message is the caller’s own value object');
  const cut = messages.find((message) => message.content.includes('left out here'));
  assert.deepEqual(Object.keys(cut), ['role', 'content']);
  assert.equal(cut.role, 'user');
  assert.ok(cut.content.startsWith('run RUN-4410 started') && cut.content.endsWith('run finished as EXIT-7781'));
  assert.deepEqual(events[0].payload.scoreEvidence.spanBound.cut.map((entry) => entry.id), ['msg-3-0']);
});

test('with background, claims and one rolling summary: the rolled summary is sent whole and every call stays within the bound', async () => {
  const llm = providerWithLimit(LIMIT);
  const store = storeWithClaims();
  // A background fold's own event goes to onEvent alone.
  const observed = [];
  const onEvent = (type, payload) => observed.push(payload);
  const stage = summarize({ llm, store, ...logConfig, maxSpanChars: LIMIT, background: true, claims: true, maxSummaries: 1, timeoutMs: 5_000, onEvent });
  const { seen, stored } = await converse({ stage, store, turns: 30, messagesOf: withToolOutput, background: true });
  assert.deepEqual(llm.calls.filter((call) => call.size > LIMIT || call.rejected), []);
  const summaries = stored.filter(isSummaryEntry);
  assert.ok(summaries.some((summary) => summary.metadata.summarizes.coveredIds.some((id) => id.startsWith('msg-summary-'))), 'a fold rolled an earlier summary in');
  assert.ok(summaries.every((summary) => summary.metadata.summarizes.coveredIds.at(-1).startsWith('msg-summary-claim-')), 'each fold was paid under its claim');
  // A rolled summary is sent whole: its content, line by line as the transcript writes it.
  const byId = new Map(summaries.map((summary) => [summary.id, summary]));
  const folds = observed.filter((payload) => payload.reason.startsWith('folded'));
  assert.ok(folds.every((payload) => payload.scoreEvidence.background === true));
  const rolledFolds = folds.filter((payload) => payload.scoreEvidence.rolledSummaries > 0);
  assert.ok(rolledFolds.length > 0);
  for (const payload of folds) assert.ok(payload.scoreEvidence.spanBound.cut.every((cut) => !cut.id.startsWith('msg-summary-')), payload.reason);
  for (const payload of rolledFolds) {
    const rolledId = byId.get(payload.addedIds[0]).metadata.summarizes.coveredIds[0];
    const line = byId.get(rolledId).value.content.replaceAll('\n', '\n  | ');
    assert.ok(llm.calls.some((call) => call.transcript.includes(line)), `${rolledId} is in a transcript whole`);
  }
  const late = seen.slice(12).map(({ recall }) => recall.filter(isSummaryEntry).length);
  assert.ok(late.every((count) => count <= 1), `one summary in recall: ${late.join(' ')}`);
});

test('a 10 MB message folds in time linear in its size', async () => {
  const fold = async (size) => {
    const loaded = [1, 2, 3, 4, 5, 6, 7].flatMap((turn) =>
      withLog(turn).map((message, index) => messageEntry({ turn, index, message: turn === 3 && index === 0 ? { role: 'user', content: pastedLog(size) } : message, identity: { conversationId: 'c' }, at: turn * 10 + index })),
    );
    const stage = summarize({ llm: providerWithLimit(LIMIT), model: 'small', triggerMinEntries: 12, preserveRecent: 4, maxSpanChars: LIMIT });
    const started = performance.now();
    const { events } = await stage.fold(loaded, { conversationId: 'c' });
    assert.match(events[0].payload.reason, /^folded/);
    return performance.now() - started;
  };
  await fold(1_000_000);
  // One fold at a time: a fold's time includes no other fold's work.
  const median = async (size) => {
    const times = [];
    for (let run = 0; run < 3; run += 1) times.push(await fold(size));
    return times.sort((a, b) => a - b)[1];
  };
  const [small, large] = [await median(1_000_000), await median(10_000_000)];
  console.log(`# a fold with a 1 MB message: ${small.toFixed(0)} ms; with a 10 MB one: ${large.toFixed(0)} ms (${(large / small).toFixed(1)}x)`);
  // Linear: ten times the text, about ten times the time; quadratic would be a hundred.
  assert.ok(large < 30 * small, `1 MB in ${small.toFixed(1)} ms, 10 MB in ${large.toFixed(1)} ms`);
});

test('each bound is refused at build unless it is a positive integer that leaves room for a span', () => {
  const llm = { complete: async () => ({ content: 'x' }) };
  for (const [config, message] of [
    [{ maxSpanChars: 0 }, /`maxSpanChars` must be a positive integer no larger than 9007199254740991; received a number \(0\)/],
    [{ maxSpanChars: 5000.5 }, /`maxSpanChars` must be a positive integer/],
    [{ maxSpanChars: '40000' }, /`maxSpanChars` must be a positive integer; received a string/],
    [{ maxSpanChars: 8_000 }, /`maxSpanChars` must be at least 8875: the instruction is 875 chars with the transcript's markers, and a fold needs 8000 more for the span; received a number \(8000\)\. Fix: pass at least 8875, or a shorter systemPrompt\./],
    [{ maxSpanChars: 12_000, systemPrompt: 'x'.repeat(10_000) }, /`maxSpanChars` must be at least 18037: the instruction is 10037 chars/],
    [{ maxSpanTokens: 8_000 }, /`maxSpanTokens` \(8000\) was given without `countTokens`.*Fix: pass the summarizer model's token counter as `countTokens`/],
    [{ maxSpanTokens: 8_000, maxSpanChars: 40_000, countTokens: quarter }, /both given, but a call is bounded in one unit\. Fix: remove one of them\./],
    [{ maxSpanTokens: -1, countTokens: quarter }, /`maxSpanTokens` must be a positive integer/],
  ]) {
    assert.throws(() => summarize({ llm, model: 'small', ...config }), message, JSON.stringify(config));
  }
  assert.doesNotThrow(() => summarize({ llm, model: 'small', maxSpanChars: 8_875 }));
  assert.doesNotThrow(() => summarize({ llm, model: 'small', maxSpanTokens: 1, countTokens: quarter }), 'tokens are checked at the visit');
});

test('a token bound too small for any fold declines with what it needs, and warns once', async () => {
  const warnings = [];
  const warn = console.warn;
  console.warn = (message) => warnings.push(String(message));
  try {
    const llm = providerWithLimit(LIMIT);
    const loaded = [1, 2, 3, 4, 5, 6, 7].flatMap((turn) => withLog(turn === 3 ? 4 : turn).map((message, index) => messageEntry({ turn, index, message, identity: { conversationId: 'c' }, at: turn * 10 + index })));
    const stage = summarize({ llm, model: 'small', triggerMinEntries: 12, preserveRecent: 4, countTokens: quarter, maxSpanTokens: 1_500 });
    const { recall, events } = await stage.fold(loaded, { conversationId: 'c' });
    await stage.fold(loaded, { conversationId: 'c' });
    assert.equal(llm.calls.length, 0);
    assert.deepEqual(recall, loaded);
    const { reason, scoreEvidence } = events[0].payload;
    assert.match(reason, /^span-over-bound, no call made: maxSpanTokens \(1500\) leaves too little .* Fix: raise maxSpanTokens to at least \d+/);
    assert.equal(scoreEvidence.spanBound.option, 'maxSpanTokens');
    assert.ok(scoreEvidence.spanBound.needed > 1_500);
    assert.equal(warnings.length, 1);
  } finally {
    console.warn = warn;
  }
});
