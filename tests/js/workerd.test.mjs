// The packed tarball in Cloudflare's workerd (through miniflare), which,
// like Workers in production and other edge runtimes, needs the `.wasm`
// imported as a module. The Worker forbids compiling Wasm from bytes before
// it imports the package (fixtures/workerd/forbid-wasm-bytes.mjs), so the
// test fails if the `workerd` export ever takes that path.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import * as esbuild from 'esbuild';
import { repoRoot, scratchProject } from './lib/scratch.mjs';
import { assertConsumerScenario, publicExports } from './lib/consumer-checks.mjs';

const run = promisify(execFile);
const runtimes = join(repoRoot, 'scripts/runtimes/node_modules');
const node22 = join(runtimes, 'node22/bin/node');
const fixtures = join(repoRoot, 'tests/js/fixtures');

test('workerd (miniflare) imports the .wasm as a module and folds, with compiling from bytes forbidden', { timeout: 120_000 }, async () => {
  const project = await scratchProject();
  const app = join(project.dir, 'workerd-app');
  mkdirSync(join(app, 'src/workerd'), { recursive: true });
  for (const file of ['worker.mjs', 'forbid-wasm-bytes.mjs']) copyFileSync(join(fixtures, 'workerd', file), join(app, 'src/workerd', file));
  copyFileSync(join(fixtures, 'consumer-scenario.mjs'), join(app, 'src/consumer-scenario.mjs'));
  // Bundled the way wrangler does: the `workerd` condition, .wasm left as a module import.
  const out = join(app, 'dist');
  const built = await esbuild.build({
    entryPoints: [join(app, 'src/workerd/worker.mjs')],
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    conditions: ['workerd', 'worker'],
    external: ['*.wasm'],
    outfile: join(out, 'worker.mjs'),
    nodePaths: [join(project.dir, 'node_modules')],
    metafile: true,
    logLevel: 'error',
  });
  const inputs = Object.keys(built.metafile.inputs);
  assert.ok(inputs.some((input) => input.endsWith('footprint-summarize/dist/workerd.mjs')), `the workerd entry was bundled: ${inputs.join(', ')}`);
  copyFileSync(join(project.dir, 'node_modules/footprint-summarize/dist/footprint_summarize_bg.wasm'), join(out, 'footprint_summarize_bg.wasm'));

  const miniflare = createRequire(join(runtimes, 'miniflare/package.json')).resolve('miniflare');
  const { stdout } = await run(node22, [join(fixtures, 'workerd/run-miniflare.mjs'), pathToFileURL(miniflare).href, out], { cwd: app });
  const { exportNames, result } = JSON.parse(stdout);
  assert.deepEqual(exportNames, publicExports);
  assertConsumerScenario(result);
});
