/**
 * Turning the preview's sources (ImageBitmap, image element, canvas, ImageData) into pixel
 * arrays: the photo and creative as 8-bit RGBA ImageData, the occlusion mask as one byte per
 * pixel (the red channel, which is the grey value of a grey mask, weighted by alpha).
 */
import type { MaskImage } from './cpu';

export type ImageSource = ImageBitmap | HTMLImageElement | HTMLCanvasElement;

/** Pixel size of a source. */
export function sourceSize(src: ImageSource | ImageData): [number, number] {
  if (typeof HTMLImageElement !== 'undefined' && src instanceof HTMLImageElement) return [src.naturalWidth, src.naturalHeight];
  return [src.width, src.height];
}

function isImageData(src: unknown): src is ImageData {
  return typeof src === 'object' && src !== null && 'data' in src && 'width' in src && 'height' in src && !('getContext' in src);
}

/** The source's RGBA bytes. */
export function toImageData(src: ImageSource | ImageData): ImageData {
  if (isImageData(src)) return src;
  if (typeof HTMLCanvasElement !== 'undefined' && src instanceof HTMLCanvasElement) {
    const ctx = src.getContext('2d', { willReadFrequently: true });
    if (ctx) return ctx.getImageData(0, 0, src.width, src.height);
  }
  const [w, h] = sourceSize(src);
  const canvas = document.createElement('canvas');
  canvas.width = Math.max(1, w);
  canvas.height = Math.max(1, h);
  const ctx = canvas.getContext('2d', { willReadFrequently: true });
  if (!ctx) throw new Error('preview: no 2-D canvas to read the source');
  ctx.drawImage(src, 0, 0);
  return ctx.getImageData(0, 0, canvas.width, canvas.height);
}

/** The mask as one byte per pixel: the red channel (a grey mask's value), times alpha. */
export function toMask(src: HTMLCanvasElement | ImageData | null | undefined): MaskImage | null {
  if (!src) return null;
  const img = toImageData(src);
  const n = img.width * img.height;
  const data = new Uint8Array(n);
  // A transparent pixel of a painted canvas is nothing in front, whatever its colour.
  for (let i = 0; i < n; i++) data[i] = Math.round((img.data[i * 4] * img.data[i * 4 + 3]) / 255);
  return { width: img.width, height: img.height, data, channels: 1 };
}
