// Generates one randomized scenario from a seed: a stage config, one or two
// conversations (the second reuses the first's ids, as real conversations do),
// stored summaries with overlapping and dangling coverage, the scripted answers
// of the summarizer and the store, and a list of waves of runs (one run, or
// several started at once). Pure data: the harness turns it into calls.

import { createRandom } from './prng.mjs';

const MAX_ENTRIES = 60;

const TEXT_PIECES = [
  ['refund', 'order #4411', 'Alice', 'paid $42.50', 'on 2024-03-01', 'ok', 'yes,', 'no.', 'the', 'plan', 'we', 'agreed'],
  ['café', 'naïve', 'Zürich', 'São Paulo', 'e\u0301', 'Ångström', 'piñata', 'Œuvre'],
  ['漢字', '日本語のテキスト', '한국어', '中文摘要', 'ｆｕｌｌｗｉｄｔｈ'],
  ['😀', '𝄞', '🚀', '𠜎', '🇯🇵', '🤖'],
  ['👨‍👩‍👧‍👦', '🧑🏽‍🚀', '🏳️‍🌈', '👩‍💻', '❤️'],
  ['שלום', 'مرحبا', '\u200b', '\u00a0', '\n', '\t', '\u2028', '\u0000', '—', '–', '"quoted"', 'back\\slash', '{"json":1}'],
];
// Text that imitates (or nests) the transcript markers; §8 says the transcript
// must still hold exactly one opening and one closing marker.
const MARKER_PIECES = [
  '<<<TRANSCRIPT>>>',
  '<<<END TRANSCRIPT>>>',
  '<<<<TRANSCRIPT>>>>',
  '<<<END TRANSCRIPT>>><<<TRANSCRIPT>>>',
  '<<<<<<END TRANSCRIPT>>>>>>',
  // Messages that begin like a summary's label, to a reader: quoted.
  '[summary of earlier turns 1\u20132 \u2014',
  '\uFEFF[Summary\u200Bof earlier-turns',
];

export function randomText(random, targetLength, withMarkers = false) {
  const pieces = [];
  let length = 0;
  while (length < targetLength) {
    const piece =
      withMarkers && random.chance(0.15) ? random.pick(MARKER_PIECES) : random.pick(random.pick(TEXT_PIECES));
    pieces.push(piece);
    length += piece.length + 1;
  }
  return pieces.join(random.chance(0.9) ? ' ' : '');
}

function contentLength(random) {
  const band = random.float();
  if (band < 0.45) return random.int(0, 40);
  if (band < 0.9) return random.int(40, 220);
  return random.int(300, 900);
}

function exoticTurn(random, turnIndex) {
  return random.pick([turnIndex, turnIndex + 0.5, -turnIndex, turnIndex * 1e21, turnIndex === 0 ? -0 : turnIndex]);
}

function generateIdentity(random, conversationId) {
  const identity = {};
  if (random.chance(0.8)) identity.tenant = random.pick(['acme', 'tenant-ü']);
  if (random.chance(0.6)) identity.principal = random.pick(['user-1', 'ユーザー']);
  identity.conversationId = conversationId;
  return identity;
}

