// End-to-end test of the www/ playground in headless Chromium: the page imports
// the package's browser entry (pkg/dist/index.mjs), replays the sample
// conversation through the stage, and must show what the stage did.
//
//   node --test tests/js/www.test.mjs        (needs pkg/ built)
//
// Screenshots: test-output/www-1280.png, www-390.png (viewport) and
// www-1280-full.png, www-390-full.png (whole page).

import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { launchChromium, recordPageProblems } from './lib/chromium.mjs';
import { summaryLabel } from './randomized/spec-model.mjs';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const OUTPUT_DIR = path.join(REPO_ROOT, 'test-output');
const EXTRACTIVE_DEFAULT_MAX_CHARS = 1200;
const TURNS_TO_PLAY = 30;
const SETTINGS = { triggerMinEntries: 20, preserveRecent: 5, minFoldEntries: 20, loadCount: 100, summaryTier: 'warm' };

// ---- what the page must show, derived from the sample and the settings ----

const sampleMessages = JSON.parse(readFileSync(path.join(REPO_ROOT, 'www/sample-conversation.json'), 'utf8'));

/** The sample alternates user / assistant, so message i belongs to turn ⌊i/2⌋+1 and is `msg-{turn}-{i mod 2}`. */
function sampleEntries() {
  sampleMessages.forEach((message, index) => {
    assert.equal(message.role, index % 2 === 0 ? 'user' : 'assistant', `sample message ${index} breaks the user/assistant alternation`);
  });
  return sampleMessages.map((message, index) => ({
    id: `msg-${Math.floor(index / 2) + 1}-${index % 2}`,
    turn: Math.floor(index / 2) + 1,
    chars: message.content.length,
  }));
}

/**
 * Replays SPEC §4 steps 2, 4 and 5 over the sample: which turns fold, and what
 * they cover. A considered span must fold, because extractive's text stays
 * under its maxChars and the span is longer than label + "\n\n" + maxChars
 * (asserted here, so a sample edit that breaks the premise fails loudly).
 */
function expectedReplay({ triggerMinEntries, preserveRecent, minFoldEntries, loadCount }, turnsToPlay) {
  const entries = sampleEntries();
  const summaries = [];
  const folds = [];
  let recallIds = [];
  for (let turn = 1; turn <= turnsToPlay; turn += 1) {
    const originals = entries.filter((entry) => entry.turn <= turn);
    assert.ok(originals.length + summaries.length <= loadCount, 'the expectation assumes every entry is loaded');
    const covered = new Set(summaries.flatMap((summary) => summary.coveredIds));
    const raw = originals.filter((entry) => !covered.has(entry.id));
    let splitAt = Math.max(0, raw.length - preserveRecent);
    if (splitAt > 0) while (splitAt > 0 && raw[splitAt - 1].turn === raw[splitAt].turn) splitAt -= 1;
    const span = raw.slice(0, splitAt);
    const loadedCount = originals.length + summaries.length;
    if (loadedCount >= triggerMinEntries && span.length >= Math.max(1, minFoldEntries)) {
      const fromTurn = span[0].turn;
      const toTurn = span[span.length - 1].turn;
      const spanChars = span.reduce((sum, entry) => sum + entry.chars, 0);
      const label = summaryLabel(fromTurn, toTurn, span.length, 'a model');
      assert.ok(spanChars > label.length + 2 + EXTRACTIVE_DEFAULT_MAX_CHARS, `span ${fromTurn}–${toTurn} is too short to be sure it folds`);
      const summary = { fromTurn, toTurn, entryCount: span.length, coveredIds: span.map((entry) => entry.id) };
      summaries.push(summary);
      folds.push({ turn, ...summary, keptVerbatim: raw.length - span.length });
      recallIds = raw.slice(splitAt).map((entry) => entry.id);
    } else {
      recallIds = raw.map((entry) => entry.id);
    }
  }
  const verbatimChars = entries.filter((entry) => entry.turn <= turnsToPlay).reduce((sum, entry) => sum + entry.chars, 0);
  return { summaries, folds, verbatimTailIds: recallIds, verbatimChars };
}

