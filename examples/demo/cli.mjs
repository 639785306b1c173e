#!/usr/bin/env node
// The demo: a scripted support conversation played turn by turn through a
// footprintjs memory pipeline (LoadRecent → summarize → PickByBudget → Format →
// WriteTurn, tests/support/memory-pipeline.mjs) with footprint-summarize as the
// summarize stage, on a SQLite file that survives between runs. `--help` says
// what every number means.
//
// Usually started through `bash examples/demo.sh`, which builds the package
// first when it is missing or stale.

import { existsSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';

import { contentTokens, pickWithinBudget, runMemoryTurn } from '../../tests/support/memory-pipeline.mjs';
import { SCRIPTED_TURN_COUNT, turnMessages } from './conversation.mjs';
import { runFleet } from './fleet.mjs';
import { SETTINGS } from './settings.mjs';
import {
  IDENTITY,
  PACKAGE_ENTRY,
  contentChars,
  loadTokenCounter,
  buildDemo,
  openStore,
  readTurn,
  resetStore,
  storeDescription,
} from './setup.mjs';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const DEFAULT_DB = 'target/demo/conversation.db'; // relative to the repository
const PLAYGROUND_LINE = 'Open the playground: node examples/serve-www.mjs  →  http://127.0.0.1:8787/www/';

const HELP = `Usage: bash examples/demo.sh [options]     (or: node examples/demo/cli.mjs [options])

Plays a scripted customer-support conversation (Maya Okafor and Sam from
Northwind Home: refunds, order numbers, a new address on April 1, a switch
from email to SMS) turn by turn through a footprintjs memory pipeline

  LoadRecent → summarize (footprint-summarize) → PickByBudget → Format → WriteTurn

on a SQLite database that survives between runs. Running it again continues
the conversation from the next turn; spans summarized by an earlier run are
loaded from the database and not paid for again.

Options:
  --turns N         turns to play this run (default ${SCRIPTED_TURN_COUNT}; past turn ${SCRIPTED_TURN_COUNT} the customer
                    keeps returning with new orders)
  --db PATH         SQLite file (default ${DEFAULT_DB} in the repository)
  --reset           delete the database first and start at turn 1
  --max-summaries N keep at most N summaries in recall: a fold that would leave
                    more rolls the oldest into the new one, in the same call,
                    so recall reaches turn 1 with one summary (default: no bound)
  --keep-details    each summary ends with a line listing the exact details
                    (order numbers, amounts, emails, dates…) its text dropped
                    (the stage's keepDetails option)
  --tokens          budget in tokens, counted by a real tokenizer (gpt-tokenizer,
                    o200k_base): the stage keeps the newest whole turns holding
                    ${SETTINGS.preserveRecentTokens} tokens verbatim (preserveRecentTokens) and PickByBudget
                    keeps ${SETTINGS.budgetTokens.toLocaleString('en-US')} tokens, with one shared counter; each turn shows
                    the tokens sent and saved
  --json            one JSON record per turn on stdout and nothing else there
                    (the summary table goes to stderr)
  --llm NAME        the summarizer: extractive (default; offline, deterministic,
                    built into the package) or openai (any OpenAI-compatible
                    chat-completions endpoint)
  --base-url URL    with --llm openai (default https://api.openai.com/v1)
  --model M         with --llm openai (default gpt-4o-mini)
  --api-key-env V   with --llm openai: the environment variable holding the key
                    (default OPENAI_API_KEY; unset → no Authorization header)
  --timeout-ms N    summarizer deadline; past it the call counts as failed and
                    recall is served verbatim (default ${SETTINGS.openAiTimeoutMs} with openai, none
                    with extractive)
  --background      fold in the background (the stage's background option): no
                    turn waits for the summarizer; a summary reaches the turns
                    after its call ends, through the store
  --llm-delay MS    the summarizer takes MS longer to answer (a model's latency);
                    turns are played back to back, so with --background a fold
                    lands after the turns that follow it (counted as it ends;
                    the closing counts wait for every one);
                    with it or --background, each turn prints the time it spent
                    in the stage
  --redis URL       keep the conversation on Redis at URL (redis://host:port)
                    instead of the SQLite file
  --processes N     a fleet: N worker processes on the same store at once,
                    each playing every turn, like N replicas serving one
                    conversation; each turn starts on all of them together.
                    Spans are claimed through the store's putIfVersion, so
                    each is paid once; prints paid calls per process and in
                    total
  --concurrency K   with --processes: each process plays each turn K times
                    at once (retries, a user who sends twice) (default 1)
  --no-claims       with --processes: no claims, so every process pays for
                    every span (what the fleet costs without them)
  --lease-ms N      with --processes: a claim's lease (default: the
                    package's, a minute or twice --timeout-ms)
  --help            this text

Settings (fixed, chosen so 60 turns show several folds):
  LoadRecent loads the ${SETTINGS.loadLimit} newest entries; each turn writes 2 (user + assistant).
  triggerMinEntries ${SETTINGS.triggerMinEntries}: folding is considered once ${SETTINGS.triggerMinEntries} entries are loaded.
  preserveRecent ${SETTINGS.preserveRecent}: the newest ${SETTINGS.preserveRecent} entries (2 turns) always stay verbatim.
  minFoldEntries ${SETTINGS.minFoldEntries}: a fold covers at least ${SETTINGS.minFoldEntries} entries, because each summary
    carries a ~330-character label and a short span would not get smaller.
  extractive keeps at most ${SETTINGS.extractiveMaxChars} characters of fact-carrying sentences.
  PickByBudget keeps ${SETTINGS.budgetChars.toLocaleString('en-US')} characters, more than either recall below ever needs.

Each turn prints:
  recall      entries and characters (UTF-16, message contents) sent to the
              model this turn: stored summaries first, then the verbatim tail
  folds       summaries written so far this run (each one a fold of a span)
  paid calls  summarizer calls so far this run that returned a summary: what a
              hosted model bills (extractive is free; the count shows what a
              model would have cost)
  details     per fold: the span's exact details (order numbers, amounts,
              ids, emails, phones, dates…) the summary holds, of those found;
              "N listed" counts the ones only the --keep-details line holds
  tokens      with --tokens: the recall's tokens (o200k_base), and "saved"
              counts tokens instead of characters
  saved       verbatim minus recall characters, where verbatim = the ${SETTINGS.loadLimit} newest
              ORIGINAL messages through the same budget picker: exactly what
              this pipeline would send with no summarize stage
The closing table adds the totals, the calls avoided by write-back (turns
whose recall used a stored summary and made no call) and the database counts.
`;

class UsageError extends Error {}

function parseOptions(argv) {
  let parsed;
  try {
    parsed = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        help: { type: 'boolean' },
        turns: { type: 'string' },
        db: { type: 'string' },
        reset: { type: 'boolean' },
        'max-summaries': { type: 'string' },
        'keep-details': { type: 'boolean' },
        tokens: { type: 'boolean' },
        json: { type: 'boolean' },
        llm: { type: 'string' },
        'base-url': { type: 'string' },
        model: { type: 'string' },
        'api-key-env': { type: 'string' },
        'timeout-ms': { type: 'string' },
        redis: { type: 'string' },
        processes: { type: 'string' },
        concurrency: { type: 'string' },
        'no-claims': { type: 'boolean' },
        'lease-ms': { type: 'string' },
        background: { type: 'boolean' },
        'llm-delay': { type: 'string' },
      },
    });
  } catch (error) {
    throw new UsageError(error.message);
  }
  const values = parsed.values;
  const llm = values.llm ?? 'extractive';
  if (llm !== 'extractive' && llm !== 'openai') throw new UsageError(`--llm must be extractive or openai; got "${llm}"`);
  if (llm === 'extractive') {
    for (const flag of ['base-url', 'model', 'api-key-env']) {
      if (values[flag] !== undefined) throw new UsageError(`--${flag} applies to --llm openai only`);
    }
  }
  if (values.redis !== undefined && values.db !== undefined) throw new UsageError('--db and --redis name two stores; pick one');
  if (values.redis !== undefined && !/^rediss?:\/\//.test(values.redis)) {
    throw new UsageError(`--redis must be a redis:// URL; got "${values.redis}"`);
  }
  if (values.processes !== undefined && values.tokens) throw new UsageError('--tokens applies to a single run, not --processes');
  if (values.processes !== undefined && values.background) throw new UsageError('--background applies to a single run, not --processes');
  if (values.processes === undefined) {
    for (const flag of ['concurrency', 'no-claims', 'lease-ms']) {
      if (values[flag] !== undefined) throw new UsageError(`--${flag} applies to --processes only`);
    }
  }
  return {
    help: values.help ?? false,
    turns: positiveInteger('--turns', values.turns ?? String(SCRIPTED_TURN_COUNT)),
    // The default lives in the repository whatever the working directory;
    // a path the user types is relative to where they typed it.
    dbPath: values.db === undefined ? resolve(REPO_ROOT, DEFAULT_DB) : resolve(values.db),
    reset: values.reset ?? false,
    redisUrl: values.redis,
    processes: values.processes === undefined ? undefined : positiveInteger('--processes', values.processes),
    concurrency: positiveInteger('--concurrency', values.concurrency ?? '1'),
    // Claims are for a fleet: on with --processes unless --no-claims.
    claims: values.processes !== undefined && !(values['no-claims'] ?? false),
    leaseMs: values['lease-ms'] === undefined ? undefined : positiveInteger('--lease-ms', values['lease-ms']),
    maxSummaries: values['max-summaries'] === undefined ? undefined : positiveInteger('--max-summaries', values['max-summaries']),
    keepDetails: values['keep-details'] ?? false,
    background: values.background ?? false,
    llmDelayMs: values['llm-delay'] === undefined ? undefined : positiveInteger('--llm-delay', values['llm-delay']),
    tokens: values.tokens ?? false,
    json: values.json ?? false,
    llm,
    baseUrl: (values['base-url'] ?? 'https://api.openai.com/v1').trim().replace(/\/+$/, ''),
    model: values.model ?? 'gpt-4o-mini',
    apiKeyEnv: values['api-key-env'] ?? 'OPENAI_API_KEY',
    timeoutMs:
      values['timeout-ms'] !== undefined
        ? positiveInteger('--timeout-ms', values['timeout-ms'])
        : llm === 'openai'
          ? SETTINGS.openAiTimeoutMs
          : undefined,
  };
}

