// `footprint-summarize/agentfootprint`: agentfootprint's `agentfootprint/memory`
// door, with `defineMemory` building this package's summarize stage for
// EPISODIC × SUMMARIZE. Needs agentfootprint (and its peer footprintjs)
// installed: both are optional peer dependencies of this package.
import type {
  DefineCausalOptions,
  DefineEpisodicOptions,
  DefineNarrativeOptions,
  DefineSemanticOptions,
  MemoryDefinition,
  Strategy,
  SummarizeStrategy,
} from 'agentfootprint/memory';
import type { SummarizeConfig, SummarizeStage } from 'footprint-summarize';

export * from 'agentfootprint/memory';

/**
 * The stage's options beyond agentfootprint's SUMMARIZE strategy, written in
 * the same `strategy` object. defineMemory sets `store` (the memory's),
 * `triggerMinEntries` (`size`), `preserveRecent` (`recent`, unless
 * `preserveRecentTokens` is set) and `strategyId` (the memory's `id`), so
 * those are refused here; `minFoldEntries` defaults to `max(2, recent)`, as
 * agentfootprint's own.
 */
export type SummarizeStrategyOptions = Omit<
  SummarizeConfig,
  'llm' | 'model' | 'systemPrompt' | 'store' | 'triggerMinEntries' | 'preserveRecent' | 'strategyId'
>;

/** agentfootprint's SUMMARIZE strategy with this package's options. */
export type FootprintSummarizeStrategy = SummarizeStrategy & SummarizeStrategyOptions;

/** agentfootprint's strategies, its SUMMARIZE one taking this package's options. */
export type FootprintStrategy = Exclude<Strategy, SummarizeStrategy> | FootprintSummarizeStrategy;

type WithStrategy<O> = Omit<O, 'strategy'> & { readonly strategy: FootprintStrategy };

/** agentfootprint's `defineMemory` options, SUMMARIZE taking this package's options. */
export type DefineMemoryOptions =
  | WithStrategy<DefineEpisodicOptions>
  | WithStrategy<DefineSemanticOptions>
  | WithStrategy<DefineNarrativeOptions>
  | WithStrategy<DefineCausalOptions>;

/**
 * agentfootprint's `defineMemory`. For EPISODIC × SUMMARIZE it returns the
 * definition agentfootprint's own builds (id, timing, billing, write
 * pipeline, refusals) with this package's stage in the read pipeline's
 * summarize step; every other memory is agentfootprint's own. Throws at
 * build for an option the stage refuses, a misspelled one, a summarize
 * option written outside `strategy`, or one defineMemory sets itself.
 */
export declare function defineMemory(options: DefineMemoryOptions): MemoryDefinition;

/**
 * The summarize stage in a definition {@link defineMemory} built for
 * EPISODIC × SUMMARIZE (for `settled()` before shutdown, or `fold()`), and
 * `undefined` for any other definition.
 */
export declare function summarizeStageOf(definition: MemoryDefinition): SummarizeStage | undefined;
