/**
 * footprint-summarize — agentfootprint's `summarize` memory stage (9.14.0
 * surface), compiled to WebAssembly.
 *
 * Reads from scope:  `loaded`, `identity`
 * Writes to scope:   `loaded` (older entries replaced by ONE summary entry)
 * Writes to store:   the summary entry, under a deterministic id
 * Emits:             agentfootprint.memory.strategy_applied (every visit that
 *                    changes recall or decides not to), carrying the reason,
 *                    the model, and the token usage the call reported.
 *
 * Where it fits:
 *
 *   loadRecent → summarize → [filterByDecay] → pickByBudget → formatDefault
 *
 * The stage keeps the last `preserveRecent` entries VERBATIM and folds the
 * older ones into a single summary entry — one summarizer call over the span —
 * then WRITES the summary back to the store, so the next turn loads it instead
 * of paying for it again. A span is summarized once in the life of a
 * conversation.
 *
 * The originals are never deleted: a summary is a claim ABOUT the
 * conversation. Covered entries stay in the store byte-identical and are kept
 * out of recall only by the summary's coverage metadata ({@link SummaryCoverage}).
 *
 * It declines out loud, never by failing the turn: not worth a call, the
 * summarizer failed (one `console.warn` per stage instance, recall served
 * verbatim), or the replacement is not smaller than what it replaces (the span
 * is latched and never re-asked).
 *
 * Determinism: configure `temperature: 0` (and a seed where the provider has
 * one) on the summarizer, so the same span produces the same summary and
 * prompt caches stay warm. The request the stage sends carries no
 * temperature: set it in the provider, or wrap it
 * (`{ complete: (request) => provider.complete({ ...request, temperature: 0 }) }`).
 */

// ─── Structural types the stage reads and writes ─────────────────────────────
// Shaped like agentfootprint's own, so its providers, stores, entries and
// footprintjs scopes fit without casts. Only the members the stage touches are
// required.

/** Whose memory this is. Stores partition by it. */
export interface MemoryIdentity {
  readonly tenant?: string;
  readonly principal?: string;
  readonly conversationId: string;
}

/** Alias kept for readers of agentfootprint code, which uses both names. */
export type Identity = MemoryIdentity;

/** Storage tier of an entry. */
export type MemoryTier = 'hot' | 'warm' | 'cold';

/** Where an entry came from. `turn` drives the fold's seam and its id. */
export interface MemorySource {
  readonly turn?: number;
  readonly runtimeStageId?: string;
  readonly messageId?: string;
  readonly identity?: MemoryIdentity;
}

/** The clock and version fields every stored entry carries. */
export interface EntryBookkeeping {
  readonly version: number;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly lastAccessedAt: number;
  readonly accessCount: number;
  readonly ttl?: number;
}

/**
 * One remembered item. Input entries are passed through untouched: recall
 * holds the caller's own objects, unknown fields included.
 */
export interface MemoryEntry<T = unknown> extends EntryBookkeeping {
  readonly id: string;
  readonly value: T;
  readonly metadata?: Readonly<Record<string, unknown>>;
  readonly decayPolicy?: unknown;
  readonly tier?: MemoryTier;
  readonly source?: MemorySource;
  readonly embedding?: readonly number[];
  readonly embeddingModel?: string;
}

/** A conversation message, as stored in an entry's `value`. */
export interface LLMMessage {
  readonly role: 'system' | 'user' | 'assistant' | 'tool';
  readonly content: string;
}

/** The request a provider receives from this stage. */
export interface LLMRequest {
  readonly systemPrompt: string;
  /**
   * One user message holding the span as a delimited transcript: a
   * `ROLE (turn N): TEXT` line per message, each further line of a message
   * starting with `"  | "`, so no message can start a line of its own.
   */
  readonly messages: readonly LLMMessage[];
  readonly model: string;
  /**
   * Present when the call has a deadline (`timeoutMs`, or with `background`
   * 120,000 ms without it); aborted when the deadline passes.
   */
  readonly signal?: AbortSignal;
}

