/**
 * "View from a distance" of rendering.md §2: the eye's blur (acuity and motion smear) from the
 * viewer's distance and speed, in creative pixels, and the footprint it widens. The CPU path
 * (cpu.ts) calls `widen` on each pixel's Jacobian; the WebGL2 shader (shaders.ts, `VIEW`)
 * runs the same lines with `viewCovariance`'s two terms as a uniform.
 */
import type { Site, ViewFrom } from '../types';
import type { Vec2 } from './homography';

/**
 * tan(0.5′): half the 1′ minimum angle of resolution of a 20/20 eye, per metre of distance
 * (the server's `view::ACUITY_SIGMA`, to the same digits).
 */
export const ACUITY_SIGMA_PER_M = 1.454441e-4;

/** The passing distance when the location gives no nearest viewing distance (metres). */
export const DEFAULT_PASSING_M = 5;

/**
 * The blur C = diag(2·σu² + Lu², 2·σv²) in creative pixels² (rendering.md §2: the acuity's
 * Gaussian as twice its variance, the smear as its length squared), for a fit of `ku = ∂u/∂s`, `kv = ∂v/∂t` (FitMap's `su`, `sv`). [0, 0]
 * when the view is off or the site unknown (nothing changes).
 */
export function viewCovariance(view: ViewFrom | null | undefined, site: Site | null | undefined, ku: number, kv: number): [number, number] {
  if (!view || !site || !(site.width_m > 0) || !(site.height_m > 0) || !(view.distance_m > 0)) return [0, 0];
  const d = view.distance_m;
  const sigmaM = d * ACUITY_SIGMA_PER_M;
  const passing = Math.min(site.passing_m, d);
  const smearM = (0.01 * (view.speed_kmh / 3.6) * passing) / d;
  const su = (sigmaM * ku) / site.width_m;
  const sv = (sigmaM * kv) / site.height_m;
  const lu = (smearM * ku) / site.width_m;
  return [2 * su * su + lu * lu, 2 * sv * sv];
}

/**
 * The footprint widened by C: the principal axes of S = jx·jxᵀ + jy·jyᵀ + C, the major one
 * first. Returns jx, jy themselves when C is zero.
 */
export function widen(jx: Vec2, jy: Vec2, c: readonly [number, number]): [Vec2, Vec2] {
  if (c[0] === 0 && c[1] === 0) return [jx, jy];
  const a = jx[0] * jx[0] + jy[0] * jy[0] + c[0];
  const b = jx[0] * jx[1] + jy[0] * jy[1];
  const d = jx[1] * jx[1] + jy[1] * jy[1] + c[1];
  const m = (a + d) / 2;
  const h = (a - d) / 2;
  const r = Math.sqrt(h * h + b * b);
  const l1 = Math.sqrt(m + r);
  const l2 = Math.sqrt(Math.max(m - r, 0));
  const theta = 0.5 * Math.atan2(2 * b, a - d);
  const cos = Math.cos(theta);
  const sin = Math.sin(theta);
  return [
    [l1 * cos, l1 * sin],
    [-l2 * sin, l2 * cos],
  ];
}
