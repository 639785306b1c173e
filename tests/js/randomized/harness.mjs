// Runs one generated scenario against the package and returns every invariant
// violation it saw. A scenario is a list of waves; a wave starts one or more
// runs (`stage(scope)` or `stage.fold`) in the same tick and waits for all of
// them, so runs inside a wave are concurrent and waves are sequential.
//
// Expectations come from spec-model.mjs (the SPEC restated) plus a model of the
// instance state the SPEC defines: the latch (keyed by identity and span ids)
// and the store contents this scenario wrote.

import assert from 'node:assert/strict';
import { checkCalled, checkDecline, checkEventShapes, checkInvalid, checkRecallInvariants, checkResolution, checkScopeWrites, callOutcome, observe, verify } from './checks.mjs';
import { createScope, createStore, createSummarizer, identityKey } from './doubles.mjs';
import { createRandom } from './prng.mjs';
import { DEFAULTS, TRANSCRIPT_CLOSE, TRANSCRIPT_OPEN, planVisit, transcriptRenderings } from './spec-model.mjs';

const WAVE_DEADLINE_MS = 2000;

/**
 * Routes console.warn to the scenario being run. Installed before the package
 * is imported, in case the package captures console.warn at load time.
 */
export function captureConsoleWarn() {
  const hub = { sink: null };
  console.warn = (...args) => hub.sink?.(args);
  return hub;
}

const countOccurrences = (text, fragment) => text.split(fragment).length - 1;

const spanIsPredictable = (plan) =>
  plan.span.every((entry) => !/<<<|>>>/.test(`${entry.value.role ?? ''}${entry.value.content ?? ''}`));

function settingsOf(config) {
  return {
    shape: config.shape,
    model: config.model,
    who: config.shape === 'provider' ? config.model : 'a model',
    triggerMinEntries: config.triggerMinEntries ?? DEFAULTS.triggerMinEntries,
    preserveRecent: config.preserveRecent ?? DEFAULTS.preserveRecent,
    minFoldEntries: config.minFoldEntries ?? DEFAULTS.minFoldEntries,
    systemPrompt: config.systemPrompt,
    ttlMs: config.ttlMs,
    summaryTier: config.summaryTier ?? 'cold',
    strategyId: config.strategyId ?? 'memory-summarize',
    timeoutMs: config.timeoutMs,
    now: config.now,
    store: config.store,
    // The stage counts tokens with a counter or a token option, never otherwise.
    countsTokens:
      config.tokens !== undefined &&
      (config.tokens.counter === 'words' ||
        config.tokens.triggerMinTokens !== undefined ||
        config.tokens.preserveRecentTokens !== undefined ||
        config.tokens.minFoldTokens !== undefined),
    countTokens: config.tokens?.counter === 'words' ? countWords : undefined,
    keepDetails: config.keepDetails === undefined ? undefined : { maxDetails: 64, maxChars: 1000, ...(config.keepDetails === true ? {} : config.keepDetails) },
    triggerMinTokens: config.tokens?.triggerMinTokens,
    preserveRecentTokens: config.tokens?.preserveRecentTokens,
    minFoldTokens: config.tokens?.minFoldTokens,
  };
}

/** The scenarios' `countTokens`: whitespace-separated words. */
const countWords = (text) => text.split(/\s+/).filter(Boolean).length;

function buildConfig(ctx) {
  const { config } = ctx.scenario;
  const stageConfig = { llm: createSummarizer(ctx) };
  if (config.shape === 'provider') stageConfig.model = config.model;
  if (config.store) stageConfig.store = createStore(ctx);
  for (const key of ['triggerMinEntries', 'preserveRecent', 'minFoldEntries', 'systemPrompt', 'ttlMs', 'summaryTier', 'strategyId', 'timeoutMs']) {
    if (config[key] !== undefined) stageConfig[key] = config[key];
  }
  if (config.now !== undefined) stageConfig.now = () => config.now;
  if (config.tokens?.counter === 'words') stageConfig.countTokens = countWords;
  if (config.keepDetails !== undefined) stageConfig.keepDetails = config.keepDetails;
  for (const key of ['triggerMinTokens', 'preserveRecentTokens', 'minFoldTokens']) {
    if (config.tokens?.[key] !== undefined) stageConfig[key] = config.tokens[key];
  }
  if (config.onEvent !== 'none') {
    stageConfig.onEvent = (type, payload) => {
      ctx.onEventCalls.push({ type, payload, wave: ctx.waveIndex, late: ctx.inFlight === 0 });
      if (config.onEvent === 'throw') throw new Error('onEvent observer exploded');
    };
  }
  return stageConfig;
}

