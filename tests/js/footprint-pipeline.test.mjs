// The package inside a real footprintjs memory pipeline, 40 turns, twice:
//   (a) one summarize stage instance for the whole conversation;
//   (b) a fresh pipeline and a fresh stage every turn (the per-request server).
// The package comes from its packed tarball installed into a scratch project
// outside the repo (tests/js/lib/scratch.mjs), and so does footprintjs.
//
// What the stage did is observed through footprintjs's own channels: events
// through an attached emit recorder and the combined narrative, assignments of
// `loaded` through a scope recorder's onWrite (which reports every assignment,
// an identical one included — the commit log is change-only and would hide it).

import { test, before } from 'node:test';
import assert from 'node:assert/strict';

import {
  STAGE_IDS,
  STRATEGY_EVENT,
  createMemoryPipeline,
  createMemoryStore,
  createMonotonicClock,
  formatRecall,
  isSummaryEntry,
  messageEntryId,
  pickWithinBudget,
  runMemoryTurn,
} from '../support/memory-pipeline.mjs';
import { packageAndFootprint } from './lib/scratch.mjs';

const TURNS = 40;
const TRIGGER_MIN_ENTRIES = 12;
const PRESERVE_RECENT = 4; // = two whole turns of two messages
const LOAD_LIMIT = 20;
const GENEROUS_BUDGET_CHARS = 100_000; // the 40-turn runs test folding, not the budget
const IDENTITY = Object.freeze({ tenant: 'acme', principal: 'user-7', conversationId: 'conv-forty' });
// The first turn whose load reaches TRIGGER_MIN_ENTRIES: turns 1..6 wrote 12 entries.
const FIRST_FOLD_TURN = TRIGGER_MIN_ENTRIES / 2 + 1;

let pkg;
let footprint;

before(async () => {
  ({ pkg, footprint } = await packageAndFootprint());
});

// ---------------------------------------------------------------------------
// The conversation
// ---------------------------------------------------------------------------

// Each message is long enough (≈260 chars) that folding one whole turn (two
// messages) into label + a short summary makes recall smaller, so every fold
// the stage attempts can pass.
function turnMessages(turn) {
  const filler =
    'It carries enough ordinary conversational detail that a summary of it is much shorter than the text itself, which is the point of folding.';
  return [
    {
      role: 'user',
      content: `Turn ${turn}, user: please remember that the code word for turn ${turn} is "word-${turn}" and that invoice INV-${1000 + turn} is due on day ${turn}. ${filler}`,
    },
    {
      role: 'assistant',
      content: `Turn ${turn}, assistant: noted — code word "word-${turn}", invoice INV-${1000 + turn}, due on day ${turn}; I will keep both for later turns. ${filler}`,
    },
  ];
}

const contentToId = new Map();
for (let turn = 1; turn <= TURNS; turn += 1) {
  turnMessages(turn).forEach((message, index) => contentToId.set(message.content, messageEntryId(turn, index)));
}

/**
 * A deterministic summarizer in the callback shape that records every call by
 * the ids of the span it was given (`messages` = [instruction, ...span values]).
 * Its output is short, so every fold passes the not-smaller check.
 */
function recordingSummarizer() {
  const callsBySpan = new Map();
  async function summarizer(messages) {
    const spanIds = messages.slice(1).map((message) => contentToId.get(message.content));
    assert.ok(spanIds.every(Boolean), 'the summarizer was given a message the conversation never had');
    const spanKey = spanIds.join(',');
    callsBySpan.set(spanKey, (callsBySpan.get(spanKey) ?? 0) + 1);
    return `Facts kept: ${spanIds[0]} to ${spanIds.at(-1)}.`;
  }
  return { summarizer, callsBySpan };
}

function stageConfig({ summarizer, store, clock }) {
  return {
    llm: summarizer,
    store,
    triggerMinEntries: TRIGGER_MIN_ENTRIES,
    preserveRecent: PRESERVE_RECENT,
    now: clock,
  };
}

