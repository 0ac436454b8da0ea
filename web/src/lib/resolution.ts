//! Whether an image is large enough to be shown sharp on a panel or a screen. The server accepts
//! any image from 1 × 1 px (docs/architecture/media.md); a 40 × 40 px logo passed off as a
//! creative would be enlarged twenty-fold and look blurred, so the page warns after the upload.

/**
 * The shorter side, in pixels, from which a creative is not flagged: 1,080 px, the shorter side
 * of a Full HD screen, the smallest common digital out-of-home format. Under it, the image is
 * enlarged on every screen and every print, and loses sharpness. (Print at full size needs far
 * more; this flags the images that are too small for any use, not those merely short of a
 * printer's specification.)
 */
export const MIN_SHORT_SIDE = 1080;

/** Whether an image of this size is under `MIN_SHORT_SIDE` on its shorter side. */
export function isLowResolution({ width, height }: { width: number; height: number }): boolean {
  return Math.min(width, height) < MIN_SHORT_SIDE;
}
