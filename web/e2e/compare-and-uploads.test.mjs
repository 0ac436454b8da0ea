// The heatmap compare view and the upload messages in a real browser (issue 31), where jsdom
// cannot tell: at 390, 1024 and 1440 px, the differences of the table are those of the numbers
// shown; areas of interest wear light square tags and the viewing order dark discs, with a key;
// the zoom bar lies under each small landscape image, not over it; the image names in the
// table's headers break between words, never inside one; and nothing overlaps or is cut. An
// image over the server's pixel limit (set low here) is refused with its size and the limit; a
// 40 × 40 px creative is stored with a warning, beside its line and on its page. Fixtures are
// drawn in the page (canvas) and seeded through the API.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startServerAndBrowser, stopServerAndBrowser } from './support/browser.mjs';
import { register } from './support/session.mjs';

const WIDTHS = [390, 1024, 1440];
/** Heatmap jobs take well under a second each; room for a busy machine. */
const RESULT_TIMEOUT_MS = 90_000;
/** The server's pixel limit in this suite: 4 megapixels, so that a refused image stays small to draw. */
const MAX_PIXELS = 4_000_000;

describe('Heatmap compare view and uploads in Chromium', () => {
  let server;
  let browser;
  let context;
  let page;
  let heatmapId;
  const errors = [];
  before(async () => {
    ({ server, browser } = await startServerAndBrowser({ REGARD_MEDIA_MAX_PIXELS: String(MAX_PIXELS) }));
    context = await browser.newContext({ baseURL: server.url, colorScheme: 'light', locale: 'fr-FR', viewport: { width: 1440, height: 900 } });
    page = await context.newPage();
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      // Refused requests (the upload over the limit) are expected 4xx answers.
      if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) errors.push(m.text());
    });
    await register(page, 'compare-uploads');
    heatmapId = await seedComparison(page);
  });
  after(async () => {
    await context?.close();
    await stopServerAndBrowser({ server, browser });
  });

  it('compares two small landscape images at 390, 1024 and 1440 px: shown differences, tags and discs with a key, nothing covered or cut', async () => {
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto(`/heatmap/results/${heatmapId}/compare`);
      await page.getByTestId('compare-table').waitFor();
      assert.equal(await page.getByTestId('compare-variant').count(), 2, `${width} px`);
      await page.waitForFunction(() => {
        const images = [...document.querySelectorAll('[data-testid="compare-variant"] img')];
        return images.length >= 4 && images.every((img) => img.complete && img.naturalWidth > 0);
      });

      // Every difference is that of the two numbers shown beside it.
      const rows = await page.getByTestId('compare-row').evaluateAll((trs) =>
        trs.map((tr) => ({
          label: tr.querySelector('th').textContent,
          values: [...tr.querySelectorAll('.hm-compare__value')].map((v) => v.textContent),
          delta: tr.querySelector('[data-testid="compare-delta"]')?.textContent ?? null,
        })),
      );
      assert.equal(rows.length, 5, JSON.stringify(rows));
      for (const { label, values, delta } of rows) {
        assert.equal(values.length, 2, label);
        const [reference, other] = values.map(number);
        assert.equal(number(delta), Math.round((other - reference) * 10) / 10, `${width} px, ${label}: ${values.join(' → ')} shows ${delta}`);
      }

      // Areas wear light square tags, the viewing order dark discs; the key shows both.
      const marks = await page.evaluate(() => {
        const style = (selector) => {
          const el = document.querySelector(`[data-testid="compare-variant"] ${selector}`);
          const s = getComputedStyle(el);
          return { radius: s.borderTopLeftRadius, background: s.backgroundColor, color: s.color };
        };
        return { tag: style('[data-testid="area-box"]'), disc: style('[data-testid="hotspot-marker"]') };
      });
      assert.equal(marks.disc.radius, '50%', JSON.stringify(marks));
      assert.ok(parseFloat(marks.tag.radius) <= 4, `a square tag: ${JSON.stringify(marks)}`);
      assert.equal(marks.tag.background, 'rgb(255, 255, 255)');
      assert.notEqual(marks.disc.background, marks.tag.background);
      const key = page.getByTestId('marker-key');
      assert.match(await key.getByTestId('marker-key-order').textContent(), /Ordre de lecture prévu/);
      assert.match(await key.getByTestId('marker-key-areas').textContent(), /Zone d'intérêt/);
      for (const variant of await page.getByTestId('compare-variant').all()) {
        assert.deepEqual(
          (await variant.getByTestId('compare-areas').locator('li').allTextContents()).map((text) => text.replace(/\s/g, '')),
          ['1Produit', '2Titre'],
        );
      }

      // Geometry: the zoom bar is off the image, the blocks of the page do not overlap, and
      // nothing is cut (no page scrolling sideways, no text wider than its box).
      const problems = await page.evaluate(() => {
        const found = [];
        const box = (el) => el.getBoundingClientRect();
        const name = (el) => el.getAttribute('data-testid') ?? el.className;
        const meet = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
        if (document.documentElement.scrollWidth > innerWidth) found.push(`the page scrolls sideways (${document.documentElement.scrollWidth} > ${innerWidth})`);
        for (const figure of document.querySelectorAll('[data-testid="compare-variant"]')) {
          const stage = figure.querySelector('[data-testid="attention-stage"]');
          const image = figure.querySelector('[data-testid="original-image"]');
          const bar = figure.querySelector('[data-testid="zoom-bar"]');
          if (meet(box(bar), box(stage))) found.push('the zoom bar lies over the image');
          const [i, s] = [box(image), box(stage)];
          if (Math.abs(i.width - s.width) > 1 || Math.abs(i.height - s.height) > 1) found.push(`the image does not fill its stage (${i.width}×${i.height} in ${s.width}×${s.height})`);
          if (box(bar).right > box(figure).right + 0.5 || box(bar).left < box(figure).left - 0.5) found.push('the zoom bar leaves its figure');
          const parts = [figure.querySelector('.hm-compare__caption'), stage, bar, figure.querySelector('[data-testid="compare-areas"]')];
          parts.forEach((a, n) => parts.slice(n + 1).forEach((b) => meet(box(a), box(b)) && found.push(`${name(a)} overlaps ${name(b)}`)));
          const buttons = [...bar.children];
          buttons.forEach((a, n) => buttons.slice(n + 1).forEach((b) => meet(box(a), box(b)) && found.push(`zoom ${name(a)} overlaps ${name(b)}`)));
        }
        const blocks = [
          '.hm-viewer__controls',
          ...[...document.querySelectorAll('[data-testid="compare-variant"]')].map((_, n) => `[data-testid="compare-variant"]:nth-child(${n + 1})`),
          '[data-testid="marker-key"]',
          '[data-testid="heatmap-legend"]',
          '.hm-compare__exports',
          '.hm-compare__table-wrap',
          '[data-testid="compare-verdict"]',
        ].map((selector) => document.querySelector(selector));
        blocks.forEach((a, n) => blocks.slice(n + 1).forEach((b) => meet(box(a), box(b)) && found.push(`${name(a)} overlaps ${name(b)}`)));
        for (const item of document.querySelectorAll('.hm-key__item')) {
          const [symbol, text] = [item.querySelector('.hm-key__symbol'), document.createRange()];
          text.selectNodeContents(item.lastChild);
          if (meet(box(symbol), text.getBoundingClientRect())) found.push('a key symbol overlaps its text');
        }
        // Nothing cut: these keep their text inside their box (the table may scroll, but does not need to).
        const wrap = document.querySelector('.hm-compare__table-wrap');
        if (wrap.scrollWidth > wrap.clientWidth) found.push(`the table is wider than its box (${wrap.scrollWidth} > ${wrap.clientWidth})`);
        for (const el of document.querySelectorAll('.hm-compare__caption > *, .hm-zoom > *, .hm-key__item, .hm-compare__exports button, .hm-compare__table th')) {
          if (el.scrollWidth > el.clientWidth + 1) found.push(`"${el.textContent}" is cut (${el.scrollWidth} > ${el.clientWidth})`);
          const r = box(el);
          if (r.left < -0.5 || r.right > innerWidth + 0.5) found.push(`"${el.textContent}" leaves the screen`);
        }
        return found;
      });
      assert.deepEqual(problems, [], `${width} px`);

      // The images' names in the headers break between words (after a hyphen or at a space), never inside one.
      const broken = await page.locator('.hm-compare__table thead th').evaluateAll((ths) =>
        ths.flatMap((th) => {
          const node = th.firstChild;
          const text = node.textContent;
          const range = document.createRange();
          const words = [];
          let word = [];
          for (let i = 0; i < text.length; i++) {
            if (/\s/.test(text[i])) {
              words.push(word);
              word = [];
              continue;
            }
            range.setStart(node, i);
            range.setEnd(node, i + 1);
            word.push({ char: text[i], top: range.getClientRects()[0].top });
            if (text[i] === '-') {
              words.push(word);
              word = [];
            }
          }
          words.push(word);
          return words
            .filter((w) => w.length > 1 && w.some((c) => Math.abs(c.top - w[0].top) > 1))
            .map((w) => `${text}: "${w.map((c) => c.char).join('')}" is broken`);
        }),
      );
      assert.deepEqual(broken, [], `${width} px`);
    }
    assert.deepEqual(errors, []);
  });

  it('states the pixel limit of a refused image and warns about a 40 × 40 px creative, beside its line and on its page, at 390, 1024 and 1440 px', async () => {
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.goto('/creatives');
    await page.getByTestId('new-creative').click();
    const files = await page.evaluate(async () => {
      const draw = async (w, h) => {
        const canvas = document.createElement('canvas');
        canvas.width = w;
        canvas.height = h;
        const ctx = canvas.getContext('2d');
        ctx.fillStyle = '#1d4ed8';
        ctx.fillRect(0, 0, w, h);
        ctx.fillStyle = '#fde047';
        ctx.fillRect(w * 0.2, h * 0.2, w * 0.6, h * 0.3);
        return canvas.toDataURL('image/png').split(',')[1];
      };
      return { giant: await draw(2400, 2000), logo: await draw(40, 40), poster: await draw(1920, 1080) };
    });
    await page.getByTestId('drop-zone-input').setInputFiles([
      { name: 'geante.png', mimeType: 'image/png', buffer: Buffer.from(files.giant, 'base64') },
      { name: 'logo.png', mimeType: 'image/png', buffer: Buffer.from(files.logo, 'base64') },
      { name: 'affiche-full-hd.png', mimeType: 'image/png', buffer: Buffer.from(files.poster, 'base64') },
    ]);
    const list = page.getByTestId('upload-list');
    const line = (name) => list.locator('li', { hasText: name });
    await line('geante.png').and(page.locator('[data-status="failed"]')).waitFor();
    await line('logo.png').and(page.locator('[data-status="done"]')).waitFor();
    await line('affiche-full-hd.png').and(page.locator('[data-status="done"]')).waitFor();
    const plain = (text) => text.replace(/\s/g, ' ').trim();
    assert.equal(
      plain(await line('geante.png').getByRole('alert').textContent()),
      'Cette image a trop de pixels : 2 400 × 2 000 px (4,8 mégapixels) ; la limite est de 4 mégapixels. Réduisez ses dimensions puis réessayez.',
    );
    const warning =
      "Image de 40 × 40 px : trop petite pour un affichage net ; 1 080 px au moins sur le petit côté sont conseillés (le petit côté d'un écran Full HD).";
    assert.equal(plain(await line('logo.png').getByTestId('upload-warning').textContent()), warning);
    assert.equal(await line('affiche-full-hd.png').getByTestId('upload-warning').count(), 0, 'no warning for Full HD');

    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      const problems = await list.evaluate((ul) => {
        const found = [];
        const box = (el) => el.getBoundingClientRect();
        const meet = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
        if (document.documentElement.scrollWidth > innerWidth) found.push(`the page scrolls sideways (${document.documentElement.scrollWidth} > ${innerWidth})`);
        const panel = box(ul.closest('[data-testid="upload-panel"]'));
        for (const li of ul.children) {
          const parts = [...li.children];
          parts.forEach((a, n) => parts.slice(n + 1).forEach((b) => meet(box(a), box(b)) && found.push(`${li.textContent}: ${a.className} overlaps ${b.className}`)));
          for (const part of parts) {
            const r = box(part);
            if (r.left < panel.left - 0.5 || r.right > panel.right + 0.5) found.push(`${part.className} leaves the panel`);
            // The name may end in an ellipsis by design; messages never are cut.
            if (!part.matches('.upload-item__name') && part.scrollWidth > part.clientWidth + 1) found.push(`"${part.textContent}" is cut`);
          }
        }
        return found;
      });
      assert.deepEqual(problems, [], `${width} px`);
    }

    // The creative's own page says it too, under its dimensions.
    await page.setViewportSize({ width: 1440, height: 900 });
    await page.getByRole('link', { name: 'logo', exact: true }).click();
    await page.getByTestId('creative-name').waitFor();
    for (const width of WIDTHS) {
      await page.setViewportSize({ width, height: 900 });
      const banner = page.getByTestId('low-resolution');
      assert.equal(plain(await banner.textContent()), warning);
      const problems = await banner.evaluate((el) => {
        const found = [];
        const box = (e) => e.getBoundingClientRect();
        const meet = (a, b) => a.left < b.right - 0.5 && b.left < a.right - 0.5 && a.top < b.bottom - 0.5 && b.top < a.bottom - 0.5;
        if (document.documentElement.scrollWidth > innerWidth) found.push('the page scrolls sideways');
        const figure = el.closest('figure');
        if (meet(box(el), box(figure.querySelector('img')))) found.push('the warning overlaps the image');
        if (meet(box(el), box(document.querySelector('.detail__side')))) found.push('the warning overlaps the side column');
        const r = box(el);
        if (r.left < 0 || r.right > innerWidth || r.right > box(figure).right + 0.5) found.push('the warning leaves its column');
        if (el.scrollWidth > el.clientWidth + 1) found.push('the warning is cut');
        return found;
      });
      assert.deepEqual(problems, [], `${width} px`);
    }
    assert.deepEqual(errors, []);
  });
});