/** --background: the folds that ended since they were last counted, as their own events say. */
function countBackgroundEnds(totals, payloads) {
  for (const { scoreEvidence: evidence } of payloads) {
    if (evidence.persisted) {
      totals.folds += 1;
      totals.detailsFound += evidence.detailsFound ?? 0;
      totals.detailsKept += evidence.detailsKept ?? 0;
      totals.detailsListed += evidence.detailsPinned ?? 0;
    }
    if (evidence.failed) totals.failedCalls += 1;
    if (evidence.usage) {
      totals.inputTokens += evidence.usage.input;
      totals.outputTokens += evidence.usage.output;
    }
  }
}

function positiveInteger(flag, text) {
  const value = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(value) || value < 1) {
    throw new UsageError(`${flag} must be a positive integer; got "${text}"`);
  }
  return value;
}

// ---------------------------------------------------------------------------
// The summarizer, counted
// ---------------------------------------------------------------------------

/**
 * The one line the CLI prints when the summarizer first fails, built from the
 * cause the stage reported, with the fix that cause calls for.
 */
function summarizerFailureLine(cause, options) {
  let advice = 'recall is served verbatim and the run goes on';
  if (/^HTTP (401|403)\b/.test(cause)) {
    advice = `check ${options.apiKeyEnv}${process.env[options.apiKeyEnv] ? '' : ' (it is not set)'}`;
  } else if (/^HTTP 404\b/.test(cause)) {
    advice = 'check --base-url (it should end before /chat/completions) and --model';
  } else if (/^cannot reach /.test(cause)) {
    advice = 'is the server running? check --base-url';
  } else if (/^timed out after \d+ ms/.test(cause)) {
    // The stage's own deadline message does not say where it was waiting.
    return `summarizer: ${cause} waiting for ${options.baseUrl} — raise --timeout-ms or check the server`;
  }
  return `summarizer: ${cause} — ${advice}`;
}

