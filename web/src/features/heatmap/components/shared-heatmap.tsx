import { useQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';

import { Spinner } from '@/components/ui/spinner';
import { apiErrorKey, isApiError } from '@/lib/api';
import { formatDate, formatDateTime } from '@/lib/dates';

import { itemOf } from '../api/benchmarks';
import { sharedHeatmapQueryOptions } from '../api/heatmaps';

import { HeatmapItemView } from './heatmap-item-view';

/**
 * What a share link opens, without an account: the heatmap's name, how long
 * the link lasts, and every image's result read-only (areas listed, nothing
 * to draw, rename, copy or retry).
 */
export function SharedHeatmap({ token }: { token: string }) {
  const { t, i18n } = useTranslation();
  const query = useQuery(sharedHeatmapQueryOptions(token));
  const language = i18n.language;

  if (query.isPending) return <Spinner />;
  if (query.isError) {
    const notFound = isApiError(query.error) && query.error.code === 'not_found';
    return (
      <p className="hm-notice" role="alert" data-testid="shared-error">
        {notFound ? t('shared.notFound') : t(apiErrorKey(query.error))}
      </p>
    );
  }
  const { heatmap, benchmarks, expires_at } = query.data;
  const items = [...heatmap.items].sort((a, b) => a.position - b.position);
  return (
    <section className="content">
      <header className="content__header">
        <h1 className="content__title">{heatmap.name}</h1>
      </header>
      <p className="hm-notice" data-testid="shared-notice">
        {t('shared.readOnly', { date: formatDate(new Date(expires_at), language) })}
      </p>
      <p className="field__hint">{t('shared.created', { date: formatDateTime(heatmap.created_at, language) })}</p>
      <div className="hm-items" aria-label={t('heatmap.results.itemsLabel')} role="group">
        {items.map((item) => (
          <HeatmapItemView key={item.id} item={item} heatmapId={heatmap.id} readOnly sharedBenchmarks={itemOf(benchmarks, item.id)} />
        ))}
      </div>
    </section>
  );
}