// ---------------------------------------------------------------------------
// Building each run's input.

function corruptLoaded(loaded, corruption) {
  switch (corruption.kind) {
    case 'number-loaded':
      return 42;
    case 'string-loaded':
      return 'msg-1-0';
    case 'array-like-loaded':
      return { length: loaded.length, ...loaded };
    case 'set-loaded':
      return new Set(loaded);
    case 'object-loaded':
      return { entries: loaded };
  }
  const index = Math.min(loaded.length, Math.floor(corruption.position * (loaded.length + 1)));
  const base = loaded[index] ?? loaded[0] ?? { id: 'msg-0-0', value: { role: 'user', content: 'hi' }, version: 1 };
  const withValue = (changes) => ({ ...base, value: { ...base.value, ...changes } });
  const withTurn = (turn) => ({ ...base, source: { ...base.source, turn } });
  const { id: _dropped, ...withoutId } = base;
  const bad = {
    'null-element': null,
    'undefined-element': undefined,
    'number-element': 7,
    'string-element': 'msg-3-0',
    'boolean-element': true,
    'missing-id': withoutId,
    'numeric-id': { ...base, id: 3 },
    'null-id': { ...base, id: null },
    'null-value': { ...base, value: null },
    'string-value': { ...base, value: 'hello' },
    'number-value': { ...base, value: 5 },
    'numeric-content': withValue({ content: 42 }),
    'object-content': withValue({ content: { text: 'x' } }),
    'boolean-content': withValue({ content: false }),
    'array-content': withValue({ content: ['a'] }),
    'nan-turn': withTurn(NaN),
    'infinite-turn': withTurn(Infinity),
    'string-turn': withTurn('3'),
    'object-turn': withTurn({ n: 3 }),
    'nan-updatedAt': { ...base, updatedAt: NaN },
    'infinite-updatedAt': { ...base, updatedAt: Infinity },
    'negative-infinite-updatedAt': { ...base, updatedAt: -Infinity },
    'string-updatedAt': { ...base, updatedAt: '12' },
  }[corruption.kind];
  const corrupted = loaded.slice();
  corrupted.splice(index, index < loaded.length ? 1 : 0, bad);
  return corrupted;
}

function assembleLoaded(ctx, spec, conversation, key) {
  if (spec.scopeLoaded) return spec.scopeLoaded === 'null' ? null : undefined;
  let raw = conversation.entries.filter((_, index) => conversation.turnIndexes[index] <= spec.upToTurnIndex);
  if (spec.window !== undefined) raw = raw.slice(-spec.window);
  const summaries = spec.storedSummaries.map((index) => conversation.storedSummaries[index]);
  if (spec.includeWritten) summaries.push(...(ctx.written.get(key)?.values() ?? []));
  const placement = createRandom(spec.placementSeed);
  const loaded = raw.slice();
  for (const summary of summaries) loaded.splice(placement.int(0, loaded.length), 0, summary);
  return spec.invalid ? corruptLoaded(loaded, spec.invalid) : loaded;
}

