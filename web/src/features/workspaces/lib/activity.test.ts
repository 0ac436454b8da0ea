import { describe, expect, it } from 'vitest';

import { activityFiltersFrom, linkedSubject, sentenceKey, withActivityFilter } from './activity';

describe('the activity page', () => {
  it('reads its filters from the address, leaving unknown values out', () => {
    expect(activityFiltersFrom(new URLSearchParams('action=deleted&subject_type=heatmap&actor_id=u1'))).toEqual({
      action: 'deleted',
      subject_type: 'heatmap',
      actor_id: 'u1',
    });
    expect(activityFiltersFrom(new URLSearchParams('action=burned&subject_type=&actor_id=%20'))).toEqual({
      action: undefined,
      subject_type: undefined,
      actor_id: undefined,
    });
    expect(withActivityFilter(new URLSearchParams('action=deleted&ws=w1'), 'action', '').toString()).toBe('ws=w1');
  });

  it.each([
    ['changed', 'member', 'activity.special.roleChanged'],
    ['deleted', 'member', 'activity.special.memberRemoved'],
    ['changed', 'workspace', 'activity.special.renamed'],
    ['changed', 'creative', 'activity.sentences.changed'],
    ['joined', 'member', 'activity.sentences.joined'],
  ] as const)('tells %s × %s with %s', (action, subject_type, key) => {
    expect(sentenceKey({ action, subject_type })).toBe(key);
  });

  it('links to the library subjects that were not deleted', () => {
    expect(linkedSubject({ action: 'created', subject_type: 'creative' })).toBe('creative');
    expect(linkedSubject({ action: 'deleted', subject_type: 'creative' })).toBeNull();
    expect(linkedSubject({ action: 'created', subject_type: 'media' })).toBeNull();
    expect(linkedSubject({ action: 'invited', subject_type: 'invitation' })).toBeNull();
  });
});