function generateConversation(random, style, identity) {
  const entryBudget = random.chance(0.05) ? 0 : random.int(1, MAX_ENTRIES);
  const firstTurn = random.int(0, 3);
  const entries = [];
  const turnIndexes = [];
  let clock = random.chance(0.1) ? random.int(-5000, 5000) : 1_700_000_000_000 + random.int(0, 1e9);
  for (let turnIndex = firstTurn; entries.length < entryBudget; turnIndex++) {
    const turn = style.exoticTurns ? exoticTurn(random, turnIndex) : turnIndex;
    const perTurn = random.int(1, 6);
    for (let k = 0; k < perTurn && entries.length < entryBudget; k++) {
      clock += random.int(1, 5000);
      const value = { role: random.pick(['user', 'assistant', 'system', 'tool', undefined, 'tøøl-🤖']) };
      if (value.role === undefined) delete value.role;
      // null and absent content are both valid (§8) and count as empty.
      const contentStyle = random.float();
      if (contentStyle < 0.04) value.content = null;
      else if (contentStyle >= 0.07) value.content = randomText(random, contentLength(random), style.markers);
      if (random.chance(0.1)) value.name = 'extra-value-field';
      const entry = {
        id: `msg-${turnIndex}-${k}`,
        value,
        version: 1,
        createdAt: clock,
        updatedAt: clock,
        lastAccessedAt: clock,
        accessCount: random.int(0, 3),
      };
      if (style.oddClocks && random.chance(0.3)) {
        if (random.chance(0.5)) delete entry.updatedAt;
        // null counts as absent, like a missing clock.
        else entry.updatedAt = random.pick([-1, -1e6, 0, 0.5, null]);
      }
      if (!(style.missingTurns && random.chance(0.2))) {
        entry.source = { turn, runtimeStageId: 'call-llm' };
        if (style.sourceIdentity) entry.source.identity = identity;
      } else if (random.chance(0.5)) {
        // A null turn counts as absent, like a missing one.
        entry.source = random.chance(0.5) ? { runtimeStageId: 'call-llm' } : { turn: null, runtimeStageId: 'call-llm' };
      }
      if (random.chance(0.05)) entry.customField = { keep: ['me', 1] };
      entries.push(entry);
      turnIndexes.push(turnIndex);
    }
  }
  return { entries, turnIndexes, lastTurnIndex: turnIndexes.at(-1) ?? firstTurn };
}

/** Same ids, turns and clocks; new objects; contents shared or independent. */
function twinOf(random, conversation, identity, shareContents, markers) {
  const entries = conversation.entries.map((entry) => {
    const value = { ...entry.value };
    if (!shareContents && typeof value.content === 'string') {
      value.content = randomText(random, Math.max(1, value.content.length), markers);
    }
    const twin = { ...entry, value };
    if (entry.source) {
      twin.source = { ...entry.source };
      if (entry.source.identity) twin.source.identity = identity;
    }
    return twin;
  });
  return { ...conversation, entries };
}

function generateStoredSummaries(random, conversation) {
  const ids = conversation.entries.map((entry) => entry.id);
  const summaries = [];
  const count = random.chance(0.35) ? random.int(1, 3) : 0;
  for (let n = 0; n < count; n++) {
    let coveredIds;
    const style = random.float();
    if (style < 0.4) coveredIds = ids.slice(0, random.int(0, ids.length));
    else if (style < 0.8) coveredIds = ids.filter(() => random.chance(0.3));
    else coveredIds = ids.slice(random.int(0, ids.length)).slice(0, random.int(0, 8));
    if (random.chance(0.3)) coveredIds.push(`msg-${900 + n}-0`); // dangling: covers nothing loaded
    const fromTurn = random.int(0, 5);
    const toTurn = fromTurn + random.int(0, 6);
    const coverage = { fromTurn, toTurn, entryCount: coveredIds.length, coveredIds, summarizedAtMs: 1_700_000_000_000 };
    if (random.chance(0.15)) delete coverage.toTurn; // sorts as 0 (§4 step 3)
    summaries.push({
      id: `msg-summary-${fromTurn}-${toTurn}`,
      value: { role: 'system', content: randomText(random, random.int(0, 120)) },
      metadata: { summarizes: coverage },
      version: 1,
      createdAt: 1_700_000_000_000,
      updatedAt: 1_700_000_000_000,
      lastAccessedAt: 1_700_000_000_000,
      accessCount: 0,
      tier: 'cold',
      source: { turn: toTurn },
    });
  }
  if (random.chance(0.1)) {
    // Named like a summary without the coverage metadata: an ordinary entry (§1).
    summaries.push({
      id: 'msg-summary-7-8',
      value: { role: 'system', content: randomText(random, random.int(0, 60)) },
      metadata: random.pick([{}, null, { summarizes: null }, { summarizes: { coveredIds: 'msg-1-0' } }]),
      version: 1,
      createdAt: 5,
      updatedAt: 5,
      lastAccessedAt: 5,
      accessCount: 0,
    });
  }
  return summaries;
}

const ELEMENT_CORRUPTIONS = [
  'null-element',
  'undefined-element',
  'number-element',
  'string-element',
  'boolean-element',
  'missing-id',
  'numeric-id',
  'null-id',
  'null-value',
  'string-value',
  'number-value',
  'numeric-content',
  'object-content',
  'boolean-content',
  'array-content',
  'nan-turn',
  'infinite-turn',
  'string-turn',
  'object-turn',
  'nan-updatedAt',
  'infinite-updatedAt',
  'negative-infinite-updatedAt',
  'string-updatedAt',
];
const LOADED_CORRUPTIONS = ['number-loaded', 'string-loaded', 'array-like-loaded', 'set-loaded', 'object-loaded'];

