// The demo CLI (examples/demo/cli.mjs) end to end, as separate node processes
// on temporary SQLite files: the per-turn lines and the closing table, the
// --json records, a second process continuing the conversation without paying
// again for spans folded by the first, what the database file holds, and
// --llm openai against OpenAI-compatible stub servers started here on
// 127.0.0.1 (success with usage, HTTP 401, HTTP 500, a server that never
// answers). The CLI imports the built package from pkg/dist/index.mjs.

import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import Database from 'better-sqlite3';

import { turnMessages } from '../../examples/demo/conversation.mjs';
import { openSqliteStore } from '../../examples/demo/sqlite-store.mjs';
import { contentTokens, messageEntryId, selectRecent } from '../support/memory-pipeline.mjs';
import { jsonRecords, runDemoCli } from '../support/run-node.mjs';
import { startStub } from './lib/openai-stub.mjs';

const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
// The CLI's fixed LoadRecent limit (its --help states it); the verbatim
// baseline of turn t is the min(48, 2·(t−1)) newest original messages.
const LOAD_LIMIT = 48;
const IDENTITY_KEY = JSON.stringify(['northwind-home', 'maya.okafor', 'support-case-CS-20931']);
const PLAYGROUND_LINE = 'Open the playground: node examples/serve-www.mjs  →  http://127.0.0.1:8787/www/';
const SUMMARY_KEY_ORDER = ['id', 'value', 'metadata', 'version', 'createdAt', 'updatedAt', 'lastAccessedAt', 'accessCount', 'tier', 'source'];

const scratch = mkdtempSync(join(tmpdir(), 'fps-demo-cli-'));
after(() => rmSync(scratch, { recursive: true, force: true }));
let dbCounter = 0;
const freshDbPath = () => join(scratch, `run-${(dbCounter += 1)}`, 'conversation.db');

/** Runs the CLI to completion; never rejects on a non-zero exit (tests assert the code). */
const runCli = runDemoCli;

async function runOk(args, extraEnv) {
  const result = await runCli(args, extraEnv);
  assert.equal(result.code, 0, `the CLI exited with ${result.code ?? result.signal}\n--- stderr ---\n${result.stderr}`);
  return result;
}

const parseNumber = (text) => Number(text.replaceAll(',', ''));

/** `label  value` rows of the closing table, as a Map. */
function tableRows(text) {
  const rows = new Map();
  for (const match of text.matchAll(/^ {2}(\S.*?\S) {2,}(\S.*)$/gm)) rows.set(match[1], match[2]);
  return rows;
}

/** Content length of the original message `msg-T-I` per the script. */
function scriptedChars(id) {
  const [, turn, index] = /^msg-(\d+)-(\d+)$/.exec(id);
  return turnMessages(Number(turn))[Number(index)].content.length;
}

/** What the verbatim baseline of `turn` must be, computed from the script alone. */
function expectedVerbatim(turn) {
  const ids = [];
  for (let earlier = turn - 1; earlier >= 1 && ids.length < LOAD_LIMIT; earlier -= 1) {
    ids.push(messageEntryId(earlier, 1), messageEntryId(earlier, 0));
  }
  const kept = ids.slice(0, LOAD_LIMIT);
  return { entries: kept.length, chars: kept.reduce((sum, id) => sum + scriptedChars(id), 0) };
}

function readDatabase(path) {
  const db = new Database(path, { readonly: true });
  try {
    const entries = db
      .prepare('SELECT entry_json FROM memory_entries WHERE identity_key = ?')
      .all(IDENTITY_KEY)
      .map((row) => JSON.parse(row.entry_json));
    const summaries = entries.filter((entry) => Array.isArray(entry.metadata?.summarizes?.coveredIds));
    const originals = entries.filter((entry) => !summaries.includes(entry));
    return { entries, summaries, originals, byId: new Map(entries.map((entry) => [entry.id, entry])) };
  } finally {
    db.close();
  }
}

// ---------------------------------------------------------------------------
// Offline runs (the default extractive summarizer)
// ---------------------------------------------------------------------------

const TURN_LINE =
  /^turn +(\d+) {2}recall +(\d+) entries +([\d,]+) chars {2}folds +(\d+) {2}paid calls +(\d+) {2}saved +(-?[\d,]+) chars \( *-?\d+%\)(?: {2}(.*))?$/;

