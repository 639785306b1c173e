#!/usr/bin/env node
// Benchmarks what footprint-summarize costs its users beyond the summarizer
// call: per-recall overhead at N = 20 … 20,000 (on plain scope objects, and
// inside footprintjs runs up to 2,000), cold start in fresh processes,
// download size, and memory after many folds. With --baseline, any module with
// the same API runs beside it in the same process, interleaved batch by batch.
// How to read the output: the "Benchmarks: reading the output" section of README.md.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cpus, arch, platform } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { loadSummarizeApi } from './load-api.mjs';
import { compressedSizes } from './sizes.mjs';
import { CASES, SIZES, buildWorkloads } from './workloads.mjs';

const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const benchDir = join(repoRoot, 'bench');
const DEFAULT_SUBJECT = join(repoRoot, 'pkg', 'dist', 'index.mjs');
const SECTIONS = ['recall', 'fresh', 'build', 'pipeline', 'long', 'route', 'browser', 'cold-start', 'size', 'memory', 'fleet', 'background'];

const USAGE = `usage: node bench/bench.mjs [options]
  --subject PATH     module under test (default: pkg/dist/index.mjs)
  --baseline PATH    another module with the same API (ESM or CJS), run beside it
  --quick            CI mode: short budgets, 1,000 folds for memory, 14 turns for the fleet
  --json             machine-readable output instead of markdown
  --cases LIST       comma-separated subset of: ${Object.keys(CASES).join(', ')}
  --sizes LIST       comma-separated subset of: ${SIZES.join(', ')}
  --sections LIST    comma-separated subset of: ${SECTIONS.join(', ')}
  --cold-starts N    fresh processes per module for the cold-start section (default 9; quick 3)
Exits non-zero when any workload did not produce the outcome it is named after.`;

const BUDGETS = {
  // Per workload and per module: untimed warm-up, then timed batches until the
  // measuring time is spent (and at least minRounds pairs exist).
  default: { warmupMs: 300, measureMs: 2500, batchMs: 10, minRounds: 10, maxRounds: 5000, coldStarts: 9, memoryFolds: 10_000 },
  quick: { warmupMs: 25, measureMs: 60, batchMs: 2, minRounds: 3, maxRounds: 200, coldStarts: 3, memoryFolds: 1_000 },
};

