// Per-run checks for the randomized test. Each derives what a run must have
// produced from the SPEC model (spec-model.mjs) and the run's plan, and fails
// with an assertion naming the SPEC rule it enforces.

import assert from 'node:assert/strict';
import { types } from 'node:util';

/** How the keepDetails line starts (core::details::PIN_START). */
const PIN_START = '\n[exact details from these turns: ';
import { EVENT_TYPE, PAYLOAD_KEYS, coverageOf, expectedSummaryEntry, summarySortKey, tokenCount } from './spec-model.mjs';

const CALL_KINDS_THAT_FAIL = new Set(['throw', 'reject', 'reject-value', 'non-string', 'null-response', 'hang', 'late']);
export const sameElements = (a, b) => a.length === b.length && a.every((item, index) => item === b[index]);
const escapeRegExp = (text) => String(text).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/**
 * JSON-plain (§1: footprintjs clones state and events): clonable, and made only
 * of plain objects, dense arrays, strings, booleans, null and finite numbers:
 * no Proxy, Map, undefined, function or accessor anywhere.
 */
function assertJsonPlain(value, what) {
  structuredClone(value);
  const walk = (node, path) => {
    if (node === null || typeof node === 'string' || typeof node === 'boolean') return;
    if (typeof node === 'number') {
      assert.ok(Number.isFinite(node), `${what} holds ${node} at ${path}`);
      return;
    }
    assert.equal(typeof node, 'object', `${what} holds a ${typeof node} at ${path}`);
    assert.ok(!types.isProxy(node), `${what} holds a Proxy at ${path}`);
    const prototype = Object.getPrototypeOf(node);
    assert.ok(prototype === Object.prototype || prototype === Array.prototype, `${what} holds a non-plain object at ${path}`);
    for (const key of Reflect.ownKeys(node)) {
      if (Array.isArray(node) && key === 'length') continue;
      assert.equal(typeof key, 'string', `${what} has a symbol key at ${path}`);
      const descriptor = Object.getOwnPropertyDescriptor(node, key);
      assert.ok('value' in descriptor && descriptor.enumerable, `${what} has an accessor or hidden key at ${path}.${key}`);
      walk(descriptor.value, `${path}.${key}`);
    }
    if (Array.isArray(node)) {
      for (let index = 0; index < node.length; index++) assert.ok(index in node, `${what} has a hole at ${path}[${index}]`);
    }
  };
  walk(value, what);
}

/** Events additionally survive a JSON round trip unchanged. */
function assertEventPayloadPlain(payload) {
  assertJsonPlain(payload, 'event payload');
  assert.deepStrictEqual(JSON.parse(JSON.stringify(payload)), payload, 'event payload changes in a JSON round trip');
}

export function verify(ctx, where, fn) {
  try {
    fn();
    return true;
  } catch (error) {
    ctx.violations.push({ wave: ctx.waveIndex, where, message: error.message });
    return false;
  }
}

/** What the run produced: its events and the recall it left. */
export function observe(run) {
  const { observation } = run;
  if (run.spec.form === 'fold') {
    const result = observation.value;
    return { events: result?.events ?? [], recall: result?.recall, wrote: false };
  }
  const loadedWrites = observation.writes.filter((write) => write.key === 'loaded');
  return {
    events: observation.events.map(({ type, payload }) => ({ type, payload })),
    recall: loadedWrites.length > 0 ? loadedWrites.at(-1).value : run.loaded,
    wrote: loadedWrites.length > 0,
  };
}

