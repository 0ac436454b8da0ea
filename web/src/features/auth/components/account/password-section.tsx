import { useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';

import { Banner } from '@/components/ui/banner';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import { MIN_PASSWORD_LENGTH } from '@/config/constants';
import type { User } from '@/lib/auth';

import { updatePassword, type AuthErrorKey } from '../../api/auth-actions';
import { hasPassword } from '../../api/security';
import { checkNewPassword } from '../new-password-check';
import { NewPasswordFields } from '../new-password-fields';

/**
 * Changing the password: the current one (so that a session left open cannot lock its owner out;
 * the server asks for it), then the new one twice.
 */
export function PasswordSection({ user }: { user: User }) {
  const { t } = useTranslation();
  const titleId = useId();
  const currentId = useId();
  const needsCurrent = hasPassword(user);
  const [current, setCurrent] = useState('');
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
    const outcome = await updatePassword(password, needsCurrent ? current : undefined);
    setPending(false);
    if (!outcome.ok) {
      setError(outcome.error);
      return;
    }
    setDone(true);
    setCurrent('');
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
        {needsCurrent ? (
          <div className="field">
            <Label htmlFor={currentId}>{t('account.password.current')}</Label>
            <Input
              id={currentId}
              name="current-password"
              type="password"
              autoComplete="current-password"
              required
              value={current}
              onChange={(event) => {
                event.currentTarget.setCustomValidity('');
                setCurrent(event.currentTarget.value);
              }}
              onInvalid={(event) => event.currentTarget.setCustomValidity(t('auth.errors.currentPasswordRequired'))}
              data-testid="current-password"
            />
          </div>
        ) : null}
        <NewPasswordFields value={password} onChange={setPassword} />
        <Button type="submit" disabled={pending} aria-busy={pending} data-testid="change-password">
          {pending ? t('common.saving') : t('account.password.submit')}
        </Button>
      </form>
    </section>
  );
}
