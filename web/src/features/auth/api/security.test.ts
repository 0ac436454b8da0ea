import { describe, expect, it } from 'vitest';

import { describeDevice, normaliseRecoveryCode } from './security';

describe('describeDevice', () => {
  it.each([
    [
      'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
      { browser: 'Chrome 131', os: 'macOS', mobile: false },
    ],
    [
      'Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0',
      { browser: 'Firefox 133', os: 'Windows', mobile: false },
    ],
    [
      'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1',
      { browser: 'Safari 18', os: 'iOS', mobile: true },
    ],
    [null, { browser: null, os: null, mobile: false }],
  ])('reads %s', (agent, expected) => {
    expect(describeDevice(agent)).toEqual(expected);
  });

  it('keeps what it cannot name unnamed', () => {
    expect(describeDevice('curl/8.5.0').os).toBeNull();
  });
});

describe('normaliseRecoveryCode', () => {
  it.each([
    ['ab12-cd34-ef56', 'ab12cd34ef56'],
    ['AB12 CD34 EF56', 'ab12cd34ef56'],
    ['oIl1-0000-0000', '011100000000'],
    ['123456', null],
    ['ab12-cd34-ef5u', null],
    ['ab12-cd34-ef567', null],
  ])('reads %s', (typed, expected) => {
    expect(normaliseRecoveryCode(typed)).toBe(expected);
  });
});
