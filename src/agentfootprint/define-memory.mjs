// `footprint-summarize/agentfootprint`: agentfootprint's `agentfootprint/memory`
// door with one difference. `defineMemory` for EPISODIC × SUMMARIZE returns
// the definition agentfootprint's own `defineMemory` builds, with the
// summarize stage of its read pipeline replaced by this package's. Every other
// type and strategy, and every other export of the door, is agentfootprint's
// own, so switching is one import line.
//
// agentfootprint and footprintjs are optional peers: only this module loads
// them, never the package's main entry. The stage comes from the main entry by
// the package's own name, so it resolves through the same export conditions
// (import, require, workerd) as the user's own import does.
import * as agentfootprintMemory from 'agentfootprint/memory';
import { flowChart } from 'footprintjs';
import { summarize } from 'footprint-summarize';

export * from 'agentfootprint/memory';

const { MEMORY_STRATEGIES, MEMORY_TYPES, formatDefault, loadRecent, pickByBudget } = agentfootprintMemory;

/**
 * The load window when `strategy.size` is not set: agentfootprint's
 * `DEFAULT_SUMMARIZE_WINDOW` (loadRecent's own default), which it does not
 * export. The parity test leaves `size` out, so a change there shows.
 */
const DEFAULT_WINDOW = 20;

/** defineMemory's top-level options, as agentfootprint 9.x reads them. */
const AGENTFOOTPRINT_OPTION_KEYS = new Set([
  'id', 'type', 'description', 'store', 'strategy', 'timing', 'redact', 'corpus', 'readOnly', 'flavor', 'projection',
]);

/**
 * The stage's options that defineMemory sets from agentfootprint's own, so a
 * strategy that sets them too would say two things: each with where its value
 * comes from.
 */
const SET_FROM_AGENTFOOTPRINT = new Map([
  ['store', 'the memory\'s top-level `store`'],
  ['triggerMinEntries', '`size`'],
  ['preserveRecent', '`recent`'],
  ['strategyId', 'the memory\'s `id`'],
]);

/** Each stage defineMemory built, by its definition, for `summarizeStageOf`. */
const stages = new WeakMap();

/**
 * agentfootprint's `defineMemory`, with this package's summarize stage for
 * EPISODIC × SUMMARIZE. The strategy also takes the stage's options beyond
 * the original (`background`, `claims`, `maxSummaries`, `keepDetails`, the
 * token options, `onEvent`, …); a misspelled or misplaced one is refused here.
 */
export function defineMemory(options) {
  // Each option is read once: the copies are what both builds see. Any
  // other memory is agentfootprint's, which reads the options it was given.
  const { strategy, ...memoryOptions } = typeof options === 'object' && options !== null ? options : {};
  const { kind, recent, size, llm, model, systemPrompt, ...beyond } = typeof strategy === 'object' && strategy !== null ? strategy : {};
  if (memoryOptions.type !== MEMORY_TYPES.EPISODIC || kind !== MEMORY_STRATEGIES.SUMMARIZE) {
    return agentfootprintMemory.defineMemory(options);
  }
  // agentfootprint's own checks and refusals come first, and its definition
  // (id, timing, billing, the write pipeline) is kept whole. It reads an
  // undefined strategy field as an absent one.
  const definition = agentfootprintMemory.defineMemory({
    ...memoryOptions,
    strategy: { kind, recent, size, llm, model, systemPrompt },
  });
  const site = `defineMemory[${memoryOptions.id}]`;
  refuseMisplaced(site, memoryOptions, beyond);

  const window = size ?? DEFAULT_WINDOW;
  const stage = buildStage(site, {
    ...beyond,
    llm,
    model,
    store: memoryOptions.store,
    triggerMinEntries: window,
    // A tail counted in tokens replaces the one counted in entries (the
    // stage refuses both); `recent` still sets the fold floor below.
    ...(beyond.preserveRecentTokens === undefined && { preserveRecent: recent }),
    // agentfootprint's cost policy: never pay to fold less than the tail.
    minFoldEntries: beyond.minFoldEntries ?? Math.max(2, recent),
    strategyId: memoryOptions.id,
    ...(systemPrompt !== undefined && { systemPrompt }),
  });
  const ours = Object.freeze({ ...definition, read: readPipeline(memoryOptions.store, window, stage) });
  stages.set(ours, stage);
  return ours;
}

/**
 * The summarize stage inside a definition `defineMemory` built, for
 * `settled()` before shutdown or `fold()` in tests; `undefined` for any
 * other definition.
 */
export function summarizeStageOf(definition) {
  return stages.get(definition);
}

/**
 * agentfootprint's read pipeline for SUMMARIZE (its `defaultPipeline` with a
 * `summarize` config): the same stages, names, ids and descriptions, with
 * this package's stage in the summarize step. A test compares the chart with
 * agentfootprint's own.
 */
function readPipeline(store, window, stage) {
  let read = flowChart('LoadRecent', loadRecent({ store, count: window }), 'load-recent', {
    description: 'Read N most-recent entries from storage into scope.loaded',
  }).addFunction('Summarize', stage, 'summarize', 'Fold entries older than the verbatim tail into one stored summary entry');
  read = pickByBudget({})(read);
  return read
    .addFunction('Format', formatDefault({}), 'format-default', 'Render selected entries as a system message; writes scope.formatted')
    .build();
}

/** `summarize(config)`, its refusal said as defineMemory's. */
function buildStage(site, config) {
  try {
    return summarize(config);
  } catch (error) {
    if (!(error instanceof Error)) throw error;
    throw new error.constructor(`${site}: in \`strategy\`, ${error.message}`, { cause: error });
  }
}

/** Refuses a top-level option agentfootprint does not read, and a strategy option defineMemory sets itself. */
function refuseMisplaced(site, memoryOptions, beyond) {
  for (const key of Object.keys(memoryOptions)) {
    if (AGENTFOOTPRINT_OPTION_KEYS.has(key)) continue;
    throw new TypeError(
      `${site}: \`${key}\` is not an option of defineMemory (received ${describe(memoryOptions[key])}); it would be ignored. ` +
        `Fix: the summarize stage's options go in \`strategy\`, e.g. \`strategy: { kind: 'summarize', recent, llm, model, ${key}: … }\`; ` +
        `defineMemory's own are ${[...AGENTFOOTPRINT_OPTION_KEYS].map((known) => `\`${known}\``).join(', ')}.`,
    );
  }
  for (const [key, source] of SET_FROM_AGENTFOOTPRINT) {
    if (!Object.hasOwn(beyond, key)) continue;
    throw new TypeError(
      `${site}: \`strategy.${key}\` is set by defineMemory from ${source} (received ${describe(beyond[key])}). ` +
        `Fix: remove it from \`strategy\` and set ${source} instead.`,
    );
  }
}

/** A value as the stage's own refusals describe it: `a number (1)`, `a string ("…")`, `an object`. */
function describe(value) {
  if (value === null || value === undefined) return String(value);
  if (Array.isArray(value)) return 'an array';
  const type = typeof value;
  if (type === 'object' || type === 'function') return `a${type === 'object' ? 'n' : ''} ${type}`;
  return `a ${type} (${type === 'string' ? JSON.stringify(value) : String(value)})`;
}
