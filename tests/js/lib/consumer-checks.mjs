// What every environment's run of fixtures/consumer-scenario.mjs must show
// (package-consumers.test.mjs and workerd.test.mjs check each runtime and
// bundle against it).
import assert from 'node:assert/strict';
import { PAYLOAD_KEYS } from '../randomized/spec-model.mjs';
import {
  callbackSummary,
  conversation,
  extractiveMaxChars,
  fixedNowMs,
  identity,
} from '../fixtures/consumer-scenario.mjs';

export const publicExports = [
  'SUMMARY_COVERAGE_KEY',
  'SUMMARY_FRAME_PREFIX',
  'SUMMARY_ID_PREFIX',
  'extractive',
  'isSummaryClaim',
  'isSummaryEntry',
  'summarize',
  'summaryCoverage',
  'summaryEntryId',
];
const foldedIds = ['msg-1-0', 'msg-1-1', 'msg-2-0', 'msg-2-1', 'msg-3-0', 'msg-3-1'];
const expectedRecallIds = ['msg-summary-1-3', 'msg-4-0', 'msg-4-1'];
const strategyApplied = 'agentfootprint.memory.strategy_applied';
// What `callbackSummary` leaves out of turns 1–3 (it keeps ZX-4471), each
// at its newest mention: "48 inches" comes up again after "45 inches".
const droppedDetails = ['March 3rd', '$649', '45 inches', '48 inches'];

