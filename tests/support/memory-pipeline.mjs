// A footprintjs memory pipeline shaped like agentfootprint's, with the
// summarize stage as a slot, so the same code drives footprint-summarize, the
// original TypeScript stage, or anything else with the `(scope) => Promise`
// stage shape. The demo CLI and the integration tests both import this file.
//
// One turn is one run of one chart:
//
//   LoadRecent → Summarize (the slot) → PickByBudget → Format → WriteTurn
//
// The read stages build what the agent sees for this turn (recall from the
// turns before it); WriteTurn then appends this turn's own messages, the way an
// agent writes its turn back after answering.
//
// Scope keys (the chart's state): identity, loaded (recall), selected (what
// fits the budget), formatted ({ messages, text }), writtenIds.
// Per-turn input (`run({ input })`, read with `scope.$getArgs()`):
// { requestIdentity, turn, messages: [{ role, content }, ...] }. Input is not
// state in footprintjs, and a state key named like an input key refuses writes,
// so the identity arrives under its own name and LoadRecent copies it to
// `identity`, where the summarize stage reads it.
//
// Every stage here reads arrays from the scope by ITERATING them, never by
// index: footprintjs hands out live element proxies on index reads
// (`scope.loaded[i]` follows the position, and reads the new array once
// `scope.loaded` is reassigned), while iteration yields the plain entries.

/** The event type the summarize stage emits (SPEC §2). */
export const STRATEGY_EVENT = 'agentfootprint.memory.strategy_applied';

/** Builder ids of the chart's stages; events and writes are keyed by them. */
export const STAGE_IDS = Object.freeze({
  loadRecent: 'load-recent',
  summarize: 'summarize',
  pickByBudget: 'pick-by-budget',
  format: 'format',
  writeTurn: 'write-turn',
});

// ---------------------------------------------------------------------------
// Store
// ---------------------------------------------------------------------------

/**
 * The store interface the pipeline needs. Anything with these three methods
 * works (the demo implements it on SQLite):
 *
 *   put(identity, entry)  → Promise<void>
 *       Insert, or overwrite the entry with the same `entry.id`, within that
 *       identity's conversation.
 *   get(identity, id)     → Promise<entry | undefined>
 *   list(identity)        → Promise<entry[]>
 *       Every entry of that identity, in any order (LoadRecent sorts).
 *   listRecent(identity, limit) → Promise<entry[]>   (optional)
 *       The same as `selectRecent(await list(identity), limit)`; LoadRecent
 *       uses it when present, so a database can answer from an index.
 *
 * Entries go in and come out BY VALUE (structured-clone semantics): a caller
 * mutating an entry after `put`, or one it got back, never edits the store.
 * `identity` is `{ tenant?, principal?, conversationId }`; it may arrive as a
 * footprintjs scope Proxy, so implementations only read its fields.
 */

/** The key one conversation's entries live under. */
export function identityKey(identity) {
  if (identity === null || typeof identity !== 'object' || typeof identity.conversationId !== 'string') {
    throw new TypeError(`identity must be an object with a string conversationId; got ${JSON.stringify(identity)}`);
  }
  return JSON.stringify([identity.tenant ?? null, identity.principal ?? null, identity.conversationId]);
}

/**
 * An in-memory store implementing the interface above, with counters so tests
 * can assert what was written: `calls` counts each method, `putLog` lists every
 * put in order as `{ identityKey, id }`.
 */
export function createMemoryStore() {
  const conversations = new Map(); // identityKey → Map(id → entry)
  const calls = { put: 0, get: 0, list: 0 };
  const putLog = [];

  function entriesOf(identity) {
    const key = identityKey(identity);
    let entries = conversations.get(key);
    if (!entries) {
      entries = new Map();
      conversations.set(key, entries);
    }
    return { key, entries };
  }

  return {
    calls,
    putLog,
    async put(identity, entry) {
      calls.put += 1;
      assertEntry('put', entry);
      const { key, entries } = entriesOf(identity);
      // structuredClone also refuses a Proxy or a function inside the entry,
      // which no real store could persist either.
      entries.set(entry.id, structuredClone(entry));
      putLog.push({ identityKey: key, id: entry.id });
    },
    async get(identity, id) {
      calls.get += 1;
      const found = entriesOf(identity).entries.get(id);
      return found === undefined ? undefined : structuredClone(found);
    },
    async list(identity) {
      calls.list += 1;
      return Array.from(entriesOf(identity).entries.values(), (entry) => structuredClone(entry));
    },
  };
}