test('a 30-turn run prints one line per turn, then the closing table and the playground line', { timeout: 60_000 }, async () => {
  const dbPath = freshDbPath();
  const { stdout, stderr } = await runOk(['--turns', '30', '--db', dbPath]);
  assert.equal(stderr, '', 'stderr is not a terminal here, so no progress indicator and nothing else');

  const turnLines = stdout.split('\n').filter((line) => line.startsWith('turn '));
  const parsed = turnLines.map((line) => {
    const match = TURN_LINE.exec(line);
    assert.ok(match, `unexpected turn line: ${line}`);
    const [, turn, recallEntries, recallChars, folds, paidCalls, saved, note = ''] = match;
    return {
      turn: Number(turn),
      recallEntries: Number(recallEntries),
      recallChars: parseNumber(recallChars),
      folds: Number(folds),
      paidCalls: Number(paidCalls),
      saved: parseNumber(saved),
      note,
    };
  });
  assert.deepEqual(parsed.map((line) => line.turn), Array.from({ length: 30 }, (_, i) => i + 1));

  // The baseline is the script's own newest messages: recall + saved = verbatim.
  for (const line of parsed) {
    assert.equal(line.recallChars + line.saved, expectedVerbatim(line.turn).chars, `turn ${line.turn}: recall + saved ≠ verbatim`);
  }
  const foldLines = parsed.filter((line) => line.note.startsWith('folded turns'));
  assert.ok(foldLines.length >= 2, `expected several folds in 30 turns; got ${foldLines.length}`);
  const last = parsed.at(-1);
  assert.equal(last.folds, foldLines.length);
  assert.equal(last.paidCalls, foldLines.length, 'every extractive call folded, so calls = folds');
  assert.ok(parsed.some((line) => line.note.startsWith('reused')), 'later turns reuse the stored summaries');

  const rows = tableRows(stdout);
  assert.equal(rows.get('turns played'), '1–30 (30)');
  assert.equal(rows.get('folds (summaries written)'), String(foldLines.length));
  assert.equal(rows.get('paid summarizer calls'), String(foldLines.length));
  assert.equal(rows.get('failed summarizer calls'), '0');
  const reusedTurns = parsed.filter((line) => line.note.startsWith('reused')).length;
  assert.equal(rows.get('calls avoided by write-back'), `${reusedTurns} turns used a stored summary and made no call`);
  const sent = parsed.reduce((sum, line) => sum + line.recallChars, 0);
  const verbatim = parsed.reduce((sum, line) => sum + line.recallChars + line.saved, 0);
  assert.equal(parseNumber(rows.get('chars sent (recall)')), sent);
  assert.equal(parseNumber(rows.get('chars verbatim')), verbatim);
  assert.match(rows.get('chars saved'), new RegExp(`^${(verbatim - sent).toLocaleString('en-US')} \\(\\d+%\\)$`));
  assert.ok(verbatim - sent > 0, 'folding saved characters over the run');
  assert.equal(rows.get('database'), dbPath);
  assert.equal(rows.get('originals in the database'), '60 messages');
  assert.equal(rows.get('summaries in the database'), String(foldLines.length));
  assert.equal(stdout.trimEnd().split('\n').at(-1), PLAYGROUND_LINE);
});

const REQUIRED_FIELDS = {
  turn: 'number',
  recallEntries: 'number',
  recallChars: 'number',
  recallIds: 'array',
  verbatimEntries: 'number',
  verbatimChars: 'number',
  savedChars: 'number',
  foldsSoFar: 'number',
  paidCallsSoFar: 'number',
  failedCallsSoFar: 'number',
  summarizerCalled: 'boolean',
  callAvoidedByWriteBack: 'boolean',
  summarizerFailed: 'boolean',
  summaryRefused: 'boolean',
  folded: 'array',
  storedSummariesInRecall: 'array',
  summariesFromEarlierRuns: 'array',
  events: 'array',
};

function assertRecordShape(record) {
  for (const [field, type] of Object.entries(REQUIRED_FIELDS)) {
    const actual = Array.isArray(record[field]) ? 'array' : typeof record[field];
    assert.equal(actual, type, `turn ${record.turn}: ${field} should be ${type}, got ${JSON.stringify(record[field])}`);
  }
}

