// The web app in a real browser (Debian's Chromium) against the real `regard` binary: sign-up,
// sign-out, sign-in, error banners, language, theme, deep links, the chat widget and the phone menu.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startServerAndBrowser, stopServerAndBrowser } from './support/browser.mjs';

describe('Regard in Chromium', () => {
  let server;
  let browser;
  before(async () => ({ server, browser } = await startServerAndBrowser()));
  after(() => stopServerAndBrowser({ server, browser }));

  /** A fresh browser profile (no stored session, theme or language), desktop-sized unless told. */
  async function newPage(viewport = undefined) {
    // A French browser: the app would follow an English one on a first visit.
    const context = await browser.newContext({ baseURL: server.url, colorScheme: 'light', locale: 'fr-FR', ...(viewport ? { viewport } : {}) });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      // Content-Security-Policy violations and other browser errors fail the test.
      if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) errors.push(m.text());
    });
    return { context, page, errors };
  }

  async function register(page, email, password) {
    await page.goto('/');
    await page.getByTestId('auth-mode-toggle').click();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Mot de passe').fill(password);
    await page.getByTestId('auth-submit').click();
    await page.getByRole('heading', { level: 1, name: 'Mes créations' }).waitFor();
  }

  async function signIn(page, email, password) {
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Mot de passe').fill(password);
    await page.getByTestId('auth-submit').click();
  }

  it('registers, signs out, rejects a wrong password in French, signs in', async () => {
    const { context, page, errors } = await newPage();
    const email = `e2e-${Date.now()}@example.com`;
    await register(page, email, 'secret-123');
    assert.equal(new URL(page.url()).pathname, '/creatives', '/ redirects to /creatives');
    await page.getByRole('navigation', { name: 'Navigation principale' }).waitFor();

    await page.getByTestId('logout').click();
    await page.getByRole('heading', { level: 1, name: 'Connexion' }).waitFor();

    await signIn(page, email, 'wrong-password');
    const banner = page.getByRole('alert');
    await banner.waitFor();
    assert.equal((await banner.textContent()).trim(), 'Email ou mot de passe incorrect');

    // Toggling the mode clears the error.
    await page.getByTestId('auth-mode-toggle').click();
    assert.equal(await page.getByRole('alert').count(), 0);
    await page.getByTestId('auth-mode-toggle').click();

    await signIn(page, email, 'secret-123');
    await page.getByRole('heading', { level: 1, name: 'Mes créations' }).waitFor();

    // Signing up again with the same email shows its own message.
    const other = await newPage();
    await other.page.goto('/');
    await other.page.getByTestId('auth-mode-toggle').click();
    await other.page.getByLabel('Email').fill(email);
    await other.page.getByLabel('Mot de passe').fill('secret-123');
    await other.page.getByTestId('auth-submit').click();
    await other.page.getByRole('alert').waitFor();
    assert.equal((await other.page.getByRole('alert').textContent()).trim(), 'Un compte existe déjà avec cet email');
    await other.context.close();

    assert.deepEqual(errors, []);
    await context.close();
  });

  it('switches to English and keeps the theme across a reload', async () => {
    const { context, page, errors } = await newPage();
    await register(page, `lang-${Date.now()}@example.com`, 'secret-123');

    await page.getByTestId('language-switch').selectOption('en');
    await page.getByRole('heading', { level: 1, name: 'My Creatives' }).waitFor();
    assert.equal(await page.locator('html').getAttribute('lang'), 'en');
    await page.getByRole('link', { name: 'Location' }).click();
    await page.getByRole('heading', { level: 1, name: 'My Locations' }).waitFor();
    await page.getByPlaceholder('Search for a location...').waitFor();

    await page.getByTestId('theme-switch').selectOption('dark');
    assert.equal(await page.locator('html').getAttribute('data-theme'), 'dark');
    await page.reload();
    await page.getByRole('heading', { level: 1, name: 'My Locations' }).waitFor();
    assert.equal(await page.locator('html').getAttribute('data-theme'), 'dark');
    const stored = await page.evaluate(() => localStorage.getItem('theme-storage'));
    assert.match(stored, /"theme":"dark"/);

    // An English wrong-password banner after signing out.
    await page.getByTestId('logout').click();
    await page.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    await page.getByLabel('Email').fill('nobody@example.com');
    await page.getByLabel('Password').fill('secret-123');
    await page.getByTestId('auth-submit').click();
    await page.getByRole('alert').waitFor();
    assert.equal((await page.getByRole('alert').textContent()).trim(), 'Invalid email or password');

    assert.deepEqual(errors, []);
    await context.close();
  });

  it('shows the login screen for a deep link while signed out, then that page', async () => {
    const { context, page, errors } = await newPage();
    const email = `deep-${Date.now()}@example.com`;
    await register(page, email, 'secret-123');
    await page.getByTestId('logout').click();
    await page.getByRole('heading', { level: 1, name: 'Connexion' }).waitFor();

    await page.goto('/heatmap/new');
    await page.getByRole('heading', { level: 1, name: 'Connexion' }).waitFor();
    assert.equal(await page.getByRole('navigation', { name: 'Navigation principale' }).count(), 0);
    await signIn(page, email, 'secret-123');
    await page.getByRole('heading', { level: 1, name: 'Nouvelle heatmap' }).waitFor();

    assert.deepEqual(errors, []);
    await context.close();
  });

  it('hides the chat widget on exactly /heatmap and shows it elsewhere', async () => {
    const { context, page, errors } = await newPage();
    await register(page, `chat-${Date.now()}@example.com`, 'secret-123');

    await page.goto('/heatmap/new');
    await page.getByRole('heading', { level: 1, name: 'Nouvelle heatmap' }).waitFor();
    await page.getByTestId('chat-toggle').click();
    const panel = page.getByRole('dialog', { name: 'Assistant' });
    await panel.waitFor();
    await panel.getByText('Bonjour ! Comment puis-je vous aider ?').waitFor();
    await page.getByPlaceholder('Posez votre question...').waitFor();

    await page.goto('/heatmap');
    await page.getByRole('heading', { level: 1, name: 'Mes heatmaps' }).waitFor();
    assert.equal(await page.getByTestId('chat-widget').count(), 0);

    await page.goto('/creatives');
    await page.getByRole('heading', { level: 1, name: 'Mes créations' }).waitFor();
    assert.equal(await page.getByTestId('chat-widget').count(), 1);

    assert.deepEqual(errors, []);
    await context.close();
  });

  it('folds the navigation into a menu at phone width, keeping the header on one row', async () => {
    const { context, page, errors } = await newPage({ width: 360, height: 740 });
    await register(page, `phone-${Date.now()}@example.com`, 'secret-123');

    const menu = page.getByRole('button', { name: 'Menu' });
    const nav = page.getByRole('navigation', { name: 'Navigation principale' });
    const header = page.locator('header.topbar');
    const boxes = await Promise.all(
      [page.locator('.brand'), menu, page.getByTestId('language-switch'), page.getByTestId('theme-switch')].map((l) => l.boundingBox()),
    );
    const headerBox = await header.boundingBox();
    for (const box of boxes) {
      assert.ok(box.y >= headerBox.y && box.y + box.height <= headerBox.y + headerBox.height, 'inside the header');
      assert.ok(box.x + box.width <= 360, 'inside the window');
    }
    // One row: every item's vertical span overlaps the first one's, and the header is one row high.
    for (const box of boxes) assert.ok(box.y < boxes[0].y + boxes[0].height && boxes[0].y < box.y + box.height, 'same row');
    assert.ok(headerBox.height < 70, `header ${headerBox.height}px high`);
    assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= 360), 'no sideways scroll');

    assert.equal(await nav.isVisible(), false);
    assert.equal(await menu.getAttribute('aria-expanded'), 'false');
    await menu.click();
    assert.equal(await menu.getAttribute('aria-expanded'), 'true');
    await nav.getByRole('link', { name: 'Emplacements' }).click();
    await page.getByRole('heading', { level: 1, name: 'Mes emplacements' }).waitFor();
    assert.equal(await nav.isVisible(), false);

    await menu.click();
    await page.keyboard.press('Escape');
    assert.equal(await nav.isVisible(), false);
    assert.equal(await menu.evaluate((button) => button === document.activeElement), true);

    // Wider, the header stays one row at every width (the French labels are the longest): the
    // menu button up to 900 px, then the whole navigation, made compact up to 1439 px.
    for (const width of [641, 800, 900, 901, 1024, 1250, 1251, 1366, 1440]) {
      await page.setViewportSize({ width, height: 800 });
      const height = (await header.boundingBox()).height;
      assert.ok(height < 70, `header ${height}px high at ${width}px`);
      assert.ok(await page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth), `no sideways scroll at ${width}px`);
      assert.equal(await nav.isVisible(), width > 900, `navigation shown at ${width}px`);
      assert.equal(await menu.isVisible(), width <= 900, `menu button at ${width}px`);
    }

    assert.deepEqual(errors, []);
    await context.close();
  });
});
