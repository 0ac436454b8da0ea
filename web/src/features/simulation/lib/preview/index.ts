/**
 * The live preview renderer of the simulation page (rendering.md in the browser): picks the
 * WebGL2 renderer, or the 2-D canvas CPU fallback when WebGL2 is missing or forced, and
 * re-exports the pure maths (photo statistics, geometry, pyramid, CPU composite) for callers
 * and tests. No React here.
 */
import { Canvas2dPreview } from './canvas2d';
import { WebGL2Preview } from './webgl2';
import type { PreviewRenderer, RendererOptions } from './types';

export type { PreviewParams, PreviewRenderer, PreviewSources, RendererOptions } from './types';
export { computePhotoStats, DEFAULT_STATS, type PhotoStats } from './stats';
export { compositeCpu, type CompositeInput, type MaskImage } from './cpu';
export { quadToPixels, panelAspect, fitMap, squareToQuad, invert3, applyH, footprint } from './homography';
export { buildPyramid, linearLevel, pyramidSizes } from './pyramid';

/** A preview renderer drawing into `canvas`. */
export function createPreviewRenderer(canvas: HTMLCanvasElement, options: RendererOptions = {}): PreviewRenderer {
  if (!options.forceCanvas2d) {
    let gl: WebGL2RenderingContext | null;
    try {
      gl = canvas.getContext('webgl2', {
        alpha: false,
        antialias: false,
        depth: false,
        stencil: false,
        premultipliedAlpha: false,
        preserveDrawingBuffer: options.preserveDrawingBuffer ?? false,
      });
    } catch {
      gl = null;
    }
    if (gl) {
      try {
        return new WebGL2Preview(canvas, gl, options);
      } catch (e) {
        console.error(e);
      }
    }
  }
  return new Canvas2dPreview(canvas, options);
}
