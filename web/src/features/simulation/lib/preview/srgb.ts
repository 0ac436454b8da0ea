/**
 * sRGB transfer functions (IEC 61966-2-1) and colour parsing for the live preview.
 * Owns the exact decode/encode used by the CPU fallback, the pyramid builder and the photo
 * statistics (rendering.md "Conventions"); the WebGL2 shaders repeat the same formulas.
 */

/** sRGB (0..1) to linear light. */
export function srgbToLinear(c: number): number {
  return c <= 0.04045 ? c / 12.92 : Math.pow((c + 0.055) / 1.055, 2.4);
}

/** Linear light (0..1) to sRGB (0..1), the exact inverse of {@link srgbToLinear}. */
export function linearToSrgb(l: number): number {
  return l <= 0.0031308 ? l * 12.92 : 1.055 * Math.pow(l, 1 / 2.4) - 0.055;
}

/** Decode table: 8-bit sRGB code → linear light. */
export const SRGB8_TO_LINEAR: Float64Array = (() => {
  const t = new Float64Array(256);
  for (let i = 0; i < 256; i++) t[i] = srgbToLinear(i / 255);
  return t;
})();

/** Linear light → 8-bit sRGB code, clamped to 0..1 first and rounded to nearest. */
export function linearToSrgb8(l: number): number {
  if (!(l > 0)) return 0;
  if (l >= 1) return 255;
  return Math.round(linearToSrgb(l) * 255);
}

/** '#rrggbb' (or '#rgb') → 8-bit sRGB triple; black when unparsable. */
export function parseHex(hex: string): [number, number, number] {
  const m = /^#?([0-9a-f]{6}|[0-9a-f]{3})$/i.exec(hex.trim());
  if (!m) return [0, 0, 0];
  let h = m[1];
  if (h.length === 3) h = h[0] + h[0] + h[1] + h[1] + h[2] + h[2];
  return [parseInt(h.slice(0, 2), 16), parseInt(h.slice(2, 4), 16), parseInt(h.slice(4, 6), 16)];
}

/** '#rrggbb' → linear RGB. */
export function hexToLinear(hex: string): [number, number, number] {
  const [r, g, b] = parseHex(hex);
  return [SRGB8_TO_LINEAR[r], SRGB8_TO_LINEAR[g], SRGB8_TO_LINEAR[b]];
}

/** Luminance of a linear RGB colour (Rec. 709 weights). */
export function luminance(r: number, g: number, b: number): number {
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}
