import { useEffect, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useLocation, useNavigate } from 'react-router';

import { LanguageSwitch } from '@/components/language-switch';
import { Banner } from '@/components/ui/banner';
import { signOut, RESET_PASSWORD_PATH } from '@/features/auth/api/auth-actions';
import { useAuth } from '@/features/auth/auth-context';
import { LoginForm } from '@/features/auth/components/login-form';
import { MfaChallenge } from '@/features/auth/components/mfa-challenge';
import { NewPasswordForm } from '@/features/auth/components/new-password-form';
import { ThemeSwitch } from '@/features/theme/components/theme-switch';
import { useToast } from '@/lib/toast';

/** URL parameters an auth redirect leaves behind (auth-js has read them by the time we render). */
const REDIRECT_PARAMS = ['code', 'error', 'error_code', 'error_description', 'sb'];

/**
 * The card every signed-out (or not yet fully signed-in) screen sits in, with the preferences
 * below; the invitation page uses it too.
 */
export function AuthCard({ children }: { children: ReactNode }) {
  const { t } = useTranslation();
  const appName = t('app.name');
  useEffect(() => {
    document.title = appName;
  }, [appName]);

  return (
    <div className="login">
      <main className="login__card">
        <p className="brand brand--large">{appName}</p>
        <p className="login__tagline">{t('app.tagline')}</p>
        {children}
      </main>
      <footer className="login__footer" aria-label={t('settings.label')}>
        <LanguageSwitch />
        <ThemeSwitch />
      </footer>
    </div>
  );
}

/**
 * The only screen a signed-out visitor sees, at whatever address they opened. At the
 * reset-password address it opens on "send me a link". Wherever a link led (recovery, sign-in
 * link), it says so when the link can no longer be used (expired, already used, or opened in
 * another browser). Opened from an invitation's link, it says that signing in (or up) with the
 * invited address comes first.
 */
export function LoginScreen({ invitation = false }: { invitation?: boolean }) {
  const { t } = useTranslation();
  const { redirectError, clearRedirectError } = useAuth();
  const location = useLocation();
  const navigate = useNavigate();
  const onResetPage = location.pathname === RESET_PASSWORD_PATH;
  // Read once: the address is cleaned up just below.
  const [leftoverCode] = useState(() => new URLSearchParams(location.search).has('code'));

  useEffect(() => {
    const search = new URLSearchParams(location.search);
    const dirty = REDIRECT_PARAMS.some((name) => search.has(name)) || /error|code=/.test(location.hash);
    if (!dirty) return;
    for (const name of REDIRECT_PARAMS) search.delete(name);
    const rest = search.toString();
    void navigate({ pathname: location.pathname, search: rest ? `?${rest}` : '', hash: '' }, { replace: true });
  }, [location.pathname, location.search, location.hash, navigate]);

  // A `code` auth-js left unused (no verifier in this browser, or the exchange came to nothing):
  // the link of a mail or a provider cannot be used here, and the visitor should hear why.
  const error = redirectError ?? (leftoverCode ? 'auth.errors.linkExpired' : null);
  return (
    <AuthCard>
      {invitation ? (
        <Banner variant="info" className="login__notice" data-testid="invitation-sign-in">
          {t('invitation.signInFirst')}
        </Banner>
      ) : null}
      <LoginForm initialMode={onResetPage ? 'forgot' : 'login'} redirectError={error} onDismissRedirectError={clearRedirectError} />
    </AuthCard>
  );
}

/** The second step (code) after signing in to an account with two-step verification. */
export function MfaScreen() {
  return (
    <AuthCard>
      <MfaChallenge />
    </AuthCard>
  );
}

/**
 * "Choose a new password" after a recovery link or code; then the app, where a toast confirms
 * the change (the app's toasts are drawn by its shell, which this screen replaces).
 */
export function NewPasswordScreen() {
  const { t } = useTranslation();
  const { recovery, endRecovery } = useAuth();
  const navigate = useNavigate();
  const toast = useToast();
  const leave = () => {
    endRecovery();
    void navigate('/', { replace: true });
  };
  return (
    <AuthCard>
      <NewPasswordForm
        onDone={() => {
          toast.show(t('account.password.changed'), { id: 'password-changed' });
          leave();
        }}
        // Came from a recovery link: cancelling signs out. Came here by hand: back to the app.
        onCancel={recovery ? () => void signOut('local') : leave}
      />
    </AuthCard>
  );
}
