// Randomized test of the SPEC §8 guarantees, against the built
// package: 2,000 seeded scenarios with exotic Unicode, stored summaries with
// overlapping and dangling coverage, invalid elements, summarizers that fail,
// refuse, hang or answer late, stores that fail, two conversations sharing ids,
// concurrent runs, keepDetails, and budgets in tokens (a word counter or the
// default). Every run is checked against an independent model of
// the SPEC (see randomized/harness.mjs for the invariants).
//
//   node --test tests/js/randomized.test.mjs               all scenarios
//   FPS_SEED=123 node --test tests/js/randomized.test.mjs  replay one scenario
//   FPS_SCENARIOS=200 node --test tests/js/randomized.test.mjs
//
// A failing scenario is written as JSON to test-output/randomized/seed-N.json.

import assert from 'node:assert/strict';
import { mkdirSync, writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { captureConsoleWarn, runScenario } from './randomized/harness.mjs';
import { generateScenario, scenarioJson } from './randomized/scenario.mjs';

const PACKAGE_ENTRY = new URL('../../pkg/dist/index.mjs', import.meta.url);
const ARTIFACT_DIR = fileURLToPath(new URL('../../test-output/randomized/', import.meta.url));
const SCENARIO_COUNT = Number(process.env.FPS_SCENARIOS ?? 2000);
const MAX_REPORTED_FAILURES = 20;
// The paths every full run must reach, or the invariants above held over
// less than the generator claims (keys are `runScenario`'s coverage counts):
// each plan and form, each store script, and each summarizer script with the
// outcome it leads to. A late answer is one past the timeout, so it fails;
// a delayed one is refused too rarely to require.
const PATHS_A_FULL_RUN_REACHES = [
  'plan: call',
  'plan: empty',
  'plan: invalid',
  'plan: latched',
  'plan: not-worth',
  'plan: predicted',
  'plan: under-floor',
  'form: fold',
  'form: scope',
  'concurrent runs sharing one call',
  'store: ok',
  'store: ok-delayed',
  'store: reject',
  'store: reject-delayed',
  'store: throw',
  'outcome: fold (short)',
  'outcome: fold (delayed)',
  'outcome: refused (short)',
  'outcome: refused (long)',
  'outcome: failed (hang)',
  'outcome: failed (late)',
  'outcome: failed (non-string)',
  'outcome: failed (null-response)',
  'outcome: failed (reject)',
  'outcome: failed (reject-value)',
  'outcome: failed (throw)',
  'keepDetails: a line after the summary',
  'keepDetails: details the bounds let go',
  'tokens by countTokens: call',
  'tokens by countTokens: not-worth',
  'tokens by ceil(length / 4): call',
  'tokens by ceil(length / 4): not-worth',
];
const FULL_RUN = 500;

const warnHub = captureConsoleWarn();
const api = await import(PACKAGE_ENTRY.href);

const seeds = process.env.FPS_SEED !== undefined ? [Number(process.env.FPS_SEED)] : Array.from({ length: SCENARIO_COUNT }, (_, index) => index + 1);

test(`${seeds.length} seeded scenarios keep the SPEC invariants`, async () => {
  const failures = [];
  const coverage = new Map();
  let unhandled = [];
  const recordUnhandled = (reason) => unhandled.push(reason);
  process.on('unhandledRejection', recordUnhandled);
  try {
    for (const seed of seeds) {
      const scenario = generateScenario(seed);
      unhandled = [];
      const violations = await runScenario(api, scenario, warnHub, coverage);
      for (const reason of unhandled) {
        violations.push({ where: 'process', message: `unhandled rejection: ${reason?.stack ?? reason}` });
      }
      if (violations.length === 0) continue;
      mkdirSync(ARTIFACT_DIR, { recursive: true });
      writeFileSync(`${ARTIFACT_DIR}seed-${seed}.json`, scenarioJson(scenario));
      failures.push({ seed, violations, scenario });
      if (failures.length >= MAX_REPORTED_FAILURES) break;
    }
  } finally {
    process.off('unhandledRejection', recordUnhandled);
  }
  const report = failures
    .map(({ seed, violations }) =>
      [`seed ${seed}:`, ...violations.slice(0, 6).map((violation) => `  - [${violation.where}] ${violation.message}`)].join('\n'),
    )
    .join('\n');
  const replay = failures.length === 1 && seeds.length === 1 ? `\nscenario:\n${scenarioJson(failures[0].scenario)}` : '';
  assert.equal(
    failures.length,
    0,
    `${failures.length} scenario(s) broke an invariant${failures.length >= MAX_REPORTED_FAILURES ? ' (stopped early)' : ''}. ` +
      `Replay one with FPS_SEED=<seed> node --test tests/js/randomized.test.mjs; ` +
      `scenario JSON in test-output/randomized/seed-<seed>.json\n${report}${replay}`,
  );
  if (seeds.length >= FULL_RUN) {
    const missed = PATHS_A_FULL_RUN_REACHES.filter((path) => !coverage.has(path));
    assert.deepEqual(missed, [], `the scenarios never reached: ${missed.join(', ')}`);
  }
});
