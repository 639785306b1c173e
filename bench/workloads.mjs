// The benchmark's inputs: deterministic, realistic conversations (accents, CJK,
// emoji, numbers) and the four per-recall cases, each with instant summarizers
// and a check that a run produced the outcome the case is named after.
// Everything here is built OUTSIDE the timed region; the timed region only calls
// `stage(scope)`.
import { STRATEGY_EVENT as EVENT_TYPE, messageEntry } from '../tests/support/memory-pipeline.mjs';

export const SIZES = [20, 200, 2000, 20000];
export const SUMMARIZER_MODEL = 'bench-cheap-summarizer';
const PRESERVE_RECENT = 5;
const FOLD_SPAN_VARIANTS = 8;

export const CASES = {
  'fold-callback': 'fold turn, callback summarizer, no store',
  'fold-provider-store': 'fold turn, provider + model + store',
  coverage: "coverage turn: an earlier summary's coverage rewrites recall, no call",
  'below-trigger': 'below the trigger: nothing to do',
};

// What an instant summarizer answers. Short enough that every fold replaces a
// span that is larger (so no case turns into a "not smaller" refusal).
const SUMMARY_TEXT =
  'Customer Zoë Müller (order #48213, Málaga) reported a crushed parcel; agreed: refund €129.90 to card ' +
  'ending 4417 within 5 business days, replacement ships Friday 📦. Prefers e-mail, not phone. ' +
  '注文番号 48213 の返金は処理済み。Open item: confirm the Zürich invoice in CHF.';

// What the instant provider reports; the fold case checks the event carries it.
const BENCH_USAGE = Object.freeze({ input: 1200, output: 180 });

/** A provider that answers at once with SUMMARY_TEXT; `onCall` hears each call. */
export function instantProvider(onCall = () => {}) {
  return {
    async complete() {
      onCall();
      return { content: SUMMARY_TEXT, usage: { ...BENCH_USAGE } };
    },
  };
}

const USER_SENTENCES = [
  'My order #48213 arrived yesterday and the box was completely crushed.',
  'Can you refund the €129.90 to the card ending in 4417?',
  'Je préfère être contacté par e-mail, pas par téléphone, s’il vous plaît.',
  'El envío a Málaga tardó nueve días en vez de los tres prometidos.',
  'Die Rücksendung habe ich am Dienstag bei der Post in Köln abgegeben.',
  '注文番号は48213です。配送が一週間以上遅れています。',
  '请帮我把发票抬头改成“上海星河贸易有限公司”。',
  '배송 주소를 서울시 강남구 테헤란로 152로 변경해 주세요.',
  'Thanks so much 🙏 that fixes the login problem 🎉',
  'The café in Zürich still wants the invoice in CHF, not in euros.',
  'Is the naïve-résumé template still available for the Ångström plan?',
  'My colleague Siobhán will take over the ticket while I’m away until 14 March.',
  'Why was I charged twice — once on the 3rd and again on the 5th? 🤔',
  'Please don’t cancel the subscription; just pause it for two months.',
];

const ASSISTANT_SENTENCES = [
  'I’m sorry the parcel arrived damaged — I have opened case CS-20931 for it.',
  'The refund of €129.90 has been issued to the card ending 4417 and should arrive within 5 business days.',
  'D’accord, nous vous contacterons uniquement par e-mail à partir de maintenant.',
  'He comprobado el envío: salió de nuestro almacén de Zaragoza el día 2 y llegó el 11.',
  'Die Rücksendung ist eingegangen; die Gutschrift folgt innerhalb von drei Werktagen.',
  'ご不便をおかけして申し訳ございません。代替品を金曜日に発送いたします。',
  '发票抬头已更新，新的电子发票会在24小时内发送到您的邮箱。',
  '주소 변경이 완료되었습니다. 다음 배송부터 새 주소로 발송됩니다 🚚',
  'Done ✅ — the replacement ships on Friday 📦 with tracking number 1Z 999 AA1 01 2345 6784.',
  'I have noted that invoices for the Zürich branch must be issued in CHF from now on.',
  'The Ångström plan includes the naïve-résumé template and 50 GB of storage for 9,99 € per month.',
  'Siobhán now has edit access to ticket #7741; I have also added a note for her.',
  'The second charge on the 5th was a pre-authorisation; it will drop off within 72 hours.',
  'Your subscription is paused until 1 June and nothing will be billed in the meantime.',
  'To summarise what we agreed: refund now, replacement Friday, e-mail only, invoices in CHF.',
];

