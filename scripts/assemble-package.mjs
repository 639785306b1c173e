// Assembles pkg/ from wasm-bindgen's output (target/bindgen) and the files in
// pkg-template/: bundles the entry with esbuild as ESM and CJS with the Wasm
// bytes inlined (so the default entries have no asset a bundler must know
// about), as the workerd entry that imports the .wasm as a module, and as
// the browser entry that fetches it; the .wasm is shipped beside them. The
// `./agentfootprint` subpath (src/agentfootprint/) is built as ESM and CJS
// with agentfootprint, footprintjs and this package left as imports.
import { build } from 'esbuild';
import { cpSync, copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const bindgen = join(root, 'target/bindgen');
const pkg = join(root, 'pkg');
const wasmPath = join(bindgen, 'footprint_summarize_bg.wasm');

writeFileSync(
  join(bindgen, 'wasm-bytes.js'),
  `export const WASM_BASE64 = ${JSON.stringify(readFileSync(wasmPath).toString('base64'))};\n`,
);
copyFileSync(join(root, 'scripts/package-entry.mjs'), join(bindgen, 'entry.mjs'));
writeFileSync(join(bindgen, 'instance.js'), instanceFactory(readFileSync(join(bindgen, 'footprint_summarize.js'), 'utf8')));
// The bindings' own JS (src/bindings/glue.js), as wasm-bindgen placed it: the
// entry imports the same module the instances do.
const glue = join(bindgen, 'snippets', readdirSync(join(bindgen, 'snippets'))[0], 'src/bindings/glue.js');
for (const init of ['wasm-init-inline.mjs', 'wasm-init-module.mjs', 'wasm-init-url.mjs']) copyFileSync(join(root, 'scripts', init), join(bindgen, init));

/**
 * wasm-bindgen's glue as a function that makes a fresh instance: its own
 * module state (the memory views, the closures' finalizers) around its own
 * `WebAssembly.Instance`. When an instance fails (a trap), the package entry
 * makes another, and retires the failed one so that nothing left of it (a
 * pending task, a finalizer) calls into it again.
 */
function instanceFactory(glueModule) {
  const lines = glueModule.split('\n');
  const imports = lines.filter((line) => line.startsWith('import '));
  let body = lines.filter((line) => !line.startsWith('import ')).join('\n');
  const names = [...body.matchAll(/^export function (\w+)/gm)].map((match) => match[1]);
  body = body.replace(/^export function /gm, 'function ').replace(/^export \{[^}]*\};?$/m, '');
  if (/^export /m.test(body)) throw new Error('wasm-bindgen output exports something the instance factory does not know');
  // Every task of wasm-bindgen-futures' queue runs under the bindings' guard:
  // a failure after a visit's await ends the instance like any other.
  const task = 'queueMicrotask(arg0);';
  if (body.split(task).length !== 2) throw new Error(`wasm-bindgen output does not queue its tasks with "${task}" once`);
  body = body.replace(task, 'queueMicrotask(guardTask(arg0));');
  const glueImport = imports.find((line) => line.includes('/src/bindings/glue.js'));
  imports.push(glueImport.replace(/^import .* from /, 'import { guardTask } from '));
  return `${imports.join('\n')}
export function createInstance() {
${body}
function retire() {
  // What is left of the failed instance (a promise's callback, a timer, a
  // finalizer) may still call into it: each export now does nothing and
  // answers zeros, which every generated wrapper reads as "returned nothing,
  // threw nothing". (A Proxy cannot stand in: the exports object is frozen,
  // so a Proxy's get must return the real functions.)
  const nothing = Object.freeze([0, 0, 0, 0]);
  wasm = Object.fromEntries(Object.entries(wasm).map(([name, value]) => [name, typeof value === 'function' ? () => nothing : value]));
}
return { ${names.join(', ')}, initSync, retire };
}
`;
}

/** Points the entry's `./wasm-init.js` at one way of compiling the Wasm, and `./glue.js` at the bindings' JS. */
const wasmInit = (file) => ({
  name: 'wasm-init',
  setup(plugin) {
    plugin.onResolve({ filter: /^\.\/wasm-init\.js$/ }, () => ({ path: join(bindgen, file) }));
    plugin.onResolve({ filter: /^\.\/glue\.js$/ }, () => ({ path: glue }));
  },
});

rmSync(pkg, { recursive: true, force: true });
mkdirSync(join(pkg, 'dist'), { recursive: true });
cpSync(join(root, 'pkg-template'), pkg, { recursive: true });
// The same declarations read as CommonJS, so `require` users on node16/nodenext
// resolution get CJS types under "type": "module".
copyFileSync(join(pkg, 'index.d.ts'), join(pkg, 'index.d.cts'));
copyFileSync(join(pkg, 'agentfootprint.d.ts'), join(pkg, 'agentfootprint.d.cts'));
// Published for the workerd entry, which imports it as a module (the other
// entries inline the bytes); size reports read the exact shipped Wasm here.
copyFileSync(wasmPath, join(pkg, 'dist/footprint_summarize_bg.wasm'));

const common = {
  entryPoints: [join(bindgen, 'entry.mjs')],
  bundle: true,
  platform: 'neutral',
  target: 'es2022',
  legalComments: 'none',
  logLevel: 'warning',
  logOverride: {
    // wasm-bindgen's imports object names the glue module once per import group.
    'duplicate-object-key': 'silent',
    // wasm-bindgen's async `init(url)` reads import.meta.url, which a CJS
    // build has no use for (it is never called); the browser entry's own
    // import.meta is ESM.
    'empty-import-meta': 'silent',
  },
};
const inline = { ...common, plugins: [wasmInit('wasm-init-inline.mjs')] };
await build({ ...inline, format: 'esm', outfile: join(pkg, 'dist/index.mjs') });
await build({ ...inline, format: 'cjs', outfile: join(pkg, 'dist/index.cjs') });
// workerd: the .wasm beside it, imported as a module.
await build({
  ...common,
  plugins: [wasmInit('wasm-init-module.mjs')],
  external: ['./footprint_summarize_bg.wasm'],
  format: 'esm',
  outfile: join(pkg, 'dist/workerd.mjs'),
});
// `footprint-summarize/browser`: the .wasm beside it, fetched and compiled while it streams.
await build({ ...common, plugins: [wasmInit('wasm-init-url.mjs')], format: 'esm', outfile: join(pkg, 'dist/browser.mjs') });
// `footprint-summarize/agentfootprint`: its peers and the main entry stay
// imports, so the stage it builds is the one the user's own import loads.
const agentfootprint = {
  ...common,
  entryPoints: [join(root, 'src/agentfootprint/define-memory.mjs')],
  external: ['agentfootprint', 'agentfootprint/*', 'footprintjs', 'footprint-summarize'],
};
await build({ ...agentfootprint, format: 'esm', outfile: join(pkg, 'dist/agentfootprint.mjs') });
await build({ ...agentfootprint, format: 'cjs', outfile: join(pkg, 'dist/agentfootprint.cjs') });
console.log(`pkg/ assembled (${readFileSync(wasmPath).length} bytes of Wasm)`);
