//! An API error in words, with what its `details` tell (docs/architecture/api.md, "Errors"):
//! an image refused for its size says its size and the limit it passed, a file refused for its
//! weight says the limit. Every other error, and one whose details are missing or malformed
//! (an older server), gets its code's plain message (`apiErrorKey`).
import type { TFunction } from 'i18next';

import { apiErrorKey, isApiError } from './api';

/** What a failure keeps of an ApiError: its code and details (upload lists store this). */
export type ErrorInfo = { code: string; details?: Record<string, unknown> };

/** The code and details of what a request failed with (`internal` for anything else). */
export function errorInfo(error: unknown): ErrorInfo {
  return isApiError(error) ? { code: error.code, details: error.details } : { code: 'internal' };
}

const MIB = 1024 * 1024;

/** The positive whole numbers `keys` of `details`, or null if one is missing or not one. */
function counts<K extends string>(details: Record<string, unknown> | undefined, ...keys: K[]): Record<K, number> | null {
  const found = {} as Record<K, number>;
  for (const key of keys) {
    const value = details?.[key];
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) return null;
    found[key] = value;
  }
  return found;
}

/**
 * The message of an error (an ApiError or the `ErrorInfo` kept of one), in the interface language.
 *
 * `image_too_large` has three cases, told apart by its details: the area over
 * `REGARD_MEDIA_MAX_PIXELS` (`max_pixels`), a side over 30,000 px (`max_side`), or more memory to
 * decode than the server's budget (`decode_bytes`, `max_decode_bytes`).
 */
export function errorMessage(t: TFunction, language: string, error: unknown): string {
  const info = isApiError(error) ? errorInfo(error) : (error as ErrorInfo | null);
  const code = info?.code;
  const details = info?.details;
  const number = (value: number, digits = 0) => new Intl.NumberFormat(language, { maximumFractionDigits: digits }).format(value);

  if (code === 'image_too_large') {
    const size = counts(details, 'width', 'height');
    const limits = counts(details, 'max_pixels', 'max_side');
    const memory = counts(details, 'decode_bytes', 'max_decode_bytes');
    if (size && limits) {
      const { width, height } = size;
      const dimensions = { width: number(width), height: number(height) };
      if (width * height > limits.max_pixels) {
        return t('errorDetails.imageTooManyPixels', {
          ...dimensions,
          megapixels: number((width * height) / 1e6, 1),
          max: number(limits.max_pixels / 1e6, 1),
        });
      }
      if (Math.max(width, height) > limits.max_side) {
        return t('errorDetails.imageSideTooLong', { ...dimensions, max: number(limits.max_side) });
      }
    }
    if (size && memory) {
      return t('errorDetails.imageTooLargeToDecode', {
        width: number(size.width),
        height: number(size.height),
        // Rounded up and down: the need is never shown at or under the limit it passed.
        need: number(Math.ceil(memory.decode_bytes / MIB)),
        max: number(Math.floor(memory.max_decode_bytes / MIB)),
      });
    }
  }
  if (code === 'file_too_large') {
    const limit = counts(details, 'max_bytes');
    if (limit) return t('errorDetails.fileTooLarge', { max: number(limit.max_bytes / MIB, 1) });
  }
  return t(apiErrorKey(code));
}
