// The contract (docs/behaviour.md §1, §2, §4, §5, §8) restated as plain
// functions. The randomized test derives every expectation from these, never
// from the package, so a disagreement is a real difference from the SPEC.

export const EVENT_TYPE = 'agentfootprint.memory.strategy_applied';
export const PAYLOAD_KEYS = [
  'strategyId',
  'strategyKind',
  'reason',
  'inputMemoryCount',
  'outputMemoryCount',
  'droppedIds',
  'addedIds',
  'scoreEvidence',
];
export const TRANSCRIPT_OPEN = '<<<TRANSCRIPT>>>';
export const TRANSCRIPT_CLOSE = '<<<END TRANSCRIPT>>>';
export const DEFAULTS = { triggerMinEntries: 20, preserveRecent: 5, minFoldEntries: 2 };

/** §1 summaryCoverage: the object at metadata.summarizes when it holds a coveredIds array. */
export function coverageOf(entry) {
  if (entry === null || typeof entry !== 'object') return undefined;
  const metadata = entry.metadata;
  if (metadata === null || typeof metadata !== 'object') return undefined;
  const coverage = metadata.summarizes;
  return coverage !== null && typeof coverage === 'object' && Array.isArray(coverage.coveredIds)
    ? coverage
    : undefined;
}

// `null` counts as absent, for a turn as for `updatedAt` (README, Decisions).
const turnOf = (entry) => entry.source?.turn ?? undefined;
const updatedAtOf = (entry) => entry.updatedAt ?? undefined;

/**
 * §8: the first element that is not an object with a string `id`, an object
 * `value` whose `content` is a string, null or absent, and a `turn`/`updatedAt`
 * that is absent or a finite number. `field` is undefined when the element
 * itself is not an object.
 */
export function firstInvalidElement(entries) {
  for (let index = 0; index < entries.length; index++) {
    const entry = entries[index];
    if (entry === null || typeof entry !== 'object') return { index, field: undefined };
    if (typeof entry.id !== 'string') return { index, field: 'id' };
    if (entry.value === null || typeof entry.value !== 'object') return { index, field: 'value' };
    const content = entry.value.content;
    if (content !== undefined && content !== null && typeof content !== 'string') return { index, field: 'content' };
    const turn = turnOf(entry);
    if (turn !== undefined && !Number.isFinite(turn)) return { index, field: 'turn' };
    if (updatedAtOf(entry) !== undefined && !Number.isFinite(entry.updatedAt)) return { index, field: 'updatedAt' };
  }
  return undefined;
}

/** §5 label, byte-exact. */
export function summaryLabel(fromTurn, toTurn, count, who) {
  return (
    `[summary of earlier turns ${fromTurn}–${toTurn} — ${count} earlier message(s) were compressed. ` +
    `The text after this line is a SUMMARY written by ${who}; it is a claim about the conversation, ` +
    `not the conversation. The originals are retained in this memory's store and are excluded from ` +
    `recall only while this summary stands.]`
  );
}

const CONTINUATION = '  | ';
const LINE_BREAK = /\r\n|[\n\r\v\f\u001c-\u001e\u0085\u2028\u2029]/g;
const renderRole = (role) => [...String(role)].map((c) => (/^[\p{Alphabetic}\p{N}_.-]$/u.test(c) ? c : '_')).join('');
const letters = (text) => [...text.toLowerCase()].filter((c) => /[\p{Alphabetic}\p{N}]/u.test(c)).join('');
const readsAsLabel = (content) => letters(content).startsWith(letters('[summary of earlier turns'));

/**
 * §5 transcript for the provider shape: `ROLE (turn N): TEXT` per message,
 * every further line of a message starting with `  | `, a role kept to one
 * word, and a raw message that begins like a summary's label quoted. Both
 * the role as given and its upper-case form are accepted, since "ROLE" may
 * name either.
 */
