import { describe, expect, it } from 'vitest';

import {
  clampPoint,
  defaultQuad,
  isValidQuad,
  loupePlacement,
  loupeView,
  moveCorner,
  nudge,
  NUDGE_STEP,
  NUDGE_STEP_LARGE,
  parseQuad,
  quadProblem,
  roundQuad,
  svgPoints,
  toNormalised,
  toPixels,
  type Quad,
} from './quad';

const q = (points: Array<[number, number]>) => points.map(([x, y]) => ({ x, y })) as Quad;

describe('quad checks (same cases as the server)', () => {
  it('accepts a square and a perspective trapezium', () => {
    expect(quadProblem(q([[0.1, 0.1], [0.9, 0.1], [0.9, 0.9], [0.1, 0.9]]))).toBeNull();
    expect(quadProblem(q([[0.2, 0.1], [0.7, 0.2], [0.7, 0.8], [0.2, 0.9]]))).toBeNull();
  });

  it('refuses anticlockwise, crossed, concave and degenerate quads', () => {
    expect(quadProblem(q([[0.1, 0.1], [0.1, 0.9], [0.9, 0.9], [0.9, 0.1]]))).toBe('not_clockwise');
    expect(quadProblem(q([[0.1, 0.1], [0.9, 0.9], [0.9, 0.1], [0.1, 0.9]]))).toBe('self_intersecting');
    expect(quadProblem(q([[0.1, 0.1], [0.9, 0.1], [0.3, 0.3], [0.1, 0.9]]))).toBe('not_convex');
    expect(quadProblem(q([[0.1, 0.1], [0.5, 0.1], [0.9, 0.1], [0.5, 0.9]]))).toBe('not_convex');
    expect(isValidQuad(q([[0.1, 0.1], [0.1, 0.9], [0.9, 0.9], [0.9, 0.1]]))).toBe(false);
  });

  it('defaults to a centred, valid rectangle', () => {
    const quad = defaultQuad();
    expect(quad).toEqual(q([[0.25, 0.25], [0.75, 0.25], [0.75, 0.75], [0.25, 0.75]]));
    expect(isValidQuad(quad)).toBe(true);
  });
});

describe('coordinates', () => {
  const size = { width: 400, height: 200 };

  it('converts between pixels and normalised points, clamping to the photo', () => {
    expect(toPixels({ x: 0.5, y: 0.25 }, size)).toEqual({ x: 200, y: 50 });
    expect(toNormalised({ x: 100, y: 150 }, size)).toEqual({ x: 0.25, y: 0.75 });
    expect(toNormalised({ x: -20, y: 500 }, size)).toEqual({ x: 0, y: 1 });
    expect(toNormalised({ x: 10, y: 10 }, { width: 0, height: 0 })).toEqual({ x: 0, y: 0 });
    expect(clampPoint({ x: 1.5, y: -0.1 })).toEqual({ x: 1, y: 0 });
    expect(svgPoints(defaultQuad(), size)).toBe('100,50 300,50 300,150 100,150');
  });

  it('moves one corner, clamped, leaving the others', () => {
    const quad = defaultQuad();
    const moved = moveCorner(quad, 2, { x: 1.2, y: 0.9 });
    expect(moved[2]).toEqual({ x: 1, y: 0.9 });
    expect(moved[0]).toBe(quad[0]);
    expect(quad[2]).toEqual({ x: 0.75, y: 0.75 });
  });

  it('nudges with the arrow keys, bigger with Shift, and ignores other keys', () => {
    const quad = defaultQuad();
    expect(nudge(quad, 0, 'ArrowLeft')![0].x).toBeCloseTo(0.25 - NUDGE_STEP);
    expect(nudge(quad, 0, 'ArrowDown', true)![0].y).toBeCloseTo(0.25 + NUDGE_STEP_LARGE);
    expect(nudge(quad, 1, 'ArrowUp')![1].y).toBeCloseTo(0.25 - NUDGE_STEP);
    expect(nudge(quad, 1, 'ArrowRight', true)![1].x).toBeCloseTo(0.75 + NUDGE_STEP_LARGE);
    expect(nudge(quad, 0, 'Enter')).toBeNull();
    const corner = q([[0, 0], [1, 0], [1, 1], [0, 1]]);
    expect(nudge(corner, 0, 'ArrowLeft', true)![0]).toEqual({ x: 0, y: 0 });
  });

  it('reads API quads and rounds for storage', () => {
    expect(parseQuad([{ x: 0.1, y: 0.2 }, { x: 0.9, y: 0.2 }, { x: 0.9, y: 0.8 }, { x: 0.1, y: 0.8 }])).toEqual(
      q([[0.1, 0.2], [0.9, 0.2], [0.9, 0.8], [0.1, 0.8]]),
    );
    expect(parseQuad(null)).toBeNull();
    expect(parseQuad([{ x: 0.1 }, 1, 2, 3])).toBeNull();
    expect(parseQuad([{ x: 0.1, y: 0.1 }])).toBeNull();
    expect(roundQuad(q([[0.1234567891, 0], [1, 0], [1, 1], [0, 1]]))[0].x).toBe(0.123457);
  });
});

describe('the loupe beside a corner', () => {
  const frame = { width: 400, height: 300 };
  it('goes beside the cursor, on the side with more room, inside the frame', () => {
    expect(loupePlacement({ x: 50, y: 50 }, frame, 120, false)).toEqual({ x: 74, y: 74 });
    expect(loupePlacement({ x: 390, y: 290 }, frame, 120, false)).toEqual({ x: 246, y: 146 });
  });
  it('stays clear of a finger: above the corner, or beside it when the corner is near the top', () => {
    const above = loupePlacement({ x: 200, y: 250 }, frame, 120, true);
    expect(above).toEqual({ x: 140, y: 74 });
    expect(above.y + 120).toBeLessThan(250 - 40);
    const beside = loupePlacement({ x: 100, y: 40 }, frame, 120, true);
    expect(beside).toEqual({ x: 156, y: 0 });
    expect(beside.x).toBeGreaterThan(100 + 40);
  });
});


describe('the loupe\'s view', () => {
  it('reads the source around the corner at device resolution (the worked example)', () => {
    const view = loupeView({ x: 0.5, y: 0.25 }, { width: 800, height: 400 }, { width: 4000, height: 2000 }, 120, 3, 2);
    expect(view).toEqual({ sx: 2000 - 100, sy: 500 - 100, sw: 200, sh: 200, canvas: 240, smoothing: true });
  });
  it('shows the pixels crisp once they are magnified twice or more, and draws at the device pixel ratio', () => {
    // The preview variant (800 px) at 3× on a 1× screen: 3 device pixels per source pixel.
    const crisp = loupeView({ x: 0.5, y: 0.5 }, { width: 800, height: 400 }, { width: 800, height: 400 }, 120, 3, 1);
    expect(crisp.canvas).toBe(120);
    expect(crisp.sw).toBe(40);
    expect(crisp.smoothing).toBe(false);
    expect(loupeView({ x: 0.5, y: 0.5 }, { width: 800, height: 400 }, { width: 800, height: 400 }, 120, 3, 3).canvas).toBe(360);
  });
});