// ---- harness ---------------------------------------------------------------

let server;
let baseUrl;
let browser;

function startPlaygroundServer() {
  const child = spawn(process.execPath, [path.join(REPO_ROOT, 'examples/serve-www.mjs'), '--port', '0'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk) => {
      output += chunk;
      const match = /Playground: (http:\/\/127\.0\.0\.1:\d+)\/www\//.exec(output);
      if (match) resolve({ child, url: match[1] });
    });
    child.on('exit', (code) => reject(new Error(`serve-www.mjs exited (${code}) before listening: ${output}`)));
  });
}

before(async () => {
  const distEntry = path.join(REPO_ROOT, 'pkg/dist/index.mjs');
  assert.doesNotThrow(() => readFileSync(distEntry), `${distEntry} is missing: build the package first (bash scripts/build.sh)`);
  mkdirSync(OUTPUT_DIR, { recursive: true });
  ({ child: server, url: baseUrl } = await startPlaygroundServer());
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  server?.kill();
});

/** A page that records every page error and console error it produces. */
async function openPlayground(viewport) {
  const page = await browser.newPage({ viewport });
  const problems = recordPageProblems(page);
  await page.goto(`${baseUrl}/www/`);
  await page.locator('#conversation-status', { hasText: 'Sample support conversation' }).waitFor();
  return { page, problems };
}

async function setField(page, selector, value) {
  const field = page.locator(selector);
  if ((await field.evaluate((node) => node.tagName)) === 'SELECT') await field.selectOption(value);
  else await field.fill(String(value));
  await field.dispatchEvent('change');
}

async function waitForTurn(page, turn) {
  await page.waitForFunction(
    (expected) => document.getElementById('turn-status').textContent.startsWith(`Turn ${expected} `),
    turn,
  );
}

// ---- tests -----------------------------------------------------------------

