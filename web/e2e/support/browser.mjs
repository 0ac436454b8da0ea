// Launches Debian's Chromium through playwright-core (never a test tool's own browser download).
import { chromium } from 'playwright-core';

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
