// The Wasm compiled from the bytes inlined into the bundle (see
// scripts/package-entry.mjs): no file to fetch or resolve, in Node, browsers
// and any bundler.
import { WASM_BASE64 } from './wasm-bytes.js';

function decodeBase64(base64) {
  // Native decoders first: at import time every millisecond is cold start.
  if (typeof Uint8Array.fromBase64 === 'function') return Uint8Array.fromBase64(base64);
  if (typeof Buffer === 'function') return Buffer.from(base64, 'base64');
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

export const compiledModule = new WebAssembly.Module(decodeBase64(WASM_BASE64));
