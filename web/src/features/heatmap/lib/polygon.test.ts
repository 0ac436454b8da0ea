import { describe, expect, it } from 'vitest';

import { clickCorner, closePolygon, MAX_CORNERS, removeCorner } from './polygon';

describe('drawing a polygon by clicks', () => {
  it('adds corners, and closes on a click on the first corner once there are three', () => {
    let step = clickCorner([], { x: 0.1, y: 0.1 });
    step = clickCorner(step.points, { x: 0.5, y: 0.1 });
    // Two corners: a click on the first one is just another corner.
    expect(clickCorner(step.points, { x: 0.105, y: 0.1 }).kind).toBe('open');
    step = clickCorner(step.points, { x: 0.4, y: 0.5 });
    expect(step).toEqual({ kind: 'open', points: [{ x: 0.1, y: 0.1 }, { x: 0.5, y: 0.1 }, { x: 0.4, y: 0.5 }] });
    const closed = clickCorner(step.points, { x: 0.11, y: 0.105 });
    expect(closed).toEqual({ kind: 'closed', points: step.points });
  });

  it('keeps corners inside the image and ignores the second click of a double-click', () => {
    const step = clickCorner([{ x: 0.5, y: 0.5 }], { x: 1.4, y: -0.2 });
    expect(step.points[1]).toEqual({ x: 1, y: 0 });
    expect(clickCorner(step.points, { x: 1, y: 0 }).points).toHaveLength(2);
  });

  it('closes on Enter or a double-click only with three corners, and Backspace removes the last', () => {
    const two = [{ x: 0, y: 0 }, { x: 1, y: 0 }];
    expect(closePolygon(two).kind).toBe('open');
    expect(closePolygon([...two, { x: 1, y: 1 }]).kind).toBe('closed');
    expect(removeCorner(two)).toEqual([{ x: 0, y: 0 }]);
    expect(removeCorner([])).toEqual([]);
  });

  it('closes by itself at the most corners the API takes', () => {
    let points: Array<{ x: number; y: number }> = [];
    let kind = 'open';
    for (let i = 0; i < MAX_CORNERS && kind === 'open'; i++) {
      const step = clickCorner(points, { x: 0.5 + 0.4 * Math.cos(i / 6), y: 0.5 + 0.4 * Math.sin(i / 6) });
      points = step.points;
      kind = step.kind;
    }
    expect(kind).toBe('closed');
    expect(points).toHaveLength(MAX_CORNERS);
  });
});