export function checkResolution(ctx, run) {
  const { observation } = run;
  return verify(ctx, run.where, () => {
    assert.equal(observation.syncThrow, undefined, `the stage threw synchronously: ${observation.syncThrow?.stack}`);
    assert.equal(observation.rejection, undefined, `the run rejected: ${observation.rejection?.stack ?? observation.rejection}`);
    if (run.spec.form === 'scope') {
      assert.ok(observation.isRealPromise, 'stage(scope) did not return a real Promise (§1)');
      assert.equal(observation.value, undefined, 'stage(scope) resolved to something other than undefined');
    } else {
      const result = observation.value;
      assert.ok(result !== null && typeof result === 'object', 'fold() did not resolve to an object');
      assert.ok(Array.isArray(result.events), 'fold() result has no events array');
      if (Array.isArray(run.loaded)) assert.ok(Array.isArray(result.recall), 'fold() result has no recall array');
    }
  });
}

export function checkEventShapes(ctx, run, observed) {
  verify(ctx, run.where, () => {
    assert.ok(observed.events.length <= 1, `a visit emitted ${observed.events.length} events (§6 says at most one)`);
    if (run.spec.form === 'scope') {
      assert.ok(run.observation.emitThisOk, '$emit was not called with this = scope (§4)');
      assert.ok(!run.observation.events.some((event) => event.afterSettle), '$emit was called after the run settled');
    }
    for (const event of observed.events) {
      if (run.spec.form === 'fold') assert.deepEqual(Object.keys(event), ['type', 'payload'], 'fold() event keys');
      assert.equal(event.type, EVENT_TYPE);
      const { payload } = event;
      assertEventPayloadPlain(payload);
      assert.deepEqual(Object.keys(payload), PAYLOAD_KEYS, 'payload key order (§2)');
      assert.equal(payload.strategyId, ctx.settings.strategyId);
      assert.equal(payload.strategyKind, 'summarizing');
      assert.equal(typeof payload.reason, 'string');
      assert.ok(payload.droppedIds.every((id) => typeof id === 'string'), 'droppedIds holds a non-string');
      assert.ok(payload.addedIds.every((id) => typeof id === 'string'), 'addedIds holds a non-string');
      if (Array.isArray(run.loaded)) {
        assert.equal(payload.inputMemoryCount, run.loaded.length, 'inputMemoryCount is not the loaded length');
        const outputCount = Array.isArray(observed.recall) ? observed.recall.length : run.loaded.length;
        assert.equal(payload.outputMemoryCount, outputCount, 'outputMemoryCount is not the recall length');
      }
    }
  });
}

export function checkScopeWrites(ctx, run, observed) {
  if (run.spec.form !== 'scope') return;
  verify(ctx, run.where, () => {
    const { writes } = run.observation;
    assert.deepEqual(
      writes.map((write) => String(write.key)),
      writes.map(() => 'loaded'),
      'the stage wrote a scope key other than `loaded`',
    );
    assert.ok(writes.length <= 1, `scope.loaded was written ${writes.length} times`);
    if (observed.wrote) {
      assert.ok(Array.isArray(observed.recall) && !types.isProxy(observed.recall), 'scope.loaded was set to a non-array or a Proxy');
      const snapshot = run.plan.entries ?? [];
      assert.ok(!sameElements(observed.recall, snapshot), 'scope.loaded was rewritten with the same objects (§4 step 3)');
    }
  });
}

/** The brief's core invariants, independent of which outcome the run had. */
export function checkRecallInvariants(ctx, run, observed) {
  const { plan } = run;
  if (plan.kind === 'invalid' || plan.kind === 'empty') return;
  verify(ctx, run.where, () => {
    const { recall } = observed;
    assert.ok(Array.isArray(recall) && !types.isProxy(recall), 'recall is not a plain array');
    const inRecall = new Set(recall);
    assert.equal(inRecall.size, recall.length, 'recall holds the same object twice');
    const inputs = new Set(plan.entries);
    const added = recall.filter((entry) => !inputs.has(entry));
    assert.ok(added.length <= 1, `recall holds ${added.length} objects that are not the caller's own`);
    if (added.length === 1) {
      assert.ok(observed.events[0]?.payload.reason.startsWith('folded'), 'a new entry appeared in recall without a fold');
      assert.ok(coverageOf(added[0]) !== undefined, 'the new recall entry is not a summary');
      assert.ok(ctx.api.isSummaryEntry(added[0]), 'isSummaryEntry(new summary) is false');
      assert.equal(ctx.api.summaryCoverage(added[0]), added[0].metadata.summarizes, 'summaryCoverage(new summary)');
      assertJsonPlain(added[0], 'new summary entry');
    }
    const namedByRecall = new Set(recall.flatMap((entry) => coverageOf(entry)?.coveredIds ?? []));
    plan.entries.forEach((entry, index) => {
      if (inRecall.has(entry)) return;
      assert.ok(
        coverageOf(entry) === undefined && namedByRecall.has(entry.id),
        `input entry ${index} (${entry.id}) was lost: it is not in recall and no summary in recall names it`,
      );
    });
  });
}

