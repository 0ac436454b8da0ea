import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { QueryError } from '@/components/query-error';
import { Banner } from '@/components/ui/banner';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/dialog';
import { Spinner } from '@/components/ui/spinner';
import { isApiError } from '@/lib/api';
import { formatDateTime } from '@/lib/dates';
import { errorMessage } from '@/lib/error-message';

import { signOutOthers, type AuthErrorKey } from '../../api/auth-actions';
import { describeDevice, endSession, securityKeys, sessionsQuery, type AccountSession } from '../../api/security';

/**
 * The devices signed in to the account, the most recently used first, with their browser, system,
 * address and last activity: each other one can be signed out, or all of them at once. This one
 * stays (the navigation's sign-out ends it).
 */
export function SessionsSection() {
  const { t, i18n } = useTranslation();
  const titleId = useId();
  const queryClient = useQueryClient();
  const sessions = useQuery(sessionsQuery());
  const [ending, setEnding] = useState<AccountSession | 'others' | null>(null);
  const [pending, setPending] = useState(false);
  const [done, setDone] = useState<'others' | 'one' | null>(null);
  const [error, setError] = useState<string | null>(null);
  const language = i18n.resolvedLanguage ?? i18n.language;

  const deviceName = (session: AccountSession) => {
    const device = describeDevice(session.user_agent);
    if (device.browser && device.os) return t('account.sessions.deviceOn', { browser: device.browser, os: device.os });
    return device.browser ?? device.os ?? t('account.sessions.unknownDevice');
  };

  const confirm = async () => {
    if (!ending) return;
    setPending(true);
    setError(null);
    if (ending === 'others') {
      const outcome = await signOutOthers();
      setPending(false);
      if (!outcome.ok) {
        setError(t(outcome.error satisfies AuthErrorKey));
        return;
      }
    } else {
      try {
        await endSession(ending.id);
      } catch (failure) {
        setPending(false);
        // Already gone (signed out meanwhile): the list is refreshed below all the same.
        if (!(isApiError(failure) && failure.code === 'not_found')) {
          setError(errorMessage(t, language, failure));
          return;
        }
      }
      setPending(false);
    }
    setDone(ending === 'others' ? 'others' : 'one');
    setEnding(null);
    await queryClient.invalidateQueries({ queryKey: securityKeys.sessions });
  };

  const items = sessions.data?.items ?? [];
  const others = items.filter((session) => !session.current);
  return (
    <section className="panel account-section" aria-labelledby={titleId} data-testid="account-sessions">
      <h2 id={titleId} className="panel__title">
        {t('account.sessions.title')}
      </h2>
      <p className="account-section__muted">{t('account.sessions.intro')}</p>
      {done ? (
        <Banner variant="info" data-testid="others-signed-out">
          {done === 'others' ? t('account.sessions.done') : t('account.sessions.ended')}
        </Banner>
      ) : null}
      {sessions.isPending ? <Spinner /> : null}
      {sessions.isError ? <QueryError error={sessions.error} onRetry={() => void sessions.refetch()} /> : null}
      {items.length > 0 ? (
        <ul className="account-list" data-testid="session-list">
          {items.map((session) => {
            const name = deviceName(session);
            return (
              <li key={session.id} className="account-list__item factor-row" data-testid="session-row">
                <div className="factor-row__text">
                  <span className="account-list__name">{name}</span>
                  <span className="account-list__meta">
                    {t('account.sessions.lastUsed', { date: formatDateTime(session.last_used_at, language) })}
                    {session.ip ? ` · ${t('account.sessions.ip', { ip: session.ip })}` : ''}
                  </span>
                  <span className="account-list__meta">
                    {t('account.sessions.signedIn', { date: formatDateTime(session.created_at, language) })}
                  </span>
                </div>
                {session.current ? (
                  <span className="badge badge--ok" data-testid="session-current">
                    {t('account.sessions.thisDevice')}
                  </span>
                ) : (
                  <Button
                    variant="ghost"
                    size="sm"
                    onClick={() => {
                      setDone(null);
                      setError(null);
                      setEnding(session);
                    }}
                    aria-label={t('account.sessions.endNamed', { device: name })}
                    data-testid="end-session"
                  >
                    {t('account.sessions.end')}
                  </Button>
                )}
              </li>
            );
          })}
        </ul>
      ) : null}
      {others.length > 1 || sessions.isError ? (
        <Button
          variant="secondary"
          onClick={() => {
            setDone(null);
            setError(null);
            setEnding('others');
          }}
          data-testid="sign-out-others"
        >
          {t('account.sessions.signOutOthers')}
        </Button>
      ) : null}
      {ending ? (
        <ConfirmDialog
          title={ending === 'others' ? t('account.sessions.confirmTitle') : t('account.sessions.endTitle')}
          confirmLabel={ending === 'others' ? t('account.sessions.confirm') : t('account.sessions.end')}
          busyLabel={t('auth.submitting')}
          busy={pending}
          error={error}
          onConfirm={() => void confirm()}
          onCancel={() => {
            setEnding(null);
            setError(null);
          }}
        >
          <p>
            {ending === 'others' ? t('account.sessions.confirmBody') : t('account.sessions.endBody', { device: deviceName(ending) })}
          </p>
        </ConfirmDialog>
      ) : null}
    </section>
  );
}
