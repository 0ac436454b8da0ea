import { describe, expect, it } from 'vitest';

import { FIT, MAX_ZOOM, pan, toImage, zoomAt, zoomCentre } from './zoom';

const frame = { width: 800, height: 600 };

describe('zoom and pan', () => {
  it('keeps the point under the pointer where it is', () => {
    const at = { x: 200, y: 150 };
    const before = toImage(FIT, at, frame);
    const zoomed = zoomAt(FIT, 2, at, frame);
    expect(zoomed.z).toBe(2);
    const after = toImage(zoomed, at, frame);
    expect(after.x).toBeCloseTo(before.x, 10);
    expect(after.y).toBeCloseTo(before.y, 10);
  });

  it('zooms around the centre with the buttons, within 1 and 8', () => {
    const zoomed = zoomCentre(FIT, 2, frame);
    expect(zoomed).toEqual({ z: 2, tx: -400, ty: -300 });
    expect(toImage(zoomed, { x: 400, y: 300 }, frame)).toEqual({ x: 0.5, y: 0.5 });
    let z = FIT;
    for (let i = 0; i < 30; i++) z = zoomCentre(z, 2, frame);
    expect(z.z).toBe(MAX_ZOOM);
    expect(zoomCentre(zoomed, 0.01, frame)).toEqual(FIT);
  });

  it('never lets the image leave the frame', () => {
    const zoomed = zoomCentre(FIT, 2, frame);
    expect(pan(zoomed, 10_000, 10_000, frame)).toEqual({ z: 2, tx: 0, ty: 0 });
    expect(pan(zoomed, -10_000, -10_000, frame)).toEqual({ z: 2, tx: -800, ty: -600 });
    expect(pan(FIT, 50, 50, frame)).toEqual(FIT);
  });
});
