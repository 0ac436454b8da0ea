import { useQuery } from '@tanstack/react-query';
import { useId, useState, type ChangeEvent, type FormEvent, type InvalidEvent } from 'react';
import { useTranslation } from 'react-i18next';

import { Banner } from '@/components/ui/banner';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { MIN_PASSWORD_LENGTH } from '@/config/constants';
import { useSessionEnded } from '@/lib/session';

import { requestMagicLink, requestPasswordReset, signIn, signUp, type AuthErrorKey } from '../api/auth-actions';
import { authSettingsQuery } from '../api/settings';

import { ProviderButtons } from './provider-buttons';
import { RecoveryCodeForm } from './recovery-code-form';

export type AuthMode = 'login' | 'register' | 'forgot' | 'magic';

/** The browser's own validity messages are in the browser's language; ours follow the app's. */
function useValidityMessages() {
  const { t } = useTranslation();
  return {
    email: (input: HTMLInputElement) =>
      input.validity.valueMissing
        ? t('auth.validation.emailRequired')
        : input.validity.typeMismatch
          ? t('auth.validation.emailInvalid')
          : '',
    password: (input: HTMLInputElement) =>
      input.value === ''
        ? t('auth.validation.passwordRequired')
        : input.value.length < MIN_PASSWORD_LENGTH
          ? t('auth.validation.passwordTooShort', { count: MIN_PASSWORD_LENGTH })
          : '',
  };
}

export type LoginFormProps = {
  /** `forgot` opens on the "send me a link" form (the reset-password page when signed out). */
  initialMode?: AuthMode;
  /** An error brought back in the URL (provider sign-in, e-mail link), shown until the mode changes. */
  redirectError?: AuthErrorKey | null;
  onDismissRedirectError?: () => void;
};

/**
 * The combined login / register form, with "forgot password" and the
 * third-party providers the server offers. Errors from the server appear in a
 * red banner (role="alert") above the form; switching mode clears them.
 */