/** The part of a provider response the stage reads. */
export interface LLMResponse {
  readonly content: string;
  /** Token counts, reported on the event. A response without them still folds. */
  readonly usage?: { readonly input: number; readonly output: number };
}

/** A chat provider, e.g. any agentfootprint `LLMProvider`. */
export interface LLMProvider {
  readonly name?: string;
  complete(request: LLMRequest): Promise<LLMResponse>;
}

/**
 * The entry a fold writes: a system message carrying its coverage, with
 * keys id, value, metadata, version, createdAt, updatedAt, lastAccessedAt,
 * accessCount, ttl?, tier, source in that order (stores that hash JSON see
 * stable bytes). `createdAt` and `updatedAt` are the span's clock, one past
 * its newest `updatedAt` (the fold's time when an entry of the span has no
 * `updatedAt`); `ttl` is `createdAt + ttlMs` when `ttlMs` is
 * configured. It shares MemoryEntry's bookkeeping but does not extend
 * MemoryEntry: its optional `decayPolicy?: unknown` would make a summary
 * unassignable to an app's own entry type that declares `decayPolicy`.
 */
export interface SummaryEntry extends EntryBookkeeping {
  readonly id: string;
  readonly value: { readonly role: 'system'; readonly content: string };
  readonly metadata: { readonly summarizes: SummaryCoverage };
  readonly tier: MemoryTier;
  readonly source: { readonly turn: number; readonly identity?: MemoryIdentity };
}

/**
 * A fleet's claim on a span (`claims: true`): written with
 * `putIfVersion(identity, claim, 0)` before the span is paid for. The stage
 * never puts a claim in recall; the summary written under it names it in
 * `coveredIds`, so every reader leaves it out.
 */
export interface SummaryClaimEntry extends EntryBookkeeping {
  /** `msg-summary-claim-{fromTurn}-{toTurn}`. */
  readonly id: string;
  readonly value: { readonly role: 'system'; readonly content: '' };
  readonly metadata: {
    readonly summaryClaim: {
      readonly fromTurn: number;
      readonly toTurn: number;
      readonly entryCount: number;
      readonly claimedAtMs: number;
      readonly leaseMs: number;
    };
  };
  /** When the lease ends, in unix ms (a millisecond from now, when the claim is given up). */
  readonly ttl: number;
  readonly tier: MemoryTier;
  readonly source: { readonly turn: number; readonly identity?: MemoryIdentity };
}

/** Where summaries are written back. Any agentfootprint `MemoryStore` fits. */
export interface MemoryStore {
  /**
   * Awaited; a rejection is warned about once and the turn goes on. The
   * identity is the visit's shallow plain copy of `scope.identity`, taken
   * once before anything was awaited.
   */
  put(identity: MemoryIdentity, entry: SummaryEntry): Promise<unknown>;
  /**
   * agentfootprint's conditional write, used by `claims: true`: applies only
   * when no live entry has `entry.id` (`expectedVersion` 0: absent, or its
   * `ttl` has passed), or the live one is at exactly `expectedVersion`.
   * Without it, claims are off and the first event after a call says so.
   */
  putIfVersion?(
    identity: MemoryIdentity,
    entry: SummaryClaimEntry,
    expectedVersion: number,
  ): Promise<{ readonly applied: boolean; readonly currentVersion?: number }>;
}

/**
 * The scope the stage runs on — a footprintjs `TypedScope<MemoryState>` in a
 * pipeline, or any object with these keys. The stage writes only `loaded`,
 * and only when recall actually changed.
 */
export interface SummarizeScope {
  loaded?: readonly MemoryEntry<unknown>[];
  readonly identity: MemoryIdentity;
  $emit?(name: string, payload?: unknown): void;
}

// ─── Events ──────────────────────────────────────────────────────────────────

/** The one event type this stage emits. */
export type StrategyAppliedEventType = 'agentfootprint.memory.strategy_applied';

