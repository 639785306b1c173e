// A minimal static file server on 127.0.0.1 for browser tests: a page can only
// load ES modules over HTTP with a JavaScript MIME type, and Wasm streaming
// needs `application/wasm`; the types are the playground server's.
import { createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';
import { MIME_TYPES as contentTypes } from '../../../scripts/serve-www.mjs';

/** Serves `root` on an ephemeral port. Resolves to `{ origin, close() }`. */
export async function serveDirectory(root) {
  const server = createServer((request, response) => {
    const { pathname } = new URL(request.url, 'http://127.0.0.1');
    const relative = normalize(decodeURIComponent(pathname)).replace(/^([/\\])+/, '');
    let file = join(root, relative);
    // Refuse anything that escapes the served directory.
    if (file !== root && !file.startsWith(root + sep)) {
      response.writeHead(403).end();
      return;
    }
    try {
      if (statSync(file).isDirectory()) file = join(file, 'index.html');
      statSync(file);
    } catch {
      response.writeHead(404, { 'content-type': 'text/plain' }).end(`not found: ${pathname}`);
      return;
    }
    response.writeHead(200, {
      'content-type': contentTypes[extname(file)] ?? 'application/octet-stream',
      'cache-control': 'no-store',
    });
    createReadStream(file).pipe(response);
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address();
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.close(resolve);
        // The browser keeps connections alive; without this close() waits for them.
        server.closeAllConnections();
      }),
  };
}