// ---------------------------------------------------------------------------
// Progress (stderr, only on a terminal)
// ---------------------------------------------------------------------------

function createProgress({ enabled, firstTurn, lastTurn }) {
  if (!enabled) return { show() {}, hide() {}, stop() {} };
  const frames = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];
  let frame = 0;
  let text = '';
  const draw = () => process.stderr.write(`\r\x1b[2K${frames[(frame += 1) % frames.length]} ${text}`);
  const timer = setInterval(() => text && draw(), 100);
  timer.unref();
  // The stage may console.warn mid-turn (once per run); clear the progress
  // line first so the warning starts on a clean line.
  const originalWarn = console.warn;
  console.warn = (...args) => {
    process.stderr.write('\r\x1b[2K');
    originalWarn(...args);
  };
  return {
    show(turn) {
      const done = turn - firstTurn;
      const total = lastTurn - firstTurn + 1;
      const width = 20;
      const filled = Math.round((done / total) * width);
      text = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] turn ${turn} of ${firstTurn}–${lastTurn}`;
      draw();
    },
    hide() {
      process.stderr.write('\r\x1b[2K');
    },
    stop() {
      clearInterval(timer);
      console.warn = originalWarn;
      text = '';
      process.stderr.write('\r\x1b[2K');
    },
  };
}

// ---------------------------------------------------------------------------
// One turn, measured
// ---------------------------------------------------------------------------

const number = (value) => value.toLocaleString('en-US');
const percent = (part, whole) => (whole === 0 ? 0 : Math.round((part / whole) * 100));

function turnNote(turnRecord) {
  if (turnRecord.folded.length > 0) {
    return turnRecord.folded
      .map(
        ({ fromTurn, toTurn, entryCount, summaryChars, details }) =>
          `folded turns ${fromTurn}–${toTurn} (${entryCount} msgs → ${number(summaryChars)} chars; ` +
          `details ${details.kept + details.pinned} of ${details.found} kept${details.pinned ? `, ${details.pinned} listed` : ''}` +
          `${details.dropped.length ? `, lost ${details.dropped.slice(0, 3).join(', ')}${details.droppedCount > 3 ? ', …' : ''}` : ''})`,
      )
      .join('; ');
  }
  if (turnRecord.summarizerFailed) return 'summarizer failed — recall served verbatim';
  // --background: the visit started (or found) the conversation's fold and did not wait.
  const background = turnRecord.events.find((event) => event.reason.startsWith('fold-in-background'));
  if (background) {
    return background.evidence.coalesced
      ? 'a fold is running in the background, no new call; recall served without it'
      : `fold started in the background${background.evidence.summarizerCalled ? ' (summarizer called)' : ''}; recall served without it`;
  }
  if (turnRecord.summaryRefused) return 'summary was not smaller — refused, span latched';
  if (turnRecord.summariesFromEarlierRuns.length > 0) {
    const count = turnRecord.summariesFromEarlierRuns.length;
    return `loaded ${count} ${count === 1 ? 'summary' : 'summaries'} from an earlier run, no call`;
  }
  if (turnRecord.storedSummariesInRecall.length > 0) {
    const count = turnRecord.storedSummariesInRecall.length;
    return `reused ${count} stored ${count === 1 ? 'summary' : 'summaries'}, no call`;
  }
  return '';
}

function turnLine(record) {
  const tokens = record.recallTokens !== undefined;
  return [
    `turn ${String(record.turn).padStart(3)}`,
    `recall ${String(record.recallEntries).padStart(2)} entries ${number(record.recallChars).padStart(6)} chars` +
      (tokens ? ` ${number(record.recallTokens).padStart(5)} tokens` : ''),
    `folds ${String(record.foldsSoFar).padStart(2)}`,
    `paid calls ${String(record.paidCallsSoFar).padStart(2)}`,
    record.stageMs === undefined ? '' : `stage ${record.stageMs.toFixed(1).padStart(7)} ms`,
    tokens
      ? `saved ${number(record.savedTokens).padStart(5)} tokens (${String(percent(record.savedTokens, record.verbatimTokens)).padStart(2)}%)`
      : `saved ${number(record.savedChars).padStart(6)} chars (${String(percent(record.savedChars, record.verbatimChars)).padStart(2)}%)`,
    turnNote(record),
  ]
    .filter(Boolean)
    .join('  ')
    .trimEnd();
}

/** The last turn's recall as the agent receives it, and the latest fold's reason. */
function recallBlock(turn, selected, lastFoldReason, summaryCoverage) {
  const clip = (text, width) => {
    const flat = String(text ?? '').replace(/\s+/g, ' ').trim();
    return flat.length > width ? `${flat.slice(0, width - 1)}…` : flat;
  };
  const lines = [`Recall sent on turn ${turn} (${selected.length} entries):`];
  for (const entry of selected) {
    const coverage = summaryCoverage(entry);
    if (coverage) {
      // The stored content is the package's label, a blank line, then the summary.
      const summary = entry.value.content.split('\n\n').slice(1).join(' ');
      lines.push(`  ${entry.id}  turns ${coverage.fromTurn}–${coverage.toTurn}, ${coverage.entryCount} messages: ${clip(summary, 70)}`);
    } else {
      lines.push(`  ${entry.id.padEnd(16)} ${entry.value.role}: ${clip(entry.value.content, 80)}`);
    }
  }
  if (lastFoldReason !== undefined) lines.push('', `Latest fold event: ${lastFoldReason}`);
  return lines.join('\n');
}

function summaryTable(rows) {
  const width = Math.max(...rows.map(([label]) => label.length));
  return rows.map(([label, value]) => `  ${label.padEnd(width)}  ${value}`).join('\n');
}

// ---------------------------------------------------------------------------
// The run: what earlier runs left, every turn, the closing table
// ---------------------------------------------------------------------------

/** What earlier runs left in the store, so this run can tell their spans from the ones it pays for. */
async function readEarlierRuns(store) {
  const stats = await store.stats(IDENTITY);
  const summaries = await store.listSummaries(IDENTITY);
  return {
    stats,
    summaryIds: new Set(summaries.map((entry) => entry.id)),
    coveredIds: new Set(summaries.flatMap((entry) => entry.metadata.summarizes.coveredIds)),
    firstTurn: (stats.lastTurn ?? 0) + 1,
  };
}

function printIntro(say, { options, summarizer, earlier, lastTurn, countTokens }) {
  const { stats, firstTurn } = earlier;
  say(`footprint-summarize demo: LoadRecent → summarize → PickByBudget → Format → WriteTurn on ${options.redisUrl === undefined ? 'SQLite' : 'Redis'}`);
  say(`  summarizer  ${summarizer.description}`);
  say(`  database    ${storeDescription(options)}`);
  say(
    firstTurn === 1
      ? `  playing     turns 1–${lastTurn} of a new conversation`
      : `  continuing  the database holds turns 1–${firstTurn - 1} (${number(stats.originals)} messages) and ` +
          `${stats.summaries} ${stats.summaries === 1 ? 'summary' : 'summaries'} from earlier runs; playing turns ${firstTurn}–${lastTurn}`,
  );
  say(`  verbatim    = the ${SETTINGS.loadLimit} newest original messages: what this pipeline sends without the stage`);
  if (countTokens) say(`  tokens      o200k_base (gpt-tokenizer), one counter for the stage and PickByBudget`);
  say('');
}

function emptyTotals() {
  return {
    recallChars: 0,
    verbatimChars: 0,
    folds: 0,
    callsAvoided: 0,
    failedCalls: 0,
    repaidEarlierIds: 0,
    inputTokens: 0,
    outputTokens: 0,
    detailsFound: 0,
    detailsKept: 0,
    detailsListed: 0,
    recallTokens: 0,
    verbatimTokens: 0,
  };
}

/**
 * Plays one turn through the pipeline. The verbatim baseline is read first,
 * so it is what this turn would have sent without the stage.
 */
async function playTurn({ store, demo, countTokens }, turn) {
  const originals = await store.listRecentOriginals(IDENTITY, SETTINGS.loadLimit);
  const verbatim = countTokens
    ? pickWithinBudget(originals, SETTINGS.budgetTokens, countTokens)
    : pickWithinBudget(originals, SETTINGS.budgetChars);
  const callsBefore = demo.summarizer.counts.started;
  const result = await runMemoryTurn(demo.pipeline, { identity: IDENTITY, turn, messages: turnMessages(turn) });
  const summarizerCalled = demo.summarizer.counts.started > callsBefore;
  return { result, verbatim, summarizerCalled, observed: readTurn(result) };
}

/** Adds one played turn to the run's totals; returns the turn's own measures. */
function addToTotals(totals, { result, verbatim, summarizerCalled, observed }, { earlier, demo, countTokens }) {
  totals.folds += observed.folds.length;
  for (const { details } of observed.folds) {
    totals.detailsFound += details.found;
    totals.detailsKept += details.kept;
    totals.detailsListed += details.pinned;
  }
  if (observed.failureCause !== undefined) totals.failedCalls += 1;
  countBackgroundEnds(totals, demo.backgroundEnds.splice(0));
  totals.repaidEarlierIds += observed.folds
    .flatMap(({ coverage }) => coverage.coveredIds)
    .filter((id) => earlier.coveredIds.has(id)).length;
  const callAvoidedByWriteBack = observed.storedSummaryIds.length > 0 && !summarizerCalled;
  if (callAvoidedByWriteBack) totals.callsAvoided += 1;

  const recallChars = contentChars(result.selected);
  const verbatimChars = contentChars(verbatim);
  for (const { scoreEvidence } of observed.events) {
    if (scoreEvidence?.usage) {
      totals.inputTokens += scoreEvidence.usage.input;
      totals.outputTokens += scoreEvidence.usage.output;
    }
  }
  totals.recallChars += recallChars;
  totals.verbatimChars += verbatimChars;
  const tokenCounts = countTokens && {
    recallTokens: contentTokens(result.selected, countTokens),
    verbatimTokens: contentTokens(verbatim, countTokens),
  };
  if (tokenCounts) {
    totals.recallTokens += tokenCounts.recallTokens;
    totals.verbatimTokens += tokenCounts.verbatimTokens;
  }
  return { recallChars, verbatimChars, tokenCounts, callAvoidedByWriteBack };
}

/** One turn as printed (turnLine) and as a --json record. */
function turnRecord(turn, played, measured, { options, demo, totals, fromEarlierRuns }) {
  const { result, verbatim, summarizerCalled, observed } = played;
  const { recallChars, verbatimChars, tokenCounts, callAvoidedByWriteBack } = measured;
  return {
    turn,
    recallEntries: result.selected.length,
    recallChars,
    recallIds: result.selected.map((entry) => entry.id),
    verbatimEntries: verbatim.length,
    verbatimChars,
    savedChars: verbatimChars - recallChars,
    ...(tokenCounts ? { ...tokenCounts, savedTokens: tokenCounts.verbatimTokens - tokenCounts.recallTokens } : {}),
    ...(options.background || options.llmDelayMs ? { stageMs: Number(demo.stageTime.lastMs.toFixed(1)) } : {}),
    foldsSoFar: totals.folds,
    paidCallsSoFar: demo.summarizer.counts.paid,
    failedCallsSoFar: totals.failedCalls,
    summarizerCalled,
    callAvoidedByWriteBack,
    summarizerFailed: observed.failureCause !== undefined,
    summaryRefused: observed.refused,
    folded: observed.folds.map(({ id, coverage, usage, details }) => ({
      id,
      fromTurn: coverage.fromTurn,
      toTurn: coverage.toTurn,
      entryCount: coverage.entryCount,
      summaryChars: result.recall.find((entry) => entry.id === id).value.content.length,
      details,
      ...(usage === undefined ? {} : { usage }),
    })),
    storedSummariesInRecall: observed.storedSummaryIds,
    summariesFromEarlierRuns: fromEarlierRuns,
    events: observed.events.map(({ reason, scoreEvidence }) => ({ reason, evidence: scoreEvidence })),
  };
}

/**
 * Plays turns firstTurn…lastTurn, printing each as it ends. Returns the run's
 * totals once every background fold has landed, and what the closing needs.
 */
async function playTurns({ options, store, demo, earlier, lastTurn, countTokens, out }) {
  const { firstTurn } = earlier;
  const totals = emptyTotals();
  const summariesLoadedFromEarlierRuns = new Set();
  let failureReported = false;
  let lastSelected = [];
  let lastFoldReason;
  const progress = createProgress({ enabled: Boolean(process.stderr.isTTY), firstTurn, lastTurn });

  for (let turn = firstTurn; turn <= lastTurn; turn += 1) {
    // The event loop turns between turns, as an agent's own model call
    // lets it: a background fold's timers and I/O run meanwhile.
    if (options.background) await new Promise((resolve) => setImmediate(resolve));
    progress.show(turn);
    const played = await playTurn({ store, demo, countTokens }, turn);
    const { result, observed } = played;

    const fromEarlierRuns = observed.storedSummaryIds.filter((id) => earlier.summaryIds.has(id));
    fromEarlierRuns.forEach((id) => summariesLoadedFromEarlierRuns.add(id));
    const measured = addToTotals(totals, played, { earlier, demo, countTokens });
    const record = turnRecord(turn, played, measured, { options, demo, totals, fromEarlierRuns });

    lastSelected = result.selected;
    lastFoldReason = observed.events.find((event) => event.reason.startsWith('folded'))?.reason ?? lastFoldReason;
    progress.hide();
    out(options.json ? JSON.stringify(record) : turnLine(record));
    if (observed.failureCause !== undefined && !failureReported) {
      failureReported = true;
      process.stderr.write(`${summarizerFailureLine(observed.failureCause, options)}\n`);
    }
  }
  progress.stop();
  await demo.stage.settled(); // background folds still running land before the counts
  countBackgroundEnds(totals, demo.backgroundEnds.splice(0));
  return { totals, summariesLoadedFromEarlierRuns, lastSelected, lastFoldReason };
}

/** The closing table's rows: the run's totals and what the store holds now. */
function closingRows({ options, demo, earlier, lastTurn, countTokens, run, after }) {
  const { totals, summariesLoadedFromEarlierRuns } = run;
  const { firstTurn } = earlier;
  const saved = totals.verbatimChars - totals.recallChars;
  const rows = [
    ['turns played', `${firstTurn}–${lastTurn} (${options.turns})`],
    ['folds (summaries written)', String(totals.folds)],
    ['paid summarizer calls', String(demo.summarizer.counts.paid)],
    ['failed summarizer calls', `${totals.failedCalls}${totals.failedCalls ? ' (those turns sent verbatim recall)' : ''}`],
    [
      'calls avoided by write-back',
      `${totals.callsAvoided} ${totals.callsAvoided === 1 ? 'turn' : 'turns'} used a stored summary and made no call`,
    ],
    [
      'exact details kept by folds',
      `${totals.detailsKept + totals.detailsListed} of ${totals.detailsFound} (${percent(totals.detailsKept + totals.detailsListed, totals.detailsFound)}%)` +
        (options.keepDetails
          ? `; ${totals.detailsListed} of them on the keepDetails line`
          : totals.detailsKept < totals.detailsFound
            ? '; --keep-details keeps the rest'
            : ''),
    ],
    ['chars sent (recall)', number(totals.recallChars)],
    ['chars verbatim', number(totals.verbatimChars)],
    ['chars saved', `${number(saved)} (${percent(saved, totals.verbatimChars)}%)`],
    ...(countTokens
      ? [
          ['tokens sent (recall, o200k_base)', number(totals.recallTokens)],
          ['tokens verbatim', number(totals.verbatimTokens)],
          [
            'tokens saved',
            `${number(totals.verbatimTokens - totals.recallTokens)} (${percent(totals.verbatimTokens - totals.recallTokens, totals.verbatimTokens)}%)`,
          ],
        ]
      : []),
    ['database', storeDescription(options)],
    ['originals in the database', `${number(after.originals)} messages`],
    ['summaries in the database', String(after.summaries)],
  ];
  if (options.llm === 'openai') {
    rows.splice(3, 0, [
      'tokens billed (from usage)',
      `${number(totals.inputTokens)} input, ${number(totals.outputTokens)} output`,
    ]);
  }
  if (firstTurn > 1) {
    rows.splice(rows.findIndex(([label]) => label === 'chars sent (recall)'), 0, [
      'spans from earlier runs',
      `${summariesLoadedFromEarlierRuns.size} loaded from the database, not paid again ` +
        `(messages re-summarized: ${totals.repaidEarlierIds})`,
    ]);
  }
  return rows;
}

/** The last recall, the closing table and, on a continued conversation, what earlier runs saved. */
function printClosing(say, { pkg, earlier, lastTurn, run, rows }) {
  const { summariesLoadedFromEarlierRuns } = run;
  say('');
  say(recallBlock(lastTurn, run.lastSelected, run.lastFoldReason, pkg.summaryCoverage));
  say('');
  say(summaryTable(rows));
  say('');
  if (earlier.firstTurn > 1) {
    say(
      `${summariesLoadedFromEarlierRuns.size} ${summariesLoadedFromEarlierRuns.size === 1 ? 'span' : 'spans'} ` +
        'folded in earlier runs were loaded from the database instead of paid again.',
    );
  }
  say(PLAYGROUND_LINE);
}

/** One run on an open store: `out` carries the turns, `say` the prose around them. */
async function playRun({ options, pkg, store, out, say }) {
  const earlier = await readEarlierRuns(store);
  const lastTurn = earlier.firstTurn + options.turns - 1;
  const countTokens = options.tokens ? await loadTokenCounter() : undefined;
  const demo = await buildDemo({ options, pkg, store, newestUpdatedAt: earlier.stats.newestUpdatedAt, countTokens });
  printIntro(say, { options, summarizer: demo.summarizer, earlier, lastTurn, countTokens });

  const run = await playTurns({ options, store, demo, earlier, lastTurn, countTokens, out });
  const after = await store.stats(IDENTITY);
  const rows = closingRows({ options, demo, earlier, lastTurn, countTokens, run, after });
  printClosing(say, { pkg, earlier, lastTurn, run, rows });
}

// ---------------------------------------------------------------------------
// Main
// ---------------------------------------------------------------------------

async function main(argv) {
  const options = parseOptions(argv);
  if (options.help) {
    process.stdout.write(HELP);
    return 0;
  }
  if (!existsSync(PACKAGE_ENTRY)) {
    process.stderr.write(`demo: ${PACKAGE_ENTRY} is missing — run bash examples/demo.sh, which builds the package first\n`);
    return 1;
  }
  const pkg = await import(pathToFileURL(PACKAGE_ENTRY).href);
  if (options.processes !== undefined) return runFleet(options);
  const out = (line) => process.stdout.write(`${line}\n`);
  // In --json mode stdout carries the records only; the prose goes to stderr.
  const say = options.json ? (line) => process.stderr.write(`${line}\n`) : out;

  if (options.reset) await resetStore(options);
  const store = await openStore(options);
  try {
    await playRun({ options, pkg, store, out, say });
    return 0;
  } finally {
    await store.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    if (error instanceof UsageError) {
      process.stderr.write(`demo: ${error.message}\nRun with --help for the options.\n`);
      process.exitCode = 2;
      return;
    }
    process.stderr.write(`demo: ${error?.stack ?? error}\n`);
    process.exitCode = 1;
  },
);
