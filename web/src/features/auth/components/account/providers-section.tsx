import { useId } from 'react';
import { useTranslation } from 'react-i18next';

import type { User } from '@/lib/auth';

import { providerLabel } from '../../api/settings';

/** The sign-in methods linked to the account (`user.identities`): provider and its e-mail. */
export function ProvidersSection({ user }: { user: User }) {
  const { t } = useTranslation();
  const titleId = useId();
  const identities = user.identities ?? [];
  return (
    <section className="panel account-section" aria-labelledby={titleId} data-testid="account-providers">
      <h2 id={titleId} className="panel__title">
        {t('account.providers.title')}
      </h2>
      {identities.length === 0 ? (
        <p className="account-section__muted">{t('account.providers.none')}</p>
      ) : (
        <ul className="account-list">
          {identities.map((identity) => {
            const email = typeof identity.identity_data?.email === 'string' ? identity.identity_data.email : null;
            return (
              <li key={identity.identity_id ?? identity.id} className="account-list__item account-list__item--stacked">
                <span className="account-list__name">
                  {identity.provider === 'email' ? t('account.providers.password') : providerLabel(identity.provider)}
                </span>
                {email ? <span className="account-list__meta">{email}</span> : null}
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