test('the playground replays 30 turns with extractive and shows the folds', { timeout: 180_000 }, async () => {
  const expected = expectedReplay(SETTINGS, TURNS_TO_PLAY);
  assert.ok(expected.folds.length >= 2, 'the settings should give at least two folds in 30 turns');

  const { page, problems } = await openPlayground({ width: 1280, height: 800 });
  assert.equal(await page.locator('#turn-status').textContent(), `Turn 0 of ${sampleMessages.length / 2}`);
  await setField(page, '#trigger-min-entries', SETTINGS.triggerMinEntries);
  await setField(page, '#preserve-recent', SETTINGS.preserveRecent);
  await setField(page, '#min-fold-entries', SETTINGS.minFoldEntries);
  await setField(page, '#load-count', SETTINGS.loadCount);
  await setField(page, '#summary-tier', SETTINGS.summaryTier);
  assert.equal(await page.locator('#summarizer-extractive').isChecked(), true);

  // The first two turns by keyboard alone: Tab to "Step one turn", then Enter and Space.
  await page.locator('h1').click();
  for (let presses = 0; presses < 10; presses += 1) {
    if ((await page.evaluate(() => document.activeElement?.id)) === 'step-turn') break;
    await page.keyboard.press('Tab');
  }
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'step-turn', 'Tab reaches the step button');
  await page.keyboard.press('Enter');
  await waitForTurn(page, 1);
  await page.keyboard.press('Space');
  await waitForTurn(page, 2);
  for (let turn = 3; turn <= TURNS_TO_PLAY; turn += 1) {
    await page.locator('#step-turn').click();
    await waitForTurn(page, turn);
  }

  // Recall: the expected summaries first, with their coverage, then the verbatim tail.
  const summaryCards = await page.locator('#recall .entry-summary').evaluateAll((cards) =>
    cards.map((card) => ({
      fromTurn: Number(card.dataset.fromTurn),
      toTurn: Number(card.dataset.toTurn),
      entryCount: Number(card.dataset.entryCount),
      text: card.textContent,
    })),
  );
  assert.deepEqual(
    summaryCards.map(({ fromTurn, toTurn, entryCount }) => ({ fromTurn, toTurn, entryCount })),
    expected.summaries.map(({ fromTurn, toTurn, entryCount }) => ({ fromTurn, toTurn, entryCount })),
  );
  expected.summaries.forEach((summary, index) => {
    assert.match(summaryCards[index].text, new RegExp(`turns ${summary.fromTurn}–${summary.toTurn}`));
    assert.match(summaryCards[index].text, new RegExp(`msg-summary-${summary.fromTurn}-${summary.toTurn} · tier warm`));
    assert.match(summaryCards[index].text, /\[summary of earlier turns/);
  });
  const recallIds = await page.locator('#recall [data-entry-id]').evaluateAll((nodes) => nodes.map((n) => n.dataset.entryId));
  assert.deepEqual(recallIds, expected.verbatimTailIds);

  // Store: every original is kept; exactly the covered ones are marked.
  const storeOriginals = await page.locator('#store [data-entry-id]').count();
  assert.equal(storeOriginals, TURNS_TO_PLAY * 2);
  const coveredIds = await page.locator('#store [data-covered-by]').evaluateAll((nodes) => nodes.map((n) => n.dataset.entryId));
  assert.deepEqual(coveredIds, expected.summaries.flatMap((summary) => summary.coveredIds));

  // Event log: each fold with its reason, on the turn it happened.
  const foldEvents = await page.locator('#event-log .event-fold').evaluateAll((items) =>
    items.map((item) => ({ turn: Number(item.dataset.turn), reason: item.querySelector('.event-reason').textContent })),
  );
  assert.deepEqual(
    foldEvents.map((event) => event.turn).sort((a, b) => a - b),
    expected.folds.map((fold) => fold.turn),
  );
  for (const fold of expected.folds) {
    const event = foldEvents.find((candidate) => candidate.turn === fold.turn);
    assert.ok(
      event.reason.startsWith(
        `folded ${fold.entryCount} entries (turns ${fold.fromTurn}–${fold.toTurn}) into msg-summary-${fold.fromTurn}-${fold.toTurn}; ` +
          `${fold.keptVerbatim} kept verbatim — written back`,
      ),
      `turn ${fold.turn} reason: ${event.reason}`,
    );
  }
  const foldEvidence = await page.locator('#event-log .event-fold').first().locator('.event-facts').textContent();
  assert.match(foldEvidence, /persisted\s*true/);

  // Chart: one point per turn in each series; the last verbatim point is every message so far.
  assert.equal(await page.locator('#recall-chart [data-series="verbatim"] circle').count(), TURNS_TO_PLAY);
  assert.equal(await page.locator('#recall-chart [data-series="folded"] circle').count(), TURNS_TO_PLAY);
  assert.equal(
    await page.locator(`#recall-chart [data-series="verbatim"] circle[data-turn="${TURNS_TO_PLAY}"] title`).textContent(),
    `Turn ${TURNS_TO_PLAY}: ${expected.verbatimChars.toLocaleString('en')} characters verbatim`,
  );
  const foldedTitle = await page.locator(`#recall-chart [data-series="folded"] circle[data-turn="${TURNS_TO_PLAY}"] title`).textContent();
  const foldedChars = Number(/: ([\d,]+) characters/.exec(foldedTitle)[1].replaceAll(',', ''));
  assert.ok(foldedChars < expected.verbatimChars, `folded ${foldedChars} should be below verbatim ${expected.verbatimChars}`);

  // Readable at both sizes: nothing overflows sideways.
  await page.screenshot({ path: path.join(OUTPUT_DIR, 'www-1280.png') });
  await page.screenshot({ path: path.join(OUTPUT_DIR, 'www-1280-full.png'), fullPage: true });
  await page.setViewportSize({ width: 390, height: 844 });
  await page.waitForFunction(() => document.querySelector('#recall-chart').getAttribute('width') <= 390);
  assert.ok((await page.evaluate(() => document.documentElement.scrollWidth)) <= 390, 'no horizontal scroll at 390 px');
  await page.screenshot({ path: path.join(OUTPUT_DIR, 'www-390.png') });
  await page.screenshot({ path: path.join(OUTPUT_DIR, 'www-390-full.png'), fullPage: true });
  await page.setViewportSize({ width: 1280, height: 800 });

  // Bad pasted input: a visible message, and the replay is left as it was.
  await page.locator('#conversation-input').fill('[{"role": "user", "content": "my order is late"},');
  await page.locator('#use-pasted').click();
  await page.locator('#notices .notice-error', { hasText: 'The pasted conversation was not used. The pasted JSON does not parse' }).waitFor();
  assert.equal(await page.locator('#conversation-error').isVisible(), true);
  assert.equal(await page.locator('#conversation-input').getAttribute('aria-invalid'), '');
  await page.locator('#conversation-input').fill('hello, is anyone there?\nuser: my order is late');
  await page.locator('#use-pasted').click();
  await page.locator('#notices .notice-error', { hasText: 'Line 1 does not start with a role' }).waitFor();
  assert.equal(await page.locator('#notices .notice-error').count(), 1, 'a repeated input error replaces the earlier notice');
  assert.match(await page.locator('#turn-status').textContent(), new RegExp(`^Turn ${TURNS_TO_PLAY} `));

  // A good paste replaces the conversation and clears the error.
  await page.locator('#conversation-input').fill('user: my order is late\nassistant: Let me check order 1234.\nuser: thanks');
  await page.locator('#use-pasted').click();
  await page.locator('#conversation-status', { hasText: 'Pasted conversation: 2 turns, 3 messages.' }).waitFor();
  assert.equal(await page.locator('#notices .notice-error').count(), 0);
  assert.equal(await page.locator('#turn-status').textContent(), 'Turn 0 of 2');

  // Run to end plays every turn, then Reset goes back to turn 0 with an empty store.
  await page.locator('#run-to-end').click();
  await page.locator('#turn-status', { hasText: 'Turn 2 · 2 of 2 played · end of conversation' }).waitFor();
  assert.equal(await page.locator('#store [data-entry-id]').count(), 3);
  assert.equal(await page.locator('#step-turn').isDisabled(), true);
  assert.equal(await page.evaluate(() => document.activeElement?.id), 'reset-run', 'focus stays in the run controls');
  await page.keyboard.press('Enter');
  assert.equal(await page.locator('#turn-status').textContent(), 'Turn 0 of 2');
  assert.equal(await page.locator('#store [data-entry-id]').count(), 0);
  assert.equal(await page.locator('#recall-chart circle').count(), 0);

  assert.deepEqual(problems, []);
  await page.close();
});

