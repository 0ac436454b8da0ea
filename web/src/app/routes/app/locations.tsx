import { useState } from 'react';
import { useTranslation } from 'react-i18next';

import { ComingSoon } from '@/components/coming-soon';
import { ContentLayout } from '@/components/layouts/content-layout';
import { LocationSearch } from '@/features/locations/components/location-search';

export default function LocationsRoute() {
  const { t } = useTranslation();
  const [search, setSearch] = useState('');
  return (
    <ContentLayout title={t('locations.title')}>
      <LocationSearch value={search} onChange={setSearch} />
      <ComingSoon />
    </ContentLayout>
  );
}