/** Drives 40 turns; `freshPerTurn` rebuilds the pipeline and the stage every turn. */
async function runConversation({ freshPerTurn }) {
  const store = createMemoryStore();
  let tick = 0;
  // One timeline for written messages and the stage's `now`, 1 s per reading,
  // so a summary's anchor (newest covered updatedAt + 1) never ties a message.
  const clock = createMonotonicClock(() => 1_700_000_000_000 + (tick += 1000));
  const { summarizer, callsBySpan } = recordingSummarizer();
  const buildPipeline = () =>
    createMemoryPipeline({
      store,
      footprint,
      summarizeStage: pkg.summarize(stageConfig({ summarizer, store, clock })),
      loadLimit: LOAD_LIMIT,
      budgetChars: GENEROUS_BUDGET_CHARS,
      clock,
    });

  const turns = [];
  let pipeline = await buildPipeline();
  for (let turn = 1; turn <= TURNS; turn += 1) {
    if (freshPerTurn && turn > 1) pipeline = await buildPipeline();
    turns.push({ turn, ...(await runMemoryTurn(pipeline, { identity: IDENTITY, turn, messages: turnMessages(turn) })) });
  }
  return { store, turns, callsBySpan };
}

// ---------------------------------------------------------------------------
// Observations, each returning a list of violations so the control test can
// show that every one of them does fire on a stage that gets it wrong.
// ---------------------------------------------------------------------------

const summaryCoverageOf = (entry) => entry.metadata.summarizes;

function loadedIdsOf(turnResult) {
  const loads = turnResult.writes.filter((w) => w.stageId === STAGE_IDS.loadRecent && w.key === 'loaded');
  assert.equal(loads.length, 1, 'LoadRecent assigns loaded exactly once');
  return loads[0].ids;
}

function strategyEvents(turnResult) {
  return turnResult.events.filter((event) => event.name === STRATEGY_EVENT);
}

/** inputMemoryCount must be what LoadRecent put in `loaded`; outputMemoryCount what recall became. */
function findCountMismatches(turnResult) {
  const loadedCount = loadedIdsOf(turnResult).length;
  return strategyEvents(turnResult)
    .filter(
      ({ payload }) => payload.inputMemoryCount !== loadedCount || payload.outputMemoryCount !== turnResult.recall.length,
    )
    .map(({ payload }) => ({
      turn: turnResult.turn,
      loadedCount,
      inputMemoryCount: payload.inputMemoryCount,
      recallLength: turnResult.recall.length,
      outputMemoryCount: payload.outputMemoryCount,
    }));
}

/**
 * The summarize stage assigns `loaded` exactly when recall changed: never for
 * an unchanged recall, once (with the new recall) otherwise.
 */
function findAssignmentViolations(turnResult) {
  const loadedIds = loadedIdsOf(turnResult);
  const recallIds = turnResult.recall.map((entry) => entry.id);
  const assignments = turnResult.writes.filter((w) => w.stageId === STAGE_IDS.summarize && w.key === 'loaded');
  const unchanged = recallIds.length === loadedIds.length && recallIds.every((id, i) => id === loadedIds[i]);
  const expected = unchanged ? [] : [recallIds];
  const actual = assignments.map((w) => w.ids);
  return JSON.stringify(actual) === JSON.stringify(expected) ? [] : [{ turn: turnResult.turn, unchanged, assignments: actual }];
}

/** Each strategy event must be in the emit recorder AND in the narrative, under the Summarize stage. */
function findEventsMissingFromNarrative(turnResult) {
  const emitted = strategyEvents(turnResult);
  const narrated = turnResult.narrative.filter(
    (entry) => entry.type === 'emit' && entry.text.startsWith(`[emit] ${STRATEGY_EVENT}`),
  );
  const emittedAt = emitted.map((event) => `${event.stageId} ${event.runtimeStageId}`);
  const narratedAt = narrated.map((entry) => `${entry.stageId} ${entry.runtimeStageId}`);
  return JSON.stringify(emittedAt) === JSON.stringify(narratedAt) && emitted.every((e) => e.stageId === STAGE_IDS.summarize)
    ? []
    : [{ turn: turnResult.turn, emittedAt, narratedAt }];
}

function idsOfTurns(fromTurn, toTurn) {
  const ids = [];
  for (let turn = fromTurn; turn <= toTurn; turn += 1) ids.push(messageEntryId(turn, 0), messageEntryId(turn, 1));
  return ids;
}

