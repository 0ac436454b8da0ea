import { describe, expect, it } from 'vitest';

import { afterSwitch, INVITATION_PATH, isItemPage, sectionOf, withWorkspaceParam } from './address';

describe('workspace addresses', () => {
  it.each([
    ['/creatives/c1', true],
    ['/creatives/c1/', true],
    ['/creatives', false],
    ['/locations/l1', true],
    ['/locations/new', false],
    ['/locations/import', false],
    ['/simulation/s1', true],
    ['/simulation', false],
    ['/heatmap/results/h1', true],
    ['/heatmap/results/h1/compare', true],
    ['/heatmap/m1', true],
    ['/heatmap/new', false],
    ['/heatmap', false],
    ['/account', false],
    ['/workspace', false],
  ])('%s is an item page: %s', (path, expected) => {
    expect(isItemPage(path)).toBe(expected);
  });

  it('switching leads to the section list, or stays outside the library', () => {
    expect(afterSwitch('/creatives/c1')).toBe('/creatives');
    expect(afterSwitch('/heatmap/results/h1/compare')).toBe('/heatmap');
    expect(afterSwitch('/simulation')).toBe('/simulation');
    expect(afterSwitch('/account')).toBe('/account');
    expect(afterSwitch('/workspace')).toBe('/workspace');
    expect(sectionOf('/creativesX')).toBeNull();
  });

  it('sets the parameter and keeps the others', () => {
    expect(withWorkspaceParam('', 'w1')).toBe('?ws=w1');
    expect(withWorkspaceParam('?creative=c1&ws=old', 'w1')).toBe('?creative=c1&ws=w1');
  });

  it('recognises invitation links', () => {
    expect(INVITATION_PATH.test('/invitations/abc')).toBe(true);
    expect(INVITATION_PATH.test('/invitations')).toBe(false);
  });
});
