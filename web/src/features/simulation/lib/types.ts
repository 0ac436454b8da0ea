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
};
