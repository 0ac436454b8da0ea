/**
 * Panel geometry of rendering.md §1: the square-to-quad homography (Heckbert 1989), its
 * inverse, the panel aspect estimate, the fit mappings (stretch / cover / contain) as an
 * axis-aligned affine map of the panel parameters (s, t) to creative pixels (u, v), and the
 * analytic Jacobian of the composite map M = fit ∘ H⁻¹ at a photo point (the footprint).
 */
import type { Fit, Quad } from '../types';

export type Vec2 = [number, number];
/** A 3×3 matrix, row-major: x' = (m0 x + m1 y + m2) / (m6 x + m7 y + m8). */
export type Mat3 = [number, number, number, number, number, number, number, number, number];
export type QuadPx = [Vec2, Vec2, Vec2, Vec2];

/** The quad in photo pixels from its normalised corners. */
export function quadToPixels(quad: Quad, width: number, height: number): QuadPx {
  return quad.map((p) => [p.x * width, p.y * height]) as QuadPx;
}

/** H: unit square (s, t) → quad, with (0,0)→q0, (1,0)→q1, (1,1)→q2, (0,1)→q3. */
export function squareToQuad(q: readonly Vec2[]): Mat3 {
  const [[x0, y0], [x1, y1], [x2, y2], [x3, y3]] = q;
  const dx3 = x0 - x1 + x2 - x3;
  const dy3 = y0 - y1 + y2 - y3;
  if (dx3 === 0 && dy3 === 0) {
    return [x1 - x0, x2 - x1, x0, y1 - y0, y2 - y1, y0, 0, 0, 1];
  }
  const dx1 = x1 - x2;
  const dx2 = x3 - x2;
  const dy1 = y1 - y2;
  const dy2 = y3 - y2;
  const det = dx1 * dy2 - dx2 * dy1;
  const g = (dx3 * dy2 - dx2 * dy3) / det;
  const h = (dx1 * dy3 - dx3 * dy1) / det;
  return [x1 - x0 + g * x1, x3 - x0 + h * x3, x0, y1 - y0 + g * y1, y3 - y0 + h * y3, y0, g, h, 1];
}

/** Inverse of a 3×3 matrix (adjugate / determinant), scaled so its largest entry is ±1. */
export function invert3(m: Mat3): Mat3 {
  const [a, b, c, d, e, f, g, h, i] = m;
  const A = e * i - f * h;
  const B = -(d * i - f * g);
  const C = d * h - e * g;
  const adj: Mat3 = [A, -(b * i - c * h), b * f - c * e, B, a * i - c * g, -(a * f - c * d), C, -(a * h - b * g), a * e - b * d];
  let k = 0;
  for (const v of adj) k = Math.max(k, Math.abs(v));
  const det = a * A + b * B + c * C;
  // A projective matrix may be scaled freely; keep the sign of 1/det so w stays positive.
  const s = (det < 0 ? -1 : 1) / (k || 1);
  return adj.map((v) => v * s) as Mat3;
}

/** Applies a projective matrix to a point. */
export function applyH(m: Mat3, x: number, y: number): Vec2 {
  const w = m[6] * x + m[7] * y + m[8];
  return [(m[0] * x + m[1] * y + m[2]) / w, (m[3] * x + m[4] * y + m[5]) / w];
}

/** Panel aspect A (width / height): the given one, or estimated from the quad. */
export function panelAspect(q: readonly Vec2[], given: number | null | undefined): number {
  if (given != null && Number.isFinite(given) && given > 0) return given;
  const d = (p: Vec2, r: Vec2) => Math.hypot(p[0] - r[0], p[1] - r[1]);
  const top = d(q[1], q[0]);
  const bottom = d(q[2], q[3]);
  const left = d(q[3], q[0]);
  const right = d(q[2], q[1]);
  const den = left + right;
  return den > 0 ? (top + bottom) / den : 1;
}

/** The fit as an affine map: u = su·s + u0, v = sv·t + v0. */
export interface FitMap {
  su: number;
  u0: number;
  sv: number;
  v0: number;
}

/** Fit mapping of rendering.md §1 for a creative of `wc × hc` on a panel of aspect `aspect`. */
export function fitMap(fit: Fit, wc: number, hc: number, aspect: number): FitMap {
  const a = wc / hc;
  const A = aspect;
  switch (fit) {
    case 'stretch':
      return { su: wc, u0: 0, sv: hc, v0: 0 };
    case 'cover':
      if (a > A) {
        const w = hc * A;
        return { su: w, u0: (wc - w) / 2, sv: hc, v0: 0 };
      } else {
        const h = wc / A;
        return { su: wc, u0: 0, sv: h, v0: (hc - h) / 2 };
      }
    case 'contain':
      if (a > A) {
        const t0 = (1 - A / a) / 2;
        const sv = hc / (1 - 2 * t0);
        return { su: wc, u0: 0, sv, v0: -t0 * sv };
      } else {
        const s0 = (1 - a / A) / 2;
        const su = wc / (1 - 2 * s0);
        return { su, u0: -s0 * su, sv: hc, v0: 0 };
      }
  }
}

/** The composite map and its Jacobian at a photo point. */
export interface Footprint {
  s: number;
  t: number;
  u: number;
  v: number;
  /** (∂u/∂x, ∂v/∂x) */
  jx: Vec2;
  /** (∂u/∂y, ∂v/∂y) */
  jy: Vec2;
}

/** M = fit ∘ H⁻¹ at (x, y) with its analytic Jacobian. */
export function footprint(hinv: Mat3, fm: FitMap, x: number, y: number): Footprint {
  const w = hinv[6] * x + hinv[7] * y + hinv[8];
  const s = (hinv[0] * x + hinv[1] * y + hinv[2]) / w;
  const t = (hinv[3] * x + hinv[4] * y + hinv[5]) / w;
  const dsdx = (hinv[0] - s * hinv[6]) / w;
  const dsdy = (hinv[1] - s * hinv[7]) / w;
  const dtdx = (hinv[3] - t * hinv[6]) / w;
  const dtdy = (hinv[4] - t * hinv[7]) / w;
  return {
    s,
    t,
    u: fm.su * s + fm.u0,
    v: fm.sv * t + fm.v0,
    jx: [fm.su * dsdx, fm.sv * dtdx],
    jy: [fm.su * dsdy, fm.sv * dtdy],
  };
}

/** Length of the quad's longer diagonal. */
export function longerDiagonal(q: readonly Vec2[]): number {
  return Math.max(Math.hypot(q[2][0] - q[0][0], q[2][1] - q[0][1]), Math.hypot(q[3][0] - q[1][0], q[3][1] - q[1][1]));
}

/** Signed area (shoelace); positive for a quad clockwise on screen (y down). */
export function signedArea(poly: readonly Vec2[]): number {
  let a = 0;
  for (let i = 0; i < poly.length; i++) {
    const p = poly[i];
    const r = poly[(i + 1) % poly.length];
    a += p[0] * r[1] - r[0] * p[1];
  }
  return a / 2;
}