/**
 * Why the stage did what it did. `summarizerCalled` is always there; the other
 * keys depend on the outcome: a fold carries `summaryChars` and `persisted`, a
 * "not smaller" refusal `summaryChars`, and (provider shape) both carry
 * `model` and `usage`, as a failure carries `model`; a decline says which
 * check stopped it (`latched`, `failed`, `predicted` with `labelChars`);
 * `coalesced` marks a run that waited for another run's call, whatever that
 * call came to; invalid input names the first offending `invalidIndex` and
 * `invalidField` (`loaded` when recall is not an array or is too large to
 * fold safely, `identity` when the identity could not be read).
 */
export interface SummarizeEvidence {
  readonly summarizerCalled: boolean;
  readonly spanEntries?: number;
  readonly spanChars?: number;
  readonly summaryChars?: number;
  readonly labelChars?: number;
  readonly persisted?: boolean;
  readonly model?: string;
  /** The leading run's token counts as the provider reported them; a count
   * that was missing or not a finite number is left out. */
  readonly usage?: { readonly input?: number; readonly output?: number };
  readonly failed?: boolean;
  readonly latched?: boolean;
  readonly predicted?: boolean;
  readonly coalesced?: boolean;
  /**
   * `background: true`: on the visit's event, the fold started (or was in
   * flight) and recall is served without it this turn; on the fold's own
   * event (to `onEvent` alone), that it ended in the background.
   */
  readonly background?: boolean;
  /** How many earlier summaries a fold took in (`maxSummaries`); absent when none. */
  readonly rolledSummaries?: number;
  /** A small rolling fold that waits (`maxSummaries`): no call was made. */
  readonly deferred?: boolean;
  /** With `deferred`: the chars of new text the fold would take out of recall. */
  readonly newChars?: number;
  /** The raw span's tokens, under `minFoldTokens` (also given): no call was made. */
  readonly newTokens?: number;
  readonly minFoldTokens?: number;
  /** Absent when `loaded` itself is not an array, or when the `now` clock failed. */
  readonly invalidIndex?: number;
  /** E.g. `'id'`, `'value.content'`, `'loaded'`, `'now'`. */
  readonly invalidField?: string;
  /** `claims: true`: the claim this run held (a fold, a failure, a refusal) or found. */
  readonly claimId?: string;
  /** A run whose call failed, or whose summary could not be written, gave its claim up (`false`: the store refused or failed; the reason says which). */
  readonly claimGivenUp?: boolean;
  /** Another process holds a live claim on the span: no call was made. */
  readonly claimedElsewhere?: boolean;
  /** The store failed to take the claim: no call was made. */
  readonly claimFailed?: boolean;
  /** `claims: true` over a store with no `putIfVersion` (said once per stage). */
  readonly claimsUnsupported?: boolean;
  /**
   * On every fold: the span's exact details (amounts, quantities,
   * percentages, ids, emails, URLs, phone numbers, dates, times, paths; at
   * most 500 a fold, the newest), how many the summarizer's text kept, how many the
   * `keepDetails` line lists (`detailsPinned`, only with `keepDetails`),
   * and the ones the summary holds nowhere: the first 20 and how many
   * (with `keepDetails`, the ones its bounds let go).
   */
  readonly detailsFound?: number;
  readonly detailsKept?: number;
  readonly detailsPinned?: number;
  readonly droppedDetails?: readonly string[];
  readonly droppedDetailCount?: number;
  /**
   * When the stage counts tokens (`countTokens`, `triggerMinTokens`,
   * `preserveRecentTokens` or `minFoldTokens`), all by the same counter: recall as loaded and
   * as the fold leaves it, the span, and the summary. A provider's `usage`
   * stays as the provider reported it.
   */
  readonly recallTokensBefore?: number;
  readonly recallTokensAfter?: number;
  readonly spanTokens?: number;
  readonly summaryTokens?: number;
  /**
   * Under `maxSpanChars` or `maxSpanTokens`, on a call's event (a fold, a
   * failure, a refusal): what the call was sent. On a `span-over-bound`
   * decline: the least bound the span needs.
   */
  readonly spanBound?: SpanBoundEvidence;
}

