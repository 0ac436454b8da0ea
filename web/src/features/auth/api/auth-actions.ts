//! Sign-in, sign-up and sign-out through auth-js, with errors turned into
//! translation keys. The session itself reaches the app through
//! onAuthStateChange (see auth-provider.tsx), not through these results.
import { authClient } from '@/lib/auth';

export type AuthErrorKey =
  | 'auth.errors.invalidCredentials'
  | 'auth.errors.userAlreadyExists'
  | 'auth.errors.generic';

export type AuthOutcome =
  | { ok: true; needsConfirmation: boolean }
  | { ok: false; error: AuthErrorKey };

/** Maps an auth-js error to the message to show, by its stable `code`. */
export function authErrorKey(error: unknown): AuthErrorKey {
  const code = typeof error === 'object' && error !== null && 'code' in error ? error.code : undefined;
  switch (code) {
    case 'invalid_credentials':
      return 'auth.errors.invalidCredentials';
    case 'user_already_exists':
      return 'auth.errors.userAlreadyExists';
    default:
      return 'auth.errors.generic';
  }
}

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

export async function signUp(credentials: Credentials): Promise<AuthOutcome> {
  try {
    const { data, error } = await authClient.signUp(credentials);
    if (error) return { ok: false, error: authErrorKey(error) };
    // Without a session the server asks for e-mail confirmation first.
    return { ok: true, needsConfirmation: data.session === null };
  } catch (error) {
    console.error('Sign-up failed unexpectedly', error);
    return { ok: false, error: 'auth.errors.generic' };
  }
}

/**
 * Signs out. auth-js removes the local session (and announces SIGNED_OUT)
 * even when the server no longer knows the session; other failures are logged.
 */
export async function signOut(): Promise<void> {
  try {
    const { error } = await authClient.signOut();
    if (error) console.error('Sign-out failed', error);
  } catch (error) {
    console.error('Sign-out failed unexpectedly', error);
  }
}
