import { createContext, useContext } from 'react';

import type { Session, User } from '@/lib/auth';

/** Where the app stands with the session: loading first, then signed in or out. */
export type AuthState =
  | { status: 'loading'; session: null; user: null }
  | { status: 'signedOut'; session: null; user: null }
  | { status: 'signedIn'; session: Session; user: User };

export const AuthContext = createContext<AuthState | null>(null);

/** The current auth state; must be used below <AuthProvider>. */
export function useAuth(): AuthState {
  const state = useContext(AuthContext);
  if (!state) throw new Error('useAuth must be used inside <AuthProvider>');
  return state;
}