export function transcriptRenderings(span) {
  const render = (caseRole) =>
    [
      TRANSCRIPT_OPEN,
      ...span.map((entry) => {
        const turn = turnOf(entry);
        const role = renderRole(caseRole(entry.value.role ?? 'unknown'));
        const content = entry.value.content ?? '';
        const quoted = coverageOf(entry) === undefined && readsAsLabel(content) ? '(quoted) ' : '';
        return `${role}${turn === undefined ? '' : ` (turn ${turn})`}: ${quoted}${content.replace(LINE_BREAK, `\n${CONTINUATION}`)}`;
      }),
      TRANSCRIPT_CLOSE,
    ].join('\n');
  return [render((role) => role), render((role) => role.toUpperCase())];
}

const stableSortSummaries = (summaries) =>
  summaries.slice().sort((a, b) => (coverageOf(a).toTurn ?? 0) - (coverageOf(b).toTurn ?? 0));

/**
 * Everything about one visit that does not depend on the stage's state (§4
 * steps 1–6 and the §8 checks before any call). `kind` is one of: `empty`,
 * `invalid`, `not-worth` or `call`. The harness turns `call` into `latched`
 * when its own latch model says so, and otherwise into `under-floor` (§8
 * Tokens) or `predicted` (a refusal foreseen, §8) when those flags say so.
 */
export function planVisit(loaded, settings) {
  if (!Array.isArray(loaded)) return { kind: 'invalid', index: undefined, field: undefined, entries: undefined };
  const entries = Array.from(loaded);
  if (entries.length === 0) return { kind: 'empty', entries };
  const invalid = firstInvalidElement(entries);
  if (invalid) return { kind: 'invalid', entries, ...invalid };

  // An entry is excluded when a summary (other than itself) names it: a raw
  // entry the summary stands for, or a summary a rolling fold took in.
  const summaryEntries = entries.filter((entry) => coverageOf(entry) !== undefined);
  const namedByAnother = (entry) =>
    summaryEntries.some((summary) => summary.id !== entry.id && coverageOf(summary).coveredIds.includes(entry.id));
  const excluded = entries.filter(namedByAnother);
  const raw = entries.filter((entry) => coverageOf(entry) === undefined && !namedByAnother(entry));
  const summaries = stableSortSummaries(summaryEntries.filter((entry) => !namedByAnother(entry)));

  const tokensOf = (list) => list.reduce((sum, entry) => sum + tokenCount(entry.value.content ?? '', settings), 0);
  let splitAt;
  if (settings.preserveRecentTokens !== undefined) {
    // §4 step 4, beyond: whole turns from the newest, until they hold enough tokens.
    splitAt = raw.length;
    while (splitAt > 0 && tokensOf(raw.slice(splitAt)) < settings.preserveRecentTokens) {
      const turn = turnOf(raw[splitAt - 1]);
      splitAt--;
      while (turn !== undefined && splitAt > 0 && turnOf(raw[splitAt - 1]) === turn) splitAt--;
    }
  } else {
    splitAt = raw.length - settings.preserveRecent;
    if (splitAt <= 0) splitAt = 0;
    else if (splitAt < raw.length && turnOf(raw[splitAt]) !== undefined) {
      const boundaryTurn = turnOf(raw[splitAt]);
      while (splitAt > 0 && turnOf(raw[splitAt - 1]) === boundaryTurn) splitAt--;
    }
  }
  const span = raw.slice(0, splitAt);
  const tail = raw.slice(splitAt);
  const base = { entries, summaries, excluded, raw, span, tail, verbatimRecall: [...summaries, ...raw] };

  const triggered =
    entries.length >= settings.triggerMinEntries ||
    (settings.triggerMinTokens !== undefined && tokensOf(raw) >= settings.triggerMinTokens);
  if (!triggered || span.length < Math.max(1, settings.minFoldEntries)) {
    return { kind: 'not-worth', ...base };
  }
  const spanChars = span.reduce((sum, entry) => sum + (entry.value.content ?? '').length, 0);
  const fromTurn = turnOf(span[0]) ?? 0;
  const toTurn = turnOf(span[span.length - 1]) ?? fromTurn;
  const label = summaryLabel(fromTurn, toTurn, span.length, settings.who);
  const labelChars = label.length + 2;
  // §8: a refusal foreseen before the call. Always when the label alone is
  // as long as the span; with an option beyond the original that shapes
  // folds (of the scenario's: tokens, keepDetails), also when the label
  // leaves the summary less than half of the span.
  const foreseesRefusals = settings.countsTokens || settings.keepDetails !== undefined;
  const predicted = labelChars >= spanChars || (foreseesRefusals && 2 * (spanChars - labelChars) < spanChars);
  // §8 Tokens, the floor: checked after the latch and before the
  // prediction, so the harness turns a `call` it does not find latched into
  // `under-floor`, then `predicted`. The floor waits only while
  // the oldest loaded entries, as many as the newest raw turn holds, are
  // left out of recall.
  const minFoldTokens = settings.minFoldTokens ?? settings.preserveRecentTokens ?? 0;
  const inRecall = new Set([...summaries, ...raw]);
  const leadingLeftOut = entries.findIndex((entry) => inRecall.has(entry));
  const newestTurn = turnOf(raw[raw.length - 1]);
  let newestTurnStart = raw.length - 1;
  while (newestTurn !== undefined && newestTurnStart > 0 && turnOf(raw[newestTurnStart - 1]) === newestTurn) newestTurnStart--;
  const slack = (leadingLeftOut === -1 ? entries.length : leadingLeftOut) >= raw.length - newestTurnStart;
  return {
    kind: 'call',
    predicted,
    underFloor: settings.countsTokens && slack && tokensOf(span) < minFoldTokens,
    minFoldTokens,
    newTokens: tokensOf(span),
    ...base,
    spanIds: span.map((entry) => entry.id),
    spanChars,
    fromTurn,
    toTurn,
    label,
    labelChars,
    // §8 Tokens: what a fold's evidence reports beside the summary's own.
    ...(settings.countsTokens ? { tokens: { before: tokensOf(entries), span: tokensOf(span), kept: tokensOf([...summaries, ...tail]) } } : {}),
  };
}