test('an OpenAI-compatible endpoint: request shape, usage, failure and timeout are shown', { timeout: 120_000 }, async () => {
  const requests = [];
  let slowRequestAborted;
  const slowRequestClosed = new Promise((resolve) => (slowRequestAborted = resolve));
  const endpoint = createServer((request, response) => {
    const cors = {
      'access-control-allow-origin': '*',
      'access-control-allow-headers': 'content-type, authorization',
      'access-control-allow-methods': 'POST',
    };
    if (request.method === 'OPTIONS') {
      response.writeHead(204, cors).end();
      return;
    }
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      const parsed = JSON.parse(body);
      requests.push({ url: request.url, authorization: request.headers.authorization, body: parsed });
      if (parsed.model === 'slow-model') {
        // Never answers: the stage's timeout must abort the request.
        response.on('close', slowRequestAborted);
        return;
      }
      if (parsed.model === 'broken-model') {
        response.writeHead(500, { ...cors, 'content-type': 'application/json' }).end('{"error":"model exploded"}');
        return;
      }
      response.writeHead(200, { ...cors, 'content-type': 'application/json' }).end(
        JSON.stringify({
          choices: [{ message: { role: 'assistant', content: 'Priya Raman: Ascend Pro 160 (order LD-48213) arrived with a bent left leg; case CS-2291-K.' } }],
          usage: { prompt_tokens: 321, completion_tokens: 24 },
        }),
      );
    });
  });
  await new Promise((resolve) => endpoint.listen(0, '127.0.0.1', resolve));
  const endpointBase = `http://127.0.0.1:${endpoint.address().port}/v1`;

  const { page, problems } = await openPlayground({ width: 1280, height: 800 });
  try {
    await setField(page, '#trigger-min-entries', 6);
    await setField(page, '#preserve-recent', 2);
    await setField(page, '#min-fold-entries', 2);
    await page.locator('#summarizer-endpoint').check();
    await page.locator('#endpoint-base-url').fill(endpointBase);
    await page.locator('#endpoint-key').fill('test-key');
    await setField(page, '#endpoint-model', 'ok-model');

    // Turn 3 is the first with 6 entries loaded: turns 1–2 fold, turn 3 stays verbatim.
    for (let turn = 1; turn <= 3; turn += 1) {
      await page.locator('#step-turn').click();
      await waitForTurn(page, turn);
    }
    assert.equal(requests.length, 1);
    const [call] = requests;
    assert.equal(call.url, '/v1/chat/completions');
    assert.equal(call.authorization, 'Bearer test-key');
    assert.equal(call.body.model, 'ok-model');
    assert.equal(call.body.temperature, 0);
    assert.equal(call.body.messages[0].role, 'system');
    assert.equal(call.body.messages[1].role, 'user');
    assert.match(call.body.messages[1].content, /<<<TRANSCRIPT>>>[\s\S]*LD-48213[\s\S]*<<<END TRANSCRIPT>>>/);
    const fold = page.locator('#event-log .event-fold[data-turn="3"]');
    assert.match(await fold.locator('.event-reason').textContent(), /^folded 4 entries \(turns 1–2\) into msg-summary-1-2; 2 kept verbatim — written back/);
    assert.match(await fold.locator('.event-facts').textContent(), /usage\s*\{"input":321,"output":24\}/);
    assert.match(await page.locator('#recall .entry-summary').textContent(), /SUMMARY written by ok-model/);

    // A failing endpoint: recall is served verbatim and the cause is on screen.
    await setField(page, '#endpoint-model', 'broken-model');
    for (let turn = 1; turn <= 3; turn += 1) {
      await page.locator('#step-turn').click();
      await waitForTurn(page, turn);
    }
    const failure = page.locator('#notices .notice-error', { hasText: 'Turn 3:' });
    await failure.waitFor();
    assert.match(await failure.textContent(), /summarizer-failed[\s\S]*verbatim[\s\S]*HTTP 500/);
    assert.equal(await page.locator('#recall .entry-summary').count(), 0);
    assert.equal(await page.locator('#recall [data-entry-id]').count(), 6);

    // A silent endpoint with a deadline: the request is aborted and reported.
    await setField(page, '#timeout-ms', 300);
    await setField(page, '#endpoint-model', 'slow-model');
    for (let turn = 1; turn <= 3; turn += 1) {
      await page.locator('#step-turn').click();
      await waitForTurn(page, turn);
    }
    await page.locator('#notices .notice-error', { hasText: /Turn 3: .*summarizer-failed/ }).waitFor();
    await page.waitForFunction(() => !document.querySelector('#notices').textContent.includes('HTTP 500'));
    assert.equal(requests.filter((r) => r.body.model === 'slow-model').length, 1);
    await slowRequestClosed; // the page aborted the request it gave up on

    // The browser logs the HTTP 500 as a failed resource load; nothing else may appear.
    assert.deepEqual(problems.filter((problem) => !/status of 500/.test(problem)), []);
  } finally {
    await page.close();
    endpoint.closeAllConnections();
    endpoint.close();
  }
});

