//! The editor's state, pure: what a saved simulation or a deep link starts from, what Save
//! sends (POST or PATCH body), and small helpers (panel aspect, night default, slider steps).
import { parseQuad, roundQuad } from '@/lib/quad';

import type { ListedSimulation, LocationOption, Simulation, SimulationInput } from '../api/simulations';

import {
  DEFAULT_ADJUSTMENTS,
  SLIDERS,
  VIEW_DISTANCE,
  VIEW_SPEED,
  type Adjustments,
  type Fit,
  type Night,
  type Quad,
  type Site,
  type ViewFrom,
} from './types';

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
  merged.view = normaliseView(merged.view);
  return merged;
}

const clamp = (value: number, { min, max }: { min: number; max: number }) => Math.min(max, Math.max(min, value));

/** The view from there of the server, within its ranges; null when off or malformed. */
export function normaliseView(value: unknown): ViewFrom | null {
  if (!value || typeof value !== 'object') return null;
  const { distance_m, speed_kmh } = value as Partial<Record<keyof ViewFrom, unknown>>;
  const distance = Number(distance_m);
  const speed = Number(speed_kmh);
  if (!Number.isFinite(distance) || !Number.isFinite(speed)) return null;
  return { distance_m: clamp(distance, VIEW_DISTANCE), speed_kmh: clamp(speed, VIEW_SPEED) };
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

/** The location's fields the view from there reads. */
export type ViewLocation = Pick<
  LocationOption,
  'panel_width_cm' | 'panel_height_cm' | 'audience' | 'speed_kmh' | 'viewing_distance_min_m' | 'viewing_distance_max_m'
>;

/**
 * The site of the view from there (rendering.md §2): the panel's size in metres and the
 * passing distance (the nearest viewing distance, else 5 m); null without a panel size.
 */
export function locationSite(location: Partial<ViewLocation> | null | undefined): Site | null {
  const w = location?.panel_width_cm;
  const h = location?.panel_height_cm;
  if (!w || !h || w <= 0 || h <= 0) return null;
  const passing = location?.viewing_distance_min_m;
  return { width_m: w / 100, height_m: h / 100, passing_m: passing != null && Number.isFinite(passing) && passing >= 0 ? passing : 5 };
}

/** The distance a view starts from: the location's farthest viewing distance, else 30 m. */
export function defaultViewDistance(location: Partial<ViewLocation> | null | undefined): number {
  const max = location?.viewing_distance_max_m;
  return clamp(max != null && max > 0 ? max : 30, VIEW_DISTANCE);
}

/** The speed a view starts with: the location's, else 50 km/h by road, 5 on foot or unknown. */
export function defaultViewSpeed(location: Partial<ViewLocation> | null | undefined): number {
  const speed = location?.speed_kmh;
  if (speed != null && Number.isFinite(speed)) return clamp(speed, VIEW_SPEED);
  return location?.audience === 'road' ? 50 : 5;
}

/** The view a switch turns on: the location's typical farthest distance and its speed. */
export function defaultView(location: Partial<ViewLocation> | null | undefined): ViewFrom {
  return { distance_m: defaultViewDistance(location), speed_kmh: defaultViewSpeed(location) };
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