function parseOptions() {
  const { values } = parseArgs({
    options: {
      subject: { type: 'string', default: DEFAULT_SUBJECT },
      baseline: { type: 'string' },
      quick: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      cases: { type: 'string', default: Object.keys(CASES).join(',') },
      sizes: { type: 'string', default: SIZES.join(',') },
      sections: { type: 'string', default: SECTIONS.join(',') },
      'cold-starts': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const list = (text) => text.split(',').map((item) => item.trim()).filter(Boolean);
  const cases = list(values.cases);
  const sizes = list(values.sizes).map(Number);
  const sections = list(values.sections);
  const unknown = [
    ...cases.filter((name) => !(name in CASES)),
    ...sizes.filter((n) => !SIZES.includes(n)),
    ...sections.filter((name) => !SECTIONS.includes(name)),
  ];
  if (unknown.length > 0) {
    console.error(`unknown --cases/--sizes/--sections value(s): ${unknown.join(', ')}\n\n${USAGE}`);
    process.exit(2);
  }
  for (const path of [values.subject, values.baseline].filter(Boolean)) {
    if (!existsSync(path)) {
      const hint = resolve(path) === DEFAULT_SUBJECT ? ' — build the package first (bash scripts/build.sh)' : '';
      console.error(`module not found: ${path}${hint}`);
      process.exit(2);
    }
  }
  const budget = { ...(values.quick ? BUDGETS.quick : BUDGETS.default) };
  if (values['cold-starts'] !== undefined) {
    budget.coldStarts = Number(values['cold-starts']);
    if (!Number.isInteger(budget.coldStarts) || budget.coldStarts < 1) {
      throw new RangeError(`--cold-starts must be a whole number of at least 1, got ${values['cold-starts']}`);
    }
  }
  return { ...values, cases, sizes, sections, budget };
}

// ---------------------------------------------------------------- statistics

function quantile(sorted, q) {
  if (sorted.length === 0) return NaN;
  const position = (sorted.length - 1) * q;
  const lower = Math.floor(position);
  const upper = Math.ceil(position);
  return sorted[lower] + (sorted[upper] - sorted[lower]) * (position - lower);
}

function summarizeSamples(samples) {
  const sorted = [...samples].sort((a, b) => a - b);
  return { median: quantile(sorted, 0.5), p10: quantile(sorted, 0.1), p90: quantile(sorted, 0.9), count: sorted.length };
}

// ---------------------------------------------------------------- per-recall timing

/** One timed batch: `size` recalls back to back. Stages and scopes are built before the clock starts. */
async function timeBatch(workload, api, size) {
  const stages = workload.stagesFor(api, size);
  const scopes = workload.scopes(size);
  const callsBefore = { ...workload.calls };
  const start = process.hrtime.bigint();
  for (let i = 0; i < size; i++) await stages[i](scopes[i]);
  const elapsedNs = Number(process.hrtime.bigint() - start);
  const served = scopes.map((scope) => ({ loadedLength: scope.loaded.length, eventCount: scope.eventCount }));
  return { microsPerRecall: elapsedNs / size / 1e3, problems: workload.checkBatch(served, callsBefore) };
}

/**
 * How a section times recalls: its batch function, and the largest batch
 * and N it runs. Only the pipeline's ratios carry a target (the README's
 * "Benchmarks" section says why). The pipeline
 * section's (IN_PIPELINE, bench/pipeline.mjs) is loaded only when it
 * runs, so footprintjs is imported only then.
 */
const PLAIN = { section: 'recall', timeBatch, maxBatch: 1000, maxN: Infinity };

/** A timed batch where each recall builds its own stage first, as a server building a pipeline per request does. */
async function timeFreshBatch(workload, api, size) {
  const scopes = workload.scopes(size);
  const callsBefore = { ...workload.calls };
  const start = process.hrtime.bigint();
  for (let i = 0; i < size; i++) await workload.buildStage(api)(scopes[i]);
  const elapsedNs = Number(process.hrtime.bigint() - start);
  const served = scopes.map((scope) => ({ loadedLength: scope.loaded.length, eventCount: scope.eventCount }));
  return { microsPerRecall: elapsedNs / size / 1e3, problems: workload.checkBatch(served, callsBefore) };
}

const FRESH = { section: 'fresh', timeBatch: timeFreshBatch, maxBatch: 1000, maxN: Infinity };

/**
 * `summarize(config)` alone, for a callback config and a provider + store
 * config: µs per build over batches of builds, modules alternating.
 */
async function measureBuilds(modules, budget, progress) {
  const callback = async () => 'summary';
  const configs = {
    callback: () => ({ llm: callback }),
    'provider+store': () => ({ llm: { complete: async () => ({ content: 'summary' }) }, model: 'mini-1', store: { put: async () => {} } }),
  };
  const rows = [];
  for (const [shape, makeConfig] of Object.entries(configs)) {
    progress(`build: ${shape}`);
    const batch = 2000;
    const timeBuilds = (api) => {
      const made = new Array(batch);
      const start = process.hrtime.bigint();
      for (let i = 0; i < batch; i++) made[i] = api.summarize(makeConfig());
      const micros = Number(process.hrtime.bigint() - start) / batch / 1e3;
      return typeof made[batch - 1] === 'function' ? micros : NaN;
    };
    for (const module of modules) timeBuilds(module.api);
    const samples = modules.map(() => []);
    const deadline = performance.now() + (budget.measureMs / 4) * modules.length;
    for (let round = 0; round < budget.minRounds || performance.now() < deadline; round++) {
      const order = round % 2 === 0 ? modules.keys() : [...modules.keys()].reverse();
      for (const index of order) samples[index].push(timeBuilds(modules[index].api));
      if (round >= budget.maxRounds) break;
    }
    const ratio =
      modules.length === 2 ? summarizeSamples(samples[0].map((ours, k) => ours / samples[1][k])) : null;
    rows.push({ shape, micros: samples.map(summarizeSamples), ratio });
  }
  return rows;
}

async function warmUp(workload, api, warmupMs, timing) {
  let size = 1;
  let microsPerRecall = Infinity;
  const deadline = performance.now() + warmupMs;
  do {
    const batch = await timing.timeBatch(workload, api, size);
    if (batch.problems.length > 0) return { microsPerRecall, problems: batch.problems };
    microsPerRecall = batch.microsPerRecall;
    size = Math.min(size * 2, 256, timing.maxBatch);
  } while (performance.now() < deadline);
  return { microsPerRecall, problems: [] };
}

/**
 * Times one workload for every module, in alternating batches: round r runs the
 * modules in order, round r+1 in reverse, so drift and GC debt fall on both.
 * All modules use the same batch size, so a round's batches are the same work.
 */
async function measureWorkload(workload, modules, budget, timing) {
  const problems = modules.map(() => []);
  const estimates = [];
  for (const [index, module] of modules.entries()) {
    problems[index].push(...(await workload.verifyOnce(module.api)));
    const warm = await warmUp(workload, module.api, budget.warmupMs, timing);
    problems[index].push(...warm.problems);
    estimates.push(warm.microsPerRecall);
  }
  const slowest = Math.max(...estimates.filter(Number.isFinite), 1e-3);
  const batchSize = Math.max(1, Math.min(timing.maxBatch, Math.round((budget.batchMs * 1000) / slowest)));

  const samples = modules.map(() => []);
  const measureDeadline = performance.now() + budget.measureMs * modules.length;
  let rounds = 0;
  while (rounds < budget.maxRounds && (rounds < budget.minRounds || performance.now() < measureDeadline)) {
    const order = rounds % 2 === 0 ? modules.keys() : [...modules.keys()].reverse();
    for (const index of order) {
      const batch = await timing.timeBatch(workload, modules[index].api, batchSize);
      samples[index].push(batch.microsPerRecall);
      if (batch.problems.length > 0 && problems[index].length === 0) problems[index].push(...batch.problems);
    }
    rounds++;
  }

  const results = modules.map((module, index) => {
    const micros = summarizeSamples(samples[index]);
    return {
      module: module.role,
      micros,
      nsPerEntry: (micros.median * 1000) / workload.n,
      batchSize,
      problems: problems[index],
    };
  });
  let ratio = null;
  if (modules.length === 2) {
    const pairs = samples[0].map((ours, round) => ours / samples[1][round]);
    const { median, p10, p90 } = summarizeSamples(pairs);
    ratio = { median, p10, p90, pairs: pairs.length };
    if (timing.target) ratio.target = timing.target(workload.n);
  }
  return { case: workload.caseName, n: workload.n, results, ratio };
}

async function measureRecalls(modules, options, progress, timing) {
  const rows = [];
  for (const n of options.sizes.filter((size) => size <= timing.maxN)) {
    for (const workload of buildWorkloads(n, options.cases)) {
      progress(`${timing.section}: ${workload.caseName} at N=${n}`);
      rows.push(await measureWorkload(workload, modules, options.budget, timing));
    }
  }
  return rows;
}

/** The subject over one long conversation, once per variant (200 turns in --quick). */
async function measureLongConversation(api, long, quick, progress) {
  const settings = quick ? { ...long.LONG_SETTINGS, turns: 200 } : long.LONG_SETTINGS;
  const rows = [];
  for (const variant of [...long.VARIANTS, ...long.PASTED_LOG_VARIANTS]) {
    progress(`long conversation: ${variant.name}`);
    rows.push(await long.runLongConversation(api, variant, settings));
  }
  // Counting's cost per turn: each variant several times, alternating, the median.
  const runs = quick ? 1 : 5;
  const timings = long.COUNTING_VARIANTS.map(() => []);
  for (let run = 0; run < runs; run++) {
    for (const [index, variant] of long.COUNTING_VARIANTS.entries()) {
      progress(`long conversation, counting: ${variant.name} (${run + 1} of ${runs})`);
      timings[index].push(await long.runLongConversation(api, variant, settings));
    }
  }
  const median = (values) => summarizeSamples(values).median;
  const counting = long.COUNTING_VARIANTS.map((variant, index) => ({
    variant: variant.name,
    stageMicrosPerTurn: median(timings[index].map((row) => row.stageMicrosPerTurn)),
    counterMicrosPerTurn: median(timings[index].map((row) => row.counterMicrosPerTurn)),
    problems: timings[index].flatMap((row) => row.problems),
  }));
  return { settings, checkpoints: long.CHECKPOINTS.filter((turn) => turn <= settings.turns), rows, counting, runs };
}

/** The npm README's Agent route, reproduced in footprintjs, under each of its variants. */
async function measureReadmeRoute(api, route, progress) {
  const footprint = await import('footprintjs');
  const rows = [];
  for (const variant of route.ROUTE_VARIANTS) {
    progress(`README route: ${variant.name}`);
    const run = await route.runReadmeRoute({ pkg: api, footprint, extra: variant.extra });
    const afterFirstFold = run.perTurn.slice(run.perTurn.findIndex((row) => row.holdsSummary));
    rows.push({
      variant: variant.name,
      calls: run.calls,
      refused: run.refused.length,
      tokensMean: run.perTurn.reduce((sum, row) => sum + row.tokensSent, 0) / run.perTurn.length,
      oldestAtEnd: run.perTurn.at(-1).oldestTurn,
      oldestMean: afterFirstFold.reduce((sum, row) => sum + row.oldestTurn, 0) / afterFirstFold.length,
      problems: run.folds.every((fold) => fold.scoreEvidence.summaryTokens !== undefined) ? [] : ['a fold reported no tokens'],
    });
  }
  return { settings: route.ROUTE, rows };
}

// ---------------------------------------------------------------- fresh-process probes

function runChild(args) {
  const child = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (child.status !== 0) throw new Error(`child ${args.join(' ')} failed (${child.status}):\n${child.stderr}`);
  return JSON.parse(child.stdout.trim().split('\n').at(-1));
}

/** Fresh Node processes, modules alternating, median import and first-fold times. */
function measureColdStarts(modules, runs, progress) {
  const perModule = modules.map(() => []);
  for (let run = 0; run < runs; run++) {
    for (const [index, module] of modules.entries()) {
      progress(`cold start ${run + 1}/${runs}: ${module.role}`);
      perModule[index].push(runChild([join(benchDir, 'cold-start-child.mjs'), module.path]));
    }
  }
  return modules.map((module, index) => {
    const samples = perModule[index];
    const stat = (pick) => summarizeSamples(samples.map(pick));
    return {
      module: module.role,
      runs: samples.length,
      importMs: stat((s) => s.importMs),
      firstFoldMs: stat((s) => s.firstFoldMs),
      totalMs: stat((s) => s.importMs + s.firstFoldMs),
      problems: samples.every((s) => s.folded) ? [] : ['a cold-start process did not fold'],
    };
  });
}

function measureMemory(modules, folds, progress) {
  return modules.map((module) => {
    progress(`memory: ${folds} folds with ${module.role}`);
    const report = runChild(['--expose-gc', join(benchDir, 'memory-child.mjs'), module.path, String(folds)]);
    const delta = (key) => report.after[key] - report.before[key];
    return {
      module: module.role,
      folds: report.folds,
      heapUsed: { after: report.after.heapUsed, delta: delta('heapUsed') },
      external: { after: report.after.external, delta: delta('external') },
      arrayBuffers: { after: report.after.arrayBuffers, delta: delta('arrayBuffers') },
      rss: { after: report.after.rss, delta: delta('rss') },
      wasmLinearMemory:
        report.after.wasmLinearMemory === null
          ? null
          : { after: report.after.wasmLinearMemory, delta: report.after.wasmLinearMemory - report.before.wasmLinearMemory },
      probe: { wasmModules: report.wasmModules, glue: report.glue },
      problems:
        report.folded === folds && report.writes === folds
          ? []
          : [`${report.folded} of ${folds} turns folded, ${report.writes} written back`],
    };
  });
}

/**
 * Bytes a user downloads: the module file, and the Wasm it compiles at import
 * as captured by the probe child (whatever the module does to get it: inlined,
 * read from a file beside it, fetched). When the Wasm is inlined as base64, the
 * JS glue is the module file minus that payload.
 */
function measureSizes(modules, memory) {
  return modules.map((module) => {
    const probe =
      memory?.find((report) => report.module === module.role)?.probe ??
      runChild(['--expose-gc', join(benchDir, 'memory-child.mjs'), module.path, '0']);
    const artifacts = [{ artifact: `${relative(repoRoot, module.path)} (whole module)`, ...compressedSizes(readFileSync(module.path)) }];
    for (const [index, wasm] of probe.wasmModules.entries()) {
      const where = wasm.inlinedBase64Bytes === null ? 'loaded at import' : 'inlined as base64';
      artifacts.push({ artifact: `Wasm module${probe.wasmModules.length > 1 ? ` #${index + 1}` : ''} (${where})`, raw: wasm.raw, gzip: wasm.gzip, brotli: wasm.brotli });
    }
    if (probe.wasmModules.some((wasm) => wasm.inlinedBase64Bytes !== null)) {
      artifacts.push({ artifact: 'JS glue (module file minus inlined Wasm)', ...probe.glue });
    }
    return {
      module: module.role,
      artifacts,
      wasmGzipBytes: probe.wasmModules.length > 0 ? probe.wasmModules.reduce((sum, wasm) => sum + wasm.gzip, 0) : null,
    };
  });
}

// ---------------------------------------------------------------- report

const fixed = (value, digits) => (Number.isFinite(value) ? value.toFixed(digits) : '—');
const micros = (value) => fixed(value, value < 10 ? 2 : value < 1000 ? 1 : 0);
const spread = (stat, format) => `${format(stat.median)} (${format(stat.p10)}–${format(stat.p90)})`;
const bytes = (count) => (count === null || count === undefined ? '—' : count >= 10 * 1024 ? `${(count / 1024).toFixed(1)} KiB` : `${count} B`);
const signedMiB = (count) => `${count >= 0 ? '+' : ''}${(count / 1048576).toFixed(2)} MiB`;
const mib = (count) => `${(count / 1048576).toFixed(2)} MiB`;

function table(header, rows) {
  return [`| ${header.join(' | ')} |`, `| ${header.map(() => '---').join(' | ')} |`, ...rows.map((row) => `| ${row.join(' | ')} |`)].join('\n');
}

/** The per-recall table, with a verdict column when the ratios carry a target. */
function recallTable(rows, withBaseline) {
  const withTarget = rows.some((row) => row.ratio?.target !== undefined);
  const header = withBaseline
    ? ['case', 'N', 'subject µs', 'ns/entry', 'baseline µs', 'ns/entry', 'subject ÷ baseline', ...(withTarget ? ['target'] : [])]
    : ['case', 'N', 'µs per recall', 'ns/entry', 'batches × size'];
  return table(
    header,
    rows.map((row) => {
      const [subject, baseline] = row.results;
      if (!withBaseline) {
        return [row.case, row.n, spread(subject.micros, micros), fixed(subject.nsPerEntry, 1), `${subject.micros.count} × ${subject.batchSize}`];
      }
      return [
        row.case,
        row.n,
        spread(subject.micros, micros),
        fixed(subject.nsPerEntry, 1),
        spread(baseline.micros, micros),
        fixed(baseline.nsPerEntry, 1),
        `${spread(row.ratio, (v) => fixed(v, 2))}×`,
        ...(withTarget ? [`≤ ${row.ratio.target}× ${row.ratio.median <= row.ratio.target ? 'met' : 'MISSED'}`] : []),
      ];
    }),
  );
}

function headerLines(meta, withBaseline) {
  const lines = [
    `## footprint-summarize benchmark (${meta.mode} mode)`,
    '',
    `Node ${meta.node} · ${meta.cpu} × ${meta.cores} · ${meta.platform} · ${meta.date}`,
    '',
    `- subject: \`${meta.subject}\``,
    withBaseline ? `- baseline: \`${meta.baseline}\`` : '- baseline: none (`--baseline PATH` to run one beside the subject)',
  ];
  if (meta.mode === 'quick') {
    lines.push('', '> Quick mode: budgets far too short for comparisons. This run checks that every workload still does what it is named after; it does not measure speed.');
  }
  return lines;
}

function buildLines(rows, withBaseline) {
  return [
    '### Building a stage',
    '',
    '`summarize(config)` alone; µs per build as median (p10–p90) over batches of 2,000.',
    '',
    table(
      ['config', 'subject µs', ...(withBaseline ? ['baseline µs', 'subject ÷ baseline'] : [])],
      rows.map((row) => [
        row.shape,
        spread(row.micros[0], (v) => fixed(v, 3)),
        ...(withBaseline
          ? [spread(row.micros[1], (v) => fixed(v, 3)), `${spread(row.ratio, (v) => fixed(v, 2))}×`]
          : []),
      ]),
    ),
  ];
}

function pipelineLines(rows, meta, withBaseline) {
  return [
    '### Per recall inside a footprintjs pipeline',
    '',
    'The same workloads, each recall run on the scope of a real footprintjs run (footprintjs ' +
      `${meta.footprintjs}); µs per recall as above. The scope's own cost is in both columns.`,
    '',
    rows.length > 0 ? recallTable(rows, withBaseline) : 'No size asked for is 2,000 or less; the section runs only those.',
  ];
}

/** The long conversation's variants without pasted logs: cost, growth and facts kept, each against the plain window. */
function longVariantsTable(rows, checkpoints) {
  const plainMean = rows.find((row) => row.variant === 'plain window')?.chars.mean;
  return table(
    ['variant', 'paid calls / 100 turns', 'refused', 'chars sent: mean', '÷ plain window', 'chars p95', 'chars max', 'tokens sent: mean (o200k_base)', 'last 10% ÷ second 10%', 'oldest turn at the end', 'turns after the first fold not reaching turn 1', ...checkpoints.map((turn) => `facts kept at ${turn}`)],
    rows.map((row) => [
      row.variant,
      fixed(row.callsPer100Turns, 1),
      `${fixed(100 * row.refusedShare, 0)}%`,
      fixed(row.chars.mean, 0),
      plainMean ? `${fixed((100 * row.chars.mean) / plainMean, 0)}%` : '—',
      row.chars.p95,
      row.chars.max,
      fixed(row.tokensMean, 0),
      `${fixed(row.chars.lastTenth / row.chars.firstTenthAfterFold, 2)}×`,
      row.oldestReached,
      row.firstFoldTurn === undefined ? '—' : row.turnsNotReachingTurnOne,
      ...row.checkpoints.map((c) => `${c.kept} of ${c.planted}`),
    ]),
  );
}

function pastedLogsLines(pasted, checkpoints) {
  return [
    'Pasted logs: every 50 turns (turn 25, 75, …) the user pastes a 100,000-character log; the summarizer rejects a call ' +
      'whose messages hold more than 40,000 characters. `maxSpanChars` is set at that limit.',
    '',
    table(
      ['variant', 'paid calls / 100 turns', 'rejected for size', 'chars sent: mean', 'chars p95', 'chars max', ...checkpoints.map((turn) => `facts kept at ${turn}`)],
      pasted.map((row) => [
        row.variant,
        fixed(row.callsPer100Turns, 1),
        row.rejectedCalls,
        fixed(row.chars.mean, 0),
        row.chars.p95,
        row.chars.max,
        ...row.checkpoints.map((c) => `${c.kept} of ${c.planted}`),
      ]),
    ),
  ];
}

/** Counting's cost per turn, each counter against the first variant (no counting). */
function countingLines(counting, runs) {
  const uncounted = counting[0].stageMicrosPerTurn;
  return [
    `Counting tokens: \`maxSummaries: 1\` with every loaded entry counted (a token trigger that never fires, so every decision is the same), ` +
      `stage time per turn (median of ${runs} run${runs === 1 ? '' : 's'}, alternating).`,
    '',
    table(
      ['counter', 'stage µs / turn', '÷ no counting', 'of which in the counter, µs / turn'],
      counting.map((row) => [
        row.variant,
        fixed(row.stageMicrosPerTurn, 1),
        `${fixed(row.stageMicrosPerTurn / uncounted, 2)}×`,
        row.counterMicrosPerTurn > 0 ? fixed(row.counterMicrosPerTurn, 1) : '—',
      ]),
    ),
  ];
}

function longConversationLines({ settings, checkpoints, rows, counting, runs }) {
  const pasted = rows.filter((row) => row.variant.includes('pasted logs'));
  return [
    '### Long conversation',
    '',
    `${settings.turns} turns, a fact planted every 20 turns; loadRecent window ${settings.window}, triggerMinEntries ${settings.triggerMinEntries}, ` +
      `preserveRecent ${settings.preserveRecent}, minFoldEntries ${settings.minFoldEntries}; extractive with maxChars ${settings.maxChars} ` +
        '(a one-word summary for the floor). Each planted fact is one exact detail; it is kept while recall holds it as written. Subject only.',
    '',
    longVariantsTable(rows.filter((row) => !row.variant.includes('pasted logs')), checkpoints),
    '',
    ...pastedLogsLines(pasted, checkpoints),
    '',
    ...countingLines(counting, runs),
  ];
}

function routeLines({ settings, rows }) {
  return [
    "### The npm README's Agent route",
    '',
    `Its read pipeline in footprintjs over the demo's support conversation, ${settings.turns} turns: loadRecent ${settings.loadCount}, ` +
      `triggerMinTokens ${settings.triggerMinTokens}, preserveRecentTokens ${settings.preserveRecentTokens}, one o200k_base counter; extractive, ` +
      'each call it answers counted as paid. Subject only.',
    '',
    table(
      ['settings', 'paid calls', 'per 100 turns', 'refused', 'tokens sent: mean', 'oldest turn at the end', 'oldest turn: mean after the first fold'],
      rows.map((row) => [
        row.variant,
        row.calls,
        fixed((100 * row.calls) / settings.turns, 1),
        row.refused,
        fixed(row.tokensMean, 0),
        row.oldestAtEnd,
        fixed(row.oldestMean, 1),
      ]),
    ),
  ];
}

function browserLines(rows) {
  return [
    '### Browser entries (Chromium, no bundler)',
    '',
    `Median over ${rows[0].runs} page loads each with an empty cache: the package's bytes downloaded (bodies as sent, uncompressed) and the time from navigation to the end of a first provider + store fold at N = 20. Subject only (pkg/dist).`,
    '',
    table(
      ['entry', 'bytes downloaded', 'navigation to first fold'],
      rows.map((row) => [`dist/${row.entry}`, bytes(row.bytes), `${fixed(row.firstFoldMs, 1)} ms`]),
    ),
  ];
}

function coldStartLines(rows) {
  return [
    '### Cold start (fresh Node processes)',
    '',
    `Median (p10–p90) ms over ${rows[0].runs} processes per module; first fold = stage construction + one provider+store fold at N = 20.`,
    '',
    table(
      ['module', 'import', 'first fold', 'import + first fold'],
      rows.map((row) => [
        row.module,
        spread(row.importMs, (v) => fixed(v, 2)),
        spread(row.firstFoldMs, (v) => fixed(v, 2)),
        spread(row.totalMs, (v) => fixed(v, 2)),
      ]),
    ),
  ];
}

function sizeLines(sizes) {
  const rows = sizes.flatMap((entry) =>
    entry.artifacts.map((artifact) => [entry.module, artifact.artifact, bytes(artifact.raw), bytes(artifact.gzip), bytes(artifact.brotli)]),
  );
  return ['### Size', '', 'gzip level 9, brotli quality 11 (node:zlib).', '', table(['module', 'artifact', 'raw', 'gzip', 'brotli'], rows)];
}

function memoryLines(rows) {
  const afterAndDelta = (measure) => `${mib(measure.after)} (${signedMiB(measure.delta)})`;
  return [
    `### Memory after ${rows[0].folds.toLocaleString('en-US')} folds`,
    '',
    'One long-lived stage, provider+store, N = 200, 64 conversations, fresh process, after full GCs. ' +
      'Δ = after the last fold minus before the first. Node counts Wasm linear memory in `external` (not in `arrayBuffers`); it is also shown on its own.',
    '',
    table(
      ['module', 'JS heap used', 'external', 'arrayBuffers', 'Wasm linear memory', 'rss'],
      rows.map((row) => [
        row.module,
        afterAndDelta(row.heapUsed),
        afterAndDelta(row.external),
        afterAndDelta(row.arrayBuffers),
        row.wasmLinearMemory ? afterAndDelta(row.wasmLinearMemory) : 'none',
        afterAndDelta(row.rss),
      ]),
    ),
  ];
}

function outcomeLines(problems) {
  const lines = ['### Outcomes', ''];
  if (problems.length === 0) lines.push('Every workload produced the outcome it is named after (checked once in full, and for every timed batch by counts).');
  else for (const problem of problems) lines.push(`- WRONG OUTCOME: ${problem}`);
  return lines;
}

/** The report as markdown: a header, then each section that ran, in a fixed order, then the outcomes. */
function renderMarkdown(report, sections) {
  const { meta } = report;
  const withBaseline = meta.baseline !== null;
  const out = headerLines(meta, withBaseline);
  if (report.recall) {
    out.push('', '### Per-recall overhead', '', 'Instant summarizers; µs per recall as median (p10–p90) over timed batches; ns/entry = median ÷ N.', '');
    out.push(recallTable(report.recall, withBaseline));
  }
  if (report.fresh) {
    out.push('', '### Per recall with a fresh stage', '', 'The same workloads, but every recall builds its stage first (`summarize(config)` is inside the timed loop), as a server that builds its pipeline per request does.', '');
    out.push(recallTable(report.fresh, withBaseline));
  }
  if (report.build) out.push('', ...buildLines(report.build, withBaseline));
  if (report.pipeline) out.push('', ...pipelineLines(report.pipeline, meta, withBaseline));
  if (report.long) out.push('', ...longConversationLines(report.long));
  if (report.route) out.push('', ...routeLines(report.route));
  if (report.browser) out.push('', ...browserLines(report.browser));
  if (report.coldStart) out.push('', ...coldStartLines(report.coldStart));
  if (report.sizes) out.push('', ...sizeLines(report.sizes));
  if (report.memory) out.push('', ...memoryLines(report.memory));
  if (report.fleet) out.push('', ...sections.fleet.renderFleet(report.fleet));
  if (report.background) out.push('', ...sections.background.renderBackground(report.background));
  out.push('', ...outcomeLines(report.problems));
  return out.join('\n');
}

// ---------------------------------------------------------------- main

async function main() {
  const options = parseOptions();
  const progress = options.json || !process.stderr.isTTY ? () => {} : (message) => process.stderr.write(`\r\x1b[K${message}`);
  const modules = [{ role: 'subject', path: resolve(options.subject) }];
  if (options.baseline) modules.push({ role: 'baseline', path: resolve(options.baseline) });
  for (const module of modules) module.api = await loadSummarizeApi(module.path);

  const wants = (section) => options.sections.includes(section);
  const inPipeline = wants('pipeline') ? (await import('./pipeline.mjs')).IN_PIPELINE : null;
  const longConversation = wants('long') ? await import('./long-conversation.mjs') : null;
  const readmeRoute = wants('route') ? await import('../tests/support/readme-route.mjs') : null;
  const browserEntries = wants('browser') ? await import('./browser-entries.mjs') : null;
  const fleet = wants('fleet') ? await import('./fleet.mjs') : null;
  const background = wants('background') ? await import('./background.mjs') : null;
  const report = {
    meta: {
      mode: options.quick ? 'quick' : 'default',
      node: process.version,
      cpu: cpus()[0]?.model ?? 'unknown CPU',
      cores: cpus().length,
      platform: `${platform()} ${arch()}`,
      date: new Date().toISOString(),
      subject: relative(repoRoot, modules[0].path) || modules[0].path,
      baseline: modules[1] ? relative(repoRoot, modules[1].path) : null,
      footprintjs: inPipeline?.footprintjs ?? null,
    },
    recall: wants('recall') ? await measureRecalls(modules, options, progress, PLAIN) : null,
    fresh: wants('fresh') ? await measureRecalls(modules, options, progress, FRESH) : null,
    build: wants('build') ? await measureBuilds(modules, options.budget, progress) : null,
    pipeline: inPipeline ? await measureRecalls(modules, options, progress, inPipeline) : null,
    long: longConversation ? await measureLongConversation(modules[0].api, longConversation, options.quick, progress) : null,
    route: readmeRoute ? await measureReadmeRoute(modules[0].api, readmeRoute, progress) : null,
    browser: browserEntries ? (progress('browser entries in Chromium'), await browserEntries.measureBrowserEntries(options.quick ? 1 : 7)) : null,
    coldStart: wants('cold-start') ? measureColdStarts(modules, options.budget.coldStarts, progress) : null,
    memory: wants('memory') ? measureMemory(modules, options.budget.memoryFolds, progress) : null,
    fleet: fleet ? await fleet.measureFleet(options.quick, progress) : null,
    background: background ? await background.measureBackground(modules[0].api, options.quick, progress) : null,
    sizes: null,
    problems: [],
  };
  if (wants('size')) report.sizes = measureSizes(modules, report.memory);
  progress('');

  for (const [section, rows] of [['recall', report.recall], ['fresh', report.fresh], ['pipeline', report.pipeline]]) {
    for (const row of rows ?? []) {
      for (const result of row.results) {
        for (const problem of result.problems) report.problems.push(`${section}: ${result.module} ${row.case} N=${row.n}: ${problem}`);
      }
    }
  }
  for (const row of report.browser ?? []) {
    for (const problem of row.problems) report.problems.push(`browser: ${problem}`);
  }
  for (const row of [...(report.long?.rows ?? []), ...(report.long?.counting ?? [])]) {
    for (const problem of row.problems) report.problems.push(`long conversation, ${row.variant}: ${problem}`);
  }
  for (const row of report.route?.rows ?? []) {
    for (const problem of row.problems) report.problems.push(`README route, ${row.variant}: ${problem}`);
  }
  for (const problem of report.fleet?.problems ?? []) report.problems.push(`fleet: ${problem}`);
  for (const problem of report.background?.problems ?? []) report.problems.push(`background: ${problem}`);
  for (const row of [...(report.coldStart ?? []), ...(report.memory ?? [])]) {
    for (const problem of row.problems) report.problems.push(`${row.module}: ${problem}`);
  }

  if (options.json) {
    console.log(JSON.stringify(report, null, 2));
  } else {
    console.log(renderMarkdown(report, { fleet, background }));
  }
  if (report.problems.length > 0) process.exitCode = 1;
}

await main();