function onlyEvent(observed) {
  assert.equal(observed.events.length, 1, 'expected exactly one event');
  return observed.events[0].payload;
}

function expectVerbatim(run, observed, expected) {
  assert.ok(sameElements(observed.recall, expected), 'recall is not summaries-then-raw of the caller\'s own entries');
  if (run.spec.form === 'scope') {
    assert.equal(observed.wrote, !sameElements(expected, run.plan.entries), 'scope.loaded written iff recall changed (§4 step 3)');
  }
}

const modelEvidence = (settings) => (settings.shape === 'provider' ? { model: settings.model } : {});
const usageEvidence = (call) => (call.script.usage ? { usage: { input: call.script.usage.input, output: call.script.usage.output } } : {});

export function checkInvalid(ctx, run, observed) {
  const { plan } = run;
  const payload = onlyEvent(observed);
  assert.ok(payload.reason.startsWith('invalid-input'), `reason does not start with invalid-input: ${payload.reason}`);
  if (plan.index !== undefined) {
    assert.match(payload.reason, new RegExp(`(?<![0-9])${plan.index}(?![0-9])`), `reason does not name index ${plan.index}`);
  }
  if (plan.field !== undefined) assert.ok(payload.reason.includes(plan.field), `reason does not name field ${plan.field}: ${payload.reason}`);
  assert.deepEqual(payload.droppedIds, []);
  assert.deepEqual(payload.addedIds, []);
  if (run.spec.form === 'scope') {
    assert.equal(observed.wrote, false, 'invalid input: scope.loaded was written');
  } else if (Array.isArray(run.loaded)) {
    assert.ok(sameElements(observed.recall, run.loaded), 'invalid input: recall is not the loaded entries untouched');
  } else {
    assert.equal(observed.recall, run.loaded, 'invalid input: fold() did not hand back the loaded value untouched');
  }
}

export function checkDecline(ctx, run, observed) {
  const { plan } = run;
  const excludedIds = plan.excluded.map((entry) => entry.id);
  expectVerbatim(run, observed, plan.verbatimRecall);
  if (plan.kind === 'not-worth') {
    if (excludedIds.length === 0) {
      assert.equal(observed.events.length, 0, 'a visit that changed nothing emitted an event (§6)');
      return;
    }
    const payload = onlyEvent(observed);
    const covered = new RegExp(
      `^${excludedIds.length} entr(?:y|ies) already covered by \\d+ stored summar(?:y|ies) — no new call this turn$`,
    );
    assert.match(payload.reason, covered);
    assert.deepEqual(payload.scoreEvidence, { summarizerCalled: false });
    assert.deepEqual(payload.droppedIds, excludedIds);
    assert.deepEqual(payload.addedIds, []);
    return;
  }
  const payload = onlyEvent(observed);
  assert.deepEqual(payload.droppedIds, excludedIds);
  assert.deepEqual(payload.addedIds, []);
  // What every decline before a call says of its span, then its own keys.
  const declined = { spanEntries: plan.span.length, spanChars: plan.spanChars, summarizerCalled: false };
  if (plan.kind === 'latched') {
    assert.ok(payload.reason.includes('not re-asked'), `latched reason: ${payload.reason}`);
    assert.deepEqual(payload.scoreEvidence, { ...declined, latched: true });
  } else if (plan.kind === 'under-floor') {
    assert.ok(payload.reason.startsWith('not-worth-a-call-yet, no call made') && payload.reason.includes('minFoldTokens'), `floor reason: ${payload.reason}`);
    assert.deepEqual(payload.scoreEvidence, { ...declined, newTokens: plan.newTokens, minFoldTokens: plan.minFoldTokens });
  } else {
    assert.ok(payload.reason.includes('replacement-not-smaller') && payload.reason.includes('no call made'), `predicted reason: ${payload.reason}`);
    assert.deepEqual(payload.scoreEvidence, { ...declined, labelChars: plan.labelChars, predicted: true });
  }
}

