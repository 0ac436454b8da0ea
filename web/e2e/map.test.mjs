// The locations map in a real browser against the real `regard` binary, with map tiles from a
// local fixture server (never the network): markers for the positioned locations, tiles drawn
// from the configured template and allowed by the Content-Security-Policy, the provider's
// attribution, a marker leading to its location, and the form's position picker.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { after, before, describe, it } from 'node:test';

import { startServerAndBrowser, stopServerAndBrowser } from './support/browser.mjs';
import { newPage, register } from './support/session.mjs';

/** A 256-px tile naming its z/x/y, as SVG. */
function tile(z, x, y) {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256"><rect width="256" height="256" fill="#dfe7d8" stroke="#9ab08a"/><text x="12" y="28" font-size="16" fill="#4d5d43">${z}/${x}/${y}</text></svg>`;
}

describe('Locations map in Chromium', () => {
  let tiles;
  let requested = [];
  let fixture;
  before(async () => {
    tiles = createServer((request, response) => {
      const match = /^\/tiles\/(\d+)\/(\d+)\/(\d+)\.svg$/.exec(request.url ?? '');
      if (!match) {
        response.writeHead(404).end();
        return;
      }
      requested.push(match.slice(1).join('/'));
      response.writeHead(200, { 'Content-Type': 'image/svg+xml' }).end(tile(...match.slice(1)));
    });
    await new Promise((resolve) => tiles.listen(0, '127.0.0.1', resolve));
    const { port } = tiles.address();
    fixture = await startServerAndBrowser({
      REGARD_MAP_TILES_URL: `http://127.0.0.1:${port}/tiles/{z}/{x}/{y}.svg`,
      REGARD_MAP_ATTRIBUTION: 'Tuiles de test',
    });
  });
  after(async () => {
    await stopServerAndBrowser(fixture ?? {});
    await new Promise((resolve) => tiles.close(resolve));
  });

  it('shows the positioned locations on the configured tiles and places a location with a click', async () => {
    const { page, context, errors } = await newPage(fixture.browser, fixture.server.url);
    await register(page, 'map');
    const ids = await page.evaluate(async () => {
      const token = JSON.parse(localStorage.getItem('regard-auth-token')).access_token;
      const post = async (body) => {
        const answer = await fetch('/api/v1/locations', {
          method: 'POST',
          headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
          body: JSON.stringify(body),
        });
        return (await answer.json()).id;
      };
      return [
        await post({ name: 'Bellecour', city: 'Lyon', format: 'mupi_2m2', audience: 'pedestrian', latitude: 45.7578, longitude: 4.832 }),
        await post({ name: 'Part-Dieu', city: 'Lyon', format: 'billboard_4x3', audience: 'road', latitude: 45.7606, longitude: 4.8595 }),
        await post({ name: 'Sans position', city: 'Lyon' }),
      ];
    });

    requested = [];
    await page.goto('/locations?view=map');
    const markers = page.getByTestId('map-marker');
    await markers.first().waitFor();
    assert.equal(await markers.count(), 2);
    assert.match(await page.getByRole('status').filter({ hasText: 'sur la carte' }).textContent(), /^2 emplacements sur la carte\./);
    // Tiles come from the fixture and are drawn (the policy lets them in).
    await page.locator('img.leaflet-tile-loaded').first().waitFor();
    assert.ok(requested.length > 0, 'tiles were requested from the fixture');
    // The map opens on France, then fits the markers: tiles of a city's zoom are asked for.
    await page.waitForFunction(() => document.querySelector('.leaflet-tile-loaded')?.getAttribute('src')?.match(/\/tiles\/1[0-9]\//));
    assert.ok(requested.some((zxy) => Number(zxy.split('/')[0]) >= 10), `zoomed on Lyon: ${requested.join(' ')}`);
    assert.match(await page.locator('.leaflet-control-attribution').textContent(), /Tuiles de test/);

    // The audience filter reaches the map; a marker opens its location.
    await page.getByTestId('audience-filter').selectOption('road');
    await page.waitForFunction(() => document.querySelectorAll('[data-testid="map-marker"]').length === 1);
    // A click event on the marker itself (a mouse click at its centre can land while the map
    // is still laying out under a loaded machine).
    await markers.first().dispatchEvent('click');
    await page.waitForURL(`**/locations/${ids[1]}`);

    // The form's picker: a click fills latitude and longitude.
    await page.goto(`/locations/${ids[2]}`);
    const picker = page.getByTestId('position-picker');
    await picker.locator('img.leaflet-tile-loaded').first().waitFor();
    const box = await picker.boundingBox();
    await page.mouse.click(box.x + box.width / 2 + 40, box.y + box.height / 2 - 20);
    const latitude = Number(await page.getByLabel('Latitude').inputValue());
    const longitude = Number(await page.getByLabel('Longitude').inputValue());
    assert.ok(latitude > 40 && latitude < 52, `latitude ${latitude} in France`);
    assert.ok(longitude > -5 && longitude < 10, `longitude ${longitude} in France`);
    await picker.locator('path.leaflet-interactive').first().waitFor();
    assert.deepEqual(errors, []);
    await context.close();
  });
});
