//! Whether a creative has its panel's shape (the batch dialog warns before a render crops, leaves
//! bands or distorts). The panel's aspect is the renderer's (rendering.md §1): the location's
//! size in centimetres when given, else estimated from its quad in photo pixels; the estimate is
//! the preview module's own function, so the warning and the render always agree.
import { parseQuad } from '@/lib/quad';

import type { LocationOption } from '../api/simulations';

import { panelAspect, quadToPixels } from './preview/homography';
import type { Fit } from './types';

/** Above this relative difference between the two aspects (10 %), the fit visibly matters. */
export const ASPECT_TOLERANCE = 0.1;

/** Width / height of the location's panel as the renderer takes it, or null when it cannot tell. */
export function locationPanelAspect(location: Pick<LocationOption, 'panel_width_cm' | 'panel_height_cm' | 'panel_quad' | 'photo'>): number | null {
  const { panel_width_cm: w, panel_height_cm: h } = location;
  if (w && h && w > 0 && h > 0) return w / h;
  const quad = parseQuad(location.panel_quad);
  const photo = location.photo;
  if (!quad || !photo || photo.width <= 0 || photo.height <= 0) return null;
  return panelAspect(quadToPixels(quad, photo.width, photo.height), null);
}

/** How a creative of aspect `creative` lands on a panel of aspect `panel` with `fit`. */
export type FitOutcome = {
  /**
   * `coverSides`: cover crops the creative's left and right edges (a wider creative), `coverTopBottom`
   * its top and bottom; `containTopBottom`: contain leaves bands above and below (a wider creative),
   * `containSides` on the left and right; `stretch` distorts it.
   */
  kind: 'coverSides' | 'coverTopBottom' | 'containTopBottom' | 'containSides' | 'stretch';
  /** The share cut off (cover), the share of the panel left as background (contain) or the distortion (stretch). */
  share: number;
};

/**
 * What the fit does to a creative whose shape differs from the panel's by more than
 * `ASPECT_TOLERANCE`, or null when the shapes match (all fits then look alike).
 *
 * Worked example: a 4:3 poster (1.33) on a 3:1 panel: the poster is narrower, so cover keeps its
 * full width and crops 1 − 1.33/3 = 56 % of its height; contain leaves 56 % of the panel's width
 * as bands; stretch widens it by 3/1.33 − 1 = 125 %.
 */
export function fitOutcome(creative: number, panel: number, fit: Fit): FitOutcome | null {
  if (!(creative > 0) || !(panel > 0)) return null;
  const wide = Math.max(creative, panel);
  const narrow = Math.min(creative, panel);
  // (The epsilon keeps exactly 10 %, such as 1.1 against 1, on the quiet side of the rounding.)
  if (wide / narrow - 1 <= ASPECT_TOLERANCE + 1e-9) return null;
  const creativeWider = creative > panel;
  switch (fit) {
    case 'cover':
      return { kind: creativeWider ? 'coverSides' : 'coverTopBottom', share: 1 - narrow / wide };
    case 'contain':
      return { kind: creativeWider ? 'containTopBottom' : 'containSides', share: 1 - narrow / wide };
    case 'stretch':
      return { kind: 'stretch', share: wide / narrow - 1 };
  }
}