export function LoginForm({ initialMode = 'login', redirectError = null, onDismissRedirectError }: LoginFormProps) {
  const { t } = useTranslation();
  const ids = { email: useId(), password: useId(), hint: useId(), title: useId() };
  const messages = useValidityMessages();
  const settings = useQuery(authSettingsQuery());
  // `recoveryCode`: the recovery mail is asked for, its code is typed next (never a starting mode).
  const [mode, setMode] = useState<AuthMode | 'recoveryCode'>(initialMode);
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<AuthErrorKey | null>(null);
  const [notice, setNotice] = useState<'confirmEmail' | 'magicSent' | null>(null);
  const [pending, setPending] = useState(false);
  const sessionEnded = useSessionEnded();

  const changeMode = (next: AuthMode) => {
    setMode(next);
    setError(null);
    setNotice(null);
    onDismissRedirectError?.();
  };
  const toggleMode = () => changeMode(mode === 'login' ? 'register' : 'login');

  // Custom messages are set only while a field is reported invalid, and
  // cleared on the next edit, so they never block a corrected value.
  const onInvalid = (field: 'email' | 'password') => (event: InvalidEvent<HTMLInputElement>) => {
    event.currentTarget.setCustomValidity(messages[field](event.currentTarget));
  };
  const onChange = (set: (value: string) => void) => (event: ChangeEvent<HTMLInputElement>) => {
    event.currentTarget.setCustomValidity('');
    set(event.currentTarget.value);
  };

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const form = event.currentTarget;
    // Re-check here too: `minlength` only applies to values typed by the user,
    // and a form can be submitted without the browser's interactive validation.
    const passwordInput = form.elements.namedItem('password');
    if (passwordInput instanceof HTMLInputElement) passwordInput.setCustomValidity(messages.password(passwordInput));
    if (!form.checkValidity()) {
      form.reportValidity();
      return;
    }

    setPending(true);
    setError(null);
    setNotice(null);
    onDismissRedirectError?.();
    if (mode === 'forgot' || mode === 'magic') {
      const outcome = mode === 'forgot' ? await requestPasswordReset(email.trim()) : await requestMagicLink(email.trim());
      setPending(false);
      if (!outcome.ok) setError(outcome.error);
      // The recovery mail carries a code too: the next screen takes it.
      else if (mode === 'forgot') setMode('recoveryCode');
      else setNotice('magicSent');
      return;
    }
    const credentials = { email: email.trim(), password };
    const outcome = mode === 'login' ? await signIn(credentials) : await signUp(credentials);
    setPending(false);
    if (!outcome.ok) {
      setError(outcome.error);
    } else if (outcome.needsConfirmation) {
      setMode('login');
      setNotice('confirmEmail');
    }
    // On success the session arrives through onAuthStateChange and the app replaces this screen.
  };

  if (mode === 'recoveryCode') {
    return <RecoveryCodeForm email={email.trim()} onChangeAddress={() => changeMode('forgot')} onBack={() => changeMode('login')} />;
  }

  const isLogin = mode === 'login';
  const isMagic = mode === 'magic';
  // The modes that ask for an e-mail address only and send a link.
  const isForgot = mode === 'forgot' || isMagic;
  const signupDisabled = settings.data?.disable_signup === true;
  const title = isMagic ? t('auth.magic.title') : isForgot ? t('auth.forgot.title') : isLogin ? t('auth.loginTitle') : t('auth.registerTitle');
  const intro = isMagic ? t('auth.magic.intro') : isForgot ? t('auth.forgot.intro') : isLogin ? t('auth.loginIntro') : t('auth.registerIntro');
  const submitLabel = isMagic ? t('auth.magic.submit') : isForgot ? t('auth.forgot.submit') : isLogin ? t('auth.submitLogin') : t('auth.submitRegister');
  const shownError = error ?? redirectError;

  return (
    <div className="auth-form" data-testid="auth-form" data-mode={mode}>
      <h1 id={ids.title} className="auth-form__title">
        {title}
      </h1>
      <p className="auth-form__intro">{intro}</p>

      {sessionEnded ? (
        <Banner variant="info" data-testid="session-ended">
          {t('auth.sessionEnded')}
          {sessionEnded.interruptedUploads > 0 ? ` ${t('auth.uploadsInterrupted', { count: sessionEnded.interruptedUploads })}` : null}
        </Banner>
      ) : null}
      {shownError ? (
        <Banner variant="error" data-testid="auth-error">
          {t(shownError)}
        </Banner>
      ) : null}
      {notice ? (
        <Banner variant="info" data-testid="auth-notice">
          {notice === 'confirmEmail' ? t('auth.confirmEmail') : t('auth.magic.sent')}
        </Banner>
      ) : null}

      <form
        aria-labelledby={ids.title}
        className="auth-form__form"
        onSubmit={(event) => void onSubmit(event)}
        data-testid="auth-form-element"
      >
        <div className="field">
          <Label htmlFor={ids.email}>{t('auth.email')}</Label>
          <Input
            id={ids.email}
            name="email"
            type="email"
            autoComplete="email"
            required
            value={email}
            onChange={onChange(setEmail)}
            onInvalid={onInvalid('email')}
          />
        </div>
        {isForgot ? null : (
          <div className="field">
            <Label htmlFor={ids.password}>{t('auth.password')}</Label>
            <Input
              id={ids.password}
              name="password"
              type="password"
              autoComplete={isLogin ? 'current-password' : 'new-password'}
              required
              minLength={MIN_PASSWORD_LENGTH}
              aria-describedby={isLogin ? undefined : ids.hint}
              value={password}
              onChange={onChange(setPassword)}
              onInvalid={onInvalid('password')}
            />
            <div className="field__hint-row">
              {isLogin ? null : (
                <p id={ids.hint} className="field__hint">
                  {t('auth.passwordHint')}
                </p>
              )}
              {isLogin ? (
                <Button variant="link" className="auth-form__forgot" onClick={() => changeMode('forgot')} data-testid="forgot-password">
                  {t('auth.forgot.link')}
                </Button>
              ) : null}
            </div>
          </div>
        )}
        <Button type="submit" className="auth-form__submit" disabled={pending} aria-busy={pending} data-testid="auth-submit">
          {pending ? t('auth.submitting') : submitLabel}
        </Button>
      </form>

      {isForgot ? (
        <p className="auth-form__switch">
          <Button variant="link" onClick={() => changeMode('login')} data-testid="back-to-login">
            {isMagic ? t('auth.magic.back') : t('auth.forgot.back')}
          </Button>
        </p>
      ) : (
        <>
          {isLogin ? (
            <p className="auth-form__switch">
              <Button variant="link" onClick={() => changeMode('magic')} data-testid="magic-link">
                {t('auth.magic.link')}
              </Button>
            </p>
          ) : null}
          <ProviderButtons settings={settings.data} onError={setError} />
          {signupDisabled && isLogin ? null : (
            <p className="auth-form__switch">
              <span>{isLogin ? t('auth.noAccount') : t('auth.haveAccount')}</span>{' '}
              <Button variant="link" onClick={toggleMode} data-testid="auth-mode-toggle">
                {isLogin ? t('auth.switchToRegister') : t('auth.switchToLogin')}
              </Button>
            </p>
          )}
        </>
      )}
    </div>
  );
}
