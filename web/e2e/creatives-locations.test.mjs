// Creatives and locations in a real browser against the real `regard` binary: uploads by
// drag-and-drop and through the file input, the grid, rename, delete with confirmation, a
// refused file, a location with a photo whose four corners are dragged with the mouse, and an
// accent-insensitive search. Image fixtures are drawn in the page (canvas), never stored.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startServerAndBrowser, stopServerAndBrowser } from './support/browser.mjs';
import { newPage as openPage, register as registerAccount } from './support/session.mjs';

describe('Creatives and locations in Chromium', () => {
  let server;
  let browser;
  before(async () => ({ server, browser } = await startServerAndBrowser()));
  after(() => stopServerAndBrowser({ server, browser }));

  const newPage = () => openPage(browser, server.url);
  const register = (page) => registerAccount(page, 'media');

  /** A PNG drawn in the page: base64 bytes. */
  async function pngBase64(page, width, height, color) {
    return page.evaluate(
      ({ width, height, color }) => {
        const canvas = document.createElement('canvas');
        canvas.width = width;
        canvas.height = height;
        const ctx = canvas.getContext('2d');
        ctx.fillStyle = color;
        ctx.fillRect(0, 0, width, height);
        ctx.fillStyle = '#ffffff';
        ctx.fillRect(width * 0.2, height * 0.2, width * 0.6, height * 0.6);
        return canvas.toDataURL('image/png').split(',')[1];
      },
      { width, height, color },
    );
  }

  it('uploads two creatives by drag-and-drop, renames one, deletes one, refuses a text file', async () => {
    const { context, page, errors } = await newPage();
    await register(page);
    await page.getByText("Vous n'avez pas encore de créations.").waitFor();

    await page.getByTestId('new-creative').click();
    const zone = page.getByTestId('drop-zone');
    await zone.waitFor();
    // A DataTransfer holding two PNG files built in the page, dropped on the zone.
    const dataTransfer = await page.evaluateHandle(async () => {
      const transfer = new DataTransfer();
      for (const [name, color] of [
        ['affiche-ete.png', '#f97316'],
        ['affiche-hiver.png', '#1d4ed8'],
      ]) {
        const canvas = document.createElement('canvas');
        canvas.width = 640;
        canvas.height = 360;
        const ctx = canvas.getContext('2d');
        ctx.fillStyle = color;
        ctx.fillRect(0, 0, 640, 360);
        const blob = await new Promise((resolve) => canvas.toBlob(resolve, 'image/png'));
        transfer.items.add(new File([blob], name, { type: 'image/png' }));
      }
      return transfer;
    });
    await zone.dispatchEvent('drop', { dataTransfer });

    const list = page.getByTestId('upload-list');
    await list.locator('li[data-status="done"]').nth(1).waitFor();
    assert.equal(await list.locator('li[data-status="done"]').count(), 2);

    const grid = page.getByRole('list', { name: 'Vos créations' });
    await grid.getByRole('link', { name: 'affiche-ete' }).waitFor();
    await grid.getByRole('link', { name: 'affiche-hiver' }).waitFor();
    const card = page.getByTestId('creative-card').filter({ hasText: 'affiche-ete' });
    assert.match(await card.textContent(), /640 × 360/);
    // The thumbnail is served through its signed URL.
    const loaded = await card.locator('img').evaluate(
      (img) =>
        new Promise((resolve) => {
          if (img.complete) resolve(img.naturalWidth > 0);
          img.onload = () => resolve(true);
          img.onerror = () => resolve(false);
        }),
    );
    assert.equal(loaded, true, 'thumbnail loads');

    // A text file named x.png is refused with the translated message; nothing else stops.
    await page.getByTestId('drop-zone-input').setInputFiles({
      name: 'x.png',
      mimeType: 'image/png',
      buffer: Buffer.from('this is not an image'),
    });
    const failed = list.locator('li[data-status="failed"]');
    await failed.waitFor();
    assert.match(await failed.textContent(), /x\.png/);
    assert.equal(
      (await failed.getByRole('alert').textContent()).trim(),
      "Ce fichier n'est pas une image JPEG, PNG ou WebP.",
    );

    // Rename: Enter saves.
    await grid.getByRole('link', { name: 'affiche-ete' }).click();
    await page.getByTestId('creative-name').waitFor();
    assert.equal((await page.getByTestId('creative-name').textContent()).trim(), 'affiche-ete');
    await page.getByRole('button', { name: 'Renommer' }).click();
    await page.getByTestId('rename-input').fill('Affiche été 2026');
    await page.getByTestId('rename-input').press('Enter');
    await page.getByTestId('creative-name').filter({ hasText: 'Affiche été 2026' }).waitFor();
    await page.getByRole('link', { name: '← Retour aux créations' }).click();
    await grid.getByRole('link', { name: 'Affiche été 2026' }).waitFor();

    // Sorted by name (Z → A), then searched without accents: kept in the address, across a reload.
    await page.getByLabel('Trier par').selectOption('name_desc');
    await page.waitForURL((url) => url.searchParams.get('sort') === 'name_desc');
    await page.waitForFunction(() =>
      [...document.querySelectorAll('[data-testid=creative-card] .media-card__name')].map((n) => n.textContent).join('|') ===
      'affiche-hiver|Affiche été 2026',
    );
    await page.getByLabel('Rechercher').fill('ETE');
    await page.waitForURL((url) => url.searchParams.get('q') === 'ETE');
    await page.reload();
    await grid.getByRole('link', { name: 'Affiche été 2026' }).waitFor();
    assert.equal(await page.getByTestId('creative-card').count(), 1);
    assert.equal(await page.getByLabel('Rechercher').inputValue(), 'ETE');
    await page.getByRole('button', { name: 'Effacer les filtres' }).click();
    await grid.getByRole('link', { name: 'affiche-hiver' }).waitFor();

    // Delete the other one after confirming.
    await grid.getByRole('link', { name: 'affiche-hiver' }).click();
    await page.getByTestId('delete-creative').click();
    const dialog = page.getByRole('alertdialog', { name: 'Supprimer cette création ?' });
    await dialog.waitFor();
    assert.match(await dialog.textContent(), /Aucune simulation n'utilise cette création\./);
    await dialog.getByRole('button', { name: 'Supprimer' }).click();
    await page.waitForURL((url) => url.pathname === '/creatives');
    await grid.getByRole('link', { name: 'Affiche été 2026' }).waitFor();
    assert.equal(await page.getByTestId('creative-card').count(), 1);

    assert.deepEqual(errors, []);
    await context.close();
  });

  it('creates a location with a photo, drags its four corners, finds it without accents, deletes it', async () => {
    const { context, page, errors } = await newPage();
    await register(page);
    await page.getByRole('link', { name: 'Emplacements' }).click();
    await page.getByRole('heading', { level: 1, name: 'Mes emplacements' }).waitFor();
    await page.getByText("Vous n'avez pas encore d'emplacements.").waitFor();

    await page.getByTestId('new-location').click();
    await page.getByRole('heading', { level: 1, name: 'Nouvel emplacement' }).waitFor();
    // Saving without a name shows the server's field error, translated.
    await page.getByTestId('save-location').click();
    await page.getByTestId('error-name').waitFor();
    assert.equal((await page.getByTestId('error-name').textContent()).trim(), 'Ce champ est obligatoire.');

    await page.getByLabel(/^Nom/).fill('Gare d’Évry');
    await page.getByLabel('Ville').fill('Évry');
    await page.getByLabel('Code postal').fill('91000');
    await page.getByLabel('Format').selectOption('bus_shelter');
    await page.getByTestId('photo-drop-zone-input').setInputFiles({
      name: 'site.png',
      mimeType: 'image/png',
      buffer: Buffer.from(await pngBase64(page, 800, 600, '#64748b'), 'base64'),
    });

    const frame = page.getByTestId('quad-editor');
    await frame.waitFor();
    await frame.evaluate((el) => el.scrollIntoView({ block: 'center' }));
    await frame.locator('img').evaluate((img) => img.decode().catch(() => {}));
    const box = await frame.boundingBox();
    const targets = [
      ['Coin haut gauche', 0.1, 0.15],
      ['Coin haut droit', 0.9, 0.1],
      ['Coin bas droit', 0.85, 0.9],
      ['Coin bas gauche', 0.15, 0.85],
    ];
    for (const [label, x, y] of targets) {
      const handle = page.getByRole('button', { name: label });
      const from = await handle.boundingBox();
      await page.mouse.move(from.x + from.width / 2, from.y + from.height / 2);
      await page.mouse.down();
      await page.mouse.move(box.x + box.width * x, box.y + box.height * y, { steps: 6 });
      await page.mouse.up();
      const [dx, dy] = await Promise.all([handle.getAttribute('data-x'), handle.getAttribute('data-y')]);
      assert.ok(Math.abs(Number(dx) - x) < 0.01 && Math.abs(Number(dy) - y) < 0.01, `${label} at ${dx},${dy}`);
    }
    // One more step with the keyboard.
    await page.getByRole('button', { name: 'Coin haut gauche' }).press('Shift+ArrowRight');

    await page.getByTestId('save-location').click();
    await page.waitForURL((url) => url.pathname === '/locations');

    // Accent-insensitive search, kept in the URL.
    await page.getByPlaceholder('Rechercher un emplacement...').fill('evry');
    await page.waitForURL((url) => url.searchParams.get('q') === 'evry');
    const list = page.getByRole('list', { name: 'Vos emplacements' });
    await list.getByRole('link', { name: 'Gare d’Évry' }).waitFor();
    await page.getByPlaceholder('Rechercher un emplacement...').fill('lyon');
    await page.getByText('Aucun emplacement ne correspond à « lyon ».').waitFor();
    await page.getByPlaceholder('Rechercher un emplacement...').fill('evry');
    await list.getByRole('link', { name: 'Gare d’Évry' }).click();

    // The corners were stored.
    const topLeft = page.getByRole('button', { name: 'Coin haut gauche' });
    await topLeft.waitFor();
    assert.ok(Math.abs(Number(await topLeft.getAttribute('data-x')) - 0.12) < 0.012);
    assert.ok(Math.abs(Number(await topLeft.getAttribute('data-y')) - 0.15) < 0.01);

    await page.getByTestId('delete-location').click();
    const dialog = page.getByRole('alertdialog', { name: 'Supprimer cet emplacement ?' });
    await dialog.getByRole('button', { name: 'Supprimer' }).click();
    await page.waitForURL((url) => url.pathname === '/locations');
    await page.getByText("Vous n'avez pas encore d'emplacements.").waitFor();

    assert.deepEqual(errors, []);
    await context.close();
  });
});
