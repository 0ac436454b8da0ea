// What a first professional user found (issue 31 §2), in a real browser against the real `regard`
// binary: the metric cards of a one-image heatmap lay out without overlap or overflow at 390,
// 1024 and 1440 px; "Analyse attention" from a simulation announces the heatmap by the
// simulation's name; Back after saving a new simulation does not return to its draft; a new page
// opens at its top and Back returns to where the page was left; dates follow the interface
// language's region (en-GB) and a first visit follows an English browser; Logout is a
// navigation entry, unclipped, in the header and in the phone menu; the assistant is hidden on
// /heatmap/ as on /heatmap; an agency's branding set on the account page signs its share page
// (logo, name, colour), whose PDF and images download without an account. Data is seeded
// through the API with images drawn in the page.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startServerAndBrowser, stopServerAndBrowser } from './support/browser.mjs';
import { PASSWORD, register } from './support/session.mjs';

/** Renders and heatmaps take seconds; this leaves room for a busy machine. */
const RESULT_TIMEOUT_MS = 90_000;
const WIDTHS = [390, 1024, 1440];

describe('Client-ready UX in Chromium', () => {
  let server;
  let browser;
  let context;
  let page;
  let seeded;
  let email;
  const errors = [];
  before(async () => {
    ({ server, browser } = await startServerAndBrowser());
    ({ context, page } = await openContext());
    email = await register(page, 'client-ready');
    seeded = await seed(page);
  });
  after(async () => {
    await context?.close();
    await stopServerAndBrowser({ server, browser });
  });

  /** A fresh profile (French browser unless told), its errors collected in `errors`. */
  async function openContext(options = {}) {
    const fresh = await browser.newContext({
      baseURL: server.url,
      colorScheme: 'light',
      locale: 'fr-FR',
      viewport: { width: 1440, height: 900 },
      ...options,
    });
    const tab = await fresh.newPage();
    tab.on('pageerror', (e) => errors.push(e.message));
    tab.on('console', (m) => {
      if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) errors.push(m.text());
    });
    return { context: fresh, page: tab };
  }

  /** The API as the signed-in user of `tab`. */
  const api = (tab, path, init = {}) =>
    tab.evaluate(
      async ({ path, init }) => {
        const token = JSON.parse(localStorage.getItem('regard-auth-token')).access_token;
        const answer = await fetch(`/api/v1${path}`, { ...init, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' } });
        if (!answer.ok) throw new Error(`${path} ${answer.status} ${await answer.text()}`);
        return answer.status === 204 ? null : answer.json();
      },
      { path, init },
    );

  it('lays out the metric cards without overlap or overflow at 390, 1024 and 1440 px', async () => {
    await page.goto(`/heatmap/results/${seeded.heatmapId}`);
    const item = page.getByTestId('heatmap-item');
    await item.getByTestId('score-value').waitFor({ timeout: RESULT_TIMEOUT_MS });
    await checkInsightsAtEveryWidth();
    assert.deepEqual(errors, []);
  });

  /** The insights of the page shown lay out well at every width checked. */
  async function checkInsightsAtEveryWidth() {
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      assert.deepEqual(await insightProblems(page), [], `at ${width} px`);
    }
    await page.setViewportSize({ width: 1440, height: 900 });
  }

  it('announces the attention analysis of a simulation by the simulation\'s name, and lays its result out well', async () => {
    await page.goto(`/simulation/${seeded.simulationId}`);
    await page.getByTestId('render-image').waitFor({ timeout: RESULT_TIMEOUT_MS });
    await page.getByTestId('analyse').click();
    const toast = page.getByTestId('toast').filter({ hasText: 'Heatmap prête' });
    await toast.waitFor({ timeout: RESULT_TIMEOUT_MS });
    assert.equal((await toast.locator('.toast__message').textContent()).replace(/\s+/g, ' '), 'Heatmap prête : Soldes en gare');
    assert.equal(await page.getByText('sans nom').count(), 0);

    // The heatmap carries the name, and its result (with the panel's share) lays out well.
    const { attention } = await api(page, `/simulations/${seeded.simulationId}`);
    await page.goto(`/heatmap/results/${attention.heatmap_id}`);
    await page.getByRole('heading', { level: 1, name: 'Soldes en gare' }).waitFor();
    await page.getByTestId('heatmap-item').getByTestId('panel-share').waitFor({ timeout: RESULT_TIMEOUT_MS });
    await checkInsightsAtEveryWidth();
    assert.deepEqual(errors, []);
  });

  it('opens a new page at its top, and Back returns to where the page was left', async () => {
    await page.setViewportSize({ width: 390, height: 700 });
    const scrollY = () => page.evaluate(() => window.scrollY);
    const near = (y) => page.waitForFunction((y) => Math.abs(window.scrollY - y) <= 2, y);
    const nav = async (name) => {
      await page.getByRole('button', { name: 'Menu' }).click();
      await page.getByRole('navigation', { name: 'Navigation principale' }).getByRole('link', { name, exact: true }).click();
    };
    // Inside one document from here, every page's code loaded once before it is tested: a page
    // whose code is still loading shows a short spinner first, which would put it at its top anyway.
    await page.goto('/simulation');
    await page.getByRole('heading', { level: 1, name: 'Mes simulations' }).waitFor();
    await nav('Heatmap');
    await page.getByRole('link', { name: 'Campagne soldes' }).click();
    await page.getByTestId('score-value').waitFor({ timeout: RESULT_TIMEOUT_MS });
    await nav('Heatmap');
    await page.getByTestId('new-heatmap').click();

    // The case: "Générer la heatmap" at the bottom of the form, the results at their top.
    await page.getByRole('heading', { level: 1, name: 'Nouvelle heatmap' }).waitFor();
    await page.getByLabel('Nom', { exact: true }).fill('Vue de haut');
    await page.getByTestId('picker-creatives').getByRole('button', { name: 'Affiche été' }).click();
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    const form = await scrollY();
    assert.ok(form > 200, `the form is scrolled down (${form} px)`);
    await page.getByTestId('submit-heatmap').click();
    await page.waitForURL(/\/heatmap\/results\/[0-9a-f-]+$/);
    await page.getByRole('heading', { level: 1, name: 'Vue de haut' }).waitFor();
    assert.equal(await scrollY(), 0, 'the results open at their top');

    // A long page left far down, another long page: at its top; Back: where it was left.
    await page.getByTestId('score-value').waitFor({ timeout: RESULT_TIMEOUT_MS });
    await page.evaluate(() => window.scrollTo(0, 1200));
    const results = await scrollY();
    assert.ok(results > 1000, `the results are scrolled down (${results} px)`);
    await nav('Rendu');
    await page.getByRole('heading', { level: 1, name: 'Mes simulations' }).waitFor();
    assert.ok((await page.evaluate(() => document.documentElement.scrollHeight - innerHeight)) > results, 'the next page is as long');
    assert.equal(await scrollY(), 0, 'the simulations open at their top');
    await page.goBack();
    await page.getByRole('heading', { level: 1, name: 'Vue de haut' }).waitFor();
    await near(results);
    await page.goBack();
    await page.getByRole('heading', { level: 1, name: 'Nouvelle heatmap' }).waitFor();
    await near(form);
    await page.setViewportSize({ width: 1440, height: 900 });
    assert.deepEqual(errors, []);
  });

  it('replaces the draft with a new simulation once saved: Back returns to the page before, no duplicate', async () => {
    await page.goto('/creatives');
    await page.getByRole('heading', { level: 1, name: 'Mes créations' }).waitFor();
    const before = (await api(page, '/simulations')).items.length;
    await page.goto(`/simulation?creative=${seeded.creativeId}&location=${seeded.locationId}`);
    await page.locator('[data-testid="location-picker"][data-selected]').waitFor();
    await page.getByTestId('save-simulation').click();
    await page.waitForURL(/\/simulation\/[0-9a-f-]+$/);
    const saved = new URL(page.url()).pathname;

    await page.goBack();
    await page.waitForURL((url) => url.pathname === '/creatives');
    await page.getByRole('heading', { level: 1, name: 'Mes créations' }).waitFor();
    await page.goForward();
    await page.waitForURL((url) => url.pathname === saved);
    assert.equal((await api(page, '/simulations')).items.length, before + 1, 'one simulation more, not two');
    assert.deepEqual(errors, []);
  });

  it('shows Logout in the navigation, whole and apart from the rest, at 390 (phone menu), 1024 and 1440 px', async () => {
    const { context: own, page: tab } = await openContext();
    await register(tab, 'client-ready-nav');
    const logout = tab.getByTestId('logout');
    for (const width of WIDTHS) {
      await tab.setViewportSize({ width, height: 800 });
      if (width <= 900) {
        assert.equal(await logout.isVisible(), false, 'folded into the phone menu');
        await tab.getByRole('button', { name: 'Menu' }).click();
      }
      await logout.waitFor();
      const problems = await tab.evaluate(() => {
        const found = [];
        const logout = document.querySelector('[data-testid="logout"]');
        const r = logout.getBoundingClientRect();
        if (r.left < 0 || r.right > innerWidth || r.top < 0 || r.bottom > innerHeight) found.push('Logout is outside the window');
        if (logout.scrollWidth > logout.clientWidth + 0.5) found.push('Logout is cut');
        if (!logout.closest('nav')) found.push('Logout is not in the navigation');
        // Nothing is drawn over its centre.
        const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
        if (!logout.contains(hit)) found.push(`Logout is covered by ${hit?.className}`);
        // The header's other entries (links, user menu, preferences) do not meet it, none is cut.
        for (const other of document.querySelectorAll('header .brand, header .nav__link, header .user-menu__button, header .topbar__prefs select, header .topbar__menu-button')) {
          const o = other.getBoundingClientRect();
          if (o.width === 0) continue;
          if (Math.min(o.right, r.right) - Math.max(o.left, r.left) > 0.5 && Math.min(o.bottom, r.bottom) - Math.max(o.top, r.top) > 0.5) found.push(`Logout meets ${other.className}`);
          if (o.right > innerWidth + 0.5) found.push(`${other.className} leaves the window`);
        }
        const list = document.querySelector('header .nav');
        if (list.scrollWidth > list.clientWidth + 0.5) found.push(`the links are cut (${list.scrollWidth} > ${list.clientWidth})`);
        if (document.documentElement.scrollWidth > innerWidth) found.push('the page scrolls sideways');
        return found;
      });
      assert.deepEqual(problems, [], `at ${width} px`);
      assert.equal(await tab.getByRole('button', { name: 'Déconnexion', exact: true }).count(), 1, `one Logout at ${width} px`);
      if (width > 900) {
        const height = (await tab.locator('header.topbar').boundingBox()).height;
        assert.ok(height < 70, `the header keeps one row at ${width} px (${height} px)`);
      }
    }
    // The user menu keeps the account, and no second Logout.
    await tab.getByTestId('user-menu').click();
    await tab.getByTestId('account-link').waitFor();
    assert.equal(await tab.locator('.user-menu__panel [data-testid="logout"]').count(), 0);
    await tab.getByTestId('user-menu').click();
    await logout.click();
    await tab.getByRole('heading', { level: 1, name: 'Connexion' }).waitFor();
    await own.close();
    assert.deepEqual(errors, []);
  });

  it('follows an English browser on a first visit and dates the British way; French otherwise; a kept choice wins', async () => {
    const { context: english, page: tab } = await openContext({ locale: 'en-GB' });
    await tab.goto('/');
    await tab.getByRole('heading', { level: 1, name: 'Sign in' }).waitFor();
    assert.equal(await tab.locator('html').getAttribute('lang'), 'en');
    await tab.getByLabel('Email').fill(email);
    await tab.getByLabel('Password', { exact: true }).fill(PASSWORD);
    await tab.getByTestId('auth-submit').click();
    await tab.getByRole('heading', { level: 1, name: 'My Creatives' }).waitFor();

    // Day, month, year: "26 Nov 2026, 14:05", as en-GB writes the heatmap's creation.
    const { created_at: created } = await api(tab, `/heatmaps/${seeded.heatmapId}`);
    const expected = await tab.evaluate((iso) => new Intl.DateTimeFormat('en-GB', { dateStyle: 'medium', timeStyle: 'short' }).format(new Date(iso)), created);
    assert.match(expected, /^\d{1,2} [A-Z][a-z]{2} \d{4}, \d{2}:\d{2}$/);
    await tab.goto('/heatmap');
    const card = tab.getByTestId('heatmap-card').filter({ hasText: 'Campagne soldes' });
    assert.equal((await card.locator('.media-card__meta').first().textContent()).trim(), `Created on ${expected}`);
    await tab.goto(`/heatmap/results/${seeded.heatmapId}`);
    assert.match(await tab.getByTestId('heatmap-summary').textContent(), new RegExp(`created on ${expected}`, 'i'));

    // Choosing French is kept, and wins over the browser from then on.
    await tab.getByTestId('language-switch').selectOption('fr');
    await tab.reload();
    await tab.getByRole('heading', { level: 1, name: 'Campagne soldes' }).waitFor();
    assert.equal(await tab.locator('html').getAttribute('lang'), 'fr');
    await english.close();

    // A browser in neither language gets French.
    const { context: german, page: other } = await openContext({ locale: 'de-DE' });
    await other.goto('/');
    await other.getByRole('heading', { level: 1, name: 'Connexion' }).waitFor();
    assert.equal(await other.locator('html').getAttribute('lang'), 'fr');
    await german.close();
    assert.deepEqual(errors, []);
  });

  it("signs a share page with the agency's logo, name and colour, with the PDF and each image to download, at 390, 1024 and 1440 px", async () => {
    // The branding, set on the account page: name, colour and a logo uploaded there.
    await page.goto('/account');
    const form = page.getByTestId('account-branding');
    await form.getByLabel("Nom de l'agence").fill('Agence Lumière');
    await form.getByTestId('branding-colour').fill('#c2410c');
    const logo = await page.evaluate(async () => {
      const canvas = document.createElement('canvas');
      canvas.width = 300;
      canvas.height = 100;
      const ctx = canvas.getContext('2d');
      ctx.fillStyle = '#c2410c';
      ctx.fillRect(0, 0, 100, 100);
      const blob = await new Promise((resolve) => canvas.toBlob(resolve, 'image/png'));
      return Array.from(new Uint8Array(await blob.arrayBuffer()));
    });
    await form.getByTestId('branding-logo-file').setInputFiles({ name: 'logo.png', mimeType: 'image/png', buffer: Buffer.from(logo) });
    await form.getByTestId('branding-logo').waitFor();
    await form.getByTestId('branding-save').click();
    await form.getByText('Votre marque a été enregistrée').waitFor();
    const link = await api(page, `/heatmaps/${seeded.heatmapId}/shares`, { method: 'POST', body: '{}' });

    // A visitor without an account.
    const visitor = await openContext();
    for (const width of WIDTHS) {
      await visitor.page.setViewportSize({ width, height: 900 });
      await visitor.page.goto(link.path);
      const brand = visitor.page.getByTestId('shared-brand');
      await brand.waitFor();
      assert.equal((await brand.textContent()).trim(), 'Agence Lumière');
      assert.ok(await brand.getByRole('img').evaluate((img) => img.complete && img.naturalWidth === 300), 'the logo shows');
      assert.equal(await brand.evaluate((el) => getComputedStyle(el).borderBottomColor), 'rgb(194, 65, 12)');
      assert.match(await visitor.page.getByTestId('shared-notice').textContent(), /par Agence Lumière\./);
      const problems = await visitor.page.evaluate(() => {
        const found = [];
        const rect = (el) => el.getBoundingClientRect();
        const overlap = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0.5 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.5;
        const title = rect(document.querySelector('.content__title'));
        const report = rect(document.querySelector('[data-testid="shared-report"]'));
        const logo = rect(document.querySelector('.shared__logo'));
        if (overlap(title, report)) found.push('the PDF link runs into the title');
        if (logo.height > 48.5) found.push(`the logo is ${logo.height} px high`);
        for (const el of document.querySelectorAll('[data-testid="shared-brand"], [data-testid="shared-report"], [data-testid="shared-image-download"]')) {
          const r = rect(el);
          if (r.left < -0.5 || r.right > innerWidth + 0.5) found.push(`${el.dataset.testid} is cut at the side`);
        }
        if (document.documentElement.scrollWidth > innerWidth) found.push(`the page scrolls sideways (${document.documentElement.scrollWidth} > ${innerWidth})`);
        return found;
      });
      assert.deepEqual(problems, [], `at ${width} px`);
    }
    // The PDF and the image download without an account.
    const pdf = await visitor.page.evaluate(async (href) => {
      const answer = await fetch(href);
      return { status: answer.status, type: answer.headers.get('content-type'), head: new TextDecoder().decode((await answer.arrayBuffer()).slice(0, 5)) };
    }, await visitor.page.getByTestId('shared-report').getAttribute('href'));
    assert.deepEqual(pdf, { status: 200, type: 'application/pdf', head: '%PDF-' });
    const [download] = await Promise.all([visitor.page.waitForEvent('download'), visitor.page.getByTestId('shared-image-download').click()]);
    // Named after the image as the owner named it (the creative).
    assert.match(download.suggestedFilename(), /^Affiche été\.(png|jpg)$/);
    await visitor.context.close();
    assert.deepEqual(errors, []);
  });

  it('hides the assistant on /heatmap/ as on /heatmap, and shows it again elsewhere', async () => {
    await page.goto('/heatmap/');
    await page.getByRole('heading', { level: 1, name: 'Mes heatmaps' }).waitFor();
    assert.equal(await page.getByTestId('chat-widget').count(), 0);
    await page.goto('/heatmap');
    await page.getByRole('heading', { level: 1, name: 'Mes heatmaps' }).waitFor();
    assert.equal(await page.getByTestId('chat-widget').count(), 0);
    await page.goto('/heatmap/new');
    await page.getByRole('heading', { level: 1, name: 'Nouvelle heatmap' }).waitFor();
    assert.equal(await page.getByTestId('chat-widget').count(), 1);
    assert.deepEqual(errors, []);
  });
});

