// Starts the real `regard` binary for a test file: a loopback port, a fresh temporary data folder,
// the built web app, links in mails pointing back at it (REGARD_SITE_URL). Waits for the server's
// own "listening" log line (an event, not a poll or a delay) and stops the process (SIGTERM, then
// checks it exited) when the test file is done.
//
// The server must know its address before it starts (the links in its mails), so the port is
// picked first; another process may take it before the server binds it, so a start that fails to
// bind is retried on another port rather than failing the test.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const BIN = process.env.REGARD_BIN ?? new URL('../../../target/debug/regard', import.meta.url).pathname;
const WEB_DIR = process.env.REGARD_WEB_DIR ?? new URL('../../dist', import.meta.url).pathname;
const ATTEMPTS = 5;

/** A loopback port nobody listens on now. */
async function freePort() {
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

/** The port was taken between `freePort` and the server's bind: worth another try. */
class PortTaken extends Error {}

/**
 * The server's environment: what the test asks for and the few variables a process needs, never
 * the developer's whole shell (a REGARD_* variable there would change what is tested).
 */
function serverEnv(port, dataDir, env) {
  const url = `http://127.0.0.1:${port}`;
  const inherited = Object.fromEntries(
    ['PATH', 'HOME', 'TMPDIR', 'LANG', 'RUST_BACKTRACE'].filter((k) => process.env[k] !== undefined).map((k) => [k, process.env[k]]),
  );
  return {
    ...inherited,
    REGARD_BIND: `127.0.0.1:${port}`,
    REGARD_DATA_DIR: dataDir,
    REGARD_WEB_DIR: WEB_DIR,
    // Warnings, plus the startup module's info lines: "listening" says the server is up.
    RUST_LOG: `${process.env.RUST_LOG ?? 'warn'},regard::startup=info`,
    // Links in mails (recovery, confirmation) point back at this very server.
    REGARD_SITE_URL: url,
    ...env,
  };
}

async function launch(env, port) {
  const dataDir = await mkdtemp(join(tmpdir(), 'regard-e2e-'));
  const url = `http://127.0.0.1:${port}`;
  let output = '';
  const child = spawn(BIN, ['serve'], { env: serverEnv(port, dataDir, env), stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));

  // Up when the server logs that it listens; failed when it exits first; 30 s at most.
  const up = await new Promise((resolve) => {
    const timer = setTimeout(() => resolve('timeout'), 30_000);
    const read = (chunk) => {
      output += chunk;
      if (/\blistening\b/.test(output)) {
        clearTimeout(timer);
        resolve('listening');
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    exited.then(() => {
      clearTimeout(timer);
      resolve('exited');
    });
  });
  if (up !== 'listening') {
    if (up === 'timeout') child.kill('SIGKILL');
    await exited;
    await rm(dataDir, { recursive: true, force: true });
    if (/address already in use|os error 98/i.test(output)) throw new PortTaken(output);
    throw new Error(up === 'timeout' ? `regard did not start in 30 s:\n${output}` : `regard exited early:\n${output}`);
  }
  const ready = await fetch(`${url}/readyz`);
  if (!ready.ok) throw new Error(`regard listens but /readyz answers ${ready.status}:\n${output}`);

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

/**
 * @param {Record<string, string>} [env] extra REGARD_* settings for this instance
 * @returns {Promise<{url: string, dataDir: string, logs: () => string, stop: () => Promise<void>}>}
 */
export async function startServer(env = {}) {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await launch(env, await freePort());
    } catch (err) {
      if (!(err instanceof PortTaken) || attempt === ATTEMPTS) throw err;
    }
  }
}
