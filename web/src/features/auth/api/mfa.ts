//! Two-step verification through auth-js's `mfa` API, and the account's data
//! (react-query factories: the user as the server has it now, its factors).
import { queryOptions } from '@tanstack/react-query';

import { authClient, type Factor } from '@/lib/auth';

import { authErrorCode, authErrorKey, type AuthErrorKey } from './auth-actions';

export const accountKeys = {
  all: ['auth', 'account'] as const,
  user: ['auth', 'account', 'user'] as const,
  factors: ['auth', 'account', 'factors'] as const,
};

/** The user as the server has it now (`GET /user`): e-mail, pending e-mail, identities. */
export const userQuery = () =>
  queryOptions({
    queryKey: accountKeys.user,
    queryFn: async () => {
      const { data, error } = await authClient.getUser();
      if (error) throw error;
      return data.user;
    },
  });

/** Every factor of the user, verified or not (auth-js reads them from `GET /user`). */
export const factorsQuery = () =>
  queryOptions({
    queryKey: accountKeys.factors,
    queryFn: async () => {
      const { data, error } = await authClient.mfa.listFactors();
      if (error) throw error;
      return data.all;
    },
  });

/** A factor as the server sends it (a phone factor also has its number). */
export type AnyFactor = Factor & { phone?: string };

export type MfaResult<T = null> = { ok: true; value: T } | { ok: false; error: AuthErrorKey; code: string | undefined };

function failure(error: unknown): { ok: false; error: AuthErrorKey; code: string | undefined } {
  return { ok: false, error: authErrorKey(error), code: authErrorCode(error) };
}

/** Errors that mean "this challenge can no longer be used": start a new one. */
export const STALE_CHALLENGE = new Set(['mfa_challenge_expired', 'mfa_factor_not_found', 'mfa_ip_address_mismatch']);

/** Creates a challenge (for a phone factor the server sends the SMS now). */
export async function challenge(factorId: string): Promise<MfaResult<string>> {
  try {
    const { data, error } = await authClient.mfa.challenge({ factorId });
    return error ? failure(error) : { ok: true, value: data.id };
  } catch (error) {
    return failure(error);
  }
}

/** Verifies a code; on success auth-js saves the aal2 session and announces MFA_CHALLENGE_VERIFIED. */
export async function verify(factorId: string, challengeId: string, code: string): Promise<MfaResult> {
  try {
    const { error } = await authClient.mfa.verify({ factorId, challengeId, code });
    return error ? failure(error) : { ok: true, value: null };
  } catch (error) {
    return failure(error);
  }
}

export type TotpEnrolment = { id: string; qrCode: string; secret: string; uri: string };

/**
 * auth-js hands the QR code over as `data:image/svg+xml;utf-8,<svg…>`, raw: a `#` in the SVG
 * would end the address there. Encode it so that any SVG shows.
 */
export function qrCodeSource(qrCode: string): string {
  const prefix = 'data:image/svg+xml;utf-8,';
  if (!qrCode.startsWith(prefix)) return qrCode;
  return `data:image/svg+xml;charset=utf-8,${encodeURIComponent(qrCode.slice(prefix.length))}`;
}

export async function enrollTotp(friendlyName: string): Promise<MfaResult<TotpEnrolment>> {
  try {
    const { data, error } = await authClient.mfa.enroll({ factorType: 'totp', friendlyName, issuer: 'Regard' });
    if (error) return failure(error);
    return { ok: true, value: { id: data.id, qrCode: qrCodeSource(data.totp.qr_code), secret: data.totp.secret, uri: data.totp.uri } };
  } catch (error) {
    return failure(error);
  }
}

export async function enrollPhone(friendlyName: string, phone: string): Promise<MfaResult<string>> {
  try {
    const { data, error } = await authClient.mfa.enroll({ factorType: 'phone', friendlyName, phone });
    return error ? failure(error) : { ok: true, value: data.id };
  } catch (error) {
    return failure(error);
  }
}

/** Confirms a new TOTP factor with a code from the app (challenge, then verify). */
export async function challengeAndVerify(factorId: string, code: string): Promise<MfaResult> {
  try {
    const { error } = await authClient.mfa.challengeAndVerify({ factorId, code });
    return error ? failure(error) : { ok: true, value: null };
  } catch (error) {
    return failure(error);
  }
}

export async function unenroll(factorId: string): Promise<MfaResult> {
  try {
    const { error } = await authClient.mfa.unenroll({ factorId });
    return error ? failure(error) : { ok: true, value: null };
  } catch (error) {
    return failure(error);
  }
}

/** E.164: a plus, then 8 to 15 digits, the first not 0. Spaces, dots and dashes typed are dropped. */
export function normalisePhone(input: string): string | null {
  const compact = input.replace(/[\s.\-()]/g, '');
  return /^\+[1-9]\d{7,14}$/.test(compact) ? compact : null;
}