/**
 * What is wrong with the layout of a heatmap image's score and metric cards: blocks or cards that
 * overlap, a card's part that leaves it or is cut, a value over its name, a page that scrolls sideways.
 */
async function insightProblems(tab) {
  return tab.evaluate(() => {
    const found = [];
    const name = (el) => el.getAttribute('data-testid') ?? el.className;
    const rect = (el) => el.getBoundingClientRect();
    const overlap = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0.5 && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.5;
    const inside = (inner, outer) => inner.left >= outer.left - 0.5 && inner.right <= outer.right + 0.5 && inner.top >= outer.top - 0.5 && inner.bottom <= outer.bottom + 0.5;
    // The insights' blocks (panel, score, metrics, benchmarks, analysis) meet nowhere.
    const blocks = [...document.querySelector('.hm-item__insights').children];
    blocks.forEach((a, i) => blocks.slice(i + 1).forEach((b) => overlap(rect(a), rect(b)) && found.push(`${name(a)} overlaps ${name(b)}`)));
    // Each card holds its name, value and help, none cut or spilling out; cards meet nowhere.
    const cards = [document.querySelector('[data-testid="attention-score"]'), ...document.querySelectorAll('.hm-metric')];
    cards.forEach((a, i) => cards.slice(i + 1).forEach((b) => overlap(rect(a), rect(b)) && found.push(`${name(a)} overlaps ${name(b)}`)));
    const item = rect(document.querySelector('[data-testid="heatmap-item"]'));
    for (const card of cards) {
      if (!inside(rect(card), item)) found.push(`${name(card)} leaves its heatmap's box`);
      if (card.scrollWidth > card.clientWidth + 0.5) found.push(`${name(card)} overflows (${card.scrollWidth} > ${card.clientWidth})`);
      for (const part of card.querySelectorAll('dt, dd, p, span, h3')) {
        if (!inside(rect(part), rect(card))) found.push(`${name(card)}: "${part.textContent.trim().slice(0, 30)}" leaves its card`);
        if (part.scrollWidth > part.clientWidth + 0.5 && getComputedStyle(part).display !== 'inline') found.push(`${name(card)}: "${part.textContent.trim().slice(0, 30)}" is cut`);
      }
      const value = card.querySelector('.hm-metric__value, .hm-score__value');
      const label = card.querySelector('.hm-metric__name, .hm-section-title');
      if (value && label && overlap(rect(value), rect(label))) found.push(`${name(card)}: the value runs into the name`);
    }
    if (document.documentElement.scrollWidth > innerWidth) found.push(`the page scrolls sideways (${document.documentElement.scrollWidth} > ${innerWidth})`);
    return found;
  });
}

