import { describe, expect, it } from 'vitest';

import { nameKey } from './aoi';

describe('nameKey', () => {
  it('ignores case, accents, ligatures and extra spaces as the server does', () => {
    expect(nameKey("  Appel  à l'ACTION ")).toBe("appel a l'action");
    expect(nameKey('Cœur')).toBe('coeur');
    expect(nameKey('Dröite')).toBe(nameKey('droite'));
    expect(nameKey('Logo')).not.toBe(nameKey('Logo 2'));
  });
});
