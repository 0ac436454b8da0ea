//! Sign-in, sign-up, sign-out, password recovery and provider sign-in through
//! auth-js, with errors turned into translation keys. The session itself
//! reaches the app through onAuthStateChange (see auth-provider.tsx), not
//! through these results.
import { authClient } from '@/lib/auth';

export type AuthErrorKey =
  | 'auth.errors.invalidCredentials'
  | 'auth.errors.userAlreadyExists'
  | 'auth.errors.generic'
  | 'auth.errors.emailNotConfirmed'
  | 'auth.errors.signupDisabled'
  | 'auth.errors.userBanned'
  | 'auth.errors.overRequestRateLimit'
  | 'auth.errors.overEmailSendRateLimit'
  | 'auth.errors.overSmsSendRateLimit'
  | 'auth.errors.mfaVerificationFailed'
  | 'auth.errors.codeAlreadyUsed'
  | 'auth.errors.recoveryCodeFormat'
  | 'auth.errors.currentPasswordRequired'
  | 'auth.errors.currentPasswordInvalid'
  | 'auth.errors.mfaChallengeExpired'
  | 'auth.errors.mfaFactorNameConflict'
  | 'auth.errors.tooManyFactors'
  | 'auth.errors.phoneFactorExists'
  | 'auth.errors.mfaNotEnabled'
  | 'auth.errors.insufficientAal'
  | 'auth.errors.reauthenticationNeeded'
  | 'auth.errors.samePassword'
  | 'auth.errors.weakPassword'
  | 'auth.errors.emailExists'
  | 'auth.errors.sameEmail'
  | 'auth.errors.emailInvalid'
  | 'auth.errors.phoneInvalid'
  | 'auth.errors.validationFailed'
  | 'auth.errors.linkExpired'
  | 'auth.errors.recoveryCodeInvalid'
  | 'auth.errors.providerEmailNeedsVerification'
  | 'auth.errors.providerDenied'
  | 'auth.errors.providerFailed';

/** GoTrue error codes (answers, or `error_code` in a redirect URL) → message. */
const CODES: Record<string, AuthErrorKey> = {
  invalid_credentials: 'auth.errors.invalidCredentials',
  user_already_exists: 'auth.errors.userAlreadyExists',
  email_not_confirmed: 'auth.errors.emailNotConfirmed',
  signup_disabled: 'auth.errors.signupDisabled',
  user_banned: 'auth.errors.userBanned',
  over_request_rate_limit: 'auth.errors.overRequestRateLimit',
  over_email_send_rate_limit: 'auth.errors.overEmailSendRateLimit',
  over_sms_send_rate_limit: 'auth.errors.overSmsSendRateLimit',
  mfa_verification_failed: 'auth.errors.mfaVerificationFailed',
  mfa_code_already_used: 'auth.errors.codeAlreadyUsed',
  current_password_required: 'auth.errors.currentPasswordRequired',
  current_password_invalid: 'auth.errors.currentPasswordInvalid',
  mfa_challenge_expired: 'auth.errors.mfaChallengeExpired',
  mfa_factor_name_conflict: 'auth.errors.mfaFactorNameConflict',
  too_many_enrolled_mfa_factors: 'auth.errors.tooManyFactors',
  mfa_verified_factor_exists: 'auth.errors.phoneFactorExists',
  mfa_totp_enroll_not_enabled: 'auth.errors.mfaNotEnabled',
  mfa_phone_enroll_not_enabled: 'auth.errors.mfaNotEnabled',
  mfa_totp_verify_not_enabled: 'auth.errors.mfaNotEnabled',
  mfa_phone_verify_not_enabled: 'auth.errors.mfaNotEnabled',
  insufficient_aal: 'auth.errors.insufficientAal',
  reauthentication_needed: 'auth.errors.reauthenticationNeeded',
  same_password: 'auth.errors.samePassword',
  weak_password: 'auth.errors.weakPassword',
  email_exists: 'auth.errors.emailExists',
  email_address_invalid: 'auth.errors.emailInvalid',
  validation_failed: 'auth.errors.validationFailed',
  otp_expired: 'auth.errors.linkExpired',
  flow_state_not_found: 'auth.errors.linkExpired',
  flow_state_expired: 'auth.errors.linkExpired',
  bad_code_verifier: 'auth.errors.linkExpired',
  provider_email_needs_verification: 'auth.errors.providerEmailNeedsVerification',
};

