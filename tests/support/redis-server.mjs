// A real Redis server (Debian's redis-server, which scripts/bootstrap.sh
// installs) on a free loopback port, started and stopped by the tests and the
// fleet benchmark that need one. Its append-only file is fsynced on every
// write, so a server killed with SIGKILL and started again on the same port
// and directory comes back with every write it acknowledged.

import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, connect } from 'node:net';
import { tmpdir } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { join } from 'node:path';

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Resolves once the port accepts a connection and answers PING. */
async function ready(port, deadline) {
  for (;;) {
    const answered = await new Promise((resolve) => {
      const socket = connect(port, '127.0.0.1');
      socket.once('error', () => resolve(false));
      socket.once('connect', () => socket.write('PING\r\n'));
      socket.once('data', (data) => {
        socket.destroy();
        resolve(data.toString().startsWith('+PONG'));
      });
    });
    if (answered) return;
    if (Date.now() > deadline) throw new Error(`redis-server on port ${port} did not start within its deadline`);
    await sleep(50);
  }
}

/**
 * `fsyncEveryWrite: false` runs Redis as it ships (no append-only file), for
 * timings; the default keeps every acknowledged write across a SIGKILL.
 */
export async function startRedis({ fsyncEveryWrite = true } = {}) {
  const found = spawnSync('redis-server', ['--version'], { encoding: 'utf8' });
  if (found.error) {
    throw new Error('redis-server is not installed: run bash scripts/bootstrap.sh (it installs Debian\'s redis-server)');
  }
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'fps-redis-'));
  let child;
  const start = async () => {
    child = spawn(
      'redis-server',
      [
        '--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '',
        ...(fsyncEveryWrite ? ['--appendonly', 'yes', '--appendfsync', 'always'] : ['--appendonly', 'no']),
      ],
      { stdio: 'ignore' },
    );
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.exited = exited;
    await ready(port, Date.now() + 10_000);
  };
  await start();
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    /** SIGKILL: no shutdown save; the append-only file has every acknowledged write. */
    async kill() {
      child.kill('SIGKILL');
      await child.exited;
    },
    start,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        await child.exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
