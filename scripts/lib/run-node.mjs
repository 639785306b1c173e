// Runs a Node.js script as a child process to completion and hands back what
// it printed: how the tests and the fleet benchmark drive the demo CLI.

import { spawn } from 'node:child_process';

/** Never rejects on a non-zero exit: `{ code, signal, stdout, stderr }` for the caller to judge. */
export function runNode(script, args, { env = process.env } = {}) {
  return new Promise((resolveRun, reject) => {
    const child = spawn(process.execPath, [script, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => resolveRun({ code, signal, stdout, stderr }));
  });
}
