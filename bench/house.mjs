#!/usr/bin/env node
// The house's counts (docs/architecture.md), read from the sources as they
// are, each against its bar; exits 1 when one is missed (the test command
// runs it):
//   - the steps of one fold from glue.js's entry to core::visit: the call path found
//     by following callers up from the bindings' call of `visit(`;
//   - the methods of the `Host` trait;
//   - the files in src/ over 500 lines;
//   - the Rust functions in src/ over 80 lines, and the length of the visit's steps;
//   - the functions in www/, examples/ and bench/ over 150 lines (the original's stand-in aside);
//   - glue.js's module-level `let` bindings, and the stores docs/architecture.md's state table does not name;
//   - the SPEC sections docs/architecture.md does not map to tests;
//   - commit hashes quoted in the README and in test comments;
//   - what scripts/ holds beside build, pack, test and bootstrap tooling.
// Prints one line a count, with its bar, and the path it found.
//
//   node bench/house.mjs

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';

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

// Rust functions with their length in lines, to the brace that closes the
// body (strings, chars and line comments skipped, lifetimes left alone).
function rustFunctions(path) {
  const text = read(path);
  const found = [];
  for (const match of text.matchAll(/^\s*(?:pub(?:\([^)]*\))? )?(?:const )?(?:async )?(?:unsafe )?fn (\w+)[^;{]*\{/gm)) {
    let depth = 0;
    let at = match.index + match[0].length - 1;
    for (; at < text.length; at += 1) {
      const c = text[at];
      if (c === '/' && text[at + 1] === '/') at = text.indexOf('\n', at);
      else if (c === '"') {
        for (at += 1; text[at] !== '"'; at += 1) if (text[at] === '\\') at += 1;
      } else if (c === "'" && text[at + 2] === "'") at += 2;
      else if (c === "'" && text[at + 1] === '\\') at = text.indexOf("'", at + 2);
      else if (c === '{') depth += 1;
      else if (c === '}' && --depth === 0) break;
    }
    found.push({ name: match[1], path, lines: text.slice(match.index, at).split('\n').length });
  }
  return found;
}
const rust = files('src').filter((path) => path.endsWith('.rs')).flatMap(rustFunctions);
const longRust = rust.filter(({ lines }) => lines > 80);
const visitSteps = rust.filter(({ path, name }) => path === join('src', 'core', 'visit.rs') && ['visit', 'prepare', 'act'].includes(name));

// JS functions with their length in lines, as TypeScript's parser finds them.
function jsFunctions(path) {
  const source = ts.createSourceFile(path, read(path), ts.ScriptTarget.Latest, true);
  const line = (at) => source.getLineAndCharacterOfPosition(at).line;
  const found = [];
  const visit = (node) => {
    if (ts.isFunctionLike(node) && node.body) {
      found.push({ name: node.name?.getText(source) ?? '(anonymous)', path, lines: line(node.end) - line(node.getStart(source)) + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}
const longJs = ['www', 'examples', 'bench']
  .flatMap(files)
  .filter((path) => /\.m?js$/.test(path) && path !== join('bench', 'reference-original.mjs'))
  .flatMap(jsFunctions)
  .filter(({ lines }) => lines > 150);

// glue.js's state: its module-level `let`s, and each module-level binding
// that holds a store (a let, or a const made by `new`) the state table names.
const architecture = read('docs/architecture.md');
const stateTable = architecture.slice(architecture.indexOf('## State'), architecture.indexOf('\n## ', architecture.indexOf('## State') + 1));
const glueLets = [...glue.matchAll(/^let (\w+)/gm)].map((match) => match[1]);
const glueStores = [...glue.matchAll(/^(?:let (\w+)|const (\w+) = (?:new |\{))/gm)].map((match) => match[1] ?? match[2]);
const unlisted = glueStores.filter((name) => !stateTable.includes(`\`${name}\``));

// Every numbered SPEC section, and the rows of the tests map.
const behaviour = read('docs/behaviour.md');
const sections = [...behaviour.matchAll(/^## (\d+)\. /gm)].map((match) => `§${match[1]}`);
const testsMap = architecture.slice(architecture.indexOf('## Where the contract is tested'));
const unmapped = sections.filter((section) => !new RegExp(`^\\| ${section}[ ,]`, 'm').test(testsMap));

// Commit hashes: 7 to 40 hex digits with a digit and a letter, outside code
// blocks and URLs (a version or a hex constant in code is not one).
const hashes = (path) => {
  const prose = read(path).replace(/```[\s\S]*?```/g, '').replace(/https?:\/\/\S+/g, '');
  return [...prose.matchAll(/\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\b/g)].map((match) => `${path}: ${match[0]}`);
};
const testComments = (path) => {
  const comments = read(path).split('\n').filter((line) => /^\s*(\/\/|\*|\/\*)/.test(line)).join('\n');
  return [...comments.matchAll(/\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*[0-9])[0-9a-f]{7,40}\b/g)].map((match) => `${path}: ${match[0]}`);
};
const quotedHashes = [
  ...hashes('README.md'),
  ...files('tests').filter((path) => /\.(rs|m?js)$/.test(path) && !path.includes('fixtures') && !path.includes('corpus')).flatMap(testComments),
];

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
row('Rust functions in src/ over 80 lines', longRust.length, '0', longRust.length === 0);
for (const { path, name, lines } of longRust) console.log(`        ${path} ${name}: ${lines}`);
const longestStep = Math.max(...visitSteps.map(({ lines }) => lines));
row('lines of the longest step of core::visit (visit, prepare, act)', visitSteps.length === 3 ? longestStep : 'steps not found', 'at most 60', visitSteps.length === 3 && longestStep <= 60);
row('functions in www/, examples/ and bench/ over 150 lines', longJs.length, '0 (bench/reference-original.mjs aside)', longJs.length === 0);
for (const { path, name, lines } of longJs) console.log(`        ${path} ${name}: ${lines}`);
row("glue.js's module-level `let` bindings", glueLets.length, 'at most 4', glueLets.length <= 4);
console.log(`        ${glueLets.join(', ')}`);
row("glue.js stores the state table in docs/architecture.md does not name", unlisted.length, '0', unlisted.length === 0);
for (const name of unlisted) console.log(`        ${name}`);
row('SPEC sections docs/architecture.md does not map to tests', unmapped.length, `0 of ${sections.length}`, sections.length > 0 && unmapped.length === 0);
for (const section of unmapped) console.log(`        ${section}`);
row('commit hashes quoted in README.md and test comments', quotedHashes.length, '0', quotedHashes.length === 0);
for (const hash of quotedHashes) console.log(`        ${hash}`);
row('files in scripts/ other than build, pack, test and bootstrap tooling', otherScripts.length, '0', otherScripts.length === 0);
for (const path of otherScripts) console.log(`        scripts/${path}`);
process.exitCode = missed === 0 ? 0 : 1;
