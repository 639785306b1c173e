// The runtimes scripts/runtimes/package.json installs (bootstrap.sh does),
// beside the Node that runs the tests.
import { join } from 'node:path';
import { repoRoot } from './scratch.mjs';

const runtimesDir = join(repoRoot, 'scripts/runtimes/node_modules');

/** The pinned Node releases, each by its major version. */
export const pinnedNodes = [22, 24, 26].map((major) => ({
  name: `Node ${major}`,
  major,
  command: join(runtimesDir, `node${major}/bin/node`),
}));

export const deno = { name: 'Deno', command: join(runtimesDir, '.bin/deno') };
export const bun = { name: 'Bun', command: join(runtimesDir, '.bin/bun') };
