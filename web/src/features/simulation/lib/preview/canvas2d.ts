/**
 * The 2-D canvas fallback of the live preview (no WebGL2, or forced): runs the CPU composite
 * of cpu.ts, at most `cpuMaxWidth` pixels wide (the photo area-averaged down, the quad scaled),
 * then draws it up to the canvas at the photo's size. Same maths as the WebGL2 path; not
 * real-time on large photos, but correct.
 */
import { compositeCpu, type MaskImage } from './cpu';
import { quadToPixels } from './homography';
import { buildPyramid, linearLevel, type Level } from './pyramid';
import { linearToSrgb8, SRGB8_TO_LINEAR } from './srgb';
import { DEFAULT_STATS, prepareStatsImage, StatsCache, type RgbaImage } from './stats';
import { toImageData, toMask } from './sources';
import type { PreviewParams, PreviewRenderer, PreviewSources, RendererOptions } from './types';

/** Area average (linear light) of an RGBA image to `w × h`. */
export function downscaleRgba(src: RgbaImage, w: number, h: number): Uint8ClampedArray {
  const out = new Uint8ClampedArray(w * h * 4);
  const sx = src.width / w;
  const sy = src.height / h;
  for (let y = 0; y < h; y++) {
    const y0 = Math.floor(y * sy);
    const y1 = Math.max(y0 + 1, Math.floor((y + 1) * sy));
    for (let x = 0; x < w; x++) {
      const x0 = Math.floor(x * sx);
      const x1 = Math.max(x0 + 1, Math.floor((x + 1) * sx));
      let r = 0;
      let g = 0;
      let b = 0;
      for (let yy = y0; yy < y1; yy++) {
        for (let xx = x0; xx < x1; xx++) {
          const i = (yy * src.width + xx) * 4;
          r += SRGB8_TO_LINEAR[src.data[i]];
          g += SRGB8_TO_LINEAR[src.data[i + 1]];
          b += SRGB8_TO_LINEAR[src.data[i + 2]];
        }
      }
      const n = (y1 - y0) * (x1 - x0);
      const o = (y * w + x) * 4;
      out[o] = linearToSrgb8(r / n);
      out[o + 1] = linearToSrgb8(g / n);
      out[o + 2] = linearToSrgb8(b / n);
      out[o + 3] = 255;
    }
  }
  return out;
}

export class Canvas2dPreview implements PreviewRenderer {
  readonly kind = 'canvas2d' as const;
  lastFrameMs = 0;
  measure = false;

  private photo: ImageData | null = null;
  private work: RgbaImage | null = null;
  private levels: Level[] | null = null;
  private mask: MaskImage | null = null;
  private lastParams: PreviewParams | null = null;
  private readonly stats: StatsCache;
  private readonly maxWidth: number;
  private disposed = false;

  constructor(
    private readonly canvas: HTMLCanvasElement,
    options: RendererOptions,
  ) {
    this.maxWidth = options.cpuMaxWidth ?? 800;
    this.stats = new StatsCache(
      null,
      () => {
        if (this.lastParams && !this.disposed) this.render(this.lastParams);
      },
      options.statsIntervalMs ?? 100,
    );
  }

  setSources(sources: PreviewSources): void {
    const photo = toImageData(sources.photo);
    const creative = toImageData(sources.creative);
    this.photo = photo;
    this.canvas.width = photo.width;
    this.canvas.height = photo.height;
    const scale = Math.min(1, this.maxWidth / photo.width);
    if (scale < 1) {
      const w = Math.max(1, Math.round(photo.width * scale));
      const h = Math.max(1, Math.round(photo.height * scale));
      this.work = { width: w, height: h, data: downscaleRgba(photo, w, h) };
    } else {
      this.work = photo;
    }
    this.levels = buildPyramid(linearLevel(creative.data, creative.width, creative.height));
    this.mask = toMask(sources.mask);
    this.stats.setImage(prepareStatsImage(photo));
  }

  setMask(mask: HTMLCanvasElement | ImageData | null): void {
    this.mask = toMask(mask);
  }

  render(params: PreviewParams): void {
    const t0 = performance.now();
    this.lastParams = params;
    const ctx = this.canvas.getContext('2d');
    if (this.disposed || !ctx || !this.photo || !this.work || !this.levels) return;
    const W = this.photo.width;
    const H = this.photo.height;
    const adj = params.adjustments;
    const needStats = (adj.auto_match && !adj.night) || adj.grain > 0;
    const stats = needStats ? this.stats.get(quadToPixels(params.quad, W, H)) : DEFAULT_STATS;
    const work = this.work;
    const pixels = compositeCpu({
      ...params,
      quadPx: quadToPixels(params.quad, work.width, work.height),
      photo: work,
      levels: this.levels,
      mask: this.mask,
      stats,
    });
    const img = new ImageData(pixels, work.width, work.height);
    if (work.width === W && work.height === H) {
      ctx.putImageData(img, 0, 0);
    } else {
      const off = document.createElement('canvas');
      off.width = work.width;
      off.height = work.height;
      off.getContext('2d')?.putImageData(img, 0, 0);
      ctx.imageSmoothingEnabled = true;
      ctx.imageSmoothingQuality = 'high';
      ctx.drawImage(off, 0, 0, W, H);
    }
    this.lastFrameMs = performance.now() - t0;
  }

  readPixels(): ImageData {
    const ctx = this.canvas.getContext('2d');
    if (!ctx) throw new Error('preview: no 2-D context');
    return ctx.getImageData(0, 0, this.canvas.width, this.canvas.height);
  }

  dispose(): void {
    this.disposed = true;
    this.stats.cancel();
    this.photo = null;
    this.work = null;
    this.levels = null;
    this.mask = null;
  }
}