/** The GoTrue code of an auth-js error: `code`, or `details.code` for an error read from the URL. */
export function authErrorCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  if ('code' in error && typeof error.code === 'string') return error.code;
  if ('details' in error && typeof error.details === 'object' && error.details !== null) {
    const details = error.details as Record<string, unknown>;
    if (typeof details.code === 'string' && details.code !== 'unspecified_code') return details.code;
  }
  return undefined;
}

/** Maps an auth-js error to the message to show, by its stable `code`. */
export function authErrorKey(error: unknown): AuthErrorKey {
  const code = authErrorCode(error);
  return (code !== undefined && CODES[code]) || 'auth.errors.generic';
}

/**
 * The message for an error that came back in the URL (a provider sign-in or an e-mail link that
 * failed): the known codes have their own message; a provider's refusal or failure says so.
 */
export function redirectErrorKey(error: unknown): AuthErrorKey {
  const key = authErrorKey(error);
  if (key !== 'auth.errors.generic') return key;
  const details =
    typeof error === 'object' && error !== null && 'details' in error && typeof error.details === 'object' && error.details
      ? (error.details as Record<string, unknown>)
      : {};
  if (details.error === 'access_denied') return 'auth.errors.providerDenied';
  return 'auth.errors.providerFailed';
}

export type AuthOutcome = { ok: true; needsConfirmation: boolean } | { ok: false; error: AuthErrorKey };

export type Credentials = { email: string; password: string };

export async function signIn(credentials: Credentials): Promise<AuthOutcome> {
  try {
    const { error } = await authClient.signInWithPassword(credentials);
    return error ? { ok: false, error: authErrorKey(error) } : { ok: true, needsConfirmation: false };
  } catch (error) {
    console.error('Sign-in failed unexpectedly', error);
    return { ok: false, error: 'auth.errors.generic' };
  }
}

/**
 * Where a mailed link (sign-up confirmation, sign-in link) brings the user back: the page the
 * login screen was shown at (the gate shows it at any address: an invitation's page, say), or
 * the home page from the reset-password page, which would otherwise ask for a new password.
 */
function returnAddress(): string {
  const { origin, pathname } = window.location;
  return pathname === RESET_PASSWORD_PATH ? `${origin}/` : `${origin}${pathname}`;
}

export async function signUp(credentials: Credentials): Promise<AuthOutcome> {
  try {
    const { data, error } = await authClient.signUp({
      ...credentials,
      // The confirmation link (when the server asks for one) brings the user back here.
      options: { emailRedirectTo: returnAddress() },
    });
    if (error) return { ok: false, error: authErrorKey(error) };
    // Without a session the server asks for e-mail confirmation first.
    return { ok: true, needsConfirmation: data.session === null };
  } catch (error) {
    console.error('Sign-up failed unexpectedly', error);
    return { ok: false, error: 'auth.errors.generic' };
  }
}

/**
 * Signs out. `global` (auth-js's default, the navigation's sign-out) ends every session of the
 * user; `local` only this device's. auth-js removes the local session (and announces SIGNED_OUT)
 * even when the server no longer knows the session; other failures are logged.
 */
export async function signOut(scope: 'global' | 'local' = 'global'): Promise<void> {
  try {
    const { error } = await authClient.signOut({ scope });
    if (error) console.error('Sign-out failed', error);
  } catch (error) {
    console.error('Sign-out failed unexpectedly', error);
  }
}

/** The page the password-recovery link leads to (the server redirects there with `?code=`). */
export const RESET_PASSWORD_PATH = '/reset-password';

/**
 * Asks for a recovery e-mail. The answer says nothing about whether the address has an account
 * (the server answers the same either way), so neither does the app: only a failure to reach the
 * server or a rate limit is reported.
 */
export async function requestPasswordReset(email: string): Promise<{ ok: true } | { ok: false; error: AuthErrorKey }> {
  try {
    const { error } = await authClient.resetPasswordForEmail(email, {
      redirectTo: `${window.location.origin}${RESET_PASSWORD_PATH}`,
    });
    if (!error) return { ok: true };
    const key = authErrorKey(error);
    // Only what the visitor can act on; anything else would hint at whether the address exists.
    // The mail rate limit counts per client, whatever the address, so it says nothing either.
    return key === 'auth.errors.overRequestRateLimit' ||
      key === 'auth.errors.overEmailSendRateLimit' ||
      key === 'auth.errors.emailInvalid' ||
      key === 'auth.errors.validationFailed'
      ? { ok: false, error: key }
      : { ok: true };
  } catch (error) {
    console.error('Password reset request failed unexpectedly', error);
    return { ok: false, error: 'auth.errors.generic' };
  }
}

