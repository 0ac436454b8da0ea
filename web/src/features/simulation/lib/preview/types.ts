/**
 * The live preview's public interface: its sources, per-frame parameters, renderer and
 * options. Both implementations (webgl2.ts, canvas2d.ts) and the page code depend on these.
 */
import type { Adjustments, Fit, Quad, Site } from '../types';

export interface PreviewSources {
  /** The location photo (its preview variant, ≤ ~1600 px). */
  photo: ImageBitmap | HTMLImageElement | HTMLCanvasElement;
  /** The creative (preview or original). */
  creative: ImageBitmap | HTMLImageElement | HTMLCanvasElement;
  /** Occlusion mask, any size; red channel or luma, 255 = in front. */
  mask?: HTMLCanvasElement | ImageData | null;
}

export interface PreviewParams {
  /** Normalised to the photo. */
  quad: Quad;
  fit: Fit;
  /** '#rrggbb' */
  background: string;
  /** Width / height when known. */
  panelAspect: number | null;
  adjustments: Adjustments;
  /**
   * The panel's size and passing distance (metres) the view from there needs
   * (`adjustments.view`); null when the location has no size (the view is then not drawn).
   */
  site: Site | null;
  /** 'before' draws the photo alone. */
  view: 'after' | 'before';
}

export interface PreviewRenderer {
  readonly kind: 'webgl2' | 'canvas2d';
  /** Uploads textures once; the canvas takes the photo's pixel size. */
  setSources(sources: PreviewSources): void;
  /** Re-uploads only the mask (painting). */
  setMask(mask: HTMLCanvasElement | ImageData | null): void;
  /** Only uniforms change; cheap; call per animation frame. */
  render(params: PreviewParams): void;
  /** The last frame, top row first (call right after render() unless preserveDrawingBuffer). */
  readPixels(): ImageData;
  /** Time of the last render(); includes waiting for the GPU (finish + 1-px read) only when `measure` is on. */
  readonly lastFrameMs: number;
  /** Include the GPU's work in lastFrameMs (gl.finish at the end of render). */
  measure?: boolean;
  dispose(): void;
}

export interface RendererOptions {
  forceCanvas2d?: boolean;
  preserveDrawingBuffer?: boolean;
  /** Start with `measure` on. */
  measure?: boolean;
  /** Throttle of the auto-match statistics while the quad moves (100 ms). */
  statsIntervalMs?: number;
  /** Canvas fallback: largest width rendered on the CPU before scaling up (800). */
  cpuMaxWidth?: number;
}
