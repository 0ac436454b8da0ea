import { describe, expect, it } from 'vitest';

import { showsHeatmapToolbar } from './list-toolbar';

describe('showsHeatmapToolbar', () => {
  it.each([
    // searching, loaded, placeholder, count → shown
    [false, false, false, 0, false], // the first page is loading
    [false, true, false, 0, false], // an empty library
    [false, true, false, 3, true],
    [true, false, false, 0, true], // a search in the address, still loading
    [true, true, false, 0, true], // a search that matches nothing
    [false, true, true, 0, true], // a new order or search loading over the last answer
  ])('searching %s, loaded %s, placeholder %s, %i heatmaps → %s', (searching, loaded, placeholder, count, shown) => {
    expect(showsHeatmapToolbar({ searching, loaded, placeholder, count })).toBe(shown);
  });
});
