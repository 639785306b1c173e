// The "long conversation" section of bench/bench.mjs: 1,000 turns of a
// support conversation with facts planted at known turns, through a memory
// pipeline as agentfootprint wires it (loadRecent → summarize → what is
// sent), with the offline `extractive` summarizer. It measures what users
// feel first: paid calls, characters sent to the main model every turn, how
// far back recall reaches, and whether planted facts survive. Each fact is
// one exact detail of a kind the stage audits (an order id, an amount, an
// email, a phone number, a date, a time, a URL, a path, a percentage, a
// quantity), and it survives when recall still holds it as written.

import { contentTokens } from '../tests/support/memory-pipeline.mjs';
import { o200kTokens } from '../tests/support/tokens.mjs';

export const LONG_SETTINGS = Object.freeze({ turns: 1000, window: 24, triggerMinEntries: 12, preserveRecent: 4, minFoldEntries: 4, maxChars: 600 });
export const CHECKPOINTS = [100, 250, 500, 1000];
const FACT_EVERY = 20;

/** The token variants' budgets: fold once the raw recall holds 250 tokens (about 16 entries), keep 100 (about 6). */
const TOKEN_BUDGETS = Object.freeze({ triggerMinTokens: 250, preserveRecentTokens: 100 });
/** The same with the entry trigger out of reach: a fold is considered in tokens alone. */
const TOKENS_ONLY = Object.freeze({ triggerMinEntries: 1000, ...TOKEN_BUDGETS });

export const VARIANTS = [
  { name: 'plain window', stage: null },
  { name: 'default stage', stage: {} },
  { name: 'default stage, keepDetails', stage: { keepDetails: true } },
  { name: 'maxSummaries: 1', stage: { maxSummaries: 1 } },
  { name: 'maxSummaries: 1, keepDetails', stage: { maxSummaries: 1, keepDetails: true } },
  { name: 'maxSummaries: 3', stage: { maxSummaries: 3 } },
  // The floor of chars sent with one rolling summary: its label and the
  // verbatim tail, with a summarizer that writes one word (a blank summary
  // is a failed call, served verbatim).
  { name: 'maxSummaries: 1, one-word summary', stage: { maxSummaries: 1 }, summaryText: 'Noted.' },
  // Triggered and kept in tokens with the entry trigger left on, as the
  // README's route leaves it: once the window is full a fold is considered
  // every turn, and one turn leaves the tail each turn. None of these may
  // pay for a call that ends refused (a token option foresees refusals).
  { name: 'in tokens (o200k_base)', stage: { ...TOKEN_BUDGETS }, counter: 'o200k', noRefusals: true },
  { name: 'in tokens (o200k_base), minFoldTokens: 200', stage: { ...TOKEN_BUDGETS, minFoldTokens: 200 }, counter: 'o200k', noRefusals: true },
  { name: 'in tokens (o200k_base), keepDetails', stage: { ...TOKEN_BUDGETS, keepDetails: true }, counter: 'o200k', noRefusals: true },
  // Triggered in tokens alone (the entry trigger out of reach): by a real
  // tokenizer, and by the package's ceil(length / 4) without `countTokens`.
  { name: 'maxSummaries: 1, in tokens (o200k_base)', stage: { maxSummaries: 1, ...TOKENS_ONLY }, counter: 'o200k', noRefusals: true },
  { name: 'maxSummaries: 1, in tokens (length / 4)', stage: { maxSummaries: 1, ...TOKENS_ONLY }, noRefusals: true },
  { name: 'maxSummaries: 1, keepDetails, in tokens (o200k_base)', stage: { maxSummaries: 1, keepDetails: true, ...TOKEN_BUDGETS }, counter: 'o200k', noRefusals: true },
];


/**
 * Pasted logs: every 50 turns (at turn 25, 75, …) the user pastes a
 * 100,000-character log, and the summarizer rejects a call whose messages
 * hold more than 40,000 characters, as a provider answers a request past a
 * small model's context. With and without `maxSpanChars` at that limit.
 */
export const PASTED_LOG = Object.freeze({ every: 50, at: 25, chars: 100_000, summarizerLimit: 40_000 });
export const PASTED_LOG_VARIANTS = [
  { name: 'default stage, pasted logs', stage: {}, pastedLogs: true },
  { name: 'default stage, pasted logs, maxSpanChars', stage: { maxSpanChars: PASTED_LOG.summarizerLimit }, pastedLogs: true },
  { name: 'maxSummaries: 1, keepDetails, pasted logs', stage: { maxSummaries: 1, keepDetails: true }, pastedLogs: true },
  {
    name: 'maxSummaries: 1, keepDetails, pasted logs, maxSpanChars',
    stage: { maxSummaries: 1, keepDetails: true, maxSpanChars: PASTED_LOG.summarizerLimit },
    pastedLogs: true,
  },
];

