// One fresh-process cold start: time to import the module, then time for the
// first fold (stage construction + one provider+store fold at N = 20, the size
// at which the default trigger first fires). Prints one JSON line.
import { loadSummarizeApi } from './load-api.mjs';
import { BENCH_IDENTITY, SUMMARIZER_MODEL, buildConversation, instantProvider } from './workloads.mjs';

const modulePath = process.argv[2];

const importStart = performance.now();
const api = await loadSummarizeApi(modulePath);
const importMs = performance.now() - importStart;

const loaded = buildConversation(20);
const scope = { loaded, identity: BENCH_IDENTITY, $emit() {} };
let writes = 0;
const config = {
  llm: instantProvider(),
  model: SUMMARIZER_MODEL,
  store: { put: async () => void writes++ },
};

const foldStart = performance.now();
await api.summarize(config)(scope);
const firstFoldMs = performance.now() - foldStart;

const folded = scope.loaded !== loaded && api.isSummaryEntry(scope.loaded[0]) && writes === 1;
process.stdout.write(JSON.stringify({ importMs, firstFoldMs, folded }) + '\n');
