// Instantiates the Wasm imported as a module (see scripts/package-entry.mjs):
// workerd and edge runtimes compile `.wasm` imports ahead of time and refuse
// to compile Wasm from bytes at run time.
import { initSync } from './footprint_summarize.js';
import wasm from './footprint_summarize_bg.wasm';

initSync({ module: wasm });
