/**
 * The whole composite of rendering.md on the CPU, on plain pixel arrays: geometry, footprint
 * filtering, contain background, adjustments, exact edge coverage, occlusion mask, linear-light
 * blend, night darkening and bloom, sRGB encode and grain. The 2-D canvas fallback runs it and
 * the tests use it as the reference; `frameConstants` is also what the WebGL2 path feeds its
 * uniforms from, so both share one interpretation of the contract.
 */
import type { Adjustments, Fit, Site } from '../types';
import { adjustColor, BLOOM_SIGMA, grainZ, panelParams, type PanelParams } from './adjust';
import { quadEdges, squareCoverage } from './coverage';
import { fitMap, footprint, invert3, longerDiagonal, panelAspect, squareToQuad, type FitMap, type Mat3, type QuadPx } from './homography';
import { sampleFootprint, type Level } from './pyramid';
import { hexToLinear, linearToSrgb, SRGB8_TO_LINEAR } from './srgb';
import type { PhotoStats, RgbaImage } from './stats';
import { viewCovariance, widen } from './view';

/** An occlusion mask: `channels` bytes per pixel, the first one read (red or grey). */
export interface MaskImage {
  width: number;
  height: number;
  data: ArrayLike<number>;
  channels: number;
}

export interface FrameSpec {
  quadPx: QuadPx;
  fit: Fit;
  background: string;
  panelAspect: number | null;
  adjustments: Adjustments;
  /** The panel's size and passing distance, for the view from there (null: unknown, no view). */
  site?: Site | null;
}

/** Everything per frame that does not depend on the pixel. */
export interface FrameConstants {
  hinv: Mat3;
  fit: FitMap;
  contain: boolean;
  background: [number, number, number];
  panel: PanelParams;
  edges: [number, number, number][];
  /** Bloom Gaussian σ in photo pixels (0 by day). */
  bloomSigma: number;
  /** Bloom reduction factor (1 to 16). */
  bloomFactor: number;
  bbox: [number, number, number, number];
  /** The view's blur C (its two diagonal terms, creative pixels²); [0, 0] when off. */
  viewC: [number, number];
}

/** Reduced resolution of the bloom: σ stays ≥ 2 low-res pixels, at most 1/16 (as the server). */
export function bloomFactor(sigma: number): number {
  return Math.min(16, Math.max(1, Math.floor(sigma / 2)));
}

export function frameConstants(spec: FrameSpec, wc: number, hc: number, stats: PhotoStats): FrameConstants {
  const q = spec.quadPx;
  const aspect = panelAspect(q, spec.panelAspect);
  const panel = panelParams(spec.adjustments, stats);
  const sigma = panel.bloom > 0 ? BLOOM_SIGMA * longerDiagonal(q) : 0;
  const xs = q.map((p) => p[0]);
  const ys = q.map((p) => p[1]);
  const fit = fitMap(spec.fit, wc, hc, aspect);
  return {
    hinv: invert3(squareToQuad(q)),
    fit,
    contain: spec.fit === 'contain',
    background: hexToLinear(spec.background),
    panel,
    edges: quadEdges(q),
    bloomSigma: sigma,
    bloomFactor: bloomFactor(sigma),
    bbox: [Math.floor(Math.min(...xs)), Math.floor(Math.min(...ys)), Math.ceil(Math.max(...xs)), Math.ceil(Math.max(...ys))],
    viewC: viewCovariance(spec.adjustments.view, spec.site, fit.su, fit.sv),
  };
}

/** cov(p, size, r) of §2 (contain background). */
export function containCov(p: number, size: number, r: number): number {
  const v = 0.5 + Math.min(p, size - p) / r;
  return v < 0 ? 0 : v > 1 ? 1 : v;
}

/**
 * The panel's colour (linear, after §3) at photo point (x, y) for a footprint scaled by
 * `scale` photo pixels (1 for a pixel; the bloom's low-res pass uses its factor), then widened
 * by the view's blur (in creative pixels: it does not scale).
 */