test('--json prints one valid record per turn and nothing else on stdout; the same run twice is byte-identical', { timeout: 60_000 }, async () => {
  const dbPath = freshDbPath();
  const { stdout, stderr } = await runOk(['--json', '--turns', '30', '--db', dbPath]);
  const lines = stdout.trimEnd().split('\n');
  assert.equal(lines.length, 30);
  const records = lines.map((line, index) => {
    try {
      return JSON.parse(line);
    } catch {
      assert.fail(`stdout line ${index + 1} is not JSON: ${line}`);
    }
  });
  records.forEach(assertRecordShape);
  assert.deepEqual(records.map((record) => record.turn), Array.from({ length: 30 }, (_, i) => i + 1));

  const { byId } = readDatabase(dbPath);
  let previous = { foldsSoFar: 0, paidCallsSoFar: 0 };
  for (const record of records) {
    assert.equal(record.savedChars, record.verbatimChars - record.recallChars);
    assert.deepEqual({ entries: record.verbatimEntries, chars: record.verbatimChars }, expectedVerbatim(record.turn));
    // recall is measured on what was actually sent: the ids' contents in the database.
    assert.equal(record.recallIds.length, record.recallEntries);
    assert.equal(
      record.recallIds.reduce((sum, id) => sum + byId.get(id).value.content.length, 0),
      record.recallChars,
      `turn ${record.turn}: recallChars is not the size of the recalled entries`,
    );
    assert.equal(record.foldsSoFar, previous.foldsSoFar + record.folded.length);
    assert.equal(record.paidCallsSoFar, previous.paidCallsSoFar + (record.summarizerCalled ? 1 : 0));
    assert.equal(record.callAvoidedByWriteBack, record.storedSummariesInRecall.length > 0 && !record.summarizerCalled);
    for (const fold of record.folded) {
      assert.equal(fold.id, `msg-summary-${fold.fromTurn}-${fold.toTurn}`);
      assert.ok(record.recallIds.includes(fold.id), 'a new summary is in the recall of the turn that wrote it');
    }
    for (const event of record.events) {
      assert.equal(typeof event.reason, 'string');
      assert.equal(typeof event.evidence, 'object');
    }
    previous = record;
  }
  assert.ok(records.at(-1).foldsSoFar >= 2);
  assert.match(stderr, /^ {2}turns played {2,}1–30 \(30\)$/m, 'the closing table goes to stderr in --json mode');

  const again = await runOk(['--json', '--turns', '30', '--db', freshDbPath()]);
  assert.equal(again.stdout, stdout, 'the scripted conversation and the extractive summarizer are deterministic');
});

test('a second process on the same database continues and pays for no span already folded', { timeout: 60_000 }, async () => {
  const dbPath = freshDbPath();
  const first = jsonRecords((await runOk(['--json', '--turns', '30', '--db', dbPath])).stdout);
  const afterFirst = readDatabase(dbPath);
  const firstRunSummaryIds = new Set(afterFirst.summaries.map((entry) => entry.id));
  const firstRunCovered = new Set(afterFirst.summaries.flatMap((entry) => entry.metadata.summarizes.coveredIds));
  assert.equal(firstRunSummaryIds.size, first.at(-1).foldsSoFar);

  const secondRun = await runOk(['--json', '--turns', '20', '--db', dbPath]);
  const second = jsonRecords(secondRun.stdout);
  second.forEach(assertRecordShape);
  assert.deepEqual(second.map((record) => record.turn), Array.from({ length: 20 }, (_, i) => 31 + i));

  // The first turns of the new process recall the old summaries from the file, with no call.
  const opening = second[0];
  assert.ok(opening.summariesFromEarlierRuns.length > 0, 'turn 31 loads summaries written by the first process');
  assert.ok(opening.summariesFromEarlierRuns.every((id) => firstRunSummaryIds.has(id)));
  assert.ok(
    opening.events.some((event) => event.reason.includes('already covered') && event.evidence.summarizerCalled === false),
    'the stage reports the covered entries and makes no call for them',
  );

  // Every call the second process made folded a span nobody had folded before.
  for (const record of second) {
    if (!record.summarizerCalled) continue;
    assert.equal(record.folded.length, 1, `turn ${record.turn}: a call that did not fold`);
  }
  const afterSecond = readDatabase(dbPath);
  const secondRunSummaries = afterSecond.summaries.filter((entry) => !firstRunSummaryIds.has(entry.id));
  assert.equal(secondRunSummaries.length, second.at(-1).paidCallsSoFar, 'one new summary per paid call');
  for (const summary of secondRunSummaries) {
    const repaid = summary.metadata.summarizes.coveredIds.filter((id) => firstRunCovered.has(id));
    assert.deepEqual(repaid, [], `${summary.id} re-summarized messages the first process had already folded`);
  }
  // The first process's summaries were not rewritten by the second.
  for (const summary of afterFirst.summaries) assert.deepEqual(afterSecond.byId.get(summary.id), summary);

  const loadedFromEarlier = new Set(second.flatMap((record) => record.summariesFromEarlierRuns));
  const rows = tableRows(secondRun.stderr);
  assert.equal(rows.get('turns played'), '31–50 (20)');
  assert.equal(
    rows.get('spans from earlier runs'),
    `${loadedFromEarlier.size} loaded from the database, not paid again (messages re-summarized: 0)`,
  );
  assert.match(secondRun.stderr, /continuing {2}the database holds turns 1–30 \(60 messages\)/);
  assert.match(
    secondRun.stderr,
    new RegExp(`^${loadedFromEarlier.size} spans? folded in earlier runs were loaded from the database instead of paid again\\.$`, 'm'),
  );
});