/** `scoreEvidence.spanBound`. */
export interface SpanBoundEvidence {
  readonly option: 'maxSpanChars' | 'maxSpanTokens';
  readonly max: number;
  /** The call's size in the bound's unit: the instruction and every message as sent. */
  readonly sent?: number;
  /** The span's entries up to the seam that stay verbatim and fold on later turns, and their chars. */
  readonly deferredEntries?: number;
  readonly deferredChars?: number;
  /** Messages sent cut (head and tail around a marker), in span order: their ids, whole lengths and what was left out. */
  readonly cut?: readonly { readonly id: string; readonly chars: number; readonly leftOutChars: number }[];
  /** `span-over-bound`: a bound at least this large is needed for the fold. */
  readonly needed?: number;
}

/** Payload of `agentfootprint.memory.strategy_applied`, keys in this order. */
export interface StrategyAppliedPayload {
  readonly strategyId: string;
  readonly strategyKind: 'summarizing';
  /** A sentence a person can act on. */
  readonly reason: string;
  /** Entries loaded this turn. */
  readonly inputMemoryCount: number;
  /** Entries in recall after the stage. */
  readonly outputMemoryCount: number;
  readonly droppedIds: readonly string[];
  readonly addedIds: readonly string[];
  readonly scoreEvidence: SummarizeEvidence;
}

/** An event as `fold()` returns it. */
export interface SummarizeEvent {
  readonly type: StrategyAppliedEventType;
  readonly payload: StrategyAppliedPayload;
}

// ─── Config ──────────────────────────────────────────────────────────────────

/**
 * The 2.x summarizer shape: the caller makes the call and returns the text.
 * Kept because a hand-composed pipeline that already owns its provider does
 * not need the library to own it too. Receives the system instruction, then
 * the span's own message values, oldest first, as the store holds them: a
 * value whose `content` is `null` or absent (which recall accepts) is passed
 * as it is, so read `content` as possibly missing.
 */
export type SummarizeCallback = (messages: readonly LLMMessage[]) => Promise<string>;