// ---------------------------------------------------------------------------
// The two runs and what they must show
// ---------------------------------------------------------------------------

const MODES = [
  { name: 'one stage instance for the whole conversation', freshPerTurn: false },
  { name: 'a fresh pipeline and stage per turn', freshPerTurn: true },
];
const runs = new Map();
const conversationIn = async (mode) => {
  if (!runs.has(mode.name)) runs.set(mode.name, await runConversation(mode));
  return runs.get(mode.name);
};

for (const mode of MODES) {
  test(`40 turns, ${mode.name}: every span folded exactly once; summaries never overlap; originals kept`, async () => {
    const { store, callsBySpan } = await conversationIn(mode);
    const stored = await store.list(IDENTITY);
    const summaries = stored.filter(isSummaryEntry).sort((a, b) => summaryCoverageOf(a).fromTurn - summaryCoverageOf(b).fromTurn);

    const calledMoreThanOnce = [...callsBySpan].filter(([, count]) => count !== 1);
    assert.deepEqual(calledMoreThanOnce, [], 'a span was sent to the summarizer more than once');
    assert.deepEqual(
      summaries.map((summary) => summaryCoverageOf(summary).coveredIds.join(',')).sort(),
      [...callsBySpan.keys()].sort(),
      'every summarizer call is exactly one stored summary, and every stored summary came from one call',
    );

    // Never overlapping, and here even tiling: turns 1..37 in order, since at
    // turn 40 the verbatim tail is turns 38–39 and turn 40 is written after.
    const coveredIds = summaries.flatMap((summary) => summaryCoverageOf(summary).coveredIds);
    assert.equal(new Set(coveredIds).size, coveredIds.length, 'two stored summaries cover the same entry');
    assert.deepEqual(coveredIds, idsOfTurns(1, TURNS - 3));
    summaries.forEach((summary, i) => {
      const { fromTurn, toTurn } = summaryCoverageOf(summary);
      assert.equal(summary.id, pkg.summaryEntryId(fromTurn, toTurn));
      if (i > 0) assert.equal(fromTurn, summaryCoverageOf(summaries[i - 1]).toTurn + 1);
      assert.ok(summary.value.content.startsWith(pkg.SUMMARY_FRAME_PREFIX));
      assert.ok(summary.value.content.endsWith(`Facts kept: ${summaryCoverageOf(summary).coveredIds[0]} to ${summaryCoverageOf(summary).coveredIds.at(-1)}.`));
    });

    // Originals: all 80 still there, each written once by WriteTurn, as written.
    const putCountById = new Map();
    for (const { id } of store.putLog) putCountById.set(id, (putCountById.get(id) ?? 0) + 1);
    for (let turn = 1; turn <= TURNS; turn += 1) {
      for (const [index, message] of turnMessages(turn).entries()) {
        const id = messageEntryId(turn, index);
        const original = await store.get(IDENTITY, id);
        assert.ok(original, `${id} is missing from the store`);
        assert.deepEqual(original.value, message);
        assert.deepEqual(original.source, { turn, identity: { ...IDENTITY } });
        assert.equal(putCountById.get(id), 1, `${id} was overwritten`);
      }
    }
    // Nothing else was written: the stage's only writes are its summaries, once each.
    assert.equal(stored.length, 2 * TURNS + summaries.length);
    for (const summary of summaries) assert.equal(putCountById.get(summary.id), 1, `${summary.id} was written twice`);
  });

  test(`40 turns, ${mode.name}: recall is [summaries…, verbatim tail] every turn`, async () => {
    const { turns } = await conversationIn(mode);
    for (const result of turns) {
      const { turn, recall } = result;
      const at = `turn ${turn}`;
      const summaryCount = recall.findIndex((entry) => !isSummaryEntry(entry));
      const summaries = recall.slice(0, summaryCount === -1 ? recall.length : summaryCount);
      const tail = recall.slice(summaries.length);
      assert.ok(tail.every((entry) => !isSummaryEntry(entry)), `${at}: a summary after a verbatim entry`);
      const toTurns = summaries.map((summary) => summaryCoverageOf(summary).toTurn);
      assert.deepEqual(toTurns, [...toTurns].sort((a, b) => a - b), `${at}: summaries out of order`);

      const expectedTail = turn < FIRST_FOLD_TURN ? idsOfTurns(1, turn - 1) : idsOfTurns(turn - 2, turn - 1);
      assert.deepEqual(tail.map((entry) => entry.id), expectedTail, `${at}: verbatim tail`);
      assert.equal(summaries.length > 0, turn >= FIRST_FOLD_TURN, `${at}: summaries present from turn ${FIRST_FOLD_TURN} on`);

      // Nothing loaded is lost: each loaded entry is in recall or covered by a summary in recall.
      const covered = new Set(summaries.flatMap((summary) => summaryCoverageOf(summary).coveredIds));
      const recallIds = new Set(recall.map((entry) => entry.id));
      assert.deepEqual(loadedIdsOf(result).filter((id) => !recallIds.has(id) && !covered.has(id)), [], `${at}: entries lost`);
      assert.ok(tail.every((entry) => !covered.has(entry.id)), `${at}: a covered entry served verbatim`);

      // The rest of the pipeline saw that recall: all of it fits the generous budget.
      assert.deepEqual(result.selected.map((entry) => entry.id), recall.map((entry) => entry.id));
      assert.deepEqual(result.formatted, formatRecall(result.selected));
    }
  });

  test(`40 turns, ${mode.name}: events arrive through the emit recorder and the narrative, with honest counts`, async () => {
    const { turns } = await conversationIn(mode);
    let turnsWithUnchangedRecall = 0;
    for (const result of turns) {
      const { turn } = result;
      const events = strategyEvents(result);
      // Turns before the trigger change nothing and say nothing (SPEC §6); from
      // then on each turn folds exactly one span and says so once.
      if (turn < FIRST_FOLD_TURN) {
        assert.deepEqual(events, [], `turn ${turn}: an event for a visit that changed nothing`);
      } else {
        assert.equal(events.length, 1, `turn ${turn}: one event per fold`);
        const [{ payload }] = events;
        assert.equal(payload.strategyKind, 'summarizing');
        assert.equal(payload.scoreEvidence.summarizerCalled, true);
        assert.equal(payload.scoreEvidence.persisted, true);
        // The first fold takes turns 1..4 at once; each later one the single
        // turn that just left the two-turn verbatim tail.
        const fromTurn = turn === FIRST_FOLD_TURN ? 1 : turn - 3;
        assert.deepEqual(payload.addedIds, [pkg.summaryEntryId(fromTurn, turn - 3)]);
        assert.match(payload.reason, /written back/);
      }
      for (const { payload } of events) {
        assert.deepEqual(structuredClone(payload), payload, `turn ${turn}: an event payload that is not plain data`);
      }
      assert.deepEqual(findEventsMissingFromNarrative(result), []);
      assert.deepEqual(findCountMismatches(result), []);
      assert.deepEqual(findAssignmentViolations(result), []);
      const loadedIds = loadedIdsOf(result);
      if (JSON.stringify(loadedIds) === JSON.stringify(result.recall.map((entry) => entry.id))) turnsWithUnchangedRecall += 1;
    }
    // Turns 1–6 hand the stage a recall it must leave alone (turn 1's is
    // empty); without them the no-reassignment check would be vacuous.
    assert.equal(turnsWithUnchangedRecall, FIRST_FOLD_TURN - 1);
  });
}

