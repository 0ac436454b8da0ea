import { keepPreviousData, useInfiniteQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { QueryError } from '@/components/query-error';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';

import { locationsQueryOptions, type LocationFilters } from '../api/locations';

export type LocationsListProps = {
  filters: LocationFilters;
  onClear: () => void;
  /** The locations chosen for a plan (editors only; absent: no checkboxes). */
  selected?: readonly string[];
  onToggle?: (id: string) => void;
};

/**
 * The user's locations matching the search (accent-insensitive, on the server) and the filters, in
 * the chosen order; with `onToggle`, each has a checkbox to choose it for a campaign plan.
 */
export function LocationsList({ filters, onClear, selected, onToggle }: LocationsListProps) {
  const { t, i18n } = useTranslation();
  const query = useInfiniteQuery({ ...locationsQueryOptions(filters), placeholderData: keepPreviousData });
  const q = filters.q;
  const filtered = Boolean(filters.format || filters.city || filters.audience);

  if (query.isPending) return <Spinner />;
  if (query.isError) {
    return <QueryError error={query.error} onRetry={() => void query.refetch()} />;
  }
  const locations = query.data.pages.flatMap((page) => page.items);
  if (locations.length === 0) {
    if (filtered) {
      return (
        <div className="empty-state" role="status">
          <p>{t('locations.library.noMatch')}</p>
          <Button variant="secondary" size="sm" onClick={onClear}>
            {t('locations.library.clear')}
          </Button>
        </div>
      );
    }
    return (
      <p className="empty-state" role="status">
        {q.trim() ? t('locations.noResults', { query: q.trim() }) : t('locations.empty')}
      </p>
    );
  }
  return (
    <>
      <ul className="media-grid" aria-label={t('locations.listLabel')} aria-busy={query.isPlaceholderData} data-testid="locations-list">
        {locations.map((location) => (
          <li key={location.id} className={onToggle ? 'media-card media-card--selectable' : 'media-card'} data-testid="location-card">
            {onToggle ? (
              <input
                type="checkbox"
                className="media-card__select"
                checked={selected?.includes(location.id) ?? false}
                aria-label={t('plans.select', { name: location.name })}
                onChange={() => onToggle(location.id)}
                data-testid="location-select"
              />
            ) : null}
            <Link to={`/locations/${encodeURIComponent(location.id)}`} className="media-card__link">
              {location.photo ? (
                <img
                  className="media-card__image"
                  src={location.photo.urls.thumbnail}
                  alt=""
                  loading="lazy"
                  width={location.photo.width}
                  height={location.photo.height}
                />
              ) : (
                <span className="media-card__placeholder" aria-hidden="true" />
              )}
              <span className="media-card__name">{location.name}</span>
            </Link>
            <span className="media-card__meta">
              {[location.postal_code, location.city].filter(Boolean).join(' ') || t(`locations.formats.${location.format}`)}
            </span>
            {location.viewing ? (
              <span className="media-card__meta" data-testid="location-time-in-view">
                {t('locations.viewing.short', {
                  seconds: location.viewing.time_in_view_s.toLocaleString(i18n.language, { minimumFractionDigits: 1, maximumFractionDigits: 1 }),
                })}
              </span>
            ) : null}
          </li>
        ))}
      </ul>
      {query.hasNextPage ? (
        <Button variant="secondary" onClick={() => void query.fetchNextPage()} disabled={query.isFetchingNextPage}>
          {t('common.loadMore')}
        </Button>
      ) : null}
    </>
  );
}
