import { useEffect, useState, type ReactNode } from 'react';

import { authClient, type Session } from '@/lib/auth';
import { clearSessionEnded } from '@/lib/session';

import { AuthContext, type AuthState } from './auth-context';

const LOADING: AuthState = { status: 'loading', session: null, user: null };
const SIGNED_OUT: AuthState = { status: 'signedOut', session: null, user: null };

function stateFrom(session: Session | null): AuthState {
  return session ? { status: 'signedIn', session, user: session.user } : SIGNED_OUT;
}

/**
 * Determines the session once (getSession), then follows every change auth-js
 * announces (sign-in, sign-out, token refresh, user update, other tabs).
 * A session that cannot be loaded is logged and treated as signed out.
 */
export function AuthProvider({ children }: { children: ReactNode }) {
  const [state, setState] = useState<AuthState>(LOADING);

  useEffect(() => {
    let active = true;
    const apply = (session: Session | null) => {
      if (!active) return;
      // A new session: the "your session has ended" notice has served its purpose.
      if (session) clearSessionEnded();
      setState(stateFrom(session));
    };
    const fail = (error: unknown) => {
      console.error('Could not load the session; continuing signed out.', error);
      apply(null);
    };

    authClient.getSession().then(({ data, error }) => (error ? fail(error) : apply(data.session)), fail);

    // The callback must stay synchronous and must not call other auth methods:
    // auth-js runs it while holding its internal lock.
    const { data } = authClient.onAuthStateChange((_event, session) => apply(session));

    return () => {
      active = false;
      data.subscription.unsubscribe();
    };
  }, []);

  return <AuthContext.Provider value={state}>{children}</AuthContext.Provider>;
}
