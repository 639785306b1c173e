// Assembles pkg/ from wasm-bindgen's output (target/bindgen) and the files in
// pkg-template/: inlines the Wasm bytes, bundles the entry as ESM and CJS
// with esbuild (so the package has no asset a bundler must know about), and
// copies the .wasm alongside for size reporting and for users who want it.
import { build } from 'esbuild';
import { cpSync, copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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

rmSync(pkg, { recursive: true, force: true });
mkdirSync(join(pkg, 'dist'), { recursive: true });
cpSync(join(root, 'pkg-template'), pkg, { recursive: true });
// The same declarations read as CommonJS, so `require` users on node16/nodenext
// resolution get CJS types under "type": "module".
copyFileSync(join(pkg, 'index.d.ts'), join(pkg, 'index.d.cts'));
// Not published (package.json "files"): the bytes are inlined in both entries.
// Kept in pkg/ so size reports can read the exact shipped Wasm.
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
    // Only the async `init(url)` path uses import.meta, and it is tree-shaken away.
    'empty-import-meta': 'silent',
  },
};
await build({ ...common, format: 'esm', outfile: join(pkg, 'dist/index.mjs') });
await build({ ...common, format: 'cjs', outfile: join(pkg, 'dist/index.cjs') });
console.log(`pkg/ assembled (${readFileSync(wasmPath).length} bytes of Wasm)`);
