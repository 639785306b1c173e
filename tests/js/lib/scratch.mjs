// A consumer project outside the repo that has the packed tarball installed the
// way a user installs it, so tests exercise what npm would ship — the exports
// map, the `files` list, the declarations — and never a file of the source tree.
//
//   const project = await scratchProject();
//   const pkg = await project.importPackage();          // ESM, through exports.import
//   const { flowChart } = await project.importPackage('footprintjs');
//
// Packs once per process (scripts/pack.sh, or the tarball named by FPS_TARBALL)
// and installs once per process. The directory is removed when the process
// exits unless FPS_KEEP_SCRATCH is set (handy when a test fails).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const repoRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
export const packageName = 'footprint-summarize';

let projectPromise;

/** The scratch project for this process, created on first call. */
export function scratchProject() {
  projectPromise ??= Promise.resolve().then(createScratchProject);
  return projectPromise;
}

/**
 * The packed package and footprintjs, both as installed in the scratch
 * project, so a pipeline never touches the repo's node_modules.
 */
export async function packageAndFootprint() {
  const project = await scratchProject();
  return { pkg: await project.importPackage(), footprint: await project.importPackage('footprintjs') };
}

let packed;
/** The packed tarball: FPS_TARBALL, or what scripts/pack.sh packs (once per process). */
export function packedTarball() {
  packed ??= packTarball();
  return packed;
}

function packTarball() {
  if (process.env.FPS_TARBALL) return resolve(process.env.FPS_TARBALL);
  let output;
  try {
    output = execFileSync('bash', [join(repoRoot, 'scripts/pack.sh')], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    // pack.sh says what is missing ("run scripts/build.sh first"); surface it.
    throw new Error(`scripts/pack.sh failed:\n${error.stderr || error.message}`);
  }
  const lines = output.trim().split('\n');
  return lines[lines.length - 1];
}

/** The version of `name` the repo's own tests run against, so both agree. */
export function repoVersion(name) {
  const manifest = join(repoRoot, 'node_modules', name, 'package.json');
  return JSON.parse(readFileSync(manifest, 'utf8')).version;
}

/** `npm install` of `specs` (npm specs or tarball paths) in `dir`, as a user installs them. */
function npmInstall(dir, specs) {
  try {
    execFileSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', ...specs], {
      cwd: dir,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  } catch (error) {
    throw new Error(`npm install ${specs.join(' ')} in ${dir} failed:\n${error.stderr || error.message}`);
  }
}

function createScratchProject() {
  const tarball = packedTarball();
  const dir = mkdtempSync(join(tmpdir(), 'fps-consumer-'));
  if (!process.env.FPS_KEEP_SCRATCH) {
    process.on('exit', () => rmSync(dir, { recursive: true, force: true }));
  }
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({ name: 'fps-consumer', version: '0.0.0', private: true }, null, 2),
  );
  npmInstall(dir, [
    tarball,
    `footprintjs@${repoVersion('footprintjs')}`,
    // The tokenizer the README's token examples import.
    `gpt-tokenizer@${repoVersion('gpt-tokenizer')}`,
  ]);

  const namespaces = new Map();

  return {
    dir,
    /** Installs more packages into the project (npm specs or tarball paths), as a user would. */
    install(...specs) {
      npmInstall(dir, specs);
    },
    /**
     * The ESM namespace of `specifier` as the scratch project resolves it
     * (the `import` condition). Default: this package.
     */
    importPackage(specifier = packageName) {
      if (!namespaces.has(specifier)) {
        // A bridge module inside the project, so resolution starts from there.
        const bridge = join(dir, `import-${specifier.replace(/[^a-z0-9]/gi, '_')}.mjs`);
        writeFileSync(
          bridge,
          `import * as namespace from ${JSON.stringify(specifier)};\nexport default namespace;\n`,
        );
        namespaces.set(
          specifier,
          import(pathToFileURL(bridge).href).then((module) => module.default),
        );
      }
      return namespaces.get(specifier);
    },
  };
}
