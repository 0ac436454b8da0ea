import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';

import { ContentLayout } from '@/components/layouts/content-layout';
import { CannotChange } from '@/components/read-only-notice';
import { InventoryImport } from '@/features/locations/components/inventory-import';
import { useWorkspace } from '@/lib/workspace';

/** `/locations/import`: many locations at once from a spreadsheet (and a ZIP of photos). */
export default function LocationsImportRoute() {
  const { t } = useTranslation();
  const { canEdit } = useWorkspace();
  return (
    <ContentLayout title={t('locations.import.title')}>
      <p>
        <Link to="/locations">{t('locations.back')}</Link>
      </p>
      {canEdit ? <InventoryImport /> : <CannotChange />}
    </ContentLayout>
  );
}