test('maxSummaries 1 in the playground keeps one summary that reaches turn 1, and the folded line flat', { timeout: 180_000 }, async () => {
  const { page, problems } = await openPlayground({ width: 1280, height: 800 });
  await setField(page, '#trigger-min-entries', 12);
  await setField(page, '#preserve-recent', 4);
  await setField(page, '#min-fold-entries', 4);
  await setField(page, '#load-count', 24);
  await setField(page, '#max-summaries', 1);
  for (let turn = 1; turn <= TURNS_TO_PLAY; turn += 1) {
    await page.locator('#step-turn').click();
    await waitForTurn(page, turn);
  }
  const summaries = await page.locator('#recall .entry-summary').evaluateAll((cards) => cards.map((card) => Number(card.dataset.fromTurn)));
  assert.deepEqual(summaries, [1], 'one summary, reaching turn 1');
  const folded = await page.locator('#recall-chart [data-series="folded"] circle title').allTextContents();
  const chars = folded.map((title) => Number(/: ([\d,]+) characters/.exec(title)[1].replaceAll(',', '')));
  // Flat: it rises between folds and drops at each, but does not grow with the conversation.
  const middle = chars.slice(TURNS_TO_PLAY / 3, (2 * TURNS_TO_PLAY) / 3);
  const last = chars.slice((2 * TURNS_TO_PLAY) / 3);
  assert.ok(Math.max(...last) <= 1.2 * Math.max(...middle), `the folded line stays flat: ${chars.join(', ')}`);
  assert.deepEqual(problems, []);
  await page.close();
});