/** What a call's scripted answer must lead to, per §4 steps 8–9. */
export function callOutcome(ctx, call, callPlan) {
  const { script } = call;
  if (CALL_KINDS_THAT_FAIL.has(script.kind)) {
    const timedOut = script.kind === 'hang' || script.kind === 'late';
    return {
      kind: 'failed',
      call,
      causeEndsWith: script.kind === 'throw' || script.kind === 'reject' ? script.message : undefined,
      causeIncludes: timedOut ? `timed out after ${ctx.settings.timeoutMs} ms` : script.kind === 'reject-value' ? script.message : undefined,
    };
  }
  // A blank summary is a failed call: folded, the label alone would stand in for the span.
  if (call.text.trim() === '') return { kind: 'failed', call, causeIncludes: 'with no text to fold' };
  const content = `${callPlan.label}\n\n${call.text}`;
  return { kind: content.length >= callPlan.spanChars ? 'refused' : 'fold', call, callPlan, content };
}

export function checkCalled(ctx, run, observed, group) {
  const { plan } = run;
  const { settings } = ctx;
  const payload = onlyEvent(observed);
  const evidence = payload.scoreEvidence;
  const isLeader = evidence.summarizerCalled === true;
  const excludedIds = plan.excluded.map((entry) => entry.id);
  if (!isLeader) {
    assert.equal(evidence.summarizerCalled, false, 'summarizerCalled is neither true nor false');
    assert.equal(evidence.coalesced, true, 'a run that did not call is not marked coalesced (§8 single flight)');
  }
  const outcome = group.outcome;
  if (outcome.kind === 'unknown') return;
  if (outcome.kind === 'failed') {
    expectVerbatim(run, observed, plan.verbatimRecall);
    assert.ok(payload.reason.includes('summarizer-failed') && payload.reason.includes('verbatim'), `failed reason: ${payload.reason}`);
    assert.ok(payload.reason.includes('Cause: '), `failed reason has no Cause: ${payload.reason}`);
    if (outcome.causeEndsWith) assert.ok(payload.reason.endsWith(`Cause: ${outcome.causeEndsWith}`), `failed reason must end with the cause: ${payload.reason}`);
    if (outcome.causeIncludes) assert.ok(payload.reason.includes(outcome.causeIncludes), `failed reason must include "${outcome.causeIncludes}": ${payload.reason}`);
    assert.deepEqual(payload.droppedIds, excludedIds);
    assert.deepEqual(payload.addedIds, []);
    if (isLeader) {
      assert.deepEqual(evidence, { spanEntries: plan.span.length, spanChars: plan.spanChars, summarizerCalled: true, failed: true, ...modelEvidence(settings) });
    }
    return;
  }
  if (outcome.kind === 'refused') {
    expectVerbatim(run, observed, plan.verbatimRecall);
    assert.ok(payload.reason.includes('replacement-not-smaller'), `refused reason: ${payload.reason}`);
    assert.deepEqual(payload.droppedIds, excludedIds);
    assert.deepEqual(payload.addedIds, []);
    if (isLeader) {
      assert.ok(payload.reason.includes(String(outcome.content.length)) && payload.reason.includes(String(plan.spanChars)), `refused reason lacks the char counts: ${payload.reason}`);
      assert.deepEqual(evidence, {
        spanEntries: plan.span.length,
        spanChars: plan.spanChars,
        summarizerCalled: true,
        summaryChars: outcome.content.length,
        ...modelEvidence(settings),
        ...usageEvidence(outcome.call),
      });
    }
    return;
  }
  checkFolded(ctx, run, observed, group, payload, isLeader);
}