export interface SummarizeConfig {
  /**
   * Who writes the summary — a provider (preferred; pair with {@link model})
   * or the callback that makes its own call. Recommend a cheap model:
   * compression is not worth your main model's price.
   */
  readonly llm: LLMProvider | SummarizeCallback;
  /**
   * The model id the summarizer is called with. REQUIRED when `llm` is a
   * provider, refused when `llm` is a callback (the callback names its own).
   * There is no `?? agentModel` fallback: same vendor, it quietly bills your
   * main model for compression; other vendor, it sends a model id nobody has
   * heard of.
   */
  readonly model?: string;
  /**
   * Where the summary is written back. Omit it and the fold is computed for
   * THIS recall only and paid for again every turn.
   */
  readonly store?: MemoryStore;
  /** Minimum `loaded.length` before a fold is considered. Default 20. */
  readonly triggerMinEntries?: number;
  /**
   * How many most-recent entries stay VERBATIM. Default 5. The seam is rounded
   * outward to a whole turn: a question is never summarized while its answer
   * stays raw.
   */
  readonly preserveRecent?: number;
  /**
   * Never spend a call to fold fewer than this many entries. Default 2 — one
   * entry plus a label is a paid call that makes recall longer.
   */
  readonly minFoldEntries?: number;
  /**
   * Beyond the original: at most this many summaries stay in recall (a
   * positive integer; default no bound). A fold that would leave more takes
   * the oldest summaries in with the raw span, in the same one call: they
   * come first in the transcript (or the callback's messages), the new
   * summary's coverage names them, and its `fromTurn` is theirs. With `1`,
   * recall is one summary that reaches turn 1 plus the verbatim tail, turn
   * after turn, and the characters sent stay flat however long the
   * conversation. It also turns on one cost rule: a fold that would take out
   * of recall less than three label-lengths of new text waits (no call),
   * while the oldest loaded entries, at least as many as the newest turn
   * holds, are ones a summary already stands for.
   * Works with a load window that holds the summary and a few turns past
   * the tail; a larger `maxSummaries` keeps older summaries only while the
   * window still loads them.
   */
  readonly maxSummaries?: number;
  /**
   * Beyond the original: also consider a fold once the raw recall's length
   * (UTF-16 code units, as `.length` counts) reaches this, whatever the
   * entry count: pasted documents reach a size limit long before a count.
   */
  readonly triggerMinChars?: number;
  /**
   * Beyond the original: your pipeline's token counter (agentfootprint's
   * `TokenCounter`), shared with `pickByBudget`, so both stages count alike.
   * Called at most once per entry text per visit, and once on a new
   * summary. A counter that throws or returns anything but a finite,
   * non-negative number makes the visit an `invalid-input` event: recall
   * verbatim, nothing written (for an entry, before any call; for the new
   * summary, after the call, which then latches the span). Without it, a token option counts
   * `Math.ceil(text.length / 4)`, agentfootprint's approximate counter
   * (which under-counts CJK text; pass a real tokenizer for that).
   */
  readonly countTokens?: (text: string) => number;
  /**
   * Beyond the original: also consider a fold once the raw recall (raw
   * entries no summary covers) holds this many tokens, whatever the entry
   * count.
   */
  readonly triggerMinTokens?: number;
  /**
   * Beyond the original: the verbatim tail in tokens. The newest whole turns
   * are kept until they hold at least this many tokens, and no more turns
   * than that needs; a turn is never split. Replaces `preserveRecent`: the
   * two are refused together.
   */
  readonly preserveRecentTokens?: number;
  /**
   * Beyond the original: never call for a span whose raw entries hold fewer
   * tokens than this (a non-negative integer; `0` turns the floor off),
   * while the oldest loaded entries are ones a summary already stands for
   * (so waiting never lets a turn no summary holds leave a recency window). The
   * default is `preserveRecentTokens`, or 0 without it: a full load window
   * otherwise sheds one turn from the verbatim tail every turn, and a
   * summary of one turn, label included, is rarely smaller than the turn,
   * so most of those calls would end refused. The visit's event says
   * `not-worth-a-call-yet` with `newTokens` and `minFoldTokens`.
   */
  readonly minFoldTokens?: number;
  /**
   * Override the summarizer instruction ("preserve every refund-related
   * number"). Only the instruction is yours: the transcript delimiters and the
   * label on the summary entry stay the package's.
   */
  readonly systemPrompt?: string;
  /**
   * TTL in ms for the summary entry, counted from its `createdAt`: the SPAN's
   * clock (one past its newest `updatedAt`), so a retention window expires
   * the summary WITH the turns it compressed.
   */
  readonly ttlMs?: number;
  /**
   * Tier for the summary entry. Default `'cold'`. A load filter that excludes
   * this tier hides the summary from every later recall, and the span is then
   * folded (and billed) again every turn.
   */
  readonly summaryTier?: MemoryTier;
  /** `strategyId` on the emitted event and in the warning. Default `'memory-summarize'`. */
  readonly strategyId?: string;
  /**
   * Beyond the original: called for every event, in addition to
   * `scope.$emit`; a background fold's own event (when its calls end) comes
   * here alone. A throwing observer does not fail the turn.
   */
  readonly onEvent?: (type: StrategyAppliedEventType, payload: StrategyAppliedPayload) => void;
  /**
   * Beyond the original: deadline in ms for the summarizer call and for the
   * store write. Past it the call counts as failed (recall is served
   * verbatim) and a provider request's `signal` is aborted; a write counts as
   * not persisted (the fold still applies to this turn).
   */
  readonly timeoutMs?: number;
  /** Beyond the original: the clock, in unix ms. Default `Date.now`. */
  readonly now?: () => number;
  /**
   * Beyond the original: a fleet of processes sharing `store` pays for each
   * span once. Before paying, the leader claims the span with
   * `store.putIfVersion(identity, claim, 0)`; a span another process holds,
   * or a claim the store fails, makes no call and serves recall verbatim
   * with an event. Requires `store`. With claims on, the summarizer is
   * called after the claim's answer. Set `timeoutMs` too: without it a
   * claim or a call that never answers holds its turn, and a call that
   * outlives its lease may be paid again elsewhere. Default off.
   */
  readonly claims?: boolean;
  /**
   * Beyond the original: no turn waits for the summarizer. A visit that
   * would call it starts the fold (one per conversation at a time) and
   * returns at once, with recall as it is without that fold; the summary is
   * checked as always and written back when the call ends, so later turns
   * load it. The fold's own event goes to `onEvent` with
   * `scoreEvidence.background: true`. Each of its calls ends at `timeoutMs`,
   * or after 120,000 ms without it. A visit whose identity names no
   * conversation folds within its turn. Requires `store`. Default off.
   */
  readonly background?: boolean;
  /**
   * Beyond the original: called once per background fold, during the visit
   * that starts it, with a promise that settles (never rejects) when the
   * fold ends. Pass your platform's `waitUntil` (Vercel, Cloudflare) so a
   * serverless function is not frozen mid-fold. Only with `background: true`;
   * one that throws warns once, and the fold goes on.
   */
  readonly waitUntil?: (promise: Promise<void>) => void;
  /**
   * A claim's lease in ms: past it, a claim whose leader died may be taken
   * again. At least 3 × `timeoutMs` (the claim's write, the call and the
   * summary's write). Only with `claims: true`. Default 60,000, or
   * 3 × `timeoutMs` when that is longer. With `background` and no
   * `timeoutMs`, each call's deadline is 120,000 ms, so both are 360,000.
   */
  readonly claimLeaseMs?: number;
  /**
   * Beyond the original: after the summarizer's text, the summary gets one
   * line, written by the stage, that lists the span's exact details the
   * text dropped: `\n[exact details from these turns: CS-20931; $429.00]`.
   * The label still comes first; the line is data. `true` takes the
   * defaults, 64 details and 1,000 characters (UTF-16) for the whole line;
   * the line also never makes the summary as long as its span (the
   * not-smaller rule counts it). When not all fit, the newest details win:
   * under `maxSummaries`, a rolled summary's listed details stay listed
   * while they fit, and the oldest go first. Cost: up to `maxChars` more
   * characters in the summary, sent every turn. Default off.
   */
  readonly keepDetails?: boolean | KeepDetailsBounds;
  /**
   * Beyond the original: the most one summarizer call is sent, in UTF-16
   * characters, counting the instruction and every message as the call
   * receives them (the transcript, or the callback's messages). Set it to
   * what the summarizer model accepts: a span past it folds its oldest
   * whole turns that fit, and the rest on later turns, one call each; a
   * message too big for any call (a pasted log, a tool's output) is sent
   * with its head and tail around a marker saying how much was left out,
   * while the details audit reads it whole and the store keeps it. At
   * least the instruction's length (with a provider, plus 37 for the
   * transcript's markers) plus 8,000. Default: no bound (spans are sent
   * whole, as the original sends them).
   */
  readonly maxSpanChars?: number;
  /**
   * Beyond the original: `maxSpanChars` in tokens, counted by `countTokens`
   * (required with it): the instruction, the transcript's markers and each
   * message line counted on their own and summed (with `Math.ceil(length /
   * 4)` at least the whole; with a real tokenizer within a few tokens of
   * it). It must leave 2,000 tokens after the instruction, checked at the
   * visit. Not with `maxSpanChars`.
   */
  readonly maxSpanTokens?: number;
}

