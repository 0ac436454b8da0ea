//! Shapes shared by the simulation page and its live preview. They mirror
//! docs/architecture/simulations.md and rendering.md (the contract with the server's renderer).

/** A point normalised to the photo: (0, 0) top-left corner, (1, 1) bottom-right corner. */
export interface Point {
  x: number;
  y: number;
}

/** The panel's corners, clockwise on screen from the top-left. */
export type Quad = [Point, Point, Point, Point];

export type Fit = 'stretch' | 'cover' | 'contain';
export const FITS: readonly Fit[] = ['cover', 'contain', 'stretch'];

export type Night = 'backlit' | 'led';

/**
 * "View from there" (rendering.md §2, "View from a distance"): the panel as an eye of normal
 * acuity sees it from `distance_m` metres, moving past it at `speed_kmh`.
 */
export interface ViewFrom {
  distance_m: number; // 1..1000
  speed_kmh: number; // 0..200
}

/** Ranges of the view's fields (the server's). */
export const VIEW_DISTANCE = { min: 1, max: 1000 } as const;
export const VIEW_SPEED = { min: 0, max: 200 } as const;

/**
 * What the view needs of the location: the panel's size and the passing distance, in metres
 * (`panel_width_cm / 100`, `panel_height_cm / 100`, `viewing_distance_min_m ?? 5`).
 */
export interface Site {
  width_m: number;
  height_m: number;
  passing_m: number;
}

/** Panel adjustments; ranges in rendering.md §3. */
export interface Adjustments {
  brightness: number; // -1..1
  contrast: number; // -1..1
  saturation: number; // -1..1
  warmth: number; // -1..1
  sharpness: number; // -1..1 (negative blurs)
  grain: number; // 0..1
  glare: number; // 0..1
  auto_match: boolean;
  night: Night | null;
  /** Null: off (the panel as photographed). */
  view: ViewFrom | null;
}

/** Sliders of the adjustments section, with their range. */
export const SLIDERS = [
  { key: 'brightness', min: -1, max: 1 },
  { key: 'contrast', min: -1, max: 1 },
  { key: 'saturation', min: -1, max: 1 },
  { key: 'warmth', min: -1, max: 1 },
  { key: 'sharpness', min: -1, max: 1 },
  { key: 'grain', min: 0, max: 1 },
  { key: 'glare', min: 0, max: 1 },
] as const satisfies readonly { key: keyof Adjustments; min: number; max: number }[];

/** What the editor starts from: unchanged, auto match on (the CLI's default is off). */
export const DEFAULT_ADJUSTMENTS: Adjustments = {
  brightness: 0,
  contrast: 0,
  saturation: 0,
  warmth: 0,
  sharpness: 0,
  grain: 0,
  glare: 0,
  auto_match: true,
  night: null,
  view: null,
};
