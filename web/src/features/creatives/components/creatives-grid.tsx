import { useInfiniteQuery } from '@tanstack/react-query';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { QueryError } from '@/components/query-error';
import { Button } from '@/components/ui/button';
import { Spinner } from '@/components/ui/spinner';

import { creativesInfiniteQueryOptions } from '../api/creatives';

import { CreativesEmpty } from './creatives-empty';

/** The user's creatives as a grid of thumbnails, newest first. */
export function CreativesGrid() {
  const { t } = useTranslation();
  const query = useInfiniteQuery(creativesInfiniteQueryOptions());

  if (query.isPending) return <Spinner />;
  if (query.isError) {
    return <QueryError error={query.error} onRetry={() => void query.refetch()} />;
  }
  const creatives = query.data.pages.flatMap((page) => page.items);
  if (creatives.length === 0) return <CreativesEmpty />;

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
              <span className="media-card__name">{creative.name}</span>
            </Link>
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
