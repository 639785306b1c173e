// The packed tarball, installed into a scratch project outside the repo, used
// the ways a user uses it: Node `require` and `import`, a browser page that
// imports the file with no bundler, esbuild, Vite 7, webpack 5 and Rollup 4
// bundles run in Chromium, and `tsc --strict` on consumer code. Every environment runs the
// same scenario (fixtures/consumer-scenario.mjs) and is checked the same way.
//
// Needs pkg/ (scripts/build.sh). Without it the suite fails — it never skips.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, describe, test } from 'node:test';
import { promisify } from 'node:util';
import { launchChromium, recordPageProblems } from './lib/chromium.mjs';
import * as esbuild from 'esbuild';
import { build as viteBuild } from 'vite';
import webpack from 'webpack';
import { rollup } from 'rollup';
import { nodeResolve } from '@rollup/plugin-node-resolve';
import { packedTarball, repoRoot, scratchProject } from './lib/scratch.mjs';
import { bun, deno, pinnedNodes } from './lib/runtimes.mjs';
import { serveDirectory } from './lib/static-server.mjs';
import { assertConsumerScenario, publicExports } from './lib/consumer-checks.mjs';

const run = promisify(execFile);

/** The page a bundled consumer app is served with. */
function bundledAppPage(bundler, scriptSrc) {
  return `<!doctype html>
<meta charset="utf-8">
<link rel="icon" href="data:,">
<title>footprint-summarize, ${bundler}</title>
<script type="module" src="${scriptSrc}"></script>
`;
}
const fixtures = join(repoRoot, 'tests/js/fixtures');
const scenarioFile = 'consumer-scenario.mjs';
/** Entry module of a bundled app: named imports, as a user writes them. */
const bundledAppMain = `import {
  summarize,
  extractive,
  summaryEntryId,
  summaryCoverage,
  isSummaryEntry,
  isSummaryClaim,
  SUMMARY_FRAME_PREFIX,
} from 'footprint-summarize';
import { runConsumerScenario } from './${scenarioFile}';

runConsumerScenario({ summarize, extractive, summaryEntryId, summaryCoverage, isSummaryEntry, isSummaryClaim, SUMMARY_FRAME_PREFIX }).then(
  (result) => { window.__result = result; },
  (error) => { window.__error = String((error && error.stack) || error); },
);
`;

// Every test awaits these itself (each is created once), so a missing pkg/
// fails every test with pack.sh's message instead of cancelling them.
let projectPromise;
let browserPromise;

function consumerProject() {
  projectPromise ??= scratchProject().then((project) => {
    copyFileSync(join(fixtures, scenarioFile), join(project.dir, scenarioFile));
    return project;
  });
  return projectPromise;
}

function launchedBrowser() {
  browserPromise ??= launchChromium();
  return browserPromise;
}

after(async () => {
  // A launch that failed has already failed the tests that needed it.
  await browserPromise?.then((browser) => browser.close(), () => {});
});

/** Makes a directory inside the scratch project holding `files`. */
async function scratchApp(name, files) {
  const project = await consumerProject();
  const dir = join(project.dir, name);
  mkdirSync(dir, { recursive: true });
  for (const [file, contents] of Object.entries(files)) writeFileSync(join(dir, file), contents);
  copyFileSync(join(fixtures, scenarioFile), join(dir, scenarioFile));
  return dir;
}

/**
 * Serves `root`, opens `path` in Chromium and resolves to `window.__result`.
 * Rejects with the page's own error when the page throws (including a module
 * that fails to evaluate) or reports `window.__error`.
 */
