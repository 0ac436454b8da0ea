import type { TFunction } from 'i18next';
import { describe, expect, it } from 'vitest';

import { ApiError } from './api';
import { errorInfo, errorMessage } from './error-message';
import { i18n } from './i18n';

/** The message in a language, its spaces (narrow no-break ones included) made plain. */
function message(error: unknown, language = 'fr'): string {
  const t: TFunction = i18n.getFixedT(language);
  return errorMessage(t, language, error).replace(/\s/g, ' ');
}

const tooManyPixels = { width: 12000, height: 9000, max_pixels: 100_000_000, max_side: 30_000 };

describe('errorMessage', () => {
  it('states the size of an image with too many pixels and the limit it passed', () => {
    expect(message(new ApiError(422, 'image_too_large', 'x', tooManyPixels))).toBe(
      'Cette image a trop de pixels : 12 000 × 9 000 px (108 mégapixels) ; la limite est de 100 mégapixels. Réduisez ses dimensions puis réessayez.',
    );
    expect(message({ code: 'image_too_large', details: { ...tooManyPixels, max_pixels: 2_500_000 } }, 'en')).toBe(
      'This image has too many pixels: 12,000 × 9,000 px (108 megapixels); the limit is 2.5 megapixels. Reduce its dimensions and try again.',
    );
  });

  it('states the side limit when the area is within bounds but a side is not', () => {
    expect(message({ code: 'image_too_large', details: { width: 40000, height: 100, max_pixels: 100_000_000, max_side: 30_000 } })).toBe(
      'Cette image a trop de pixels : 40 000 × 100 px ; la limite est de 30 000 px par côté. Réduisez ses dimensions puis réessayez.',
    );
  });

  it('states the memory an image would need to decode and the budget', () => {
    const details = { width: 9000, height: 9000, decode_bytes: 400.2 * 1024 * 1024, max_decode_bytes: 320 * 1024 * 1024 };
    expect(message({ code: 'image_too_large', details })).toBe(
      'Cette image de 9 000 × 9 000 px demanderait 401 Mo de mémoire pour être décodée ; la limite est de 320 Mo. Réduisez ses dimensions puis réessayez.',
    );
  });

  it('states the weight limit of a file too large', () => {
    expect(message({ code: 'file_too_large', details: { max_bytes: 50 * 1024 * 1024 } })).toBe(
      'Ce fichier est trop volumineux ; la limite est de 50 Mo par fichier.',
    );
  });

  it('falls back on the code\'s plain message without usable details, and on the generic one for anything else', () => {
    expect(message({ code: 'image_too_large' })).toBe('Cette image a trop de pixels pour être traitée.');
    expect(message({ code: 'image_too_large', details: { width: '12000', height: 9000, max_pixels: 1, max_side: 1 } })).toBe(
      'Cette image a trop de pixels pour être traitée.',
    );
    expect(message(new ApiError(415, 'unsupported_media_type', 'x'))).toBe("Ce fichier n'est pas une image JPEG, PNG ou WebP.");
    expect(message(new Error('boom'))).toBe('Une erreur est survenue. Veuillez réessayer.');
    expect(message(null)).toBe('Une erreur est survenue. Veuillez réessayer.');
  });
});

describe('errorInfo', () => {
  it('keeps the code and details of an ApiError, and calls anything else internal', () => {
    expect(errorInfo(new ApiError(422, 'image_too_large', 'x', tooManyPixels))).toEqual({ code: 'image_too_large', details: tooManyPixels });
    expect(errorInfo(new Error('boom'))).toEqual({ code: 'internal' });
  });
});