/** A number as the table shows it: "54", "29 %", "4,5 %", "−28 pts", "+9", "±0", "< 0,1 %" (0). */
function number(text) {
  const plain = text.replace(/\s/g, '').replace('−', '-').replace('±', '').replace(',', '.');
  return plain.startsWith('<') ? 0 : parseFloat(plain);
}

/**
 * Through the API: two landscape banners (1200 × 400 px, the disc on the left, then on the
 * right), one heatmap of both, analysed, and the same two areas on each. Returns the heatmap's id.
 */
async function seedComparison(page) {
  return page.evaluate(async (timeout) => {
    const token = JSON.parse(localStorage.getItem('regard-auth-token')).access_token;
    const headers = { Authorization: `Bearer ${token}` };
    const banner = (discX) => {
      const canvas = document.createElement('canvas');
      canvas.width = 1200;
      canvas.height = 400;
      const ctx = canvas.getContext('2d');
      ctx.fillStyle = '#9ca3af';
      ctx.fillRect(0, 0, 1200, 400);
      ctx.fillStyle = '#ef4444';
      ctx.beginPath();
      ctx.arc(1200 * discX, 160, 120, 0, Math.PI * 2);
      ctx.fill();
      ctx.fillStyle = '#111827';
      ctx.font = 'bold 64px sans-serif';
      ctx.fillText('SOLDES -50 %', 540, 340);
      return new Promise((resolve) => canvas.toBlob(resolve, 'image/png'));
    };
    const upload = async (blob, name) => {
      const form = new FormData();
      form.append('file', blob, name);
      const answer = await fetch('/api/v1/media', { method: 'POST', headers, body: form });
      if (!answer.ok) throw new Error(`upload ${answer.status} ${await answer.text()}`);
      return (await answer.json()).id;
    };
    const post = async (path, body) => {
      const answer = await fetch(`/api/v1${path}`, { method: 'POST', headers: { ...headers, 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
      if (!answer.ok) throw new Error(`${path} ${answer.status} ${await answer.text()}`);
      return answer.json();
    };
    const media = [await upload(await banner(0.25), 'banniere-paysage-gauche.png'), await upload(await banner(0.75), 'banniere-paysage-droite.png')];
    const heatmap = await post('/heatmaps', { name: 'Bannières', media_ids: media });
    let current;
    for (const start = Date.now(); Date.now() - start < timeout; await new Promise((r) => setTimeout(r, 300))) {
      current = await (await fetch(`/api/v1/heatmaps/${heatmap.id}`, { headers })).json();
      if (current.items.some((item) => item.status === 'failed')) throw new Error('an analysis failed');
      if (current.items.every((item) => item.status === 'done')) break;
    }
    for (const item of current.items) {
      await post(`/heatmaps/${heatmap.id}/items/${item.id}/aois`, { name: 'Produit', rect: { x: 0.1, y: 0.1, width: 0.3, height: 0.6 } });
      await post(`/heatmaps/${heatmap.id}/items/${item.id}/aois`, { name: 'Titre', rect: { x: 0.45, y: 0.7, width: 0.5, height: 0.25 } });
    }
    return heatmap.id;
  }, RESULT_TIMEOUT_MS);
}