// mulberry32: a tiny seeded generator so every run builds the same conversation.
function seededRandom(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function composeMessage(random, sentences, minChars, maxChars) {
  const target = minChars + Math.floor(random() * (maxChars - minChars));
  let text = sentences[Math.floor(random() * sentences.length)];
  while (text.length < target) text += ' ' + sentences[Math.floor(random() * sentences.length)];
  return text;
}

export const BENCH_IDENTITY = Object.freeze({ tenant: 'acme-eu', principal: 'user-7781', conversationId: 'conv-bench-1' });

/** `count` raw entries, two per turn (user then assistant), oldest first, shaped like loadRecent's output. */
export function buildConversation(count, identity = BENCH_IDENTITY) {
  const random = seededRandom(0x5eed + count);
  const startMs = 1_750_000_000_000;
  const entries = [];
  for (let index = 0; index < count; index++) {
    const turn = Math.floor(index / 2);
    const isUser = index % 2 === 0;
    const content = isUser
      ? composeMessage(random, USER_SENTENCES, 40, 260)
      : composeMessage(random, ASSISTANT_SENTENCES, 120, 620);
    entries.push(
      messageEntry({
        turn,
        index: isUser ? 0 : 1,
        message: { role: isUser ? 'user' : 'assistant', content },
        identity,
        at: startMs + index * 37_000,
        source: { runtimeStageId: 'call-llm#0', messageId: `m-${index}` },
      }),
    );
  }
  return entries;
}

/** A summary entry as an earlier fold would have written it (SPEC §2), built independently of any implementation. */
function storedSummaryOver(covered) {
  const fromTurn = covered[0].source.turn;
  const toTurn = covered[covered.length - 1].source.turn;
  const anchor = covered[covered.length - 1].updatedAt + 1;
  return {
    id: `msg-summary-${fromTurn}-${toTurn}`,
    value: { role: 'system', content: `[summary of earlier turns ${fromTurn}–${toTurn} — …]\n\n${SUMMARY_TEXT}` },
    metadata: {
      summarizes: {
        fromTurn,
        toTurn,
        entryCount: covered.length,
        coveredIds: covered.map((entry) => entry.id),
        model: SUMMARIZER_MODEL,
        summarizedAtMs: anchor + 5_000,
      },
    },
    version: 1,
    createdAt: anchor,
    updatedAt: anchor,
    lastAccessedAt: anchor + 5_000,
    accessCount: 0,
    tier: 'cold',
    source: { turn: toTurn, identity: covered[0].source.identity },
  };
}

/** The seam rule (SPEC §4 step 4) for raw entries: how many of them the fold covers. */
export function foldSpanLength(raw, preserveRecent) {
  let splitAt = Math.max(0, raw.length - preserveRecent);
  if (splitAt > 0 && splitAt < raw.length) {
    const boundaryTurn = raw[splitAt].source.turn;
    while (splitAt > 0 && raw[splitAt - 1].source.turn === boundaryTurn) splitAt--;
  }
  return splitAt;
}

function countEvent() {
  this.eventCount++;
}

/** The instant summarizers and store a workload configures, each counted in `calls`. */
function countedSummarizers(calls) {
  return {
    callback: async () => {
      calls.summarizer++;
      return SUMMARY_TEXT;
    },
    provider: instantProvider(() => calls.summarizer++),
    store: {
      async put() {
        calls.storePuts++;
      },
    },
  };
}

/**
 * What one case recalls, the stage config it runs, and what each recall must
 * produce. `rotation` holds the spans fold cases cycle through (empty for
 * the other cases, which recall `loaded` every time).
 */
function caseInputs(caseName, n, conversation, { callback, provider, store }) {
  if (caseName === 'fold-callback' || caseName === 'fold-provider-store') {
    // Every recall of a fold case gets a different span than the one before it
    // (the same conversation shifted by whole turns), so nothing a stage might
    // remember about its previous span can turn a fold into another case.
    const rotation = Array.from({ length: FOLD_SPAN_VARIANTS }, (_, k) => conversation.slice(2 * k, 2 * k + n));
    const loaded = rotation[0];
    const config =
      caseName === 'fold-callback'
        ? { llm: callback, preserveRecent: PRESERVE_RECENT }
        : { llm: provider, model: SUMMARIZER_MODEL, store, preserveRecent: PRESERVE_RECENT };
    const spanLength = foldSpanLength(loaded, PRESERVE_RECENT);
    const expected = {
      summarizerCalls: 1,
      storePuts: caseName === 'fold-provider-store' ? 1 : 0,
      events: 1,
      recall: null, // a new summary followed by the verbatim tail
      span: loaded.slice(0, spanLength),
      tail: loaded.slice(spanLength),
    };
    return { loaded, config, expected, rotation };
  }
  if (caseName === 'coverage') {
    // The steady state that write-back buys: loadRecent returns the originals,
    // the summary that covers them, and a verbatim tail too short to fold.
    const raw = conversation.slice(0, n - 1);
    const covered = raw.slice(0, raw.length - PRESERVE_RECENT);
    const uncovered = raw.slice(raw.length - PRESERVE_RECENT);
    const summary = storedSummaryOver(covered);
    return {
      loaded: [...covered, summary, ...uncovered],
      config: { llm: provider, model: SUMMARIZER_MODEL, store, preserveRecent: PRESERVE_RECENT },
      expected: { summarizerCalls: 0, storePuts: 0, events: 1, recall: [summary, ...uncovered], coveredIds: covered.map((e) => e.id) },
      rotation: [],
    };
  }
  if (caseName === 'below-trigger') {
    const loaded = conversation.slice(0, n);
    return {
      loaded,
      config: { llm: callback, triggerMinEntries: n + 1, preserveRecent: PRESERVE_RECENT },
      expected: { summarizerCalls: 0, storePuts: 0, events: 0, recall: loaded },
      rotation: [],
    };
  }
  throw new Error(`unknown case ${caseName}`);
}

/**
 * Problems with a timed batch, judged from counters and, per recall, the
 * final recall length and the events emitted (cheap, after the clock stopped).
 */
function batchProblems(served, callsBefore, calls, expected) {
  const problems = [];
  const recalls = served.length;
  const summarizerCalls = calls.summarizer - callsBefore.summarizer;
  const storePuts = calls.storePuts - callsBefore.storePuts;
  if (summarizerCalls !== expected.summarizerCalls * recalls) {
    problems.push(`${summarizerCalls} summarizer calls for ${recalls} recalls (expected ${expected.summarizerCalls} each)`);
  }
  if (storePuts !== expected.storePuts * recalls) {
    problems.push(`${storePuts} store writes for ${recalls} recalls (expected ${expected.storePuts} each)`);
  }
  const wrongEvents = served.filter((recall) => recall.eventCount !== expected.events).length;
  if (wrongEvents > 0) problems.push(`${wrongEvents} of ${recalls} recalls did not emit exactly ${expected.events} event(s)`);
  const expectedLength = expected.recall ? expected.recall.length : 1 + expected.tail.length;
  const wrongLength = served.filter((recall) => recall.loadedLength !== expectedLength).length;
  if (wrongLength > 0) problems.push(`${wrongLength} of ${recalls} recalls do not hold ${expectedLength} entries`);
  return problems;
}

/** The case's config with its summarizer and store wrapped so `seen` records what they were given. */
function observedConfigOf(config, { provider, store }, seen) {
  const observedConfig = { ...config };
  if (typeof config.llm === 'function') {
    observedConfig.llm = async (messages) => {
      seen.messages = messages;
      return config.llm(messages);
    };
  } else {
    observedConfig.llm = {
      complete: (request) => {
        seen.requests.push(request);
        return provider.complete(request);
      },
    };
  }
  if (config.store) {
    observedConfig.store = {
      put: (identity, entry) => {
        seen.puts.push({ identity, entry });
        return store.put(identity, entry);
      },
    };
  }
  return observedConfig;
}

/** A fold case: one summary of exactly the span, then the caller's own tail; what the summarizer and store were given. */
function checkFold(check, api, { recall, event, seen, expected, config }) {
  const summary = recall[0];
  const coverage = summary?.metadata?.summarizes;
  const spanIds = expected.span.map((entry) => entry.id);
  check(recall.length === 1 + expected.tail.length, `recall holds ${recall.length} entries, expected ${1 + expected.tail.length}`);
  check(api.isSummaryEntry(summary), 'recall does not start with a summary entry');
  check(summary?.id === `msg-summary-${expected.span[0].source.turn}-${expected.span.at(-1).source.turn}`, `summary id ${summary?.id}`);
  check(
    Array.isArray(coverage?.coveredIds) && coverage.coveredIds.length === spanIds.length && coverage.coveredIds.every((id, i) => id === spanIds[i]),
    'summary coverage does not name exactly the span',
  );
  check(
    typeof summary?.value?.content === 'string' &&
      summary.value.content.startsWith(api.SUMMARY_FRAME_PREFIX) &&
      summary.value.content.endsWith(`\n\n${SUMMARY_TEXT}`),
    'summary content is not label + summarizer text',
  );
  check(expected.tail.every((entry, i) => recall[1 + i] === entry), 'the verbatim tail is not the caller’s own entries, in order');
  check(event?.addedIds?.length === 1 && event.addedIds[0] === summary?.id, 'event addedIds is not [summary id]');
  check(event?.droppedIds?.length === spanIds.length, 'event droppedIds is not the span');
  if (typeof config.llm === 'function') {
    check(seen.messages?.length === expected.span.length + 1 && seen.messages[0]?.role === 'system', 'callback did not get [system, ...span]');
    check(seen.messages?.[1] === expected.span[0].value, 'callback did not get the span’s own value objects');
  } else {
    const request = seen.requests[0];
    check(request?.model === SUMMARIZER_MODEL, 'provider request does not name the model');
    check(typeof request?.messages?.[0]?.content === 'string' && request.messages[0].content.includes(expected.span[0].value.content), 'provider transcript does not carry the span');
    check(coverage?.model === SUMMARIZER_MODEL, 'coverage does not record the model');
    check(seen.puts.length === 1 && JSON.stringify(seen.puts[0].identity) === JSON.stringify(BENCH_IDENTITY) && seen.puts[0].entry === summary, 'store.put did not get (a copy of the identity, the summary in recall)');
    check(event?.reason?.includes('written back'), `fold event does not say it was written back: ${event?.reason}`);
    check(event?.scoreEvidence?.usage?.input === BENCH_USAGE.input && event.scoreEvidence.usage.output === BENCH_USAGE.output, 'fold event does not carry the usage');
  }
}

/** A case with no fold: recall is exactly the expected entries; a coverage case's event names the covered ids. */
function checkNoFold(check, { recall, event, expected }) {
  check(recall.length === expected.recall.length && expected.recall.every((entry, i) => recall[i] === entry), 'recall is not the expected entries, in order');
  if (expected.coveredIds) {
    check(event?.reason?.includes('already covered'), `coverage event does not say "already covered": ${event?.reason}`);
    check(
      event?.droppedIds?.length === expected.coveredIds.length && event.droppedIds.every((id, i) => id === expected.coveredIds[i]),
      'coverage event droppedIds is not the covered ids',
    );
  }
}

/** One full, untimed run that inspects everything the case promises: recall contents, calls, writes, events. */
async function verifyInFull(api, { loaded, config, expected, calls, summarizers }) {
  const problems = [];
  const check = (ok, message) => {
    if (!ok) problems.push(message);
  };
  const seen = { messages: null, requests: [], puts: [] };
  const observedConfig = observedConfigOf(config, summarizers, seen);
  const events = [];
  const scope = {
    loaded,
    identity: BENCH_IDENTITY,
    $emit: (type, payload) => events.push({ type, payload }),
  };
  const callsBefore = { ...calls };
  const outcome = api.summarize(observedConfig)(scope);
  check(outcome instanceof Promise, 'stage(scope) did not return a Promise');
  await outcome;
  const recall = scope.loaded;
  check(calls.summarizer - callsBefore.summarizer === expected.summarizerCalls, `summarizer called ${calls.summarizer - callsBefore.summarizer} times, expected ${expected.summarizerCalls}`);
  check(calls.storePuts - callsBefore.storePuts === expected.storePuts, `store written ${calls.storePuts - callsBefore.storePuts} times, expected ${expected.storePuts}`);
  check(events.length === expected.events, `${events.length} events, expected ${expected.events}`);
  check(events.every((event) => event.type === EVENT_TYPE), 'an event has the wrong type');
  const event = events[0]?.payload;
  if (expected.span) checkFold(check, api, { recall, event, seen, expected, config });
  else checkNoFold(check, { recall, event, expected });
  return problems;
}

/**
 * One case at one size. `calls` counts every summarizer call and store write,
 * timed or not, so a batch can prove afterwards that each of its recalls really
 * did what the case is named after (a fold that silently stopped folding would
 * otherwise just look fast).
 */
function createWorkload(caseName, n, conversation) {
  const calls = { summarizer: 0, storePuts: 0 };
  const summarizers = countedSummarizers(calls);
  const { loaded, config, expected, rotation } = caseInputs(caseName, n, conversation, summarizers);

  // One long-lived stage per module, as an agent has: it sees turn after turn.
  const longLivedStages = new Map();
  let recallsServed = 0;

  return {
    caseName,
    n,
    loaded,
    calls,
    expected,

    /** A new stage for this workload's config. */
    buildStage(api) {
      return api.summarize(config);
    },

    stagesFor(api, count) {
      if (!longLivedStages.has(api)) longLivedStages.set(api, api.summarize(config));
      return new Array(count).fill(longLivedStages.get(api));
    },

    scopes(count) {
      const scopes = new Array(count);
      for (let i = 0; i < count; i++) {
        const recall = rotation.length > 0 ? rotation[recallsServed++ % rotation.length] : loaded;
        scopes[i] = { loaded: recall, identity: BENCH_IDENTITY, eventCount: 0, $emit: countEvent };
      }
      return scopes;
    },

    checkBatch(served, callsBefore) {
      return batchProblems(served, callsBefore, calls, expected);
    },

    verifyOnce(api) {
      return verifyInFull(api, { loaded, config, expected, calls, summarizers });
    },
  };
}

/** All requested cases at size n, sharing one conversation. */
export function buildWorkloads(n, caseNames) {
  const conversation = buildConversation(n + 2 * (FOLD_SPAN_VARIANTS - 1));
  return caseNames.map((caseName) => createWorkload(caseName, n, conversation));
}
