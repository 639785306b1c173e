#!/usr/bin/env node
// Where a Wasm module's code bytes are, per function: for size trade-offs
// against the 75,000-byte gzip budget. Names come from the module's name
// section, so build with FPS_WASM_NAMES=1 (see README, "Size per function");
// without one, functions are listed by index.
//
//   node scripts/bench/wasm-function-sizes.mjs A.wasm          the largest functions of A
//   node scripts/bench/wasm-function-sizes.mjs A.wasm B.wasm   what changed from A to B
import { readFileSync } from 'node:fs';

const SECTION_IMPORT = 2;
const SECTION_CODE = 10;
const SECTION_CUSTOM = 0;
const NAME_SUBSECTION_FUNCTIONS = 1;
const IMPORT_KIND_FUNCTION = 0;
const IMPORT_KIND_TABLE = 1;
const IMPORT_KIND_MEMORY = 2;
const IMPORT_KIND_GLOBAL = 3;
const IMPORT_KIND_TAG = 4;
// Reference types that carry a heap type after them (typed function references).
const REF = 0x64;
const REF_NULL = 0x63;
const TOP = 25;

/** Body bytes per function name (functions sharing a name are summed). */
function functionSizes(path) {
  const bytes = readFileSync(path);
  let at = 8; // magic and version
  const unsigned = () => {
    let value = 0;
    let shift = 0;
    let byte;
    do {
      byte = bytes[at++];
      value += (byte & 0x7f) * 2 ** shift;
      shift += 7;
    } while (byte & 0x80);
    return value;
  };
  const name = () => {
    const length = unsigned();
    at += length;
    return bytes.subarray(at - length, at).toString();
  };
  const limits = () => {
    const flags = unsigned();
    unsigned();
    if (flags & 1) unsigned(); // a maximum
    if (flags & 8) unsigned(); // a custom page size
  };
  const valueType = () => {
    const type = bytes[at++];
    if (type === REF || type === REF_NULL) unsigned(); // its heap type (signed, skipped alike)
  };
  let importedFunctions = 0;
  const bodies = [];
  const names = new Map();
  while (at < bytes.length) {
    const id = bytes[at++];
    const end = unsigned() + at;
    if (id === SECTION_IMPORT) {
      for (let count = unsigned(); count > 0; count--) {
        name();
        name();
        const kind = bytes[at++];
        if (kind === IMPORT_KIND_FUNCTION) {
          unsigned();
          importedFunctions++;
        } else if (kind === IMPORT_KIND_TABLE) {
          valueType();
          limits();
        } else if (kind === IMPORT_KIND_MEMORY) {
          limits();
        } else if (kind === IMPORT_KIND_GLOBAL) {
          valueType();
          at++; // mutability
        } else if (kind === IMPORT_KIND_TAG) {
          at++; // attribute
          unsigned();
        } else {
          // Its length is unknown, so every name after it would be wrong.
          throw new Error(`${path}: an import of unknown kind ${kind}`);
        }
      }
    } else if (id === SECTION_CODE) {
      for (let count = unsigned(); count > 0; count--) {
        const size = unsigned();
        bodies.push(size);
        at += size;
      }
    } else if (id === SECTION_CUSTOM && name() === 'name') {
      while (at < end) {
        const subsection = bytes[at++];
        const subsectionEnd = unsigned() + at;
        if (subsection === NAME_SUBSECTION_FUNCTIONS) {
          for (let count = unsigned(); count > 0; count--) {
            const index = unsigned();
            names.set(index, name());
          }
        }
        at = subsectionEnd;
      }
    }
    at = end;
  }
  const sizes = new Map();
  bodies.forEach((size, k) => {
    const index = importedFunctions + k;
    // Rust's hash suffix differs between builds; without it, builds compare.
    const label = (names.get(index) ?? `function ${index}`).replace(/::h[0-9a-f]{16}$/, '');
    sizes.set(label, (sizes.get(label) ?? 0) + size);
  });
  return sizes;
}

const total = (sizes) => [...sizes.values()].reduce((sum, size) => sum + size, 0);

const [first, second] = process.argv.slice(2);
if (first === undefined) {
  console.error('usage: node scripts/bench/wasm-function-sizes.mjs A.wasm [B.wasm]');
  process.exit(2);
}
const before = functionSizes(first);
if (second === undefined) {
  console.log(`code bytes: ${total(before)}; the ${TOP} largest by name:`);
  const largest = [...before].sort((a, b) => b[1] - a[1]).slice(0, TOP);
  for (const [label, size] of largest) console.log(`${String(size).padStart(7)}  ${label}`);
} else {
  const after = functionSizes(second);
  const changes = [];
  for (const label of new Set([...before.keys(), ...after.keys()])) {
    const change = (after.get(label) ?? 0) - (before.get(label) ?? 0);
    if (change !== 0) changes.push([change, label]);
  }
  changes.sort((a, b) => a[0] - b[0]);
  for (const [change, label] of changes) console.log(`${(change > 0 ? '+' : '') + change}`.padStart(7) + `  ${label}`);
  console.log(`code bytes: ${total(before)} → ${total(after)} (${total(after) - total(before)})`);
}