function prepareRun(ctx, spec, index) {
  const conversation = ctx.scenario.conversations[spec.conversation];
  const identity =
    spec.identity === 'absent' ? undefined : spec.identity === 'copy' ? { ...conversation.identity } : conversation.identity;
  const key = identityKey(identity);
  const loaded = assembleLoaded(ctx, spec, conversation, key);
  const plan = planVisit(loaded ?? [], ctx.settings);
  if (plan.kind === 'call') {
    // SPEC §8, Isolation: a visit without a conversationId shares no call
    // and no latch entry with any other, so its key is its own.
    const conversationKey = identity?.conversationId === undefined ? `${key} wave ${ctx.waveIndex} run ${index}` : key;
    plan.key = `${conversationKey}\u0001${plan.spanIds.join('\u0000')}`;
    if (ctx.latched.has(plan.key)) plan.kind = 'latched';
    else if (plan.underFloor) plan.kind = 'under-floor';
    else if (plan.predicted) plan.kind = 'predicted';
  }
  const where = `wave ${ctx.waveIndex} run ${index} (${spec.form}, identity ${spec.identity}, conversation ${spec.conversation}, plan ${plan.kind})`;
  return { spec, index, where, identity, loaded, plan, observation: { events: [], writes: [], emitThisOk: true, settled: false } };
}

function startRun(ctx, run) {
  const { observation } = run;
  ctx.inFlight++;
  let promise;
  try {
    if (run.spec.form === 'fold') {
      promise = ctx.stage.fold(run.loaded, run.identity);
    } else {
      const stage = ctx.stage; // unbound on purpose (§1)
      promise = stage(createScope(run));
    }
  } catch (error) {
    ctx.inFlight--;
    observation.syncThrow = error;
    observation.settled = true;
    return Promise.resolve();
  }
  observation.isRealPromise = promise instanceof Promise;
  return Promise.resolve(promise)
    .then(
      (value) => {
        observation.value = value;
      },
      (error) => {
        observation.rejection = error;
      },
    )
    .finally(() => {
      ctx.inFlight--;
      observation.settled = true;
    });
}

// ---------------------------------------------------------------------------
// Calls and writes, attributed to the (identity, span) they were for.

function spanMatchesCall(ctx, plan, call) {
  if (ctx.settings.shape === 'callback') {
    const messages = call.messages;
    return Array.isArray(messages) && messages.length === plan.span.length + 1 && plan.span.every((entry, index) => messages[index + 1] === entry.value);
  }
  return transcriptRenderings(plan.span).includes(call.request?.messages?.[0]?.content);
}

function checkCallShape(ctx, call) {
  const { settings } = ctx;
  verify(ctx, `wave ${call.wave} summarizer call`, () => {
    const checkPrompt = (prompt) => {
      if (settings.systemPrompt !== undefined) {
        assert.equal(prompt, settings.systemPrompt, 'systemPrompt is not the configured one');
        return;
      }
      assert.equal(typeof prompt, 'string');
      for (const needle of [TRANSCRIPT_OPEN, TRANSCRIPT_CLOSE, 'never follow it']) {
        assert.ok(prompt.includes(needle), `the default instruction lacks "${needle}" (§5)`);
      }
    };
    if (settings.shape === 'callback') {
      assert.ok(Array.isArray(call.messages), 'callback was not given an array');
      assert.deepEqual(Object.keys(call.messages[0]), ['role', 'content']);
      assert.equal(call.messages[0].role, 'system');
      checkPrompt(call.messages[0].content);
      return;
    }
    const { request } = call;
    checkPrompt(request.systemPrompt);
    assert.equal(request.model, settings.model);
    assert.equal(request.messages.length, 1);
    assert.equal(request.messages[0].role, 'user');
    const transcript = request.messages[0].content;
    assert.ok(transcript.startsWith(`${TRANSCRIPT_OPEN}\n`) && transcript.endsWith(`\n${TRANSCRIPT_CLOSE}`), 'transcript is not framed by the markers');
    assert.equal(countOccurrences(transcript, TRANSCRIPT_OPEN), 1, 'transcript holds more than one opening marker (§5 defanging)');
    assert.equal(countOccurrences(transcript, TRANSCRIPT_CLOSE), 1, 'transcript holds more than one closing marker (§5 defanging)');
    if (settings.timeoutMs !== undefined) assert.ok(request.signal instanceof AbortSignal, 'timeoutMs set but the request has no AbortSignal');
  });
}

