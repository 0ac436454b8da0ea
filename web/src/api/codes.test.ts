// Every code the server can send has a message in both languages: the code tables are read
// from the server's OpenAPI document (src/api/openapi.json, checked against the server by
// crates/server/tests/openapi.rs), not from a list kept here.
import { describe, expect, it } from 'vitest';

import { apiErrorKey, fieldErrorKey } from '@/lib/api';
import { i18n } from '@/lib/i18n';
import en from '@/locales/en.json';
import fr from '@/locales/fr.json';

import document from './openapi.json';

type EnumSchema = { enum?: string[] };
const schemas = document.components.schemas as Record<string, EnumSchema>;

function codes(name: string): string[] {
  const values = schemas[name]?.enum;
  if (!values) throw new Error(`${name} is not an enum in openapi.json`);
  return values;
}

const locales = { en, fr } as const;

describe('API codes', () => {
  it('the document publishes the three code tables', () => {
    expect(codes('ErrorCode')).toContain('validation_failed');
    expect(codes('FieldCode')).toContain('required');
    expect(codes('JobErrorCode')).toContain('source_missing');
  });

  for (const [language, messages] of Object.entries(locales)) {
    it(`${language} translates every error and job failure code`, () => {
      const missing = [...codes('ErrorCode'), ...codes('JobErrorCode')].filter(
        (code) => !(code in messages.apiErrors),
      );
      expect(missing).toEqual([]);
    });

    it(`${language} translates every field code`, () => {
      const missing = codes('FieldCode').filter((code) => !(code in messages.fieldErrors));
      expect(missing).toEqual([]);
    });
  }

  it('each code maps to its own message, not the generic one', () => {
    for (const code of [...codes('ErrorCode'), ...codes('JobErrorCode')]) {
      expect(apiErrorKey(code)).toBe(`apiErrors.${code}`);
      expect(i18n.t(apiErrorKey(code), { lng: 'en' })).not.toBe(en.apiErrors.generic);
    }
    for (const code of codes('FieldCode')) expect(fieldErrorKey(code)).toBe(`fieldErrors.${code}`);
  });
});
