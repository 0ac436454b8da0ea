//! Locations to put in a plan: searched as the locations list is (on the server, accents and case
//! ignored), each with a checkbox and its contacts a day. Locations without a photo and a panel
//! outline cannot be rendered, so they are listed but cannot be chosen.
import { keepPreviousData, useInfiniteQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';

import { QueryError } from '@/components/query-error';
import { Button } from '@/components/ui/button';
import { Input } from '@/components/ui/input';
import { Spinner } from '@/components/ui/spinner';
import { type Location, locationsQueryOptions } from '@/features/locations/api/locations';

import { formatCount } from '../lib/format';

export type SitePickerProps = {
  /** The chosen locations, in the order they were chosen. */
  chosen: readonly Location[];
  onChange: (next: Location[]) => void;
};

export function SitePicker({ chosen, onChange }: SitePickerProps) {
  const { t, i18n } = useTranslation();
  const [q, setQ] = useState('');
  const searchId = useId();
  const query = useInfiniteQuery({ ...locationsQueryOptions({ q }), placeholderData: keepPreviousData });
  const chosenIds = new Set(chosen.map((l) => l.id));
  const toggle = (location: Location) =>
    onChange(chosenIds.has(location.id) ? chosen.filter((l) => l.id !== location.id) : [...chosen, location]);

  return (
    <div className="site-picker" data-testid="site-picker">
      <label className="ui-label" htmlFor={searchId}>
        {t('plans.addSites')}
      </label>
      <Input id={searchId} type="search" value={q} placeholder={t('locations.searchPlaceholder')} onChange={(event) => setQ(event.target.value)} />
      {query.isPending ? (
        <Spinner />
      ) : query.isError ? (
        <QueryError error={query.error} onRetry={() => void query.refetch()} />
      ) : (
        <>
          <ul className="site-picker__list" aria-busy={query.isPlaceholderData}>
            {query.data.pages
              .flatMap((page) => page.items)
              .map((location) => {
                const renderable = Boolean(location.photo && location.panel_quad);
                return (
                  <li key={location.id}>
                    <label className={renderable ? 'site-picker__item' : 'site-picker__item site-picker__item--off'}>
                      <input
                        type="checkbox"
                        checked={chosenIds.has(location.id)}
                        disabled={!renderable}
                        onChange={() => toggle(location)}
                        data-testid="site-option"
                      />
                      <span className="site-picker__name">{location.name}</span>
                      <span className="site-picker__meta">
                        {renderable
                          ? location.daily_contacts === null || location.daily_contacts === undefined
                            ? t('plans.unknownContacts')
                            : t('plans.perDay', { count: location.daily_contacts, value: formatCount(location.daily_contacts, i18n.language) })
                          : t('plans.needsPhoto')}
                      </span>
                    </label>
                  </li>
                );
              })}
          </ul>
          {query.hasNextPage ? (
            <Button variant="secondary" size="sm" onClick={() => void query.fetchNextPage()} disabled={query.isFetchingNextPage}>
              {t('common.loadMore')}
            </Button>
          ) : null}
        </>
      )}
    </div>
  );
}