export function panelColor(levels: readonly Level[], fc: FrameConstants, x: number, y: number, scale: number, out: Float64Array, tmp: Float64Array): void {
  const f = footprint(fc.hinv, fc.fit, x, y);
  const [jx, jy] = widen([f.jx[0] * scale, f.jx[1] * scale], [f.jy[0] * scale, f.jy[1] * scale], fc.viewC);
  const wc = levels[0].width;
  const hc = levels[0].height;
  let ac = 1;
  if (fc.contain) {
    const ru = Math.max(Math.abs(jx[0]) + Math.abs(jy[0]), 1e-6);
    const rv = Math.max(Math.abs(jx[1]) + Math.abs(jy[1]), 1e-6);
    ac = containCov(f.u, wc, ru) * containCov(f.v, hc, rv);
  }
  const p = fc.panel;
  sampleFootprint(levels, f.u, f.v, jx, jy, p.bias, out);
  let cb: Float64Array | null = null;
  if (p.sharpen > 0) {
    sampleFootprint(levels, f.u, f.v, jx, jy, p.bias + 1.5, tmp);
    cb = tmp;
  }
  if (ac < 1) {
    const bg = fc.background;
    for (let i = 0; i < 3; i++) {
      out[i] = bg[i] + (out[i] - bg[i]) * ac;
      if (cb) cb[i] = bg[i] + (cb[i] - bg[i]) * ac;
    }
  }
  adjustColor(out, cb, f.s, f.t, p);
}

/** Mask value m ∈ [0, 1] at the photo pixel centre (x + ½, y + ½), bilinear, clamped. */
export function sampleMask(mask: MaskImage, x: number, y: number, W: number, H: number): number {
  const mx = ((x + 0.5) / W) * mask.width - 0.5;
  const my = ((y + 0.5) / H) * mask.height - 0.5;
  const cx = Math.min(Math.max(mx, 0), mask.width - 1);
  const cy = Math.min(Math.max(my, 0), mask.height - 1);
  const x0 = Math.floor(cx);
  const y0 = Math.floor(cy);
  const x1 = Math.min(x0 + 1, mask.width - 1);
  const y1 = Math.min(y0 + 1, mask.height - 1);
  const fx = cx - x0;
  const fy = cy - y0;
  const at = (i: number, j: number) => mask.data[(j * mask.width + i) * mask.channels];
  const top = at(x0, y0) + (at(x1, y0) - at(x0, y0)) * fx;
  const bottom = at(x0, y1) + (at(x1, y1) - at(x0, y1)) * fx;
  return (top + (bottom - top) * fy) / 255;
}

/** 1-D Gaussian weights of σ, radius ⌈3σ⌉. */
export function gaussianKernel(sigma: number): Float64Array {
  const r = Math.max(1, Math.ceil(3 * sigma));
  const k = new Float64Array(2 * r + 1);
  for (let i = -r; i <= r; i++) k[i + r] = Math.exp(-(i * i) / (2 * sigma * sigma));
  return k;
}

/** Separable Gaussian of a 3-channel plane, averaging only the pixels inside the image. */
export function gaussianBlur3(src: Float32Array, w: number, h: number, sigma: number): Float32Array {
  const k = gaussianKernel(sigma);
  const r = (k.length - 1) / 2;
  const tmp = new Float32Array(src.length);
  const out = new Float32Array(src.length);
  const pass = (from: Float32Array, to: Float32Array, horizontal: boolean) => {
    const n = horizontal ? w : h;
    const lines = horizontal ? h : w;
    for (let l = 0; l < lines; l++) {
      for (let i = 0; i < n; i++) {
        let s0 = 0;
        let s1 = 0;
        let s2 = 0;
        let ws = 0;
        const a = Math.max(0, i - r);
        const b = Math.min(n - 1, i + r);
        for (let j = a; j <= b; j++) {
          const wgt = k[j - i + r];
          const idx = (horizontal ? l * w + j : j * w + l) * 3;
          s0 += from[idx] * wgt;
          s1 += from[idx + 1] * wgt;
          s2 += from[idx + 2] * wgt;
          ws += wgt;
        }
        const o = (horizontal ? l * w + i : i * w + l) * 3;
        to[o] = s0 / ws;
        to[o + 1] = s1 / ws;
        to[o + 2] = s2 / ws;
      }
    }
  };
  pass(src, tmp, true);
  pass(tmp, out, false);
  return out;
}

export interface CompositeInput extends FrameSpec {
  photo: RgbaImage;
  levels: readonly Level[];
  mask: MaskImage | null;
  stats: PhotoStats;
  view?: 'after' | 'before';
}

