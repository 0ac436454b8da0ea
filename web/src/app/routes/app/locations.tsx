import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useSearchParams } from 'react-router';

import { ContentLayout } from '@/components/layouts/content-layout';
import { LOCATION_SORTS, type LocationFilters, type LocationSort } from '@/features/locations/api/locations';
import { LocationsList } from '@/features/locations/components/locations-list';
import { LocationsMap } from '@/features/locations/components/locations-map';
import { LocationsToolbar, type LocationsView } from '@/features/locations/components/locations-toolbar';
import { useSearchDraft } from '@/lib/use-search-draft';
import { useWorkspace } from '@/lib/workspace';

/** The list's filters, order and view live in the URL (?q=&format=&city=&audience=&sort=&view=): reload, back and links keep them. */
function readFilters(params: URLSearchParams): LocationFilters {
  const sort = params.get('sort') ?? '';
  return {
    q: params.get('q') ?? '',
    format: params.get('format') ?? '',
    city: params.get('city') ?? '',
    audience: params.get('audience') ?? '',
    sort: (LOCATION_SORTS as readonly string[]).includes(sort) ? (sort as LocationSort) : 'newest',
  };
}

export default function LocationsRoute() {
  const { t } = useTranslation();
  const [params, setParams] = useSearchParams();
  const filters = readFilters(params);
  const view: LocationsView = params.get('view') === 'map' ? 'map' : 'list';
  const { draft, setDraft } = useSearchDraft();
  const { canEdit } = useWorkspace();
  // Locations chosen for a campaign plan (kept while the search and filters change).
  const [selected, setSelected] = useState<string[]>([]);
  const toggle = (id: string) => setSelected((current) => (current.includes(id) ? current.filter((x) => x !== id) : [...current, id]));

  const change = (patch: Partial<LocationFilters> & { view?: LocationsView }) => {
    if (patch.q !== undefined) setDraft(patch.q);
    setParams(
      (current) => {
        const next = new URLSearchParams(current);
        for (const [key, value] of Object.entries(patch)) {
          const fallback = (key === 'sort' && value === 'newest') || (key === 'view' && value === 'list');
          if (value && !fallback) next.set(key, value);
          else next.delete(key);
        }
        return next;
      },
      { replace: true, preventScrollReset: true },
    );
  };

  return (
    <ContentLayout
      title={t('locations.title')}
      actions={
        canEdit ? (
          <>
              <Link to="/locations/import" className="ui-button ui-button--secondary ui-button--md" data-testid="import-locations">
              {t('locations.import.link')}
            </Link>
            <Link to="/locations/new" className="ui-button ui-button--primary ui-button--md" data-testid="new-location">
              {t('locations.new')}
            </Link>
          </>
        ) : null
      }
    >
      <LocationsToolbar draft={draft} onDraft={setDraft} filters={filters} onChange={change} view={view} onView={(next) => change({ view: next })} />
      {view === 'map' ? (
        <LocationsMap
          filters={filters}
          selected={selected}
          onSelect={canEdit ? (ids) => setSelected((current) => [...current, ...ids.filter((id) => !current.includes(id))]) : undefined}
        />
      ) : (
        <LocationsList
          filters={filters}
          onClear={() => change({ q: '', format: '', city: '', audience: '' })}
          selected={selected}
          onToggle={canEdit ? toggle : undefined}
        />
      )}
      {canEdit && selected.length > 0 ? (
        <div className="location-selection" role="region" aria-label={t('plans.fields.locations')} data-testid="location-selection">
          <Link to={`/plans/new?locations=${selected.map(encodeURIComponent).join(',')}`} className="ui-button ui-button--primary ui-button--md" data-testid="plan-from-selection">
            {t('plans.fromSelection', { count: selected.length })}
          </Link>
          <button type="button" className="ui-button ui-button--ghost ui-button--md" onClick={() => setSelected([])}>
            {t('plans.fromSelectionClear')}
          </button>
        </div>
      ) : null}
    </ContentLayout>
  );
}