async function resultFromPage(root, path, onWasmRequest = () => {}) {
  const browser = await launchedBrowser();
  const server = await serveDirectory(root);
  const page = await browser.newPage();
  // An uncaught page error (a module that fails to evaluate, say) means no
  // result will ever come: stop waiting at once and report it.
  let reportPageError;
  const pageFailed = new Promise((resolve) => (reportPageError = resolve));
  const problems = recordPageProblems(page, () => reportPageError({ error: 'the page threw' }));
  page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()}`));
  page.on('request', (request) => {
    if (request.url().endsWith('.wasm')) onWasmRequest(request.url());
  });
  page.on('response', (response) => {
    if (response.status() >= 400) problems.push(`HTTP ${response.status()}: ${response.url()}`);
  });
  try {
    await page.goto(`${server.origin}${path}`);
    const reported = page
      .waitForFunction(
        () => {
          if (window.__result !== undefined) return { result: window.__result };
          if (window.__error !== undefined) return { error: window.__error };
          return false;
        },
        undefined,
        { timeout: 30_000 },
      )
      .then((handle) => handle.jsonValue())
      .catch((error) => ({ error: `no result within 30 s (${error.message})` }));
    const outcome = await Promise.race([reported, pageFailed]);
    if (outcome.error !== undefined) {
      mkdirSync(join(repoRoot, 'test-output'), { recursive: true });
      await page.screenshot({ path: join(repoRoot, 'test-output', `consumer${path.replace(/\W+/g, '-')}.png`) });
      throw new Error(`${path}: ${outcome.error}\n${problems.join('\n')}`);
    }
    assert.deepEqual(problems, [], 'the page logged no errors');
    return outcome.result;
  } finally {
    await page.close();
    await server.close();
  }
}

describe('the packed tarball', () => {
  test('ships the built files, both declaration flavours, README and LICENSE', async () => {
    const project = await consumerProject();
    const installed = join(project.dir, 'node_modules/footprint-summarize');
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
    assert.equal(manifest.name, 'footprint-summarize');
    // The module instantiates its Wasm at import: a bundler must not treat it as pure.
    assert.equal(manifest.sideEffects, undefined);
    for (const file of ['dist/index.mjs', 'dist/index.cjs', 'dist/workerd.mjs', 'dist/browser.mjs', 'dist/footprint_summarize_bg.wasm', 'index.d.ts', 'index.d.cts', 'README.md', 'LICENSE']) {
      assert.ok(readFileSync(join(installed, file)).length > 0, `${file} is in the tarball`);
    }
    // index.d.cts is the same declarations read as CommonJS (for `require`).
    assert.ok(
      readFileSync(join(installed, 'index.d.cts'), 'utf8') === readFileSync(join(installed, 'index.d.ts'), 'utf8'),
      'index.d.cts and index.d.ts must be identical',
    );
    // The ES modules must load as they are (in a browser, in workerd): no
    // bare or node: imports inside.
    for (const file of ['dist/index.mjs', 'dist/browser.mjs', 'dist/workerd.mjs']) {
      const esm = readFileSync(join(installed, file), 'utf8');
      assert.doesNotMatch(esm, /^\s*import\s[^;]*?from\s*['"](?![./])/m, file);
      assert.doesNotMatch(esm, /\bimport\(\s*['"](?![./])/, file);
    }
  });
});

describe('Node 20', () => {
  test('require() gets the CommonJS build and folds', async () => {
    const project = await consumerProject();
    const consumer = join(project.dir, 'cjs-consumer.cjs');
    writeFileSync(
      consumer,
      `(async () => {
  const { runConsumerScenario } = await import('./${scenarioFile}');
  const pkg = require('footprint-summarize');
  const result = await runConsumerScenario(pkg);
  process.stdout.write(JSON.stringify({
    resolved: require.resolve('footprint-summarize'),
    exportNames: Object.keys(pkg).sort(),
    result,
  }));
})().catch((error) => { console.error(error); process.exit(1); });
`,
    );
    const { stdout } = await run(process.execPath, [consumer], { cwd: project.dir });
    const { resolved, exportNames, result } = JSON.parse(stdout);
    assert.match(resolved, /node_modules[/\\]footprint-summarize[/\\]dist[/\\]index\.cjs$/);
    assert.deepEqual(exportNames, publicExports);
    assertConsumerScenario(result);
  });

  test('import gets the ES module and folds', async () => {
    const consumer = await esmConsumer();
    const { stdout } = await run(process.execPath, [consumer], { cwd: dirname(consumer) });
    const { resolved, exportNames, result } = JSON.parse(stdout);
    assert.match(resolved, /\/node_modules\/footprint-summarize\/dist\/index\.mjs$/);
    assert.deepEqual(exportNames, publicExports);
    assertConsumerScenario(result);
  });
});

/** An ES module consumer in the scratch project, as a user writes one; its path. */
async function esmConsumer() {
  const project = await consumerProject();
  const consumer = join(project.dir, 'esm-consumer.mjs');
  writeFileSync(
    consumer,
    `import * as pkg from 'footprint-summarize';
import { runConsumerScenario } from './${scenarioFile}';