/**
 * Through the API: a creative, a location with its panel, a rendered simulation of one on the
 * other, and a one-image heatmap of the creative, done.
 */
async function seed(page) {
  return page.evaluate(async (timeoutMs) => {
    const token = JSON.parse(localStorage.getItem('regard-auth-token')).access_token;
    const headers = { Authorization: `Bearer ${token}` };
    const draw = (w, h, paint) => {
      const canvas = document.createElement('canvas');
      canvas.width = w;
      canvas.height = h;
      paint(canvas.getContext('2d'), w, h);
      return new Promise((resolve) => canvas.toBlob(resolve, 'image/png'));
    };
    const upload = async (blob, name) => {
      const form = new FormData();
      form.append('file', blob, name);
      const answer = await fetch('/api/v1/media', { method: 'POST', headers, body: form });
      if (!answer.ok) throw new Error(`upload ${answer.status} ${await answer.text()}`);
      return (await answer.json()).id;
    };
    const call = async (method, path, body) => {
      const answer = await fetch(`/api/v1${path}`, {
        method,
        headers: { ...headers, 'Content-Type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      if (!answer.ok) throw new Error(`${path} ${answer.status} ${await answer.text()}`);
      return answer.json();
    };
    const until = async (path, done) => {
      for (const start = Date.now(); Date.now() - start < timeoutMs; await new Promise((r) => setTimeout(r, 300))) {
        const value = await call('GET', path);
        if (value.status === 'failed') throw new Error(`${path} failed`);
        if (done(value)) return value;
      }
      throw new Error(`${path} not done in ${timeoutMs} ms`);
    };
    const poster = await draw(960, 540, (ctx, w, h) => {
      ctx.fillStyle = '#9ca3af';
      ctx.fillRect(0, 0, w, h);
      ctx.fillStyle = '#ef4444';
      ctx.beginPath();
      ctx.arc(w * 0.27, h * 0.37, 110, 0, Math.PI * 2);
      ctx.fill();
      ctx.fillStyle = '#111827';
      ctx.font = 'bold 64px sans-serif';
      ctx.fillText('SOLDES -50 %', w * 0.5, h * 0.8);
    });
    const quad = [
      { x: 0.35, y: 0.2 },
      { x: 0.8, y: 0.24 },
      { x: 0.79, y: 0.55 },
      { x: 0.36, y: 0.58 },
    ];
    const street = await draw(1200, 800, (ctx, w, h) => {
      ctx.fillStyle = '#87a5c4';
      ctx.fillRect(0, 0, w, h * 0.55);
      ctx.fillStyle = '#6b6459';
      ctx.fillRect(0, h * 0.55, w, h * 0.45);
      ctx.fillStyle = '#d1d5db';
      ctx.beginPath();
      quad.forEach((p, i) => (i ? ctx.lineTo(p.x * w, p.y * h) : ctx.moveTo(p.x * w, p.y * h)));
      ctx.closePath();
      ctx.fill();
    });
    const posterId = await upload(poster, 'affiche-ete.png');
    const creative = await call('POST', '/creatives', { media_id: posterId, name: 'Affiche été' });
    const location = await call('POST', '/locations', {
      name: 'Gare de Lyon',
      city: 'Paris',
      illumination: 'none',
      panel_width_cm: 400,
      panel_height_cm: 300,
      photo_media_id: await upload(street, 'gare.png'),
      panel_quad: quad,
    });
    const simulation = await call('POST', '/simulations', { creative_id: creative.id, location_id: location.id, name: 'Soldes en gare' });
    const heatmap = await call('POST', '/heatmaps', { name: 'Campagne soldes', media_ids: [posterId] });
    await until(`/simulations/${simulation.id}`, (s) => s.status === 'done');
    await until(`/heatmaps/${heatmap.id}`, (h) => h.status === 'done');
    return { creativeId: creative.id, locationId: location.id, simulationId: simulation.id, heatmapId: heatmap.id };
  }, RESULT_TIMEOUT_MS);
}