test('each fold shows which exact details its summary kept and dropped, and keepDetails keeps them', { timeout: 180_000 }, async () => {
  const { page, problems } = await openPlayground({ width: 1280, height: 800 });
  await setField(page, '#trigger-min-entries', SETTINGS.triggerMinEntries);
  await setField(page, '#preserve-recent', SETTINGS.preserveRecent);
  await setField(page, '#min-fold-entries', SETTINGS.minFoldEntries);
  await setField(page, '#load-count', SETTINGS.loadCount);
  const play = async () => {
    for (let turn = 1; turn <= TURNS_TO_PLAY; turn += 1) {
      await page.locator('#step-turn').click();
      await waitForTurn(page, turn);
    }
    return page.locator('#event-log .event-fold').evaluateAll((items) =>
      items.map((item) => {
        const details = item.querySelector('.fold-details');
        const facts = Object.fromEntries(
          [...item.querySelectorAll('.event-facts .fact')].map((fact) => [fact.querySelector('dt').textContent, fact.querySelector('dd').textContent]),
        );
        return { ...Object.fromEntries(Object.entries(details.dataset).map(([key, value]) => [key, Number(value)])), text: details.textContent, facts };
      }),
    );
  };
  const plain = await play();
  assert.ok(plain.length >= 2);
  for (const fold of plain) {
    assert.equal(fold.found, Number(fold.facts.detailsFound), JSON.stringify(fold));
    assert.equal(fold.kept, Number(fold.facts.detailsKept));
    assert.equal(fold.pinned, 0);
    assert.equal(fold.found, fold.kept + fold.dropped);
    assert.match(fold.text, new RegExp(`^Exact details: ${fold.kept} of ${fold.found} kept by the summary\\.`));
    for (const detail of JSON.parse(fold.facts.droppedDetails)) assert.ok(fold.text.includes(detail), `${detail} is shown dropped: ${fold.text}`);
  }
  const lost = plain.reduce((sum, fold) => sum + fold.dropped, 0);
  assert.ok(lost > 0, 'extractive drops some details of the sample');
  assert.ok((await page.locator('#recall .entry-summary .lost-details').count()) > 0, 'a summary card names what it lost');

  await page.locator('#keep-details').check();
  await waitForTurn(page, 0);
  const kept = await play();
  assert.deepEqual(kept.map((fold) => fold.found), plain.map((fold) => fold.found), 'the same folds find the same details');
  for (const fold of kept) {
    assert.equal(fold.found, fold.kept + fold.pinned + fold.dropped, JSON.stringify(fold));
    assert.equal(fold.pinned, Number(fold.facts.detailsPinned));
  }
  assert.equal(kept.reduce((sum, fold) => sum + fold.dropped, 0), 0, 'the default bounds hold every dropped detail');
  assert.ok(kept.some((fold) => fold.pinned > 0 && fold.text.includes(`, ${fold.pinned} on the keepDetails line`)));
  const cards = await page.locator('#recall .entry-summary .entry-content').allTextContents();
  assert.ok(cards.some((text) => /\n\[exact details from these turns: [^\n]+\]$/.test(text)), cards.join('\n---\n'));
  assert.equal(await page.locator('#recall .entry-summary .lost-details').count(), 0);
  assert.deepEqual(problems, []);
  await page.close();
});

