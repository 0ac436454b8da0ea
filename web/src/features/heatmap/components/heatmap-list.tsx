import { useInfiniteQuery } from '@tanstack/react-query';
import { useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { QueryError } from '@/components/query-error';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/dialog';
import { Spinner } from '@/components/ui/spinner';
import { formatDateTime } from '@/lib/dates';

import { heatmapsInfiniteQueryOptions, useDeleteHeatmap, type HeatmapSummary } from '../api/heatmaps';
import { formatScore } from '../lib/format';

import { StatusBadge } from './status-badge';

/**
 * The user's heatmaps, newest first: thumbnail, name (a link to the
 * results), date, status and score. Deleting asks for confirmation; a failed
 * deletion keeps the dialog open with "Error deleting heatmap".
 */
export function HeatmapList() {
  const { t, i18n } = useTranslation();
  const query = useInfiniteQuery(heatmapsInfiniteQueryOptions());
  const remove = useDeleteHeatmap();
  const [confirming, setConfirming] = useState<Pick<HeatmapSummary, 'id' | 'name'> | null>(null);
  const listRef = useRef<HTMLUListElement>(null);

  if (query.isPending) return <Spinner />;
  if (query.isError) {
    return <QueryError error={query.error} onRetry={() => void query.refetch()} />;
  }
  const heatmaps = query.data.pages.flatMap((page) => page.items);
  const language = i18n.language;

  const close = () => {
    remove.reset();
    setConfirming(null);
  };

  return (
    <>
      {heatmaps.length === 0 ? (
        <p className="empty-state">{t('heatmap.list.empty')}</p>
      ) : (
        <ul ref={listRef} className="media-grid hm-list" aria-label={t('heatmap.list.label')} tabIndex={-1} data-testid="heatmap-list">
          {heatmaps.map((heatmap) => (
            <li key={heatmap.id} className="media-card hm-card" data-testid="heatmap-card">
              <Link to={`/heatmap/results/${encodeURIComponent(heatmap.id)}`} className="media-card__link">
                {heatmap.thumbnail ? (
                  <img className="media-card__image" src={heatmap.thumbnail} alt="" loading="lazy" />
                ) : (
                  <span className="media-card__placeholder" aria-hidden="true" />
                )}
                <span className="media-card__name">{heatmap.name}</span>
              </Link>
              <span className="media-card__meta">{t('heatmap.list.created', { date: formatDateTime(heatmap.created_at, language) })}</span>
              <div className="hm-card__row">
                <StatusBadge status={heatmap.status} />
                <span className="hm-card__score" data-testid="heatmap-score">
                  {heatmap.best_score == null
                    ? t('heatmap.list.noScore')
                    : heatmap.item_count > 1
                      ? t('heatmap.list.bestScore', { score: formatScore(heatmap.best_score, language) })
                      : t('heatmap.list.score', { score: formatScore(heatmap.best_score, language) })}
                </span>
              </div>
              <div className="hm-card__row">
                <span className="media-card__meta">{t('heatmap.list.images', { count: heatmap.item_count })}</span>
                <Button
                  variant="ghost"
                  size="sm"
                  aria-label={t('heatmap.list.deleteLabel', { name: heatmap.name })}
                  onClick={() => {
                    remove.reset();
                    setConfirming(heatmap);
                  }}
                  data-testid="delete-heatmap"
                >
                  {t('heatmap.list.delete')}
                </Button>
              </div>
            </li>
          ))}
        </ul>
      )}
      {query.hasNextPage ? (
        <Button variant="secondary" onClick={() => void query.fetchNextPage()} disabled={query.isFetchingNextPage}>
          {t('common.loadMore')}
        </Button>
      ) : null}
      {confirming ? (
        <ConfirmDialog
          title={t('heatmap.list.deleteTitle')}
          confirmLabel={t('common.delete')}
          busy={remove.isPending}
          error={remove.isError ? t('heatmap.list.deleteError') : null}
          onCancel={close}
          onConfirm={() =>
            remove.mutate(confirming.id, {
              onSuccess: () => {
                setConfirming(null);
                // The focused delete button is gone with its card: keep keyboard users in the list.
                requestAnimationFrame(() => listRef.current?.focus());
              },
            })
          }
        >
          <p>{t('heatmap.list.deleteBody', { name: confirming.name })}</p>
        </ConfirmDialog>
      ) : null}
    </>
  );
}
