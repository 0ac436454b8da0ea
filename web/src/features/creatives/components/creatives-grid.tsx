import { useInfiniteQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { QueryError } from '@/components/query-error';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';

import { creativesInfiniteQueryOptions, NO_FILTERS, type CreativeFilters } from '../api/creatives';

import { CreativesEmpty } from './creatives-empty';

/**
 * The user's creatives as a grid of thumbnails, in the chosen order and filtered, each with its
 * brand and campaign; names wrap between words, and a long one is cut with its full text on hover.
 */
export function CreativesGrid({ filters = NO_FILTERS, onClear }: { filters?: CreativeFilters; onClear?: () => void }) {
  const { t } = useTranslation();
  const query = useInfiniteQuery(creativesInfiniteQueryOptions(filters));

  if (query.isPending) return <Spinner />;
  if (query.isError) {
    return <QueryError error={query.error} onRetry={() => void query.refetch()} />;
  }
  const creatives = query.data.pages.flatMap((page) => page.items);
  const filtered = Boolean(filters.q || filters.brand || filters.campaign);
  if (creatives.length === 0 && !filtered) return <CreativesEmpty />;
  if (creatives.length === 0) {
    return (
      <div className="library-empty" data-testid="creatives-no-match">
        <p>{t('creatives.library.noMatch')}</p>
        {onClear ? (
          <Button variant="secondary" size="sm" onClick={onClear}>
            {t('creatives.library.clear')}
          </Button>
        ) : null}
      </div>
    );
  }

  return (
    <>
      <ul className="media-grid" aria-label={t('creatives.gridLabel')} data-testid="creatives-grid">
        {creatives.map((creative) => (
          <li key={creative.id} className="media-card" data-testid="creative-card">
            <Link to={`/creatives/${encodeURIComponent(creative.id)}`} className="media-card__link">
              <img
                className="media-card__image"
                src={creative.media.urls.thumbnail}
                alt=""
                loading="lazy"
                width={creative.media.width}
                height={creative.media.height}
              />
              <span className="media-card__name" title={creative.name}>
                {creative.name}
              </span>
            </Link>
            {creative.brand || creative.campaign ? (
              <span className="media-card__tags" data-testid="creative-tags">
                {[creative.brand, creative.campaign].filter(Boolean).join(' · ')}
              </span>
            ) : null}
            <span className="media-card__meta">
              {t('creatives.dimensions', { width: creative.media.width, height: creative.media.height })}
            </span>
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
