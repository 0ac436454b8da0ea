//! The account beyond auth-js (`/api/v1/account/…`, issue 31): the devices signed in, each of
//! which can be signed out, the recovery codes of two-step verification, and the agency's
//! branding on its reports and share pages.
import { queryOptions } from '@tanstack/react-query';
import Bowser from 'bowser';

import { answer, api, type Schemas } from '@/lib/api';
import type { User } from '@/lib/auth';

export type AccountSession = Schemas['Session'];
export type RecoveryCodesSummary = Schemas['RecoveryCodesSummary'];
export type NewRecoveryCodes = Schemas['NewRecoveryCodes'];
export type Branding = Schemas['Branding'];
export type BrandingChange = { agency_name: string | null; accent_color: string | null; logo_media_id: string | null };

export const securityKeys = {
  sessions: ['auth', 'account', 'sessions'] as const,
  recoveryCodes: ['auth', 'account', 'recovery-codes'] as const,
  branding: ['auth', 'account', 'branding'] as const,
};

export const sessionsQuery = () =>
  queryOptions({
    queryKey: securityKeys.sessions,
    queryFn: ({ signal }) => answer(api.GET('/account/sessions', { signal })),
  });

export function endSession(id: string) {
  return answer(api.DELETE('/account/sessions/{id}', { params: { path: { id } } }));
}

export const recoveryCodesQuery = () =>
  queryOptions({
    queryKey: securityKeys.recoveryCodes,
    queryFn: ({ signal }) => answer(api.GET('/account/recovery-codes', { signal })),
  });

/** A new set of ten codes, shown once; the previous set stops working. */
export function newRecoveryCodes(): Promise<NewRecoveryCodes> {
  return answer(api.POST('/account/recovery-codes'));
}

export const brandingQuery = () =>
  queryOptions({
    queryKey: securityKeys.branding,
    queryFn: ({ signal }) => answer(api.GET('/account/branding', { signal })),
  });

/** Replaces the agency's branding (a part left `null` is cleared). */
export function saveBranding(change: BrandingChange): Promise<Branding> {
  return answer(api.PUT('/account/branding', { body: change }));
}

/** What a `User-Agent` says of the device, for a person: "Firefox 133 · Windows". */
export type Device = { browser: string | null; os: string | null; mobile: boolean };

export function describeDevice(userAgent: string | null | undefined): Device {
  if (!userAgent) return { browser: null, os: null, mobile: false };
  const parsed = Bowser.parse(userAgent);
  const major = parsed.browser.version?.split('.')[0];
  const browser = parsed.browser.name ? [parsed.browser.name, major].filter(Boolean).join(' ') : null;
  return {
    browser,
    os: parsed.os.name ?? null,
    mobile: parsed.platform.type === 'mobile' || parsed.platform.type === 'tablet',
  };
}

/**
 * A recovery code as the user types it, as the server reads it: 12 characters of Crockford's
 * base 32, any case, dashes and spaces ignored, `o` read as 0 and `i`/`l` as 1. `null` when it
 * cannot be one.
 */
export function normaliseRecoveryCode(typed: string): string | null {
  const code = typed
    .toLowerCase()
    .replace(/[\s-]/g, '')
    .replace(/o/g, '0')
    .replace(/[il]/g, '1');
  return /^[0-9a-hjkmnp-tv-z]{12}$/.test(code) ? code : null;
}

/** The codes as a text file to keep: a title line, then one code per line. */
export function recoveryCodesFile(codes: string[], title: string): Blob {
  return new Blob([`${title}\n\n${codes.join('\n')}\n`], { type: 'text/plain;charset=utf-8' });
}

/**
 * Whether the account has a password to give: it signed up with an address or a phone number
 * (an account made through a provider has none, and sets its first one without).
 */
export function hasPassword(user: User): boolean {
  return (user.identities ?? []).some((identity) => identity.provider === 'email' || identity.provider === 'phone');
}
