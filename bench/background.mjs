// The bench's background section: what a turn waits for the stage, with a
// summarizer that takes 300 ms and one that takes 2 s, folding within the
// turn (blocking) and in the background (`background: true`).
//
// One conversation of 40 turns (two messages each), played with the time an
// agent's own model call takes between turns (AGENT_TURN_MS), each turn's
// recall loaded as loadRecent does (the newest entries, messages and stored
// summaries alike), with the demo's settings (`SETTINGS`: load limit,
// trigger, tail, smallest fold). The four runs go side by side: their time is mostly
// waiting. For each: the stage's time per visit (p50, p95, max), paid
// summarizer calls, summaries stored, the messages they cover, and any
// recall that held a summary beside a message it covers (there must be none).
//
// Problems reported: more background calls than blocking ones plus one; a
// summary beside a message it covers; and, outside `--quick` (whose short
// times a busy machine can stretch), a background visit of 40 ms or more and
// background summaries covering less than 80% of what blocking ones cover.

import { setTimeout as sleep } from 'node:timers/promises';
import { isSummaryEntry, messageEntry, selectRecent } from '../tests/support/memory-pipeline.mjs';
import { SETTINGS } from '../examples/demo/settings.mjs';

const AGENT_TURN_MS = 1000;
const VISIT_BUDGET_MS = 40;

function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** One conversation played through a stage; what it cost and what it stored. */
async function play(api, { delayMs, background, turns, agentTurnMs }) {
  const identity = { conversationId: `bench-${delayMs}-${background}` };
  const stored = new Map(); // id → summary entry
  const messages = [];
  const summarizeText = api.extractive({ maxChars: 400 });
  let calls = 0;
  const stage = api.summarize({
    llm: async (span) => {
      calls += 1;
      await sleep(delayMs);
      return summarizeText(span);
    },
    store: { put: async (_identity, entry) => void stored.set(entry.id, entry) },
    triggerMinEntries: SETTINGS.triggerMinEntries,
    preserveRecent: SETTINGS.preserveRecent,
    minFoldEntries: SETTINGS.minFoldEntries,
    ...(background ? { background: true } : {}),
  });
  const visits = [];
  let beside = 0;
  for (let turn = 1; turn <= turns; turn += 1) {
    for (const [index, role] of ['user', 'assistant'].entries()) {
      const content = `Turn ${turn}: order #NW-${48000 + turn} ships on May ${turn}; the refund of $${turn}9.00 is approved. `.repeat(2);
      messages.push(messageEntry({ turn, index, message: { role, content }, identity, at: turn * 10 + index }));
    }
    const loaded = selectRecent([...messages, ...stored.values()], SETTINGS.loadLimit);
    const started = performance.now();
    const { recall } = await stage.fold(loaded, identity);
    visits.push(performance.now() - started);
    const inRecall = new Set(recall.map((entry) => entry.id));
    const coveredInRecall = recall.filter(isSummaryEntry).flatMap((entry) => entry.metadata.summarizes.coveredIds);
    if (coveredInRecall.some((id) => inRecall.has(id))) beside += 1;
    await sleep(agentTurnMs);
  }
  await stage.settled();
  const sorted = [...visits].sort((a, b) => a - b);
  const coveredIds = new Set([...stored.values()].flatMap((entry) => entry.metadata.summarizes.coveredIds));
  return {
    delayMs,
    mode: background ? 'background' : 'blocking',
    p50: percentile(sorted, 50),
    p95: percentile(sorted, 95),
    max: sorted.at(-1),
    calls,
    summaries: stored.size,
    covered: [...coveredIds].filter((id) => id.startsWith('msg-') && !id.startsWith('msg-summary')).length,
    beside,
  };
}

/** The section, on the subject's `api`: `quick` plays 16 turns at a tenth of the times. */
export async function measureBackground(api, quick, progress) {
  const scale = quick ? 0.1 : 1;
  const turns = quick ? 16 : 40;
  progress(`background: ${turns} turns × 4 runs`);
  const runs = [];
  for (const delayMs of [300, 2000]) {
    for (const background of [false, true]) {
      runs.push(play(api, { delayMs: delayMs * scale, background, turns, agentTurnMs: AGENT_TURN_MS * scale }));
    }
  }
  const rows = await Promise.all(runs);
  const problems = [];
  for (let i = 0; i < rows.length; i += 2) {
    const [blocking, background] = [rows[i], rows[i + 1]];
    const name = `${background.delayMs} ms summarizer`;
    if (background.calls > blocking.calls + 1) problems.push(`${name}: ${background.calls} background calls against ${blocking.calls} blocking`);
    if (quick) continue;
    if (background.max >= VISIT_BUDGET_MS) problems.push(`${name}: a background visit took ${background.max.toFixed(1)} ms`);
    if (background.covered < 0.8 * blocking.covered) problems.push(`${name}: background summaries cover ${background.covered} messages against ${blocking.covered}`);
  }
  for (const row of rows) if (row.beside > 0) problems.push(`${row.delayMs} ms ${row.mode}: ${row.beside} recalls held a summary beside a message it covers`);
  return { turns, agentTurnMs: AGENT_TURN_MS * scale, rows, problems };
}

/** The section as markdown lines. */
export function renderBackground({ turns, agentTurnMs, rows }) {
  const ms = (value) => value.toFixed(1);
  return [
    `### Background folds: what a turn waits for the stage (${turns} turns, ${agentTurnMs} ms of agent between turns)`,
    '',
    '| summarizer | mode | visit p50 ms | p95 ms | max ms | paid calls | summaries stored | messages covered |',
    '|---:|:---|---:|---:|---:|---:|---:|---:|',
    ...rows.map((row) => `| ${row.delayMs} ms | ${row.mode} | ${ms(row.p50)} | ${ms(row.p95)} | ${ms(row.max)} | ${row.calls} | ${row.summaries} | ${row.covered} |`),
  ];
}
