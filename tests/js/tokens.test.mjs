// Budgets in tokens with a real tokenizer: gpt-tokenizer's
// o200k_base counter, shared by the stage and the pipeline's budget picker,
// over CJK and emoji text the approximate counter under-counts, and the
// packed package inside a footprintjs memory pipeline.

import { test, before, mock } from 'node:test';
import assert from 'node:assert/strict';

import {
  STRATEGY_EVENT,
  contentTokens,
  createMemoryPipeline,
  createMemoryStore,
  createMonotonicClock,
  isSummaryEntry,
  runMemoryTurn,
} from '../support/memory-pipeline.mjs';
import { packageAndFootprint } from './lib/scratch.mjs';
import { o200kTokens } from '../support/tokens.mjs';

/** The counter the README shows, recording every text it is given. */
const realCounter = () => mock.fn(o200kTokens);
const textsCountedBy = (counter) => counter.mock.calls.map((call) => call.arguments[0]);
const tokens = (entries) => contentTokens(entries, o200kTokens);
const quarter = (text) => Math.ceil(text.length / 4);

let pkg;
let footprint;

before(async () => {
  ({ pkg, footprint } = await packageAndFootprint());
});

/** Four turns of CJK and emoji text (and one special token), two entries each. */
function cjkConversation() {
  const lines = [
    '注文番号は123です。配送先を東京都渋谷区に変更したいのですが、まだ間に合いますか？',
    'はい、間に合います。新しい住所で発送手配をしました 📦🚚 到着は金曜日の予定です。',
    '家族全員 👨‍👩‍👧‍👦 で受け取れるように、午後の時間帯にしてください。<|endoftext|>',
    '承知しました。午後二時から五時の配達で登録しました 🕑 ほかにご用件はありますか？',
  ];
  return [1, 2, 3, 4].flatMap((turn) =>
    [0, 1].map((i) => ({
      id: `msg-${turn}-${i}`,
      value: { role: i === 0 ? 'user' : 'assistant', content: lines[(2 * turn + i) % lines.length].repeat(5) },
      version: 1,
      createdAt: turn * 10 + i,
      updatedAt: turn * 10 + i,
      lastAccessedAt: turn * 10 + i,
      accessCount: 0,
      source: { turn },
    })),
  );
}


test('a real tokenizer triggers on CJK and emoji text that ceil(length / 4) under-counts', async () => {
  const loaded = cjkConversation();
  const real = tokens(loaded);
  const approximate = contentTokens(loaded, quarter);
  assert.ok(real > 1.5 * approximate, `o200k counts ${real} tokens, length / 4 gives ${approximate}`);
  const trigger = Math.floor((real + approximate) / 2);
  const config = { llm: pkg.extractive({ maxChars: 200 }), triggerMinEntries: 100, triggerMinTokens: trigger, preserveRecent: 2 };

  const approximated = await pkg.summarize(config).fold(loaded, { conversationId: 'c1' });
  assert.deepEqual(approximated.events, [], 'the default counter never reaches the trigger');

  const counter = realCounter();
  const { recall, events } = await pkg.summarize({ ...config, countTokens: counter }).fold(loaded, { conversationId: 'c1' });
  assert.equal(events.length, 1);
  const evidence = events[0].payload.scoreEvidence;
  assert.ok(events[0].payload.reason.startsWith('folded 6 entries (turns 1–3)'), events[0].payload.reason);
  const summary = recall[0];
  assert.equal(evidence.recallTokensBefore, real);
  assert.equal(evidence.spanTokens, tokens(loaded.slice(0, 6)));
  assert.equal(evidence.summaryTokens, tokens([summary]));
  assert.equal(evidence.recallTokensAfter, tokens(recall));
  assert.ok(evidence.recallTokensAfter < evidence.recallTokensBefore);
  // Once per entry text, then once on the summary.
  assert.deepEqual(textsCountedBy(counter), [...loaded.map((entry) => entry.value.content), summary.value.content]);
});

