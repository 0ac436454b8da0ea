//! The viewing rules of docs/viewing.md, as the server applies them (src/ooh.rs), so the form
//! shows a location's legibility and time in view while it is being typed. The server's answer
//! (`Location.viewing`) is what is saved and shown everywhere else.

import type { Schemas } from '@/lib/api';

export type Audience = 'pedestrian' | 'road';

/** The visual angle at which a letter's height can be read at all, in minutes of arc (the threshold). */
export const LEGIBLE_ARCMIN = 10;

/** The visual angle at which it reads comfortably (ISO 9241-3's preferred 20′). */
export const COMFORTABLE_ARCMIN = 20;

/** Half the field ahead in which a panel is looked at while travelling, in degrees. */
export const VISIBLE_HALF_ANGLE_DEG = 60;

/** The approach speed assumed when none is given, in km/h. */
export const DEFAULT_SPEED_KMH: Record<Audience, number> = { pedestrian: 5, road: 50 };

/** Letter height needed per metre of distance, in millimetres (2.91). */
export function mmPerMetre(): number {
  return 1000 * Math.tan(((LEGIBLE_ARCMIN / 60) * Math.PI) / 180);
}

/** The greatest distance, in metres, from which a letter `letterMm` high can be read. */
export function legibleDistanceM(letterMm: number): number {
  return Math.max(letterMm, 0) / mmPerMetre();
}

/** The greatest distance, in metres, from which a letter `letterMm` high reads comfortably. */
export function comfortableDistanceM(letterMm: number): number {
  return Math.max(letterMm, 0) / (1000 * Math.tan(((COMFORTABLE_ARCMIN / 60) * Math.PI) / 180));
}

/** The letter height, in millimetres, needed to be read from `distanceM`. */
export function requiredLetterMm(distanceM: number): number {
  return Math.max(distanceM, 0) * mmPerMetre();
}

/**
 * Seconds during which a text legible from `legibleM` can be read by a viewer at `speedKmh` on a
 * straight path passing the panel at `nearestM`: while within `min(legibleM, maxM)` and while the
 * panel is within 60° of the direction of travel, `(√(R² − p²) − p / tan 60°) / v`, 0 when negative.
 */
export function timeInViewS(nearestM: number, maxM: number, legibleM: number, speedKmh: number): number {
  if (speedKmh <= 0 || maxM < nearestM || nearestM < 0) return 0;
  const reach = Math.min(legibleM, maxM);
  if (reach <= nearestM) return 0;
  const start = Math.sqrt(reach * reach - nearestM * nearestM);
  const end = nearestM / Math.tan((VISIBLE_HALF_ANGLE_DEG * Math.PI) / 180);
  return Math.max(start - end, 0) / (speedKmh / 3.6);
}

/** The main text assumed when no creative is known: a tenth of the panel's height (mm). */
export function referenceLetterMm(panelHeightMm: number): number {
  return panelHeightMm / 10;
}

export type Viewing = { speedKmh: number; letterMm: number; legibleDistanceM: number; comfortableDistanceM: number; timeInViewS: number };

/**
 * Legibility and time in view of a main text a tenth of the panel's height, or null when a
 * figure is missing (panel height, the distance range, a speed or an audience).
 */
export function locationViewing(input: {
  panelHeightCm: number | null;
  audience: Audience | null;
  minM: number | null;
  maxM: number | null;
  speedKmh: number | null;
}): Viewing | null {
  const { panelHeightCm, audience, minM, maxM } = input;
  const speedKmh = input.speedKmh ?? (audience ? DEFAULT_SPEED_KMH[audience] : null);
  if (panelHeightCm === null || minM === null || maxM === null || speedKmh === null) return null;
  const letterMm = referenceLetterMm(panelHeightCm * 10);
  const legible = legibleDistanceM(letterMm);
  return {
    speedKmh,
    letterMm,
    legibleDistanceM: legible,
    comfortableDistanceM: comfortableDistanceM(letterMm),
    timeInViewS: timeInViewS(minM, maxM, legible, speedKmh),
  };
}

/** The server's figures (`Location.viewing`) in the form's shape. */
export function viewingOf(body: Schemas['ViewingBody'] | null | undefined): Viewing | null {
  return body
    ? {
        speedKmh: body.speed_kmh,
        letterMm: body.letter_height_mm,
        legibleDistanceM: body.legible_distance_m,
        comfortableDistanceM: body.comfortable_distance_m,
        timeInViewS: body.time_in_view_s,
      }
    : null;
}

