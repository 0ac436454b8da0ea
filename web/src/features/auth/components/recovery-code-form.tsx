import { useId, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';

import { Banner } from '@/components/ui/banner';
import { Button } from '@/components/ui/button';
import { Label } from '@/components/ui/label';
import { MAIL_RESEND_SECONDS } from '@/config/constants';
import { useCooldown } from '@/lib/use-cooldown';

import { requestPasswordReset, verifyRecoveryCode, type AuthErrorKey } from '../api/auth-actions';

import { CodeInput } from './code-input';

type Message = { kind: 'error'; key: AuthErrorKey } | { kind: 'info'; key: 'auth.recoveryCode.resent' };

export type RecoveryCodeFormProps = {
  /** The address the recovery mail was asked for (the previous step). */
  email: string;
  /** Back to the "forgot password" form, the address kept, to correct it. */
  onChangeAddress: () => void;
  /** Back to the login form. */
  onBack: () => void;
};

/**
 * "Enter the code from the email", right after asking for a recovery mail: the mail carries a
 * link and the same token as a 6-digit code. A right code signs the user in for recovery
 * (auth-js announces PASSWORD_RECOVERY, as after the link) and the app asks for a new password.
 * The mail can be sent again once the server would send one (a new mail's code replaces the
 * previous one).
 */
export function RecoveryCodeForm({ email, onChangeAddress, onBack }: RecoveryCodeFormProps) {
  const { t } = useTranslation();
  const ids = { title: useId(), code: useId(), hint: useId() };
  const [code, setCode] = useState('');
  const [message, setMessage] = useState<Message | null>(null);
  const [pending, setPending] = useState(false);
  const [resending, setResending] = useState(false);
  const codeRef = useRef<HTMLInputElement>(null);
  // The mail was sent just before this screen opened.
  const cooldown = useCooldown(MAIL_RESEND_SECONDS, true);

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    if (pending) return;
    setPending(true);
    setMessage(null);
    const outcome = await verifyRecoveryCode(email, code);
    // On success the recovery session arrives through onAuthStateChange and the app replaces this screen.
    if (outcome.ok) return;
    setPending(false);
    setCode('');
    setMessage({ kind: 'error', key: outcome.error });
    // The button pressed was disabled meanwhile: the focus goes back to the field, for the next try.
    codeRef.current?.focus();
  };

  const resend = async () => {
    setResending(true);
    setMessage(null);
    const outcome = await requestPasswordReset(email);
    setResending(false);
    if (!outcome.ok) {
      setMessage({ kind: 'error', key: outcome.error });
      return;
    }
    setCode('');
    setMessage({ kind: 'info', key: 'auth.recoveryCode.resent' });
    cooldown.start();
    codeRef.current?.focus();
  };

  return (
    <div className="auth-form" data-testid="recovery-code">
      <h1 id={ids.title} className="auth-form__title">
        {t('auth.recoveryCode.title')}
      </h1>
      <p className="auth-form__intro" data-testid="recovery-code-intro">
        {t('auth.recoveryCode.intro', { email })}
      </p>

      {message ? (
        <Banner variant={message.kind} data-testid={message.kind === 'error' ? 'auth-error' : 'auth-notice'}>
          {t(message.key)}
        </Banner>
      ) : null}

      <form aria-labelledby={ids.title} onSubmit={(event) => void onSubmit(event)}>
        <div className="field">
          <Label htmlFor={ids.code}>{t('auth.recoveryCode.code')}</Label>
          <CodeInput
            ref={codeRef}
            id={ids.code}
            value={code}
            onChange={setCode}
            autoFocus
            describedBy={ids.hint}
            invalidMessage={t('auth.recoveryCode.invalidFormat')}
            testId="recovery-code-input"
          />
          <p id={ids.hint} className="field__hint">
            {t('auth.recoveryCode.hint')}
          </p>
        </div>
        <Button type="submit" className="auth-form__submit" disabled={pending} aria-busy={pending} data-testid="recovery-code-submit">
          {pending ? t('auth.submitting') : t('auth.recoveryCode.submit')}
        </Button>
      </form>

      <p className="auth-form__switch auth-form__actions">
        <Button
          variant="link"
          onClick={() => void resend()}
          disabled={resending || cooldown.left > 0}
          aria-busy={resending}
          data-testid="recovery-code-resend"
        >
          {cooldown.left > 0 ? t('auth.recoveryCode.resendIn', { count: cooldown.left }) : t('auth.recoveryCode.resend')}
        </Button>
        <Button variant="link" onClick={onChangeAddress} data-testid="recovery-code-change-address">
          {t('auth.recoveryCode.changeAddress')}
        </Button>
        <Button variant="link" onClick={onBack} data-testid="back-to-login">
          {t('auth.forgot.back')}
        </Button>
      </p>
    </div>
  );
}