test('preserveRecentTokens keeps whole turns by the real tokenizer, and no more than it needs', async () => {
  const loaded = cjkConversation();
  // One token more than the newest turn holds: the turn before it stays whole too.
  const newestTurn = tokens(loaded.slice(6, 8));
  const stage = pkg.summarize({ llm: pkg.extractive({ maxChars: 200 }), triggerMinEntries: 2, countTokens: realCounter(), preserveRecentTokens: newestTurn + 1 });
  const { recall } = await stage.fold(loaded, { conversationId: 'c1' });
  assert.deepEqual(recall.map((entry) => entry.id), ['msg-summary-1-2', 'msg-3-0', 'msg-3-1', 'msg-4-0', 'msg-4-1']);
  const exactly = pkg.summarize({ llm: pkg.extractive({ maxChars: 200 }), triggerMinEntries: 2, countTokens: realCounter(), preserveRecentTokens: newestTurn });
  assert.deepEqual((await exactly.fold(loaded, { conversationId: 'c1' })).recall.map((entry) => entry.id), ['msg-summary-1-3', 'msg-4-0', 'msg-4-1']);
});

test('in a footprintjs pipeline, one counter budgets the stage and the picker alike', async () => {
  const store = createMemoryStore();
  const counter = realCounter();
  const budgetTokens = 900;
  const stage = pkg.summarize({
    llm: pkg.extractive({ maxChars: 300 }),
    store,
    countTokens: counter,
    triggerMinEntries: 1000,
    triggerMinTokens: 600,
    preserveRecentTokens: 200,
  });
  const pipeline = await createMemoryPipeline({
    store,
    summarizeStage: stage,
    footprint,
    loadLimit: 30,
    countTokens: counter,
    budgetTokens,
    clock: createMonotonicClock(() => 1_700_000_000_000),
  });
  const identity = { conversationId: 'tokens-1' };
  const lines = cjkConversation().map((entry) => entry.value.content);
  let folds = 0;
  for (let turn = 1; turn <= 20; turn += 1) {
    const messages = [
      { role: 'user', content: `${lines[turn % lines.length]} (turn ${turn}, order #NW-${48200 + turn})` },
      { role: 'assistant', content: `Noted for turn ${turn}. ${lines[(turn + 1) % lines.length]}` },
    ];
    const result = await runMemoryTurn(pipeline, { identity, turn, messages });
    assert.ok(tokens(result.selected) <= budgetTokens || result.selected.every(isSummaryEntry), `turn ${turn}: the picker keeps the budget`);
    for (const { name, payload } of result.events) {
      assert.equal(name, STRATEGY_EVENT);
      if (!payload.reason.startsWith('folded')) continue;
      folds += 1;
      const evidence = payload.scoreEvidence;
      assert.equal(evidence.recallTokensAfter, tokens(result.recall), `turn ${turn}: the stage and the picker count alike`);
      // The verbatim tail is whole turns holding at least 200 tokens, and only as many as that needs.
      const tail = result.recall.filter((entry) => !isSummaryEntry(entry));
      assert.ok(tokens(tail) >= 200, `turn ${turn}: tail of ${tokens(tail)} tokens`);
      assert.ok(tokens(tail.slice(2)) < 200, `turn ${turn}: one turn fewer would not hold 200 tokens`);
      assert.equal(new Set(tail.map((entry) => entry.source.turn)).size * 2, tail.length, `turn ${turn}: no turn split`);
    }
  }
  assert.ok(folds >= 2, `folded ${folds} times in 20 turns`);
});

test('functions from another realm (node:vm) are accepted, as the stage calls them', async () => {
  const { runInNewContext } = await import('node:vm');
  const countTokens = runInNewContext('(text) => text.length');
  const realm = { seen: [] };
  const onEvent = runInNewContext('(type, payload) => { seen.push(payload.reason); }', realm);
  assert.ok(!(countTokens instanceof Function), 'premise: not an instance of this realm’s Function');
  const stage = pkg.summarize({ llm: pkg.extractive(), triggerMinEntries: 2, countTokens, onEvent, preserveRecentTokens: 1 });
  const loaded = cjkConversation();
  const { events } = await stage.fold(loaded, { conversationId: 'c1' });
  const chars = loaded.reduce((sum, entry) => sum + entry.value.content.length, 0);
  assert.notEqual(chars, loaded.reduce((sum, entry) => sum + Math.ceil(entry.value.content.length / 4), 0), 'premise');
  assert.equal(events[0].payload.scoreEvidence.recallTokensBefore, chars, 'counted by the other realm’s counter');
  assert.deepEqual(realm.seen, events.map((event) => event.payload.reason), 'the other realm’s onEvent heard every event');
});
