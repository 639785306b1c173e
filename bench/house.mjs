#!/usr/bin/env node
// The house's counts (docs/architecture.md), read from the sources as they
// are, each against its bar; exits 1 when one is missed (the test command
// runs it):
//   - the steps of one fold from glue.js's entry to core::visit: the call path found
//     by following callers up from the bindings' call of `visit(`;
//   - the methods of the `Host` trait;
//   - the files in src/ over 500 lines;
//   - what scripts/ holds beside build, pack, test and bootstrap tooling.
// Prints one line a count, with its bar, and the path it found.
//
//   node bench/house.mjs

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const read = (path) => readFileSync(join(root, path), 'utf8');
const files = (dir) =>
  readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules') return [];
    return statSync(join(root, path)).isDirectory() ? files(path) : [path];
  });

// Rust functions of the bindings, each with the text of its body (to the
// next item at the same indentation), and the closures the entry points are.
function functionsOf(path) {
  const text = read(path);
  const found = [];
  const pattern = /^(\s*)(?:pub(?:\([^)]*\))? )?(?:async )?fn (\w+)|^\s*static (RUN|FOLD): JsValue/gm;
  const starts = [...text.matchAll(pattern)].map((match) => ({ name: match[2] ?? match[3], at: match.index }));
  for (const [index, start] of starts.entries()) {
    found.push({ name: start.name, file: path, body: text.slice(start.at, starts[index + 1]?.at ?? text.length) });
  }
  return found;
}

const bindings = files('src/bindings').filter((path) => path.endsWith('.rs')).flatMap(functionsOf);
const calls = (fn, name) => new RegExp(`(^|[^\\w])(\\w+::)*${name}\\(`).test(fn.body.slice(fn.body.indexOf('\n')));

// Up from the function that calls core's `visit(` to the FOLD entry point.
let path = [];
const visiting = bindings.filter((fn) => /(^|[^\w.])visit\(/.test(fn.body.slice(fn.body.indexOf('\n'))));
let current = visiting.find((fn) => /fold/i.test(fn.name)) ?? visiting[0];
const seen = new Set();
while (current && !seen.has(current.name)) {
  seen.add(current.name);
  path.unshift(`${relative('src', current.file)} ${current.name}`);
  if (current.name === 'FOLD') break;
  const callers = bindings.filter((fn) => fn.name !== current.name && calls(fn, current.name) && !seen.has(fn.name));
  // A fold's path: `stage.fold` → FOLD → host's fold → …
  current = callers.find((fn) => /fold/i.test(fn.name)) ?? callers[0];
}
const glue = read('src/bindings/glue.js');
const guarded = /stage\.fold = .*guarded\(/.test(glue) ? ['bindings/glue.js guarded'] : [];
path = [...guarded, ...path, 'core/visit.rs visit'];

const host = read('src/core/visit/host.rs');
const trait = host.slice(host.indexOf('pub trait Host'));
const hostMethods = [...trait.slice(0, trait.indexOf('\n}')).matchAll(/^\s{4}fn (\w+)/gm)].map((match) => match[1]);

const overLong = files('src')
  .map((path) => ({ path, lines: read(path).split('\n').length - 1 }))
  .filter(({ lines }) => lines > 500);

const tooling = /^(bootstrap|build|pack|test|toolchain-env)\.sh$|^(assemble-package|package-entry|wasm-init-[a-z]+)\.mjs$|^runtimes\//;
const otherScripts = files('scripts')
  .map((path) => relative('scripts', path))
  .filter((path) => !tooling.test(path) && !path.startsWith('runtimes/'));

let missed = 0;
const row = (what, value, bar, met) => {
  if (!met) missed += 1;
  console.log(`${met ? 'met   ' : 'missed'}  ${what}: ${value} (bar: ${bar})`);
};
// A walk that did not reach the FOLD entry point found no fold at all.
const walked = seen.has('FOLD') && guarded.length === 1;
row('steps of one fold from glue.js to core::visit', walked ? path.length : 'no walk found', 'at most 3: glue.js → the export → core::visit', walked && path.length <= 3);
console.log(`        ${path.join(' → ')}`);
row('Host methods', hostMethods.length, 'at most 18', hostMethods.length <= 18);
row('files in src/ over 500 lines', overLong.length, '0', overLong.length === 0);
for (const { path, lines } of overLong) console.log(`        ${path}: ${lines}`);
row('files in scripts/ other than build, pack, test and bootstrap tooling', otherScripts.length, '0', otherScripts.length === 0);
for (const path of otherScripts) console.log(`        scripts/${path}`);
process.exitCode = missed === 0 ? 0 : 1;
