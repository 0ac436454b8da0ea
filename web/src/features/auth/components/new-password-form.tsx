import { useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';

import { Banner } from '@/components/ui/banner';
import { Button } from '@/components/ui/button';
import { MIN_PASSWORD_LENGTH } from '@/config/constants';

import { updatePassword, type AuthErrorKey } from '../api/auth-actions';

import { checkNewPassword } from './new-password-check';
import { NewPasswordFields } from './new-password-fields';

/**
 * "Choose a new password", after a recovery link signed the user in. On
 * success `onDone` takes the user into the app.
 */
export function NewPasswordForm({ onDone, onCancel }: { onDone: () => void; onCancel: () => void }) {
  const { t } = useTranslation();
  const titleId = useId();
  const [password, setPassword] = useState('');
  const [error, setError] = useState<AuthErrorKey | null>(null);
  const [pending, setPending] = useState(false);

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const ok = checkNewPassword(
      event.currentTarget,
      t('auth.validation.passwordTooShort', { count: MIN_PASSWORD_LENGTH }),
      t('auth.validation.passwordsDiffer'),
    );
    if (!ok) return;
    setPending(true);
    setError(null);
    const outcome = await updatePassword(password);
    setPending(false);
    if (outcome.ok) onDone();
    else setError(outcome.error);
  };

  return (
    <div className="auth-form" data-testid="new-password">
      <h1 id={titleId} className="auth-form__title">
        {t('auth.reset.title')}
      </h1>
      <p className="auth-form__intro">{t('auth.reset.intro')}</p>
      {error ? (
        <Banner variant="error" data-testid="auth-error">
          {t(error)}
        </Banner>
      ) : null}
      <form aria-labelledby={titleId} onSubmit={(event) => void onSubmit(event)}>
        <NewPasswordFields value={password} onChange={setPassword} />
        <Button type="submit" className="auth-form__submit" disabled={pending} aria-busy={pending} data-testid="new-password-submit">
          {pending ? t('auth.submitting') : t('auth.reset.submit')}
        </Button>
      </form>
      <p className="auth-form__switch">
        <Button variant="link" onClick={onCancel}>
          {t('auth.reset.cancel')}
        </Button>
      </p>
    </div>
  );
}
