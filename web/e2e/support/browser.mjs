// Launches Debian's Chromium through playwright-core (never a test tool's own browser download).
import { chromium } from 'playwright-core';
import { startServer } from './server.mjs';

export const CHROMIUM = process.env.REGARD_CHROMIUM ?? '/usr/bin/chromium';

export async function launchBrowser() {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-quic',
      '--no-first-run',
    ],
  });
}

/** A browser suite's fixtures: the real server (with `env`) and Chromium, for `before`. */
export async function startServerAndBrowser(env = {}) {
  const server = await startServer(env);
  try {
    return { server, browser: await launchBrowser() };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

/** Closes what `startServerAndBrowser` started (nothing if it failed), for `after`. */
export async function stopServerAndBrowser({ server, browser }) {
  await browser?.close();
  await server?.stop();
}
