// Every code block of the npm README, as the packed tarball ships it, runs
// as written in a consumer project that installed the tarball, and prints
// what its `// prints:` comments say. A block that imports agentfootprint
// says so on its first line, passes no factory or segment of agentfootprint's
// as a stage (each is called where it is named; `pickByBudget`, a segment,
// twice), and runs in a project that also installed agentfootprint (skipped,
// with the reason, where agentfootprint is not installed).

import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { projectWithAgentfootprint, skipWithoutAgentfootprint } from './lib/agentfootprint.mjs';
import { packageName, scratchProject } from './lib/scratch.mjs';

const run = promisify(execFile);

/** agentfootprint's factories (`name(config)` is the stage) and segments (`name(config)(builder)`). */
const FACTORIES = ['loadRecent', 'formatDefault', 'writeMessages', 'mock'];
const SEGMENTS = ['pickByBudget'];
const NEEDS_AGENTFOOTPRINT = /^\/\/ Needs agentfootprint\b/;

/** The fenced blocks of `markdown` with their language and the heading above them. */
function codeBlocks(markdown) {
  const blocks = [];
  let heading = '';
  const lines = markdown.split('\n');
  for (let i = 0; i < lines.length; i += 1) {
    if (lines[i].startsWith('#')) heading = lines[i].replace(/^#+\s*/, '');
    const open = /^```(\w*)\s*$/.exec(lines[i]);
    if (!open) continue;
    const body = [];
    for (i += 1; i < lines.length && !lines[i].startsWith('```'); i += 1) body.push(lines[i]);
    blocks.push({ language: open[1], heading, code: body.join('\n'), line: i - body.length });
  }
  return blocks;
}

/** The code without its import statements and comments: where a name is used. */
function usesOf(code) {
  return code
    .replace(/^import[\s\S]*?from\s*['"][^'"]+['"];?/gm, '')
    .replace(/\/\/.*$/gm, '');
}

/** What in `code` passes an agentfootprint factory or segment uncalled: one message per use. */
function uncalledAgentfootprintStages(code) {
  const problems = [];
  const uses = usesOf(code);
  for (const name of [...FACTORIES, ...SEGMENTS]) {
    for (const match of uses.matchAll(new RegExp(`\\b${name}\\b(\\s*\\()?`, 'g'))) {
      if (!match[1]) problems.push(`\`${name}\` is passed uncalled; it is a ${FACTORIES.includes(name) ? 'factory: call it with its config' : 'segment: pickByBudget(config)(builder)'}`);
    }
  }
  for (const name of SEGMENTS) {
    for (const match of uses.matchAll(new RegExp(`\\b${name}\\(([^()]|\\([^()]*\\))*\\)(\\s*\\()?`, 'g'))) {
      if (!match[2]) problems.push(`\`${name}(config)\` is a segment: apply it to the builder, ${name}(config)(builder)`);
    }
  }
  return problems;
}

let readme;
let project;

before(async () => {
  project = await scratchProject();
  readme = readFileSync(join(project.dir, 'node_modules', packageName, 'README.md'), 'utf8');
});

test('the checker refuses the drop-in as it was written: a factory and a segment passed as stages', () => {
  const asItWas = [
    "const memoryRead = flowChart('Load recent', loadRecent, 'load-recent')",
    "  .addFunction('Summarize', summarizeStage, 'summarize')",
    "  .addFunction('Pick by budget', pickByBudget, 'pick-by-budget')",
    "  .addFunction('Format', formatDefault, 'format')",
    '  .build();',
  ].join('\n');
  assert.deepEqual(uncalledAgentfootprintStages(asItWas), [
    '`loadRecent` is passed uncalled; it is a factory: call it with its config',
    '`formatDefault` is passed uncalled; it is a factory: call it with its config',
    '`pickByBudget` is passed uncalled; it is a segment: pickByBudget(config)(builder)',
  ]);
  assert.deepEqual(uncalledAgentfootprintStages("b = b.addFunction('Pick', pickByBudget({ countTokens }), 'pick');"), [
    '`pickByBudget(config)` is a segment: apply it to the builder, pickByBudget(config)(builder)',
  ]);
  assert.deepEqual(uncalledAgentfootprintStages('read = pickByBudget({ countTokens })(read);\nloadRecent({ store, count: 40 })'), []);
  // A factory on a line of its own, in a multi-line call, is still a use.
  assert.deepEqual(uncalledAgentfootprintStages("import {\n  loadRecent,\n} from 'agentfootprint/memory';\nflowChart(\n  'Load',\n  loadRecent,\n  'load',\n);"), [
    '`loadRecent` is passed uncalled; it is a factory: call it with its config',
  ]);
});

test('every js block of the npm README that needs agentfootprint says so and calls its factories and segments', () => {
  const blocks = codeBlocks(readme).filter((block) => block.language === 'js' && /from '(footprint-summarize\/)?agentfootprint/.test(block.code));
  assert.ok(blocks.length >= 3, 'the defineMemory switch, the drop-in and the Agent route');
  for (const block of blocks) {
    assert.match(block.code, NEEDS_AGENTFOOTPRINT, `README line ${block.line} (${block.heading}) says on its first line that it needs agentfootprint`);
    assert.deepEqual(uncalledAgentfootprintStages(block.code), [], `README line ${block.line} (${block.heading})`);
  }
});

/** Runs each block in `dir` as written, and holds it to its `// prints:` lines. */
async function runAsWritten(blocks, dir) {
  for (const block of blocks) {
    const file = join(dir, `readme-block-${block.line}.mjs`);
    writeFileSync(file, block.code);
    const where = `README line ${block.line} (${block.heading})`;
    const { stdout } = await run(process.execPath, [file], { cwd: dir, timeout: 30_000 }).catch((error) => {
      assert.fail(`${where} does not run as written:\n${error.stderr || error.message}`);
    });
    const promised = [...block.code.matchAll(/\/\/ prints: (.+)$/gm)].map(([, expected]) => expected.trim());
    assert.ok(promised.length > 0, `${where} says what it prints`);
    // Line for line, in order: each `// prints:` is the whole of the next
    // line printed, or its start when it ends in `…`.
    const printed = stdout.trimEnd().split('\n');
    const matches = (line, expected) => (expected.endsWith('…') ? line?.startsWith(expected.slice(0, -1)) : line === expected);
    assert.ok(
      printed.length === promised.length && promised.every((expected, line) => matches(printed[line], expected)),
      `${where} prints what it says:\n${promised.join('\n')}\nit printed:\n${printed.join('\n')}`,
    );
  }
}

test('every other js block of the npm README runs as written against the packed tarball and prints what it says', async () => {
  const blocks = codeBlocks(readme).filter((block) => block.language === 'js' && !/from '(footprint-summarize\/)?agentfootprint/.test(block.code));
  assert.ok(blocks.length >= 4, `found ${blocks.length}`);
  await runAsWritten(blocks, project.dir);
});

test('every js block of the npm README that imports agentfootprint runs as written against agentfootprint and prints what it says', { skip: skipWithoutAgentfootprint }, async () => {
  const blocks = codeBlocks(readme).filter((block) => block.language === 'js' && /from '(footprint-summarize\/)?agentfootprint/.test(block.code));
  assert.ok(blocks.length >= 3, `the defineMemory switch, the drop-in and the Agent route: found ${blocks.length}`);
  await runAsWritten(blocks, (await projectWithAgentfootprint()).dir);
});
