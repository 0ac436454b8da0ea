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
    expect(logo.deltas[1]).toBeCloseTo(0.04);
    expect(logo.ranks).toEqual([4, 2]);
    expect(logo.winner).toBe(1);
    expect(title.values).toEqual([0.2, null]);
    expect(title.deltas).toEqual([null, null]);
    expect(title.winner).toBeNull();
  });

  it('treats differences under half a point (or 0.5 % of attention) as ties', () => {
    const [score, , , logo] = compareVariants([variant('a', 70.2, [['Logo', 0.1, 1]]), variant('b', 70.5, [['Logo', 0.104, 1]])]);
    expect(score.winner).toBeNull();
    expect(logo.winner).toBeNull();
  });
});
