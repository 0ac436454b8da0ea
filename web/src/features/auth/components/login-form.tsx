import { useId, useState, type ChangeEvent, type FormEvent, type InvalidEvent } from 'react';
import { useTranslation } from 'react-i18next';

import { Banner } from '@/components/ui/banner';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { MIN_PASSWORD_LENGTH } from '@/config/constants';
import { useSessionEnded } from '@/lib/session';

import { signIn, signUp, type AuthErrorKey } from '../api/auth-actions';

export type AuthMode = 'login' | 'register';

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

/**
 * The combined login / register form. Errors from the server appear in a red
 * banner (role="alert") above the form; switching mode clears them.
 */
export function LoginForm() {
  const { t } = useTranslation();
  const ids = { email: useId(), password: useId(), hint: useId(), title: useId() };
  const messages = useValidityMessages();
  const [mode, setMode] = useState<AuthMode>('login');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [error, setError] = useState<AuthErrorKey | null>(null);
  const [confirmationSent, setConfirmationSent] = useState(false);
  const [pending, setPending] = useState(false);
  const sessionEnded = useSessionEnded();

  const toggleMode = () => {
    setMode((current) => (current === 'login' ? 'register' : 'login'));
    setError(null);
    setConfirmationSent(false);
  };

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
    setConfirmationSent(false);
    const credentials = { email: email.trim(), password };
    const outcome = mode === 'login' ? await signIn(credentials) : await signUp(credentials);
    setPending(false);
    if (!outcome.ok) {
      setError(outcome.error);
    } else if (outcome.needsConfirmation) {
      setMode('login');
      setConfirmationSent(true);
    }
    // On success the session arrives through onAuthStateChange and the app replaces this screen.
  };

  const isLogin = mode === 'login';
  return (
    <div className="auth-form" data-testid="auth-form" data-mode={mode}>
      <h1 id={ids.title} className="auth-form__title">
        {isLogin ? t('auth.loginTitle') : t('auth.registerTitle')}
      </h1>
      <p className="auth-form__intro">{isLogin ? t('auth.loginIntro') : t('auth.registerIntro')}</p>

      {sessionEnded ? (
        <Banner variant="info" data-testid="session-ended">
          {t('auth.sessionEnded')}
          {sessionEnded.interruptedUploads > 0 ? ` ${t('auth.uploadsInterrupted', { count: sessionEnded.interruptedUploads })}` : null}
        </Banner>
      ) : null}
      {error ? (
        <Banner variant="error" data-testid="auth-error">
          {t(error)}
        </Banner>
      ) : null}
      {confirmationSent ? (
        <Banner variant="info" data-testid="auth-notice">
          {t('auth.confirmEmail')}
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
        <div className="field">
          <Label htmlFor={ids.password}>{t('auth.password')}</Label>
          <Input
            id={ids.password}
            name="password"
            type="password"
            autoComplete={isLogin ? 'current-password' : 'new-password'}
            required
            minLength={MIN_PASSWORD_LENGTH}
            aria-describedby={ids.hint}
            value={password}
            onChange={onChange(setPassword)}
            onInvalid={onInvalid('password')}
          />
          <p id={ids.hint} className="field__hint">
            {t('auth.passwordHint')}
          </p>
        </div>
        <Button type="submit" className="auth-form__submit" disabled={pending} aria-busy={pending} data-testid="auth-submit">
          {pending ? t('auth.submitting') : isLogin ? t('auth.submitLogin') : t('auth.submitRegister')}
        </Button>
      </form>

      <p className="auth-form__switch">
        <span>{isLogin ? t('auth.noAccount') : t('auth.haveAccount')}</span>{' '}
        <Button variant="link" onClick={toggleMode} data-testid="auth-mode-toggle">
          {isLogin ? t('auth.switchToRegister') : t('auth.switchToLogin')}
        </Button>
      </p>
    </div>
  );
}
