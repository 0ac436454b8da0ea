import { keepPreviousData, useInfiniteQuery } from '@tanstack/react-query';
import { useId, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { QueryError } from '@/components/query-error';
import { Button } from '@/components/ui/button';
import { ConfirmDialog } from '@/components/ui/dialog';
import { Select } from '@/components/ui/select';
import { Spinner } from '@/components/ui/spinner';
import { ToolbarSearch } from '@/components/ui/toolbar-search';
import { formatDateTime } from '@/lib/dates';
import { useWorkspace } from '@/lib/workspace';

import { HEATMAP_SORTS, heatmapsInfiniteQueryOptions, useDeleteHeatmap, type HeatmapSort, type HeatmapSummary } from '../api/heatmaps';
import { formatScore } from '../lib/format';
import { showsHeatmapToolbar } from '../lib/list-toolbar';

import { StatusBadge } from './status-badge';

type HeatmapListProps = {
  /** The committed search (the address's `?q=`). */
  q?: string;
  sort?: HeatmapSort;
  /** The search and order (`HeatmapToolbar`), drawn above the list unless the library is empty. */
  toolbar?: ReactNode;
  /** A search is being typed (not yet committed to `q`): the toolbar stays. */
  typing?: boolean;
  /** Empties the search (offered when it matches nothing). */
  onClearSearch?: () => void;
};

type HeatmapToolbarProps = {
  /** The search field's text as typed (the list follows it once typing pauses). */
  draft: string;
  onDraft: (value: string) => void;
  sort: HeatmapSort;
  onSort: (sort: HeatmapSort) => void;
};

/** Search by name and the order of the heatmaps list. */
export function HeatmapToolbar({ draft, onDraft, sort, onSort }: HeatmapToolbarProps) {
  const { t } = useTranslation();
  const sortId = useId();
  return (
    <div className="library-toolbar" role="search" data-testid="heatmaps-toolbar">
      <ToolbarSearch
        label={t('heatmap.list.search')}
        placeholder={t('heatmap.list.searchPlaceholder')}
        value={draft}
        onChange={onDraft}
        testId="heatmap-search"
      />
      <div className="library-toolbar__field">
        <label htmlFor={sortId} className="library-toolbar__label">
          {t('heatmap.list.sort')}
        </label>
        <Select id={sortId} value={sort} onChange={(e) => onSort(e.target.value as HeatmapSort)} data-testid="heatmap-sort">
          {HEATMAP_SORTS.map((value) => (
            <option key={value} value={value}>
              {t(`heatmap.list.sorts.${value}`)}
            </option>
          ))}
        </Select>
      </div>
    </div>
  );
}

/**
 * The user's heatmaps (newest first unless `sort` says otherwise, filtered by `q`): thumbnail,
 * name (a link to the results), date, status and score. Deleting asks for confirmation; a failed
 * deletion keeps the dialog open with "Error deleting heatmap".
 */
export function HeatmapList({ q = '', sort = 'newest', toolbar = null, typing = false, onClearSearch }: HeatmapListProps) {
  const { t, i18n } = useTranslation();
  // A new search or order keeps the last answer on screen (marked busy) until its own arrives.
  const query = useInfiniteQuery({ ...heatmapsInfiniteQueryOptions(q, sort), placeholderData: keepPreviousData });
  const remove = useDeleteHeatmap();
  const { canEdit } = useWorkspace();
  const [confirming, setConfirming] = useState<Pick<HeatmapSummary, 'id' | 'name'> | null>(null);
  const listRef = useRef<HTMLUListElement>(null);

  const heatmaps = query.data?.pages.flatMap((page) => page.items) ?? [];
  const shownToolbar = showsHeatmapToolbar({
    searching: q !== '' || typing,
    loaded: query.isSuccess,
    placeholder: query.isPlaceholderData,
    count: heatmaps.length,
  })
    ? toolbar
    : null;

  if (query.isPending) {
    return (
      <>
        {shownToolbar}
        <Spinner />
      </>
    );
  }
  if (query.isError) {
    return (
      <>
        {shownToolbar}
        <QueryError error={query.error} onRetry={() => void query.refetch()} />
      </>
    );
  }
  const language = i18n.language;

  const close = () => {
    remove.reset();
    setConfirming(null);
  };

  return (
    <>
      {shownToolbar}
      {heatmaps.length === 0 && query.isPlaceholderData ? (
        // The last answer was empty: it would say nothing true about the next one.
        <Spinner />
      ) : heatmaps.length === 0 && q ? (
        <div className="empty-state" role="status" data-testid="heatmaps-no-match">
          <p>{t('heatmap.list.noMatch', { q })}</p>
          {onClearSearch ? (
            <Button variant="secondary" size="sm" onClick={onClearSearch}>
              {t('heatmap.list.clearSearch')}
            </Button>
          ) : null}
        </div>
      ) : heatmaps.length === 0 ? (
        <p className="empty-state" data-testid="heatmaps-empty">
          {t('heatmap.list.empty')}
        </p>
      ) : (
        <ul
          ref={listRef}
          className="media-grid hm-list"
          aria-label={t('heatmap.list.label')}
          aria-busy={query.isPlaceholderData}
          tabIndex={-1}
          data-testid="heatmap-list"
        >
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
                {canEdit ? (
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
                ) : null}
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