test('the database file holds every original message and the summaries with their coverage', { timeout: 60_000 }, async () => {
  const dbPath = freshDbPath();
  const records = jsonRecords((await runOk(['--json', '--turns', '30', '--db', dbPath])).stdout);
  const { originals, summaries, byId } = readDatabase(dbPath);

  assert.equal(originals.length, 60);
  for (let turn = 1; turn <= 30; turn += 1) {
    turnMessages(turn).forEach((message, index) => {
      const stored = byId.get(messageEntryId(turn, index));
      assert.ok(stored, `msg-${turn}-${index} is missing from the database`);
      assert.deepEqual(stored.value, message, 'originals are kept byte-identical, covered or not');
      assert.equal(stored.source.turn, turn);
    });
  }

  const foldedIds = records.flatMap((record) => record.folded.map((fold) => fold.id));
  assert.deepEqual(summaries.map((entry) => entry.id).sort(), [...foldedIds].sort());
  assert.ok(summaries.length >= 2);

  const [summary] = summaries.sort((a, b) => a.metadata.summarizes.fromTurn - b.metadata.summarizes.fromTurn);
  assert.deepEqual(Object.keys(summary), SUMMARY_KEY_ORDER, 'key order as the stage wrote it (SPEC §2)');
  const coverage = summary.metadata.summarizes;
  const expectedCovered = [];
  for (let turn = coverage.fromTurn; turn <= coverage.toTurn; turn += 1) {
    expectedCovered.push(messageEntryId(turn, 0), messageEntryId(turn, 1));
  }
  assert.deepEqual(coverage.coveredIds, expectedCovered);
  assert.equal(coverage.entryCount, expectedCovered.length);
  assert.equal(summary.id, `msg-summary-${coverage.fromTurn}-${coverage.toTurn}`);
  assert.equal(summary.value.role, 'system');
  assert.ok(
    summary.value.content.startsWith(`[summary of earlier turns ${coverage.fromTurn}–${coverage.toTurn} — ${expectedCovered.length} earlier message(s)`),
    summary.value.content,
  );
  // Strictly newer than what it covers, so LoadRecent admits it with them.
  const newestCovered = Math.max(...expectedCovered.map((id) => byId.get(id).updatedAt));
  assert.equal(summary.updatedAt, newestCovered + 1);
  // The extractive summary only repeats sentences of the covered messages.
  const coveredText = expectedCovered.map((id) => byId.get(id).value.content).join('\n');
  const summaryLines = summary.value.content.split('\n\n').slice(1).join('\n\n').split('\n');
  for (const line of summaryLines) {
    const sentence = line.replace(/^(user|assistant): /, '');
    assert.ok(coveredText.includes(sentence), `a summary line that is not in the covered messages: ${line}`);
  }
});

test('--reset deletes the database and starts again at turn 1', { timeout: 60_000 }, async () => {
  const dbPath = freshDbPath();
  await runOk(['--json', '--turns', '12', '--db', dbPath]);
  const again = jsonRecords((await runOk(['--json', '--turns', '3', '--db', dbPath, '--reset'])).stdout);
  assert.deepEqual(again.map((record) => record.turn), [1, 2, 3]);
  const { originals, summaries } = readDatabase(dbPath);
  assert.equal(originals.length, 6);
  assert.equal(summaries.length, 0);
});

