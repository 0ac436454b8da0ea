// Heatmaps in a real browser against the real `regard` binary: the creation form's validation
// (both messages at once), a heatmap made from an uploaded creative whose result arrives live on
// the results page (score, overlay, analysis, no reload), a rectangle drawn with the mouse and
// its share of attention, the same result on the media page, the chat widget's presence rules,
// and deletion from the list after confirming; named areas of interest on two variants, copied
// from one to the other and compared side by side. Image fixtures are drawn in the page (canvas).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { startServerAndBrowser, stopServerAndBrowser } from './support/browser.mjs';
import { newPage as openPage, register as registerAccount } from './support/session.mjs';

/** A heatmap job takes well under a second; this leaves room for a busy machine. */
const RESULT_TIMEOUT_MS = 60_000;

describe('Heatmaps in Chromium', () => {
  let server;
  let browser;
  before(async () => ({ server, browser } = await startServerAndBrowser()));
  after(() => stopServerAndBrowser({ server, browser }));

  const newPage = () => openPage(browser, server.url);
  const register = (page) => registerAccount(page, 'heatmap');

  /** A poster-like PNG drawn in the page: a grey ground, a bright disc and a dark headline band. */
  async function posterBase64(page, discX = 260) {
    return page.evaluate((discX) => {
      const canvas = document.createElement('canvas');
      canvas.width = 960;
      canvas.height = 540;
      const ctx = canvas.getContext('2d');
      ctx.fillStyle = '#9ca3af';
      ctx.fillRect(0, 0, 960, 540);
      ctx.fillStyle = '#ef4444';
      ctx.beginPath();
      ctx.arc(discX, 200, 110, 0, Math.PI * 2);
      ctx.fill();
      ctx.fillStyle = '#111827';
      ctx.font = 'bold 64px sans-serif';
      ctx.fillText('SOLDES -50 %', 480, 440);
      return canvas.toDataURL('image/png').split(',')[1];
    }, discX);
  }

  /** Draws a rectangle on a stage with the mouse, from and to points relative to it (0..1). */
  async function drawRect(page, stage, [x1, y1], [x2, y2]) {
    await stage.scrollIntoViewIfNeeded();
    const box = await stage.boundingBox();
    await page.mouse.move(box.x + box.width * x1, box.y + box.height * y1);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * x2, box.y + box.height * y2, { steps: 6 });
    await page.mouse.up();
  }

  it('validates, generates a heatmap live, measures an area, and deletes it from the list', async () => {
    const { context, page, errors } = await newPage();
    await register(page);

    // A creative to analyse.
    await page.getByTestId('new-creative').click();
    await page.getByTestId('drop-zone-input').setInputFiles({
      name: 'affiche-soldes.png',
      mimeType: 'image/png',
      buffer: Buffer.from(await posterBase64(page), 'base64'),
    });
    await page.getByTestId('upload-list').locator('li[data-status="done"]').waitFor();

    // The creation form: submitting empty shows both messages at once.
    await page.getByRole('link', { name: 'Heatmap', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Mes heatmaps' }).waitFor();
    assert.equal(await page.getByTestId('chat-widget').count(), 0, 'no chat widget on /heatmap');
    await page.getByTestId('new-heatmap').click();
    await page.getByRole('heading', { level: 1, name: 'Nouvelle heatmap' }).waitFor();
    await page.getByRole('button', { name: 'Générer la heatmap' }).click();
    assert.equal((await page.getByTestId('error-name').textContent()).trim(), 'Veuillez saisir un nom pour la heatmap.');
    assert.equal((await page.getByTestId('error-images').textContent()).trim(), 'Veuillez sélectionner au moins une image.');
    assert.equal(await page.getByRole('alert').count(), 2);

    // Name and image: the results page opens and fills in without a reload.
    await page.getByLabel('Nom', { exact: true }).fill('Campagne soldes');
    const tile = page.getByTestId('picker-creatives').getByRole('button', { name: 'affiche-soldes' });
    await tile.click();
    assert.equal(await tile.getAttribute('aria-pressed'), 'true');
    assert.equal(await page.getByTestId('error-name').count(), 0);
    assert.equal(await page.getByTestId('error-images').count(), 0);
    // A marker on the window survives client-side route changes but not a reload.
    await page.evaluate(() => {
      window.__sameDocument = true;
    });
    await page.getByRole('button', { name: 'Générer la heatmap' }).click();
    await page.waitForURL(/\/heatmap\/results\/[0-9a-f-]+$/);
    await page.getByRole('heading', { level: 1, name: 'Campagne soldes' }).waitFor();

    const item = page.getByTestId('heatmap-item');
    await item.getByTestId('score-value').waitFor({ timeout: RESULT_TIMEOUT_MS });
    const score = Number((await item.getByTestId('score-value').textContent()).trim());
    assert.ok(Number.isInteger(score) && score >= 0 && score <= 100, `score ${score}`);
    // Benchmarks: the first result of a new account has nothing of its own to compare with,
    // but stands somewhere among the reference images.
    const benchScore = item.getByTestId('benchmarks').getByTestId('benchmark-score');
    await benchScore.waitFor();
    assert.match(await benchScore.textContent(), /Pas encore assez de résultats \(0 sur 5\)/);
    const referencePercentile = Number(await benchScore.getByTestId('benchmark-reference').getAttribute('data-percentile'));
    assert.ok(referencePercentile >= 0 && referencePercentile <= 100, `reference percentile ${referencePercentile}`);
    const overlay = item.getByTestId('heatmap-overlay');
    await overlay.waitFor();
    const loaded = await overlay.evaluate(
      (img) =>
        new Promise((resolve) => {
          if (img.complete) resolve(img.naturalWidth > 0);
          img.onload = () => resolve(true);
          img.onerror = () => resolve(false);
        }),
    );
    assert.equal(loaded, true, 'the overlay loads through its signed URL');
    assert.equal(await overlay.evaluate((img) => img.style.opacity), '0.6');
    assert.equal(await page.evaluate(() => window.__sameDocument), true, 'the result arrived without a reload');

    // Original image, analysis, legend.
    await item.getByRole('img', { name: 'Image originale « affiche-soldes »' }).waitFor();
    const summary = (await item.getByTestId('analysis-summary').textContent()).trim();
    assert.match(summary, /^(Le regard devrait se poser d'abord|Aucune zone ne se détache)/);
    assert.ok((await item.getByTestId('analysis-advice').locator('li').count()) >= 2);
    assert.match(await item.getByTestId('heatmap-legend').textContent(), /Les couleurs chaudes signalent plus d'attention/);

    // A rectangle drawn with the mouse gets its share of attention.
    const stage = item.getByTestId('attention-stage');
    await stage.scrollIntoViewIfNeeded();
    const box = await stage.boundingBox();
    await page.mouse.move(box.x + box.width * 0.1, box.y + box.height * 0.1);
    await page.mouse.down();
    await page.mouse.move(box.x + box.width * 0.6, box.y + box.height * 0.7, { steps: 8 });
    await page.mouse.up();
    const share = item.getByTestId('area-share');
    await share.waitFor();
    assert.match((await share.textContent()).replace(/\s/g, ' '), /^[\d,]+ % de l'attention sur 30 % de la surface, soit ×[\d,]+ par rapport à sa taille$/);
    // And the probability that a viewer looks at it within the first second.
    const first = (await item.getByTestId('area-first-second').textContent()).replace(/\s/g, ' ');
    const [, percent] = first.match(/^Regardée dans la 1re seconde par ([\d,]+) % des personnes$/) ?? [];
    assert.ok(Number(percent?.replace(',', '.')) > 0 && Number(percent?.replace(',', '.')) < 100, first);
    assert.equal(await item.getByRole('combobox', { name: 'Nom de la zone 1' }).inputValue(), 'Zone 1');

    // The first glance: the switch shows the first second's heatmap, its viewing order and its
    // analysis; the area keeps its first-second probability; exploration brings the 3 s map back.
    const explorationSrc = await overlay.getAttribute('src');
    const explorationOrder = await item.getByTestId('heatmap-analysis').locator('ol').textContent();
    assert.equal(await item.getByTestId('heatmap-analysis').getAttribute('data-moment'), 'exploration');
    await item.getByTestId('moment-switch').getByText('Premier regard (1 s)').click();
    await item.locator('[data-testid="attention-stage"][data-moment="glance"]').waitFor();
    const glanceOverlay = item.getByTestId('heatmap-overlay');
    const glanceSrc = await glanceOverlay.getAttribute('src');
    assert.notEqual(glanceSrc, explorationSrc, 'the first glance has its own heatmap');
    assert.equal(
      await glanceOverlay.evaluate((img) => (img.complete ? img.naturalWidth > 0 : new Promise((resolve) => (img.onload = () => resolve(true))))),
      true,
      'the first-glance overlay loads',
    );
    assert.equal(await glanceOverlay.evaluate((img) => img.style.opacity), '0.6', 'the opacity carries over');
    assert.match(await item.getByTestId('glance-hint').textContent(), /première seconde/);
    const glanceAnalysis = item.getByTestId('heatmap-analysis');
    assert.equal(await glanceAnalysis.getAttribute('data-moment'), 'glance');
    assert.equal((await glanceAnalysis.getByRole('heading', { level: 3 }).textContent()).trim(), 'Analyse du premier regard (1 s)');
    assert.ok((await item.getByTestId('hotspot-marker').count()) >= 1, 'the first glance numbers its viewing order');
    assert.equal((await item.getByTestId('area-first-second').textContent()).replace(/\s/g, ' '), first);
    await item.getByTestId('moment-switch').getByText('Exploration (3 s)').click();
    await item.locator('[data-testid="attention-stage"][data-moment="exploration"]').waitFor();
    assert.equal(await item.getByTestId('heatmap-overlay').getAttribute('src'), explorationSrc);
    assert.equal(await item.getByTestId('heatmap-analysis').locator('ol').textContent(), explorationOrder);
    assert.equal(await item.getByTestId('glance-hint').count(), 0);

    // And can be removed from the keyboard.
    await item.getByRole('button', { name: 'Supprimer la zone « Zone 1 »' }).focus();
    await page.keyboard.press('Enter');
    await share.waitFor({ state: 'detached' });

    // A polygon, one click per corner, closed on its first corner: a triangle of 1/4 × 1/2 × ½
    // of the image, saved at once with its share and kept after a reload.
    await item.getByTestId('aoi-tools').getByText('Polygone').click();
    await stage.scrollIntoViewIfNeeded();
    const frame = await stage.boundingBox();
    for (const [x, y] of [[0.5, 0.25], [0.75, 0.75], [0.25, 0.75]]) {
      await page.mouse.click(frame.x + frame.width * x, frame.y + frame.height * y);
    }
    assert.equal(await item.getByTestId('polygon-corner').count(), 3);
    await page.mouse.click(frame.x + frame.width * 0.5, frame.y + frame.height * 0.25);
    await share.waitFor();
    assert.match((await share.textContent()).replace(/\s/g, ' '), /sur 13 % de la surface/);
    await page.reload();
    await item.getByTestId('area-share').waitFor();
    assert.match((await item.getByTestId('area-share').textContent()).replace(/\s/g, ' '), /sur 13 % de la surface/);
    await item.getByRole('button', { name: 'Supprimer la zone « Zone 1 »' }).click();
    await item.getByTestId('area-share').waitFor({ state: 'detached' });

    // Zoomed in around the centre (two steps of ×1.25), a rectangle across the middle half of
    // the frame covers the middle 32 % of the image each way: 10 % of its surface.
    await item.getByTestId('aoi-tools').getByText('Rectangle').click();
    await item.getByTestId('zoom-in').click();
    await item.getByTestId('zoom-in').click();
    assert.equal((await item.getByTestId('zoom-level').textContent()).replace(/\s/g, ' '), '156 %');
    await stage.scrollIntoViewIfNeeded();
    const zoomed = await stage.boundingBox();
    await page.mouse.move(zoomed.x + zoomed.width * 0.25, zoomed.y + zoomed.height * 0.25);
    await page.mouse.down();
    await page.mouse.move(zoomed.x + zoomed.width * 0.75, zoomed.y + zoomed.height * 0.75, { steps: 6 });
    await page.mouse.up();
    await item.getByTestId('area-share').waitFor();
    assert.match((await item.getByTestId('area-share').textContent()).replace(/\s/g, ' '), /sur 10 % de la surface/);
    await item.getByTestId('zoom-fit').click();
    assert.equal((await item.getByTestId('zoom-level').textContent()).replace(/\s/g, ' '), '100 %');
    await item.getByRole('button', { name: 'Supprimer la zone « Zone 1 »' }).click();
    await item.getByTestId('area-share').waitFor({ state: 'detached' });

    // The chat widget is there on the results page.
    assert.equal(await page.getByTestId('chat-widget').count(), 1);

    // The media page shows the same result.
    const src = await item.getByTestId('original-image').getAttribute('src');
    const mediaId = src.match(/\/files\/([0-9a-f-]+)\//)[1];
    await page.goto(`/heatmap/${mediaId}`);
    await page.getByRole('heading', { level: 1, name: 'Heatmap du média' }).waitFor();
    await page.getByTestId('score-value').waitFor();
    assert.equal(Number((await page.getByTestId('score-value').textContent()).trim()), score);

    // Delete it from the list, after confirming.
    await page.getByRole('link', { name: 'Heatmap', exact: true }).click();
    await page.getByRole('heading', { level: 1, name: 'Mes heatmaps' }).waitFor();
    assert.equal(await page.getByTestId('chat-widget').count(), 0);
    const card = page.getByTestId('heatmap-card').filter({ hasText: 'Campagne soldes' });
    await card.waitFor();
    assert.match(await card.textContent(), /Terminée/);
    await card.getByRole('button', { name: 'Supprimer la heatmap « Campagne soldes »' }).click();
    const dialog = page.getByRole('alertdialog', { name: 'Supprimer cette heatmap ?' });
    await dialog.waitFor();
    await dialog.getByRole('button', { name: 'Supprimer' }).click();
    await card.waitFor({ state: 'detached' });
    await page.getByText("Vous n'avez pas encore de heatmap.", { exact: false }).waitFor();

    // Another visit shows it gone for good.
    await page.reload();
    await page.getByText("Vous n'avez pas encore de heatmap.", { exact: false }).waitFor();

    assert.deepEqual(errors, []);
    await context.close();
  });

  it('generates a heatmap for one image from its media page', async () => {
    const { context, page, errors } = await newPage();
    await register(page);
    // An image uploaded on the creation form becomes media without a creative; its media page offers to analyse it.
    await page.goto('/heatmap/new');
    await page.getByRole('heading', { level: 1, name: 'Nouvelle heatmap' }).waitFor();
    await page.getByTestId('heatmap-drop-zone-input').setInputFiles({
      name: 'vitrine.png',
      mimeType: 'image/png',
      buffer: Buffer.from(await posterBase64(page), 'base64'),
    });
    const added = page.getByTestId('picker-uploads').getByRole('button', { name: 'vitrine' });
    await added.waitFor();
    assert.equal(await added.getAttribute('aria-pressed'), 'true', 'an upload is picked at once');
    const mediaId = await added.getAttribute('data-media-id');

    await page.goto(`/heatmap/${mediaId}`);
    await page.getByText("Cette image n'a pas encore de heatmap.").waitFor();
    await page.getByTestId('generate-heatmap').click();
    await page.getByTestId('score-value').waitFor({ timeout: RESULT_TIMEOUT_MS });
    await page.getByRole('link', { name: 'Voir la heatmap « vitrine »' }).click();
    await page.getByRole('heading', { level: 1, name: 'vitrine' }).waitFor();

    assert.deepEqual(errors, []);
    await context.close();
  });

  it('names areas on one variant, copies them to the other, compares the two, and shares them read-only', async () => {
    const { context, page, errors } = await newPage();
    await register(page);
    // Two variants uploaded on the creation form: the disc on the left, then on the right.
    await page.goto('/heatmap/new');
    await page.getByRole('heading', { level: 1, name: 'Nouvelle heatmap' }).waitFor();
    for (const [name, x] of [['variante-a.png', 260], ['variante-b.png', 700]]) {
      await page.getByTestId('heatmap-drop-zone-input').setInputFiles({
        name,
        mimeType: 'image/png',
        buffer: Buffer.from(await posterBase64(page, x), 'base64'),
      });
      await page.getByTestId('picker-uploads').getByRole('button', { name: name.replace('.png', '') }).waitFor();
    }
    await page.getByLabel('Nom', { exact: true }).fill('Test A/B');
    await page.getByRole('button', { name: 'Générer la heatmap' }).click();
    await page.waitForURL(/\/heatmap\/results\/[0-9a-f-]+$/);
    const [first, second] = [page.getByTestId('heatmap-item').nth(0), page.getByTestId('heatmap-item').nth(1)];
    await first.getByTestId('score-value').waitFor({ timeout: RESULT_TIMEOUT_MS });
    await second.getByTestId('score-value').waitFor({ timeout: RESULT_TIMEOUT_MS });

    // Two areas drawn on the first variant, then named.
    const stage = first.getByTestId('attention-stage');
    await drawRect(page, stage, [0.1, 0.15], [0.45, 0.6]);
    await first.getByRole('combobox', { name: 'Nom de la zone 1' }).waitFor();
    await drawRect(page, stage, [0.45, 0.7], [0.95, 0.9]);
    await first.getByRole('combobox', { name: 'Nom de la zone 2' }).waitFor();
    for (const [n, name] of [[1, 'Produit'], [2, 'Titre']]) {
      const input = first.getByRole('combobox', { name: `Nom de la zone ${n}` });
      await input.fill(name);
      await input.press('Enter');
      await first.getByRole('button', { name: `Supprimer la zone « ${name} »` }).waitFor();
    }
    assert.equal(await first.getByTestId('area-share').count(), 2);

    // Copied onto the second variant, at the same relative position.
    await first.getByRole('button', { name: "Copier les zones sur l'autre image" }).click();
    await second.getByRole('combobox', { name: 'Nom de la zone 2' }).waitFor();
    assert.deepEqual(
      await second.getByTestId('aoi-name').evaluateAll((inputs) => inputs.map((input) => input.value)),
      ['Produit', 'Titre'],
    );
    assert.equal(await second.getByTestId('area-share').count(), 2);

    // The compare view: both images, one table with the deltas, a verdict per measure.
    await page.getByRole('link', { name: 'Comparer les images' }).click();
    await page.getByRole('heading', { level: 1, name: 'Comparaison : Test A/B' }).waitFor();
    assert.equal(await page.getByTestId('compare-variant').count(), 2);
    const table = page.getByTestId('compare-table');
    const rows = await table.getByTestId('compare-row').allTextContents();
    assert.equal(rows.length, 5, rows.join(' | '));
    assert.match(rows[3], /^« Produit » : part de l'attention/);
    assert.match(rows[4], /^« Titre » : part de l'attention/);
    // Every measure of the second image shows its difference from the first.
    assert.equal(await table.getByTestId('compare-delta').count(), 5);
    for (const delta of await table.getByTestId('compare-delta').allTextContents()) {
      assert.match(delta.replace(/\s/g, ' '), /^[+−±][\d,]+( pts)?$/);
    }
    // The disc moved out of "Produit": the first variant gives it more attention.
    const verdict = (await page.getByTestId('compare-verdict').textContent()).replace(/\s/g, ' ');
    assert.match(verdict, /« variante-a » donne le plus d'attention à « Produit »/);
    // One view switch for both.
    await page.locator('.hm-segmented__option', { hasText: 'Brouillard' }).click();
    assert.equal(await page.getByRole('radio', { name: 'Brouillard' }).isChecked(), true);
    assert.equal(await page.getByTestId('heatmap-fog').count(), 2);
    // The variants' fog views side by side, as one PNG made on the server.
    const [comparePng] = await Promise.all([page.waitForEvent('download'), page.getByTestId('compare-png').click()]);
    assert.equal(comparePng.suggestedFilename(), 'Test A-B-cote-a-cote.png');
    const png = readFileSync(await comparePng.path());
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], 'a PNG');
    assert.ok(png.readUInt32BE(16) > png.readUInt32BE(20), 'two images side by side are wider than high');

    // The PDF report: a cover and one page per image, with the named areas.
    await page.getByRole('link', { name: '← Retour aux résultats' }).click();
    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Rapport PDF' }).click()]);
    assert.equal(download.suggestedFilename(), 'Test A-B.pdf');
    const pdfPath = await download.path();
    assert.match(execFileSync('pdfinfo', [pdfPath], { encoding: 'utf8' }), /^Pages:\s+4$/m);
    const pdfText = execFileSync('pdftotext', ['-layout', pdfPath, '-'], { encoding: 'utf8' });
    for (const expected of ["Rapport d'attention", 'Test A/B', 'Mesures comparées', '1. variante-a', '2. variante-b', '1. Produit', '2. Titre']) {
      assert.ok(pdfText.includes(expected), `the PDF says ${expected}`);
    }

    // A read-only link for the client, opened in a browser that is not signed in.
    await page.getByRole('button', { name: 'Partager' }).click();
    await page.getByRole('button', { name: 'Créer un lien' }).click();
    const url = await page.getByLabel('Lien de partage').inputValue();
    assert.match(url, /\/shared\/[a-z0-9]{32}$/);
    const visitor = await newPage();
    await visitor.page.goto(url);
    await visitor.page.getByRole('heading', { level: 1, name: 'Test A/B' }).waitFor();
    await visitor.page.getByTestId('score-value').first().waitFor();
    assert.equal(await visitor.page.getByTestId('heatmap-item').count(), 2);
    assert.deepEqual(
      (await visitor.page.getByTestId('aoi').allTextContents()).map((text) => text.match(/^\d(Produit|Titre)/)?.[1]),
      ['Produit', 'Titre', 'Produit', 'Titre'],
    );
    assert.equal(await visitor.page.getByTestId('aoi-name').count(), 0, 'read-only: no name to edit');
    assert.equal(await visitor.page.getByLabel('Adresse e-mail').count(), 0, 'no sign-in screen');
    // Revoked, the link opens nothing.
    await page.getByTestId('share').getByRole('button', { name: 'Révoquer' }).click();
    await page.getByRole('alertdialog', { name: 'Révoquer ce lien ?' }).getByRole('button', { name: 'Révoquer' }).click();
    await page.getByTestId('share').waitFor({ state: 'detached' });
    await visitor.page.reload();
    await visitor.page.getByText("Ce lien de partage n'existe pas ou a été révoqué.").waitFor();
    assert.deepEqual(visitor.errors, []);
    await visitor.context.close();

    assert.deepEqual(errors, []);
    await context.close();
  });
});
