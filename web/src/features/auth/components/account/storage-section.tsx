import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { useTranslation } from 'react-i18next';

import { QueryError } from '@/components/query-error';
import { Spinner } from '@/components/ui/spinner';

import { formatBytes, usageQuery } from '../../api/usage';

/** "Storage": what the user's images take, against their quota when there is one. */
export function StorageSection() {
  const { t, i18n } = useTranslation();
  const titleId = useId();
  const usage = useQuery(usageQuery());
  const language = i18n.language;

  let body;
  if (usage.isPending) body = <Spinner label={t('app.loading')} />;
  else if (usage.isError) body = <QueryError error={usage.error} onRetry={() => void usage.refetch()} />;
  else {
    const { used_bytes, limit_bytes, media_count } = usage.data;
    const used = formatBytes(used_bytes, language);
    const percent = limit_bytes ? Math.min(100, Math.round((used_bytes / limit_bytes) * 100)) : 0;
    body = (
      <>
        <p data-testid="storage-used">
          {limit_bytes
            ? t('account.storage.usedOf', { used, limit: formatBytes(limit_bytes, language), count: media_count })
            : t('account.storage.used', { used, count: media_count })}
        </p>
        {limit_bytes ? (
          <progress
            className="account-storage__bar"
            max={100}
            value={percent}
            aria-label={t('account.storage.barLabel', { percent })}
          />
        ) : null}
        <p className="account-section__muted">{limit_bytes ? t('account.storage.hint') : t('account.storage.noLimit')}</p>
      </>
    );
  }

  return (
    <section className="panel account-section" aria-labelledby={titleId} data-testid="account-storage">
      <h2 id={titleId} className="panel__title">
        {t('account.storage.title')}
      </h2>
      {body}
    </section>
  );
}
