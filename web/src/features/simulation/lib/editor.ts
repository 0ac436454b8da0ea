//! The editor's state, pure: what a saved simulation or a deep link starts from, what Save
//! sends (POST or PATCH body), and small helpers (panel aspect, night default, slider steps).
import { parseQuad, roundQuad } from '@/lib/quad';

import type { ListedSimulation, LocationOption, Simulation, SimulationInput } from '../api/simulations';

import { DEFAULT_ADJUSTMENTS, SLIDERS, type Adjustments, type Fit, type Night, type Quad } from './types';

export type SliderKey = (typeof SLIDERS)[number]['key'];

/** Everything the user edits, besides the mask (a canvas). */
export type Draft = {
  name: string;
  creativeId: string | null;
  locationId: string | null;
  /** The corners the user set; null = the location's own. */
  quad: Quad | null;
  fit: Fit;
  background: string;
  adjustments: Adjustments;
};

export const DEFAULT_BACKGROUND = '#ffffff';

export function emptyDraft(creativeId: string | null = null, locationId: string | null = null): Draft {
  return {
    name: '',
    creativeId,
    locationId,
    quad: null,
    fit: 'cover',
    background: DEFAULT_BACKGROUND,
    adjustments: { ...DEFAULT_ADJUSTMENTS },
  };
}

/** The adjustments of the server, completed with the defaults (an older row may miss fields). */
export function normaliseAdjustments(value: Partial<Adjustments> | null | undefined): Adjustments {
  const merged = { ...DEFAULT_ADJUSTMENTS, ...(value ?? {}) };
  for (const { key, min, max } of SLIDERS) {
    const n = Number(merged[key]);
    merged[key] = Number.isFinite(n) ? Math.min(max, Math.max(min, n)) : 0;
  }
  merged.auto_match = Boolean(merged.auto_match);
  merged.night = merged.night === 'backlit' || merged.night === 'led' ? merged.night : null;
  return merged;
}

export function draftFromSimulation(simulation: Simulation): Draft {
  return {
    name: simulation.name,
    creativeId: simulation.creative_id,
    locationId: simulation.location_id,
    quad: simulation.quad_override ? parseQuad(simulation.quad) : null,
    fit: simulation.fit,
    background: /^#[0-9a-f]{6}$/i.test(simulation.background) ? simulation.background.toLowerCase() : DEFAULT_BACKGROUND,
    adjustments: normaliseAdjustments(simulation.adjustments),
  };
}

/** The location's quad, or null when it has none. */
export function locationQuad(location: Pick<LocationOption, 'panel_quad'> | null | undefined): Quad | null {
  return location ? parseQuad(location.panel_quad) : null;
}

/** Why a location cannot be used (shown on the disabled option), or null when it can. */
export function locationProblem(location: Pick<LocationOption, 'photo' | 'panel_quad'>): 'noPhoto' | 'noQuad' | null {
  if (!location.photo) return 'noPhoto';
  if (!locationQuad(location)) return 'noQuad';
  return null;
}

/** Width / height of the panel when the location gives its size. */
export function panelAspect(location: Pick<LocationOption, 'panel_width_cm' | 'panel_height_cm'> | null | undefined): number | null {
  const w = location?.panel_width_cm;
  const h = location?.panel_height_cm;
  return w && h && w > 0 && h > 0 ? w / h : null;
}

/** The lighting a night switch starts with: a digital panel is an LED screen, anything else backlit paper. */
export function defaultNight(illumination: string | null | undefined): Night {
  return illumination === 'digital' ? 'led' : 'backlit';
}

export function sameQuad(a: Quad | null, b: Quad | null): boolean {
  if (!a || !b) return a === b;
  return a.every((p, i) => Math.abs(p.x - b[i].x) < 1e-7 && Math.abs(p.y - b[i].y) < 1e-7);
}

/**
 * The body of Save. A new simulation sends the name only when typed (the server names it
 * "creative — location"); the corners only when they differ from the location's (`null` in a
 * PATCH goes back to the location's corners).
 */
export function saveBody(draft: Draft, options: { existing: boolean; locationQuad: Quad | null; maskMediaId?: string | null }): SimulationInput {
  const override = draft.quad && !sameQuad(draft.quad, options.locationQuad) ? roundQuad(draft.quad) : null;
  const body: SimulationInput = {
    creative_id: draft.creativeId ?? '',
    location_id: draft.locationId ?? '',
    fit: draft.fit,
    background: draft.background,
    adjustments: { ...draft.adjustments },
  };
  const name = draft.name.trim();
  if (name || options.existing) body.name = name;
  if (override) body.quad = override;
  else if (options.existing) body.quad = null;
  if (options.maskMediaId !== undefined) body.mask_media_id = options.maskMediaId;
  return body;
}

/** The slider's step: a hundredth of its range. */
export const SLIDER_STEP = 0.01;

/** A slider value shown as a signed whole number (−100..100, 0..100). */
export function sliderDisplay(value: number, min: number): string {
  const n = Math.round(value * 100);
  if (min < 0 && n > 0) return `+${n}`;
  return n < 0 ? `−${-n}` : String(n);
}

/** Visibility first (best placement on top), then the ones not analysed yet, newest first. */
export function byVisibility(a: ListedSimulation, b: ListedSimulation): number {
  const va = a.attention?.visibility ?? null;
  const vb = b.attention?.visibility ?? null;
  if (va !== null && vb !== null) return vb - va;
  if (va !== null) return -1;
  if (vb !== null) return 1;
  return 0;
}