/** The bloom at low resolution: blur(panel · α_edge) over (⌈W/f⌉ × ⌈H/f⌉) texels. */
function bloomPlane(levels: readonly Level[], fc: FrameConstants, W: number, H: number): { data: Float32Array; w: number; h: number; f: number } {
  const f = fc.bloomFactor;
  const w = Math.ceil(W / f);
  const h = Math.ceil(H / f);
  const em = new Float32Array(w * h * 3);
  const c = new Float64Array(3);
  const tmp = new Float64Array(3);
  const [bx0, by0, bx1, by1] = fc.bbox;
  for (let j = Math.max(0, Math.floor(by0 / f)); j <= Math.min(h - 1, Math.floor(by1 / f)); j++) {
    for (let i = Math.max(0, Math.floor(bx0 / f)); i <= Math.min(w - 1, Math.floor(bx1 / f)); i++) {
      const a = squareCoverage(fc.edges, i * f, j * f, f);
      if (a <= 0) continue;
      panelColor(levels, fc, (i + 0.5) * f, (j + 0.5) * f, f, c, tmp);
      for (let k = 0; k < 3; k++) em[(j * w + i) * 3 + k] = c[k] * a;
    }
  }
  return { data: gaussianBlur3(em, w, h, fc.bloomSigma / f), w, h, f };
}

/** Renders the composite; returns RGBA bytes (alpha 255) of the photo's size. */
export function compositeCpu(input: CompositeInput): Uint8ClampedArray<ArrayBuffer> {
  const { photo, levels } = input;
  const W = photo.width;
  const H = photo.height;
  const out = new Uint8ClampedArray(W * H * 4);
  const src = photo.data;
  if (input.view === 'before') {
    for (let i = 0; i < W * H * 4; i++) out[i] = (i & 3) === 3 ? 255 : src[i];
    return out;
  }
  const fc = frameConstants(input, levels[0].width, levels[0].height, input.stats);
  const pg = fc.panel.photoGain;
  const bloom = fc.panel.bloom > 0 ? bloomPlane(levels, fc, W, H) : null;
  const c = new Float64Array(3);
  const tmp = new Float64Array(3);
  const lin = [0, 0, 0];
  const [bx0, by0, bx1, by1] = fc.bbox;
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const i = (y * W + x) * 4;
      const inBox = x >= bx0 - 1 && x <= bx1 && y >= by0 - 1 && y <= by1;
      const aEdge = inBox ? squareCoverage(fc.edges, x, y) : 0;
      if (aEdge <= 0 && !bloom && pg[0] === 1 && pg[1] === 1 && pg[2] === 1) {
        out[i] = src[i];
        out[i + 1] = src[i + 1];
        out[i + 2] = src[i + 2];
        out[i + 3] = 255;
        continue;
      }
      for (let k = 0; k < 3; k++) lin[k] = SRGB8_TO_LINEAR[src[i + k]] * pg[k];
      let alpha = 0;
      if (aEdge > 0) {
        panelColor(levels, fc, x + 0.5, y + 0.5, 1, c, tmp);
        const m = input.mask ? sampleMask(input.mask, x, y, W, H) : 0;
        alpha = aEdge * (1 - m);
        for (let k = 0; k < 3; k++) lin[k] = lin[k] * (1 - alpha) + c[k] * alpha;
      }
      if (bloom) {
        const { data: b, w: bw, h: bh, f } = bloom;
        const px = Math.min(Math.max((x + 0.5) / f - 0.5, 0), bw - 1);
        const py = Math.min(Math.max((y + 0.5) / f - 0.5, 0), bh - 1);
        const x0 = Math.floor(px);
        const y0 = Math.floor(py);
        const x1 = Math.min(x0 + 1, bw - 1);
        const y1 = Math.min(y0 + 1, bh - 1);
        const fx = px - x0;
        const fy = py - y0;
        for (let k = 0; k < 3; k++) {
          const t0 = b[(y0 * bw + x0) * 3 + k] * (1 - fx) + b[(y0 * bw + x1) * 3 + k] * fx;
          const t1 = b[(y1 * bw + x0) * 3 + k] * (1 - fx) + b[(y1 * bw + x1) * 3 + k] * fx;
          lin[k] += fc.panel.bloom * (t0 * (1 - fy) + t1 * fy);
        }
      }
      const g = alpha > 0 && fc.panel.grain > 0 ? alpha * fc.panel.grain * grainZ(x, y) : 0;
      for (let k = 0; k < 3; k++) {
        const l = lin[k];
        const v = l <= 0 ? 0 : l >= 1 ? 255 : linearToSrgb(l) * 255;
        out[i + k] = Math.round(v + g);
      }
      out[i + 3] = 255;
    }
  }
  return out;
}