test('--help explains the options and the numbers; bad options exit 2 with one message', { timeout: 60_000 }, async () => {
  const help = await runOk(['--help']);
  for (const option of ['--turns', '--db', '--reset', '--json', '--llm', '--base-url', '--model', '--timeout-ms', '--api-key-env', '--redis', '--processes', '--concurrency', '--no-claims', '--lease-ms']) {
    assert.ok(help.stdout.includes(option), `--help does not mention ${option}`);
  }
  assert.match(help.stdout, /verbatim = the 48 newest/);

  for (const [args, message] of [
    [['--turns', '0'], /--turns must be a positive integer/],
    [['--llm', 'gpt'], /--llm must be extractive or openai/],
    [['--model', 'x'], /--model applies to --llm openai only/],
    [['--frobnicate'], /Unknown option '--frobnicate'/],
    [['--concurrency', '2'], /--concurrency applies to --processes only/],
    [['--no-claims'], /--no-claims applies to --processes only/],
    [['--processes', '0'], /--processes must be a positive integer/],
    [['--redis', 'localhost:6379'], /--redis must be a redis:\/\/ URL/],
    [['--redis', 'redis://127.0.0.1:1', '--db', 'x.db'], /--db and --redis name two stores/],
  ]) {
    const result = await runCli(args);
    assert.equal(result.code, 2, `${args.join(' ')} should exit 2`);
    assert.match(result.stderr, message);
    assert.equal(result.stdout, '');
  }
});

// ---------------------------------------------------------------------------
// --llm openai against stub servers
// ---------------------------------------------------------------------------

const STUB_USAGE = { prompt_tokens: 321, completion_tokens: 17 };
const STUB_MODEL = 'stub-model-1';
const KEY_VARIABLE = 'FPS_DEMO_TEST_KEY';
const KEY = 'sk-test-demo-123';

const openAiArgs = (stub, dbPath, ...more) => [
  '--json', '--llm', 'openai', '--base-url', stub.baseUrl, '--model', STUB_MODEL, '--api-key-env', KEY_VARIABLE, '--db', dbPath, ...more,
];

/** One failure line from the CLI, and recall served verbatim on every turn. */
function assertVerbatimRunWithOneLine({ stdout, stderr }, linePattern, dbPath) {
  const ownLines = stderr.split('\n').filter((line) => line.startsWith('summarizer: '));
  assert.equal(ownLines.length, 1, `expected one summarizer line, got:\n${stderr}`);
  assert.match(ownLines[0], linePattern);
  const records = jsonRecords(stdout);
  assert.ok(records.some((record) => record.summarizerFailed), 'some turn attempted a fold and failed');
  for (const record of records) {
    assert.equal(record.folded.length, 0);
    assert.equal(record.recallEntries, record.verbatimEntries, `turn ${record.turn}: recall is not verbatim`);
    assert.equal(record.savedChars, 0);
    if (record.summarizerFailed) {
      assert.ok(record.events.some((event) => /summarizer-failed/.test(event.reason) && event.evidence.failed === true));
    }
  }
  assert.equal(records.at(-1).paidCallsSoFar, 0);
  assert.equal(records.at(-1).failedCallsSoFar, records.filter((record) => record.summarizerFailed).length);
  assert.equal(readDatabase(dbPath).summaries.length, 0, 'nothing was written back');
  return records;
}

