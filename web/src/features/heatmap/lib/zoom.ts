//! Zoom and pan of a result image: the image is scaled by `z` (1 = fit) and moved by (tx, ty)
//! pixels inside its frame, and always covers the frame (it cannot be lost off screen). Pure
//! maths, unit-tested; the stage applies it as a CSS transform.

export type Zoom = { z: number; tx: number; ty: number };
export type Size = { width: number; height: number };

export const FIT: Zoom = { z: 1, tx: 0, ty: 0 };
export const MIN_ZOOM = 1;
export const MAX_ZOOM = 8;
/** One step of the buttons and keys (and of a wheel notch): ×1.25. */
export const STEP = 1.25;

const clamp = (v: number, lo: number, hi: number) => Math.min(hi, Math.max(lo, v));

/** The zoom kept within 1..8 and the image over the whole frame. */
export function clampZoom({ z, tx, ty }: Zoom, frame: Size): Zoom {
  const scale = clamp(z, MIN_ZOOM, MAX_ZOOM);
  return {
    z: scale,
    tx: clamp(tx, frame.width * (1 - scale), 0),
    ty: clamp(ty, frame.height * (1 - scale), 0),
  };
}

/** Zoom by `factor` keeping the point `at` (pixels in the frame) where it is on screen. */
export function zoomAt(zoom: Zoom, factor: number, at: { x: number; y: number }, frame: Size): Zoom {
  const z = clamp(zoom.z * factor, MIN_ZOOM, MAX_ZOOM);
  const k = z / zoom.z;
  return clampZoom({ z, tx: at.x - (at.x - zoom.tx) * k, ty: at.y - (at.y - zoom.ty) * k }, frame);
}

/** Zoom by `factor` around the frame's centre (buttons and keys). */
export function zoomCentre(zoom: Zoom, factor: number, frame: Size): Zoom {
  return zoomAt(zoom, factor, { x: frame.width / 2, y: frame.height / 2 }, frame);
}

/** Moved by (dx, dy) pixels. */
export function pan(zoom: Zoom, dx: number, dy: number, frame: Size): Zoom {
  return clampZoom({ ...zoom, tx: zoom.tx + dx, ty: zoom.ty + dy }, frame);
}

/** A point of the frame (pixels) as a point of the image (0..1). */
export function toImage(zoom: Zoom, at: { x: number; y: number }, frame: Size): { x: number; y: number } {
  return { x: (at.x - zoom.tx) / (zoom.z * frame.width), y: (at.y - zoom.ty) / (zoom.z * frame.height) };
}
