import { useQueryClient } from '@tanstack/react-query';
import { useId, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';

import { Banner } from '@/components/ui/banner';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { Label } from '@/components/ui/label';
import type { User } from '@/lib/auth';

import { updateEmail, type AuthErrorKey } from '../../api/auth-actions';
import { accountKeys } from '../../api/mfa';

/** The e-mail address, and changing it: the server mails a confirmation link to the new address. */
export function EmailSection({ user }: { user: User }) {
  const { t } = useTranslation();
  const queryClient = useQueryClient();
  const ids = { title: useId(), email: useId() };
  const [editing, setEditing] = useState(false);
  const [email, setEmail] = useState('');
  const [error, setError] = useState<AuthErrorKey | null>(null);
  const [sentTo, setSentTo] = useState<string | null>(null);
  const [pending, setPending] = useState(false);

  const onSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const next = email.trim();
    if (next.toLowerCase() === (user.email ?? '').toLowerCase()) {
      setError('auth.errors.sameEmail');
      return;
    }
    setPending(true);
    setError(null);
    const outcome = await updateEmail(next);
    setPending(false);
    if (!outcome.ok) {
      setError(outcome.error);
      return;
    }
    setSentTo(next);
    setEditing(false);
    setEmail('');
    void queryClient.invalidateQueries({ queryKey: accountKeys.user });
  };

  const pendingEmail = sentTo ?? user.new_email ?? null;
  return (
    <section className="panel account-section" aria-labelledby={ids.title} data-testid="account-email">
      <h2 id={ids.title} className="panel__title">
        {t('account.email.title')}
      </h2>
      <p className="account-section__value" data-testid="account-email-value">
        {user.email}
      </p>
      {pendingEmail ? (
        <Banner variant="info" data-testid="email-pending">
          {t('account.email.checkInbox', { email: pendingEmail })}
        </Banner>
      ) : null}
      {error ? <Banner variant="error">{t(error)}</Banner> : null}
      {editing ? (
        <form aria-labelledby={ids.title} onSubmit={(event) => void onSubmit(event)} className="account-form">
          <div className="field">
            <Label htmlFor={ids.email}>{t('account.email.newLabel')}</Label>
            <Input
              id={ids.email}
              type="email"
              autoComplete="email"
              required
              value={email}
              onChange={(event) => setEmail(event.currentTarget.value)}
            />
          </div>
          <div className="form-actions">
            <Button type="submit" disabled={pending} aria-busy={pending}>
              {pending ? t('common.saving') : t('account.email.submit')}
            </Button>
            <Button
              variant="secondary"
              onClick={() => {
                setEditing(false);
                setError(null);
              }}
            >
              {t('common.cancel')}
            </Button>
          </div>
        </form>
      ) : (
        <Button variant="secondary" onClick={() => setEditing(true)} data-testid="change-email">
          {t('account.email.change')}
        </Button>
      )}
    </section>
  );
}