test('with gpt-tokenizer picked, recall, the savings and each fold are counted in o200k_base tokens', { timeout: 180_000 }, async () => {
  const { o200kTokens } = await import('../support/tokens.mjs');
  const tokens = (texts) => texts.reduce((sum, text) => sum + o200kTokens(text), 0);
  const { page, problems } = await openPlayground({ width: 1280, height: 800 });
  await setField(page, '#trigger-min-entries', SETTINGS.triggerMinEntries);
  await setField(page, '#min-fold-entries', SETTINGS.minFoldEntries);
  await setField(page, '#load-count', SETTINGS.loadCount);
  await setField(page, '#token-counter', 'o200k');
  await setField(page, '#preserve-recent-tokens', 150);
  for (let turn = 1; turn <= TURNS_TO_PLAY; turn += 1) {
    await page.locator('#step-turn').click();
    await waitForTurn(page, turn);
  }
  const facts = Object.fromEntries(
    await page.locator('#turn-summary .fact').evaluateAll((nodes) => nodes.map((node) => [node.querySelector('dt').textContent, node.querySelector('dd').textContent])),
  );
  const recallTexts = await page.locator('#recall .entry-content').allTextContents();
  assert.equal(Number(facts['Recall tokens'].replaceAll(',', '')), tokens(recallTexts), 'the page counts recall with the same tokenizer');
  const saved = Number(/^(-?[\d,]+) \(/.exec(facts['Tokens saved'])[1].replaceAll(',', ''));
  assert.equal(saved, Number(facts['Tokens without the stage'].replaceAll(',', '')) - tokens(recallTexts));
  assert.ok(saved > 0, `tokens saved: ${facts['Tokens saved']}`);
  assert.match(await page.locator('#run-summary').textContent(), /Tokens saved: [\d,]+ \(\d+%\)\./);

  // The stage counted with the same counter: each fold's evidence is in o200k tokens, and its tail holds 150 or more.
  const folds = await page.locator('#event-log .event-fold .event-facts').evaluateAll((lists) =>
    lists.map((list) => Object.fromEntries([...list.querySelectorAll('.fact')].map((fact) => [fact.querySelector('dt').textContent, fact.querySelector('dd').textContent]))),
  );
  assert.ok(folds.length >= 1, 'the run folds');
  for (const fold of folds) {
    for (const key of ['recallTokensBefore', 'recallTokensAfter', 'spanTokens', 'summaryTokens']) assert.match(fold[key] ?? '', /^\d+$/, key);
    assert.ok(Number(fold.recallTokensAfter) < Number(fold.recallTokensBefore));
  }
  // The log lists the newest event first, and the newest summary is the last card: the stage
  // counted that summary's text as o200k_base does.
  const summaryTexts = await page.locator('#recall .entry-summary .entry-content').allTextContents();
  assert.equal(Number(folds[0].summaryTokens), tokens([summaryTexts.at(-1)]), "the stage counts its summary with the page's tokenizer");
  const verbatimTexts = await page.locator('#recall .recall-verbatim .entry-content').allTextContents();
  assert.ok(tokens(verbatimTexts) >= 150, `the verbatim tail holds ${tokens(verbatimTexts)} tokens`);
  assert.deepEqual(problems, []);
  await page.close();
});
