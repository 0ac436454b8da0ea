/**
 * Exact edge coverage of rendering.md §4: the area of the intersection of a pixel square
 * (or any axis-aligned square) with the convex panel quad, by clipping the square against the
 * quad's four edges (Sutherland–Hodgman) and taking the clipped polygon's area. The WebGL2
 * shader implements the same clipping in GLSL.
 */
import { signedArea, type Vec2 } from './homography';

/** Edge half-planes of a convex quad: n·p + c ≥ 0 inside, whatever the winding. */
export function quadEdges(q: readonly Vec2[]): [number, number, number][] {
  const sign = signedArea(q) >= 0 ? 1 : -1;
  const edges: [number, number, number][] = [];
  for (let i = 0; i < 4; i++) {
    const a = q[i];
    const b = q[(i + 1) % 4];
    // For clockwise on screen (y down) the inside is to the right of a→b: cross(b−a, p−a) ≥ 0.
    const ex = b[0] - a[0];
    const ey = b[1] - a[1];
    const len = Math.hypot(ex, ey) || 1;
    const nx = (-ey / len) * sign;
    const ny = (ex / len) * sign;
    edges.push([nx, ny, -(nx * a[0] + ny * a[1])]);
  }
  return edges;
}

/**
 * Area of the square [x, x+size) × [y, y+size) inside the quad, divided by size² (0..1).
 * `edges` come from {@link quadEdges} (unit normals).
 */
export function squareCoverage(edges: readonly [number, number, number][], x: number, y: number, size = 1): number {
  const half = size / 2;
  const cx = x + half;
  const cy = y + half;
  // Quick accept / reject with the centre's distance to each edge (half-diagonal = size/√2).
  const r = half * Math.SQRT2;
  let inside = true;
  for (const [nx, ny, c] of edges) {
    const d = nx * cx + ny * cy + c;
    if (d <= -r) return 0;
    if (d < r) inside = false;
  }
  if (inside) return 1;
  // Work relative to the square's centre for precision.
  let poly: Vec2[] = [
    [-half, -half],
    [half, -half],
    [half, half],
    [-half, half],
  ];
  for (const [nx, ny, c0] of edges) {
    const c = c0 + nx * cx + ny * cy;
    const out: Vec2[] = [];
    for (let i = 0; i < poly.length; i++) {
      const p = poly[i];
      const q = poly[(i + 1) % poly.length];
      const dp = nx * p[0] + ny * p[1] + c;
      const dq = nx * q[0] + ny * q[1] + c;
      if (dp >= 0) out.push(p);
      if ((dp >= 0) !== (dq >= 0)) {
        const k = dp / (dp - dq);
        out.push([p[0] + (q[0] - p[0]) * k, p[1] + (q[1] - p[1]) * k]);
      }
    }
    poly = out;
    if (poly.length < 3) return 0;
  }
  return Math.min(1, Math.abs(signedArea(poly)) / (size * size));
}