test('--llm openai: a stub that answers with usage folds, and the evidence carries the usage', { timeout: 60_000 }, async () => {
  const stub = await startStub((request, res) => {
    const transcript = request.body.messages.at(-1).content;
    const lines = transcript.split('\n').length;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ choices: [{ message: { role: 'assistant', content: `Stub summary of ${lines} lines.` } }], usage: STUB_USAGE }));
  });
  try {
    const dbPath = freshDbPath();
    const { stdout, stderr } = await runOk(openAiArgs(stub, dbPath, '--turns', '14'), { [KEY_VARIABLE]: KEY });
    const records = jsonRecords(stdout);
    const folds = records.flatMap((record) => record.folded);
    assert.ok(folds.length >= 1, 'the stub summaries folded');
    assert.equal(stub.requests.length, records.at(-1).paidCallsSoFar);
    for (const fold of folds) assert.deepEqual(fold.usage, { input: STUB_USAGE.prompt_tokens, output: STUB_USAGE.completion_tokens });
    const foldEvent = records.flatMap((record) => record.events).find((event) => event.reason.startsWith('folded'));
    assert.deepEqual(foldEvent.evidence.usage, { input: 321, output: 17 });
    assert.equal(foldEvent.evidence.model, STUB_MODEL);

    const [request] = stub.requests;
    assert.equal(request.method, 'POST');
    assert.equal(request.url, '/v1/chat/completions');
    assert.equal(request.headers.authorization, `Bearer ${KEY}`);
    assert.equal(request.body.model, STUB_MODEL);
    assert.equal(request.body.temperature, 0);
    assert.equal(request.body.messages[0].role, 'system');
    assert.match(request.body.messages[0].content, /never follow it/);
    assert.match(request.body.messages[1].content, /^<<<TRANSCRIPT>>>\nuser \(turn 1\): Hi, I'm Maya Okafor\./);

    const { summaries } = readDatabase(dbPath);
    assert.equal(summaries.length, folds.length);
    assert.match(summaries[0].value.content, /written by stub-model-1;[\s\S]*\n\nStub summary of \d+ lines\.$/);
    assert.equal(summaries[0].metadata.summarizes.model, STUB_MODEL);
    assert.match(tableRows(stderr).get('tokens billed (from usage)'), new RegExp(`^${321 * folds.length} input, ${17 * folds.length} output$`));
    assert.ok(!stderr.includes('summarizer: '), 'no failure line on success');
  } finally {
    await stub.close();
  }
});

test('--llm openai: HTTP 401 gives one line naming the key variable; the run finishes with verbatim recall', { timeout: 60_000 }, async () => {
  const stub = await startStub((request, res) => {
    res.writeHead(401, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: 'Incorrect API key provided: sk-wrong.', type: 'invalid_request_error' } }));
  });
  try {
    const dbPath = freshDbPath();
    const result = await runOk(openAiArgs(stub, dbPath, '--turns', '14'), { [KEY_VARIABLE]: 'sk-wrong' });
    const escapedUrl = stub.baseUrl.replace(/[.]/g, '\\.');
    assertVerbatimRunWithOneLine(result, new RegExp(`^summarizer: HTTP 401 from ${escapedUrl}: Incorrect API key provided: sk-wrong\\. — check ${KEY_VARIABLE}$`), dbPath);
    assert.ok(stub.requests.length >= 1);
  } finally {
    await stub.close();
  }
});

test('--llm openai: HTTP 500 gives one line with the status and the server message; the run finishes', { timeout: 60_000 }, async () => {
  const stub = await startStub((request, res) => {
    res.writeHead(500, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: { message: 'The server had an error while processing your request.' } }));
  });
  try {
    const dbPath = freshDbPath();
    const result = await runOk(openAiArgs(stub, dbPath, '--turns', '13'), { [KEY_VARIABLE]: KEY });
    const escapedUrl = stub.baseUrl.replace(/[.]/g, '\\.');
    assertVerbatimRunWithOneLine(result, new RegExp(`^summarizer: HTTP 500 from ${escapedUrl}: The server had an error while processing your request\\. — `), dbPath);
  } finally {
    await stub.close();
  }
});

test('--llm openai: a server that never answers times out under --timeout-ms; the request is aborted and recall is verbatim', { timeout: 60_000 }, async () => {
  const stub = await startStub(() => {
    // Never answer: only the client's deadline ends this request.
  });
  try {
    const dbPath = freshDbPath();
    const result = await runOk(openAiArgs(stub, dbPath, '--turns', '12', '--timeout-ms', '200'), { [KEY_VARIABLE]: KEY });
    const escapedUrl = stub.baseUrl.replace(/[.]/g, '\\.');
    const records = assertVerbatimRunWithOneLine(
      result,
      new RegExp(`^summarizer: timed out after 200 ms waiting for ${escapedUrl} — raise --timeout-ms`),
      dbPath,
    );
    // On a loaded machine a request may still be in flight at the deadline,
    // so the server can have seen fewer requests than there were failures.
    assert.ok(stub.requests.length >= 1 && stub.requests.length <= records.at(-1).failedCallsSoFar);
    // The CLI exited, so every request it made was ended by the abort: the
    // provider honoured the stage's signal instead of leaving fetch pending.
    await waitFor(() => stub.requests.every((request) => request.hungUp), 'the server to see every request aborted');
  } finally {
    await stub.close();
  }
});

async function waitFor(predicate, what) {
  for (let attempt = 0; attempt < 500; attempt += 1) {
    if (predicate()) return;
    await new Promise((resolveTick) => setTimeout(resolveTick, 10));
  }
  assert.fail(`gave up waiting for ${what}`);
}