/** §8 Tokens: `countTokens(text)`, or ceil(length / 4); an empty text is 0. */
export function tokenCount(text, settings) {
  if (text === '') return 0;
  return settings.countTokens ? settings.countTokens(text) : Math.ceil(text.length / 4);
}

/** §2 anchor: max(0, updatedAt + 1 over the span); 0 or NaN falls back to now. */
export function summaryAnchor(span, now) {
  const anchor = Math.max(0, ...span.map((entry) => updatedAtOf(entry) + 1));
  return anchor === 0 || Number.isNaN(anchor) ? now : anchor;
}

/** §2 summary entry, keys in the SPEC's order. */
export function expectedSummaryEntry(plan, settings, content, now) {
  const anchor = summaryAnchor(plan.span, now);
  const coverage = {
    fromTurn: plan.fromTurn,
    toTurn: plan.toTurn,
    entryCount: plan.span.length,
    coveredIds: plan.spanIds,
    ...(settings.shape === 'provider' ? { model: settings.model } : {}),
    summarizedAtMs: now,
  };
  const spanIdentity = plan.span[0].source?.identity;
  return {
    id: `msg-summary-${plan.fromTurn}-${plan.toTurn}`,
    value: { role: 'system', content },
    metadata: { summarizes: coverage },
    version: 1,
    createdAt: anchor,
    updatedAt: anchor,
    lastAccessedAt: now,
    accessCount: 0,
    ...(settings.ttlMs !== undefined ? { ttl: anchor + settings.ttlMs } : {}),
    tier: settings.summaryTier,
    source: spanIdentity ? { turn: plan.toTurn, identity: spanIdentity } : { turn: plan.toTurn },
  };
}

/** The summaries-then-kept order of §4 step 3, ignoring where ties land. */
export const summarySortKey = (entry) => coverageOf(entry).toTurn ?? 0;
