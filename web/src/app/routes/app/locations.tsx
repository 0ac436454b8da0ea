import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';

import { ContentLayout } from '@/components/layouts/content-layout';
import { LocationSearch } from '@/features/locations/components/location-search';
import { LocationsList } from '@/features/locations/components/locations-list';

/** Typing settles this long before the list is asked for. */
export const SEARCH_DEBOUNCE_MS = 250;

export default function LocationsRoute() {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const q = params.get('q') ?? '';
  const [draft, setDraft] = useState(q);
  // Back/forward (or a link) can change ?q= under the field: follow it.
  const [shownQ, setShownQ] = useState(q);
  if (q !== shownQ) {
    setShownQ(q);
    setDraft(q);
  }

  // The query lives in the URL (?q=), written once typing pauses; history is not flooded (replace).
  useEffect(() => {
    if (draft === q) return;
    const timer = window.setTimeout(() => {
      setParams(
        (current) => {
          const next = new URLSearchParams(current);
          if (draft.trim()) next.set('q', draft);
          else next.delete('q');
          return next;
        },
        { replace: true },
      );
    }, SEARCH_DEBOUNCE_MS);
    return () => window.clearTimeout(timer);
  }, [draft, q, setParams]);

  return (
    <ContentLayout
      title={t('locations.title')}
      actions={
        <Link to="/locations/new" className="ui-button ui-button--primary ui-button--md" data-testid="new-location">
          {t('locations.new')}
        </Link>
      }
    >
      <LocationSearch value={draft} onChange={setDraft} />
      <LocationsList q={q} />
    </ContentLayout>
  );
}
