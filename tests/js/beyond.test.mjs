// SPEC §8 (Beyond the original), what only a real collector can show: a
// wait whose promise nothing holds any more ends at once, as a failed call,
// and the visit frees what it held (the soaks measure the memory; this
// checks what the visit says).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import v8 from 'node:v8';
import vm from 'node:vm';
import { setTimeout as sleep } from 'node:timers/promises';
import { messageEntry } from '../support/memory-pipeline.mjs';

v8.setFlagsFromString('--expose-gc');
const collectGarbage = vm.runInNewContext('gc');
const { summarize } = await import('../../pkg/dist/index.mjs');

const identity = { conversationId: 'abandoned' };
const loaded = Array.from({ length: 12 }, (_, i) =>
  messageEntry({ turn: Math.floor(i / 2) + 1, index: i % 2, message: { role: i % 2 ? 'assistant' : 'user', content: `message ${i} about order #4411, `.repeat(8) }, identity, at: 1_000 + i }),
);

test('a summarizer whose promise nothing holds any more: the visit ends as a failed call that says so, without timeoutMs', async () => {
  const warnings = [];
  const warn = console.warn;
  console.warn = (message) => warnings.push(String(message));
  try {
    // No timeoutMs: only the collector can end this wait.
    const stage = summarize({ llm: () => new Promise(() => {}), triggerMinEntries: 10, preserveRecent: 4 });
    let result;
    stage.fold(loaded, identity).then((value) => (result = value));
    for (let round = 0; round < 50 && result === undefined; round += 1) {
      collectGarbage();
      await sleep(10);
    }
    assert.ok(result, 'the visit ended once its summarizer promise was collected');
    const [event] = result.events;
    assert.match(event.payload.reason, /summarizer-failed/);
    assert.match(event.payload.reason, /Cause: its promise can never settle: nothing holds it any more/);
    assert.deepEqual(result.recall.map((entry) => entry.id), loaded.map((entry) => entry.id), 'recall served verbatim');
    assert.equal(warnings.length, 1, 'the one warning');
  } finally {
    console.warn = warn;
  }
});