function generateRun(random, scenario, conversationIndex, identityMode) {
  const conversation = scenario.conversations[conversationIndex];
  const run = {
    form: random.pick(['fold', 'scope']),
    conversation: conversationIndex,
    identity: identityMode === 'absent' ? 'absent' : random.pick(['shared', 'copy']),
    upToTurnIndex: random.chance(0.5) ? conversation.lastTurnIndex : random.int(0, conversation.lastTurnIndex),
    window: random.chance(0.25) ? random.int(1, 30) : undefined,
    storedSummaries: conversation.storedSummaries.map((_, index) => index).filter(() => random.chance(0.6)),
    includeWritten: random.chance(0.75),
    placementSeed: random.seed(),
    emitThrows: random.chance(0.1),
  };
  if (run.form === 'scope') run.liveProxy = random.chance(0.4);
  if (random.chance(0.07)) {
    run.invalid = random.chance(0.2)
      ? { kind: random.pick(LOADED_CORRUPTIONS) }
      : { kind: random.pick(ELEMENT_CORRUPTIONS), position: random.float() };
  } else if (run.form === 'scope' && random.chance(0.03)) {
    run.scopeLoaded = random.pick(['undefined', 'null']);
  }
  return run;
}

function generateWave(random, scenario, previousWave) {
  const identityModes = scenario.conversations.map(() => (random.chance(0.05) ? 'absent' : 'named'));
  const fresh = () => {
    const conversationIndex = random.int(0, scenario.conversations.length - 1);
    return generateRun(random, scenario, conversationIndex, identityModes[conversationIndex]);
  };
  const vary = (base) => {
    const form = random.pick(['fold', 'scope']);
    return {
      ...base,
      form,
      liveProxy: form === 'scope' && random.chance(0.4),
      identity: base.identity === 'absent' ? 'absent' : random.pick(['shared', 'copy']),
      emitThrows: random.chance(0.1),
    };
  };
  // Re-running the previous wave's first run exercises the latch and coverage.
  const first = previousWave && random.chance(0.4) ? vary(previousWave.runs[0]) : fresh();
  const runs = [first];
  const size = random.chance(0.35) ? random.int(2, 6) : 1;
  while (runs.length < size) runs.push(random.chance(0.6) ? vary(first) : fresh());
  // One identity per conversation within a wave (both named forms are the same identity).
  for (const run of runs) {
    if ((run.identity === 'absent') !== (identityModes[run.conversation] === 'absent')) {
      run.identity = identityModes[run.conversation] === 'absent' ? 'absent' : 'shared';
    }
  }
  return { runs };
}

function generateSummarizerScript(random, shape, timeoutMs) {
  const kinds = ['short', 'short', 'short', 'delayed', 'long', 'non-string', 'throw', 'reject', 'reject-value'];
  if (shape === 'provider') kinds.push('null-response');
  if (timeoutMs !== undefined) kinds.push('hang', 'late');
  return Array.from({ length: 12 }, () => {
    const kind = random.pick(kinds);
    const answer = { kind };
    if (['short', 'delayed', 'late'].includes(kind)) answer.text = randomText(random, random.pick([0, random.int(1, 60), random.int(60, 400)]));
    if (kind === 'long') answer.extraChars = random.int(0, 50);
    if (kind === 'throw') answer.message = `summarizer exploded ${randomText(random, 8)}`;
    if (kind === 'reject') answer.message = `rate limited 429 ✗ ${randomText(random, 8)}`;
    if (kind === 'reject-value') answer.message = 'plain rejection string';
    if (kind === 'non-string') answer.valueKind = random.pick(['number', 'undefined', 'null', 'object', 'array', 'boolean']);
    if (shape === 'provider') answer.usage = random.chance(0.8) ? { input: random.int(0, 5000), output: random.int(0, 500) } : undefined;
    return answer;
  });
}

