// Instantiates the Wasm from the .wasm file beside the module (see
// scripts/package-entry.mjs), for browsers and CDNs that load the package
// file directly: the file is fetched and compiled while it downloads, and
// is about a quarter smaller than the base64 the other entries inline. The
// module's own top-level await waits for it, so importers still get a
// ready `summarize`, with no `init()` to call.
import { initSync } from './footprint_summarize.js';

const url = new URL('./footprint_summarize_bg.wasm', import.meta.url);
initSync({ module: await WebAssembly.compileStreaming(fetch(url)) });