test('both runs serve the same recall every turn and store the same summaries', async () => {
  const [shared, fresh] = await Promise.all(MODES.map(conversationIn));
  const recallIds = (run) => run.turns.map((result) => result.recall.map((entry) => entry.id));
  assert.deepEqual(recallIds(fresh), recallIds(shared));
  const summaryIds = async (run) => (await run.store.list(IDENTITY)).filter(isSummaryEntry).map((entry) => entry.id).sort();
  assert.deepEqual(await summaryIds(fresh), await summaryIds(shared));
});

test('a recall that already leads with its summary is left alone: no assignment, no event', async () => {
  // After the 40 turns the 7 newest entries are S(37), turns 38–40: already
  // [summary, verbatim…] and below the trigger, so the stage has nothing to do.
  const { store } = await conversationIn(MODES[0]);
  const { summarizer, callsBySpan } = recordingSummarizer();
  const pipeline = await createMemoryPipeline({
    store,
    footprint,
    summarizeStage: pkg.summarize(stageConfig({ summarizer, store, clock: createMonotonicClock() })),
    loadLimit: 7,
  });
  const putsBefore = store.calls.put;
  // No messages: a read-only turn, so the shared run's store is not changed.
  const result = { turn: TURNS + 1, ...(await runMemoryTurn(pipeline, { identity: IDENTITY, turn: TURNS + 1, messages: [] })) };
  assert.deepEqual(loadedIdsOf(result), [pkg.summaryEntryId(TURNS - 3, TURNS - 3), ...idsOfTurns(TURNS - 2, TURNS)]);
  assert.deepEqual(findAssignmentViolations(result), []);
  assert.equal(result.writes.filter((w) => w.stageId === STAGE_IDS.summarize).length, 0);
  assert.deepEqual(strategyEvents(result), []);
  assert.equal(callsBySpan.size, 0);
  assert.equal(store.calls.put, putsBefore);
});

