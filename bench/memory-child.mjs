// Memory after many folds in a fresh process (run with --expose-gc): one
// long-lived stage serving 64 conversations, provider+model+store at N = 200,
// every turn a real fold. Reports process.memoryUsage() before the first fold
// and after the last (both after full GCs), the Wasm linear memory the module
// instantiated, and the Wasm bytes it compiled (and, when the module inlines
// them as base64, how many bytes of the module file are glue rather than Wasm).
// Prints one JSON line.
import { readFileSync } from 'node:fs';
import { watchWebAssembly } from './wasm-probe.mjs';
import { loadSummarizeApi } from './load-api.mjs';
import { compressedSizes } from './sizes.mjs';
import { SUMMARIZER_MODEL, buildConversation, instantProvider } from './workloads.mjs';

const [modulePath, foldsArgument] = process.argv.slice(2);
const folds = Number(foldsArgument);
const webAssembly = watchWebAssembly();
const api = await loadSummarizeApi(modulePath);

const loaded = buildConversation(200);
const identities = Array.from({ length: 64 }, (_, i) => ({ tenant: 'acme-eu', principal: `user-${i}`, conversationId: `conv-${i}` }));
let writes = 0;
const stage = api.summarize({
  llm: instantProvider(),
  model: SUMMARIZER_MODEL,
  store: { put: async () => void writes++ },
});

function settledUsage() {
  globalThis.gc();
  globalThis.gc();
  return { ...process.memoryUsage(), wasmLinearMemory: webAssembly.linearMemoryBytes() };
}

const before = settledUsage();
let folded = 0;
for (let i = 0; i < folds; i++) {
  const scope = { loaded, identity: identities[i % identities.length], $emit() {} };
  await stage(scope);
  if (scope.loaded !== loaded && scope.loaded.length < loaded.length) folded++;
}
const after = settledUsage();

// latin1 maps bytes 1:1 to characters, so text lengths below are byte counts.
let glueText = readFileSync(modulePath, 'latin1');
const wasmModules = webAssembly.moduleBytes().map((bytes) => {
  const base64 = bytes.toString('base64');
  const inlined = glueText.includes(base64);
  if (inlined) glueText = glueText.replace(base64, '');
  return { ...compressedSizes(bytes), inlinedBase64Bytes: inlined ? base64.length : null };
});
const glue = compressedSizes(Buffer.from(glueText, 'latin1'));

process.stdout.write(JSON.stringify({ folds, folded, writes, before, after, wasmModules, glue }) + '\n');