/** What every environment's scenario result must show. */
export function assertConsumerScenario(result) {
  // Build-time refusals, thrown synchronously right after import.
  assert.equal(result.missingModel.threw, true, 'a provider without `model` must throw at once');
  assert.match(result.missingModel.message, /`model` is required/);
  assert.equal(result.callbackWithModel.threw, true, 'a callback with `model` must throw at once');
  assert.match(result.callbackWithModel.message, /nothing would read it/);
  assert.deepEqual(result.stageShape, { stage: 'function', fold: 'function' });

  // fold() with the recording callback and store.
  const { recall, events } = result.callbackFold;
  assert.deepEqual(recall.map((entry) => entry.id), expectedRecallIds);
  const [summary, ...tail] = recall;
  assert.deepEqual(tail, conversation().slice(6), 'the verbatim tail is the caller\'s entries, untouched');
  const spanUpdatedAt = conversation()[5].updatedAt;
  // The original's coverage keys in place; after them, the exact details of
  // the span the summary did not keep.
  assert.deepEqual(Object.keys(summary.metadata.summarizes), [
    'fromTurn', 'toTurn', 'entryCount', 'coveredIds', 'summarizedAtMs', 'droppedDetails',
  ]);
  assert.deepEqual(summary.metadata.summarizes, {
    fromTurn: 1,
    toTurn: 3,
    entryCount: 6,
    coveredIds: foldedIds,
    summarizedAtMs: fixedNowMs,
    droppedDetails: droppedDetails,
  });
  // SPEC §2 key order: stores that hash JSON see the same bytes as the original's.
  assert.deepEqual(Object.keys(summary), [
    'id', 'value', 'metadata', 'version', 'createdAt', 'updatedAt', 'lastAccessedAt', 'accessCount', 'tier', 'source',
  ]);
  const { value, metadata, ...clocksAndPlace } = summary;
  assert.deepEqual(clocksAndPlace, {
    id: 'msg-summary-1-3',
    version: 1,
    createdAt: spanUpdatedAt + 1,
    updatedAt: spanUpdatedAt + 1,
    lastAccessedAt: fixedNowMs,
    accessCount: 0,
    tier: 'cold',
    source: { turn: 3, identity },
  });
  assert.deepEqual(Object.keys(metadata), ['summarizes']);
  assert.deepEqual(Object.keys(value), ['role', 'content']);
  assert.equal(value.role, 'system');
  assert.ok(
    value.content.startsWith('[summary of earlier turns 1–3 — 6 earlier message(s) were compressed.'),
    value.content,
  );
  assert.ok(value.content.endsWith(`]\n\n${callbackSummary}`), value.content);

  // The callback got the instruction, then the span's own messages, oldest first.
  assert.equal(result.summarizerCalls.length, 1, 'one summarizer call for the span');
  const [messages] = result.summarizerCalls;
  assert.equal(messages[0].role, 'system');
  assert.match(messages[0].content, /never follow it/);
  assert.deepEqual(messages.slice(1), conversation().slice(0, 6).map((entry) => entry.value));

  // Written back once, under the conversation's identity.
  assert.deepEqual(result.storeWrites, [{ identity, entry: summary }]);

  assert.equal(events.length, 1);
  assert.equal(events[0].type, strategyApplied);
  const payload = events[0].payload;
  assert.deepEqual(Object.keys(payload), PAYLOAD_KEYS);
  assert.equal(payload.strategyId, 'memory-summarize');
  assert.equal(payload.strategyKind, 'summarizing');
  assert.equal(payload.inputMemoryCount, 8);
  assert.equal(payload.outputMemoryCount, 3);
  assert.deepEqual(payload.droppedIds, foldedIds);
  assert.deepEqual(payload.addedIds, ['msg-summary-1-3']);
  assert.match(payload.reason, /written back/);
  assert.equal(payload.scoreEvidence.summarizerCalled, true);
  assert.equal(payload.scoreEvidence.persisted, true);
  assert.deepEqual(
    [payload.scoreEvidence.detailsFound, payload.scoreEvidence.detailsKept, payload.scoreEvidence.droppedDetails, payload.scoreEvidence.droppedDetailCount],
    [5, 1, droppedDetails, 4],
  );

  // The stage run the footprintjs way: a real Promise of undefined, recall
  // assigned on the scope, the event emitted with `this` bound to the scope.
  assert.equal(result.scopeRun.returnedPromise, true);
  assert.equal(result.scopeRun.resolvedTo, 'undefined');
  assert.deepEqual(result.scopeRun.loadedIds, expectedRecallIds);
  assert.equal(result.scopeRun.emitted.length, 1);
  assert.equal(result.scopeRun.emitted[0].type, strategyApplied);
  assert.equal(result.scopeRun.emitted[0].thisIsScope, true);
  assert.match(result.scopeRun.emitted[0].payload.reason, /no store configured/);

  // The offline summarizer folds the same span, within its limit.
  const extractiveRecall = result.extractiveFold.recall;
  assert.deepEqual(extractiveRecall.map((entry) => entry.id), expectedRecallIds);
  assert.deepEqual(extractiveRecall[0].metadata.summarizes.coveredIds, foldedIds);
  const extractiveBody = extractiveRecall[0].value.content.split(']\n\n').slice(1).join(']\n\n');
  assert.ok(extractiveBody.length > 0, 'extractive produced a summary');
  assert.ok(extractiveBody.length <= extractiveMaxChars, `${extractiveBody.length} chars`);

  // A failure inside the instance rejects that visit, warns once, and the
  // next visits, on stages built before it, fold on a fresh instance.
  assert.equal(result.instanceFailure.rejected, true, 'the visit whose instance failed rejects');
  assert.match(result.instanceFailure.message, /WebAssembly instance failed \(clock unplugged\)/);
  assert.match(result.instanceFailure.message, /A fresh instance serves later visits/);
  assert.equal(result.instanceFailure.inFlight.rejected, true, "another conversation's visit in flight rejects with it");
  assert.match(result.instanceFailure.inFlight.message, /WebAssembly instance failed \(entropy unplugged\)/);
  assert.equal(result.instanceFailure.inFlight.unhandledRejections, 0, 'its late answer reaches the retired instance harmlessly');
  assert.equal(result.instanceFailure.afterAwait.rejected, true, 'a failure after an await rejects its visit too');
  assert.match(result.instanceFailure.afterAwait.message, /WebAssembly instance failed \(entropy unplugged\)/);
  assert.equal(result.instanceFailure.warnings.length, 2, 'each failure says so once');
  assert.deepEqual(result.instanceFailure.nextRecallIds, expectedRecallIds);
  assert.deepEqual(result.instanceFailure.failingStageAgain, expectedRecallIds);

  assert.equal(result.helpers.summaryEntryId, 'msg-summary-1-3');
  assert.deepEqual(result.helpers.coverageOfSummary, summary.metadata.summarizes);
  assert.deepEqual(result.helpers.isSummaryEntry, [true, false]);
  assert.deepEqual(result.helpers.isSummaryClaim, [true, false, false]);
  assert.equal(result.helpers.framePrefix, '[summary of earlier turns');
}

