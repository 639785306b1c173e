// Runs a Node.js script as a child process to completion and hands back what
// it printed: how the tests and the fleet benchmark drive the demo CLI.
// (`execFile` would cap what it collects at its `maxBuffer`; a fleet's JSON
// records run to megabytes.)

import { spawn } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const DEMO_CLI = resolve(dirname(fileURLToPath(import.meta.url)), '../../examples/demo/cli.mjs');

/**
 * Never rejects on a non-zero exit: `{ code, signal, stdout, stderr }` for
 * the caller to judge. `node` is this process's Node unless named, and
 * `nodeArgs` go before the script; past `timeout` ms the child is killed.
 */
export function runNode(script, args, { env = process.env, node = process.execPath, nodeArgs = [], timeout } = {}) {
  return new Promise((resolveRun, reject) => {
    const child = spawn(node, [...nodeArgs, script, ...args], { env, timeout, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => resolveRun({ code, signal, stdout, stderr }));
  });
}

/**
 * The demo CLI with `args`, with `extraEnv` added; the default key variable
 * (`OPENAI_API_KEY`) never leaks in from the machine, so a stub server
 * never receives a real key.
 */
export function runDemoCli(args, extraEnv = {}) {
  const env = { ...process.env, ...extraEnv };
  delete env.OPENAI_API_KEY;
  return runNode(DEMO_CLI, args, { env });
}

/** `--json` output: one record a line. */
export const jsonRecords = (stdout) => stdout.trimEnd().split('\n').map((line) => JSON.parse(line));
