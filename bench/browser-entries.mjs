// The "browser" section of bench/bench.mjs: the two entries a page can
// import without a bundler, in headless Chromium with an empty cache each
// time: dist/index.mjs (the Wasm inlined as base64) and dist/browser.mjs
// (`footprint-summarize/browser`: the .wasm fetched beside it and compiled
// while it streams). For each: the bytes the page downloaded for the
// package (bodies as sent, uncompressed: the test server does not compress),
// and the time from navigation to the end of a first provider + store fold
// at N = 20.
import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../tests/js/lib/chromium.mjs';
import { serveDirectory } from '../tests/js/lib/static-server.mjs';

const pkgDist = join(dirname(fileURLToPath(import.meta.url)), '../pkg/dist');
export const BROWSER_ENTRIES = ['index.mjs', 'browser.mjs'];

const page = (entry) => `<!doctype html>
<meta charset="utf-8">
<link rel="icon" href="data:,">
<script type="module">
  import { summarize } from './${entry}';
  const loaded = Array.from({ length: 20 }, (_, i) => ({
    id: 'msg-' + (Math.floor(i / 2) + 1) + '-' + (i % 2),
    value: { role: i % 2 ? 'assistant' : 'user', content: 'Order #4411 was refunded $42.50 on March 3, turn ' + i + '. '.repeat(3) },
    source: { turn: Math.floor(i / 2) + 1 },
    updatedAt: 1000 + i,
  }));
  let writes = 0;
  const stage = summarize({
    llm: { complete: async () => ({ content: 'Refund approved.' }) },
    model: 'mini-1',
    store: { put: async () => void writes++ },
  });
  const scope = { loaded, identity: { conversationId: 'c1' }, $emit() {} };
  await stage(scope);
  window.__result = { ms: performance.now(), folded: writes === 1 && scope.loaded !== loaded };
</script>
`;

/** Median ms and bytes per entry over `runs` page loads each, entries alternating. */
export async function measureBrowserEntries(runs) {
  const server = await serveDirectoryWithPages();
  const browser = await launchChromium();
  const samples = Object.fromEntries(BROWSER_ENTRIES.map((entry) => [entry, []]));
  try {
    for (let run = 0; run < runs; run++) {
      for (const entry of run % 2 === 0 ? BROWSER_ENTRIES : [...BROWSER_ENTRIES].reverse()) {
        const context = await browser.newContext();
        const tab = await context.newPage();
        const sizes = [];
        tab.on('requestfinished', (request) => {
          if (!request.url().endsWith('.html')) sizes.push(request.sizes().then((size) => size.responseBodySize));
        });
        await tab.goto(`${server.origin}/__bench/${entry}.html`);
        const handle = await tab.waitForFunction(() => window.__result, undefined, { timeout: 30_000 });
        const result = await handle.jsonValue();
        const bytes = (await Promise.all(sizes)).reduce((sum, size) => sum + size, 0);
        await context.close();
        samples[entry].push({ ...result, bytes });
      }
    }
  } finally {
    await browser.close();
    await server.close();
    rmSync(server.root, { recursive: true, force: true });
  }
  const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  return BROWSER_ENTRIES.map((entry) => ({
    entry,
    runs: samples[entry].length,
    firstFoldMs: median(samples[entry].map((s) => s.ms)),
    bytes: median(samples[entry].map((s) => s.bytes)),
    problems: samples[entry].every((s) => s.folded) ? [] : [`a page with ${entry} did not fold`],
  }));
}

/** A copy of pkg/dist under /__bench/, with one page per entry beside it. */
function serveDirectoryWithPages() {
  const root = mkdtempSync(join(tmpdir(), 'fps-browser-bench-'));
  cpSync(pkgDist, join(root, '__bench'), { recursive: true });
  for (const entry of BROWSER_ENTRIES) writeFileSync(join(root, '__bench', `${entry}.html`), page(entry));
  return serveDirectory(root).then((server) => ({ ...server, root }));
}
