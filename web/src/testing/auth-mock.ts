//! A stand-in for `@/lib/auth` (the module boundary around auth-js). Use with
//!   vi.mock('@/lib/auth', () => import('@/testing/auth-mock'));
//! then drive it through `authMock`.
import type { AuthChangeEvent, Factor, Session, User } from '@supabase/auth-js';
import { vi } from 'vitest';

type Listener = (event: AuthChangeEvent, session: Session | null) => void;
const listeners = new Set<Listener>();

export const authClient = {
  initialize: vi.fn(),
  getSession: vi.fn(),
  getUser: vi.fn(),
  onAuthStateChange: vi.fn((listener: Listener) => {
    listeners.add(listener);
    return { data: { subscription: { id: 'test', callback: listener, unsubscribe: () => listeners.delete(listener) } } };
  }),
  signInWithPassword: vi.fn(),
  signUp: vi.fn(),
  signOut: vi.fn(),
  refreshSession: vi.fn(),
  signInWithOAuth: vi.fn(),
  resetPasswordForEmail: vi.fn(),
  signInWithOtp: vi.fn(),
  verifyOtp: vi.fn(),
  updateUser: vi.fn(),
  mfa: {
    enroll: vi.fn(),
    challenge: vi.fn(),
    verify: vi.fn(),
    challengeAndVerify: vi.fn(),
    unenroll: vi.fn(),
    listFactors: vi.fn(),
    getAuthenticatorAssuranceLevel: vi.fn(),
  },
};

/** A JWT-shaped token whose payload holds `aal` (auth-js only decodes it, never checks it). */
export function fakeAccessToken(aal: 'aal1' | 'aal2' = 'aal1', name = 'access'): string {
  const part = (value: object) => btoa(JSON.stringify(value)).replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
  return `${part({ alg: 'HS256', typ: 'JWT' })}.${part({ aal, sub: name })}.sig`;
}

export function fakeFactor(overrides: Partial<Factor> = {}): Factor {
  return {
    id: 'f-totp',
    friendly_name: 'Téléphone perso',
    factor_type: 'totp',
    status: 'verified',
    created_at: '2026-03-14T10:00:00Z',
    updated_at: '2026-03-14T10:00:00Z',
    ...overrides,
  };
}

export function fakeSession(email = 'ada@example.com', overrides: Partial<User> = {}): Session {
  const user = {
    id: '00000000-0000-4000-8000-000000000001',
    aud: 'authenticated',
    email,
    app_metadata: {},
    user_metadata: {},
    created_at: '2026-01-01T00:00:00Z',
    ...overrides,
  } satisfies User;
  return {
    access_token: 'access',
    refresh_token: 'refresh',
    expires_in: 3600,
    expires_at: Math.floor(Date.now() / 1000) + 3600,
    token_type: 'bearer',
    user,
  };
}

/** Resets every mock; the session starts as `session` (signed out by default). */
export function resetAuthMock(session: Session | null = null) {
  listeners.clear();
  authClient.initialize.mockReset().mockResolvedValue({ error: null });
  authClient.getSession.mockReset().mockResolvedValue({ data: { session }, error: null });
  authClient.getUser.mockReset().mockImplementation(() =>
    Promise.resolve({ data: { user: session?.user ?? null }, error: null }),
  );
  authClient.signInWithOAuth.mockReset().mockResolvedValue({ data: { provider: 'google', url: 'x' }, error: null });
  authClient.resetPasswordForEmail.mockReset().mockResolvedValue({ data: {}, error: null });
  authClient.signInWithOtp.mockReset().mockResolvedValue({ data: { user: null, session: null }, error: null });
  authClient.verifyOtp.mockReset().mockResolvedValue({ data: { user: null, session: null }, error: null });
  authClient.updateUser.mockReset().mockImplementation(() =>
    Promise.resolve({ data: { user: session?.user ?? null }, error: null }),
  );
  for (const mock of Object.values(authClient.mfa)) mock.mockReset();
  authClient.mfa.getAuthenticatorAssuranceLevel.mockResolvedValue({
    data: { currentLevel: 'aal1', nextLevel: 'aal1', currentAuthenticationMethods: [] },
    error: null,
  });
  authClient.mfa.listFactors.mockResolvedValue({ data: { all: [], totp: [], phone: [], webauthn: [] }, error: null });
  authClient.onAuthStateChange.mockClear();
  authClient.signInWithPassword.mockReset().mockResolvedValue({ data: { user: null, session: null }, error: null });
  authClient.signUp.mockReset().mockResolvedValue({ data: { user: null, session: null }, error: null });
  authClient.refreshSession.mockReset().mockResolvedValue({ data: { user: null, session: null }, error: null });
  authClient.signOut.mockReset().mockImplementation(() => {
    authClient.getSession.mockResolvedValue({ data: { session: null }, error: null });
    emit('SIGNED_OUT', null);
    return Promise.resolve({ error: null });
  });
}

/** Announces an auth event to the app, as auth-js would. */
export function emit(event: AuthChangeEvent, session: Session | null) {
  for (const listener of listeners) listener(event, session);
}

/** An error shaped like auth-js's AuthApiError. */
export function authError(code: string | undefined, message = 'error', status = 400) {
  return Object.assign(new Error(message), { name: 'AuthApiError', code, status, __isAuthError: true });
}

resetAuthMock();
