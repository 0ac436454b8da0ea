import { AuthApiError, AuthImplicitGrantRedirectError } from '@supabase/auth-js';
import { describe, expect, it, vi } from 'vitest';

import { authErrorKey, redirectErrorKey } from './auth-actions';
import { normalisePhone, qrCodeSource } from './mfa';
import { enabledProviders, providerLabel, type AuthSettings } from './settings';

vi.mock('@/lib/auth', () => import('@/testing/auth-mock'));

describe('providers from /settings', () => {
  const settings = (external: Record<string, boolean>): AuthSettings => ({ external, disable_signup: false, mailer_autoconfirm: true });

  it('offers every enabled key except email, phone and anonymous users, in order', () => {
    expect(
      enabledProviders(settings({ email: true, phone: true, anonymous_users: true, google: true, github: false, keycloak: true, acme_sso: true })),
    ).toEqual(['google', 'keycloak', 'acme_sso']);
    expect(enabledProviders(undefined)).toEqual([]);
  });

  it('names known providers by brand, others capitalised', () => {
    expect(['google', 'azure', 'github', 'gitlab', 'keycloak', 'apple', 'facebook', 'linkedin_oidc', 'zitadel'].map(providerLabel)).toEqual([
      'Google',
      'Microsoft',
      'GitHub',
      'GitLab',
      'Keycloak',
      'Apple',
      'Facebook',
      'LinkedIn',
      'Zitadel',
    ]);
  });
});

describe('error codes', () => {
  it.each([
    ['mfa_verification_failed', 'auth.errors.mfaVerificationFailed'],
    ['mfa_challenge_expired', 'auth.errors.mfaChallengeExpired'],
    ['over_sms_send_rate_limit', 'auth.errors.overSmsSendRateLimit'],
    ['insufficient_aal', 'auth.errors.insufficientAal'],
    ['flow_state_expired', 'auth.errors.linkExpired'],
    ['flow_state_not_found', 'auth.errors.linkExpired'],
    ['otp_expired', 'auth.errors.linkExpired'],
    ['something_new', 'auth.errors.generic'],
  ])('%s → %s', (code, key) => {
    expect(authErrorKey(new AuthApiError('x', 422, code))).toBe(key);
  });

  it('reads the code of an error from the URL, and names a provider refusal', () => {
    expect(redirectErrorKey(new AuthImplicitGrantRedirectError('x', { error: 'access_denied', code: 'otp_expired' }))).toBe('auth.errors.linkExpired');
    expect(redirectErrorKey(new AuthImplicitGrantRedirectError('x', { error: 'access_denied', code: 'unspecified_code' }))).toBe(
      'auth.errors.providerDenied',
    );
    expect(redirectErrorKey(new AuthImplicitGrantRedirectError('x', { error: 'server_error', code: 'unexpected_failure' }))).toBe(
      'auth.errors.providerFailed',
    );
  });
});

describe('two-step helpers', () => {
  it('re-encodes the SVG QR code so that a # in it does not cut the address', () => {
    expect(qrCodeSource('data:image/svg+xml;utf-8,<svg fill="#000"/>')).toBe(
      'data:image/svg+xml;charset=utf-8,%3Csvg%20fill%3D%22%23000%22%2F%3E',
    );
    expect(qrCodeSource('data:image/png;base64,AAA')).toBe('data:image/png;base64,AAA');
  });

  it('accepts E.164 numbers, dropping spaces, dots and dashes', () => {
    expect(normalisePhone('+33 6 12 34 56 78')).toBe('+33612345678');
    expect(normalisePhone('+1 (415) 555-0100')).toBe('+14155550100');
    expect(normalisePhone('06 12 34 56 78')).toBeNull();
    expect(normalisePhone('+0612345678')).toBeNull();
    expect(normalisePhone('+33')).toBeNull();
  });
});