// ---------------------------------------------------------------------------
// Controls: the premise, and proof that the observations above can fail
// ---------------------------------------------------------------------------

test('premise: footprintjs index reads are live element proxies; iteration yields plain entries', async () => {
  const seen = {};
  const chart = footprint
    .flowChart('Seed', async (scope) => {
      scope.loaded = [{ id: 'a' }, { id: 'b' }, { id: 'c' }];
    }, 'seed')
    .addFunction('Probe', async (scope) => {
      const loadedProxy = scope.loaded;
      const firstByIndex = loadedProxy[0];
      const iterated = Array.from(loadedProxy);
      scope.loaded = [iterated[2]];
      seen.firstByIndexAfterAssign = firstByIndex.id;
      seen.lengthAfterAssign = loadedProxy.length;
      seen.iteratedAfterAssign = iterated.map((entry) => entry.id);
      seen.iteratedIsPlain = structuredClone(iterated).length === 3; // a Proxy would not clone
    }, 'probe')
    .build();
  await new footprint.FlowChartExecutor(chart).run();
  assert.deepEqual(seen, {
    firstByIndexAfterAssign: 'c', // the element proxy followed position 0 into the new array
    lengthAfterAssign: 1, // and the array handle reads the new value too
    iteratedAfterAssign: ['a', 'b', 'c'],
    iteratedIsPlain: true,
  });
});

test('control: the observations catch a stage that reads by index and always re-assigns', async () => {
  // The two mistakes the original makes in a real agent: counting through the live
  // handle after its own write, and writing back a recall it did not change.
  async function careless(scope) {
    const loaded = scope.loaded ?? [];
    scope.loaded = Array.from(loaded).slice(-PRESERVE_RECENT);
    scope.$emit(STRATEGY_EVENT, { inputMemoryCount: loaded.length, outputMemoryCount: scope.loaded.length });
  }
  const store = createMemoryStore();
  const pipeline = await createMemoryPipeline({ store, footprint, summarizeStage: careless, loadLimit: LOAD_LIMIT });
  const results = [];
  for (let turn = 1; turn <= 4; turn += 1) {
    results.push({ turn, ...(await runMemoryTurn(pipeline, { identity: IDENTITY, turn, messages: turnMessages(turn) })) });
  }
  // Turn 2 loads 2 entries and keeps them: re-assigned although unchanged.
  assert.deepEqual(findAssignmentViolations(results[1]), [{ turn: 2, unchanged: true, assignments: [idsOfTurns(1, 1)] }]);
  // Turn 4 loads 6 and keeps 4: the live handle reports 4 as the input count.
  assert.deepEqual(findCountMismatches(results[3]), [
    { turn: 4, loadedCount: 6, inputMemoryCount: PRESERVE_RECENT, recallLength: PRESERVE_RECENT, outputMemoryCount: PRESERVE_RECENT },
  ]);
  // An event that footprintjs narrated is recognised; one it did not see is not.
  assert.deepEqual(findEventsMissingFromNarrative(results[3]), []);
  const narrativeWithoutEmits = { ...results[3], narrative: results[3].narrative.filter((entry) => entry.type !== 'emit') };
  assert.equal(findEventsMissingFromNarrative(narrativeWithoutEmits).length, 1);
});

