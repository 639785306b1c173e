// The Wasm from the .wasm file beside the module (see
// scripts/package-entry.mjs), for browsers and CDNs that load the package
// file directly: fetched from beside `import.meta.url` and compiled while it
// downloads (falling back when a server sends the wrong MIME type); the file
// is about a quarter smaller than the base64 the other entries inline. The
// module's own top-level await waits for it, so importers still get a ready
// `summarize`, with no `init()` to call.
const response = await fetch(new URL('footprint_summarize_bg.wasm', import.meta.url));
if (!response.ok) throw new Error(`footprint-summarize: fetching its Wasm failed: ${response.status} ${response.statusText} (${response.url})`);

async function compile(response) {
  try {
    return await WebAssembly.compileStreaming(response.clone());
  } catch (error) {
    // compileStreaming needs the application/wasm MIME type, which some servers do not send.
    if (response.headers.get('Content-Type') === 'application/wasm') throw error;
    return WebAssembly.compile(await response.arrayBuffer());
  }
}

export const compiledModule = await compile(response);
