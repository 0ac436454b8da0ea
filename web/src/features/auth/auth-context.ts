import { createContext, useContext } from 'react';

import type { Session, User } from '@/lib/auth';

import type { AuthErrorKey } from './api/auth-actions';

/**
 * Where the app stands with the session: loading first, then signed out, or signed in with a
 * second step still to pass (`mfaRequired`: the account has a verified factor and the session is
 * only aal1), or signed in.
 */
export type SessionState =
  | { status: 'loading'; session: null; user: null }
  | { status: 'signedOut'; session: null; user: null }
  | { status: 'mfaRequired'; session: Session; user: User }
  | { status: 'signedIn'; session: Session; user: User };

export type AuthState = SessionState & {
  /** The session came from a password-recovery link: the user is to choose a new password. */
  recovery: boolean;
  /** A provider sign-in or an e-mail link came back with an error (shown on the login screen). */
  redirectError: AuthErrorKey | null;
  /** The new password is set (or the user moved on): leave the recovery screen. */
  endRecovery: () => void;
  clearRedirectError: () => void;
};

export const AuthContext = createContext<AuthState | null>(null);

/** The current auth state; must be used below <AuthProvider>. */
export function useAuth(): AuthState {
  const state = useContext(AuthContext);
  if (!state) throw new Error('useAuth must be used inside <AuthProvider>');
  return state;
}
