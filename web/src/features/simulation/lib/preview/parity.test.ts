/**
 * The preview against the server's renderer (rendering.md: within 3/255 mean absolute
 * difference at preview size): fine patterns in perspective rendered by the Rust renderer
 * (fixtures/render-parity.json, written by crates/vision/tests/preview_parity.rs, which fails
 * when they are stale) and by the CPU path here, scene by scene. The WebGL2 path runs the same
 * kernels (shaders.ts mirrors pyramid.ts).
 */
import { describe, expect, it } from 'vitest';

import { DEFAULT_ADJUSTMENTS, type Adjustments, type Fit, type Site } from '../types';
import fixture from './fixtures/render-parity.json';
import { compositeCpu } from './cpu';
import type { QuadPx } from './homography';
import { buildPyramid, linearLevel } from './pyramid';
import { computePhotoStats, DEFAULT_STATS } from './stats';

/** The fixture's creatives, drawn as the Rust test draws them (RGBA). */
function pattern(name: string, w: number, h: number): Uint8ClampedArray {
  const d = new Uint8ClampedArray(w * h * 4);
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      let rgb: [number, number, number];
      if (name === 'noise') {
        const v = (Math.imul(x, 0x9e3779b1) ^ Math.imul(y, 0x85ebca6b)) >>> 0;
        const n = Math.imul(v ^ (v >>> 15), 0x2c1b3c6d) >>> 0;
        rgb = [n & 255, (n >>> 8) & 255, (n >>> 16) & 255];
      } else {
        const on = name === 'stripes-v' ? (x >> 1) % 2 === 0 : name === 'stripes-h' ? (y >> 1) % 2 === 0 : ((x >> 1) + (y >> 1)) % 2 === 0;
        rgb = on ? [255, 255, 255] : [0, 0, 0];
      }
      d.set([...rgb, 255], (y * w + x) * 4);
    }
  }
  return d;
}

const { width: W, height: H } = fixture.photo;
const photo = new Uint8ClampedArray(W * H * 4);
for (let y = 0; y < H; y++) for (let x = 0; x < W; x++) photo.set([4 * x, 5 * y, 100, 255], (y * W + x) * 4);

/** rendering.md's bound is 3 levels; the CPU path is the same maths in f64, so far closer. */
const MAX_MAD = 0.1;

describe('preview parity with the server renderer', () => {
  it.each(fixture.scenes.map((s) => [s.name, s] as const))('%s', (_name, scene) => {
    const { pattern: p, width: cw, height: ch } = scene.creative;
    const levels = buildPyramid(linearLevel(pattern(p, cw, ch), cw, ch));
    const adjustments: Adjustments = { ...DEFAULT_ADJUSTMENTS, ...(scene.adjustments as Partial<Adjustments>) };
    // Scenes of the view from there carry the site (and may give the panel's aspect).
    const { site = null, panel_aspect = null } = scene as { site?: Site | null; panel_aspect?: number | null };
    const out = compositeCpu({
      photo: { width: W, height: H, data: photo },
      levels,
      mask: null,
      quadPx: scene.quad as QuadPx,
      fit: scene.fit as Fit,
      background: scene.background,
      panelAspect: panel_aspect,
      adjustments,
      site,
      stats: adjustments.auto_match ? computePhotoStats({ width: W, height: H, data: photo }, scene.quad as QuadPx) : DEFAULT_STATS,
    });
    const server = Buffer.from(scene.pixels, 'base64');
    expect(server.length).toBe(W * H * 3);
    let sum = 0;
    let worst = 0;
    for (let i = 0; i < W * H; i++) {
      for (let k = 0; k < 3; k++) {
        const d = Math.abs(out[i * 4 + k] - server[i * 3 + k]);
        sum += d;
        worst = Math.max(worst, d);
      }
    }
    const mad = sum / (W * H * 3);
    // Night scenes carry a looser bound: the two blur the panel's light differently.
    const { tolerance } = scene as { tolerance?: { mad: number; worst: number } | null };
    expect(mad, `mean absolute difference (worst ${worst})`).toBeLessThanOrEqual(tolerance?.mad ?? MAX_MAD);
    expect(worst).toBeLessThanOrEqual(tolerance?.worst ?? 1);
  });

  it.each(fixture.stats.map((s) => [s.photo.pattern, s] as const))('photo statistics of %s', (_name, st) => {
    const { pattern: p, width: w, height: h, percent, sign } = st.photo;
    // As the Rust test draws it: the pattern's channels scaled, a sign over the top-left eighth.
    const src = pattern(p, w, h);
    const img = new Uint8ClampedArray(w * h * 4);
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const i = (y * w + x) * 4;
        const inSign = sign !== null && x < Math.floor(w / 8) && y < Math.floor(h / 8);
        for (let k = 0; k < 3; k++) img[i + k] = inSign ? sign[k] : Math.floor((src[i + k] * percent[k]) / 100);
        img[i + 3] = 255;
      }
    }
    const s = computePhotoStats({ width: w, height: h, data: img }, st.quad as [number, number][]);
    expect(s.exposure).toBeCloseTo(st.exposure, 5);
    for (let k = 0; k < 3; k++) expect(s.cast[k]).toBeCloseTo(st.cast[k], 5);
    expect(s.noise).toBeCloseTo(st.noise, 3);
  });
});