function attributeCalls(ctx, groups, waveCalls) {
  const ambiguous = [];
  for (const call of waveCalls) {
    checkCallShape(ctx, call);
    let candidates = [...groups.values()].filter((group) => group.runs.some((run) => spanMatchesCall(ctx, run.plan, call)));
    if (candidates.length === 0 && ctx.settings.shape === 'provider') {
      // A transcript holding marker text is defanged in a way the SPEC leaves open.
      candidates = [...groups.values()].filter((group) => !group.call && group.runs.some((run) => !spanIsPredictable(run.plan)));
      if (candidates.length > 1) {
        ambiguous.push(call);
        for (const group of candidates) group.ambiguous = true;
        continue;
      }
    }
    if (candidates.length === 0) {
      ctx.violations.push({
        wave: ctx.waveIndex,
        where: 'summarizer call',
        message: `a summarizer call matches no span that should be asked this wave (latched, predicted, not worth it, or a malformed request): ${JSON.stringify(call.messages ?? call.request).slice(0, 600)}`,
      });
      continue;
    }
    if (candidates.length > 1) {
      ambiguous.push(call);
      for (const group of candidates) group.ambiguous = true;
      continue;
    }
    const [group] = candidates;
    if (group.call) {
      ctx.violations.push({ wave: ctx.waveIndex, where: 'summarizer call', message: `two summarizer calls in one wave for one (identity, span): ${group.key}` });
      continue;
    }
    group.call = call;
    group.callPlan = group.runs.find((run) => spanMatchesCall(ctx, run.plan, call))?.plan ?? group.runs[0].plan;
  }
  verify(ctx, `wave ${ctx.waveIndex}`, () => {
    assert.equal(waveCalls.length, groups.size, `expected one summarizer call per (identity, span) asked this wave: ${groups.size} spans, ${waveCalls.length} calls`);
  });
  for (const group of groups.values()) {
    if (group.call) group.outcome = callOutcome(ctx, group.call, group.callPlan);
    else {
      group.outcome = { kind: 'unknown' };
      if (!group.ambiguous) ctx.violations.push({ wave: ctx.waveIndex, where: 'summarizer call', message: `no summarizer call for a span that should be asked: ${group.key}` });
    }
  }
}

function attributePuts(ctx, groups, wavePuts) {
  for (const put of wavePuts) {
    const coveredIds = put.entry?.metadata?.summarizes?.coveredIds;
    const ids = Array.isArray(coveredIds) ? coveredIds.join('\u0000') : '?';
    const key = `${identityKey(put.identity)}\u0001${ids}`;
    // A visit without a conversationId is a group of its own (prepareRun).
    const own = (candidate) => !candidate.put && candidate.key.startsWith(`${identityKey(put.identity)} wave `) && candidate.key.endsWith(`\u0001${ids}`);
    const group = groups.get(key) ?? (put.identity?.conversationId === undefined ? [...groups.values()].find(own) : undefined);
    if (!group || (group.outcome.kind !== 'fold' && group.outcome.kind !== 'unknown') || group.put) {
      ctx.violations.push({ wave: ctx.waveIndex, where: 'store.put', message: `a write no fold in this wave accounts for (late answer, refused/failed span, or a second write): ${key}` });
      continue;
    }
    group.put = put;
  }
  for (const group of groups.values()) {
    if (group.outcome.kind === 'fold' && ctx.settings.store && !group.put) {
      ctx.violations.push({ wave: ctx.waveIndex, where: 'store.put', message: `a fold with a store configured made no write: ${group.key}` });
    }
  }
}

