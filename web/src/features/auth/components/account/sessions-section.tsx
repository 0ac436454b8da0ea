import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { Banner } from '@/components/ui/banner';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/dialog';

import { signOutOthers, type AuthErrorKey } from '../../api/auth-actions';

/** "Sign out of other sessions": every other device and browser, this one stays signed in. */
export function SessionsSection() {
  const { t } = useTranslation();
  const titleId = useId();
  const [confirming, setConfirming] = useState(false);
  const [pending, setPending] = useState(false);
  const [done, setDone] = useState(false);
  const [error, setError] = useState<AuthErrorKey | null>(null);

  const confirm = async () => {
    setPending(true);
    setError(null);
    const outcome = await signOutOthers();
    setPending(false);
    if (!outcome.ok) {
      setError(outcome.error);
      return;
    }
    setConfirming(false);
    setDone(true);
  };

  return (
    <section className="panel account-section" aria-labelledby={titleId} data-testid="account-sessions">
      <h2 id={titleId} className="panel__title">
        {t('account.sessions.title')}
      </h2>
      <p className="account-section__muted">{t('account.sessions.intro')}</p>
      {done ? (
        <Banner variant="info" data-testid="others-signed-out">
          {t('account.sessions.done')}
        </Banner>
      ) : null}
      <Button
        variant="secondary"
        onClick={() => {
          setDone(false);
          setConfirming(true);
        }}
        data-testid="sign-out-others"
      >
        {t('account.sessions.signOutOthers')}
      </Button>
      {confirming ? (
        <ConfirmDialog
          title={t('account.sessions.confirmTitle')}
          confirmLabel={t('account.sessions.confirm')}
          busyLabel={t('auth.submitting')}
          busy={pending}
          error={error ? t(error) : null}
          onConfirm={() => void confirm()}
          onCancel={() => {
            setConfirming(false);
            setError(null);
          }}
        >
          <p>{t('account.sessions.confirmBody')}</p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}
