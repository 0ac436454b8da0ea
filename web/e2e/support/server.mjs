// Starts the real `regard` binary for a test file: a free loopback port, a fresh temporary data
// folder, the built web app, links in mails pointing back at it (REGARD_SITE_URL). Waits for
// /readyz to answer (a condition, not a fixed delay) and stops the process (SIGTERM, then checks
// it exited) when the test file is done.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BIN = process.env.REGARD_BIN ?? new URL('../../../target/debug/regard', import.meta.url).pathname;
const WEB_DIR = process.env.REGARD_WEB_DIR ?? new URL('../../dist', import.meta.url).pathname;

/** A loopback port nobody listens on now (to know a server's address before starting it). */
export async function freePort() {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => resolve(port));
    });
  });
}

/**
 * @param {Record<string, string>} [env] extra REGARD_* settings for this instance
 * @param {{port?: number}} [options] the port to listen on (from freePort), when something
 *   started before the server must know its address; a fresh free port otherwise
 * @returns {Promise<{url: string, dataDir: string, logs: () => string, stop: () => Promise<void>}>}
 */
export async function startServer(env = {}, { port = undefined } = {}) {
  const dataDir = await mkdtemp(join(tmpdir(), 'regard-e2e-'));
  port ??= await freePort();
  const url = `http://127.0.0.1:${port}`;
  let output = '';
  const child = spawn(BIN, ['serve'], {
    env: {
      ...process.env,
      REGARD_BIND: `127.0.0.1:${port}`,
      REGARD_DATA_DIR: dataDir,
      REGARD_WEB_DIR: WEB_DIR,
      RUST_LOG: process.env.RUST_LOG ?? 'warn',
      // Links in mails (recovery, confirmation) point back at this very server.
      REGARD_SITE_URL: url,
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));

  // Ready when /readyz answers 200; give up after 30 s or as soon as the process dies.
  const deadline = Date.now() + 30_000;
  let ready = false;
  while (!ready) {
    if (child.exitCode !== null) throw new Error(`regard exited early (${child.exitCode}):\n${output}`);
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`regard did not become ready in 30 s:\n${output}`);
    }
    try {
      ready = (await fetch(`${url}/readyz`)).ok;
    } catch {
      await new Promise((r) => setTimeout(r, 50)); // the port is not open yet: poll again
    }
  }

  return {
    url,
    dataDir,
    logs: () => output,
    async stop() {
      if (child.exitCode === null) child.kill('SIGTERM');
      const { code, signal } = await exited;
      await rm(dataDir, { recursive: true, force: true });
      if (code !== 0 && signal !== 'SIGTERM') {
        throw new Error(`regard did not shut down cleanly (code ${code}, signal ${signal}):\n${output}`);
      }
    },
  };
}