test('pickWithinBudget keeps every summary first, then the newest verbatim entries that fit', () => {
  const raw = (id, chars) => ({ id, value: { role: 'user', content: 'x'.repeat(chars) } });
  const summary = (id, chars) => ({
    id,
    value: { role: 'system', content: 's'.repeat(chars) },
    metadata: { summarizes: { coveredIds: ['old'] } },
  });
  const recall = [summary('s1', 50), summary('s2', 50), raw('r1', 30), raw('r2', 30), raw('r3', 30)];
  assert.deepEqual(pickWithinBudget(recall, 165).map((e) => e.id), ['s1', 's2', 'r2', 'r3']);
  // The newest entry does not fit: nothing older is taken past it (no gaps).
  assert.deepEqual(pickWithinBudget([...recall, raw('r4', 100)], 165).map((e) => e.id), ['s1', 's2']);
  // Summaries stay even when they alone exceed the budget.
  assert.deepEqual(pickWithinBudget(recall, 10).map((e) => e.id), ['s1', 's2']);
});

// ---------------------------------------------------------------------------
// The npm README's Agent route
// ---------------------------------------------------------------------------

// The turn recall must reach back to, or further, on each of the 31 turns
// (turn 1 recalls nothing): the calls the economy's rules (the token floor,
// no call for a foreseeable refusal) save must cost no reach.
const ROUTE_REACH = [Infinity, ...Array(20).fill(1), 3, 3, 3, 6, 6, 6, 6, 10, 10, 10];

test("the npm README's Agent route pays only for calls that fold, reaches back as far as its table, and reports tokens", async () => {
  const { runReadmeRoute, ROUTE } = await import('../support/readme-route.mjs');
  assert.equal(ROUTE_REACH.length, ROUTE.turns);
  const route = await runReadmeRoute({ pkg, footprint });
  assert.deepEqual(route.refused, [], 'no paid call ends replacement-not-smaller');
  // Few paid calls: at most 5 in 31 turns (`node bench/bench.mjs --sections route` prints the count).
  assert.ok(route.calls >= 1 && route.calls <= 5, `${route.calls} paid calls in ${ROUTE.turns} turns`);
  assert.equal(route.folds.length, route.calls, 'every paid call folds');
  for (const [index, { oldestTurn }] of route.perTurn.entries()) {
    assert.ok(oldestTurn <= ROUTE_REACH[index], `turn ${index + 1} reaches turn ${oldestTurn}, past ${ROUTE_REACH[index]}`);
  }
  for (const fold of route.folds) {
    const { recallTokensBefore, recallTokensAfter, spanTokens, summaryTokens } = fold.scoreEvidence;
    assert.ok([recallTokensBefore, recallTokensAfter, spanTokens, summaryTokens].every(Number.isFinite), fold.reason);
    assert.ok(recallTokensAfter < recallTokensBefore, fold.reason);
  }
  // The turns it waits are explained, and none of them is paid.
  const waits = route.events.filter((payload) => payload.reason.startsWith('not-worth-a-call-yet, no call made'));
  assert.ok(waits.length > 0 && waits.every((payload) => payload.scoreEvidence.summarizerCalled === false));

  // Without `maxSummaries` the floor alone keeps every call a fold.
  const floorOnly = await runReadmeRoute({ pkg, footprint, extra: { maxSummaries: undefined } });
  assert.deepEqual(floorOnly.refused, []);
  assert.ok(floorOnly.calls <= 5 && floorOnly.folds.length === floorOnly.calls, `${floorOnly.calls} paid calls`);
  const floorWaits = floorOnly.events.filter((payload) => payload.scoreEvidence.minFoldTokens === ROUTE.preserveRecentTokens);
  assert.ok(floorWaits.length > 0, 'the floor defaults to preserveRecentTokens');
});