/**
 * Signs in with the 6-digit code of a recovery mail. On success auth-js announces
 * PASSWORD_RECOVERY, as after the mail's link, and the app asks for a new password. A wrong,
 * expired, used or replaced code (the server answers them all alike, `otp_expired`) has its own
 * message: the one for links would speak of a link.
 */
export async function verifyRecoveryCode(email: string, code: string): Promise<{ ok: true } | { ok: false; error: AuthErrorKey }> {
  try {
    const { error } = await authClient.verifyOtp({ email, token: code, type: 'recovery' });
    if (!error) return { ok: true };
    const key = authErrorKey(error);
    return { ok: false, error: key === 'auth.errors.linkExpired' ? 'auth.errors.recoveryCodeInvalid' : key };
  } catch (error) {
    console.error('Recovery code verification failed unexpectedly', error);
    return { ok: false, error: 'auth.errors.generic' };
  }
}

/**
 * Asks for a sign-in link (and its code) by e-mail, for an existing account only: registering
 * still needs a password. As for the recovery e-mail, the app says the same whether or not the
 * address has an account; only a rate limit or a malformed address is reported. The link comes
 * back to the app with a PKCE code that auth-js exchanges for the session.
 */
export async function requestMagicLink(email: string): Promise<{ ok: true } | { ok: false; error: AuthErrorKey }> {
  try {
    const { error } = await authClient.signInWithOtp({
      email,
      options: { shouldCreateUser: false, emailRedirectTo: returnAddress() },
    });
    if (!error) return { ok: true };
    const key = authErrorKey(error);
    return key === 'auth.errors.overRequestRateLimit' ||
      key === 'auth.errors.overEmailSendRateLimit' ||
      key === 'auth.errors.emailInvalid' ||
      key === 'auth.errors.validationFailed'
      ? { ok: false, error: key }
      : { ok: true };
  } catch (error) {
    console.error('Sign-in link request failed unexpectedly', error);
    return { ok: false, error: 'auth.errors.generic' };
  }
}

/**
 * Sets a new password for the signed-in user: after recovery (no current password: the link or
 * code proved the address), or from the account page, which sends the current one.
 */
export async function updatePassword(
  password: string,
  currentPassword?: string,
): Promise<{ ok: true } | { ok: false; error: AuthErrorKey }> {
  try {
    const { error } = await authClient.updateUser(currentPassword ? { password, current_password: currentPassword } : { password });
    return error ? { ok: false, error: authErrorKey(error) } : { ok: true };
  } catch (error) {
    console.error('Password update failed unexpectedly', error);
    return { ok: false, error: 'auth.errors.generic' };
  }
}

/** Starts a provider sign-in: the browser leaves for the provider and comes back to `redirectTo`. */
export async function signInWithProvider(provider: string, redirectTo: string): Promise<AuthErrorKey | null> {
  try {
    // auth-js types the provider as a union of known names; the server decides which exist.
    const { error } = await authClient.signInWithOAuth({
      provider: provider as Parameters<typeof authClient.signInWithOAuth>[0]['provider'],
      options: { redirectTo },
    });
    return error ? authErrorKey(error) : null;
  } catch (error) {
    console.error('Provider sign-in failed unexpectedly', error);
    return 'auth.errors.generic';
  }
}

/**
 * Asks to change the e-mail address: the server mails a confirmation link to the new address
 * (and keeps the old one until it is opened). The link comes back to the account page.
 */
export async function updateEmail(email: string): Promise<{ ok: true } | { ok: false; error: AuthErrorKey }> {
  try {
    const { error } = await authClient.updateUser({ email }, { emailRedirectTo: `${window.location.origin}/account` });
    return error ? { ok: false, error: authErrorKey(error) } : { ok: true };
  } catch (error) {
    console.error('E-mail update failed unexpectedly', error);
    return { ok: false, error: 'auth.errors.generic' };
  }
}

/** Ends every session of the user except this one. */
export async function signOutOthers(): Promise<{ ok: true } | { ok: false; error: AuthErrorKey }> {
  try {
    const { error } = await authClient.signOut({ scope: 'others' });
    return error ? { ok: false, error: authErrorKey(error) } : { ok: true };
  } catch (error) {
    console.error('Signing out other sessions failed unexpectedly', error);
    return { ok: false, error: 'auth.errors.generic' };
  }
}