/** `keepDetails`'s bounds; an absent field takes its default. */
export interface KeepDetailsBounds {
  /** At most this many details on the line. Default 64. */
  readonly maxDetails?: number;
  /** The line, with its frame, is at most this many UTF-16 characters. Default 1,000. */
  readonly maxChars?: number;
}

// ─── The stage ───────────────────────────────────────────────────────────────

/** What {@link SummarizeStage.fold} resolves to. */
export interface FoldResult<E extends MemoryEntry<unknown> = MemoryEntry<unknown>> {
  /** Summaries (oldest span first), then the verbatim entries. */
  readonly recall: (E | SummaryEntry)[];
  /** The events the run would have emitted, in order. */
  readonly events: SummarizeEvent[];
}

/**
 * A footprintjs stage: `await stage(scope)`. Works unbound. Also folds without
 * a scope through {@link SummarizeStage.fold}, on the same instance (same
 * latch, same warn-once).
 */
export interface SummarizeStage {
  (scope: SummarizeScope): Promise<void>;
  /**
   * Beyond the original: run the stage on plain data and get the result back.
   * Runs share a call, its outcome or a latch entry only when their
   * identities name the same conversation: the same `tenant`, `principal`
   * and `conversationId`, with `conversationId` a string or a finite number.
   */
  fold<E extends MemoryEntry<unknown>>(
    loaded: readonly E[],
    identity: MemoryIdentity,
  ): Promise<FoldResult<E>>;
  /**
   * Beyond the original: resolves once every background fold
   * (`background: true`) this stage has started so far has ended. Never
   * rejects. For tests, graceful shutdown and `ctx.waitUntil(stage.settled())`.
   */
  settled(): Promise<void>;
}

