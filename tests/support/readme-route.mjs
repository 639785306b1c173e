// The npm README's "whole route into an agentfootprint Agent", its read
// pipeline reproduced in footprintjs (agentfootprint is not on this
// registry): LoadRecent (the 40 newest entries) → this stage with the
// route's settings → PickByBudget in tokens → Format → WriteTurn, over the
// demo's support conversation, with one o200k_base counter for the stage and
// the picker. The summarizer is `extractive`, counted as a model would bill
// it: every call it answers is paid.
//
// Shared by the pipeline test (which holds the route to its figures) and the
// bench's "route" section (which prints them beside other settings).

import { contentTokens, createMemoryPipeline, createMemoryStore, isSummaryEntry, runMemoryTurn } from './memory-pipeline.mjs';
import { o200kTokens } from './tokens.mjs';
import { turnMessages } from '../../examples/demo/conversation.mjs';

/** What the README's route sets, and the turns it was tried over (one turn, then 30 more). */
export const ROUTE = Object.freeze({ loadCount: 40, triggerMinTokens: 2000, preserveRecentTokens: 500, maxSummaries: 1, turns: 31 });

/**
 * The route's settings beside the README's: what each one saves. The
 * README's route is `maxSummaries: 1`; the others take it away, then the
 * token floor (`minFoldTokens: 0`), or add `keepDetails`.
 */
export const ROUTE_VARIANTS = [
  { name: 'without maxSummaries, minFoldTokens: 0', extra: { maxSummaries: undefined, minFoldTokens: 0 } },
  { name: 'without maxSummaries', extra: { maxSummaries: undefined } },
  { name: 'as the README writes it (maxSummaries: 1)', extra: {} },
  { name: 'maxSummaries: 1, keepDetails', extra: { keepDetails: true } },
];

/** The route's stage as the README writes it, with `extra` options on top (`undefined` removes one). */
export function routeStageConfig(pkg, store, extra = {}) {
  return {
    llm: pkg.extractive(),
    store,
    countTokens: o200kTokens,
    triggerMinTokens: ROUTE.triggerMinTokens,
    preserveRecentTokens: ROUTE.preserveRecentTokens,
    maxSummaries: ROUTE.maxSummaries,
    ...extra,
  };
}

/**
 * Plays `turns` turns of the route. Returns the paid calls, every event of
 * the stage, and per turn the oldest turn recall reaches and the tokens it
 * sends.
 */
export async function runReadmeRoute({ pkg, footprint, extra = {}, turns = ROUTE.turns }) {
  const store = createMemoryStore();
  let writtenAt = 1_750_000_000_000;
  let calls = 0;
  const stageConfig = Object.fromEntries(Object.entries(routeStageConfig(pkg, store, extra)).filter(([, value]) => value !== undefined));
  const summarizer = stageConfig.llm;
  stageConfig.llm = async (messages) => {
    calls += 1;
    return summarizer(messages);
  };
  const pipeline = await createMemoryPipeline({
    store,
    summarizeStage: pkg.summarize(stageConfig),
    footprint,
    loadLimit: ROUTE.loadCount,
    countTokens: o200kTokens,
    // The context an Agent has left: never the limit here.
    budgetTokens: 1_000_000,
    clock: () => (writtenAt += 1000), // a second between writes
  });
  const identity = { conversationId: 'readme-route' };
  const events = [];
  const perTurn = [];
  for (let turn = 1; turn <= turns; turn += 1) {
    const result = await runMemoryTurn(pipeline, { identity, turn, messages: turnMessages(turn) });
    events.push(...result.events.map((event) => event.payload));
    const reach = result.recall.map((entry) => entry.metadata?.summarizes?.fromTurn ?? entry.source?.turn ?? Infinity);
    perTurn.push({
      turn,
      oldestTurn: Math.min(...reach),
      holdsSummary: result.recall.some(isSummaryEntry),
      tokensSent: contentTokens(result.selected, o200kTokens),
    });
  }
  const paid = events.filter((payload) => payload.scoreEvidence.summarizerCalled);
  return {
    calls,
    events,
    paid,
    refused: paid.filter((payload) => payload.reason.includes('replacement-not-smaller')),
    folds: paid.filter((payload) => payload.addedIds.length > 0),
    perTurn,
  };
}
