import { useCallback, useEffect, useMemo, useState, type ReactNode } from 'react';

import { authClient, type Session } from '@/lib/auth';
import { clearSessionEnded } from '@/lib/session';

import { redirectErrorKey, type AuthErrorKey } from './api/auth-actions';
import { AuthContext, type AuthState, type SessionState } from './auth-context';

/** The assurance check of one access token: does it still need the second step? */
type LevelCheck = { token: string; userId: string; needsMfa: boolean };

/**
 * aal1 with a verified factor on the account means "second step to pass"
 * (auth-js reads both from the stored session, without a request). A failed
 * check asks for the second step: the code screen can always be cancelled.
 */
async function needsSecondStep(): Promise<boolean> {
  try {
    const { data, error } = await authClient.mfa.getAuthenticatorAssuranceLevel();
    if (error || !data) {
      console.error('Could not read the assurance level', error);
      return true;
    }
    return data.nextLevel === 'aal2' && data.currentLevel !== 'aal2';
  } catch (error) {
    console.error('Could not read the assurance level', error);
    return true;
  }
}

/**
 * Determines the session once (getSession), then follows every change auth-js
 * announces (sign-in, sign-out, token refresh, user update, MFA verified,
 * password recovery, other tabs). A session that cannot be loaded is logged
 * and treated as signed out. Each new access token is checked for its
 * assurance level before the app counts the user as signed in.
 */
export function AuthProvider({ children }: { children: ReactNode }) {
  // undefined: not known yet.
  const [session, setSession] = useState<Session | null | undefined>(undefined);
  const [level, setLevel] = useState<LevelCheck | null>(null);
  const [recovery, setRecovery] = useState(false);
  const [redirectError, setRedirectError] = useState<AuthErrorKey | null>(null);

  useEffect(() => {
    let active = true;
    const apply = (next: Session | null) => {
      if (!active) return;
      // A new session: the "your session has ended" notice has served its purpose.
      if (next) clearSessionEnded();
      else {
        // The next sign-in is checked afresh, even for the same user.
        setLevel(null);
        setRecovery(false);
      }
      setSession(next);
    };
    const fail = (error: unknown) => {
      console.error('Could not load the session; continuing signed out.', error);
      apply(null);
    };

    // auth-js has read the URL by now (provider or e-mail link): its error, if any, is for the user.
    authClient.initialize().then(
      ({ error }) => {
        if (active && error) setRedirectError(redirectErrorKey(error));
      },
      (error: unknown) => console.error('auth-js initialisation failed', error),
    );
    authClient.getSession().then(({ data, error }) => (error ? fail(error) : apply(data.session)), fail);

    // The callback must stay synchronous and must not call other auth methods:
    // auth-js runs it while holding its internal lock.
    const { data } = authClient.onAuthStateChange((event, next) => {
      if (event === 'PASSWORD_RECOVERY' && active) setRecovery(true);
      apply(next);
    });

    return () => {
      active = false;
      data.subscription.unsubscribe();
    };
  }, []);

  const token = session?.access_token;
  const userId = session?.user.id;
  useEffect(() => {
    if (!token || !userId) return;
    let current = true;
    void needsSecondStep().then((needsMfa) => {
      if (current) setLevel({ token, userId, needsMfa });
    });
    return () => {
      current = false;
    };
  }, [token, userId]);

  const endRecovery = useCallback(() => setRecovery(false), []);
  const clearRedirectError = useCallback(() => setRedirectError(null), []);

  const state = useMemo<AuthState>(() => {
    let sessionState: SessionState;
    if (session === undefined) sessionState = { status: 'loading', session: null, user: null };
    else if (session === null) sessionState = { status: 'signedOut', session: null, user: null };
    // While a new token of the same user is checked, the last answer stands (no spinner on refresh).
    else if (level && level.userId === session.user.id)
      sessionState = { status: level.needsMfa ? 'mfaRequired' : 'signedIn', session, user: session.user };
    else sessionState = { status: 'loading', session: null, user: null };
    return { ...sessionState, recovery, redirectError, endRecovery, clearRedirectError };
  }, [session, level, recovery, redirectError, endRecovery, clearRedirectError]);

  return <AuthContext.Provider value={state}>{children}</AuthContext.Provider>;
}