// ---------------------------------------------------------------------------
// Pure helpers (exported so the demo's SQLite path and the tests share them)
// ---------------------------------------------------------------------------

/**
 * Newest first: larger `updatedAt` first; equal clocks are ordered by id,
 * larger id first (string comparison, i.e. UTF-16 code units; for ASCII ids
 * that is SQLite's `ORDER BY updated_at DESC, id DESC`). On a tie this puts
 * `msg-summary-…` ahead of `msg-<digit>…`, so a summary sharing a clock with
 * the next message is not the one cut off by the load limit.
 */
export function compareNewestFirst(a, b) {
  const byClock = (b.updatedAt ?? 0) - (a.updatedAt ?? 0);
  if (byClock !== 0) return byClock;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

/** The `limit` newest entries, returned oldest first (LoadRecent's rule). */
export function selectRecent(entries, limit) {
  return Array.from(entries).sort(compareNewestFirst).slice(0, limit).reverse();
}

/**
 * The SPEC §1 rule, applied structurally so this pipeline does not depend on
 * the module under test: a summary carries `metadata.summarizes.coveredIds`.
 */
export function isSummaryEntry(entry) {
  const coverage = entry?.metadata?.summarizes;
  return coverage !== null && typeof coverage === 'object' && Array.isArray(coverage.coveredIds);
}

function contentText(entry) {
  const content = entry?.value?.content;
  return typeof content === 'string' ? content : '';
}

function contentChars(entry) {
  return contentText(entry).length;
}

/** An entry's tokens by `countTokens`: none for a content that is empty or no string, as the stage counts. */
function entryTokens(entry, countTokens) {
  const text = contentText(entry);
  return text === '' ? 0 : countTokens(text);
}

/** Tokens of the entries' string contents, by `countTokens` (`(text) => number`). */
export function contentTokens(entries, countTokens) {
  return Array.from(entries).reduce((sum, entry) => sum + entryTokens(entry, countTokens), 0);
}

/** Throws unless `entry` is an object with a string id, what every store's `method` needs. */
export function assertEntry(method, entry) {
  if (entry === null || typeof entry !== 'object' || typeof entry.id !== 'string') {
    throw new TypeError(`store.${method} needs an entry with a string id; got ${JSON.stringify(entry)}`);
  }
}

/** Throws unless `expectedVersion` is what `putIfVersion` takes: a safe integer >= 0 (0: absent or expired). */
export function assertExpectedVersion(expectedVersion) {
  if (!Number.isSafeInteger(expectedVersion) || expectedVersion < 0) {
    throw new RangeError(`store.putIfVersion needs expectedVersion >= 0 (0: absent or expired); got ${expectedVersion}`);
  }
}

/**
 * A fleet's claim on a span (footprint-summarize's `claims: true`): store
 * bookkeeping, never a message. The summarize stage leaves claims out of
 * recall; stores leave them out of their message counts.
 */
export function isClaimEntry(entry) {
  const claim = entry?.metadata?.summaryClaim;
  return typeof claim === 'object' && claim !== null && !isSummaryEntry(entry);
}

/**
 * The budget rule. Summary entries are ALWAYS kept, first, in recall order:
 * each one is the only thing left in recall that stands for its turns (the
 * originals are excluded while it stands), so dropping one for space would
 * silently erase history — the budget is spent on them before anything else.
 * The rest of the budget keeps the NEWEST raw entries that fit, stopping at the
 * first one that does not (a contiguous recent tail, never a gap), in recall
 * order. Sizes are UTF-16 lengths of `value.content`, or with `countTokens`
 * (agentfootprint's `TokenCounter`, `(text) => number`) its tokens.
 */
export function pickWithinBudget(entries, budget, countTokens) {
  const size = countTokens ? (entry) => entryTokens(entry, countTokens) : contentChars;
  const all = Array.from(entries);
  const summaries = all.filter(isSummaryEntry);
  const raw = all.filter((entry) => !isSummaryEntry(entry));
  let remaining = budget - summaries.reduce((sum, entry) => sum + size(entry), 0);
  let firstKept = raw.length;
  while (firstKept > 0) {
    const next = size(raw[firstKept - 1]);
    if (next > remaining) break;
    firstKept -= 1;
    remaining -= next;
  }
  return [...summaries, ...raw.slice(firstKept)];
}

/**
 * Renders selected entries for the model: one message per entry (a summary is
 * already a `system` message whose content starts with the package's label),
 * plus the same as one text block for prompts that take memory as text.
 */
export function formatRecall(entries) {
  const messages = Array.from(entries, (entry) => ({
    role: entry.value?.role ?? 'unknown',
    content: typeof entry.value?.content === 'string' ? entry.value.content : '',
  }));
  const text = messages.map((message) => `${message.role}: ${message.content}`).join('\n\n');
  return { messages, text };
}

/** The id WriteTurn gives the `index`-th message of `turn`. */
export function messageEntryId(turn, index) {
  return `msg-${turn}-${index}`;
}

/**
 * A stored message entry at time `at`, keys in SPEC §2 order. `source` adds
 * fields to `source` (between `turn` and `identity`), as agentfootprint's
 * writers do (`runtimeStageId`, `messageId`).
 */
export function messageEntry({ turn, index, message, identity, at, source = {} }) {
  return {
    id: messageEntryId(turn, index),
    value: { role: message.role, content: message.content },
    version: 1,
    createdAt: at,
    updatedAt: at,
    lastAccessedAt: at,
    accessCount: 0,
    tier: 'hot',
    source: { turn, ...source, identity },
  };
}

/**
 * A clock that never repeats or goes back: each call returns
 * max(source(), previous + 1). Pass a deterministic `source` in tests.
 */
export function createMonotonicClock(source = Date.now) {
  let previous = -Infinity;
  return () => {
    previous = Math.max(source(), previous + 1);
    return previous;
  };
}

function plainIdentity(identity) {
  const { tenant, principal, conversationId } = identity;
  return {
    ...(tenant === undefined ? {} : { tenant }),
    ...(principal === undefined ? {} : { principal }),
    conversationId,
  };
}

// ---------------------------------------------------------------------------
// Stages
// ---------------------------------------------------------------------------

/**
 * LoadRecent: the `limit` newest entries of this identity, oldest first. A
 * store that can answer that itself (`listRecent(identity, limit)`, same order
 * as `selectRecent`; a database does it from an index) is asked for it;
 * otherwise every entry is listed and sorted here.
 */
export function loadRecentStage({ store, limit }) {
  return async function loadRecent(scope) {
    const identity = plainIdentity(scope.$getArgs().requestIdentity);
    scope.identity = identity;
    scope.loaded =
      typeof store.listRecent === 'function'
        ? await store.listRecent(identity, limit)
        : selectRecent(await store.list(identity), limit);
  };
}

/**
 * PickByBudget: `selected` = the part of recall that fits `budgetChars`, or
 * with `countTokens`, `budgetTokens` tokens by that counter.
 */
export function pickByBudgetStage({ budgetChars, countTokens, budgetTokens }) {
  return async function pickByBudget(scope) {
    scope.selected = countTokens
      ? pickWithinBudget(scope.loaded ?? [], budgetTokens, countTokens)
      : pickWithinBudget(scope.loaded ?? [], budgetChars);
  };
}

/** Format: `formatted` = { messages, text } rendered from `selected`. */
export function formatStage() {
  return async function format(scope) {
    scope.formatted = formatRecall(scope.selected ?? []);
  };
}

/** WriteTurn: appends this turn's messages to the store as `msg-{turn}-{index}`. */
export function writeTurnStage({ store, clock }) {
  return async function writeTurn(scope) {
    const { requestIdentity, turn, messages } = scope.$getArgs();
    const identity = plainIdentity(requestIdentity);
    const writtenIds = [];
    for (const [index, message] of Array.from(messages).entries()) {
      const entry = messageEntry({ turn, index, message, identity, at: clock() });
      await store.put(identity, entry);
      writtenIds.push(entry.id);
    }
    scope.writtenIds = writtenIds;
  };
}

// ---------------------------------------------------------------------------
// Pipeline and one turn
// ---------------------------------------------------------------------------

/**
 * Builds the chart around a summarize stage.
 *
 * @param {object} options
 * @param {object} options.store           the store interface above
 * @param {Function} options.summarizeStage the slot: `(scope) => Promise<void>`
 * @param {object} [options.footprint]     the footprintjs module to build and run
 *        with (`{ flowChart, FlowChartExecutor }`); default: `import('footprintjs')`
 * @param {number} [options.loadLimit=20]  LoadRecent's N
 * @param {number} [options.budgetChars=8000] PickByBudget's budget
 * @param {Function} [options.countTokens] `(text) => number`: PickByBudget
 *        budgets `budgetTokens` tokens by this counter instead of characters
 * @param {number} [options.budgetTokens=2000] PickByBudget's budget in tokens
 * @param {Function} [options.clock]       stamps written messages; default a
 *        monotonic clock over Date.now
 * @returns {Promise<{ chart, footprint }>} pass it to `runMemoryTurn`
 */
export async function createMemoryPipeline({
  store,
  summarizeStage,
  footprint,
  loadLimit = 20,
  budgetChars = 8000,
  countTokens,
  budgetTokens = 2000,
  clock = createMonotonicClock(),
}) {
  if (typeof summarizeStage !== 'function') throw new TypeError('summarizeStage must be a function (scope) => Promise<void>');
  const footprintModule = footprint ?? (await import('footprintjs'));
  const chart = footprintModule.flowChart(
    'LoadRecent',
    loadRecentStage({ store, limit: loadLimit }),
    STAGE_IDS.loadRecent,
    undefined,
    'Load the most recent memory entries of this conversation',
  )
    .addFunction('Summarize', summarizeStage, STAGE_IDS.summarize, 'Fold older entries into a summary')
    .addFunction('PickByBudget', pickByBudgetStage({ budgetChars, countTokens, budgetTokens }), STAGE_IDS.pickByBudget, 'Keep what fits the budget')
    .addFunction('Format', formatStage(), STAGE_IDS.format, 'Render recall for the model')
    .addFunction('WriteTurn', writeTurnStage({ store, clock }), STAGE_IDS.writeTurn, "Append this turn's messages")
    .build();
  return { chart, footprint: footprintModule };
}

/**
 * Runs one turn through a fresh footprintjs executor (one run per executor, as
 * footprintjs requires) and reports what footprintjs itself recorded:
 *
 * - `recall`, `selected`, `formatted`: the chart's final state (plain copies);
 * - `events`: every `$emit` as delivered to an attached emit recorder
 *   (`{ name, payload, stageId, runtimeStageId }`; the payload is the emitted
 *   object itself, not a copy);
 * - `writes`: every scope write as reported to an attached scope recorder's
 *   `onWrite`, which fires for each assignment the stage makes, including one
 *   of an identical value (the commit log is change-only and would hide it);
 *   for an array value, `ids` lists each element's `id` (the element itself
 *   when it has none, e.g. `writtenIds`);
 * - `narrative`: the executor's combined narrative entries.
 */
export async function runMemoryTurn(pipeline, { identity, turn, messages }) {
  const { chart, footprint } = pipeline;
  const executor = new footprint.FlowChartExecutor(chart);
  executor.enableNarrative();

  const events = [];
  executor.attachEmitRecorder({
    id: 'memory-pipeline-events',
    onEmit: (event) =>
      events.push({
        name: event.name,
        payload: event.payload,
        stageId: event.runtimeStageId.split('#')[0],
        runtimeStageId: event.runtimeStageId,
      }),
  });

  const writes = [];
  executor.attachScopeRecorder({
    id: 'memory-pipeline-writes',
    onWrite: (event) =>
      writes.push({
        stageId: event.stageId,
        key: event.key,
        operation: event.operation,
        ...(Array.isArray(event.value) ? { ids: Array.from(event.value, (item) => item?.id ?? item) } : {}),
      }),
  });

  await executor.run({ input: { requestIdentity: identity, turn, messages } });

  const state = executor.getSnapshot().sharedState;
  return {
    recall: structuredClone(state.loaded ?? []),
    selected: structuredClone(state.selected ?? []),
    formatted: structuredClone(state.formatted),
    events,
    writes,
    narrative: executor.getNarrativeEntries(),
  };
}
