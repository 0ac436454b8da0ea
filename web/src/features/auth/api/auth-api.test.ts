import { AuthApiError, AuthImplicitGrantRedirectError } from '@supabase/auth-js';
import { describe, expect, it, vi } from 'vitest';

import { authClient, authError } from '@/testing/auth-mock';

import { authErrorKey, redirectErrorKey, requestPasswordReset, verifyRecoveryCode } from './auth-actions';
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

describe('the recovery code', () => {
  it('is verified as a recovery for the address the mail was asked for', async () => {
    authClient.verifyOtp.mockResolvedValueOnce({ data: { user: null, session: null }, error: null });
    expect(await verifyRecoveryCode('ada@example.com', '123456')).toEqual({ ok: true });
    expect(authClient.verifyOtp).toHaveBeenCalledWith({ email: 'ada@example.com', token: '123456', type: 'recovery' });
  });

  it.each([
    // Wrong, expired, used or replaced: the server answers them alike; the message speaks of a code, not a link.
    ['otp_expired', 'auth.errors.recoveryCodeInvalid'],
    ['over_request_rate_limit', 'auth.errors.overRequestRateLimit'],
    ['validation_failed', 'auth.errors.validationFailed'],
    ['unexpected_failure', 'auth.errors.generic'],
  ])('%s → %s', async (code, key) => {
    authClient.verifyOtp.mockResolvedValueOnce({ data: { user: null, session: null }, error: authError(code, 'x', 403) });
    expect(await verifyRecoveryCode('ada@example.com', '000000')).toEqual({ ok: false, error: key });
  });

  it('reports a failure to reach the server as the generic error', async () => {
    vi.spyOn(console, 'error').mockImplementationOnce(() => {});
    authClient.verifyOtp.mockRejectedValueOnce(new TypeError('Failed to fetch'));
    expect(await verifyRecoveryCode('ada@example.com', '000000')).toEqual({ ok: false, error: 'auth.errors.generic' });
  });

  it('reports the mail rate limit when asking for the mail (it counts per client, whatever the address)', async () => {
    authClient.resetPasswordForEmail.mockResolvedValueOnce({ data: null, error: authError('over_email_send_rate_limit', 'x', 429) });
    expect(await requestPasswordReset('ada@example.com')).toEqual({ ok: false, error: 'auth.errors.overEmailSendRateLimit' });
    authClient.resetPasswordForEmail.mockResolvedValueOnce({ data: null, error: authError('user_not_found', 'x', 404) });
    expect(await requestPasswordReset('ada@example.com')).toEqual({ ok: true });
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
