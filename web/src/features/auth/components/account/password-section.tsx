import { useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';

import { Banner } from '@/components/ui/banner';
import { Button } from '@/components/ui/button';
import { MIN_PASSWORD_LENGTH } from '@/config/constants';

import { updatePassword, type AuthErrorKey } from '../../api/auth-actions';
import { checkNewPassword } from '../new-password-check';
import { NewPasswordFields } from '../new-password-fields';

/** Changing the password (new one twice). */
export function PasswordSection() {
  const { t } = useTranslation();
  const titleId = useId();
  const [password, setPassword] = useState('');
  const [formKey, setFormKey] = useState(0);
  const [error, setError] = useState<AuthErrorKey | null>(null);
  const [done, setDone] = useState(false);
  const [pending, setPending] = useState(false);

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setDone(false);
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
    if (!outcome.ok) {
      setError(outcome.error);
      return;
    }
    setDone(true);
    setPassword('');
    setFormKey((key) => key + 1); // empties the confirmation field too
  };

  return (
    <section className="panel account-section" aria-labelledby={titleId} data-testid="account-password">
      <h2 id={titleId} className="panel__title">
        {t('account.password.title')}
      </h2>
      {done ? <Banner variant="info">{t('account.password.changed')}</Banner> : null}
      {error ? <Banner variant="error">{t(error)}</Banner> : null}
      <form key={formKey} aria-labelledby={titleId} onSubmit={(event) => void onSubmit(event)} className="account-form">
        <NewPasswordFields value={password} onChange={setPassword} />
        <Button type="submit" disabled={pending} aria-busy={pending} data-testid="change-password">
          {pending ? t('common.saving') : t('account.password.submit')}
        </Button>
      </form>
    </section>
  );
}
