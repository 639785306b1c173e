#!/usr/bin/env node
// Serves the playground: www/ and pkg/ from this repository, side by side, so
// the page's `../pkg/dist/index.mjs` import resolves, and gpt-tokenizer's ES
// modules, the real tokenizer the page can count tokens with. Loopback only,
// no deps.
//
//   node examples/serve-www.mjs              → http://127.0.0.1:8787/www/
//   node examples/serve-www.mjs --port 9000
//   node examples/serve-www.mjs --port 0     → a free port; the URL is printed
//
// Prints one line, `Playground: <url>`, once it is listening.
// Importable too: `createPlaygroundServer(root, { directories })` serves
// another tree, or all of it with `directories: null` (tests).

import { createReadStream } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SERVED_DIRECTORIES = ['www', 'pkg', 'node_modules/gpt-tokenizer/esm'];
const DEFAULT_PORT = 8787;

const MIME_TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.cjs': 'text/javascript; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.ts': 'text/plain; charset=utf-8',
  '.md': 'text/plain; charset=utf-8',
  '.txt': 'text/plain; charset=utf-8',
};

function parsePort(argv) {
  const index = argv.findIndex((arg) => arg === '--port' || arg.startsWith('--port='));
  if (index === -1) return DEFAULT_PORT;
  const raw = argv[index].includes('=') ? argv[index].split('=')[1] : argv[index + 1];
  const port = Number(raw);
  if (raw === undefined || raw === '' || !Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`--port needs a whole number from 0 to 65535, got ${JSON.stringify(raw)}`);
  }
  return port;
}

/**
 * Maps a request path to a file under one of `directories` (paths under
 * `root`; null serves all of `root`), or returns undefined. The path is
 * decoded, resolved, and must still lie inside the served directory after
 * symlinks are followed, so `..`, encoded `%2e%2e` and links out of the tree
 * all end as 404.
 */
async function resolveFile(root, requestPath, directories) {
  let decoded;
  try {
    decoded = decodeURIComponent(requestPath);
  } catch {
    return undefined;
  }
  if (decoded.includes('\0')) return undefined;
  const servedDirectory =
    directories === null ? '' : directories.find((directory) => decoded.startsWith(`/${directory}/`) || decoded === `/${directory}`);
  if (servedDirectory === undefined) return undefined;
  const servedRoot = await realpath(path.join(root, servedDirectory)).catch(() => undefined);
  if (!servedRoot) return undefined;
  let candidate = path.resolve(root, `.${decoded}`);
  try {
    candidate = await realpath(candidate);
    if ((await stat(candidate)).isDirectory()) candidate = await realpath(path.join(candidate, 'index.html'));
  } catch {
    return undefined;
  }
  return candidate.startsWith(servedRoot + path.sep) ? candidate : undefined;
}

async function handle(root, directories, request, response) {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    response.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain; charset=utf-8' });
    response.end('Method not allowed\n');
    return;
  }
  const { pathname } = new URL(request.url, 'http://127.0.0.1');
  // Relative imports in the page only resolve from a directory URL.
  if (directories?.includes('www') && (pathname === '/' || pathname === '/www')) {
    response.writeHead(302, { location: '/www/' });
    response.end();
    return;
  }
  const file = await resolveFile(root, pathname, directories);
  if (!file) {
    response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' });
    response.end('Not found\n');
    return;
  }
  const { size } = await stat(file);
  response.writeHead(200, {
    'content-type': MIME_TYPES[path.extname(file).toLowerCase()] ?? 'application/octet-stream',
    'content-length': size,
    // pkg/ is rebuilt in place; a cached module would hide the new build.
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  if (request.method === 'HEAD') {
    response.end();
    return;
  }
  createReadStream(file).pipe(response);
}

/**
 * An http.Server (not yet listening) for `root`'s www/ and pkg/, or for the
 * given top-level `directories` (null: everything under `root`).
 */
export function createPlaygroundServer(root = REPO_ROOT, { directories = SERVED_DIRECTORIES } = {}) {
  return createServer((request, response) => {
    handle(root, directories, request, response).catch((error) => {
      if (!response.headersSent) response.writeHead(500, { 'content-type': 'text/plain; charset=utf-8' });
      response.end(`Internal error: ${error.message}\n`);
    });
  });
}

function main() {
  let port;
  try {
    port = parsePort(process.argv.slice(2));
  } catch (error) {
    console.error(error.message);
    process.exit(2);
  }
  const server = createPlaygroundServer();
  server.on('error', (error) => {
    console.error(`Could not serve the playground: ${error.message}`);
    process.exit(1);
  });
  server.listen(port, '127.0.0.1', () => {
    console.log(`Playground: http://127.0.0.1:${server.address().port}/www/`);
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) main();
