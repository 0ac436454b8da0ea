import { useQuery } from '@tanstack/react-query';
import { useId } from 'react';
import { useTranslation } from 'react-i18next';

import { Button } from '@/components/ui/button';
import { Select } from '@/components/ui/select';
import { ToolbarSearch } from '@/components/ui/toolbar-search';

import { CREATIVE_SORTS, creativeFacetsQueryOptions, type CreativeFilters, type CreativeSort } from '../api/creatives';

type CreativesToolbarProps = {
  /** The search field's text as typed (the list follows it once typing pauses). */
  draft: string;
  onDraft: (value: string) => void;
  filters: CreativeFilters;
  onChange: (change: Partial<CreativeFilters>) => void;
};

/** Search, brand and campaign filters and the order of the creatives library. */
export function CreativesToolbar({ draft, onDraft, filters, onChange }: CreativesToolbarProps) {
  const { t } = useTranslation();
  const facets = useQuery(creativeFacetsQueryOptions());
  const ids = { brand: useId(), campaign: useId(), sort: useId() };
  const brands = facets.data?.brands ?? [];
  const campaigns = facets.data?.campaigns ?? [];
  // A filter value the facets no longer have (a link, a deleted creative) stays choosable.
  const withCurrent = (values: Array<{ name: string; count: number }>, current: string) =>
    current && !values.some((v) => v.name === current) ? [...values, { name: current, count: 0 }] : values;
  const filtered = Boolean(filters.q || filters.brand || filters.campaign);
  return (
    <div className="library-toolbar" role="search" data-testid="creatives-toolbar">
      <ToolbarSearch
        label={t('creatives.library.search')}
        placeholder={t('creatives.library.searchPlaceholder')}
        value={draft}
        onChange={onDraft}
        testId="creative-search"
      />
      <div className="library-toolbar__field">
        <label htmlFor={ids.brand} className="library-toolbar__label">
          {t('creatives.fields.brand')}
        </label>
        <Select id={ids.brand} value={filters.brand} onChange={(e) => onChange({ brand: e.target.value })} data-testid="brand-filter">
          <option value="">{t('creatives.library.allBrands')}</option>
          {withCurrent(brands, filters.brand).map((b) => (
            <option key={b.name} value={b.name}>
              {t('creatives.library.facet', { name: b.name, count: b.count })}
            </option>
          ))}
        </Select>
      </div>
      <div className="library-toolbar__field">
        <label htmlFor={ids.campaign} className="library-toolbar__label">
          {t('creatives.fields.campaign')}
        </label>
        <Select
          id={ids.campaign}
          value={filters.campaign}
          onChange={(e) => onChange({ campaign: e.target.value })}
          data-testid="campaign-filter"
        >
          <option value="">{t('creatives.library.allCampaigns')}</option>
          {withCurrent(campaigns, filters.campaign).map((c) => (
            <option key={c.name} value={c.name}>
              {t('creatives.library.facet', { name: c.name, count: c.count })}
            </option>
          ))}
        </Select>
      </div>
      <div className="library-toolbar__field">
        <label htmlFor={ids.sort} className="library-toolbar__label">
          {t('creatives.library.sort')}
        </label>
        <Select
          id={ids.sort}
          value={filters.sort}
          onChange={(e) => onChange({ sort: e.target.value as CreativeSort })}
          data-testid="creative-sort"
        >
          {CREATIVE_SORTS.map((sort) => (
            <option key={sort} value={sort}>
              {t(`creatives.library.sorts.${sort}`)}
            </option>
          ))}
        </Select>
      </div>
      {filtered ? (
        <Button variant="ghost" size="sm" className="library-toolbar__clear" onClick={() => onChange({ q: '', brand: '', campaign: '' })} data-testid="clear-filters">
          {t('creatives.library.clear')}
        </Button>
      ) : null}
    </div>
  );
}