const result = await runConsumerScenario(pkg);
process.stdout.write(JSON.stringify({
  resolved: import.meta.resolve('footprint-summarize'),
  exportNames: Object.keys(pkg).sort(),
  result,
}));
`,
  );
  return consumer;
}

/** The runtimes beside the test runner's Node: each runs the same ES module consumer on the same installed tarball. */
const otherRuntimes = [
  ...pinnedNodes.map((node) => ({ ...node, args: [] })),
  { ...deno, args: ['run', '--allow-read', '--allow-env'] },
  { ...bun, args: ['run'] },
];

describe('other runtimes, from the same tarball', { timeout: 180_000 }, () => {
  for (const runtime of otherRuntimes) {
    test(`${runtime.name} imports the ES module and folds`, async () => {
      const consumer = await esmConsumer();
      const { stdout: version } = await run(runtime.command, ['--version']);
      const { stdout } = await run(runtime.command, [...runtime.args, consumer], { cwd: dirname(consumer) });
      const { resolved, exportNames, result } = JSON.parse(stdout);
      assert.match(resolved, /node_modules\/footprint-summarize\/dist\/index\.mjs$/, `${runtime.name} ${version.trim()}`);
      assert.deepEqual(exportNames, publicExports);
      assertConsumerScenario(result);
    });
  }
});

// Every page below declares an empty icon: otherwise Chromium's favicon
// request 404s and shows up as a console error next to the ones that matter.
describe('Chromium', { timeout: 180_000 }, () => {
  // The package file itself, and the browser entry that fetches the .wasm
  // beside it (`footprint-summarize/browser`), each imported by a page.
  for (const [name, file] of [['the package file', 'index.mjs'], ['the browser entry (.wasm fetched beside it)', 'browser.mjs']]) {
    test(`a <script type="module"> imports ${name} directly, no bundler`, async () => {
      const project = await consumerProject();
      const page = `browser-direct-${file.replace('.mjs', '')}`;
      await scratchApp(page, {
        'index.html': `<!doctype html>
<meta charset="utf-8">
<link rel="icon" href="data:,">
<title>footprint-summarize, no bundler</title>
<script type="module">
  import * as pkg from '/node_modules/footprint-summarize/dist/${file}';
  import { runConsumerScenario } from './${scenarioFile}';
  runConsumerScenario(pkg).then(
    (result) => { window.__result = result; },
    (error) => { window.__error = String((error && error.stack) || error); },
  );
