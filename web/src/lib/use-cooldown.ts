//! A wait before something may be done again ("Send the email again in 42 s"), counted from the
//! clock rather than from ticks, so a tab left in the background (timers slowed down) still shows
//! the right figure when it comes back.
import { useCallback, useEffect, useState } from 'react';

/** Whole seconds left from `now` until `until` (both in ms), never below 0. */
export function secondsLeft(until: number, now: number): number {
  return Math.max(0, Math.ceil((until - now) / 1000));
}

/**
 * `{ left, start }`: `left` counts the seconds down to 0 once `start()` is called (or from the
 * first render with `startNow`), once a second.
 */
export function useCooldown(seconds: number, startNow = false) {
  const [until, setUntil] = useState(() => (startNow ? Date.now() + seconds * 1000 : 0));
  const [now, setNow] = useState(() => Date.now());
  const left = secondsLeft(until, now);

  useEffect(() => {
    if (left === 0) return;
    // Wakes at the next whole second of the count.
    const delay = (until - now) % 1000 || 1000;
    const timer = window.setTimeout(() => setNow(Date.now()), delay);
    return () => window.clearTimeout(timer);
  }, [left, until, now]);

  const start = useCallback(() => {
    const from = Date.now();
    setNow(from);
    setUntil(from + seconds * 1000);
  }, [seconds]);

  return { left, start };
}
