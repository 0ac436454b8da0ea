import { describe, expect, it } from 'vitest';

import type { Aoi, HeatmapItem, HeatmapResult } from '../api/heatmaps';

import { compareVariants, type Variant } from './compare';

function variant(id: string, score: number, aois: Array<[string, number, number | null]>): Variant {
  const result = { score, focus: score - 10, clarity: 50 } as HeatmapResult;
  const item = {
    id,
    aois: aois.map(
      ([name, share, rank]) =>
        ({ id: `${id}-${name}`, name, attention: { share, area: 0.1, relative: share / 0.1, seen_rank: rank, seen_early: rank !== null && rank <= 3 } }) as Aoi,
    ),
  } as HeatmapItem;
  return { item, result };
}

describe('compareVariants', () => {
  it('lines up areas by name, gives deltas from the first image and names the winner', () => {
    const rows = compareVariants([
      variant('a', 60, [['Logo', 0.08, 4], ['Titre', 0.2, 1]]),
      variant('b', 72, [['logo', 0.12, 2]]),
    ]);
    expect(rows.map((row) => [row.kind, row.name ?? null])).toEqual([
      ['score', null],
      ['focus', null],
      ['clarity', null],
      ['aoi', 'Logo'],
      ['aoi', 'Titre'],
    ]);
    const [score, , clarity, logo, title] = rows;
    expect(score.values).toEqual([60, 72]);
    expect(score.deltas).toEqual([null, 12]);
    expect(score.winner).toBe(1);
    expect(clarity.winner).toBeNull(); // a tie
    expect(logo.values).toEqual([0.08, 0.12]);
    expect(logo.deltas[1]).toBe(4); // percentage points: 12 % − 8 %
    expect(logo.ranks).toEqual([4, 2]);
    expect(logo.winner).toBe(1);
    expect(title.values).toEqual([0.2, null]);
    expect(title.deltas).toEqual([null, null]);
    expect(title.winner).toBeNull();
  });

  it('treats shown values closer than half a point (or half a percentage point) as ties', () => {
    const [score, , , logo] = compareVariants([variant('a', 70.2, [['Logo', 0.1, 1]]), variant('b', 70.4, [['Logo', 0.104, 1]])]);
    expect(score.deltas[1]).toBe(0);
    expect(score.winner).toBeNull();
    expect(logo.deltas[1]).toBe(0);
    expect(logo.winner).toBeNull();
    const [, , , close] = compareVariants([variant('a', 50, [['Logo', 0.045, 1]]), variant('b', 50, [['Logo', 0.048, 1]])]);
    expect(close.deltas[1]).toBe(0.3);
    expect(close.winner).toBeNull();
  });

  it('takes differences between the values as shown, not the raw ones', () => {
    // 39.4 shows 39 and 47.5 shows 48: +9 (the raw difference, 8.1, would read +8).
    const [low] = compareVariants([variant('a', 39.4, []), variant('b', 47.5, [])]);
    expect(low.deltas).toEqual([null, 9]);
    expect(low.winner).toBe(1);
    // 48.5 shows 49 and 61.4 shows 61: +12 (raw 12.9 would read +13).
    const [high] = compareVariants([variant('a', 48.5, []), variant('b', 61.4, [])]);
    expect(high.deltas).toEqual([null, 12]);
    // 70.5 and 70.4 show 71 and 70: a point apart, not a tie.
    const [near] = compareVariants([variant('a', 70.5, []), variant('b', 70.4, [])]);
    expect(near.deltas).toEqual([null, -1]);
    expect(near.winner).toBe(0);
    // Shares in percentage points of what is shown: 4.5 % (0.0449) and 12 % (0.123) are 7.5 apart,
    // 4.5 % and 4.6 % exactly 0.1 (no floating-point remainder).
    const [, , , share] = compareVariants([variant('a', 50, [['Logo', 0.0449, 1]]), variant('b', 50, [['Logo', 0.123, 1]])]);
    expect(share.deltas).toEqual([null, 7.5]);
    const [, , , tenth] = compareVariants([variant('a', 50, [['Logo', 0.045, 1]]), variant('b', 50, [['Logo', 0.046, 1]])]);
    expect(tenth.deltas).toEqual([null, 0.1]);
  });
});