function checkGroups(ctx, groups) {
  for (const group of groups.values()) {
    verify(ctx, `wave ${ctx.waveIndex} span ${group.key}`, () => {
      const reasons = group.runs.map((run) => observe(run).events[0]?.payload.reason ?? '');
      const leaders = group.runs.filter((run) => observe(run).events[0]?.payload.scoreEvidence.summarizerCalled === true);
      assert.equal(leaders.length, 1, `expected exactly one run to have called the summarizer for this span, got ${leaders.length}`);
      const kindOf = (reason) => ['folded', 'summarizer-failed', 'replacement-not-smaller'].find((token) => reason.includes(token)) ?? reason;
      assert.equal(new Set(reasons.map(kindOf)).size, 1, `concurrent runs over one span disagree: ${JSON.stringify(reasons)}`);
      if (group.call && (ctx.settings.shape === 'callback' || spanIsPredictable(leaders[0].plan))) {
        assert.ok(spanMatchesCall(ctx, leaders[0].plan, group.call), 'the run reporting the call is not the one whose span was sent');
      }
      if (group.put && group.expectedSummary) {
        assert.deepStrictEqual(group.put.entry, group.expectedSummary, 'store.put entry differs from §2');
        assert.deepEqual(group.put.identity, group.runs[0].identity, 'store.put identity is not the run identity');
      }
      if (group.call?.request && ['hang', 'late'].includes(group.call.script.kind)) {
        assert.ok(group.call.request.signal?.aborted, 'timed out, but the provider request signal was not aborted');
      }
    });
    ctx.count(`outcome: ${group.outcome.kind}${group.outcome.call ? ` (${group.outcome.call.script.kind})` : ''}`);
    if (group.runs.length > 1) ctx.count('concurrent runs sharing one call');
    if (group.put) ctx.count(`store: ${group.put.script.kind}`);
    const reason = observe(group.runs[0]).events[0]?.payload.reason ?? '';
    const refused = group.outcome.kind === 'refused' || (group.outcome.kind === 'unknown' && reason.includes('replacement-not-smaller'));
    if (refused) ctx.latched.add(group.key);
    if (group.outcome.kind === 'failed' || reason.includes('summarizer-failed')) ctx.expectWarning = true;
    if (group.put && !group.put.script.kind.startsWith('ok')) ctx.expectWarning = true;
  }
}

function checkOnEvent(ctx, runs, waveOnEvents) {
  if (ctx.scenario.config.onEvent === 'none') return;
  verify(ctx, `wave ${ctx.waveIndex} onEvent`, () => {
    const emitted = runs.flatMap((run) => (checkableResolution(run) ? observe(run).events : []));
    const asText = (events) => events.map(({ type, payload }) => JSON.stringify({ type, payload })).sort();
    assert.deepEqual(asText(waveOnEvents), asText(emitted), 'onEvent did not see exactly the events the runs emitted');
  });
}

const checkableResolution = (run) => run.resolvedCleanly === true;

async function runWave(ctx, wave) {
  const runs = wave.runs.map((spec, index) => prepareRun(ctx, spec, index));
  const before = { calls: ctx.calls.length, puts: ctx.puts.length, onEvents: ctx.onEventCalls.length };
  const startedAt = Date.now();
  const pending = runs.map((run) => startRun(ctx, run));
  let timer;
  const deadline = new Promise((resolve) => {
    timer = setTimeout(() => resolve('deadline'), WAVE_DEADLINE_MS);
  });
  const raced = await Promise.race([Promise.all(pending), deadline]);
  clearTimeout(timer);
  if (raced === 'deadline') {
    for (const run of runs.filter((candidate) => !candidate.observation.settled)) {
      ctx.violations.push({ wave: ctx.waveIndex, where: run.where, message: `the run did not resolve within ${WAVE_DEADLINE_MS} ms` });
    }
    return false;
  }
  const finishedAt = Date.now();

  const groups = new Map();
  for (const run of runs) {
    run.resolvedCleanly = checkResolution(ctx, run);
    if (!run.resolvedCleanly) continue;
    const observed = observe(run);
    checkEventShapes(ctx, run, observed);
    checkScopeWrites(ctx, run, observed);
    checkRecallInvariants(ctx, run, observed);
    ctx.count(`plan: ${run.plan.kind}`);
    ctx.count(`form: ${run.spec.form}`);
    if (ctx.settings.countsTokens) ctx.count(`tokens by ${ctx.settings.countTokens ? 'countTokens' : 'ceil(length / 4)'}: ${run.plan.kind}`);
    if (run.plan.kind === 'invalid') {
      ctx.expectWarning = true;
      ctx.count(`invalid: ${run.spec.invalid?.kind ?? 'none'}`);
    }
    if (run.plan.kind === 'call') {
      if (!groups.has(run.plan.key)) groups.set(run.plan.key, { key: run.plan.key, runs: [], startedAt, finishedAt });
      groups.get(run.plan.key).runs.push(run);
    }
  }
  attributeCalls(ctx, groups, ctx.calls.slice(before.calls));
  attributePuts(ctx, groups, ctx.puts.slice(before.puts));
  for (const run of runs) {
    if (!run.resolvedCleanly) continue;
    const observed = observe(run);
    verify(ctx, run.where, () => {
      switch (run.plan.kind) {
        case 'empty':
          assert.equal(observed.events.length, 0, 'empty recall emitted an event');
          if (run.spec.form === 'scope') assert.equal(observed.wrote, false, 'empty recall was written');
          else assert.equal(observed.recall.length, 0, 'empty recall came back non-empty');
          return;
        case 'invalid':
          return checkInvalid(ctx, run, observed);
        case 'call':
          return checkCalled(ctx, run, observed, groups.get(run.plan.key));
        default:
          return checkDecline(ctx, run, observed);
      }
    });
  }
  checkGroups(ctx, groups);
  checkOnEvent(ctx, runs, ctx.onEventCalls.slice(before.onEvents));
  return true;
}

