import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { useTranslation } from 'react-i18next';

import { Button } from '@/components/ui/button';
import { Select } from '@/components/ui/select';

import { AUDIENCES, LOCATION_SORTS, locationFacetsQueryOptions, type LocationFilters, type LocationFormat, type LocationSort } from '../api/locations';
import { LocationSearch } from './location-search';

export type LocationsView = 'list' | 'map';

type LocationsToolbarProps = {
  /** The search field's text as typed (the list follows it once typing pauses). */
  draft: string;
  onDraft: (value: string) => void;
  filters: LocationFilters;
  onChange: (change: Partial<LocationFilters>) => void;
  view: LocationsView;
  onView: (view: LocationsView) => void;
};

/** Search, format, city and audience filters, the order, and list or map. */
export function LocationsToolbar({ draft, onDraft, filters, onChange, view, onView }: LocationsToolbarProps) {
  const { t } = useTranslation();
  const facets = useQuery(locationFacetsQueryOptions());
  const ids = { format: useId(), city: useId(), audience: useId(), sort: useId() };
  // A value the facets no longer have (a link, a deleted location) stays choosable.
  const withCurrent = (values: Array<{ name: string; count: number }>, current: string) =>
    current && !values.some((v) => v.name === current) ? [...values, { name: current, count: 0 }] : values;
  const filtered = Boolean(filters.q || filters.format || filters.city || filters.audience);
  return (
    <div className="locations-toolbar">
      <LocationSearch value={draft} onChange={onDraft} />
      <div className="library-toolbar" data-testid="locations-toolbar">
        <div className="library-toolbar__field">
          <label htmlFor={ids.format} className="library-toolbar__label">
            {t('locations.fields.format')}
          </label>
          <Select id={ids.format} value={filters.format} onChange={(e) => onChange({ format: e.target.value })} data-testid="format-filter">
            <option value="">{t('locations.library.allFormats')}</option>
            {withCurrent(facets.data?.formats ?? [], filters.format).map((f) => (
              <option key={f.name} value={f.name}>
                {t('locations.library.facet', { name: t(`locations.formats.${f.name as LocationFormat}`), count: f.count })}
              </option>
            ))}
          </Select>
        </div>
        <div className="library-toolbar__field">
          <label htmlFor={ids.city} className="library-toolbar__label">
            {t('locations.fields.city')}
          </label>
          <Select id={ids.city} value={filters.city} onChange={(e) => onChange({ city: e.target.value })} data-testid="city-filter">
            <option value="">{t('locations.library.allCities')}</option>
            {withCurrent(facets.data?.cities ?? [], filters.city).map((c) => (
              <option key={c.name} value={c.name}>
                {t('locations.library.facet', { name: c.name, count: c.count })}
              </option>
            ))}
          </Select>
        </div>
        <div className="library-toolbar__field">
          <label htmlFor={ids.audience} className="library-toolbar__label">
            {t('locations.fields.audience')}
          </label>
          <Select id={ids.audience} value={filters.audience} onChange={(e) => onChange({ audience: e.target.value })} data-testid="audience-filter">
            <option value="">{t('locations.library.allAudiences')}</option>
            {AUDIENCES.map((audience) => (
              <option key={audience} value={audience}>
                {t(`locations.audiences.${audience}`)}
              </option>
            ))}
          </Select>
        </div>
        {view === 'list' ? (
          <div className="library-toolbar__field">
            <label htmlFor={ids.sort} className="library-toolbar__label">
              {t('locations.library.sort')}
            </label>
            <Select id={ids.sort} value={filters.sort} onChange={(e) => onChange({ sort: e.target.value as LocationSort })} data-testid="location-sort">
              {LOCATION_SORTS.map((sort) => (
                <option key={sort} value={sort}>
                  {t(`locations.library.sorts.${sort}`)}
                </option>
              ))}
            </Select>
          </div>
        ) : null}
        <div className="segmented" role="group" aria-label={t('locations.library.view')}>
          {(['list', 'map'] as const).map((value) => (
            <Button
              key={value}
              variant={view === value ? 'primary' : 'secondary'}
              size="sm"
              aria-pressed={view === value}
              onClick={() => onView(value)}
              data-testid={`view-${value}`}
            >
              {t(`locations.library.views.${value}`)}
            </Button>
          ))}
        </div>
        {filtered ? (
          <Button variant="ghost" size="sm" className="library-toolbar__clear" onClick={() => onChange({ q: '', format: '', city: '', audience: '' })} data-testid="clear-location-filters">
            {t('locations.library.clear')}
          </Button>
        ) : null}
      </div>
    </div>
  );
}
