// A static file server on 127.0.0.1 for browser tests: the playground's
// server (examples/serve-www.mjs, with its MIME types and path checks) over a
// whole directory, on an ephemeral port.
import { createPlaygroundServer } from '../../../examples/serve-www.mjs';

/** Serves `root` on an ephemeral port. Resolves to `{ origin, close() }`. */
export async function serveDirectory(root) {
  const server = createPlaygroundServer(root, { directories: null });
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
