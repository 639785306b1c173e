// examples/serve-www.mjs: serves www/ and pkg/ with the right MIME types and
// nothing outside them, whatever the request path tries.
//
//   node --test tests/js/serve-www.test.mjs

import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { createPlaygroundServer } from '../../examples/serve-www.mjs';

let root;
let server;
let port;

before(async () => {
  root = mkdtempSync(path.join(tmpdir(), 'serve-www-'));
  mkdirSync(path.join(root, 'www'));
  mkdirSync(path.join(root, 'pkg/dist'), { recursive: true });
  writeFileSync(path.join(root, 'www/index.html'), '<!doctype html><title>playground</title>');
  writeFileSync(path.join(root, 'www/app.js'), 'export {};');
  writeFileSync(path.join(root, 'www/styles.css'), 'body {}');
  writeFileSync(path.join(root, 'www/sample.json'), '[]');
  writeFileSync(path.join(root, 'pkg/dist/index.mjs'), 'export const ok = true;');
  writeFileSync(path.join(root, 'pkg/dist/module.wasm'), Buffer.from([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]));
  mkdirSync(path.join(root, 'node_modules/gpt-tokenizer/esm/encoding'), { recursive: true });
  writeFileSync(path.join(root, 'node_modules/gpt-tokenizer/esm/encoding/o200k_base.js'), 'export const countTokens = () => 1;');
  writeFileSync(path.join(root, 'node_modules/gpt-tokenizer/package.json'), '{}');
  mkdirSync(path.join(root, 'node_modules/other'), { recursive: true });
  writeFileSync(path.join(root, 'node_modules/other/index.js'), 'outside the served directories');
  writeFileSync(path.join(root, 'secret.txt'), 'outside the served directories');
  symlinkSync(path.join(root, 'secret.txt'), path.join(root, 'www/linked-secret.txt'));
  server = createPlaygroundServer(root);
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = server.address().port;
});

after(() => {
  server?.close();
  rmSync(root, { recursive: true, force: true });
});

/** A raw request: the path goes out exactly as written (fetch would normalize `..`). */
function get(rawPath, method = 'GET') {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, path: rawPath, method }, (response) => {
      let body = '';
      response.setEncoding('latin1');
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode, headers: response.headers, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

test('serves www/ and pkg/ files with their MIME types', async () => {
  const expectations = [
    ['/www/', 'text/html; charset=utf-8', '<!doctype html><title>playground</title>'],
    ['/www/index.html', 'text/html; charset=utf-8', '<!doctype html><title>playground</title>'],
    ['/www/app.js', 'text/javascript; charset=utf-8', 'export {};'],
    ['/www/styles.css', 'text/css; charset=utf-8', 'body {}'],
    ['/www/sample.json', 'application/json; charset=utf-8', '[]'],
    ['/pkg/dist/index.mjs', 'text/javascript; charset=utf-8', 'export const ok = true;'],
    ['/pkg/dist/module.wasm', 'application/wasm', '\0asm\x01\0\0\0'],
    ['/node_modules/gpt-tokenizer/esm/encoding/o200k_base.js', 'text/javascript; charset=utf-8', 'export const countTokens = () => 1;'],
  ];
  for (const [requestPath, contentType, body] of expectations) {
    const response = await get(requestPath);
    assert.equal(response.status, 200, requestPath);
    assert.equal(response.headers['content-type'], contentType, requestPath);
    assert.equal(response.body, body, requestPath);
  }
});

test('redirects the root and /www to the page directory, so relative imports resolve', async () => {
  for (const requestPath of ['/', '/www']) {
    const response = await get(requestPath);
    assert.equal(response.status, 302, requestPath);
    assert.equal(response.headers.location, '/www/', requestPath);
  }
});

test("refuses every path outside www/, pkg/ and gpt-tokenizer's esm/", async () => {
  const escapes = [
    '/secret.txt',
    '/www/../secret.txt',
    '/www/%2e%2e/secret.txt',
    '/www/..%2fsecret.txt',
    '/pkg/..%2f..%2fsecret.txt',
    '/www/%2e%2e%2f%2e%2e%2fetc/passwd',
    '/www/linked-secret.txt',
    '/www/app.js%00.html',
    '/www/%E0%A4%A',
    '/node_modules/',
    '/node_modules/other/index.js',
    '/node_modules/gpt-tokenizer/package.json',
    '/node_modules/gpt-tokenizer/esm/../package.json',
    '/node_modules/gpt-tokenizer/esm/%2e%2e/package.json',
    '/node_modules/gpt-tokenizer/esmx/encoding/o200k_base.js',
  ];
  for (const requestPath of escapes) {
    const response = await get(requestPath);
    assert.equal(response.status, 404, requestPath);
    assert.doesNotMatch(response.body, /outside the served directories|root:/, requestPath);
  }
});

test('answers only GET and HEAD', async () => {
  const head = await get('/www/app.js', 'HEAD');
  assert.equal(head.status, 200);
  assert.equal(head.headers['content-length'], String('export {};'.length));
  assert.equal(head.body, '');
  const post = await get('/www/app.js', 'POST');
  assert.equal(post.status, 405);
  assert.equal(post.headers.allow, 'GET, HEAD');
});