/** Id prefix for every entry this stage writes. */
export declare const SUMMARY_ID_PREFIX = 'msg-summary-';

/** Metadata key carrying {@link SummaryCoverage} on a summary entry. */
export declare const SUMMARY_COVERAGE_KEY = 'summarizes';

/** Opening of the authored label. Stable — readers and tests match on it. */
export declare const SUMMARY_FRAME_PREFIX = '[summary of earlier turns';

/**
 * What a summary entry stands for — the only thing that excludes an original
 * from recall. `coveredIds` is exact: recall drops an entry because a loaded
 * summary NAMES it, never because a turn number falls inside a range.
 */
export interface SummaryCoverage {
  /** Earliest turn represented. */
  readonly fromTurn: number;
  /** Latest turn represented. Also the entry's `source.turn`. */
  readonly toTurn: number;
  /** How many loaded entries were folded (an earlier summary rolled in counts as one). */
  readonly entryCount: number;
  /**
   * The exact entries this summary stands for, in span order: the ids of
   * earlier summaries rolled in (`maxSummaries`) and of the raw entries,
   * then, when it was paid for under a fleet's claim (`claims: true`), the
   * claim's id, so `coveredIds.length` can be `entryCount + 1`.
   */
  readonly coveredIds: readonly string[];
  /** Which model wrote it. Absent for the callback form — the caller knows. */
  readonly model?: string;
  /** When the fold happened (unix ms). */
  readonly summarizedAtMs: number;
  /** The first 20 exact details of the span the summary holds nowhere (neither its text nor its `keepDetails` line); absent when none. */
  readonly droppedDetails?: readonly string[];
}

/** The id a fold over `[fromTurn, toTurn]` always gets. Deterministic. */
export declare function summaryEntryId(fromTurn: number, toTurn: number): string;

/**
 * The coverage a summary entry carries, or `undefined` for an ordinary entry.
 * Read through the METADATA, not the id: an id is a name and metadata is the
 * claim.
 */
export declare function summaryCoverage(
  entry: MemoryEntry<unknown> | null | undefined,
): SummaryCoverage | undefined;

/** True when this entry is a summary (it carries a coverage): then its `metadata.summarizes` is typed. */
export declare function isSummaryEntry(
  entry: MemoryEntry<unknown> | null | undefined,
): entry is MemoryEntry<unknown> & { readonly metadata: { readonly summarizes: SummaryCoverage } };

/**
 * True when this entry is a fleet's claim on a span (`claims: true`): store
 * bookkeeping, never a message. The stage leaves claims out of recall; a
 * store or a reader that lists entries can tell them apart with this.
 */
export declare function isSummaryClaim(
  entry: MemoryEntry<unknown> | null | undefined,
): entry is MemoryEntry<unknown> & { readonly metadata: SummaryClaimEntry['metadata'] };

/**
 * Build the stage. Throws at once on a bad config — a provider without
 * `model`, a callback with one, a numeric option that is not a non-negative
 * integer, an unknown tier, a store without `put` — instead of failing
 * mid-turn.
 */
export declare function summarize(config: SummarizeConfig): SummarizeStage;

/**
 * Beyond the original: an offline, deterministic summarizer in the callback
 * shape. Keeps the fact-carrying sentences of the messages, never invents
 * text, and stays under `maxChars` (default 1200) and under half its input
 * (a summary not clearly shorter would be refused anyway). For tests, demos and
 * deployments where no model may be called.
 */
export declare function extractive(options?: { readonly maxChars?: number }): SummarizeCallback;
