// Simulations in a real browser against the real `regard` binary: a creative and a location with
// a photo and its panel corners (made through the API from images drawn in the page), picked in
// the editor; a corner dragged with the mouse, a slider moved, saved; the render appears without
// a reload and downloads as a PNG; "Analyse attention" reads the panel's share. A parity check
// compares the live preview's pixels with the server's render (grain 0) at preview size.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { startServerAndBrowser, stopServerAndBrowser } from './support/browser.mjs';
import { newPage as openPage, register as registerAccount } from './support/session.mjs';

const RESULT_TIMEOUT_MS = 90_000;
/** rendering.md: mean absolute difference ≤ 3/255 per channel at preview size, grain excluded. */
const PARITY_MAX_MAD = 3;

describe('Simulations in Chromium', () => {
  let server;
  let browser;
  before(async () => ({ server, browser } = await startServerAndBrowser()));
  after(() => stopServerAndBrowser({ server, browser }));

  const newPage = () => openPage(browser, server.url);

  /**
   * Through the API, as the signed-in user: a creative (a coloured poster) and a location whose
   * photo is a street-like scene with a grey panel; returns their ids.
   */
  async function seed(page) {
    return page.evaluate(async () => {
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
      const post = async (path, body) => {
        const answer = await fetch(`/api/v1${path}`, {
          method: 'POST',
          headers: { ...headers, 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        });
        if (!answer.ok) throw new Error(`${path} ${answer.status} ${await answer.text()}`);
        return answer.json();
      };
      const poster = await draw(800, 600, (ctx, w, h) => {
        const gradient = ctx.createLinearGradient(0, 0, w, h);
        gradient.addColorStop(0, '#1d4ed8');
        gradient.addColorStop(1, '#f97316');
        ctx.fillStyle = gradient;
        ctx.fillRect(0, 0, w, h);
        ctx.fillStyle = '#fde047';
        ctx.beginPath();
        ctx.arc(w * 0.3, h * 0.4, h * 0.25, 0, Math.PI * 2);
        ctx.fill();
        ctx.fillStyle = '#111827';
        ctx.font = 'bold 90px sans-serif';
        ctx.fillText('ÉTÉ', w * 0.5, h * 0.8);
      });
      const photo = await draw(1200, 800, (ctx, w, h) => {
        ctx.fillStyle = '#87a5c4';
        ctx.fillRect(0, 0, w, h * 0.55);
        ctx.fillStyle = '#6b6459';
        ctx.fillRect(0, h * 0.55, w, h * 0.45);
        ctx.fillStyle = '#a39e93';
        ctx.fillRect(w * 0.05, h * 0.2, w * 0.2, h * 0.5);
        ctx.fillStyle = '#d1d5db';
        ctx.beginPath();
        ctx.moveTo(w * 0.35, h * 0.2);
        ctx.lineTo(w * 0.8, h * 0.24);
        ctx.lineTo(w * 0.79, h * 0.55);
        ctx.lineTo(w * 0.36, h * 0.58);
        ctx.closePath();
        ctx.fill();
      });
      const creative = await post('/creatives', { media_id: await upload(poster, 'affiche-ete.png'), name: 'Affiche été' });
      const location = await post('/locations', {
        name: 'Gare de Lyon',
        city: 'Paris',
        format: 'billboard_4x3',
        illumination: 'none',
        panel_width_cm: 400,
        panel_height_cm: 300,
        photo_media_id: await upload(photo, 'gare.png'),
        panel_quad: [
          { x: 0.35, y: 0.2 },
          { x: 0.8, y: 0.24 },
          { x: 0.79, y: 0.55 },
          { x: 0.36, y: 0.58 },
        ],
      });
      return { creativeId: creative.id, locationId: location.id };
    });
  }

  it('picks, adjusts, saves, renders live, downloads, analyses attention, and matches the preview', async () => {
    const { context, page, errors } = await newPage();
    await registerAccount(page, 'simulation');
    const { locationId } = await seed(page);

    // The page (with the e2e hook: the preview keeps its drawing buffer for reading).
    await page.goto('/simulation?e2e=1');
    await page.getByRole('heading', { level: 1, name: 'Mes simulations' }).waitFor();
    for (const name of ['Configuration', 'Ajustements', 'Aperçu']) {
      await page.getByRole('heading', { level: 2, name }).waitFor();
    }

    // Pick the creative and the location in their searchable pickers.
    await page.getByRole('button', { name: 'Choisir une création' }).click();
    await page.getByRole('dialog').getByRole('button', { name: /Affiche été/ }).click();
    await page.getByRole('button', { name: 'Choisir un emplacement' }).click();
    await page.getByRole('dialog').getByLabel('Rechercher un emplacement...').fill('gare');
    await page.getByRole('dialog').getByRole('button', { name: /Gare de Lyon/ }).click();
    await page.locator('[data-testid="sim-preview"][data-state="ready"]').waitFor();
    const engine = (await page.getByTestId('preview-engine').textContent()).trim();

    // Drag the top-left corner a little with the mouse.
    const corner = page.getByRole('button', { name: 'Coin haut gauche' });
    const before = Number(await corner.getAttribute('data-x'));
    const box = await corner.boundingBox();
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width / 2 + 12, box.y + box.height / 2 + 4, { steps: 5 });
    await page.mouse.up();
    const moved = Number(await corner.getAttribute('data-x'));
    assert.ok(moved > before, `corner moved right (${before} → ${moved})`);
    assert.match(await page.getByTestId('quad-source').textContent(), /Coins ajustés/);

    // Move a slider (keyboard on the range input: +0.01 per arrow).
    const contrast = page.getByRole('slider', { name: 'Contraste' });
    await contrast.focus();
    for (let i = 0; i < 10; i++) await page.keyboard.press('ArrowRight');
    assert.equal(await contrast.inputValue(), '0.1');

    // Save: the address becomes the simulation's, the render arrives without a reload.
    await page.evaluate(() => (window.__sameDocument = true));
    await page.getByTestId('save-simulation').click();
    await page.waitForURL(/\/simulation\/[0-9a-f-]+/);
    const image = page.getByTestId('render-image');
    await image.waitFor({ timeout: RESULT_TIMEOUT_MS });
    assert.equal(await page.getByTestId('simulation-status').first().getAttribute('data-status'), 'done');
    assert.ok(await image.evaluate((img) => img.complete || new Promise((r) => (img.onload = r))));
    assert.equal(await page.evaluate(() => window.__sameDocument), true, 'no page reload (client-side navigation only)');

    // Download the PNG.
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByTestId('download-png').click()]);
    const stream = await download.createReadStream();
    const chunks = [];
    for await (const chunk of stream) chunks.push(chunk);
    const png = Buffer.concat(chunks);
    assert.ok(png.length > 10_000, `PNG has a real size (${png.length} bytes)`);
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'PNG signature');
    assert.equal(png.readUInt32BE(16), 1200, 'full-resolution width');
    assert.equal(png.readUInt32BE(20), 800, 'full-resolution height');

    // Parity: the preview's pixels against the server's render at the preview's size.
    const parity = await page.evaluate(async () => {
      const hook = window.__regardPreview;
      const preview = hook.readPixels();
      const output = document.querySelector('[data-testid="render-image"]');
      const render = new Image();
      render.src = output.closest('a').href; // the original JPEG
      await render.decode();
      const canvas = document.createElement('canvas');
      canvas.width = preview.width;
      canvas.height = preview.height;
      const ctx = canvas.getContext('2d');
      ctx.imageSmoothingQuality = 'high';
      ctx.drawImage(render, 0, 0, preview.width, preview.height);
      const server = ctx.getImageData(0, 0, preview.width, preview.height).data;
      const sums = [0, 0, 0];
      const n = preview.width * preview.height;
      for (let i = 0; i < n; i++) for (let c = 0; c < 3; c++) sums[c] += Math.abs(preview.data[i * 4 + c] - server[i * 4 + c]);
      return { kind: hook.kind, width: preview.width, height: preview.height, mad: sums.map((s) => s / n) };
    });
    console.log(`preview engine ${engine} (${parity.kind}), ${parity.width}×${parity.height}, MAD per channel ${parity.mad.map((m) => m.toFixed(2)).join(' / ')}`);
    for (const mad of parity.mad) assert.ok(mad <= PARITY_MAX_MAD, `preview matches the render (MAD ${mad.toFixed(2)} ≤ ${PARITY_MAX_MAD})`);

    // Analyse attention: the panel's share arrives live.
    await page.getByRole('button', { name: "Analyser l'attention" }).click();
    const share = page.getByTestId('attention-share');
    await share.waitFor({ timeout: RESULT_TIMEOUT_MS });
    const shareText = (await share.textContent()).trim();
    assert.match(shareText, /^\d+(,\d)?\s?%$/, `a share of attention (${shareText})`);
    assert.match((await page.getByTestId('attention-visibility').textContent()).trim(), /^\d+(,\d+)?×$/);
    // It leads with the probability that a passer-by looks at the panel within the first second.
    const firstSecond = (await page.getByTestId('attention-first-second').textContent()).trim();
    assert.match(firstSecond, /^\d+(,\d)?\s?%$/, `a first-second probability (${firstSecond})`);
    assert.match(await page.getByTestId('heatmap-link').getAttribute('href'), /^\/heatmap\/results\//);

    // The list shows it, with its share; the location page links here.
    const card = page.getByTestId('simulation-card').first();
    await card.getByTestId('card-attention').waitFor({ timeout: RESULT_TIMEOUT_MS });
    await page.goto(`/locations/${locationId}`);
    assert.equal(await page.getByTestId('simulate-location').getAttribute('href'), `/simulation?location=${locationId}`);

    assert.deepEqual(errors, []);
    await context.close();
  });

  it('keeps what the occlusion brush paints in front of the panel: preview, render and reload', async () => {
    const { context, page, errors } = await newPage();
    await registerAccount(page, 'simulation-mask');
    const { creativeId, locationId } = await seed(page);
    await page.goto(`/simulation?creative=${creativeId}&location=${locationId}&e2e=1`);
    await page.locator('[data-testid="sim-preview"][data-state="ready"]').waitFor();

    // The panel's centre (photo-normalised) is painted; a point lower on the panel is not.
    const painted = { x: 0.575, y: 0.36 };
    const untouched = { x: 0.575, y: 0.5 };
    const previewAt = (point) =>
      page.evaluate((p) => {
        window.__regardPreview.render();
        const img = window.__regardPreview.readPixels();
        const i = (Math.floor(p.y * img.height) * img.width + Math.floor(p.x * img.width)) * 4;
        return [img.data[i], img.data[i + 1], img.data[i + 2]];
      }, point);
    // The photo's panel colour (#d1d5db), which the brush must reveal.
    const photoGrey = [0xd1, 0xd5, 0xdb];
    const near = (a, b, tol) => a.every((v, k) => Math.abs(v - b[k]) <= tol);
    assert.ok(!near(await previewAt(painted), photoGrey, 12), 'the creative covers the panel before painting');

    await page.getByRole('button', { name: 'Pinceau' }).click();
    const frame = await page.locator('.quad-editor__frame').boundingBox();
    const at = (p) => [frame.x + p.x * frame.width, frame.y + p.y * frame.height];
    await page.mouse.move(...at({ x: 0.53, y: painted.y }));
    await page.mouse.down();
    await page.mouse.move(...at({ x: 0.62, y: painted.y }), { steps: 8 });
    await page.mouse.up();
    assert.ok(near(await previewAt(painted), photoGrey, 3), 'the preview shows the photo where painted');
    assert.ok(!near(await previewAt(untouched), photoGrey, 12), 'and the creative elsewhere');

    // Saved and rendered on the server: the painted spot keeps the photo there too.
    await page.getByTestId('save-simulation').click();
    await page.waitForURL(/\/simulation\/[0-9a-f-]+/);
    const id = new URL(page.url()).pathname.split('/').pop();
    await page.getByTestId('render-image').waitFor({ timeout: RESULT_TIMEOUT_MS });
    const renderAt = await page.evaluate(async ([p, q]) => {
      const render = new Image();
      render.src = document.querySelector('[data-testid="render-image"]').closest('a').href;
      await render.decode();
      const canvas = document.createElement('canvas');
      canvas.width = render.naturalWidth;
      canvas.height = render.naturalHeight;
      const ctx = canvas.getContext('2d');
      ctx.drawImage(render, 0, 0);
      const pick = (pt) => [...ctx.getImageData(Math.floor(pt.x * canvas.width), Math.floor(pt.y * canvas.height), 1, 1).data.slice(0, 3)];
      return [pick(p), pick(q)];
    }, [painted, untouched]);
    assert.ok(near(renderAt[0], photoGrey, 6), `the render keeps the photo where painted (${renderAt[0]})`);
    assert.ok(!near(renderAt[1], photoGrey, 12), `and shows the creative elsewhere (${renderAt[1]})`);

    // Opened again: the saved mask comes back into the editor.
    await page.goto(`/simulation/${id}?e2e=1`);
    await page.locator('[data-testid="sim-preview"][data-state="ready"]').waitFor();
    await page.waitForFunction(
      ([p, grey]) => {
        const hook = window.__regardPreview;
        if (!hook) return false;
        hook.render();
        const img = hook.readPixels();
        const i = (Math.floor(p.y * img.height) * img.width + Math.floor(p.x * img.width)) * 4;
        return [0, 1, 2].every((k) => Math.abs(img.data[i + k] - grey[k]) <= 3);
      },
      [painted, photoGrey],
      { timeout: RESULT_TIMEOUT_MS },
    );
    assert.deepEqual(errors, []);
    await context.close();
  });

  it('downloads the renders of a creative as one ZIP named after creative and location', async () => {
    const { context, page, errors } = await newPage();
    await registerAccount(page, 'zip');
    const { creativeId, locationId } = await seed(page);
    await page.evaluate(
      async ({ creativeId, locationId }) => {
        const token = JSON.parse(localStorage.getItem('regard-auth-token')).access_token;
        const answer = await fetch('/api/v1/simulations/batch', {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
          body: JSON.stringify({ creative_id: creativeId, location_ids: [locationId] }),
        });
        if (answer.status !== 201) throw new Error(`batch ${answer.status}`);
      },
      { creativeId, locationId },
    );
    await page.goto('/simulation');
    await page.getByTestId('filter-creative').selectOption(creativeId);
    const button = page.getByTestId('download-renders-zip');
    await button.waitFor({ timeout: RESULT_TIMEOUT_MS });
    assert.equal((await button.textContent()).trim(), 'Télécharger le rendu (ZIP)');
    const [download] = await Promise.all([page.waitForEvent('download'), button.click()]);
    assert.equal(download.suggestedFilename(), 'Rendus - Affiche été.zip');
    const bytes = await readFile(await download.path());
    assert.equal(bytes.subarray(0, 2).toString('latin1'), 'PK');
    assert.ok(bytes.includes(Buffer.from('Affiche été — Gare de Lyon.jpg')), 'the entry is named after creative and location');
    assert.deepEqual(errors, []);
    await context.close();
  });
});
