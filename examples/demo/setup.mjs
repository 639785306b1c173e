// What the demo's single run and its fleet workers (fleet.mjs) share: the
// conversation's identity, the pipeline and stage built from the settings
// (settings.mjs), the counted summarizer, the store, and how a turn's result is read.

import { rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { STRATEGY_EVENT, createMemoryPipeline, createMonotonicClock, isSummaryEntry } from '../../tests/support/memory-pipeline.mjs';
import { openRedisStore } from '../../tests/support/redis-store.mjs';
import { openAiCompatibleProvider } from '../../www/openai-provider.js';
import { SETTINGS } from './settings.mjs';
import { openSqliteStore } from './sqlite-store.mjs';

/** The built package the demo runs (bash examples/demo.sh builds it when missing or stale). */
export const PACKAGE_ENTRY = resolve(dirname(fileURLToPath(import.meta.url)), '../../pkg/dist/index.mjs');

export const IDENTITY = Object.freeze({
  tenant: 'northwind-home',
  principal: 'maya.okafor',
  conversationId: 'support-case-CS-20931',
});

/**
 * `--tokens`: the o200k_base counter the stage and PickByBudget share,
 * imported only then (its vocabulary takes a while to load).
 */
export async function loadTokenCounter() {
  return (await import('../../tests/support/tokens.mjs')).o200kTokens;
}

/**
 * The `llm` for the stage, wrapped in the same shape (callback stays a
 * callback, provider stays a provider) so every call it gets is counted:
 * `started` when the stage calls it, `paid` when it returns text (what a
 * hosted model bills — also for an answer that arrives after the stage's
 * deadline). Failures are counted from the stage's own events instead: a
 * timed-out call fails at the deadline, not when the request settles.
 */
export function countedSummarizer(options, pkg, { onCall } = {}) {
  const counts = { started: 0, paid: 0 };
  async function counted(call) {
    counts.started += 1;
    onCall?.();
    // --llm-delay: a model's latency, before the call itself.
    if (options.llmDelayMs) await new Promise((resolve) => setTimeout(resolve, options.llmDelayMs));
    const result = await call();
    counts.paid += 1;
    return result;
  }

  if (options.llm === 'extractive') {
    const summarizer = pkg.extractive({ maxChars: SETTINGS.extractiveMaxChars });
    return {
      counts,
      stageConfig: { llm: (messages) => counted(() => summarizer(messages)) },
      description: `extractive (offline, deterministic, at most ${SETTINGS.extractiveMaxChars} chars per summary)`,
    };
  }

  const apiKey = process.env[options.apiKeyEnv];
  const provider = openAiCompatibleProvider({ baseUrl: options.baseUrl, apiKey });
  return {
    counts,
    stageConfig: {
      llm: { name: provider.name, complete: (request) => counted(() => provider.complete(request)) },
      model: options.model,
    },
    description:
      `openai-compatible ${options.baseUrl}, model ${options.model}` +
      (apiKey ? `, key from $${options.apiKeyEnv}` : `, no key ($${options.apiKeyEnv} is not set)`),
  };
}

export const contentChars = (entries) =>
  entries.reduce((sum, entry) => sum + (typeof entry.value?.content === 'string' ? entry.value.content.length : 0), 0);

/** What the stage did this turn, read from the events footprintjs recorded. */
export function readTurn(result) {
  const events = result.events.filter((event) => event.name === STRATEGY_EVENT).map((event) => event.payload);
  const newSummaryIds = new Set(events.flatMap((payload) => payload.addedIds));
  const summariesInRecall = result.recall.filter(isSummaryEntry);
  const failure = events.find((payload) => payload.scoreEvidence?.failed === true);
  return {
    events,
    folds: summariesInRecall
      .filter((entry) => newSummaryIds.has(entry.id))
      .map((entry) => ({ id: entry.id, coverage: entry.metadata.summarizes, ...foldEvidence(events, entry.id) })),
    storedSummaryIds: summariesInRecall.filter((entry) => !newSummaryIds.has(entry.id)).map((entry) => entry.id),
    failureCause: failure ? (/Cause: (.*)$/s.exec(failure.reason)?.[1] ?? failure.reason) : undefined,
    refused: events.some((payload) => payload.reason.includes('replacement-not-smaller') && payload.scoreEvidence?.summarizerCalled),
  };
}

/** What the fold that wrote `summaryId` reported: its usage and its details audit. */
function foldEvidence(events, summaryId) {
  const evidence = events.find((payload) => payload.addedIds.includes(summaryId))?.scoreEvidence ?? {};
  return {
    usage: evidence.usage,
    details: {
      found: evidence.detailsFound ?? 0,
      kept: evidence.detailsKept ?? 0,
      pinned: evidence.detailsPinned ?? 0,
      dropped: evidence.droppedDetails ?? [],
      droppedCount: evidence.droppedDetailCount ?? 0,
    },
  };
}

/**
 * The store the options name: Redis at `--redis URL`, else the SQLite file.
 * `close()` may return a promise.
 */
export async function openStore(options) {
  return options.redisUrl === undefined ? openSqliteStore(options.dbPath) : openRedisStore(options.redisUrl);
}

/**
 * The demo's summarizer, stage and pipeline over `store`, for one run or one
 * fleet process. Every stamp (messages, summaries) comes from one clock that
 * never goes back and starts after everything already stored
 * (`newestUpdatedAt`), so recency order holds across runs even if the wall
 * clock moved backwards in between. `onCall` runs when the summarizer is called.
 */
export async function buildDemo({ options, pkg, store, newestUpdatedAt, onCall, countTokens }) {
  const clock = createMonotonicClock(() => Math.max(Date.now(), (newestUpdatedAt ?? 0) + 1));
  const summarizer = countedSummarizer(options, pkg, { onCall });
  // --background: each fold's own end reaches onEvent alone, after its turn.
  const backgroundEnds = [];
  const onEvent = (type, payload) => {
    if (payload.scoreEvidence?.background && !payload.reason.startsWith('fold-in-background')) backgroundEnds.push(payload);
  };
  const stage = pkg.summarize({ ...stageConfig({ options, summarizer, store, clock, countTokens }), ...(options.background ? { onEvent } : {}) });
  // The last turn's time in the stage alone (what the turn waited for it).
  const stageTime = { lastMs: 0 };
  const timedStage = async (scope) => {
    const started = performance.now();
    try {
      return await stage(scope);
    } finally {
      stageTime.lastMs = performance.now() - started;
    }
  };
  const pipeline = await createMemoryPipeline({
    store,
    summarizeStage: timedStage,
    loadLimit: SETTINGS.loadLimit,
    budgetChars: SETTINGS.budgetChars,
    ...(countTokens ? { countTokens, budgetTokens: SETTINGS.budgetTokens } : {}),
    clock,
  });
  return { summarizer, pipeline, stage, stageTime, backgroundEnds };
}

/** The stage's config over `store` (the summarizer's own keys come from `countedSummarizer`). */
function stageConfig({ options, summarizer, store, clock, countTokens }) {
  return {
    ...summarizer.stageConfig,
    store,
    triggerMinEntries: SETTINGS.triggerMinEntries,
    ...(countTokens ? { countTokens, preserveRecentTokens: SETTINGS.preserveRecentTokens } : { preserveRecent: SETTINGS.preserveRecent }),
    minFoldEntries: SETTINGS.minFoldEntries,
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
    ...(options.maxSummaries === undefined ? {} : { maxSummaries: options.maxSummaries }),
    ...(options.keepDetails ? { keepDetails: true } : {}),
    ...(options.background ? { background: true } : {}),
    ...(options.claims ? { claims: true, ...(options.leaseMs === undefined ? {} : { claimLeaseMs: options.leaseMs }) } : {}),
    now: clock,
  };
}

/** Empties the store the options name (`--reset`): the SQLite file, or this identity on Redis. */
export async function resetStore(options) {
  if (options.redisUrl === undefined) {
    for (const suffix of ['', '-wal', '-shm']) rmSync(options.dbPath + suffix, { force: true });
    return;
  }
  const store = await openRedisStore(options.redisUrl);
  try {
    await store.clear(IDENTITY);
  } finally {
    await store.close();
  }
}

/** Where the conversation lives, for the header and the closing table. */
export function storeDescription(options) {
  return options.redisUrl === undefined ? options.dbPath : `redis ${options.redisUrl}`;
}