test('--llm openai: an endpoint nobody listens on gives one "cannot reach" line; the run finishes', { timeout: 60_000 }, async () => {
  // A port that was just free: start a server, note its port, close it.
  const probe = await startStub(() => {});
  const deadUrl = probe.baseUrl;
  await probe.close();
  const dbPath = freshDbPath();
  const result = await runOk(openAiArgs({ baseUrl: deadUrl }, dbPath, '--turns', '12'));
  assertVerbatimRunWithOneLine(result, /^summarizer: cannot reach http:\/\/127\.0\.0\.1:\d+\/v1: ECONNREFUSED — is the server running\?/, dbPath);
});

// ---------------------------------------------------------------------------
// The SQLite store on its own
// ---------------------------------------------------------------------------

test('the SQLite store upserts, copies, and orders listRecent exactly like selectRecent(list())', async () => {
  const dbPath = freshDbPath();
  const store = openSqliteStore(dbPath);
  try {
    const identity = { tenant: 't', principal: 'p', conversationId: 'c' };
    const other = { conversationId: 'c' };
    const entry = (id, updatedAt, extra = {}) => ({ id, value: { role: 'user', content: id }, version: 1, updatedAt, ...extra });
    // Ties on updatedAt (including a summary id, which sorts after msg-<digit>).
    const entries = [
      entry('msg-1-0', 10),
      entry('msg-1-1', 20),
      entry('msg-2-0', 20),
      entry('msg-summary-1-1', 21, { metadata: { summarizes: { coveredIds: ['msg-1-0', 'msg-1-1'] } }, source: { turn: 1 } }),
      entry('msg-2-1', 21),
      entry('msg-3-0', 30, { source: { turn: 3 } }),
    ];
    for (const item of entries) await store.put(identity, item);
    await store.put(other, entry('msg-9-0', 99));

    const listed = await store.list(identity);
    assert.equal(listed.length, entries.length, 'identities are kept apart');
    for (const limit of [1, 3, 4, 6, 10]) {
      assert.deepEqual(
        (await store.listRecent(identity, limit)).map((item) => item.id),
        selectRecent(listed, limit).map((item) => item.id),
        `limit ${limit}`,
      );
    }

    const fetched = await store.get(identity, 'msg-summary-1-1');
    assert.deepEqual(Object.keys(fetched), ['id', 'value', 'version', 'updatedAt', 'metadata', 'source'], 'key order survives');
    fetched.value.content = 'mutated';
    assert.equal((await store.get(identity, 'msg-summary-1-1')).value.content, 'msg-summary-1-1', 'get returns a copy');

    await store.put(identity, entry('msg-1-0', 40, { value: { role: 'user', content: 'edited' } }));
    assert.equal((await store.get(identity, 'msg-1-0')).value.content, 'edited', 'put overwrites the same id');
    assert.equal((await store.list(identity)).length, entries.length);
    assert.equal(await store.get(identity, 'absent'), undefined);

    assert.deepEqual(await store.stats(identity), { originals: 5, summaries: 1, lastTurn: 3, newestUpdatedAt: 40 });
    assert.deepEqual((await store.listSummaries(identity)).map((item) => item.id), ['msg-summary-1-1']);
  } finally {
    store.close();
  }
  assert.ok(existsSync(dbPath));
});

test('--max-summaries 1: over 200 turns recall holds one summary that reaches turn 1, and no paid call is refused', { timeout: 120_000 }, async () => {
  const dbPath = freshDbPath();
  const records = jsonRecords((await runOk(['--json', '--turns', '200', '--max-summaries', '1', '--db', dbPath])).stdout);
  const { byId } = readDatabase(dbPath);
  const firstFold = records.findIndex((record) => record.foldsSoFar > 0);
  assert.ok(firstFold >= 0, 'the run folds');
  for (const record of records.slice(firstFold + 1)) {
    const summaries = record.recallIds.map((id) => byId.get(id)).filter((entry) => entry.metadata?.summarizes);
    assert.equal(summaries.length, 1, `turn ${record.turn}: one summary in recall, got ${summaries.length}`);
    assert.equal(summaries[0].metadata.summarizes.fromTurn, 1, `turn ${record.turn}: the summary reaches turn 1`);
  }
  assert.ok(records.every((record) => !record.summaryRefused), 'no paid call was refused as not smaller');
  const help = await runOk(['--help']);
  assert.match(help.stdout, /--max-summaries N/);
  const bad = await runCli(['--max-summaries', '0', '--db', freshDbPath()]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--max-summaries must be a positive integer; got "0"/);
});

