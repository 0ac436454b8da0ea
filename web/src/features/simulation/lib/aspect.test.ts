/** Tests of the creative / panel shape check of the batch dialog. */
import { describe, expect, it } from 'vitest';

import { fitOutcome, locationPanelAspect } from './aspect';

const photo = { width: 2000, height: 1000 } as NonNullable<Parameters<typeof locationPanelAspect>[0]['photo']>;

describe('the panel aspect of a location', () => {
  it('is its size in centimetres when given', () => {
    expect(locationPanelAspect({ panel_width_cm: 400, panel_height_cm: 300, panel_quad: null, photo: null })).toBeCloseTo(4 / 3, 12);
  });

  it('is estimated from the quad in photo pixels otherwise (rendering.md §1)', () => {
    // 0.3 × 2000 = 600 px wide, 0.2 × 1000 = 200 px high: 3:1, although 0.3 / 0.2 in photo units.
    const quad = [
      { x: 0.1, y: 0.1 },
      { x: 0.4, y: 0.1 },
      { x: 0.4, y: 0.3 },
      { x: 0.1, y: 0.3 },
    ];
    expect(locationPanelAspect({ panel_width_cm: null, panel_height_cm: 300, panel_quad: quad, photo })).toBeCloseTo(3, 12);
    // A perspective quad: the mean of the opposite sides, (600 + 400) / (200 + 200).
    const trapezoid = [
      { x: 0.1, y: 0.1 },
      { x: 0.4, y: 0.1 },
      { x: 0.35, y: 0.3 },
      { x: 0.15, y: 0.3 },
    ];
    const sides = Math.hypot(100, 200);
    expect(locationPanelAspect({ panel_width_cm: null, panel_height_cm: null, panel_quad: trapezoid, photo })).toBeCloseTo(1000 / (2 * sides), 12);
  });

  it('is unknown without a size, a quad or a photo', () => {
    expect(locationPanelAspect({ panel_width_cm: null, panel_height_cm: null, panel_quad: null, photo })).toBeNull();
    expect(locationPanelAspect({ panel_width_cm: null, panel_height_cm: null, panel_quad: [{ x: 0, y: 0 }], photo: null })).toBeNull();
  });
});

describe('what a fit does to a creative of another shape', () => {
  it('says nothing within 10 %', () => {
    expect(fitOutcome(4 / 3, 4 / 3, 'cover')).toBeNull();
    expect(fitOutcome(1.1, 1, 'cover')).toBeNull();
    expect(fitOutcome(1, 1.1, 'stretch')).toBeNull();
    expect(fitOutcome(1.11, 1, 'cover')).not.toBeNull();
  });

  it('gives the share cropped, left as bands or distorted (the worked example)', () => {
    // A 4:3 poster on a 3:1 panel.
    expect(fitOutcome(4 / 3, 3, 'cover')).toEqual({ kind: 'coverTopBottom', share: expect.closeTo(5 / 9, 12) as number });
    expect(fitOutcome(4 / 3, 3, 'contain')).toEqual({ kind: 'containSides', share: expect.closeTo(5 / 9, 12) as number });
    expect(fitOutcome(4 / 3, 3, 'stretch')).toEqual({ kind: 'stretch', share: expect.closeTo(1.25, 12) as number });
    // A 3:1 banner on a 4:3 panel: the other way round.
    expect(fitOutcome(3, 4 / 3, 'cover')?.kind).toBe('coverSides');
    expect(fitOutcome(3, 4 / 3, 'contain')?.kind).toBe('containTopBottom');
  });

  it('ignores sizes it cannot compare', () => {
    expect(fitOutcome(0, 1, 'cover')).toBeNull();
    expect(fitOutcome(Number.NaN, 1, 'cover')).toBeNull();
  });
});
