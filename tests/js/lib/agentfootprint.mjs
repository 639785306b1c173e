// agentfootprint for the tests that run a real Agent. The registry here does
// not carry it: scripts/bootstrap.sh installs ../shared/vendor's tarball into
// the repo's node_modules without saving it, and a scratch project installs
// the same package. Where it is absent those tests are skipped, with this
// reason (scripts/test.sh prints it once).
import { existsSync } from 'node:fs';
import { join } from 'node:path';

import { repoRoot, repoVersion, scratchProject } from './scratch.mjs';

export const AGENTFOOTPRINT_MISSING =
  'agentfootprint is not installed: `npm install --no-save ../shared/vendor/agentfootprint-9.62.0.tgz` ' +
  '(or `npm install --no-save agentfootprint` from a registry that carries it), then run the tests again';

/** What a project installs to get the repo's agentfootprint: its vendored tarball, else its version. */
function agentfootprintSpec() {
  if (!existsSync(join(repoRoot, 'node_modules/agentfootprint/package.json'))) return undefined;
  const version = repoVersion('agentfootprint');
  const vendored = join(repoRoot, '..', 'shared', 'vendor', `agentfootprint-${version}.tgz`);
  return existsSync(vendored) ? vendored : `agentfootprint@${version}`;
}

const spec = agentfootprintSpec();

/** node:test's `skip` option: the reason when agentfootprint is absent, else false. */
export const skipWithoutAgentfootprint = spec === undefined ? AGENTFOOTPRINT_MISSING : false;

let installed;
/**
 * The scratch project with agentfootprint installed beside this package, and
 * ioredis, which agentfootprint's RedisStore loads.
 */
export function projectWithAgentfootprint() {
  installed ??= scratchProject().then((project) => {
    project.install(spec, `ioredis@${repoVersion('ioredis')}`);
    return project;
  });
  return installed;
}