/** A pasted log of about `chars`, its failing line in the middle. */
function pastedLog(turn, chars) {
  const line = `INFO sync worker heartbeat ok, queue drained (turn ${turn})\n`;
  const half = line.repeat(Math.ceil(chars / 2 / line.length));
  return `Here is the log from the sync job:\n${half}ERROR sync failed for batch B-${turn}\n${half}`;
}

/**
 * What counting costs per turn: `maxSummaries: 1` as it is, then with every
 * entry counted (a token trigger that never fires, so every decision stays
 * the same) by ceil(length / 4) and by o200k_base.
 */
export const COUNTING_VARIANTS = [
  { name: 'no counting', stage: { maxSummaries: 1 } },
  { name: 'ceil(length / 4)', stage: { maxSummaries: 1, triggerMinTokens: Number.MAX_SAFE_INTEGER } },
  { name: 'o200k_base', stage: { maxSummaries: 1, triggerMinTokens: Number.MAX_SAFE_INTEGER }, counter: 'o200k' },
];


const CHATTER = [
  ['user', 'Hi again, quick question about my delivery.'],
  ['assistant', 'Sure, happy to help with that today.'],
  ['user', 'The courier said it would come in the afternoon, is that right?'],
  ['assistant', 'Yes, afternoon deliveries usually arrive between two and five.'],
  ['user', 'Great, thanks. Can you also check the tracking page?'],
  ['assistant', 'The tracking page shows the parcel is at the local depot.'],
  ['user', 'Okay, and will I get a notification before it arrives?'],
  ['assistant', 'You will get a text message about an hour before arrival.'],
];

/** The k-th planted fact's sentence, by kind; `detail` is what must survive, as written. */
const FACT_KINDS = [
  (k) => ({ detail: `#NW-${48200 + k}`, text: (d) => `my order number is ${d}` }),
  (k) => ({ detail: `$${k}9.50`, text: (d) => `the refund comes to ${d}` }),
  (k) => ({ detail: `maya${k}@example.com`, text: (d) => `write to me at ${d}` }),
  (k) => ({ detail: `+1 503-555-${1000 + k}`, text: (d) => `call me on ${d}` }),
  (k) => ({ detail: `March ${1 + (k % 28)}, ${2026 + Math.floor(k / 28)}`, text: (d) => `the visit is booked for ${d}` }),
  (k) => ({ detail: `https://example.com/cases/${k}`, text: (d) => `the case page is ${d}` }),
  (k) => ({ detail: `/var/log/sync-${k}.log`, text: (d) => `the error is in ${d}` }),
  (k) => ({ detail: `${k + 10}%`, text: (d) => `the discount was ${d}` }),
  (k) => ({ detail: `${k}.5 kg`, text: (d) => `the parcel weighs ${d}` }),
  (k) => ({ detail: `10:${String(k).padStart(2, '0')}`, text: (d) => `the courier comes at ${d}` }),
];

/** The fact planted at turn `t` (every FACT_EVERY turns), or undefined. */
export function plantedFact(turn) {
  if (turn % FACT_EVERY !== 1) return undefined;
  const k = (turn - 1) / FACT_EVERY + 1;
  const { detail, text } = FACT_KINDS[(k - 1) % FACT_KINDS.length](k);
  return { detail, text: `Please note: ${text(detail)}.` };
}

