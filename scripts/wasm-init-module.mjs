// The Wasm imported as a module (see scripts/package-entry.mjs): workerd and
// edge runtimes compile `.wasm` imports ahead of time and refuse to compile
// Wasm from bytes at run time.
import wasm from './footprint_summarize_bg.wasm';

export const compiledModule = wasm;
