#!/usr/bin/env node
// Screenshots of the account screens for a look by eye: login (providers, forgot password, the
// recovery mail's code), the code screen, the account page (and its TOTP dialog), "choose a new password"; French and English,
// light and dark, phone width (390 px) and desktop. The built app is served by `vite preview`;
// the auth server's answers are stubbed in the page (no server needed), so the screens show
// whatever state is wanted.
//
//   npm run build && node scripts/screenshots.mjs [out-dir]
import { spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const OUT = process.argv[2] ?? 'screenshots';
const PORT = 4199;
const BASE = `http://127.0.0.1:${PORT}`;

const b64 = (value) => Buffer.from(JSON.stringify(value)).toString('base64url');
const jwt = (aal) => `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64({ sub: 'u1', aal, exp: 4_000_000_000 })}.sig`;

const totp = { id: 'f1', friendly_name: 'Téléphone perso', factor_type: 'totp', status: 'verified', created_at: '2026-03-14T10:00:00Z', updated_at: '2026-03-14T10:00:00Z' };
const phone = { id: 'f2', friendly_name: 'Portable', factor_type: 'phone', status: 'verified', phone: '33612345678', created_at: '2026-04-02T09:00:00Z', updated_at: '2026-04-02T09:00:00Z' };
const identities = [
  { id: 'i1', identity_id: 'i1', user_id: 'u1', provider: 'email', identity_data: { email: 'ada.lovelace@example.com' } },
  { id: 'i2', identity_id: 'i2', user_id: 'u1', provider: 'google', identity_data: { email: 'ada.lovelace@gmail.com' } },
];
const user = (factors) => ({
  id: 'u1',
  aud: 'authenticated',
  email: 'ada.lovelace@example.com',
  app_metadata: { provider: 'email' },
  user_metadata: {},
  identities,
  factors,
  created_at: '2026-01-01T00:00:00Z',
});
const session = (aal, factors) => ({
  access_token: jwt(aal),
  refresh_token: 'r',
  token_type: 'bearer',
  expires_in: 3600,
  expires_at: 4_000_000_000,
  user: user(factors),
});

/** A QR-looking SVG (not a real code): enough to judge the layout. */
function fakeQr() {
  let cells = '';
  for (let y = 0; y < 25; y += 1)
    for (let x = 0; x < 25; x += 1) if ((x * 7 + y * 13 + x * y) % 3 === 0) cells += `<rect x="${x}" y="${y}" width="1" height="1"/>`;
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 25 25" fill="#000">${cells}</svg>`;
}

async function stub(page, { factors = [] } = {}) {
  await page.route('**/auth/v1/settings', (route) =>
    route.fulfill({ json: { external: { email: true, phone: false, anonymous_users: false, google: true, keycloak: true }, disable_signup: false, mailer_autoconfirm: true } }),
  );
  await page.route('**/auth/v1/user', (route) => route.fulfill({ json: user(factors) }));
  await page.route('**/auth/v1/recover*', (route) => route.fulfill({ json: {} }));
  await page.route('**/auth/v1/factors/*/challenge', (route) => route.fulfill({ json: { id: 'c1', type: 'totp', expires_at: 4_000_000_000 } }));
  await page.route('**/auth/v1/factors', (route) =>
    route.fulfill({ json: { id: 'f3', type: 'totp', friendly_name: 'Application', totp: { qr_code: fakeQr(), secret: 'JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP', uri: 'otpauth://totp/Regard' } } }),
  );
  await page.route('**/api/v1/**', (route) => route.fulfill({ json: { items: [], next_cursor: null } }));
}

async function shoot(browser, { name, lang, theme, width, stored, factors, path, act }) {
  const context = await browser.newContext({ viewport: { width, height: width < 600 ? 844 : 900 }, colorScheme: theme, deviceScaleFactor: 1 });
  await context.addInitScript(
    ([language, themeChoice, sessionValue]) => {
      localStorage.setItem('regard-language', language);
      localStorage.setItem('theme-storage', JSON.stringify({ state: { theme: themeChoice }, version: 0 }));
      if (sessionValue) localStorage.setItem('regard-auth-token', sessionValue);
    },
    [lang, theme, stored ? JSON.stringify(stored) : null],
  );
  const page = await context.newPage();
  await stub(page, { factors });
  await page.goto(`${BASE}${path}`);
  await page.waitForLoadState('networkidle');
  if (act) await act(page);
  await page.waitForTimeout(300);
  const file = join(OUT, `${name}-${lang}-${theme}-${width}.png`);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  if (overflow > 0) console.warn(`${name} ${lang} ${theme} ${width}: the page is ${overflow} px wider than the window`);
  // Popovers and dialogs are fixed over the page: the window is what matters.
  const popover = name.startsWith('menu') || name.endsWith('dialog');
  await page.screenshot({ path: file, fullPage: !popover });
  await context.close();
  return file;
}

const SCREENS = [
  { name: 'login', path: '/creatives' },
  { name: 'forgot', path: '/creatives', act: (page) => page.getByTestId('forgot-password').click() },
  {
    name: 'recovery-code',
    path: '/creatives',
    act: async (page) => {
      await page.getByTestId('forgot-password').click();
      await page.locator('input[type="email"]').fill('ada.lovelace@example.com');
      await page.getByTestId('auth-submit').click();
      await page.getByTestId('recovery-code').waitFor();
    },
  },
  { name: 'code', path: '/creatives', stored: session('aal1', [totp, phone]), factors: [totp, phone] },
  { name: 'account', path: '/account', stored: session('aal2', [totp, phone]), factors: [totp, phone] },
  {
    name: 'menu',
    path: '/account',
    stored: session('aal2', [totp]),
    factors: [totp],
    act: async (page) => {
      await page.getByTestId('user-menu').click();
      await page.locator('.user-menu__panel').waitFor();
    },
  },
  {
    name: 'totp-dialog',
    path: '/account',
    stored: session('aal2', []),
    factors: [],
    act: async (page) => {
      await page.getByTestId('add-totp').click();
      await page.getByTestId('totp-start').click();
      await page.getByTestId('totp-secret').waitFor();
    },
  },
  { name: 'reset', path: '/reset-password', stored: session('aal1', []), factors: [] },
];

const preview = spawn('npx', ['vite', 'preview', '--port', String(PORT), '--strictPort', '--host', '127.0.0.1'], { stdio: 'ignore' });
try {
  for (let i = 0; ; i += 1) {
    try {
      if ((await fetch(BASE)).ok) break;
    } catch {
      if (i > 100) throw new Error('vite preview did not start');
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  await mkdir(OUT, { recursive: true });
  const browser = await chromium.launch({ executablePath: process.env.REGARD_CHROMIUM ?? '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
  const only = process.env.SCREENS?.split(',');
  const variants = (process.env.VARIANTS ?? 'fr:light:390,en:dark:390').split(',').map((v) => v.split(':'));
  for (const screen of SCREENS.filter((s) => !only || only.includes(s.name))) {
    for (const [lang, theme, width] of variants) console.log(await shoot(browser, { ...screen, lang, theme, width: Number(width) }));
  }
  await browser.close();
} finally {
  preview.kill();
}