/** Whether `text` holds `detail` as written, not as part of a longer one (`1.5 kg` in `11.5 kg`). */
function holds(text, detail) {
  const escaped = detail.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![\\w.])${escaped}(?![\\w])`).test(text);
}

function messagesOf(turn, pastedLogs) {
  const fact = plantedFact(turn);
  const [userRole, userText] = CHATTER[(2 * turn) % CHATTER.length];
  const [assistantRole, assistantText] = CHATTER[(2 * turn + 1) % CHATTER.length];
  const pasted = pastedLogs && turn % PASTED_LOG.every === PASTED_LOG.at;
  return [
    { role: userRole, content: pasted ? pastedLog(turn, PASTED_LOG.chars) : fact ? fact.text : `${userText} (turn ${turn})` },
    { role: assistantRole, content: `${assistantText} Noted for turn ${turn}.` },
  ];
}

const identity = { tenant: 'bench', conversationId: 'long-1' };

/** One variant over the whole conversation: the per-turn record and the checkpoints. */
export async function runLongConversation(api, variant, settings = LONG_SETTINGS) {
  const store = [];
  let clock = 1_700_000_000_000;
  let calls = 0;
  const summarizer = variant.summaryText ? async () => variant.summaryText : api.extractive({ maxChars: settings.maxChars });
  let rejected = 0;
  const llm = async (messages) => {
    calls++;
    const size = messages.reduce((sum, message) => sum + (message.content?.length ?? 0), 0);
    if (variant.pastedLogs && size > PASTED_LOG.summarizerLimit) {
      rejected++;
      throw new Error(`context length exceeded: ${size} characters`);
    }
    return summarizer(messages);
  };
  const events = [];
  // Time spent inside a real counter, and in the stage as a whole.
  let counterMs = 0;
  let stageMs = 0;
  const realCounter = variant.counter === 'o200k' ? o200kTokens : undefined;
  const countTokens =
    realCounter &&
    ((text) => {
      const started = performance.now();
      const tokens = realCounter(text);
      counterMs += performance.now() - started;
      return tokens;
    });
  const stage = variant.stage
    ? api.summarize({
        llm,
        store: { put: async (_, entry) => void store.push(entry) },
        triggerMinEntries: settings.triggerMinEntries,
        ...(variant.stage.preserveRecentTokens === undefined ? { preserveRecent: settings.preserveRecent } : {}),
        minFoldEntries: settings.minFoldEntries,
        now: () => clock,
        ...(countTokens ? { countTokens } : {}),
        ...variant.stage,
      })
    : null;
  const tokensSent = [];
  const charsSent = [];
  const checkpoints = [];
  let oldestReached = Infinity;
  // Turns after the first fold whose recall does not reach turn 1.
  let firstFoldTurn;
  let turnsNotReachingTurnOne = 0;
  for (let turn = 1; turn <= settings.turns; turn++) {
    for (const [index, message] of messagesOf(turn, variant.pastedLogs).entries()) {
      clock += 1000;
      store.push({
        id: `msg-${turn}-${index}`,
        value: message,
        version: 1,
        createdAt: clock,
        updatedAt: clock,
        lastAccessedAt: clock,
        accessCount: 0,
        source: { turn, identity },
      });
    }
    // loadRecent: the newest `window` entries, oldest first.
    const loaded = [...store].sort((a, b) => a.updatedAt - b.updatedAt).slice(-settings.window);
    const scope = { loaded, identity, $emit: (type, payload) => events.push(payload) };
    const started = performance.now();
    if (stage) await stage(scope);
    stageMs += performance.now() - started;
    const recall = scope.loaded;
    charsSent.push(recall.reduce((sum, entry) => sum + (entry.value?.content?.length ?? 0), 0));
    tokensSent.push(contentTokens(recall, o200kTokens));
    oldestReached = Math.min(...recall.map((entry) => entry.metadata?.summarizes?.fromTurn ?? entry.source?.turn ?? Infinity));
    if (firstFoldTurn === undefined && recall.some((entry) => entry.metadata?.summarizes)) firstFoldTurn = turn;
    if (firstFoldTurn !== undefined && oldestReached > 1) turnsNotReachingTurnOne++;
    if (CHECKPOINTS.includes(turn)) {
      const text = recall.map((entry) => entry.value?.content ?? '').join('\n');
      let planted = 0;
      let kept = 0;
      for (let t = 1; t <= turn; t++) {
        const fact = plantedFact(t);
        if (!fact) continue;
        planted++;
        if (holds(text, fact.detail)) kept++;
      }
      checkpoints.push({ turn, planted, kept, oldestReached });
    }
  }
  const paid = events.filter((payload) => payload.scoreEvidence.summarizerCalled);
  const refused = paid.filter((payload) => payload.reason.includes('replacement-not-smaller'));
  const sorted = [...charsSent].sort((a, b) => a - b);
  return {
    variant: variant.name,
    callsPer100Turns: (calls * 100) / settings.turns,
    rejectedCalls: rejected,
    refusedShare: paid.length === 0 ? 0 : refused.length / paid.length,
    chars: {
      mean: charsSent.reduce((a, b) => a + b, 0) / charsSent.length,
      p95: sorted[Math.floor(0.95 * (sorted.length - 1))],
      max: sorted.at(-1),
      lastTenth: charsSent.slice(-settings.turns / 10).reduce((a, b) => a + b, 0) / (settings.turns / 10),
      // Turns 101–200 of 1,000: after the first folds, before any long-run drift.
      firstTenthAfterFold: charsSent.slice(settings.turns / 10, settings.turns / 5).reduce((a, b) => a + b, 0) / (settings.turns / 10),
    },
    tokensMean: tokensSent.reduce((a, b) => a + b, 0) / tokensSent.length,
    stageMicrosPerTurn: (1000 * stageMs) / settings.turns,
    counterMicrosPerTurn: (1000 * counterMs) / settings.turns,
    oldestReached,
    firstFoldTurn,
    turnsNotReachingTurnOne,
    checkpoints,
    problems: [
      ...(calls !== paid.length ? [`${calls} summarizer calls, ${paid.length} events that say a call was made`] : []),
      ...(variant.noRefusals && refused.length > 0 ? [`${refused.length} paid calls ended replacement-not-smaller`] : []),
    ],
  };
}
