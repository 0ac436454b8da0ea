import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { ContentLayout } from '@/components/layouts/content-layout';
import { LocationSearch } from '@/features/locations/components/location-search';
import { LocationsList } from '@/features/locations/components/locations-list';
import { useSearchDraft } from '@/lib/use-search-draft';

export default function LocationsRoute() {
  const { t } = useTranslation();
  const { q, draft, setDraft } = useSearchDraft();

  return (
    <ContentLayout
      title={t('locations.title')}
      actions={
        <>
          <Link to="/locations/import" className="ui-button ui-button--secondary ui-button--md" data-testid="import-locations">
            {t('locations.import.link')}
          </Link>
          <Link to="/locations/new" className="ui-button ui-button--primary ui-button--md" data-testid="new-location">
            {t('locations.new')}
          </Link>
        </>
      }
    >
      <LocationSearch value={draft} onChange={setDraft} />
      <LocationsList q={q} />
    </ContentLayout>
  );
}
