import { act, renderHook } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';

import { secondsLeft, useCooldown } from './use-cooldown';

describe('secondsLeft', () => {
  it.each([
    [60_000, 0, 60],
    [60_000, 1, 60],
    [60_000, 59_001, 1],
    [60_000, 60_000, 0],
    [60_000, 90_000, 0],
  ])('until %i, now %i → %i s', (until, now, left) => {
    expect(secondsLeft(until, now)).toBe(left);
  });
});

/** Lets `seconds` pass one second at a time, each tick rendered before the next is due. */
function pass(seconds: number) {
  for (let i = 0; i < seconds; i += 1) act(() => {
      vi.advanceTimersByTime(1000);
    });
}

describe('useCooldown', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('counts down from the first render with startNow, once a second, to 0', () => {
    const { result } = renderHook(() => useCooldown(3, true));
    expect(result.current.left).toBe(3);
    pass(1);
    expect(result.current.left).toBe(2);
    pass(2);
    expect(result.current.left).toBe(0);
    pass(5);
    expect(result.current.left).toBe(0);
  });

  it('waits for start() otherwise, and starts again from the full count', () => {
    const { result } = renderHook(() => useCooldown(60));
    expect(result.current.left).toBe(0);
    act(() => result.current.start());
    expect(result.current.left).toBe(60);
    pass(30);
    expect(result.current.left).toBe(30);
    act(() => result.current.start());
    expect(result.current.left).toBe(60);
  });

  it('follows the clock, not the ticks: a tab whose timers were held back shows the right figure', () => {
    const { result } = renderHook(() => useCooldown(60, true));
    // The clock moves 45 s while no timer runs (a tab in the background), then one tick comes.
    vi.setSystemTime(Date.now() + 45_000);
    pass(1);
    expect(result.current.left).toBe(14);
  });
});
