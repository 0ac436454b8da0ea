//! Places an absolutely positioned element over an image from a rectangle
//! relative to the image (0..1), through the CSSOM: the CSP forbids style
//! attributes, not styles set from script.
import { useLayoutEffect, type RefObject } from 'react';

import type { Rect } from '../api/heatmaps';

export function useRectStyle(ref: RefObject<HTMLElement | null>, rect: Rect) {
  const { x, y, width, height } = rect;
  useLayoutEffect(() => {
    const element = ref.current;
    if (!element) return;
    element.style.left = `${x * 100}%`;
    element.style.top = `${y * 100}%`;
    element.style.width = `${width * 100}%`;
    element.style.height = `${height * 100}%`;
  }, [ref, x, y, width, height]);
}

/** Places an absolutely positioned element's reference corner at a point relative to the image (0..1); its size stays its own. */
export function usePointStyle(ref: RefObject<HTMLElement | null>, x: number, y: number) {
  useLayoutEffect(() => {
    const element = ref.current;
    if (!element) return;
    element.style.left = `${x * 100}%`;
    element.style.top = `${y * 100}%`;
  }, [ref, x, y]);
}

/** Sets an element's CSS opacity (0..1) through the CSSOM; `element` names the element shown (it may be swapped). */
export function useOpacityStyle(ref: RefObject<HTMLElement | null>, opacity: number, element?: string) {
  useLayoutEffect(() => {
    if (ref.current) ref.current.style.opacity = String(opacity);
  }, [ref, opacity, element]);
}