function checkFolded(ctx, run, observed, group, payload, isLeader) {
  const { plan } = run;
  const { settings } = ctx;
  const { outcome } = group;
  const recall = observed.recall;
  const summaryCount = plan.summaries.length + 1;
  const segment = recall.slice(0, summaryCount);
  assert.ok(sameElements(recall.slice(summaryCount), plan.tail), 'fold: recall after the summaries is not the verbatim tail');
  const newSummaries = segment.filter((entry) => !plan.summaries.includes(entry));
  assert.equal(newSummaries.length, 1, 'fold: recall does not hold exactly one new summary');
  assert.ok(sameElements(segment.filter((entry) => entry !== newSummaries[0]), plan.summaries), 'fold: the loaded summaries are missing or out of order');
  assert.ok(segment.every((entry, index) => index === 0 || summarySortKey(segment[index - 1]) <= summarySortKey(entry)), 'fold: summaries not sorted by toTurn');
  if (run.spec.form === 'scope') assert.ok(observed.wrote, 'fold: scope.loaded was not written');

  const summary = newSummaries[0];
  const id = `msg-summary-${plan.fromTurn}-${plan.toTurn}`;
  assert.equal(summary.id, id);
  // With keepDetails a line may follow: the details the text
  // dropped, within its bounds and the room below the span's length.
  const content = summary.value.content;
  assert.equal(content.slice(0, outcome.content.length), outcome.content, 'fold: summary content is not label + "\\n\\n" + text');
  const line = content.slice(outcome.content.length);
  const listed = line === '' ? [] : line.slice(PIN_START.length, -1).split('; ');
  if (line !== '') {
    assert.ok(settings.keepDetails, `fold: a line after the summary without keepDetails: ${JSON.stringify(line)}`);
    assert.ok(line.startsWith(PIN_START) && line.endsWith(']') && !line.slice(1).includes('\n'), `fold: not a keepDetails line: ${JSON.stringify(line)}`);
    assert.ok(listed.length <= settings.keepDetails.maxDetails && line.length <= settings.keepDetails.maxChars, `fold: the keepDetails line breaks its bounds: ${JSON.stringify(line)}`);
  }
  assert.ok(content.length < plan.spanChars, 'fold: the summary with its keepDetails line is not smaller than the span');
  assert.deepEqual(coverageOf(summary).coveredIds, plan.spanIds);
  assert.deepEqual(payload.droppedIds, [...plan.excluded.map((entry) => entry.id), ...plan.spanIds]);
  assert.deepEqual(payload.addedIds, [id]);
  const foldedPrefix = new RegExp(
    `^folded ${plan.span.length} entr(?:y|ies) \\(turns ${escapeRegExp(plan.fromTurn)}–${escapeRegExp(plan.toTurn)}\\) into ${escapeRegExp(id)}; ${plan.tail.length} kept verbatim — `,
  );
  assert.match(payload.reason, foldedPrefix);
  if (!isLeader) return;

  const now = settings.now ?? summary.metadata.summarizes.summarizedAtMs;
  if (settings.now === undefined) {
    assert.ok(now >= group.startedAt && now <= group.finishedAt, `fold without a clock: summarizedAtMs ${now} is not Date.now()`);
  }
  const expected = expectedSummaryEntry(plan, settings, content, now);
  // The details audit adds the dropped details the event names,
  // after the SPEC's coverage keys, when there are any.
  const dropped = payload.scoreEvidence.droppedDetails;
  if (Array.isArray(dropped) && dropped.length > 0) expected.metadata.summarizes.droppedDetails = dropped;
  assert.deepStrictEqual(summary, expected, 'fold: summary entry differs from §2');
  assert.equal(JSON.stringify(summary), JSON.stringify(expected), 'fold: summary entry key order differs from §2');
  group.expectedSummary = expected;

  let persisted = false;
  if (!settings.store) {
    assert.ok(payload.reason.endsWith(' — not written back (no store configured), so this fold is paid for every turn'), `fold reason suffix: ${payload.reason}`);
  } else if (group.put && group.put.script.kind.startsWith('ok')) {
    persisted = true;
    assert.ok(payload.reason.endsWith(' — written back, so this span is not summarized again'), `fold reason suffix: ${payload.reason}`);
  } else if (group.put) {
    assert.ok(
      payload.reason.includes(' — write-back FAILED (') && payload.reason.includes(group.put.script.message) && payload.reason.endsWith('so this fold will be paid again'),
      `fold reason suffix after a failed write: ${payload.reason}`,
    );
  }
  // The evidence the SPEC gives, then the details audit, which
  // only has to be consistent here: core::details has its own tests.
  const {
    detailsFound,
    detailsKept,
    detailsPinned,
    droppedDetails,
    droppedDetailCount,
    recallTokensBefore,
    recallTokensAfter,
    spanTokens,
    summaryTokens,
    ...specEvidence
  } = payload.scoreEvidence;
  assert.deepEqual(specEvidence, {
    summarizerCalled: true,
    spanEntries: plan.span.length,
    spanChars: plan.spanChars,
    summaryChars: content.length,
    persisted,
    ...modelEvidence(settings),
    ...usageEvidence(outcome.call),
  });
  const tokenKeys = settings.countsTokens ? ['recallTokensBefore', 'recallTokensAfter', 'spanTokens', 'summaryTokens'] : [];
  const detailKeys = settings.keepDetails ? ['detailsFound', 'detailsKept', 'detailsPinned'] : ['detailsFound', 'detailsKept'];
  assert.deepEqual(Object.keys(payload.scoreEvidence).slice(-detailKeys.length - 2 - tokenKeys.length), [
    ...detailKeys,
    'droppedDetails',
    'droppedDetailCount',
    ...tokenKeys,
  ]);
  // §8 Tokens, by the same counter: recall before and after, the span, the summary.
  if (settings.countsTokens) {
    const summaryCount = tokenCount(content, settings);
    assert.deepEqual(
      { recallTokensBefore, recallTokensAfter, spanTokens, summaryTokens },
      { recallTokensBefore: plan.tokens.before, recallTokensAfter: plan.tokens.kept + summaryCount, spanTokens: plan.tokens.span, summaryTokens: summaryCount },
      'fold: token evidence differs from §8',
    );
  } else {
    assert.equal(recallTokensBefore, undefined, 'no token option, yet tokens were counted');
  }
  assert.ok(Number.isInteger(detailsFound) && detailsKept <= detailsFound, 'detailsKept exceeds detailsFound');
  assert.equal(detailsPinned, settings.keepDetails ? listed.length : undefined, 'detailsPinned is not what the line lists');
  assert.equal(droppedDetailCount, detailsFound - detailsKept - listed.length);
  if (listed.length > 0) ctx.count('keepDetails: a line after the summary');
  if (settings.keepDetails && droppedDetailCount > 0) ctx.count('keepDetails: details the bounds let go');
  assert.ok(Array.isArray(droppedDetails) && droppedDetails.length === Math.min(droppedDetailCount, 20), 'droppedDetails is the first 20 dropped');
}