</script>
`,
      });
      const wasmRequests = [];
      assertConsumerScenario(await resultFromPage(project.dir, `/${page}/`, (url) => wasmRequests.push(url)));
      // The browser entry fetches its .wasm; the package file never does.
      assert.equal(wasmRequests.length, file === 'browser.mjs' ? 1 : 0, wasmRequests.join(', '));
    });
  }

  test('footprint-summarize/browser resolves through the exports map to the browser entry', async () => {
    const project = await consumerProject();
    const probe = join(project.dir, 'resolve-browser.mjs');
    writeFileSync(probe, "process.stdout.write(import.meta.resolve('footprint-summarize/browser'));\n");
    const { stdout } = await run(process.execPath, [probe], { cwd: project.dir });
    assert.match(stdout, /\/node_modules\/footprint-summarize\/dist\/browser\.mjs$/);
  });

  test('an esbuild bundle with no plugins or config', async () => {
    const app = await scratchApp('esbuild-app', {
      'main.js': bundledAppMain,
      'index.html': bundledAppPage('esbuild', './dist/main.js'),
    });
    const { metafile } = await esbuild.build({
      absWorkingDir: app,
      entryPoints: ['main.js'],
      bundle: true,
      format: 'esm',
      outdir: 'dist',
      metafile: true,
      logLevel: 'silent',
    });
    const bundledInputs = Object.keys(metafile.inputs);
    assert.ok(
      bundledInputs.some((input) => input.endsWith('node_modules/footprint-summarize/dist/index.mjs')),
      `esbuild took the ES module through the exports map: ${bundledInputs.join(', ')}`,
    );
    assertConsumerScenario(await resultFromPage(app, '/'));
  });

  test('a Vite 7 build with no plugins or config', async () => {
    const app = await scratchApp('vite-app', {
      'main.js': bundledAppMain,
      'index.html': bundledAppPage('Vite', '/main.js'),
    });
    await viteBuild({ root: app, configFile: false, logLevel: 'silent' });
    assertConsumerScenario(await resultFromPage(join(app, 'dist'), '/'));
  });

  test('a webpack 5 production build with no loaders or plugins', async () => {
    const app = await scratchApp('webpack-app', {
      'main.js': bundledAppMain,
      'index.html': bundledAppPage('webpack', './dist/main.js'),
    });
    const stats = await new Promise((resolve, reject) => {
      webpack(
        {
          mode: 'production',
          context: app,
          entry: './main.js',
          target: 'web',
          experiments: { outputModule: true },
          output: { path: join(app, 'dist'), filename: 'main.js', module: true },
        },
        (error, result) => (error ? reject(error) : resolve(result)),
      );
    });
    assert.equal(stats.hasErrors(), false, stats.toString('errors-only'));
    const modules = stats.toJson({ modules: true }).modules.map((module) => module.name).join('\n');
    assert.match(modules, /node_modules\/footprint-summarize\/dist\/index\.mjs/, 'webpack took the ES module through the exports map');
    assertConsumerScenario(await resultFromPage(app, '/'));
  });

  test('a Rollup 4 bundle with node-resolve', async () => {
    const app = await scratchApp('rollup-app', {
      'main.js': bundledAppMain,
      'index.html': bundledAppPage('Rollup', './dist/main.js'),
    });
    const bundle = await rollup({ input: join(app, 'main.js'), plugins: [nodeResolve({ browser: true })], logLevel: 'silent' });
    assert.ok(
      bundle.watchFiles.some((file) => file.endsWith('node_modules/footprint-summarize/dist/index.mjs')),
      `Rollup took the ES module through the exports map: ${bundle.watchFiles.join(', ')}`,
    );
    await bundle.write({ file: join(app, 'dist/main.js'), format: 'es' });
    await bundle.close();
    assertConsumerScenario(await resultFromPage(app, '/'));
  });
});

describe('TypeScript', () => {
  const tsc = join(repoRoot, 'node_modules/typescript/bin/tsc');
  const typesFixtures = join(fixtures, 'types');
  // Each module-resolution mode reads the package through a different door:
  // the exports map's import and require conditions, the bundler mode, and the
  // legacy `types` field.
  const modes = [
    { name: 'nodenext, ES module', flags: ['--module', 'nodenext', '--moduleResolution', 'nodenext', '--exactOptionalPropertyTypes'], extension: '.mts', misuse: true },
    { name: 'nodenext, CommonJS', flags: ['--module', 'nodenext', '--moduleResolution', 'nodenext'], extension: '.cts' },
    { name: 'node16, CommonJS', flags: ['--module', 'node16', '--moduleResolution', 'node16'], extension: '.cts' },
    { name: 'bundler', flags: ['--module', 'esnext', '--moduleResolution', 'bundler'], extension: '.ts', misuse: true },
    { name: 'node10', flags: ['--module', 'commonjs', '--moduleResolution', 'node10'], extension: '.ts' },
  ];

  test('are-the-types-wrong finds no problem for `.` and `./agentfootprint` under node16 (ESM and CommonJS) and bundler', async () => {
    const attw = join(repoRoot, 'node_modules/@arethetypeswrong/cli/dist/index.js');
    const report = join(mkdtempSync(join(tmpdir(), 'fps-attw-')), 'attw.json');
    // Written to a file: attw exits before a piped stdout of this size drains.
    await run('bash', ['-c', `"${process.execPath}" "${attw}" "$1" --format json > "$2"`, 'attw', packedTarball(), report]).catch((error) => error);
    const { analysis, problems } = JSON.parse(readFileSync(report, 'utf8'));
    assert.deepEqual(Object.keys(analysis.entrypoints).sort(), ['.', './agentfootprint', './browser', './package.json']);
    assert.ok(analysis.types, 'attw found the types');
    // A problem of the whole package has no entrypoint or resolution kind: it counts too.
    const ours = (value, list) => value === undefined || list.includes(value);
    const found = Object.values(problems ?? {}).flat().filter((problem) =>
      ours(problem.entrypoint, ['.', './agentfootprint']) && ours(problem.resolutionKind, ['node16-cjs', 'node16-esm', 'bundler']));
    assert.deepEqual(found, []);
  });

  for (const mode of modes) {
    test(`tsc --strict accepts a consumer and rejects misuse (${mode.name})`, async () => {
      const project = await consumerProject();
      const dir = join(project.dir, `types-${mode.name.replace(/\W+/g, '-')}`);
      mkdirSync(dir, { recursive: true });
      const files = ['consumer', ...(mode.misuse ? ['misuse'] : [])].map((name) => {
        const file = join(dir, `${name}${mode.extension}`);
        copyFileSync(join(typesFixtures, `${name}.ts`), file);
        return file;
      });
      const result = await run(
        process.execPath,
        [tsc, '--strict', '--noEmit', '--target', 'es2022', '--pretty', 'false', ...mode.flags, ...files],
        { cwd: project.dir },
      ).catch((error) => error);
      assert.equal(result.code ?? 0, 0, `tsc reported:\n${result.stdout}${result.stderr}`);
    });
  }
});