/**
 * Runs a scenario; resolves to the list of violations (empty when all held).
 * `coverage` counts what was exercised (plan kinds, outcomes, coalesced runs…)
 * so the test can prove the generator reaches every path it claims to.
 */
export async function runScenario(api, scenario, warnHub, coverage = new Map()) {
  const ctx = {
    api,
    scenario,
    settings: settingsOf(scenario.config),
    waveIndex: -1,
    inFlight: 0,
    calls: [],
    puts: [],
    onEventCalls: [],
    warnings: [],
    pendingLate: [],
    // Held, as a client's open socket holds a call that never answers: the stage
    // ends its wait on a promise nothing holds (bench/soak.mjs --hung).
    hungCalls: [],
    written: new Map(),
    latched: new Set(),
    expectWarning: false,
    violations: [],
    count: (what) => coverage.set(what, (coverage.get(what) ?? 0) + 1),
  };
  warnHub.sink = (args) => ctx.warnings.push({ message: args.map(String).join(' '), late: ctx.inFlight === 0 });
  try {
    try {
      ctx.stage = api.summarize(buildConfig(ctx));
    } catch (error) {
      ctx.violations.push({ wave: -1, where: 'summarize(config)', message: `a valid config was refused: ${error.message}` });
      return ctx.violations;
    }
    for (const [waveIndex, wave] of scenario.waves.entries()) {
      ctx.waveIndex = waveIndex;
      if (!(await runWave(ctx, wave))) return ctx.violations;
    }
    // Let every late answer land, then make sure nothing acted on it.
    await Promise.all(ctx.pendingLate);
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    verify(ctx, 'after the last run', () => {
      assert.deepEqual(ctx.calls.filter((call) => call.late).length, 0, 'the summarizer was called while no run was in flight');
      assert.deepEqual(ctx.puts.filter((put) => put.late).length, 0, 'store.put was called while no run was in flight (a late answer was written)');
      assert.deepEqual(ctx.onEventCalls.filter((call) => call.late).length, 0, 'onEvent was called while no run was in flight');
      assert.deepEqual(ctx.warnings.filter((warning) => warning.late).length, 0, 'console.warn was called while no run was in flight');
    });
    verify(ctx, 'console.warn', () => {
      const messages = ctx.warnings.map((warning) => warning.message);
      assert.equal(messages.length, ctx.expectWarning ? 1 : 0, `expected ${ctx.expectWarning ? 'exactly one' : 'no'} console.warn (§7), got ${JSON.stringify(messages)}`);
      for (const message of messages) assert.ok(message.includes(ctx.settings.strategyId), `the warning does not name the strategyId: ${message}`);
    });
    return ctx.violations;
  } finally {
    warnHub.sink = null;
  }
}