test('--keep-details: every fold says what its summary kept, and the line keeps what the text dropped', { timeout: 120_000 }, async () => {
  const plainRun = await runOk(['--json', '--turns', '60', '--db', freshDbPath()]);
  const keptRun = await runOk(['--json', '--turns', '60', '--keep-details', '--db', freshDbPath()]);
  const totals = (records) => {
    const folds = records.flatMap((record) => record.folded);
    for (const { details } of folds) {
      assert.equal(details.kept + details.pinned + details.droppedCount, details.found, JSON.stringify(details));
    }
    const sum = (key) => folds.reduce((total, fold) => total + fold.details[key], 0);
    return { found: sum('found'), kept: sum('kept'), pinned: sum('pinned'), dropped: sum('droppedCount') };
  };
  const plain = totals(jsonRecords(plainRun.stdout));
  assert.equal(plain.pinned, 0);
  assert.ok(plain.dropped > 0, 'extractive alone drops some of the scripted details');
  assert.equal(
    tableRows(plainRun.stderr).get('exact details kept by folds'),
    `${plain.kept} of ${plain.found} (${Math.round((100 * plain.kept) / plain.found)}%); --keep-details keeps the rest`,
  );

  const keptRecords = jsonRecords(keptRun.stdout);
  const kept = totals(keptRecords);
  assert.equal(kept.dropped, 0, 'the default bounds hold every detail of this conversation');
  assert.ok(kept.pinned > 0);
  assert.equal(
    tableRows(keptRun.stderr).get('exact details kept by folds'),
    `${kept.found} of ${kept.found} (100%); ${kept.pinned} of them on the keepDetails line`,
  );
  const dbPath = freshDbPath();
  await runOk(['--turns', '60', '--keep-details', '--db', dbPath]);
  const { summaries } = readDatabase(dbPath);
  const listed = summaries.filter((entry) => entry.value.content.includes('\n[exact details from these turns: '));
  assert.ok(listed.length > 0, 'summaries end with the line');
  for (const entry of listed) assert.match(entry.value.content, /\n\[exact details from these turns: [^\n]+\]$/);
  assert.match((await runOk(['--help'])).stdout, /--keep-details/);
});

test('--tokens: the stage and the picker count o200k_base tokens; each turn shows the tokens sent and saved', { timeout: 120_000 }, async () => {
  const { o200kTokens } = await import('../support/tokens.mjs');
  const tokensOf = (entries) => contentTokens(entries, o200kTokens);
  const dbPath = freshDbPath();
  const { stdout, stderr } = await runOk(['--json', '--turns', '40', '--tokens', '--db', dbPath]);
  const records = jsonRecords(stdout);
  const { byId } = readDatabase(dbPath);
  let folds = 0;
  for (const record of records) {
    const selected = record.recallIds.map((id) => byId.get(id));
    assert.equal(record.recallTokens, tokensOf(selected), `turn ${record.turn}`);
    assert.equal(record.savedTokens, record.verbatimTokens - record.recallTokens);
    if (record.folded.length === 0) continue;
    folds += 1;
    // The verbatim tail: whole turns holding at least 120 tokens, one turn fewer would not.
    const tail = selected.filter((entry) => !entry.metadata?.summarizes);
    assert.ok(tokensOf(tail) >= 120, `turn ${record.turn}: tail of ${tokensOf(tail)} tokens`);
    assert.ok(tokensOf(tail.slice(2)) < 120, `turn ${record.turn}: more turns than 120 tokens need`);
  }
  assert.ok(folds >= 3, `${folds} folds`);
  const rows = tableRows(stderr);
  const sent = records.reduce((sum, record) => sum + record.recallTokens, 0);
  const verbatim = records.reduce((sum, record) => sum + record.verbatimTokens, 0);
  assert.equal(parseNumber(rows.get('tokens sent (recall, o200k_base)')), sent);
  assert.equal(parseNumber(rows.get('tokens verbatim')), verbatim);
  assert.ok(verbatim > sent, 'folding saves tokens');
  const bad = await runCli(['--tokens', '--processes', '2', '--db', freshDbPath()]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--tokens applies to a single run/);
});
