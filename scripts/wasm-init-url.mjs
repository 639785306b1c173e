// Instantiates the Wasm from the .wasm file beside the module (see
// scripts/package-entry.mjs), for browsers and CDNs that load the package
// file directly: wasm-bindgen's own init fetches it from beside
// `import.meta.url` and compiles it while it downloads (falling back when a
// server sends the wrong MIME type), and the file is about a quarter smaller
// than the base64 the other entries inline. The module's own top-level await
// waits for it, so importers still get a ready `summarize`, with no `init()`
// to call.
import init from './footprint_summarize.js';

await init();