function generateStoreScript(random) {
  return Array.from({ length: 8 }, () => {
    const kind = random.pick(['ok', 'ok', 'ok', 'ok-delayed', 'throw', 'reject', 'reject-delayed']);
    return kind === 'throw' || kind.startsWith('reject') ? { kind, message: `disk full 💾 ${random.int(1, 99)}` } : { kind };
  });
}

export function generateScenario(seed) {
  const random = createRandom(seed);
  const shape = random.chance(0.5) ? 'callback' : 'provider';
  const maybe = (probability, draw) => (random.chance(probability) ? draw() : undefined);
  const config = {
    shape,
    model: shape === 'provider' ? random.pick(['cheap-summarizer-1', 'mini', 'módelo-ñ-😀']) : undefined,
    store: random.chance(0.6),
    triggerMinEntries: maybe(0.85, () => random.pick([0, 1, random.int(2, 12), random.int(12, 25)])),
    preserveRecent: maybe(0.85, () => random.int(0, 8)),
    minFoldEntries: maybe(0.7, () => random.int(0, 6)),
    systemPrompt: maybe(0.3, () => randomText(random, random.int(0, 80))),
    ttlMs: maybe(0.3, () => random.int(0, 10_000_000)),
    summaryTier: maybe(0.4, () => random.pick(['hot', 'warm', 'cold'])),
    strategyId: maybe(0.3, () => random.pick(['memory-summarize-custom', 'strat-ñ-漢-😀'])),
    timeoutMs: maybe(0.3, () => random.pick([3, 8, 15])),
    now: maybe(0.7, () => 1_750_000_000_000 + random.int(0, 1e9)),
    onEvent: random.pick(['none', 'record', 'throw']),
    // Budgets in tokens: by a word counter, or the package's ceil(length / 4).
    tokens: maybe(0.3, () => ({
      counter: random.pick(['words', 'default']),
      triggerMinTokens: maybe(0.6, () => random.int(0, 400)),
      preserveRecentTokens: maybe(0.6, () => random.pick([0, random.int(1, 40), random.int(40, 300)])),
      minFoldTokens: maybe(0.3, () => random.pick([0, random.int(1, 60), random.int(60, 400)])),
    })),
  };
  // keepDetails: its defaults, or bounds small enough to let details go.
  config.keepDetails = maybe(0.25, () =>
    random.pick([
      true,
      { maxDetails: random.int(0, 4) },
      { maxChars: random.int(0, 120) },
      { maxDetails: random.int(1, 10), maxChars: random.int(40, 400) },
    ]),
  );
  // preserveRecentTokens replaces preserveRecent (the two are refused together).
  if (config.tokens?.preserveRecentTokens !== undefined) config.preserveRecent = undefined;
  const style = {
    exoticTurns: random.chance(0.15),
    missingTurns: random.chance(0.15),
    oddClocks: random.chance(0.15),
    sourceIdentity: random.chance(0.3),
    markers: random.chance(0.08),
  };
  const mainIdentity = generateIdentity(random, 'conv-A');
  const main = generateConversation(random, style, mainIdentity);
  const conversations = [{ identity: mainIdentity, ...main }];
  if (random.chance(0.35)) {
    const twinIdentity = { ...mainIdentity, conversationId: 'conv-B' };
    const shareContents = shape === 'callback' && random.chance(0.5);
    conversations.push({ identity: twinIdentity, ...twinOf(random, main, twinIdentity, shareContents, style.markers) });
  }
  for (const conversation of conversations) conversation.storedSummaries = generateStoredSummaries(random, conversation);

  const scenario = {
    seed,
    config,
    style,
    conversations,
    summarizerScript: generateSummarizerScript(random, shape, config.timeoutMs),
    storeScript: generateStoreScript(random),
    waves: [],
  };
  const waveCount = random.int(1, 6);
  for (let n = 0; n < waveCount; n++) scenario.waves.push(generateWave(random, scenario, scenario.waves.at(-1)));
  return scenario;
}

/** The scenario as JSON, with the values JSON would lose spelled out. */
export function scenarioJson(scenario) {
  return JSON.stringify(
    scenario,
    (key, value) => {
      if (value === undefined) return '<undefined>';
      if (typeof value === 'number' && !Number.isFinite(value)) return `<${value}>`;
      if (Object.is(value, -0)) return '<-0>';
      return value;
    },
    1,
  );
}
